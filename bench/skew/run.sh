#!/usr/bin/env bash
# bench/skew/run.sh — build and run the load-balance benchmark (skewbench.cu + cuda/tm_gpu_exec.cu, cuda/tm_pjoin.cu), then
# write results.md with the targets checked (report.py).
#
#   bash bench/skew/run.sh [--build-only] [--quick] [--out DIR] [--runs N] [--log2f N] [--case NAME]...
#
#   --build-only   compile the benchmark and stop (works without a GPU)
#   --quick        a smoke run: 2^24 fact rows, a smaller matrix (a minute or two)
#   --out DIR      where results go (default bench/skew/results/<date>-<card>)
#   --runs N       timed runs per case and mode (default 3; the median is reported; 1 where a run
#                  takes more than 2 s)
#   --log2f N      fact rows 2^N (default 26)
#   --case NAME    only this case (repeatable; skewbench --list names them)
#   --join ALGO    pipelined (default: the probes in the scheduler's kernel, the modes compared on the
#                  same plans), auto (the daemon's choice) or partitioned
#
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), ARCH (default sm_90).
# The binary goes to bench/skew/results/bin/skewbench (results/ is ignored by git).  Writes DIR/info.txt,
# DIR/results.csv (skewbench's CSV: card, case, mode, ms, idle_ratio, imbalance, iterations, handoffs,
# ...), DIR/run.log (progress and errors), DIR/results.md and the chart DIR/times.png.  THEMIS_COMMIT names
# the commit where the tree has no git metadata.  The full matrix takes several minutes on
# an H100 / H200 (the none mode of the skewed cases is slow by design).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
NVCC="${NVCC:-$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)}"
ARCH="${ARCH:-sm_90}"
build_only=0
out=""
args=()

while [ $# -gt 0 ]; do
	case "$1" in
	--build-only) build_only=1 ;;
	--quick) args+=(--quick) ;;
	--out) out="$2"; shift ;;
	--runs) args+=(--runs "$2"); shift ;;
	--log2f) args+=(--log2f "$2"); shift ;;
	--case) args+=(--case "$2"); shift ;;
	--join) args+=(--join "$2"); shift ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

bindir="$here/results/bin"
bin="$bindir/skewbench"
mkdir -p "$bindir"
stale=0
if [ ! -x "$bin" ]; then
	stale=1
else
	for f in "$here/skewbench.cu" "$root/cuda/tm_gpu_exec.cu" "$root/cuda/tm_gpu_exec.h" "$root/cuda/tm_pjoin.cu" "$root/cuda/tm_pjoin.h" "$root"/include/themis/*.h; do
		if [ "$f" -nt "$bin" ]; then
			stale=1
		fi
	done
fi
if [ "$stale" = 1 ]; then
	echo "building $bin ($ARCH)"
	"$NVCC" -arch="$ARCH" -O3 -std=c++17 --fmad=false -Xcompiler -Wall -I"$root/include" -I"$root/cuda" \
		"$here/skewbench.cu" "$root/cuda/tm_gpu_exec.cu" "$root/cuda/tm_pjoin.cu" -o "$bin"
fi
if [ "$build_only" = 1 ]; then
	echo "built $bin"
	exit 0
fi

info="$("$bin" --info)"
card="$(printf '%s\n' "$info" | sed -n 's/^card=//p')"
if [ -z "$out" ]; then
	out="$here/results/$(date +%Y%m%d-%H%M%S)-$card"
fi
mkdir -p "$out"
printf '%s\n' "$info" > "$out/info.txt"
{
	echo "commit=${THEMIS_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "args=${args[*]:-}"
} >> "$out/info.txt"
cat "$out/info.txt"
"$bin" --csv-header > "$out/results.csv"
rc=0
"$bin" "${args[@]}" >> "$out/results.csv" 2> >(tee -a "$out/run.log" >&2) || rc=$?
python3 "$here/report.py" "$out/results.csv" "$out/info.txt" --png "$out/times.png" > "$out/results.md"
echo "results: $out/results.csv, $out/results.md"
exit "$rc"
