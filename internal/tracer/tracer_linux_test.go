//go:build linux

package tracer

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/throttle"
)

// The decoder's layout is the C struct's, as bpf2go read it from the BTF.
func TestRecordSizeMatchesObject(t *testing.T) {
	assert.Equal(t, recordSize, binary.Size(throttleRecord{}))
}

func TestExplainWording(t *testing.T) {
	err := explain(fmt.Errorf("load program: %w", unix.EPERM))
	assert.EqualError(t, err, "tracing throttle events needs root or CAP_BPF and CAP_PERFMON: "+
		"loading the BPF program was refused (load program: operation not permitted)")
	assert.ErrorIs(t, err, unix.EPERM)

	err = explain(fmt.Errorf("load: %w", ebpf.ErrNotSupported))
	assert.Contains(t, err.Error(), "this kernel does not support")
	assert.Contains(t, explain(errors.New("boom")).Error(), "loading the BPF program failed: boom")
}

// Without privileges Probe must say what is missing. As root the test runs
// itself again as nobody (uid 65534) to see it.
func TestProbeUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		_, err := Probe()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "needs root or CAP_BPF and CAP_PERFMON")
		return
	}
	if os.Getenv("TB_TRACER_AS_NOBODY") == "1" {
		t.Fatal("still root after dropping to nobody")
	}
	// The test binary's directory is root's alone: nobody runs a copy.
	dir, err := os.MkdirTemp("", "tracer-nobody")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	bin, err := os.ReadFile(os.Args[0])
	require.NoError(t, err)
	exe := filepath.Join(dir, "tracer.test")
	require.NoError(t, os.WriteFile(exe, bin, 0o755))
	cmd := exec.Command(exe, "-test.run=^TestProbeUnprivileged$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "TB_TRACER_AS_NOBODY=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if errors.Is(err, os.ErrPermission) {
		skipOrFail(t, fmt.Sprintf("nobody cannot run the test binary %s: %v", os.Args[0], err))
	}
	require.NoError(t, err, "as nobody:\n%s", out)
	assert.Contains(t, string(out), "--- PASS: TestProbeUnprivileged")
}

// Probe says how intervals end here, by the kernel's throttled clock
// where it has one.
func TestProbe(t *testing.T) {
	needRoot(t)
	ends, err := Probe()
	require.NoError(t, err)
	if ExactEnds() {
		assert.Contains(t, ends, "ends at the unthrottle")
	} else {
		assert.Contains(t, ends, "ends when its throttled group next runs")
	}
	// Where tasks are throttled one by one (read here from cfs_rq's
	// throttled, a bit since the same 6.18 change), a hold starts when the
	// thread meets the throttle, and Probe says so.
	if taskThrottling(t) {
		assert.Contains(t, ends, "held from when it meets the throttle")
	} else {
		assert.NotContains(t, ends, "meets the throttle")
	}
}

// A kernel whose sched_switch passes no prev_state (before 5.18) is
// refused, saying so, before any load: raw_tp would load and then fail to
// attach. The prototypes are the kernel's btf_trace_sched_switch, before
// and after.
func TestSwitchHasPrevState(t *testing.T) {
	task := &btf.Pointer{Target: &btf.Struct{Name: "task_struct"}}
	proto := func(args ...btf.Type) *btf.Spec {
		params := []btf.FuncParam{{Name: "ctx", Type: &btf.Pointer{Target: &btf.Void{}}}}
		for _, a := range args {
			params = append(params, btf.FuncParam{Type: a})
		}
		b, err := btf.NewBuilder([]btf.Type{&btf.Typedef{Name: "btf_trace_sched_switch",
			Type: &btf.Pointer{Target: &btf.FuncProto{Return: &btf.Void{}, Params: params}}}}, nil)
		require.NoError(t, err)
		raw, err := b.Marshal(nil, nil)
		require.NoError(t, err)
		spec, err := btf.LoadSpecFromReader(bytes.NewReader(raw))
		require.NoError(t, err)
		return spec
	}
	boolT := &btf.Int{Name: "bool", Size: 1, Encoding: btf.Bool}
	uintT := &btf.Int{Name: "unsigned int", Size: 4}
	assert.NoError(t, switchHasPrevState(proto(boolT, task, task, uintT)))
	err := switchHasPrevState(proto(boolT, task, task))
	assert.ErrorContains(t, err, "passes prev_state (5.18 or later): this one passes 3 arguments")
	if os.Geteuid() == 0 {
		kernel, err := btf.LoadKernelSpec()
		require.NoError(t, err)
		assert.NoError(t, switchHasPrevState(kernel), "this kernel's own")
	}
}

// TestTraceThrottled traces a busy shell loop in a cgroup held to 10 ms per
// 100 ms, on this machine's real kernel and cgroups (v1 or v2): events
// come, only for that thread, nothing of ours stays in the kernel, and
// their total is the counter's to an order of magnitude (sameOrder; how
// closely they agree is BenchmarkTraceAgreement's figure).
// "raw_tp" forces the fallback attach point; "nested" puts the loop in a child cgroup with no limit of its own, as a
// pod's container: traced through the parent, throttled by the parent.
func TestTraceThrottled(t *testing.T) {
	for _, c := range spinnerCases {
		t.Run(c.name, func(t *testing.T) {
			s := traceSpinner(t, c.nested, c.attaches)
			assert.Equal(t, c.attaches[0], s.attach)
			assert.Equal(t, s.lost, s.lost2, "a second Stop reports the first's lost count")
			assert.NoError(t, s.err2)

			// Nothing of ours is left in the kernel. The kernel frees a
			// detached link and its program from a work queue, so give it
			// a moment.
			assert.Eventually(t, func() bool {
				p, err := ebpf.NewProgramFromID(s.progID)
				if err == nil {
					p.Close()
				}
				l, lerr := link.NewFromID(s.linkID)
				if lerr == nil {
					l.Close()
				}
				return errors.Is(err, os.ErrNotExist) && errors.Is(lerr, os.ErrNotExist)
			}, 2*time.Second, 10*time.Millisecond, "program %d or link %d still in the kernel after Stop", s.progID, s.linkID)

			require.NotEmpty(t, s.events, "no throttle events for a loop at 10%% quota (counter says %v throttled)", s.fig.counter)
			ncpu := possibleCPUs(t)
			for _, e := range s.events {
				assert.Greater(t, e.End, e.Start, "%+v", e)
				assert.True(t, e.CPU >= 0 && e.CPU < ncpu, "CPU %d of %d: %+v", e.CPU, ncpu, e)
				assert.Equal(t, int32(s.pid), e.TID, "an event of another thread: %+v", e)
			}
			assert.Zero(t, s.lost)
			sameOrder(t, s.fig)
		})
	}
}

// spinnerCases are TestTraceThrottled's, and BenchmarkTraceAgreement's.
var spinnerCases = []struct {
	name     string
	nested   bool
	attaches []string
}{
	{"direct", false, attachOrder},
	{"nested", true, attachOrder},
	{"raw_tp", false, []string{AttachRaw}},
}

// spinnerTrace is what traceSpinner saw.
type spinnerTrace struct {
	attach      string
	pid         int
	progID      ebpf.ProgramID
	linkID      link.ID
	events      []throttle.Event
	lost, lost2 uint64
	err2        error // the second Stop's
	fig         traced
}

// traceSpinner traces a busy loop in a cgroup held to 10 ms per 100 ms
// (nested: in an unlimited child of it) for 1.5 s, stops the tracer twice
// and says what it saw.
func traceSpinner(t testing.TB, nested bool, attaches []string) spinnerTrace {
	cg := newThrottledCgroup(t)
	where := cg.dir
	if nested {
		where = cg.child(t, "inner")
	}
	s := spinnerTrace{pid: startSpinner(t, where)}
	var rec recorder
	tr, err := start(cg.dir, rec.add, attaches)
	require.NoError(t, err)
	s.attach = tr.Attach()
	progInfo, err := tr.prog.Info()
	require.NoError(t, err)
	s.progID, _ = progInfo.ID()
	linkInfo, err := tr.links[0].Info()
	require.NoError(t, err)
	s.linkID = linkInfo.ID

	t0, t1, delta := cg.counterOver(t, 1500*time.Millisecond)
	s.lost, err = tr.Stop()
	require.NoError(t, err)
	s.lost2, s.err2 = tr.Stop()
	s.events = rec.all()
	s.fig = traced{total: unionPerQueue(endingIn(s.events, t0, t1)), counter: delta}
	t.Logf("%s: %d events, %v; lost %d", s.attach, len(s.events), s.fig, s.lost)
	return s
}

// unionPerQueue sums, run queue by run queue (CPU and throttled group),
// the length of the union of the intervals: what the counters add up.
func unionPerQueue(events []throttle.Event) time.Duration {
	type queue struct {
		cpu   int
		group uint64
	}
	byQueue := map[queue][]throttle.Event{}
	for _, e := range events {
		q := queue{e.CPU, e.Group}
		byQueue[q] = append(byQueue[q], e)
	}
	var total int64
	for _, es := range byQueue {
		slices.SortFunc(es, func(a, b throttle.Event) int { return int(a.Start - b.Start) })
		end := int64(-1 << 63)
		for _, e := range es {
			switch {
			case e.Start >= end:
				total += e.End - e.Start
				end = e.End
			case e.End > end:
				total += e.End - end
				end = e.End
			}
		}
	}
	return time.Duration(total)
}

func TestUnionPerQueue(t *testing.T) {
	ev := []throttle.Event{
		{CPU: 0, Start: 0, End: 10}, {CPU: 0, Start: 5, End: 15}, {CPU: 0, Start: 20, End: 25},
		{CPU: 1, Start: 0, End: 10}, {CPU: 1, Start: 2, End: 3},
		{CPU: 1, Start: 0, End: 10, Group: 9}, // a sibling's queue: its own stretch
	}
	assert.Equal(t, time.Duration(15+5+10+10), unionPerQueue(ev))
}

// TestTraceSiblingGroups: a traced parent with no limit of its own holds
// three groups, each limited to 10 ms per 100 ms, each with two spinners:
// on each CPU the three are throttled at once, each by its own quota, and
// each group's run ends none of its siblings' holds. The events name all
// three groups, and their union per run queue is the children's summed
// counters to an order of magnitude. With the end marks kept per CPU
// (before issue 25), one group's switch-in ended the others' holds, and
// latency's per-request instances traced -87% to -94%: sameOrder fails
// that. How closely they agree is BenchmarkTraceAgreement's figure.
func TestTraceSiblingGroups(t *testing.T) {
	groups, fig := traceSiblings(t)
	assert.Equal(t, 3, groups, "each child's queues are its own")
	sameOrder(t, fig)
}

// traceSiblings traces TestTraceSiblingGroups' load for 1.5 s: how many
// groups the events name, and their union against the summed counters.
func traceSiblings(t testing.TB) (int, traced) {
	parent := newCgroup(t, false)
	parent.weigh(t)
	var kids []throttledCgroup
	for i := range 3 {
		kid := parent.limitedChild(t, fmt.Sprintf("kid%d", i))
		kids = append(kids, kid)
		startSpinner(t, kid.dir)
		startSpinner(t, kid.dir)
	}
	summed := func(t testing.TB) (d time.Duration) {
		for _, k := range kids {
			d += k.throttled(t)
		}
		return d
	}
	var rec recorder
	tr, err := Start(parent.dir, rec.add)
	require.NoError(t, err)
	t0, t1, delta := counterOver(t, 1500*time.Millisecond, summed)
	lost, err := tr.Stop()
	require.NoError(t, err)
	in := endingIn(rec.all(), t0, t1)
	groups := map[uint64]bool{}
	for _, e := range in {
		groups[e.Group] = true
	}
	fig := traced{total: unionPerQueue(in), counter: delta}
	t.Logf("%s: %d events of %d groups, %v; lost %d", tr.Attach(), len(in), len(groups), fig, lost)
	return len(groups), fig
}

// TestTraceBusyMachine: a lone spinner limited to 10 ms per 100 ms while a
// busy loop outside its cgroup holds each CPU (nice 0, as a neighbour's
// work): after each unthrottle the spinner waits for a CPU, a wait that is
// not throttling. The interval ends at the unthrottle, read from the
// queue's throttled clock (ExactEnds), and the trace is the counter's to an
// order of magnitude (sameOrder); how closely they agree is
// BenchmarkTraceAgreement's figure (-0.0% here and in the VM's 6.1; there,
// while a hold ended when its group ran again, +3% to +86%).
func TestTraceBusyMachine(t *testing.T) {
	if !ExactEnds() {
		t.Skip("this kernel keeps no throttled clock per run queue: the trace's ends wait for the group's next run on a busy CPU")
	}
	sameOrder(t, traceBusy(t))
}

// traceBusy traces TestTraceBusyMachine's load for 1.5 s.
func traceBusy(t testing.TB) traced {
	cg := newThrottledCgroup(t)
	startSpinner(t, cg.dir)
	for cpu := range runtime.NumCPU() {
		startPinnedSpinner(t, cpu, "")
	}
	var rec recorder
	tr, err := Start(cg.dir, rec.add)
	require.NoError(t, err)
	t0, t1, delta := cg.counterOver(t, 1500*time.Millisecond)
	lost, err := tr.Stop()
	require.NoError(t, err)
	events := rec.all()
	fig := traced{total: unionPerQueue(endingIn(events, t0, t1)), counter: delta}
	t.Logf("%s: %d events, %v; lost %d", tr.Attach(), len(events), fig, lost)
	return fig
}

// startPinnedSpinner starts a busy shell loop on cpu alone, in the cgroup
// at dir ("": this process's), and kills it (by PID) at the end of the
// test.
func startPinnedSpinner(t testing.TB, cpu int, dir string) {
	startPinned(t, exec.Command("sh", "-c", "while :; do :; done"), cpu, dir)
}

// startPinned starts cmd on cpu alone (it inherits the mask of the thread
// that starts it), moves it into the cgroup at dir unless dir is "" and
// pins its threads again there (pinAll), and kills it (by PID) at the end
// of the test.
func startPinned(t testing.TB, cmd *exec.Cmd, cpu int, dir string) {
	runtime.LockOSThread()
	var was, set unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &was))
	set.Set(cpu)
	require.NoError(t, unix.SchedSetaffinity(0, &set))
	err := cmd.Start()
	require.NoError(t, unix.SchedSetaffinity(0, &was))
	runtime.UnlockOSThread()
	require.NoError(t, err)
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	if dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(fmt.Sprint(cmd.Process.Pid)), 0))
		pinAll(t, cmd.Process.Pid, cpu)
	}
}

// pinAll puts every thread of process pid on cpu alone, after a move into
// a cgroup: where the cpuset controller is on for it (v2 with cpuset in
// the parent's subtree_control, as in the VM), the move resets the
// threads' affinity to the cpuset's CPUs, and the VM's guest then had the
// "pinned" load on both CPUs (counted on both, 7.2 s throttled in 6 s,
// traced on CPU 0 for a fifth of it).
func pinAll(t testing.TB, pid, cpu int) {
	var set unix.CPUSet
	set.Set(cpu)
	// Until a pass finds no thread it has not pinned: a thread started
	// meanwhile by one not yet pinned escaped the pass before.
	pinned := map[int]bool{}
	for {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		require.NoError(t, err)
		fresh := 0
		for _, task := range tasks {
			tid, err := strconv.Atoi(task.Name())
			require.NoError(t, err)
			if pinned[tid] {
				continue
			}
			require.NoError(t, unix.SchedSetaffinity(tid, &set), "pin thread %d of %d", tid, pid)
			pinned[tid] = true
			fresh++
		}
		if fresh == 0 {
			return
		}
	}
}

func possibleCPUs(t *testing.T) int {
	b, err := os.ReadFile("/sys/devices/system/cpu/possible")
	require.NoError(t, err)
	s := strings.TrimSpace(string(b)) // "0-1" or "0"
	var lo, hi int
	if _, err := fmt.Sscanf(s, "%d-%d", &lo, &hi); err != nil {
		hi = 0
	}
	return hi + 1
}

// startSpinner starts a busy shell loop in cgroup dir and kills it (by
// PID) at the end of the test.
func startSpinner(t testing.TB, dir string) int {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(fmt.Sprint(cmd.Process.Pid)), 0))
	return cmd.Process.Pid
}

func TestStartNeedsACgroupDirectory(t *testing.T) {
	_, err := Start(filepath.Join(t.TempDir(), "missing"), func(throttle.Event) {})
	assert.ErrorIs(t, err, os.ErrNotExist)
	f := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	_, err = Start(f, func(throttle.Event) {})
	assert.ErrorContains(t, err, "is not a cgroup directory")
}

// TestStartStopRepeatedly: tracers come and go while a throttled thread
// switches (as in a sweep, or the soak): each Stop leaves nothing behind,
// and the kernel takes it (a check for kernels such as the VM's 6.1). Ten
// times, each of the five pauses between Start and Stop twice: under TCG a
// start and stop takes about 2.6 s (the verifier), and twenty took 60 s of
// each tracer lane of make test; make soak starts and stops far more.
func TestStartStopRepeatedly(t *testing.T) {
	cg := newThrottledCgroup(t)
	startSpinner(t, cg.dir)
	for i := range 10 {
		tr, err := Start(cg.dir, func(throttle.Event) {})
		require.NoError(t, err, "start %d", i)
		info, err := tr.prog.Info()
		require.NoError(t, err)
		id, _ := info.ID()
		time.Sleep(time.Duration(i%5) * 10 * time.Millisecond)
		_, err = tr.Stop()
		require.NoError(t, err, "stop %d", i)
		assert.Eventually(t, func() bool {
			p, err := ebpf.NewProgramFromID(id)
			if err == nil {
				p.Close()
			}
			return errors.Is(err, os.ErrNotExist)
		}, 2*time.Second, 10*time.Millisecond, "program %d left after stop %d", id, i)
	}
}

// TestTraceThreadsHeldTogether: a spinner and three threads that work
// 1 ms and sleep napSleep, all on one CPU, in a cgroup held to 10 ms per
// 100 ms, are held off together (the spinner switched out at each
// throttle, the others woken onto the throttled run queue: most of their
// wake-ups fall in the 90 ms it is throttled), and at each unthrottle take
// turns on the CPU. A thread still waiting its turn is no longer
// throttled: the intervals held together end together, when the group
// first runs there again, not one after another as each gets its turn
// (which put the traced total 7-9% above the counter here). The spinner,
// held through every stretch, makes the overlap the load's design, not
// its luck: four nappers alone, working 1 ms and sleeping 1 ms, were held
// together 0 to 7 times in 2 s under TCG in the VM (their pinning undone
// by the cpuset, pinAll), now 57 times in 6 s there (63 here).
func TestTraceThreadsHeldTogether(t *testing.T) {
	events, fig := traceHeldTogether(t)
	// Ending together, their union is the counter's to an order of
	// magnitude on any kernel. How close it comes depends on the kernel
	// (BenchmarkTraceAgreement's held_together): one that throttles
	// tasks (6.18+) counts a run queue while its threads are held (0 to
	// -5% here, +0.0% with the spinner); an older one also while the
	// thread that used up the quota sleeps, held by nothing (the spinner,
	// held through every stretch, leaves little of that): in the VM's
	// 6.1, +0.4% with the spinner pinned, and from +1.6% to -13.6% with
	// four nappers alone whose pinning the cpuset had undone (pinAll).
	sameOrder(t, fig)

	// Stretches: the intervals on CPU 0 that overlap, chained. In each,
	// the threads held at its last start were held together (6.18 adds a
	// short interval before them: a thread switched in still throttled, in
	// the kernel, then out again): how far apart did they end?
	var es []throttle.Event
	for _, e := range events {
		if e.CPU == 0 {
			es = append(es, e)
		}
	}
	slices.SortFunc(es, func(a, b throttle.Event) int { return cmp.Compare(a.Start, b.Start) })
	var spreads []time.Duration
	for i := 0; i < len(es); {
		j, end := i+1, es[i].End
		for ; j < len(es) && es[j].Start < end; j++ {
			end = max(end, es[j].End)
		}
		lastStart := es[j-1].Start
		first, last, together := end, int64(0), 0
		for _, e := range es[i:j] {
			if e.End > lastStart {
				first, last, together = min(first, e.End), max(last, e.End), together+1
			}
		}
		if together > 1 {
			spreads = append(spreads, time.Duration(last-first))
		}
		i = j
	}
	// The load makes overlap all but certain (napSleep): none means the
	// tracer stopped seeing threads held together, not a quiet load.
	require.NotEmpty(t, spreads, "no two threads were held together in %d events on CPU 0 (of %d)", len(es), len(events))
	slices.Sort(spreads)
	median := spreads[len(spreads)/2]
	t.Logf("%d stretches of threads held together in %d events on CPU 0 (of %d), their ends %v apart at the median (max %v)", len(spreads), len(es), len(events), median, spreads[len(spreads)-1])
	assert.Less(t, median, time.Millisecond, "threads held together end together")
}

// traceHeldTogether traces TestTraceThreadsHeldTogether's load for 6 s:
// every event, and their union against the counter.
func traceHeldTogether(t testing.TB) ([]throttle.Event, traced) {
	cg := newThrottledCgroup(t)
	startPinnedSpinner(t, 0, cg.dir)
	for range 3 {
		startNapper(t, cg.dir, 0)
	}
	var rec recorder
	started := time.Now()
	tr, err := Start(cg.dir, rec.add)
	require.NoError(t, err)
	took := time.Since(started)
	t0, t1, delta := cg.counterOver(t, 6*time.Second)
	lost, err := tr.Stop()
	require.NoError(t, err)
	events := rec.all()
	fig := traced{total: unionPerQueue(endingIn(events, t0, t1)), counter: delta}
	t.Logf("%s (Start took %v): %d events, %v; lost %d", tr.Attach(), took.Round(time.Millisecond), len(events), fig, lost)
	return events, fig
}

// taskThrottling is whether this kernel throttles tasks, not whole run
// queues (6.18+): its cfs_rq's throttled is a 1-bit field, an int before
// (throttle.bpf.c reads it either way).
func taskThrottling(t testing.TB) bool {
	spec, err := btf.LoadKernelSpec()
	require.NoError(t, err)
	var rq *btf.Struct
	require.NoError(t, spec.TypeByName("cfs_rq", &rq))
	for _, m := range rq.Members {
		if m.Name == "throttled" {
			return m.BitfieldSize == 1
		}
	}
	t.Fatalf("cfs_rq has no member throttled in this kernel's BTF")
	return false
}

// counterOver reads the cgroup's throttled time over d, inside a traced
// window: from t0 to t1 on CLOCK_MONOTONIC (the events' clock), with a
// throttled stretch (under a period) of room at each side. The kernel adds
// a stretch to the counter when the stretch ends, and an interval is
// traced only when it began after Start and sent only when its thread is
// switched in: compare the counter with the events that end within
// [t0, t1] (endingIn). Read around Start and Stop instead, the counter also
// takes in the throttling while they run: Start alone takes 0.25 s in the
// VM, under TCG, where TestTraceThreadsHeldTogether's counter then had
// 0.8 s more than its trace.
func (cg throttledCgroup) counterOver(t testing.TB, d time.Duration) (t0, t1 int64, delta time.Duration) {
	return counterOver(t, d, cg.throttled)
}

// counterOver is counterOver of the counter read by throttled (several
// groups' summed, for siblings).
func counterOver(t testing.TB, d time.Duration, throttled func(testing.TB) time.Duration) (t0, t1 int64, delta time.Duration) {
	const settle = 150 * time.Millisecond
	time.Sleep(settle)
	t0, before := monotonic(t), throttled(t)
	time.Sleep(d)
	t1, delta = monotonic(t), throttled(t)-before
	time.Sleep(settle)
	return t0, t1, delta
}

// recorder keeps what a tracer hands over, from the tracer's own
// goroutine.
type recorder struct {
	mu     sync.Mutex
	events []throttle.Event
}

func (r *recorder) add(e throttle.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// all is a copy of the events so far.
func (r *recorder) all() []throttle.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]throttle.Event(nil), r.events...)
}

// endingIn is the events that end within (t0, t1].
func endingIn(events []throttle.Event, t0, t1 int64) []throttle.Event {
	var in []throttle.Event
	for _, e := range events {
		if e.End > t0 && e.End <= t1 {
			in = append(in, e)
		}
	}
	return in
}

// monotonic is CLOCK_MONOTONIC now, the clock of the events' stamps.
func monotonic(t testing.TB) int64 {
	var ts unix.Timespec
	require.NoError(t, unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts))
	return ts.Nano()
}

// napEnv makes the test binary a napper (see nap) on the CPU it names.
const napEnv = "TB_TRACER_NAP"

// startNapper starts the test binary as a napper on cpu, in the cgroup at
// dir; it is killed at cleanup. All its threads are on cpu (it inherits
// the mask of the thread that starts it): the Go runtime's threads on
// another CPU would put the cgroup's run queue there in the counter too,
// and 6.1 leaves a run queue throttled, and counts it, after the thread
// that used up the quota there went to sleep, with no thread held.
func startNapper(t testing.TB, dir string, cpu int) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", napEnv, cpu))
	startPinned(t, cmd, cpu, dir)
}

// napSleep is how long a napper sleeps after each 1 ms of work: long
// enough that most of its wake-ups fall while a spinner beside it keeps
// the group throttled (90 ms in 100), and its wake-ups come several times
// in each throttled stretch.
const napSleep = 10 * time.Millisecond

// nap works 1 ms (a busy loop on the clock) and sleeps napSleep, for ever,
// on one thread, with the process on cpu alone (startNapper): a worker
// that the kernel wakes, often while its group is throttled.
func nap(cpu int) error {
	runtime.LockOSThread()
	// startNapper pins it after the move into its cgroup, which may have
	// reset the mask it started with (pinAll): wait for that.
	var set unix.CPUSet
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			return err
		}
		if set.Count() == 1 && set.IsSet(cpu) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("a napper must run on CPU %d alone, not %v", cpu, set)
		}
	}
	ts := unix.NsecToTimespec(int64(napSleep))
	for {
		for end := time.Now().Add(time.Millisecond); time.Now().Before(end); {
		}
		_ = unix.Nanosleep(&ts, nil)
	}
}

// The throttle hooks (issue 49) attach where the kernel allows them, and
// then a hold ends at the unthrottle: the guests' Debian kernels take
// fentry (their guest.sh says so in TB_TRACER_HOOKS); a kernel with
// kprobes takes one kind or the other; this host's 6.18 has neither, and
// its holds end on the queues' own clocks.
func TestHooks(t *testing.T) {
	needRoot(t)
	tr, err := New(func(throttle.Event) {}, nil)
	require.NoError(t, err)
	defer tr.Stop()
	t.Logf("hooks %q, hold ends %s; why none: %v; throttle_cfs_rq not hooked: %v", tr.Hooks(), tr.HoldEnds(), tr.hooksWhy, tr.hooks.partial)
	_, noKprobes := os.Stat("/sys/bus/event_source/devices/kprobe")
	switch want := os.Getenv("TB_TRACER_HOOKS"); {
	case want != "":
		assert.Equal(t, want, tr.Hooks())
		assert.NoError(t, tr.hooks.partial, "throttle_cfs_rq hooked too")
	case noKprobes == nil:
		assert.NotEqual(t, HooksNone, tr.Hooks(), "this kernel has kprobes")
	}
	if tr.Hooks() != HooksNone {
		assert.Equal(t, throttle.EndsUnthrottle, tr.HoldEnds())
	} else {
		assert.NotEqual(t, throttle.EndsUnthrottle, tr.HoldEnds())
	}
}
