/*
 * presort.c — a Sort directly above a Themis node: the node returns its rows in the Sort's order, so
 * PostgreSQL's sort finds them presorted.
 *
 * PostgreSQL's quicksort (lib/sort_template.h) first checks whether its input is already in order, which
 * costs n - 1 comparisons, and a bounded (LIMIT) sort drops each row at one comparison with its heap's
 * top once the input is in order; a full sort of a Themis node's result otherwise compares datums n log n
 * times through the sort operators' functions (TPC-H Q16 at SF 10: 27,840 groups by count DESC and three
 * text / integer keys, 32 ms in the Sort against 15 ms for the node).  The planner hook marks such a node
 * (themis_presort_mark) with the Sort's keys; after a run, where every key compares natively (integers,
 * dates, timestamps, numerics of one scale with the type's own < or >, as in topn.c; text and bpchar
 * with their < or > under a C collation: bytes, bpchar without trailing blanks), the node sorts its rows
 * by them (themis_presort_apply, on the values it holds) and returns them in that order.  The Sort above
 * still sorts: the order is a hint, never relied on, so a key that does not compare natively only means
 * no presort.  EXPLAIN ANALYZE checks the order with the Sort's own comparators (SortSupport) and says
 * whether the rows came in it ("Presorted Rows").
 *
 * Only where the rows the Sort sees are the node's result rows one for one: no qual on the node or the
 * Sort, every key a plain column of the node's scan tuple.  And not under a Limit that bounds the Sort
 * (PostgreSQL keeps a heap of LIMIT rows then) unless topn.c cut the rows first.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"

#include "themis.h"
#include "exec_node.h"

#define PRESORT_TAG		"themis presort"

/* the Themis node right under Sort, if the Sort's rows are its rows one for one */
static CustomScan *
presort_candidate(Sort *sort)
{
	CustomScan *cs;

	if (sort->numCols < 1 || sort->plan.qual != NIL || sort->plan.lefttree == NULL ||
		!IsA(sort->plan.lefttree, CustomScan))
		return NULL;
	cs = (CustomScan *) sort->plan.lefttree;
	if (cs->methods != &themis_scan_methods || cs->scan.plan.qual != NIL || cs->custom_private == NIL)
		return NULL;
	return cs;
}

/*
 * *arg: the Sorts under a Limit (directly or through a SubqueryScan), which PostgreSQL runs bounded: a
 * heap of the LIMIT's rows, n log LIMIT comparisons, cheaper than sorting all n rows here unless topn.c
 * already cut them to about LIMIT.  Collected while walking (a Limit is visited before its children).
 */
static void
presort_mark_node(Plan *plan, void *arg)
{
	List	  **bounded_sorts = (List **) arg;
	Sort	   *sort;
	CustomScan *cs;
	List	   *mark;
	ThemisTopN	topn;
	int			i;

	if (IsA(plan, Limit))
	{
		Plan	   *child = plan->lefttree;

		if (child != NULL && IsA(child, SubqueryScan) && child->qual == NIL)
			child = ((SubqueryScan *) child)->subplan;
		if (child != NULL && IsA(child, Sort))
			*bounded_sorts = lappend(*bounded_sorts, child);
		return;
	}
	if (!IsA(plan, Sort))
		return;
	sort = (Sort *) plan;
	cs = presort_candidate(sort);
	if (cs == NULL)
		return;
	if (list_member_ptr(*bounded_sorts, sort) && !themis_topn_get(cs, &topn))
		return;
	mark = list_make1(makeString(pstrdup(PRESORT_TAG)));
	for (i = 0; i < sort->numCols; i++)
	{
		int			col = themis_scan_column(cs, sort->sortColIdx[i]);

		if (col <= 0)
			return;
		mark = lappend(mark, list_make4(makeInteger(col), makeInteger((int) sort->sortOperators[i]),
										makeInteger((int) sort->collations[i]),
										makeInteger(sort->nullsFirst[i] ? 1 : 0)));
	}
	cs->custom_private = lappend(cs->custom_private, mark);
}

/* Mark the Themis nodes of a finished plan that sit right under a Sort. */
void
themis_presort_mark(PlannedStmt *stmt)
{
	List	   *bounded_sorts = NIL;

	themis_walk_plans(stmt, presort_mark_node, &bounded_sorts);
	list_free(bounded_sorts);
}

/* read a node's mark into *p (palloc'd keys): false if it has none */
bool
themis_presort_get(CustomScan *cs, ThemisPresort *p)
{
	ListCell   *lc;

	memset(p, 0, sizeof(*p));
	for_each_from(lc, cs->custom_private, 1)
	{
		List	   *l = (List *) lfirst(lc);
		ListCell   *kc;
		int			k = 0;

		if (!IsA(l, List) || list_length(l) < 2 || !IsA(linitial(l), String) ||
			strcmp(strVal(linitial(l)), PRESORT_TAG) != 0)
			continue;
		p->nkeys = list_length(l) - 1;
		p->keys = palloc0(sizeof(ThemisPresortKey) * p->nkeys);
		for_each_from(kc, l, 1)
		{
			List	   *key = (List *) lfirst(kc);

			p->keys[k].col = intVal(linitial(key)) - 1;
			p->keys[k].sortop = (Oid) intVal(lsecond(key));
			p->keys[k].collation = (Oid) intVal(lthird(key));
			p->keys[k].nulls_first = intVal(lfourth(key)) != 0;
			k++;
		}
		return true;
	}
	return false;
}

/* how a key compares natively */
typedef enum PresortCmp
{
	PRESORT_INT,				/* v.i */
	PRESORT_WIDE,				/* v.n (numeric of one scale) */
	PRESORT_TEXT,				/* bytes, then length (C collation) */
	PRESORT_BPCHAR				/* the same without trailing blanks */
} PresortCmp;

typedef struct PresortKeyState
{
	int			col;
	PresortCmp	how;
	bool		desc;
	bool		nulls_first;
} PresortKeyState;

/*
 * Key k of row i, as the sort compares it (vals[i * nkeys + k]): taken out of the result once, so a
 * comparison reads one small array instead of the result's columns, and a bpchar's trailing blanks are
 * counted once per row, not at every comparison
 */
typedef struct PresortVal
{
	tm_int128	n;				/* PRESORT_INT: the integer, PRESORT_WIDE: the scaled numeric */
	const char *p;				/* PRESORT_TEXT / BPCHAR: the bytes (bpchar: len without the blanks) */
	int32		len;
	bool		null;
} PresortVal;

typedef struct PresortCtx
{
	PresortKeyState *keys;
	int			nkeys;
	const PresortVal *vals;
} PresortCtx;

/* can key k of result column type t compare natively?  *how, *desc */
static bool
presort_native(const TmType *t, const ThemisPresortKey *k, PresortCmp *how, bool *desc)
{
	TypeCacheEntry *tc;

	if (t->kind == TM_K_TEXT || t->kind == TM_K_BPCHAR)
	{
		if (!OidIsValid(k->collation) || !lc_collate_is_c(k->collation))
			return false;
		tc = lookup_type_cache(t->pgtype, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		if (OidIsValid(tc->lt_opr) && k->sortop == tc->lt_opr)
			*desc = false;
		else if (OidIsValid(tc->gt_opr) && k->sortop == tc->gt_opr)
			*desc = true;
		else
			return false;
		*how = t->kind == TM_K_TEXT ? PRESORT_TEXT : PRESORT_BPCHAR;
		return true;
	}
	if (!themis_native_order(t, k->sortop, desc))
		return false;
	*how = t->kind == TM_K_NUMERIC ? PRESORT_WIDE : PRESORT_INT;
	return true;
}

static inline int32
bpchar_truelen(const char *p, int32 len)
{
	while (len > 0 && p[len - 1] == ' ')
		len--;
	return len;
}

/* rows a and b (indexes into cx->vals) in the Sort's order: < 0, 0, > 0 */
static inline int
presort_cmp(const int64 *a, const int64 *b, PresortCtx *cx)
{
	const PresortVal *va = &cx->vals[*a * cx->nkeys];
	const PresortVal *vb = &cx->vals[*b * cx->nkeys];

	for (int k = 0; k < cx->nkeys; k++)
	{
		const PresortKeyState *key = &cx->keys[k];
		int			r;

		if (va[k].null || vb[k].null)
		{
			if (va[k].null && vb[k].null)
				continue;
			return (va[k].null == key->nulls_first) ? -1 : 1;
		}
		if (key->how == PRESORT_INT || key->how == PRESORT_WIDE)
			r = (va[k].n > vb[k].n) - (va[k].n < vb[k].n);
		else
		{
			r = memcmp(va[k].p, vb[k].p, Min(va[k].len, vb[k].len));
			if (r == 0)
				r = (va[k].len > vb[k].len) - (va[k].len < vb[k].len);
			else
				r = r < 0 ? -1 : 1;
		}
		if (r != 0)
			return key->desc ? -r : r;
	}
	return 0;
}

/* presort_sort(int64 *idx, n, PresortCtx *): quicksort with presort_cmp inlined (lib/sort_template.h) */
#define ST_SORT presort_sort
#define ST_ELEMENT_TYPE int64
#define ST_COMPARE(a, b, cx) presort_cmp(a, b, cx)
#define ST_COMPARE_ARG_TYPE PresortCtx
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * With EXPLAIN ANALYZE: are rows[0 .. n) in the Sort's order by its own comparators?  (The presort is a
 * hint, so this is only a check of it, shown by EXPLAIN.)
 */
static bool
presort_in_order(const TmResultSet *rs, const ThemisPresort *p, const int64 *rows, int64 n)
{
	SortSupportData *ss = palloc0(sizeof(SortSupportData) * p->nkeys);
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "themis presort check",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old;
	bool		ok = true;

	for (int k = 0; k < p->nkeys; k++)
	{
		ss[k].ssup_cxt = CurrentMemoryContext;
		ss[k].ssup_collation = p->keys[k].collation;
		ss[k].ssup_nulls_first = p->keys[k].nulls_first;
		PrepareSortSupportFromOrderingOp(p->keys[k].sortop, &ss[k]);
	}
	for (int64 i = 1; i < n && ok; i++)
	{
		if ((i & 1023) == 0)
		{
			CHECK_FOR_INTERRUPTS();
			MemoryContextReset(tmp);
		}
		old = MemoryContextSwitchTo(tmp);
		for (int k = 0; k < p->nkeys; k++)
		{
			int			col = p->keys[k].col;
			bool		na = rs->nulls[col][rows[i - 1]];
			bool		nb = rs->nulls[col][rows[i]];
			Datum		da = na ? (Datum) 0 : tm_value_to_datum(&rs->values[col][rows[i - 1]], &rs->types[col]);
			Datum		db = nb ? (Datum) 0 : tm_value_to_datum(&rs->values[col][rows[i]], &rs->types[col]);
			int			c = ApplySortComparator(da, na, db, nb, &ss[k]);

			if (c < 0)
				break;
			if (c > 0)
			{
				ok = false;
				break;
			}
		}
		MemoryContextSwitchTo(old);
	}
	MemoryContextDelete(tmp);
	return ok;
}

/*
 * After a run (and the top-N cut): ts->rowmap / ts->nrowmap become the rows to return in the Sort's
 * order, where every key compares natively; allocated in the current memory context.  check: compare the
 * order with the Sort's comparators (EXPLAIN ANALYZE), into ts->presort_ordered.
 */
void
themis_presort_apply(ThemisScanState *ts, bool check)
{
	const ThemisPresort *p = &ts->presort;
	TmResultSet *rs = ts->result;
	PresortCtx	cx;
	PresortVal *vals;
	int64	   *rows,
			   *idx,
			   *orig;
	int64		n;

	if (rs == NULL || p->nkeys <= 0)
		return;
	cx.nkeys = p->nkeys;
	cx.keys = palloc(sizeof(PresortKeyState) * p->nkeys);
	for (int k = 0; k < p->nkeys; k++)
	{
		const ThemisPresortKey *key = &p->keys[k];

		if (key->col < 0 || key->col >= rs->ncols ||
			!presort_native(&rs->types[key->col], key, &cx.keys[k].how, &cx.keys[k].desc))
		{
			ts->presort_skipped++;
			pfree(cx.keys);
			return;
		}
		cx.keys[k].col = key->col;
		cx.keys[k].nulls_first = key->nulls_first;
	}
	n = ts->rowmap ? ts->nrowmap : rs->nrows;
	if (ts->rowmap)
		rows = ts->rowmap;
	else
	{
		rows = (int64 *) palloc(sizeof(int64) * Max(n, 1));
		for (int64 i = 0; i < n; i++)
			rows[i] = i;
	}
	vals = (PresortVal *) palloc_extended(sizeof(PresortVal) * Max(n, 1) * p->nkeys, MCXT_ALLOC_HUGE);
	idx = (int64 *) palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	for (int64 i = 0; i < n; i++)
	{
		idx[i] = i;
		for (int k = 0; k < p->nkeys; k++)
		{
			const PresortKeyState *key = &cx.keys[k];
			const TmValue *v = &rs->values[key->col][rows[i]];
			PresortVal *pv = &vals[i * p->nkeys + k];

			pv->null = rs->nulls[key->col][rows[i]];
			pv->n = 0;
			pv->p = NULL;
			pv->len = 0;
			if (pv->null)
				continue;
			if (key->how == PRESORT_INT)
				pv->n = v->i;
			else if (key->how == PRESORT_WIDE)
				pv->n = v->n;
			else
			{
				pv->p = v->s.p;
				pv->len = key->how == PRESORT_BPCHAR ? bpchar_truelen(v->s.p, v->s.len) : v->s.len;
			}
		}
	}
	cx.vals = vals;
	presort_sort(idx, (size_t) n, &cx);
	/* rows[i] = rows[idx[i]] (idx indexes the rows as they were) */
	orig = (int64 *) palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	memcpy(orig, rows, sizeof(int64) * n);
	for (int64 i = 0; i < n; i++)
		rows[i] = orig[idx[i]];
	pfree(orig);
	pfree(idx);
	pfree(vals);
	ts->rowmap = rows;
	ts->nrowmap = n;
	ts->presort_rows += n;
	if (check && !presort_in_order(rs, p, rows, n))
		ts->presort_unordered++;
	pfree(cx.keys);
}
