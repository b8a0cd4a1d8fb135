# Sourced by the guests that attach BPF programs (v2, soak, tracer): holds
# two idle probes on sched_switch for the whole run (tracer.test with
# TB_TRACER_HOLD=1). Under qemu's TCG the kernel's live patching of the
# tracepoint's call site, done when its probes go from 0 to 1 to 2 and back,
# can hang the guest; with two held, a tracer's attach and detach patch
# nothing (see hold in internal/tracer/bench_linux_test.go). Call
# hold_start before the tests; hold_start stats (the tracer guest, whose
# benchmark turns them on) also keeps the BPF run-time stats on, whose
# switch is patched in the same way. The holder is never stopped: taking its
# probes away patches the call site again (2 -> 1 -> 0), the hang it is
# there to avoid, and the tracer guest did hang there once, after its
# benchmarks had passed. The guest powers off with it still running.
hold_start() {
	TB_TRACER_HOLD=${1:-1} /payload/tracer.test >/tmp/hold.out 2>&1 &
	i=0
	until grep -q holding /tmp/hold.out; do
		i=$((i + 1))
		[ $i -le 100 ] || { cat /tmp/hold.out; echo "guest: the probe holder did not start"; return 1; }
		sleep 0.1
	done
}
