# PostgreSQL for the postgres backend's tests and the PostgreSQL-backed e2e run:
# scripts/postgres.sh installs the server if missing and starts a throwaway
# cluster on 127.0.0.1:54329, printing its DSN.
if dsn=$(scripts/postgres.sh start); then
	export EXTENDDB_POSTGRES_DSN=$dsn
	on_exit "scripts/postgres.sh stop"
	echo "PostgreSQL: $dsn"
else
	note_failure "start PostgreSQL (scripts/postgres.sh start)"
fi
