#!/bin/bash
# scripts/demo.sh — see themis at work in a few minutes: the TPC-H benchmark (bench/run.sh) at a small
# scale factor.  Run from the repository root, as root or as a user with sudo, on Debian 12 / Ubuntu.
#
#   scripts/demo.sh [--sf SF] [--skew] [--queries 1,3,5-7] [--runs N] [--out DIR] [--no-duckdb]
#                   [-- more bench/run.sh options]
#
#   1. installs what is missing (postgresql-15, postgresql-server-dev-15, build-essential) and, where
#      npm is available and DuckDB is not there yet, DuckDB's C library (bench/fetch-duckdb.sh; skipped
#      quietly when it cannot be fetched)
#   2. builds and installs themis (make; make install)
#   3. bench/run.sh: generates TPC-H at SF (default 0.02) with bench/bin/dbgen, starts a throw-away
#      cluster (as the user $THEMIS_RUN_USER, default themis, when run as root), loads it, runs the 22
#      queries with themis off and on (1 cold + N warm runs, median), checks that the results are
#      identical, times DuckDB on the same data where available, and writes results.csv, results.md
#      and speedup.png (bench/results/... or --out)
#   4. stops the cluster and removes it (also on error or Ctrl-C)
#
# Environment: DEMO_RUNS (warm runs, default 3), DEMO_TIMEOUT (seconds per query, default 120),
# CUDA=no (CPU-only build), KEEP_TMP=1.  Exit status: 0, or non-zero when a result differs or a step
# fails.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"
cd "$ROOT"

SF=0.02
RUNS="${DEMO_RUNS:-3}"
TIMEOUT="${DEMO_TIMEOUT:-120}"
TIMEOUT="${TIMEOUT%s}"
ARGS=()
DUCK=1
while [ $# -gt 0 ]; do
	case "$1" in
		--sf) SF="$2"; shift 2 ;;
		--skew) ARGS+=(--skew); shift ;;
		--queries) ARGS+=(--queries "$2"); shift 2 ;;
		--runs) RUNS="$2"; shift 2 ;;
		--out) ARGS+=(--out "$2"); shift 2 ;;
		--no-duckdb) DUCK=0; shift ;;
		--) shift; ARGS+=("$@"); break ;;
		-h|--help) sed -n '2,22p' "$0"; exit 0 ;;
		*) die "unknown option $1 (scripts/demo.sh --help)" ;;
	esac
done
MAKE_ARGS=()
[ -n "${CUDA:-}" ] && MAKE_ARGS+=("CUDA=$CUDA")

# ---- 1, 2: packages, build, install ----
ensure_packages
ensure_run_user
if [ "$DUCK" = 1 ]; then
	if [ ! -f bench/duckdb/libduckdb.so ] && ! compgen -G "bench/duckdb/*.tgz" >/dev/null && [ -z "${DUCKDB_LIB:-}" ]; then
		if command -v npm >/dev/null 2>&1; then
			log "fetching DuckDB's C library (npm: @duckdb/node-bindings-linux-x64)"
			timeout 300 bash bench/fetch-duckdb.sh >/dev/null 2>&1 || log "DuckDB could not be fetched: the demo runs without it"
		else
			log "npm not found: the demo runs without DuckDB (bench/fetch-duckdb.sh fetches it)"
		fi
	fi
else
	ARGS+=(--duckdb off)
fi
log "building themis"
pgmake -j"$(nproc 2>/dev/null || echo 2)" "${MAKE_ARGS[@]}" >/tmp/themis-demo-build.$$.log 2>&1 \
	|| { cat /tmp/themis-demo-build.$$.log; die "build failed"; }
rm -f /tmp/themis-demo-build.$$.log
log "installing themis into $("$PG_CONFIG" --pkglibdir)"
as_root make PG_CONFIG="$PG_CONFIG" "${MAKE_ARGS[@]}" install >/dev/null

# ---- 3, 4: the benchmark ----
exec bash "$ROOT/bench/run.sh" --sf "$SF" --runs "$RUNS" --timeout "$TIMEOUT" --show-plans "${ARGS[@]}"
