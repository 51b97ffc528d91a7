-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 913016 --only 157   (plan variant: default)
-- mismatch: missing-error: off: ERROR 22012: division by zero | on: ok (0 rows)
-- Run: psql -X -d <a UTF8 database with C collation> -f s913016-q157-missing-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t1 CASCADE;
DROP TABLE IF EXISTS t3 CASCADE;
DROP TABLE IF EXISTS t4 CASCADE;
RESET client_min_messages;
CREATE TABLE t1 (t2 text, d5 date) WITH (autovacuum_enabled = off);
INSERT INTO t1 (t2, d5) VALUES
('k32', '2010-03-23');
ANALYZE t1;
CREATE TABLE t3 (t2 text, d3 date, f7 float8) WITH (autovacuum_enabled = off);
ANALYZE t3;
CREATE TABLE t4 (v3 varchar(20), n4 numeric(7,2)) WITH (autovacuum_enabled = off);
INSERT INTO t4 (v3, n4) VALUES
(NULL, NULL),
(NULL, '0'),
(NULL, '5'),
(NULL, '3'),
('foo%bar', '4.83'),
('k68', '10'),
('k73', '7.77'),
(NULL, '-2.22'),
(NULL, '9.72'),
('k81', '7'),
('k59', NULL);
ANALYZE t4;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a2.d5 AS c0
FROM t4 a1, t1 a2
WHERE ((- (a1.n4 / a1.n4)) > a1.n4)
  AND (a2.d5 = (SELECT max(a3.d3) FROM t3 a3 WHERE (a1.v3 = a3.t2) AND (a3.f7 < a3.f7)));
--   ERROR 22012: division by zero
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t3 a3
--       Filter: (a3.f7 < a3.f7)
--       Aggregate by (a3.t2): max(a3.d3)
--     Pipeline 1: Aggregate result 0
--       Hash Build 0 on (a3.t2)
--     Pipeline 2: Seq Scan on t1 a2
--       Hash Build 1 on (a2.d5)
--     Pipeline 3: Seq Scan on t4 a1
--       Filter: ((- (a1.n4 / a1.n4)) > a1.n4)
--       Hash Probe 0 (Inner) on (a1.v3 = a3.t2)
--       Hash Probe 1 (Inner) on (pg_catalog.max(a3.d3) = a2.d5)
--       Emit rows
SELECT a2.d5 AS c0
FROM t4 a1, t1 a2
WHERE ((- (a1.n4 / a1.n4)) > a1.n4)
  AND (a2.d5 = (SELECT max(a3.d3) FROM t3 a3 WHERE (a1.v3 = a3.t2) AND (a3.f7 < a3.f7)));
--   0 rows
