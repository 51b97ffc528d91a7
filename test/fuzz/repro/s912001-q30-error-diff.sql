-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 912001 --only 30   (plan variant: default)
-- mismatch: error-diff: off: ERROR 22012: division by zero | on: ERROR 22008: timestamp out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s912001-q30-error-diff.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t1 CASCADE;
RESET client_min_messages;
CREATE TABLE t1 (f3 float8, f5 float8, ts7 timestamp) WITH (autovacuum_enabled = off);
INSERT INTO t1 (f3, f5, ts7) VALUES
('-0', '3825.0', '1999-11-19 19:00:00'),
('92.75', '273.0', '4714-11-24 00:00:00 BC');
ANALYZE t1;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT (a1.f5 / a1.f3) AS c0
FROM t1 a1
WHERE ((a1.ts7 + interval '-1 day') <> TIMESTAMP '2000-01-26 17:00:00');
--   ERROR 22012: division by zero
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t1 a1
--       Filter: ((a1.ts7 + '-1 days'::interval) <> '2000-01-26 17:00:00'::timestamp without time zone)
--       Emit rows
SELECT (a1.f5 / a1.f3) AS c0
FROM t1 a1
WHERE ((a1.ts7 + interval '-1 day') <> TIMESTAMP '2000-01-26 17:00:00');
--   ERROR 22008: timestamp out of range
