--
-- 22_probe_order: themis.probe_order.  When a pipeline starts, its hash tables are built, and a run of
-- inner probes goes in the order their sizes say is cheapest (themis/tm_probe_order.h).  Here the fact
-- table po_f probes po_m first in PostgreSQL's order (join_collapse_limit = 1: the order written), which
-- keeps 3 rows of every 4 and multiplies them, and po_d second, which keeps 1 of 20: the executors run
-- po_d first.  The answers are compared with PostgreSQL's, with the setting on and off; EXPLAIN ANALYZE
-- shows the order that ran.  What may not move: a probe whose key is the other's payload, a computed
-- key, a residual condition.
--
CREATE TABLE po_f (id int, k int, g int, v int);
INSERT INTO po_f SELECT i, i % 1000, i % 20, (i * 7) % 11 - 5 FROM generate_series(1, 20000) i;
-- 15 rows for each of 750 of po_f's 1,000 keys: 15,000 rows, 11 a po_f row
CREATE TABLE po_m (k int, w int, x int);
INSERT INTO po_m SELECT i % 750, (i * 13) % 9 - 4, i % 20 FROM generate_series(1, 11250) i;
-- 100 rows, one kept by the filter (g = 3)
CREATE TABLE po_d (g int, flag boolean, name text);
INSERT INTO po_d SELECT i, i = 3, 'd' || i FROM generate_series(0, 99) i;
ANALYZE po_f, po_m, po_d;

CREATE FUNCTION po_run_order(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line LIKE '%Run Order:%' OR line LIKE '%Pipeline %' THEN
            RETURN NEXT trim(line);
        END IF;
    END LOOP;
END
$f$;

-- the same in EXPLAIN's structured formats: "Run Order", a list (JSON here)
CREATE FUNCTION po_run_order_json(q text) RETURNS SETOF jsonb LANGUAGE plpgsql AS $f$
DECLARE
    j jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO j;
    RETURN QUERY SELECT jsonb_path_query(j, 'strict $[0].**."Run Order"');
END
$f$;

SET join_collapse_limit = 1;
CALL tt.device_on();
SET themis.min_rows = 0;
SET themis.fallback = off;

-- po_m (a fan-out, keys repeated) then po_d (1 in 20): po_d goes first
SELECT * FROM tt.check($$SELECT f.id, m.w, d.name FROM po_f f JOIN po_m m ON f.k = m.k
                          JOIN po_d d ON f.g = d.g WHERE d.flag$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(m.w) AS sw, sum(f.v) AS sv, min(d.name) AS dn
                          FROM po_f f JOIN po_m m ON f.k = m.k JOIN po_d d ON f.g = d.g WHERE d.flag$$);
SELECT * FROM po_run_order($$SELECT count(*), sum(m.w), sum(f.v) FROM po_f f JOIN po_m m ON f.k = m.k
                             JOIN po_d d ON f.g = d.g WHERE d.flag$$);
SELECT * FROM po_run_order_json($$SELECT count(*), sum(m.w), sum(f.v) FROM po_f f JOIN po_m m ON f.k = m.k
                                  JOIN po_d d ON f.g = d.g WHERE d.flag$$);
-- the plan's order with the setting off: the same answers
SET themis.probe_order = off;
SELECT * FROM po_run_order($$SELECT count(*), sum(m.w), sum(f.v) FROM po_f f JOIN po_m m ON f.k = m.k
                             JOIN po_d d ON f.g = d.g WHERE d.flag$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(m.w) AS sw, sum(f.v) AS sv, min(d.name) AS dn
                          FROM po_f f JOIN po_m m ON f.k = m.k JOIN po_d d ON f.g = d.g WHERE d.flag$$);
RESET themis.probe_order;

-- po_d probed by po_m's x (its payload): it cannot go first (po_m's table is built only from the rows
-- whose x po_d keeps, and po_d first: themis.build_reduction, 23_build_reduction)
SELECT * FROM po_run_order($$SELECT count(*), sum(m.w) FROM po_f f JOIN po_m m ON f.k = m.k
                             JOIN po_d d ON m.x = d.g WHERE d.flag$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(m.w) AS sw FROM po_f f JOIN po_m m ON f.k = m.k
                          JOIN po_d d ON m.x = d.g WHERE d.flag$$);
-- a computed key (g + 0 could raise an error on rows that po_m would have dropped): it stays
SELECT * FROM po_run_order($$SELECT count(*), sum(m.w) FROM po_f f JOIN po_m m ON f.k = m.k
                             JOIN po_d d ON f.g + 0 = d.g WHERE d.flag$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(m.w) AS sw FROM po_f f JOIN po_m m ON f.k = m.k
                          JOIN po_d d ON f.g + 0 = d.g WHERE d.flag$$);
-- a residual condition on po_d's probe: it stays
SELECT * FROM po_run_order($$SELECT count(*), sum(m.w) FROM po_f f JOIN po_m m ON f.k = m.k
                             JOIN po_d d ON f.g = d.g AND f.v <> d.g WHERE d.flag$$);
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(m.w) AS sw FROM po_f f JOIN po_m m ON f.k = m.k
                          JOIN po_d d ON f.g = d.g AND f.v <> d.g WHERE d.flag$$);
-- a computed key on po_m's probe: po_d does not go ahead of it (which would drop rows before the key is
-- computed on them); where the key raises an error on rows that po_d would drop (g = 5), the error is
-- raised as PostgreSQL raises it
SELECT * FROM po_run_order($$SELECT count(*) FROM po_f f JOIN po_m m ON f.k + 0 * (100 / (f.id % 20 + 5)) = m.k
                             JOIN po_d d ON f.g = d.g WHERE d.flag$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n FROM po_f f JOIN po_m m ON f.k + 0 * (100 / (f.id % 20 - 5)) = m.k
                                JOIN po_d d ON f.g = d.g WHERE d.flag$$);
-- errors: a division by zero after both probes is raised (or not) as PostgreSQL does
SELECT * FROM tt.check_error($$SELECT count(*) AS n, sum(100 / m.w) AS q FROM po_f f JOIN po_m m ON f.k = m.k
                                JOIN po_d d ON f.g = d.g WHERE d.flag$$);
SELECT * FROM tt.check_error($$SELECT count(*) AS n, sum(100 / (m.w + 5)) AS q FROM po_f f JOIN po_m m ON f.k = m.k
                                JOIN po_d d ON f.g = d.g WHERE d.flag$$);

-- NULL keys on both sides and duplicates in po_m (the fan-out), reordered as above
CREATE TABLE po_fn AS SELECT id, CASE WHEN id % 7 = 0 THEN NULL ELSE k END AS k,
                             CASE WHEN id % 11 = 0 THEN NULL ELSE g END AS g, v FROM po_f;
INSERT INTO po_m SELECT NULL, 1, 3 FROM generate_series(1, 50);
INSERT INTO po_d VALUES (NULL, true, 'dnull');
ANALYZE po_fn, po_m, po_d;
SELECT * FROM po_run_order($$SELECT count(*), sum(m.w) FROM po_fn f JOIN po_m m ON f.k = m.k
                             JOIN po_d d ON f.g = d.g WHERE d.flag$$);
SELECT * FROM tt.check($$SELECT f.id, m.w, d.name FROM po_fn f JOIN po_m m ON f.k = m.k
                          JOIN po_d d ON f.g = d.g WHERE d.flag$$);
-- no row passes po_d's filter: an empty table, no row comes out
SELECT * FROM tt.check($$SELECT count(*) AS n, sum(m.w) AS sw FROM po_fn f JOIN po_m m ON f.k = m.k
                          JOIN po_d d ON f.g = d.g WHERE d.flag AND d.g < 0$$);

RESET join_collapse_limit;
RESET themis.min_rows;
RESET themis.fallback;
DROP FUNCTION po_run_order(text);
DROP FUNCTION po_run_order_json(text);
DROP TABLE po_f, po_fn, po_m, po_d;
