package runnertest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report"
)

// Hier is the fake kernel's cpu hierarchy: v1, mounted at /fake/cpu.
var Hier = cgroup.Hierarchy{Version: 1, MountPoint: "/fake/cpu", MountRoot: "/"}

// KeptLimits are what a cgroup's limits read back, whatever was asked,
// unless Kernel.Limits says otherwise: 20 ms per 100 ms.
var KeptLimits = cgroup.Limits{Period: 100 * time.Millisecond, Quota: 20 * time.Millisecond}

// Kernel fakes the machine a run reads. Every call is an event in its log;
// Fail makes the call of an event fail with its error; On runs a hook at
// an event before it answers. The zero Kernel is a machine where
// everything works. Its fields are set before a run; its methods may be
// called from many goroutines (a run's sampler reads on one of its own).
type Kernel struct {
	Fail map[string]error
	On   map[string]func()
	// Hook, when set, is asked at every event after On, with the directory
	// of the slice the event is about ("" for none, the parent for
	// "create"); its error fails the call, before Fail's.
	Hook func(event, dir string) error

	// Removed is what CleanStale says it removed: stale slices.
	Removed []string
	// Cpusets is where the cpusets live (nil: with cpu, as where v1
	// mounts them together); CpusetErr says there are none; Cpuset is what
	// a slice's cpuset reads back.
	Cpusets   *cgroup.Hierarchy
	CpusetErr error
	Cpuset    string
	// Limits are what a cgroup's limits read back; zero: KeptLimits.
	Limits cgroup.Limits
	// Stats are the nr_periods of successive cpu.stat reads, 0 once spent;
	// StatAt, when set, answers every read instead.
	Stats  []uint64
	StatAt func() cgroup.CPUStat
	// UsageAt and ProcessAt, when set, are a cgroup's usage counter and
	// this process's CPU clock (0 otherwise).
	UsageAt, ProcessAt func() time.Duration
	// Numbered names each slice tb-N, N in the order made (many slices at
	// once), rather than each tb-fake.
	Numbered bool

	mu               sync.Mutex
	log              []string
	spec             cgroup.SliceSpec
	created, deleted []string
	into             map[int]string
}

// Step is the event name: it is logged, then answered by On, Hook and Fail.
// A test's other fakes (a child, a server) log through it too.
func (k *Kernel) Step(event string) error { return k.step(event, "") }

func (k *Kernel) step(event, dir string) error {
	k.mu.Lock()
	k.log = append(k.log, event)
	k.mu.Unlock()
	if f := k.On[event]; f != nil {
		f()
	}
	if k.Hook != nil {
		if err := k.Hook(event, dir); err != nil {
			return err
		}
	}
	return k.Fail[event]
}

// Log is every event so far, in order.
func (k *Kernel) Log() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.log)
}

// ClearLog forgets the events so far (a second run on the same kernel).
func (k *Kernel) ClearLog() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.log = nil
}

// Happened says whether event is in the log: what a counter has counted
// depends on how far the workload has gone.
func (k *Kernel) Happened(event string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Contains(k.log, event)
}

// Spec is what the last CreateSlice was asked for.
func (k *Kernel) Spec() cgroup.SliceSpec {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.spec
}

// Created and Deleted are the slices' directories, in the order made and
// removed.
func (k *Kernel) Created() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.created)
}

func (k *Kernel) Deleted() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.deleted)
}

// Into is the directory of the slice pid was moved into; "" if none.
func (k *Kernel) Into(pid int) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.into[pid]
}

// CPUHierarchy is Hier.
func (k *Kernel) CPUHierarchy(cgroup.Host, int) (cgroup.Hierarchy, error) {
	return Hier, k.Step("hierarchy")
}

// CpusetHierarchy is a lookup that changes nothing: no event.
func (k *Kernel) CpusetHierarchy(_ cgroup.Host, cpu cgroup.Hierarchy) (cgroup.Hierarchy, error) {
	if k.Cpusets != nil {
		return *k.Cpusets, k.CpusetErr
	}
	return cpu, k.CpusetErr
}

func (k *Kernel) ParentDir(hier cgroup.Hierarchy, p string) (string, error) {
	if err := k.Step("parent"); err != nil {
		return "", err
	}
	return hier.MountPoint + "/" + strings.Trim(p, "/"), nil
}

func (k *Kernel) CleanStale(_ cgroup.Hierarchy, parent string) ([]string, []cgroup.Skipped, error) {
	return k.Removed, nil, k.Step("clean " + parent)
}

// RemoveDefaultParent's event names the hierarchy unless it is Hier.
func (k *Kernel) RemoveDefaultParent(hier cgroup.Hierarchy) {
	if hier.MountPoint != Hier.MountPoint {
		k.Step("remove parent " + hier.MountPoint)
		return
	}
	k.Step("remove parent")
}

func (k *Kernel) createSlice(hier cgroup.Hierarchy, spec cgroup.SliceSpec) (*Group, error) {
	k.mu.Lock()
	k.spec = spec
	k.mu.Unlock()
	if err := k.step("create", spec.Parent); err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	name := "tb-fake"
	if k.Numbered {
		name = fmt.Sprintf("tb-%d", len(k.created))
	}
	dir := spec.Parent + "/" + name
	k.created = append(k.created, dir)
	return &Group{k: k, cg: cgroup.Cgroup{Hierarchy: hier, Path: "/" + name, Dir: dir}}, nil
}

func (k *Kernel) self() (*Group, error) {
	if err := k.Step("self"); err != nil {
		return nil, err
	}
	return &Group{k: k, cg: cgroup.Cgroup{Hierarchy: Hier, Path: "/user.slice", Dir: Hier.MountPoint + "/user.slice"}}, nil
}

// HostCPU is a machine of 2 CPUs.
func (k *Kernel) HostCPU(string) (host.CPUTimes, error) {
	return host.CPUTimes{CPUs: 2}, k.Step("host cpu")
}

// ProcessCPU is ProcessAt.
func (k *Kernel) ProcessCPU() (time.Duration, error) {
	if err := k.Step("process cpu"); err != nil || k.ProcessAt == nil {
		return 0, err
	}
	return k.ProcessAt(), nil
}

// HostInfo is the report's host: kernel "fake"; no event.
func (k *Kernel) HostInfo(string, time.Time) report.Host { return report.Host{Kernel: "fake"} }

// Guard is a slice's guard on the kernel's log.
func (k *Kernel) Guard() Guard { return Guard{k} }

// Guard's Done is the event "guard done".
type Guard struct{ k *Kernel }

func (g Guard) Done() { g.k.Step("guard done") }

func (k *Kernel) limits() cgroup.Limits {
	if k.Limits == (cgroup.Limits{}) {
		return KeptLimits
	}
	return k.Limits
}

// Group is both a created slice and the current cgroup: its limits are
// what the "kernel" took (Kernel.Limits), not what was asked.
type Group struct {
	k  *Kernel
	cg cgroup.Cgroup
}

func (g *Group) Cgroup() cgroup.Cgroup { return g.cg }

func (g *Group) Limits() (cgroup.Limits, error) { return g.k.limits(), g.k.step("limits", g.cg.Dir) }

func (g *Group) Chain() ([]cgroup.Level, error) {
	return []cgroup.Level{{Dir: g.cg.Dir, Limits: g.k.limits()}}, g.k.step("chain", g.cg.Dir)
}

func (g *Group) Stat() (cgroup.CPUStat, error) {
	if g.k.StatAt != nil {
		return g.k.StatAt(), g.k.step("stat", g.cg.Dir)
	}
	var n uint64
	g.k.mu.Lock()
	if len(g.k.Stats) > 0 {
		n, g.k.Stats = g.k.Stats[0], g.k.Stats[1:]
	}
	g.k.mu.Unlock()
	return cgroup.CPUStat{NrPeriods: &n}, g.k.step("stat", g.cg.Dir)
}

func (g *Group) AddProc(pid int) error {
	if err := g.k.step(fmt.Sprintf("move %d", pid), g.cg.Dir); err != nil {
		return err
	}
	g.k.mu.Lock()
	defer g.k.mu.Unlock()
	if g.k.into == nil {
		g.k.into = map[int]string{}
	}
	g.k.into[pid] = g.cg.Dir
	return nil
}

func (g *Group) Delete() error {
	if err := g.k.step("delete", g.cg.Dir); err != nil {
		return err
	}
	g.k.mu.Lock()
	defer g.k.mu.Unlock()
	g.k.deleted = append(g.k.deleted, g.cg.Dir)
	return nil
}

func (g *Group) KillLeft(int) (int, error) { return 0, g.k.step("kill left", g.cg.Dir) }

func (g *Group) Usage() (time.Duration, error) {
	if err := g.k.step("usage", g.cg.Dir); err != nil || g.k.UsageAt == nil {
		return 0, err
	}
	return g.k.UsageAt(), nil
}

func (g *Group) Cpuset() (string, error) { return g.k.Cpuset, g.k.step("cpuset", g.cg.Dir) }

// Cgroups is a Kernel as runner.Cgroups, S and C being runner.Slice and
// runner.Current (see the package's doc).
type Cgroups[S, C any] struct{ *Kernel }

// CreateSlice makes a slice of Spec's parent, named as Numbered says.
func (c Cgroups[S, C]) CreateSlice(hier cgroup.Hierarchy, spec cgroup.SliceSpec) (S, error) {
	var none S
	g, err := c.createSlice(hier, spec)
	if err != nil {
		return none, err
	}
	return any(g).(S), nil
}

// Self is the current cgroup, /user.slice.
func (c Cgroups[S, C]) Self(cgroup.Host, int) (C, error) {
	var none C
	g, err := c.self()
	if err != nil {
		return none, err
	}
	return any(g).(C), nil
}
