-- themis differential fuzz: minimal reproducer
-- found by (an earlier gen.py: these numbers no longer regenerate it): test/fuzz/fuzz.py --seed 14 --only 287   (plan variant: default)
-- mismatch: extra-error: off: ok (0 rows) | on: ERROR 22008: date out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s14-q287-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t1 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (id int4, i1 int4) WITH (autovacuum_enabled = off);
ANALYZE t0;
CREATE TABLE t1 (id int4, i1 int2, d3 date, i6 int4) WITH (autovacuum_enabled = off);
INSERT INTO t1 (id, i1, d3, i6) VALUES
('2018', '37', '4714-11-24 BC', '-3497'),
('941', '2', '1994-10-03', '-2042'),
('1061', '17', '2005-06-16', '-3497'),
('1835', '54', '2001-08-25', '-2147483647'),
('754', '94', '1995-01-08', NULL),
('41', '70', NULL, NULL),
('2188', '16', '2009-01-17', NULL),
('135', '69', NULL, NULL),
('1341', '37', '2004-09-08', NULL),
('286', '37', '2001-11-27', '-3497'),
('1435', '81', '2007-05-28', NULL),
('1701', '27', '2009-12-02', NULL),
('1912', '7', '2001-05-03', NULL),
('1948', '7', NULL, '-3497');
ANALYZE t1;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a2.i6 AS c0
FROM t0 a1
  JOIN t1 a2 ON (a1.id = a2.i1)
WHERE (a2.d3 >= (a2.d3 - 7));
--   0 rows
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Device: cpu
--     Pipeline 0: Seq Scan on t0 a1
--       Hash Build 0 on (a1.id)
--     Pipeline 1: Seq Scan on t1 a2
--       Filter: (a2.d3 >= (a2.d3 - 7))
--       Hash Probe 0 (Inner) on (a2.i1 = a1.id)
--       Emit rows
SELECT a2.i6 AS c0
FROM t0 a1
  JOIN t1 a2 ON (a1.id = a2.i1)
WHERE (a2.d3 >= (a2.d3 - 7));
--   ERROR 22008: date out of range
