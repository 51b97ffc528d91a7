-- bench/probe/skew_parts.sql — the queries whose skewed run took more than twice their uniform one
-- (Q3, Q8, Q10, Q14, Q15; bench/reports/2026-11-28-h200-sf10-22q-skew-merge-swap), for bench/run.sh --sql
-- on both data sets: each query's EXPLAIN ANALYZE twice (the second warm: per pipeline its GPU time and
-- rows), and the rows of their date ranges.  Where the skewed run's extra time goes, pipeline by pipeline.
\pset pager off
\set q3 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q03.sql"`
\set q8 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q08.sql"`
\set q10 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q10.sql"`
\set q14 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q14.sql"`
\set q15 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q15.sql"`
SET themis.enabled = off;
SELECT count(*) FILTER (WHERE l_shipdate >= date '1995-09-01' AND l_shipdate < date '1995-10-01') AS q14_uniform_month,
       count(*) FILTER (WHERE l_shipdate >= date '1995-02-01' AND l_shipdate < date '1995-03-01') AS q14_skew_month,
       count(*) FILTER (WHERE l_shipdate > date '1995-03-15') AS q3_lineitem,
       count(*) AS lineitem
FROM lineitem;
SET themis.enabled = on;
EXPLAIN (ANALYZE, COSTS OFF) :q3;
EXPLAIN (ANALYZE, COSTS OFF) :q3;
EXPLAIN (ANALYZE, COSTS OFF) :q8;
EXPLAIN (ANALYZE, COSTS OFF) :q8;
EXPLAIN (ANALYZE, COSTS OFF) :q10;
EXPLAIN (ANALYZE, COSTS OFF) :q10;
EXPLAIN (ANALYZE, COSTS OFF) :q14;
EXPLAIN (ANALYZE, COSTS OFF) :q14;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
