#!/bin/sh
# Smoke payload for test/vm/run.sh: proves the VM can really throttle.
#   bash test/vm/run.sh test/vm/smoke
# Runs under busybox ash inside the guest (see the contract in run.sh).
# Exits 0 on success; on failure prints "SMOKE FAIL: ..." and exits 1.
set -eu

CG=/sys/fs/cgroup
SMOKE=$CG/smoke
BUSY_PID=

fail() {
	echo "SMOKE FAIL: $*"
	exit 1
}

cleanup() {
	if [ -n "$BUSY_PID" ]; then
		kill "$BUSY_PID" 2>/dev/null || true
		wait "$BUSY_PID" 2>/dev/null || true
	fi
	# rmdir can race the exiting task; retry briefly.
	i=0
	while [ -d "$SMOKE" ] && [ $i -lt 20 ]; do
		rmdir "$SMOKE" 2>/dev/null || sleep 0.1
		i=$((i + 1))
	done
}
trap cleanup EXIT

# wait_for DEADLINE_S DESCRIPTION COMMAND... (test/vm/guestlib.sh): a wait
# is for a condition, never a stretch of time.
. /payload/guestlib.sh

echo "smoke: controllers: $(cat $CG/cgroup.controllers)"
case " $(cat $CG/cgroup.controllers) " in
*" cpu "*) ;;
*) fail "cpu controller not in $CG/cgroup.controllers" ;;
esac
case " $(cat $CG/cgroup.subtree_control) " in
*" cpu "*) ;;
*) fail "cpu not enabled in $CG/cgroup.subtree_control" ;;
esac

mkdir "$SMOKE"
[ -f "$SMOKE/cpu.max" ] || fail "$SMOKE/cpu.max missing"
[ -f "$SMOKE/cpu.max.burst" ] || fail "$SMOKE/cpu.max.burst missing"
echo "10000 100000" >"$SMOKE/cpu.max"
echo 5000 >"$SMOKE/cpu.max.burst"
[ "$(cat "$SMOKE/cpu.max")" = "10000 100000" ] || fail "cpu.max reads back '$(cat "$SMOKE/cpu.max")'"
[ "$(cat "$SMOKE/cpu.max.burst")" = 5000 ] || fail "cpu.max.burst reads back '$(cat "$SMOKE/cpu.max.burst")'"

stat_val() { awk -v k="$1" '$1 == k { print $2 }' "$SMOKE/cpu.stat"; }
# A CPU hog that moves itself into the cgroup before it starts spinning;
# it runs until the cgroup has been throttled in 10 periods (about 1 s).
sh -c 'echo $$ >"$1/cgroup.procs" && exec yes >/dev/null' hog "$SMOKE" &
BUSY_PID=$!
hog_in() { grep -qx "$BUSY_PID" "$SMOKE/cgroup.procs"; }
wait_for 30 "the hog (pid $BUSY_PID) in $SMOKE" hog_in
throttled10() { [ "$(stat_val nr_throttled)" -ge 10 ] 2>/dev/null; }
wait_for 60 "10 throttled periods of the hog (nr_throttled >= 10 in $SMOKE/cpu.stat; cpu.max does not throttle?)" throttled10
kill "$BUSY_PID"
wait "$BUSY_PID" 2>/dev/null || true
BUSY_PID=

echo "smoke: cpu.stat (the hog ran $waited ms after it was in the cgroup):"
sed 's/^/smoke:   /' "$SMOKE/cpu.stat"
periods=$(stat_val nr_periods)
throttled=$(stat_val nr_throttled)
usage=$(stat_val usage_usec)
[ -n "$usage" ] && [ -n "$periods" ] || fail "no usage_usec or nr_periods in cpu.stat"
# The quota is enforced: 10 ms per 100 ms period (and 5 ms of burst at
# most) is about 10 ms of CPU per period the cgroup ran in; the hog alone,
# unthrottled, would use the whole 100 ms. Counted in the kernel's own
# periods, not on the guest's wall clock (TCG's runs slow and uneven): at
# most 50 ms per period, with a period of slack.
[ "$usage" -lt $(((periods + 1) * 50000)) ] || fail "usage_usec=$usage over $periods periods: quota not enforced"

# The non-root user works (tests may need it).
[ "$(runas tbuser id -u)" = 1000 ] || fail "runas tbuser id -u != 1000"
[ "$(su -s /bin/sh -c 'id -g' -- tbuser)" = 1000 ] || fail "su tbuser: gid != 1000"

echo "smoke: OK (nr_periods=$periods nr_throttled=$throttled usage_usec=$usage)"
