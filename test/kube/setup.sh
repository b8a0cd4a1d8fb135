#!/usr/bin/env bash
# setup.sh: what make test-kube's node needs from Debian (idempotent: no
# apt when all is there): containerd (1.6, CRI v1) and runc, the CNI
# plugins (the bridge and host-local), iptables and nftables (the kubelet's
# chains, and the tables iptables-nft makes for them, are read and undone
# with them), openssl (the service-account key), gcc and a
# static libc (the pause image), python3 (its archive), socat (the v2
# node's guestfwd: one per connection from the guest to the apiserver,
# test/kube/v2.sh). The Docker engine
# that builds throttlebench:dev comes from test/docker/engine.sh.
set -euo pipefail
need=()
for p in containerd:containerd runc:runc /usr/lib/cni/bridge:containernetworking-plugins \
	iptables-save:iptables nft:nftables openssl:openssl gcc:gcc /usr/lib/x86_64-linux-gnu/libc.a:libc6-dev \
	python3:python3 socat:socat; do
	what=${p%%:*}
	if [[ $what == /* ]]; then [ -e "$what" ] && continue; else command -v "$what" >/dev/null && continue; fi
	need+=("${p#*:}")
done
((${#need[@]} == 0)) && exit 0
[[ $(id -u) -eq 0 ]] || { echo "setup.sh: install ${need[*]} as root" >&2; exit 1; }
echo "setup.sh: apt-get install ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null ||
	{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null; }
