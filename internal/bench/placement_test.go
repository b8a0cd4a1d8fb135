package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCPUSet(t *testing.T) {
	var s CPUSet
	assert.Nil(t, s.List(), "empty")
	assert.Zero(t, s.Len())
	for _, cpu := range []int{3, 0, 130, 3, 64, -1, 63} {
		s.Add(cpu)
	}
	assert.Equal(t, []int{0, 3, 63, 64, 130}, s.List(), "ascending, each once, unknown (-1) left out")
	assert.Equal(t, 5, s.Len())
	assert.True(t, s.Has(130))
	assert.False(t, s.Has(129))
	assert.False(t, s.Has(1000), "beyond the words held")
	assert.False(t, s.Has(-1))

	s.Reset()
	assert.Nil(t, s.List())
	s.Add(5)
	assert.Equal(t, []int{5}, s.List(), "reusable after Reset")
}

// A CPU seen before allocates nothing: the per-operation bookkeeping
// stays off the heap.
func TestCPUSetAddSeenDoesNotAllocate(t *testing.T) {
	var p placement
	p.reset()
	p.observe(7)
	p.observe(1)
	allocs := testing.AllocsPerRun(100, func() {
		p.observe(7)
		p.observe(1)
	})
	assert.Zero(t, allocs)
}

// The fallback for migrations: changes between consecutive samples, a
// sample equal to the last one no change, an unknown one skipped.
func TestPlacementCountsChanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples []int
		cpus    []int
		changes uint64
	}{
		{"none", nil, nil, 0},
		{"one CPU throughout", []int{1, 1, 1, 1}, []int{1}, 0},
		{"one move", []int{0, 0, 1, 1}, []int{0, 1}, 1},
		{"there and back", []int{0, 1, 0, 1}, []int{0, 1}, 3},
		{"unknown samples skipped", []int{2, -1, 2, -1, 5}, []int{2, 5}, 1},
		{"first sample unknown", []int{-1, 4, 4}, []int{4}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p placement
			p.reset()
			for _, c := range tc.samples {
				p.observe(c)
			}
			assert.Equal(t, tc.cpus, p.cpus.List())
			assert.Equal(t, tc.changes, p.changes)
		})
	}
}

// reset starts a batch afresh: the previous batch's last CPU does not
// count as a change.
func TestPlacementReset(t *testing.T) {
	var p placement
	p.reset()
	p.observe(0)
	p.observe(1)
	p.reset()
	p.observe(0)
	assert.Equal(t, []int{0}, p.cpus.List())
	assert.Zero(t, p.changes)
}

func TestParseNrMigrations(t *testing.T) {
	// As kernel 6.18 writes /proc/thread-self/sched, shortened.
	good := []byte(`throttlebench (4242, #threads: 5)
-------------------------------------------------------------------
se.exec_start                                :      58218842.931386
se.vruntime                                  :          1208.118418
se.sum_exec_runtime                          :            12.411233
se.nr_migrations                             :                   17
nr_switches                                  :                   42
`)
	n, err := parseNrMigrations(good)
	require.NoError(t, err)
	assert.Equal(t, uint64(17), n)

	for name, in := range map[string]string{
		"missing":     "se.vruntime : 1.5\nnr_switches : 3\n",
		"empty":       "",
		"not a count": "se.nr_migrations : -3\n",
		"prefix only": "se.nr_migrations_x : 3\n",
	} {
		_, err := parseNrMigrations([]byte(in))
		assert.ErrorIs(t, err, ErrParse, name)
	}
}

func TestThreadCountersSub(t *testing.T) {
	a := threadCounters{minor: 10, major: 1, voluntary: 7, involuntary: 3}
	b := threadCounters{minor: 15, major: 1, voluntary: 9, involuntary: 8}
	assert.Equal(t, threadCounters{minor: 5, voluntary: 2, involuntary: 5}, b.sub(a))
}
