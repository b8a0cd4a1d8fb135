package stats

import (
	"sort"

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
