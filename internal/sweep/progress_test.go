package sweep

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
)

// A command's time has no model: its estimate waits for its first run
// (issue 33: "about 0s" for a sweep that took 31 s), then comes from it.
func TestEstimatorLearnsACommand(t *testing.T) {
	e := NewEstimator()
	s := Shape{Alone: true, Batch: 1, Workers: 1, Iterations: 10, Warmup: 1, CPUs: 0.5, NumCPU: 2}
	assert.True(t, e.Unknown(s))
	assert.False(t, e.Unknown(Shape{Cost: 4, Batch: 1, Workers: 1, Iterations: 1, NumCPU: 2}), "bcrypt has a model")

	// One run: 200 ms of CPU in 400 ms at 0.5 CPUs, held back by the
	// limit: at least one CPU's worth where the limit allows it.
	r := &report.Report{Config: report.Config{Workload: "command"}, Stats: report.Stats{MeanMs: 400},
		Model: report.Model{CPUMsPerIteration: 200}}
	r.Cgroup.EffectiveCPUs = 0.5
	e.Learn(r)
	require.False(t, e.Unknown(s))
	assert.Equal(t, 11*400*time.Millisecond, e.Estimate(s), "11 runs of 200 ms of CPU at 0.5 CPUs")
	s.CPUs = 0 // unlimited on 2 CPUs: one CPU's worth
	assert.Equal(t, 11*200*time.Millisecond, e.Estimate(s))
}

// commandSteps are a sweep of a command over the CPUs.
func commandSteps(t *testing.T, cpus string) []Step {
	t.Helper()
	steps, err := Plan(Spec{Axes: map[string]string{"cpus": cpus}, Fixed: map[string]string{"workload": "command", "command": `["true"]`, "iterations": "10"},
		MaxConfigs: 1000, NumCPU: 2,
		Options: func(c config.Config) (plan.Options, error) {
			return plan.Options{Limits: c.Limits, LimitsSet: c.LimitsSet, Bench: c.ClosedLoop()}, nil
		}})
	require.NoError(t, err)
	return steps
}

// commandRunner answers every configuration with a run of 200 ms of CPU
// taking 200 ms / cpus.
type commandRunner struct{}

func (commandRunner) Run(_ context.Context, o plan.Options) (*report.Report, error) {
	cpus := min(o.Limits.CPUs(), 1)
	r := &report.Report{Config: report.Config{Workload: "command", Batch: 1, Workers: 1}, Stats: report.Stats{MeanMs: 200 / cpus},
		Model: report.Model{CPUMsPerIteration: 200}}
	r.Cgroup.EffectiveCPUs = cpus
	return r, nil
}

func TestLoopAnnouncesACommandAfterItsFirstRun(t *testing.T) {
	var b strings.Builder
	_, err := Loop[*report.Report]{Runner: commandRunner{}, Announce: &b, NumCPU: 2, What: "sweep"}.Run(context.Background(), commandSteps(t, "0.5,1"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 2, b.String())
	assert.Equal(t, "throttlebench: sweep of 2 configurations, about ? (estimated after the first configuration: a command's time has no model)", lines[0])
	// 11 runs of 200 ms of CPU at 1 CPU.
	assert.Equal(t, "throttlebench: about 2s left, estimated from the first configuration", lines[1])
}

// lockedBuilder is a strings.Builder the bar's redraws may write to.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	return s[strings.LastIndex(s, "\r\033[K")+len("\r\033[K"):]
}

// The bar says "?" while the time left is not known, and between updates
// a tick redraws it with the time elapsed and left moved on (issue 33: a
// latency list of 54 s printed nothing after its header).
func TestProgressRedrawsBetweenUpdates(t *testing.T) {
	now := time.Unix(1000, 0)
	var w lockedBuilder
	tick := make(chan time.Time)
	p := newProgress(&w, 2, func() time.Time { return now }, tick)
	p.Update(0, -1, "burst=0")
	assert.Contains(t, w.last(), "0/2  elapsed 0s  left ~?  burst=0")
	p.Update(0, 50*time.Second, "burst=0")
	p.mu.Lock()
	now = now.Add(20 * time.Second)
	p.mu.Unlock()
	tick <- now // received: the redraw runs before the next receive
	tick <- now
	assert.Contains(t, w.last(), "0/2  elapsed 20s  left ~30s  burst=0")

	var said []string
	p.Interrupt(func() { said = append(said, "skipped") })
	assert.Equal(t, []string{"skipped"}, said)
	p.Done()
	assert.Equal(t, "", w.last(), "the line cleared")
	var none *Progress
	none.Done()
	none.Interrupt(func() { said = append(said, "again") })
	assert.Len(t, said, 2)
}
