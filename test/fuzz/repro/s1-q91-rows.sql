-- themis differential fuzz: minimal reproducer
-- found by (an earlier gen.py: these numbers no longer regenerate it): test/fuzz/fuzz.py --seed 1 --only 91   (plan variant: default)
-- mismatch: rows: 1 rows vs 1; missing with themis: [(NULL)]; extra with themis: [(9.25)]
-- Run: psql -X -d <a UTF8 database with C collation> -f s1-q91-rows.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t2 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (i1 int2, f4 float8) WITH (autovacuum_enabled = off);
INSERT INTO t0 (i1, f4) VALUES
('1', '9.25');
ANALYZE t0;
CREATE TABLE t2 (i1 int4, i4 int8) WITH (autovacuum_enabled = off);
INSERT INTO t2 (i1, i4) VALUES
('20', '1'),
('4', NULL);
ANALYZE t2;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a1.f4 AS c0
FROM t0 a1
  RIGHT JOIN t2 a2 ON (a1.i1 = a2.i4)
WHERE (a1.i1 IS NULL);
--   1 row
--   NULL
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Device: cpu
--     Pipeline 0: Seq Scan on t0 a1
--       Hash Build 0 on (a1.i1)
--     Pipeline 1: Seq Scan on t2 a2
--       Hash Probe 0 (Anti) on (a2.i4 = a1.i1)
--       Emit rows
SELECT a1.f4 AS c0
FROM t0 a1
  RIGHT JOIN t2 a2 ON (a1.i1 = a2.i4)
WHERE (a1.i1 IS NULL);
--   1 row
--   9.25
