#!/bin/sh
# internal/tracer's tests and benchmarks on the VM's kernel (cgroup v2), as
# root with CI=true (test-v2.sh tracer). The freshness test reads the C
# source, its hash and the objects, copied beside the binary. Nothing here
# live-patches the kernel while both vCPUs run (under TCG such patches hung
# guests, see run.sh's "Early events"): sched_switch, sched_wakeup and
# sched_wakeup_new hold two probes from boot, and test-v2.sh boots this guest with the BPF
# run-time stats on (sysctl.kernel.bpf_stats_enabled=1, set before any BPF
# program exists), so BenchmarkContextSwitch's turning them on and off
# only counts.
cd /payload
echo "kernel: $(uname -r)"
export CI=true
# Debian's kernels (6.1, 6.12) let the tracer hook throttle_cfs_rq and
# unthrottle_cfs_rq through BPF trampolines (fexit, tracer.HooksFentry):
# TestHooks fails where they did not attach.
export TB_TRACER_HOOKS=fentry
[ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = 1 ] || { echo "guest: the BPF run-time stats are not on from boot"; exit 1; }
# Each deadline is for a hang, twice the slowest of 3 boots beside a busy
# loop on every host CPU (STRESS_VM=1 make test-stress, issue 45): the
# tests took 96-140 s there (3m was their deadline), the benchmarks about
# 100-115 s (120 s was theirs); quiet, about 60 s each. Each part says how
# long it took, on the guest's clock.
. /payload/guestlib.sh
if [ -f bench-count ]; then
	# make bench-vm: the benchmarks alone, bench-count times each, for
	# make bench's history (benchhist record -guest reads this console).
	n=$(cat bench-count)
	timeout -s QUIT $((240 * n)) ./tracer.test -test.run '^$' -test.bench "$(cat bench-run)" -test.benchtime 1s -test.count "$n"
	exit $?
fi
t0=$(uptime_cs)
# Not TestBreakdownAgainstClocks (6 s a guest in clean-clone CI run 31):
# make bench-vm records the breakdown's agreement on these kernels
# (BenchmarkBreakdownAgreement), and the runs traced whole check the
# breakdown itself here (TestTraceRunEveryIteration: 6.1 in the v2 lane,
# 6.12 below).
./tracer.test -test.v -test.count=1 -test.timeout 5m -test.skip '^TestBreakdownAgainstClocks$'
rc=$?
t1=$(uptime_cs)
if [ -f benchmarks ]; then
	# That they run, once each: their figures are make bench-vm's. Not
	# BenchmarkTraceAgreement, whose loads are the tests' own (traceSiblings
	# and the rest), just run above: at -benchtime 1s these took 103 s of
	# make test in a clean-clone CI run, that one 30 of them.
	# SIGQUIT: a benchmark that hangs prints every goroutine's stack.
	timeout -s QUIT 240 ./tracer.test -test.run '^$' -test.bench '^Benchmark(RingBuffer|ContextSwitch|SwitchOverhead)$' -test.benchtime 1x || rc=1
fi
t2=$(uptime_cs)
if [ -f trace-runs ]; then
	# Another kernel than the v2 lane's: the runs traced whole, too.
	THROTTLEBENCH_BIN=/payload/throttlebench ./integration.test -test.v -test.count=1 -test.run "$(cat trace-runs)" -test.timeout 6m || rc=1
fi
echo "tracer guest: tests $(((t1 - t0) / 100)) s, benchmarks $(((t2 - t1) / 100)) s, runs traced $((($(uptime_cs) - t2) / 100)) s"
exit $rc
