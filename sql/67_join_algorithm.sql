--
-- 67_join_algorithm: themis.join_algorithm (the partitioned hash join on the GPU, issue 8).  Every query
-- is compared with themis off under each value; on the GPU (tt.device = 'gpu') the forced values run the
-- partitioned join for every inner probe it can take, and EXPLAIN ANALYZE must say so.  The CPU executor
-- ignores the setting (one plan, the same answers).
--
SET themis.join_algorithm = 'hash';
SET themis.join_algorithm = 'PARTITIONED';
SHOW themis.join_algorithm;
RESET themis.join_algorithm;

-- did EXPLAIN ANALYZE of q (themis on) show the partitioned join where it must: on the GPU with the
-- forced values, never with pipelined (nor on the CPU)
CREATE FUNCTION pj_ran(q text) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
    saved text[] := tt._save();
    algo text := current_setting('themis.join_algorithm');
    gpu boolean := coalesce(nullif(current_setting('tt.device', true), ''), 'cpu') = 'gpu';
    j json;
    ran boolean;
BEGIN
    PERFORM tt._themis(true);
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO j;
    PERFORM tt._restore(saved);
    ran := jsonb_path_exists(j::jsonb, '$.** ? (@."Join Algorithm" like_regex "^partitioned")');
    IF ran = (gpu AND algo IN ('partitioned', 'partitioned_gfur')) THEN
        RETURN 'as expected';
    END IF;
    RETURN format('partitioned join %s with %s on %s', CASE WHEN ran THEN 'ran' ELSE 'did not run' END, algo,
                  CASE WHEN gpu THEN 'the GPU' ELSE 'the CPU' END);
END
$f$;

CREATE FUNCTION pj_checks() RETURNS TABLE(query int, result text, themis text)
LANGUAGE plpgsql AS $f$
DECLARE
    qs text[] := ARRAY[
        -- int4 key, a filter on the probe side, payloads of several kinds on both sides
        $$SELECT jl.id, jl.kn, jl.k2, jl.kd, jl.kc, jr.id AS rid, jr.kn AS rkn, jr.k2 AS rk2, jr.kd AS rkd
          FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jl.v > 3$$,
        -- two-column key, a residual
        $$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k1 AND jl.k8 = jr.k8 AND jl.v > jr.w$$,
        -- numeric key of different typmods (coerced to one type), int8 key
        $$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.kn = jr.kn$$,
        $$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k1 = jr.k8$$,
        -- text / bpchar keys: never partitioned (the probe in the kernel), same answers
        $$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.k2 = jr.k2$$,
        $$SELECT jl.id AS lid, jr.id AS rid FROM jl JOIN jr ON jl.kc = jr.kc$$,
        -- an inner join, then a left join (levels after the replaced probe)
        $$SELECT jl.id AS lid, jr.id AS rid, t.id AS tid
          FROM jl JOIN jr ON jl.k1 = jr.k1 LEFT JOIN types t ON t.i4 = jr.w$$,
        -- aggregation after joins, TPC-H shapes
        $$SELECT o.o_orderpriority, count(*), sum(l.l_extendedprice * (1 - l.l_discount)), min(l.l_shipdate)
          FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey GROUP BY o.o_orderpriority$$,
        $$SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
          FROM customer, orders, lineitem, supplier, nation, region
          WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
            AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
            AND r_name = 'ASIA' GROUP BY n_name$$,
        -- no probe row passes the filter: one group all the same
        $$SELECT count(*), sum(jr.w) FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jl.v > 1000000$$,
        -- an empty build side
        $$SELECT a.id AS aid, e.id AS eid FROM types a JOIN empty_types e ON a.i4 = e.i4$$];
    -- errors after the join: division by zero, bigint overflow (the same error as PostgreSQL)
    es text[] := ARRAY[
        $$SELECT jl.id AS lid, jr.w / (jl.v - jl.v) AS q FROM jl JOIN jr ON jl.k1 = jr.k1$$,
        $$SELECT sum(jl.k8 * 9223372036854775807) FROM jl JOIN jr ON jl.k1 = jr.k1 WHERE jl.k8 > 1$$];
    i int;
    r record;
BEGIN
    FOR i IN 1 .. array_length(qs, 1) LOOP
        SELECT * INTO r FROM tt.check(qs[i]);
        query := i;
        result := r.result;
        themis := r.themis;
        RETURN NEXT;
    END LOOP;
    FOR i IN 1 .. array_length(es, 1) LOOP
        SELECT * INTO r FROM tt.check_error(es[i]);
        query := array_length(qs, 1) + i;
        result := r.result;
        themis := r.themis;
        RETURN NEXT;
    END LOOP;
END
$f$;

SET themis.join_algorithm = 'partitioned';
SELECT * FROM pj_checks();
SELECT pj_ran($$SELECT count(*), sum(l.l_quantity) FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey$$);
SET themis.join_algorithm = 'partitioned_gfur';
SELECT * FROM pj_checks();
SELECT pj_ran($$SELECT count(*), sum(l.l_quantity) FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey$$);
SET themis.join_algorithm = 'pipelined';
SELECT * FROM pj_checks();
SELECT pj_ran($$SELECT count(*), sum(l.l_quantity) FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey$$);
-- auto: these tables are far below the GPU's L2 cache
SET themis.join_algorithm = auto;
SELECT * FROM pj_checks();
SELECT pj_ran($$SELECT count(*), sum(l.l_quantity) FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey$$);

RESET themis.join_algorithm;
DROP FUNCTION pj_checks();
DROP FUNCTION pj_ran(text);
