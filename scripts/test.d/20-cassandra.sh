# Apache Cassandra for the cassandra backend's tests: scripts/cassandra.sh
# fetches Cassandra's jars from Maven Central (cached under
# ~/.cache/extenddb/cassandra), starts a single node on 127.0.0.1:9042 and
# prints its contact points once CQL answers.
if hosts=$(scripts/cassandra.sh start); then
	export EXTENDDB_CASSANDRA_HOSTS=$hosts
	on_exit "scripts/cassandra.sh stop"
	echo "Cassandra: $hosts"
else
	note_failure "start Cassandra (scripts/cassandra.sh start)"
fi
