/*
 * translate.c — turns a subtree of PostgreSQL's final plan into a themis plan (TmPlan): pipelines of
 * operators over typed slots, with compiled expressions.
 *
 * The walk is bottom-up.  Each plan node yields a "stream": the pipeline under construction plus one
 * expression per output column of the node, written over the pipeline's slots (Var nodes with
 * varno TM_SLOT_VARNO).  A parent substitutes its OUTER_VAR / INNER_VAR references with those
 * expressions.  Pipeline breakers (the build side of a join, an aggregation) finish a pipeline with a
 * sink and start a new one.  At the end, unused slots and payload columns are pruned, slots are
 * renumbered and all expressions are compiled to bytecode.
 *
 * Nodes: Seq Scan (also parallel), Hash / Merge / Nested Loop joins with equality keys (inner, left,
 * right as left with swapped sides, semi, anti), Agg (plain, hashed, sorted; Finalize over Partial
 * counts as one), and the nodes that only move or order rows: Hash, Sort, Incremental Sort, Material,
 * Gather, Gather Merge, projection-only Result, Subquery Scan.  A node that cannot be translated
 * (an unsupported expression, a node type themis does not know) becomes a SUBPLAN source: PostgreSQL
 * runs that part and themis reads its rows, so only that node stays on the CPU.  If nothing but such
 * sources would be left, the translation fails (the planner then tries the node's children).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/tsmapi.h"
#include "miscadmin.h"
#include "utils/pg_locale.h"
#include "utils/regproc.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/ruleutils.h"
#include "rewrite/rewriteManip.h"

#include "themis.h"
#include "modcount.h"

#define TM_BAD_VARNO (-101)		/* marks an output column themis cannot provide */

typedef struct BSlot
{
	TmType		type;
	Oid			pgtype;
	int32		typmod;
	Oid			collid;
	int			level;
	int			col;			/* TABLE level 0: attno until pruning; else column index */
	Expr	   *origin;			/* expression over real relations, for EXPLAIN */
} BSlot;

typedef struct BOp
{
	TmOpKind	kind;
	TmJoinKind	jointype;
	int			ht;
	List	   *keys;			/* Expr over slots */
	TmType	   *keytypes;		/* coerce_to per key */
	Expr	   *qual;
	double		est_rows;
	char	   *label;
} BOp;

typedef struct BAgg
{
	TmAggKind	kind;
	bool		distinct;
	Expr	   *arg;
	Expr	   *filter;
	TmType		restype;
	TmType		argcoerce;		/* kind 0: none */
	Aggref	   *origin;			/* for EXPLAIN */
} BAgg;

typedef struct BPipeline
{
	TmSourceKind srckind;
	Oid			relid;
	int			rtindex;
	int			src_result;
	int			subplan;		/* SUBPLAN: index in custom_plans */
	int			nsrccols;		/* SUBPLAN: output columns of the subplan */
	int			nslots;
	int			maxslots;
	BSlot	   *slots;
	List	   *ops;			/* BOp */
	bool		finished;
	TmSinkKind	sinkkind;
	int			target;
	List	   *sinkkeys;		/* Expr */
	TmType	   *sinkkeytypes;	/* HASH_BUILD: coerce_to per key */
	List	   *sinkvals;		/* Expr (HASH_BUILD payload, EMIT values) */
	List	   *aggs;			/* BAgg */
	char	   *source_label;
	char	   *sink_label;
	double		est_source_rows;
	double		est_rows;
	double		est_groups;		/* AGG with keys: the Agg node's estimate of groups */
} BPipeline;

typedef struct BHash
{
	int			nkeys;
	TmType	   *keytypes;
	List	   *payload_types;	/* TmType * per payload column (before pruning) */
	BPipeline  *build;
} BHash;

typedef struct OrderKey
{
	Expr	   *expr;
	Oid			sortop;
	Oid			coll;
	bool		nullsfirst;
} OrderKey;

typedef struct Stream
{
	BPipeline  *pl;
	List	   *out;			/* Expr per output column of the node */
	List	   *order;			/* OrderKey: order of the node's output, if any */
	List	   *pending_qual;	/* HAVING quals not applied yet (implicit AND, over slots) */
	double		rows;
} Stream;

typedef struct TState
{
	PlannedStmt *pstmt;
	List	   *pipelines;		/* BPipeline, finished, in execution order */
	List	   *hashes;			/* BHash */
	List	   *results;		/* List of TmType * per result */
	List	   *params;			/* parameter expressions PostgreSQL evaluates (custom_exprs) */
	List	   *paramtypes;		/* TmType * of each */
	List	   *inputs;			/* Plans read by SUBPLAN sources */
	int			nreal;			/* scans, joins and aggregations themis runs itself */
	List	   *dpcontext;		/* deparse context for labels */
	double		source_rows;
	double		max_source_rows;
	const char *why;
	bool		merge_swap;		/* an inner Merge Join may hash its outer side (translate_join) */
	int			merge_swaps;	/* ... and this many did */
	double		gather_divisor; /* under a Gather: its parallel divisor (a partial plan's rows are
								 * per participant); 0 elsewhere */
	int			volatile_stmt;	/* stmt_volatile: 0 not known yet, 1 yes, -1 no */
} TState;

static Stream *translate_node(TState *ts, Plan *plan);
static Stream *translate_node_nowrap(TState *ts, Plan *plan);

/* ---------------------------------------------------------------- helpers */

static void *
fail(TState *ts, const char *why)
{
	if (ts->why == NULL)
		ts->why = why;
	return NULL;
}

/* Does this plan subtree call a volatile function, sample a table or write (stmt_volatile)? */
static bool
plan_volatile(Plan *p)
{
	ListCell   *lc;
	Node	   *e = NULL;
	List	   *children = NIL;

	if (p == NULL)
		return false;
	if (contain_volatile_functions((Node *) p->targetlist) || contain_volatile_functions((Node *) p->qual))
		return true;
	switch (nodeTag(p))
	{
		case T_ModifyTable:
			return true;
		case T_SampleScan:
			{
				/* a sample repeats only with REPEATABLE, by a method that repeats across scans */
				TableSampleClause *tsc = ((SampleScan *) p)->tablesample;

				if (tsc->repeatable == NULL || !GetTsmRoutine(tsc->tsmhandler)->repeatable_across_scans)
					return true;
				e = (Node *) list_make2(tsc->args, tsc->repeatable);
				break;
			}
		case T_Result:
			e = ((Result *) p)->resconstantqual;
			break;
		case T_FunctionScan:
			e = (Node *) ((FunctionScan *) p)->functions;
			break;
		case T_ValuesScan:
			e = (Node *) ((ValuesScan *) p)->values_lists;
			break;
		case T_TableFuncScan:
			e = (Node *) ((TableFuncScan *) p)->tablefunc;
			break;
		case T_IndexScan:
			e = (Node *) list_concat_copy(((IndexScan *) p)->indexqualorig, ((IndexScan *) p)->indexorderbyorig);
			break;
		case T_IndexOnlyScan:
			e = (Node *) list_concat_copy(((IndexOnlyScan *) p)->indexqual, ((IndexOnlyScan *) p)->indexorderby);
			break;
		case T_BitmapIndexScan:
			e = (Node *) ((BitmapIndexScan *) p)->indexqualorig;
			break;
		case T_BitmapHeapScan:
			e = (Node *) ((BitmapHeapScan *) p)->bitmapqualorig;
			break;
		case T_TidScan:
			e = (Node *) ((TidScan *) p)->tidquals;
			break;
		case T_TidRangeScan:
			e = (Node *) ((TidRangeScan *) p)->tidrangequals;
			break;
		case T_NestLoop:
			e = (Node *) ((NestLoop *) p)->join.joinqual;
			break;
		case T_MergeJoin:
			e = (Node *) list_concat_copy(((MergeJoin *) p)->join.joinqual, ((MergeJoin *) p)->mergeclauses);
			break;
		case T_HashJoin:
			e = (Node *) list_concat_copy(((HashJoin *) p)->join.joinqual, ((HashJoin *) p)->hashclauses);
			break;
		case T_Limit:
			e = (Node *) list_make2(((Limit *) p)->limitOffset, ((Limit *) p)->limitCount);
			break;
		case T_WindowAgg:
			e = (Node *) list_make2(((WindowAgg *) p)->startOffset, ((WindowAgg *) p)->endOffset);
			break;
		case T_Append:
			children = ((Append *) p)->appendplans;
			break;
		case T_MergeAppend:
			children = ((MergeAppend *) p)->mergeplans;
			break;
		case T_BitmapAnd:
			children = ((BitmapAnd *) p)->bitmapplans;
			break;
		case T_BitmapOr:
			children = ((BitmapOr *) p)->bitmapplans;
			break;
		case T_SubqueryScan:
			children = list_make1(((SubqueryScan *) p)->subplan);
			break;
		case T_CustomScan:
			e = (Node *) ((CustomScan *) p)->custom_exprs;
			children = ((CustomScan *) p)->custom_plans;
			break;
		case T_ForeignScan:
			e = (Node *) list_concat_copy(((ForeignScan *) p)->fdw_exprs, ((ForeignScan *) p)->fdw_recheck_quals);
			break;
		default:
			break;
	}
	if (e != NULL && contain_volatile_functions(e))
		return true;
	foreach(lc, children)
		if (plan_volatile((Plan *) lfirst(lc)))
			return true;
	return plan_volatile(p->lefttree) || plan_volatile(p->righttree);
}

/*
 * Does the statement call a volatile function, sample a table (not REPEATABLE) or write anywhere (its
 * plan, its subplans and initplans)?  Then what the node reads from PostgreSQL must not be read
 * twice: a subtree it reads as a source (wrap_subplan) would run again in the kept plan after a
 * fallback (other sequence values, the writes of a function done twice); and an initplan's parameter,
 * which the node evaluates before it reads a row (PostgreSQL: when a row first needs it, maybe never),
 * could call a volatile function PostgreSQL would not have called.
 */
static bool
stmt_volatile(TState *ts)
{
	if (ts->volatile_stmt == 0)
	{
		bool		v = plan_volatile(ts->pstmt->planTree);
		ListCell   *lc;

		foreach(lc, ts->pstmt->subplans)
			v = v || plan_volatile((Plan *) lfirst(lc));
		ts->volatile_stmt = v ? 1 : -1;
	}
	return ts->volatile_stmt > 0;
}

/*
 * Is relid read under security quals (themis_secure_relids: the query's tables with policies or under a
 * security-barrier view), or under a row-level security policy of its own or of a table it inherits
 * from (a partition or an inheritance child is read through its parent, under the parent's policies;
 * a table in an SQL function that the planner inlined was not in the query tree)?
 */
static bool
read_under_policy(Oid relid, Oid checkAsUser)
{
	List	   *rels = list_make1_oid(relid);
	ListCell   *lc;

	foreach(lc, rels)
	{
		Oid			r = lfirst_oid(lc);
		Relation	inh;
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tup;

		if (list_member_oid(themis_secure_relids, r) || check_enable_rls(r, checkAsUser, true) == RLS_ENABLED)
			return true;
		/* its parents (pg_inherits: partitions and inheritance children), appended to the walk */
		inh = table_open(InheritsRelationId, AccessShareLock);
		ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(r));
		scan = systable_beginscan(inh, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
			rels = list_append_unique_oid(rels, ((Form_pg_inherits) GETSTRUCT(tup))->inhparent);
		systable_endscan(scan);
		table_close(inh, AccessShareLock);
	}
	return false;
}

static BPipeline *
new_pipeline(TmSourceKind kind)
{
	BPipeline  *pl = palloc0(sizeof(BPipeline));

	pl->srckind = kind;
	pl->maxslots = 16;
	pl->slots = palloc0(sizeof(BSlot) * pl->maxslots);
	pl->target = -1;
	pl->src_result = -1;
	return pl;
}

static int
add_slot(BPipeline *pl, int level, int col, Oid pgtype, int32 typmod, Oid collid,
		 const TmType *type, Expr *origin)
{
	BSlot	   *s;

	if (pl->nslots == pl->maxslots)
	{
		pl->maxslots *= 2;
		pl->slots = repalloc(pl->slots, sizeof(BSlot) * pl->maxslots);
	}
	s = &pl->slots[pl->nslots];
	memset(s, 0, sizeof(BSlot));
	s->type = *type;
	s->pgtype = pgtype;
	s->typmod = typmod;
	s->collid = collid;
	s->level = level;
	s->col = col;
	s->origin = origin;
	return pl->nslots++;
}

static Var *
slot_var(BPipeline *pl, int s)
{
	BSlot	   *sl = &pl->slots[s];

	return makeVar(TM_SLOT_VARNO, s + 1, sl->pgtype, sl->typmod, sl->collid, 0);
}

static Var *
bad_var(Oid type, int32 typmod, Oid coll)
{
	return makeVar(TM_BAD_VARNO, 1, type, typmod, coll, 0);
}

static bool
has_bad_var_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno == TM_BAD_VARNO)
		return true;
	return expression_tree_walker(node, has_bad_var_walker, ctx);
}

static bool
has_bad_var(Node *node)
{
	return has_bad_var_walker(node, NULL);
}

static TmType *
slot_types(BPipeline *pl)
{
	TmType	   *t = palloc0(sizeof(TmType) * Max(pl->nslots, 1));

	for (int i = 0; i < pl->nslots; i++)
		t[i] = pl->slots[i].type;
	return t;
}

/* Compile check (and result type) of an expression over pl's current slots. */
static bool
expr_type(TState *ts, BPipeline *pl, Expr *e, const TmType *coerce, TmType *out)
{
	const char *why = NULL;
	TmExpr	   *c;

	if (has_bad_var((Node *) e))
		return fail(ts, "uses a column themis cannot provide"), false;
	c = tm_compile_expr(e, slot_types(pl), pl->nslots, coerce, &why);
	if (c == NULL)
		return fail(ts, why ? why : "expression not supported"), false;
	if (out)
		*out = c->result;
	pfree(c);
	return true;
}

/* ---------------------------------------------------------------- origins and labels */

typedef struct OriginCtx
{
	BPipeline  *pl;
} OriginCtx;

static Node *
origin_mutator(Node *node, OriginCtx *c)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == TM_SLOT_VARNO)
	{
		int			s = ((Var *) node)->varattno - 1;

		if (s >= 0 && s < c->pl->nslots && c->pl->slots[s].origin)
			return copyObject((Node *) c->pl->slots[s].origin);
		return node;
	}
	return expression_tree_mutator(node, origin_mutator, (void *) c);
}

static Expr *
origin_of(BPipeline *pl, Expr *e)
{
	OriginCtx	c;

	c.pl = pl;
	return (Expr *) origin_mutator((Node *) copyObject(e), &c);
}

/* Deparse for EXPLAIN; never fails the planning. */
static char *
deparse(TState *ts, BPipeline *pl, Expr *e)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	char	   *s;

	if (e == NULL)
		return pstrdup("");
	PG_TRY();
	{
		s = deparse_expression((Node *) origin_of(pl, e), ts->dpcontext, true, false);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		FlushErrorState();
		s = pstrdup("?");
	}
	PG_END_TRY();
	return s;
}

static char *
deparse_list(TState *ts, BPipeline *pl, List *l, const char *sep)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, l)
	{
		if (buf.len > 0)
			appendStringInfoString(&buf, sep);
		appendStringInfoString(&buf, deparse(ts, pl, (Expr *) lfirst(lc)));
	}
	return buf.data;
}

/* ---------------------------------------------------------------- mapping plan expressions */

typedef struct MapCtx
{
	TState	   *ts;
	BPipeline  *pl;
	Index		scanrelid;		/* Vars of this range table entry are scan columns */
	List	   *outer;			/* OUTER_VAR attno -> Expr */
	List	   *inner;			/* INNER_VAR attno -> Expr */
	bool		slots_ok;		/* the expression is over pl's slots already (map_params) */
	bool		failed;
} MapCtx;

static int
scan_slot(MapCtx *c, Var *v)
{
	TmType		t;
	const char *why = NULL;
	BPipeline  *pl = c->pl;

	for (int i = 0; i < pl->nslots; i++)
		if (pl->slots[i].level == 0 && pl->slots[i].col == v->varattno)
			return i;
	if (!tm_type_from_pg(v->vartype, v->vartypmod, v->varcollid, &t, &why))
		return -1;
	return add_slot(pl, 0, v->varattno, v->vartype, v->vartypmod, v->varcollid, &t,
					(Expr *) copyObject(v));
}

/* slot of a parameter expression (evaluated by PostgreSQL once per scan), of TmType t */
static bool
exec_param_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
		return true;
	return expression_tree_walker(node, exec_param_walker, context);
}

static int
param_slot_typed(MapCtx *c, Expr *e, const TmType *t, Oid pgtype, int32 typmod, Oid coll)
{
	BPipeline  *pl = c->pl;
	int			idx = -1;
	int			i = 0;
	ListCell   *lc;

	/* every parameter expression the node evaluates comes through here (param_slot, numeric_param_compare) */
	if (exec_param_walker((Node *) e, NULL) && stmt_volatile(c->ts))
	{
		c->failed = true;
		fail(c->ts, "a parameter set by PostgreSQL in a statement with volatile functions");
		return -1;
	}

	foreach(lc, c->ts->params)
	{
		if (equal(lfirst(lc), e) &&
			memcmp(list_nth(c->ts->paramtypes, i), t, sizeof(TmType)) == 0)
		{
			idx = i;
			break;
		}
		i++;
	}
	if (idx < 0)
	{
		TmType	   *tp = palloc(sizeof(TmType));

		*tp = *t;
		c->ts->params = lappend(c->ts->params, copyObject(e));
		c->ts->paramtypes = lappend(c->ts->paramtypes, tp);
		idx = list_length(c->ts->params) - 1;
	}
	for (i = 0; i < pl->nslots; i++)
		if (pl->slots[i].level == -1 && pl->slots[i].col == idx)
			return i;
	return add_slot(pl, -1, idx, pgtype, typmod, coll, t, (Expr *) copyObject(e));
}

static int
param_slot(MapCtx *c, Param *p)
{
	TmType		t;
	const char *why = NULL;

	if (!tm_type_from_pg(p->paramtype, p->paramtypmod, p->paramcollid, &t, &why))
	{
		fail(c->ts, why);
		return -1;
	}
	return param_slot_typed(c, (Expr *) p, &t, p->paramtype, p->paramtypmod, p->paramcollid);
}

static Node *map_mutator(Node *node, MapCtx *c);

static Expr *
numeric_fn2(Oid fn, Oid rettype, Expr *a, Expr *b)
{
	return (Expr *) makeFuncExpr(fn, rettype, list_make2(a, b), InvalidOid, InvalidOid,
								 COERCE_EXPLICIT_CALL);
}

/* an operator clause ready for the executor (make_opclause leaves opfuncid unset) */
static Expr *
op_clause(Oid opno, Expr *l, Expr *r)
{
	OpExpr	   *op = (OpExpr *) make_opclause(opno, BOOLOID, false, l, r, InvalidOid, InvalidOid);

	op->opfuncid = get_opcode(opno);
	return (Expr *) op;
}

static Expr *
case_when(Expr *cond, Expr *then, Expr *otherwise, Oid type)
{
	CaseExpr   *ce = makeNode(CaseExpr);
	CaseWhen   *w = makeNode(CaseWhen);

	w->expr = cond;
	w->result = then;
	w->location = -1;
	ce->casetype = type;
	ce->casecollid = InvalidOid;
	ce->args = list_make1(w);
	ce->defresult = otherwise;
	ce->location = -1;
	return (Expr *) ce;
}

/*
 * x <op> $p where $p is a numeric without a fixed scale (an initplan's avg(), a prepared statement's
 * numeric argument) and x has scale s: PostgreSQL computes, once per scan, $p rounded to scale s in the
 * direction that keeps the comparison exact (x is a multiple of 10^-s):
 *   x > p <=> x > floor_s(p)    x >= p <=> x >= ceil_s(p)    x < p <=> x < ceil_s(p)    x <= p <=> x <= floor_s(p)
 *   x = p <=> p has at most s decimals and x = p (NULL where PostgreSQL gives NULL); <> likewise.
 * Returns NULL if op is not of that form.
 */
static Node *
numeric_param_compare(MapCtx *c, OpExpr *op)
{
	Node	   *l = linitial(op->args),
			   *r = lsecond(op->args);
	Param	   *p;
	Expr	   *x;
	Oid			fn = op->opfuncid;
	Oid			opno = op->opno;
	TmType		xt,
				pt,
				bt;
	const char *why = NULL;
	int			s;
	Expr	   *pp,
			   *tr,
			   *ulp,
			   *d;
	int			ds;
	char		buf[64];

	if (fn != F_NUMERIC_EQ && fn != F_NUMERIC_NE && fn != F_NUMERIC_LT && fn != F_NUMERIC_LE &&
		fn != F_NUMERIC_GT && fn != F_NUMERIC_GE)
		return NULL;
	while (IsA(l, RelabelType))
		l = (Node *) ((RelabelType *) l)->arg;
	while (IsA(r, RelabelType))
		r = (Node *) ((RelabelType *) r)->arg;
	if (IsA(r, Param) && ((Param *) r)->paramtypmod < 0)
	{
		p = (Param *) r;
		x = (Expr *) l;
	}
	else if (IsA(l, Param) && ((Param *) l)->paramtypmod < 0)
	{
		/* $p op x  ->  x op' $p */
		p = (Param *) l;
		x = (Expr *) r;
		opno = get_commutator(opno);
		if (!OidIsValid(opno))
			return NULL;
		fn = get_opcode(opno);
	}
	else
		return NULL;
	if (p->paramtype != NUMERICOID || (p->paramkind != PARAM_EXTERN && p->paramkind != PARAM_EXEC))
		return NULL;

	x = (Expr *) map_mutator((Node *) x, c);
	if (c->failed || !expr_type(c->ts, c->pl, x, NULL, &xt) || xt.kind != TM_K_NUMERIC)
		return NULL;
	s = xt.scale;
	memset(&pt, 0, sizeof(pt));
	pt.kind = TM_K_NUMERIC;
	pt.scale = s;
	pt.typmod = -1;
	pt.pgtype = NUMERICOID;

	pp = (Expr *) copyObject(p);
	tr = numeric_fn2(F_TRUNC_NUMERIC_INT4, NUMERICOID, pp,
					 (Expr *) makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(s), false, true));
	/* 10^-s as text: "1", "0.1", "0.01", ... */
	if (s <= 0)
		strcpy(buf, "1");
	else
	{
		strcpy(buf, "0.");
		for (int i = 1; i < s && i < 40; i++)
			strcat(buf, "0");
		strcat(buf, "1");
	}
	ulp = (Expr *) makeConst(NUMERICOID, -1, InvalidOid, -1,
							 DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
												 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)),
							 false, false);

	if (fn == F_NUMERIC_GT || fn == F_NUMERIC_LE)	/* floor_s(p) */
		d = case_when(numeric_fn2(F_NUMERIC_LT, BOOLOID, copyObject(pp), copyObject(tr)),
					  numeric_fn2(F_NUMERIC_SUB, NUMERICOID, copyObject(tr), copyObject(ulp)),
					  copyObject(tr), NUMERICOID);
	else if (fn == F_NUMERIC_GE || fn == F_NUMERIC_LT)	/* ceil_s(p) */
		d = case_when(numeric_fn2(F_NUMERIC_GT, BOOLOID, copyObject(pp), copyObject(tr)),
					  numeric_fn2(F_NUMERIC_ADD, NUMERICOID, copyObject(tr), copyObject(ulp)),
					  copyObject(tr), NUMERICOID);
	else
		d = tr;
	ds = param_slot_typed(c, d, &pt, NUMERICOID, -1, InvalidOid);
	if (fn != F_NUMERIC_EQ && fn != F_NUMERIC_NE)
		return (Node *) op_clause(opno, x, (Expr *) slot_var(c->pl, ds));
	else
	{
		/* CASE WHEN p IS NULL THEN NULL WHEN p = trunc(p, s) THEN x op d WHEN x IS NULL THEN NULL ELSE <op is <>> END */
		NullTest   *pn = makeNode(NullTest);
		NullTest   *xn = makeNode(NullTest);
		int			ns,
					es;
		CaseExpr   *ce;
		CaseWhen   *w2,
				   *w3;

		if (!tm_type_from_pg(BOOLOID, -1, InvalidOid, &bt, &why))
			return NULL;
		pn->arg = (Expr *) copyObject(pp);
		pn->nulltesttype = IS_NULL;
		pn->argisrow = false;
		pn->location = -1;
		ns = param_slot_typed(c, (Expr *) pn, &bt, BOOLOID, -1, InvalidOid);
		es = param_slot_typed(c, numeric_fn2(F_NUMERIC_EQ, BOOLOID, copyObject(pp), copyObject(tr)),
							  &bt, BOOLOID, -1, InvalidOid);
		xn->arg = (Expr *) copyObject(x);
		xn->nulltesttype = IS_NULL;
		xn->argisrow = false;
		xn->location = -1;
		ce = (CaseExpr *) case_when((Expr *) slot_var(c->pl, ns),
									(Expr *) makeNullConst(BOOLOID, -1, InvalidOid),
									(Expr *) makeBoolConst(fn == F_NUMERIC_NE, false), BOOLOID);
		w2 = makeNode(CaseWhen);
		w2->expr = (Expr *) slot_var(c->pl, es);
		w2->result = op_clause(opno, x, (Expr *) slot_var(c->pl, ds));
		w2->location = -1;
		w3 = makeNode(CaseWhen);
		w3->expr = (Expr *) xn;
		w3->result = (Expr *) makeNullConst(BOOLOID, -1, InvalidOid);
		w3->location = -1;
		ce->args = lappend(ce->args, w2);
		ce->args = lappend(ce->args, w3);
		return (Node *) ce;
	}
}

static Node *
map_mutator(Node *node, MapCtx *c)
{
	if (node == NULL || c->failed)
		return node;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		List	   *src = NULL;

		if (c->slots_ok && v->varno == TM_SLOT_VARNO && v->varlevelsup == 0 && v->varattno >= 1 &&
			v->varattno <= c->pl->nslots)
			return (Node *) copyObject(v);
		if (v->varno == OUTER_VAR)
			src = c->outer;
		else if (v->varno == INNER_VAR)
			src = c->inner;
		else if (c->scanrelid > 0 && v->varno == (int) c->scanrelid && v->varlevelsup == 0)
		{
			int			s;

			if (v->varattno <= 0)
			{
				c->failed = true;
				fail(c->ts, "system columns and whole-row references are not supported");
				return node;
			}
			s = scan_slot(c, v);
			if (s < 0)
				return (Node *) bad_var(v->vartype, v->vartypmod, v->varcollid);
			return (Node *) slot_var(c->pl, s);
		}
		else
		{
			c->failed = true;
			fail(c->ts, "unexpected variable reference");
			return node;
		}
		if (v->varattno < 1 || v->varattno > list_length(src))
		{
			c->failed = true;
			fail(c->ts, "variable reference out of range");
			return node;
		}
		return copyObject(list_nth(src, v->varattno - 1));
	}
	if (IsA(node, OpExpr) && list_length(((OpExpr *) node)->args) == 2)
	{
		Node	   *r = numeric_param_compare(c, (OpExpr *) node);

		if (r != NULL || c->failed)
			return r ? r : node;
	}
	if (IsA(node, Param))
	{
		Param	   *p = (Param *) node;
		int			s;

		if (p->paramkind != PARAM_EXTERN && p->paramkind != PARAM_EXEC)
		{
			c->failed = true;
			fail(c->ts, "parameter kind not supported");
			return node;
		}
		s = param_slot(c, p);
		if (s < 0)
		{
			c->failed = true;
			return node;
		}
		return (Node *) slot_var(c->pl, s);
	}
	if (IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) || IsA(node, SubLink) ||
		IsA(node, Aggref) || IsA(node, WindowFunc) || IsA(node, GroupingFunc) ||
		IsA(node, PlaceHolderVar))
	{
		c->failed = true;
		fail(c->ts, "subplans, aggregates and window functions inside expressions are not supported here");
		return node;
	}
	return expression_tree_mutator(node, map_mutator, (void *) c);
}

static Expr *
map_expr(TState *ts, BPipeline *pl, Index scanrelid, List *outer, List *inner, Expr *e, bool *ok)
{
	MapCtx		c;
	Expr	   *r;

	c.ts = ts;
	c.pl = pl;
	c.scanrelid = scanrelid;
	c.outer = outer;
	c.inner = inner;
	c.slots_ok = false;
	c.failed = false;
	r = (Expr *) map_mutator((Node *) e, &c);
	if (c.failed)
		*ok = false;
	return r;
}

/*
 * An expression over pl's slots that may still hold Params (the HAVING quals of an aggregation, see
 * agg_mutator): Params become parameter slots (numeric comparisons with them as in map_expr).
 */
static Expr *
map_params(TState *ts, BPipeline *pl, Expr *e, bool *ok)
{
	MapCtx		c;
	Expr	   *r;

	memset(&c, 0, sizeof(c));
	c.ts = ts;
	c.pl = pl;
	c.slots_ok = true;
	r = (Expr *) map_mutator((Node *) e, &c);
	if (c.failed)
		*ok = false;
	return r;
}

/* Map a targetlist: one Expr per entry (resjunk included). */
static List *
map_tlist(TState *ts, BPipeline *pl, Index scanrelid, List *outer, List *inner, List *tlist, bool *ok)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, tlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		out = lappend(out, map_expr(ts, pl, scanrelid, outer, inner, tle->expr, ok));
	}
	return out;
}

/* Apply quals (implicit AND, over pl's slots) as a FILTER op. */
static bool
add_filter(TState *ts, Stream *s, List *quals, double est_rows)
{
	BOp		   *op;
	Expr	   *q;

	if (quals == NIL)
		return true;
	q = make_ands_explicit(quals);
	if (!expr_type(ts, s->pl, q, NULL, NULL))
		return false;
	op = palloc0(sizeof(BOp));
	op->kind = TM_OP_FILTER;
	op->qual = q;
	op->est_rows = est_rows;
	op->label = psprintf("Filter: %s", deparse(ts, s->pl, q));
	s->pl->ops = lappend(s->pl->ops, op);
	return true;
}

static bool
has_param_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, has_param_walker, ctx);
}

/*
 * A stream handed to a parent: its HAVING quals become a filter first.
 *
 * An aggregation leaves the Params of its quals and output columns as they are (agg_mutator): where it
 * is the root, PostgreSQL evaluates its output and themis maps its quals (tm_translate).  Inside the
 * plan (TPC-H Q15: groups filtered by an initplan's max, then joined with supplier), its parent
 * compiles them: they become parameter slots here, like the Params of any other expression (the
 * planner only takes subtrees whose parameters are set once per scan).  An output column with a
 * parameter themis cannot hold (a numeric without a typmod) keeps its Params: a parent that compiles
 * it fails as before, a projection up to the root leaves it to PostgreSQL.
 */
static bool
settle(TState *ts, Stream *s)
{
	List	   *q = s->pending_qual;
	ListCell   *lc;
	bool		ok = true;

	s->pending_qual = NIL;
	if (q != NIL && has_param_walker((Node *) q, NULL))
	{
		q = list_make1(map_params(ts, s->pl, make_ands_explicit(q), &ok));
		if (!ok)
			return false;
	}
	foreach(lc, s->out)
	{
		Expr	   *e = (Expr *) lfirst(lc);
		const char *why = ts->why;
		int			np = list_length(ts->params),
					nslots = s->pl->nslots;
		Expr	   *m;

		if (!has_param_walker((Node *) e, NULL))
			continue;
		m = map_params(ts, s->pl, e, &ok);
		if (ok)
			lfirst(lc) = m;
		else
		{
			/* undo the parameter slots the mapping added */
			s->pl->nslots = nslots;
			ts->params = list_truncate(ts->params, np);
			ts->paramtypes = list_truncate(ts->paramtypes, np);
			ts->why = why;
			ok = true;
		}
	}
	return add_filter(ts, s, q, s->rows);
}

static List *
map_order(List *order, List *from, List *to)
{
	/* order keys over `from` exprs -> the matching `to` exprs (positional); stops at first miss */
	List	   *res = NIL;
	ListCell   *lc;

	foreach(lc, order)
	{
		OrderKey   *k = (OrderKey *) lfirst(lc);
		int			i = 0;
		bool		found = false;
		ListCell   *lc2;

		foreach(lc2, from)
		{
			if (equal(lfirst(lc2), k->expr))
			{
				OrderKey   *nk = palloc(sizeof(OrderKey));

				*nk = *k;
				nk->expr = copyObject(list_nth(to, i));
				res = lappend(res, nk);
				found = true;
				break;
			}
			i++;
		}
		if (!found)
			break;
	}
	return res;
}

/*
 * Are two values equal under collation coll exactly when their bytes are?  Themis groups and removes
 * duplicates by bytes: so under no collation, C and every deterministic one (which breaks ties by
 * bytes), not a nondeterministic one ('abc' = 'ABC' at ICU strength 2).
 */
static bool
equal_means_same_bytes(Oid coll)
{
	return !OidIsValid(coll) || lc_collate_is_c(coll) || get_collation_isdeterministic(coll);
}

static List *
sort_order(List *out, int numCols, AttrNumber *cols, Oid *ops, Oid *colls, bool *nf)
{
	List	   *order = NIL;

	for (int i = 0; i < numCols; i++)
	{
		OrderKey   *k = palloc(sizeof(OrderKey));

		if (cols[i] < 1 || cols[i] > list_length(out))
			return NIL;
		k->expr = copyObject(list_nth(out, cols[i] - 1));
		k->sortop = ops[i];
		k->coll = colls[i];
		k->nullsfirst = nf[i];
		order = lappend(order, k);
	}
	return order;
}

/* ---------------------------------------------------------------- scans */

static double
rel_tuples(Oid relid, double fallback)
{
	Relation	rel = table_open(relid, NoLock);
	double		n = rel->rd_rel->reltuples;

	table_close(rel, NoLock);
	return n >= 0 ? Max(n, fallback) : fallback;
}

/* Does node reference one of the PARAM_EXEC parameters a nested loop sets (List of NestLoopParam)? */
static bool
refs_nest_param_walker(Node *node, List *nestparams)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
	{
		ListCell   *lc;

		foreach(lc, nestparams)
			if (((NestLoopParam *) lfirst(lc))->paramno == ((Param *) node)->paramid)
				return true;
		return false;
	}
	return expression_tree_walker(node, refs_nest_param_walker, (void *) nestparams);
}

/*
 * Is every use of the nested loop's parameters in the quals of a lookup scan that can become a hash key
 * (an equality operator) a bare operand (inner_column = $n), and every parameter's value a plain column
 * of the outer side?  Then hashing the outer side evaluates nothing on its rows but columns
 * (themis.stream_lookup_side): with a key such as $n + 10 it would be evaluated on every outer row, also
 * where PostgreSQL's plan never looks anything up (local fuzz s9019-q226: integer out of range).  Other
 * quals (TPC-H Q17's l_quantity < 0.2 * $avg) stay residual join quals, evaluated per matching pair
 * either way.
 */
static bool
lookup_keys_plain(List *quals, List *nestparams)
{
	ListCell   *lc;

	foreach(lc, nestparams)
	{
		Node	   *v = (Node *) ((NestLoopParam *) lfirst(lc))->paramval;

		while (v != NULL && IsA(v, RelabelType))
			v = (Node *) ((RelabelType *) v)->arg;
		if (v == NULL || !IsA(v, Var))
			return false;
	}
	foreach(lc, quals)
	{
		Node	   *q = (Node *) lfirst(lc);
		OpExpr	   *op;
		Node	   *a,
				   *b;

		if (!refs_nest_param_walker(q, nestparams))
			continue;
		if (!IsA(q, OpExpr) || list_length(((OpExpr *) q)->args) != 2)
			continue;			/* residual */
		op = (OpExpr *) q;
		a = (Node *) linitial(op->args);
		b = (Node *) lsecond(op->args);
		if (!op_hashjoinable(op->opno, exprType(a)) && !op_mergejoinable(op->opno, exprType(a)))
			continue;			/* residual: translate_nestloop takes only these operators as keys */
		while (IsA(a, RelabelType))
			a = (Node *) ((RelabelType *) a)->arg;
		while (IsA(b, RelabelType))
			b = (Node *) ((RelabelType *) b)->arg;
		if (!((IsA(a, Param) && !refs_nest_param_walker(b, nestparams)) ||
			  (IsA(b, Param) && !refs_nest_param_walker(a, nestparams))))
			return false;
	}
	return true;
}

/* Index Only Scan expressions: index column references -> the heap expressions they hold */
static Node *
index_to_heap_mutator(Node *node, List *indextlist)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR)
	{
		Var		   *v = (Var *) node;

		if (v->varattno < 1 || v->varattno > list_length(indextlist))
			elog(ERROR, "themis: bad index column reference");
		return copyObject((Node *) ((TargetEntry *) list_nth(indextlist, v->varattno - 1))->expr);
	}
	return expression_tree_mutator(node, index_to_heap_mutator, (void *) indextlist);
}

/*
 * The order an index scan returns its rows in, over the scan's slots: the index's key columns with
 * their btree operators, in the scan's direction.  Where the parent relies on it (a Merge Join's outer
 * side, TPC-H Q15's supplier_pkey; an ORDER BY the index satisfies), a Sort above the Themis node
 * reproduces it.  All the key columns or nothing (NIL: not a btree, a key that is an expression or of
 * a type themis cannot hold): the planner may rely on each of them.
 */
static List *
index_order(TState *ts, BPipeline *pl, Index rti, Oid relid, Oid indexid, ScanDirection dir)
{
	Relation	idx = index_open(indexid, AccessShareLock);
	List	   *order = NIL;
	bool		backward = ScanDirectionIsBackward(dir);

	if (idx->rd_rel->relam != BTREE_AM_OID)
	{
		index_close(idx, NoLock);
		return NIL;
	}
	for (int i = 0; i < idx->rd_index->indnkeyatts; i++)
	{
		AttrNumber	attno = idx->rd_index->indkey.values[i];
		int16		opt = idx->rd_indoption[i];
		bool		desc = (opt & INDOPTION_DESC) != 0;
		OrderKey   *k;
		Oid			type,
					coll;
		int32		typmod;
		bool		ok = true;
		Expr	   *e;

		if (attno <= 0)
		{
			order = NIL;
			break;
		}
		get_atttypetypmodcoll(relid, attno, &type, &typmod, &coll);
		e = map_expr(ts, pl, rti, NIL, NIL,
					 (Expr *) makeVar(rti, attno, type, typmod, coll, 0), &ok);
		if (!ok || has_bad_var((Node *) e))
		{
			order = NIL;
			break;
		}
		k = palloc(sizeof(OrderKey));
		k->expr = e;
		k->sortop = get_opfamily_member(idx->rd_opfamily[i], idx->rd_opcintype[i],
										idx->rd_opcintype[i],
										desc != backward ? BTGreaterStrategyNumber : BTLessStrategyNumber);
		k->coll = idx->rd_indcollation[i];
		k->nullsfirst = ((opt & INDOPTION_NULLS_FIRST) != 0) != backward;
		if (!OidIsValid(k->sortop))
		{
			order = NIL;
			break;
		}
		order = lappend(order, k);
	}
	index_close(idx, NoLock);
	return order;
}

/*
 * The predicate of partial index indexid (implicit AND, over scan rti's columns), NIL for a full index.
 * PostgreSQL leaves out of an index scan's quals those its index's predicate implies: the index holds only
 * rows that satisfy them (create_indexscan_plan).  A scan read whole must apply the predicate itself.
 */
static List *
index_pred_quals(Oid indexid, Index rti)
{
	Relation	idx = index_open(indexid, AccessShareLock);
	List	   *pred = copyObject(RelationGetIndexPredicate(idx));

	index_close(idx, NoLock);
	if (pred != NIL && rti != 1)
		ChangeVarNodes((Node *) pred, 1, rti, 0);
	return pred;
}

/*
 * A scan of a heap table: Seq Scan, or an index / bitmap scan read as a full scan with all its quals
 * (themis filters whole columns; PostgreSQL's choice of index does not bind it).  An index scan's quals
 * start with its partial index's predicate (index_pred_quals), tested first: PostgreSQL never sees the
 * rows outside it.  (A bitmap scan's bitmapqualorig has it.)  Quals that use a parameter set by an
 * enclosing nested loop (nestparams) are not applied: they are returned in *param_quals, raw, for the
 * caller to turn into join clauses.
 */
static Stream *
translate_scan(TState *ts, Plan *plan, List *nestparams, List **param_quals)
{
	Scan	   *scan = (Scan *) plan;
	Index		rti = scan->scanrelid;
	RangeTblEntry *rte;
	char		relkind;
	Stream	   *s;
	bool		ok = true;
	List	   *quals = NIL;
	List	   *tlist = plan->targetlist;
	List	   *filters = NIL;
	const char *kind;
	ListCell   *lc;

	switch (nodeTag(plan))
	{
		case T_SeqScan:
			kind = "Seq Scan";
			quals = plan->qual;
			break;
		case T_IndexScan:
			{
				IndexScan  *is = (IndexScan *) plan;

				if (is->indexorderby != NIL)
					return fail(ts, "index scan with ORDER BY operators");
				kind = "Index Scan (full)";
				quals = list_concat(index_pred_quals(is->indexid, scan->scanrelid),
									list_concat(list_copy(is->indexqualorig), plan->qual));
				break;
			}
		case T_IndexOnlyScan:
			{
				IndexOnlyScan *ios = (IndexOnlyScan *) plan;

				if (ios->indexorderby != NIL)
					return fail(ts, "index scan with ORDER BY operators");
				kind = "Index Only Scan (full)";
				quals = (List *) index_to_heap_mutator((Node *) list_concat(list_copy(ios->indexqual),
																			 plan->qual),
													   ios->indextlist);
				/* (the predicate names the table's columns, not the index's) */
				quals = list_concat(index_pred_quals(ios->indexid, scan->scanrelid), quals);
				tlist = (List *) index_to_heap_mutator((Node *) tlist, ios->indextlist);
				break;
			}
		case T_BitmapHeapScan:
			kind = "Bitmap Heap Scan (full)";
			quals = list_concat(list_copy(((BitmapHeapScan *) plan)->bitmapqualorig), plan->qual);
			break;
		default:
			return fail(ts, "not a table scan");
	}

	rte = rt_fetch(rti, ts->pstmt->rtable);
	if (rte->rtekind != RTE_RELATION)
		return fail(ts, "scan of something other than a table");
	relkind = get_rel_relkind(rte->relid);
	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
		return fail(ts, "scan of a relation that is not a plain table");
	if (relkind == RELKIND_MATVIEW && tm_unpopulated_matview(rte->relid))
		return fail(ts, "materialized view without data");	/* PostgreSQL's scan raises the error */
	if (read_under_policy(rte->relid, rte->checkAsUser))
		return fail(ts, "a table read under row-level security or a security-barrier view");

	s = palloc0(sizeof(Stream));
	s->pl = new_pipeline(TM_SRC_TABLE);
	s->pl->relid = rte->relid;
	s->pl->rtindex = rti;
	s->pl->est_source_rows = rel_tuples(rte->relid, plan->plan_rows);
	{
		char	   *relname = get_rel_name(rte->relid);
		bool		alias = rte->eref && strcmp(rte->eref->aliasname, relname) != 0;

		s->pl->source_label = psprintf("%s on %s%s%s", kind, relname, alias ? " " : "",
									   alias ? rte->eref->aliasname : "");
	}
	s->rows = plan->plan_rows;
	ts->nreal++;
	ts->source_rows += s->pl->est_source_rows;
	ts->max_source_rows = Max(ts->max_source_rows, s->pl->est_source_rows);

	foreach(lc, quals)
	{
		Node	   *q = lfirst(lc);

		if (nestparams != NIL && refs_nest_param_walker(q, nestparams))
			*param_quals = lappend(*param_quals, q);
		else
			filters = lappend(filters, q);
	}
	filters = (List *) map_expr(ts, s->pl, rti, NIL, NIL, (Expr *) filters, &ok);
	if (!ok)
		return NULL;
	if (!add_filter(ts, s, filters, s->rows))
		return NULL;
	s->out = map_tlist(ts, s->pl, rti, NIL, NIL, tlist, &ok);
	if (!ok)
		return NULL;
	if (IsA(plan, IndexScan))
		s->order = index_order(ts, s->pl, rti, rte->relid, ((IndexScan *) plan)->indexid,
							   ((IndexScan *) plan)->indexorderdir);
	else if (IsA(plan, IndexOnlyScan))
		s->order = index_order(ts, s->pl, rti, rte->relid, ((IndexOnlyScan *) plan)->indexid,
							   ((IndexOnlyScan *) plan)->indexorderdir);
	return s;
}

/* ---------------------------------------------------------------- joins */

static bool
only_varno(Node *node, int varno)
{
	List	   *vars = pull_var_clause(node, PVC_RECURSE_PLACEHOLDERS);
	ListCell   *lc;

	if (vars == NIL)
		return false;
	foreach(lc, vars)
		if (((Var *) lfirst(lc))->varno != varno)
			return false;
	return true;
}

/* the distinct slots an expression reads (List of int) */
static bool
slots_read_walker(Node *node, List **slots)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno == TM_SLOT_VARNO)
	{
		*slots = list_append_unique_int(*slots, ((Var *) node)->varattno - 1);
		return false;
	}
	return expression_tree_walker(node, slots_read_walker, (void *) slots);
}

/* add expression e (over b's slots) as a payload column of hash table h; -1 if themis cannot hold it */
static int
add_payload(TState *ts, Stream *b, BHash *h, Expr *e)
{
	const char *save = ts->why;
	TmType		t;
	int			col = -1;

	if (!has_bad_var((Node *) e) && expr_type(ts, b->pl, e, NULL, &t))
	{
		TmType	   *tp = palloc(sizeof(TmType));

		*tp = t;
		col = list_length(b->pl->sinkvals);
		b->pl->sinkvals = lappend(b->pl->sinkvals, e);
		h->payload_types = lappend(h->payload_types, tp);
	}
	ts->why = save;
	return col;
}

/*
 * Finish build stream b with a HASH_BUILD sink on the given keys; returns the hash table id and in
 * *payload_cols the mapping output column -> payload column, -1 if unavailable, or PAYLOAD_SLOTS:
 * the column is an expression themis cannot hold as one value (a numeric quotient, whose scale varies)
 * but whose slots are all held, *slot_cols mapping b's slot -> payload column (-1 if none); the
 * probe side rebuilds the expression over them (payload_expr).
 */
#define PAYLOAD_SLOTS (-2)

static int
finish_build(TState *ts, Stream *b, List *keys, TmType *keytypes, int **payload_cols, int **slot_cols)
{
	BHash	   *h = palloc0(sizeof(BHash));
	int			n = list_length(b->out);
	int		   *pc = palloc(sizeof(int) * Max(n, 1));
	int		   *sc = palloc(sizeof(int) * Max(b->pl->nslots, 1));
	int			i = 0;
	ListCell   *lc;
	int			id = list_length(ts->hashes);

	b->pl->finished = true;
	b->pl->sinkkind = TM_SINK_HASH_BUILD;
	b->pl->target = id;
	b->pl->sinkkeys = keys;
	b->pl->sinkkeytypes = keytypes;
	b->pl->est_rows = b->rows;
	h->nkeys = list_length(keys);
	h->keytypes = keytypes;
	h->build = b->pl;
	for (i = 0; i < b->pl->nslots; i++)
		sc[i] = -1;
	i = 0;
	foreach(lc, b->out)
	{
		Expr	   *e = (Expr *) lfirst(lc);

		pc[i] = add_payload(ts, b, h, e);
		if (pc[i] >= 0 && IsA(e, Var) && ((Var *) e)->varno == TM_SLOT_VARNO)
			sc[((Var *) e)->varattno - 1] = pc[i];
		i++;
	}
	/* columns that are not one value themis holds: carry the slots they read */
	i = 0;
	foreach(lc, b->out)
	{
		Expr	   *e = (Expr *) lfirst(lc);
		List	   *slots = NIL;
		ListCell   *lc2;

		if (pc[i] < 0 && !has_bad_var((Node *) e))
		{
			slots_read_walker((Node *) e, &slots);
			pc[i] = slots != NIL ? PAYLOAD_SLOTS : -1;
			foreach(lc2, slots)
			{
				int			s = lfirst_int(lc2);

				if (sc[s] < 0)
					sc[s] = add_payload(ts, b, h, (Expr *) slot_var(b->pl, s));
				if (sc[s] < 0)
					pc[i] = -1;
			}
		}
		i++;
	}
	b->pl->sink_label = psprintf("Hash Build %d on (%s)", id, deparse_list(ts, b->pl, keys, ", "));
	ts->hashes = lappend(ts->hashes, h);
	ts->pipelines = lappend(ts->pipelines, b->pl);
	*payload_cols = pc;
	*slot_cols = sc;
	return id;
}

/* Probe-side slots of a hash table's payload columns, made on first use. */
typedef struct PayloadCtx
{
	BPipeline  *build;
	BPipeline  *probe;
	int			level;
	List	   *types;			/* TmType * per payload column */
	int		   *slot_cols;		/* build slot -> payload column */
	int		   *probe_slot;		/* payload column -> probe slot, -1 */
} PayloadCtx;

static int
payload_slot(PayloadCtx *c, int col, Expr *e)
{
	if (c->probe_slot[col] < 0)
		c->probe_slot[col] = add_slot(c->probe, c->level, col, exprType((Node *) e),
									  exprTypmod((Node *) e), exprCollation((Node *) e),
									  (TmType *) list_nth(c->types, col), origin_of(c->build, e));
	return c->probe_slot[col];
}

static Node *
payload_expr_mutator(Node *node, PayloadCtx *c)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == TM_SLOT_VARNO)
	{
		int			s = ((Var *) node)->varattno - 1;

		return (Node *) slot_var(c->probe, payload_slot(c, c->slot_cols[s], (Expr *) node));
	}
	return expression_tree_mutator(node, payload_expr_mutator, (void *) c);
}

#define MERGE_SWAP_FACTOR	2.0

/*
 * PostgreSQL's parallel divisor for a Gather of nworkers (costsize.c's get_parallel_divisor): the
 * leader counts for what it has left beside collecting the workers' rows.
 */
static double
parallel_divisor(int nworkers)
{
	double		divisor = nworkers;

	if (parallel_leader_participation && 1.0 - 0.3 * nworkers > 0.0)
		divisor += 1.0 - 0.3 * nworkers;
	return Max(divisor, 1.0);
}

/*
 * Is plan partial: does each participant of a Gather run it over its own share of the rows (so that
 * plan_rows is one participant's)?  A parallel-aware node is; a join is when its outer side is (its
 * inner side is then either partial too or read whole by each); other nodes are when their input is.
 */
static bool
plan_is_partial(Plan *plan)
{
	if (plan == NULL || IsA(plan, Gather) || IsA(plan, GatherMerge))
		return false;
	if (plan->parallel_aware)
		return true;
	if (IsA(plan, Append))
	{
		ListCell   *lc;

		foreach(lc, ((Append *) plan)->appendplans)
			if (plan_is_partial(lfirst(lc)))
				return true;
		return false;
	}
	if (IsA(plan, SubqueryScan))
		return plan_is_partial(((SubqueryScan *) plan)->subplan);
	return plan_is_partial(outerPlan(plan));
}

/*
 * The rows plan returns in all: its estimate times the Gather's divisor where it is partial.  A
 * Parallel Seq Scan of lineitem under a Gather of 4 estimates a quarter of the rows it reads in all.
 */
static double
total_rows(TState *ts, Plan *plan)
{
	double		rows = plan->plan_rows;

	if (ts->gather_divisor > 0.0 && plan_is_partial(plan))
		rows *= ts->gather_divisor;
	return Max(rows, 1.0);
}

static Stream *
translate_join(TState *ts, Join *join, List *keyclauses, List *residual, Stream *inner_stream,
			   Stream *outer_stream)
{
	Plan	   *outerp = outerPlan(join);
	Plan	   *innerp = innerPlan(join);
	JoinType	jt = join->jointype;
	TmJoinKind	tk;
	bool		swap = false;
	Stream	   *probe,
			   *build;
	List	   *pkeys = NIL,
			   *bkeys = NIL;
	TmType	   *keytypes;
	int		   *pc;
	int		   *sc;
	PayloadCtx	pctx;
	int			ht,
				level,
				nk;
	List	   *payload = NIL;
	List	   *outer_out,
			   *inner_out;
	ListCell   *lc;
	BOp		   *op;
	bool		ok = true;
	Expr	   *res = NULL;
	List	   *quals;
	Stream	   *s;
	char	   *reslabel;

	switch (jt)
	{
		case JOIN_INNER:
			tk = TM_JOIN_INNER;
			break;
		case JOIN_LEFT:
			tk = TM_JOIN_LEFT;
			break;
		case JOIN_RIGHT:
			tk = TM_JOIN_LEFT;
			swap = true;
			break;
		case JOIN_SEMI:
			tk = TM_JOIN_SEMI;
			break;
		case JOIN_ANTI:
			tk = TM_JOIN_ANTI;
			break;
		default:
			return fail(ts, "join type not supported");
	}
	if (keyclauses == NIL)
		return fail(ts, "join without an equality clause");

	/*
	 * An inner Merge Join is symmetric: hash the side PostgreSQL expects to be the smaller one, by at least
	 * MERGE_SWAP_FACTOR: PostgreSQL picks a merge join's sides for their order, not their size.  (TPC-H
	 * Q10, by the statistics of some loads, came out hashing 14.8 M lineitem rows and probing them with
	 * an index scan of 0.57 M orders, most likely such a merge join: 6.5 + 2.5 ms on an H200, against
	 * 0.7 + 2.7 with orders hashed.)  The rows' order is then not known (as with any swap): where the
	 * output's order is needed, the translation is done again without such swaps (translate_node for a
	 * subtree, tm_translate for the whole plan).
	 */
	if (ts->merge_swap && IsA(join, MergeJoin) && tk == TM_JOIN_INNER && inner_stream == NULL &&
		outer_stream == NULL && innerp != NULL && outerp != NULL &&
		total_rows(ts, innerp) > MERGE_SWAP_FACTOR * total_rows(ts, outerp))
	{
		swap = true;
		ts->merge_swaps++;
	}
	if (outer_stream != NULL)
	{
		/* an inner join over a lookup (translate_nestloop): the outer side is hashed, the table streams */
		if (tk != TM_JOIN_INNER || inner_stream == NULL)
			return fail(ts, "only an inner join can hash its outer side");
		swap = true;
	}

	/* a Hash node above the build side only passes rows through */
	build = outer_stream ? outer_stream : inner_stream ? inner_stream : translate_node(ts, swap ? outerp : innerp);
	if (build == NULL || !settle(ts, build))
		return NULL;
	probe = outer_stream ? inner_stream : translate_node(ts, swap ? innerp : outerp);
	if (probe == NULL || !settle(ts, probe))
		return NULL;

	/* keys: clause args are (outer expr, inner expr) */
	nk = list_length(keyclauses);
	keytypes = palloc0(sizeof(TmType) * nk);
	nk = 0;
	foreach(lc, keyclauses)
	{
		OpExpr	   *clause = (OpExpr *) lfirst(lc);
		Expr	   *l,
				   *r,
				   *pe,
				   *be;
		TmType		pt,
					bt;
		const char *why = NULL;

		if (!IsA(clause, OpExpr) || list_length(clause->args) != 2)
			return fail(ts, "join key clause is not a binary operator");
		l = linitial(clause->args);
		r = lsecond(clause->args);
		if (swap)
		{
			pe = map_expr(ts, probe->pl, 0, NIL, probe->out, r, &ok);	/* inner refs */
			be = map_expr(ts, build->pl, 0, build->out, NIL, l, &ok);
		}
		else
		{
			pe = map_expr(ts, probe->pl, 0, probe->out, NIL, l, &ok);
			be = map_expr(ts, build->pl, 0, NIL, build->out, r, &ok);
		}
		if (!ok)
			return NULL;
		if (!expr_type(ts, probe->pl, pe, NULL, &pt) || !expr_type(ts, build->pl, be, NULL, &bt))
			return NULL;
		if (swap ? !tm_join_key_type(&bt, &pt, clause->opno, &keytypes[nk], &why)
			: !tm_join_key_type(&pt, &bt, clause->opno, &keytypes[nk], &why))
			return fail(ts, why ? why : "join key types not supported");
		if (!expr_type(ts, probe->pl, pe, &keytypes[nk], NULL) ||
			!expr_type(ts, build->pl, be, &keytypes[nk], NULL))
			return NULL;
		pkeys = lappend(pkeys, pe);
		bkeys = lappend(bkeys, be);
		nk++;
	}

	ht = finish_build(ts, build, bkeys, keytypes, &pc, &sc);

	/* the probe: payload columns become slots of a new level */
	op = palloc0(sizeof(BOp));
	op->kind = TM_OP_PROBE;
	op->jointype = tk;
	op->ht = ht;
	op->keys = pkeys;
	op->keytypes = keytypes;
	op->est_rows = join->plan.plan_rows;
	probe->pl->ops = lappend(probe->pl->ops, op);
	level = list_length(probe->pl->ops);
	memset(&pctx, 0, sizeof(pctx));
	pctx.build = build->pl;
	pctx.probe = probe->pl;
	pctx.level = level;
	pctx.types = ((BHash *) list_nth(ts->hashes, ht))->payload_types;
	pctx.slot_cols = sc;
	pctx.probe_slot = palloc(sizeof(int) * Max(list_length(pctx.types), 1));
	for (int i = 0; i < list_length(pctx.types); i++)
		pctx.probe_slot[i] = -1;
	for (int i = 0; i < list_length(build->out); i++)
	{
		Expr	   *e = (Expr *) list_nth(build->out, i);

		/*
		 * A column rebuilt from its slots (PAYLOAD_SLOTS) on the nullable side of a LEFT probe: its
		 * slots are NULL where no row matched, and there PostgreSQL's column is NULL too (computed
		 * below the join, it is NULL-extended).  So only where the expression is strict (NULL from
		 * any NULL slot): coalesce(avg(x), 0) would be 0 instead of NULL.
		 */
		if (pc[i] >= 0)
			payload = lappend(payload, slot_var(probe->pl, payload_slot(&pctx, pc[i], e)));
		else if (pc[i] == PAYLOAD_SLOTS && (tk != TM_JOIN_LEFT || !contain_nonstrict_functions((Node *) e)))
			payload = lappend(payload, payload_expr_mutator(copyObject((Node *) e), &pctx));
		else
			payload = lappend(payload, bad_var(exprType((Node *) e), exprTypmod((Node *) e),
											   exprCollation((Node *) e)));
	}
	outer_out = swap ? payload : probe->out;
	inner_out = swap ? probe->out : payload;

	/* residual join quals, evaluated per key match */
	if (residual != NIL)
	{
		List	   *r = (List *) map_expr(ts, probe->pl, 0, outer_out, inner_out, (Expr *) residual, &ok);

		if (!ok)
			return NULL;
		res = make_ands_explicit(r);
		if (!expr_type(ts, probe->pl, res, NULL, NULL))
			return NULL;
		op->qual = res;
	}
	reslabel = res ? psprintf(" Join Filter: %s", deparse(ts, probe->pl, res)) : "";

	/*
	 * Above a semi or anti join, the inner side's columns are not the matched row: an anti join's
	 * output has them NULL (PostgreSQL turns LEFT JOIN ... WHERE inner.x IS NULL into an anti join and
	 * may still output inner columns); a semi join's output never uses them.
	 */
	if (tk == TM_JOIN_ANTI || tk == TM_JOIN_SEMI)
	{
		List	   *after = NIL;
		ListCell   *lc2;

		foreach(lc2, build->out)
		{
			Expr	   *e = (Expr *) lfirst(lc2);
			Oid			t = exprType((Node *) e);
			int32		tm = exprTypmod((Node *) e);
			Oid			co = exprCollation((Node *) e);

			after = lappend(after, tk == TM_JOIN_ANTI ? (Expr *) makeNullConst(t, tm, co)
							: (Expr *) bad_var(t, tm, co));
		}
		inner_out = after;
	}
	{
		static const char *const names[] = {"?", "Inner", "Semi", "Anti", "Left"};
		StringInfoData kb;

		initStringInfo(&kb);
		for (int i = 0; i < list_length(pkeys); i++)
			appendStringInfo(&kb, "%s%s = %s", i ? " AND " : "",
							 deparse(ts, probe->pl, list_nth(pkeys, i)),
							 deparse(ts, build->pl, list_nth(bkeys, i)));
		op->label = psprintf("Hash Probe %d (%s) on (%s)%s", ht, names[tk], kb.data, reslabel);
	}

	ts->nreal++;
	s = palloc0(sizeof(Stream));
	s->pl = probe->pl;
	s->rows = join->plan.plan_rows;
	if (!swap)
		s->order = probe->order;

	/* quals after the join, then the output */
	quals = (List *) map_expr(ts, s->pl, 0, outer_out, inner_out, (Expr *) join->plan.qual, &ok);
	if (!ok || !add_filter(ts, s, quals, s->rows))
		return NULL;
	s->out = map_tlist(ts, s->pl, 0, outer_out, inner_out, join->plan.targetlist, &ok);
	if (!ok)
		return NULL;
	return s;
}

/*
 * themis.stream_lookup_side: stream a looked-up table of `tuples` rows (pg_class) through a probe of the
 * outer side's `outer` estimated rows, instead of hashing the table?  on: where the table has over 4x the
 * outer side's rows.  auto: where it has over 1000x (TPC-H Q17: 60 M lineitem rows against 2,000 parts),
 * or over 4x and at least STREAM_BIG_TABLE rows: building a hash table of a fact table costs more on the
 * GPU than probing it (TPC-H SF 10 on an H200, the same run with stream_lookup_side = on against auto,
 * bench/reports/2026-11-27-h200-sf10-22q-agg-like-sort: Q5 41.2 -> 19.9 ms, Q18 56.3 -> 34.7, Q12 27.5 ->
 * 20.8, Q9 78.6 -> 69.9 with lineitem or orders streamed; the tables under 10 M rows it streamed, partsupp
 * in Q2, were slower: 17.4 -> 22.6).
 */
#define STREAM_BIG_TABLE	1.0e7

static bool
stream_lookup_pays(double tuples, double outer)
{
	if (themis_stream_lookup_side == THEMIS_TRI_ON)
		return tuples > 4.0 * outer;
	return tuples > 1000.0 * outer || (tuples >= STREAM_BIG_TABLE && tuples > 4.0 * outer);
}

/* Context for turning a parameterized inner scan's quals into join clauses. */
typedef struct ParamQualCtx
{
	TState	   *ts;
	Stream	   *inner;			/* the inner scan's stream: its out list grows */
	Index		scanrelid;
	List	   *nestparams;
	List	   *vars;			/* Vars of the scan already appended to inner->out */
	List	   *positions;		/* their INNER_VAR attno */
	bool		failed;
} ParamQualCtx;

static Node *
param_qual_mutator(Node *node, ParamQualCtx *c)
{
	if (node == NULL || c->failed)
		return node;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
	{
		ListCell   *lc;

		foreach(lc, c->nestparams)
		{
			NestLoopParam *nlp = lfirst(lc);

			if (nlp->paramno == ((Param *) node)->paramid)
				return copyObject((Node *) nlp->paramval);	/* an OUTER_VAR reference */
		}
		return node;			/* a parameter from further up: stays a parameter */
	}
	if (IsA(node, Var) && ((Var *) node)->varno == (int) c->scanrelid)
	{
		Var		   *v = (Var *) node;
		ListCell   *lc,
				   *lp;
		bool		ok = true;
		Expr	   *e;
		int			pos;

		forboth(lc, c->vars, lp, c->positions)
		{
			if (equal(lfirst(lc), v))
				return (Node *) makeVar(INNER_VAR, lfirst_int(lp), v->vartype, v->vartypmod,
										v->varcollid, 0);
		}
		e = map_expr(c->ts, c->inner->pl, c->scanrelid, NIL, NIL, (Expr *) v, &ok);
		if (!ok)
		{
			c->failed = true;
			return node;
		}
		c->inner->out = lappend(c->inner->out, e);
		pos = list_length(c->inner->out);
		c->vars = lappend(c->vars, v);
		c->positions = lappend_int(c->positions, pos);
		return (Node *) makeVar(INNER_VAR, pos, v->vartype, v->vartypmod, v->varcollid, 0);
	}
	return expression_tree_mutator(node, param_qual_mutator, (void *) c);
}

static Stream *
translate_nestloop(TState *ts, NestLoop *nl)
{
	List	   *keys = NIL,
			   *rest = NIL;
	List	   *clauses = nl->join.joinqual;
	Stream	   *inner_stream = NULL;
	Stream	   *outer_stream = NULL;
	ListCell   *lc;

	if (nl->nestParams != NIL)
	{
		/*
		 * A parameterized inner side (typically an index lookup per outer row): read the inner table
		 * once and join by hashing; its parameterized quals become join clauses.
		 */
		Plan	   *inner = innerPlan(nl);
		List	   *param_quals = NIL;
		ParamQualCtx pc;

		while (IsA(inner, Memoize) || IsA(inner, Material))
		{
			int			i = 1;

			foreach(lc, inner->targetlist)
			{
				Var		   *v = (Var *) lfirst_node(TargetEntry, lc)->expr;

				if (!IsA(v, Var) || v->varno != OUTER_VAR || v->varattno != i)
					return fail(ts, "unexpected projection above a parameterized scan");
				i++;
			}
			if (inner->qual != NIL)
				return fail(ts, "unexpected qual above a parameterized scan");
			inner = outerPlan(inner);
		}
		if (!IsA(inner, SeqScan) && !IsA(inner, IndexScan) && !IsA(inner, IndexOnlyScan) &&
			!IsA(inner, BitmapHeapScan))
			return fail(ts, "parameterized inner side that is not a table scan");

		/*
		 * themis.stream_lookup_side: an inner join whose looked-up table is far larger than the outer
		 * side (TPC-H: lineitem under orders) hashes the outer side and streams the table through the
		 * probe.  The outer side is translated first: its pipelines must run before the one that
		 * probes what they build.
		 */
		if (themis_stream_lookup_side != THEMIS_TRI_OFF && nl->join.jointype == JOIN_INNER)
		{
			RangeTblEntry *rte = rt_fetch(((Scan *) inner)->scanrelid, ts->pstmt->rtable);
			List	   *lq = inner->qual;

			if (IsA(inner, IndexScan))
				lq = list_concat(list_concat(index_pred_quals(((IndexScan *) inner)->indexid,
															  ((Scan *) inner)->scanrelid),
											 list_copy(((IndexScan *) inner)->indexqualorig)), lq);
			else if (IsA(inner, IndexOnlyScan))
				lq = NIL;		/* its quals name index columns: not looked at, no swap */
			else if (IsA(inner, BitmapHeapScan))
				lq = list_concat(list_copy(((BitmapHeapScan *) inner)->bitmapqualorig), lq);
			if (rte->rtekind == RTE_RELATION && !IsA(inner, IndexOnlyScan) &&
				lookup_keys_plain(lq, nl->nestParams) &&
				stream_lookup_pays(rel_tuples(rte->relid, 0), total_rows(ts, outerPlan(nl))))
			{
				outer_stream = translate_node(ts, outerPlan(nl));
				if (outer_stream == NULL || !settle(ts, outer_stream))
					return NULL;
			}
		}
		inner_stream = translate_scan(ts, inner, nl->nestParams, &param_quals);
		if (inner_stream == NULL)
			return NULL;
		memset(&pc, 0, sizeof(pc));
		pc.ts = ts;
		pc.inner = inner_stream;
		pc.scanrelid = ((Scan *) inner)->scanrelid;
		pc.nestparams = nl->nestParams;
		param_quals = (List *) param_qual_mutator((Node *) param_quals, &pc);
		if (pc.failed)
			return NULL;
		clauses = list_concat(list_copy(clauses), param_quals);
	}

	foreach(lc, clauses)
	{
		Node	   *q = lfirst(lc);

		if (IsA(q, OpExpr) && list_length(((OpExpr *) q)->args) == 2)
		{
			OpExpr	   *op = (OpExpr *) q;
			Node	   *l = linitial(op->args);
			Node	   *r = lsecond(op->args);

			if ((op_hashjoinable(op->opno, exprType(l)) || op_mergejoinable(op->opno, exprType(l))) &&
				!contain_volatile_functions(q))
			{
				if (only_varno(l, OUTER_VAR) && only_varno(r, INNER_VAR))
				{
					keys = lappend(keys, op);
					continue;
				}
				if (only_varno(l, INNER_VAR) && only_varno(r, OUTER_VAR))
				{
					OpExpr	   *c = (OpExpr *) copyObject(op);
					Oid			comm = get_commutator(op->opno);

					if (OidIsValid(comm))
					{
						c->opno = comm;
						c->opfuncid = get_opcode(comm);
						c->args = list_make2(r, l);
						keys = lappend(keys, c);
						continue;
					}
				}
			}
		}
		rest = lappend(rest, q);
	}
	return translate_join(ts, &nl->join, keys, rest, inner_stream, outer_stream);
}

/* ---------------------------------------------------------------- aggregation */

typedef struct AggCollect
{
	TState	   *ts;
	Agg		   *top;			/* the (Finalize or simple) Agg */
	Agg		   *bottom;			/* the Partial Agg, or top */
	Stream	   *in;				/* input stream of bottom */
	List	   *groups;			/* Expr over in's slots */
	List	   *group_src;		/* bottom-input column index (1-based) per group, 0 if none */
	List	   *aggs;			/* BAgg */
	List	   *aggrefs;		/* the Aggref (from top) per BAgg (avg: two entries point to one) */
	List	   *dep_src;		/* bottom-input column index of each group key carried by any() */
	List	   *dep_agg;		/* ... and the index of that any() in aggs */
	bool		failed;
} AggCollect;

static bool
is_partial(Agg *a)
{
	return DO_AGGSPLIT_SKIPFINAL(a->aggsplit);
}

/* expression of bottom's input column attno (1-based) */
static Expr *
input_col(AggCollect *ac, int attno)
{
	if (attno < 1 || attno > list_length(ac->in->out))
		return NULL;
	return (Expr *) list_nth(ac->in->out, attno - 1);
}

/*
 * A group key without the binary coercions that keep equality as it is (varchar -> text, a domain
 * -> its base type): grouping by the result is grouping by the argument.  A coercion to bpchar from
 * another type does not (trailing blanks stop counting), nor does one that changes the collation.
 */
static Node *
strip_same_equality(Node *n)
{
	while (n != NULL && IsA(n, RelabelType))
	{
		RelabelType *r = (RelabelType *) n;
		Node	   *arg = (Node *) r->arg;

		if (r->resulttype == BPCHAROID && getBaseType(exprType(arg)) != BPCHAROID)
			break;
		if (r->resultcollid != exprCollation(arg))
			break;
		n = arg;
	}
	return n;
}

static bool
mentions_expr(Node *n, void *x)
{
	if (n == NULL)
		return false;
	if (equal(n, x))
		return true;
	return expression_tree_walker(n, mentions_expr, x);
}

/* placeholders of the aggregation's outputs: Var(varno, group / aggregate index + 1) */
#define TM_AGGREF_VARNO (TM_BAD_VARNO - 1)
#define TM_GROUP_VARNO (TM_BAD_VARNO - 2)

static int	add_agg(AggCollect *ac, TmAggKind kind, Aggref *ref, Expr *arg, Expr *filter, bool distinct,
					const TmType *restype, const TmType *coerce);

/*
 * An output column of the aggregation that reads its input column attno directly: a Var over the group
 * it is (TM_GROUP_VARNO, group index + 1), or over the any() aggregate that carries it (TM_AGGREF_VARNO);
 * NULL (ts->why set) where themis cannot produce it.  v: the output's Var (type, typmod, collation).
 */
static Expr *
output_for_input(AggCollect *ac, int attno, Var *v)
{
	int			i = 0;
	ListCell   *lc;
	Expr	   *e;
	TmType		t;

	foreach(lc, ac->group_src)
	{
		if (lfirst_int(lc) == attno)
			return (Expr *) makeVar(TM_GROUP_VARNO, i + 1, v->vartype, v->vartypmod, v->varcollid, 0);
		i++;
	}
	i = 0;
	foreach(lc, ac->dep_src)
	{
		if (lfirst_int(lc) == attno)
			return (Expr *) makeVar(TM_AGGREF_VARNO, list_nth_int(ac->dep_agg, i) + 1, v->vartype,
									v->vartypmod, v->varcollid, 0);
		i++;
	}
	e = input_col(ac, attno);
	if (e == NULL)
	{
		fail(ac->ts, "unexpected aggregate input column");
		return NULL;
	}
	/*
	 * A key that is the column under a coercion keeping its equality (varchar -> text): the column's
	 * value, that key itself where the types agree, else grouping by the column too splits nothing.
	 */
	i = 0;
	foreach(lc, ac->groups)
	{
		Node	   *k = (Node *) lfirst(lc);

		if (equal(strip_same_equality(k), e) && exprType(k) == exprType((Node *) e))
			return (Expr *) makeVar(TM_GROUP_VARNO, i + 1, v->vartype, v->vartypmod, v->varcollid, 0);
		i++;
	}

	/*
	 * A key computed from the column otherwise (PostgreSQL's unique-ification of a semi join's inner
	 * side groups by (v)::bpchar and returns one v of each group): grouping by the column as well
	 * would split such groups.
	 */
	foreach(lc, ac->groups)
	{
		Node	   *k = (Node *) lfirst(lc);

		if (!equal(strip_same_equality(k), e) && mentions_expr(k, e))
		{
			fail(ac->ts, "an aggregate output column whose group key is an expression of it (any value of the group)");
			return NULL;
		}
	}

	/*
	 * A column functionally dependent on the group keys (the parser allows no other: a primary key of
	 * its table is among them, and PostgreSQL's planner took the table's other columns out of the
	 * keys): one value per group, carried by any(), not hashed and compared on every row as a key would
	 * be.  (With keys, a group of TPC-H Q10 was 7 columns, 5 of them customer's text, on each of 7.8 M
	 * rows of the skewed data.)
	 */
	if (!expr_type(ac->ts, ac->in->pl, e, NULL, &t))
		return NULL;
	i = add_agg(ac, TM_AGG_ANY, NULL, e, NULL, false, &t, NULL);
	return (Expr *) makeVar(TM_AGGREF_VARNO, i + 1, v->vartype, v->vartypmod, v->varcollid, 0);
}

static bool
sum_restype(TState *ts, const TmType *arg, TmType *res)
{
	const char *why = NULL;

	switch (arg->kind)
	{
		case TM_K_INT2:
		case TM_K_INT4:
			return tm_type_from_pg(INT8OID, -1, InvalidOid, res, &why);
		case TM_K_INT8:
			memset(res, 0, sizeof(TmType));
			res->kind = TM_K_NUMERIC;
			res->scale = 0;
			res->typmod = -1;
			res->pgtype = NUMERICOID;
			return true;
		case TM_K_NUMERIC:
			*res = *arg;
			res->typmod = -1;
			res->pgtype = NUMERICOID;	/* (not a domain over it) */
			return true;
		case TM_K_FLOAT4:
		case TM_K_FLOAT8:
			*res = *arg;
			res->pgtype = arg->kind == TM_K_FLOAT4 ? FLOAT4OID : FLOAT8OID;
			return true;
		default:
			return false;
	}
}

/* the sum aggregate over avg's argument type (the display form of the sum avg() is split into) */
static Oid
sum_of_avg(Oid fn)
{
	switch (fn)
	{
		case F_AVG_INT2:
			return F_SUM_INT2;
		case F_AVG_INT4:
			return F_SUM_INT4;
		case F_AVG_INT8:
			return F_SUM_INT8;
		case F_AVG_NUMERIC:
			return F_SUM_NUMERIC;
		default:
			return fn;
	}
}

static int
add_agg(AggCollect *ac, TmAggKind kind, Aggref *ref, Expr *arg, Expr *filter, bool distinct,
		const TmType *restype, const TmType *coerce)
{
	BAgg	   *a = palloc0(sizeof(BAgg));
	ListCell   *lc;
	int			i = 0;

	a->kind = kind;
	a->arg = arg;
	a->filter = filter;
	a->distinct = distinct;
	a->restype = *restype;
	if (coerce)
		a->argcoerce = *coerce;
	a->origin = ref;
	/* share identical aggregates */
	foreach(lc, ac->aggs)
	{
		BAgg	   *o = (BAgg *) lfirst(lc);

		if (o->kind == a->kind && o->distinct == a->distinct && equal(o->arg, a->arg) &&
			equal(o->filter, a->filter) && memcmp(&o->restype, &a->restype, sizeof(TmType)) == 0 &&
			memcmp(&o->argcoerce, &a->argcoerce, sizeof(TmType)) == 0)
			return i;
		i++;
	}
	ac->aggs = lappend(ac->aggs, a);
	return list_length(ac->aggs) - 1;
}

/*
 * Can arg never be NULL?  Where it is a column of the pipeline's source table declared NOT NULL
 * (themis_column_not_null): level 0 of a TABLE source is the table's own row, which no probe makes
 * NULL (a LEFT probe NULLs only its own level).  count(arg) is then count(*), and avg(arg)'s count is
 * shared with count(*) and with the other avg()s of the same rows (TPC-H Q1: three avg() of NOT NULL
 * columns and count(*), one count instead of four).
 */
static bool
agg_arg_not_null(AggCollect *ac, Expr *arg)
{
	BPipeline  *pl = ac->in->pl;
	Var		   *v;
	BSlot	   *sl;
	char	   *attname;

	while (arg != NULL && IsA(arg, RelabelType))
		arg = ((RelabelType *) arg)->arg;
	if (arg == NULL || !IsA(arg, Var))
		return false;
	v = (Var *) arg;
	if (v->varno != TM_SLOT_VARNO || v->varlevelsup != 0 || v->varattno < 1 || v->varattno > pl->nslots)
		return false;
	sl = &pl->slots[v->varattno - 1];
	if (pl->srckind != TM_SRC_TABLE || sl->level != 0 || sl->col <= 0)
		return false;
	attname = get_attname(pl->relid, (AttrNumber) sl->col, true);
	return attname != NULL && themis_column_not_null(pl->relid, attname, false);
}

/*
 * Analyze one Aggref of the top Agg.  Returns an expression over "agg placeholders":
 * Var(varno = TM_BAD_VARNO - 1, varattno = agg index + 1) that are later replaced by result slots.
 */
static Expr *
agg_placeholder(int idx, Oid type, int32 typmod)
{
	return (Expr *) makeVar(TM_AGGREF_VARNO, idx + 1, type, typmod, InvalidOid, 0);
}

/*
 * sum(CASE WHEN c THEN x ELSE 0 END) over numeric, where x has more decimals than the 0: in
 * PostgreSQL each value keeps its own scale, so the sum shows x's scale if any row took the THEN
 * branch and the 0's scale otherwise.  Computed as sum(x) FILTER (WHERE c) and a count of the rows
 * that took the ELSE branch, combined by PostgreSQL in the node's projection:
 *     COALESCE(sum_x, CASE WHEN else_count > 0 THEN 0 END)
 * Returns NULL (without failing) when the aggregate does not have this shape.
 */
static Expr *
sum_of_case(AggCollect *ac, Aggref *ref, Aggref *src)
{
	TState	   *ts = ac->ts;
	CaseExpr   *ce = (CaseExpr *) ((TargetEntry *) linitial(src->args))->expr;
	CaseWhen   *w;
	Const	   *zero;
	Expr	   *cond,
			   *x,
			   *filter = NULL,
			   *else_filter;
	TmType		xt,
				zt,
				rest,
				cnt;
	bool		ok = true;
	const char *why = NULL;
	int			si,
				ci;
	BooleanTest *bt;
	CaseExpr   *elsecase;
	CaseWhen   *ew;
	CoalesceExpr *co;

	if (ce->arg != NULL || list_length(ce->args) != 1 || ce->defresult == NULL ||
		!IsA(ce->defresult, Const) || ce->casetype != NUMERICOID)
		return NULL;
	zero = (Const *) ce->defresult;
	if (zero->constisnull ||
		!DatumGetBool(DirectFunctionCall2(numeric_eq, zero->constvalue,
										  DirectFunctionCall1(int4_numeric, Int32GetDatum(0)))))
		return NULL;
	w = (CaseWhen *) linitial(ce->args);

	cond = map_expr(ts, ac->in->pl, 0, ac->in->out, NIL, w->expr, &ok);
	x = map_expr(ts, ac->in->pl, 0, ac->in->out, NIL, w->result, &ok);
	if (src->aggfilter)
		filter = map_expr(ts, ac->in->pl, 0, ac->in->out, NIL, src->aggfilter, &ok);
	if (!ok)
		return NULL;
	if (!expr_type(ts, ac->in->pl, x, NULL, &xt) ||
		!expr_type(ts, ac->in->pl, (Expr *) zero, NULL, &zt) ||
		xt.kind != TM_K_NUMERIC || zt.scale > xt.scale)
	{
		ts->why = NULL;
		return NULL;
	}

	/* sum(x) FILTER (WHERE aggfilter AND c) */
	if (!sum_restype(ts, &xt, &rest))
		return NULL;
	si = add_agg(ac, TM_AGG_SUM, ref, x,
				 filter ? make_andclause(list_make2(copyObject(filter), cond)) : cond,
				 false, &rest, NULL);
	/* count(*) FILTER (WHERE aggfilter AND c IS NOT TRUE) */
	bt = makeNode(BooleanTest);
	bt->arg = (Expr *) copyObject(cond);
	bt->booltesttype = IS_NOT_TRUE;
	bt->location = -1;
	else_filter = filter ? make_andclause(list_make2(copyObject(filter), bt)) : (Expr *) bt;
	if (!expr_type(ts, ac->in->pl, else_filter, NULL, NULL))
		return NULL;
	tm_type_from_pg(INT8OID, -1, InvalidOid, &cnt, &why);
	ci = add_agg(ac, TM_AGG_COUNT_STAR, ref, NULL, else_filter, false, &cnt, NULL);

	ew = makeNode(CaseWhen);
	ew->expr = (Expr *) makeFuncExpr(F_INT8GT, BOOLOID,
									 list_make2(agg_placeholder(ci, INT8OID, -1),
												makeConst(INT8OID, -1, InvalidOid, 8,
														  Int64GetDatum(0), false, FLOAT8PASSBYVAL)),
									 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	ew->result = (Expr *) copyObject(zero);
	ew->location = -1;
	elsecase = makeNode(CaseExpr);
	elsecase->casetype = NUMERICOID;
	elsecase->casecollid = InvalidOid;
	elsecase->args = list_make1(ew);
	elsecase->defresult = (Expr *) makeNullConst(NUMERICOID, -1, InvalidOid);
	elsecase->location = -1;
	co = makeNode(CoalesceExpr);
	co->coalescetype = NUMERICOID;
	co->coalescecollid = InvalidOid;
	co->args = list_make2(agg_placeholder(si, NUMERICOID, -1), elsecase);
	co->location = -1;
	return (Expr *) co;
}

static Expr *
analyze_aggref(AggCollect *ac, Aggref *ref)
{
	TState	   *ts = ac->ts;
	Aggref	   *src = ref;
	Expr	   *arg = NULL;
	Expr	   *filter = NULL;
	TmType		argt,
				rest;
	bool		ok = true;
	bool		distinct;
	Oid			fn;
	const char *why = NULL;

	if (DO_AGGSPLIT_COMBINE(ref->aggsplit))
	{
		/* Finalize: the argument is the bottom Agg's output column holding the partial Aggref */
		Var		   *v;
		TargetEntry *tle;

		if (list_length(ref->args) != 1)
			return fail(ts, "unexpected combining aggregate");
		v = (Var *) ((TargetEntry *) linitial(ref->args))->expr;
		if (!IsA(v, Var) || v->varno != OUTER_VAR)
			return fail(ts, "unexpected combining aggregate argument");
		/* the child of top may be Gather / Sort over bottom: they pass columns through unchanged */
		tle = list_nth(ac->bottom->plan.targetlist, v->varattno - 1);
		if (!IsA(tle->expr, Aggref))
			return fail(ts, "unexpected partial aggregate");
		src = (Aggref *) tle->expr;
	}
	if (src->aggorder != NIL && src->aggdistinct == NIL)
		;						/* ORDER BY inside count/sum/min/max does not change them */
	if (src->aggdistinct != NIL && list_length(src->args) != 1)
		return fail(ts, "DISTINCT aggregate over several arguments");
	if (src->aggvariadic || src->aggkind != AGGKIND_NORMAL || src->agglevelsup != 0)
		return fail(ts, "aggregate form not supported");
	distinct = src->aggdistinct != NIL;
	if (distinct && !equal_means_same_bytes(src->inputcollid))
		return fail(ts, "DISTINCT aggregate in a nondeterministic collation");
	fn = src->aggfnoid;

	if (fn == F_SUM_NUMERIC && !distinct && list_length(src->args) == 1 &&
		IsA(((TargetEntry *) linitial(src->args))->expr, CaseExpr))
	{
		Expr	   *r = sum_of_case(ac, ref, src);

		if (r != NULL || ac->failed)
			return r;
		/* not the pattern: try it as an ordinary argument */
	}
	if (src->args != NIL)
	{
		if (list_length(src->args) != 1)
			return fail(ts, "aggregate with several arguments");
		arg = map_expr(ts, ac->in->pl, 0, ac->in->out, NIL, ((TargetEntry *) linitial(src->args))->expr, &ok);
		if (!ok || !expr_type(ts, ac->in->pl, arg, NULL, &argt))
			return NULL;
	}
	if (src->aggfilter)
	{
		filter = map_expr(ts, ac->in->pl, 0, ac->in->out, NIL, src->aggfilter, &ok);
		if (!ok || !expr_type(ts, ac->in->pl, filter, NULL, NULL))
			return NULL;
	}

	switch (fn)
	{
		case F_COUNT_:
			{
				TmType		t;

				tm_type_from_pg(INT8OID, -1, InvalidOid, &t, &why);
				return agg_placeholder(add_agg(ac, TM_AGG_COUNT_STAR, ref, NULL, filter, false, &t, NULL),
									   INT8OID, -1);
			}
		case F_COUNT_ANY:
			{
				TmType		t;

				tm_type_from_pg(INT8OID, -1, InvalidOid, &t, &why);
				if (!distinct && agg_arg_not_null(ac, arg))
					return agg_placeholder(add_agg(ac, TM_AGG_COUNT_STAR, ref, NULL, filter, false, &t, NULL),
										   INT8OID, -1);
				return agg_placeholder(add_agg(ac, TM_AGG_COUNT, ref, arg, filter, distinct, &t, NULL),
									   INT8OID, -1);
			}
		case F_SUM_INT2:
		case F_SUM_INT4:
		case F_SUM_INT8:
		case F_SUM_NUMERIC:
		case F_SUM_FLOAT4:
		case F_SUM_FLOAT8:
			if (!sum_restype(ts, &argt, &rest))
				return fail(ts, "sum() over this type is not supported");
			return agg_placeholder(add_agg(ac, TM_AGG_SUM, ref, arg, filter, distinct, &rest, NULL),
								   ref->aggtype, -1);
		case F_MIN_INT2:
		case F_MIN_INT4:
		case F_MIN_INT8:
		case F_MIN_NUMERIC:
		case F_MIN_FLOAT4:
		case F_MIN_FLOAT8:
		case F_MIN_DATE:
		case F_MIN_TIMESTAMP:
		case F_MIN_TEXT:
		case F_MIN_BPCHAR:
		case F_MAX_INT2:
		case F_MAX_INT4:
		case F_MAX_INT8:
		case F_MAX_NUMERIC:
		case F_MAX_FLOAT4:
		case F_MAX_FLOAT8:
		case F_MAX_DATE:
		case F_MAX_TIMESTAMP:
		case F_MAX_TEXT:
		case F_MAX_BPCHAR:
			{
				bool		ismin = (fn == F_MIN_INT2 || fn == F_MIN_INT4 || fn == F_MIN_INT8 ||
									 fn == F_MIN_NUMERIC || fn == F_MIN_FLOAT4 || fn == F_MIN_FLOAT8 ||
									 fn == F_MIN_DATE || fn == F_MIN_TIMESTAMP || fn == F_MIN_TEXT ||
									 fn == F_MIN_BPCHAR);

				if ((argt.kind == TM_K_TEXT || argt.kind == TM_K_BPCHAR) &&
					!lc_collate_is_c(src->inputcollid))
					return fail(ts, "min/max of text in a non-C collation");
				rest = argt;
				/* output typmod: PostgreSQL's min/max keep the type but not the typmod, nor a domain */
				rest.typmod = -1;
				rest.pgtype = ref->aggtype;
				return agg_placeholder(add_agg(ac, ismin ? TM_AGG_MIN : TM_AGG_MAX, ref, arg, filter,
											   distinct, &rest, NULL),
									   ref->aggtype, -1);
			}
		case F_AVG_INT2:
		case F_AVG_INT4:
		case F_AVG_INT8:
		case F_AVG_NUMERIC:
		case F_AVG_FLOAT4:
		case F_AVG_FLOAT8:
			{
				TmType		cnt;
				int			si,
							ci;
				Expr	   *sumv,
						   *cntv;

				tm_type_from_pg(INT8OID, -1, InvalidOid, &cnt, &why);

				/*
				 * avg(float) stays on PostgreSQL: float8_accum also accumulates the sum of squares
				 * (Youngs-Cramer) and raises overflow on it, in an order-dependent way.
				 */
				if (fn == F_AVG_FLOAT4 || fn == F_AVG_FLOAT8)
					return fail(ts, "avg() of float is not supported");
				if (!sum_restype(ts, &argt, &rest))
					return fail(ts, "avg() over this type is not supported");
				si = add_agg(ac, TM_AGG_SUM, ref, arg, filter, distinct, &rest, NULL);
				if (!distinct && agg_arg_not_null(ac, arg))
					ci = add_agg(ac, TM_AGG_COUNT_STAR, ref, NULL, filter, false, &cnt, NULL);
				else
					ci = add_agg(ac, TM_AGG_COUNT, ref, arg, filter, distinct, &cnt, NULL);
				sumv = agg_placeholder(si, rest.pgtype, -1);
				cntv = agg_placeholder(ci, INT8OID, -1);
				if (rest.pgtype == INT8OID)
					sumv = (Expr *) makeFuncExpr(F_NUMERIC_INT8, NUMERICOID, list_make1(sumv),
												 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
				/* int8_avg / numeric_avg / numeric_poly_avg: numeric_div(sum, count) */
				return (Expr *) makeFuncExpr(F_NUMERIC_DIV, NUMERICOID,
											 list_make2(sumv,
														makeFuncExpr(F_NUMERIC_INT8, NUMERICOID,
																	 list_make1(cntv), InvalidOid,
																	 InvalidOid, COERCE_EXPLICIT_CALL)),
											 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
			}
		default:
			return fail(ts, psprintf("aggregate %s is not supported", format_procedure(fn)));
	}
}

/* Mutator over the top Agg's tlist / qual: group columns and Aggrefs -> placeholders. */
static Node *
agg_mutator(Node *node, AggCollect *ac)
{
	if (node == NULL || ac->failed)
		return node;
	if (IsA(node, Aggref))
	{
		Expr	   *e = analyze_aggref(ac, (Aggref *) node);

		if (e == NULL)
			ac->failed = true;
		return (Node *) e;
	}
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		int			attno;
		Expr	   *out;

		if (v->varno != OUTER_VAR)
		{
			ac->failed = true;
			return fail(ac->ts, "unexpected variable in aggregate output");
		}
		attno = v->varattno;
		if (ac->top != ac->bottom)
		{
			/* Finalize: column of the bottom Agg's output, which must be a plain input column */
			TargetEntry *tle = list_nth(ac->bottom->plan.targetlist, attno - 1);
			Var		   *iv = (Var *) tle->expr;

			if (!IsA(iv, Var) || iv->varno != OUTER_VAR)
			{
				ac->failed = true;
				return fail(ac->ts, "unexpected partial aggregate output");
			}
			attno = iv->varattno;
		}
		out = output_for_input(ac, attno, v);
		if (out == NULL)
			ac->failed = true;
		return (Node *) out;
	}
	if (IsA(node, Param))
		return copyObject(node);	/* at the root, PostgreSQL's; below it, a parameter slot (settle) */
	if (IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) || IsA(node, GroupingFunc))
	{
		ac->failed = true;
		return fail(ac->ts, "subplans and grouping functions in aggregate output are not supported");
	}
	return expression_tree_mutator(node, agg_mutator, (void *) ac);
}

typedef struct FinalCtx
{
	int			ngroups;
	int		   *agg_slot;		/* agg index -> slot */
	int		   *group_slot;		/* group index -> slot */
	BPipeline  *pl;
} FinalCtx;

static Node *
final_mutator(Node *node, FinalCtx *c)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varno == TM_GROUP_VARNO)
			return (Node *) slot_var(c->pl, c->group_slot[v->varattno - 1]);
		if (v->varno == TM_AGGREF_VARNO)
			return (Node *) slot_var(c->pl, c->agg_slot[v->varattno - 1]);
	}
	return expression_tree_mutator(node, final_mutator, (void *) c);
}

static bool
int_kind(const TmType *t)
{
	return t->kind == TM_K_INT2 || t->kind == TM_K_INT4 || t->kind == TM_K_INT8;
}

/*
 * Are the keys of hash table h unique in it?  Its build reads a table, drops rows (filters, semi and anti
 * probes) or joins them to tables whose keys are unique in turn, and an immediate unique index has its key
 * columns among the build's keys, bare columns of integer types (tm_unique_index_covers).
 */
static bool
hash_keys_unique(TState *ts, BHash *h, int depth)
{
	BPipeline  *b = h->build;
	Bitmapset  *attnos = NULL;
	ListCell   *lc;
	int			k = 0;

	if (depth > 8 || b == NULL || b->srckind != TM_SRC_TABLE || b->sinkkind != TM_SINK_HASH_BUILD ||
		b->sinkkeys == NIL)
		return false;
	foreach(lc, b->ops)
	{
		BOp		   *op = (BOp *) lfirst(lc);

		if (op->kind == TM_OP_FILTER || op->jointype == TM_JOIN_SEMI || op->jointype == TM_JOIN_ANTI)
			continue;
		if (!hash_keys_unique(ts, list_nth(ts->hashes, op->ht), depth + 1))
			return false;
	}
	foreach(lc, b->sinkkeys)
	{
		Var		   *v = (Var *) lfirst(lc);
		BSlot	   *sl;

		if (!IsA(v, Var) || v->varno != TM_SLOT_VARNO || v->varattno < 1 || v->varattno > b->nslots)
			return false;
		sl = &b->slots[v->varattno - 1];
		if (sl->level != 0 || !int_kind(&sl->type) || !int_kind(&b->sinkkeytypes[k]))
			return false;
		attnos = bms_add_member(attnos, sl->col);	/* level 0 of a table: the attno, until pruning */
		k++;
	}
	return tm_unique_index_covers(b->relid, attnos);
}

/*
 * Is group key e functionally dependent on the group keys `keys` through a join (themis.dependent_group_keys)?
 * It is a column of the rows matched by an inner probe of the aggregation's input pipeline in, the probe's
 * keys are bare group keys of integer types, and its table's keys are unique: for each value of those
 * keys there is one matched row, so one value of e.  (TPC-H Q3 groups by l_orderkey, o_orderdate,
 * o_shippriority, with o_orderkey = l_orderkey: orders' columns are carried by any(), one key is hashed
 * and compared on each row instead of three.)
 */
static bool
dependent_key(TState *ts, BPipeline *in, Expr *e, List *keys)
{
	Var		   *v = (Var *) e;
	BSlot	   *sl;
	BOp		   *op;
	ListCell   *lc;
	int			k = 0;

	if (!themis_dependent_group_keys || !IsA(v, Var) || v->varno != TM_SLOT_VARNO || v->varattno < 1 ||
		v->varattno > in->nslots)
		return false;
	sl = &in->slots[v->varattno - 1];
	if (sl->level < 1 || sl->level > list_length(in->ops))
		return false;
	op = list_nth(in->ops, sl->level - 1);
	if (op->kind != TM_OP_PROBE || op->jointype != TM_JOIN_INNER)
		return false;
	foreach(lc, op->keys)
	{
		Var		   *kv = (Var *) lfirst(lc);

		if (!IsA(kv, Var) || kv->varno != TM_SLOT_VARNO || !list_member(keys, kv) ||
			!int_kind(&op->keytypes[k]))
			return false;
		k++;
	}
	return hash_keys_unique(ts, list_nth(ts->hashes, op->ht), 0);
}

static Stream *
translate_agg(TState *ts, Agg *top)
{
	AggCollect	ac;
	Plan	   *below;
	List	   *tl,
			   *ql;
	BPipeline  *in,
			   *pl;
	int			rid,
				ng,
				na,
				i;
	List	   *coltypes = NIL;
	FinalCtx	fc;
	ListCell   *lc;
	Stream	   *s;
	Plan	   *sorter = NULL;
	StringInfoData lb;

	if (top->groupingSets != NIL || top->aggstrategy == AGG_MIXED)
		return fail(ts, "grouping sets are not supported");
	if (is_partial(top))
		return fail(ts, "a partial aggregate alone cannot be offloaded");

	memset(&ac, 0, sizeof(ac));
	ac.ts = ts;
	ac.top = top;
	ac.bottom = top;
	below = outerPlan(top);
	if (DO_AGGSPLIT_COMBINE(top->aggsplit))
	{
		Plan	   *p = below;

		/* Finalize Agg <- Gather / Gather Merge / Sort ... <- Partial Agg */
		while (p && !IsA(p, Agg))
		{
			if (IsA(p, Sort) || IsA(p, IncrementalSort) || IsA(p, GatherMerge))
			{
				if (sorter == NULL)
					sorter = p;
			}
			else if (!IsA(p, Gather) && !IsA(p, Material))
				return fail(ts, "unexpected node between Finalize and Partial Aggregate");
			p = outerPlan(p);
		}
		if (p == NULL || !is_partial((Agg *) p) || ((Agg *) p)->groupingSets != NIL)
			return fail(ts, "Finalize Aggregate without its Partial Aggregate");
		ac.bottom = (Agg *) p;
		below = outerPlan(p);
	}
	else if (below && (IsA(below, Sort) || IsA(below, IncrementalSort) || IsA(below, GatherMerge)))
		sorter = below;

	ac.in = translate_node(ts, below);
	if (ac.in == NULL || !settle(ts, ac.in))
		return NULL;

	/*
	 * group keys of the bottom Agg, over its input; those functionally dependent on the others through a
	 * join (dependent_key) carried by any()
	 */
	{
		List	   *all = NIL;

		for (i = 0; i < ac.bottom->numCols; i++)
		{
			Expr	   *e = input_col(&ac, ac.bottom->grpColIdx[i]);

			if (e == NULL)
				return fail(ts, "bad group column");
			if (!equal_means_same_bytes(ac.bottom->grpCollations[i]))
				return fail(ts, "group key in a nondeterministic collation");
			all = lappend(all, e);
		}
		for (i = 0; i < ac.bottom->numCols; i++)
		{
			Expr	   *e = list_nth(all, i);
			TmType		t;

			if (dependent_key(ts, ac.in->pl, e, all) && expr_type(ts, ac.in->pl, e, NULL, &t))
			{
				ac.dep_src = lappend_int(ac.dep_src, ac.bottom->grpColIdx[i]);
				ac.dep_agg = lappend_int(ac.dep_agg, add_agg(&ac, TM_AGG_ANY, NULL, e, NULL, false, &t, NULL));
				continue;
			}
			ac.groups = lappend(ac.groups, e);
			ac.group_src = lappend_int(ac.group_src, ac.bottom->grpColIdx[i]);
		}
	}

	tl = NIL;
	foreach(lc, top->plan.targetlist)
		tl = lappend(tl, agg_mutator((Node *) lfirst_node(TargetEntry, lc)->expr, &ac));
	ql = (List *) agg_mutator((Node *) top->plan.qual, &ac);
	if (ac.failed)
		return NULL;

	/* finish the input pipeline with the AGG sink */
	in = ac.in->pl;
	rid = list_length(ts->results);
	ng = list_length(ac.groups);
	na = list_length(ac.aggs);
	initStringInfo(&lb);
	appendStringInfoString(&lb, "Aggregate");
	if (ng > 0)
		appendStringInfo(&lb, " by (%s)", deparse_list(ts, in, ac.groups, ", "));
	foreach(lc, ac.groups)
	{
		TmType	   *t = palloc(sizeof(TmType));

		if (!expr_type(ts, in, (Expr *) lfirst(lc), NULL, t))
			return NULL;
		coltypes = lappend(coltypes, t);
	}
	i = 0;
	foreach(lc, ac.aggs)
	{
		BAgg	   *a = (BAgg *) lfirst(lc);
		TmType	   *t = palloc(sizeof(TmType));
		static const char *const names[] = {"?", "count(*)", "count", "sum", "min", "max", "any"};

		*t = a->restype;
		coltypes = lappend(coltypes, t);
		if (a->arg && !expr_type(ts, in, a->arg, a->argcoerce.kind ? &a->argcoerce : NULL, NULL))
			return NULL;
		if (a->kind == TM_AGG_COUNT_STAR)
			appendStringInfo(&lb, "%scount(*)", i ? ", " : ": ");
		else
			appendStringInfo(&lb, "%s%s(%s%s)", i ? ", " : ": ", names[a->kind],
							 a->distinct ? "DISTINCT " : "", deparse(ts, in, a->arg));
		if (a->filter)
			appendStringInfo(&lb, " FILTER (WHERE %s)", deparse(ts, in, a->filter));
		i++;
	}
	ts->nreal++;
	in->finished = true;
	in->sinkkind = TM_SINK_AGG;
	in->target = rid;
	in->sinkkeys = ac.groups;
	in->aggs = ac.aggs;
	in->est_rows = ac.in->rows;
	/* numGroups: before HAVING (plan_rows is after it); a sorted Agg's is 0: its rows then */
	in->est_groups = ac.groups == NIL ? 0 : top->numGroups > 0 ? (double) top->numGroups : top->plan.plan_rows;
	in->sink_label = lb.data;
	ts->pipelines = lappend(ts->pipelines, in);
	ts->results = lappend(ts->results, coltypes);

	/* the next pipeline reads the groups */
	pl = new_pipeline(TM_SRC_RESULT);
	pl->src_result = rid;
	pl->est_source_rows = top->plan.plan_rows;
	pl->source_label = psprintf("Aggregate result %d", rid);
	fc.pl = pl;
	fc.ngroups = ng;
	fc.group_slot = palloc(sizeof(int) * Max(ng, 1));
	fc.agg_slot = palloc(sizeof(int) * Max(na, 1));
	i = 0;
	foreach(lc, ac.groups)
	{
		Expr	   *e = (Expr *) lfirst(lc);

		fc.group_slot[i] = add_slot(pl, 0, i, exprType((Node *) e), exprTypmod((Node *) e),
									exprCollation((Node *) e), (TmType *) list_nth(coltypes, i),
									origin_of(in, e));
		i++;
	}
	i = 0;
	foreach(lc, ac.aggs)
	{
		BAgg	   *a = (BAgg *) lfirst(lc);
		Aggref	   *o = makeNode(Aggref);
		Oid			t = a->restype.pgtype;

		if (a->kind == TM_AGG_ANY)
		{
			/* a column carried by any(): shown as the column */
			fc.agg_slot[i] = add_slot(pl, 0, ng + i, exprType((Node *) a->arg), exprTypmod((Node *) a->arg),
									  exprCollation((Node *) a->arg), &a->restype, origin_of(in, a->arg));
			i++;
			continue;
		}
		/* display form: the aggregate over its origin arguments */
		*o = *a->origin;
		o->aggsplit = AGGSPLIT_SIMPLE;
		o->aggtype = t;
		o->aggtranstype = InvalidOid;
		o->aggargtypes = NIL;
		o->aggdirectargs = NIL;
		o->aggorder = NIL;
		o->aggdistinct = NIL;
		o->aggfilter = NULL;
		if (a->kind == TM_AGG_COUNT_STAR)
		{
			o->aggfnoid = F_COUNT_;
			o->args = NIL;
			o->aggstar = true;
		}
		else
		{
			o->aggfnoid = a->kind == TM_AGG_COUNT ? F_COUNT_ANY : o->aggfnoid;
			if (a->kind == TM_AGG_SUM)
				o->aggfnoid = sum_of_avg(o->aggfnoid);	/* avg's sum shows as sum */
			o->args = list_make1(makeTargetEntry(origin_of(in, a->arg), 1, NULL, false));
			o->aggstar = false;
		}
		fc.agg_slot[i] = add_slot(pl, 0, ng + i, t, -1, a->origin->aggcollid, &a->restype, (Expr *) o);
		i++;
	}

	s = palloc0(sizeof(Stream));
	s->pl = pl;
	s->rows = top->plan.plan_rows;
	s->out = (List *) final_mutator((Node *) tl, &fc);
	s->pending_qual = (List *) final_mutator((Node *) ql, &fc);

	/* sorted aggregation keeps its input's order on the group keys */
	if (top->aggstrategy == AGG_SORTED && ng > 0)
	{
		List	   *group_vars = NIL;

		for (i = 0; i < ng; i++)
			group_vars = lappend(group_vars, slot_var(pl, fc.group_slot[i]));
		if (sorter != NULL)
		{
			/* the sorter's columns are those of the bottom Agg's input (or output, for Finalize) */
			int			numCols;
			AttrNumber *cols;
			Oid		   *ops,
					   *colls;
			bool	   *nf;

			if (IsA(sorter, Sort))
			{
				Sort	   *so = (Sort *) sorter;

				numCols = so->numCols;
				cols = so->sortColIdx;
				ops = so->sortOperators;
				colls = so->collations;
				nf = so->nullsFirst;
			}
			else if (IsA(sorter, IncrementalSort))
			{
				Sort	   *so = &((IncrementalSort *) sorter)->sort;

				numCols = so->numCols;
				cols = so->sortColIdx;
				ops = so->sortOperators;
				colls = so->collations;
				nf = so->nullsFirst;
			}
			else
			{
				GatherMerge *gm = (GatherMerge *) sorter;

				numCols = gm->numCols;
				cols = gm->sortColIdx;
				ops = gm->sortOperators;
				colls = gm->collations;
				nf = gm->nullsFirst;
			}
			for (i = 0; i < numCols; i++)
			{
				int			attno = cols[i];
				int			g = -1;
				int			j = 0;
				OrderKey   *k;
				ListCell   *lc2;

				if (ac.top != ac.bottom)
				{
					TargetEntry *tle = list_nth(ac.bottom->plan.targetlist, attno - 1);

					if (!IsA(tle->expr, Var))
						break;
					attno = ((Var *) tle->expr)->varattno;
				}
				foreach(lc2, ac.group_src)
				{
					if (lfirst_int(lc2) == attno)
					{
						g = j;
						break;
					}
					j++;
				}
				k = palloc(sizeof(OrderKey));
				if (g < 0)
				{
					/* a group key carried by any(): its column holds the same values */
					j = 0;
					foreach(lc2, ac.dep_src)
					{
						if (lfirst_int(lc2) == attno)
						{
							g = list_nth_int(ac.dep_agg, j);
							break;
						}
						j++;
					}
					if (g < 0)
						break;
					k->expr = (Expr *) slot_var(pl, fc.agg_slot[g]);
				}
				else
					k->expr = (Expr *) slot_var(pl, fc.group_slot[g]);
				k->sortop = ops[i];
				k->coll = colls[i];
				k->nullsfirst = nf[i];
				s->order = lappend(s->order, k);
			}
		}
		else
		{
			List	   *from = list_copy(ac.groups);

			/* the group keys carried by any() are their columns too */
			foreach(lc, ac.dep_agg)
			{
				BAgg	   *a = list_nth(ac.aggs, lfirst_int(lc));

				from = lappend(from, a->arg);
				group_vars = lappend(group_vars, slot_var(pl, fc.agg_slot[lfirst_int(lc)]));
			}
			s->order = map_order(ac.in->order, from, group_vars);
		}
		/* the parent may rely on the order of every group key: all or nothing */
		if (list_length(s->order) < ac.bottom->numCols)
			s->order = NIL;
	}
	return s;
}

/* ---------------------------------------------------------------- pass-through nodes */

static Stream *
translate_passthrough(TState *ts, Plan *plan, Plan *child, bool keep_order)
{
	Stream	   *c = translate_node(ts, child);
	Stream	   *s;
	bool		ok = true;
	List	   *quals;

	if (c == NULL)
		return NULL;
	s = palloc0(sizeof(Stream));
	s->pl = c->pl;
	s->rows = plan->plan_rows;
	s->pending_qual = c->pending_qual;
	if (plan->qual != NIL)
	{
		if (!settle(ts, c))
			return NULL;
		s->pending_qual = NIL;
		quals = (List *) map_expr(ts, s->pl, 0, c->out, NIL, (Expr *) plan->qual, &ok);
		if (!ok || !add_filter(ts, s, quals, s->rows))
			return NULL;
	}
	s->out = map_tlist(ts, s->pl, 0, c->out, NIL, plan->targetlist, &ok);
	if (!ok)
		return NULL;
	/* order keys and pending quals are over slots: still valid, the pipeline did not change */
	if (keep_order)
		s->order = c->order;
	return s;
}

static Stream *
translate_sort(TState *ts, Plan *plan, Sort *so)
{
	Stream	   *s = translate_passthrough(ts, plan, outerPlan(plan), false);

	if (s == NULL)
		return NULL;
	s->order = sort_order(s->out, so->numCols, so->sortColIdx, so->sortOperators,
						  so->collations, so->nullsFirst);
	return s;
}

static Stream *
translate_subqueryscan(TState *ts, SubqueryScan *sq)
{
	Stream	   *c = translate_node(ts, sq->subplan);
	Stream	   *s;
	bool		ok = true;
	List	   *quals;
	List	   *tlist;
	List	   *qual;

	if (c == NULL || !settle(ts, c))
		return NULL;
	s = palloc0(sizeof(Stream));
	s->pl = c->pl;
	s->rows = sq->scan.plan.plan_rows;
	/* Vars of the subquery's range table entry refer to the subplan's output columns */
	tlist = copyObject(sq->scan.plan.targetlist);
	qual = copyObject(sq->scan.plan.qual);
	ChangeVarNodes((Node *) tlist, sq->scan.scanrelid, OUTER_VAR, 0);
	ChangeVarNodes((Node *) qual, sq->scan.scanrelid, OUTER_VAR, 0);
	quals = (List *) map_expr(ts, s->pl, 0, c->out, NIL, (Expr *) qual, &ok);
	if (!ok || !add_filter(ts, s, quals, s->rows))
		return NULL;
	s->out = map_tlist(ts, s->pl, 0, c->out, NIL, tlist, &ok);
	if (!ok)
		return NULL;
	s->order = c->order;
	return s;
}

/* ---------------------------------------------------------------- dispatcher */

static Stream *
translate_node_nowrap(TState *ts, Plan *plan)
{
	if (plan == NULL)
		return fail(ts, "missing input");
	if (plan->initPlan != NIL)
	{
		/* initplans below the root are moved to the Custom Scan by the planner */
	}
	check_stack_depth();
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
			return translate_scan(ts, plan, NIL, NULL);
		case T_HashJoin:
			{
				HashJoin   *hj = (HashJoin *) plan;

				return translate_join(ts, &hj->join, hj->hashclauses, hj->join.joinqual, NULL, NULL);
			}
		case T_MergeJoin:
			{
				MergeJoin  *mj = (MergeJoin *) plan;

				if (mj->skip_mark_restore && false)
					return NULL;
				return translate_join(ts, &mj->join, mj->mergeclauses, mj->join.joinqual, NULL, NULL);
			}
		case T_NestLoop:
			return translate_nestloop(ts, (NestLoop *) plan);
		case T_Agg:
			return translate_agg(ts, (Agg *) plan);
		case T_Hash:
		case T_Material:
			return translate_passthrough(ts, plan, outerPlan(plan), true);
		case T_Gather:
			{
				double		saved = ts->gather_divisor;
				Stream	   *s;

				ts->gather_divisor = ((Gather *) plan)->single_copy ? 0.0 :
					parallel_divisor(((Gather *) plan)->num_workers);
				s = translate_passthrough(ts, plan, outerPlan(plan), false);
				ts->gather_divisor = saved;
				return s;
			}
		case T_Sort:
			return translate_sort(ts, plan, (Sort *) plan);
		case T_IncrementalSort:
			return translate_sort(ts, plan, &((IncrementalSort *) plan)->sort);
		case T_GatherMerge:
			{
				GatherMerge *gm = (GatherMerge *) plan;
				double		saved = ts->gather_divisor;
				Stream	   *s;

				ts->gather_divisor = parallel_divisor(gm->num_workers);
				s = translate_passthrough(ts, plan, outerPlan(plan), false);
				ts->gather_divisor = saved;

				if (s)
					s->order = sort_order(s->out, gm->numCols, gm->sortColIdx, gm->sortOperators,
										  gm->collations, gm->nullsFirst);
				return s;
			}
		case T_Result:
			{
				Result	   *r = (Result *) plan;

				if (r->resconstantqual != NULL || outerPlan(plan) == NULL)
					return fail(ts, "Result node with a constant qual or without input");

				/*
				 * PostgreSQL puts a projection with volatile functions above the Sort and the Limit
				 * (make_sort_input_target), so that it runs once per row returned, in their order: in
				 * the node it would run on every row, in the scan's order (nextval(), a function that
				 * writes)
				 */
				if (contain_volatile_functions((Node *) plan->targetlist))
					return fail(ts, "volatile function in a projection above a Sort or Limit");
				return translate_passthrough(ts, plan, outerPlan(plan), true);
			}
		case T_SubqueryScan:
			return translate_subqueryscan(ts, (SubqueryScan *) plan);
		default:
			return fail(ts, "plan node not supported");
	}
}

/* ---------------------------------------------------------------- subplan sources */

/* Can PostgreSQL run this subtree on its own, inside the Custom Scan (no parallel-aware node outside a Gather)? */
static bool
wrappable(Plan *plan)
{
	if (plan == NULL)
		return true;
	if (IsA(plan, Gather) || IsA(plan, GatherMerge))
		return true;
	if (plan->parallel_aware)
		return false;
	if (IsA(plan, SubqueryScan) && !wrappable(((SubqueryScan *) plan)->subplan))
		return false;
	if (IsA(plan, Append) || IsA(plan, MergeAppend) || IsA(plan, CustomScan))
		return false;
	return wrappable(plan->lefttree) && wrappable(plan->righttree);
}

/* An expression over a plan node's output, resolved down to base relations (for EXPLAIN); NULL if not. */
typedef struct ResolveCtx
{
	Plan	   *plan;
	bool		failed;
	int			depth;
} ResolveCtx;

static Node *resolve_mutator(Node *node, ResolveCtx *c);

static Node *
resolve_child(Plan *child, int attno, ResolveCtx *c)
{
	ResolveCtx	cc;
	Node	   *r;

	if (child == NULL || attno < 1 || attno > list_length(child->targetlist) || c->depth > 50)
	{
		c->failed = true;
		return NULL;
	}
	cc.plan = child;
	cc.failed = false;
	cc.depth = c->depth + 1;
	r = resolve_mutator((Node *) ((TargetEntry *) list_nth(child->targetlist, attno - 1))->expr, &cc);
	if (cc.failed)
		c->failed = true;
	return r;
}

static Node *
resolve_mutator(Node *node, ResolveCtx *c)
{
	if (node == NULL || c->failed)
		return node;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varno == OUTER_VAR)
			return resolve_child(outerPlan(c->plan), v->varattno, c);
		if (v->varno == INNER_VAR)
			return resolve_child(innerPlan(c->plan), v->varattno, c);
		if (v->varno > 0 && IsA(c->plan, SubqueryScan))
			return resolve_child(((SubqueryScan *) c->plan)->subplan, v->varattno, c);
		if (v->varno > 0)
			return copyObject(node);
		c->failed = true;
		return node;
	}
	if (IsA(node, Aggref) && DO_AGGSPLIT_COMBINE(((Aggref *) node)->aggsplit))
	{
		c->failed = true;
		return node;
	}
	return expression_tree_mutator(node, resolve_mutator, (void *) c);
}

static Expr *
resolve_output(Plan *plan, TargetEntry *tle)
{
	ResolveCtx	c;
	Node	   *r;

	c.plan = plan;
	c.failed = false;
	c.depth = 0;
	r = resolve_mutator((Node *) copyObject(tle->expr), &c);
	return c.failed ? NULL : (Expr *) r;
}

static Stream *
wrap_subplan(TState *ts, Plan *plan)
{
	Stream	   *s;
	BPipeline  *pl;
	ListCell   *lc;
	int			col = 0;

	if (IsA(plan, Hash) || !wrappable(plan))
		return NULL;
	if (stmt_volatile(ts))
		return fail(ts, "a PostgreSQL input in a statement with volatile functions (a fallback would run it again)");

	s = palloc0(sizeof(Stream));
	pl = new_pipeline(TM_SRC_SUBPLAN);
	ts->inputs = lappend(ts->inputs, plan);
	pl->subplan = list_length(ts->inputs);	/* custom_plans[0] is the fallback */
	pl->nsrccols = list_length(plan->targetlist);
	pl->est_source_rows = plan->plan_rows;
	pl->source_label = psprintf("PostgreSQL subplan %d (plan node %d)", pl->subplan, plan->plan_node_id);
	s->pl = pl;
	s->rows = plan->plan_rows;
	ts->source_rows += plan->plan_rows;
	foreach(lc, plan->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Oid			type = exprType((Node *) tle->expr);
		int32		typmod = exprTypmod((Node *) tle->expr);
		Oid			coll = exprCollation((Node *) tle->expr);
		TmType		t;
		const char *why = NULL;

		if (tm_type_from_pg(type, typmod, coll, &t, &why))
		{
			Expr	   *origin = resolve_output(plan, tle);
			int			sl;

			if (origin == NULL || exprType((Node *) origin) != type)
				origin = (Expr *) makeNullConst(type, typmod, coll);
			sl = add_slot(pl, 0, col, type, typmod, coll, &t, origin);
			s->out = lappend(s->out, slot_var(pl, sl));
		}
		else
			s->out = lappend(s->out, bad_var(type, typmod, coll));
		col++;
	}
	return s;
}

/*
 * Translate a node; where themis cannot run it, read its rows from PostgreSQL instead.  A failed
 * attempt leaves nothing behind (pipelines, hash tables, results, parameters, inputs).
 */
static Stream *
translate_node(TState *ts, Plan *plan)
{
	int			npl = list_length(ts->pipelines),
				nh = list_length(ts->hashes),
				nr = list_length(ts->results),
				np = list_length(ts->params),
				ni = list_length(ts->inputs),
				nreal = ts->nreal,
				nswaps = ts->merge_swaps;
	double		src = ts->source_rows,
				maxsrc = ts->max_source_rows;
	Stream	   *s = translate_node_nowrap(ts, plan);

	for (int attempt = 0; s == NULL && attempt < 2; attempt++)
	{
		bool		swapped = ts->merge_swaps > nswaps;

		ts->pipelines = list_truncate(ts->pipelines, npl);
		ts->hashes = list_truncate(ts->hashes, nh);
		ts->results = list_truncate(ts->results, nr);
		ts->params = list_truncate(ts->params, np);
		ts->paramtypes = list_truncate(ts->paramtypes, np);
		ts->inputs = list_truncate(ts->inputs, ni);
		ts->nreal = nreal;
		ts->source_rows = src;
		ts->max_source_rows = maxsrc;
		ts->merge_swaps = nswaps;
		/* a Merge Join inside swapped its sides (translate_join): once more without such swaps */
		if (attempt > 0 || !swapped || !ts->merge_swap)
			break;
		ts->merge_swap = false;
		s = translate_node_nowrap(ts, plan);
		ts->merge_swap = true;
		if (s != NULL)
			ts->why = NULL;
	}
	if (s != NULL)
		return s;
	s = wrap_subplan(ts, plan);
	if (s != NULL)
		ts->why = NULL;
	return s;
}

/* ---------------------------------------------------------------- finalization */

/*
 * Build-side expressions.  An expression that a pipeline evaluates after an inner probe, and that reads
 * only that probe's payload (TPC-H Q14's p_type LIKE 'PROMO%' over the part row each lineitem row
 * matches), is computed once per build row into a payload column of its own, where the build is
 * estimated to have at most HOIST_MAX_BUILD_SHARE times the probe's matches: on the skewed data 2 M part
 * rows against 4.2 M matches, each of which evaluated the LIKE twice on a text payload read at a random
 * place.  The build evaluates it in a sequential pass, and the payload columns it replaces need no longer
 * be copied into the table.  Equal expressions share one column.  The build evaluates it for rows that
 * no probe matches too, where PostgreSQL never does: only expressions that cannot raise an error are
 * taken (hoist_safe), and PostgreSQL's result on the matched rows is the same, since an inner probe's
 * slots are the build row's values (never NULL for a miss).
 */
#define HOIST_MAX_BUILD_SHARE	4.0

typedef struct HoistCtx
{
	TState	   *ts;
	BPipeline  *pl;
	int			level;			/* hoist_safe: the probe level read, 0: none yet */
} HoistCtx;

/* is opno a comparison of a built-in btree family (its own, or its negator's for <>)? */
static bool
op_in_builtin_btree(Oid opno)
{
	ListCell   *lc;

	foreach(lc, get_op_btree_interpretation(opno))
		if (((OpBtreeInterpretation *) lfirst(lc))->opfamily_id < FirstNormalObjectId)
			return true;
	return false;
}

/* built-in operators that raise no error on any input: btree comparisons, LIKE with a plain pattern */
static bool
hoist_safe_op(Oid opno, Oid funcid, List *args, Oid collid)
{
	/*
	 * built-in operators of built-in btree families only: a user's btree family may hold an operator over
	 * any built-in boolean function, one that raises errors included
	 */
	if (opno >= FirstNormalObjectId || funcid >= FirstNormalObjectId || !OidIsValid(funcid))
		return false;
	if (funcid == F_TEXTLIKE || funcid == F_TEXTNLIKE || funcid == F_BPCHARLIKE || funcid == F_BPCHARNLIKE)
	{
		Const	   *pat = list_length(args) == 2 ? (Const *) lsecond(args) : NULL;

		/* no escape character to end a pattern with (an ERROR), a collation LIKE accepts */
		if (pat == NULL || !IsA(pat, Const) || pat->constisnull ||
			strchr(TextDatumGetCString(pat->constvalue), '\\') != NULL)
			return false;
		return !OidIsValid(collid) || get_collation_isdeterministic(collid);
	}
	return op_in_builtin_btree(opno);
}

/*
 * Can e, over slots and constants, raise no error?  Error-free operators (hoist_safe_op), IS [NOT] NULL,
 * boolean tests, AND / OR / NOT.  The build-side expressions are such (hoist_safe), and the build side's
 * reduction (build_reduce.c) may drop rows before a build computes such a payload column.
 */
static bool
errfree_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
			return ((Var *) node)->varno != TM_SLOT_VARNO;
		case T_Const:
		case T_RelabelType:
		case T_NullTest:
		case T_BooleanTest:
		case T_BoolExpr:
			break;
		case T_OpExpr:
			{
				OpExpr	   *o = (OpExpr *) node;

				set_opfuncid(o);
				if (!hoist_safe_op(o->opno, o->opfuncid, o->args, o->inputcollid))
					return true;
				break;
			}
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *o = (ScalarArrayOpExpr *) node;

				set_sa_opfuncid(o);
				if (list_length(o->args) != 2 || !IsA(lsecond(o->args), Const) || o->opno >= FirstNormalObjectId ||
					o->opfuncid >= FirstNormalObjectId || !op_in_builtin_btree(o->opno))
					return true;
				break;
			}
		default:
			return true;
	}
	return expression_tree_walker(node, errfree_walker, ctx);
}

static bool
expr_errfree(Expr *e)
{
	return !errfree_walker((Node *) e, NULL);
}

/* does node read slots of one inner probe's payload only (c->level: that probe's level)? true if not */
static bool
hoist_level_walker(Node *node, HoistCtx *c)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		BSlot	   *sl;
		BOp		   *op;

		if (v->varno != TM_SLOT_VARNO || v->varattno < 1 || v->varattno > c->pl->nslots)
			return true;
		sl = &c->pl->slots[v->varattno - 1];
		if (sl->level < 1 || (c->level > 0 && sl->level != c->level))
			return true;
		op = list_nth(c->pl->ops, sl->level - 1);
		if (op->kind != TM_OP_PROBE || op->jointype != TM_JOIN_INNER)
			return true;
		c->level = sl->level;
		return false;
	}
	return expression_tree_walker(node, hoist_level_walker, (void *) c);
}

/* is node made of error-free parts over constants and the payload slots of one inner probe? */
static bool
hoist_safe(Node *node, HoistCtx *c)
{
	return expr_errfree((Expr *) node) && !hoist_level_walker(node, c);
}

/* the build pipeline's form of e: each payload slot replaced by the payload column's expression */
static Node *
hoist_build_mutator(Node *node, HoistCtx *c)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == TM_SLOT_VARNO)
	{
		BSlot	   *sl = &c->pl->slots[((Var *) node)->varattno - 1];
		BOp		   *op = list_nth(c->pl->ops, sl->level - 1);
		BHash	   *h = list_nth(c->ts->hashes, op->ht);

		return copyObject(list_nth(h->build->sinkvals, sl->col));
	}
	return expression_tree_mutator(node, hoist_build_mutator, (void *) c);
}

/* e over the real relations (the slots' origins), for EXPLAIN's deparsing */
static Node *
hoist_origin_mutator(Node *node, HoistCtx *c)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == TM_SLOT_VARNO)
	{
		BSlot	   *sl = &c->pl->slots[((Var *) node)->varattno - 1];

		return sl->origin != NULL ? copyObject((Node *) sl->origin) : copyObject(node);
	}
	return expression_tree_mutator(node, hoist_origin_mutator, (void *) c);
}

static Node *
hoist_mutator(Node *node, HoistCtx *c)
{
	if (node == NULL)
		return NULL;
	if (!IsA(node, Var) && !IsA(node, Const) && !IsA(node, RelabelType))
	{
		c->level = 0;
		if (hoist_safe(node, c) && c->level > 0)
		{
			BOp		   *op = list_nth(c->pl->ops, c->level - 1);
			BHash	   *h = list_nth(c->ts->hashes, op->ht);
			BPipeline  *b = h->build;
			int			level = c->level;
			Expr	   *be = (Expr *) hoist_build_mutator(node, c);
			int			col = -1;
			int			i = 0;
			ListCell   *lc;
			TmType		t;

			if (b->est_rows <= HOIST_MAX_BUILD_SHARE * op->est_rows && !has_bad_var((Node *) be))
			{
				foreach(lc, b->sinkvals)
				{
					if (equal(lfirst(lc), be))
						col = i;
					i++;
				}
				if (col < 0 && expr_type(c->ts, b, be, NULL, &t))
				{
					TmType	   *tp = palloc(sizeof(TmType));

					*tp = t;
					col = list_length(b->sinkvals);
					b->sinkvals = lappend(b->sinkvals, be);
					h->payload_types = lappend(h->payload_types, tp);
					/* EXPLAIN: what the build computes */
					b->sink_label = psprintf("%s%s%s", b->sink_label,
											 strstr(b->sink_label, ", computing ") ? ", " : ", computing ",
											 deparse_list(c->ts, b, list_make1(be), ", "));
				}
			}
			if (col >= 0)
			{
				for (i = 0; i < c->pl->nslots; i++)
					if (c->pl->slots[i].level == level && c->pl->slots[i].col == col)
						return (Node *) slot_var(c->pl, i);
				i = add_slot(c->pl, level, col, exprType(node), exprTypmod(node), exprCollation(node),
							 (TmType *) list_nth(h->payload_types, col),
							 (Expr *) hoist_origin_mutator(node, c));
				return (Node *) slot_var(c->pl, i);
			}
		}
	}
	return expression_tree_mutator(node, hoist_mutator, (void *) c);
}

/* every pipeline, the last first (what it moves into a build, that build's pipeline may move further) */
static void
hoist_build_exprs(TState *ts, List *pipelines)
{
	const char *why = ts->why;

	for (int p = list_length(pipelines) - 1; p >= 0; p--)
	{
		HoistCtx	c;
		ListCell   *lc;

		c.ts = ts;
		c.pl = list_nth(pipelines, p);
		if (c.pl->ops == NIL)
			continue;
		foreach(lc, c.pl->ops)
		{
			BOp		   *op = lfirst(lc);

			op->keys = (List *) hoist_mutator((Node *) op->keys, &c);
			op->qual = (Expr *) hoist_mutator((Node *) op->qual, &c);
		}
		c.pl->sinkkeys = (List *) hoist_mutator((Node *) c.pl->sinkkeys, &c);
		c.pl->sinkvals = (List *) hoist_mutator((Node *) c.pl->sinkvals, &c);
		foreach(lc, c.pl->aggs)
		{
			BAgg	   *a = lfirst(lc);

			a->arg = (Expr *) hoist_mutator((Node *) a->arg, &c);
			a->filter = (Expr *) hoist_mutator((Node *) a->filter, &c);
		}
	}
	ts->why = why;
}

typedef struct SlotWalk
{
	bool	   *used;
	int			nslots;
} SlotWalk;

static bool
used_walker(Node *node, SlotWalk *w)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) && ((Var *) node)->varno == TM_SLOT_VARNO)
	{
		int			s = ((Var *) node)->varattno - 1;

		if (s >= 0 && s < w->nslots)
			w->used[s] = true;
		return false;
	}
	return expression_tree_walker(node, used_walker, (void *) w);
}

static Node *
renum_mutator(Node *node, int *map)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == TM_SLOT_VARNO)
	{
		Var		   *v = (Var *) copyObject(node);

		v->varattno = map[v->varattno - 1] + 1;
		return (Node *) v;
	}
	return expression_tree_mutator(node, renum_mutator, (void *) map);
}

/* result column of a slot of the output pipeline -> INDEX_VAR reference */
typedef struct IndexCtx
{
	BPipeline  *pl;
	int		   *colmap;			/* slot -> output column (0-based) */
	bool		failed;
} IndexCtx;

static Node *
index_mutator(Node *node, IndexCtx *c)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varno == TM_SLOT_VARNO)
		{
			int			s = v->varattno - 1;

			if (c->colmap[s] < 0)
			{
				c->failed = true;
				return node;
			}
			return (Node *) makeVar(INDEX_VAR, c->colmap[s] + 1, v->vartype, v->vartypmod,
									v->varcollid, 0);
		}
		if (v->varno < 0 && v->varno != INDEX_VAR)
			c->failed = true;
		return node;
	}
	return expression_tree_mutator(node, index_mutator, (void *) c);
}

static TmExpr *
compile_final(TState *ts, TmType *types, int nslots, Expr *e, const TmType *coerce)
{
	const char *why = NULL;
	TmExpr	   *c;

	if (e == NULL)
		return NULL;
	c = tm_compile_expr(e, types, nslots, coerce, &why);
	if (c == NULL)
		fail(ts, why ? why : "expression not supported");
	return c;
}

/* may the rows of plan tree p come out in an order (that a parent can rely on)? */
bool
tm_plan_ordered(Plan *p)
{
	if (p == NULL)
		return false;
	switch (nodeTag(p))
	{
		case T_Sort:
		case T_IncrementalSort:
		case T_GatherMerge:
		case T_MergeJoin:
			return true;
		case T_Agg:
			return ((Agg *) p)->aggstrategy == AGG_SORTED && ((Agg *) p)->numCols > 0;
		case T_HashJoin:
		case T_NestLoop:
		case T_Material:
		case T_Memoize:
		case T_Result:
		case T_Hash:
			return tm_plan_ordered(outerPlan(p));
		case T_SubqueryScan:
			return tm_plan_ordered(((SubqueryScan *) p)->subplan);
		case T_SeqScan:
		case T_Gather:
			return false;
		default:
			return true;
	}
}

static TmTranslation *translate_once(PlannedStmt *pstmt, Plan *root, bool need_order, bool merge_swap,
									 int *merge_swaps, const char **why);

/*
 * The translation of plan tree root (NULL with *why where themis cannot run it).  Inner Merge Joins may
 * hash their outer side (translate_join); where a translation with such swaps fails (the output's order
 * lost, most often), the translation without them.
 */
TmTranslation *
tm_translate(PlannedStmt *pstmt, Plan *root, bool need_order, const char **why)
{
	int			swaps = 0;
	TmTranslation *tr = translate_once(pstmt, root, need_order, true, &swaps, why);

	if (tr == NULL && swaps > 0)
		tr = translate_once(pstmt, root, need_order, false, &swaps, why);
	return tr;
}

static TmTranslation *
translate_once(PlannedStmt *pstmt, Plan *root, bool need_order, bool merge_swap, int *merge_swaps,
			   const char **why)
{
	TState		ts;
	Stream	   *s;
	TmTranslation *tr;
	TmPlan	   *plan;
	BPipeline  *last;
	List	   *pipelines;
	int			npl,
				p,
				i;
	int		   *colmap;
	List	   *order = NIL;
	Bitmapset  *rels = NULL;
	bool	  **ht_used;
	int		  **ht_remap;
	int			nht;
	ListCell   *lc;
	IndexCtx	ic;
	int			ntl;

	memset(&ts, 0, sizeof(ts));
	ts.pstmt = pstmt;
	ts.merge_swap = merge_swap;
	for (i = 1; i <= list_length(pstmt->rtable); i++)
		rels = bms_add_member(rels, i);
	ts.dpcontext = deparse_context_for_plan_tree(pstmt,
												 select_rtable_names_for_explain(pstmt->rtable, rels));

	s = translate_node_nowrap(&ts, root);
	if (s == NULL)
		goto failed;
	if (ts.nreal == 0)
	{
		fail(&ts, "nothing left for themis to run");
		goto failed;
	}

	if (need_order && tm_plan_ordered(root))
	{
		if (s->order == NIL)
		{
			fail(&ts, "the order of the output cannot be reproduced");
			goto failed;
		}
		order = s->order;
	}

	/*
	 * HAVING quals of the top aggregation: a filter of the pipeline that reads the groups where themis can
	 * evaluate them (the groups that fail never go up to PostgreSQL: TPC-H Q11 returned 300,000 groups
	 * for 9,225 rows), else the node's qual, which PostgreSQL evaluates on its rows.
	 */
	if (s->pending_qual != NIL)
	{
		List	   *q = s->pending_qual;
		const char *why = ts.why;
		int			np = list_length(ts.params),
					nslots = s->pl->nslots;
		bool		ok = true;
		Expr	   *mq = map_params(&ts, s->pl, make_ands_explicit(q), &ok);

		s->pending_qual = NIL;
		if (!ok || !add_filter(&ts, s, list_make1(mq), s->rows))
		{
			/* PostgreSQL's then: undo the parameter slots the mapping added */
			s->pending_qual = q;
			s->pl->nslots = nslots;
			ts.params = list_truncate(ts.params, np);
			ts.paramtypes = list_truncate(ts.paramtypes, np);
			ts.why = why;
		}
	}

	/* expressions of build rows computed where the rows are built */
	if (themis_build_exprs)
		hoist_build_exprs(&ts, lappend(list_copy(ts.pipelines), s->pl));

	/* ---- the output: a result read as it is, or an EMIT sink ---- */
	last = s->pl;
	colmap = palloc(sizeof(int) * Max(last->nslots, 1));
	for (i = 0; i < last->nslots; i++)
		colmap[i] = -1;
	if (last->srckind == TM_SRC_RESULT && last->ops == NIL)
	{
		for (i = 0; i < last->nslots; i++)
			if (last->slots[i].level == 0)
				colmap[i] = last->slots[i].col;
		pipelines = ts.pipelines;
	}
	else
	{
		SlotWalk	w;
		List	   *coltypes = NIL;

		w.nslots = last->nslots;
		w.used = palloc0(sizeof(bool) * Max(last->nslots, 1));
		used_walker((Node *) s->out, &w);
		used_walker((Node *) s->pending_qual, &w);
		foreach(lc, order)
			used_walker((Node *) ((OrderKey *) lfirst(lc))->expr, &w);
		for (i = 0; i < last->nslots; i++)
		{
			TmType	   *t;

			if (!w.used[i])
				continue;
			colmap[i] = list_length(last->sinkvals);
			last->sinkvals = lappend(last->sinkvals, slot_var(last, i));
			t = palloc(sizeof(TmType));
			*t = last->slots[i].type;
			coltypes = lappend(coltypes, t);
		}
		last->finished = true;
		last->sinkkind = TM_SINK_EMIT;
		last->target = list_length(ts.results);
		last->est_rows = s->rows;
		last->sink_label = pstrdup("Emit rows");
		ts.results = lappend(ts.results, coltypes);
		pipelines = lappend(list_copy(ts.pipelines), last);
	}

	tr = palloc0(sizeof(TmTranslation));

	/* node targetlist / qual over INDEX_VAR */
	ic.pl = last;
	ic.colmap = colmap;
	ic.failed = false;
	i = 0;
	foreach(lc, root->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		TargetEntry *n = flatCopyTargetEntry(tle);

		n->expr = (Expr *) index_mutator((Node *) list_nth(s->out, i), &ic);
		tr->tlist = lappend(tr->tlist, n);
		i++;
	}
	tr->qual = (List *) index_mutator((Node *) s->pending_qual, &ic);
	ntl = list_length(tr->tlist);
	if (order != NIL)
	{
		int			k = 0;

		tr->nsortkeys = list_length(order);
		tr->sortcols = palloc(sizeof(AttrNumber) * tr->nsortkeys);
		tr->sortops = palloc(sizeof(Oid) * tr->nsortkeys);
		tr->sortcolls = palloc(sizeof(Oid) * tr->nsortkeys);
		tr->nullsfirst = palloc(sizeof(bool) * tr->nsortkeys);
		foreach(lc, order)
		{
			OrderKey   *ok = (OrderKey *) lfirst(lc);
			Expr	   *e = (Expr *) index_mutator((Node *) ok->expr, &ic);
			ListCell   *lc2;
			AttrNumber	col = 0;

			/* sort by an output column where one holds the key, else by a junk column */
			foreach(lc2, tr->tlist)
			{
				TargetEntry *tle = lfirst_node(TargetEntry, lc2);

				if (equal(tle->expr, e))
				{
					col = tle->resno;
					break;
				}
			}
			if (col == 0)
			{
				tr->tlist = lappend(tr->tlist, makeTargetEntry(e, ++ntl, NULL, true));
				col = ntl;
			}
			tr->sortcols[k] = col;
			tr->sortops[k] = ok->sortop;
			tr->sortcolls[k] = ok->coll;
			tr->nullsfirst[k] = ok->nullsfirst;
			k++;
		}
	}
	if (ic.failed || has_bad_var((Node *) tr->tlist) || has_bad_var((Node *) tr->qual))
	{
		fail(&ts, "the output uses a column themis cannot provide");
		goto failed;
	}

	/* ---- prune unused slots and payload columns, last pipeline first ---- */
	npl = list_length(pipelines);
	nht = list_length(ts.hashes);
	ht_used = palloc0(sizeof(bool *) * Max(nht, 1));
	ht_remap = palloc0(sizeof(int *) * Max(nht, 1));
	for (i = 0; i < nht; i++)
	{
		BHash	   *h = list_nth(ts.hashes, i);

		ht_used[i] = palloc0(sizeof(bool) * Max(list_length(h->payload_types), 1));
		ht_remap[i] = palloc(sizeof(int) * Max(list_length(h->payload_types), 1));
	}

	plan = palloc0(sizeof(TmPlan));
	plan->npipelines = npl;
	plan->pipelines = palloc0(sizeof(TmPipeline) * npl);

	{
		bool	  **used = palloc0(sizeof(bool *) * npl);

		for (p = npl - 1; p >= 0; p--)
		{
			BPipeline  *pl = list_nth(pipelines, p);
			SlotWalk	w;

			w.nslots = pl->nslots;
			w.used = palloc0(sizeof(bool) * Max(pl->nslots, 1));
			foreach(lc, pl->ops)
			{
				BOp		   *op = lfirst(lc);

				used_walker((Node *) op->keys, &w);
				used_walker((Node *) op->qual, &w);
			}
			used_walker((Node *) pl->sinkkeys, &w);
			if (pl->sinkkind == TM_SINK_HASH_BUILD)
			{
				List	   *vals = NIL;
				BHash	   *h = list_nth(ts.hashes, pl->target);
				List	   *types = NIL;

				i = 0;
				foreach(lc, pl->sinkvals)
				{
					if (ht_used[pl->target][i])
					{
						ht_remap[pl->target][i] = list_length(vals);
						vals = lappend(vals, lfirst(lc));
						types = lappend(types, list_nth(h->payload_types, i));
					}
					else
						ht_remap[pl->target][i] = -1;
					i++;
				}
				pl->sinkvals = vals;
				h->payload_types = types;
			}
			used_walker((Node *) pl->sinkvals, &w);
			foreach(lc, pl->aggs)
			{
				BAgg	   *a = lfirst(lc);

				used_walker((Node *) a->arg, &w);
				used_walker((Node *) a->filter, &w);
			}
			for (i = 0; i < pl->nslots; i++)
			{
				BSlot	   *sl = &pl->slots[i];

				if (w.used[i] && sl->level > 0)
				{
					BOp		   *op = list_nth(pl->ops, sl->level - 1);

					ht_used[op->ht][sl->col] = true;
				}
			}
			used[p] = w.used;
		}

		/* ---- renumber, compile ---- */
		for (p = 0; p < npl; p++)
		{
			BPipeline  *pl = list_nth(pipelines, p);
			TmPipeline *tp = &plan->pipelines[p];
			int		   *map = palloc(sizeof(int) * Max(pl->nslots, 1));
			TmType	   *types;
			int			n = 0;
			List	   *attnos = NIL;
			int			o;

			tp->slots = palloc0(sizeof(TmSlot) * Max(pl->nslots, 1));
			for (i = 0; i < pl->nslots; i++)
			{
				BSlot	   *sl = &pl->slots[i];
				TmSlot	   *ns;

				map[i] = -1;
				if (!used[p][i])
					continue;
				map[i] = n;
				ns = &tp->slots[n++];
				ns->type = sl->type;
				ns->level = sl->level;
				if (sl->level == 0 && pl->srckind == TM_SRC_TABLE)
				{
					int			pos = list_length(attnos);
					int			j = 0;
					ListCell   *lc2;

					foreach(lc2, attnos)
					{
						if (lfirst_int(lc2) == sl->col)
						{
							pos = j;
							break;
						}
						j++;
					}
					if (pos == list_length(attnos))
						attnos = lappend_int(attnos, sl->col);
					ns->col = pos;
				}
				else if (sl->level > 0)
				{
					BOp		   *op = list_nth(pl->ops, sl->level - 1);

					ns->col = ht_remap[op->ht][sl->col];
				}
				else
					ns->col = sl->col;
			}
			tp->nslots = n;
			types = palloc0(sizeof(TmType) * Max(n, 1));
			for (i = 0; i < n; i++)
				types[i] = tp->slots[i].type;

			tp->srckind = pl->srckind;
			tp->relid = pl->relid;
			tp->rtindex = pl->rtindex;
			tp->src_result = pl->src_result;
			tp->subplan = pl->subplan;
			if (pl->srckind == TM_SRC_TABLE)
			{
				tp->nsrccols = list_length(attnos);
				tp->src_attnos = palloc(sizeof(int16) * Max(tp->nsrccols, 1));
				i = 0;
				foreach(lc, attnos)
					tp->src_attnos[i++] = (int16) lfirst_int(lc);
			}
			else if (pl->srckind == TM_SRC_SUBPLAN)
				tp->nsrccols = pl->nsrccols;
			else
				tp->nsrccols = list_length((List *) list_nth(ts.results, pl->src_result));
			tp->source_label = pl->source_label;
			tp->est_source_rows = pl->est_source_rows;
			tp->est_rows = pl->est_rows;
			tp->est_groups = pl->est_groups;

			tp->nops = list_length(pl->ops);
			tp->ops = palloc0(sizeof(TmOp) * Max(tp->nops, 1));
			o = 0;
			foreach(lc, pl->ops)
			{
				BOp		   *bop = lfirst(lc);
				TmOp	   *op = &tp->ops[o++];
				int			k = 0;
				ListCell   *lc2;

				op->kind = bop->kind;
				op->jointype = bop->jointype;
				op->ht = bop->ht;
				op->nkeys = list_length(bop->keys);
				op->keys = palloc0(sizeof(TmExpr *) * Max(op->nkeys, 1));
				foreach(lc2, bop->keys)
				{
					op->keys[k] = compile_final(&ts, types, n,
												(Expr *) renum_mutator(lfirst(lc2), map),
												&bop->keytypes[k]);
					if (op->keys[k] == NULL)
						goto failed;
					k++;
				}
				if (bop->qual)
				{
					op->qual = compile_final(&ts, types, n, (Expr *) renum_mutator((Node *) bop->qual, map), NULL);
					if (op->qual == NULL)
						goto failed;
				}
				op->label = bop->label;
				op->est_rows = bop->est_rows;
			}

			tp->sink.kind = pl->sinkkind;
			tp->sink.target = pl->target;
			tp->sink.label = pl->sink_label;
			tp->sink.nkeys = list_length(pl->sinkkeys);
			tp->sink.keys = palloc0(sizeof(TmExpr *) * Max(tp->sink.nkeys, 1));
			i = 0;
			foreach(lc, pl->sinkkeys)
			{
				tp->sink.keys[i] = compile_final(&ts, types, n, (Expr *) renum_mutator(lfirst(lc), map),
												 pl->sinkkind == TM_SINK_HASH_BUILD ? &pl->sinkkeytypes[i] : NULL);
				if (tp->sink.keys[i] == NULL)
					goto failed;
				i++;
			}
			tp->sink.nvals = list_length(pl->sinkvals);
			tp->sink.vals = palloc0(sizeof(TmExpr *) * Max(tp->sink.nvals, 1));
			tp->sink.vals_errfree = palloc0(sizeof(bool) * Max(tp->sink.nvals, 1));
			i = 0;
			foreach(lc, pl->sinkvals)
			{
				tp->sink.vals[i] = compile_final(&ts, types, n, (Expr *) renum_mutator(lfirst(lc), map), NULL);
				if (tp->sink.vals[i] == NULL)
					goto failed;
				tp->sink.vals_errfree[i] = expr_errfree(lfirst(lc));
				i++;
			}
			tp->sink.naggs = list_length(pl->aggs);
			tp->sink.aggs = palloc0(sizeof(TmAgg) * Max(tp->sink.naggs, 1));
			i = 0;
			foreach(lc, pl->aggs)
			{
				BAgg	   *a = lfirst(lc);
				TmAgg	   *ta = &tp->sink.aggs[i++];

				ta->kind = a->kind;
				ta->distinct = a->distinct;
				ta->restype = a->restype;
				if (a->arg)
				{
					ta->arg = compile_final(&ts, types, n, (Expr *) renum_mutator((Node *) a->arg, map),
											a->argcoerce.kind ? &a->argcoerce : NULL);
					if (ta->arg == NULL)
						goto failed;
				}
				if (a->filter)
				{
					ta->filter = compile_final(&ts, types, n, (Expr *) renum_mutator((Node *) a->filter, map), NULL);
					if (ta->filter == NULL)
						goto failed;
				}
			}
		}
	}

	/* hash tables and results */
	plan->nhashtables = nht;
	plan->hashtables = palloc0(sizeof(TmHashTable) * Max(nht, 1));
	for (i = 0; i < nht; i++)
	{
		BHash	   *h = list_nth(ts.hashes, i);
		TmHashTable *th = &plan->hashtables[i];
		int			j = 0;

		th->nkeys = h->nkeys;
		th->keytypes = h->keytypes;
		th->npayload = list_length(h->payload_types);
		th->payloadtypes = palloc0(sizeof(TmType) * Max(th->npayload, 1));
		foreach(lc, h->payload_types)
			th->payloadtypes[j++] = *(TmType *) lfirst(lc);
	}
	plan->nresults = list_length(ts.results);
	plan->results = palloc0(sizeof(TmResult) * Max(plan->nresults, 1));
	for (i = 0; i < plan->nresults; i++)
	{
		List	   *cols = list_nth(ts.results, i);
		int			j = 0;

		plan->results[i].ncols = list_length(cols);
		plan->results[i].coltypes = palloc0(sizeof(TmType) * Max(list_length(cols), 1));
		foreach(lc, cols)
			plan->results[i].coltypes[j++] = *(TmType *) lfirst(lc);
	}
	plan->output_result = (last->srckind == TM_SRC_RESULT && last->ops == NIL && !last->finished)
		? last->src_result : last->target;

	plan->nparams = list_length(ts.params);
	plan->paramtypes = palloc0(sizeof(TmType) * Max(plan->nparams, 1));
	i = 0;
	foreach(lc, ts.paramtypes)
		plan->paramtypes[i++] = *(TmType *) lfirst(lc);

	/* custom_scan_tlist: one entry per output result column, typed as the column */
	{
		TmResult   *res = &plan->results[plan->output_result];

		for (i = 0; i < res->ncols; i++)
		{
			TmType	   *t = &res->coltypes[i];
			Expr	   *disp = NULL;
			int			sl;

			for (sl = 0; sl < last->nslots; sl++)
				if (colmap[sl] == i)
					break;
			if (sl < last->nslots)
			{
				BSlot	   *bs = &last->slots[sl];

				/* the scan tuple column has exactly the type the node's Vars expect */
				t->pgtype = bs->pgtype;
				t->typmod = bs->typmod;
				if (bs->origin &&
					exprType((Node *) bs->origin) == bs->pgtype &&
					exprTypmod((Node *) bs->origin) == bs->typmod)
					disp = (Expr *) copyObject(bs->origin);
			}
			if (disp == NULL)
				disp = (Expr *) makeNullConst(t->pgtype, t->typmod,
											  sl < last->nslots ? last->slots[sl].collid : InvalidOid);
			tr->scan_tlist = lappend(tr->scan_tlist, makeTargetEntry(disp, i + 1, NULL, false));
		}
	}

	if (themis_build_reduction)
		tm_reduce_builds(plan);

	tr->plan = plan;
	tr->params = ts.params;
	tr->inputs = ts.inputs;
	tr->source_rows = ts.source_rows;
	tr->max_source_rows = ts.max_source_rows;
	*merge_swaps = ts.merge_swaps;
	return tr;

failed:
	*merge_swaps = ts.merge_swaps;
	*why = ts.why ? ts.why : "not supported";
	return NULL;
}
