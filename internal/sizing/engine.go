package sizing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// Measured is one window's result: the open loop's (Latency) or the
// closed loop's (Run).
type Measured struct {
	Latency *report.Latency
	Run     *report.Report
}

// Engine runs a size search. Window measures one window in a slice of its
// own (the runner in the command; a fake in tests); NumCPU bounds the
// default range; Progress, when set, is told the windows used and a bound
// on the windows in all (size.Search.Progress).
type Engine struct {
	Window   func(ctx context.Context, o plan.Options) (Measured, error)
	NumCPU   int
	Progress func(used, atMost int)
}

// ShortRate is the share of the offered rate a window must achieve: below
// it, or with a request dropped, the window fails whatever its figure
// (its completed requests' percentiles hide those never served).
const ShortRate = 0.95

// ErrUnlimitedCut is the budget running out before the unlimited arm,
// which every answer needs, was measured.
var ErrUnlimitedCut = errors.New("--budget ran out while the unlimited arm was measured: give a longer one (the unlimited arm needs its windows before any level)")

// Run measures the unlimited arm, then searches the grid. On --budget the
// answer is the bracket reached so far (Result.Incomplete); a cancel of
// ctx (Ctrl-C) returns ctx's error.
func (e Engine) Run(ctx context.Context, p Plan) (Result, error) {
	parent := ctx
	if p.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Budget)
		defer cancel()
	}
	r := newResult(p)
	unl, figure, trace, err := e.unlimited(ctx, p)
	if err != nil {
		if parent.Err() == nil && ctx.Err() != nil {
			return r, ErrUnlimitedCut
		}
		return r, err
	}
	r.UnlimitedMs, r.BoundMs = jsonNumber(figure), jsonNumber(p.SLO.BoundMs(figure))
	r.floor(p, unl.Windows)
	r.Arms, r.UsageRules, r.Windows = append(r.Arms, unl), rules(trace), len(unl.Windows)
	if len(unl.Windows) > 0 {
		r.Kernel = unl.Windows[0].kernel
	}
	if unl.Verdict != size.Pass {
		r.Recommendation = nil
		why := fmt.Sprintf("%s: %d of %d windows met it", unl.Verdict, unl.Passes, len(unl.Windows))
		if unl.Refused > 0 {
			why += fmt.Sprintf(", %d refused (%s)", unl.Refused, refusals(unl.Windows))
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("the unlimited arm does not pass %s (%s): no limit can, so no level was searched", p.SLO, why))
		r.busy(p)
		return r, nil
	}
	rng := size.DefaultRange(trace, p.SLO.Slack(figure), e.NumCPU, p.Grid.Period)
	levels, err := p.Grid.Levels(rng)
	if err != nil {
		return r, err
	}
	r.Range = &Range{MinCPUs: levels[0], MaxCPUs: levels[len(levels)-1], Default: rng.Why, Levels: levels}
	for _, burst := range p.Bursts {
		if err := e.search(ctx, p, &r, levels, burst, figure); err != nil {
			return r, err
		}
		if parent.Err() != nil {
			return r, parent.Err()
		}
	}
	r.recommend(p)
	if err := e.ruleArms(ctx, p, &r, figure); err != nil {
		return r, err
	}
	if parent.Err() != nil {
		return r, parent.Err()
	}
	r.busy(p)
	return r, nil
}

// floor sets the harness's floor at the SLO's percentile from the
// unlimited arm's windows, and warns where the bound is within
// build.FloorFactor of it: there a window's verdict owes as much to the
// machine's timers and the harness as to the limit.
func (r *Result) floor(p Plan, ws []Window) {
	var xs []float64
	for _, w := range ws {
		if f := w.floor; f != nil {
			x := f.P99
			switch p.SLO.Stat {
			case "p50":
				x = f.P50
			case "p99.9":
				x = f.P999
			}
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return
	}
	slices.Sort(xs)
	f := stats.Quantile(xs, 0.5)
	r.FloorMs = jsonNumber(f)
	if r.BoundMs != nil && *r.BoundMs < build.FloorFactor*f {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the bound %s ms is under %g× the harness's own floor (%s %s ms, requests that need nothing): verdicts this close to it owe as much to this machine's timers as to the limit",
			table.Sig(*r.BoundMs, 3), float64(build.FloorFactor), p.SLO.Stat, table.Sig(f, 3)))
	}
}

// busy says how many windows ran on a busy machine: refused, how to count
// them instead; counted, which way they lean.
func (r *Result) busy(p Plan) {
	n, of := 0, 0
	for _, a := range r.Arms {
		for _, w := range a.Windows {
			of++
			if w.Busy || w.Refused == "busy machine" {
				n++
			}
		}
	}
	switch {
	case n == 0:
	case p.CountBusy:
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d of %d windows ran on a busy machine and were counted (--busy count): competition slows a window at any limit, so an absolute target's answer errs towards more CPU, and a relative one's base (the unlimited arm) may be slow too", n, of))
	default:
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d of %d windows were refused because others kept the machine busy: measure on a quiet machine, or give --busy count where it never is", n, of))
	}
}

// unlimited measures the unlimited arm: the fewest windows in which a level
// can pass, not counting refused ones (up to a level's cap), judged against
// their own median figure (a relative SLO's base). It gives the arm, that
// figure and the arm's usage every 100 ms, its windows joined.
func (e Engine) unlimited(ctx context.Context, p Plan) (Arm, float64, usage.Trace, error) {
	arm := Arm{Order: 1, Unlimited: true, QuotaUs: nil}
	o, err := p.Options(math.Inf(1), 0)
	if err != nil {
		return arm, 0, usage.Trace{}, err
	}
	n := p.Test.MinWindows()
	var traces []usage.Trace
	var figures []float64
	for len(figures) < n && len(arm.Windows) < p.Test.LevelWindows {
		m, err := e.Window(ctx, o)
		if err != nil {
			return arm, 0, usage.Trace{}, err
		}
		w := p.record(m, math.NaN())
		arm.Windows = append(arm.Windows, w)
		if w.Refused == "" && !(w.short && w.Figure == 0) { // 0: no figure
			figures = append(figures, w.Figure)
		}
		if t, ok := w.trace(); ok {
			traces = append(traces, t)
		}
	}
	figure := math.NaN()
	if len(figures) > 0 {
		slices.Sort(figures)
		figure = stats.Quantile(figures, 0.5)
	}
	for i := range arm.Windows {
		w := &arm.Windows[i]
		if w.Refused == "" {
			w.Pass = !w.short && p.SLO.Meets(w.Figure, figure)
		}
		arm.Count(w.Window)
	}
	arm.Verdict = p.Test.Decide(arm.Passes, arm.Fails)
	arm.Confidence = p.Test.VerdictConfidence(arm.Verdict, arm.Passes, arm.Fails)
	arm.summarize()
	var t usage.Trace
	if len(traces) > 0 {
		t = size.Join(traces...)
	}
	return arm, figure, t, nil
}

// record reads one window: its figure, whether it is refused, its
// counters; and its verdict against unlimitedMs (NaN: judged later).
func (p Plan) record(m Measured, unlimitedMs float64) Window {
	var w Window
	var warnings []string
	switch {
	case m.Latency != nil:
		l := m.Latency
		w.Figure = p.SLO.FromLatency(l.LatencyMs)
		w.GOMAXPROCS, w.Seed, w.CPUMs, w.WindowMs = l.Config.GOMAXPROCS, &l.Config.Seed, l.CPUMs, l.WindowMs
		w.OfferedRPS, w.AchievedRPS, w.Throttling = &l.OfferedRPS, &l.AchievedRPS, l.Throttling
		w.short = l.Dropped > 0 || l.AchievedRPS < ShortRate*l.OfferedRPS
		warnings, w.kernel, w.cpus100ms, w.floor = l.Warnings, l.Host.Kernel, l.CPUs100ms, l.FloorMs
		// The window ends with its last response; on-off arrivals leave
		// the rest of the schedule quiet, which a service's usage has too.
		// Counted from the sampled intervals' end, to the nearest interval.
		if p.WindowLength > time.Duration(l.WindowMs*float64(time.Millisecond)) {
			tail := p.WindowLength - time.Duration(len(l.CPUs100ms))*runner.PeakInterval
			w.idle100ms = int(math.Round(float64(tail) / float64(runner.PeakInterval)))
		}
		if t := l.TargetResult; t != nil {
			// The server's own failures under a quota are the window's
			// failing; its exit is no verdict on the quota.
			w.Short = build.TargetFailure(l, p.Rule)
			w.short = w.short || w.Short != ""
			if t.ServerExited != "" {
				w.Refused = "the server exited: " + t.ServerExited
			}
		}
	case m.Run != nil:
		r := m.Run
		w.Figure = p.SLO.FromRun(*r)
		w.GOMAXPROCS, w.CPUMs, w.Throttling = r.Config.GOMAXPROCS, r.Usage.CPUMs, r.Throttling
		for _, d := range r.DurationsMs {
			w.WindowMs += d
		}
		warnings, w.kernel, w.cpus100ms = r.Warnings, r.Host.Kernel, r.CPUs100ms
	}
	for _, s := range warnings {
		if strings.HasPrefix(s, "busy machine") {
			if p.CountBusy {
				w.Busy = true
			} else {
				w.Refused = "busy machine"
			}
		}
	}
	if math.IsNaN(w.Figure) || math.IsInf(w.Figure, 0) {
		w.Figure, w.short = 0, true
	}
	switch {
	case w.Short != "":
	case w.short && w.Figure == 0:
		w.Short = "no figure: nothing completed"
	case w.short:
		w.Short = fmt.Sprintf("achieved %.4g of %.4g requests/s offered, %d dropped", *w.AchievedRPS, *w.OfferedRPS, m.Latency.Dropped)
	}
	if !math.IsNaN(unlimitedMs) && w.Refused == "" {
		w.Pass = !w.short && p.SLO.Meets(w.Figure, unlimitedMs)
	}
	return w
}

// trace is the window's usage every 100 ms, as the runner sampled it
// (runner.PeakInterval), the scale at which a quota bites and the usage
// rules' finest grain, then the schedule's quiet tail as idle intervals:
// without them on-off arrivals would look busier to the rules than the
// service they stand for is.
func (w Window) trace() (usage.Trace, bool) {
	if len(w.cpus100ms) == 0 {
		return usage.Trace{}, false
	}
	t := usage.Trace{Interval: runner.PeakInterval, Samples: []usage.Sample{{}}}
	var used time.Duration
	for i, c := range append(slices.Clip(w.cpus100ms), make([]float64, w.idle100ms)...) {
		used += time.Duration(c * float64(runner.PeakInterval))
		t.Samples = append(t.Samples, usage.Sample{At: time.Duration(i+1) * runner.PeakInterval, Usage: used})
	}
	return t, true
}

// jsonNumber is x, or nil where JSON has no number for it.
func jsonNumber(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// refusals are the reasons windows were refused, each once.
func refusals(ws []Window) string {
	var out []string
	for _, w := range ws {
		if w.Refused != "" && !slices.Contains(out, w.Refused) {
			out = append(out, w.Refused)
		}
	}
	return strings.Join(out, ", ")
}

// search runs the bisection at one burst, over the levels whose quota
// holds it (the kernel takes a burst up to the quota), and adds its arms
// and its pair to r.
func (e Engine) search(ctx context.Context, p Plan, r *Result, levels []float64, burst time.Duration, unlimitedMs float64) error {
	var cpus []float64
	for _, c := range levels {
		if quotaUs(c, p.Grid.Period) >= burst.Microseconds() {
			cpus = append(cpus, c)
		}
	}
	pair := Pair{BurstUs: burst.Microseconds()}
	if len(cpus) == 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("--burst %v is above every level's quota: not searched", burst))
		r.Pairs = append(r.Pairs, pair)
		return nil
	}
	if skipped := len(levels) - len(cpus); skipped > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("at --burst %v: the grid's %d lowest levels hold less quota than the burst, which the kernel refuses: searched from %.4g CPUs", burst, skipped, cpus[0]))
	}
	windows := make([][]Window, len(cpus))
	search := size.Search{CPUs: cpus, Test: p.Test, Progress: e.Progress}
	ans, err := search.Run(ctx, func(ctx context.Context, level int) (size.Window, error) {
		o, err := p.Options(cpus[level], burst)
		if err != nil {
			return size.Window{}, err
		}
		m, err := e.Window(ctx, o)
		if err != nil {
			return size.Window{}, err
		}
		w := p.record(m, unlimitedMs)
		windows[level] = append(windows[level], w)
		return w.Window, nil
	})
	if err != nil {
		return err
	}
	r.answer(p, ans, windows, burst)
	pair.PassCPUs, pair.FailCPUs, pair.Incomplete = ans.Bracket.PassCPUs, ans.Bracket.FailCPUs, ans.Incomplete
	r.Pairs = append(r.Pairs, pair)
	r.Windows += ans.Windows
	return nil
}
