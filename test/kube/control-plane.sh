#!/usr/bin/env bash
# control-plane.sh: the first half of make test-kube's node (issue 37, a
# start): etcd and kube-apiserver from build.sh on 127.0.0.1 (the
# apiserver self-signs; a token file and AlwaysAllow, so no CA work), one
# kubeconfig with insecure-skip-tls-verify, readiness, kubectl get
# namespaces, then both stopped and their state directory removed. The
# controller-manager, the scheduler and the kubelet on containerd come next.
set -u
B=${B:-$("$(dirname "$0")/build.sh")}
D=$(mktemp -d /tmp/tbk.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill $p 2>/dev/null; wait $p 2>/dev/null; done; rm -rf "$D"; }
trap cleanup EXIT
mkdir -p $D/certs
openssl genrsa -out $D/sa.key 2048 2>/dev/null
echo "tb-token,admin,admin,system:masters" > $D/tokens.csv
t0=$(date +%s.%N)
$B/etcd --data-dir $D/etcd --listen-client-urls http://127.0.0.1:23790 --advertise-client-urls http://127.0.0.1:23790 \
  --listen-peer-urls http://127.0.0.1:23800 --initial-advertise-peer-urls http://127.0.0.1:23800 --initial-cluster default=http://127.0.0.1:23800 > $D/etcd.log 2>&1 &
pids+=($!)
$B/kube-apiserver --etcd-servers=http://127.0.0.1:23790 --bind-address=127.0.0.1 --secure-port=64430 --cert-dir=$D/certs \
  --token-auth-file=$D/tokens.csv --authorization-mode=AlwaysAllow --service-cluster-ip-range=10.96.0.0/24 \
  --service-account-issuer=https://kubernetes.default.svc --service-account-key-file=$D/sa.key \
  --service-account-signing-key-file=$D/sa.key > $D/apiserver.log 2>&1 &
pids+=($!)
cat > $D/kubeconfig <<K
apiVersion: v1
kind: Config
clusters: [{name: tb, cluster: {server: "https://127.0.0.1:64430", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: tb-token}}]
contexts: [{name: tb, context: {cluster: tb, user: admin}}]
current-context: tb
K
for i in $(seq 1 120); do
  $B/kubectl --kubeconfig $D/kubeconfig get --raw /readyz >/dev/null 2>&1 && break
  sleep 0.5
done
echo "ready after $(echo "$(date +%s.%N) - $t0" | bc) s"
$B/kubectl --kubeconfig $D/kubeconfig get namespaces
$B/kubectl --kubeconfig $D/kubeconfig version
tail -3 $D/apiserver.log
