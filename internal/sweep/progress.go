package sweep

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Progress draws a one-line progress bar, redrawn in place; it is meant for
// a terminal only (the caller decides).
type Progress struct {
	w     io.Writer
	total int
	start time.Time
}

// NewProgress starts a bar for total configurations.
func NewProgress(w io.Writer, total int) *Progress {
	return &Progress{w: w, total: total, start: time.Now()}
}

// Update redraws the bar: done configurations, time elapsed, time left.
func (p *Progress) Update(done int, left time.Duration, current string) {
	const width = 24
	filled := width * done / max(p.total, 1)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d  elapsed %s  left ~%s  %s", bar, done, p.total,
		p.since().Round(time.Second), left.Round(time.Second), current)
}

// Done clears the line.
func (p *Progress) Done() { fmt.Fprint(p.w, "\r\033[K") }

func (p *Progress) since() time.Duration { return time.Since(p.start) }
