package throttle

import (
	"reflect"
	"strings"
	"testing"
)

func TestCollectorKeepsAll(t *testing.T) {
	var c Collector
	want := []Event{ev(0, 1, 0, 5), ev(1, 2, 3, 9)}
	for _, e := range want {
		c.Add(e)
	}
	if !reflect.DeepEqual(c.Events(), want) || c.Truncated() {
		t.Errorf("Max 0: events %v, truncated %v; want all kept", c.Events(), c.Truncated())
	}
	if s := c.Summarize(0, 0, 100*ms); s.Truncated != nil || s.Count != 2 {
		t.Errorf("not truncated: summary count %d, truncated %+v", s.Count, s.Truncated)
	}
}

func TestCollectorBounded(t *testing.T) {
	c := Collector{Max: 2}
	for _, e := range []Event{
		ev(0, 1, 10, 20), ev(0, 2, 15, 25), // kept
		ev(1, 3, 40, 45), ev(0, 1, 30, 33), ev(1, 3, 50, 60), ev(1, 4, 70, 65), // counted
	} {
		c.Add(e)
	}
	if len(c.Events()) != 2 || !c.Truncated() {
		t.Fatalf("kept %d, truncated %v; want 2 and true", len(c.Events()), c.Truncated())
	}
	s := c.Summarize(4, 0, 1000*ms)
	if s.Count != 2 || s.TotalMs != 15 || s.EventsLost != 4 {
		t.Errorf("kept summary: count %d total %v lost %d; want 2, 15 ms, 4", s.Count, s.TotalMs, s.EventsLost)
	}
	want := &Truncation{EventsKept: 2, EventsNotKept: 4, NotKeptSumMs: 18, FromMs: 30,
		CPUs: []DroppedCPU{{CPU: 0, Count: 1, SumMs: 3}, {CPU: 1, Count: 3, SumMs: 15}}}
	if !reflect.DeepEqual(s.Truncated, want) {
		t.Errorf("truncated %+v, want %+v", s.Truncated, want)
	}
	if len(s.Warnings) != 2 || !strings.Contains(s.Warnings[1].Text, "4 more") {
		t.Errorf("warnings %q: want the lost one and one naming the 4 not kept", s.Warnings)
	}
	// The counter is compared with all the traced time, the not-kept
	// events' summed durations included.
	Compare(&s, []Counter{{ID: 0, Path: "/t", Relation: RelationTarget, CounterMs: f64(33)}}, false)
	if s.Agreement.TracedMs != 33 || len(s.Warnings) != 2 {
		t.Errorf("traced %v, warnings %q; want 15+18 = 33 and no disagreement", s.Agreement.TracedMs, s.Warnings)
	}
}
