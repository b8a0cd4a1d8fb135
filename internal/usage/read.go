package usage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// ErrTrace is wrapped by every error about a trace file that cannot be
// used: unreadable, not sample's JSON, or without usable intervals.
var ErrTrace = errors.New("not a usable throttlebench sample trace")

// maxTraceBytes bounds what ReadFile reads: a day of 10 ms intervals
// written by sample is about 200 MB.
const maxTraceBytes = 512 << 20

// ReadFile reads the JSON that sample writes, for the burst simulator.
func ReadFile(path string) (File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return File{}, fmt.Errorf("%w: %w", ErrTrace, err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxTraceBytes+1))
	if err != nil {
		return File{}, fmt.Errorf("%w: %w", ErrTrace, err)
	}
	if len(data) > maxTraceBytes {
		return File{}, fmt.Errorf("%w: larger than %d MiB", ErrTrace, maxTraceBytes>>20)
	}
	return ParseFile(data)
}

// ParseFile checks what the simulator needs of a trace: usage_cpus, a
// non-empty list of finite values ≥ 0 that are not all 0, and interval_ms
// above 0. The rest of the file is read as it comes.
func ParseFile(data []byte) (File, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return File{}, fmt.Errorf("%w: %v", ErrTrace, oneLine(err.Error()))
	}
	if len(f.UsageCPUs) == 0 {
		return File{}, fmt.Errorf("%w: no usage_cpus: want one value per interval, as sample writes", ErrTrace)
	}
	if !(f.IntervalMs > 0) || math.IsInf(f.IntervalMs, 0) {
		return File{}, fmt.Errorf("%w: interval_ms %v: want above 0", ErrTrace, f.IntervalMs)
	}
	var sum float64
	for i, v := range f.UsageCPUs {
		if !(v >= 0) || v > 1e6 {
			return File{}, fmt.Errorf("%w: usage_cpus element %d is %v: want CPUs from 0 to 1e6", ErrTrace, i, v)
		}
		sum += v
	}
	if sum == 0 {
		return File{}, fmt.Errorf("%w: all %d usage_cpus are 0: nothing to draw demand from", ErrTrace, len(f.UsageCPUs))
	}
	return f, nil
}

// oneLine keeps a decoder's message (which may quote the input) on one line.
func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}
