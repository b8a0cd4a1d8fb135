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
	assert.GreaterOrEqual(t, r.Workers[0].Voluntary, uint64(batch/every*iterations), "a voluntary switch per sleep at least")

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
