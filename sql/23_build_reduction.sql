--
-- 23_build_reduction: themis.build_reduction (src/build_reduce.c).  In the order written here
-- (join_collapse_limit = 1) the fact table br_l probes br_o first and then br_c, on br_o's column ck;
-- br_c keeps 1 customer of 5.  themis builds br_c first and adds a SEMI probe of it to br_o's build, so
-- that br_o's table holds only the orders whose customer br_c keeps.  The answers are compared with
-- PostgreSQL's, with the setting on and off; EXPLAIN shows the added probe.  What may not reduce: a
-- residual condition or a filter between the two probes (an error PostgreSQL raises on a row the
-- reduction would drop), a computed key, keys from both sides, a table that keeps most rows.
--
CREATE TABLE br_l (id int, ok int, v numeric(12,2), q int);
INSERT INTO br_l SELECT i, i % 3000, (i % 97) * 1.25, i % 13 FROM generate_series(1, 30000) i;
-- 2,500 orders: 500 of br_l's keys have none; every 50th has no customer
CREATE TABLE br_o (ok int, ck int, r int, d date, x int);
INSERT INTO br_o SELECT i, CASE WHEN i % 50 = 0 THEN NULL ELSE i % 400 END, i % 4,
                        date '2024-01-01' + i % 90, i % 7 FROM generate_series(0, 2499) i;
-- 400 customers in 5 segments, and one with no key
CREATE TABLE br_c (ck int, r int, seg int, name text);
INSERT INTO br_c SELECT i, i % 4, i % 5, 'c' || i FROM generate_series(0, 399) i;
INSERT INTO br_c VALUES (NULL, 0, 1, 'cnull');
ANALYZE br_l, br_o, br_c;

-- the pipelines and their hash operators, as EXPLAIN shows them
CREATE FUNCTION br_plan(q text) RETURNS SETOF text LANGUAGE sql
  AS $$ SELECT tt.explain_lines(q, ARRAY['%Pipeline %', '%Hash Probe%', '%Hash Build%']) $$;

SET join_collapse_limit = 1;
SET enable_mergejoin = off;
SET enable_nestloop = off;
CALL tt.device_on();
SET themis.min_rows = 0;
SET themis.fallback = off;

-- br_o's build probes br_c (built first): the orders of the other segments are not built
SELECT * FROM br_plan($$SELECT l.ok, o.d, sum(l.v) FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1 GROUP BY l.ok, o.d$$);
SELECT * FROM tt.check($$SELECT l.ok, o.d, sum(l.v) AS s, count(*) AS n FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1 GROUP BY l.ok, o.d$$);
-- rows out, br_c's columns among them; NULL keys on both sides
SELECT * FROM tt.check($$SELECT l.id, o.ok, o.ck, c.name FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);
-- the setting off: no SEMI probe, the same answers
SET themis.build_reduction = off;
SELECT * FROM br_plan($$SELECT l.ok, o.d, sum(l.v) FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1 GROUP BY l.ok, o.d$$);
SELECT * FROM tt.check($$SELECT l.ok, o.d, sum(l.v) AS s, count(*) AS n FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1 GROUP BY l.ok, o.d$$);
RESET themis.build_reduction;

-- two keys, both br_o's: reduced on both
SELECT * FROM br_plan($$SELECT count(*), sum(l.v) FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_c c ON o.ck = c.ck AND o.r = c.r WHERE c.seg = 2$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l.v) AS s FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_c c ON o.ck = c.ck AND o.r = c.r WHERE c.seg = 2$$);
-- no customer kept: an empty table, nothing built from br_o, no row out
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l.v) AS s FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1 AND c.ck < 0$$);

-- br_c's keys unique (a primary key): every order left finds one customer, so br_l's probe of it is
-- dropped where br_l reads nothing of br_c's rows; kept where it reads c.name
CREATE TABLE br_cu (ck int PRIMARY KEY, r int, seg int, name text);
INSERT INTO br_cu SELECT ck, r, seg, name FROM br_c WHERE ck IS NOT NULL;
ANALYZE br_cu;
SELECT * FROM br_plan($$SELECT l.ok, o.d, sum(l.v) FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_cu c ON o.ck = c.ck WHERE c.seg = 1 GROUP BY l.ok, o.d$$);
SELECT * FROM tt.check($$SELECT l.ok, o.d, sum(l.v) AS s, count(*) AS n FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_cu c ON o.ck = c.ck WHERE c.seg = 1 GROUP BY l.ok, o.d$$);
SELECT * FROM tt.check($$SELECT l.id, o.ok, o.ck, o.x FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_cu c ON o.ck = c.ck WHERE c.seg = 3$$);
SELECT * FROM br_plan($$SELECT l.id, c.name FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_cu c ON o.ck = c.ck WHERE c.seg = 1$$);
SELECT * FROM tt.check($$SELECT l.id, c.name FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_cu c ON o.ck = c.ck WHERE c.seg = 1$$);
-- a deferrable unique constraint (duplicates possible inside a transaction): not dropped
CREATE TABLE br_cd (ck int UNIQUE DEFERRABLE INITIALLY DEFERRED, r int, seg int);
INSERT INTO br_cd SELECT ck, r, seg FROM br_cu;
ANALYZE br_cd;
BEGIN;
INSERT INTO br_cd VALUES (6, 0, 1);
SELECT * FROM br_plan($$SELECT count(*), sum(l.v) FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_cd c ON o.ck = c.ck WHERE c.seg = 1$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l.v) AS s FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_cd c ON o.ck = c.ck WHERE c.seg = 1$$);
ROLLBACK;

-- br_c keeps 4 of 5 customers: not worth a probe
SELECT * FROM br_plan($$SELECT count(*), sum(l.v) FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_c c ON o.ck = c.ck WHERE c.seg <> 1$$);
-- br_cu looked up row by row (a nested loop over its primary key), read whole by themis: its estimate
-- is one lookup's rows, but nothing drops any of its rows, so no reduction
SET enable_hashjoin = off;
SET enable_nestloop = on;
SELECT * FROM br_plan($$SELECT count(*), sum(l.v) FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_cu c ON o.ck = c.ck$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l.v) AS s FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_cu c ON o.ck = c.ck$$);
RESET enable_hashjoin;
SET enable_nestloop = off;
-- a key computed from br_o's column: no reduction
SELECT * FROM br_plan($$SELECT count(*), sum(l.v) FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_c c ON o.ck + 0 = c.ck WHERE c.seg = 1$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l.v) AS s FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_c c ON o.ck + 0 = c.ck WHERE c.seg = 1$$);
-- keys from br_l and br_o: no reduction
SELECT * FROM br_plan($$SELECT count(*), sum(l.v) FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_c c ON o.ck = c.ck AND l.q = c.r WHERE c.seg = 1$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(l.v) AS s FROM br_l l JOIN br_o o ON l.ok = o.ok
                          JOIN br_c c ON o.ck = c.ck AND l.q = c.r WHERE c.seg = 1$$);

-- errors: a division by zero at br_o's join, on orders whose customer br_c drops (x = 0 on every 7th
-- order, in each segment).  PostgreSQL joins br_o first and raises it: so does themis (no reduction)
SELECT * FROM br_plan($$SELECT count(*) FROM br_l l JOIN br_o o ON l.ok = o.ok AND 10 / o.x > l.q
                        JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n FROM br_l l JOIN br_o o ON l.ok = o.ok AND 10 / o.x > l.q
                                JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);
-- ... and where no order of the kept segment divides by zero, but others do: still the error
SELECT * FROM tt.check_error($$SELECT count(*) AS n FROM br_l l JOIN br_o o ON l.ok = o.ok AND 10 / (o.x + (o.ck % 5 = 1)::int) > l.q
                                JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);
-- a build key of br_o computed with a division by zero on orders whose customer br_c drops: PostgreSQL
-- computes it for every order it hashes and raises the error, so br_o's build is not reduced (br_lb: a
-- fact table large enough, half of it one key, that PostgreSQL hashes br_o on the computed key)
CREATE TABLE br_lb AS SELECT i AS id, CASE WHEN i % 2 = 0 THEN 1 ELSE i % 3000 END AS ok, (i % 97) * 1.25 AS v
  FROM generate_series(1, 300000) i;
ANALYZE br_lb;
SELECT * FROM br_plan($$SELECT count(*) FROM br_lb l JOIN br_o o ON l.ok = o.ok + 0 / CASE WHEN o.ck % 5 = 1 THEN o.x + 1 ELSE o.x END
                        JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n FROM br_lb l
                                JOIN br_o o ON l.ok = o.ok + 0 / CASE WHEN o.ck % 5 = 1 THEN o.x + 1 ELSE o.x END
                                JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);
-- ... the rule is by form: a computed build key that never divides by zero keeps the build as it is too
SELECT * FROM br_plan($$SELECT count(*) FROM br_lb l JOIN br_o o ON l.ok = o.ok + 0 / (o.x + 1)
                        JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);
DROP TABLE br_lb;
-- after both probes, the error is raised on the rows PostgreSQL reaches, with the reduction
SELECT * FROM tt.check_error($$SELECT count(*) AS n, sum(10 / o.x) AS s FROM br_l l JOIN br_o o ON l.ok = o.ok
                                JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n, sum(10 / (o.x + 1)) AS s FROM br_l l JOIN br_o o ON l.ok = o.ok
                                JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);
-- ... and not raised where only the orders that br_c drops divide by zero: PostgreSQL drops them first
SELECT * FROM br_plan($$SELECT count(*), sum(10 / (o.x + (o.ck % 5 = 1)::int)) FROM br_l l JOIN br_o o ON l.ok = o.ok
                        JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n, sum(10 / (o.x + (o.ck % 5 = 1)::int)) AS s FROM br_l l
                                JOIN br_o o ON l.ok = o.ok JOIN br_c c ON o.ck = c.ck WHERE c.seg = 1$$);

RESET join_collapse_limit;
RESET enable_mergejoin;
RESET enable_nestloop;
RESET themis.min_rows;
RESET themis.fallback;
DROP FUNCTION br_plan(text);
DROP TABLE br_l, br_o, br_c, br_cu, br_cd;
