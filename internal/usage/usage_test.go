package usage

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ms100 = 100 * time.Millisecond

// trace makes a trace of back-to-back 100 ms intervals with these CPU
// milliseconds used in each.
func trace(usedMs ...float64) Trace {
	t := Trace{Interval: ms100, Samples: []Sample{{}}}
	var u time.Duration
	for i, m := range usedMs {
		u += time.Duration(m * float64(time.Millisecond))
		t.Samples = append(t.Samples, Sample{At: time.Duration(i+1) * ms100, Usage: u})
	}
	return t
}

// spiky: 1.3 CPUs over its first second with a 4-CPU spike, 0.7 over its
// second with a 2.5-CPU one.
var spiky = trace(
	100, 100, 100, 400, 100, 100, 100, 100, 100, 100,
	50, 50, 50, 50, 250, 50, 50, 50, 50, 50,
)

func TestCPUs(t *testing.T) {
	assert.Equal(t, []float64{1, 1, 1, 4, 1, 1, 1, 1, 1, 1, .5, .5, .5, .5, 2.5, .5, .5, .5, .5, .5}, spiky.CPUs())

	// Late and early readings: usage is over the span actually covered.
	tr := Trace{Interval: ms100, Samples: []Sample{
		{At: 0, Usage: 0},
		{At: 125 * time.Millisecond, Usage: 250 * time.Millisecond},
		{At: 200 * time.Millisecond, Usage: 250 * time.Millisecond},
		{At: 300 * time.Millisecond, Usage: 400 * time.Millisecond},
	}}
	assert.Equal(t, []float64{2, 0, 1.5}, tr.CPUs())
	require.NoError(t, tr.Check())

	tr.Samples[3].Usage = 100 * time.Millisecond
	assert.ErrorIs(t, tr.Check(), ErrBackwards)
	tr.Samples[3] = Sample{At: 200 * time.Millisecond, Usage: time.Second}
	assert.ErrorContains(t, tr.Check(), "is not after")
}

func TestCoarse(t *testing.T) {
	assert.Equal(t, 10, spiky.Per(time.Second))
	c := spiky.Coarse(spiky.Per(time.Second))
	assert.Equal(t, time.Second, c.Interval)
	assert.Equal(t, []float64{1.3, 0.7}, c.CPUs())

	// 25 intervals: the last 5 make no full second and are left out.
	assert.Equal(t, 2, trace(make([]float64, 25)...).Coarse(10).Len())
	assert.Equal(t, 3, Trace{Interval: 300 * time.Millisecond}.Per(time.Second))
	assert.Equal(t, 1, Trace{Interval: 2 * time.Second}.Per(time.Second))
	assert.Equal(t, spiky, spiky.Coarse(1))
}

func TestSummarize(t *testing.T) {
	s := Summarize(spiky, 2)
	assert.Equal(t, ms100, s.Window)
	assert.Equal(t, 20, s.N)
	assert.InDelta(t, 1.0, s.Mean, 1e-12)
	assert.Equal(t, 4.0, s.Max)
	assert.Equal(t, 0.1, s.AboveLimit, "4 and 2.5 are above 2: 2 of 20")

	c := Summarize(spiky.Coarse(10), 2)
	assert.Equal(t, 0.0, c.AboveLimit, "at 1 s the limit of 2 is never exceeded")
	assert.InDelta(t, 1.3, c.Max, 1e-12)

	assert.True(t, math.IsNaN(Summarize(spiky, 0).AboveLimit), "no limit, no share")
	// A value equal to the limit is not above it.
	assert.Equal(t, 0.05, AboveFraction(spiky.CPUs(), 2.5))
	assert.Equal(t, 0.0, AboveFraction(nil, 1))
}

func TestLimitFor(t *testing.T) {
	cpus := spiky.CPUs()
	tests := []struct {
		target, want float64
	}{
		{0.01, 4},   // ⌊0.2⌋ = 0 above: the max
		{0.05, 2.5}, // 1 of 20 may be above
		{0.099, 2.5},
		{0.10, 1}, // 2 may be above: the third largest
		{0.5, 1},
		{0.99, 0.5},
	}
	for _, tt := range tests {
		got := LimitFor(cpus, tt.target)
		assert.Equal(t, tt.want, got, "target %v", tt.target)
		assert.LessOrEqual(t, AboveFraction(cpus, got), tt.target)
	}
	assert.Equal(t, 0.0, LimitFor(nil, 0.01))
}

func TestBurst(t *testing.T) {
	tests := []struct {
		name  string
		tr    Trace
		limit float64
		want  time.Duration
	}{
		// 400 ms used against 200 ms of quota; the 250 ms spike needs 50 ms.
		{"spikes above 2 CPUs", spiky, 2, 200 * time.Millisecond},
		// At 1 CPU the first second never refills what its spike took (it
		// runs at the limit), the second refills 50 ms per interval, its
		// spike takes 150 ms back: 300 ms is the worst.
		{"spikes above 1 CPU", spiky, 1, 300 * time.Millisecond},
		{"never above", spiky, 4, 0},
		// Two spikes close together add up (the 150 ms between them refills
		// only 50 ms); farther apart, the bucket is full again.
		{"close spikes add up", trace(300, 150, 300), 2, 150 * time.Millisecond},
		{"far spikes do not", trace(300, 150, 150, 300), 2, 100 * time.Millisecond},
		{"empty", Trace{Interval: ms100}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Burst(tt.tr, tt.limit))
		})
	}
}

// The replay with a bucket of the size Burst returns never runs dry, and
// one a microsecond smaller does: Burst is the smallest.
func TestBurstIsSmallest(t *testing.T) {
	for _, limit := range []float64{1, 1.5, 2, 3} {
		b := Burst(spiky, limit)
		if b == 0 {
			continue
		}
		assert.True(t, absorbs(spiky, limit, b), "limit %v burst %v", limit, b)
		assert.False(t, absorbs(spiky, limit, b-time.Microsecond), "limit %v burst %v", limit, b)
	}
}

// absorbs replays t through a full token bucket of capacity b.
func absorbs(t Trace, limit float64, b time.Duration) bool {
	level := float64(b)
	for i := range t.Len() {
		level += limit*float64(t.Span(i)) - float64(t.Used(i))
		if level < -1e-6 {
			return false
		}
		level = math.Min(level, float64(b))
	}
	return true
}

// A File's trace views the same usage at 1 s as the recording did, uneven
// intervals included.
func TestFileTraceRoundTrips(t *testing.T) {
	uneven := trace(100, 100, 100, 400, 100, 100, 100, 100, 100, 100, 50)
	uneven.Samples[3].At += 7 * time.Millisecond // a late reading
	uneven.Samples[3].Usage += 3 * time.Millisecond
	f := Build(Recording{Trace: uneven}, Meta{Target: 0.01})
	back := f.Trace()
	assert.Equal(t, uneven.Interval, back.Interval)
	assert.Equal(t, uneven.Len(), back.Len())
	for i, want := range uneven.CPUs() {
		assert.InDelta(t, want, back.CPUs()[i], 1e-9, "interval %d", i)
	}
	coarse := back.Coarse(back.Per(CoarseWindow))
	require.Equal(t, 1, coarse.Len(), "the 11th interval is left over")
	assert.InDelta(t, 1.3, coarse.CPUs()[0], 1e-9)
}
