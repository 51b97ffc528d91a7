-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 912016 --only 195   (plan variant: default)
-- mismatch: error-diff: off: ERROR 22003: integer out of range | on: ERROR 22012: division by zero
-- Run: psql -X -d <a UTF8 database with C collation> -f s912016-q195-error-diff.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t1 CASCADE;
DROP TABLE IF EXISTS t2 CASCADE;
RESET client_min_messages;
CREATE TABLE t1 (id int4, i1 int4, n2 numeric(15,4), ts3 timestamp) WITH (autovacuum_enabled = off);
INSERT INTO t1 (id, i1, n2, ts3) VALUES
('1542', '2', '0', NULL),
('1111', '4', '5.5859', '2000-01-04 21:10:51'),
('6293', '-2147483648', '5.7447', '2000-01-02 08:03:44.500000');
ANALYZE t1;
CREATE TABLE t2 (id int4, i1 int8, n4 numeric(30,0), c7 char(1), i8 int2) WITH (autovacuum_enabled = off);
INSERT INTO t2 (id, i1, n4, c7, i8) VALUES
('1', '111', NULL, 'k', NULL),
('10', '164', NULL, NULL, '0'),
('5', '203', '-72', 'k', '1');
ANALYZE t2;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT sum(round(a2.n4 / a1.n2, 4)) FILTER (WHERE (a3.c7 LIKE '%k%')) AS c0
FROM t1 a1
  JOIN t2 a2 ON ((a1.i1 + -1) = a2.i8)
  JOIN t2 a3 ON (a2.i8 = a3.id)
GROUP BY a1.ts3;
--   ERROR 22003: integer out of range
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t2 a3
--       Hash Build 0 on (a3.id)
--     Pipeline 1: Seq Scan on t2 a2
--       Hash Probe 0 (Inner) on (a2.i8 = a3.id)
--       Hash Build 1 on (a2.i8)
--     Pipeline 2: Seq Scan on t1 a1
--       Hash Probe 1 (Inner) on ((a1.i1 + '-1'::integer) = a2.i8)
--       Aggregate by (a1.ts3): sum(round((a2.n4 / a1.n2), 4)) FILTER (WHERE (a3.c7 ~~ '%k%'::text))
SELECT sum(round(a2.n4 / a1.n2, 4)) FILTER (WHERE (a3.c7 LIKE '%k%')) AS c0
FROM t1 a1
  JOIN t2 a2 ON ((a1.i1 + -1) = a2.i8)
  JOIN t2 a3 ON (a2.i8 = a3.id)
GROUP BY a1.ts3;
--   ERROR 22012: division by zero
