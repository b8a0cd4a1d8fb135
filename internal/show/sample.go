package show

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// sample's JSON: the trace (interval_ms, usage_cpus) with its summary.
var sampleKind = Kind{Name: "sample",
	Claims: func(keys map[string]json.RawMessage, _ bool) bool { return has(keys, "interval_ms", "usage_cpus") },
	Load: func(data []byte, list bool) (Result, error) {
		if list {
			return nil, errors.New("several traces in one file: sample writes one, and show reads one")
		}
		// Not usage.ParseFile: it refuses what the simulator cannot draw
		// demand from (an idle cgroup's zeros), which is still a trace to show.
		var f usage.File
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, err
		}
		switch {
		case f.SchemaVersion != usage.SchemaVersion:
			return nil, fmt.Errorf("schema_version %d: this throttlebench reads version %d", f.SchemaVersion, usage.SchemaVersion)
		case len(f.UsageCPUs) == 0:
			return nil, errors.New("no usage_cpus: want one value per interval")
		case len(f.TMs) != len(f.UsageCPUs):
			return nil, fmt.Errorf("%d t_ms for %d usage_cpus: want one each per interval", len(f.TMs), len(f.UsageCPUs))
		case !(f.IntervalMs > 0) || math.IsInf(f.IntervalMs, 0):
			return nil, fmt.Errorf("interval_ms %v: want above 0", f.IntervalMs)
		}
		return sampleResult{f}, nil
	}}

type sampleResult struct{ f usage.File }

func (sampleResult) Kind() string             { return "sample" }
func (sampleResult) Formats() []string        { return usage.Formats }
func (sampleResult) Columns(string) []string  { return nil }
func (s sampleResult) Plot(path string) error { return plot.SaveUsage(path, s.f) }
func (s sampleResult) Warnings() []Warning    { return unlabelled(s.f.Warnings) }
func (s sampleResult) Write(w io.Writer, format string, _ table.View) error {
	return usage.Write(w, s.f, format)
}
