/*
 * build_reduce.c — build-side reduction: a SEMI probe added to a hash build, so that a table is built
 * only from the rows that its probing pipeline would keep (themis.build_reduction).
 *
 * PostgreSQL joins in the order its estimates make cheapest.  On skewed data those can be far off: in
 * the JCC-H-style TPC-H Q3 it joins lineitem to orders first and the result to customer, so themis builds
 * every order of the date range (7.35 M at SF 10) and probes them with 60 M lineitem rows, where only
 * the orders of the 1 in 5 customers in the segment can reach the result:
 *
 *     P:  lineitem -> Hash Probe A (orders) -> Hash Probe B (customer, on orders.o_custkey) -> ...
 *
 * Every row that A's probe matches goes on to B's probe, on keys that are A's columns.  So an order whose
 * o_custkey is not in B's table can never contribute: it is dropped where it is built, by a SEMI probe of
 * B's table in A's build pipeline (B's table built first).  B's probe stays where it was; the rows it
 * sees are the same.
 *
 * What must hold (tm_reduce_builds checks each):
 *   - A and B are INNER probes of pipeline P, A before B, and B's keys are bare slots of A's payload,
 *     each one a bare slot of A's build pipeline of the same type (the SEMI probe's keys are the same
 *     values, read where they are built);
 *   - nothing between A and B, nor A's or B's residual condition, can raise an error: the ops between are
 *     probes with bare keys and no residual condition, and A and B have none.  Nor can A's build keys and
 *     payload, computed for every row that reaches its sink (bare slots, or payload expressions that
 *     cannot raise an error: TmSink.vals_errfree).  The rows that the reduction drops early are then
 *     rows on which PostgreSQL's plan raises no error either before B drops them.
 *     (Where B's build and A's both raise one, B's now runs first: which of the two errors is reported
 *     may change, as it does in PostgreSQL with the plan's costs);
 *   - A's table is probed by P alone (another probe of it would lose rows);
 *   - B's build pipeline does not depend on A's, so it can run before it: it is moved ahead of it where
 *     it is after it, if everything it reads is made before A's build;
 *   - B's build pipeline drops rows (a filter, or an inner, semi or anti probe) and is estimated to keep
 *     at most REDUCE_MAX_SHARE of its source's rows: a table that keeps most of them would drop few of
 *     A's rows for the probe's cost.  The estimate alone is not enough: a table that PostgreSQL looked up
 *     row by row (a nested loop over an index scan) is read whole, and its estimate is the rows of one
 *     lookup (TPC-H Q5 and Q9 at SF 1 on the skewed data: every lineitem, every order).
 * NULL keys match nothing in either probe, so the rows they drop are the same.
 *
 * B's probe in P then finds a match for every row.  Where B's keys are unique in its table (B's pipeline
 * only filters the rows of a table with an immediate unique index on key columns, all of integer types)
 * and P reads nothing of B's row, it finds exactly one and passes the row on unchanged: it is dropped
 * (TPC-H Q3's customer on the skewed data).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/pg_index.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "themis.h"
#include "themis/tm_expr_eval.h"

/* B's table must be estimated to keep at most this share of its source's rows */
#define REDUCE_MAX_SHARE 0.5

/* the pipeline that builds hash table ht, or -1 */
static int
build_of(const TmPlan *plan, int ht)
{
	for (int p = 0; p < plan->npipelines; p++)
		if (plan->pipelines[p].sink.kind == TM_SINK_HASH_BUILD && plan->pipelines[p].sink.target == ht)
			return p;
	return -1;
}

/* the pipeline that makes result r, or -1 */
static int
result_of(const TmPlan *plan, int r)
{
	for (int p = 0; p < plan->npipelines; p++)
		if (plan->pipelines[p].sink.kind != TM_SINK_HASH_BUILD && plan->pipelines[p].sink.target == r)
			return p;
	return -1;
}

/* the probes of hash table ht, over all pipelines */
static int
probes_of(const TmPlan *plan, int ht)
{
	int			n = 0;

	for (int p = 0; p < plan->npipelines; p++)
		for (int i = 0; i < plan->pipelines[p].nops; i++)
			if (plan->pipelines[p].ops[i].kind == TM_OP_PROBE && plan->pipelines[p].ops[i].ht == ht)
				n++;
	return n;
}

/* is e a bare slot?  *slot: which */
static bool
bare_slot(const TmExpr *e, int *slot)
{
	if (e == NULL || e->ninstr != 1 || tm_expr_code(e)[0].op != TMI_PUSH_SLOT)
		return false;
	*slot = tm_expr_code(e)[0].a;
	return true;
}

static bool
same_type(const TmType *a, const TmType *b)
{
	return a->kind == b->kind && a->scale == b->scale && a->typmod == b->typmod &&
		a->pgtype == b->pgtype && a->collation == b->collation;
}

/* does every pipeline that pipeline p reads from come before pipeline `before`? */
static bool
inputs_before(const TmPlan *plan, int p, int before)
{
	const TmPipeline *pl = &plan->pipelines[p];

	if (pl->srckind == TM_SRC_RESULT)
	{
		int			r = result_of(plan, pl->src_result);

		if (r < 0 || r >= before)
			return false;
	}
	for (int i = 0; i < pl->nops; i++)
		if (pl->ops[i].kind == TM_OP_PROBE)
		{
			int			b = build_of(plan, pl->ops[i].ht);

			if (b < 0 || b >= before)
				return false;
		}
	return true;
}

/* pipeline `from` to position `to` < from, the ones between one later */
static void
move_pipeline(TmPlan *plan, int from, int to)
{
	TmPipeline	moved = plan->pipelines[from];

	memmove(&plan->pipelines[to + 1], &plan->pipelines[to], sizeof(TmPipeline) * (from - to));
	plan->pipelines[to] = moved;
}

/*
 * The SEMI probe's label: B's, whose keys deparse the same in A's build pipeline (they name the columns
 * of the tables, not slots)
 */
static char *
semi_label(const TmOp *b, bool dropped)
{
	const char *on = b->label ? strstr(b->label, ") on (") : NULL;
	const char *what = dropped ? "reducing the build (the later probe of it dropped: one match for every row)"
		: "reducing the build";

	if (on == NULL)
		return psprintf("Hash Probe %d (Semi), %s", b->ht, what);
	return psprintf("Hash Probe %d (Semi) on %s, %s", b->ht, on + 5, what);
}

/* set where tm_unique_index_covers passed over an index not yet usable by this snapshot (planner.c) */
bool		themis_plan_transient = false;

/*
 * Has table relid an immediate unique index (no expressions, no predicate) whose key columns are all among
 * attnos, usable by the current snapshot?  Rows of the table it sees then never share the values of those
 * columns.  (Also translate.c's dependent group keys.)
 *
 * An index built over a broken HOT chain (indcheckxmin) is passed over, as PostgreSQL's planner does
 * (get_relation_info), while the transaction's snapshot is older than the index: that snapshot may still
 * see rows that have the same key (a row updated since, whose old version the index does not hold).  The
 * plan is then transient, made again once the index is usable (themis_plan_transient).
 */
bool
tm_unique_index_covers(Oid relid, Bitmapset *attnos)
{
	Relation	rel;
	List	   *indexes;
	ListCell   *lc;
	bool		unique = false;

	if (attnos == NULL)
		return false;
	rel = table_open(relid, AccessShareLock);
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index ix;
		bool		all = true;

		if (!HeapTupleIsValid(tup))
			continue;
		ix = (Form_pg_index) GETSTRUCT(tup);
		if (ix->indcheckxmin &&
			!TransactionIdPrecedes(HeapTupleHeaderGetXmin(tup->t_data), TransactionXmin))
		{
			themis_plan_transient = true;
			ReleaseSysCache(tup);
			continue;
		}
		if (ix->indisunique && ix->indimmediate && ix->indisvalid && ix->indnkeyatts > 0 &&
			heap_attisnull(tup, Anum_pg_index_indexprs, NULL) &&
			heap_attisnull(tup, Anum_pg_index_indpred, NULL))
		{
			for (int i = 0; i < ix->indnkeyatts && all; i++)
				all = ix->indkey.values[i] > 0 && bms_is_member(ix->indkey.values[i], attnos);
			unique = all;
		}
		ReleaseSysCache(tup);
		if (unique)
			break;
	}
	list_free(indexes);
	table_close(rel, AccessShareLock);
	return unique;
}

/*
 * Are the keys of the table that pipeline bb builds unique in it?  bb reads a table and only filters
 * its rows, and an immediate unique index (no expressions, no predicate) has all its key columns among
 * the build's keys, which are bare columns of integer types (equal for themis where they are equal for
 * the index).
 */
static bool
build_keys_unique(const TmPlan *plan, int bb)
{
	const TmPipeline *pl = &plan->pipelines[bb];
	Bitmapset  *keycols = NULL;

	if (pl->srckind != TM_SRC_TABLE || pl->sink.kind != TM_SINK_HASH_BUILD || pl->sink.nkeys < 1)
		return false;
	for (int i = 0; i < pl->nops; i++)
		if (pl->ops[i].kind != TM_OP_FILTER)
			return false;
	for (int k = 0; k < pl->sink.nkeys; k++)
	{
		int			s;
		const TmType *t;

		if (!bare_slot(pl->sink.keys[k], &s) || s < 0 || s >= pl->nslots || pl->slots[s].level != 0 ||
			pl->slots[s].col < 0 || pl->slots[s].col >= pl->nsrccols)
			return false;
		t = &pl->slots[s].type;
		if (t->kind != TM_K_INT2 && t->kind != TM_K_INT4 && t->kind != TM_K_INT8)
			return false;
		keycols = bms_add_member(keycols, pl->src_attnos[pl->slots[s].col]);
	}

	return tm_unique_index_covers(pl->relid, keycols);
}

/* op j of pipeline pl out: the slots of the ops after it one level down (nothing reads op j's) */
static void
drop_op(TmPipeline *pl, int j)
{
	memmove(&pl->ops[j], &pl->ops[j + 1], sizeof(TmOp) * (pl->nops - j - 1));
	pl->nops--;
	for (int s = 0; s < pl->nslots; s++)
		if (pl->slots[s].level > j + 1)
			pl->slots[s].level--;
}

/*
 * Reduce the build of the table that op j of pipeline p takes its keys from, if every condition of the
 * file's comment holds; true if it did (pipelines before p may have moved; p has not; op j may be gone)
 */
static bool
reduce_one(TmPlan *plan, int p, int j)
{
	TmPipeline *pl = &plan->pipelines[p];
	TmOp	   *b = &pl->ops[j];
	TmOp	   *a;
	TmPipeline *bpl,
			   *apl;
	int			level = -1,
				ia,
				ba,
				bb;
	int		   *aslots;
	double		share;
	TmOp	   *ops;
	TmOp	   *semi;
	bool		drop;
	bool		drops = false;

	if (b->kind != TM_OP_PROBE || b->jointype != TM_JOIN_INNER || b->qual != NULL || b->nkeys < 1)
		return false;
	for (int k = 0; k < b->nkeys; k++)
	{
		int			s;

		if (!bare_slot(b->keys[k], &s) || s < 0 || s >= pl->nslots || pl->slots[s].level < 1 ||
			(level >= 0 && pl->slots[s].level != level))
			return false;
		level = pl->slots[s].level;
	}
	ia = level - 1;
	if (ia >= j)
		return false;
	a = &pl->ops[ia];
	if (a->kind != TM_OP_PROBE || a->jointype != TM_JOIN_INNER || a->qual != NULL || a->ht == b->ht)
		return false;
	for (int i = ia + 1; i < j; i++)
	{
		const TmOp *o = &pl->ops[i];
		int			s;

		if (o->kind != TM_OP_PROBE || o->qual != NULL)
			return false;
		for (int k = 0; k < o->nkeys; k++)
			if (!bare_slot(o->keys[k], &s))
				return false;
	}

	ba = build_of(plan, a->ht);
	bb = build_of(plan, b->ht);
	if (ba < 0 || bb < 0 || ba >= p || bb >= p || ba == bb || probes_of(plan, a->ht) != 1)
		return false;
	apl = &plan->pipelines[ba];
	bpl = &plan->pipelines[bb];
	for (int i = 0; i < apl->nops; i++)
		if (apl->ops[i].kind == TM_OP_PROBE && apl->ops[i].ht == b->ht)
			return false;
	if (bpl->est_source_rows <= 0 || bpl->est_rows < 0 ||
		bpl->est_rows > REDUCE_MAX_SHARE * bpl->est_source_rows)
		return false;
	for (int i = 0; i < bpl->nops && !drops; i++)
		drops = bpl->ops[i].kind == TM_OP_FILTER ||
			(bpl->ops[i].kind == TM_OP_PROBE && bpl->ops[i].jointype != TM_JOIN_LEFT);
	if (!drops)
		return false;
	share = bpl->est_rows / bpl->est_source_rows;

	/*
	 * A's build computes its keys and payload from every row that reaches its sink, and PostgreSQL's Hash
	 * node does from every row of its side: where one of them could raise an error, the rows the SEMI
	 * probe drops must not go without it.  Bare slots only, and payload columns the translator knows
	 * cannot raise one (vals_errfree: comparisons, LIKE, boolean tests, as its build-side expressions)
	 */
	for (int k = 0; k < apl->sink.nkeys + apl->sink.nvals; k++)
	{
		int			s;

		if (k >= apl->sink.nkeys && apl->sink.vals_errfree != NULL && apl->sink.vals_errfree[k - apl->sink.nkeys])
			continue;
		if (!bare_slot(k < apl->sink.nkeys ? apl->sink.keys[k] : apl->sink.vals[k - apl->sink.nkeys], &s))
			return false;
	}

	/* each key: A's payload column, a bare slot of A's build of the same type */
	aslots = palloc(sizeof(int) * b->nkeys);
	for (int k = 0; k < b->nkeys; k++)
	{
		int			s = tm_expr_code(b->keys[k])[0].a;
		int			col = pl->slots[s].col;

		if (col < 0 || col >= apl->sink.nvals || !bare_slot(apl->sink.vals[col], &aslots[k]) ||
			aslots[k] < 0 || aslots[k] >= apl->nslots ||
			!same_type(&pl->slots[s].type, &apl->slots[aslots[k]].type))
		{
			pfree(aslots);
			return false;
		}
	}

	/* B's table is built first */
	if (bb > ba)
	{
		if (!inputs_before(plan, bb, ba))
		{
			pfree(aslots);
			return false;
		}
		move_pipeline(plan, bb, ba);
		apl = &plan->pipelines[ba + 1];
	}

	ops = palloc0(sizeof(TmOp) * (apl->nops + 1));
	if (apl->nops > 0)
		memcpy(ops, apl->ops, sizeof(TmOp) * apl->nops);
	semi = &ops[apl->nops];
	semi->kind = TM_OP_PROBE;
	semi->jointype = TM_JOIN_SEMI;
	semi->ht = b->ht;
	semi->nkeys = b->nkeys;
	semi->keys = palloc(sizeof(TmExpr *) * b->nkeys);
	for (int k = 0; k < b->nkeys; k++)
	{
		TmExpr	   *e = palloc(b->keys[k]->total_size);

		memcpy(e, b->keys[k], b->keys[k]->total_size);
		((TmInstr *) ((char *) e + e->instr_off))[0].a = aslots[k];
		semi->keys[k] = e;
	}
	semi->qual = NULL;
	semi->est_rows = apl->est_rows * share;
	apl->ops = ops;
	apl->nops++;
	apl->est_rows = semi->est_rows;
	pfree(aslots);

	/* B's probe: one match for every row, where B's keys are unique and P reads nothing of B's row */
	drop = build_keys_unique(plan, build_of(plan, b->ht));
	for (int s = 0; s < pl->nslots && drop; s++)
		if (pl->slots[s].level == j + 1)
			drop = false;
	semi->label = semi_label(b, drop);
	if (drop)
		drop_op(pl, j);
	return true;
}

/* themis.build_reduction over a translated plan (translate.c), before it is serialized */
void
tm_reduce_builds(TmPlan *plan)
{
	for (int p = 0; p < plan->npipelines; p++)
		for (int j = 1; j < plan->pipelines[p].nops;)
		{
			/* after a reduction, op j is looked at again: the next one, where it was dropped */
			if (!reduce_one(plan, p, j))
				j++;
		}
}
