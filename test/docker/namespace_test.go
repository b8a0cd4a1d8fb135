//go:build linux

package dockertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/cgroupref"
)

// unified is whether this host runs cgroup v2 alone: the Docker guest of
// test/systemd (issue 50) does, the v1 host of make test-docker does not.
func unified() bool {
	_, err := os.Stat("/sys/fs/cgroup/cgroup.controllers")
	return err == nil
}

func hostVersion() int {
	if unified() {
		return 2
	}
	return 1
}

// The container's own limits, read from inside in current mode, whether
// it has a cgroup namespace of its own (v2's default: it sees its cgroup
// as /) or the host's (v1's default: it sees its path on the host).
func TestCgroupNamespaces(t *testing.T) {
	for _, ns := range []string{"private", "host"} {
		t.Run(ns, func(t *testing.T) {
			r := runJSON(t, "--cgroupns", ns, "--cpu-period=50000", "--cpu-quota=25000")
			assert.Equal(t, "current", r.Cgroup.Mode)
			assert.Equal(t, hostVersion(), r.Cgroup.Version)
			assert.Equal(t, int64(25000), r.Cgroup.QuotaUs)
			require.NotNil(t, r.Cgroup.PeriodUs)
			assert.Equal(t, int64(50000), *r.Cgroup.PeriodUs)
			assert.InDelta(t, 0.5, r.Cgroup.EffectiveCPUs, 1e-9)
			require.NotNil(t, r.Throttling.NrThrottled)
			assert.Positive(t, *r.Throttling.NrThrottled, "0.5 CPU of work in 50 ms periods is throttled")
			if ns == "private" {
				assert.Equal(t, "/", r.Cgroup.Path, "a cgroup namespace of its own: the container's cgroup is its root")
			} else {
				// v2 with the systemd driver: /system.slice/docker-ID.scope;
				// v1 with cgroupfs: /docker/ID.
				assert.Contains(t, r.Cgroup.Path, "docker", "the host's namespace: the container's path on the host")
			}
		})
	}
}

// A container with a burst its engine cannot set (Docker has no flag for
// it): written on the host into the container's cgroup (cpu.max.burst, v1's
// cpu.cfs_burst_us), read from inside by run --cgroup current. Meanwhile
// sample, the container's first process, samples the container itself:
// the run's work is in its series, and Ctrl-C (SIGINT) ends it cleanly.
// Both read the container's cpu.pressure on v2 (issue 50).
func TestBurstAndSampleInsideContainer(t *testing.T) {
	img := image(t)
	// Named, and its removal set before it runs: a run that fails to start
	// it has created it all the same.
	id := fmt.Sprintf("tb-docker-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", id).Run() })
	_, err := exec.Command("docker", "run", "-d", "--name", id, "--network", "none", "--cpus=0.5", img,
		"sample", "--interval", "100ms", "--format", "json").Output()
	require.NoError(t, err, "docker run -d: %s", stderrOf(err))

	require.NoError(t, os.WriteFile(containerBurstFile(t, id), []byte("20000"), 0))

	cmd := exec.Command("docker", "exec", id, "/throttlebench", "run", "--cgroup", "current",
		"--batch", "100", "--iterations", "3", "--format", "json")
	runOut, err := cmd.Output()
	require.NoError(t, err, "docker exec run: %s", stderrOf(err))
	var r struct {
		Cgroup struct {
			Mode          string  `json:"mode"`
			QuotaUs       int64   `json:"quota_us"`
			BurstUs       int64   `json:"burst_us"`
			EffectiveCPUs float64 `json:"effective_cpus"`
		} `json:"cgroup"`
		Contention *struct {
			PressureSomeMs *float64 `json:"pressure_some_ms"`
		} `json:"contention"`
	}
	require.NoError(t, json.Unmarshal(runOut, &r), string(runOut))
	// The container's own cpu.pressure on v2 (none per cgroup on v1): its
	// worker, wanting a whole CPU, is held half of each period by 0.5.
	require.NotNil(t, r.Contention, "the run's waits were read")
	if unified() {
		require.NotNil(t, r.Contention.PressureSomeMs, "v2: the container's cpu.pressure")
		assert.Positive(t, *r.Contention.PressureSomeMs, "a worker held by the quota is under pressure")
	} else {
		assert.Nil(t, r.Contention.PressureSomeMs, "v1 keeps no pressure per cgroup")
	}
	assert.Equal(t, "current", r.Cgroup.Mode)
	assert.Equal(t, int64(50000), r.Cgroup.QuotaUs)
	assert.Equal(t, int64(20000), r.Cgroup.BurstUs, "the burst written on the host, read inside")
	assert.InDelta(t, 0.5, r.Cgroup.EffectiveCPUs, 1e-9, "a burst lends, it does not raise the limit")

	require.NoError(t, exec.Command("docker", "kill", "-s", "INT", id).Run())
	code, err := exec.Command("docker", "wait", id).Output()
	require.NoError(t, err)
	assert.Equal(t, "0", strings.TrimSpace(string(code)), "Ctrl-C is sample's normal end without --duration")
	logs, err := exec.Command("docker", "logs", id).Output()
	require.NoError(t, err)
	var f struct {
		Cgroup struct {
			Version int    `json:"version"`
			Path    string `json:"path"`
		} `json:"cgroup"`
		Interrupted bool      `json:"interrupted"`
		UsageCPUs   []float64 `json:"usage_cpus"`
		PressureMs  []float64 `json:"pressure_some_ms"`
	}
	require.NoError(t, json.Unmarshal(logs, &f), string(logs))
	assert.Equal(t, hostVersion(), f.Cgroup.Version)
	if unified() {
		assert.Equal(t, "/", f.Cgroup.Path, "v2's private namespace: the container is its own root")
	}
	peak := 0.0
	for _, u := range f.UsageCPUs {
		peak = max(peak, u)
	}
	// The run keeps the container at its 0.5 CPU for three iterations, more
	// than one 100 ms interval whole: a tenth of a CPU is far below it.
	assert.Greater(t, peak, 0.1, "the run's work in the container's series (%d intervals)", len(f.UsageCPUs))
	if unified() {
		require.Len(t, f.PressureMs, len(f.UsageCPUs), "v2: the container's pressure, an interval each")
		sum := 0.0
		for _, p := range f.PressureMs {
			sum += p
		}
		assert.Positive(t, sum, "the run held by the container's quota is in its pressure series")
	} else {
		assert.Empty(t, f.PressureMs, "v1 keeps no pressure per cgroup")
	}
}

// containerBurstFile is the burst file on this host of container id's
// cgroup in the cpu hierarchy (v2 cpu.max.burst, v1 cpu.cfs_burst_us),
// found through its first process as sample --pid finds a cgroup.
func containerBurstFile(t *testing.T, id string) string {
	t.Helper()
	out, err := exec.Command("docker", "inspect", "-f", "{{.State.Pid}}", id).Output()
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	require.NoError(t, err)
	h := cgroup.Host{Root: "/"}
	counted, err := h.UsageCgroupOfPID(pid)
	require.NoError(t, err)
	cpu, err := cgroupref.CPU(h, 0, counted.Path)
	require.NoError(t, err)
	supported, known, file := cpu.BurstSupport()
	require.True(t, known && supported, "this kernel has a CFS burst (5.14+): %s", file)
	require.Equal(t, cpu.Dir, filepath.Dir(file), "the container's own cgroup has the bandwidth files")
	return file
}

// stderrOf is what a failed command said.
func stderrOf(err error) string {
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	if err != nil {
		return err.Error()
	}
	return ""
}
