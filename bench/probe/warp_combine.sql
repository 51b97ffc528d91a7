-- bench/probe/warp_combine.sql — the grouped aggregations whose warps can combine their updates
-- (themis.gpu_warp_combine: the rows of one order are adjacent in lineitem; on the skewed data five orders
-- take 8.8 M of Q3's 9.3 M sink rows), for bench/run.sh --sql on the uniform or the skewed data: for each
-- query EXPLAIN ANALYZE with it off and on (per pipeline GPU time), then three timed runs each,
-- alternating off / on.  The results must be the same.
\pset pager off
\set q03 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q03.sql"`
\set q09 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q09.sql"`
\set q10 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q10.sql"`
\set q13 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q13.sql"`
\set q18 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q18.sql"`
SET themis.enabled = on;
:q03;
:q09;
:q10;
:q13;
:q18;
SET themis.gpu_warp_combine = off;
EXPLAIN (ANALYZE, COSTS OFF) :q03;
EXPLAIN (ANALYZE, COSTS OFF) :q09;
EXPLAIN (ANALYZE, COSTS OFF) :q10;
EXPLAIN (ANALYZE, COSTS OFF) :q13;
EXPLAIN (ANALYZE, COSTS OFF) :q18;
SET themis.gpu_warp_combine = on;
EXPLAIN (ANALYZE, COSTS OFF) :q03;
EXPLAIN (ANALYZE, COSTS OFF) :q09;
EXPLAIN (ANALYZE, COSTS OFF) :q10;
EXPLAIN (ANALYZE, COSTS OFF) :q13;
EXPLAIN (ANALYZE, COSTS OFF) :q18;
\timing on
SET themis.gpu_warp_combine = off;
:q03;
SET themis.gpu_warp_combine = on;
:q03;
SET themis.gpu_warp_combine = off;
:q03;
SET themis.gpu_warp_combine = on;
:q03;
SET themis.gpu_warp_combine = off;
:q03;
SET themis.gpu_warp_combine = on;
:q03;
SET themis.gpu_warp_combine = off;
:q09;
SET themis.gpu_warp_combine = on;
:q09;
SET themis.gpu_warp_combine = off;
:q09;
SET themis.gpu_warp_combine = on;
:q09;
SET themis.gpu_warp_combine = off;
:q09;
SET themis.gpu_warp_combine = on;
:q09;
SET themis.gpu_warp_combine = off;
:q10;
SET themis.gpu_warp_combine = on;
:q10;
SET themis.gpu_warp_combine = off;
:q10;
SET themis.gpu_warp_combine = on;
:q10;
SET themis.gpu_warp_combine = off;
:q10;
SET themis.gpu_warp_combine = on;
:q10;
SET themis.gpu_warp_combine = off;
:q13;
SET themis.gpu_warp_combine = on;
:q13;
SET themis.gpu_warp_combine = off;
:q13;
SET themis.gpu_warp_combine = on;
:q13;
SET themis.gpu_warp_combine = off;
:q13;
SET themis.gpu_warp_combine = on;
:q13;
SET themis.gpu_warp_combine = off;
:q18;
SET themis.gpu_warp_combine = on;
:q18;
SET themis.gpu_warp_combine = off;
:q18;
SET themis.gpu_warp_combine = on;
:q18;
SET themis.gpu_warp_combine = off;
:q18;
SET themis.gpu_warp_combine = on;
:q18;
\timing off
RESET themis.gpu_warp_combine;
