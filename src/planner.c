/*
 * planner.c — the planner hook: after standard_planner has made the final plan, walk it top-down and
 * replace each maximal subtree that themis can run (and where it pays) with one Custom Scan (Themis)
 * node.  The replaced subtree is kept in custom_plans: it is the fallback when themis cannot run.
 *
 * Rules the walk keeps:
 *   - nothing below a Gather / Gather Merge is replaced on its own (the node would run once per worker);
 *     the Gather itself may be absorbed, and the Custom Scan then reads whole tables;
 *   - a Hash node is never replaced (its Hash Join parent needs it), its input may be;
 *   - where the parent relies on the order of a subtree's output (Merge Join, sorted aggregation,
 *     ORDER BY satisfied by the plan), the translation reproduces it with a Sort above the node;
 *   - initplans attached inside the replaced subtree move to the Custom Scan, which evaluates the
 *     parameters they set.
 * After the walk, topn.c and presort.c mark the nodes under a Sort (and a Limit); a Sort at the top of
 * the statement over a node that can guarantee its order is dropped (presort.c).
 *
 * With themis.device = auto, a statement is rewritten only where a GPU is usable (the daemon is asked at
 * the first subtree that would be offloaded, or before a subquery rewrite): without one, it keeps
 * PostgreSQL's plan as it is, since the CPU executor is slower than PostgreSQL's own plans (it is the
 * reference for tests, run where themis.device = cpu asks for it).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include <math.h>

#include "executor/executor.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "themis.h"
#include "exec_node.h"
#include "gpud_client.h"

void		themis_install_planner_hook(void);

static planner_hook_type prev_planner_hook = NULL;

List	   *themis_secure_relids = NIL;

typedef struct RewriteCtx
{
	PlannedStmt *pstmt;
	int			next_node_id;
	Bitmapset  *initplan_params;	/* PARAM_EXEC ids set once by initplans */
	Cost		limit_cost;		/* the Limit's cost while the walk is at its input, else -1 */
	int			gpu;			/* themis.device = auto: GPU usable 1, not -1, not asked yet 0 */
	bool		inner_sort;		/* a subquery of the statement has an ORDER BY (inner_sort_walker) */
} RewriteCtx;

static Plan *rewrite_plan(RewriteCtx *ctx, Plan *plan, bool need_order, bool in_parallel);

/* ---------------------------------------------------------------- helpers */

/*
 * Has a query below the statement's own (a subquery, a view, a CTE, a sublink, an SQL function in FROM)
 * an ORDER BY?  PostgreSQL
 * may meet it without a Sort (a Merge Join, an index scan: sorted_output does not see it), and the
 * subquery scan that marked it is gone from the finished plan; its parent may rely on the order (a
 * UNION ALL branch, string_agg() or array_agg() over it, a view's rows returned as they come).
 */
static bool
inner_sort_walker(Node *node, int *depth)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblFunction) && IsA(((RangeTblFunction *) node)->funcexpr, FuncExpr))
	{
		/* an SQL function in FROM, which the planner may inline: its query may have an ORDER BY */
		HeapTuple	tp = SearchSysCache1(PROCOID,
										 ObjectIdGetDatum(((FuncExpr *) ((RangeTblFunction *) node)->funcexpr)->funcid));
		bool		sql = false;

		if (HeapTupleIsValid(tp))
		{
			sql = ((Form_pg_proc) GETSTRUCT(tp))->prolang == SQLlanguageId;
			ReleaseSysCache(tp);
		}
		if (sql)
			return true;
	}
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;
		bool		r;

		if (*depth > 0 && q->sortClause != NIL)
			return true;
		(*depth)++;
		r = query_tree_walker(q, inner_sort_walker, (void *) depth, 0);
		(*depth)--;
		return r;
	}
	return expression_tree_walker(node, inner_sort_walker, (void *) depth);
}

/*
 * The tables of a query (and of its subqueries, sublinks and CTEs) that carry security quals: row-level
 * security policies or a security-barrier view's conditions, which the rewriter puts on the table's
 * range table entry (the planner applies them first and the finished plan no longer marks them).  A
 * Themis node reads every visible row of a table before its filters: a value it cannot represent on a
 * row the policy hides (a numeric NaN) would show, as the node's error or its fallback in EXPLAIN
 * ANALYZE, and the cache listing would show the hidden rows' bytes.  Such scans stay PostgreSQL's.
 */
typedef struct SecureCtx
{
	List	   *relids;
	int			barrier;		/* inside a security-barrier subquery (a view): every table counts */
} SecureCtx;

static bool
secure_relids_walker(Node *node, SecureCtx *c)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		if (rte->rtekind == RTE_RELATION && (rte->securityQuals != NIL || c->barrier > 0))
			c->relids = list_append_unique_oid(c->relids, rte->relid);
		if (rte->rtekind == RTE_SUBQUERY)
		{
			int			b = rte->security_barrier ? 1 : 0;

			c->barrier += b;
			(void) secure_relids_walker((Node *) rte->subquery, c);
			c->barrier -= b;
		}
		return false;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, secure_relids_walker, (void *) c,
								 QTW_EXAMINE_RTES_BEFORE | QTW_IGNORE_RT_SUBQUERIES);
	return expression_tree_walker(node, secure_relids_walker, (void *) c);
}

/*
 * May this statement get Themis nodes, as far as themis.device goes?  gpu and cpu: yes (gpu falls back
 * or raises its ERROR at run time).  auto: only where a GPU is usable; the daemon is asked once per
 * statement (*state caches the answer: 0 not asked yet, 1 usable, -1 not).
 */
static bool
device_allows(int *state)
{
	const char *why = NULL;

	if (themis_device != THEMIS_DEVICE_AUTO)
		return true;
	if (*state == 0)
	{
		*state = tm_gpud_ready(false, &why) ? 1 : -1;
		if (*state < 0 && themis_debug_ir)
			ereport(NOTICE,
					(errmsg("themis: themis.device = auto and no usable GPU (%s): PostgreSQL's plan runs",
							why ? why : "unknown reason")));
	}
	return *state > 0;
}

static bool
max_node_id_walker(Plan *plan, int *max)
{
	ListCell   *lc;

	if (plan == NULL)
		return false;
	*max = Max(*max, plan->plan_node_id);
	max_node_id_walker(plan->lefttree, max);
	max_node_id_walker(plan->righttree, max);
	switch (nodeTag(plan))
	{
		case T_Append:
			foreach(lc, ((Append *) plan)->appendplans)
				max_node_id_walker(lfirst(lc), max);
			break;
		case T_MergeAppend:
			foreach(lc, ((MergeAppend *) plan)->mergeplans)
				max_node_id_walker(lfirst(lc), max);
			break;
		case T_SubqueryScan:
			max_node_id_walker(((SubqueryScan *) plan)->subplan, max);
			break;
		case T_CustomScan:
			foreach(lc, ((CustomScan *) plan)->custom_plans)
				max_node_id_walker(lfirst(lc), max);
			break;
		case T_BitmapAnd:
			foreach(lc, ((BitmapAnd *) plan)->bitmapplans)
				max_node_id_walker(lfirst(lc), max);
			break;
		case T_BitmapOr:
			foreach(lc, ((BitmapOr *) plan)->bitmapplans)
				max_node_id_walker(lfirst(lc), max);
			break;
		default:
			break;
	}
	return false;
}

/* visit every plan node of plan's tree, subplans of Append, MergeAppend and SubqueryScan included */
static void
walk_plan(Plan *plan, void (*visit) (Plan *, void *), void *arg)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	check_stack_depth();
	visit(plan, arg);
	walk_plan(plan->lefttree, visit, arg);
	walk_plan(plan->righttree, visit, arg);
	switch (nodeTag(plan))
	{
		case T_Append:
			foreach(lc, ((Append *) plan)->appendplans)
				walk_plan((Plan *) lfirst(lc), visit, arg);
			break;
		case T_MergeAppend:
			foreach(lc, ((MergeAppend *) plan)->mergeplans)
				walk_plan((Plan *) lfirst(lc), visit, arg);
			break;
		case T_SubqueryScan:
			walk_plan(((SubqueryScan *) plan)->subplan, visit, arg);
			break;
		default:
			break;
	}
}

/* visit every plan node of a finished plan (its main tree and its subplans), parents first */
void
themis_walk_plans(PlannedStmt *stmt, void (*visit) (Plan *, void *), void *arg)
{
	ListCell   *lc;

	walk_plan(stmt->planTree, visit, arg);
	foreach(lc, stmt->subplans)
		walk_plan((Plan *) lfirst(lc), visit, arg);
}

/* the parameters that initplans set (constant for the whole query, unlike correlated ones) */
static void
collect_initplan_params(Plan *plan, void *arg)
{
	Bitmapset **ids = (Bitmapset **) arg;
	ListCell   *lc;

	foreach(lc, plan->initPlan)
	{
		SubPlan    *sp = (SubPlan *) lfirst(lc);
		ListCell   *lc2;

		foreach(lc2, sp->setParam)
			*ids = bms_add_member(*ids, lfirst_int(lc2));
	}
}

/* Detach the initplans of every node of a subtree the translation walks (lefttree / righttree / subplan). */
static List *
take_initplans(Plan *plan)
{
	List	   *res;

	if (plan == NULL)
		return NIL;
	res = plan->initPlan;
	plan->initPlan = NIL;
	res = list_concat(res, take_initplans(plan->lefttree));
	res = list_concat(res, take_initplans(plan->righttree));
	if (IsA(plan, SubqueryScan))
		res = list_concat(res, take_initplans(((SubqueryScan *) plan)->subplan));
	return res;
}

static bool
is_candidate(Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_HashJoin:
		case T_MergeJoin:
		case T_NestLoop:
		case T_Agg:
		case T_Gather:
		case T_GatherMerge:
		case T_Sort:
		case T_IncrementalSort:
		case T_Material:
		case T_SubqueryScan:
		case T_Result:
			return true;
		default:
			return false;		/* Hash is never replaced: its Hash Join needs it */
	}
}

static double
themis_cost(TmTranslation *tr)
{
	return themis_startup_cost + themis_tuple_cost * tr->source_rows;
}

/*
 * limit_cost: where a Limit reads the subtree, PostgreSQL's estimate for the part of it the Limit runs
 * (a fast-start plan under ORDER BY ... LIMIT stops after a few rows of an index scan, where themis
 * would read whole tables); -1 elsewhere.
 */
static bool
offload_pays(TmTranslation *tr, Plan *plan, Cost limit_cost)
{
	Cost		cost = plan->total_cost;

	if (themis_min_rows == 0)
		return true;
	if (tr->max_source_rows < (double) themis_min_rows)
		return false;
	if (limit_cost >= 0 && limit_cost < cost)
		cost = limit_cost;
	return themis_cost(tr) < cost;
}

static Bitmapset *
plan_relids(TmPlan *plan)
{
	Bitmapset  *b = NULL;

	for (int i = 0; i < plan->npipelines; i++)
		if (plan->pipelines[i].srckind == TM_SRC_TABLE)
			b = bms_add_member(b, plan->pipelines[i].rtindex);
	return b;
}

static Plan *
make_themis_node(RewriteCtx *ctx, TmTranslation *tr, Plan *orig)
{
	CustomScan *cs = makeNode(CustomScan);
	bytea	   *blob = tm_plan_serialize(tr->plan);
	double		cost = Min(themis_cost(tr), orig->total_cost);

	cs->scan.plan.startup_cost = cost;
	cs->scan.plan.total_cost = cost;
	cs->scan.plan.plan_rows = orig->plan_rows;
	cs->scan.plan.plan_width = orig->plan_width;
	cs->scan.plan.parallel_aware = false;

	/*
	 * As parallel-safe as the subtree it replaces: never below a Gather in the main plan (see
	 * rewrite_plan), but a subplan's root can be run by parallel workers, which receive only
	 * parallel-safe subplans.  Each worker then computes the whole (uncorrelated) result, as the
	 * original subplan would.
	 */
	cs->scan.plan.parallel_safe = orig->parallel_safe;
	cs->scan.plan.async_capable = false;
	cs->scan.plan.plan_node_id = ctx->next_node_id++;
	cs->scan.plan.targetlist = tr->tlist;
	cs->scan.plan.qual = tr->qual;
	cs->scan.plan.extParam = bms_copy(orig->extParam);
	cs->scan.plan.allParam = bms_copy(orig->allParam);
	cs->scan.plan.initPlan = take_initplans(orig);
	cs->scan.scanrelid = 0;
	cs->flags = 0;
	cs->custom_plans = lcons(orig, tr->inputs);
	cs->custom_exprs = tr->params;
	cs->custom_private = list_make1(makeConst(BYTEAOID, -1, InvalidOid, -1,
											  PointerGetDatum(blob), false, false));
	cs->custom_scan_tlist = tr->scan_tlist;
	cs->custom_relids = plan_relids(tr->plan);
	cs->methods = &themis_scan_methods;

	if (themis_debug_ir)
		ereport(NOTICE,
				(errmsg("themis: %s", tm_plan_to_string(tr->plan))));

	if (tr->nsortkeys > 0)
	{
		/* reproduce the order the parent relies on */
		Sort	   *sort = makeNode(Sort);
		List	   *tl = NIL;
		ListCell   *lc;

		foreach(lc, cs->scan.plan.targetlist)
		{
			TargetEntry *tle = lfirst_node(TargetEntry, lc);
			TargetEntry *n = flatCopyTargetEntry(tle);

			n->expr = (Expr *) makeVarFromTargetEntry(OUTER_VAR, tle);
			tl = lappend(tl, n);
		}
		sort->plan.targetlist = tl;
		sort->plan.lefttree = (Plan *) cs;
		sort->plan.plan_rows = orig->plan_rows;
		sort->plan.plan_width = orig->plan_width;
		sort->plan.startup_cost = cost;
		sort->plan.total_cost = cost + 2.0 * cpu_operator_cost * Max(orig->plan_rows, 1.0) *
			Max(1.0, log(Max(orig->plan_rows, 2.0)) / log(2.0));
		sort->plan.plan_node_id = ctx->next_node_id++;
		sort->plan.extParam = bms_copy(orig->extParam);
		sort->plan.allParam = bms_copy(orig->allParam);
		sort->plan.parallel_safe = orig->parallel_safe;
		sort->numCols = tr->nsortkeys;
		sort->sortColIdx = tr->sortcols;
		sort->sortOperators = tr->sortops;
		sort->collations = tr->sortcolls;
		sort->nullsFirst = tr->nullsfirst;

		/* Sort does not project: where junk sort columns were added, a Result drops them */
		if (list_length(tl) > list_length(orig->targetlist))
		{
			Result	   *res = makeNode(Result);
			List	   *rtl = NIL;
			int			n = 0;

			foreach(lc, tl)
			{
				TargetEntry *tle = lfirst_node(TargetEntry, lc);
				TargetEntry *r;

				if (n++ >= list_length(orig->targetlist))
					break;
				r = flatCopyTargetEntry(tle);
				r->expr = (Expr *) makeVarFromTargetEntry(OUTER_VAR, tle);
				rtl = lappend(rtl, r);
			}
			res->plan.targetlist = rtl;
			res->plan.lefttree = (Plan *) sort;
			res->plan.plan_rows = orig->plan_rows;
			res->plan.plan_width = orig->plan_width;
			res->plan.startup_cost = sort->plan.startup_cost;
			res->plan.total_cost = sort->plan.total_cost;
			res->plan.plan_node_id = ctx->next_node_id++;
			res->plan.extParam = bms_copy(orig->extParam);
			res->plan.allParam = bms_copy(orig->allParam);
			res->plan.parallel_safe = orig->parallel_safe;
			return (Plan *) res;
		}
		return (Plan *) sort;
	}
	return (Plan *) cs;
}

/* ---------------------------------------------------------------- the walk */

static List *
rewrite_list(RewriteCtx *ctx, List *plans, bool need_order, bool in_parallel)
{
	ListCell   *lc;

	foreach(lc, plans)
		lfirst(lc) = rewrite_plan(ctx, (Plan *) lfirst(lc), need_order, in_parallel);
	return plans;
}

/*
 * The PostgreSQL subtrees a new Themis node reads as sources (custom_plans after the fallback) may have
 * parts themis can run themselves (TPC-H Q17: the join above a grouped subquery stays on PostgreSQL, the
 * scan and grouping below it need not): the walk goes on into them.  Their order does not matter to the
 * Themis node.  They are shared with the fallback subtree, which then runs those Themis nodes too.
 */
static void
rewrite_inputs(RewriteCtx *ctx, Plan *node)
{
	ListCell   *lc;

	/* a Sort (and Result) may sit on top of the Custom Scan */
	while (node != NULL && !IsA(node, CustomScan))
		node = node->lefttree;
	if (node == NULL || ((CustomScan *) node)->methods != &themis_scan_methods)
		return;
	for_each_from(lc, ((CustomScan *) node)->custom_plans, 1)
		lfirst(lc) = rewrite_plan(ctx, (Plan *) lfirst(lc), false, false);
}

/* does plan return its rows in the order of a Sort in it (through nodes that keep their input's order)? */
static bool
sorted_output(Plan *plan)
{
	while (plan != NULL)
	{
		switch (nodeTag(plan))
		{
			case T_Sort:
			case T_IncrementalSort:
				return true;
			case T_SubqueryScan:
				plan = ((SubqueryScan *) plan)->subplan;
				break;
			case T_Result:
			case T_Material:
			case T_Memoize:
			case T_Limit:
			case T_Unique:
			case T_ProjectSet:
				plan = plan->lefttree;
				break;
			default:
				return false;
		}
	}
	return false;
}

static Plan *
rewrite_plan(RewriteCtx *ctx, Plan *plan, bool need_order, bool in_parallel)
{
	bool		outer_order = true,
				inner_order = true,
				child_parallel = in_parallel;
	Cost		limit_cost = ctx->limit_cost;

	if (plan == NULL)
		return NULL;
	check_stack_depth();
	ctx->limit_cost = -1;

	/*
	 * A subtree that reads parameters set per outer row (a correlated subquery, the inner side of a
	 * parameterized nested loop) is rerun for every outer row; themis would read whole tables each
	 * time.  Such subtrees stay with PostgreSQL until themis decorrelates them.
	 */
	if (!in_parallel && ctx->gpu >= 0 && is_candidate(plan) &&
		!bms_nonempty_difference(plan->extParam, ctx->initplan_params))
	{
		const char *why = NULL;

		/*
		 * A Sort whose order reaches the subtree's output is an order its parent asked for, even where
		 * the query's result needs none: a subquery's ORDER BY under string_agg() or array_agg(), a
		 * UNION ALL of ordered branches (PostgreSQL keeps it; users rely on it).  So is any order of
		 * the subtree's output where a subquery has an ORDER BY: PostgreSQL may meet it without a Sort
		 */
		TmTranslation *tr = tm_translate(ctx->pstmt, plan,
										 need_order || sorted_output(plan) ||
										 (ctx->inner_sort && tm_plan_ordered(plan)), &why);

		if (tr != NULL && offload_pays(tr, plan, limit_cost) && device_allows(&ctx->gpu))
		{
			Plan	   *node = make_themis_node(ctx, tr, plan);

			rewrite_inputs(ctx, node);
			return node;
		}
		if (themis_debug_ir && ctx->gpu >= 0)
			ereport(NOTICE,
					(errmsg("themis: plan node %d not offloaded: %s",
							plan->plan_node_id, tr ? "does not pay" : why)));
	}

	switch (nodeTag(plan))
	{
		case T_Sort:
		case T_Hash:
			outer_order = false;
			break;
		case T_Agg:
			outer_order = ((Agg *) plan)->aggstrategy == AGG_SORTED ||
				((Agg *) plan)->aggstrategy == AGG_MIXED;
			break;
		case T_HashJoin:
		case T_NestLoop:
			outer_order = need_order;
			inner_order = false;
			break;
		case T_Gather:
			outer_order = false;
			child_parallel = true;
			break;
		case T_GatherMerge:
			child_parallel = true;
			break;
		case T_Material:
		case T_Memoize:
		case T_Result:
		case T_ProjectSet:
			outer_order = need_order;
			break;
		default:
			break;
	}

	if (IsA(plan, Limit))
		ctx->limit_cost = plan->total_cost;
	plan->lefttree = rewrite_plan(ctx, plan->lefttree, outer_order, child_parallel);
	plan->righttree = rewrite_plan(ctx, plan->righttree, inner_order, child_parallel);

	switch (nodeTag(plan))
	{
		case T_Append:
			rewrite_list(ctx, ((Append *) plan)->appendplans, need_order, child_parallel);
			break;
		case T_MergeAppend:
			rewrite_list(ctx, ((MergeAppend *) plan)->mergeplans, true, child_parallel);
			break;
		case T_SubqueryScan:
			((SubqueryScan *) plan)->subplan =
				rewrite_plan(ctx, ((SubqueryScan *) plan)->subplan, need_order, child_parallel);
			break;
		case T_CustomScan:
			/* another extension's node: leave its children alone */
			break;
		default:
			break;
	}
	return plan;
}

/* the next planner in the chain */
static PlannedStmt *
plan_query(Query *parse, const char *query_string, int cursorOptions, ParamListInfo boundParams)
{
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

static PlannedStmt *
themis_planner(Query *parse, const char *query_string, int cursorOptions, ParamListInfo boundParams)
{
	PlannedStmt *stmt;
	PlannedStmt *scrollable = NULL;
	RewriteCtx	ctx;
	ListCell   *lc;
	int			maxid = 0;
	int			gpu = 0;
	bool		save_transient;
	List	   *save_secure;
	List	   *secure_relids = NIL;
	bool		inner_sort = false;

	/*
	 * What the query tree says that the finished plan no longer does (read before planning, which turns
	 * sublinks into subplans in place): the tables under security quals, and subqueries' ORDER BYs
	 */
	if (themis_enabled)
	{
		SecureCtx	sc = {NIL, 0};
		int			depth = 0;

		(void) secure_relids_walker((Node *) parse, &sc);
		secure_relids = sc.relids;
		inner_sort = inner_sort_walker((Node *) parse, &depth);
	}

	stmt = NULL;
	if (themis_enabled && themis_decorrelate_on && themis_decorrelate_candidate(parse) &&
		device_allows(&gpu))
	{
		/* the subquery rewrites (decorrelate.c), kept only where PostgreSQL's estimate allows */
		Query	   *alt = copyObject(parse);

		if (themis_decorrelate(alt))
		{
			PlannedStmt *s_alt = plan_query(alt, query_string, cursorOptions, boundParams);
			PlannedStmt *s_orig = plan_query(parse, query_string, cursorOptions, boundParams);
			Cost		c_alt = s_alt->planTree->total_cost;
			Cost		c_orig = s_orig->planTree->total_cost;

			stmt = c_alt <= THEMIS_DECORRELATE_MAX_RATIO * c_orig ? s_alt : s_orig;
			if (themis_debug_ir)
				ereport(NOTICE,
						(errmsg("themis: subquery rewrite %s: estimated cost %.0f rewritten, %.0f original",
								stmt == s_alt ? "kept" : "dropped", c_alt, c_orig)));
		}
	}
	if (stmt == NULL)
		stmt = plan_query(parse, query_string, cursorOptions, boundParams);

	if (!themis_enabled || stmt->commandType == CMD_UTILITY)
		return stmt;
	/* backward scans of the whole result are not supported */
	if (cursorOptions & CURSOR_OPT_SCROLL)
		return stmt;
	/* row marks (UPDATE / DELETE / FOR UPDATE) mean EvalPlanQual rechecks, which themis cannot do */
	if (stmt->rowMarks != NIL)
		return stmt;

	/*
	 * A cursor declared without SCROLL or NO SCROLL (DECLARE c CURSOR, a PL/pgSQL cursor variable,
	 * SPI_cursor_open of a plan prepared without either) scrolls where its finished plan can:
	 * PerformCursorOpen and SPI_cursor_open make it SCROLL when the plan has no row marks and
	 * ExecSupportsBackwardScan(planTree), NO SCROLL otherwise.  A Themis node cannot scan backwards, so
	 * where PostgreSQL's plan could (a scan, a Sort, a Limit over them), the rewrite would turn FETCH
	 * BACKWARD / PRIOR / ABSOLUTE into "cursor can only scan forward".  Statements (planned with
	 * CURSOR_OPT_PARALLEL_OK: the protocols, SQL functions, PL/pgSQL statements) and NO SCROLL cursors
	 * never fetch backwards; a cursor that may has neither bit (presort.c's rule).  Keep a copy of
	 * PostgreSQL's plan (the rewrite changes its nodes in place) and return it where the rewritten plan
	 * no longer scans backwards.  A rewritten plan that still does (a Sort above the node holds the rows:
	 * an ORDER BY) is kept: the cursor scrolls through the Sort as through PostgreSQL's own.
	 */
	if ((cursorOptions & (CURSOR_OPT_NO_SCROLL | CURSOR_OPT_PARALLEL_OK)) == 0 &&
		ExecSupportsBackwardScan(stmt->planTree))
		scrollable = copyObject(stmt);

	/* (an index that tm_unique_index_covers passed over makes the plan transient, as in PostgreSQL) */
	save_transient = themis_plan_transient;
	themis_plan_transient = false;
	save_secure = themis_secure_relids;
	themis_secure_relids = secure_relids;
	max_node_id_walker(stmt->planTree, &maxid);
	foreach(lc, stmt->subplans)
		max_node_id_walker((Plan *) lfirst(lc), &maxid);
	ctx.pstmt = stmt;
	ctx.next_node_id = maxid + 1;
	ctx.initplan_params = NULL;
	ctx.inner_sort = inner_sort;
	ctx.limit_cost = -1;
	ctx.gpu = gpu;
	themis_walk_plans(stmt, collect_initplan_params, &ctx.initplan_params);

	/* the order of the top node's output matters only where the query asks for one */
	stmt->planTree = rewrite_plan(&ctx, stmt->planTree, parse->sortClause != NIL, false);
	foreach(lc, stmt->subplans)
		lfirst(lc) = rewrite_plan(&ctx, (Plan *) lfirst(lc), true, false);
	/* ORDER BY ... LIMIT above a Themis node: it returns only rows that can make the cut (topn.c) */
	themis_topn_mark(stmt);
	/* a Sort right above a Themis node: it returns its rows in the Sort's order (presort.c) */
	themis_presort_mark(stmt);
	/* and where that Sort is the statement's top node (or under a top Limit), it takes its place */
	themis_presort_elide(stmt, cursorOptions, &ctx.next_node_id);
	if (scrollable != NULL && !ExecSupportsBackwardScan(stmt->planTree))
	{
		if (themis_debug_ir)
			ereport(NOTICE,
					(errmsg("themis: a cursor that may scroll keeps PostgreSQL's plan: it scans backwards, the rewritten one would not")));
		themis_plan_transient = save_transient;
		themis_secure_relids = save_secure;
		return scrollable;
	}
	if (themis_plan_transient)
		stmt->transientPlan = true;
	themis_plan_transient = save_transient;
	themis_secure_relids = save_secure;
	return stmt;
}

void
themis_install_planner_hook(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = themis_planner;
}
