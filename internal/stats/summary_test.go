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

// Summarize's mean and variance are gonum's (stat.MeanVariance, the
// corrected two-pass algorithm): they stay exact to rounding where a naive
// sum of squares loses every digit, a spread of 1e-3 around 1e9 (the
// variance of the timings of one workload in ns).
func TestSummarizeTinySpread(t *testing.T) {
	// numpy 2.4.6: numpy.var([1e9+1e-3*k for k in (-2,-1,0,1,2)], ddof=1)
	// = 2.5e-06 to 4 digits; a sum of squares minus n·mean² gives 0 or
	// a negative number here.
	xs := []float64{1e9 - 2e-3, 1e9 - 1e-3, 1e9, 1e9 + 1e-3, 1e9 + 2e-3}
	s := Summarize(xs)
	assert.InDelta(t, 1e9, s.Mean, 1e-6)
	assert.InEpsilon(t, 2.5e-6, s.Variance, 1e-3)
	assert.InEpsilon(t, math.Sqrt(2.5e-6), s.Stddev, 1e-3)
}

// The reference values below were computed independently with numpy 2.4.6
// (numpy.quantile(x, p), whose default method 'linear' is R's type 7) and
// checked against Python 3's statistics.quantiles(x, n=1000,
// method='inclusive') (also R-7); the means and sample variances with
// numpy's mean() and var(ddof=1). They are printed to 17 digits, so the
// tolerance is a few ulps.
var r7Reference = []struct {
	name     string
	x        []float64 // as given, not sorted
	mean     float64
	variance float64
	q        map[float64]float64 // p -> numpy.quantile(x, p)
}{
	{
		name: "known", x: []float64{2, 4, 4, 4, 5, 5, 7, 9},
		mean: 5.0, variance: 4.571428571428571,
		q: map[float64]float64{
			0: 2.0, 0.01: 2.14, 0.1: 3.4000000000000004, 0.25: 4.0, 0.5: 4.5, 0.75: 5.5,
			0.9: 7.6, 0.95: 8.299999999999999, 0.99: 8.86, 0.999: 8.986, 1: 9.0,
		},
	},
	{
		name: "four", x: []float64{1, 2, 3, 4},
		mean: 2.5, variance: 1.6666666666666667,
		q: map[float64]float64{
			0: 1.0, 0.01: 1.03, 0.1: 1.3, 0.25: 1.75, 0.5: 2.5, 0.75: 3.25,
			0.9: 3.7, 0.95: 3.8499999999999996, 0.99: 3.9699999999999998, 0.999: 3.997, 1: 4.0,
		},
	},
	{
		// Iteration times in ms with two outliers, unsorted.
		name: "durations", x: []float64{12.5, 11.9, 13.2, 48.7, 12.1, 12.0, 12.8, 11.7, 30.3, 12.2, 12.4, 11.8, 12.6},
		mean: 16.47692307692308, variance: 118.68858974358977,
		q: map[float64]float64{
			0: 11.7, 0.01: 11.712, 0.1: 11.82, 0.25: 12.0, 0.5: 12.4, 0.75: 12.8,
			0.9: 26.880000000000013, 0.95: 37.659999999999975, 0.99: 46.49199999999998,
			0.999: 48.47919999999999, 1: 48.7,
		},
	},
}

func TestQuantileMatchesNumpy(t *testing.T) {
	for _, c := range r7Reference {
		sorted := slices.Clone(c.x)
		slices.Sort(sorted)
		for p, want := range c.q {
			assert.InDelta(t, want, Quantile(sorted, p), 1e-12*math.Abs(want), "%s p=%v", c.name, p)
		}
	}
}

func TestSummarizeMatchesNumpy(t *testing.T) {
	for _, c := range r7Reference {
		s := Summarize(c.x)
		assert.Equal(t, len(c.x), s.N, c.name)
		assert.InDelta(t, c.mean, s.Mean, 1e-12*c.mean, c.name)
		assert.InDelta(t, c.variance, s.Variance, 1e-12*c.variance, c.name)
		assert.InDelta(t, math.Sqrt(c.variance), s.Stddev, 1e-12*c.variance, c.name)
		assert.InDelta(t, c.q[0.5], s.P50, 1e-12*c.q[0.5], c.name)
		assert.InDelta(t, c.q[0.9], s.P90, 1e-12*c.q[0.9], c.name)
		assert.InDelta(t, c.q[0.99], s.P99, 1e-12*c.q[0.99], c.name)
		assert.Equal(t, c.q[0], s.Min, c.name)
		assert.Equal(t, c.q[1], s.Max, c.name)
	}
}

// TestQuantileNotGonumLinInterp pins down the reason Quantile exists:
// gonum's stat.Quantile with LinInterp is R's type 4, not R-7. The R-4
// values are numpy 2.4.6's numpy.quantile(x, p,
// method='interpolated_inverted_cdf'), R's type 4.
func TestQuantileNotGonumLinInterp(t *testing.T) {
	x := []float64{11.7, 11.8, 11.9, 12.0, 12.1, 12.2, 12.4, 12.5, 12.6, 12.8, 13.2, 30.3, 48.7}
	for _, c := range []struct{ p, r4, r7 float64 }{
		{0.1, 11.73, 11.82},
		{0.5, 12.3, 12.4},
		{0.9, 25.17000000000002, 26.880000000000013},
		{0.99, 46.307999999999986, 46.49199999999998},
	} {
		assert.InDelta(t, c.r4, stat.Quantile(c.p, stat.LinInterp, x, nil), 1e-12*c.r4, "gonum LinInterp p=%v", c.p)
		assert.InDelta(t, c.r7, Quantile(x, c.p), 1e-12*c.r7, "R-7 p=%v", c.p)
	}
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
