--
-- 26_partial_index: index scans on partial indexes.  PostgreSQL leaves out of the scan's quals those
-- the index's predicate implies (the index holds no other rows); themis reads the table whole, so it
-- must test the predicate itself.  Index Scan, Index Only Scan, the inner side of a nested loop
-- (themis.stream_lookup_side), compared with themis off.
--
CALL tt.device_on();
SET themis.min_rows = 0;
CREATE TABLE pi (id int, status int, amt int, d int);
INSERT INTO pi SELECT i, CASE WHEN i % 100 = 0 THEN 1 ELSE 0 END, i % 13, i % 7 FROM generate_series(1, 20000) i;
CREATE INDEX pi_open ON pi (id) WHERE status = 1;
CREATE INDEX pi_open2 ON pi (id, amt) WHERE status = 1;
CREATE TABLE pj (id int, w int);
INSERT INTO pj SELECT i * 100, i FROM generate_series(1, 50) i;
ANALYZE pi;
ANALYZE pj;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- an Index Scan of pi_open: the predicate is not among the plan's quals
EXPLAIN (COSTS OFF) SELECT count(*), sum(amt) FROM pi WHERE status = 1 AND id < 5000;
SELECT * FROM tt.check($$SELECT count(*), sum(amt) FROM pi WHERE status = 1 AND id < 5000$$);
SELECT * FROM tt.check($$SELECT count(*), sum(amt) FROM pi WHERE status = 1$$);
SELECT * FROM tt.check($$SELECT amt, count(*), sum(id) FROM pi WHERE status = 1 AND id BETWEEN 100 AND 9000 GROUP BY amt$$);
-- an Index Only Scan of pi_open2
EXPLAIN (COSTS OFF) SELECT count(*) FROM pi WHERE status = 1 AND id BETWEEN 100 AND 9000;
SELECT * FROM tt.check($$SELECT count(*) FROM pi WHERE status = 1 AND id BETWEEN 100 AND 9000$$);
SELECT * FROM tt.check($$SELECT amt, count(*), max(id) FROM pi WHERE status = 1 AND id > 19000 GROUP BY amt$$);
-- the inner side of a nested loop, looked up by the outer side's key
RESET enable_seqscan;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(w) FROM pj JOIN pi ON pi.id = pj.id + 1 AND pi.status = 1;
SELECT * FROM tt.check($$SELECT count(*), sum(w) FROM pj JOIN pi ON pi.id = pj.id + 1 AND pi.status = 1$$);
SELECT * FROM tt.check($$SELECT pj.id, pi.amt FROM pj JOIN pi ON pi.id = pj.id AND pi.status = 1$$);
SET themis.stream_lookup_side = on;
SELECT * FROM tt.check($$SELECT count(*), sum(w) FROM pj JOIN pi ON pi.id = pj.id + 1 AND pi.status = 1$$);
SELECT * FROM tt.check($$SELECT pj.id, pi.amt FROM pj JOIN pi ON pi.id = pj.id AND pi.status = 1$$);
RESET themis.stream_lookup_side;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_bitmapscan;
RESET themis.min_rows;
DROP TABLE pi, pj;
