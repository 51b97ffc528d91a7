--
-- 12_scan_text: filters on text, varchar, char(n): comparisons (C collation), LIKE, substring,
-- multibyte UTF8, trailing blanks, long (TOASTed) values
--
-- text: trailing blanks are significant
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t = 'abc'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t = 'abc '$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t <> 'abc'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t = ''$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t <> ''$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t < 'b'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t <= 'abc'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t > 'zebra'$$);                -- multibyte sorts after ASCII in C
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t >= 'äöü'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t < 'Z'$$);                    -- upper case first in C
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t BETWEEN 'a' AND 'b'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t IN ('abc', '日本', '', 'über')$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t NOT IN ('abc', 'x', 'yes')$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t = '日本語'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t > '日本' $$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t IS NULL$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t = 'ab\cd'$$);
-- varchar
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE vc = 'alpha'$$);
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE vc = 'alpha '$$);
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE vc < 'alpha'$$);
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE vc > 'gamma'$$);
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE vc IN ('beta', 'éclair', '日本')$$);
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE vc = ''$$);
SELECT * FROM tt.check($$SELECT id, vc FROM edge WHERE vc = 'zzzzzzzzzzzzzzzzzzzz'$$);
-- char(n): trailing blanks are insignificant
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 = 'abc'$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 = 'abc  '$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 = 'abc'::char(3)$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 = ''$$);                 -- '' and ' '
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 = ' '$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 < 'ab'$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 > 'a' AND c10 < 'b'$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 >= 'x y'$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 IN ('a', 'ab', 'ä')$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 <> 'a'$$);
-- mixed string types
SELECT * FROM tt.check($$SELECT id, c10, t FROM types WHERE c10 = t$$);              -- bpchar -> text drops blanks
SELECT * FROM tt.check($$SELECT id, c10, vc FROM types WHERE c10 = vc$$);
SELECT * FROM tt.check($$SELECT id, vc, t FROM types WHERE vc = t$$);
SELECT * FROM tt.check($$SELECT id, vc, t FROM types WHERE vc < t$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10::text = 'abc'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t::char(2) = 'ab'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t::varchar(2) = 'ab'$$);
-- LIKE / NOT LIKE
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE 'ab%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '%b%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '%e'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '_b_'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE 'a_b'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE 'a\_b'$$);               -- escaped _
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '100\%'$$);              -- escaped %
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '%\%%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE 'a#_b' ESCAPE '#'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE 'a\\b'$$);               -- escaped backslash
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE 'a\b' ESCAPE ''$$);      -- no escape character
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE ''$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '%%%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '_'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '__'$$);                -- '日本' is two characters
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '日%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '_本%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '%ö_'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '%caf_'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '%quick%fox'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE 'ABC'$$);               -- case sensitive
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t NOT LIKE '%a%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t NOT LIKE '_%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE '%' OR t IS NULL$$);
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE vc LIKE 'al%pha'$$);
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE vc LIKE 'al\%pha'$$);
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE vc LIKE '%a_'$$);
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE vc NOT LIKE 'a%'$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 LIKE 'abc'$$);            -- bpchar LIKE sees the padding
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 LIKE 'abc%'$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 LIKE 'a _%'$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 LIKE '__________'$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10 LIKE 'a\%%'$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE c10::text LIKE 'abc'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t LIKE vc$$);                  -- pattern from a column
-- substring, length, concatenation, case
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE substring(t FROM 1 FOR 2) = 'ab'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE substr(t, 2) = 'bc'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE substr(t, 2, 1) = '本'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE substr(t, 0, 2) = 'a'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE substr(t, -1, 3) = 'a'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE substring(t FROM 3) = ''$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE substring(t, 5, 100) = 'quick brown fox'$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE substring(c10 FROM 1 FOR 3) = 'abc'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE length(t) > 3$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE length(t) = 2$$);               -- characters, not bytes
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE char_length(t) = 3 AND octet_length(t) > 3$$);
SELECT * FROM tt.check($$SELECT id, c10 FROM types WHERE length(c10) = 3$$);           -- without trailing blanks
SELECT * FROM tt.check($$SELECT id, vc FROM types WHERE length(vc) < 2$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t || 'x' = 'abcx'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE t || vc = 'abalpha'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE upper(t) = 'ZEBRA'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE lower(t) = 'zebra'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE position('b' IN t) = 2$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE strpos(t, '本') > 0$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE left(t, 1) = 'a'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE trim(t) = 'abc'$$);
SELECT * FROM tt.check($$SELECT id, t FROM types WHERE rtrim(t) <> t$$);
-- projections of strings
SELECT * FROM tt.check($$SELECT id, t || '!' AS t1, c10 || '|' AS c1, vc || c10 AS vc1, substr(t, 2, 2) AS s1,
                                length(t) AS l1, octet_length(c10) AS l2, upper(vc) AS u1, c10::text AS c2,
                                t::char(3) AS c3, t::varchar(2) AS v2
                         FROM types WHERE id % 7 = 0$$);
SELECT * FROM tt.check($$SELECT id, c10, vc, t FROM edge$$);

-- long values: compressed inline and out of line (TOAST)
CREATE TABLE longtext (id int4 PRIMARY KEY, t text, vc varchar(10000)) WITH (autovacuum_enabled = off);
INSERT INTO longtext
SELECT i,
       CASE i % 4 WHEN 0 THEN repeat('abc', 2000) || i            -- compressible
                  WHEN 1 THEN (SELECT string_agg(md5(i::text || j), '') FROM generate_series(1, 100) j)  -- 3200 bytes, incompressible
                  WHEN 2 THEN repeat('日本', 1000) || i
                  ELSE 'short ' || i END,
       repeat('x', i * 37)
FROM generate_series(1, 200) i;
ANALYZE longtext;
SELECT * FROM tt.check($$SELECT id, length(t) AS l FROM longtext WHERE t LIKE 'abcabc%'$$);
SELECT * FROM tt.check($$SELECT id, t FROM longtext WHERE t LIKE '%9'$$);
SELECT * FROM tt.check($$SELECT id, t FROM longtext WHERE t LIKE '%本1%'$$);
SELECT * FROM tt.check($$SELECT id FROM longtext WHERE length(t) > 3000 AND length(vc) < 5000$$);
SELECT * FROM tt.check($$SELECT id, t FROM longtext WHERE t > 'f' AND t < 'short'$$);
SELECT * FROM tt.check($$SELECT id, substr(t, 5990, 20) AS s FROM longtext WHERE id % 4 = 0$$);
SELECT * FROM tt.check($$SELECT id, vc FROM longtext WHERE vc = repeat('x', 37 * 150)$$);
SELECT * FROM tt.check($$SELECT * FROM longtext$$);
