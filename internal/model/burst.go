// The burst model: will CPU burst hurt the neighbours?
//
// One CPU of capacity 1 per period is shared by m cgroups, each with quota
// q = 1/m and a burst buffer of b·q. Every period each cgroup draws new
// demand d (independently, mean u·q) and
//
//	pending += d
//	run      = min(pending, q + tokens)
//	tokens   = min(b·q, tokens + q − run)
//	pending −= run                    (what stays pending was throttled)
//
// The CPU executes the sum S of the runs; what exceeds 1 spills into the
// next period: backlog = max(0, backlog + S − 1), and the period's
// worst-case execution time is WCET = 1 + backlog periods. With b = 0 every
// run is at most q, S ≤ 1 and WCET is exactly 1. This is the queueing model
// the authors of CPU burst solved by Monte Carlo (cpuburst-simulator); the
// docs/simulate.md ("The model, as implemented") states it for users.

package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Dist is the distribution of a cgroup's demand per period.
type Dist int

const (
	Exp       Dist = iota // exponential
	Pareto                // Pareto of shape BurstParams.Shape
	Empirical             // drawn from a recorded trace
)

// Dists are the names of the distributions, as --dist takes them.
var Dists = []string{"exp", "pareto", "empirical"}

func (d Dist) String() string { return Dists[d] }

// BurstParams is one cell of the model.
type BurstParams struct {
	Cgroups int     // m
	Util    float64 // u: the mean demand of all cgroups together, in CPUs, 0 < u < 1
	Buffer  float64 // b: the burst buffer in quotas; +Inf for no cap
	Dist    Dist
	Shape   float64   // Pareto's shape α > 1
	Cap     float64   // exp and pareto: every draw is at most Cap·q
	Trace   []float64 // empirical: the per-interval usage, scaled to mean u·q
}

// backlogEps is the backlog treated as none: the runs of m cgroups at
// exactly their quota sum to 1 only up to rounding (ten times 0.1 is
// 0.9999999999999999; other sums land just above 1), which must not
// count as a period overrun.
const backlogEps = 1e-9

// Table sizes of the inverse-transform sampler (see demand).
const (
	bands0 = 4096 // level 0: bands of 1/4096 in probability
	bands1 = 4096 // level 1: the top band of level 0, in 4096 bands
)

// band is a piece of the quantile function: over a band of probability the
// draw is base + slope·f, f uniform in [0, 1).
type band struct{ base, slope float64 }

// demand draws a cgroup's demand by inverse transform from a table, with
// one 64-bit random number and no transcendental function. A parametric
// distribution's quantile function Q (capped at Cap·q) is evaluated at
// k/4096 and interpolated linearly in between; the top band, where the
// tail is steep, is split again into 4096 bands (a resolution of 6·10⁻⁸ in
// probability up to the cap). Within a band the draw is uniform instead of
// following the exact shape; the scale is then chosen so that the tabled
// distribution's mean is exactly u·q (it differs from the exact capped
// distribution's scale by less than 2·10⁻⁴, TestDemandTableMatchesTheExactMean:
// the interpolation overstates the convex quantile function a little).
// A trace is tabled as it is: n bands of slope 0, one per value, so a draw
// picks one value with probability 1/n.
type demand struct {
	n0   uint64 // bands at level 0
	top  uint64 // the band refined at level 1; n0 (never drawn) for a trace
	lv0  []band
	lv1  []band
	mean float64 // the tabled distribution's: u·q
	// scale is the parametric distribution's (exp: the uncapped mean;
	// pareto: the minimum) that gives that mean; 1 for a trace.
	scale float64
}

// newDemand tables p's distribution with mean u·q.
func newDemand(p BurstParams) (demand, error) {
	q := 1 / float64(p.Cgroups)
	target := p.Util * q
	if p.Dist == Empirical {
		if len(p.Trace) == 0 {
			return demand{}, errors.New("empty trace")
		}
		mean := stat.Mean(p.Trace, nil)
		if !(mean > 0) || math.IsInf(mean, 0) {
			return demand{}, fmt.Errorf("trace mean %g: want above 0", mean)
		}
		d := demand{n0: uint64(len(p.Trace)), top: uint64(len(p.Trace)), lv0: make([]band, len(p.Trace))}
		for i, v := range p.Trace {
			d.lv0[i] = band{base: v * target / mean}
		}
		d.mean, d.scale = tableMean(d.lv0, nil, d.top), 1
		return d, nil
	}
	// unit is the uncapped quantile function at scale 1.
	unit := func(v float64) float64 { return -math.Log1p(-v) } // exponential of mean 1
	if p.Dist == Pareto {
		a := p.Shape
		unit = func(v float64) float64 { return math.Pow(1-v, -1/a) } // Pareto of minimum 1
	}
	g0 := make([]float64, bands0+1)
	for k := range g0 {
		g0[k] = unit(float64(k) / bands0)
	}
	g1 := make([]float64, bands1+1)
	for k := range g1 {
		g1[k] = unit((bands0 - 1 + float64(k)/bands1) / bands0)
	}
	capq := p.Cap * q
	build := func(s float64, lv0, lv1 []band) {
		fill := func(g []float64, lv []band) {
			for k := range lv {
				lo, hi := min(s*g[k], capq), min(s*g[k+1], capq)
				lv[k] = band{base: lo, slope: hi - lo}
			}
		}
		fill(g0, lv0)
		fill(g1, lv1)
	}
	d := demand{n0: bands0, top: bands0 - 1, lv0: make([]band, bands0), lv1: make([]band, bands1)}
	meanAt := func(s float64) float64 {
		build(s, d.lv0, d.lv1)
		return tableMean(d.lv0, d.lv1, d.top)
	}
	// The tabled mean rises with the scale s, from 0 towards the cap: bisect.
	lo, hi := 0.0, target
	for meanAt(hi) < target {
		lo, hi = hi, 2*hi
		if hi > 1e6 {
			return demand{}, fmt.Errorf("no scale gives a mean of %g under a cap of %g", target, capq)
		}
	}
	for range 100 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if meanAt(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	d.mean, d.scale = meanAt(hi), hi
	return d, nil
}

// tableMean is the exact mean of the tabled distribution.
func tableMean(lv0, lv1 []band, top uint64) float64 {
	mean := func(lv []band) float64 {
		var s float64
		for _, b := range lv {
			s += b.base + b.slope/2
		}
		return s / float64(len(lv))
	}
	if int(top) >= len(lv0) {
		return mean(lv0)
	}
	var s float64
	for k, b := range lv0 {
		if uint64(k) != top {
			s += b.base + b.slope/2
		}
	}
	return (s + mean(lv1)) / float64(len(lv0))
}

// replica is one independent run of the model: its own random stream, a
// warm-up from the empty state, then the periods it records.
type replica struct {
	periods    int // recorded
	zeros      int // periods with WCET = 1
	sumBacklog float64
	sumCeil    float64 // Σ ⌈backlog⌉
	maxBacklog float64
	throttled  int       // cgroup-periods that ended with demand pending
	backlogs   []float64 // the recorded periods' backlogs above 0, in order
}

// simulate runs the model for warmup + periods periods from the empty state
// (nothing pending, no tokens, no backlog) and records the last periods.
//
// The inner loop is the whole cost: per cgroup-period one wyrand step (one
// 64×64→128 multiply), one more multiply to pick the band, one table load
// and a handful of float operations; state is struct-of-arrays and nothing
// is allocated. Its speed is in BenchmarkSimulate.
//
// It stops early when ctx ends, looked at every 2¹⁶ periods (a few ms at
// most): a long cell must not outlive a Ctrl-C. The replica is then
// incomplete, and Run says so.
func simulate(ctx context.Context, p BurstParams, d *demand, seed uint64, warmup, periods int) replica {
	m := p.Cgroups
	q := 1 / float64(m)
	bq := p.Buffer * q // +Inf for --buffer inf: min(+Inf, x) = x
	pending := make([]float64, m)
	tokens := make([]float64, m)
	r := replica{periods: periods, backlogs: make([]float64, 0, min(periods, 1<<16))}
	st := seed
	n0, top, lv0, lv1 := d.n0, d.top, d.lv0, d.lv1
	backlog := 0.0
	for t := range warmup + periods {
		if t&0xffff == 0 && ctx.Err() != nil {
			break
		}
		sum := 0.0
		thr := 0
		for i := range pending {
			// wyrand (Wang Yi's): passes BigCrush and PractRand; one multiply.
			st += 0xa0761d6478bd642f
			h, l := bits.Mul64(st, st^0xe7037ed1a0b428db)
			k, f := bits.Mul64(h^l, n0)
			b := lv0[k]
			if k == top { // 1 in 4096 draws: the tail, refined
				st += 0xa0761d6478bd642f
				h, l = bits.Mul64(st, st^0xe7037ed1a0b428db)
				k, f = bits.Mul64(h^l, bands1)
				b = lv1[k]
			}
			x := b.base + b.slope*(float64(f>>11)*0x1p-53)

			pend := pending[i] + x
			avail := q + tokens[i]
			run := min(pend, avail)
			tokens[i] = min(bq, avail-run)
			pend -= run
			pending[i] = pend
			sum += run
			if pend > 0 {
				thr++
			}
		}
		backlog += sum - 1
		if backlog < backlogEps {
			backlog = 0
		}
		if t < warmup {
			continue
		}
		r.throttled += thr
		if backlog == 0 {
			r.zeros++
			continue
		}
		r.sumBacklog += backlog
		r.sumCeil += math.Ceil(backlog)
		r.maxBacklog = max(r.maxBacklog, backlog)
		r.backlogs = append(r.backlogs, backlog)
	}
	return r
}

// quantiles are the R-7 quantiles (as numpy's default) of the WCETs of n
// periods, zeros of which had no backlog, from the others' sorted backlogs.
func quantiles(sorted []float64, n int, ps ...float64) []float64 {
	zeros := n - len(sorted)
	at := func(i int) float64 {
		if i < zeros {
			return 0
		}
		return sorted[i-zeros]
	}
	out := make([]float64, len(ps))
	for j, p := range ps {
		h := float64(n-1) * p
		lo := int(math.Floor(h))
		v := at(min(lo, n-1))
		if lo < n-1 {
			v += (h - float64(lo)) * (at(lo+1) - v)
		}
		out[j] = 1 + v
	}
	return out
}

// pooled merges the replicas' sorted backlogs.
func pooled(rs []replica) []float64 {
	var n int
	for _, r := range rs {
		n += len(r.backlogs)
	}
	all := make([]float64, 0, n)
	for _, r := range rs {
		all = append(all, r.backlogs...)
	}
	slices.Sort(all)
	return all
}
