// Package latency lays out the results of throttlebench latency: one row
// per configuration of the open loop, as a table (text, markdown, CSV) or
// JSON. The run itself is internal/runner's, the report report.Latency.
//
// It may not run anything: it lays out results it is given. target.go
// holds latency --target's header, columns and outcome lines.
package latency
