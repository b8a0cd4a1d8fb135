#!/bin/sh
# internal/tracer's tests and benchmarks on the VM's kernel (cgroup v2), as
# root with CI=true (test-v2.sh tracer). The freshness test reads the C
# source, its hash and the objects, copied beside the binary. Two idle
# probes are held on sched_switch throughout: under TCG, the kernel's
# patching of the tracepoint's call site when its probes go 0 -> 1 -> 2 and
# back can hang the guest (see hold in internal/tracer/bench_linux_test.go);
# and the BPF run-time stats are kept on, whose switch BenchmarkContextSwitch
# would otherwise patch in and out.
cd /payload
echo "kernel: $(uname -r)"
export CI=true
. ./holder.sh
hold_start stats || exit 1
./tracer.test -test.v -test.count=1 -test.timeout 3m
rc=$?
timeout 120 ./tracer.test -test.run '^$' -test.bench . -test.benchtime 1s || rc=1
exit $rc
