package throttle

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sp is a span with times in ms.
func sp(startMs, endMs int64, cpu int) Span {
	return Span{Start: startMs * ms, End: endMs * ms, CPU: cpu}
}

func TestOverlap(t *testing.T) {
	// CPU 0 throttled over [10, 30) ms by two threads, CPU 1 over [20, 30)
	// and [50, 60): the union over CPUs is [10, 30) and [50, 60).
	events := []Event{ev(0, 1, 10, 25), ev(0, 2, 15, 30), ev(1, 3, 20, 30), ev(1, 3, 50, 60)}
	for _, tc := range []struct {
		name string
		span Span
		all  int64 // ms
	}{
		{"covers everything", sp(0, 100, -1), 30},
		{"starts and ends inside intervals", sp(20, 55, -1), 15},
		{"inside one interval", sp(15, 25, -1), 10},
		{"in the gap, touching both", sp(30, 50, -1), 0},
		{"after everything", sp(60, 70, -1), 0},
		{"before everything", sp(0, 10, -1), 0},
		{"empty", sp(20, 20, -1), 0},
		{"inverted", sp(25, 15, -1), 0},
		{"from inside to past the end", sp(55, 200, -1), 5},
		{"two CPUs at once count once", sp(20, 30, -1), 10},
		{"on CPU 0", sp(0, 100, 0), 30},
		{"on CPU 1", sp(0, 100, 1), 30},
		{"on CPU 1 inside", sp(12, 52, 1), 20},
		{"on a CPU never throttled", sp(0, 100, 5), 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Overlap([]Span{tc.span}, events)[0]; got != tc.all*ms {
				t.Errorf("Overlap = %d ns, want %d ms", got, tc.all)
			}
		})
	}
}

func TestOverlapEmpty(t *testing.T) {
	if got := Overlap(nil, []Event{ev(0, 1, 0, 5)}); len(got) != 0 {
		t.Errorf("no spans: %v", got)
	}
	got := Overlap([]Span{sp(0, 10, -1), sp(5, 6, 2)}, nil)
	if !slices.Equal(got, []int64{0, 0}) {
		t.Errorf("no events: %v, want zeros", got)
	}
}

// The binary search over prefix sums against the plain rule, on random
// events and spans: clip the union to the span and add up.
func TestOverlapMatchesClippedUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var events []Event
		for range r.IntN(30) {
			s := r.Int64N(1000)
			events = append(events, Event{CPU: r.IntN(3), Start: s, End: s + r.Int64N(100) - 5})
		}
		var spans []Span
		for range 20 {
			s := r.Int64N(1100) - 50
			spans = append(spans, Span{Start: s, End: s + r.Int64N(300) - 10, CPU: r.IntN(4) - 1})
		}
		all := Overlap(spans, events)
		for i, s := range spans {
			var ivs []Interval
			for _, e := range events {
				ivs = append(ivs, Interval{e.Start, e.End})
			}
			if want := totalLen(Clip(Union(ivs), s.Start, s.End)); all[i] != want {
				t.Fatalf("trial %d span %+v: Overlap %d, want %d", trial, s, all[i], want)
			}
		}
	}
}

func TestThrottledMsPerIteration(t *testing.T) {
	events := []Event{ev(0, 1, 10, 30), ev(1, 2, 20, 40), ev(0, 1, 150, 160)}
	got := ThrottledMsPerIteration([]Span{sp(0, 100, -1), sp(100, 200, -1), sp(200, 300, -1)}, events)
	if want := []float64{30, 10, 0}; !slices.Equal(got, want) {
		t.Errorf("throttled_ms_per_iteration = %v, want %v", got, want)
	}
}
