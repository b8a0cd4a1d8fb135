package runspec

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFixedScheduleIsEvenlySpaced(t *testing.T) {
	s := Schedule(OpenLoop{Rate: 100, Arrivals: ArrivalsFixed, Duration: time.Second})
	require.Len(t, s, 100, "rate × duration arrivals, the last before the end")
	for i, at := range s {
		assert.Equal(t, time.Duration(i)*10*time.Millisecond, at)
	}
}

// Offsets are computed from the index: a gap that does not divide evenly
// into nanoseconds must not drift over a long run.
func TestFixedScheduleDoesNotDrift(t *testing.T) {
	s := Schedule(OpenLoop{Rate: 3, Arrivals: ArrivalsFixed, Duration: time.Hour})
	require.Len(t, s, 3*3600)
	assert.Equal(t, time.Hour-333_333_333*time.Nanosecond, s[len(s)-1])
}

func TestPoissonScheduleIsSeededAndHasTheRate(t *testing.T) {
	o := OpenLoop{Rate: 1000, Arrivals: ArrivalsPoisson, Duration: 10 * time.Second, Seed: 7}
	a, b := Schedule(o), Schedule(o)
	assert.Equal(t, a, b, "the same seed gives the same schedule")
	o.Seed = 8
	assert.NotEqual(t, a, Schedule(o), "another seed gives another schedule")

	// 10 000 expected, σ = 100: five σ either way.
	assert.InDelta(t, 10_000, len(a), 500)
	assert.True(t, slices.IsSorted(a))
	assert.Less(t, a[len(a)-1], o.Duration)
	// Exponential gaps: as many below the mean's ln 2 (the median) as above.
	median := nanos(math.Ln2 / 1000)
	below := 0
	for i := 1; i < len(a); i++ {
		if a[i]-a[i-1] < median {
			below++
		}
	}
	assert.InDelta(t, 0.5, float64(below)/float64(len(a)-1), 0.025)
}

// The on/off shape: each cycle's requests crowd into its On window, evenly
// spread; none arrive during Off; the mean rate over whole cycles is Rate.
func TestOnOffScheduleShape(t *testing.T) {
	o := OpenLoop{Rate: 100, Arrivals: ArrivalsOnOff, On: 100 * time.Millisecond, Off: 900 * time.Millisecond, Duration: 3 * time.Second}
	s := Schedule(o)
	require.Len(t, s, 300)
	for i, at := range s {
		cycle, j := i/100, i%100
		assert.Equal(t, time.Duration(cycle)*time.Second+time.Duration(j)*time.Millisecond, at, "request %d", i)
	}
	assert.Equal(t, s, Schedule(o), "deterministic")
}

// A cycle that holds a fraction of a request: the requests go to every few
// cycles, at the start of their On window, and the mean rate holds.
func TestOnOffScheduleFractionalCycles(t *testing.T) {
	s := Schedule(OpenLoop{Rate: 2.5, Arrivals: ArrivalsOnOff, On: 50 * time.Millisecond, Off: 150 * time.Millisecond, Duration: 10 * time.Second})
	require.Len(t, s, 25, "2.5/s for 10 s")
	for _, at := range s {
		assert.Less(t, at%(200*time.Millisecond), 50*time.Millisecond, "inside an On window")
	}
	assert.True(t, slices.IsSorted(s))
}

// Edge values the config layer may let through end quickly with a
// sensible schedule: no hang, no panic.
func TestScheduleEdges(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    OpenLoop
		want int
	}{
		{"no rate", OpenLoop{Rate: 0, Duration: time.Second}, 0},
		{"NaN rate", OpenLoop{Rate: math.NaN(), Duration: time.Second}, 0},
		{"infinite rate", OpenLoop{Rate: math.Inf(1), Duration: time.Second}, 0},
		{"no duration", OpenLoop{Rate: 100}, 0},
		{"tiny fixed rate: one at the start", OpenLoop{Rate: 1e-9, Arrivals: ArrivalsFixed, Duration: time.Hour}, 1},
		{"tiny poisson rate", OpenLoop{Rate: 1e-9, Arrivals: ArrivalsPoisson, Duration: time.Hour, Seed: 1}, 0},
		{"tiny onoff rate, 1 ns cycles: none, found without walking them", OpenLoop{Rate: 1e-9, Arrivals: ArrivalsOnOff, On: 1, Duration: time.Hour}, 0},
		{"On is the whole cycle", OpenLoop{Rate: 10, Arrivals: ArrivalsOnOff, On: time.Second, Duration: time.Second}, 10},
		{"negative Off is none", OpenLoop{Rate: 10, Arrivals: ArrivalsOnOff, On: time.Second, Off: -time.Second, Duration: time.Second}, 10},
		{"zero cycle falls back to fixed", OpenLoop{Rate: 10, Arrivals: ArrivalsOnOff, Duration: time.Second}, 10},
		{"On of zero: each cycle a burst", OpenLoop{Rate: 10, Arrivals: ArrivalsOnOff, Off: 500 * time.Millisecond, Duration: time.Second}, 10},
		{"unknown arrivals read as fixed", OpenLoop{Rate: 10, Arrivals: "bursty", Duration: time.Second}, 10},
		{"capped at MaxRequests", OpenLoop{Rate: 1e12, Arrivals: ArrivalsFixed, Duration: time.Hour}, MaxRequests},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Schedule(tc.o)
			assert.Len(t, s, tc.want)
			assert.True(t, slices.IsSorted(s))
		})
	}
}
