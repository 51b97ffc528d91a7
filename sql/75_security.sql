--
-- 75_security: offloaded queries obey table and column privileges and row-level security exactly as
-- PostgreSQL does (tt.check compares themis on with off, as the querying role), and the SQL functions
-- check privileges.  On the GPU host (tt.device = gpu) the same queries go through the daemon and its
-- column cache, which holds whole tables: the policy must still filter.
--
CREATE ROLE regress_themis_alice;
CREATE ROLE regress_themis_bob;
GRANT USAGE ON SCHEMA tt TO regress_themis_alice, regress_themis_bob;
GRANT USAGE ON SEQUENCE tt.seq TO regress_themis_alice, regress_themis_bob;

CREATE TABLE sec_rls (id int, owner_name text, amount numeric(12,2), note text);
INSERT INTO sec_rls
  SELECT g, CASE g % 3 WHEN 0 THEN 'regress_themis_alice' WHEN 1 THEN 'regress_themis_bob' ELSE 'nobody' END,
         (g % 97)::numeric / 4, 'n' || (g % 11)
  FROM generate_series(1, 3000) g;
ALTER TABLE sec_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY sec_own ON sec_rls FOR SELECT USING (owner_name = current_user);
CREATE POLICY sec_small ON sec_rls AS RESTRICTIVE FOR SELECT USING (amount < 20);
GRANT SELECT ON sec_rls TO regress_themis_alice, regress_themis_bob;

CREATE TABLE sec_cols (id int, pub int, priv int);
INSERT INTO sec_cols SELECT g, g % 50, g % 7 FROM generate_series(1, 2000) g;
GRANT SELECT (id, pub) ON sec_cols TO regress_themis_alice;

CREATE TABLE sec_none (id int);
INSERT INTO sec_none SELECT generate_series(1, 100);
ANALYZE sec_rls, sec_cols, sec_none;

-- as alice: only her rows, under both policies
SET ROLE regress_themis_alice;
SELECT * FROM tt.check($$SELECT owner_name, count(*) AS n, sum(amount) AS s, max(amount) AS mx FROM sec_rls GROUP BY owner_name$$);
SELECT * FROM tt.check($$SELECT id, amount FROM sec_rls WHERE note = 'n3'$$);
SELECT * FROM tt.check($$SELECT a.id FROM sec_rls a JOIN sec_cols c ON a.id = c.id WHERE c.pub < 5$$);
SET themis.min_rows = 0;
CALL tt.device_on();
SELECT tt.offloaded($$SELECT count(*) FROM sec_rls$$) AS offloaded;
SELECT count(*) AS alice_rows, count(*) FILTER (WHERE owner_name <> current_user) AS others FROM sec_rls;
RESET themis.device;
RESET themis.min_rows;
-- column privileges: the granted columns work, the other one is refused, themis on or off
SELECT * FROM tt.check($$SELECT id, pub FROM sec_cols WHERE pub > 40$$);
SELECT * FROM tt.check_error($$SELECT id, priv FROM sec_cols$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n FROM sec_cols WHERE priv = 3$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n FROM sec_none$$);
-- cache functions check privileges (before anything reaches the daemon)
SELECT themis.cache_table('sec_cols');
SELECT themis.cache_table('sec_none');
SELECT themis.cache_drop('sec_rls');
SELECT themis.cache_drop();
SELECT * FROM themis.modcount('sec_rls');
-- the cache listing shows only tables alice may read
SELECT count(*) AS listed_unreadable FROM themis.cache WHERE relation IN ('sec_none'::regclass, 'sec_cols'::regclass);
-- nor one a policy shows her only in part (the cache holds the whole table: its rows and bytes), which
-- she cannot load either
SELECT count(*) AS listed_rls FROM themis.cache WHERE relation = 'sec_rls'::regclass;
SELECT themis.cache_table('sec_rls');
RESET ROLE;

-- as bob: his rows
SET ROLE regress_themis_bob;
SELECT * FROM tt.check($$SELECT owner_name, count(*) AS n, sum(amount) AS s FROM sec_rls GROUP BY owner_name$$);
RESET ROLE;

-- the owner is not subject to the policies, unless forced
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(amount) AS s FROM sec_rls$$);
ALTER TABLE sec_rls FORCE ROW LEVEL SECURITY;
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(amount) AS s FROM sec_rls$$);
ALTER TABLE sec_rls NO FORCE ROW LEVEL SECURITY;

-- SQL functions validate their arguments
SELECT themis.cache_table(NULL);
SELECT themis.cache_table(0);
SELECT themis.cache_table('pg_class');

-- a table read under row-level security or through a security-barrier view: its scan stays
-- PostgreSQL's (the rows above it may still be the node's).  The node reads every visible row of a
-- table before its filters, so a value it cannot represent on a hidden row (a numeric NaN) would show,
-- as its error or its fallback; here the hidden row is never read and nothing fails
CREATE TABLE sec_nan (id int, visible bool, balance numeric(12,2));
INSERT INTO sec_nan SELECT g, g <> 7, CASE WHEN g = 7 THEN 'NaN'::numeric ELSE g END FROM generate_series(1, 500) g;
CREATE VIEW sec_nan_v WITH (security_barrier) AS SELECT id, balance FROM sec_nan WHERE visible;
CREATE TABLE sec_nan_r (id int, rating numeric);
INSERT INTO sec_nan_r SELECT g, CASE WHEN g = 900 THEN 'NaN'::numeric ELSE g % 7 END FROM generate_series(1, 1000) g;
ALTER TABLE sec_nan_r ENABLE ROW LEVEL SECURITY;
CREATE POLICY sec_nan_p ON sec_nan_r FOR SELECT USING (rating < 5 AND id < 500);
GRANT SELECT ON sec_nan_v TO regress_themis_alice;
GRANT SELECT (id) ON sec_nan_r TO regress_themis_alice;
ANALYZE sec_nan, sec_nan_r;
SET ROLE regress_themis_alice;
CALL tt.themis_on();
EXPLAIN (COSTS OFF) SELECT sum(balance) FROM sec_nan_v;
SELECT sum(balance), count(*) FROM sec_nan_v;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sec_nan_r;
SELECT count(*) FROM sec_nan_r;
-- (also in a sublink, which planning turns into a subplan)
EXPLAIN (COSTS OFF) SELECT (SELECT count(*) FROM sec_nan_r) + 1 AS n;
SELECT (SELECT count(*) FROM sec_nan_r) + 1 AS n;
CALL tt.themis_reset();
RESET ROLE;
-- the owner reads the table itself (no policy applies to him): the node reads it, and its NaN falls back
SELECT tt.offloaded($$SELECT count(*) FROM sec_nan_r$$) AS owner_offloaded;
-- the same where the policy is a parent's (a partition, an inheritance child read through it) or the
-- table is in an SQL function the planner inlines: PostgreSQL's scans
CREATE TABLE sec_pt (id int, visible bool, bal numeric(12,2)) PARTITION BY RANGE (id);
CREATE TABLE sec_pt1 PARTITION OF sec_pt FOR VALUES FROM (0) TO (1000);
INSERT INTO sec_pt SELECT g, g <> 7, CASE WHEN g = 7 THEN 'NaN'::numeric ELSE g END FROM generate_series(1, 500) g;
ALTER TABLE sec_pt ENABLE ROW LEVEL SECURITY;
CREATE POLICY sec_pt_p ON sec_pt FOR SELECT USING (visible);
CREATE TABLE sec_ih (id int, visible bool, bal numeric(12,2));
CREATE TABLE sec_ih_c () INHERITS (sec_ih);
INSERT INTO sec_ih_c SELECT g, g <> 7, CASE WHEN g = 7 THEN 'NaN'::numeric ELSE g END FROM generate_series(1, 500) g;
ALTER TABLE sec_ih ENABLE ROW LEVEL SECURITY;
CREATE POLICY sec_ih_p ON sec_ih FOR SELECT USING (visible);
CREATE FUNCTION sec_f() RETURNS SETOF sec_nan_r LANGUAGE sql STABLE AS 'SELECT * FROM sec_nan_r';
GRANT SELECT ON sec_pt, sec_ih TO regress_themis_alice;
GRANT SELECT ON sec_nan_r TO regress_themis_alice;
ANALYZE sec_pt, sec_ih, sec_ih_c;
SET ROLE regress_themis_alice;
CALL tt.themis_on();
EXPLAIN (COSTS OFF) SELECT sum(bal), count(*) FROM sec_pt WHERE id < 600;
SELECT sum(bal), count(*) FROM sec_pt WHERE id < 600;
SELECT sum(bal), count(*) FROM sec_ih;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sec_f();
SELECT count(*) FROM sec_f();
CALL tt.themis_reset();
RESET ROLE;
DROP FUNCTION sec_f();
DROP TABLE sec_pt, sec_ih_c, sec_ih;
DROP VIEW sec_nan_v;
DROP TABLE sec_nan, sec_nan_r;

-- the extension is not trusted: a database owner who is not a superuser cannot create it (its schema,
-- owned by him, would let him put functions ahead of its own for a superuser's call)
SELECT current_database() AS sec_orig_db \gset
CREATE ROLE regress_themis_dbo LOGIN;
CREATE DATABASE regress_themis_dbodb OWNER regress_themis_dbo;
\c regress_themis_dbodb
SET ROLE regress_themis_dbo;
CREATE EXTENSION themis;
RESET ROLE;
\c :sec_orig_db
DROP DATABASE regress_themis_dbodb;
DROP ROLE regress_themis_dbo;

DROP TABLE sec_rls, sec_cols, sec_none;
DROP OWNED BY regress_themis_alice, regress_themis_bob;
DROP ROLE regress_themis_alice, regress_themis_bob;
