--
-- 14_projection: arithmetic and casts in filters and target lists
--
-- integer arithmetic (no overflow in these rows)
SELECT * FROM tt.check($$SELECT id, i4 + i2 AS a, i4 - i8 AS b, i4 * 3 AS c, i4 / 7 AS d, i4 % 7 AS e, -i4 AS f,
                                abs(i4) AS g, i2 * i2 AS h, i8 * 1000000 AS k, i2 + 1 AS l, i2 / 3 AS m
                         FROM types WHERE id <= 1000$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 * 2 + i2 > 300$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 / 7 = 3$$);                    -- truncation toward zero
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 / 7 = -3$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 % 7 = -3$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i8 % 10 = 1 AND i8 - i4 <> 0$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE -i2 > 95$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE abs(i8) > 190$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 * i4 > 39000$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i2 * 1000 < -99000$$);              -- int2 * int4 is int4
SELECT * FROM tt.check($$SELECT id, i2 + i2 AS a, i2 * 100::int2 AS b FROM types WHERE i2 BETWEEN -300 AND 300$$);
-- numeric arithmetic: result scales
SELECT * FROM tt.check($$SELECT id, n2 + n4 AS a, n2 - n4 AS b, n2 * n4 AS c, n2 * 2.5 AS d, n2 - 1.005 AS e,
                                -n2 AS f, abs(n4) AS g, n2 * i4 AS h, n2 + i8 AS k, i4 * 0.01 AS l
                         FROM types$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE n2 * 3 > 25000$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE n2 + n4 < -10000$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE n2 * n4 > 1000000$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE n2 - 0.005 > 9990$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE n4 * 10000 = i4$$);
SELECT * FROM tt.check($$SELECT id, n2 / 4 AS a, n4 / 3 AS b, n2 / n4 AS c FROM types WHERE n4 <> 0$$);
SELECT * FROM tt.check($$SELECT id, round(n2, 1) AS a, round(n4) AS b, trunc(n2) AS c, n2::int4 AS d, n4::numeric(12,2) AS e,
                                n2::numeric(15,4) AS f, i4::numeric(10,2) AS g, n2::float8 AS h, ceil(n4) AS k, floor(n4) AS l
                         FROM types$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE n2::int4 IN (2, 3, 5)$$);             -- rounds half away from zero
SELECT * FROM tt.check($$SELECT id FROM types WHERE n4::numeric(12,2) = n2$$);
SELECT * FROM tt.check($$SELECT id, n2, n4 FROM edge WHERE id IN (1, 2, 3, 4, 6, 8)$$);
SELECT * FROM tt.check($$SELECT id, n2 + n2 AS a, n4 - n4 AS b, n2 * 1000 AS c FROM edge$$);
-- float arithmetic (exact for these values)
SELECT * FROM tt.check($$SELECT id, f8 * 2 AS a, f8 + 0.5 AS b, f8 / 4 AS c, f4 * 2 AS d, f4 + f8 AS e, -f8 AS f,
                                abs(f4) AS g, f4::float8 AS h, i4::float8 / 4 AS k, f8 - f4 AS l
                         FROM types$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE f8 * 2 > 9000$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE f4 + f8 < 0$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE f8 / 2 = 0.125$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE f8 * 0 = 0$$);                    -- NaN and Infinity rows excluded
SELECT * FROM tt.check($$SELECT id FROM types WHERE -f8 = f8$$);
SELECT * FROM tt.check($$SELECT id, f8::int4 AS a, f4::int8 AS b, f8::numeric(15,2) AS c, round(f8) AS d
                         FROM types WHERE f8 BETWEEN -5000 AND 5000 AND f4 BETWEEN -500 AND 500$$);  -- rint: half to even
SELECT * FROM tt.check($$SELECT id, f8 * 2 AS a, f8 / 0.5 AS b, sqrt(abs(f8)) AS c FROM edge WHERE id IN (3, 4, 5, 6, 8)$$);
SELECT * FROM tt.check($$SELECT id, f4, f8, -f4 AS nf4, -f8 AS nf8, f4::float8 AS f48 FROM edge WHERE id IN (3, 4, 5, 6, 8)$$);
SELECT * FROM tt.check($$SELECT id, f8::float4 AS f84 FROM edge WHERE id IN (5, 6, 8)$$);
-- integer <-> other casts
SELECT * FROM tt.check($$SELECT id, i4::int2 AS a, i2::int8 AS b, i8::int4 AS c, i4::float4 AS d, i4::numeric AS e,
                                i2::numeric(5,1) AS f, b::int4 AS g, i4::bool AS h
                         FROM types WHERE id <= 1000$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i8::int4 = 5 AND id <= 1000$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4::int2 = i2$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4::float8 / 3 > 60$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4::numeric / 3 > 60$$);
-- text casts of numbers and dates
SELECT * FROM tt.check($$SELECT id, i4::text AS a, n2::text AS b, d::text AS c, b::text AS e FROM types$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4::text LIKE '1%'$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 = '5'::text::int4$$);
-- constants only, expressions of several columns
SELECT * FROM tt.check($$SELECT id, 1 AS one, 'x'::text AS x, NULL::int4 AS nothing, 2.50 AS n, date '2000-02-29' AS d FROM types WHERE i4 = 5$$);
SELECT * FROM tt.check($$SELECT id, (i4 + i2) * 2 - i8 AS a, (n2 + i4) * n4 AS b, d + (i2 % 10) AS c FROM types WHERE id <= 1000$$);
SELECT * FROM tt.check($$SELECT i4 FROM types WHERE i4 > 190$$);                       -- one column, duplicates
SELECT * FROM tt.check($$SELECT i4 + 1 AS x, i4 - 1 AS y FROM types WHERE i4 < -95$$);
