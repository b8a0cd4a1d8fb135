#!/bin/sh
# internal/tracer's tests and benchmarks on the VM's kernel (cgroup v2), as
# root with CI=true (test-v2.sh tracer). The freshness test reads the C
# source, its hash and the objects, copied beside the binary. Two idle
# probes are held on sched_switch throughout: under TCG, the kernel's
# patching of the tracepoint's call site when its probes go 0 -> 1 -> 2 and
# back can hang the guest (see hold in internal/tracer/bench_linux_test.go).
cd /payload
echo "kernel: $(uname -r)"
export CI=true
TB_TRACER_HOLD=1 ./tracer.test >/tmp/hold.out 2>&1 &
holder=$!
i=0
until grep -q holding /tmp/hold.out; do
	i=$((i + 1))
	[ $i -le 100 ] || { cat /tmp/hold.out; echo "tracer guest: the probe holder did not start"; exit 1; }
	sleep 0.1
done
./tracer.test -test.v -test.count=1 -test.timeout 3m
rc=$?
timeout 120 ./tracer.test -test.run '^$' -test.bench . -test.benchtime 1s || rc=1
kill -TERM $holder; wait $holder
exit $rc
