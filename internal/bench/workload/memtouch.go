package workload

import (
	"fmt"
	"os"

	"github.com/throttlebench/throttlebench/internal/bench/workload/decl"
	"github.com/throttlebench/throttlebench/internal/report"
)

func newMemtouch(ps report.Params, batch int) (Workload, error) {
	w := &memtouchWork{size: ps.Int("buffer_bytes"), fresh: ps.String("memory") == decl.MemoryFresh, all: ps.String("touch") == decl.TouchAll, page: os.Getpagesize()}
	if !w.fresh {
		w.kept = max(batch, 1)
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
