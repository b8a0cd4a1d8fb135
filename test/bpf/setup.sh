#!/usr/bin/env bash
# Install what `make generate` needs to rebuild internal/tracer's BPF
# object from its C: clang (the BPF target), llvm (llvm-strip, which bpf2go
# runs) and libbpf-dev (bpf_helpers.h, bpf_tracing.h, bpf_core_read.h),
# all from Debian's packages.
#
# Usage: sudo bash test/bpf/setup.sh     (idempotent; nothing to do, no apt)
#
# A build never needs this: the generated Go and object files are committed.
set -euo pipefail

need=()
command -v clang >/dev/null || need+=(clang)
command -v llvm-strip >/dev/null || need+=(llvm)
[[ -f /usr/include/bpf/bpf_helpers.h ]] || need+=(libbpf-dev)
((${#need[@]} == 0)) && exit 0

if [[ $(id -u) -ne 0 ]]; then
	echo "$(basename "$0"): make generate needs ${need[*]}; install them as root (sudo bash $0)" >&2
	exit 1
fi
# Install from the lists already here; refresh them only when that fails.
apt-get install -y -q --no-install-recommends "${need[@]}" ||
	{ apt-get update -q && apt-get install -y -q --no-install-recommends "${need[@]}"; }
