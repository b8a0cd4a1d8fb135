#!/usr/bin/env bash
# Build throttlebench (static) into a payload with one of test/systemd's
# guests and boot it: bash test/systemd/test.sh [GUEST] [TIMEOUT]
# GUEST is a directory here with a guest.sh (default: driver). Needs
# setup.sh once; run it under flock /tmp/tb-heavy.lock on shared machines.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GUEST=${1:-driver}
TIMEOUT=${2:-300}
[[ -f $HERE/$GUEST/guest.sh ]] || { echo "test.sh: no guest $HERE/$GUEST/guest.sh" >&2; exit 2; }
PAYLOAD=$(mktemp -d "${TMPDIR:-/tmp}/tb-systemd.XXXXXX")
trap 'rm -rf -- "$PAYLOAD"' EXIT
cp -a "$HERE/$GUEST/." "$PAYLOAD/"
(cd "$HERE/../.." && CGO_ENABLED=0 go build -trimpath -o "$PAYLOAD/throttlebench" ./cmd/throttlebench)
bash "$HERE/run.sh" "$PAYLOAD" "$TIMEOUT"
