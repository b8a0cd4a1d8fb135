package throttle

import (
	"math/rand/v2"
	"testing"
)

// synthetic is nEvents events on two CPUs and nSpans request spans of up to
// 20 ms over a window of nEvents ms: throttles of up to 5 ms at random, so
// threads held off together on one CPU overlap now and then.
func synthetic(nEvents, nSpans int) ([]Event, []Span, int64) {
	r := rand.New(rand.NewPCG(3, 4))
	t1 := int64(nEvents) * ms
	events := make([]Event, nEvents)
	for i := range events {
		s := r.Int64N(t1)
		events[i] = Event{CPU: r.IntN(2), TID: int32(r.IntN(16)), Start: s, End: s + r.Int64N(5*ms) + 1}
	}
	spans := make([]Span, nSpans)
	for i := range spans {
		s := r.Int64N(t1)
		spans[i] = Span{Start: s, End: s + r.Int64N(20*ms), CPU: -1}
	}
	return events, spans, t1
}

// BenchmarkPipeline is what a traced latency run does with its events:
// collect them, summarize them, charge each request its overlap. events/s
// is the rate the whole pipeline sustains (10^5 events, 10^4 requests).
func BenchmarkPipeline(b *testing.B) {
	events, spans, t1 := synthetic(100_000, 10_000)
	b.ReportAllocs()
	for b.Loop() {
		c := Collector{Max: 1 << 20}
		for _, e := range events {
			c.Add(e)
		}
		s := c.Summarize(0, 0, t1)
		if s.Count == 0 {
			b.Fatal("no events counted")
		}
		_ = SummarizeRequests(make([]int64, len(spans)), Overlap(spans, c.Events()))
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkOverlap: 10^6 requests against 10^5 events, the size the sort
// and binary search were chosen for.
func BenchmarkOverlap(b *testing.B) {
	events, spans, _ := synthetic(100_000, 1_000_000)
	b.ReportAllocs()
	for b.Loop() {
		_ = Overlap(spans, events)
	}
	b.ReportMetric(float64(len(spans))*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
}
