--
-- 72_colbuild_parallel: the GPU column loader reading a table with parallel workers (src/colbuild_parallel.c)
-- gives exactly the columns of the serial read, rows in the same order.  Without a GPU no query loads
-- columns, so themis.debug_colset_checksum(rel, parallel) is used: it reads every column themis can
-- represent, as the loader does, and returns the rows, the md5 of the columns in the GPU layout and the
-- parallel workers launched.  Tables of 64 MB and more are read in parallel; worker counts depend on the
-- instance, so only whether workers ran is shown.
--
CALL tt.device_on();
SET max_parallel_workers_per_gather = 2;

-- serial and parallel read of rel, and the serial read through PostgreSQL's table scan
-- (themis.load_page_reader off): rows, whether workers ran, whether the columns are the same
CREATE FUNCTION tt.cb_compare(rel regclass)
RETURNS TABLE(rows int8, parallel boolean, same boolean)
LANGUAGE plpgsql AS $f$
DECLARE
    s record;
    p record;
    o record;
BEGIN
    SELECT * INTO s FROM themis.debug_colset_checksum(rel, false);
    SELECT * INTO p FROM themis.debug_colset_checksum(rel, true);
    PERFORM set_config('themis.load_page_reader', 'off', true);
    SELECT * INTO o FROM themis.debug_colset_checksum(rel, false);
    PERFORM set_config('themis.load_page_reader', 'on', true);
    rows := p.rows;
    parallel := p.workers > 0;
    same := s.rows = p.rows AND s.checksum = p.checksum AND s.rows = o.rows AND s.checksum = o.checksum;
    RETURN NEXT;
END
$f$;

-- about 70 MB: NULLs, text (a few values TOASTed), char(n), numeric, dates, timestamps, floats; a column
-- themis cannot represent (numeric without typmod: not read) and a dropped column
CREATE TABLE cb_big (id int4, k int8, n numeric(12,2), d date, ts timestamp, dropme int4, t text,
                     c char(6), b bool, f float8, s int2, r real, v varchar(20), u numeric)
    WITH (autovacuum_enabled = off);
INSERT INTO cb_big
SELECT g, g::int8 * 7919, CASE WHEN g % 11 = 0 THEN NULL ELSE (g % 100000) / 100.0 - 300 END,
       CASE WHEN g % 17 = 0 THEN NULL ELSE date '1995-01-01' + g % 9000 END,
       timestamp '2020-01-01' + g * interval '1 second', g,
       CASE WHEN g % 13 = 0 THEN NULL
            WHEN g % 100003 = 0 THEN (SELECT string_agg(md5(i::text || g), '') FROM generate_series(1, 200) i)
            ELSE 'row ' || g || repeat('x', 25 + g % 37) END,
       CASE WHEN g % 5 = 0 THEN NULL ELSE chr(65 + g % 26) END, g % 3 = 0,
       CASE WHEN g % 19 = 0 THEN NULL ELSE g * 0.25 END, (g % 30000)::int2, g / 7.0, 'v' || (g % 1000), g
FROM generate_series(1, 420000) g;
ALTER TABLE cb_big DROP COLUMN dropme;
SELECT pg_relation_size('cb_big') > 64 * 1024 * 1024 AS over_64mb;
CREATE TEMP TABLE cb_temp AS SELECT * FROM cb_big;

SELECT * FROM tt.cb_compare('cb_big');
SELECT rows = (SELECT count(*) FROM cb_big) AS all_rows FROM themis.debug_colset_checksum('cb_big', true);

-- dead tuples: committed deletes and updates (not vacuumed), an aborted insert
DELETE FROM cb_big WHERE id % 7 = 0;
UPDATE cb_big SET n = n + 1 WHERE id % 10 = 3;
BEGIN;
INSERT INTO cb_big (id, t) SELECT g, 'aborted' FROM generate_series(1, 20000) g;
ROLLBACK;
SELECT * FROM tt.cb_compare('cb_big');

-- the transaction's own uncommitted changes (combo command ids: rows inserted and then updated),
-- in a subtransaction too; the workers see exactly what the leader sees
BEGIN;
INSERT INTO cb_big (id, k, t) SELECT g, -g, 'new ' || g FROM generate_series(1, 5000) g;
UPDATE cb_big SET k = k - 1 WHERE k < 0 AND id % 2 = 0;
DELETE FROM cb_big WHERE id % 9 = 1;
SELECT * FROM tt.cb_compare('cb_big');
SAVEPOINT sp;
UPDATE cb_big SET t = 'sub' WHERE id % 100 = 5;
SELECT * FROM tt.cb_compare('cb_big');
ROLLBACK TO SAVEPOINT sp;
ROLLBACK;

-- a value themis cannot represent (numeric NaN) in the middle of the table: the same error either way;
-- then the transaction goes on (not in parallel mode: it can write)
BEGIN;
UPDATE cb_big SET n = 'NaN' WHERE id = 300001;
SAVEPOINT a;
SELECT rows FROM themis.debug_colset_checksum('cb_big', false);
ROLLBACK TO SAVEPOINT a;
SELECT rows FROM themis.debug_colset_checksum('cb_big', true);
ROLLBACK TO SAVEPOINT a;
UPDATE cb_big SET n = 1 WHERE id = 300001;
SELECT rows > 0 AS some_rows, workers > 0 AS parallel FROM themis.debug_colset_checksum('cb_big', true);
ROLLBACK;

-- an ERROR while the workers run (statement timeout): the transaction goes on
BEGIN;
SAVEPOINT a;
SET LOCAL statement_timeout = '20ms';
SELECT rows FROM themis.debug_colset_checksum('cb_big', true);
ROLLBACK TO SAVEPOINT a;
UPDATE cb_big SET n = 2 WHERE id = 300001;
SELECT rows > 0 AS some_rows, workers > 0 AS parallel FROM themis.debug_colset_checksum('cb_big', true);
ROLLBACK;

-- repeatable read and serializable snapshots
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM tt.cb_compare('cb_big');
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM tt.cb_compare('cb_big');
COMMIT;

-- inside a statement that runs parallel workers of its own (a Gather): nested parallel mode
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT (SELECT count(*) FROM cb_big WHERE id % 2 = 0) > 0 AS counted,
       (themis.debug_colset_checksum('cb_big', true)).checksum =
       (themis.debug_colset_checksum('cb_big', false)).checksum AS same;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- the number of workers: the table's parallel_workers, max_parallel_workers_per_gather = 0,
-- themis.load_workers (0: serial; n: at most n, though a Gather would get only
-- max_parallel_workers_per_gather = 1)
ALTER TABLE cb_big SET (parallel_workers = 1);
SELECT rows > 0 AS some_rows, workers FROM themis.debug_colset_checksum('cb_big', true);
ALTER TABLE cb_big RESET (parallel_workers);
SET max_parallel_workers_per_gather = 0;
SELECT rows > 0 AS some_rows, workers FROM themis.debug_colset_checksum('cb_big', true);
SET max_parallel_workers_per_gather = 1;
SET themis.load_workers = 0;
SELECT rows > 0 AS some_rows, workers FROM themis.debug_colset_checksum('cb_big', true);
SET themis.load_workers = 2;
SELECT rows > 0 AS some_rows, workers FROM themis.debug_colset_checksum('cb_big', true);
RESET themis.load_workers;
SET max_parallel_workers_per_gather = 2;

-- rows of every shape the page reader deforms, against the table scan's: NULLs before and after
-- variable-width values, short and long (compressed inline, TOASTed) text, columns added with defaults
-- after rows were written (those rows lack them), a dropped column in the middle, rows updated in place
-- (HOT: fillfactor 50) and deleted, all-visible pages (VACUUM) mixed with pages changed after it
CREATE TABLE cb_shapes (a int2, t text, b int8, n numeric(10,2), c char(3), d date, g bool, v varchar(30))
    WITH (autovacuum_enabled = off, fillfactor = 50);
INSERT INTO cb_shapes
SELECT g % 300, CASE g % 7 WHEN 0 THEN NULL WHEN 1 THEN repeat('ab', 3000) WHEN 2 THEN
           (SELECT string_agg(md5((i * g)::text), '') FROM generate_series(1, 80) i) ELSE 'r' || g END,
       CASE WHEN g % 5 = 0 THEN NULL ELSE g::int8 * 1000003 END, CASE WHEN g % 3 = 0 THEN NULL ELSE g / 8.0 END,
       CASE WHEN g % 11 = 0 THEN NULL ELSE chr(97 + g % 26) END, date '2000-01-01' + g,
       CASE WHEN g % 4 = 0 THEN NULL ELSE g % 2 = 0 END, 'v' || g
FROM generate_series(1, 3000) g;
ALTER TABLE cb_shapes ADD COLUMN e int4 DEFAULT 7, ADD COLUMN f text DEFAULT 'dflt', ADD COLUMN h int8;
INSERT INTO cb_shapes (a, t, e, f, h) SELECT g, 'late ' || g, CASE WHEN g % 2 = 0 THEN NULL ELSE g END,
       'f' || g, g FROM generate_series(1, 500) g;
ALTER TABLE cb_shapes DROP COLUMN n;
VACUUM cb_shapes;
CREATE TEMP TABLE cb_before AS SELECT v, ctid AS old FROM cb_shapes WHERE a = 17 AND v IS NOT NULL;
UPDATE cb_shapes SET b = -b WHERE a = 17;
DELETE FROM cb_shapes WHERE a = 18;
SELECT * FROM tt.cb_compare('cb_shapes');
SELECT count(*) FILTER (WHERE e = 7) AS with_default, count(*) FILTER (WHERE f = 'dflt') AS f_default
FROM cb_shapes;
-- the updated rows stayed on their pages (no index: updated in place, HOT)
SELECT count(*) AS updated, bool_and((s.ctid::text::point)[0] = (b.old::text::point)[0]) AS same_pages
FROM cb_shapes s JOIN cb_before b USING (v);

-- NULLs among the fixed-width columns before a text column (whose offset is then walked, not cached),
-- and a text column after a one-byte "char" (an odd offset), then a fixed-width one after the text
CREATE TABLE cb_nulls (a int4, b int8, c int2, k "char", t text, d int8) WITH (autovacuum_enabled = off);
INSERT INTO cb_nulls
SELECT CASE WHEN g % 3 = 0 THEN NULL ELSE g END, CASE WHEN g % 5 = 0 THEN NULL ELSE -g END,
       CASE WHEN g % 7 = 0 THEN NULL ELSE (g % 1000)::int2 END, CASE WHEN g % 2 = 0 THEN 'x' END,
       CASE WHEN g % 11 = 0 THEN NULL ELSE 't' || g END, g::int8 * 3
FROM generate_series(1, 5000) g;
SELECT * FROM tt.cb_compare('cb_nulls');

-- read serially: a small table, an empty one, a big table emptied by deletes (read in parallel,
-- no rows), a temporary table (workers cannot read it)
CREATE TABLE cb_small AS SELECT g AS id, 'x' || g AS t FROM generate_series(1, 1000) g;
SELECT * FROM tt.cb_compare('cb_small');
CREATE TABLE cb_empty (id int, t text, n numeric(10,2));
SELECT * FROM tt.cb_compare('cb_empty');
BEGIN;
DELETE FROM cb_big;
SELECT * FROM tt.cb_compare('cb_big');
ROLLBACK;

-- a query over cb_big and cb_small, cold: on a GPU both are loaded into the column cache in one request,
-- cb_big read in parallel (its memfd carries the request) and cb_small appended to it; the same rows as
-- PostgreSQL's (without a GPU, the CPU executor's)
SELECT themis.cache_drop() >= 0 AS dropped;
SET themis.min_rows = 0;
SET themis.enabled = off;
SELECT length(s.t) AS len, count(*), sum(b.k), count(b.n), sum(b.n), min(b.t), max(b.v)
FROM cb_big b JOIN cb_small s ON b.id = s.id * 397 GROUP BY 1 ORDER BY 1;
SET themis.enabled = on;
EXPLAIN (COSTS OFF) SELECT length(s.t) AS len, count(*), sum(b.k), count(b.n), sum(b.n), min(b.t), max(b.v)
FROM cb_big b JOIN cb_small s ON b.id = s.id * 397 GROUP BY 1 ORDER BY 1;
SELECT length(s.t) AS len, count(*), sum(b.k), count(b.n), sum(b.n), min(b.t), max(b.v)
FROM cb_big b JOIN cb_small s ON b.id = s.id * 397 GROUP BY 1 ORDER BY 1;
SELECT themis.cache_drop() >= 0 AS dropped;
-- two tables read in parallel in one cold request: on a GPU cb_big's memfd carries the request with
-- cb_small appended, cb_big2's goes as a descriptor of its own; then the same with every set in one
-- descriptor (themis.debug_fault = request_one_fd: cb_big2 copied into the carrier, as past the
-- protocol's limit of descriptors)
CREATE TABLE cb_big2 AS SELECT * FROM cb_temp;
SELECT pg_relation_size('cb_big2') > 64 * 1024 * 1024 AS over_64mb;
SET themis.enabled = off;
SELECT length(s.t) AS len, count(*), sum(b.k), sum(b.n), max(b.v), sum(c.k), count(c.t), max(c.t), sum(c.n)
FROM cb_big b JOIN cb_small s ON b.id = s.id * 397 JOIN cb_big2 c ON c.id = b.id + 1 GROUP BY 1 ORDER BY 1;
SET themis.enabled = on;
SET themis.fallback = off;
EXPLAIN (COSTS OFF)
SELECT length(s.t) AS len, count(*), sum(b.k), sum(b.n), max(b.v), sum(c.k), count(c.t), max(c.t), sum(c.n)
FROM cb_big b JOIN cb_small s ON b.id = s.id * 397 JOIN cb_big2 c ON c.id = b.id + 1 GROUP BY 1 ORDER BY 1;
SELECT themis.cache_drop() >= 0 AS dropped;
SELECT length(s.t) AS len, count(*), sum(b.k), sum(b.n), max(b.v), sum(c.k), count(c.t), max(c.t), sum(c.n)
FROM cb_big b JOIN cb_small s ON b.id = s.id * 397 JOIN cb_big2 c ON c.id = b.id + 1 GROUP BY 1 ORDER BY 1;
SELECT themis.cache_drop() >= 0 AS dropped;
SET themis.debug_fault = request_one_fd;
SELECT length(s.t) AS len, count(*), sum(b.k), sum(b.n), max(b.v), sum(c.k), count(c.t), max(c.t), sum(c.n)
FROM cb_big b JOIN cb_small s ON b.id = s.id * 397 JOIN cb_big2 c ON c.id = b.id + 1 GROUP BY 1 ORDER BY 1;
RESET themis.debug_fault;
RESET themis.fallback;
SELECT themis.cache_drop() >= 0 AS dropped;
DROP TABLE cb_big2;
RESET themis.min_rows;
-- (cb_temp: the copy made above, before the deletes)
SELECT pg_relation_size('cb_temp') > 64 * 1024 * 1024 AS over_64mb;
SELECT rows > 0 AS some_rows, workers FROM themis.debug_colset_checksum('cb_temp', true);
SELECT * FROM tt.cb_compare('cb_temp');

-- the function is for superusers (EXECUTE revoked from PUBLIC)
CREATE ROLE regress_themis_cb;
SET ROLE regress_themis_cb;
SELECT rows FROM themis.debug_colset_checksum('cb_small', true);
RESET ROLE;
DROP ROLE regress_themis_cb;

DROP TABLE cb_big, cb_small, cb_empty, cb_temp, cb_shapes, cb_nulls;
DROP FUNCTION tt.cb_compare(regclass);
RESET max_parallel_workers_per_gather;
