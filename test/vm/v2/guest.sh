#!/bin/sh
# Runs inside the VM (see ../run.sh for what the guest offers): the
# integration tests, this time on a pure cgroup v2 hierarchy with the cpu
# controller. CI=true turns every skip for a missing precondition into a
# failure; only the v1-only and v2-only tests that do not apply may skip.
set -e
cd /payload
echo "guest: kernel $(uname -r); cgroup2 controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
rc=0
THROTTLEBENCH_BIN=/payload/throttlebench CI=true ./integration.test -test.v -test.count=1 -test.timeout 10m || rc=$?
exit $rc
