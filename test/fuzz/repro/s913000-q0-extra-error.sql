-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 913000 --only 0   (plan variant: default)
-- mismatch: extra-error: off: ok (0 rows) | on: ERROR 22003: integer out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s913000-q0-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t1 CASCADE;
DROP TABLE IF EXISTS t2 CASCADE;
RESET client_min_messages;
CREATE TABLE t1 (n3 numeric(8,4), i6 int4) WITH (autovacuum_enabled = off);
ANALYZE t1;
CREATE TABLE t2 (i3 int4, n4 numeric(12,0)) WITH (autovacuum_enabled = off);
INSERT INTO t2 (i3, n4) VALUES
('2147483647', NULL);
ANALYZE t2;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT a1.n4 AS c0
FROM t2 a1
  RIGHT JOIN (SELECT a2.i6 AS k, count(*) AS cnt FROM t1 a2 WHERE (((a2.n3 / nullif(a2.n3, 0)) + a2.n3) <= a2.n3) GROUP BY 1) a3 ON ((a1.i3 + 10) = a3.k);
--   0 rows
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t1 a2
--       Filter: (((a2.n3 / NULLIF(a2.n3, '0'::numeric)) + a2.n3) <= a2.n3)
--       Aggregate by (a2.i6)
--     Pipeline 1: Seq Scan on t2 a1
--       Hash Build 0 on ((a1.i3 + 10))
--     Pipeline 2: Aggregate result 0
--       Hash Probe 0 (Left) on (a2.i6 = (a1.i3 + 10))
--       Emit rows
SELECT a1.n4 AS c0
FROM t2 a1
  RIGHT JOIN (SELECT a2.i6 AS k, count(*) AS cnt FROM t1 a2 WHERE (((a2.n3 / nullif(a2.n3, 0)) + a2.n3) <= a2.n3) GROUP BY 1) a3 ON ((a1.i3 + 10) = a3.k);
--   ERROR 22003: integer out of range
