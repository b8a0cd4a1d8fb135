package runopts

import (
	"context"
	"io"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/modes"
	"github.com/throttlebench/throttlebench/internal/runner"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// Sweep are sweep's flags as given: the shared ones, --emit's, and its
// own. One set of flags for three modes: run here, --emit (write the
// sweep for a cluster), --from (show results read back).
type Sweep struct {
	Run        *Flags
	Plot       string
	Quiet      bool
	MaxConfigs int
	Emit       kube.Flags
	From       string
}

// SweepMode is which of sweep's modes the flags ask for.
type SweepMode int

// Sweep's modes.
const (
	SweepHere SweepMode = iota
	SweepEmit
	SweepFrom
)

// Mode checks what the modes refuse before they part (an --emit flag
// without --emit), takes the command after --, and says which mode runs.
func (o *Sweep) Mode(g modes.Given, args []string, dash int) (SweepMode, error) {
	emit := g.Changed("emit")
	if !emit {
		if err := modes.Refuse(modes.SweepHere, g); err != nil {
			return 0, err
		}
	}
	if err := o.Run.TakeCommand("sweep", args, dash, g.Changed, !emit); err != nil {
		return 0, err
	}
	switch {
	case g.Changed("from"):
		return SweepFrom, nil
	case emit:
		return SweepEmit, nil
	}
	return SweepHere, nil
}

// CheckFrom refuses what --from cannot take, and checks how the results
// are shown, before the file is read.
func (o *Sweep) CheckFrom(g modes.Given) error {
	if err := modes.Refuse(modes.SweepFrom, g); err != nil {
		return err
	}
	if err := badinput.Choice("format", o.Run.Format, sweep.Formats); err != nil {
		return err
	}
	if err := config.Plot(o.Plot); err != nil {
		return err
	}
	return config.Output("output", o.Run.Output)
}

// EmitRequest checks --emit's flags and plans the sweep to write instead
// of running it. The plan is run's own (Flags.Plan: --cgroup-version,
// --timeout, --max-configs, the axes), with the settings that are the
// pods' rather than this machine's left to the emitter: the cgroup mode
// (the pods measure their own) and the output (a directory for sonobuoy).
// commandLine is the sweep's, for the header of what is written; the
// caller says what is skipped (Request.Skipped).
func (o *Sweep) EmitRequest(ctx context.Context, g modes.Given, stdin io.Reader, commandLine string, stderr io.Writer) (kube.Request, error) {
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
	return kube.Request{
		Flags: o.Emit, Changed: changed, Stdin: stdin,
		Steps: steps, Given: o.Run.Given(changed), Pass: pass,
		Timeout: o.Run.Timeout, MaxConfigs: o.MaxConfigs,
		Output: o.Run.Output, CommandLine: commandLine, Now: time.Now(),
	}, nil
}
