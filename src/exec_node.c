/*
 * exec_node.c — the executor node of Custom Scan (Themis).
 *
 * On the first fetch the node evaluates its parameters with PostgreSQL, runs its TmPlan into a
 * materialized result — on the GPU daemon (gpu_run.c) for themis.device = gpu / auto, on the CPU executor
 * (cpu_exec.c) for cpu — and returns the result's rows through ExecScan,
 * i.e. with the node's own projection and qual over the scan tuple (described by custom_scan_tlist).
 * When themis cannot run the plan (themis.device = gpu or auto and the GPU path is unavailable or
 * failed, a value themis cannot represent), it falls back to the CPU subtree it replaced (custom_plans), initialized lazily, whose
 * tuples are already in the node's output format (and in its order where the node took a Sort's place:
 * presort.c puts a Sort over that subtree); with themis.fallback = off that is an ERROR instead.
 *
 * All memory of a run lives in a context below es_query_cxt, so nothing survives the query, errors
 * included.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "themis.h"
#include "bgload.h"
#include "exec_node.h"
#include "gpu_run.h"
#include "themis/tm_gpud_proto.h"

static Node *themis_create_scan_state(CustomScan *cscan);
static void themis_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *themis_exec(CustomScanState *node);
static void themis_end(CustomScanState *node);
static void themis_rescan(CustomScanState *node);

CustomScanMethods themis_scan_methods = {
	"Themis",
	themis_create_scan_state
};

static CustomExecMethods themis_exec_methods = {
	.CustomName = "Themis",
	.BeginCustomScan = themis_begin,
	.ExecCustomScan = themis_exec,
	.EndCustomScan = themis_end,
	.ReScanCustomScan = themis_rescan,
	.ExplainCustomScan = themis_explain
};

void
themis_register_exec(void)
{
	RegisterCustomScanMethods(&themis_scan_methods);
}

static Node *
themis_create_scan_state(CustomScan *cscan)
{
	ThemisScanState *ts = (ThemisScanState *) newNode(sizeof(ThemisScanState), T_CustomScanState);

	ts->css.methods = &themis_exec_methods;
	return (Node *) ts;
}

/* collect the PARAM_EXEC ids read by the parameter expressions; SubPlans make that unreliable */
typedef struct ParamWalkContext
{
	Bitmapset  *ids;
	bool		has_subplan;
} ParamWalkContext;

static bool
param_walker(Node *node, ParamWalkContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
	{
		Param	   *p = (Param *) node;

		if (p->paramkind == PARAM_EXEC)
			cxt->ids = bms_add_member(cxt->ids, p->paramid);
		return false;
	}
	if (IsA(node, SubPlan) || IsA(node, AlternativeSubPlan))
		cxt->has_subplan = true;
	return expression_tree_walker(node, param_walker, (void *) cxt);
}

/*
 * Open the tables the pipelines read, and keep them open until the node ends, as PostgreSQL's scans do
 * (ExecInitSeqScan): while they are open, TRUNCATE, ALTER TABLE or DROP TABLE of one of them in this
 * session fails ("being used by active queries", CheckTableNotInUse), from a function the query calls or
 * between two FETCHes of a cursor.  The node reads them only when it computes its result.
 */
static void
themis_open_tables(ThemisScanState *ts)
{
	TmPlan	   *plan = ts->plan;

	ts->rels = palloc0(sizeof(Relation) * Max(plan->npipelines, 1));
	ts->nrels = 0;
	for (int p = 0; p < plan->npipelines; p++)
	{
		Oid			relid = plan->pipelines[p].relid;
		bool		seen = false;

		if (plan->pipelines[p].srckind != TM_SRC_TABLE || !OidIsValid(relid))
			continue;
		for (int i = 0; i < ts->nrels && !seen; i++)
			seen = RelationGetRelid(ts->rels[i]) == relid;
		if (!seen)
		{
			Relation	rel = table_open(relid, AccessShareLock);

			ts->rels[ts->nrels++] = rel;
			/*
			 * as ExecOpenScanRelation: a materialized view WITH NO DATA (refreshed so since planning;
			 * translate.c leaves one that was so at planning to PostgreSQL), unless the plan will not run
			 */
			if ((ts->eflags & (EXEC_FLAG_EXPLAIN_ONLY | EXEC_FLAG_WITH_NO_DATA)) == 0 && !RelationIsScannable(rel))
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("materialized view \"%s\" has not been populated",
								RelationGetRelationName(rel)),
						 errhint("Use the REFRESH MATERIALIZED VIEW command.")));
		}
	}
}

static void
themis_begin(CustomScanState *node, EState *estate, int eflags)
{
	ThemisScanState *ts = (ThemisScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Const	   *blob;
	ParamWalkContext pwc;
	TupleDesc	scandesc;
	const TmResult *out;
	int			i;

	ts->eflags = eflags;

	if (list_length(cscan->custom_private) < 1 || !IsA(linitial(cscan->custom_private), Const))
		elog(ERROR, "themis: custom scan has no plan");
	blob = (Const *) linitial(cscan->custom_private);
	if (blob->constisnull || blob->consttype != BYTEAOID)
		elog(ERROR, "themis: custom scan has no plan");
	ts->plan = tm_plan_deserialize(DatumGetByteaPP(blob->constvalue));
	themis_topn_get(cscan, &ts->topn);
	themis_presort_get(cscan, &ts->presort);
	themis_open_tables(ts);

	if (ts->plan->nparams != list_length(cscan->custom_exprs))
		elog(ERROR, "themis: plan has %d parameters but the node has %d expressions",
			 ts->plan->nparams, list_length(cscan->custom_exprs));
	if (ts->plan->output_result < 0 || ts->plan->output_result >= ts->plan->nresults)
		elog(ERROR, "themis: plan has an invalid output result");
	out = &ts->plan->results[ts->plan->output_result];
	scandesc = node->ss.ss_ScanTupleSlot->tts_tupleDescriptor;
	if (scandesc->natts != out->ncols)
		elog(ERROR, "themis: scan tuple has %d columns but the plan's output has %d",
			 scandesc->natts, out->ncols);
	for (i = 0; i < out->ncols; i++)
		if (TupleDescAttr(scandesc, i)->atttypid != out->coltypes[i].pgtype)
			elog(ERROR, "themis: column %d of the scan tuple has type %u but the plan's output has %u",
				 i + 1, TupleDescAttr(scandesc, i)->atttypid, out->coltypes[i].pgtype);

	ts->param_exprs = ExecInitExprList(cscan->custom_exprs, &node->ss.ps);
	memset(&pwc, 0, sizeof(pwc));
	param_walker((Node *) cscan->custom_exprs, &pwc);
	ts->param_ids = pwc.ids;
	ts->recompute_always = pwc.has_subplan ||
		(!bms_is_empty(pwc.ids) && !bms_is_subset(pwc.ids, cscan->scan.plan.allParam));

	/* the parts of the plan that PostgreSQL runs for themis (SUBPLAN sources): shown as children */
	ts->ninputs = list_length(cscan->custom_plans) - 1;
	if (ts->ninputs > 0)
	{
		ListCell   *lc;

		ts->inputs = palloc0(sizeof(PlanState *) * ts->ninputs);
		i = 0;
		for_each_from(lc, cscan->custom_plans, 1)
		{
			Plan	   *p = (Plan *) lfirst(lc);

			ts->inputs[i] = ExecInitNode(p, estate, eflags & ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK));
			node->custom_ps = lappend(node->custom_ps, ts->inputs[i]);
			ts->input_params = bms_add_members(ts->input_params, p->allParam);
			i++;
		}
	}

	ts->runcxt = AllocSetContextCreate(estate->es_query_cxt, "themis run", ALLOCSET_DEFAULT_SIZES);
	ts->stats = palloc0(sizeof(TmPipelineStats) * Max(ts->plan->npipelines, 1));

	/*
	 * Tuples of the fallback plan are returned as they come, in whatever slot type it uses: parents must
	 * not assume our result slot is always virtual.
	 */
	node->ss.ps.resultopsset = true;
	node->ss.ps.resultopsfixed = false;
}

/* evaluate the parameters (level -1 slots) into runcxt; false with *why if one is not representable */
static bool
themis_eval_params(ThemisScanState *ts, TmValue **vals, bool **nulls, const char **why)
{
	ExprContext *econtext = ts->css.ss.ps.ps_ExprContext;
	int			n = ts->plan->nparams;
	char	   *raw;
	ListCell   *lc;
	int			i = 0;

	/* TmValue holds an __int128: 16-byte alignment */
	raw = palloc0(sizeof(TmValue) * Max(n, 1) + 16);
	*vals = (TmValue *) TYPEALIGN(16, raw);
	*nulls = palloc0(sizeof(bool) * Max(n, 1));

	foreach(lc, ts->param_exprs)
	{
		ExprState  *state = (ExprState *) lfirst(lc);
		const TmType *t = &ts->plan->paramtypes[i];
		bool		isnull;
		Datum		d;

		d = ExecEvalExpr(state, econtext, &isnull);
		(*nulls)[i] = isnull;
		if (!isnull)
		{
			if (!tm_datum_to_value(d, t, &(*vals)[i]))
			{
				*why = psprintf("the value of parameter %d is not representable by themis", i + 1);
				return false;
			}
			if ((t->kind == TM_K_TEXT || t->kind == TM_K_BPCHAR) && (*vals)[i].s.len > 0)
			{
				/* the datum may live in memory that is reset before the plan runs */
				char	   *p = palloc((*vals)[i].s.len);

				memcpy(p, (*vals)[i].s.p, (*vals)[i].s.len);
				(*vals)[i].s.p = p;
			}
		}
		i++;
	}
	return true;
}

/* switch to the kept CPU subtree, or ERROR if themis.fallback is off */
static void
themis_start_fallback(ThemisScanState *ts, const char *reason, bool forced)
{
	CustomScan *cscan = (CustomScan *) ts->css.ss.ps.plan;
	EState	   *estate = ts->css.ss.ps.state;
	MemoryContext old;

	if (!themis_fallback && !forced)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("themis: cannot run this plan: %s", reason),
				 errhint("Set themis.fallback to on to run the PostgreSQL plan instead.")));
	if (cscan->custom_plans == NIL)
		elog(ERROR, "themis: cannot run this plan (%s) and there is no fallback plan", reason);

	old = MemoryContextSwitchTo(estate->es_query_cxt);
	ts->fallback_reason = pstrdup(reason);
	ts->fallback_ps = ExecInitNode((Plan *) linitial(cscan->custom_plans), estate, ts->eflags);
	/* as a child in custom_ps, EXPLAIN ANALYZE shows it and ExecShutdownNode reaches it */
	ts->css.custom_ps = lappend(ts->css.custom_ps, ts->fallback_ps);
	MemoryContextSwitchTo(old);
	ts->fallback = true;
	ts->result = NULL;
	ts->rowmap = NULL;
	MemoryContextReset(ts->runcxt);
}

/*
 * A cold start (gpu_run.c): the kept plan runs, and the tables the daemon lacked are queued for
 * background loads at the end of the node (themis_end), so that they do not slow that plan down.
 */
static void
themis_cold_start(ThemisScanState *ts, const TmGpuRunInfo *info)
{
	EState	   *estate = ts->css.ss.ps.state;
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
	StringInfoData names;

	initStringInfo(&names);
	ts->ncold = info->cold_queue ? info->ncold : 0;
	ts->cold_roleid = info->cold_roleid;
	ts->cold_relids = palloc(sizeof(Oid) * info->ncold);
	ts->cold_attnos = palloc(sizeof(int16 *) * info->ncold);
	ts->cold_natts = palloc(sizeof(int) * info->ncold);
	for (int i = 0; i < info->ncold; i++)
	{
		char	   *name = get_rel_name(info->cold_relids[i]);

		ts->cold_relids[i] = info->cold_relids[i];
		ts->cold_natts[i] = info->cold_natts[i];
		ts->cold_attnos[i] = palloc(sizeof(int16) * Max(info->cold_natts[i], 1));
		memcpy(ts->cold_attnos[i], info->cold_attnos[i], sizeof(int16) * info->cold_natts[i]);
		appendStringInfo(&names, "%s%s", i > 0 ? ", " : "", name ? quote_identifier(name) : "?");
	}
	ts->cold_reason = psprintf("PostgreSQL's plan ran: estimated cost %.0f, under %g (themis.cold_plan_fraction) of %.0f, "
							   "PostgreSQL's cost of reading %s, which %s the GPU column cache in the background",
							   info->cold_kept_cost, themis_cold_plan_fraction, info->cold_scan_cost, names.data,
							   info->cold_queue ? "load into" : "are loading into");
	MemoryContextSwitchTo(old);
	themis_start_fallback(ts, "cold start", true);
	ts->fallback_reason = NULL; /* not a fallback: EXPLAIN shows the cold start */
}

/* the subplans read by SUBPLAN sources start over if an earlier run (or attempt) read them */
static void
themis_rescan_inputs(ThemisScanState *ts)
{
	EState	   *estate = ts->css.ss.ps.state;

	if (ts->inputs_used)
	{
		/* in the query context, as PostgreSQL's nodes expect (see cpu_exec.c) */
		MemoryContext qold = MemoryContextSwitchTo(estate->es_query_cxt);

		for (int p = 0; p < ts->ninputs; p++)
			ExecReScan(ts->inputs[p]);
		MemoryContextSwitchTo(qold);
	}
	ts->inputs_used = ts->ninputs > 0;
}

/* run the plan: materialize ts->result, or fall back */
static void
themis_compute(ThemisScanState *ts)
{
	TmStatus	error = TM_OK;
	EState	   *estate = ts->css.ss.ps.state;
	TmResultSet *rs = NULL;
	const char *reason = NULL;
	MemoryContext old;
	int64		topn_in = -1;	/* rows before the daemon's top-N cut, -1: none made */

	MemoryContextReset(ts->runcxt);
	ts->result = NULL;
	ts->rowmap = NULL;
	ts->cursor = 0;
	old = MemoryContextSwitchTo(ts->runcxt);

	if (!themis_enabled)
	{
		/* a plan cached while themis was enabled: the setting wins, PostgreSQL's plan runs */
		MemoryContextSwitchTo(old);
		themis_start_fallback(ts, "themis.enabled is off", true);
		return;
	}
	{
		TmValue    *params;
		bool	   *paramnulls;

		if (themis_eval_params(ts, &params, &paramnulls, &reason))
		{
			TmPipelineStats *stats = palloc0(sizeof(TmPipelineStats) *
											 Max(ts->plan->npipelines, 1));

			if (themis_device != THEMIS_DEVICE_CPU)
			{
				CustomScan *cscan = (CustomScan *) ts->css.ss.ps.plan;
				Const	   *blob = (Const *) linitial(cscan->custom_private);
				TmGpuRunInfo info;
				TmGpuRunTopN topn;
				int			flags = 0;
				double		kept_cost = -1;

				if (themis_debug_fault == THEMIS_FAULT_DAEMON_CRASH)
					flags |= TMX_FLAG_FAULT_CRASH;
				else if (themis_debug_fault == THEMIS_FAULT_GPU_ERROR)
					flags |= TMX_FLAG_FAULT_GPU;
				else if (themis_debug_fault == THEMIS_FAULT_DAEMON_HANG)
					flags |= TMX_FLAG_FAULT_HANG;
				if (themis_load_balance == THEMIS_LB_NIFS)
					flags |= TMX_FLAG_LB_NIFS;
				else if (themis_load_balance == THEMIS_LB_NIFS_AWS)
					flags |= TMX_FLAG_LB_NIFS_AWS;
				else if (themis_load_balance == THEMIS_LB_AUTO)
					flags |= TMX_FLAG_LB_AUTO;
				if (themis_join_algorithm == THEMIS_JOIN_PARTITIONED)
					flags |= TMX_FLAG_JOIN_PARTITIONED;
				else if (themis_join_algorithm == THEMIS_JOIN_PARTITIONED_GFUR)
					flags |= TMX_FLAG_JOIN_GFUR;
				else if (themis_join_algorithm == THEMIS_JOIN_PIPELINED)
					flags |= TMX_FLAG_JOIN_PIPELINED;
				if (!themis_gpu_fast_paths)
					flags |= TMX_FLAG_NO_FAST_PATHS;
				if (themis_gpu_private_global_agg)
					flags |= TMX_FLAG_PRIVATE_GLOBAL;
				if (themis_gpu_group_wagg)
					flags |= TMX_FLAG_GROUP_WAGG;
				if (themis_gpu_jit != THEMIS_JIT_OFF)
					flags |= TMX_FLAG_JIT;
				if (themis_gpu_jit == THEMIS_JIT_WAIT)
					flags |= TMX_FLAG_JIT_WAIT;
				if (!themis_gpu_nointerp)
					flags |= TMX_FLAG_INTERP_ALWAYS;
				if (!themis_gpu_dynamic_rows)
					flags |= TMX_FLAG_STATIC_ROWS;
				if (!themis_probe_order)
					flags |= TMX_FLAG_PLAN_PROBE_ORDER;
				if (themis_gpu_swap_fuse == THEMIS_SWAP_FUSE_SAMPLE)
					flags |= TMX_FLAG_SWAP_FUSE;
				else if (themis_gpu_swap_fuse == THEMIS_SWAP_FUSE_COUNT)
					flags |= TMX_FLAG_SWAP_FUSE | TMX_FLAG_SWAP_FUSE_COUNT;
				/* the kept plan, which a cold start may run instead (not twice: once it ran, it stays) */
				if (cscan->custom_plans != NIL && ts->nruns == 0)
					kept_cost = ((Plan *) linitial(cscan->custom_plans))->total_cost;
				themis_rescan_inputs(ts);
				rs = tm_gpu_run(ts->plan, DatumGetByteaPP(blob->constvalue), estate, params, paramnulls,
								ts->inputs, ts->ninputs, flags,
								themis_topn_device(ts, &topn) ? &topn : NULL, kept_cost, stats, &info,
								&reason, &error);
				ts->bgload_wait_ms += info.bgload_wait_ms;
				if (rs == NULL && info.cold)
				{
					MemoryContextSwitchTo(old);
					themis_cold_start(ts, &info);
					return;
				}
				if (rs != NULL)
				{
					topn_in = info.topn_rows_in;
					ts->device = "gpu";
					ts->gpu_ms += info.gpu_ms;
					ts->gpu_upload_ms += info.upload_ms;
					ts->gpu_read_ms += info.read_ms;
					ts->gpu_pack_ms += info.pack_ms;
					ts->gpu_wait_ms += info.wait_ms;
					ts->gpu_convert_ms += info.convert_ms;
					ts->gpu_bytes_sent += info.bytes_sent;
					ts->loads_streamed += info.loads_streamed;
					for (int p = 0; p < ts->plan->npipelines; p++)
					{
						if (info.use[p] == TMX_USE_CACHE_HIT)
							ts->cache_hits++;
						else if (info.use[p] == TMX_USE_CACHE_LOADED)
							ts->cache_loads++;
						else if (info.use[p] == TMX_USE_INLINE)
							ts->inline_sources++;
					}
				}
			}
			else
			{
				/* themis.device = cpu: the CPU executor (auto and gpu fall back to PostgreSQL's plan) */
				themis_rescan_inputs(ts);
				rs = tm_cpu_execute(ts->plan, estate, params, paramnulls, ts->inputs, ts->ninputs,
									stats, &reason, &error);
				if (rs != NULL)
					ts->device = "cpu";
			}
			if (rs != NULL)
			{
				for (int p = 0; p < ts->plan->npipelines; p++)
				{
					ts->stats[p].source_rows += stats[p].source_rows;
					ts->stats[p].sink_rows += stats[p].sink_rows;
					ts->stats[p].out_rows += stats[p].out_rows;
					ts->stats[p].time_ms += stats[p].time_ms;
					ts->stats[p].idle_ratio = stats[p].idle_ratio;
					ts->stats[p].imbalance = stats[p].imbalance;
					ts->stats[p].warp_iterations = stats[p].warp_iterations;
					ts->stats[p].handoffs = stats[p].handoffs;
					ts->stats[p].join_algo = stats[p].join_algo;
					ts->stats[p].join_op = stats[p].join_op;
					ts->stats[p].join_rows = stats[p].join_rows;
					ts->stats[p].join_ms = stats[p].join_ms;
					ts->stats[p].probe_reordered = stats[p].probe_reordered;
					memcpy(ts->stats[p].probe_order, stats[p].probe_order, sizeof(stats[p].probe_order));
					ts->stats[p].swap = stats[p].swap;
					ts->stats[p].swap_op = stats[p].swap_op;
					ts->stats[p].swap_rows = stats[p].swap_rows;
					ts->stats[p].jit = stats[p].jit;
					ts->stats[p].jit_ms = stats[p].jit_ms;
				}
				ts->nruns++;
			}
		}
	}
	MemoryContextSwitchTo(old);

	/*
	 * An expression raised an error that PostgreSQL raises too.  Whether PostgreSQL's plan meets that
	 * row at all (an empty side of a hash join is never read), and which error it meets first, depends
	 * on its plan: with fallback on, its plan runs and decides; with fallback off, themis raises it.
	 */
	if (rs == NULL && error != TM_OK && !themis_fallback)
		tm_raise_status(error);
	if (rs == NULL)
		themis_start_fallback(ts, reason ? reason : "unknown reason", false);
	else
	{
		ts->result = rs;
		if (ts->topn.n > 0)
		{
			/* only the rows that can be in the top N go up to the Sort (topn.c) */
			old = MemoryContextSwitchTo(ts->runcxt);
			themis_topn_select(ts, &ts->topn);
			MemoryContextSwitchTo(old);
			ts->topn_rows_in += topn_in >= 0 ? topn_in : rs->nrows;
			ts->topn_rows_kept += ts->rowmap ? ts->nrowmap : rs->nrows;
		}
		if (ts->presort.nkeys > 0)
		{
			/* the rows in the order of the Sort above, or of the Sort the node replaced (presort.c) */
			instr_time	t0,
						t1;
			bool		ordered;

			INSTR_TIME_SET_CURRENT(t0);
			old = MemoryContextSwitchTo(ts->runcxt);
			ordered = themis_presort_apply(ts);
			MemoryContextSwitchTo(old);
			INSTR_TIME_SET_CURRENT(t1);
			INSTR_TIME_SUBTRACT(t1, t0);
			ts->presort_ms += INSTR_TIME_GET_MILLISEC(t1);
			/* EXPLAIN ANALYZE: the order checked with the Sort's comparators, outside Presort Time */
			if (ordered && ts->css.ss.ps.instrument != NULL)
				themis_presort_check(ts);
		}
	}
}

/* ExecScan access method: the next result row as a virtual scan tuple */
static TupleTableSlot *
themis_next(ScanState *ss)
{
	ThemisScanState *ts = (ThemisScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	TmResultSet *rs = ts->result;
	MemoryContext old;
	int64		row;
	int			c;

	ExecClearTuple(slot);
	if (rs == NULL || ts->cursor >= (ts->rowmap ? ts->nrowmap : rs->nrows))
		return slot;
	row = ts->rowmap ? ts->rowmap[ts->cursor] : ts->cursor;
	ts->cursor++;

	/* by-reference datums live until ExecScan resets the per-tuple context for the next row */
	old = MemoryContextSwitchTo(ss->ps.ps_ExprContext->ecxt_per_tuple_memory);
	for (c = 0; c < rs->ncols; c++)
	{
		if (rs->nulls[c][row])
		{
			slot->tts_values[c] = (Datum) 0;
			slot->tts_isnull[c] = true;
		}
		else
		{
			slot->tts_values[c] = tm_value_to_datum(&rs->values[c][row], &rs->types[c]);
			slot->tts_isnull[c] = false;
		}
	}
	MemoryContextSwitchTo(old);
	return ExecStoreVirtualTuple(slot);
}

/* ExecScan recheck method (EvalPlanQual): a Themis node cannot recompute one joined row */
static bool
themis_recheck(ScanState *ss, TupleTableSlot *slot)
{
	elog(ERROR, "themis: EvalPlanQual recheck is not supported by Custom Scan (Themis)");
	return false;				/* keep compiler quiet */
}

static TupleTableSlot *
themis_exec(CustomScanState *node)
{
	ThemisScanState *ts = (ThemisScanState *) node;

	if (!ts->fallback && ts->result == NULL)
		themis_compute(ts);
	if (ts->fallback)
		return ExecProcNode(ts->fallback_ps);
	return ExecScan(&node->ss, themis_next, themis_recheck);
}

static void
themis_end(CustomScanState *node)
{
	ThemisScanState *ts = (ThemisScanState *) node;

	if (ts->fallback_ps != NULL)
		ExecEndNode(ts->fallback_ps);
	/* a cold start's loads start now that the query's plan is done (bgload.c) */
	for (int i = 0; i < ts->ncold; i++)
		(void) tm_bgload_start(ts->cold_relids[i], ts->cold_roleid, ts->cold_attnos[i], ts->cold_natts[i]);
	ts->ncold = 0;
	for (int i = 0; i < ts->ninputs; i++)
		ExecEndNode(ts->inputs[i]);
	for (int i = 0; i < ts->nrels; i++)
		table_close(ts->rels[i], NoLock);
	ts->nrels = 0;
	ts->result = NULL;
	if (ts->runcxt != NULL)
	{
		MemoryContextDelete(ts->runcxt);
		ts->runcxt = NULL;
	}
}

static void
themis_rescan(CustomScanState *node)
{
	ThemisScanState *ts = (ThemisScanState *) node;
	Bitmapset  *chg = node->ss.ps.chgParam;

	if (ts->fallback)
	{
		PlanState  *child = ts->fallback_ps;

		if (chg != NULL)
			UpdateChangedParamSet(child, chg);
		/* with changed parameters, the child rescans itself on its next fetch */
		if (child->chgParam == NULL)
			ExecReScan(child);
		return;
	}

	ExecScanReScan(&node->ss);
	if (ts->result == NULL)
		return;					/* not computed yet: the next fetch does it */
	for (int i = 0; i < ts->ninputs; i++)
	{
		if (chg != NULL)
			UpdateChangedParamSet(ts->inputs[i], chg);
	}
	if (ts->recompute_always || bms_overlap(chg, ts->param_ids) || bms_overlap(chg, ts->input_params))
	{
		ts->result = NULL;		/* parameters changed: run again on the next fetch */
		ts->rowmap = NULL;
		MemoryContextReset(ts->runcxt);
	}
	else
		ts->cursor = 0;			/* same parameters: rewind the materialized result */
}
