package options

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
	"github.com/throttlebench/throttlebench/internal/plan"
	"github.com/throttlebench/throttlebench/internal/runspec"
	"github.com/throttlebench/throttlebench/internal/size"
	"github.com/throttlebench/throttlebench/internal/sizing"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// SizeBusyChoices are --busy's values: a window whose result says others kept
// the machine busy is refused (no verdict, another taken in its place), or
// counted, marked busy. Refusing is right where the noise passes; on a
// machine that is never quiet (a shared runner, a node) it leaves every
// level undecided, and counting errs towards more CPU for an absolute
// target, since competition only slows the windows.
var SizeBusyChoices = []string{"refuse", "count"}

// size's window defaults: the open loop's length, and the closed loop's
// iterations (run's --iterations default).
const (
	SizeOpenWindow   = 2 * time.Second
	SizeClosedWindow = 5
)

// Size are size's flags as given: the shared ones (latency's and run's
// parameters, where and how to run) and its own.
type Size struct {
	Run                    *Shared
	SLO                    string
	CPUsMin, CPUsMax, Step string
	Confidence             float64
	Window                 string
	Budget                 time.Duration
	// Plot is --plot: the figure against the quota, every window a point.
	Plot string
	// Busy is --busy: what a window on a busy machine is (SizeBusyChoices).
	Busy string
	// Target is latency's --target, which size takes with --serve only.
	Target Target
}

// Resolve checks every flag, before anything is made. args are what came
// after -- (a command to measure), dash where -- was.
func (o *Size) Resolve(ctx context.Context, g Given, args []string, dash int, stderr io.Writer) (s Settings, p sizing.Plan, err error) {
	f := o.Run
	if o.SLO == "" {
		return s, p, badinput.Errorf("slo", "--slo is required: the target each window must meet, such as p99<=50ms or mean<=1.2x (of the unlimited arm's)")
	}
	if err := Refuse(SizeSearch, g); err != nil {
		return s, p, err
	}
	command := config.Batch
	for _, name := range OpenOnly() {
		if g.Changed(name) {
			p.Open, command = true, config.Latency
			break
		}
	}
	if o.Target.URL != "" || g.Changed("target") {
		if !o.Target.Serve {
			return s, p, badinput.Errorf("target", "--target %q needs --serve -- CMD with size: a server already running keeps the limits it has, and size sets one per window", o.Target.URL)
		}
		tr, err := o.Target.Resolve(g, args, dash, TargetRun{Mode: f.Mode, Version: f.Version})
		if err != nil {
			return s, p, err
		}
		p.Target, p.Rule, p.Open, command, args = tr.Target, tr.Rule, true, config.Latency, nil
	} else if err := Refuse(LatencyBuiltIn, g); err != nil {
		return s, p, err
	}
	if p.Open {
		if err := Refuse(SizeOpen, g); err != nil {
			return s, p, err
		}
		if len(args) > 0 {
			return s, p, badinput.Errorf("command", "unexpected command %q: a command after -- is measured by the closed loop, and an open-loop parameter (--rate, --work, …) was given: give one loop's", args[0])
		}
	}
	if f.Mode == plan.ModeCurrent {
		return s, p, badinput.Errorf("cgroup", "--cgroup %q cannot be used with size: each window runs at its own quota, in a slice of its own", f.Mode)
	}
	if err := badinput.Choice("format", f.Format, sizing.Formats); err != nil {
		return s, p, err
	}
	if err := f.TakeCommand("size", args, dash, g.Changed, true); err != nil {
		return s, p, err
	}
	p.Argv = f.Argv
	metric := size.Durations
	if p.Open {
		metric = size.ResponseTimes
	}
	if p.SLO, err = size.ParseSLO(o.SLO, metric); err != nil {
		return s, p, err
	}
	given := f.Given(g.Changed)
	if err := config.CheckUnits(given); err != nil {
		return s, p, err
	}
	burst := given["burst"]
	if p.Bursts, err = bursts(burst); err != nil {
		return s, p, err
	}
	delete(given, "burst")
	if err := o.window(&p, given); err != nil {
		return s, p, err
	}
	if p.Test, err = test(o.Confidence); err != nil {
		return s, p, err
	}
	if o.Budget < 0 {
		return s, p, badinput.Errorf("budget", "invalid --budget %v: want a duration above 0, or 0 for none", o.Budget)
	}
	p.Budget = o.Budget
	if err := Plot(o.Plot); err != nil {
		return s, p, err
	}
	p.Plot = o.Plot
	if err := badinput.Choice("busy", o.Busy, SizeBusyChoices); err != nil {
		return s, p, err
	}
	p.CountBusy = o.Busy == "count"
	if s, err = f.Settings(ctx, g.Changed, stderr); err != nil {
		return s, p, err
	}
	c, err := config.ResolveFor(command, given)
	if err != nil {
		return s, p, err
	}
	if p.Base, err = s.Options(c); err != nil {
		return s, p, err
	}
	if p.Grid, err = size.ParseGrid(o.CPUsMin, o.CPUsMax, o.Step, c.Limits.Period); err != nil {
		return s, p, err
	}
	// What Levels would refuse once the unlimited arm has run, refused now.
	if err := p.Grid.Check(runtime.NumCPU()); err != nil {
		return s, p, err
	}
	return s, p, checkBursts(burst, p.Bursts, p.Grid, runtime.NumCPU())
}

// window reads --window into the parameter it stands for: --duration of
// the open loop, --iterations of the closed loop.
func (o *Size) window(p *sizing.Plan, given map[string]string) error {
	if p.Open {
		d, v := SizeOpenWindow, o.Window
		if v != "" {
			if err := config.NeedsUnit("window", v); err != nil {
				return err
			}
			var err error
			if d, err = time.ParseDuration(v); err != nil || d < config.MinOpenDuration || d > config.MaxOpenDuration {
				return badinput.Errorf("window", "invalid --window %q: want the open loop's window as a duration, %v–%v, such as 2s", v, config.MinOpenDuration, config.MaxOpenDuration)
			}
		}
		given["duration"], p.Window, p.WindowLength = d.String(), d.String(), d
		return nil
	}
	n, v := SizeClosedWindow, o.Window
	if v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > runspec.MaxIterations {
			return badinput.Errorf("window", "invalid --window %q: want the closed loop's window as a number of iterations, 1–%d", v, runspec.MaxIterations)
		}
	}
	given["iterations"], p.Window = strconv.Itoa(n), strconv.Itoa(n)+" iterations"
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
