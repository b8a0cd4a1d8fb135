// Package stats holds the pure numeric helpers throttlebench uses to
// summarise measured samples and to compare two sets of them. What the CFS
// bandwidth model predicts is internal/model's.
//
// Everything here works on []float64 in whatever unit the caller chooses
// (nanoseconds, seconds, ...); no function does I/O, and no function
// modifies a slice it is given.
//
// Summaries take mean and variance from gonum/stat; Quantile is R-7, which
// gonum has no method for (summary.go says why); QuantileCI is exact, from
// gonum's binomial CDF. MedianCI, compare's, is benchstat's interval and
// UTest benchstat's Mann-Whitney U test, both go-moremath's. It may not
// know what a cgroup is.
package stats
