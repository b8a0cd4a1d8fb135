#!/usr/bin/env bash
# build.sh: the upstream binaries of a single-node Kubernetes cluster
# (kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
# kubectl, and etcd from the same module graph), built from the Go module
# proxy with the wrapper module beside this script (k8s/go.mod), into a
# cache outside the clone keyed by the Kubernetes and Go versions, so that a
# second run takes them from there in a second. Prints the directory.
#
#   test/kube/build.sh        # TB_KUBE_CACHE sets the cache's root
#
# Cold on our 2-core machines it takes minutes (issue 37 has the figures);
# it builds at nice 19 so that the machine stays usable meanwhile.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mod=$here/k8s
go=${GO:-go}

kube=$(awk '$1 == "k8s.io/kubernetes" { print $2 }' "$mod/go.mod")
etcd=$(awk '$1 == "go.etcd.io/etcd/server/v3" { print $2 }' "$mod/go.mod")
gov=$("$go" env GOVERSION)
root=${TB_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/throttlebench/kube}
out=$root/$kube-etcd$etcd-$gov
bins=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl etcd)

have=1
for b in "${bins[@]}"; do [ -x "$out/$b" ] || have=0; done
if [ $have = 1 ]; then
	echo "build.sh: cached in $out" >&2
	echo "$out"
	exit 0
fi

mkdir -p "$root"
tmp=$(mktemp -d "$root/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
# Unstamped, the binaries call themselves v0.0.0-master, and the kubelet's
# version skew checks against the apiserver's read that.
major=$(echo "${kube#v}" | cut -d. -f1)
minor=$(echo "$kube" | cut -d. -f2)
stamp="-X k8s.io/component-base/version.gitVersion=$kube -X k8s.io/component-base/version.gitMajor=$major -X k8s.io/component-base/version.gitMinor=$minor"
cd "$mod"
for b in "${bins[@]}"; do
	pkg=k8s.io/kubernetes/cmd/$b
	[ "$b" = etcd ] && pkg=go.etcd.io/etcd/server/v3
	echo "build.sh: go build $pkg ($kube, $gov)" >&2
	CGO_ENABLED=0 nice -n 19 "$go" build -trimpath -ldflags "-s -w $stamp" -o "$tmp/$b" "$pkg"
done
mkdir -p "$out"
mv "$tmp"/* "$out/"
echo "build.sh: built in $((SECONDS - start)) s into $out ($(du -sh "$out" | cut -f1))" >&2
echo "$out"
