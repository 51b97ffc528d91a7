#!/bin/bash
# scripts/demo.sh — see themis at work in a few minutes: run from the repository root, as root or as a
# user with sudo, on Debian 12 / Ubuntu.
#
#   1. installs what is missing (postgresql-15, postgresql-server-dev-15, build-essential)
#   2. builds and installs themis (make; make install)
#   3. starts a throw-away PostgreSQL cluster in a temporary directory (own port, Unix socket there,
#      shared_preload_libraries = themis; as the user $THEMIS_RUN_USER, default themis, when run as root)
#   4. loads a TPC-H-shaped dataset of ~600k lineitems (bench/demo/schema.sql, data.sql)
#   5. runs bench/demo/q*.sql with themis.enabled off and on (themis.device = auto): timings, whether the
#      results are identical (md5 of the sorted output), and the EXPLAIN of the themis plan
#   6. stops the cluster and removes it (also on error or Ctrl-C)
#
# Environment: DEMO_RUNS (timed runs per query and setting, best is shown; default 3),
# DEMO_TIMEOUT (statement_timeout per query, default 120s), CUDA=no (CPU-only build), KEEP_TMP=1.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"
cd "$ROOT"

RUNS="${DEMO_RUNS:-3}"
TIMEOUT="${DEMO_TIMEOUT:-120s}"
MAKE_ARGS=()
[ -n "${CUDA:-}" ] && MAKE_ARGS+=("CUDA=$CUDA")

# ---- 1, 2: packages, build, install ----
ensure_packages
ensure_run_user
log "building themis"
pgmake -j"$(nproc 2>/dev/null || echo 2)" "${MAKE_ARGS[@]}" >/tmp/themis-demo-build.$$.log 2>&1 \
    || { cat /tmp/themis-demo-build.$$.log; die "build failed"; }
rm -f /tmp/themis-demo-build.$$.log
log "installing themis into $("$PG_CONFIG" --pkglibdir)"
as_root make PG_CONFIG="$PG_CONFIG" "${MAKE_ARGS[@]}" install >/dev/null

# ---- 3: throw-away cluster ----
TMP="$(mktemp -d /tmp/themis-demo.XXXXXX)"
DATA="$TMP/data"
OUTD="$TMP/out"
mkdir -p "$OUTD"
chmod 755 "$TMP"
PORT=""
cleanup() {
    set +e
    if [ -f "$DATA/postmaster.pid" ]; then
        log "stopping the demo cluster"
        as_pguser "$TMP" "$PGBIN/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1
    fi
    if [ "${KEEP_TMP:-0}" = 1 ]; then
        log "kept $TMP"
    else
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_free() {  # nothing listens on TCP port $1
    if command -v ss >/dev/null 2>&1; then
        if ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; then return 1; fi
    else
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 1; fi
    fi
    return 0
}
for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    if port_free "$p"; then PORT=$p; break; fi
done
[ -n "$PORT" ] || die "no free port found"

is_root && chown "$RUN_USER" "$TMP"
log "initdb in $DATA (port $PORT, socket in $TMP)"
as_pguser "$TMP" "$PGBIN/initdb" -D "$DATA" --no-locale -E UTF8 -U postgres -A trust --no-sync >"$OUTD/initdb.log" 2>&1 \
    || { cat "$OUTD/initdb.log"; die "initdb failed"; }
cat >>"$DATA/postgresql.conf" <<EOF
# scripts/demo.sh
port = $PORT
listen_addresses = ''
unix_socket_directories = '$TMP'
shared_preload_libraries = 'themis'
shared_buffers = 512MB
work_mem = 64MB
jit = off
fsync = off
synchronous_commit = off
full_page_writes = off
max_wal_size = 4GB
lc_messages = 'C'
EOF
as_pguser "$TMP" "$PGBIN/pg_ctl" -D "$DATA" -l "$TMP/server.log" -w -t 60 start >/dev/null \
    || { cat "$TMP/server.log"; die "server start failed"; }

PSQL=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$TMP" -p "$PORT" -U postgres -d postgres)
sql() { "${PSQL[@]}" -At "$@"; }

# ---- 4: data ----
sql -c "CREATE EXTENSION themis"
log "themis $(sql -c 'SELECT themis.version()'); GPU: $(sql -c "SELECT CASE WHEN usable THEN 'usable: ' ELSE 'not usable: ' END || detail FROM themis.gpu_status()")"
log "loading the TPC-H-shaped dataset (15-30 s)"
t0=$(date +%s)
sql -f bench/demo/schema.sql >/dev/null
sql -f bench/demo/data.sql >/dev/null
log "loaded in $(( $(date +%s) - t0 )) s: $(sql -c "SELECT string_agg(relname || ' ' || reltuples::bigint, ', ' ORDER BY relname) FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace")"

# ---- 5: queries ----
# run_query FILE SETTING(on|off) TAG: runs FILE once with output to $OUTD/TAG.out, prints the time in ms
run_query() {
    local f="$1" setting="$2" tag="$3" out
    out="$("${PSQL[@]}" -At 2>&1 <<EOF
SET themis.enabled = $setting;
SET themis.device = auto;
SET statement_timeout = '$TIMEOUT';
\\o $OUTD/$tag.out
\\timing on
\\i $f
\\timing off
\\o
EOF
)" || { echo "ERROR: $(grep -m1 ERROR <<<"$out" || echo "$out" | tail -n 1)"; return 0; }
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | tail -n 1
}

best() {  # minimum of numbers (or the first non-number, e.g. an error)
    local b="" x
    for x in "$@"; do
        if ! [[ "$x" =~ ^[0-9.]+$ ]]; then echo "$x"; return; fi
        if [ -z "$b" ] || awk -v a="$x" -v b="$b" 'BEGIN { exit !(a < b) }'; then b="$x"; fi
    done
    printf '%.1f' "$b"
}

declare -a ROWS=()
nsame=0
ndiff=0
nused=0
for f in bench/demo/q*.sql; do
    q="$(basename "$f" .sql)"
    log "$q: $(sed -n '1s/^-- *//p' "$f")"
    run_query "$f" off "$q.warm" >/dev/null    # warm the buffer cache
    toff=() ; ton=()
    for _ in $(seq 1 "$RUNS"); do
        toff+=("$(run_query "$f" off "$q.off")")
        ton+=("$(run_query "$f" on "$q.on")")
    done
    t_off="$(best "${toff[@]}")"
    t_on="$(best "${ton[@]}")"
    md5_off="$(sort "$OUTD/$q.off.out" 2>/dev/null | md5sum | cut -c1-12)"
    md5_on="$(sort "$OUTD/$q.on.out" 2>/dev/null | md5sum | cut -c1-12)"
    if [[ "$t_off" =~ ^[0-9.]+$ ]] && [[ "$t_on" =~ ^[0-9.]+$ ]]; then
        if [ "$md5_off" = "$md5_on" ]; then same="identical"; nsame=$((nsame + 1)); else same="DIFFERENT"; ndiff=$((ndiff + 1)); fi
        speedup="$(awk -v a="$t_off" -v b="$t_on" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')"
    else
        same="n/a"; speedup="-"; ndiff=$((ndiff + 1))
    fi
    plan="$("${PSQL[@]}" -At -c "SET themis.enabled = on" -c "SET themis.device = auto" \
            -c "EXPLAIN (COSTS OFF) $(sed -e 's/--.*$//' "$f" | tr '\n' ' ' | sed 's/; *$//')" 2>&1 || true)"
    if grep -q 'Themis' <<<"$plan"; then used=yes; nused=$((nused + 1)); else used=no; fi
    echo
    echo "---- $q: themis off ${t_off} ms, on ${t_on} ms ($speedup), results $same (md5 $md5_off / $md5_on), themis node in plan: $used"
    echo "EXPLAIN (themis on):"
    sed 's/^/    /' <<<"$plan"
    ROWS+=("$(printf '%-6s %12s %12s %9s  %-10s %s' "$q" "$t_off" "$t_on" "$speedup" "$same" "$used")")
done

echo
echo "themis demo: best of $RUNS runs, milliseconds (PostgreSQL $("$PG_CONFIG" --version | awk '{print $2}'), $(nproc) cores)"
printf '%-6s %12s %12s %9s  %-10s %s\n' query "themis off" "themis on" speedup results "themis used"
for r in "${ROWS[@]}"; do echo "$r"; done
echo "GPU: $(sql -c "SELECT CASE WHEN usable THEN 'usable, ' ELSE 'not usable, ' END || detail FROM themis.gpu_status()")"
if [ "$nused" -gt 0 ]; then
    echo "Themis nodes in $nused of $((nsame + ndiff)) plans; this version of themis has no GPU executor yet: they ran on its CPU executor"
else
    echo "no plan got a Themis node (see themis.min_rows and the EXPLAIN output above)"
fi
echo "$nsame of $((nsame + ndiff)) queries gave identical results"
[ "$ndiff" -eq 0 ]
