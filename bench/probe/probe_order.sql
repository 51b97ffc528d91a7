-- bench/probe/probe_order.sql — themis.probe_order off (every pipeline's inner probes in PostgreSQL's
-- join order) and on (a run of inner probes ordered by the built hash tables' sizes when the pipeline
-- starts: themis/tm_probe_order.h), for bench/run.sh --sql on the uniform or the skewed data.  TPC-H Q8
-- (on the skewed data its orders pipeline runs customer and nation n1, 1 order in 5, before the
-- 19.8 M-row lineitem-part table; on the uniform data nothing moves), and Q3, Q5, Q7, Q9 (several inner
-- probes in a pipeline; nothing moves on either data set at SF 10 on the CPU executor): EXPLAIN ANALYZE
-- off then on (per pipeline GPU time, Run Order), then timed runs alternating off / on, three each of
-- Q8.  The results must be the same.
\pset pager off
\set q03 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q03.sql"`
\set q05 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q05.sql"`
\set q07 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q07.sql"`
\set q08 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q08.sql"`
\set q09 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q09.sql"`
SET themis.enabled = on;
SET themis.probe_order = off;
EXPLAIN (ANALYZE, COSTS OFF) :q08;
SET themis.probe_order = on;
EXPLAIN (ANALYZE, COSTS OFF) :q08;
SET themis.probe_order = off;
EXPLAIN (ANALYZE, COSTS OFF) :q03;
SET themis.probe_order = on;
EXPLAIN (ANALYZE, COSTS OFF) :q03;
SET themis.probe_order = off;
EXPLAIN (ANALYZE, COSTS OFF) :q05;
SET themis.probe_order = on;
EXPLAIN (ANALYZE, COSTS OFF) :q05;
SET themis.probe_order = off;
EXPLAIN (ANALYZE, COSTS OFF) :q07;
SET themis.probe_order = on;
EXPLAIN (ANALYZE, COSTS OFF) :q07;
SET themis.probe_order = off;
EXPLAIN (ANALYZE, COSTS OFF) :q09;
SET themis.probe_order = on;
EXPLAIN (ANALYZE, COSTS OFF) :q09;
\timing on
SET themis.probe_order = off;
:q08;
SET themis.probe_order = on;
:q08;
SET themis.probe_order = off;
:q08;
SET themis.probe_order = on;
:q08;
SET themis.probe_order = off;
:q08;
SET themis.probe_order = on;
:q08;
\timing off
RESET themis.probe_order;
