-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 308 --only 227   (plan variant: default)
-- mismatch: extra-error: off: ok (0 rows) | on: ERROR 22003: bigint out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s308-q227-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t1 CASCADE;
DROP TABLE IF EXISTS t2 CASCADE;
DROP TABLE IF EXISTS t3 CASCADE;
RESET client_min_messages;
CREATE TABLE t1 (id int4, i1 int2) WITH (autovacuum_enabled = off);
INSERT INTO t1 (id, i1) VALUES
('333', '-2955');
ANALYZE t1;
CREATE TABLE t2 (id int4, i1 int4, f4 float8) WITH (autovacuum_enabled = off);
ANALYZE t2;
CREATE TABLE t3 (id int4, i1 int8) WITH (autovacuum_enabled = off);
INSERT INTO t3 (id, i1) VALUES
('408', '-9223372036854775808');
ANALYZE t3;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a3.f4 AS c0
FROM t3 a1
  JOIN t1 a2 ON ((a1.i1 + -1) = a2.id)
  RIGHT JOIN t2 a3 ON (a1.id = a3.i1);
--   0 rows
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Device: cpu
--     Pipeline 0: Seq Scan on t1 a2
--       Hash Build 0 on (a2.id)
--     Pipeline 1: Seq Scan on t3 a1
--       Hash Probe 0 (Inner) on ((a1.i1 + '-1'::integer) = a2.id)
--       Hash Build 1 on (a1.id)
--     Pipeline 2: Seq Scan on t2 a3
--       Hash Probe 1 (Left) on (a3.i1 = a1.id)
--       Emit rows
SELECT a3.f4 AS c0
FROM t3 a1
  JOIN t1 a2 ON ((a1.i1 + -1) = a2.id)
  RIGHT JOIN t2 a3 ON (a1.id = a3.i1);
--   ERROR 22003: bigint out of range
