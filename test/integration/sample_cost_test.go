//go:build linux

package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// The counter sample holds open (cgroup.UsageFile) on a real cgroup: each
// read renders the kernel's value anew (a busy process's CPU time shows),
// and once the cgroup is removed a read says so (ErrNoUsage), as opening
// the file afresh would.
func TestUsageFileOnTheKernel(t *testing.T) {
	needRoot(t)
	top, err := cgroup.Host{Root: "/"}.UsageCgroup("/")
	require.NoError(t, err, "this host counts CPU usage per cgroup")
	dir := filepath.Join(top.Dir, fmt.Sprintf("tb-it-held-%d", os.Getpid()))
	require.NoError(t, os.Mkdir(dir, 0o755))
	t.Cleanup(func() { killCgroup(dir); os.Remove(dir) })
	cg, err := cgroup.Host{Root: "/"}.UsageCgroup(dir)
	require.NoError(t, err)
	u, err := cg.OpenUsage()
	require.NoError(t, err)
	defer u.Close()

	before, err := u.Usage()
	require.NoError(t, err)
	busy := exec.Command("sh", "-c", `echo $$ > "$1/cgroup.procs" || exit 1; while :; do :; done`, "sh", dir)
	require.NoError(t, busy.Start())
	// The event: the loop has used 100 ms of CPU (its own clock, in
	// /proc), nearly all of it in the cgroup, which it joins first thing.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if used, ok := cpuOf(busy.Process.Pid); ok && used >= 100*time.Millisecond {
			break
		}
		require.True(t, time.Now().Before(deadline), "the busy loop used no 100 ms of CPU within a minute")
	}
	during, err := u.Usage()
	require.NoError(t, err)
	busy.Process.Kill()
	busy.Wait()
	assert.Greater(t, during-before, 50*time.Millisecond, "the held file shows the busy loop's CPU time")
	fresh, err := cg.Usage()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, fresh, during, "as the file opened afresh does")

	killCgroup(dir)
	require.NoError(t, os.Remove(dir))
	_, err = u.Usage()
	assert.ErrorIs(t, err, cgroup.ErrNoUsage, "the cgroup was removed under the open file")
}

// sampleCost is what the benchmark needs of sample's JSON.
type sampleCost struct {
	UsageCPUs []float64 `json:"usage_cpus"`
	Sampler   struct {
		CPUMs       float64 `json:"cpu_ms"`
		CPUFraction float64 `json:"cpu_fraction"`
		LateUs      struct {
			Mean, P99 float64
		} `json:"late_us"`
		Missed int `json:"missed"`
	} `json:"sampler"`
}

// loopCost is what testdata/readloop.py prints.
type loopCost struct {
	CPUs     float64 `json:"cpu_s"`
	WallS    float64 `json:"wall_s"`
	Readings int     `json:"readings"`
}

// BenchmarkSamplerCost is what `sample` costs the machine, beside a plain
// Python loop (testdata/readloop.py) that reads the same counter file at
// the same interval on absolute deadlines, both running at once for 10 s in
// this process's own cgroup (sample's default). Each measures its CPU time
// over its loop only (sample's sampler.cpu_ms, the loop's
// time.process_time), without start-up. Metrics: both as percent of one
// CPU and in µs of CPU per reading, ours/python (the ratio of the two), and
// sample's lateness (mean, p99) and skipped instants.
func BenchmarkSamplerCost(b *testing.B) {
	python, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("no python3 on PATH to compare with")
	}
	cg, err := cgroup.Host{Root: "/"}.UsageCgroup("")
	if err != nil {
		skipOrFail(b, fmt.Sprintf("no usage counter for this process's cgroup: %v", err))
	}
	counter := filepath.Join(cg.Dir, "cpuacct.usage")
	if cg.Version == 2 {
		counter = filepath.Join(cg.Dir, "cpu.stat")
	}
	_, file, _, _ := runtime.Caller(0)
	loop := filepath.Join(filepath.Dir(file), "testdata", "readloop.py")
	const duration = 10 * time.Second
	for _, interval := range []time.Duration{100 * time.Millisecond, 10 * time.Millisecond} {
		b.Run(interval.String(), func(b *testing.B) {
			var ours sampleCost
			var py loopCost
			for b.Loop() {
				var pyOut, pyErr bytes.Buffer
				pyCmd := exec.Command(python, loop, counter, strconv.FormatFloat(interval.Seconds(), 'g', -1, 64), strconv.FormatFloat(duration.Seconds(), 'g', -1, 64))
				pyCmd.Stdout, pyCmd.Stderr = &pyOut, &pyErr
				require.NoError(b, pyCmd.Start())
				o := tb(b, "sample", "--cgroup", cg.Dir, "--interval", interval.String(), "--duration", duration.String())
				require.NoError(b, pyCmd.Wait(), pyErr.String())
				require.Equal(b, 0, o.code, o.stderr)
				require.NoError(b, json.Unmarshal([]byte(o.stdout), &ours))
				require.NoError(b, json.Unmarshal(pyOut.Bytes(), &py))
			}
			readings := float64(len(ours.UsageCPUs) + 1)
			oursUs := ours.Sampler.CPUMs * 1e3 / readings
			pyUs := py.CPUs * 1e6 / float64(py.Readings)
			b.ReportMetric(100*ours.Sampler.CPUFraction, "ours-cpu-%")
			b.ReportMetric(100*py.CPUs/py.WallS, "python-cpu-%")
			b.ReportMetric(oursUs, "ours-µs/reading")
			b.ReportMetric(pyUs, "python-µs/reading")
			b.ReportMetric(oursUs/pyUs, "ours/python")
			b.ReportMetric(ours.Sampler.LateUs.Mean, "late-mean-µs")
			b.ReportMetric(ours.Sampler.LateUs.P99, "late-p99-µs")
			b.ReportMetric(float64(ours.Sampler.Missed), "missed")
			b.ReportMetric(0, "ns/op")
		})
	}
}
