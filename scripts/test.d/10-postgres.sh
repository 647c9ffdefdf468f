# PostgreSQL for the postgres backend's tests and the PostgreSQL-backed e2e
# run: scripts/postgres.sh installs the server when it is missing and starts
# a throwaway cluster in this run's own directory on a free port, printing
# its DSN. The cluster is this run's alone and goes when it ends; a server
# already answering on the port is refused, never reused.
# Whatever server the environment names is not this run's: forget it.
unset EXTENDDB_POSTGRES_DSN
export EXTENDDB_PG_DIR=$TEST_RUN_DIR/postgres
EXTENDDB_PG_PORT=$(free_port) && export EXTENDDB_PG_PORT
if dsn=$(scripts/postgres.sh start); then
	export EXTENDDB_POSTGRES_DSN=$dsn
	on_exit "scripts/postgres.sh destroy"
	echo "PostgreSQL: $dsn"
else
	note_failure "start PostgreSQL (scripts/postgres.sh start)"
fi
