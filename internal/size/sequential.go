package size

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Verdict is what a level's windows say about it.
type Verdict string

// The verdicts of a level (an arm).
const (
	// Pass: windows meet the target with probability at least Share, at
	// the confidence asked.
	Pass Verdict = "pass"
	// Fail: windows meet the target with probability below Clear, at the
	// confidence asked.
	Fail Verdict = "fail"
	// Undecided: the windows at hand say neither, yet (or ever: the level's
	// cap was reached).
	Undecided Verdict = "undecided"
)

// Defaults of Sequential, in one place.
const (
	DefaultConfidence = 0.95
	// DefaultShare is q: a passing level's median window meets the target
	// (MLRsearch's goal exceed ratio of 50%, mirrored).
	DefaultShare = 0.5
	// DefaultClear is q1: nine windows in ten meet the target.
	DefaultClear = 0.9
	// DefaultLevelWindows is the cap on windows at one level: about twice
	// the test's expected count at its hardest p, so that few levels end
	// undecided, and twice the 10 a grid sweep spends per level.
	DefaultLevelWindows = 20
)

// Sequential is the test each level gets: Wald's sequential probability
// ratio test (SPRT) on its window verdicts, of H0 "a window meets the
// target with probability Share" against H1 "... with probability Clear",
// truncated at LevelWindows.
//
// Why the SPRT rather than an exact (Clopper–Pearson) bound recomputed after
// each window: such a bound is exact for a number of windows fixed in
// advance, but looked at after every window and stopped on when it clears,
// it is no longer at its level (optional stopping: at Share 1/2 and 95%,
// the chance that a level whose windows meet the target half of the time
// ever shows a bound above 1/2 within 20 windows is 0.099, not 0.05, see
// TestRepeatedBoundIsNotAtItsLevel). Wald's boundaries hold at every look:
// with A = 1/α and B = α (α = 1 − Confidence), the chance of a pass when
// p ≤ Share, and of a fail when p ≥ Clear, is at most α whatever the
// stopping (Wald's inequalities; truncation only removes verdicts), and no
// test with those errors uses fewer windows on average at Share or Clear.
// TestSequentialErrorsExact checks both errors exactly.
//
// The verdict also needs the exact binomial confidence of Confidence
// (VerdictConfidence) to reach Confidence, so that no arm reads "pass,
// 93%"; that only removes verdicts, and so keeps the errors.
type Sequential struct {
	// Confidence is c, the confidence each verdict must reach (--confidence).
	Confidence float64
	// Share is q: a level passes when a window there meets the target with
	// probability at least Share.
	Share float64
	// Clear is q1 > q: a level whose windows meet the target with
	// probability Clear or more is clearly passing, and the test says fail
	// there with probability at most 1 − c. Between Share and Clear either
	// verdict may come: the price of deciding in a few windows.
	Clear float64
	// LevelWindows caps the windows measured at one level, refused ones
	// included; a level still undecided there stays undecided.
	LevelWindows int
}

// DefaultSequential is the test with the defaults.
func DefaultSequential() Sequential {
	return Sequential{Confidence: DefaultConfidence, Share: DefaultShare, Clear: DefaultClear, LevelWindows: DefaultLevelWindows}
}

// Check says what is wrong with the test's parameters; nil when they are
// usable. Errors are plain: the command names its flags.
func (s Sequential) Check() error {
	switch {
	case !(s.Confidence > 0 && s.Confidence < 1):
		return fmt.Errorf("confidence %v is not between 0 and 1", s.Confidence)
	case !(s.Share > 0 && s.Share < s.Clear && s.Clear < 1):
		return fmt.Errorf("share %v and clear %v must satisfy 0 < share < clear < 1", s.Share, s.Clear)
	case s.LevelWindows < 1:
		return errors.New("the windows per level must be at least 1")
	}
	return nil
}

// step is each window's addition to the log likelihood ratio of H1 to H0.
func (s Sequential) step(pass bool) float64 {
	if pass {
		return math.Log(s.Clear / s.Share)
	}
	return math.Log((1 - s.Clear) / (1 - s.Share))
}

// Decide is the verdict after passes and fails counted windows: Undecided
// means "measure another window" (the caller stops at LevelWindows).
func (s Sequential) Decide(passes, fails int) Verdict {
	llr := float64(passes)*s.step(true) + float64(fails)*s.step(false)
	bound := math.Log(1 / (1 - s.Confidence))
	switch {
	case llr >= bound && s.VerdictConfidence(Pass, passes, fails) >= s.Confidence:
		return Pass
	case llr <= -bound && s.VerdictConfidence(Fail, passes, fails) >= s.Confidence:
		return Fail
	}
	return Undecided
}

// VerdictConfidence is the exact binomial (Clopper–Pearson, one-sided)
// confidence of verdict v from passes of passes+fails windows, as if that
// number had been fixed in advance: for Pass, that windows meet the target
// with probability above Share (1 − P(X ≥ passes) for X ~ Bin(n, Share));
// for Fail, that they do with probability below Clear (1 − P(X ≤ passes)
// for X ~ Bin(n, Clear)); for Undecided, the confidence a pass would have.
// 0 without windows.
func (s Sequential) VerdictConfidence(v Verdict, passes, fails int) float64 {
	n := passes + fails
	if n == 0 {
		return 0
	}
	if v == Fail {
		return 1 - distuv.Binomial{N: float64(n), P: s.Clear}.CDF(float64(passes))
	}
	// P(X ≥ passes) = 1 − CDF(passes − 1).
	return distuv.Binomial{N: float64(n), P: s.Share}.CDF(float64(passes - 1))
}

// MinWindows is the fewest windows in which a level can pass: every one of
// them passing. More than LevelWindows means no level can ever pass: too
// few windows per level for the confidence asked.
func (s Sequential) MinWindows() int {
	for n := 1; n <= 10000; n++ {
		if s.Decide(n, 0) == Pass {
			return n
		}
	}
	return math.MaxInt
}

// ShareBounds are one-sided Clopper–Pearson bounds, each at confidence c,
// on the share of windows that meet the target, from passes of n counted
// windows: with probability c the true share is at least lo, and with
// probability c at most hi. It is what a verdict showed, in the terms a
// user sets a margin by ("at least 74% of windows meet it"); the windows
// are counted as if their number had been fixed in advance (a sequential
// test stops early, which these bounds do not model). n = 0 gives 0 and 1.
func ShareBounds(passes, n int, c float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	lo, hi = 0, 1
	if passes > 0 {
		lo = distuv.Beta{Alpha: float64(passes), Beta: float64(n - passes + 1)}.Quantile(1 - c)
	}
	if passes < n {
		hi = distuv.Beta{Alpha: float64(passes + 1), Beta: float64(n - passes)}.Quantile(c)
	}
	return lo, hi
}
