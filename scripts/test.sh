#!/usr/bin/env bash
# Runs every extenddb test on a fresh Debian machine:
#
#   scripts/test.sh                      # everything
#   scripts/test.sh -run Tutorial ./e2e  # arguments replace ./... in the final go test
#   EXTENDDB_E2E_STORAGE=postgres scripts/test.sh -run Tutorial ./e2e
#                                        # the same on PostgreSQL-backed servers
#   EXTENDDB_E2E_STORAGE=cassandra scripts/test.sh -run Transact ./e2e
#                                        # the same on Cassandra-backed servers
#
# 1. installs what the tests need and is missing (the AWS CLI and boto3 from
#    PyPI, a C compiler for the SQLite driver), then runs each hook in
#    scripts/test.d/ (services such as PostgreSQL or Cassandra);
# 2. go vet ./...  and a gofmt check;
# 3. bounded fuzzing: every Fuzz target under internal/ for $FUZZTIME each;
# 4. go test ./e2e/ with EXTENDDB_E2E_STORAGE=postgres: the end-to-end suite
#    with every server on PostgreSQL (fails without EXTENDDB_POSTGRES_DSN,
#    which scripts/test.d/10-postgres.sh exports); only when run without
#    arguments;
# 5. go test ./e2e/ with EXTENDDB_E2E_STORAGE=cassandra: the end-to-end
#    suite a third time, with every server on Cassandra (fails without
#    EXTENDDB_CASSANDRA_HOSTS, which scripts/test.d/20-cassandra.sh
#    exports); only when run without arguments;
# 6. go test ./... (unit tests and the end-to-end tests in e2e/ on SQLite),
#    last, so the output ends with go test's summary.
#
# Exits non-zero if any step fails. Environment:
#   FUZZTIME      fuzzing time per target (default 20s; 0 skips fuzzing)
#   TEST_TIMEOUT  go test -timeout (default 30m)
#   NO_INSTALL=1  never install anything; report what is missing instead
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
FUZZTIME=${FUZZTIME:-20s}
TEST_TIMEOUT=${TEST_TIMEOUT:-30m}
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
# Every backend's tests must run: a backend test that cannot reach its
# server fails instead of skipping.
export EXTENDDB_REQUIRE_BACKENDS=1

# Tools may live outside a non-login shell's PATH.
for d in /usr/local/bin /usr/local/go/bin "$HOME/go/bin" "$HOME/.pyenv/shims" "$HOME/.local/bin"; do
	[[ -d $d && ":$PATH:" != *":$d:"* ]] && PATH="$d:$PATH"
done
export PATH

failed=()
step() { printf '\n=== %s\n' "$*"; }
note_failure() { failed+=("$1"); printf '%s\n' "--- FAILED: $1"; }

# on_exit runs cleanup commands registered by hooks (stop a service, ...).
cleanup=()
on_exit() { cleanup+=("$*"); }
run_cleanup() { local c; for c in "${cleanup[@]}"; do eval "$c" || true; done; }
trap run_cleanup EXIT

apt_updated=0
apt_install() {
	if [[ ${NO_INSTALL:-} == 1 ]]; then
		echo "missing Debian packages: $* (NO_INSTALL=1)"
		return 1
	fi
	if [[ $(id -u) != 0 ]]; then
		echo "need Debian packages $* but not root; install them and rerun"
		return 1
	fi
	if [[ $apt_updated == 0 ]]; then
		apt-get update -qq && apt_updated=1
	fi
	apt-get install -y -qq --no-install-recommends "$@"
}

pip_install() {
	if [[ ${NO_INSTALL:-} == 1 ]]; then
		echo "missing Python packages: $* (NO_INSTALL=1)"
		return 1
	fi
	if ! python3 -m pip --version >/dev/null 2>&1; then
		apt_install python3-pip || return 1
	fi
	# A Debian system Python refuses pip installs (PEP 668) unless told.
	python3 -m pip install --quiet "$@" ||
		python3 -m pip install --quiet --break-system-packages "$@" ||
		return 1
	command -v pyenv >/dev/null 2>&1 && pyenv rehash
	# Put the directory pip installed the `aws` script into on PATH.
	local d
	for d in "$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))' 2>/dev/null)" \
		"$(python3 -m site --user-base 2>/dev/null)/bin"; do
		[[ -n $d && -d $d && ":$PATH:" != *":$d:"* ]] && PATH="$d:$PATH"
	done
	export PATH
	hash -r
	return 0
}

# free_port prints a TCP port nothing listens on at 127.0.0.1.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 20000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
	done
}

# free_loopback_prefix prints 127.0.X (X from 20 to 219) whose .1 has no
# CQL port open, for a Cassandra node of this run's own.
free_loopback_prefix() {
	local x
	while :; do
		x=$((20 + RANDOM % 200))
		(exec 3<>"/dev/tcp/127.0.$x.1/9042") 2>/dev/null || { echo "127.0.$x"; return 0; }
	done
}

# Services the hooks start live in this run's own directory, removed at exit.
TEST_RUN_DIR=$(mktemp -d /tmp/extenddb-test.XXXXXX)
chmod 755 "$TEST_RUN_DIR"
export TEST_RUN_DIR
trap 'run_cleanup; rm -rf "$TEST_RUN_DIR"' EXIT

# ---------------------------------------------------------------- prerequisites
step "prerequisites"
# A Go at least as new as go.mod asks for: the one installed, or a pinned
# toolchain fetched from the Go module proxy (scripts/go.sh).
GO=$(scripts/go.sh) || { echo "no Go toolchain (scripts/go.sh failed)"; exit 1; }
PATH=$(dirname "$GO"):$PATH
export PATH GOTOOLCHAIN=local
go version
if ! command -v gcc >/dev/null; then
	apt_install gcc libc6-dev || note_failure "install gcc (cgo, for the SQLite driver)"
fi
if ! command -v python3 >/dev/null; then
	apt_install python3 python3-pip || note_failure "install python3"
fi
if command -v python3 >/dev/null; then
	need=()
	python3 -c 'import boto3' >/dev/null 2>&1 || need+=(boto3)
	command -v aws >/dev/null 2>&1 || need+=(awscli)
	if ((${#need[@]})); then
		echo "installing from PyPI: ${need[*]}"
		pip_install "${need[@]}" || note_failure "pip install ${need[*]}"
	fi
	python3 --version
	python3 -c 'import boto3; print("boto3", boto3.__version__)' || true
fi
aws --version 2>&1 || true

# Hooks: each scripts/test.d/*.sh is sourced in name order. A hook installs
# and starts what a group of tests needs (e.g. 10-postgres.sh, 20-cassandra.sh),
# registers its cleanup with `on_exit "command"`, exports what the tests read
# (e.g. EXTENDDB_TEST_POSTGRES_DSN), and calls `note_failure "what"` on error.
for hook in scripts/test.d/*.sh; do
	[[ -e $hook ]] || continue
	step "hook $hook"
	# shellcheck disable=SC1090
	source "$hook" || note_failure "hook $hook"
done

# ------------------------------------------------------------------ static checks
# The first build compiles SQLite (minutes on two cores): list the packages
# as they compile rather than stay silent.
step "go build ./... (each package is listed as it compiles)"
go build -v ./... 2>&1 | sed -u 's/^/  compiling /' || note_failure "go build"

step "go vet ./..."
go vet ./... || note_failure "go vet"

step "gofmt"
mapfile -t gofiles < <(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null ||
	find . -name '*.go' -not -path './vendor/*')
unformatted=
((${#gofiles[@]})) && unformatted=$(gofmt -l "${gofiles[@]}")
if [[ -n $unformatted ]]; then
	echo "not gofmt-formatted:"
	echo "$unformatted"
	note_failure "gofmt"
else
	echo "all files gofmt-formatted"
fi

# -------------------------------------------------------------------- fuzzing
# Every `func FuzzXxx(f *testing.F)` in a _test.go file under internal/ is
# fuzzed for $FUZZTIME; new targets join automatically.
if [[ $FUZZTIME != 0 ]]; then
	step "fuzzing (${FUZZTIME} per target)"
	targets=$(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\([a-zA-Z_][a-zA-Z0-9_]* \*testing\.F\)' internal/ |
		sed -E 's#^(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' | sort -u)
	if [[ -z $targets ]]; then
		echo "no fuzz targets found"
	fi
	# fuzz_one fuzzes one target. A run that fails without writing a
	# failing input is Go's own coordinator racing the -fuzztime deadline
	# on a loaded machine ("context deadline exceeded", golang/go#75804,
	# fixed after Go 1.26): it is run once more, and only a second such
	# failure, or any failing input, fails the step.
	fuzz_one() {
		local dir=$1 name=$2 corpus=$1/testdata/fuzz/$2 before attempt
		for attempt in 1 2; do
			before=$(ls "$corpus" 2>/dev/null | sort)
			go test -run='^$' -fuzz="^${name}\$" -fuzztime="$FUZZTIME" "./$dir" && return 0
			if [[ $(ls "$corpus" 2>/dev/null | sort) != "$before" ]]; then
				note_failure "fuzz ./$dir $name (a failing input is saved under $corpus)"
				return 1
			fi
			echo "fuzz ./$dir $name failed without a failing input (attempt $attempt)"
		done
		note_failure "fuzz ./$dir $name (failed twice without a failing input)"
	}
	while read -r dir name; do
		[[ -n $dir ]] || continue
		echo "--- fuzz ./$dir $name"
		fuzz_one "$dir" "$name" || true
	done <<<"$targets"
fi

# ---------------------------------------------------------------------- tests
args=("$@")
if ((${#args[@]} == 0)); then
	args=(./...)
	# The end-to-end suite once more with every server on PostgreSQL (the
	# run of ./... below has them on SQLite). It goes first, so the output
	# still ends with the summary of go test ./...
	step "go test ./e2e/ on PostgreSQL (EXTENDDB_E2E_STORAGE=postgres, -timeout $TEST_TIMEOUT)"
	if [[ -z ${EXTENDDB_POSTGRES_DSN:-} ]]; then
		echo "EXTENDDB_POSTGRES_DSN is not set (the hook scripts/test.d/10-postgres.sh exports it)"
		note_failure "go test ./e2e/ on PostgreSQL: no EXTENDDB_POSTGRES_DSN"
	elif ! EXTENDDB_E2E_STORAGE=postgres go test -count=1 -timeout "$TEST_TIMEOUT" ./e2e/; then
		note_failure "go test ./e2e/ on PostgreSQL"
	fi
	# The end-to-end suite with every server on Cassandra.
	step "go test ./e2e/ on Cassandra (EXTENDDB_E2E_STORAGE=cassandra, -timeout $TEST_TIMEOUT)"
	if [[ -z ${EXTENDDB_CASSANDRA_HOSTS:-} ]]; then
		echo "EXTENDDB_CASSANDRA_HOSTS is not set (the hook scripts/test.d/20-cassandra.sh exports it)"
		note_failure "go test ./e2e/ on Cassandra: no EXTENDDB_CASSANDRA_HOSTS"
	elif ! EXTENDDB_E2E_STORAGE=cassandra go test -count=1 -timeout "$TEST_TIMEOUT" ./e2e/; then
		note_failure "go test ./e2e/ on Cassandra"
	fi
	export EXTENDDB_E2E_STORAGE=sqlite
fi
if ((${#failed[@]})); then
	printf '\nearlier steps failed: %s\n' "${failed[*]}"
fi
step "go test ${args[*]} (-timeout $TEST_TIMEOUT)"
# -count=1: the e2e tests run a freshly built server binary, which go test's
# cache cannot see, so results must never come from the cache.
go test -count=1 -timeout "$TEST_TIMEOUT" "${args[@]}"
status=$?
if ((status != 0)) || ((${#failed[@]})); then
	exit 1
fi
exit 0
