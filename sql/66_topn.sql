--
-- 66_topn: ORDER BY ... LIMIT above a Themis node (src/topn.c): the node returns only the rows whose
-- first sort key can make the cut (ties at the boundary kept), the Sort and Limit above do the rest
--
-- the first key alone decides, or ties on it at the boundary (g has 10 values and NULLs)
SELECT * FROM tt.check_ordered($$SELECT g, count(*) AS n, sum(i4) AS s FROM types GROUP BY g ORDER BY s DESC, g LIMIT 3$$);
SELECT * FROM tt.check_ordered($$SELECT id, g, i4 FROM types WHERE i4 > 0 ORDER BY g, id LIMIT 7$$);
SELECT * FROM tt.check_ordered($$SELECT id, g, i4 FROM types WHERE i4 > 0 ORDER BY g DESC, id LIMIT 7$$);
-- NULL keys: last ascending, first descending, and as asked
SELECT * FROM tt.check_ordered($$SELECT id, i4 FROM types ORDER BY i4, id LIMIT 5$$);
SELECT * FROM tt.check_ordered($$SELECT id, i4 FROM types ORDER BY i4 DESC, id LIMIT 5$$);
SELECT * FROM tt.check_ordered($$SELECT id, i4 FROM types ORDER BY i4 NULLS FIRST, id LIMIT 5$$);
SELECT * FROM tt.check_ordered($$SELECT id, i4 FROM types ORDER BY i4 DESC NULLS LAST, id LIMIT 5$$);
-- numeric, float (NaN, infinities where the table has them), date, timestamp, text keys
SELECT * FROM tt.check_ordered($$SELECT id, n4 FROM types WHERE id % 3 = 0 ORDER BY n4 DESC, id LIMIT 10$$);
SELECT * FROM tt.check_ordered($$SELECT id, f8 FROM types ORDER BY f8 DESC, id LIMIT 10$$);
SELECT * FROM tt.check_ordered($$SELECT id, f8 FROM types ORDER BY f8, id LIMIT 10$$);
SELECT * FROM tt.check_ordered($$SELECT id, d FROM types ORDER BY d, id LIMIT 4$$);
SELECT * FROM tt.check_ordered($$SELECT id, ts FROM types ORDER BY ts DESC, id LIMIT 4$$);
SELECT * FROM tt.check_ordered($$SELECT id, t FROM types ORDER BY t, id LIMIT 6$$);
SELECT * FROM tt.check_ordered($$SELECT id, c10 FROM types ORDER BY c10 DESC, id LIMIT 6$$);
-- OFFSET, a LIMIT past the end, LIMIT 0, LIMIT ALL
SELECT * FROM tt.check_ordered($$SELECT id, i8 FROM types ORDER BY i8, id LIMIT 5 OFFSET 20$$);
SELECT * FROM tt.check_ordered($$SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n, g LIMIT 100$$);
SELECT * FROM tt.check_ordered($$SELECT id FROM types ORDER BY id LIMIT 0$$);
SELECT * FROM tt.check_ordered($$SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n DESC, g LIMIT ALL$$);
-- FETCH FIRST ... WITH TIES: the Limit returns the rows tied with the last one on every key, a subset of
-- those kept (their order among themselves is PostgreSQL's choice: compared as sets)
SELECT * FROM tt.check($$SELECT id, g FROM types ORDER BY g FETCH FIRST 3 ROWS WITH TIES$$);
SELECT * FROM tt.check($$SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n DESC FETCH FIRST 2 ROWS WITH TIES$$);
SELECT * FROM tt.check($$SELECT id, g, i4 FROM types ORDER BY g DESC NULLS LAST, i4 FETCH FIRST 5 ROWS WITH TIES$$);
SELECT * FROM tt.check_ordered($$SELECT id, g FROM types ORDER BY g NULLS FIRST, id OFFSET 10 ROWS FETCH FIRST 3 ROWS WITH TIES$$);
-- an aggregate over a join (TPC-H Q10's shape)
SELECT * FROM tt.check_ordered($$SELECT o_custkey, sum(l_extendedprice * (1 - l_discount)) AS revenue
                                 FROM orders JOIN lineitem ON l_orderkey = o_orderkey
                                 GROUP BY o_custkey ORDER BY revenue DESC, o_custkey LIMIT 20$$);
-- a prepared statement: LIMIT $1 is a constant in a custom plan (marked), a parameter in a generic one (not)
PREPARE topn_p(int8) AS SELECT id, i4 FROM types ORDER BY i4 DESC NULLS LAST, id LIMIT $1;
SET themis.min_rows = 0;
SET themis.fallback = off;
SET themis.device = cpu;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE topn_p(4);
EXECUTE topn_p(4);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE topn_p(4);
EXECUTE topn_p(4);
SET themis.enabled = off;
EXECUTE topn_p(4);
RESET themis.enabled;
RESET plan_cache_mode;
DEALLOCATE topn_p;
-- EXPLAIN ANALYZE: rows kept of the node's result
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n DESC, g LIMIT 2;
-- HAVING against an initplan's value is a filter in the node (so the mark applies); TPC-H Q11's shape,
-- a numeric sum against a numeric parameter of another scale, too
EXPLAIN (COSTS OFF)
SELECT g, count(*) AS n FROM types GROUP BY g HAVING count(*) > (SELECT count(*) / 20 FROM types) ORDER BY n LIMIT 2;
SELECT * FROM tt.check_ordered($$SELECT g, count(*) AS n FROM types GROUP BY g HAVING count(*) > (SELECT count(*) / 20 FROM types) ORDER BY n, g LIMIT 2$$);
SELECT * FROM tt.check($$SELECT g, sum(n2) AS s FROM types GROUP BY g HAVING sum(n2) > (SELECT sum(n2) * 0.0913 FROM types)$$);
SELECT * FROM tt.check($$SELECT g, sum(n2) AS s FROM types GROUP BY g HAVING sum(n2) <= (SELECT sum(n2) / 7 FROM types)$$);
SELECT * FROM tt.check($$SELECT g, sum(n2) AS s FROM types GROUP BY g HAVING sum(n2) > (SELECT NULL::numeric)$$);
-- not marked: a HAVING themis cannot evaluate stays PostgreSQL's filter on the node's rows
EXPLAIN (COSTS OFF)
SELECT g, max(t) AS m FROM types GROUP BY g HAVING upper(max(t)) <> 'ZZ' ORDER BY m LIMIT 2;
SELECT * FROM tt.check_ordered($$SELECT g, max(t) AS m FROM types GROUP BY g HAVING upper(max(t)) <> 'ZZ' ORDER BY m, g LIMIT 2$$);
-- empty input; errors in a HAVING evaluated in the node (division by zero, overflow) as PostgreSQL raises them
SELECT * FROM tt.check_ordered($$SELECT id, i4 FROM empty_types ORDER BY i4 DESC, id LIMIT 3$$);
SELECT * FROM tt.check($$SELECT g, count(*) AS n FROM empty_types GROUP BY g HAVING count(*) > (SELECT count(*) / 20 FROM types)$$);
SELECT * FROM tt.check_error($$SELECT g, count(*) AS n FROM types GROUP BY g HAVING count(*) / ((SELECT count(*) FROM types) - 1011) > 1$$);
SELECT * FROM tt.check_error($$SELECT g, sum(i4) AS s FROM types GROUP BY g HAVING sum(i4)::int4 * (SELECT 2147483647) > 0$$);
-- a projection that can fail on a row the cut would drop keeps every row (local fuzz s39-q201: d + 30
-- past the last date raises in PostgreSQL's projection of every row); a leakproof one keeps the mark
CREATE TABLE topn_d (i8 int8, d date) WITH (autovacuum_enabled = off);
INSERT INTO topn_d VALUES (NULL, '2000-05-11'), (55332, '2000-05-11'), (85020, '2002-07-16'),
    (65, '5874897-12-31'), (7682, '2000-05-11'), (85020, '2000-05-11');
EXPLAIN (COSTS OFF) SELECT d - (-30) AS c0, i8 AS c1 FROM topn_d ORDER BY c1 DESC NULLS FIRST, c0 LIMIT 3;
SELECT * FROM tt.check_error($$SELECT d - (-30) AS c0, i8 AS c1 FROM topn_d ORDER BY c1 DESC NULLS FIRST, c0 LIMIT 3$$);
EXPLAIN (COSTS OFF) SELECT d = '2000-05-11' AS c0, i8 AS c1 FROM topn_d ORDER BY c1 DESC NULLS FIRST, c0 LIMIT 3;
SELECT * FROM tt.check_ordered($$SELECT d = '2000-05-11' AS c0, i8 AS c1 FROM topn_d ORDER BY c1 DESC NULLS FIRST, c0 LIMIT 3$$);
DROP TABLE topn_d;
-- a volatile function in the projection keeps every row: PostgreSQL calls it once for each row below the
-- Sort (nextval() is called as many times with themis on as off)
CREATE SEQUENCE topn_seq;
EXPLAIN (COSTS OFF) SELECT x FROM (SELECT id AS x, nextval('topn_seq') AS n FROM types ORDER BY i4, id, n LIMIT 2) s;
CREATE TEMP TABLE topn_calls (themis bool, calls int8);
SET themis.enabled = off;
SELECT x FROM (SELECT id AS x, nextval('topn_seq') AS n FROM types ORDER BY i4, id, n LIMIT 2) s;
INSERT INTO topn_calls SELECT false, nextval('topn_seq') - 1;
SELECT setval('topn_seq', 1, false) IS NOT NULL AS reset;
SET themis.enabled = on;
SELECT x FROM (SELECT id AS x, nextval('topn_seq') AS n FROM types ORDER BY i4, id, n LIMIT 2) s;
INSERT INTO topn_calls SELECT true, nextval('topn_seq') - 1;
SELECT themis, calls FROM topn_calls ORDER BY themis;
DROP TABLE topn_calls;
DROP SEQUENCE topn_seq;
-- a Sort right above the node, with or without LIMIT (src/presort.c): the node returns its rows in the
-- Sort's order where every key compares natively (integers, dates, timestamps, numerics; text and bpchar
-- under the C collation), and EXPLAIN ANALYZE checks that order with the Sort's own comparators.  At the
-- top of the plan the Sort is then dropped: the node shows its Sort Key (68_sort_elide)
CREATE FUNCTION pg_temp.presorted(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE l text;
BEGIN
    FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF l ~ 'Presort|Sort Key|Sort \(' THEN RETURN NEXT btrim(l); END IF;
    END LOOP;
END $f$;
-- text (bytes: upper case, multibyte, empty), bpchar (trailing blanks do not count), NULLs first / last
SELECT * FROM pg_temp.presorted($$SELECT t, c10, count(*) AS n FROM types GROUP BY t, c10 ORDER BY t, c10 DESC$$);
SELECT * FROM tt.check_ordered($$SELECT t, c10, count(*) AS n FROM types GROUP BY t, c10 ORDER BY t, c10 DESC$$);
SELECT * FROM pg_temp.presorted($$SELECT c10, vc, min(id) AS m FROM types GROUP BY c10, vc ORDER BY c10 NULLS FIRST, vc DESC NULLS LAST$$);
SELECT * FROM tt.check_ordered($$SELECT c10, vc, min(id) AS m FROM types GROUP BY c10, vc ORDER BY c10 NULLS FIRST, vc DESC NULLS LAST$$);
-- TPC-H Q16's shape: a count descending, then text and integer keys; numeric, date and timestamp keys
SELECT * FROM pg_temp.presorted($$SELECT g, t, count(DISTINCT i4) AS n FROM types GROUP BY g, t ORDER BY n DESC, t, g$$);
SELECT * FROM tt.check_ordered($$SELECT g, t, count(DISTINCT i4) AS n FROM types GROUP BY g, t ORDER BY n DESC, t, g$$);
SELECT * FROM pg_temp.presorted($$SELECT id, n4, d, ts FROM types WHERE id % 4 = 0 ORDER BY n4 DESC, d, ts DESC, id$$);
SELECT * FROM tt.check_ordered($$SELECT id, n4, d, ts FROM types WHERE id % 4 = 0 ORDER BY n4 DESC, d, ts DESC, id$$);
-- with a top-N cut too: the kept rows in order
SELECT * FROM pg_temp.presorted($$SELECT g, sum(n2) AS s FROM types GROUP BY g ORDER BY s DESC, g LIMIT 3$$);
-- no rows
SELECT * FROM pg_temp.presorted($$SELECT id, t FROM empty_types ORDER BY t DESC, id$$);
SELECT * FROM tt.check_ordered($$SELECT id, t FROM empty_types ORDER BY t DESC, id$$);
-- a Sort that stays (under a WindowAgg): the node presorts for it, and the Sort finds its rows in order
SELECT * FROM pg_temp.presorted($$SELECT g, n, row_number() OVER (ORDER BY n DESC, g) AS r FROM (SELECT g, count(*) AS n FROM types GROUP BY g) x$$);
-- a float key does not compare natively here: no presort (the Sort orders the rows as always)
SELECT * FROM pg_temp.presorted($$SELECT id, f8 FROM types WHERE id % 5 = 0 ORDER BY f8, id$$);
SELECT * FROM tt.check_ordered($$SELECT id, f8 FROM types WHERE id % 5 = 0 ORDER BY f8, id$$);
RESET themis.min_rows;
RESET themis.fallback;
RESET themis.device;
-- a volatile function in the select list runs above the Sort and the Limit in PostgreSQL's plan (once per
-- row returned, in their order): that projection stays PostgreSQL's; the same sequence values and calls
CREATE TABLE topn_v (id int, k int);
INSERT INTO topn_v SELECT i, i % 4 FROM generate_series(1, 500) i;
CREATE TABLE topn_log (x int);
CREATE FUNCTION topn_bump(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $f$ BEGIN INSERT INTO topn_log VALUES ($1); RETURN $1; END $f$;
ANALYZE topn_v;
CREATE SEQUENCE topn_sq;
CALL tt.themis_on();
EXPLAIN (COSTS OFF) SELECT id, nextval('topn_sq') FROM topn_v WHERE id <= 50 ORDER BY id DESC LIMIT 3;
SELECT id, nextval('topn_sq') FROM topn_v WHERE id <= 50 ORDER BY id DESC LIMIT 3;
SELECT nextval('topn_sq');
SELECT id, topn_bump(id) FROM topn_v WHERE id <= 50 ORDER BY id LIMIT 3;
SELECT count(*) FROM topn_log;
SELECT * FROM (SELECT id, nextval('topn_sq') AS n FROM topn_v WHERE k = 1 AND id < 30 ORDER BY id DESC) s ORDER BY n;
CALL tt.themis_reset();
DROP TABLE topn_v, topn_log;
DROP FUNCTION topn_bump(int);
DROP SEQUENCE topn_sq;
