package model

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func plan(periods int, cells ...BurstParams) Plan {
	return Plan{Cells: cells, Periods: periods, Warmup: 200, Replicas: 8, Seed: 7, Jobs: 2}
}

func cell(m int, u, b float64, d Dist) BurstParams {
	return BurstParams{Cgroups: m, Util: u, Buffer: b, Dist: d, Shape: 1.5, Cap: 5}
}

// Without a buffer no cgroup runs more than its quota, the runs never sum
// above the CPU, and every period ends within itself, whatever the demand.
func TestNoBufferNoOverrun(t *testing.T) {
	trace := []float64{0, 0.1, 3, 0.5, 0, 0, 7, 0.2}
	emp := cell(10, 0.9, 0, Empirical)
	emp.Trace = trace
	cells, err := Run(context.Background(), plan(20_000, cell(10, 0.9, 0, Exp), cell(3, 0.7, 0, Pareto), cell(7, 0.95, 0, Pareto), emp))
	require.NoError(t, err)
	for _, c := range cells {
		assert.Equal(t, 1.0, c.EWCET, c.Dist)
		assert.Equal(t, [2]float64{1, 1}, c.EWCETCI, c.Dist)
		assert.Equal(t, 1.0, c.EWCETPeriods, c.Dist)
		assert.Equal(t, 1.0, c.PWCET1, c.Dist)
		assert.Equal(t, [2]float64{1, 1}, c.PWCET1CI, c.Dist)
		assert.Equal(t, 1.0, c.WCETMax, c.Dist)
		assert.Equal(t, 1.0, c.WCETP999, c.Dist)
		assert.Greater(t, c.ThrottledShare, 0.0, "at u near 1 without burst some demand waits: %s", c.Dist)
	}
}

// More load hurts, more cgroups (each a smaller share of the CPU) help.
func TestWCETRisesWithUtilAndFallsWithCgroups(t *testing.T) {
	ms := []int{2, 4, 8}
	us := []float64{0.5, 0.7, 0.9}
	var cs []BurstParams
	for _, m := range ms {
		for _, u := range us {
			cs = append(cs, cell(m, u, 2, Exp))
		}
	}
	cells, err := Run(context.Background(), plan(40_000, cs...))
	require.NoError(t, err)
	e := func(mi, ui int) float64 { return cells[mi*len(us)+ui].EWCET }
	for mi := range ms {
		for ui := range us {
			if ui > 0 {
				assert.Greater(t, e(mi, ui), e(mi, ui-1), "m=%d: u %g over %g", ms[mi], us[ui], us[ui-1])
			}
			if mi > 0 {
				assert.Less(t, e(mi, ui), e(mi-1, ui), "u=%g: m %d over %d", us[ui], ms[mi], ms[mi-1])
			}
		}
	}
	assert.Greater(t, e(0, 2), 1.05, "two cgroups at 90%% with a buffer of 2 overrun often")
}

// The tabled sampler's mean is u·q exactly, and its scale is the exact
// capped distribution's to within 2·10⁻⁴.
func TestDemandTableMatchesTheExactMean(t *testing.T) {
	for _, c := range []BurstParams{cell(10, 0.5, 2, Exp), cell(30, 0.1, 2, Pareto), cell(2, 0.9, 1, Pareto), {Cgroups: 5, Util: 0.5, Dist: Pareto, Shape: 3, Cap: 1000}} {
		d, err := newDemand(c)
		require.NoError(t, err)
		q := 1 / float64(c.Cgroups)
		target := c.Util * q
		assert.InDelta(t, target, d.mean, 1e-12*target, "%+v", c)
		capq := c.Cap * q
		exact := func(s float64) float64 { // the capped distribution's mean at scale s
			if c.Dist == Exp {
				return s * -math.Expm1(-capq/s)
			}
			a := c.Shape
			return s * (1 + (math.Pow(capq/s, 1-a)-1)/(1-a))
		}
		lo, hi := 0.0, capq
		for range 200 {
			mid := (lo + hi) / 2
			if exact(mid) < target {
				lo = mid
			} else {
				hi = mid
			}
		}
		assert.InEpsilon(t, hi, d.scale, 2e-4, "%+v", c)
	}
}

// An independent check: the same model for two cgroups written the
// straightforward way, with draws by math.Exp and math/rand, against Run.
func TestExponentialAgainstAStraightforwardSimulation(t *testing.T) {
	const m, u, b, capq = 2, 0.7, 2.0, 5.0 / 2
	q := 1.0 / m
	// The exponential's mean μ such that E[min(X, cap)] = μ(1 − e^(−cap/μ)) = u·q.
	lo, hi := 0.0, 10.0
	for range 200 {
		mid := (lo + hi) / 2
		if mid*-math.Expm1(-capq/mid) < u*q {
			lo = mid
		} else {
			hi = mid
		}
	}
	mu := hi
	rng := rand.New(rand.NewPCG(1, 2))
	var pending, tokens [m]float64
	backlog, sum, zeros := 0.0, 0.0, 0
	const n = 400_000
	for t := range n + 1000 {
		s := 0.0
		for i := range pending {
			pending[i] += math.Min(mu*rng.ExpFloat64(), capq)
			run := math.Min(pending[i], q+tokens[i])
			tokens[i] = math.Min(b*q, tokens[i]+q-run)
			pending[i] -= run
			s += run
		}
		backlog = math.Max(0, backlog+s-1)
		if t >= 1000 {
			sum += 1 + backlog
			if backlog < 1e-9 {
				zeros++
			}
		}
	}
	want, wantP1 := sum/n, float64(zeros)/n

	cells, err := Run(context.Background(), Plan{Cells: []BurstParams{cell(m, u, b, Exp)}, Periods: n, Warmup: 1000, Replicas: 10, Seed: 3})
	require.NoError(t, err)
	c := cells[0]
	t.Logf("straightforward E[WCET] %.5f P(WCET=1) %.5f; Run %.5f %v, %.5f %v", want, wantP1, c.EWCET, c.EWCETCI, c.PWCET1, c.PWCET1CI)
	// Both are estimates: allow twice the interval's half-width (about
	// two of each one's standard errors combined, with room).
	assert.InDelta(t, want, c.EWCET, 2*(c.EWCETCI[1]-c.EWCET))
	assert.InDelta(t, wantP1, c.PWCET1, 2*(c.PWCET1CI[1]-c.PWCET1))
	assert.Greater(t, c.EWCET, 1.01, "the case must overrun to check anything")
	assert.Less(t, c.EWCETCI[0], c.EWCET)
}

// The number of goroutines changes nothing; a cell alone is the same cell
// in a grid.
func TestSameSeedSameResultForAnyJobs(t *testing.T) {
	cs := []BurstParams{cell(10, 0.6, 2, Pareto), cell(3, 0.8, math.Inf(1), Exp), cell(20, 0.7, 4, Pareto)}
	p := plan(10_000, cs...)
	p.Jobs = 1
	one, err := Run(context.Background(), p)
	require.NoError(t, err)
	p.Jobs = 2
	two, err := Run(context.Background(), p)
	require.NoError(t, err)
	alone, err := Run(context.Background(), plan(10_000, cs[2]))
	require.NoError(t, err)
	strip := func(cs []Cell) []Cell {
		for i := range cs {
			cs[i].Seconds, cs[i].CgroupPeriodsPerS = 0, 0
		}
		return cs
	}
	assert.Equal(t, strip(one), strip(two))
	assert.Equal(t, strip(one)[2], strip(alone)[0])
	p.Seed = 8
	other, err := Run(context.Background(), p)
	require.NoError(t, err)
	assert.NotEqual(t, strip(one)[0].EWCET, strip(other)[0].EWCET)
}

// A trace is drawn value by value: a constant one never overruns, and a
// trace of zeros and one spike has the spike's frequency.
func TestEmpiricalDraws(t *testing.T) {
	flat := cell(4, 0.8, 2, Empirical)
	flat.Trace = []float64{0.3, 0.3, 0.3}
	cells, err := Run(context.Background(), plan(5_000, flat))
	require.NoError(t, err)
	assert.Equal(t, 1.0, cells[0].EWCET)
	assert.Equal(t, 0.0, cells[0].ThrottledShare)
	assert.InDelta(t, 0.8/4, cells[0].DemandMean, 1e-15)

	d, err := newDemand(BurstParams{Cgroups: 1, Util: 0.5, Dist: Empirical, Trace: []float64{0, 0, 0, 2}})
	require.NoError(t, err)
	r := simulate(context.Background(), BurstParams{Cgroups: 1, Util: 0.5, Buffer: 0, Dist: Empirical}, &d, 1, 0, 100_000)
	// A direct calculation: one cgroup, quota 1, no buffer, demand 2 with
	// probability 1/4 (the trace's mean is already 0.5) and else 0. What
	// stays pending moves +1 or −1 with probabilities 1/4 and 3/4, held at 0:
	// its stationary distribution is π(k) ∝ 3^−k, so a period ends with
	// demand pending with probability 1 − π(0) = 1/3.
	share := float64(r.throttled) / 100_000
	assert.InDelta(t, 1.0/3, share, 0.01)
}

func TestQuantilesWithImplicitZeros(t *testing.T) {
	// 10 periods, 7 without backlog: R-7 over {0×7, 0.1, 0.2, 0.5}.
	got := quantiles([]float64{0.1, 0.2, 0.5}, 10, 0.5, 0.9, 1)
	assert.InDeltaSlice(t, []float64{1, 1.23, 1.5}, got, 1e-12)
}

func TestBufferJSON(t *testing.T) {
	b, err := Buffer(math.Inf(1)).MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `"inf"`, string(b))
	b, err = Buffer(2).MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `2`, string(b))
	var back Buffer
	require.NoError(t, back.UnmarshalJSON([]byte(`"inf"`)))
	assert.True(t, math.IsInf(float64(back), 1), "read back (show)")
	require.NoError(t, back.UnmarshalJSON([]byte(`2.5`)))
	assert.Equal(t, Buffer(2.5), back)
	assert.Error(t, back.UnmarshalJSON([]byte(`"lots"`)))
}

// A cancelled run stops within milliseconds, mid-replica, and returns the
// context's error and no cells: a Ctrl-C must not wait for 10⁹ periods.
func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	began := time.Now()
	cells, err := Run(ctx, Plan{Cells: []BurstParams{cell(30, 0.5, 2, Pareto)}, Periods: 1e9, Warmup: 0, Replicas: 2, Jobs: 2, Seed: 1})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, cells)
	assert.Less(t, time.Since(began), 2*time.Second, "3·10¹⁰ cgroup-periods would take minutes")
}

// meanCI against numpy 2.4.6: m = x.mean(), h = tq*x.std(ddof=1)/sqrt(5),
// with tq = 2.7764451051977987, Student's t at 0.975 for 4 degrees of
// freedom.
func TestMeanCIKnownValues(t *testing.T) {
	mean, ci := meanCI([]float64{1.02, 1.05, 0.98, 1.10, 1.01}, 2.7764451051977987)
	assert.InDelta(t, 1.032, mean, 1e-12)
	assert.InDelta(t, 0.9755076993495467, ci[0], 1e-12)
	assert.InDelta(t, 1.0884923006504534, ci[1], 1e-12)
}
