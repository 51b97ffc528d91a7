-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 305 --only 193   (plan variant: index_paths)
-- mismatch: extra-error: off: ok (1 rows) | on: ERROR 22003: integer out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s305-q193-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t1 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (id int4, i1 int8, v2 varchar(10)) WITH (autovacuum_enabled = off);
ANALYZE t0;
CREATE TABLE t1 (id int4, i1 int4, f4 float8, i5 int2) WITH (autovacuum_enabled = off);
INSERT INTO t1 (id, i1, f4, i5) VALUES
('935', NULL, '3384.75', '19'),
('292', NULL, '693.0', '15'),
('611', '0', '919.0', '6'),
('632', '2147483647', '2661.0', '21'),
('810', '8', NULL, '16'),
('462', '2', NULL, '21'),
('1164', '14', '2171.0', '19'),
('657', '29', '3279.0', '0'),
('881', NULL, NULL, '6'),
('652', '43', '1290.0', '28'),
('895', NULL, '797.0', '30'),
('756', '93', '2291.0', '15'),
('827', NULL, '4085.5', '28'),
('620', NULL, NULL, '11'),
('1108', NULL, '454.75', '10'),
('396', '57', NULL, '26'),
('391', '95', '538.0', '2'),
('460', '33', '2653.0', '-1'),
('461', '82', '4677.0', '30'),
('315', '2', '2787.75', '23'),
('1052', '-2147483647', '2971.0', '0'),
('1001', NULL, '527.0', '7'),
('145', '44', '4241.0', '8'),
('575', NULL, '848.0', '4'),
('415', '39', '2554.0', '4'),
('893', '77', NULL, '13'),
('635', '78', NULL, '14'),
('681', NULL, '1285.0', '10'),
('362', '34', '3282.0', '12');
ANALYZE t1;
-- @variant index_paths
SET extra_float_digits = 1;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_hashjoin = off;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT sum(a1.f4) AS c0
FROM t1 a1
  JOIN t1 a2 ON ((a1.i1 + 10) = a2.i1)
WHERE (EXISTS (SELECT 1 FROM t0 a4 WHERE (a2.i5 = a4.i1) AND (a4.v2 BETWEEN 'k38' AND 'é') AND (a2.i1 < a4.id)));
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
--     Pipeline 0: Seq Scan on t0 a4
--       Filter: (((a4.v2)::text >= 'k38'::text) AND ((a4.v2)::text <= 'é'::text))
--       Hash Build 0 on (a4.i1)
--     Pipeline 1: Seq Scan on t1 a1
--       Hash Build 1 on ((a1.i1 + 10))
--     Pipeline 2: Seq Scan on t1 a2
--       Hash Probe 0 (Semi) on (a2.i5 = a4.i1) Join Filter: (a2.i1 < a4.id)
--       Hash Probe 1 (Inner) on (a2.i1 = (a1.i1 + 10))
--       Aggregate: sum(a1.f4)
SELECT sum(a1.f4) AS c0
FROM t1 a1
  JOIN t1 a2 ON ((a1.i1 + 10) = a2.i1)
WHERE (EXISTS (SELECT 1 FROM t0 a4 WHERE (a2.i5 = a4.i1) AND (a4.v2 BETWEEN 'k38' AND 'é') AND (a2.i1 < a4.id)));
--   ERROR 22003: integer out of range
