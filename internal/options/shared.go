package options

import (
	"encoding/json"
	"errors"
	"os/exec"
	"time"

	"github.com/throttlebench/throttlebench/internal/badinput"
)

// Shared are the flags run, sweep and latency share, as given: one per
// configuration parameter (config.Params), and the settings of where and
// how to run.
type Shared struct {
	// Values are the parameters' flags, by name, as given.
	Values  map[string]*string
	Mode    string // --cgroup
	Version string // --cgroup-version
	Driver  string // --cgroup-driver
	Parent  string
	Format  string
	Output  string
	Timeout time.Duration
	// --trace and --trace-out (run and latency), and run's --plot, the
	// traced window's timeline.
	Trace    bool
	TraceOut string
	Plot     string
	// Columns is --columns (sweep and latency).
	Columns string
	// Argv is run's and sweep's command, given after -- (TakeCommand).
	Argv []string
}

// NewShared is Flags with no parameter yet.
func NewShared() *Shared { return &Shared{Values: map[string]*string{}} }

// Value is a parameter's flag as given ("" for one the command has not).
func (o *Shared) Value(name string) string {
	if v, ok := o.Values[name]; ok {
		return *v
	}
	return ""
}

// Given are the parameters the user gave, by name.
func (o *Shared) Given(changed func(string) bool) map[string]string {
	out := map[string]string{}
	for name, v := range o.Values {
		if changed(name) {
			out[name] = *v
		}
	}
	if o.Argv != nil {
		argv, _ := json.Marshal(o.Argv)
		out["workload"], out["command"] = "command", string(argv)
	}
	return out
}

// TakeCommand takes the command after -- (run, sweep): the command
// workload's argv, as given. dash is where -- was among args (cobra's
// ArgsLenAtDash); command names the command for the message. One that
// cannot be found here is bad input, found before anything is made,
// unless it runs elsewhere (local false: sweep --emit, in the pods' image).
func (o *Shared) TakeCommand(command string, args []string, dash int, changed func(string) bool, local bool) error {
	if len(args) == 0 {
		return nil
	}
	if dash != 0 {
		return badinput.Errorf("command", "unexpected argument %q: a command to measure goes after --: throttlebench %s [flags] -- CMD [ARGS...]", args[0], command)
	}
	if changed("workload") {
		return badinput.Errorf("workload", "--workload %q conflicts with the command after --: give one of them", o.Value("workload"))
	}
	if _, err := exec.LookPath(args[0]); err != nil && local {
		return badinput.Errorf("command", "invalid command %q: %v", args[0], errors.Unwrap(err))
	}
	o.Argv = args
	return nil
}
