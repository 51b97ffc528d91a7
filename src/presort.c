/*
 * presort.c — a Sort directly above a Themis node: the node returns its rows in the Sort's order, and
 * where that order is certain at plan time the Sort is dropped (elided) and the node guarantees it.
 *
 * A Sort above a Themis node copies every result row into a tuplesort, compares datums through the sort
 * operators' functions n log n times and returns the rows again (TPC-H Q16 at SF 10: 27,840 groups by a
 * count DESC and three text / integer keys, 17 ms of a 68 ms query).  The planner hook marks such a node
 * (themis_presort_mark) with the Sort's keys; after a run (and the top-N cut), where every key compares
 * natively (integers, dates, timestamps, numerics of one scale with the type's own < or >, as in topn.c;
 * text and bpchar with their < or > under a C collation: bytes, bpchar without trailing blanks), the
 * node sorts the rows it returns by them on the values it holds (themis_presort_apply).
 *
 * Marked only where the rows the Sort sees are the node's result rows one for one: no qual on the node
 * or the Sort, every key a plain column of the node's scan tuple; and not under a Limit that bounds the
 * Sort (PostgreSQL keeps a heap of LIMIT rows then) unless topn.c cut the rows first.
 *
 * Elided (themis_presort_elide), after marking, where also
 *   - the Sort is the statement's top node, or the direct child of a Limit that is (nothing above needs
 *     mark / restore, a rescan in another order or a Merge Join's input: nothing but the client and a
 *     Limit sees the rows), in a SELECT;
 *   - the portal cannot scroll backwards: no SCROLL cursor, and planned as a statement (parallel-OK:
 *     the simple and extended protocols, SQL functions, CREATE TABLE AS, PL/pgSQL statements) or as a
 *     NO SCROLL cursor; a cursor declared without either may scroll where its top node can scan
 *     backwards, which a Sort can and a Themis node cannot;
 *   - every key compares natively, decided from the node's plan (the output column's TmType, the key's
 *     operator and collation), so the native sort always applies;
 *   - the Sort does not project: its targetlist is OUTER_VAR references to its child's columns one for
 *     one, and the kept PostgreSQL plan (custom_plans[0], the fallback) has the same columns.
 * The node takes the Sort's place (its targetlist's names and junk flags, its initplans and parameter
 * sets), and the fallback becomes Sort(kept plan) with the same keys (kept-plan tuples are the node's
 * output tuples, column for column), unless the kept plan is itself such a Sort.  At run time, a key
 * that does not compare natively after all is sorted with PostgreSQL's comparators (SortSupport) rather
 * than returned unsorted.  EXPLAIN shows the keys as "Sort Key" on the node (or "Presort Keys: n" where
 * the Sort stays); EXPLAIN ANALYZE checks the order with the Sort's own comparators ("Presorted Rows").
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "optimizer/optimizer.h"
#include "port/pg_bswap.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/sortsupport.h"
#include "utils/typcache.h"

#include "themis.h"
#include "colbuild.h"
#include "exec_node.h"

#define PRESORT_TAG		"themis presort"

/*
 * The mark in custom_private: (PRESORT_TAG, elided, key, ...), elided 1 where the Sort was dropped, each
 * key (scan-tuple column 1-based, sort operator, collation, nulls first, output column 1-based).
 */
#define PRESORT_HEAD	2

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
	mark = list_make2(makeString(pstrdup(PRESORT_TAG)), makeInteger(0));
	for (i = 0; i < sort->numCols; i++)
	{
		int			col = themis_scan_column(cs, sort->sortColIdx[i]);

		if (col <= 0)
			return;
		mark = lappend(mark, list_make5(makeInteger(col), makeInteger((int) sort->sortOperators[i]),
										makeInteger((int) sort->collations[i]),
										makeInteger(sort->nullsFirst[i] ? 1 : 0),
										makeInteger(sort->sortColIdx[i])));
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

/* the node's mark (a List in custom_private), or NULL */
static List *
presort_mark_of(CustomScan *cs)
{
	ListCell   *lc;

	for_each_from(lc, cs->custom_private, 1)
	{
		List	   *l = (List *) lfirst(lc);

		if (IsA(l, List) && list_length(l) > PRESORT_HEAD && IsA(linitial(l), String) &&
			strcmp(strVal(linitial(l)), PRESORT_TAG) == 0)
			return l;
	}
	return NIL;
}

/* read a node's mark into *p (palloc'd keys): false if it has none */
bool
themis_presort_get(CustomScan *cs, ThemisPresort *p)
{
	List	   *l = presort_mark_of(cs);
	ListCell   *kc;
	int			k = 0;

	memset(p, 0, sizeof(*p));
	if (l == NIL)
		return false;
	p->elided = intVal(lsecond(l)) != 0;
	p->nkeys = list_length(l) - PRESORT_HEAD;
	p->keys = palloc0(sizeof(ThemisPresortKey) * p->nkeys);
	for_each_from(kc, l, PRESORT_HEAD)
	{
		List	   *key = (List *) lfirst(kc);

		p->keys[k].col = intVal(linitial(key)) - 1;
		p->keys[k].sortop = (Oid) intVal(lsecond(key));
		p->keys[k].collation = (Oid) intVal(lthird(key));
		p->keys[k].nulls_first = intVal(lfourth(key)) != 0;
		p->keys[k].attno = (AttrNumber) intVal(list_nth(key, 4));
		k++;
	}
	return true;
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

typedef struct PresortCtx
{
	PresortKeyState *keys;
	int			nkeys;
	const TmResultSet *rs;		/* the rows sorted (by row number) */
	int			nwords;			/* PresortRec words that any row's prefix reaches (the others are 0) */
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

/* ---- dropping the Sort (themis_presort_elide) ---- */

/*
 * Does sort (right above cs) pass cs's rows through as they are?  Its targetlist must be OUTER_VAR
 * references to cs's columns in order, of the same types (setrefs.c's dummy tlist of a Sort).
 */
static bool
presort_passes_through(Sort *sort, CustomScan *cs)
{
	ListCell   *a,
			   *b;
	int			i = 0;

	if (list_length(sort->plan.targetlist) != list_length(cs->scan.plan.targetlist))
		return false;
	forboth(a, sort->plan.targetlist, b, cs->scan.plan.targetlist)
	{
		TargetEntry *st = lfirst_node(TargetEntry, a);
		TargetEntry *ct = lfirst_node(TargetEntry, b);
		Var		   *v = (Var *) st->expr;

		i++;
		if (st->resno != i || ct->resno != i || v == NULL || !IsA(v, Var) || v->varno != OUTER_VAR ||
			v->varattno != i || v->varlevelsup != 0 ||
			v->vartype != exprType((Node *) ct->expr) ||
			v->vartypmod != exprTypmod((Node *) ct->expr) ||
			v->varcollid != exprCollation((Node *) ct->expr))
			return false;
	}
	return true;
}

/* does the kept plan return the node's columns (its tuples are the node's output, column for column)? */
static bool
presort_same_columns(Plan *kept, CustomScan *cs)
{
	ListCell   *a,
			   *b;

	if (list_length(kept->targetlist) != list_length(cs->scan.plan.targetlist))
		return false;
	forboth(a, kept->targetlist, b, cs->scan.plan.targetlist)
		if (exprType((Node *) lfirst_node(TargetEntry, a)->expr) !=
			exprType((Node *) lfirst_node(TargetEntry, b)->expr))
			return false;
	return true;
}

/* does every key compare natively, by the types of the node's plan output? */
static bool
presort_native_at_plan(CustomScan *cs, const ThemisPresort *p)
{
	Const	   *blob = (Const *) linitial(cs->custom_private);
	MemoryContext tmp,
				old;
	TmPlan	   *plan;
	bool		ok = true;

	if (!IsA(blob, Const) || blob->constisnull || blob->consttype != BYTEAOID)
		return false;
	tmp = AllocSetContextCreate(CurrentMemoryContext, "themis presort plan", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);
	plan = tm_plan_deserialize(DatumGetByteaPP(blob->constvalue));
	if (plan->output_result < 0 || plan->output_result >= plan->nresults)
		ok = false;
	for (int k = 0; ok && k < p->nkeys; k++)
	{
		const TmResult *out = &plan->results[plan->output_result];
		PresortCmp	how;
		bool		desc;

		ok = p->keys[k].col >= 0 && p->keys[k].col < out->ncols &&
			presort_native(&out->coltypes[p->keys[k].col], &p->keys[k], &how, &desc);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	return ok;
}

/* is plan a Sort by the same keys as sort (its rows then come in that order already)? */
static bool
presort_sorts_alike(Plan *plan, Sort *sort)
{
	Sort	   *s = (Sort *) plan;

	if (!IsA(plan, Sort) || s->numCols != sort->numCols)
		return false;
	for (int i = 0; i < s->numCols; i++)
		if (s->sortColIdx[i] != sort->sortColIdx[i] || s->sortOperators[i] != sort->sortOperators[i] ||
			s->collations[i] != sort->collations[i] || s->nullsFirst[i] != sort->nullsFirst[i])
			return false;
	return true;
}

/*
 * Sort(kept) by sort's keys: the fallback of a node that guarantees the order.  The kept plan's tuples
 * are the node's output tuples, so the Sort's key columns (positions in the node's targetlist) are the
 * same positions in the kept plan's; the targetlist passes its columns through (OUTER_VAR references).
 */
static Plan *
presort_fallback_sort(Sort *sort, Plan *kept, int *next_node_id)
{
	Sort	   *s = makeNode(Sort);
	double		rows = Max(kept->plan_rows, 2.0);
	ListCell   *lc;

	foreach(lc, kept->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		TargetEntry *n = flatCopyTargetEntry(tle);

		n->expr = (Expr *) makeVarFromTargetEntry(OUTER_VAR, tle);
		s->plan.targetlist = lappend(s->plan.targetlist, n);
	}
	s->plan.lefttree = kept;
	s->plan.plan_rows = kept->plan_rows;
	s->plan.plan_width = kept->plan_width;
	s->plan.startup_cost = kept->total_cost + 2.0 * cpu_operator_cost * rows * log2(rows);
	s->plan.total_cost = s->plan.startup_cost + cpu_operator_cost * rows;
	s->plan.parallel_safe = kept->parallel_safe;
	s->plan.plan_node_id = (*next_node_id)++;
	s->plan.extParam = bms_copy(kept->extParam);
	s->plan.allParam = bms_copy(kept->allParam);
	s->numCols = sort->numCols;
	s->sortColIdx = palloc(sizeof(AttrNumber) * sort->numCols);
	s->sortOperators = palloc(sizeof(Oid) * sort->numCols);
	s->collations = palloc(sizeof(Oid) * sort->numCols);
	s->nullsFirst = palloc(sizeof(bool) * sort->numCols);
	memcpy(s->sortColIdx, sort->sortColIdx, sizeof(AttrNumber) * sort->numCols);
	memcpy(s->sortOperators, sort->sortOperators, sizeof(Oid) * sort->numCols);
	memcpy(s->collations, sort->collations, sizeof(Oid) * sort->numCols);
	memcpy(s->nullsFirst, sort->nullsFirst, sizeof(bool) * sort->numCols);
	return (Plan *) s;
}

/*
 * After themis_presort_mark: where the statement's top node, or the child of a top Limit, is a Sort over
 * a marked Themis node whose keys all compare natively, the node takes the Sort's place and guarantees
 * its order (the conditions: this file's header).  cursorOptions: the planner's; *next_node_id: the next
 * free plan_node_id (for the fallback's Sort).
 */
void
themis_presort_elide(PlannedStmt *stmt, int cursorOptions, int *next_node_id)
{
	Plan	  **link;
	Sort	   *sort;
	CustomScan *cs;
	ThemisPresort p;
	Plan	   *kept;
	List	   *mark;
	List	   *tl = NIL;
	ListCell   *a,
			   *b;

	if (stmt->commandType != CMD_SELECT || stmt->planTree == NULL)
		return;
	/* a portal that may fetch backwards: the Sort can, the node cannot */
	if ((cursorOptions & CURSOR_OPT_SCROLL) != 0 ||
		(cursorOptions & (CURSOR_OPT_NO_SCROLL | CURSOR_OPT_PARALLEL_OK)) == 0)
		return;
	link = &stmt->planTree;
	if (IsA(*link, Limit))
		link = &(*link)->lefttree;
	if (*link == NULL || !IsA(*link, Sort))
		return;
	sort = (Sort *) *link;
	cs = presort_candidate(sort);
	if (cs == NULL || cs->custom_plans == NIL || !themis_presort_get(cs, &p) || p.elided ||
		p.nkeys != sort->numCols || !presort_passes_through(sort, cs))
		return;
	for (int k = 0; k < p.nkeys; k++)
		if (p.keys[k].attno != sort->sortColIdx[k] || p.keys[k].sortop != sort->sortOperators[k] ||
			p.keys[k].collation != sort->collations[k] || p.keys[k].nulls_first != sort->nullsFirst[k])
			return;
	kept = (Plan *) linitial(cs->custom_plans);
	if (!presort_same_columns(kept, cs) || !presort_native_at_plan(cs, &p))
		return;

	/* the fallback returns the kept plan's rows: in the same order */
	if (!presort_sorts_alike(kept, sort))
		linitial(cs->custom_plans) = presort_fallback_sort(sort, kept, next_node_id);

	/* the node's columns as the Sort's (names, junk flags: what the top node says the client gets) */
	forboth(a, sort->plan.targetlist, b, cs->scan.plan.targetlist)
	{
		TargetEntry *n = flatCopyTargetEntry(lfirst_node(TargetEntry, a));

		n->expr = lfirst_node(TargetEntry, b)->expr;
		tl = lappend(tl, n);
	}
	cs->scan.plan.targetlist = tl;
	/* the Sort's initplans (a top node holds the query's) and parameter sets, which cover the node's */
	cs->scan.plan.initPlan = list_concat(sort->plan.initPlan, cs->scan.plan.initPlan);
	cs->scan.plan.extParam = bms_copy(sort->plan.extParam);
	cs->scan.plan.allParam = bms_copy(sort->plan.allParam);
	mark = presort_mark_of(cs);
	lsecond(mark) = makeInteger(1);
	*link = (Plan *) cs;
}

static inline int32
bpchar_truelen(const char *p, int32 len)
{
	while (len > 0 && p[len - 1] == ' ')
		len--;
	return len;
}

/* the bytes a string key compares: a bpchar's without its trailing blanks */
static inline int32
presort_strlen(const PresortKeyState *key, const TmValue *v)
{
	return key->how == PRESORT_BPCHAR ? bpchar_truelen(v->s.p, v->s.len) : v->s.len;
}

/* result rows a and b in the Sort's order: < 0, 0, > 0 */
static int
presort_cmp(int64 a, int64 b, const PresortCtx *cx)
{
	const TmResultSet *rs = cx->rs;

	for (int k = 0; k < cx->nkeys; k++)
	{
		const PresortKeyState *key = &cx->keys[k];
		bool		na = rs->nulls[key->col][a];
		bool		nb = rs->nulls[key->col][b];
		const TmValue *va = &rs->values[key->col][a];
		const TmValue *vb = &rs->values[key->col][b];
		int			r;

		if (na || nb)
		{
			if (na && nb)
				continue;
			return (na == key->nulls_first) ? -1 : 1;
		}
		if (key->how == PRESORT_INT)
			r = (va->i > vb->i) - (va->i < vb->i);
		else if (key->how == PRESORT_WIDE)
			r = (va->n > vb->n) - (va->n < vb->n);
		else
		{
			int32		la = presort_strlen(key, va);
			int32		lb = presort_strlen(key, vb);

			r = memcmp(va->s.p, vb->s.p, Min(la, lb));
			if (r == 0)
				r = (la > lb) - (la < lb);
			else
				r = r < 0 ? -1 : 1;
		}
		if (r != 0)
			return key->desc ? -r : r;
	}
	return 0;
}

/*
 * The rows are sorted as records holding a normalized prefix of their keys: bytes whose memcmp order is
 * the keys' order as far as they go, and the row number for presort_cmp where two prefixes are equal.
 * One array of records is all the memory the sort takes: the former array of every row's keys (48
 * bytes a key) and its index arrays, fresh memory at each run, cost a page fault per 4 kB: 28.8 ms
 * for the 27,840 rows of TPC-H Q16 (SF 10, H200 host), most of its warm time.
 *
 * Per key: one byte for NULL (0 where NULLs sort first, 2 where last, 1 for a value; a NULL's key ends
 * there), then for a value
 *   - an integer (PRESORT_INT): 8 bytes big-endian with the sign bit flipped; a numeric (PRESORT_WIDE):
 *     16 such bytes;
 *   - a string (a bpchar without its trailing blanks): its bytes and a zero byte (a text holds no zero
 *     byte, so a string sorts before the longer ones it begins, as in presort_cmp, and two equal strings
 *     end at the same place, where the next key starts);
 *   - descending: those value bytes inverted.
 * Where the prefix is full, what does not fit is left out: rows equal so far tie, and presort_cmp decides.
 * The record holds the prefix as 8-byte words, each the integer whose big-endian bytes they are, so that
 * comparing the words as integers, first to last, is comparing the bytes: a few integer comparisons,
 * inlined, instead of a memcmp call of the whole prefix; only the words some row's prefix reaches are
 * compared (PresortCtx.nwords); ascending strings go in with memcpy.  TPC-H Q16's 27,840 rows at SF 10
 * (keys that tie on their first 10-20 bytes: few distinct counts, then "Brand#"), on a 2-core
 * development machine: Presort Time 5.2 -> 3.9 ms (the prefixes about 1.6 -> 1.0 ms, the sort about
 * 3.4 -> 2.8 ms).
 */
#define PRESORT_PREFIX		64
#define PRESORT_WORDS		(PRESORT_PREFIX / 8)

typedef struct PresortRec
{
	uint64		k[PRESORT_WORDS];
	int64		row;			/* the result row */
} PresortRec;

/* append n bytes of v (inverted if desc) at k + *pos, as many as fit; false if not all did */
static inline bool
prefix_put(uint8 *k, int *pos, const uint8 *v, int n, bool desc)
{
	int			m = Min(n, PRESORT_PREFIX - *pos);

	if (!desc)
		memcpy(k + *pos, v, m);
	else
		for (int i = 0; i < m; i++)
			k[*pos + i] = (uint8) ~v[i];
	*pos += m;
	return m == n;
}

/* the normalized prefix of result row i's keys into k (PRESORT_PREFIX bytes); the bytes it wrote */
static int
presort_prefix(const PresortCtx *cx, int64 i, uint8 *k)
{
	int			pos = 0;

	memset(k, 0, PRESORT_PREFIX);
	for (int j = 0; j < cx->nkeys && pos < PRESORT_PREFIX; j++)
	{
		const PresortKeyState *key = &cx->keys[j];
		bool		null = cx->rs->nulls[key->col][i];
		const TmValue *v = &cx->rs->values[key->col][i];
		uint8		b[16];
		int			n;

		k[pos++] = null ? (key->nulls_first ? 0 : 2) : 1;
		if (null)
			continue;
		if (key->how == PRESORT_INT)
		{
			uint64		u = (uint64) v->i ^ ((uint64) 1 << 63);

			for (n = 0; n < 8; n++)
				b[n] = (uint8) (u >> (56 - 8 * n));
		}
		else if (key->how == PRESORT_WIDE)
		{
			unsigned __int128 u = (unsigned __int128) v->n ^ ((unsigned __int128) 1 << 127);

			for (n = 0; n < 16; n++)
				b[n] = (uint8) (u >> (120 - 8 * n));
		}
		else
		{
			static const uint8 end = 0;

			if (!prefix_put(k, &pos, (const uint8 *) v->s.p, presort_strlen(key, v), key->desc) ||
				!prefix_put(k, &pos, &end, 1, key->desc))
				break;
			continue;
		}
		if (!prefix_put(k, &pos, b, n, key->desc))
			break;
	}
	return pos;
}

/* the prefix bytes k as the record's words (each the integer of its 8 big-endian bytes) */
static inline void
presort_words(const uint8 *k, uint64 *w)
{
	for (int j = 0; j < PRESORT_WORDS; j++)
	{
		uint64		x;

		memcpy(&x, k + 8 * j, 8);
		w[j] = pg_ntoh64(x);
	}
}

static inline int
presort_rec_cmp(const PresortRec *a, const PresortRec *b, PresortCtx *cx)
{
	for (int j = 0; j < cx->nwords; j++)
		if (a->k[j] != b->k[j])
			return a->k[j] < b->k[j] ? -1 : 1;
	return presort_cmp(a->row, b->row, cx);
}

/* presort_sort(PresortRec *recs, n, PresortCtx *): quicksort, comparisons inlined (lib/sort_template.h) */
#define ST_SORT presort_sort
#define ST_ELEMENT_TYPE PresortRec
#define ST_COMPARE(a, b, cx) presort_rec_cmp(a, b, cx)
#define ST_COMPARE_ARG_TYPE PresortCtx
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * The keys of row i as datums, for PostgreSQL's comparators (d[i * nkeys + k]): where a key does not
 * compare natively at run time although the plan said it would, the node still owes the Sort's order.
 */
typedef struct PresortPgCtx
{
	SortSupportData *ss;
	int			nkeys;
	const Datum *d;
	const bool *null;
} PresortPgCtx;

static inline int
presort_pg_cmp(const int64 *a, const int64 *b, PresortPgCtx *cx)
{
	for (int k = 0; k < cx->nkeys; k++)
	{
		int64		ia = *a * cx->nkeys + k;
		int64		ib = *b * cx->nkeys + k;
		int			c = ApplySortComparator(cx->d[ia], cx->null[ia], cx->d[ib], cx->null[ib], &cx->ss[k]);

		if (c != 0)
			return c;
	}
	return 0;
}

/* presort_sort_pg(int64 *idx, n, PresortPgCtx *): the same quicksort with the Sort's comparators */
#define ST_SORT presort_sort_pg
#define ST_ELEMENT_TYPE int64
#define ST_COMPARE(a, b, cx) presort_pg_cmp(a, b, cx)
#define ST_COMPARE_ARG_TYPE PresortPgCtx
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* the SortSupport of each key, as the Sort sets it up */
static SortSupportData *
presort_sortsupport(const ThemisPresort *p)
{
	SortSupportData *ss = palloc0(sizeof(SortSupportData) * p->nkeys);

	for (int k = 0; k < p->nkeys; k++)
	{
		ss[k].ssup_cxt = CurrentMemoryContext;
		ss[k].ssup_collation = p->keys[k].collation;
		ss[k].ssup_nulls_first = p->keys[k].nulls_first;
		PrepareSortSupportFromOrderingOp(p->keys[k].sortop, &ss[k]);
	}
	return ss;
}

/* idx[0 .. n): rows[idx[i]] in the Sort's order, by its comparators on datums of the result's values */
static void
presort_sort_datums(const TmResultSet *rs, const ThemisPresort *p, const int64 *rows, int64 *idx,
					int64 n)
{
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "themis presort datums",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(tmp);
	PresortPgCtx cx;
	Datum	   *d;
	bool	   *null;

	cx.ss = presort_sortsupport(p);
	cx.nkeys = p->nkeys;
	d = (Datum *) palloc_extended(sizeof(Datum) * Max(n, 1) * p->nkeys, MCXT_ALLOC_HUGE);
	null = (bool *) palloc_extended(sizeof(bool) * Max(n, 1) * p->nkeys, MCXT_ALLOC_HUGE);
	for (int64 i = 0; i < n; i++)
	{
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int k = 0; k < p->nkeys; k++)
		{
			int			col = p->keys[k].col;

			null[i * p->nkeys + k] = rs->nulls[col][rows[i]];
			d[i * p->nkeys + k] = rs->nulls[col][rows[i]] ? (Datum) 0 :
				tm_value_to_datum(&rs->values[col][rows[i]], &rs->types[col]);
		}
	}
	cx.d = d;
	cx.null = null;
	presort_sort_pg(idx, (size_t) n, &cx);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
}

/*
 * With EXPLAIN ANALYZE: are rows[0 .. n) in the Sort's order by its own comparators?  (A check of the
 * native sort, shown by EXPLAIN.)
 */
static bool
presort_in_order(const TmResultSet *rs, const ThemisPresort *p, const int64 *rows, int64 n)
{
	SortSupportData *ss = presort_sortsupport(p);
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "themis presort check",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old;
	bool		ok = true;

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
	pfree(ss);
	return ok;
}

/*
 * After a run (and the top-N cut): ts->rowmap / ts->nrowmap become the rows to return in the Sort's
 * order; allocated in the current memory context.  Where a key does not compare natively: a Sort that
 * stays above finds the rows as they come (the order is a hint), and for an elided one they are sorted
 * with the Sort's comparators.  True where the rows were put in order (themis_presort_check may then
 * compare it with the Sort's comparators).
 */
bool
themis_presort_apply(ThemisScanState *ts)
{
	const ThemisPresort *p = &ts->presort;
	TmResultSet *rs = ts->result;
	PresortCtx	cx;
	bool		native = true;
	int64	   *rows;
	int64		n;

	if (rs == NULL || p->nkeys <= 0)
		return false;
	cx.nkeys = p->nkeys;
	cx.rs = rs;
	cx.nwords = PRESORT_WORDS;
	cx.keys = palloc(sizeof(PresortKeyState) * p->nkeys);
	for (int k = 0; k < p->nkeys; k++)
	{
		const ThemisPresortKey *key = &p->keys[k];

		if (key->col < 0 || key->col >= rs->ncols)
			elog(ERROR, "themis: sort key column %d is not in the node's result", key->col + 1);
		if (!presort_native(&rs->types[key->col], key, &cx.keys[k].how, &cx.keys[k].desc))
			native = false;
		cx.keys[k].col = key->col;
		cx.keys[k].nulls_first = key->nulls_first;
	}
	if (!native && !p->elided)
	{
		ts->presort_skipped++;
		pfree(cx.keys);
		return false;
	}
	n = ts->rowmap ? ts->nrowmap : rs->nrows;
	if (ts->rowmap)
		rows = ts->rowmap;
	else
	{
		rows = (int64 *) palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
		for (int64 i = 0; i < n; i++)
			rows[i] = i;
	}
	if (native)
	{
		/* (the records' pages faulted in at once: fresh memory at every run) */
		PresortRec *recs = (PresortRec *) palloc_extended(sizeof(PresortRec) * Max(n, 1), MCXT_ALLOC_HUGE);
		int			maxpos = 0;

		tm_populate_write(recs, sizeof(PresortRec) * Max(n, 1));
		for (int64 i = 0; i < n; i++)
		{
			uint8		k[PRESORT_PREFIX];
			int			pos = presort_prefix(&cx, rows[i], k);

			presort_words(k, recs[i].k);
			recs[i].row = rows[i];
			maxpos = Max(maxpos, pos);
		}
		cx.nwords = (maxpos + 7) / 8;
		presort_sort(recs, (size_t) n, &cx);
		for (int64 i = 0; i < n; i++)
			rows[i] = recs[i].row;
		pfree(recs);
	}
	else
	{
		/* an elided Sort whose key does not compare natively after all: PostgreSQL's comparators */
		int64	   *idx = (int64 *) palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
		int64	   *orig = (int64 *) palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);

		for (int64 i = 0; i < n; i++)
			idx[i] = i;
		presort_sort_datums(rs, p, rows, idx, n);
		ts->presort_pg_runs++;
		/* rows[i] = rows[idx[i]] (idx indexes the rows as they were) */
		memcpy(orig, rows, sizeof(int64) * n);
		for (int64 i = 0; i < n; i++)
			rows[i] = orig[idx[i]];
		pfree(orig);
		pfree(idx);
	}
	ts->rowmap = rows;
	ts->nrowmap = n;
	ts->presort_rows += n;
	pfree(cx.keys);
	return true;
}

/*
 * EXPLAIN ANALYZE, after themis_presort_apply put the rows in order: compare that order with the Sort's
 * own comparators (on datums made of the values: about as slow as the sort itself, so it is kept out of
 * Presort Time); a disagreement is counted in ts->presort_unordered.
 */
void
themis_presort_check(ThemisScanState *ts)
{
	if (ts->result == NULL || ts->rowmap == NULL)
		return;
	if (!presort_in_order(ts->result, &ts->presort, ts->rowmap, ts->nrowmap))
		ts->presort_unordered++;
}
