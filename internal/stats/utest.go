package stats

import (
	"errors"
	"math"

	mstats "github.com/aclements/go-moremath/stats"
)

// The Mann-Whitney U test's smallest p-value. A rank test on n1 and n2
// values cannot give a p-value below the one of fully separated samples,
// however large the change: too few iterations can never show a change.
// compare reports this, and every run result warns about it, from these two
// functions.

// UTestMinP is the smallest two-sided p-value the Mann-Whitney U test can
// give for samples of n1 and n2 values without ties: when they are fully
// separated, 2 / C(n1+n2, n1). 1 when either sample is empty.
func UTestMinP(n1, n2 int) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 1
	}
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return min(1, 2/c)
}

// UTestNeededN is the smallest n for which n+n values can reach a two-sided
// p < alpha (at most 1000).
func UTestNeededN(alpha float64) int {
	n := 1
	for UTestMinP(n, n) >= alpha && n < 1000 {
		n++
	}
	return n
}

// UTest is the two-sided p-value of the Mann-Whitney U test of x against y,
// go-moremath's (the test benchstat uses): exact for small samples (with or
// without ties), the normal approximation with tie and continuity
// correction for large ones. Identical samples (all values equal) give 1;
// an empty sample gives NaN. compare tests two sides with it, size a
// level's first windows against its last (drift), benchhist a benchmark's
// newest run against its history.
func UTest(x, y []float64) float64 {
	r, err := mstats.MannWhitneyUTest(x, y, mstats.LocationDiffers)
	switch {
	case errors.Is(err, mstats.ErrSamplesEqual):
		return 1
	case err != nil:
		return math.NaN()
	}
	return min(r.P, 1)
}
