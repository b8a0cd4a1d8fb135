#!/usr/bin/env bash
# run.sh — the container path, end to end (make test-docker): start a Docker
# engine when none runs (stopping it again at the end), build the image
# throttlebench:dev from bin/throttlebench, and run test/docker's Go tests
# against it. Needs root. Its arguments are go test's (-run, -count).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"

if [[ $(id -u) -ne 0 ]]; then
	# In CI (root, CI=true) this never happens; elsewhere say why nothing ran.
	[[ ${CI:-} == true ]] && { echo "$(basename "$0"): must run as root in CI" >&2; exit 1; }
	echo "$(basename "$0"): skipped: needs root (it starts a Docker engine)" >&2
	exit 0
fi
# A short state path: the engine's unix sockets live in it, and socket paths
# are limited to ~100 bytes, which a deep CI checkout could exceed.
export TB_DOCKER_STATE=${TB_DOCKER_STATE:-/var/tmp/throttlebench-docker}
image=${TB_DOCKER_IMAGE:-throttlebench:dev}

"$here/engine.sh" up
trap '"$here/engine.sh" down' EXIT
eval "$("$here/engine.sh" env)"

make -s build
docker build -q -t "$image" . >/dev/null
size=$(docker image inspect -f '{{.Size}}' "$image")
# TestImageSize alarms above 40 MiB (a ceiling, not a target);
# test/docker/weigh.sh says what weighs.
echo "run.sh: image $image is $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.2f", s / 1048576 }') MiB)"

# Arguments go to go test: run.sh -run TestName -count 30 measures a bound.
TB_DOCKER_IMAGE=$image go test -count=1 -v "$@" ./test/docker/
