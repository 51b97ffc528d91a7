-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 912022 --only 155   (plan variant: default)
-- mismatch: extra-error: off: ok (0 rows) | on: ERROR 22008: timestamp out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s912022-q155-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t1 CASCADE;
DROP TABLE IF EXISTS t4 CASCADE;
RESET client_min_messages;
CREATE TABLE t1 (c2 char(4), n4 numeric(2,2), ts5 timestamp, v6 varchar(200)) WITH (autovacuum_enabled = off);
INSERT INTO t1 (c2, n4, ts5, v6) VALUES
('kk', '0.40', '2000-01-01 16:00:00', 'İ'),
(NULL, '0.60', '294276-12-31 23:59:59.999999', 'k86'),
('ba', '0', '2000-01-01 05:00:00', 'İ'),
('k83', '0', '2000-01-01 07:00:00', 'k84');
CREATE INDEX t1_ix0 ON t1 (c2);
ANALYZE t1;
CREATE TABLE t4 (i2 int8) WITH (autovacuum_enabled = off);
ANALYZE t4;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a2.v6 AS c0
FROM t1 a1, t1 a2
WHERE (a1.c2 = a2.c2)
  AND (EXISTS (SELECT 1 FROM t4 a3 WHERE (a1.n4 = a3.i2)))
  AND ((a2.ts5 + interval '1 mon 1 day') <> TIMESTAMP '2000-01-01 18:00:00');
--   0 rows
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t4 a3
--       Hash Build 0 on (a3.i2)
--     Pipeline 1: Seq Scan on t1 a2
--       Filter: ((a2.ts5 + '1 mon 1 day'::interval) <> '2000-01-01 18:00:00'::timestamp without time zone)
--       Hash Build 1 on (a2.c2)
--     Pipeline 2: Seq Scan on t1 a1
--       Hash Probe 0 (Semi) on (a1.n4 = a3.i2)
--       Hash Probe 1 (Inner) on (a1.c2 = a2.c2)
--       Emit rows
SELECT a2.v6 AS c0
FROM t1 a1, t1 a2
WHERE (a1.c2 = a2.c2)
  AND (EXISTS (SELECT 1 FROM t4 a3 WHERE (a1.n4 = a3.i2)))
  AND ((a2.ts5 + interval '1 mon 1 day') <> TIMESTAMP '2000-01-01 18:00:00');
--   ERROR 22008: timestamp out of range
