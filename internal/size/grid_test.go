package size

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// traceOf is a usage trace whose intervals, each interval long, used cpus.
func traceOf(interval time.Duration, cpus ...float64) usage.Trace {
	t := usage.Trace{Interval: interval, Samples: []usage.Sample{{}}}
	for i, c := range cpus {
		last := t.Samples[i]
		t.Samples = append(t.Samples, usage.Sample{At: last.At + interval, Usage: last.Usage + time.Duration(c*float64(interval))})
	}
	return t
}

// requireUsage asserts err is a one-line badinput.Error (exit 2) about flag
// that says want.
func requireUsage(t *testing.T, err error, flag, want string) {
	t.Helper()
	require.Error(t, err, want)
	var ce *badinput.Error
	require.True(t, errors.As(err, &ce), "%T is not a badinput.Error (exit 2): %v", err, err)
	assert.Equal(t, flag, ce.Param, err.Error())
	assert.Contains(t, err.Error(), want)
	assert.Contains(t, err.Error(), "--"+flag)
	assert.NotContains(t, err.Error(), "\n")
}

func TestParseStep(t *testing.T) {
	for in, want := range map[string]Step{
		"0.05": {CPUs: 0.05}, " 1 ": {CPUs: 1}, "5%": {Percent: 5}, " 2.5 % ": {Percent: 2.5}, "100%": {Percent: 100},
		"50m": {CPUs: 0.05}, "250m": {CPUs: 0.25},
	} {
		s, err := ParseStep(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, s, in)
		back, err := ParseStep(s.String())
		require.NoError(t, err, s.String())
		assert.Equal(t, s, back, "canonical %q reads back", s.String())
	}
	assert.Equal(t, "5%", Step{Percent: 5}.String())
	assert.Equal(t, "0.05", Step{CPUs: 0.05}.String())

	for in, want := range map[string]string{
		"0":     `invalid --step "0": want a number of CPUs above 0 and at most 1024, such as 0.05 or 50m, or a percentage such as 5%`,
		"0m":    `invalid --step "0m": want a number of CPUs above 0`,
		"50 m":  `invalid --step "50 m"`,
		"-0.05": `invalid --step "-0.05": want a number of CPUs above 0`,
		"fine":  `invalid --step "fine"`,
		"NaN":   "above 0",
		"inf":   "at most 1024",
		"0%":    `invalid --step "0%": want a percentage above 0 and at most 100, such as 5% (each level 5% above the previous)`,
		"-5%":   "want a percentage above 0",
		"150%":  "at most 100",
		"%":     "want a percentage",
	} {
		_, err := ParseStep(in)
		requireUsage(t, err, "step", want)
	}
}

func TestParseGridRefuses(t *testing.T) {
	for _, tc := range []struct {
		min, max, step string
		period         time.Duration
		flag, want     string
	}{
		{"0", "1", "0.1", ms100, "cpus-min", `invalid --cpus-min "0": want a number of CPUs above 0 and at most 1024, such as 0.5`},
		{"-1", "1", "0.1", ms100, "cpus-min", "above 0"},
		{"half", "1", "0.1", ms100, "cpus-min", `invalid --cpus-min "half"`},
		{"0.5", "2000", "0.1", ms100, "cpus-max", `invalid --cpus-max "2000": want a number of CPUs above 0 and at most 1024`},
		{"0.5", "NaN", "0.1", ms100, "cpus-max", "above 0"},
		// 0.005 CPUs at 100 ms is a quota of 500µs: below the kernel's 1 ms.
		{"0.005", "1", "0.1", ms100, "cpus-min", `invalid --cpus-min "0.005": a quota of 500µs per 100ms period, below the kernel's 1ms minimum; want at least 0.01 CPUs, or a longer --period`},
		{"", "0.004", "0.1", ms100, "cpus-max", "below the kernel's 1ms minimum"},
		{"1", "1", "0.1", ms100, "cpus-min", "invalid --cpus-min 1: not below --cpus-max 1; want the low end below the high one"},
		{"2", "1", "0.1", ms100, "cpus-min", "invalid --cpus-min 2: not below --cpus-max 1"},
		{"0.01", "20", "0.01", ms100, "step", `invalid --step "0.01": more than 1000 levels from 0.01 to 20 CPUs; want a coarser step or a narrower range`},
		{"0.01", "1000", "0.5%", ms100, "step", "more than 1000 levels"},
		// A step wider than the range leaves only its ends: no grid.
		{"0.2", "1", "2", ms100, "step", `invalid --step "2": wider than the range from 0.2 to 1 CPUs (0.8), so no grid; want a step of at most 0.8, such as 0.2`},
		{"0.5", "0.6", "1", ms100, "step", "wider than the range from 0.5 to 0.6 CPUs (0.1)"},
		{"0.2", "1", "0.81", ms100, "step", "want a step of at most 0.8"},
		{"500m", "600m", "50%", ms100, "step", `invalid --step "50%": wider than the range from 0.5 to 0.6 CPUs (20% above the low end), which leaves only its two ends; want a step of at most 20%`},
		{"0.5m", "1", "0.1", ms100, "cpus-min", `invalid --cpus-min "0.5m": a quota of 50µs per 100ms period`},
		{"800m", "400m", "50m", ms100, "cpus-min", "invalid --cpus-min 0.8: not below --cpus-max 0.4"},
		{"0.5", "1", "0", ms100, "step", `invalid --step "0"`},
		// 0.000001 CPUs at 100 ms is a tenth of a microsecond of quota.
		{"0.5", "0.6", "0.000001", ms100, "step", `invalid --step "0.000001": finer than the kernel's 1µs of quota per 100ms period (0.00001 CPUs)`},
	} {
		_, err := ParseGrid(tc.min, tc.max, tc.step, tc.period)
		requireUsage(t, err, tc.flag, tc.want)
	}
	// What 100 ms refuses, a longer period takes.
	_, err := ParseGrid("0.005", "1", "0.1", time.Second)
	require.NoError(t, err)
	// A step as wide as the range is taken, its multiples as ever.
	g, err := ParseGrid("0.2", "1", "0.8", ms100)
	require.NoError(t, err)
	levels, err := g.Levels(Range{})
	require.NoError(t, err)
	assert.Equal(t, []float64{0.2, 0.8, 1}, levels)
	g, err = ParseGrid("0.5", "0.6", "20%", ms100)
	require.NoError(t, err)
	levels, err = g.Levels(Range{})
	require.NoError(t, err)
	assert.Equal(t, []float64{0.5, 0.6}, levels)
}

// CPUs as Kubernetes writes them: 500m is 0.5, on either end and the step.
func TestParseGridTakesQuantities(t *testing.T) {
	g, err := ParseGrid("500m", "1", "100m", ms100)
	require.NoError(t, err)
	assert.Equal(t, Grid{Min: 0.5, Max: 1, Step: Step{CPUs: 0.1}, Period: ms100}, g)
	levels, err := g.Levels(Range{})
	require.NoError(t, err)
	assert.Equal(t, []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1}, levels)
}

// Check refuses, before anything runs, every grid Levels would refuse
// whatever the unlimited arm measures: with one end given, the other's
// default can only lie so far.
func TestGridCheck(t *testing.T) {
	grid := func(lo, hi, step string) Grid {
		g, err := ParseGrid(lo, hi, step, ms100)
		require.NoError(t, err)
		return g
	}
	for _, tc := range []struct {
		g          Grid
		numCPU     int
		flag, want string
	}{
		// The default --cpus-max is at most the machine's CPUs.
		{grid("4", "", "0.1"), 2, "cpus-min", "invalid --cpus-min 4: not below the default --cpus-max, at most 2 CPUs (this machine has 2); give --cpus-max too, or a lower --cpus-min"},
		{grid("2", "", "0.1"), 2, "cpus-min", "not below the default --cpus-max, at most 2 CPUs"},
		// ... rounded up to the step: 2 CPUs by 0.3 is up to 2.1.
		{grid("2.1", "", "0.3"), 2, "cpus-min", "at most 2.1 CPUs"},
		// The default --cpus-min is at least the kernel's minimum.
		{grid("", "0.01", "0.1"), 2, "cpus-max", "invalid --cpus-max 0.01: not above the default --cpus-min, at least 0.01 CPUs (the kernel's 1ms of quota per 100ms period); give a higher --cpus-max"},
		{Grid{Min: 0.2, Max: 1, Step: Step{CPUs: 2}, Period: ms100}, 2, "step", "wider than the range"},
		{Grid{Min: 1, Max: 0.5, Step: Step{CPUs: 0.1}, Period: ms100}, 2, "cpus-min", "not below --cpus-max 0.5"},
		{Grid{Min: 0.01, Max: 20, Step: Step{CPUs: 0.01}, Period: ms100}, 64, "step", "more than 1000 levels"},
	} {
		err := tc.g.Check(tc.numCPU)
		requireUsage(t, err, tc.flag, tc.want)
		// Each but the wide step (which Levels takes, making the two ends
		// alone) is what Levels would have refused after the unlimited
		// arm, at the widest default range the machine allows.
		if !strings.Contains(tc.want, "wider") {
			_, err = tc.g.Levels(Range{Min: MinCPUs(ms100), Max: float64(tc.numCPU), Why: "the widest"})
			require.Error(t, err, "%+v", tc.g)
		}
	}
	for _, tc := range []struct {
		g      Grid
		numCPU int
	}{
		{grid("1.9", "", "0.1"), 2},
		{grid("", "0.02", "0.1"), 2},
		{grid("", "", "0.01"), 64},
		{grid("0.2", "1", "0.8"), 2},
		{grid("4", "", "0.1"), 0}, // the machine unknown: the default can be anything
	} {
		require.NoError(t, tc.g.Check(tc.numCPU), "%+v", tc.g)
	}
	assert.Equal(t, 2.0, grid("", "", "0.1").Top(2))
	assert.Equal(t, 2.1, grid("", "", "0.3").Top(2))
	assert.Equal(t, 0.8, grid("", "0.8", "0.3").Top(2))
	assert.Equal(t, 2.0, Grid{Step: Step{CPUs: 0.1}, Period: time.Millisecond}.Top(1), "twice the kernel's minimum, 1 CPU at 1ms")
	assert.True(t, math.IsInf(grid("", "", "0.1").Top(0), 1))
}

func TestGridLevels(t *testing.T) {
	for _, tc := range []struct {
		min, max, step string
		want           []float64
	}{
		{"0.5", "1", "0.1", []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1}},
		{"0.1", "1", "0.1", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
		// The high end is a level even off the step: it is the bracket's top.
		{"0.5", "0.95", "0.1", []float64{0.5, 0.6, 0.7, 0.8, 0.9, 0.95}},
		// Above a low end off the step, the step's multiples: the limits a
		// person writes.
		{"0.25", "1", "0.1", []float64{0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
		{"0.05", "0.3", "0.1", []float64{0.05, 0.1, 0.2, 0.3}},
		// Geometric, each 10% above the previous, to the microsecond of quota.
		{"1", "2", "10%", []float64{1, 1.1, 1.21, 1.331, 1.4641, 1.61051, 1.77156, 1.94872, 2}},
		{"0.5", "4", "100%", []float64{0.5, 1, 2, 4}},
	} {
		g, err := ParseGrid(tc.min, tc.max, tc.step, ms100)
		require.NoError(t, err)
		got, err := g.Levels(Range{})
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%s to %s by %s", tc.min, tc.max, tc.step)
	}

	// Exactly MaxLevels levels pass; one more is refused.
	g, err := ParseGrid("0.01", "10", "0.01", ms100)
	require.NoError(t, err)
	got, err := g.Levels(Range{})
	require.NoError(t, err)
	assert.Len(t, got, MaxLevels)
	_, err = ParseGrid("0.01", "10.01", "0.01", ms100)
	requireUsage(t, err, "step", "more than 1000 levels")

	// Every level is a whole microsecond of quota, strictly increasing.
	g, err = ParseGrid("0.0123", "3.3", "3%", 250*time.Millisecond)
	require.NoError(t, err)
	got, err = g.Levels(Range{})
	require.NoError(t, err)
	for i, c := range got {
		us := c * 250000
		assert.InDelta(t, math.Round(us), us, 1e-6, "level %d: %v CPUs", i, c)
		if i > 0 {
			assert.Greater(t, c, got[i-1])
		}
		if i > 0 && i < len(got)-1 { // the top is 3.3 itself
			assert.InDelta(t, 1.03, c/got[i-1], 0.001, "level %d", i)
		}
	}
}

// An end not given comes from the default range; a conflict names the
// flag that was given.
func TestGridLevelsFromDefaults(t *testing.T) {
	def := Range{Min: 0.4, Max: 0.8, Why: "from the unlimited arm"}
	g, err := ParseGrid("", "", "0.1", 100*time.Millisecond)
	require.NoError(t, err)
	got, err := g.Levels(def)
	require.NoError(t, err)
	assert.Equal(t, []float64{0.4, 0.5, 0.6, 0.7, 0.8}, got)

	// A default end off the step widens to its multiples; a low end
	// that would fall under the kernel's 1 ms of quota stays.
	g, err = ParseGrid("", "", "0.1", 100*time.Millisecond)
	require.NoError(t, err)
	got, err = g.Levels(Range{Min: 0.4407, Max: 0.8333})
	require.NoError(t, err)
	assert.Equal(t, []float64{0.4, 0.5, 0.6, 0.7, 0.8, 0.9}, got)
	got, err = g.Levels(Range{Min: 0.0407, Max: 0.35})
	require.NoError(t, err)
	assert.Equal(t, []float64{0.0407, 0.1, 0.2, 0.3, 0.4}, got)

	g, err = ParseGrid("0.6", "", "0.1", 100*time.Millisecond)
	require.NoError(t, err)
	got, err = g.Levels(def)
	require.NoError(t, err)
	assert.Equal(t, []float64{0.6, 0.7, 0.8}, got)

	g, _ = ParseGrid("0.9", "", "0.1", 100*time.Millisecond)
	_, err = g.Levels(def)
	requireUsage(t, err, "cpus-min", "invalid --cpus-min 0.9: not below the default --cpus-max 0.8 (from the unlimited arm); give --cpus-max too, or a lower --cpus-min")

	g, _ = ParseGrid("", "0.3", "0.1", 100*time.Millisecond)
	_, err = g.Levels(def)
	requireUsage(t, err, "cpus-max", "invalid --cpus-max 0.3: not above the default --cpus-min 0.4 (from the unlimited arm); give --cpus-min too, or a higher --cpus-max")

	g, _ = ParseGrid("", "", "0.0001", 100*time.Millisecond)
	_, err = g.Levels(Range{Min: 0.1, Max: 4})
	requireUsage(t, err, "step", "more than 1000 levels from 0.1 to 4 CPUs")
}

func TestDefaultRange(t *testing.T) {
	// One CPU throughout but one interval at 2: mean 1.1, peak 2.
	spiky := traceOf(ms100, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1)

	r := DefaultRange(spiky, 1, 4, ms100)
	assert.InDelta(t, 0.99, r.Min, 1e-9, "90% of the mean")
	assert.InDelta(t, 2.2, r.Max, 1e-9, "110% of the peak")
	assert.Contains(t, r.Why, "from 90% of the unlimited arm's mean usage (1.1 CPUs) over the SLO's slack (1) to 110% of its 100ms peak (2 CPUs)")

	// A bound twice the unlimited figure lets a limit of half the mean pass.
	r = DefaultRange(spiky, 2, 4, ms100)
	assert.InDelta(t, 0.495, r.Min, 1e-9)
	// A bound the unlimited arm misses (slack below 1), or none known.
	assert.InDelta(t, 0.99, DefaultRange(spiky, 0.5, 4, ms100).Min, 1e-9)
	assert.InDelta(t, 0.99, DefaultRange(spiky, math.NaN(), 4, ms100).Min, 1e-9)

	// Capped at the CPUs there are.
	r = DefaultRange(spiky, 1, 2, ms100)
	assert.Equal(t, 2.0, r.Max)
	assert.Contains(t, r.Why, "all 2 CPUs")

	// A longer period sees no higher peak; a shorter one may: all CPUs.
	assert.InDelta(t, 2.2, DefaultRange(spiky, 1, 4, 250*time.Millisecond).Max, 1e-9)
	r = DefaultRange(spiky, 1, 4, 10*time.Millisecond)
	assert.Equal(t, 4.0, r.Max)
	assert.Contains(t, r.Why, "a 10ms period's peak is unseen at 100ms")

	// A program that barely ran: the kernel's smallest quota, and twice it.
	r = DefaultRange(traceOf(ms100, 0, 0.001, 0), 1, 4, ms100)
	assert.Equal(t, 0.01, r.Min)
	assert.Equal(t, 0.02, r.Max)

	// The default range always makes a grid.
	for _, tr := range []usage.Trace{spiky, traceOf(ms100, 0, 0), traceOf(ms100, 3.9, 4, 4)} {
		g, err := ParseGrid("", "", "5%", ms100)
		require.NoError(t, err)
		levels, err := g.Levels(DefaultRange(tr, 1.5, 4, ms100))
		require.NoError(t, err)
		assert.GreaterOrEqual(t, len(levels), 2)
	}
}

// A default low end the kernel would refuse is refused, naming --cpus-min;
// DefaultRange never makes one.
func TestGridLevelsRefuseATinyDefault(t *testing.T) {
	g, err := ParseGrid("", "", "5%", time.Millisecond)
	require.NoError(t, err)
	_, err = g.Levels(Range{Min: 0.5, Max: 2, Why: "made up"})
	requireUsage(t, err, "cpus-min", "the default --cpus-min 0.5 (made up) is below the kernel's 1ms of quota per 1ms period; give --cpus-min")
	levels, err := g.Levels(DefaultRange(traceOf(ms100, 0.5, 0.7), 1, 4, time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, 1.0, levels[0])
}

// Whatever the grid's flags are: no panic; an error is one badinput.Error
// line naming one of them; a success is increasing levels the kernel takes.
func FuzzParseGrid(f *testing.F) {
	f.Add("0.5", "1", "0.05", int64(100000))
	f.Add("", "2", "5%", int64(1000))
	f.Add("0.01", "1024", "1%", int64(1000000))
	f.Fuzz(func(t *testing.T, lo, hi, step string, periodUs int64) {
		period := time.Duration(periodUs) * time.Microsecond
		if period < config.MinPeriod || period > config.MaxPeriod {
			return // config refuses it before
		}
		g, err := ParseGrid(lo, hi, step, period)
		if err != nil {
			checkGridUsage(t, err)
			return
		}
		levels, err := g.Levels(Range{Min: 0.5, Max: 2, Why: "fuzz"})
		if err != nil {
			checkGridUsage(t, err)
			return
		}
		if len(levels) < 2 || len(levels) > MaxLevels {
			t.Fatalf("%d levels", len(levels))
		}
		for i, c := range levels {
			if q := c * float64(period) / float64(time.Microsecond); q < 1000 || q > config.MaxCPUs*float64(period/time.Microsecond) {
				t.Fatalf("level %d: %v CPUs is a quota of %vµs", i, c, q)
			}
			if i > 0 && !(c > levels[i-1]) {
				t.Fatalf("levels not increasing: %v", levels)
			}
		}
	})
}

func checkGridUsage(t *testing.T, err error) {
	t.Helper()
	var ce *badinput.Error
	require.True(t, errors.As(err, &ce), "%T is not a badinput.Error: %v", err, err)
	require.Contains(t, []string{"cpus-min", "cpus-max", "step"}, ce.Param)
	requireUsage(t, err, ce.Param, "--"+ce.Param)
}
