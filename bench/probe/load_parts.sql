-- bench/probe/load_parts.sql — where a cold query's column read goes (for bench/run.sh --sql): TPC-H Q6
-- cold (after themis.cache_drop()) under EXPLAIN ANALYZE (Column Read Time) with themis.load_workers
-- 12, 8, 4 and 1; a one-column read of lineitem (l_orderkey, the first attribute: the heap scan without
-- the deforming of later attributes) and a six-column one; PostgreSQL's own Q6 and a count(*) scan
-- (8 workers) for comparison.  The loader's DEBUG1 lines give workers and chunks.
\pset pager off
\timing on
\set ea 'EXPLAIN (ANALYZE, COSTS OFF)'
\set q6 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q06.sql"`
SET themis.enabled = off;
SELECT count(*) FROM lineitem;
:q6;
SET themis.enabled = on;
SET client_min_messages = debug1;
SET themis.load_workers = 12;
SELECT themis.cache_drop();
:ea :q6;
SET themis.load_workers = 8;
SELECT themis.cache_drop();
:ea :q6;
SET themis.load_workers = 4;
SELECT themis.cache_drop();
:ea :q6;
SET themis.load_workers = 1;
SELECT themis.cache_drop();
:ea :q6;
RESET themis.load_workers;
SELECT themis.cache_drop();
:ea SELECT count(*) FROM lineitem WHERE l_orderkey > 0;
SELECT themis.cache_drop();
:ea SELECT count(*), sum(l_quantity), sum(l_extendedprice), sum(l_discount), sum(l_tax), min(l_shipdate) FROM lineitem WHERE l_orderkey > 0;
SELECT themis.cache_drop();
