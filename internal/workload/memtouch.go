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

// Bounds of memtouch's buffer, in bytes.
const (
	MinBuffer     = 4096
	MaxBuffer     = 1 << 30
	DefaultBuffer = 1 << 20
)

func init() {
	register(Spec{
		Name: "memtouch",
		Help: "paints a buffer (every byte, or one per page)",
		Params: []Param{
			{Name: "buffer", Default: DefaultBuffer, Min: MinBuffer, Max: MaxBuffer,
				Help: "memtouch: bytes of the buffer each operation touches, 4096–1073741824 (default 1 MiB)"},
			{Name: "memory", Default: 0, Min: 0, Max: 1, Words: []string{MemoryFresh, MemoryReuse},
				Help: "memtouch: fresh (a new anonymous mapping each operation, unmapped after: every page a first touch) or reuse (one mapping kept across operations)"},
			{Name: "touch", Default: 0, Min: 0, Max: 1, Words: []string{TouchAll, TouchPage},
				Help: "memtouch: all (every byte of the buffer written, a memset) or page (one store per page: the page faults alone)"},
		},
		new: newMemtouch,
	})
}

func newMemtouch(a Args) (Workload, error) {
	w := &memtouchWork{size: a["buffer"], fresh: a["memory"] == 0, all: a["touch"] == 0, page: os.Getpagesize()}
	if !w.fresh {
		b, err := mapAnon(w.size)
		if err != nil {
			return nil, fmt.Errorf("memtouch: map %d bytes: %w", w.size, err)
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
// page); reuse, the one region mapped at the start is written again, and
// only an instance's first operation faults. So fresh against reuse is the
// first touch's cost over painting memory already there (all), or over
// almost nothing (page).
type memtouchWork struct {
	size  int
	page  int
	fresh bool
	all   bool
	buf   []byte // reuse: the kept mapping
}

func (w *memtouchWork) Do() error {
	b := w.buf
	if w.fresh {
		var err error
		if b, err = mapAnon(w.size); err != nil {
			return fmt.Errorf("memtouch: map %d bytes: %w", w.size, err)
		}
	}
	w.touch(b)
	if w.fresh {
		if err := unmap(b); err != nil {
			return fmt.Errorf("memtouch: unmap: %w", err)
		}
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
