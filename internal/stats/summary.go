package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Summary describes a sample of durations or any other values in one unit
// (the caller's). N and CoV are unitless and Variance is in the unit
// squared; every other field is in that unit.
type Summary struct {
	N        int
	Mean     float64
	Variance float64 // sample variance (n-1 denominator); 0 when N < 2
	Stddev   float64
	CoV      float64 // Stddev / Mean; 0 when Mean == 0
	Min, Max float64
	// P50, P90 and P99 are R-7 quantiles; see Quantile.
	P50, P90, P99 float64
}

// Summarize computes a Summary of xs. It does not modify xs (it sorts a
// copy). An empty xs gives the zero Summary. With one value, Mean, Min, Max
// and the percentiles all equal it, and Variance, Stddev and CoV are 0.
//
// xs should not contain NaN; if it does, the result is meaningless.
func Summarize(xs []float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}

	sorted := slices.Clone(xs)
	slices.Sort(sorted)

	s := Summary{
		N:   n,
		Min: sorted[0],
		Max: sorted[n-1],
		P50: Quantile(sorted, 0.50),
		P90: Quantile(sorted, 0.90),
		P99: Quantile(sorted, 0.99),
	}

	if n < 2 {
		// The sample variance divides by n-1, which would give NaN here.
		s.Mean = sorted[0]
		return s
	}

	// gonum's corrected two-pass algorithm (Chan, Golub & LeVeque) stays
	// accurate when the spread is tiny compared to the mean, as it is for
	// repeated timings of one workload.
	s.Mean, s.Variance = stat.MeanVariance(xs, nil)
	s.Stddev = math.Sqrt(s.Variance)
	if s.Mean != 0 {
		s.CoV = s.Stddev / s.Mean
	}
	return s
}

// Quantile returns the p-quantile of sorted using the R-7 definition (the
// default of R's quantile, numpy.percentile/numpy.quantile and Excel's
// PERCENTILE / PERCENTILE.INC): with n values and h = (n-1)p,
//
//	Q(p) = x[floor h] + (h - floor h) * (x[floor h + 1] - x[floor h])
//
// using 0-based indices, so Q(0) is the minimum, Q(1) the maximum, and the
// median of an even-sized sample is the mean of the two middle values.
//
// sorted must be in increasing order; Quantile does not check this (it
// would cost O(n)) and returns a meaningless value for unsorted input.
// Quantile returns NaN when sorted is empty or p is NaN or outside [0, 1].
// It never panics.
//
// Why not gonum's stat.Quantile(p, stat.LinInterp, x, nil): that is R's
// type 4 (interpolation at h = np with 1-based indices), not R-7. For
// {1, 2, 3, 4} it gives a median of 2 and a 0.9-quantile of 3.6, where R,
// numpy and spreadsheets give 2.5 and 3.7. Reported percentiles should
// match what users get when they re-check the raw data with those tools.
// gonum's version also panics on empty input and on p outside [0, 1].
func Quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		// p == 1, or rounding pushed h up to n-1.
		return sorted[n-1]
	}
	frac := h - float64(lo)
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}
