//go:build !unix

package report

// kernelRelease is unknown off Unix.
func kernelRelease() string { return "" }
