package bench

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/bench/workload"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/topology"
)

// fakePlacer is a machine of 16 CPUs whose SMT siblings are n and n+8 (the
// seed16 fixture), with the given affinity; it records each thread's
// affinity by the CPUs set.
type fakePlacer struct {
	mu     sync.Mutex
	set    [][]int
	setErr error
}

func (f *fakePlacer) placer(affinity []int, affErr error) placer {
	return placer{
		affinity: func() ([]int, error) { return affinity, affErr },
		layout:   func() (*topology.Topology, error) { return topology.Read("../topology/testdata/seed16") },
		setAffinity: func(cpus []int) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.set = append(f.set, cpus)
			return f.setErr
		},
	}
}

func (f *fakePlacer) sets() [][]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.set)
	slices.SortFunc(out, slices.Compare)
	return out
}

func placedRun(t *testing.T, pl placer, cfg runspec.ClosedLoop) (Result, error) {
	t.Helper()
	rn := sleeping(0, runspec.MaxIterations)
	rn.placer = pl
	cfg.Workload, cfg.Batch, cfg.Iterations = "sleep", 1, 1
	return rn.run(context.Background(), cfg, nil)
}

func seq(lo, hi int) []int {
	var out []int
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

func TestPlacement(t *testing.T) {
	all := seq(0, 15)
	for _, tt := range []struct {
		name          string
		cfg           runspec.ClosedLoop
		affinity      []int
		allowed, pins []int
		sets          [][]int // each worker thread's affinity, sorted
	}{
		{name: "none: the threads keep the process's CPUs", cfg: runspec.ClosedLoop{Workers: 2}, affinity: all, allowed: all},
		{name: "pin: worker i on the i-th, round again", cfg: runspec.ClosedLoop{Workers: 3, Pin: true}, affinity: []int{2, 5},
			allowed: []int{2, 5}, pins: []int{2, 5, 2}, sets: [][]int{{2}, {2}, {5}}},
		{name: "one per core: the first sibling of each core", cfg: runspec.ClosedLoop{Workers: 2, OnePerCore: true}, affinity: all,
			allowed: seq(0, 7), sets: [][]int{seq(0, 7), seq(0, 7)}},
		{name: "one per core of a cpuset of siblings", cfg: runspec.ClosedLoop{Workers: 1, OnePerCore: true}, affinity: []int{3, 11, 12},
			allowed: []int{3, 12}, sets: [][]int{{3, 12}}},
		{name: "both: pinned within one per core", cfg: runspec.ClosedLoop{Workers: 3, Pin: true, OnePerCore: true}, affinity: []int{0, 1, 8, 9},
			allowed: []int{0, 1}, pins: []int{0, 1, 0}, sets: [][]int{{0}, {0}, {1}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakePlacer{}
			res, err := placedRun(t, f.placer(tt.affinity, nil), tt.cfg)
			require.NoError(t, err)
			assert.Equal(t, tt.allowed, res.AllowedCPUs)
			assert.Equal(t, tt.pins, res.PinnedCPUs)
			assert.Equal(t, tt.sets, f.sets())
		})
	}
}

func TestPlacementFailures(t *testing.T) {
	f := &fakePlacer{}
	res, err := placedRun(t, f.placer(nil, errors.New("no affinity here")), runspec.ClosedLoop{Workers: 1})
	require.NoError(t, err, "without pinning an unknown affinity is no failure")
	assert.Nil(t, res.AllowedCPUs)

	_, err = placedRun(t, f.placer(nil, errors.New("no affinity here")), runspec.ClosedLoop{Workers: 1, Pin: true})
	assert.ErrorContains(t, err, "no affinity here")

	_, err = placedRun(t, f.placer([]int{99}, nil), runspec.ClosedLoop{Workers: 1, OnePerCore: true})
	assert.ErrorContains(t, err, "none of the CPUs 99 this process may use is online")

	f.setErr = errors.New("EINVAL")
	_, err = placedRun(t, f.placer([]int{0, 1}, nil), runspec.ClosedLoop{Workers: 2, Pin: true})
	assert.ErrorContains(t, err, "place worker")
	assert.ErrorContains(t, err, "EINVAL")
}

// affinityWork records the affinity of the thread it runs on.
type affinityWork struct {
	mu  *sync.Mutex
	got map[int][]int
	id  int
}

func (w affinityWork) Do() error {
	cpus, err := topology.Affinity()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.got[w.id] = cpus
	return err
}

// On this machine's kernel: each worker runs on its own CPU, where its
// operations see the affinity it was given, and the process keeps its own.
func TestPinOnThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pinning is Linux's")
	}
	own, err := topology.Affinity()
	require.NoError(t, err)
	var mu sync.Mutex
	got := map[int][]int{}
	next := 0
	rn := runner{maxIterations: runspec.MaxIterations, newWorkload: func(string, report.Params, int) (workload.Workload, error) {
		next++
		return affinityWork{&mu, got, next - 1}, nil
	}}
	workers := len(own) + 1
	res, err := rn.run(context.Background(), runspec.ClosedLoop{Workload: "affinity", Batch: 1, Iterations: 1, Workers: workers, Pin: true}, nil)
	require.NoError(t, err)
	assert.Equal(t, own, res.AllowedCPUs)
	require.Len(t, res.PinnedCPUs, workers)
	for id := range workers {
		assert.Equal(t, own[id%len(own)], res.PinnedCPUs[id])
		assert.Equal(t, []int{res.PinnedCPUs[id]}, got[id], "worker %d", id)
	}
	// No thread a worker was pinned on goes back to the runtime's pool:
	// fresh goroutines, each locked to a thread of its own, see the whole
	// set, however many threads they take.
	for tid, cpus := range threadAffinities(t) {
		assert.Equal(t, own, cpus, "thread %d, reused after a pinned worker", tid)
	}
}
