package stats

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
)

// bruteCI is QuantileCI's rule applied to the binomial CDF summed term by
// term in exact rational arithmetic: C(n,k)·q^k·(1−q)^(n−k), q = num/den.
func bruteCI(n int, num, den int64, conf *big.Rat) (lo, hi int, ok bool) {
	q := big.NewRat(num, den)
	p := new(big.Rat).Sub(big.NewRat(1, 1), q)
	tail := new(big.Rat).Quo(new(big.Rat).Sub(big.NewRat(1, 1), conf), big.NewRat(2, 1))
	upper := new(big.Rat).Sub(big.NewRat(1, 1), tail)
	cdf := make([]*big.Rat, n+1)
	sum := new(big.Rat)
	for k := 0; k <= n; k++ {
		c := new(big.Rat).SetInt(new(big.Int).Binomial(int64(n), int64(k)))
		c.Mul(c, new(big.Rat).SetFrac(new(big.Int).Exp(q.Num(), big.NewInt(int64(k)), nil), new(big.Int).Exp(q.Denom(), big.NewInt(int64(k)), nil)))
		c.Mul(c, new(big.Rat).SetFrac(new(big.Int).Exp(p.Num(), big.NewInt(int64(n-k)), nil), new(big.Int).Exp(p.Denom(), big.NewInt(int64(n-k)), nil)))
		sum.Add(sum, c)
		cdf[k] = new(big.Rat).Set(sum)
	}
	lo, hi = n+1, n+1
	for k := 0; k <= n; k++ {
		if cdf[k].Cmp(tail) > 0 {
			lo = k
			break
		}
	}
	for k := 0; k <= n; k++ {
		if cdf[k].Cmp(upper) >= 0 {
			hi = k + 1
			break
		}
	}
	if lo < 1 || hi > n {
		return 0, 0, false
	}
	return lo, hi, true
}

// Against the exact binomial, every n up to 150 at the quantiles latency
// reports and a few others.
func TestQuantileCIMatchesExactBinomial(t *testing.T) {
	conf := big.NewRat(95, 100)
	for _, q := range []struct{ num, den int64 }{{1, 2}, {9, 10}, {99, 100}, {1, 4}, {999, 1000}} {
		for n := 1; n <= 150; n++ {
			lo, hi, ok := bruteCI(n, q.num, q.den, conf)
			glo, ghi, gok := QuantileCI(n, float64(q.num)/float64(q.den), 0.95)
			if lo != glo || hi != ghi || ok != gok {
				t.Errorf("n=%d q=%d/%d: got (%d, %d, %v), exact binomial (%d, %d, %v)", n, q.num, q.den, glo, ghi, gok, lo, hi, ok)
			}
		}
	}
}

// Known values: the median's 95% interval in the textbook tables (n = 10:
// the 2nd and 9th, coverage 97.85%; n = 100: the 40th and 61st), and the
// fewest samples for which the top rank is above p99 and p99.9 with 97.5%
// confidence: q^n ≤ 0.025, n ≥ ln 0.025 / ln q (367.04 and 3687.0...).
func TestQuantileCIKnownValues(t *testing.T) {
	ci := func(n int, q float64) [3]any {
		lo, hi, ok := QuantileCI(n, q, 0.95)
		return [3]any{lo, hi, ok}
	}
	assert.Equal(t, [3]any{2, 9, true}, ci(10, 0.5))
	assert.Equal(t, [3]any{40, 61, true}, ci(100, 0.5))
	// docs/latency.md's figures for 1000 responses.
	assert.Equal(t, [3]any{469, 532, true}, ci(1000, 0.5))
	assert.Equal(t, [3]any{983, 997, true}, ci(1000, 0.99))
	assert.Equal(t, [3]any{0, 0, false}, ci(5, 0.5))
	assert.Equal(t, [3]any{1, 6, true}, ci(6, 0.5))
	for _, c := range []struct {
		q    float64
		need int
	}{{0.5, 6}, {0.99, 368}, {0.999, 3688}} {
		assert.Equal(t, c.need, int(math.Ceil(math.Log(0.025)/math.Log(c.q))), "closed form for q=%v", c.q)
		_, _, ok := QuantileCI(c.need-1, c.q, 0.95)
		assert.False(t, ok, "q=%v n=%d", c.q, c.need-1)
		_, hi, ok := QuantileCI(c.need, c.q, 0.95)
		assert.True(t, ok, "q=%v n=%d", c.q, c.need)
		assert.Equal(t, c.need, hi, "the top rank, the max, is the interval's upper end")
	}
	assert.Equal(t, [3]any{0, 0, false}, ci(0, 0.5))
	assert.Equal(t, [3]any{0, 0, false}, ci(100, 1))
	assert.Equal(t, [3]any{0, 0, false}, ci(100, 0.5*math.NaN()))
}

// Large n, where the exact sum would be slow: against the CDF summed term
// by term in float64 (log-gamma), and the ranks closing in on n·q as
// √(n·q·(1−q)) grows slower than n.
func TestQuantileCILargeN(t *testing.T) {
	cdf := func(n int, q float64) []float64 {
		out := make([]float64, n+1)
		s := 0.0
		for k := 0; k <= n; k++ {
			lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
			s += math.Exp(lg(float64(n+1)) - lg(float64(k+1)) - lg(float64(n-k+1)) + float64(k)*math.Log(q) + float64(n-k)*math.Log1p(-q))
			out[k] = s
		}
		return out
	}
	for _, c := range []struct {
		n int
		q float64
	}{{1000, 0.5}, {1000, 0.99}, {5000, 0.999}, {20000, 0.99}, {100000, 0.5}} {
		f := cdf(c.n, c.q)
		lo, hi, ok := QuantileCI(c.n, c.q, 0.95)
		assert.True(t, ok)
		assert.LessOrEqual(t, f[lo-1], 0.025, "n=%d q=%v lo=%d", c.n, c.q, lo)
		assert.Greater(t, f[lo], 0.025, "n=%d q=%v lo=%d", c.n, c.q, lo)
		assert.GreaterOrEqual(t, f[hi-1], 0.975-1e-9, "n=%d q=%v hi=%d", c.n, c.q, hi)
		assert.Less(t, f[hi-2], 0.975, "n=%d q=%v hi=%d", c.n, c.q, hi)
		sd := math.Sqrt(float64(c.n) * c.q * (1 - c.q))
		assert.InDelta(t, float64(c.n)*c.q, float64(lo), 2.5*sd+2)
		assert.InDelta(t, float64(c.n)*c.q, float64(hi), 2.5*sd+2)
	}
}

// MedianCI is benchstat's interval, go-moremath's ranks, and differs from
// QuantileCI's on purpose: at n = 8 it ends a rank lower. With too few
// values it is the whole range, at the range's confidence.
func TestMedianCI(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	lo, hi, conf, ok := MedianCI(xs, 0.95)
	assert.True(t, ok)
	assert.Equal(t, []float64{1, 7}, []float64{lo, hi})
	assert.InDelta(t, 0.9609375, conf, 1e-12)
	qlo, qhi, _ := QuantileCI(len(xs), 0.5, 0.95)
	assert.Equal(t, []int{1, 8}, []int{qlo, qhi}, "QuantileCI is equal-tailed")

	lo, hi, conf, ok = MedianCI(xs[:5], 0.95)
	assert.False(t, ok, "5 values are too few at 95%")
	assert.Equal(t, []float64{1, 5}, []float64{lo, hi})
	assert.Equal(t, 1-2*math.Pow(0.5, 5), conf)

	lo, hi, _, ok = MedianCI(nil, 0.95)
	assert.False(t, ok)
	assert.True(t, math.IsNaN(lo) && math.IsNaN(hi))
}
