--
-- 40_errors: run-time errors must be PostgreSQL's (same SQLSTATE and message), and expressions that
-- PostgreSQL does not evaluate (short-circuit AND / OR, CASE branches, FILTER, rows removed by a
-- filter) must not raise errors either.  Each query can fail in one way only, so the error does
-- not depend on the order in which rows are processed.
--
-- integer overflow in filters
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i4 + 2147483600 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i4 - 2147483600 < 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i4 * 100000000 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i2 + 32700::int2 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i2 * 1000::int2 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i8 * 4611686018427387904 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE i8 + 1 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE i8 - 1 < 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE -i4 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE -i2 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE abs(i8) > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE i4 / -1 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE i8 / -1 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE i2 / -1::int2 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE i4 % -1 = 0$$);                        -- no error: 0
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE i8 % -1 = 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE i4 + i2 > 0$$);                        -- int4 + int2
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE i4 + i8 > 0$$);                        -- int4 + int8
-- integer overflow in target lists
SELECT * FROM tt.check_error($$SELECT id, i4 * 100000000 AS x FROM types$$);
SELECT * FROM tt.check_error($$SELECT id, i4 + 2147483600 AS x FROM types WHERE i4 > 40$$);
SELECT * FROM tt.check_error($$SELECT id, i4 + 2147483600 AS x FROM types WHERE i4 < 40$$);      -- ok
SELECT * FROM tt.check_error($$SELECT id, i2 + i2 AS x FROM edge$$);
SELECT * FROM tt.check_error($$SELECT id, i8 * 2 AS x FROM edge$$);
SELECT * FROM tt.check_error($$SELECT id, i8 * 2 AS x FROM edge WHERE i8 BETWEEN -4611686018427387904 AND 4611686018427387903$$);  -- ok
-- division by zero
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE 100 / i4 > 1$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i4 % (i2 - i2) = 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i8 / (i4 - i4) > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i2 / (i2 - i2) > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE n2 / (n4 - n4) > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE n2 % (n4 - n4) > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE f8 / (f4 - f4) > 0 AND id <= 1000$$);
SELECT * FROM tt.check_error($$SELECT id, 1000 / i4 AS x FROM types$$);
SELECT * FROM tt.check_error($$SELECT id, n2 / i2 AS x FROM types$$);
SELECT * FROM tt.check_error($$SELECT id, f8 / i4 AS x FROM types$$);
-- expressions PostgreSQL does not evaluate
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i4 <> 0 AND 100 / i4 > 1$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i4 = 0 OR 100 / i4 > 1$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i4 IS NULL OR i4 = 0 OR 1000 / i4 < 10$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE CASE WHEN i4 = 0 THEN false ELSE 100 / i4 > 1 END$$);
SELECT * FROM tt.check_error($$SELECT id, CASE WHEN i4 = 0 THEN 0 ELSE 100 / i4 END AS x FROM types$$);
SELECT * FROM tt.check_error($$SELECT id, CASE WHEN i4 <> 0 THEN 100 / i4 END AS x, CASE WHEN i4 = 0 THEN NULL ELSE 100 % i4 END AS y FROM types$$);
SELECT * FROM tt.check_error($$SELECT id, 100 / i4 AS x FROM types WHERE i4 <> 0$$);
SELECT * FROM tt.check_error($$SELECT id, 100 / NULLIF(i4, 0) AS x FROM types$$);
SELECT * FROM tt.check_error($$SELECT id, COALESCE(i4, 100 / (i2 - i2)) AS x FROM types WHERE i4 IS NOT NULL$$);
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE id > 4 AND id <> 6 AND id <> 7 AND i8 * 2 <> 0$$);      -- ok
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE id <> 3 AND d + 1 > '2000-01-01'$$);                   -- ok
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE (i4 > 0 AND i4 < 1000000000) AND i4 * 2 > 0$$);       -- ok
-- aggregates
SELECT * FROM tt.check_error($$SELECT sum(i4 * 100000000) AS s FROM types$$);
SELECT * FROM tt.check_error($$SELECT g, sum(i4 * 100000000) AS s FROM types GROUP BY g$$);
SELECT * FROM tt.check_error($$SELECT sum(100 / i4) AS s FROM types$$);
SELECT * FROM tt.check_error($$SELECT sum(100 / i4) FILTER (WHERE i4 <> 0) AS s FROM types$$);   -- ok
SELECT * FROM tt.check_error($$SELECT g, max(100 / i4) FILTER (WHERE i4 <> 0) AS m, count(*) AS n FROM types GROUP BY g$$);  -- ok
SELECT * FROM tt.check_error($$SELECT sum(i8 * 2) AS s FROM edge$$);
SELECT * FROM tt.check_error($$SELECT sum(i8) AS s, sum(i4) AS s4, sum(i2) AS s2 FROM edge$$);     -- ok: no overflow
SELECT * FROM tt.check_error($$SELECT sum(abs(f8)) AS s FROM edge WHERE id IN (1, 2)$$);          -- float8 overflow
SELECT * FROM tt.check_error($$SELECT sum(abs(f4)) AS s FROM edge WHERE id IN (1, 2)$$);          -- float4 overflow
SELECT * FROM tt.check_error($$SELECT sum(f8) AS s FROM edge WHERE id IN (1, 6)$$);               -- ok: Infinity
SELECT * FROM tt.check_error($$SELECT avg(f8) AS a FROM edge WHERE id IN (1, 3)$$);               -- overflow in avg's sum of squares
SELECT * FROM tt.check_error($$SELECT count(*) AS n FROM types GROUP BY 100 / i4$$);
SELECT * FROM tt.check_error($$SELECT g, count(*) AS n FROM types GROUP BY g HAVING 100 / (count(*) - count(*)) > 0$$);
SELECT * FROM tt.check_error($$SELECT g, sum(i4) / (count(*) - count(*)) AS x FROM types GROUP BY g$$);
SELECT * FROM tt.check_error($$SELECT g, sum(i4) / count(i2) AS x FROM types WHERE g IS NOT NULL GROUP BY g$$);  -- ok
SELECT * FROM tt.check_error($$SELECT min(i4 + 2147483600) AS m FROM types WHERE i4 < 0$$);     -- ok
-- date / timestamp range
SELECT * FROM tt.check_error($$SELECT id, d + 1 AS x FROM edge$$);
SELECT * FROM tt.check_error($$SELECT id, d - 1 AS x FROM edge$$);                              -- ok: 4714-12-31 BC exists
SELECT * FROM tt.check_error($$SELECT id FROM edge WHERE d + 1 > '2000-01-01'$$);
SELECT * FROM tt.check_error($$SELECT id, ts + interval '1 day' AS x FROM edge$$);
SELECT * FROM tt.check_error($$SELECT id, ts - interval '1 day' AS x FROM edge WHERE id <> 3$$);
SELECT * FROM tt.check_error($$SELECT id, d - date '2000-01-01' AS x FROM edge$$);               -- cannot subtract infinite dates
SELECT * FROM tt.check_error($$SELECT id, d + interval '1 day' AS x FROM edge WHERE id = 3$$);  -- date out of range for timestamp
SELECT * FROM tt.check_error($$SELECT id, d + interval '1 day' AS x FROM edge WHERE id <> 3$$); -- ok, infinities stay
SELECT * FROM tt.check_error($$SELECT id, d + 1 AS x, d - 1 AS y FROM edge WHERE id IN (1, 2, 5, 6)$$);  -- ok
-- casts
SELECT * FROM tt.check_error($$SELECT id, i8::int4 AS x FROM types$$);
SELECT * FROM tt.check_error($$SELECT id, i4::int2 AS x FROM edge$$);
SELECT * FROM tt.check_error($$SELECT id, f8::int4 AS x FROM types WHERE f8 = 'NaN'$$);
SELECT * FROM tt.check_error($$SELECT id, f8::int8 AS x FROM types WHERE f8 = 'Infinity'$$);
SELECT * FROM tt.check_error($$SELECT id, n2::int2 AS x FROM edge$$);
SELECT * FROM tt.check_error($$SELECT id, (n2 * 100)::numeric(12,2) AS x FROM edge$$);          -- numeric field overflow
SELECT * FROM tt.check_error($$SELECT id, f8::float4 AS x FROM edge WHERE id = 1$$);            -- overflow
SELECT * FROM tt.check_error($$SELECT id, f8::float4 AS x FROM edge WHERE id = 3$$);            -- underflow
SELECT * FROM tt.check_error($$SELECT id, f8 * 1e10 AS x FROM edge WHERE id = 1$$);
SELECT * FROM tt.check_error($$SELECT id, f8 * 0.1 AS x FROM edge WHERE id = 3$$);              -- underflow
SELECT * FROM tt.check_error($$SELECT id, t::int4 AS x FROM types WHERE t = 'abc'$$);           -- invalid input syntax
SELECT * FROM tt.check_error($$SELECT id, vc::char(2) AS x, t::varchar(1) AS y FROM types$$);    -- ok: explicit casts truncate
-- strings
SELECT * FROM tt.check_error($$SELECT id, substr(t, 1, -1) AS x FROM types$$);                 -- negative substring length
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE substr(t, 2, i2) = 'b'$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE t LIKE 'abc\'$$);                    -- pattern ends with escape
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE t LIKE 'qqq\'$$);                    -- ok: no row gets that far
-- errors in joins
SELECT * FROM tt.check_error($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 / (jl.v - jl.v) = jr.k1$$);
SELECT * FROM tt.check_error($$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND jl.v * 3000000 > jr.w$$);
SELECT * FROM tt.check_error($$SELECT jl.id AS lid, jr.id AS rid, jl.v * 3000000 AS x FROM jl JOIN jr ON jl.k1 = jr.k1$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n FROM jl WHERE EXISTS (SELECT 1 FROM jr WHERE jr.k1 = jl.k1 AND jr.w * 3000000 > 0)$$);
SELECT * FROM tt.check_error($$SELECT jl.id AS lid, 100 / jr.k1 AS x FROM jl LEFT JOIN jr ON jl.k1 = jr.k1$$);   -- ok: jr.k1 >= 20
-- the lowest row's error where the warps each run a fixed share of the rows (themis.gpu_dynamic_rows)
SET themis.gpu_dynamic_rows = off;
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE i4 * 100000000 > 0$$);
SELECT * FROM tt.check_error($$SELECT id FROM types WHERE 100 / i4 > 1$$);
RESET themis.gpu_dynamic_rows;
