#!/usr/bin/env bash
# make test's stages, one after another, each timed and each run even when
# an earlier one failed: one run reports every lane (issue 45). Each stage
# prints its start, its end and its duration as it goes; a table of all of
# them comes last, and the exit status is 1 when any stage failed.
#
# Usage: test/stages.sh [STAGE...]   (default: every stage, in this order)
#   host     unit tests and the integration tests on this host (test-host)
#   fuzz     the boundary fuzz targets (test-fuzz)
#   v2       cgroup v2 in the busybox guest (test/vm/test-v2.sh v2)
#   smt      the SMT guest (test/vm/test-v2.sh smt)
#   tracer   the tracer's tests on the guest's kernel (test/vm/test-v2.sh tracer)
#   tracer-6.12  the same, and the runs traced whole, on Debian's 6.12
#            (TB_VM_KERNEL=6.12 test/vm/test-v2.sh tracer): the kernel of
#            most production nodes between 6.1 and this host's 6.18, the
#            tracer's middle throttle model (issue 49)
#   systemd  the stock systemd guest (test-systemd)
#   containers-v2  Docker and a Kubernetes 1.35 node on cgroup v2, in one
#            boot of the systemd guest (test-containers-v2: test/kube/v2.sh)
#   docker   the Docker image in a real engine (test-docker)
#   kube     a real Kubernetes node on this host's cgroup v1 (test-kube)
# MAKE names the make to call (the Makefile passes its own); the VM boots'
# summary goes to TB_VM_SUMMARY (bin/test-vm-boots.txt).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
make=${MAKE:-make}
all=(host fuzz v2 smt tracer tracer-6.12 systemd containers-v2 docker kube)
stages=("$@")
((${#stages[@]})) || stages=("${all[@]}")
mkdir -p bin
export TB_VM_SUMMARY=${TB_VM_SUMMARY:-$PWD/bin/test-vm-boots.txt}
: >"$TB_VM_SUMMARY"

stage_cmd() {
	case $1 in
	host) $make --no-print-directory test-host ;;
	fuzz) $make --no-print-directory test-fuzz ;;
	v2 | smt | tracer) test/vm/test-v2.sh "$1" ;;
	tracer-6.12) TB_VM_KERNEL=6.12 test/vm/test-v2.sh tracer ;;
	systemd) $make --no-print-directory test-systemd ;;
	containers-v2) $make --no-print-directory test-containers-v2 ;;
	docker) $make --no-print-directory test-docker ;;
	kube) $make --no-print-directory test-kube ;;
	*)
		echo "stages.sh: no stage '$1' (have: ${all[*]})" >&2
		return 2
		;;
	esac
}

# A Ctrl-C or SIGTERM ends the stage running (its own traps clean up) and
# then this script, with no later stage started.
stop=0
trap 'stop=130' INT
trap 'stop=143' TERM
rows=()
failed=0
for s in "${stages[@]}"; do
	if ((stop)); then
		rows+=("$(printf '%-13s %-8s %8s %6s  %s' "$s" "-" "-" "-" "not run (interrupted)")")
		continue
	fi
	start=$(date +%s.%N)
	echo "== stage $s: start $(date -u +%H:%M:%S)"
	rc=0
	stage_cmd "$s" || rc=$?
	end=$(date +%s.%N)
	took=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
	verdict=ok
	((rc == 0)) || { verdict="FAILED (exit $rc)"; failed=1; }
	echo "== stage $s: end $(date -u +%H:%M:%S), $verdict, ${took} s"
	rows+=("$(printf '%-13s %-8s %8s %6s  %s' "$s" "$(date -u -d "@${start%.*}" +%H:%M:%S)" "$(date -u -d "@${end%.*}" +%H:%M:%S)" "$took" "$verdict")")
done

echo
echo "make test: the VM boots, one line per guest:"
cat "$TB_VM_SUMMARY"
echo
echo "make test: the stages (UTC; seconds):"
printf '%-13s %-8s %8s %6s  %s\n' stage start end took result
printf '%s\n' "${rows[@]}"
((stop)) && exit "$stop"
exit "$failed"
