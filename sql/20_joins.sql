--
-- 20_joins: inner / semi / anti / left equi-joins with the planner's default plan shapes.
-- jl and jr have NULL keys and duplicate keys on both sides; jr.k8 holds values that equal a
-- jl.k1 value modulo 2^32 (a wrong int4 <-> int8 key conversion would match them).
--
-- inner
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jl.k1, jl.k2, jl.k8, jl.kn, jl.kd, jl.kc, jl.kv, jl.v, jr.id AS rid, jr.k2 AS rk2,
                                jr.k8 AS rk8, jr.kn AS rkn, jr.kd AS rkd, jr.kc AS rkc, jr.kv AS rkv, jr.w
                         FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jl.v > 0$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid, jl.k2 FROM jl JOIN jr ON jl.k2 = jr.k2$$);        -- 'e' <> 'e '
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND jl.k2 = jr.k2$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k2 = jr.k2 AND jl.k1 = jr.k1 AND jl.kc = jr.kc$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr USING (k1)$$);
SELECT * FROM tt.check($$SELECT k1, k2, jl.v, jr.w FROM jl JOIN jr USING (k1, k2)$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl, jr WHERE jl.k1 = jr.k1 AND jl.v > jr.w$$);  -- residual
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND (jl.v + jr.w) % 3 = 0$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND (jl.k2 = jr.k2 OR jr.k2 IS NULL)$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jl.v > 500 AND jr.w < 0$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 + 10 = jr.k1$$);          -- key expressions
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 - jr.k1 % 2$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON upper(jl.k2) = upper(jr.k2)$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON substr(jl.k2, 1, 1) = substr(jr.k2, 1, 1)$$);
SELECT * FROM tt.check($$SELECT jl.k1 AS k, jl.v + jr.w AS vw, jl.v * 2 AS v2, jr.k2 || jl.k2 AS k22 FROM jl JOIN jr ON jl.k1 = jr.k1$$);
-- cross-type keys
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid, jl.k1, jr.k8 FROM jl JOIN jr ON jl.k1 = jr.k8$$);  -- int4 = int8
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k8 = jr.k8$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k8 = jr.k1$$);                 -- int8 = int4
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.i2 = b.i8 WHERE a.id % 3 = 0$$);  -- int2 = int8
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.i4 = b.i8 WHERE b.id > 900$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid, jl.kn, jr.kn AS kn2 FROM jl JOIN jr ON jl.kn = jr.kn$$);  -- numeric(10,2) = numeric(12,4)
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.kn = jr.k1$$);                 -- numeric = int4
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.kd = jr.kd$$);                 -- date = timestamp
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid, jl.kc, jr.kc AS kc2 FROM jl JOIN jr ON jl.kc = jr.kc$$);  -- char(6) = char(8)
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid, jl.kv, jr.kv AS kv2 FROM jl JOIN jr ON jl.kv = jr.kv$$);  -- varchar = text
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.kc = jr.kv$$);                 -- char = text
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.kv = jr.kc$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.kc::text = jr.kv$$);
-- float keys: NaN = NaN, -0 = 0
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid, a.f8 FROM types a JOIN types b ON a.f8 = b.f8$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid, a.f4 FROM types a JOIN types b ON a.f4 = b.f4$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.f4 = b.f8$$);           -- float4 = float8
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN edge b ON a.f8 = b.f8$$);
-- other key types, self joins with many duplicates
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.g = b.g WHERE a.id <= 200 AND b.id <= 200$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.b = b.b WHERE a.id <= 60 AND b.id <= 60$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.d = b.d AND a.id < b.id$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.ts = b.ts$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.n2 = b.n4$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.t = b.t WHERE a.id < 100 AND b.id < 100$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.c10 = b.c10 WHERE a.id < 100 AND b.id < 100$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.vc = b.vc WHERE a.id < 100 AND b.id < 100$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.t = b.vc WHERE a.id > 990 AND b.id > 950$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN edge b ON a.i4 = b.i4$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN edge b ON a.i8 = b.i4$$);            -- 4294967298 vs 2
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM edge a JOIN edge b ON a.d = b.d$$);               -- infinities
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM edge a JOIN edge b ON a.ts = b.ts AND a.n2 = b.n2$$);
-- NULL keys never match; IS NOT DISTINCT FROM does
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k2 = jr.k2 WHERE jl.k2 IS NULL$$);  -- no rows
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 IS NOT DISTINCT FROM jr.k1$$);
-- three and more tables
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid, t.id AS tid
                         FROM jl JOIN jr ON jl.k1 = jr.k1 JOIN types t ON t.i4 = jr.w % 200$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid, c.id AS cid
                         FROM jl a JOIN jr b ON a.k1 = b.k1 JOIN jl c ON c.k2 = b.k2 AND c.k1 = a.k1 + 1$$);
SELECT * FROM tt.check($$SELECT c.c_custkey, o.o_orderkey, l.l_linenumber
                         FROM customer c JOIN orders o ON o.o_custkey = c.c_custkey
                                         JOIN lineitem l ON l.l_orderkey = o.o_orderkey
                         WHERE c.c_nationkey = 3 AND o.o_orderdate < '1993-01-01' AND l.l_quantity > 45$$);
SELECT * FROM tt.check($$SELECT n.n_name, s.s_suppkey, ps.ps_partkey
                         FROM nation n JOIN supplier s ON s.s_nationkey = n.n_nationkey
                                       JOIN partsupp ps ON ps.ps_suppkey = s.s_suppkey
                                       JOIN region r ON r.r_regionkey = n.n_regionkey
                         WHERE r.r_name = 'ASIA' AND ps.ps_availqty < 100$$);
-- semi joins: EXISTS and IN
SELECT * FROM tt.check($$SELECT * FROM jl WHERE EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1)$$);
SELECT * FROM tt.check($$SELECT * FROM jl WHERE jl.k1 IN (SELECT k1 FROM jr)$$);
SELECT * FROM tt.check($$SELECT * FROM jl WHERE jl.k1 IN (SELECT k8 FROM jr)$$);                                -- cross type
SELECT * FROM tt.check($$SELECT * FROM jl WHERE (jl.k1, jl.k2) IN (SELECT k1, k2 FROM jr)$$);
SELECT * FROM tt.check($$SELECT * FROM jl WHERE EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1 AND jr.w > jl.v)$$);  -- residual
SELECT * FROM tt.check($$SELECT * FROM jl WHERE EXISTS (SELECT 1 FROM jr WHERE jr.k2 = jl.k2 AND jr.w > 900)$$);
SELECT * FROM tt.check($$SELECT * FROM jr WHERE EXISTS (SELECT 1 FROM jl WHERE jl.k1 = jr.k1)$$);
SELECT * FROM tt.check($$SELECT * FROM jr WHERE k1 IN (SELECT k1 FROM jl WHERE v > 0) AND w < 0$$);
SELECT * FROM tt.check($$SELECT * FROM jl WHERE k1 IN (SELECT k1 FROM jr) AND k2 IN (SELECT k2 FROM jr WHERE w > 0)$$);
SELECT * FROM tt.check($$SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey AND l_quantity > 49)$$);
SELECT * FROM tt.check($$SELECT * FROM customer WHERE c_custkey IN (SELECT o_custkey FROM orders WHERE o_totalprice > 400000)$$);
-- anti joins: NOT EXISTS, left join ... IS NULL, NOT IN
SELECT * FROM tt.check($$SELECT * FROM jl WHERE NOT EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1)$$);           -- NULL keys kept
SELECT * FROM tt.check($$SELECT * FROM jl WHERE NOT EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1 AND jr.k2 = jl.k2)$$);
SELECT * FROM tt.check($$SELECT * FROM jl WHERE NOT EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1 AND jr.w > jl.v)$$);  -- residual
SELECT * FROM tt.check($$SELECT * FROM jl WHERE NOT EXISTS (SELECT 1 FROM jr WHERE jr.k8 = jl.k1)$$);
SELECT * FROM tt.check($$SELECT * FROM jr WHERE NOT EXISTS (SELECT 1 FROM jl WHERE jl.k2 = jr.k2)$$);
SELECT * FROM tt.check($$SELECT jl.* FROM jl LEFT JOIN jr ON jr.k1 = jl.k1 WHERE jr.k1 IS NULL$$);
SELECT * FROM tt.check($$SELECT jl.* FROM jl LEFT JOIN jr ON jr.k1 = jl.k1 WHERE jr.id IS NULL$$);
SELECT * FROM tt.check($$SELECT * FROM jl WHERE k1 NOT IN (SELECT k1 FROM jr WHERE k1 IS NOT NULL)$$);
SELECT * FROM tt.check($$SELECT * FROM jl WHERE k1 NOT IN (SELECT k1 FROM jr)$$);                               -- NULL in subquery: no rows
SELECT * FROM tt.check($$SELECT * FROM customer WHERE NOT EXISTS (SELECT 1 FROM orders WHERE o_custkey = c_custkey)$$);
SELECT * FROM tt.check($$SELECT * FROM orders WHERE NOT EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey
                                                                  AND l_receiptdate > l_commitdate)$$);
-- left outer joins
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid, jr.w FROM jl LEFT JOIN jr ON jl.k1 = jr.k1$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 AND jl.k2 = jr.k2$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 AND jr.w > 0$$);     -- filter in ON
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 AND jl.v > 0$$);     -- outer filter in ON
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 AND jr.w > jl.v$$);  -- residual in ON
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 WHERE jr.w > 0$$);   -- becomes inner
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 WHERE jr.w > 0 OR jr.w IS NULL$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 WHERE jl.v > 0$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, COALESCE(jr.w, 0) AS w, jr.k2 IS NULL AS nomatch FROM jl LEFT JOIN jr ON jl.k8 = jr.k8$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jr RIGHT JOIN jl ON jl.k1 = jr.k1$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid, t.id AS tid
                         FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 LEFT JOIN types t ON t.i4 = jr.w$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid, t.id AS tid
                         FROM jl JOIN jr ON jl.k1 = jr.k1 LEFT JOIN types t ON t.i4 = jl.v AND t.b$$);
SELECT * FROM tt.check($$SELECT c.c_custkey, count(o.o_orderkey) AS n
                         FROM customer c LEFT JOIN orders o ON o.o_custkey = c.c_custkey AND o.o_orderpriority = '1-URGENT'
                         GROUP BY c.c_custkey$$);
-- empty inputs
SELECT * FROM tt.check($$SELECT a.id AS aid, e.id AS eid FROM types a JOIN empty_types e ON a.i4 = e.i4$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, e.id AS eid FROM empty_types e JOIN types a ON a.i4 = e.i4$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, e.id AS eid FROM types a LEFT JOIN empty_types e ON a.i4 = e.i4$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, e.id AS eid FROM empty_types e LEFT JOIN types a ON a.i4 = e.i4$$);
SELECT * FROM tt.check($$SELECT * FROM types a WHERE EXISTS (SELECT 1 FROM empty_types e WHERE e.i4 = a.i4)$$);
SELECT * FROM tt.check($$SELECT * FROM types a WHERE NOT EXISTS (SELECT 1 FROM empty_types e WHERE e.i4 = a.i4)$$);
SELECT * FROM tt.check($$SELECT * FROM empty_types a WHERE NOT EXISTS (SELECT 1 FROM types e WHERE e.i4 = a.i4)$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jl.v > 5000$$);       -- filter empties one side
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 AND jr.w > 5000$$);
SELECT * FROM tt.check($$SELECT o.o_orderkey, l.l_linenumber FROM orders_empty o JOIN lineitem l ON l.l_orderkey = o.o_orderkey$$);
SELECT * FROM tt.check($$SELECT o.o_orderkey, l.l_linenumber FROM orders o JOIN lineitem_empty l ON l.l_orderkey = o.o_orderkey$$);
SELECT * FROM tt.check($$SELECT o.o_orderkey FROM orders o WHERE NOT EXISTS (SELECT 1 FROM lineitem_empty l WHERE l.l_orderkey = o.o_orderkey)
                                                             AND o.o_orderkey < 1000$$);
-- non-equi and cross joins (not eligible as joins; the scans may be)
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 < jr.k1 - 60$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM edge a CROSS JOIN edge b WHERE a.i4 > b.i4$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl FULL JOIN jr ON jl.k1 = jr.k1$$);
-- a column of the nullable side that themis rebuilds from its slots after the probe (a numeric quotient:
-- avg(), x / 3): NULL where no row matched, as PostgreSQL's (computed below the join) is; a non-strict
-- one (coalesce) would not be NULL there, and is left to PostgreSQL; a strict one stays in the node
CREATE TABLE jn_c (id int, k int);
CREATE TABLE jn_o (k int, w int);
CREATE TABLE jn_q (k int, n numeric(10,2));
INSERT INTO jn_c SELECT i, i % 7 FROM generate_series(1, 200) i;
INSERT INTO jn_o SELECT i % 4, i FROM generate_series(1, 100) i;
INSERT INTO jn_q SELECT i % 5, CASE WHEN i % 3 = 0 THEN NULL ELSE i * 1.25 END FROM generate_series(1, 40) i;
ANALYZE jn_c, jn_o, jn_q;
SET enable_nestloop = off;
SET enable_mergejoin = off;
SELECT * FROM tt.check($$SELECT jn_c.id, g.av FROM jn_c LEFT JOIN (SELECT k, coalesce(avg(w), 0) AS av FROM jn_o GROUP BY k) g
                         ON g.k = jn_c.k$$);
SELECT * FROM tt.check($$SELECT jn_c.id, g.av FROM jn_c LEFT JOIN (SELECT k, avg(w) / 3 AS av FROM jn_o GROUP BY k) g
                         ON g.k = jn_c.k$$);
SELECT * FROM tt.check($$SELECT jn_c.id, x.v FROM jn_c LEFT JOIN (SELECT jn_q.k, coalesce(jn_q.n, 1) / 3 AS v FROM jn_q) x
                         ON x.k = jn_c.k$$);
SELECT * FROM tt.check($$SELECT jn_c.id, x.v FROM (SELECT jn_q.k, coalesce(jn_q.n / 3, 0) AS v FROM jn_q) x
                         RIGHT JOIN jn_c ON x.k = jn_c.k$$);
SELECT * FROM tt.check($$SELECT jn_c.id, x.v FROM jn_c LEFT JOIN (SELECT jn_q.k, jn_q.n / 3 AS v FROM jn_q) x
                         ON x.k = jn_c.k$$);
RESET enable_nestloop;
RESET enable_mergejoin;
DROP TABLE jn_c, jn_o, jn_q;
