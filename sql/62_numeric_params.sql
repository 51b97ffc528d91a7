--
-- 62_numeric_params: comparisons of typed numeric columns with parameters of no fixed scale
-- (initplan results such as avg(), numeric arguments of prepared statements).  themis compares
-- against the parameter rounded to the column's scale in the direction that keeps the comparison
-- exact; these are the boundary cases.
--
CREATE TABLE np (id int4, x numeric(10,2), y numeric(12,4));
INSERT INTO np SELECT i, (i - 50) * 0.25, (i - 50) * 0.0125 FROM generate_series(1, 100) i;
INSERT INTO np VALUES (101, NULL, NULL), (102, 1.23, 1.2345), (103, -1.23, -1.2345);
ANALYZE np;
-- parameters of several exactness: on a value, between two values, beyond the column's scale, negative
CREATE TABLE np_p (v numeric);
INSERT INTO np_p VALUES (1.23), (1.234), (1.2399999), (-1.23), (-1.234), (0), (-0.001), (12.5), (NULL), (1e-30), (-12.25000000001);
SELECT v, o.* FROM np_p,
  LATERAL (SELECT * FROM tt.check(format($q$SELECT id FROM np WHERE x > (SELECT %s::numeric)$q$, coalesce(v::text, 'NULL')))) o ORDER BY 1;
SELECT v, o.* FROM np_p,
  LATERAL (SELECT * FROM tt.check(format($q$SELECT id FROM np WHERE x >= (SELECT %s::numeric)$q$, coalesce(v::text, 'NULL')))) o ORDER BY 1;
SELECT v, o.* FROM np_p,
  LATERAL (SELECT * FROM tt.check(format($q$SELECT id FROM np WHERE x < (SELECT %s::numeric)$q$, coalesce(v::text, 'NULL')))) o ORDER BY 1;
SELECT v, o.* FROM np_p,
  LATERAL (SELECT * FROM tt.check(format($q$SELECT id FROM np WHERE x <= (SELECT %s::numeric)$q$, coalesce(v::text, 'NULL')))) o ORDER BY 1;
SELECT v, o.* FROM np_p,
  LATERAL (SELECT * FROM tt.check(format($q$SELECT id FROM np WHERE x = (SELECT %s::numeric) OR id > 100$q$, coalesce(v::text, 'NULL')))) o ORDER BY 1;
SELECT v, o.* FROM np_p,
  LATERAL (SELECT * FROM tt.check(format($q$SELECT id, (x <> (SELECT %s::numeric)) AS ne, NOT (x = (SELECT %s::numeric)) AS neq FROM np WHERE y IS NULL OR y > -1$q$, coalesce(v::text, 'NULL'), coalesce(v::text, 'NULL')))) o ORDER BY 1;
-- the parameter on the left, and against an expression of larger scale
SELECT * FROM tt.check($$SELECT id FROM np WHERE (SELECT avg(x) FROM np) < x$$);
SELECT * FROM tt.check($$SELECT id FROM np WHERE x * y >= (SELECT avg(x * y) FROM np)$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(x) AS s FROM np WHERE y > (SELECT avg(y) FROM np) AND x < (SELECT max(x) / 3 FROM np)$$);
-- HAVING with an initplan parameter (PostgreSQL evaluates it over themis' groups)
SELECT * FROM tt.check($$SELECT id % 7 AS g, sum(x) AS s FROM np GROUP BY 1 HAVING sum(x) > (SELECT avg(x) * 3 FROM np)$$);
-- prepared statements: numeric arguments, custom and generic plans
PREPARE np1(numeric) AS SELECT count(*) FROM np WHERE x > $1;
PREPARE np2(numeric) AS SELECT count(*) FROM np WHERE x = $1;
SET plan_cache_mode = force_generic_plan;
CALL tt.themis_on();
EXECUTE np1(1.234); EXECUTE np1(-1.234); EXECUTE np1(1.23); EXECUTE np1(NULL);
EXECUTE np2(1.23); EXECUTE np2(1.230000); EXECUTE np2(1.234); EXECUTE np2(NULL);
CALL tt.themis_reset();
EXECUTE np1(1.234); EXECUTE np1(-1.234); EXECUTE np1(1.23); EXECUTE np1(NULL);
EXECUTE np2(1.23); EXECUTE np2(1.230000); EXECUTE np2(1.234); EXECUTE np2(NULL);
RESET plan_cache_mode;
DEALLOCATE np1;
DEALLOCATE np2;
DROP TABLE np, np_p;
