// Package render writes a run's report for people and for the tools CI
// runs: the short text summary, and the formats CI benchmark tools read
// (the Go benchmark format for benchstat, github-action-benchmark's JSON,
// Bencher's BMF), each by one encoder over plain structs (Bench, Metric)
// that every result kind, and compare, fills. The JSON schema of results
// and its writer stay with the report (internal/report); tables go
// through internal/table.
//
// It may not write a result's JSON: that is internal/report's.
package render
