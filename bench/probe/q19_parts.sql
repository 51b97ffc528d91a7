-- bench/probe/q19_parts.sql — TPC-H Q19's lineitem pipeline taken apart (for bench/run.sh --sql): the
-- filter alone, the sum alone, the probe alone, the join filter alone; each twice (the second is warm)
\pset pager off
\set ea 'EXPLAIN (ANALYZE, COSTS OFF)'
-- the TPC-H queries' text without comments and the semicolon ($BENCH_QDIR: bench/run.sh)
\set q15 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q15.sql"`
\set q19 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q19.sql"`
:ea SELECT count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON' AND ((l_quantity >= 1 AND l_quantity <= 11) OR (l_quantity >= 10 AND l_quantity <= 20) OR (l_quantity >= 20 AND l_quantity <= 30));
:ea SELECT count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON' AND ((l_quantity >= 1 AND l_quantity <= 11) OR (l_quantity >= 10 AND l_quantity <= 20) OR (l_quantity >= 20 AND l_quantity <= 30));
:ea SELECT sum(l_extendedprice) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON';
:ea SELECT sum(l_extendedprice) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON';
:ea SELECT count(*) FROM lineitem, part WHERE p_partkey = l_partkey AND p_size <= 15 AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON';
:ea SELECT count(*) FROM lineitem, part WHERE p_partkey = l_partkey AND p_size <= 15 AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON';
:ea SELECT count(*) FROM lineitem, part WHERE p_partkey = l_partkey AND p_size <= 15 AND p_brand IN ('Brand#12', 'Brand#23', 'Brand#34') AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON' AND ((p_brand = 'Brand#12' AND l_quantity <= 11) OR (p_brand = 'Brand#23' AND l_quantity <= 20) OR (p_brand = 'Brand#34' AND l_quantity <= 30));
:ea SELECT count(*) FROM lineitem, part WHERE p_partkey = l_partkey AND p_size <= 15 AND p_brand IN ('Brand#12', 'Brand#23', 'Brand#34') AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON' AND ((p_brand = 'Brand#12' AND l_quantity <= 11) OR (p_brand = 'Brand#23' AND l_quantity <= 20) OR (p_brand = 'Brand#34' AND l_quantity <= 30));
:ea SELECT count(*) FROM lineitem;
:ea SELECT count(*) FROM lineitem;
:ea SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem;
:ea SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem;
EXPLAIN (ANALYZE, COSTS OFF) :q19;
EXPLAIN (ANALYZE, COSTS OFF) :q19;
SET themis.gpu_fast_paths = off;
:ea SELECT count(*) FROM lineitem;
:ea SELECT sum(l_extendedprice) FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON';
EXPLAIN (ANALYZE, COSTS OFF) :q19;
RESET themis.gpu_fast_paths;
