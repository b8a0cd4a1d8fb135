package usage

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
)

// cgroupDir is a cgroup of version v at path whose directory holds files.
func cgroupDir(t *testing.T, v int, path string, files ...string) cgroup.Cgroup {
	dir := t.TempDir()
	for _, f := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	return cgroup.Cgroup{Hierarchy: cgroup.Hierarchy{Version: v}, Path: path, Dir: dir}
}

func TestIsHostRoot(t *testing.T) {
	for _, tc := range []struct {
		name string
		cg   cgroup.Cgroup
		want bool
	}{
		{"v1 top", cgroupDir(t, 1, "/", "cpuacct.usage", "release_agent"), true},
		// A cgroup namespace's /: the kernel gives release_agent to the
		// host's top alone.
		{"v1 namespace top", cgroupDir(t, 1, "/", "cpuacct.usage"), false},
		{"v2 top", cgroupDir(t, 2, "/", "cpu.stat"), true},
		{"v2 namespace top", cgroupDir(t, 2, "/", "cpu.stat", "cgroup.type"), false},
		{"v1 child", cgroupDir(t, 1, "/job", "cpuacct.usage", "release_agent"), false},
		{"v2 child", cgroupDir(t, 2, "/job", "cpu.stat"), false},
	} {
		assert.Equal(t, tc.want, IsHostRoot(tc.cg), tc.name)
	}
}

// A sample of the host's top cgroup says what it counted, however it was
// named, and how to sample one service instead.
func TestWholeMachineWarning(t *testing.T) {
	top := cgroupDir(t, 2, "/", "cpu.stat")
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Cgroup: "/"}, "cgroup / is the whole machine: every process's CPU is counted"},
		{Options{PID: 1234, pid: "1234"}, "process 1234 is in cgroup /, the whole machine: every process's CPU is counted"},
		{Options{}, "this process is in cgroup /, the whole machine: every process's CPU is counted"},
	} {
		w := tc.o.WholeMachine(top)
		require.Len(t, w, 1)
		assert.Contains(t, w[0], tc.want)
		assert.Contains(t, w[0], "to sample one service, give it a cgroup of its own")
	}
	assert.Nil(t, Options{Cgroup: "/job"}.WholeMachine(cgroupDir(t, 2, "/job", "cpu.stat", "cgroup.type")))

	// The result carries it, and its text shows it.
	f := Build(Recording{Trace: spike}, Meta{Target: 0.01, Warnings: Options{Cgroup: "/"}.WholeMachine(top)})
	require.Len(t, f.Warnings, 1)
	var text bytes.Buffer
	require.NoError(t, Write(&text, f, "text"))
	assert.Contains(t, text.String(), "\nwarning: cgroup / is the whole machine: ")
}
