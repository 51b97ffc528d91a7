-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 913030 --only 249   (plan variant: no_hashjoin)
-- mismatch: extra-error: off: ok (0 rows) | on: ERROR 22012: division by zero
-- Run: psql -X -d <a UTF8 database with C collation> -f s913030-q249-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t2 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (i1 int2, f3 float8, i4 int2, n6 numeric(22,3)) WITH (autovacuum_enabled = off);
INSERT INTO t0 (i1, f3, i4, n6) VALUES
('246', NULL, '0', '4724');
ANALYZE t0;
CREATE TABLE t2 (i1 int4) WITH (autovacuum_enabled = off);
ANALYZE t2;
-- @variant no_hashjoin
SET extra_float_digits = 1;
SET enable_hashjoin = off;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a2.f3 AS c0
FROM t2 a1
  JOIN t0 a2 ON (a1.i1 = a2.i1)
WHERE ((- (a2.n6 / a2.i4)) <> 1.00);
--   0 rows
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t0 a2
--       Filter: ((- (a2.n6 / (a2.i4)::numeric)) <> 1.00)
--       Hash Build 0 on (a2.i1)
--     Pipeline 1: Seq Scan on t2 a1
--       Hash Probe 0 (Inner) on (a1.i1 = a2.i1)
--       Emit rows
SELECT a2.f3 AS c0
FROM t2 a1
  JOIN t0 a2 ON (a1.i1 = a2.i1)
WHERE ((- (a2.n6 / a2.i4)) <> 1.00);
--   ERROR 22012: division by zero
