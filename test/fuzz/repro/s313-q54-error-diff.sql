-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 313 --only 54   (plan variant: default)
-- mismatch: error-diff: off: ERROR 22003: bigint out of range | on: ERROR 22012: division by zero
-- Run: psql -X -d <a UTF8 database with C collation> -f s313-q54-error-diff.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t3 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (id int4, t2 text, i3 int4) WITH (autovacuum_enabled = off);
INSERT INTO t0 (id, t2, i3) VALUES
('1928', 'k108', '76');
ANALYZE t0;
CREATE TABLE t3 (id int4, t2 text, i3 int8) WITH (autovacuum_enabled = off);
INSERT INTO t3 (id, t2, i3) VALUES
('2036', 'k26', '0'),
('1880', 'K0', '-9223372036854775808');
ANALYZE t3;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT max((a1.id % a1.i3)) AS c0
FROM t3 a1
WHERE (NOT EXISTS (SELECT 1 FROM t0 a3 WHERE (a1.i3 = a3.id) AND (a3.id <> a3.id)))
GROUP BY a1.t2
HAVING (count((- a1.i3)) = 0);
--   ERROR 22003: bigint out of range
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Filter: ((pg_catalog.count((- i3))) = 0)
--     Device: cpu
--     Pipeline 0: Seq Scan on t0 a3
--       Filter: (a3.id <> a3.id)
--       Hash Build 0 on (a3.id)
--     Pipeline 1: Seq Scan on t3 a1
--       Hash Probe 0 (Anti) on (a1.i3 = a3.id)
--       Aggregate by (a1.t2): max(((a1.id)::bigint % a1.i3)), count((- a1.i3))
SELECT max((a1.id % a1.i3)) AS c0
FROM t3 a1
WHERE (NOT EXISTS (SELECT 1 FROM t0 a3 WHERE (a1.i3 = a3.id) AND (a3.id <> a3.id)))
GROUP BY a1.t2
HAVING (count((- a1.i3)) = 0);
--   ERROR 22012: division by zero
