package model

import (
	"context"
	"encoding/json"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclements/go-moremath/stats"
	"gonum.org/v1/gonum/stat"
)

// Plan is a burst simulation: cells, and how each is run.
type Plan struct {
	Cells    []BurstParams
	Periods  int // recorded periods per cell, split evenly over the replicas (rounded up)
	Warmup   int // periods run and discarded at the start of every replica
	Replicas int // independent replicas per cell, ≥ 2: the confidence intervals come from them
	Seed     uint64
	Jobs     int // goroutines; 0 for GOMAXPROCS. The results do not depend on it
}

// Buffer is a burst buffer in quotas; +Inf (--buffer inf) is written "inf",
// since JSON has no infinity.
type Buffer float64

func (b Buffer) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(b), 1) {
		return []byte(`"inf"`), nil
	}
	return json.Marshal(float64(b))
}

// UnmarshalJSON reads what MarshalJSON writes, for show.
func (b *Buffer) UnmarshalJSON(data []byte) error {
	if string(data) == `"inf"` {
		*b = Buffer(math.Inf(1))
		return nil
	}
	return json.Unmarshal(data, (*float64)(b))
}

// Cell is one cell's outcome; docs/simulate.md ("The JSON result") documents
// each key. WCETs are in periods.
type Cell struct {
	Cgroups           int        `json:"cgroups"`
	Util              float64    `json:"util"`
	Buffer            Buffer     `json:"buffer"`
	Dist              string     `json:"dist"`
	Periods           int        `json:"periods"`
	Seed              uint64     `json:"seed"`
	EWCET             float64    `json:"e_wcet"`
	EWCETCI           [2]float64 `json:"e_wcet_ci"`
	EWCETPeriods      float64    `json:"e_wcet_periods"`
	EWCETPeriodsCI    [2]float64 `json:"e_wcet_periods_ci"`
	PWCET1            float64    `json:"p_wcet_1"`
	PWCET1CI          [2]float64 `json:"p_wcet_1_ci"`
	WCETP90           float64    `json:"wcet_p90"`
	WCETP99           float64    `json:"wcet_p99"`
	WCETP999          float64    `json:"wcet_p999"`
	WCETMax           float64    `json:"wcet_max"`
	ThrottledShare    float64    `json:"throttled_share"`
	Seconds           float64    `json:"seconds"`
	CgroupPeriodsPerS float64    `json:"cgroup_periods_per_s"`
	Replicas          int        `json:"replicas"`
	Warmup            int        `json:"warmup"`
	DemandMean        float64    `json:"demand_mean"`
	Shape             *float64   `json:"pareto_shape"`
	Cap               *float64   `json:"cap"`
}

// PerReplica is how many periods each replica records.
func (p Plan) PerReplica() int { return (p.Periods + p.Replicas - 1) / p.Replicas }

// Run simulates every cell. The work is split into (cell, replica) tasks
// taken in order by Jobs goroutines; each task's random stream is derived
// from the seed and the cell's own values (streamSeed), never from which
// goroutine ran it or when, so the results are the same for any Jobs, and a
// cell gives the same result alone as in a grid. A cell's replicas are
// merged (and their stored backlogs freed) as soon as its last one ends, so
// memory holds about Jobs cells' backlogs at a time.
// When ctx ends first it stops within a few milliseconds and returns
// ctx's error, and no cells.
func Run(ctx context.Context, p Plan) ([]Cell, error) {
	demands := make([]demand, len(p.Cells))
	for i, c := range p.Cells {
		d, err := newDemand(c)
		if err != nil {
			return nil, err
		}
		demands[i] = d
	}
	jobs := p.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	per := p.PerReplica()
	tq := stats.InvCDF(stats.TDist{V: float64(p.Replicas - 1)})(0.975)
	reps := make([][]replica, len(p.Cells))
	secs := make([][]float64, len(p.Cells))
	left := make([]atomic.Int32, len(p.Cells))
	for i := range p.Cells {
		reps[i] = make([]replica, p.Replicas)
		secs[i] = make([]float64, p.Replicas)
		left[i].Store(int32(p.Replicas))
	}
	out := make([]Cell, len(p.Cells))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for {
				task := int(next.Add(1) - 1)
				ci, ri := task/p.Replicas, task%p.Replicas
				if ci >= len(p.Cells) || ctx.Err() != nil {
					return
				}
				start := time.Now()
				reps[ci][ri] = simulate(ctx, p.Cells[ci], &demands[ci], streamSeed(p.Seed, p.Cells[ci], ri), p.Warmup, per)
				secs[ci][ri] = time.Since(start).Seconds()
				if left[ci].Add(-1) == 0 && ctx.Err() == nil {
					out[ci] = p.merge(p.Cells[ci], demands[ci].mean, reps[ci], secs[ci], tq)
					reps[ci] = nil
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// merge turns a cell's replicas into its Cell. The point estimates are over
// all periods pooled (the replicas are of equal length, so the mean of
// their means); the intervals are Student's t over the replicas' means.
func (p Plan) merge(c BurstParams, demandMean float64, rs []replica, secs []float64, tq float64) Cell {
	per := rs[0].periods
	n := per * len(rs)
	ew := make([]float64, len(rs))
	ewp := make([]float64, len(rs))
	p1 := make([]float64, len(rs))
	var thr int
	var maxB, seconds float64
	for i, r := range rs {
		ew[i] = 1 + r.sumBacklog/float64(per)
		ewp[i] = 1 + r.sumCeil/float64(per)
		p1[i] = float64(r.zeros) / float64(per)
		thr += r.throttled
		maxB = max(maxB, r.maxBacklog)
		seconds += secs[i]
	}
	qs := quantiles(pooled(rs), n, 0.90, 0.99, 0.999)
	cell := Cell{
		Cgroups: c.Cgroups, Util: c.Util, Buffer: Buffer(c.Buffer), Dist: c.Dist.String(),
		Periods: n, Seed: p.Seed, Replicas: len(rs), Warmup: p.Warmup, DemandMean: demandMean,
		WCETP90: qs[0], WCETP99: qs[1], WCETP999: qs[2], WCETMax: 1 + maxB,
		ThrottledShare: float64(thr) / float64(n*c.Cgroups),
		Seconds:        seconds,
	}
	cell.EWCET, cell.EWCETCI = meanCI(ew, tq)
	cell.EWCETPeriods, cell.EWCETPeriodsCI = meanCI(ewp, tq)
	cell.PWCET1, cell.PWCET1CI = meanCI(p1, tq)
	if seconds > 0 {
		cell.CgroupPeriodsPerS = float64(c.Cgroups) * float64(len(rs)*(per+p.Warmup)) / seconds
	}
	if c.Dist == Pareto {
		cell.Shape = &c.Shape
	}
	if c.Dist != Empirical {
		cell.Cap = &c.Cap
	}
	return cell
}

// meanCI is the mean of xs and its 95% interval, mean ± t·s/√n.
func meanCI(xs []float64, tq float64) (float64, [2]float64) {
	mean, sd := stat.MeanStdDev(xs, nil)
	half := tq * stat.StdErr(sd, float64(len(xs)))
	return mean, [2]float64{mean - half, mean + half}
}

// streamSeed is the start of replica r's random stream in cell c: the seed
// and the cell's defining values mixed through splitmix64.
func streamSeed(seed uint64, c BurstParams, r int) uint64 {
	h := splitmix(seed)
	for _, v := range []uint64{uint64(c.Cgroups), math.Float64bits(c.Util), math.Float64bits(c.Buffer), uint64(c.Dist), uint64(r)} {
		h = splitmix(h ^ v)
	}
	return h
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
