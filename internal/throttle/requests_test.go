package throttle

import (
	"reflect"
	"testing"
)

func msSlice(vs ...int64) []int64 {
	out := make([]int64, len(vs))
	for i, v := range vs {
		out[i] = v * ms
	}
	return out
}

func TestSummarizeRequests(t *testing.T) {
	// Five requests; the slowest spent 40 of its 50 ms throttled.
	got := SummarizeRequests(msSlice(3, 1, 50, 2, 4), msSlice(0, 0, 40, 0, 0))
	want := Requests{
		ThrottledRequests:  1,
		RequestThrottledMs: &ThrottledMs{Mean: 40, P99: 40, Max: 40},
		// Nearest rank over 1, 2, 3, 4: p50 the 2nd, p90 and up the 4th.
		LatencyMsUnthrottled: &LatencyMs{Mean: 2.5, Min: 1, P50: 2, P90: 4, P99: 4, P999: 4, Max: 4},
		P99Request:           &Request{Index: 2, ResponseMs: 50, ThrottledMs: 40},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SummarizeRequests =\n%+v, want\n%+v", got, want)
	}
	if line, want := Line(got), "p99 request 50.0 ms, of which 40.0 ms throttled; requests that met no throttle: p99 4.0 ms"; line != want {
		t.Errorf("Line = %q, want %q", line, want)
	}
}

// The p99 request of 200 is the 198th fastest, not the slowest: its own
// throttled time is reported, not the max's.
func TestP99RequestIsTheRank(t *testing.T) {
	resp, thr := make([]int64, 200), make([]int64, 200)
	for i := range resp {
		resp[i] = int64(200-i) * ms // request i took 200-i ms
		thr[i] = int64(i) * ms      // and was throttled i ms
	}
	r := SummarizeRequests(resp, thr)
	// The 198th smallest response is 198 ms: request 2, throttled 2 ms.
	if want := (&Request{Index: 2, ResponseMs: 198, ThrottledMs: 2}); !reflect.DeepEqual(r.P99Request, want) {
		t.Errorf("p99 request %+v, want %+v", r.P99Request, want)
	}
	// 199 throttled (request 0 was not): mean of 1..199 ms, p99 the 198th.
	if want := (&ThrottledMs{Mean: 100, P99: 198, Max: 199}); !reflect.DeepEqual(r.RequestThrottledMs, want) {
		t.Errorf("request_throttled_ms %+v, want %+v", r.RequestThrottledMs, want)
	}
	if r.ThrottledRequests != 199 || r.LatencyMsUnthrottled.Max != 200 || r.LatencyMsUnthrottled.P50 != 200 {
		t.Errorf("throttled %d, unthrottled %+v; want 199 and the one request of 200 ms", r.ThrottledRequests, r.LatencyMsUnthrottled)
	}
}

// Equal response times are ranked in the caller's order.
func TestP99RequestTies(t *testing.T) {
	r := SummarizeRequests(msSlice(5, 5, 5), msSlice(1, 2, 3))
	if r.P99Request.Index != 2 || r.P99Request.ThrottledMs != 3 {
		t.Errorf("p99 request %+v, want the last of the ties (index 2, 3 ms)", r.P99Request)
	}
}

func TestSummarizeRequestsEdges(t *testing.T) {
	if r := SummarizeRequests(nil, nil); !reflect.DeepEqual(r, Requests{}) || Line(r) != "" {
		t.Errorf("no requests: %+v, line %q", r, Line(r))
	}
	none := SummarizeRequests(msSlice(1, 9), msSlice(0, 0))
	if none.ThrottledRequests != 0 || none.RequestThrottledMs != nil || none.LatencyMsUnthrottled.P99 != 9 {
		t.Errorf("none throttled: %+v", none)
	}
	if line, want := Line(none), "p99 request 9.0 ms, of which 0.0 ms throttled; no request met a throttle"; line != want {
		t.Errorf("Line = %q, want %q", line, want)
	}
	all := SummarizeRequests(msSlice(1, 9), msSlice(1, 2))
	if all.ThrottledRequests != 2 || all.LatencyMsUnthrottled != nil {
		t.Errorf("all throttled: %+v", all)
	}
	if line, want := Line(all), "p99 request 9.0 ms, of which 2.0 ms throttled; every request met a throttle"; line != want {
		t.Errorf("Line = %q, want %q", line, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("lengths 2 and 1 did not panic")
		}
	}()
	SummarizeRequests(msSlice(1, 2), msSlice(1))
}
