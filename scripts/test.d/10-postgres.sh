# PostgreSQL for the postgres backend's tests and the PostgreSQL-backed e2e run:
# scripts/postgres.sh installs the server when it is missing and starts a
# throwaway cluster on 127.0.0.1:54329, printing its DSN. A server that was
# already running is reused and left running.
postgres_was_running=0
scripts/postgres.sh status >/dev/null 2>&1 && postgres_was_running=1
if dsn=$(scripts/postgres.sh start); then
	export EXTENDDB_POSTGRES_DSN=$dsn
	if [[ $postgres_was_running != 1 ]]; then on_exit "scripts/postgres.sh stop"; fi
	echo "PostgreSQL: $dsn"
else
	note_failure "start PostgreSQL (scripts/postgres.sh start)"
fi
