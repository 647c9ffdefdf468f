# Apache Cassandra for the cassandra backend's tests: scripts/cassandra.sh
# fetches Cassandra's jars from Maven Central (cached under
# ~/.cache/extenddb/cassandra), starts a single node on 127.0.0.1:9042 and
# prints its contact points once CQL answers. A node that was already running
# is reused and left running.
cassandra_was_running=0
scripts/cassandra.sh status >/dev/null 2>&1 && cassandra_was_running=1
if hosts=$(scripts/cassandra.sh start); then
	export EXTENDDB_CASSANDRA_HOSTS=$hosts
	if [[ $cassandra_was_running != 1 ]]; then on_exit "scripts/cassandra.sh stop"; fi
	echo "Cassandra: $hosts"
else
	note_failure "start Cassandra (scripts/cassandra.sh start)"
fi
