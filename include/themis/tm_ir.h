/*
 * tm_ir.h — the themis plan (IR): a DAG of pipelines over typed slots.
 *
 * A TmPlan is what one Custom Scan (Themis) node executes.  Its pipelines run in array order; a
 * pipeline only uses hash tables and results made by earlier pipelines.
 *
 *   pipeline = source  ->  op, op, ...  ->  sink
 *
 *   source: a heap table (read with the query's snapshot; only the listed attributes), a result
 *           (the rows that an earlier AGG or EMIT sink produced), or a subplan: rows of a part of the
 *           PostgreSQL plan that themis cannot run itself (custom_plans[subplan]), so that only that
 *           part stays on PostgreSQL.
 *   ops:    FILTER (keep the row if qual is true), PROBE (look the row's keys up in a hash table built
 *           by an earlier pipeline; join type inner / semi / anti / left; residual qual evaluated on each
 *           key match, a match counts only where it is true).
 *   sink:   HASH_BUILD (rows into hash table `target`: keys -> contiguous range of rows holding payload
 *           values), AGG (group by keys, aggregates -> result `target`), EMIT (values -> result `target`).
 *
 * Slots: every value a pipeline's expressions can read is a slot.  Slot s belongs to level
 * slots[s].level: level 0 is the source row (slots[s].col = source column index), level k >= 1 is the
 * build row matched by ops[k-1], which must be a PROBE (slots[s].col = payload column of its hash
 * table).  For a LEFT probe without a match, its level's slots are NULL.  SEMI and ANTI probes define
 * slots too, but only their own residual qual reads them (the matched build row, while it is tested).  Level -1 is a parameter (slots[s].col = index into the node's parameter list, values
 * computed by PostgreSQL once per scan / rescan: $n of prepared statements, initplan results).
 * Expressions (TmExpr) read slots by number.
 *
 * Hash tables: keys of build and probe side are compiled to the same TmType per key position (the
 * translator coerces them), so that equal values hash and compare equal.  NULL keys never match.
 *
 * Results: AGG result columns are the group keys in order, then one column per aggregate.  EMIT result
 * columns are the sink's vals.  Column types are in TmResult.
 *
 * This header is plain C (host and device).  The host keeps TmPlan in palloc'd memory; ir_serialize.c
 * turns it into one flat blob for custom_private and back.
 */
#ifndef THEMIS_TM_IR_H
#define THEMIS_TM_IR_H

#include "themis/tm_types.h"
#include "themis/tm_expr.h"

typedef enum TmSourceKind
{
	TM_SRC_TABLE = 1,
	TM_SRC_RESULT,
	TM_SRC_SUBPLAN
} TmSourceKind;

typedef enum TmOpKind
{
	TM_OP_FILTER = 1,
	TM_OP_PROBE
} TmOpKind;

typedef enum TmJoinKind
{
	TM_JOIN_INNER = 1,
	TM_JOIN_SEMI,
	TM_JOIN_ANTI,
	TM_JOIN_LEFT
} TmJoinKind;

typedef enum TmSinkKind
{
	TM_SINK_HASH_BUILD = 1,
	TM_SINK_AGG,
	TM_SINK_EMIT
} TmSinkKind;

typedef enum TmAggKind
{
	TM_AGG_COUNT_STAR = 1,		/* count(*): int8 */
	TM_AGG_COUNT,				/* count(arg): int8, non-NULL args */
	TM_AGG_SUM,					/* sum(arg): result type in TmAgg.restype (see below); NULL if no input */
	TM_AGG_MIN,					/* min(arg): same type as arg; NULL if no input */
	TM_AGG_MAX,					/* max(arg) */
	TM_AGG_ANY					/* any(arg): a non-NULL value of arg in the group, NULL if none; the same
								 * type as arg.  The plan guarantees that arg has one value over each
								 * group's rows (a column functionally dependent on the group keys), so
								 * which row gives it does not matter: the executors may take any one */
} TmAggKind;

/*
 * Sum result types, as PostgreSQL: int2/int4 -> int8 (no overflow check, like int4_sum),
 * int8 -> numeric scale 0 (128-bit accumulation), numeric(s) -> numeric(s) (128-bit; overflow of 128
 * bits is TM_ERR_FALLBACK), float4 -> float4, float8 -> float8 (overflow to infinity from finite inputs
 * raises TM_ERR_FLOAT_OVERFLOW like float8pl).  avg() is translated into SUM and COUNT (finalized by
 * PostgreSQL's own numeric_div / float8div in the node's projection).
 */

typedef struct TmSlot
{
	TmType		type;
	int16_t		level;			/* 0 = source row; k = payload of the probe ops[k-1]; -1 = parameter */
	int16_t		col;			/* source column / payload column */
} TmSlot;

typedef struct TmOp
{
	int32_t		kind;			/* TmOpKind */
	int32_t		jointype;		/* PROBE: TmJoinKind */
	int32_t		ht;				/* PROBE: hash table id */
	int32_t		nkeys;			/* PROBE: number of key expressions (== the table's nkeys) */
	TmExpr	  **keys;			/* PROBE: probe-side key expressions */
	TmExpr	   *qual;			/* FILTER: the condition; PROBE: residual condition per match, or NULL */
	char	   *label;			/* host only: text for EXPLAIN, e.g. "Hash Probe (inner) ht 0: (a = b)" */
	double		est_rows;		/* planner's estimate of rows after this op (EXPLAIN) */
} TmOp;

typedef struct TmAgg
{
	int32_t		kind;			/* TmAggKind */
	bool		distinct;		/* aggregate over distinct non-NULL arg values of the group */
	TmExpr	   *arg;			/* NULL for COUNT_STAR */
	TmExpr	   *filter;			/* FILTER (WHERE ...) clause, or NULL */
	TmType		restype;		/* result type */
} TmAgg;

typedef struct TmSink
{
	int32_t		kind;			/* TmSinkKind */
	int32_t		target;			/* HASH_BUILD: hash table id; AGG / EMIT: result id */
	int32_t		nkeys;			/* HASH_BUILD keys; AGG group keys (0 = one group, always emitted) */
	TmExpr	  **keys;
	int32_t		nvals;			/* HASH_BUILD payload columns; EMIT output columns */
	TmExpr	  **vals;
	bool	   *vals_errfree;	/* host only, while translating (NULL after deserializing): vals[i]
								 * cannot raise an error (build_reduce.c) */
	int32_t		naggs;			/* AGG */
	TmAgg	   *aggs;
	char	   *label;			/* host only: text for EXPLAIN */
} TmSink;

typedef struct TmPipeline
{
	int32_t		srckind;		/* TmSourceKind */
	uint32_t	relid;			/* TABLE: pg_class OID */
	int32_t		rtindex;		/* TABLE: range table index (EXPLAIN, permission context) */
	int32_t		src_result;		/* RESULT: id of the result read */
	int32_t		subplan;		/* SUBPLAN: index in the node's custom_plans (>= 1) */
	int32_t		nsrccols;		/* number of source columns (SUBPLAN: its output columns) */
	int16_t    *src_attnos;		/* TABLE: heap attribute number of each source column */
	int32_t		nslots;
	TmSlot	   *slots;
	int32_t		nops;
	TmOp	   *ops;
	TmSink		sink;
	char	   *source_label;	/* host only: text for EXPLAIN, e.g. "lineitem l" or "result 0" */
	double		est_source_rows;	/* planner's estimate of source rows (EXPLAIN, cost) */
	double		est_rows;		/* estimate of rows reaching the sink */
	double		est_groups;		/* AGG with keys: the planner's estimate of groups (0: none); the GPU
								 * executor sizes its first group table by it */
} TmPipeline;

typedef struct TmHashTable
{
	int32_t		nkeys;
	TmType	   *keytypes;
	int32_t		npayload;
	TmType	   *payloadtypes;
} TmHashTable;

typedef struct TmResult
{
	int32_t		ncols;
	TmType	   *coltypes;
} TmResult;

typedef struct TmPlan
{
	int32_t		npipelines;
	TmPipeline *pipelines;
	int32_t		nhashtables;
	TmHashTable *hashtables;
	int32_t		nresults;
	TmResult   *results;
	int32_t		output_result;	/* the result whose rows the Custom Scan returns */
	int32_t		nparams;		/* parameters (level -1 slots); their PG expressions are in custom_exprs */
	TmType	   *paramtypes;
} TmPlan;

#endif							/* THEMIS_TM_IR_H */
