-- themis differential fuzz: minimal reproducer
-- found by: test/fuzz/fuzz.py --seed 7001 --only 247   (plan variant: default)
-- mismatch: extra-error: off: ok (0 rows) | on: ERROR 42804: attribute 1 of type record has wrong type
-- Run: psql -X -d <a UTF8 database with C collation> -f s7001-q247-extra-error.sql
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS themis;
DROP TABLE IF EXISTS t0 CASCADE;
DROP TABLE IF EXISTS t2 CASCADE;
RESET client_min_messages;
CREATE TABLE t0 (id int4, i1 int2, c2 char(4), f3 float8, i4 int4, t5 text) WITH (autovacuum_enabled = off);
CREATE TABLE t2 (i1 int2, i2 int4, v4 varchar(20), v5 varchar(5)) WITH (autovacuum_enabled = off);
INSERT INTO t2 (i1, i2, v4, v5) VALUES
('3497', '606', 'k13', NULL),
('2387', '428', 'k18', NULL),
('3160', '615', 'k14', 'ZZZ'),
(NULL, '500', 'k31', NULL),
('4132', '823', 'k13', NULL),
('176', '688', 'k11', 'ZZZ'),
('2512', '60', 'k15', 'naïve'),
('2475', '713', 'k11', 'k54'),
('1038', '930', 'k10', 'k54'),
('1521', '176', 'k20', 'ZZZ'),
('3240', '211', 'B', 'ZZZ'),
(NULL, NULL, NULL, 'ZZZ'),
('4608', NULL, 'k17', 'ZZZ'),
('1062', '257', 'k13', 'naïve'),
('3166', '137', 'k18', NULL),
('2626', '662', 'k23', NULL),
(NULL, '809', 'k25', NULL),
(NULL, '689', 'k15', NULL),
('4732', '18', 'k17', NULL),
('3261', '583', 'k28', 'k53'),
('1217', '776', 'k9', NULL),
('2303', '567', 'it''s', 'naïve'),
('2474', NULL, 'k29', NULL),
(NULL, '647', 'k35', 'ZZZ'),
('492', '972', 'k18', NULL),
('4414', NULL, 'k19', 'k55'),
('1318', '329', 'k38', NULL),
('582', '300', 'k17', NULL),
('4125', '182', NULL, NULL),
('2347', '793', 'k27', NULL),
(NULL, '57', 'k32', 'ZZZ'),
('165', '542', '中', 'ZZZ'),
(NULL, '211', 'k30', NULL),
('3298', '579', 'aBc', NULL),
('3613', '398', 'it''s', 'k55'),
(NULL, '641', 'k11', NULL),
('1879', '142', 'k24', NULL),
(NULL, '464', 'k34', 'ZZZ'),
('2901', '539', 'k23', 'k53'),
(NULL, '911', NULL, 'k53'),
(NULL, '706', 'k13', NULL),
('3644', '315', 'k22', NULL),
('2264', '982', 'k29', 'ZZZ'),
(NULL, '975', NULL, NULL),
('1233', '190', 'B', NULL),
('443', '113', 'k30', NULL),
('1608', '769', 'k10', 'ZZZ'),
('3928', '619', 'k32', NULL),
('4464', '9', NULL, NULL),
('3213', '147', 'k26', NULL),
(NULL, '443', 'k14', NULL),
('4317', NULL, 'k28', 'ZZZ'),
('3880', '178', NULL, NULL),
('2793', '488', NULL, NULL),
('419', '144', 'k24', NULL),
('3217', '501', NULL, 'ZZZ'),
('3624', '815', NULL, NULL),
('2892', '686', 'k27', NULL),
(NULL, '494', 'k23', NULL),
('2874', '461', 'k19', NULL),
(NULL, '146', 'İ', 'k54'),
('58', '194', 'k23', 'ZZZ'),
('2800', '541', '中', 'k54'),
('3521', '677', 'k23', NULL),
('4196', '965', 'k11', NULL),
('738', '76', 'k14', NULL),
('276', NULL, 'k15', NULL),
('1802', NULL, 'k27', 'k1 '),
(NULL, '959', NULL, NULL),
(NULL, NULL, 'k11', 'k54'),
('3678', '296', 'k25', NULL),
('1552', '459', NULL, 'ZZZ'),
('3959', '997', 'k29', NULL),
('1', '616', 'k11', NULL),
('4307', '754', 'k33', NULL),
('688', '855', 'k9', 'ZZZ'),
('4498', '363', 'k16', NULL),
('1777', '471', 'k22', NULL),
(NULL, '488', 'k37', NULL),
('4087', '439', 'k11', 'naïve'),
('1060', '345', 'k15', NULL),
('2795', '599', 'k35', NULL),
('2767', '944', 'k10', NULL),
('4973', '719', 'k30', NULL);
ANALYZE t2;
-- @variant default
SET extra_float_digits = 1;
-- PostgreSQL's answer (expected):
SET themis.enabled = off;
SELECT (SELECT count(*) FROM t2 a5 WHERE (a1.i1 = a5.i2)) AS c0
FROM t2 a1, (SELECT a2.t5 AS k, count(*) AS cnt FROM t0 a2 GROUP BY 1) a3
WHERE (a1.v4 = a3.k)
  AND (EXISTS (SELECT 1 FROM t2 a4 WHERE (a1.v4 = a4.v4)))
  AND ((a1.v5 BETWEEN 'ZZZ' AND 'NULL') OR (a3.cnt > (-1)));
--   0 rows
-- themis forced on:
SET themis.enabled = on;
SET themis.device = cpu;
SET themis.min_rows = 0;
SET themis.fallback = off;
-- EXPLAIN (COSTS OFF):
--   Hash Join
--     Hash Cond: ((a1.v4)::text = (((a4.v4)::text))::text)
--     ->  Custom Scan (Themis)
--           Pipeline 0: Seq Scan on t0 a2
--             Aggregate by (a2.t5): count(*)
--           Pipeline 1: Aggregate result 0
--             Hash Build 0 on (a2.t5)
--           Pipeline 2: Seq Scan on t2 a1
--             Hash Probe 0 (Inner) on (a1.v4 = a2.t5) Join Filter: ((((a1.v5)::text >= 'ZZZ'::text) AND ((a1.v5)::text <= 'NULL'::text)) OR (count(*) > '-1'::integer))
--             Emit rows
--     ->  Hash
--           ->  Custom Scan (Themis)
--                 Pipeline 0: Seq Scan on t2 a4
--                   Aggregate by (a4.v4)
--     SubPlan 1
--       ->  Aggregate
--             ->  Seq Scan on t2 a5
--                   Filter: (a1.i1 = i2)
SELECT (SELECT count(*) FROM t2 a5 WHERE (a1.i1 = a5.i2)) AS c0
FROM t2 a1, (SELECT a2.t5 AS k, count(*) AS cnt FROM t0 a2 GROUP BY 1) a3
WHERE (a1.v4 = a3.k)
  AND (EXISTS (SELECT 1 FROM t2 a4 WHERE (a1.v4 = a4.v4)))
  AND ((a1.v5 BETWEEN 'ZZZ' AND 'NULL') OR (a3.cnt > (-1)));
--   ERROR 42804: attribute 1 of type record has wrong type
