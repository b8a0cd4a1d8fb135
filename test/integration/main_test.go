//go:build linux

// Package integration runs the real throttlebench binary against the real
// kernel: slices are created and throttled for real, on whichever cgroup
// version holds the cpu controller (v1 on our hosts, v2 inside the test VM).
//
// These tests need root. Outside CI they skip, saying so; with CI=true a
// missing precondition fails them instead.
package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/testenv"
)

// binary is the throttlebench under test: $THROTTLEBENCH_BIN (the VM has no
// Go toolchain) or a fresh build.
var binary string

func TestMain(m *testing.M) {
	if spec := os.Getenv(serverEnv); spec != "" { // latency --target's server (target_test.go)
		os.Exit(serveHTTP(spec))
	}
	binary = os.Getenv("THROTTLEBENCH_BIN")
	cleanup := func() {}
	if binary == "" {
		dir, err := os.MkdirTemp("", "tb-it-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cleanup = func() { os.RemoveAll(dir) }
		binary = filepath.Join(dir, "throttlebench")
		_, file, _, _ := runtime.Caller(0)
		build := exec.Command("go", "build", "-o", binary, "./cmd/throttlebench")
		build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build throttlebench: %v\n%s", err, out)
			cleanup()
			os.Exit(1)
		}
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// needRoot skips (or, in CI, fails) a test that must create cgroups.
func needRoot(t testing.TB) cgroup.Hierarchy {
	t.Helper()
	if os.Geteuid() != 0 {
		skipOrFail(t, "needs root to create cgroups (run as root, or in CI with CI=true)")
	}
	hier, err := cgroup.Host{Root: "/"}.CPUHierarchy(0)
	if err != nil {
		skipOrFail(t, fmt.Sprintf("no cgroup hierarchy with the cpu controller: %v", err))
	}
	return hier
}

// skipOrFail is testenv's rule: skip, or fail in CI.
var skipOrFail = testenv.SkipOrFail

// testParent makes a parent cgroup for this test's slices and removes it
// (and checks that nothing was left in it) at the end.
func testParent(t testing.TB, hier cgroup.Hierarchy) string {
	t.Helper()
	dir := filepath.Join(hier.DefaultParent(), fmt.Sprintf("it-%d-%s", os.Getpid(), sanitize(t.Name())))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	offerCPU(t, hier, dir)
	t.Cleanup(func() {
		left := subdirs(t, dir)
		for _, d := range left {
			killCgroup(d)
			os.Remove(d)
		}
		os.Remove(dir)
		// throttlebench's own default parent goes once empty, as after a run.
		os.Remove(filepath.Dir(dir))
		if len(left) > 0 {
			t.Errorf("slices left behind under %s: %v", dir, left)
		}
	})
	return dir
}

// offerCPU sets dir up as a parent of slices as an administrator would:
// on v2 the cpu controller enabled for the children of the top and of every
// cgroup down to dir (throttlebench does not change a parent it is given).
func offerCPU(t testing.TB, hier cgroup.Hierarchy, dir string) {
	t.Helper()
	if hier.Version != 2 {
		return
	}
	d := hier.MountPoint
	for _, part := range append([]string{""}, strings.Split(strings.Trim(strings.TrimPrefix(dir, hier.MountPoint), "/"), "/")...) {
		d = filepath.Join(d, part)
		require.NoError(t, os.WriteFile(filepath.Join(d, "cgroup.subtree_control"), []byte("+cpu"), 0), "enable +cpu in %s", d)
	}
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

func subdirs(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// result is the part of the JSON report the tests look at.
type result struct {
	Config struct {
		Workers    int     `json:"workers"`
		GOMAXPROCS int     `json:"gomaxprocs"`
		Iterations int     `json:"iterations"`
		MinTimeMs  float64 `json:"min_time_ms"`
	} `json:"config"`
	Cgroup struct {
		Mode          string  `json:"mode"`
		Version       int     `json:"version"`
		Path          string  `json:"path"`
		Dir           string  `json:"dir"`
		PeriodUs      *int64  `json:"period_us"`
		QuotaUs       int64   `json:"quota_us"`
		BurstUs       int64   `json:"burst_us"`
		EffectiveCPUs float64 `json:"effective_cpus"`
	} `json:"cgroup"`
	DurationsMs []float64 `json:"durations_ms"`
	Stats       struct {
		N      int     `json:"n"`
		MeanMs float64 `json:"mean_ms"`
	} `json:"stats"`
	Throttling struct {
		NrPeriods   *uint64  `json:"nr_periods"`
		NrThrottled *uint64  `json:"nr_throttled"`
		ThrottledMs *float64 `json:"throttled_ms"`
		NrBursts    *uint64  `json:"nr_bursts"`
		BurstMs     *float64 `json:"burst_ms"`
	} `json:"throttling"`
	Usage struct {
		CPUMs            *float64 `json:"cpu_ms"`
		QuotaUtilisation *float64 `json:"quota_utilisation"`
		Source           *string  `json:"source"`
	} `json:"usage"`
	Model struct {
		ExpectedMs float64 `json:"expected_ms"`
		Ratio      float64 `json:"ratio"`
	} `json:"model"`
	Contention *contention `json:"contention"`
	Warnings   warnings    `json:"warnings"`
}

type outcome struct {
	code           int
	stdout, stderr string
}

// tb runs the binary to completion.
func tb(t testing.TB, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return runCmd(t, exec.CommandContext(ctx, binary, jsonByDefault(args)...))
}

// jsonByDefault asks run, latency and sample for JSON where args name no
// --format: these tests read their results, and the default for people is
// text (issue 28). An explicit --format, like a test's own, wins.
func jsonByDefault(args []string) []string {
	if len(args) == 0 || !slices.Contains([]string{"run", "latency", "sample"}, args[0]) {
		return args
	}
	for _, a := range args {
		if a == "--format" || strings.HasPrefix(a, "--format=") {
			return args
		}
	}
	return append(slices.Clip(args), "--format", "json")
}

// runCmd runs cmd to completion and collects its exit code and output.
func runCmd(t testing.TB, cmd *exec.Cmd) outcome {
	t.Helper()
	stdout, stderr, code := testenv.Run(t, cmd)
	return outcome{code: code, stdout: stdout, stderr: stderr}
}

// tbJSON runs the binary, requires success and decodes its report.
func tbJSON(t *testing.T, args ...string) result { return tbJSONB(t, args...) }

func tbJSONB(t testing.TB, args ...string) result {
	t.Helper()
	return report(t, tb(t, args...))
}

// runJSON runs a prepared command (another user, another cgroup), requires
// success and decodes its report.
func runJSON(t testing.TB, cmd *exec.Cmd) result {
	t.Helper()
	return report(t, runCmd(t, cmd))
}

func report(t testing.TB, o outcome) result {
	t.Helper()
	require.Equal(t, 0, o.code, "throttlebench failed: %s", o.stderr)
	var r result
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &r), o.stdout)
	return r
}
