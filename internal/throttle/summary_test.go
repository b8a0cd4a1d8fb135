package throttle

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

const ms = int64(1e6)

// ev is an event with times in ms.
func ev(cpu int, tid int32, startMs, endMs int64) Event {
	return Event{CPU: cpu, TID: tid, Start: startMs * ms, End: endMs * ms}
}

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []Event
		lost   uint64
		t0, t1 int64 // ms
		want   Summary
	}{
		{name: "no events", t0: 0, t1: 100, lost: 3,
			want: Summary{Source: "ebpf", CPUs: []CPU{}, EventsLost: 3}},
		{name: "two threads held off together on one CPU count once",
			events: []Event{ev(0, 1, 10, 30), ev(0, 2, 20, 40)}, t0: 0, t1: 100,
			want: Summary{Source: "ebpf", Count: 2, TotalMs: 30, DurationMs: DurationMs{P50: 20, P99: 20, Max: 20},
				CPUs: []CPU{{CPU: 0, Count: 2, TotalMs: 30}}, Groups: unknownGroup(2, 30)}},
		{name: "two CPUs throttled at once count twice",
			events: []Event{ev(1, 7, 10, 30), ev(0, 8, 10, 30)}, t0: 0, t1: 100,
			want: Summary{Source: "ebpf", Count: 2, TotalMs: 40, DurationMs: DurationMs{P50: 20, P99: 20, Max: 20},
				CPUs: []CPU{{CPU: 0, Count: 1, TotalMs: 20}, {CPU: 1, Count: 1, TotalMs: 20}}, Groups: unknownGroup(2, 40)}},
		{name: "clipped to the window",
			events: []Event{
				ev(0, 1, 90, 110),  // 10 ms inside
				ev(0, 1, 190, 250), // 10 ms inside
				ev(0, 1, 50, 80),   // before
				ev(0, 1, 200, 210), // touches the end: no time inside
				ev(2, 1, 80, 100),  // touches the start: no time inside
				ev(2, 1, 120, 120), // no length
				ev(2, 1, 150, 140), // inverted
				ev(3, 1, 0, 1000),  // the whole window
			}, t0: 100, t1: 200,
			want: Summary{Source: "ebpf", Count: 3, TotalMs: 120, DurationMs: DurationMs{P50: 10, P99: 100, Max: 100},
				CPUs: []CPU{{CPU: 0, Count: 2, TotalMs: 20}, {CPU: 3, Count: 1, TotalMs: 100}}, Groups: unknownGroup(3, 120)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Summarize(tc.events, tc.lost, tc.t0*ms, tc.t1*ms)
			got.Warnings = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Summarize =\n%+v, want\n%+v", got, tc.want)
			}
		})
	}
}

// unknownGroup is the one row of events of no known group (id 0), as
// Summarize leaves it before Compare places it.
func unknownGroup(n int, tracedMs float64) []Group {
	return []Group{{CgroupID: 0, Relation: RelationUnknown, Count: n, TracedMs: tracedMs}}
}

// A hundred events of 1, 2, … 100 ms: nearest rank makes p50 the 50th and
// p99 the 99th.
func TestSummarizeDurationPercentiles(t *testing.T) {
	var events []Event
	for i := int64(1); i <= 100; i++ {
		events = append(events, ev(int(i%2), 1, 1000*i, 1000*i+i))
	}
	got := Summarize(events, 0, 0, 1e9*ms).DurationMs
	if want := (DurationMs{P50: 50, P99: 99, Max: 100}); got != want {
		t.Errorf("duration_ms = %+v, want %+v", got, want)
	}
}

// The instances' exact percentiles use gonum's stat.Empirical: ours must
// pick the same value for every n.
func TestNearestRankMatchesEmpirical(t *testing.T) {
	for n := 1; n <= 2000; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i + 1)
		}
		for _, p := range []float64{0.5, 0.9, 0.99, 0.999} {
			if got, want := nearestRank(xs, p), stat.Quantile(p, stat.Empirical, xs, nil); got != want {
				t.Fatalf("n=%d p=%v: nearest rank %v, stat.Empirical %v", n, p, got, want)
			}
		}
	}
}

func TestSummarizeLostCarriedAndWarned(t *testing.T) {
	s := Summarize([]Event{ev(0, 1, 1, 2)}, 12, 0, 10*ms)
	if s.EventsLost != 12 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0].Text, "12") {
		t.Errorf("events_lost %d, warnings %q: want 12 and one warning naming it", s.EventsLost, s.Warnings)
	}
	if s := Summarize(nil, 0, 0, 10*ms); len(s.Warnings) != 0 {
		t.Errorf("no loss, yet warnings %q", s.Warnings)
	}
}

// The issue names the keys: they are a contract.
func TestSummaryJSONKeys(t *testing.T) {
	b, err := json.Marshal(Summarize([]Event{ev(1, 3, 0, 2)}, 1, 0, 10*ms))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"source":"ebpf","count":1,"total_ms":2,"duration_ms":{"p50":2,"p99":2,"max":2},` +
		`"cpus":[{"cpu":1,"count":1,"total_ms":2}],"events_lost":1,` +
		`"groups":[{"cgroup_id":0,"relation":"unknown","count":1,"traced_ms":2,"counter_ms":null}]}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
	b, _ = json.Marshal(Summarize(nil, 0, 0, 10*ms))
	if !strings.Contains(string(b), `"cpus":[]`) {
		t.Errorf("no events: %s, want cpus as an empty array", b)
	}
}

func f64(v float64) *float64 { return &v }
