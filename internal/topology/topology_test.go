package topology

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadSeed16(t *testing.T) {
	top, err := Read("testdata/seed16")
	require.NoError(t, err)
	assert.Len(t, top.Online, 16)
	assert.Empty(t, top.Offline)
	require.Len(t, top.Cores, 8)
	for i, c := range top.Cores {
		assert.Equal(t, []int{i, i + 8}, c.Threads, "core %d: siblings n and n+8", i)
	}
	assert.True(t, top.SMT())
	assert.Equal(t, 2, top.ThreadsPerCore())
	assert.Equal(t, []int{0}, top.Packages)
	assert.Equal(t, []int{0}, top.Nodes)
	// One thread of each core: the lower half, as taking CPUs 8-15
	// offline would leave.
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, top.OnePerCore(top.Online))
	// From an allowed set that holds only upper siblings of some cores.
	assert.Equal(t, []int{1, 10, 11}, top.OnePerCore([]int{9, 1, 10, 11}))
	assert.Equal(t, []int{3, 12}, top.OnePerCore([]int{3, 11, 12}))
	assert.Equal(t, 3, top.CoresOf([]int{0, 8, 1, 2}))
}

func TestReadOffline(t *testing.T) {
	top, err := Read("testdata/offline")
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 7}, top.Online)
	assert.Equal(t, []int{5, 6}, top.Offline)
	var threads [][]int
	for _, c := range top.Cores {
		threads = append(threads, c.Threads)
	}
	// Cores 1 and 2 lost a sibling each: one thread left on them.
	assert.Equal(t, [][]int{{0, 4}, {1}, {2}, {3, 7}}, threads)
	assert.True(t, top.SMT())
	assert.Equal(t, []int{0, 1, 2, 3}, top.OnePerCore(top.Online))
	// An offline CPU in the allowed set is dropped: nothing runs there.
	assert.Equal(t, []int{4}, top.OnePerCore([]int{4, 5, 6}))
}

func TestReadTwoSockets(t *testing.T) {
	top, err := Read("testdata/twosocket")
	require.NoError(t, err)
	// core_id repeats in each package: cores are told apart by their
	// siblings, not by core_id.
	require.Len(t, top.Cores, 4)
	assert.Equal(t, []int{0, 1}, top.Packages)
	assert.Equal(t, []int{0, 1}, top.Nodes)
	assert.Equal(t, 1, top.Cores[2].Package)
	assert.Equal(t, []int{0, 2, 4, 6}, top.OnePerCore(top.Online))
	assert.Equal(t, 1, top.CPUs[5].Node)
}

func TestReadWithoutSMT(t *testing.T) {
	for _, dir := range []string{"testdata/nosmt", "testdata/bare"} {
		top, err := Read(dir)
		require.NoError(t, err, dir)
		assert.False(t, top.SMT(), dir)
		assert.Len(t, top.Cores, len(top.Online), dir)
		assert.Equal(t, top.Online, top.OnePerCore(top.Online), dir)
	}
	bare, err := Read("testdata/bare")
	require.NoError(t, err)
	assert.Empty(t, bare.Nodes)
	assert.Empty(t, bare.Packages)
	assert.Equal(t, -1, bare.CPUs[0].Package)
}

func TestReadErrors(t *testing.T) {
	_, err := Read(t.TempDir())
	assert.ErrorIs(t, err, os.ErrNotExist, "no online file")

	root := t.TempDir()
	dir := filepath.Join(root, SysDir)
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
	write("online", "0-1\n")
	write("cpu0/topology/thread_siblings_list", "1\n") // not itself among its siblings
	_, err = Read(root)
	assert.ErrorIs(t, err, ErrParse)

	write("cpu0/topology/thread_siblings_list", "0\n")
	write("cpu0/topology/physical_package_id", "zero\n")
	_, err = Read(root)
	assert.ErrorIs(t, err, ErrParse)
	assert.False(t, errors.Is(err, os.ErrNotExist))
}

// This machine's own layout reads, and agrees with what Go sees.
func TestReadThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("sysfs is Linux's")
	}
	top, err := Read("/")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(top.Online), runtime.NumCPU(), "affinity may hold fewer than online")
	n := 0
	for _, c := range top.Cores {
		n += len(c.Threads)
	}
	assert.Equal(t, len(top.Online), n, "every online CPU in exactly one core")
}
