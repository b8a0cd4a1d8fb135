package show

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/plot"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
)

// latency writes one object for one configuration given without lists, an
// array otherwise (latency.Write).
var latencyKind = Kind{Name: "latency",
	Claims: func(keys map[string]json.RawMessage, _ bool) bool { return has(keys, "latency_ms", "offered_rps") },
	Load: func(data []byte, list bool) (Result, error) {
		reps, err := loadLatency(data)
		if err != nil {
			return nil, err
		}
		return latencyResult{rows: latencyRows(reps), list: list}, nil
	}}

// loadLatency reads latency results: an object, an array of them, or
// several of either one after another.
func loadLatency(data []byte) ([]*report.Latency, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []*report.Latency
	for n := 1; ; n++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("value %d: %v", n, err)
		}
		items := []json.RawMessage{raw}
		if raw[0] == '[' {
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("value %d: %v", n, err)
			}
		}
		for i, item := range items {
			rep, err := decodeLatency(item)
			if err != nil {
				return nil, fmt.Errorf("value %d, element %d: %v", n, i+1, err)
			}
			out = append(out, rep)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no results in it")
	}
	return out, nil
}

func decodeLatency(item json.RawMessage) (*report.Latency, error) {
	if len(item) == 0 || item[0] != '{' {
		return nil, fmt.Errorf("found %.20s where a latency result belongs", item)
	}
	var rep report.Latency
	if err := json.Unmarshal(item, &rep); err != nil {
		return nil, err
	}
	switch {
	case rep.SchemaVersion == 0:
		return nil, errors.New("no schema_version")
	case rep.SchemaVersion != report.SchemaVersion:
		return nil, fmt.Errorf("schema_version %d: this throttlebench reads version %d", rep.SchemaVersion, report.SchemaVersion)
	}
	return &rep, nil
}

// latencyRows lays latency results read back out as latency's rows: its
// axes (config.AxesFor(config.Latency)) where they differ between the
// results or from their defaults; the built-in workers (workers,
// gomaxprocs) not for --instances or --target, the work not for --target
// (the server's own), the rate not for --arrivals once.
func latencyRows(reps []*report.Latency) []latency.Row {
	type col = column[*report.Latency]
	c := reps[0].Config
	var cols []col
	if c.InstancesConfig == nil && c.TargetConfig == nil {
		cols = append(cols,
			col{"workers", rank("workers"), func(r *report.Latency) string { return strconv.Itoa(r.Config.Workers) }, "1", false},
			col{"gomaxprocs", rank("gomaxprocs"), func(r *report.Latency) string { return r.Config.GOMAXPROCSPolicy }, "workers", false})
	}
	if c.TargetConfig == nil {
		cols = append(cols, col{"work", rank("work"), func(r *report.Latency) string { return msDuration(r.Config.WorkMs).String() }, "1ms", false})
	}
	for _, k := range limitKeys {
		cols = append(cols, col{k.flag, rank(k.flag), func(r *report.Latency) string { return k.get(r.Cgroup) }, k.dflt, false})
	}
	if c.Arrivals != "once" {
		cols = append(cols, col{"rate", rank("rate"), func(r *report.Latency) string { return strconv.FormatFloat(r.Config.Rate, 'f', -1, 64) }, "100", false})
	}
	cols = append(cols, col{"instances", rank("instances"), func(r *report.Latency) string {
		if r.Config.InstancesConfig == nil {
			return ""
		}
		return r.Config.Instances
	}, "", false})
	return rows(cols, reps, "cpus")
}

type latencyResult struct {
	rows []latency.Row
	list bool
}

func (latencyResult) Kind() string      { return "latency" }
func (latencyResult) Formats() []string { return latency.Formats }
func (l latencyResult) Columns(format string) []string {
	if !slices.Contains(config.TableFormats, format) {
		return nil
	}
	return latency.Columns(l.rows[0].Config.Flags(), l.rows[0].Report.InstancesResult != nil)
}
func (l latencyResult) Write(w io.Writer, format string, v table.View) error {
	return latency.Write(w, l.rows, format, l.list, v)
}

// Plot draws latency's p99/p50 lines. A traced configuration's timeline
// needs the raw events, which the result does not hold.
func (l latencyResult) Plot(path string) error { return plot.SaveLatency(path, l.rows) }
func (l latencyResult) Warnings() []Warning {
	return sweep.Labelled(l.rows, func(r *report.Latency) []report.Warning { return r.Warnings })
}
