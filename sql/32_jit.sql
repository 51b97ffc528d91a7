--
-- 32_jit: kernels generated per pipeline (themis.gpu_jit; cuda/tm_jit.h).  Most queries below are of the
-- shape a generated kernel runs (filters and join residuals that are trees of plain tests, inner / semi /
-- anti joins on columns, group keys that are columns, count / sum / min / max of columns or plain
-- arithmetic, FILTERs that are trees of tests), compared with themis off; with wait, each
-- execution waits for its kernel to be compiled, so on a GPU the generated kernel runs them all.  On the
-- CPU executor the setting changes nothing, and the same results are expected.
--
SET themis.gpu_jit = wait;

-- which kernel ran q's pipelines: on a GPU, does EXPLAIN ANALYZE show one of the Kernel: values like
-- pat?  (elsewhere: true, the CPU executor has no kernels)
CREATE FUNCTION pg_temp.kernel_like(q text, pat text) RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE
    j json;
BEGIN
    IF tt._device() <> 'gpu' THEN
        RETURN true;
    END IF;
    PERFORM tt._themis(true);
    EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO j;
    RETURN EXISTS (SELECT 1 FROM jsonb_path_query(j::jsonb, '$.**."Kernel"') k WHERE k #>> '{}' LIKE pat);
END
$f$;

-- TPC-H Q1 and Q6
SELECT * FROM tt.check($$SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q, sum(l_extendedprice) AS p,
                                sum(l_extendedprice * (1 - l_discount)) AS dp, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS c,
                                avg(l_quantity) AS aq, avg(l_extendedprice) AS ap, avg(l_discount) AS ad
                         FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 days'
                         GROUP BY l_returnflag, l_linestatus$$);
SELECT * FROM tt.check($$SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem
                         WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1 year'
                           AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24$$);
SELECT pg_temp.kernel_like($$SELECT l_returnflag, l_linestatus, count(*), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax))
                             FROM lineitem WHERE l_shipdate <= date '1998-09-02' GROUP BY l_returnflag, l_linestatus$$,
                           'generated%') AS q1_generated;
SELECT pg_temp.kernel_like($$SELECT sum(l_extendedprice * l_discount) FROM lineitem
                             WHERE l_shipdate >= date '1994-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24$$,
                           'generated%') AS q6_generated;

-- NULLs in keys, arguments and tests; every kind of test (IN lists and LIKE through fq_test_ab, an OR)
SELECT * FROM tt.check($$SELECT g, count(*) AS n, count(i4) AS c, sum(i2) AS s2, sum(i4) AS s4, sum(i8) AS s8, sum(n2) AS sn,
                                min(i8) AS mi, max(d) AS md, min(ts) AS mt, sum(n2 * n4 - i4) AS x
                         FROM types WHERE i4 > -50 OR n2 < 0 GROUP BY g$$);
SELECT * FROM tt.check($$SELECT c10, b, count(*) AS n, sum(i4 * 3 + i2) AS s FROM types
                         WHERE t LIKE '%a%' AND g IN (1, 3, 5, 7) GROUP BY c10, b$$);
SELECT * FROM tt.check($$SELECT vc, count(*) AS n, max(i2) AS m FROM types WHERE d > '2000-01-01' AND i8 <> i4 GROUP BY vc$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(n4 * (1 - n2)) AS s, min(i4) AS mi FROM types WHERE c10 NOT IN ('a', 'b')$$);
SELECT * FROM tt.check($$SELECT l_shipmode, count(*) AS n, sum(l_tax) AS t, min(l_receiptdate) AS mi, max(l_commitdate) AS ma
                         FROM lineitem WHERE l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate GROUP BY l_shipmode$$);
SELECT * FROM tt.check($$SELECT l_suppkey, count(*) AS n, sum(l_quantity) AS q FROM lineitem GROUP BY l_suppkey$$);
SELECT * FROM tt.check($$SELECT count(*) AS n FROM types WHERE i4 > 1000$$);   -- no row passes
SELECT * FROM tt.check($$SELECT g, sum(i4) AS s FROM types WHERE i4 > 1000 GROUP BY g$$);

-- errors: the same error as PostgreSQL's (integer overflow in an argument, numeric sums exact)
SELECT * FROM tt.check_error($$SELECT g, sum(i4 * 100000000) AS s FROM types GROUP BY g$$);
SELECT * FROM tt.check_error($$SELECT sum(i8 * 100000000000000000) AS s FROM types$$);

-- parameters (a prepared statement's generic plan: the same kernel for other values)
PREPARE q_jit(int4, numeric) AS SELECT g, count(*) AS n, sum(n2) AS s FROM types WHERE i4 > $1 AND n2 < $2 GROUP BY g ORDER BY g;
SET plan_cache_mode = force_generic_plan;
SET themis.enabled = on;
SET themis.min_rows = 0;
CALL tt.device_on();
EXECUTE q_jit(0, 100);
EXECUTE q_jit(150, 0);
RESET themis.min_rows;
RESET themis.enabled;
RESET plan_cache_mode;
DEALLOCATE q_jit;

-- joins (TPC-H Q3's and Q12's shapes, a semi join, an anti join) and FILTER
SELECT * FROM tt.check($$SELECT o_orderpriority, count(*) AS n FROM orders JOIN lineitem ON l_orderkey = o_orderkey GROUP BY o_orderpriority$$);
SELECT * FROM tt.check($$SELECT l_orderkey, o_orderdate, o_shippriority, sum(l_extendedprice * (1 - l_discount)) AS revenue
                         FROM customer, orders, lineitem
                         WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
                           AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
                         GROUP BY l_orderkey, o_orderdate, o_shippriority$$);
SELECT * FROM tt.check($$SELECT l_shipmode, sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END) AS high,
                                count(*) FILTER (WHERE o_orderpriority NOT IN ('1-URGENT', '2-HIGH')) AS low
                         FROM orders, lineitem
                         WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate
                           AND l_shipdate < l_commitdate GROUP BY l_shipmode$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(o_totalprice) AS s FROM orders
                         WHERE EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)$$);
SELECT * FROM tt.check($$SELECT count(*) AS n FROM orders WHERE NOT EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey AND l_quantity > 45)$$);
SELECT * FROM tt.check($$SELECT g, count(*) FILTER (WHERE b) AS nb, sum(i4) FILTER (WHERE i2 > 0) AS s FROM types GROUP BY g$$);

-- what it does not run: DISTINCT (the generic kernel, same results)
SELECT * FROM tt.check($$SELECT g, count(DISTINCT i4) AS n, sum(i4) FILTER (WHERE b) AS s FROM types GROUP BY g$$);
SELECT pg_temp.kernel_like($$SELECT g, count(DISTINCT i4) FROM types GROUP BY g$$, 'generic (the pipeline has%') AS distinct_generic;
RESET themis.gpu_jit;
