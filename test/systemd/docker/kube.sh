#!/bin/sh
# The v2 Kubernetes node (issue 50), sourced by guest.sh after the Docker
# checks when the payload has kube/ (test/kube/v2.sh puts it there and runs
# the control plane on the host): Debian's containerd with CRI and runc's
# systemd cgroup driver, and upstream's kubelet with the systemd cgroup
# driver, as v2 nodes run them; the apiserver reached through qemu's
# guestfwd at 10.0.2.100:64430, the kubelet's port 10350 forwarded to the
# host's 127.0.0.1 (kubectl logs goes apiserver -> kubelet). Then
# test/kube's checks (kubetest) read the pods' cgroups here, and the node
# is taken down: nothing of it may be left. Uses guest.sh's pass, fail,
# wait_for and $fails; the images are throttlebench:dev, which the engine
# built and guest.sh saved to $kube_images, and kube/pause.tar.
K=/payload/kube
S=/run/tbk # short: a socket's path is at most 108 bytes
tbctr() { ctr --address $S/containerd.sock -n k8s.io "$@"; }
kc() { $K/kubectl --kubeconfig $K/kubeconfig "$@"; }
kubelet_pid= containerd_pid=

# The NIC: qemu's user network, restrict=on (the guest reaches the
# forwarded port and nothing else). The kubelet takes the node's address
# from the default route's link.
nic=$(ls /sys/class/net | grep -v '^lo$' | head -n 1)
ip link set "$nic" up
ip addr add 10.0.2.15/24 dev "$nic" 2>/dev/null
ip route add default via 10.0.2.2 2>/dev/null
echo "kube: $nic $(ip -4 -o addr show dev "$nic" | awk '{print $4}'), apiserver $(grep -o 'https://[^"]*' $K/kubeconfig)"

# The node's configuration, as test/kube/node.sh's node_configs wrote it
# on the host for this state directory and the systemd driver.
mkdir -p $S
cp -r $K/state/. $S/
containerd --config $S/containerd.toml >$S/containerd.log 2>&1 &
containerd_pid=$!
cri_ok() { ctr --address $S/containerd.sock plugins ls 2>/dev/null | grep -q 'io.containerd.grpc.v1 *cri .* ok'; }
if wait_for 120 "containerd's CRI plugin" cri_ok; then pass "containerd with CRI (in $waited ms)"; else tail -n 20 $S/containerd.log; fi
for image in $K/pause.tar "$kube_images"; do
	tbctr images import "$image" >/dev/null || fail "import $image" "rc=$?"
done
rm -f "$kube_images"

$K/kubelet --kubeconfig=$K/kubeconfig --config=$S/kubelet.yaml --root-dir=$S/kubelet \
	--hostname-override=localhost >$S/kubelet.log 2>&1 &
kubelet_pid=$!
ready() { kc wait node localhost --for=condition=Ready --timeout=1s >/dev/null 2>&1; }
if wait_for 240 "node localhost Ready" ready; then
	pass "node Ready: kubelet $($K/kubelet --version | cut -d' ' -f2), systemd cgroup driver (in $waited ms)"
	TB_KUBECONFIG=$K/kubeconfig TB_KUBECTL=$K/kubectl TB_KUBE_NODE=localhost THROTTLEBENCH_BIN=/payload/throttlebench \
		$K/kubetest -test.v -test.count=1 -test.timeout 15m -test.run "$(cat $K/tests)" &&
		pass "test/kube's checks on v2" || fail "test/kube's checks on v2" "see above"
else
	tail -n 30 $S/kubelet.log
fi

# Down: the pods by the kubelet (CRI stops each sandbox, CNI gives back its
# veth), then the kubelet, whatever still runs in containerd, containerd.
if kill -0 $kubelet_pid 2>/dev/null; then
	kc delete jobs --all --wait=false >/dev/null 2>&1
	kc delete pods --all --timeout=120s >/dev/null 2>&1
	no_tasks() { [ -z "$(tbctr tasks ls -q 2>/dev/null)" ]; }
	wait_for 120 "the sandboxes' end" no_tasks
fi
kill $kubelet_pid 2>/dev/null
wait $kubelet_pid 2>/dev/null
for c in $(tbctr tasks ls -q 2>/dev/null); do tbctr tasks kill -s SIGKILL "$c" >/dev/null 2>&1; done
for c in $(tbctr containers ls -q 2>/dev/null); do
	tbctr tasks delete -f "$c" >/dev/null 2>&1
	tbctr containers delete "$c" >/dev/null 2>&1
done
kill $containerd_pid 2>/dev/null
wait $containerd_pid 2>/dev/null
# The slices the kubelet asked systemd for stay as units until stopped;
# the bridge CNI made stays until deleted (its veths went with the
# sandboxes' namespaces), as on the v1 node (node.sh's node_down).
systemctl stop kubepods.slice 2>/dev/null
ip link del tbk0 2>/dev/null
ours() {
	find /sys/fs/cgroup -name 'kubepods*' -type d 2>/dev/null
	awk -v s="$S/" 'index($5, s) == 1 || $5 ~ /^\/run\/netns\// { print $5 }' /proc/self/mountinfo
	ip -o link show 2>/dev/null | awk -F': ' '$2 ~ /^(tbk0|veth)/ { print $2 }'
	for p in /proc/[0-9]*; do
		case $(readlink $p/exe 2>/dev/null) in $K/* | */containerd | */containerd-shim*) echo "process ${p#/proc/} $(readlink $p/exe)" ;; esac
	done
}
nothing_ours() { [ -z "$(ours)" ]; }
if wait_for 60 "the node taken down: no kubepods cgroup, mount, link or process left" nothing_ours; then
	pass "the node taken down: nothing left"
	# Its files, once nothing is mounted below them: the state, and
	# libcni's cache (as node_down removes it on the v1 node).
	rm -rf $S /var/lib/cni
else
	echo "left: $(ours | tr '\n' ' ')"
fi
