#!/usr/bin/env bash
# Records the README's examples again: every block between
#   <!-- record: NAME -->  and  <!-- /record -->
# holds a fenced block whose first lines are the command ("$ throttlebench …",
# continued with a trailing backslash); this runs that command with a binary
# built from this tree and writes its output (stdout and stderr, as a person
# at an 80-column pipe sees it) below the command. The file is rewritten
# only when every example ran and was trusted.
#
# An example must be one the tool itself trusts: an output that carries its
# own "few periods", "few iterations", "few requests" or "short iterations"
# warning fails the recording (change the example, not the check). A "busy
# machine" warning is the machine, not the example: each example waits for
# a quiet second first (up to a minute), is run again on that warning, up to
# TB_DOCS_TRIES times (3), and is kept with its warning after that.
#
# Root (the examples create cgroups); run it as `make docs`, which holds
# the heavy-work lock while it runs. Usage: docs/record.sh [FILE...]
# (default README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" = 0 ] || { echo "record.sh: the examples create cgroups: run as root" >&2; exit 1; }
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(README.md)
tries=${TB_DOCS_TRIES:-3}

work=$(mktemp -d /tmp/tb-docs.XXXXXX)
svc_pid=
svc_cg=
cleanup() {
	[ -n "$svc_pid" ] && kill "$svc_pid" 2>/dev/null && wait "$svc_pid" 2>/dev/null
	if [ -n "$svc_cg" ]; then
		for d in $svc_cg; do rmdir "$d" 2>/dev/null || true; done
	fi
	rm -rf "$work"
}
trap cleanup EXIT

CGO_ENABLED=0 ${GO:-go} build -o "$work/throttlebench" ./cmd/throttlebench
tb=$work/throttlebench

# The sample example reads a service's usage: a bursty one (throttlebench's
# own open loop, on-off arrivals averaging about half a CPU in spikes of
# two) in a cgroup of its own, made here and removed at the end.
start_service() {
	local name=tb-docs-service-$$
	if [ -d /sys/fs/cgroup/cpuacct ] && [ -d /sys/fs/cgroup/cpu ]; then
		svc_cg="/sys/fs/cgroup/cpu/$name /sys/fs/cgroup/cpuacct/$name"
	else
		svc_cg="/sys/fs/cgroup/$name"
	fi
	local procs=""
	for d in $svc_cg; do mkdir "$d"; procs="$procs $d/cgroup.procs"; done
	# shellcheck disable=SC2086 # procs is a list of files
	TB=$tb OUT=$work/service.json sh -c 'for f in "$@"; do echo $$ > "$f"; done; exec "$TB" latency --cgroup current --workers 4 --rate 115 --work 4ms --arrivals onoff --on 150ms --off 600ms --duration 12s --format json -o "$OUT"' sh $procs >/dev/null 2>&1 &
	svc_pid=$!
	# Its calibration and floor take about 1.5 s: sample the arrivals.
	sleep 2.5
	export PID=$svc_pid
}
stop_service() {
	kill "$svc_pid" 2>/dev/null || true
	wait "$svc_pid" 2>/dev/null || true
	svc_pid=
	for d in $svc_cg; do rmdir "$d"; done
	svc_cg=
}

# wait_quiet: wait (up to TB_DOCS_QUIET_WAIT seconds, 60) until the other
# processes keep less than 0.2 CPUs busy over a second, the busy-machine
# warning's threshold, so that an example is not recorded beside a build.
busy_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
wait_quiet() {
	local deadline=$((SECONDS + ${TB_DOCS_QUIET_WAIT:-60})) a b hz
	hz=$(getconf CLK_TCK)
	while ((SECONDS < deadline)); do
		a=$(busy_jiffies)
		sleep 1
		b=$(busy_jiffies)
		(((b - a) * 5 < hz)) && return 0
	done
	echo "record.sh: the machine stayed busy for ${TB_DOCS_QUIET_WAIT:-60} s: recording anyway" >&2
}

# skip NAME: why an example is not recorded (yet), or nothing.
# TB_DOCS_ONLY=NAME records that example alone, the others kept as they
# are.
skip() {
	if [ -n "${TB_DOCS_ONLY:-}" ] && [ "$1" != "$TB_DOCS_ONLY" ]; then
		echo "not TB_DOCS_ONLY ($TB_DOCS_ONLY)"
		return
	fi
	case $1 in
	own) "$tb" run --help | grep -q -- '-- CMD' || echo "run --help does not mention -- CMD yet" ;;
	esac
}

for file in "${files[@]}"; do
	# One line per example: NAME, then its command (continuations joined).
	awk '
		/^<!-- record: [a-z0-9-]+ -->$/ { name = $3; cmd = ""; inblock = 0; next }
		name != "" && /^```/ && !inblock { inblock = 1; next }
		name != "" && inblock && /^\$ / && cmd == "" { cmd = substr($0, 3); cont = /\\$/; next }
		name != "" && inblock && cont { cmd = cmd "\n" $0; cont = /\\$/; next }
		/^<!-- \/record -->$/ { if (name != "") { gsub(/\\\n */, "", cmd); print name "\t" cmd }; name = ""; cmd = ""; next }
	' "$file" >"$work/list"

	while IFS=$'\t' read -r name cmd; do
		if [ -z "$cmd" ] || [ -n "$(skip "$name")" ]; then
			echo "record.sh: $file: $name: skipped: ${cmd:+$(skip "$name")}${cmd:-no command}" >&2
			continue
		fi
		# "sudo throttlebench …" runs this tree's binary (we are root).
		run=${cmd#sudo }
		run="\"\$TB\" ${run#throttlebench }"
		# The sample example's service keeps the machine busy itself.
		[ "$name" = sample ] && { wait_quiet; start_service; }
		for ((i = 1; ; i++)); do
			[ "$name" = sample ] || wait_quiet
			echo "record.sh: $file: $name: $cmd" >&2
			rc=0
			TB=$tb COLUMNS=80 bash -c "$run" >"$work/$name.out" 2>&1 </dev/null || rc=$?
			if [ $rc != 0 ]; then
				cat "$work/$name.out" >&2
				echo "record.sh: $file: $name: exit $rc" >&2
				exit 1
			fi
			if grep -qE 'few periods|few iterations|few requests|short iterations' "$work/$name.out"; then
				cat "$work/$name.out" >&2
				echo "record.sh: $file: $name: the tool does not trust this example's numbers (above): change the example" >&2
				exit 1
			fi
			grep -q 'busy machine' "$work/$name.out" || break
			if [ "$i" -ge "$tries" ]; then
				echo "record.sh: $file: $name: kept with its busy-machine warning after $i tries" >&2
				break
			fi
			echo "record.sh: $file: $name: busy machine, once more" >&2
			sleep 5
		done
		[ "$name" = sample ] && stop_service
		# No trailing blanks in the file (a table's padded last column).
		sed -i -e 's/[[:space:]]*$//' "$work/$name.out"
	done <"$work/list"

	# Each block: the marker, the fence, the command lines as written, the
	# output recorded (where there is one), the fence, the end marker.
	awk -v dir="$work" '
		/^<!-- record: [a-z0-9-]+ -->$/ {
			print; name = $3; out = dir "/" name ".out"; inblock = 0; incmd = 0; done = 0; keep = 0; next
		}
		name != "" && /^<!-- \/record -->$/ { name = ""; print; next }
		name != "" {
			if (done) next
			if (/^```/ && !inblock) { inblock = 1; print; next }
			if (inblock && /^\$ / && !incmd) { incmd = 1; print; cont = /\\$/; if (!cont) { emit() }; next }
			if (incmd && cont) { print; cont = /\\$/; if (!cont) { emit() }; next }
			if (!incmd || keep) { print }
			next
		}
		{ print }
		# A recorded example replaces what was there; one not recorded this
		# time (skipped) keeps its old output.
		function emit() {
			if ((getline line < out) <= 0) { keep = 1; return }
			print line
			while ((getline line < out) > 0) print line
			close(out)
			print "```"; done = 1
		}
	' "$file" >"$work/new"
	cmp -s "$work/new" "$file" || cat "$work/new" >"$file"
	echo "record.sh: $file recorded" >&2
done
