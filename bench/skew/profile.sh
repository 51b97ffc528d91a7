#!/usr/bin/env bash
# bench/skew/profile.sh — occupancy sweep of the GPU executor's kernels on skewbench cases (GPU host):
# builds skewbench once per value of PL_MIN_BLOCKS / LB_MIN_BLOCKS (the blocks per multiprocessor that
# pipeline_kernel's and nifs_kernel's registers must allow: __launch_bounds__), in parallel, prints each
# build's registers / spills and the chosen cases' times per variant.
#   VARIANTS="1 2 3 4" CASES="pk-u-k1 ..." LOG2F=26 MODES=none,nifs_aws JOIN=auto bash bench/skew/profile.sh
# (JOIN: skewbench's --join, default auto here, as in the sweep of reports/2026-11-27-h200-occupancy;
# with pipelined the none mode of the mm-z1.0 / mm-z1.5 cases waits seconds per run for its tail)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
NVCC="${NVCC:-$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)}"
VARIANTS="${VARIANTS:-1 2 3 4}"
CASES="${CASES:-pk-u-k1 pk-u-k4 mm-z0.5-k1 mm-z1.5-k1 mm-z1.5-k2 mm-z1.0-k4 jcch-k2 pk-u-k4-grp}"
LOG2F="${LOG2F:-26}"
MODES="${MODES:-none,nifs_aws}"
JOIN="${JOIN:-auto}"
out="${OUT:-/tmp}/skewprof"
mkdir -p "$out"
fl=(-arch=sm_90 -O3 -std=c++17 --fmad=false -I"$root/include" -I"$root/cuda")
t0=$(date +%s)
"$NVCC" "${fl[@]}" -c "$here/skewbench.cu" -o "$out/s.o" &
"$NVCC" "${fl[@]}" -c "$root/cuda/tm_pjoin.cu" -o "$out/p.o" &
for v in $VARIANTS; do
	"$NVCC" "${fl[@]}" -DPL_MIN_BLOCKS="$v" -DLB_MIN_BLOCKS="$v" -Xptxas -v -c "$root/cuda/tm_gpu_exec.cu" \
		-o "$out/e$v.o" > "$out/ptxas$v.log" 2>&1 &
done
wait
for v in $VARIANTS; do
	"$NVCC" -arch=sm_90 "$out/e$v.o" "$out/p.o" "$out/s.o" -o "$out/skewbench$v" || exit 1
	echo "== variant $v:"
	grep -A2 "Function properties for _Z1[15]\(nifs\|pipeline\)_kernel" "$out/ptxas$v.log" | grep -v "^--" | sed 's/^ptxas info *: //'
done
echo "built in $(( $(date +%s) - t0 )) s"
args=()
for c in $CASES; do args+=(--case "$c"); done
for v in $VARIANTS; do
	"$out/skewbench$v" --log2f "$LOG2F" --runs 3 --modes "$MODES" --join "$JOIN" "${args[@]}" 2>/dev/null | grep '^NVIDIA' |
		sed "s/^/v$v,/" > "$out/v$v.csv"
done
echo "variant,case,mode,ms,sink_rows"
for v in $VARIANTS; do awk -F, '{print $1","$3","$4","$5","$11}' "$out/v$v.csv"; done
echo "total $(( $(date +%s) - t0 )) s"
