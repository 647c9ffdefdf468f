#!/usr/bin/env bash
# Builds a static extenddb binary (SQLite compiled in, no shared libraries),
# the one the Dockerfile ships and the release archives hold:
#
#   scripts/build-static.sh OUT [VERSION]
#
# Needs Go, gcc and the static C library (Debian: gcc libc6-dev). The
# Dockerfile runs exactly this script, and e2e/docker_test.go runs it too,
# since no image can be built where the tests run.
set -euo pipefail
out=${1:?usage: scripts/build-static.sh OUT [VERSION]}
version=${2:-}
cd "$(dirname "$0")/.."
ldflags="-s -w -linkmode external -extldflags -static"
if [[ -n $version ]]; then
	ldflags+=" -X main.version=$version"
fi
echo "building a static extenddb into $out (compiling SQLite takes a few minutes the first time)" >&2
CGO_ENABLED=1 go build -trimpath \
	-tags 'netgo osusergo sqlite_omit_load_extension' \
	-ldflags "$ldflags" -o "$out" ./cmd/extenddb
