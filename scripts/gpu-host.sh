#!/bin/bash
# scripts/gpu-host.sh — build and test themis on the GPU host: Ubuntu 24.04 with CUDA 13 and an NVIDIA
# GPU, no package access, no PostgreSQL.  Run as root from the repository root.
#
# PostgreSQL 15 comes from Debian 12 .deb files carried in $PGDEBS (default ./.pgdebs), made beforehand
# on a machine with apt:   bash ../shared/tools/pg-debs.sh "$PWD/.pgdebs"
#                          (cd .pgdebs && apt-get download libicu-dev)   # ICU headers for the build
# They are unpacked into /opt/pgroot by shared/tools/pg-portable.sh (../shared/tools, else ./shared/tools,
# or PG_PORTABLE=path/to/pg-portable.sh); servers run as the unprivileged user pgrun.
#
#   1. pg-portable.sh setup; make (CUDA=yes CUDA_ARCHS=90, warning-free) and make install
#   2. make unittest: engine unit tests and the GPU tests (test/unit/gpu_*.cu)
#   3. pg_regress on a temporary instance with shared_preload_libraries = 'themis' (test/themis.conf)
#   4. themis.gpu_status() from a running server: the GPU must be usable from a backend (one check)
#   5. a short table, then the closing line "N passed, N failed[, N skipped]"; exit 1 on failure
#
# Environment: CUDA_ARCHS (default 90), PGDEBS, PG_PORTABLE.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }
log() { printf '==> %s\n' "$*" >&2; }

[ "$(id -u)" = 0 ] || die "run as root (pg-portable.sh unpacks into /opt/pgroot and creates a user)"

if [ -n "${PG_PORTABLE:-}" ]; then
    PP_SCRIPT="$PG_PORTABLE"
elif [ -f "$ROOT/../shared/tools/pg-portable.sh" ]; then
    PP_SCRIPT="$ROOT/../shared/tools/pg-portable.sh"
elif [ -f "$ROOT/shared/tools/pg-portable.sh" ]; then
    PP_SCRIPT="$ROOT/shared/tools/pg-portable.sh"
elif [ -f "$ROOT/.sharedtools/pg-portable.sh" ]; then
    # the device tool carries the checkout only: copy ../shared/tools to .sharedtools (git-ignored
    # via .git/info/exclude) and name it in carry
    PP_SCRIPT="$ROOT/.sharedtools/pg-portable.sh"
else
    die "pg-portable.sh not found in ../shared/tools or ./shared/tools (or set PG_PORTABLE)"
fi
export PGDEBS="${PGDEBS:-$ROOT/.pgdebs}"
ls "$PGDEBS"/*.deb >/dev/null 2>&1 \
    || die "no .deb files in $PGDEBS: make them on a machine with apt (bash ../shared/tools/pg-debs.sh $PWD/.pgdebs) and bring them along"
pp() { bash "$PP_SCRIPT" "$@"; }

CUDA_ARCHS="${CUDA_ARCHS:-90}"
WORK="$(mktemp -d /tmp/themis-gpu.XXXXXX)"
chmod 755 "$WORK"
passed=0
failed=0
skipped=0
build_state="not run"
unit_line="not run"
regress_state="not run"
status_line="not run"

# ---- 1. PostgreSQL, build, install ----
log "PostgreSQL from $PGDEBS"
pp setup >"$WORK/setup.log" 2>&1 || { cat "$WORK/setup.log"; die "pg-portable.sh setup failed"; }
eval "$(pp env)"
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || die "nvcc not found"
# Debian's PostgreSQL 15 is built with ICU: its server headers include ICU's (package libicu-dev)
if grep -q '^#define USE_ICU 1' "$("$PG_CONFIG" --includedir-server)/pg_config.h" &&
   ! printf '#include <unicode/ucol.h>\n' | gcc -E -x c - -idirafter "$(dirname "$("$PG_CONFIG" --includedir)")" >/dev/null 2>&1; then
    die "ICU headers (unicode/ucol.h) missing: carry libicu-dev too: on a machine with apt, (cd .pgdebs && apt-get download libicu-dev)"
fi

log "building themis (CUDA_ARCHS=$CUDA_ARCHS)"
make PG_CONFIG="$PG_CONFIG" clean >/dev/null 2>&1
pp build "$ROOT" -j"$(nproc)" CUDA=yes CUDA_ARCHS="$CUDA_ARCHS" 2>&1 | tee "$WORK/build.log"
if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    build_state="FAILED"
    failed=$((failed + 1))
elif grep -Eiq 'warning[: #]' "$WORK/build.log"; then
    build_state="ok, WITH WARNINGS"
    grep -Ei -B2 -A3 'warning[: #]' "$WORK/build.log"
    failed=$((failed + 1))
else
    build_state="ok ($(ldd themis.so | grep -Ec 'libcuda|libcudart') CUDA shared-library dependencies)"
fi

if [ "$build_state" != FAILED ]; then
    # ---- 2. unit tests (GPU tests included) ----
    log "unit tests"
    make PG_CONFIG="$PG_CONFIG" CUDA=yes CUDA_ARCHS="$CUDA_ARCHS" unittest 2>&1 | tee "$WORK/unit.log"
    unit_rc=${PIPESTATUS[0]}
    unit_line="$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed' "$WORK/unit.log" | tail -n 1)"
    if [ -n "$unit_line" ]; then
        p="$(sed -E 's/^unit: ([0-9]+) passed.*/\1/' <<<"$unit_line")"
        f="$(sed -E 's/^unit: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$unit_line")"
        s="$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$unit_line")"
        passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + ${s:-0}))
        [ "$unit_rc" -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1))
        unit_line="${unit_line#unit: }"
    else
        unit_line="did not run (exit status $unit_rc)"
        failed=$((failed + 1))
    fi

    # ---- 3. regression tests ----
    if ls sql/*.sql >/dev/null 2>&1; then
        log "regression tests"
        TEMP_CONF="$ROOT/test/themis.conf" pp regress "$ROOT" 2>&1 | tee "$WORK/regress.log"
        regress_rc=${PIPESTATUS[0]}
        rp="$(grep -cE '(\.\.\. ok( |$))|(^ok [0-9]+ )' "$WORK/regress.log")"
        rf="$(grep -cE '(\.\.\. (FAILED|failed))|(^not ok [0-9]+ )' "$WORK/regress.log")"
        [ "$regress_rc" -ne 0 ] && [ "$rf" -eq 0 ] && rf=1
        passed=$((passed + rp)); failed=$((failed + rf))
        regress_state="$rp passed, $rf failed"
    else
        regress_state="no tests"
    fi

    # ---- 4. the GPU as a backend sees it ----
    log "themis.gpu_status() in a running server"
    export PGDATA_DIR="$WORK/data" PGPORT_NUM="${PGPORT_NUM:-54329}"
    if PG_SERVER_OPTS="-c shared_preload_libraries=themis" pp start >"$WORK/start.log" 2>&1; then
        status_line="$(pp psql -At -c 'CREATE EXTENSION themis' \
            -c "SELECT CASE WHEN usable THEN 'usable: ' ELSE 'NOT usable: ' END || detail || ' [' || cuda_build || ', driver CUDA ' || coalesce(driver_version, '-') || ']' FROM themis.gpu_status()" 2>&1 | tail -n 1)"
        pp stop >/dev/null 2>&1
    else
        status_line="server did not start: $(tail -n 3 "$PGDATA_DIR/server.log" 2>/dev/null | tr '\n' ' ')"
    fi
    # one more check: on this host a backend must be able to use the GPU
    case "$status_line" in
        usable:*) passed=$((passed + 1)) ;;
        *) failed=$((failed + 1)) ;;
    esac
fi

# ---- 5. summary ----
gpu_name="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1)"
echo
echo "themis on the GPU host"
printf '  %-18s %s\n' "GPU (nvidia-smi)" "${gpu_name:-none found}"
NVCC_BIN="$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)"
printf '  %-18s %s\n' "nvcc" "$("$NVCC_BIN" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
printf '  %-18s %s\n' "PostgreSQL" "$("$PG_CONFIG" --version 2>/dev/null)"
printf '  %-18s %s\n' "build" "$build_state (CUDA_ARCHS=$CUDA_ARCHS)"
printf '  %-18s %s\n' "unit tests" "$unit_line"
printf '  %-18s %s\n' "regression tests" "$regress_state"
printf '  %-18s %s\n' "gpu_status()" "$status_line"
printf '  %-18s %s\n' "logs" "$WORK"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
