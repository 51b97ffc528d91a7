--
-- 11_scan_datetime: filters on date and timestamp; date arithmetic, intervals, EXTRACT
--
-- date comparisons
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d = '2000-02-29'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d = date '2000-02-29'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d <> '2000-02-29' AND d < '1996-03-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d > '2004-02-28'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d >= '2004-12-31'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d < '1996-01-15'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d <= '1996-01-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d BETWEEN '2000-02-01' AND '2000-03-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d NOT BETWEEN '1997-01-01' AND '2004-01-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d IN ('2000-02-29', '1996-02-29', '2004-02-29', '2400-02-29')$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d IS NULL$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d < '1990-01-01' OR d > '2100-01-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM edge WHERE d = 'infinity'$$);
SELECT * FROM tt.check($$SELECT id, d FROM edge WHERE d > '3000-01-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM edge WHERE d < '0001-01-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM edge WHERE d < 'infinity' AND d > '-infinity'$$);
-- timestamp comparisons
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts > '2000-02-29 23:59:59'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts = '2000-02-29 23:59:59.999999'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts >= '2000-02-29' AND ts < '2000-03-01'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts < '1996-01-20 12:00'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts BETWEEN '1999-12-31 12:00' AND '2000-01-01 12:00'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts IN ('2000-02-28 12:00:00', '1970-01-01 00:00:00')$$);
SELECT * FROM tt.check($$SELECT id, ts FROM edge WHERE ts = 'infinity' OR ts = '-infinity'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM edge WHERE ts > '200000-01-01'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM edge WHERE ts < '0001-01-01'$$);
-- date vs timestamp (cross-type)
SELECT * FROM tt.check($$SELECT id, d, ts FROM types WHERE d > ts$$);
SELECT * FROM tt.check($$SELECT id, d, ts FROM types WHERE d = ts$$);
SELECT * FROM tt.check($$SELECT id, d, ts FROM types WHERE d < ts::date$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d >= timestamp '2004-06-30 12:00'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts < date '1996-02-01'$$);
SELECT * FROM tt.check($$SELECT id, d, ts FROM edge WHERE d = ts$$);
-- date +- integer, date - date
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d + 30 < '1996-02-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d - 7 = '2000-02-22'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE 1 + d = '2000-03-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d + i4 > '2004-12-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d + i2 < '1996-01-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d - '1996-01-01'::date > 3280$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE date '2005-01-01' - d BETWEEN 0 AND 10$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE (d - date '2000-01-01') % 7 = 0 AND d < '2000-06-01'$$);
-- date / timestamp +- interval constants
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d + interval '1 month' > '2005-01-31'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d - interval '1 year' < '1995-01-15'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d + interval '1 day' = '2000-03-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d + interval '3 months' BETWEEN '2000-05-29' AND '2000-06-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d < date '1998-12-01' - interval '1000 days'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d >= date '1996-01-01' + interval '2 years 3 months'
                                                   AND d < date '1996-01-01' + interval '2 years 4 months'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts + interval '1 day' < '1996-01-20'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts - interval '2 hours 30 minutes' > '2004-12-31'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts + interval '1 month' = '2000-03-29 23:59:59.999999'$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts + interval '0.5 seconds' >= '2000-03-01'
                                                    AND ts < '2000-03-01'$$);
-- EXTRACT / date_part
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE EXTRACT(year FROM d) = 2000$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE EXTRACT(month FROM d) = 2 AND EXTRACT(day FROM d) = 29$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE EXTRACT(day FROM d) = 31 AND EXTRACT(year FROM d) < 1998$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE EXTRACT(year FROM ts) = 1999 AND EXTRACT(month FROM ts) = 12$$);
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE EXTRACT(hour FROM ts) = 23 AND EXTRACT(year FROM ts) = 2000$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE date_part('year', d) = 2004 AND date_part('month', d) <= 2$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE EXTRACT(dow FROM d) = 0 AND d < '1996-06-01'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE EXTRACT(doy FROM d) = 366$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE EXTRACT(quarter FROM d) = 4 AND EXTRACT(year FROM d) = 2001$$);
-- casts
SELECT * FROM tt.check($$SELECT id, ts FROM types WHERE ts::date = '2000-02-29'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d::timestamp = '2000-02-29 00:00:00'$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d = '2000-02-29'::timestamp$$);
SELECT * FROM tt.check($$SELECT id, d FROM types WHERE d::text LIKE '%2000'$$);
-- projections of dates
SELECT * FROM tt.check($$SELECT id, d + 1 AS d1, d - 1 AS d2, d - date '2000-01-01' AS days, d + interval '1 month' AS m1,
                                ts - interval '1 day' AS ts1, EXTRACT(year FROM d) AS y, EXTRACT(month FROM ts) AS m,
                                d::timestamp AS dts, ts::date AS tsd
                         FROM types WHERE id % 5 = 0$$);
SELECT * FROM tt.check($$SELECT id, d, ts FROM edge$$);
SELECT * FROM tt.check($$SELECT id, d + 1 AS d1, d - 1 AS d2 FROM edge WHERE d IN ('infinity', '-infinity')$$);
