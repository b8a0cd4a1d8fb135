//go:build linux

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/throttle"
	"github.com/throttlebench/throttlebench/internal/tracer"
)

// The tracer of a run, and of a list of configurations (issue 34): a run
// traces its own groups only, and attaches once.

// traceRun is what these tests read of a traced result.
type traceRun struct {
	Throttling struct {
		ThrottledMs *float64 `json:"throttled_ms"`
	} `json:"throttling"`
	ThrottleEvents *struct {
		TotalMs  float64 `json:"total_ms"`
		HoldEnds string  `json:"hold_ends"`
		Attaches *int    `json:"attaches"`
		Groups   []struct {
			Path     string `json:"path"`
			Relation string `json:"relation"`
		} `json:"groups"`
	} `json:"throttle_events"`
	Completed int        `json:"completed"`
	Breakdown *breakdown `json:"breakdown"`
	Warnings  warnings   `json:"warnings"`
}

// startTogether starts one process per args, each held in a shell until
// a line on its stdin, then lets them all go at once: they start together
// on that event, not after a sleep.
func startTogether(t *testing.T, ctx context.Context, runs ...[]string) []chan outcome {
	t.Helper()
	var gates []io.WriteCloser
	var outs []chan outcome
	for _, args := range runs {
		cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `read go && exec "$0" "$@"`, binary}, args...)...)
		gate, err := cmd.StdinPipe()
		require.NoError(t, err)
		gates = append(gates, gate)
		out := make(chan outcome, 1)
		outs = append(outs, out)
		go func() { out <- runCmdQuiet(cmd) }()
	}
	for _, g := range gates {
		fmt.Fprintln(g, "go")
		g.Close()
	}
	return outs
}

// runCmdQuiet is runCmd for another goroutine: no test calls.
func runCmdQuiet(cmd *exec.Cmd) outcome {
	var o outcome
	var stdout, stderr writerString
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		o.code = ee.ExitCode()
	} else if err != nil {
		o.code, stderr.s = -1, err.Error()
	}
	o.stdout, o.stderr = stdout.s, stderr.s
	return o
}

type writerString struct{ s string }

func (w *writerString) Write(p []byte) (int, error) { w.s += string(p); return len(p), nil }

// Two --instances per-request --trace runs started together, their slices
// side by side under one parent: each run traces its own instances'
// slices only. Its groups (throttle_events.groups) are its own slices and
// none of the other's, and its traced total does not run over its own
// instances' counters, which is what counting the other run's slices
// looks like: before each run tracked its own slices, each traced the
// shared parent, 62.58 ms traced against 20.66 and 41.92 ms counted
// (ratios 3.03 and 1.49, issue 34).
//
// Where the tracer ends holds exactly (hold_ends unthrottle: the kernel's
// unthrottle hooked, as on the 6.12 VM; queue_clock: 6.6+, this host),
// the total is within 10% (or 1 ms, a few ticks of a counter) either way.
// Before 6.6 (the v2 VM's 6.1) the bound stays 20% until the hooked ends
// there have had the runs beside a busy loop that a bound needs (issue
// 49); unhooked there (hold_ends upper_bound), a hold's end is
// read from the queue's PELT clock, and the stretches the counter counts
// with no thread waiting are traced from the thread that went to sleep
// leaving its queue throttled (SLEEP) to the group's next run: 64 runs (32
// pairs) in the VM came out -6.9% to +14.6%, 64 beside a busy loop on each
// host CPU -6.8% to +8.8%, 126 of the 128 within 10%. There the bound is
// 20% either way: 12 runs were above +2%, their excess over 2% 3.1 points
// at the mean, 8 below -2%, 2.8 points, so that exponential tails put a
// run past +20% at about 1 in 3,500 and past -20% at 1 in 10,000 (past
// 10%: 1 in 140); the other run's slices add 49% and more. Before those
// stretches were traced, 10 runs of 64 there came out under -10%, down
// to -100% (0.00 ms against 3.82).
func TestTraceTwoRunsTogether(t *testing.T) {
	needTrace(t)
	hier := needRoot(t)
	// The weighted parent: instances at the kernel's default weight beside
	// a CI runner's other work got less CPU than their quota and were not
	// throttled at all (0.00 ms in both runs, three of four tries beside a
	// busy loop and a VM guest), which leaves nothing to trace.
	parent := boostedParent(t, hier)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"latency", "--cgroup", "create", "--parent", parent, "--cpus", "0.2", "--instances", "per-request",
		"--arrivals", "once", "--count", "6", "--work", "100ms", "--format", "json", "--trace"}
	outs := startTogether(t, ctx, args, args)
	var counted float64
	own := make([]map[string]bool, len(outs))
	for i, out := range outs {
		o := <-out
		require.Equal(t, 0, o.code, "run %d: %s", i+1, o.stderr)
		var r traceRun
		require.NoError(t, json.Unmarshal([]byte(o.stdout), &r), "run %d", i+1)
		require.NotNil(t, r.ThrottleEvents, "run %d: warnings %q", i+1, r.Warnings)
		require.NotNil(t, r.Throttling.ThrottledMs, "run %d", i+1)
		traced, mine := r.ThrottleEvents.TotalMs, *r.Throttling.ThrottledMs
		counted += mine
		t.Logf("run %d: %.2f ms traced, its instances' counters %.2f ms (%+.1f%%; hold ends: %s)", i+1, traced, mine,
			100*(traced-mine)/max(mine, 1e-9), r.ThrottleEvents.HoldEnds)
		band := 0.10
		if r.ThrottleEvents.HoldEnds == throttle.EndsUpperBound || tracer.CountsEmptyStretches() {
			band = 0.20
		}
		assert.LessOrEqual(t, traced-mine, max(band*mine, 1.0),
			"run %d: traced %.2f ms against its own instances' %.2f ms: the other run's slices are not its own", i+1, traced, mine)
		assert.LessOrEqual(t, mine-traced, max(band*mine, 1.0),
			"run %d: traced %.2f ms against its own instances' %.2f ms: its own slices are missing", i+1, traced, mine)
		own[i] = map[string]bool{}
		for _, g := range r.ThrottleEvents.Groups {
			if g.Relation != "ancestor" { // the shared parent's line is both runs'
				own[i][g.Path] = true
			}
		}
		if mine > 0 { // a run whose instances were not throttled has no group to list
			assert.NotEmpty(t, own[i], "run %d: the groups it traced", i+1)
		}
		// Each request split over its own instance's threads, which the
		// quota held (not the other run's).
		if b := r.Breakdown; assert.NotNil(t, b, "run %d: warnings %q", i+1, r.Warnings) {
			assert.Equal(t, "instance", b.Threads)
			assert.Equal(t, r.Completed, b.Count)
			assert.Zero(t, b.Unknown)
			assert.InDelta(t, 1, b.P99Share.OnCPU+b.P99Share.Held+b.P99Share.Waiting+b.P99Share.OffCPU, 1e-6)
			if mine > 0 {
				assert.Positive(t, b.HeldMs.P99, "run %d", i+1)
			}
		}
	}
	for path := range own[0] {
		assert.False(t, own[1][path], "%s traced by both runs", path)
	}
	assert.Positive(t, counted, "the instances were throttled")
}

// A list of traced configurations attaches the tracer once and keeps it
// across them: the process holds one set of tracer programs from the first
// configuration to the last (before, a new set each: 4 attaches for 4
// configurations), and every result says 1 attach.
func TestTraceListAttachesOnce(t *testing.T) {
	needTrace(t)
	hier := needRoot(t)
	before := tracerPrograms(t)
	cmd := exec.Command(binary, "latency", "--cgroup", "create", "--parent", testParent(t, hier), "--trace",
		"--cpus", "0.2,0.3,0.4,0.5", "--rate", "50", "--work", "5ms", "--duration", "1s", "--format", "json")
	var stdout, stderr writerString
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Every program the process held while it ran: a new attach loads new
	// ones (new ids); each configuration runs a second or more, and the
	// programs are read every 10 ms.
	seen := map[ebpf.ProgramID]string{} // their names, read while they live
	var err error
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-tick.C:
			for id := range tracerProgramsHeldBy(cmd.Process.Pid) {
				if _, ok := seen[id]; !ok {
					seen[id] = programName(id)
				}
			}
		}
	}
	require.NoError(t, err, stderr.s)
	// One program per tracepoint (sched_switch, sched_wakeup,
	// sched_wakeup_new) each attach, and the two throttle hooks' where the
	// kernel takes them: one sched_switch program, one attach.
	switches := 0
	for _, name := range seen {
		if strings.HasPrefix(name, "sched_switch_") {
			switches++
		}
	}
	t.Logf("4 configurations: %d tracer programs held, %d attaches", len(seen), switches)
	assert.Equal(t, 1, switches, "the programs held over the list: one attach's")
	assert.LessOrEqual(t, len(seen), 5, "the programs held over the list: one attach's (three tracepoints, two hooks)")
	var rows []traceRun
	require.NoError(t, json.Unmarshal([]byte(stdout.s), &rows))
	require.Len(t, rows, 4)
	for i, r := range rows {
		require.NotNil(t, r.ThrottleEvents, "configuration %d: warnings %q", i+1, r.Warnings)
		require.NotNil(t, r.ThrottleEvents.Attaches, "configuration %d: throttle_events.attaches", i+1)
		assert.Equal(t, 1, *r.ThrottleEvents.Attaches, "configuration %d", i+1)
	}
	assert.Eventually(t, func() bool { return len(newSince(tracerPrograms(t), before)) == 0 }, 5*time.Second, 10*time.Millisecond,
		"nothing of the tracer's left after the list")
}

// A traced list interrupted (Ctrl-C) once its tracer is attached leaves no
// tracer program loaded: the tracer kept across the list is closed on
// that way out too.
func TestTraceListInterruptedLeavesNoTracer(t *testing.T) {
	needTrace(t)
	hier := needRoot(t)
	before := tracerPrograms(t)
	cmd := exec.Command(binary, "latency", "--cgroup", "create", "--parent", testParent(t, hier), "--trace",
		"--cpus", "0.2,0.3", "--rate", "50", "--work", "5ms", "--duration", "30s", "--format", "json")
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	assert.Eventually(t, func() bool { return len(tracerProgramsHeldBy(cmd.Process.Pid)) > 0 }, time.Minute, 10*time.Millisecond,
		"the list attached its tracer")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the traced list did not end within a minute of SIGINT")
	}
	assert.Eventually(t, func() bool { return len(newSince(tracerPrograms(t), before)) == 0 }, 5*time.Second, 10*time.Millisecond,
		"nothing of the tracer's left after SIGINT")
}
