-- bench/probe/stream_loads.sql — cold runs of TPC-H Q4, Q8 and Q19 (the cold runs slower than
-- PostgreSQL's) with themis.stream_loads off (every table read, then one request carries them) and on
-- (the tables read largest first, each but the last sent to the daemon in a LOAD of its own as soon as it
-- is read, so that its upload overlaps the reading of the others), for bench/run.sh --sql: each cold
-- run after themis.cache_drop(), alternating off / on, two of each per query, then EXPLAIN ANALYZE of a
-- cold run with it on (GPU Loads Streamed, Column Read Time, Daemon Round Trip Time); last, cold Q4 with
-- themis.load_page_reader off / on.  The results must be the same.
\pset pager off
\set q4 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q04.sql"`
\set q8 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q08.sql"`
\set q19 `sed -e 's/--.*$//' -e 's/;//' "$BENCH_QDIR/q19.sql"`
SET themis.enabled = on;
\timing on
SELECT themis.cache_drop();
SET themis.stream_loads = off;
:q4;
SELECT themis.cache_drop();
SET themis.stream_loads = on;
:q4;
SELECT themis.cache_drop();
SET themis.stream_loads = off;
:q4;
SELECT themis.cache_drop();
SET themis.stream_loads = on;
:q4;
SELECT themis.cache_drop();
SET themis.stream_loads = off;
:q8;
SELECT themis.cache_drop();
SET themis.stream_loads = on;
:q8;
SELECT themis.cache_drop();
SET themis.stream_loads = off;
:q8;
SELECT themis.cache_drop();
SET themis.stream_loads = on;
:q8;
SELECT themis.cache_drop();
SET themis.stream_loads = off;
:q19;
SELECT themis.cache_drop();
SET themis.stream_loads = on;
:q19;
SELECT themis.cache_drop();
SET themis.stream_loads = off;
:q19;
SELECT themis.cache_drop();
SET themis.stream_loads = on;
:q19;
-- themis.load_page_reader off (a table scan's slot per row) / on, cold Q4, stream_loads off
SET themis.stream_loads = off;
SELECT themis.cache_drop();
SET themis.load_page_reader = off;
:q4;
SELECT themis.cache_drop();
SET themis.load_page_reader = on;
:q4;
SELECT themis.cache_drop();
SET themis.load_page_reader = off;
:q4;
SELECT themis.cache_drop();
SET themis.load_page_reader = on;
:q4;
RESET themis.load_page_reader;
\timing off
SET themis.stream_loads = on;
SELECT themis.cache_drop();
EXPLAIN (ANALYZE, COSTS OFF) :q8;
SELECT themis.cache_drop();
EXPLAIN (ANALYZE, COSTS OFF) :q19;
RESET themis.stream_loads;
