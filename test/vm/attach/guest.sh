#!/bin/sh
# The VM hang's trigger, for counting boots (test-v2.sh attach; not part of
# make test-vm). Under qemu's TCG the kernel's live patch of a tracepoint's
# call site (text_poke_bp: an int3 written into __schedule while the other
# vCPU runs through it) hung guests now and then: an RCU stall with
# asm_exc_int3 in __schedule. Here both vCPUs switch all the time (two
# yes|cat pipes) while the tracer's two probes on sched_switch,
# sched_wakeup and sched_wakeup_new are attached and detached CYCLES times (tracer.test's
# holder, TB_TRACER_HOLD=1: each start takes the probes 0 -> 1 -> 2 where
# nothing else holds them, each stop 2 -> 1 -> 0).
#
# It counts the patches the kernel makes meanwhile: kprobe events on
# arch_static_call_transform (the static call behind a tracepoint, switched
# between its lone probe and the iterator at 0 <-> 1 <-> 2 probes) and
# arch_jump_label_transform_queue (the tracepoint's static key, at 0 <-> 1),
# recorded in a trace instance of their own. With run.sh's early events
# (the default) the scheduler's tracepoints hold two probes from before the
# second CPU starts, and both counts must be 0.
#
# Then, with the early events, what they cost each switch: TB_TRACER_BOUNCE
# (two threads bouncing a byte over pipes) timed with the top-level ring
# buffer recording (tracing_on 1) and not (0, as /init leaves it).
cd /payload || exit 1
CYCLES=20
T=/sys/kernel/tracing
# /init mounts it only for the early events.
[ -e $T/tracing_on ] || mount -t tracefs tracefs $T || exit 1
early=$(cat $T/events/sched/sched_switch/enable 2>/dev/null || echo 0)
echo "attach: kernel $(uname -r); early sched events: $early; tracing_on $(cat $T/tracing_on)"

# The kprobe events must not start the cmdline recorder, itself a probe on
# sched_switch and sched_wakeup, where nothing holds them yet. Where the
# early events hold them, turning record-cmd off would take that probe
# away again (2 -> 1, a patch): leave it.
[ "$early" = 1 ] || echo 0 >$T/options/record-cmd
echo 'p:tb_static_call arch_static_call_transform' >>$T/kprobe_events || exit 1
echo 'p:tb_jump_label arch_jump_label_transform_queue' >>$T/kprobe_events || exit 1
mkdir $T/instances/poke || exit 1
echo 1 >$T/instances/poke/events/kprobes/enable || exit 1
count() { grep -c "$1:" $T/instances/poke/trace; }

busy=
for _ in 1 2; do
	sh -c 'yes | cat >/dev/null' &
	busy="$busy $!"
done
start=$(cut -d' ' -f1 /proc/uptime)
i=0
while [ $i -lt $CYCLES ]; do
	# A file per cycle: the child's truncation of a shared one may come
	# after the parent's first look, which would then see the last
	# cycle's "holding" and stop the holder before it holds.
	out=/tmp/hold.$i
	TB_TRACER_HOLD=1 ./tracer.test >$out 2>&1 &
	pid=$!
	j=0
	until grep -q holding $out 2>/dev/null; do
		j=$((j + 1))
		[ $j -le 600 ] && kill -0 $pid 2>/dev/null || { cat $out; echo "attach: cycle $i: the holder did not start"; exit 1; }
		sleep 0.05
	done
	kill -TERM $pid
	wait $pid || { cat $out; echo "attach: cycle $i: the holder failed"; exit 1; }
	i=$((i + 1))
done
end=$(cut -d' ' -f1 /proc/uptime)
# The pipes' shells: their yes and cat die of the broken pipe / EOF.
for p in $busy; do kill $p 2>/dev/null; done
pkids() { for p in $busy; do cat /proc/$p/task/$p/children 2>/dev/null; done; }
kill $(pkids) 2>/dev/null
wait 2>/dev/null
sc=$(count tb_static_call)
jl=$(count tb_jump_label)
echo "attach: $CYCLES attach/detach cycles in $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }') s; patches meanwhile: static call $sc, jump label $jl"
echo 0 >$T/instances/poke/events/kprobes/enable

if [ "$early" = 1 ]; then
	# The ring buffer's entries on CPU 0 say whether it records.
	entries() { awk '/^entries:/ { print $2 }' $T/per_cpu/cpu0/stats; }
	for round in 1 2 3; do
		for on in 1 0; do
			echo $on >$T/tracing_on
			e0=$(entries)
			d=$(TB_TRACER_BOUNCE=20000 ./tracer.test -test.run='^$')
			echo "attach: cost round $round: tracing_on $on: 20000 bounces in $d; cpu0 ring buffer entries $e0 -> $(entries)"
		done
	done
	echo 0 >$T/tracing_on
	[ "$sc" = 0 ] && [ "$jl" = 0 ] || { echo "attach: FAIL: the tracer's attaches patched the kernel with the early events on"; exit 1; }
else
	for round in 1 2 3; do
		d=$(TB_TRACER_BOUNCE=20000 ./tracer.test -test.run='^$')
		echo "attach: cost round $round: no early events: 20000 bounces in $d"
	done
fi
