/*
 * decorrelate.c — a query rewrite before planning: a correlated scalar subquery with an aggregate in a
 * WHERE condition becomes a join with the subquery grouped by its correlation keys, so that the work
 * runs as one grouped aggregation and one join (in a Themis node) instead of one subquery run per outer
 * row, which PostgreSQL leaves to a SubPlan (TPC-H Q2, Q17, Q20).
 *
 *   ... WHERE x < (SELECT 0.2 * avg(l.q) FROM l WHERE l.k = o.k AND l.d > '...')
 * becomes
 *   ... FROM ..., (SELECT l.k, avg(l.q) FROM l WHERE l.d > '...' GROUP BY l.k) d
 *       WHERE o.k = d.k AND x < 0.2 * d.avg
 *
 * The answer is the same, errors included, under these conditions (anything else is left alone):
 *   - the subquery is a plain aggregate query (aggregates, no GROUP BY / HAVING / DISTINCT / ORDER BY /
 *     LIMIT / window functions / set operations / sublinks / CTEs / volatile functions / row marks), of
 *     one output column;
 *   - it refers to the outer query only in top-level AND conditions inner = outer, where inner is a column
 *     of the subquery, outer a column of the outer query (nothing of levels further out), and = is the
 *     default equality of their common type (the one grouping uses): the rows of one group are exactly
 *     the rows that the condition selects for an outer value; a NULL outer value selects no rows and
 *     matches no group;
 *   - its aggregates are min / max / count / sum / avg of pg_catalog; sum and avg only of integers and
 *     numeric (a float sum may overflow, and the grouped query runs over rows the original never read);
 *     their arguments, the subquery's remaining conditions and its FROM items' conditions use only
 *     leakproof functions (and comparisons known not to fail: numeric, date / timestamp cross-type) where
 *     they read columns (they cannot fail on rows the original never read);
 *   - its output expression is NULL when its aggregates see no rows (the aggregates above return NULL
 *     then, and the expression is strict in them, count excepted): an outer row whose group does not
 *     exist gets what the subquery gave it, NULL; the expression itself is computed in the outer query,
 *     per joined row, as the original computed it per outer row;
 *   - the subquery sits in a top-level AND condition of the outer WHERE that is NULL when the subquery is
 *     (strict operators and functions down to it): such a row is dropped either way, so an inner join
 *     to the grouped subquery keeps exactly the rows the original keeps, each at most once (one group per
 *     key); and the rest of that condition cannot fail (leakproof, as above): the original evaluates it
 *     on every outer row, the join only on rows whose group exists.
 * Applied to every query level (sublinks' subqueries, FROM subqueries, CTEs), inner ones first.
 *
 * Also here: NOT (x IN (SELECT y ...)) over columns that cannot be NULL becomes NOT EXISTS (an anti
 * join for themis instead of PostgreSQL's hashed subplan filter), see notin_to_not_exists (TPC-H Q16);
 * and the max-over-a-view pattern (TPC-H Q15): view_max_ties, else inline_view_ctes.
 *
 * The planner hook plans both the rewritten and the original query and keeps the rewritten plan unless
 * PostgreSQL estimates it more than THEMIS_DECORRELATE_MAX_RATIO times as costly (planner.c): a
 * selective outer query (a few outer rows, each with a cheap index lookup in the subquery) must not turn
 * into a grouping of a whole table.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_attribute.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "themis.h"

/* a correlation condition: inner (a column of the subquery) = outer (a column of the outer query) */
typedef struct CorrKey
{
	Expr	   *inner;
	Expr	   *outer;
	Oid			opno;
	Oid			inputcollid;
	bool		outer_first;	/* the condition was written outer = inner */
} CorrKey;

static Query *decorrelate_query(Query *q);

/* query levels rewritten so far in this backend (themis_decorrelate compares before and after) */
static int	ndone = 0;

/* ---------- small predicates ---------- */

/* an AND of the conditions, NULL for none */
static Node *
ands_or_null(List *l)
{
	return l == NIL ? NULL : (Node *) make_ands_explicit(l);
}

/* a column, possibly relabeled (binary-compatible cast): level `levelsup` */
static bool
is_column(Node *n, int levelsup)
{
	while (n != NULL && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	return n != NULL && IsA(n, Var) && ((Var *) n)->varlevelsup == levelsup &&
		((Var *) n)->varattno > 0;
}

typedef struct LevelCtx
{
	int			depth;
	int			maxup;			/* highest level referred to, relative to the starting query */
} LevelCtx;

/* the highest query level that node refers to (Vars, aggregates, placeholders), 0 = its own */
static bool
max_level_walker(Node *node, LevelCtx *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		int			up = (int) ((Var *) node)->varlevelsup - ctx->depth;

		ctx->maxup = Max(ctx->maxup, up);
		return false;
	}
	if (IsA(node, Aggref))
	{
		int			up = (int) ((Aggref *) node)->agglevelsup - ctx->depth;

		ctx->maxup = Max(ctx->maxup, up);
	}
	if (IsA(node, GroupingFunc))
		ctx->maxup = Max(ctx->maxup, (int) ((GroupingFunc *) node)->agglevelsup - ctx->depth);
	if (IsA(node, PlaceHolderVar))
		ctx->maxup = Max(ctx->maxup, (int) ((PlaceHolderVar *) node)->phlevelsup - ctx->depth);
	if (IsA(node, Query))
	{
		bool		r;

		ctx->depth++;
		r = query_tree_walker((Query *) node, max_level_walker, (void *) ctx, 0);
		ctx->depth--;
		return r;
	}
	return expression_tree_walker(node, max_level_walker, (void *) ctx);
}

static int
max_level(Node *node)
{
	LevelCtx	ctx = {0, 0};

	if (node != NULL && IsA(node, Query))
		(void) query_tree_walker((Query *) node, max_level_walker, (void *) &ctx, 0);
	else
		(void) max_level_walker(node, &ctx);
	return ctx.maxup;
}

/*
 * Comparison functions that raise no error whatever their arguments but are not marked leakproof in
 * PostgreSQL 15: numeric comparisons (cmp_numerics) and the date / timestamp / timestamptz cross-type
 * ones (they compare through the *_opt_overflow conversions, which report overflow instead of failing).
 */
static bool
comparison_cannot_fail(Oid funcid)
{
	static const char *const types[] = {"numeric", "date", "timestamp", "timestamptz"};
	static const char *const ops[] = {"eq", "ne", "lt", "le", "gt", "ge"};
	char	   *name;
	bool		ok = false;

	if (get_func_namespace(funcid) != PG_CATALOG_NAMESPACE)
		return false;
	name = get_func_name(funcid);
	if (name == NULL)
		return false;
	for (int a = 0; a < lengthof(types) && !ok; a++)
		for (int o = 0; o < lengthof(ops) && !ok; o++)
			for (int b = 0; b < lengthof(types) && !ok; b++)
			{
				char		cand[NAMEDATALEN];

				/* numeric_lt and the like; date_lt_timestamp and the like (not numeric with the others) */
				if (a == b)
					snprintf(cand, sizeof(cand), "%s_%s", types[a], ops[o]);
				else if (a > 0 && b > 0)
					snprintf(cand, sizeof(cand), "%s_%s_%s", types[a], ops[o], types[b]);
				else
					continue;
				if (a == b && a > 0)
					continue;	/* date_lt, timestamp_lt, ...: leakproof already */
				ok = strcmp(name, cand) == 0;
			}
	pfree(name);
	return ok;
}

static bool
func_cannot_fail(Oid funcid)
{
	return get_func_leakproof(funcid) || comparison_cannot_fail(funcid);
}

/*
 * LIKE / NOT LIKE with a constant pattern: fails only on a pattern that ends with the escape character
 * or under a nondeterministic collation, which the planner-time checks here rule out.
 */
static bool
like_cannot_fail(OpExpr *op)
{
	char	   *name = get_func_name(op->opfuncid);
	Const	   *pat;
	char	   *str;
	int			n = 0;
	bool		ok;

	if (name == NULL || get_func_namespace(op->opfuncid) != PG_CATALOG_NAMESPACE ||
		(strcmp(name, "textlike") != 0 && strcmp(name, "textnlike") != 0 &&
		 strcmp(name, "bpcharlike") != 0 && strcmp(name, "bpcharnlike") != 0))
		return false;
	if (list_length(op->args) != 2 || !IsA(lsecond(op->args), Const) || ((Const *) lsecond(op->args))->constisnull)
		return false;
	if (!OidIsValid(op->inputcollid) || !get_collation_isdeterministic(op->inputcollid))
		return false;
	pat = (Const *) lsecond(op->args);
	if (pat->consttype != TEXTOID && pat->consttype != BPCHAROID && pat->consttype != VARCHAROID)
		return false;
	str = TextDatumGetCString(pat->constvalue);
	/* an odd number of trailing backslashes: the pattern ends with the escape character */
	for (int i = (int) strlen(str) - 1; i >= 0 && str[i] == '\\'; i--)
		n++;
	ok = (n % 2) == 0;
	pfree(str);
	return ok;
}

/*
 * Can evaluating node fail on some row?  Only where a function that reads a column is not leakproof
 * (leakproof functions raise no error that depends on their arguments).  Subexpressions without columns
 * are constants the planner folds before execution, in the original query as well.
 */
static bool
may_fail_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) || IsA(node, Const) || IsA(node, Param) || IsA(node, RelabelType) ||
		IsA(node, BoolExpr) || IsA(node, NullTest) || IsA(node, BooleanTest) || IsA(node, List) ||
		IsA(node, TargetEntry))
		return expression_tree_walker(node, may_fail_walker, ctx);
	if (!contain_vars_of_level(node, 0))
		return contain_volatile_functions(node);
	switch (nodeTag(node))
	{
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			if (!func_cannot_fail(((OpExpr *) node)->opfuncid) &&
				!(IsA(node, OpExpr) && like_cannot_fail((OpExpr *) node)))
				return true;
			return expression_tree_walker(node, may_fail_walker, ctx);
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			if (!func_cannot_fail(((ScalarArrayOpExpr *) node)->opfuncid))
				return true;
			return expression_tree_walker(node, may_fail_walker, ctx);
		case T_FuncExpr:
			if (!func_cannot_fail(((FuncExpr *) node)->funcid))
				return true;
			return expression_tree_walker(node, may_fail_walker, ctx);
		default:
			return true;
	}
}

/* the aggregate is one of those above, of the subquery's level, without ORDER BY / FILTER oddities */
static bool
agg_ok(Aggref *a)
{
	HeapTuple	tp;
	Form_pg_proc proc;
	const char *name;
	bool		ok = false;

	if (a->agglevelsup != 0 || a->aggorder != NIL || a->aggdistinct != NIL || a->aggkind != AGGKIND_NORMAL ||
		list_length(a->args) > 1)
		return false;
	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(a->aggfnoid));
	if (!HeapTupleIsValid(tp))
		return false;
	proc = (Form_pg_proc) GETSTRUCT(tp);
	name = NameStr(proc->proname);
	if (proc->pronamespace == PG_CATALOG_NAMESPACE)
	{
		if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0 || strcmp(name, "count") == 0)
			ok = true;
		else if ((strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0) && list_length(a->args) == 1)
		{
			Oid			t = exprType((Node *) ((TargetEntry *) linitial(a->args))->expr);

			ok = (t == INT2OID || t == INT4OID || t == INT8OID || t == NUMERICOID);
		}
	}
	ReleaseSysCache(tp);
	if (!ok)
		return false;
	/* arguments and FILTER read columns only through functions that cannot fail */
	return !may_fail_walker((Node *) a->args, NULL) && !may_fail_walker((Node *) a->aggfilter, NULL);
}

static bool
is_count(Aggref *a)
{
	char	   *name = get_func_name(a->aggfnoid);

	return name != NULL && strcmp(name, "count") == 0;
}

/* e is a strict operator or function call: *args its arguments */
static bool
strict_args(Node *e, List **args)
{
	if (IsA(e, OpExpr))
	{
		set_opfuncid((OpExpr *) e);
		*args = ((OpExpr *) e)->args;
		return func_strict(((OpExpr *) e)->opfuncid);
	}
	if (IsA(e, FuncExpr))
	{
		*args = ((FuncExpr *) e)->args;
		return func_strict(((FuncExpr *) e)->funcid);
	}
	return false;
}

/*
 * Is e NULL whenever the aggregates it uses saw no rows?  True if e is such an aggregate (not count), or
 * a strict operator or function with such an argument.  Collects the aggregates on the way (all of e's
 * aggregates must be acceptable: checked by the caller).
 */
static bool
null_on_empty(Node *e)
{
	ListCell   *lc;
	List	   *args;

	if (e == NULL)
		return false;
	if (IsA(e, RelabelType))
		return null_on_empty((Node *) ((RelabelType *) e)->arg);
	if (IsA(e, Aggref))
		return !is_count((Aggref *) e);
	if (!strict_args(e, &args))
		return false;
	foreach(lc, args)
		if (null_on_empty((Node *) lfirst(lc)))
			return true;
	return false;
}

/* is conjunct c NULL whenever sublink s is NULL (strict operators and functions from c down to s)? */
static bool
null_with(Node *c, SubLink *s)
{
	ListCell   *lc;
	List	   *args;

	if (c == (Node *) s)
		return true;
	if (c == NULL)
		return false;
	if (IsA(c, RelabelType))
		return null_with((Node *) ((RelabelType *) c)->arg, s);
	if (!strict_args(c, &args))
		return false;
	foreach(lc, args)
		if (null_with((Node *) lfirst(lc), s))
			return true;
	return false;
}

/* the one EXPR sublink in conjunct c, where c is strict in it; NULL if none or more */
typedef struct FindCtx
{
	SubLink    *found;
	int			n;
} FindCtx;

static bool
find_sublink_walker(Node *node, FindCtx *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, SubLink))
	{
		ctx->n++;
		ctx->found = (SubLink *) node;
		return false;			/* not into its subquery */
	}
	return expression_tree_walker(node, find_sublink_walker, (void *) ctx);
}

/* c with the node s replaced by v */
typedef struct SubstCtx
{
	SubLink    *s;
	Node	   *v;
} SubstCtx;

static Node *
replace_sublink_mutator(Node *node, SubstCtx *ctx)
{
	if (node == (Node *) ctx->s)
		return ctx->v;
	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
		return node;			/* another sublink's subquery: as it is */
	return expression_tree_mutator(node, replace_sublink_mutator, (void *) ctx);
}

static Node *
replace_sublink(Node *c, SubLink *s, Node *v)
{
	SubstCtx	ctx = {s, v};

	return replace_sublink_mutator(c, &ctx);
}

/* ---------- the subquery ---------- */

/* is sq a plain aggregate query of one output column? */
static bool
subquery_shape_ok(Query *sq)
{
	int			nout = 0;
	ListCell   *lc;

	if (sq->commandType != CMD_SELECT || !sq->hasAggs || sq->groupClause != NIL || sq->groupingSets != NIL ||
		sq->havingQual != NULL || sq->distinctClause != NIL || sq->sortClause != NIL ||
		sq->limitCount != NULL || sq->limitOffset != NULL || sq->hasWindowFuncs || sq->hasTargetSRFs ||
		sq->setOperations != NULL || sq->hasSubLinks || sq->cteList != NIL || sq->rowMarks != NIL ||
		sq->hasForUpdate || sq->hasRecursive || sq->hasModifyingCTE || sq->utilityStmt != NULL ||
		sq->jointree == NULL)
		return false;
	foreach(lc, sq->targetList)
		if (!((TargetEntry *) lfirst(lc))->resjunk)
			nout++;
	if (nout != 1 || list_length(sq->targetList) != 1)
		return false;
	if (contain_volatile_functions((Node *) sq))
		return false;
	/* only plain tables and subqueries in its FROM list (no functions, VALUES, ...) */
	foreach(lc, sq->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

		if (rte->rtekind != RTE_RELATION && rte->rtekind != RTE_JOIN)
			return false;
		if (rte->tablesample != NULL)
			return false;
	}
	return true;
}

/* conditions of the FROM items' JOIN ... ON of sq: none may fail */
static bool
join_quals_may_fail(Node *jt)
{
	if (jt == NULL)
		return false;
	if (IsA(jt, FromExpr))
	{
		ListCell   *lc;

		foreach(lc, ((FromExpr *) jt)->fromlist)
			if (join_quals_may_fail((Node *) lfirst(lc)))
				return true;
		return false;
	}
	if (IsA(jt, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) jt;

		return may_fail_walker(j->quals, NULL) || join_quals_may_fail(j->larg) ||
			join_quals_may_fail(j->rarg);
	}
	return false;
}

/*
 * Split sq's WHERE into correlation keys and the rest (which must not refer to the outer query).
 * false if a condition refers to the outer query in another way.
 */
static bool
split_correlation(Query *sq, List **keys, List **rest)
{
	List	   *conj = make_ands_implicit((Expr *) sq->jointree->quals);
	ListCell   *lc;

	*keys = NIL;
	*rest = NIL;
	foreach(lc, conj)
	{
		Node	   *c = (Node *) lfirst(lc);
		OpExpr	   *op;
		Node	   *a,
				   *b;
		CorrKey    *k;
		TypeCacheEntry *tc;

		if (max_level(c) == 0)
		{
			*rest = lappend(*rest, c);
			continue;
		}
		if (!IsA(c, OpExpr) || list_length(((OpExpr *) c)->args) != 2)
			return false;
		op = (OpExpr *) c;
		a = (Node *) linitial(op->args);
		b = (Node *) lsecond(op->args);
		k = (CorrKey *) palloc0(sizeof(CorrKey));
		if (is_column(a, 0) && is_column(b, 1))
		{
			k->inner = (Expr *) a;
			k->outer = (Expr *) b;
		}
		else if (is_column(a, 1) && is_column(b, 0))
		{
			k->inner = (Expr *) b;
			k->outer = (Expr *) a;
			k->outer_first = true;
		}
		else
			return false;
		/* the default equality of the (common) type: what GROUP BY groups with */
		if (exprType((Node *) k->inner) != exprType((Node *) k->outer))
			return false;
		tc = lookup_type_cache(exprType((Node *) k->inner), TYPECACHE_EQ_OPR | TYPECACHE_LT_OPR);
		if (!OidIsValid(tc->eq_opr) || tc->eq_opr != op->opno)
			return false;
		/* GROUP BY must be able to group it: by sorting or by hashing */
		if (!OidIsValid(tc->lt_opr) && !op_hashjoinable(op->opno, exprType((Node *) k->inner)))
			return false;
		k->opno = op->opno;
		k->inputcollid = op->inputcollid;
		/* a collation that is not deterministic groups unequal strings together: not the same */
		if (OidIsValid(k->inputcollid) && !get_collation_isdeterministic(k->inputcollid))
			return false;
		/* ... nor one that groups the inner column */
		if (OidIsValid(exprCollation((Node *) k->inner)) &&
			!get_collation_isdeterministic(exprCollation((Node *) k->inner)))
			return false;
		*keys = lappend(*keys, k);
	}
	return *keys != NIL;
}

/* Aggref nodes of e (in order of appearance) */
static bool
collect_aggs_walker(Node *node, List **aggs)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		*aggs = lappend(*aggs, node);
		return false;
	}
	return expression_tree_walker(node, collect_aggs_walker, (void *) aggs);
}

/* e with each Aggref replaced by the Var of its column in the grouped subquery */
typedef struct ReplCtx
{
	List	   *aggs;
	Index		rtindex;
	int			first_attno;
} ReplCtx;

static Node *
replace_aggs_mutator(Node *node, ReplCtx *ctx)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Aggref))
	{
		int			i = 0;
		ListCell   *lc;

		foreach(lc, ctx->aggs)
		{
			if (lfirst(lc) == (void *) node)
			{
				Aggref	   *a = (Aggref *) node;

				return (Node *) makeVar(ctx->rtindex, ctx->first_attno + i, a->aggtype, -1,
										a->aggcollid, 0);
			}
			i++;
		}
		elog(ERROR, "themis: decorrelation lost an aggregate");
	}
	return expression_tree_mutator(node, replace_aggs_mutator, (void *) ctx);
}

/* a NOT IN stays as it is: say why where themis.debug_ir asks */
static Node *
keep_notin(const char *why)
{
	if (themis_debug_ir)
		ereport(NOTICE, (errmsg("themis: NOT IN kept as a subplan: %s", why)));
	return NULL;
}

/* ---------- the rewrite of one WHERE condition ---------- */

/* a correlated subquery stays as it is: say why where themis.debug_ir asks */
static List *
keep_why(const char *why)
{
	if (themis_debug_ir)
		ereport(NOTICE, (errmsg("themis: correlated subquery kept as a subplan: %s", why)));
	return NIL;
}

/*
 * Conjunct c of q's WHERE, with sublink s: add the grouped subquery to q's FROM list and return the
 * conditions that replace c (the join conditions and c with s replaced); NIL if s does not qualify.
 */
static List *
decorrelate_conjunct(Query *q, Node *c, SubLink *s, int *counter)
{
	Query	   *sq = (Query *) s->subselect;
	List	   *keys;
	List	   *rest;
	List	   *aggs = NIL;
	TargetEntry *out;
	Query	   *dq;
	List	   *tlist = NIL;
	List	   *groups = NIL;
	List	   *colnames = NIL;
	RangeTblEntry *rte;
	RangeTblRef *rtr;
	Index		rtindex;
	ReplCtx		rc;
	List	   *result = NIL;
	ListCell   *lc;
	int			resno = 1;
	char		name[NAMEDATALEN];

	if (s->subLinkType != EXPR_SUBLINK || !IsA(sq, Query))
		return NIL;
	if (!subquery_shape_ok(sq))
		return keep_why("not a plain aggregate query of one output column");
	if (max_level((Node *) sq) > 1)
		return keep_why("it refers to a query level further out");
	if (!split_correlation(sq, &keys, &rest))
		return keep_why("it refers to the outer query other than by inner column = outer column of one type");
	out = (TargetEntry *) linitial(sq->targetList);
	/* nothing else of the subquery refers to the outer query: look at it without the keys */
	{
		Node	   *quals = sq->jointree->quals;
		int			up;

		sq->jointree->quals = ands_or_null(rest);
		up = max_level((Node *) sq);
		sq->jointree->quals = quals;
		if (up > 0)
			return keep_why("it refers to the outer query outside its WHERE conditions");
	}
	/* what runs over every row of the grouped subquery cannot fail */
	if (may_fail_walker((Node *) rest, NULL) || join_quals_may_fail((Node *) sq->jointree))
		return keep_why("a condition uses a function that may fail on rows the subquery never read");
	(void) collect_aggs_walker((Node *) out->expr, &aggs);
	if (aggs == NIL)
		return keep_why("no aggregate in its output");
	foreach(lc, aggs)
		if (!agg_ok((Aggref *) lfirst(lc)))
			return keep_why("an aggregate other than min, max, count, or sum / avg of integers and numeric without DISTINCT or ORDER BY");
	if (!null_on_empty((Node *) out->expr))
		return keep_why("its output is not NULL over no rows");
	if (!null_with(c, s))
		return keep_why("the condition is not NULL when the subquery is");
	/*
	 * The rest of the condition cannot fail: the original evaluates it on every outer row that reaches it,
	 * the join only on rows whose group exists (GPU fuzz s1000-q255: i * 36 < (SELECT max(...)) over an
	 * empty subquery table, where PostgreSQL raises "integer out of range" on the outer row)
	 */
	if (may_fail_walker(replace_sublink(c, s, (Node *) makeNullConst(exprType((Node *) s), exprTypmod((Node *) s),
																	 exprCollation((Node *) s))), NULL))
		return keep_why("the rest of the condition may fail on outer rows the join would not read");

	/* the grouped subquery: keys, then the aggregates; conditions without the correlation */
	dq = copyObject(sq);
	dq->jointree->quals = ands_or_null(copyObject(rest));
	foreach(lc, keys)
	{
		CorrKey    *k = (CorrKey *) lfirst(lc);
		Oid			ltop,
					eqop;
		bool		hashable;
		SortGroupClause *g = makeNode(SortGroupClause);
		TargetEntry *te;

		snprintf(name, sizeof(name), "k%d", resno);
		te = makeTargetEntry(copyObject(k->inner), resno, pstrdup(name), false);
		get_sort_group_operators(exprType((Node *) k->inner), false, true, false, &ltop, &eqop, NULL, &hashable);
		g->tleSortGroupRef = resno;
		te->ressortgroupref = resno;
		g->eqop = eqop;
		g->sortop = ltop;
		g->nulls_first = false;
		g->hashable = hashable;
		tlist = lappend(tlist, te);
		groups = lappend(groups, g);
		colnames = lappend(colnames, makeString(pstrdup(name)));
		resno++;
	}
	foreach(lc, aggs)
	{
		snprintf(name, sizeof(name), "a%d", resno);
		tlist = lappend(tlist, makeTargetEntry((Expr *) copyObject(lfirst(lc)), resno, pstrdup(name), false));
		colnames = lappend(colnames, makeString(pstrdup(name)));
		resno++;
	}
	dq->targetList = tlist;
	dq->groupClause = groups;

	/* into q's FROM list */
	(*counter)++;
	snprintf(name, sizeof(name), "themis_decorrelated_%d", *counter);
	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = dq;
	rte->alias = makeAlias(name, NIL);
	rte->eref = makeAlias(name, colnames);
	rte->lateral = false;
	rte->inh = false;
	rte->inFromCl = true;
	q->rtable = lappend(q->rtable, rte);
	rtindex = list_length(q->rtable);
	rtr = makeNode(RangeTblRef);
	rtr->rtindex = rtindex;
	q->jointree->fromlist = lappend(q->jointree->fromlist, rtr);

	/* the join conditions outer = key */
	resno = 1;
	foreach(lc, keys)
	{
		CorrKey    *k = (CorrKey *) lfirst(lc);
		Expr	   *outer = (Expr *) copyObject(k->outer);
		Var		   *kv = makeVar(rtindex, resno, exprType((Node *) k->inner), exprTypmod((Node *) k->inner),
								 exprCollation((Node *) k->inner), 0);
		OpExpr	   *eq;

		IncrementVarSublevelsUp((Node *) outer, -1, 1);
		eq = (OpExpr *) make_opclause(k->opno, BOOLOID, false,
									  k->outer_first ? outer : (Expr *) kv,
									  k->outer_first ? (Expr *) kv : outer,
									  InvalidOid, k->inputcollid);
		set_opfuncid(eq);
		result = lappend(result, eq);
		resno++;
	}
	/* c with the sublink replaced by its output expression over the grouped subquery's columns */
	rc.aggs = aggs;
	rc.rtindex = rtindex;
	rc.first_attno = list_length(keys) + 1;
	result = lappend(result, replace_sublink(c, s, replace_aggs_mutator((Node *) out->expr, &rc)));
	return result;
}

/* ---------- NOT IN over columns that cannot be NULL ---------- */

/* no outer join in jt: its columns are never NULL-extended */
static bool
only_inner_joins(Node *jt)
{
	ListCell   *lc;

	if (jt == NULL || IsA(jt, RangeTblRef))
		return true;
	if (IsA(jt, FromExpr))
	{
		foreach(lc, ((FromExpr *) jt)->fromlist)
			if (!only_inner_joins((Node *) lfirst(lc)))
				return false;
		return true;
	}
	if (IsA(jt, JoinExpr))
		return ((JoinExpr *) jt)->jointype == JOIN_INNER && only_inner_joins(((JoinExpr *) jt)->larg) &&
			only_inner_joins(((JoinExpr *) jt)->rarg);
	return false;
}

/*
 * Is column attname of table relid declared NOT NULL where PostgreSQL enforces it?  Not in a foreign table
 * (its constraints are not checked); nor in a child of an inheritance tree, which may drop the NOT NULL
 * of its parent (in PostgreSQL 15 only partitions may not): a scan of the parent reads every child, and
 * each must have it.
 */
bool
themis_column_not_null(Oid relid, const char *attname, bool inh)
{
	char		relkind = get_rel_relkind(relid);
	AttrNumber	attno = get_attnum(relid, attname);
	HeapTuple	tp;
	bool		nn;

	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW && relkind != RELKIND_PARTITIONED_TABLE)
		return false;
	if (attno == InvalidAttrNumber)
		return false;
	tp = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(attno));
	if (!HeapTupleIsValid(tp))
		return false;
	nn = ((Form_pg_attribute) GETSTRUCT(tp))->attnotnull;
	ReleaseSysCache(tp);
	if (nn && inh && has_subclass(relid))
	{
		List	   *rels = find_all_inheritors(relid, AccessShareLock, NULL);
		ListCell   *lc;

		foreach(lc, rels)
			if (lfirst_oid(lc) != relid && !themis_column_not_null(lfirst_oid(lc), attname, false))
				nn = false;
		list_free(rels);
	}
	return nn;
}

/* e is a column (level 0) of a table of q declared NOT NULL (themis_column_not_null), and q has no outer join */
static bool
column_not_null(Query *q, Node *e)
{
	Var		   *v;
	RangeTblEntry *rte;
	char	   *attname;

	while (e != NULL && IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	if (!is_column(e, 0) || !only_inner_joins((Node *) q->jointree))
		return false;
	v = (Var *) e;
	rte = rt_fetch(v->varno, q->rtable);
	if (rte->rtekind != RTE_RELATION || v->varattno <= 0)
		return false;
	attname = get_attname(rte->relid, v->varattno, true);
	return attname != NULL && themis_column_not_null(rte->relid, attname, rte->inh);
}

/*
 * NOT (x IN (SELECT y FROM ... WHERE ...)) where neither x nor y can be NULL is NOT EXISTS (SELECT ...
 * WHERE ... AND x = y): without NULLs both are true or false alike.  PostgreSQL turns the NOT EXISTS into
 * an anti join, which themis runs (NOT IN stays a hashed subplan filter of PostgreSQL's).  Also required:
 * the subquery is uncorrelated, a plain SELECT (no aggregates, grouping, DISTINCT, LIMIT, set operations,
 * volatile functions) of plain tables, and what it and the comparison evaluate cannot fail (the anti join
 * may read other rows than the hashed subplan).  TPC-H Q16.  Returns the new condition, or NULL.
 */
static Node *
notin_to_not_exists(Query *q, Node *c)
{
	SubLink    *s;
	Query	   *sq;
	OpExpr	   *op;
	Node	   *x;
	Node	   *p;
	TargetEntry *y;
	Query	   *nsq;
	Expr	   *cond;
	SubLink    *ns;
	ListCell   *lc;

	if (!IsA(c, BoolExpr) || ((BoolExpr *) c)->boolop != NOT_EXPR)
		return NULL;
	s = (SubLink *) linitial(((BoolExpr *) c)->args);
	if (!IsA(s, SubLink) || s->subLinkType != ANY_SUBLINK || !IsA(s->subselect, Query) || s->testexpr == NULL ||
		!IsA(s->testexpr, OpExpr) || list_length(((OpExpr *) s->testexpr)->args) != 2)
		return NULL;
	sq = (Query *) s->subselect;
	op = (OpExpr *) s->testexpr;
	x = (Node *) linitial(op->args);
	p = (Node *) lsecond(op->args);
	while (IsA(p, RelabelType))
		p = (Node *) ((RelabelType *) p)->arg;
	if (!IsA(p, Param) || ((Param *) p)->paramkind != PARAM_SUBLINK || ((Param *) p)->paramid != 1)
		return NULL;
	if (sq->commandType != CMD_SELECT || sq->hasAggs || sq->groupClause != NIL || sq->groupingSets != NIL ||
		sq->havingQual != NULL || sq->distinctClause != NIL || sq->sortClause != NIL ||
		sq->limitCount != NULL || sq->limitOffset != NULL || sq->hasWindowFuncs || sq->hasTargetSRFs ||
		sq->setOperations != NULL || sq->hasSubLinks || sq->cteList != NIL || sq->rowMarks != NIL ||
		sq->hasForUpdate || sq->jointree == NULL || list_length(sq->targetList) != 1)
		return keep_notin("the subquery is not a plain SELECT of one column");
	foreach(lc, sq->rtable)
		if (((RangeTblEntry *) lfirst(lc))->rtekind != RTE_RELATION &&
			((RangeTblEntry *) lfirst(lc))->rtekind != RTE_JOIN)
			return keep_notin("the subquery reads more than tables");
	y = (TargetEntry *) linitial(sq->targetList);
	if (max_level((Node *) sq) > 0 || contain_volatile_functions((Node *) sq))
		return keep_notin("the subquery is correlated or volatile");
	if (!column_not_null(q, x) || !column_not_null(sq, (Node *) y->expr))
		return keep_notin("a side may be NULL (only NOT NULL columns without outer joins qualify)");
	set_opfuncid(op);
	if (!func_cannot_fail(op->opfuncid) || may_fail_walker(sq->jointree->quals, NULL) ||
		join_quals_may_fail((Node *) sq->jointree))
		return keep_notin("a condition may fail on rows the subplan would not read");

	nsq = copyObject(sq);
	x = copyObject(x);
	IncrementVarSublevelsUp(x, 1, 0);
	cond = make_opclause(op->opno, BOOLOID, false, (Expr *) x, (Expr *) copyObject(y->expr), InvalidOid,
						 op->inputcollid);
	set_opfuncid((OpExpr *) cond);
	nsq->jointree->quals = ands_or_null(lappend(make_ands_implicit((Expr *) nsq->jointree->quals), cond));
	ns = makeNode(SubLink);
	ns->subLinkType = EXISTS_SUBLINK;
	ns->subLinkId = 0;
	ns->testexpr = NULL;
	ns->operName = NIL;
	ns->subselect = (Node *) nsq;
	ns->location = s->location;
	return (Node *) makeBoolExpr(NOT_EXPR, list_make1(ns), ((BoolExpr *) c)->location);
}

/* ---------- the walk over all query levels ---------- */

static bool
decorrelate_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		(void) decorrelate_query((Query *) node);
		return false;
	}
	return expression_tree_walker(node, decorrelate_walker, ctx);
}

/*
 * The max-over-a-view pattern (TPC-H Q15): a CTE that aggregates, referenced more than once, one
 * reference being a scalar subquery of q's WHERE that aggregates over it alone
 *   WITH v AS (SELECT k, sum(x) AS s FROM t GROUP BY k)
 *   SELECT ... FROM o, v WHERE o.k = v.k AND v.s = (SELECT max(s) FROM v)
 * PostgreSQL materializes v (its rows pass through a tuplestore, are read twice, the max and the
 * filter computed on the CPU: 71 of 107 ms of Q15 at SF 10 on an H200, the GPU's part 14 ms).  Marked
 * NOT MATERIALIZED, each reference plans the aggregation of its own (PostgreSQL's inline_cte decides as
 * for a CTE written so, with its own conditions: not recursive, SELECT, no volatile functions, no
 * self-reference), and each becomes a Themis node whose only output is the max or the rows that match
 * it.  The answer is the same: the CTE's query has no volatile functions, so both references read the
 * same rows under the statement's snapshot; its aggregates are exact (order_dependent_agg_walker:
 * no float sums, whose last bits depend on the order of the rows added); and nothing else in it may
 * give other rows from one evaluation to the next (nondeterministic_cte_walker: a LIMIT, ...).
 */
typedef struct ViewAggCtx
{
	const char *ctename;
	bool		found;
} ViewAggCtx;

static bool
view_agg_sublink_walker(Node *node, ViewAggCtx *c)
{
	if (node == NULL || c->found)
		return false;
	if (IsA(node, SubLink) && ((SubLink *) node)->subLinkType == EXPR_SUBLINK &&
		IsA(((SubLink *) node)->subselect, Query))
	{
		Query	   *sq = (Query *) ((SubLink *) node)->subselect;
		RangeTblEntry *rte;

		if (sq->commandType == CMD_SELECT && sq->hasAggs && sq->groupClause == NIL &&
			sq->setOperations == NULL && !sq->hasSubLinks && list_length(sq->rtable) == 1 &&
			list_length(sq->jointree->fromlist) == 1)
		{
			rte = linitial_node(RangeTblEntry, sq->rtable);
			if (rte->rtekind == RTE_CTE && rte->ctelevelsup == 1 && strcmp(rte->ctename, c->ctename) == 0)
				c->found = true;
		}
		return false;
	}
	return expression_tree_walker(node, view_agg_sublink_walker, (void *) c);
}

/*
 * Does an aggregate of the CTE's query give a result that may depend on the order of its rows?  Each
 * reference then computes it anew, maybe in another order (the GPU adds floats in no set order; so do
 * PostgreSQL's parallel workers), and the two may not compare equal.  Only count, sum, avg, min and max
 * of pg_catalog, none over or of a float type, are taken as exact.
 */
static bool
order_dependent_agg_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		Aggref	   *a = (Aggref *) node;
		char	   *name = get_func_name(a->aggfnoid);
		ListCell   *lc;
		bool		exact;

		exact = name != NULL && get_func_namespace(a->aggfnoid) == PG_CATALOG_NAMESPACE &&
			(strcmp(name, "count") == 0 || strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0 ||
			 strcmp(name, "min") == 0 || strcmp(name, "max") == 0) &&
			a->aggtype != FLOAT4OID && a->aggtype != FLOAT8OID;
		foreach(lc, a->aggargtypes)
			if (lfirst_oid(lc) == FLOAT4OID || lfirst_oid(lc) == FLOAT8OID)
				exact = false;
		if (!exact)
			return true;
	}
	return expression_tree_walker(node, order_dependent_agg_walker, context);
}

/*
 * Could two evaluations of the CTE's query, under the same snapshot, give different rows?  Then its
 * references must share one evaluation (the materialized CTE).  Besides volatile functions (checked by
 * the caller): a LIMIT or OFFSET (which rows it keeps may depend on the plan: its ORDER BY may have
 * ties), DISTINCT ON and window functions (which row of the peers), TABLESAMPLE, an order-dependent
 * aggregate (order_dependent_agg_walker), anywhere in its query tree, a reference to another CTE
 * (inlined into both copies by PostgreSQL, it would run twice too) or a function in FROM.
 */
static bool
nondeterministic_cte_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *sq = (Query *) node;

		if (sq->limitCount != NULL || sq->limitOffset != NULL || sq->hasDistinctOn || sq->hasWindowFuncs)
			return true;
		return query_tree_walker(sq, nondeterministic_cte_walker, context, QTW_EXAMINE_RTES_BEFORE);
	}
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		/* (a function in FROM: an SQL function inlined may hold any of these, another may vary) */
		return rte->tablesample != NULL || rte->rtekind == RTE_CTE || rte->rtekind == RTE_FUNCTION;
	}
	if (IsA(node, Aggref) && order_dependent_agg_walker(node, NULL))
		return true;
	return expression_tree_walker(node, nondeterministic_cte_walker, context);
}

static int
inline_view_ctes(Query *q)
{
	ListCell   *lc;
	int			n = 0;

	List	   *found = NIL;

	if (q->commandType != CMD_SELECT || q->jointree == NULL || q->jointree->quals == NULL ||
		q->cteList == NIL || themis_inline_view_ctes == THEMIS_TRI_OFF)
		return 0;
	foreach(lc, q->cteList)
	{
		CommonTableExpr *cte = lfirst_node(CommonTableExpr, lc);
		Query	   *cq = (Query *) cte->ctequery;
		ViewAggCtx	vc;

		if (cte->ctematerialized != CTEMaterializeDefault || cte->cterecursive || cte->cterefcount < 2 ||
			!IsA(cq, Query) || cq->commandType != CMD_SELECT || !(cq->hasAggs || cq->groupClause != NIL) ||
			cq->rowMarks != NIL || contain_volatile_functions((Node *) cq) ||
			nondeterministic_cte_walker((Node *) cq, NULL))
			continue;
		vc.ctename = cte->ctename;
		vc.found = false;
		(void) view_agg_sublink_walker(q->jointree->quals, &vc);
		if (vc.found)
			found = lappend(found, cte);
	}
	if (found == NIL)
		return 0;
	/*
	 * The aggregation then runs twice: worth it on the GPU, not on the CPU executor.  (Under
	 * themis.device = auto the planner rewrites subqueries only where the GPU is usable: planner.c.)
	 */
	if (themis_inline_view_ctes == THEMIS_TRI_AUTO && themis_device == THEMIS_DEVICE_CPU)
		return 0;
	foreach(lc, found)
	{
		((CommonTableExpr *) lfirst(lc))->ctematerialized = CTEMaterializeNever;
		n++;
	}
	if (n > 0 && themis_debug_ir)
		ereport(NOTICE, (errmsg("themis: %d aggregating CTE%s read by an aggregate over %s marked NOT MATERIALIZED",
								n, n == 1 ? "" : "s", n == 1 ? "it" : "them")));
	return n;
}

/*
 * The max-over-a-view pattern computed once: where the CTE is read exactly twice, by one FROM item of q
 * and by the scalar subquery of a top-level WHERE condition  v.s = (SELECT max(s) FROM v)  (or min),
 *   WITH v AS (SELECT k, sum(x) AS s FROM t GROUP BY k)
 *   SELECT ... FROM o, v WHERE o.k = v.k AND v.s = (SELECT max(s) FROM v)
 * becomes
 *   WITH v AS MATERIALIZED (SELECT k, sum(x) AS s FROM t GROUP BY k
 *                           ORDER BY s DESC NULLS LAST FETCH FIRST 1 ROW WITH TIES)
 *   SELECT ... FROM o, v WHERE o.k = v.k AND v.s IS NOT NULL
 * The rows with ties are those whose s equals the first row's under the ordering's equality, which is
 * the comparison's operator (required: the equality operator of max's sort operator's btree family,
 * same collation); NULLs sort last, so the first row's s is NULL only where max is NULL (every s NULL,
 * or v empty), and IS NOT NULL then drops every row, as  s = NULL  did.  v's query runs once instead of
 * twice (inline_view_ctes), and its rows are not stored and read twice (materialized, PostgreSQL's
 * plan): the Themis node under the Sort returns only the rows that can be first (topn.c), the largest
 * and its ties, and only those are stored.
 *
 * Only where v is an item of q's FROM list, of inner joins in it or on the preserved side of outer joins
 * (reached_unextended), and the condition a top-level AND condition of q's WHERE: filtering v's rows
 * before the joins is then what the WHERE did after them.  The other conditions on v's columns see only the rows with the largest s: they run
 * on fewer rows than they may have, which can only spare an error PostgreSQL's qual order might raise.
 */
typedef struct TiesCtx
{
	const char *ctename;
	int			refs;			/* references to the CTE below q (sublinks' and subqueries' RTEs) */
	int			depth;
} TiesCtx;

static bool
count_cte_refs_walker(Node *node, TiesCtx *c)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *sq = (Query *) node;
		ListCell   *lc;
		bool		r;

		c->depth++;
		foreach(lc, sq->rtable)
		{
			RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

			if (rte->rtekind == RTE_CTE && rte->ctelevelsup == c->depth &&
				strcmp(rte->ctename, c->ctename) == 0)
				c->refs++;
		}
		r = query_tree_walker(sq, count_cte_refs_walker, (void *) c, 0);
		c->depth--;
		return r;
	}
	return expression_tree_walker(node, count_cte_refs_walker, (void *) c);
}

/*
 * Is rtindex an item of jt reached through inner joins and the preserved sides of outer joins only?
 * Its rows are then never NULL-extended, and a WHERE condition on its columns alone drops the same
 * rows whether it filters them before the joins or after.
 */
static bool
reached_unextended(Node *jt, int rtindex)
{
	ListCell   *lc;

	if (jt == NULL)
		return false;
	if (IsA(jt, RangeTblRef))
		return ((RangeTblRef *) jt)->rtindex == rtindex;
	if (IsA(jt, FromExpr))
	{
		foreach(lc, ((FromExpr *) jt)->fromlist)
			if (reached_unextended((Node *) lfirst(lc), rtindex))
				return true;
		return false;
	}
	if (IsA(jt, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) jt;

		return ((j->jointype == JOIN_INNER || j->jointype == JOIN_LEFT) &&
				reached_unextended(j->larg, rtindex)) ||
			((j->jointype == JOIN_INNER || j->jointype == JOIN_RIGHT) &&
			 reached_unextended(j->rarg, rtindex));
	}
	return false;
}

/* is sq  SELECT max(col) FROM <the CTE>  (or min), nothing else?  Its Aggref if so */
static Aggref *
ties_subquery_agg(Query *sq, const char *ctename)
{
	RangeTblEntry *rte;
	TargetEntry *tle;
	Aggref	   *a;
	Var		   *v;
	char	   *fname;

	if (sq->commandType != CMD_SELECT || !sq->hasAggs || sq->groupClause != NIL ||
		sq->groupingSets != NIL || sq->havingQual != NULL || sq->sortClause != NIL ||
		sq->distinctClause != NIL || sq->limitCount != NULL || sq->limitOffset != NULL ||
		sq->hasWindowFuncs || sq->hasTargetSRFs || sq->setOperations != NULL || sq->hasSubLinks ||
		sq->cteList != NIL || sq->rowMarks != NIL || list_length(sq->rtable) != 1 ||
		sq->jointree == NULL || sq->jointree->quals != NULL || list_length(sq->jointree->fromlist) != 1 ||
		!IsA(linitial(sq->jointree->fromlist), RangeTblRef) || list_length(sq->targetList) != 1)
		return NULL;
	rte = linitial_node(RangeTblEntry, sq->rtable);
	if (rte->rtekind != RTE_CTE || rte->ctelevelsup != 1 || strcmp(rte->ctename, ctename) != 0)
		return NULL;
	tle = linitial_node(TargetEntry, sq->targetList);
	if (tle->resjunk || !IsA(tle->expr, Aggref))
		return NULL;
	a = (Aggref *) tle->expr;
	if (a->agglevelsup != 0 || a->aggstar || a->aggvariadic || a->aggdistinct != NIL ||
		a->aggorder != NIL || a->aggfilter != NULL || a->aggkind != AGGKIND_NORMAL ||
		list_length(a->args) != 1 || get_func_namespace(a->aggfnoid) != PG_CATALOG_NAMESPACE)
		return NULL;
	fname = get_func_name(a->aggfnoid);
	if (fname == NULL || (strcmp(fname, "max") != 0 && strcmp(fname, "min") != 0))
		return NULL;
	v = (Var *) linitial_node(TargetEntry, a->args)->expr;
	if (!IsA(v, Var) || v->varno != 1 || v->varlevelsup != 0 || v->varattno < 1)
		return NULL;
	return a;
}

/* the rewrite of one conjunct c of q, if it is  v.s = (SELECT max(s) FROM v) : the IS NOT NULL, or NULL */
static Node *
ties_conjunct(Query *q, Node *c)
{
	OpExpr	   *op;
	Var		   *col;
	SubLink    *sl;
	Aggref	   *agg;
	Var		   *aggcol;
	RangeTblEntry *rte;
	CommonTableExpr *cte = NULL;
	Query	   *cq;
	TargetEntry *stle;
	SortGroupClause *sgc;
	Oid			sortop;
	Oid			eqop;
	bool		reverse;
	Index		maxref = 0;
	ListCell   *lc;
	TiesCtx		tc;
	NullTest   *nt;
	HeapTuple	tup;

	if (!IsA(c, OpExpr) || list_length(((OpExpr *) c)->args) != 2)
		return NULL;
	op = (OpExpr *) c;
	col = (Var *) linitial(op->args);
	sl = (SubLink *) lsecond(op->args);
	if (IsA(col, SubLink))
	{
		col = (Var *) lsecond(op->args);
		sl = (SubLink *) linitial(op->args);
	}
	if (!IsA(col, Var) || col->varlevelsup != 0 || col->varattno < 1 || !IsA(sl, SubLink) ||
		sl->subLinkType != EXPR_SUBLINK || !IsA(sl->subselect, Query))
		return NULL;
	rte = rt_fetch(col->varno, q->rtable);
	if (rte->rtekind != RTE_CTE || rte->ctelevelsup != 0 || rte->self_reference)
		return NULL;
	agg = ties_subquery_agg((Query *) sl->subselect, rte->ctename);
	if (agg == NULL)
		return NULL;
	aggcol = (Var *) linitial_node(TargetEntry, agg->args)->expr;
	if (aggcol->varattno != col->varattno || aggcol->vartype != col->vartype ||
		agg->inputcollid != col->varcollid || op->inputcollid != col->varcollid)
		return NULL;
	/* the comparison is the equality of the aggregate's ordering */
	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(agg->aggfnoid));
	if (!HeapTupleIsValid(tup))
		return NULL;
	sortop = ((Form_pg_aggregate) GETSTRUCT(tup))->aggsortop;
	ReleaseSysCache(tup);
	if (!OidIsValid(sortop))
		return NULL;
	eqop = get_equality_op_for_ordering_op(sortop, &reverse);
	if (!OidIsValid(eqop) || eqop != op->opno)
		return NULL;
	/* v: never NULL-extended by a join, read nowhere else */
	if (!reached_unextended((Node *) q->jointree, col->varno))
		return NULL;
	foreach(lc, q->cteList)
		if (strcmp(lfirst_node(CommonTableExpr, lc)->ctename, rte->ctename) == 0)
			cte = lfirst_node(CommonTableExpr, lc);
	if (cte == NULL || cte->cterefcount != 2 || cte->ctematerialized == CTEMaterializeAlways ||
		cte->cterecursive || cte->search_clause != NULL || cte->cycle_clause != NULL ||
		!IsA(cte->ctequery, Query))
		return NULL;
	tc.ctename = rte->ctename;
	tc.refs = 0;
	tc.depth = 0;
	foreach(lc, q->rtable)
	{
		RangeTblEntry *r = lfirst_node(RangeTblEntry, lc);

		if (r->rtekind == RTE_CTE && r->ctelevelsup == 0 && strcmp(r->ctename, rte->ctename) == 0)
			tc.refs++;
	}
	(void) query_tree_walker(q, count_cte_refs_walker, (void *) &tc, 0);
	if (tc.refs != 2)
		return NULL;
	cq = (Query *) cte->ctequery;
	if (cq->commandType != CMD_SELECT || cq->sortClause != NIL || cq->limitCount != NULL ||
		cq->limitOffset != NULL || cq->distinctClause != NIL || cq->hasWindowFuncs ||
		cq->hasTargetSRFs || cq->setOperations != NULL || cq->rowMarks != NIL ||
		cq->hasModifyingCTE || cq->utilityStmt != NULL || contain_volatile_functions((Node *) cq))
		return NULL;
	stle = get_tle_by_resno(cq->targetList, col->varattno);
	if (stle == NULL || stle->resjunk || exprType((Node *) stle->expr) != col->vartype)
		return NULL;

	/* v's query, ordered by s (max: >, min: <) NULLS LAST, its first row with ties */
	cq = copyObject(cq);
	stle = get_tle_by_resno(cq->targetList, col->varattno);
	if (stle->ressortgroupref == 0)
	{
		foreach(lc, cq->targetList)
			maxref = Max(maxref, lfirst_node(TargetEntry, lc)->ressortgroupref);
		stle->ressortgroupref = maxref + 1;
	}
	sgc = makeNode(SortGroupClause);
	sgc->tleSortGroupRef = stle->ressortgroupref;
	sgc->eqop = eqop;
	sgc->sortop = sortop;
	sgc->nulls_first = false;
	sgc->hashable = false;
	cq->sortClause = list_make1(sgc);
	cq->limitCount = (Node *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(1),
										false, FLOAT8PASSBYVAL);
	cq->limitOption = LIMIT_OPTION_WITH_TIES;

	/*
	 * The CTE becomes that query, read once, and stays materialized: its cost then stays out of the
	 * join's (as PostgreSQL's own plan of the pattern has it), so that the join of its one or few rows
	 * is planned as such (lookups by an index), not as a merge join that reads the other table's index
	 * up to the key (whose extra cost is within 1% of the aggregation's).
	 */
	cte->ctequery = (Node *) cq;
	cte->cterefcount = 1;
	cte->ctematerialized = CTEMaterializeAlways;

	nt = makeNode(NullTest);
	nt->arg = (Expr *) copyObject(col);
	nt->nulltesttype = IS_NOT_NULL;
	nt->argisrow = false;
	nt->location = -1;
	return (Node *) nt;
}

static int
view_max_ties(Query *q)
{
	List	   *conj;
	List	   *out = NIL;
	ListCell   *lc;
	int			n = 0;

	if (!themis_view_max_ties || q->commandType != CMD_SELECT || q->jointree == NULL ||
		q->jointree->quals == NULL || q->cteList == NIL || !q->hasSubLinks ||
		q->setOperations != NULL || q->rowMarks != NIL || q->hasForUpdate || q->hasRecursive)
		return 0;
	conj = make_ands_implicit((Expr *) q->jointree->quals);
	foreach(lc, conj)
	{
		Node	   *r = ties_conjunct(q, (Node *) lfirst(lc));

		if (r != NULL)
			n++;
		out = lappend(out, r != NULL ? r : lfirst(lc));
	}
	if (n == 0)
		return 0;
	q->jointree->quals = ands_or_null(out);
	/* whether q still has sublinks: PostgreSQL plans them only if so */
	q->hasSubLinks = checkExprHasSubLink((Node *) q);
	if (themis_debug_ir)
		ereport(NOTICE, (errmsg("themis: %d max-over-a-view pattern%s computed once (the view's first row with ties)",
								n, n == 1 ? "" : "s")));
	return n;
}

/* q (in place), its inner queries first */
static Query *
decorrelate_query(Query *q)
{
	List	   *conj;
	List	   *out = NIL;
	ListCell   *lc;
	bool		changed = false;
	int			counter = 0;
	int			nnotin = 0;

	check_stack_depth();
	/* inner levels: sublinks' subqueries, FROM subqueries, CTEs */
	(void) query_tree_walker(q, decorrelate_walker, NULL, 0);
	ndone += view_max_ties(q);
	ndone += inline_view_ctes(q);

	if (q->commandType != CMD_SELECT || q->jointree == NULL || q->jointree->quals == NULL ||
		!q->hasSubLinks || q->setOperations != NULL || q->rowMarks != NIL || q->hasForUpdate)
		return q;
	conj = make_ands_implicit((Expr *) q->jointree->quals);
	foreach(lc, conj)
	{
		Node	   *c = (Node *) lfirst(lc);
		FindCtx		fc = {NULL, 0};
		List	   *repl = NIL;

		Node	   *ne = notin_to_not_exists(q, c);

		if (ne != NULL)
		{
			out = lappend(out, ne);
			changed = true;
			nnotin++;
			continue;
		}
		(void) find_sublink_walker(c, &fc);
		if (fc.n == 1)
			repl = decorrelate_conjunct(q, c, fc.found, &counter);
		if (repl != NIL)
		{
			out = list_concat(out, repl);
			changed = true;
		}
		else
			out = lappend(out, c);
	}
	if (changed)
	{
		ndone++;
		q->jointree->quals = ands_or_null(out);
		if (themis_debug_ir && counter > 0)
			ereport(NOTICE, (errmsg("themis: %d correlated subquer%s turned into a join with a grouped subquery",
									counter, counter == 1 ? "y" : "ies")));
		if (themis_debug_ir && nnotin > 0)
			ereport(NOTICE, (errmsg("themis: %d NOT IN turned into NOT EXISTS (no NULLs on either side)", nnotin)));
	}
	return q;
}

/*
 * The rewrite of parse (in place: the planner scribbles on its input anyway).  Called by the planner
 * hook before planning, when themis.enabled and themis.decorrelate are on.
 */
/* does any level of q have sublinks (the only thing the rewrites look at)?  Saves the copy otherwise */
static bool
has_sublinks_walker(Node *node, void *ctx)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		if (((Query *) node)->hasSubLinks)
			return true;
		return query_tree_walker((Query *) node, has_sublinks_walker, ctx, 0);
	}
	return expression_tree_walker(node, has_sublinks_walker, ctx);
}

bool
themis_decorrelate_candidate(Query *parse)
{
	return has_sublinks_walker((Node *) parse, NULL);
}

bool
themis_decorrelate(Query *parse)
{
	int			before = ndone;

	if (parse->commandType != CMD_SELECT && parse->commandType != CMD_INSERT &&
		parse->commandType != CMD_UPDATE && parse->commandType != CMD_DELETE)
		return false;
	if (parse->commandType == CMD_SELECT)
		(void) decorrelate_query(parse);
	else
		(void) query_tree_walker(parse, decorrelate_walker, NULL, 0);
	return ndone != before;
}
