package throttle

import (
	"cmp"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// SummarizeRequests describes requests from their response times and
// their throttled overlaps (Overlap of their spans), both
// in ns, one of each per request in the same order. It panics when the
// lengths differ: that is the caller's bug.
func SummarizeRequests(responseNs, throttledNs []int64) Requests {
	if len(responseNs) != len(throttledNs) {
		panic(fmt.Sprintf("throttle: %d response times for %d overlaps", len(responseNs), len(throttledNs)))
	}
	var r Requests
	if len(responseNs) == 0 {
		return r
	}
	var hit, missed []int64
	for i, t := range throttledNs {
		if t > 0 {
			hit = append(hit, t)
		} else {
			missed = append(missed, responseNs[i])
		}
	}
	r.ThrottledRequests = len(hit)
	if len(hit) > 0 {
		ms := sortedMs(hit)
		r.RequestThrottledMs = &ThrottledMs{Mean: stat.Mean(ms, nil), P99: nearestRank(ms, 0.99), Max: ms[len(ms)-1]}
	}
	if len(missed) > 0 {
		ms := sortedMs(missed)
		r.LatencyMsUnthrottled = &LatencyMs{Mean: stat.Mean(ms, nil), Min: ms[0], P50: nearestRank(ms, 0.50), P90: nearestRank(ms, 0.90),
			P99: nearestRank(ms, 0.99), P999: nearestRank(ms, 0.999), Max: ms[len(ms)-1]}
	}
	// The request itself, not only its time: its rank among all by
	// response time, ties kept in the caller's order.
	order := make([]int, len(responseNs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(responseNs[a], responseNs[b]) })
	i := order[rankIndex(0.99, len(order))]
	r.P99Request = &Request{Index: i, ResponseMs: msOf(responseNs[i]), ThrottledMs: msOf(throttledNs[i])}
	return r
}

// Line is the text report's sentence of r, such as "p99 request 55.3 ms, of
// which 48.1 ms throttled; requests that met no throttle: p99 3.9 ms".
// Empty when there were no requests.
func Line(r Requests) string {
	if r.P99Request == nil {
		return ""
	}
	head := fmt.Sprintf("p99 request %.1f ms, of which %.1f ms throttled", r.P99Request.ResponseMs, r.P99Request.ThrottledMs)
	switch {
	case r.ThrottledRequests == 0:
		return head + "; no request met a throttle"
	case r.LatencyMsUnthrottled == nil:
		return head + "; every request met a throttle"
	}
	return fmt.Sprintf("%s; requests that met no throttle: p99 %.1f ms", head, r.LatencyMsUnthrottled.P99)
}
