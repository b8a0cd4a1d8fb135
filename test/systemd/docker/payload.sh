#!/usr/bin/env bash
# The Docker guest's payload beyond test.sh's binary (test.sh runs this
# with the payload directory): the image's build context (the Dockerfile,
# and the .dockerignore that sends the engine bin/throttlebench alone, not
# the checks' binary; the guest links the binary into bin/) and
# test/docker's checks compiled to run in it, from a tree shaped like the
# repository's.
set -euo pipefail
payload=$1
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
mkdir -p "$payload/ctx/bin" "$payload/ctx/test/docker"
cp "$repo/Dockerfile" "$repo/.dockerignore" "$payload/ctx/"
(cd "$repo" && CGO_ENABLED=0 go test -c -trimpath -o "$payload/ctx/test/docker/dockertest" ./test/docker)
# TB_DOCKER_V2_RUN: the checks to run, a -test.run pattern (default: those
# guest.sh names).
[[ -z ${TB_DOCKER_V2_RUN:-} ]] || printf '%s\n' "$TB_DOCKER_V2_RUN" >"$payload/docker-checks"
