--
-- 70_stay_on_pg: constructs that themis must leave to PostgreSQL (whole query or the part above /
-- below an eligible subtree), and values themis cannot represent (run with themis.fallback = on).
-- Results must be the same either way; the themis column shows what was offloaded.
--
-- volatile functions
SELECT * FROM tt.check($$SELECT id FROM types WHERE random() < 2$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 > 190 AND random() >= 0$$);
SELECT * FROM tt.check($$SELECT count(*) AS n FROM types WHERE random() >= 0 GROUP BY g$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jl.v + random() * 0 > 0$$);
CREATE FUNCTION tt.vol_id(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN RETURN $1; END $$;
SELECT * FROM tt.check($$SELECT id FROM types WHERE tt.vol_id(i4) = 5$$);
-- user-defined functions: PL/pgSQL (opaque), SQL (inlined into a plain expression)
CREATE FUNCTION tt.plus1(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN $1 + 1; END $$;
CREATE FUNCTION tt.sq(int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT $1 * $1 $$;
SELECT * FROM tt.check($$SELECT id FROM types WHERE tt.plus1(i4) = 6$$);
SELECT * FROM tt.check($$SELECT id, tt.plus1(i4) AS p FROM types WHERE i4 > 150$$);
SELECT * FROM tt.check($$SELECT g, sum(tt.plus1(i4)) AS s FROM types GROUP BY g$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE tt.sq(i4) > 30000$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON tt.plus1(jl.k1) = jr.k1$$);
-- pattern matching other than LIKE
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t ILIKE 'ab%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t ~ '^[a-z]+$'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t ~* 'ZEB'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t !~ 'a'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t SIMILAR TO '(ab|li)%'$$);
SELECT * FROM tt.check($$SELECT id, regexp_replace(t, '[aeiou]', '-', 'g') AS r FROM types WHERE i4 > 150$$);
-- window functions (the scan or aggregate below may be offloaded)
SELECT * FROM tt.check($$SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY id) AS rn FROM types$$);
SELECT * FROM tt.check($$SELECT id, g, sum(i4) OVER (PARTITION BY g) AS s, rank() OVER (ORDER BY i4, id) AS r FROM types WHERE i4 > 100$$);
SELECT * FROM tt.check($$SELECT g, count(*) AS n, rank() OVER (ORDER BY count(*) DESC, g) AS r FROM types GROUP BY g$$);
SELECT * FROM tt.check($$SELECT jl.id, jr.w, lag(jr.w) OVER (PARTITION BY jl.id ORDER BY jr.id) AS prev FROM jl JOIN jr ON jl.k1 = jr.k1$$);
-- other aggregates and grouping
SELECT * FROM tt.check($$SELECT g, string_agg(t, ',' ORDER BY id) AS s, array_agg(i4 ORDER BY id) AS a FROM types WHERE id < 200 GROUP BY g$$);
SELECT * FROM tt.check($$SELECT g, stddev(i4) AS sd, variance(n2) AS v, stddev_pop(i8) AS sp FROM types GROUP BY g$$);
SELECT * FROM tt.check($$SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY i4) AS p, percentile_cont(0.25) WITHIN GROUP (ORDER BY n2) AS q FROM types$$);
SELECT * FROM tt.check($$SELECT g, b, count(*) AS n, sum(i4) AS s FROM types GROUP BY ROLLUP (g, b)$$);
SELECT * FROM tt.check($$SELECT g, b, count(*) AS n FROM types GROUP BY GROUPING SETS ((g), (b), ())$$);
SELECT * FROM tt.check($$SELECT g, b, count(*) AS n, grouping(g, b) AS gr FROM types GROUP BY CUBE (g, b)$$);
SELECT * FROM tt.check($$SELECT DISTINCT ON (g) g, id, t FROM types ORDER BY g, id$$);
SELECT * FROM tt.check($$SELECT g, count(*) AS n, json_agg(id ORDER BY id) AS j FROM types WHERE i4 = 7 GROUP BY g$$);
SELECT * FROM tt.check($$SELECT g, bit_or(i4) AS o, bit_and(i2) AS a FROM types GROUP BY g$$);
-- set operations, CTEs, views
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 > 150 UNION ALL SELECT id FROM jl WHERE v > 900$$);
SELECT * FROM tt.check($$SELECT i4 FROM types WHERE i4 > 150 UNION SELECT k1 FROM jl$$);
SELECT * FROM tt.check($$SELECT k1 FROM jl INTERSECT SELECT k1 FROM jr$$);
SELECT * FROM tt.check($$SELECT k1 FROM jl EXCEPT ALL SELECT k1 FROM jr$$);
SELECT * FROM tt.check($$WITH x AS MATERIALIZED (SELECT g, count(*) AS n FROM types GROUP BY g)
                         SELECT a.g, a.n, b.n AS n2 FROM x a JOIN x b ON a.g = b.g + 1$$);
CREATE VIEW tt_v AS SELECT jl.id AS lid, jl.k1, jr.w FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jr.w > 0;
SELECT * FROM tt.check($$SELECT k1, count(*) AS n, sum(w) AS s FROM tt_v GROUP BY k1$$);
SELECT * FROM tt.check($$SELECT t.id, s.x FROM types t JOIN generate_series(1, 10) s(x) ON t.i4 = s.x$$);
SELECT * FROM tt.check($$SELECT t.id, v.name FROM types t JOIN (VALUES (1, 'one'), (2, 'two'), (5, 'five')) v(k, name) ON t.i4 = v.k$$);
-- system columns, row locks, sampling
SELECT * FROM tt.check($$SELECT ctid AS tid, id FROM jl WHERE k1 = 5$$);
SELECT * FROM tt.check($$SELECT id FROM jl WHERE ctid = '(0,1)'$$);
SELECT * FROM tt.check($$SELECT tableoid::regclass AS tab, count(*) AS n FROM jl GROUP BY 1$$);
SELECT * FROM tt.check($$SELECT * FROM jl WHERE k1 = 5 FOR UPDATE$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jl.k1 < 25 FOR SHARE OF jl$$);
SELECT * FROM tt.check($$SELECT count(*) AS n FROM lineitem TABLESAMPLE BERNOULLI (10) REPEATABLE (42) WHERE l_quantity > 10$$);
-- other column types in the same table: only the columns a query uses matter
CREATE TABLE misc (
    id  int4 PRIMARY KEY,
    x   text,
    n   numeric,                -- no typmod: scale varies per value
    j   jsonb,
    a   int4[],
    u   uuid,
    iv  interval,
    tz  timestamptz,
    by  bytea,
    tm  time
) WITH (autovacuum_enabled = off);
INSERT INTO misc
SELECT i, 'x' || (i % 7),
       CASE i % 4 WHEN 0 THEN i / 8.0 WHEN 1 THEN i WHEN 2 THEN i / 3.0 ELSE NULL END,
       jsonb_build_object('k', i % 5, 'v', 'val' || i), ARRAY[i % 3, i % 5],
       md5(i::text)::uuid, (i % 48) * interval '1 hour', timestamptz '2000-01-01 00:00:00+00' + i * interval '7 hours',
       decode(md5(i::text), 'hex'), time '00:00' + (i % 1440) * interval '1 minute'
FROM generate_series(1, 500) i;
ANALYZE misc;
SELECT * FROM tt.check($$SELECT id, x FROM misc WHERE id % 10 = 3 AND x <> 'x3'$$);
SELECT * FROM tt.check($$SELECT x, count(*) AS c FROM misc GROUP BY x$$);
SELECT * FROM tt.check($$SELECT id FROM misc WHERE j ->> 'k' = '3'$$);
SELECT * FROM tt.check($$SELECT id FROM misc WHERE a @> ARRAY[2]$$);
SELECT * FROM tt.check($$SELECT id, u FROM misc WHERE u < '20000000-0000-0000-0000-000000000000'$$);
SELECT * FROM tt.check($$SELECT iv, count(*) AS c FROM misc GROUP BY iv$$);
SELECT * FROM tt.check($$SELECT id, tz FROM misc WHERE tz > '2000-03-01 00:00:00+00'$$);
SELECT * FROM tt.check($$SELECT id FROM misc WHERE by > '\x80'::bytea AND tm < '06:00'$$);
SELECT * FROM tt.check($$SELECT m.id, jl.id AS lid FROM misc m JOIN jl ON jl.k1 = m.id WHERE m.j ? 'k'$$);
SELECT * FROM tt.check_fallback($$SELECT id, n FROM misc WHERE n > 100$$);
SELECT * FROM tt.check_fallback($$SELECT x, sum(n) AS s, avg(n) AS a, min(n) AS mi, max(n) AS ma FROM misc GROUP BY x$$);
-- numeric NaN, values beyond 128 bits, numeric Infinity from EXTRACT(... infinity)
CREATE TABLE numnan (id int4 PRIMARY KEY, n numeric(12,2), k int4) WITH (autovacuum_enabled = off);
INSERT INTO numnan SELECT i, CASE WHEN i % 50 = 0 THEN 'NaN' ELSE i / 4.0 END, i % 5 FROM generate_series(1, 300) i;
ANALYZE numnan;
SELECT * FROM tt.check_fallback($$SELECT id, n FROM numnan WHERE n > 70$$);
SELECT * FROM tt.check_fallback($$SELECT k, sum(n) AS s, max(n) AS m, count(*) AS c FROM numnan GROUP BY k$$);
SELECT * FROM tt.check_fallback($$SELECT k, sum(n) AS s FROM numnan WHERE id % 50 <> 0 GROUP BY k$$);
SELECT * FROM tt.check_fallback($$SELECT sum(n2 * 1000000000000000000000000000) AS s, sum(n4 * n4 * n4) AS c FROM edge$$);
SELECT * FROM tt.check_fallback($$SELECT sum(i8::numeric * i8) AS a FROM edge$$);                 -- > 2^127
SELECT * FROM tt.check_fallback($$SELECT sum(l_extendedprice * 100000000000000000000000) AS s FROM lineitem$$);
SELECT * FROM tt.check_fallback($$SELECT id, EXTRACT(year FROM d) AS y, EXTRACT(epoch FROM ts) AS e FROM edge$$);
-- non-C collations
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t COLLATE "und-x-icu" < 'b'$$);
SELECT * FROM tt.check($$SELECT min(t COLLATE "und-x-icu") AS mi, max(t COLLATE "und-x-icu") AS ma FROM types$$);
SELECT * FROM tt.check($$SELECT t COLLATE "und-x-icu" AS t, count(*) AS n FROM types GROUP BY 1$$);
SELECT * FROM tt.check_ordered($$SELECT t, id FROM types WHERE i4 > 150 ORDER BY t COLLATE "und-x-icu", id$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM types a JOIN types b ON a.t = b.t COLLATE "und-x-icu" WHERE a.id < 50$$);
-- partitioned and inherited tables
CREATE TABLE pt (k int4, v numeric(10,2), s text) PARTITION BY RANGE (k);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (MINVALUE) TO (0) WITH (autovacuum_enabled = off);
CREATE TABLE pt2 PARTITION OF pt FOR VALUES FROM (0) TO (100) WITH (autovacuum_enabled = off);
CREATE TABLE pt3 PARTITION OF pt DEFAULT WITH (autovacuum_enabled = off);
INSERT INTO pt SELECT i4, n2, t FROM types;
ANALYZE pt;
SELECT * FROM tt.check($$SELECT * FROM pt WHERE k BETWEEN -10 AND 10$$);
SELECT * FROM tt.check($$SELECT * FROM pt WHERE k > 150$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(v) AS s, min(s) AS mi FROM pt$$);
SELECT * FROM tt.check($$SELECT s, count(*) AS n, sum(v) AS sv FROM pt GROUP BY s$$);
SELECT * FROM tt.check($$SELECT tableoid::regclass AS part, count(*) AS n FROM pt GROUP BY 1$$);
SELECT * FROM tt.check($$SELECT pt.k, jl.id FROM pt JOIN jl ON jl.k1 = pt.k WHERE pt.v > 0$$);
SET enable_partitionwise_aggregate = on;
SELECT * FROM tt.check($$SELECT k, count(*) AS n, sum(v) AS s FROM pt GROUP BY k$$);
RESET enable_partitionwise_aggregate;
CREATE TABLE inh_parent (k int4, t text) WITH (autovacuum_enabled = off);
CREATE TABLE inh_child (extra int4) INHERITS (inh_parent) WITH (autovacuum_enabled = off);
INSERT INTO inh_parent SELECT i % 10, 'p' || i FROM generate_series(1, 100) i;
INSERT INTO inh_child SELECT i % 10, 'c' || i, i FROM generate_series(1, 100) i;
ANALYZE inh_parent;
ANALYZE inh_child;
SELECT * FROM tt.check($$SELECT k, count(*) AS n, min(t) AS m FROM inh_parent GROUP BY k$$);
SELECT * FROM tt.check($$SELECT k, count(*) AS n FROM ONLY inh_parent WHERE t LIKE 'p1%' GROUP BY k$$);
-- temporary and unlogged tables
CREATE TEMP TABLE tmp_types AS SELECT * FROM types;
CREATE UNLOGGED TABLE unl_types AS SELECT * FROM types;
ANALYZE tmp_types;
ANALYZE unl_types;
SELECT * FROM tt.check($$SELECT id, i4, t FROM tmp_types WHERE i4 > 150$$);
SELECT * FROM tt.check($$SELECT g, count(*) AS n, sum(n2) AS s FROM tmp_types GROUP BY g$$);
SELECT * FROM tt.check($$SELECT a.id AS aid, b.id AS bid FROM tmp_types a JOIN types b ON a.i4 = b.i4 WHERE a.id < 100$$);
SELECT * FROM tt.check($$SELECT g, count(*) AS n, sum(n2) AS s FROM unl_types WHERE t <> 'x' GROUP BY g$$);
-- row level security: policies must be applied (as a role that does not bypass them)
CREATE TABLE rls (id int4, owner_name text, v int4) WITH (autovacuum_enabled = off);
INSERT INTO rls SELECT i, CASE WHEN i % 3 = 0 THEN 'regress_themis_user' ELSE 'other' END, i * 10 FROM generate_series(1, 300) i;
ANALYZE rls;
ALTER TABLE rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY rls_own ON rls USING (owner_name = current_user);
CREATE ROLE regress_themis_user;
GRANT USAGE ON SCHEMA tt TO regress_themis_user;
GRANT USAGE ON SEQUENCE tt.seq TO regress_themis_user;
GRANT SELECT ON rls, jl TO regress_themis_user;
SET ROLE regress_themis_user;
SELECT * FROM tt.check($$SELECT id, v FROM rls WHERE v > 1000$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(v) AS s FROM rls$$);
SELECT * FROM tt.check($$SELECT jl.id AS lid, rls.id AS rid FROM jl JOIN rls ON rls.id = jl.k1$$);
SELECT count(*) AS visible FROM rls;
RESET ROLE;
DROP POLICY rls_own ON rls;
REVOKE ALL ON rls, jl FROM regress_themis_user;
REVOKE ALL ON SEQUENCE tt.seq FROM regress_themis_user;
REVOKE ALL ON SCHEMA tt FROM regress_themis_user;
DROP ROLE regress_themis_user;
