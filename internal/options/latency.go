package options

import (
	"context"
	"io"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/fleet"
	"github.com/throttlebench/throttlebench/internal/latency"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/target"
)

// Latency are latency's flags as given: the shared ones, --target's, and
// its own. One set of flags for three engines: the built-in open loop,
// --instances (the fleet) and --target (an HTTP server).
type Latency struct {
	Run        *Shared
	Target     Target
	Plot       string
	MaxConfigs int
	Summary    bool
}

// LatencyRun is latency resolved: the engine, how and where it runs, and
// its configurations.
type LatencyRun struct {
	Settings Settings
	Steps    []sweep.Step
	// Target is --target's (nil without), judged by Rule.
	Target *target.Target
	Rule   build.FailureRule
	// Instances: --instances, the fleet, whose requests[] Summary leaves out.
	Instances, Summary bool
	// List: more than one configuration, one row each.
	List bool
	// Plot is --plot; Timeline: it is the traced window's timeline (one
	// configuration, traced), written with the trace, not the p99/p50 plot.
	Plot     string
	Timeline bool
}

// Resolve checks every flag and plans the configurations, before
// anything is made. args are what came after -- (--serve's command), dash
// where -- was.
func (o *Latency) Resolve(ctx context.Context, g Given, args []string, dash int, stderr io.Writer) (LatencyRun, error) {
	g = summaryAsSet(g, o.Summary)
	run := *o.Run
	tr, err := o.Target.Resolve(g, args, dash, TargetRun{Mode: run.Mode, Version: run.Version, Traced: run.Trace || run.TraceOut != ""})
	if err != nil {
		return LatencyRun{}, err
	}
	run.Mode = tr.Mode // a slice for --serve's server; the current cgroup for one already running
	r := LatencyRun{Target: tr.Target, Rule: tr.Rule, Instances: g.Changed("instances"), Summary: o.Summary, Plot: o.Plot}
	if err := o.checkInstances(&run, r.Instances, g); err != nil {
		return r, err
	}
	columns := func(keys []string) []string { return latency.Columns(keys, r.Instances) }
	if r.Target != nil {
		columns = latency.TargetColumns
	}
	r.Settings, r.Steps, err = run.Plan(ctx, config.Latency, g.Changed, latency.Formats, o.Plot, o.MaxConfigs, columns, stderr)
	if err != nil {
		return r, err
	}
	r.List = len(r.Steps) > 1
	// A single configuration that cannot be is bad input, as in run: there
	// is no other to go on with.
	if !r.List && r.Steps[0].Skip != "" {
		return r, badinput.Errorf("", "%s", r.Steps[0].Skip)
	}
	if s := r.Settings; r.List && s.Out.Events != "" {
		return r, badinput.Errorf("trace-out", "--trace-out %q takes the events of one configuration; this list has %d", s.Out.Events, len(r.Steps))
	}
	// Traced, one configuration's --plot is its timeline; a list's, the
	// p99/p50 plot as without --trace.
	r.Timeline = r.Settings.Trace && !r.List && o.Plot != ""
	if r.Timeline {
		r.Settings.Out.Timeline, r.Settings.Out.Title = o.Plot, "throttlebench latency --trace: "+sweep.Describe(r.Steps[0].Config)
	}
	return r, nil
}

// summaryAsSet makes --summary count as given only when set: --summary=false
// asks for nothing, and no mode refuses it.
func summaryAsSet(g Given, summary bool) Given {
	changed := g.Changed
	g.Changed = func(name string) bool {
		if name == "summary" {
			return summary
		}
		return changed(name)
	}
	return g
}

// checkInstances refuses, before anything is made, what cannot go with
// --instances or without it.
func (o *Latency) checkInstances(run *Shared, onInstances bool, g Given) error {
	if !onInstances {
		return Refuse(LatencyNoInstances, g)
	}
	spec := run.Value("instances")
	if o.Plot != "" && !run.Trace && run.TraceOut == "" {
		return badinput.Errorf("plot", "--plot %q does not apply with --instances but with --trace (the timeline): compare the instances' rows in the table", o.Plot)
	}
	if run.Mode == runner.ModeCurrent {
		return badinput.Errorf("instances", "--instances %q cannot be used with --cgroup current: every instance needs a slice of its own", spec)
	}
	if g.Changed("concurrency") {
		perRequest := true
		for _, m := range strings.Split(spec, ",") {
			perRequest = perRequest && strings.TrimSpace(m) == "per-request"
		}
		if perRequest {
			return badinput.Errorf("concurrency", "--concurrency %q does not apply to --instances per-request, whose instances serve one request at a time each: it applies to shared and pool:N",
				run.Value("concurrency"))
		}
	}
	return nil
}

// Measure runs one configuration on the engine the flags chose: the
// target (judged by the rule, kept in the result), the built-in open
// loop, or the fleet of instances (without requests[] for --summary).
// local holds the tracer for the whole list.
func (r LatencyRun) Measure(local *runner.Local) func(context.Context, plan.Options) (*report.Latency, error) {
	instances := &fleet.Fleet{Local: local}
	return runner.Bind(r.Settings.Env(), func(ctx context.Context, opts runner.Options) (*report.Latency, error) {
		switch {
		case r.Target != nil:
			rep, err := (&target.Engine{Local: local}).Run(ctx, opts, r.Target)
			if err == nil {
				build.JudgeTarget(rep, r.Rule)
			}
			return rep, err
		case !r.Instances:
			return local.Latency(ctx, opts)
		}
		rep, err := instances.Run(ctx, opts)
		if err == nil && r.Summary && rep.InstancesResult != nil {
			rep.Requests = nil
		}
		return rep, err
	})
}
