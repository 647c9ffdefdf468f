# Apache Cassandra for the cassandra backend's tests: scripts/cassandra.sh
# fetches Cassandra's jars from Maven Central (cached under
# ~/.cache/extenddb/cassandra) and starts a single node in this run's own
# directory, on a loopback address of its own (127.0.X.1:9042, X picked
# free) and a free JMX port, printing its contact point once CQL answers.
# The node is this run's alone and goes when it ends; a server already
# answering on the address is refused, never reused.
# Whatever server the environment names is not this run's: forget it.
unset EXTENDDB_CASSANDRA_HOSTS
export EXTENDDB_CASSANDRA_DIR=$TEST_RUN_DIR/cassandra
EXTENDDB_CASSANDRA_IP_PREFIX=$(free_loopback_prefix) && export EXTENDDB_CASSANDRA_IP_PREFIX
EXTENDDB_CASSANDRA_JMX_PORT=$(free_port) && export EXTENDDB_CASSANDRA_JMX_PORT
if hosts=$(scripts/cassandra.sh start); then
	export EXTENDDB_CASSANDRA_HOSTS=$hosts
	on_exit "scripts/cassandra.sh destroy"
	echo "Cassandra: $hosts"
else
	note_failure "start Cassandra (scripts/cassandra.sh start)"
fi
