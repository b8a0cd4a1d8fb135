// Package words is how throttlebench says things to people that are not
// figures, each in one form everywhere:
//
//   - counts (N, F, Noun): "1 CPU", "2 CPUs", "0 jobs", so that no line
//     says "1 configurations" (issue 28); a count in a line for people goes
//     through it rather than a plural made by hand. One line keeps its
//     hand-made plural: compare's "N configuration(s) only in old", which
//     the compare goldens record word for word;
//   - command lines (Argv, Quote): someone's command as it would be typed
//     into a shell, quoted only where a shell would split or expand, so
//     that every message, header and plot title can be copied back and run;
//   - a failed process's stderr (WithStderr, StderrLines, SplitStderr): the
//     last StderrMaxLines lines, each on a line of its own, indented, after
//     the message (a Python traceback stays readable). The message crosses
//     the workload child's pipe as text, so the form is the contract:
//     SplitStderr takes it apart again for the one place that prints errors.
//
// It knows nothing of what it counts, whose command it quotes or which
// process failed.
package words
