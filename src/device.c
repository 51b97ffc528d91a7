/*
 * device.c — the SQL functions themis.version() and themis.gpu_status().
 *
 * Backends never touch CUDA: the GPU belongs to the daemon themis-gpud, and gpu_status() asks it
 * (gpud_client.c).  When the daemon cannot be reached, gpu_status() says why and leaves the rest NULL.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "themis.h"
#include "gpud_client.h"

#define THEMIS_VERSION_STR "0.1"
#define GPU_STATUS_NATTS 18

PG_FUNCTION_INFO_V1(themis_version);
PG_FUNCTION_INFO_V1(themis_gpu_status);

/*
 * themis.version() returns text: the version of the loaded library.
 */
Datum
themis_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(THEMIS_VERSION_STR));
}

static char *
cuda_version_text(int v)
{
	return psprintf("%d.%d", v / 1000, (v % 1000) / 10);
}

/*
 * themis.gpu_status(): usable, detail (the device or why not), cuda_build, device_count, driver_version,
 * daemon_pid, device, memory_total, cache_arena, cache_arena_used, cache_bytes, cache_entries, work_pool,
 * work_pool_peak, queries, cache_hits, cache_misses, uptime_s — see themis--0.1.sql.
 */
Datum
themis_gpu_status(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[GPU_STATUS_NATTS];
	bool		nulls[GPU_STATUS_NATTS];
	TmxStatus	st;
	const char *why = NULL;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);
	if (tupdesc->natts != GPU_STATUS_NATTS)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("themis.gpu_status() has an unexpected definition"),
				 errhint("Update the extension: ALTER EXTENSION themis UPDATE.")));

	memset(nulls, true, sizeof(nulls));
	if (!tm_gpud_status(&st, &why))
	{
		values[0] = BoolGetDatum(false);
		values[1] = CStringGetTextDatum(why ? why : "the GPU daemon cannot be reached");
		nulls[0] = nulls[1] = false;
		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
	}
	memset(nulls, false, sizeof(nulls));
	values[0] = BoolGetDatum(st.usable != 0);
	values[1] = CStringGetTextDatum(st.detail);
	values[2] = CStringGetTextDatum(psprintf("CUDA %s", cuda_version_text(st.runtime_version)));
	values[3] = Int32GetDatum(st.ndevices);
	if (st.driver_version > 0)
		values[4] = CStringGetTextDatum(cuda_version_text(st.driver_version));
	else
		nulls[4] = true;
	values[5] = Int32GetDatum(st.pid);
	if (st.usable)
		values[6] = CStringGetTextDatum(psprintf("%d: %s (sm_%d%d)", st.device, st.name, st.cc_major, st.cc_minor));
	else
		nulls[6] = true;
	values[7] = Int64GetDatum(st.mem_total);
	values[8] = Int64GetDatum(st.arena_size);
	values[9] = Int64GetDatum(st.arena_used);
	values[10] = Int64GetDatum(st.cache_bytes);
	values[11] = Int64GetDatum(st.cache_entries);
	values[12] = Int64GetDatum(st.pool_size);
	values[13] = Int64GetDatum(st.pool_peak);
	values[14] = Int64GetDatum(st.queries);
	values[15] = Int64GetDatum(st.cache_hits);
	values[16] = Int64GetDatum(st.cache_misses);
	values[17] = Float8GetDatum(st.uptime_s);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
