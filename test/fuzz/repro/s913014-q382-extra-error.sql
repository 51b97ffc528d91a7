-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 913014 --only 382   (plan variant: nestloop_only)
-- mismatch: extra-error: off: ok (1 rows) | on: ERROR 22008: timestamp out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s913014-q382-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t1 CASCADE;
DROP TABLE IF EXISTS t5 CASCADE;
RESET client_min_messages;
CREATE TABLE t1 (id int4, i1 int4) WITH (autovacuum_enabled = off);
ANALYZE t1;
CREATE TABLE t5 (id int4, i1 int2, d2 date) WITH (autovacuum_enabled = off);
INSERT INTO t5 (id, i1, d2) VALUES
('377', NULL, '2000-01-03'),
('728', NULL, NULL),
('2444', NULL, '2000-01-08'),
('2490', '10', '2000-01-08'),
('121', NULL, '2000-01-01'),
('1160', NULL, '2000-01-03'),
('2314', '8', '2000-01-11'),
('2299', NULL, '2000-01-11'),
('1104', '1', '2000-01-07'),
('1257', NULL, '2000-01-05'),
('544', '5', '2000-01-09'),
('199', NULL, NULL),
('673', NULL, '2000-01-01'),
('147', NULL, '4714-11-24 BC');
ANALYZE t5;
-- @variant nestloop_only
SET extra_float_digits = 1;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT min(a2.i1) AS c0
FROM t1 a1
  JOIN t5 a2 ON (a1.id = a2.id)
WHERE ((a2.d2 - interval '1 mon 1 day') >= TIMESTAMP '2000-01-02');
--   1 row
--   NULL
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t5 a2
--       Filter: ((a2.d2 - '1 mon 1 day'::interval) >= '2000-01-02 00:00:00'::timestamp without time zone)
--       Hash Build 0 on (a2.id)
--     Pipeline 1: Seq Scan on t1 a1
--       Hash Probe 0 (Inner) on (a1.id = a2.id)
--       Aggregate: min(a2.i1)
SELECT min(a2.i1) AS c0
FROM t1 a1
  JOIN t5 a2 ON (a1.id = a2.id)
WHERE ((a2.d2 - interval '1 mon 1 day') >= TIMESTAMP '2000-01-02');
--   ERROR 22008: timestamp out of range
