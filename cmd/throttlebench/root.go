package main

import (
	"io"

	"github.com/spf13/cobra"
)

// factory is what every command takes from the process it runs in: its
// streams (cli/cli's cmdutil.Factory, in small). A test hands its own.
type factory struct{ Stdout, Stderr io.Writer }

// newRootCmd builds the command tree. *started is set once a command's own
// code runs: an error before that (unknown command, wrong arguments) is a
// usage error.
func newRootCmd(stdout, stderr io.Writer, started *bool) *cobra.Command {
	root := &cobra.Command{
		Use:   "throttlebench",
		Short: "Measure what cgroup CPU limits (CFS quota, period, burst) do to a CPU-bound workload",
		Long: `throttlebench runs a workload (bcrypt batches on N worker threads, or your own
command) inside a cgroup slice it creates with the CFS period, quota and
burst you ask for, or inside the limits it finds itself in (a container, a
pod), and reports duration statistics beside the kernel's own throttling
counters: as text, or in the other formats a command's --format lists
(JSON, CSV, Markdown...), which -o's extension also picks.`,
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			*started = true
			return formatFromOutput(cmd)
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Flag syntax errors are usage errors too: exit 2, one line.
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return flagError(cmd, err) })
	// Each command resolves its flags in one call (internal/options) and
	// hands what they resolve to to its engine: the factory's method of
	// the command's name here, a recorder in a test of its flags.
	f := &factory{Stdout: stdout, Stderr: stderr}
	root.AddCommand(newCmdRun(f, f.run), newCmdSweep(f, f.sweep), newCmdCompare(f, f.compare), newCmdCleanup(f, f.cleanup),
		newCmdSample(f, f.sample), newCmdLatency(f, f.latency), newCmdSimulate(f, f.simulate), newCmdInspect(f, f.inspect),
		newCmdCollect(f, f.collect), newCmdShow(f, f.show), newCmdSize(f, f.size), newCmdVersion(f))
	return root
}
