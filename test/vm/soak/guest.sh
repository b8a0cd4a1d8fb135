#!/bin/sh
# Runs inside the VM (see ../run.sh for what the guest offers): the fault
# soak alone (TestSoak in test/integration) on cgroup v2. test-v2.sh soak
# writes its settings into soak.env, since the host's environment does not
# reach the guest: TB_SOAK_TRIALS, TB_SOAK_LIMIT (seconds for the test
# binary, below the VM's own limit), TB_SOAK_SEED when replaying a soak.
set -e
cd /payload
TB_SOAK_TRIALS=20 TB_SOAK_LIMIT=600
[ -f soak.env ] && . ./soak.env
export TB_SOAK_TRIALS
[ -n "${TB_SOAK_SEED:-}" ] && export TB_SOAK_SEED
echo "guest: kernel $(uname -r); soak: $TB_SOAK_TRIALS trials per kind, -test.timeout ${TB_SOAK_LIMIT}s"
rc=0
THROTTLEBENCH_BIN=/payload/throttlebench CI=true ./integration.test -test.v -test.count=1 \
	-test.run '^TestSoak$' -test.timeout "${TB_SOAK_LIMIT}s" || rc=$?
exit $rc
