// Package render writes a run's report for people and for benchstat: the
// short text summary and the Go benchmark format. The JSON schema and its
// writer stay with the report (internal/report); tables go through
// internal/table.
//
// It may not write JSON: that is internal/report's.
package render
