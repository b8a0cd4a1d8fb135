//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Where each worker ran, from the real binary: fibtest's fast and slow
// threads (the slow one sleeps after every 10 operations). Each worker's
// operations are all there, it ran on CPUs this machine lets it use, the
// slow worker's sleeps are voluntary context switches, and the spread
// shows it slower than the fast one.
func TestWorkersPlacement(t *testing.T) {
	hier := needRoot(t)
	parent := testParent(t, hier)
	const batch, every, iterations = 40, 10, 3
	o := tb(t, "run", "--cgroup", "create", "--parent", parent, "--workload", "spin", "--units", "100",
		"--workers", "2", "--slow-workers", "1", "--sleep", "5ms", "--sleep-every", strconv.Itoa(every),
		"--batch", strconv.Itoa(batch), "--iterations", strconv.Itoa(iterations), "--warmup", "0")
	require.Equal(t, 0, o.code, o.stderr)
	var r struct {
		Workers []struct {
			Profile     string `json:"profile"`
			Ops         int    `json:"ops"`
			CPUs        []int  `json:"cpus"`
			Migrations  uint64 `json:"migrations"`
			Voluntary   uint64 `json:"ctx_switches_voluntary"`
			Involuntary uint64 `json:"ctx_switches_involuntary"`
		} `json:"workers"`
		Spread struct {
			SlowestToFastest float64 `json:"slowest_to_fastest"`
			CoV              float64 `json:"cov"`
		} `json:"spread"`
		MigrationsSource string `json:"migrations_source"`
	}
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r), o.stdout)

	var allowed unix.CPUSet
	require.NoError(t, unix.SchedGetaffinity(0, &allowed))
	require.Len(t, r.Workers, 2)
	for id, w := range r.Workers {
		assert.Equal(t, batch*iterations, w.Ops, "worker %d", id)
		require.NotEmpty(t, w.CPUs, "worker %d", id)
		for _, c := range w.CPUs {
			assert.True(t, allowed.IsSet(c), "worker %d on CPU %d, not one of this machine's", id, c)
		}
	}
	assert.Equal(t, "slow", r.Workers[0].Profile)
	// Every sleep takes the slow worker off its CPU: blocked (a voluntary
	// switch) or, where it was preempted on its way to the futex and the
	// timer had fired by the time it ran again, preempted (involuntary).
	// Beside a busy loop on every CPU the voluntary ones alone came out 10
	// and 11 of the 12 sleeps, in three of three runs (make test-stress,
	// issue 32): both kinds count. The fast worker never blocks.
	slow, fast := r.Workers[0], r.Workers[1]
	assert.GreaterOrEqual(t, slow.Voluntary+slow.Involuntary, uint64(batch/every*iterations), "off the CPU at each sleep")
	assert.Greater(t, slow.Voluntary, fast.Voluntary, "the slow worker's sleeps block it; the fast worker never blocks")

	want := "sampled"
	if _, err := os.Stat("/proc/thread-self/sched"); err == nil {
		want = "kernel"
	}
	assert.Equal(t, want, r.MigrationsSource)

	// The slow worker sleeps 20 ms an iteration against about 7 ms of
	// spin: far below the fast one's pace, whatever the machine's load.
	assert.Greater(t, r.Spread.SlowestToFastest, 0.0)
	assert.Less(t, r.Spread.SlowestToFastest, 0.8)
	assert.Positive(t, r.Spread.CoV)
	t.Logf("spread %.2f, CoV %.2f; workers %+v", r.Spread.SlowestToFastest, r.Spread.CoV, r.Workers)
}
