package cgroupref

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

func TestParsePID(t *testing.T) {
	for _, s := range []string{"1", "4242"} {
		_, err := ParsePID(s)
		assert.NoError(t, err, s)
	}
	for _, s := range []string{"", "0", "-3", "+3", "03", " 3", "3x", "/kube/pod1", "99999999999999999999"} {
		_, err := ParsePID(s)
		assert.ErrorIs(t, err, ErrNotPID, "%q", s)
	}
}

func fixture(t *testing.T, name string) (cgroup.Host, string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "cgroup", "testdata", name))
	require.NoError(t, err)
	return cgroup.Host{Root: root}, filepath.Join(root, "sys/fs/cgroup")
}

// A cgroup named by its path or by a pid in it: on v1 with cpuacct apart,
// its usage is counted in cpuacct and it is throttled in cpu.
func TestCountedAndCPU(t *testing.T) {
	h, mnt := fixture(t, "lookup-v1")
	for _, spec := range []string{"/kube/pod1", mnt + "/cpu/kube/pod1", "4242"} {
		counted, err := Counted(h, spec)
		require.NoError(t, err, spec)
		assert.Equal(t, "/kube/pod1", counted.Path, spec)
		assert.Equal(t, filepath.Join(mnt, "cpuacct/kube/pod1"), counted.Dir, spec)
		cpu, err := CPU(h, 0, counted.Path)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(mnt, "cpu/kube/pod1"), cpu.Dir)
	}
	_, err := Counted(h, "/nowhere")
	assert.ErrorIs(t, err, cgroup.ErrNoCgroup)

	h, mnt = fixture(t, "lookup-v2")
	counted, err := Counted(h, "77")
	require.NoError(t, err)
	cpu, err := CPU(h, 2, counted.Path)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(mnt, "system.slice/x.service"), cpu.Dir)
}

// No cpu hierarchy of the version asked: a NoHierarchy, whose text is
// the cause's (each caller words it for its own flag).
func TestCPUNoHierarchy(t *testing.T) {
	h, _ := fixture(t, "lookup-v2")
	_, err := CPU(h, 1, "/")
	var nh *NoHierarchy
	require.True(t, errors.As(err, &nh), "%v", err)
	assert.Equal(t, nh.Err.Error(), err.Error())
}
