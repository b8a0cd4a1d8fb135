//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	tbreport "github.com/throttlebench/throttlebench/internal/report"
)

// sampled is the part of sample's JSON the test looks at.
type sampled struct {
	Cgroup struct {
		Dir string `json:"dir"`
	} `json:"cgroup"`
	TMs            []float64 `json:"t_ms"`
	UsageCPUs      []float64 `json:"usage_cpus"`
	PressureSomeMs []float64 `json:"pressure_some_ms"`
	PressureFullMs []float64 `json:"pressure_full_ms"`
	Summary        struct {
		PressureSomeMs    *float64 `json:"pressure_some_ms"`
		PressureSomeShare *float64 `json:"pressure_some_share"`
		Interval          struct {
			MeanCPUs           float64  `json:"mean_cpus"`
			AboveLimitFraction *float64 `json:"above_limit_fraction"`
		} `json:"interval"`
		Coarse *struct {
			N        int     `json:"n"`
			MeanCPUs float64 `json:"mean_cpus"`
		} `json:"coarse"`
	} `json:"summary"`
	Warnings warnings `json:"warnings"`
}

// A busy loop in a cgroup throttled to 0.2 CPUs, sampled for 1.5 s: the
// usage is the quota, and the cgroup is found however it is named. A
// fifth, not a half: beside a busy loop on every CPU a thread gets about
// half of one, and the usage would measure the neighbours, not the quota.
func TestSampleThrottledCgroup(t *testing.T) {
	hier := needRoot(t)
	dir := filepath.Join(testParent(t, hier), "sampled")
	makeCgroup(t, hier, dir, 20000, 100000)
	rel := strings.TrimPrefix(dir, hier.MountPoint)
	dirs := []string{dir}
	if hier.Version == 1 {
		// cpuacct, mounted apart on our hosts, counts the usage: the same
		// path there, made level by level and removed the same way.
		if acct := cpuacctMount(t); acct != hier.MountPoint {
			acctDir := filepath.Join(acct, rel)
			mkdirAll(t, acct, acctDir)
			dirs = append(dirs, acctDir)
		}
	}
	script := `for d in "$@"; do echo $$ > "$d/cgroup.procs" || exit 1; done; while :; do :; done`
	busy := exec.Command("sh", append([]string{"-c", script, "sh"}, dirs...)...)
	require.NoError(t, busy.Start())
	t.Cleanup(func() { busy.Process.Kill(); busy.Wait() })
	// The event: the loop is in (a minute is a deadline for a hang).
	for deadline := time.Now().Add(time.Minute); !slices.Contains(procsIn(dirs[len(dirs)-1]), busy.Process.Pid) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	require.Contains(t, procsIn(dirs[len(dirs)-1]), busy.Process.Pid, "the busy loop moved itself in")

	s := sample(t, "--cgroup", dir, "--interval", "100ms", "--duration", "1500ms", "--limit", "0.5")
	assert.Equal(t, dirs[len(dirs)-1], s.Cgroup.Dir, "the counter read is the cgroup's own")
	// 15 intervals, fewer only when a reading came too late for one (on a
	// busy machine, several: at least a third are there).
	assert.GreaterOrEqual(t, len(s.UsageCPUs), 5)
	assert.LessOrEqual(t, len(s.UsageCPUs), 15)
	// The quota is what it gets on average, never more than a period's
	// runtime over it in 1.5 s (0.21); less only on a machine so busy that
	// the loop cannot use its fifth: a direction and an order of
	// magnitude, 0.05 to 0.25 (issue 32). One 100 ms window not aligned
	// with the periods may hold the runtime of two (seen at 0.5 CPUs: 0.88
	// in the first, which began mid-period just after the loop moved in),
	// never more: 0.4, and the reading's own lateness.
	assert.Greater(t, s.Summary.Interval.MeanCPUs, 0.05, "usage per 100 ms %v", s.UsageCPUs)
	assert.LessOrEqual(t, s.Summary.Interval.MeanCPUs, 0.25, "usage per 100 ms %v", s.UsageCPUs)
	for _, u := range s.UsageCPUs {
		assert.LessOrEqual(t, u, 0.45, "usage per 100 ms %v", s.UsageCPUs)
	}
	require.NotNil(t, s.Summary.Interval.AboveLimitFraction)
	require.NotNil(t, s.Summary.Coarse)
	assert.Equal(t, 1, s.Summary.Coarse.N)
	assert.Greater(t, s.Summary.Coarse.MeanCPUs, 0.05)
	assert.LessOrEqual(t, s.Summary.Coarse.MeanCPUs, 0.25)

	// The cgroup's cpu.pressure beside its usage, interval by interval
	// (v2; null on v1). The loop is always runnable and runs at most a
	// quarter of the time (the mean's bound above), so it is held for
	// three quarters of the sampling; measured in the 6.1 guest: 0.786 and
	// 0.779 in two boots, each 100 ms interval 47-84 ms. At least half,
	// for an interval that began before the loop was first held.
	if hier.Version == 2 {
		require.Len(t, s.PressureSomeMs, len(s.TMs), "one growth per interval, aligned with t_ms")
		require.Len(t, s.PressureFullMs, len(s.TMs))
		require.NotNil(t, s.Summary.PressureSomeMs)
		require.NotNil(t, s.Summary.PressureSomeShare)
		t.Logf("sample: pressure some %.1f ms (%.3f of the sampling); per interval %v", *s.Summary.PressureSomeMs, *s.Summary.PressureSomeShare, s.PressureSomeMs)
		for i, v := range s.PressureSomeMs {
			assert.GreaterOrEqual(t, v, 0.0)
			assert.LessOrEqual(t, s.PressureFullMs[i], v+1e-6)
		}
		assert.Positive(t, *s.Summary.PressureSomeMs)
		assert.GreaterOrEqual(t, *s.Summary.PressureSomeShare, 0.5, "a loop held to a fifth of a CPU is held most of the time")
	} else {
		assert.Nil(t, s.PressureSomeMs, "v1 keeps no cpu.pressure")
		assert.Nil(t, s.Summary.PressureSomeMs)
	}

	// Named by its directory in either hierarchy, by its cgroup path, by a
	// process in it: the same counter.
	names := [][]string{{"--cgroup", rel}, {"--pid", strconv.Itoa(busy.Process.Pid)}}
	for _, d := range dirs[1:] {
		names = append(names, []string{"--cgroup", d})
	}
	for _, name := range names {
		s := sample(t, append(name, "--interval", "50ms", "--duration", "200ms")...)
		assert.Equal(t, dirs[len(dirs)-1], s.Cgroup.Dir, "%v", name)
		assert.NotEmpty(t, s.UsageCPUs, "%v", name)
		assert.Empty(t, s.Warnings, "%v: one cgroup, not the machine", name)
	}
}

// --cgroup / is the whole machine, and the result says so: in the JSON's
// warnings and on stderr, where the JSON does not show it to a person
// (issue 33). Inside a cgroup namespace / is the container's own cgroup,
// which the warning must leave alone.
func TestSampleWholeMachine(t *testing.T) {
	top, err := cgroup.Host{Root: "/"}.UsageCgroup("/")
	require.NoError(t, err)
	o := tb(t, "sample", "--cgroup", "/", "--interval", "50ms", "--duration", "200ms")
	require.Equal(t, 0, o.code, o.stderr)
	var s sampled
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &s), o.stdout)
	if !top.IsHostRoot() {
		assert.Empty(t, s.Warnings, "a cgroup namespace's / is one container")
		return
	}
	require.Len(t, s.Warnings, 1, "%q", s.Warnings)
	assert.Equal(t, tbreport.KindWholeMachine, s.Warnings[0].Kind)
	assert.Contains(t, s.Warnings[0].Text, "cgroup / is the whole machine: every process's CPU is counted")
	assert.Contains(t, o.stderr, "warning: cgroup / is the whole machine")

	// The text shows it itself, once.
	o = tb(t, "sample", "--cgroup", "/", "--interval", "50ms", "--duration", "200ms", "--format", "text")
	require.Equal(t, 0, o.code, o.stderr)
	assert.Equal(t, 1, strings.Count(o.stdout, "warning: cgroup / is the whole machine"), o.stdout)
	assert.NotContains(t, o.stderr, "whole machine")
}

func sample(t *testing.T, args ...string) sampled {
	t.Helper()
	o := tb(t, append([]string{"sample"}, args...)...)
	require.Equal(t, 0, o.code, o.stderr)
	var s sampled
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &s), o.stdout)
	return s
}

// cpuacctMount is where the v1 cpuacct controller is mounted.
func cpuacctMount(t *testing.T) string {
	t.Helper()
	self, err := cgroup.Host{Root: "/"}.UsageCgroup("/")
	require.NoError(t, err, "this host counts CPU usage per cgroup")
	return self.MountPoint
}

// mkdirAll makes dir below top level by level and removes what it made at
// the end, deepest first (killing nothing: the test's own process is gone
// by then).
func mkdirAll(t *testing.T, top, dir string) {
	t.Helper()
	var made []string
	for d := dir; d != top && strings.HasPrefix(d, top+"/"); d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		made = append([]string{d}, made...)
	}
	for _, d := range made {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	t.Cleanup(func() {
		for i := len(made) - 1; i >= 0; i-- {
			assert.NoError(t, os.Remove(made[i]))
		}
	})
}
