package size

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/usage"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Rule is what one usage-based recommender would set, computed from the
// unlimited arm's usage trace, so that the search can measure the SLO at
// its limit beside its own answer.
type Rule struct {
	Name string  // "vpa", "krr" or "sample"
	CPUs float64 // the limit it sets; NaN where the run cannot give it
	Note string  // how it was computed, or why it could not be
}

// Computed says whether the run gave the rule a limit.
func (r Rule) Computed() bool { return !math.IsNaN(r.CPUs) }

// The recommenders' own settings, as their defaults have them.
const (
	// Kubernetes' VPA recommender: the target is p90 of the container's
	// usage samples, one a minute, plus a 15% safety margin, from about 8
	// days of history.
	vpaPercentile = 0.90
	vpaMargin     = 0.15
	vpaSample     = time.Minute
	vpaHistory    = 8 * 24 * time.Hour
	// krr's simple-limit strategy: the limit is p96 of 75 s usage rates
	// (timeframe_duration 1.25 min) over 14 days (history_duration 336 h).
	krrPercentile = 0.96
	krrWindow     = 75 * time.Second
	krrHistory    = 14 * 24 * time.Hour
	// sample's default --target: at most 1% of intervals above the limit.
	sampleTarget = 0.01
)

// MinRuleWindows is the fewest windows a percentile of windows is taken
// over: with fewer, p90 or p96 is little more than the largest window.
const MinRuleWindows = 10

// Rules are the usage-based recommenders' limits for the unlimited arm's
// trace t: VPA's, krr's and sample's, in that order. A rule whose limit
// would be 0 (the windows it reads used no CPU) sets none: a limit of 0 is
// no limit to apply (docker run reads --cpus 0 as none), so it is NaN,
// with a note that says so.
func Rules(t usage.Trace) []Rule {
	rules := []Rule{VPA(t), Krr(t), Sample(t)}
	for i, r := range rules {
		if r.Computed() && !(r.CPUs > 0) {
			rules[i].CPUs = math.NaN()
			rules[i].Note = "no CPU used: no limit to advise (" + r.Note + ")"
		}
	}
	return rules
}

// span is how long the trace lasted, as read.
func span(t usage.Trace) time.Duration {
	if len(t.Samples) < 2 {
		return 0
	}
	return t.Samples[len(t.Samples)-1].At - t.Samples[0].At
}

// windowPercentile is the R-7 p-quantile (as stats and numpy take it) of
// t's usage over windows of k intervals, and how many windows there were.
func windowPercentile(t usage.Trace, k int, p float64) (float64, int) {
	w := t.Coarse(k).CPUs()
	slices.Sort(w)
	return stats.Quantile(w, p), len(w)
}

// VPA is a VPA-style target: p90 of the longest usage windows the run
// allows (VPA's minute, or shorter so that there are MinRuleWindows of
// them), times 1.15. VPA's target is a request, with the limit kept at the
// pod's limit:request ratio; here it is taken as the limit (a ratio of 1).
func VPA(t usage.Trace) Rule {
	r := Rule{Name: "vpa", CPUs: math.NaN()}
	k := min(t.Per(vpaSample), t.Len()/MinRuleWindows)
	if k < 1 {
		r.Note = fmt.Sprintf("not computed: p90 needs at least %s; the run has %s", words.N(MinRuleWindows, "usage interval"), words.N(t.Len(), "interval"))
		return r
	}
	p, n := windowPercentile(t, k, vpaPercentile)
	r.CPUs = p * (1 + vpaMargin)
	w, run := time.Duration(k)*t.Interval, span(t)
	these := "as long"
	if w < vpaSample {
		these = fmt.Sprintf("%.0f× shorter", float64(vpaSample)/float64(w))
	}
	r.Note = fmt.Sprintf("p90 of %s of %v × 1.15, VPA's target (a request: VPA keeps the limit:request ratio); VPA samples each %v (these are %s) over about 8 days (this run is %v, 1/%.0f of that)%s",
		words.N(n, "window"), w, vpaSample, these, run, float64(vpaHistory)/float64(run), topTwo(n, vpaPercentile))
	return r
}

// Krr is a krr-style limit (its simple-limit strategy): p96 of 75 s usage
// windows, where the run holds MinRuleWindows of them.
func Krr(t usage.Trace) Rule {
	r := Rule{Name: "krr", CPUs: math.NaN()}
	k := t.Per(krrWindow)
	n := t.Len() / k
	if t.Interval <= 0 || n < MinRuleWindows {
		r.Note = fmt.Sprintf("not computed: p96 of %v windows needs at least %s (%v of usage); the run has %v", krrWindow, words.N(MinRuleWindows, "window"), MinRuleWindows*krrWindow, span(t))
		return r
	}
	p, n := windowPercentile(t, k, krrPercentile)
	r.CPUs = p
	run := span(t)
	r.Note = fmt.Sprintf("p96 of %s of %v, krr's simple-limit; krr looks back 14 days (this run is %v, 1/%.0f of that)%s",
		words.N(n, "window"), krrWindow, run, float64(krrHistory)/float64(run), topTwo(n, krrPercentile))
	return r
}

// Sample is sample's rule (usage.LimitFor at its default --target 1%): the
// smallest limit that leaves at most 1% of the trace's intervals above it.
func Sample(t usage.Trace) Rule {
	r := Rule{Name: "sample", CPUs: math.NaN()}
	if t.Len() == 0 {
		r.Note = "not computed: the run has no usage interval"
		return r
	}
	r.CPUs = usage.LimitFor(t.CPUs(), sampleTarget)
	above := int(math.Floor(sampleTarget * float64(t.Len())))
	r.Note = fmt.Sprintf("at most 1%% of the %v intervals above it, as sample's advice: %d of %d here", t.Interval, above, t.Len())
	if above == 0 {
		r.Note += ", so its peak"
	}
	return r
}

// topTwo says when the R-7 p-quantile of n windows lies between the two
// busiest ((n−1)p ≥ n−2): little more than the peak.
func topTwo(n int, p float64) string {
	if float64(n-1)*p < float64(n-2) {
		return ""
	}
	return fmt.Sprintf("; of %s, p%.0f lies between the two busiest", words.N(n, "window"), 100*p)
}

// Join makes one trace of the unlimited arm's windows, each sampled in a
// slice of its own: each trace's readings continue where the previous one
// ended, so the gaps between windows and their counters' restarts vanish
// and only measured intervals remain. The interval is the first's.
func Join(ts ...usage.Trace) usage.Trace {
	out := usage.Trace{Samples: []usage.Sample{{}}}
	for _, t := range ts {
		if len(t.Samples) < 2 {
			continue
		}
		if out.Interval == 0 {
			out.Interval = t.Interval
		}
		end, base := out.Samples[len(out.Samples)-1], t.Samples[0]
		for _, s := range t.Samples[1:] {
			out.Samples = append(out.Samples, usage.Sample{At: end.At + s.At - base.At, Usage: end.Usage + s.Usage - base.Usage})
		}
	}
	return out
}
