--
-- 24_dependent_keys: themis.dependent_group_keys (src/translate.c, dependent_key).  A group key that is a
-- column of the rows an inner probe matched, where the probe's keys are group keys of integer types and
-- the probed table's keys are unique (an immediate unique index), has one value per group: it is carried
-- by any() instead of being hashed and compared on every row (TPC-H Q3: GROUP BY l_orderkey, o_orderdate,
-- o_shippriority).  The answers are compared with PostgreSQL's; EXPLAIN shows the aggregation's keys.
-- (Off by default: measured slower on the GPU.)
--
SET themis.dependent_group_keys = on;
CREATE TABLE dk_f (id int, ok int, v numeric(12,2));
INSERT INTO dk_f SELECT i, i % 900, (i % 89) * 0.75 FROM generate_series(1, 20000) i;
-- 800 orders, a primary key; some dates NULL
CREATE TABLE dk_o (ok int PRIMARY KEY, d date, p int, name text);
INSERT INTO dk_o SELECT i, CASE WHEN i % 37 = 0 THEN NULL ELSE date '2024-03-01' + i % 40 END, i % 5, 'o' || i
  FROM generate_series(0, 799) i;
-- the same without a unique index
CREATE TABLE dk_on AS SELECT * FROM dk_o;
-- a deferrable primary key: duplicates can exist inside a transaction
CREATE TABLE dk_od (ok int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, d date, p int);
INSERT INTO dk_od SELECT ok, d, p FROM dk_o;
ANALYZE dk_f, dk_o, dk_on, dk_od;

CREATE FUNCTION dk_plan(q text) RETURNS SETOF text LANGUAGE sql
  AS $$ SELECT tt.explain_lines(q, ARRAY['%Aggregate%', '%Hash Probe%', '%Sort Key%']) $$;

CALL tt.device_on();
SET themis.min_rows = 0;
SET themis.fallback = off;

-- o.d and o.p: columns of the dk_o row that f.ok matched, carried by any()
SELECT * FROM dk_plan($$SELECT f.ok, o.d, o.p, sum(f.v), count(*) FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                        GROUP BY f.ok, o.d, o.p$$);
SELECT * FROM tt.check($$SELECT f.ok, o.d, o.p, sum(f.v) AS s, count(*) AS n FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                          GROUP BY f.ok, o.d, o.p$$);
-- keys in another order, one of them not in the output, HAVING on a carried key, a text column too
SELECT * FROM tt.check($$SELECT o.p, f.ok, sum(f.v) AS s FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                          GROUP BY o.p, o.name, f.ok HAVING o.p > 1 AND max(f.id) > 100$$);
-- ordered by the keys, sorted aggregation: the order kept (the carried keys' columns sort as the keys)
SET enable_hashagg = off;
SELECT * FROM dk_plan($$SELECT f.ok, o.d, sum(f.v) FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                        GROUP BY f.ok, o.d ORDER BY f.ok, o.d$$);
SELECT * FROM tt.check_ordered($$SELECT f.ok, o.d, sum(f.v) AS s FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                                  GROUP BY f.ok, o.d ORDER BY f.ok, o.d$$);
SELECT * FROM tt.check_ordered($$SELECT o.d, f.ok, sum(f.v) AS s FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                                  GROUP BY o.d, f.ok ORDER BY o.d NULLS FIRST, f.ok$$);
RESET enable_hashagg;
-- PostgreSQL's parallel plan: a Finalize over Partial aggregations under a Gather
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM dk_plan($$SELECT f.ok, o.d, o.p, sum(f.v), count(*) FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                        GROUP BY f.ok, o.d, o.p$$);
SELECT * FROM tt.check($$SELECT f.ok, o.d, o.p, sum(f.v) AS s, count(*) AS n FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                          GROUP BY f.ok, o.d, o.p$$);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- the setting off: the three keys
SET themis.dependent_group_keys = off;
SELECT * FROM dk_plan($$SELECT f.ok, o.d, o.p, sum(f.v), count(*) FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                        GROUP BY f.ok, o.d, o.p$$);
SELECT * FROM tt.check($$SELECT f.ok, o.d, o.p, sum(f.v) AS s, count(*) AS n FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                          GROUP BY f.ok, o.d, o.p$$);
SET themis.dependent_group_keys = on;

-- no row in: no group; a division by zero in an aggregate, raised as PostgreSQL raises it
SELECT * FROM tt.check($$SELECT f.ok, o.d, o.p, sum(f.v) AS s FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                          WHERE f.id < 0 GROUP BY f.ok, o.d, o.p$$);
SELECT * FROM tt.check_error($$SELECT f.ok, o.d, sum(f.v / (o.p - 2)) AS s FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                                GROUP BY f.ok, o.d$$);
SELECT * FROM tt.check_error($$SELECT f.ok, o.d, sum(f.v / (o.p + 1)) AS s FROM dk_f f JOIN dk_o o ON f.ok = o.ok
                                GROUP BY f.ok, o.d$$);
-- no unique index on dk_on: keys stay
SELECT * FROM dk_plan($$SELECT f.ok, o.d, sum(f.v) FROM dk_f f JOIN dk_on o ON f.ok = o.ok GROUP BY f.ok, o.d$$);
INSERT INTO dk_on VALUES (5, date '2030-01-01', 9, 'dup');
SELECT * FROM tt.check($$SELECT f.ok, o.d, sum(f.v) AS s FROM dk_f f JOIN dk_on o ON f.ok = o.ok GROUP BY f.ok, o.d$$);
-- the probe's key not a group key: o.d stays a key
SELECT * FROM dk_plan($$SELECT o.d, sum(f.v) FROM dk_f f JOIN dk_o o ON f.ok = o.ok GROUP BY o.d$$);
SELECT * FROM tt.check($$SELECT o.d, sum(f.v) AS s FROM dk_f f JOIN dk_o o ON f.ok = o.ok GROUP BY o.d$$);
-- a left join (no match: NULL, not one row): keys stay
SELECT * FROM dk_plan($$SELECT f.ok, o.d, sum(f.v) FROM dk_f f LEFT JOIN dk_o o ON f.ok = o.ok GROUP BY f.ok, o.d$$);
SELECT * FROM tt.check($$SELECT f.ok, o.d, sum(f.v) AS s FROM dk_f f LEFT JOIN dk_o o ON f.ok = o.ok GROUP BY f.ok, o.d$$);
-- a deferrable key with a duplicate inside a transaction: keys stay, two groups for ok 5
BEGIN;
INSERT INTO dk_od VALUES (5, date '2031-01-01', 7);
SELECT * FROM dk_plan($$SELECT f.ok, o.d, sum(f.v) FROM dk_f f JOIN dk_od o ON f.ok = o.ok GROUP BY f.ok, o.d$$);
SELECT * FROM tt.check($$SELECT f.ok, o.d, sum(f.v) AS s FROM dk_f f JOIN dk_od o ON f.ok = o.ok GROUP BY f.ok, o.d$$);
ROLLBACK;

RESET themis.min_rows;
RESET themis.fallback;
DROP FUNCTION dk_plan(text);
DROP TABLE dk_f, dk_o, dk_on, dk_od;
RESET themis.dependent_group_keys;
