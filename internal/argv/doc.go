// Package argv writes a command line as a person would type it into a
// shell: the one form in which every message, header and plot title shows
// someone's command (run -- CMD, latency --serve, sample -- CMD), so that
// it can be copied back into a shell and run.
//
// Line quotes only where a shell would split or expand (single quotes); it
// knows nothing of what the command is for.
package argv
