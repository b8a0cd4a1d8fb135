package decl

import (
	"fmt"
	"strconv"

	"github.com/throttlebench/throttlebench/internal/report"
)

// Memory modes of memtouch, its memory parameter's Words.
const (
	MemoryFresh = "fresh"
	MemoryReuse = "reuse"
)

// Touch modes of memtouch, its touch parameter's Words:
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

var memtouchSpec = Spec{
	Name: "memtouch",
	Help: "paints a buffer (every byte, or one per page)",
	Params: []Param{
		{Name: "buffer", JSON: "buffer_bytes", Default: DefaultBuffer, Min: MinBuffer, Max: MaxBuffer,
			Help: "memtouch: bytes of the buffer each operation touches, 4096–1073741824 (default 1 MiB)"},
		{Name: "memory", Default: 0, Words: []string{MemoryFresh, MemoryReuse},
			Help: "memtouch: fresh (a new anonymous mapping each operation, unmapped after: every page a first touch) or reuse (a buffer per operation of the batch kept, each iteration painting again those the one before painted)"},
		{Name: "touch", Default: 0, Words: []string{TouchAll, TouchPage},
			Help: "memtouch: all (every byte of the buffer written, a memset) or page (one store per page: the page faults alone)"},
	},
	Text: func(c report.Config) string {
		s := fmt.Sprintf("memtouch %s %d bytes, touch %s", c.Params.String("memory"), c.Params.Int("buffer_bytes"), memtouchTouch(c))
		if kept := memtouchKept(c); kept > 0 {
			s += fmt.Sprintf(", %d kept", kept)
		}
		return s
	},
	Key: func(c report.Config) []string {
		var ps []string
		if b := c.Params.Int("buffer_bytes"); b != 0 {
			ps = append(ps, "buffer="+strconv.Itoa(b))
		}
		if m := c.Params.String("memory"); m != "" {
			// A result written before --touch existed stored one byte per
			// page: without the key it reads as page, so it matches
			// today's --touch page and not the default, all. Its reuse
			// repainted one buffer: kept=1, not today's one per operation.
			ps = append(ps, "memory="+m, "touch="+memtouchTouch(c))
			if kept := memtouchKept(c); kept > 0 {
				ps = append(ps, "kept="+strconv.Itoa(kept))
			}
		}
		return ps
	},
	Gobench: func(c report.Config) string {
		if c.Params.String("memory") == "" {
			return ""
		}
		return fmt.Sprintf("/memory=%s/buffer=%d/touch=%s", c.Params.String("memory"), c.Params.Int("buffer_bytes"), memtouchTouch(c))
	},
	// reuse keeps a buffer per operation of the batch.
	Check: func(ps report.Params, batch int) (string, string) {
		size := ps.Int("buffer_bytes")
		kept := int64(batch) * int64(size)
		if ps.String("memory") != MemoryReuse || kept <= MaxKept {
			return "", ""
		}
		return "batch", fmt.Sprintf("invalid --batch %d with --memory reuse and --buffer %d: reuse keeps a buffer per operation of the batch, %d MiB per worker, above 1GiB; lower --batch or --buffer",
			batch, size, kept>>20)
	},
	BytesPerOp: func(ps report.Params) int { return ps.Int("buffer_bytes") },
}

// memtouchTouch is a memtouch result's touch mode, "all" or "page": as
// written, or "page" for one written before the key existed, when
// memtouch stored one byte per page.
func memtouchTouch(c report.Config) string {
	if t := c.Params.String("touch"); t != "" {
		return t
	}
	return TouchPage
}

// memtouchKept is how many buffers a memtouch reuse result's workers each
// kept and painted in turn: one per operation of the batch, or one in all
// for a result written before touch existed; 0 for fresh.
func memtouchKept(c report.Config) int {
	switch {
	case c.Params.String("memory") != MemoryReuse:
		return 0
	case c.Params.String("touch") == "":
		return 1
	}
	return c.Batch
}
