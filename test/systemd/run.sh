#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Boot the stock systemd guest (test/systemd/setup.sh's Debian image, systemd
# as PID 1) in qemu and run PAYLOAD_DIR/guest.sh inside it.
#
# Usage: bash test/systemd/run.sh PAYLOAD_DIR [TIMEOUT_SECONDS]
#   PAYLOAD_DIR      directory with guest.sh (and what it needs, e.g. static
#                    Go binaries); unpacked in the guest as /payload
#   TIMEOUT_SECONDS  wall-clock limit for the whole boot and run, default 300
#
# Needs setup.sh to have run once (as root). run.sh itself needs no root, no
# network and no terminal, and never writes the cached image: qemu boots it
# with snapshot=on (its writes go to a temporary overlay, gone with qemu).
# The payload travels as a tar archive on a second, read-only virtio disk
# (the image's cloud kernel has no 9p). The guest console is streamed to
# stdout (CR stripped); run.sh's own messages go to stderr, "run.sh:".
#
# Exit status: guest.sh's; 2 usage error or setup.sh not run; 124 timeout
# or a stall the guest kernel reported (an RCU stall or a soft lockup: qemu
# is then killed by PID after sysrq backtraces); 125 no result (crash,
# panic, or tb-run failed before guest.sh).
#
# Environment:
#   TB_SYSTEMD_CACHE   cache dir filled by setup.sh (default <repo>/.cache/systemd)
#   TB_VM_MEM          guest memory in MiB (default 1024)
#   TB_VM_SMP          guest CPUs (default 2)
#   TB_VM_APPEND       extra kernel command line
#   TB_VM_LOG          if set, the full console log (CR stripped) is copied there
#   TB_SYSTEMD_NET     if set, the guest gets a NIC (virtio: ens4 in this
#                      image) on qemu's user network with
#                      restrict=on: it reaches nothing but what this names,
#                      comma-separated guestfwd= and hostfwd= rules (the v2
#                      Kubernetes node: test/kube/v2.sh)
#
# What guest.sh can rely on:
#   * Debian bookworm with systemd 252 as PID 1 (setup.sh's cache has the
#     versions), booted to basic.target: systemd.run= starts tb-run (the
#     image's /usr/local/sbin/tb-run) as a service, before dbus and
#     systemd-logind: `systemctl start dbus systemd-logind` first where the
#     bus or logind is needed. Nobody is logged in and no user manager runs.
#   * Run as root by `sh /payload/guest.sh` in /payload (a writable copy),
#     stdout and stderr on the serial console; its exit status is run.sh's.
#   * cgroup v2 alone at /sys/fs/cgroup, as systemd set it up; tb-run runs
#     in system.slice/kernel-command-line.service.
#   * Users: root and tbuser (1000:1000, home /home/tbuser, shell /bin/sh);
#     runuser, setpriv, su from util-linux; procps.
#   * No network but lo (with TB_SYSTEMD_NET, a NIC the guest brings up
#     itself: 10.0.2.15/24, qemu's side 10.0.2.2); the clock from the emulated RTC (host time, UTC).
#   * Don't print "TB-VM-RESULT", "TB-VM-INIT-ERROR" or "TB-VM-PAYLOAD"
#     lines: tb-run prints them, tagged with a per-run random id.
set -euo pipefail

# shellcheck disable=SC2034 # read by lib.sh (message prefix)
TB_PROG=run.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../vm/lib.sh
. "$HERE/../vm/lib.sh"
tb_install_traps
# shellcheck source=lib.sh
. "$HERE/lib.sh"

usage() {
	echo "usage: $0 PAYLOAD_DIR [TIMEOUT_SECONDS]" >&2
	exit 2
}
(($# >= 1 && $# <= 2)) || usage
PAYLOAD=$1
TIMEOUT=${2:-300}
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || tb_die 2 "TIMEOUT_SECONDS must be a positive integer (got '$TIMEOUT')"
[[ -f $PAYLOAD/guest.sh ]] || tb_die 2 "payload has no guest.sh: $PAYLOAD/guest.sh"
MEM=${TB_VM_MEM:-1024}
SMP=${TB_VM_SMP:-2}
[[ $MEM =~ ^[1-9][0-9]*$ ]] || tb_die 2 "TB_VM_MEM must be MiB as an integer (got '$MEM')"
[[ $SMP =~ ^[1-9][0-9]*$ ]] || tb_die 2 "TB_VM_SMP must be a positive integer (got '$SMP')"
tb_systemd_cached || tb_die 2 "systemd guest missing in $TB_SYSTEMD_CACHE; run: sudo bash $HERE/setup.sh"
command -v qemu-system-x86_64 >/dev/null || tb_die 2 "qemu-system-x86_64 not found; run: sudo bash $HERE/setup.sh"
# KVM does not run guests on our hosts; TB_VM_ACCEL=kvm where it does.
ACCEL=${TB_VM_ACCEL:-tcg}
case $ACCEL in
kvm) ACCEL_ARGS=(-accel kvm -cpu host) ;;
tcg) ACCEL_ARGS=(-accel tcg) ;;
*) tb_die 2 "TB_VM_ACCEL must be tcg or kvm (got '$ACCEL')" ;;
esac

tb_mktemp TMP
LOG=$TMP/console.log
NONCE=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')
# The payload as a tar archive: a plain file qemu serves as a disk (tar's
# 10 KiB records keep it a whole number of sectors).
tar -C "$PAYLOAD" -cf "$TMP/payload.tar" .
# The guests' shared helpers (wait_for), beside guest.sh.
tar -C "$HERE/../vm" -rf "$TMP/payload.tar" guestlib.sh
# qemu's snapshot overlay goes to TMPDIR: keep it in our temp dir.
export TMPDIR=$TMP

APPEND="root=LABEL=debvm rw console=ttyS0 panic=-1 quiet"
APPEND+=" systemd.run=/usr/local/sbin/tb-run"
APPEND+=" systemd.run_success_action=poweroff systemd.run_failure_action=poweroff"
# The scheduler's tracepoints held from boot, so that the tracer's attach
# patches no live code under TCG (test/vm/run.sh's "Early events").
APPEND+=" trace_event=sched:sched_switch,sched:sched_wakeup"
APPEND+=" tb.id=$NONCE${TB_VM_APPEND:+ $TB_VM_APPEND}"

NET_ARGS=()
[[ -z ${TB_SYSTEMD_NET:-} ]] ||
	NET_ARGS=(-netdev "user,id=net0,restrict=on,$TB_SYSTEMD_NET" -device virtio-net-pci,netdev=net0)

tb_log "booting $(cat "$TB_SYSTEMD_CACHE/systemd.version"), kernel $(cat "$TB_SYSTEMD_CACHE/kernel.release")," \
	"accel=$ACCEL smp=$SMP mem=${MEM}M timeout=${TIMEOUT}s payload=$PAYLOAD"
START=$(tb_now)
DEADLINE_US=$(($(now_us) + TIMEOUT * 1000000))
MON=$TMP/monitor
mkfifo "$MON.in" "$MON.out"
tb_qemu_start "$LOG" "${ACCEL_ARGS[@]}" -m "$MEM" -smp "$SMP" \
	-kernel "$TB_SYSTEMD_CACHE/vmlinuz" -initrd "$TB_SYSTEMD_CACHE/initrd.img" \
	-append "$APPEND" \
	-drive "file=$TB_SYSTEMD_CACHE/image.ext4,format=raw,if=virtio,snapshot=on,cache=unsafe" \
	-drive "file=$TMP/payload.tar,format=raw,if=none,id=payload,readonly=on" \
	-device virtio-blk-pci,drive=payload,serial=tbpayload \
	-device virtio-rng-pci \
	${NET_ARGS[@]+"${NET_ARGS[@]}"} \
	-monitor "pipe:$MON"
QPID=$TB_QEMU_PID
tail -n +1 -s 0.1 -f --pid="$QPID" "$LOG" | tr -d '\r' &
STREAM_PID=$!
TB_PIDS+=("$STREAM_PID")

RESULT_RE="TB-VM-RESULT rc=([0-9]+) id=$NONCE"
MARK_RE="TB-VM-(RESULT rc=[0-9]+|INIT-ERROR) id=$NONCE"
PAYLOAD_RE="TB-VM-PAYLOAD id=$NONCE"
# As test/vm/run.sh: the guest kernel's own word that it hangs ends the
# wait early; systemd powers off after tb-run: its shutdown gets 30 s.
tb_qemu_watch 30
tb_qemu_reap

[[ -z $stalled ]] || tb_die 124 "STALL: the guest kernel reported '$stalled' (after ${TOTAL}s); qemu (pid $QPID) killed"
((!timed_out)) || tb_die 124 "TIMEOUT: guest did not finish within ${TIMEOUT}s (payload started: ${payload_after:-no}); qemu (pid $QPID) killed"
if line=$(grep -aoE "TB-VM-INIT-ERROR id=$NONCE.*" "$LOG" | tail -n 1 | tr -d '\r') && [[ -n $line ]]; then
	tb_die 125 "tb-run failed before guest.sh: ${line#*id="$NONCE" }"
fi
line=$(grep -aoE "$RESULT_RE" "$LOG" | tail -n 1 || true)
[[ -n $line ]] || tb_die 125 "no result marker from the guest (crash, panic or early exit?); see the console above"
[[ $line =~ $RESULT_RE ]]
rc=${BASH_REMATCH[1]}
tb_log "guest.sh rc=$rc; payload started after ${payload_after:-?}s, result after ${marker_after:-?}s, total ${TOTAL}s (accel=$ACCEL)"
exit "$rc"
