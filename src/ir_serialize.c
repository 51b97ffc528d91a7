/*
 * ir_serialize.c — TmPlan <-> one flat bytea blob, kept in the Custom Scan's custom_private so that
 * copyObject, plan caching and (out|read)funcs carry the themis plan; plus a debug dump of the plan.
 *
 * The format is private to one build of themis: a magic/version word, then the fields in a fixed
 * order.  Compiled expressions (TmExpr) are already flat blocks and are copied as they are.
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "themis.h"
#include "themis/tm_ir_read.h"


/* ---------- writer ---------- */

static void
put_bytes(StringInfo buf, const void *p, int len)
{
	appendBinaryStringInfo(buf, (const char *) p, len);
}

static void
put_int(StringInfo buf, int32 v)
{
	put_bytes(buf, &v, sizeof(v));
}

static void
put_double(StringInfo buf, double v)
{
	put_bytes(buf, &v, sizeof(v));
}

static void
put_type(StringInfo buf, const TmType *t)
{
	put_bytes(buf, t, sizeof(TmType));
}

static void
put_string(StringInfo buf, const char *s)
{
	if (s == NULL)
		put_int(buf, -1);
	else
	{
		int			len = strlen(s);

		put_int(buf, len);
		put_bytes(buf, s, len);
	}
}

static void
put_expr(StringInfo buf, const TmExpr *e)
{
	if (e == NULL)
		put_int(buf, 0);
	else
	{
		put_int(buf, e->total_size);
		put_bytes(buf, e, e->total_size);
	}
}

static void
put_exprs(StringInfo buf, TmExpr **es, int n)
{
	for (int i = 0; i < n; i++)
		put_expr(buf, es[i]);
}

bytea *
tm_plan_serialize(const TmPlan *plan)
{
	StringInfoData buf;
	bytea	   *result;

	initStringInfo(&buf);
	put_int(&buf, TM_BLOB_MAGIC);
	put_int(&buf, TM_BLOB_VERSION);

	put_int(&buf, plan->nhashtables);
	for (int h = 0; h < plan->nhashtables; h++)
	{
		TmHashTable *ht = &plan->hashtables[h];

		put_int(&buf, ht->nkeys);
		for (int i = 0; i < ht->nkeys; i++)
			put_type(&buf, &ht->keytypes[i]);
		put_int(&buf, ht->npayload);
		for (int i = 0; i < ht->npayload; i++)
			put_type(&buf, &ht->payloadtypes[i]);
	}

	put_int(&buf, plan->nresults);
	for (int r = 0; r < plan->nresults; r++)
	{
		put_int(&buf, plan->results[r].ncols);
		for (int i = 0; i < plan->results[r].ncols; i++)
			put_type(&buf, &plan->results[r].coltypes[i]);
	}
	put_int(&buf, plan->output_result);

	put_int(&buf, plan->nparams);
	for (int i = 0; i < plan->nparams; i++)
		put_type(&buf, &plan->paramtypes[i]);

	put_int(&buf, plan->npipelines);
	for (int p = 0; p < plan->npipelines; p++)
	{
		TmPipeline *pl = &plan->pipelines[p];

		put_int(&buf, pl->srckind);
		put_int(&buf, (int32) pl->relid);
		put_int(&buf, pl->rtindex);
		put_int(&buf, pl->src_result);
		put_int(&buf, pl->subplan);
		put_int(&buf, pl->nsrccols);
		for (int i = 0; i < pl->nsrccols; i++)
			put_int(&buf, pl->src_attnos ? pl->src_attnos[i] : 0);
		put_int(&buf, pl->nslots);
		put_bytes(&buf, pl->slots, sizeof(TmSlot) * pl->nslots);
		put_string(&buf, pl->source_label);
		put_double(&buf, pl->est_source_rows);
		put_double(&buf, pl->est_rows);
		put_double(&buf, pl->est_groups);

		put_int(&buf, pl->nops);
		for (int o = 0; o < pl->nops; o++)
		{
			TmOp	   *op = &pl->ops[o];

			put_int(&buf, op->kind);
			put_int(&buf, op->jointype);
			put_int(&buf, op->ht);
			put_int(&buf, op->nkeys);
			put_exprs(&buf, op->keys, op->nkeys);
			put_expr(&buf, op->qual);
			put_string(&buf, op->label);
			put_double(&buf, op->est_rows);
		}

		put_int(&buf, pl->sink.kind);
		put_int(&buf, pl->sink.target);
		put_int(&buf, pl->sink.nkeys);
		put_exprs(&buf, pl->sink.keys, pl->sink.nkeys);
		put_int(&buf, pl->sink.nvals);
		put_exprs(&buf, pl->sink.vals, pl->sink.nvals);
		put_int(&buf, pl->sink.naggs);
		for (int a = 0; a < pl->sink.naggs; a++)
		{
			TmAgg	   *agg = &pl->sink.aggs[a];

			put_int(&buf, agg->kind);
			put_int(&buf, agg->distinct ? 1 : 0);
			put_expr(&buf, agg->arg);
			put_expr(&buf, agg->filter);
			put_type(&buf, &agg->restype);
		}
		put_string(&buf, pl->sink.label);
	}

	result = (bytea *) palloc(VARHDRSZ + buf.len);
	SET_VARSIZE(result, VARHDRSZ + buf.len);
	memcpy(VARDATA(result), buf.data, buf.len);
	pfree(buf.data);
	return result;
}

/* ---------- reader (themis/tm_ir_read.h, shared with the GPU daemon) ---------- */

static void *
palloc0_cb(void *arg, size_t size)
{
	return palloc0(size);
}

TmPlan *
tm_plan_deserialize(const bytea *blob)
{
	const char *err = NULL;
	TmPlan	   *plan;

	plan = tm_plan_read(VARDATA_ANY(blob), VARSIZE_ANY_EXHDR(blob), palloc0_cb, NULL, &err);
	if (plan == NULL)
		elog(ERROR, "themis: %s", err ? err : "corrupt plan blob");
	return plan;
}

/* ---------- debug dump ---------- */

static void
dump_expr(StringInfo buf, const char *what, const TmExpr *e)
{
	if (e == NULL)
		return;
	appendStringInfo(buf, "      %s: %s\n", what, tm_expr_to_string(e));
}

char *
tm_plan_to_string(const TmPlan *plan)
{
	StringInfoData buf;
	static const char *const srcnames[] = {"?", "table", "result", "subplan"};
	static const char *const sinknames[] = {"?", "hash build", "aggregate", "emit"};
	static const char *const joinnames[] = {"?", "inner", "semi", "anti", "left"};
	static const char *const aggnames[] = {"?", "count(*)", "count", "sum", "min", "max", "any"};

	initStringInfo(&buf);
	appendStringInfo(&buf, "themis plan: %d pipelines, %d hash tables, %d results, %d params, output result %d\n",
					 plan->npipelines, plan->nhashtables, plan->nresults, plan->nparams,
					 plan->output_result);
	for (int p = 0; p < plan->npipelines; p++)
	{
		TmPipeline *pl = &plan->pipelines[p];

		appendStringInfo(&buf, "  pipeline %d: source %s", p, srcnames[pl->srckind]);
		if (pl->srckind == TM_SRC_TABLE)
		{
			appendStringInfo(&buf, " rel %u attnos (", pl->relid);
			for (int i = 0; i < pl->nsrccols; i++)
				appendStringInfo(&buf, "%s%d", i ? " " : "", pl->src_attnos[i]);
			appendStringInfoChar(&buf, ')');
		}
		else if (pl->srckind == TM_SRC_SUBPLAN)
			appendStringInfo(&buf, " %d (%d columns)", pl->subplan, pl->nsrccols);
		else
			appendStringInfo(&buf, " %d", pl->src_result);
		appendStringInfo(&buf, " [%s]\n    slots:", pl->source_label ? pl->source_label : "");
		for (int s = 0; s < pl->nslots; s++)
			appendStringInfo(&buf, " %d=%s@%d.%d", s, tm_type_name(&pl->slots[s].type),
							 pl->slots[s].level, pl->slots[s].col);
		appendStringInfoChar(&buf, '\n');
		for (int o = 0; o < pl->nops; o++)
		{
			TmOp	   *op = &pl->ops[o];

			if (op->kind == TM_OP_FILTER)
				appendStringInfo(&buf, "    op %d: filter\n", o);
			else
				appendStringInfo(&buf, "    op %d: probe %s ht %d\n", o, joinnames[op->jointype], op->ht);
			for (int k = 0; k < op->nkeys; k++)
				dump_expr(&buf, "key", op->keys[k]);
			dump_expr(&buf, "qual", op->qual);
		}
		appendStringInfo(&buf, "    sink: %s -> %d\n", sinknames[pl->sink.kind], pl->sink.target);
		for (int k = 0; k < pl->sink.nkeys; k++)
			dump_expr(&buf, "key", pl->sink.keys[k]);
		for (int k = 0; k < pl->sink.nvals; k++)
			dump_expr(&buf, "val", pl->sink.vals[k]);
		for (int a = 0; a < pl->sink.naggs; a++)
		{
			appendStringInfo(&buf, "      agg %s%s -> %s\n", aggnames[pl->sink.aggs[a].kind],
							 pl->sink.aggs[a].distinct ? " distinct" : "",
							 tm_type_name(&pl->sink.aggs[a].restype));
			dump_expr(&buf, "  arg", pl->sink.aggs[a].arg);
			dump_expr(&buf, "  filter", pl->sink.aggs[a].filter);
		}
	}
	return buf.data;
}
