package inspect

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cpulist"
	"github.com/throttlebench/throttlebench/internal/topology"
)

// SchemaVersion changes whenever a key changes meaning or goes away.
const SchemaVersion = 1

// Report is what inspect found: its JSON is a stable object.
type Report struct {
	SchemaVersion int    `json:"schema_version"`
	CPUs          CPUs   `json:"cpus"`
	Cgroup        Cgroup `json:"cgroup"`
	Kernel        Kernel `json:"kernel"`
	Go            Go     `json:"go"`
	// CanCreateSlice says whether run and sweep could create a slice under
	// the default parent here; SliceCheck says why (not).
	CanCreateSlice bool     `json:"can_create_slice"`
	SliceCheck     string   `json:"slice_check"`
	Machine        *Machine `json:"machine"` // null when not sampled
	// Tracing says whether --trace can record throttle events here, and
	// why not.
	Tracing Tracing `json:"tracing"`
	// CgroupDriver is what --cgroup-driver auto picks here, and why; null
	// when not asked.
	CgroupDriver *CgroupDriver `json:"cgroup_driver,omitempty"`
	Caveats      []string      `json:"caveats"`
}

// CgroupDriver is the cgroup driver run, sweep and latency pick by
// default here (cgroup.Drivers) and why.
type CgroupDriver struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// Tracing is whether throttle events can be traced (--trace) and how the
// traced intervals end on this kernel, or why not: the tracer's program
// was loaded, not attached, and closed.
type Tracing struct {
	Available bool   `json:"available"`
	Why       string `json:"why"`
	// Model is the kernel's throttle model, read from its BTF whether or
	// not the tracer loads here: "queue" (whole run queues, no clock of
	// their own: before 6.6), "queue_clock" (whole queues, each with its
	// own throttled clock: 6.6-6.17) or "task" (threads throttled one by
	// one: 6.18+); omitted where the BTF cannot be read.
	Model string `json:"throttle_model,omitempty"`
}

// CPUs is the CPU layout and what this process may use of it.
type CPUs struct {
	Online         []int   `json:"online"`
	Offline        []int   `json:"offline"`
	Cores          int     `json:"cores"`
	ThreadsPerCore int     `json:"threads_per_core"` // the most online threads of any core
	SMT            bool    `json:"smt"`
	Sockets        int     `json:"sockets"`
	NUMANodes      int     `json:"numa_nodes"`
	Affinity       []int   `json:"affinity"` // sched_getaffinity; null when unknown
	NumCPU         int     `json:"num_cpu"`  // runtime.NumCPU
	Siblings       [][]int `json:"siblings"` // each core's online threads
}

// Cgroup is the process's cgroup in the cpu controller's hierarchy.
type Cgroup struct {
	Version      int    `json:"version"` // of the hierarchy with the cpu controller; 0: none
	Mode         string `json:"mode"`    // v1, hybrid, v2, none
	Unified      string `json:"unified"` // where cgroup2 is mounted; "" when it is not
	CPUAcctApart bool   `json:"cpuacct_apart"`
	Path         string `json:"path"` // as the kernel names it in /proc/self/cgroup
	Dir          string `json:"dir"`
	PeriodUs     *int64 `json:"period_us"`
	QuotaUs      int64  `json:"quota_us"` // -1 = unlimited
	BurstUs      int64  `json:"burst_us"`
	// EffectiveCPUs is the tightest of the limits in Levels and the CPUs
	// the process may run on.
	EffectiveCPUs *float64 `json:"effective_cpus"`
	Levels        []Level  `json:"levels"` // the own cgroup first, then each ancestor in sight
	Cpuset        *Cpuset  `json:"cpuset"` // null without a cpuset controller
	Error         string   `json:"error,omitempty"`
}

// Level is one cgroup of the chain and its limits.
type Level struct {
	Path     string   `json:"path"`
	Dir      string   `json:"dir"`
	PeriodUs *int64   `json:"period_us"`
	QuotaUs  int64    `json:"quota_us"` // -1 = unlimited
	BurstUs  int64    `json:"burst_us"`
	CPUs     *float64 `json:"cpus"` // quota/period; null when unlimited
}

// Cpuset is the set of CPUs the process's cgroup may use.
type Cpuset struct {
	Version int    `json:"version"`
	Path    string `json:"path"`
	Dir     string `json:"dir"`
	// CPUs is what was written (cpuset.cpus); on v2 empty means the
	// parent's set applies.
	CPUs      []int `json:"cpus"`
	Effective []int `json:"effective_cpus"`
}

// Kernel is what the kernel offers.
type Kernel struct {
	Release string `json:"release"`
	// BurstSupported is null when no cgroup has the cpu controller.
	BurstSupported *bool  `json:"burst_supported"`
	BurstEvidence  string `json:"burst_evidence"` // the file looked at, or the release
}

// Go is what Go does here.
type Go struct {
	Version           string `json:"version"`
	GOMAXPROCSDefault int    `json:"gomaxprocs_default"` // as the process started
	GOMAXPROCSEnv     string `json:"gomaxprocs_env"`     // "" when unset
}

// Machine is how busy the machine was while inspect looked.
type Machine struct {
	BusyCPUs float64 `json:"busy_cpus"` // on average, over the window
	WindowMs float64 `json:"window_ms"`
}

// Process is what only the running process knows.
type Process struct {
	Affinity      []int // nil when unknown
	NumCPU        int
	GOMAXPROCS    int // runtime.GOMAXPROCS(0) as the process started
	GOMAXPROCSEnv string
	GoVersion     string
}

// Busy is one reading of how busy the machine is.
type Busy struct {
	CPUs   float64 // CPU time used by anything, per wall time
	Window time.Duration
}

// Options say where to look.
type Options struct {
	Root    string // filesystem root: "/" on the machine
	Process Process
	// Busy samples the machine's load; nil leaves it out.
	Busy func(context.Context) (Busy, error)
	// Trace tries whether throttle events can be traced here and says how
	// their intervals end (tracer.Probe); nil says it was not tried.
	Trace func() (string, error)
	// Model reads the kernel's throttle model (tracer.Model); nil leaves
	// it out.
	Model func() string
	// Driver says which cgroup driver auto picks here and why; nil leaves
	// it out.
	Driver func() (name, why string)
}

// Gather inspects the machine. Only a CPU layout it cannot read is an
// error; a cgroup it cannot read is said in the report.
func Gather(ctx context.Context, o Options) (*Report, error) {
	top, err := topology.Read(o.Root)
	if err != nil {
		return nil, err
	}
	r := &Report{SchemaVersion: SchemaVersion}
	r.CPUs = cpus(top, o.Process)
	r.Go = Go{Version: o.Process.GoVersion, GOMAXPROCSDefault: o.Process.GOMAXPROCS, GOMAXPROCSEnv: o.Process.GOMAXPROCSEnv}
	r.Kernel.Release = readRelease(o.Root)

	var cg cgroup.Cgroup
	var chain []cgroup.Level
	r.Cgroup, cg, chain = gatherCgroup(o.Root, r.CPUs)
	if r.Cgroup.Version != 0 {
		ok, known, file := cg.BurstSupport()
		if known {
			r.Kernel.BurstEvidence = show(o.Root, file)
		} else if ok, known = releaseHasBurst(r.Kernel.Release); known {
			r.Kernel.BurstEvidence = "kernel release " + r.Kernel.Release
		}
		if known {
			r.Kernel.BurstSupported = &ok
		}
		r.CanCreateSlice, r.SliceCheck = cg.Hierarchy.CanCreateSlice()
		r.SliceCheck = showIn(o.Root, r.SliceCheck)
	} else {
		r.SliceCheck = "no cgroup hierarchy holds the cpu controller"
	}

	if o.Driver != nil {
		name, why := o.Driver()
		r.CgroupDriver = &CgroupDriver{Name: name, Why: why}
		// Through systemd the slices go in a scope systemd delegates, not
		// in the default parent at the top.
		if name == cgroup.DriverSystemd {
			r.CanCreateSlice = true
			r.SliceCheck = "in a transient scope of ours in " + cgroup.ScopeSlice + ", delegated by systemd (--cgroup-driver systemd)"
		}
	}
	r.Tracing = Tracing{Why: "not tried"}
	if o.Trace != nil {
		if ends, err := o.Trace(); err != nil {
			r.Tracing.Why = err.Error()
		} else {
			r.Tracing = Tracing{Available: true, Why: "the tracer's BPF program loads here; " + ends}
		}
	}
	if o.Model != nil {
		r.Tracing.Model = o.Model()
	}
	if o.Busy != nil {
		if b, err := o.Busy(ctx); err == nil {
			r.Machine = &Machine{BusyCPUs: round(b.CPUs, 3), WindowMs: round(float64(b.Window)/float64(time.Millisecond), 0)}
		} else if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
	}
	r.Caveats = caveats(r, top, chain)
	return r, nil
}

func cpus(top *topology.Topology, p Process) CPUs {
	c := CPUs{
		Online: nonNil(top.Online), Offline: nonNil(top.Offline),
		Cores: len(top.Cores), ThreadsPerCore: top.ThreadsPerCore(), SMT: top.SMT(),
		Sockets: len(top.Packages), NUMANodes: len(top.Nodes),
		NumCPU: p.NumCPU, Siblings: [][]int{},
	}
	if p.Affinity != nil {
		c.Affinity = slices.Sorted(slices.Values(p.Affinity))
	}
	for _, core := range top.Cores {
		c.Siblings = append(c.Siblings, core.Threads)
	}
	return c
}

// gatherCgroup reads the cpu hierarchy's view of this process; a failure
// is kept in Error.
func gatherCgroup(root string, c CPUs) (Cgroup, cgroup.Cgroup, []cgroup.Level) {
	h := cgroup.Host{Root: root}
	out := Cgroup{Mode: cgroup.ModeNone, QuotaUs: -1, Levels: []Level{}}
	var errs []error
	layout, err := h.Layout()
	if err != nil {
		out.Error = err.Error()
		return out, cgroup.Cgroup{}, nil
	}
	out.Mode, out.CPUAcctApart, out.Unified = layout.Mode, layout.CPUAcctApart, show(root, layout.Unified)

	if cs, err := h.SelfCpuset(); err == nil {
		set := &Cpuset{Version: cs.Version, Path: cs.Path, Dir: show(root, cs.Dir)}
		set.CPUs, err = cpulist.Parse(cs.CPUs)
		errs = append(errs, err)
		set.Effective, err = cpulist.Parse(cs.Effective)
		errs = append(errs, err)
		set.CPUs, set.Effective = nonNil(set.CPUs), nonNil(set.Effective)
		out.Cpuset = set
	} else if !errors.Is(err, cgroup.ErrNoCpuset) {
		errs = append(errs, err)
	}

	cg, err := h.Self(0)
	if err != nil {
		if !errors.Is(err, cgroup.ErrNoCPUController) {
			errs = append(errs, err)
		}
		out.Error = joinErrs(errs)
		return out, cgroup.Cgroup{}, nil
	}
	out.Version, out.Path, out.Dir = cg.Version, cg.Path, show(root, cg.Dir)
	chain, err := cg.Chain()
	if err != nil {
		errs = append(errs, err)
		out.Error = joinErrs(errs)
		return out, cg, nil
	}
	for _, l := range chain {
		out.Levels = append(out.Levels, level(root, cg.Hierarchy, l))
	}
	if len(out.Levels) > 0 {
		own := out.Levels[0]
		out.PeriodUs, out.QuotaUs, out.BurstUs = own.PeriodUs, own.QuotaUs, own.BurstUs
	}
	allowed := len(c.Affinity)
	if allowed == 0 {
		allowed = len(c.Online)
	}
	if eff := cgroup.EffectiveCPUs(chain, allowed); !math.IsInf(eff, 1) {
		eff = round(eff, 6)
		out.EffectiveCPUs = &eff
	}
	out.Error = joinErrs(errs)
	return out, cg, chain
}

func level(root string, hier cgroup.Hierarchy, l cgroup.Level) Level {
	rel := strings.TrimPrefix(strings.TrimPrefix(l.Dir, hier.MountPoint), "/")
	out := Level{Path: filepath.Join("/", hier.MountRoot, rel), Dir: show(root, l.Dir), QuotaUs: -1, BurstUs: micros(l.Limits.Burst)}
	if l.Limits.Period > 0 {
		p := micros(l.Limits.Period)
		out.PeriodUs = &p
	}
	if l.Limits.Quota > 0 {
		out.QuotaUs = micros(l.Limits.Quota)
		cpus := round(l.Limits.CPUs(), 6)
		out.CPUs = &cpus
	}
	return out
}

func readRelease(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "proc/sys/kernel/osrelease"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// releaseHasBurst judges a kernel release ("6.1.0-18-amd64") by the
// version that added CFS burst, 5.14; known is false when it is not a
// release number.
func releaseHasBurst(release string) (ok, known bool) {
	major, rest, _ := strings.Cut(release, ".")
	minor := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = rest[:i]
	}
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return false, false
	}
	return ma > 5 || ma == 5 && mi >= 14, true
}

// show names a path below root as it is named on the machine.
func show(root, p string) string {
	if p == "" || root == "" || root == "/" {
		return p
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return p
	}
	return filepath.Join("/", rel)
}

// showIn rewrites the paths below root inside a message.
func showIn(root, msg string) string {
	if root == "" || root == "/" {
		return msg
	}
	return strings.ReplaceAll(msg, strings.TrimSuffix(root, "/"), "")
}

func micros(d time.Duration) int64 { return int64(d / time.Microsecond) }

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func joinErrs(errs []error) string {
	if err := errors.Join(errs...); err != nil {
		return strings.Join(strings.Fields(err.Error()), " ")
	}
	return ""
}

var errNotComparable = errors.New("the two /proc/stat readings cannot be compared")
