package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/cleanup"
	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/options"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// resolved runs a command built as root builds it, with runF in place of
// its engine, and gives what its flags resolved to: flag parsing tested
// without measuring, making or writing anything. ran is false where the
// flags were refused (err says why).
func resolved[T any](t *testing.T, newCmd func(*factory, func(context.Context, T) error) *cobra.Command, args ...string) (got T, ran bool, out string, err error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	f := &factory{Stdout: &stdout, Stderr: &stderr}
	root := &cobra.Command{Use: "throttlebench", SilenceUsage: true, SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return formatFromOutput(cmd) }}
	root.AddCommand(newCmd(f, func(_ context.Context, v T) error { got, ran = v, true; return nil }))
	root.SetArgs(args)
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	err = root.Execute()
	return got, ran, stdout.String() + stderr.String(), err
}

// Each command's flags resolve in one call into what its engine takes;
// a command built with another runF runs nothing and writes nothing.
func TestCommandsResolveWithoutRunning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	run, ran, out, err := resolved(t, newCmdRun, "run", "--cpus", "0.5", "--period", "50ms", "--workers", "3", "--batch", "7", "-o", filepath.Join(dir, "r.csv"))
	require.NoError(t, err)
	require.True(t, ran)
	assert.Empty(t, out)
	assert.Equal(t, bandwidth.Limits{Period: 50 * time.Millisecond, Quota: 25 * time.Millisecond}, run.Opts.Limits)
	assert.True(t, run.Opts.LimitsSet)
	assert.Equal(t, 3, run.Opts.Bench.Workers)
	assert.Equal(t, 7, run.Opts.Bench.Batch)
	assert.Equal(t, "csv", run.Settings.Format, "from -o's extension")
	assert.NotNil(t, run.Settings.TraceSink, "the command's, set after the flags resolve")
	assert.NoFileExists(t, filepath.Join(dir, "r.csv"))

	sw, _, out, err := resolved(t, newCmdSweep, "sweep", "--cpus", "0.25,0.5", "--workers", "1,2", "--batch", "5")
	require.NoError(t, err)
	assert.Equal(t, options.SweepToRun, sw.Mode)
	assert.Len(t, sw.Steps, 4)
	assert.Empty(t, out)
	sw, _, out, err = resolved(t, newCmdSweep, "sweep", "--emit", "kubernetes", "--cpus", "0.5,1", "--sweep-id", "t1")
	require.NoError(t, err)
	assert.Equal(t, options.SweepToEmit, sw.Mode)
	assert.Equal(t, kube.Options{Emit: kube.Kubernetes, SweepID: "t1", Image: kube.DefaultImage, Memory: sw.Emit.Options.Memory, TTL: kube.DefaultTTL, Deadline: kube.DefaultDeadline}, sw.Emit.Options)
	assert.Len(t, sw.Emit.Steps, 2)
	assert.Contains(t, sw.Emit.CommandLine, "--sweep-id t1")
	assert.Empty(t, out, "nothing emitted")
	sw, _, _, err = resolved(t, newCmdSweep, "sweep", "--from", "results.json", "--format", "markdown")
	require.NoError(t, err)
	assert.Equal(t, options.SweepPlan{Mode: options.SweepToShow, From: "results.json", Format: "markdown"}, sw)

	lat, _, _, err := resolved(t, newCmdLatency, "latency", "--rate", "50,100", "--work", "2ms", "--duration", "1s")
	require.NoError(t, err)
	assert.Len(t, lat.Steps, 2)
	assert.True(t, lat.List)

	sz, _, _, err := resolved(t, newCmdSize, "size", "--slo", "p99<=20ms", "--rate", "100", "--work", "2ms", "--cpus-max", "1", "--window", "3s")
	require.NoError(t, err)
	assert.True(t, sz.Plan.Open)
	assert.Equal(t, 1.0, sz.Plan.Grid.Max)
	assert.Equal(t, 3*time.Second, sz.Plan.WindowLength)
	assert.Equal(t, bandwidth.Unlimited, sz.Plan.Base.Limits.Quota, "the unlimited arm's")

	cmp, _, _, err := resolved(t, newCmdCompare, "compare", "--threshold", "7", "old.json", "new.json")
	require.NoError(t, err)
	assert.Equal(t, 7.0, cmp.Run.ThresholdPct)
	assert.Equal(t, [2]string{"old.json", "new.json"}, [2]string{cmp.Old, cmp.New}, "not read")

	sh, _, _, err := resolved(t, newCmdShow, "show", "--format", "markdown", "x.json")
	require.NoError(t, err)
	assert.Equal(t, showPlan{Show: options.Show{Format: "markdown", FormatGiven: true}, Path: "x.json"}, sh)

	smp, _, _, err := resolved(t, newCmdSample, "sample", "--interval", "10ms", "--duration", "1s", "--limit", "2")
	require.NoError(t, err)
	assert.Equal(t, usage.Options{Interval: 10 * time.Millisecond, Duration: time.Second, Limit: 2, Target: 0.01, Period: 100 * time.Millisecond, Format: "text"}, smp)

	sim, _, _, err := resolved(t, newCmdSimulate, "simulate", "--cgroups", "10,20", "--util", "0.5", "--buffer", "1", "--periods", "1000")
	require.NoError(t, err)
	assert.Len(t, sim.Plan.Cells, 2)

	col, _, _, err := resolved(t, newCmdCollect, "collect", "--node", "node-a")
	require.NoError(t, err)
	assert.Equal(t, []string{"-"}, col.Inputs, "stdin without an argument")
	assert.Equal(t, []string{"node-a"}, col.Collect.Nodes)

	cl, _, _, err := resolved(t, newCmdCleanup, "cleanup")
	require.NoError(t, err)
	assert.Equal(t, cleanup.Where{Hier: cl.Hier, Parent: cl.Hier.DefaultParent()}, cl)
}

// Bad input stops at the flags: the engine is never reached.
func TestCommandsRefuseBeforeTheEngine(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--cpus", "-1"},
		{"sweep", "--cpus", "0.5", "--image", "x"},
		{"latency", "--rate", "0"},
		{"size", "--rate", "100"},
		{"compare", "--alpha", "2", "a", "b"},
		{"show", "--format", "yaml", "x.json"},
		{"sample", "--interval", "1h"},
		{"simulate", "--cgroups", "0"},
		{"cleanup", "--cgroup-version", "3"},
	} {
		var ran bool
		var err error
		switch args[0] {
		case "run":
			_, ran, _, err = resolved(t, newCmdRun, args...)
		case "sweep":
			_, ran, _, err = resolved(t, newCmdSweep, args...)
		case "latency":
			_, ran, _, err = resolved(t, newCmdLatency, args...)
		case "size":
			_, ran, _, err = resolved(t, newCmdSize, args...)
		case "compare":
			_, ran, _, err = resolved(t, newCmdCompare, args...)
		case "show":
			_, ran, _, err = resolved(t, newCmdShow, args...)
		case "sample":
			_, ran, _, err = resolved(t, newCmdSample, args...)
		case "simulate":
			_, ran, _, err = resolved(t, newCmdSimulate, args...)
		case "cleanup":
			_, ran, _, err = resolved(t, newCmdCleanup, args...)
		}
		assert.ErrorAs(t, err, new(*badinput.Error), "%v", args)
		assert.False(t, ran, "%v", args)
	}
}
