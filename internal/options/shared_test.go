package options

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/runner"
)

func refusedWith(t *testing.T, err error, flag, msg string) {
	t.Helper()
	var ue *badinput.Error
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, flag, ue.Param)
	assert.Contains(t, err.Error(), msg)
}

func flags(values map[string]string) *Shared {
	f := NewShared()
	for k, v := range values {
		f.Values[k] = &v
	}
	f.Mode = runner.ModeAuto
	return f
}

// The command after -- becomes the command workload; one that is given
// without -- or beside --workload is refused, and one that cannot be
// found is refused only where it runs here.
func TestTakeCommand(t *testing.T) {
	f := flags(map[string]string{"workload": "bcrypt"})
	require.NoError(t, f.TakeCommand("run", nil, -1, gave().Changed, true))
	assert.Nil(t, f.Argv)
	refusedWith(t, f.TakeCommand("run", []string{"x"}, -1, gave().Changed, true), "command", `unexpected argument "x": a command to measure goes after --: throttlebench run [flags] -- CMD [ARGS...]`)
	refusedWith(t, f.TakeCommand("run", []string{"true"}, 0, gave("workload").Changed, true), "workload", `--workload "bcrypt" conflicts with the command after --`)
	refusedWith(t, f.TakeCommand("run", []string{"/no/such/cmd"}, 0, gave().Changed, true), "command", `invalid command "/no/such/cmd"`)
	require.NoError(t, f.TakeCommand("sweep", []string{"/no/such/cmd", "a b"}, 0, gave().Changed, false), "runs in the pods")
	g := f.Given(gave().Changed)
	assert.Equal(t, map[string]string{"workload": "command", "command": `["/no/such/cmd","a b"]`}, g)
}

// sweep's modes part after what they all refuse: an --emit flag without
// --emit; --from wins over --emit, which wins over running here.
func TestSweepMode(t *testing.T) {
	o := &Sweep{Run: flags(nil)}
	m, err := o.Mode(gave("cpus"), nil, -1)
	require.NoError(t, err)
	assert.Equal(t, SweepToRun, m)
	_, err = o.Mode(gave("cpus", "image"), nil, -1)
	refusedWith(t, err, "image", "--image applies only with --emit")
	m, _ = o.Mode(gave("emit", "image"), nil, -1)
	assert.Equal(t, SweepToEmit, m)
	m, _ = o.Mode(gave("from"), nil, -1)
	assert.Equal(t, SweepToShow, m)

	o.Run.Format = "text"
	require.NoError(t, o.CheckFrom(gave("from", "format")))
	refusedWith(t, o.CheckFrom(gave("cpus", "from")), "cpus", `--cpus "v-cpus" cannot be used with --from`)
	o.Run.Format = "yaml"
	refusedWith(t, o.CheckFrom(gave("from", "format")), "format", "yaml")
}

// latency's engines: what --instances refuses, and what only it takes.
func TestLatencyInstances(t *testing.T) {
	run := flags(map[string]string{"instances": "per-request", "concurrency": "4"})
	o := &Latency{Run: run}
	refusedWith(t, o.checkInstances(run, false, summaryAsSet(gave(), true)), "summary", "--summary applies only with --instances")
	require.NoError(t, o.checkInstances(run, false, summaryAsSet(gave("summary"), false)), "--summary=false asks for nothing")
	refusedWith(t, o.checkInstances(run, true, gave("instances", "concurrency")), "concurrency", "does not apply to --instances per-request")
	run.Mode = runner.ModeCurrent
	refusedWith(t, o.checkInstances(run, true, gave("instances")), "instances", "cannot be used with --cgroup current")
	run.Mode, o.Plot = runner.ModeAuto, "x.svg"
	refusedWith(t, o.checkInstances(run, true, gave("instances")), "plot", "does not apply with --instances but with --trace")
	run.Trace = true
	require.NoError(t, o.checkInstances(run, true, gave("instances")))
}

// The flags are refused before the host is asked anything: --cgroup
// current with --cgroup-driver systemd says which to leave out.
func TestSettingsRefuses(t *testing.T) {
	f := flags(nil)
	f.Version, f.Driver, f.Mode = "auto", "systemd", runner.ModeCurrent
	_, err := f.Settings(context.Background(), gave().Changed, io.Discard)
	refusedWith(t, err, "cgroup-driver", "--cgroup-driver systemd makes a scope for the slices, but --cgroup current measures the current cgroup and creates none")
	f.Mode = "elsewhere"
	_, err = f.Settings(context.Background(), gave().Changed, io.Discard)
	refusedWith(t, err, "cgroup", "elsewhere")
}

// --cpus of sweep and latency takes CPUs as Kubernetes writes them, in
// lists and ranges, and a bare number where a duration is wanted is
// refused with a unit to try, before the list is expanded.
func TestPlanReadsCPUQuantities(t *testing.T) {
	plan := func(command config.Command, values map[string]string) ([]string, error) {
		f := flags(values)
		f.Version, f.Driver, f.Format = "auto", "cgroupfs", "text"
		names := make([]string, 0, len(values))
		for k := range values {
			names = append(names, k)
		}
		_, steps, err := f.Plan(context.Background(), command, gave(names...).Changed, []string{"text"}, "", 100, nil, io.Discard)
		var cpus []string
		for _, s := range steps {
			cpus = append(cpus, s.Config.Get("cpus"))
		}
		return cpus, err
	}
	cpus, err := plan(config.Batch, map[string]string{"cpus": "500m:1:250m,1500m"})
	require.NoError(t, err)
	assert.Equal(t, []string{"0.5", "0.75", "1", "1.5"}, cpus)
	cpus, err = plan(config.Latency, map[string]string{"cpus": "max,850m"})
	require.NoError(t, err)
	assert.Equal(t, []string{"max", "0.85"}, cpus)

	_, err = plan(config.Latency, map[string]string{"cpus": "500m,x"})
	refusedWith(t, err, "cpus", `invalid --cpus "500m,x": "x" is not a number, nor max`)
	_, err = plan(config.Latency, map[string]string{"work": "1ms,4"})
	refusedWith(t, err, "work", `invalid --work "1ms,4": 4 needs a unit: 4ms?`)
	_, err = plan(config.Batch, map[string]string{"cpus": "0.5", "burst": "0:20:10ms"})
	refusedWith(t, err, "burst", `invalid --burst "0:20:10ms": 20 needs a unit: 20ms?`)
}
