//go:build linux

// Package dockertest checks the container path end to end: the image
// throttlebench:dev run by a real Docker engine with --cpu-period/--cpu-quota
// and --cpus. test/docker/run.sh (make test-docker) starts the engine, builds
// the image, and runs these tests with TB_DOCKER_IMAGE set.
package dockertest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type result struct {
	Cgroup struct {
		Mode          string  `json:"mode"`
		Version       int     `json:"version"`
		PeriodUs      *int64  `json:"period_us"`
		QuotaUs       int64   `json:"quota_us"`
		EffectiveCPUs float64 `json:"effective_cpus"`
	} `json:"cgroup"`
	Stats struct {
		MeanMs float64 `json:"mean_ms"`
	} `json:"stats"`
	Throttling struct {
		NrThrottled *uint64 `json:"nr_throttled"`
	} `json:"throttling"`
	Model struct {
		Ratio float64 `json:"ratio"`
	} `json:"model"`
}

func image(t *testing.T) string {
	img := os.Getenv("TB_DOCKER_IMAGE")
	if img == "" {
		t.Skip("needs a Docker engine and the image: run test/docker/run.sh (make test-docker)")
	}
	return img
}

// dockerRun runs the image with docker flags and throttlebench arguments.
func dockerRun(t *testing.T, dockerFlags []string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command("docker", append(append(append([]string{"run", "--rm", "--network", "none"}, dockerFlags...), image(t)), args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "docker %v: %s", cmd.Args[1:], errb.String())
	return out.String(), errb.String()
}

func runJSON(t *testing.T, dockerFlags ...string) result {
	t.Helper()
	out, _ := dockerRun(t, dockerFlags, "run", "--batch", "100", "--iterations", "3")
	var r result
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	return r
}

func TestQuotaInsideContainer(t *testing.T) {
	limited := runJSON(t, "--cpu-period=100000", "--cpu-quota=20000")
	free := runJSON(t)

	assert.Equal(t, "current", limited.Cgroup.Mode, "a container cannot create slices: auto mode measures the container's own cgroup")
	assert.Equal(t, int64(20000), limited.Cgroup.QuotaUs)
	require.NotNil(t, limited.Cgroup.PeriodUs)
	assert.Equal(t, int64(100000), *limited.Cgroup.PeriodUs)
	assert.InDelta(t, 0.2, limited.Cgroup.EffectiveCPUs, 1e-9)
	require.NotNil(t, limited.Throttling.NrThrottled)
	assert.Greater(t, *limited.Throttling.NrThrottled, uint64(0))

	assert.Equal(t, int64(-1), free.Cgroup.QuotaUs, "no CPU flags: no quota")
	ratio := limited.Stats.MeanMs / free.Stats.MeanMs
	t.Logf("container mean %.1f ms at 0.2 CPUs vs %.1f ms unlimited: %.2f×; model ratio %.2f", limited.Stats.MeanMs, free.Stats.MeanMs, ratio, limited.Model.Ratio)
	assert.GreaterOrEqual(t, ratio, 3.0)
}

func TestDockerCPUsFlag(t *testing.T) {
	r := runJSON(t, "--cpus=1.5")
	assert.Equal(t, int64(150000), r.Cgroup.QuotaUs)
	assert.InDelta(t, 1.5, r.Cgroup.EffectiveCPUs, 1e-9)
}

// `docker run throttlebench:dev` with no arguments measures, for a person.
func TestImageDefaultCommand(t *testing.T) {
	out, _ := dockerRun(t, []string{"--cpus=0.5"})
	assert.Contains(t, out, "Time (mean ± σ)")
	assert.Contains(t, out, "effective 0.5 CPUs")
}

// Bad input inside a container: exit 2, one line.
func TestInvalidInputInContainer(t *testing.T) {
	cmd := exec.Command("docker", "run", "--rm", "--network", "none", image(t), "run", "--cost", "99")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Contains(t, errb.String(), "--cost 99")
}
