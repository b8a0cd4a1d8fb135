package size

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/stats"
	"github.com/throttlebench/throttlebench/internal/words"
)

// Window is the unit of evidence: one window measured at one level. The
// command's own record of a window (its counters, GOMAXPROCS) can embed it.
type Window struct {
	// Pass is the window's verdict: its Figure met the target.
	Pass bool `json:"pass"`
	// Figure is the statistic the target is on (the window's pNN, or its
	// mean), in the target's own unit; the search only carries it, for the
	// drift guard and for the caller's table and plot. It must be finite
	// (JSON has no NaN): a refused window without one carries 0.
	Figure float64 `json:"figure_ms"`
	// Refused, when not empty, says why this window gives no verdict (the
	// achieved rate fell short of the offered one, the machine was busy,
	// the program failed): it is counted as neither pass nor fail, it
	// counts toward the caps, and its reason goes to the warnings.
	Refused string `json:"refused,omitempty"`
}

// Measure measures one window at grid level level (an index into
// Search.CPUs). An error stops the search; an error while ctx is done is
// taken as the search being cut short, and that window is dropped.
type Measure func(ctx context.Context, level int) (Window, error)

// Arm is one level measured, with all its windows.
type Arm struct {
	// Level is the index of the level in the grid.
	Level int `json:"level"`
	// CPUs is the level's quota, in CPUs (quota over period).
	CPUs float64 `json:"cpus"`
	// Verdict is the level's sequential test's verdict.
	Verdict Verdict `json:"verdict"`
	// Confidence is the verdict's exact binomial confidence
	// (Sequential.VerdictConfidence), from 0 to 1.
	Confidence float64 `json:"confidence"`
	Tally
	// Drift is set when the figures of the first third of the counted
	// windows differ from those of the last third (a U test at 1 − c).
	Drift bool `json:"drift,omitempty"`
	// Windows are the level's windows, in the order measured.
	Windows []Window `json:"windows"`
}

// Tally counts a level's windows: Passes and Fails those that met the
// target and those that did not, Refused those that gave no verdict.
type Tally struct {
	Passes  int `json:"passes"`
	Fails   int `json:"fails"`
	Refused int `json:"refused"`
}

// Count adds w to the tally.
func (t *Tally) Count(w Window) {
	switch {
	case w.Refused != "":
		t.Refused++
	case w.Pass:
		t.Passes++
	default:
		t.Fails++
	}
}

// Bracket is the answer: the smallest level that passed and the level
// below it that did not.
type Bracket struct {
	// Pass is the grid index of the smallest level that passed; -1 when
	// none did.
	Pass int `json:"-"`
	// Fail is the grid index of the highest level below Pass that did not
	// pass (failed, or undecided: see its arm); -1 when Pass is the grid's
	// lowest level, or nothing below it was measured. In a complete search
	// it is the level just below Pass.
	Fail int `json:"-"`
	// PassCPUs and FailCPUs are those levels in CPUs; null for none.
	PassCPUs *float64 `json:"pass_cpus"`
	FailCPUs *float64 `json:"fail_cpus"`
}

// Answer is a search's result: the bracket, every arm measured, and what
// the reader must know (warnings, as data).
type Answer struct {
	Bracket Bracket `json:"bracket"`
	// Arms are the levels measured, in the order they were.
	Arms []Arm `json:"arms"`
	// Windows counts the windows measured, refused ones included.
	Windows int `json:"windows"`
	// Incomplete is set when a budget or ctx stopped the search before the
	// bracket closed: the bracket is the one reached so far. Stopped says
	// why.
	Incomplete bool             `json:"incomplete,omitempty"`
	Stopped    string           `json:"stopped,omitempty"`
	Warnings   []report.Warning `json:"warnings,omitempty"`
}

// Arm is the arm measured at grid level level, or nil.
func (a Answer) Arm(level int) *Arm {
	for i := range a.Arms {
		if a.Arms[i].Level == level {
			return &a.Arms[i]
		}
	}
	return nil
}

// Search is a noisy bisection over a grid of CPU levels.
type Search struct {
	// CPUs is the grid, in CPUs, strictly ascending.
	CPUs []float64
	// Test decides each level.
	Test Sequential
	// MaxWindows, when above 0, is the budget of windows for the whole
	// search; a deadline or a cancel on ctx stops it too.
	MaxWindows int
	// Progress, when not nil, is called after each window with the windows
	// used and a bound on the windows the search will use in all (it only
	// falls), for the command's bar.
	Progress func(used, atMost int)
}

// AtMost bounds the windows the search will use, before it starts: the
// levels a bisection of the grid visits at most, each at its cap, within
// the budget.
func (s Search) AtMost() int { return s.bound(0, 0, len(s.CPUs)) }

// bound is used windows, plus left at the current level, plus the levels
// that open more levels take to bisect, each at its cap.
func (s Search) bound(used, left, open int) int {
	n := used + left + bits.Len(uint(max(open, 0)))*s.Test.LevelWindows
	if s.MaxWindows > 0 {
		n = min(n, s.MaxWindows)
	}
	return n
}

// Check says what is wrong with the search's settings.
func (s Search) Check() error {
	if len(s.CPUs) == 0 {
		return errors.New("the grid has no level")
	}
	for i := 1; i < len(s.CPUs); i++ {
		if !(s.CPUs[i] > s.CPUs[i-1]) {
			return fmt.Errorf("the grid is not strictly ascending at %v, %v", s.CPUs[i-1], s.CPUs[i])
		}
	}
	return s.Test.Check()
}

// Run searches the grid. It bisects between lo, the highest level known
// not to pass (−1 below the grid), and hi, the lowest known to pass (past
// the grid): a level that does not pass, failed or undecided at its cap,
// moves the search up, which can only make the answer higher, never wrong
// in the direction that misses the target. On a budget, a deadline or a
// cancel it returns the bracket reached so far, marked Incomplete, and no
// error; an error from measure comes back with the answer so far.
func (s Search) Run(ctx context.Context, measure Measure) (Answer, error) {
	if err := s.Check(); err != nil {
		return Answer{}, err
	}
	var a Answer
	if m := s.Test.MinWindows(); m > s.Test.LevelWindows {
		a.Warnings = append(a.Warnings, report.Warn(report.KindSearchUnsure, "no level can pass: %s per level are too few for confidence %v, which needs at least %d",
			words.N(s.Test.LevelWindows, "window"), s.Test.Confidence, m))
	}
	lo, hi := -1, len(s.CPUs)
	var err error
	for hi-lo > 1 && !a.Incomplete && err == nil {
		mid := lo + (hi-lo)/2
		var arm Arm
		arm, err = s.level(ctx, measure, &a, mid, max(mid-lo-1, hi-mid-1))
		if len(arm.Windows) > 0 { // a stop before its first window measured nothing
			a.Arms = append(a.Arms, arm)
		}
		switch {
		case arm.Verdict == Pass:
			hi = mid
		case !a.Incomplete && err == nil:
			lo = mid
		}
	}
	if s.Progress != nil {
		s.Progress(a.Windows, a.Windows)
	}
	if err != nil && !a.Incomplete {
		// A failed window ends the search where it stands, as a stop does.
		a.Incomplete, a.Stopped = true, err.Error()
	}
	a.Bracket = s.bracket(lo, hi)
	a.Warnings = append(a.Warnings, s.warnings(a)...)
	return a, err
}

// level runs one level's sequential test; worst is the most levels left
// open on either side of it, for the progress bound.
func (s Search) level(ctx context.Context, measure Measure, a *Answer, level, worst int) (Arm, error) {
	arm := Arm{Level: level, CPUs: s.CPUs[level], Verdict: Undecided}
	for len(arm.Windows) < s.Test.LevelWindows {
		if s.MaxWindows > 0 && a.Windows >= s.MaxWindows {
			a.Incomplete, a.Stopped = true, fmt.Sprintf("the budget of %s was spent", words.N(s.MaxWindows, "window"))
			break
		}
		if stop := stopped(ctx); stop != "" {
			a.Incomplete, a.Stopped = true, stop
			break
		}
		w, err := measure(ctx, level)
		if err != nil {
			if stop := stopped(ctx); stop != "" {
				a.Incomplete, a.Stopped = true, stop
				break
			}
			return s.finish(arm), fmt.Errorf("window %d %s: %w", len(arm.Windows)+1, levelName(arm.CPUs), err)
		}
		arm.Windows = append(arm.Windows, w)
		a.Windows++
		arm.Count(w)
		arm.Verdict = s.Test.Decide(arm.Passes, arm.Fails)
		if s.Progress != nil {
			left, open := s.Test.LevelWindows-len(arm.Windows), worst
			if arm.Verdict != Undecided {
				left = 0
			}
			s.Progress(a.Windows, s.bound(a.Windows, left, open))
		}
		if arm.Verdict != Undecided {
			break
		}
	}
	return s.finish(arm), nil
}

// finish fills in what an arm's windows imply: its confidence and drift.
func (s Search) finish(arm Arm) Arm {
	arm.Confidence = s.Test.VerdictConfidence(arm.Verdict, arm.Passes, arm.Fails)
	_, arm.Drift = drift(arm.Windows, 1-s.Test.Confidence)
	return arm
}

// stopped says why ctx stopped the search, or "" while it runs.
// levelName names a level in an error: "at 0.5 CPUs", or for a grid of
// the unlimited setting alone (+Inf CPUs), "of the unlimited arm".
func levelName(cpus float64) string {
	if math.IsInf(cpus, 1) {
		return "of the unlimited arm"
	}
	return "at " + words.F(cpus, "CPU")
}

func stopped(ctx context.Context) string {
	switch err := ctx.Err(); {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "the deadline passed"
	default:
		return "it was interrupted"
	}
}

func (s Search) bracket(lo, hi int) Bracket {
	b := Bracket{Pass: -1, Fail: lo}
	if hi < len(s.CPUs) {
		b.Pass = hi
		b.PassCPUs = &s.CPUs[hi]
	}
	if lo >= 0 {
		b.FailCPUs = &s.CPUs[lo]
	}
	return b
}

// warnings are what the answer's reader must know, beyond the bracket.
func (s Search) warnings(a Answer) []report.Warning {
	var ws []report.Warning
	for _, arm := range a.Arms {
		ws = append(ws, armWarnings(arm, s.Test)...)
	}
	ws = append(ws, Contradictions(a.Arms)...)
	b := a.Bracket
	switch {
	case a.Incomplete:
		ws = append(ws, report.Warn(report.KindSearchStopped, "the search stopped before its bracket closed (%s): the bracket is the one reached so far", a.Stopped))
	case b.Pass == 0:
		ws = append(ws, report.Warn(report.KindBracketOpen, "every level passed, down to the grid's lowest, %s: no failing level bounds the answer from below", words.F(s.CPUs[0], "CPU")))
	case b.Pass < 0:
		ws = append(ws, report.Warn(report.KindBracketOpen, "no level passed, up to the grid's highest, %s", words.F(s.CPUs[len(s.CPUs)-1], "CPU")))
	}
	if b.Fail >= 0 && b.Pass >= 0 {
		if arm := a.Arm(b.Fail); arm != nil && arm.Verdict == Undecided {
			ws = append(ws, report.Warn(report.KindSearchUnsure, "the level below the answer, %s, is undecided, not failed: the answer may be a step higher than needed", words.F(arm.CPUs, "CPU")))
		}
	}
	return ws
}

// armWarnings are one arm's refusals, cap and drift, each in one line.
func armWarnings(arm Arm, t Sequential) []report.Warning {
	at := words.F(arm.CPUs, "CPU") + ": "
	var ws []report.Warning
	reasons := map[string]int{}
	for _, w := range arm.Windows {
		if w.Refused != "" {
			reasons[w.Refused]++
		}
	}
	for _, r := range slices.Sorted(maps.Keys(reasons)) {
		ws = append(ws, report.Warn(report.KindWindowsRefused, "%s%s refused: %s", at, words.N(reasons[r], "window"), r))
	}
	if arm.Verdict == Undecided && len(arm.Windows) >= t.LevelWindows {
		ws = append(ws, report.Warn(report.KindSearchUnsure, "%sundecided after %s (%d met the target, %d did not): too few windows for confidence %v",
			at, words.N(len(arm.Windows), "window"), arm.Passes, arm.Fails, t.Confidence))
	}
	if p, ok := drift(arm.Windows, 1-t.Confidence); ok {
		ws = append(ws, report.Warn(report.KindSearchUnsure, "%sthe windows drift: the first third's figures differ from the last third's (U test p=%.2g)", at, p))
	}
	return ws
}

// Contradictions are the pairs of decided arms where more CPU did worse: a
// level that failed above one that passed. The search alone never makes
// one (a bisection measures only between its bounds); arms the caller
// measured beside it (the usage rules' limits) can, so it takes any arms.
func Contradictions(arms []Arm) []report.Warning {
	var ws []report.Warning
	for _, hi := range arms {
		if hi.Verdict != Fail {
			continue
		}
		var below []string
		for _, lo := range arms {
			if lo.Verdict == Pass && lo.CPUs < hi.CPUs {
				below = append(below, words.F(lo.CPUs, "CPU"))
			}
		}
		if len(below) > 0 {
			ws = append(ws, report.Warn(report.KindSearchUnsure, "%s failed, above %s, which passed: more CPU did worse here, so the limits do not order as the search assumes",
				words.F(hi.CPUs, "CPU"), strings.Join(below, ", ")))
		}
	}
	return ws
}

// drift tests the figures of the first third of a level's counted windows
// against those of the last third (stats.UTest, compare's two-sided
// Mann-Whitney U test): a level whose windows change as it is measured (a
// warming cache, a neighbour arriving) says little about its quota. ok is
// set when p < alpha; thirds too small to ever reach alpha are not tested
// (a level decided in a few windows cannot show drift, one measured long
// can).
func drift(ws []Window, alpha float64) (p float64, ok bool) {
	var figs []float64
	for _, w := range ws {
		if w.Refused == "" {
			figs = append(figs, w.Figure)
		}
	}
	n := len(figs) / 3
	if stats.UTestMinP(n, n) >= alpha {
		return 1, false
	}
	p = stats.UTest(figs[:n], figs[len(figs)-n:]) // 1 where all are equal: no drift
	return p, p < alpha
}
