package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
)

const eps = 1e-12

func TestSummarizeKnownSample(t *testing.T) {
	// xs = {2,4,4,4,5,5,7,9}, n = 8, already sorted.
	//   sum 40, mean 5
	//   squared deviations 9+1+1+1+0+0+4+16 = 32, sample variance 32/7
	//   stddev sqrt(32/7) ≈ 2.1380899, CoV = stddev/5 ≈ 0.4276180
	// R-7 (h = 7p):
	//   p50: h=3.5  -> x[3] + 0.5*(x[4]-x[3]) = 4 + 0.5*1  = 4.5
	//   p90: h=6.3  -> x[6] + 0.3*(x[7]-x[6]) = 7 + 0.3*2  = 7.6
	//   p99: h=6.93 -> x[6] + 0.93*(x[7]-x[6]) = 7 + 0.93*2 = 8.86
	xs := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	s := Summarize(xs)

	sd := math.Sqrt(32.0 / 7.0)
	assert.Equal(t, 8, s.N)
	assert.InDelta(t, 5.0, s.Mean, eps)
	assert.InDelta(t, 32.0/7.0, s.Variance, eps)
	assert.InDelta(t, sd, s.Stddev, eps)
	assert.InDelta(t, 2.1380899352993952, s.Stddev, eps)
	assert.InDelta(t, sd/5, s.CoV, eps)
	assert.Equal(t, 2.0, s.Min)
	assert.Equal(t, 9.0, s.Max)
	assert.InDelta(t, 4.5, s.P50, eps)
	assert.InDelta(t, 7.6, s.P90, eps)
	assert.InDelta(t, 8.86, s.P99, eps)
}

func TestSummarizeDoesNotReorderInput(t *testing.T) {
	xs := []float64{9, 2, 5, 4, 7, 4, 5, 4}
	orig := slices.Clone(xs)

	s := Summarize(xs)

	assert.Equal(t, orig, xs, "Summarize must not modify its input")
	// Same multiset as TestSummarizeKnownSample, so the same summary.
	want := Summarize([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	assert.Equal(t, want.N, s.N)
	assert.Equal(t, want.Min, s.Min)
	assert.Equal(t, want.Max, s.Max)
	assert.InDelta(t, want.Mean, s.Mean, eps)
	assert.InDelta(t, want.Variance, s.Variance, eps)
	assert.InDelta(t, want.P50, s.P50, eps)
	assert.InDelta(t, want.P90, s.P90, eps)
	assert.InDelta(t, want.P99, s.P99, eps)
}

func TestSummarizeEmpty(t *testing.T) {
	assert.Equal(t, Summary{}, Summarize(nil))
	assert.Equal(t, Summary{}, Summarize([]float64{}))
}

func TestSummarizeSingle(t *testing.T) {
	s := Summarize([]float64{3.5})
	assert.Equal(t, Summary{
		N:    1,
		Mean: 3.5,
		Min:  3.5, Max: 3.5,
		P50: 3.5, P90: 3.5, P99: 3.5,
	}, s)
	// In particular no NaN from the n-1 denominator.
	assert.False(t, math.IsNaN(s.Variance))
}

func TestSummarizeConstant(t *testing.T) {
	s := Summarize([]float64{7, 7, 7, 7})
	assert.Equal(t, 4, s.N)
	assert.Equal(t, 7.0, s.Mean)
	assert.Equal(t, 0.0, s.Variance)
	assert.Equal(t, 0.0, s.Stddev)
	assert.Equal(t, 0.0, s.CoV)
	assert.Equal(t, 7.0, s.P50)
	assert.Equal(t, 7.0, s.P99)
}

func TestSummarizeZeroMeanCoV(t *testing.T) {
	// mean 0, sample variance (1+1)/1 = 2; CoV is defined as 0, not ±Inf/NaN.
	s := Summarize([]float64{-1, 1})
	assert.Equal(t, 0.0, s.Mean)
	assert.InDelta(t, 2.0, s.Variance, eps)
	assert.InDelta(t, math.Sqrt2, s.Stddev, eps)
	assert.Equal(t, 0.0, s.CoV)
}

func TestQuantileR7(t *testing.T) {
	// {1,2,3,4}, n = 4, h = 3p:
	//   p0:    h=0    -> 1
	//   p25:   h=0.75 -> 1 + 0.75*1 = 1.75
	//   p50:   h=1.5  -> 2 + 0.5*1  = 2.5
	//   p90:   h=2.7  -> 3 + 0.7*1  = 3.7
	//   p99:   h=2.97 -> 3 + 0.97*1 = 3.97
	//   p100:  h=3    -> 4
	x := []float64{1, 2, 3, 4}
	cases := []struct {
		p, want float64
	}{
		{0, 1},
		{0.25, 1.75},
		{0.5, 2.5},
		{0.9, 3.7},
		{0.99, 3.97},
		{1, 4},
	}
	for _, c := range cases {
		assert.InDelta(t, c.want, Quantile(x, c.p), eps, "p=%v", c.p)
	}

	// Odd n: {10,20,30}, h = 2p. p50: h=1 -> 20 exactly; p75: h=1.5 -> 25.
	y := []float64{10, 20, 30}
	assert.Equal(t, 20.0, Quantile(y, 0.5))
	assert.InDelta(t, 25.0, Quantile(y, 0.75), eps)

	// Unequal gaps: {0,1,10}, p90: h=1.8 -> 1 + 0.8*(10-1) = 8.2.
	assert.InDelta(t, 8.2, Quantile([]float64{0, 1, 10}, 0.9), eps)
}

func TestQuantileSingleElement(t *testing.T) {
	for _, p := range []float64{0, 0.01, 0.5, 0.9, 0.99, 1} {
		assert.Equal(t, 42.0, Quantile([]float64{42}, p), "p=%v", p)
	}
}

func TestQuantileInvalid(t *testing.T) {
	assert.True(t, math.IsNaN(Quantile(nil, 0.5)))
	assert.True(t, math.IsNaN(Quantile([]float64{}, 0.5)))
	x := []float64{1, 2, 3}
	for _, p := range []float64{-0.1, 1.1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		assert.True(t, math.IsNaN(Quantile(x, p)), "p=%v", p)
	}
}

// Summarize computes the variance itself instead of calling gonum's
// stat.MeanVariance (which would link gonum's LAPACK into the binary): it
// must agree with gonum to rounding, also where a naive sum of squares
// loses every digit (a spread of 1e-3 around 1e9).
func TestVarianceMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ center, spread float64 }{{100, 10}, {1e9, 1e-3}, {0, 1}, {-5, 1e6}} {
		for _, n := range []int{2, 3, 10, 1000} {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = c.center + c.spread*rng.NormFloat64()
			}
			wantMean, wantVar := stat.MeanVariance(xs, nil)
			s := Summarize(xs)
			assert.InEpsilon(t, wantVar, s.Variance, 1e-9, "center %g spread %g n %d", c.center, c.spread, n)
			assert.InDelta(t, wantMean, s.Mean, 1e-12*math.Max(1, math.Abs(wantMean)), "center %g spread %g n %d", c.center, c.spread, n)
		}
	}
}

// TestQuantileDiffersFromGonumLinInterp pins down the reason Quantile exists:
// gonum's LinInterp is R-4, not R-7.
func TestQuantileDiffersFromGonumLinInterp(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	// h = np = 2 (1-based) -> x(2) = 2; R-7 gives 2.5.
	assert.InDelta(t, 2.0, stat.Quantile(0.5, stat.LinInterp, x, nil), eps)
	assert.InDelta(t, 2.5, Quantile(x, 0.5), eps)
	// h = 3.6 -> 3 + 0.6*1 = 3.6; R-7 gives 3.7.
	assert.InDelta(t, 3.6, stat.Quantile(0.9, stat.LinInterp, x, nil), eps)
	assert.InDelta(t, 3.7, Quantile(x, 0.9), eps)
}

// TestQuantileProperties checks, on random data, that R-7 quantiles are
// monotone in p, stay within [min, max] and hit the order statistics exactly
// at p = k/(n-1).
func TestQuantileProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 50; n++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()*10 + 100
		}
		slices.Sort(x)
		prev := math.Inf(-1)
		for i := 0; i <= 100; i++ {
			q := Quantile(x, float64(i)/100)
			require.GreaterOrEqual(t, q, prev, "n=%d p=%v", n, float64(i)/100)
			require.GreaterOrEqual(t, q, x[0])
			require.LessOrEqual(t, q, x[n-1])
			prev = q
		}
		if n > 1 {
			for k := 0; k < n; k++ {
				require.InDelta(t, x[k], Quantile(x, float64(k)/float64(n-1)), 1e-9, "n=%d k=%d", n, k)
			}
		}
	}
}

func BenchmarkSummarize(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 10_000)
	for i := range xs {
		xs[i] = rng.ExpFloat64() * 1e6
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Summarize(xs)
	}
}
