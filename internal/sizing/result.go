package sizing

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// SchemaVersion is the version of Result's JSON.
const SchemaVersion = 1

// Result is what size writes. These keys are a contract (issue 36):
// recommendation.{cpus,quota_us,period_us,burst_us}, bracket.{pass_cpus,
// fail_cpus}, arms[].{cpus,unlimited,burst_us,verdict,confidence,windows},
// usage_rules[].{name,cpus,verdict}.
type Result struct {
	SchemaVersion int     `json:"schema_version"`
	SLO           string  `json:"slo"`
	Loop          string  `json:"loop"` // "open" or "closed"
	Window        string  `json:"window"`
	PeriodUs      int64   `json:"period_us"`
	Confidence    float64 `json:"confidence"`
	Kernel        string  `json:"kernel"`
	// UnlimitedMs is the unlimited arm's median figure; BoundMs the bound a
	// window's figure must meet (a relative SLO's factor times it).
	UnlimitedMs *float64 `json:"unlimited_ms"`
	BoundMs     *float64 `json:"bound_ms"`
	// FloorMs is the harness's own floor at the SLO's percentile (p99's
	// for p90, which the floor lacks), the median of the unlimited arm's
	// windows, the only ones that measure it; null for the closed loop.
	FloorMs *float64 `json:"floor_ms"`
	// Range is the grid searched; null where no level was.
	Range *Range `json:"range"`
	// Recommendation is the smallest passing setting: a level, or no limit
	// (cpus null, unlimited true) where none in the grid passed; null where
	// not even the unlimited arm passed.
	Recommendation *Recommendation `json:"recommendation"`
	Bracket        size.Bracket    `json:"bracket"`
	// Pairs are each --burst's bracket: the quota each burst needs.
	Pairs []Pair `json:"pairs"`
	// Arms: the unlimited arm first, then the levels in the order measured.
	Arms       []Arm  `json:"arms"`
	UsageRules []Rule `json:"usage_rules"`
	// Windows counts every window measured, the unlimited arm's included.
	Windows    int      `json:"windows"`
	Incomplete bool     `json:"incomplete"`
	Stopped    string   `json:"stopped,omitempty"`
	Warnings   []string `json:"warnings"`
}

// Pair is one burst's search: the smallest level that passed with it and
// the level below, which did not (null for none).
type Pair struct {
	BurstUs    int64    `json:"burst_us"`
	PassCPUs   *float64 `json:"pass_cpus"`
	FailCPUs   *float64 `json:"fail_cpus"`
	Incomplete bool     `json:"incomplete,omitempty"`
}

// Range is the grid searched: its ends, the default range's reason, and
// every level.
type Range struct {
	MinCPUs float64   `json:"min_cpus"`
	MaxCPUs float64   `json:"max_cpus"`
	Default string    `json:"default"`
	Levels  []float64 `json:"levels_cpus"`
}

// Recommendation is a setting, as the kernel, Kubernetes and Docker take it.
type Recommendation struct {
	CPUs       *float64 `json:"cpus"`
	QuotaUs    *int64   `json:"quota_us"`
	PeriodUs   int64    `json:"period_us"`
	BurstUs    int64    `json:"burst_us"`
	Unlimited  bool     `json:"unlimited,omitempty"`
	Kubernetes string   `json:"kubernetes,omitempty"`
	Docker     string   `json:"docker,omitempty"`
}

// Arm is one setting measured: the unlimited arm (cpus null) or a level.
type Arm struct {
	CPUs *float64 `json:"cpus"`
	// Order is when the arm was first measured, 1 for the first (the
	// unlimited arm's windows may be interleaved with the levels').
	Order     int  `json:"order"`
	Unlimited bool `json:"unlimited,omitempty"`
	// Rule names the usage rule whose limit this arm measured, beside the
	// search ("" for the search's own levels).
	Rule       string       `json:"rule,omitempty"`
	QuotaUs    *int64       `json:"quota_us"`
	BurstUs    int64        `json:"burst_us"`
	Verdict    size.Verdict `json:"verdict"`
	Confidence float64      `json:"confidence"`
	size.Tally
	Drift bool `json:"drift,omitempty"`
	// FigureMs is the median figure of its counted windows, FigureMsCI95
	// its 95% interval (null with fewer than 6).
	FigureMs     *float64    `json:"figure_ms"`
	FigureMsCI95 *[2]float64 `json:"figure_ms_ci95"`
	Windows      []Window    `json:"windows"`
}

// Window is one window as measured: the search's record (pass, figure,
// refused) and its counters.
type Window struct {
	size.Window
	// Short says why it failed whatever its figure: the open loop's
	// achieved rate fell short of the offered one, or nothing completed.
	Short string `json:"short,omitempty"`
	// Busy marks a window that others competed with, counted (--busy
	// count); refused, it says so in refused.
	Busy        bool              `json:"busy,omitempty"`
	short       bool              // set with Short
	kernel      string            // the result's, for Result.Kernel
	cpus100ms   []float64         // its use in each whole 100 ms, for the usage rules
	floor       *report.FloorMs   // the harness's floor (the unlimited arm's windows)
	idle100ms   int               // the schedule's quiet 100 ms after the window's last response
	GOMAXPROCS  int               `json:"gomaxprocs"`
	Seed        *uint64           `json:"seed,omitempty"`
	CPUMs       *float64          `json:"cpu_ms"`
	WindowMs    float64           `json:"window_ms"`
	OfferedRPS  *float64          `json:"offered_rps,omitempty"`
	AchievedRPS *float64          `json:"achieved_rps,omitempty"`
	Throttling  report.Throttling `json:"throttling"`
}

// Rule is a usage-based recommender's limit, from the unlimited arm's
// usage; Verdict is the SLO's at that limit (its arm in arms[]), null
// where it has none or was not measured.
type Rule struct {
	Name    string        `json:"name"`
	CPUs    *float64      `json:"cpus"`
	Note    string        `json:"note"`
	Verdict *size.Verdict `json:"verdict"`
}

func newResult(p Plan) Result {
	loop := "closed"
	if p.Open {
		loop = "open"
	}
	return Result{SchemaVersion: SchemaVersion, SLO: p.SLO.String(), Loop: loop, Window: p.Window, PeriodUs: p.Grid.Period.Microseconds(),
		Confidence: p.Test.Confidence, Bracket: size.Bracket{Pass: -1, Fail: -1}, Pairs: []Pair{}, Arms: []Arm{}, UsageRules: []Rule{}, Warnings: []string{}}
}

// rules are the usage-based recommenders' limits for the unlimited arm's
// usage t.
func rules(t usage.Trace) []Rule {
	out := []Rule{}
	if len(t.Samples) < 2 {
		return out
	}
	for _, r := range size.Rules(t) {
		out = append(out, Rule{Name: r.Name, CPUs: jsonNumber(r.CPUs), Note: r.Note})
	}
	return out
}

// answer lays out one search's answer (at burst), with each level's
// windows as measured.
func (r *Result) answer(p Plan, a size.Answer, windows [][]Window, burst time.Duration) {
	for _, arm := range a.Arms {
		ws := windows[arm.Level]
		r.Arms = append(r.Arms, Arm{Order: len(r.Arms) + 1, CPUs: ptr(arm.CPUs), QuotaUs: ptr(quotaUs(arm.CPUs, p.Grid.Period)), BurstUs: burst.Microseconds(), Verdict: arm.Verdict,
			Confidence: arm.Confidence, Tally: arm.Tally, Drift: arm.Drift, Windows: ws})
		r.Arms[len(r.Arms)-1].summarize()
	}
	r.Incomplete = r.Incomplete || a.Incomplete
	if a.Stopped != "" {
		r.Stopped = a.Stopped
	}
	for _, w := range a.Warnings {
		if burst > 0 {
			w = fmt.Sprintf("at --burst %v: %s", burst, w)
		}
		r.Warnings = append(r.Warnings, w)
	}
}

// recommend is the smallest passing setting among the pairs (the smaller
// burst on a tie), and its bracket; without one, no limit, and the first
// pair's bracket.
func (r *Result) recommend(p Plan) {
	best := -1
	for i, pr := range r.Pairs {
		if pr.PassCPUs != nil && (best < 0 || *pr.PassCPUs < *r.Pairs[best].PassCPUs) {
			best = i
		}
	}
	rec := Recommendation{PeriodUs: p.Grid.Period.Microseconds()}
	if best < 0 {
		if len(r.Pairs) > 0 {
			r.Bracket.PassCPUs, r.Bracket.FailCPUs = r.Pairs[0].PassCPUs, r.Pairs[0].FailCPUs
		}
		rec.Unlimited = true
		why := "no level of the grid passed: the recommendation is no limit (or search higher, with --cpus-max)"
		if r.Incomplete {
			why = "no level passed before the search stopped: the recommendation is no limit, so far (give a longer --budget)"
		}
		r.Warnings = append(r.Warnings, why)
		r.Recommendation = &rec
		return
	}
	pr := r.Pairs[best]
	r.Bracket.PassCPUs, r.Bracket.FailCPUs = pr.PassCPUs, pr.FailCPUs
	c := *pr.PassCPUs
	rec.CPUs, rec.QuotaUs, rec.BurstUs = ptr(c), ptr(quotaUs(c, p.Grid.Period)), pr.BurstUs
	rec.Kubernetes, rec.Docker = usage.KubernetesCPU(c), docker(c, p.Grid.Period)
	r.Recommendation = &rec
}

// docker is the limit as docker run takes it: --cpus at its default
// period, its microseconds at another.
func docker(cpus float64, period time.Duration) string {
	if period == 100*time.Millisecond {
		return usage.DockerCPUs(cpus)
	}
	return usage.DockerQuota(cpus, period)
}

func quotaUs(cpus float64, period time.Duration) int64 {
	return int64(math.Round(cpus * float64(period.Microseconds())))
}

func ptr[T any](v T) *T { return &v }

// summarize sets the arm's median figure and its distribution-free 95%
// interval, over the windows with a figure that counted (not refused, not
// short); the interval is null with too few windows (under 6).
func (a *Arm) summarize() {
	var xs []float64
	for _, w := range a.Windows {
		if w.Refused == "" && !w.short {
			xs = append(xs, w.Figure)
		}
	}
	a.FigureMs, a.FigureMsCI95 = nil, nil
	if len(xs) == 0 {
		return
	}
	slices.Sort(xs)
	a.FigureMs = jsonNumber(stats.Quantile(xs, 0.5))
	if lo, hi, ok := stats.QuantileCI(len(xs), 0.5, 0.95); ok {
		a.FigureMsCI95 = &[2]float64{xs[lo-1], xs[hi-1]}
	}
}
