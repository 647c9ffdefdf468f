#!/usr/bin/env bash
# Builds extenddb from this checkout and runs it in this process's place:
#
#   scripts/start.sh                  # extenddb serve (http://127.0.0.1:8000, data in ./extenddb-data)
#   scripts/start.sh --in-memory      # flags go to extenddb serve
#   scripts/start.sh version          # or name another subcommand
#
# It finds (or fetches) a Go new enough for go.mod (scripts/go.sh) and a C
# compiler (the SQLite driver uses cgo; as root it installs Debian's gcc),
# builds bin/extenddb, printing each package as it compiles (the first build
# compiles SQLite and takes a few minutes; later ones take seconds), then
# exec's the binary: the server is the process that gets Ctrl-C and SIGTERM,
# and nothing stays behind when it stops. EXTENDDB_BIN names another path
# for the binary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
go=$("$root/scripts/go.sh")
if ! command -v gcc >/dev/null && ! command -v cc >/dev/null; then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		echo "installing a C compiler for the SQLite driver (apt-get install gcc libc6-dev)" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >&2
		apt-get install -y -qq --no-install-recommends gcc libc6-dev >&2
	else
		echo "building needs a C compiler (the SQLite driver uses cgo): apt-get install gcc libc6-dev" >&2
		exit 1
	fi
fi
bin=${EXTENDDB_BIN:-$root/bin/extenddb}
mkdir -p "$(dirname "$bin")"
if [[ ! -x $bin ]]; then
	echo "building extenddb for the first time: compiling SQLite takes a few minutes; each package is listed as it compiles" >&2
fi
(cd "$root" && CGO_ENABLED=1 GOTOOLCHAIN=local "$go" build -v -o "$bin" ./cmd/extenddb 2>&1 | sed -u 's/^/  compiling /' >&2)
case ${1:-} in
"" | -*) set -- serve "$@" ;;
esac
exec "$bin" "$@"
