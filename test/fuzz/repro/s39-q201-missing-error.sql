-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 39 --only 201   (plan variant: default)
-- mismatch: missing-error: off: ERROR 22008: date out of range | on: ok (10 rows)
-- Run: psql -X -d <a UTF8 database with C collation> -f s39-q201-missing-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t2 CASCADE;
RESET client_min_messages;
CREATE TABLE t2 (i4 int8, d5 date) WITH (autovacuum_enabled = off);
INSERT INTO t2 (i4, d5) VALUES
(NULL, '2000-05-11'),
('55332', '2000-05-11'),
('85020', '2000-05-11'),
('82117', '2000-05-11'),
('85020', '2002-07-16'),
(NULL, '2000-05-11'),
('65', '5874897-12-31'),
('7682', '2000-05-11'),
(NULL, '2000-05-11'),
('85020', '2002-06-18'),
('85020', '2000-05-11');
ANALYZE t2;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT (a1.d5 - (-30)) AS c0, a1.i4 AS c1
FROM t2 a1
ORDER BY c1 DESC NULLS FIRST, c0 NULLS LAST
LIMIT 10;
--   ERROR 22008: date out of range
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Limit
--     ->  Sort
--           Sort Key: i4 DESC, ((d5 - '-30'::integer))
--           ->  Custom Scan (Themis)
--                 Pipeline 0: Seq Scan on t2 a1
--                   Emit rows
--                 Top-N Rows: 10 by output column 2 (the Sort's first key)
SELECT (a1.d5 - (-30)) AS c0, a1.i4 AS c1
FROM t2 a1
ORDER BY c1 DESC NULLS FIRST, c0 NULLS LAST
LIMIT 10;
--   10 rows
--   2000-06-10 | NULL
--   2000-06-10 | NULL
--   2000-06-10 | NULL
--   2000-06-10 | 85020
--   2000-06-10 | 85020
--   2002-07-18 | 85020
--   2002-08-15 | 85020
--   2000-06-10 | 82117
--   2000-06-10 | 55332
--   2000-06-10 | 7682
