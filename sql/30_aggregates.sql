--
-- 30_aggregates: count / sum / avg / min / max on every type, DISTINCT, FILTER, GROUP BY (NULL
-- groups, expressions), HAVING, empty input.  Float sums only where they are exact in any order
-- (multiples of 0.25, or NaN / Infinity dominated).
--
-- no GROUP BY
SELECT * FROM tt.check($$SELECT count(*) AS n FROM types$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, count(i4) AS c4, count(t) AS ct, count(b) AS cb, count(d) AS cd FROM types$$);
SELECT * FROM tt.check($$SELECT sum(i2) AS s2, sum(i4) AS s4, sum(i8) AS s8, sum(n2) AS sn2, sum(n4) AS sn4 FROM types$$);
SELECT * FROM tt.check($$SELECT avg(i2) AS a2, avg(i4) AS a4, avg(i8) AS a8, avg(n2) AS an2, avg(n4) AS an4 FROM types$$);
SELECT * FROM tt.check($$SELECT min(i2) AS a, max(i2) AS b, min(i4) AS c, max(i4) AS d, min(i8) AS e, max(i8) AS f FROM types$$);
SELECT * FROM tt.check($$SELECT min(n2) AS a, max(n2) AS b, min(n4) AS c, max(n4) AS d FROM types$$);
SELECT * FROM tt.check($$SELECT min(f4) AS a, max(f4) AS b, min(f8) AS c, max(f8) AS d FROM types$$);      -- -Infinity, NaN
SELECT * FROM tt.check($$SELECT min(f4) AS a, max(f4) AS b, min(f8) AS c, max(f8) AS d FROM types WHERE id <= 1000$$);
SELECT * FROM tt.check($$SELECT sum(f4) AS a, sum(f8) AS b, avg(f4) AS c, avg(f8) AS d FROM types WHERE id <= 1000$$);
SELECT * FROM tt.check($$SELECT sum(f4) AS a, sum(f8) AS b, avg(f4) AS c, avg(f8) AS d FROM types$$);      -- NaN
SELECT * FROM tt.check($$SELECT sum(f8) AS a, sum(f4) AS b FROM types WHERE id IN (1002, 1008)$$);          -- -0 + -0 = -0
SELECT * FROM tt.check($$SELECT sum(f8) AS a, avg(f8) AS b FROM types WHERE f8 = 'Infinity' OR id <= 100$$);
SELECT * FROM tt.check($$SELECT min(d) AS a, max(d) AS b, min(ts) AS c, max(ts) AS e FROM types$$);
SELECT * FROM tt.check($$SELECT min(t) AS a, max(t) AS b, min(vc) AS c, max(vc) AS e, min(c10) AS f, max(c10) AS g FROM types$$);
SELECT * FROM tt.check($$SELECT min(t) AS a, max(t) AS b FROM types WHERE t < 'b'$$);
SELECT * FROM tt.check($$SELECT bool_and(b) AS a, bool_or(b) AS o, every(b) AS e FROM types$$);
-- extreme values: 128-bit sums, infinities
SELECT * FROM tt.check($$SELECT sum(i2) AS s2, sum(i4) AS s4, sum(i8) AS s8, avg(i8) AS a8, sum(n2) AS sn2, sum(n4) AS sn4 FROM edge$$);
SELECT * FROM tt.check($$SELECT sum(i8) AS s8 FROM edge WHERE i8 > 0$$);                                   -- > 2^64
SELECT * FROM tt.check($$SELECT sum(i4) AS s4, avg(i4) AS a4, sum(i2) AS s2, avg(i2) AS a2 FROM edge WHERE i4 > 0$$);
SELECT * FROM tt.check($$SELECT min(i8) AS a, max(i8) AS b, min(n4) AS c, max(n4) AS d, min(d) AS e, max(d) AS f,
                                min(ts) AS g, max(ts) AS h, min(f4) AS k, max(f8) AS l FROM edge$$);
SELECT * FROM tt.check($$SELECT min(f8) AS a, max(f8) AS b FROM edge WHERE f8 <> 'NaN'$$);
SELECT * FROM tt.check($$SELECT sum(f8) AS a FROM edge WHERE f8 IN ('Infinity', '-Infinity')$$);             -- NaN
SELECT * FROM tt.check($$SELECT sum(n2 * 1000) AS a, sum(n4 * n4) AS b FROM edge$$);
-- DISTINCT
SELECT * FROM tt.check($$SELECT count(DISTINCT i4) AS a, count(DISTINCT t) AS b, count(DISTINCT c10) AS c, count(DISTINCT f8) AS d FROM types$$);
SELECT * FROM tt.check($$SELECT count(DISTINCT d) AS a, count(DISTINCT ts) AS b, count(DISTINCT n2) AS c, count(DISTINCT b) AS e FROM types$$);
SELECT * FROM tt.check($$SELECT sum(DISTINCT i4) AS a, avg(DISTINCT n2) AS b, count(DISTINCT vc) AS c FROM types$$);
SELECT * FROM tt.check($$SELECT count(DISTINCT f4) AS a, count(DISTINCT f8) AS b FROM types WHERE f8 <= 0 OR f8 = 'NaN'$$);  -- -0 = 0, NaN once
SELECT * FROM tt.check($$SELECT g, count(DISTINCT i4) AS a, count(DISTINCT t) AS b, count(*) AS n FROM types GROUP BY g$$);
SELECT * FROM tt.check($$SELECT DISTINCT i4 FROM types$$);
SELECT * FROM tt.check($$SELECT DISTINCT g, b FROM types$$);
SELECT * FROM tt.check($$SELECT DISTINCT c10 FROM types$$);
SELECT * FROM tt.check($$SELECT DISTINCT t FROM types$$);
-- FILTER
SELECT * FROM tt.check($$SELECT count(*) FILTER (WHERE b) AS a, count(*) FILTER (WHERE NOT b) AS c, count(*) FILTER (WHERE b IS NULL) AS e,
                                sum(i4) FILTER (WHERE i4 > 0) AS f, min(t) FILTER (WHERE t <> '') AS g, max(d) FILTER (WHERE d < '2000-01-01') AS h,
                                avg(n2) FILTER (WHERE g = 1) AS k FROM types$$);
SELECT * FROM tt.check($$SELECT g, count(*) FILTER (WHERE i4 > 0) AS a, sum(n2) FILTER (WHERE t LIKE 'a%') AS b,
                                count(DISTINCT i2) FILTER (WHERE b) AS c FROM types GROUP BY g$$);
SELECT * FROM tt.check($$SELECT count(*) FILTER (WHERE false) AS a, sum(i4) FILTER (WHERE i4 > 1000) AS b FROM types$$);
-- GROUP BY
SELECT * FROM tt.check($$SELECT g, count(*) AS n, sum(i4) AS s, min(t) AS mi, max(t) AS ma, avg(n2) AS av FROM types GROUP BY g$$);  -- NULL group
SELECT * FROM tt.check($$SELECT b, count(*) AS n, sum(i8) AS s, min(d) AS mi, max(ts) AS ma FROM types GROUP BY b$$);
SELECT * FROM tt.check($$SELECT g, b, count(*) AS n, sum(i2) AS s, max(n4) AS m FROM types GROUP BY g, b$$);
SELECT * FROM tt.check($$SELECT i2, count(*) AS n FROM types GROUP BY i2$$);
SELECT * FROM tt.check($$SELECT i8, count(*) AS n, sum(i4) AS s FROM types GROUP BY i8$$);
SELECT * FROM tt.check($$SELECT n2, count(*) AS n FROM types GROUP BY n2$$);
SELECT * FROM tt.check($$SELECT f8, count(*) AS n FROM types GROUP BY f8$$);                                 -- NaN, -0, infinities
SELECT * FROM tt.check($$SELECT f4, count(*) AS n FROM types GROUP BY f4$$);
SELECT * FROM tt.check($$SELECT d, count(*) AS n FROM types GROUP BY d$$);
SELECT * FROM tt.check($$SELECT ts, count(*) AS n FROM types GROUP BY ts$$);
SELECT * FROM tt.check($$SELECT t, count(*) AS n, sum(i4) AS s, min(c10) AS mc FROM types GROUP BY t$$);
SELECT * FROM tt.check($$SELECT c10, count(*) AS n, max(vc) AS mv FROM types GROUP BY c10$$);                -- 'abc' = 'abc  '
SELECT * FROM tt.check($$SELECT vc, count(*) AS n FROM types GROUP BY vc$$);
SELECT * FROM tt.check($$SELECT t, vc, c10, count(*) AS n FROM types GROUP BY t, vc, c10$$);
SELECT * FROM tt.check($$SELECT g, i2 % 3 AS m, d, count(*) AS n FROM types GROUP BY g, i2 % 3, d$$);
SELECT * FROM tt.check($$SELECT id, count(*) AS n FROM types GROUP BY id$$);                                 -- one row per group
SELECT * FROM tt.check($$SELECT g, sum(f8) AS s, avg(f4) AS a FROM types WHERE id <= 1000 GROUP BY g$$);
SELECT * FROM tt.check($$SELECT g, sum(f8) AS s, min(f8) AS mi, max(f8) AS ma FROM types GROUP BY g$$);
-- GROUP BY expressions
SELECT * FROM tt.check($$SELECT i4 % 10 AS k, count(*) AS n, sum(i4) AS s FROM types GROUP BY i4 % 10$$);
SELECT * FROM tt.check($$SELECT EXTRACT(year FROM d) AS y, count(*) AS n, sum(n2) AS s FROM types GROUP BY 1$$);
SELECT * FROM tt.check($$SELECT EXTRACT(year FROM ts) AS y, EXTRACT(month FROM ts) AS m, count(*) AS n FROM types GROUP BY 1, 2$$);
SELECT * FROM tt.check($$SELECT substr(t, 1, 1) AS k, count(*) AS n FROM types GROUP BY 1$$);
SELECT * FROM tt.check($$SELECT i4 > 0 AS pos, count(*) AS n FROM types GROUP BY 1$$);
SELECT * FROM tt.check($$SELECT CASE WHEN n2 < 0 THEN 'neg' WHEN n2 > 0 THEN 'pos' END AS k, count(*) AS n, sum(n2) AS s FROM types GROUP BY 1$$);
SELECT * FROM tt.check($$SELECT COALESCE(g, -1) AS k, count(*) AS n FROM types GROUP BY 1$$);
SELECT * FROM tt.check($$SELECT d + 1 AS k, count(*) AS n FROM types WHERE d < '1997-01-01' GROUP BY d + 1$$);
SELECT * FROM tt.check($$SELECT g + 1 AS k, sum(i4) + 1 AS s, count(*) * 2 AS n, max(i4) - min(i4) AS r, sum(i4) / count(*) AS q
                         FROM types GROUP BY g$$);
SELECT * FROM tt.check($$SELECT sum(i4 * 2) AS a, sum(n2 * n4) AS b, avg(f8 * 4) AS c, max(d + 1) AS e, sum(CASE WHEN b THEN 1 ELSE 0 END) AS f,
                                sum(n2) / NULLIF(count(*), 0) AS h, min(t || 'x') AS k FROM types WHERE id <= 1000$$);
SELECT * FROM tt.check($$SELECT g, sum(i4) AS s FROM types GROUP BY g, b$$);                                  -- key not in output
-- HAVING
SELECT * FROM tt.check($$SELECT g, count(*) AS n FROM types GROUP BY g HAVING count(*) > 95$$);
SELECT * FROM tt.check($$SELECT i4, count(*) AS n FROM types GROUP BY i4 HAVING count(*) >= 7$$);
SELECT * FROM tt.check($$SELECT t, sum(i4) AS s FROM types GROUP BY t HAVING sum(i4) > 2000$$);
SELECT * FROM tt.check($$SELECT g, min(t) AS m FROM types GROUP BY g HAVING min(t) < 'a' AND max(i4) > 190$$);
SELECT * FROM tt.check($$SELECT g FROM types GROUP BY g HAVING g > 5$$);
SELECT * FROM tt.check($$SELECT g, avg(n2) AS a FROM types GROUP BY g HAVING avg(n2) > 0 OR g IS NULL$$);
-- empty input
SELECT * FROM tt.check($$SELECT count(*) AS n, count(i4) AS c, sum(i4) AS s, sum(n2) AS sn, avg(n2) AS a, min(t) AS mi, max(d) AS ma,
                                sum(f8) AS sf, count(DISTINCT t) AS cd FROM empty_types$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(i4) AS s, max(t) AS m FROM types WHERE i4 > 1000000$$);
SELECT * FROM tt.check($$SELECT g, count(*) AS n FROM empty_types GROUP BY g$$);                             -- no rows
SELECT * FROM tt.check($$SELECT g, count(*) AS n FROM types WHERE false GROUP BY g$$);
SELECT * FROM tt.check($$SELECT count(*) AS n FROM empty_types HAVING count(*) > 0$$);
SELECT * FROM tt.check($$SELECT count(*) AS n FROM types HAVING count(*) > 0$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l_quantity) AS q FROM lineitem_empty$$);
-- aggregates over joins
SELECT * FROM tt.check($$SELECT jl.k2, count(*) AS n, sum(jr.w) AS s, min(jr.k2) AS m FROM jl JOIN jr ON jl.k1 = jr.k1 GROUP BY jl.k2$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(jl.v) AS s FROM jl WHERE EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1)$$);
SELECT * FROM tt.check($$SELECT jl.k1, count(jr.id) AS n, sum(jr.w) AS s FROM jl LEFT JOIN jr ON jl.k1 = jr.k1 GROUP BY jl.k1$$);
SELECT * FROM tt.check($$SELECT count(*) AS n FROM jl WHERE NOT EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1)$$);
SELECT * FROM tt.check($$SELECT r.r_name, count(*) AS n, sum(s.s_acctbal) AS bal, avg(s.s_acctbal) AS av, min(s.s_name) AS first
                         FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey JOIN region r ON n.n_regionkey = r.r_regionkey
                         GROUP BY r.r_name$$);
-- columns functionally dependent on the group keys (a primary key among them): carried by any(), not
-- grouped by; every type, NULL values, many rows per group, NULL-extended groups, HAVING / ORDER BY on them
SELECT * FROM tt.check($$SELECT t1.id, t1.g, t1.b, t1.i2, t1.i4, t1.i8, t1.f4, t1.f8, t1.n2, t1.n4, t1.d, t1.ts, t1.c10, t1.vc, t1.t,
                                count(*) AS n, sum(jl.v) AS s
                         FROM types t1 JOIN jl ON jl.k1 = t1.id % 50 GROUP BY t1.id$$);
SELECT * FROM tt.check($$SELECT t1.id, jl.k2, t1.t, t1.f8, t1.c10, count(*) AS n FROM types t1 JOIN jl ON jl.k1 = t1.id % 50
                         WHERE t1.id > 990 GROUP BY t1.id, jl.k2$$);
SELECT * FROM tt.check($$SELECT t1.id, t1.t, t1.n2, t1.vc, count(*) AS n, sum(jl.v) AS s FROM jl LEFT JOIN types t1 ON t1.id = jl.k1 + 1000
                         GROUP BY t1.id$$);                                                          -- the NULL group
SELECT * FROM tt.check_ordered($$SELECT t1.id, t1.t || '!' AS x, upper(t1.vc) AS u, t1.n2 * 2 AS d, count(*) AS n
                                 FROM types t1 JOIN jl ON jl.k1 = t1.id % 50 GROUP BY t1.id
                                 HAVING t1.n2 > 0 OR t1.t IS NULL ORDER BY t1.c10, t1.id$$);
SELECT * FROM tt.check($$SELECT c.c_custkey, c.c_name, c.c_acctbal, c.c_comment, n.n_name, count(*) AS n, sum(o.o_totalprice) AS s
                         FROM customer c JOIN orders o ON o.o_custkey = c.c_custkey JOIN nation n ON n.n_nationkey = c.c_nationkey
                         GROUP BY c.c_custkey, c.c_name, c.c_acctbal, c.c_comment, n.n_name$$);
SELECT * FROM tt.check($$SELECT t1.id, t1.t, t1.n2, count(*) AS n FROM empty_types t1 JOIN jl ON jl.k1 = t1.id % 50 GROUP BY t1.id$$);  -- no rows
-- output columns of PostgreSQL's own aggregations that are not keys: a DISTINCT over a grouping (its
-- HashAggregate by g outputs i4 too: the grouping by (g, i4) made 823 rows of 11 when themis grouped by it),
-- the unique-ification of an IN subquery's rows
SELECT * FROM tt.check($$SELECT DISTINCT g FROM types GROUP BY g, i4$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(a.v) AS s FROM jl a WHERE a.k1 IN (SELECT b.g FROM types b WHERE b.g = b.i4)$$);
-- aggregates over lineitem
SELECT * FROM tt.check($$SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q, sum(l_extendedprice) AS p,
                                sum(l_extendedprice * (1 - l_discount)) AS dp, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS c,
                                avg(l_quantity) AS aq, avg(l_discount) AS ad, min(l_shipdate) AS mi, max(l_shipdate) AS ma
                         FROM lineitem GROUP BY l_returnflag, l_linestatus$$);
SELECT * FROM tt.check($$SELECT l_orderkey, count(*) AS n, sum(l_quantity) AS q FROM lineitem GROUP BY l_orderkey$$);   -- 15000 groups
SELECT * FROM tt.check($$SELECT l_partkey, l_suppkey, count(*) AS n, max(l_comment) AS c FROM lineitem GROUP BY l_partkey, l_suppkey$$);
SELECT * FROM tt.check($$SELECT l_shipmode, EXTRACT(year FROM l_shipdate) AS y, count(*) AS n, count(DISTINCT l_orderkey) AS o
                         FROM lineitem GROUP BY 1, 2$$);
SELECT * FROM tt.check($$SELECT count(DISTINCT l_partkey) AS p, count(DISTINCT l_suppkey) AS s, count(DISTINCT l_comment) AS c FROM lineitem$$);
SELECT * FROM tt.check($$SELECT o_orderpriority, o_orderstatus, count(*) AS n, sum(o_totalprice) AS t, min(o_clerk) AS c, max(o_comment) AS m
                         FROM orders GROUP BY 1, 2$$);
-- aggregates over a domain: sum, min and max return the base type, as in PostgreSQL (the result's column
-- type, that INSERT ... SELECT and CREATE TABLE AS take; the domain's CHECK does not apply to a sum)
CREATE DOMAIN agg_dnum AS numeric(10,2) CHECK (VALUE < 1000);
CREATE DOMAIN agg_dint AS int4 CHECK (VALUE < 1000);
CREATE TABLE agg_dom (g int, v agg_dnum, w agg_dint);
INSERT INTO agg_dom SELECT i % 5, i * 1.5, i FROM generate_series(1, 300) i;
ANALYZE agg_dom;
CALL tt.device_on();
SET themis.min_rows = 0;
SET themis.enabled = on;
EXPLAIN (COSTS OFF) SELECT g, sum(v), min(v), max(w) FROM agg_dom GROUP BY g;
SELECT pg_typeof(sum(v)) AS s, pg_typeof(min(v)) AS mi, pg_typeof(max(v)) AS ma, pg_typeof(avg(v)) AS a,
       pg_typeof(min(w)) AS wmi, pg_typeof(sum(w)) AS ws FROM agg_dom GROUP BY g ORDER BY g LIMIT 1;
SELECT * FROM tt.check($$SELECT g, sum(v) AS s, min(v) AS mi, max(v) AS ma, min(w) AS wmi FROM agg_dom GROUP BY g$$);
CREATE TABLE agg_dom_t (g int, s numeric, mi numeric);
INSERT INTO agg_dom_t SELECT g, sum(v), min(v) FROM agg_dom GROUP BY g;
SELECT count(*), sum(s) FROM agg_dom_t;
CREATE TABLE agg_dom_ctas AS SELECT g, sum(v) AS s, max(v) AS m FROM agg_dom GROUP BY g;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'agg_dom_ctas'::regclass AND attnum > 0 ORDER BY attnum;
RESET themis.min_rows;
RESET themis.enabled;
DROP TABLE agg_dom, agg_dom_t, agg_dom_ctas;
DROP DOMAIN agg_dnum;
DROP DOMAIN agg_dint;
-- a nondeterministic collation ('abc' = 'ABC' at ICU strength 2): themis groups by bytes, so group keys and
-- DISTINCT aggregates in one are left to PostgreSQL; the same answers
CREATE COLLATION agg_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE agg_ci_t (id int, s text COLLATE agg_ci, g int);
INSERT INTO agg_ci_t VALUES (1, 'abc', 1), (2, 'ABC', 1), (3, 'Abc', 2), (4, 'x', 2), (5, NULL, 2);
ANALYZE agg_ci_t;
CALL tt.device_on();
SET themis.min_rows = 0;
SET themis.enabled = on;
EXPLAIN (COSTS OFF) SELECT s, count(*) FROM agg_ci_t GROUP BY s;
SELECT * FROM tt.check($$SELECT s, count(*) AS n FROM agg_ci_t GROUP BY s$$);
SELECT * FROM tt.check($$SELECT count(DISTINCT s) AS n FROM agg_ci_t$$);
SELECT * FROM tt.check($$SELECT DISTINCT s FROM agg_ci_t$$);
SELECT * FROM tt.check($$SELECT g, count(DISTINCT s) AS n FROM agg_ci_t GROUP BY g$$);
SELECT * FROM tt.check($$SELECT s, sum(id) AS t FROM agg_ci_t GROUP BY s HAVING count(*) > 1$$);
-- the same column under "C": grouped by bytes in the node
SELECT * FROM tt.check($$SELECT s COLLATE "C" AS s, count(*) AS n FROM agg_ci_t GROUP BY 1$$);
RESET themis.min_rows;
RESET themis.enabled;
DROP TABLE agg_ci_t;
DROP COLLATION agg_ci;
-- count(x) and avg(x)'s count of a NOT NULL column of the source table are count(*), shared with the
-- other counts of the same rows; a nullable column, a column of a LEFT join's nullable side (NULL where
-- unmatched although declared NOT NULL) and a DISTINCT count keep their own count; so does a parent whose
-- inheritance child dropped the NOT NULL (aggregated by PostgreSQL over an Append of the scans here)
CREATE TABLE agg_nn (g int NOT NULL, a numeric(8,2) NOT NULL, b int NOT NULL, c int);
INSERT INTO agg_nn SELECT i % 4, i * 0.25, i % 7, CASE WHEN i % 3 = 0 THEN NULL ELSE i END
  FROM generate_series(1, 400) i;
CREATE TABLE agg_nn_r (k int NOT NULL, w int NOT NULL, v int NOT NULL);
INSERT INTO agg_nn_r SELECT i, i, i * 10 FROM generate_series(0, 2) i;
CREATE TABLE agg_nn_p (g int, a int NOT NULL);
CREATE TABLE agg_nn_c () INHERITS (agg_nn_p);
ALTER TABLE agg_nn_c ALTER COLUMN a DROP NOT NULL;
INSERT INTO agg_nn_p SELECT i % 3, i FROM generate_series(1, 50) i;
INSERT INTO agg_nn_c SELECT i % 3, CASE WHEN i % 2 = 0 THEN NULL ELSE i END FROM generate_series(1, 50) i;
ANALYZE agg_nn, agg_nn_r, agg_nn_p, agg_nn_c;
CALL tt.device_on();
SET themis.min_rows = 0;
SET themis.enabled = on;
EXPLAIN (COSTS OFF) SELECT g, avg(a), avg(b), count(a), count(*), count(c), count(DISTINCT b) FROM agg_nn GROUP BY g;
SELECT * FROM tt.check($$SELECT g, avg(a) AS aa, avg(b) AS ab, count(a) AS ca, count(*) AS n, count(c) AS cc,
                                avg(c) AS ac, count(DISTINCT b) AS db FROM agg_nn GROUP BY g$$);
SELECT * FROM tt.check($$SELECT count(a) FILTER (WHERE b > 2) AS f, count(*) FILTER (WHERE b > 2) AS s,
                                avg(b) FILTER (WHERE c IS NULL) AS x FROM agg_nn$$);
-- (no rows: 0 and NULL, grouped: none)
SELECT * FROM tt.check($$SELECT count(a) AS c, avg(a) AS av, count(*) AS n FROM agg_nn WHERE g > 100$$);
SELECT * FROM tt.check($$SELECT g, count(a) AS c, avg(b) AS av FROM agg_nn WHERE g > 100 GROUP BY g$$);
SET enable_nestloop = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT n.g, count(r.v), avg(r.w), sum(r.v) FROM agg_nn n LEFT JOIN agg_nn_r r ON r.k = n.b GROUP BY n.g;
SELECT * FROM tt.check($$SELECT n.g, count(r.v) AS c, avg(r.w) AS a, sum(r.v) AS s, count(*) AS n FROM agg_nn n
                         LEFT JOIN agg_nn_r r ON r.k = n.b GROUP BY n.g$$);
RESET enable_nestloop;
RESET enable_mergejoin;
EXPLAIN (COSTS OFF) SELECT g, count(a), count(*) FROM agg_nn_p GROUP BY g;
SELECT * FROM tt.check($$SELECT g, count(a) AS c, avg(a) AS av, count(*) AS n FROM agg_nn_p GROUP BY g$$);
RESET themis.min_rows;
RESET themis.enabled;
DROP TABLE agg_nn, agg_nn_r, agg_nn_c, agg_nn_p;
-- min / max of floats where 0 and -0 tie: PostgreSQL's float4/float8 smaller / larger return the new
-- value on a tie (float8_lt(state, new) ? state : new), so the row read later shows its sign; the CPU
-- executor replaces its state on a float tie too (text, numeric, integer ties are shown alike; bpchar's
-- smaller / larger keep the first).  Rows in one heap page, read in insertion order by both.  On the
-- GPU the tie goes to whichever update lands last, in no set order (as a float sum's last bits), so this
-- part runs on the CPU executor wherever the file runs.
SET tt.device = 'cpu';
CREATE TABLE agg_mz (g int, f float8, r float4);
INSERT INTO agg_mz VALUES (1, 0, 0), (1, '-0', '-0'), (2, '-0', '-0'), (2, 0, 0),
    (3, 1, 1), (3, 0, '-0'), (3, '-0', 0), (3, 0, '-0'), (3, '-0', 0), (3, -1, -1);
ANALYZE agg_mz;
SELECT * FROM tt.check($$SELECT g, min(f) AS a, max(f) AS b, min(r) AS c, max(r) AS d FROM agg_mz WHERE g < 3 GROUP BY g$$);
SELECT * FROM tt.check($$SELECT min(f) AS a, max(f) AS b, min(r) AS c, max(r) AS d FROM agg_mz WHERE g = 1$$);
SELECT * FROM tt.check($$SELECT min(f) AS a, max(f) AS b, min(r) AS c, max(r) AS d FROM agg_mz WHERE g = 2$$);
SELECT * FROM tt.check($$SELECT g, min(f) FILTER (WHERE f <= 0) AS a, max(f) FILTER (WHERE f >= 0) AS b,
                                min(r) FILTER (WHERE r <= 0) AS c, max(r) FILTER (WHERE r >= 0) AS d,
                                min(f) AS e, max(r) AS h FROM agg_mz GROUP BY g$$);
CALL tt.themis_on();
SELECT g, min(f), max(f), min(r), max(r) FROM agg_mz GROUP BY g ORDER BY g;
SELECT min(f), max(f), min(r), max(r) FROM agg_mz WHERE g = 1;
SET themis.enabled = off;
SELECT g, min(f), max(f), min(r), max(r) FROM agg_mz GROUP BY g ORDER BY g;
CALL tt.themis_reset();
RESET tt.device;
DROP TABLE agg_mz;
