package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/golden"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// machine builds a fixture machine: a CPU layout from the topology
// package's fixtures and a cgroup tree from the cgroup package's, laid over
// each other, with files added or replaced.
func machine(t *testing.T, topo, cg string, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(filepath.Join("../topology/testdata", topo))))
	if cg != "" {
		require.NoError(t, os.CopyFS(root, os.DirFS(filepath.Join("../cgroup/testdata", cg))))
	}
	all := map[string]string{"proc/sys/kernel/osrelease": "6.18.44-fc-v669\n"}
	for name, data := range files {
		all[name] = data
	}
	for name, data := range all {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	return root
}

func ids(lo, hi int) []int {
	var out []int
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

func quiet(cpus float64) func(context.Context) (Busy, error) {
	return func(context.Context) (Busy, error) { return Busy{CPUs: cpus, Window: 200 * time.Millisecond}, nil }
}

// seed16 is the seed's machine: 16 CPUs, 8 cores with siblings n and n+8,
// on this project's cgroup v1 hybrid layout.
func seed16(t *testing.T) Options {
	root := machine(t, "seed16", "hybrid", map[string]string{
		"sys/fs/cgroup/cpuset/cpuset.cpus":           "0-15\n",
		"sys/fs/cgroup/cpuset/cpuset.effective_cpus": "0-15\n",
	})
	return Options{Root: root, Busy: quiet(0.05), Process: Process{
		Affinity: ids(0, 15), NumCPU: 16, GOMAXPROCS: 16, GoVersion: "go1.26.0"}}
}

func gather(t *testing.T, o Options) *Report {
	t.Helper()
	r, err := Gather(context.Background(), o)
	require.NoError(t, err)
	return r
}

func TestSeed16Hybrid(t *testing.T) {
	r := gather(t, seed16(t))
	c := r.CPUs
	assert.Equal(t, ids(0, 15), c.Online)
	assert.Equal(t, []int{}, c.Offline)
	assert.Equal(t, 8, c.Cores)
	assert.Equal(t, 2, c.ThreadsPerCore)
	assert.True(t, c.SMT)
	assert.Equal(t, 1, c.Sockets)
	assert.Equal(t, 1, c.NUMANodes)
	for i, s := range c.Siblings {
		assert.Equal(t, []int{i, i + 8}, s)
	}

	cg := r.Cgroup
	assert.Equal(t, 1, cg.Version)
	assert.Equal(t, "hybrid", cg.Mode)
	assert.Equal(t, "/sys/fs/cgroup/unified", cg.Unified)
	assert.True(t, cg.CPUAcctApart)
	assert.Equal(t, "/", cg.Path)
	assert.Equal(t, "/sys/fs/cgroup/cpu", cg.Dir, "shown as on the machine, without the fixture's root")
	assert.Equal(t, int64(-1), cg.QuotaUs)
	require.NotNil(t, cg.EffectiveCPUs)
	assert.Equal(t, 16.0, *cg.EffectiveCPUs, "no quota: the allowed CPUs")
	require.NotNil(t, cg.Cpuset)
	assert.Equal(t, ids(0, 15), cg.Cpuset.Effective)
	assert.Equal(t, "/sys/fs/cgroup/cpuset", cg.Cpuset.Dir)

	require.NotNil(t, r.Kernel.BurstSupported)
	assert.True(t, *r.Kernel.BurstSupported)
	assert.Equal(t, "/sys/fs/cgroup/cpu/cpu.cfs_burst_us", r.Kernel.BurstEvidence)
	assert.True(t, r.CanCreateSlice, r.SliceCheck)
	assert.Equal(t, []string{
		"SMT on: more workers than cores (8) will run at uneven speed, as two threads of one core share it; --one-per-core uses one thread of each core",
		"cgroup v1 with cpuacct mounted apart from cpu: a created slice's usage counter is its twin there, which a --parent you name must have already (else its usage comes from the workload's own CPU clock)",
	}, r.Caveats)
}

// The text and the JSON of the seed machine, whole.
func TestSeed16Golden(t *testing.T) {
	r := gather(t, seed16(t))
	for _, format := range Formats {
		var b bytes.Buffer
		require.NoError(t, Write(&b, r, format))
		golden.Check(t, "seed16-hybrid."+format, b.String())
	}
}

func TestJSONKeys(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, gather(t, seed16(t)), "json"))
	var m map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &m))
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		return out
	}
	assert.ElementsMatch(t, []string{"schema_version", "cpus", "cgroup", "kernel", "go", "can_create_slice", "slice_check", "machine", "tracing", "caveats"}, keys(m))
	assert.ElementsMatch(t, []string{"online", "offline", "cores", "threads_per_core", "smt", "sockets", "numa_nodes", "affinity", "num_cpu", "siblings"}, keys(m["cpus"].(map[string]any)))
	assert.ElementsMatch(t, []string{"version", "mode", "unified", "cpuacct_apart", "path", "dir", "period_us", "quota_us", "burst_us", "effective_cpus", "levels", "cpuset"}, keys(m["cgroup"].(map[string]any)))
	assert.ElementsMatch(t, []string{"release", "burst_supported", "burst_evidence"}, keys(m["kernel"].(map[string]any)))
	assert.ElementsMatch(t, []string{"version", "gomaxprocs_default", "gomaxprocs_env"}, keys(m["go"].(map[string]any)))
}

// Offline CPUs, on cgroup v2 below an ancestor with a quota.
func TestOfflineV2(t *testing.T) {
	root := machine(t, "offline", "v2", map[string]string{"sys/fs/cgroup/cpuset.cpus.effective": "0-4,7\n"})
	r := gather(t, Options{Root: root, Busy: quiet(0), Process: Process{
		Affinity: []int{0, 1, 2, 3, 4, 7}, NumCPU: 6, GOMAXPROCS: 6, GoVersion: "go1.26.0"}})
	assert.Equal(t, []int{5, 6}, r.CPUs.Offline)
	assert.Equal(t, [][]int{{0, 4}, {1}, {2}, {3, 7}}, r.CPUs.Siblings)
	cg := r.Cgroup
	assert.Equal(t, 2, cg.Version)
	assert.Equal(t, "v2", cg.Mode)
	assert.Equal(t, "/user.slice/app", cg.Path)
	require.Len(t, cg.Levels, 3)
	assert.Equal(t, []string{"/user.slice/app", "/user.slice", "/"}, []string{cg.Levels[0].Path, cg.Levels[1].Path, cg.Levels[2].Path})
	assert.Equal(t, int64(50000), cg.Levels[1].QuotaUs)
	assert.Equal(t, int64(20000), cg.Levels[1].BurstUs)
	assert.Nil(t, cg.Levels[2].PeriodUs, "the root cgroup has no cpu.max")
	require.NotNil(t, cg.EffectiveCPUs)
	assert.Equal(t, 0.5, *cg.EffectiveCPUs)
	require.NotNil(t, cg.Cpuset)
	assert.Equal(t, "/", cg.Cpuset.Path, "inherited from the root")
	assert.Equal(t, []int{}, cg.Cpuset.CPUs)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 7}, cg.Cpuset.Effective)
	assert.Equal(t, "/sys/fs/cgroup/user.slice/app/cpu.max.burst", r.Kernel.BurstEvidence)
	assert.True(t, r.CanCreateSlice, r.SliceCheck)
	assert.Equal(t, []string{
		"SMT on: more workers than cores (4) will run at uneven speed, as two threads of one core share it; --one-per-core uses one thread of each core",
		"offline CPUs 5-6: 2 of the 8 CPUs run nothing; cores run 1 to 2 online threads, as some lost a sibling",
		"effective_cpus 0.5 < 6 online CPUs: the quota of /user.slice (50ms per 100ms) holds all the processes in it to 0.5 CPUs together",
		"the quota of /user.slice (0.5 CPUs) is tighter than this cgroup's own, and Go reads only its own cgroup: the default GOMAXPROCS 6 lets more threads run at once than that quota",
	}, r.Caveats)

	text := Text(r)
	for _, want := range []string{
		"  offline     5-6 (2)\n",
		"  mode        v2 only\n",
		"  cores       4, 1 to 2 threads: SMT on\n",
		"  siblings    core 0 → 0,4   core 1 → 1     core 2 → 2     core 3 → 3,7\n",
		"  limits      unlimited (period 100ms)\n",
		"  ancestors   /user.slice: 50ms per 100ms (0.5 CPUs), burst 20ms\n",
		"  effective   0.5 CPUs\n",
		"  cpuset      0-4,7 effective, none written, at /sys/fs/cgroup\n",
	} {
		assert.Contains(t, text, want)
	}
}

// Each caveat on the machine that shows it, and not where it does not hold.
func TestCaveats(t *testing.T) {
	type check struct {
		name string
		opts func(t *testing.T) Options
		want []string // substrings, each of some caveat
		not  []string // substrings no caveat has
	}
	seed := func(mod func(*Options)) func(t *testing.T) Options {
		return func(t *testing.T) Options { o := seed16(t); mod(&o); return o }
	}
	for _, c := range []check{
		{"one thread per core allowed: no SMT caveat", seed(func(o *Options) { o.Process.Affinity = ids(0, 7) }),
			[]string{"affinity 0-7: this process, and any workload it starts, may run on 8 of the 16 online CPUs"}, []string{"SMT on"}},
		{"siblings allowed", seed(func(o *Options) { o.Process.Affinity = []int{0, 8, 1} }),
			[]string{"SMT on: more workers than cores (2)", "affinity 0-1,8"}, nil},
		{"GOMAXPROCS from the environment", seed(func(o *Options) { o.Process.GOMAXPROCSEnv = "4"; o.Process.GOMAXPROCS = 4 }),
			[]string{"GOMAXPROCS=4 is set in the environment: Go's default here is 4"}, nil},
		{"a busy machine", seed(func(o *Options) { o.Busy = quiet(1.5) }),
			[]string{"busy machine: 1.50 of 16 CPUs were busy on average over 200ms"}, nil},
		{"a quiet machine, within two ticks", seed(func(o *Options) { o.Busy = quiet(0.29) }), nil, []string{"busy"}},
		{"a container's quota, GOMAXPROCS follows it", func(t *testing.T) Options {
			return Options{Root: machine(t, "seed16", "docker-v2", map[string]string{
				"sys/fs/cgroup/cgroup.subtree_control": "\n", "sys/fs/cgroup/cgroup.procs": "1\n"}),
				Process: Process{Affinity: ids(0, 15), NumCPU: 16, GOMAXPROCS: 2}}
		}, []string{
			"effective_cpus 1.5 < 16 online CPUs: the quota of / (150ms per 100ms)",
			"GOMAXPROCS default 2 follows this cgroup's CPU limit (1.5 CPUs, rounded up, at least 2), not the 16 CPUs",
			"no slice can be created here (/sys/fs/cgroup/cgroup.subtree_control does not enable cpu for its children",
		}, []string{"tighter", "cpuacct"}},
		{"an old kernel", func(t *testing.T) Options {
			return Options{Root: machine(t, "nosmt", "v1-old-kernel", nil), Process: Process{Affinity: []int{0, 1}, NumCPU: 2, GOMAXPROCS: 2}}
		}, []string{"no burst support in this kernel (/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_burst_us is missing; CFS burst came with Linux 5.14)"},
			[]string{"SMT", "GOMAXPROCS"}},
		{"no cpu controller", func(t *testing.T) Options {
			return Options{Root: machine(t, "nosmt", "v2-nocpu", nil), Process: Process{Affinity: []int{0, 1}, NumCPU: 2, GOMAXPROCS: 2}}
		}, []string{"no cgroup hierarchy holds the cpu controller"}, []string{"burst", "no slice can be created here"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := gather(t, c.opts(t))
			all := strings.Join(r.Caveats, "\n")
			for _, w := range c.want {
				assert.Contains(t, all, w)
			}
			for _, n := range c.not {
				assert.NotContains(t, all, n)
			}
		})
	}
}

// A v2 root cgroup with no cpu.max in sight: the release decides burst.
func TestBurstFromRelease(t *testing.T) {
	for release, want := range map[string]bool{"5.10.0-28-amd64": false, "6.1.0-18-amd64": true, "5.14.0": true} {
		root := machine(t, "nosmt", "", map[string]string{
			"proc/sys/kernel/osrelease":            release + "\n",
			"proc/self/mountinfo":                  "34 22 0:29 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
			"proc/self/cgroup":                     "0::/\n",
			"sys/fs/cgroup/cgroup.controllers":     "cpuset cpu\n",
			"sys/fs/cgroup/cgroup.subtree_control": "cpu\n",
		})
		r := gather(t, Options{Root: root, Process: Process{Affinity: []int{0, 1}, NumCPU: 2, GOMAXPROCS: 2}})
		require.NotNil(t, r.Kernel.BurstSupported, release)
		assert.Equal(t, want, *r.Kernel.BurstSupported, release)
		assert.Equal(t, "kernel release "+release, r.Kernel.BurstEvidence)
		assert.Nil(t, r.Machine, "not sampled")
	}
	for _, bad := range []string{"", "Linux", "6"} {
		_, known := releaseHasBurst(bad)
		assert.False(t, known, bad)
	}
}

func TestNoTopology(t *testing.T) {
	_, err := Gather(context.Background(), Options{Root: t.TempDir()})
	assert.Error(t, err)
}

func TestSiblingLinesBounded(t *testing.T) {
	var s [][]int
	for i := range 64 {
		s = append(s, []int{i, i + 64})
	}
	lines := siblingLines(s)
	assert.Len(t, lines, maxSiblingLines+1)
	assert.Equal(t, "… 32 more cores (--format json lists all)", lines[maxSiblingLines])
}

// Whether throttle events can be traced is the tracer's own answer: tried
// by loading its program, which says why where it cannot.
func TestTracing(t *testing.T) {
	o := seed16(t)
	assert.Equal(t, Tracing{Why: "not tried"}, gather(t, o).Tracing)
	o.Trace = func() (string, error) { return "a held interval ends at the unthrottle", nil }
	assert.Equal(t, Tracing{Available: true, Why: "the tracer's BPF program loads here; a held interval ends at the unthrottle"},
		gather(t, o).Tracing, "says how the intervals end")
	o.Trace = func() (string, error) {
		return "", errors.New("tracing throttle events needs root or CAP_BPF and CAP_PERFMON")
	}
	r := gather(t, o)
	assert.False(t, r.Tracing.Available)
	assert.Equal(t, "tracing throttle events needs root or CAP_BPF and CAP_PERFMON", r.Tracing.Why)

	// The throttle model is read whether or not the tracer loads, and
	// said in a line of its own.
	for _, m := range []string{throttle.ModelQueue, throttle.ModelQueueClock, throttle.ModelTask} {
		o.Model = func() string { return m }
		r = gather(t, o)
		assert.Equal(t, m, r.Tracing.Model)
		var b bytes.Buffer
		require.NoError(t, Write(&b, r, "text"))
		assert.Contains(t, b.String(), "throttling  "+throttleModels[m], m)
		b.Reset()
		require.NoError(t, Write(&b, r, "json"))
		assert.Contains(t, b.String(), `"throttle_model": "`+m+`"`)
	}
	o.Model = func() string { return "" }
	var b bytes.Buffer
	require.NoError(t, Write(&b, gather(t, o), "text"))
	assert.NotContains(t, b.String(), "throttling", "no BTF: no line")
}

// The cgroup driver auto picks is shown as asked; under systemd the slices
// go in a delegated scope, so a top without +cpu does not stop them.
func TestCgroupDriver(t *testing.T) {
	o := seed16(t)
	assert.Nil(t, gather(t, o).CgroupDriver, "left out when not asked")
	o.Driver = func() (string, string) { return "cgroupfs", "auto: systemd is not the init here" }
	r := gather(t, o)
	assert.Equal(t, &CgroupDriver{Name: "cgroupfs", Why: "auto: systemd is not the init here"}, r.CgroupDriver)
	o.Driver = func() (string, string) {
		return "systemd", "auto: systemd is the init on cgroup v2 and its bus answers"
	}
	r = gather(t, o)
	assert.True(t, r.CanCreateSlice)
	assert.Contains(t, r.SliceCheck, "throttlebench.slice")
}
