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
[ "$(cat /proc/sys/kernel/bpf_stats_enabled)" = 1 ] || { echo "guest: the BPF run-time stats are not on from boot"; exit 1; }
./tracer.test -test.v -test.count=1 -test.timeout 3m
rc=$?
timeout 120 ./tracer.test -test.run '^$' -test.bench . -test.benchtime 1s || rc=1
exit $rc
