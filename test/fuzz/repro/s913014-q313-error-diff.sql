-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 913014 --only 313   (plan variant: default)
-- mismatch: error-diff: off: ERROR 22012: division by zero | on: ERROR 22003: smallint out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s913014-q313-error-diff.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t3 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (i4 int4, i5 int2) WITH (autovacuum_enabled = off);
INSERT INTO t0 (i4, i5) VALUES
('1', '0'),
('-1', '-32767');
ANALYZE t0;
CREATE TABLE t3 (n5 numeric(18,0)) WITH (autovacuum_enabled = off);
INSERT INTO t3 (n5) VALUES
('4'),
('1'),
('14');
ANALYZE t3;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT sum(DISTINCT (a5.i5 - 21612::int2)) AS c0, sum(a2.k) FILTER (WHERE (((a2.k / a3.i5) + a2.k) < a2.k)) AS c1
FROM (SELECT a1.n5 AS k, count(*) AS cnt FROM t3 a1 GROUP BY 1) a2
  LEFT JOIN t0 a3 ON (a2.k = a3.i4)
  JOIN t0 a5 ON true;
--   ERROR 22012: division by zero
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: PostgreSQL subplan 1 (plan node 1)
--       Aggregate: sum(DISTINCT (a5.i5 - '21612'::smallint)), sum(a1.n5) FILTER (WHERE (((a1.n5 / (a3.i5)::numeric) + a1.n5) < a1.n5))
--     ->  Nested Loop
--           ->  Custom Scan (Themis)
--                 Pipeline 0: Seq Scan on t3 a1
--                   Aggregate by (a1.n5)
--                 Pipeline 1: Seq Scan on t0 a3
--                   Hash Build 0 on (a3.i4)
--                 Pipeline 2: Aggregate result 0
--                   Hash Probe 0 (Left) on (a1.n5 = a3.i4)
--                   Emit rows
--           ->  Custom Scan (Themis)
--                 Pipeline 0: Seq Scan on t0 a5
--                   Emit rows
SELECT sum(DISTINCT (a5.i5 - 21612::int2)) AS c0, sum(a2.k) FILTER (WHERE (((a2.k / a3.i5) + a2.k) < a2.k)) AS c1
FROM (SELECT a1.n5 AS k, count(*) AS cnt FROM t3 a1 GROUP BY 1) a2
  LEFT JOIN t0 a3 ON (a2.k = a3.i4)
  JOIN t0 a5 ON true;
--   ERROR 22003: smallint out of range
