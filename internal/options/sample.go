package options

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
	"github.com/throttlebench/throttlebench/internal/config"
	"github.com/throttlebench/throttlebench/internal/usage"
)

// Sample are the sample command's flags as given.
type Sample struct {
	Cgroup, PID, Interval, Duration, Limit, Target string
	Period                                         string
	Format, Output, Plot                           string
	Trace                                          bool
	TraceOut                                       string
	// Command is what came after -- (sample -- CMD [ARGS...]); Dash is
	// where -- was among the arguments (cobra's ArgsLenAtDash: -1 without).
	Command []string
	Dash    int
}

// Resolve checks every flag before anything is read; bad input is a
// badinput.Error.
func (f Sample) Resolve() (usage.Options, error) {
	o := usage.Options{Cgroup: f.Cgroup, Format: f.Format, Output: f.Output, Plot: f.Plot, PIDGiven: f.PID,
		Trace: f.Trace || f.TraceOut != "", TraceOut: f.TraceOut}
	if err := config.NeedsUnit("interval", f.Interval); err != nil {
		return o, err
	}
	if err := config.NeedsUnit("duration", f.Duration); err != nil {
		return o, err
	}
	var err error
	if o.Interval, err = time.ParseDuration(f.Interval); err != nil || o.Interval < usage.MinInterval || o.Interval > usage.MaxInterval {
		return o, badinput.Errorf("interval", "invalid --interval %q: want a duration between %v and %v, such as 100ms", f.Interval, usage.MinInterval, usage.MaxInterval)
	}
	o.Duration, err = time.ParseDuration(f.Duration)
	if err != nil || o.Duration != 0 && (o.Duration < o.Interval || o.Duration > usage.MaxDuration) {
		return o, badinput.Errorf("duration", "invalid --duration %q: want 0 (until Ctrl-C) or a duration between --interval %v and %v", f.Duration, o.Interval, usage.MaxDuration)
	}
	if f.Limit != "" {
		var ok bool
		if o.Limit, ok = config.ParseCPUs(f.Limit); !ok || !(o.Limit > 0 && o.Limit <= usage.MaxLimitCPUs) {
			return o, badinput.Errorf("limit", "invalid --limit %q: want a number of CPUs above 0 and at most %d, such as 4, 0.5 or 500m", f.Limit, usage.MaxLimitCPUs)
		}
	}
	if o.Period, err = config.MicroDuration("period", f.Period); err != nil {
		return o, err
	}
	if o.Period < config.MinPeriod || o.Period > config.MaxPeriod {
		return o, badinput.Errorf("period", "invalid --period %q: must be between %v and %v", f.Period, config.MinPeriod, config.MaxPeriod)
	}
	pct, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f.Target), "%")), 64)
	if err != nil || !(pct > 0 && pct < 100) {
		return o, badinput.Errorf("target", "invalid --target %q: want a percentage between 0 and 100 (exclusive), such as 1 or 1%%", f.Target)
	}
	o.Target = pct / 100
	if f.PID != "" {
		if o.PID, err = strconv.Atoi(f.PID); err != nil || o.PID < 1 {
			return o, badinput.Errorf("pid", "invalid --pid %q: want a process ID, a whole number from 1", f.PID)
		}
		if f.Cgroup != "" {
			return o, badinput.Errorf("pid", "--pid %q conflicts with --cgroup %q: name the cgroup one way", f.PID, f.Cgroup)
		}
	}
	if len(f.Command) > 0 {
		if f.Dash != 0 {
			return o, badinput.Errorf("command", "unexpected argument %q: a command to start and sample goes after --: throttlebench sample [flags] -- CMD [ARGS...]", f.Command[0])
		}
		if f.Cgroup != "" || f.PID != "" {
			return o, badinput.Errorf("command", "the command after -- conflicts with --cgroup or --pid: sample samples the slice it starts the command in")
		}
		if _, err := exec.LookPath(f.Command[0]); err != nil {
			return o, badinput.Errorf("command", "invalid command %q: %v", f.Command[0], errors.Unwrap(err))
		}
		o.Command = f.Command
	}
	if err := badinput.Choice("format", f.Format, usage.Formats); err != nil {
		return o, err
	}
	if err := Output("output", f.Output); err != nil {
		return o, err
	}
	if err := Output("trace-out", f.TraceOut); err != nil {
		return o, err
	}
	if err := Plot(f.Plot); err != nil {
		return o, err
	}
	return o, nil
}
