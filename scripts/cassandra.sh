#!/usr/bin/env bash
# Runs a throwaway Apache Cassandra 5.0 cluster on this machine, without
# Docker, for extenddb's Cassandra backend tests:
#
#   scripts/cassandra.sh start    # fetch jars if missing, start, wait for CQL; prints the hosts
#   scripts/cassandra.sh stop     # stops every node (data stays until the next start)
#   scripts/cassandra.sh status   # exit 0 when every node answers CQL
#   scripts/cassandra.sh hosts    # prints the hosts (comma separated)
#   scripts/cassandra.sh destroy  # stops the nodes and removes their directories
#   scripts/cassandra.sh nodetool status  # runs nodetool against node 1
#
#   export EXTENDDB_CASSANDRA_HOSTS=$(scripts/cassandra.sh start)
#
# The server is org.apache.cassandra:cassandra-all and its runtime
# dependencies, fetched from Maven Central with `mvn dependency:copy-dependencies`
# (scripts/cassandra/pom.xml) into a cache that survives between runs on one
# machine; it runs on Java 17 (or 11) with the JDK flags Cassandra 5.0 needs.
# Node N listens on 127.0.0.N:9042 (CQL) and 127.0.0.N:7000 (gossip); JMX on
# 127.0.0.1:7N00 for nodetool (both movable, see below). The configuration is
# tuned for tests (1 GiB heap, no gossip settle wait, periodic commitlog,
# large batch thresholds, generous LWT timeouts): never for data anyone
# wants to keep. Lightweight transactions use Paxos v2 (`paxos_variant: v2`,
# about half the round trips and node CPU of Cassandra 5.0's default v1;
# docs/adr/0018e), the setting docs/cassandra.md recommends for any node.
#
# `start` is idempotent: nodes already running are reused. A fresh start (no
# node running) wipes the old data unless EXTENDDB_CASSANDRA_KEEP_DATA=1.
# Only the hosts go to standard output; progress goes to standard error.
# Environment:
#   EXTENDDB_CASSANDRA_NODES      number of nodes, 1 to 9 (default 1)
#   EXTENDDB_CASSANDRA_VERSION    cassandra-all version (default 5.0.9)
#   EXTENDDB_CASSANDRA_CACHE      jar cache (default $HOME/.cache/extenddb/cassandra)
#   EXTENDDB_CASSANDRA_DIR        node directories (default /tmp/extenddb-cassandra)
#   EXTENDDB_CASSANDRA_HEAP       JVM heap per node (default 1G)
#   EXTENDDB_CASSANDRA_TIMEOUT    seconds to wait for CQL per node (default 180)
#   EXTENDDB_CASSANDRA_KEEP_DATA  1 keeps data across a fresh start
#   EXTENDDB_CASSANDRA_IP_PREFIX  node N listens on PREFIX.N (default 127.0.0)
#   EXTENDDB_CASSANDRA_JMX_PORT   JMX port of node 1; node N uses it + (N-1)*100 (default 7100)
#   EXTENDDB_CASSANDRA_PAXOS      paxos_variant of the nodes, v2 or v1 (default v2)
#
# `start` refuses to start a node whose address already answers CQL: a
# server this script did not start is never used in its place.
#   JAVA_HOME                     a Java 11 or 17 to use (default: found under /usr/lib/jvm)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
NODES=${EXTENDDB_CASSANDRA_NODES:-1}
VERSION=${EXTENDDB_CASSANDRA_VERSION:-5.0.9}
CACHE=${EXTENDDB_CASSANDRA_CACHE:-$HOME/.cache/extenddb/cassandra}
DIR=${EXTENDDB_CASSANDRA_DIR:-/tmp/extenddb-cassandra}
HEAP=${EXTENDDB_CASSANDRA_HEAP:-1G}
TIMEOUT=${EXTENDDB_CASSANDRA_TIMEOUT:-180}
LIB=$CACHE/$VERSION/lib
IP_PREFIX=${EXTENDDB_CASSANDRA_IP_PREFIX:-127.0.0}
JMX_PORT=${EXTENDDB_CASSANDRA_JMX_PORT:-7100}
PAXOS=${EXTENDDB_CASSANDRA_PAXOS:-v2}

log() { printf 'cassandra.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[[ $NODES =~ ^[1-9]$ ]] || die "EXTENDDB_CASSANDRA_NODES must be 1 to 9, not $NODES"
[[ $PAXOS == v1 || $PAXOS == v2 ]] || die "EXTENDDB_CASSANDRA_PAXOS must be v1 or v2, not $PAXOS"

ip() { echo "$IP_PREFIX.$1"; }
node_dir() { echo "$DIR/node$1"; }
hosts() {
	local n out=()
	for ((n = 1; n <= NODES; n++)); do out+=("$(ip "$n")"); done
	(IFS=,; echo "${out[*]}")
}

# java_bin prints a java executable of major version 11 or 17.
java_major() { "$1" -version 2>&1 | sed -nE '1s/.*version "([0-9]+)(\.[0-9]+)*.*/\1/p' | sed 's/^1$/8/'; }
java_bin() {
	local c m
	for c in ${JAVA_HOME:+"$JAVA_HOME/bin/java"} /usr/lib/jvm/java-17-openjdk-*/bin/java \
		/usr/lib/jvm/temurin-17-*/bin/java /usr/lib/jvm/java-11-openjdk-*/bin/java "$(command -v java || true)"; do
		[[ -n $c && -x $c ]] || continue
		m=$(java_major "$c")
		if [[ $m == 17 || $m == 11 ]]; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

install_java() {
	java_bin >/dev/null && return 0
	[[ $(id -u) == 0 ]] || die "need Java 17 (or 11): apt-get install openjdk-17-jre-headless"
	log "installing OpenJDK 17 (apt-get)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >&2
	java_bin >/dev/null || die "no Java 17 after apt-get install"
}

install_maven() {
	command -v mvn >/dev/null && return 0
	[[ $(id -u) == 0 ]] || die "need Maven to fetch Cassandra: apt-get install maven"
	log "installing Maven (apt-get)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends maven >&2
}

# fetch_jars fills $LIB once; a marker file says the copy completed.
fetch_jars() {
	[[ -f $LIB/.complete ]] && return 0
	install_maven
	local t0 tmp
	t0=$(date +%s)
	log "fetching cassandra-all $VERSION and dependencies from Maven Central into $LIB"
	mkdir -p "$CACHE/$VERSION"
	tmp=$(mktemp -d "$CACHE/$VERSION/lib.XXXXXX")
	if ! JAVA_HOME=$(dirname "$(dirname "$(java_bin)")") mvn -q -B -f "$HERE/cassandra/pom.xml" \
		-Dcassandra.version="$VERSION" dependency:copy-dependencies \
		-DoutputDirectory="$tmp" -DincludeScope=runtime >&2; then
		rm -rf "$tmp"
		die "mvn dependency:copy-dependencies failed"
	fi
	ls "$tmp"/cassandra-all-"$VERSION".jar "$tmp"/jamm-*.jar >/dev/null || die "fetched jars lack cassandra-all or jamm"
	touch "$tmp/.complete"
	rm -rf "$LIB"
	mv "$tmp" "$LIB"
	log "fetched $(ls "$LIB" | wc -l) jars in $(($(date +%s) - t0))s"
}

# token prints node N's single balanced token: i*(2^64/n) - 2^63.
token() {
	python3 -c "print((${1}-1)*(2**64//${NODES}) - 2**63)" 2>/dev/null ||
		die "python3 is needed to compute tokens"
}

write_config() {
	local n=$1 d
	d=$(node_dir "$n")
	mkdir -p "$d/conf" "$d/data" "$d/logs" "$d/tmp"
	cat >"$d/conf/cassandra.yaml" <<EOF
# Generated by scripts/cassandra.sh: a test node, tuned for fast start and
# slow shared CPUs. Not for data anyone wants to keep.
cluster_name: 'extenddb-test'
num_tokens: 1
initial_token: $(token "$n")
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "$(ip 1):7000"
listen_address: $(ip "$n")
rpc_address: $(ip "$n")
storage_port: 7000
native_transport_port: 9042
start_native_transport: true
auto_bootstrap: false
commitlog_sync: periodic
commitlog_sync_period: 10000ms
commitlog_segment_size: 32MiB
auto_snapshot: false
snapshot_before_compaction: false
memtable_heap_space: 128MiB
memtable_offheap_space: 128MiB
concurrent_reads: 8
concurrent_writes: 8
concurrent_counter_writes: 8
concurrent_compactors: 1
compaction_throughput: 0MiB/s
key_cache_size: 16MiB
counter_cache_size: 0MiB
read_request_timeout: 20000ms
range_request_timeout: 30000ms
write_request_timeout: 10000ms
counter_write_request_timeout: 10000ms
cas_contention_timeout: 10000ms
paxos_variant: $PAXOS
truncate_request_timeout: 60000ms
request_timeout: 30000ms
batch_size_warn_threshold: 1024KiB
batch_size_fail_threshold: 16384KiB
unlogged_batch_across_partitions_warn_threshold: 1000
tombstone_warn_threshold: 100000
tombstone_failure_threshold: 10000000
authenticator: AllowAllAuthenticator
authorizer: AllowAllAuthorizer
hints_directory: $d/data/hints
EOF
	cat >"$d/conf/logback.xml" <<'EOF'
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>${cassandra.logdir}/system.log</file>
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %logger{0} - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
EOF
}

pid_of() {
	local f
	f="$(node_dir "$1")/pid"
	[[ -f $f ]] || return 1
	local p
	p=$(<"$f")
	# A stale pid file may name an unrelated process by now.
	[[ -n $p ]] && kill -0 "$p" 2>/dev/null &&
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q CassandraDaemon && echo "$p"
}

# cql_ready exits 0 when 127.0.0.N:9042 answers a CQL OPTIONS request with
# SUPPORTED (protocol v4 frame: version 0x04, opcode 0x05 -> 0x84, 0x06).
cql_ready() {
	local host reply
	host=$(ip "$1")
	reply=$(timeout 5 bash -c '
		exec 3<>/dev/tcp/'"$host"'/9042 || exit 1
		printf "\x04\x00\x00\x01\x05\x00\x00\x00\x00" >&3
		head -c 5 <&3 | od -An -tx1 | tr -d " \n"' 2>/dev/null) || return 1
	[[ $reply == 8400000106 ]]
}

# jpms_flags prints, one a line, the module flags Cassandra 5.0 needs on
# Java 17 (its conf/jvm17-server.options and jvm17-clients.options).
jpms_flags() {
	printf '%s\n' \
		--add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
		--add-exports java.base/jdk.internal.ref=ALL-UNNAMED \
		--add-exports java.base/sun.nio.ch=ALL-UNNAMED \
		--add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED \
		--add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED \
		--add-exports java.rmi/sun.rmi.server=ALL-UNNAMED \
		--add-exports java.sql/java.sql=ALL-UNNAMED \
		--add-exports java.base/java.lang.ref=ALL-UNNAMED \
		--add-exports jdk.unsupported/sun.misc=ALL-UNNAMED \
		--add-opens java.base/java.lang.module=ALL-UNNAMED \
		--add-opens java.base/jdk.internal.loader=ALL-UNNAMED \
		--add-opens java.base/jdk.internal.ref=ALL-UNNAMED \
		--add-opens java.base/jdk.internal.reflect=ALL-UNNAMED \
		--add-opens java.base/jdk.internal.math=ALL-UNNAMED \
		--add-opens java.base/jdk.internal.module=ALL-UNNAMED \
		--add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED \
		--add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED \
		--add-opens java.base/sun.nio.ch=ALL-UNNAMED \
		--add-opens java.base/java.io=ALL-UNNAMED \
		--add-opens java.base/java.lang.reflect=ALL-UNNAMED \
		--add-opens java.base/java.lang=ALL-UNNAMED \
		--add-opens java.base/java.util=ALL-UNNAMED \
		--add-opens java.base/java.nio=ALL-UNNAMED \
		--add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED
}

start_node() {
	local n=$1 d java jamm
	d=$(node_dir "$n")
	java=$(java_bin)
	jamm=$(ls "$LIB"/jamm-*.jar | head -n 1)
	write_config "$n"
	log "starting node $n on $(ip "$n") (log: $d/logs/system.log)"
	local jpms=()
	[[ $(java_major "$java") == 17 ]] && mapfile -t jpms < <(jpms_flags)
	(
		cd "$d"
		exec setsid "$java" \
			-Xms"$HEAP" -Xmx"$HEAP" -Xss256k \
			-XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1 \
			-XX:G1RSetUpdatingPauseTimePercent=5 -XX:MaxGCPauseMillis=300 \
			-XX:InitiatingHeapOccupancyPercent=70 -XX:+PerfDisableSharedMem \
			-XX:+UseTLAB -XX:+ResizeTLAB \
			-ea -da:net.openhft... \
			-Djava.net.preferIPv4Stack=true \
			-Djava.io.tmpdir="$d/tmp" \
			-Djdk.attach.allowAttachSelf=true \
			-Dio.netty.tryReflectionSetAccessible=true \
			-Dio.netty.allocator.useCacheForAllThreads=true -Dio.netty.allocator.maxOrder=11 \
			"${jpms[@]}" \
			-javaagent:"$jamm" \
			-Dcassandra.config="file://$d/conf/cassandra.yaml" \
			-Dcassandra.storagedir="$d/data" \
			-Dcassandra.logdir="$d/logs" \
			-Dlogback.configurationFile="file://$d/conf/logback.xml" \
			-Dcassandra-foreground=yes \
			-Dcassandra.jmx.local.port=$((JMX_PORT + (n - 1) * 100)) \
			-Dcassandra.skip_wait_for_gossip_to_settle=0 \
			-Dcassandra.ring_delay_ms=1000 \
			-Dcassandra.load_ring_state=false \
			-Dcassandra.superuser_setup_delay_ms=0 \
			-Dcassandra.test.flush_local_schema_changes=false \
			-Dcassandra.ignore_kernel_bug_1057843_check=true \
			-cp "$d/conf:$LIB/*" \
			org.apache.cassandra.service.CassandraDaemon \
			>"$d/logs/stdout.log" 2>&1 </dev/null &
		echo $! >"$d/pid"
	)
}

wait_ready() {
	local n=$1 t0=$2 d
	d=$(node_dir "$n")
	while ! cql_ready "$n"; do
		if ! pid_of "$n" >/dev/null; then
			log "node $n exited during start; last lines of its logs:"
			tail -n 30 "$d/logs/stdout.log" "$d/logs/system.log" >&2 2>/dev/null || true
			return 1
		fi
		if (($(date +%s) - t0 > TIMEOUT)); then
			log "node $n did not answer CQL within ${TIMEOUT}s; last lines of its log:"
			tail -n 30 "$d/logs/system.log" >&2 2>/dev/null || true
			return 1
		fi
		sleep 1
	done
}

start() {
	local t0 n running=0 started=()
	t0=$(date +%s)
	install_java
	fetch_jars
	for ((n = 1; n <= NODES; n++)); do
		pid_of "$n" >/dev/null && running=$((running + 1))
	done
	if ((running == 0)) && [[ ${EXTENDDB_CASSANDRA_KEEP_DATA:-} != 1 ]]; then
		for ((n = 1; n <= 9; n++)); do rm -rf "$(node_dir "$n")/data"; done
	fi
	local ts
	# The seed (node 1) first; the others join once it answers, together.
	for ((n = 1; n <= NODES; n++)); do
		if pid_of "$n" >/dev/null; then
			log "node $n is already running (pid $(pid_of "$n"))"
		elif cql_ready "$n"; then
			log "$(ip "$n"):9042 already answers CQL, but not from a node this script started in $DIR: refusing to use it"
			log "(choose other addresses with EXTENDDB_CASSANDRA_IP_PREFIX and EXTENDDB_CASSANDRA_JMX_PORT)"
			exit 1
		else
			ts=$(date +%s)
			start_node "$n"
			started+=("$n")
		fi
		if ((n == 1)); then
			wait_ready 1 "${ts:-$t0}" || { stop; exit 1; }
			ts=$(date +%s)
		fi
	done
	for n in "${started[@]}"; do
		((n == 1)) && continue
		wait_ready "$n" "$ts" || { stop; exit 1; }
	done
	log "$NODES node(s) answer CQL at $(hosts); start took $(($(date +%s) - t0))s"
	hosts
}

stop() {
	local n p d waited
	for ((n = 9; n >= 1; n--)); do
		d=$(node_dir "$n")
		p=$(pid_of "$n") || { rm -f "$d/pid"; continue; }
		log "stopping node $n (pid $p)"
		kill -TERM "$p" 2>/dev/null || true
		waited=0
		while kill -0 "$p" 2>/dev/null && ((waited < 60)); do
			sleep 1
			waited=$((waited + 1))
		done
		if kill -0 "$p" 2>/dev/null; then
			kill -KILL "$p" 2>/dev/null || true
		fi
		rm -f "$d/pid"
	done
}

# nodetool runs Cassandra's nodetool against node 1 (JMX on 127.0.0.1:$JMX_PORT).
nodetool() {
	local java jpms=()
	java=$(java_bin) || die "no Java 17"
	[[ -f $LIB/.complete ]] || die "no Cassandra jars in $LIB: run start first"
	[[ $(java_major "$java") == 17 ]] && mapfile -t jpms < <(jpms_flags)
	"$java" "${jpms[@]}" -Xmx256m -Dcassandra.logdir="$DIR" -cp "$LIB/*" \
		org.apache.cassandra.tools.NodeTool -h 127.0.0.1 -p "$JMX_PORT" "$@"
}

status() {
	local n ok=0
	for ((n = 1; n <= NODES; n++)); do
		if pid_of "$n" >/dev/null && cql_ready "$n"; then
			log "node $n ($(ip "$n")): up"
		else
			log "node $n ($(ip "$n")): down"
			ok=1
		fi
	done
	return $ok
}

case ${1:-} in
start) start ;;
stop) stop ;;
status) status ;;
hosts) hosts ;;
destroy) stop; rm -rf "$DIR" ;;
nodetool) shift; nodetool "$@" ;;
*)
	echo "usage: $0 start|stop|status|hosts|destroy|nodetool ARGS..." >&2
	exit 2
	;;
esac
