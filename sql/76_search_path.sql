--
-- 76_search_path: CREATE EXTENSION themis under a hostile search_path (a schema ahead of pg_catalog
-- with look-alike types and functions) creates the same objects: every name in the script is
-- schema-qualified, nothing resolves to the intruder's objects.
--
SET client_min_messages = warning;
CREATE DATABASE themis_search_path;
\c themis_search_path
SET client_min_messages = warning;
CREATE SCHEMA evil;
CREATE DOMAIN evil.text AS pg_catalog.int4;
CREATE DOMAIN evil.int8 AS pg_catalog.int4;
CREATE DOMAIN evil.bool AS pg_catalog.int4;
CREATE DOMAIN evil.regclass AS pg_catalog.int4;
CREATE DOMAIN evil.record AS pg_catalog.int4;
CREATE FUNCTION evil.cache_entries() RETURNS SETOF pg_catalog.int4 LANGUAGE plpgsql
    AS $$BEGIN RAISE EXCEPTION 'hijacked: evil.cache_entries'; END$$;
CREATE FUNCTION evil.version() RETURNS pg_catalog.int4 LANGUAGE plpgsql
    AS $$BEGIN RAISE EXCEPTION 'hijacked: evil.version'; END$$;
SET search_path = evil, pg_catalog, public;
CREATE EXTENSION themis;
RESET search_path;
-- the functions' argument and result types, and the view, are pg_catalog's and themis's
SELECT p.proname, pg_catalog.format_type(p.prorettype, NULL) AS returns,
       (SELECT pg_catalog.string_agg(n.nspname, ',' ORDER BY n.nspname)
          FROM pg_catalog.unnest(coalesce(p.proallargtypes, p.proargtypes::pg_catalog.oid[])) a(t)
          JOIN pg_catalog.pg_type ty ON ty.oid = a.t JOIN pg_catalog.pg_namespace n ON n.oid = ty.typnamespace) AS arg_type_schemas
FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace ns ON ns.oid = p.pronamespace
WHERE ns.nspname = 'themis' ORDER BY 1;
SELECT pg_catalog.pg_get_viewdef('themis.cache'::pg_catalog.regclass) LIKE '%themis.cache_entries()%' AS view_uses_themis;
SELECT count(*) AS evil_dependents FROM pg_catalog.pg_depend d
WHERE d.refobjid IN (SELECT oid FROM pg_catalog.pg_type WHERE typnamespace = 'evil'::pg_catalog.regnamespace
                     UNION ALL SELECT oid FROM pg_catalog.pg_proc WHERE pronamespace = 'evil'::pg_catalog.regnamespace)
  AND d.deptype <> 'n' AND d.classid <> 'pg_catalog.pg_type'::pg_catalog.regclass;
-- and they work under that search_path too
SET search_path = evil, pg_catalog, public;
SELECT themis.version() IS NOT NULL AS version_ok;
SELECT count(*) >= 0 AS cache_ok FROM themis.cache;
RESET search_path;
\c contrib_regression
DROP DATABASE themis_search_path;
RESET client_min_messages;
