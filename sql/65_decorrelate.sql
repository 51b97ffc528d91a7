--
-- 65_decorrelate: correlated scalar subqueries with aggregates turned into joins with grouped
-- subqueries before planning (src/decorrelate.c, themis.decorrelate): the same answers as
-- PostgreSQL's per-row subplans, and the cases that must stay subplans
--
CALL tt.device_on();
SET client_min_messages = warning;
CREATE TABLE dc_o (id int PRIMARY KEY, k int, k2 int, x numeric(10,2), y int);
CREATE TABLE dc_i (k int, k2 int, q numeric(10,2), n int, f float8, t text, d date);
INSERT INTO dc_o SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE i % 40 END, i % 3, (i % 23) * 1.5, i % 11
  FROM generate_series(1, 400) i;
-- keys 0..29 only (outer keys 30..39 find no group), NULL keys, NULL values, a skewed key
INSERT INTO dc_i SELECT CASE WHEN i % 29 = 0 THEN NULL WHEN i % 5 = 0 THEN 7 ELSE i % 30 END, i % 3,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 41) * 0.75 END, i % 9, (i % 7) * 0.5, 'v' || (i % 4),
  date '2020-01-01' + (i % 500)
  FROM generate_series(1, 3000) i;
ANALYZE dc_o, dc_i;

-- true where EXPLAIN (themis on) has a line LIKE pat; dc_subplan: a SubPlan is still there
CREATE FUNCTION dc_explain_has(q text, pat text) RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE
    l text;
    found boolean := false;
BEGIN
    SET LOCAL themis.enabled = on;
    FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF l LIKE pat THEN
            found := true;
        END IF;
    END LOOP;
    RETURN found;
END
$f$;
CREATE FUNCTION dc_subplan(q text) RETURNS boolean LANGUAGE sql AS $f$ SELECT dc_explain_has(q, '%SubPlan%') $f$;

-- how many Themis nodes EXPLAIN (themis on, min_rows 0) shows
CREATE FUNCTION dc_themis_nodes(q text) RETURNS int LANGUAGE plpgsql AS $f$
DECLARE
    l text;
    n int := 0;
BEGIN
    SET LOCAL themis.enabled = on;
    SET LOCAL themis.min_rows = 0;
    FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF l LIKE '%Custom Scan (Themis)%' THEN
            n := n + 1;
        END IF;
    END LOOP;
    RETURN n;
END
$f$;

-- rewritten: avg, sum times a constant, min / max, two keys, a remaining condition, keys either side
-- (y * 20 > (...) would stay a subplan: int4mul may fail on outer rows whose group does not exist)
SELECT dc_subplan($$SELECT id FROM dc_o WHERE x < (SELECT 0.2 * avg(q) FROM dc_i WHERE dc_i.k = dc_o.k)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id, x FROM dc_o WHERE x < (SELECT 0.2 * avg(q) FROM dc_i WHERE dc_i.k = dc_o.k)$$);
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE y > (SELECT 0.025 * sum(n) FROM dc_i WHERE k = dc_o.k AND k2 = dc_o.k2 AND d >= date '2020-03-01')$$);
SELECT * FROM tt.check($$SELECT id, x FROM dc_o WHERE x = (SELECT min(q) FROM dc_i WHERE dc_o.k = dc_i.k)$$);
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE x >= (SELECT max(q) - 10 FROM dc_i WHERE dc_o.k = dc_i.k AND t <> 'v1')$$);
SELECT * FROM tt.check($$SELECT count(*), sum(x) FROM dc_o WHERE x < (SELECT avg(q) FROM dc_i WHERE dc_i.k = dc_o.k) AND y > 2$$);
SELECT * FROM tt.check($$SELECT y, count(*) FROM dc_o WHERE x > (SELECT avg(n) FROM dc_i WHERE dc_i.k = dc_o.k) GROUP BY y$$);
-- conditions with numeric and date / timestamp comparisons inside the subquery (not leakproof, cannot fail)
SELECT dc_subplan($$SELECT id FROM dc_o WHERE y > (SELECT 0.025 * sum(n) FROM dc_i WHERE k = dc_o.k AND q > 1.5 AND d < date '2020-03-01' + interval '1 month')$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE y > (SELECT 0.025 * sum(n) FROM dc_i WHERE k = dc_o.k AND q > 1.5 AND d < date '2020-03-01' + interval '1 month')$$);
-- as TPC-H Q17: the join whose filter compares with a numeric quotient (0.2 * avg) runs in themis too
-- (sql/16_numeric_div), so one Themis node holds the aggregation, the join and the sum
SELECT dc_themis_nodes($$SELECT sum(x) FROM dc_o WHERE x < (SELECT 0.2 * avg(q) FROM dc_i WHERE dc_i.k = dc_o.k)$$) AS themis_nodes;
SELECT * FROM tt.check($$SELECT sum(x) FROM dc_o WHERE x < (SELECT 0.2 * avg(q) FROM dc_i WHERE dc_i.k = dc_o.k)$$);
-- nested: the subquery inside an IN subquery (as TPC-H Q20)
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE k IN (SELECT k FROM dc_i i1 WHERE i1.n > (SELECT 0.5 * avg(n) FROM dc_i i2 WHERE i2.k = i1.k AND i2.k2 = i1.k2))$$);
SELECT dc_subplan($$SELECT id FROM dc_o WHERE k IN (SELECT k FROM dc_i i1 WHERE i1.n > (SELECT 0.5 * avg(n) FROM dc_i i2 WHERE i2.k = i1.k AND i2.k2 = i1.k2))$$) AS subplan;
-- joins inside the subquery (as TPC-H Q2)
SELECT * FROM tt.check($$SELECT o.id FROM dc_o o WHERE o.x = (SELECT min(i.q) FROM dc_i i, dc_o o2 WHERE i.k = o.k AND o2.id = i.n AND o2.y > 1)$$);
-- an empty subquery table: no group exists, every outer row gets NULL and is dropped; an empty outer table
CREATE TABLE dc_e (k int, q numeric(10,2));
SELECT dc_subplan($$SELECT id FROM dc_o WHERE x < (SELECT avg(q) FROM dc_e WHERE dc_e.k = dc_o.k)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE x < (SELECT avg(q) FROM dc_e WHERE dc_e.k = dc_o.k)$$);
SELECT * FROM tt.check($$SELECT k FROM dc_e WHERE q < (SELECT max(x) FROM dc_o WHERE dc_o.k = dc_e.k)$$);
DROP TABLE dc_e;
-- a prepared statement: parameters inside the subquery
PREPARE dc_p(numeric) AS SELECT id FROM dc_o WHERE x < (SELECT $1 * avg(q) FROM dc_i WHERE dc_i.k = dc_o.k);
SELECT * FROM tt.check($$EXECUTE dc_p(0.5)$$);
DEALLOCATE dc_p;

-- kept as subplans: count is 0, not NULL, over no rows; coalesce; a condition not NULL with the
-- subquery; outer columns elsewhere; an inequality correlation; float sums; a LIMIT
SELECT dc_subplan($$SELECT id FROM dc_o WHERE y > (SELECT count(*) FROM dc_i WHERE dc_i.k = dc_o.k)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE y > (SELECT count(*) FROM dc_i WHERE dc_i.k = dc_o.k)$$);
SELECT dc_subplan($$SELECT id FROM dc_o WHERE x > coalesce((SELECT avg(q) FROM dc_i WHERE dc_i.k = dc_o.k), 0)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE x > coalesce((SELECT avg(q) FROM dc_i WHERE dc_i.k = dc_o.k), 0)$$);
SELECT dc_subplan($$SELECT id FROM dc_o WHERE (SELECT avg(q) FROM dc_i WHERE dc_i.k = dc_o.k) IS NULL$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE (SELECT avg(q) FROM dc_i WHERE dc_i.k = dc_o.k) IS NULL$$);
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE y = 3 OR x < (SELECT avg(q) FROM dc_i WHERE dc_i.k = dc_o.k)$$);
SELECT dc_subplan($$SELECT id FROM dc_o WHERE x < (SELECT avg(q) + dc_o.y FROM dc_i WHERE dc_i.k = dc_o.k)$$) AS subplan;
SELECT dc_subplan($$SELECT id FROM dc_o WHERE x < (SELECT avg(q) FROM dc_i WHERE dc_i.k < dc_o.k)$$) AS subplan;
SELECT dc_subplan($$SELECT id FROM dc_o WHERE x < (SELECT sum(f) FROM dc_i WHERE dc_i.k = dc_o.k)$$) AS subplan;
SELECT dc_subplan($$SELECT id FROM dc_o WHERE x < (SELECT avg(q) FROM dc_i WHERE dc_i.k = dc_o.k LIMIT 1)$$) AS subplan;
-- a condition that may fail on rows the subquery never reads for an outer row: kept
SELECT dc_subplan($$SELECT id FROM dc_o WHERE x < (SELECT avg(q) FROM dc_i WHERE dc_i.k = dc_o.k AND 100 / n > 1)$$) AS subplan;
SELECT * FROM tt.check_error($$SELECT id FROM dc_o WHERE x < (SELECT avg(q) FROM dc_i WHERE dc_i.k = dc_o.k AND 100 / n > 1)$$);
-- the rest of the condition may fail on an outer row whose group does not exist (GPU fuzz s1000-q255):
-- kept, PostgreSQL's error
CREATE TABLE dc_e3 (id int, i3 int);
CREATE TABLE dc_e5 (id int, i2 int);
INSERT INTO dc_e3 VALUES (13431, -2147483648);
ANALYZE dc_e3, dc_e5;
SELECT dc_subplan($$SELECT i3 FROM dc_e3 a1 WHERE (a1.i3 * 36) < (SELECT max(a4.i2) FROM dc_e5 a4 WHERE a1.i3 = a4.id)$$) AS subplan;
SELECT * FROM tt.check_error($$SELECT i3 FROM dc_e3 a1 WHERE (a1.i3 * 36) < (SELECT max(a4.i2) FROM dc_e5 a4 WHERE a1.i3 = a4.id)$$);
-- ... while a plain column (or a leakproof cast of one) is rewritten
SELECT dc_subplan($$SELECT i3 FROM dc_e3 a1 WHERE a1.i3 < (SELECT max(a4.i2) FROM dc_e5 a4 WHERE a1.i3 = a4.id)$$) AS subplan;
SELECT dc_subplan($$SELECT id FROM dc_o WHERE y > (SELECT 0.001 * sum(q) FROM dc_i WHERE dc_i.k = dc_o.k)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE y > (SELECT 0.001 * sum(q) FROM dc_i WHERE dc_i.k = dc_o.k)$$);
DROP TABLE dc_e3, dc_e5;
-- a selective outer query with an index in the subquery: the rewrite (grouping all of dc_big) is
-- estimated far costlier than one index lookup per outer row, so the subplan stays
CREATE TABLE dc_big (k int, q numeric(10,2));
INSERT INTO dc_big SELECT i % 5000, i % 97 FROM generate_series(1, 200000) i;
CREATE INDEX ON dc_big (k);
ANALYZE dc_big;
SELECT dc_subplan($$SELECT id FROM dc_o WHERE id = 5 AND x < (SELECT avg(q) FROM dc_big WHERE dc_big.k = dc_o.k)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_o WHERE id = 5 AND x < (SELECT avg(q) FROM dc_big WHERE dc_big.k = dc_o.k)$$);
-- ... while over all outer rows it is rewritten
SELECT dc_subplan($$SELECT id FROM dc_o WHERE x < (SELECT avg(q) FROM dc_big WHERE dc_big.k = dc_o.k)$$) AS subplan;
DROP TABLE dc_big;
-- themis.decorrelate = off: left alone
SET themis.decorrelate = off;
SELECT dc_subplan($$SELECT id FROM dc_o WHERE x < (SELECT 0.2 * avg(q) FROM dc_i WHERE dc_i.k = dc_o.k)$$) AS subplan;
RESET themis.decorrelate;

-- the max-over-a-view pattern (TPC-H Q15): an aggregating CTE read twice, once by an aggregate over
-- it, is planned anew at each reference (themis.inline_view_ctes; auto does it only where the GPU is
-- usable, on forces it here); the same answers
-- (themis.view_max_ties off: its own cases follow)
CREATE FUNCTION dc_cte_scan(q text) RETURNS boolean LANGUAGE sql AS $f$ SELECT dc_explain_has(q, '%CTE Scan%') $f$;
SET themis.view_max_ties = off;
SET themis.inline_view_ctes = on;
SELECT dc_cte_scan($$WITH v AS (SELECT k, sum(q) AS s FROM dc_i WHERE d >= '2020-03-01' GROUP BY k)
                     SELECT o.id, v.s FROM dc_o o, v WHERE o.k = v.k AND v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
SELECT * FROM tt.check($$WITH v AS (SELECT k, sum(q) AS s FROM dc_i WHERE d >= '2020-03-01' GROUP BY k)
                         SELECT o.id, v.s FROM dc_o o, v WHERE o.k = v.k AND v.s = (SELECT max(s) FROM v)$$);
SELECT * FROM tt.check($$WITH v AS (SELECT k, count(*) AS n, min(t) AS mt FROM dc_i GROUP BY k)
                         SELECT v.k, v.mt FROM v WHERE v.n >= (SELECT avg(n) FROM v) ORDER BY v.k$$);
-- an empty CTE: the max is NULL, no row
SELECT * FROM tt.check($$WITH v AS (SELECT k, sum(q) AS s FROM dc_i WHERE k > 1000 GROUP BY k)
                         SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$);
-- kept materialized: no aggregate in the CTE, MATERIALIZED, a volatile function, a grouped subquery
-- over it; (read once, PostgreSQL inlines it itself: f)
SELECT dc_cte_scan($$WITH v AS (SELECT k, q FROM dc_i WHERE q > 5)
                     SELECT v.k FROM v WHERE v.q = (SELECT max(q) FROM v)$$) AS cte_scan;
SELECT dc_cte_scan($$WITH v AS MATERIALIZED (SELECT k, sum(q) AS s FROM dc_i GROUP BY k)
                     SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
SELECT dc_cte_scan($$WITH v AS (SELECT k, sum(q) + random() AS s FROM dc_i GROUP BY k)
                     SELECT v.k FROM v WHERE v.s > (SELECT max(s) FROM v) - 1$$) AS cte_scan;
SELECT dc_cte_scan($$WITH v AS (SELECT k, sum(q) AS s FROM dc_i GROUP BY k)
                     SELECT v.k FROM v WHERE v.s > (SELECT max(q) FROM dc_i)$$) AS cte_scan;
SELECT dc_cte_scan($$WITH v AS (SELECT k, sum(q) AS s FROM dc_i GROUP BY k)
                     SELECT v.k FROM v WHERE v.s IN (SELECT max(s) FROM v GROUP BY k % 3)$$) AS cte_scan;
-- an aggregate whose last bits depend on the order of its rows (a float sum, avg), or one that is not
-- count / sum / avg / min / max: computed twice it might not compare equal to itself, kept materialized
SELECT dc_cte_scan($$WITH v AS (SELECT k, sum(q::float8) AS s FROM dc_i GROUP BY k)
                     SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
SELECT dc_cte_scan($$WITH v AS (SELECT k, avg(q::float4) AS s FROM dc_i GROUP BY k)
                     SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
SELECT dc_cte_scan($$WITH v AS (SELECT k, string_agg(t, ',') AS s FROM dc_i GROUP BY k)
                     SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
SELECT * FROM tt.check($$WITH v AS (SELECT k, sum(q::float8) AS s FROM dc_i GROUP BY k)
                         SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$);
-- rows that may differ from one evaluation to the next: which groups a LIMIT keeps, a LIMIT in a
-- subquery, a window function, DISTINCT ON, another CTE read through it (inlined twice by PostgreSQL),
-- an order-dependent aggregate in a subquery: kept materialized (each reference could see other rows)
SELECT dc_cte_scan($$WITH v AS (SELECT k, sum(q) AS s FROM dc_i GROUP BY k LIMIT 3)
                     SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
SELECT dc_cte_scan($$WITH v AS (SELECT k, sum(q) AS s FROM (SELECT * FROM dc_i LIMIT 20) i GROUP BY k)
                     SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
SELECT dc_cte_scan($$WITH v AS (SELECT k, sum(q) AS s, row_number() OVER () AS r FROM dc_i GROUP BY k)
                     SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
SELECT dc_cte_scan($$WITH v AS (SELECT DISTINCT ON (sum(q)) k, sum(q) AS s FROM dc_i GROUP BY k)
                     SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
SELECT dc_cte_scan($$WITH w AS (SELECT * FROM dc_i LIMIT 20),
                          v AS (SELECT k, sum(q) AS s FROM w GROUP BY k)
                     SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
SELECT dc_cte_scan($$WITH v AS (SELECT k, sum(f::numeric) AS s FROM (SELECT k, sum(q::float8) AS f FROM dc_i GROUP BY k) g GROUP BY k)
                     SELECT v.k FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
-- (which 3 groups is up to the plan; but the largest of them is always found among them)
SELECT count(*) >= 1 AS found FROM (WITH v AS (SELECT k, sum(q) AS s FROM dc_i GROUP BY k LIMIT 3)
                                    SELECT v.k, v.s FROM v WHERE v.s = (SELECT max(s) FROM v)) x;
SET themis.inline_view_ctes = off;
SELECT dc_cte_scan($$WITH v AS (SELECT k, sum(q) AS s FROM dc_i WHERE d >= '2020-03-01' GROUP BY k)
                     SELECT o.id, v.s FROM dc_o o, v WHERE o.k = v.k AND v.s = (SELECT max(s) FROM v)$$) AS cte_scan;
RESET themis.inline_view_ctes;
RESET themis.view_max_ties;

-- the same pattern computed once (themis.view_max_ties, on by default): the view becomes its first row
-- with ties by s (DESC NULLS LAST for max, NULLS LAST for min), materialized, and the condition
-- v.s IS NOT NULL; no InitPlan, and the Themis node under the Sort keeps only the top rows (Top-N Rows)
CREATE FUNCTION dc_ties(q text) RETURNS text LANGUAGE sql AS $f$
  SELECT CASE WHEN dc_explain_has(q, '%InitPlan%') OR dc_explain_has(q, '%SubPlan%') THEN
                'initplan'
              WHEN dc_explain_has(q, '%Top-N Rows: 1 %') THEN 'ties, top-n' ELSE 'ties' END $f$;
CREATE TABLE dc_t (k int, g int, q numeric(10,2), r numeric, t text, z int);
-- groups 0..19; sums of q: group 3 and 11 tie for the largest, group 5 the smallest with group 9;
-- r: the same values in other scales (1.0 and 1.00 are equal), group 7 all NULL
INSERT INTO dc_t SELECT i, i % 20,
  CASE i % 20 WHEN 3 THEN 50 WHEN 11 THEN 25 WHEN 5 THEN -10 WHEN 9 THEN -5 ELSE (i % 20) END,
  CASE WHEN i % 20 = 7 THEN NULL WHEN i % 20 IN (2, 4) THEN 1.0 WHEN i % 20 = 6 THEN 1.00 ELSE 0.5 END,
  'w' || (i % 20 % 6), CASE WHEN i % 20 = 13 THEN NULL ELSE i % 20 END
  FROM generate_series(1, 400) i;
INSERT INTO dc_t SELECT 1000 + i, 11, 25, NULL, 'w5', NULL FROM generate_series(1, 20) i;
INSERT INTO dc_t SELECT 2000 + i, 9, -5, NULL, 'w5', NULL FROM generate_series(1, 20) i;
ANALYZE dc_t;
SET themis.min_rows = 0;
SET themis.debug_ir = on;
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT o.id, v.g, v.s FROM dc_o o, v WHERE o.k = v.g AND v.s = (SELECT max(s) FROM v)$$) AS plan;
RESET themis.debug_ir;
-- ties (groups 3 and 11), joined; min (5 and 9); the subquery on the left of =
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT o.id, v.g, v.s FROM dc_o o, v WHERE o.k = v.g AND v.s = (SELECT max(s) FROM v)$$);
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT v.g, v.s FROM v WHERE (SELECT min(s) FROM v) = v.s$$);
-- equal values in other scales are ties, each shown in its own scale; a group of NULLs is not the max
SELECT * FROM tt.check($$WITH v AS (SELECT g, max(r) AS m FROM dc_t GROUP BY g)
                         SELECT v.g, v.m FROM v WHERE v.m = (SELECT max(m) FROM v)$$);
-- text under the column's collation, and under C
SELECT * FROM tt.check($$WITH v AS (SELECT g, max(t) AS m FROM dc_t GROUP BY g)
                         SELECT v.g, v.m FROM v WHERE v.m = (SELECT max(m) FROM v)$$);
SELECT * FROM tt.check($$WITH v AS (SELECT g, max(t COLLATE "C") AS m FROM dc_t GROUP BY g)
                         SELECT v.g, v.m FROM v WHERE v.m = (SELECT min(m) FROM v)$$);
-- every value NULL, and an empty view: the max is NULL, no row
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(z) AS s FROM dc_t WHERE g = 13 GROUP BY g)
                         SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v)$$);
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t WHERE g > 100 GROUP BY g)
                         SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v)$$);
-- a view without aggregates; other conditions on the view and the join; the view's NULL column z
SELECT * FROM tt.check($$WITH v AS (SELECT k, z FROM dc_t WHERE k < 300)
                         SELECT v.k, o.id FROM v, dc_o o WHERE o.id = v.k AND v.z = (SELECT max(z) FROM v) AND o.y > 2$$);
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s, count(*) AS n FROM dc_t GROUP BY g)
                         SELECT v.g, v.n FROM v WHERE v.s = (SELECT max(s) FROM v) AND v.n > 20$$);
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s, count(*) AS n FROM dc_t GROUP BY g)
                 SELECT v.g, v.n FROM v WHERE v.s = (SELECT max(s) FROM v) AND v.n > 20$$) AS plan;
-- the view under inner joins (JOIN ... ON, USING), or on the preserved side of outer joins
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT o.id, v.s FROM dc_i i JOIN (dc_o o JOIN v ON o.k = v.g) ON i.k = o.k
                         WHERE v.s = (SELECT max(s) FROM v) AND i.n = 3$$);
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT o.id, v.s FROM dc_i i JOIN (dc_o o JOIN v ON o.k = v.g) ON i.k = o.k
                 WHERE v.s = (SELECT max(s) FROM v) AND i.n = 3$$) AS plan;
SELECT * FROM tt.check($$WITH v AS (SELECT g AS k, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT k, o.id, v.s FROM dc_o o JOIN v USING (k) WHERE v.s = (SELECT min(s) FROM v)$$);
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT o.id, v.s, i.n FROM (dc_o o JOIN v ON o.k = v.g) LEFT JOIN dc_i i ON i.k = o.k AND i.n = 3
                         WHERE v.s = (SELECT max(s) FROM v)$$);
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT o.id, v.s, i.n FROM dc_i i RIGHT JOIN (dc_o o JOIN v ON o.k = v.g) ON i.k = o.k AND i.n = 3
                 WHERE v.s = (SELECT max(s) FROM v)$$) AS plan;
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT o.id, v.s, i.n FROM dc_i i RIGHT JOIN (dc_o o JOIN v ON o.k = v.g) ON i.k = o.k AND i.n = 3
                         WHERE v.s = (SELECT max(s) FROM v)$$);
-- errors: the view's own query fails (division by zero in group 3) as PostgreSQL's does; another
-- condition that fails on a row that is not the largest is not reached there either (PostgreSQL
-- tests the cheaper v.s = $1 first)
SELECT * FROM tt.check_error($$WITH v AS (SELECT g, sum(q) / (g - 3) AS s FROM dc_t GROUP BY g)
                               SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v)$$);
SELECT * FROM tt.check_error($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                               SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v) AND 100 / (v.g - 5) <> 0$$);
SELECT * FROM tt.check_error($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                               SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v) AND 100 / (v.g - 3) <> 0$$);
-- (the nullable side of a RIGHT and a FULL join: left alone)
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT o.id, v.s FROM v RIGHT JOIN dc_o o ON o.k = v.g WHERE v.s = (SELECT max(s) FROM v)$$) AS plan;
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT o.id, v.s FROM v FULL JOIN dc_o o ON o.k = v.g WHERE v.s = (SELECT max(s) FROM v)$$);
-- left to the other paths: a third reference, the view under an outer join, OR, >=, a subquery with
-- a WHERE, FILTER, another column, MATERIALIZED, and themis.view_max_ties = off (same answers)
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v) AND v.g > (SELECT min(g) FROM v)$$) AS plan;
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v) AND v.g > (SELECT min(g) FROM v)$$);
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT o.id, v.g FROM dc_o o LEFT JOIN v ON o.k = v.g WHERE v.s = (SELECT max(s) FROM v)$$) AS plan;
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT o.id, v.g FROM dc_o o LEFT JOIN v ON o.k = v.g WHERE v.s = (SELECT max(s) FROM v)$$);
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v) OR v.g = 1$$) AS plan;
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v) OR v.g = 1$$);
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT v.g FROM v WHERE v.s >= (SELECT max(s) FROM v)$$) AS plan;
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v WHERE g < 10)$$) AS plan;
SELECT * FROM tt.check($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                         SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v WHERE g < 10)$$);
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT v.g FROM v WHERE v.s = (SELECT max(s) FILTER (WHERE g > 4) FROM v)$$) AS plan;
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s, sum(q) + 1 AS s1 FROM dc_t GROUP BY g)
                 SELECT v.g FROM v WHERE v.s = (SELECT max(s1) FROM v)$$) AS plan;
SELECT dc_ties($$WITH v AS MATERIALIZED (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT v.g FROM v WHERE v.s = (SELECT max(s) FROM v)$$) AS plan;
SET themis.view_max_ties = off;
SELECT dc_ties($$WITH v AS (SELECT g, sum(q) AS s FROM dc_t GROUP BY g)
                 SELECT o.id, v.g, v.s FROM dc_o o, v WHERE o.k = v.g AND v.s = (SELECT max(s) FROM v)$$) AS plan;
RESET themis.view_max_ties;
RESET themis.min_rows;
DROP FUNCTION dc_ties(text);
DROP FUNCTION dc_cte_scan(text);
DROP TABLE dc_o, dc_i, dc_t;

-- a key type that GROUP BY can only hash (xid has no ordering)
CREATE TABLE dc_x (x xid, v int);
INSERT INTO dc_x SELECT (i % 7)::text::xid, i FROM generate_series(1, 100) i;
SELECT * FROM tt.check($$SELECT v FROM dc_x o WHERE v > (SELECT avg(v) FROM dc_x i WHERE i.x = o.x)$$);
DROP TABLE dc_x;

-- NOT IN over columns that cannot be NULL becomes NOT EXISTS (an anti join); otherwise it stays
CREATE TABLE dc_a (id int NOT NULL, k int NOT NULL, kn int, t text NOT NULL);
CREATE TABLE dc_b (k int NOT NULL, kn int, c text NOT NULL);
INSERT INTO dc_a SELECT i, i % 50, CASE WHEN i % 9 = 0 THEN NULL ELSE i % 50 END, 'a' || (i % 7) FROM generate_series(1, 500) i;
INSERT INTO dc_b SELECT i * 3 % 50, CASE WHEN i % 4 = 0 THEN NULL ELSE i * 3 % 50 END, CASE WHEN i % 3 = 0 THEN 'x Customer y Complaints' ELSE 'plain' END
  FROM generate_series(1, 40) i;
ANALYZE dc_a, dc_b;
SELECT dc_subplan($$SELECT id FROM dc_a WHERE k NOT IN (SELECT k FROM dc_b WHERE c LIKE '%Customer%Complaints%')$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_a WHERE k NOT IN (SELECT k FROM dc_b WHERE c LIKE '%Customer%Complaints%')$$);
SELECT * FROM tt.check($$SELECT t, count(*) FROM dc_a WHERE k NOT IN (SELECT k FROM dc_b) AND id > 10 GROUP BY t$$);
-- an empty subquery: every row passes
SELECT * FROM tt.check($$SELECT id FROM dc_a WHERE k NOT IN (SELECT k FROM dc_b WHERE c = 'none')$$);
-- a nullable side (either one), an outer join, a correlated subquery, a LIMIT: kept, same answers
SELECT dc_subplan($$SELECT id FROM dc_a WHERE kn NOT IN (SELECT k FROM dc_b)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_a WHERE kn NOT IN (SELECT k FROM dc_b)$$);
SELECT dc_subplan($$SELECT id FROM dc_a WHERE k NOT IN (SELECT kn FROM dc_b)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_a WHERE k NOT IN (SELECT kn FROM dc_b)$$);
SELECT dc_subplan($$SELECT a.id FROM dc_a a LEFT JOIN dc_a a2 ON a.id = a2.k WHERE a2.k NOT IN (SELECT k FROM dc_b)$$) AS subplan;
SELECT dc_subplan($$SELECT id FROM dc_a WHERE k NOT IN (SELECT k FROM dc_b WHERE dc_b.k > dc_a.id)$$) AS subplan;
SELECT dc_subplan($$SELECT id FROM dc_a WHERE k NOT IN (SELECT k FROM dc_b LIMIT 3)$$) AS subplan;
-- a LIKE pattern that ends with the escape character fails: kept (the error is PostgreSQL's)
SELECT dc_subplan($$SELECT id FROM dc_a WHERE k NOT IN (SELECT k FROM dc_b WHERE c LIKE 'x\')$$) AS subplan;
-- a NOT NULL that PostgreSQL does not enforce on every row read: an inheritance child that dropped its
-- parent's (a scan of the parent reads it), a foreign table's: kept, same answers (NULLs in both)
CREATE TABLE dc_par (x int NOT NULL);
CREATE TABLE dc_ch () INHERITS (dc_par);
ALTER TABLE dc_ch ALTER COLUMN x DROP NOT NULL;
INSERT INTO dc_par VALUES (1), (2), (6);
INSERT INTO dc_ch VALUES (NULL), (3);
ANALYZE dc_par, dc_ch;
SELECT dc_subplan($$SELECT x FROM dc_par WHERE x NOT IN (SELECT k FROM dc_b WHERE k < 3)$$) AS subplan;
SELECT * FROM tt.check($$SELECT x FROM dc_par WHERE x NOT IN (SELECT k FROM dc_b WHERE k < 3)$$);
SELECT dc_subplan($$SELECT id FROM dc_a WHERE k NOT IN (SELECT x FROM dc_par)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_a WHERE k NOT IN (SELECT x FROM dc_par)$$);
-- ONLY the parent, or children that kept it: rewritten
SELECT dc_subplan($$SELECT id FROM dc_a WHERE k NOT IN (SELECT x FROM ONLY dc_par)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_a WHERE k NOT IN (SELECT x FROM ONLY dc_par)$$);
ALTER TABLE dc_ch NO INHERIT dc_par;
CREATE TABLE dc_ch2 () INHERITS (dc_par);
INSERT INTO dc_ch2 VALUES (4);
SELECT dc_subplan($$SELECT id FROM dc_a WHERE k NOT IN (SELECT x FROM dc_par)$$) AS subplan;
SELECT * FROM tt.check($$SELECT id FROM dc_a WHERE k NOT IN (SELECT x FROM dc_par)$$);
DROP TABLE dc_par, dc_ch, dc_ch2;
CREATE EXTENSION file_fdw;
CREATE SERVER dc_fs FOREIGN DATA WRAPPER file_fdw;
CREATE FOREIGN TABLE dc_ft (x int NOT NULL) SERVER dc_fs OPTIONS (program 'printf ''1\n\\N\n3\n''');
SELECT count(*) AS rows, count(x) AS not_null FROM dc_ft;
SELECT dc_subplan($$SELECT k FROM dc_b WHERE k NOT IN (SELECT x FROM dc_ft)$$) AS subplan;
SELECT * FROM tt.check($$SELECT k FROM dc_b WHERE k NOT IN (SELECT x FROM dc_ft)$$);
DROP EXTENSION file_fdw CASCADE;
DROP TABLE dc_a, dc_b;

DROP FUNCTION dc_subplan(text);
DROP FUNCTION dc_explain_has(text, text);
DROP FUNCTION dc_themis_nodes(text);
