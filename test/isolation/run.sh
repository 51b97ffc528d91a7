#!/bin/bash
# test/isolation/run.sh — the isolation specs of themis (test/isolation/specs/*.spec): concurrent
# sessions racing analytic queries that run in Themis nodes with writers (INSERT / UPDATE / DELETE,
# aborts, TRUNCATE, VACUUM FULL, COPY FROM) and the modification counters of the GPU column cache.
# Expected output (test/isolation/expected/*.out) is PostgreSQL's own answer: the same with
# themis.enabled = off.
#
#   test/isolation/run.sh [SPEC...]     (default: every spec; SPEC is a name without .spec)
#
# pg_isolation_regress (of $PG_CONFIG's PostgreSQL) runs them on a temporary instance (--temp-instance)
# whose configuration is test/themis.conf (themis preloaded), themis.device = cpu, then the file named by
# $THEMIS_ISOLATION_CONF, if set (e.g. one with themis.device = gpu, or themis.enabled = off to check
# the expected output); CREATE EXTENSION themis is run first.  The instance cannot run as root: as root,
# the specs run as the unprivileged user $THEMIS_RUN_USER (default themisrun, created if needed).
# Everything happens in a temporary directory (kept on failure or with KEEP_TMP=1).
#
# Prints regression.diffs on failure and ends with "isolation: N passed, N failed"; exit 1 on failure.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"
ISO="$ROOT/test/isolation"

PGXS_MK="$("$PG_CONFIG" --pgxs 2>/dev/null)" || die "$PG_CONFIG does not work (PG_CONFIG)"
PGXS_DIR="$(cd "$(dirname "$PGXS_MK")/../.." && pwd)"
ISOLATION_REGRESS="$PGXS_DIR/src/test/isolation/pg_isolation_regress"
[ -x "$ISOLATION_REGRESS" ] || die "$ISOLATION_REGRESS not found (postgresql-server-dev-$PGVER)"
[ -x "$PGXS_DIR/src/test/isolation/isolationtester" ] || die "isolationtester not found next to $ISOLATION_REGRESS"
BINDIR="$("$PG_CONFIG" --bindir)"

if [ $# -gt 0 ]; then
    specs=("$@")
else
    specs=()
    for f in "$ISO"/specs/*.spec; do
        [ -e "$f" ] && specs+=("$(basename "$f" .spec)")
    done
fi
[ ${#specs[@]} -gt 0 ] || die "no specs in $ISO/specs"
if [ -n "${THEMIS_ISOLATION_CONF:-}" ] && [ ! -r "$THEMIS_ISOLATION_CONF" ]; then
    die "THEMIS_ISOLATION_CONF=$THEMIS_ISOLATION_CONF cannot be read"
fi

WORK="$(mktemp -d /tmp/themis-isolation.XXXXXX)" || die "mktemp failed"
mkdir -p "$WORK/expected" "$WORK/specs"
cp "$ISO"/specs/*.spec "$WORK/specs/"
cp "$ISO"/expected/*.out "$WORK/expected/" 2>/dev/null
{
    cat "$ROOT/test/themis.conf"
    # the CPU executor unless THEMIS_ISOLATION_CONF says otherwise (themis.device = auto makes no Themis
    # node where no GPU is usable)
    echo "themis.device = cpu"
    if [ -n "${THEMIS_ISOLATION_CONF:-}" ]; then
        echo "# ---- $THEMIS_ISOLATION_CONF"
        cat "$THEMIS_ISOLATION_CONF"
    fi
} >"$WORK/isolation.conf"
if is_root; then
    ensure_run_user
    chmod 755 "$WORK"
    chown -R "$RUN_USER" "$WORK"
fi

log "isolation specs (${#specs[@]}): pg_isolation_regress on a temporary instance${THEMIS_ISOLATION_CONF:+ (+ $THEMIS_ISOLATION_CONF)}"
as_pguser "$WORK" "$ISOLATION_REGRESS" --bindir="$BINDIR" --inputdir="$WORK" --outputdir="$WORK" \
    --temp-instance="$WORK/tmp_check" --temp-config="$WORK/isolation.conf" \
    --no-locale --encoding=UTF8 --load-extension=themis "${specs[@]}" 2>&1 | tee "$WORK/isolation.log"
rc=${PIPESTATUS[0]}

# pg_isolation_regress 15: "test name ... ok 12 ms" / "... FAILED"; 16+: "ok 1 - name" / "not ok 1 - name"
p="$(grep -cE '(\.\.\. ok( |$))|(^ok [0-9]+ )' "$WORK/isolation.log")"
f="$(grep -cE '(\.\.\. (FAILED|failed))|(^not ok [0-9]+ )' "$WORK/isolation.log")"
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
fi
if [ "$rc" -ne 0 ]; then
    if [ -s "$WORK/regression.diffs" ]; then
        echo "======== regression.diffs ========"
        cat "$WORK/regression.diffs"
        echo "=================================="
    else
        echo "pg_isolation_regress failed (exit status $rc); log:"
        for l in "$WORK"/log/*.log "$WORK"/tmp_check/log/*.log; do
            [ -f "$l" ] && { echo "---- $l"; tail -n 50 "$l"; }
        done
    fi
fi
if [ "${KEEP_TMP:-0}" = 1 ] || [ "$rc" -ne 0 ]; then
    echo "(isolation files kept in $WORK)" >&2
else
    rm -rf "$WORK"
fi
echo "isolation: $p passed, $f failed"
[ "$rc" -eq 0 ] && [ "$f" -eq 0 ]
