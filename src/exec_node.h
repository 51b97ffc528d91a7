/*
 * exec_node.h — private state of the Custom Scan (Themis) executor node, shared by exec_node.c (which
 * runs it) and explain.c (which shows it).  Not part of the module contract (themis.h).
 */
#ifndef THEMIS_EXEC_NODE_H
#define THEMIS_EXEC_NODE_H

#include "themis.h"

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
	int64		cursor;			/* next row of result to return */

	/* parts of the plan PostgreSQL runs for SUBPLAN sources: custom_plans[1..] */
	PlanState **inputs;
	int			ninputs;
	Bitmapset  *input_params;	/* parameters they depend on */
	bool		inputs_used;	/* they ran: rescan before the next run */

	/* fallback to the kept CPU subtree */
	bool		fallback;		/* tuples come from fallback_ps */
	PlanState  *fallback_ps;	/* initialized lazily */
	char	   *fallback_reason;

	/* EXPLAIN ANALYZE: totals over all runs */
	int			nruns;
	TmPipelineStats *stats;		/* npipelines, summed over runs */
	const char *device;			/* device of the last run: "cpu", or NULL if none ran */
} ThemisScanState;

#endif							/* THEMIS_EXEC_NODE_H */
