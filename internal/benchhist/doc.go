// Package benchhist keeps the history of `make bench`: each run's figures,
// one JSON line per benchmark and run, appended to a file of that
// benchmark's own under a history directory (bench/history in the
// repository), and bench-check's test of the newest run against the runs
// before it.
//
// Reading go test's output is golang.org/x/perf/benchfmt's (Parse); the
// test is stats.UTest, the project's Mann-Whitney U test; the rest is
// plain data: a Line, where its file goes (Path), appending it whole
// (Append), reading a history back (Load), judging it (Check) and its
// table (Write). Nothing here prints; warnings are data.
//
// The thin command is test/bench/benchhist; `make bench` appends, `make
// bench-check` judges. It may not parse the benchmark format by hand or
// test with another U test.
package benchhist
