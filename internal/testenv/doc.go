// Package testenv is what tests share about the machine they run on: one
// rule for a test whose precondition is missing. Outside CI such a test
// skips, saying why; in CI (CI=true, as root, on a host that has what the
// suite needs) a skip would hide a regression, so it fails instead.
// Only tests import it.
//
// SkipOrFail and NeedRoot are the rule; Run runs a command for its output
// and exit code, as the suites that drive the binary or kubectl do.
package testenv
