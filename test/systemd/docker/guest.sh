#!/bin/sh
# Docker on cgroup v2 (issue 50): Debian's docker.io engine (20.10, the
# systemd cgroup driver, as v2 hosts run it) in the stock systemd guest
# builds the image from the Dockerfile and runs test/docker's checks of
# the container's view: --cpu-period/--cpu-quota and --cpus read from
# cpu.max, effective_cpus, the throttling counted, the private and the
# host cgroup namespace, a burst written on the host read inside, and
# sample inside the container sampling the container. Only those: what v2
# does not change (plots, latency, the Jobs' round trip, the image's
# default command) runs on the host's engine (make test-docker). Then the
# engine is stopped and nothing of it may be left. With kube/ in the
# payload (test/kube/v2.sh), the v2 Kubernetes node follows (kube.sh).
# Each check prints "PASS name" or
# "FAIL name: why"; the exit status is the number of failures.
fails=0
. /payload/guestlib.sh
at() { up=$(uptime_cs); echo "$((up / 100)).$((up % 100 / 10))"; }
pass() { echo "PASS $1 [$(at) s]"; }
fail() {
	echo "FAIL $1: $2 [$(at) s]"
	fails=$((fails + 1))
}
answers() { docker info >/dev/null 2>&1; }
# settled: the engine answers, or its unit gave up (no use waiting on).
settled() { answers || systemctl is-failed -q docker; }
containers() { docker ps -aq 2>/dev/null; }
no_scopes() { [ -z "$(find /sys/fs/cgroup -name 'docker-*.scope' -type d 2>/dev/null)" ]; }

# The guest has no network: docker.service wants network-online.target,
# whose wait-online would wait its 2 minutes for a link that never comes.
systemctl mask --runtime -q systemd-networkd-wait-online.service
# Off the network as on the host (test/docker/engine.sh says why), and on
# overlay2 as Docker's hosts are: not found loaded, the engine fell back
# to devicemapper, which needs mkfs.ext4 the image lacks; and its data on
# a tmpfs, as the image's ext4 has no d_type, which overlay2 needs.
mkdir -p /etc/docker /var/lib/docker
mount -t tmpfs -o mode=0710 tmpfs /var/lib/docker
echo '{"iptables": false, "ip-forward": false, "ip-masq": false, "bridge": "none", "storage-driver": "overlay2"}' >/etc/docker/daemon.json
modprobe overlay || fail "modprobe overlay" "rc=$?"
systemctl start dbus containerd docker
if wait_for 240 "docker answers" settled && answers; then
	pass "docker answers (in ${waited} ms)"
else
	journalctl -u docker -u containerd --no-pager | tail -n 20
	exit 1
fi
info=$(docker info --format '{{.CgroupDriver}} {{.CgroupVersion}} {{.ServerVersion}}')
case $info in
"systemd 2 "*) pass "engine: $info" ;;
*) fail "engine: the systemd driver on cgroup v2" "$info" ;;
esac

ln /payload/throttlebench /payload/ctx/bin/throttlebench
if docker build -q -t throttlebench:dev /payload/ctx >/tmp/build 2>&1; then
	pass "image built from the Dockerfile"
else
	fail "image built from the Dockerfile" "$(cat /tmp/build)"
fi

cd /payload/ctx/test/docker || exit 1
# Not TestImageDefaultCommand: the image's default command reads its
# limits as --cgroup current does in the others (20 s of make test's
# budget, beside a busy loop, for nothing v2 changes).
checks='^(TestQuotaInsideContainer|TestDockerCPUsFlag|TestCgroupNamespaces|TestBurstAndSampleInsideContainer)$'
[ ! -f /payload/docker-checks ] || checks=$(cat /payload/docker-checks)
# A batch of 30, not 100: emulated, the iteration at 0.2 CPU took 6 s
# (docker_test.go's batch says why 30 still holds).
if TB_DOCKER_IMAGE=throttlebench:dev TB_DOCKER_BATCH=30 ./dockertest -test.v -test.count=1 -test.run "$checks"; then
	pass "test/docker's checks on v2"
else
	fail "test/docker's checks on v2" "see above"
fi
cd /

left=$(containers)
[ -z "$left" ] && pass "no container left" || fail "no container left" "$left"
# The scopes go as the containers do: waited for, not assumed.
wait_for 60 "no docker-*.scope left" no_scopes &&
	pass "no container scope left"
# The v2 Kubernetes node's pods run the image the engine built.
kube_images=/var/tmp/tb-images.tar
if [ -d /payload/kube ]; then
	docker save -o $kube_images throttlebench:dev || fail "docker save throttlebench:dev" "rc=$?"
fi
systemctl stop docker docker.socket containerd
if systemctl is-active -q docker containerd; then fail "engine stopped" "$(systemctl is-active docker containerd)"; else pass "engine stopped"; fi
umount /var/lib/docker
[ ! -d /payload/kube ] || . /payload/kube.sh
echo "docker guest: $fails failure(s)"
exit "$fails"
