// Command throttlebench measures what Linux CFS bandwidth control (cgroup CPU
// quota, period and burst) does to a CPU-bound workload.
//
// Each command has a file here that wires cobra to the packages: flags
// into options, then a call; logic belongs in the packages. Exit codes are
// mapped in one place (exit.go: bad input, a badinput.Error from whichever
// package found it, exits 2). output.go holds the one format rule (text
// unless --format or -o's extension says otherwise); warnings.go shows a
// result's warnings on stderr once, wherever the output does not show
// them; terminal.go finds how wide a text table may be (the terminal's, 80
// for a pipe or a file) and draws the progress bar only on a terminal.
package main
