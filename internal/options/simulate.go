package options

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/usage"
	"gonum.org/v1/gonum/stat"
)

// simulate's plan: the burst model's cells over lists and ranges of
// cgroups, utilisation and buffer, as a sweep's configurations are over
// its axes.

// Bounds of simulate's flags: the work is periods × cgroups per cell, so
// they keep a typo from asking for days; the buffer and cap are in quotas.
// The percentiles come from every period's backlog above 0, kept until the
// cell is done (8 bytes each): 10⁸ periods is at most 800 MB while a cell
// runs, and far less below saturation.
const (
	maxSimCgroups  = 10000
	maxSimBuffer   = 1e6
	maxSimCap      = 1000
	maxSimShape    = 100
	minSimPeriods  = 100
	maxSimPeriods  = 1e8
	maxSimWarmup   = 1e8
	maxSimReplicas = 1000
	maxSimCells    = 10000
	maxSimJobs     = 1024
)

// The published table's shape (cpuburst-simulator), which --grid runs.
const (
	GridCgroups = "10,20,30"
	GridUtil    = "0.1:0.7:0.1"
	GridBuffer  = "0,1,2,4"
)

// Simulate is the simulate command's flags as given.
type Simulate struct {
	Cgroups, Util, Buffer, Dist, Shape, Cap, From string
	Periods, Warmup, Replicas, Seed, Jobs         string
	Grid                                          bool
	Format, Output, Plot, Columns                 string
}

// SimulateRun is what they resolve to.
type SimulateRun struct {
	Plan model.Plan
	List bool // an array of cells in JSON
	// Format, Output and Plot as given, checked.
	Format, Output, Plot string
	// Columns are what --columns chose.
	Columns table.Columns
}

// Resolve checks every flag (changed says which were given), and reads
// the trace, before anything runs; bad input is a badinput.Error.
func (s Simulate) Resolve(changed func(string) bool) (SimulateRun, error) {
	var r SimulateRun
	if s.Grid {
		for _, g := range []struct {
			flag string
			v    *string
			grid string
		}{{"cgroups", &s.Cgroups, GridCgroups}, {"util", &s.Util, GridUtil}, {"buffer", &s.Buffer, GridBuffer}} {
			if !changed(g.flag) {
				*g.v = g.grid
			}
		}
	}
	if err := badinput.Choice("dist", s.Dist, model.Dists); err != nil {
		return r, err
	}
	dist := model.Dist(slices.Index(model.Dists, s.Dist))
	ms, err := simCgroups(s.Cgroups)
	if err != nil {
		return r, err
	}
	auto := strings.TrimSpace(s.Util) == "auto"
	var us []float64
	if auto {
		if dist != model.Empirical {
			return r, badinput.Errorf("util", "invalid --util %q: auto takes the utilisation from a trace: only with --dist empirical", s.Util)
		}
	} else if us, err = floats("util", s.Util, "a utilisation above 0 and below 1, such as 0.5", func(u float64) bool { return u > 0 && u < 1 }); err != nil {
		return r, err
	}
	bs, err := floats("buffer", s.Buffer, fmt.Sprintf("a buffer of 0 to %g quotas, or inf", float64(maxSimBuffer)),
		func(b float64) bool { return b >= 0 && b <= maxSimBuffer || math.IsInf(b, 1) }, "inf")
	if err != nil {
		return r, err
	}
	base, err := s.demand(dist, changed)
	if err != nil {
		return r, err
	}
	p := &r.Plan
	if p.Periods, err = wholeNumber("periods", s.Periods, minSimPeriods, maxSimPeriods); err != nil {
		return r, err
	}
	if p.Warmup, err = wholeNumber("warmup", s.Warmup, 0, maxSimWarmup); err != nil {
		return r, err
	}
	if p.Replicas, err = wholeNumber("replicas", s.Replicas, 2, maxSimReplicas); err != nil {
		return r, err
	}
	if p.Jobs, err = wholeNumber("jobs", s.Jobs, 1, maxSimJobs); err != nil {
		return r, err
	}
	if p.Periods < p.Replicas {
		return r, badinput.Errorf("periods", "invalid --periods %d: want at least --replicas %d, one period per replica", p.Periods, p.Replicas)
	}
	if p.Seed, err = strconv.ParseUint(strings.TrimSpace(s.Seed), 10, 64); err != nil {
		return r, badinput.Errorf("seed", "invalid --seed %q: want a whole number between 0 and %d", s.Seed, uint64(math.MaxUint64))
	}
	if n := len(ms) * max(len(us), 1) * len(bs); n > maxSimCells {
		return r, badinput.Errorf("cgroups", "--cgroups %q × --util %q × --buffer %q is %d cells: want at most %d", s.Cgroups, s.Util, s.Buffer, n, maxSimCells)
	}
	if p.Cells, err = simCells(base, ms, us, bs, auto); err != nil {
		return r, err
	}
	if err := badinput.Choice("format", s.Format, model.SimulateFormats); err != nil {
		return r, err
	}
	if err := Output("output", s.Output); err != nil {
		return r, err
	}
	if err := Plot(s.Plot); err != nil {
		return r, err
	}
	if r.Columns, err = config.Columns(s.Columns, s.Format, model.CellColumns(s.Format)); err != nil {
		return r, err
	}
	r.List = s.Grid || len(p.Cells) > 1 || strings.ContainsAny(s.Cgroups+s.Util+s.Buffer, ",:")
	r.Format, r.Output, r.Plot = s.Format, s.Output, s.Plot
	return r, nil
}

// demand checks the distribution's own flags and reads its trace.
func (s Simulate) demand(dist model.Dist, changed func(string) bool) (model.BurstParams, error) {
	base := model.BurstParams{Dist: dist}
	for _, c := range []struct {
		flag, v string
		ok      bool
		why     string
	}{
		{"pareto-shape", s.Shape, dist == model.Pareto, "applies only to --dist pareto"},
		{"cap", s.Cap, dist != model.Empirical, "applies only to --dist exp and pareto (a trace is drawn as recorded)"},
		{"from", s.From, dist == model.Empirical, "applies only to --dist empirical"},
	} {
		if changed(c.flag) && !c.ok {
			return base, badinput.Errorf(c.flag, "--%s %q %s (--dist is %s)", c.flag, c.v, c.why, s.Dist)
		}
	}
	var err error
	if base.Shape, err = strconv.ParseFloat(strings.TrimSpace(s.Shape), 64); err != nil || !(base.Shape > 1 && base.Shape <= maxSimShape) {
		return base, badinput.Errorf("pareto-shape", "invalid --pareto-shape %q: want a number above 1 and at most %d, such as 1.5 (at 1 or below the mean is infinite)", s.Shape, maxSimShape)
	}
	if base.Cap, err = strconv.ParseFloat(strings.TrimSpace(s.Cap), 64); err != nil || !(base.Cap >= 1 && base.Cap <= maxSimCap) {
		return base, badinput.Errorf("cap", "invalid --cap %q: want a number of quotas from 1 to %d, such as 5", s.Cap, maxSimCap)
	}
	if dist == model.Empirical {
		if s.From == "" {
			return base, badinput.Errorf("from", "--dist empirical needs --from FILE: a trace written by throttlebench sample (its JSON)")
		}
		f, err := usage.ReadFile(s.From)
		if err != nil {
			return base, badinput.Errorf("from", "invalid --from %q: %v", s.From, err)
		}
		base.Trace = f.UsageCPUs
	}
	return base, nil
}

func simCgroups(spec string) ([]int, error) {
	vs, err := sweep.Expand(spec, sweep.Int)
	if err != nil {
		return nil, badinput.Errorf("cgroups", "invalid --cgroups %q: %v", spec, err)
	}
	var ms []int
	for _, v := range vs {
		m, err := strconv.Atoi(v)
		if err != nil || m < 1 || m > maxSimCgroups {
			return nil, badinput.Errorf("cgroups", "invalid --cgroups %q: want whole numbers between 1 and %d", v, maxSimCgroups)
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// simCells are the cells with the buffer slowest and the utilisation
// fastest: the text table reads as one block per buffer, and within it one
// run of rising utilisation per number of cgroups. With auto the
// utilisation is the trace's.
func simCells(base model.BurstParams, ms []int, us, bs []float64, auto bool) ([]model.BurstParams, error) {
	var cells []model.BurstParams
	for _, b := range bs {
		for _, m := range ms {
			c := base
			c.Cgroups, c.Buffer = m, b
			if !auto {
				for _, u := range us {
					c.Util = u
					cells = append(cells, c)
				}
				continue
			}
			// Unscaled: each cgroup draws the trace's CPUs as its demand per
			// period, so the CPU's utilisation is m × the trace's mean.
			c.Util = float64(m) * stat.Mean(base.Trace, nil)
			if !(c.Util < 1) {
				return nil, badinput.Errorf("util", "--util auto with --cgroups %d: the trace's mean of %.4g CPUs × %d cgroups is a utilisation of %.4g: want below 1 (fewer --cgroups, or a --util to scale to)",
					m, c.Util/float64(m), m, c.Util)
			}
			cells = append(cells, c)
		}
	}
	return cells, nil
}

// floats expands a list or range flag into values that pass ok.
func floats(flag, spec, want string, ok func(float64) bool, words ...string) ([]float64, error) {
	vs, err := sweep.Expand(spec, sweep.Float, words...)
	if err != nil {
		return nil, badinput.Errorf(flag, "invalid --%s %q: %v", flag, spec, err)
	}
	out := make([]float64, len(vs))
	for i, v := range vs {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !ok(x) {
			return nil, badinput.Errorf(flag, "invalid --%s %q: want %s (a list or range of them)", flag, v, want)
		}
		out[i] = x
	}
	return out, nil
}

// wholeNumber parses a count, also written as 1e6.
func wholeNumber(flag, v string, lo, hi float64) (int, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || x != math.Trunc(x) || !(x >= lo && x <= hi) {
		return 0, badinput.Errorf(flag, "invalid --%s %q: want a whole number between %g and %g", flag, v, lo, hi)
	}
	return int(x), nil
}
