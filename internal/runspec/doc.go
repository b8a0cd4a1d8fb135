// Package runspec is what one run of the engine is asked to do, as plain
// data: the closed loop's ClosedLoop, the open loop's OpenLoop and its
// Instances, their bounds (MaxIterations, MaxRequests, MaxInitMemory), the
// arrival kinds, the --gomaxprocs rules, and Schedule, the arrivals an
// OpenLoop asks for, which depends on nothing else.
//
// internal/config imports it from below; bench, runner, childproto, fleet,
// target and the rest from above, as runc's configs sits below its
// managers. It must not import bench, host, cgroup or anything that touches
// the kernel, so that the configuration links no engine
// (TestConfigurationPullsNoMachinery).
package runspec
