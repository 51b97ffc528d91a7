#!/usr/bin/env bash
# bench/join/run.sh — build and run the join microbenchmark (joinbench.cu + cuda/tm_pjoin.cu), then
# draw the chart and the summary with the targets checked (chart.py).
#
#   bash bench/join/run.sh [--build-only] [--quick] [--out DIR] [--runs N]
#
#   --build-only   compile bench/join/bin/joinbench and stop (works without a GPU)
#   --quick        a smoke run: the target configurations at 2^24 only (seconds)
#   --targets      the target configurations (issue 8) at 2^27 only, plus the 10x-L2 comparison
#   --out DIR      where results go (default bench/join/results/<date>-<card>)
#   --runs N       timed runs per variant (default 5; the median is reported)
#
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), ARCH (default sm_90).
# Writes DIR/info.txt (card, SMs, L2, memory, copy bandwidth), DIR/results.csv (one line per case and
# variant, see joinbench.cu), DIR/run.log (stderr), DIR/chart.png and DIR/results.md.  The default
# matrix takes a few minutes on an H200 (about 26 cases x 3 variants x 6 runs).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
NVCC="${NVCC:-$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)}"
ARCH="${ARCH:-sm_90}"
build_only=0
quick=0
targets=0
out=""
runs=5

while [ $# -gt 0 ]; do
	case "$1" in
	--build-only) build_only=1 ;;
	--quick) quick=1 ;;
	--targets) targets=1 ;;
	--out) out="$2"; shift ;;
	--runs) runs="$2"; shift ;;
	-h|--help) sed -n '2,16p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

bin="$here/bin/joinbench"
mkdir -p "$here/bin"
src_newer=1
if [ -x "$bin" ] && [ "$bin" -nt "$here/joinbench.cu" ] && [ "$bin" -nt "$root/cuda/tm_pjoin.cu" ] &&
	[ "$bin" -nt "$root/cuda/tm_pjoin.h" ]; then
	src_newer=0
fi
if [ "$src_newer" = 1 ]; then
	echo "building $bin ($ARCH)"
	"$NVCC" -arch="$ARCH" -O3 -std=c++17 --fmad=false -Xcompiler -Wall -I"$root/cuda" -I"$root/include" \
		"$here/joinbench.cu" "$root/cuda/tm_pjoin.cu" -o "$bin"
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
	echo "runs=$runs"
} >> "$out/info.txt"
cat "$out/info.txt"
"$bin" --csv-header > "$out/results.csv"

failed=0
run() {
	local label="$1"
	shift
	echo "== $label $*" >&2
	if ! timeout "${CASE_TIMEOUT:-120}" "$bin" --label "$label" --runs "$runs" "$@" >> "$out/results.csv" 2>> "$out/run.log"; then
		echo "   case failed (see run.log): $label $*" >&2
		failed=$((failed + 1))
	fi
	tail -n +2 "$out/results.csv" | tail -n 3 | cut -d, -f12,13,20,30 | sed 's/^/   /' >&2
}

# the target configurations at 2^$1: 4-byte keys and payloads, 1 and 2 payload columns, uniform and Zipf 1.5
run_targets() {
	for p in 1 2; do
		for z in 0 1.5; do
			run target --log2r "$1" --pcols "$p" --zipf "$z"
		done
	done
}

if [ "$quick" = 1 ]; then
	run_targets 24
elif [ "$targets" = 1 ]; then
	run_targets 27
	run size --log2r 24 --pcols 2
	run size --log2r 26 --pcols 2
else
	run_targets 27
	# size sweep (2^27 is in the targets), 1 and 2 payload columns
	for p in 1 2; do
		for n in 24 25 26 28; do
			run size --log2r "$n" --pcols "$p"
		done
	done
	# match ratio 100% (in the targets) down to 6%
	for m in 0.5 0.25 0.125 0.0625; do
		run match --log2r 27 --pcols 2 --match "$m"
	done
	# skew of the foreign keys
	for z in 0.5 1.0 1.25; do
		run zipf --log2r 27 --pcols 2 --zipf "$z"
	done
	# widths (key / payload) and more payload columns
	run widths --log2r 26 --kw 4 --pw 8 --pcols 1
	run widths --log2r 26 --kw 4 --pw 8 --pcols 2
	run widths --log2r 26 --kw 8 --pw 8 --pcols 1
	run widths --log2r 26 --kw 8 --pw 8 --pcols 2
	run widths --log2r 26 --kw 8 --pw 4 --pcols 2
	run cols --log2r 27 --pcols 3
	run cols --log2r 27 --pcols 4
fi

python3 "$here/chart.py" "$out"
echo "results: $out/results.csv, $out/results.md, $out/chart.png"
if [ "$failed" -gt 0 ]; then
	echo "$failed case(s) failed: see $out/run.log" >&2
	exit 1
fi
