-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 1000 --only 255   (plan variant: default)
-- mismatch: missing-error: off: ERROR 22003: integer out of range | on: ok (0 rows)
-- (themis asked for a fallback with fallback = off: GPU: pipeline 2: pipeline_kernel: out of memory (cudaErrorMemoryAllocation); compared with fallback = on)
-- Run: psql -X -d <a UTF8 database with C collation> -f s1000-q255-missing-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t3 CASCADE;
DROP TABLE IF EXISTS t5 CASCADE;
RESET client_min_messages;
CREATE TABLE t3 (id int4, i3 int4) WITH (autovacuum_enabled = off);
INSERT INTO t3 (id, i3) VALUES
('13431', '-2147483648');
ANALYZE t3;
CREATE TABLE t5 (id int4, i2 int4) WITH (autovacuum_enabled = off);
ANALYZE t5;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a1.i3 AS c0
FROM t3 a1
WHERE ((a1.i3 * 36) < (SELECT max(a4.i2) FROM t5 a4 WHERE (a1.i3 = a4.id)));
--   ERROR 22003: integer out of range
-- themis forced on:
SET themis.enabled = on;
SET themis.device = gpu;
SET themis.min_rows = 0;
SET themis.fallback = on;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t5 a4
--       Aggregate by (a4.id): max(a4.i2)
--     Pipeline 1: Aggregate result 0
--       Hash Build 0 on (a4.id)
--     Pipeline 2: Seq Scan on t3 a1
--       Hash Probe 0 (Inner) on (a1.i3 = a4.id) Join Filter: ((a1.i3 * 36) < pg_catalog.max(a4.i2))
--       Emit rows
SELECT a1.i3 AS c0
FROM t3 a1
WHERE ((a1.i3 * 36) < (SELECT max(a4.i2) FROM t5 a4 WHERE (a1.i3 = a4.id)));
--   0 rows
