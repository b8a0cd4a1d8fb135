package show

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/model"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/table"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// The fixtures under testdata/ were written by the real binary (as root,
// on a 2-CPU cgroup v1 host) with -o, from these flags; testdata/README
// has the command lines.
var fixtures = []struct {
	file, kind string
	command    config.Command
	given      map[string]string
}{
	{"run.json", "run", config.Batch, map[string]string{"workload": "spin", "batch": "5", "iterations": "3", "warmup": "0", "cpus": "0.5", "workers": "2"}},
	{"sweep.json", "sweep", config.Batch, map[string]string{"workload": "spin", "batch": "5", "iterations": "2", "warmup": "0", "cpus": "0.5,1", "workers": "1,2"}},
	{"sweep-period.json", "sweep", config.Batch, map[string]string{"workload": "spin", "batch": "5", "iterations": "2", "warmup": "0", "period": "10ms,100ms", "cpus": "0.5", "burst": "0,5ms"}},
	{"latency.json", "latency", config.Latency, map[string]string{"cpus": "0.5", "rate": "50", "work": "2ms", "duration": "1s"}},
	{"latency-list.json", "latency", config.Latency, map[string]string{"cpus": "0.5,1", "burst": "0,20ms", "rate": "50", "work": "2ms", "duration": "1s"}},
	{"latency-instances.json", "latency", config.Latency, map[string]string{"instances": "shared,per-request", "arrivals": "once", "count": "3"}},
	{"latency-target.json", "latency", config.Latency, map[string]string{"cpus": "0.5", "rate": "20", "duration": "1s"}},
	{"latency-traced.json", "latency", config.Latency, map[string]string{"cpus": "0.3", "rate": "20", "work": "10ms", "duration": "1s"}},
	{"sample.json", "sample", 0, nil},
	{"simulate.json", "simulate", 0, nil},
}

// planned are the configurations the command made of its flags, as its
// rows name them (sweep.Plan, which run, sweep and latency plan through).
func planned(t *testing.T, command config.Command, given map[string]string, n int) []sweep.Config {
	t.Helper()
	spec := sweep.SpecFor(command, given)
	spec.MaxConfigs, spec.NumCPU = 1000, 2
	spec.Options = func(config.Config) (plan.Options, error) { return plan.Options{}, nil }
	steps, err := sweep.Plan(spec)
	require.NoError(t, err)
	require.Len(t, steps, n, "a result per configuration")
	out := make([]sweep.Config, n)
	for i, s := range steps {
		out[i] = s.Config
	}
	return out
}

// commandOutput is what the command printed for the results in file: its
// own renderer, over the rows its own plan named.
func commandOutput(t *testing.T, file string, command config.Command, given map[string]string, format string, v table.View) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	require.NoError(t, err)
	var b bytes.Buffer
	switch {
	case command == config.Batch && data[0] == '{': // run
		var rep report.Report
		require.NoError(t, json.Unmarshal(data, &rep))
		if format == "text" {
			require.NoError(t, render.Write(&b, &rep, format))
			break
		}
		// run's CSV and markdown: the row a sweep of its one configuration shows.
		rows := []sweep.Row{{Config: planned(t, command, given, 1)[0], Report: &rep}}
		require.NoError(t, sweep.WriteRows(&b, rows, format, v))
	case command == config.Batch:
		var reps []*report.Report
		require.NoError(t, json.Unmarshal(data, &reps))
		configs := planned(t, command, given, len(reps))
		rows := make([]sweep.Row, len(reps))
		for i := range reps {
			rows[i] = sweep.Row{Config: configs[i], Report: reps[i]}
		}
		require.NoError(t, sweep.WriteRows(&b, rows, format, v))
	case command == config.Latency:
		reps, err := loadLatency(data)
		require.NoError(t, err)
		configs := planned(t, command, given, len(reps))
		rows := make([]latency.Row, len(reps))
		for i := range reps {
			rows[i] = latency.Row{Config: configs[i], Report: reps[i]}
		}
		require.NoError(t, latency.Write(&b, rows, format, len(reps) > 1, v))
	case strings.HasPrefix(file, "simulate"):
		var cells []model.Cell
		require.NoError(t, json.Unmarshal(data, &cells))
		require.NoError(t, model.WriteCells(&b, cells, format, true, v))
	default:
		f, err := usage.ReadFile(filepath.Join("testdata", file))
		require.NoError(t, err)
		require.NoError(t, usage.Write(&b, f, format))
	}
	return b.String()
}

// show's text, CSV and markdown of a saved result are what its command
// printed: the same renderers over the same rows, the rows' keys read back
// from the result as the command's own plan named them.
func TestShowIsWhatTheCommandPrinted(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			res, err := Read(filepath.Join("testdata", f.file))
			require.NoError(t, err)
			assert.Equal(t, f.kind, res.Kind(), "recognised from its content")
			for _, format := range []string{"text", "csv", "markdown"} {
				if !strings.Contains(strings.Join(res.Formats(), ","), format) {
					continue
				}
				v := table.View{Width: table.DefaultWidth}
				var got bytes.Buffer
				require.NoError(t, res.Write(&got, format, v))
				assert.Equal(t, commandOutput(t, f.file, f.command, f.given, format, v), got.String(), "--format %s", format)
			}
		})
	}
}

// Read loses nothing: its JSON holds every key and value of the file the
// command wrote (byte for byte where this build wrote it: test/integration;
// a fixture written before a key was added reads back with that key too,
// one written before warnings had kinds with its warnings' kind unknown).
func TestShowJSONIsTheFile(t *testing.T) {
	for _, f := range fixtures {
		res, err := Read(filepath.Join("testdata", f.file))
		require.NoError(t, err, f.file)
		var got bytes.Buffer
		require.NoError(t, res.Write(&got, "json", table.View{}), f.file)
		data, err := os.ReadFile(filepath.Join("testdata", f.file))
		require.NoError(t, err)
		var want, back any
		require.NoError(t, json.Unmarshal(data, &want))
		require.NoError(t, json.Unmarshal(got.Bytes(), &back), f.file)
		assert.Empty(t, missing("", want, back), f.file)
	}
}

// missing lists where in got a value of want is not.
func missing(at string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{at}
		}
		var out []string
		for k, v := range w {
			out = append(out, missing(at+"."+k, v, g[k])...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{at}
		}
		var out []string
		for i := range w {
			out = append(out, missing(fmt.Sprintf("%s[%d]", at, i), w[i], g[i])...)
		}
		return out
	}
	// A warning of a file written before kinds reads back as kind unknown.
	old := map[string]any{"kind": report.KindUnknown, "text": want}
	if _, text := want.(string); text && strings.Contains(at, ".warnings[") && reflect.DeepEqual(old, got) {
		return nil
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: %v, read back %v", at, want, got)}
	}
	return nil
}

// A table read back names the axes a list would have: those that differ,
// and those given a value other than their default, in the list's order;
// gomaxprocs not where it followed the workers.
func TestKeysReadBack(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"sweep.json", []string{"workers", "cpus"}},
		{"sweep-period.json", []string{"period", "burst", "cpus"}},
		{"latency.json", []string{"cpus", "work", "rate"}},
		{"latency-list.json", []string{"burst", "cpus", "work", "rate"}},
		{"latency-instances.json", []string{"instances"}},
		{"latency-target.json", []string{"cpus", "rate"}},
		{"run.json", []string{"workers", "cpus"}},
	} {
		res, err := Read(filepath.Join("testdata", c.file))
		require.NoError(t, err, c.file)
		var b bytes.Buffer
		require.NoError(t, res.Write(&b, "csv", table.View{}))
		head, _, _ := strings.Cut(b.String(), "\n")
		assert.Equal(t, c.want, strings.Split(head, ",")[:len(c.want)], c.file)
	}
}

func TestPlotEachKind(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"sweep.json", "latency-list.json", "latency-target.json", "sample.json", "simulate.json"} {
		res, err := Read(filepath.Join("testdata", f))
		require.NoError(t, err)
		path := filepath.Join(dir, f+".svg")
		require.NoError(t, res.Plot(path), f)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Contains(t, string(data), "<svg", f)
	}
	res, err := Read(filepath.Join("testdata", "run.json"))
	require.NoError(t, err)
	err = res.Plot(filepath.Join(dir, "run.svg"))
	var ce *badinput.Error
	require.ErrorAs(t, err, &ce, "no picture in a run result is bad input")
	assert.Contains(t, err.Error(), "--trace-out")
	assert.NoFileExists(t, filepath.Join(dir, "run.svg"))
}

// A file of no kind show knows, or a broken one: a badinput.Error (exit 2),
// one line naming the file, and for an unknown kind what show reads.
func TestBadFiles(t *testing.T) {
	run, err := os.ReadFile(filepath.Join("testdata", "run.json"))
	require.NoError(t, err)
	sample, err := os.ReadFile(filepath.Join("testdata", "sample.json"))
	require.NoError(t, err)
	lat, err := os.ReadFile(filepath.Join("testdata", "latency.json"))
	require.NoError(t, err)
	for _, c := range []struct {
		name, content, want string
	}{
		{"empty.json", "", "is no result show reads (run, sweep, latency, sample, simulate, size): it is empty"},
		{"text.txt", "mean 5 ms\n", "is no result show reads (run, sweep, latency, sample, simulate, size): it is not JSON"},
		{"array.json", "[]", "an empty array"},
		{"number.json", "42", "found 42 where a result object belongs"},
		{"cut.json", `{"schema_version": 1, "config": {`, "its first object has none of their keys (it has config, schema_version), and is cut short"},
		{"other.json", `{"cells": [], "schema_version": 1}`, "its first object has none of their keys (it has cells, schema_version)"},
		{"compare.json", `[{"key": "cpus=0.5", "verdict": "~"}]`, "none of their keys"},
		{"run-v9.json", strings.Replace(string(run), `"schema_version": 1`, `"schema_version": 9`, 1), "is a broken run result: line 1: schema_version 9: this throttlebench reads version 1"},
		{"sweep-cut.json", "[" + string(run) + ",\n" + strings.Replace(string(run), `"durations_ms"`, `"durations"`, 1) + "]", "is a broken sweep result: line 1, element 2: a run result without durations_ms"},
		{"run-truncated.json", string(run[:len(run)/2]), "is a broken run result"},
		{"latency-v0.json", strings.Replace(string(lat), `"schema_version": 1`, `"schema_version": 0`, 1), "is a broken latency result: value 1, element 1: no schema_version"},
		{"simulate-empty.json", `[{"e_wcet": 1, "p_wcet_1": 0.5}]`, "is a broken simulate result: value 1, element 1: cgroups 0, replicas 0"},
		{"samples.json", "[" + string(sample) + "]", "is a broken sample result: several traces in one file"},
		{"sample-cut.json", strings.Replace(string(sample), `"t_ms": [`, `"t_ms": [1, `, 1), "is a broken sample result: "},
	} {
		path := filepath.Join(t.TempDir(), c.name)
		require.NoError(t, os.WriteFile(path, []byte(c.content), 0o644))
		_, err := Read(path)
		var ce *badinput.Error
		require.True(t, errors.As(err, &ce), "%s: %v", c.name, err)
		assert.Contains(t, err.Error(), path, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		assert.NotContains(t, err.Error(), "\n", "%s: one line", c.name)
	}
	// Runs one after another (JSON Lines, a CI job's appends) are a sweep.
	lines := filepath.Join(t.TempDir(), "runs.jsonl")
	require.NoError(t, os.WriteFile(lines, append(append(slices.Clone(run), '\n'), run...), 0o644))
	res, err := Read(lines)
	require.NoError(t, err)
	assert.Equal(t, "sweep", res.Kind())

	_, err = Read(filepath.Join(t.TempDir(), "missing.json"))
	var ce *badinput.Error
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), "missing.json")
}

// An idle cgroup's trace, all zeros, is still a trace to show (the burst
// simulator refuses it: nothing to draw demand from).
func TestIdleSample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "sample.json"))
	require.NoError(t, err)
	var f usage.File
	require.NoError(t, json.Unmarshal(data, &f))
	for i := range f.UsageCPUs {
		f.UsageCPUs[i] = 0
	}
	idle, err := json.Marshal(f)
	require.NoError(t, err)
	res, err := Parse("idle.json", idle)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, res.Write(&b, "text", table.View{}))
	assert.Contains(t, b.String(), "max")
}

// A traced latency result shows what its slow requests spent their time
// on, read back from its breakdown, as latency printed it.
func TestShowTracedBreakdown(t *testing.T) {
	res, err := Read(filepath.Join("testdata", "latency-traced.json"))
	require.NoError(t, err)
	var got bytes.Buffer
	require.NoError(t, res.Write(&got, "text", table.View{Width: table.DefaultWidth}))
	assert.Regexp(t, `p99 requests: \d+% held by the\s+quota, \d+% on\s+CPU`, got.String())
}
