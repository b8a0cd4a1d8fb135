package options

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// sampleDefaults are sample's flags at their defaults.
func sampleDefaults() Sample {
	return Sample{Interval: "100ms", Duration: "0", Period: "100ms", Target: "1%", Format: "json"}
}

func TestSampleResolve(t *testing.T) {
	o, err := sampleDefaults().Resolve()
	require.NoError(t, err)
	assert.Equal(t, usage.Options{Interval: 100 * time.Millisecond, Period: 100 * time.Millisecond, Target: 0.01, Format: "json"}, o)

	f := Sample{Cgroup: "/kube/pod1", Interval: "10ms", Duration: "5s", Limit: " 0.5 ", Period: "250ms", Target: "2.5", Format: "csv"}
	o, err = f.Resolve()
	require.NoError(t, err)
	assert.Equal(t, 10*time.Millisecond, o.Interval)
	assert.Equal(t, 5*time.Second, o.Duration)
	assert.Equal(t, 0.5, o.Limit)
	assert.Equal(t, 250*time.Millisecond, o.Period)
	assert.Equal(t, 0.025, o.Target)
	assert.Equal(t, "/kube/pod1", o.Cgroup)

	// A limit as a pod's spec writes it.
	f = sampleDefaults()
	f.Limit = "1500m"
	o, err = f.Resolve()
	require.NoError(t, err)
	assert.Equal(t, 1.5, o.Limit)

	f = sampleDefaults()
	f.PID = "4242"
	o, err = f.Resolve()
	require.NoError(t, err)
	assert.Equal(t, 4242, o.PID)

	f = sampleDefaults()
	f.Command, f.Dash = []string{"sh", "-c", "true"}, 0
	o, err = f.Resolve()
	require.NoError(t, err)
	assert.Equal(t, []string{"sh", "-c", "true"}, o.Command)
}

// Every refusal is a badinput.Error (exit 2) naming the flag.
func TestSampleRefuse(t *testing.T) {
	for _, tc := range []struct {
		set  func(*Sample)
		flag string
		want string
	}{
		{func(f *Sample) { f.Interval = "500us" }, "interval", `invalid --interval "500us": want a duration between 1ms and 10s, such as 100ms`},
		{func(f *Sample) { f.Interval = "often" }, "interval", `invalid --interval "often"`},
		{func(f *Sample) { f.Interval, f.Duration = "1s", "999ms" }, "duration", `invalid --duration "999ms": want 0 (until Ctrl-C) or a duration between --interval 1s and 24h0m0s`},
		{func(f *Sample) { f.Duration = "25h" }, "duration", "24h0m0s"},
		{func(f *Sample) { f.Limit = "NaN" }, "limit", "above 0 and at most 1024"},
		{func(f *Sample) { f.Limit = "0m" }, "limit", `invalid --limit "0m": want a number of CPUs above 0 and at most 1024, such as 4, 0.5 or 500m`},
		{func(f *Sample) { f.Interval = "100" }, "interval", `invalid --interval "100": a duration needs a unit: 100ms?`},
		{func(f *Sample) { f.Duration = "30" }, "duration", `invalid --duration "30": a duration needs a unit: 30s?`},
		{func(f *Sample) { f.Period = "250" }, "period", `invalid --period "250": a duration needs a unit: 250ms?`},
		{func(f *Sample) { f.Period = "2s" }, "period", `invalid --period "2s": must be between 1ms and 1s`},
		{func(f *Sample) { f.Period = "100.5us" }, "period", "whole microseconds"},
		{func(f *Sample) { f.Target = "100%" }, "target", "between 0 and 100 (exclusive), such as 1 or 1%"},
		{func(f *Sample) { f.PID = "0" }, "pid", "a process ID, a whole number from 1"},
		{func(f *Sample) { f.PID, f.Cgroup = "1", "/x" }, "pid", `--pid "1" conflicts with --cgroup "/x"`},
		{func(f *Sample) { f.Command, f.Dash = []string{"true"}, -1 }, "command", `unexpected argument "true": a command to start and sample goes after --`},
		{func(f *Sample) { f.Command, f.Dash, f.Cgroup = []string{"true"}, 0, "/" }, "command", "conflicts with --cgroup or --pid"},
		{func(f *Sample) { f.Command, f.Dash, f.PID = []string{"true"}, 0, "1" }, "command", "conflicts with --cgroup or --pid"},
		{func(f *Sample) { f.Command, f.Dash = []string{"no-such-command-here"}, 0 }, "command", `invalid command "no-such-command-here": executable file not found`},
		{func(f *Sample) { f.Format = "markdown" }, "format", "json, text, csv"},
		{func(f *Sample) { f.Output = "/nonexistent/dir/x.json" }, "output", "does not exist"},
		{func(f *Sample) { f.Plot = "usage" }, "plot", "ending in .svg or .png"},
	} {
		f := sampleDefaults()
		tc.set(&f)
		_, err := f.Resolve()
		var e *badinput.Error
		require.ErrorAs(t, err, &e, tc.want)
		assert.Equal(t, tc.flag, e.Param, err.Error())
		assert.Contains(t, err.Error(), tc.want)
	}
}
