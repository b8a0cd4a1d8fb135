// Package stderrtail puts the end of a process's stderr into an error
// message, the one way `run -- CMD`'s command and `latency --serve`'s
// server say why they failed: the last MaxLines lines, each on a line of
// its own, indented, after the message (a Python traceback stays
// readable), never one long line. The message crosses the workload
// child's pipe as text, so the form is the contract: Split takes it apart
// again for the one place that prints errors.
//
// It knows nothing of which process failed.
package stderrtail
