-- bench/probe/build_reduction.sql — themis.build_reduction off and on (src/build_reduce.c), for
-- bench/run.sh --sql on the uniform or the skewed data.  On the skewed data PostgreSQL's Q3 joins
-- lineitem to orders first and then to customer: themis built every order of the date range; with the
-- setting on, customer is built first and the orders' build probes it (SEMI), so only the orders of the
-- segment's customers are built.  Q8 (customer's build reduced by nation n1 where nation is probed on
-- customer's column) and Q2, Q5, Q7, Q9 (where it may or may not apply): EXPLAIN ANALYZE off then on,
-- then timed runs alternating off / on, three each of Q3 and Q8.  The setting takes effect when a query
-- is planned: each statement here is planned after its SET.  The results must be the same.
\pset pager off
\set q02 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q02.sql"`
\set q03 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q03.sql"`
\set q05 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q05.sql"`
\set q07 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q07.sql"`
\set q08 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q08.sql"`
\set q09 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q09.sql"`
SET themis.enabled = on;
SET themis.build_reduction = off;
EXPLAIN (ANALYZE, COSTS OFF) :q03;
SET themis.build_reduction = on;
EXPLAIN (ANALYZE, COSTS OFF) :q03;
SET themis.build_reduction = off;
EXPLAIN (ANALYZE, COSTS OFF) :q08;
SET themis.build_reduction = on;
EXPLAIN (ANALYZE, COSTS OFF) :q08;
SET themis.build_reduction = off;
EXPLAIN (ANALYZE, COSTS OFF) :q02;
SET themis.build_reduction = on;
EXPLAIN (ANALYZE, COSTS OFF) :q02;
SET themis.build_reduction = off;
EXPLAIN (ANALYZE, COSTS OFF) :q05;
SET themis.build_reduction = on;
EXPLAIN (ANALYZE, COSTS OFF) :q05;
SET themis.build_reduction = off;
EXPLAIN (ANALYZE, COSTS OFF) :q07;
SET themis.build_reduction = on;
EXPLAIN (ANALYZE, COSTS OFF) :q07;
SET themis.build_reduction = off;
EXPLAIN (ANALYZE, COSTS OFF) :q09;
SET themis.build_reduction = on;
EXPLAIN (ANALYZE, COSTS OFF) :q09;
\timing on
SET themis.build_reduction = off;
:q03;
SET themis.build_reduction = on;
:q03;
SET themis.build_reduction = off;
:q03;
SET themis.build_reduction = on;
:q03;
SET themis.build_reduction = off;
:q03;
SET themis.build_reduction = on;
:q03;
SET themis.build_reduction = off;
:q08;
SET themis.build_reduction = on;
:q08;
SET themis.build_reduction = off;
:q08;
SET themis.build_reduction = on;
:q08;
SET themis.build_reduction = off;
:q08;
SET themis.build_reduction = on;
:q08;
\timing off
RESET themis.build_reduction;
