#!/usr/bin/env bash
# engine.sh — start/stop a private Docker engine for throttlebench's container tests.
#
#   test/docker/engine.sh install # only make sure Debian's docker.io is installed; starts nothing
#   test/docker/engine.sh up      # install docker.io if needed, start a private dockerd (idempotent)
#   eval "$(test/docker/engine.sh env)"   # sets DOCKER_HOST when the engine is ours; prints nothing otherwise
#   test/docker/engine.sh status  # says which engine (ours/external/none) and exits 0 only if one answers
#   test/docker/engine.sh down    # stops only the engine `up` started (no-op for an external engine)
#
# Environment:
#   TB_DOCKER_STATE   state dir (default: $REPO/.cache/docker, gitignored). Holds the
#                     socket, pidfiles, log, data-root and exec-root of our engine.
#   TB_DOCKER_TIMEOUT seconds `up` waits for the engine to answer (default 60).
#
# Why a private engine: the tests must never collide with (or reconfigure) a system
# engine. Our dockerd gets its own socket, --data-root, --exec-root, --pidfile and an
# empty --config-file, so nothing under /var/lib/docker, /var/run/docker*, or
# /etc/docker/daemon.json is read or written. The price is that callers must point the
# CLI at our socket: `engine.sh env` prints the `export DOCKER_HOST=...` line for that.
#
# Why the network flags: a plain dockerd creates the docker0 bridge, writes iptables
# NAT/FORWARD rules and turns on net.ipv4.ip_forward on the host. The benchmark needs
# none of that, so we ALWAYS pass --iptables=false --ip-forward=false --bridge=none
# (plus --ip-masq=false / --ip6tables=false for completeness). Containers still start
# without a --network flag (they get only "lo"), but the CLI then warns "IPv4 forwarding
# is disabled"; the tests pass `--network none` to say what we mean: no network at all.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
STATE=${TB_DOCKER_STATE:-$REPO/.cache/docker}
TIMEOUT=${TB_DOCKER_TIMEOUT:-60}

SOCK="$STATE/docker.sock"          # our engine's API socket (-H unix://...)
OWNER="$STATE/owner"               # "ours" or "external": what `up` found/did
ENGINE_PID="$STATE/engine.pid"     # PID of the dockerd we started (authoritative for `down`)
DOCKERD_PID="$STATE/dockerd.pid"   # dockerd's own --pidfile (not /var/run/docker.pid)
LOG="$STATE/dockerd.log"
DATA_ROOT="$STATE/data"            # images, layers, containers (kept between up/down as a cache)
EXEC_ROOT="$STATE/exec"            # runtime state; managed containerd lives in $EXEC_ROOT/containerd
CONFIG="$STATE/daemon.json"        # empty config so /etc/docker/daemon.json cannot interfere
CREATED="$STATE/created-dirs"      # host dirs outside $STATE that did not exist before our engine

log() { printf 'engine.sh: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

need_root() {
	# dockerd, apt-get and cgroup writes all need root; fail early with a clear message.
	[[ $(id -u) -eq 0 ]] || die "must run as root"
}

# pid_is <pid> <exe-basename>: true when <pid> is alive AND is that program AND its
# command line mentions our state dir. Guards against PID reuse: we only ever signal
# processes we can prove are ours.
pid_is() {
	local pid=$1 want=$2 exe
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ -d /proc/$pid ]] || return 1
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
	exe=${exe% (deleted)}
	[[ ${exe##*/} == "$want" ]] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$STATE" || return 1
}

# running <pid>: alive and not a zombie. `kill -0` is not enough: a dockerd that dies
# during startup stays a zombie child of this script (nobody waits for it), and kill -0
# succeeds on zombies.
running() {
	local st
	st=$(sed -e 's/^.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && ${st:0:1} != Z && ${st:0:1} != X ]]
}

# exe_name <pid>: basename of the process's executable ("" if gone).
exe_name() {
	local exe
	exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 0
	exe=${exe% (deleted)}
	echo "${exe##*/}"
}

# lock_state: serialize concurrent up/down on the same state dir (fd 9 holds the lock
# until this script exits; dockerd is started with fd 9 closed so it never inherits it).
lock_state() {
	exec 9>"$STATE/lock"
	flock -w 120 9 || die "another engine.sh up/down holds $STATE/lock for over 120s"
}

our_engine_alive() {
	[[ -f $ENGINE_PID ]] && pid_is "$(cat "$ENGINE_PID")" dockerd
}

# ambient_docker_answers: does an engine answer with the caller's own environment
# (DOCKER_HOST/context as they are)? `timeout` because a wedged socket can hang the CLI.
ambient_docker_answers() {
	command -v docker >/dev/null 2>&1 || return 1
	timeout 15 docker info >/dev/null 2>&1
}

ours_answers() {
	[[ -S $SOCK ]] || return 1
	DOCKER_HOST="unix://$SOCK" timeout 15 docker info >/dev/null 2>&1
}

# Processes of ours besides dockerd: the containerd dockerd spawns ("managed containerd",
# started because we pass no --containerd) and the per-container shims. All of them carry
# a path inside $STATE on their command line (containerd: --config/--root/--state under
# $EXEC_ROOT/$DATA_ROOT; shims: -address $EXEC_ROOT/containerd/containerd.sock).
our_helper_pids() {
	local p name
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		name=$(exe_name "$p")
		case $name in
		containerd | containerd-shim | containerd-shim-runc-v1 | containerd-shim-runc-v2 | docker-proxy | dockerd)
			if pid_is "$p" "$name"; then echo "$p"; fi
			;;
		esac
	done
}

# stop_pid <pid> <exe-basename> <seconds>: SIGTERM, wait, then SIGKILL — only if it is ours.
stop_pid() {
	local pid=$1 name=$2 wait_s=$3 i
	pid_is "$pid" "$name" || return 0
	log "stopping $name (pid $pid)"
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < wait_s * 10; i++)); do
		pid_is "$pid" "$name" || return 0
		sleep 0.1
	done
	log "$name (pid $pid) still alive after ${wait_s}s; sending SIGKILL"
	kill -KILL "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		pid_is "$pid" "$name" || return 0
		sleep 0.1
	done
	die "$name (pid $pid) survived SIGKILL"
}

# Containers that outlived dockerd. A graceful dockerd shutdown stops its containers,
# but after a SIGKILL (or OOM/crash) the shims and container processes keep running, and
# stopping a shim does NOT kill its container. runc's state for our engine lives in
# $EXEC_ROOT/runtime-runc/<containerd namespace>/<id>; `runc delete --force` SIGKILLs
# every process of the container and removes its cgroups and state.
kill_leftover_containers() {
	local root dir id runc_bin
	runc_bin=$(command -v runc 2>/dev/null) || return 0
	for root in "$EXEC_ROOT"/runtime-runc/*/; do
		[[ -d $root ]] || continue
		for dir in "$root"*/; do
			[[ -d $dir ]] || continue
			id=$(basename "$dir")
			log "killing leftover container ${id:0:12}"
			"$runc_bin" --root "${root%/}" delete --force "$id" || log "runc delete $id failed"
		done
	done
}

# cleanup_leftovers: after our dockerd is gone, remove whatever it left running or
# mounted. No-op after a clean shutdown.
cleanup_leftovers() {
	local p
	kill_leftover_containers
	# containerd (dockerd stops it on SIGTERM, not when dockerd is SIGKILLed) and shims.
	for p in $(our_helper_pids); do stop_pid "$p" "$(exe_name "$p")" 10; done
	unmount_leftovers
}

# Mounts left under $STATE (overlay layers, netns, shm) if dockerd died uncleanly.
# Only paths inside our own state dir are touched; deepest first.
unmount_leftovers() {
	local mp
	awk -v s="$STATE/" 'index($5, s) == 1 { print $5 }' /proc/self/mountinfo | sort -r | while read -r mp; do
		log "unmounting leftover $mp"
		umount "$mp" 2>/dev/null || umount -l "$mp" || true
	done
}

# Directories outside $STATE that our engine creates as a side effect: the cgroupfs
# driver's "docker" parent cgroup in every hierarchy (/sys/fs/cgroup/<ctrl>/docker) and
# the containerd shims' socket dir /run/containerd/s. We note the ones absent before we
# start so `down` can rmdir them again; rmdir only succeeds on empty dirs (an empty
# cgroup has no tasks and no children), so anything another engine uses is left alone.
record_absent_dirs() {
	local mp d
	: >"$CREATED"
	while read -r mp; do
		d="$mp/docker"
		[[ -e $d ]] || echo "$d" >>"$CREATED"
	done < <(awk '$9 == "cgroup" || $9 == "cgroup2" { print $5 }' /proc/self/mountinfo)
	# Deepest first, so /run/containerd/s goes before /run/containerd.
	[[ -e /run/containerd/s ]] || echo /run/containerd/s >>"$CREATED"
	[[ -e /run/containerd ]] || echo /run/containerd >>"$CREATED"
}

remove_created_dirs() {
	local d
	[[ -f $CREATED ]] || return 0
	while read -r d; do
		[[ -d $d ]] && { rmdir "$d" 2>/dev/null || log "left $d (not empty)"; }
	done <"$CREATED"
	rm -f "$CREATED"
}

install_docker() {
	# Only Debian's docker.io is reachable here (no download.docker.com). It pulls in
	# containerd, runc, tini and iptables. --no-install-recommends keeps out apparmor,
	# cgroupfs-mount and needrestart, which would act on the host.
	log "dockerd not found; installing Debian's docker.io"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-cache policy docker.io 2>/dev/null | grep -q 'Candidate: [0-9]'; then
		apt-get -o DPkg::Lock::Timeout=300 update
	fi
	# The package's postinst would start /etc/init.d/docker — a plain dockerd that
	# rewrites host networking. policy-rc.d exit 101 forbids that; add one only if the
	# host has none, and remove only the one we added.
	local added_policy=""
	if [[ ! -e /usr/sbin/policy-rc.d ]]; then
		printf '#!/bin/sh\n# temporary, added by throttlebench test/docker/engine.sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		added_policy=1
	fi
	local rc=0
	apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends docker.io || rc=$?
	[[ -n $added_policy ]] && rm -f /usr/sbin/policy-rc.d
	[[ $rc -eq 0 ]] || die "apt-get install docker.io failed (rc=$rc)"
	command -v dockerd >/dev/null 2>&1 || die "docker.io installed but dockerd not on PATH"
}

cmd_up() {
	need_root
	mkdir -p "$STATE"
	lock_state

	# 1. Our engine from an earlier `up` still running and answering: nothing to do.
	if our_engine_alive && ours_answers; then
		log "our engine already up (pid $(cat "$ENGINE_PID")); $(cmd_env)"
		return 0
	fi
	if our_engine_alive; then
		die "our dockerd (pid $(cat "$ENGINE_PID")) is alive but not answering on $SOCK; run '$0 down' first. Log tail:
$(tail -n 30 "$LOG" 2>/dev/null)"
	fi

	# 2. Some other engine answers with the caller's environment: use it, don't own it.
	if ambient_docker_answers; then
		echo external >"$OWNER"
		rm -f "$ENGINE_PID"
		log "an engine already answers ($(docker context show 2>/dev/null || echo default), DOCKER_HOST=${DOCKER_HOST:-unset}); not starting ours"
		return 0
	fi

	# 3. Start our own.
	command -v dockerd >/dev/null 2>&1 || install_docker
	command -v docker >/dev/null 2>&1 || die "docker CLI not found"

	# unix socket paths are limited to 108 bytes; the longest one we create is
	# containerd's ttrpc socket under the exec root.
	local longest="$EXEC_ROOT/containerd/containerd.sock.ttrpc"
	((${#longest} < 100)) || die "state dir path too long for unix sockets ($longest); set TB_DOCKER_STATE to a shorter dir"

	# Stale leftovers from a crash (dockerd refuses to start with a live-looking pidfile
	# of someone else, and a stale socket would confuse ours_answers).
	cleanup_leftovers
	rm -f "$SOCK" "$DOCKERD_PID" "$ENGINE_PID"
	mkdir -p "$DATA_ROOT" "$EXEC_ROOT"
	[[ -f $CONFIG ]] || echo '{}' >"$CONFIG"
	# After a crash the old list is still there and still right; keep it.
	[[ -f $CREATED ]] || record_absent_dirs

	log "starting dockerd (state $STATE)"
	# setsid: own session, so the caller's Ctrl-C / process-group kill does not take the
	# engine down mid-test; it lives until `down`. All fds go to the log so that
	# `$(engine.sh up)` callers are not held open by the background daemon; fd 9 (our
	# lock) is closed, otherwise dockerd would hold the lock for its whole life and the
	# next `down` would block on it.
	# No --containerd: dockerd then spawns and supervises its own containerd under
	# $EXEC_ROOT/containerd and stops it when it exits (Debian's docker.service passes
	# --containerd=/run/containerd/containerd.sock, but there is no systemd here).
	# Caveat: dockerd 20.10 uses a *system* containerd instead if
	# /run/containerd/containerd.sock exists; the separate --containerd-namespace keeps
	# our containers apart from a system engine's in that case.
	setsid dockerd \
		--host "unix://$SOCK" \
		--data-root "$DATA_ROOT" \
		--exec-root "$EXEC_ROOT" \
		--pidfile "$DOCKERD_PID" \
		--config-file "$CONFIG" \
		--containerd-namespace throttlebench \
		--containerd-plugins-namespace throttlebench-plugins \
		--iptables=false \
		--ip6tables=false \
		--ip-forward=false \
		--ip-masq=false \
		--bridge=none \
		</dev/null >"$LOG" 2>&1 9>&- &
	local started=$!
	echo "$started" >"$ENGINE_PID"
	echo ours >"$OWNER"

	local deadline=$((SECONDS + TIMEOUT))
	until ours_answers; do
		if ! running "$started"; then
			log "dockerd exited during startup. Log tail:"
			tail -n 40 "$LOG" >&2 || true
			rm -f "$ENGINE_PID" "$OWNER"
			exit 1
		fi
		if ((SECONDS >= deadline)); then
			log "dockerd did not answer within ${TIMEOUT}s. Log tail:"
			tail -n 40 "$LOG" >&2 || true
			stop_pid "$started" dockerd 20 || true
			cleanup_leftovers
			rm -f "$ENGINE_PID" "$OWNER"
			exit 1
		fi
		sleep 0.2
	done
	# setsid normally execs in place, so $! is dockerd itself; trust dockerd's own
	# pidfile if it says otherwise (setsid forks when it is a process-group leader).
	if [[ -f $DOCKERD_PID ]] && pid_is "$(cat "$DOCKERD_PID")" dockerd; then
		cat "$DOCKERD_PID" >"$ENGINE_PID"
	fi
	log "engine up (pid $(cat "$ENGINE_PID")) in ${SECONDS}s; $(cmd_env)"
}

cmd_down() {
	need_root
	[[ -d $STATE ]] || { log "no state dir; nothing to stop"; return 0; }
	lock_state

	if [[ $(cat "$OWNER" 2>/dev/null) == external ]]; then
		log "engine was already running before 'up'; leaving it alone"
		rm -f "$OWNER"
		return 0
	fi
	if [[ -f $ENGINE_PID ]]; then
		# dockerd on SIGTERM stops its containers (up to its 15 s shutdown timeout) and
		# then its managed containerd; 20 s covers that before we escalate.
		stop_pid "$(cat "$ENGINE_PID")" dockerd 20
	else
		log "no engine pid recorded"
	fi
	cleanup_leftovers
	remove_created_dirs
	rm -f "$ENGINE_PID" "$OWNER" "$SOCK" "$DOCKERD_PID"
	local left
	left=$(our_helper_pids)
	[[ -z $left ]] || die "processes of ours still running: $left"
	log "engine down"
}

# env: the line callers eval. Prints the DOCKER_HOST export only for our engine; for an
# external engine the caller's own environment already reaches it, so prints nothing.
cmd_env() {
	case $(cat "$OWNER" 2>/dev/null) in
	ours) echo "export DOCKER_HOST=unix://$SOCK" ;;
	external) : ;;
	*)
		log "no engine recorded; run '$0 up' first"
		return 1
		;;
	esac
}

cmd_status() {
	case $(cat "$OWNER" 2>/dev/null) in
	ours)
		if our_engine_alive && ours_answers; then
			echo "ours pid=$(cat "$ENGINE_PID") DOCKER_HOST=unix://$SOCK"
		else
			echo "ours (recorded) but not answering"
			return 1
		fi
		;;
	external)
		echo "external"
		ambient_docker_answers
		;;
	*)
		echo "none"
		return 1
		;;
	esac
}

case ${1:-} in
install)
	# Provisioning only (e.g. a CI image step): make sure dockerd exists, start nothing.
	need_root
	command -v dockerd >/dev/null 2>&1 || install_docker
	;;
up) cmd_up ;;
down) cmd_down ;;
env) cmd_env ;;
status) cmd_status ;;
*)
	echo "usage: $0 install|up|down|env|status" >&2
	exit 2
	;;
esac
