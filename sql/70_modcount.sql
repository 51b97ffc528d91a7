--
-- 70_modcount: the MVCC modification counters of the GPU column cache (src/modcount.c), seen through
-- themis.modcount(): which statements record a write of a table (its count: table_bumped) or of
-- everything (the global count: global_bumped), and when a cache entry built now would be clean.
-- Counts and xids depend on the instance: only whether they changed is shown.  Only positive
-- table_bumped results are checked for a table other than the one written (two tables may share a
-- slot, which would turn a "false" into a "true").
--
CREATE TABLE mc (id int PRIMARY KEY, k int, v int) WITH (autovacuum_enabled = off);
INSERT INTO mc SELECT i, i % 10, i FROM generate_series(1, 100) i;
CREATE TABLE mc_src (id int, k int, v int) WITH (autovacuum_enabled = off);
INSERT INTO mc_src SELECT i, i % 7, -i FROM generate_series(51, 150) i;
CREATE TABLE mc_part (id int, k int, v int) PARTITION BY RANGE (id);
CREATE TABLE mc_p1 PARTITION OF mc_part FOR VALUES FROM (0) TO (1000) WITH (autovacuum_enabled = off);
CREATE TABLE mc_p2 PARTITION OF mc_part FOR VALUES FROM (1000) TO (2000) WITH (autovacuum_enabled = off);
CREATE TABLE mc_fk (id int PRIMARY KEY) WITH (autovacuum_enabled = off);
CREATE TABLE mc_child (id int REFERENCES mc_fk ON DELETE CASCADE, x int) WITH (autovacuum_enabled = off);
INSERT INTO mc_fk SELECT generate_series(1, 10);
INSERT INTO mc_child SELECT i % 10 + 1, i FROM generate_series(1, 50) i;
CREATE MATERIALIZED VIEW mc_mv AS SELECT k, count(*) AS n FROM mc GROUP BY k;
CREATE VIEW mc_view AS SELECT * FROM mc;
CREATE TEMP TABLE mc_temp (id int);

-- counts seen by the last tt.mc_delta call: per table, and the global count (r = 0)
CREATE TEMP TABLE mc_seen (r regclass PRIMARY KEY, c int8);

-- what changed since the last call: the count of each of rels (since the last call for it) and the
-- global count (since the last call); NULL: not seen before
CREATE FUNCTION tt.mc_delta(label text, VARIADIC rels regclass[])
RETURNS TABLE(stmt text, rel regclass, table_bumped boolean, global_bumped boolean)
LANGUAGE plpgsql AS $f$
DECLARE
    g int8;
    g_bumped boolean;
    m record;
BEGIN
    stmt := label;
    SELECT global_count INTO g FROM themis.modcount(0);
    g_bumped := g > (SELECT c FROM mc_seen WHERE r = 0);
    INSERT INTO mc_seen VALUES (0, g) ON CONFLICT (r) DO UPDATE SET c = excluded.c;
    FOREACH rel IN ARRAY rels LOOP
        SELECT * INTO m FROM themis.modcount(rel);
        table_bumped := m.table_count > (SELECT c FROM mc_seen x WHERE x.r = rel);
        global_bumped := g_bumped;
        INSERT INTO mc_seen VALUES (rel, m.table_count) ON CONFLICT (r) DO UPDATE SET c = excluded.c;
        RETURN NEXT;
    END LOOP;
END
$f$;

-- clean_now of rel, waiting (up to 30 s) for it to become true: transactions of other processes
-- (autovacuum) that are still running keep a snapshot's xmin behind the last writer for a while
CREATE FUNCTION tt.mc_wait_clean(rel regclass) RETURNS boolean
LANGUAGE plpgsql AS $f$
BEGIN
    FOR i IN 1 .. 300 LOOP
        IF (SELECT clean_now FROM themis.modcount(rel)) THEN
            RETURN true;
        END IF;
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN false;
END
$f$;

-- the counters exist (themis is preloaded); what the cache may be used for: tables and materialized
-- views, not views, partitioned parents, temporary tables or system catalogs
SELECT r AS rel, m.available, m.cacheable
FROM unnest(ARRAY['mc', 'mc_p1', 'mc_mv', 'mc_part', 'mc_view', 'mc_temp', 'pg_class']::regclass[]) r,
     themis.modcount(r) m;

-- logical replication: while the database has a subscription, no table is cacheable (apply workers
-- write without the executor, and may still write a table that REFRESH PUBLICATION took off
-- pg_subscription_rel): a subscription to this very database, made without a slot and never enabled,
-- lists the tables of its publication in pg_subscription_rel (with publish_via_partition_root, the
-- partitioned parent); mc, in no publication, is not cacheable either until DROP SUBSCRIPTION
CREATE TABLE mc_sub_t (a int PRIMARY KEY) WITH (autovacuum_enabled = off);
CREATE TABLE mc_sub_p (a int) PARTITION BY RANGE (a);
CREATE TABLE mc_sub_p1 PARTITION OF mc_sub_p FOR VALUES FROM (0) TO (10) WITH (autovacuum_enabled = off);
SET client_min_messages = error;
CREATE PUBLICATION mc_pub FOR TABLE mc_sub_t, mc_sub_p WITH (publish_via_partition_root = true);
DO $$ BEGIN
    EXECUTE format('CREATE SUBSCRIPTION mc_sub CONNECTION %L PUBLICATION mc_pub '
                   'WITH (connect = true, create_slot = false, enabled = false, copy_data = false, slot_name = NONE)',
                   format('host=%s port=%s dbname=%s', split_part(current_setting('unix_socket_directories'), ',', 1),
                          current_setting('port'), current_database()));
END $$;
RESET client_min_messages;
SELECT srrelid::regclass AS rel FROM pg_subscription_rel ORDER BY srrelid::regclass::text;
SELECT r AS rel, m.cacheable FROM unnest(ARRAY['mc_sub_t', 'mc_sub_p1', 'mc']::regclass[]) r, themis.modcount(r) m;
DROP SUBSCRIPTION mc_sub;
SELECT r AS rel, m.cacheable FROM unnest(ARRAY['mc_sub_t', 'mc_sub_p1', 'mc']::regclass[]) r, themis.modcount(r) m;
DROP PUBLICATION mc_pub;
DROP TABLE mc_sub_t, mc_sub_p;

-- a materialized view WITH NO DATA: not cacheable, and not read by themis: its scan stays PostgreSQL's
-- (a subplan under the Themis node), which raises the error; with data, both; refreshed WITH NO DATA,
-- a prepared statement is planned anew: the error
CREATE MATERIALIZED VIEW mc_mv0 AS SELECT k, v FROM mc WITH NO DATA;
SELECT m.cacheable FROM themis.modcount('mc_mv0') m;
CALL tt.themis_on();
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM mc_mv0 GROUP BY k;
SELECT k, count(*) FROM mc_mv0 GROUP BY k;
REFRESH MATERIALIZED VIEW mc_mv0;
SELECT m.cacheable FROM themis.modcount('mc_mv0') m;
SELECT tt.offloaded($$SELECT k, count(*) FROM mc_mv0 GROUP BY k$$) AS offloaded;
PREPARE mc_mv0_q AS SELECT k, count(*) FROM mc_mv0 GROUP BY k ORDER BY k LIMIT 2;
EXECUTE mc_mv0_q;
REFRESH MATERIALIZED VIEW mc_mv0 WITH NO DATA;
EXECUTE mc_mv0_q;
DEALLOCATE mc_mv0_q;
CALL tt.themis_reset();
DROP MATERIALIZED VIEW mc_mv0;

SELECT * FROM tt.mc_delta('start', 'mc', 'mc_src', 'mc_p1', 'mc_p2', 'mc_child', 'mc_mv', 'mc_temp');

-- reads record nothing (and assign no xid)
SELECT count(*), sum(v) FROM mc;
CALL tt.themis_on();
SELECT k, count(*), sum(v) FROM mc GROUP BY k ORDER BY k LIMIT 3;
CALL tt.themis_reset();
BEGIN;
SELECT count(*) FROM mc WHERE k = 3;
SELECT pg_current_xact_id_if_assigned() IS NULL AS no_xid;
COMMIT;
SELECT * FROM tt.mc_delta('select', 'mc');

-- data-modifying statements record a write of their table
INSERT INTO mc VALUES (101, 1, 101);
SELECT * FROM tt.mc_delta('insert', 'mc');
UPDATE mc SET v = v + 1 WHERE k = 2;
SELECT * FROM tt.mc_delta('update', 'mc');
DELETE FROM mc WHERE id = 101;
SELECT * FROM tt.mc_delta('delete', 'mc');
MERGE INTO mc t USING mc_src s ON t.id = s.id
WHEN MATCHED AND s.k = 0 THEN DELETE
WHEN MATCHED THEN UPDATE SET v = s.v
WHEN NOT MATCHED AND s.id <= 110 THEN INSERT VALUES (s.id, s.k, s.v);
SELECT * FROM tt.mc_delta('merge', 'mc');
INSERT INTO mc VALUES (1, 1, 1000), (200, 0, 200) ON CONFLICT (id) DO UPDATE SET v = excluded.v;
SELECT * FROM tt.mc_delta('insert on conflict do update', 'mc');
INSERT INTO mc VALUES (1, 1, 1) ON CONFLICT DO NOTHING;
SELECT * FROM tt.mc_delta('insert on conflict do nothing (no row)', 'mc');
UPDATE mc SET v = 0 WHERE false;
SELECT * FROM tt.mc_delta('update of no row', 'mc');
WITH d AS (DELETE FROM mc WHERE id = 200 RETURNING *) SELECT count(*) FROM d;
SELECT * FROM tt.mc_delta('select with a DELETE in WITH', 'mc');
BEGIN;
UPDATE mc SET v = v - 1 WHERE k = 5;
ROLLBACK;
SELECT * FROM tt.mc_delta('rolled back update', 'mc');
DO $$ BEGIN UPDATE mc SET v = v + 1 WHERE k = 6; END $$;
SELECT * FROM tt.mc_delta('update in DO', 'mc');
PREPARE mc_upd(int) AS UPDATE mc SET v = v + 1 WHERE k = $1;
SELECT * FROM tt.mc_delta('prepare', 'mc');
EXECUTE mc_upd(7);
SELECT * FROM tt.mc_delta('execute', 'mc');
DEALLOCATE mc_upd;
-- EXPLAIN without ANALYZE runs nothing (and assigns no xid); EXPLAIN ANALYZE runs the statement
BEGIN;
EXPLAIN (COSTS OFF) UPDATE mc SET v = v + 1 WHERE k = 8;
SELECT pg_current_xact_id_if_assigned() IS NULL AS no_xid;
COMMIT;
SELECT * FROM tt.mc_delta('explain update', 'mc');
BEGIN;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) UPDATE mc SET v = v + 1 WHERE k = 8;
ROLLBACK;
SELECT * FROM tt.mc_delta('explain analyze update', 'mc');
-- a cascading foreign key writes the referencing table (through the executor)
DELETE FROM mc_fk WHERE id = 3;
SELECT * FROM tt.mc_delta('delete with ON DELETE CASCADE', 'mc_child');
-- tuple routing: a write through the partitioned parent covers its partitions
INSERT INTO mc_part VALUES (5, 1, 1), (1005, 1, 1);
SELECT * FROM tt.mc_delta('insert into the partitioned parent', 'mc_p1', 'mc_p2');
UPDATE mc_part SET v = v + 1 WHERE id = 5;
SELECT * FROM tt.mc_delta('update through the partitioned parent', 'mc_p1', 'mc_p2');
INSERT INTO mc_p2 VALUES (1500, 2, 2);
SELECT * FROM tt.mc_delta('insert into a partition', 'mc_p2');
-- temporary tables are never cached: their writes are not recorded
INSERT INTO mc_temp VALUES (1);
SELECT * FROM tt.mc_delta('insert into a temporary table', 'mc_temp');

-- utility statements: a read-only whitelist records nothing, everything else a global write
DO $$ BEGIN EXECUTE format('COPY mc TO %L', current_setting('data_directory') || '/mc_copy.data'); END $$;
SELECT * FROM tt.mc_delta('copy to', 'mc');
COPY mc_src FROM 'mc_copy.data';
SELECT * FROM tt.mc_delta('copy from', 'mc_src');
VACUUM mc;
ANALYZE mc;
VACUUM ANALYZE mc;
SET work_mem = '8MB';
RESET work_mem;
SHOW themis.enabled;
BEGIN;
LOCK TABLE mc IN SHARE MODE;
SAVEPOINT s1;
RELEASE SAVEPOINT s1;
COMMIT;
CHECKPOINT;
CREATE TABLE mc_new (a int);
SELECT * FROM tt.mc_delta('vacuum, analyze, set, show, lock, savepoint, checkpoint, create table', 'mc');
-- statements that change no table's rows: a view, a function, a comment, privileges (a transaction
-- that made one and stays open leaves the cache usable)
CREATE TEMP VIEW mc_tv AS SELECT k FROM mc;
CREATE OR REPLACE VIEW mc_v2 AS SELECT k, v FROM mc;
CREATE FUNCTION mc_f(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
COMMENT ON TABLE mc IS 'modcount test';
GRANT SELECT ON mc TO PUBLIC;
REVOKE SELECT ON mc FROM PUBLIC;
SELECT * FROM tt.mc_delta('create view, create function, comment, grant, revoke', 'mc');
DROP VIEW mc_tv, mc_v2;
DROP FUNCTION mc_f(int);
SELECT * FROM tt.mc_delta('drop view', 'mc');
VACUUM FULL mc;
SELECT * FROM tt.mc_delta('vacuum full', 'mc');
CLUSTER mc USING mc_pkey;
SELECT * FROM tt.mc_delta('cluster', 'mc');
TRUNCATE mc_new;
SELECT * FROM tt.mc_delta('truncate (another table)', 'mc');
ALTER TABLE mc ADD COLUMN w int DEFAULT 7;
SELECT * FROM tt.mc_delta('alter table', 'mc');
CREATE INDEX ON mc (k);
SELECT * FROM tt.mc_delta('create index', 'mc');
REFRESH MATERIALIZED VIEW mc_mv;
SELECT * FROM tt.mc_delta('refresh materialized view', 'mc_mv');
DROP TABLE mc_new;
SELECT * FROM tt.mc_delta('drop table', 'mc');
BEGIN;
TRUNCATE mc_src;
ROLLBACK;
SELECT * FROM tt.mc_delta('truncate in a transaction block', 'mc_src');

-- clean_now: an entry built now could serve later snapshots.  Not while this transaction's own
-- write of the table (or a utility statement of it) is running; again once it has finished.
SELECT tt.mc_wait_clean('mc') AS clean;
BEGIN;
SELECT tt.mc_wait_clean('mc') AS clean_before_writing;
UPDATE mc SET v = v + 1 WHERE k = 1;
SELECT clean_now AS clean_after_writing FROM themis.modcount('mc');
COMMIT;
SELECT tt.mc_wait_clean('mc') AS clean_after_commit;
BEGIN;
SAVEPOINT s1;
DELETE FROM mc WHERE k = 9;
ROLLBACK TO SAVEPOINT s1;
SELECT clean_now AS clean_after_rollback_to_savepoint FROM themis.modcount('mc');
ROLLBACK;
SELECT tt.mc_wait_clean('mc') AS clean_after_rollback;
BEGIN;
TRUNCATE mc_src;
SELECT clean_now AS clean_during_utility FROM themis.modcount('mc');
COMMIT;
SELECT tt.mc_wait_clean('mc') AS clean_after_utility;
VACUUM FULL mc_src;
SELECT tt.mc_wait_clean('mc') AS clean_after_vacuum_full;
-- never clean for what cannot be cached
SELECT r AS rel, m.clean_now FROM unnest(ARRAY['mc_view', 'mc_temp', 'pg_class']::regclass[]) r,
     themis.modcount(r) m;

DROP FUNCTION tt.mc_delta(text, regclass[]);
DROP FUNCTION tt.mc_wait_clean(regclass);
DROP VIEW mc_view;
DROP MATERIALIZED VIEW mc_mv;
DROP TABLE mc, mc_src, mc_part, mc_child, mc_fk, mc_temp, mc_seen;
