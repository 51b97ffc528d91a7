-- bench/probe/jit.sql — kernels generated per pipeline (themis.gpu_jit; cuda/tm_jit.h), for bench/run.sh
-- --sql on the uniform or the skewed data: EXPLAIN ANALYZE of Q1, Q6 and Q15 with the generic kernel,
-- then with the generated ones (wait: each waits for its kernels to be compiled; "Kernel:" says which ran
-- and NVRTC's time), then again (the kernels cached: Actual Time per pipeline).
\pset pager off
\set q01 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q01.sql"`
\set q06 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q06.sql"`
\set q15 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q15.sql"`
SET themis.enabled = on;
SET themis.gpu_jit = off;
EXPLAIN (ANALYZE, COSTS OFF) :q01;
EXPLAIN (ANALYZE, COSTS OFF) :q06;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
SET themis.gpu_jit = wait;
EXPLAIN (ANALYZE, COSTS OFF) :q01;
EXPLAIN (ANALYZE, COSTS OFF) :q06;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
EXPLAIN (ANALYZE, COSTS OFF) :q01;
EXPLAIN (ANALYZE, COSTS OFF) :q06;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
