//go:build linux

package workload

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestMemtouchDeclaresBufferAndMemory(t *testing.T) {
	s, err := Lookup("memtouch")
	require.NoError(t, err)
	require.Len(t, s.Params, 2)
	assert.Equal(t, Param{Name: "buffer", Default: 1 << 20, Min: 4096, Max: 1 << 30, Help: s.Params[0].Help}, s.Params[0])
	assert.Equal(t, "memory", s.Params[1].Name)
	assert.Equal(t, []string{"fresh", "reuse"}, s.Params[1].Words)
	_, err = New("memtouch", Args{"memory": 2})
	assert.ErrorIs(t, err, ErrBadConfig)
}

// minorFaults of the calling thread, which the caller locks.
func minorFaults(t *testing.T) int64 {
	var ru unix.Rusage
	require.NoError(t, unix.Getrusage(unix.RUSAGE_THREAD, &ru))
	return ru.Minflt
}

// A fresh operation faults once per page of its buffer (a first touch
// each); reuse faults so on its first operation only.
func TestMemtouchFaultsPerOperation(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const size = 4 << 20
	pages := int64(size / os.Getpagesize())
	faults := func(w Workload) int64 {
		f0 := minorFaults(t)
		require.NoError(t, w.Do())
		return minorFaults(t) - f0
	}

	fresh, err := New("memtouch", Args{"buffer": size, "memory": 0})
	require.NoError(t, err)
	assert.Equal(t, int(pages), fresh.(*memtouchWork).Pages())
	for range 3 {
		assert.InDelta(t, pages, faults(fresh), float64(pages)/20, "fresh: one fault per page")
	}

	reuse, err := New("memtouch", Args{"buffer": size, "memory": 1})
	require.NoError(t, err)
	assert.InDelta(t, pages, faults(reuse), float64(pages)/20, "reuse: the first operation touches every page first")
	for range 3 {
		assert.LessOrEqual(t, faults(reuse), pages/100, "reuse: no faults after the first")
	}
}

func benchMemtouch(b *testing.B, memory int) {
	w, err := New("memtouch", Args{"buffer": DefaultBuffer, "memory": memory})
	require.NoError(b, err)
	b.SetBytes(DefaultBuffer) // MB/s: buffer bytes covered, one store per page
	for b.Loop() {
		if err := w.Do(); err != nil {
			b.Fatal(err)
		}
	}
}

// First touch against reuse in MB/s, 1 MiB per operation.
func BenchmarkMemtouchFresh(b *testing.B) { benchMemtouch(b, 0) }
func BenchmarkMemtouchReuse(b *testing.B) { benchMemtouch(b, 1) }
