#!/bin/bash
# test/load/run.sh — load test (issue 7): concurrent analytic clients with themis on, mixed with writers,
# for a fixed time; every analytic answer is checked against an invariant the writers keep, and memory
# (daemon, backends, GPU pool and cache) is sampled to show it stays steady.
#
#   test/load/run.sh [--minutes M] [--seconds S] [--clients C] [--writers W] [--rows N]
#                    [--device auto|gpu|cpu] [--out DIR]
#
# Defaults: 10 minutes, 32 analytic clients, 4 writers, 2,000,000 accounts, device cpu (auto makes no
# Themis node where no GPU is usable, and the load test would test PostgreSQL alone; the GPU host passes
# --device gpu).  The data:
# accounts(id, branch, balance bigint) and branches(id, region); writers move money between two random
# accounts in one transaction (and now and then insert and delete a zero-balance account; VACUUM runs
# every minute), so in every snapshot count(*) over the original ids and sum(balance) are constants.  The analytic
# clients (pgbench, themis.min_rows = 0, themis.fallback = off) run a scan aggregate, a grouped
# aggregate and a join with grouping whose totals must equal those constants; load_check() raises an
# error otherwise, which aborts the pgbench client and fails the run.  Writers use pgbench too.
#
# Output: DIR/readers.log, DIR/writers.log (pgbench), DIR/memory.csv (every 10 s: seconds, daemon RSS
# kB, RSS of all the server's processes in kB, GPU work pool peak and cache bytes from themis.gpu_status()), DIR/summary.txt;
# the last line "N passed, N failed".  Checks: no analytic or writer client aborted; the
# invariant held in every analytic query; at least one analytic and one writer transaction per client;
# the daemon was not restarted and the postmaster did not restart; daemon RSS at the end at most 1.5x
# (plus 64 MB) its value after the first minute (or the first sample on short runs).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$ROOT/scripts/common.sh"
. "$ROOT/bench/lib/cluster.sh"

SECS=600
CLIENTS=32
WRITERS=4
ROWS=2000000
DEVICE=cpu
OUT=""
while [ $# -gt 0 ]; do
	case "$1" in
		--minutes) SECS=$(( $2 * 60 )); shift 2 ;;
		--seconds) SECS="$2"; shift 2 ;;
		--clients) CLIENTS="$2"; shift 2 ;;
		--writers) WRITERS="$2"; shift 2 ;;
		--rows) ROWS="$2"; shift 2 ;;
		--device) DEVICE="$2"; shift 2 ;;
		--out) OUT="$2"; shift 2 ;;
		-h|--help) sed -n '2,24p' "${BASH_SOURCE[0]}"; exit 0 ;;
		*) echo "unknown option: $1" >&2; exit 2 ;;
	esac
done
[ -x "$PGBIN/pgbench" ] || die "pgbench not found in $PGBIN"

TMP="$(mktemp -d /tmp/themis-load.XXXXXX)" || die "mktemp failed"
chmod 755 "$TMP"
KEEP_OUT=1
[ -n "$OUT" ] || { OUT="$TMP/out"; KEEP_OUT=0; }
mkdir -p "$OUT"
chmod 777 "$OUT"
# the cluster and scripts go; the results stay where --out put them (without --out they go too, unless
# KEEP_TMP=1)
cleanup() {
	trap '' PIPE
	cluster_stop
	if [ "${KEEP_TMP:-0}" = 1 ]; then echo "(kept $TMP)" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
check() {   # description, then a command that must succeed
	local what="$1"
	shift
	if "$@" >/dev/null 2>&1; then
		echo "ok - $what"
		passed=$((passed + 1))
	else
		echo "not ok - $what"
		failed=$((failed + 1))
	fi
}

ensure_run_user
mapfile -t CONF < <(cluster_conf_default | sed -e 's/^shared_buffers = .*/shared_buffers = 1GB/')
cluster_start "$TMP" "${CONF[@]}" "max_connections = $(( CLIENTS + WRITERS + 20 ))" \
	"themis.min_rows = 0" "themis.device = $DEVICE" "themis.fallback = off"
sql() { as_pguser "$TMP" "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 "${CL_CONN[@]}" "$@"; }

log "load: $ROWS accounts"
sql <<SQL || die "loading failed"
CREATE EXTENSION IF NOT EXISTS themis;
CREATE TABLE branches (id int PRIMARY KEY, region int NOT NULL);
INSERT INTO branches SELECT g, g % 7 FROM generate_series(0, 999) g;
CREATE TABLE accounts (id bigint PRIMARY KEY, branch int NOT NULL, balance bigint NOT NULL);
INSERT INTO accounts SELECT g, g % 1000, 1000 + g % 997 FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE branches, accounts;
CREATE TABLE load_expect AS SELECT count(*) AS n, sum(balance) AS s FROM accounts;
-- the analytic clients' check: any other total is a wrong answer
CREATE FUNCTION load_check(what text, n bigint, s numeric) RETURNS int LANGUAGE plpgsql AS \$f\$
DECLARE
    e load_expect;
BEGIN
    SELECT * INTO e FROM load_expect;
    IF n IS DISTINCT FROM e.n OR s IS DISTINCT FROM e.s THEN
        RAISE EXCEPTION 'load: WRONG ANSWER in %: count % sum %, expected count % sum %', what, n, s, e.n, e.s;
    END IF;
    RETURN 1;
END
\$f\$;
SQL

# analytic transactions: ids above ROWS are the writers' temporary accounts (balance 0)
cat >"$TMP/reader.sql" <<SQL
\\set q random(1, 3)
\\if :q = 1
SELECT load_check('scan', count(*), sum(balance)) FROM accounts WHERE id <= $ROWS;
\\elif :q = 2
SELECT load_check('group', sum(n)::bigint, sum(s)) FROM (SELECT branch, count(*) AS n, sum(balance) AS s FROM accounts WHERE id <= $ROWS GROUP BY branch) g;
\\else
SELECT load_check('join', sum(n)::bigint, sum(s)) FROM (SELECT b.region, count(*) AS n, sum(a.balance) AS s FROM accounts a JOIN branches b ON a.branch = b.id WHERE a.id <= $ROWS GROUP BY b.region) g;
\\endif
SQL
cat >"$TMP/writer.sql" <<SQL
\\set a random(1, $ROWS)
\\set b random(1, $ROWS)
\\set lo least(:a, :b)
\\set hi greatest(:a, :b)
\\set x random(1, 50)
\\set t random(1, 100)
BEGIN;
UPDATE accounts SET balance = balance - :x WHERE id = :lo;
UPDATE accounts SET balance = balance + :x WHERE id = :hi;
\\if :t = 1
INSERT INTO accounts VALUES ($ROWS + :a, :a % 1000, 0) ON CONFLICT DO NOTHING;
\\elif :t = 2
DELETE FROM accounts WHERE id > $ROWS AND id <= $ROWS + :a;
\\endif
COMMIT;
SQL
chmod 644 "$TMP"/*.sql

# the analytic queries must run in Themis nodes, or this would test PostgreSQL alone
for q in "SELECT count(*), sum(balance) FROM accounts WHERE id <= $ROWS" \
	"SELECT branch, count(*), sum(balance) FROM accounts WHERE id <= $ROWS GROUP BY branch" \
	"SELECT b.region, count(*), sum(a.balance) FROM accounts a JOIN branches b ON a.branch = b.id WHERE a.id <= $ROWS GROUP BY b.region"; do
	check "offloaded: ${q:0:60}..." bash -c "grep -q 'Custom Scan (Themis)' <<<\"\$0\"" "$(sql -c "EXPLAIN $q" 2>&1)"
done

daemon_pid() { sql -c "SELECT daemon_pid FROM themis.gpu_status()" 2>/dev/null; }
backend_rss() { ps -o rss= -u "$RUN_USER" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
PM_PID="$(head -n 1 "$TMP/data/postmaster.pid")"
D0="$(daemon_pid)"

# pgbench's -d is --debug (its database is the last argument): psql's connection options minus -d
PGB_CONN=()
PGB_DB=postgres
for ((i = 0; i < ${#CL_CONN[@]}; i++)); do
	if [ "${CL_CONN[i]}" = -d ]; then PGB_DB="${CL_CONN[i + 1]}"; i=$((i + 1)); else PGB_CONN+=("${CL_CONN[i]}"); fi
done
log "load: $CLIENTS analytic clients, $WRITERS writers, ${SECS}s, themis.device = $DEVICE"
echo "seconds,daemon_rss_kb,server_rss_kb,gpu_work_pool_peak,gpu_cache_bytes" >"$OUT/memory.csv"
as_pguser "$TMP" env PGOPTIONS="-c themis.device=$DEVICE" "$PGBIN/pgbench" -n "${PGB_CONN[@]}" -c "$CLIENTS" \
	-j "$(( CLIENTS < 8 ? CLIENTS : 8 ))" -T "$SECS" -P 30 -f "$TMP/reader.sql" "$PGB_DB" >"$OUT/readers.log" 2>&1 &
rp=$!
as_pguser "$TMP" "$PGBIN/pgbench" -n "${PGB_CONN[@]}" -c "$WRITERS" -j "$WRITERS" -T "$SECS" -P 30 \
	-f "$TMP/writer.sql" "$PGB_DB" >"$OUT/writers.log" 2>&1 &
wp=$!
t0=$(date +%s)
vac=0
while kill -0 "$rp" 2>/dev/null || kill -0 "$wp" 2>/dev/null; do
	sleep 10
	el=$(( $(date +%s) - t0 ))
	dp="$(daemon_pid)"
	drss="$( [ -n "$dp" ] && ps -o rss= -p "$dp" 2>/dev/null | tr -d ' ' )"
	st="$(sql -F, -c "SELECT work_pool_peak, cache_bytes FROM themis.gpu_status()" 2>/dev/null)"
	echo "$el,${drss:-},$(backend_rss),${st:-,}" >>"$OUT/memory.csv"
	# a VACUUM now and then: the cache must stay right across it
	if [ $(( el / 60 )) -gt "$vac" ]; then
		vac=$(( el / 60 ))
		sql -c "VACUUM accounts" >/dev/null 2>&1 || true
	fi
done
wait "$rp"
rrc=$?
wait "$wp"
wrc=$?

r_tx="$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$OUT/readers.log")"
w_tx="$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$OUT/writers.log")"
r_tps="$(sed -nE 's/^tps = ([0-9.]+).*/\1/p' "$OUT/readers.log" | tail -n 1)"
w_tps="$(sed -nE 's/^tps = ([0-9.]+).*/\1/p' "$OUT/writers.log" | tail -n 1)"
check "analytic clients: pgbench ended normally (no client aborted)" test "$rrc" -eq 0
check "writers: pgbench ended normally (no client aborted)" test "$wrc" -eq 0
check "no wrong answer (load_check never raised)" bash -c "! grep -q 'WRONG ANSWER' '$OUT/readers.log' '$TMP/server.log'"
check "every analytic client ran ($CLIENTS clients, ${r_tx:-0} transactions)" test "${r_tx:-0}" -ge "$CLIENTS"
check "every writer ran ($WRITERS writers, ${w_tx:-0} transactions)" test "${w_tx:-0}" -ge "$WRITERS"
final="$(sql -c "SELECT load_check('final', count(*), sum(balance)) FROM accounts WHERE id <= $ROWS" 2>&1)"
check "the invariant holds after the run ($final)" test "$final" = 1
check "the postmaster did not restart (pid $PM_PID)" test "$(head -n 1 "$TMP/data/postmaster.pid")" = "$PM_PID"
check "no server process crashed" bash -c "! grep -Eq 'terminated by signal|server process .* was terminated|all server processes terminated' '$TMP/server.log'"
D1="$(daemon_pid)"
check "the GPU daemon was not restarted (pid ${D0:-none} -> ${D1:-none})" test "${D0:-x}" = "${D1:-y}"
# memory: the daemon's RSS at the end against its value after the first minute
base="$(awk -F, 'NR > 1 && $1 >= 60 && $2 != "" { print $2; exit }' "$OUT/memory.csv")"
[ -z "$base" ] && base="$(awk -F, 'NR == 2 { print $2 }' "$OUT/memory.csv")"
last="$(awk -F, 'NR > 1 && $2 != "" { v = $2 } END { print v }' "$OUT/memory.csv")"
check "daemon memory steady (RSS ${base:-?} kB after warm-up, ${last:-?} kB at the end)" \
	test "${last:-0}" -le $(( ${base:-0} * 3 / 2 + 65536 ))

{
	echo "load test: $CLIENTS analytic clients, $WRITERS writers, ${SECS}s, $ROWS accounts, themis.device = $DEVICE"
	echo "GPU: $(sql -c "SELECT CASE WHEN usable THEN detail ELSE 'none (' || detail || ')' END FROM themis.gpu_status()" 2>/dev/null)"
	echo "analytic: ${r_tx:-?} transactions, ${r_tps:-?} tps; writers: ${w_tx:-?} transactions, ${w_tps:-?} tps"
	if [ "$KEEP_OUT" = 1 ] || [ "${KEEP_TMP:-0}" = 1 ]; then
		echo "memory samples: $OUT/memory.csv"
	else
		echo "memory samples: $(awk -F, 'NR > 1' "$OUT/memory.csv" | wc -l) (use --out DIR to keep memory.csv and the pgbench logs)"
	fi
	echo "$passed passed, $failed failed"
} | tee "$OUT/summary.txt"
[ "$failed" -eq 0 ]
