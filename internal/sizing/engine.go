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
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/usage"
	"github.com/throttlebench/throttlebench/internal/words"
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

// Run measures the unlimited arm, then searches the grid. It always
// returns the result reached, with Outcome saying what it is: a
// recommendation, decided that no limit meets the target, or undecided
// (Why says why). On --budget the answer is the bracket reached so far
// (Result.Incomplete); a cancel of ctx (Ctrl-C) returns the result so far
// with ctx's error, and --serve's server exiting with a
// *ServerExitedError.
func (e Engine) Run(ctx context.Context, p Plan) (Result, error) {
	parent := ctx
	if p.Budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Budget)
		defer cancel()
	}
	r := newResult(p)
	unl, figure, trace, uans, err := e.unlimited(ctx, p)
	r.UnlimitedMs, r.BoundMs = jsonNumber(figure), jsonNumber(p.SLO.BoundMs(figure))
	r.floor(p, unl.Windows)
	r.farBound(p, figure)
	r.Arms, r.UsageRules, r.Windows = append(r.Arms, unl), rules(trace), len(unl.Windows)
	if len(unl.Windows) > 0 {
		r.Kernel, r.CgroupVersion = unl.Windows[0].kernel, unl.Windows[0].cgroupVersion
	}
	if err != nil || uans.Incomplete {
		return r.end(p, parent, uans.Stopped, err, "while the unlimited arm was measured")
	}
	if unl.Verdict != size.Pass {
		r.Recommendation = nil
		r.unlimitedFails(p, unl, e.NumCPU)
		return r, nil
	}
	rng := size.DefaultRange(trace, p.SLO.Slack(figure), e.NumCPU, p.Grid.Period)
	levels, err := p.Grid.Levels(rng)
	if err != nil {
		return r, err
	}
	r.Range = &Range{MinCPUs: levels[0], MaxCPUs: levels[len(levels)-1], Default: rng.Why, Levels: levels}
	for _, burst := range p.Bursts {
		if err := e.search(ctx, p, &r, levels, burst, figure); err != nil || parent.Err() != nil {
			return r.end(p, parent, r.Stopped, err, "")
		}
	}
	if r.Incomplete && ctx.Err() != nil {
		r.Stopped = budgetSpent(p) // the only deadline inside the engine
	}
	r.recommend(p)
	if err := e.ruleArms(ctx, p, &r, figure); err != nil || parent.Err() != nil {
		return r.end(p, parent, r.Stopped, err, "")
	}
	r.busy(p)
	r.contention(p)
	return r, nil
}

// end closes a result that stopped before its answer: Ctrl-C, --serve's
// server exiting, a budget spent (where, when before any level: the
// unlimited arm), or another error. What was measured is kept, marked
// incomplete, and undecided unless a level had passed already.
func (r *Result) end(p Plan, parent context.Context, stopped string, err error, where string) (Result, error) {
	var exited *ServerExitedError
	switch {
	case parent.Err() != nil:
		err, stopped = parent.Err(), "interrupted"
		if c := context.Cause(parent); c != nil && c != parent.Err() {
			stopped = c.Error()
		}
	case errors.As(err, &exited):
		stopped, r.ServerExited = exited.Error(), true
	case err == nil && stopped != "":
		stopped = budgetSpent(p)
		if where != "" {
			stopped += " " + where + ": give a longer one (the unlimited arm needs its windows before any level)"
		}
	case err != nil:
		stopped = err.Error()
	}
	r.Incomplete, r.Stopped = true, stopped
	if r.Recommendation == nil && where == "" {
		r.recommend(p)
	}
	if where != "" {
		r.Recommendation = nil
	}
	if r.Recommendation == nil || r.Recommendation.Unlimited {
		r.Recommendation = nil
		r.Outcome, r.Why = OutcomeUndecided, stopped
	}
	r.busy(p)
	r.contention(p)
	return *r, err
}

// budgetSpent is why a search that --budget stopped stopped.
func budgetSpent(p Plan) string { return "--budget " + p.Budget.String() + " ran out" }

// unlimitedFails says why there is no answer where the unlimited arm did
// not pass: decided (it failed: no limit can meet the target), or
// undecided (its windows were refused, or too few to tell), with the
// cause; and where its usage shows work that never used more than about
// one CPU while it failed, that it is serial.
func (r *Result) unlimitedFails(p Plan, unl Arm, numCPU int) {
	counted := unl.Passes + unl.Fails
	tally := fmt.Sprintf("%d of %s met it", unl.Passes, words.N(counted, "counted window"))
	if unl.Refused > 0 {
		tally += fmt.Sprintf(", %d refused (%s)", unl.Refused, refusals(unl.Windows))
	}
	if unl.Verdict == size.Fail {
		r.Outcome = OutcomeNoLimit
		r.Why = fmt.Sprintf("the unlimited arm fails %s (%s): no limit can meet it", p.SLO, tally)
		switch peak, ok := peakCPUs(unl.Windows); {
		case !ok || numCPU < 2:
		case peak > SerialCPUs:
		case peak >= 2-SerialCPUs:
			r.Why += fmt.Sprintf("; its usage never went above %.2f CPUs in any 100 ms while it failed: the work is serial, so more CPUs cannot help (make it cheaper, or run more instances)", peak)
		default:
			r.Why += fmt.Sprintf("; its usage never went above %.2f CPUs in any 100 ms while it failed: it was not short of CPU, so no limit can help (the target is beyond what the work does with all the CPUs)", peak)
		}
	} else {
		r.Outcome = OutcomeUndecided
		r.Why = fmt.Sprintf("the unlimited arm is undecided on %s after %s (%s)", p.SLO, words.N(len(unl.Windows), "window"), tally)
		if refused := contended(unl.Windows); len(refused) > 0 {
			r.Why += fmt.Sprintf("; %d of its windows waited a median %.0f%% of their runnable time for CPUs others held", len(refused), 100*medianWaitShare(refused))
		}
	}
	r.busy(p)
	r.contention(p)
}

// SerialCPUs is the most a failing unlimited arm may use in any 100 ms
// and still be called serial: one CPU, and the sampler's jitter (a 100 ms
// interval sampled 5 ms late reads 5% high); from 2 − SerialCPUs on, it
// used that one CPU whole. Below, it was not short of CPU at all.
const SerialCPUs = 1.1

// peakCPUs is the most the windows used in any whole 100 ms.
func peakCPUs(ws []Window) (float64, bool) {
	peak, ok := 0.0, false
	for _, w := range ws {
		for _, c := range w.cpus100ms {
			peak, ok = max(peak, c), true
		}
	}
	return peak, ok
}

// farBound warns of an absolute bound far above what the unlimited arm
// shows: a unit slip (50s for 50ms) makes every level pass.
func (r *Result) farBound(p Plan, unlimitedMs float64) {
	if p.SLO.Relative() || r.BoundMs == nil || !(unlimitedMs > 0) {
		return
	}
	if f := *r.BoundMs / unlimitedMs; f >= FarBound {
		r.Warnings = append(r.Warnings, report.Warn(report.KindBoundUnit, "the bound %s ms is above the unlimited arm's %s (%s ms) by ×%.0f: every level near it passes; did you mean ms?",
			table.Sig(*r.BoundMs, 3), p.SLO.Stat, table.Sig(unlimitedMs, 3), f))
	}
}

// FarBound is how many times the unlimited arm's figure an absolute
// bound may be before it is warned of: a limit at a tenth of the CPU the
// work needs still runs it within 10× its unlimited figure, so above
// 100× the bound says more about its unit than about the limit.
const FarBound = 100

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
		r.Warnings = append(r.Warnings, report.Warn(report.KindNearFloor, "the bound %s ms is under %g× the harness's own floor (%s %s ms, requests that need nothing): verdicts this close to it owe as much to this machine's timers as to the limit",
			table.Sig(*r.BoundMs, 3), float64(build.FloorFactor), p.SLO.Stat, table.Sig(f, 3)))
	}
}

// busy says how many windows were contended: refused, how to count them
// instead; counted, which way they lean; and, under the refusal's share,
// how many counted windows waited and how much.
func (r *Result) busy(p Plan) {
	if ws := waited(r.allWindows()); len(ws) > 0 {
		r.Warnings = append(r.Warnings, report.Warn(report.KindBusyMachine, "%d of %d windows waited for CPUs others held, a median %.0f%% of their runnable time (their contention blocks say how long), and were counted: their figures include that wait, so an absolute target's answer errs towards more CPU",
			len(ws), len(r.allWindows()), 100*medianWaitShare(ws)))
	}
	n, of := 0, 0
	for _, a := range r.Arms {
		n, of = n+len(contended(a.Windows)), of+len(a.Windows)
	}
	switch {
	case n == 0:
	case p.CountBusy:
		r.Warnings = append(r.Warnings, report.Warn(report.KindBusyMachine, "%d of %d windows were contended (the work waited for CPUs others held) and were counted (--busy count): contention slows a window at any limit, so an absolute target's answer errs towards more CPU, and a relative one's base (the unlimited arm) may be slow too", n, of))
	default:
		refused := contended(r.allWindows())
		r.Warnings = append(r.Warnings, report.Warn(report.KindWindowsRefused, "%d of %d windows were refused because the work waited for CPUs others held (a median %.0f%% of its runnable time in those): measure where it competes less, or give --busy count to count them, marked", n, of, 100*medianWaitShare(refused)))
	}
}

// contention sums up the windows' contention, and warns where a relative
// target's base (the unlimited arm) met more or less of it than the
// levels it judges.
func (r *Result) contention(p Plan) {
	var unl, lv []Window
	for _, a := range r.Arms {
		if a.Unlimited {
			unl = append(unl, a.Windows...)
		} else {
			lv = append(lv, a.Windows...)
		}
	}
	all := r.allWindows()
	c := ContentionSummary{ContendedWindows: len(contended(all)), Windows: len(all)}
	if x := medianWaitShare(unl); !math.IsNaN(x) {
		c.UnlimitedWaitShare = &x
	}
	if x := medianWaitShare(lv); !math.IsNaN(x) {
		c.LevelsWaitShare = &x
	}
	r.Contention = c
	if p.SLO.Relative() && c.UnlimitedWaitShare != nil && c.LevelsWaitShare != nil &&
		math.Abs(*c.UnlimitedWaitShare-*c.LevelsWaitShare) >= build.DefaultThresholds.ContendedShare/2 {
		r.Warnings = append(r.Warnings, report.Warn(report.KindBaseContention, "the unlimited arm's windows waited a median %.0f%% of their runnable time for CPUs others held, the levels' %.0f%%: the relative bound's base was measured under other contention than the levels it judges",
			100**c.UnlimitedWaitShare, 100**c.LevelsWaitShare))
	}
}

func (r *Result) allWindows() []Window {
	var ws []Window
	for _, a := range r.Arms {
		ws = append(ws, a.Windows...)
	}
	return ws
}

// refusable says a window's work waited for CPUs others held for a
// share of its runnable time at which size refuses it.
func refusable(c *report.Contention) bool {
	return c != nil && c.Contended && c.WaitShare >= build.DefaultThresholds.RefuseShare
}

// contended are the windows refused for their wait (or with --busy
// count counted and marked busy).
func contended(ws []Window) []Window {
	var out []Window
	for _, w := range ws {
		if refusable(w.Contention) {
			out = append(out, w)
		}
	}
	return out
}

// waited are the windows counted whose work waited for CPUs others held
// (contended, under the refusal's share).
func waited(ws []Window) []Window {
	var out []Window
	for _, w := range ws {
		if c := w.Contention; c != nil && c.Contended && !refusable(c) {
			out = append(out, w)
		}
	}
	return out
}

// medianWaitShare is the median of the windows' wait shares; NaN where
// none was read.
func medianWaitShare(ws []Window) float64 {
	var xs []float64
	for _, w := range ws {
		if w.Contention != nil {
			xs = append(xs, w.Contention.WaitShare)
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	return stats.Quantile(xs, 0.5)
}

// unlimited measures the unlimited arm as a level is measured (one
// level loop: size.Search's, over a grid of one): its sequential test up
// to a level's cap, each window judged against the median figure of the
// arm's counted windows so far (a relative SLO's base), and all of them
// judged again against the final median once it ends. It gives the arm,
// that median, the arm's usage every 100 ms (its windows joined) and the
// search's answer (its stop, its warnings).
func (e Engine) unlimited(ctx context.Context, p Plan) (Arm, float64, usage.Trace, size.Answer, error) {
	arm := Arm{Order: 1, Unlimited: true, QuotaUs: nil}
	o, err := p.Options(math.Inf(1), 0)
	if err != nil {
		return arm, 0, usage.Trace{}, size.Answer{}, err
	}
	var figures []float64
	base := func() float64 {
		if len(figures) == 0 {
			return math.NaN()
		}
		xs := slices.Sorted(slices.Values(figures))
		return stats.Quantile(xs, 0.5)
	}
	ans, err := e.level(ctx, p, o, &arm, func(w *Window) {
		if w.Refused == "" && !(w.short && w.Figure == 0) { // 0: no figure
			figures = append(figures, w.Figure)
		}
		if w.Refused == "" {
			w.Pass = !w.short && p.SLO.Meets(w.Figure, base())
		}
	})
	figure := base()
	arm.Tally = size.Tally{}
	var traces []usage.Trace
	for i := range arm.Windows {
		w := &arm.Windows[i]
		if w.Refused == "" {
			w.Pass = !w.short && p.SLO.Meets(w.Figure, figure)
		}
		arm.Count(w.Window)
		if t, ok := w.trace(); ok {
			traces = append(traces, t)
		}
	}
	arm.Verdict = p.Test.Decide(arm.Passes, arm.Fails)
	arm.Confidence = p.Test.VerdictConfidence(arm.Verdict, arm.Passes, arm.Fails)
	arm.summarize()
	var t usage.Trace
	if len(traces) > 0 {
		t = size.Join(traces...)
	}
	return arm, figure, t, ans, err
}

// level runs one setting's sequential test (o's limits) through
// size.Search's level loop, over a grid of one, each window read by record
// and then judged; its windows and verdict go into arm.
func (e Engine) level(ctx context.Context, p Plan, o plan.Options, arm *Arm, judge func(w *Window)) (size.Answer, error) {
	cpus := math.Inf(1) // the unlimited arm's, by which the search names it
	if arm.CPUs != nil {
		cpus = *arm.CPUs
	}
	one := size.Search{CPUs: []float64{cpus}, Test: p.Test}
	ans, err := one.Run(ctx, func(ctx context.Context, _ int) (size.Window, error) {
		m, err := e.Window(ctx, o)
		if err != nil {
			return size.Window{}, err
		}
		w := p.record(m, math.NaN())
		if w.exited != "" {
			return size.Window{}, &ServerExitedError{Msg: w.exited}
		}
		judge(&w)
		arm.Windows = append(arm.Windows, w)
		return w.Window, nil
	})
	if len(ans.Arms) > 0 {
		a := ans.Arms[0]
		arm.Verdict, arm.Confidence, arm.Tally, arm.Drift = a.Verdict, a.Confidence, a.Tally, a.Drift
	} else {
		arm.Verdict = size.Undecided
	}
	arm.summarize()
	return ans, err
}

// ServerExitedError is --serve's server exiting during a window: no
// verdict on the quota, and no reason to go on, so it ends the search at
// once; Msg says how, with the end of its stderr.
type ServerExitedError struct{ Msg string }

func (e *ServerExitedError) Error() string { return "the server exited: " + e.Msg }

// record reads one window: its figure, whether it is refused, its
// counters; and its verdict against unlimitedMs (NaN: judged later).
func (p Plan) record(m Measured, unlimitedMs float64) Window {
	var w Window
	switch {
	case m.Latency != nil:
		l := m.Latency
		w.Figure = p.SLO.FromLatency(l.LatencyMs)
		w.GOMAXPROCS, w.Seed, w.CPUMs, w.WindowMs = l.Config.GOMAXPROCS, &l.Config.Seed, l.CPUMs, l.WindowMs
		w.OfferedRPS, w.AchievedRPS, w.Throttling = &l.OfferedRPS, &l.AchievedRPS, l.Throttling
		w.short = l.Dropped > 0 || l.AchievedRPS < ShortRate*l.OfferedRPS
		w.kernel, w.cpus100ms, w.floor, w.Contention = l.Host.Kernel, l.CPUs100ms, l.FloorMs, l.Contention
		w.cgroupVersion = l.Cgroup.Version
		// The window ends with its last response; on-off arrivals leave
		// the rest of the schedule quiet, which a service's usage has too.
		// Counted from the sampled intervals' end, to the nearest interval.
		if p.WindowLength > time.Duration(l.WindowMs*float64(time.Millisecond)) {
			tail := p.WindowLength - time.Duration(len(l.CPUs100ms))*usage.PeakInterval
			w.idle100ms = int(math.Round(float64(tail) / float64(usage.PeakInterval)))
		}
		if t := l.TargetResult; t != nil {
			// The server's own failures under a quota are the window's
			// failing; its exit is no verdict on the quota.
			w.Short = build.TargetFailure(l, p.Rule)
			w.short = w.short || w.Short != ""
			if w.Short != "" {
				// TargetFailure's own split: nothing sent, or too many failed.
				w.Reason = ReasonFailed
				if l.HTTP.Requests == l.HTTP.Cancelled {
					w.Reason = ReasonNoRequestSent
				}
			}
			if t.ServerExited != "" {
				// How it exited, then the end of its stderr, as latency
				// --serve says it (printed indented under the error).
				w.exited = words.WithStderr(t.ServerExited, strings.Join(t.ServerStderr, "\n"))
			}
		}
	case m.Run != nil:
		r := m.Run
		w.Figure = p.SLO.FromRun(*r)
		w.GOMAXPROCS, w.CPUMs, w.Throttling = r.Config.GOMAXPROCS, r.Usage.CPUMs, r.Throttling
		for _, d := range r.DurationsMs {
			w.WindowMs += d
		}
		w.kernel, w.cpus100ms, w.Contention, w.cgroupVersion = r.Host.Kernel, r.CPUs100ms, r.Contention, r.Cgroup.Version
	}
	// Refused (or counted, marked) only where the work measurably waited
	// for CPUs others held nearly as long as it ran
	// (build.DefaultThresholds.RefuseShare says why); a lesser wait is
	// counted, and said.
	if refusable(w.Contention) {
		if p.CountBusy {
			w.Busy = true
		} else {
			w.Refused, w.Reason = RefusedContended, ReasonContended
		}
	}
	if math.IsNaN(w.Figure) || math.IsInf(w.Figure, 0) {
		w.Figure, w.short = 0, true
	}
	switch {
	case w.Short != "":
	case w.short && w.Figure == 0:
		w.Short, w.Reason = "no figure: nothing completed", ReasonNoFigure
	case w.short:
		w.Reason = ReasonShortRate
		w.Short = fmt.Sprintf("achieved %.4g of %.4g requests/s offered, %d dropped", *w.AchievedRPS, *w.OfferedRPS, m.Latency.Dropped)
	}
	if !math.IsNaN(unlimitedMs) && w.Refused == "" {
		w.Pass = !w.short && p.SLO.Meets(w.Figure, unlimitedMs)
	}
	return w
}

// trace is the window's usage every 100 ms, as the runner sampled it
// (usage.PeakInterval), the scale at which a quota bites and the usage
// rules' finest grain, then the schedule's quiet tail as idle intervals:
// without them on-off arrivals would look busier to the rules than the
// service they stand for is.
func (w Window) trace() (usage.Trace, bool) {
	if len(w.cpus100ms) == 0 {
		return usage.Trace{}, false
	}
	t := usage.Trace{Interval: usage.PeakInterval, Samples: []usage.Sample{{}}}
	var used time.Duration
	for i, c := range append(slices.Clip(w.cpus100ms), make([]float64, w.idle100ms)...) {
		used += time.Duration(c * float64(usage.PeakInterval))
		t.Samples = append(t.Samples, usage.Sample{At: time.Duration(i+1) * usage.PeakInterval, Usage: used})
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
		r.Warnings = append(r.Warnings, report.Warn(report.KindBurstSkipped, "--burst %v is above every level's quota: not searched", burst))
		r.Pairs = append(r.Pairs, pair)
		return nil
	}
	if skipped := len(levels) - len(cpus); skipped > 0 {
		r.Warnings = append(r.Warnings, report.Warn(report.KindBurstSkipped, "at --burst %v: the grid's %d lowest levels hold less quota than the burst, which the kernel refuses: searched from %.4g CPUs", burst, skipped, cpus[0]))
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
		if w.exited != "" {
			return size.Window{}, &ServerExitedError{Msg: w.exited}
		}
		windows[level] = append(windows[level], w)
		return w.Window, nil
	})
	r.answer(p, ans, windows, burst)
	pair.PassCPUs, pair.FailCPUs, pair.Incomplete = ans.Bracket.PassCPUs, ans.Bracket.FailCPUs, ans.Incomplete || err != nil
	r.Pairs = append(r.Pairs, pair)
	r.Windows += ans.Windows
	return err
}
