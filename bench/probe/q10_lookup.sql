-- bench/probe/q10_lookup.sql — TPC-H Q10 warm with themis.stream_lookup_side off / auto, alternating,
-- three of each, then EXPLAIN ANALYZE of each (for bench/run.sh --sql).  The results must be the same.
\pset pager off
\set q10 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q10.sql"`
SET themis.enabled = on;
:q10;
\timing on
SET themis.stream_lookup_side = off;
:q10;
SET themis.stream_lookup_side = auto;
:q10;
SET themis.stream_lookup_side = off;
:q10;
SET themis.stream_lookup_side = auto;
:q10;
SET themis.stream_lookup_side = off;
:q10;
SET themis.stream_lookup_side = auto;
:q10;
\timing off
SET themis.stream_lookup_side = off;
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) :q10;
SET themis.stream_lookup_side = auto;
EXPLAIN (ANALYZE, VERBOSE, COSTS OFF) :q10;
RESET themis.stream_lookup_side;
