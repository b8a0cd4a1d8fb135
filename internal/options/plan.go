package options

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/sweep"
)

// Plan checks the flags of a command that takes lists (sweep, latency) and
// turns them into its configurations (sweep.Plan), all before anything
// runs: bad input exits 2 with nothing created. columns are the names
// --columns may give for configurations with those keys (the swept flags);
// nil where there is no table (sweep --emit).
func (o *Shared) Plan(ctx context.Context, command config.Command, changed func(string) bool, formats []string, plotPath string, maxConfigs int,
	columns func(keys []string) []string, stderr io.Writer) (Settings, []sweep.Step, error) {
	if err := badinput.Choice("format", o.Format, formats); err != nil {
		return Settings{}, nil, err
	}
	if err := Plot(plotPath); err != nil {
		return Settings{}, nil, err
	}
	if err := sweep.CheckMaxConfigs(maxConfigs); err != nil {
		return Settings{}, nil, err
	}
	s, err := o.Settings(ctx, changed, stderr)
	if err != nil {
		return s, nil, err
	}
	given := o.Given(changed)
	cpus, hasCPUs := given["cpus"]
	if hasCPUs {
		given["cpus"] = config.CPUsList(cpus) // 500m as 0.5: the list's numbers
	}
	if err := config.CheckUnits(given); err != nil {
		return s, nil, err
	}
	spec := sweep.SpecFor(command, given)
	spec.MaxConfigs, spec.Options, spec.NumCPU = maxConfigs, s.Options, runtime.NumCPU()
	steps, err := sweep.Plan(spec)
	var ce *badinput.Error
	if hasCPUs && errors.As(err, &ce) && ce.Param == "cpus" {
		// The list as the user wrote it, not as rewritten.
		ce.Msg = strings.Replace(ce.Msg, strconv.Quote(given["cpus"]), strconv.Quote(cpus), 1)
	}
	if err != nil || columns == nil {
		return s, steps, err
	}
	s.Columns, err = config.Columns(o.Columns, o.Format, columns(steps[0].Config.Flags()))
	return s, steps, err
}
