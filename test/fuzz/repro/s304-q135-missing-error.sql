-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 304 --only 135   (plan variant: no_seqscan)
-- mismatch: missing-error: off: ERROR 22003: bigint out of range | on: ok (1 rows)
-- Run: psql -X -d <a UTF8 database with C collation> -f s304-q135-missing-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t1 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (i1 int4, b4 bool) WITH (autovacuum_enabled = off);
ANALYZE t0;
CREATE TABLE t1 (i1 int8, n2 numeric(8,6), i4 int2, i5 int8) WITH (autovacuum_enabled = off);
INSERT INTO t1 (i1, n2, i4, i5) VALUES
('0', '99.507022', '5', '9223372036854775807');
ANALYZE t1;
-- @variant no_seqscan
SET extra_float_digits = 1;
SET enable_seqscan = off;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT count(DISTINCT a1.n2) AS c0
FROM t1 a1, t0 a2
WHERE (a1.i4 = a2.i1)
  AND ((a1.i5 + 10) = a2.i1)
  AND (a2.b4 NOT IN (SELECT a3.b4 FROM t0 a3));
--   ERROR 22003: bigint out of range
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Device: cpu
--     Pipeline 0: PostgreSQL subplan 1 (plan node 5)
--       Hash Build 0 on (a2.i1)
--     Pipeline 1: Seq Scan on t1 a1
--       Filter: (a1.i4 = (a1.i5 + 10))
--       Hash Probe 0 (Inner) on (a1.i4 = a2.i1)
--       Aggregate: count(DISTINCT a1.n2)
--     ->  Seq Scan on t0 a2
--           Filter: (NOT (hashed SubPlan 1))
--           SubPlan 1
--             ->  Custom Scan (Themis)
--                   Device: cpu
--                   Pipeline 0: Seq Scan on t0 a3
--                     Emit rows
SELECT count(DISTINCT a1.n2) AS c0
FROM t1 a1, t0 a2
WHERE (a1.i4 = a2.i1)
  AND ((a1.i5 + 10) = a2.i1)
  AND (a2.b4 NOT IN (SELECT a3.b4 FROM t0 a3));
--   1 row
--   0
