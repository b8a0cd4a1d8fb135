package sweep

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress draws a one-line progress bar, redrawn in place; it is meant for
// a terminal only (the caller decides). It is redrawn every second between
// updates, so that the time elapsed and left move while one long
// configuration runs (a latency list's last their --duration each).
type Progress struct {
	w     io.Writer
	total int
	start time.Time
	now   func() time.Time

	mu      sync.Mutex
	done    int
	left    time.Duration // at the last update; < 0: not known yet
	at      time.Time     // of the last update
	current string
	drawn   bool // an update came: there is a bar to redraw

	stop, stopped chan struct{}
	once          sync.Once
}

// NewProgress starts a bar for total configurations, redrawn every second
// until Done.
func NewProgress(w io.Writer, total int) *Progress {
	t := time.NewTicker(time.Second)
	p := newProgress(w, total, time.Now, t.C)
	go func() { <-p.stopped; t.Stop() }()
	return p
}

// newProgress is NewProgress on a clock and a tick of the caller's (tests).
func newProgress(w io.Writer, total int, now func() time.Time, tick <-chan time.Time) *Progress {
	p := &Progress{w: w, total: total, start: now(), now: now, stop: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(p.stopped)
		for {
			select {
			case <-p.stop:
				return
			case <-tick:
				p.mu.Lock()
				if p.drawn {
					p.draw()
				}
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// Update redraws the bar: done configurations, time elapsed, time left
// (below 0: not known yet, "?").
func (p *Progress) Update(done int, left time.Duration, current string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.left, p.current, p.at, p.drawn = done, left, current, p.now(), true
	p.draw()
}

// draw writes the bar; the time left counts down from the last update's.
func (p *Progress) draw() {
	const width = 24
	filled := width * p.done / max(p.total, 1)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	left := "?"
	if p.left >= 0 {
		left = max(p.left-p.now().Sub(p.at), 0).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d  elapsed %s  left ~%s  %s", bar, p.done, p.total,
		p.now().Sub(p.start).Round(time.Second), left, p.current)
}

// Interrupt clears the bar's line, lets say write a line of its own (a
// skipped configuration), and leaves the bar to the next redraw; on a nil
// Progress it only calls say.
func (p *Progress) Interrupt(say func()) {
	if p == nil {
		say()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K")
	say()
}

// Done stops the redraws and clears the line; a nil Progress does nothing.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.once.Do(func() { close(p.stop) })
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K")
}
