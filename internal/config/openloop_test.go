package config

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
)

// latency's defaults: the open loop's own, the shared ones (workers,
// gomaxprocs, the limits' period), and nothing of run's batches.
func TestResolveLatencyDefaults(t *testing.T) {
	c, err := ResolveFor(Latency, nil)
	require.NoError(t, err)
	assert.Equal(t, Config{
		Workers: 1, GOMAXPROCS: "workers",
		Limits: bandwidth.Limits{Period: DefaultPeriod, Quota: bandwidth.Unlimited},
		Rate:   100, Arrivals: runspec.ArrivalsPoisson, On: 50 * time.Millisecond, Off: 450 * time.Millisecond,
		Work: time.Millisecond, Wait: 0, Queue: 1000, Duration: 10 * time.Second, Seed: 1,
	}, c)
	assert.False(t, c.LimitsSet, "no limit was given")
	assert.Equal(t, 1, c.GOMAXPROCSValue())
}

// Values given are taken, each in its base unit; --on and --off with
// --arrivals onoff, limits like run's.
func TestResolveLatencyValues(t *testing.T) {
	c, err := ResolveFor(Latency, map[string]string{
		"rate": "250.5", "arrivals": "onoff", "on": "20ms", "off": "1s", "work": "5ms", "wait": "2ms",
		"queue": "0", "duration": "2s", "seed": "18446744073709551615", "workers": "4", "gomaxprocs": "2",
		"cpus": "1.5", "burst": "50ms",
	})
	require.NoError(t, err)
	assert.Equal(t, 250.5, c.Rate)
	assert.Equal(t, runspec.ArrivalsOnOff, c.Arrivals)
	assert.Equal(t, 20*time.Millisecond, c.On)
	assert.Equal(t, time.Second, c.Off)
	assert.Equal(t, 5*time.Millisecond, c.Work)
	assert.Equal(t, 2*time.Millisecond, c.Wait)
	assert.Equal(t, 0, c.Queue, "0: no waiting room, a valid choice")
	assert.Equal(t, 2*time.Second, c.Duration)
	assert.Equal(t, uint64(math.MaxUint64), c.Seed)
	assert.Equal(t, 4, c.Workers)
	assert.Equal(t, 2, c.GOMAXPROCSValue())
	assert.Equal(t, bandwidth.Limits{Period: 100 * time.Millisecond, Quota: 150 * time.Millisecond, Burst: 50 * time.Millisecond}, c.Limits)
	assert.True(t, c.LimitsSet)
}

// Every bad value of the open loop's parameters is a *badinput.Error naming the
// parameter, one line, the flag in its message; only how values combine
// (the rate × duration bound, a burst above its quota) is a Combination.
func TestResolveLatencyErrors(t *testing.T) {
	for _, tc := range []struct {
		values      map[string]string
		param, msg  string
		combination bool
	}{
		{map[string]string{"rate": "0"}, "rate", `invalid --rate "0": want requests per second above 0 and at most 1000000`, false},
		{map[string]string{"rate": "-1"}, "rate", `invalid --rate "-1"`, false},
		{map[string]string{"rate": "abc"}, "rate", `invalid --rate "abc"`, false},
		{map[string]string{"rate": "1e7"}, "rate", `invalid --rate "1e7": want requests per second above 0 and at most 1000000`, false},
		{map[string]string{"rate": "NaN"}, "rate", `invalid --rate "NaN"`, false},
		{map[string]string{"rate": "Inf"}, "rate", `invalid --rate "Inf"`, false},
		{map[string]string{"arrivals": "burst"}, "arrivals", `invalid --arrivals "burst": want one of fixed, poisson, onoff`, false},
		{map[string]string{"arrivals": "fixed", "on": "10ms"}, "on", `--on "10ms" applies only to --arrivals onoff (--arrivals is fixed)`, false},
		{map[string]string{"arrivals": "fixed", "off": "10ms"}, "off", `--off "10ms" applies only to --arrivals onoff (--arrivals is fixed)`, false},
		// poisson is the default: --on alone is refused too.
		{map[string]string{"on": "10ms"}, "on", `--on "10ms" applies only to --arrivals onoff (--arrivals is poisson)`, false},
		{map[string]string{"arrivals": "poisson", "off": "1s"}, "off", `(--arrivals is poisson)`, false},
		{map[string]string{"arrivals": "onoff", "on": "0s"}, "on", `invalid --on "0s": want a duration between 1ns and 1h0m0s`, false},
		{map[string]string{"arrivals": "onoff", "off": "-1ms"}, "off", `invalid --off "-1ms"`, false},
		{map[string]string{"arrivals": "onoff", "on": "2h"}, "on", `invalid --on "2h"`, false},
		{map[string]string{"work": "-1ms"}, "work", `invalid --work "-1ms": want a duration between 0s and 10s`, false},
		{map[string]string{"work": "11s"}, "work", `invalid --work "11s": want a duration between 0s and 10s`, false},
		{map[string]string{"work": "lots"}, "work", `invalid --work "lots"`, false},
		{map[string]string{"wait": "11s"}, "wait", `invalid --wait "11s"`, false},
		{map[string]string{"queue": "-1"}, "queue", "invalid --queue -1: must be between 0 and 10000000", false},
		{map[string]string{"queue": "1.5"}, "queue", `invalid --queue "1.5": want a whole number`, false},
		{map[string]string{"duration": "5ms"}, "duration", `invalid --duration "5ms": want a duration between 10ms and 24h0m0s`, false},
		{map[string]string{"duration": "25h"}, "duration", `invalid --duration "25h": want a duration between 10ms and 24h0m0s`, false},
		{map[string]string{"seed": "-1"}, "seed", `invalid --seed "-1": want a whole number between 0 and 18446744073709551615`, false},
		{map[string]string{"seed": "18446744073709551616"}, "seed", `invalid --seed "18446744073709551616"`, false},
		{map[string]string{"workers": "0"}, "workers", "invalid --workers 0", false},
		// How values combine: a sweep skips these.
		{map[string]string{"rate": "1000000", "duration": "11s"}, "rate", "11000000 requests, at most 10000000", true},
		{map[string]string{"quota": "20ms", "burst": "30ms"}, "burst", "must not exceed the quota 20ms", true},
		{map[string]string{"rate": "0.01", "duration": "10ms"}, "rate", "no request would arrive", true},
		{map[string]string{"rate": "0.01", "duration": "1s", "arrivals": "fixed"}, "", "", false}, // one arrival, at 0: fine
		{map[string]string{"rate": "0.5", "duration": "1s", "arrivals": "onoff", "on": "1s", "off": "10s"}, "", "", false},
	} {
		_, err := ResolveFor(Latency, tc.values)
		if tc.param == "" {
			assert.NoError(t, err, tc.values)
			continue
		}
		checkUsageError(t, err, tc.param)
		var e *badinput.Error
		require.ErrorAs(t, err, &e, tc.values)
		assert.Equal(t, tc.param, e.Param, tc.values)
		assert.Contains(t, e.Msg, tc.msg, tc.values)
		assert.Equal(t, tc.combination, badinput.IsCombination(err), tc.values)
	}
}

// The bound on a schedule's length is rate × duration against
// runspec.MaxRequests: at it runs, above it is a Combination (each value
// is fine alone).
func TestResolveLatencyMaxRequests(t *testing.T) {
	// 1e6 /s × 10 s = MaxRequests exactly.
	c, err := ResolveFor(Latency, map[string]string{"rate": "1000000", "duration": "10s", "arrivals": "fixed"})
	require.NoError(t, err)
	assert.Equal(t, float64(runspec.MaxRequests), c.Rate*c.Duration.Seconds())

	// A poisson count may exceed its mean: it needs room for 6σ = 6√n.
	_, err = ResolveFor(Latency, map[string]string{"rate": "1000000", "duration": "10s", "arrivals": "poisson"})
	assert.True(t, badinput.IsCombination(err), "%v", err)
	_, err = ResolveFor(Latency, map[string]string{"rate": "1000000", "duration": "9.98s", "arrivals": "poisson"})
	assert.NoError(t, err, "9.98e6 + 6 × 3159 fits under 1e7")

	_, err = ResolveFor(Latency, map[string]string{"rate": "1000000", "duration": "10001ms"})
	var e *badinput.Error
	require.ErrorAs(t, err, &e)
	assert.True(t, e.Combination)
	assert.Equal(t, "rate", e.Param)

	_, err = ResolveFor(Latency, map[string]string{"rate": "500", "duration": "24h"})
	assert.True(t, badinput.IsCombination(err), "43.2 million requests: %v", err)

	rate, _ := Lookup("rate")
	duration, _ := Lookup("duration")
	assert.NoError(t, rate.Check("1000000"), "alone, each value is fine")
	assert.NoError(t, duration.Check("24h"))
}

// A parameter belongs to the commands that take it: batch is run's,
// rate latency's; the shared ones (workers, limits) go to both.
func TestResolveRefusesAnotherCommandsParameter(t *testing.T) {
	for _, name := range []string{"batch", "cost", "iterations", "warmup", "min-time", "workload"} {
		_, err := ResolveFor(Latency, map[string]string{name: "1"})
		var e *badinput.Error
		require.ErrorAs(t, err, &e, name)
		assert.Equal(t, name, e.Param)
		assert.Equal(t, "unknown parameter --"+name, e.Msg)
		assert.False(t, e.Combination)
	}
	for _, name := range []string{"rate", "arrivals", "on", "off", "work", "wait", "queue", "duration", "seed"} {
		_, err := Resolve(map[string]string{name: "1"})
		var e *badinput.Error
		require.ErrorAs(t, err, &e, name)
		assert.Equal(t, name, e.Param)
		assert.Equal(t, "unknown parameter --"+name, e.Msg)
	}
	_, err := ResolveFor(Latency, map[string]string{"workers": "2", "cpus": "0.5", "gomaxprocs": "runtime"})
	assert.NoError(t, err, "shared parameters")
}

func names(ps []Param) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func TestParamsForLatency(t *testing.T) {
	lat := names(ParamsFor(Latency))
	for _, n := range []string{"rate", "arrivals", "on", "off", "work", "wait", "queue", "duration", "seed",
		"workers", "gomaxprocs", "period", "quota", "burst", "cpus", "cpuset"} {
		assert.Contains(t, lat, n)
	}
	for _, n := range []string{"batch", "cost", "iterations", "warmup", "min-time", "workload", "pin", "one-per-core"} {
		assert.NotContains(t, lat, n)
	}
	batch := names(ParamsFor(Batch))
	for _, n := range []string{"rate", "arrivals", "work", "duration", "seed", "queue"} {
		assert.NotContains(t, batch, n)
	}
	assert.Subset(t, batch, []string{"batch", "cost", "workers", "cpus"})
	// In Params' order.
	var want []string
	for _, p := range Params {
		if slices.Contains(lat, p.Name) {
			want = append(want, p.Name)
		}
	}
	assert.Equal(t, want, lat)

	axes := names(AxesFor(Latency))
	assert.Subset(t, axes, []string{"rate", "work", "period", "quota", "burst", "cpus", "workers", "gomaxprocs"})
	assert.NotContains(t, axes, "batch")
	assert.NotContains(t, axes, "cost")
	assert.NotContains(t, axes, "arrivals", "not an axis")
	assert.NotContains(t, axes, "duration", "not an axis")
	// Outermost first; the rate inner to work and the limits.
	for i := 1; i < len(AxesFor(Latency)); i++ {
		assert.LessOrEqual(t, AxesFor(Latency)[i-1].AxisRank, AxesFor(Latency)[i].AxisRank)
	}
	// --instances innermost of all, so that its modes sit side by side.
	assert.Equal(t, []string{"rate", "instances"}, axes[len(axes)-2:])
	assert.Equal(t, names(Axes()), names(AxesFor(Batch)))
	assert.NotContains(t, names(Axes()), "rate")
}

// Every field of the open loop is carried over, and nothing else is
// invented: a new field of runspec.OpenLoop must be set here too.
func TestConfigOpenLoopCopiesEveryField(t *testing.T) {
	c := Config{Rate: 123.5, Arrivals: runspec.ArrivalsOnOff, On: 7 * time.Millisecond, Off: 11 * time.Millisecond,
		Work: 3 * time.Millisecond, Wait: 5 * time.Millisecond, Workers: 6, Queue: 17, Duration: 19 * time.Second, Seed: 23,
		Batch: 99, Params: report.Params{}.With("cost", 9), Count: 29, Instances: &runspec.Instances{Policy: "shared"}}
	o := c.OpenLoop(8)
	assert.Equal(t, runspec.OpenLoop{Rate: 123.5, Arrivals: runspec.ArrivalsOnOff, On: 7 * time.Millisecond, Off: 11 * time.Millisecond,
		Work: 3 * time.Millisecond, Wait: 5 * time.Millisecond, Workers: 6, Queue: 17, Duration: 19 * time.Second, Seed: 23, GOMAXPROCS: 8,
		Count: 29, Instances: &runspec.Instances{Policy: "shared"}}, o)
	// No field left at its zero value: a field added to OpenLoop and not
	// copied shows up here.
	v := reflect.ValueOf(o)
	for i := range v.NumField() {
		switch v.Type().Field(i).Name {
		case "Spans":
			continue // not the configuration's: the runner asks for spans when it traces (--trace)
		case "NoFloor":
			continue // not the configuration's: size skips the floor at its levels
		}
		assert.False(t, v.Field(i).IsZero(), "runspec.OpenLoop.%s is not copied", v.Type().Field(i).Name)
	}
	assert.Equal(t, 0, Config{}.OpenLoop(0).GOMAXPROCS, "0: the runtime's default")
}

// Every field of the closed loop is carried over too: a new field of
// runspec.ClosedLoop must be set in ClosedLoop.
func TestConfigClosedLoopCopiesEveryField(t *testing.T) {
	c := Config{Workload: "memtouch", Params: report.Params{}.With("buffer_bytes", 4096).With("memory", "reuse"), Sleep: time.Millisecond, SleepEvery: 3,
		SlowWorkers: 2, Batch: 11, Iterations: 13, Warmup: 1, Workers: 4, GOMAXPROCS: "workers", MinTime: time.Second,
		Pin: true, OnePerCore: true, Rate: 99}
	b := c.ClosedLoop()
	assert.Equal(t, runspec.ClosedLoop{Workload: "memtouch", Params: report.Params{}.With("buffer_bytes", 4096).With("memory", "reuse"), Sleep: time.Millisecond,
		SleepEvery: 3, SlowWorkers: 2, Batch: 11, Iterations: 13, Warmup: 1, Workers: 4, GOMAXPROCS: 4, MinTime: time.Second,
		Pin: true, OnePerCore: true}, b)
	v := reflect.ValueOf(b)
	for i := range v.NumField() {
		switch v.Type().Field(i).Name {
		case "GOMAXPROCSRule":
			continue // set instead of a number: below
		case "StatDir", "Stat":
			continue // the runner's: where the cgroup it runs in is
		}
		assert.False(t, v.Field(i).IsZero(), "runspec.ClosedLoop.%s is not copied", v.Type().Field(i).Name)
	}
	c.GOMAXPROCS = "ceil"
	b = c.ClosedLoop()
	assert.Equal(t, "ceil", b.GOMAXPROCSRule)
	assert.Equal(t, 0, b.GOMAXPROCS, "computed from the quota where it runs")
}
