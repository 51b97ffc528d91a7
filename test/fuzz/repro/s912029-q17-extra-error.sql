-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 912029 --only 17   (plan variant: no_hashjoin)
-- mismatch: extra-error: off: ok (1 rows) | on: ERROR 22003: integer out of range
-- Run: psql -X -d <a UTF8 database with C collation> -f s912029-q17-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t1 CASCADE;
DROP TABLE IF EXISTS t3 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (id int4, i1 int2) WITH (autovacuum_enabled = off);
INSERT INTO t0 (id, i1) VALUES
('24', '17'),
('276', '40'),
('136', '57');
ANALYZE t0;
CREATE TABLE t1 (id int4, i1 int4, v2 varchar(10), n4 numeric(2,0)) WITH (autovacuum_enabled = off);
INSERT INTO t1 (id, i1, v2, n4) VALUES
('401', '2147483647', 'k50', '3');
ANALYZE t1;
CREATE TABLE t3 (id int4, i1 int4, i3 int2) WITH (autovacuum_enabled = off);
ANALYZE t3;
-- @variant no_hashjoin
SET extra_float_digits = 1;
SET enable_hashjoin = off;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT avg(a4.id) FILTER (WHERE (a1.v2 BETWEEN SYMMETRIC 'İ' AND 'ab')) AS c0
FROM t1 a1
  JOIN t3 a4 ON (a1.n4 = a4.i3)
  JOIN t0 a5 ON ((a1.i1 + 10) = a5.id) AND (a1.n4 = a5.i1);
--   1 row
--   NULL
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Custom Scan (Themis)
--     Pipeline 0: Seq Scan on t0 a5
--       Hash Build 0 on (a5.i1)
--     Pipeline 1: Seq Scan on t1 a1
--       Hash Build 1 on (a1.n4, (a1.i1 + 10))
--     Pipeline 2: Seq Scan on t3 a4
--       Hash Probe 0 (Inner) on (a4.i3 = a5.i1)
--       Hash Probe 1 (Inner) on (a4.i3 = a1.n4 AND a5.id = (a1.i1 + 10))
--       Aggregate: sum(a4.id) FILTER (WHERE ((((a1.v2)::text >= 'İ'::text) AND ((a1.v2)::text <= 'ab'::text)) OR (((a1.v2)::text >= 'ab'::text) AND ((a1.v2)::text <= 'İ'::text)))), count(a4.id) FILTER (WHERE ((((a1.v2)::text >= 'İ'::text) AND ((a1.v2)::text <= 'ab'::text)) OR (((a1.v2)::text >= 'ab'::text) AND ((a1.v2)::text <= 'İ'::text))))
SELECT avg(a4.id) FILTER (WHERE (a1.v2 BETWEEN SYMMETRIC 'İ' AND 'ab')) AS c0
FROM t1 a1
  JOIN t3 a4 ON (a1.n4 = a4.i3)
  JOIN t0 a5 ON ((a1.i1 + 10) = a5.id) AND (a1.n4 = a5.i1);
--   ERROR 22003: integer out of range
