package options

import (
	"context"
	"io"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/kube"
	"github.com/throttlebench/throttlebench/internal/plan"
)

// Run are run's flags as given: the shared ones, and
// --sonobuoy-results, the directory a Sonobuoy plugin's result goes to
// (sweep --emit sonobuoy writes the plugin that gives it).
type Run struct {
	Run             *Shared
	SonobuoyResults string
}

// Resolve checks every flag, before anything is made, and gives the one
// configuration's settings and its plan. args are what
// came after -- (a command to measure), dash where -- was; formats are
// those run writes.
func (o *Run) Resolve(ctx context.Context, changed func(string) bool, args []string, dash int, formats []string, stderr io.Writer) (Settings, plan.Options, error) {
	f := o.Run
	if err := badinput.Choice("format", f.Format, formats); err != nil {
		return Settings{}, plan.Options{}, err
	}
	if err := f.TakeCommand("run", args, dash, changed, true); err != nil {
		return Settings{}, plan.Options{}, err
	}
	s, err := f.Settings(ctx, changed, stderr)
	if err != nil {
		return s, plan.Options{}, err
	}
	cfg, err := config.Resolve(f.Given(changed))
	if err != nil {
		return s, plan.Options{}, err
	}
	if o.SonobuoyResults != "" {
		// A plugin's raw result is the JSON result.
		format := f.Format
		if !changed("format") {
			format = "json"
		}
		output := ""
		if changed("output") {
			output = f.Output
		}
		if err := kube.CheckResultsDir(o.SonobuoyResults, output, format); err != nil {
			return s, plan.Options{}, err
		}
	}
	h, err := s.Options(cfg)
	return s, h, err
}
