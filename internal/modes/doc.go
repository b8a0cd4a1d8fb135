// Package modes is the one table of the flags that a mode of a command
// refuses, and the line that says why: latency's three engines (built in,
// --instances, --target with or without --serve) and sweep's three modes
// (run here, --emit, --from) share one set of flags each, and what one
// mode cannot take is refused here and nowhere else.
//
// A mode's rules are checked in the order the table lists them, at the
// point where the command's resolver asks (Refuse): the first flag given
// that a rule names is refused with a badinput.Error (exit 2) before
// anything is made. Refusals that depend on a value rather than on a flag
// being given (--cgroup current with --instances, --concurrency with
// per-request) stay with the check of that value.
package modes
