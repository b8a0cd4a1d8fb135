//go:build linux

package tracer_test

// A pod's shapes, traced as sample --trace traces them (runner.Local.Trace:
// the tracer, the family's counters read around the window, the summary):
// each throttled group's traced time against its own cpu.stat, within 10%.
// Here and not in test/integration so that the VM's tracer part (test-v2.sh
// tracer, this package's test binary) runs them on cgroup v2 too.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/testenv"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/tracer"
)

// shapePeriod is the pods' CFS period: a throttled stretch is about one
// period long, and a stretch cut by the window's edge (counted whole when
// it ends, traced from the window's start) is the comparison's error:
// shapeThrottles periods in, about a sixtieth. In a guest emulated on a
// busy host the unthrottle's timer fires late and a stretch outlasts its
// period: with 30 throttles, a clean-clone CI run beside other builds
// (load 12) read the container at 945.6 ms traced against 1055.6 ms
// counted, 0.896, outside shapeBand.
const (
	shapePeriod    = 50 * time.Millisecond
	shapeThrottles = 60
)

// shapeBand is issue 34's bound: each group within 10% of its counter.
const shapeBand = 0.10

// bothBand is TestShapeBothLimitsBind's bound where the hooks attach. 30
// runs in the 6.12 guest beside a busy loop on every host CPU traced the
// container at -5.7% of its counter at the mean (sd 1.9, -9.7% at worst)
// and the pod at -5.1% (sd 1.7, -8.6%): each hold starts at its thread's
// switch-out, which a loaded CPU makes late after the throttle the
// counter starts at, and two groups' stretches are twice the starts. At
// 15% a figure is 4.9 sd (the container) and 5.8 sd (the pod) from its
// mean, under one run in 100,000 for normal tails; 10% was 2.3 sd, about
// one figure in 90. Quiet, and in CI beside one busy loop, -1.5% to -7.8%.
const bothBand = 0.15

// Issue 34's pod: limited (1.9 CPUs), holding a limited container (a, 0.2
// CPU) and an unlimited one (b), a busy loop in each on a CPU of its own,
// traced at the pod. The events are a's, set against a's counter; the
// pod's limit never binds, its counter sees nothing, and that is no
// disagreement (before, the summary set a's events against the pod's
// counter and warned that they might come from another cgroup).
func TestShapeLimitedPodLimitedContainer(t *testing.T) {
	hier := shapeHierarchy(t)
	pod := newShapeGroup(t, hier, "", "", 1.9)
	a := pod.child(t, "a", 0.2)
	b := pod.child(t, "b", 0)
	spin(t, a, 0)
	spin(t, b, 1)
	te := traceShape(t, pod, a)
	agrees(t, te, a, report.RelationDescendant)
	own := row(t, te, pod)
	assert.Equal(t, report.RelationTarget, own.Relation)
	require.NotNil(t, own.CounterMs, "the pod's counter is read")
	assert.False(t, throttle.Disagree(own.TracedMs, *own.CounterMs, own.Relation),
		"the pod: traced %.1f ms against its counter's %.1f ms", own.TracedMs, *own.CounterMs)
}

// A container without a limit in a pod at 0.2 CPU, traced at the
// container: its events name the pod, an ancestor, set against the pod's
// counter; the container's own counter saw nothing, and nothing of it is
// traced.
func TestShapeContainerLimitedByPod(t *testing.T) {
	hier := shapeHierarchy(t)
	pod := newShapeGroup(t, hier, "", "", 0.2)
	c := pod.child(t, "c", 0)
	spin(t, c, 0)
	te := traceShape(t, c, pod)
	agrees(t, te, pod, report.RelationAncestor)
	own := row(t, te, c)
	assert.Equal(t, report.RelationTarget, own.Relation)
	assert.Zero(t, own.TracedMs, "nothing held by the container's own queues")
}

// A container at 0.2 CPU in a pod without a limit, traced at the pod: the
// events name the container, set against its counter; the pod's counter
// saw nothing, and that is no disagreement.
func TestShapeLimitedContainerUnlimitedPod(t *testing.T) {
	hier := shapeHierarchy(t)
	pod := newShapeGroup(t, hier, "", "", 0)
	a := pod.child(t, "a", 0.2)
	spin(t, a, 0)
	te := traceShape(t, pod, a)
	agrees(t, te, a, report.RelationDescendant)
	own := row(t, te, pod)
	assert.Zero(t, own.TracedMs)
	require.NotNil(t, own.CounterMs, "an unlimited pod's counter is read too")
	assert.Zero(t, *own.CounterMs)
}

// Both limits binding (issue 49): a pod at 0.6 CPU over a container at
// 0.3 (a) and an unlimited one (b), a busy loop in each, traced at the
// pod. a's quota runs out in each period, and the pod's too, so a's
// threads are held first by a's own throttle and, once a is unthrottled,
// by the pod's. Where the tracer hooks the kernel's unthrottles it splits
// a hold there, and each row is its own counter's within bothBand.
// Where it cannot (this host's 6.18 allows neither fentry nor kprobes),
// a hold ends on the queue's own throttled clock, which runs while any
// ancestor is throttled too: a's row is then an upper bound and the
// pod's a lower one (7 runs here: a +3.2% to +48%, the pod -20% to -3.1%),
// and the run's warning says they part.
func TestShapeBothLimitsBind(t *testing.T) {
	hier := shapeHierarchy(t)
	pod := newShapeGroup(t, hier, "", "", 0.6)
	a := pod.child(t, "a", 0.3)
	b := pod.child(t, "b", 0)
	spin(t, a, 0)
	spin(t, b, 1)
	te, warnings := traceShapeWarned(t, pod, a, pod)
	if te.HoldEnds == throttle.EndsUnthrottle {
		for _, w := range warnings {
			assert.NotEqual(t, report.KindTraceUnchecked, w.Kind, w.Text)
		}
		agreesWithin(t, te, a, report.RelationDescendant, bothBand)
		agreesWithin(t, te, pod, report.RelationTarget, bothBand)
		return
	}
	require.Equal(t, throttle.EndsQueueClock, te.HoldEnds, "the kernels whose tracer cannot hook run 6.6+ here")
	for g, upper := range map[shapeGroup]bool{a: true, pod: false} {
		r := row(t, te, g)
		require.NotNil(t, r.CounterMs, g.path())
		require.Positive(t, *r.CounterMs, "%s was throttled", g.path())
		ratio := r.TracedMs / *r.CounterMs
		if upper {
			assert.GreaterOrEqual(t, ratio, 1-shapeBand, "%s: an upper bound", g.path())
		} else {
			assert.LessOrEqual(t, ratio, 1+shapeBand, "%s: a lower bound", g.path())
		}
	}
}

// shapeGroup is a cgroup a test made (and removes).
type shapeGroup struct {
	hier cgroup.Hierarchy
	dir  string
}

// path is its cgroup path, as the result names it.
func (g shapeGroup) path() string {
	return "/" + strings.TrimPrefix(strings.TrimPrefix(g.dir, g.hier.MountPoint), "/")
}

var shapeSeq atomic.Int64

func shapeHierarchy(t *testing.T) cgroup.Hierarchy {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.SkipOrFail(t, "needs root to load BPF programs and create cgroups (run as root; CI runs it so, with CI=true)")
	}
	if _, err := tracer.Probe(); err != nil {
		testenv.SkipOrFail(t, err.Error())
	}
	hier, err := cgroup.Host{Root: "/"}.CPUHierarchy(0)
	if err != nil {
		testenv.SkipOrFail(t, fmt.Sprintf("no cgroup hierarchy with the cpu controller: %v", err))
	}
	return hier
}

// newShapeGroup makes a cgroup at the top of hier (parent "": a pod, of a
// name of its own) or in parent, limited to cpus (0: no limit), removed at
// cleanup. On cgroup v1 (this host) a pod weighs what throttlebench's
// default parent does (cgroup.DefaultParentWeight, 100 times the
// default), so that its limits, not its weight against the other work on
// the machine, decide when it is throttled. At the default weight, beside
// a busy loop on every CPU, the pod's share of a CPU was about a third
// (its weight split between its two CPUs), barely above
// TestShapeBothLimitsBind's 0.3 CPU: that test then waited its minute for
// 60 throttles and failed in both of two runs of the package (go run
// ./test/stress ./internal/tracer, one beside a loop a CPU, one beside
// two); beside two, TestShapeLimitedPodLimitedContainer's 0.2 CPU did
// too. Weighed, 10 runs of 10 passed beside a loop a CPU. In the v2
// guests the test runs alone, and there the weight starved what it
// measures by: with it, TestShapeBothLimitsBind's pod throttled 553
// times while its container did 60, four milliseconds each, traced at
// -21% of their counter (a clean-clone CI run's 6.12 lane), where the 30
// runs that set bothBand, at the default weight, read -5.7% at the mean.
func newShapeGroup(t *testing.T, hier cgroup.Hierarchy, parent, name string, cpus float64) shapeGroup {
	top := parent == ""
	if top {
		parent, name = hier.MountPoint, fmt.Sprintf("tb-shape-%d-%d", os.Getpid(), shapeSeq.Add(1))
	}
	g := shapeGroup{hier: hier, dir: filepath.Join(parent, name)}
	require.NoError(t, os.Mkdir(g.dir, 0o755))
	t.Cleanup(func() { removeShapeGroup(t, g.dir) })
	if top && hier.Version == 1 {
		g.write(t, "cpu.shares", strconv.Itoa(cgroup.DefaultParentWeight*1024/100))
	}
	if cpus > 0 {
		quota := int64(cpus * float64(shapePeriod/time.Microsecond))
		if hier.Version == 1 {
			g.write(t, "cpu.cfs_period_us", fmt.Sprint(int64(shapePeriod/time.Microsecond)))
			g.write(t, "cpu.cfs_quota_us", fmt.Sprint(quota))
		} else {
			g.write(t, "cpu.max", fmt.Sprintf("%d %d", quota, int64(shapePeriod/time.Microsecond)))
		}
	}
	return g
}

// child makes a cgroup in g (a container in a pod).
func (g shapeGroup) child(t *testing.T, name string, cpus float64) shapeGroup {
	if g.hier.Version == 2 {
		g.write(t, "cgroup.subtree_control", "+cpu")
	}
	return newShapeGroup(t, g.hier, g.dir, name, cpus)
}

func (g shapeGroup) write(t *testing.T, file, v string) {
	require.NoError(t, os.WriteFile(filepath.Join(g.dir, file), []byte(v), 0))
}

// throttled is how many periods the kernel has throttled g in.
func (g shapeGroup) throttled(t *testing.T) uint64 {
	f, err := cgroup.OpenStat(g.dir)
	require.NoError(t, err)
	defer f.Close()
	s, err := f.Read()
	require.NoError(t, err)
	require.NotNil(t, s.NrThrottled, "%s/cpu.stat has no nr_throttled", g.dir)
	return *s.NrThrottled
}

// removeShapeGroup removes a test cgroup once its processes, killed and
// reaped by the cleanups before, have left it.
func removeShapeGroup(t *testing.T, dir string) {
	var err error
	for range 100 {
		if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("remove test cgroup %s: %v", dir, err)
}

// spin starts a busy shell loop in g on cpu alone (pinned after the move,
// which resets a thread's affinity where a cpuset applies), and kills it
// by its PID at cleanup. A CPU each: the loops of a pod wait for no CPU
// behind each other, which kernels before 6.6 would trace as throttling.
func spin(t *testing.T, g shapeGroup, cpu int) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	pid := cmd.Process.Pid
	g.write(t, "cgroup.procs", fmt.Sprint(pid))
	var set unix.CPUSet
	set.Set(cpu)
	require.NoError(t, unix.SchedSetaffinity(pid, &set))
}

// traceShape traces at (the pod or a container) as sample --trace does,
// from when every loop runs until each group of wait has been throttled
// in shapeThrottles more periods, and returns the summary.
func traceShape(t *testing.T, at shapeGroup, wait ...shapeGroup) *report.ThrottleEvents {
	te, warnings := traceShapeWarned(t, at, wait...)
	noDisagreement(t, warnings)
	return te
}

// noDisagreement: no warning says a group's figures part.
func noDisagreement(t *testing.T, warnings []report.Warning) {
	t.Helper()
	for _, w := range warnings {
		assert.NotEqual(t, report.KindTraceDisagrees, w.Kind, "no group's figures part: %s", w.Text)
		assert.NotEqual(t, report.KindTraceUnchecked, w.Kind, w.Text)
	}
}

// traceShapeWarned is traceShape with the run's warnings, not checked.
func traceShapeWarned(t *testing.T, at shapeGroup, wait ...shapeGroup) (*report.ThrottleEvents, []report.Warning) {
	tw := runner.NewLocal().Trace(at.dir, nil)
	defer tw.Stop()
	tw.Open()
	from := make([]uint64, len(wait))
	for i, g := range wait {
		from[i] = g.throttled(t)
	}
	// Waited for on the kernel's counters, not on the clock: the deadline
	// only ends a load that is never throttled.
	require.Eventually(t, func() bool {
		for i, g := range wait {
			if g.throttled(t) < from[i]+shapeThrottles {
				return false
			}
		}
		return true
	}, time.Minute, 5*time.Millisecond, "the groups were not throttled in %d periods", shapeThrottles)
	tw.Close()
	te, warnings := tw.Summary()
	require.NotNil(t, te, "warnings %q", warnings)
	t.Logf("hold ends: %s", te.HoldEnds)
	for _, g := range te.Groups {
		t.Logf("%-11s %-40s %5d events, traced %8.1f ms, counter %s", g.Relation, g.Path, g.Count, g.TracedMs, msOrNull(g.CounterMs))
	}
	for _, w := range warnings {
		t.Logf("warning: %s", w.Text)
	}
	return te, warnings
}

// row is g's row of the summary.
func row(t *testing.T, te *report.ThrottleEvents, g shapeGroup) report.ThrottleGroup {
	t.Helper()
	for _, r := range te.Groups {
		if r.Path == g.path() {
			return r
		}
	}
	require.Failf(t, "no row", "no row for %s in %+v", g.path(), te.Groups)
	return report.ThrottleGroup{}
}

// agrees: g's row has the relation, and its traced time is its own
// counter's within shapeBand.
func agrees(t *testing.T, te *report.ThrottleEvents, g shapeGroup, relation string) {
	t.Helper()
	agreesWithin(t, te, g, relation, shapeBand)
}

// agreesWithin is agrees within band.
func agreesWithin(t *testing.T, te *report.ThrottleEvents, g shapeGroup, relation string, band float64) {
	t.Helper()
	r := row(t, te, g)
	assert.Equal(t, relation, r.Relation, g.path())
	id, err := cgroup.DirID(g.dir)
	require.NoError(t, err)
	assert.Equal(t, id, r.CgroupID, "%s: the id is its directory's inode", g.path())
	require.NotNil(t, r.CounterMs, "%s: its counter is read", g.path())
	require.Positive(t, *r.CounterMs, "%s was throttled", g.path())
	assert.InDelta(t, 1, r.TracedMs / *r.CounterMs, band, "%s: traced %.1f ms against its counter's %.1f ms",
		g.path(), r.TracedMs, *r.CounterMs)
}

func msOrNull(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.1f ms", *v)
}
