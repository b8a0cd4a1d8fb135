#!/usr/bin/env bash
# Install the peers `make bench` measures throttlebench against: cyclictest
# (Debian's rt-tests), the machine's timer wake-up floor, beside the
# latency floor (BenchmarkLatencyFloorPeers in test/integration); hyperfine
# beside run -- CMD (BenchmarkCommandPeers: durations and the harness's
# cost per run). schbench
# is not packaged for Debian: the benchmark runs it where it is on PATH.
#
# Usage: sudo bash test/bench/setup.sh     (idempotent; nothing to do, no apt)
#
# Without root or apt it says what is missing and exits 0: the benchmark
# then skips the peer with that message rather than failing.
set -uo pipefail

need=()
command -v cyclictest >/dev/null || need+=(rt-tests)
command -v hyperfine >/dev/null || need+=(hyperfine)
((${#need[@]} == 0)) && exit 0

if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
	echo "$(basename "$0"): a peer is missing: install ${need[*]} as root (sudo bash $0, or your distribution's rt-tests)" >&2
	exit 0
fi
# Install from the lists already here; refresh them only when that fails.
apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null ||
	{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null; } ||
	echo "$(basename "$0"): could not install ${need[*]} with apt-get" >&2
exit 0
