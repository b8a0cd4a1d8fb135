#!/usr/bin/env bash
# run.sh: make test-kube (issue 37). The emitted Jobs on a real,
# single-node Kubernetes cluster on this host (node.sh), checked by
# test/kube's Go tests, and then the host checked for anything left.
#
#   test/kube/run.sh            # as root; CI=true makes a missing part a failure
#
# 1. Debian's containerd, runc, CNI plugins, iptables (setup.sh), and
#    the upstream binaries from build.sh's cache (minutes once, then a
#    second; TB_KUBE_CACHE moves it).
# 2. The images: our pause (pause/pause.c) and throttlebench:dev from the
#    Dockerfile, built by the project's own Docker engine
#    (test/docker/engine.sh, started and stopped here when none runs),
#    saved, and imported into the node's containerd: no registry.
# 3. node_up, go test ./test/kube, node_down: on success, on failure and
#    on Ctrl-C or SIGTERM alike, then host_state against what it was
#    before: any difference fails the run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"

if [[ $(id -u) -ne 0 ]]; then
	[[ ${CI:-} == true ]] && { echo "run.sh: must run as root in CI" >&2; exit 1; }
	echo "run.sh: skipped: needs root (it runs a kubelet)" >&2
	exit 0
fi
# The node is a cgroup v1 node (the kubelet's cgroupfs driver, /kubepods
# under each controller), which is what this host has: on a host with cgroup
# v2 alone there is no v1 hierarchy for it, and it is not run.
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
	echo "run.sh: skipped: this host has cgroup v2 alone, and the test node is a cgroup v1 node (docs/cluster.md#on-a-real-node)" >&2
	exit 0
fi
start=$SECONDS
bash "$here/setup.sh"
B=$("$here/build.sh")
make -s build

. "$here/node.sh"
work=$(mktemp -d /tmp/tbk-run.XXXXXX)
docker_ours=
finish() {
	local rc=$?
	trap - EXIT INT TERM
	set +e # take down all that can be, whatever fails
	node_down || rc=1
	[ -n "$docker_ours" ] && { "$repo/test/docker/engine.sh" down || rc=1; }
	rm -rf "$work"
	echo "run.sh: $([ $rc = 0 ] && echo passed || echo FAILED) in $((SECONDS - start)) s"
	exit $rc
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The pause image: static, FROM scratch, the same bytes each time.
gcc -static -Os -Wall -Wextra -Werror -o "$work/pause" "$here/pause/pause.c"
python3 "$here/oci-archive.py" "$work/pause" docker.io/throttlebench/pause:tb "$work/pause.tar"
# throttlebench:dev from the Dockerfile, as make image builds it.
export TB_DOCKER_STATE=${TB_DOCKER_STATE:-/var/tmp/throttlebench-docker}
if ! "$repo/test/docker/engine.sh" status >/dev/null 2>&1; then
	"$repo/test/docker/engine.sh" up
	docker_ours=1
fi
eval "$("$repo/test/docker/engine.sh" env)"
make -s image
docker save -o "$work/throttlebench.tar" throttlebench:dev
if [ -n "$docker_ours" ]; then
	"$repo/test/docker/engine.sh" down
	docker_ours=
fi
TBK_IMAGES=("$work/pause.tar" "$work/throttlebench.tar")
echo "run.sh: binaries and images ready after $((SECONDS - start)) s"

node_up
TB_KUBECONFIG=$TBK/kubeconfig TB_KUBECTL=$B/kubectl TB_KUBE_NODE=$TBK_NODE \
	THROTTLEBENCH_BIN=$repo/bin/throttlebench \
	go test -count=1 -v -timeout 15m ./test/kube/
