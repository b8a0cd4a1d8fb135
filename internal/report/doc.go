// Package report defines the JSON results (the contract documented in
// docs/run.md, "The JSON result"), writes them and reads them back (Load).
// It is a leaf: every command that reads or renders results imports it, so
// it names no other package of throttlebench; building a result from a run's samples is
// internal/report/build's, text and the Go benchmark format
// internal/render's.
//
// Keys name their unit, or the object they sit in does. Load reads an
// object, an array or JSON Lines (ErrInput for what is none); NodeEnv and
// NodeName carry the node a pod ran on.
package report
