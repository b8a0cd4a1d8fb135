package build

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/report"
)

// Pressure's growth in ms and as a share of the time between its two
// readings; full apart from some (the kernel may keep some alone); no
// share without a window; nothing where nothing was read.
func TestContendPressure(t *testing.T) {
	d := func(n int) *time.Duration { x := time.Duration(n) * time.Millisecond; return &x }
	bg := Background{Window: time.Second, Waits: &Waits{Threads: 2, PressureSome: d(500), PressureFull: d(125), PressureWindow: 2 * time.Second}}
	c := Contend(bg, report.Throttling{}, nil, DefaultThresholds)
	require.NotNil(t, c)
	require.NotNil(t, c.PressureSomeShare)
	require.NotNil(t, c.PressureFullShare)
	assert.InDelta(t, 500, *c.PressureSomeMs, 1e-9)
	assert.InDelta(t, 125, *c.PressureFullMs, 1e-9)
	assert.InDelta(t, 0.25, *c.PressureSomeShare, 1e-9, "over the pressure's own window, not the background's")
	assert.InDelta(t, 0.0625, *c.PressureFullShare, 1e-9)

	bg.Waits.PressureFull = nil
	c = Contend(bg, report.Throttling{}, nil, DefaultThresholds)
	assert.NotNil(t, c.PressureSomeMs)
	assert.Nil(t, c.PressureFullMs)
	assert.Nil(t, c.PressureFullShare)

	bg.Waits.PressureWindow = 0
	c = Contend(bg, report.Throttling{}, nil, DefaultThresholds)
	assert.NotNil(t, c.PressureSomeMs)
	assert.Nil(t, c.PressureSomeShare)

	bg.Waits.PressureSome = nil
	c = Contend(bg, report.Throttling{}, nil, DefaultThresholds)
	assert.Nil(t, c.PressureSomeMs)
	assert.Nil(t, c.PressureSomeShare)
}

func TestContend(t *testing.T) {
	d := func(n int) *time.Duration { x := time.Duration(n) * time.Millisecond; return &x }
	f := func(x float64) *float64 { return &x }
	assert.Nil(t, Contend(Background{}, report.Throttling{}, nil, DefaultThresholds), "no waits read")

	// 600 ms of run delay, 400 of them the quota's hold: 200 ms waited,
	// against 800 on CPU, a fifth of the runnable time.
	bg := Background{Window: time.Second, MachineBusy: d(1500), Waits: &Waits{Threads: 4, RunDelay: 600 * time.Millisecond, OnCPU: 800 * time.Millisecond, PressureSome: d(700), PressureFull: d(300)}}
	c := Contend(bg, report.Throttling{ThrottledMs: f(400)}, d(800), DefaultThresholds)
	require.NotNil(t, c)
	assert.InDelta(t, 200, c.WaitMs, 1e-9)
	assert.InDelta(t, 0.2, c.WaitShare, 1e-9)
	assert.InDelta(t, 0.7, *c.OthersCPUs, 1e-9)
	assert.InDelta(t, 700, *c.PressureSomeMs, 1e-9)
	assert.True(t, c.Contended)
	msg, ok := busyMachine(c, bg, 700*time.Millisecond, DefaultThresholds, "response times")
	assert.True(t, ok)
	assert.Contains(t, msg, "busy machine: the work waited 200.0 ms for CPUs that others held, 20% of the time")

	// Held by the quota more than it waited in all: no wait, no warning,
	// however busy the machine was.
	bg.Waits.RunDelay = 300 * time.Millisecond
	c = Contend(bg, report.Throttling{ThrottledMs: f(400)}, d(800), DefaultThresholds)
	assert.Zero(t, c.WaitMs)
	assert.False(t, c.Contended)
	_, ok = busyMachine(c, bg, 700*time.Millisecond, DefaultThresholds, "response times")
	assert.False(t, ok, "others busy, the work not waiting: no warning")

	// A quiet machine: the work's threads waited for each other, not for
	// others, who ran 20 ms; the wait is what they can have taken.
	bg.Waits.RunDelay = 900 * time.Millisecond
	bg.MachineBusy = d(820)
	c = Contend(bg, report.Throttling{ThrottledMs: f(100)}, d(800), DefaultThresholds)
	assert.InDelta(t, 20, c.WaitMs, 1e-9)
	assert.InDelta(t, 20.0/820, c.WaitShare, 1e-9)
	assert.False(t, c.Contended)

	// The tracker's split, where it has one, is the wait: the window's
	// throttled time taken once off the sum would leave three of four
	// threads' hold in it.
	waited := 30 * time.Millisecond
	bg.MachineBusy = d(2000)
	bg.Waits = &Waits{Threads: 4, RunDelay: 1230 * time.Millisecond, OnCPU: 270 * time.Millisecond, Waited: &waited}
	c = Contend(bg, report.Throttling{ThrottledMs: f(300)}, d(800), DefaultThresholds)
	assert.InDelta(t, 30, c.WaitMs, 1e-9)
	assert.InDelta(t, 0.1, c.WaitShare, 1e-9)

	// Without the waits, the machine's other load decides, as before.
	_, ok = busyMachine(nil, bg, 700*time.Millisecond, DefaultThresholds, "response times")
	assert.True(t, ok)
}
