package options

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// Sweep are sweep's flags as given: the shared ones, --emit's, and its
// own. One set of flags for three modes: run here, --emit (write the
// sweep for a cluster), --from (show results read back).
type Sweep struct {
	Run        *Shared
	Plot       string
	Quiet      bool
	MaxConfigs int
	Emit       Emit
	From       string
}

// SweepMode is which of sweep's modes the flags ask for.
type SweepMode int

// Sweep's modes: run the sweep here, write it for a cluster (--emit),
// show results read back (--from).
const (
	SweepToRun SweepMode = iota
	SweepToEmit
	SweepToShow
)

// Mode checks what the modes refuse before they part (an --emit flag
// without --emit), takes the command after --, and says which mode runs.
func (o *Sweep) Mode(g Given, args []string, dash int) (SweepMode, error) {
	emit := g.Changed("emit")
	if !emit {
		if err := Refuse(SweepHere, g); err != nil {
			return 0, err
		}
	}
	if err := o.Run.TakeCommand("sweep", args, dash, g.Changed, !emit); err != nil {
		return 0, err
	}
	switch {
	case g.Changed("from"):
		return SweepToShow, nil
	case emit:
		return SweepToEmit, nil
	}
	return SweepToRun, nil
}

// CheckFrom refuses what --from cannot take, and checks how the results
// are shown, before the file is read.
func (o *Sweep) CheckFrom(g Given) error {
	if err := Refuse(SweepFrom, g); err != nil {
		return err
	}
	if err := badinput.Choice("format", o.Run.Format, sweep.Formats); err != nil {
		return err
	}
	if err := Plot(o.Plot); err != nil {
		return err
	}
	return Output("output", o.Run.Output)
}

// EmitRequest checks --emit's flags and plans the sweep to write instead
// of running it. The plan is run's own (Flags.Plan: --cgroup-version,
// --timeout, --max-configs, the axes), with the settings that are the
// pods' rather than this machine's left to the emitter: the cgroup mode
// (the pods measure their own) and the output (a directory for sonobuoy).
// commandLine is the sweep's, for the header of what is written; the
// caller says what is skipped (Request.Skipped).
func (o *Sweep) EmitRequest(ctx context.Context, g Given, stdin io.Reader, commandLine string, stderr io.Writer) (kube.Request, error) {
	changed := g.Changed
	if err := o.Emit.Check(changed, g.Value, o.Run.Mode); err != nil {
		return kube.Request{}, err
	}
	if o.Run.Argv != nil && !changed("image") {
		// The default image holds throttlebench alone (FROM scratch).
		return kube.Request{}, badinput.Errorf("image", "a command in the Jobs (%s) needs --image naming an image that holds it and throttlebench at %s", o.Run.Argv[0], kube.Entrypoint)
	}
	planned := *o.Run
	planned.Mode, planned.Output = runner.ModeAuto, ""
	_, steps, err := planned.Plan(ctx, config.Batch, changed, sweep.Formats, "", o.MaxConfigs, nil, stderr)
	if err != nil {
		return kube.Request{}, err
	}
	var pass []string // run's settings, as the pods get them
	if changed("cgroup-version") {
		pass = append(pass, "--cgroup-version", o.Run.Version)
	}
	if changed("timeout") {
		pass = append(pass, "--timeout", o.Run.Timeout.String())
	}
	// The emit flags are resolved once the sweep is planned, so that a bad
	// parameter is named before a bad --image.
	eo, err := o.Emit.Resolve(changed, stdin, o.Run.Timeout, time.Now())
	if err != nil {
		return kube.Request{}, err
	}
	return kube.Request{
		Options: eo, Steps: steps, Given: o.Run.Given(changed), Pass: pass,
		MaxConfigs: o.MaxConfigs, Output: o.Run.Output, CommandLine: commandLine,
	}, nil
}

// SweepPlan is sweep resolved, for the mode its flags ask for (Mode).
type SweepPlan struct {
	Mode SweepMode
	// SweepToRun: how and where (Settings) each configuration (Steps) runs,
	// and what is drawn of them (Plot; "" for nothing). Quiet leaves out
	// the line before the sweep and the bar; Bar is false where a
	// command's output on stderr (--show-output) would cut its lines.
	Settings Settings
	Steps    []sweep.Step
	Plot     string
	Quiet    bool
	Bar      bool
	// SweepToEmit: the sweep to write for a cluster.
	Emit kube.Request
	// SweepToShow: the results file (--from) and how they are shown:
	// Format, Output and Plot checked, Columns as given (checked against
	// the results read).
	From, Format, Output, Columns string
}

// Resolve checks every flag for the mode they ask for, before anything is
// made or read: the sweep's configurations (SweepToRun), the sweep to
// write (SweepToEmit: commandLine, the sweep's own, heads what is
// written; stdin is --nodes-from -), or how results read back are shown
// (SweepToShow).
func (o *Sweep) Resolve(ctx context.Context, g Given, args []string, dash int, stdin io.Reader, commandLine string, stderr io.Writer) (SweepPlan, error) {
	mode, err := o.Mode(g, args, dash)
	p := SweepPlan{Mode: mode, Plot: o.Plot}
	switch {
	case err != nil:
		return p, err
	case mode == SweepToShow:
		p.From, p.Format, p.Output, p.Columns = o.From, o.Run.Format, o.Run.Output, o.Run.Columns
		return p, o.CheckFrom(g)
	case mode == SweepToEmit:
		if o.Run.Argv != nil {
			commandLine += " -- " + strings.Join(o.Run.Argv, " ")
		}
		p.Emit, err = o.EmitRequest(ctx, g, stdin, commandLine, stderr)
		return p, err
	}
	p.Quiet, p.Bar = o.Quiet, o.Run.Value("show-output") != "true"
	p.Settings, p.Steps, err = o.Run.Plan(ctx, config.Batch, g.Changed, sweep.Formats, o.Plot, o.MaxConfigs, sweep.Columns, stderr)
	return p, err
}
