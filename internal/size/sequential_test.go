package size

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestDecideKnownCases(t *testing.T) {
	s := DefaultSequential()
	// Each pass adds ln(0.9/0.5) = 0.588, each fail ln(0.1/0.5) = −1.609;
	// the bounds are ±ln(20) = ±2.996.
	for _, c := range []struct {
		passes, fails int
		want          Verdict
	}{
		{0, 0, Undecided},
		{5, 0, Undecided}, // 2.94
		{6, 0, Pass},      // 3.53
		{0, 1, Undecided}, // −1.61
		{0, 2, Fail},      // −3.22
		{1, 2, Undecided}, // −2.63
		{2, 2, Undecided}, // −2.04
		{7, 1, Undecided}, // 2.51
		{8, 1, Pass},      // 3.10
		{3, 3, Fail},      // −3.06
	} {
		assert.Equal(t, c.want, s.Decide(c.passes, c.fails), "%d passes, %d fails", c.passes, c.fails)
	}
}

func TestMinWindows(t *testing.T) {
	s := DefaultSequential()
	assert.Equal(t, 6, s.MinWindows())
	s.Confidence = 0.99 // ln(100)/ln(1.8) = 7.8
	assert.Equal(t, 8, s.MinWindows())
	s.Clear = 0.99 // ln(100)/ln(1.98) = 6.7, and 0.5^7 < 0.01
	assert.Equal(t, 7, s.MinWindows())
}

func TestVerdictConfidence(t *testing.T) {
	s := DefaultSequential()
	assert.InDelta(t, 1-1.0/64, s.VerdictConfidence(Pass, 6, 0), 1e-12)
	assert.InDelta(t, 1-0.1*0.1, s.VerdictConfidence(Fail, 0, 2), 1e-12)
	// 11 of 13: P(X ≥ 11) = (1+13+78)/8192 for X ~ Bin(13, 1/2).
	assert.InDelta(t, 1-92.0/8192, s.VerdictConfidence(Pass, 11, 2), 1e-12)
	assert.Zero(t, s.VerdictConfidence(Pass, 0, 0))
	// Every verdict the test gives has at least the confidence asked.
	for n := 1; n <= s.LevelWindows; n++ {
		for k := 0; k <= n; k++ {
			if v := s.Decide(k, n-k); v != Undecided {
				assert.GreaterOrEqual(t, s.VerdictConfidence(v, k, n-k), s.Confidence, "%d of %d: %s", k, n, v)
			}
		}
	}
}

func TestSequentialCheck(t *testing.T) {
	require.NoError(t, DefaultSequential().Check())
	for _, s := range []Sequential{
		{Confidence: 1, Share: 0.5, Clear: 0.9, LevelWindows: 20},
		{Confidence: 0.95, Share: 0.9, Clear: 0.5, LevelWindows: 20},
		{Confidence: 0.95, Share: 0.5, Clear: 1, LevelWindows: 20},
		{Confidence: 0.95, Share: 0.5, Clear: 0.9, LevelWindows: 0},
	} {
		assert.Error(t, s.Check(), "%+v", s)
	}
}

// outcomes walks every path of a level's windows exactly (no sampling): the
// probability that the test ends in each verdict when each window passes
// with probability p and none is refused.
func outcomes(s Sequential, p float64) map[Verdict]float64 {
	out := map[Verdict]float64{}
	// at[k] is the probability of being undecided after n windows, k passed.
	at := []float64{1}
	for n := 0; ; n++ {
		next := make([]float64, n+2)
		for k, pr := range at {
			if pr == 0 {
				continue
			}
			if v := s.Decide(k, n-k); v != Undecided {
				out[v] += pr
				continue
			}
			if n == s.LevelWindows {
				out[Undecided] += pr
				continue
			}
			next[k+1] += pr * p
			next[k] += pr * (1 - p)
		}
		if n == s.LevelWindows {
			return out
		}
		at = next
	}
}

// The errors the test promises, exactly: a pass at p = Share and a fail at
// p = Clear each at most 1 − c (and less away from them: the operating
// characteristic is monotone), whatever the confidence and cap.
func TestSequentialErrorsExact(t *testing.T) {
	for _, c := range []float64{0.8, 0.9, 0.95, 0.99} {
		for _, cap := range []int{5, 10, 20, 50} {
			s := DefaultSequential()
			s.Confidence, s.LevelWindows = c, cap
			assert.LessOrEqual(t, outcomes(s, s.Share)[Pass], 1-c, "pass at Share, c=%v cap=%d", c, cap)
			assert.LessOrEqual(t, outcomes(s, s.Clear)[Fail], 1-c, "fail at Clear, c=%v cap=%d", c, cap)
			assert.LessOrEqual(t, outcomes(s, 0.3)[Pass], outcomes(s, s.Share)[Pass])
		}
	}
	// And it decides: far from its hypotheses a level is rarely left
	// undecided at the default cap.
	s := DefaultSequential()
	assert.Greater(t, outcomes(s, 0.99)[Pass], 0.95)
	assert.Greater(t, outcomes(s, 0.1)[Fail], 0.99)
	t.Logf("at the default test: P(pass | p=0.5) = %.4f, P(fail | p=0.9) = %.4f, P(undecided | p=0.73) = %.3f",
		outcomes(s, 0.5)[Pass], outcomes(s, 0.9)[Fail], outcomes(s, 0.73)[Undecided])
}

// Why not a Clopper–Pearson bound after every window: stopped on at the
// first look where it clears, it passes a level whose windows meet the
// target half of the time far more often than 1 − c; the product's test
// (Sequential.Decide), looked at after every window the same way, does
// not. Both are computed exactly over every path of up to cap windows.
func TestRepeatedBoundIsNotAtItsLevel(t *testing.T) {
	const c = 0.95
	s := DefaultSequential()
	repeated := func(k, n int) Verdict { // one-sided exact bound above 1/2
		if (distuv.Binomial{N: float64(n), P: 0.5}).Survival(float64(k-1)) <= 1-c {
			return Pass
		}
		return Undecided
	}
	naive := passChance(repeated, 0.5, s.LevelWindows)
	ours := passChance(func(k, n int) Verdict { return s.Decide(k, n-k) }, 0.5, s.LevelWindows)
	t.Logf("up to %d windows at p=1/2: P(pass) = %.3f with a bound after each, %.4f with Decide", s.LevelWindows, naive, ours)
	assert.Greater(t, naive, 1.5*(1-c))
	assert.LessOrEqual(t, ours, 1-c)
}

// passChance is the exact probability that decide, asked after each
// window whose verdict passes with probability p, says Pass within cap
// windows (a Fail ends the path too).
func passChance(decide func(passes, n int) Verdict, p float64, cap int) float64 {
	passed := 0.0
	at := []float64{1} // at[k]: still undecided with k passes
	for n := 0; n < cap; n++ {
		next := make([]float64, n+2)
		for k, pr := range at {
			next[k+1] += pr * p
			next[k] += pr * (1 - p)
		}
		for k := range next {
			switch decide(k, n+1) {
			case Pass:
				passed += next[k]
				next[k] = 0
			case Fail:
				next[k] = 0
			}
		}
		at = next
	}
	return passed
}

// The bounds are Clopper–Pearson's: all 6 of 6 passing at 95% gives a
// lower bound of 0.05^(1/6) = 0.607 (P(6 of 6 | p) = p⁶ = 0.05), none of 6
// an upper bound of 1 − 0.607, and each side covers what the other leaves.
func TestShareBounds(t *testing.T) {
	lo, hi := ShareBounds(6, 6, 0.95)
	assert.InDelta(t, math.Pow(0.05, 1.0/6), lo, 1e-9)
	assert.Equal(t, 1.0, hi)
	lo, hi = ShareBounds(0, 6, 0.95)
	assert.Equal(t, 0.0, lo)
	assert.InDelta(t, 1-math.Pow(0.05, 1.0/6), hi, 1e-9)
	// 15 of 20: P(X ≥ 15 | p = lo) = 0.05 and P(X ≤ 15 | p = hi) = 0.05.
	lo, hi = ShareBounds(15, 20, 0.95)
	assert.InDelta(t, 0.05, 1-distuv.Binomial{N: 20, P: lo}.CDF(14), 1e-6)
	assert.InDelta(t, 0.05, distuv.Binomial{N: 20, P: hi}.CDF(15), 1e-6)
	lo, hi = ShareBounds(0, 0, 0.95)
	assert.Equal(t, [2]float64{0, 1}, [2]float64{lo, hi})
}
