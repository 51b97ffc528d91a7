#!/bin/bash
# bench/load_thp.sh — how fast themis.cache_table() loads a table with and without huge pages for shared
# memory (/sys/kernel/mm/transparent_hugepage/shmem_enabled: the default never, and advise, under which
# the memfds of a load get huge pages: src/colbuild.c, tm_map_shared).  Run as root (it sets the kernel
# setting for each series and puts the original back) against a running server with themis preloaded and
# a usable GPU:
#
#   bench/load_thp.sh [--rows N (30000000)] [--runs R (3)] [--writers W (8)] [--keep]
#
# PSQL (default "psql") is the command that reaches the database, e.g. "bash pg-portable.sh psql".  It
# makes the table themis_load_thp (lineitem's column types: int8, int4, four numeric(15,2), two dates and
# two short texts) with W sessions at once unless it is there with N rows, then per setting R loads:
# themis.cache_drop() and themis.cache_table(), psql wall time (with client_min_messages = debug1, whose
# line from the parallel read gives its two phases: chunks read, then written into the memfd).  Prints
# one line per load and a table of the medians (ms, rows/s, GB/s of the bytes themis.cache reports);
# after each setting's loads, an aggregate over the cached columns with themis on (fallback off) and off
# must agree (exit status 1 if not); --keep leaves the table.
set -uo pipefail

ROWS=30000000
RUNS=3
WRITERS=8
KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --rows) ROWS="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --writers) WRITERS="$2"; shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) echo "usage: $0 [--rows N] [--runs R] [--writers W] [--keep]" >&2; exit 2 ;;
    esac
done
PSQL="${PSQL:-psql}"
SYSF=/sys/kernel/mm/transparent_hugepage/shmem_enabled
q() { $PSQL -X -q -At -v ON_ERROR_STOP=1 "$@"; }

[ -r "$SYSF" ] || { echo "load_thp: $SYSF is not there: nothing to compare" >&2; exit 1; }
orig="$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$SYSF")"
trap 'echo "$orig" >"$SYSF" 2>/dev/null' EXIT
have="$(q -c "SELECT count(*) FROM themis_load_thp" 2>/dev/null || echo -1)"
if [ "$have" != "$ROWS" ]; then
    q -c "DROP TABLE IF EXISTS themis_load_thp" \
      -c "CREATE TABLE themis_load_thp (k int8, p int4, q numeric(15,2), e numeric(15,2), d numeric(15,2),
                                        t numeric(15,2), sd date, cd date, mode text, instr text)" || exit 1
    t0=$(date +%s.%N)
    for w in $(seq 0 $((WRITERS - 1))); do
        lo=$((ROWS * w / WRITERS + 1)); hi=$((ROWS * (w + 1) / WRITERS))
        q -c "INSERT INTO themis_load_thp
              SELECT i, (i % 200000)::int4, (i % 50 + 1)::numeric(15,2), ((i * 7919) % 10000000) / 100.0,
                     (i % 11) / 100.0, (i % 9) / 100.0, date '1992-01-01' + (i % 2500)::int,
                     date '1992-01-01' + (i % 2470)::int + 30,
                     (ARRAY['AIR','MAIL','SHIP','RAIL','TRUCK','FOB','REG AIR'])[i % 7 + 1],
                     (ARRAY['DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'])[i % 4 + 1]
              FROM generate_series($lo::int8, $hi::int8) i" &
    done
    wait
    q -c "VACUUM ANALYZE themis_load_thp" || exit 1
    echo "made themis_load_thp: $ROWS rows in $(echo "$t0" | awk -v t1="$(date +%s.%N)" '{ printf "%.1f", t1 - $1 }') s"
fi

declare -A med
differ=0
for mode in never advise; do
    if ! echo "$mode" >"$SYSF" 2>/dev/null; then
        echo "load_thp: cannot set $SYSF to $mode (not root?)" >&2
        continue
    fi
    times=()
    for r in $(seq 1 "$RUNS"); do
        q -c "SELECT themis.cache_drop()" >/dev/null || exit 1
        t0=$(date +%s%N)
        dbg="$(q -c "SET client_min_messages = debug1" -c "SELECT themis.cache_table('themis_load_thp')" 2>&1 >/dev/null)" ||
            { echo "$dbg" >&2; exit 1; }
        t1=$(date +%s%N)
        ms=$(( (t1 - t0) / 1000000 ))
        times+=("$ms")
        # the parallel read's two phases (src/colbuild_parallel.c, DEBUG1)
        echo "shmem_enabled=$mode run $r: $ms ms; $(sed -n 's/.*themis: read .*parallel workers, \(.*\)/\1/p' <<<"$dbg" | head -n 1)"
    done
    med[$mode]="$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
    # the columns as loaded under this setting, read by the GPU, against PostgreSQL's own answer
    chk="SELECT count(*), sum(q), sum(e * d), sum(t), min(sd), max(cd), sum(p), max(k), min(mode), max(instr)
         FROM themis_load_thp WHERE sd >= date '1994-01-01'"
    on="$(q -c "SET themis.fallback = off" -c "$chk" 2>&1)"
    off="$(q -c "SET themis.enabled = off" -c "$chk" 2>&1)"
    if [ "$on" = "$off" ]; then
        echo "shmem_enabled=$mode: a query over the cached columns gives PostgreSQL's answer"
    else
        echo "shmem_enabled=$mode: DIFFERENT answers: themis [$on], PostgreSQL [$off]"
        differ=1
    fi
done
echo "$orig" >"$SYSF" 2>/dev/null
bytes="$(q -c "SELECT sum(bytes) FROM themis.cache WHERE relation::text = 'themis_load_thp'" 2>/dev/null)"
echo
echo "| shmem_enabled | load (median of $RUNS) | rows/s | GB/s |"
echo "|---|---:|---:|---:|"
for mode in never advise; do
    [ -n "${med[$mode]:-}" ] || continue
    awk -v m="$mode" -v ms="${med[$mode]}" -v n="$ROWS" -v b="${bytes:-0}" \
        'BEGIN { s = ms / 1000.0; printf "| %s | %d ms | %.0f | %.2f |\n", m, ms, (s > 0 ? n / s : 0), (s > 0 ? b / s / 1e9 : 0) }'
done
echo "(setting put back to $orig; $bytes bytes cached)"
[ "$KEEP" = 1 ] || q -c "SELECT themis.cache_drop()" -c "DROP TABLE themis_load_thp" >/dev/null
exit "$differ"
