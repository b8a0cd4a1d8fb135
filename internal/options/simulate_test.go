package options

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// simDefaults are simulate's flags at their defaults.
func simDefaults() Simulate {
	return Simulate{Cgroups: "10", Util: "0.5", Buffer: "2", Dist: "pareto", Shape: "1.5", Cap: "5",
		Periods: "1000000", Warmup: "1000", Replicas: "10", Seed: "1", Jobs: "4", Format: "text"}
}

func given(names ...string) func(string) bool {
	return func(f string) bool {
		for _, n := range names {
			if n == f {
				return true
			}
		}
		return false
	}
}

func TestSimulationResolve(t *testing.T) {
	r, err := simDefaults().Resolve(given())
	require.NoError(t, err)
	assert.Equal(t, model.Plan{Cells: []model.BurstParams{{Cgroups: 10, Util: 0.5, Buffer: 2, Dist: model.Pareto, Shape: 1.5, Cap: 5}},
		Periods: 1000000, Warmup: 1000, Replicas: 10, Seed: 1, Jobs: 4}, r.Plan)
	assert.False(t, r.List, "one cell given as one value: one object")

	// Lists: the buffer slowest, the utilisation fastest; counts as 1e6.
	s := simDefaults()
	s.Cgroups, s.Util, s.Buffer, s.Periods = "2,3", "0.5:0.6:0.1", "0,inf", "1e4"
	r, err = s.Resolve(given("cgroups", "util", "buffer", "periods"))
	require.NoError(t, err)
	require.Len(t, r.Plan.Cells, 8)
	assert.Equal(t, 10000, r.Plan.Periods)
	var got [][3]float64
	for _, c := range r.Plan.Cells {
		got = append(got, [3]float64{c.Buffer, float64(c.Cgroups), c.Util})
	}
	assert.Equal(t, [][3]float64{{0, 2, 0.5}, {0, 2, 0.6}, {0, 3, 0.5}, {0, 3, 0.6},
		{math.Inf(1), 2, 0.5}, {math.Inf(1), 2, 0.6}, {math.Inf(1), 3, 0.5}, {math.Inf(1), 3, 0.6}}, got)
	assert.True(t, r.List)

	// --grid fills the lists not given, with the published shape.
	s = simDefaults()
	s.Grid, s.Cgroups = true, "5"
	r, err = s.Resolve(given("grid", "cgroups"))
	require.NoError(t, err)
	assert.Len(t, r.Plan.Cells, 1*7*4)
	assert.Equal(t, 5, r.Plan.Cells[0].Cgroups)
	assert.True(t, r.List)
}

// --util auto takes the utilisation from the trace: m × its mean.
func TestSimulationUtilFromTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	data, err := json.Marshal(usage.File{SchemaVersion: usage.SchemaVersion, IntervalMs: 100, TMs: []float64{100, 200}, UsageCPUs: []float64{0.02, 0.08}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	s := simDefaults()
	s.Dist, s.From, s.Util, s.Cgroups = "empirical", path, "auto", "4,10"
	r, err := s.Resolve(given("dist", "from", "util", "cgroups"))
	require.NoError(t, err)
	require.Len(t, r.Plan.Cells, 2)
	assert.InDelta(t, 0.2, r.Plan.Cells[0].Util, 1e-12)
	assert.InDelta(t, 0.5, r.Plan.Cells[1].Util, 1e-12)
	assert.Equal(t, []float64{0.02, 0.08}, r.Plan.Cells[0].Trace)

	s.Cgroups = "20"
	_, err = s.Resolve(given("dist", "from", "util", "cgroups"))
	assert.EqualError(t, err, "--util auto with --cgroups 20: the trace's mean of 0.05 CPUs × 20 cgroups is a utilisation of 1: want below 1 (fewer --cgroups, or a --util to scale to)")
}

// Every refusal is a badinput.Error (exit 2) naming the flag.
func TestSimulationRefuses(t *testing.T) {
	for _, tc := range []struct {
		set   func(*Simulate)
		given []string
		flag  string
		want  string
	}{
		{func(s *Simulate) { s.Dist = "normal" }, nil, "dist", `invalid --dist "normal": want one of exp, pareto, empirical`},
		{func(s *Simulate) { s.Cgroups = "0" }, nil, "cgroups", `invalid --cgroups "0": want whole numbers between 1 and 10000`},
		{func(s *Simulate) { s.Util = "0.5,1.2" }, nil, "util", `invalid --util "1.2": want a utilisation above 0 and below 1, such as 0.5 (a list or range of them)`},
		{func(s *Simulate) { s.Util = "auto" }, nil, "util", "only with --dist empirical"},
		{func(s *Simulate) { s.Buffer = "NaN" }, nil, "buffer", `"NaN" is not a number`},
		{func(s *Simulate) { s.Dist = "exp" }, []string{"pareto-shape"}, "pareto-shape", `--pareto-shape "1.5" applies only to --dist pareto (--dist is exp)`},
		{func(s *Simulate) { s.Shape = "1" }, nil, "pareto-shape", "the mean is infinite"},
		{func(s *Simulate) { s.Cap = "0.5" }, nil, "cap", "from 1 to 1000"},
		{func(s *Simulate) { s.Dist = "empirical" }, nil, "from", "--dist empirical needs --from FILE"},
		{func(s *Simulate) { s.Dist, s.From = "empirical", "/nonexistent/usage.json" }, []string{"from"}, "from", "no such file"},
		{func(s *Simulate) { s.Periods = "1000.5" }, nil, "periods", "whole number between 100 and 1e+08"},
		{func(s *Simulate) { s.Replicas, s.Periods = "500", "100" }, nil, "periods", "--periods 100: want at least --replicas 500"},
		{func(s *Simulate) { s.Jobs = "0" }, nil, "jobs", "between 1 and 1024"},
		{func(s *Simulate) { s.Seed = "-1" }, nil, "seed", "between 0 and 18446744073709551615"},
		{func(s *Simulate) { s.Cgroups, s.Util = "1:1000:1", "0.1:0.9:0.05" }, nil, "cgroups", "cells: want at most 10000"},
		{func(s *Simulate) { s.Format = "gobench" }, nil, "format", "text, json, csv, markdown"},
		{func(s *Simulate) { s.Plot = "grid.pdf" }, nil, "plot", ".svg or .png"},
		{func(s *Simulate) { s.Output = "/nonexistent/dir/x" }, nil, "output", "does not exist"},
	} {
		s := simDefaults()
		tc.set(&s)
		_, err := s.Resolve(given(tc.given...))
		var e *badinput.Error
		require.ErrorAs(t, err, &e, tc.want)
		assert.Equal(t, tc.flag, e.Param, err.Error())
		assert.Contains(t, err.Error(), tc.want)
	}
}
