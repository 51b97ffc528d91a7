--
-- 28_swap_build: themis.gpu_swap_build_rows.  A hash table whose build comes out far over the planner's
-- estimate is held until the pipeline that probes it starts; where that pipeline's rows up to the probe
-- are at most half as many, they build the table instead and the held rows probe it (cuda/tm_gpu_exec.cu,
-- run_swapped).  With themis.gpu_swap_fuse (count, here: sample counts only sources of over 8 M rows),
-- where the build's rows can be counted before they are written (its payload plain columns), its pipeline
-- is put off instead: sb_o's rows build the table, and sb_l's pipeline, run later, probes it as its rows
-- are made (run_fused).  Here sb_l's filter x = y AND y = z keeps every row where PostgreSQL estimates
-- one row of 40,000, so sb_l is the build side (hash joins only), probed by sb_o's few rows.
-- Every query is compared with themis off.  On the GPU, EXPLAIN ANALYZE must say which side was built
-- (the setting at 0: every candidate is tried, whatever its rows): "not built, swapped" where sb_l's
-- pipeline was put off, "swapped" where its rows were held; the CPU executor builds as planned and says
-- nothing.
--
SET themis.gpu_swap_build_rows = -2;
SET themis.gpu_swap_build_rows = 0;
SHOW themis.gpu_swap_build_rows;
SET themis.gpu_swap_fuse = every;
SHOW themis.gpu_swap_fuse;
SET themis.gpu_swap_fuse = count;

CREATE TABLE sb_l (id int, k int, x int, y int, z int, v numeric(12,2), t text);
INSERT INTO sb_l SELECT i, CASE WHEN i % 101 = 0 THEN NULL ELSE i % 2000 END, i % 500, i % 500, i % 500,
                        (i % 97) * 1.25, 't' || (i % 13)
                 FROM generate_series(1, 40000) i;
CREATE TABLE sb_o (k int, d int, c int, name text);
INSERT INTO sb_o SELECT CASE WHEN i % 37 = 0 THEN NULL ELSE i END, i % 10, i % 50, 'o' || i
                 FROM generate_series(0, 1999) i;
CREATE TABLE sb_c (c int, region text);
INSERT INTO sb_c SELECT i, CASE WHEN i % 5 = 0 THEN 'east' ELSE 'west' END FROM generate_series(0, 49) i;
ANALYZE sb_l, sb_o, sb_c;

CALL tt.device_on();
SET themis.min_rows = 0;
SET themis.fallback = off;
SET enable_nestloop = off;
SET enable_mergejoin = off;

-- the build sides EXPLAIN ANALYZE reports (themis on), by pipeline: on the GPU, `expected` ("not built,
-- swapped", "swapped", "as planned" or "none"); on the CPU, none
CREATE FUNCTION sb_side(q text, expected text) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
    saved text[] := tt._save();
    gpu boolean := coalesce(nullif(current_setting('tt.device', true), ''), 'cpu') = 'gpu';
    want text := CASE WHEN gpu THEN expected ELSE 'none' END;
    j json;
    side text;
BEGIN
    PERFORM tt._themis(true);
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO j;
    PERFORM tt._restore(saved);
    SELECT coalesce(string_agg(s #>> '{}', ', '), 'none') INTO side
      FROM jsonb_path_query(j::jsonb, 'strict $.**."Build Side"') s;
    IF side = want THEN
        RETURN 'as expected';
    END IF;
    RETURN format('build side %s on %s', side, CASE WHEN gpu THEN 'the GPU' ELSE 'the CPU' END);
END
$f$;

-- the plan: sb_l (estimated 1 row, 39,604 with a key) is built, sb_o (1,800) probes it
SELECT * FROM tt.explain_lines($$SELECT o.d, count(*) FROM sb_l l JOIN sb_o o ON l.k = o.k
                                 WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$,
                               ARRAY['%Pipeline%', '%Hash Build%', '%Hash Probe%']);

-- into an aggregate: sb_o's rows build, sb_l's probe
SELECT * FROM tt.check($$SELECT o.d, count(*) AS n, sum(l.v) AS sv, min(l.t) AS mt, max(o.name) AS mo
                         FROM sb_l l JOIN sb_o o ON l.k = o.k WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$);
SELECT sb_side($$SELECT o.d, count(*), sum(l.v), min(l.t), max(o.name)
                 FROM sb_l l JOIN sb_o o ON l.k = o.k WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$,
               'not built, swapped');
-- the same with a payload column that sb_l's build computes (l.t LIKE 't1%': themis.build_exprs): its rows
-- are held, not put off
SELECT * FROM tt.check($$SELECT o.d, count(*) AS n, sum(CASE WHEN l.t LIKE 't1%' THEN l.v ELSE 0 END) AS sv
                         FROM sb_l l JOIN sb_o o ON l.k = o.k WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$);
SELECT * FROM tt.explain_lines($$SELECT o.d, sum(CASE WHEN l.t LIKE 't1%' THEN l.v ELSE 0 END) FROM sb_l l
                                 JOIN sb_o o ON l.k = o.k WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$,
                               ARRAY['%Hash Build%']);
SELECT sb_side($$SELECT o.d, sum(CASE WHEN l.t LIKE 't1%' THEN l.v ELSE 0 END) FROM sb_l l JOIN sb_o o ON l.k = o.k
                 WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$, 'swapped');
-- themis.gpu_swap_fuse off (the default): the first query's rows held, not put off; sample: sb_l's 40,000
-- rows are too few to be sampled, held too
SET themis.gpu_swap_fuse = off;
SELECT * FROM tt.check($$SELECT o.d, count(*) AS n, sum(l.v) AS sv, min(l.t) AS mt, max(o.name) AS mo
                         FROM sb_l l JOIN sb_o o ON l.k = o.k WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$);
SELECT sb_side($$SELECT o.d, count(*), sum(l.v), min(l.t), max(o.name)
                 FROM sb_l l JOIN sb_o o ON l.k = o.k WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$, 'swapped');
SET themis.gpu_swap_fuse = sample;
SELECT * FROM tt.check($$SELECT o.d, count(*) AS n, sum(l.v) AS sv, min(l.t) AS mt, max(o.name) AS mo
                         FROM sb_l l JOIN sb_o o ON l.k = o.k WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$);
SELECT sb_side($$SELECT o.d, count(*), sum(l.v), min(l.t), max(o.name)
                 FROM sb_l l JOIN sb_o o ON l.k = o.k WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$, 'swapped');
SET themis.gpu_swap_fuse = count;
-- emitted rows, a residual condition over both sides
SELECT * FROM tt.check($$SELECT l.id, l.t, o.name, o.c FROM sb_l l JOIN sb_o o ON l.k = o.k AND l.id % 7 <> o.c % 7
                         WHERE l.x = l.y AND l.y = l.z AND o.d <> 1$$);
SELECT sb_side($$SELECT l.id, l.t, o.name, o.c FROM sb_l l JOIN sb_o o ON l.k = o.k AND l.id % 7 <> o.c % 7
                 WHERE l.x = l.y AND l.y = l.z AND o.d <> 1$$, 'not built, swapped');
-- a third table after the probe (its key is sb_o's column, carried as the swapped table's payload), inner
-- and left
SELECT * FROM tt.check($$SELECT c.region, count(*) AS n, sum(l.v) AS sv FROM sb_l l JOIN sb_o o ON l.k = o.k
                         JOIN sb_c c ON o.c = c.c WHERE l.x = l.y AND l.y = l.z AND o.d <> 3 GROUP BY c.region$$);
SELECT * FROM tt.check($$SELECT l.id, o.name, c.region FROM sb_l l JOIN sb_o o ON l.k = o.k
                         LEFT JOIN sb_c c ON o.c = c.c AND c.region = 'east' AND l.id % 3 = 0
                         WHERE l.x = l.y AND l.y = l.z AND o.d = 4$$);
-- no row of sb_o passes: an empty build, nothing out
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l.v) AS sv FROM sb_l l JOIN sb_o o ON l.k = o.k
                         WHERE l.x = l.y AND l.y = l.z AND o.d > 100$$);
-- few held rows (2,971 with a key) against sb_o's 2,000: built as planned
SELECT * FROM tt.check($$SELECT o.d, count(*) AS n, sum(l.v) AS sv FROM sb_l l JOIN sb_o o ON l.k = o.k
                         WHERE l.x = l.y AND l.y = l.z AND l.id <= 3000 GROUP BY o.d$$);
SELECT sb_side($$SELECT o.d, count(*), sum(l.v) FROM sb_l l JOIN sb_o o ON l.k = o.k
                 WHERE l.x = l.y AND l.y = l.z AND l.id <= 3000 GROUP BY o.d$$, 'as planned');
-- errors: after the probe (sb_o's d = 1 divides by zero on every matched row) and in sb_o's own filter
-- (d = 9), raised as PostgreSQL raises them, or not where PostgreSQL's plan meets no such row
SELECT * FROM tt.check_error($$SELECT count(*) AS n, sum(100 / (o.d - 1)) AS q FROM sb_l l JOIN sb_o o ON l.k = o.k
                               WHERE l.x = l.y AND l.y = l.z AND o.d <> 7$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n FROM sb_l l JOIN sb_o o ON l.k = o.k
                               WHERE l.x = l.y AND l.y = l.z AND 10 / (o.d - 9) >= 0 AND o.d > 5$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n, sum(100 / (o.d - 1)) AS q FROM sb_l l JOIN sb_o o ON l.k = o.k
                               WHERE l.x = l.y AND l.y = l.z AND o.d > 1$$);
-- ... and in sb_l's own filter too (integer out of range from id 2,148 on): sb_l's build, which as planned
-- runs first, raises its error (here the count of its rows does, before anything is put off; an error
-- beyond the rows counted, raised after the put-off build's probing pipeline, is test_swap_fuse_errors')
SELECT * FROM tt.check_error($$SELECT count(*) AS n, sum(100 / (o.d - 1)) AS q FROM sb_l l JOIN sb_o o ON l.k = o.k
                               WHERE l.x = l.y AND l.y = l.z AND l.id * 1000000 > 0 AND o.d <> 7$$);
-- the setting at -1: nothing held; at the default (1,000,000 rows): these builds are too small
SET themis.gpu_swap_build_rows = -1;
SELECT * FROM tt.check($$SELECT o.d, count(*) AS n, sum(l.v) AS sv FROM sb_l l JOIN sb_o o ON l.k = o.k
                         WHERE l.x = l.y AND l.y = l.z AND o.d <> 7 GROUP BY o.d$$);
SELECT sb_side($$SELECT o.d, count(*) FROM sb_l l JOIN sb_o o ON l.k = o.k WHERE l.x = l.y AND l.y = l.z AND o.d <> 7
                 GROUP BY o.d$$, 'none');
RESET themis.gpu_swap_build_rows;
SELECT sb_side($$SELECT o.d, count(*) FROM sb_l l JOIN sb_o o ON l.k = o.k WHERE l.x = l.y AND l.y = l.z AND o.d <> 7
                 GROUP BY o.d$$, 'none');

RESET themis.gpu_swap_fuse;
RESET themis.min_rows;
RESET themis.fallback;
RESET enable_nestloop;
RESET enable_mergejoin;
DROP FUNCTION sb_side(text, text);
DROP TABLE sb_l, sb_o, sb_c;
