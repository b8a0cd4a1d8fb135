#!/usr/bin/env bash
# control-plane.sh: the control plane of make test-kube's node (issue 37, a
# start), from build.sh's binaries, all on 127.0.0.1 with no CA work: etcd,
# kube-apiserver (it self-signs; a token file and AlwaysAllow),
# kube-controller-manager and kube-scheduler (no leader election, no
# serving port), one kubeconfig with insecure-skip-tls-verify. It checks
# each for real: the namespaces the apiserver makes, a Job's pod made by
# the Job controller, and that pod found unschedulable by the scheduler
# (there is no node yet). Then everything is stopped, last started first
# (SIGTERM, SIGKILL after 5 s), and the state directory removed, on every
# way out. The kubelet on containerd comes next.
set -euo pipefail
B=${B:-$("$(dirname "$0")/build.sh")}
D=$(mktemp -d /tmp/tbk.XXXXXX)
pids=()
stop() {
	local i p
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		p=${pids[i]}
		kill "$p" 2>/dev/null || continue
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	pids=()
	rm -rf "$D"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
fail() {
	echo "control-plane.sh: $*" >&2
	for f in "$D"/*.log; do echo "--- $f" >&2; tail -5 "$f" >&2; done
	exit 1
}
# wait_for WHAT SECONDS CMD...: until CMD succeeds.
wait_for() {
	local what=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 4; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.25
	done
	fail "$what: not within ${secs}s"
}

mkdir -p "$D/certs"
openssl genrsa -out "$D/sa.key" 2048 2>/dev/null
echo "tb-token,admin,admin,system:masters" >"$D/tokens.csv"
cat >"$D/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: tb, cluster: {server: "https://127.0.0.1:64430", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: tb-token}}]
contexts: [{name: tb, context: {cluster: tb, user: admin}}]
current-context: tb
EOF
k() { "$B/kubectl" --kubeconfig "$D/kubeconfig" "$@"; }

start=$SECONDS
"$B/etcd" --data-dir "$D/etcd" --listen-client-urls http://127.0.0.1:23790 --advertise-client-urls http://127.0.0.1:23790 \
	--listen-peer-urls http://127.0.0.1:23800 --initial-advertise-peer-urls http://127.0.0.1:23800 \
	--initial-cluster default=http://127.0.0.1:23800 >"$D/etcd.log" 2>&1 &
pids+=($!)
"$B/kube-apiserver" --etcd-servers=http://127.0.0.1:23790 --bind-address=127.0.0.1 --secure-port=64430 --cert-dir="$D/certs" \
	--token-auth-file="$D/tokens.csv" --authorization-mode=AlwaysAllow --service-cluster-ip-range=10.96.0.0/24 \
	--service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$D/sa.key" \
	--service-account-signing-key-file="$D/sa.key" >"$D/apiserver.log" 2>&1 &
pids+=($!)
wait_for "the apiserver's /readyz" 60 k get --raw /readyz
echo "control-plane.sh: apiserver ready after $((SECONDS - start)) s"
"$B/kube-controller-manager" --kubeconfig="$D/kubeconfig" --leader-elect=false --secure-port=0 \
	--service-account-private-key-file="$D/sa.key" --use-service-account-credentials=false >"$D/controller-manager.log" 2>&1 &
pids+=($!)
"$B/kube-scheduler" --kubeconfig="$D/kubeconfig" --leader-elect=false --secure-port=0 >"$D/scheduler.log" 2>&1 &
pids+=($!)

k get namespaces
k create job tb-smoke --image=throttlebench:dev -- true >/dev/null
wait_for "the Job controller's pod" 60 k get pods -l job-name=tb-smoke -o name
unschedulable() {
	[ "$(k get pods -l job-name=tb-smoke -o 'jsonpath={.items[0].status.conditions[?(@.type=="PodScheduled")].reason}')" = Unschedulable ]
}
wait_for "the scheduler's verdict on the pod" 60 unschedulable
k get pods -l job-name=tb-smoke -o wide
echo "control-plane.sh: etcd, apiserver, controller-manager and scheduler answered in $((SECONDS - start)) s"
