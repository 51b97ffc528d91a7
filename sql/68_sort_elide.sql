--
-- 68_sort_elide: a Sort that is the top node of a SELECT (or the child of a top Limit), right above a
-- Themis node whose sort keys all compare natively, is dropped (src/presort.c): the node returns its
-- rows in the Sort's order itself, on every path — the CPU executor (the GPU with tt.device = gpu), the
-- fallback to the kept PostgreSQL plan (which then runs under a Sort of its own), a plan cached while
-- themis was enabled.  Where anything else needs the rows (a Merge Join, a cursor that may scroll) or a
-- key does not compare natively (float, a non-C collation), the Sort stays.
--
-- pg_temp.elided(q): how EXPLAIN of q (themis forced on) orders the rows: 'elided' (the Themis node
-- shows a Sort Key, no Sort above it), 'Sort kept', or 'no Themis node'.
-- pg_temp.in_order(q, keys[, fallback]): q run with themis forced on into a table; every row at a
-- position its keys allow (keys: an ORDER BY list over q's output columns): 'rows=N in order', else how
-- many rows are out of place.  For ORDER BY lists with ties, where tt.check_ordered cannot compare.
--
CREATE FUNCTION pg_temp.elided(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
    saved text[] := tt._save();
    j jsonb;
BEGIN
    PERFORM tt._themis(true);
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
    PERFORM tt._restore(saved);
    IF jsonb_path_exists(j, '$.** ? (@."Custom Plan Provider" == "Themis" && exists(@."Sort Key"))') THEN
        IF jsonb_path_exists(j, '$.** ? (@."Node Type" == "Sort")') THEN
            RETURN 'elided, but a Sort too';
        END IF;
        RETURN 'elided';
    ELSIF jsonb_path_exists(j, '$.** ? (@."Custom Plan Provider" == "Themis")') THEN
        RETURN 'Sort kept';
    END IF;
    RETURN 'no Themis node';
END $f$;
CREATE FUNCTION pg_temp.in_order(q text, keys text, fallback boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
    saved text[] := tt._save();
    tbl text := 'tt_in_order_' || nextval('tt.seq');
    n bigint;
    bad bigint;
BEGIN
    n := tt._run(q, tbl, true, fallback);
    -- in order: row number rn (insertion order) within [rank, rank + peers) by the keys
    EXECUTE format('SELECT count(*) FILTER (WHERE rn < rk OR rn >= rk + peers) FROM
                        (SELECT row_number() OVER (ORDER BY ctid) AS rn,
                                rank() OVER (ORDER BY %1$s) AS rk,
                                count(*) OVER (ORDER BY %1$s RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS peers
                         FROM %2$I) s', keys, tbl) INTO bad;
    EXECUTE format('DROP TABLE %I', tbl);
    PERFORM tt._restore(saved);
    IF bad = 0 THEN
        RETURN format('rows=%s in order', n);
    END IF;
    RETURN format('rows=%s, %s NOT in order', n, bad);
END $f$;
-- EXPLAIN ANALYZE of q as it runs (themis settings as set), without what varies by machine (sort and
-- hash memory, the fallback's reason, times)
CREATE FUNCTION pg_temp.plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE l text;
BEGIN
    FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF l !~ '(Sort Method|Memory|Fallback:|Actual:|Batches)' THEN RETURN NEXT l; END IF;
    END LOOP;
END $f$;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- the plan: the Themis node at the top, with the keys it guarantees
EXPLAIN (COSTS OFF) SELECT g, t, count(DISTINCT i4) AS n FROM types GROUP BY g, t ORDER BY n DESC, t, g;
EXPLAIN (COSTS OFF) SELECT id, c10, d FROM types WHERE i4 > 150 ORDER BY c10 DESC NULLS LAST, d NULLS FIRST, id LIMIT 5;
EXPLAIN (VERBOSE, COSTS OFF) SELECT g, sum(n2) AS s FROM types GROUP BY g ORDER BY s, g;
-- EXPLAIN ANALYZE checks the order with PostgreSQL's comparators
SELECT * FROM pg_temp.plan($$SELECT g, t, count(DISTINCT i4) AS n FROM types GROUP BY g, t ORDER BY n DESC, t, g$$);
SELECT * FROM pg_temp.plan($$SELECT id, c10, d FROM types WHERE i4 > 150 ORDER BY c10 DESC NULLS LAST, d NULLS FIRST, id LIMIT 5$$);
-- every native kind, ascending and descending, NULLs first and last (themis off and on, row by row)
SELECT pg_temp.elided(q), r.* FROM (VALUES
    ($$SELECT id, i2 FROM types ORDER BY i2, id$$),
    ($$SELECT id, i4 FROM types ORDER BY i4 DESC, id$$),
    ($$SELECT id, i8 FROM types ORDER BY i8 NULLS FIRST, id DESC$$),
    ($$SELECT id, n2 FROM types ORDER BY n2 DESC NULLS LAST, id$$),
    ($$SELECT id, n4 FROM types WHERE id % 3 = 0 ORDER BY n4, id$$),
    ($$SELECT id, d FROM types ORDER BY d DESC, id$$),
    ($$SELECT id, ts FROM types ORDER BY ts NULLS FIRST, id$$),
    ($$SELECT id, t FROM types ORDER BY t, id$$),
    ($$SELECT id, t FROM types ORDER BY t DESC NULLS LAST, id DESC$$),
    ($$SELECT id, c10 FROM types ORDER BY c10, id$$),
    ($$SELECT id, vc FROM types ORDER BY vc DESC, id$$),
    ($$SELECT id, t FROM types ORDER BY t COLLATE "C" DESC, id$$),
    ($$SELECT g, count(*) AS n, sum(i8) AS s, min(d) AS md, max(t) AS mt FROM types GROUP BY g ORDER BY s DESC, g$$),
    ($$SELECT c10, vc, min(id) AS m FROM types GROUP BY c10, vc ORDER BY c10 NULLS FIRST, vc DESC NULLS LAST$$),
    ($$SELECT id, n4, d, ts FROM types WHERE id % 4 = 0 ORDER BY n4 DESC, d, ts DESC, id$$),
    -- keys past the sort records' 64-byte prefix: l_discount's last bytes (where its values differ) and
    -- the keys after it are not in it, and about 7 rows tie on the keys before (presort_cmp decides)
    ($$SELECT l_orderkey, l_linenumber, l_shipinstruct, l_shipmode, l_returnflag, l_linestatus, l_quantity, l_discount
       FROM lineitem WHERE l_orderkey % 3 = 0
       ORDER BY l_shipinstruct, l_shipmode, l_returnflag, l_linestatus DESC, l_quantity, l_discount DESC,
                l_orderkey, l_linenumber$$),
    ($$SELECT o_orderkey, o_orderdate, sum(l_extendedprice * (1 - l_discount)) AS revenue
       FROM orders JOIN lineitem ON l_orderkey = o_orderkey WHERE o_orderdate < date '1995-03-15'
       GROUP BY o_orderkey, o_orderdate ORDER BY revenue DESC, o_orderdate, o_orderkey$$)
) v(q), LATERAL tt.check_ordered(q) r;
-- ties: the keys do not decide the order of every row; the same rows, each where its keys put it
SELECT pg_temp.elided(q), r.*, pg_temp.in_order(q, k) FROM (VALUES
    ($$SELECT id, g FROM types ORDER BY g$$, 'g'),
    ($$SELECT id, g, b FROM types ORDER BY g DESC NULLS LAST, b NULLS FIRST$$, 'g DESC NULLS LAST, b NULLS FIRST'),
    ($$SELECT id, c10 FROM types ORDER BY c10 DESC$$, 'c10 DESC'),
    ($$SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n$$, 'n'),
    ($$SELECT l_returnflag, l_linestatus, l_shipdate, l_quantity FROM lineitem WHERE l_orderkey % 7 = 0
       ORDER BY l_returnflag, l_shipdate DESC, l_quantity$$, 'l_returnflag, l_shipdate DESC, l_quantity')
) v(q, k), LATERAL tt.check(q) r;
-- a LIMIT on top (with the top-N cut), OFFSET, and no rows
SELECT pg_temp.elided(q), r.* FROM (VALUES
    ($$SELECT g, sum(n2) AS s FROM types GROUP BY g ORDER BY s DESC, g LIMIT 3$$),
    ($$SELECT id, t FROM types ORDER BY t DESC, id LIMIT 10 OFFSET 5$$),
    ($$SELECT id, d FROM types WHERE i4 > 0 ORDER BY d NULLS FIRST, id LIMIT 25$$),
    ($$SELECT id, t FROM empty_types ORDER BY t DESC, id$$),
    ($$SELECT id, t FROM empty_types ORDER BY t DESC, id LIMIT 3$$),
    ($$SELECT id, i4 FROM types WHERE i4 > 1000 ORDER BY i4, id$$)
) v(q), LATERAL tt.check_ordered(q) r;
-- kept: a float key, a non-C collation
SELECT pg_temp.elided(q), r.* FROM (VALUES
    ($$SELECT id, f8 FROM types WHERE id % 5 = 0 ORDER BY f8, id$$),
    ($$SELECT id, f4 FROM types ORDER BY f4 DESC, id$$),
    ($$SELECT id, t FROM types ORDER BY t COLLATE "und-x-icu", id$$),
    ($$SELECT t, count(*) AS n FROM types GROUP BY t ORDER BY t COLLATE "und-x-icu" DESC$$)
) v(q), LATERAL tt.check_ordered(q) r;
EXPLAIN (COSTS OFF) SELECT t, count(*) AS n FROM types GROUP BY t ORDER BY t COLLATE "und-x-icu";
-- kept: a Sort that is not the top node: under a Merge Join (which relies on its order), a WindowAgg
CREATE FUNCTION pg_temp.opaque(int8) RETURNS int8 LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN $1; END $$;
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
SELECT a.g, a.c, b.s FROM (SELECT g, count(*) AS c FROM types GROUP BY g) a
  JOIN (SELECT g, sum(i4) AS s FROM types GROUP BY g) b ON a.g = b.g AND pg_temp.opaque(a.c) < b.s ORDER BY a.g;
SELECT * FROM tt.check_ordered($$SELECT a.g, a.c, b.s FROM (SELECT g, count(*) AS c FROM types GROUP BY g) a
  JOIN (SELECT g, sum(i4) AS s FROM types GROUP BY g) b ON a.g = b.g AND pg_temp.opaque(a.c) < b.s ORDER BY a.g$$);
RESET enable_hashjoin;
RESET enable_nestloop;
EXPLAIN (COSTS OFF)
SELECT g, n, row_number() OVER (ORDER BY n DESC, g) AS r FROM (SELECT g, count(*) AS n FROM types GROUP BY g) x ORDER BY n DESC, g;
SELECT * FROM tt.check_ordered($$SELECT g, n, row_number() OVER (ORDER BY n DESC, g) AS r FROM (SELECT g, count(*) AS n FROM types GROUP BY g) x ORDER BY n DESC, g$$);
-- cursors: one that may scroll keeps the Sort (SCROLL, or neither SCROLL nor NO SCROLL: then it
-- scrolls where the plan can), NO SCROLL takes the node alone
CALL tt.themis_on();
EXPLAIN (COSTS OFF) DECLARE c1 SCROLL CURSOR FOR SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n DESC, g;
EXPLAIN (COSTS OFF) DECLARE c2 CURSOR FOR SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n DESC, g;
EXPLAIN (COSTS OFF) DECLARE c3 NO SCROLL CURSOR FOR SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n DESC, g;
BEGIN;
DECLARE c2 CURSOR FOR SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n DESC, g;
FETCH 3 FROM c2;
FETCH BACKWARD 2 FROM c2;
FETCH LAST FROM c2;
DECLARE c3 NO SCROLL CURSOR FOR SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n DESC, g;
FETCH 4 FROM c3;
FETCH 20 FROM c3;
COMMIT;
SET themis.enabled = off;
SELECT g, count(*) AS n FROM types GROUP BY g ORDER BY n DESC, g;
RESET themis.enabled;
-- PL/pgSQL: a FOR loop's query is planned as a cursor (the Sort stays), RETURN QUERY's is not
CREATE FUNCTION pg_temp.loop_rows() RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE r record;
BEGIN
    FOR r IN SELECT t, count(*) AS n FROM types GROUP BY t ORDER BY n DESC, t LIMIT 6 LOOP
        RETURN NEXT format('%s:%s', r.t, r.n);
    END LOOP;
    RETURN QUERY SELECT format('%s:%s', t, count(*)) FROM types GROUP BY t ORDER BY count(*) DESC, t LIMIT 6;
END $f$;
SELECT * FROM pg_temp.loop_rows();
CALL tt.themis_reset();
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- the fallback: the kept PostgreSQL plan runs under a Sort by the same keys.  themis.device = gpu with
-- an injected GPU error (themis.debug_fault; where there is no GPU, the GPU path is unavailable anyway)
-- and themis.fallback = on: every query falls back
SET themis.device = gpu;
SET themis.debug_fault = gpu_error;
SET themis.fallback = on;
SELECT * FROM pg_temp.plan($$SELECT g, t, count(DISTINCT i4) AS n FROM types GROUP BY g, t ORDER BY n DESC, t, g$$);
SELECT * FROM pg_temp.plan($$SELECT g, sum(n2) AS s FROM types GROUP BY g ORDER BY s DESC, g LIMIT 3$$);
SELECT * FROM pg_temp.plan($$SELECT id, c10, d FROM types WHERE i4 > 150 ORDER BY c10 DESC NULLS LAST, d NULLS FIRST, id LIMIT 5$$);
SELECT g, sum(n2) AS s FROM types GROUP BY g ORDER BY s DESC, g LIMIT 3;
-- where PostgreSQL's plan is not itself that Sort (a sorted aggregation gives the ORDER BY), the kept
-- plan runs under a new Sort (keys: the node's output columns, which are the kept plan's)
SET enable_hashagg = off;
SELECT * FROM pg_temp.plan($$SELECT g, t, count(*) AS n FROM types GROUP BY g, t ORDER BY g DESC, t NULLS FIRST$$);
SET tt.device = gpu;
SELECT * FROM pg_temp.in_order($$SELECT g, t, count(*) AS n FROM types GROUP BY g, t ORDER BY g DESC, t NULLS FIRST$$,
                               'g DESC, t NULLS FIRST', true);
RESET enable_hashagg;
SELECT pg_temp.elided(q), r.*, pg_temp.in_order(q, k, true) FROM (VALUES
    ($$SELECT g, t, count(DISTINCT i4) AS n FROM types GROUP BY g, t ORDER BY n DESC, t, g$$, 'n DESC, t, g'),
    ($$SELECT id, n2, t FROM types WHERE id % 3 = 1 ORDER BY n2 DESC NULLS LAST, t, id$$, 'n2 DESC NULLS LAST, t, id'),
    ($$SELECT id, c10, d FROM types WHERE i4 > 150 ORDER BY c10 DESC NULLS LAST, d NULLS FIRST, id LIMIT 5$$, 'c10 DESC NULLS LAST, d NULLS FIRST, id'),
    ($$SELECT l_returnflag, l_linestatus, sum(l_quantity) AS q FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2$$, 'l_returnflag, l_linestatus'),
    ($$SELECT id, t FROM empty_types ORDER BY t DESC, id$$, 't DESC, id')
) v(q, k), LATERAL tt._check(q, q, true, true) r;
RESET tt.device;
RESET themis.debug_fault;
-- and where a value is not representable (NaN: the CPU executor falls back too)
CREATE TABLE elide_nan (id int4, k int4, n numeric(12,2)) WITH (autovacuum_enabled = off);
INSERT INTO elide_nan SELECT i, i % 7, CASE WHEN i = 40 THEN 'NaN' ELSE i * 1.5 END FROM generate_series(1, 100) i;
ANALYZE elide_nan;
SET themis.device = cpu;
SELECT * FROM pg_temp.plan($$SELECT k, sum(n) AS s FROM elide_nan GROUP BY k ORDER BY k DESC$$);
SELECT pg_temp.elided(q), r.*, pg_temp.in_order(q, k, true) FROM (VALUES
    ($$SELECT k, sum(n) AS s FROM elide_nan GROUP BY k ORDER BY k DESC$$, 'k DESC'),
    ($$SELECT id, k, n FROM elide_nan WHERE n > 10 ORDER BY k, id DESC$$, 'k, id DESC')
) v(q, k), LATERAL tt._check(q, q, true, true) r;
DROP TABLE elide_nan;
-- a plan cached while themis was enabled runs the kept plan when it is off: under the Sort as well
SET plan_cache_mode = force_generic_plan;
PREPARE elide_p(int) AS SELECT g, t, count(*) AS n FROM types WHERE i4 > $1 GROUP BY g, t ORDER BY n DESC, t, g LIMIT 8;
EXPLAIN (COSTS OFF) EXECUTE elide_p(0);
EXECUTE elide_p(0);
SET themis.enabled = off;
SELECT * FROM pg_temp.plan($$EXECUTE elide_p(0)$$);
EXECUTE elide_p(0);
RESET themis.enabled;
DEALLOCATE elide_p;
RESET plan_cache_mode;
-- an initplan: TPC-H Q11's shape (HAVING against an initplan, ORDER BY the aggregate); the node takes
-- the initplan with the Sort's place
EXPLAIN (COSTS OFF)
SELECT g, sum(n2) AS s FROM types GROUP BY g HAVING sum(n2) > (SELECT sum(n2) * 0.0913 FROM types) ORDER BY s DESC;
SELECT * FROM tt.check_ordered($$SELECT g, sum(n2) AS s FROM types GROUP BY g HAVING sum(n2) > (SELECT sum(n2) * 0.0913 FROM types) ORDER BY s DESC$$);
-- a sort key not in the select list (a junk column of the node, which takes the Sort's junk flags: the
-- client does not see it); kept: a key the node's projection computes (not a column of its scan
-- tuple), SELECT DISTINCT (a Unique above the Sort)
SELECT pg_temp.elided(q), r.* FROM (VALUES
    ($$SELECT id FROM types WHERE i4 > 100 ORDER BY i4, id$$),
    ($$SELECT id, i4 FROM types WHERE i4 > 100 ORDER BY i4 + id, id$$),
    ($$SELECT DISTINCT g, i4 FROM types WHERE id < 100 ORDER BY g, i4$$)
) v(q), LATERAL tt.check_ordered(q) r;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM types WHERE i4 > 100 ORDER BY i4, id LIMIT 3;
SELECT id FROM types WHERE i4 > 100 ORDER BY i4, id LIMIT 3;
-- the sort's normalized key prefix (64 bytes; a string's bytes and a zero byte): strings one a prefix of
-- another, bpchar blanks, NULLs first and last, descending, keys past the prefix (rows equal that far
-- tie, the full comparison decides), a string longer than the prefix
CREATE TABLE elide_long AS
SELECT g AS id, CASE WHEN g % 9 = 0 THEN NULL ELSE repeat('k', 10 + g % 9) || chr(97 + g % 5) END AS t,
       CASE WHEN g % 13 = 0 THEN 'kkkkkkkkkkkkkkkk' ELSE 'kkkkkkkkkkkkkkkk' || repeat('k', g % 3) END AS u,
       (g % 4)::int4 AS a, (CASE WHEN g % 11 = 0 THEN NULL ELSE (g % 6) * 1.5 END)::numeric(10,2) AS n,
       repeat('w', 60 + g % 9) || (g % 7) AS w, (repeat('c', g % 4) || ' ')::char(8) AS c
FROM generate_series(1, 3000) g;
ANALYZE elide_long;
SELECT pg_temp.elided(q), r.* FROM (VALUES
    ($$SELECT id, t, a FROM elide_long ORDER BY t, a DESC, id$$),
    ($$SELECT id, t, a FROM elide_long ORDER BY t DESC NULLS LAST, a, id DESC$$),
    ($$SELECT id, u, a FROM elide_long ORDER BY u DESC, a, id$$),
    ($$SELECT id, u, t FROM elide_long ORDER BY u, t NULLS FIRST, id$$),
    ($$SELECT t, a, count(*) AS c FROM elide_long GROUP BY t, a ORDER BY c DESC, t NULLS FIRST, a$$),
    ($$SELECT id, n, t FROM elide_long ORDER BY n DESC NULLS FIRST, t DESC, id$$),
    ($$SELECT a, n, t, u, id FROM elide_long ORDER BY a, n, t, u DESC, id$$),
    ($$SELECT id, w FROM elide_long ORDER BY w DESC, id$$),
    ($$SELECT id, c, w, a FROM elide_long ORDER BY c, w, a DESC, id$$)
) v(q), LATERAL tt.check_ordered(q) r;
DROP TABLE elide_long;
-- a subquery's ORDER BY where the query's result needs no order: the order an aggregate reads its input in
-- (string_agg, array_agg), the rows of a subquery or of UNION ALL branches, as PostgreSQL keeps them
CREATE TABLE elide_sub (id int, g int, tx text COLLATE "C");
INSERT INTO elide_sub SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE i % 7 END, 'x' || (i * 37 % 101) FROM generate_series(1, 200) i;
ANALYZE elide_sub;
CREATE FUNCTION pg_temp.same_text(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
    a text;
    b text;
BEGIN
    SET LOCAL themis.enabled = off;
    EXECUTE 'SELECT string_agg(x::text, '';'') FROM (' || q || ') x' INTO a;
    SET LOCAL themis.enabled = on;
    EXECUTE 'SELECT string_agg(x::text, '';'') FROM (' || q || ') x' INTO b;
    RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN 'same' ELSE 'DIFFERENT: off ' || a || ' on ' || b END;
END $f$;
EXPLAIN (COSTS OFF) SELECT string_agg(g::text, ',') FROM (SELECT g, count(*) AS c FROM elide_sub GROUP BY g ORDER BY g DESC) s;
SELECT pg_temp.same_text(q) FROM (VALUES
    ($$SELECT string_agg(g::text, ',') FROM (SELECT g, count(*) AS c FROM elide_sub GROUP BY g ORDER BY g DESC) s$$),
    ($$SELECT array_agg(g) FROM (SELECT g, count(*) AS c FROM elide_sub GROUP BY g ORDER BY g DESC NULLS LAST) s$$),
    ($$SELECT g, string_agg(tx, ',') FROM (SELECT g, tx FROM elide_sub WHERE id < 60 ORDER BY tx DESC, id) s GROUP BY g ORDER BY g$$),
    ($$SELECT * FROM (SELECT g, count(*) AS c FROM elide_sub GROUP BY g ORDER BY g DESC) x WHERE c > 20$$),
    ($$SELECT * FROM (SELECT g, count(*) AS c FROM elide_sub GROUP BY g ORDER BY g) a
       UNION ALL SELECT * FROM (SELECT g, count(*) AS c FROM elide_sub GROUP BY g ORDER BY g DESC) b$$)
) v(q);
DROP TABLE elide_sub;
RESET themis.device;
RESET themis.min_rows;
RESET themis.fallback;
-- a cursor declared without SCROLL or NO SCROLL scrolls where its plan can scan backwards
-- (PerformCursorOpen, SPI_cursor_open: ExecSupportsBackwardScan, no row marks).  A Themis node cannot:
-- where PostgreSQL's plan could and the rewritten one could not, PostgreSQL's plan stays (src/planner.c);
-- a rewritten plan with a Sort on top still scrolls (c2 above).  NO SCROLL cursors, statements and
-- plans that do not scan backwards anyway (an aggregation) are offloaded.
CREATE TABLE scroll_r (id int, k int);
INSERT INTO scroll_r SELECT i, i % 3 FROM generate_series(1, 60) i;
ANALYZE scroll_r;
CALL tt.themis_on();
EXPLAIN (COSTS OFF) DECLARE r_c CURSOR FOR SELECT id, k FROM scroll_r WHERE k = 1 AND id < 20;
EXPLAIN (COSTS OFF) DECLARE r_n NO SCROLL CURSOR FOR SELECT id, k FROM scroll_r WHERE k = 1 AND id < 20;
EXPLAIN (COSTS OFF) DECLARE r_l CURSOR FOR SELECT id, k FROM scroll_r WHERE k = 1 AND id < 20 LIMIT 4;
EXPLAIN (COSTS OFF) DECLARE r_a CURSOR FOR SELECT k, count(*) FROM scroll_r GROUP BY k;
EXPLAIN (COSTS OFF) SELECT id, k FROM scroll_r WHERE k = 1 AND id < 20;
SELECT tt.offloaded($$SELECT id, k FROM scroll_r WHERE k = 1 AND id < 20$$) AS statement_offloaded;
BEGIN;
DECLARE r_c CURSOR FOR SELECT id, k FROM scroll_r WHERE k = 1 AND id < 20;
FETCH 3 FROM r_c;
FETCH BACKWARD 2 FROM r_c;
FETCH LAST FROM r_c;
FETCH ABSOLUTE 2 FROM r_c;
DECLARE r_l CURSOR FOR SELECT id, k FROM scroll_r WHERE k = 1 AND id < 20 LIMIT 4;
FETCH ALL FROM r_l;
FETCH BACKWARD 2 FROM r_l;
COMMIT;
-- a NO SCROLL cursor is the Themis node's, forward only as in PostgreSQL
BEGIN;
DECLARE r_n NO SCROLL CURSOR FOR SELECT id, k FROM scroll_r WHERE k = 1 AND id < 20;
FETCH 3 FROM r_n;
FETCH BACKWARD 1 FROM r_n;
ROLLBACK;
-- PL/pgSQL: an explicit cursor without SCROLL
DO $d$
DECLARE
    c CURSOR FOR SELECT id, k FROM scroll_r WHERE k = 1 AND id < 20;
    r record;
BEGIN
    OPEN c;
    FETCH c INTO r;
    FETCH c INTO r;
    FETCH c INTO r;
    FETCH PRIOR FROM c INTO r;
    RAISE NOTICE 'prior: %', r;
    CLOSE c;
END $d$;
CALL tt.themis_reset();
DROP TABLE scroll_r;
-- a subquery's ORDER BY that PostgreSQL meets without a Sort (a Merge Join of two index scans): a view's
-- rows returned as they come, array_agg() over it, a UNION ALL branch keep that order (the node puts its
-- rows in it)
CREATE TABLE so_ix (id int PRIMARY KEY, t text);
INSERT INTO so_ix SELECT g, 's' || g FROM generate_series(1, 3000) g ORDER BY (g * 7919) % 3001;
ANALYZE so_ix;
CREATE VIEW so_ixv AS SELECT a.id, a.t FROM so_ix a JOIN so_ix b ON a.id = b.id ORDER BY a.id;
CALL tt.themis_on();
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT id FROM so_ixv;
SELECT id FROM so_ixv LIMIT 0;
SELECT (array_agg(id))[1:6] AS first_six FROM so_ixv;
SELECT bool_and(id = rn) AS in_order FROM (SELECT id, row_number() OVER () AS rn FROM so_ixv) x;
SELECT (SELECT array_agg(id) FROM (SELECT id FROM so_ixv) x)[1:6] AS sub_first_six;
SELECT (array_agg(id))[1:4] AS union_first FROM (SELECT * FROM (SELECT a.id FROM so_ix a JOIN so_ix b ON a.id = b.id ORDER BY a.id) x
                                                 UNION ALL SELECT -1) u;
-- (an SQL function in FROM, inlined by the planner: its ORDER BY too)
CREATE FUNCTION so_f() RETURNS SETOF so_ix LANGUAGE sql STABLE AS 'SELECT a.* FROM so_ix a JOIN so_ix b ON a.id = b.id ORDER BY a.id';
SELECT (array_agg(id))[1:6] AS fn_first_six FROM so_f();
SELECT (array_agg(id))[1:4] AS fn_union_first FROM (SELECT id FROM so_f() UNION ALL SELECT -1) u;
DROP FUNCTION so_f();
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_sort;
CALL tt.themis_reset();
DROP VIEW so_ixv;
DROP TABLE so_ix;
