package sizing

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/bandwidth"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/modes"
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/render"
	"github.com/throttlebench/throttlebench/internal/report/build"
	"github.com/throttlebench/throttlebench/internal/runopts"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/sweep"
	"github.com/throttlebench/throttlebench/internal/target"
	"github.com/throttlebench/throttlebench/internal/targetopts"
)

// Formats are what size writes: its own, and the recommendation in the
// formats CI tools read.
var Formats = append([]string{"text", "json"}, render.CIFormats...)

// BusyChoices are --busy's values: a window whose result says others kept
// the machine busy is refused (no verdict, another taken in its place), or
// counted, marked busy. Refusing is right where the noise passes; on a
// machine that is never quiet (a shared runner, a node) it leaves every
// level undecided, and counting errs towards more CPU for an absolute
// target, since competition only slows the windows.
var BusyChoices = []string{"refuse", "count"}

// Window defaults: the open loop's length, and the closed loop's
// iterations (run's --iterations default).
const (
	DefaultOpenWindow   = 2 * time.Second
	DefaultClosedWindow = 5
)

// Flags are size's flags as given: the shared ones (latency's and run's
// parameters, where and how to run) and its own.
type Flags struct {
	Run                    *runopts.Flags
	SLO                    string
	CPUsMin, CPUsMax, Step string
	Confidence             float64
	Window                 string
	Budget                 time.Duration
	// Plot is --plot: the figure against the quota, every window a point.
	Plot string
	// Busy is --busy: what a window on a busy machine is (BusyChoices).
	Busy string
	// Target is latency's --target, which size takes with --serve only.
	Target targetopts.Flags
}

// Plan is size resolved: how each window runs and what the search needs.
type Plan struct {
	Settings runopts.Settings
	// Open: the open loop's windows (latency's); else the closed loop's.
	Open   bool
	SLO    size.SLO
	Grid   size.Grid
	Test   size.Sequential
	Budget time.Duration
	Plot   string
	// CountBusy is --busy count: a window on a busy machine counts, marked
	// busy, where by default it is refused.
	CountBusy bool
	// Bursts are --burst's values, ascending: a search each ([0] without).
	Bursts []time.Duration
	// Window is a window's length as the result says it: "2s",
	// "5 iterations".
	Window string
	// WindowLength is an open-loop window's length, for the bar's estimate;
	// 0 for the closed loop's, whose length is what it measures.
	WindowLength time.Duration
	// Target is --target with --serve's server (nil without), each window
	// a fresh server in the slice; Rule judges its requests.
	Target *target.Target
	Rule   build.FailureRule
	// Argv is the command after -- (the closed loop), nil for none.
	Argv    []string
	command config.Command
	given   map[string]string
}

// Resolve checks every flag, before anything is made. args are what came
// after -- (a command to measure), dash where -- was.
func (o *Flags) Resolve(ctx context.Context, g modes.Given, args []string, dash int, stderr io.Writer) (Plan, error) {
	f := o.Run
	if o.SLO == "" {
		return Plan{}, badinput.Errorf("slo", "--slo is required: the target each window must meet, such as p99<=50ms or mean<=1.2x (of the unlimited arm's)")
	}
	if err := modes.Refuse(modes.Size, g); err != nil {
		return Plan{}, err
	}
	p := Plan{command: config.Batch}
	for _, name := range modes.OpenOnly() {
		if g.Changed(name) {
			p.Open, p.command = true, config.Latency
			break
		}
	}
	if o.Target.URL != "" || g.Changed("target") {
		if !o.Target.Serve {
			return p, badinput.Errorf("target", "--target %q needs --serve -- CMD with size: a server already running keeps the limits it has, and size sets one per window", o.Target.URL)
		}
		tr, err := o.Target.Resolve(g, args, dash, targetopts.Run{Mode: f.Mode, Version: f.Version})
		if err != nil {
			return p, err
		}
		p.Target, p.Rule, p.Open, p.command, args = tr.Target, tr.Rule, true, config.Latency, nil
	} else if err := modes.Refuse(modes.LatencyBuiltIn, g); err != nil {
		return p, err
	}
	if p.Open {
		if err := modes.Refuse(modes.SizeOpen, g); err != nil {
			return p, err
		}
		if len(args) > 0 {
			return p, badinput.Errorf("command", "unexpected command %q: a command after -- is measured by the closed loop, and an open-loop parameter (--rate, --work, …) was given: give one loop's", args[0])
		}
	}
	if f.Mode == plan.ModeCurrent {
		return p, badinput.Errorf("cgroup", "--cgroup %q cannot be used with size: each window runs at its own quota, in a slice of its own", f.Mode)
	}
	if err := badinput.Choice("format", f.Format, Formats); err != nil {
		return p, err
	}
	if err := f.TakeCommand("size", args, dash, g.Changed, true); err != nil {
		return p, err
	}
	p.Argv = f.Argv
	metric := size.Durations
	if p.Open {
		metric = size.ResponseTimes
	}
	var err error
	if p.SLO, err = size.ParseSLO(o.SLO, metric); err != nil {
		return p, err
	}
	p.given = f.Given(g.Changed)
	if err := config.CheckUnits(p.given); err != nil {
		return p, err
	}
	burst := p.given["burst"]
	if p.Bursts, err = bursts(burst); err != nil {
		return p, err
	}
	delete(p.given, "burst")
	if err := o.window(&p); err != nil {
		return p, err
	}
	if p.Test, err = test(o.Confidence); err != nil {
		return p, err
	}
	if o.Budget < 0 {
		return p, badinput.Errorf("budget", "invalid --budget %v: want a duration above 0, or 0 for none", o.Budget)
	}
	p.Budget = o.Budget
	if err := config.Plot(o.Plot); err != nil {
		return p, err
	}
	p.Plot = o.Plot
	if err := badinput.Choice("busy", o.Busy, BusyChoices); err != nil {
		return p, err
	}
	p.CountBusy = o.Busy == "count"
	if p.Settings, err = f.Settings(ctx, g.Changed, stderr); err != nil {
		return p, err
	}
	c, err := config.ResolveFor(p.command, p.given)
	if err != nil {
		return p, err
	}
	if _, err := p.Settings.Options(c); err != nil {
		return p, err
	}
	if p.Grid, err = size.ParseGrid(o.CPUsMin, o.CPUsMax, o.Step, c.Limits.Period); err != nil {
		return p, err
	}
	// What Levels would refuse once the unlimited arm has run, refused now.
	if err := p.Grid.Check(runtime.NumCPU()); err != nil {
		return p, err
	}
	return p, checkBursts(burst, p.Bursts, p.Grid, runtime.NumCPU())
}

// window reads --window into the parameter it stands for: --duration of
// the open loop, --iterations of the closed loop.
func (o *Flags) window(p *Plan) error {
	if p.Open {
		d, v := DefaultOpenWindow, o.Window
		if v != "" {
			if err := config.NeedsUnit("window", v); err != nil {
				return err
			}
			var err error
			if d, err = time.ParseDuration(v); err != nil || d < config.MinOpenDuration || d > config.MaxOpenDuration {
				return badinput.Errorf("window", "invalid --window %q: want the open loop's window as a duration, %v–%v, such as 2s", v, config.MinOpenDuration, config.MaxOpenDuration)
			}
		}
		p.given["duration"], p.Window, p.WindowLength = d.String(), d.String(), d
		return nil
	}
	n, v := DefaultClosedWindow, o.Window
	if v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > runspec.MaxIterations {
			return badinput.Errorf("window", "invalid --window %q: want the closed loop's window as a number of iterations, 1–%d", v, runspec.MaxIterations)
		}
	}
	p.given["iterations"], p.Window = strconv.Itoa(n), strconv.Itoa(n)+" iterations"
	return nil
}

// test is the sequential test at --confidence.
func test(c float64) (size.Sequential, error) {
	t := size.DefaultSequential()
	t.Confidence = c
	if !(c >= 0.5 && c < 1) {
		return t, badinput.Errorf("confidence", "invalid --confidence %v: want a probability from 0.5 to below 1, such as 0.95", c)
	}
	if err := t.Check(); err != nil {
		return t, badinput.Errorf("confidence", "invalid --confidence %v: %v", c, err)
	}
	if t.MinWindows() > t.LevelWindows {
		return t, badinput.Errorf("confidence", "invalid --confidence %v: a level would need %d windows to pass, above the cap of %d", c, t.MinWindows(), t.LevelWindows)
	}
	return t, nil
}

// Options is one window's run at cpus (math.Inf(1): unlimited) and burst,
// as latency or run would plan it with --cpus and --burst given.
func (p Plan) Options(cpus float64, burst time.Duration) (plan.Options, error) {
	given := make(map[string]string, len(p.given)+2)
	for k, v := range p.given {
		given[k] = v
	}
	if !math.IsInf(cpus, 1) {
		given["cpus"] = strconv.FormatFloat(cpus, 'f', -1, 64)
	}
	if burst > 0 {
		given["burst"] = burst.String()
	}
	c, err := config.ResolveFor(p.command, given)
	if err != nil {
		return plan.Options{}, err
	}
	o, err := p.Settings.Options(c)
	// The harness's floor is the same at every limit: the unlimited arm's
	// windows measure it, a level's skip the second it costs.
	o.Open.NoFloor = !math.IsInf(cpus, 1)
	return o, err
}

// Period is the grid's period.
func (p Plan) Period() time.Duration { return p.Grid.Period }

// bursts reads --burst as latency does (the same list or range, each value
// checked by the same parameter): the bursts searched, ascending, each
// once ("" is 0 alone).
func bursts(v string) ([]time.Duration, error) {
	if v == "" {
		return []time.Duration{0}, nil
	}
	p, _ := config.Lookup("burst")
	values, err := sweep.Expand(v, p.Kind, p.Words...)
	if err != nil {
		return nil, badinput.Errorf("burst", "invalid --burst %q: %v", v, err)
	}
	var out []time.Duration
	for _, value := range values {
		if err := p.Check(value); err != nil {
			return nil, err
		}
		d, _ := time.ParseDuration(value) // checked
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out, nil
}

// checkBursts refuses a burst that no level of the grid can hold: the
// kernel takes a burst up to the quota, and the highest level's is the
// most there is (size.Grid.Top: --cpus-max, or the highest default). A
// burst above only the lower levels' quota is searched above them.
func checkBursts(spec string, bursts []time.Duration, g size.Grid, numCPU int) error {
	top := g.Top(numCPU)
	if math.IsInf(top, 1) {
		return nil
	}
	most := bandwidth.Quota(top, g.Period)
	if b := bursts[len(bursts)-1]; b > most {
		where := fmt.Sprintf("--cpus-max %s", strconv.FormatFloat(top, 'f', -1, 64))
		if g.Max == 0 {
			where = fmt.Sprintf("at most %s CPUs: the highest default --cpus-max on this %d-CPU machine", strconv.FormatFloat(top, 'f', -1, 64), numCPU)
		}
		return badinput.Errorf("burst", "invalid --burst %q: %v is above the quota of every level, at most %v per %v period (%s); the kernel takes a burst up to the quota", spec, b, most, g.Period, where)
	}
	return nil
}
