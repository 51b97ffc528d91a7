--
-- 90_explain: EXPLAIN output of representative queries with themis forced on
-- (expected output to be reviewed by hand whenever the EXPLAIN format of the node changes)
--
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- scan with a filter
EXPLAIN (COSTS OFF) SELECT id, i4, t FROM types WHERE i4 > 100 AND t LIKE 'a%';
-- hash join (inner), with a residual condition
EXPLAIN (COSTS OFF) SELECT jl.id, jr.id FROM jl JOIN jr ON jl.k1 = jr.k1 AND jl.v > jr.w;
-- semi and anti joins
EXPLAIN (COSTS OFF) SELECT * FROM jl WHERE EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1);
EXPLAIN (COSTS OFF) SELECT * FROM jl WHERE NOT EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1);
-- left join
EXPLAIN (COSTS OFF) SELECT jl.id, jr.w FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 AND jr.w > 0;
-- merge join and nested loop as planned by PostgreSQL
SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT jl.id, jr.id FROM jl JOIN jr ON jl.k1 = jr.k1;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT jl.id, jr.id FROM jl JOIN jr ON jl.k1 = jr.k1;
RESET enable_hashjoin;
RESET enable_mergejoin;
-- grouped aggregation, hashed and sorted
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(i4), min(t), avg(n2) FROM types GROUP BY g;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(i4), min(t), avg(n2) FROM types GROUP BY g;
RESET enable_hashagg;
-- columns functionally dependent on the group keys: carried by any()
EXPLAIN (COSTS OFF) SELECT t1.id, t1.t, t1.n2, count(*) FROM types t1 JOIN jl ON jl.k1 = t1.id % 50 GROUP BY t1.id;
-- aggregate with DISTINCT and FILTER, HAVING
EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT i4), count(*) FILTER (WHERE b) FROM types GROUP BY g HAVING count(*) > 10;
-- not offloaded: a volatile function, a PL/pgSQL function
EXPLAIN (COSTS OFF) SELECT id FROM types WHERE random() < 2;
EXPLAIN (COSTS OFF) SELECT id FROM types WHERE tt.plus1(i4) = 6;
-- a parameter (generic plan) and an initplan
SET plan_cache_mode = force_generic_plan;
PREPARE e1(int) AS SELECT id, t FROM types WHERE i4 = $1;
EXPLAIN (COSTS OFF) EXECUTE e1(5);
DEALLOCATE e1;
RESET plan_cache_mode;
EXPLAIN (COSTS OFF) SELECT id FROM types WHERE i4 > (SELECT avg(i4) FROM types);
-- TPC-H Q1, Q3, Q5
EXPLAIN (COSTS OFF)
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order
FROM lineitem
WHERE l_shipdate <= date '1998-12-01' - interval '90 days'
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus;
EXPLAIN (COSTS OFF)
SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM customer, orders, lineitem
WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority
ORDER BY revenue DESC, o_orderdate, l_orderkey
LIMIT 10;
EXPLAIN (COSTS OFF)
SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM customer, orders, lineitem, supplier, nation, region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey AND c_nationkey = s_nationkey
  AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey AND r_name = 'ASIA'
  AND o_orderdate >= date '1994-01-01' AND o_orderdate < date '1994-01-01' + interval '1 year'
GROUP BY n_name
ORDER BY revenue DESC, n_name;
-- parallel: Partial Aggregate + Gather + Finalize Aggregate
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem GROUP BY l_returnflag;
EXPLAIN (COSTS OFF) SELECT count(*), sum(l_extendedprice) FROM lineitem WHERE l_discount > 0.05;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- VERBOSE: output columns of the node
EXPLAIN (VERBOSE, COSTS OFF) SELECT jl.k2, count(*), sum(jr.w) FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jl.v > 0 GROUP BY jl.k2;
-- themis off: the plain PostgreSQL plan
SET themis.enabled = off;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(i4) FROM types WHERE i4 > 0 GROUP BY g;
RESET themis.enabled;
RESET themis.device;
RESET themis.min_rows;
RESET themis.fallback;
-- offload only where it pays: with a real threshold, a primary-key lookup stays an Index Scan
-- while an aggregation over the largest table goes to themis
SET themis.device = cpu;
SET themis.min_rows = 10000;
SET themis.startup_cost = 100;
EXPLAIN (COSTS OFF) SELECT o_totalprice FROM orders WHERE o_orderkey = 33;
EXPLAIN (COSTS OFF) SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem GROUP BY l_returnflag;
-- tables smaller than themis.min_rows stay on PostgreSQL
EXPLAIN (COSTS OFF) SELECT count(*) FROM nation WHERE n_regionkey = 1;
-- the default startup cost keeps themis off a table this small
RESET themis.startup_cost;
EXPLAIN (COSTS OFF) SELECT l_returnflag, count(*), sum(l_quantity) FROM lineitem GROUP BY l_returnflag;
RESET themis.device;
RESET themis.min_rows;
-- a plan cached while themis was on follows themis.enabled at run time: its kept PostgreSQL plan runs
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
SET plan_cache_mode = force_generic_plan;
PREPARE cached(int) AS SELECT count(*) FROM lineitem WHERE l_quantity > $1;
EXECUTE cached(10);
SET themis.enabled = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE cached(10);
EXECUTE cached(10);
RESET themis.enabled;
DEALLOCATE cached;
RESET plan_cache_mode;
RESET themis.device;
RESET themis.min_rows;
RESET themis.fallback;
