package cgroupref

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// pid is sample's options with --pid p, as options.Sample resolves them.
func pid(p int) usage.Options {
	return usage.Options{PID: p, PIDGiven: strconv.Itoa(p), Interval: 100 * time.Millisecond, Period: 100 * time.Millisecond, Target: 0.01, Format: "json"}
}

// A cgroup or process that is not there is bad input; one that is, is
// found as cgroup finds it.
func TestSampled(t *testing.T) {
	root, err := filepath.Abs("../cgroup/testdata/lookup-v1")
	require.NoError(t, err)
	h := cgroup.Host{Root: root}
	cg, err := Sampled(pid(4242), h)
	require.NoError(t, err)
	assert.Equal(t, "/kube/pod1", cg.Path)
	cg, err = Sampled(usage.Options{Cgroup: "job"}, h)
	require.NoError(t, err)
	assert.Equal(t, "/job", cg.Path)

	var e *badinput.Error
	_, err = Sampled(pid(12345), h)
	require.ErrorAs(t, err, &e)
	assert.Contains(t, err.Error(), `invalid --pid "12345": `)
	_, err = Sampled(usage.Options{Cgroup: "only-cpu"}, h)
	require.ErrorAs(t, err, &e)
	assert.Contains(t, err.Error(), `invalid --cgroup "only-cpu": `)
	assert.Contains(t, err.Error(), "has no cpuacct cgroup")

	// No usage counter on the host (v1 cpu alone) is no fault of the input.
	root = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "proc/self"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "proc/self/mountinfo"),
		[]byte("32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"), 0o644))
	_, err = Sampled(usage.Options{Cgroup: "job"}, cgroup.Host{Root: root})
	require.ErrorIs(t, err, cgroup.ErrNoUsage)
	assert.False(t, errors.As(err, &e), "not bad input: %v", err)
}
