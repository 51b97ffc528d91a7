--
-- 00_setup: the extension and the test helpers (schema tt).
--
-- Every test query is run twice: with themis.enabled = off (PostgreSQL's own answer) and with
-- themis forced on (themis.device = cpu, themis.min_rows = 0, themis.fallback = off), and the two
-- answers are compared.  The helpers return two columns:
--   result  'rows=N diff=D'  N: rows of PostgreSQL's answer, D: rows that differ (both directions)
--   themis  'yes' / 'no'     whether EXPLAIN of the query (themis on) shows a Custom Scan (Themis)
-- so that only the themis column depends on the planner rewrite.
--
-- Rows are compared through their text form (record_out), which is stricter than '=':
-- 1.0 vs 1.00 (numeric scale) or -0 vs 0 (float) count as differences, as a user would see them.
--
-- Helpers (all return the columns result, themis unless noted):
--   tt.check(q)                 same multiset of rows
--   tt.check_ordered(q)         same rows in the same order (q's ORDER BY must be total)
--   tt.check_fallback(q)        like check, but themis.fallback = on (values themis cannot represent)
--   tt.check_pair(q_on, q_off)  q_on with themis on gives q_off's answer (prepared statements)
--   tt.check_error(q)           'same error: SQLSTATE message' / 'both ok, rows=N diff=D' / 'MISMATCH: ...'
--   tt.check_dml(src, dml)      a DML statement on two copies of src (TARGET in dml), tables compared
--   tt.check_join_methods(q)    check under hash / merge / nested loop join (columns method, result, themis)
--   tt.check_agg_methods(q)     check with hashed / sorted aggregation (columns method, result, themis)
--   tt.offloaded(q) -> bool     EXPLAIN of q (themis on) has a Custom Scan (Themis)
--   CALL tt.themis_on([local]), CALL tt.themis_reset()   force offload for plain statements
--   CALL tt.device_on()         themis.device as the "on" runs have it, for the session's EXPLAINs
-- q is anything CREATE TABLE AS accepts (SELECT, VALUES, EXECUTE); its output column names must be
-- distinct and it must not end with a semicolon.
--
-- Optional session settings read by the helpers (placeholders, need not exist):
--   tt.device   themis.device used for the "on" run (default cpu), e.g. PGOPTIONS='-c tt.device=gpu'
--
CREATE EXTENSION themis;
-- the suite needs a UTF8 database with C collation
SELECT getdatabaseencoding() AS encoding, current_setting('lc_collate') AS lc_collate;

CREATE SCHEMA tt;

-- a counter for unique temp table names (several checks may run in one transaction)
CREATE SEQUENCE tt.seq;

-- the themis.device of the "on" runs: tt.device, else cpu
CREATE FUNCTION tt._device() RETURNS text
LANGUAGE sql STABLE AS $f$
    SELECT coalesce(nullif(current_setting('tt.device', true), ''), 'cpu')
$f$;

-- switch themis on (forced offload) or off for the rest of the transaction
CREATE FUNCTION tt._themis(on_ boolean, fallback boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql AS $f$
BEGIN
    IF on_ THEN
        PERFORM set_config('themis.enabled', 'on', true);
        PERFORM set_config('themis.device', tt._device(), true);
        PERFORM set_config('themis.min_rows', '0', true);
        PERFORM set_config('themis.fallback', CASE WHEN fallback THEN 'on' ELSE 'off' END, true);
    ELSE
        PERFORM set_config('themis.enabled', 'off', true);
    END IF;
END
$f$;

-- remember / restore the themis settings of the caller
CREATE FUNCTION tt._save() RETURNS text[]
LANGUAGE sql AS $f$
    SELECT ARRAY[current_setting('themis.enabled', true), current_setting('themis.device', true),
                 current_setting('themis.min_rows', true), current_setting('themis.fallback', true)]
$f$;

CREATE FUNCTION tt._restore(s text[]) RETURNS void
LANGUAGE plpgsql AS $f$
DECLARE
    names text[] := ARRAY['themis.enabled', 'themis.device', 'themis.min_rows', 'themis.fallback'];
BEGIN
    FOR i IN 1 .. 4 LOOP
        IF s[i] IS NOT NULL THEN
            PERFORM set_config(names[i], s[i], true);
        END IF;
    END LOOP;
END
$f$;

-- run q (a query that CREATE TABLE AS accepts: SELECT, VALUES, EXECUTE) into temp table tbl
CREATE FUNCTION tt._run(q text, tbl text, on_ boolean, fallback boolean DEFAULT false) RETURNS bigint
LANGUAGE plpgsql AS $f$
DECLARE
    n bigint;
BEGIN
    PERFORM tt._themis(on_, fallback);
    EXECUTE format('CREATE TEMP TABLE %I AS %s', tbl, q);
    PERFORM tt._themis(false);
    EXECUTE format('SELECT count(*) FROM %I', tbl) INTO n;
    RETURN n;
END
$f$;

-- number of rows that differ between two result tables (multiset, both directions);
-- ordered: rows are numbered in the order the query returned them (insertion order of the table)
CREATE FUNCTION tt._diff(a text, b text, ordered boolean) RETURNS bigint
LANGUAGE plpgsql AS $f$
DECLARE
    d bigint;
    sa text;
    sb text;
BEGIN
    PERFORM tt._themis(false);
    IF ordered THEN
        sa := format('SELECT row_number() OVER (ORDER BY ctid) AS rn, tt_row::text AS v FROM %I tt_row', a);
        sb := format('SELECT row_number() OVER (ORDER BY ctid) AS rn, tt_row::text AS v FROM %I tt_row', b);
    ELSE
        sa := format('SELECT tt_row::text AS v FROM %I tt_row', a);
        sb := format('SELECT tt_row::text AS v FROM %I tt_row', b);
    END IF;
    EXECUTE format('SELECT (SELECT count(*) FROM (%s EXCEPT ALL %s) x) + (SELECT count(*) FROM (%s EXCEPT ALL %s) y)',
                   sa, sb, sb, sa) INTO d;
    RETURN d;
END
$f$;

-- the lines of EXPLAIN (COSTS OFF) of q that match one of the LIKE patterns, trimmed (the plan's shape)
CREATE FUNCTION tt.explain_lines(q text, pats text[]) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line LIKE ANY (pats) THEN
            RETURN NEXT trim(line);
        END IF;
    END LOOP;
END
$f$;

-- does EXPLAIN of q (themis forced on) show a Custom Scan (Themis)?  NULL if EXPLAIN fails.
CREATE FUNCTION tt.offloaded(q text, fallback boolean DEFAULT false) RETURNS boolean
LANGUAGE plpgsql AS $f$
DECLARE
    saved text[] := tt._save();
    j json;
    r boolean;
BEGIN
    BEGIN
        PERFORM tt._themis(true, fallback);
        EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
        r := jsonb_path_exists(j::jsonb, '$.** ? (@."Custom Plan Provider" == "Themis")');
    EXCEPTION WHEN others THEN
        r := NULL;
    END;
    PERFORM tt._restore(saved);
    RETURN r;
END
$f$;

CREATE FUNCTION tt._yesno(b boolean) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$ SELECT CASE WHEN b THEN 'yes' WHEN NOT b THEN 'no' ELSE 'explain failed' END $f$;

CREATE FUNCTION tt._result(n_off bigint, n_on bigint, d bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $f$
    SELECT CASE WHEN n_off = n_on THEN format('rows=%s diff=%s', n_off, d)
                ELSE format('rows=%s (themis: %s) diff=%s', n_off, n_on, d) END
$f$;

-- q_on run with themis forced on, q_off with themis off; compare the answers
CREATE FUNCTION tt._check(q_on text, q_off text, ordered boolean, fallback boolean)
RETURNS TABLE(result text, themis text)
LANGUAGE plpgsql AS $f$
DECLARE
    saved text[] := tt._save();
    k bigint := nextval('tt.seq');
    a text := 'tt_off_' || k;
    b text := 'tt_on_' || k;
    n_off bigint;
    n_on bigint;
    d bigint;
BEGIN
    n_off := tt._run(q_off, a, false);
    n_on := tt._run(q_on, b, true, fallback);
    d := tt._diff(a, b, ordered);
    themis := tt._yesno(tt.offloaded(q_on, fallback));
    EXECUTE format('DROP TABLE %I, %I', a, b);
    PERFORM tt._restore(saved);
    result := tt._result(n_off, n_on, d);
    RETURN NEXT;
END
$f$;

-- the main check: same multiset of rows with themis off and on
CREATE FUNCTION tt.check(q text) RETURNS TABLE(result text, themis text)
LANGUAGE sql AS $f$ SELECT * FROM tt._check(q, q, false, false) $f$;

-- same rows in the same order (the ORDER BY of q must be total)
CREATE FUNCTION tt.check_ordered(q text) RETURNS TABLE(result text, themis text)
LANGUAGE sql AS $f$ SELECT * FROM tt._check(q, q, true, false) $f$;

-- themis on with fallback allowed (values themis cannot represent: the kept CPU plan must run)
CREATE FUNCTION tt.check_fallback(q text) RETURNS TABLE(result text, themis text)
LANGUAGE sql AS $f$ SELECT * FROM tt._check(q, q, false, true) $f$;

-- q_on (themis on) must give the answer of q_off (themis off), e.g. EXECUTE of a prepared
-- statement against the same query with literal values
CREATE FUNCTION tt.check_pair(q_on text, q_off text) RETURNS TABLE(result text, themis text)
LANGUAGE sql AS $f$ SELECT * FROM tt._check(q_on, q_off, false, false) $f$;

-- queries that may fail: the same error (SQLSTATE and message) or the same rows with themis off and on
CREATE FUNCTION tt.check_error(q text, fallback boolean DEFAULT false) RETURNS TABLE(result text, themis text)
LANGUAGE plpgsql AS $f$
DECLARE
    saved text[] := tt._save();
    k bigint := nextval('tt.seq');
    a text := 'tt_off_' || k;
    b text := 'tt_on_' || k;
    n_off bigint;
    n_on bigint;
    ok_off boolean := true;
    ok_on boolean := true;
    st_off text;
    st_on text;
    m_off text;
    m_on text;
BEGIN
    BEGIN
        n_off := tt._run(q, a, false);
    EXCEPTION WHEN others THEN
        GET STACKED DIAGNOSTICS st_off = RETURNED_SQLSTATE, m_off = MESSAGE_TEXT;
        ok_off := false;
    END;
    BEGIN
        n_on := tt._run(q, b, true, fallback);
    EXCEPTION WHEN others THEN
        GET STACKED DIAGNOSTICS st_on = RETURNED_SQLSTATE, m_on = MESSAGE_TEXT;
        ok_on := false;
    END;
    themis := tt._yesno(tt.offloaded(q, fallback));
    IF ok_off AND ok_on THEN
        result := 'both ok, ' || tt._result(n_off, n_on, tt._diff(a, b, false));
        EXECUTE format('DROP TABLE %I, %I', a, b);
    ELSIF NOT ok_off AND NOT ok_on AND st_off = st_on AND m_off = m_on THEN
        result := format('same error: %s %s', st_off, m_off);
    ELSE
        result := format('MISMATCH: off=%s on=%s',
                         CASE WHEN ok_off THEN 'ok' ELSE st_off || ' ' || m_off END,
                         CASE WHEN ok_on THEN 'ok' ELSE st_on || ' ' || m_on END);
        IF ok_off THEN EXECUTE format('DROP TABLE %I', a); END IF;
        IF ok_on THEN EXECUTE format('DROP TABLE %I', b); END IF;
    END IF;
    PERFORM tt._restore(saved);
    RETURN NEXT;
END
$f$;

-- a data-modifying statement: dml runs with themis off on one copy of table src and with themis on
-- on another copy (the word TARGET in dml names the copy); the affected row counts and the final
-- contents of both copies are compared; themis: EXPLAIN of the statement shows a Themis node
CREATE FUNCTION tt.check_dml(src text, dml text) RETURNS TABLE(result text, themis text)
LANGUAGE plpgsql AS $f$
DECLARE
    saved text[] := tt._save();
    k bigint := nextval('tt.seq');
    a text := 'tt_dml_off_' || k;
    b text := 'tt_dml_on_' || k;
    n_off bigint;
    n_on bigint;
BEGIN
    PERFORM tt._themis(false);
    EXECUTE format('CREATE TABLE %I WITH (autovacuum_enabled = off) AS SELECT * FROM %s', a, src);
    EXECUTE format('CREATE TABLE %I WITH (autovacuum_enabled = off) AS SELECT * FROM %s', b, src);
    EXECUTE format('ANALYZE %I', a);
    EXECUTE format('ANALYZE %I', b);
    EXECUTE replace(dml, 'TARGET', quote_ident(a));
    GET DIAGNOSTICS n_off = ROW_COUNT;
    themis := tt._yesno(tt.offloaded(replace(dml, 'TARGET', quote_ident(b))));
    PERFORM tt._themis(true);
    EXECUTE replace(dml, 'TARGET', quote_ident(b));
    GET DIAGNOSTICS n_on = ROW_COUNT;
    result := tt._result(n_off, n_on, tt._diff(a, b, false));
    EXECUTE format('DROP TABLE %I, %I', a, b);
    PERFORM tt._restore(saved);
    RETURN NEXT;
END
$f$;

-- force offload for plain statements of a test file (CALL prints nothing); themis_reset undoes it
CREATE PROCEDURE tt.themis_on(is_local boolean DEFAULT false)
LANGUAGE plpgsql AS $f$
BEGIN
    PERFORM set_config('themis.enabled', 'on', is_local);
    PERFORM set_config('themis.device', tt._device(), is_local);
    PERFORM set_config('themis.min_rows', '0', is_local);
    PERFORM set_config('themis.fallback', 'off', is_local);
END
$f$;

-- themis.device for the rest of the session as the "on" runs have it (tt.device, else cpu): for files
-- whose EXPLAINs show Themis nodes at the other settings' defaults (themis.device = auto makes none
-- where no GPU is usable)
CREATE PROCEDURE tt.device_on()
LANGUAGE plpgsql AS $f$
BEGIN
    PERFORM set_config('themis.device', tt._device(), false);
END
$f$;

CREATE PROCEDURE tt.themis_reset()
LANGUAGE plpgsql AS $f$
BEGIN
    RESET themis.enabled;
    RESET themis.device;
    RESET themis.min_rows;
    RESET themis.fallback;
END
$f$;

-- q under each join method (the other two disabled): one row per method
CREATE FUNCTION tt.check_join_methods(q text) RETURNS TABLE(method text, result text, themis text)
LANGUAGE plpgsql AS $f$
DECLARE
    old_h text := current_setting('enable_hashjoin');
    old_m text := current_setting('enable_mergejoin');
    old_n text := current_setting('enable_nestloop');
BEGIN
    FOREACH method IN ARRAY ARRAY['hash', 'merge', 'nestloop'] LOOP
        PERFORM set_config('enable_hashjoin', (method = 'hash')::text, true);
        PERFORM set_config('enable_mergejoin', (method = 'merge')::text, true);
        PERFORM set_config('enable_nestloop', (method = 'nestloop')::text, true);
        SELECT c.result, c.themis INTO result, themis FROM tt._check(q, q, false, false) c;
        RETURN NEXT;
    END LOOP;
    PERFORM set_config('enable_hashjoin', old_h, true);
    PERFORM set_config('enable_mergejoin', old_m, true);
    PERFORM set_config('enable_nestloop', old_n, true);
END
$f$;

-- q with hashed and with sorted aggregation: one row per strategy
CREATE FUNCTION tt.check_agg_methods(q text) RETURNS TABLE(method text, result text, themis text)
LANGUAGE plpgsql AS $f$
DECLARE
    old_h text := current_setting('enable_hashagg');
BEGIN
    FOREACH method IN ARRAY ARRAY['hash', 'sort'] LOOP
        PERFORM set_config('enable_hashagg', (method = 'hash')::text, true);
        SELECT c.result, c.themis INTO result, themis FROM tt._check(q, q, false, false) c;
        RETURN NEXT;
    END LOOP;
    PERFORM set_config('enable_hashagg', old_h, true);
END
$f$;

-- self-test of the helpers
SELECT * FROM tt.check($$SELECT g AS x FROM generate_series(1, 10) g$$);
SELECT * FROM tt.check_ordered($$SELECT g AS x FROM generate_series(1, 10) g ORDER BY g DESC$$);
SELECT * FROM tt.check_pair($$SELECT g AS x FROM generate_series(1, 10) g$$,
                            $$SELECT g AS x FROM generate_series(2, 11) g$$);   -- diff=2
SELECT * FROM tt.check_pair($$SELECT 1.0 AS x$$, $$SELECT 1.00 AS x$$);          -- diff=2 (scale)
SELECT * FROM tt.check_error($$SELECT 1 / (g - 5) AS x FROM generate_series(1, 10) g$$);
SELECT * FROM tt.check_error($$SELECT 1 / g AS x FROM generate_series(1, 10) g$$);
SELECT * FROM tt._check($$SELECT g AS x FROM generate_series(1, 10) g ORDER BY g$$,
                        $$SELECT g AS x FROM generate_series(1, 10) g ORDER BY g DESC$$, true, false);  -- diff=20
SELECT * FROM tt.check_join_methods($$SELECT a.x FROM generate_series(1, 5) a(x) JOIN generate_series(3, 9) b(y) ON a.x = b.y$$);
SELECT * FROM tt.check_agg_methods($$SELECT x % 3 AS k, count(*) AS n FROM generate_series(1, 10) a(x) GROUP BY 1$$);
SELECT * FROM tt.check_fallback($$SELECT g AS x FROM generate_series(1, 10) g$$);
SELECT * FROM tt.check_dml('(SELECT g AS x FROM generate_series(1, 5) g) s', $$DELETE FROM TARGET WHERE x > 3$$);
-- the caller's settings are restored (also inside a transaction)
BEGIN;
SET LOCAL themis.min_rows = 12345;
SELECT * FROM tt.check($$SELECT g AS x FROM generate_series(1, 3) g$$);
SHOW themis.min_rows;
COMMIT;
