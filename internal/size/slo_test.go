package size

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/report"
)

func TestParseSLO(t *testing.T) {
	for _, tc := range []struct {
		in   string
		m    Metric
		want SLO
		str  string
	}{
		{"p99<=50ms", ResponseTimes, SLO{Stat: "p99", Metric: ResponseTimes, Limit: 50 * time.Millisecond}, "p99<=50ms"},
		{" P99.9 <= 1.5ms ", ResponseTimes, SLO{Stat: "p99.9", Metric: ResponseTimes, Limit: 1500 * time.Microsecond}, "p99.9<=1.5ms"},
		{"p999<=2s", ResponseTimes, SLO{Stat: "p99.9", Metric: ResponseTimes, Limit: 2 * time.Second}, "p99.9<=2s"},
		{"p50<500us", ResponseTimes, SLO{Stat: "p50", Metric: ResponseTimes, Strict: true, Limit: 500 * time.Microsecond}, "p50<500µs"},
		{"p95<=400ms", Durations, SLO{Stat: "p95", Metric: Durations, Limit: 400 * time.Millisecond}, "p95<=400ms"},
		{"mean<=1.2x", Durations, SLO{Stat: "mean", Metric: Durations, Factor: 1.2}, "mean<=1.2x"},
		{"mean <= 1.50 x", Durations, SLO{Stat: "mean", Metric: Durations, Factor: 1.5}, "mean<=1.5x"},
		{"p99<=1.05x", ResponseTimes, SLO{Stat: "p99", Metric: ResponseTimes, Factor: 1.05}, "p99<=1.05x"},
		// A space between the number and its unit, as people write it.
		{"p99 <= 50 ms", ResponseTimes, SLO{Stat: "p99", Metric: ResponseTimes, Limit: 50 * time.Millisecond}, "p99<=50ms"},
		{"mean < 1.2 x", Durations, SLO{Stat: "mean", Metric: Durations, Strict: true, Factor: 1.2}, "mean<1.2x"},
		{"p99<50ms", ResponseTimes, SLO{Stat: "p99", Metric: ResponseTimes, Strict: true, Limit: 50 * time.Millisecond}, "p99<50ms"},
	} {
		s, err := ParseSLO(tc.in, tc.m)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, s, tc.in)
		assert.Equal(t, tc.str, s.String(), tc.in)
		// The canonical form reads back as the same SLO.
		back, err := ParseSLO(s.String(), tc.m)
		require.NoError(t, err, s.String())
		assert.Equal(t, s, back, s.String())
	}
}

// Every statistic the measure allows round-trips, absolute and relative.
func TestSLORoundTripsEveryStat(t *testing.T) {
	for _, m := range []Metric{Durations, ResponseTimes} {
		for _, st := range Allowed(m) {
			for _, in := range []string{st + "<=20ms", st + "<3s", st + "<=2x", st + "<1.25x"} {
				s, err := ParseSLO(in, m)
				require.NoError(t, err, in)
				assert.Equal(t, in, s.String())
			}
		}
	}
}

// Each refusal is one line, a badinput.Error naming --slo, quoting the value
// and saying what is allowed.
func TestParseSLORefuses(t *testing.T) {
	for _, tc := range []struct {
		in   string
		m    Metric
		want string
	}{
		{"fast", Durations, `invalid --slo "fast": want a statistic, <= and a bound, such as p99<=50ms, or mean<=1.2x`},
		{"", ResponseTimes, `invalid --slo "": want a statistic`},
		{"p99>=50ms", ResponseTimes, `invalid --slo "p99>=50ms": an SLO bounds p99 from above; use <= (or <)`},
		{"p99>50ms", ResponseTimes, "use <= (or <)"},
		{"p99=50ms", ResponseTimes, "use <= (or <)"},
		{"p99==50ms", ResponseTimes, "use <= (or <)"},
		{"mean<=5ms", ResponseTimes, `invalid --slo "mean<=5ms": "mean" is no statistic of response times (the open loop, --target); want one of p50, p90, p99, p99.9`},
		{"p99.9<=5s", Durations, `"p99.9" is no statistic of durations (a command, the built-in closed loop); want one of mean, p50, p90, p95, p99`},
		{"p95<=5ms", ResponseTimes, `"p95" is no statistic of response times`},
		{"<=5ms", Durations, `"" is no statistic`},
		{"p99<=0ms", ResponseTimes, `invalid --slo "p99<=0ms": want a bound above 0, a duration such as 50ms or a factor`},
		{"p99<=-5ms", ResponseTimes, "want a bound above 0"},
		// A bound without a unit: what it may have meant.
		{"p99<=50", ResponseTimes, `invalid --slo "p99<=50": a bound needs a unit: 50ms?`},
		{"p99<=1.5", ResponseTimes, `invalid --slo "p99<=1.5": a bound needs a unit: 1.5ms or 1.5x?`},
		{"mean<3", Durations, `invalid --slo "mean<3": a bound needs a unit: 3ms or 3x?`},
		{"p99 <= 250", ResponseTimes, `invalid --slo "p99 <= 250": a bound needs a unit: 250ms?`},
		{"p99<=1", ResponseTimes, "a bound needs a unit: 1ms?"},
		{"p99<=0", ResponseTimes, `invalid --slo "p99<=0": want a bound above 0`},
		{"p99<=5 0ms", ResponseTimes, "want a bound above 0, a duration such as 50ms"},
		{"p99<=50 ms ms", ResponseTimes, "want a bound above 0, a duration such as 50ms"},
		{"p99<=", ResponseTimes, "want a bound above 0"},
		{"mean<=1x", Durations, `invalid --slo "mean<=1x": want a factor above 1 and at most 100, such as 1.2x (within 20% of the unlimited run's mean); a limit never makes a program faster`},
		{"mean<=0.8x", Durations, "want a factor above 1"},
		{"mean<=NaNx", Durations, "want a factor above 1"},
		{"mean<=infx", Durations, "want a factor above 1"},
		{"mean<=120x", Durations, "at most 100"},
	} {
		_, err := ParseSLO(tc.in, tc.m)
		require.Error(t, err, tc.in)
		var ce *badinput.Error
		require.True(t, errors.As(err, &ce), "%q: %T is not a badinput.Error (exit 2)", tc.in, err)
		assert.Equal(t, "slo", ce.Param, tc.in)
		assert.Contains(t, err.Error(), tc.want, tc.in)
		assert.Contains(t, err.Error(), "--slo", tc.in)
		assert.NotContains(t, err.Error(), "\n", tc.in)
	}
}

func TestSLOJudgesAWindow(t *testing.T) {
	abs, err := ParseSLO("p99<=50ms", ResponseTimes)
	require.NoError(t, err)
	assert.True(t, abs.Meets(50, math.NaN()), "the bound itself passes <=; the unlimited figure does not matter")
	assert.True(t, abs.Meets(12.5, 1))
	assert.False(t, abs.Meets(50.001, 1))
	assert.False(t, abs.Meets(math.NaN(), 1), "no figure (no request completed) fails")
	assert.Equal(t, 50.0, abs.BoundMs(7))
	assert.InDelta(t, 50.0/20, abs.Slack(20), 1e-12)
	assert.True(t, math.IsNaN(abs.Slack(0)))

	strict, err := ParseSLO("p99<50ms", ResponseTimes)
	require.NoError(t, err)
	assert.False(t, strict.Meets(50, 1), "< fails at the bound")
	assert.True(t, strict.Meets(49.9, 1))
	assert.Equal(t, "p99<50ms", strict.String(), "printed as <, never as <=")

	// Strictly less of a relative bound too: at 1.5 × 40 ms, <= passes, < fails.
	le, err := ParseSLO("mean<=1.5x", Durations)
	require.NoError(t, err)
	lt, err := ParseSLO("mean<1.5x", Durations)
	require.NoError(t, err)
	assert.True(t, le.Meets(60, 40))
	assert.False(t, lt.Meets(60, 40))
	assert.True(t, lt.Meets(59.99, 40))
	assert.Equal(t, "mean<1.5x", lt.String())

	rel, err := ParseSLO("mean<=1.2x", Durations)
	require.NoError(t, err)
	assert.InDelta(t, 120.0, rel.BoundMs(100), 1e-9)
	assert.True(t, rel.Meets(119.9, 100))
	assert.False(t, rel.Meets(120.1, 100))
	assert.False(t, rel.Meets(1, math.NaN()), "a relative bound without the unlimited figure fails")
	assert.False(t, rel.Meets(1, 0))
	assert.Equal(t, 1.2, rel.Slack(math.NaN()))
}

func TestSLOReadsAWindowsFigure(t *testing.T) {
	// 1..100 ms: R-7's p95 is 95.05, as numpy.percentile gives.
	var d []float64
	for i := 100; i >= 1; i-- {
		d = append(d, float64(i))
	}
	r := report.Report{DurationsMs: d, Stats: report.Stats{N: 100, MeanMs: 50.5, P50Ms: 50.5, P90Ms: 90.1, P99Ms: 99.01}}
	for st, want := range map[string]float64{"mean": 50.5, "p50": 50.5, "p90": 90.1, "p95": 95.05, "p99": 99.01} {
		s, err := ParseSLO(st+"<=1s", Durations)
		require.NoError(t, err)
		assert.InDelta(t, want, s.FromRun(r), 1e-9, st)
	}
	s, _ := ParseSLO("p99<=1s", Durations)
	assert.True(t, math.IsNaN(s.FromRun(report.Report{})), "a window with no durations has no figure")

	l := report.LatencyMs{Mean: 3, P50: 1, P90: 2, P99: 4, P999: 8}
	for st, want := range map[string]float64{"p50": 1, "p90": 2, "p99": 4, "p99.9": 8} {
		s, err := ParseSLO(st+"<=1s", ResponseTimes)
		require.NoError(t, err)
		assert.Equal(t, want, s.FromLatency(l), st)
		assert.True(t, math.IsNaN(s.FromLatency(report.LatencyMs{None: true})), "no request completed: no figure")
	}
	// A statistic of the other measure has no figure here.
	mean, _ := ParseSLO("mean<=1s", Durations)
	assert.True(t, math.IsNaN(mean.FromLatency(l)))
	p999, _ := ParseSLO("p99.9<=1s", ResponseTimes)
	assert.True(t, math.IsNaN(p999.FromRun(r)))
}

// Whatever --slo is: no panic; an error is one badinput.Error line naming
// --slo; a success prints back canonically as the same SLO.
func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"p99<=50ms", "mean<=1.2x", "p99.9 < 2s", "p95>=1s", "p50<=", "<=", "p99<=1e308x", "p999<=-0s"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, v string, open bool) {
		m := Durations
		if open {
			m = ResponseTimes
		}
		s, err := ParseSLO(v, m)
		if err != nil {
			requireUsage(t, err, "slo", "invalid --slo")
			return
		}
		back, err := ParseSLO(s.String(), m)
		if err != nil || back != s {
			t.Fatalf("%q → %q reads back as %+v, %v; want %+v", v, s.String(), back, err, s)
		}
		if !(s.BoundMs(1) > 0) {
			t.Fatalf("%q: bound %v", v, s.BoundMs(1))
		}
	})
}
