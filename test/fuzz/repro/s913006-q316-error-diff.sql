-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 913006 --only 316   (plan variant: default)
-- mismatch: error-diff: off: ERROR 22012: division by zero | on: ERROR 22003: integer out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s913006-q316-error-diff.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t1 CASCADE;
RESET client_min_messages;
CREATE TABLE t1 (i1 int4) WITH (autovacuum_enabled = off);
INSERT INTO t1 (i1) VALUES
('0'),
('2147483647');
ANALYZE t1;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT (a1.i1 / a1.i1) AS c0
FROM t1 a1
WHERE ((a1.i1 + 3) BETWEEN SYMMETRIC 65536 AND (-1));
--   ERROR 22012: division by zero
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t1 a1
--       Filter: ((((a1.i1 + 3) >= 65536) AND ((a1.i1 + 3) <= '-1'::integer)) OR (((a1.i1 + 3) >= '-1'::integer) AND ((a1.i1 + 3) <= 65536)))
--       Emit rows
SELECT (a1.i1 / a1.i1) AS c0
FROM t1 a1
WHERE ((a1.i1 + 3) BETWEEN SYMMETRIC 65536 AND (-1));
--   ERROR 22003: integer out of range
