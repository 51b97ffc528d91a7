#!/bin/sh
# run.sh PROBE BIN... — runs the engine unit test binaries (make unittest).
#
# Each binary prints a closing line "N passed, N failed" and exits non-zero on failure (test/unit/tm_unit.h).
# gpu_* binaries run only if PROBE (test/unit/bin/probe_gpu) says a GPU is usable; otherwise they count
# as skipped, except those with a host part (gpu_pipeline: its fast quals against the interpreter on the
# host), which run that part and count as skipped too.  GPU_UNBUILT (environment) names gpu_*.cu tests
# that were not built (no nvcc, or CUDA=no): skipped too.  A binary that lacks what it needs (test_nvrtc:
# no CUDA toolkit) prints "skipped: why", checks nothing and exits 0: skipped.
# Prints one row per binary, then the closing line "unit: N passed, N failed[, N skipped]", where N sums
# the binaries' own counts (a binary that crashes or prints no closing line counts one failure).
# Exit status: 1 if anything failed.
#
# UNIT_TIMEOUT (seconds, default 600) bounds each binary.

probe="$1"
shift

passed=0
failed=0
skipped=0
gpu_state=""			# "", yes, or no
gpu_why=""
timeout_s="${UNIT_TIMEOUT:-600}"

run_timed() {
	if command -v timeout >/dev/null 2>&1; then
		timeout "$timeout_s" "$@"
	else
		"$@"
	fi
}

for name in $GPU_UNBUILT; do
	echo "  skip  $name (skipped: no GPU: built without CUDA)"
	skipped=$((skipped + 1))
done

for bin in "$@"; do
	name="$(basename "$bin")"
	case "$name" in
	gpu_*)
		if [ -z "$gpu_state" ]; then
			if [ -n "$probe" ] && [ -x "$probe" ] && gpu_why="$("$probe" 2>&1)"; then
				gpu_state=yes
				echo "  GPU: $gpu_why"
			else
				gpu_state=no
				[ -n "$probe" ] || gpu_why="built without CUDA"
			fi
		fi
		if [ "$gpu_state" = no ]; then
			skipped=$((skipped + 1))
			case "$name" in
			gpu_pipeline)
				echo "  skip  $name's GPU part (no GPU: $gpu_why); its host part runs"
				;;
			*)
				echo "  skip  $name (skipped: no GPU: $gpu_why)"
				continue
				;;
			esac
		fi
		;;
	esac

	out="$(run_timed "$bin" 2>&1)"
	rc=$?
	last="$(printf '%s\n' "$out" | tail -n 1)"
	p="$(printf '%s\n' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*$/\1/p')"
	f="$(printf '%s\n' "$last" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed.*$/\2/p')"
	# a test without what it needs (test_nvrtc: no CUDA toolkit) says "skipped: why" and checks nothing
	# (gpu_pipeline says "skipped:" about its GPU part and still counts its host part's checks)
	skip_line="$(printf '%s\n' "$out" | sed -n 's/^skipped: //p' | head -n 1)"
	if [ -n "$skip_line" ] && [ "$rc" -eq 0 ] && [ "$p" = 0 ] && [ "$f" = 0 ]; then
		echo "  skip  $name (skipped: $skip_line)"
		skipped=$((skipped + 1))
		continue
	fi
	if [ -z "$p" ] || [ -z "$f" ]; then
		p=0
		f=1
		why="no closing line (exit status $rc)"
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		why="exit status $rc"
	else
		why=""
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -eq 0 ]; then
		echo "  ok    $name ($p checks)"
	else
		echo "  FAIL  $name ($p ok, $f failed${why:+; $why}); its output:"
		printf '%s\n' "$out" | sed 's/^/        /'
	fi
done

if [ "$skipped" -gt 0 ]; then
	echo "unit: $passed passed, $failed failed, $skipped skipped"
else
	echo "unit: $passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
