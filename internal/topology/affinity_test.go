package topology

import (
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cpulist"
)

// The calling thread's affinity is read, narrowed and read back; the thread
// is then dropped with its changed mask (it exits locked).
func TestAffinityRoundTrip(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU affinity is Linux's")
	}
	all, err := Affinity()
	require.NoError(t, err)
	require.NotEmpty(t, all)
	assert.True(t, slices.IsSorted(all))
	assert.LessOrEqual(t, len(all), runtime.NumCPU())

	done := make(chan []int)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := SetAffinity(all[len(all)-1:]); err != nil {
			t.Error(err)
		}
		got, err := Affinity()
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	assert.Equal(t, all[len(all)-1:], <-done)
	again, err := Affinity()
	require.NoError(t, err)
	assert.Equal(t, all, again, "another thread keeps its own")

	assert.Error(t, SetAffinity([]int{cpulist.MaxCPU + 1}))
}
