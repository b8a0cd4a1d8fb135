// Package runnertest is one fake kernel for the tests of the runner and of
// the engines on its core (internal/fleet, internal/target): the cgroup
// filesystem behind runner.Cgroups, its slices and the current cgroup, the
// host's and this process's CPU clocks, and a slice's guard. Every call is
// an event in one log, which a test reads for the order of things and
// steers with Fail, On and Hook. Only tests import it.
//
// It cannot import the runner, whose own tests import it, so a Kernel is
// runner.Cgroups through Cgroups, named with the runner's types:
// runnertest.Cgroups[runner.Slice, runner.Current]{k}.
package runnertest
