/*
 * explain.c — EXPLAIN output of Custom Scan (Themis): the pipelines of its plan, their estimates and,
 * under ANALYZE, what each pipeline did (rows, time), the device that ran it (with the GPU column cache's
 * part, times and bytes sent) and the fallback reason if any; the sort keys it
 * guarantees where it took a Sort's place ("Sort Key", as PostgreSQL shows a Sort's), its top-N cut and
 * presort (topn.c, presort.c).
 *
 * Text format:
 *     Device: cpu
 *     Pipeline 0: orders o  (rows=1500)
 *       Filter: (o_orderdate < '1995-01-01')  (rows=700)
 *       Hash Build ht 0
 *       Actual: source rows=1500 sink rows=700 output rows=700 time=0.412 ms
 *     Fallback: <reason>
 * Other formats: "Device", a "Pipelines" array of objects, "Fallback".
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
#include "utils/typcache.h"

#include "themis.h"
#include "exec_node.h"

static const char *
join_name(int jointype)
{
	switch (jointype)
	{
		case TM_JOIN_INNER:
			return "inner";
		case TM_JOIN_SEMI:
			return "semi";
		case TM_JOIN_ANTI:
			return "anti";
		case TM_JOIN_LEFT:
			return "left";
	}
	return "?";
}

static char *
source_text(const TmPipeline *pl)
{
	if (pl->source_label != NULL)
		return pl->source_label;
	if (pl->srckind == TM_SRC_TABLE)
	{
		char	   *relname = get_rel_name(pl->relid);

		return psprintf("table %s", relname ? relname : "?");
	}
	return psprintf("result %d", pl->src_result);
}

static char *
op_text(const TmOp *op)
{
	if (op->label != NULL)
		return op->label;
	if (op->kind == TM_OP_FILTER)
		return "Filter";
	return psprintf("Hash Probe (%s) ht %d%s", join_name(op->jointype), op->ht,
					op->qual ? " with residual qual" : "");
}

/*
 * The ops of pipeline pl in the order they ran where themis.probe_order changed it (st), by short names
 * ("Hash Probe 3", "Filter"); NIL where they ran in the plan's order
 */
static List *
run_order(const TmPipeline *pl, const TmPipelineStats *st)
{
	List	   *l = NIL;

	if (!st->probe_reordered || pl->nops > THEMIS_PROBE_ORDER_OPS)
		return NIL;
	for (int i = 0; i < pl->nops; i++)
	{
		int			k = st->probe_order[i];
		const TmOp *op;

		if (k < 0 || k >= pl->nops)
			return NIL;
		op = &pl->ops[k];
		l = lappend(l, op->kind == TM_OP_FILTER ? pstrdup("Filter") : psprintf("Hash Probe %d", op->ht));
	}
	return l;
}

/* which kernel ran a pipeline, by TmPipelineStats.jit (themis.gpu_jit; cuda/tm_jit.h) */
static const char *
jit_text(int jit)
{
	switch (jit)
	{
		case 1:
			return "generated for this pipeline";
		case 2:
			return "generic (the generated one was being compiled)";
		case 3:
			return "generic (the pipeline has a left join, DISTINCT, any(), a float sum or an expression a generated kernel does not run)";
		case 4:
			return "generic (compiling the generated one failed: see the daemon's log)";
		case 5:
			return "generic (no NVRTC: set CUDA_HOME for the daemon)";
	}
	return "generic";
}

/* the pipeline that builds the hash table op k of pl probes (-1: none) */
static int
swap_build_pipeline(const TmPlan *plan, const TmPipeline *pl, int k)
{
	if (k < 0 || k >= pl->nops)
		return -1;
	for (int p = 0; p < plan->npipelines; p++)
		if (plan->pipelines[p].sink.kind == TM_SINK_HASH_BUILD && plan->pipelines[p].sink.target == pl->ops[k].ht)
			return p;
	return -1;
}

static char *
sink_text(const TmSink *sink)
{
	if (sink->label != NULL)
		return sink->label;
	switch (sink->kind)
	{
		case TM_SINK_HASH_BUILD:
			return psprintf("Hash Build ht %d (%d keys, %d payload)",
							sink->target, sink->nkeys, sink->nvals);
		case TM_SINK_AGG:
			return psprintf("Aggregate into result %d (%d keys, %d aggregates)",
							sink->target, sink->nkeys, sink->naggs);
		case TM_SINK_EMIT:
			return psprintf("Emit result %d (%d columns)", sink->target, sink->nvals);
	}
	return "?";
}

/* one indented line of text format */
static void
text_line(ExplainState *es, int extra_indent, const char *text)
{
	appendStringInfoSpaces(es->str, (es->indent + extra_indent) * 2);
	appendStringInfoString(es->str, text);
}

static void
explain_pipeline_text(ThemisScanState *ts, int p, ExplainState *es)
{
	const TmPipeline *pl = &ts->plan->pipelines[p];
	int			k;

	text_line(es, 0, psprintf("Pipeline %d: %s", p, source_text(pl)));
	if (es->costs)
		appendStringInfo(es->str, "  (rows=%.0f)", pl->est_source_rows);
	appendStringInfoChar(es->str, '\n');

	for (k = 0; k < pl->nops; k++)
	{
		text_line(es, 1, op_text(&pl->ops[k]));
		if (es->costs)
			appendStringInfo(es->str, "  (rows=%.0f)", pl->ops[k].est_rows);
		appendStringInfoChar(es->str, '\n');
	}
	text_line(es, 1, sink_text(&pl->sink));
	if (es->costs)
		appendStringInfo(es->str, "  (rows=%.0f)", pl->est_rows);
	appendStringInfoChar(es->str, '\n');

	if (es->analyze && ts->nruns > 0)
	{
		const TmPipelineStats *st = &ts->stats[p];

		text_line(es, 1, "Actual:");
		appendStringInfo(es->str, " source rows=" INT64_FORMAT " sink rows=" INT64_FORMAT
						 " output rows=" INT64_FORMAT,
						 st->source_rows, st->sink_rows, st->out_rows);
		if (es->timing)
			appendStringInfo(es->str, " time=%.3f ms", st->time_ms);
		if (ts->nruns > 1)
			appendStringInfo(es->str, " runs=%d", ts->nruns);
		appendStringInfoChar(es->str, '\n');
		{
			List	   *order = run_order(pl, st);
			ListCell   *lc;

			if (order != NIL)
			{
				/* themis.probe_order: the built tables' sizes said so */
				text_line(es, 1, "Run Order:");
				foreach(lc, order)
					appendStringInfo(es->str, "%s %s", foreach_current_index(lc) == 0 ? "" : ",",
									 (char *) lfirst(lc));
				appendStringInfoString(es->str, " (by the hash tables' sizes)\n");
			}
		}
		if (st->swap == 1 || st->swap == 2 || st->swap == 4)
		{
			/* themis.gpu_swap_build_rows: the probed table's build came out far over its estimate */
			text_line(es, 1, "Build Side:");
			if (st->swap == 4)
				appendStringInfo(es->str, " swapped (built from this pipeline's rows, probed by pipeline %d's rows as they were made)",
								 swap_build_pipeline(ts->plan, pl, st->swap_op));
			else
				appendStringInfo(es->str, " %s",
								 st->swap == 1 ? "swapped (built from this pipeline's rows, probed by the build's)" :
								 st->swap_rows < 0 ? "as planned (this pipeline's rows did not fit a trial build)" :
								 st->swap_rows == 0 ? "as planned (none of this pipeline's rows reached it)" :
								 "as planned (this pipeline's rows were more than half the build's)");
			appendStringInfo(es->str, " for \"%s\", this pipeline's rows up to it=" INT64_FORMAT "\n",
							 (st->swap_op >= 0 && st->swap_op < pl->nops) ? op_text(&pl->ops[st->swap_op]) : "?",
							 st->swap_rows);
		}
		else if (st->swap == 3)
		{
			/* ... and this build, put off, was not made: its rows probed the other side's */
			text_line(es, 1, "Build Side:");
			appendStringInfo(es->str, " not built: its rows, about " INT64_FORMAT
							 " as counted before they were written, probed the table pipeline %d built instead\n",
							 st->swap_rows, st->swap_op);
		}
		if (st->jit != 0)
		{
			text_line(es, 1, "Kernel:");
			appendStringInfo(es->str, " %s", jit_text(st->jit));
			if (es->timing && st->jit_ms > 0)
				appendStringInfo(es->str, " (compiled in %.0f ms)", st->jit_ms);
			appendStringInfoChar(es->str, '\n');
		}
		if (st->join_algo == THEMIS_JOIN_PARTITIONED || st->join_algo == THEMIS_JOIN_PARTITIONED_GFUR)
		{
			text_line(es, 1, "Partitioned Join:");
			appendStringInfo(es->str, " %s in place of \"%s\", rows=" INT64_FORMAT,
							 st->join_algo == THEMIS_JOIN_PARTITIONED ? "GFTR" : "GFUR",
							 (st->join_op >= 0 && st->join_op < pl->nops) ? op_text(&pl->ops[st->join_op]) : "?",
							 st->join_rows);
			if (es->timing)
				appendStringInfo(es->str, " time=%.3f ms", st->join_ms);
			appendStringInfoChar(es->str, '\n');
		}
		if (st->warp_iterations > 0)
		{
			text_line(es, 1, "Load Balance:");
			appendStringInfo(es->str, " idle ratio=%.3f imbalance=%.2f warp iterations=" INT64_FORMAT
							 " hand-offs=" INT64_FORMAT "\n",
							 st->idle_ratio, st->imbalance, st->warp_iterations, st->handoffs);
		}
	}
}

static void
explain_pipeline_structured(ThemisScanState *ts, int p, ExplainState *es)
{
	const TmPipeline *pl = &ts->plan->pipelines[p];
	int			k;

	ExplainOpenGroup("Pipeline", NULL, true, es);
	ExplainPropertyInteger("Pipeline Number", NULL, p, es);
	ExplainPropertyText("Source", source_text(pl), es);
	if (es->costs)
		ExplainPropertyFloat("Plan Source Rows", NULL, pl->est_source_rows, 0, es);

	ExplainOpenGroup("Operators", "Operators", false, es);
	for (k = 0; k < pl->nops; k++)
	{
		ExplainOpenGroup("Operator", NULL, true, es);
		ExplainPropertyText("Operator", op_text(&pl->ops[k]), es);
		if (es->costs)
			ExplainPropertyFloat("Plan Rows", NULL, pl->ops[k].est_rows, 0, es);
		ExplainCloseGroup("Operator", NULL, true, es);
	}
	ExplainCloseGroup("Operators", "Operators", false, es);

	ExplainPropertyText("Sink", sink_text(&pl->sink), es);
	if (es->costs)
		ExplainPropertyFloat("Plan Sink Rows", NULL, pl->est_rows, 0, es);

	if (es->analyze && ts->nruns > 0)
	{
		const TmPipelineStats *st = &ts->stats[p];

		ExplainPropertyInteger("Actual Source Rows", NULL, st->source_rows, es);
		ExplainPropertyInteger("Actual Sink Rows", NULL, st->sink_rows, es);
		ExplainPropertyInteger("Actual Output Rows", NULL, st->out_rows, es);
		if (es->timing)
			ExplainPropertyFloat("Actual Time", "ms", st->time_ms, 3, es);
		ExplainPropertyInteger("Runs", NULL, ts->nruns, es);
		{
			List	   *order = run_order(pl, st);

			if (order != NIL)
				ExplainPropertyList("Run Order", order, es);
		}
		if (st->swap == 1 || st->swap == 2 || st->swap == 4)
		{
			ExplainPropertyText("Build Side", st->swap == 2 ? "as planned" : "swapped", es);
			ExplainPropertyText("Build Side Operator",
								(st->swap_op >= 0 && st->swap_op < pl->nops) ? op_text(&pl->ops[st->swap_op]) : "?", es);
			ExplainPropertyInteger("Build Side Probe Rows", NULL, st->swap_rows, es);
			if (st->swap == 4)
				ExplainPropertyInteger("Build Side Probed By Pipeline", NULL,
									   swap_build_pipeline(ts->plan, pl, st->swap_op), es);
		}
		else if (st->swap == 3)
		{
			ExplainPropertyText("Build Side", "not built", es);
			ExplainPropertyInteger("Build Side Probing Pipeline", NULL, st->swap_op, es);
			ExplainPropertyInteger("Build Side Estimated Rows", NULL, st->swap_rows, es);
		}
		if (st->jit != 0)
		{
			ExplainPropertyText("Kernel", jit_text(st->jit), es);
			if (es->timing && st->jit_ms > 0)
				ExplainPropertyFloat("Kernel Compile Time", "ms", st->jit_ms, 0, es);
		}
		if (st->join_algo == THEMIS_JOIN_PARTITIONED || st->join_algo == THEMIS_JOIN_PARTITIONED_GFUR)
		{
			ExplainPropertyText("Join Algorithm",
								st->join_algo == THEMIS_JOIN_PARTITIONED ? "partitioned (GFTR)" : "partitioned (GFUR)", es);
			ExplainPropertyText("Partitioned Join Operator",
								(st->join_op >= 0 && st->join_op < pl->nops) ? op_text(&pl->ops[st->join_op]) : "?", es);
			ExplainPropertyInteger("Partitioned Join Rows", NULL, st->join_rows, es);
			if (es->timing)
				ExplainPropertyFloat("Partitioned Join Time", "ms", st->join_ms, 3, es);
		}
		if (st->warp_iterations > 0)
		{
			ExplainPropertyFloat("Intra-Warp Idle Ratio", NULL, st->idle_ratio, 3, es);
			ExplainPropertyFloat("Inter-Warp Imbalance Factor", NULL, st->imbalance, 2, es);
			ExplainPropertyInteger("Warp Iterations", NULL, st->warp_iterations, es);
			ExplainPropertyInteger("Work Hand-Offs", NULL, st->handoffs, es);
		}
	}
	ExplainCloseGroup("Pipeline", NULL, true, es);
}

/*
 * COLLATE, DESC / USING, NULLS FIRST / LAST of a sort key where they are not the defaults, as
 * PostgreSQL's EXPLAIN writes them for a Sort (show_sortorder_options in explain.c)
 */
static void
sort_key_options(StringInfo buf, Node *expr, Oid sortop, Oid collation, bool nulls_first)
{
	Oid			type = exprType(expr);
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	bool		reverse = false;

	if (OidIsValid(collation) && collation != get_typcollation(type))
	{
		char	   *name = get_collation_name(collation);

		if (name == NULL)
			elog(ERROR, "cache lookup failed for collation %u", collation);
		appendStringInfo(buf, " COLLATE %s", quote_identifier(name));
	}
	if (sortop == tc->gt_opr)
	{
		appendStringInfoString(buf, " DESC");
		reverse = true;
	}
	else if (sortop != tc->lt_opr)
	{
		char	   *opname = get_opname(sortop);

		if (opname == NULL)
			elog(ERROR, "cache lookup failed for operator %u", sortop);
		appendStringInfo(buf, " USING %s", opname);
		(void) get_equality_op_for_ordering_op(sortop, &reverse);
	}
	if (nulls_first && !reverse)
		appendStringInfoString(buf, " NULLS FIRST");
	else if (!nulls_first && reverse)
		appendStringInfoString(buf, " NULLS LAST");
}

/* "Sort Key" of a node that took a Sort's place (presort.c): its output columns, as the Sort showed them */
static void
explain_sort_key(ThemisScanState *ts, List *ancestors, ExplainState *es)
{
	Plan	   *plan = ts->css.ss.ps.plan;
	List	   *context = set_deparse_context_plan(es->deparse_cxt, plan, ancestors);
	bool		useprefix = list_length(es->rtable) > 1 || es->verbose;
	List	   *keys = NIL;

	for (int k = 0; k < ts->presort.nkeys; k++)
	{
		const ThemisPresortKey *key = &ts->presort.keys[k];
		TargetEntry *tle = get_tle_by_resno(plan->targetlist, key->attno);
		StringInfoData buf;

		if (tle == NULL)
			elog(ERROR, "themis: no output column %d for sort key %d", key->attno, k + 1);
		initStringInfo(&buf);
		appendStringInfoString(&buf, deparse_expression((Node *) tle->expr, context, useprefix, true));
		sort_key_options(&buf, (Node *) tle->expr, key->sortop, key->collation, key->nulls_first);
		keys = lappend(keys, buf.data);
	}
	ExplainPropertyList("Sort Key", keys, es);
}

void
themis_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ThemisScanState *ts = (ThemisScanState *) node;
	const char *device = "cpu";
	int			p;

	if (ts->plan == NULL)
		return;

	/* the order it guarantees, in place of a Sort above it (presort.c) */
	if (ts->presort.nkeys > 0 && ts->presort.elided)
		explain_sort_key(ts, ancestors, es);

	/*
	 * Where it runs is decided at run time (themis.device, the GPU daemon's state): only EXPLAIN ANALYZE
	 * says where it ran, and why not on the GPU where it did not.
	 */
	if (es->analyze)
	{
		if (ts->nruns > 0 && ts->device != NULL)
			device = ts->device;
		else if (ts->fallback && ts->cold_reason != NULL)
			device = "none (cold start)";
		else if (ts->fallback)
			device = "none (fallback)";
		else
			device = "none (not run)";
		ExplainPropertyText("Device", device, es);
		if (ts->nruns > 0 && ts->device != NULL && strcmp(ts->device, "gpu") == 0)
		{
			ExplainPropertyText("GPU Sources",
								psprintf("%d cached, %d loaded into the cache, %d sent", ts->cache_hits,
										 ts->cache_loads, ts->inline_sources), es);
			if (ts->loads_streamed > 0 || es->format != EXPLAIN_FORMAT_TEXT)
				ExplainPropertyInteger("GPU Loads Streamed", NULL, ts->loads_streamed, es);
			if (es->timing)
			{
				ExplainPropertyFloat("GPU Time", "ms", ts->gpu_ms, 3, es);
				ExplainPropertyFloat("GPU Upload Time", "ms", ts->gpu_upload_ms, 3, es);
				ExplainPropertyFloat("Column Read Time", "ms", ts->gpu_read_ms, 3, es);
				ExplainPropertyFloat("Request Build Time", "ms", ts->gpu_pack_ms, 3, es);
				ExplainPropertyFloat("Daemon Round Trip Time", "ms", ts->gpu_wait_ms, 3, es);
				ExplainPropertyFloat("Result Conversion Time", "ms", ts->gpu_convert_ms, 3, es);
			}
			ExplainPropertyInteger("GPU Bytes Sent", NULL, ts->gpu_bytes_sent, es);
		}
	}

	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		for (p = 0; p < ts->plan->npipelines; p++)
			explain_pipeline_text(ts, p, es);
	}
	else
	{
		ExplainOpenGroup("Pipelines", "Pipelines", false, es);
		for (p = 0; p < ts->plan->npipelines; p++)
			explain_pipeline_structured(ts, p, es);
		ExplainCloseGroup("Pipelines", "Pipelines", false, es);
	}

	/* ORDER BY ... LIMIT above: only the rows that can make the cut go up (topn.c) */
	if (ts->topn.n > 0)
	{
		ExplainPropertyText("Top-N Rows",
							psprintf("%lld by output column %d (the Sort's first key)",
									 (long long) ts->topn.n, ts->topn.col + 1), es);
		if (es->analyze && ts->nruns > 0)
			ExplainPropertyText("Top-N Kept",
								psprintf("%lld of %lld rows", (long long) ts->topn_rows_kept,
										 (long long) ts->topn_rows_in), es);
	}

	/*
	 * A Sort right above: the rows come in its order where its keys compare natively; or the Sort it
	 * took the place of: always (presort.c).  ANALYZE: checked with the Sort's comparators.
	 */
	if (ts->presort.nkeys > 0)
	{
		if (!ts->presort.elided)
			ExplainPropertyInteger("Presort Keys", NULL, ts->presort.nkeys, es);
		if (es->analyze && ts->nruns > 0)
			ExplainPropertyText("Presorted Rows",
								ts->presort_skipped > 0 && ts->presort_rows == 0 ?
								pstrdup("none (a key does not compare natively)") :
								psprintf("%lld, %s%s", (long long) ts->presort_rows,
										 ts->presort_unordered > 0 ? "NOT in the Sort's order" :
										 "in the Sort's order",
										 ts->presort_pg_runs > 0 ? " (PostgreSQL's comparators)" : ""), es);
		/* on every device (the check above included) */
		if (es->analyze && es->timing && ts->nruns > 0)
			ExplainPropertyFloat("Presort Time", "ms", ts->presort_ms, 3, es);
	}

	if (ts->fallback && ts->fallback_reason != NULL)
		ExplainPropertyText("Fallback", ts->fallback_reason, es);
	if (ts->cold_reason != NULL)
		ExplainPropertyText("Cold Start", ts->cold_reason, es);
	/* only where it waited: a time that is rarely there */
	if (es->analyze && es->timing && ts->bgload_wait_ms > 0)
		ExplainPropertyFloat("Background Load Wait Time", "ms", ts->bgload_wait_ms, 3, es);
}
