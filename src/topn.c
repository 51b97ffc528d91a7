/*
 * topn.c — ORDER BY ... LIMIT above a Themis node: return only the rows that can be in the top N.
 *
 * When PostgreSQL's plan is Limit -> Sort -> Custom Scan (Themis), the Sort reads every row of the
 * Themis node's result (TPC-H Q10 at SF 10: 388,503 groups for LIMIT 20), and each row is turned into
 * datums first.  The planner hook marks such a node (themis_topn_mark) with N = LIMIT + OFFSET and the
 * Sort's first key; after the node's result is computed, themis_topn_select keeps the rows whose first
 * sort key is at least as early in the Sort's order as the N-th earliest one: a superset of the rows
 * the Limit returns (ties at the boundary all kept), which the Sort and the Limit above then order and
 * cut exactly as before.  Keys are compared with the Sort's own operator (SortSupport: its collation,
 * NULLS FIRST / LAST), so the order is PostgreSQL's by construction; where that operator is the type's
 * default < or > and the type is an integer, date, timestamp or numeric (one scale per result column),
 * the values are compared as themis holds them instead, which is the same order without making datums.
 *
 * Only where the rows the Sort sees are the node's result rows one for one: no qual on the node, the
 * key a plain column of its scan tuple, a constant LIMIT (WITH TIES too: the Limit then returns the
 * rows tied with the N-th on every sort key, a subset of those kept).  And only where the node's
 * projection (computed by PostgreSQL for each row the node returns, before the Sort) cannot fail on a
 * row's values: PostgreSQL computes it for every row, so a row that raises an error (d + 30 past the
 * last date) must not be dropped by the cut (local fuzz s39-q201); leakproof functions and operators
 * only (contain_leaked_vars), the rest (e.g. avg()'s numeric_div) keeps every row; so does a volatile
 * function in it (nextval(): called once per row in PostgreSQL's plan).  The kept rows and N
 * show in EXPLAIN ("Top-N Rows").
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"

#include "themis.h"
#include "exec_node.h"
#include "gpu_run.h"

/* above this N the selection is not worth it (and its heap would be large) */
#define THEMIS_TOPN_MAX		100000

/* the Themis node under Sort under Limit, or NULL */
static CustomScan *
topn_candidate(Limit *limit, int64 *n)
{
	Sort	   *sort;
	CustomScan *cs;
	Const	   *cnt = (Const *) limit->limitCount;
	Const	   *off = (Const *) limit->limitOffset;
	int64		total;
	ListCell   *lc;

	if ((limit->limitOption != LIMIT_OPTION_COUNT && limit->limitOption != LIMIT_OPTION_WITH_TIES) ||
		cnt == NULL || !IsA(cnt, Const) ||
		cnt->constisnull || cnt->consttype != INT8OID)
		return NULL;
	if (off != NULL && (!IsA(off, Const) || off->consttype != INT8OID))
		return NULL;
	total = DatumGetInt64(cnt->constvalue);
	if (off != NULL && !off->constisnull)
		total += Max(DatumGetInt64(off->constvalue), 0);
	if (total < 1 || total > THEMIS_TOPN_MAX)
		return NULL;
	if (limit->plan.lefttree == NULL || !IsA(limit->plan.lefttree, Sort))
		return NULL;
	sort = (Sort *) limit->plan.lefttree;
	if (sort->numCols < 1 || sort->plan.qual != NIL || sort->plan.lefttree == NULL ||
		!IsA(sort->plan.lefttree, CustomScan))
		return NULL;
	cs = (CustomScan *) sort->plan.lefttree;
	if (cs->methods != &themis_scan_methods || cs->scan.plan.qual != NIL ||
		list_length(cs->custom_private) != 1)
		return NULL;
	/*
	 * the projection must not be able to fail on a row the cut would drop, nor call a volatile function
	 * (nextval(), random()): PostgreSQL calls it once for every row below the Sort
	 */
	foreach(lc, cs->scan.plan.targetlist)
		if (contain_leaked_vars((Node *) lfirst_node(TargetEntry, lc)->expr))
			return NULL;
	if (contain_volatile_functions((Node *) cs->scan.plan.targetlist))
		return NULL;
	*n = total;
	return cs;
}

/* the scan-tuple column (1-based) that the node's output column attno is, or 0 */
int
themis_scan_column(CustomScan *cs, AttrNumber attno)
{
	TargetEntry *tle;
	Var		   *v;

	if (attno < 1 || attno > list_length(cs->scan.plan.targetlist))
		return 0;
	tle = list_nth_node(TargetEntry, cs->scan.plan.targetlist, attno - 1);
	v = (Var *) tle->expr;
	if (v == NULL || !IsA(v, Var) || v->varno != INDEX_VAR || v->varattno < 1 ||
		v->varattno > list_length(cs->custom_scan_tlist))
		return 0;
	return v->varattno;
}

static void
topn_mark_node(Plan *plan, void *arg)
{
	if (IsA(plan, Limit))
	{
		int64		n;
		CustomScan *cs = topn_candidate((Limit *) plan, &n);

		if (cs != NULL)
		{
			Sort	   *sort = (Sort *) plan->lefttree;
			int			col = themis_scan_column(cs, sort->sortColIdx[0]);

			if (col > 0)
				cs->custom_private = lappend(cs->custom_private,
											 list_make5(makeConst(INT8OID, -1, InvalidOid, 8,
																  Int64GetDatum(n), false, FLOAT8PASSBYVAL),
														makeInteger(col),
														makeInteger((int) sort->sortOperators[0]),
														makeInteger((int) sort->collations[0]),
														makeInteger(sort->nullsFirst[0] ? 1 : 0)));
		}
	}
}

/* Mark the Themis nodes of a finished plan that sit under Sort under Limit. */
void
themis_topn_mark(PlannedStmt *stmt)
{
	themis_walk_plans(stmt, topn_mark_node, NULL);
}

/* read a node's mark: false if it has none */
bool
themis_topn_get(CustomScan *cs, ThemisTopN *t)
{
	List	   *l;

	memset(t, 0, sizeof(*t));
	if (list_length(cs->custom_private) < 2)
		return false;
	l = (List *) lsecond(cs->custom_private);
	if (!IsA(l, List) || list_length(l) != 5 || !IsA(linitial(l), Const))	/* (not presort.c's mark) */
		return false;
	t->n = DatumGetInt64(((Const *) linitial(l))->constvalue);
	t->col = intVal(lsecond(l)) - 1;
	t->sortop = (Oid) intVal(lthird(l));
	t->collation = (Oid) intVal(lfourth(l));
	t->nulls_first = intVal(list_nth(l, 4)) != 0;
	return t->n > 0;
}

typedef struct TopNKey
{
	Datum		d;				/* SortSupport comparison */
	TmValue		v;				/* native comparison */
	bool		isnull;
} TopNKey;

typedef struct TopNCmp
{
	SortSupportData ssd;
	bool		native;			/* compare v, else d with ssd */
	bool		wide;			/* native: v.n (numeric), else v.i */
	bool		desc;			/* native: the Sort's operator is > */
} TopNCmp;

static inline int
key_cmp(const TopNKey *a, const TopNKey *b, const TopNCmp *cmp)
{
	int			r;

	if (!cmp->native)
		return ApplySortComparator(a->d, a->isnull, b->d, b->isnull, (SortSupport) &cmp->ssd);
	if (a->isnull || b->isnull)
	{
		if (a->isnull && b->isnull)
			return 0;
		return (a->isnull == cmp->ssd.ssup_nulls_first) ? -1 : 1;
	}
	if (cmp->wide)
		r = (a->v.n > b->v.n) - (a->v.n < b->v.n);
	else
		r = (a->v.i > b->v.i) - (a->v.i < b->v.i);
	return cmp->desc ? -r : r;
}

/* kinds whose values (int64 / scaled int128) order as the type's btree operators do */
bool
themis_native_order(const TmType *t, Oid sortop, bool *desc)
{
	TypeCacheEntry *tc;

	switch (t->kind)
	{
		case TM_K_INT2:
		case TM_K_INT4:
		case TM_K_INT8:
		case TM_K_DATE:
		case TM_K_TIMESTAMP:
		case TM_K_NUMERIC:
			break;
		default:
			return false;
	}
	tc = lookup_type_cache(t->pgtype, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	if (OidIsValid(tc->lt_opr) && sortop == tc->lt_opr)
		*desc = false;
	else if (OidIsValid(tc->gt_opr) && sortop == tc->gt_opr)
		*desc = true;
	else
		return false;
	return true;
}

/* the max-heap (by sort order: the latest key on top) of the n earliest keys seen */
static void
heap_sift_down(TopNKey *h, int n, int i, const TopNCmp *ss)
{
	for (;;)
	{
		int			l = 2 * i + 1,
					r = l + 1,
					m = i;
		TopNKey		t;

		if (l < n && key_cmp(&h[l], &h[m], ss) > 0)
			m = l;
		if (r < n && key_cmp(&h[r], &h[m], ss) > 0)
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void
heap_sift_up(TopNKey *h, int i, const TopNCmp *ss)
{
	while (i > 0)
	{
		int			p = (i - 1) / 2;
		TopNKey		t;

		if (key_cmp(&h[i], &h[p], ss) <= 0)
			return;
		t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

static void
key_of(const TmResultSet *rs, int col, int64 row, const TopNCmp *cmp, TopNKey *k)
{
	k->isnull = rs->nulls[col][row];
	k->v = rs->values[col][row];
	k->d = (k->isnull || cmp->native) ? (Datum) 0 : tm_value_to_datum(&k->v, &rs->types[col]);
}

/*
 * The cut the GPU daemon can make before the result leaves the device (tm_gpu_pool_set_topn): where the
 * key orders natively (themis_native_order: integers, dates, timestamps, numerics of one scale, with the type's
 * own < or >), the same selection as themis_topn_select below, on the device's values; false otherwise.
 */
bool
themis_topn_device(ThemisScanState *ts, TmGpuRunTopN *d)
{
	const TmPlan *plan = ts->plan;
	const TmResult *out;

	memset(d, 0, sizeof(*d));
	if (ts->topn.n <= 0 || plan == NULL || plan->output_result < 0 || plan->output_result >= plan->nresults)
		return false;
	out = &plan->results[plan->output_result];
	if (ts->topn.col < 0 || ts->topn.col >= out->ncols ||
		!themis_native_order(&out->coltypes[ts->topn.col], ts->topn.sortop, &d->desc))
		return false;
	d->n = ts->topn.n;
	d->col = ts->topn.col;
	d->nulls_first = ts->topn.nulls_first;
	return true;
}

/*
 * After a run: the rows of ts->result that can be among the first t->n in the Sort's order, as
 * ts->rowmap / ts->nrowmap (in result order), allocated in the current memory context.  Leaves
 * ts->rowmap NULL where every row is kept.
 */
void
themis_topn_select(ThemisScanState *ts, const ThemisTopN *t)
{
	TmResultSet *rs = ts->result;
	TopNCmp		cmp;
	MemoryContext tmp,
				old;
	TopNKey    *heap;
	int			nh = 0;
	int16		typlen;
	bool		typbyval;
	int64		kept = 0,
				cap;

	ts->rowmap = NULL;
	ts->nrowmap = 0;
	if (rs == NULL || t->col < 0 || t->col >= rs->ncols || rs->nrows <= t->n)
		return;
	get_typlenbyval(rs->types[t->col].pgtype, &typlen, &typbyval);

	memset(&cmp, 0, sizeof(cmp));
	cmp.ssd.ssup_cxt = CurrentMemoryContext;
	cmp.ssd.ssup_collation = t->collation;
	cmp.ssd.ssup_nulls_first = t->nulls_first;
	cmp.native = themis_native_order(&rs->types[t->col], t->sortop, &cmp.desc);
	cmp.wide = rs->types[t->col].kind == TM_K_NUMERIC;
	if (!cmp.native)
		PrepareSortSupportFromOrderingOp(t->sortop, &cmp.ssd);
	else
		typbyval = true;		/* nothing to copy: the keys are the TmValues */

	tmp = AllocSetContextCreate(CurrentMemoryContext, "themis top-N", ALLOCSET_DEFAULT_SIZES);
	heap = (TopNKey *) palloc(sizeof(TopNKey) * t->n);

	/* pass 1: the n earliest keys (copies of them in the heap) */
	for (int64 row = 0; row < rs->nrows; row++)
	{
		TopNKey		k;

		if ((row & 1023) == 0)
		{
			CHECK_FOR_INTERRUPTS();
			MemoryContextReset(tmp);
		}
		old = MemoryContextSwitchTo(tmp);
		key_of(rs, t->col, row, &cmp, &k);
		MemoryContextSwitchTo(old);
		if (nh < t->n)
		{
			if (!k.isnull)
				k.d = datumCopy(k.d, typbyval, typlen);
			heap[nh++] = k;
			heap_sift_up(heap, nh - 1, &cmp);
		}
		else if (key_cmp(&k, &heap[0], &cmp) < 0)
		{
			if (!heap[0].isnull && !typbyval)
				pfree(DatumGetPointer(heap[0].d));
			if (!k.isnull)
				k.d = datumCopy(k.d, typbyval, typlen);
			heap[0] = k;
			heap_sift_down(heap, nh, 0, &cmp);
		}
	}

	/* pass 2: every row whose key is not later than the n-th (heap[0]) */
	cap = Max(t->n, 1);
	ts->rowmap = (int64 *) palloc(sizeof(int64) * cap);
	for (int64 row = 0; row < rs->nrows; row++)
	{
		TopNKey		k;
		int			c;

		if ((row & 1023) == 0)
		{
			CHECK_FOR_INTERRUPTS();
			MemoryContextReset(tmp);
		}
		old = MemoryContextSwitchTo(tmp);
		key_of(rs, t->col, row, &cmp, &k);
		c = key_cmp(&k, &heap[0], &cmp);
		MemoryContextSwitchTo(old);
		if (c <= 0)
		{
			if (kept == cap)
			{
				cap *= 2;
				ts->rowmap = (int64 *) repalloc_huge(ts->rowmap, sizeof(int64) * cap);
			}
			ts->rowmap[kept++] = row;
		}
	}
	ts->nrowmap = kept;
	MemoryContextDelete(tmp);
	for (int i = 0; i < nh; i++)
		if (!heap[i].isnull && !typbyval)
			pfree(DatumGetPointer(heap[i].d));
	pfree(heap);
}
