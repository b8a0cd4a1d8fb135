// Package show reads a saved result back and renders it as the command
// that wrote it did: the kind is recognised from the file's content (a
// Kind each: run, sweep, latency, sample, simulate, size), and each
// renders through the command's own renderers (internal/render,
// internal/sweep, internal/latency, internal/usage, internal/sizing,
// internal/plot). A new result kind is one Kind in Kinds.
//
// keys.go names each row by what differs between the results or from a
// flag's default, in config.AxesFor's order.
package show
