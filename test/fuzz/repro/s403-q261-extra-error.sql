-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 403 --only 261   (plan variant: merge_only)
-- mismatch: extra-error: off: ok (0 rows) | on: ERROR 22003: integer out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s403-q261-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t1 CASCADE;
DROP TABLE IF EXISTS t3 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (i1 int4, t4 text) WITH (autovacuum_enabled = off);
ANALYZE t0;
CREATE TABLE t1 (i1 int4, t2 text) WITH (autovacuum_enabled = off);
INSERT INTO t1 (i1, t2) VALUES
('2147483647', 'k62');
ANALYZE t1;
CREATE TABLE t3 (i1 int8, d3 date) WITH (autovacuum_enabled = off);
INSERT INTO t3 (i1, d3) VALUES
('10', '2000-01-03');
ANALYZE t3;
-- @variant merge_only
SET extra_float_digits = 1;
SET enable_hashjoin = off;
SET enable_nestloop = off;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a1.d3 AS c0
FROM t3 a1
  JOIN t1 a2 ON true
  JOIN t1 a3 ON ((a2.i1 + 1) = a3.i1)
WHERE (a3.i1 IS NULL)
  AND (EXISTS (SELECT 1 FROM t0 a4 WHERE (a3.t2 = a4.t4)));
--   0 rows
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Nested Loop
--     ->  Custom Scan (Themis)
--           Device: cpu
--           Pipeline 0: Seq Scan on t0 a4
--             Hash Build 0 on (a4.t4)
--           Pipeline 1: Seq Scan on t1 a2
--             Hash Build 1 on ((a2.i1 + 1))
--           Pipeline 2: Seq Scan on t1 a3
--             Filter: (a3.i1 IS NULL)
--             Hash Probe 0 (Semi) on (a3.t2 = a4.t4)
--             Hash Probe 1 (Inner) on (a3.i1 = (a2.i1 + 1))
--             Emit rows
--     ->  Custom Scan (Themis)
--           Device: cpu
--           Pipeline 0: Seq Scan on t3 a1
--             Emit rows
SELECT a1.d3 AS c0
FROM t3 a1
  JOIN t1 a2 ON true
  JOIN t1 a3 ON ((a2.i1 + 1) = a3.i1)
WHERE (a3.i1 IS NULL)
  AND (EXISTS (SELECT 1 FROM t0 a4 WHERE (a3.t2 = a4.t4)));
--   ERROR 22003: integer out of range
