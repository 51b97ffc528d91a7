#!/bin/bash
# test/gpud/faults.sh — the GPU daemon under faults, on a throwaway cluster that preloads themis:
#
#   - the supervisor starts themis-gpud; themis.gpu_status() reaches it;
#   - kill -9 of the daemon while several sessions run queries (themis.device = gpu): with
#     themis.fallback = on every result is still right, with it off a query either returns the right
#     result or ends with a themis ERROR; the daemon comes back; the postmaster is never restarted;
#   - on a machine with a usable GPU also: queries run on the GPU again after the restart, injected faults
#     (themis.debug_fault = daemon_crash / gpu_error) fall back or raise a clear ERROR, statement_timeout
#     cancels a query the daemon holds (daemon_hang) within a second or two, statement_timeout stops a
#     join that would keep the GPU busy for minutes (themis.load_balance none / nifs / nifs_aws, and a float
#     sum over it where every row takes one group's lock): the query ends within ~2.5 s, the daemon stops its kernels (the next query runs at once and right, the
#     daemon logs how soon it stopped), is not restarted and holds no more cache arena than before; a
#     too small device memory limit falls back with the reason, the column cache serves, and DML makes
#     its entry stale; without a GPU those checks are reported as skipped;
#   - stopping the cluster stops the daemon.
#
# Usage: test/gpud/faults.sh      (PGBIN: directory of postgres/initdb/pg_ctl/psql, default from pg_config;
#                                  as root the server runs as $THEMIS_RUN_USER, default themisrun;
#                                  FAULTS_SETTINGS="a = 1; b = on": more server settings)
# Prints "ok - ...", "not ok - ...", "skip - ..." lines and "N passed, N failed, N skipped"; exit 1 on failure.
set -uo pipefail

PGBIN="${PGBIN:-$(pg_config --bindir)}"
RUN_USER="${THEMIS_RUN_USER:-themisrun}"
PORT="${FAULTS_PORT:-54391}"
WORK="$(mktemp -d /tmp/themis-faults.XXXXXX)"
chmod 755 "$WORK"
passed=0; failed=0; skipped=0

ok()   { echo "ok - $*"; passed=$((passed + 1)); }
bad()  { echo "not ok - $*"; failed=$((failed + 1)); }
skip() { echo "skip - $*"; skipped=$((skipped + 1)); }
check() { local name="$1"; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

# As root, $WORK is given to the server's user once, here: a chown -R in every call would race with
# the daemon's socket coming and going (a kill -9 below) and print "No such file" into a query's output.
if [ "$(id -u)" = 0 ]; then
    id "$RUN_USER" >/dev/null 2>&1 || useradd -r -M -d "$WORK" -s /usr/sbin/nologin "$RUN_USER"
    chown "$RUN_USER" "$WORK"
fi
asuser() {
    if [ "$(id -u)" = 0 ]; then
        (cd "$WORK" && runuser -u "$RUN_USER" -- env PATH="$PGBIN:$PATH" LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" HOME="$WORK" "$@")
    else
        (cd "$WORK" && env PATH="$PGBIN:$PATH" "$@")
    fi
}
sql() { asuser "$PGBIN/psql" -X -q -At -h "$WORK" -p "$PORT" -d postgres -v ON_ERROR_STOP=1 "$@"; }
daemon_pid() { sql -c "SELECT daemon_pid FROM themis.gpu_status()" 2>/dev/null; }
wait_daemon() {   # wait until a daemon other than $1 answers: at most 90 s, for the supervisor restarts
                  # with a backoff that doubles per crash within a minute (the fifth here waits 32 s)
    local old="$1" d end=$((SECONDS + 90))
    while [ "$SECONDS" -lt "$end" ]; do
        d="$(daemon_pid)"
        [ -n "$d" ] && [ "$d" != "$old" ] && { echo "$d"; return 0; }
        sleep 0.2
    done
    return 1
}
start_server() {
    asuser "$PGBIN/pg_ctl" -D "$WORK/data" -w -l "$WORK/server.log" \
        -o "-c shared_preload_libraries=themis -c port=$PORT -c listen_addresses= -k $WORK -c lc_messages=C $*" start >/dev/null
}
stop_server() { asuser "$PGBIN/pg_ctl" -D "$WORK/data" -m fast -w stop >/dev/null 2>&1; }
trap 'stop_server; [ "$failed" -gt 0 ] && echo "(files kept in $WORK)" >&2 || rm -rf "$WORK"' EXIT

asuser "$PGBIN/initdb" -D "$WORK/data" -A trust >/dev/null || { bad "initdb"; exit 1; }
# FAULTS_SETTINGS="name = value; name = value": more server settings for every check (e.g. a themis
# setting before it becomes a default)
if [ -n "${FAULTS_SETTINGS:-}" ]; then
    tr ';' '\n' <<<"$FAULTS_SETTINGS" | sed 's/^ *//' >>"$WORK/data/postgresql.conf"
    echo "# with $FAULTS_SETTINGS"
fi
start_server || { bad "server start"; cat "$WORK/server.log"; exit 1; }
PM="$(head -n 1 "$WORK/data/postmaster.pid")"

sql -c "CREATE EXTENSION themis" || { bad "CREATE EXTENSION"; exit 1; }
D1="$(wait_daemon "")"
check "the supervisor starts themis-gpud and gpu_status() reaches it" test -n "$D1"
mode="$(stat -c %a "$WORK/data/themis-gpud.sock" 2>/dev/null)"
check "the daemon's socket is for the server's OS user only (mode $mode, in the 0700 data directory)" \
    bash -c "[ -n '$mode' ] && [ \$(( 8#$mode & 8#077 )) -eq 0 ] && [ \"\$(stat -c %a '$WORK/data')\" = 700 ]"
GPU="$(sql -c "SELECT usable FROM themis.gpu_status()")"
echo "# GPU usable: $GPU ($(sql -c "SELECT detail FROM themis.gpu_status()"))"

sql <<'SQL'
CREATE TABLE f AS
  SELECT g AS a, ((g % 1000)::numeric / 7)::numeric(12,2) AS b, 'k' || (g % 97) AS c
  FROM generate_series(1, 200000) g;
ANALYZE f;
SQL
Q="SELECT c, count(*), sum(b), min(a), max(a) FROM f WHERE a % 3 <> 0 GROUP BY c ORDER BY c"
EXPECT="$(sql -c "SET themis.enabled = off" -c "$Q" | md5sum | cut -d' ' -f1)"
check "the test query gets a Themis node" \
    bash -c "grep -q 'Custom Scan (Themis)' <<<\"\$0\"" "$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "EXPLAIN $Q")"

# ---- kill -9 during queries ----
loop() {   # $1 = fallback setting, $2 = output file
    for i in $(seq 1 40); do
        out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = $1" \
                   -c "$Q" 2>&1)"
        if [ "$(printf '%s\n' "$out" | md5sum | cut -d' ' -f1)" = "$EXPECT" ]; then
            echo same
        elif grep -q 'ERROR:  themis' <<<"$out"; then   # not a pipe: grep -q may exit before printf
                                                          # is done, and pipefail would call it a failure
            echo "error: $(printf '%s' "$out" | grep 'ERROR' | head -n 1)"
        else
            echo "WRONG: $(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"
        fi
    done >"$2"
}
loop on "$WORK/on1" & p1=$!
loop on "$WORK/on2" & p2=$!
loop off "$WORK/off1" & p3=$!
loop off "$WORK/off2" & p4=$!
prev="$D1"
kills=0
for _ in 1 2 3; do
    sleep 1
    d="$(daemon_pid)"
    [ -n "$d" ] && kill -9 "$d" && kills=$((kills + 1))
    prev="$(wait_daemon "$prev")" || break
done
wait $p1 $p2 $p3 $p4
echo "# killed the daemon $kills times; outcomes: $(cat "$WORK"/on1 "$WORK"/on2 "$WORK"/off1 "$WORK"/off2 | cut -c1-5 | sort | uniq -c | tr '\n' ' ')"
check "3 kill -9 of the daemon during queries" test "$kills" -eq 3
check "fallback = on: every result identical to PostgreSQL's" \
    bash -c "! grep -v '^same$' '$WORK/on1' '$WORK/on2'"
check "fallback = off: every query identical or a themis ERROR" \
    bash -c "! grep -h '^WRONG' '$WORK/off1' '$WORK/off2'"
D2="$(wait_daemon "$D1")"
check "the daemon is back after the kills (pid $D2)" test -n "$D2"
check "the postmaster was not restarted (pid $PM)" test "$(head -n 1 "$WORK/data/postmaster.pid")" = "$PM"
check "no server process crashed or reinitialized" \
    bash -c "! grep -Eq 'terminated by signal|reinitializing|all server processes terminated' '$WORK/server.log' ||
             ! grep -E 'terminated by signal|reinitializing|all server processes terminated' '$WORK/server.log' | grep -vq 'themis: GPU daemon'"

# ---- GPU-only checks ----
if [ "$GPU" = t ]; then
    plan() { sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" "$@" \
                 -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $Q"; }
    out="$(plan)"
    check "after the restart, queries run on the GPU" bash -c "grep -q 'Device: gpu' <<<\"\$0\"" "$out"
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.debug_fault = daemon_crash" -c "$Q" | md5sum | cut -d' ' -f1)"
    check "daemon crash during a query, fallback on: right result" test "$out" = "$EXPECT"
    wait_daemon "" >/dev/null
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = off" -c "SET themis.debug_fault = daemon_crash" -c "$Q" 2>&1)"
    check "daemon crash during a query, fallback off: ERROR naming the daemon" \
        bash -c "grep -q 'ERROR:  themis: cannot run this plan: themis-gpud closed the connection' <<<\"\$0\"" "$out"
    wait_daemon "" >/dev/null
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.debug_fault = gpu_error" \
               -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $Q" 2>&1)"
    check "CUDA error (injected), fallback on: PostgreSQL's plan runs and EXPLAIN ANALYZE says why" \
        bash -c "grep -q 'Fallback: GPU: injected fault' <<<\"\$0\"" "$out"
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = auto" -c "SET themis.debug_fault = gpu_error" \
               -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $Q" 2>&1)"
    check "CUDA error (injected), device auto: PostgreSQL's plan runs it, not the CPU executor" \
        bash -c "grep -q 'Fallback: GPU: injected fault' <<<\"\$0\" && ! grep -q 'Device: cpu' <<<\"\$0\"" "$out"
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = auto" -c "SET themis.fallback = off" \
               -c "SET themis.debug_fault = gpu_error" -c "$Q" 2>&1)"
    check "CUDA error (injected), device auto, fallback off: ERROR naming it" \
        bash -c "grep -q 'ERROR:  themis: cannot run this plan: GPU: injected fault' <<<\"\$0\"" "$out"

    # cancel: statement_timeout while the daemon holds the request; the next query works at once
    t0=$(date +%s%N)
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.debug_fault = daemon_hang" \
               -c "SET statement_timeout = '1s'" -c "$Q" 2>&1)"
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    check "statement_timeout cancels a query waiting for the daemon ($ms ms)" \
        bash -c "grep -q 'canceling statement due to statement timeout' <<<\"\$0\" && [ $ms -lt 3000 ]" "$out"
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = off" -c "$Q" | md5sum | cut -d' ' -f1)"
    check "the next query runs on the GPU right away, result identical" test "$out" = "$EXPECT"

    # cancel of running kernels: every row of skew_r matches every row of skew_s (one key), 4 * 10^12
    # join rows into count(*): minutes of GPU work in any mode.  Both tables are cached first, so the
    # request reaches the daemon at once.  statement_timeout must end the query within ~2 s, the daemon
    # must stop its kernels (it logs "request canceled ... stopped N ms after that"; the next query would
    # otherwise wait for the GPU lock) and give back what the query held.  The ":lock" cases sum a float
    # instead, with themis.gpu_fast_paths off: every join row takes the one group's lock, and the
    # threads waiting for it must leave on the cancel too.
    sql <<'SQL'
CREATE TABLE skew_r AS SELECT 1 AS k, g AS v FROM generate_series(1, 8000000) g;
CREATE TABLE skew_s AS SELECT 1 AS k, g AS w FROM generate_series(1, 500000) g;
ANALYZE skew_r;
ANALYZE skew_s;
SQL
    sql -c "SELECT themis.cache_table('skew_r'), themis.cache_table('skew_s')" >/dev/null
    QS="SELECT count(*) FROM skew_r JOIN skew_s USING (k)"
    QL="SELECT sum(v::float8) FROM skew_r JOIN skew_s USING (k)"
    sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "$Q" >/dev/null   # f cached too
    arena0="$(sql -c "SELECT cache_arena_used FROM themis.gpu_status()")"
    dpid0="$(daemon_pid)"
    for case in none nifs nifs_aws none:lock nifs_aws:lock; do
        lb="${case%%:*}"
        q="$QS"; fast=on
        [ "$case" != "$lb" ] && { q="$QL"; fast=off; }
        nlog0="$(wc -l <"$WORK/server.log")"
        t0=$(date +%s%N)
        out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = off" \
                   -c "SET max_parallel_workers_per_gather = 0" -c "SET themis.load_balance = $lb" \
                   -c "SET themis.join_algorithm = pipelined" -c "SET themis.gpu_fast_paths = $fast" \
                   -c "SET statement_timeout = '1s'" -c "$q" 2>&1)"
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        check "statement_timeout ends a long GPU join ($case) in $ms ms" \
            bash -c "grep -q 'canceling statement due to statement timeout' <<<\"\$0\" && [ $ms -lt 2500 ]" "$out"
        t0=$(date +%s%N)
        out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = off" \
                   -c "SET statement_timeout = '20s'" -c "$Q" 2>&1 | md5sum | cut -d' ' -f1)"
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        what="($case) the daemon stopped the join's kernels: the next query runs on the GPU at once ($ms ms), result identical"
        if [ "$out" != "$EXPECT" ] || [ $ms -ge 3000 ]; then
            bad "$what"
            d="$(daemon_pid)"; [ -n "$d" ] && kill -9 "$d"   # still busy: start afresh for the checks below
            wait_daemon "$d" >/dev/null
            dpid0="$(daemon_pid)"
            arena0=""
            continue
        fi
        ok "$what"
        sleep 0.2
        # "request canceled (...): stopped S ms after that, R ms into its GPU work": the join's line is
        # the one with R >= 500 (a request that was held by daemon_hang above logs R = 0 when it wakes)
        stopped="$(tail -n +$((nlog0 + 1)) "$WORK/server.log" | grep 'request canceled' |
                   sed -n 's/.*stopped \([0-9]*\) ms after that, \([0-9]*\) ms into.*/\1 \2/p' |
                   awk '$2 >= 500 { print $1 }' | tail -n 1)"
        check "($case) the daemon logged the cancel: its GPU work stopped ${stopped:-?} ms after the backend left" \
            bash -c "[ -n '$stopped' ] && [ '$stopped' -lt 1000 ]"
    done
    check "after the cancels: the same daemon (pid $dpid0), no restart, GPU usable" \
        test "$(sql -c "SELECT daemon_pid = $dpid0 AND usable FROM themis.gpu_status()")" = t
    check "after the cancels: cache arena in use as before ($arena0 bytes)" \
        test "$(sql -c "SELECT cache_arena_used FROM themis.gpu_status()")" = "$arena0"
    check "after the cancels: the postmaster was not restarted (pid $PM)" test "$(head -n 1 "$WORK/data/postmaster.pid")" = "$PM"

    # the column cache
    sql -c "SELECT themis.cache_drop()" >/dev/null
    bytes="$(sql -c "SELECT themis.cache_table('f')")"
    check "cache_table() caches the table ($bytes bytes)" test "${bytes:-0}" -gt 0
    check "the cache view lists it as valid" test "$(sql -c "SELECT bool_and(valid) AND count(*) = 3 FROM themis.cache WHERE relation = 'f'::regclass")" = t
    out="$(plan)"
    check "a query is served from the cache" bash -c "grep -q 'GPU Sources: 1 cached' <<<\"\$0\"" "$out"
    sql -c "UPDATE f SET b = b + 1 WHERE a = 5"
    check "after an UPDATE the entry is no longer valid" test "$(sql -c "SELECT bool_or(valid) FROM themis.cache WHERE relation = 'f'::regclass")" = f
    EXPECT2="$(sql -c "SET themis.enabled = off" -c "$Q" | md5sum | cut -d' ' -f1)"
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = off" -c "$Q" | md5sum | cut -d' ' -f1)"
    check "the next query sees the UPDATE (result identical to PostgreSQL's)" test "$out" = "$EXPECT2"
    out="$(plan)"
    check "and the query after reloads nothing (served from the new entry)" bash -c "grep -q 'GPU Sources: 1 cached' <<<\"\$0\"" "$out"

    # themis.stream_loads: a cold query over two tables sends the larger (skew_r's two columns, 64 MB) to
    # the daemon in a LOAD of its own while it reads the other (f); the same result; the next run hits
    QJ="SELECT count(*), sum(r.v), sum(r.k), sum(f.b) FROM skew_r r JOIN f ON f.a = r.v"
    EXPECTJ="$(sql -c "SET themis.enabled = off" -c "$QJ" | md5sum | cut -d' ' -f1)"
    sql -c "SELECT themis.cache_drop()" >/dev/null
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = off" \
               -c "SET themis.stream_loads = on" -c "$QJ" 2>&1 | md5sum | cut -d' ' -f1)"
    check "stream_loads: a cold query's result is identical to PostgreSQL's" test "$out" = "$EXPECTJ"
    sql -c "SELECT themis.cache_drop()" >/dev/null
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = off" \
               -c "SET themis.stream_loads = on" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $QJ" 2>&1)"
    check "stream_loads: the larger table went in a LOAD of its own while the other was read" \
        bash -c "grep -q 'GPU Loads Streamed: 1' <<<\"\$0\" && grep -q 'GPU Sources: 0 cached, 2 loaded into the cache' <<<\"\$0\"" "$out"
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = off" \
               -c "SET themis.stream_loads = on" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $QJ" 2>&1)"
    check "stream_loads: the next run is served from the cache" bash -c "grep -q 'GPU Sources: 2 cached' <<<\"\$0\"" "$out"

    # small device memory: a source bigger than the cache arena and the work pool runs in chunks;
    # a GROUP BY whose groups do not fit the pool falls back (on) or raises a clear ERROR (off)
    stop_server
    start_server "-c themis.gpu_memory_limit=256MB -c themis.cache_size=64MB" || bad "restart with a small memory limit"
    wait_daemon "" >/dev/null
    sql -c "CREATE TABLE big AS SELECT g AS a, g::numeric(18,2) AS b, 'v' || (g % 1000) AS c FROM generate_series(1, 12000000) g" -c "ANALYZE big"
    QB="SELECT c, count(*), sum(b), min(a) FROM big WHERE a % 5 <> 0 GROUP BY c ORDER BY c"
    EXPECTB="$(sql -c "SET themis.enabled = off" -c "$QB" | md5sum | cut -d' ' -f1)"
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = off" -c "$QB" 2>&1 | md5sum | cut -d' ' -f1)"
    check "a source larger than device memory runs in chunks (result identical)" test "$out" = "$EXPECTB"
    QG="SELECT a, count(*), sum(b) FROM big GROUP BY a ORDER BY a LIMIT 3"
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" \
               -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $QG" 2>&1)"
    check "out of device memory, fallback on: PostgreSQL's plan runs, EXPLAIN ANALYZE says why" \
        bash -c "grep -Eq 'Fallback: GPU: .*(memory|pool)' <<<\"\$0\"" "$out"
    out="$(sql -c "SET themis.min_rows = 0" -c "SET themis.device = gpu" -c "SET themis.fallback = off" -c "$QG" 2>&1)"
    check "out of device memory, fallback off: a clear ERROR" \
        bash -c "grep -Eq 'ERROR:  themis: cannot run this plan: GPU: .*(memory|pool)' <<<\"\$0\"" "$out"
else
    for t in "queries run on the GPU after a restart" "injected daemon crash (fallback on / off)" \
             "injected CUDA error (gpu / auto)" "statement_timeout while the daemon holds a request" \
             "statement_timeout stops a long GPU join (none / nifs / nifs_aws, a hot group's lock), the daemon is ready at once" \
             "column cache: cache_table, view, hit, stale after UPDATE" \
             "stream_loads: result, a LOAD of its own, the next run served from the cache" \
             "chunked source larger than device memory" "out of device memory (fallback on / off)"; do
        skip "$t (no usable GPU)"
    done
fi

# ---- shutdown stops the daemon ----
DL="$(daemon_pid)"
stop_server
sleep 0.5
check "stopping the cluster stops the daemon (pid $DL)" bash -c "[ -n '$DL' ] && ! kill -0 '$DL' 2>/dev/null"
if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"; else echo "$passed passed, $failed failed"; fi
[ "$failed" -eq 0 ]
