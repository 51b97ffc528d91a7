/*
 * tm_expr.h — the expression bytecode of themis: format and interpreter, host and device.
 *
 * A compiled expression (TmExpr) is ONE contiguous, relocatable block of memory: a header followed by
 * the instructions, the constants and a byte pool for text constants, all addressed by offsets.  It can
 * be memcpy'd into a plan blob, into shared memory or to the GPU without fix-ups.
 *
 * Expressions read their inputs from "slots": the values of the current row of a pipeline, indexed by
 * slot number (see tm_ir.h).  Evaluation follows PostgreSQL's semantics exactly (three-valued logic,
 * strict functions, overflow and division-by-zero errors); anything PostgreSQL would do differently is
 * refused at compile time (src/expr_compile.c) so that the node stays on PostgreSQL.
 */
#ifndef THEMIS_TM_EXPR_H
#define THEMIS_TM_EXPR_H

#include "themis/tm_types.h"

/* Header of a compiled expression; instructions etc. follow at the given offsets from its start. */
typedef struct TmExpr
{
	int32_t		total_size;		/* bytes of the whole block, header included (multiple of 16) */
	int32_t		ninstr;
	int32_t		instr_off;		/* offset of TmInstr[ninstr] */
	int32_t		nconst;
	int32_t		const_off;		/* offset of TmValue[nconst] (text consts: .s.p holds a POOL OFFSET) */
	int32_t		pool_len;
	int32_t		pool_off;		/* offset of the byte pool */
	int32_t		max_stack;		/* evaluation stack depth needed */
	TmType		result;			/* type of the result */
} TmExpr;

#define TM_EXPR_MAX_STACK 64	/* the compiler refuses deeper expressions */

/*
 * Evaluate expression e over the slot arrays of the current row.
 * Returns TM_OK and sets *result / *isnull, or an error status.
 * Text results may point into the slot values or into e's pool.
 * (Defined in tm_expr_eval.h, which is included by whoever evaluates: the CPU executor, kernels, tests.)
 */

#endif							/* THEMIS_TM_EXPR_H */
