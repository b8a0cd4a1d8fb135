package sizing

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/usage"
	"github.com/throttlebench/throttlebench/internal/words"
)

// SchemaVersion is the version of Result's JSON.
const SchemaVersion = 1

// Result is what size writes. These keys are a contract (issue 36):
// recommendation.{cpus,quota_us,period_us,burst_us}, bracket.{pass_cpus,
// fail_cpus}, arms[].{cpus,unlimited,burst_us,verdict,confidence,windows},
// usage_rules[].{name,cpus,verdict}.
type Result struct {
	SchemaVersion int    `json:"schema_version"`
	SLO           string `json:"slo"`
	Loop          string `json:"loop"` // "open" or "closed"
	// Target is --target's URL, the open loop's requests sent to a fresh
	// --serve server in each window; "" for the built-in loops.
	Target     string  `json:"target,omitempty"`
	Window     string  `json:"window"`
	PeriodUs   int64   `json:"period_us"`
	Confidence float64 `json:"confidence"`
	Kernel     string  `json:"kernel"`
	// CgroupVersion is the windows' cgroup version (1 or 2); absent in
	// results written before it.
	CgroupVersion int `json:"cgroup_version,omitempty"`
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
	// Outcome is what the search came to (OutcomeRecommendation,
	// OutcomeNoLimit, OutcomeUndecided; the exit code follows it), and Why
	// says why there is no recommendation, "" where there is one.
	Outcome string `json:"outcome"`
	Why     string `json:"why,omitempty"`
	// Shown is what the recommended level and the level below it showed
	// of the share of windows that meet the target, in words too.
	Shown   []Shown      `json:"shown"`
	Bracket size.Bracket `json:"bracket"`
	// Pairs are each --burst's bracket: the quota each burst needs.
	Pairs []Pair `json:"pairs"`
	// Arms: the unlimited arm first, then the levels in the order measured.
	Arms       []Arm  `json:"arms"`
	UsageRules []Rule `json:"usage_rules"`
	// Windows counts every window measured, the unlimited arm's included.
	Windows int `json:"windows"`
	// Contention is how much the windows waited for CPUs others held,
	// the unlimited arm's against the levels'.
	Contention ContentionSummary `json:"contention"`
	Incomplete bool              `json:"incomplete"`
	Stopped    string            `json:"stopped,omitempty"`
	// ServerExited says that --serve's server exiting stopped the search
	// (Stopped says how).
	ServerExited bool             `json:"server_exited,omitempty"`
	Warnings     []report.Warning `json:"warnings"`
}

// What a search came to.
const (
	// OutcomeRecommendation: a level passed (recommendation.cpus), or the
	// unlimited arm passed and no level of a complete search did
	// (recommendation.unlimited).
	OutcomeRecommendation = "recommendation"
	// OutcomeNoLimit: decided, the unlimited arm failed: no limit meets it.
	OutcomeNoLimit = "no_limit_meets"
	// OutcomeUndecided: no answer either way: windows refused (contention),
	// too few to tell, a budget spent, Ctrl-C, a server that exited.
	OutcomeUndecided = "undecided"
)

// ContentionSummary is the windows' contention (report.Contention) taken
// together: the median wait share of the unlimited arm's windows and of
// the levels', and how many windows waited long enough to be refused
// (build.DefaultThresholds.RefuseShare; with --busy count, counted busy).
// A relative target's base is the unlimited arm's figure; where its
// windows waited more or less than the levels', the comparison is biased,
// and a warning says so.
type ContentionSummary struct {
	UnlimitedWaitShare *float64 `json:"unlimited_wait_share"`
	LevelsWaitShare    *float64 `json:"levels_wait_share"`
	ContendedWindows   int      `json:"contended_windows"`
	Windows            int      `json:"windows"`
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
	// Reason is why the window was refused or failed whatever its figure,
	// as one of the Reason words, for the tables to name without reading
	// refused's or short's words; empty in results written before it.
	Reason string `json:"reason,omitempty"`
	// Busy marks a window that others competed with, counted (--busy
	// count); refused, it says so in refused.
	Busy bool `json:"busy,omitempty"`
	// Contention is how much the window's work waited for CPUs others
	// held (report.Contention); null where it was not read.
	Contention  *report.Contention `json:"contention"`
	exited      string             // --serve's server exited: how (ends the search)
	short       bool               // set with Short
	kernel      string             // the result's, for Result.Kernel
	cpus100ms   []float64          // its use in each whole 100 ms, for the usage rules
	floor       *report.FloorMs    // the harness's floor (the unlimited arm's windows)
	idle100ms   int                // the schedule's quiet 100 ms after the window's last response
	GOMAXPROCS  int                `json:"gomaxprocs"`
	Seed        *uint64            `json:"seed,omitempty"`
	CPUMs       *float64           `json:"cpu_ms"`
	WindowMs    float64            `json:"window_ms"`
	OfferedRPS  *float64           `json:"offered_rps,omitempty"`
	AchievedRPS *float64           `json:"achieved_rps,omitempty"`
	Throttling  report.Throttling  `json:"throttling"`

	cgroupVersion int // the result's, for Result.CgroupVersion
}

// The reasons of a window (Window.Reason).
const (
	ReasonContended     = "contended"       // refused: the work waited for CPUs others held
	ReasonNoFigure      = "no_figure"       // nothing completed
	ReasonNoRequestSent = "no_request_sent" // --target: no request went out
	ReasonShortRate     = "short_rate"      // the achieved rate fell short of the offered one
	ReasonFailed        = "requests_failed" // --target: more requests failed than --max-failures allows
)

// RefusedContended is why a window is refused where its work waited for
// CPUs others held (its contention block says how much).
const RefusedContended = "contended: the work waited for CPUs others held"

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
	target := ""
	if p.Target != nil {
		target = p.Target.HTTP.URL
	}
	return Result{SchemaVersion: SchemaVersion, SLO: p.SLO.String(), Loop: loop, Target: target, Window: p.Window, PeriodUs: p.Grid.Period.Microseconds(),
		Confidence: p.Test.Confidence, Bracket: size.Bracket{Pass: -1, Fail: -1}, Pairs: []Pair{}, Arms: []Arm{}, UsageRules: []Rule{}, Warnings: []report.Warning{}, Shown: []Shown{}}
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
			w.Text = fmt.Sprintf("at --burst %v: %s", burst, w.Text)
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
		if r.Incomplete {
			// Undecided: no level passed so far, and the unlimited arm's
			// pass is no answer while the levels below were not all seen.
			r.Recommendation = nil
			r.Outcome, r.Why = OutcomeUndecided, "no level passed before the search stopped ("+r.Stopped+")"
			return
		}
		if n, of := r.refusedAtLevels(); n > 0 {
			// A level left undecided by its refused windows did not fail:
			// "no limit" would rest on windows never counted.
			r.Recommendation = nil
			r.Outcome = OutcomeUndecided
			r.Why = fmt.Sprintf("no level passed, and %d of the levels' %d windows were refused (their work waited for CPUs others held nearly as long as it ran): the levels left undecided did not fail", n, of)
			return
		}
		r.Warnings = append(r.Warnings, report.Warning{Kind: report.KindNoLevelPassed, Text: "no level of the grid passed: the recommendation is no limit (or search higher, with --cpus-max)"})
		r.Recommendation = &rec
		r.Outcome = OutcomeRecommendation
		return
	}
	pr := r.Pairs[best]
	r.Bracket.PassCPUs, r.Bracket.FailCPUs = pr.PassCPUs, pr.FailCPUs
	c := *pr.PassCPUs
	rec.CPUs, rec.QuotaUs, rec.BurstUs = ptr(c), ptr(quotaUs(c, p.Grid.Period)), pr.BurstUs
	rec.Kubernetes, rec.Docker = usage.KubernetesCPU(c), docker(c, p.Grid.Period)
	r.Recommendation = &rec
	r.Outcome, r.Why = OutcomeRecommendation, ""
	r.shown()
}

// refusedAtLevels counts the search's level windows refused, of all
// its level windows (the unlimited arm and the usage rules' arms apart).
func (r *Result) refusedAtLevels() (n, of int) {
	for _, a := range r.Arms {
		if a.CPUs != nil && a.Rule == "" {
			n, of = n+a.Refused, of+len(a.Windows)
		}
	}
	return n, of
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
	return bandwidth.Quota(cpus, period).Microseconds()
}

func ptr[T any](v T) *T { return &v }

// summarize sets the arm's median figure and its distribution-free 95%
// interval, over the windows with a figure that counted (not refused, not
// short); the interval is null with too few windows (under 6).
func (a *Arm) summarize() {
	if a.Windows == nil {
		a.Windows = []Window{} // JSON: [], never null
	}
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

// Shown is what the windows at one level showed, in the terms a margin
// is set by: a one-sided bound, at the result's confidence, on the share
// of windows at that level that meet the target (size.ShareBounds): at
// least MeetsAtLeast for the recommended level, at most MeetsAtMost for
// the level below it.
type Shown struct {
	CPUs         float64  `json:"cpus"`
	BurstUs      int64    `json:"burst_us"`
	Passes       int      `json:"passes"`
	Counted      int      `json:"counted"`
	MeetsAtLeast *float64 `json:"meets_at_least,omitempty"`
	MeetsAtMost  *float64 `json:"meets_at_most,omitempty"`
	Text         string   `json:"text"`
}

// shown says what the recommended level and the level below it showed.
func (r *Result) shown() {
	r.Shown = []Shown{}
	rec := r.Recommendation
	if rec == nil || rec.CPUs == nil {
		return
	}
	conf := strconv.FormatFloat(100*r.Confidence, 'f', -1, 64) + "% confidence"
	each := func(cpus *float64, below bool) {
		if cpus == nil {
			return
		}
		a := r.armAt(*cpus, rec.BurstUs)
		if a == nil {
			return
		}
		n := a.Passes + a.Fails
		lo, hi := size.ShareBounds(a.Passes, n, r.Confidence)
		s := Shown{CPUs: *cpus, BurstUs: rec.BurstUs, Passes: a.Passes, Counted: n}
		at := fmt.Sprintf("at %s %s, ", table.Sig(*cpus, 3), words.Noun(*cpus, "CPU"))
		met := fmt.Sprintf(" (%s; %d of %d windows met it)", conf, a.Passes, n)
		if below {
			s.MeetsAtMost = &hi
			s.Text = at + fmt.Sprintf("at most %.0f%% of them do", 100*hi) + met
		} else {
			s.MeetsAtLeast = &lo
			s.Text = at + fmt.Sprintf("at least %.0f%% of %s windows meet %s", 100*lo, r.Window, r.SLO) + met
		}
		r.Shown = append(r.Shown, s)
	}
	each(r.Bracket.PassCPUs, false)
	each(r.Bracket.FailCPUs, true)
}

// armAt is the search's arm at cpus and burst, or nil.
func (r *Result) armAt(cpus float64, burstUs int64) *Arm {
	for i, a := range r.Arms {
		if a.CPUs != nil && a.Rule == "" && a.BurstUs == burstUs && math.Abs(*a.CPUs-cpus) < 1e-9 {
			return &r.Arms[i]
		}
	}
	return nil
}

// Headline is the result in one line: the recommendation as Kubernetes
// and Docker spell it, or why there is none.
func (r Result) Headline() string {
	rec := r.Recommendation
	switch {
	case r.Outcome == OutcomeNoLimit:
		return "recommendation: none, decided: " + r.Why
	case r.Outcome == OutcomeUndecided || rec == nil:
		return "recommendation: none, undecided: " + r.Why
	case rec.Unlimited:
		return "recommendation: no limit: the unlimited arm meets " + r.SLO + " and no level of the grid did (search higher with --cpus-max)"
	}
	cpus := table.Sig(*rec.CPUs, 3)
	s := fmt.Sprintf("recommendation: %s %s (quota %v per %v period): %s, %s", cpus, words.Noun(*rec.CPUs, "CPU"),
		time.Duration(*rec.QuotaUs)*time.Microsecond, time.Duration(rec.PeriodUs)*time.Microsecond, rec.Kubernetes, rec.Docker)
	if rec.BurstUs > 0 {
		s += fmt.Sprintf("; burst %v (cpu.max.burst or cpu.cfs_burst_us: neither sets it)", time.Duration(rec.BurstUs)*time.Microsecond)
	}
	if r.Incomplete {
		s += " (so far: " + r.Stopped + ")"
	}
	return s
}
