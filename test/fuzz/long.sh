#!/bin/bash
# test/fuzz/long.sh — a long, time-bounded differential fuzzing run (test/fuzz/fuzz.py), e.g. on the GPU host.
#
#   test/fuzz/long.sh [--minutes M | --hours H] [--jobs J] [--device cpu|gpu|auto] [--first-seed S]
#                     [--queries Q] [--variants V] [--out DIR] [-- more fuzz.py options]
#
# Runs J fuzz.py processes side by side (default: one per 2 CPU cores, at least 1), each with its own
# throw-away cluster; process i takes the seeds S+i, S+i+J, S+i+2J, ... (Q queries each, V plan variants
# per query besides the default; 15% of the tables get 5000-30000 rows) until the time is up.  Minimal reproducers of mismatches go to
# test/fuzz/repro/, unshrunk ones and the logs / JSON summaries to DIR (default /tmp/themis-fuzz-long.XXXXXX).
# Ends with a combined summary and the line "N passed, N failed"; exit status 1 on any mismatch.
#
# PostgreSQL: the bin directory of pg_config on PATH (or $PG_CONFIG, $PGBIN); where there is none (the GPU
# host), the environment of shared/tools/pg-portable.sh is used (../shared/tools, ./shared/tools or
# $PG_PORTABLE), as scripts/gpu-host.sh sets it up.  As root, servers run as themisrun / pgrun.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

MINUTES=60
JOBS=$(( $(nproc 2>/dev/null || echo 2) / 2 ))
[ "$JOBS" -ge 1 ] || JOBS=1
DEVICE=cpu
FIRST_SEED=1000
QUERIES=400
VARIANTS=2
OUT=""
EXTRA=()
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) MINUTES="$2"; shift 2 ;;
        --hours) MINUTES=$(( $2 * 60 )); shift 2 ;;
        --jobs) JOBS="$2"; shift 2 ;;
        --device) DEVICE="$2"; shift 2 ;;
        --first-seed) FIRST_SEED="$2"; shift 2 ;;
        --queries) QUERIES="$2"; shift 2 ;;
        --variants) VARIANTS="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --) shift; EXTRA=("$@"); break ;;
        -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done

# PostgreSQL binaries
if [ -z "${PGBIN:-}" ]; then
    PGC="${PG_CONFIG:-$(command -v pg_config || true)}"
    if [ -z "$PGC" ] && [ ! -x /usr/lib/postgresql/15/bin/initdb ]; then
        for pp in "${PG_PORTABLE:-}" "$ROOT/../shared/tools/pg-portable.sh" "$ROOT/shared/tools/pg-portable.sh"; do
            if [ -n "$pp" ] && [ -f "$pp" ]; then
                eval "$(bash "$pp" env)"
                PGC="${PG_CONFIG:-}"
                break
            fi
        done
    fi
    if [ -n "$PGC" ] && [ -x "$("$PGC" --bindir)/initdb" ]; then
        PGBIN="$("$PGC" --bindir)"
    else
        PGBIN=/usr/lib/postgresql/15/bin
    fi
fi
export PGBIN
[ -x "$PGBIN/initdb" ] || { echo "no PostgreSQL in $PGBIN (set PGBIN or PG_CONFIG)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 2; }

if [ -z "$OUT" ]; then
    OUT="$(mktemp -d /tmp/themis-fuzz-long.XXXXXX)"
fi
mkdir -p "$OUT"
SECS=$(( MINUTES * 60 ))
echo "==> $JOBS job(s), ${MINUTES} min, device $DEVICE, seeds from $FIRST_SEED, $QUERIES queries per seed; output in $OUT" >&2

# one GPU daemon per cluster: each takes its share of the free device memory (a daemon takes nearly all
# that is free by default, and the others would find none); besides its share each daemon's CUDA context
# and its kernels' stacks (about 1 GiB on a 132-SM card: 3.5 KiB a thread) need about 1.7 GB
if [ "$DEVICE" != cpu ] && command -v nvidia-smi >/dev/null 2>&1; then
    free_mb="$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits 2>/dev/null | head -n 1 | tr -dc 0-9)"
    if [ -n "$free_mb" ] && [ "$free_mb" -gt 0 ]; then
        share=$(( (free_mb - JOBS * 1700) * 85 / 100 / JOBS ))
        if [ "$share" -lt 512 ]; then
            echo "==> warning: $JOBS GPU daemons do not fit in ${free_mb} MB; each gets 512 MB (fewer jobs: --jobs)" >&2
            share=512
        fi
        EXTRA=(--conf "themis.gpu_memory_limit = '${share}MB'" "${EXTRA[@]}")
        echo "==> each cluster's GPU daemon takes ${share} MB of the ${free_mb} MB free" >&2
    fi
fi

pids=()
for ((i = 0; i < JOBS; i++)); do
    s=$(( FIRST_SEED + i ))
    python3 "$HERE/fuzz.py" --seeds "$s-$(( s + 1000000 )):$JOBS" --queries "$QUERIES" --variants "$VARIANTS" --big 0.15 \
        --device "$DEVICE" --time-limit "$SECS" --pg-bin "$PGBIN" --raw-dir "$OUT/raw" \
        --json "$OUT/job$i.json" "${EXTRA[@]}" >"$OUT/job$i.out" 2>"$OUT/job$i.log" &
    pids+=($!)
done
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' INT TERM
for p in "${pids[@]}"; do
    wait "$p"
done

python3 - "$OUT" "$JOBS" <<'EOF'
import collections, json, os, sys
out, jobs = sys.argv[1], int(sys.argv[2])
tot = collections.Counter()
feats, left, reasons, fb, errors, events = (collections.Counter() for _ in range(6))
mism = []
for i in range(jobs):
    p = os.path.join(out, "job%d.json" % i)
    if not os.path.exists(p):
        print("job %d wrote no summary (see %s)" % (i, os.path.join(out, "job%d.log" % i)))
        tot["failed"] += 1
        continue
    d = json.load(open(p))
    for k in ("passed", "failed", "themis", "explained", "both_err", "plan_dep", "full"):
        tot[k] += d.get(k, 0)
    for k, c in (("features", feats), ("pg_nodes", left), ("reasons", reasons), ("fallback", fb), ("errors", errors),
                 ("server_events", events)):
        c.update(d.get(k, {}))
    for k, v in d.get("skipped", {}).items():
        tot["skipped"] += v
    mism += d.get("mismatches", [])
n = max(1, tot["explained"])
print("== themis long fuzz: %d queries compared (%d skipped)" % (tot["passed"] + tot["failed"], tot["skipped"]))
print("coverage: Themis node in %d of %d (%.0f%%); all scans/joins/aggregates inside Themis in %d (%.0f%%)"
      % (tot["themis"], tot["explained"], 100.0 * tot["themis"] / n, tot["full"], 100.0 * tot["full"] / n))
print("Themis features: " + ", ".join("%s %d" % kv for kv in sorted(feats.items()) if kv[0] != "node"))
print("PostgreSQL nodes left: " + ", ".join("%s %d" % kv for kv in left.most_common()))
print("left to PostgreSQL because: " + "; ".join("%s x%d" % kv for kv in reasons.most_common(12)))
print("both failed alike: %d; fallback: %d; plan-dependent accepted: %d" % (tot["both_err"], sum(fb.values()), tot["plan_dep"]))
print("fallback because: " + "; ".join("%s x%d" % kv for kv in fb.most_common(6)))
print("server logs (GPU daemon exits, crashed processes): " +
      ("; ".join("%s x%d" % kv for kv in events.most_common(12)) or "nothing"))
for m in mism:
    print("MISMATCH seed %(seed)s query %(query)s [%(variant)s] %(category)s: %(detail).200s\n    %(repro)s" % m)
print("%d passed, %d failed" % (tot["passed"], tot["failed"]))
sys.exit(1 if tot["failed"] else 0)
EOF
