package size

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/usage"
)

const ms100 = 100 * time.Millisecond

// windowsOf is a 100 ms trace of windows of k intervals, window j using
// cpus[j] on average: its intervals alternate d below and d above, so a
// rule that read single intervals, not windows, would see other values.
func windowsOf(k int, d float64, cpus ...float64) usage.Trace {
	var per []float64
	for _, c := range cpus {
		for i := range k {
			per = append(per, c+d*float64(1-2*(i%2)))
		}
	}
	return traceOf(ms100, per...)
}

func TestVPA(t *testing.T) {
	// 10 s: windows of 1 s (the longest with 10 of them), using 0.1 … 1.0
	// CPUs. R-7's p90 of those is 0.91; × 1.15.
	var cpus []float64
	for j := 1; j <= 10; j++ {
		cpus = append(cpus, float64(j)/10)
	}
	r := VPA(windowsOf(10, 0.05, cpus...))
	require.True(t, r.Computed())
	assert.Equal(t, "vpa", r.Name)
	assert.InDelta(t, 0.91*1.15, r.CPUs, 1e-9)
	assert.Contains(t, r.Note, "p90 of 10 windows of 1s × 1.15, VPA's target (a request: VPA keeps the limit:request ratio); VPA samples each 1m0s (these are 60× shorter) over about 8 days (this run is 10s, 1/69120 of that)")
	assert.Contains(t, r.Note, "of 10 windows, p90 lies between the two busiest")

	// 20 minutes: VPA's own minute, 20 windows using 0, 0.05 … 0.95.
	cpus = nil
	for j := range 20 {
		cpus = append(cpus, float64(j)*0.05)
	}
	r = VPA(windowsOf(600, 0.01, cpus...))
	require.True(t, r.Computed())
	assert.InDelta(t, 0.855*1.15, r.CPUs, 1e-9) // x17 + 0.1 (x18 - x17)
	assert.Contains(t, r.Note, "p90 of 20 windows of 1m0s")
	assert.Contains(t, r.Note, "(these are as long)")
	assert.NotContains(t, r.Note, "busiest")

	// Under a second of 100 ms intervals: no p90 of ten windows.
	r = VPA(traceOf(ms100, 1, 1, 1, 1, 1, 1, 1, 1, 1))
	assert.False(t, r.Computed())
	assert.Equal(t, "not computed: p90 needs at least 10 usage intervals; the run has 9 intervals", r.Note)
}

func TestKrr(t *testing.T) {
	// 30 windows of 75 s using 1/30 … 30/30 CPUs: R-7's p96 is
	// x27 + 0.84 (x28 - x27) = 28.84/30.
	var cpus []float64
	for j := 1; j <= 30; j++ {
		cpus = append(cpus, float64(j)/30)
	}
	r := Krr(windowsOf(750, 0.01, cpus...))
	require.True(t, r.Computed())
	assert.Equal(t, "krr", r.Name)
	assert.InDelta(t, 28.84/30, r.CPUs, 1e-7) // usage in whole ns
	assert.Equal(t, "p96 of 30 windows of 1m15s, krr's simple-limit; krr looks back 14 days (this run is 37m30s, 1/538 of that)", r.Note)

	// 12 windows: computed, and said to be near the peak.
	r = Krr(windowsOf(750, 0, cpus[:12]...))
	require.True(t, r.Computed())
	assert.InDelta(t, (11+0.56)/30, r.CPUs, 1e-7) // h = 11 × 0.96 = 10.56
	assert.Contains(t, r.Note, "; of 12 windows, p96 lies between the two busiest")

	// A 100 ms short of ten windows: not computed, and why.
	per := make([]float64, 10*750-1)
	for i := range per {
		per[i] = 0.5
	}
	r = Krr(traceOf(ms100, per...))
	assert.False(t, r.Computed())
	assert.True(t, math.IsNaN(r.CPUs))
	assert.Equal(t, "not computed: p96 of 1m15s windows needs at least 10 windows (12m30s of usage); the run has 12m29.9s", r.Note)
}

func TestSample(t *testing.T) {
	// 300 intervals: 3 may lie above, so the limit is the 4th busiest.
	per := make([]float64, 300)
	for i := range per {
		per[i] = 0.5
	}
	per[10], per[50], per[90], per[200] = 3, 2.5, 2, 1.5
	r := Sample(traceOf(ms100, per...))
	require.True(t, r.Computed())
	assert.Equal(t, "sample", r.Name)
	assert.InDelta(t, 1.5, r.CPUs, 1e-9)
	assert.Equal(t, "at most 1% of the 100ms intervals above it, as sample's advice: 3 of 300 here", r.Note)

	// Under 100 intervals none may lie above: the peak.
	r = Sample(traceOf(ms100, 0.5, 2, 0.5))
	assert.InDelta(t, 2, r.CPUs, 1e-9)
	assert.Contains(t, r.Note, "0 of 3 here, so its peak")

	r = Sample(usage.Trace{Interval: ms100})
	assert.False(t, r.Computed())
	assert.Equal(t, "not computed: the run has no usage interval", r.Note)
}

func TestRules(t *testing.T) {
	rs := Rules(traceOf(ms100, 1, 2, 1))
	require.Len(t, rs, 3)
	assert.Equal(t, []string{"vpa", "krr", "sample"}, []string{rs[0].Name, rs[1].Name, rs[2].Name})
	assert.False(t, rs[0].Computed())
	assert.False(t, rs[1].Computed())
	assert.True(t, rs[2].Computed())

	// A program that used no CPU: no rule sets a limit of 0, which is no
	// limit to apply (docker run --cpus 0 is none); each says so.
	idle := make([]float64, 20)
	rs = Rules(traceOf(ms100, idle...))
	for _, r := range rs {
		assert.False(t, r.Computed(), r.Name)
		assert.True(t, math.IsNaN(r.CPUs), r.Name)
	}
	assert.Equal(t, "no CPU used: no limit to advise (at most 1% of the 100ms intervals above it, as sample's advice: 0 of 20 here, so its peak)", rs[2].Note)
	assert.True(t, strings.HasPrefix(rs[0].Note, "no CPU used: no limit to advise (p90 of 10 windows"), rs[0].Note)
	assert.Equal(t, "not computed: p96 of 1m15s windows needs at least 10 windows (12m30s of usage); the run has 2s", rs[1].Note, "not computed before: as it was")

	// Some CPU in a few intervals: sample's rule is their peak, not 0.
	idle[7] = 0.3
	rs = Rules(traceOf(ms100, idle...))
	assert.InDelta(t, 0.3, rs[2].CPUs, 1e-9)
}

func TestJoin(t *testing.T) {
	// Two windows, each sampled in a slice of its own that started at a
	// different time with a different counter.
	a := usage.Trace{Interval: ms100, Samples: []usage.Sample{{At: 5 * ms100, Usage: 7 * time.Second}, {At: 6 * ms100, Usage: 7*time.Second + 100*time.Millisecond}}}
	b := usage.Trace{Interval: ms100, Samples: []usage.Sample{{At: 0, Usage: 0}, {At: ms100, Usage: 200 * time.Millisecond}, {At: 2 * ms100, Usage: 250 * time.Millisecond}}}
	j := Join(a, usage.Trace{}, b)
	require.NoError(t, j.Check())
	assert.Equal(t, ms100, j.Interval)
	assert.Equal(t, 3, j.Len())
	got := j.CPUs()
	want := []float64{1, 2, 0.5}
	for i := range want {
		assert.InDelta(t, want[i], got[i], 1e-12, "interval %d", i)
	}
	assert.Equal(t, 0, Join().Len())
}
