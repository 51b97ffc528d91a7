-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 7010 --only 0   (plan variant: default)
-- mismatch: missing-error: off: ERROR 22003: integer out of range | on: ok (0 rows)
-- Run: psql -X -d <a UTF8 database with C collation> -f s7010-q0-missing-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t1 CASCADE;
DROP TABLE IF EXISTS t2 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (id int4, i2 int4, i5 int4) WITH (autovacuum_enabled = off);
INSERT INTO t0 (id, i2, i5) VALUES
('76', '25', '6'),
('425', '46341', '6'),
('374', '9', '6'),
('149', '-2147483648', '6'),
('216', '27', '6');
ANALYZE t0;
CREATE TABLE t1 (id int4, i5 int4) WITH (autovacuum_enabled = off);
INSERT INTO t1 (id, i5) VALUES
('888', '17');
ANALYZE t1;
CREATE TABLE t2 (id int4, n6 numeric(4,4)) WITH (autovacuum_enabled = off);
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a2.n6 AS c0
FROM t0 a1
  JOIN t2 a2 ON true
  JOIN t1 a3 ON ((a1.i2 + -1) = a3.i5)
WHERE (a3.id < (SELECT min(a5.i5) FROM t1 a5 WHERE (a2.id = a5.id)));
--   ERROR 22003: integer out of range
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: PostgreSQL subplan 1 (plan node 3)
--       Hash Build 0 on (a3.i5)
--     Pipeline 1: Seq Scan on t0 a1
--       Hash Probe 0 (Inner) on ((a1.i2 + '-1'::integer) = a3.i5)
--       Emit rows
--     ->  Nested Loop
--           Join Filter: (a3.id < (pg_catalog.min(a5.i5)))
--           ->  Custom Scan (Themis)
--                 Pipeline 0: Seq Scan on t1 a3
--                   Emit rows
--           ->  Custom Scan (Themis)
--                 Pipeline 0: Seq Scan on t1 a5
--                   Aggregate by (a5.id): min(a5.i5)
--                 Pipeline 1: Aggregate result 0
--                   Hash Build 0 on (a5.id)
--                 Pipeline 2: Seq Scan on t2 a2
--                   Hash Probe 0 (Inner) on (a2.id = a5.id)
--                   Emit rows
SELECT a2.n6 AS c0
FROM t0 a1
  JOIN t2 a2 ON true
  JOIN t1 a3 ON ((a1.i2 + -1) = a3.i5)
WHERE (a3.id < (SELECT min(a5.i5) FROM t1 a5 WHERE (a2.id = a5.id)));
--   0 rows
