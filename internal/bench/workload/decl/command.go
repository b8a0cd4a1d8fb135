package decl

import (
	"encoding/json"
	"strings"

	"github.com/throttlebench/throttlebench/internal/report"
	"github.com/throttlebench/throttlebench/internal/words"
)

// The command: someone else's program, run once per iteration from a
// clean start (run -- CMD), as hyperfine runs it with -N: its argv as
// given, no shell. Its process and its CPU time are the iteration's.
var commandSpec = Spec{
	Name:  "command",
	Help:  "your own program, given after --: started once per iteration",
	Alone: true,
	Params: []Param{
		{Name: "command", Kind: Argv, Hidden: true,
			Help: "the command line run once per iteration (given after --, no shell)"},
		{Name: "prepare", Kind: Text,
			Help: "a command run through sh -c before each iteration of the command, outside the measurement (as hyperfine's --prepare)"},
		{Name: "show-output", JSON: "show_output", Kind: Flag,
			Help: "pass the command's stdout and stderr to throttlebench's stderr (default: discarded, the end of stderr kept for a failure)"},
		{Name: "ignore-failure", JSON: "ignore_failure", Kind: Flag,
			Help: "measure a command that exits non-zero as any other (default: the run fails, naming the iteration, the status and the end of stderr)"},
	},
	Text: func(c report.Config) string { return "command " + CommandLine(c.Params) },
	Key: func(c report.Config) []string {
		k := []string{CommandLine(c.Params)}
		if p := c.Params.String("prepare"); p != "" {
			k = append(k, "prepare="+p)
		}
		return k
	},
	Gobench: func(c report.Config) string {
		// A benchmark name is one field: no spaces.
		return "/command=" + strings.Join(strings.Fields(CommandLine(c.Params)), "_")
	},
}

// CommandArgv is a command workload's command line as its config holds it.
func CommandArgv(ps report.Params) []string {
	var argv []string
	if raw, ok := ps.Raw("command"); ok {
		_ = json.Unmarshal(raw, &argv)
	}
	return argv
}

// CommandLine is the command as a person would type it: each argument
// that a shell would split or expand quoted.
func CommandLine(ps report.Params) string {
	return words.Argv(CommandArgv(ps))
}
