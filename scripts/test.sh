#!/bin/bash
# scripts/test.sh — build themis and run all its tests; run from anywhere, as root or as a user with sudo.
#
#   1. install missing packages (postgresql-15, postgresql-server-dev-15, build-essential; apt)
#   2. make clean; make (fails if the compilers print any warning); make install
#   3. make unittest (engine unit tests; GPU tests only where a GPU is usable)
#   4. pg_regress (make installcheck) on a temporary instance preloading themis; as root, it runs as the
#      unprivileged user $THEMIS_RUN_USER (default themisrun) on a copy of the tree
#   5. test/isolation/run.sh: the isolation specs (test/isolation/specs/*.spec, concurrent sessions) with
#      pg_isolation_regress on a temporary instance preloading themis (one test per spec); as root, they
#      run as $THEMIS_RUN_USER too
#   6. the GPU daemon: test/gpud/proto.py (its socket protocol: versions, malformed messages, exit) and
#      test/gpud/faults.sh (kill -9 during queries, restart, the postmaster untouched; GPU-only checks are
#      reported as skipped where no GPU is usable)
#   7. bench/tpch/check.sh: TPC-H at SF 0.01 generated, loaded, the 22 queries with themis off vs on
#      (one test per query: identical results)
#   7b. test/load/run.sh for 20 s: analytic clients and writers at once, every answer checked against an
#      invariant, memory sampled (one test per check)
#   8. test/fuzz/fuzz.py --seed 1 --queries 200: random schemas, data and queries, themis off vs on
#      (one test per query; mismatches are shrunk into test/fuzz/repro/)
#   9. closing line: "N passed, N failed[, N skipped]" (unit checks + regression tests + isolation
#      specs + daemon checks + TPC-H queries + fuzz queries); exit 1 on failure
#
# Environment: CUDA=no for a CPU-only build; MAKE_ARGS (more make arguments, e.g. CUDA_ARCHS=90);
# KEEP_TMP=1 keeps the regression copy.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/common.sh
. "$ROOT/scripts/common.sh"
cd "$ROOT" || exit 1

MAKE_ARGS="${MAKE_ARGS:-}"
[ -n "${CUDA:-}" ] && MAKE_ARGS="$MAKE_ARGS CUDA=$CUDA"
JOBS="$(nproc 2>/dev/null || echo 2)"

passed=0
failed=0
skipped=0
WORK="$(mktemp -d /tmp/themis-test.XXXXXX)" || die "mktemp failed"
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    if [ "${KEEP_TMP:-0}" = 1 ] || [ "$failed" -gt 0 ]; then
        echo "(test files kept in $WORK)" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

finish() {
    if [ "$skipped" -gt 0 ]; then
        echo "$passed passed, $failed failed, $skipped skipped"
    else
        echo "$passed passed, $failed failed"
    fi
    [ "$failed" -eq 0 ] && exit 0
    exit 1
}

# ---- 1. packages ----
ensure_packages || die "package installation failed"
ensure_run_user

# ---- 2. build (warning-free) and install ----
log "building themis ($PG_CONFIG, $($PG_CONFIG --version))"
# shellcheck disable=SC2086
pgmake clean $MAKE_ARGS >/dev/null 2>&1
# shellcheck disable=SC2086
pgmake -j"$JOBS" $MAKE_ARGS 2>&1 | tee "$WORK/build.log"
build_rc=${PIPESTATUS[0]}
if [ "$build_rc" -ne 0 ]; then
    echo "BUILD FAILED (make exit status $build_rc)"
    failed=$((failed + 1))
    finish
fi
if grep -Eiq 'warning[: #]' "$WORK/build.log"; then
    echo "BUILD HAS WARNINGS (the build must be warning-free):"
    grep -Ei -B2 -A3 'warning[: #]' "$WORK/build.log"
    failed=$((failed + 1))
    finish
fi
log "installing"
# shellcheck disable=SC2086
if ! as_root make PG_CONFIG="$PG_CONFIG" $MAKE_ARGS install >"$WORK/install.log" 2>&1; then
    cat "$WORK/install.log"
    echo "INSTALL FAILED"
    failed=$((failed + 1))
    finish
fi

# ---- 3. unit tests ----
log "unit tests"
# shellcheck disable=SC2086
pgmake $MAKE_ARGS unittest 2>&1 | tee "$WORK/unit.log"
unit_rc=${PIPESTATUS[0]}
unit_line="$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed' "$WORK/unit.log" | tail -n 1)"
if [ -n "$unit_line" ]; then
    p="$(sed -E 's/^unit: ([0-9]+) passed.*/\1/' <<<"$unit_line")"
    f="$(sed -E 's/^unit: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$unit_line")"
    s="$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$unit_line")"
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + ${s:-0}))
    [ "$unit_rc" -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1))
else
    echo "unit tests did not run (make unittest exit status $unit_rc)"
    failed=$((failed + 1))
fi

# ---- 4. regression tests ----
shopt -s nullglob
sqlfiles=(sql/*.sql)
shopt -u nullglob
if [ ${#sqlfiles[@]} -eq 0 ]; then
    log "no regression tests (sql/*.sql)"
else
    log "regression tests (${#sqlfiles[@]}): pg_regress on a temporary instance"
    if is_root; then
        # the temporary instance cannot run as root: a copy of the tree owned by the unprivileged user
        RDIR="$WORK/regress"
        mkdir -p "$RDIR"
        tar -C "$ROOT" --exclude=./.git --exclude=./.pgdebs --exclude='*.o' --exclude='*.so' \
            --exclude=./test/unit/bin --exclude=./results --exclude=./tmp_check -cf - . | tar -C "$RDIR" -xf -
        chmod 755 "$WORK"
        chown -R "$RUN_USER" "$RDIR"
    else
        RDIR="$ROOT"
    fi
    # shellcheck disable=SC2086
    as_pguser "$RDIR" make PG_CONFIG="$PG_CONFIG" $MAKE_ARGS installcheck 2>&1 | tee "$WORK/regress.log"
    regress_rc=${PIPESTATUS[0]}
    # pg_regress 15: "test name ... ok 12 ms" / "... FAILED" / "... failed (ignored)"; 16+: "ok 1 - name"
    rp="$(grep -cE '(\.\.\. ok( |$))|(^ok [0-9]+ )' "$WORK/regress.log")"
    rf="$(grep -cE '(\.\.\. (FAILED|failed))|(^not ok [0-9]+ )' "$WORK/regress.log")"
    passed=$((passed + rp))
    failed=$((failed + rf))
    if [ "$regress_rc" -ne 0 ]; then
        [ "$rf" -eq 0 ] && failed=$((failed + 1))
        if [ -s "$RDIR/regression.diffs" ]; then
            echo "======== regression.diffs ========"
            cat "$RDIR/regression.diffs"
            echo "=================================="
        else
            echo "pg_regress failed (exit status $regress_rc); log:"
            for l in "$RDIR"/log/*.log "$RDIR"/tmp_check/log/*.log; do
                [ -f "$l" ] && { echo "---- $l"; tail -n 50 "$l"; }
            done
        fi
    fi
fi

# ---- 5. isolation specs: concurrent sessions (one test a spec) ----
log "isolation specs: test/isolation/run.sh"
PG_CONFIG="$PG_CONFIG" bash "$ROOT/test/isolation/run.sh" 2>&1 | tee "$WORK/isolation.log"
iso_rc=${PIPESTATUS[0]}
iso_line="$(grep -E '^isolation: [0-9]+ passed, [0-9]+ failed' "$WORK/isolation.log" | tail -n 1)"
if [ -n "$iso_line" ]; then
    p="$(sed -E 's/^isolation: ([0-9]+) passed.*/\1/' <<<"$iso_line")"
    f="$(sed -E 's/^isolation: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$iso_line")"
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$iso_rc" -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1))
else
    echo "isolation specs did not run (test/isolation/run.sh exit status $iso_rc)"
    failed=$((failed + 1))
fi

# ---- 6. the GPU daemon: protocol and faults (one test a check) ----
count_line() {   # $1 = log file: adds its "N passed, N failed[, N skipped]" line to the totals
    local line p f s
    line="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)"
    if [ -z "$line" ]; then
        echo "no summary line in $1"
        failed=$((failed + 1))
        return
    fi
    p="$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")"
    f="$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")"
    s="$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$line")"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${s:-0}))
}
log "GPU daemon protocol: test/gpud/proto.py"
python3 "$ROOT/test/gpud/proto.py" "$ROOT/themis-gpud" 2>&1 | tee "$WORK/proto.log"
count_line "$WORK/proto.log"
if [ -x "$ROOT/themis-gpud" ]; then
    log "GPU daemon faults: test/gpud/faults.sh"
    PGBIN="$PGBIN" THEMIS_RUN_USER="$RUN_USER" bash "$ROOT/test/gpud/faults.sh" 2>&1 | tee "$WORK/faults.log"
    count_line "$WORK/faults.log"
else
    echo "skip - test/gpud/faults.sh: themis-gpud not built (CUDA=no)"
    skipped=$((skipped + 1))
fi

# ---- 7. TPC-H at SF 0.01: generator + loader + the 22 queries, themis off vs on (one test a query) ----
log "TPC-H check: bench/tpch/check.sh (SF 0.01)"
bash "$ROOT/bench/tpch/check.sh" 2>&1 | tee "$WORK/tpch.log"
tpch_rc=${PIPESTATUS[0]}
tpch_line="$(grep -E '^tpch: [0-9]+ passed, [0-9]+ failed' "$WORK/tpch.log" | tail -n 1)"
if [ -n "$tpch_line" ]; then
    p="$(sed -E 's/^tpch: ([0-9]+) passed.*/\1/' <<<"$tpch_line")"
    f="$(sed -E 's/^tpch: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$tpch_line")"
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$tpch_rc" -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1))
else
    echo "TPC-H check did not run (bench/tpch/check.sh exit status $tpch_rc)"
    failed=$((failed + 1))
fi

# ---- 7b. a short load test: analytic clients and writers at once, answers checked (one test a check) ----
log "load test: test/load/run.sh --seconds 20 --clients 4 --writers 2 --rows 50000"
PGBIN="$PGBIN" THEMIS_RUN_USER="$RUN_USER" bash "$ROOT/test/load/run.sh" --seconds 20 --clients 4 --writers 2 \
    --rows 50000 2>&1 | tee "$WORK/load.log"
count_line "$WORK/load.log"

# ---- 8. differential fuzzing, short and seeded (one test a query) ----
log "differential fuzz: test/fuzz/fuzz.py --seed 1 --queries 200"
python3 "$ROOT/test/fuzz/fuzz.py" --seed 1 --queries 200 2>&1 | tee "$WORK/fuzz.log"
fuzz_rc=${PIPESTATUS[0]}
fuzz_line="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$WORK/fuzz.log" | tail -n 1)"
if [ -n "$fuzz_line" ]; then
    p="$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$fuzz_line")"
    f="$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$fuzz_line")"
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$fuzz_rc" -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1))
else
    echo "fuzz run did not complete (test/fuzz/fuzz.py exit status $fuzz_rc)"
    failed=$((failed + 1))
fi

finish
