//go:build linux

package tracer

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/host"
	"github.com/throttlebench/throttlebench/internal/throttle"
)

// workEnv makes the test binary a worker (see work): "THREADS,SPIN,SLEEP"
// with the durations in ms.
const workEnv = "TB_TRACER_WORK"

// workFor is how long a worker's threads run once told to: the window
// the breakdown is checked over.
const workFor = time.Second

// work runs threads threads, each locked to its own OS thread, which on
// "go" on stdin spin spin and sleep sleep in turn for workFor, then block
// again; it prints "ready TID..." once they are all blocked, and "done"
// once they are again, so that their scheduler counters are still when
// they are read on either side (a thread's run delay is added when it
// next runs), and exits on "exit".
func work(threads int, spin, sleep time.Duration) error {
	tids := make(chan int, threads)
	start, finished := make(chan struct{}), make(chan struct{}, threads)
	for range threads {
		go func() {
			runtime.LockOSThread()
			tids <- unix.Gettid()
			<-start
			ts := unix.NsecToTimespec(int64(sleep))
			for end := time.Now().Add(workFor); time.Now().Before(end); {
				for s := time.Now().Add(spin); time.Now().Before(s); {
				}
				if sleep > 0 {
					_ = unix.Nanosleep(&ts, nil)
				}
			}
			finished <- struct{}{}
			select {} // blocked, the thread still there
		}()
	}
	var ids []string
	for range threads {
		ids = append(ids, strconv.Itoa(<-tids))
	}
	in := bufio.NewScanner(os.Stdin)
	fmt.Println("ready " + strings.Join(ids, " "))
	if !in.Scan() || in.Text() != "go" {
		return fmt.Errorf("want go, got %q", in.Text())
	}
	close(start)
	for range threads {
		<-finished
	}
	fmt.Println("done")
	in.Scan()
	return nil
}

// agreement is a breakdown's sums over a window against the kernel's own
// clocks: each worker thread's time on a CPU against its schedstat run
// time, its time runnable (held and waiting) against its run delay, which
// holds both (the kernel counts a thread held by the quota as queued), and
// the time its process's threads, as one, were held against the cgroup's
// throttled time.
type agreement struct {
	on, runnable, held    time.Duration
	ran, delayed, counted time.Duration
	// outs counts the workers' switches out over the window: the
	// kernel's run time ends at each before the scheduler picks the next
	// thread (an idle CPU's pick balances load first), the tracepoint
	// after, so that on exceeds ran by about outs picks.
	outs int
}

// breakdownAgainstClocks runs a worker of threads threads (spin, sleep)
// in the cgroup cg for workFor, traced, and sets the breakdown of each of
// its threads over the window against the kernel's clocks. pin ≥ 0 puts
// the whole process on that CPU: the Go runtime's own threads elsewhere
// would have the group's queue there throttled too, in the counter and
// in no worker's hold.
func breakdownAgainstClocks(t testing.TB, cg throttledCgroup, threads int, spin, sleep time.Duration, pin int) agreement {
	var mu sync.Mutex
	var states []throttle.State
	var events []throttle.Event
	id, err := CgroupID(cg.dir)
	require.NoError(t, err)
	tr, err := New(func(e throttle.Event) { mu.Lock(); events = append(events, e); mu.Unlock() },
		func(s throttle.State) { mu.Lock(); states = append(states, s); mu.Unlock() })
	require.NoError(t, err)
	defer tr.Stop()
	require.NoError(t, tr.Track(id))

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%d,%d", workEnv, threads, spin.Milliseconds(), sleep.Milliseconds()))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	if pin >= 0 {
		startPinned(t, cmd, pin, cg.dir)
	} else {
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		require.NoError(t, os.WriteFile(cg.dir+"/cgroup.procs", []byte(strconv.Itoa(cmd.Process.Pid)), 0))
	}
	out := bufio.NewScanner(stdout)
	require.True(t, out.Scan())
	f := strings.Fields(out.Text())
	require.Equal(t, "ready", f[0], out.Text())
	var tids []int
	for _, s := range f[1:] {
		tid, err := strconv.Atoi(s)
		require.NoError(t, err)
		tids = append(tids, tid)
	}
	stats := func() []host.SchedStat {
		var ss []host.SchedStat
		for _, tid := range tids {
			s, err := host.ReadSchedStat("/", tid)
			require.NoError(t, err)
			ss = append(ss, s)
		}
		return ss
	}
	before, throttled0, t0 := stats(), cg.throttled(t), monotonic(t)
	_, err = fmt.Fprintln(stdin, "go")
	require.NoError(t, err)
	require.True(t, out.Scan())
	require.Equal(t, "done", out.Text())
	t1, after, throttled1 := monotonic(t), stats(), cg.throttled(t)
	require.NoError(t, tr.Sync())
	_, err = fmt.Fprintln(stdin, "exit")
	require.NoError(t, err)

	mu.Lock()
	tl := throttle.NewTimelines(states, events, Model() != throttle.ModelTask)
	var a agreement
	workers := map[int32]bool{}
	for _, tid := range tids {
		workers[int32(tid)] = true
	}
	for _, s := range states {
		if workers[s.TID] && !s.Woken && s.To != throttle.OnCPU && s.Time >= t0 && s.Time < t1 {
			a.outs++
		}
	}
	mu.Unlock()
	for i, tid := range tids {
		p, ok := tl.Split(int32(tid), t0, t1)
		require.True(t, ok, "thread %d has no timeline", tid)
		a.on += time.Duration(p[throttle.OnCPU])
		a.runnable += time.Duration(p[throttle.Held] + p[throttle.Waiting])
		a.ran += after[i].OnCPU - before[i].OnCPU
		a.delayed += after[i].RunDelay - before[i].RunDelay
	}
	// Held against the counter: the process's threads as one, not the
	// workers alone. The counter counts its queue's throttles whichever
	// thread they held: the main thread's too, which prints "done" and
	// was held when the quota ran out as the worker finished (7-9% of the
	// counter in 3 of 16 runs on the guests, while the worker slept).
	pool, ok := tl.SplitPool(id, t0, t1)
	require.True(t, ok, "the cgroup's threads have no timeline")
	a.held = time.Duration(pool[throttle.Held])
	a.counted = throttled1 - throttled0
	if pin >= 0 && a.counted > 0 && (a.held < a.counted*95/100 || a.held > a.counted*105/100) {
		// What the trace held where it parts from the counter: its holds,
		// and the workers' long stretches (ms from t0).
		mu.Lock()
		for _, e := range events {
			if e.End > t0 && e.Start < t1 {
				t.Logf("hold: tid %d cpu %d %.2f-%.2f since %.2f empty %v group %d", e.TID, e.CPU,
					float64(e.Start-t0)/1e6, float64(e.End-t0)/1e6, float64(e.Since-t0)/1e6, e.Empty, e.Group)
			}
		}
		for i, st := range states {
			if st.Time < t0 || st.Time > t1 {
				continue
			}
			for j := i + 1; j < len(states); j++ {
				if states[j].TID == st.TID {
					if gap := states[j].Time - st.Time; gap > 20e6 {
						t.Logf("state: tid %d at %.2f to %d woken %v cpu %d, next %.2f", st.TID, float64(st.Time-t0)/1e6, st.To, st.Woken, st.CPU, float64(states[j].Time-t0)/1e6)
					}
					break
				}
			}
		}
		mu.Unlock()
		t.Logf("lost %d, states lost %d, losses %+v", tr.LostSoFar(), tr.StatesLostSoFar(), tr.Losses())
	}
	return a
}

func percentOff(got, want time.Duration) float64 {
	return 100 * (float64(got)/float64(want) - 1)
}

// BenchmarkBreakdownAgreement: how closely the breakdown's parts (issue
// 51) agree with the kernel's own clocks over the same threads and
// window (%on_vs_schedstat: time on a CPU against schedstat's run time;
// %runnable_vs_delay: held and waiting against the run delay;
// %held_vs_counter: held against the cgroup's throttled time, for one
// thread alone, its process on one CPU, whose hold is its queue's whole
// throttled stretch), 0 is
// exact. one_spinner: a thread spinning under 10 ms per 100 ms, held 90%
// of the time; three_sleepers: three threads working 2 ms and sleeping 1
// ms under the same quota; three_unlimited: the same with no quota, on
// however many CPUs the machine has (2 here: they wait for each other).
func BenchmarkBreakdownAgreement(b *testing.B) {
	needRoot(b)
	for _, c := range []struct {
		name        string
		limited     bool
		threads     int
		spin, sleep time.Duration
		pin         int
	}{
		{"one_spinner", true, 1, 10 * time.Millisecond, 0, 0},
		{"three_sleepers", true, 3, 2 * time.Millisecond, time.Millisecond, -1},
		{"three_unlimited", false, 3, 2 * time.Millisecond, time.Millisecond, -1},
	} {
		b.Run(c.name, func(b *testing.B) {
			var on, runnable, held, perOut float64
			for range b.N {
				a := breakdownAgainstClocks(b, newCgroup(b, c.limited), c.threads, c.spin, c.sleep, c.pin)
				b.Logf("on %v / %v, runnable %v / %v, held %v / %v, %d switches out", a.on, a.ran, a.runnable, a.delayed, a.held, a.counted, a.outs)
				on += percentOff(a.on, a.ran)
				perOut += float64(a.on-a.ran) / float64(time.Microsecond) / float64(max(a.outs, 1))
				runnable += percentOff(a.runnable, a.delayed)
				if c.pin >= 0 {
					held += percentOff(a.held, a.counted)
				}
			}
			n := float64(b.N)
			b.ReportMetric(on/n, "%on_vs_schedstat")
			b.ReportMetric(runnable/n, "%runnable_vs_delay")
			b.ReportMetric(perOut/n, "on_excess_us/switch_out")
			if c.pin >= 0 {
				b.ReportMetric(held/n, "%held_vs_counter")
			}
			b.ReportMetric(0, "ns/op") // a run's time says nothing here
		})
	}
}

// The breakdown over a throttled thread's window is the kernel's own
// account of it in kind: its time on a CPU, runnable and held each that
// of schedstat's run time, run delay and the cgroup's throttled time.
// How closely they agree is BenchmarkBreakdownAgreement's. 30 runs beside
// a busy loop on every CPU (this host's 6.18, 2026-11-30), as ratios to
// the kernel's: on a CPU 0.963–1.034 (mean 1.004, sd 0.010), runnable
// 0.998–1.004 (sd 0.001), held 0.9999–1.0000; the bounds, within half
// either way and within a fifth, are 19 sd and more away (held was the
// worker's then; its process's threads pooled, 10 runs read 0.9998-
// 0.9999). The emulated guests (make bench-vm) read on a CPU up to 7.5%
// over (a switch out costs 20-120 µs there) and held a whole stretch
// short once in 26 runs; they leave this test to the benchmark.
func TestBreakdownAgainstClocks(t *testing.T) {
	a := breakdownAgainstClocks(t, newThrottledCgroup(t), 1, 10*time.Millisecond, 0, 0)
	t.Logf("on %v / %v, runnable %v / %v, held %v / %v", a.on, a.ran, a.runnable, a.delayed, a.held, a.counted)
	assert.Positive(t, a.on)
	assert.Positive(t, a.held)
	assert.InDelta(t, 1, float64(a.on)/float64(a.ran), 0.5, "on a CPU against schedstat")
	assert.InDelta(t, 1, float64(a.runnable)/float64(a.delayed), 0.5, "runnable against the run delay")
	assert.InDelta(t, 1, float64(a.held)/float64(a.counted), 0.2, "held against the cgroup's throttled time")
}
