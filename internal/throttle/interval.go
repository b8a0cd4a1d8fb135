package throttle

import (
	"cmp"
	"slices"
)

// Interval is the half-open stretch [Start, End) of CLOCK_MONOTONIC
// nanoseconds. Half-open, so two intervals that touch share no instant and
// lengths add up: [0, 5) and [5, 8) cover 8 ns.
type Interval struct {
	Start, End int64
}

// Len is the interval's length in ns; 0 when it is empty or inverted.
func (iv Interval) Len() int64 {
	return max(iv.End-iv.Start, 0)
}

// Union returns the union of ivs as sorted, disjoint, non-empty intervals:
// empty and inverted intervals are dropped, overlapping and touching ones
// merged, so no two results share or abut an instant. ivs is not modified.
func Union(ivs []Interval) []Interval {
	out := make([]Interval, 0, len(ivs))
	for _, iv := range ivs {
		if iv.End > iv.Start {
			out = append(out, iv)
		}
	}
	return mergeInPlace(out)
}

// mergeInPlace is Union on intervals the caller owns, already non-empty.
func mergeInPlace(ivs []Interval) []Interval {
	if len(ivs) == 0 {
		return ivs
	}
	slices.SortFunc(ivs, func(a, b Interval) int { return cmp.Compare(a.Start, b.Start) })
	n := 0
	for _, iv := range ivs[1:] {
		if iv.Start <= ivs[n].End {
			ivs[n].End = max(ivs[n].End, iv.End)
			continue
		}
		n++
		ivs[n] = iv
	}
	return ivs[:n+1]
}

// Clip returns ivs cut to [lo, hi), in their order, dropping what falls
// outside or is left empty. ivs is not modified.
func Clip(ivs []Interval, lo, hi int64) []Interval {
	out := make([]Interval, 0, len(ivs))
	for _, iv := range ivs {
		c := Interval{max(iv.Start, lo), min(iv.End, hi)}
		if c.End > c.Start {
			out = append(out, c)
		}
	}
	return out
}

// totalLen is the summed length of ivs (their measure when disjoint).
func totalLen(ivs []Interval) int64 {
	var sum int64
	for _, iv := range ivs {
		sum += iv.Len()
	}
	return sum
}
