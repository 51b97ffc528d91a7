-- bench/probe/scan_filters.sql — where the GPU time of a filtered lineitem scan goes (TPC-H Q19's
-- lineitem pipeline: bpchar IN / = and an OR of numeric ranges), and Q15's max over a view.  For
-- bench/run.sh --sql (themis on, fallback on): each statement's EXPLAIN ANALYZE shows "GPU Time" and
-- the pipelines' "Actual ... time"; each runs twice (the second is the warm one), fast paths on, then
-- some with themis.gpu_fast_paths = off.
\pset pager off
\set ea 'EXPLAIN (ANALYZE, COSTS OFF)'
-- the TPC-H queries' text without comments and the semicolon ($BENCH_QDIR: bench/run.sh)
\set q15 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q15.sql"`
\set q19 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q19.sql"`
-- every column cached first
SELECT count(*), sum(l_extendedprice * (1 - l_discount)), count(l_shipmode), count(l_shipinstruct),
       sum(l_quantity), count(l_partkey) FROM lineitem;
SELECT count(*) FROM part WHERE p_brand = 'Brand#12' AND p_size >= 1 AND p_container > '';

:ea SELECT count(*) FROM lineitem;
:ea SELECT count(*) FROM lineitem;
:ea SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem;
:ea SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem;
:ea SELECT count(*) FROM lineitem WHERE l_shipdate >= date '1995-01-01';
:ea SELECT count(*) FROM lineitem WHERE l_shipdate >= date '1995-01-01';
:ea SELECT count(*) FROM lineitem WHERE l_quantity >= 1 AND l_quantity <= 11;
:ea SELECT count(*) FROM lineitem WHERE l_quantity >= 1 AND l_quantity <= 11;
:ea SELECT count(*) FROM lineitem WHERE (l_quantity >= 1 AND l_quantity <= 11) OR (l_quantity >= 10 AND l_quantity <= 20) OR (l_quantity >= 20 AND l_quantity <= 30);
:ea SELECT count(*) FROM lineitem WHERE (l_quantity >= 1 AND l_quantity <= 11) OR (l_quantity >= 10 AND l_quantity <= 20) OR (l_quantity >= 20 AND l_quantity <= 30);
:ea SELECT count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG');
:ea SELECT count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG');
:ea SELECT count(*) FROM lineitem WHERE l_shipmode = 'AIR';
:ea SELECT count(*) FROM lineitem WHERE l_shipmode = 'AIR';
:ea SELECT count(*) FROM lineitem WHERE l_shipinstruct = 'DELIVER IN PERSON';
:ea SELECT count(*) FROM lineitem WHERE l_shipinstruct = 'DELIVER IN PERSON';
:ea SELECT count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON';
:ea SELECT count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON';
:ea SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON' AND ((l_quantity >= 1 AND l_quantity <= 11) OR (l_quantity >= 10 AND l_quantity <= 20) OR (l_quantity >= 20 AND l_quantity <= 30));
:ea SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON' AND ((l_quantity >= 1 AND l_quantity <= 11) OR (l_quantity >= 10 AND l_quantity <= 20) OR (l_quantity >= 20 AND l_quantity <= 30));
EXPLAIN (ANALYZE, COSTS OFF) :q19;
EXPLAIN (ANALYZE, COSTS OFF) :q19;
SET themis.gpu_fast_paths = off;
:ea SELECT count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON';
:ea SELECT count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON';
EXPLAIN (ANALYZE, COSTS OFF) :q19;
EXPLAIN (ANALYZE, COSTS OFF) :q19;
RESET themis.gpu_fast_paths;
-- Q15's max over the view (themis.inline_view_ctes: the max runs over 100,000 group results in one launch)
SET themis.inline_view_ctes = on;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
RESET themis.inline_view_ctes;
