-- bench/probe/q13_parts.sql — TPC-H Q13 taken apart (for bench/run.sh --sql): its LIKE filter on
-- o_comment alone, a plain filter over the same rows, the hash build of orders by o_custkey without the
-- LIKE, then Q13; each twice (the second is warm).  Where Q13's GPU time goes: the LIKE, or the build.
\pset pager off
\set ea 'EXPLAIN (ANALYZE, COSTS OFF)'
\set q13 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q13.sql"`
:ea SELECT count(*) FROM orders WHERE o_comment NOT LIKE '%special%requests%';
:ea SELECT count(*) FROM orders WHERE o_comment NOT LIKE '%special%requests%';
:ea SELECT count(*) FROM orders WHERE o_comment LIKE 'special%';
:ea SELECT count(*) FROM orders WHERE o_comment LIKE 'special%';
:ea SELECT count(*) FROM orders WHERE o_custkey > 0;
:ea SELECT count(*) FROM orders WHERE o_custkey > 0;
:ea SELECT c_count, count(*) FROM (SELECT c_custkey, count(o_orderkey) FROM customer LEFT JOIN orders ON c_custkey = o_custkey GROUP BY c_custkey) AS c_orders (c_custkey, c_count) GROUP BY c_count ORDER BY 2 DESC, 1 DESC;
:ea SELECT c_count, count(*) FROM (SELECT c_custkey, count(o_orderkey) FROM customer LEFT JOIN orders ON c_custkey = o_custkey GROUP BY c_custkey) AS c_orders (c_custkey, c_count) GROUP BY c_count ORDER BY 2 DESC, 1 DESC;
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) :q13;
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) :q13;
