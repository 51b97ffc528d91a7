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
#   3. pg_regress on a temporary instance with shared_preload_libraries = 'themis' (test/themis.conf),
#      twice: themis.device = auto and themis.device = gpu, against the same expected files
#   4. test/gpud/faults.sh: kill -9 of the daemon during queries, injected faults, out of device memory,
#      the column cache (FAULTS_SETTINGS="a = 1; b = on": with those server settings)
#   5. test/isolation/run.sh with themis.device = gpu: concurrent writers against cached reads
#   6. themis.gpu_status() from a running server: the GPU must be usable from a backend (one check)
#   7. a short table, then the closing line "N passed, N failed[, N skipped]"; exit 1 on failure
#
#   (fuzz) with STEPS containing "fuzz": test/fuzz/long.sh --device gpu for FUZZ_MINUTES (default 4),
#      FUZZ_JOBS processes (default 8); mismatches' reproducers land in test/fuzz/repro/; FUZZ_ARGS: more
#      fuzz.py options (e.g. "--conf themis.load_balance=nifs_aws"); "fuzz_bg" starts it detached (FUZZ_OUT
#      default /tmp/themis-fuzz, FUZZ_SEED the first seed) and returns, "fuzz_wait" in a later call waits
#   (load) with STEPS containing "load": test/load/run.sh --device gpu for LOAD_MINUTES (default 10) with
#      LOAD_CLIENTS analytic clients (default 32) and 4 writers, into LOAD_OUT (default $WORK/load);
#      a device call is at most 10 minutes: "load_bg" starts it detached (LOAD_OUT default /tmp/themis-load)
#      and returns, "load_wait" in the next call (KEEP_BUILD=1, the machine still warm) waits for its end
#   (pjoin) with STEPS containing "pjoin": make pjointest and bench/join/run.sh (PJOIN_ARGS), issue 8
#   (bench) with STEPS containing "bench": bench/run.sh at BENCH_SF (default 10) for BENCH_QUERIES
#      (default 1,3,6,12,14), themis off / on, cold (GPU column cache dropped) and warm, into BENCH_OUT
#      (default $WORK/bench); its summary line goes into the table.  BENCH_DATA=DIR keeps the generated
#      files there for a later call (--data DIR --keep-data); BENCH_DUCKDB=PATH|auto runs DuckDB too;
#      BENCH_ARGS: more bench/run.sh options (e.g. "--set themis.load_balance=nifs_aws"); BENCH_TRACE=1:
#      the daemon's per-step timings (THEMIS_GPU_TRACE) into BENCH_OUT/trace.log.  A run longer than one
#      device call: "bench_bg" starts it detached (from a copy of bench/ and scripts/; BENCH_OUT default
#      /tmp/themis-bench-out) and returns, "bench_wait" in a later call waits at most BENCH_WAIT_S (560);
#      BENCH_SKEW_TOO=1: the detached job then runs the skewed data too, into $BENCH_OUT-skew; BENCH_TRACE=1
#      there too (each run's trace.log); BENCH_TGZ=$OUT/bench.tgz: after "bench" or "bench_wait", BENCH_OUT,
#      its -skew twin and its log in one archive (a device call brings back a limited number of files).
#      A machine is held at most 30 minutes from its start: tests, the 22 queries uniform and skewed with
#      DuckDB take about 25 of them, so the calls after bench_bg should be bench_wait and nothing else;
#      a machine left 30 s without a call is handed back and the detached job dies with it, so follow
#      bench_bg with bench_wait in the same call (STEPS=bench_bg ...; STEPS=bench_wait ... BENCH_WAIT_S=$((560 - SECONDS)))
#      or at once in the next
#
#   (regress_nifs, regress_nifs_aws) the regression tests on the GPU with themis.load_balance = nifs / nifs_aws
#   (regress_extra) the regression tests on the GPU with the settings of REGRESS_SETTINGS ("a = 1; b = on")
#   (regress_join_partitioned, regress_join_partitioned_gfur, regress_join_pipelined) the same with
#      themis.join_algorithm forced to that value (issue 8)
#   (jit) bench/bin/constshape (bench/jit/constshape.cu): Q1's aggregate arithmetic through the generic
#      kernel's interpreter against a kernel written for it and compiled by NVRTC at run time, JIT_ROWS rows
#      (default 60 M); its ratio and NVRTC's compile time go into the table
#   (xover) bench/join/bin/xover: where the partitioned join overtakes the probe in the kernel, through the
#      executor (the threshold of themis.join_algorithm = auto); XOVER_ARGS, XOVER_TIMEOUT (240 s)
#   (loadthp) bench/load_thp.sh in a server of its own (16 worker processes, 12 parallel): themis.cache_table()
#      of a generated table with /sys/kernel/mm/transparent_hugepage/shmem_enabled never, then advise (the
#      setting is put back); LOADTHP_ARGS: its options (e.g. "--rows 20000000 --writers 16")
#   (profile) Nsight Compute (ncu) on the daemon's kernels: bench/run.sh at PROFILE_SF (default 1) for
#      PROFILE_QUERIES (default 1), one warm run, themis off skipped, with themis.gpud_path set to a wrapper
#      that starts themis-gpud under ncu (--clock-control none, the hardware counters of the first
#      PROFILE_LAUNCHES (default 3) launches of kernels matching PROFILE_KERNEL (default pipeline_kernel),
#      PROFILE_SET (default full), then the daemon is killed and restarted without ncu).  Into PROFILE_OUT
#      (default $WORK/profile): the report (prof.ncu-rep), its details page (details.txt) and the source
#      page of its longest launches with SASS and CUDA lines (source-N.sass.csv, source-N.cuda-sass.csv;
#      PROFILE_SOURCE: the views, default "sass cuda,sass"; build with NVCCFLAGS="-O3 -lineinfo"), and of the cuda,sass
#      view the functions and lines with the most instructions (summary-N.md, bench/lib/ncu_source.py);
#      PROFILE_ARGS: more bench/run.sh options (e.g. "--skew" for the skewed data); PROFILE_SKIP: matching
#      launches to let pass first (ncu --launch-skip: those of the cold run, say); the durations of the
#      launches profiled in launches.tsv, and the source pages only for the PROFILE_SOURCE_TOP (default 2)
#      longest (a launch's cuda,sass page is over 100 MB and takes minutes to write)
#
# Environment: CUDA_ARCHS (default 90), PGDEBS, PG_PORTABLE, KEEP_BUILD=1 (no make clean first), PREBUILT=DIR
# (install DIR/themis.so.xz and DIR/themis-gpud.xz, built elsewhere, instead of building); STEPS (default
# "unit regress regress_gpu faults isolation status": the build always runs; one 10-minute device
# call holds the tests, the benchmark goes in a second one: STEPS=bench).
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
STEPS=" ${STEPS:-unit regress regress_gpu faults isolation status} "
want() { [[ "$STEPS" == *" $1 "* ]]; }
# wait_pidfile FILE SECONDS: until the process whose pid FILE holds (a step started detached) has ended
wait_pidfile() {
    local i
    for ((i = 0; i < $2; i += 5)); do
        kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null || return 0
        sleep 5
    done
}
WORK="$(mktemp -d /tmp/themis-gpu.XXXXXX)"
chmod 755 "$WORK"
passed=0
failed=0
skipped=0
build_state="not run"
unit_line="not run"
regress_state="not run"
regress_gpu_state="not run"
bench_state="not run"
fuzz_state="not run"
pjoin_state="not run"
xover_state="not run"
jit_state="not run"
profile_state="not run"
load_state="not run"
faults_state="not run"
isolation_state="not run"
status_line="not run"
loadthp_state="not run"

# a detached fuzz / load / bench run of an earlier call still going: leave the installed build alone
# (install rewrites themis.so in place, under the running backends that have it mapped), and the
# PostgreSQL install too (setup recreates its library links: a psql started meanwhile finds no libpq,
# which failed a skewed benchmark's load); this call uses them
bg_alive=""
for f in "${FUZZ_OUT:-/tmp/themis-fuzz}/pid" "${LOAD_OUT:-/tmp/themis-load}/pid" "${BENCH_OUT:-/tmp/themis-bench-out}.pid"; do
    kill -0 "$(cat "$f" 2>/dev/null)" 2>/dev/null && bg_alive="$f"
done

# ---- 1. PostgreSQL, build, install ----
if [ -n "$bg_alive" ] && [ -x "${PGROOT:-/opt/pgroot}/usr/lib/postgresql/15/bin/psql" ]; then
    log "PostgreSQL: set up already (not again: the detached run of $bg_alive uses it)"
else
    log "PostgreSQL from $PGDEBS"
    pp setup >"$WORK/setup.log" 2>&1 || { cat "$WORK/setup.log"; die "pg-portable.sh setup failed"; }
fi
eval "$(pp env)"
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || die "nvcc not found"
# Debian's PostgreSQL 15 is built with ICU: its server headers include ICU's (package libicu-dev)
if grep -q '^#define USE_ICU 1' "$("$PG_CONFIG" --includedir-server)/pg_config.h" &&
   ! printf '#include <unicode/ucol.h>\n' | gcc -E -x c - -idirafter "$(dirname "$("$PG_CONFIG" --includedir)")" >/dev/null 2>&1; then
    die "ICU headers (unicode/ucol.h) missing: carry libicu-dev too: on a machine with apt, (cd .pgdebs && apt-get download libicu-dev)"
fi

if [ -n "$bg_alive" ]; then
    build_state="not rebuilt: the detached run of $bg_alive uses the installed build"
    log "$build_state"
elif [ -n "${PREBUILT:-}" ]; then
    # binaries built on another machine (make themis.so themis-gpud there: sm_90 among CUDA_ARCHS, the same
    # PostgreSQL major), xz'd into PREBUILT: installed as make install would, nothing compiled here
    # (a device call whose time is short)
    log "installing themis.so and themis-gpud from $PREBUILT (not built here)"
    if xz -dc "$PREBUILT/themis.so.xz" >themis.so && xz -dc "$PREBUILT/themis-gpud.xz" >themis-gpud &&
        chmod 755 themis.so themis-gpud &&
        install -m 755 themis.so "$("$PG_CONFIG" --pkglibdir)/themis.so" &&
        install -m 755 themis-gpud "$("$PG_CONFIG" --bindir)/themis-gpud" &&
        install -m 644 themis.control themis--*.sql "$("$PG_CONFIG" --sharedir)/extension/"; then
        build_state="prebuilt, installed from $PREBUILT"
    else
        build_state="FAILED"
        failed=$((failed + 1))
    fi
else
    log "building themis (CUDA_ARCHS=$CUDA_ARCHS)"
    [ "${KEEP_BUILD:-0}" = 1 ] || make PG_CONFIG="$PG_CONFIG" clean >/dev/null 2>&1
    pp build "$ROOT" -j"$(nproc)" CUDA=yes CUDA_ARCHS="$CUDA_ARCHS" 2>&1 | tee "$WORK/build.log"
    if [ "${PIPESTATUS[0]}" -ne 0 ]; then
        build_state="FAILED"
        failed=$((failed + 1))
    elif grep -Eiq 'warning[: #]' "$WORK/build.log"; then
        build_state="ok, WITH WARNINGS"
        grep -Ei -B2 -A3 'warning[: #]' "$WORK/build.log"
        failed=$((failed + 1))
    else
        build_state="ok (themis.so: $(ldd themis.so | grep -Ec 'libcuda|libcudart') CUDA libraries; themis-gpud: $(ldd themis-gpud 2>/dev/null | grep -Ec 'libcuda|libcudart') CUDA shared libraries, cudart static)"
    fi
fi
if [ "$build_state" != FAILED ]; then
    # a fuzz run longer than one device call: fuzz_bg starts it detached from a copy of test/fuzz (the
    # tree is copied afresh each call; its reproducers land in FUZZ_OUT/src/repro), fuzz_wait (in a
    # later call on the same warm machine, KEEP_BUILD=1) waits at most FUZZ_WAIT_S for its end.  It starts
    # first, so the steps after it run beside it: the fuzz clusters use their own ports and a share of the GPU
    PGBIN_P="$(dirname "$PG_CONFIG")"
    if want fuzz_bg; then
        FUZZ_OUT="${FUZZ_OUT:-/tmp/themis-fuzz}"
        rm -rf "$FUZZ_OUT"; mkdir -p "$FUZZ_OUT"; chmod 755 "$FUZZ_OUT"
        cp -r test/fuzz "$FUZZ_OUT/src"
        log "test/fuzz/long.sh --minutes ${FUZZ_MINUTES:-4} --jobs ${FUZZ_JOBS:-8} --device gpu, detached, into $FUZZ_OUT"
        PGBIN="$PGBIN_P" setsid nohup bash "$FUZZ_OUT/src/long.sh" --minutes "${FUZZ_MINUTES:-4}" --device gpu \
            --jobs "${FUZZ_JOBS:-8}" --first-seed "${FUZZ_SEED:-1000}" --out "$FUZZ_OUT/run" ${FUZZ_ARGS:+-- $FUZZ_ARGS} \
            >"$FUZZ_OUT/run.out" 2>&1 </dev/null &
        echo $! >"$FUZZ_OUT/pid"
        fuzz_state="started in the background (pid $(cat "$FUZZ_OUT/pid")): STEPS=fuzz_wait in a later call"
    fi
    # ---- 2. unit tests (GPU tests included) ----
    if want unit; then
    log "unit tests"
    # the test binaries build in parallel; run.sh runs them one after the other
    # UNIT_GPU_TESTS="gpu_pipeline gpu_expr": only those GPU test binaries, and none of the CPU ones (a
    # 10-minute device call holds a part of them beside other steps)
    unit_args=()
    [ -n "${UNIT_GPU_TESTS:-}" ] &&
        unit_args=(UNIT_BINS= "GPU_UNIT_BINS=$(printf 'test/unit/bin/%s ' $UNIT_GPU_TESTS)" GPU_UNBUILT=)
    make -j"$(nproc)" PG_CONFIG="$PG_CONFIG" CUDA=yes CUDA_ARCHS="$CUDA_ARCHS" "${unit_args[@]}" unittest 2>&1 | tee "$WORK/unit.log"
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
    fi

    # ---- 3. regression tests: device auto, then device gpu, same expected files ----
    run_regress() {   # $1 = label, $2 = conf file; sets REG_STATE
        local label="$1" conf="$2" rp rf rc
        log "regression tests ($label)"
        TEMP_CONF="$conf" pp regress "$ROOT" 2>&1 | tee "$WORK/regress-$label.log"
        rc=${PIPESTATUS[0]}
        rp="$(grep -cE '(\.\.\. ok( |$))|(^ok [0-9]+ )' "$WORK/regress-$label.log")"
        rf="$(grep -cE '(\.\.\. (FAILED|failed))|(^not ok [0-9]+ )' "$WORK/regress-$label.log")"
        [ "$rc" -ne 0 ] && [ "$rf" -eq 0 ] && rf=1
        [ "$rf" -gt 0 ] && [ -f "$ROOT/regression.diffs" ] && cp "$ROOT/regression.diffs" "$WORK/regression-$label.diffs" \
            && head -n 200 "$ROOT/regression.diffs"
        passed=$((passed + rp)); failed=$((failed + rf))
        REG_STATE="$rp passed, $rf failed"
    }
    if want regress; then
        run_regress auto "$ROOT/test/themis.conf"
        regress_state="$REG_STATE"
    fi
    if want regress_gpu; then
        # tt.device: the device the test helpers (sql/00_setup.sql, tt.check & co.) run their themis-on
        # side with (they force cpu otherwise)
        { cat "$ROOT/test/themis.conf"; echo "themis.device = gpu"; echo "tt.device = 'gpu'"; } >"$WORK/gpu.conf"
        run_regress gpu "$WORK/gpu.conf"
        regress_gpu_state="$REG_STATE"
    fi
    # the Themis scheduler (issue 4): the same suite with themis.load_balance = nifs / nifs_aws
    for lb in nifs nifs_aws; do
        if want "regress_$lb"; then
            { cat "$ROOT/test/themis.conf"; echo "themis.device = gpu"; echo "tt.device = 'gpu'";
              echo "themis.load_balance = $lb"; } >"$WORK/gpu-$lb.conf"
            run_regress "gpu-$lb" "$WORK/gpu-$lb.conf"
            regress_gpu_state="$regress_gpu_state; $lb: $REG_STATE"
        fi
    done

    # the same suite on the GPU with more settings: REGRESS_SETTINGS="name = value; name = value"
    if want regress_extra; then
        { cat "$ROOT/test/themis.conf"; echo "themis.device = gpu"; echo "tt.device = 'gpu'";
          tr ';' '\n' <<<"${REGRESS_SETTINGS:-}"; } >"$WORK/gpu-extra.conf"
        run_regress gpu-extra "$WORK/gpu-extra.conf"
        regress_gpu_state="$regress_gpu_state; with ${REGRESS_SETTINGS:-nothing}: $REG_STATE"
    fi

    # the partitioned join (issue 8): the same suite with themis.join_algorithm forced to each value
    for ja in partitioned partitioned_gfur pipelined; do
        if want "regress_join_$ja"; then
            { cat "$ROOT/test/themis.conf"; echo "themis.device = gpu"; echo "tt.device = 'gpu'";
              echo "themis.join_algorithm = $ja"; } >"$WORK/gpu-join-$ja.conf"
            run_regress "gpu-join-$ja" "$WORK/gpu-join-$ja.conf"
            regress_gpu_state="$regress_gpu_state; join_algorithm=$ja: $REG_STATE"
        fi
    done

    # ---- 4. faults ----
    eval "$(pp env)"
    PGBIN_P="$(dirname "$PG_CONFIG")"
    if want faults; then
        log "test/gpud/faults.sh"
        PGBIN="$PGBIN_P" THEMIS_RUN_USER=pgrun FAULTS_SETTINGS="${FAULTS_SETTINGS:-}" bash test/gpud/faults.sh 2>&1 | tee "$WORK/faults.log"
        fl="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$WORK/faults.log" | tail -n 1)"
        fp="$(sed -nE 's/^([0-9]+) passed.*/\1/p' <<<"$fl")"; ff="$(sed -nE 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/p' <<<"$fl")"
        fs="$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$fl")"
        passed=$((passed + ${fp:-0})); failed=$((failed + ${ff:-1})); skipped=$((skipped + ${fs:-0}))
        faults_state="${fl:-did not run}"
    fi

    # ---- 5. isolation specs with the GPU ----
    if want isolation && [ -f test/isolation/run.sh ]; then
        log "isolation specs (themis.device = gpu)"
        printf 'themis.device = gpu\n' >"$WORK/iso-gpu.conf"
        PGBIN="$PGBIN_P" THEMIS_RUN_USER=pgrun THEMIS_ISOLATION_CONF="$WORK/iso-gpu.conf" \
            bash test/isolation/run.sh 2>&1 | tee "$WORK/isolation.log"
        il="$(grep -E '^isolation: [0-9]+ passed, [0-9]+ failed' "$WORK/isolation.log" | tail -n 1)"
        il="${il#isolation: }"
        ip="$(sed -nE 's/^([0-9]+) passed.*/\1/p' <<<"$il")"; if_="$(sed -nE 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/p' <<<"$il")"
        passed=$((passed + ${ip:-0})); failed=$((failed + ${if_:-1}))
        isolation_state="${il:-did not run}"
    fi

    # ---- differential fuzzing on the GPU ----
    # fuzz_summary OUT LOG REPRODIR: why queries fell back (a GPU fuzz run should see few), and the
    # reproducers in one file (the device tool brings back a limited number of files, and the tree is
    # copied afresh each call); sets fuzz_state and counts a failure for a mismatch or a run that did not end
    fuzz_summary() {
        local fl
        fl="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1)"
        fuzz_state="${fl:-did not finish}"
        python3 - "$1" <<'PY' 2>/dev/null | tee -a "$2"
import collections, glob, json, sys
fb, n = collections.Counter(), 0
for f in glob.glob(sys.argv[1] + "/job*.json"):
    j = json.load(open(f))
    n += j.get("passed", 0) + j.get("failed", 0)
    fb.update(j.get("fallback", {}))
print("fallbacks: %d of %d queries" % (sum(fb.values()), n))
for k, v in fb.most_common(5):
    print("  %6d  %s" % (v, k))
PY
        tar czf "$WORK/fuzz-repro.tgz" -C "$(dirname "$3")" "$(basename "$3")" 2>/dev/null &&
            echo "reproducers: $WORK/fuzz-repro.tgz" | tee -a "$2"
        [ -n "$fl" ] && [ "$(sed -nE 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/p' <<<"$fl")" != 0 ] && failed=$((failed + 1))
        [ -z "$fl" ] && failed=$((failed + 1))
    }
    if want fuzz; then
        log "test/fuzz/long.sh --minutes ${FUZZ_MINUTES:-4} --device gpu"
        bash test/fuzz/long.sh --minutes "${FUZZ_MINUTES:-4}" --device gpu --jobs "${FUZZ_JOBS:-8}" \
            --out "${FUZZ_OUT:-$WORK/fuzz}" ${FUZZ_ARGS:+-- $FUZZ_ARGS} 2>&1 | tee "$WORK/fuzz.log" | tail -n 25
        fuzz_summary "${FUZZ_OUT:-$WORK/fuzz}" "$WORK/fuzz.log" test/fuzz/repro
    fi
    if want fuzz_wait; then
        FUZZ_OUT="${FUZZ_OUT:-/tmp/themis-fuzz}"
        log "waiting for the fuzz run in $FUZZ_OUT (at most ${FUZZ_WAIT_S:-560} s)"
        wait_pidfile "$FUZZ_OUT/pid" "${FUZZ_WAIT_S:-560}"
        tail -n 25 "$FUZZ_OUT/run.out" 2>/dev/null | tee "$WORK/fuzz.log"
        fuzz_summary "$FUZZ_OUT/run" "$WORK/fuzz.log" "$FUZZ_OUT/src/repro"
    fi

    # ---- load test (issue 7): concurrent analytic clients and writers on the GPU ----
    if want load; then
        log "test/load/run.sh --minutes ${LOAD_MINUTES:-10} --device gpu"
        PGBIN="$PGBIN_P" THEMIS_RUN_USER=pgrun bash test/load/run.sh --minutes "${LOAD_MINUTES:-10}" --device gpu \
            --clients "${LOAD_CLIENTS:-32}" --out "${LOAD_OUT:-$WORK/load}" 2>&1 | tee "$WORK/load.log" | tail -n 20
        ll="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$WORK/load.log" | tail -n 1)"
        load_state="${ll:-did not finish}"
        lp="$(sed -nE 's/^([0-9]+) passed.*/\1/p' <<<"$ll")"; lf="$(sed -nE 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/p' <<<"$ll")"
        passed=$((passed + ${lp:-0})); failed=$((failed + ${lf:-1}))
    fi

    # a load test longer than one device call (10 minutes): load_bg starts it detached (it outlives the
    # call; the machine stays warm between calls), load_wait, in the next call (KEEP_BUILD=1), waits for it
    if want load_bg; then
        LOAD_OUT="${LOAD_OUT:-/tmp/themis-load}"
        rm -rf "$LOAD_OUT"; mkdir -p "$LOAD_OUT"
        log "test/load/run.sh --minutes ${LOAD_MINUTES:-10} --device gpu, detached, into $LOAD_OUT"
        PGBIN="$PGBIN_P" THEMIS_RUN_USER=pgrun setsid nohup bash test/load/run.sh --minutes "${LOAD_MINUTES:-10}" \
            --device gpu --clients "${LOAD_CLIENTS:-32}" --out "$LOAD_OUT" >"$LOAD_OUT/run.out" 2>&1 </dev/null &
        echo $! >"$LOAD_OUT/pid"
        load_state="started in the background (pid $(cat "$LOAD_OUT/pid")): STEPS=load_wait in the next call"
    fi
    if want load_wait; then
        LOAD_OUT="${LOAD_OUT:-/tmp/themis-load}"
        log "waiting for the load test in $LOAD_OUT (at most ${LOAD_WAIT_S:-560} s)"
        wait_pidfile "$LOAD_OUT/pid" "${LOAD_WAIT_S:-560}"
        tail -n 20 "$LOAD_OUT/run.out" 2>/dev/null
        ll="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOAD_OUT/run.out" 2>/dev/null | tail -n 1)"
        load_state="${ll:-did not finish (see $LOAD_OUT/run.out)}"
        lp="$(sed -nE 's/^([0-9]+) passed.*/\1/p' <<<"$ll")"; lf="$(sed -nE 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/p' <<<"$ll")"
        passed=$((passed + ${lp:-0})); failed=$((failed + ${lf:-1}))
    fi

    # ---- a kernel compiled at run time (NVRTC) against the generic one, on Q1's aggregate arithmetic ----
    if want jit; then
        log "bench/bin/constshape ${JIT_ROWS:-60000000}"
        make -C bench CUDA_ARCHS="$CUDA_ARCHS" bin/constshape >"$WORK/jit-build.log" 2>&1 \
            && timeout 120 bench/bin/constshape "${JIT_ROWS:-60000000}" "$ROOT" 2>&1 | tee "$WORK/jit.log"
        jl="$(grep -E '^generic/jit=' "$WORK/jit.log" 2>/dev/null | tail -n 1)"
        if [ -n "$jl" ]; then
            jit_state="$jl ($(grep -E '^nvrtc_compile_ms=' "$WORK/jit.log" | tail -n 1))"
        else
            jit_state="did not finish (see $WORK/jit-build.log, $WORK/jit.log)"
            failed=$((failed + 1))
        fi
    fi

    # ---- the partitioned hash join (issue 8): its test and microbenchmark ----
    if want xover; then
        # where themis.join_algorithm = auto switches to the partitioned join (bench/join/xover.cu)
        log "bench/join/bin/xover"
        make PG_CONFIG="$PG_CONFIG" CUDA=yes CUDA_ARCHS="$CUDA_ARCHS" bench/join/bin/xover >"$WORK/xover-build.log" 2>&1 \
            && timeout "${XOVER_TIMEOUT:-240}" bench/join/bin/xover ${XOVER_ARGS:-} 2>&1 | tee "$WORK/xover.log"
        xl="$(grep -E '^crossover: ' "$WORK/xover.log" | tail -n 1)"
        xover_state="${xl:-did not finish (see $WORK/xover.log)}"
    fi
    if want pjoin; then
        log "make pjointest; bench/join/run.sh"
        timeout "${PJOIN_TIMEOUT:-300}" make PG_CONFIG="$PG_CONFIG" CUDA=yes CUDA_ARCHS="$CUDA_ARCHS" pjointest 2>&1 | tee "$WORK/pjoin.log" | tail -n 5
        pl="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$WORK/pjoin.log" | tail -n 1)"
        pjoin_state="test: ${pl:-did not finish}"
        [ -n "$pl" ] && [ "$(sed -nE 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/p' <<<"$pl")" = 0 ] || failed=$((failed + 1))
        bash bench/join/run.sh ${PJOIN_ARGS:-} 2>&1 | tee -a "$WORK/pjoin.log" | tail -n 30
        pjoin_state="$pjoin_state; bench: see bench/join/results/"
    fi

    # ---- benchmark ----
    # bench_clean: a bench cut short by the device call's time limit leaves its cluster behind (tens of
    # GB at SF 10: the next load then fails with "No space left on device"): stop and remove such leftovers
    bench_clean() {
        local d
        for d in /tmp/themis-bench.*; do
            [ -d "$d" ] || continue
            [ -f "$d/cluster/data/postmaster.pid" ] &&
                runuser -u pgrun -- "$PGBIN_P/pg_ctl" -D "$d/cluster/data" -m immediate stop >/dev/null 2>&1
            rm -rf "$d"
        done
    }
    # bench_run ROOTDIR OUT: bench/run.sh of ROOTDIR with the BENCH_* settings
    bench_run() {
        local bench_data=()
        [ -n "${BENCH_DATA:-}" ] && bench_data=(--data "$BENCH_DATA" --keep-data)
        PGBIN="$PGBIN_P" THEMIS_RUN_USER=pgrun bash "$1/bench/run.sh" --sf "${BENCH_SF:-10}" "${bench_data[@]}" \
            --queries "${BENCH_QUERIES:-1,3,6,12,14}" --runs "${BENCH_RUNS:-2}" --duckdb "${BENCH_DUCKDB:-off}" \
            --threads "$(nproc)" --out "$2" --timeout "${BENCH_TIMEOUT:-300}" ${BENCH_ARGS:-}
    }
    # BENCH_TGZ=PATH (e.g. $OUT/bench.tgz): after "bench" or "bench_wait", the results (BENCH_OUT, its -skew
    # twin and its .log, where they exist) in one archive: a device call brings back a limited number of
    # files, and a benchmark's raw/ directory holds hundreds
    bench_pack() {
        [ -n "${BENCH_TGZ:-}" ] || return 0
        local d b items=()
        d="$(dirname "$BENCH_OUT")"; b="$(basename "$BENCH_OUT")"
        for x in "$b" "$b-skew" "$b.log"; do [ -e "$d/$x" ] && items+=("$x"); done
        [ "${#items[@]}" -gt 0 ] && tar -C "$d" -czf "$BENCH_TGZ" "${items[@]}" && log "results packed into $BENCH_TGZ"
    }
    if want bench; then
        BENCH_OUT="${BENCH_OUT:-$WORK/bench}"
        log "bench/run.sh --sf ${BENCH_SF:-10} --queries ${BENCH_QUERIES:-1,3,6,12,14} -> $BENCH_OUT"
        bench_clean
        # BENCH_TRACE=1: the daemon times each step of each pipeline (THEMIS_GPU_TRACE; slower runs), the
        # lines go to BENCH_OUT/trace.log
        [ "${BENCH_TRACE:-0}" = 1 ] && export THEMIS_GPU_TRACE=1 KEEP_TMP=1
        bench_run "$ROOT" "$BENCH_OUT" 2>&1 | tee "$WORK/bench.log" | tail -n 40
        if [ "${BENCH_TRACE:-0}" = 1 ]; then
            # (with --pg-conf log_min_duration_statement=0 in BENCH_ARGS, each statement follows its steps)
            grep -h 'trace:\|LOG:  duration:' /tmp/themis-bench.*/cluster/server.log >"$BENCH_OUT/trace.log" 2>/dev/null
            rm -rf /tmp/themis-bench.*
            unset THEMIS_GPU_TRACE KEEP_TMP
        fi
        bench_state="$(grep -E '^Summary' "$BENCH_OUT/results.md" 2>/dev/null | tail -n 1)"
        bench_state="${bench_state:-did not finish (see $WORK/bench.log)}"
        bench_pack
    fi
    # a benchmark longer than one device call (all 22 queries at SF 10 with DuckDB): bench_bg starts it
    # detached from a copy of bench/ and scripts/ (the tree is copied afresh each call), bench_wait (a later
    # call on the same warm machine) waits for it; the results stay in BENCH_OUT (its log: BENCH_OUT.log)
    if want bench_bg && kill -0 "$(cat "${BENCH_OUT:-/tmp/themis-bench-out}.pid" 2>/dev/null)" 2>/dev/null; then
        bench_state="not started: the detached benchmark of an earlier call is still going (STEPS=bench_wait)"
    elif want bench_bg; then
        BENCH_OUT="${BENCH_OUT:-/tmp/themis-bench-out}"
        bench_clean
        rm -rf "$BENCH_OUT" "$BENCH_OUT.src"; mkdir -p "$BENCH_OUT.src"
        cp -r bench scripts "$BENCH_OUT.src/"
        log "bench/run.sh --sf ${BENCH_SF:-10} --queries ${BENCH_QUERIES:-1,3,6,12,14}, detached, into $BENCH_OUT"
        export -f bench_run
        export PGBIN_P BENCH_DATA BENCH_SF BENCH_QUERIES BENCH_RUNS BENCH_DUCKDB BENCH_TIMEOUT BENCH_ARGS
        # BENCH_SKEW_TOO=1: the same job then runs the skewed data (--skew and BENCH_SKEW_ARGS, default
        # "--pg-runs 0", instead of BENCH_ARGS; PostgreSQL's statements cut at BENCH_SKEW_TIMEOUT, 150 s)
        # into $BENCH_OUT-skew: both runs in a row on one machine, the build not redone between them
        export BENCH_SKEW_TOO BENCH_SKEW_ARGS BENCH_SKEW_TIMEOUT
        # BENCH_TRACE=1 as for "bench": each run's daemon and backend trace lines into its trace.log
        export BENCH_TRACE
        setsid nohup bash -c 'trace_run() {
                if [ "${BENCH_TRACE:-0}" = 1 ]; then
                    THEMIS_GPU_TRACE=1 KEEP_TMP=1 bench_run "$1" "$2"
                    grep -h "trace:\|LOG:  duration:" /tmp/themis-bench.*/cluster/server.log >"$2/trace.log" 2>/dev/null
                    rm -rf /tmp/themis-bench.*
                else
                    bench_run "$1" "$2"
                fi
            }
            trace_run "$1" "$2"
            if [ "${BENCH_SKEW_TOO:-0}" = 1 ]; then
                BENCH_ARGS="--skew ${BENCH_SKEW_ARGS:---pg-runs 0}" BENCH_TIMEOUT="${BENCH_SKEW_TIMEOUT:-150}" \
                    trace_run "$1" "$2-skew"
            fi' _ "$BENCH_OUT.src" "$BENCH_OUT" >"$BENCH_OUT.log" 2>&1 </dev/null &
        echo $! >"$BENCH_OUT.pid"
        bench_state="started in the background (pid $(cat "$BENCH_OUT.pid")): STEPS=bench_wait in a later call"
    fi
    if want bench_wait; then
        BENCH_OUT="${BENCH_OUT:-/tmp/themis-bench-out}"
        log "waiting for the benchmark into $BENCH_OUT (at most ${BENCH_WAIT_S:-560} s)"
        wait_pidfile "$BENCH_OUT.pid" "${BENCH_WAIT_S:-560}"
        tail -n 40 "$BENCH_OUT.log" 2>/dev/null
        bench_state="$(grep -E '^Summary' "$BENCH_OUT/results.md" 2>/dev/null | tail -n 1)"
        kill -0 "$(cat "$BENCH_OUT.pid" 2>/dev/null)" 2>/dev/null && bench_state="still running (see $BENCH_OUT.log)"
        bench_state="${bench_state:-did not finish (see $BENCH_OUT.log)}"
        bench_pack
    fi

    # ---- profile: ncu on the daemon's kernels during a small benchmark run ----
    if want profile; then
        PROFILE_OUT="${PROFILE_OUT:-$WORK/profile}"
        rm -rf "$PROFILE_OUT"; mkdir -p "$PROFILE_OUT"; chmod 777 "$PROFILE_OUT"
        NCU_BIN="$(command -v ncu 2>/dev/null || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)"
        if [ -z "$NCU_BIN" ]; then
            profile_state="ncu not found"
        else
            # the daemon runs under ncu from its first start after the load (the foreign keys' checks
            # run pipeline kernels too): bench/run.sh's BENCH_BEFORE_QUERIES makes the file "go" and
            # ends the daemon, the supervisor starts it again; only that start runs under ncu
            cat >"$PROFILE_OUT/gpud-ncu.sh" <<WRAP
#!/bin/bash
if [ -f "$PROFILE_OUT/go" ] && mkdir "$PROFILE_OUT/started" 2>/dev/null; then
    exec "$NCU_BIN" --clock-control none --target-processes application-only -k "regex:${PROFILE_KERNEL:-pipeline_kernel}" \
        --launch-skip "${PROFILE_SKIP:-0}" --launch-count "${PROFILE_LAUNCHES:-3}" --kill yes --set "${PROFILE_SET:-full}" --import-source yes \
        -f -o "$PROFILE_OUT/prof" "$PGBIN_P/themis-gpud" "\$@" >>"$PROFILE_OUT/ncu.log" 2>&1
fi
exec "$PGBIN_P/themis-gpud" "\$@"
WRAP
            chmod 755 "$PROFILE_OUT/gpud-ncu.sh"
            log "bench/run.sh --sf ${PROFILE_SF:-1} --queries ${PROFILE_QUERIES:-1} under ncu -> $PROFILE_OUT"
            bench_clean
            BENCH_BEFORE_QUERIES="touch '$PROFILE_OUT/go'; pkill -f '^$PGBIN_P/themis-gpud'; for i in \$(seq 1 90); do grep -q 'ready:' '$PROFILE_OUT/ncu.log' 2>/dev/null && exit 0; sleep 1; done; exit 1" \
            PGBIN="$PGBIN_P" THEMIS_RUN_USER=pgrun bash bench/run.sh --sf "${PROFILE_SF:-1}" \
                --queries "${PROFILE_QUERIES:-1}" --runs 1 --pg-runs skip --duckdb off --threads "$(nproc)" \
                --out "$PROFILE_OUT/bench" --timeout 300 --pg-conf "themis.gpud_path = '$PROFILE_OUT/gpud-ncu.sh'" \
                --pg-conf "themis.gpu_memory_limit = ${PROFILE_GPU_MB:-16384}" ${PROFILE_ARGS:-} >"$PROFILE_OUT/bench.log" 2>&1
            for _ in $(seq 1 30); do pgrep -f "$PROFILE_OUT/prof" >/dev/null || break; sleep 2; done
            tail -n 5 "$PROFILE_OUT/ncu.log"
            if [ -f "$PROFILE_OUT/prof.ncu-rep" ]; then
                "$NCU_BIN" -i "$PROFILE_OUT/prof.ncu-rep" --page details >"$PROFILE_OUT/details.txt" 2>&1
                n="$("$NCU_BIN" -i "$PROFILE_OUT/prof.ncu-rep" --page raw --csv --metrics gpu__time_duration.sum 2>/dev/null | tail -n +3 | wc -l)"
                "$NCU_BIN" -i "$PROFILE_OUT/prof.ncu-rep" --page details --print-details all \
                    --section WarpStateStats --section SourceCounters >"$PROFILE_OUT/stalls.txt" 2>&1
                "$NCU_BIN" --help 2>&1 | grep -A6 -E 'print-source|--page ' >"$PROFILE_OUT/ncu-help.txt"
                # the durations of the launches, in order (launches.tsv), and the source pages of the
                # PROFILE_SOURCE_TOP longest only: a launch's cuda,sass page is over 100 MB and takes
                # minutes (the last 5 minutes of a 600 s call went to them, 2026-11-28, and it was cut)
                "$NCU_BIN" -i "$PROFILE_OUT/prof.ncu-rep" --page raw --csv --metrics gpu__time_duration.sum 2>/dev/null |
                    python3 -c 'import csv, sys
rows = list(csv.reader(sys.stdin))
c = rows[0].index("gpu__time_duration.sum") if rows and "gpu__time_duration.sum" in rows[0] else -1
for k, r in enumerate(rows[2:]):
    print(k, r[c].replace(",", "") if c >= 0 else "", r[rows[0].index("Kernel Name")] if "Kernel Name" in rows[0] else "", sep="\t")' \
                    >"$PROFILE_OUT/launches.tsv" 2>&1
                top="$(sort -t "$(printf '\t')" -k2,2 -g -r "$PROFILE_OUT/launches.tsv" | head -n "${PROFILE_SOURCE_TOP:-2}" | cut -f1)"
                for k in $top; do
                    for ps in ${PROFILE_SOURCE:-sass cuda,sass}; do
                        "$NCU_BIN" -i "$PROFILE_OUT/prof.ncu-rep" --page source --csv --print-source "$ps" \
                            --launch-skip "$k" --launch-count 1 >"$PROFILE_OUT/source-$k.${ps/,/-}.csv" 2>&1
                    done
                    # functions and lines by instructions and stall samples (small: it comes back)
                    [ -s "$PROFILE_OUT/source-$k.cuda-sass.csv" ] &&
                        python3 bench/lib/ncu_source.py "$PROFILE_OUT/source-$k.cuda-sass.csv" "$ROOT" 30 \
                            >"$PROFILE_OUT/summary-$k.md" 2>&1
                done
                profile_state="$n launches profiled: $PROFILE_OUT"
            else
                profile_state="no report (see $PROFILE_OUT/ncu.log, bench.log)"
            fi
        fi
    fi

    if want loadthp; then
    # bench/load_thp.sh: themis.cache_table() of a generated table with shared memory's huge pages off / on
    log "bench/load_thp.sh ${LOADTHP_ARGS:-}"
    export PGDATA_DIR="$WORK/data-thp" PGPORT_NUM="${PGPORT_NUM:-54329}"
    if PG_SERVER_OPTS="-c shared_preload_libraries=themis -c max_worker_processes=16 -c max_parallel_workers=12 -c max_parallel_workers_per_gather=8 -c shared_buffers=4GB" \
            pp start >"$WORK/start-thp.log" 2>&1 && pp psql -q -c 'CREATE EXTENSION IF NOT EXISTS themis' -c "SELECT pg_sleep(2)" >/dev/null 2>&1; then
        # shellcheck disable=SC2086
        PSQL="bash $PP_SCRIPT psql" bash bench/load_thp.sh ${LOADTHP_ARGS:-} 2>&1 | tee "$WORK/load_thp.log" | tail -n 12
        loadthp_state="$(grep -c '^| [an]' "$WORK/load_thp.log") settings measured (see $WORK/load_thp.log)"
        pp stop >/dev/null 2>&1
    else
        loadthp_state="server did not start: $(tail -n 3 "$PGDATA_DIR/server.log" 2>/dev/null | tr '\n' ' ')"
    fi
    fi

    # ---- 6. the GPU as a backend sees it ----
    if want status; then
    log "themis.gpu_status() in a running server"
    export PGDATA_DIR="$WORK/data" PGPORT_NUM="${PGPORT_NUM:-54329}"
    if PG_SERVER_OPTS="-c shared_preload_libraries=themis" pp start >"$WORK/start.log" 2>&1; then
        status_line="$(pp psql -At -c 'CREATE EXTENSION themis' \
            -c "SELECT pg_sleep(2)" \
            -c "SELECT CASE WHEN usable THEN 'usable: ' ELSE 'NOT usable: ' END || detail || ' [' || coalesce(cuda_build, '-') || ', driver CUDA ' || coalesce(driver_version, '-') || ', daemon pid ' || coalesce(daemon_pid::text, '-') || ']' FROM themis.gpu_status()" 2>&1 | tail -n 1)"
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
printf '  %-18s %s\n' "regress (auto)" "$regress_state"
printf '  %-18s %s\n' "regress (gpu)" "$regress_gpu_state"
printf '  %-18s %s\n' "faults" "$faults_state"
printf '  %-18s %s\n' "isolation (gpu)" "$isolation_state"
printf '  %-18s %s\n' "fuzz (gpu)" "$fuzz_state"
printf '  %-18s %s\n' "partitioned join" "$pjoin_state"
printf '  %-18s %s\n' "join crossover" "$xover_state"
printf '  %-18s %s\n' "run-time kernel" "$jit_state"
printf '  %-18s %s\n' "load test" "$load_state"
printf '  %-18s %s\n' "benchmark" "$bench_state"
printf '  %-18s %s\n' "profile (ncu)" "$profile_state"
printf '  %-18s %s\n' "load, shmem THP" "$loadthp_state"
printf '  %-18s %s\n' "gpu_status()" "$status_line"
printf '  %-18s %s\n' "logs" "$WORK"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
