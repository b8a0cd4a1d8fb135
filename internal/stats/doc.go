// Package stats holds the pure numeric helpers throttlebench uses to
// summarise measured samples and to compute what the CFS bandwidth model
// predicts for them.
//
// Everything here works on []float64 in whatever unit the caller chooses
// (nanoseconds, seconds, ...); no function does I/O, and no function
// modifies a slice it is given.
package stats
