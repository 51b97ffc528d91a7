-- bench/probe/group_wagg.sql — themis.gpu_group_wagg off and on (cuda/tm_gpu_exec.cu, DAgg.wagg: the lanes
-- of a warp that update one group past the block's private ones combine before their atomic), for
-- bench/run.sh --sql on the uniform or the skewed data: grouped aggregations with many groups (Q15's
-- 100,000 suppliers, where the skewed data puts a quarter of lineitem on 25 of them; Q18's and Q3's
-- orders).  EXPLAIN ANALYZE of Q15 off then on (per pipeline GPU time), then one untimed run of each
-- query (its columns loaded), then timed runs alternating off / on, four each of Q15, three each of the
-- others.  The results must be the same.
\pset pager off
\set q03 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q03.sql"`
\set q15 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q15.sql"`
\set q18 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q18.sql"`
SET themis.enabled = on;
SET themis.gpu_group_wagg = off;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
SET themis.gpu_group_wagg = on;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
\o /dev/null
:q03;
:q15;
:q18;
\o
\timing on
SET themis.gpu_group_wagg = off;
\echo q15 off
\o /dev/null
:q15;
\o
SET themis.gpu_group_wagg = on;
\echo q15 on
\o /dev/null
:q15;
\o
SET themis.gpu_group_wagg = off;
\echo q15 off
\o /dev/null
:q15;
\o
SET themis.gpu_group_wagg = on;
\echo q15 on
\o /dev/null
:q15;
\o
SET themis.gpu_group_wagg = off;
\echo q15 off
\o /dev/null
:q15;
\o
SET themis.gpu_group_wagg = on;
\echo q15 on
\o /dev/null
:q15;
\o
SET themis.gpu_group_wagg = off;
\echo q15 off
\o /dev/null
:q15;
\o
SET themis.gpu_group_wagg = on;
\echo q15 on
\o /dev/null
:q15;
\o
SET themis.gpu_group_wagg = off;
\echo q18 off
\o /dev/null
:q18;
\o
SET themis.gpu_group_wagg = on;
\echo q18 on
\o /dev/null
:q18;
\o
SET themis.gpu_group_wagg = off;
\echo q18 off
\o /dev/null
:q18;
\o
SET themis.gpu_group_wagg = on;
\echo q18 on
\o /dev/null
:q18;
\o
SET themis.gpu_group_wagg = off;
\echo q18 off
\o /dev/null
:q18;
\o
SET themis.gpu_group_wagg = on;
\echo q18 on
\o /dev/null
:q18;
\o
SET themis.gpu_group_wagg = off;
\echo q03 off
\o /dev/null
:q03;
\o
SET themis.gpu_group_wagg = on;
\echo q03 on
\o /dev/null
:q03;
\o
SET themis.gpu_group_wagg = off;
\echo q03 off
\o /dev/null
:q03;
\o
SET themis.gpu_group_wagg = on;
\echo q03 on
\o /dev/null
:q03;
\o
SET themis.gpu_group_wagg = off;
\echo q03 off
\o /dev/null
:q03;
\o
SET themis.gpu_group_wagg = on;
\echo q03 on
\o /dev/null
:q03;
\o
\timing off
RESET themis.gpu_group_wagg;
