package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tbreport "github.com/throttlebench/throttlebench/internal/report"
)

// contention is the contention block of a run's or a latency's result.
type contention struct {
	Threads           int      `json:"threads"`
	RunDelayMs        float64  `json:"run_delay_ms"`
	ThrottledMs       float64  `json:"throttled_ms"`
	WaitMs            float64  `json:"wait_ms"`
	WaitShare         float64  `json:"wait_share"`
	OnCPUMs           float64  `json:"on_cpu_ms"`
	PressureSomeMs    *float64 `json:"pressure_some_ms"`
	PressureFullMs    *float64 `json:"pressure_full_ms"`
	PressureSomeShare *float64 `json:"pressure_some_share"`
	PressureFullShare *float64 `json:"pressure_full_share"`
	Contended         bool     `json:"contended"`
}

// besideLoops runs the work beside a busy loop at nice 0 pinned on each
// CPU, once in each of parents ("" for throttlebench's default parent),
// the runs at once, and returns their contention blocks and warnings.
func besideLoops(t *testing.T, parents ...string) ([]*contention, []warnings) {
	t.Helper()
	for cpu := range runtime.NumCPU() {
		loop := exec.Command("taskset", "-c", strconv.Itoa(cpu), "sh", "-c", "while :; do :; done")
		require.NoError(t, loop.Start())
		defer func() { loop.Process.Kill(); loop.Wait() }()
	}
	// The parents' runs at once, so that each meets the same load.
	type run struct {
		parent, tag, dir, out string
		done                  chan outcome
	}
	var runs []run
	for _, parent := range parents {
		r := run{parent: parent, tag: newTag(t), dir: t.TempDir(), done: make(chan outcome, 1)}
		r.out = filepath.Join(r.dir, "l.json")
		args := []string{"latency", "--rate", "100", "--work", "5ms", "--workers", "1", "--duration", "2s", "-o", r.out}
		if parent != "" {
			args = append(args, "--parent", parent)
		}
		cmd := taggedCmd(r.tag, args...)
		go func() { r.done <- runCmdQuiet(cmd) }()
		runs = append(runs, r)
	}
	var cs []*contention
	var ws []warnings
	for _, r := range runs {
		o := <-r.done
		require.Equal(t, 0, o.code, o.stderr)
		assertNothingLeft(t, r.parent, r.tag, r.dir, "l.json")
		c, w := contentionIn(t, r.parent, r.out)
		cs, ws = append(cs, c), append(ws, w)
	}
	return cs, ws
}

// contentionIn reads the contention block and warnings of the result at
// out, a run in parent.
func contentionIn(t *testing.T, parent, out string) (*contention, warnings) {
	t.Helper()
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var r struct {
		Contention *contention `json:"contention"`
		Warnings   warnings    `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal(data, &r))
	require.NotNil(t, r.Contention, "%s", data)
	c := r.Contention
	t.Logf("parent %q: wait_share %.3f wait_ms %.1f threads %d pressure_some_ms %v", parent, c.WaitShare, c.WaitMs, c.Threads, fmtMs(c.PressureSomeMs))
	return c, r.Warnings
}

// A busy loop at nice 0 on every CPU shows as contention where the work's
// parent weighs what a loop does (a parent of the user's, at the kernel's
// default weight): the work's threads wait on the run queue for a share of
// the time they were runnable, the contention block says so and the
// busy-machine warning rests on it. 30 runs beside the stress harness's
// own busy loop on every CPU as well (go run ./test/stress -n 30 -run
// '^(TestContentionOfABusyLoopOnEachCPU|TestDefaultParentOutweighsANeighbour)$'
// ./test/integration, 2026-11-29): wait_share 0.300–0.393, mean 0.341,
// sd 0.024; the bound, 0.15, is 8 sd below the mean, so a correct build
// fails it far less than once in 1,000 runs.
func TestContentionOfABusyLoopOnEachCPU(t *testing.T) {
	hier := needRoot(t)
	cs, ws := besideLoops(t, topParent(t, hier, false))
	c, warnings := cs[0], ws[0]
	assert.GreaterOrEqual(t, c.Threads, 1)
	assert.Positive(t, c.OnCPUMs)
	assert.GreaterOrEqual(t, c.WaitShare, 0.15)
	assert.True(t, c.Contended)
	assert.Contains(t, warningsText(warnings), "busy machine: the work waited")
	assert.Contains(t, warnings.kinds(), tbreport.KindBusyMachine)
	if hier.Version == 2 {
		require.NotNil(t, c.PressureSomeMs, "v2 keeps the slice's cpu.pressure")
		assert.Positive(t, *c.PressureSomeMs)
	}
}

// The default parent's weight is written and read back as the result
// says it: 10000 on v2's scale in throttlebench's own parent, the kernel's
// default, 100, in a parent of the user's, which throttlebench leaves as
// it is. No timing: this is what the v2 guest runs, where the weight is
// cpu.weight written through the library.
func TestDefaultParentWeighs(t *testing.T) {
	hier := needRoot(t)
	weight := func(parent string) int {
		dir := t.TempDir()
		tag := newTag(t)
		out := filepath.Join(dir, "r.json")
		args := []string{"run", "--cpus", "0.5", "--iterations", "1", "--batch", "1", "-o", out}
		if parent != "" {
			args = append(args, "--parent", parent)
		}
		o := runCmd(t, taggedCmd(tag, args...))
		require.Equal(t, 0, o.code, o.stderr)
		assertNothingLeft(t, parent, tag, dir, "r.json")
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		var r struct {
			Cgroup struct {
				ParentWeight int `json:"parent_weight"`
			} `json:"cgroup"`
		}
		require.NoError(t, json.Unmarshal(data, &r))
		return r.Cgroup.ParentWeight
	}
	assert.Equal(t, 10000, weight(""))
	plain := topParent(t, hier, false)
	assert.Equal(t, 100, weight(plain))
	shares, sharesErr := os.ReadFile(filepath.Join(plain, "cpu.shares"))
	w, weightErr := os.ReadFile(filepath.Join(plain, "cpu.weight"))
	if hier.Version == 2 {
		require.NoError(t, weightErr)
		assert.Equal(t, "100", strings.TrimSpace(string(w)), "the user's parent is not changed")
	} else {
		require.NoError(t, sharesErr)
		assert.Equal(t, "1024", strings.TrimSpace(string(shares)), "the user's parent is not changed")
	}
}

// throttlebench's default parent outweighs the loops
// (cgroup.DefaultParentWeight): beside the same loops its work waits less
// than half the share a parent at the kernel's default weight waits,
// the two measured at once, so that both meet the same load: measured one
// after the other, a clean-clone CI run (issue 49's) read 0.523 against
// 0.588, the other packages' tests (go test runs two at once) loading the
// second and not the first. 30 runs at once beside the stress harness's
// busy loop on every CPU (go run ./test/stress -n 30 -run
// '^TestDefaultParentOutweighsANeighbour$' ./test/integration,
// 2026-11-29): the default parent 0.015–0.150 (mean 0.072), the plain
// one 0.371–0.569 (0.494), a ratio of 0.028–0.264 (mean 0.148, sd 0.060):
// the bound, 0.5, is 5.9 sd above the mean. One after the other, the 30
// runs above: the default parent
// 0.004–0.026 (mean 0.012, sd 0.006), the plain one 0.300–0.393, a ratio
// of at most 0.09. An absolute bound (0.1) failed a clean-clone CI run
// while other builds loaded the host 12 deep (0.307): there, four pairs
// read 0.099/0.720, 0.159/0.536, 0.235/0.577 and 0.131/0.537, ratios
// 0.14–0.41, the default parent still far ahead; the bound, 0.5, holds
// in both. Measured on this host's 6.18 (EEVDF) only: in the v2 guest's
// 6.1 under emulation one run waited 0.269 here against 0.626 at the
// default weight (a clean-clone CI run), so the guest runs
// TestDefaultParentWeighs.
func TestDefaultParentOutweighsANeighbour(t *testing.T) {
	hier := needRoot(t)
	cs, _ := besideLoops(t, topParent(t, hier, false), "")
	plain, c := cs[0], cs[1]
	assert.Positive(t, c.OnCPUMs)
	assert.Less(t, c.WaitShare, plain.WaitShare/2, "the default parent against one at the default weight")
}

func warningsText(ws warnings) string { return ws.text() + "\n" }
