-- bench/probe/q15_ties.sql — TPC-H Q15 with the max-over-a-view pattern computed twice
-- (themis.view_max_ties = off: the CTE inlined at both references, two Themis nodes) and once (on, the
-- default: the CTE's first row with ties, one Themis node and an index lookup in supplier), for
-- bench/run.sh --sql on the uniform or the skewed data: EXPLAIN ANALYZE of each (the second run, warm),
-- then five timed runs of each, alternating.
\pset pager off
\set q15 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q15.sql"`
SET themis.enabled = on;
SET themis.view_max_ties = off;
:q15;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
SET themis.view_max_ties = on;
:q15;
EXPLAIN (ANALYZE, COSTS OFF) :q15;
\timing on
SET themis.view_max_ties = off;
:q15;
SET themis.view_max_ties = on;
:q15;
SET themis.view_max_ties = off;
:q15;
SET themis.view_max_ties = on;
:q15;
SET themis.view_max_ties = off;
:q15;
SET themis.view_max_ties = on;
:q15;
SET themis.view_max_ties = off;
:q15;
SET themis.view_max_ties = on;
:q15;
SET themis.view_max_ties = off;
:q15;
SET themis.view_max_ties = on;
:q15;
\timing off
RESET themis.view_max_ties;
