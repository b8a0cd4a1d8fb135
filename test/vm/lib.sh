# shellcheck shell=bash
# Shared helpers for test/vm/setup.sh and test/vm/run.sh. Sourced, never run.
#
# Everything here is careful about processes: every qemu we start is recorded
# in TB_PIDS and killed *by PID* from the EXIT trap (tb_cleanup), so an
# interrupted or failing script never leaves a qemu behind. Temporary
# directories are recorded in TB_TMPDIRS and removed the same way.

# Paths are derived from this file's location, so the scripts work from any
# working directory.
TB_VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TB_REPO=$(cd "$TB_VM_DIR/../.." && pwd)

# Cache directory (kernel, busybox, KVM probe result). Overridable so CI can
# point it at a cached path; a relative value is taken relative to the
# caller's working directory.
TB_VM_CACHE=${TB_VM_CACHE:-$TB_REPO/.cache/vm}
case $TB_VM_CACHE in
/*) ;;
*) TB_VM_CACHE=$PWD/$TB_VM_CACHE ;;
esac

TB_PIDS=()
TB_TMPDIRS=()

tb_log() { printf '%s: %s\n' "${TB_PROG:-tb-vm}" "$*" >&2; }
tb_die() {
	local rc=$1
	shift
	tb_log "ERROR: $*"
	exit "$rc"
}

# Seconds since the epoch with sub-second precision (for timing/logging).
tb_now() { date +%s.%N; }
# Elapsed seconds since $1 (as produced by tb_now), 1 decimal.
tb_since() { awk -v s="$1" -v e="$(tb_now)" 'BEGIN { printf "%.1f", e - s }'; }

# tb_mktemp VAR: create a temp dir, store its path in VAR, register it for
# removal. (Not a $(...) function: a subshell would lose the registration.)
tb_mktemp() {
	local d
	d=$(mktemp -d "${TMPDIR:-/tmp}/tb-vm.XXXXXX")
	TB_TMPDIRS+=("$d")
	printf -v "$1" '%s' "$d"
}

# Drop a PID from TB_PIDS once it has been reaped, so the EXIT trap can never
# signal an unrelated process that later reuses the number.
tb_forget_pid() {
	local pid=$1 p keep=()
	for p in ${TB_PIDS[@]+"${TB_PIDS[@]}"}; do
		[[ $p == "$pid" ]] || keep+=("$p")
	done
	TB_PIDS=(${keep[@]+"${keep[@]}"})
}

# Kill one of our child processes by PID: TERM, up to ~3 s grace, then KILL;
# then reap it and forget it. Never matches by name.
tb_kill_pid() {
	local pid=$1 _
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid" 2>/dev/null || true
		tb_forget_pid "$pid"
		return 0
	fi
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 30); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	tb_forget_pid "$pid"
}

# EXIT trap: kill what we started (by PID), remove our temp dirs.
tb_cleanup() {
	local pid d
	for pid in ${TB_PIDS[@]+"${TB_PIDS[@]}"}; do
		tb_kill_pid "$pid"
	done
	for d in ${TB_TMPDIRS[@]+"${TB_TMPDIRS[@]}"}; do
		rm -rf -- "$d"
	done
}

# Scripts call this once: INT/TERM become a normal exit so the EXIT trap runs.
tb_install_traps() {
	trap tb_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
}

# The console's signs of a hung guest kernel.
STALL_RE='rcu: INFO: rcu_[a-z]+ (self-)?detected stall|watchdog: BUG: soft lockup'

# now_us is the wall clock in microseconds (bash's own, no fork).
now_us() { local t=${EPOCHREALTIME/[.,]/}; printf '%s' "$((10#$t))"; }

# tb_qemu_watch GRACE_S: follows qemu ($QPID) and its console ($LOG) until
# it exits, DEADLINE_US passes, the kernel reports a stall before the result
# marker ($MARK_RE), or the guest printed its result and has not powered off
# GRACE_S seconds later. Sets timed_out (1 on a deadline or a stall),
# stalled (the stall's line), marker_after and, where $PAYLOAD_RE is set,
# payload_after (seconds since $START). On a timeout or a stall it asks the
# guest kernel for backtraces first (sysrq 9: console loglevel 9, or
# "quiet" would hide the dumps; l: every CPU; w: blocked tasks) through the
# emulated keyboard on $MON.in ("1<>" opens the FIFO read-write, so the
# write cannot block even if qemu has just gone).
tb_qemu_watch() {
	local grace_us=$(($1 * 1000000)) marker_us=0
	timed_out=0 stalled= marker_after= payload_after=
	while kill -0 "$QPID" 2>/dev/null; do
		if [[ -n ${PAYLOAD_RE:-} && -z $payload_after ]] && grep -qaE "$PAYLOAD_RE" "$LOG"; then
			payload_after=$(tb_since "$START")
		fi
		if [[ -z $marker_after ]] && grep -qaE "$MARK_RE" "$LOG"; then
			marker_after=$(tb_since "$START")
			marker_us=$(now_us)
		fi
		if (($(now_us) >= DEADLINE_US)); then
			timed_out=1
			break
		fi
		if [[ -z $marker_after ]] && stalled=$(grep -aoE -m1 "$STALL_RE" "$LOG"); then
			timed_out=1
			break
		fi
		if [[ -n $marker_after ]] && (($(now_us) - marker_us > grace_us)); then
			tb_log "WARNING: guest printed its result but did not power off; killing qemu"
			break
		fi
		sleep 0.2
	done
	if ((timed_out)) && kill -0 "$QPID" 2>/dev/null; then
		tb_log "$([[ -n $stalled ]] && echo stall || echo timeout): asking the guest kernel for sysrq backtraces (9, l, w) before killing qemu"
		for key in 9 l w; do
			printf 'sendkey alt-sysrq-%s\n' "$key" 1<>"$MON.in" || true
			sleep 1.5
		done
	fi
}

# tb_qemu_reap: kills qemu if it still runs (qemu_rc=killed) or reaps it
# (qemu_rc its status), waits for the console's stream ($STREAM_PID), ends
# the console's last line (the kernel's "reboot: Power down" has none),
# sets TOTAL (seconds since $START) and copies the console to $TB_VM_LOG
# where set.
tb_qemu_reap() {
	qemu_rc=0
	if kill -0 "$QPID" 2>/dev/null; then
		tb_kill_pid "$QPID"
		qemu_rc=killed
	else
		wait "$QPID" || qemu_rc=$?
		tb_forget_pid "$QPID"
	fi
	wait "$STREAM_PID" 2>/dev/null || true
	tb_forget_pid "$STREAM_PID"
	if [[ -n $(tail -c 1 "$LOG" | tr -d '\r\n') ]]; then echo; fi
	TOTAL=$(tb_since "$START")
	[[ -z ${TB_VM_LOG:-} ]] || tr -d '\r' <"$LOG" >"$TB_VM_LOG"
}

# Start qemu in the background with the serial console going to file $1.
# Sets TB_QEMU_PID. stdin is /dev/null: qemu must never touch a terminal.
# qemu's own messages go to stderr, or to file $TB_QEMU_ERR if set.
tb_qemu_start() {
	local log=$1
	shift
	: >"$log"
	if [[ -n ${TB_QEMU_ERR:-} ]]; then
		exec 8>"$TB_QEMU_ERR"
	else
		exec 8>&2
	fi
	# setpriv --pdeathsig (util-linux, Essential on Debian) makes the kernel
	# kill qemu if this shell dies by SIGKILL, when no trap can run. It
	# execs qemu, so $! is still qemu's own PID.
	# (Help text captured first: `setpriv --help | grep -q` can fail under
	# pipefail when grep exits early and setpriv gets SIGPIPE.)
	local pdeath=() help
	help=$(setpriv --help 2>/dev/null || true)
	if [[ $help == *--pdeathsig* ]]; then
		pdeath=(setpriv --pdeathsig KILL --)
	fi
	${pdeath[@]+"${pdeath[@]}"} qemu-system-x86_64 \
		-nodefaults -no-user-config \
		-display none \
		-no-reboot \
		-serial "file:$log" \
		"$@" </dev/null 2>&8 &
	exec 8>&-
	TB_QEMU_PID=$!
	TB_PIDS+=("$TB_QEMU_PID")
}

tb_kernel() { printf '%s\n' "$TB_VM_CACHE/vmlinuz"; }
tb_busybox() { printf '%s\n' "$TB_VM_CACHE/busybox"; }

tb_require_cache() {
	[[ -s $TB_VM_CACHE/vmlinuz && -x $TB_VM_CACHE/busybox ]] ||
		tb_die 2 "VM assets missing in $TB_VM_CACHE; run: sudo bash $TB_VM_DIR/setup.sh"
	command -v qemu-system-x86_64 >/dev/null ||
		tb_die 2 "qemu-system-x86_64 not found; run: sudo bash $TB_VM_DIR/setup.sh"
	command -v cpio >/dev/null ||
		tb_die 2 "cpio not found; run: sudo bash $TB_VM_DIR/setup.sh"
}

# Decide the qemu accelerator and store it in TB_ACCEL: "kvm" or "tcg".
# (Sets a variable instead of printing: the probe starts qemu, and that must
# happen in this shell so the EXIT trap can kill it by PID.)
#
# TB_VM_ACCEL=kvm|tcg forces it; the default "auto" uses KVM only if a KVM
# guest has been seen to actually boot on this host. /dev/kvm being present is
# not enough: on some hosts (nested/sandboxed) it opens fine but the guest
# spins forever without output. The probe boots a tiny initramfs with KVM and
# waits for a token on the serial console; the result is cached per host boot
# (keyed by /proc/sys/kernel/random/boot_id) so a cache restored onto another
# machine or after a reboot is re-probed. When in doubt: TCG.
tb_accel() {
	local want=${TB_VM_ACCEL:-auto}
	case $want in
	kvm | tcg)
		TB_ACCEL=$want
		return 0
		;;
	auto) ;;
	*) tb_die 2 "TB_VM_ACCEL must be auto, kvm or tcg (got '$want')" ;;
	esac
	if [[ ! -r /dev/kvm || ! -w /dev/kvm ]]; then
		TB_ACCEL=tcg
		return 0
	fi
	local boot_id result_file
	boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
	result_file=$TB_VM_CACHE/accel.$boot_id
	if [[ -s $result_file ]]; then
		TB_ACCEL=$(cat "$result_file")
		[[ $TB_ACCEL == kvm ]] || TB_ACCEL=tcg
		return 0
	fi
	tb_probe_kvm
	# Atomic write so parallel runs never see a half-written file. Best
	# effort: a non-root run.sh may not be able to write a root-owned cache;
	# it then just probes again next time.
	{ printf '%s\n' "$TB_ACCEL" >"$result_file.$$" &&
		mv -f "$result_file.$$" "$result_file"; } 2>/dev/null ||
		rm -f "$result_file.$$" 2>/dev/null || true
}

# Boot a minimal busybox initramfs under KVM; set TB_ACCEL=kvm if it reaches
# userspace within TB_VM_KVM_PROBE_TIMEOUT seconds (default 15), else tcg.
tb_probe_kvm() {
	local limit=${TB_VM_KVM_PROBE_TIMEOUT:-15}
	local tmp token start result=tcg
	tb_mktemp tmp
	token=kvm-probe-$$-$RANDOM$RANDOM
	mkdir -p "$tmp/root/bin"
	cp "$(tb_busybox)" "$tmp/root/bin/busybox"
	cat >"$tmp/root/init" <<EOF
#!/bin/busybox sh
/bin/busybox echo "$token"
/bin/busybox poweroff -f
EOF
	chmod 755 "$tmp/root/init"
	(cd "$tmp/root" && find . | cpio -o -H newc --owner=0:0 --quiet) >"$tmp/probe.cpio"
	tb_log "probing KVM (up to ${limit}s; set TB_VM_ACCEL=tcg|kvm to skip)..."
	start=$(tb_now)
	# The probe's qemu stderr goes to a file (its "terminating on signal"
	# line would look like an error); shown only if KVM is rejected early.
	TB_QEMU_ERR=$tmp/qemu.err tb_qemu_start "$tmp/console.log" \
		-accel kvm -cpu host -m 256 -smp 1 \
		-kernel "$(tb_kernel)" -initrd "$tmp/probe.cpio" \
		-append "console=ttyS0 panic=-1 quiet"
	local pid=$TB_QEMU_PID
	while kill -0 "$pid" 2>/dev/null; do
		if grep -qaF "$token" "$tmp/console.log"; then
			result=kvm
			break
		fi
		if awk -v s="$start" -v e="$(tb_now)" -v l="$limit" 'BEGIN { exit !(e - s >= l) }'; then
			break
		fi
		sleep 0.2
	done
	# qemu may have exited between the last check and now.
	grep -qaF "$token" "$tmp/console.log" && result=kvm
	tb_kill_pid "$pid"
	if [[ $result == tcg ]] && grep -qv 'terminating on signal' "$tmp/qemu.err"; then
		tb_log "qemu with KVM said: $(grep -v 'terminating on signal' "$tmp/qemu.err" | head -3 | tr '\n' ' ')"
	fi
	rm -rf -- "$tmp"
	tb_log "KVM probe: $result (after $(tb_since "$start")s)"
	TB_ACCEL=$result
}
