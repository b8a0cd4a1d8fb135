//go:build linux

package workload

import (
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
)

func TestMemtouchDeclaresBufferMemoryAndTouch(t *testing.T) {
	s, err := decl.Lookup("memtouch")
	require.NoError(t, err)
	require.Len(t, s.Params, 3)
	assert.Equal(t, decl.Param{Name: "buffer", JSON: "buffer_bytes", Default: 1 << 20, Min: 4096, Max: 1 << 30, Help: s.Params[0].Help}, s.Params[0])
	assert.Equal(t, "memory", s.Params[1].Name)
	assert.Equal(t, []string{"fresh", "reuse"}, s.Params[1].Words)
	assert.Equal(t, "touch", s.Params[2].Name)
	assert.Equal(t, []string{"all", "page"}, s.Params[2].Words)
	assert.Equal(t, 0, s.Params[2].Default, "all: the whole buffer painted, as a memset")
	_, err = newW("memtouch", args{"memory": 2})
	assert.ErrorIs(t, err, decl.ErrBadConfig)
	_, err = newW("memtouch", args{"touch": 2})
	assert.ErrorIs(t, err, decl.ErrBadConfig)
	_, err = newW("memtouch", args{"memory": 1, "batch": 1025})
	assert.ErrorIs(t, err, decl.ErrBadConfig, "reuse: 1025 buffers of 1 MiB kept are above 1 GiB")
	_, err = newW("memtouch", args{"memory": 0, "batch": 1025})
	assert.NoError(t, err, "fresh keeps none")
}

// newReuse is a reuse instance of batch kept buffers, filled with fill
// first, so that what an operation writes shows: all writes zeros over
// every byte, page a non-zero byte at the start of each page.
func newReuse(t *testing.T, size, batch, touch int, fill byte) *memtouchWork {
	t.Helper()
	w, err := newW("memtouch", args{"buffer": size, "memory": 1, "touch": touch, "batch": batch})
	require.NoError(t, err)
	mw := w.(*memtouchWork)
	for i := range mw.buf {
		mw.buf[i] = fill
	}
	return mw
}

// All writes every byte of the buffer, the last page's partial tail too.
func TestMemtouchAllWritesEveryByte(t *testing.T) {
	page := os.Getpagesize()
	size := 3*page + 100
	w := newReuse(t, size, 1, 0, 0xa5)
	require.NoError(t, w.Do())
	require.Len(t, w.buf, size)
	for i, v := range w.buf {
		if v != 0 {
			t.Fatalf("byte %d of %d not written: %#x", i, size, v)
		}
	}
}

// Page writes exactly one byte per page, the first, the partial last page
// included: ceil(size/page) stores and nothing else.
func TestMemtouchPageWritesOneBytePerPage(t *testing.T) {
	page := os.Getpagesize()
	size := 3*page + 100
	w := newReuse(t, size, 1, 1, 0)
	require.NoError(t, w.Do())
	var written []int
	for i, v := range w.buf {
		if v != 0 {
			written = append(written, i)
		}
	}
	assert.Equal(t, []int{0, page, 2 * page, 3 * page}, written)
	assert.Equal(t, 4, pagesOf(w))
}

// minorFaults of the calling thread, which the caller locks.
func minorFaults(t *testing.T) int64 {
	var ru unix.Rusage
	require.NoError(t, unix.Getrusage(unix.RUSAGE_THREAD, &ru))
	return ru.Minflt
}

// Reuse paints its kept buffers in turn, one per operation, the first
// again after the last: each iteration of a batch of 3 repaints the three
// buffers the one before painted, and nothing else.
func TestMemtouchReusePaintsTheBatchInTurn(t *testing.T) {
	const batch = 3
	size := 2 * os.Getpagesize()
	w := newReuse(t, size, batch, 0, 0xa5)
	require.Len(t, w.buf, batch*size)
	painted := func() (bufs []int) {
		for k := range batch {
			if slices.ContainsFunc(w.buf[k*size:(k+1)*size], func(v byte) bool { return v != 0 }) {
				continue
			}
			bufs = append(bufs, k)
		}
		return bufs
	}
	for k := range batch {
		require.NoError(t, w.Do())
		assert.Equal(t, seq(k+1), painted(), "after operation %d", k)
	}
	for i := range w.buf {
		w.buf[i] = 0xa5
	}
	require.NoError(t, w.Do())
	assert.Equal(t, []int{0}, painted(), "the next iteration starts again at the first")
}

// seq is 0, 1, …, n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// A fresh operation faults once per page of its buffer (a first touch
// each), whether it writes every byte or one per page; reuse faults so in
// its first iteration only, a buffer per operation. The counts are the thread's minor faults, as
// the closed loop reads them around each batch.
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
	for touch, name := range []string{"all", "page"} {
		fresh, err := newW("memtouch", args{"buffer": size, "memory": 0, "touch": touch})
		require.NoError(t, err)
		assert.Equal(t, int(pages), pagesOf(fresh.(*memtouchWork)))
		for range 3 {
			assert.InDelta(t, pages, faults(fresh), float64(pages)/20, "%s, fresh: one fault per page", name)
		}

		const batch = 2
		reuse, err := newW("memtouch", args{"buffer": size, "memory": 1, "touch": touch, "batch": batch})
		require.NoError(t, err)
		for k := range batch {
			assert.InDelta(t, pages, faults(reuse), float64(pages)/20, "%s, reuse: operation %d of the first iteration touches its buffer first", name, k)
		}
		for range 3 * batch {
			// A few faults are the runtime's own (its heap, this
			// thread's stack), not the buffers': none of the 1024 pages.
			assert.LessOrEqual(t, faults(reuse), pages/20, "%s, reuse: no faults after the first iteration", name)
		}
	}
}

func benchMemtouch(b *testing.B, memory, touch int) {
	const batch = 100
	w, err := newW("memtouch", args{"buffer": decl.DefaultBuffer, "memory": memory, "touch": touch, "batch": batch})
	require.NoError(b, err)
	// A warm-up iteration, as the closed loop runs: reuse's first touches.
	for range batch {
		require.NoError(b, w.Do())
	}
	b.SetBytes(decl.DefaultBuffer) // MB/s: buffer bytes covered, every byte (all) or one store per page
	for b.Loop() {
		if err := w.Do(); err != nil {
			b.Fatal(err)
		}
	}
}

// First touch against reuse in MB/s, 1 MiB per operation, reuse over 100
// kept buffers (the experiment's 100 MB): the whole buffer painted (all,
// the default), and one store per page (page).
func BenchmarkMemtouchFresh(b *testing.B)     { benchMemtouch(b, 0, 0) }
func BenchmarkMemtouchReuse(b *testing.B)     { benchMemtouch(b, 1, 0) }
func BenchmarkMemtouchFreshPage(b *testing.B) { benchMemtouch(b, 0, 1) }
func BenchmarkMemtouchReusePage(b *testing.B) { benchMemtouch(b, 1, 1) }

// pagesOf is how many pages one operation of w touches.
func pagesOf(w *memtouchWork) int { return (w.size + w.page - 1) / w.page }
