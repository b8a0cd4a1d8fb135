package throttle

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// rankIndex is the 0-based index of the p-percentile among n sorted values
// by nearest rank: the ⌈p·n⌉-th smallest, so every percentile is a value
// some event or request had. It is the rule of gonum's stat.Empirical (the
// instances' exact percentiles), computed the same way so the two agree on
// every n, and it lets a caller find which request sits at the rank.
func rankIndex(p float64, n int) int {
	i := int(math.Ceil(p*float64(n))) - 1
	return min(max(i, 0), n-1)
}

// nearestRank returns the p-percentile of sorted (nearest rank, gonum's
// stat.Empirical); 0 when sorted is empty.
func nearestRank(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return stat.Quantile(p, stat.Empirical, sorted, nil)
}

// sortedMs returns ns converted to ms, sorted.
func sortedMs(ns []int64) []float64 {
	out := make([]float64, len(ns))
	for i, v := range ns {
		out[i] = msOf(v)
	}
	slices.Sort(out)
	return out
}

// msOf converts ns to ms, the unit every result is written in.
func msOf(ns int64) float64 { return float64(ns) / 1e6 }
