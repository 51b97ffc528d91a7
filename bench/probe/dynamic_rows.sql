-- bench/probe/dynamic_rows.sql — themis.gpu_dynamic_rows off (each warp of a pipeline with leading
-- filters or a pre-check runs a fixed share of the source rows) and on (warps take groups of 1,024 rows
-- as they finish, one wave of blocks), for bench/run.sh --sql on the uniform or the skewed data: the
-- queries whose largest pipelines have leading filters (Q1, Q3, Q6, Q8, Q12, Q14, Q19), each with
-- EXPLAIN ANALYZE off then on (per pipeline GPU time), then timed runs alternating off / on: three each
-- of Q3, Q8 and Q14 (over 2x their uniform time on the skewed data), two each of Q1, Q6 and Q19.  The
-- results must be the same.
\pset pager off
\set q01 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q01.sql"`
\set q03 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q03.sql"`
\set q06 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q06.sql"`
\set q08 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q08.sql"`
\set q12 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q12.sql"`
\set q14 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q14.sql"`
\set q19 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q19.sql"`
SET themis.enabled = on;
SET themis.gpu_dynamic_rows = off;
EXPLAIN (ANALYZE, COSTS OFF) :q01;
SET themis.gpu_dynamic_rows = on;
EXPLAIN (ANALYZE, COSTS OFF) :q01;
SET themis.gpu_dynamic_rows = off;
EXPLAIN (ANALYZE, COSTS OFF) :q03;
SET themis.gpu_dynamic_rows = on;
EXPLAIN (ANALYZE, COSTS OFF) :q03;
SET themis.gpu_dynamic_rows = off;
EXPLAIN (ANALYZE, COSTS OFF) :q06;
SET themis.gpu_dynamic_rows = on;
EXPLAIN (ANALYZE, COSTS OFF) :q06;
SET themis.gpu_dynamic_rows = off;
EXPLAIN (ANALYZE, COSTS OFF) :q08;
SET themis.gpu_dynamic_rows = on;
EXPLAIN (ANALYZE, COSTS OFF) :q08;
SET themis.gpu_dynamic_rows = off;
EXPLAIN (ANALYZE, COSTS OFF) :q12;
SET themis.gpu_dynamic_rows = on;
EXPLAIN (ANALYZE, COSTS OFF) :q12;
SET themis.gpu_dynamic_rows = off;
EXPLAIN (ANALYZE, COSTS OFF) :q14;
SET themis.gpu_dynamic_rows = on;
EXPLAIN (ANALYZE, COSTS OFF) :q14;
SET themis.gpu_dynamic_rows = off;
EXPLAIN (ANALYZE, COSTS OFF) :q19;
SET themis.gpu_dynamic_rows = on;
EXPLAIN (ANALYZE, COSTS OFF) :q19;
\timing on
SET themis.gpu_dynamic_rows = off;
:q03;
SET themis.gpu_dynamic_rows = on;
:q03;
SET themis.gpu_dynamic_rows = off;
:q03;
SET themis.gpu_dynamic_rows = on;
:q03;
SET themis.gpu_dynamic_rows = off;
:q03;
SET themis.gpu_dynamic_rows = on;
:q03;
SET themis.gpu_dynamic_rows = off;
:q08;
SET themis.gpu_dynamic_rows = on;
:q08;
SET themis.gpu_dynamic_rows = off;
:q08;
SET themis.gpu_dynamic_rows = on;
:q08;
SET themis.gpu_dynamic_rows = off;
:q08;
SET themis.gpu_dynamic_rows = on;
:q08;
SET themis.gpu_dynamic_rows = off;
:q14;
SET themis.gpu_dynamic_rows = on;
:q14;
SET themis.gpu_dynamic_rows = off;
:q14;
SET themis.gpu_dynamic_rows = on;
:q14;
SET themis.gpu_dynamic_rows = off;
:q14;
SET themis.gpu_dynamic_rows = on;
:q14;
SET themis.gpu_dynamic_rows = off;
:q01;
SET themis.gpu_dynamic_rows = on;
:q01;
SET themis.gpu_dynamic_rows = off;
:q01;
SET themis.gpu_dynamic_rows = on;
:q01;
SET themis.gpu_dynamic_rows = off;
:q06;
SET themis.gpu_dynamic_rows = on;
:q06;
SET themis.gpu_dynamic_rows = off;
:q06;
SET themis.gpu_dynamic_rows = on;
:q06;
SET themis.gpu_dynamic_rows = off;
:q19;
SET themis.gpu_dynamic_rows = on;
:q19;
SET themis.gpu_dynamic_rows = off;
:q19;
SET themis.gpu_dynamic_rows = on;
:q19;
\timing off
RESET themis.gpu_dynamic_rows;
