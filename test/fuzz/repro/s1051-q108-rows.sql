-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 1051 --only 108   (plan variant: default)
-- mismatch: rows: 1 rows vs 1; missing with themis: [(4623)]; extra with themis: [(9246)]
-- Run: psql -X -d <a UTF8 database with C collation> -f s1051-q108-rows.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t2 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (c2 char(4), i4 int4) WITH (autovacuum_enabled = off);
INSERT INTO t0 (c2, i4) VALUES
('k1', '4623');
CREATE TABLE t2 (v2 varchar(10), i4 int4) WITH (autovacuum_enabled = off);
INSERT INTO t2 (v2, i4) VALUES
('k1', '29'),
('k79', '3'),
('k1 ', '16');
ANALYZE t2;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT sum(a4.i4) AS c0
FROM t0 a4
  JOIN t0 a5 ON true
WHERE (EXISTS (SELECT 1 FROM t2 a6 WHERE (a5.c2 = a6.v2)));
--   1 row
--   4623
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t0 a5
--       Hash Build 0 on (a5.c2)
--     Pipeline 1: PostgreSQL subplan 1 (plan node 3)
--       Hash Probe 0 (Inner) on (a6.v2 = a5.c2)
--       Aggregate: sum(a4.i4)
--     ->  Nested Loop
--           ->  Custom Scan (Themis)
--                 Pipeline 0: Seq Scan on t2 a6
--                   Aggregate by (a6.v2, a6.v2)
--           ->  Custom Scan (Themis)
--                 Pipeline 0: Seq Scan on t0 a4
--                   Emit rows
SELECT sum(a4.i4) AS c0
FROM t0 a4
  JOIN t0 a5 ON true
WHERE (EXISTS (SELECT 1 FROM t2 a6 WHERE (a5.c2 = a6.v2)));
--   1 row
--   9246
