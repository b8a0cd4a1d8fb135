package host

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMemory(t *testing.T) {
	m, err := ParseProcStatus([]byte("Name:\tthrottlebench\nVmPeak:\t 1241776 kB\nVmHWM:\t   81212 kB\nVmRSS:\t   80120 kB\nThreads:\t5\n")).Memory()
	require.NoError(t, err)
	assert.Equal(t, Memory{RSS: 80120 << 10, Peak: 81212 << 10}, m)

	for _, bad := range []string{
		"Name:\tzombie\nState:\tZ (zombie)\n",
		"VmHWM:\t 12 kB\n",
		"VmHWM:\t 12 MB\nVmRSS:\t 1 kB\n",
		"VmHWM:\t -1 kB\nVmRSS:\t 1 kB\n",
		"VmHWM:\t x kB\nVmRSS:\t 1 kB\n",
		"VmHWM:\t 1 2 kB\nVmRSS:\t 1 kB\n",
	} {
		_, err := ParseProcStatus([]byte(bad)).Memory()
		assert.ErrorIs(t, err, ErrParse, bad)
	}
}

// SigPnd is the thread's pending signals, ShdPnd the group's: either holds
// a signal pending; a mask that is no hex number holds none.
func TestSignalPending(t *testing.T) {
	kill := syscall.SIGKILL // bit 8: 0x100
	assert.False(t, ParseProcStatus([]byte("SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n")).SignalPending(kill))
	assert.True(t, ParseProcStatus([]byte("SigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n")).SignalPending(kill))
	assert.True(t, ParseProcStatus([]byte("SigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\n")).SignalPending(kill))
	assert.False(t, ParseProcStatus([]byte("SigPnd:\t0000000000004000\n")).SignalPending(kill), "SIGTERM is no SIGKILL")
	assert.False(t, ParseProcStatus([]byte("SigPnd:\tzz\n")).SignalPending(kill))
}

// The status is read below the injected root, not the machine's /proc.
func TestReadProcStatusBelowRoot(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "proc", "999999998")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "status"), []byte("Name:\tfixture\nVmHWM:\t 8 kB\nVmRSS:\t 4 kB\n"), 0o644))
	m, err := ProcMemory(root, 999999998)
	require.NoError(t, err)
	assert.Equal(t, Memory{RSS: 4 << 10, Peak: 8 << 10}, m)
	s, err := ReadProcStatus(root, 999999998)
	require.NoError(t, err)
	assert.Equal(t, "fixture", s["Name"])
	_, err = ProcMemory(root, os.Getpid())
	assert.ErrorIs(t, err, os.ErrNotExist, "this process is not in the fixture")
}

func TestProcMemoryOfThisProcess(t *testing.T) {
	m, err := ProcMemory("/", os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	assert.Positive(t, m.RSS)
	assert.GreaterOrEqual(t, m.Peak, m.RSS)
}
