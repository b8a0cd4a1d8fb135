#!/bin/sh
# Runs inside the VM booted with an SMT topology (test-v2.sh smt: qemu
# -smp 4,sockets=1,cores=2,threads=2): two cores of two threads each, so
# the kernel's sibling lists are real, though the threads do not really
# share a core under TCG. No timing is judged here.
#
# The commands go here: each writes its JSON to a file and ./check judges
# it by name (test/vm/smt/check/main.go holds the checks). To add one, a
# command and a check line below, and its check in main.go, e.g.
#   ./throttlebench run --one-per-core ... --format json >/tmp/one-per-core.json
#   ./check run-one-per-core /tmp/one-per-core.json
set -e
cd /payload
echo "guest: $(nproc) CPUs; thread_siblings_list of cpu0-3: $(cat /sys/devices/system/cpu/cpu[0-3]/topology/thread_siblings_list | tr '\n' ' ')"

./throttlebench inspect # the text, for the log
./throttlebench inspect --format json >/tmp/inspect.json
./check inspect-smt /tmp/inspect.json

# One thread of each core: the workers may use CPUs 0 and 2 (the lower of
# each sibling pair); pinned, worker 0 on 0 and worker 1 on 2.
run="./throttlebench run --cgroup create --workload spin --units 100 --workers 2 --batch 20 --iterations 2 --warmup 0 --one-per-core --format json"
$run >/tmp/one-per-core.json
./check run-one-per-core /tmp/one-per-core.json
$run --pin >/tmp/one-per-core-pinned.json
./check run-one-per-core-pinned /tmp/one-per-core-pinned.json
