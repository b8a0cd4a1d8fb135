#!/bin/sh
# Runs inside the VM (see ../run.sh for what the guest offers): the
# integration tests that cgroup v2 or the guest changes, on a pure cgroup
# v2 hierarchy with the cpu controller. The host lane (make test-host) runs
# every one of them, and the rest, on this host's v1; running the rest
# again here, under emulation, showed nothing new and took 326-609 s
# (test/vm/README.md, "What runs where"). CI=true turns every skip for a
# missing precondition into a failure.
#
# One test a line, with what it shows here; TestGuestListsTheV2Tests (on
# the host) checks that each name exists and that every test that skips
# off v2 is listed.
tests='
TestQuotaThrottles                    cpu.max written, throttling counted in cpu.stat, usage from usage_usec
TestBurstIsWrittenAndReported         cpu.max.burst, and burst counted
TestCurrentReportsTheEnclosingLimits  the enclosing cpu.max read ancestor by ancestor
TestParallelRunsDoNotCollide          sibling slices enabling +cpu in one parent at once
TestInvalidInputCreatesNothing        nothing created, cgroup.subtree_control included
TestWithoutPrivilege                  what a user who is not root may do on v2
TestNamedParentIsNotChanged           a --parent without +cpu refused, its subtree_control untouched
TestParentIsNeverCreated              the same for a --parent that is not there
TestCleanupNeverKills                 cleanup on v2 slices (cgroup.procs in one hierarchy)
TestDelegatedSubtree                  a subtree delegated to a user (v2 only)
TestCpusetWrittenAndReadBack          cpuset.cpus in the one hierarchy, beside cpu
TestCpusetInTheDefaultParent          +cpuset enabled in the default parent
TestCpusetNeedsItInANamedParent       a --parent without +cpuset refused
TestCpusetDefaultParentNeedsTheTop    the top must offer cpuset (v2 only)
TestCpusetParentKilledThenCleanup     a killed run'"'"'s cpuset slices cleaned up
TestContentionOfABusyLoopOnEachCPU    the threads read from cgroup.threads, and cpu.pressure (v2 only)
TestDefaultParentWeighs               the default parent'"'"'s cpu.weight written and read back, a named parent'"'"'s left
TestSignalsLeaveNothingBehind         SIGINT and SIGTERM: v2 slices removed
TestChildCrashLeavesNothingBehind     a crashed child: the same
TestTimeoutLeavesNothingBehind        --timeout: the same
TestParentKilledThenCleanup           SIGKILL of the parent, then cleanup, on v2
TestCommandGOMAXPROCS                 the Go runtime reads cpu.max, not cfs_quota_us
TestSampleThrottledCgroup             sample reads cpu.stat'"'"'s usage and throttling on v2
TestUsageFileOnTheKernel              usage_usec held open and read again
TestLatencyCurrentMode                latency in its own v2 cgroup
TestTargetRunningServerNamedCgroup    a named v2 cgroup resolved and counted (--target)
TestInstancesWithoutPrivilege         instances'"'"' slices as a user who is not root
TestInstancesReportTheFloor           the instances'"'"' floor after a cold start of a second (TCG)
TestTracerProgramsCounted             the tracer on 6.1: programs loaded and gone
TestTraceRunEveryIteration            6.1'"'"'s throttle model: holds tied to iterations
TestTraceTwoRunsTogether              6.1'"'"'s hold ends (before 6.6), two runs at once
TestTraceInstances                    slices tracked and untracked one by one
TestTracePerRequestInstances          holds tied to requests, per-request instances
TestTraceWithoutPrivilege             no tracer for a user who is not root
TestTraceListInterruptedLeavesNoTracer  Ctrl-C detaches the tracer in the guest
'
set -e
cd /payload
echo "guest: kernel $(uname -r); cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
run=$(echo "$tests" | awk 'NF { s = s (s == "" ? "" : "|") $1 } END { print s }')
# -test.timeout is for a hang, not a bound on speed: twice the slowest
# suite beside a busy loop on every host CPU, 126, 166 and 206 s on the
# guest's clock in 3 boots (STRESS_VM=1 make test-stress, issue 45).
rc=0
THROTTLEBENCH_BIN=/payload/throttlebench CI=true ./integration.test -test.v -test.count=1 -test.run "^($run)\$" -test.timeout 7m || rc=$?
exit $rc
