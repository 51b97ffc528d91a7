--
-- 13_scan_logic: AND / OR / NOT with NULLs (three-valued logic), CASE, COALESCE, NULLIF,
-- GREATEST / LEAST, IS [NOT] DISTINCT FROM
--
SELECT * FROM tt.check($$SELECT id, i4, b FROM types WHERE i4 > 0 AND b$$);
SELECT * FROM tt.check($$SELECT id, i4, b FROM types WHERE i4 > 0 OR b$$);
SELECT * FROM tt.check($$SELECT id, i4 FROM types WHERE NOT (i4 > 0)$$);
SELECT * FROM tt.check($$SELECT id, i4, b FROM types WHERE NOT (i4 > 0 AND b)$$);
SELECT * FROM tt.check($$SELECT id, i4, b FROM types WHERE NOT (i4 > 0 OR b)$$);
SELECT * FROM tt.check($$SELECT id, i4, b FROM types WHERE (i4 > 0 AND b) IS NULL$$);
SELECT * FROM tt.check($$SELECT id, i4, b FROM types WHERE (i4 > 0 OR b) IS NULL$$);
SELECT * FROM tt.check($$SELECT id, i4, b FROM types WHERE (i4 > 0 OR b) IS NOT TRUE$$);
SELECT * FROM tt.check($$SELECT id, i4, b FROM types WHERE (i4 > 0 AND b) IS NOT FALSE$$);
SELECT * FROM tt.check($$SELECT id, i4, b FROM types WHERE (i4 > 0) = b$$);
SELECT * FROM tt.check($$SELECT id, i4, b FROM types WHERE (i4 > 0) <> b$$);
SELECT * FROM tt.check($$SELECT id, i2, t FROM types WHERE NOT b OR i2 IS NULL$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE (i4 > 0 OR i4 IS NULL) AND NOT (t = 'abc')$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE (i2 > 50 AND f8 > 0) OR (i2 < -50 AND f8 < 0) OR (n2 IS NULL AND t LIKE 'a%')$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE NOT (NOT (i4 < 10))$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE (b AND i4 > 0) OR (NOT b AND i4 < 0) OR (b IS NULL AND i4 = 0)$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 > 0 AND i4 < 100 AND i2 > 0 AND i2 < 50 AND t IS NOT NULL AND d > '2000-01-01'$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 = 1 OR i4 = 2 OR i4 = 3 OR i2 = 4 OR i8 = 5 OR t = 'x'$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE b IS DISTINCT FROM (i4 > 0)$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE b IS NOT DISTINCT FROM (i4 > 0)$$);
SELECT * FROM tt.check($$SELECT id, i4, i8 FROM types WHERE i4 IS DISTINCT FROM i8$$);
SELECT * FROM tt.check($$SELECT id, i4, i8 FROM types WHERE i4 IS NOT DISTINCT FROM i8$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t IS NOT DISTINCT FROM NULL$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t IS DISTINCT FROM 'abc'$$);
-- CASE
SELECT * FROM tt.check($$SELECT id FROM types WHERE CASE WHEN i4 > 100 THEN 'big' WHEN i4 > 0 THEN 'pos' ELSE 'other' END = 'pos'$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE CASE WHEN i4 > 100 THEN 'big' WHEN i4 > 0 THEN 'pos' END IS NULL$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE CASE i2 WHEN 1 THEN true WHEN 2 THEN false ELSE b END$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE CASE WHEN b THEN i4 ELSE i2 END > 50$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE CASE WHEN t LIKE 'a%' THEN n2 WHEN t LIKE 'z%' THEN -n2 END > 100$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE CASE WHEN d < '2000-01-01' THEN d + 365 ELSE d END > '2003-06-01'$$);
SELECT * FROM tt.check($$SELECT id, CASE WHEN i4 < 0 THEN 'neg' WHEN i4 = 0 THEN 'zero' WHEN i4 > 0 THEN 'pos' END AS sign,
                                CASE g WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END AS gname,
                                CASE WHEN b THEN f8 ELSE f4 END AS f,
                                CASE WHEN n2 > 0 THEN n2 ELSE n4 END AS n
                         FROM types$$);
-- COALESCE / NULLIF / GREATEST / LEAST
SELECT * FROM tt.check($$SELECT id FROM types WHERE COALESCE(i4, -1) = -1$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE COALESCE(i2, i4, i8) > 190$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE COALESCE(t, c10, 'none') = 'none'$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE COALESCE(b, false)$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE COALESCE(d, '1990-01-01') < '1996-01-05'$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE NULLIF(i4, 5) IS NULL$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE NULLIF(t, '') IS NULL$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE GREATEST(i2, i4) > 150$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE LEAST(i2, i4, i8) < -99$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE GREATEST(n2, n4) < 0$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE LEAST(t, vc) = ''$$);
SELECT * FROM tt.check($$SELECT id, COALESCE(i2, -1) AS a, COALESCE(n2, n4, 0) AS b, COALESCE(t, c10) AS c,
                                NULLIF(i4, 0) AS d, NULLIF(c10, 'a') AS e, GREATEST(f4, f8) AS f, LEAST(d, ts) AS g
                         FROM types$$);
-- filters over constants and parameters-free expressions
SELECT * FROM tt.check($$SELECT id FROM types WHERE true$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE NULL::bool$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 > NULL$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 + 1 > 100 - 1$$);
SELECT * FROM tt.check($$SELECT id FROM types WHERE i4 IN (SELECT 5 UNION ALL SELECT 7)$$);
