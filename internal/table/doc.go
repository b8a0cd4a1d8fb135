// Package table is the one table model of throttlebench's outputs for
// people and spreadsheets, and its renderers: aligned text, CSV and
// markdown. run, sweep and compare build a Table; how a cell is escaped,
// padded or quoted is decided here and nowhere else.
//
// The JSON outputs are not tables: each has a schema of its own (report,
// compare), with units in the key names.
//
// configs.go lays out every table with a row per configuration (Configs,
// Ranked); fit.go fits a table to a View's width (Fit keeps the keys that
// vary and the headlines, cuts the least important metrics), Pick takes a
// --columns list for markdown and CSV, which are never cut. It may not know
// the terminal: the command hands in the width.
package table
