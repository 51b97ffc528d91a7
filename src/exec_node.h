/*
 * exec_node.h — private state of the Custom Scan (Themis) executor node, shared by exec_node.c (which
 * runs it) and explain.c (which shows it).  Not part of the module contract (themis.h).
 */
#ifndef THEMIS_EXEC_NODE_H
#define THEMIS_EXEC_NODE_H

#include "themis.h"

/* ORDER BY ... LIMIT above the node (topn.c) */
typedef struct ThemisTopN
{
	int64		n;				/* LIMIT + OFFSET; 0: not marked */
	int			col;			/* scan-tuple column (0-based) of the Sort's first key */
	Oid			sortop;
	Oid			collation;
	bool		nulls_first;
} ThemisTopN;

/* a Sort right above the node, or the one it took the place of (presort.c): its keys */
typedef struct ThemisPresortKey
{
	int			col;			/* scan-tuple column (0-based) */
	Oid			sortop;
	Oid			collation;
	bool		nulls_first;
	AttrNumber	attno;			/* output column (1-based: the Sort's sortColIdx) */
} ThemisPresortKey;

typedef struct ThemisPresort
{
	int			nkeys;			/* 0: not marked */
	bool		elided;			/* the Sort was dropped: the node guarantees its order */
	ThemisPresortKey *keys;
} ThemisPresort;

typedef struct ThemisScanState
{
	CustomScanState css;

	TmPlan	   *plan;			/* deserialized from custom_private */
	List	   *param_exprs;	/* ExprStates of custom_exprs (level -1 slots) */
	Bitmapset  *param_ids;		/* PARAM_EXEC ids those expressions read */
	bool		recompute_always;	/* chgParam cannot tell when parameters change */
	int			eflags;

	/* the current run */
	MemoryContext runcxt;		/* result, parameters: reset when recomputed */
	TmResultSet *result;		/* materialized output, NULL until computed */
	int64		cursor;			/* next row of result (of rowmap where set) to return */
	int64	   *rowmap;			/* top-N: the result rows to return, in order; NULL: all */
	int64		nrowmap;
	ThemisTopN	topn;			/* n = 0: none */
	int64		topn_rows_in;	/* EXPLAIN ANALYZE: result rows and rows kept, over all runs */
	int64		topn_rows_kept;
	ThemisPresort presort;		/* nkeys = 0: none */
	int64		presort_rows;	/* EXPLAIN ANALYZE, over all runs: rows returned in the Sort's order */
	int			presort_skipped;	/* runs where a key did not compare natively (Sort kept) */
	int			presort_pg_runs;	/* runs sorted with PostgreSQL's comparators (Sort elided) */
	int			presort_unordered;	/* runs whose order the Sort's comparators disagreed with */

	/* the tables the pipelines read, open from begin to end (themis_open_tables) */
	Relation   *rels;
	int			nrels;

	/* parts of the plan PostgreSQL runs for SUBPLAN sources: custom_plans[1..] */
	PlanState **inputs;
	int			ninputs;
	Bitmapset  *input_params;	/* parameters they depend on */
	bool		inputs_used;	/* they ran: rescan before the next run */

	/* fallback to the kept CPU subtree */
	bool		fallback;		/* tuples come from fallback_ps */
	PlanState  *fallback_ps;	/* initialized lazily */
	char	   *fallback_reason;

	/* a cold start (gpu_run.c, bgload.c): the kept plan ran; at the end, these tables load in the background */
	char	   *cold_reason;	/* EXPLAIN; NULL: none */
	int			ncold;			/* loads to queue (0: none; the tables may load already) */
	Oid			cold_roleid;	/* the role the loads run as: the query's when it chose */
	Oid		   *cold_relids;
	int16	  **cold_attnos;
	int		   *cold_natts;
	double		bgload_wait_ms; /* EXPLAIN ANALYZE: waiting for background loads */

	/* EXPLAIN ANALYZE: totals over all runs */
	int			nruns;
	TmPipelineStats *stats;		/* npipelines, summed over runs */
	const char *device;			/* device of the last run: "gpu", "cpu", or NULL if none ran */
	double		gpu_ms;			/* GPU runs: the daemon's execution and upload times */
	double		gpu_upload_ms;
	double		gpu_read_ms;	/* reading the columns of inline sources here */
	double		gpu_pack_ms;	/* building requests */
	double		gpu_wait_ms;	/* requests' round trips to the daemon */
	double		gpu_convert_ms; /* result memfds made into result sets */
	double		presort_ms;		/* the result put in the order of the Sort above (presort.c) */
	int64		gpu_bytes_sent;	/* bytes of sources sent through shared memory */
	int			cache_hits;		/* sources served from the GPU column cache */
	int			cache_loads;	/* sources read here and kept in the cache */
	int			inline_sources;	/* sources read here and not kept */
	int			loads_streamed;	/* of cache_loads, those sent in LOADs of their own (stream_loads) */
} ThemisScanState;

/* topn.c */
struct TmGpuRunTopN;
extern void themis_topn_mark(PlannedStmt *stmt);
extern bool themis_topn_get(CustomScan *cs, ThemisTopN *t);
extern void themis_topn_select(ThemisScanState *ts, const ThemisTopN *t);
extern bool themis_topn_device(ThemisScanState *ts, struct TmGpuRunTopN *d);
extern int	themis_scan_column(CustomScan *cs, AttrNumber attno);
extern bool themis_native_order(const TmType *t, Oid sortop, bool *desc);

/* planner.c: every plan node of a finished plan, parents first */
extern void themis_walk_plans(PlannedStmt *stmt, void (*visit) (Plan *, void *), void *arg);

/* presort.c */
extern void themis_presort_mark(PlannedStmt *stmt);
extern void themis_presort_elide(PlannedStmt *stmt, int cursorOptions, int *next_node_id);
extern bool themis_presort_get(CustomScan *cs, ThemisPresort *p);
extern bool themis_presort_apply(ThemisScanState *ts);
extern void themis_presort_check(ThemisScanState *ts);

#endif							/* THEMIS_EXEC_NODE_H */
