--
-- 21_join_methods: the same joins as Hash Join, Merge Join and Nested Loop
-- (tt.check_join_methods disables the other two methods for each run)
--
CALL tt.device_on();
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND jl.k2 = jr.k2$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND jl.v > jr.w$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k8$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.kn = jr.kn$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.kc = jr.kc$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k2 = jr.k2$$);
SELECT * FROM tt.check_join_methods($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.f8 = b.f8$$);
SELECT * FROM tt.check_join_methods($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.t = b.t WHERE a.id < 100$$);
SELECT * FROM tt.check_join_methods($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.d = b.d$$);
SELECT * FROM tt.check_join_methods($$SELECT * FROM jl WHERE EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1)$$);
SELECT * FROM tt.check_join_methods($$SELECT * FROM jl WHERE EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1 AND jr.w > jl.v)$$);
SELECT * FROM tt.check_join_methods($$SELECT * FROM jl WHERE NOT EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1)$$);
SELECT * FROM tt.check_join_methods($$SELECT * FROM jl WHERE NOT EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1 AND jr.w > jl.v)$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid FROM jl LEFT JOIN jr ON jl.k1 = jr.k1$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 AND jr.w > jl.v$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.* FROM jl LEFT JOIN jr ON jr.k1 = jl.k1 WHERE jr.id IS NULL$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid, t.id AS tid
                                      FROM jl JOIN jr ON jl.k1 = jr.k1 LEFT JOIN types t ON t.i4 = jr.w$$);
SELECT * FROM tt.check_join_methods($$SELECT a.id AS aid, e.id AS eid FROM types a LEFT JOIN empty_types e ON a.i4 = e.i4$$);
SELECT * FROM tt.check_join_methods($$SELECT o.o_orderkey, l.l_linenumber, l.l_quantity
                                      FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey
                                      WHERE o.o_orderdate BETWEEN '1995-01-01' AND '1995-01-31'$$);
SELECT * FROM tt.check_join_methods($$SELECT c.c_custkey, o.o_orderkey FROM customer c LEFT JOIN orders o ON o.o_custkey = c.c_custkey
                                      WHERE c.c_acctbal > 9000$$);
SELECT * FROM tt.check_join_methods($$SELECT p.p_partkey, ps.ps_suppkey, s.s_name FROM part p
                                      JOIN partsupp ps ON ps.ps_partkey = p.p_partkey
                                      JOIN supplier s ON s.s_suppkey = ps.ps_suppkey
                                      WHERE p.p_size = 7$$);
SELECT * FROM tt.check_join_methods($$SELECT n_name, count(*) AS n, sum(c_acctbal) AS bal FROM customer JOIN nation ON c_nationkey = n_nationkey
                                      GROUP BY n_name$$);

-- themis.stream_lookup_side: an inner join that PostgreSQL runs as index lookups into a much larger
-- table (a nested loop over a parameterized scan) hashes the outer side and streams the table through
-- the probe; the same answers under every join method
SET themis.stream_lookup_side = on;
SELECT * FROM tt.check_join_methods($$SELECT o.o_orderkey, l.l_linenumber, l.l_quantity
                                      FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey
                                      WHERE o.o_orderdate BETWEEN '1995-01-01' AND '1995-01-31'$$);
SELECT * FROM tt.check_join_methods($$SELECT o.o_orderkey, l.l_linenumber FROM orders o
                                      JOIN lineitem l ON l.l_orderkey = o.o_orderkey AND l.l_quantity * 1000 > o.o_totalprice
                                      WHERE o.o_orderdate < '1993-06-01' AND l.l_returnflag = 'R'$$);
SELECT * FROM tt.check_join_methods($$SELECT c.c_name, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue
                                      FROM customer c JOIN orders o ON o.o_custkey = c.c_custkey
                                      JOIN lineitem l ON l.l_orderkey = o.o_orderkey
                                      WHERE c.c_mktsegment = 'BUILDING' AND o.o_orderdate < '1995-03-15'
                                      GROUP BY c.c_name$$);
SELECT * FROM tt.check_join_methods($$SELECT count(*), sum(l.l_quantity) FROM orders o
                                      JOIN lineitem l ON l.l_orderkey = o.o_orderkey WHERE o.o_orderkey < 0$$);
-- NULL keys and duplicates on both sides, an empty outer side, and an error in the join filter
CREATE TABLE sl_small (k int, v int);
CREATE TABLE sl_big (k int, w int);
INSERT INTO sl_small VALUES (1, 10), (1, 11), (2, 20), (NULL, 30), (5, 0), (7, 70), (NULL, NULL);
INSERT INTO sl_big SELECT CASE WHEN i % 50 = 0 THEN NULL ELSE i % 40 END, i FROM generate_series(1, 12000) i;
CREATE INDEX ON sl_big (k);
ANALYZE sl_small, sl_big;
SELECT * FROM tt.check_join_methods($$SELECT s.k, s.v, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k$$);
SELECT * FROM tt.check_join_methods($$SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100$$);
SELECT * FROM tt.check_join_methods($$SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k WHERE s.v > 1000$$);
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT * FROM tt.check_error($$SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k WHERE b.w / s.v > 1$$);
SELECT * FROM tt.check_error($$SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k WHERE b.w * 1000000 > s.v$$);
SET themis.min_rows = 0;
EXPLAIN (COSTS OFF) SELECT s.k, s.v, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k;
-- auto (the default): only where the table has over 1000x the outer side's rows (12,000 against 7);
-- the lookup's qual on the outer row's value (b.w > s.v * 100) is a residual join qual
SET themis.stream_lookup_side = auto;
EXPLAIN (COSTS OFF) SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100;
SELECT * FROM tt.check($$SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100$$);
SELECT * FROM tt.check_error($$SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w / s.v > 1$$);
DELETE FROM sl_big WHERE w > 6000;
ANALYZE sl_big;
EXPLAIN (COSTS OFF) SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100;
-- ... or where it has over 4x the outer side's rows and at least 10 M rows (a fact table; the row counts
-- faked in pg_class, the outer side's to 100,000 estimated rows: 20 M is 200x that, 9 M 90x), the
-- same answers
UPDATE pg_class SET reltuples = 1e5, relpages = 1 WHERE oid = 'sl_small'::regclass;
UPDATE pg_class SET reltuples = 2e7 WHERE oid = 'sl_big'::regclass;
EXPLAIN (COSTS OFF) SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100;
SELECT * FROM tt.check($$SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100$$);
UPDATE pg_class SET reltuples = 9e6 WHERE oid = 'sl_big'::regclass;
EXPLAIN (COSTS OFF) SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100;
-- under a Gather, PostgreSQL's estimate of a partial outer side is one participant's rows: the rule takes
-- all of them (sl_small faked to 6 M rows over 4 workers, 1.5 M each; 20 M is over 4x one participant's
-- rows, not over 4x all: the table is hashed; with 3 M rows it streams), the same answers
UPDATE pg_class SET reltuples = 2e7 WHERE oid = 'sl_big'::regclass;
UPDATE pg_class SET reltuples = 6e6 WHERE oid = 'sl_small'::regclass;
ALTER TABLE sl_small SET (parallel_workers = 4);
SET max_parallel_workers_per_gather = 4;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET themis.enabled = off;
EXPLAIN (COSTS OFF) SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100;
RESET themis.enabled;
EXPLAIN (COSTS OFF) SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100;
SELECT * FROM tt.check($$SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100$$);
UPDATE pg_class SET reltuples = 3e6 WHERE oid = 'sl_small'::regclass;
EXPLAIN (COSTS OFF) SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100;
SELECT * FROM tt.check($$SELECT s.k, b.w FROM sl_small s JOIN sl_big b ON b.k = s.k AND b.w > s.v * 100$$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET themis.stream_lookup_side = on;
RESET themis.min_rows;
RESET enable_hashjoin;
RESET enable_mergejoin;
DROP TABLE sl_small, sl_big;
-- the plan: the outer side's pipeline builds, the table's pipeline probes
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET themis.min_rows = 0;
EXPLAIN (COSTS OFF) SELECT o.o_orderkey, l.l_linenumber, l.l_quantity
  FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey
  WHERE o.o_orderdate BETWEEN '1995-01-01' AND '1995-01-31';
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET themis.min_rows;
RESET themis.stream_lookup_side;
-- an inner Merge Join hashes the side PostgreSQL expects to be the smaller one, by at least 2x (here its
-- outer side: 300 rows through their primary key's index, against 30,000 sorted ones); NULL keys and
-- repeated keys, a join filter, an aggregate, the same answers.  Where the join's order is needed
-- (ORDER BY its key, no Sort above it), the translation without the swap: the planned sides
CREATE TABLE ms_small (k int PRIMARY KEY, v int);
CREATE TABLE ms_big (k int, w int);
INSERT INTO ms_small SELECT i * 3, i FROM generate_series(1, 300) i;
INSERT INTO ms_big SELECT CASE WHEN i % 37 = 0 THEN NULL ELSE i % 1500 END, i FROM generate_series(1, 30000) i;
ANALYZE ms_small, ms_big;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET themis.min_rows = 0;
SET themis.enabled = off;
EXPLAIN (COSTS OFF) SELECT s.k, s.v, b.w FROM ms_small s JOIN ms_big b ON b.k = s.k;
SET themis.enabled = on;
EXPLAIN (COSTS OFF) SELECT s.k, s.v, b.w FROM ms_small s JOIN ms_big b ON b.k = s.k;
SELECT * FROM tt.check($$SELECT s.k, s.v, b.w FROM ms_small s JOIN ms_big b ON b.k = s.k$$);
SELECT * FROM tt.check($$SELECT s.k, b.w FROM ms_small s JOIN ms_big b ON b.k = s.k AND b.w > s.v * 50$$);
SELECT * FROM tt.check($$SELECT s.v % 7 AS g, count(*), sum(b.w) FROM ms_small s JOIN ms_big b ON b.k = s.k
                         GROUP BY s.v % 7$$);
SELECT * FROM tt.check_error($$SELECT s.k, b.w FROM ms_small s JOIN ms_big b ON b.k = s.k WHERE b.w / (s.v - 150) > 1$$);
SELECT * FROM tt.check($$SELECT s.k, b.w FROM ms_small s JOIN ms_big b ON b.k = s.k WHERE s.v < 0$$);
SELECT * FROM tt.check($$SELECT count(*), sum(b.w) FROM ms_small s JOIN ms_big b ON b.k = s.k WHERE b.w < 0$$);
EXPLAIN (COSTS OFF) SELECT s.k, b.w FROM ms_small s JOIN ms_big b ON b.k = s.k ORDER BY s.k;
SELECT * FROM tt.check_ordered($$SELECT s.k, b.w FROM ms_small s JOIN ms_big b ON b.k = s.k ORDER BY s.k, b.w$$);
RESET enable_hashjoin;
RESET enable_nestloop;
RESET themis.min_rows;
DROP TABLE ms_small, ms_big;
