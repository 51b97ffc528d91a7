#!/bin/bash
# bench/tpch/check.sh — correctness of the 22 TPC-H queries at a tiny scale: generator + loader +
# themis off vs on.  Part of scripts/test.sh (one test per query); no timings are asserted.
#
#   bench/tpch/check.sh [--sf SF] [--skew] [--queries 1,3,5-7]
#
# Needs themis installed (make install) and PostgreSQL 15.  Builds bench/bin/dbgen, generates SF 0.01
# (default) into a temporary directory, starts a throw-away cluster (as $THEMIS_RUN_USER, default
# themis, when run as root), loads it (bench/tpch/load.sh), then runs each query with
# themis.enabled off and on (themis.min_rows = 0: every eligible subtree is offloaded;
# themis.fallback on) and compares the md5 of the ordered psql -At output.  A query passes when
# both outputs are identical; the line says whether a Themis node ran and whether it fell back.
# Closing line: "tpch: N passed, N failed".  KEEP_TMP=1 keeps the directory; TPCH_CHECK_TIMEOUT
# (default 120s) is the statement_timeout of each query.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"
# shellcheck source=bench/lib/cluster.sh
. "$ROOT/bench/lib/cluster.sh"

SF=0.01
QTIMEOUT="${TPCH_CHECK_TIMEOUT:-120s}"   # per statement
SKEW=()
QLIST=""
while [ $# -gt 0 ]; do
	case "$1" in
		--sf) SF="$2"; shift 2 ;;
		--skew) SKEW=(--skew); shift ;;
		--queries) QLIST="$2"; shift 2 ;;
		*) echo "usage: $0 [--sf SF] [--skew] [--queries LIST]" >&2; exit 2 ;;
	esac
done

passed=0
failed=0
TMP="$(mktemp -d /tmp/themis-tpch-check.XXXXXX)" || die "mktemp failed"
chmod 755 "$TMP"
cleanup() {
	trap '' PIPE
	cluster_stop
	if [ "${KEEP_TMP:-0}" = 1 ]; then echo "(kept $TMP)" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

finish() {
	echo "tpch: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}

ensure_run_user
make -s -C "$ROOT/bench" bin/dbgen >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log"; failed=$((failed + 1)); echo "FAILED: building bench/bin/dbgen"; finish; }
t0=$(date +%s.%N)
"$ROOT/bench/bin/dbgen" -q -s "$SF" "${SKEW[@]}" -o "$TMP/data" || { failed=$((failed + 1)); echo "FAILED: dbgen"; finish; }
chmod -R a+rX "$TMP/data"
t1=$(date +%s.%N)
mapfile -t CONF < <(cluster_conf_default | sed -e 's/^shared_buffers = .*/shared_buffers = 256MB/')
( cluster_start "$TMP/cluster" "${CONF[@]}" ) || { failed=$((failed + 1)); echo "FAILED: cluster start"; finish; }
# cluster_start ran in a subshell (die exits it): recover its settings
CL_DIR="$TMP/cluster"
CL_PORT="$(sed -n 's/^port = //p' "$CL_DIR/data/postgresql.conf" | tail -n 1)"
CL_CONN=(-h "$CL_DIR" -p "$CL_PORT" -U postgres -d postgres)
PSQL=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "${CL_CONN[@]}")
"${PSQL[@]}" -c "CREATE EXTENSION IF NOT EXISTS themis" || { failed=$((failed + 1)); echo "FAILED: CREATE EXTENSION themis"; finish; }
PSQL="$PGBIN/psql" "$ROOT/bench/tpch/load.sh" -j "$(nproc 2>/dev/null || echo 2)" "$TMP/data" "${CL_CONN[@]}" 2>"$TMP/load.log" \
	|| { cat "$TMP/load.log"; failed=$((failed + 1)); echo "FAILED: load"; finish; }
t2=$(date +%s.%N)
# themis.device: auto where the daemon has a usable GPU, else cpu (bench/lib/cluster.sh; auto would
# leave every query to PostgreSQL's plan there, and the check would compare PostgreSQL with itself)
DEVICE="$(cluster_themis_device "$PGBIN" "${PSQL[@]}")"
echo "# themis.device = $DEVICE"

# the query list: "1,3,5-7" -> 01 03 05 06 07
expand_list() {
	local part a b i
	IFS=',' read -ra parts <<<"$1"
	for part in "${parts[@]}"; do
		if [[ "$part" =~ ^([0-9]+)-([0-9]+)$ ]]; then
			a=$((10#${BASH_REMATCH[1]})); b=$((10#${BASH_REMATCH[2]}))
			for ((i = a; i <= b; i++)); do printf '%02d\n' "$i"; done
		elif [[ "$part" =~ ^q?([0-9]+)$ ]]; then
			printf '%02d\n' "$((10#${BASH_REMATCH[1]}))"
		fi
	done
}
if [ -n "$QLIST" ]; then mapfile -t QS < <(expand_list "$QLIST"); else mapfile -t QS < <(seq -f '%02g' 1 22); fi

# query text: the skewed variant where there is one; Q11's FRACTION = 0.0001 / SF
query_file() {
	local q="$1"
	if [ ${#SKEW[@]} -gt 0 ] && [ -f "$ROOT/bench/tpch/queries-skew/q$q.sql" ]; then
		echo "$ROOT/bench/tpch/queries-skew/q$q.sql"
	else
		echo "$ROOT/bench/tpch/queries/q$q.sql"
	fi
}
FRACTION="$(awk -v sf="$SF" 'BEGIN { printf "%.10f", 0.0001 / sf }')"

for q in "${QS[@]}"; do
	f="$(query_file "$q")"
	sqlf="$TMP/q$q.sql"
	sed -e "s#0\.0001 /\*FRACTION\*/#$FRACTION /*FRACTION*/#" "$f" >"$sqlf"
	for setting in off on; do
		"${PSQL[@]}" -At -o "$TMP/q$q.$setting.out" \
			-c "SET statement_timeout = '$QTIMEOUT'" -c "SET themis.enabled = $setting" -c "SET themis.min_rows = 0" -c "SET themis.fallback = on" \
			-c "SET themis.device = $DEVICE" -f "$sqlf" >"$TMP/q$q.$setting.err" 2>&1
		echo $? >"$TMP/q$q.$setting.rc"
	done
	body="$(sed -e 's/--.*$//' "$sqlf" | tr '\n' ' ' | sed -e 's/; *$//')"
	"${PSQL[@]}" -At -c "SET statement_timeout = '$QTIMEOUT'" -c "SET themis.enabled = on" -c "SET themis.min_rows = 0" -c "SET themis.fallback = on" \
		-c "SET themis.device = $DEVICE" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $body" >"$TMP/q$q.explain" 2>&1
	nodes="$(grep -c 'Custom Scan (Themis)' "$TMP/q$q.explain")"
	fb="$(sed -n 's/^ *Fallback: //p' "$TMP/q$q.explain" | sort -u | paste -sd ';' -)"
	info="themis nodes: $nodes"
	[ -n "$fb" ] && info="$info, fallback: $fb"
	rows="$(wc -l <"$TMP/q$q.off.out" 2>/dev/null || echo 0)"
	if [ "$(cat "$TMP/q$q.off.rc")" != 0 ]; then
		echo "FAILED q$q: error with themis off: $(grep -m1 ERROR "$TMP/q$q.off.err")"
		failed=$((failed + 1))
	elif [ "$(cat "$TMP/q$q.on.rc")" != 0 ]; then
		echo "FAILED q$q: error with themis on ($info): $(grep -m1 ERROR "$TMP/q$q.on.err")"
		failed=$((failed + 1))
	elif [ "$(md5sum <"$TMP/q$q.off.out")" = "$(md5sum <"$TMP/q$q.on.out")" ]; then
		echo "ok q$q: identical, $rows rows ($info)"
		passed=$((passed + 1))
	else
		echo "FAILED q$q: results DIFFER ($info); diff off on:"
		diff "$TMP/q$q.off.out" "$TMP/q$q.on.out" | head -n 20
		failed=$((failed + 1))
	fi
done
t3=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v sf="$SF" \
	'BEGIN { printf "tpch SF %s: generate %.1f s, cluster + load %.1f s, queries %.1f s\n", sf, b - a, c - b, d - c }'
finish
