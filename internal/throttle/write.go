package throttle

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/atomicfile"
)

// TraceFormats are the formats WriteEvents knows, for --trace-out.
var TraceFormats = []string{"json", "csv"}

// traceEvent is one event as --trace-out writes it.
type traceEvent struct {
	CPU        int     `json:"cpu"`
	TID        int32   `json:"tid"`
	StartMs    float64 `json:"start_ms"`
	EndMs      float64 `json:"end_ms"`
	DurationMs float64 `json:"duration_ms"`
}

// traceSpan is one request or iteration as --trace-out's JSON writes it,
// with its time by cause where its thread's states were traced.
type traceSpan struct {
	Index      int      `json:"index"`
	TID        int32    `json:"tid,omitempty"`
	StartMs    float64  `json:"start_ms"`
	EndMs      float64  `json:"end_ms"`
	DurationMs float64  `json:"duration_ms"`
	OnCPUMs    *float64 `json:"on_cpu_ms,omitempty"`
	HeldMs     *float64 `json:"held_ms,omitempty"`
	WaitingMs  *float64 `json:"waiting_ms,omitempty"`
	OffCPUMs   *float64 `json:"off_cpu_ms,omitempty"`
}

// traceFile is --trace-out's JSON: the events, and the requests or the
// iterations (by Trace.What) where the window had them.
type traceFile struct {
	Events     []traceEvent `json:"events"`
	Requests   []traceSpan  `json:"requests,omitempty"`
	Iterations []traceSpan  `json:"iterations,omitempty"`
}

// WriteTrace writes a trace's events raw, as the tracer saw them (not
// clipped: an event that began before the window has a negative
// start_ms), times in ms from tr.T0, the start of the measured window.
// format "json" writes one object: "events", an array of objects with the
// keys cpu, tid, start_ms, end_ms and duration_ms ("[]" when there are
// none), and "requests" or "iterations" (Trace.What), one object per
// span in its order (index), with its thread (tid), start_ms, end_ms,
// duration_ms and, where its thread's states were traced, its time by
// cause: on_cpu_ms, held_ms, waiting_ms, off_cpu_ms, which sum to
// duration_ms. "csv" writes the events alone, their columns under a
// header line. Writing whole or not at all is the caller's (an atomic
// file).
func WriteTrace(w io.Writer, tr Trace, format string) error {
	events, t0 := tr.Events, tr.T0
	rows := make([]traceEvent, len(events))
	for i, e := range events {
		rows[i] = traceEvent{CPU: e.CPU, TID: e.TID, StartMs: msOf(e.Start - t0), EndMs: msOf(e.End - t0), DurationMs: msOf(e.End - e.Start)}
	}
	switch format {
	case "json":
		f := traceFile{Events: rows}
		spans := make([]traceSpan, len(tr.Spans))
		for i, sp := range tr.Spans {
			spans[i] = traceSpan{Index: i, TID: sp.TID, StartMs: msOf(sp.Start - t0), EndMs: msOf(sp.End - t0), DurationMs: msOf(sp.End - sp.Start)}
			if i < len(tr.Known) && tr.Known[i] {
				p := tr.Parts[i]
				ms := func(c Cause) *float64 { v := msOf(p[c]); return &v }
				spans[i].OnCPUMs, spans[i].HeldMs, spans[i].WaitingMs, spans[i].OffCPUMs = ms(OnCPU), ms(Held), ms(Waiting), ms(OffCPU)
			}
		}
		if tr.What == "iteration" {
			f.Iterations = spans
		} else {
			f.Requests = spans
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(f); err != nil {
			return fmt.Errorf("write throttle events: %w", err)
		}
		return nil
	case "csv":
		bw := bufio.NewWriter(w)
		cw := csv.NewWriter(bw)
		_ = cw.Write([]string{"cpu", "tid", "start_ms", "end_ms", "duration_ms"})
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
		for _, r := range rows {
			_ = cw.Write([]string{strconv.Itoa(r.CPU), strconv.Itoa(int(r.TID)), f(r.StartMs), f(r.EndMs), f(r.DurationMs)})
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return fmt.Errorf("write throttle events: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("write throttle events: %w", err)
		}
		return nil
	}
	return fmt.Errorf("write throttle events: unknown format %q (json or csv)", format)
}

// EventsFile is --trace-out: a trace written to path whole or not at all
// (WriteTrace), as CSV where the name ends in .csv and JSON otherwise.
func EventsFile(path string, tr Trace) error {
	format := "json"
	if strings.HasSuffix(strings.ToLower(path), ".csv") {
		format = "csv"
	}
	return atomicfile.Write(path, func(w io.Writer) error { return WriteTrace(w, tr, format) })
}
