--
-- 64_device_auto: themis.device = auto without a usable GPU leaves a statement to PostgreSQL's plan
-- as it is (no Themis node, no subquery rewrite: the daemon is asked when the statement is planned);
-- gpu makes Themis nodes that run PostgreSQL's plan when the GPU cannot (or raise an ERROR with
-- themis.fallback = off), and so does a plan with Themis nodes that finds no GPU when it runs; cpu runs
-- the CPU executor.  themis.debug_fault = no_gpu makes this backend find no usable GPU, so the file's
-- output is the same with a GPU and without one.
--
SET client_min_messages = warning;
CREATE TABLE da (k int, v numeric(12,2));
INSERT INTO da SELECT g % 10, g * 0.5 FROM generate_series(1, 1000) g;
ANALYZE da;
SET themis.min_rows = 0;
SET themis.debug_fault = no_gpu;

-- auto: PostgreSQL's plan as it is
SET themis.device = auto;
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM da WHERE k < 5;
SELECT count(*), sum(v) FROM da WHERE k < 5;
EXPLAIN (COSTS OFF) SELECT count(*) FROM da o WHERE v > (SELECT avg(v) FROM da i WHERE i.k = o.k);
SELECT count(*) FROM da o WHERE v > (SELECT avg(v) FROM da i WHERE i.k = o.k);
-- themis.fallback does not matter there: nothing to fall back from
SET themis.fallback = off;
SELECT count(*), sum(v) FROM da WHERE k < 5;

-- gpu: a Themis node; with fallback on it runs PostgreSQL's plan and EXPLAIN ANALYZE says why
SET themis.device = gpu;
SET themis.fallback = on;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*), sum(v) FROM da WHERE k < 5;
SELECT count(*), sum(v) FROM da WHERE k < 5;
-- with fallback off: the ERROR says why
SET themis.fallback = off;
SELECT count(*), sum(v) FROM da WHERE k < 5;

-- a plan made with Themis nodes (here under gpu) that runs under auto without a GPU: PostgreSQL's plan,
-- or the ERROR with fallback off (never the CPU executor)
-- (a statement without parameters is planned once, at its first EXECUTE, and that plan is kept)
SET themis.fallback = on;
PREPARE q AS SELECT count(*), sum(v) FROM da WHERE k < 5;
EXECUTE q;
SET themis.device = auto;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE q;
EXECUTE q;
SET themis.fallback = off;
EXECUTE q;
DEALLOCATE q;

-- cpu: the CPU executor, GPU or not
SET themis.device = cpu;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*), sum(v) FROM da WHERE k < 5;
SELECT count(*), sum(v) FROM da WHERE k < 5;

RESET themis.debug_fault;
RESET themis.device;
RESET themis.fallback;
RESET themis.min_rows;
DROP TABLE da;
