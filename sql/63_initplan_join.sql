--
-- 63_initplan_join: a subtree that uses parameters set once by initplans runs whole in one Themis
-- node, the initplans moved to it (TPC-H Q15: the groups filtered by the initplan's max, joined with
-- supplier), under each join method and with PostgreSQL's answers; parameters set per outer row keep
-- their subtree on PostgreSQL; a fast-start plan under ORDER BY ... LIMIT stays on PostgreSQL
--
CALL tt.device_on();
SET client_min_messages = warning;
SET themis.min_rows = 0;

-- the plan's shape with themis on (themis.min_rows as set: 0 but in the last part): Themis nodes, and
-- PostgreSQL join and aggregate nodes (plan nodes are the top line and the lines with an arrow; a
-- Themis node's own lines have none)
CREATE FUNCTION ij_shape(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
    l text;
    nt int := 0;
    nj int := 0;
    na int := 0;
BEGIN
    SET LOCAL themis.enabled = on;
    FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF l LIKE '%Custom Scan (Themis)%' THEN
            nt := nt + 1;
        ELSIF l ~ '^(\s*->\s+)?(Hash( \w+)? Join|Merge( \w+)? Join|Nested Loop)' THEN
            nj := nj + 1;
        ELSIF l ~ '^(\s*->\s+)?(Finalize |Partial )?(Aggregate|HashAggregate|GroupAggregate|MixedAggregate)\M' THEN
            na := na + 1;
        END IF;
    END LOOP;
    RETURN format('themis=%s pg_joins=%s pg_aggs=%s', nt, nj, na);
END
$f$;

-- q under each join method (the other two disabled): the shape and the answers (ordered: q's ORDER
-- BY is total and the order is compared)
CREATE FUNCTION ij_check(q text, ordered boolean)
RETURNS TABLE(method text, shape text, result text, themis text) LANGUAGE plpgsql AS $f$
BEGIN
    FOREACH method IN ARRAY ARRAY['hash', 'merge', 'nestloop'] LOOP
        PERFORM set_config('enable_hashjoin', (method = 'hash')::text, true);
        PERFORM set_config('enable_mergejoin', (method = 'merge')::text, true);
        PERFORM set_config('enable_nestloop', (method = 'nestloop')::text, true);
        shape := ij_shape(q);
        SELECT c.result, c.themis INTO result, themis FROM tt._check(q, q, ordered, false) c;
        RETURN NEXT;
    END LOOP;
    PERFORM set_config('enable_hashjoin', 'on', true);
    PERFORM set_config('enable_mergejoin', 'on', true);
    PERFORM set_config('enable_nestloop', 'on', true);
END
$f$;

-- TPC-H Q15: the CTE inlined (themis.inline_view_ctes, with themis.view_max_ties off), the
-- InitPlan's max (attached to the join, the root) and the join with supplier (merge: over
-- supplier_pkey, the SF 10 plan; nestloop: lookups in supplier_pkey) in one Themis node, the InitPlan
-- in a second one
CREATE TEMP TABLE ij_q15 AS SELECT $$
WITH revenue0 AS (SELECT l_suppkey AS supplier_no, sum(l_extendedprice * (1 - l_discount)) AS total_revenue
                  FROM lineitem
                  WHERE l_shipdate >= date '1996-01-01' AND l_shipdate < date '1996-01-01' + interval '3 months'
                  GROUP BY l_suppkey)
SELECT s_suppkey, s_name, s_address, s_phone, total_revenue
FROM supplier, revenue0
WHERE s_suppkey = supplier_no AND total_revenue = (SELECT max(total_revenue) FROM revenue0)
ORDER BY s_suppkey
$$::text AS q;
SET themis.view_max_ties = off;
SET themis.inline_view_ctes = on;
SELECT c.* FROM ij_q15, ij_check(ij_q15.q, true) c;
-- an empty range: the max is NULL, no row
SELECT * FROM ij_check($$
WITH revenue0 AS (SELECT l_suppkey AS supplier_no, sum(l_extendedprice * (1 - l_discount)) AS total_revenue
                  FROM lineitem WHERE l_shipdate >= date '2100-01-01' GROUP BY l_suppkey)
SELECT s_suppkey, total_revenue
FROM supplier, revenue0
WHERE s_suppkey = supplier_no AND total_revenue = (SELECT max(total_revenue) FROM revenue0)
ORDER BY s_suppkey
$$, true);
RESET themis.inline_view_ctes;
RESET themis.view_max_ties;
-- and computed once (themis.view_max_ties, the default): the largest revenue and its ties, then
-- supplier, under each join method
SELECT c.* FROM ij_q15, ij_check(ij_q15.q, true) c;
DROP TABLE ij_q15;

-- an initplan's value in the HAVING of a grouped subquery joined to a table (the InitPlan attached to
-- the aggregate, inside the subtree): a numeric without a fixed scale (avg: the rounded comparison),
-- a bigint, and one in the subquery's output that the join filter reads
SELECT * FROM ij_check($$
SELECT s_suppkey, s_name, r.rev
FROM supplier JOIN (SELECT l_suppkey, sum(l_extendedprice) AS rev FROM lineitem GROUP BY l_suppkey
                    HAVING sum(l_extendedprice) > (SELECT avg(l_extendedprice) * 598 FROM lineitem)) r
  ON s_suppkey = r.l_suppkey
ORDER BY s_suppkey
$$, true);
SELECT * FROM ij_check($$
SELECT s_suppkey, r.n
FROM supplier JOIN (SELECT l_suppkey, count(*) AS n FROM lineitem GROUP BY l_suppkey
                    HAVING count(*) >= (SELECT count(*) / 95 FROM lineitem)) r
  ON s_suppkey = r.l_suppkey
$$, false);
SELECT * FROM ij_check($$
SELECT s_suppkey, r.d
FROM supplier JOIN (SELECT l_suppkey, count(*) - (SELECT min(l_linenumber) * 590 FROM lineitem) AS d
                    FROM lineitem GROUP BY l_suppkey) r
  ON s_suppkey = r.l_suppkey AND r.d > s_nationkey
$$, false);

-- parameters set per outer row: the lookup's aggregate (LATERAL, a correlated EXISTS) stays on
-- PostgreSQL, whatever themis takes around it
SELECT * FROM ij_check($$
SELECT s.s_suppkey, x.n
FROM supplier s, LATERAL (SELECT count(*) AS n FROM lineitem l WHERE l.l_suppkey = s.s_suppkey
                          HAVING count(*) > s.s_nationkey + 590) x
$$, false);
SELECT ij_shape($$
SELECT s_suppkey FROM supplier s
WHERE EXISTS (SELECT 1 FROM lineitem l WHERE l.l_suppkey = s.s_suppkey GROUP BY l_partkey HAVING count(*) > s.s_nationkey % 3)
$$) AS shape;
SELECT * FROM tt.check($$
SELECT s_suppkey FROM supplier s
WHERE EXISTS (SELECT 1 FROM lineitem l WHERE l.l_suppkey = s.s_suppkey GROUP BY l_partkey HAVING count(*) > s.s_nationkey % 3)
$$);

-- the order of an index scan (the outer side of a Merge Join, sorting not allowed): its key columns in
-- the scan's direction, DESC and NULLS LAST included, forwards and backwards; an index on an
-- expression gives none (the plan stays on PostgreSQL)
CREATE TABLE ij_a (k int, v int);
CREATE TABLE ij_b (k int, w int);
INSERT INTO ij_a SELECT CASE WHEN i % 13 = 0 THEN NULL ELSE i % 300 END, i FROM generate_series(1, 3000) i;
INSERT INTO ij_b SELECT i % 400, i FROM generate_series(1, 2000) i;
CREATE INDEX ij_a_kv ON ij_a (k DESC NULLS LAST, v);
CREATE INDEX ij_b_expr ON ij_b ((k + 1));
ANALYZE ij_a, ij_b;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_sort = off;
SELECT ij_shape($$SELECT a.k, a.v, b.w FROM ij_a a JOIN ij_b b ON a.k = b.k ORDER BY a.k DESC NULLS LAST, a.v$$) AS shape;
SELECT * FROM tt.check_ordered($$SELECT a.k, a.v, b.w FROM ij_a a JOIN ij_b b ON a.k = b.k ORDER BY a.k DESC NULLS LAST, a.v, b.w$$);
SELECT * FROM tt.check_ordered($$SELECT a.k, a.v, b.w FROM ij_a a JOIN ij_b b ON a.k = b.k ORDER BY a.k NULLS FIRST, a.v DESC, b.w$$);
SELECT * FROM tt.check_ordered($$SELECT a.k, a.v, b.w FROM ij_a a LEFT JOIN ij_b b ON a.k = b.k ORDER BY a.k NULLS FIRST, a.v DESC, b.w$$);
SELECT ij_shape($$SELECT a.k, a.v, b.w FROM ij_b b JOIN ij_a a ON a.k = b.k + 1 ORDER BY b.k + 1$$) AS shape;
SELECT * FROM tt.check($$SELECT a.k, a.v, b.w FROM ij_b b JOIN ij_a a ON a.k = b.k + 1 ORDER BY b.k + 1$$);
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_sort;
DROP TABLE ij_a, ij_b;

-- ORDER BY ... LIMIT over a join PostgreSQL runs in index order, stopping after a few rows: the
-- Limit's cost, not the join's, is what a Themis node must beat (min_rows above 0; no fixed cost)
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET themis.min_rows = 1;
SET themis.startup_cost = 0;
SELECT ij_shape($$SELECT o_orderkey, l_linenumber FROM orders JOIN lineitem ON o_orderkey = l_orderkey
                  ORDER BY o_orderkey LIMIT 5$$) AS with_limit;
SELECT ij_shape($$SELECT o_orderkey, l_linenumber FROM orders JOIN lineitem ON o_orderkey = l_orderkey
                  ORDER BY o_orderkey$$) AS without_limit;
RESET themis.min_rows;
RESET themis.startup_cost;
SELECT * FROM tt.check_ordered($$SELECT o_orderkey, l_linenumber FROM orders JOIN lineitem ON o_orderkey = l_orderkey
                                 ORDER BY o_orderkey, l_linenumber LIMIT 5$$);
RESET enable_hashjoin;
RESET enable_nestloop;

DROP FUNCTION ij_check(text, boolean);
DROP FUNCTION ij_shape(text);

-- a statement with volatile functions: the node takes no parameter set by PostgreSQL (it evaluates an
-- initplan's before it reads a row, PostgreSQL when a row first needs it: here never, so the function
-- is not called) and reads no PostgreSQL subtree as a source (after a fallback, the kept plan would run
-- it again: other sequence values); the same answers and calls as PostgreSQL
CREATE TABLE ij_v (id int, k int, v int);
INSERT INTO ij_v SELECT i, i % 4, i FROM generate_series(1, 200) i;
CREATE TABLE ij_n (id int, x numeric(10,2));
INSERT INTO ij_n SELECT i, i FROM generate_series(1, 100) i;
INSERT INTO ij_n VALUES (101, 'NaN');
CREATE TABLE ij_log (x int);
CREATE FUNCTION ij_bump(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $f$ BEGIN INSERT INTO ij_log VALUES ($1); RETURN $1; END $f$;
CREATE SEQUENCE ij_sq;
ANALYZE ij_v, ij_n;
CALL tt.themis_on();
SET themis.fallback = on;
SELECT k, count(*) FROM ij_v WHERE k > 10 AND v > (SELECT ij_bump(7)) GROUP BY k;
SELECT count(*) AS calls FROM ij_log;
-- (also where the parameter is compared as a numeric: not called)
SELECT count(*) FROM ij_n WHERE id > 100000 AND x > (SELECT nextval('ij_sq')::numeric);
SELECT is_called FROM ij_sq;
SELECT tt.offloaded($$SELECT k, count(*) FROM ij_v WHERE k > 10 AND v > (SELECT max(id) FROM ij_n) GROUP BY k$$) AS plain_initplan;
SELECT count(*), sum(n.x), min(s.n + s.rn), max(s.n + s.rn)
  FROM ij_n n JOIN (SELECT id, nextval('ij_sq') n, row_number() OVER (ORDER BY id) rn FROM ij_v WHERE id < 5) s ON n.id = s.id;
SELECT count(*), sum(n.x), min(s.n), max(s.n)
  FROM ij_n n JOIN (SELECT id, ij_bump(id) n, row_number() OVER (ORDER BY id) rn FROM ij_v WHERE id < 5) s ON n.id = s.id;
SELECT count(*) AS calls FROM ij_log;
CALL tt.themis_reset();
DROP TABLE ij_v, ij_n, ij_log;
DROP FUNCTION ij_bump(int);
DROP SEQUENCE ij_sq;
