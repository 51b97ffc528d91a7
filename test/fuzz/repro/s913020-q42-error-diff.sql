-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 913020 --only 42   (plan variant: default)
-- mismatch: error-diff: off: ERROR 22012: division by zero | on: ERROR 22003: integer out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s913020-q42-error-diff.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t1 CASCADE;
DROP TABLE IF EXISTS t2 CASCADE;
RESET client_min_messages;
CREATE TABLE t1 (id int4, i1 int8) WITH (autovacuum_enabled = off);
INSERT INTO t1 (id, i1) VALUES
('1039', '1');
ANALYZE t1;
CREATE TABLE t2 (id int4 PRIMARY KEY, i1 int4, i5 int4, n6 numeric(1,1)) WITH (autovacuum_enabled = off);
INSERT INTO t2 (id, i1, i5, n6) VALUES
('162', '171', NULL, '0'),
('598', '267', NULL, '0.5'),
('903', '215', NULL, '0'),
('237', '2147483647', NULL, '0'),
('1099', '-137', NULL, '0'),
('1094', '224', '29', '-0.2'),
('912', '12', NULL, '-0.4'),
('555', '278', NULL, '-0.8'),
('1366', '143', NULL, '0.0'),
('146', '243', NULL, '0'),
('1356', '196', NULL, '0.2'),
('1272', '221', NULL, '0.1'),
('938', '270', NULL, '0.1'),
('147', '48', '82', '0'),
('1096', '-7', NULL, '0.0'),
('824', '31', NULL, '0'),
('306', '112', '222', '0.9');
ANALYZE t2;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a1.n6 AS c0
FROM t2 a1
  JOIN t2 a2 ON ((a1.i1 + 10) = a2.i1) AND (a1.id = a2.i5) AND ((a2.n6 / a2.n6) <= a2.n6)
  JOIN t1 a3 ON true
WHERE (a2.id IN (SELECT a4.id FROM t1 a4 WHERE (a2.i1 <= a4.id)));
--   ERROR 22012: division by zero
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Nested Loop
--     ->  Custom Scan (Themis)
--           Pipeline 0: Seq Scan on t2 a1
--             Hash Build 0 on ((a1.i1 + 10), a1.id)
--           Pipeline 1: PostgreSQL subplan 1 (plan node 2)
--             Hash Probe 0 (Inner) on (a2.i1 = (a1.i1 + 10) AND a2.i5 = a1.id)
--             Emit rows
--           ->  Seq Scan on t2 a2
--                 Filter: (((n6 / n6) <= n6) AND (SubPlan 1))
--                 SubPlan 1
--                   ->  Seq Scan on t1 a4
--                         Filter: (a2.i1 <= id)
--     ->  Custom Scan (Themis)
--           Pipeline 0: Seq Scan on t1 a3
--             Emit rows
SELECT a1.n6 AS c0
FROM t2 a1
  JOIN t2 a2 ON ((a1.i1 + 10) = a2.i1) AND (a1.id = a2.i5) AND ((a2.n6 / a2.n6) <= a2.n6)
  JOIN t1 a3 ON true
WHERE (a2.id IN (SELECT a4.id FROM t1 a4 WHERE (a2.i1 <= a4.id)));
--   ERROR 22003: integer out of range
