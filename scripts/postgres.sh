#!/usr/bin/env bash
# Runs a throwaway PostgreSQL server for extenddb's PostgreSQL tests and
# benchmarks:
#
#   scripts/postgres.sh start    # install if missing, init, start; prints the DSN
#   scripts/postgres.sh stop     # stops it (the data directory stays)
#   scripts/postgres.sh status   # exit 0 when it is running
#   scripts/postgres.sh dsn      # prints the DSN
#   scripts/postgres.sh destroy  # stops it and removes the data directory
#
#   export EXTENDDB_POSTGRES_DSN=$(scripts/postgres.sh start)
#
# `start` is idempotent: a server already running in the directory is reused.
# A server it did not start (another directory) answering on the port is
# refused, never used in its place.
# On a machine without PostgreSQL it runs `apt-get install postgresql` (needs
# root). The server listens on 127.0.0.1 only, trusts local connections and
# runs with fsync=off: it is for tests, never for data anyone wants to keep.
# As root the server runs as the `postgres` user (initdb refuses root).
#
# Only the DSN goes to standard output; progress goes to standard error.
# Environment:
#   EXTENDDB_PG_DIR   cluster directory (default /tmp/extenddb-pg)
#   EXTENDDB_PG_PORT  TCP port (default 54329)
#   EXTENDDB_PG_DB    database to create (default extenddb_test)
set -euo pipefail

DIR=${EXTENDDB_PG_DIR:-/tmp/extenddb-pg}
PORT=${EXTENDDB_PG_PORT:-54329}
DB=${EXTENDDB_PG_DB:-extenddb_test}
DATA=$DIR/data
LOG=$DIR/server.log
DSN="postgres://postgres@127.0.0.1:${PORT}/${DB}?sslmode=disable"

log() { printf 'postgres.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# bindir prints the newest installed PostgreSQL server's bin directory.
bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[[ -n $d && -x $d/postgres && -x $d/initdb ]] && echo "$d"
}

install_server() {
	bindir >/dev/null && return 0
	[[ $(id -u) == 0 ]] || die "PostgreSQL is not installed and this is not root: apt-get install postgresql"
	log "installing PostgreSQL (apt-get)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends postgresql >&2
	bindir >/dev/null || die "apt-get installed no server under /usr/lib/postgresql/*/bin"
}

# as_owner runs a command as the cluster's owner: `postgres` when root.
as_owner() {
	if [[ $(id -u) == 0 ]]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

running() {
	local bin
	bin=$(bindir) || return 1
	[[ -f $DATA/PG_VERSION ]] || return 1
	as_owner "$bin/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

psql_q() {
	"$(bindir)/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres -d postgres "$@"
}

start() {
	install_server
	local bin
	bin=$(bindir)
	if [[ $(id -u) == 0 ]] && ! id postgres >/dev/null 2>&1; then
		useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
	fi
	mkdir -p "$DIR"
	[[ $(id -u) == 0 ]] && chown postgres: "$DIR"
	if [[ ! -f $DATA/PG_VERSION ]]; then
		log "initialising a cluster in $DATA"
		as_owner "$bin/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --no-locale >"$DIR/initdb.log" 2>&1 ||
			{ cat "$DIR/initdb.log" >&2; die "initdb failed"; }
	fi
	if running; then
		log "reusing the server running in $DATA"
	elif "$bin/pg_isready" -q -h 127.0.0.1 -p "$PORT"; then
		die "a PostgreSQL server this script did not start in $DIR answers on 127.0.0.1:$PORT: refusing to use it (choose another EXTENDDB_PG_PORT)"
	else
		log "starting PostgreSQL on 127.0.0.1:$PORT"
		local opts="-p $PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$DIR"
		opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
		opts+=" -c max_connections=300 -c shared_buffers=256MB"
		as_owner "$bin/pg_ctl" -D "$DATA" -l "$LOG" -o "$opts" -w -t 60 start >&2 ||
			{ tail -n 30 "$LOG" >&2 || true; die "the server did not start (see $LOG)"; }
	fi
	local i
	for i in $(seq 1 60); do
		"$bin/pg_isready" -q -h 127.0.0.1 -p "$PORT" && break
		((i == 60)) && die "the server does not accept connections on port $PORT"
		sleep 0.5
	done
	if [[ -z $(psql_q -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'") ]]; then
		psql_q -c "CREATE DATABASE \"$DB\"" >&2
	fi
	echo "$DSN"
}

stop() {
	if running; then
		as_owner "$(bindir)/pg_ctl" -D "$DATA" -m fast -w stop >&2
	else
		log "no server running in $DATA"
	fi
}

case ${1:-} in
start) start ;;
stop) stop ;;
status) running ;;
dsn) echo "$DSN" ;;
destroy)
	stop
	rm -rf "$DIR"
	;;
*)
	echo "usage: $0 start|stop|status|dsn|destroy" >&2
	exit 2
	;;
esac
