-- bench/probe/q1_parts.sql — TPC-H Q1 taken apart (for bench/run.sh --sql): its filter and grouping with
-- one aggregate at a time, then all of them without the grouping; each twice (the second is warm).
-- Where the GPU time of Q1 goes: per aggregate, and grouped (4 groups: contention) against global;
-- last, Q1 with themis.gpu_fast_paths off.
\pset pager off
\set ea 'EXPLAIN (ANALYZE, COSTS OFF)'
\set w 'FROM lineitem WHERE l_shipdate <= date ''1998-12-01'' - interval ''90'' day'
\set g 'GROUP BY l_returnflag, l_linestatus'
\set q1 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q01.sql"`
:ea SELECT count(*) :w;
:ea SELECT count(*) :w;
:ea SELECT l_returnflag, l_linestatus, count(*) :w :g;
:ea SELECT l_returnflag, l_linestatus, count(*) :w :g;
:ea SELECT l_returnflag, l_linestatus, sum(l_quantity) :w :g;
:ea SELECT l_returnflag, l_linestatus, sum(l_quantity) :w :g;
:ea SELECT l_returnflag, l_linestatus, sum(l_extendedprice * (1 - l_discount)) :w :g;
:ea SELECT l_returnflag, l_linestatus, sum(l_extendedprice * (1 - l_discount)) :w :g;
:ea SELECT l_returnflag, l_linestatus, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) :w :g;
:ea SELECT l_returnflag, l_linestatus, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) :w :g;
:ea SELECT l_returnflag, l_linestatus, avg(l_discount) :w :g;
:ea SELECT l_returnflag, l_linestatus, avg(l_discount) :w :g;
:ea SELECT sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) :w;
:ea SELECT sum(l_quantity), sum(l_extendedprice), sum(l_extendedprice * (1 - l_discount)), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_quantity), avg(l_extendedprice), avg(l_discount), count(*) :w;
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) :q1;
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) :q1;
-- Q1 without themis.gpu_fast_paths (no block-private group states or memo, no fast quals): against the above
SET themis.gpu_fast_paths = off;
EXPLAIN (ANALYZE, COSTS OFF) :q1;
EXPLAIN (ANALYZE, COSTS OFF) :q1;
RESET themis.gpu_fast_paths;
