-- bench/probe/q16_parts.sql — TPC-H Q16 taken apart (for bench/run.sh --sql): with 8.5 ms of GPU time it
-- spent 46 ms in its Themis node (EXPLAIN ANALYZE, H200, SF 10), and Q11 10 ms more than its GPU time.
-- Each twice (the second is warm), timed by psql and under EXPLAIN ANALYZE (the node's host stages:
-- column read, request, daemon round trip, result conversion, presort): Q16; Q16 without its ORDER BY
-- (no presort); with count(*) for count(DISTINCT); its rows counted (none returned); Q11 and Q11 without
-- its ORDER BY.
\pset pager off
\timing on
\set ea 'EXPLAIN (ANALYZE, COSTS OFF)'
\set q16 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q16.sql"`
\set q16u `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q16.sql" | sed -e '/^order by/,$d'`
\set q16c `sed -e 's/--.*$//' -e 's/;//' -e 's/count(distinct ps_suppkey)/count(*)/' "$BENCH_QDIR/q16.sql"`
\set q11 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q11.sql"`
\set q11u `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q11.sql" | sed -e '/^order by/,$d'`
:q16 \g /dev/null
:q16 \g /dev/null
:ea :q16;
:ea :q16;
:q16u \g /dev/null
:ea :q16u;
:ea :q16u;
:q16c \g /dev/null
:ea :q16c;
:ea :q16c;
SELECT count(*) FROM (:q16u) q;
SELECT count(*) FROM (:q16u) q;
:q11 \g /dev/null
:q11 \g /dev/null
:ea :q11;
:ea :q11;
:q11u \g /dev/null
:ea :q11u;
