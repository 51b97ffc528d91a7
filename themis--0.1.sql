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
	OUT driver_version pg_catalog.text)
RETURNS pg_catalog.record
AS 'MODULE_PATHNAME', 'themis_gpu_status'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.gpu_status() IS
	'whether this backend can use a GPU (usable), the device or the reason why not (detail), the CUDA build, devices seen and the driver''s CUDA version';

GRANT USAGE ON SCHEMA @extschema@ TO PUBLIC;
