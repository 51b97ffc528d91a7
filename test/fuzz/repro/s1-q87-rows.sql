-- themis differential fuzz: minimal reproducer
-- found by (an earlier gen.py: these numbers no longer regenerate it): test/fuzz/fuzz.py --seed 1 --only 87   (plan variant: default)
-- mismatch: rows: 1 rows vs 1; missing with themis: [(NULL)]; extra with themis: [(foo%ba)]
-- Run: psql -X -d <a UTF8 database with C collation> -f s1-q87-rows.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t3 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (id int4) WITH (autovacuum_enabled = off);
INSERT INTO t0 (id) VALUES
('483'),
('510');
ANALYZE t0;
CREATE TABLE t3 (id int4, c3 char(6)) WITH (autovacuum_enabled = off);
INSERT INTO t3 (id, c3) VALUES
('483', 'foo%ba');
ANALYZE t3;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a2.c3 AS c0
FROM t0 a1
  LEFT JOIN t3 a2 ON (a1.id = a2.id)
WHERE (a2.id IS NULL);
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
--     Pipeline 0: Seq Scan on t3 a2
--       Hash Build 0 on (a2.id)
--     Pipeline 1: Seq Scan on t0 a1
--       Hash Probe 0 (Anti) on (a1.id = a2.id)
--       Emit rows
SELECT a2.c3 AS c0
FROM t0 a1
  LEFT JOIN t3 a2 ON (a1.id = a2.id)
WHERE (a2.id IS NULL);
--   1 row
--   foo%ba
