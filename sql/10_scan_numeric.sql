--
-- 10_scan_numeric: seq scans with filters on bool, int2/4/8, float4/8, numeric
--
-- int4
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 = 5$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 <> 5$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 < 0$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 <= -1$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 > 150$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 >= 199$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 BETWEEN 10 AND 20$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 NOT BETWEEN -50 AND 150$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 BETWEEN SYMMETRIC 20 AND 10$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 IN (1, 2, 3, 5, 7)$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 IN (1, 2, NULL)$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 NOT IN (1, 2, 3)$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 NOT IN (1, NULL)$$);           -- no rows
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 = ANY (ARRAY[10, 20, 30])$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i4 <> ALL (ARRAY[10, 20, 30])$$);
SELECT * FROM tt.check($$SELECT id, i4 FROM types WHERE i4 IS NULL$$);
SELECT * FROM tt.check($$SELECT id, i4 FROM types WHERE i4 IS NOT NULL AND i4 < -95$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 = -2147483648$$);            -- no rows
-- int2 / int8 and mixed widths
SELECT * FROM tt.check($$SELECT * FROM types WHERE i2 = 5$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i2 < -90::int2$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i2 >= 95 OR i2 <= -95$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i2 IN (1, 2, 3)$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i8 = 5$$);                      -- not 4294967301
SELECT * FROM tt.check($$SELECT * FROM types WHERE i8 > 4294967296$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i8 < -100$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i8 BETWEEN 100 AND 120$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i8 IN (5, 4294967301)$$);
SELECT * FROM tt.check($$SELECT id, i2, i4 FROM types WHERE i2 = i4$$);
SELECT * FROM tt.check($$SELECT id, i4, i8 FROM types WHERE i4 = i8$$);
SELECT * FROM tt.check($$SELECT id, i4, i8 FROM types WHERE i4 < i8$$);
SELECT * FROM tt.check($$SELECT id, i2, i8 FROM types WHERE i2 >= i8$$);
SELECT * FROM tt.check($$SELECT id, i4, i8 FROM types WHERE i8 <> i4$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i8 > 2147483647$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 > 3000000000$$);                -- int4 vs int8 constant
SELECT * FROM tt.check($$SELECT id FROM types WHERE i2 < 40000 AND i2 > -40000$$);
-- extreme values
SELECT * FROM tt.check($$SELECT id, i2, i4, i8 FROM edge WHERE i4 = 2147483647$$);
SELECT * FROM tt.check($$SELECT id, i2, i4, i8 FROM edge WHERE i4 = -2147483648$$);
SELECT * FROM tt.check($$SELECT id, i2, i4, i8 FROM edge WHERE i8 = -9223372036854775808$$);
SELECT * FROM tt.check($$SELECT id, i2, i4, i8 FROM edge WHERE i8 >= 9223372036854775806$$);
SELECT * FROM tt.check($$SELECT id, i2, i4, i8 FROM edge WHERE i2 < -32766 OR i2 > 32766$$);
SELECT * FROM tt.check($$SELECT id, i2, i4, i8 FROM edge WHERE i8 > i4$$);
SELECT * FROM tt.check($$SELECT id, i2, i4, i8 FROM edge WHERE i8 = 4294967298$$);
-- bool
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE NOT b$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b IS TRUE$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b IS NOT TRUE$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b IS FALSE$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b IS NOT FALSE$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b IS UNKNOWN$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b IS NOT UNKNOWN$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b = true$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b <> false$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b = (i4 > 0)$$);
SELECT * FROM tt.check($$SELECT id, b FROM types WHERE b > false$$);
-- float8
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 = 0$$);                  -- matches -0
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 = '-0'$$);
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 < 0$$);
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 <= 0$$);
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 > 4000$$);               -- includes NaN, Infinity
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 = 'NaN'$$);              -- NaN = NaN in PostgreSQL
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 <> 'NaN'$$);
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 > 'Infinity'$$);         -- NaN only
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 >= 'Infinity'$$);
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 < '-Infinity'$$);        -- no rows
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 <= '-Infinity'$$);
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 <> f8$$);                -- no rows (NaN = NaN)
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 BETWEEN -10.5 AND 10.5$$);
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 IN (0.25, 1.5, 'NaN', '-Infinity')$$);
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 = 1.5$$);
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 > i4$$);
SELECT * FROM tt.check($$SELECT id, f8 FROM types WHERE f8 < n2$$);                 -- float8 vs numeric
-- float4
SELECT * FROM tt.check($$SELECT id, f4 FROM types WHERE f4 = 0$$);
SELECT * FROM tt.check($$SELECT id, f4 FROM types WHERE f4 < -400$$);
SELECT * FROM tt.check($$SELECT id, f4 FROM types WHERE f4 = 'NaN'::float4$$);
SELECT * FROM tt.check($$SELECT id, f4 FROM types WHERE f4 > 400 OR f4 = 0.25$$);
SELECT * FROM tt.check($$SELECT id, f4 FROM types WHERE f4 = 0.75 OR f4 = 0.1$$);    -- float4(0.1) <> float8(0.1)
SELECT * FROM tt.check($$SELECT id, f4, f8 FROM types WHERE f4 = f8$$);
SELECT * FROM tt.check($$SELECT id, f4, f8 FROM types WHERE f4 < f8$$);
SELECT * FROM tt.check($$SELECT id, f4 FROM types WHERE f4 BETWEEN -1 AND 1$$);
SELECT * FROM tt.check($$SELECT id, f4, f8 FROM edge WHERE f4 > 1e38 OR f8 < -1e308$$);
SELECT * FROM tt.check($$SELECT id, f4, f8 FROM edge WHERE f8 > 0 AND f8 < 1e-300$$);
SELECT * FROM tt.check($$SELECT id, f4, f8 FROM edge WHERE f4 > 0 AND f4 < 1e-40$$);
SELECT * FROM tt.check($$SELECT id, f4, f8 FROM edge WHERE f8 = 'Infinity' OR f4 = '-Infinity'$$);
-- numeric
SELECT * FROM tt.check($$SELECT id, n2 FROM types WHERE n2 = 0$$);
SELECT * FROM tt.check($$SELECT id, n2 FROM types WHERE n2 > 9000$$);
SELECT * FROM tt.check($$SELECT id, n2 FROM types WHERE n2 < -0.01$$);
SELECT * FROM tt.check($$SELECT id, n2 FROM types WHERE n2 <= -0.01 AND n2 >= -50$$);
SELECT * FROM tt.check($$SELECT id, n2 FROM types WHERE n2 = 1.5$$);
SELECT * FROM tt.check($$SELECT id, n2 FROM types WHERE n2 = 1.50000$$);
SELECT * FROM tt.check($$SELECT id, n2 FROM types WHERE n2 = 7$$);
SELECT * FROM tt.check($$SELECT id, n2 FROM types WHERE n2 = 0.015$$);              -- no rows
SELECT * FROM tt.check($$SELECT id, n2 FROM types WHERE n2 > 0.005 AND n2 < 0.015$$);
SELECT * FROM tt.check($$SELECT id, n2 FROM types WHERE n2 BETWEEN -1 AND 1$$);
SELECT * FROM tt.check($$SELECT id, n4 FROM types WHERE n4 IN (1.5, 2.5, 7, -0.0001)$$);
SELECT * FROM tt.check($$SELECT id, n4 FROM types WHERE n4 <> 0 AND n4 > -0.001 AND n4 < 0.001$$);
SELECT * FROM tt.check($$SELECT id, n4 FROM types WHERE n4 >= 990$$);
SELECT * FROM tt.check($$SELECT id, n2, n4 FROM types WHERE n2 = n4$$);
SELECT * FROM tt.check($$SELECT id, n2, n4 FROM types WHERE n2 > n4$$);
SELECT * FROM tt.check($$SELECT id, n2, i4 FROM types WHERE n2 > i4$$);
SELECT * FROM tt.check($$SELECT id, n2, i8 FROM types WHERE n2 < i8$$);
SELECT * FROM tt.check($$SELECT id, n2, i2 FROM types WHERE n2 = i2$$);
SELECT * FROM tt.check($$SELECT id, n2, n4 FROM edge WHERE n2 = 9999999999.99 OR n4 = -99999999999.9999$$);
SELECT * FROM tt.check($$SELECT id, n2, n4 FROM edge WHERE n2 > 1000000000 AND n4 > 1000000000$$);
SELECT * FROM tt.check($$SELECT id, n2, n4 FROM edge WHERE n4 > 0.00005 AND n4 < 0.00015$$);
SELECT * FROM tt.check($$SELECT id, n2 FROM edge WHERE n2 < 12345678901234567890$$);  -- constant wider than the column
-- several columns, several types at once
SELECT * FROM tt.check($$SELECT * FROM types WHERE i2 > 0 AND i4 > 0 AND i8 > 0 AND f8 > 0 AND n2 > 0$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE i2 < 0 OR f4 < -450 OR n4 > 950$$);
SELECT * FROM tt.check($$SELECT * FROM types$$);                                    -- no filter
SELECT * FROM tt.check($$SELECT * FROM edge$$);
SELECT * FROM tt.check($$SELECT * FROM empty_types WHERE i4 > 0$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE false$$);
SELECT * FROM tt.check($$SELECT * FROM types WHERE id > 0 AND id < 0$$);
