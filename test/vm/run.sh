#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Boot a throwaway cgroup v2 VM (qemu) and run PAYLOAD_DIR/guest.sh inside it.
#
# Usage: bash test/vm/run.sh PAYLOAD_DIR [TIMEOUT_SECONDS]
#   PAYLOAD_DIR      directory with guest.sh (and whatever it needs, e.g.
#                    static Go binaries); copied into the guest as /payload
#   TIMEOUT_SECONDS  wall-clock limit for the whole boot+run, default 600
#
# Needs test/vm/setup.sh to have run once (as root). run.sh itself needs no
# root, no network, no terminal (stdin may be /dev/null), and works from any
# working directory. The guest console is streamed to stdout (CR stripped);
# run.sh's own messages go to stderr, prefixed "run.sh:".
#
# Exit status:
#   guest.sh's exit status, when the guest reported one
#   2    usage error / setup.sh not run
#   124  timeout hit, or the guest kernel reported a stall (an RCU stall or
#        a soft lockup: under TCG we have only seen those in guests that
#        then hung, so the timeout is not waited for); either way the guest
#        kernel is first asked for sysrq backtraces of running CPUs and
#        blocked tasks, into the log; then qemu killed
#   125  no result: guest crashed, panicked, or /init failed to set up
# (so guest.sh should avoid exiting 2, 124 or 125 if a caller must tell them
# apart).
#
# Hangs: /init prints a payload marker just before it runs guest.sh. On rc
# 124 or 125, with TB_VM_HANG set, run.sh writes key=value lines there:
#   why=stall|timeout|no-result|init-error
#   payload=before|after      (whether the payload marker was printed)
#   suspect=FRAME...          the stack frames from the stall report on
#                             (else from the sysrq dumps, else from the
#                             payload marker) that name BPF or live text
#                             patching (bpf, text_poke, int3, static_key,
#                             static_call, jump_label); empty when none did
#   frames=FRAME...           the first of those frames, less the dumps' own
# and after a line "report:" the stall report itself (up to 80 lines).
#
# Early events: the kernel's trace_event= enables sched_switch,
# sched_wakeup and sched_wakeup_new (the tracer's three) in early boot (an
# early initcall, before the second CPU starts), which registers two
# probes on each (the event's and the
# cmdline recorder's). A tracepoint's call site is live-patched only when
# its probes go 0 <-> 1 <-> 2 (the static key and the static call); with
# two held from boot, a BPF program's attach and detach patch nothing.
# Under TCG such patches, made while the other vCPU ran through
# __schedule, hung guests (test-v2.sh attach counts them). /init mounts
# tracefs and turns the ring buffer's recording off (tracing_on 0; 6.1 has
# no boot parameter for that): the events stay enabled, so the probes stay,
# and each switch costs only the probes' early return.
#
# Environment:
#   TB_VM_CACHE   cache dir filled by setup.sh (default <repo>/.cache/vm)
#   TB_VM_ACCEL   auto (default) | kvm | tcg. auto = KVM only if a probe
#                 guest really booted with KVM on this host (cached per boot);
#                 else TCG (software emulation, works everywhere)
#   TB_VM_MEM     guest memory in MiB (default 1024)
#   TB_VM_SMP     guest CPUs (default 2), or a qemu -smp topology such as
#                 "4,sockets=1,cores=2,threads=2" (2 cores with 2 SMT threads)
#   TB_VM_APPEND  extra kernel command line (e.g. "loglevel=7")
#   TB_VM_EARLY_EVENTS  1 (default): the scheduler's tracepoints get their
#                 probes at boot (see "Early events" below); 0: not (how
#                 every boot was before, for test-v2.sh attach's counts)
#   TB_VM_HANG    if set, a file: on rc 124 or 125 run.sh writes there what
#                 a caller needs to judge the hang (see "Hangs" below)
#   TB_VM_LOG     if set, the full console log (CR stripped) is copied there
#   TB_VM_QEMU_ARGS  extra qemu arguments, word-split (debugging aid, e.g.
#                 "-monitor unix:/tmp/mon.sock,server=on,wait=off")
#
# ---------------------------------------------------------------------------
# What guest.sh can rely on (the guest contract)
# ---------------------------------------------------------------------------
#   * Run as root by `sh /payload/guest.sh` (busybox ash), cwd /payload,
#     stdin /dev/null, stdout/stderr on the serial console (-> host stdout).
#     Its exit status becomes run.sh's exit status.
#   * Kernel: Debian linux-image-amd64 (see <cache>/kernel.release), no
#     modules; 2 CPUs and 1 GiB RAM by default. Root fs is the initramfs
#     (in RAM, writable); /payload is a copy of PAYLOAD_DIR, owned by root,
#     modes preserved.
#   * Mounted: /proc, /sys, /dev (devtmpfs), /dev/pts, /dev/shm, /tmp (tmpfs,
#     1777), and cgroup2 at /sys/fs/cgroup (pure v2, no v1 hierarchies).
#     The root cgroup's cgroup.subtree_control has +cpu and, when the kernel
#     offers it, +cpuset; enable more (memory, pids, io) yourself. /init and
#     guest.sh live in the root cgroup.
#   * Tools: busybox 1.35 (static) with all applets as commands in
#     /bin, /sbin, /usr/bin, /usr/sbin (sh, awk, sed, grep, timeout, taskset,
#     seq, yes, sleep with fractions, ps, kill, ip, nsenter, unshare, ...).
#     No glibc: ship static binaries only (Go: CGO_ENABLED=0).
#   * Users: root (0:0) and tbuser (uid 1000, gid 1000 "tbuser", home
#     /home/tbuser owned by it); nobody/nogroup 65534. /etc/passwd, /etc/group,
#     /etc/shadow (no passwords), /etc/hosts, /etc/nsswitch.conf exist.
#   * Dropping privileges: busybox on Debian 12 has no chpst/setuidgid, and
#     its setpriv cannot change uid. What works (as root, no setuid needed):
#         runas tbuser CMD [ARG...]       # helper in /usr/local/bin; execs
#                                         # CMD with args verbatim as tbuser
#         su -s /bin/sh -c 'shell command' -- tbuser
#         start-stop-daemon -S -c tbuser:tbuser -x /path/prog -- ARG...
#     (With su, put "--" before the user: busybox getopt permutes argv.)
#     All set uid, gid and supplementary groups (from /etc/group) and keep
#     the environment except HOME/SHELL/USER/LOGNAME. To let tbuser manage a
#     cgroup, delegate it first, e.g. `chown -R tbuser:tbuser $cg` plus
#     chown of the parent's cgroup.procs if it must move processes.
#   * Clock: wall clock set from the emulated RTC (host time, UTC);
#     CLOCK_MONOTONIC is sane. Under TCG the guest runs several times slower
#     than the host, so keep timing thresholds generous.
#   * Network: only lo (127.0.0.1, ::1) is up; there is no NIC.
#   * Env: PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
#     TB_VM=1 TZ=UTC. Host environment is NOT passed through: put any
#     configuration into PAYLOAD_DIR.
#   * Output: only the console comes back. Print results (e.g. JSON lines)
#     and parse them from stdout or from $TB_VM_LOG on the host.
#   * Tracing: tracefs at /sys/kernel/tracing, with sched:sched_switch,
#     sched:sched_wakeup and sched:sched_wakeup_new enabled from boot and
#     tracing_on 0 (see "Early events" above; not with
#     TB_VM_EARLY_EVENTS=0). Leave the events
#     on: disabling them live-patches __schedule, what they are there to
#     avoid.
#   * Don't print "TB-VM-RESULT"/"TB-VM-INIT-ERROR"/"TB-VM-PAYLOAD" lines
#     yourself; /init prints them, tagged with a per-run random id.
set -euo pipefail

# shellcheck disable=SC2034 # read by lib.sh (message prefix)
TB_PROG=run.sh
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
tb_install_traps

usage() {
	echo "usage: $0 PAYLOAD_DIR [TIMEOUT_SECONDS]" >&2
	exit 2
}

(($# >= 1 && $# <= 2)) || usage
PAYLOAD=$1
TIMEOUT=${2:-600}
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || tb_die 2 "TIMEOUT_SECONDS must be a positive integer (got '$TIMEOUT')"
[[ -d $PAYLOAD ]] || tb_die 2 "payload dir not found: $PAYLOAD"
[[ -f $PAYLOAD/guest.sh ]] || tb_die 2 "payload has no guest.sh: $PAYLOAD/guest.sh"
MEM=${TB_VM_MEM:-1024}
SMP=${TB_VM_SMP:-2}
[[ $MEM =~ ^[1-9][0-9]*$ ]] || tb_die 2 "TB_VM_MEM must be MiB as an integer (got '$MEM')"
[[ $SMP =~ ^[1-9][0-9]*(,(sockets|dies|clusters|cores|threads)=[1-9][0-9]*)*$ ]] ||
	tb_die 2 "TB_VM_SMP must be a positive integer, optionally with a topology such as 4,sockets=1,cores=2,threads=2 (got '$SMP')"
tb_require_cache
tb_accel

tb_mktemp TMP
ROOT=$TMP/root
LOG=$TMP/console.log
INITRD=$TMP/initramfs.cpio
# Random per-run id in the result marker, so nothing guest.sh (or a test it
# runs) prints can be mistaken for the real result line.
NONCE=$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')

# --- build the initramfs tree ----------------------------------------------
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,proc,sys,dev,tmp,run,root,home/tbuser,payload,var/log}
cp "$(tb_busybox)" "$ROOT/bin/busybox"
# Install the applets as symlinks at build time (busybox --list-full gives
# paths like "usr/bin/awk"); saves a --install step in the guest.
while IFS= read -r applet; do
	[[ -e $ROOT/$applet || -L $ROOT/$applet ]] || ln -s /bin/busybox "$ROOT/$applet"
done < <("$ROOT/bin/busybox" --list-full)

cat >"$ROOT/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
tbuser:x:1000:1000:throttlebench test user:/home/tbuser:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat >"$ROOT/etc/group" <<'EOF'
root:x:0:
tbuser:x:1000:
nogroup:x:65534:
EOF
cat >"$ROOT/etc/shadow" <<'EOF'
root:*:19000:0:99999:7:::
tbuser:*:19000:0:99999:7:::
nobody:*:19000:0:99999:7:::
EOF
chmod 600 "$ROOT/etc/shadow"
printf '/bin/sh\n' >"$ROOT/etc/shells"
printf '127.0.0.1\tlocalhost tb-vm\n::1\tlocalhost ip6-localhost\n' >"$ROOT/etc/hosts"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$ROOT/etc/nsswitch.conf"
printf 'tb-vm\n' >"$ROOT/etc/hostname"

cat >"$ROOT/usr/local/bin/runas" <<'EOF'
#!/bin/sh
# runas USER CMD [ARG...]: run CMD as USER (uid, gid and groups from
# /etc/passwd and /etc/group), arguments passed through verbatim.
# busybox su runs `sh -c 'exec "$@"' runas CMD ARG...` as USER; as root it
# asks for no password and needs no setuid bit. The "--" matters: busybox
# getopt permutes, so without it su would parse CMD's options (e.g. the -u
# of `id -u`) as its own.
if [ $# -lt 2 ]; then
	echo "usage: runas USER CMD [ARG...]" >&2
	exit 2
fi
u=$1
shift
exec su -s /bin/sh -c 'exec "$@"' -- "$u" runas "$@"
EOF
chmod 755 "$ROOT/usr/local/bin/runas"

EARLY=${TB_VM_EARLY_EVENTS:-1}
[[ $EARLY == [01] ]] || tb_die 2 "TB_VM_EARLY_EVENTS must be 0 or 1 (got '$EARLY')"

# /init (PID 1). Written with a quoted heredoc (no host expansion); the
# nonce is substituted afterwards.
cat >"$ROOT/init" <<'EOF'
#!/bin/sh
# PID 1 of the throttlebench test VM, generated by test/vm/run.sh.
# No `set -e`: every failure must still end in a marker line and a poweroff.
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root USER=root LOGNAME=root SHELL=/bin/sh TERM=dumb TZ=UTC TB_VM=1
ID=@NONCE@

say() { echo "tb-vm-init: $*"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

off() {
	# Give the tty layer a moment to push the last line out of the UART,
	# then power off. If that fails, sysrq; if that fails, exiting PID 1
	# panics the kernel and panic=-1 + qemu -no-reboot end qemu anyway.
	sleep 0.3
	poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 5
	exit 1
}

# Leading newline: output without a trailing newline (or a kernel message)
# must not share the marker's line.
init_error() {
	printf '\nTB-VM-INIT-ERROR id=%s %s\n' "$ID" "$*"
	off
}

mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc || init_error "mount /proc failed"
mount -t sysfs sysfs /sys || init_error "mount /sys failed"
mount -t devtmpfs devtmpfs /dev || init_error "mount /dev failed"
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts || init_error "mount /dev/pts failed"
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || init_error "mount /dev/shm failed"
mount -t tmpfs -o mode=1777 tmpfs /tmp || init_error "mount /tmp failed"
mount -t tmpfs -o mode=755 tmpfs /run || init_error "mount /run failed"
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
mount -t cgroup2 cgroup2 /sys/fs/cgroup || init_error "mount cgroup2 failed"

CG=/sys/fs/cgroup
ctrls=$(cat $CG/cgroup.controllers)
case " $ctrls " in
*" cpu "*) ;;
*) init_error "no cpu controller in $CG/cgroup.controllers: '$ctrls'" ;;
esac
echo +cpu >$CG/cgroup.subtree_control || init_error "cannot enable +cpu"
case " $ctrls " in
*" cpuset "*) echo +cpuset >$CG/cgroup.subtree_control || init_error "cannot enable +cpuset" ;;
esac

# The early events (see run.sh's header): they must be on, or the tracer's
# attaches patch __schedule again; the ring buffer must not record.
if [ @EARLY@ = 1 ]; then
	T=/sys/kernel/tracing
	mount -t tracefs tracefs $T || init_error "mount tracefs failed"
	echo 0 >$T/tracing_on || init_error "cannot turn tracing_on off"
	for e in sched_switch sched_wakeup sched_wakeup_new; do
		[ "$(cat $T/events/sched/$e/enable)" = 1 ] || init_error "sched:$e is not enabled from boot (trace_event=)"
	done
fi

# Allow all sysrq functions: on a timeout run.sh sends sysrq l/w through the
# emulated keyboard to get backtraces into the log before killing qemu.
echo 1 >/proc/sys/kernel/sysrq
hostname tb-vm
ip link set lo up || init_error "cannot bring up lo"
chown -R 1000:1000 /home/tbuser
chmod 700 /root

say "kernel $(uname -r), $(nproc) cpus, $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo)," \
	"clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
say "date $(date -u '+%Y-%m-%dT%H:%M:%SZ'), uptime $(uptime_s)s"
say "cgroup2 controllers: $ctrls; root subtree_control: $(cat $CG/cgroup.subtree_control)"
say "running /payload/guest.sh"
# The payload starts here: a hang after this line may be the payload's.
printf '\nTB-VM-PAYLOAD id=%s\n' "$ID"

cd /payload || init_error "no /payload"
sh /payload/guest.sh </dev/null
rc=$?
cd /
say "guest.sh exited rc=$rc at uptime $(uptime_s)s"
printf '\nTB-VM-RESULT rc=%s id=%s\n' "$rc" "$ID"
off
EOF
sed -i "s/@NONCE@/$NONCE/; s/@EARLY@/$EARLY/" "$ROOT/init"
chmod 755 "$ROOT/init"

cp -a -- "$PAYLOAD/." "$ROOT/payload/"
# The guests' shared helpers (wait_for), beside every payload's guest.sh.
cp -- "$(dirname "${BASH_SOURCE[0]}")/guestlib.sh" "$ROOT/payload/guestlib.sh"

# Uncompressed newc cpio: the kernel unpacks it with a plain copy, which is
# faster under TCG than decompressing. Owners normalized to root; /init
# chowns /home/tbuser at boot.
(cd "$ROOT" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet) >"$INITRD"
rm -rf -- "$ROOT"

# --- boot ---------------------------------------------------------------------
if [[ $TB_ACCEL == kvm ]]; then
	ACCEL_ARGS=(-accel kvm -cpu host)
else
	ACCEL_ARGS=(-accel tcg)
fi
APPEND="console=ttyS0 panic=-1 quiet"
if ((EARLY)); then
	APPEND+=" trace_event=sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new"
fi
APPEND+="${TB_VM_APPEND:+ $TB_VM_APPEND}"

tb_log "booting $(cat "$TB_VM_CACHE/kernel.release") accel=$TB_ACCEL smp=$SMP mem=${MEM}M" \
	"initramfs=$(($(stat -c %s "$INITRD") / 1024))KiB timeout=${TIMEOUT}s payload=$PAYLOAD"
START=$(tb_now)
# Microsecond clock for the timeout ($SECONDS ticks in whole seconds and
# may fire up to 1 s early). EPOCHREALTIME needs bash >= 5 (Debian 12: 5.2).
DEADLINE_US=$(($(now_us) + TIMEOUT * 1000000))
# The qemu monitor on a pair of FIFOs ($MON.in/$MON.out, opened O_RDWR by
# qemu, so nothing blocks): used only on timeout, to make the guest kernel
# dump CPU backtraces and blocked tasks (sysrq l, w) into the console log.
MON=$TMP/monitor
mkfifo "$MON.in" "$MON.out"
# No NIC (-nodefaults in tb_qemu_start), serial console into $LOG, no
# display, stdin /dev/null: nothing ever touches a terminal.
read -r -a EXTRA_ARGS <<<"${TB_VM_QEMU_ARGS:-}"
tb_qemu_start "$LOG" "${ACCEL_ARGS[@]}" -m "$MEM" -smp "$SMP" \
	-kernel "$(tb_kernel)" -initrd "$INITRD" -append "$APPEND" \
	-monitor "pipe:$MON" \
	${EXTRA_ARGS[@]+"${EXTRA_ARGS[@]}"}
QPID=$TB_QEMU_PID

# Stream the console while qemu runs; tail exits by itself once qemu is gone
# (--pid), after printing what is left in the log.
tail -n +1 -s 0.1 -f --pid="$QPID" "$LOG" | tr -d '\r' &
STREAM_PID=$!
TB_PIDS+=("$STREAM_PID")

RESULT_RE="TB-VM-RESULT rc=([0-9]+) id=$NONCE"
MARK_RE="TB-VM-(RESULT rc=[0-9]+|INIT-ERROR) id=$NONCE"
# The kernel's own word that it hangs (STALL_RE, lib.sh): a CPU that
# passed no RCU quiescent state for 21 s, or that ran in the kernel without
# scheduling for 20 s. Under TCG on our 2-core hosts a guest hung now and
# then (a vCPU that stops answering another's IPI, in our logs), and said
# so this way within half a minute; waiting for the whole timeout (up to 6
# minutes) as well made each hang cost CI that much more. /init powers off
# right after the marker: 15 s of grace if qemu lingers (poweroff broken).
tb_qemu_watch 15
tb_qemu_reap

# hang_report WHY: TB_VM_HANG's lines (see the header) from the console log.
hang_report() {
	[[ -n ${TB_VM_HANG:-} ]] || return 0
	local why=$1 payload=before from=1 n frames suspect
	n=$(grep -naE "TB-VM-PAYLOAD id=$NONCE" "$LOG" | head -n 1 | cut -d: -f1 || true)
	if [[ -n $n ]]; then
		payload=after
		from=$n
	fi
	# The stall's own report when there is one (it comes before the sysrq
	# dumps), else the sysrq dumps, else all after the payload's start.
	n=$(grep -naE "$STALL_RE" "$LOG" | head -n 1 | cut -d: -f1 || true)
	[[ -n $n ]] || n=$(grep -naE 'sysrq: ' "$LOG" | head -n 1 | cut -d: -f1 || true)
	[[ -z $n ]] || from=$n
	# Frames as the kernel prints them: name+0xOFF/0xLEN; "? name" ones are
	# guesses from the stack and are left out.
	frames=$(tail -n "+$from" "$LOG" | tr -d '\r' | grep -v ' ? ' |
		grep -oE '[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+' | sed 's/+.*//' || true)
	suspect=$(grep -E 'bpf|text_poke|int3|static_key|static_call|jump_label' <<<"$frames" | awk '!seen[$0]++' | head -n 8 | tr '\n' ' ' || true)
	# For the summary, the frames of what each CPU was doing: without
	# those of the dump itself (sysrq's NMI backtrace, the keyboard
	# interrupt that carried it, the timer interrupt of a stall report).
	local machinery='^(dump_stack|show_|nmi_|__handle_sysrq|sysrq_|input_|atkbd_|serio_|i8042_|__handle_irq|handle_|__common_interrupt|common_interrupt|asm_common_interrupt|rcu_|print_cpu|update_process_times|tick_|__hrtimer|hrtimer_|__sysvec_|sysvec_|asm_sysvec_|watchdog_|lapic_|arch_trigger|__irq_exit|irq_exit)'
	{
		echo "why=$why"
		echo "payload=$payload"
		echo "suspect=${suspect% }"
		echo "frames=$(grep -vE "$machinery" <<<"$frames" | head -n 8 | tr '\n' ' ' | sed 's/ $//')"
		echo "report:"
		tail -n "+$from" "$LOG" | tr -d '\r' | head -n 80
	} >"$TB_VM_HANG"
}

if [[ -n $stalled ]]; then
	hang_report stall
	tb_die 124 "STALL: the guest kernel reported '$stalled' (after ${TOTAL}s in all); qemu (pid $QPID) killed"
fi
if ((timed_out)); then
	hang_report timeout
	tb_die 124 "TIMEOUT: guest did not finish within ${TIMEOUT}s; qemu (pid $QPID) killed"
fi
if line=$(grep -aoE "TB-VM-INIT-ERROR id=$NONCE.*" "$LOG" | tail -n 1 | tr -d '\r') && [[ -n $line ]]; then
	hang_report init-error
	tb_die 125 "guest /init failed before running guest.sh: ${line#*id="$NONCE" }"
fi
line=$(grep -aoE "$RESULT_RE" "$LOG" | tail -n 1 || true)
if [[ -z $line ]]; then
	hang_report no-result
	tb_die 125 "no result marker from the guest (crash, kernel panic or early exit?); qemu exit status: $qemu_rc; see console output above"
fi
[[ $line =~ $RESULT_RE ]]
rc=${BASH_REMATCH[1]}
tb_log "guest.sh rc=$rc; marker after ${marker_after:-?}s, total ${TOTAL}s (accel=$TB_ACCEL)"
exit "$rc"
