--
-- 60_params: parameters and rescans: prepared statements (custom and generic plans), initplans,
-- correlated subqueries, LATERAL, nested-loop inner sides, functions, cursors, LIMIT
--
-- prepared statements, custom plans: planned again at each EXECUTE
SET plan_cache_mode = force_custom_plan;
PREPARE c1(int) AS SELECT id, i4, t FROM types WHERE i4 = $1;
SELECT * FROM tt.check($$EXECUTE c1(5)$$);
SELECT * FROM tt.check($$EXECUTE c1(-100)$$);
PREPARE c2(text, date) AS SELECT g, count(*) AS n, sum(n2) AS s FROM types WHERE t LIKE $1 AND d > $2 GROUP BY g;
SELECT * FROM tt.check($$EXECUTE c2('a%', '2000-01-01')$$);
SELECT * FROM tt.check($$EXECUTE c2('%', '1990-01-01')$$);

-- generic plans: the values reach the themis node as parameters.  The plan is made at the first
-- EXECUTE, which check_pair runs with themis on; later EXECUTEs reuse it with other values.
SET plan_cache_mode = force_generic_plan;
PREPARE g1(int) AS SELECT id, i4, t FROM types WHERE i4 = $1;
SELECT * FROM tt.check_pair($$EXECUTE g1(5)$$, $$SELECT id, i4, t FROM types WHERE i4 = 5$$);
SELECT * FROM tt.check_pair($$EXECUTE g1(7)$$, $$SELECT id, i4, t FROM types WHERE i4 = 7$$);
SELECT * FROM tt.check_pair($$EXECUTE g1(NULL)$$, $$SELECT id, i4, t FROM types WHERE i4 = NULL$$);
PREPARE g2(text, date, numeric) AS
    SELECT id, t, d, n2 FROM types WHERE t LIKE $1 AND d > $2 AND n2 > $3;
SELECT * FROM tt.check_pair($$EXECUTE g2('a%', '2000-01-01', 0)$$,
                            $$SELECT id, t, d, n2 FROM types WHERE t LIKE 'a%' AND d > '2000-01-01' AND n2 > 0$$);
SELECT * FROM tt.check_pair($$EXECUTE g2('%本%', '1990-01-01', -5000.5)$$,
                            $$SELECT id, t, d, n2 FROM types WHERE t LIKE '%本%' AND d > '1990-01-01' AND n2 > -5000.5$$);
PREPARE g3(int, int) AS
    SELECT g, count(*) AS n, sum(i4 * $1) AS s, min(i2) AS m FROM types WHERE i4 > $2 GROUP BY g HAVING count(*) > $1;
SELECT * FROM tt.check_pair($$EXECUTE g3(2, 0)$$,
                            $$SELECT g, count(*) AS n, sum(i4 * 2) AS s, min(i2) AS m FROM types WHERE i4 > 0 GROUP BY g HAVING count(*) > 2$$);
SELECT * FROM tt.check_pair($$EXECUTE g3(50, -50)$$,
                            $$SELECT g, count(*) AS n, sum(i4 * 50) AS s, min(i2) AS m FROM types WHERE i4 > -50 GROUP BY g HAVING count(*) > 50$$);
PREPARE g4(int) AS
    SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND jr.w > jl.v + $1;
SELECT * FROM tt.check_pair($$EXECUTE g4(0)$$, $$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND jr.w > jl.v + 0$$);
SELECT * FROM tt.check_pair($$EXECUTE g4(500)$$, $$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND jr.w > jl.v + 500$$);
PREPARE g5(date) AS
    SELECT o_orderpriority, count(*) AS order_count FROM orders
    WHERE o_orderdate >= $1 AND o_orderdate < $1 + interval '3 months'
      AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
    GROUP BY o_orderpriority;
SELECT * FROM tt.check_pair($$EXECUTE g5('1993-07-01')$$,
                            $$SELECT o_orderpriority, count(*) AS order_count FROM orders
                              WHERE o_orderdate >= '1993-07-01' AND o_orderdate < date '1993-07-01' + interval '3 months'
                                AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
                              GROUP BY o_orderpriority$$);
SELECT * FROM tt.check_pair($$EXECUTE g5('1997-01-01')$$,
                            $$SELECT o_orderpriority, count(*) AS order_count FROM orders
                              WHERE o_orderdate >= '1997-01-01' AND o_orderdate < date '1997-01-01' + interval '3 months'
                                AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
                              GROUP BY o_orderpriority$$);
-- errors with parameters: raised at execution, not while planning
PREPARE g6(int) AS SELECT id, i4 / $1 AS x FROM types;
SELECT * FROM tt.check_error($$EXECUTE g6(0)$$);
SELECT * FROM tt.check_error($$EXECUTE g6(3)$$);
DEALLOCATE ALL;
RESET plan_cache_mode;

-- initplans (uncorrelated scalar subqueries)
SELECT * FROM tt.check($$SELECT id, i4 FROM types WHERE i4 > (SELECT avg(i4) FROM types) + 90$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t = (SELECT max(t) FROM types WHERE t < 'b')$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE d = (SELECT min(d) FROM types) OR d = (SELECT max(d) FROM types)$$);
SELECT * FROM tt.check($$SELECT g, count(*) AS n FROM types GROUP BY g HAVING count(*) > (SELECT count(*) / 11 FROM types)$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 = (SELECT i4 FROM types WHERE id = 1006)$$);   -- NULL parameter
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jr.w > (SELECT avg(v) FROM jl)$$);
-- correlated subqueries (SubPlan: the inner plan is run again for each outer row)
SELECT * FROM tt.check($$SELECT id, v FROM jl WHERE v > (SELECT avg(w) FROM jr WHERE jr.k1 = jl.k1)$$);
-- the same as a per-row subplan (themis.decorrelate off: sql/65_decorrelate.sql has the rewrite)
SET themis.decorrelate = off;
SELECT * FROM tt.check($$SELECT id, v FROM jl WHERE v > (SELECT avg(w) FROM jr WHERE jr.k1 = jl.k1)$$);
RESET themis.decorrelate;
SELECT * FROM tt.check($$SELECT id, (SELECT count(*) FROM jr WHERE jr.k2 = jl.k2) AS c FROM jl$$);
SELECT * FROM tt.check($$SELECT id, (SELECT max(w) FROM jr WHERE jr.k1 = jl.k1 AND jr.k2 = jl.k2) AS m FROM jl$$);
SELECT * FROM tt.check($$SELECT id FROM jl WHERE EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1 OR jr.k2 = jl.k2)$$);
SELECT * FROM tt.check($$SELECT id FROM jl WHERE NOT EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1 OR jr.w = jl.v)$$);
SELECT * FROM tt.check($$SELECT id FROM jl WHERE k1 = ANY (SELECT k1 FROM jr WHERE jr.w > jl.v)$$);
SELECT * FROM tt.check($$SELECT id, (SELECT sum(jr.w) FROM jr JOIN jl j2 ON j2.k1 = jr.k1 WHERE j2.k2 = jl.k2) AS s FROM jl WHERE id <= 50$$);
-- LATERAL
SELECT * FROM tt.check($$SELECT jl.id, s.c, s.m FROM jl, LATERAL (SELECT count(*) AS c, max(w) AS m FROM jr WHERE jr.k1 = jl.k1) s$$);
SELECT * FROM tt.check($$SELECT jl.id, s.rid FROM jl, LATERAL (SELECT jr.id AS rid FROM jr WHERE jr.k2 = jl.k2 AND jr.w > jl.v) s$$);
SELECT * FROM tt.check($$SELECT jl.id, s.rid FROM jl LEFT JOIN LATERAL (SELECT jr.id AS rid FROM jr WHERE jr.k1 = jl.k1 AND jr.w > 0) s ON true$$);
-- nested loops whose inner side is rescanned (no Materialize)
SET enable_material = off;
SELECT * FROM tt.check_join_methods($$SELECT jl.id, s.c FROM jl JOIN (SELECT k1, count(*) AS c FROM jr GROUP BY k1) s ON s.k1 = jl.k1$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND jr.w > 0$$);
SELECT * FROM tt.check_join_methods($$SELECT jl.id AS lid, x.id AS xid FROM jl JOIN (SELECT jr.id, jr.k1 FROM jr JOIN jl j2 ON j2.k2 = jr.k2 WHERE j2.v > 900) x
                                      ON x.k1 = jl.k1$$);
RESET enable_material;
-- functions that run queries with parameters
CREATE FUNCTION tt.jr_count(int) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT count(*) FROM jr WHERE k1 = $1 $$;
SELECT * FROM tt.check($$SELECT id, tt.jr_count(k1) AS c FROM jl$$);
CREATE FUNCTION tt.n2_sum_below(lim int) RETURNS numeric LANGUAGE plpgsql STABLE AS $$
DECLARE
    s numeric := 0;
    r record;
BEGIN
    FOR r IN SELECT n2 FROM types WHERE i4 < lim AND n2 IS NOT NULL LOOP
        s := s + r.n2;
    END LOOP;
    RETURN s;
END
$$;
SELECT * FROM tt.check($$SELECT g, tt.n2_sum_below(g * 10) AS s FROM types WHERE id <= 5 OR id > 1000$$);
-- LIMIT above a themis subtree: which rows is undefined, how many is not
SELECT * FROM tt.check($$SELECT count(*) AS n FROM (SELECT * FROM types WHERE i4 > 0 LIMIT 10) s$$);
SELECT * FROM tt.check($$SELECT count(*) AS n FROM (SELECT jl.id FROM jl JOIN jr ON jl.k1 = jr.k1 LIMIT 7) s$$);
SELECT * FROM tt.check_ordered($$SELECT id, i4 FROM types WHERE i4 > 0 ORDER BY i4 DESC, id LIMIT 5$$);
SELECT * FROM tt.check_ordered($$SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n DESC, g NULLS FIRST LIMIT 3$$);
SELECT * FROM tt.check($$SELECT EXISTS (SELECT 1 FROM lineitem WHERE l_quantity > 49) AS e$$);
-- cursors (output compared with the expected file, which PostgreSQL produced)
BEGIN;
CALL tt.themis_on(true);
DECLARE cur1 CURSOR FOR SELECT g, count(*) AS n, sum(i4) AS s FROM types GROUP BY g ORDER BY g;
FETCH 3 FROM cur1;
FETCH 2 FROM cur1;
FETCH ALL FROM cur1;
CLOSE cur1;
DECLARE cur2 SCROLL CURSOR FOR SELECT id, t FROM types WHERE i4 = 5 ORDER BY id;
FETCH 2 FROM cur2;
FETCH BACKWARD 1 FROM cur2;
FETCH LAST FROM cur2;
FETCH ABSOLUTE 1 FROM cur2;
FETCH ALL FROM cur2;
CLOSE cur2;
DECLARE cur3 SCROLL CURSOR FOR SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jl.v > 900 ORDER BY 1, 2;
FETCH FORWARD 4 FROM cur3;
FETCH BACKWARD 2 FROM cur3;
MOVE LAST IN cur3;
FETCH BACKWARD 1 FROM cur3;
CLOSE cur3;
DECLARE cur4 CURSOR WITH HOLD FOR SELECT l_returnflag, l_linestatus, count(*) AS n, sum(l_quantity) AS q
                                  FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2;
COMMIT;
FETCH ALL FROM cur4;
CLOSE cur4;
