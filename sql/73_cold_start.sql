--
-- 73_cold_start: a query whose tables are not in the GPU column cache, where PostgreSQL's plan is
-- estimated much cheaper than reading them (themis.cold_plan_fraction), runs that plan; at its end a
-- background worker loads the columns it read (src/bgload.c).  Such a query makes a cold start while
-- they load, too; themis.cache_wait() waits for the loads, and then queries read the cache.  Without a
-- GPU nothing is cached and the CPU executor runs every query: each check below holds on both, and shows
-- the cold start and the cache only where a GPU is usable.
--
CALL tt.device_on();
CREATE TABLE cs_big (id int4 PRIMARY KEY, k int4, v numeric(12,2), t text) WITH (autovacuum_enabled = off);
INSERT INTO cs_big SELECT g, g % 97, CASE WHEN g % 11 = 0 THEN NULL ELSE g / 100.0 END, 'row ' || g
FROM generate_series(1, 200000) g;
ANALYZE cs_big;

CREATE FUNCTION tt.cs_gpu() RETURNS boolean LANGUAGE sql AS $f$ SELECT usable FROM themis.gpu_status() $f$;

-- the Themis node of EXPLAIN ANALYZE of q (themis on): where it ran, whether it was a cold start, its
-- GPU sources
CREATE FUNCTION tt.cs_run(q text) RETURNS TABLE(device text, cold boolean, sources text)
LANGUAGE plpgsql AS $f$
DECLARE
    j jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO j;
    SELECT n->>'Device', n ? 'Cold Start', n->>'GPU Sources' INTO device, cold, sources
    FROM jsonb_path_query(j, 'strict $.**') n WHERE n->>'Custom Plan Provider' = 'Themis' LIMIT 1;
    RETURN NEXT;
END
$f$;

CALL tt.themis_on();
-- offloaded however cheap PostgreSQL's plan is
SET themis.startup_cost = 0;
SET themis.tuple_cost = 0;
SET themis.cold_plan_fraction = 0.2;
SELECT tt.offloaded($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$) AS offloaded;
SELECT line FROM tt.explain_lines($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$,
                                  ARRAY['%Index%', '%Custom Scan%']) line;

-- cold, an index plan: PostgreSQL's plan runs (GPU: a cold start, no Fallback), the same rows
SELECT themis.cache_drop() >= 0 AS dropped;
SELECT cold = tt.cs_gpu() AS cold_start_where_gpu,
       device = CASE WHEN tt.cs_gpu() THEN 'none (cold start)' ELSE 'cpu' END AS device
FROM tt.cs_run($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$);
-- once the background load is over, the query reads the cache
SELECT themis.cache_wait() IS NOT NULL AS waited;
SELECT device = CASE WHEN tt.cs_gpu() THEN 'gpu' ELSE 'cpu' END AS device, NOT cold AS not_cold,
       coalesce(sources LIKE '1 cached,%', NOT tt.cs_gpu()) AS cached
FROM tt.cs_run($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$);
-- it loaded the columns that query read (id, v), not the others
SELECT count(*) FILTER (WHERE c.column_name IN ('id', 'v')) = CASE WHEN tt.cs_gpu() THEN 2 ELSE 0 END AS read_columns,
       count(*) FILTER (WHERE c.column_name NOT IN ('id', 'v')) = 0 AS no_other_columns
FROM themis.cache c WHERE c.relation = 'cs_big'::regclass;
SELECT * FROM tt.check($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$);

-- cold starts give PostgreSQL's rows, here through tt.check's first run with themis on
SELECT themis.cache_drop() >= 0 AS dropped;
SELECT * FROM tt.check($$SELECT k, count(*), sum(v), min(t) FROM cs_big WHERE id < 500 GROUP BY k$$);
SELECT * FROM tt.check($$SELECT k, count(*), sum(v), min(t) FROM cs_big WHERE id < 500 GROUP BY k$$);

-- themis.cache_drop() stops a queued or running background load, or drops what it stored: the next
-- query finds no cached table, and makes a cold start again
SELECT themis.cache_drop() >= 0 AS dropped;
SELECT cold = tt.cs_gpu() AS cold_start_where_gpu
FROM tt.cs_run($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$);
SELECT themis.cache_drop('cs_big') >= 0 AS dropped;
SELECT cold = tt.cs_gpu() AS cold_start_again
FROM tt.cs_run($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$);
SELECT themis.cache_wait() IS NOT NULL AS waited;
SELECT coalesce(sources LIKE '1 cached,%', NOT tt.cs_gpu()) AS cached
FROM tt.cs_run($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$);

-- a plan that reads the whole table is no cheaper than a load: the query loads it itself
SELECT themis.cache_drop() >= 0 AS dropped;
SELECT NOT cold AS not_cold, coalesce(sources LIKE '0 cached, 1 loaded%', NOT tt.cs_gpu()) AS loaded_itself
FROM tt.cs_run($$SELECT k, sum(v) FROM cs_big GROUP BY k$$);

-- themis.cold_plan_fraction = 0: never a cold start
SELECT themis.cache_drop() >= 0 AS dropped;
SET themis.cold_plan_fraction = 0;
SELECT NOT cold AS not_cold, coalesce(sources LIKE '0 cached, 1 loaded%', NOT tt.cs_gpu()) AS loaded_itself
FROM tt.cs_run($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$);
SET themis.cold_plan_fraction = 0.2;

-- a role that cannot log in cannot have a background worker load for it (PostgreSQL 15 refuses its
-- connection): it loads the table itself
SELECT themis.cache_drop() >= 0 AS dropped;
CREATE ROLE cs_nologin NOLOGIN;
GRANT SELECT ON cs_big TO cs_nologin;
GRANT USAGE ON SCHEMA tt TO cs_nologin;
SET ROLE cs_nologin;
SELECT NOT cold AS not_cold, coalesce(sources LIKE '0 cached, 1 loaded%', NOT tt.cs_gpu()) AS loaded_itself
FROM tt.cs_run($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$);
RESET ROLE;

-- a role that reads the table only through a view (the view owner's privilege) could not have it loaded
-- as itself: it loads the table itself
SELECT themis.cache_drop() >= 0 AS dropped;
CREATE VIEW cs_view AS SELECT * FROM cs_big;
CREATE ROLE cs_viewer LOGIN;
GRANT SELECT ON cs_view TO cs_viewer;
GRANT USAGE ON SCHEMA tt TO cs_viewer;
SET ROLE cs_viewer;
SELECT NOT cold AS not_cold, coalesce(sources LIKE '0 cached, 1 loaded%', NOT tt.cs_gpu()) AS loaded_itself
FROM tt.cs_run($$SELECT count(*), sum(v) FROM cs_view WHERE id BETWEEN 1000 AND 1100$$);
RESET ROLE;

-- with themis.fallback off a cold start is no error either (it is not a fallback), and inside a
-- transaction a query waits for the load queued by the first (whose end queued it)
SELECT themis.cache_drop() >= 0 AS dropped;
BEGIN;
SELECT cold = tt.cs_gpu() AS cold_start_where_gpu
FROM tt.cs_run($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$);
SELECT themis.cache_wait() IS NOT NULL AS waited;
SELECT coalesce(sources LIKE '1 cached,%', NOT tt.cs_gpu()) AS cached
FROM tt.cs_run($$SELECT count(*), sum(v) FROM cs_big WHERE id BETWEEN 1000 AND 1100$$);
COMMIT;

SELECT themis.cache_drop() >= 0 AS dropped;
REVOKE ALL ON cs_big FROM cs_nologin;
REVOKE USAGE ON SCHEMA tt FROM cs_nologin;
DROP ROLE cs_nologin;
DROP VIEW cs_view;
REVOKE USAGE ON SCHEMA tt FROM cs_viewer;
DROP ROLE cs_viewer;
DROP TABLE cs_big;
DROP FUNCTION tt.cs_run(text);
DROP FUNCTION tt.cs_gpu();
CALL tt.themis_reset();
RESET themis.startup_cost;
RESET themis.tuple_cost;
RESET themis.cold_plan_fraction;
