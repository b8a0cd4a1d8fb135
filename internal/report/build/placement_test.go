package build

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench"
	"github.com/throttlebench/throttlebench/internal/report"
)

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		name        string
		throughputs []float64
		want        report.Spread
	}{
		// mean 75, sample stddev √((25² + 25²)/1) = 35.355…
		{"one two times slower", []float64{100, 50}, report.Spread{SlowestToFastest: 0.5, CoV: 25 * math.Sqrt2 / 75}},
		{"even", []float64{100, 100, 100}, report.Spread{SlowestToFastest: 1, CoV: 0}},
		// mean 4, deviations −2, 0, 2: stddev √(8/2) = 2
		{"three", []float64{2, 4, 6}, report.Spread{SlowestToFastest: 2.0 / 6, CoV: 0.5}},
		{"one worker", []float64{42}, report.Spread{SlowestToFastest: 1, CoV: 0}},
		// mean 50, stddev √(2 × 50²) = 70.71…
		{"one did nothing", []float64{100, 0}, report.Spread{SlowestToFastest: 0, CoV: math.Sqrt2}},
		{"none did anything", []float64{0, 0}, report.Spread{SlowestToFastest: 1, CoV: 0}},
		{"no workers", nil, report.Spread{SlowestToFastest: 1, CoV: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := spread(tc.throughputs)
			assert.InDelta(t, tc.want.SlowestToFastest, got.SlowestToFastest, 1e-12)
			assert.InDelta(t, tc.want.CoV, got.CoV, 1e-12)
		})
	}
}

// placed is sample() with where each worker ran: worker 0 on CPUs 0 and
// 1 with the kernel's count of its moves, worker 1 on CPU 1 throughout,
// 10 operations each per iteration, both sleeping now and then.
func placed() Input {
	in := sample()
	its := in.Result.Iterations
	w0 := []bench.WorkerSample{
		{CPUs: []int{0}, Migrations: 2, CPUChanges: 0},
		{CPUs: []int{1}, Migrations: 1, CPUChanges: 0},
		{CPUs: []int{0, 1}, Migrations: 3, CPUChanges: 1},
	}
	for i := range its {
		a, b := &its[i].Workers[0], &its[i].Workers[1]
		a.Ops, b.Ops = 10, 10
		a.CPUs, a.Migrations, a.CPUChanges = w0[i].CPUs, w0[i].Migrations, w0[i].CPUChanges
		b.CPUs = []int{1}
		a.KernelMigrations, b.KernelMigrations = true, true
		a.CtxVoluntary, a.CtxInvoluntary = 4, 1
		b.CtxVoluntary, b.CtxInvoluntary = 0, 7
	}
	return in
}

func TestWorkersPlacement(t *testing.T) {
	r := Build(placed())
	w0, w1 := r.Workers[0], r.Workers[1]
	assert.Equal(t, 30, w0.Ops)
	assert.Equal(t, []int{0, 1}, w0.CPUs, "over all iterations, ascending")
	assert.Equal(t, []int{1}, w1.CPUs)
	assert.Equal(t, "kernel", r.MigrationsSource)
	assert.Equal(t, uint64(6), w0.Migrations, "the kernel's count: 2 + 1 + 3")
	assert.Equal(t, uint64(12), w0.CtxSwitchesVoluntary)
	assert.Equal(t, uint64(3), w0.CtxSwitchesInvoluntary)
	assert.Equal(t, uint64(21), w1.CtxSwitchesInvoluntary)

	// Worker 0: 30 ops in 100 + 90 + 50 ms = 125/s; worker 1: 30 ops in
	// 80 + 60 + 110 ms = 120/s. Mean 122.5, sample stddev 2.5·√2.
	assert.InDelta(t, 120.0/125, r.Spread.SlowestToFastest, 1e-12)
	assert.InDelta(t, 2.5*math.Sqrt2/122.5, r.Spread.CoV, 1e-12)
}

// One worker without the kernel's count in one iteration: every worker's
// migrations are the sampled changes, so that they compare, and the report
// says so.
func TestMigrationsFallBackToSampledForAll(t *testing.T) {
	in := placed()
	in.Result.Iterations[1].Workers[1].KernelMigrations = false
	r := Build(in)
	assert.Equal(t, "sampled", r.MigrationsSource)
	assert.Equal(t, uint64(1), r.Workers[0].Migrations, "changes between samples: 0 + 0 + 1")
	assert.Equal(t, uint64(0), r.Workers[1].Migrations)
}

func TestOneWorkerSpreadIsEven(t *testing.T) {
	in := placed()
	in.Config.Workers = 1
	for i := range in.Result.Iterations {
		in.Result.Iterations[i].Workers = in.Result.Iterations[i].Workers[:1]
	}
	assert.Equal(t, report.Spread{SlowestToFastest: 1, CoV: 0}, Build(in).Spread)
}

// The keys docs/run.md documents, and cpus null where nothing was sampled.
func TestPlacementKeysInJSON(t *testing.T) {
	decode := func(in Input) map[string]any {
		var buf bytes.Buffer
		require.NoError(t, report.WriteJSON(&buf, Build(in)))
		var m map[string]any
		require.NoError(t, json.Unmarshal(buf.Bytes(), &m))
		return m
	}
	m := decode(placed())
	assert.Equal(t, "kernel", m["migrations_source"])
	sp := m["spread"].(map[string]any)
	assert.Contains(t, sp, "slowest_to_fastest")
	assert.Contains(t, sp, "cov")
	w := m["workers"].([]any)[0].(map[string]any)
	for _, k := range []string{"ops", "cpus", "migrations", "ctx_switches_voluntary", "ctx_switches_involuntary", "faults_minor", "faults_major"} {
		assert.Contains(t, w, k)
	}
	assert.Equal(t, []any{0.0, 1.0}, w["cpus"])

	in := sample() // no CPU sampled
	m = decode(in)
	w = m["workers"].([]any)[0].(map[string]any)
	v, present := w["cpus"]
	assert.True(t, present)
	assert.Nil(t, v, "not known: null, not an empty list")
}

// A spread read from a real run's samples: walls in time.Duration, ops
// counted per iteration.
func TestThroughputs(t *testing.T) {
	ps := []placement{{ops: 50, wall: 500 * time.Millisecond}, {ops: 10, wall: 0}}
	assert.Equal(t, []float64{100, 0}, throughputs(ps), "no wall time: no throughput")
}
