/*
 * cpu_exec.c — the CPU executor of a themis plan (TmPlan).
 *
 * Runs the pipelines of a plan in order.  Each source row is pushed through the pipeline's operators as
 * a depth-first traversal of the evaluation tree (level 0: the source row, level k: the build row
 * matched by the probe ops[k-1]) and every leaf of that traversal reaches the sink.  This is the
 * reference implementation of themis' semantics: the GPU executor must produce the same results.
 *
 * Data structures (all of them column arrays, grown by doubling, no per-row allocation):
 *   TmStore    a growable set of typed columns (results, rows of a hash table under construction),
 *              with an arena that owns the bytes of its text values;
 *   TmCpuHash  a built hash table: rows reordered so that rows with equal keys are contiguous, and a
 *              TmJoinTable (themis/tm_hashtable.h) key -> [start, end);
 *   TmAggExec  hash aggregation: a TmGroupTable over groups whose keys and running aggregate states
 *              are the columns of the result itself;
 *   TmDistinct per-aggregate TmDistinctSet of (group, value) pairs for DISTINCT aggregates.
 *
 * The hash tables themselves, and the hashing rule the GPU executor must share (h = 0; for each key k
 * in order, h = tm_hash_key(h, &k, k is NULL, &keytype)), are in themis/tm_hashtable.h, which the engine
 * unit tests (test/unit/test_hashtable.c) check without PostgreSQL.
 *
 * Memory: the output result lives in the caller's CurrentMemoryContext; everything else (hash tables,
 * intermediate results, per-row scratch) in a child context that is deleted before returning.  On
 * ERROR both simply die with their parent.
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "themis.h"
#include "themis/tm_expr_eval.h"
#include "themis/tm_hash.h"
#include "themis/tm_hashtable.h"
#include "themis/tm_probe_order.h"

/* TmValue holds an __int128: arrays of it must be 16-byte aligned (palloc only gives MAXALIGN) */
#define TM_VALUE_ALIGN	16

#define TM_STORE_INITCAP	1024
#define TM_ARENA_MINBLOCK	(64 * 1024)
#define TM_ARENA_MAXBLOCK	(8 * 1024 * 1024)

/* ----------------------------------------------------------------
 *		aligned value arrays
 * ----------------------------------------------------------------
 */

/*
 * Allocate an array of n TmValues, 16-byte aligned.  The raw chunk pointer is kept just before the
 * array, so that values_free() can give it back.
 */
static TmValue *
values_alloc(MemoryContext cxt, Size n)
{
	char	   *raw;
	char	   *p;

	raw = MemoryContextAllocExtended(cxt, Max(n, 1) * sizeof(TmValue) + TM_VALUE_ALIGN,
									 MCXT_ALLOC_HUGE);
	p = (char *) TYPEALIGN(TM_VALUE_ALIGN, raw + sizeof(void *));
	((void **) p)[-1] = raw;
	return (TmValue *) p;
}

static void
values_free(TmValue *v)
{
	if (v != NULL)
		pfree(((void **) v)[-1]);
}

static void *
huge_alloc(MemoryContext cxt, Size size)
{
	return MemoryContextAllocExtended(cxt, Max(size, 1), MCXT_ALLOC_HUGE);
}

static inline bool
kind_is_text(int kind)
{
	return kind == TM_K_TEXT || kind == TM_K_BPCHAR;
}

/* memory of the hash tables (tm_hashtable.h): a memory context; palloc raises on out of memory */
static void *
htmem_alloc(void *arg, size_t size)
{
	return MemoryContextAllocExtended((MemoryContext) arg, size, MCXT_ALLOC_HUGE);
}

static void
htmem_free(void *arg, void *p)
{
	pfree(p);
}

static void
htmem_tick(void *arg)
{
	CHECK_FOR_INTERRUPTS();
}

static inline TmHtMem
htmem(MemoryContext cxt)
{
	TmHtMem		m;

	m.alloc = htmem_alloc;
	m.free = htmem_free;
	m.tick = htmem_tick;
	m.arg = cxt;
	return m;
}

/* a status of tm_hashtable.h that is not TM_HT_OK (palloc raises first: not expected) */
static void
htmem_failed(TmHtStatus st)
{
	elog(ERROR, "themis: hash table operation failed (status %d)", (int) st);
}

/* ----------------------------------------------------------------
 *		text arena
 * ----------------------------------------------------------------
 */
typedef struct TmArena
{
	MemoryContext cxt;
	char	   *cur;
	Size		left;
	Size		nextsize;
} TmArena;

static void
arena_init(TmArena *a, MemoryContext cxt)
{
	a->cxt = cxt;
	a->cur = NULL;
	a->left = 0;
	a->nextsize = TM_ARENA_MINBLOCK;
}

static char *
arena_alloc(TmArena *a, Size len)
{
	char	   *p;

	if (len > a->left)
	{
		Size		bsize = a->nextsize;

		if (bsize < TM_ARENA_MAXBLOCK)
			a->nextsize = bsize * 2;
		if (len > bsize / 4)
		{
			/* big value: a block of its own, keep the current block */
			return huge_alloc(a->cxt, len);
		}
		a->cur = huge_alloc(a->cxt, bsize);
		a->left = bsize;
	}
	p = a->cur;
	a->cur += len;
	a->left -= len;
	return p;
}

/* make v (of a text kind) own its bytes in a */
static inline void
arena_own(TmArena *a, TmValue *v)
{
	if (v->s.len > 0)
	{
		char	   *p = arena_alloc(a, v->s.len);

		memcpy(p, v->s.p, v->s.len);
		v->s.p = p;
	}
	else
		v->s.p = "";
}

/* ----------------------------------------------------------------
 *		TmStore: growable typed columns
 * ----------------------------------------------------------------
 */
typedef struct TmStore
{
	int			ncols;
	const TmType *types;
	int64		nrows;
	int64		cap;
	TmValue   **vals;			/* vals[col][row] */
	bool	  **nulls;			/* nulls[col][row] */
	MemoryContext cxt;
	TmArena		arena;			/* owns the text bytes of this store */
} TmStore;

static TmStore *
store_create(MemoryContext cxt, int ncols, const TmType *types)
{
	TmStore    *s = MemoryContextAllocZero(cxt, sizeof(TmStore));
	int			c;

	s->ncols = ncols;
	s->types = types;
	s->cxt = cxt;
	s->cap = TM_STORE_INITCAP;
	s->vals = MemoryContextAllocZero(cxt, sizeof(TmValue *) * Max(ncols, 1));
	s->nulls = MemoryContextAllocZero(cxt, sizeof(bool *) * Max(ncols, 1));
	for (c = 0; c < ncols; c++)
	{
		s->vals[c] = values_alloc(cxt, s->cap);
		s->nulls[c] = huge_alloc(cxt, s->cap);
	}
	arena_init(&s->arena, cxt);
	return s;
}

/* make room for one more row */
static void
store_grow(TmStore *s)
{
	int64		newcap = s->cap * 2;
	int			c;

	for (c = 0; c < s->ncols; c++)
	{
		TmValue    *nv = values_alloc(s->cxt, newcap);
		bool	   *nn = huge_alloc(s->cxt, newcap);

		memcpy(nv, s->vals[c], sizeof(TmValue) * s->nrows);
		memcpy(nn, s->nulls[c], sizeof(bool) * s->nrows);
		values_free(s->vals[c]);
		pfree(s->nulls[c]);
		s->vals[c] = nv;
		s->nulls[c] = nn;
	}
	s->cap = newcap;
}

/* append an empty row, return its index */
static inline int64
store_add_row(TmStore *s)
{
	if (s->nrows >= s->cap)
		store_grow(s);
	return s->nrows++;
}

/* set a cell, copying text bytes into the store's arena */
static inline void
store_set(TmStore *s, int col, int64 row, const TmValue *v, bool isnull)
{
	s->nulls[col][row] = isnull;
	if (isnull)
		memset(&s->vals[col][row], 0, sizeof(TmValue));
	else
	{
		s->vals[col][row] = *v;
		if (kind_is_text(s->types[col].kind))
			arena_own(&s->arena, &s->vals[col][row]);
	}
}

/* ----------------------------------------------------------------
 *		TmCpuHash: hash table of a HASH_BUILD sink
 * ----------------------------------------------------------------
 */
typedef struct TmCpuHash
{
	TmJoinTable jt;				/* keys -> [start, end) of the rows below */
	int			nkeys;
	const TmType *keytypes;
	int			npay;
	int64		nrows;
	TmValue   **keys;			/* keys[k][row]; rows with equal keys are contiguous */
	TmValue   **pay;			/* pay[c][row] */
	bool	  **paynulls;
} TmCpuHash;

/* key lookup: true with [*start, *end) if some build rows have these (non-NULL) keys */
static inline bool
ht_lookup(const TmCpuHash *ht, uint64 h, const TmValue *keys, int64 *start, int64 *end)
{
	return tm_join_table_lookup(&ht->jt, h, keys, start, end);
}

/*
 * Build the hash table from the collected rows: rows (keys in columns 0..nkeys-1, payload after them)
 * with their hashes.  Rows are grouped by equal keys (tm_join_table_build), then every column is moved
 * to the rows' new positions, group by group.
 */
static TmCpuHash *
ht_build(MemoryContext cxt, const TmHashTable *def, TmStore *rows, const uint64 *hashes,
		 const char **reason)
{
	TmCpuHash  *ht = MemoryContextAllocZero(cxt, sizeof(TmCpuHash));
	TmHtMem		mem = htmem(cxt);
	int64		n = rows->nrows;
	int32	   *pos;			/* per row: its position in the table */
	TmHtStatus	st;
	int			c;

	ht->nkeys = def->nkeys;
	ht->keytypes = def->keytypes;
	ht->npay = def->npayload;
	ht->nrows = n;

	if (n >= TM_JOIN_TABLE_MAX_ROWS)
	{
		*reason = "hash table build side has too many rows for the CPU executor";
		return NULL;
	}
	pos = huge_alloc(cxt, sizeof(int32) * Max(n, 1));
	st = tm_join_table_build(&ht->jt, &mem, def->nkeys, def->keytypes, n,
							 (const TmValue *const *) rows->vals, hashes, pos);
	if (st != TM_HT_OK)
		htmem_failed(st);

	ht->keys = MemoryContextAllocZero(cxt, sizeof(TmValue *) * Max(ht->nkeys, 1));
	ht->pay = MemoryContextAllocZero(cxt, sizeof(TmValue *) * Max(ht->npay, 1));
	ht->paynulls = MemoryContextAllocZero(cxt, sizeof(bool *) * Max(ht->npay, 1));
	for (c = 0; c < rows->ncols; c++)
	{
		TmValue    *src = rows->vals[c];
		TmValue    *dst = values_alloc(cxt, n);

		/* text bytes stay where they are: in the rows' arena, which lives on */
		tm_ht_scatter_values(dst, src, pos, n);
		values_free(src);
		rows->vals[c] = NULL;
		if (c < ht->nkeys)
			ht->keys[c] = dst;
		else
		{
			bool	   *ndst = huge_alloc(cxt, n);

			tm_ht_scatter_bools(ndst, rows->nulls[c], pos, n);
			ht->pay[c - ht->nkeys] = dst;
			ht->paynulls[c - ht->nkeys] = ndst;
		}
		pfree(rows->nulls[c]);
		rows->nulls[c] = NULL;
	}
	pfree(pos);
	ht->jt.keys = (const TmValue *const *) ht->keys;
	return ht;
}

/* ----------------------------------------------------------------
 *		TmDistinct: (group, value) pairs seen by a DISTINCT aggregate
 * ----------------------------------------------------------------
 */
typedef struct TmDistinct
{
	TmDistinctSet set;
	TmHtMem		mem;
	TmArena		arena;			/* owns the text bytes of the set's values */
} TmDistinct;

static TmDistinct *
distinct_create(MemoryContext cxt, const TmType *type)
{
	TmDistinct *d = MemoryContextAllocZero(cxt, sizeof(TmDistinct));
	TmHtStatus	st;

	d->mem = htmem(cxt);
	arena_init(&d->arena, cxt);
	st = tm_distinct_init(&d->set, &d->mem, type, TM_STORE_INITCAP);
	if (st != TM_HT_OK)
		htmem_failed(st);
	return d;
}

/* add (g, v); true if it was not there yet */
static inline bool
distinct_add(TmDistinct *d, int64 g, const TmValue *v)
{
	int64_t		idx;
	int			r = tm_distinct_add(&d->set, &d->mem, g, v, &idx);

	if (r < 0)
		htmem_failed(TM_HT_NOMEM);
	if (r == 0)
		return false;
	if (kind_is_text(d->set.type->kind))
		arena_own(&d->arena, &d->set.vals[idx]);
	return true;
}

/* ----------------------------------------------------------------
 *		TmAggExec: hash aggregation into a result store
 * ----------------------------------------------------------------
 */

/*
 * The result store's columns are the group keys, then one column per aggregate holding its running
 * state: COUNT(*) / COUNT: .i = count (never NULL); SUM: the accumulator of tm_sum_add; MIN / MAX: the
 * current extreme value (NULL while no input).  So nothing is left to finalize at the end.
 */
typedef struct TmAggExec
{
	const TmSink *sink;
	TmStore    *out;
	int			nkeys;
	TmGroupTable groups;		/* over the key columns of out */
	TmHtMem		mem;
	TmDistinct **distinct;		/* per aggregate, or NULL */
	TmValue    *keyvals;		/* scratch: the current row's keys */
	bool	   *keynulls;
	MemoryContext cxt;
} TmAggExec;

static void
agg_init_group(TmAggExec *ag, int64 g)
{
	int			a;

	for (a = 0; a < ag->sink->naggs; a++)
	{
		int			col = ag->nkeys + a;
		int			kind = ag->sink->aggs[a].kind;

		memset(&ag->out->vals[col][g], 0, sizeof(TmValue));
		ag->out->nulls[col][g] = !(kind == TM_AGG_COUNT_STAR || kind == TM_AGG_COUNT);
	}
}

static TmAggExec *
agg_create(MemoryContext cxt, MemoryContext outcxt, const TmSink *sink, const TmResult *res)
{
	TmAggExec  *ag = MemoryContextAllocZero(cxt, sizeof(TmAggExec));
	int			a;

	ag->sink = sink;
	ag->cxt = cxt;
	ag->mem = htmem(cxt);
	ag->nkeys = sink->nkeys;
	ag->out = store_create(outcxt, res->ncols, res->coltypes);
	ag->keyvals = values_alloc(cxt, Max(sink->nkeys, 1));
	ag->keynulls = palloc0(sizeof(bool) * Max(sink->nkeys, 1));
	ag->distinct = palloc0(sizeof(TmDistinct *) * Max(sink->naggs, 1));
	for (a = 0; a < sink->naggs; a++)
		if (sink->aggs[a].distinct && sink->aggs[a].arg != NULL)
			ag->distinct[a] = distinct_create(cxt, &sink->aggs[a].arg->result);

	if (sink->nkeys == 0)
	{
		/* exactly one group, even without input */
		store_add_row(ag->out);
		agg_init_group(ag, 0);
	}
	else
	{
		/* the store's column pointer arrays stay put when it grows */
		TmHtStatus	st = tm_group_table_init(&ag->groups, &ag->mem, sink->nkeys, ag->out->types,
											 ag->out->vals, ag->out->nulls, TM_STORE_INITCAP * 2);

		if (st != TM_HT_OK)
			htmem_failed(st);
	}
	return ag;
}

/* a new group for the current keys (ag->keyvals / keynulls) at directory position pos (cold path) */
static pg_noinline int64
agg_new_group(TmAggExec *ag, uint64 h, uint64 pos)
{
	TmStore    *out = ag->out;
	int64		g = store_add_row(out);
	int			k;
	TmHtStatus	st;

	for (k = 0; k < ag->nkeys; k++)
		store_set(out, k, g, &ag->keyvals[k], ag->keynulls[k]);
	agg_init_group(ag, g);
	st = tm_group_table_insert(&ag->groups, &ag->mem, pos, h, g);
	if (st != TM_HT_OK)
		htmem_failed(st);
	return g;
}

/* the group of the current keys (ag->keyvals / keynulls), created if new */
static inline int64
agg_find_group(TmAggExec *ag)
{
	const TmType *types = ag->out->types;
	uint64		h = 0;
	uint64		pos = 0;
	int64		g;
	int			k;

	for (k = 0; k < ag->nkeys; k++)
		h = tm_hash_key(h, &ag->keyvals[k], ag->keynulls[k], &types[k]);
	g = tm_group_table_find(&ag->groups, h, ag->keyvals, ag->keynulls, &pos);
	if (likely(g >= 0))
		return g;
	return agg_new_group(ag, h, pos);
}

/* replace a MIN/MAX state by v, reusing the state's text bytes where they are long enough */
static inline void
agg_set_extreme(TmStore *out, int col, int64 g, const TmValue *v)
{
	TmValue    *st = &out->vals[col][g];

	if (kind_is_text(out->types[col].kind) && !out->nulls[col][g] && st->s.len >= v->s.len &&
		st->s.len > 0)
	{
		memcpy((char *) st->s.p, v->s.p, v->s.len);
		st->s.len = v->s.len;
	}
	else
		store_set(out, col, g, v, false);
	out->nulls[col][g] = false;
}

/* ----------------------------------------------------------------
 *		pipeline execution
 * ----------------------------------------------------------------
 */

/* the whole execution */
typedef struct TmCpuExec
{
	const TmPlan *plan;
	EState	   *estate;
	MemoryContext outcxt;		/* caller's: the output result */
	MemoryContext workcxt;		/* everything else */
	MemoryContext rowcxt;		/* per source row: detoasted values */
	TmStore   **results;		/* per result id, NULL until made */
	TmCpuHash **hts;			/* per hash table id, NULL until built */
	int64	   *ht_src_rows;	/* per hash table id: source rows of the pipeline that built it */
	const TmValue *params;
	const bool *paramnulls;
	PlanState **inputs;			/* SUBPLAN sources: inputs[subplan - 1] */
	int			ninputs;
	const char *reason;			/* fallback reason, if known */
} TmCpuExec;

/* one running pipeline */
typedef struct TmPipeExec
{
	TmCpuExec  *ex;
	const TmPipeline *pl;
	TmValue    *vals;			/* slot values of the current tree path */
	bool	   *nulls;
	int		   *lvcount;		/* per level + 1: number of slots of that level */
	int		  **lvslots;		/* per level + 1: slot numbers */
	TmValue   **opkeys;			/* per op: scratch for probe keys */
	TmCpuHash **opht;			/* per op: the probed hash table */
	int64		sink_rows;
	uint32		tick;			/* interrupt check counter for large fan-outs */
	/* sink state */
	TmStore    *store;			/* EMIT: the result; HASH_BUILD: collected rows */
	uint64	   *hashes;			/* HASH_BUILD: hash of each collected row */
	int64		hashcap;
	TmValue    *scratch;		/* HASH_BUILD: keys and payload of the current row */
	bool	   *scratchnulls;
	TmAggExec  *agg;
} TmPipeExec;

static TmStatus run_ops(TmPipeExec *pe, int k);

/* fill the slots of level lv (>= 1) from build row r of the probed hash table, or NULLs */
static inline void
fill_level(TmPipeExec *pe, int lv, const TmCpuHash *ht, int64 r)
{
	int			i;
	int			n = pe->lvcount[lv + 1];
	const int  *sl = pe->lvslots[lv + 1];

	for (i = 0; i < n; i++)
	{
		int			s = sl[i];
		int			col = pe->pl->slots[s].col;

		if (ht == NULL)
		{
			pe->nulls[s] = true;
			memset(&pe->vals[s], 0, sizeof(TmValue));
		}
		else
		{
			pe->nulls[s] = ht->paynulls[col][r];
			pe->vals[s] = ht->pay[col][r];
		}
	}
}

static TmStatus
sink_row(TmPipeExec *pe)
{
	const TmSink *sink = &pe->pl->sink;
	TmStatus	st;
	int			i;

	pe->sink_rows++;
	switch (sink->kind)
	{
		case TM_SINK_EMIT:
			{
				TmStore    *out = pe->store;
				int64		r = store_add_row(out);

				for (i = 0; i < sink->nvals; i++)
				{
					TmValue		v;
					bool		isnull;

					st = tm_eval(sink->vals[i], pe->vals, pe->nulls, &v, &isnull);
					if (st != TM_OK)
					{
						out->nrows--;
						return st;
					}
					store_set(out, i, r, &v, isnull);
				}
				return TM_OK;
			}

		case TM_SINK_HASH_BUILD:
			{
				TmStore    *rows = pe->store;
				int64		r;
				uint64		h = 0;

				for (i = 0; i < sink->nkeys; i++)
				{
					st = tm_eval(sink->keys[i], pe->vals, pe->nulls,
								 &pe->scratch[i], &pe->scratchnulls[i]);
					if (st != TM_OK)
						return st;
					if (pe->scratchnulls[i])
						return TM_OK;	/* a NULL key never matches: drop the row */
					h = tm_hash_key(h, &pe->scratch[i], false, &rows->types[i]);
				}
				for (i = 0; i < sink->nvals; i++)
				{
					int			c = sink->nkeys + i;

					st = tm_eval(sink->vals[i], pe->vals, pe->nulls,
								 &pe->scratch[c], &pe->scratchnulls[c]);
					if (st != TM_OK)
						return st;
				}
				r = store_add_row(rows);
				for (i = 0; i < rows->ncols; i++)
					store_set(rows, i, r, &pe->scratch[i], pe->scratchnulls[i]);
				if (r >= pe->hashcap)
				{
					uint64	   *nh = huge_alloc(pe->ex->workcxt, sizeof(uint64) * pe->hashcap * 2);

					memcpy(nh, pe->hashes, sizeof(uint64) * pe->hashcap);
					pfree(pe->hashes);
					pe->hashes = nh;
					pe->hashcap *= 2;
				}
				pe->hashes[r] = h;
				return TM_OK;
			}

		case TM_SINK_AGG:
			{
				TmAggExec  *ag = pe->agg;
				TmStore    *out = ag->out;
				int64		g = 0;

				if (ag->nkeys > 0)
				{
					for (i = 0; i < ag->nkeys; i++)
					{
						st = tm_eval(sink->keys[i], pe->vals, pe->nulls,
									 &ag->keyvals[i], &ag->keynulls[i]);
						if (st != TM_OK)
							return st;
					}
					g = agg_find_group(ag);
				}
				for (i = 0; i < sink->naggs; i++)
				{
					const TmAgg *agg = &sink->aggs[i];
					int			col = ag->nkeys + i;
					TmValue		v;
					bool		isnull;

					if (agg->filter != NULL)
					{
						TmValue		fv;
						bool		fnull;

						/* FILTER is an expression, not a qual list: evaluate it whole */
						st = tm_eval(agg->filter, pe->vals, pe->nulls, &fv, &fnull);
						if (st != TM_OK)
							return st;
						if (fnull || fv.i == 0)
							continue;
					}
					if (agg->kind == TM_AGG_COUNT_STAR)
					{
						out->vals[col][g].i++;
						continue;
					}
					if (agg->kind == TM_AGG_ANY && !out->nulls[col][g])
						continue;	/* the group has its value */
					st = tm_eval(agg->arg, pe->vals, pe->nulls, &v, &isnull);
					if (st != TM_OK)
						return st;
					if (isnull)
						continue;
					if (ag->distinct[i] != NULL && !distinct_add(ag->distinct[i], g, &v))
						continue;
					switch (agg->kind)
					{
						case TM_AGG_COUNT:
							out->vals[col][g].i++;
							break;
						case TM_AGG_SUM:
							st = tm_sum_add(&out->vals[col][g], &out->nulls[col][g], &v,
											&agg->arg->result, &agg->restype);
							if (st != TM_OK)
								return st;
							break;
						case TM_AGG_MIN:
						case TM_AGG_MAX:
							if (out->nulls[col][g])
								agg_set_extreme(out, col, g, &v);
							else
							{
								int			cmp = tm_values_cmp(&v, &out->vals[col][g],
																&out->types[col]);
								bool		tie_new = out->types[col].kind == TM_K_FLOAT4 ||
									out->types[col].kind == TM_K_FLOAT8;

								/*
								 * On a tie, PostgreSQL's transition function decides which value
								 * stays.  float4/float8 smaller/larger return the new one
								 * (float8_lt(state, new) ? state : new): 0 and -0 tie, and the
								 * later row's sign shows.  bpchar_smaller/larger keep the state
								 * ('a' and 'a  ' tie); the other kinds tie only on values shown
								 * alike (text under a C collation: equal bytes; numeric: one scale
								 * here; integers, dates, timestamps), whichever stays.
								 */
								if (tie_new && cmp == 0)
									agg_set_extreme(out, col, g, &v);
								else if (agg->kind == TM_AGG_MIN ? cmp < 0 : cmp > 0)
									agg_set_extreme(out, col, g, &v);
							}
							break;
						case TM_AGG_ANY:
							/* every row of the group has this value: keep the first */
							if (out->nulls[col][g])
								agg_set_extreme(out, col, g, &v);
							break;
						default:
							return TM_ERR_INTERNAL;
					}
				}
				return TM_OK;
			}
	}
	return TM_ERR_INTERNAL;
}

/* push the current tree path through ops[k..] and into the sink */
static TmStatus
run_ops(TmPipeExec *pe, int k)
{
	const TmOp *op;
	TmStatus	st;

	if (k == pe->pl->nops)
		return sink_row(pe);

	op = &pe->pl->ops[k];
	if (op->kind == TM_OP_FILTER)
	{
		bool		pass;

		st = tm_eval_qual(op->qual, pe->vals, pe->nulls, &pass);
		if (st != TM_OK)
			return st;
		return pass ? run_ops(pe, k + 1) : TM_OK;
	}
	else if (op->kind == TM_OP_PROBE)
	{
		const TmCpuHash *ht = pe->opht[k];
		TmValue    *keys = pe->opkeys[k];
		uint64		h = 0;
		int64		start = 0,
					end = 0,
					r;
		bool		found = false;
		int			i;

		for (i = 0; i < op->nkeys; i++)
		{
			bool		isnull;

			st = tm_eval(op->keys[i], pe->vals, pe->nulls, &keys[i], &isnull);
			if (st != TM_OK)
				return st;
			if (isnull)
				break;
			h = tm_hash_key(h, &keys[i], false, &ht->keytypes[i]);
		}
		/* NULL keys never match */
		if (i == op->nkeys && !ht_lookup(ht, h, keys, &start, &end))
			start = end = 0;

		for (r = start; r < end; r++)
		{
			bool		pass = true;

			if ((++pe->tick & 0x3fff) == 0)
				CHECK_FOR_INTERRUPTS();
			fill_level(pe, k + 1, ht, r);
			if (op->qual != NULL)
			{
				st = tm_eval_qual(op->qual, pe->vals, pe->nulls, &pass);
				if (st != TM_OK)
					return st;
			}
			if (!pass)
				continue;
			found = true;
			if (op->jointype == TM_JOIN_INNER || op->jointype == TM_JOIN_LEFT)
			{
				st = run_ops(pe, k + 1);
				if (st != TM_OK)
					return st;
			}
			else
				break;			/* SEMI / ANTI: one passing match decides */
		}

		switch (op->jointype)
		{
			case TM_JOIN_INNER:
				return TM_OK;
			case TM_JOIN_LEFT:
				if (found)
					return TM_OK;
				fill_level(pe, k + 1, NULL, 0);
				return run_ops(pe, k + 1);
			case TM_JOIN_SEMI:
				return found ? run_ops(pe, k + 1) : TM_OK;
			case TM_JOIN_ANTI:
				return found ? TM_OK : run_ops(pe, k + 1);
		}
	}
	return TM_ERR_INTERNAL;
}

/* set up slot bookkeeping, sink state and level -1 slots of pipeline pl */
static void
pipe_init(TmPipeExec *pe, TmCpuExec *ex, const TmPipeline *pl)
{
	const TmPlan *plan = ex->plan;
	const TmSink *sink = &pl->sink;
	int			nlevels = pl->nops + 2;	/* levels -1 .. nops */
	int			s,
				k;

	memset(pe, 0, sizeof(TmPipeExec));
	pe->ex = ex;
	pe->pl = pl;
	pe->vals = values_alloc(ex->workcxt, Max(pl->nslots, 1));
	pe->nulls = palloc0(sizeof(bool) * Max(pl->nslots, 1));
	pe->lvcount = palloc0(sizeof(int) * nlevels);
	pe->lvslots = palloc0(sizeof(int *) * nlevels);
	for (k = 0; k < nlevels; k++)
		pe->lvslots[k] = palloc(sizeof(int) * Max(pl->nslots, 1));
	for (s = 0; s < pl->nslots; s++)
	{
		int			lv = pl->slots[s].level;

		if (lv < -1 || lv > pl->nops ||
			(lv >= 1 && pl->ops[lv - 1].kind != TM_OP_PROBE))
			elog(ERROR, "themis: slot %d has an invalid level %d", s, lv);
		pe->lvslots[lv + 1][pe->lvcount[lv + 1]++] = s;
		memset(&pe->vals[s], 0, sizeof(TmValue));
		pe->nulls[s] = true;
		if (lv == -1)
		{
			int			p = pl->slots[s].col;

			if (p < 0 || p >= plan->nparams)
				elog(ERROR, "themis: slot %d refers to parameter %d of %d", s, p, plan->nparams);
			pe->nulls[s] = ex->paramnulls ? ex->paramnulls[p] : true;
			if (!pe->nulls[s])
				pe->vals[s] = ex->params[p];
		}
	}

	pe->opkeys = palloc0(sizeof(TmValue *) * Max(pl->nops, 1));
	pe->opht = palloc0(sizeof(TmCpuHash *) * Max(pl->nops, 1));
	for (k = 0; k < pl->nops; k++)
	{
		const TmOp *op = &pl->ops[k];

		if (op->kind != TM_OP_PROBE)
			continue;
		if (op->ht < 0 || op->ht >= plan->nhashtables || ex->hts[op->ht] == NULL)
			elog(ERROR, "themis: hash table %d is probed before it is built", op->ht);
		if (op->nkeys != ex->hts[op->ht]->nkeys)
			elog(ERROR, "themis: probe of hash table %d has %d keys, the table has %d",
				 op->ht, op->nkeys, ex->hts[op->ht]->nkeys);
		pe->opht[k] = ex->hts[op->ht];
		pe->opkeys[k] = values_alloc(ex->workcxt, Max(op->nkeys, 1));
	}

	switch (sink->kind)
	{
		case TM_SINK_EMIT:
			if (sink->target < 0 || sink->target >= plan->nresults ||
				plan->results[sink->target].ncols != sink->nvals)
				elog(ERROR, "themis: EMIT sink does not match result %d", sink->target);
			if (ex->results[sink->target] == NULL)
				ex->results[sink->target] =
					store_create(sink->target == plan->output_result ? ex->outcxt : ex->workcxt,
								 sink->nvals, plan->results[sink->target].coltypes);
			pe->store = ex->results[sink->target];
			break;
		case TM_SINK_HASH_BUILD:
			{
				const TmHashTable *def;
				TmType	   *types;
				int			ncols;

				if (sink->target < 0 || sink->target >= plan->nhashtables)
					elog(ERROR, "themis: HASH_BUILD sink has an invalid hash table %d", sink->target);
				def = &plan->hashtables[sink->target];
				if (def->nkeys != sink->nkeys || def->npayload != sink->nvals)
					elog(ERROR, "themis: HASH_BUILD sink does not match hash table %d", sink->target);
				ncols = def->nkeys + def->npayload;
				types = palloc(sizeof(TmType) * Max(ncols, 1));
				memcpy(types, def->keytypes, sizeof(TmType) * def->nkeys);
				memcpy(types + def->nkeys, def->payloadtypes, sizeof(TmType) * def->npayload);
				pe->store = store_create(ex->workcxt, ncols, types);
				pe->hashcap = TM_STORE_INITCAP;
				pe->hashes = huge_alloc(ex->workcxt, sizeof(uint64) * pe->hashcap);
				pe->scratch = values_alloc(ex->workcxt, Max(ncols, 1));
				pe->scratchnulls = palloc0(sizeof(bool) * Max(ncols, 1));
				break;
			}
		case TM_SINK_AGG:
			if (sink->target < 0 || sink->target >= plan->nresults ||
				plan->results[sink->target].ncols != sink->nkeys + sink->naggs)
				elog(ERROR, "themis: AGG sink does not match result %d", sink->target);
			if (ex->results[sink->target] != NULL)
				elog(ERROR, "themis: result %d is made twice", sink->target);
			pe->agg = agg_create(ex->workcxt,
								 sink->target == plan->output_result ? ex->outcxt : ex->workcxt,
								 sink, &plan->results[sink->target]);
			break;
		default:
			elog(ERROR, "themis: unknown sink kind %d", sink->kind);
	}
}

/* finish the sink: publish the hash table or result; returns the sink's output row count */
static int64
pipe_finish(TmPipeExec *pe, TmStatus *st)
{
	TmCpuExec  *ex = pe->ex;
	const TmSink *sink = &pe->pl->sink;

	*st = TM_OK;
	switch (sink->kind)
	{
		case TM_SINK_EMIT:
			return pe->store->nrows;
		case TM_SINK_HASH_BUILD:
			{
				TmCpuHash  *ht = ht_build(ex->workcxt, &ex->plan->hashtables[sink->target],
										  pe->store, pe->hashes, &ex->reason);

				if (ht == NULL)
				{
					*st = TM_ERR_FALLBACK;
					return 0;
				}
				ex->hts[sink->target] = ht;
				return ht->nrows;
			}
		case TM_SINK_AGG:
			ex->results[sink->target] = pe->agg->out;
			return pe->agg->out->nrows;
	}
	return 0;
}

/* convert the level-0 slots of a heap row */
static bool
fill_from_heap(TmPipeExec *pe, TupleTableSlot *slot)
{
	const TmPipeline *pl = pe->pl;
	int			n = pe->lvcount[1];
	const int  *sl = pe->lvslots[1];
	int			i;

	for (i = 0; i < n; i++)
	{
		int			s = sl[i];
		int			attno = pl->src_attnos[pl->slots[s].col];
		Datum		d;
		bool		isnull;

		if (attno > 0)
		{
			d = slot->tts_values[attno - 1];
			isnull = slot->tts_isnull[attno - 1];
		}
		else
			d = slot_getsysattr(slot, attno, &isnull);
		pe->nulls[s] = isnull;
		if (!isnull && !tm_datum_to_value(d, &pl->slots[s].type, &pe->vals[s]))
			return false;
	}
	return true;
}

/* run a pipeline whose source is a heap table */
static TmStatus
run_table_source(TmPipeExec *pe, TmPipelineStats *stats)
{
	TmCpuExec  *ex = pe->ex;
	const TmPipeline *pl = pe->pl;
	Relation	rel;
	TableScanDesc scan;
	TupleTableSlot *slot;
	TmStatus	st = TM_OK;
	int			maxattno = 0;
	int			i;

	for (i = 0; i < pe->lvcount[1]; i++)
	{
		int			col = pl->slots[pe->lvslots[1][i]].col;

		if (col < 0 || col >= pl->nsrccols)
			elog(ERROR, "themis: slot refers to source column %d of %d", col, pl->nsrccols);
		maxattno = Max(maxattno, pl->src_attnos[col]);
	}

	rel = table_open(pl->relid, AccessShareLock);
	if (maxattno > RelationGetDescr(rel)->natts)
		elog(ERROR, "themis: attribute %d of relation \"%s\" does not exist",
			 maxattno, RelationGetRelationName(rel));
	scan = table_beginscan(rel, ex->estate->es_snapshot, 0, NULL);
	slot = table_slot_create(rel, NULL);

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		MemoryContext old;
		bool		ok;

		CHECK_FOR_INTERRUPTS();
		stats->source_rows++;
		if (maxattno > 0)
			slot_getsomeattrs(slot, maxattno);
		old = MemoryContextSwitchTo(ex->rowcxt);
		ok = fill_from_heap(pe, slot);
		MemoryContextSwitchTo(old);
		if (!ok)
		{
			ex->reason = psprintf("a value of \"%s\" is not representable by themis",
								  RelationGetRelationName(rel));
			st = TM_ERR_FALLBACK;
			break;
		}
		st = run_ops(pe, 0);
		MemoryContextReset(ex->rowcxt);
		if (st != TM_OK)
			break;
	}

	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	table_close(rel, NoLock);
	return st;
}

/* run a pipeline whose source is a PostgreSQL subplan (a part of the plan themis leaves to PostgreSQL) */
static TmStatus
run_subplan_source(TmPipeExec *pe, TmPipelineStats *stats)
{
	TmCpuExec  *ex = pe->ex;
	const TmPipeline *pl = pe->pl;
	PlanState  *ps;
	int			n = pe->lvcount[1];
	const int  *sl = pe->lvslots[1];
	int			maxcol = 0;
	int			i;

	if (pl->subplan < 1 || pl->subplan > ex->ninputs)
		elog(ERROR, "themis: pipeline reads subplan %d of %d", pl->subplan, ex->ninputs);
	ps = ex->inputs[pl->subplan - 1];
	for (i = 0; i < n; i++)
	{
		int			col = pl->slots[sl[i]].col;

		if (col < 0 || col >= pl->nsrccols)
			elog(ERROR, "themis: slot refers to column %d of a subplan with %d", col, pl->nsrccols);
		maxcol = Max(maxcol, col + 1);
	}

	for (;;)
	{
		TupleTableSlot *slot;
		MemoryContext old;
		bool		ok = true;
		TmStatus	st;

		CHECK_FOR_INTERRUPTS();

		/*
		 * PostgreSQL's nodes expect to run in the query context: some create long-lived memory contexts
		 * (a Hash Join's hash table) under CurrentMemoryContext on their first fetch.
		 */
		old = MemoryContextSwitchTo(ex->estate->es_query_cxt);
		slot = ExecProcNode(ps);
		MemoryContextSwitchTo(old);
		if (TupIsNull(slot))
			break;
		stats->source_rows++;
		if (maxcol > 0)
			slot_getsomeattrs(slot, maxcol);
		old = MemoryContextSwitchTo(ex->rowcxt);
		for (i = 0; i < n && ok; i++)
		{
			int			s = sl[i];
			int			col = pl->slots[s].col;

			pe->nulls[s] = slot->tts_isnull[col];
			if (!pe->nulls[s])
				ok = tm_datum_to_value(slot->tts_values[col], &pl->slots[s].type, &pe->vals[s]);
		}
		MemoryContextSwitchTo(old);
		if (!ok)
		{
			ex->reason = "a value of a PostgreSQL subplan is not representable by themis";
			return TM_ERR_FALLBACK;
		}
		st = run_ops(pe, 0);
		MemoryContextReset(ex->rowcxt);
		if (st != TM_OK)
			return st;
	}
	return TM_OK;
}

/* run a pipeline whose source is an earlier result */
static TmStatus
run_result_source(TmPipeExec *pe, TmPipelineStats *stats)
{
	const TmPipeline *pl = pe->pl;
	const TmStore *src;
	int			n = pe->lvcount[1];
	const int  *sl = pe->lvslots[1];
	int64		r;
	int			i;

	if (pl->src_result < 0 || pl->src_result >= pe->ex->plan->nresults ||
		pe->ex->results[pl->src_result] == NULL)
		elog(ERROR, "themis: result %d is read before it is made", pl->src_result);
	src = pe->ex->results[pl->src_result];
	for (i = 0; i < n; i++)
		if (pl->slots[sl[i]].col < 0 || pl->slots[sl[i]].col >= src->ncols)
			elog(ERROR, "themis: slot refers to column %d of result %d", pl->slots[sl[i]].col,
				 pl->src_result);

	for (r = 0; r < src->nrows; r++)
	{
		TmStatus	st;

		if ((r & 0xfff) == 0)
			CHECK_FOR_INTERRUPTS();
		stats->source_rows++;
		for (i = 0; i < n; i++)
		{
			int			s = sl[i];
			int			col = pl->slots[s].col;

			pe->nulls[s] = src->nulls[col][r];
			pe->vals[s] = src->vals[col][r];
		}
		st = run_ops(pe, 0);
		if (st != TM_OK)
			return st;
	}
	return TM_OK;
}

/* does an inner or semi probe of this pipeline read a hash table without rows? */
static bool
pipeline_has_empty_probe(const TmCpuExec *ex, const TmPipeline *pl)
{
	for (int o = 0; o < pl->nops; o++)
	{
		const TmOp *op = &pl->ops[o];

		if (op->kind == TM_OP_PROBE &&
			(op->jointype == TM_JOIN_INNER || op->jointype == TM_JOIN_SEMI) &&
			ex->hts[op->ht] != NULL && ex->hts[op->ht]->nrows == 0)
			return true;
	}
	return false;
}

StaticAssertDecl(THEMIS_PROBE_ORDER_OPS == TM_PROBE_ORDER_MAX_OPS, "TmPipelineStats.probe_order");

/*
 * The order of pl's INNER probes for this run (themis/tm_probe_order.h), into perm, as the GPU executor
 * chooses it: each probe's rows out per row in from its built table and this pipeline's source rows (a
 * table's: the planner's count, which is the table's, before any filter).  True where it differs from
 * the plan's.
 */
static bool
cpu_probe_order(const TmCpuExec *ex, const TmPipeline *pl, int *perm)
{
	double		e[TM_PROBE_ORDER_MAX_OPS];
	int64		src_rows;

	if (!themis_probe_order || pl->nops < 2 || pl->nops > TM_PROBE_ORDER_MAX_OPS)
		return false;
	if (pl->srckind == TM_SRC_RESULT)
		src_rows = (pl->src_result >= 0 && pl->src_result < ex->plan->nresults &&
					ex->results[pl->src_result] != NULL) ? ex->results[pl->src_result]->nrows : 0;
	else
		src_rows = (int64) pl->est_source_rows;
	for (int k = 0; k < pl->nops; k++)
	{
		const TmOp *op = &pl->ops[k];
		const TmCpuHash *ht;

		e[k] = -1;
		if (op->kind != TM_OP_PROBE || op->jointype != TM_JOIN_INNER || op->ht < 0 ||
			op->ht >= ex->plan->nhashtables || (ht = ex->hts[op->ht]) == NULL)
			continue;
		e[k] = tm_probe_expansion(ht->nrows, ex->ht_src_rows[op->ht], ht->jt.ngroups < ht->nrows, src_rows);
	}
	return tm_probe_order(pl, e, perm);
}

TmResultSet *
tm_cpu_execute(const TmPlan *plan, EState *estate, const TmValue *params, const bool *paramnulls,
			   PlanState **inputs, int ninputs,
			   TmPipelineStats *stats, const char **fallback_reason, TmStatus *error)
{
	TmCpuExec	ex;
	TmResultSet *rs;
	TmStore    *out;
	MemoryContext old;
	int			p;

	*fallback_reason = NULL;
	*error = TM_OK;
	if (plan->output_result < 0 || plan->output_result >= plan->nresults)
		elog(ERROR, "themis: plan has an invalid output result %d", plan->output_result);

	memset(&ex, 0, sizeof(ex));
	ex.plan = plan;
	ex.estate = estate;
	ex.params = params;
	ex.paramnulls = paramnulls;
	ex.inputs = inputs;
	ex.ninputs = ninputs;
	ex.outcxt = CurrentMemoryContext;
	ex.workcxt = AllocSetContextCreate(CurrentMemoryContext, "themis cpu executor",
									   ALLOCSET_DEFAULT_SIZES);
	ex.rowcxt = AllocSetContextCreate(ex.workcxt, "themis cpu executor row",
									  ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(ex.workcxt);
	ex.results = palloc0(sizeof(TmStore *) * Max(plan->nresults, 1));
	ex.hts = palloc0(sizeof(TmCpuHash *) * Max(plan->nhashtables, 1));
	ex.ht_src_rows = palloc0(sizeof(int64) * Max(plan->nhashtables, 1));

	for (p = 0; p < plan->npipelines; p++)
	{
		const TmPipeline *pl = &plan->pipelines[p];
		TmPipelineStats *ps = &stats[p];
		TmPipeExec	pe;
		TmStatus	st;
		instr_time	t0,
					t1;
		int			perm[TM_PROBE_ORDER_MAX_OPS];

		INSTR_TIME_SET_CURRENT(t0);
		memset(ps, 0, sizeof(TmPipelineStats));

		/* the probes in the order their built tables say is cheapest */
		if (cpu_probe_order(&ex, pl, perm))
		{
			TmPipeline *plx = palloc(sizeof(TmPipeline));

			tm_pipeline_permute(pl, perm, palloc(sizeof(TmOp) * pl->nops),
								palloc(sizeof(TmSlot) * Max(pl->nslots, 1)), plx);
			pl = plx;
			ps->probe_reordered = 1;
			for (int k = 0; k < pl->nops; k++)
				ps->probe_order[k] = (int8) perm[k];
		}
		pipe_init(&pe, &ex, pl);

		/*
		 * An inner or semi probe into an empty hash table: no row can pass, and like PostgreSQL's hash
		 * join themis then does not read this side at all (no expression is evaluated on it).
		 */
		if (pipeline_has_empty_probe(&ex, pl))
			st = TM_OK;
		else if (pl->srckind == TM_SRC_TABLE)
			st = run_table_source(&pe, ps);
		else if (pl->srckind == TM_SRC_RESULT)
			st = run_result_source(&pe, ps);
		else if (pl->srckind == TM_SRC_SUBPLAN)
			st = run_subplan_source(&pe, ps);
		else
		{
			elog(ERROR, "themis: unknown source kind %d", pl->srckind);
			st = TM_ERR_INTERNAL;	/* keep compiler quiet */
		}
		ps->sink_rows = pe.sink_rows;
		if (st == TM_OK)
			ps->out_rows = pipe_finish(&pe, &st);
		if (pl->sink.kind == TM_SINK_HASH_BUILD && pl->sink.target >= 0 && pl->sink.target < plan->nhashtables)
			ex.ht_src_rows[pl->sink.target] = ps->source_rows;

		INSTR_TIME_SET_CURRENT(t1);
		INSTR_TIME_SUBTRACT(t1, t0);
		ps->time_ms = INSTR_TIME_GET_MILLISEC(t1);

		if (st == TM_ERR_FALLBACK)
		{
			MemoryContextSwitchTo(old);
			*fallback_reason = psprintf("%s (pipeline %d)",
										ex.reason ? ex.reason :
										"a value is not representable by themis", p);
			MemoryContextDelete(ex.workcxt);
			return NULL;
		}
		if (st != TM_OK)
		{
			/* an error PostgreSQL raises too (overflow, division by zero): the caller decides */
			MemoryContextSwitchTo(old);
			*error = st;
			*fallback_reason = psprintf("an expression raised an error in pipeline %d", p);
			MemoryContextDelete(ex.workcxt);
			return NULL;
		}
	}

	/* the output result (empty if no pipeline made it) */
	out = ex.results[plan->output_result];
	MemoryContextSwitchTo(ex.outcxt);
	if (out == NULL)
		out = store_create(ex.outcxt, plan->results[plan->output_result].ncols,
						   plan->results[plan->output_result].coltypes);
	rs = palloc0(sizeof(TmResultSet));
	rs->ncols = out->ncols;
	rs->types = out->types;
	rs->nrows = out->nrows;
	rs->values = out->vals;
	rs->nulls = out->nulls;

	MemoryContextDelete(ex.workcxt);
	MemoryContextSwitchTo(old);
	return rs;
}
