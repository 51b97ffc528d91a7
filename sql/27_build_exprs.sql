--
-- 27_build_exprs: an expression over an inner join's build-side columns is computed once per build row,
-- where the row is built, instead of once per match (themis.build_exprs, src/translate.c:
-- hoist_build_exprs): the same rows as PostgreSQL with NULL values and keys, duplicate matches and build
-- rows no probe matches; an expression that can raise an error is not moved, since the build would
-- evaluate it for rows PostgreSQL never joins.  EXPLAIN shows what a build computes.
--
CALL tt.device_on();
CREATE TABLE be_dim (id int4, name text, code char(4), x int4, y int4, flag bool);
INSERT INTO be_dim
SELECT g, CASE WHEN g % 7 = 0 THEN NULL WHEN g % 3 = 0 THEN 'PROMO ' || g ELSE 'STD_' || g END,
       CASE WHEN g % 5 = 0 THEN NULL ELSE lpad((g % 13)::text, 4, 'c') END, g % 10,
       CASE WHEN g > 900 THEN 0 ELSE g % 4 + 1 END, CASE WHEN g % 11 = 0 THEN NULL ELSE g % 2 = 0 END
FROM generate_series(1, 1000) g;
INSERT INTO be_dim VALUES (17, 'PROMO dup', 'ccc4', 3, 1, true), (NULL, 'PROMO null key', 'ccc1', 1, 1, false);
-- ids 901-1000 (y = 0) match no fact row
CREATE TABLE be_fact (k int4, v numeric(10,2));
INSERT INTO be_fact SELECT g % 900 + 1, (g % 1000) / 10.0 FROM generate_series(1, 20000) g;
INSERT INTO be_fact VALUES (NULL, 1), (5000, 2);
ANALYZE be_dim;
ANALYZE be_fact;
CALL tt.themis_on();

-- TPC-H Q14's form: the build (be_dim) computes the LIKE and the other tests on its own columns
SELECT line FROM tt.explain_lines($$
SELECT sum(CASE WHEN d.name LIKE 'PROMO%' THEN f.v ELSE 0 END) AS promo, sum(f.v),
       count(*) FILTER (WHERE d.code = 'ccc3') AS c3, count(*) FILTER (WHERE d.flag IS NOT TRUE) AS nflag,
       count(*) FILTER (WHERE d.x IN (1, 3, 5) OR d.name NOT LIKE '%1') AS odd,
       count(*) FILTER (WHERE d.name LIKE 'STD\_1%') AS escaped
FROM be_fact f JOIN be_dim d ON f.k = d.id$$, ARRAY['%Hash Build%', '%Pipeline%']) line;
SELECT * FROM tt.check($$
SELECT sum(CASE WHEN d.name LIKE 'PROMO%' THEN f.v ELSE 0 END) AS promo, sum(f.v),
       count(*) FILTER (WHERE d.code = 'ccc3') AS c3, count(*) FILTER (WHERE d.flag IS NOT TRUE) AS nflag,
       count(*) FILTER (WHERE d.x IN (1, 3, 5) OR d.name NOT LIKE '%1') AS odd,
       count(*) FILTER (WHERE d.name LIKE 'STD\_1%') AS escaped
FROM be_fact f JOIN be_dim d ON f.k = d.id$$);
-- a group key and a NULL-tolerant test
SELECT line FROM tt.explain_lines($$
SELECT d.name LIKE 'PROMO%' AS promo, d.code IS NULL AS nocode, count(*), sum(f.v)
FROM be_fact f JOIN be_dim d ON d.id = f.k GROUP BY 1, 2$$, ARRAY['%Hash Build%']) line;
SELECT * FROM tt.check($$
SELECT d.name LIKE 'PROMO%' AS promo, d.code IS NULL AS nocode, count(*), sum(f.v)
FROM be_fact f JOIN be_dim d ON d.id = f.k GROUP BY 1, 2$$);
-- no fact row matches (empty probe input): the build still computes its columns, no row reaches them
SELECT * FROM tt.check($$
SELECT sum(CASE WHEN d.name LIKE 'PROMO%' THEN f.v ELSE 0 END) AS promo, count(*) FILTER (WHERE d.flag IS NOT TRUE) AS nflag
FROM be_fact f JOIN be_dim d ON f.k = d.id WHERE f.k < 0$$);
-- an expression that can raise an error stays per match: build rows 901-1000 divide by zero, and no
-- fact row matches them
SELECT line FROM tt.explain_lines($$
SELECT sum(CASE WHEN d.x / d.y > 1 THEN f.v END) FROM be_fact f JOIN be_dim d ON d.id = f.k$$,
  ARRAY['%Hash Build%']) line;
SELECT * FROM tt.check($$SELECT sum(CASE WHEN d.x / d.y > 1 THEN f.v END) FROM be_fact f JOIN be_dim d ON d.id = f.k$$);
-- an operator of a user's btree family is not taken as error-free, even where its function is a built-in
-- one (any built-in boolean function can be made such an operator): not moved, the same rows
CREATE OPERATOR #># (LEFTARG = int4, RIGHTARG = int4, PROCEDURE = int4gt);
CREATE OPERATOR FAMILY be_fam USING btree;
ALTER OPERATOR FAMILY be_fam USING btree ADD OPERATOR 5 #># (int4, int4);
SELECT line FROM tt.explain_lines($$
SELECT count(*) FILTER (WHERE d.x #># 4) AS big, count(*) FILTER (WHERE d.x > 4) AS big2
FROM be_fact f JOIN be_dim d ON d.id = f.k$$, ARRAY['%Hash Build%']) line;
SELECT * FROM tt.check($$
SELECT count(*) FILTER (WHERE d.x #># 4) AS big, count(*) FILTER (WHERE d.x > 4) AS big2
FROM be_fact f JOIN be_dim d ON d.id = f.k$$);
DROP OPERATOR FAMILY be_fam USING btree;
DROP OPERATOR #># (int4, int4);
-- an outer join's nullable side is not moved (a missing match is NULL, the expression may not be)
SELECT line FROM tt.explain_lines($$
SELECT count(*) FILTER (WHERE d.name IS NULL) AS noname, sum(CASE WHEN d.flag IS NOT TRUE THEN f.v END)
FROM be_fact f LEFT JOIN be_dim d ON d.id = f.k$$, ARRAY['%Hash Build%']) line;
SELECT * FROM tt.check($$
SELECT count(*) FILTER (WHERE d.name IS NULL) AS noname, sum(CASE WHEN d.flag IS NOT TRUE THEN f.v END)
FROM be_fact f LEFT JOIN be_dim d ON d.id = f.k$$);
-- the build side's reduction (build_reduce.c) still applies to a build that computes such columns: they
-- raise no error either on the rows it drops
CREATE TABLE be_d2 (id int4, s text);
INSERT INTO be_d2 SELECT g, CASE WHEN g % 2 = 0 THEN 'S1 ' || g ELSE 'S2 ' || g END FROM generate_series(0, 9) g;
ANALYZE be_d2;
SET join_collapse_limit = 1;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT line FROM tt.explain_lines($$
SELECT count(*) FILTER (WHERE d.name LIKE 'PROMO1%') AS promo1, sum(f.v)
FROM (be_fact f JOIN be_dim d ON f.k = d.id) JOIN be_d2 e ON e.id = d.x WHERE e.s LIKE 'S1%'$$,
  ARRAY['%Hash Build%', '%reducing%']) line;
SELECT * FROM tt.check($$
SELECT count(*) FILTER (WHERE d.name LIKE 'PROMO1%') AS promo1, sum(f.v)
FROM (be_fact f JOIN be_dim d ON f.k = d.id) JOIN be_d2 e ON e.id = d.x WHERE e.s LIKE 'S1%'$$);
RESET join_collapse_limit;
RESET enable_mergejoin;
RESET enable_nestloop;
DROP TABLE be_d2;

-- themis.build_exprs = off: per match, the same rows
SET themis.build_exprs = off;
SELECT line FROM tt.explain_lines($$
SELECT sum(CASE WHEN d.name LIKE 'PROMO%' THEN f.v ELSE 0 END) FROM be_fact f JOIN be_dim d ON f.k = d.id$$,
  ARRAY['%Hash Build%']) line;
SELECT * FROM tt.check($$SELECT sum(CASE WHEN d.name LIKE 'PROMO%' THEN f.v ELSE 0 END) FROM be_fact f JOIN be_dim d ON f.k = d.id$$);
RESET themis.build_exprs;

DROP TABLE be_fact, be_dim;
CALL tt.themis_reset();
