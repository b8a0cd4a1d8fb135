package main

import (
	"os"
	"testing"

	"github.com/throttlebench/throttlebench/internal/childproto"
)

// TestMain lets this test binary be the workload child. A test that runs a
// real configuration (as root) re-executes the running binary, this one,
// as the child; without this it would run every test again instead, each
// of which may start a child of its own: a chain of thousands of processes
// and slices, once, until the test timeout ended it.
//
// With asCLI=1 in its environment it is throttlebench itself, for a test
// that needs a fresh process (inspect's GOMAXPROCS as the process started).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == childproto.Arg || os.Getenv(asCLI) == "1" {
		os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr, false))
	}
	os.Exit(m.Run())
}

const asCLI = "THROTTLEBENCH_TEST_AS_CLI"
