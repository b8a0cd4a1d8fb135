package bench

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench/workload"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// fakeProcess stands in for the command: each run "takes" 10 ms more than
// the last, in made-up times, and records what the loop asked of it.
type fakeProcess struct {
	log  []string
	runs int
	fail int // the run (1-based) that fails; 0: none
	// prepares: Prepare runs something (--prepare), so the counters are
	// read again after it.
	prepares bool
	last     workload.Process
	env      string
}

func (f *fakeProcess) Do() error { return f.DoContext(context.Background()) }
func (f *fakeProcess) Prepare(context.Context) (bool, error) {
	f.log = append(f.log, "prepare")
	return f.prepares, nil
}
func (f *fakeProcess) DoContext(context.Context) error {
	f.runs++
	f.log = append(f.log, "run")
	f.env = os.Getenv("GOMAXPROCS")
	start := time.Unix(1000, 0).Add(time.Duration(f.runs) * time.Second)
	f.last = workload.Process{Start: start, End: start.Add(time.Duration(f.runs) * 10 * time.Millisecond), CPU: time.Duration(f.runs) * time.Millisecond}
	if f.runs == f.fail {
		return errors.New("exited with status 3")
	}
	return nil
}
func (f *fakeProcess) Last() workload.Process { return f.last }

func processRunner(f *fakeProcess) runner {
	return runner{maxIterations: runspec.MaxIterations, newWorkload: func(string, report.Params, int) (workload.Workload, error) { return f, nil }}
}

// A process per iteration: prepared before each run, warm-ups discarded,
// the caller's counters read once between, each iteration the process's
// own start to exit and CPU time, GOMAXPROCS its environment for the run
// alone.
func TestProcessLoop(t *testing.T) {
	f := &fakeProcess{}
	measured := 0
	res, err := processRunner(f).run(context.Background(), runspec.ClosedLoop{Workload: "command", Batch: 1, Workers: 1, Warmup: 2, Iterations: 3, GOMAXPROCS: 3},
		func() error {
			measured = f.runs
			f.log = append(f.log, "measure")
			return nil
		})
	require.NoError(t, err)
	assert.Equal(t, 2, measured, "the counters are read after the warm-up")
	assert.Equal(t, "prepare run prepare run measure prepare run prepare run prepare run", strings.Join(f.log, " "))
	require.Len(t, res.Iterations, 3)
	for i, it := range res.Iterations {
		run := i + 3
		assert.Equal(t, time.Duration(run)*10*time.Millisecond, it.Wall)
		assert.Equal(t, time.Duration(run)*time.Millisecond, it.Workers[0].CPU)
		assert.Equal(t, 1, it.Workers[0].Ops)
	}
	assert.Equal(t, "3", f.env)
	_, set := os.LookupEnv("GOMAXPROCS")
	assert.Equal(t, os.Getenv("GOMAXPROCS") != "", set) // put back as it was
}

// A failed run names the iteration: a warm-up, or the n-th measured.
func TestProcessLoopFailure(t *testing.T) {
	f := &fakeProcess{fail: 4}
	_, err := processRunner(f).run(context.Background(), runspec.ClosedLoop{Workload: "command", Batch: 1, Workers: 1, Warmup: 1, Iterations: 5}, nil)
	assert.EqualError(t, err, "measured run 3: exited with status 3")
	f = &fakeProcess{fail: 1}
	_, err = processRunner(f).run(context.Background(), runspec.ClosedLoop{Workload: "command", Batch: 1, Workers: 1, Warmup: 1, Iterations: 5}, nil)
	assert.EqualError(t, err, "warm-up run 1 of 1: exited with status 3")
}

// --min-time keeps running until the measured runs span it.
func TestProcessLoopMinTime(t *testing.T) {
	f := &fakeProcess{}
	res, err := processRunner(f).run(context.Background(), runspec.ClosedLoop{Workload: "command", Batch: 1, Workers: 1, Iterations: 1, MinTime: 100 * time.Millisecond}, nil)
	require.NoError(t, err)
	assert.Len(t, res.Iterations, 4, "10+20+30+40 ms ≥ 100 ms")
}

// The counters are read right around each run, and each iteration holds
// what they moved over its run alone.
func TestProcessLoopCounters(t *testing.T) {
	f := &fakeProcess{}
	var throttled uint64
	cfg := runspec.ClosedLoop{Workload: "command", Batch: 1, Workers: 1, Iterations: 2, Warmup: 1, Stat: func() (runspec.IterStat, error) {
		// Each run throttles as many periods as its number, made up.
		n := throttled
		if len(f.log) > 0 && f.log[len(f.log)-1] == "run" {
			throttled += uint64(f.runs)
			n = throttled
		}
		d := time.Duration(n) * time.Millisecond
		return runspec.IterStat{NrPeriods: &n, NrThrottled: &n, ThrottledTime: &d}, nil
	}}
	res, err := processRunner(f).run(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, res.Iterations, 2)
	for i, it := range res.Iterations {
		require.NotNil(t, it.Stat)
		assert.Equal(t, uint64(i+2), *it.Stat.NrThrottled, "run %d", i+2)
		assert.Equal(t, time.Duration(i+2)*time.Millisecond, *it.Stat.ThrottledTime)
	}
}
