#!/usr/bin/env bash
# runtime.sh: the node's container runtime for make test-kube (issue 37, a
# start): Debian's containerd 1.6 (CRI v1) and runc, as a private instance
# (its root, state, sockets and CNI directories in a directory of its own,
# so the host's containerd, if any, is never touched), with our pause image
# (pause/pause.c, static, FROM scratch, made by oci-archive.py: no image can
# be pulled here) imported into CRI's k8s.io namespace as its sandbox_image.
# It checks the CRI plugin loaded and the image is there, then stops
# containerd and removes its directory, on every way out. The kubelet, on
# this socket, comes next.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v containerd >/dev/null && command -v runc >/dev/null || {
	echo "runtime.sh: needs containerd and runc (Debian: apt-get install containerd runc)" >&2
	exit 1
}
D=$(mktemp -d /tmp/tbk.XXXXXX) # short: a socket path is at most 108 bytes
pid=
stop() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	# Nothing of its may stay mounted before the directory goes.
	{ grep -o " $D/[^ ]*" /proc/self/mountinfo || true; } | sort -r | while read -r m; do umount "$m" || true; done
	rm -rf "$D"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

image=docker.io/throttlebench/pause:tb
mkdir -p "$D/pause-bin" "$D/cni/bin" "$D/cni/net.d"
gcc -static -Os -Wall -Wextra -Werror -o "$D/pause-bin/pause" "$here/pause/pause.c"
python3 "$here/oci-archive.py" "$D/pause-bin/pause" "$image" "$D/pause.tar"
cat >"$D/config.toml" <<EOF
version = 2
root = "$D/root"
state = "$D/state"
[grpc]
  address = "$D/containerd.sock"
[ttrpc]
  address = "$D/containerd-ttrpc.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$image"
[plugins."io.containerd.grpc.v1.cri".cni]
  bin_dir = "$D/cni/bin"
  conf_dir = "$D/cni/net.d"
EOF
start=$SECONDS
containerd --config "$D/config.toml" >"$D/containerd.log" 2>&1 &
pid=$!
for _ in $(seq 80); do [ -S "$D/containerd.sock" ] && break; sleep 0.25; done
[ -S "$D/containerd.sock" ] || { tail -5 "$D/containerd.log" >&2; echo "runtime.sh: containerd did not listen within 20 s" >&2; exit 1; }
c() { ctr --address "$D/containerd.sock" "$@"; }
c plugins ls | grep -q 'io.containerd.grpc.v1 *cri .* ok' || { echo "runtime.sh: containerd's CRI plugin did not load" >&2; exit 1; }
c -n k8s.io images import "$D/pause.tar" >/dev/null
c -n k8s.io images ls -q | grep -qx "$image" || { echo "runtime.sh: $image not imported" >&2; exit 1; }
echo "runtime.sh: containerd $(containerd --version | awk '{print $3}') with CRI and $image in $((SECONDS - start)) s"
