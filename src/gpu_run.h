/*
 * gpu_run.h — running a themis plan on the GPU daemon (gpu_run.c).
 */
#ifndef THEMIS_GPU_RUN_H
#define THEMIS_GPU_RUN_H

#include "themis.h"

typedef struct TmGpuRunInfo
{
	bool		ran;			/* the daemon ran the plan */
	bool		failed;			/* the daemon reported a failure (not an expression error) */
	int		   *use;			/* per pipeline: TmxSourceUse */
	double		gpu_ms;			/* the daemon's execution time */
	double		upload_ms;		/* the daemon's time to upload inline sources */
	double		read_ms;		/* this backend's time to read inline sources (tables, subplans) */
	double		pack_ms;		/* building the requests (inline columns copied into their memfds) */
	double		wait_ms;		/* the requests' round trips to the daemon (its upload and GPU time included) */
	double		convert_ms;		/* the result memfd made into a result set */
	int64		bytes_uploaded;
	int64		bytes_sent;		/* bytes of inline sources written to shared memory */
	int64		topn_rows_in;	/* rows before the daemon's top-N cut; -1: it made none */
	int			loads_streamed; /* sources loaded into the cache by LOADs of their own (stream_loads) */
	double		bgload_wait_ms; /* waiting for background loads of the sources' tables (bgload.c) */

	/*
	 * Cold start (themis.cold_plan_fraction): the daemon lacked tables, or background workers load them,
	 * that the kept plan, estimated at kept_cost, reads more cheaply than a scan of them (scan_cost):
	 * NULL is returned, the caller runs the kept plan and, with cold_queue, queues background loads of
	 * cold_relids[i]'s columns cold_attnos[i][0..natts) as cold_roleid
	 */
	bool		cold;
	bool		cold_queue;
	Oid			cold_roleid;
	double		cold_kept_cost;
	double		cold_scan_cost;
	int			ncold;
	Oid		   *cold_relids;
	int16	  **cold_attnos;
	int		   *cold_natts;
} TmGpuRunInfo;

/* a top-N cut the daemon makes on the output result (topn.c: themis_topn_device) */
typedef struct TmGpuRunTopN
{
	int64		n;				/* 0: none */
	int			col;			/* output column of the sort key */
	bool		desc;
	bool		nulls_first;
} TmGpuRunTopN;

/*
 * Run plan (whose serialized form is blob) on the daemon.  flags: TMX_FLAG_* (fault injection).  topn:
 * NULL, or a cut of the output rows to make on the device.  kept_cost: the estimated cost of the
 * PostgreSQL plan the caller may run instead on a cold start (info->cold), < 0: none.  Returns the
 * output result, or NULL with *error (an expression error) or *reason (GPU path unavailable / failed,
 * or a cold start).
 */
extern TmResultSet *tm_gpu_run(const TmPlan *plan, const bytea *blob, EState *estate,
							   const TmValue *params, const bool *paramnulls,
							   PlanState **inputs, int ninputs, int flags, const TmGpuRunTopN *topn,
							   double kept_cost,
							   TmPipelineStats *stats, TmGpuRunInfo *info,
							   const char **reason, TmStatus *error);

#endif							/* THEMIS_GPU_RUN_H */
