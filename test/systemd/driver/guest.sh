#!/bin/sh
# The systemd cgroup driver as root, nobody logged in (issue 26): a run's
# slices in a delegated scope of ours; nothing left after a normal end,
# SIGINT or SIGTERM; then a user who is not root, with cpu delegated to
# their manager and without. Needs ./throttlebench (test.sh puts it here).
# Each check prints "PASS name" or "FAIL name: why"; the exit status is the
# number of failures.
tb=/payload/throttlebench
fails=0
# wait_for DEADLINE_S DESCRIPTION COMMAND... (test/vm/guestlib.sh): every
# wait in this guest is for a condition, never for a stretch of time.
. /payload/guestlib.sh
# Each check says when it ended, in seconds of the guest's uptime: where a
# boot ran out of time, the last line says which step took it.
at() { up=$(uptime_cs); echo "$((up / 100)).$((up % 100 / 10))"; }
pass() { echo "PASS $1 [$(at) s]"; }
fail() {
	echo "FAIL $1: $2 [$(at) s]"
	fails=$((fails + 1))
}
# run_slice DIR: a run's slice exists under DIR ($slice: the first).
# run_worker DIR: and holds a process, the run's workload (its limits are
# written before the workload is placed in it). throttled: $slice's
# cpu.stat has nr_throttled > 0, so the run is in the middle of its work.
run_slice() {
	slice=$(find "$1" -name 'tb-*' -type d 2>/dev/null | head -n 1)
	[ -n "$slice" ]
}
run_worker() { run_slice "$1" && [ -n "$(cat "$slice/cgroup.procs" 2>/dev/null)" ]; }
throttled() { awk '$1 == "nr_throttled" && $2 > 0 { t = 1 } END { exit !t }' "$slice/cpu.stat" 2>/dev/null; }
# midrun NAME DIR: waits for a run's slice under DIR to hold its workload
# and be throttled: a signal then lands in the middle of the run.
midrun() {
	wait_for 60 "$1: the run's slice under $2 holds its workload" run_worker "$2" &&
		wait_for 60 "$1: the run is throttled ($slice/cpu.stat nr_throttled > 0)" throttled
}
# leftovers: the scopes systemd knows and the cgroups of ours on disk.
leftovers() {
	systemctl list-units --all --no-legend --plain 'throttlebench-*.scope' | awk '{print $1}'
	find /sys/fs/cgroup -mindepth 1 -type d \( -name 'throttlebench-*.scope' -o -name 'tb-*' -o -name throttlebench \) 2>/dev/null
}
nothing_left() { [ -z "$(leftovers)" ]; }
noleft() {
	left=$(leftovers)
	if [ -z "$left" ]; then pass "$1: nothing left"; else fail "$1: nothing left" "$(echo $left)"; fi
}

systemctl start dbus systemd-logind
# The tracer's attach under TCG: run.sh's trace_event= holds the
# scheduler's tracepoints from boot (test/vm/run.sh says why); the ring
# buffer does not record.
T=/sys/kernel/tracing
[ -e $T/tracing_on ] || mount -t tracefs tracefs $T
echo 0 >$T/tracing_on
echo "early sched events: $(cat $T/events/sched/sched_switch/enable)$(cat $T/events/sched/sched_wakeup/enable)"
echo "top subtree_control: $(cat /sys/fs/cgroup/cgroup.subtree_control); sessions: $(loginctl list-sessions --no-legend | wc -l)"

out=$($tb inspect 2>&1)
echo "$out" | grep -E '^  (driver|slices) '
if echo "$out" | grep -q '^  driver      systemd (auto:'; then pass "inspect: auto picks systemd"; else fail "inspect: auto picks systemd" "no such line"; fi

# Today's way, asked for: the top does not enable cpu (exit 2).
$tb run --cgroup-driver cgroupfs --cpus 0.2 --batch 5 --iterations 2 --format text >/tmp/out 2>&1
rc=$?
if [ $rc = 2 ] && grep -q 'does not enable the cpu controller' /tmp/out; then pass "cgroupfs: exit 2 as before"; else fail "cgroupfs: exit 2 as before" "rc=$rc $(cat /tmp/out)"; fi

# Bad input: one line, exit 2, no scope.
$tb run --cgroup-driver systemd --parent /system.slice --cpus 0.2 >/tmp/out 2>&1
rc=$?
if [ $rc = 2 ] && [ "$(wc -l </tmp/out)" = 1 ] && grep -q 'cgroup-driver' /tmp/out; then pass "systemd with --parent: exit 2"; else fail "systemd with --parent: exit 2" "rc=$rc $(cat /tmp/out)"; fi
noleft "bad input"

# run --cpus 0.2 through the scope (auto).
$tb run --cpus 0.2 --batch 5 --iterations 3 --format text >/tmp/out 2>&1
rc=$?
cat /tmp/out
thr=$(sed -n 's/^  Throttled: *\([0-9]*\) of.*/\1/p' /tmp/out)
cg=$(sed -n 's/^  cgroup: *//p' /tmp/out)
case $cg in
*"/throttlebench.slice/throttlebench-"*".scope/tb-"*) pass "run: slice in the scope ($cg)" ;;
*) fail "run: slice in the scope" "cgroup: $cg" ;;
esac
if [ $rc = 0 ] && [ "${thr:-0}" -gt 0 ]; then pass "run --cpus 0.2: rc 0, throttled $thr periods"; else fail "run --cpus 0.2" "rc=$rc throttled=$thr"; fi
noleft "run"

# The same asked for explicitly, with burst, JSON.
$tb run --cgroup-driver systemd --cpus 0.2 --burst 10ms --batch 5 --iterations 2 --format json >/tmp/out.json 2>/tmp/err
rc=$?
if [ $rc = 0 ] && grep -q '"burst' /tmp/out.json; then pass "run --cgroup-driver systemd --burst 10ms"; else fail "run --cgroup-driver systemd --burst 10ms" "rc=$rc $(cat /tmp/err)"; fi
noleft "run with burst"

# Signals in the middle of a run: exit 128+signal, nothing left.
for sig in INT TERM; do
	$tb run --cpus 0.2 --batch 5 --iterations 1000 --format text >/tmp/out 2>&1 &
	pid=$!
	midrun "SIG$sig" /sys/fs/cgroup/throttlebench.slice
	scope=$(systemctl list-units --no-legend --plain 'throttlebench-*.scope' | awk '{print $1}')
	kill -$sig $pid
	wait $pid
	rc=$?
	want=130
	[ $sig = TERM ] && want=143
	if [ -n "$scope" ] && [ $rc = $want ]; then pass "SIG$sig: rc $rc (scope was $scope)"; else fail "SIG$sig" "rc=$rc scope='$scope' $(tail -n 3 /tmp/out)"; fi
	noleft "SIG$sig"
done

# systemctl daemon-reload in the middle of a run: the slice's limits and
# the scope's controllers read back unchanged, and the run ends well.
# 60 iterations, about 6 s: daemon-reload takes over a second under TCG,
# and a run of 15 (1.5 s) had ended before the limits were read again.
$tb run --cpus 0.2 --burst 10ms --batch 5 --iterations 60 --format text >/tmp/out 2>&1 &
pid=$!
wait_for 60 "daemon-reload: the run's slice holds its workload (its limits written)" run_worker /sys/fs/cgroup/throttlebench.slice
before="$(cat $slice/cpu.max 2>&1) / $(cat $slice/cpu.max.burst 2>&1) / $(cat $slice/../cgroup.subtree_control 2>&1)"
systemctl daemon-reload
alive=no
kill -0 $pid 2>/dev/null && alive=yes
after="$(cat $slice/cpu.max 2>&1) / $(cat $slice/cpu.max.burst 2>&1) / $(cat $slice/../cgroup.subtree_control 2>&1)"
wait $pid
rc=$?
if [ -n "$slice" ] && [ $alive = yes ] && [ "$before" = "$after" ] && [ $rc = 0 ]; then pass "daemon-reload: $after, rc 0"; else fail "daemon-reload" "slice=$slice alive=$alive before '$before' after '$after' rc=$rc $(tail -n 2 /tmp/out)"; fi
noleft "daemon-reload"

# A sweep of two configurations shares one scope.
$tb sweep --cpus 0.2,0.5 --batch 5 --iterations 2 --format csv >/tmp/out 2>&1
rc=$?
if [ $rc = 0 ] && [ "$(grep -c . /tmp/out)" -ge 3 ]; then pass "sweep --cpus 0.2,0.5"; else fail "sweep" "rc=$rc $(cat /tmp/out)"; fi
noleft "sweep"

# latency --instances through the scope: each instance a slice of its own,
# all in the run's scope (counted while they run), none left after.
$tb latency --cpus 0.2 --instances per-request --arrivals once --count 3 --work 300ms --format json >/tmp/out.json 2>/tmp/err &
pid=$!
wait_for 60 "latency --instances: an instance's slice in the scope" run_slice /sys/fs/cgroup/throttlebench.slice
most=0
while kill -0 $pid 2>/dev/null; do
	n=$(find /sys/fs/cgroup/throttlebench.slice -path '*/throttlebench-*.scope/tb-*' -maxdepth 2 -type d 2>/dev/null | wc -l)
	[ "$n" -gt "$most" ] && most=$n
	sleep 0.05
done
wait $pid
rc=$?
started=$(grep -o '"instances_started": *[0-9]*' /tmp/out.json | grep -o '[0-9]*$')
if [ $rc = 0 ] && [ "${started:-0}" = 3 ] && [ "$most" -ge 3 ]; then pass "latency --instances per-request: rc 0, 3 instances, up to $most slices in the scope at once"; else fail "latency --instances" "rc=$rc started=$started most=$most $(tail -n 3 /tmp/err)"; fi
noleft "latency --instances"

# --trace through the scope: the tracer follows the slice in the scope, and
# its events are the slice's cpu.stat (the kernel's counter) over the
# measured iterations to an order of magnitude: within half either way, as
# the host's make test holds (internal/tracer's sameOrder). A defect of the
# kinds met so far traced -87% to -94%, or up to +86%; how close a correct
# tracer comes on this image's 6.1, which neither ends a hold at the
# unthrottle (6.6+) nor throttles threads one by one (6.18+), is a figure,
# not a bound: 6% under in both boots here (1001.3 ms against 1066.2 with
# 10 iterations, 2906.2 against 3084.5 with 30 on a host at load 16),
# printed with every run. 30 iterations, about 3 s of counter, keep the
# window's edges (at most a throttled stretch, 80 ms, each) small beside
# it. Read from the JSON (no jq in the image): the first "count",
# "events_lost", "traced_ms" and "counter_ms" in "throttle_events"; under
# 100 ms of counter there is too little to compare.
$tb run --cpus 0.2 --batch 5 --iterations 30 --trace --format json >/tmp/out.json 2>/tmp/err
rc=$?
tev() { sed -n '/^  "throttle_events": {/,/^  }/s/^ *"'"$1"'": *\([0-9.eE+-]*\),*$/\1/p' /tmp/out.json | head -n 1; }
ev=$(tev count) lost=$(tev events_lost) traced=$(tev traced_ms) counter=$(tev counter_ms)
cg=$(grep -o '"path": *"[^"]*"' /tmp/out.json | head -n 1)
agree=$(awk -v t="${traced:-0}" -v c="${counter:-0}" 'BEGIN {
	if (c > 0) printf "%.1f ms traced against cpu.stat'"'"'s %.1f ms, ratio %.3f (0.5 to 1.5 allowed)", t, c, t / c
	else printf "%s ms traced, counter %s ms", t, c
}')
echo "run --trace: $cg; $ev throttle events, $lost lost; $agree"
if [ $rc = 0 ] && [ "${ev:-0}" -gt 0 ] && awk -v t="${traced:-0}" -v c="${counter:-0}" 'BEGIN { exit !(c >= 100 && t >= 0.5 * c && t <= 1.5 * c) }'; then
	pass "run --trace: rc 0, $ev throttle events, $agree"
else
	fail "run --trace" "rc=$rc events=$ev lost=$lost $agree; want 0.5 to 1.5 of a counter of 100 ms or more $(tail -n 3 /tmp/err)"
fi
noleft "run --trace"

# --cpuset: Delegate=yes gives root's scope cpuset as well; the slice gets
# the CPU asked for.
$tb run --cpus 0.2 --cpuset 1 --batch 5 --iterations 2 --format json >/tmp/out.json 2>/tmp/err
rc=$?
if [ $rc = 0 ] && grep -q '"cpuset": *"1"' /tmp/out.json; then pass "run --cpuset 1: rc 0, the slice's cpuset 1"; else fail "run --cpuset 1" "rc=$rc $(grep -o '"cpuset": *"[^"]*"' /tmp/out.json | head -n 2) $(cat /tmp/err)"; fi
noleft "run --cpuset"

# SIGKILL, then cleanup. startrun NAME starts a long run in the background
# and waits until it is in the middle of its work: $pid is the run,
# $slice its slice.
startrun() {
	$tb run --cpus 0.2 --batch 5 --iterations 1000 --format text >/tmp/out 2>&1 &
	pid=$!
	midrun "$1" /sys/fs/cgroup/throttlebench.slice
}
nunits() { systemctl list-units --all --no-legend --plain 'throttlebench-*' | grep -c '\.scope'; }
ncgroups() { find /sys/fs/cgroup/throttlebench.slice -mindepth 1 -type d 2>/dev/null | wc -l; }
# gone: systemd has stopped every scope of ours and removed its cgroups.
gone() { [ "$(nunits)$(ncgroups)" = 00 ]; }

# A plain SIGKILL: the workload dies with its owner, the scope empties, and
# systemd stops it and removes its cgroups by itself; cleanup then finds
# nothing.
startrun SIGKILL
kill -KILL $pid
wait $pid
rc=$?
wait_for 30 "SIGKILL: systemd stops the emptied scope (no scope unit, no cgroup in throttlebench.slice)" gone &&
	echo "SIGKILL: no scope, no cgroup in throttlebench.slice after $waited ms"
$tb cleanup >/tmp/clean 2>&1
crc=$?
cat /tmp/clean
if [ -n "$slice" ] && [ $rc = 137 ] && [ $crc = 0 ] && grep -q '^nothing to remove' /tmp/clean && [ "$(nunits)" = 0 ] && [ "$(ncgroups)" = 0 ]; then pass "SIGKILL then cleanup: rc $rc, cleanup rc 0 finds nothing, 0 scopes, 0 cgroups"; else fail "SIGKILL then cleanup" "slice=$slice rc=$rc cleanup rc=$crc scopes=$(nunits) cgroups=$(ncgroups) $(cat /tmp/clean)"; fi
noleft "SIGKILL then cleanup"

# SIGKILL while a process that is not the run's sits in its slice: cleanup
# kills nothing, removes the empty leaf self, lists the slice and the scope
# and leaves the scope running; systemd stops it once that process is gone.
startrun "SIGKILL with a stranger"
sleep 600 &
alien=$!
echo $alien >"$slice/cgroup.procs"
scope=$(basename "$(dirname "$slice")")
kill -KILL $pid
wait $pid
# The run's workload dies with it: then the stranger is all the slice holds.
only_alien() { [ "$(cat "$slice/cgroup.procs" 2>/dev/null)" = "$alien" ]; }
wait_for 30 "SIGKILL with a stranger: the run's workload gone, the slice holds the stranger $alien alone" only_alien
$tb cleanup >/tmp/clean 2>&1
crc=$?
cat /tmp/clean
if [ $crc = 0 ] && kill -0 $alien 2>/dev/null && grep -q "^left $slice: holds processes $alien" /tmp/clean &&
	grep -q "^removed /sys/fs/cgroup/throttlebench.slice/$scope/self\$" /tmp/clean && grep -q "scope $scope is not stopped" /tmp/clean &&
	[ "$(nunits)" = 1 ] && [ -d "$slice" ]; then
	pass "SIGKILL with a stranger in the slice: cleanup leaves it running and lists it"
else
	fail "SIGKILL with a stranger in the slice" "cleanup rc=$crc alien alive: $(kill -0 $alien 2>/dev/null && echo yes) scopes=$(nunits) slice=$slice"
fi
# A run now: its start tidies the dead runs' scopes and says what it left.
$tb run --cpus 0.2 --batch 5 --iterations 2 --format json >/tmp/out.json 2>/tmp/err
rc=$?
if [ $rc = 0 ] && grep -q "left 1 scope of runs that no longer live running: $scope: " /tmp/out.json; then pass "a run beside the stranger: rc 0, its warnings say what was left"; else fail "a run beside the stranger" "rc=$rc $(grep -A3 '"warnings"' /tmp/out.json) $(cat /tmp/err)"; fi
kill $alien
wait $alien
wait_for 30 "stranger gone: systemd stops the emptied scope" gone && echo "stranger gone: no scope, no cgroup left after $waited ms"
$tb cleanup >/tmp/clean 2>&1
crc=$?
if [ $crc = 0 ] && grep -q '^nothing to remove' /tmp/clean; then pass "stranger gone: systemd stopped the scope, cleanup finds nothing"; else fail "stranger gone" "cleanup rc=$crc $(cat /tmp/clean)"; fi
noleft "stranger gone"

# A small soak: runs and sweeps stopped by SIGINT, SIGTERM or SIGKILL (then
# cleanup) at a random moment, 0 to 2.5 s after the start, some before the
# scope exists; after each, the scopes and cgroups left are counted.
leftsum=0
trials=""
for t in 1 2 3 4 5 6 7 8 9; do
	case $((t % 3)) in 1) sig=INT ;; 2) sig=TERM ;; 0) sig=KILL ;; esac
	r=$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')
	delay=$((r % 26))
	if [ $((t % 2)) = 0 ]; then
		$tb sweep --cpus 0.2,0.3 --batch 5 --iterations 30 --format csv >/dev/null 2>&1 &
	else
		$tb run --cpus 0.2 --batch 5 --iterations 1000 --format text >/dev/null 2>&1 &
	fi
	pid=$!
	sleep "$((delay / 10)).$((delay % 10))"
	kill -$sig $pid
	wait $pid
	[ $sig = KILL ] && $tb cleanup >/dev/null 2>&1
	# systemd stops an emptied scope a moment after (SIGKILL): under 100 ms
	# here, 30 s allowed. A trial that leaves something fails here.
	at="$((delay / 10)).$((delay % 10))s"
	wait_for 30 "soak trial $t ($sig at $at): nothing left" nothing_left || echo "  left: $(leftovers | tr '\n' ' ')"
	n=$(leftovers | wc -l)
	leftsum=$((leftsum + n))
	trials="$trials $sig@$at:$n"
done
[ $leftsum = 0 ] && pass "soak: 9 trials, nothing left after any ($trials)"

# A user who is not root, cpu delegated to their manager (systemd 252's
# default: user@1000.service has cpu memory pids): auto picks the systemd
# driver through the user's own manager, on the user bus, from a plain
# runuser with the session's environment (as an ssh session has). Before
# the case without cpu below, whose drop-in takes cpu away.
loginctl enable-linger tbuser
systemctl start user@1000.service
ucg=/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service
echo "user@1000.service controllers: $(cat $ucg/cgroup.controllers)"
asuser() { runuser -u tbuser -- env XDG_RUNTIME_DIR=/run/user/1000 DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus "$@"; }
uleft() {
	asuser systemctl --user list-units --all --no-legend --plain 'throttlebench-*' | awk '{print $1}'
	find $ucg -mindepth 1 -type d \( -name 'throttlebench-*.scope' -o -name 'tb-*' \) 2>/dev/null
}
# The user's manager stops an emptied scope by itself: a moment after the
# run, as systemd does for root's after a SIGKILL.
unothing() { [ -z "$(uleft)" ]; }
unoleft() {
	if wait_for 30 "$1: nothing left" unothing; then pass "$1: nothing left (after $waited ms)"; else echo "  left: $(echo $(uleft))"; fi
}
asuser $tb inspect >/tmp/out 2>&1
grep -E '^  driver ' /tmp/out
if grep -q '^  driver      systemd (auto:.*user@1000.service' /tmp/out; then pass "user with cpu: inspect says systemd"; else fail "user with cpu: inspect" "$(grep -E '^  driver' /tmp/out)"; fi
asuser $tb run --cpus 0.2 --batch 5 --iterations 3 --format json >/tmp/out.json 2>/tmp/err
rc=$?
# The run's own throttling block: counters_per_iteration, before it,
# holds a null nr_throttled per iteration for a built-in workload.
thr=$(sed -n '/^  "throttling": {/,/^  }/s/^ *"nr_throttled": *\([0-9][0-9]*\),*$/\1/p' /tmp/out.json | head -n 1)
cg=$(grep -o '"path": *"[^"]*"' /tmp/out.json | head -n 1)
case $cg in
*"/user@1000.service/throttlebench.slice/throttlebench-"*".scope/tb-"*) pass "user with cpu: slice in a scope under the user's manager ($cg)" ;;
*) fail "user with cpu: slice in a scope under the user's manager" "cgroup: $cg" ;;
esac
if [ $rc = 0 ] && [ "${thr:-0}" -gt 0 ]; then pass "user with cpu: run --cpus 0.2 rc 0, nr_throttled $thr"; else fail "user with cpu: run --cpus 0.2" "rc=$rc nr_throttled=$thr $(cat /tmp/err)"; fi
unoleft "user with cpu: run"
# More than run, as that user: a sweep, latency with burst.
asuser $tb sweep --cpus 0.2,0.5 --batch 5 --iterations 2 --format csv >/tmp/out 2>/tmp/err
rc=$?
if [ $rc = 0 ] && [ "$(grep -c . /tmp/out)" -ge 3 ]; then pass "user with cpu: sweep --cpus 0.2,0.5"; else fail "user with cpu: sweep" "rc=$rc $(cat /tmp/out /tmp/err)"; fi
unoleft "user with cpu: sweep"
asuser $tb latency --cpus 0.2 --burst 20ms --rate 20 --duration 2s --work 5ms --format json >/tmp/out.json 2>/tmp/err
rc=$?
cg=$(grep -o '"path": *"[^"]*"' /tmp/out.json | head -n 1)
if [ $rc = 0 ] && grep -q '"burst_us": *20000' /tmp/out.json && echo "$cg" | grep -q 'user@1000.service/throttlebench.slice/throttlebench-'; then pass "user with cpu: latency --burst 20ms: rc 0, burst_us 20000 in the user's scope"; else fail "user with cpu: latency --burst 20ms" "rc=$rc $cg $(grep -o '"burst_us": *[0-9]*' /tmp/out.json) $(tail -n 3 /tmp/err)"; fi
unoleft "user with cpu: latency --burst"
# --cpuset: the user's manager has no cpuset (systemd 252 delegates cpu
# memory pids): exit 2, one line, nothing made.
asuser $tb run --cpus 0.2 --cpuset 0 --batch 5 --iterations 2 --format text >/tmp/out 2>&1
rc=$?
if [ $rc = 2 ] && [ "$(wc -l </tmp/out)" = 1 ] && grep -q -- '--cpuset: cpuset is not delegated to your systemd manager user@1000.service (it has: cpu memory pids)' /tmp/out; then pass "user with cpu: --cpuset 0 refused: $(cat /tmp/out)"; else fail "user with cpu: --cpuset 0" "rc=$rc $(cat /tmp/out)"; fi
unoleft "user with cpu: --cpuset"
# Signals, as that user: runuser itself in the background (not through
# asuser, a function: $! would be a subshell), so that the run is its
# child; the signal to the run itself (runuser would pass on a SIGTERM).
# SIGKILL, then cleanup as that user: nothing left.
for sig in INT TERM KILL; do
	runuser -u tbuser -- env XDG_RUNTIME_DIR=/run/user/1000 DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus $tb run --cpus 0.2 --batch 5 --iterations 1000 --format text >/tmp/out 2>&1 &
	pid=$!
	midrun "user with cpu: SIG$sig" $ucg/throttlebench.slice
	scope=$(asuser systemctl --user list-units --no-legend --plain 'throttlebench-*.scope' | awk '{print $1}')
	tbpid=$(grep -l "^PPid:[[:space:]]*$pid\$" /proc/[0-9]*/status 2>/dev/null | head -n 1 | cut -d/ -f3)
	kill -$sig ${tbpid:-$pid}
	wait $pid
	rc=$?
	case $sig in INT) want=130 ;; TERM) want=143 ;; KILL) want=137 ;; esac
	crc=0
	if [ $sig = KILL ]; then
		asuser $tb cleanup >/tmp/clean 2>&1
		crc=$?
		cat /tmp/clean
	fi
	if [ -n "$scope" ] && [ -n "$tbpid" ] && [ $rc = $want ] && [ $crc = 0 ]; then pass "user with cpu: SIG$sig rc $rc$([ $sig = KILL ] && echo ', cleanup rc 0') (scope was $scope)"; else fail "user with cpu: SIG$sig" "rc=$rc cleanup rc=$crc tbpid=$tbpid scope='$scope' $(tail -n 3 /tmp/out)"; fi
	unoleft "user with cpu: SIG$sig"
done
# make run as that user: no sudo where the manager has cpu, and it runs
# (GO=true: the binary is built already; the build recipe does nothing).
mkdir -p /tmp/mk && cp /payload/Makefile /tmp/mk/ && chmod -R a+rX /tmp/mk
asuser make -s -C /tmp/mk -n run BIN=/payload/throttlebench >/tmp/out 2>&1
runline=$(grep '/payload/throttlebench' /tmp/out | tail -n 1)
asuser make -s -C /tmp/mk run BIN=/payload/throttlebench GO=true ARGS='run --cpus 0.2 --batch 5 --iterations 3 --format text' >/tmp/out 2>&1
rc=$?
thr=$(sed -n 's/^  Throttled: *\([0-9]*\) of.*/\1/p' /tmp/out)
case $runline in
sudo*) fail "user with cpu: make run without sudo" "make -n run: $runline" ;;
*) if [ $rc = 0 ] && [ "${thr:-0}" -gt 0 ]; then pass "user with cpu: make run without sudo ($runline): rc 0, throttled $thr"; else fail "user with cpu: make run" "rc=$rc $(tail -n 3 /tmp/out)"; fi ;;
esac
unoleft "user with cpu: make run"
# From the user's manager itself (systemd-run --user), where the run
# starts inside the user's own subtree.
systemd-run -q -M tbuser@ --user --wait --pipe $tb run --cpus 0.2 --batch 5 --iterations 3 --format text >/tmp/out 2>&1
rc=$?
thr=$(sed -n 's/^  Throttled: *\([0-9]*\) of.*/\1/p' /tmp/out)
if [ $rc = 0 ] && [ "${thr:-0}" -gt 0 ] && grep -q 'user@1000.service/throttlebench.slice/throttlebench-' /tmp/out; then pass "user with cpu: systemd-run -M tbuser@ --user: rc 0, throttled $thr"; else fail "user with cpu: systemd-run -M tbuser@ --user" "rc=$rc $(tail -n 5 /tmp/out)"; fi
unoleft "user with cpu: systemd-run --user"
noleft "user with cpu (root's view)"

# A user who is not root, whose manager has no cpu (a Delegate=memory pids
# drop-in, as systemd 249 has by default): run exits 2 with one line naming
# the drop-in to add and --cgroup current, and creates nothing. Last: it
# starts a user manager, which changes the top's controllers.
mkdir -p /etc/systemd/system/user@.service.d
# Delegate= with a list adds to what the unit has: the empty one resets it.
printf '[Service]\nDelegate=\nDelegate=memory pids\n' >/etc/systemd/system/user@.service.d/delegate.conf
systemctl daemon-reload
# Restarted: it runs already, with cpu, from the case above.
systemctl restart user@1000.service
echo "user@1000.service: $(systemctl show -p DelegateControllers user@1000.service); controllers: $(cat /sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/cgroup.controllers)"
asuser $tb run --cpus 0.2 --batch 5 --iterations 2 --format text >/tmp/out 2>&1
rc=$?
cat /tmp/out
if [ $rc = 2 ] && [ "$(wc -l </tmp/out)" = 1 ] && grep -q 'cpu is not delegated to your systemd manager user@1000.service (it has: memory pids)' /tmp/out &&
	grep -q '/etc/systemd/system/user@.service.d/delegate.conf' /tmp/out && grep -q 'Delegate=cpu cpuset io memory pids' /tmp/out && grep -q -- '--cgroup current' /tmp/out; then
	pass "user without cpu delegated: exit 2, one line naming the drop-in and --cgroup current"
else
	fail "user without cpu delegated" "rc=$rc $(cat /tmp/out)"
fi
noleft "user without cpu delegated"
asuser $tb inspect >/tmp/out 2>&1
if grep -q '^  driver      none (cpu is not delegated' /tmp/out; then pass "user without cpu delegated: inspect says so"; else fail "user without cpu delegated: inspect" "$(grep -E '^  driver' /tmp/out)"; fi
asuser $tb run --cgroup-driver cgroupfs --cpus 0.2 --batch 5 --iterations 2 --format text >/tmp/out 2>&1
rc=$?
# make run asks for sudo here: the manager has no cpu.
runline=$(asuser make -s -C /tmp/mk -n run BIN=/payload/throttlebench 2>&1 | grep '/payload/throttlebench' | tail -n 1)
case $runline in
sudo*) pass "user without cpu delegated: make run uses sudo ($runline)" ;;
*) fail "user without cpu delegated: make run uses sudo" "make -n run: $runline" ;;
esac
# As on main: the top enables no cpu now either (exit 2, another line).
if [ $rc != 0 ] && ! grep -q 'not delegated' /tmp/out; then pass "user, --cgroup-driver cgroupfs: as before (rc $rc: $(tail -n 1 /tmp/out | cut -c 1-80))"; else fail "user, --cgroup-driver cgroupfs" "rc=$rc $(cat /tmp/out)"; fi
noleft "user, cgroupfs"

echo "driver guest: $fails failure(s)"
exit $fails
