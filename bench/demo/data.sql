-- bench/demo/data.sql — fills the tables of schema.sql with a TPC-H-shaped dataset of about scale
-- factor 0.1: region 5, nation 25, supplier 1,000, customer 15,000, part 20,000, partsupp 80,000,
-- orders 150,000, lineitem about 600,000.  Values are pseudo-random but deterministic (hashes of the row
-- number), so every run produces the same data.  Then primary keys and ANALYZE.

\set ON_ERROR_STOP on

-- uniform pseudo-random double in [0, 1) from a row key and a stream number
CREATE FUNCTION demo_rand(k bigint, s integer) RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT (pg_catalog.hashint8extended(k, s) & 9007199254740991)::double precision / 9007199254740992.0 $$;

-- uniform pseudo-random integer in [lo, hi]
CREATE FUNCTION demo_int(k bigint, s integer, lo integer, hi integer) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT lo + floor(demo_rand(k, s) * (hi - lo + 1))::integer $$;

-- a pseudo-random word
CREATE FUNCTION demo_word(k bigint, s integer) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT (ARRAY['furiously', 'quickly', 'carefully', 'blithely', 'slyly', 'ironic', 'final', 'pending',
	'regular', 'special', 'express', 'bold', 'even', 'silent', 'unusual', 'close', 'daring', 'fluffy',
	'requests', 'deposits', 'packages', 'accounts', 'instructions', 'theodolites', 'pinto', 'beans',
	'foxes', 'ideas', 'dependencies', 'excuses', 'platelets', 'asymptotes', 'courts', 'dolphins',
	'sleep', 'wake', 'haggle', 'nag', 'use', 'boost'])[1 + floor(demo_rand(k, s) * 40)::integer] $$;

INSERT INTO region VALUES
	(0, 'AFRICA', 'lar deposits. blithely final packages cajole'),
	(1, 'AMERICA', 'hs use ironic, even requests'),
	(2, 'ASIA', 'ges. thinly even pinto beans ca'),
	(3, 'EUROPE', 'ly final courts cajole furiously final excuse'),
	(4, 'MIDDLE EAST', 'uickly special accounts cajole carefully blithely close requests');

INSERT INTO nation (n_nationkey, n_name, n_regionkey, n_comment)
SELECT k, name, rk, demo_word(k, 1) || ' ' || demo_word(k, 2) || ' ' || demo_word(k, 3)
FROM (VALUES (0, 'ALGERIA', 0), (1, 'ARGENTINA', 1), (2, 'BRAZIL', 1), (3, 'CANADA', 1),
			 (4, 'EGYPT', 4), (5, 'ETHIOPIA', 0), (6, 'FRANCE', 3), (7, 'GERMANY', 3), (8, 'INDIA', 2),
			 (9, 'INDONESIA', 2), (10, 'IRAN', 4), (11, 'IRAQ', 4), (12, 'JAPAN', 2), (13, 'JORDAN', 4),
			 (14, 'KENYA', 0), (15, 'MOROCCO', 0), (16, 'MOZAMBIQUE', 0), (17, 'PERU', 1),
			 (18, 'CHINA', 2), (19, 'ROMANIA', 3), (20, 'SAUDI ARABIA', 4), (21, 'VIETNAM', 2),
			 (22, 'RUSSIA', 3), (23, 'UNITED KINGDOM', 3), (24, 'UNITED STATES', 1)) AS n(k, name, rk);

INSERT INTO supplier
SELECT i,
	   'Supplier#' || lpad(i::text, 9, '0'),
	   demo_word(i, 1) || ' ' || demo_int(i, 2, 1, 9999) || ' ' || demo_word(i, 3),
	   nk,
	   (nk + 10) || '-' || demo_int(i, 5, 100, 999) || '-' || demo_int(i, 6, 100, 999) || '-' || demo_int(i, 7, 1000, 9999),
	   round((-999.99 + demo_rand(i, 8) * 10999.98)::numeric, 2),
	   demo_word(i, 9) || ' ' || demo_word(i, 10) || ' ' || demo_word(i, 11) || ' ' || demo_word(i, 12)
FROM (SELECT i, demo_int(i, 4, 0, 24) AS nk FROM generate_series(1, 1000) AS i) AS s;

INSERT INTO customer
SELECT i,
	   'Customer#' || lpad(i::text, 9, '0'),
	   demo_word(i, 1) || ' ' || demo_int(i, 2, 1, 9999) || ' ' || demo_word(i, 3),
	   nk,
	   (nk + 10) || '-' || demo_int(i, 5, 100, 999) || '-' || demo_int(i, 6, 100, 999) || '-' || demo_int(i, 7, 1000, 9999),
	   round((-999.99 + demo_rand(i, 8) * 10999.98)::numeric, 2),
	   (ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'])[demo_int(i, 9, 1, 5)],
	   demo_word(i, 10) || ' ' || demo_word(i, 11) || ' ' || demo_word(i, 12) || ' ' || demo_word(i, 13)
FROM (SELECT i, demo_int(i, 4, 0, 24) AS nk FROM generate_series(1, 15000) AS i) AS c;

INSERT INTO part
SELECT i,
	   demo_word(i, 1) || ' ' || demo_word(i, 2) || ' ' || demo_word(i, 3),
	   'Manufacturer#' || m,
	   'Brand#' || m || demo_int(i, 5, 1, 5),
	   (ARRAY['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'])[demo_int(i, 6, 1, 6)] || ' ' ||
	   (ARRAY['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'])[demo_int(i, 7, 1, 5)] || ' ' ||
	   (ARRAY['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'])[demo_int(i, 8, 1, 5)],
	   demo_int(i, 9, 1, 50),
	   (ARRAY['SM', 'LG', 'MED', 'JUMBO', 'WRAP'])[demo_int(i, 10, 1, 5)] || ' ' ||
	   (ARRAY['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'])[demo_int(i, 11, 1, 8)],
	   ((90000 + ((i / 10) % 20001) + 100 * (i % 1000)) / 100.0)::numeric(15,2),
	   demo_word(i, 12) || ' ' || demo_word(i, 13)
FROM (SELECT i, demo_int(i, 4, 1, 5) AS m FROM generate_series(1, 20000) AS i) AS p;

-- 4 suppliers per part (the TPC-H formula, so that lineitem's (partkey, suppkey) exist here)
INSERT INTO partsupp
SELECT p, ((p + j * (250 + (p - 1) / 1000)) % 1000) + 1,
	   demo_int(p * 4 + j, 1, 1, 9999),
	   round((1.0 + demo_rand(p * 4 + j, 2) * 999.0)::numeric, 2),
	   demo_word(p * 4 + j, 3) || ' ' || demo_word(p * 4 + j, 4) || ' ' || demo_word(p * 4 + j, 5)
FROM generate_series(1, 20000) AS p, generate_series(0, 3) AS j;

-- orders without status and total price (they come from the lineitems)
CREATE TEMP TABLE orders_base AS
SELECT i AS o_orderkey,
	   demo_int(i, 1, 1, 15000) AS o_custkey,
	   date '1992-01-01' + demo_int(i, 2, 0, 2404) AS o_orderdate,
	   (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[demo_int(i, 3, 1, 5)] AS o_orderpriority,
	   'Clerk#' || lpad(demo_int(i, 4, 1, 100)::text, 9, '0') AS o_clerk,
	   demo_word(i, 5) || ' ' || demo_word(i, 6) || ' ' || demo_word(i, 7) AS o_comment,
	   demo_int(i, 8, 1, 7) AS nlines
FROM generate_series(1, 150000) AS i;

INSERT INTO lineitem
SELECT o_orderkey, pk,
	   ((pk + demo_int(lk, 2, 0, 3) * (250 + (pk - 1) / 1000)) % 1000) + 1,
	   ln,
	   qty,
	   (qty * ((90000 + ((pk / 10) % 20001) + 100 * (pk % 1000)) / 100.0))::numeric(15,2),
	   demo_int(lk, 4, 0, 10) / 100.0,
	   demo_int(lk, 5, 0, 8) / 100.0,
	   CASE WHEN receipt <= date '1995-06-17'
			THEN (ARRAY['R', 'A'])[demo_int(lk, 6, 1, 2)] ELSE 'N' END,
	   CASE WHEN ship > date '1995-06-17' THEN 'O' ELSE 'F' END,
	   ship, commitd, receipt,
	   (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[demo_int(lk, 7, 1, 4)],
	   (ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[demo_int(lk, 8, 1, 7)],
	   demo_word(lk, 9) || ' ' || demo_word(lk, 10) || ' ' || demo_word(lk, 11)
FROM (SELECT o.o_orderkey, ln, lk,
			 demo_int(lk, 1, 1, 20000) AS pk,
			 demo_int(lk, 3, 1, 50)::numeric(15,2) AS qty,
			 o.o_orderdate + demo_int(lk, 12, 1, 121) AS ship,
			 o.o_orderdate + demo_int(lk, 13, 30, 90) AS commitd,
			 o.o_orderdate + demo_int(lk, 12, 1, 121) + demo_int(lk, 14, 1, 30) AS receipt
	  FROM orders_base AS o,
		   LATERAL generate_series(1, o.nlines) AS ln,
		   LATERAL (SELECT o.o_orderkey::bigint * 8 + ln AS lk) AS k) AS l;

INSERT INTO orders
SELECT b.o_orderkey, b.o_custkey,
	   CASE WHEN l.nf = l.n THEN 'F' WHEN l.nf = 0 THEN 'O' ELSE 'P' END,
	   l.total, b.o_orderdate, b.o_orderpriority, b.o_clerk, 0, b.o_comment
FROM orders_base AS b
JOIN (SELECT l_orderkey, count(*) AS n, count(*) FILTER (WHERE l_linestatus = 'F') AS nf,
			 sum(l_extendedprice * (1 + l_tax) * (1 - l_discount))::numeric(15,2) AS total
	  FROM lineitem GROUP BY l_orderkey) AS l ON l.l_orderkey = b.o_orderkey;

DROP TABLE orders_base;
DROP FUNCTION demo_word(bigint, integer);
DROP FUNCTION demo_int(bigint, integer, integer, integer);
DROP FUNCTION demo_rand(bigint, integer);

ALTER TABLE region ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation ADD PRIMARY KEY (n_nationkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE part ADD PRIMARY KEY (p_partkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);

VACUUM ANALYZE;
