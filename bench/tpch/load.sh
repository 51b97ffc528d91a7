#!/bin/bash
# bench/tpch/load.sh — load dbgen output into PostgreSQL: schema, parallel COPY, keys, indexes,
# VACUUM ANALYZE.
#
#   bench/tpch/load.sh [-j JOBS] DATA_DIR [psql connection options...]
#   e.g. bench/tpch/load.sh -j 4 /tmp/tpch-sf1 -h /tmp/sock -p 5432 -U postgres -d postgres
#
# DATA_DIR holds <table>.<chunk>.tbl files (bench/tpch/dbgen, '|'-delimited COPY text).  Every file
# is one COPY ... FROM STDIN, JOBS of them at a time (default: the number of CPUs), largest first;
# then bench/tpch/keys.sql: primary keys and indexes in parallel, foreign keys one after the other;
# then VACUUM (ANALYZE) of each table, in parallel.  Environment: PSQL (default psql on PATH, or
# $PGBIN/psql).  Prints the time of each phase on stderr; exits non-zero on any error.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JOBS="$(nproc 2>/dev/null || echo 2)"
if [ "${1:-}" = "-j" ]; then JOBS="$2"; shift 2; fi
[ $# -ge 1 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
DATA="$1"; shift
CONN=("$@")
PSQL_BIN="${PSQL:-$(command -v psql 2>/dev/null || echo "${PGBIN:-/usr/lib/postgresql/15/bin}/psql")}"
PSQL_CMD=("$PSQL_BIN" -X -q -v ON_ERROR_STOP=1 "${CONN[@]}")
TABLES=(region nation supplier part partsupp customer orders lineitem)

say() { printf '==> load: %s\n' "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ -d "$DATA" ] || { echo "load.sh: no directory $DATA" >&2; exit 1; }
for t in "${TABLES[@]}"; do
	compgen -G "$DATA/$t.*.tbl" >/dev/null || { echo "load.sh: no $DATA/$t.*.tbl" >&2; exit 1; }
done

# run_parallel FILE: one command a line, JOBS at a time; fails if any fails
run_parallel() {
	local list="$1" rc=0
	# shellcheck disable=SC2016
	xargs -d '\n' -P "$JOBS" -n 1 bash -c 'eval "$0" || exit 255' <"$list" || rc=$?
	return "$rc"
}
q() { printf '%q ' "$@"; }

TMPL="$(mktemp -d /tmp/tpch-load.XXXXXX)"
trap 'rm -rf "$TMPL"' EXIT

t0=$(now)
"${PSQL_CMD[@]}" -f "$HERE/schema.sql"

# ---- COPY, one statement per file, largest first ----
t=$(now)
: >"$TMPL/copy"
while IFS= read -r f; do
	tbl="$(basename "$f")"; tbl="${tbl%%.*}"
	echo "$(q "${PSQL_CMD[@]}") -c $(q "COPY $tbl FROM STDIN WITH (FORMAT text, DELIMITER '|')") < $(q "$f")" >>"$TMPL/copy"
done < <(ls -S "$DATA"/*.tbl)
say "COPY $(wc -l <"$TMPL/copy") files ($(du -sh "$DATA" | cut -f1)), $JOBS at a time"
run_parallel "$TMPL/copy" || { echo "load.sh: COPY failed" >&2; exit 1; }
say "COPY done in $(since "$t") s"

# ---- keys and indexes ----
section() {  # the statements of one section of keys.sql
	awk -v s="-- @$1" '/^-- @/ { on = ($0 == s); next } on && /^[A-Za-z]/ { print }' "$HERE/keys.sql"
}
t=$(now)
: >"$TMPL/pk"
while IFS= read -r stmt; do
	echo "$(q "${PSQL_CMD[@]}") -c $(q "SET maintenance_work_mem = '1GB'; $stmt")" >>"$TMPL/pk"
done < <(section pk; section index)
run_parallel "$TMPL/pk" || { echo "load.sh: primary keys or indexes failed" >&2; exit 1; }
say "primary keys and indexes in $(since "$t") s"
t=$(now)
section fk | "${PSQL_CMD[@]}" -c "SET maintenance_work_mem = '1GB'" -f -
say "foreign keys in $(since "$t") s"

# ---- VACUUM (ANALYZE) ----
t=$(now)
: >"$TMPL/vac"
for tb in "${TABLES[@]}"; do
	echo "$(q "${PSQL_CMD[@]}") -c $(q "VACUUM (ANALYZE) $tb")" >>"$TMPL/vac"
done
run_parallel "$TMPL/vac" || { echo "load.sh: VACUUM failed" >&2; exit 1; }
say "VACUUM ANALYZE in $(since "$t") s"
say "loaded in $(since "$t0") s: $("${PSQL_CMD[@]}" -At -c "SELECT string_agg(relname || ' ' || reltuples::bigint, ', ' ORDER BY relname) FROM pg_class WHERE relkind = 'r' AND relname IN ('region','nation','supplier','part','partsupp','customer','orders','lineitem') AND relnamespace = current_schema()::regnamespace")"
