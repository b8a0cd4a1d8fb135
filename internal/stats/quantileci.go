package stats

import (
	"math"
	"sort"

	mstats "github.com/aclements/go-moremath/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// QuantileCI is the distribution-free confidence interval of the q-th
// quantile (0 < q < 1) of a population from n independent samples: the
// 1-based ranks lo and hi of the order statistics X(lo) ≤ X(hi) that hold
// the quantile between them with probability at least conf, whatever the
// distribution (a continuous one; ties only widen it).
//
// The number of samples below the quantile is Binomial(n, q), so
// P(X(lo) ≤ ξ ≤ X(hi)) = F(hi−1) − F(lo−1) with F its CDF. Each tail gets
// at most (1−conf)/2: lo is the largest rank with F(lo−1) ≤ (1−conf)/2,
// hi the smallest with F(hi−1) ≥ 1 − (1−conf)/2 (equal-tailed and
// conservative, as the textbook tables of the median's interval are).
//
// F is exact for every n, no normal approximation: gonum's Binomial CDF is
// the regularised incomplete beta function, a few dozen operations however
// large n is, so a binary search over the ranks costs about 2·log2(n) of
// them.
//
// ok is false when n is too small for such ranks to exist: with q^n above
// (1−conf)/2 not even the largest sample is above the quantile with the
// confidence asked (p99 needs 368 samples at 95%, p99.9 3688), and likewise
// at the low end.
//
// compare's median interval is MedianCI, benchstat's, which differs from
// this one on purpose (MedianCI says how and why).
func QuantileCI(n int, q, conf float64) (lo, hi int, ok bool) {
	if n < 1 || !(q > 0 && q < 1) || !(conf > 0 && conf < 1) {
		return 0, 0, false
	}
	tail := (1 - conf) / 2
	b := distuv.Binomial{N: float64(n), P: q}
	// F(k) for k = 0..n rises to F(n) = 1; lo−1 is the last k with
	// F(k) ≤ tail, so lo is the first k with F(k) > tail.
	lo = sort.Search(n+1, func(k int) bool { return b.CDF(float64(k)) > tail })
	hi = sort.Search(n+1, func(k int) bool { return b.CDF(float64(k)) >= 1-tail }) + 1
	if lo < 1 || hi > n {
		return 0, 0, false
	}
	return lo, hi, true
}

// MedianCI is benchstat's conf interval of the median of sorted (in
// ascending order): the values at go-moremath's QuantileCI ranks, as
// golang.org/x/perf/benchmath computes them, and the interval's actual
// confidence, at least conf. compare shows it, so that its intervals are
// those benchstat gives for the same samples.
//
// It differs from QuantileCI on purpose, and for about half of all n by a
// rank: go-moremath's is the narrowest run of ranks whose binomial mass
// reaches conf, leaning left where two are as narrow, and above 30 values
// from the normal approximation, where QuantileCI is exact and
// equal-tailed, for any quantile (n = 8 at 95%: X(1)..X(7) here,
// X(1)..X(8) there).
//
// ok is false where there are too few values for the interval (under 6
// at 95%): lo and hi are then the whole range, which holds the median with
// probability 1 − 2·0.5ⁿ, the confidence returned. NaN for no values.
func MedianCI(sorted []float64, conf float64) (lo, hi, actual float64, ok bool) {
	n := len(sorted)
	if n == 0 {
		return math.NaN(), math.NaN(), 0, false
	}
	ci := mstats.QuantileCI(n, 0.5, conf)
	if ci.LoOrder >= 1 && ci.HiOrder <= n {
		return sorted[ci.LoOrder-1], sorted[ci.HiOrder-1], ci.Confidence, true
	}
	return sorted[0], sorted[n-1], 1 - 2*math.Pow(0.5, float64(n)), false
}
