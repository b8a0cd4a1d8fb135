// Package collect recovers run results from what a cluster gives back: the
// logs kubectl prints for the pods of sweep --emit kubernetes (one or many,
// with or without --prefix and --timestamps, stderr lines mixed in), and
// the results tarball sonobuoy retrieve brings back from the plugins of
// sweep --emit sonobuoy. Every source that holds no result is listed with
// the reason, never dropped. Bytes in, results and reasons out; only Read
// (inputs.go) opens the files and directories the command names, once
// options.Collect.Check has refused bad ones.
//
// It may not run anything, or drop a source silently.
package collect
