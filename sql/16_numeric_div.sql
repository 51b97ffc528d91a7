--
-- 16_numeric_div: numeric division in comparisons.  PostgreSQL gives each quotient its own scale
-- (select_div_scale: 16 significant digits, at least the operands' scales) and rounds half away from
-- zero; themis holds quotients at one scale and compares them exactly.  A quotient that would show
-- (output column, aggregate argument, CASE branch, key) stays on PostgreSQL; division by zero is
-- PostgreSQL's error; a quotient themis cannot hold (under 10^-4, or too large) reruns on the CPU plan.
--
CALL tt.device_on();
SET client_min_messages = warning;
-- quotients from about 10^-4 up: q is PostgreSQL's own quotient (its scale is at most 20 here)
CREATE TABLE nd (id int PRIMARY KEY, a numeric(30,6), b numeric(20,3), c int, q numeric(38,20));
INSERT INTO nd (id, a, b, c)
  SELECT i, round((((i * 7919) % 100003) - 50000) * power(10::numeric, (i % 9) - 4), 6),
         round(((((i * 104729) % 9973) + 1) * CASE WHEN i % 3 = 0 THEN -1 ELSE 1 END)
               * power(10::numeric, (i % 4) - 3), 3),
         CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 23) - 5 END
  FROM generate_series(1, 3000) i;
-- keep only quotients of at least 10^-4 in magnitude (or 0), then the edges: a tie at the 17th digit
-- (150001 / 131072 = 1.14441680908203125), its negation, 1 / 3, 2 / 3, NULLs, 0 over a large divisor
DELETE FROM nd WHERE a <> 0 AND abs(a / b) < 0.0001;
INSERT INTO nd (id, a, b, c) VALUES
  (10001, 150001, 131072, 1), (10002, -150001, 131072, 1), (10003, 150001, -131072, 2),
  (10004, 1, 3, 3), (10005, 2, 3, 3), (10006, -2, 3, 3), (10007, NULL, 3, 4), (10008, 5, NULL, 4),
  (10009, 0, 99999999.999, 5), (10010, 0.000001, 0.001, 6), (10011, 999999999999999999999999, 0.001, 7),
  (10012, 50, 7, 8), (10013, 7, 50, 9), (10014, 9999, 10000, 10);
UPDATE nd SET q = a / b WHERE id <> 10011;
ANALYZE nd;
SELECT count(*) AS n, count(*) FILTER (WHERE scale(a / b) = 20) AS s20, count(*) FILTER (WHERE scale(a / b) = 16) AS s16,
       count(*) FILTER (WHERE scale(a / b) NOT IN (16, 20)) AS other FROM nd WHERE id < 10011 OR id > 10011;

-- every quotient equals PostgreSQL's (rounding and scale), as a filter and negated
SELECT * FROM tt.check($$SELECT id FROM nd WHERE a / b = q AND id <> 10011$$);
SELECT * FROM tt.check($$SELECT id FROM nd WHERE a / b <> q AND id <> 10011$$);
SELECT * FROM tt.check($$SELECT id FROM nd WHERE NOT (a / b >= q AND a / b <= q) AND id <> 10011$$);
SELECT * FROM tt.check($$SELECT id, a, b FROM nd WHERE a / b > 1.14441680908203125 AND a / b < 1.1444168090820314 AND id <> 10011$$);
SELECT * FROM tt.check($$SELECT id, a, b FROM nd WHERE (a / b = 1.1444168090820313 OR a / b = -1.1444168090820313) AND id <> 10011$$);
SELECT * FROM tt.check($$SELECT id FROM nd WHERE (a / b = 0.66666666666666666667 OR a / b = -0.66666666666666666667 OR a / b = 0.33333333333333333333) AND id <> 10011$$);
-- through + - * and unary operators, against columns and constants
SELECT * FROM tt.check($$SELECT id, c FROM nd WHERE a / b > c AND id <> 10011$$);
SELECT * FROM tt.check($$SELECT id FROM nd WHERE 0.2 * (a / b) < c AND id <> 10011$$);
SELECT * FROM tt.check($$SELECT id FROM nd WHERE a / b + 1 >= c * 2 - q AND id <> 10011$$);
SELECT * FROM tt.check($$SELECT id FROM nd WHERE -(a / b) < 0 AND abs(a / b) > 100 AND id <> 10011$$);
-- a product of two quotients would need 40 digits after the point: stays on PostgreSQL
SELECT * FROM tt.check($$SELECT id FROM nd WHERE (a / b) * (a / b) > 10000 AND id <> 10011$$);
-- numeric divided by an integer, an integer by a numeric (operands of 1 and up, divisors up to 1000)
CREATE TABLE nd1 AS SELECT * FROM nd WHERE abs(a) >= 1 AND abs(b) <= 1000 AND id <> 10011;
ANALYZE nd1;
SELECT * FROM tt.check($$SELECT id FROM nd1 WHERE a / 7 > b$$);
SELECT * FROM tt.check($$SELECT id FROM nd1 WHERE 1000 / b > c$$);
-- inside CASE conditions and boolean logic
SELECT * FROM tt.check($$SELECT id, CASE WHEN a / b > 10 THEN 'big' WHEN a / b < -10 THEN 'small' ELSE 'mid' END AS k FROM nd WHERE id <> 10011$$);
-- shown quotients: PostgreSQL computes them (same rows, same scales)
SELECT * FROM tt.check($$SELECT id, a / b AS r FROM nd WHERE id <> 10011$$);
SELECT * FROM tt.check($$SELECT c, sum(a / b) AS s, max(a / b) AS m FROM nd WHERE id <> 10011 GROUP BY c$$);
SELECT * FROM tt.check($$SELECT id, coalesce(a / b, 0) AS r FROM nd WHERE c > 3 AND id <> 10011$$);
-- division by zero: PostgreSQL's error; a quotient of NULL is NULL
SELECT * FROM tt.check_error($$SELECT id FROM nd WHERE a / (c - c) > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM nd WHERE a / (b * 0) > 0 AND b IS NOT NULL$$);
SELECT * FROM tt.check($$SELECT id FROM nd WHERE id <> 10011 AND (a / b) IS NULL$$);
-- an empty table; the shared test table (NULLs, duplicates, zeros as divisors: PostgreSQL's error)
SELECT * FROM tt.check($$SELECT id, round(n2 / n4, 3) AS r FROM empty_types WHERE n2 / n4 > 1$$);
SELECT * FROM tt.check($$SELECT g, count(*) AS n, sum(round(n4 / nullif(n2, 0), 6)) AS s FROM types WHERE id <= 1000 GROUP BY g$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE n4 / n2 > 1$$);
SELECT * FROM tt.check($$SELECT id FROM nd WHERE id <> 10011 AND (a / b) IS NOT NULL$$);
-- the quotient of row 10011 (10^27) or of one under 10^-4 cannot be held: the CPU plan answers
SELECT * FROM tt.check_fallback($$SELECT id FROM nd WHERE a / b > 1$$);
SELECT * FROM tt.check_fallback($$SELECT id FROM nd WHERE b / nullif(a, 0) > 0$$);
-- round / trunc / ceil / floor and numeric(p, s) of a quotient: their scale is fixed, so themis computes
-- them (filters, aggregate arguments, group keys; a scan's output columns PostgreSQL projects itself);
-- a quotient directly under them is reduced from its own scale (no fallback for small ones)
SELECT * FROM tt.check($$SELECT c, sum(round(a / b, 4)) AS s, max(trunc(b / nullif(a, 0), 12)) AS m FROM nd WHERE id <> 10011 GROUP BY c$$);
SELECT * FROM tt.check($$SELECT round(b / nullif(a, 0), 5) AS g, count(*) AS n FROM nd WHERE id <> 10011 GROUP BY 1$$);
SELECT * FROM tt.check($$SELECT id FROM nd WHERE round(b / nullif(a, 0), 6) > 0 AND ceil(a / b) < 100 AND id <> 10011$$);
SELECT * FROM tt.check($$SELECT sum((a / b)::numeric(30, 3)) AS s, sum(floor(a / b)) AS f FROM nd WHERE id <> 10011$$);
SELECT * FROM tt.check($$SELECT id, round(a / b, 4) AS r FROM nd WHERE id <> 10011$$);
SELECT * FROM tt.check($$SELECT id, round(b / nullif(a, 0), 9) AS r, trunc(b / nullif(a, 0), 12) AS t FROM nd$$);
SELECT * FROM tt.check($$SELECT id, ceil(a / b) AS c, floor(a / b) AS f, round(a / b) AS r0 FROM nd WHERE id <> 10011$$);
SELECT * FROM tt.check($$SELECT id, (a / b)::numeric(30, 3) AS t FROM nd WHERE id <> 10011$$);
SELECT * FROM tt.check($$SELECT id, round(a / b + 1, 2) AS r FROM nd WHERE id <> 10011$$);
SELECT * FROM tt.check($$SELECT c, round(avg(a), 2) AS av, round(sum(a) / count(*), 5) AS av5 FROM nd1 GROUP BY c$$);
SELECT * FROM tt.check_error($$SELECT id, round(a / (c - c), 2) AS r FROM nd$$);
-- PostgreSQL rounds the quotient to its scale first: 1 / 200.0000000000000000001 is
-- 0.00499999999999999999999750..., 0.00500000000000000000 at scale 20, so round(.., 2) is 0.01
CREATE TABLE nd2 (x numeric(5, 0), y numeric(25, 19));
INSERT INTO nd2 VALUES (1, 200.0000000000000000001), (-1, 200.0000000000000000001), (1, 3), (NULL, 1);
SELECT * FROM tt.check($$SELECT x, y, round(x / y, 2) AS r, trunc(x / y, 2) AS t FROM nd2$$);
SELECT * FROM tt.check($$SELECT x, count(*) AS n FROM nd2 WHERE round(x / y, 2) = 0.01 GROUP BY x$$);
SELECT x, round(x / y, 2) AS r FROM nd2 ORDER BY x, y;
DROP TABLE nd2;
-- aggregates: HAVING over avg, a join with an avg (the shape of TPC-H Q17 after decorrelation)
SELECT * FROM tt.check($$SELECT c, count(*) AS n FROM nd1 GROUP BY c HAVING avg(a) > 100$$);
SELECT * FROM tt.check($$SELECT o.id FROM nd o, (SELECT c, avg(b) AS av FROM nd GROUP BY c) g
                         WHERE o.c = g.c AND o.b < 0.2 * g.av$$);
SELECT * FROM tt.check($$SELECT sum(o.b) AS s FROM nd o WHERE o.b < (SELECT 0.2 * avg(i.b) FROM nd i WHERE i.c = o.c)$$);
SET themis.min_rows = 0;
EXPLAIN (COSTS OFF) SELECT sum(o.b) AS s FROM nd o WHERE o.b < (SELECT 0.2 * avg(i.b) FROM nd i WHERE i.c = o.c);
EXPLAIN (COSTS OFF) SELECT id FROM nd WHERE a / b > c;
EXPLAIN (COSTS OFF) SELECT c, sum(round(a / b, 4)) AS s FROM nd GROUP BY c;
RESET themis.min_rows;
DROP TABLE nd, nd1;
