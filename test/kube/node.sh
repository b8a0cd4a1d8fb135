# node.sh: a single-node Kubernetes cluster on this host for make test-kube
# (issue 37), sourced by run.sh: node_up starts it, node_down takes it all
# down again, and host_state writes what must be the same before and after.
# v2.sh (the v2 node, issue 50) runs control_start and control_ready alone
# here, its kubelet and containerd in a guest, and node_down as well.
#
# From build.sh's upstream binaries and Debian's containerd, runc and CNI
# plugins, everything on 127.0.0.1 with no CA work:
#   etcd            127.0.0.1:23790 (peer 23800), data in $TBK/etcd
#   kube-apiserver  127.0.0.1:64430, self-signed (--cert-dir), a token file,
#                   AlwaysAllow
#   controller-manager, scheduler: no leader election, no serving port
#   containerd      a private instance: root, state, sockets and CNI
#                   directories under $TBK, so a host's own containerd is
#                   never touched; CRI's sandbox image is our pause
#                   (pause/pause.c, FROM scratch: no image can be pulled here)
#   kubelet         on that socket, the cgroupfs driver, root-dir and pod
#                   logs under $TBK, port 10350 on 127.0.0.1, anonymous and
#                   AlwaysAllow (only this host reaches it)
#   CNI             one bridge of our own name (tbk0), no gateway, no
#                   masquerade: nothing touches ip_forward or NAT; the pods
#                   call nothing, but a node without a network stays NotReady
# $TBK is short (/tmp/tbk.XXXXXX): a socket's path is at most 108 bytes.
#
# What the kubelet and the runtime change on the host, and how node_down puts
# it back (host_state's sections; run.sh diffs them):
#   sysctls   the kubelet sets vm.overcommit_memory, vm.panic_on_oom,
#             kernel.panic, kernel.panic_on_oops and the root key quotas
#             (protectKernelDefaults: true would refuse to start instead):
#             written back from the values read before
#   cgroups   /kubepods under every v1 controller: removed depth first, once
#             nothing runs in it (node_up refuses a host that has one)
#   iptables  the kubelet's canary, firewall and hint chains: the rules and
#             chains not there before are deleted, with iptables-restore
#             --noflush; then the tables it made (iptables-nft makes the
#             filter, nat and mangle tables of ip and ip6 on first use),
#             where they were not there before and hold nothing else
#   mounts    sandboxes' network namespaces (/run/netns/cni-*), rootfs and
#             shm under $TBK: unmounted
#   links     tbk0 and the pods' veths: deleted
#   paths     /var/lib/cni (libcni's cache), /var/log/containers,
#             /var/log/pods, /run/netns: removed where they were not there
#   processes every one of ours, by the PID we started or, for containerd's
#             shims, by $TBK in its command line
#
# Needs root, and the variables B (build.sh's directory) and TBK_IMAGES (OCI
# or docker-save archives to import into CRI's k8s.io namespace).

TBK_NODE=localhost # the apiserver dials the kubelet by this name: no DNS, no /etc/hosts
TBK_API=https://127.0.0.1:64430
TBK_SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
	kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward)
TBK_PATHS=(/var/lib/cni /var/log/containers /var/log/pods /run/netns /etc/cni
	/var/lib/kubelet /etc/kubernetes /var/run/kubernetes)
TBK_PIDS=()     # started by node_up, in order
TBK_KUBELET=    # the kubelet's PID, once started
TBK_BEFORE=     # host_state before node_up
TBK=            # the state directory
TBK_START=      # $SECONDS at control_start

tbk_log() { echo "node.sh: $*" >&2; }

# host_state: what must be the same after node_down as before node_up, one
# line per fact under a section heading.
host_state() {
	local s t c
	echo "## sysctls"
	for s in "${TBK_SYSCTLS[@]}"; do echo "$s=$(sysctl -n "$s" 2>/dev/null)"; done
	echo "## paths"
	for s in "${TBK_PATHS[@]}"; do [ -e "$s" ] && echo "$s"; done
	echo "## cgroups (top level of each v1 controller)"
	for c in /sys/fs/cgroup/*/; do
		[ -L "${c%/}" ] && continue
		find "$c" -mindepth 1 -maxdepth 1 -type d 2>/dev/null
	done | sort
	echo "## mounts"
	awk '{print $5}' /proc/self/mountinfo | sort
	echo "## links"
	ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort
	for t in iptables ip6tables; do
		echo "## $t"
		"$t-save" 2>/dev/null | sed -e '/^#/d' -e 's/ \[[0-9]*:[0-9]*\]$//'
	done
	echo "## nft tables"
	nft list tables 2>/dev/null | sort
	echo "## processes"
	tbk_procs | sort
}

# tbk_procs: "PID EXE" of every process that is ours: its executable is one
# of build.sh's, or its command line names $TBK (containerd and its shims).
tbk_procs() {
	local p exe
	for p in /proc/[0-9]*; do
		exe=$(readlink "$p/exe" 2>/dev/null) || continue
		if [[ $exe == "$B"/* ]] || { [ -n "$TBK" ] && tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$TBK/"; }; then
			echo "${p#/proc/} ${exe##*/}"
		fi
	done
}

tbk_wait() { # WHAT SECONDS CMD...: until CMD succeeds, every 0.25 s
	local what=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 4; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.25
	done
	tbk_log "$what: not within ${secs}s"
	tbk_logs
	return 1
}

tbk_logs() {
	local f
	for f in "$TBK"/*.log; do
		[ -f "$f" ] || continue
		echo "--- $f (last 15 lines)" >&2
		tail -15 "$f" >&2
	done
}

tbk_start() { # NAME CMD...: in the background, its output in $TBK/NAME.log
	local name=$1
	shift
	# A session of its own: a Ctrl-C at the terminal reaches run.sh alone,
	# which then takes the node down in order (with the daemons signalled
	# too, the kubelet and containerd went first and left pods running).
	# setsid execs in place (a background job is no group leader), so $! is
	# the daemon's PID.
	setsid "$@" >"$TBK/$name.log" 2>&1 &
	TBK_PIDS+=("$!")
}

kc() { "$B/kubectl" --kubeconfig "$TBK/kubeconfig" "$@"; }
tbk_ctr() { ctr --address "$TBK/containerd.sock" -n k8s.io "$@"; }

# control_start: the host's state noted, $TBK made, etcd and the apiserver
# started (not waited for: the caller starts what else it can meanwhile).
# control_ready then waits for the apiserver and starts the controller-
# manager and the scheduler. The v2 node (v2.sh) runs these alone on the
# host: its kubelet and containerd run in the guest.
control_start() {
	TBK_BEFORE=$(host_state)
	TBK=$(mktemp -d /tmp/tbk.XXXXXX)
	mkdir -p "$TBK/certs" "$TBK/cni/net.d" "$TBK/kubelet" "$TBK/pod-logs"
	openssl genrsa -out "$TBK/sa.key" 2048 2>/dev/null
	echo "tb-token,admin,admin,system:masters" >"$TBK/tokens.csv"
	tbk_kubeconfig "$TBK_API" >"$TBK/kubeconfig"
	TBK_START=$SECONDS
	tbk_start etcd "$B/etcd" --data-dir "$TBK/etcd" \
		--listen-client-urls http://127.0.0.1:23790 --advertise-client-urls http://127.0.0.1:23790 \
		--listen-peer-urls http://127.0.0.1:23800 --initial-advertise-peer-urls http://127.0.0.1:23800 \
		--initial-cluster default=http://127.0.0.1:23800
	tbk_start apiserver "$B/kube-apiserver" --etcd-servers=http://127.0.0.1:23790 \
		--bind-address=127.0.0.1 --secure-port=64430 --cert-dir="$TBK/certs" \
		--token-auth-file="$TBK/tokens.csv" --authorization-mode=AlwaysAllow \
		--kubelet-preferred-address-types=Hostname \
		--service-cluster-ip-range=10.96.0.0/24 --service-account-issuer=https://kubernetes.default.svc \
		--service-account-key-file="$TBK/sa.key" --service-account-signing-key-file="$TBK/sa.key"
}

control_ready() {
	tbk_wait "the apiserver's /readyz" 60 kc get --raw /readyz || return 1
	tbk_log "apiserver ready after $((SECONDS - TBK_START)) s"
	tbk_start controller-manager "$B/kube-controller-manager" --kubeconfig="$TBK/kubeconfig" \
		--leader-elect=false --secure-port=0 --service-account-private-key-file="$TBK/sa.key" \
		--use-service-account-credentials=false
	tbk_start scheduler "$B/kube-scheduler" --kubeconfig="$TBK/kubeconfig" --leader-elect=false --secure-port=0
}

# tbk_kubeconfig SERVER: the admin's kubeconfig for an apiserver at SERVER
# (its certificate self-signed, so not verified; the token is the one user).
tbk_kubeconfig() {
	cat <<EOF
apiVersion: v1
kind: Config
clusters: [{name: tb, cluster: {server: "$1", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: tb-token}}]
contexts: [{name: tb, context: {cluster: tb, user: admin}}]
current-context: tb
EOF
}

# node_configs DIR STATE DRIVER: the node's CNI network, containerd's and
# the kubelet's configuration, written into DIR (cni/net.d/10-tbk.conflist,
# containerd.toml, kubelet.yaml) for a node whose state lives in STATE and
# whose cgroup driver is DRIVER: cgroupfs, this host's v1 node (DIR and
# STATE are $TBK), or systemd, the v2 node in the guest (v2.sh writes its
# files into the payload, for the guest's STATE). One definition for both.
node_configs() {
	local dir=$1 state=$2 driver=$3 systemd=false address=127.0.0.1
	# On v2, runc's systemd driver too (each container a
	# cri-containerd-ID.scope in its pod's slice), and the kubelet on every
	# address of the guest: qemu's hostfwd reaches it at 10.0.2.15, not
	# on lo.
	[ "$driver" = systemd ] && systemd=true address=0.0.0.0
	mkdir -p "$dir/cni/net.d"
	cat >"$dir/cni/net.d/10-tbk.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "tbk", "plugins": [{"type": "bridge", "bridge": "tbk0",
 "isGateway": false, "ipMasq": false,
 "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.213.0.0/24"}]], "dataDir": "$state/cni/ipam"}}]}
EOF
	cat >"$dir/containerd.toml" <<EOF
version = 2
root = "$state/root"
state = "$state/state"
[grpc]
  address = "$state/containerd.sock"
[ttrpc]
  address = "$state/containerd-ttrpc.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/throttlebench/pause:tb"
  # The kubelet asks -998 for sandboxes and -997 for Guaranteed containers;
  # a negative oom_score_adj needs CAP_SYS_RESOURCE, which root lacks where
  # this host is itself sandboxed (ours: runc then fails with "can't get
  # final child's PID from pipe: EOF"). No lower than containerd's own.
  restrict_oom_score_adj = true
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = $systemd
[plugins."io.containerd.grpc.v1.cri".cni]
  bin_dir = "/usr/lib/cni"
  conf_dir = "$state/cni/net.d"
EOF
	cat >"$dir/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: unix://$state/containerd.sock
cgroupDriver: $driver
# The v1 node is this host's cgroup v1 (hybrid), which a 1.35 kubelet
# refuses unless told (KEP-5573): what a user who keeps a v1 node on 1.35
# must set too. Without effect on v2.
failCgroupV1: false
failSwapOn: false
address: $address
port: 10350
readOnlyPort: 0
healthzPort: 0
authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
podLogsDir: $state/pod-logs
resolvConf: ""
# The images were imported, not pulled: image GC must never take them.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%}
EOF
}

node_up() {
	local c image
	for c in /sys/fs/cgroup/*/kubepods; do
		[ -e "$c" ] && { tbk_log "$c exists: another kubelet runs on this host; not starting a second"; return 1; }
	done
	if ip link show tbk0 >/dev/null 2>&1; then tbk_log "a link tbk0 exists already"; return 1; fi
	control_start
	# The runtime meanwhile.
	node_configs "$TBK" "$TBK" cgroupfs
	tbk_start containerd containerd --config "$TBK/containerd.toml"
	tbk_wait "containerd's socket" 30 test -S "$TBK/containerd.sock" || return 1
	tbk_wait "containerd's CRI plugin" 30 bash -c "ctr --address '$TBK/containerd.sock' plugins ls | grep -q 'io.containerd.grpc.v1 *cri .* ok'" || return 1
	for image in "${TBK_IMAGES[@]}"; do
		tbk_ctr images import "$image" >/dev/null || { tbk_log "import $image failed"; return 1; }
	done

	control_ready || return 1

	tbk_start kubelet "$B/kubelet" --kubeconfig="$TBK/kubeconfig" --config="$TBK/kubelet.yaml" \
		--root-dir="$TBK/kubelet" --hostname-override="$TBK_NODE"
	TBK_KUBELET=${TBK_PIDS[-1]}
	tbk_wait "node $TBK_NODE Ready" 120 kc wait node "$TBK_NODE" --for=condition=Ready --timeout=1s || return 1
	tbk_log "node $TBK_NODE Ready after $((SECONDS - TBK_START)) s"
}

tbk_stop_pid() { # PID: SIGTERM, SIGKILL after 5 s
	local p=$1
	kill "$p" 2>/dev/null || return 0
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}

# node_down: everything node_up did, undone, whatever state it got to; then
# host_state against what it was. Returns 1 when something is left.
node_down() {
	[ -n "$TBK" ] || return 0
	local i p rc=0 after s m c
	# 1. The pods, by the kubelet that runs them, so that CRI stops each
	#    sandbox and CNI gives back its address and its veth.
	if [ -n "$TBK_KUBELET" ] && kill -0 "$TBK_KUBELET" 2>/dev/null && kc get --raw /readyz >/dev/null 2>&1; then
		kc delete jobs --all --wait=false >/dev/null 2>&1 || true
		kc delete pods --all --timeout=60s >/dev/null 2>&1 || true
		tbk_wait "the sandboxes' end" 60 bash -c "[ -z \"\$(ctr --address '$TBK/containerd.sock' -n k8s.io tasks ls -q)\" ]" || true
	fi
	# 2. The kubelet first (it would restart what is removed under it),
	#    then whatever still runs in containerd, then the rest, last
	#    started first.
	for ((i = ${#TBK_PIDS[@]} - 1; i >= 0; i--)); do
		p=${TBK_PIDS[i]}
		if [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$(command -v containerd)" ] && [ -S "$TBK/containerd.sock" ]; then
			for c in $(tbk_ctr tasks ls -q 2>/dev/null); do
				tbk_ctr tasks kill -s SIGKILL "$c" >/dev/null 2>&1 || true
			done
			for c in $(tbk_ctr containers ls -q 2>/dev/null); do
				tbk_ctr tasks delete -f "$c" >/dev/null 2>&1 || true
				tbk_ctr containers delete "$c" >/dev/null 2>&1 || true
			done
		fi
		tbk_stop_pid "$p"
	done
	TBK_PIDS=()
	TBK_KUBELET=
	# Shims outlive containerd where a task did: ours name $TBK.
	while read -r p _; do
		[ -n "$p" ] && tbk_stop_pid "$p"
	done < <(tbk_procs)
	# 3. Whatever still runs in the kubelet's cgroups (a pod whose runtime
	#    died before it): ours, since node_up found no /kubepods.
	tbk_kill_kubepods || rc=1
	# 4. Mounts: under $TBK, and network namespaces made since node_up.
	while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" || rc=1
	done < <(awk '{print $5}' /proc/self/mountinfo | grep -E "^($TBK/|/run/netns(/|\$))" | grep -vxF -f <(tbk_section "$TBK_BEFORE" mounts) | sort -r)
	# 5. The kubelet's cgroups, once empty.
	for c in /sys/fs/cgroup/*/kubepods; do
		[ -d "$c" ] && ! [ -L "${c%/kubepods}" ] && { find "$c" -depth -type d -exec rmdir {} + 2>/dev/null || true; }
		[ -d "$c" ] && ! [ -L "${c%/kubepods}" ] && { tbk_log "$c: cannot remove (still in use?)"; rc=1; }
	done
	# 6. The bridge (its veths went with the sandboxes' namespaces).
	ip link show tbk0 >/dev/null 2>&1 && { ip link del tbk0 || rc=1; }
	# 7. iptables: the rules, then the chains, that were not there before.
	for s in iptables ip6tables; do
		tbk_iptables_undo "$s" || rc=1
	done
	tbk_nft_undo || rc=1
	# 8. sysctls as they were.
	while IFS='=' read -r s m; do
		[ "$(sysctl -n "$s" 2>/dev/null)" = "$m" ] || sysctl -q -w "$s=$m" || rc=1
	done < <(tbk_section "$TBK_BEFORE" sysctls)
	# 9. Paths the kubelet, CRI or CNI made.
	for s in "${TBK_PATHS[@]}"; do
		if [ -e "$s" ] && ! tbk_section "$TBK_BEFORE" paths | grep -qxF "$s"; then
			rm -rf "$s" || rc=1
		fi
	done
	# Nothing of ours may still be mounted below it when it goes.
	if grep -qF " $TBK/" /proc/self/mountinfo; then
		tbk_log "still mounted below $TBK: left in place"
		rc=1
	else
		rm -rf "$TBK"
	fi
	TBK=
	after=$(host_state)
	if [ "$after" != "$TBK_BEFORE" ]; then
		tbk_log "left behind on the host (- before, + after):"
		diff <(echo "$TBK_BEFORE") <(echo "$after") | grep '^[<>]' | sed -e 's/^</-/' -e 's/^>/+/' >&2
		rc=1
	fi
	return $rc
}

# tbk_kill_kubepods: SIGKILL every process in /kubepods, until none is left
# (5 s at most).
tbk_kill_kubepods() {
	local f p left i
	for ((i = 0; i < 50; i++)); do
		left=
		while read -r f; do
			for p in $(cat "$f" 2>/dev/null); do
				left=1
				kill -KILL "$p" 2>/dev/null || true
			done
		done < <(find /sys/fs/cgroup/*/kubepods -name cgroup.procs 2>/dev/null)
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	tbk_log "processes still in /kubepods after 5 s"
	return 1
}

# tbk_nft_undo: delete the nftables tables that were not there before
# node_up and that hold no rule and no chain but the built-in ones once the
# iptables rules and chains are gone (iptables-nft's tables, made on the
# kubelet's first use; an empty table filters nothing, but it was not there).
tbk_nft_undo() {
	command -v nft >/dev/null || return 0
	local family name t rc=0
	while read -r _ family name; do
		tbk_section "$TBK_BEFORE" "nft tables" | grep -qxF "table $family $name" && continue
		case $family in ip) t=iptables ;; ip6) t=ip6tables ;; *) continue ;; esac
		# Built-in chains only (":CHAIN POLICY", never "-"), and no rule.
		"$t-save" -t "$name" 2>/dev/null | grep -qE '^(-A |:[^ ]+ - )' && continue
		nft delete table "$family" "$name" || rc=1
	done < <(nft list tables 2>/dev/null)
	return $rc
}

# tbk_section STATE NAME: the lines of one host_state section.
tbk_section() {
	awk -v want="## $2" '/^## / { on = index($0, want) == 1; next } on' <<<"$1"
}

# tbk_iptables_undo iptables|ip6tables: delete the rules, then flush and
# delete the chains, that were not in the table before node_up.
tbk_iptables_undo() {
	local t=$1 now before table line
	now=$("$t-save" 2>/dev/null | sed -e '/^#/d' -e 's/ \[[0-9]*:[0-9]*\]$//') || return 0
	before=$(tbk_section "$TBK_BEFORE" "$t")
	[ "$now" = "$before" ] && return 0
	{
		table=
		while read -r line; do
			case $line in
			\**) table=$line ;;
			-A\ *) grep -qxF -- "$line" <<<"$before" || printf '%s\n-D %s\nCOMMIT\n' "$table" "${line#-A }" ;;
			esac
		done <<<"$now"
		while read -r line; do
			case $line in
			\**) table=$line ;;
			# User chains only (":NAME -"): a built-in one (":INPUT ACCEPT")
			# cannot be deleted, and legacy iptables-restore would stop at it.
			:*\ -) grep -qxF -- "$line" <<<"$before" || { line=${line#:} && printf '%s\n-F %s\n-X %s\nCOMMIT\n' "$table" "${line%% *}" "${line%% *}"; } ;;
			esac
		done <<<"$now"
	} | "$t-restore" --noflush
}
