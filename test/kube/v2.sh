#!/usr/bin/env bash
# v2.sh: make test-kube-v2 (issue 50). A Kubernetes 1.35 node on cgroup v2:
# the control plane (etcd, apiserver, controller-manager, scheduler) on this
# host, where it starts in seconds (node.sh's control_start/control_ready),
# and the node, kubelet and containerd with the systemd cgroup driver, in
# the stock systemd guest (test/systemd, Debian 12, v2), which boots after
# its Docker checks (test/systemd/docker/guest.sh: the engine there builds
# the image the pods run) and runs test/kube's checks in the guest, where
# the pods' cgroups are (docker/kube.sh). Under TCG the guest runs only what
# v2 changes: the node, not the control plane.
#
#   test/kube/v2.sh             # as root; CI=true makes a missing part a failure
#
# The guest reaches the apiserver through qemu's user network, restrict=on:
# a guestfwd from 10.0.2.100:64430 to this host's 127.0.0.1:64430 (socat,
# one per connection), and the apiserver the kubelet through a hostfwd of
# 127.0.0.1:10350 (the node is "localhost", as on the v1 node): nothing
# listens on another address. On success, failure, Ctrl-C or SIGTERM the
# control plane is taken down and the host's state diffed (node.sh's
# host_state), and the guest's own teardown is checked in the guest.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"

if [[ $(id -u) -ne 0 ]]; then
	[[ ${CI:-} == true ]] && { echo "v2.sh: must run as root in CI" >&2; exit 1; }
	echo "v2.sh: skipped: needs root (it builds the systemd guest's image)" >&2
	exit 0
fi
start=$SECONDS
bash "$here/setup.sh"
bash test/systemd/setup.sh
B=$("$here/build.sh")

. "$here/node.sh"
work=$(mktemp -d /tmp/tbk-v2.XXXXXX)
guest=
finish() {
	local rc=$?
	trap - EXIT INT TERM
	set +e
	# The guest's boot, where it still runs (this script was signalled):
	# its group, test.sh, run.sh and qemu, each of which cleans up after
	# itself.
	if [ -n "$guest" ] && kill -0 "$guest" 2>/dev/null; then
		kill -TERM -- "-$guest"
		wait "$guest"
	fi
	node_down || rc=1
	rm -rf "$work"
	echo "v2.sh: $([ $rc = 0 ] && echo passed || echo FAILED) in $((SECONDS - start)) s"
	exit $rc
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# What the guest runs beside the Docker checks: the kubelet and kubectl,
# our pause image, test/kube's checks, and a kubeconfig for the forwarded
# apiserver.
kube=$work/kube
mkdir -p "$kube"
cp "$B/kubelet" "$B/kubectl" "$kube/"
gcc -static -Os -Wall -Wextra -Werror -o "$work/pause" "$here/pause/pause.c"
python3 "$here/oci-archive.py" "$work/pause" docker.io/throttlebench/pause:tb "$kube/pause.tar"
CGO_ENABLED=0 go test -c -trimpath -o "$kube/kubetest" ./test/kube
# On v2, what v2 changes: the Jobs' cgroups, the collect round trip, the
# pod-level limit; a second sweep, a failed pod and compare are the v1
# node's (kube_test.go says which is which).
echo "${TB_KUBE_V2_RUN:-^(TestEmittedSweepOnARealNode|TestPodLevelLimit)\$/^one_sweep\$}" >"$kube/tests"
tbk_kubeconfig https://10.0.2.100:64430 >"$kube/kubeconfig"
# The node's configuration for the guest's state directory, /run/tbk
# (docker/kube.sh copies it there), and the systemd cgroup driver.
node_configs "$kube/state" /run/tbk systemd
echo "v2.sh: binaries ready after $((SECONDS - start)) s"

control_start
control_ready
export TB_SYSTEMD_NET="guestfwd=tcp:10.0.2.100:64430-cmd:socat - TCP:127.0.0.1:64430,hostfwd=tcp:127.0.0.1:10350-:10350"
# Memory for the engine's build, then the node: the kubelet, containerd,
# the pods and the checks. The deadline is for a hang.
# In a group of its own, in the background: a SIGTERM to this script alone
# is handled at once (bash runs a trap only once its foreground command
# ends), and finish signals the whole boot.
TB_VM_MEM=${TB_VM_MEM:-2048} TB_SYSTEMD_EXTRA=$kube \
	setsid bash test/systemd/test.sh docker "${TB_KUBE_V2_TIMEOUT:-900}" &
guest=$!
wait "$guest"
