// Package golden compares test output with the files under a package's
// testdata/, and rewrites them when the test runs with -update. It is for
// tests only.
package golden
