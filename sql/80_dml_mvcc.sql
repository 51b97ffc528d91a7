--
-- 80_dml_mvcc: themis subtrees under INSERT / UPDATE / DELETE / MERGE; visibility of the
-- transaction's own changes, subtransactions, rollbacks, cursors' snapshots, prepared statements
-- across changes; table rewrites and ALTER TABLE (added columns with defaults, dropped columns).
--
-- data-modifying statements (tt.check_dml compares the resulting tables)
SELECT * FROM tt.check_dml('jl', $$UPDATE TARGET SET v = v + 1 WHERE k1 > 20 AND k2 <> 'a'$$);
SELECT * FROM tt.check_dml('jl', $$UPDATE TARGET t SET v = s.w FROM (SELECT k1, max(w) AS w FROM jr GROUP BY k1) s
                                  WHERE t.k1 = s.k1 AND s.w > 0$$);
SELECT * FROM tt.check_dml('jl', $$UPDATE TARGET t SET kv = 'hit' WHERE EXISTS (SELECT 1 FROM jr WHERE jr.k1 = t.k1 AND jr.w > t.v)$$);
SELECT * FROM tt.check_dml('jl', $$UPDATE TARGET t SET kn = kn * 2 WHERE NOT EXISTS (SELECT 1 FROM jr WHERE jr.k2 = t.k2)$$);
SELECT * FROM tt.check_dml('jl', $$DELETE FROM TARGET WHERE k2 = 'a' OR v < -900$$);
SELECT * FROM tt.check_dml('jl', $$DELETE FROM TARGET t USING jr WHERE t.k1 = jr.k1 AND jr.w < 0$$);
SELECT * FROM tt.check_dml('jl', $$DELETE FROM TARGET t WHERE t.k1 NOT IN (SELECT k1 FROM jr WHERE k1 IS NOT NULL)$$);
SELECT * FROM tt.check_dml('jl', $$INSERT INTO TARGET SELECT jl.id + 1000 * jr.id, jl.k1, jr.k2, jr.k8, jl.kn, jl.kd, jl.kc, jr.kv, jr.w
                                  FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jr.w > 500$$);
SELECT * FROM tt.check_dml('jl', $$INSERT INTO TARGET (id, k1, v) SELECT 100000 + k1, k1, count(*) FROM jr WHERE k1 IS NOT NULL GROUP BY k1$$);
SELECT * FROM tt.check_dml('jl', $$MERGE INTO TARGET t USING (SELECT k1, max(w) AS w FROM jr GROUP BY k1) s ON t.k1 = s.k1
                                  WHEN MATCHED AND s.w > 0 THEN UPDATE SET v = s.w
                                  WHEN MATCHED THEN DELETE$$);
SELECT * FROM tt.check_dml('orders', $$UPDATE TARGET o SET o_comment = 'late' WHERE o_orderdate < '1993-01-01'
                                      AND EXISTS (SELECT 1 FROM lineitem l WHERE l.l_orderkey = o.o_orderkey AND l.l_receiptdate > l.l_commitdate)$$);
SELECT * FROM tt.check_dml('orders', $$DELETE FROM TARGET o WHERE o_totalprice < (SELECT avg(o_totalprice) / 4 FROM orders)$$);

-- the rest of this file runs with themis forced on; its plain query results are checked
-- against the expected output (made by PostgreSQL alone)
CALL tt.themis_on();
CREATE TABLE mv (id int4 PRIMARY KEY, k int4, v numeric(10,2), s text) WITH (autovacuum_enabled = off);
INSERT INTO mv SELECT i, i % 10, i / 4.0, 's' || (i % 7) FROM generate_series(1, 2000) i;
ANALYZE mv;
SELECT count(*) AS n, sum(v) AS s, count(DISTINCT s) AS ds FROM mv;
SELECT * FROM tt.check($$SELECT k, count(*) AS n, sum(v) AS s FROM mv GROUP BY k$$);
-- own changes inside a transaction, subtransactions
BEGIN;
INSERT INTO mv SELECT i, i % 10, i / 4.0, 'new' FROM generate_series(2001, 2500) i;
SELECT count(*) AS n, sum(v) AS s FROM mv;
SELECT * FROM tt.check($$SELECT k, count(*) AS n, sum(v) AS s FROM mv GROUP BY k$$);
UPDATE mv SET v = v + 1 WHERE k = 3;
SELECT count(*) AS n, sum(v) AS s FROM mv;
SELECT * FROM tt.check($$SELECT k, count(*) AS n, sum(v) AS s FROM mv GROUP BY k$$);
DELETE FROM mv WHERE k = 4;
SELECT count(*) AS n, sum(v) AS s FROM mv;
SAVEPOINT sp1;
DELETE FROM mv WHERE k = 5;
INSERT INTO mv VALUES (9001, 5, 1000.25, 'sp');
SELECT count(*) AS n, sum(v) AS s FROM mv;
SELECT * FROM tt.check($$SELECT k, count(*) AS n, sum(v) AS s, max(s) AS ms FROM mv GROUP BY k$$);
ROLLBACK TO sp1;
SELECT count(*) AS n, sum(v) AS s FROM mv;
SELECT * FROM tt.check($$SELECT k, count(*) AS n, sum(v) AS s, max(s) AS ms FROM mv GROUP BY k$$);
SELECT mv.k, count(*) AS n FROM mv JOIN jl ON jl.k1 = mv.k GROUP BY mv.k ORDER BY mv.k;
ROLLBACK;
SELECT count(*) AS n, sum(v) AS s FROM mv;
SELECT * FROM tt.check($$SELECT k, count(*) AS n, sum(v) AS s FROM mv GROUP BY k$$);
-- committed changes
UPDATE mv SET s = 'upd' WHERE id % 100 = 0;
DELETE FROM mv WHERE id BETWEEN 1500 AND 1599;
SELECT count(*) AS n, sum(v) AS s, count(*) FILTER (WHERE s = 'upd') AS u FROM mv;
SELECT * FROM tt.check($$SELECT s, count(*) AS n, sum(v) AS sv FROM mv GROUP BY s$$);
-- a cursor keeps the snapshot it was declared with
BEGIN;
DECLARE cur CURSOR FOR SELECT k, count(*) AS n, sum(v) AS s FROM mv WHERE k < 3 GROUP BY k ORDER BY k;
UPDATE mv SET v = v + 1000 WHERE k < 3;
INSERT INTO mv VALUES (8001, 0, 1.00, 'late');
FETCH ALL FROM cur;
CLOSE cur;
SELECT k, count(*) AS n, sum(v) AS s FROM mv WHERE k < 3 GROUP BY k ORDER BY k;
ROLLBACK;
-- a prepared statement (generic plan) sees later changes
SET plan_cache_mode = force_generic_plan;
PREPARE ps(int) AS SELECT count(*) AS n, sum(v) AS s FROM mv WHERE k >= $1;
EXECUTE ps(0);
INSERT INTO mv SELECT i, i % 10, 1.00, 'ps' FROM generate_series(3001, 3100) i;
EXECUTE ps(0);
EXECUTE ps(5);
DELETE FROM mv WHERE s = 'ps' AND k >= 5;
EXECUTE ps(5);
DEALLOCATE ps;
RESET plan_cache_mode;
-- TRUNCATE (new relfilenode) in a transaction, rolled back
BEGIN;
TRUNCATE mv;
SELECT count(*) AS n, sum(v) AS s FROM mv;
INSERT INTO mv VALUES (1, 1, 1.00, 'one');
SELECT count(*) AS n, sum(v) AS s FROM mv;
ROLLBACK;
SELECT count(*) AS n, sum(v) AS s FROM mv;
-- COPY
COPY mv (id, k, v, s) FROM stdin;
5001	1	0.25	copy
5002	2	-0.50	copy
5003	\N	\N	\N
5004	4	99999.99	cöpy
\.
SELECT count(*) AS n, sum(v) AS s, count(*) FILTER (WHERE s LIKE 'c%py') AS c FROM mv;
SELECT * FROM tt.check($$SELECT k, count(*) AS n, sum(v) AS sv, min(s) AS ms FROM mv GROUP BY k$$);
-- VACUUM, VACUUM FULL, CLUSTER (rewrite)
VACUUM mv;
SELECT count(*) AS n, sum(v) AS s FROM mv;
VACUUM FULL mv;
SELECT count(*) AS n, sum(v) AS s FROM mv;
CLUSTER mv USING mv_pkey;
SELECT count(*) AS n, sum(v) AS s FROM mv;
SELECT * FROM tt.check($$SELECT k, count(*) AS n, sum(v) AS sv FROM mv GROUP BY k$$);
-- ALTER TABLE: columns added with a default are not stored in old rows
ALTER TABLE mv ADD COLUMN c int4 DEFAULT 7;
ALTER TABLE mv ADD COLUMN t text DEFAULT 'dflt';
ALTER TABLE mv ADD COLUMN z numeric(8,2);
INSERT INTO mv (id, k, v, s, c, t, z) VALUES (6001, 1, 2.00, 'alt', 8, 'set', 1.50), (6002, 2, 3.00, 'alt', NULL, NULL, NULL);
UPDATE mv SET c = 9 WHERE id % 500 = 1;
SELECT c, t, count(*) AS n, sum(z) AS z FROM mv GROUP BY c, t ORDER BY c, t;
SELECT * FROM tt.check($$SELECT c, t, count(*) AS n, sum(v) AS sv, sum(z) AS sz FROM mv GROUP BY c, t$$);
SELECT * FROM tt.check($$SELECT id, c, t, z FROM mv WHERE c = 7 AND id < 50$$);
SELECT * FROM tt.check($$SELECT id, c FROM mv WHERE c <> 7 OR c IS NULL OR t IS NULL$$);
SELECT * FROM tt.check($$SELECT mv.id, jl.id AS lid FROM mv JOIN jl ON jl.k1 = mv.c WHERE mv.id < 300 OR mv.id > 6000$$);
-- a dropped column
ALTER TABLE mv DROP COLUMN s;
SELECT * FROM tt.check($$SELECT * FROM mv WHERE k = 1$$);
SELECT * FROM tt.check($$SELECT k, c, count(*) AS n, sum(v) AS sv, max(t) AS mt FROM mv GROUP BY k, c$$);
-- a type change (table rewrite)
ALTER TABLE mv ALTER COLUMN v TYPE numeric(12,3);
SELECT count(*) AS n, sum(v) AS s, max(v) AS m FROM mv;
SELECT * FROM tt.check($$SELECT k, sum(v) AS s, avg(v) AS a FROM mv GROUP BY k$$);
-- every row deleted: pages without visible rows
DELETE FROM mv;
SELECT count(*) AS n, sum(v) AS s FROM mv;
SELECT * FROM tt.check($$SELECT k, count(*) AS n FROM mv GROUP BY k$$);
SELECT * FROM tt.check($$SELECT jl.id FROM jl WHERE NOT EXISTS (SELECT 1 FROM mv WHERE mv.k = jl.k1)$$);
CALL tt.themis_reset();
DROP TABLE mv;
-- a table a Themis node reads stays open while the node runs, as PostgreSQL's scans keep theirs: TRUNCATE,
-- ALTER TABLE or DROP TABLE of it in the same session fails (between two FETCHes of a cursor, or from a
-- function the query calls before the node computes), with themis on as with themis off
CREATE TABLE ddl_a (id int, g int, w int);
INSERT INTO ddl_a SELECT i, i % 5, i FROM generate_series(1, 1000) i;
CREATE TABLE ddl_b (g int);
INSERT INTO ddl_b SELECT i FROM generate_series(0, 3) i;
ANALYZE ddl_a, ddl_b;
CREATE FUNCTION ddl_trunc() RETURNS int LANGUAGE plpgsql AS $$ BEGIN TRUNCATE ddl_a; RETURN 0; END $$;
CALL tt.device_on();
SET themis.min_rows = 0;
SET themis.fallback = off;
SET themis.enabled = on;
BEGIN;
DECLARE ddl_c NO SCROLL CURSOR FOR SELECT a.g, count(*) AS n, sum(a.w) AS s FROM ddl_a a JOIN ddl_b b ON a.g = b.g GROUP BY a.g ORDER BY a.g;
SAVEPOINT s;
TRUNCATE ddl_a;
ROLLBACK TO s;
ALTER TABLE ddl_a DROP COLUMN w;
ROLLBACK TO s;
ALTER TABLE ddl_a ALTER COLUMN w TYPE int8;
ROLLBACK TO s;
DROP TABLE ddl_b;
ROLLBACK TO s;
FETCH 2 FROM ddl_c;
TRUNCATE ddl_b;
ROLLBACK TO s;
FETCH ALL FROM ddl_c;
COMMIT;
EXPLAIN (COSTS OFF) SELECT a.g, count(*) AS n, sum(a.w) AS s FROM ddl_a a JOIN ddl_b b ON a.g = b.g GROUP BY a.g ORDER BY a.g;
-- (called by an initplan: the statement has a volatile function, the node takes no initplan parameter
-- and stays PostgreSQL's; called in the node's projection, with ddl_a open in the node: the error)
SELECT * FROM tt.check_error($$SELECT g, count(*) FROM ddl_a WHERE id > (SELECT ddl_trunc()) GROUP BY g$$);
SELECT * FROM tt.check_error($$SELECT x.g, x.n + ddl_trunc() FROM (SELECT g, count(*) AS n FROM ddl_a GROUP BY g ORDER BY g) x$$);
SELECT count(*) FROM ddl_a;
CALL tt.themis_reset();
DROP FUNCTION ddl_trunc();
DROP TABLE ddl_a, ddl_b;
