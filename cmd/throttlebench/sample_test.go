package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/cgroup"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// onTime is a clock that wakes exactly when asked and finds the counter
// file advanced by the next of used; when used runs out it calls stop and
// reports the context's end.
type onTime struct {
	file  string
	now   time.Duration
	total time.Duration
	used  []time.Duration
	stop  func()
}

func (c *onTime) Now() time.Duration { return c.now }

func (c *onTime) SleepUntil(ctx context.Context, at time.Duration) error {
	if len(c.used) == 0 {
		c.stop()
		return ctx.Err()
	}
	c.now, c.total, c.used = at, c.total+c.used[0], c.used[1:]
	return os.WriteFile(c.file, []byte(strconv.FormatInt(int64(c.total), 10)), 0o644)
}

// sampleFile runs sample against a counter file the clock writes: 0.5 CPUs
// per 100 ms interval with a 3-CPU spike in the fourth.
func sampleFile(t *testing.T, r usage.Options, ctx context.Context, stop func()) (string, error) {
	return sampleAt(t, "/job", r, ctx, stop)
}

// sampleAt is sampleFile of a v1 cgroup at path; "/" is the host's top (it
// has release_agent).
func sampleAt(t *testing.T, path string, r usage.Options, ctx context.Context, stop func()) (string, error) {
	// The directory is a fixture's mount point, below the fixture's root
	// (Hierarchy.Root): its counter is read beneath it, as on cgroupfs.
	dir := t.TempDir()
	cg := cgroup.Cgroup{Hierarchy: cgroup.Hierarchy{Version: 1, MountPoint: dir, Root: filepath.Dir(dir)}, Path: path, Dir: dir}
	if path == "/" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "release_agent"), nil, 0o644))
	}
	ms := time.Millisecond
	clk := &onTime{file: filepath.Join(dir, "cpuacct.usage"), stop: stop,
		used: []time.Duration{7 * time.Second, 50 * ms, 50 * ms, 50 * ms, 300 * ms, 50 * ms, 50 * ms}}
	r.Interval = 100 * ms
	var out, errb bytes.Buffer
	err := runSample(ctx, r, cg, cg, clk, nil, &out, &errb)
	return out.String(), err
}

func TestSampleFormats(t *testing.T) {
	r := usage.Options{Duration: 600 * time.Millisecond, Limit: 1, Target: 0.2, Format: "json"}
	out, err := sampleFile(t, r, context.Background(), func() {})
	require.NoError(t, err)
	var f usage.File
	require.NoError(t, json.Unmarshal([]byte(out), &f))
	assert.Equal(t, 100.0, f.IntervalMs)
	assert.Equal(t, []float64{0.5, 0.5, 0.5, 3, 0.5, 0.5}, f.UsageCPUs)
	assert.Equal(t, []float64{100, 200, 300, 400, 500, 600}, f.TMs)
	assert.Equal(t, 1.0/6, *f.Summary.Interval.AboveLimitFraction)
	assert.Equal(t, 0.5, f.Advice.LimitCPUs, "one of six may be above")
	// Against 1 CPU the bucket starts full: the spike takes 200 ms.
	assert.Equal(t, 1.0, f.Advice.BurstLimitCPUs)
	assert.Equal(t, 200.0, f.Advice.BurstMs)
	assert.Equal(t, "cpuacct.usage", f.Cgroup.Counter)
	assert.False(t, f.Interrupted)

	r.Format = "csv"
	out, err = sampleFile(t, r, context.Background(), func() {})
	require.NoError(t, err)
	assert.Equal(t, "t_ms,span_ms,usage_cpus\n100,100,0.5\n200,100,0.5\n300,100,0.5\n400,100,3\n500,100,0.5\n600,100,0.5\n", out)

	r.Format = "text"
	out, err = sampleFile(t, r, context.Background(), func() {})
	require.NoError(t, err)
	for _, want := range []string{"cgroup /job (v1, cpuacct.usage): 6 intervals of 100.0ms", "above 1.000", "16.7%",
		"limit for at most 20.0% of 100.0ms intervals above it: 0.500 CPUs", "above 1.000 CPUs: 200.0ms of CPU time"} {
		assert.Contains(t, out, want)
	}
}

// The burst above 1 CPU (200 ms) is twice the quota per 100 ms period, the
// most the kernel takes: the advice says what makes room for it, at the
// period asked for (issue 33).
func TestSampleBurstUnderTheCap(t *testing.T) {
	r := usage.Options{Duration: 600 * time.Millisecond, Limit: 1, Target: 0.2, Format: "text", Period: 100 * time.Millisecond}
	out, err := sampleFile(t, r, context.Background(), func() {})
	require.NoError(t, err)
	assert.Contains(t, out, "above the kernel's cap of 100.0ms (the quota per 100ms period): needs --period 200ms, or a limit of 1.500 CPUs\n")
	assert.Contains(t, out, "resources.limits.cpu: 500m · docker run --cpus 0.5\n", "the advised limit's spellings")

	r.Period = 250 * time.Millisecond
	out, err = sampleFile(t, r, context.Background(), func() {})
	require.NoError(t, err)
	assert.Contains(t, out, "200.0ms of CPU time, within the kernel's cap of 250.0ms (the quota per 250ms period)\n"+
		"  docker run --cpu-period 250000 --cpu-quota 250000, burst 200.0ms")
}

// A sample of the host's top cgroup says it is the whole machine, in the
// JSON's warnings; another cgroup's does not (issue 33).
func TestSampleWholeMachine(t *testing.T) {
	r := usage.Options{Duration: 600 * time.Millisecond, Target: 0.2, Format: "json", Cgroup: "/"}
	out, err := sampleAt(t, "/", r, context.Background(), func() {})
	require.NoError(t, err)
	var f usage.File
	require.NoError(t, json.Unmarshal([]byte(out), &f))
	require.Len(t, f.Warnings, 1)
	assert.Equal(t, report.KindWholeMachine, f.Warnings[0].Kind)
	assert.Contains(t, f.Warnings[0].Text, "cgroup / is the whole machine: every process's CPU is counted")

	out, err = sampleAt(t, "/job", r, context.Background(), func() {})
	require.NoError(t, err)
	var job usage.File
	require.NoError(t, json.Unmarshal([]byte(out), &job))
	assert.Empty(t, job.Warnings)
}

// Ctrl-C: without --duration it is the normal end; with one, the output is
// written whole and the signal's exit code says it is short.
func TestSampleInterrupted(t *testing.T) {
	for _, d := range []time.Duration{0, time.Hour} {
		ctx, cancel := context.WithCancelCause(context.Background())
		out, err := sampleFile(t, usage.Options{Duration: d, Target: 0.01, Format: "json"}, ctx,
			func() { cancel(&signalError{syscall.SIGINT}) })
		var f usage.File
		require.NoError(t, json.Unmarshal([]byte(out), &f), "duration %v", d)
		assert.True(t, f.Interrupted)
		assert.Len(t, f.UsageCPUs, 6)
		var sig *signalError
		assert.Equal(t, d > 0, errors.As(err, &sig), "duration %v: %v", d, err)
	}
}

// sample -- CMD: the command's end is sampling's normal end, not an
// interruption, with or without --duration.
func TestSampleCommandExited(t *testing.T) {
	for _, d := range []time.Duration{0, time.Hour} {
		ctx, cancel := context.WithCancelCause(context.Background())
		out, err := sampleFile(t, usage.Options{Duration: d, Target: 0.01, Format: "json"}, ctx,
			func() { cancel(runner.ErrCommandExited) })
		require.NoError(t, err, "duration %v", d)
		var f usage.File
		require.NoError(t, json.Unmarshal([]byte(out), &f), "duration %v", d)
		assert.False(t, f.Interrupted, "duration %v", d)
		assert.Len(t, f.UsageCPUs, 6)
	}
}

// The picture is drawn from what was collected, also when Ctrl-C cut the
// sampling short, and is there beside the output.
func TestSamplePlotAfterInterrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.svg")
	ctx, cancel := context.WithCancelCause(context.Background())
	_, err := sampleFile(t, usage.Options{Duration: time.Hour, Limit: 2, Target: 0.01, Format: "json", Plot: path}, ctx,
		func() { cancel(&signalError{syscall.SIGINT}) })
	var sig *signalError
	require.ErrorAs(t, err, &sig)
	svg := readSVG(t, path)
	for _, want := range []string{">per 100ms<", ">limit 2 CPUs<", "cgroup /job (v1, cpuacct.usage), every 100ms, interrupted"} {
		assert.Contains(t, svg, want)
	}
}

// readSVG reads path and checks it is one well-formed <svg> document.
func readSVG(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct{ XMLName xml.Name }
	require.NoError(t, xml.Unmarshal(data, &doc))
	assert.Equal(t, "svg", doc.XMLName.Local)
	return string(data)
}

// sample -- CMD creates a slice: the help's "creates nothing" says it is
// the sampling of a cgroup that does not (issue 33).
func TestSampleHelpCreates(t *testing.T) {
	code, stdout, stderr := runCLI("sample", "--help")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "It creates nothing and changes nothing (but with a command, below).")
}

// A cgroup that used no CPU is advised no limit of 0, which Docker reads
// as none: the text and the JSON's warnings say there is nothing to
// advise (issue 46).
func TestSampleIdleAdvisesNoLimit(t *testing.T) {
	dir := t.TempDir() // a fixture's mount point, as sampleAt's
	cg := cgroup.Cgroup{Hierarchy: cgroup.Hierarchy{Version: 1, MountPoint: dir, Root: filepath.Dir(dir)}, Path: "/idle", Dir: dir}
	ms := time.Millisecond
	for _, format := range []string{"text", "json"} {
		clk := &onTime{file: filepath.Join(dir, "cpuacct.usage"), stop: func() {},
			used: []time.Duration{7 * time.Second, 0, 0, 0, 0, 0, 0}}
		r := usage.Options{Interval: 100 * ms, Duration: 600 * ms, Target: 0.01, Format: format}
		var out, errb bytes.Buffer
		require.NoError(t, runSample(context.Background(), r, cg, cg, clk, nil, &out, &errb))
		assert.NotContains(t, out.String(), "· docker run --cpus", format)
		assert.NotContains(t, out.String(), "resources.limits.cpu: 0", format)
		assert.Contains(t, out.String()+errb.String(), "no CPU used: no limit to advise", format)
		if format == "json" {
			var f usage.File
			require.NoError(t, json.Unmarshal(out.Bytes(), &f))
			require.NotEmpty(t, f.Warnings)
			assert.Equal(t, report.KindNoLimitToAdvise, f.Warnings[len(f.Warnings)-1].Kind)
			assert.Contains(t, f.Warnings[len(f.Warnings)-1].Text, "no CPU used: no limit to advise")
		}
	}
}
