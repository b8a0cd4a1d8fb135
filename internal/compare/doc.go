// Package compare matches the results of two sets of runs by configuration
// and tests each pair for a significant change in duration, in the manner of
// benchstat: the centre is the median, the spread a distribution-free
// confidence interval of the median, and the test a two-sided Mann-Whitney U
// test on the per-iteration durations. Load reads from an io.Reader,
// Compare computes, Write renders; warnings are data, never printed. The
// command's choices are resolved here too (flags.go: Flags.Resolve,
// LoadFile, Result.Failed), with config's errors.
//
// The U test (stats.UTest), the median's interval (stats.MedianCI,
// benchstat's, not stats.QuantileCI: they differ on purpose) and the test's
// bounds (UTestMinP, UTestNeededN) are internal/stats'. Matching keys
// are the ones the configuration declares, the node among them.
package compare
