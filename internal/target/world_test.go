package target

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
)

// world fakes the kernel's cgroups for the target's runs: every step
// goes into log (a run's sampler reads the usage counter on a goroutine
// of its own, hence mu), fail makes a step fail, on runs a hook at it,
// and stats are the nr_periods of successive cpu.stat reads.
type world struct {
	mu    sync.Mutex
	log   []string
	fail  map[string]error
	on    map[string]func()
	stats []uint64
}

var fakeHier = cgroup.Hierarchy{Version: 1, MountPoint: "/fake/cpu", MountRoot: "/"}

func (w *world) step(name string) error {
	w.mu.Lock()
	w.log = append(w.log, name)
	w.mu.Unlock()
	if f := w.on[name]; f != nil {
		f()
	}
	return w.fail[name]
}

func (w *world) CPUHierarchy(cgroup.Host, int) (cgroup.Hierarchy, error) {
	return fakeHier, w.step("hierarchy")
}
func (w *world) CpusetHierarchy(_ cgroup.Host, cpu cgroup.Hierarchy) (cgroup.Hierarchy, error) {
	return cpu, nil
}
func (w *world) ParentDir(hier cgroup.Hierarchy, p string) (string, error) {
	return hier.MountPoint + "/" + strings.Trim(p, "/"), w.step("parent")
}
func (w *world) CleanStale(_ cgroup.Hierarchy, parent string) ([]string, []cgroup.Skipped, error) {
	return nil, nil, w.step("clean " + parent)
}
func (w *world) CreateSlice(hier cgroup.Hierarchy, spec cgroup.SliceSpec) (runner.Slice, error) {
	if err := w.step("create"); err != nil {
		return nil, err
	}
	return fakeSlice{w, cgroup.Cgroup{Hierarchy: hier, Path: "/tb-fake", Dir: spec.Parent + "/tb-fake"}}, nil
}
func (w *world) RemoveDefaultParent(cgroup.Hierarchy) { w.step("remove parent") }
func (w *world) Self(cgroup.Host, int) (runner.Current, error) {
	return nil, errors.New("a target's run is never in the current cgroup")
}

// fakeSlice is the server's slice; its limits are what the "kernel"
// took: 20 ms per 100 ms.
type fakeSlice struct {
	w  *world
	cg cgroup.Cgroup
}

var keptLimits = cgroup.Limits{Period: 100 * time.Millisecond, Quota: 20 * time.Millisecond}

func (s fakeSlice) Cgroup() cgroup.Cgroup          { return s.cg }
func (s fakeSlice) Limits() (cgroup.Limits, error) { return keptLimits, s.w.step("limits") }
func (s fakeSlice) Chain() ([]cgroup.Level, error) {
	return []cgroup.Level{{Dir: s.cg.Dir, Limits: keptLimits}}, nil
}
func (s fakeSlice) AddProc(pid int) error         { return s.w.step(fmt.Sprintf("move %d", pid)) }
func (s fakeSlice) Delete() error                 { return s.w.step("delete") }
func (s fakeSlice) KillLeft(int) (int, error)     { return 0, s.w.step("kill left") }
func (s fakeSlice) Usage() (time.Duration, error) { return 0, errors.New("no usage counter") }
func (s fakeSlice) Cpuset() (string, error)       { return "", nil }
func (s fakeSlice) Stat() (cgroup.CPUStat, error) {
	s.w.mu.Lock()
	var n uint64
	if len(s.w.stats) > 0 {
		n, s.w.stats = s.w.stats[0], s.w.stats[1:]
	}
	s.w.mu.Unlock()
	return cgroup.CPUStat{NrPeriods: &n}, s.w.step("stat")
}

// engine is the target's engine on the world, with srv as --serve's
// server and a guard on the world's log.
func (w *world) engine(srv *fakeServer) *Engine {
	return &Engine{
		Local: &runner.Local{Machine: runner.Machine{
			Cgroups:    w,
			HostCPU:    func(string) (host.CPUTimes, error) { return host.CPUTimes{CPUs: 2}, nil },
			ProcessCPU: func() (time.Duration, error) { return 0, nil },
			HostInfo:   func(string, time.Time) report.Host { return report.Host{Kernel: "fake"} },
			PIDCPU:     func(int) (time.Duration, error) { return 10 * time.Millisecond, nil },
		}},
		StartServer: func(exe string, argv, env []string) (Server, error) {
			srv.env = env
			return srv, w.step("server start " + strings.Join(argv, " "))
		},
		StartGuard: func(exe, dir string) (Guard, error) { return fakeGuard{w}, w.step("guard " + dir) },
	}
}
