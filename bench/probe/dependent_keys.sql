-- bench/probe/dependent_keys.sql — themis.dependent_group_keys off and on (src/translate.c, dependent_key),
-- for bench/run.sh --sql on the uniform or the skewed data.  TPC-H Q3 groups by l_orderkey, o_orderdate,
-- o_shippriority with o_orderkey = l_orderkey: with the setting on, orders' two columns are carried by
-- any() and one key is hashed and compared on each row.  EXPLAIN ANALYZE off then on, then timed runs
-- alternating off / on, three each.  The setting takes effect when a query is planned.  The results must
-- be the same.
\pset pager off
\set q03 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q03.sql"`
SET themis.enabled = on;
SET themis.dependent_group_keys = off;
EXPLAIN (ANALYZE, COSTS OFF) :q03;
SET themis.dependent_group_keys = on;
EXPLAIN (ANALYZE, COSTS OFF) :q03;
\timing on
SET themis.dependent_group_keys = off;
:q03;
SET themis.dependent_group_keys = on;
:q03;
SET themis.dependent_group_keys = off;
:q03;
SET themis.dependent_group_keys = on;
:q03;
SET themis.dependent_group_keys = off;
:q03;
SET themis.dependent_group_keys = on;
:q03;
\timing off
RESET themis.dependent_group_keys;
