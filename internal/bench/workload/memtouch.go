package workload

import (
	"fmt"
	"os"
)

// Memory modes of memtouch, in the order of its memory parameter's Words.
const (
	MemoryFresh = "fresh"
	MemoryReuse = "reuse"
)

// Touch modes of memtouch, in the order of its touch parameter's Words:
// TouchAll paints every byte of the buffer, as the memset of the
// experiment it reproduces does; TouchPage stores once per page, the page
// fault's cost alone.
const (
	TouchAll  = "all"
	TouchPage = "page"
)

// Bounds of memtouch's buffer, in bytes; MaxKept bounds what reuse keeps
// per worker, a buffer per operation of the batch.
const (
	MinBuffer     = 4096
	MaxBuffer     = 1 << 30
	DefaultBuffer = 1 << 20
	MaxKept       = 1 << 30
)

func init() {
	register(Spec{
		Name: "memtouch",
		Help: "paints a buffer (every byte, or one per page)",
		Params: []Param{
			{Name: "buffer", Default: DefaultBuffer, Min: MinBuffer, Max: MaxBuffer,
				Help: "memtouch: bytes of the buffer each operation touches, 4096–1073741824 (default 1 MiB)"},
			{Name: "memory", Default: 0, Min: 0, Max: 1, Words: []string{MemoryFresh, MemoryReuse},
				Help: "memtouch: fresh (a new anonymous mapping each operation, unmapped after: every page a first touch) or reuse (a buffer per operation of the batch kept, each iteration painting again those the one before painted)"},
			{Name: "touch", Default: 0, Min: 0, Max: 1, Words: []string{TouchAll, TouchPage},
				Help: "memtouch: all (every byte of the buffer written, a memset) or page (one store per page: the page faults alone)"},
			// The batch is the closed loop's --batch, read here so that
			// reuse keeps as many buffers as an iteration paints.
			{Name: "batch", Default: 1, Min: 1, Max: 1_000_000, // --batch's bounds
				Help: "memtouch, reuse: the operations of an iteration (--batch), a kept buffer each"},
		},
		new: newMemtouch,
	})
}

func newMemtouch(a Args) (Workload, error) {
	w := &memtouchWork{size: a["buffer"], fresh: a["memory"] == 0, all: a["touch"] == 0, page: os.Getpagesize()}
	if !w.fresh {
		w.kept = a["batch"]
		if int64(w.kept)*int64(w.size) > MaxKept {
			return nil, fmt.Errorf("%w: memtouch reuse keeps %d buffers of %d bytes, above %d bytes", ErrBadConfig, w.kept, w.size, MaxKept)
		}
		// One mapping cut into the buffers, as a heap holds them: one
		// region for the kernel however many there are.
		b, err := mapAnon(w.kept * w.size)
		if err != nil {
			return nil, fmt.Errorf("memtouch: map %d × %d bytes: %w", w.kept, w.size, err)
		}
		w.buf = b
	}
	return w, nil
}

// memtouchWork touches a buffer of size bytes each operation. All, it
// writes every byte (clear: the runtime's memclr, REP STOSQ or vector
// stores, non-temporal from 32 MiB, what a C memset does); page, it writes
// the first byte of each page only, ceil(size/page) stores. Fresh, every
// operation maps a new anonymous region and unmaps it after, so each page's
// first write is a first touch (a page fault that allocates and zeroes a
// page); reuse, kept buffers mapped at the start, one per operation of the
// batch, are written in turn, so that each iteration paints again the
// buffers the iteration before painted, and only an instance's first
// iteration faults. The experiment reproduced paints 100 buffers of 1 MB:
// reusing one buffer instead would keep it in the CPU's cache, where
// painting runs several times faster than in the 100 MB the experiment
// repaints. So fresh against reuse is the first touch's cost over painting
// memory already there (all), or over touching it (page).
type memtouchWork struct {
	size  int
	page  int
	fresh bool
	all   bool
	// reuse: the kept buffers, kept of size bytes one after another, and
	// the one the next operation paints.
	buf  []byte
	kept int
	next int
}

func (w *memtouchWork) Do() error {
	if !w.fresh {
		w.touch(w.buf[w.next*w.size : (w.next+1)*w.size])
		w.next = (w.next + 1) % w.kept
		return nil
	}
	b, err := mapAnon(w.size)
	if err != nil {
		return fmt.Errorf("memtouch: map %d bytes: %w", w.size, err)
	}
	w.touch(b)
	if err := unmap(b); err != nil {
		return fmt.Errorf("memtouch: unmap: %w", err)
	}
	return nil
}

// touch writes b as the mode says. Zeros, for all: the kernel hands out
// zeroed pages, but a store is a store, and the fault comes with the first
// one whatever it writes.
func (w *memtouchWork) touch(b []byte) {
	if w.all {
		clear(b)
		return
	}
	// A store, not b[i]++: a read first would map the shared zero page
	// and the write then fault again, two faults per page instead of one.
	for i := 0; i < len(b); i += w.page {
		b[i] = byte(i>>12) | 1
	}
}

// Pages is how many pages one operation touches.
func (w *memtouchWork) Pages() int { return (w.size + w.page - 1) / w.page }
