-- bench/probe/private_global.sql — the global aggregates of TPC-H (Q6, Q14, Q17, Q19) with
-- themis.gpu_private_global_agg off (one atomic per warp of rows on the group's words) and on
-- (block-private states and thread-private partial sums), for bench/run.sh --sql on the uniform or the
-- skewed data: for each query EXPLAIN ANALYZE with it off and on (per pipeline GPU time), then timed
-- runs, alternating off / on: three each of Q14, two each of Q6 and Q19 (Q17's 38 ms GPU time is in
-- its EXPLAIN ANALYZE).  The results must be the same.
\pset pager off
\set q6 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q06.sql"`
\set q14 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q14.sql"`
\set q17 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q17.sql"`
\set q19 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q19.sql"`
SET themis.enabled = on;
SET themis.gpu_private_global_agg = off;
:q6;
:q14;
:q17;
:q19;
EXPLAIN (ANALYZE, COSTS OFF) :q6;
EXPLAIN (ANALYZE, COSTS OFF) :q14;
EXPLAIN (ANALYZE, COSTS OFF) :q17;
EXPLAIN (ANALYZE, COSTS OFF) :q19;
SET themis.gpu_private_global_agg = on;
:q6;
:q14;
:q17;
:q19;
EXPLAIN (ANALYZE, COSTS OFF) :q6;
EXPLAIN (ANALYZE, COSTS OFF) :q14;
EXPLAIN (ANALYZE, COSTS OFF) :q17;
EXPLAIN (ANALYZE, COSTS OFF) :q19;
\timing on
SET themis.gpu_private_global_agg = off;
:q14;
SET themis.gpu_private_global_agg = on;
:q14;
SET themis.gpu_private_global_agg = off;
:q14;
SET themis.gpu_private_global_agg = on;
:q14;
SET themis.gpu_private_global_agg = off;
:q14;
SET themis.gpu_private_global_agg = on;
:q14;
SET themis.gpu_private_global_agg = off;
:q6;
SET themis.gpu_private_global_agg = on;
:q6;
SET themis.gpu_private_global_agg = off;
:q6;
SET themis.gpu_private_global_agg = on;
:q6;
SET themis.gpu_private_global_agg = off;
:q19;
SET themis.gpu_private_global_agg = on;
:q19;
SET themis.gpu_private_global_agg = off;
:q19;
SET themis.gpu_private_global_agg = on;
:q19;
\timing off
RESET themis.gpu_private_global_agg;
