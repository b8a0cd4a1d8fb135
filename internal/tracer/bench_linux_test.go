//go:build linux

package tracer

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/ringbuf"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/tracer/ringbench"
)

// BenchmarkRingBuffer: records per second the ring-buffer path sustains,
// kernel to interpreter: bench_emit (ringbench.bpf.c, a test-only object,
// run through BPF_PROG_TEST_RUN, never attached) reserves and submits 256
// records per run, alternately holds and backs, as throttle.bpf.c does,
// and a reader decodes each and hands it to throttle.Interpreter, as the
// tracer's does. One op is one record; events/s counts those delivered,
// lost/op those the full buffer refused while the reader fell behind.
func BenchmarkRingBuffer(b *testing.B) {
	needRoot(b)
	spec, err := ringbench.Spec()
	require.NoError(b, err)
	var o struct {
		Emit   *ebpf.Program  `ebpf:"bench_emit"`
		Events *ebpf.Map      `ebpf:"events"`
		Lost   *ebpf.Variable `ebpf:"lost"`
	}
	require.NoError(b, spec.LoadAndAssign(&o, nil))
	defer o.Emit.Close()
	defer o.Events.Close()
	rd, err := ringbuf.NewReader(o.Events)
	require.NoError(b, err)
	defer rd.Close()

	var got, bad atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		var rec ringbuf.Record
		var in throttle.Interpreter
		var sink throttle.Event
		for rd.ReadInto(&rec) == nil {
			if r, err := decode(rec.RawSample); err == nil {
				in.Add(r, func(e throttle.Event) { sink = e })
				got.Add(1)
			} else {
				bad.Add(1) // a record of another layout: stale ringbench
			}
		}
		_ = sink
	}()

	runs := (b.N + 255) / 256
	b.ResetTimer()
	start := time.Now()
	for range runs {
		if _, err := o.Emit.Run(&ebpf.RunOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	var lost uint64
	want := int64(runs * 256)
	for {
		require.NoError(b, o.Lost.Get(&lost))
		if got.Load()+bad.Load()+int64(lost) >= want {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	require.NoError(b, rd.Flush())
	<-done
	require.Zero(b, bad.Load(), "records ringbench wrote that decode refused (struct record's layout)")
	b.ReportMetric(float64(got.Load())/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(lost)/float64(want), "lost/op")
}

// BenchmarkContextSwitch: what the attached program costs the scheduler.
// Two threads bounce a byte over blocking pipes, so every op is a round
// trip of two wake-ups and at least two context switches (switches/op
// counts them); "traced" runs the same with the tracer attached to a cgroup
// these threads are not in, with nothing held (every sched_switch on the
// machine runs the program: a test of a global), "traced_held" the same
// while a spinner of that cgroup is held by its quota 90% of the time
// (then every switch looks the next thread up among the held, and, on a
// kernel without a throttled clock per queue (before 6.6), on a CPU where
// a thread is held, looks the next thread's queues up among those waiting
// for a run), "traced_own" to the cgroup they are in (their switches
// are sleeps, not preemptions: no walk). Compare ns/op: the ratio is the
// overhead; bpf-ns/run is the kernel's own mean per run.
func BenchmarkContextSwitch(b *testing.B) {
	needRoot(b)
	// The kernel's BPF run-time stats, on for the whole benchmark and off
	// at its end: on Debian's 6.1 (the VM), turning them on and off
	// around each of the sub-benchmark's runs, while tracers came and
	// went, hung the kernel (soft lockup). In the VM's tracer guest the
	// probe holder keeps them on throughout (hold), so that even this
	// once patches nothing: the guest hung once in this benchmark.
	stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	require.NoError(b, err)
	defer stats.Close()
	b.Run("untraced", func(b *testing.B) { pingPong(b) })
	b.Run("traced", func(b *testing.B) {
		cg := newThrottledCgroup(b)
		tracedPingPong(b, cg.dir)
	})
	b.Run("traced_held", func(b *testing.B) {
		cg := newThrottledCgroup(b)
		startSpinner(b, cg.dir)
		tracedPingPong(b, cg.dir)
	})
	b.Run("traced_own", func(b *testing.B) {
		needRoot(b)
		own, err := ownCgroupDir()
		require.NoError(b, err)
		tracedPingPong(b, own)
	})
}

// bounceInChild runs bounce(n) in a child process (this test binary, see
// TestMain) and returns the time it took there.
func bounceInChild(n int) (time.Duration, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", bounceEnv, n))
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("bounce in a child: %w", err)
	}
	return time.ParseDuration(strings.TrimSpace(string(out)))
}

const (
	bounceEnv = "TB_TRACER_BOUNCE"
	holdEnv   = "TB_TRACER_HOLD"
)

// TestMain lets the benchmarks run bounce in a child process of their own,
// and with TB_TRACER_WORK a worker (work);
// with TB_TRACER_HOLD=1 the binary holds two idle probes on sched_switch
// until SIGTERM (see hold), with TB_TRACER_HOLD=stats the BPF run-time
// stats on as well; with TB_TRACER_NAP=CPU it is a napper (nap).
func TestMain(m *testing.M) {
	if v := os.Getenv(napEnv); v != "" {
		cpu, err := strconv.Atoi(v)
		if err == nil {
			err = nap(cpu)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if v := os.Getenv(workEnv); v != "" {
		var threads, spin, sleep int
		_, err := fmt.Sscanf(v, "%d,%d,%d", &threads, &spin, &sleep)
		if err == nil {
			err = work(threads, time.Duration(spin)*time.Millisecond, time.Duration(sleep)*time.Millisecond)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if v := os.Getenv(holdEnv); v == "1" || v == "stats" {
		if err := hold(v == "stats"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if v := os.Getenv(bounceEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err == nil {
			var d time.Duration
			d, _, err = bounce(n)
			fmt.Println(d)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// hold attaches two idle probes (the raw program, matching no cgroup) to
// sched_switch and keeps them until SIGTERM or SIGINT. Under qemu's TCG
// (the v2 VM), the kernel's live patching of the tracepoint's call site,
// done when its probes go from 0 to 1 to 2 and back, can hang the guest
// (a CPU loops on the patch's int3 while another waits for it in
// text_poke_bp): with two held on each tracepoint the tracer uses
// (sched_switch, sched_wakeup, sched_wakeup_new), a tracer's attach and
// detach patch nothing.
// With stats, it also keeps the kernel's BPF run-time stats on, whose
// switch is a static key patched into every BPF dispatch site the same
// way: BenchmarkContextSwitch's turning them on and off is then a count
// that patches nothing either.
func hold(stats bool) error {
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	if stats {
		st, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
		if err != nil {
			return err
		}
		closers = append(closers, func() { st.Close() })
	}
	kernel, err := btf.LoadKernelSpec()
	if err != nil {
		return err
	}
	for range 2 {
		objs, err := loadOne(kernel, AttachRaw)
		if err != nil {
			return err
		}
		closers = append(closers, func() { objs.Close() })
		links, err := attachAll(AttachRaw, objs.progs[:])
		if err != nil {
			return err
		}
		for _, l := range links {
			closers = append(closers, func() { l.Close() })
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, unix.SIGTERM, unix.SIGINT)
	fmt.Println("holding two idle sched_switch, sched_wakeup and sched_wakeup_new probes")
	<-sig
	return nil
}

// tracedPingPong runs pingPong with the tracer attached for dir, and reads
// the kernel's own account of the program's runs (BPF run-time stats,
// which BenchmarkContextSwitch turns on): bpf-ns/run is its mean cost per
// sched_switch, on any thread of the machine.
func tracedPingPong(b *testing.B, dir string) {
	tr, err := Start(dir, func(throttle.Event) {})
	require.NoError(b, err)
	defer tr.Stop()
	pingPong(b)
	st, err := tr.prog.Stats()
	require.NoError(b, err)
	if st.RunCount > 0 {
		b.ReportMetric(float64(st.Runtime.Nanoseconds())/float64(st.RunCount), "bpf-ns/run")
	}
}

// ownCgroupDir is this process's cgroup in the cpu controller's hierarchy.
func ownCgroupDir() (string, error) {
	self, err := cgroup.Host{Root: "/"}.Self(0)
	return self.Dir, err
}

// BenchmarkSwitchOverhead: the tracer's cost to a context-switch-heavy
// process other than the tracer's own, as in a run (the tracer in the
// parent, the workload in a child), made robust to a noisy, shared machine:
// each op is one round of 20000 round trips in a child process untraced
// and 20000 traced (attached for the block alone: the load is not timed),
// in alternating order; traced/untraced is the median of the rounds'
// ratios. Run it with -benchtime 10x or more.
func BenchmarkSwitchOverhead(b *testing.B) {
	cg := newThrottledCgroup(b)
	const block = 20000
	var ratios []float64
	untracedBlock := func() time.Duration {
		d, err := bounceInChild(block)
		require.NoError(b, err)
		return d
	}
	tracedBlock := func() time.Duration {
		tr, err := Start(cg.dir, func(throttle.Event) {})
		require.NoError(b, err)
		d, err := bounceInChild(block)
		require.NoError(b, err)
		_, err = tr.Stop()
		require.NoError(b, err)
		return d
	}
	for i := range b.N {
		// Alternate which goes first, so drift favours neither.
		var untraced, traced time.Duration
		if i%2 == 0 {
			untraced, traced = untracedBlock(), tracedBlock()
		} else {
			traced, untraced = tracedBlock(), untracedBlock()
		}
		ratios = append(ratios, float64(traced)/float64(untraced))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "traced/untraced")
}

func pingPong(b *testing.B) {
	b.ResetTimer()
	_, switches, err := bounce(b.N)
	b.StopTimer()
	require.NoError(b, err)
	b.ReportMetric(switches/float64(b.N), "switches/op")
}

// bounce sends a byte back and forth n times between this thread and
// another over two pipes, and returns the time taken and the context
// switches this process made meanwhile.
func bounce(n int) (time.Duration, float64, error) {
	var ab, ba [2]int
	if err := unix.Pipe2(ab[:], unix.O_CLOEXEC); err != nil {
		return 0, 0, err
	}
	if err := unix.Pipe2(ba[:], unix.O_CLOEXEC); err != nil {
		unix.Close(ab[0])
		unix.Close(ab[1])
		return 0, 0, err
	}
	defer func() {
		for _, fd := range []int{ab[0], ab[1], ba[0], ba[1]} {
			unix.Close(fd)
		}
	}()
	echo := make(chan error, 1)
	go func() {
		// Blocking fds and raw syscalls: the thread sleeps in the
		// kernel, so each wake-up is a real context switch.
		runtime.LockOSThread()
		buf := make([]byte, 1)
		for range n {
			if _, err := unix.Read(ab[0], buf); err != nil {
				echo <- err
				return
			}
			if _, err := unix.Write(ba[1], buf); err != nil {
				echo <- err
				return
			}
		}
		echo <- nil
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var r0, r1 unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &r0)
	start := time.Now()
	buf := []byte{1}
	for range n {
		if _, err := unix.Write(ab[1], buf); err != nil {
			return 0, 0, err
		}
		if _, err := unix.Read(ba[0], buf); err != nil {
			return 0, 0, err
		}
	}
	d := time.Since(start)
	unix.Getrusage(unix.RUSAGE_SELF, &r1)
	if err := <-echo; err != nil {
		return 0, 0, err
	}
	return d, float64(r1.Nvcsw - r0.Nvcsw + r1.Nivcsw - r0.Nivcsw), nil
}
