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

// WriteEvents writes events raw, as the tracer saw them (not clipped: an
// event that began before the window has a negative start_ms), times in ms
// from t0, the start of the measured window. format "json" writes one array
// of objects with the keys cpu, tid, start_ms, end_ms and duration_ms
// ("[]" when there are none); "csv" the same columns under a header line.
// Writing whole or not at all is the caller's (an atomic file).
func WriteEvents(w io.Writer, events []Event, t0 int64, format string) error {
	rows := make([]traceEvent, len(events))
	for i, e := range events {
		rows[i] = traceEvent{CPU: e.CPU, TID: e.TID, StartMs: msOf(e.Start - t0), EndMs: msOf(e.End - t0), DurationMs: msOf(e.End - e.Start)}
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
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

// EventsFile is --trace-out: a trace's events written to path whole or not
// at all, as CSV where the name ends in .csv and JSON otherwise.
func EventsFile(path string, tr Trace) error {
	format := "json"
	if strings.HasSuffix(strings.ToLower(path), ".csv") {
		format = "csv"
	}
	return atomicfile.Write(path, func(w io.Writer) error { return WriteEvents(w, tr.Events, tr.T0, format) })
}
