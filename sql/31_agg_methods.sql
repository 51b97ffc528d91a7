--
-- 31_agg_methods: hashed vs sorted aggregation (tt.check_agg_methods), and parallel plans
-- (Partial Aggregate under Gather / Gather Merge with Finalize Aggregate above)
--
SELECT * FROM tt.check_agg_methods($$SELECT g, count(*) AS n, sum(i4) AS s, min(t) AS mi, max(t) AS ma, avg(n2) AS av FROM types GROUP BY g$$);
SELECT * FROM tt.check_agg_methods($$SELECT t, count(*) AS n, sum(i8) AS s FROM types GROUP BY t$$);
SELECT * FROM tt.check_agg_methods($$SELECT c10, vc, count(*) AS n FROM types GROUP BY c10, vc$$);
SELECT * FROM tt.check_agg_methods($$SELECT f8, count(*) AS n FROM types GROUP BY f8$$);
SELECT * FROM tt.check_agg_methods($$SELECT d, max(ts) AS m FROM types GROUP BY d$$);
SELECT * FROM tt.check_agg_methods($$SELECT b, g, count(DISTINCT i4) AS c, sum(n4) AS s FROM types GROUP BY b, g$$);
SELECT * FROM tt.check_agg_methods($$SELECT i4 % 10 AS k, count(*) FILTER (WHERE b) AS n FROM types GROUP BY 1 HAVING count(*) > 10$$);
SELECT * FROM tt.check_agg_methods($$SELECT DISTINCT t, c10 FROM types$$);
SELECT * FROM tt.check_agg_methods($$SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q,
                                            sum(l_extendedprice * (1 - l_discount)) AS dp, avg(l_discount) AS ad
                                     FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 days'
                                     GROUP BY l_returnflag, l_linestatus$$);
SELECT * FROM tt.check_agg_methods($$SELECT l_orderkey, sum(l_quantity) AS q FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 250$$);
SELECT * FROM tt.check_agg_methods($$SELECT jl.k2, count(*) AS n, sum(jr.w) AS s FROM jl JOIN jr ON jl.k1 = jr.k1 GROUP BY jl.k2$$);
SELECT * FROM tt.check_agg_methods($$SELECT g, count(*) AS n FROM empty_types GROUP BY g$$);
SELECT * FROM tt.check_agg_methods($$SELECT t1.id, t1.t, t1.n2, t1.c10, count(*) AS n, sum(jl.v) AS s
                                     FROM types t1 JOIN jl ON jl.k1 = t1.id % 50 GROUP BY t1.id$$);   -- any() of columns the keys determine

-- parallel plans
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM tt.check($$SELECT count(*) AS n FROM lineitem$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l_quantity) AS q, avg(l_extendedprice) AS p, min(l_shipdate) AS mi, max(l_comment) AS mc
                         FROM lineitem WHERE l_discount BETWEEN 0.05 AND 0.07$$);
SELECT * FROM tt.check($$SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q, sum(l_extendedprice) AS p,
                                sum(l_extendedprice * (1 - l_discount)) AS dp, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS c,
                                avg(l_quantity) AS aq, avg(l_extendedprice) AS ap, avg(l_discount) AS ad
                         FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 days'
                         GROUP BY l_returnflag, l_linestatus$$);
SELECT * FROM tt.check_ordered($$SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q
                                 FROM lineitem GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus$$);
SELECT * FROM tt.check($$SELECT l_shipmode, count(*) AS n, sum(l_tax) AS t, min(l_receiptdate) AS mi FROM lineitem GROUP BY l_shipmode$$);
SELECT * FROM tt.check($$SELECT l_suppkey, count(*) AS n, sum(l_quantity) AS q FROM lineitem GROUP BY l_suppkey$$);
SELECT * FROM tt.check($$SELECT l_orderkey, sum(l_quantity) AS q FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 250$$);
SELECT * FROM tt.check($$SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem
                         WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1 year'
                           AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24$$);
SELECT * FROM tt.check($$SELECT o_orderpriority, count(*) AS n, sum(l_quantity) AS q
                         FROM orders JOIN lineitem ON l_orderkey = o_orderkey
                         WHERE o_orderdate >= '1996-01-01' GROUP BY o_orderpriority$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(f8) AS s, sum(f4) AS s4, min(t) AS mi, max(n2) AS ma FROM types WHERE id <= 1000$$);
SELECT * FROM tt.check($$SELECT g, count(*) AS n, sum(f8) AS s, max(f8) AS m FROM types GROUP BY g$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l_quantity) AS q FROM lineitem_empty$$);
SELECT * FROM tt.check($$SELECT c_mktsegment, count(*) AS n, avg(c_acctbal) AS a FROM customer WHERE c_acctbal > 0 GROUP BY c_mktsegment$$);
SELECT * FROM tt.check_agg_methods($$SELECT l_linestatus, count(*) AS n, sum(l_quantity) AS q, max(l_shipinstruct) AS si
                                     FROM lineitem GROUP BY l_linestatus$$);
SELECT * FROM tt.check_join_methods($$SELECT count(*) AS n, sum(l_quantity) AS q FROM orders JOIN lineitem ON l_orderkey = o_orderkey
                                      WHERE o_orderstatus = 'F'$$);
SELECT * FROM tt.check_agg_methods($$SELECT o_orderkey, o_orderdate, o_comment, count(*) AS n, sum(l_quantity) AS q
                                     FROM orders JOIN lineitem ON l_orderkey = o_orderkey GROUP BY o_orderkey$$);
SELECT * FROM tt.check_agg_methods($$SELECT n_nationkey, n_name, n_comment, count(*) AS n, sum(c_acctbal) AS s
                                     FROM customer JOIN nation ON c_nationkey = n_nationkey GROUP BY n_nationkey$$);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- global aggregates with block-private states on the GPU (themis.gpu_private_global_agg; the CPU
-- executor has nothing of the kind): counts, integer and numeric sums, integer min / max, FILTER, a
-- probe into one group (TPC-H Q14), a join that fans out, no rows
SET themis.gpu_private_global_agg = on;
SELECT * FROM tt.check($$SELECT count(*) AS n, count(i4) AS c, sum(i2) AS s2, sum(i4) AS s4, sum(i8) AS s8,
                                sum(n2) AS sn2, sum(n4) AS sn4, min(i4) AS mi, max(i8) AS ma,
                                count(*) FILTER (WHERE b) AS nb, sum(n4) FILTER (WHERE i4 > 0) AS sp FROM types$$);
SELECT * FROM tt.check($$SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem
                         WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1 year'
                           AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24$$);
SELECT * FROM tt.check($$SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
                                / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
                         FROM lineitem, part
                         WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01'
                           AND l_shipdate < date '1995-09-01' + interval '1 month'$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(jr.w) AS s, min(jl.k2) AS mi FROM jl JOIN jr ON jl.k1 = jr.k1$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l_quantity) AS q, max(l_linenumber) AS m FROM lineitem WHERE l_quantity > 1000$$);
RESET themis.gpu_private_global_agg;

-- grouped aggregates whose lanes of one group combine before their atomic on the GPU
-- (themis.gpu_group_wagg): groups past a block's private ones (l_suppkey as in TPC-H Q15, l_orderkey
-- whose consecutive rows share it), counts, integer and numeric sums, integer min / max, FILTER, NULL
-- keys, a join, few groups (all private: the setting changes nothing there)
SET themis.gpu_group_wagg = on;
SELECT * FROM tt.check($$SELECT l_suppkey, sum(l_extendedprice * (1 - l_discount)) AS revenue FROM lineitem
                         WHERE l_shipdate >= date '1996-01-01' AND l_shipdate < date '1996-01-01' + interval '3 month'
                         GROUP BY l_suppkey$$);
SELECT * FROM tt.check($$SELECT l_orderkey, count(*) AS n, sum(l_quantity) AS q, min(l_linenumber) AS mi, max(l_partkey) AS ma,
                                sum(l_extendedprice) FILTER (WHERE l_discount > 0.05) AS sp FROM lineitem GROUP BY l_orderkey$$);
SELECT * FROM tt.check($$SELECT i4 % 97 AS k, count(*) AS n, count(i8) AS c, sum(i2) AS s2, sum(i8) AS s8, sum(n4) AS sn4,
                                min(i4) AS mi, max(i8) AS ma FROM types GROUP BY 1$$);
SELECT * FROM tt.check($$SELECT jl.k2, count(*) AS n, sum(jr.w) AS s FROM jl JOIN jr ON jl.k1 = jr.k1 GROUP BY jl.k2$$);
SELECT * FROM tt.check($$SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q,
                                sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS c
                         FROM lineitem GROUP BY l_returnflag, l_linestatus$$);
-- an error in an aggregate's argument on some rows of a group (division by zero): raised as PostgreSQL raises it
SELECT * FROM tt.check_error($$SELECT l_orderkey, sum(l_quantity / (l_linenumber - 3)) AS q FROM lineitem GROUP BY l_orderkey$$);
RESET themis.gpu_group_wagg;
