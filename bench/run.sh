#!/bin/bash
# bench/run.sh — TPC-H benchmark of themis: PostgreSQL with themis off vs on (and DuckDB, where
# available), with an exact result check, a CSV, a markdown table and a PNG chart.
#
#   bench/run.sh [--sf SF] [--skew] [--queries 1,3,5-7] [--runs N] [--pg-runs N] [--out DIR] [--threads N]
#                [--data DIR] [--keep-data] [--set NAME=VALUE]... [--pg-conf 'LINE']...
#                [--host H --port P [--user U] [--db D] [--no-load]]
#                [--duckdb auto|off|PATH] [--timeout SECONDS] [--show-plans] [--compare NAME=VALUE]...
#                [--sql FILE]... [--shmem-thp]
#
# Steps: builds bench/bin/dbgen (and bench/bin/duckdb_runner); generates SF (default 0.05) with
# --threads threads into --data (default: a temporary directory; an existing one with a matching
# manifest.txt is reused); starts a throw-away cluster (unless --host/--port name one; --no-load then
# uses the tables already there); CREATE EXTENSION themis; loads (bench/tpch/load.sh); then per query:
#   * EXPLAIN (FORMAT JSON) with themis on: is there a Custom Scan (Themis) node;
#   * themis off, then on, each in a new session: one cold run (the first of the session, after
#     themis's cache-drop function where one exists), then N warm runs (median reported), after
#     themis.cache_wait() where it exists (untimed: the background loads a cold start queued, src/bgload.c);
#     --pg-runs N gives themis off N warm runs instead (0: its one run counts as cold and warm;
#     skip: themis off does not run at all, for diagnostics such as THEMIS_GPU_TRACE: no speedups and
#     no result check);
#     themis-on sessions run with themis.fallback = off, so a run that would fall back to the
#     PostgreSQL plan fails instead and is never timed as themis;
#   * with --compare (repeatable): a third session per query, themis on with those settings on top of
#     --set ones (e.g. --compare themis.stream_lookup_side=on): its times and md5 land in RAW/qQ.alt.*,
#     and results.md gets a table "themis on" against "themis on + NAME=VALUE", same run, same data;
#   * with --shmem-thp (as root): /sys/kernel/mm/transparent_hugepage/shmem_enabled is advise for the
#     run and put back at the end, so the cold loads' memfds get huge pages (README, Requirements;
#     bench/reports/2026-11-28-h200-load-thp: a load 1.7x faster); RAW/header.txt records the setting;
#   * with --sql FILE (repeatable): after the queries, FILE runs in one psql session (themis on, the --set
#     settings, fallback on, echoed) into RAW/sql.N.out: ad-hoc probes (EXPLAIN ANALYZE of variants of
#     a query) on the loaded data, in the same run (bench/probe/ has some; $BENCH_QDIR is the directory
#     of the TPC-H queries timed, the skewed variants with --skew, for psql's backticks);
#   * the plans: RAW/qQ.plan.txt with themis on, RAW/qQ.pgplan.txt PostgreSQL's own (themis off; its
#     join order and methods, which themis starts from, change with each load's statistics);
#   * the md5 of each run's psql -At output (ordered: every query has a total ORDER BY or one row)
#     is compared with the first themis-off run: "identical" or "DIFFERENT";
#   * EXPLAIN (ANALYZE, FORMAT JSON) with themis on and fallback on (in a session that planned the query
#     once before, so that planning is timed as in a warm run): whether a Themis node ran,
#     a "Fallback" line and its reason, and the share of base-table rows read by Themis nodes
#     (bench/lib/report.py documents the definition);
#   * where a GPU is usable and a query's cold run was slower than PostgreSQL's: EXPLAIN (ANALYZE) of
#     it after themis's cache-drop function (RAW/qQ.cold.analyze.json), for the report's cold stages
#     (client_min_messages = debug1: RAW/qQ.cold.analyze.err has each parallel read's two phases);
#   * where a GPU is usable: the scan floors (the columns' bytes in the GPU column cache after the timed
#     runs, themis.cache, and the card's copy bandwidth measured by bench/bin/membw: the time to read the
#     columns of Q1, Q6, Q14, Q19 once, against their GPU time); then each table loaded into the GPU
#     column cache alone (themis.cache_drop(), then themis.cache_table(t), timed): the cold path's load
#     throughput (rows/s, GB/s) in the report;
#   * DuckDB (bench/duckdb_runner.c via libduckdb.so: --duckdb PATH, $DUCKDB_LIB,
#     bench/duckdb/libduckdb.so from bench/fetch-duckdb.sh, or a system libduckdb) loads the same
#     files and runs the same queries: cold (first) and warm (median of N).
# Writes DIR/results.csv, DIR/results.md, DIR/speedup.png (bench/lib/report.py, python3; rerun it
# on the CSV anywhere: python3 bench/lib/report.py DIR) and DIR/raw/ (outputs, plans, logs).
#
# Defaults: themis.min_rows = 0 (every eligible subtree is offloaded; --set themis.min_rows=100000
# for the extension's default), themis.device = auto where a GPU is usable, else cpu (the CPU executor:
# auto would leave the queries to PostgreSQL's plan); PostgreSQL settings from bench/lib/cluster.sh
# (memory from RAM, jit off) plus max_parallel_workers_per_gather = min(8, cores / 2) and
# max_parallel_workers = cores (the issue's baseline: 16 parallel workers on a 16-core host; a cold
# query's column load takes every core, PostgreSQL's plans at most 8 workers per Gather).
# As root, the server runs as $THEMIS_RUN_USER (see scripts/common.sh).  Environment: PGBIN (the
# PostgreSQL 15 bin directory), THEMIS_COMMIT (the commit to report; else the tree's git HEAD),
# KEEP_TMP=1, BENCH_BEFORE_QUERIES (a shell command run once the data are loaded, before the first query:
# scripts/gpu-host.sh's profile step restarts the GPU daemon under ncu there).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"
# shellcheck source=bench/lib/cluster.sh
. "$ROOT/bench/lib/cluster.sh"
if [ ! -x "$PGBIN/psql" ]; then
	for c in "$(dirname "$(command -v initdb 2>/dev/null || echo /x/x)")" /opt/pgroot/usr/lib/postgresql/15/bin; do
		if [ -x "$c/psql" ] && [ -x "$c/initdb" ]; then PGBIN="$c"; break; fi
	done
fi
[ -x "$PGBIN/psql" ] || die "no PostgreSQL 15 binaries in $PGBIN (set PGBIN)"

SF=0.05
SKEW=0
QLIST="1-22"
RUNS=3
PG_RUNS=""
OUT=""
THREADS="$(nproc 2>/dev/null || echo 2)"
DATA=""
KEEP_DATA=0
SETS=()
ALT_SETS=()
SQL_FILES=()
PGCONF=()
EXT_HOST=""
EXT_PORT=""
EXT_USER="postgres"
EXT_DB="postgres"
NO_LOAD=0
DUCKDB="auto"
TIMEOUT=600
SHMEM_THP=0
SHMEM_SYSF=/sys/kernel/mm/transparent_hugepage/shmem_enabled
SHMEM_ORIG=""

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
		--sf) SF="$2"; shift 2 ;;
		--skew) SKEW=1; shift ;;
		--queries) QLIST="$2"; shift 2 ;;
		--runs) RUNS="$2"; shift 2 ;;
		--pg-runs) PG_RUNS="$2"; shift 2 ;;
		--out) OUT="$2"; shift 2 ;;
		--threads) THREADS="$2"; shift 2 ;;
		--data) DATA="$2"; shift 2 ;;
		--keep-data) KEEP_DATA=1; shift ;;
		--set) SETS+=("$2"); shift 2 ;;
		--compare) [[ "$2" == *=* ]] || die "--compare wants NAME=VALUE"; ALT_SETS+=("$2"); shift 2 ;;
		--pg-conf) PGCONF+=("$2"); shift 2 ;;
		--sql) [ -f "$2" ] || die "--sql: no file $2"; SQL_FILES+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2 ;;
		--host) EXT_HOST="$2"; shift 2 ;;
		--port) EXT_PORT="$2"; shift 2 ;;
		--user) EXT_USER="$2"; shift 2 ;;
		--db) EXT_DB="$2"; shift 2 ;;
		--no-load) NO_LOAD=1; shift ;;
		--duckdb) DUCKDB="$2"; shift 2 ;;
		--timeout) TIMEOUT="$2"; shift 2 ;;
		--show-plans) SHOW_PLANS=1; shift ;;
		--shmem-thp) SHMEM_THP=1; shift ;;
		-h|--help) usage ;;
		*) echo "unknown option: $1" >&2; usage ;;
	esac
done
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
[ -n "$PG_RUNS" ] || PG_RUNS="$RUNS"
[[ "$PG_RUNS" =~ ^([0-9]+|skip)$ ]] || die "--pg-runs must be a non-negative integer or skip"
awk -v s="$SF" 'BEGIN { exit !(s > 0) }' || die "--sf must be > 0"

TMP="$(mktemp -d /tmp/themis-bench.XXXXXX)" || die "mktemp failed"
chmod 755 "$TMP"
[ -n "$OUT" ] || OUT="$ROOT/bench/results/tpch-sf${SF}$([ "$SKEW" = 1 ] && echo -skew)-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT/raw" || die "cannot create $OUT"
OUT="$(cd "$OUT" && pwd)"
RAW="$OUT/raw"
OWN_DATA=0
if [ -z "$DATA" ]; then DATA="$TMP/data"; OWN_DATA=1; fi

cleanup() {
	trap '' PIPE
	cluster_stop
	[ -n "$SHMEM_ORIG" ] && echo "$SHMEM_ORIG" >"$SHMEM_SYSF" 2>/dev/null && log "shmem_enabled put back to $SHMEM_ORIG"
	if [ "${KEEP_TMP:-0}" = 1 ]; then
		log "kept $TMP"
	else
		if [ "$OWN_DATA" = 1 ] && [ "$KEEP_DATA" = 1 ]; then
			mkdir -p "$OUT/data" && mv "$DATA"/* "$OUT/data/" 2>/dev/null && log "data kept in $OUT/data"
		fi
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --shmem-thp: huge pages for the shared memory themis advises them for (the cold loads' memfds: README,
# Requirements), for this run only; PostgreSQL's own shared memory is not advised, so it is not affected
if [ "$SHMEM_THP" = 1 ]; then
	cur="$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$SHMEM_SYSF" 2>/dev/null)"
	case "$cur" in
		advise|within_size|always) log "shmem_enabled is $cur already" ;;
		*)
			echo advise >"$SHMEM_SYSF" 2>/dev/null || die "--shmem-thp: cannot set $SHMEM_SYSF (run as root)"
			SHMEM_ORIG="$cur"
			log "shmem_enabled = advise for this run (was $cur)" ;;
	esac
fi

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---- tools ----
log "building bench tools"
make -s -C "$ROOT/bench" bin/dbgen bin/duckdb_runner >"$RAW/build.log" 2>&1 || { cat "$RAW/build.log"; die "building bench/bin failed"; }

# ---- data ----
want_manifest="sf=$(awk -v s="$SF" 'BEGIN { printf "%g", s }') skew=$SKEW"
have_manifest=""
[ -f "$DATA/manifest.txt" ] && have_manifest="$(sed -n 's/^sf=//p' "$DATA/manifest.txt" | sed 's/^/sf=/') skew=$(sed -n 's/^skew=//p' "$DATA/manifest.txt")"
if [ "$NO_LOAD" = 1 ] && [ "$DUCKDB" = off ]; then
	log "no data needed (--no-load, --duckdb off)"
elif [ "$have_manifest" = "$want_manifest" ]; then
	log "reusing the data in $DATA ($want_manifest)"
else
	log "generating TPC-H SF $SF$([ "$SKEW" = 1 ] && echo ' (skew)') with $THREADS threads into $DATA"
	t=$(now)
	skewarg=()
	[ "$SKEW" = 1 ] && skewarg=(--skew)
	"$ROOT/bench/bin/dbgen" -s "$SF" -j "$THREADS" "${skewarg[@]}" -o "$DATA" 2>"$RAW/dbgen.log" || { cat "$RAW/dbgen.log"; die "dbgen failed"; }
	log "generated $(du -sh "$DATA" | cut -f1) in $(since "$t") s"
fi
[ -d "$DATA" ] && chmod -R a+rX "$DATA" 2>/dev/null
[ -f "$DATA/manifest.txt" ] && cp "$DATA/manifest.txt" "$RAW/manifest.txt"

# ---- cluster ----
CORES="$(nproc 2>/dev/null || echo 2)"
PAR=$(( CORES / 2 )); [ "$PAR" -gt 8 ] && PAR=8; [ "$PAR" -lt 1 ] && PAR=1
if [ -n "$EXT_HOST" ]; then
	CL_CONN=(-h "$EXT_HOST" -p "${EXT_PORT:-5432}" -U "$EXT_USER" -d "$EXT_DB")
	log "using the server at $EXT_HOST:${EXT_PORT:-5432}"
	CONF_DESC="existing server"
else
	mapfile -t CONF < <(cluster_conf_default; echo "max_parallel_workers_per_gather = $PAR"; echo "max_worker_processes = $((CORES + 8))"; echo "max_parallel_workers = $CORES"; printf '%s\n' "${PGCONF[@]}")
	ensure_run_user
	log "starting a throw-away cluster in $TMP/cluster"
	cluster_start "$TMP/cluster" "${CONF[@]}"
	CONF_DESC="$(printf '%s; ' "${CONF[@]}" | sed 's/; $//')"
	[ "$NO_LOAD" = 1 ] && die "--no-load needs --host/--port (a new cluster is empty)"
fi
PSQL=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "${CL_CONN[@]}")
sql() { "${PSQL[@]}" -At "$@"; }
sql -c "CREATE EXTENSION IF NOT EXISTS themis" >/dev/null || die "CREATE EXTENSION themis failed (is themis installed and preloaded?)"
if [ "$NO_LOAD" = 0 ]; then
	log "loading"
	t=$(now)
	PSQL="$PGBIN/psql" "$ROOT/bench/tpch/load.sh" -j "$THREADS" "$DATA" "${CL_CONN[@]}" 2>"$RAW/load.log" || { cat "$RAW/load.log"; die "load failed"; }
	LOAD_S="$(since "$t")"
	log "loaded in $LOAD_S s"
fi

# ---- settings and the header facts ----
# themis.device: auto where the daemon has a usable GPU, else cpu (bench/lib/cluster.sh)
DEVICE="$(cluster_themis_device "$PGBIN" "${PSQL[@]}")"
log "themis.device = $DEVICE"
THEMIS_SETS=("themis.min_rows=0" "themis.device=$DEVICE")
for s in "${SETS[@]}"; do THEMIS_SETS+=("$s"); done
set_lines() {  # SET statements of THEMIS_SETS (later ones win)
	local s
	for s in "${THEMIS_SETS[@]}"; do printf 'SET %s = %s;\n' "${s%%=*}" "'${s#*=}'"; done
}
alt_lines() {  # SET statements of --compare (the "alt" session only)
	local s
	for s in "${ALT_SETS[@]}"; do printf 'SET %s = %s;\n' "${s%%=*}" "'${s#*=}'"; done
}
DROP_FN="$(sql -c "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'themis' AND (p.pronargs = 0 OR p.pronargdefaults = p.pronargs) AND (p.proname ~ 'cache' AND p.proname ~ '(drop|clear|reset|evict|flush)') ORDER BY 1 LIMIT 1")"
# themis.cache_wait(): waits for the background loads of a cold start (src/bgload.c); the warm runs come
# after it, untimed, so that they find the cache as the cold run left it once its loads are done
WAIT_FN="$(sql -c "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'themis' AND p.proname = 'cache_wait' AND p.pronargs = 0")"
GPU_NAME="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
[ -n "$GPU_NAME" ] || GPU_NAME="none"
{
	echo "machine=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $CORES cores, $(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "gpu=$GPU_NAME"
	echo "gpu_status=$(sql -c "SELECT CASE WHEN usable THEN 'usable: ' ELSE 'not usable: ' END || detail FROM themis.gpu_status()" 2>/dev/null | tr '\n' ' ')"
	echo "sf=$SF"
	echo "skew=$SKEW"
	echo "runs=$RUNS"
	echo "pg_runs=$PG_RUNS"
	echo "cold=$([ -n "$DROP_FN" ] && echo "first run of a session, after themis.$DROP_FN()" || echo "first run of a new session (themis has no cache-drop function)")"
	echo "themis_settings=$(printf '%s ' "${THEMIS_SETS[@]}")themis.fallback=off (timed runs)"
	echo "pg_settings=$CONF_DESC"
	echo "postgres=$(sql -c 'SHOW server_version' 2>/dev/null)"
	echo "themis=$(sql -c 'SELECT themis.version()' 2>/dev/null)"
	# THEMIS_COMMIT first: a tree carried to a GPU host may hold a .git of another commit than its files
	if [ -n "${THEMIS_COMMIT:-}" ]; then
		echo "commit=$THEMIS_COMMIT"
	elif git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1; then
		echo "commit=$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src include cuda 2>/dev/null || echo ' (engine sources modified)')"
	else  # a copy of the tree without .git (e.g. carried to a GPU host): THEMIS_COMMIT names it
		echo "commit=unknown (no .git; set THEMIS_COMMIT)"
	fi
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "load_s=${LOAD_S:-}"
	# whether shared memory (the loads' memfds) may have huge pages (src/colbuild.c, tm_map_shared)
	echo "shmem_thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null)"
} >"$RAW/header.txt"

# ---- queries ----
expand_list() {
	local part a b i
	IFS=',' read -ra parts <<<"$1"
	for part in "${parts[@]}"; do
		if [[ "$part" =~ ^q?([0-9]+)-q?([0-9]+)$ ]]; then
			a=$((10#${BASH_REMATCH[1]})); b=$((10#${BASH_REMATCH[2]}))
			for ((i = a; i <= b; i++)); do printf '%02d\n' "$i"; done
		elif [[ "$part" =~ ^q?([0-9]+)$ ]]; then
			printf '%02d\n' "$((10#${BASH_REMATCH[1]}))"
		else
			die "bad query list item: $part"
		fi
	done
}
mapfile -t QS < <(expand_list "$QLIST")
FRACTION="$(awk -v sf="$SF" 'BEGIN { printf "%.10f", 0.0001 / sf }')"
for q in "${QS[@]}"; do
	f="$ROOT/bench/tpch/queries/q$q.sql"
	[ "$SKEW" = 1 ] && [ -f "$ROOT/bench/tpch/queries-skew/q$q.sql" ] && f="$ROOT/bench/tpch/queries-skew/q$q.sql"
	[ -f "$f" ] || die "no query $f"
	sed -e "s#0\.0001 /\*FRACTION\*/#$FRACTION /*FRACTION*/#" "$f" >"$RAW/q$q.sql"
	echo "$f" | sed "s#^$ROOT/##" >"$RAW/q$q.source"
done

# session SETTING QUERY: one session, cold run then RUNS warm runs; writes RAW/qQ.SETTING.{times,md5,err}
session() {
	local setting="$1" q="$2" i script="$TMP/session.sql"
	{
		echo "SET statement_timeout = '${TIMEOUT}s';"
		set_lines
		if [ "$setting" = alt ]; then
			alt_lines
			echo "SET themis.enabled = on;"
		else
			echo "SET themis.enabled = $setting;"
		fi
		echo "SET themis.fallback = off;"
		[ "$setting" != off ] && [ -n "$DROP_FN" ] && echo "SELECT themis.$DROP_FN();"
		local n="$RUNS"
		[ "$setting" = off ] && n="$PG_RUNS"
		for ((i = 0; i <= n; i++)); do
			echo "\\o $TMP/q$q.$setting.$i.out"
			echo "\\echo @run $i"
			echo "\\timing on"
			echo "\\i $RAW/q$q.sql"
			echo "\\timing off"
			echo "\\o"
			# (no statement_timeout for the wait: a long load must not stop the session's runs)
			[ "$i" = 0 ] && [ "$setting" != off ] && [ -n "$WAIT_FN" ] &&
				echo "SET statement_timeout = 0; SELECT themis.$WAIT_FN() AS cold_loads_waited_for; SET statement_timeout = '${TIMEOUT}s';"
		done
	} >"$script"
	rm -f "$TMP/q$q.$setting".*.out
	wait_ready
	"${PSQL[@]}" -At -f "$script" >"$TMP/q$q.$setting.log" 2>"$RAW/q$q.$setting.err"
	local rc=$? n
	echo "$rc" >"$RAW/q$q.$setting.rc"
	# runs that completed: all, or (ON_ERROR_STOP) those before the run that failed
	n="$(grep -c '^@run ' "$TMP/q$q.$setting.log")"
	[ "$rc" != 0 ] && n=$((n - 1))
	[ "$n" -lt 0 ] && n=0
	sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$TMP/q$q.$setting.log" | head -n "$n" >"$RAW/q$q.$setting.times"
	: >"$RAW/q$q.$setting.md5"
	for ((i = 0; i < n; i++)); do
		md5sum <"$TMP/q$q.$setting.$i.out" | cut -c1-32 >>"$RAW/q$q.$setting.md5"
	done
	[ "$n" -gt 0 ] && cp "$TMP/q$q.$setting.0.out" "$RAW/q$q.$setting.out"
	grep -q 'server closed the connection unexpectedly' "$RAW/q$q.$setting.err" && echo "server crashed" >>"$RAW/q$q.$setting.err"
	return 0
}

# wait until the server accepts connections (after a crash it restarts and recovers)
wait_ready() {
	local i
	for i in $(seq 1 120); do
		"${PSQL[@]}" -At -c 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 1
	done
	log "the server does not accept connections"
}

if [ -n "${BENCH_BEFORE_QUERIES:-}" ]; then
	log "before the queries: $BENCH_BEFORE_QUERIES"
	bash -c "$BENCH_BEFORE_QUERIES" || die "BENCH_BEFORE_QUERIES failed"
fi
log "running ${#QS[@]} queries: themis off and on, 1 cold + $RUNS warm runs each"
# the scan floors (below) need the bytes of each query's columns as cached on the GPU: each query's
# cold run drops the cache, so it is read after every query's timed runs (report.py keeps one per column)
: >"$RAW/cache_columns.tsv"
GPU_CACHE=""
[ -n "$DROP_FN" ] && [ "$(sql -c "SELECT usable FROM themis.gpu_status()" 2>/dev/null)" = t ] && GPU_CACHE=1
for q in "${QS[@]}"; do
	body="$(sed -e 's/--.*$//' "$RAW/q$q.sql" | tr '\n' ' ' | sed -e 's/; *$//')"
	wait_ready
	{ set_lines; echo "SET themis.enabled = on;"; echo "EXPLAIN (FORMAT JSON) $body;"; } \
		| "${PSQL[@]}" -At -f - >"$RAW/q$q.plan.json" 2>"$RAW/q$q.plan.err"
	{ set_lines; echo "SET themis.enabled = on;"; echo "EXPLAIN (COSTS OFF) $body;"; } \
		| "${PSQL[@]}" -At -f - >"$RAW/q$q.plan.txt" 2>>"$RAW/q$q.plan.err"
	# PostgreSQL's own plan (the join order and methods themis starts from; they change with the
	# statistics of each load)
	{ set_lines; echo "SET themis.enabled = off;"; echo "EXPLAIN $body;"; } \
		| "${PSQL[@]}" -At -f - >"$RAW/q$q.pgplan.txt" 2>>"$RAW/q$q.plan.err"
	[ "$PG_RUNS" != skip ] && session off "$q"
	session on "$q"
	[ -n "$GPU_CACHE" ] && sql -c "COPY (SELECT relation::text, column_name, bytes FROM themis.cache) TO STDOUT" \
		>>"$RAW/cache_columns.tsv" 2>>"$RAW/membw.log"
	# a cold run slower than PostgreSQL's: where its time goes (EXPLAIN ANALYZE after the cache is dropped)
	if [ -n "$GPU_CACHE" ] && awk -v a="$(head -n 1 "$RAW/q$q.on.times")" -v b="$(head -n 1 "$RAW/q$q.off.times")" \
		'BEGIN { exit !(a != "" && b != "" && a + 0 > b + 0) }'; then
		wait_ready
		{ echo "SET statement_timeout = '${TIMEOUT}s';"; set_lines; echo "SET themis.enabled = on;"; echo "SET themis.fallback = on;"
		  echo "SELECT themis.$DROP_FN();"; echo "SET client_min_messages = debug1;"
		  echo "EXPLAIN (ANALYZE, FORMAT JSON) $body;"; } \
			| "${PSQL[@]}" -At -f - >"$RAW/q$q.cold.analyze.json" 2>"$RAW/q$q.cold.analyze.err"
	fi
	[ "${#ALT_SETS[@]}" -gt 0 ] && session alt "$q"
	wait_ready
	# planned and run once before (output dropped): its Planning Time is then a warm session's, as in the
	# timed runs after the first, not a new backend's first look at the catalogs and the daemon, and the
	# cache holds its columns (after the cold analysis above dropped them, that run may be a cold start,
	# src/bgload.c, whose background loads are waited for, as in the timed runs)
	{ echo "SET statement_timeout = '${TIMEOUT}s';"; set_lines; echo "SET themis.enabled = on;"; echo "SET themis.fallback = on;"
	  echo "\\o /dev/null"; echo "EXPLAIN $body;"; echo "$body;"
	  [ -n "$WAIT_FN" ] && echo "SET statement_timeout = 0; SELECT themis.$WAIT_FN(); SET statement_timeout = '${TIMEOUT}s';"
	  echo "\\o"
	  echo "EXPLAIN (ANALYZE, FORMAT JSON) $body;"; } \
		| "${PSQL[@]}" -At -f - >"$RAW/q$q.analyze.json" 2>"$RAW/q$q.analyze.err"
	if [ "${#ALT_SETS[@]}" -gt 0 ]; then
		{ echo "SET statement_timeout = '${TIMEOUT}s';"; set_lines; alt_lines; echo "SET themis.enabled = on;"; echo "SET themis.fallback = on;"
		  echo "EXPLAIN (ANALYZE) $body;"; } | "${PSQL[@]}" -At -f - >"$RAW/q$q.alt.analyze.txt" 2>&1
	fi
	same="identical"
	ref="$(head -n 1 "$RAW/q$q.off.md5")"
	if [ "$(cat "$RAW/q$q.off.rc")" != 0 ] || [ -z "$ref" ]; then
		same="error (themis off)"
	else
		while read -r m; do [ "$m" = "$ref" ] || same="DIFFERENT"; done <"$RAW/q$q.on.md5"
		if [ ! -s "$RAW/q$q.on.md5" ]; then
			same="n/a (themis on failed)"
		elif [ "$same" = DIFFERENT ]; then
			i=0
			while read -r m; do
				if [ "$m" != "$ref" ]; then
					cp "$TMP/q$q.on.$i.out" "$RAW/q$q.on.run$i.out"
					[ -f "$RAW/q$q.diff" ] || diff "$RAW/q$q.off.out" "$TMP/q$q.on.$i.out" >"$RAW/q$q.diff" 2>&1
				fi
				i=$((i + 1))
			done <"$RAW/q$q.on.md5"
		fi
		[ "$(wc -l <"$RAW/q$q.on.md5")" -lt $((RUNS + 1)) ] && [ "$same" = identical ] && same="identical (completed runs)"
	fi
	echo "$same" >"$RAW/q$q.result"
	if [ "${#ALT_SETS[@]}" -gt 0 ]; then
		alt="identical"
		if [ -z "$ref" ] || [ ! -s "$RAW/q$q.alt.md5" ]; then
			alt="n/a$(grep -m1 -o 'ERROR: .*' "$RAW/q$q.alt.err" | sed 's/^/: /')"
		else
			while read -r m; do [ "$m" = "$ref" ] || alt="DIFFERENT"; done <"$RAW/q$q.alt.md5"
		fi
		echo "$alt" >"$RAW/q$q.alt.result"
		log "q$q: on + ${ALT_SETS[*]}: $(paste -sd ' ' "$RAW/q$q.alt.times") ms | $alt"
	fi
	log "q$q: off $(paste -sd ' ' "$RAW/q$q.off.times") ms | on $(paste -sd ' ' "$RAW/q$q.on.times") ms | $same$(grep -m1 -o 'ERROR: .*' "$RAW/q$q.on.err" | sed 's/^/ | on: /')"
done

# ---- --sql files: ad-hoc probes on the loaded data ----
# ($BENCH_QDIR: the queries this run timed, the skewed variants with --skew)
QDIR="$ROOT/bench/tpch/queries"
if [ "$SKEW" = 1 ] && [ "${#SQL_FILES[@]}" -gt 0 ]; then
	QDIR="$RAW/queries"; mkdir -p "$QDIR"
	# (two commands: one cp does not overwrite a file it has just created)
	cp "$ROOT"/bench/tpch/queries/q*.sql "$QDIR"/
	cp "$ROOT"/bench/tpch/queries-skew/q*.sql "$QDIR"/
fi
for i in "${!SQL_FILES[@]}"; do
	wait_ready
	log "--sql ${SQL_FILES[$i]} -> $RAW/sql.$i.out"
	{ echo "SET statement_timeout = '${TIMEOUT}s';"; set_lines; echo "SET themis.enabled = on;"; echo "SET themis.fallback = on;"
	  echo "\\i ${SQL_FILES[$i]}"; } | BENCH_QDIR="$QDIR" "${PSQL[@]}" -a -f - >"$RAW/sql.$i.out" 2>&1
	echo "-- file: ${SQL_FILES[$i]}" >>"$RAW/sql.$i.out"
done

# ---- scan floors (issue 6): the card's copy bandwidth (the columns' bytes were read above) ----
# (bench/lib/report.py adds the columns each floor query reads)
: >"$RAW/membw.txt"
if [ -n "$GPU_CACHE" ]; then
	if make -s -C "$ROOT/bench" bin/membw >>"$RAW/membw.log" 2>&1 &&
		"$ROOT/bench/bin/membw" >"$RAW/membw.txt" 2>>"$RAW/membw.log"; then
		log "scan floors: copy bandwidth $(sed -n 's/^copy_bytes_per_s=//p' "$RAW/membw.txt") bytes/s, $(wc -l <"$RAW/cache_columns.tsv") cached columns"
	else
		: >"$RAW/membw.txt"
		log "scan floors: no bandwidth measured (see $RAW/membw.log)"
	fi
fi

# ---- cold path: loading each table's columns into the GPU column cache ----
# (issue 6: load throughput) one session per table: drop the cache, then themis.cache_table(t), timed;
# only where a GPU is usable (else the daemon has no cache)
: >"$RAW/load_throughput.tsv"
if [ -n "$DROP_FN" ] && [ "$(sql -c "SELECT usable FROM themis.gpu_status()" 2>/dev/null)" = t ]; then
	log "cold path: loading each table into the GPU column cache"
	for t in lineitem orders partsupp part customer supplier nation region; do
		wait_ready
		out="$({ echo "SET statement_timeout = '${TIMEOUT}s';"; echo "SELECT themis.$DROP_FN();"; echo "\\timing on"
				 echo "SELECT themis.cache_table('$t');"; } | "${PSQL[@]}" -At -f - 2>&1)"
		bytes="$(grep -B1 '^Time: ' <<<"$out" | head -n 1)"
		ms="$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | tail -n 1)"
		rows="$(sql -c "SELECT reltuples::bigint FROM pg_class WHERE oid = '$t'::regclass" 2>/dev/null)"
		if [[ "$bytes" =~ ^[0-9]+$ ]] && [ -n "$ms" ]; then
			printf '%s\t%s\t%s\t%s\n' "$t" "$rows" "$bytes" "$ms" >>"$RAW/load_throughput.tsv"
			log "cold path: $t: $rows rows, $bytes bytes in $ms ms"
		else
			log "cold path: $t: $(tr '\n' ' ' <<<"$out" | cut -c1-200)"
		fi
	done
	sql -c "SELECT themis.$DROP_FN()" >/dev/null 2>&1
	# what writing fresh memory costs on this host (page faults), as a load's participants do it
	# (bench/hostmem.c): one process per participant the load may use
	npart="$(sql -c "SELECT least(current_setting('max_parallel_workers')::int + 1, $(nproc 2>/dev/null || echo 2))" 2>/dev/null)"
	if make -s -C "$ROOT/bench" bin/hostmem >>"$RAW/membw.log" 2>&1; then
		"$ROOT/bench/bin/hostmem" 256 "${npart:-4}" >"$RAW/hostmem.txt" 2>>"$RAW/membw.log" || : >"$RAW/hostmem.txt"
	fi
fi

# ---- DuckDB ----
find_duckdb() {
	local c
	case "$DUCKDB" in
		off) return 1 ;;
		auto) ;;
		*) [ -f "$DUCKDB" ] && { echo "$DUCKDB"; return 0; }; log "no DuckDB library at $DUCKDB"; return 1 ;;
	esac
	if [ ! -f "$ROOT/bench/duckdb/libduckdb.so" ] && compgen -G "$ROOT/bench/duckdb/*.tgz" >/dev/null; then
		# a carried npm package (bench/fetch-duckdb.sh): extract its library
		tar -xzf "$(ls "$ROOT"/bench/duckdb/*.tgz | tail -n 1)" -C "$ROOT/bench/duckdb" --strip-components=1 package/libduckdb.so 2>/dev/null || true
	fi
	for c in "${DUCKDB_LIB:-}" "$ROOT/bench/duckdb/libduckdb.so" $(ldconfig -p 2>/dev/null | awk '/libduckdb\.so/ { print $NF }') /usr/local/lib/libduckdb.so /usr/lib/libduckdb.so; do
		[ -n "$c" ] && [ -f "$c" ] && { echo "$c"; return 0; }
	done
	return 1
}
if LIB="$(find_duckdb)"; then
	log "DuckDB: $LIB"
	echo "duckdb=$LIB" >>"$RAW/header.txt"
	qfiles=()
	for q in "${QS[@]}"; do qfiles+=("$RAW/q$q.sql"); done
	"$ROOT/bench/bin/duckdb_runner" --lib "$LIB" --data "$DATA" --schema "$ROOT/bench/tpch/schema.sql" \
		--runs "$RUNS" --threads "$THREADS" --timeout "$TIMEOUT" --out "$RAW" "${qfiles[@]}" 2>"$RAW/duckdb.log" \
		| tee "$RAW/duckdb.tsv" | while IFS=$'\t' read -r dq dcold dwarm drows derr; do log "duckdb $dq: cold $dcold ms, warm $dwarm ms, $drows rows $derr"; done
	grep -q . "$RAW/duckdb.tsv" || { tail -n 5 "$RAW/duckdb.log"; log "DuckDB runner failed (see $RAW/duckdb.log)"; }
else
	log "DuckDB: not found (bench/fetch-duckdb.sh fetches it; --duckdb PATH names it)"
	echo "duckdb=none" >>"$RAW/header.txt"
fi

# ---- report ----
if [ "${SHOW_PLANS:-0}" = 1 ]; then
	for q in "${QS[@]}"; do
		echo
		echo "---- q$q with themis on: EXPLAIN (COSTS OFF) ----"
		cat "$RAW/q$q.plan.txt" 2>/dev/null
	done
fi
if command -v python3 >/dev/null 2>&1; then
	python3 "$ROOT/bench/lib/report.py" "$OUT" || die "report failed"
	echo
	cat "$OUT/results.md"
	log "results: $OUT/results.csv, $OUT/results.md, $OUT/speedup.png"
else
	log "python3 not found: raw results in $RAW (run python3 bench/lib/report.py $OUT where python3 exists)"
fi
# --compare: themis on against themis on + the --compare settings, warm medians, same run
median() { [ -s "$1" ] && tail -n +2 "$1" | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
if [ "${#ALT_SETS[@]}" -gt 0 ] && [ -f "$OUT/results.md" ]; then
	{
		echo
		echo "## themis on against themis on + ${ALT_SETS[*]} (same run, warm median ms)"
		echo
		echo "| query | on | on + ${ALT_SETS[*]} | on / alt | alt result |"
		echo "|---|---:|---:|---:|---|"
		for q in "${QS[@]}"; do
			a="$(median "$RAW/q$q.on.times")"; b="$(median "$RAW/q$q.alt.times")"
			r="$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "-" }')"
			echo "| q$q | ${a:--} | ${b:--} | $r | $(cat "$RAW/q$q.alt.result" 2>/dev/null) |"
			[ -n "$a" ] && [ -n "$b" ] && echo "$a $b" >>"$TMP/alt.pairs"
		done
		[ -s "$TMP/alt.pairs" ] && awk '$1 > 0 && $2 > 0 { s += log($1 / $2); n++ }
			END { if (n) printf "\nGeometric mean of on / alt over %d queries: %.3fx\n", n, exp(s / n) }' "$TMP/alt.pairs"
	} >>"$OUT/results.md"
	sed -n '/^## themis on against/,$p' "$OUT/results.md"
fi
if grep -qx DIFFERENT "$RAW"/q*.result 2>/dev/null; then
	log "some results DIFFER between themis off and on: $(grep -lx DIFFERENT "$RAW"/q*.result | xargs -n1 basename | sed 's/\.result//' | paste -sd ' ' -)"
	exit 3
fi
exit 0
