/*
 * tm_ir_read.h — the reader of a serialized themis plan (the blob of src/ir_serialize.c), shared by the
 * backend (ir_serialize.c, palloc) and the GPU daemon (src/gpud/, malloc arena).  Plain C.
 *
 * tm_plan_read() allocates everything through the caller's allocator (which returns zeroed memory or
 * NULL); on a malformed blob or a failed allocation it returns NULL with *err set to a static message, and
 * whatever it allocated is left to the allocator's owner to release.
 */
#ifndef THEMIS_TM_IR_READ_H
#define THEMIS_TM_IR_READ_H

#include <stdint.h>
#include <string.h>

#include "themis/tm_ir.h"

#define TM_BLOB_MAGIC	0x544d4952	/* "TMIR" */
#define TM_BLOB_VERSION 4		/* 4: TM_AGG_ANY */

typedef void *(*TmIrAlloc) (void *arg, size_t size);	/* zeroed memory, or NULL */

typedef struct TmIrReader
{
	const char *p;
	const char *end;
	TmIrAlloc	alloc;
	void	   *arg;
	const char *err;			/* first failure */
} TmIrReader;

static inline void *
tm_ir_alloc(TmIrReader *r, size_t size)
{
	void	   *p;

	if (r->err)
		return NULL;
	p = r->alloc(r->arg, size ? size : 1);
	if (p == NULL)
		r->err = "out of memory";
	return p;
}

static inline void
tm_ir_get_bytes(TmIrReader *r, void *dst, int64_t len)
{
	if (r->err)
		return;
	if (len < 0 || r->end - r->p < len || (len > 0 && dst == NULL))
	{
		r->err = "corrupt plan blob";
		return;
	}
	if (len > 0)
		memcpy(dst, r->p, (size_t) len);
	r->p += len;
}

static inline int32_t
tm_ir_get_int(TmIrReader *r)
{
	int32_t		v = 0;

	tm_ir_get_bytes(r, &v, sizeof(v));
	return r->err ? 0 : v;
}

static inline double
tm_ir_get_double(TmIrReader *r)
{
	double		v = 0;

	tm_ir_get_bytes(r, &v, sizeof(v));
	return v;
}

static inline char *
tm_ir_get_string(TmIrReader *r)
{
	int32_t		len = tm_ir_get_int(r);
	char	   *s;

	if (len < 0 || r->err)
		return NULL;
	if (r->end - r->p < len)
	{
		r->err = "corrupt plan blob";
		return NULL;
	}
	s = (char *) tm_ir_alloc(r, (size_t) len + 1);
	tm_ir_get_bytes(r, s, len);
	return s;
}

/* TmExpr blocks hold int128 constants: give them 16-byte alignment */
static inline TmExpr *
tm_ir_get_expr(TmIrReader *r)
{
	int32_t		size = tm_ir_get_int(r);
	char	   *raw;
	TmExpr	   *e;

	if (size == 0 || r->err)
		return NULL;
	if (size < (int32_t) sizeof(TmExpr) || r->end - r->p < size)
	{
		r->err = "corrupt plan blob";
		return NULL;
	}
	raw = (char *) tm_ir_alloc(r, (size_t) size + 16);
	if (raw == NULL)
		return NULL;
	e = (TmExpr *) (((uintptr_t) raw + 15) & ~(uintptr_t) 15);
	tm_ir_get_bytes(r, e, size);
	if (!r->err && e->total_size != size)
		r->err = "corrupt plan blob";
	return e;
}

static inline TmExpr **
tm_ir_get_exprs(TmIrReader *r, int n)
{
	TmExpr	  **es;

	if (n <= 0 || r->err)
		return NULL;
	if (n > r->end - r->p)
	{
		r->err = "corrupt plan blob";
		return NULL;
	}
	es = (TmExpr **) tm_ir_alloc(r, sizeof(TmExpr *) * (size_t) n);
	for (int i = 0; es && i < n; i++)
		es[i] = tm_ir_get_expr(r);
	return es;
}

/* an array count: non-negative and no more than the bytes left (every element takes at least one) */
static inline int32_t
tm_ir_get_count(TmIrReader *r)
{
	int32_t		n = tm_ir_get_int(r);

	if (!r->err && (n < 0 || n > r->end - r->p))
	{
		r->err = "corrupt plan blob";
		return 0;
	}
	return n;
}

static inline TmType *
tm_ir_get_types(TmIrReader *r, int n)
{
	TmType	   *ts = (TmType *) tm_ir_alloc(r, sizeof(TmType) * (size_t) (n > 0 ? n : 1));

	if (ts != NULL)
		tm_ir_get_bytes(r, ts, (int64_t) sizeof(TmType) * n);
	return ts;
}

/* Read a plan from blob[0 .. len).  NULL with *err on failure. */
static inline TmPlan *
tm_plan_read(const char *blob, int64_t len, TmIrAlloc alloc, void *arg, const char **err)
{
	TmIrReader	rd;
	TmIrReader *r = &rd;
	TmPlan	   *plan;

	rd.p = blob;
	rd.end = blob + len;
	rd.alloc = alloc;
	rd.arg = arg;
	rd.err = NULL;

	plan = (TmPlan *) tm_ir_alloc(r, sizeof(TmPlan));
	if (plan == NULL)
	{
		*err = r->err;
		return NULL;
	}
	if (tm_ir_get_int(r) != TM_BLOB_MAGIC || tm_ir_get_int(r) != TM_BLOB_VERSION)
	{
		*err = "plan blob of another themis version; re-plan the query";
		return NULL;
	}

	plan->nhashtables = tm_ir_get_count(r);
	plan->hashtables = (TmHashTable *) tm_ir_alloc(r, sizeof(TmHashTable) * (size_t) (plan->nhashtables + 1));
	for (int h = 0; !r->err && h < plan->nhashtables; h++)
	{
		TmHashTable *ht = &plan->hashtables[h];

		ht->nkeys = tm_ir_get_count(r);
		ht->keytypes = tm_ir_get_types(r, ht->nkeys);
		ht->npayload = tm_ir_get_count(r);
		ht->payloadtypes = tm_ir_get_types(r, ht->npayload);
	}

	plan->nresults = tm_ir_get_count(r);
	plan->results = (TmResult *) tm_ir_alloc(r, sizeof(TmResult) * (size_t) (plan->nresults + 1));
	for (int i = 0; !r->err && i < plan->nresults; i++)
	{
		plan->results[i].ncols = tm_ir_get_count(r);
		plan->results[i].coltypes = tm_ir_get_types(r, plan->results[i].ncols);
	}
	plan->output_result = tm_ir_get_int(r);

	plan->nparams = tm_ir_get_count(r);
	plan->paramtypes = tm_ir_get_types(r, plan->nparams);

	plan->npipelines = tm_ir_get_count(r);
	plan->pipelines = (TmPipeline *) tm_ir_alloc(r, sizeof(TmPipeline) * (size_t) (plan->npipelines + 1));
	for (int p = 0; !r->err && p < plan->npipelines; p++)
	{
		TmPipeline *pl = &plan->pipelines[p];

		pl->srckind = tm_ir_get_int(r);
		pl->relid = (uint32_t) tm_ir_get_int(r);
		pl->rtindex = tm_ir_get_int(r);
		pl->src_result = tm_ir_get_int(r);
		pl->subplan = tm_ir_get_int(r);
		pl->nsrccols = tm_ir_get_count(r);
		pl->src_attnos = (int16_t *) tm_ir_alloc(r, sizeof(int16_t) * (size_t) (pl->nsrccols + 1));
		for (int i = 0; !r->err && i < pl->nsrccols; i++)
			pl->src_attnos[i] = (int16_t) tm_ir_get_int(r);
		pl->nslots = tm_ir_get_count(r);
		pl->slots = (TmSlot *) tm_ir_alloc(r, sizeof(TmSlot) * (size_t) (pl->nslots + 1));
		tm_ir_get_bytes(r, pl->slots, (int64_t) sizeof(TmSlot) * pl->nslots);
		pl->source_label = tm_ir_get_string(r);
		pl->est_source_rows = tm_ir_get_double(r);
		pl->est_rows = tm_ir_get_double(r);
		pl->est_groups = tm_ir_get_double(r);

		pl->nops = tm_ir_get_count(r);
		pl->ops = (TmOp *) tm_ir_alloc(r, sizeof(TmOp) * (size_t) (pl->nops + 1));
		for (int o = 0; !r->err && o < pl->nops; o++)
		{
			TmOp	   *op = &pl->ops[o];

			op->kind = tm_ir_get_int(r);
			op->jointype = tm_ir_get_int(r);
			op->ht = tm_ir_get_int(r);
			op->nkeys = tm_ir_get_count(r);
			op->keys = tm_ir_get_exprs(r, op->nkeys);
			op->qual = tm_ir_get_expr(r);
			op->label = tm_ir_get_string(r);
			op->est_rows = tm_ir_get_double(r);
		}
		if (r->err)
			break;

		pl->sink.kind = tm_ir_get_int(r);
		pl->sink.target = tm_ir_get_int(r);
		pl->sink.nkeys = tm_ir_get_count(r);
		pl->sink.keys = tm_ir_get_exprs(r, pl->sink.nkeys);
		pl->sink.nvals = tm_ir_get_count(r);
		pl->sink.vals = tm_ir_get_exprs(r, pl->sink.nvals);
		pl->sink.naggs = tm_ir_get_count(r);
		pl->sink.aggs = (TmAgg *) tm_ir_alloc(r, sizeof(TmAgg) * (size_t) (pl->sink.naggs + 1));
		for (int a = 0; !r->err && a < pl->sink.naggs; a++)
		{
			TmAgg	   *agg = &pl->sink.aggs[a];

			agg->kind = tm_ir_get_int(r);
			agg->distinct = tm_ir_get_int(r) != 0;
			agg->arg = tm_ir_get_expr(r);
			agg->filter = tm_ir_get_expr(r);
			tm_ir_get_bytes(r, &agg->restype, sizeof(TmType));
		}
		pl->sink.label = tm_ir_get_string(r);
	}

	if (!r->err && r->p != r->end)
		r->err = "corrupt plan blob (trailing bytes)";
	if (r->err)
	{
		*err = r->err;
		return NULL;
	}
	return plan;
}

#endif							/* THEMIS_TM_IR_READ_H */
