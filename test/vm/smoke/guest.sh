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

# A CPU hog that moves itself into the cgroup before it starts spinning.
sh -c 'echo $$ >"$1/cgroup.procs" && exec yes >/dev/null' hog "$SMOKE" &
BUSY_PID=$!
sleep 1.5
grep -qx "$BUSY_PID" "$SMOKE/cgroup.procs" || fail "hog (pid $BUSY_PID) is not in $SMOKE"
kill "$BUSY_PID"
wait "$BUSY_PID" 2>/dev/null || true
BUSY_PID=

echo "smoke: cpu.stat:"
sed 's/^/smoke:   /' "$SMOKE/cpu.stat"
stat_val() { awk -v k="$1" '$1 == k { print $2 }' "$SMOKE/cpu.stat"; }
periods=$(stat_val nr_periods)
throttled=$(stat_val nr_throttled)
usage=$(stat_val usage_usec)
[ -n "$throttled" ] || fail "no nr_throttled in cpu.stat"
[ "$throttled" -gt 0 ] || fail "nr_throttled=$throttled (periods=$periods): cpu.max did not throttle"
# 10% quota over ~1.5 s is ~150 ms (+5 ms burst per period at most); an
# unthrottled hog would use ~1.5 s. Allow a wide margin for TCG slop.
[ "$usage" -lt 750000 ] || fail "usage_usec=$usage: quota not enforced"

# The non-root user works (tests may need it).
[ "$(runas tbuser id -u)" = 1000 ] || fail "runas tbuser id -u != 1000"
[ "$(su -s /bin/sh -c 'id -g' -- tbuser)" = 1000 ] || fail "su tbuser: gid != 1000"

echo "smoke: OK (nr_periods=$periods nr_throttled=$throttled usage_usec=$usage)"
