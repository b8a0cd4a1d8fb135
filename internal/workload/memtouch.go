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

// Bounds of memtouch's buffer, in bytes.
const (
	MinBuffer     = 4096
	MaxBuffer     = 1 << 30
	DefaultBuffer = 1 << 20
)

func init() {
	register(Spec{
		Name: "memtouch",
		Help: "writes one byte to every page of a buffer",
		Params: []Param{
			{Name: "buffer", Default: DefaultBuffer, Min: MinBuffer, Max: MaxBuffer,
				Help: "memtouch: bytes each operation touches page by page, 4096–1073741824 (default 1 MiB)"},
			{Name: "memory", Default: 0, Min: 0, Max: 1, Words: []string{MemoryFresh, MemoryReuse},
				Help: "memtouch: fresh (a new anonymous mapping each operation, unmapped after: every page a first touch) or reuse (one mapping kept across operations)"},
		},
		new: newMemtouch,
	})
}

func newMemtouch(a Args) (Workload, error) {
	w := &memtouchWork{size: a["buffer"], fresh: a["memory"] == 0, page: os.Getpagesize()}
	if !w.fresh {
		b, err := mapAnon(w.size)
		if err != nil {
			return nil, fmt.Errorf("memtouch: map %d bytes: %w", w.size, err)
		}
		w.buf = b
	}
	return w, nil
}

// memtouchWork touches size bytes page by page: one write to the first byte
// of each page, ceil(size/page) pages per operation. Fresh, every
// operation maps a new anonymous region and unmaps it after, so every
// write is a first touch (a page fault that allocates and zeroes a page);
// reuse, the one region mapped at the start is written again, and only an
// instance's first operation faults.
type memtouchWork struct {
	size  int
	page  int
	fresh bool
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
	// A store, not b[i]++: a read first would map the shared zero page
	// and the write then fault again, two faults per page instead of one.
	for i := 0; i < len(b); i += w.page {
		b[i] = byte(i>>12) | 1
	}
	if w.fresh {
		if err := unmap(b); err != nil {
			return fmt.Errorf("memtouch: unmap: %w", err)
		}
	}
	return nil
}

// Pages is how many pages one operation touches.
func (w *memtouchWork) Pages() int { return (w.size + w.page - 1) / w.page }
