/* themis--0.1.sql — SQL objects of the themis extension (schema themis) */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION themis" to load this file. \quit

-- Every name is schema-qualified (@extschema@ or pg_catalog): the script must not depend on search_path.

CREATE FUNCTION @extschema@.version()
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'themis_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.version() IS 'version of the loaded themis library';

CREATE FUNCTION @extschema@.gpu_status(
	OUT usable pg_catalog.bool,
	OUT detail pg_catalog.text,
	OUT cuda_build pg_catalog.text,
	OUT device_count pg_catalog.int4,
	OUT driver_version pg_catalog.text,
	OUT daemon_pid pg_catalog.int4,
	OUT device pg_catalog.text,
	OUT memory_total pg_catalog.int8,
	OUT cache_arena pg_catalog.int8,
	OUT cache_arena_used pg_catalog.int8,
	OUT cache_bytes pg_catalog.int8,
	OUT cache_entries pg_catalog.int8,
	OUT work_pool pg_catalog.int8,
	OUT work_pool_peak pg_catalog.int8,
	OUT queries pg_catalog.int8,
	OUT cache_hits pg_catalog.int8,
	OUT cache_misses pg_catalog.int8,
	OUT uptime_s pg_catalog.float8)
RETURNS pg_catalog.record
AS 'MODULE_PATHNAME', 'themis_gpu_status'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.gpu_status() IS
	'state of the GPU daemon themis-gpud: whether queries can run on a GPU (usable), the device or the reason why not (detail), its CUDA build, devices, driver, pid, device memory, cache arena and work pool (bytes), cached tables, queries run, cache hits and misses, uptime';

CREATE FUNCTION @extschema@.cache_table(rel pg_catalog.regclass)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'themis_cache_table'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.cache_table(pg_catalog.regclass) IS
	'loads every column of the table that themis can represent into the GPU column cache, as the current snapshot sees it; returns the bytes cached';

CREATE FUNCTION @extschema@.cache_wait()
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'themis_cache_wait'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.cache_wait() IS
	'waits until no background load of this database''s tables into the GPU column cache is queued or running (cold starts, themis.cold_plan_fraction); returns whether there was one';

CREATE FUNCTION @extschema@.cache_drop(rel pg_catalog.regclass DEFAULT NULL)
RETURNS pg_catalog.int8
AS 'MODULE_PATHNAME', 'themis_cache_drop'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.cache_drop(pg_catalog.regclass) IS
	'drops the table from the GPU column cache (NULL: every table of this database; superuser only); returns the entries dropped';

CREATE FUNCTION @extschema@.cache_entries(
	OUT relation pg_catalog.regclass,
	OUT column_name pg_catalog.text,
	OUT column_type pg_catalog.text,
	OUT rows pg_catalog.int8,
	OUT bytes pg_catalog.int8,
	OUT hits pg_catalog.int8,
	OUT valid pg_catalog.bool,
	OUT age_s pg_catalog.float8,
	OUT idle_s pg_catalog.float8)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'themis_cache_entries'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.cache_entries() IS
	'one row per column of this database in the GPU column cache: rows, device bytes, queries served by its table entry, whether it may serve the current snapshot (valid), seconds since loaded and since last used';

CREATE VIEW @extschema@.cache AS SELECT * FROM @extschema@.cache_entries();

COMMENT ON VIEW @extschema@.cache IS 'the GPU column cache of this database (see themis.cache_entries())';

GRANT SELECT ON @extschema@.cache TO PUBLIC;
REVOKE EXECUTE ON FUNCTION @extschema@.cache_drop(pg_catalog.regclass) FROM PUBLIC;

GRANT USAGE ON SCHEMA @extschema@ TO PUBLIC;

-- ---- MVCC modification counters of the GPU column cache (src/modcount.c) ----

CREATE FUNCTION @extschema@.modcount(
	rel pg_catalog.regclass,
	OUT available pg_catalog.bool,
	OUT table_count pg_catalog.int8,
	OUT global_count pg_catalog.int8,
	OUT max_writer pg_catalog.xid8,
	OUT global_max_writer pg_catalog.xid8,
	OUT cacheable pg_catalog.bool,
	OUT clean_now pg_catalog.bool)
RETURNS pg_catalog.record
AS 'MODULE_PATHNAME', 'themis_modcount'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.modcount(pg_catalog.regclass) IS
	'modification counters of a table (debugging): whether they exist (themis preloaded), the write count and largest writer xid of its slot (and its partition ancestors''), the same for utility statements (global), whether the GPU cache may be used for it, and whether an entry built with the current snapshot would be clean';

REVOKE EXECUTE ON FUNCTION @extschema@.modcount(pg_catalog.regclass) FROM PUBLIC;

-- ---- the column loader, for tests (src/colbuild_parallel.c) ----

CREATE FUNCTION @extschema@.debug_colset_checksum(
	rel pg_catalog.regclass,
	parallel pg_catalog.bool,
	OUT rows pg_catalog.int8,
	OUT checksum pg_catalog.text,
	OUT workers pg_catalog.int4)
RETURNS pg_catalog.record
AS 'MODULE_PATHNAME', 'themis_debug_colset_checksum'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.debug_colset_checksum(pg_catalog.regclass, pg_catalog.bool) IS
	'reads every column of the table that themis can represent as the GPU loader does (parallel: with parallel workers where possible), with the current snapshot; returns the rows, the md5 of the columns in the GPU layout and the parallel workers launched';

REVOKE EXECUTE ON FUNCTION @extschema@.debug_colset_checksum(pg_catalog.regclass, pg_catalog.bool) FROM PUBLIC;
