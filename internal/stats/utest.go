package stats

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
