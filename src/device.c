/*
 * device.c — is a GPU usable by this backend?  And the SQL functions themis.version() and
 * themis.gpu_status().
 *
 * The answer of themis_gpu_available() is computed once per process (backend or parallel worker) and
 * cached: finding the driver costs milliseconds, and whether a driver and device exist does not change
 * while a backend lives.  It is never computed in the postmaster (_PG_init does not call it), so no
 * CUDA state is inherited through fork().
 *
 * Built with THEMIS_NO_CUDA (no nvcc, or make CUDA=no), no GPU is ever usable and the reason says so.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "themis.h"

#ifndef THEMIS_NO_CUDA
#include "tm_cuda.h"
#endif

#define THEMIS_VERSION_STR "0.1"

PG_FUNCTION_INFO_V1(themis_version);
PG_FUNCTION_INFO_V1(themis_gpu_status);

/* per-process cache of themis_gpu_available() */
static int	gpu_cache_pid = 0;		/* MyProcPid when computed; 0: not yet */
static bool gpu_cache_usable = false;
static char gpu_cache_why[512];

#ifndef THEMIS_NO_CUDA
/*
 * Look for a device themis can use: the first one whose compute capability this build has code for.
 * Sets gpu_cache_usable / gpu_cache_why.
 */
static void
gpu_probe(void)
{
	char		err[256];
	int			n;
	int			dev;

	n = tm_cuda_device_count(err, sizeof(err));
	if (n < 0)
	{
		gpu_cache_usable = false;
		snprintf(gpu_cache_why, sizeof(gpu_cache_why), "%s", err);
		return;
	}
	if (n == 0)
	{
		gpu_cache_usable = false;
		snprintf(gpu_cache_why, sizeof(gpu_cache_why), "no CUDA device found");
		return;
	}

	for (dev = 0; dev < n; dev++)
	{
		TmCudaDeviceInfo info;

		if (tm_cuda_device_info(dev, &info, err, sizeof(err)) < 0)
		{
			gpu_cache_usable = false;
			snprintf(gpu_cache_why, sizeof(gpu_cache_why), "device %d: %s", dev, err);
			continue;
		}
		if (info.usable)
		{
			gpu_cache_usable = true;
			snprintf(gpu_cache_why, sizeof(gpu_cache_why),
					 "device %d of %d: %s (sm_%d%d, %d SMs, %zu MiB)",
					 dev, n, info.name, info.cc_major, info.cc_minor,
					 info.multiprocessors, info.total_mem >> 20);
			return;
		}
		gpu_cache_usable = false;
		snprintf(gpu_cache_why, sizeof(gpu_cache_why),
				 "device %d: %s has compute capability %d.%d; themis was built for %s",
				 dev, info.name, info.cc_major, info.cc_minor, tm_cuda_arch_list());
	}
}
#endif							/* !THEMIS_NO_CUDA */

/*
 * True if a CUDA device can be used by this process.  *why (if why is not NULL) is set to a static
 * string: the device used, or the reason why none can be.
 */
bool
themis_gpu_available(const char **why)
{
	if (gpu_cache_pid != MyProcPid)
	{
#ifdef THEMIS_NO_CUDA
		gpu_cache_usable = false;
		snprintf(gpu_cache_why, sizeof(gpu_cache_why), "themis was built without CUDA");
#else
		gpu_probe();
#endif
		gpu_cache_pid = MyProcPid;
		elog(DEBUG1, "themis: GPU %s: %s", gpu_cache_usable ? "usable" : "not usable", gpu_cache_why);
	}
	if (why)
		*why = gpu_cache_why;
	return gpu_cache_usable;
}

/*
 * themis.version() returns text: the version of the loaded library.
 */
Datum
themis_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(THEMIS_VERSION_STR));
}

/*
 * themis.gpu_status(OUT usable bool, OUT detail text, OUT cuda_build text, OUT device_count int4,
 *                   OUT driver_version text)
 *
 * usable, detail:  themis_gpu_available() and its reason or device
 * cuda_build:      "CUDA 13.0, sm_80 sm_90" or "none"
 * device_count:    CUDA devices seen (NULL if the driver cannot be used or no CUDA build)
 * driver_version:  CUDA version the driver supports ("13.0"), NULL if no driver
 */
Datum
themis_gpu_status(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5];
	const char *why;
	bool		usable;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);
	if (tupdesc->natts != 5)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("themis.gpu_status() has an unexpected definition"),
				 errhint("Update the extension: ALTER EXTENSION themis UPDATE.")));

	memset(nulls, 0, sizeof(nulls));
	usable = themis_gpu_available(&why);
	values[0] = BoolGetDatum(usable);
	values[1] = CStringGetTextDatum(why);

#ifdef THEMIS_NO_CUDA
	values[2] = CStringGetTextDatum("none");
	nulls[3] = true;
	nulls[4] = true;
#else
	{
		int			rt = 0;
		int			drv = 0;
		int			n;
		char		err[256];

		tm_cuda_versions(&rt, &drv);
		values[2] = CStringGetTextDatum(psprintf("CUDA %d.%d, %s",
												 rt / 1000, (rt % 1000) / 10,
												 tm_cuda_arch_list()));
		n = tm_cuda_device_count(err, sizeof(err));
		if (n >= 0)
			values[3] = Int32GetDatum(n);
		else
			nulls[3] = true;
		if (drv > 0)
			values[4] = CStringGetTextDatum(psprintf("%d.%d", drv / 1000, (drv % 1000) / 10));
		else
			nulls[4] = true;
	}
#endif

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
