--
-- 01_schema: a small deterministic dataset.
--   types            every supported type, NULLs, duplicates, special values (ids > 1000)
--   edge             extreme values of every type (limits, infinities)
--   jl, jr           join inputs: NULL keys, duplicates on both sides, several key types
--   empty_types, region/nation/supplier/customer/part/partsupp/orders/lineitem (TPC-H shaped, ~SF 0.01)
--   lineitem_empty, orders_empty
-- All values come from generate_series and md5-based pseudo-random numbers: the same on every run.
-- Autovacuum is off on every table and statistics cover every row, so plans are stable.
--

-- pseudo-random non-negative int from (seed, i)
CREATE FUNCTION tt.h(seed int, i int) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT (('x' || substr(md5(seed::text || ':' || i::text), 1, 8))::bit(32)::int) & 2147483647 $$;

-- pseudo-random int in [lo, hi]
CREATE FUNCTION tt.r(seed int, i int, lo int, hi int) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT lo + tt.h(seed, i) % (hi - lo + 1) $$;

-- k-th word of a fixed list (k >= 0, wraps)
CREATE FUNCTION tt.word(k int) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT (ARRAY['furiously','special','requests','deposits','accounts','packages','regular',
                 'express','pending','ironic','final','quickly','carefully','blithely','slyly',
                 'bold','even','unusual','theodolites','pinto','beans','foxes','ideas',
                 'instructions','dependencies','platelets','asymptotes','courts','dolphins',
                 'multipliers','sauternes','warthogs','frets','dinos','attainments','somas',
                 'Tiresias','patterns','forges','braids','hockey','players','frays','warhorses',
                 'dugouts','notornis','epitaphs','pearls','tithes','waters','orbits','gifts',
                 'sheaves','depths','sentiments','decoys','realms','pains','grouches','escapades'])[1 + k % 60] $$;

-- n pseudo-random words
CREATE FUNCTION tt.words(seed int, i int, n int) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT string_agg(tt.word(tt.h(seed + j, i)), ' ' ORDER BY j) FROM generate_series(1, n) j $$;

---------------------------------------------------------------------------------------------------
-- types
---------------------------------------------------------------------------------------------------
CREATE TABLE types (
    id   int4 PRIMARY KEY,
    g    int4,              -- small group id, some NULL
    b    bool,
    i2   int2,
    i4   int4,
    i8   int8,
    f4   float4,            -- normal rows: multiples of 0.25 (sums are exact in any order)
    f8   float8,
    n2   numeric(12,2),
    n4   numeric(15,4),
    d    date,
    ts   timestamp,
    c10  char(10),
    vc   varchar(20),
    t    text
) WITH (autovacuum_enabled = off);

INSERT INTO types
SELECT i,
       CASE WHEN tt.h(1, i) % 17 = 0 THEN NULL ELSE tt.h(1, i) % 10 END,
       CASE tt.h(2, i) % 3 WHEN 0 THEN true WHEN 1 THEN false END,
       CASE WHEN tt.h(3, i) % 20 = 0 THEN NULL ELSE tt.r(103, i, -100, 100) END,
       CASE WHEN tt.h(4, i) % 20 = 0 THEN NULL ELSE tt.r(104, i, -100, 199) END,
       CASE WHEN tt.h(5, i) % 20 = 0 THEN NULL ELSE tt.r(105, i, -100, 199) END,
       CASE WHEN tt.h(6, i) % 20 = 0 THEN NULL ELSE tt.r(106, i, -2000, 2000) / 4.0 END,
       CASE WHEN tt.h(7, i) % 20 = 0 THEN NULL ELSE tt.r(107, i, -20000, 20000) / 4.0 END,
       CASE WHEN tt.h(8, i) % 20 = 0 THEN NULL ELSE tt.r(108, i, -1000000, 1000000) / 100.0 END,
       CASE WHEN tt.h(9, i) % 20 = 0 THEN NULL ELSE tt.r(109, i, -10000000, 10000000) / 10000.0 END,
       CASE WHEN tt.h(10, i) % 20 = 0 THEN NULL ELSE date '1996-01-01' + tt.r(110, i, 0, 3300) END,
       CASE WHEN tt.h(11, i) % 20 = 0 THEN NULL
            ELSE timestamp '1996-01-01' + tt.r(111, i, 0, 3300) * interval '1 day'
                 + tt.r(211, i, 0, 86399) * interval '1 second'
                 + (tt.h(311, i) % 4) * interval '250 milliseconds' END,
       CASE WHEN tt.h(12, i) % 20 = 0 THEN NULL
            ELSE (ARRAY['', 'a', 'ab', 'abc', 'abc  ', 'B', 'x y', 'zz', 'ä', 'Ünter', 'a%b', 'a_b'])[1 + tt.h(112, i) % 12] END,
       CASE WHEN tt.h(13, i) % 20 = 0 THEN NULL
            ELSE (ARRAY['', 'alpha', 'beta', 'gamma', 'delta', 'alpha ', 'Alpha', 'al%pha', 'ALPHA_1', 'éclair', '日本', 'z'])[1 + tt.h(113, i) % 12] END,
       CASE WHEN tt.h(14, i) % 20 = 0 THEN NULL
            ELSE (ARRAY['', ' ', 'a', 'abc', 'abc ', 'abd', 'ab', 'äöü', 'Äpfel', '日本', '日本語', 'naïve café',
                        '100%', '50% off', 'a_b', 'a\b', 'line', 'lime', 'ZEBRA', 'zebra', 'x', 'yes', 'no',
                        'the quick brown fox', 'über'])[1 + tt.h(114, i) % 25] END
FROM generate_series(1, 1000) i;

-- special rows (id > 1000) that no arithmetic in the tests can overflow: NaN, +-Infinity, -0,
-- leap days, blanks, multibyte text, an all-NULL row, an int8 that equals an int4 modulo 2^32
INSERT INTO types VALUES
 (1001, 0,    true,  0,  0,  0,            'NaN',       'NaN',       0,     0,       '2000-02-29', '2000-02-29 23:59:59.999999', ' ',          ' ',      ' '),
 (1002, 1,    false, -1, -1, -1,           '-0',        '-0',        -0.01, -0.0001, '2000-03-01', '2000-03-01 00:00:00',        'a',          'a',      'a'),
 (1003, 1,    NULL,  1,  1,  1,            'Infinity',  'Infinity',  0.01,  0.0001,  '2000-02-28', '2000-02-28 12:00:00',        'a ',         'a ',     'a '),
 (1004, 2,    true,  5,  5,  4294967301,   '-Infinity', '-Infinity', 1.5,   1.5,     '1999-12-31', '1999-12-31 23:59:59',        'abc',        'abc',    'abc'),
 (1005, 2,    false, 5,  5,  -4294967291,  0.25,        0.25,        -1.5,  -1.5,    '1900-02-28', '1900-02-28 00:00:00',        'abc       ', 'abc   ', 'abc   '),
 (1006, NULL, NULL,  NULL, NULL, NULL,     NULL,        NULL,        NULL,  NULL,    NULL,         NULL,                         NULL,         NULL,     NULL),
 (1007, NULL, true,  7,  7,  7,            0.25,        0.25,        7.00,  7.0000,  '2004-02-29', '2004-02-29 00:00:00',        '日本',       '日本',   '日本'),
 (1008, 5,    NULL,  2,  2,  2,            '-0',        '-0',        2.50,  2.5000,  '1996-02-29', '1996-02-29 00:00:00',        '%',          '%',      '%'),
 (1009, 5,    false, 3,  3,  3,            'NaN',       'NaN',       3.00,  3.0000,  '1970-01-01', '1970-01-01 00:00:00',        '_',          '_',      '_'),
 (1010, 6,    true,  4,  4,  4,            1.5,         1.5,         4.00,  4.0000,  '2400-02-29', '2400-02-29 00:00:00',        'ab\cd',      'ab\cd',  'ab\cd'),
 (1011, 3,    NULL,  100, 100, 100,        -1.5,        -1.5,        99.99, 99.9999, '2000-01-01', '2000-01-01 00:00:01',        'äöü',        'äöü',    'äöü');

-- extreme values of every type: comparisons, min/max, joins and overflow tests
CREATE TABLE edge (LIKE types INCLUDING ALL) WITH (autovacuum_enabled = off);
INSERT INTO edge VALUES
 (1, 0,    true,  32767,  2147483647,  9223372036854775807,  3.4028235e38,  1.7976931348623157e308,  9999999999.99,  99999999999.9999, 'infinity',      'infinity',  'zzzzzzzzzz', 'zzzzzzzzzzzzzzzzzzzz', 'zzzz'),
 (2, 0,    false, -32768, -2147483648, -9223372036854775808, -3.4028235e38, -1.7976931348623157e308, -9999999999.99, -99999999999.9999, '-infinity',    '-infinity', '',           '',                     ''),
 (3, 1,    true,  32766,  2147483646,  9223372036854775806,  1e-45,         5e-324,                  0.01,           0.0001,           '5874897-12-31', '294276-12-31 23:59:59.999999', 'a', 'a', 'a'),
 (4, 1,    false, -32767, -2147483647, -9223372036854775807, -1e-45,        -5e-324,                 -0.01,          -0.0001,          '4713-01-01 BC', '4713-11-24 00:00:00 BC', 'b', 'b', 'b'),
 (5, 2,    NULL,  0,      0,           0,                    'NaN',         'NaN',                   0,              0,                '2000-01-01',    '2000-01-01 00:00:00', 'c', 'c', 'c'),
 (6, 2,    true,  16384,  1073741824,  4611686018427387904,  'Infinity',    'Infinity',              5000000000.00,  50000000000.0000, '1999-12-31',    '1999-12-31 23:59:59.999999', 'd', 'd', 'd'),
 (7, NULL, NULL,  NULL,   NULL,        NULL,                 NULL,          NULL,                    NULL,           NULL,             NULL,            NULL, NULL, NULL, NULL),
 (8, 3,    false, 2,      2,           4294967298,           '-Infinity',   '-Infinity',             -5000000000.00, -50000000000.0000, '2000-02-29',   '2000-02-29 12:34:56.789', 'e', 'e', 'e');

CREATE TABLE empty_types (LIKE types INCLUDING ALL) WITH (autovacuum_enabled = off);

---------------------------------------------------------------------------------------------------
-- join inputs
---------------------------------------------------------------------------------------------------
CREATE TABLE jl (
    id  int4 PRIMARY KEY,
    k1  int4,
    k2  text,
    k8  int8,
    kn  numeric(10,2),
    kd  date,
    kc  char(6),
    kv  varchar(10),
    v   int4
) WITH (autovacuum_enabled = off);

CREATE TABLE jr (
    id  int4 PRIMARY KEY,
    k1  int4,
    k2  text,
    k8  int8,
    kn  numeric(12,4),
    kd  timestamp,
    kc  char(8),
    kv  text,
    w   int4
) WITH (autovacuum_enabled = off);

INSERT INTO jl
SELECT i,
       CASE WHEN tt.h(21, i) % 15 = 0 THEN NULL ELSE tt.r(121, i, 0, 49) END,
       CASE WHEN tt.h(22, i) % 12 = 0 THEN NULL ELSE (ARRAY['a','b','c','d','e','äx'])[1 + tt.h(122, i) % 6] END,
       CASE WHEN tt.h(23, i) % 15 = 0 THEN NULL ELSE tt.r(123, i, 0, 59) END,
       CASE WHEN tt.h(24, i) % 15 = 0 THEN NULL ELSE tt.r(124, i, 0, 59) / 2.0 END,
       CASE WHEN tt.h(25, i) % 15 = 0 THEN NULL ELSE date '2000-02-20' + tt.r(125, i, 0, 20) END,
       CASE WHEN tt.h(26, i) % 15 = 0 THEN NULL ELSE (ARRAY['a','a ','b','bb','c  c','日本'])[1 + tt.h(126, i) % 6] END,
       CASE WHEN tt.h(27, i) % 15 = 0 THEN NULL ELSE (ARRAY['a','a ','b','bb','c  c','日本'])[1 + tt.h(127, i) % 6] END,
       tt.r(128, i, -1000, 1000)
FROM generate_series(1, 300) i;

INSERT INTO jr
SELECT i,
       CASE WHEN tt.h(31, i) % 15 = 0 THEN NULL ELSE tt.r(131, i, 20, 89) END,
       CASE WHEN tt.h(32, i) % 12 = 0 THEN NULL ELSE (ARRAY['a','b','c','x','e ','äx'])[1 + tt.h(132, i) % 6] END,
       CASE WHEN tt.h(33, i) % 15 = 0 THEN NULL
            WHEN tt.h(33, i) % 15 = 1 THEN 4294967296 + tt.r(133, i, 0, 59)   -- equal to a jl.k1 value modulo 2^32
            ELSE tt.r(133, i, 30, 99) END,
       CASE WHEN tt.h(34, i) % 15 = 0 THEN NULL ELSE tt.r(134, i, 0, 119) / 4.0 END,
       CASE WHEN tt.h(35, i) % 15 = 0 THEN NULL
            ELSE timestamp '2000-02-25' + tt.r(135, i, 0, 20) * interval '1 day'
                 + (tt.h(235, i) % 2) * interval '6 hours' END,
       CASE WHEN tt.h(36, i) % 15 = 0 THEN NULL ELSE (ARRAY['a','a  ','b','c  c','x','日本'])[1 + tt.h(136, i) % 6] END,
       CASE WHEN tt.h(37, i) % 15 = 0 THEN NULL ELSE (ARRAY['a','a ','b','bb','x','日本'])[1 + tt.h(137, i) % 6] END,
       tt.r(138, i, -1000, 1000)
FROM generate_series(1, 200) i;

---------------------------------------------------------------------------------------------------
-- TPC-H shaped schema (SF ~0.01)
---------------------------------------------------------------------------------------------------
CREATE TABLE region (
    r_regionkey int4 PRIMARY KEY,
    r_name      char(25) NOT NULL,
    r_comment   varchar(152)
) WITH (autovacuum_enabled = off);

CREATE TABLE nation (
    n_nationkey int4 PRIMARY KEY,
    n_name      char(25) NOT NULL,
    n_regionkey int4 NOT NULL,
    n_comment   varchar(152)
) WITH (autovacuum_enabled = off);

CREATE TABLE supplier (
    s_suppkey   int4 PRIMARY KEY,
    s_name      char(25) NOT NULL,
    s_address   varchar(40) NOT NULL,
    s_nationkey int4 NOT NULL,
    s_phone     char(15) NOT NULL,
    s_acctbal   numeric(15,2) NOT NULL,
    s_comment   varchar(101) NOT NULL
) WITH (autovacuum_enabled = off);

CREATE TABLE customer (
    c_custkey    int4 PRIMARY KEY,
    c_name       varchar(25) NOT NULL,
    c_address    varchar(40) NOT NULL,
    c_nationkey  int4 NOT NULL,
    c_phone      char(15) NOT NULL,
    c_acctbal    numeric(15,2) NOT NULL,
    c_mktsegment char(10) NOT NULL,
    c_comment    varchar(117) NOT NULL
) WITH (autovacuum_enabled = off);

CREATE TABLE part (
    p_partkey     int4 PRIMARY KEY,
    p_name        varchar(55) NOT NULL,
    p_mfgr        char(25) NOT NULL,
    p_brand       char(10) NOT NULL,
    p_type        varchar(25) NOT NULL,
    p_size        int4 NOT NULL,
    p_container   char(10) NOT NULL,
    p_retailprice numeric(15,2) NOT NULL,
    p_comment     varchar(23) NOT NULL
) WITH (autovacuum_enabled = off);

CREATE TABLE partsupp (
    ps_partkey    int4 NOT NULL,
    ps_suppkey    int4 NOT NULL,
    ps_availqty   int4 NOT NULL,
    ps_supplycost numeric(15,2) NOT NULL,
    ps_comment    varchar(199) NOT NULL,
    PRIMARY KEY (ps_partkey, ps_suppkey)
) WITH (autovacuum_enabled = off);

CREATE TABLE orders (
    o_orderkey      int8 PRIMARY KEY,
    o_custkey       int4 NOT NULL,
    o_orderstatus   char(1) NOT NULL,
    o_totalprice    numeric(15,2) NOT NULL,
    o_orderdate     date NOT NULL,
    o_orderpriority char(15) NOT NULL,
    o_clerk         char(15) NOT NULL,
    o_shippriority  int4 NOT NULL,
    o_comment       varchar(79) NOT NULL
) WITH (autovacuum_enabled = off);

CREATE TABLE lineitem (
    l_orderkey      int8 NOT NULL,
    l_partkey       int4 NOT NULL,
    l_suppkey       int4 NOT NULL,
    l_linenumber    int4 NOT NULL,
    l_quantity      numeric(15,2) NOT NULL,
    l_extendedprice numeric(15,2) NOT NULL,
    l_discount      numeric(15,2) NOT NULL,
    l_tax           numeric(15,2) NOT NULL,
    l_returnflag    char(1) NOT NULL,
    l_linestatus    char(1) NOT NULL,
    l_shipdate      date NOT NULL,
    l_commitdate    date NOT NULL,
    l_receiptdate   date NOT NULL,
    l_shipinstruct  char(25) NOT NULL,
    l_shipmode      char(10) NOT NULL,
    l_comment       varchar(44) NOT NULL,
    PRIMARY KEY (l_orderkey, l_linenumber)
) WITH (autovacuum_enabled = off);

INSERT INTO region VALUES
 (0, 'AFRICA',      'lar deposits. blithely final packages cajole'),
 (1, 'AMERICA',     'hs use ironic, even requests'),
 (2, 'ASIA',        'ges. thinly even pinto beans ca'),
 (3, 'EUROPE',      'ly final courts cajole furiously final excuse'),
 (4, 'MIDDLE EAST', 'uickly special accounts cajole carefully blithely close requests');

INSERT INTO nation
SELECT k - 1, name, reg, tt.words(40, k::int, 6)
FROM unnest(ARRAY['ALGERIA','ARGENTINA','BRAZIL','CANADA','EGYPT','ETHIOPIA','FRANCE','GERMANY',
                  'INDIA','INDONESIA','IRAN','IRAQ','JAPAN','JORDAN','KENYA','MOROCCO','MOZAMBIQUE',
                  'PERU','CHINA','ROMANIA','SAUDI ARABIA','VIETNAM','RUSSIA','UNITED KINGDOM','UNITED STATES'],
            ARRAY[0,1,1,1,4,0,3,3,2,2,4,4,2,4,0,0,0,1,2,3,4,2,3,3,1]) WITH ORDINALITY AS x(name, reg, k);

INSERT INTO supplier
SELECT i,
       'Supplier#' || lpad(i::text, 9, '0'),
       substr(md5('sa' || i), 1, 10 + tt.h(41, i) % 20),
       n,
       (n + 10) || '-' || lpad((100 + tt.h(42, i) % 900)::text, 3, '0') || '-' || lpad((100 + tt.h(43, i) % 900)::text, 3, '0')
                || '-' || lpad((1000 + tt.h(44, i) % 9000)::text, 4, '0'),
       tt.r(45, i, -99999, 999999) / 100.0,
       CASE WHEN i % 20 = 7 THEN tt.words(46, i, 2) || ' Customer ' || tt.word(i) || ' Complaints'
            WHEN i % 20 = 13 THEN tt.words(46, i, 2) || ' Customer ' || tt.word(i) || ' Recommends'
            ELSE tt.words(46, i, 6) END
FROM generate_series(1, 100) i, LATERAL (SELECT tt.h(47, i) % 25 AS n) x;

INSERT INTO customer
SELECT i,
       'Customer#' || lpad(i::text, 9, '0'),
       substr(md5('ca' || i), 1, 10 + tt.h(51, i) % 25),
       n,
       (n + 10) || '-' || lpad((100 + tt.h(52, i) % 900)::text, 3, '0') || '-' || lpad((100 + tt.h(53, i) % 900)::text, 3, '0')
                || '-' || lpad((1000 + tt.h(54, i) % 9000)::text, 4, '0'),
       tt.r(55, i, -99999, 999999) / 100.0,
       (ARRAY['AUTOMOBILE','BUILDING','FURNITURE','HOUSEHOLD','MACHINERY'])[1 + tt.h(56, i) % 5],
       tt.words(57, i, 7)
FROM generate_series(1, 1500) i, LATERAL (SELECT tt.h(58, i) % 25 AS n) x;

CREATE FUNCTION tt.color(k int) RETURNS text
LANGUAGE sql IMMUTABLE AS
$$ SELECT (ARRAY['almond','antique','aquamarine','azure','beige','bisque','black','blanched','blue',
                 'blush','brown','burlywood','burnished','chartreuse','chiffon','chocolate','coral',
                 'cornflower','cornsilk','cream','cyan','dark','deep','dim','dodger','drab','firebrick',
                 'floral','forest','frosted','gainsboro','ghost','goldenrod','green','grey','honeydew',
                 'hot','indian','ivory','khaki','lace','lavender','lawn','lemon','light','lime','linen',
                 'magenta','maroon','medium','metallic','midnight','mint','misty','moccasin','navajo',
                 'navy','olive','orange','orchid','pale','papaya','peach','peru','pink','plum','powder',
                 'puff','purple','red','rose','rosy','royal','saddle','salmon','sandy','seashell','sienna',
                 'sky','slate','smoke','snow','spring','steel','tan','thistle','tomato','turquoise',
                 'violet','wheat','white','yellow'])[1 + k % 92] $$;

INSERT INTO part
SELECT i,
       tt.color(tt.h(61, i)) || ' ' || tt.color(tt.h(62, i)) || ' ' || tt.color(tt.h(63, i)) || ' '
           || tt.color(tt.h(64, i)) || ' ' || tt.color(tt.h(65, i)),
       'Manufacturer#' || m,
       'Brand#' || m || (1 + tt.h(67, i) % 5),
       (ARRAY['STANDARD','SMALL','MEDIUM','LARGE','ECONOMY','PROMO'])[1 + tt.h(68, i) % 6] || ' ' ||
       (ARRAY['ANODIZED','BURNISHED','PLATED','POLISHED','BRUSHED'])[1 + tt.h(69, i) % 5] || ' ' ||
       (ARRAY['TIN','NICKEL','BRASS','STEEL','COPPER'])[1 + tt.h(70, i) % 5],
       1 + tt.h(71, i) % 50,
       (ARRAY['SM','LG','MED','JUMBO','WRAP'])[1 + tt.h(72, i) % 5] || ' ' ||
       (ARRAY['CASE','BOX','BAG','JAR','PKG','PACK','CAN','DRUM'])[1 + tt.h(73, i) % 8],
       (90000 + ((i / 10) % 20001) + 100 * (i % 1000)) / 100.0,
       left(tt.words(74, i, 2), 23)
FROM generate_series(1, 2000) i, LATERAL (SELECT 1 + tt.h(66, i) % 5 AS m) x;

INSERT INTO partsupp
SELECT p, (p + j * (25 + (p - 1) / 100)) % 100 + 1,
       1 + tt.h(81, p * 4 + j) % 9999,
       tt.r(82, p * 4 + j, 100, 100000) / 100.0,
       tt.words(83, p * 4 + j, 8)
FROM generate_series(1, 2000) p, generate_series(0, 3) j;

-- orders: 15000, sparse keys like dbgen; customers with key % 3 = 0 have no orders
CREATE FUNCTION tt.okey(i int) RETURNS int8
LANGUAGE sql IMMUTABLE AS $$ SELECT ((i - 1) / 8) * 32 + (i - 1) % 8 + 1 $$;

CREATE FUNCTION tt.odate(i int) RETURNS date
LANGUAGE sql IMMUTABLE AS $$ SELECT date '1992-01-01' + tt.h(91, i) % 2405 $$;

INSERT INTO lineitem
SELECT tt.okey(i), pk, (pk + (tt.h(102, i * 8 + ln) % 4) * (25 + (pk - 1) / 100)) % 100 + 1, ln,
       q, q * ((90000 + ((pk / 10) % 20001) + 100 * (pk % 1000)) / 100.0),
       (tt.h(103, i * 8 + ln) % 11) / 100.0,
       (tt.h(104, i * 8 + ln) % 9) / 100.0,
       CASE WHEN rd <= date '1995-06-17' THEN (ARRAY['R','A'])[1 + tt.h(105, i * 8 + ln) % 2] ELSE 'N' END,
       CASE WHEN sd > date '1995-06-17' THEN 'O' ELSE 'F' END,
       sd, od + 30 + tt.h(106, i * 8 + ln) % 61, rd,
       (ARRAY['DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'])[1 + tt.h(107, i * 8 + ln) % 4],
       (ARRAY['REG AIR','AIR','RAIL','SHIP','TRUCK','MAIL','FOB'])[1 + tt.h(108, i * 8 + ln) % 7],
       tt.words(109, i * 8 + ln, 3)
FROM generate_series(1, 15000) i,
     LATERAL (SELECT tt.odate(i) AS od, 1 + tt.h(92, i) % 7 AS nl) o,
     LATERAL generate_series(1, o.nl) ln,
     LATERAL (SELECT 1 + tt.h(101, i * 8 + ln) % 2000 AS pk,
                     (1 + tt.h(100, i * 8 + ln) % 50)::numeric AS q,
                     o.od + 1 + tt.h(110, i * 8 + ln) % 121 AS sd) x,
     LATERAL (SELECT x.sd + 1 + tt.h(111, i * 8 + ln) % 30 AS rd) y
ORDER BY 1, 4;

INSERT INTO orders
SELECT tt.okey(i),
       c,
       CASE WHEN l.nf = l.n THEN 'F' WHEN l.nf = 0 THEN 'O' ELSE 'P' END,
       l.total,
       tt.odate(i),
       (ARRAY['1-URGENT','2-HIGH','3-MEDIUM','4-NOT SPECIFIED','5-LOW'])[1 + tt.h(94, i) % 5],
       'Clerk#' || lpad((1 + tt.h(95, i) % 10)::text, 9, '0'),
       0,
       tt.words(96, i, 5)
FROM generate_series(1, 15000) i,
     LATERAL (SELECT 1 + tt.h(93, i) % 1499 AS c0) c0,
     LATERAL (SELECT CASE WHEN c0 % 3 = 0 THEN c0 + 1 ELSE c0 END AS c) c,
     LATERAL (SELECT count(*) AS n, count(*) FILTER (WHERE l_linestatus = 'F') AS nf,
                     round(sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)), 2) AS total
              FROM lineitem WHERE l_orderkey = tt.okey(i)) l;

CREATE TABLE lineitem_empty (LIKE lineitem INCLUDING ALL) WITH (autovacuum_enabled = off);
CREATE TABLE orders_empty (LIKE orders INCLUDING ALL) WITH (autovacuum_enabled = off);

-- statistics from every row (lineitem has fewer rows than 300 * 250), so plans do not vary
SET default_statistics_target = 250;
ANALYZE;
RESET default_statistics_target;

-- the dataset
SELECT 'types' AS t, count(*) FROM types UNION ALL
SELECT 'edge', count(*) FROM edge UNION ALL
SELECT 'jl', count(*) FROM jl UNION ALL
SELECT 'jr', count(*) FROM jr UNION ALL
SELECT 'region', count(*) FROM region UNION ALL
SELECT 'nation', count(*) FROM nation UNION ALL
SELECT 'supplier', count(*) FROM supplier UNION ALL
SELECT 'customer', count(*) FROM customer UNION ALL
SELECT 'part', count(*) FROM part UNION ALL
SELECT 'partsupp', count(*) FROM partsupp UNION ALL
SELECT 'orders', count(*) FROM orders UNION ALL
SELECT 'lineitem', count(*) FROM lineitem UNION ALL
SELECT 'empty', (SELECT count(*) FROM empty_types) + (SELECT count(*) FROM lineitem_empty) + (SELECT count(*) FROM orders_empty);

-- a fingerprint of the generated data (catches a generator that is not deterministic)
SELECT md5(string_agg(x::text, ',' ORDER BY id)) AS types_md5 FROM types x;
SELECT md5(string_agg(x::text, ',' ORDER BY id)) AS edge_md5 FROM edge x;
SELECT md5(string_agg(x::text, ',' ORDER BY id)) AS jl_md5 FROM jl x;
SELECT md5(string_agg(x::text, ',' ORDER BY id)) AS jr_md5 FROM jr x;
SELECT md5(string_agg(x::text, ',' ORDER BY s_suppkey)) AS supplier_md5 FROM supplier x;
SELECT md5(string_agg(x::text, ',' ORDER BY c_custkey)) AS customer_md5 FROM customer x;
SELECT md5(string_agg(x::text, ',' ORDER BY p_partkey)) AS part_md5 FROM part x;
SELECT md5(string_agg(x::text, ',' ORDER BY ps_partkey, ps_suppkey)) AS partsupp_md5 FROM partsupp x;
SELECT md5(string_agg(x::text, ',' ORDER BY o_orderkey)) AS orders_md5 FROM orders x;
SELECT md5(string_agg(x::text, ',' ORDER BY l_orderkey, l_linenumber)) AS lineitem_md5 FROM lineitem x;
