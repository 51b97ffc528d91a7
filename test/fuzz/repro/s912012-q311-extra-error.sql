-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 912012 --only 311   (plan variant: default)
-- mismatch: extra-error: off: ok (0 rows) | on: ERROR 22008: date out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s912012-q311-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t2 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (id int4, d7 date) WITH (autovacuum_enabled = off);
INSERT INTO t0 (id, d7) VALUES
('7133', '5874897-12-31');
ANALYZE t0;
CREATE TABLE t2 (id int4, i3 int4, t6 text) WITH (autovacuum_enabled = off);
ANALYZE t2;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a1.t6 AS c0
FROM t2 a1
  JOIN (SELECT a2.d7 AS k, count(*) AS cnt, sum(a2.id) AS s FROM t0 a2 GROUP BY 1) a3 ON (a1.i3 = a3.cnt)
WHERE ((7 + a3.k) <> DATE '2000-01-06');
--   0 rows
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t0 a2
--       Filter: ((a2.d7 + 7) <> '2000-01-06'::date)
--       Aggregate by (a2.d7): count(*)
--     Pipeline 1: Aggregate result 0
--       Hash Build 0 on (count(*))
--     Pipeline 2: Seq Scan on t2 a1
--       Hash Probe 0 (Inner) on (a1.i3 = count(*))
--       Emit rows
SELECT a1.t6 AS c0
FROM t2 a1
  JOIN (SELECT a2.d7 AS k, count(*) AS cnt, sum(a2.id) AS s FROM t0 a2 GROUP BY 1) a3 ON (a1.i3 = a3.cnt)
WHERE ((7 + a3.k) <> DATE '2000-01-06');
--   ERROR 22008: date out of range
