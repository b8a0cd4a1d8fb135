package throttle

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
)

// How a result's requests are tied to threads (report.Breakdown's
// Threads).
const (
	ThreadsWorker  = "worker"
	ThreadsWorkers = "workers"
	// ThreadsInstance: an --instances instance's threads as one pool
	// (Timelines.SplitPool), from the request's arrival, its cold start
	// included, to its reply.
	ThreadsInstance = "instance"
	// ThreadsServer: the server's threads (--target, --serve) as one pool.
	ThreadsServer = "server"
	// ThreadsCommand: a command's run (run -- CMD): the slice's threads
	// as one pool.
	ThreadsCommand = "command"
)

// ThreadsParts splits each span's time by cause over several threads
// each (threads[i] are span i's: an iteration's workers), the mean of
// their parts, which sum to the span's time as each thread's do; known[i]
// is false where span i has no thread, or one of its threads has no
// state traced or is 0 (not known).
func (t *Timelines) ThreadsParts(spans []Span, threads [][]int32) (parts []Parts, known []bool) {
	parts, known = make([]Parts, len(spans)), make([]bool, len(spans))
	for i, s := range spans {
		if i >= len(threads) || len(threads[i]) == 0 {
			continue
		}
		var sum Parts
		known[i] = true
		for _, tid := range threads[i] {
			p, ok := t.Split(tid, s.Start, s.End)
			if !ok || tid == 0 {
				known[i] = false
				break
			}
			for c := range sum {
				sum[c] += p[c]
			}
		}
		if !known[i] {
			continue
		}
		n := int64(len(threads[i]))
		for c := range sum {
			parts[i][c] = sum[c] / n
		}
		// The integer mean loses up to n-1 ns: given back to on CPU, so
		// that the parts still sum to the span.
		parts[i][OnCPU] += (s.End - s.Start) - parts[i].Total()
	}
	return parts, known
}

// SpanParts splits each span's time by cause, from its thread's timeline
// (Span.TID) or its pool's (Span.Group); known[i] is false where span i
// has neither, or no state of its threads was traced.
func (t *Timelines) SpanParts(spans []Span) (parts []Parts, known []bool) {
	parts, known = make([]Parts, len(spans)), make([]bool, len(spans))
	for i, s := range spans {
		switch {
		case s.Group != 0:
			parts[i], known[i] = t.SplitPool(s.Group, s.Start, s.End)
		case s.TID != 0:
			parts[i], known[i] = t.Split(s.TID, s.Start, s.End)
		}
	}
	return parts, known
}

// SummarizeBreakdown describes the parts of the spans known (the other
// spans are counted as unknown): each part's p50 and p99, and the parts'
// shares of the p99 spans' summed time, those whose total is at or
// above the p99 of the totals. threads is how a span is tied to its
// threads (ThreadsWorker, ThreadsInstance, ...). nil where none is known.
func SummarizeBreakdown(parts []Parts, known []bool, threads string) *report.Breakdown {
	var split []Parts
	for i, p := range parts {
		if known[i] {
			split = append(split, p)
		}
	}
	if len(split) == 0 {
		return nil
	}
	b := &report.Breakdown{Threads: threads, Count: len(split), Unknown: len(parts) - len(split)}
	pms := func(c Cause) report.PartMs {
		ns := make([]int64, len(split))
		for i, p := range split {
			ns[i] = p[c]
		}
		ms := sortedMs(ns)
		return report.PartMs{P50: nearestRank(ms, 0.50), P99: nearestRank(ms, 0.99)}
	}
	b.OnCPUMs, b.HeldMs, b.WaitingMs, b.OffCPUMs = pms(OnCPU), pms(Held), pms(Waiting), pms(OffCPU)
	slices.SortStableFunc(split, func(a, b Parts) int { return cmp.Compare(a.Total(), b.Total()) })
	slow := split[rankIndex(0.99, len(split)):]
	var sum Parts
	for _, p := range slow {
		for c := range sum {
			sum[c] += p[c]
		}
	}
	b.P99Count = len(slow)
	if total := float64(sum.Total()); total > 0 {
		b.P99Share = report.Shares{OnCPU: float64(sum[OnCPU]) / total, Held: float64(sum[Held]) / total,
			Waiting: float64(sum[Waiting]) / total, OffCPU: float64(sum[OffCPU]) / total}
	}
	return b
}

// SharesText words shares largest first, those under 0.5% left out: "62%
// held by the quota, 21% waiting for a CPU, 17% on CPU".
func SharesText(s report.Shares) string {
	shares := [numCauses]float64{OnCPU: s.OnCPU, Held: s.Held, Waiting: s.Waiting, OffCPU: s.OffCPU}
	order := []Cause{OnCPU, Held, Waiting, OffCPU}
	slices.SortStableFunc(order, func(a, b Cause) int { return cmp.Compare(shares[b], shares[a]) })
	var words []string
	for _, c := range order {
		if shares[c] >= 0.005 {
			words = append(words, fmt.Sprintf("%.0f%% %s", 100*shares[c], c))
		}
	}
	return strings.Join(words, ", ")
}

// PoolShares is the p99 shares of several results' breakdowns pooled,
// each weighted by its p99 count (the slow ones it stands for); nil where
// none has one.
func PoolShares(bs []*report.Breakdown) *report.Shares {
	var sum report.Shares
	n := 0
	for _, b := range bs {
		if b == nil || b.P99Count == 0 {
			continue
		}
		w := float64(b.P99Count)
		sum.OnCPU += w * b.P99Share.OnCPU
		sum.Held += w * b.P99Share.Held
		sum.Waiting += w * b.P99Share.Waiting
		sum.OffCPU += w * b.P99Share.OffCPU
		n += b.P99Count
	}
	if n == 0 {
		return nil
	}
	f := float64(n)
	return &report.Shares{OnCPU: sum.OnCPU / f, Held: sum.Held / f, Waiting: sum.Waiting / f, OffCPU: sum.OffCPU / f}
}

// causeWords are the causes as the text report names them.
var causeWords = [numCauses]string{OnCPU: "on CPU", Held: "held by the quota", Waiting: "waiting for a CPU", OffCPU: "off CPU"}

// Dominant is the cause with the largest share of the p99 requests' time.
func Dominant(s report.Shares) Cause {
	shares := [numCauses]float64{OnCPU: s.OnCPU, Held: s.Held, Waiting: s.Waiting, OffCPU: s.OffCPU}
	best := OnCPU
	for c := range numCauses {
		if shares[c] > shares[best] {
			best = c
		}
	}
	return best
}

// String names the cause as the text report does.
func (c Cause) String() string {
	if c < numCauses {
		return causeWords[c]
	}
	return fmt.Sprintf("cause %d", c)
}

// BreakdownLine is the text report's sentence of b, such as "p99
// requests: 62% held by the quota, 21% waiting for a CPU, 17% on CPU":
// the parts of the slow requests' time, largest first, those under 0.5%
// left out. what names them ("requests", "iterations"). Empty for nil.
func BreakdownLine(b *report.Breakdown, what string) string {
	if b == nil {
		return ""
	}
	line := fmt.Sprintf("p99 %s: %s", what, SharesText(b.P99Share))
	if b.Unknown > 0 {
		line += fmt.Sprintf(" (%d of %d not traced)", b.Unknown, b.Unknown+b.Count)
	}
	return line
}
