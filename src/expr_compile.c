/*
 * expr_compile.c — compiles PostgreSQL expression trees (over slot Vars) into themis bytecode
 * (TmExpr, see include/themis/tm_expr_eval.h), and picks the common type of hash join keys.
 *
 * Only constructs whose PostgreSQL 15 semantics the interpreter reproduces exactly are accepted:
 * functions are identified by OID in a whitelist; anything else makes compilation fail with a short
 * reason, and the plan node stays on PostgreSQL.  numeric expressions get a static scale (PostgreSQL's
 * dscale rules: + and - take the larger scale, * the sum).  A numeric quotient's dscale depends on
 * the values (select_div_scale): it is held at a fixed scale and may only be compared (directly or
 * through + - *) or rounded to a fixed scale (round, trunc, ceil, floor, numeric(p, s)), never shown as
 * it is (compile_node); CASE branches of different scales are refused.  int128
 * overflow of numeric arithmetic is detected at run time (TM_ERR_FALLBACK), never raised as an error.
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/pg_locale.h"
#include "utils/timestamp.h"

#include "themis.h"
#include "themis/tm_expr_eval.h"
#include "themis/tm_hash.h"

/* ------------------------------------------------------------------------------------------------
 * Function whitelist
 * ------------------------------------------------------------------------------------------------
 */
typedef enum FnClass
{
	FN_CMP = 1,					/* sub = TmCmpPred, aux = TmCmpClass */
	FN_ARITH,					/* sub = TMI_ADD.., aux = operator kind */
	FN_NEG,						/* aux = kind */
	FN_ABS,
	FN_NOOP,					/* unary plus, widening casts, float4 -> float8: result kind = aux */
	FN_INT_NARROW,				/* aux = target kind */
	FN_INT_TO_FLOAT,
	FN_FLOAT_TO_INT,
	FN_F8_TO_F4,
	FN_INT_TO_NUM,
	FN_NUM_TO_INT,
	FN_NUM_TO_FLOAT,
	FN_NUM_TYPMOD,
	FN_DATE_TO_TS,
	FN_TS_TO_DATE,
	FN_BPCHAR_RTRIM,
	FN_DATE_PLI,
	FN_DATE_MII,
	FN_DATE_MI,
	FN_INT_PL_DATE,
	FN_DATE_PL_INTERVAL,
	FN_DATE_MI_INTERVAL,
	FN_TS_PL_INTERVAL,
	FN_TS_MI_INTERVAL,
	FN_INTERVAL_PL_DATE,
	FN_EXTRACT,					/* aux = source kind, sub = 0 numeric / 1 float8 */
	FN_LIKE,					/* sub = negate */
	FN_SUBSTR,					/* sub = has length */
	FN_CHAR_LENGTH,				/* sub = bpchar */
	FN_NUM_ROUND,				/* sub = TmReduce; 2 args: constant scale, 1 arg: scale 0 */
	FN_FLOAT_FN					/* sub = TmFloatFn */
} FnClass;

typedef struct FnInfo
{
	Oid			fn;
	int16		cls;
	int16		sub;
	int16		k1;				/* expected kind of arg 1 (0: not checked) */
	int16		k2;				/* expected kind of arg 2 */
	int16		aux;
} FnInfo;

#define I2 TM_K_INT2
#define I4 TM_K_INT4
#define I8 TM_K_INT8
#define F4 TM_K_FLOAT4
#define F8 TM_K_FLOAT8
#define NU TM_K_NUMERIC
#define DT TM_K_DATE
#define TS TM_K_TIMESTAMP
#define TX TM_K_TEXT
#define BP TM_K_BPCHAR
#define BO TM_K_BOOL

#define CMP6(eq, ne, lt, le, gt, ge, cls, k1, k2) \
	{eq, FN_CMP, TM_PRED_EQ, k1, k2, cls}, \
	{ne, FN_CMP, TM_PRED_NE, k1, k2, cls}, \
	{lt, FN_CMP, TM_PRED_LT, k1, k2, cls}, \
	{le, FN_CMP, TM_PRED_LE, k1, k2, cls}, \
	{gt, FN_CMP, TM_PRED_GT, k1, k2, cls}, \
	{ge, FN_CMP, TM_PRED_GE, k1, k2, cls}
#define ARI4(pl, mi, mul, dv, k, k1, k2) \
	{pl, FN_ARITH, TMI_ADD, k1, k2, k}, \
	{mi, FN_ARITH, TMI_SUB, k1, k2, k}, \
	{mul, FN_ARITH, TMI_MUL, k1, k2, k}, \
	{dv, FN_ARITH, TMI_DIV, k1, k2, k}

static const FnInfo fn_table[] = {
	/* comparisons */
	CMP6(F_INT2EQ, F_INT2NE, F_INT2LT, F_INT2LE, F_INT2GT, F_INT2GE, TM_CMP_INT, I2, I2),
	CMP6(F_INT4EQ, F_INT4NE, F_INT4LT, F_INT4LE, F_INT4GT, F_INT4GE, TM_CMP_INT, I4, I4),
	CMP6(F_INT8EQ, F_INT8NE, F_INT8LT, F_INT8LE, F_INT8GT, F_INT8GE, TM_CMP_INT, I8, I8),
	CMP6(F_INT24EQ, F_INT24NE, F_INT24LT, F_INT24LE, F_INT24GT, F_INT24GE, TM_CMP_INT, I2, I4),
	CMP6(F_INT42EQ, F_INT42NE, F_INT42LT, F_INT42LE, F_INT42GT, F_INT42GE, TM_CMP_INT, I4, I2),
	CMP6(F_INT28EQ, F_INT28NE, F_INT28LT, F_INT28LE, F_INT28GT, F_INT28GE, TM_CMP_INT, I2, I8),
	CMP6(F_INT82EQ, F_INT82NE, F_INT82LT, F_INT82LE, F_INT82GT, F_INT82GE, TM_CMP_INT, I8, I2),
	CMP6(F_INT48EQ, F_INT48NE, F_INT48LT, F_INT48LE, F_INT48GT, F_INT48GE, TM_CMP_INT, I4, I8),
	CMP6(F_INT84EQ, F_INT84NE, F_INT84LT, F_INT84LE, F_INT84GT, F_INT84GE, TM_CMP_INT, I8, I4),
	CMP6(F_FLOAT4EQ, F_FLOAT4NE, F_FLOAT4LT, F_FLOAT4LE, F_FLOAT4GT, F_FLOAT4GE, TM_CMP_FLOAT, F4, F4),
	CMP6(F_FLOAT8EQ, F_FLOAT8NE, F_FLOAT8LT, F_FLOAT8LE, F_FLOAT8GT, F_FLOAT8GE, TM_CMP_FLOAT, F8, F8),
	CMP6(F_FLOAT48EQ, F_FLOAT48NE, F_FLOAT48LT, F_FLOAT48LE, F_FLOAT48GT, F_FLOAT48GE, TM_CMP_FLOAT, F4, F8),
	CMP6(F_FLOAT84EQ, F_FLOAT84NE, F_FLOAT84LT, F_FLOAT84LE, F_FLOAT84GT, F_FLOAT84GE, TM_CMP_FLOAT, F8, F4),
	CMP6(F_NUMERIC_EQ, F_NUMERIC_NE, F_NUMERIC_LT, F_NUMERIC_LE, F_NUMERIC_GT, F_NUMERIC_GE, TM_CMP_NUMERIC, NU, NU),
	CMP6(F_DATE_EQ, F_DATE_NE, F_DATE_LT, F_DATE_LE, F_DATE_GT, F_DATE_GE, TM_CMP_INT, DT, DT),
	CMP6(F_TIMESTAMP_EQ, F_TIMESTAMP_NE, F_TIMESTAMP_LT, F_TIMESTAMP_LE, F_TIMESTAMP_GT, F_TIMESTAMP_GE, TM_CMP_INT, TS, TS),
	CMP6(F_DATE_EQ_TIMESTAMP, F_DATE_NE_TIMESTAMP, F_DATE_LT_TIMESTAMP, F_DATE_LE_TIMESTAMP, F_DATE_GT_TIMESTAMP,
		 F_DATE_GE_TIMESTAMP, TM_CMP_DATE_TS, DT, TS),
	CMP6(F_TIMESTAMP_EQ_DATE, F_TIMESTAMP_NE_DATE, F_TIMESTAMP_LT_DATE, F_TIMESTAMP_LE_DATE, F_TIMESTAMP_GT_DATE,
		 F_TIMESTAMP_GE_DATE, TM_CMP_TS_DATE, TS, DT),
	CMP6(F_TEXTEQ, F_TEXTNE, F_TEXT_LT, F_TEXT_LE, F_TEXT_GT, F_TEXT_GE, TM_CMP_TEXT, TX, TX),
	CMP6(F_BPCHAREQ, F_BPCHARNE, F_BPCHARLT, F_BPCHARLE, F_BPCHARGT, F_BPCHARGE, TM_CMP_BPCHAR, BP, BP),
	CMP6(F_BOOLEQ, F_BOOLNE, F_BOOLLT, F_BOOLLE, F_BOOLGT, F_BOOLGE, TM_CMP_INT, BO, BO),

	/* arithmetic */
	ARI4(F_INT2PL, F_INT2MI, F_INT2MUL, F_INT2DIV, I2, I2, I2),
	ARI4(F_INT4PL, F_INT4MI, F_INT4MUL, F_INT4DIV, I4, I4, I4),
	ARI4(F_INT8PL, F_INT8MI, F_INT8MUL, F_INT8DIV, I8, I8, I8),
	ARI4(F_INT24PL, F_INT24MI, F_INT24MUL, F_INT24DIV, I4, I2, I4),
	ARI4(F_INT42PL, F_INT42MI, F_INT42MUL, F_INT42DIV, I4, I4, I2),
	ARI4(F_INT28PL, F_INT28MI, F_INT28MUL, F_INT28DIV, I8, I2, I8),
	ARI4(F_INT82PL, F_INT82MI, F_INT82MUL, F_INT82DIV, I8, I8, I2),
	ARI4(F_INT48PL, F_INT48MI, F_INT48MUL, F_INT48DIV, I8, I4, I8),
	ARI4(F_INT84PL, F_INT84MI, F_INT84MUL, F_INT84DIV, I8, I8, I4),
	{F_INT2MOD, FN_ARITH, TMI_MOD, I2, I2, I2},
	{F_INT4MOD, FN_ARITH, TMI_MOD, I4, I4, I4},
	{F_INT8MOD, FN_ARITH, TMI_MOD, I8, I8, I8},
	ARI4(F_FLOAT4PL, F_FLOAT4MI, F_FLOAT4MUL, F_FLOAT4DIV, F4, F4, F4),
	ARI4(F_FLOAT8PL, F_FLOAT8MI, F_FLOAT8MUL, F_FLOAT8DIV, F8, F8, F8),
	ARI4(F_FLOAT48PL, F_FLOAT48MI, F_FLOAT48MUL, F_FLOAT48DIV, F8, F4, F8),
	ARI4(F_FLOAT84PL, F_FLOAT84MI, F_FLOAT84MUL, F_FLOAT84DIV, F8, F8, F4),
	{F_NUMERIC_ADD, FN_ARITH, TMI_ADD, NU, NU, NU},
	{F_NUMERIC_SUB, FN_ARITH, TMI_SUB, NU, NU, NU},
	{F_NUMERIC_MUL, FN_ARITH, TMI_MUL, NU, NU, NU},
	{F_NUMERIC_DIV, FN_ARITH, TMI_DIV, NU, NU, NU},
	{F_NUMERIC_MOD, FN_ARITH, TMI_MOD, NU, NU, NU},
	{F_MOD_NUMERIC_NUMERIC, FN_ARITH, TMI_MOD, NU, NU, NU},
	{F_MOD_INT2_INT2, FN_ARITH, TMI_MOD, I2, I2, I2},
	{F_MOD_INT4_INT4, FN_ARITH, TMI_MOD, I4, I4, I4},
	{F_MOD_INT8_INT8, FN_ARITH, TMI_MOD, I8, I8, I8},

	/* rounding */
	{F_ROUND_NUMERIC_INT4, FN_NUM_ROUND, TM_REDUCE_ROUND, NU, I4, NU},
	{F_ROUND_NUMERIC, FN_NUM_ROUND, TM_REDUCE_ROUND, NU, 0, NU},
	{F_TRUNC_NUMERIC_INT4, FN_NUM_ROUND, TM_REDUCE_TRUNC, NU, I4, NU},
	{F_TRUNC_NUMERIC, FN_NUM_ROUND, TM_REDUCE_TRUNC, NU, 0, NU},
	{F_CEIL_NUMERIC, FN_NUM_ROUND, TM_REDUCE_CEIL, NU, 0, NU},
	{F_CEILING_NUMERIC, FN_NUM_ROUND, TM_REDUCE_CEIL, NU, 0, NU},
	{F_FLOOR_NUMERIC, FN_NUM_ROUND, TM_REDUCE_FLOOR, NU, 0, NU},
	{F_ROUND_FLOAT8, FN_FLOAT_FN, TM_FFN_ROUND, F8, 0, F8},
	{F_TRUNC_FLOAT8, FN_FLOAT_FN, TM_FFN_TRUNC, F8, 0, F8},
	{F_CEIL_FLOAT8, FN_FLOAT_FN, TM_FFN_CEIL, F8, 0, F8},
	{F_CEILING_FLOAT8, FN_FLOAT_FN, TM_FFN_CEIL, F8, 0, F8},
	{F_FLOOR_FLOAT8, FN_FLOAT_FN, TM_FFN_FLOOR, F8, 0, F8},

	/* unary */
	{F_INT2UM, FN_NEG, 0, I2, 0, I2},
	{F_INT4UM, FN_NEG, 0, I4, 0, I4},
	{F_INT8UM, FN_NEG, 0, I8, 0, I8},
	{F_FLOAT4UM, FN_NEG, 0, F4, 0, F4},
	{F_FLOAT8UM, FN_NEG, 0, F8, 0, F8},
	{F_NUMERIC_UMINUS, FN_NEG, 0, NU, 0, NU},
	{F_INT2ABS, FN_ABS, 0, I2, 0, I2},
	{F_INT4ABS, FN_ABS, 0, I4, 0, I4},
	{F_INT8ABS, FN_ABS, 0, I8, 0, I8},
	{F_ABS_INT2, FN_ABS, 0, I2, 0, I2},
	{F_ABS_INT4, FN_ABS, 0, I4, 0, I4},
	{F_ABS_INT8, FN_ABS, 0, I8, 0, I8},
	{F_FLOAT4ABS, FN_ABS, 0, F4, 0, F4},
	{F_FLOAT8ABS, FN_ABS, 0, F8, 0, F8},
	{F_ABS_FLOAT4, FN_ABS, 0, F4, 0, F4},
	{F_ABS_FLOAT8, FN_ABS, 0, F8, 0, F8},
	{F_NUMERIC_ABS, FN_ABS, 0, NU, 0, NU},
	{F_ABS_NUMERIC, FN_ABS, 0, NU, 0, NU},
	{F_INT2UP, FN_NOOP, 0, I2, 0, I2},
	{F_INT4UP, FN_NOOP, 0, I4, 0, I4},
	{F_INT8UP, FN_NOOP, 0, I8, 0, I8},
	{F_FLOAT4UP, FN_NOOP, 0, F4, 0, F4},
	{F_FLOAT8UP, FN_NOOP, 0, F8, 0, F8},
	{F_NUMERIC_UPLUS, FN_NOOP, 0, NU, 0, NU},

	/* casts */
	{F_INT4_INT2, FN_NOOP, 0, I2, 0, I4},
	{F_INT8_INT2, FN_NOOP, 0, I2, 0, I8},
	{F_INT8_INT4, FN_NOOP, 0, I4, 0, I8},
	{F_INT2_INT4, FN_INT_NARROW, 0, I4, 0, I2},
	{F_INT2_INT8, FN_INT_NARROW, 0, I8, 0, I2},
	{F_INT4_INT8, FN_INT_NARROW, 0, I8, 0, I4},
	{F_FLOAT4_INT2, FN_INT_TO_FLOAT, 0, I2, 0, F4},
	{F_FLOAT4_INT4, FN_INT_TO_FLOAT, 0, I4, 0, F4},
	{F_FLOAT4_INT8, FN_INT_TO_FLOAT, 0, I8, 0, F4},
	{F_FLOAT8_INT2, FN_INT_TO_FLOAT, 0, I2, 0, F8},
	{F_FLOAT8_INT4, FN_INT_TO_FLOAT, 0, I4, 0, F8},
	{F_FLOAT8_INT8, FN_INT_TO_FLOAT, 0, I8, 0, F8},
	{F_INT2_FLOAT4, FN_FLOAT_TO_INT, 0, F4, 0, I2},
	{F_INT4_FLOAT4, FN_FLOAT_TO_INT, 0, F4, 0, I4},
	{F_INT8_FLOAT4, FN_FLOAT_TO_INT, 0, F4, 0, I8},
	{F_INT2_FLOAT8, FN_FLOAT_TO_INT, 0, F8, 0, I2},
	{F_INT4_FLOAT8, FN_FLOAT_TO_INT, 0, F8, 0, I4},
	{F_INT8_FLOAT8, FN_FLOAT_TO_INT, 0, F8, 0, I8},
	{F_FLOAT8_FLOAT4, FN_NOOP, 0, F4, 0, F8},
	{F_FLOAT4_FLOAT8, FN_F8_TO_F4, 0, F8, 0, F4},
	{F_NUMERIC_INT2, FN_INT_TO_NUM, 0, I2, 0, NU},
	{F_NUMERIC_INT4, FN_INT_TO_NUM, 0, I4, 0, NU},
	{F_NUMERIC_INT8, FN_INT_TO_NUM, 0, I8, 0, NU},
	{F_INT2_NUMERIC, FN_NUM_TO_INT, 0, NU, 0, I2},
	{F_INT4_NUMERIC, FN_NUM_TO_INT, 0, NU, 0, I4},
	{F_INT8_NUMERIC, FN_NUM_TO_INT, 0, NU, 0, I8},
	{F_FLOAT4_NUMERIC, FN_NUM_TO_FLOAT, 0, NU, 0, F4},
	{F_FLOAT8_NUMERIC, FN_NUM_TO_FLOAT, 0, NU, 0, F8},
	{F_NUMERIC_NUMERIC_INT4, FN_NUM_TYPMOD, 0, NU, I4, NU},
	{F_TIMESTAMP_DATE, FN_DATE_TO_TS, 0, DT, 0, TS},
	{F_DATE_TIMESTAMP, FN_TS_TO_DATE, 0, TS, 0, DT},
	{F_TEXT_BPCHAR, FN_BPCHAR_RTRIM, 0, BP, 0, TX},

	/* dates */
	{F_DATE_PLI, FN_DATE_PLI, 0, DT, I4, DT},
	{F_DATE_MII, FN_DATE_MII, 0, DT, I4, DT},
	{F_DATE_MI, FN_DATE_MI, 0, DT, DT, I4},
	{F_INTEGER_PL_DATE, FN_INT_PL_DATE, 0, I4, DT, DT},
	{F_DATE_PL_INTERVAL, FN_DATE_PL_INTERVAL, 0, DT, 0, TS},
	{F_DATE_MI_INTERVAL, FN_DATE_MI_INTERVAL, 0, DT, 0, TS},
	{F_TIMESTAMP_PL_INTERVAL, FN_TS_PL_INTERVAL, 0, TS, 0, TS},
	{F_TIMESTAMP_MI_INTERVAL, FN_TS_MI_INTERVAL, 0, TS, 0, TS},
	{F_INTERVAL_PL_DATE, FN_INTERVAL_PL_DATE, 0, 0, DT, TS},
	{F_EXTRACT_TEXT_DATE, FN_EXTRACT, 0, TX, DT, DT},
	{F_EXTRACT_TEXT_TIMESTAMP, FN_EXTRACT, 0, TX, TS, TS},
	{F_DATE_PART_TEXT_TIMESTAMP, FN_EXTRACT, 1, TX, TS, TS},

	/* text */
	{F_TEXTLIKE, FN_LIKE, 0, TX, TX, 0},
	{F_TEXTNLIKE, FN_LIKE, 1, TX, TX, 0},
	{F_BPCHARLIKE, FN_LIKE, 0, BP, TX, 0},
	{F_BPCHARNLIKE, FN_LIKE, 1, BP, TX, 0},
	{F_SUBSTR_TEXT_INT4_INT4, FN_SUBSTR, 1, TX, I4, 0},
	{F_SUBSTRING_TEXT_INT4_INT4, FN_SUBSTR, 1, TX, I4, 0},
	{F_SUBSTR_TEXT_INT4, FN_SUBSTR, 0, TX, I4, 0},
	{F_SUBSTRING_TEXT_INT4, FN_SUBSTR, 0, TX, I4, 0},
	{F_LENGTH_TEXT, FN_CHAR_LENGTH, 0, TX, 0, 0},
	{F_CHAR_LENGTH_TEXT, FN_CHAR_LENGTH, 0, TX, 0, 0},
	{F_CHARACTER_LENGTH_TEXT, FN_CHAR_LENGTH, 0, TX, 0, 0},
	{F_TEXTLEN, FN_CHAR_LENGTH, 0, TX, 0, 0},
	{F_LENGTH_BPCHAR, FN_CHAR_LENGTH, 1, BP, 0, 0},
	{F_CHAR_LENGTH_BPCHAR, FN_CHAR_LENGTH, 1, BP, 0, 0},
	{F_CHARACTER_LENGTH_BPCHAR, FN_CHAR_LENGTH, 1, BP, 0, 0},
};

static const FnInfo *
lookup_fn(Oid fn)
{
	int			i;

	for (i = 0; i < (int) lengthof(fn_table); i++)
		if (fn_table[i].fn == fn)
			return &fn_table[i];
	return NULL;
}

/* ------------------------------------------------------------------------------------------------
 * Compiler state
 * ------------------------------------------------------------------------------------------------
 */
typedef struct CRes
{
	TmType		t;
	bool		nullconst;		/* a NULL constant: fits any type of a CASE / COALESCE */
	bool		dynscale;		/* numeric whose PostgreSQL dscale depends on the values (a quotient):
								 * t.scale is only the scale it is held at; see compile_node */
} CRes;

typedef struct CState
{
	TmInstr    *code;
	int			ncode;
	int			maxcode;
	TmValue    *consts;
	int			nconst;
	int			maxconst;
	StringInfoData pool;
	int			depth;
	int			maxdepth;
	int			nlocals;
	int			maxlocals;
	int			case_local;		/* local holding the CaseTestExpr value, or -1 */
	TmType		case_type;
	Node	   *override_node;	/* NULLIF: this node reads override_local */
	int			override_local;
	TmType		override_type;
	const TmType *slottypes;
	int			nslots;
	const char *why;
} CState;

static bool compile_node(CState *cs, Node *node, CRes *res, bool toplevel);
static bool compile_node_dyn(CState *cs, Node *node, CRes *res, bool toplevel);

static bool
fail(CState *cs, const char *why)
{
	if (cs->why == NULL)
		cs->why = why;
	return false;
}

static int
emit(CState *cs, int op, int flags, int a, int b, int c)
{
	TmInstr    *in;
	int			pops,
				pushes;

	if (cs->ncode >= cs->maxcode)
	{
		cs->maxcode *= 2;
		cs->code = repalloc(cs->code, cs->maxcode * sizeof(TmInstr));
	}
	in = &cs->code[cs->ncode];
	memset(in, 0, sizeof(TmInstr));
	in->op = (uint16) op;
	in->flags = (uint16) flags;
	in->a = a;
	in->b = b;
	in->c = c;
	if (tm_instr_effect(in, &pops, &pushes))
	{
		cs->depth += pushes - pops;
		if (cs->depth > cs->maxdepth)
			cs->maxdepth = cs->depth;
	}
	return cs->ncode++;
}

static void
patch_jump(CState *cs, int at)
{
	cs->code[at].a = cs->ncode;
}

static int
add_const(CState *cs, const TmValue *v)
{
	if (cs->nconst >= cs->maxconst)
	{
		cs->maxconst *= 2;
		cs->consts = repalloc(cs->consts, cs->maxconst * sizeof(TmValue));
	}
	memcpy((char *) &cs->consts[cs->nconst], (const char *) v, sizeof(TmValue));
	return cs->nconst++;
}

/* a text constant: bytes go to the pool, .s.p holds the pool offset */
static int
add_text_const(CState *cs, const char *p, int32 len)
{
	TmValue		v;

	memset(&v, 0, sizeof(v));
	v.s.p = (const char *) (intptr_t) cs->pool.len;
	v.s.len = len;
	appendBinaryStringInfo(&cs->pool, p, len);
	return add_const(cs, &v);
}

static int
alloc_local(CState *cs)
{
	int			k = cs->nlocals++;

	if (cs->nlocals > cs->maxlocals)
		cs->maxlocals = cs->nlocals;
	return k;
}

static void
make_type(TmType *t, int kind)
{
	memset(t, 0, sizeof(TmType));
	t->kind = (int16) kind;
	t->typmod = -1;
	switch (kind)
	{
		case TM_K_BOOL:
			t->pgtype = BOOLOID;
			break;
		case TM_K_INT2:
			t->pgtype = INT2OID;
			break;
		case TM_K_INT4:
			t->pgtype = INT4OID;
			break;
		case TM_K_INT8:
			t->pgtype = INT8OID;
			break;
		case TM_K_FLOAT4:
			t->pgtype = FLOAT4OID;
			break;
		case TM_K_FLOAT8:
			t->pgtype = FLOAT8OID;
			break;
		case TM_K_NUMERIC:
			t->pgtype = NUMERICOID;
			break;
		case TM_K_DATE:
			t->pgtype = DATEOID;
			break;
		case TM_K_TIMESTAMP:
			t->pgtype = TIMESTAMPOID;
			break;
		case TM_K_TEXT:
			t->pgtype = TEXTOID;
			t->collation = DEFAULT_COLLATION_OID;
			break;
		case TM_K_BPCHAR:
			t->pgtype = BPCHAROID;
			t->collation = DEFAULT_COLLATION_OID;
			break;
		default:
			break;
	}
}

static bool
is_int_kind(int k)
{
	return k == TM_K_INT2 || k == TM_K_INT4 || k == TM_K_INT8;
}

/* encoding of character-based text operations */
static bool
text_char_mode(CState *cs, int *flags)
{
	if (GetDatabaseEncoding() == PG_UTF8)
		*flags |= TMF_UTF8;
	else if (pg_database_encoding_max_length() != 1)
		return fail(cs, "text functions in a multibyte encoding other than UTF8 are not supported");
	return true;
}

/* collation check of a text comparison */
static bool
check_text_collation(CState *cs, Oid collid, int pred)
{
	if (!OidIsValid(collid))
		return fail(cs, "text comparison without collation");
	if (lc_collate_is_c(collid))
		return true;
	if (pred != TM_PRED_EQ && pred != TM_PRED_NE)
		return fail(cs, "text ordering comparisons are supported only with the C collation");
	if (!get_collation_isdeterministic(collid))
		return fail(cs, "nondeterministic collations are not supported");
	return true;
}

/* ------------------------------------------------------------------------------------------------
 * Constants
 * ------------------------------------------------------------------------------------------------
 */
static bool
const_type(CState *cs, Const *c, TmType *t)
{
	const char *why = NULL;

	if (c->consttype == NUMERICOID)
	{
		make_type(t, TM_K_NUMERIC);
		t->typmod = c->consttypmod;
		if (c->constisnull)
			return true;
		if (numeric_is_nan(DatumGetNumeric(c->constvalue)) ||
			numeric_is_inf(DatumGetNumeric(c->constvalue)))
			return fail(cs, "numeric NaN or infinity constant");
		{
			int			dscale = DatumGetInt32(DirectFunctionCall1(numeric_scale, c->constvalue));

			if (dscale > 38)
				return fail(cs, "numeric constant with more than 38 digits after the point");
			t->scale = (int16) dscale;
		}
		return true;
	}
	if (!tm_type_from_pg(c->consttype, c->consttypmod, c->constcollid, t, &why))
		return fail(cs, why);
	return true;
}

static bool
compile_const(CState *cs, Const *c, CRes *res)
{
	TmValue		v;

	memset(res, 0, sizeof(CRes));
	if (!const_type(cs, c, &res->t))
		return false;
	if (c->constisnull)
	{
		emit(cs, TMI_PUSH_NULL, 0, 0, 0, 0);
		res->nullconst = true;
		return true;
	}
	memset(&v, 0, sizeof(v));
	if (!tm_datum_to_value(c->constvalue, &res->t, &v))
		return fail(cs, "constant not representable");
	if (res->t.kind == TM_K_TEXT || res->t.kind == TM_K_BPCHAR)
		emit(cs, TMI_PUSH_CONST, TMF_TEXT, add_text_const(cs, v.s.p, v.s.len), 0, 0);
	else
		emit(cs, TMI_PUSH_CONST, 0, add_const(cs, &v), 0, 0);
	return true;
}

static void
emit_bool_const(CState *cs, bool b)
{
	TmValue		v;

	memset(&v, 0, sizeof(v));
	v.i = b ? 1 : 0;
	emit(cs, TMI_PUSH_CONST, 0, add_const(cs, &v), 0, 0);
}

/* ------------------------------------------------------------------------------------------------
 * Function calls
 * ------------------------------------------------------------------------------------------------
 */
static bool
check_kind(CState *cs, const CRes *r, int expected)
{
	if (expected == 0 || r->t.kind == expected)
		return true;
	return fail(cs, "unexpected argument type");
}

/* unit of EXTRACT / date_part: year, month or day as DecodeUnits spells them */
static int
decode_field(Node *n)
{
	static const struct
	{
		const char *name;
		int			field;
	}			units[] = {
		{"y", TM_FIELD_YEAR}, {"year", TM_FIELD_YEAR}, {"years", TM_FIELD_YEAR},
		{"yr", TM_FIELD_YEAR}, {"yrs", TM_FIELD_YEAR},
		{"mon", TM_FIELD_MONTH}, {"mons", TM_FIELD_MONTH}, {"month", TM_FIELD_MONTH},
		{"months", TM_FIELD_MONTH},
		{"d", TM_FIELD_DAY}, {"day", TM_FIELD_DAY}, {"days", TM_FIELD_DAY},
	};
	Const	   *c;
	char	   *s;
	char	   *p;
	int			i;

	if (!IsA(n, Const))
		return 0;
	c = (Const *) n;
	if (c->constisnull || c->consttype != TEXTOID)
		return 0;
	s = text_to_cstring(DatumGetTextPP(c->constvalue));
	for (p = s; *p; p++)
	{
		if (*p >= 'A' && *p <= 'Z')
			*p += 'a' - 'A';
		else if (IS_HIGHBIT_SET(*p))
			return 0;
	}
	for (i = 0; i < (int) lengthof(units); i++)
		if (strcmp(s, units[i].name) == 0)
			return units[i].field;
	return 0;
}

/* a constant interval argument: months, days, usecs */
static bool
interval_const(CState *cs, Node *n, int32 *months, int32 *days, int64 *usecs)
{
	Interval   *iv;

	if (!IsA(n, Const) || ((Const *) n)->consttype != INTERVALOID)
		return fail(cs, "interval arithmetic with a non-constant interval is not supported");
	if (((Const *) n)->constisnull)
		return fail(cs, "NULL interval constant");
	iv = DatumGetIntervalP(((Const *) n)->constvalue);
	*months = iv->month;
	*days = iv->day;
	*usecs = iv->time;
	return true;
}

static void
emit_ts_pl_interval(CState *cs, int32 months, int32 days, int64 usecs)
{
	TmValue		v;

	memset(&v, 0, sizeof(v));
	v.i = usecs;
	emit(cs, TMI_TS_PL_INTERVAL, 0, months, days, add_const(cs, &v));
}

/* compile the arguments; dynok: they may be quotients of value-dependent scale (CRes.dynscale) */
static bool
compile_args(CState *cs, List *args, CRes *r, int maxargs, bool dynok)
{
	ListCell   *lc;
	int			i = 0;

	if (list_length(args) > maxargs)
		return fail(cs, "too many arguments");
	foreach(lc, args)
	{
		if (!(dynok ? compile_node_dyn : compile_node) (cs, (Node *) lfirst(lc), &r[i], false))
			return false;
		i++;
	}
	return true;
}

/*
 * The argument just compiled (r) is a quotient itself (its last instruction is a numeric TMI_DIV):
 * turn that instruction into TMI_NUM_DIV_REDUCE to scale (>= 0) by mode (TmReduce), so that the
 * quotient is reduced from its own scale, never held at TM_NUM_DIV_SCALE (which a small one exceeds).
 * round() and numeric(p, s) of a quotient: their result scale is static, their value that of
 * PostgreSQL's rounded quotient reduced.
 */
static bool
fuse_div_reduce(CState *cs, const CRes *r, int scale, int mode)
{
	TmInstr    *in;

	if (!r->dynscale || cs->ncode == 0 || scale < 0)
		return false;
	in = &cs->code[cs->ncode - 1];
	if (in->op != TMI_DIV || in->flags != TM_K_NUMERIC)
		return false;
	/* (the quotient is the argument's value on every path: no jump lands behind it) */
	for (int i = 0; i < cs->ncode; i++)
		if ((cs->code[i].op == TMI_JUMP || cs->code[i].op == TMI_JUMP_IF_FALSE ||
			 cs->code[i].op == TMI_JUMP_IF_TRUE || cs->code[i].op == TMI_QJUMP_IF_FALSE ||
			 cs->code[i].op == TMI_JUMP_IF_NOT_TRUE_POP || cs->code[i].op == TMI_JUMP_IF_NOT_NULL) &&
			cs->code[i].a == cs->ncode)
			return false;
	in->op = TMI_NUM_DIV_REDUCE;
	in->flags = (uint16) mode;
	in->c = scale;
	return true;
}

static bool
compile_func(CState *cs, Oid funcid, List *args, Oid inputcollid, CRes *res)
{
	const FnInfo *fi = lookup_fn(funcid);
	CRes		r[3];
	int			nargs = list_length(args);
	int			flags = 0;

	memset(res, 0, sizeof(CRes));
	memset(r, 0, sizeof(r));
	if (fi == NULL)
	{
		char	   *name = get_func_name(funcid);

		return fail(cs, psprintf("function %s is not supported", name ? name : "(unknown)"));
	}

	switch (fi->cls)
	{
		case FN_CMP:
			/* a comparison sees only the values: quotients may take part */
			if (nargs != 2 || !compile_args(cs, args, r, 2, fi->aux == TM_CMP_NUMERIC) ||
				!check_kind(cs, &r[0], fi->k1) || !check_kind(cs, &r[1], fi->k2))
				return false;
			if ((fi->aux == TM_CMP_TEXT || fi->aux == TM_CMP_BPCHAR) &&
				!check_text_collation(cs, inputcollid, fi->sub))
				return false;
			emit(cs, TMI_CMP, fi->aux, fi->sub, r[0].t.scale, r[1].t.scale);
			make_type(&res->t, TM_K_BOOL);
			return true;

		case FN_ARITH:
			/* + - * of numeric are exact whatever the operands' dscale: quotients may take part */
			if (nargs != 2 ||
				!compile_args(cs, args, r, 2, fi->aux == TM_K_NUMERIC &&
							  (fi->sub == TMI_ADD || fi->sub == TMI_SUB || fi->sub == TMI_MUL)) ||
				!check_kind(cs, &r[0], fi->k1) || !check_kind(cs, &r[1], fi->k2))
				return false;
			make_type(&res->t, fi->aux);
			if (fi->aux == TM_K_NUMERIC)
			{
				int			s1 = r[0].t.scale;
				int			s2 = r[1].t.scale;
				int			rs;

				/*
				 * numeric.c: add/sub/mod keep max(dscale), mul exact with dscale1 + dscale2; div rounds
				 * to select_div_scale's value-dependent scale, held here at TM_NUM_DIV_SCALE (or the
				 * operands' larger scale) digits: the result is marked dynscale
				 */
				if (fi->sub == TMI_DIV)
					rs = Max(TM_NUM_DIV_SCALE, Max(s1, s2));
				else
					rs = (fi->sub == TMI_MUL) ? s1 + s2 : Max(s1, s2);
				if (rs > 38)
					return fail(cs, "numeric result with more than 38 digits after the point");
				res->t.scale = (int16) rs;
				res->dynscale = (fi->sub == TMI_DIV) || r[0].dynscale || r[1].dynscale;
				emit(cs, fi->sub, TM_K_NUMERIC, s1, s2, fi->sub == TMI_DIV ? rs : 0);
			}
			else
				emit(cs, fi->sub, fi->aux, 0, 0, 0);
			return true;

		case FN_NEG:
		case FN_ABS:
		case FN_NOOP:
			if (nargs != 1 || !compile_args(cs, args, r, 1, fi->k1 == TM_K_NUMERIC) ||
				!check_kind(cs, &r[0], fi->k1))
				return false;
			res->t = r[0].t;
			res->dynscale = r[0].dynscale;
			if (fi->aux != fi->k1)
				make_type(&res->t, fi->aux);	/* widening cast */
			else
			{
				res->t.typmod = -1;
				res->t.pgtype = r[0].t.pgtype;
			}
			if (fi->cls == FN_NEG)
				emit(cs, TMI_NEG, fi->aux, 0, 0, 0);
			else if (fi->cls == FN_ABS)
				emit(cs, TMI_ABS, fi->aux, 0, 0, 0);
			return true;

		case FN_INT_NARROW:
		case FN_INT_TO_FLOAT:
		case FN_FLOAT_TO_INT:
		case FN_F8_TO_F4:
		case FN_INT_TO_NUM:
		case FN_NUM_TO_INT:
		case FN_NUM_TO_FLOAT:
		case FN_DATE_TO_TS:
		case FN_TS_TO_DATE:
		case FN_BPCHAR_RTRIM:
			if (nargs != 1 || !compile_args(cs, args, r, 1, false) || !check_kind(cs, &r[0], fi->k1))
				return false;
			make_type(&res->t, fi->aux);
			switch (fi->cls)
			{
				case FN_INT_NARROW:
					emit(cs, TMI_INT_NARROW, fi->aux, 0, 0, 0);
					break;
				case FN_INT_TO_FLOAT:
					emit(cs, TMI_INT_TO_FLOAT, fi->aux, 0, 0, 0);
					break;
				case FN_FLOAT_TO_INT:
					emit(cs, TMI_FLOAT_TO_INT, fi->aux, 0, fi->k1, 0);
					break;
				case FN_F8_TO_F4:
					emit(cs, TMI_F8_TO_F4, 0, 0, 0, 0);
					break;
				case FN_INT_TO_NUM:
					emit(cs, TMI_INT_TO_NUM, 0, 0, 0, 0);
					res->t.scale = 0;
					break;
				case FN_NUM_TO_INT:
					emit(cs, TMI_NUM_TO_INT, fi->aux, r[0].t.scale, 0, 0);
					break;
				case FN_NUM_TO_FLOAT:
					emit(cs, TMI_NUM_TO_FLOAT, fi->aux, r[0].t.scale, 0, 0);
					break;
				case FN_DATE_TO_TS:
					emit(cs, TMI_DATE_TO_TS, 0, 0, 0, 0);
					break;
				case FN_TS_TO_DATE:
					emit(cs, TMI_TS_TO_DATE, 0, 0, 0, 0);
					break;
				case FN_BPCHAR_RTRIM:
					emit(cs, TMI_BPCHAR_RTRIM, 0, 0, 0, 0);
					res->t.collation = inputcollid;
					break;
			}
			return true;

		case FN_NUM_TYPMOD:
			{
				Node	   *tm = nargs == 2 ? (Node *) lsecond(args) : NULL;
				int32		typmod;
				int			precision,
							scale;

				if (tm == NULL || !IsA(tm, Const) || ((Const *) tm)->constisnull)
					return fail(cs, "numeric length coercion with a non-constant typmod");
				typmod = DatumGetInt32(((Const *) tm)->constvalue);
				/* apply_typmod rounds the value to the typmod's scale: a quotient may come in */
				if (!compile_node_dyn(cs, (Node *) linitial(args), &r[0], false) ||
					!check_kind(cs, &r[0], TM_K_NUMERIC))
					return false;
				res->t = r[0].t;
				if (typmod < (int32) VARHDRSZ)
				{
					if (r[0].dynscale)
						return fail(cs, "the result of a numeric division is used where its scale shows (only comparisons of it run in themis)");
					return true;	/* not a valid typmod: value unchanged */
				}
				precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
				scale = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
				if (scale < 0 || scale > 38)
					return fail(cs, "numeric typmod with a scale outside 0..38");
				if (!fuse_div_reduce(cs, &r[0], scale, TM_REDUCE_ROUND) && scale != r[0].t.scale)
					emit(cs, TMI_NUM_RESCALE, 0, scale - r[0].t.scale, 0, 0);
				emit(cs, TMI_NUM_CHECK_PREC, 0, precision, 0, 0);
				res->t.scale = (int16) scale;
				res->t.typmod = typmod;
				return true;
			}

		case FN_NUM_ROUND:
			{
				int32		scale = 0;
				int			s;

				if (nargs == 2)
				{
					Node	   *sc = (Node *) lsecond(args);

					if (!IsA(sc, Const) || ((Const *) sc)->constisnull)
						return fail(cs, "round / trunc with a non-constant scale");
					scale = DatumGetInt32(((Const *) sc)->constvalue);
				}
				else if (nargs != 1)
					return fail(cs, "unexpected number of arguments");
				/* round_var etc. set the result's scale whatever the input's: a quotient may come in */
				if (!compile_node_dyn(cs, (Node *) linitial(args), &r[0], false) ||
					!check_kind(cs, &r[0], TM_K_NUMERIC))
					return false;
				/* numeric_round / numeric_trunc clamp the scale; the result dscale is Max(scale, 0) */
				scale = Max(scale, -2000);
				scale = Min(scale, 2000);
				if (scale > 38)
					return fail(cs, "numeric result with more than 38 digits after the point");
				s = r[0].t.scale;
				if (fuse_div_reduce(cs, &r[0], scale, fi->sub))
					s = scale;
				if (scale > s)
					emit(cs, TMI_NUM_RESCALE, 0, scale - s, 0, 0);
				else if (scale < s)
					emit(cs, TMI_NUM_RESCALE, fi->sub, scale - s, 0, 0);
				if (scale < 0)
				{
					if (-scale > 38)
					{
						/* every value rounds to 0 except by ceil / floor at +-10^-scale: refuse */
						return fail(cs, "round / trunc to a negative scale below -38");
					}
					emit(cs, TMI_NUM_RESCALE, 0, -scale, 0, 0);
					scale = 0;
				}
				make_type(&res->t, TM_K_NUMERIC);
				res->t.scale = (int16) scale;
				return true;
			}

		case FN_FLOAT_FN:
			if (nargs != 1 || !compile_args(cs, args, r, 1, false) || !check_kind(cs, &r[0], TM_K_FLOAT8))
				return false;
			emit(cs, TMI_FLOAT_FN, fi->sub, 0, 0, 0);
			make_type(&res->t, TM_K_FLOAT8);
			return true;

		case FN_DATE_PLI:
		case FN_DATE_MII:
		case FN_DATE_MI:
			if (nargs != 2 || !compile_args(cs, args, r, 2, false) ||
				!check_kind(cs, &r[0], fi->k1) || !check_kind(cs, &r[1], fi->k2))
				return false;
			emit(cs, fi->cls == FN_DATE_PLI ? TMI_DATE_PLI : fi->cls == FN_DATE_MII ? TMI_DATE_MII : TMI_DATE_MI,
				 0, 0, 0, 0);
			make_type(&res->t, fi->aux);
			return true;

		case FN_INT_PL_DATE:
			/* integer + date: evaluate in argument order, then swap through a local */
			{
				int			k;

				if (nargs != 2 || !compile_args(cs, args, r, 2, false) ||
					!check_kind(cs, &r[0], fi->k1) || !check_kind(cs, &r[1], fi->k2))
					return false;
				k = alloc_local(cs);
				emit(cs, TMI_STORE_LOCAL, 0, k, 0, 0);	/* date */
				k = alloc_local(cs);
				emit(cs, TMI_STORE_LOCAL, 0, k, 0, 0);	/* int */
				emit(cs, TMI_LOAD_LOCAL, 0, k - 1, 0, 0);
				emit(cs, TMI_LOAD_LOCAL, 0, k, 0, 0);
				emit(cs, TMI_DATE_PLI, 0, 0, 0, 0);
				cs->nlocals -= 2;
				make_type(&res->t, TM_K_DATE);
				return true;
			}

		case FN_DATE_PL_INTERVAL:
		case FN_DATE_MI_INTERVAL:
		case FN_TS_PL_INTERVAL:
		case FN_TS_MI_INTERVAL:
		case FN_INTERVAL_PL_DATE:
			{
				int32		months,
							days;
				int64		usecs;
				bool		swapped = (fi->cls == FN_INTERVAL_PL_DATE);
				Node	   *valarg;
				Node	   *ivarg;

				if (nargs != 2)
					return fail(cs, "unexpected number of arguments");
				valarg = (Node *) (swapped ? lsecond(args) : linitial(args));
				ivarg = (Node *) (swapped ? linitial(args) : lsecond(args));
				if (!interval_const(cs, ivarg, &months, &days, &usecs))
					return false;
				if (!compile_node(cs, valarg, &r[0], false))
					return false;
				if (fi->cls == FN_TS_PL_INTERVAL || fi->cls == FN_TS_MI_INTERVAL)
				{
					if (!check_kind(cs, &r[0], TM_K_TIMESTAMP))
						return false;
				}
				else
				{
					if (!check_kind(cs, &r[0], TM_K_DATE))
						return false;
					emit(cs, TMI_DATE_TO_TS, 0, 0, 0, 0);
				}
				if (fi->cls == FN_DATE_MI_INTERVAL || fi->cls == FN_TS_MI_INTERVAL)
				{
					/* timestamp_mi_interval negates the span (wrapping like -fwrapv) */
					months = (int32) (0u - (uint32) months);
					days = (int32) (0u - (uint32) days);
					usecs = (int64) (UINT64CONST(0) - (uint64) usecs);
				}
				emit_ts_pl_interval(cs, months, days, usecs);
				make_type(&res->t, TM_K_TIMESTAMP);
				return true;
			}

		case FN_EXTRACT:
			{
				int			field;

				if (nargs != 2)
					return fail(cs, "unexpected number of arguments");
				field = decode_field((Node *) linitial(args));
				if (field == 0)
					return fail(cs, "EXTRACT / date_part supports only the fields year, month and day");
				if (!compile_node(cs, (Node *) lsecond(args), &r[0], false) ||
					!check_kind(cs, &r[0], fi->k2))
					return false;
				emit(cs, TMI_EXTRACT, fi->aux, field, fi->sub, 0);
				if (fi->sub == 0)
				{
					make_type(&res->t, TM_K_NUMERIC);
					res->t.scale = 0;
				}
				else
					make_type(&res->t, TM_K_FLOAT8);
				return true;
			}

		case FN_LIKE:
			if (nargs != 2 || !compile_args(cs, args, r, 2, false) ||
				!check_kind(cs, &r[0], fi->k1) || !check_kind(cs, &r[1], fi->k2))
				return false;
			/* GenericMatchText refuses nondeterministic collations */
			if (OidIsValid(inputcollid) && !lc_ctype_is_c(inputcollid) &&
				!get_collation_isdeterministic(inputcollid))
				return fail(cs, "LIKE with a nondeterministic collation");
			if (!text_char_mode(cs, &flags))
				return false;
			if (fi->sub)
				flags |= TMF_NEGATE;
			emit(cs, TMI_LIKE, flags, 0, 0, 0);
			make_type(&res->t, TM_K_BOOL);
			return true;

		case FN_SUBSTR:
			if (nargs != (fi->sub ? 3 : 2) || !compile_args(cs, args, r, 3, false) ||
				!check_kind(cs, &r[0], fi->k1) || !check_kind(cs, &r[1], TM_K_INT4) ||
				(fi->sub && !check_kind(cs, &r[2], TM_K_INT4)))
				return false;
			if (!text_char_mode(cs, &flags))
				return false;
			if (fi->sub)
				flags |= TMF_HASLEN;
			emit(cs, TMI_SUBSTR, flags, 0, 0, 0);
			make_type(&res->t, TM_K_TEXT);
			res->t.collation = inputcollid;
			return true;

		case FN_CHAR_LENGTH:
			if (nargs != 1 || !compile_args(cs, args, r, 1, false) || !check_kind(cs, &r[0], fi->k1))
				return false;
			if (!text_char_mode(cs, &flags))
				return false;
			if (fi->sub)
				flags |= TMF_BPCHAR;
			emit(cs, TMI_CHAR_LENGTH, flags, 0, 0, 0);
			make_type(&res->t, TM_K_INT4);
			return true;
	}
	return fail(cs, "unsupported function class");
}

/* ------------------------------------------------------------------------------------------------
 * Boolean and conditional expressions
 * ------------------------------------------------------------------------------------------------
 */
static bool
compile_bool(CState *cs, BoolExpr *b, CRes *res, bool toplevel)
{
	ListCell   *lc;
	int		   *jumps;
	int			njumps = 0;
	bool		first = true;
	CRes		r;

	make_type(&res->t, TM_K_BOOL);
	res->nullconst = false;
	if (b->boolop == NOT_EXPR)
	{
		if (!compile_node(cs, (Node *) linitial(b->args), &r, false))
			return false;
		if (r.t.kind != TM_K_BOOL)
			return fail(cs, "NOT of a non-boolean");
		emit(cs, TMI_NOT, 0, 0, 0, 0);
		return true;
	}
	jumps = palloc(sizeof(int) * (list_length(b->args) + 1));
	foreach(lc, b->args)
	{
		if (!first)
		{
			int			jop;

			if (b->boolop == AND_EXPR)
				jop = toplevel ? TMI_QJUMP_IF_FALSE : TMI_JUMP_IF_FALSE;
			else
				jop = TMI_JUMP_IF_TRUE;
			jumps[njumps++] = emit(cs, jop, 0, -1, 0, 0);
		}
		if (!compile_node(cs, (Node *) lfirst(lc), &r, false))
			return false;
		if (r.t.kind != TM_K_BOOL)
			return fail(cs, "AND / OR of a non-boolean");
		if (!first)
			emit(cs, b->boolop == AND_EXPR ? TMI_AND : TMI_OR, 0, 0, 0, 0);
		first = false;
	}
	while (njumps > 0)
		patch_jump(cs, jumps[--njumps]);
	return true;
}

/* branches of CASE / COALESCE must share kind and (numeric) scale: PostgreSQL keeps each value's dscale */
static bool
unify_branch(CState *cs, CRes *acc, bool *have, const CRes *r)
{
	if (r->nullconst)
		return true;
	if (!*have)
	{
		*acc = *r;
		*have = true;
		return true;
	}
	if (acc->t.kind != r->t.kind)
		return fail(cs, "branches of different types");
	if (acc->t.kind == TM_K_NUMERIC && acc->t.scale != r->t.scale)
		return fail(cs, "numeric branches with different scales");
	if (acc->t.typmod != r->t.typmod)
		acc->t.typmod = -1;
	return true;
}

static bool
finish_branches(CState *cs, CRes *res, const CRes *acc, bool have, Oid type, Oid collid)
{
	if (have)
	{
		res->t = acc->t;
		res->t.pgtype = type;
		if (res->t.kind == TM_K_TEXT || res->t.kind == TM_K_BPCHAR)
			res->t.collation = collid;
		res->nullconst = false;
		return true;
	}
	/* all branches NULL */
	{
		const char *why = NULL;

		if (type == NUMERICOID)
		{
			make_type(&res->t, TM_K_NUMERIC);
			res->nullconst = true;
			return true;
		}
		if (!tm_type_from_pg(type, -1, collid, &res->t, &why))
			return fail(cs, why);
		res->nullconst = true;
		return true;
	}
}

static bool
compile_case(CState *cs, CaseExpr *ce, CRes *res)
{
	int			save_local = cs->case_local;
	TmType		save_type = cs->case_type;
	int			k = -1;
	int		   *endjumps;
	int			nend = 0;
	ListCell   *lc;
	CRes		acc;
	bool		have = false;
	CRes		r;
	int			d0;
	TmType		argtype;

	memset(&acc, 0, sizeof(acc));
	memset(&argtype, 0, sizeof(argtype));
	endjumps = palloc(sizeof(int) * (list_length(ce->args) + 1));
	if (ce->arg)
	{
		if (!compile_node(cs, (Node *) ce->arg, &r, false))
			return false;
		k = alloc_local(cs);
		emit(cs, TMI_STORE_LOCAL, 0, k, 0, 0);
		cs->case_local = k;
		cs->case_type = r.t;
		argtype = r.t;
	}
	else
		cs->case_local = -1;
	d0 = cs->depth;
	foreach(lc, ce->args)
	{
		CaseWhen   *w = lfirst_node(CaseWhen, lc);
		int			jnext;

		if (!compile_node(cs, (Node *) w->expr, &r, false))
			return false;
		if (r.t.kind != TM_K_BOOL)
			return fail(cs, "CASE WHEN condition is not boolean");
		jnext = emit(cs, TMI_JUMP_IF_NOT_TRUE_POP, 0, -1, 0, 0);
		/* results are outside the scope of this CASE's test value */
		cs->case_local = save_local;
		cs->case_type = save_type;
		if (!compile_node(cs, (Node *) w->result, &r, false) || !unify_branch(cs, &acc, &have, &r))
			return false;
		cs->case_local = k;
		cs->case_type = argtype;
		endjumps[nend++] = emit(cs, TMI_JUMP, 0, -1, 0, 0);
		cs->depth = d0;
		patch_jump(cs, jnext);
	}
	cs->case_local = save_local;
	cs->case_type = save_type;
	if (ce->defresult)
	{
		if (!compile_node(cs, (Node *) ce->defresult, &r, false) || !unify_branch(cs, &acc, &have, &r))
			return false;
	}
	else
		emit(cs, TMI_PUSH_NULL, 0, 0, 0, 0);
	while (nend > 0)
		patch_jump(cs, endjumps[--nend]);
	if (k >= 0)
		cs->nlocals--;
	return finish_branches(cs, res, &acc, have, ce->casetype, ce->casecollid);
}

static bool
compile_coalesce(CState *cs, CoalesceExpr *ce, CRes *res)
{
	int		   *jumps = palloc(sizeof(int) * (list_length(ce->args) + 1));
	int			nj = 0;
	ListCell   *lc;
	CRes		acc;
	bool		have = false;
	CRes		r;

	memset(&acc, 0, sizeof(acc));
	foreach(lc, ce->args)
	{
		if (!compile_node(cs, (Node *) lfirst(lc), &r, false) || !unify_branch(cs, &acc, &have, &r))
			return false;
		if (lnext(ce->args, lc) != NULL)
		{
			jumps[nj++] = emit(cs, TMI_JUMP_IF_NOT_NULL, 0, -1, 0, 0);
			emit(cs, TMI_POP, 0, 0, 0, 0);
		}
	}
	while (nj > 0)
		patch_jump(cs, jumps[--nj]);
	return finish_branches(cs, res, &acc, have, ce->coalescetype, ce->coalescecollid);
}

static bool
compile_nullif(CState *cs, NullIfExpr *ne, CRes *res)
{
	CRes		a;
	CRes		eq;
	int			k;
	int			j1,
				j2;
	CaseTestExpr *fake;
	Node	   *save_node = cs->override_node;
	int			save_local = cs->override_local;
	TmType		save_type = cs->override_type;
	bool		ok;

	if (list_length(ne->args) != 2)
		return fail(cs, "NULLIF with other than two arguments");
	set_opfuncid((OpExpr *) ne);
	if (!compile_node(cs, (Node *) linitial(ne->args), &a, false))
		return false;
	k = alloc_local(cs);
	emit(cs, TMI_STORE_LOCAL, 0, k, 0, 0);
	fake = makeNode(CaseTestExpr);
	fake->typeId = exprType((Node *) linitial(ne->args));
	fake->typeMod = exprTypmod((Node *) linitial(ne->args));
	fake->collation = exprCollation((Node *) linitial(ne->args));
	cs->override_node = (Node *) fake;
	cs->override_local = k;
	cs->override_type = a.t;
	ok = compile_func(cs, ne->opfuncid, list_make2(fake, lsecond(ne->args)), ne->inputcollid, &eq);
	cs->override_node = save_node;
	cs->override_local = save_local;
	cs->override_type = save_type;
	if (!ok)
		return false;
	if (eq.t.kind != TM_K_BOOL)
		return fail(cs, "NULLIF operator does not return boolean");
	j1 = emit(cs, TMI_JUMP_IF_NOT_TRUE_POP, 0, -1, 0, 0);
	emit(cs, TMI_PUSH_NULL, 0, 0, 0, 0);
	j2 = emit(cs, TMI_JUMP, 0, -1, 0, 0);
	cs->depth--;
	patch_jump(cs, j1);
	emit(cs, TMI_LOAD_LOCAL, 0, k, 0, 0);
	patch_jump(cs, j2);
	cs->nlocals--;
	res->t = a.t;
	res->t.pgtype = ne->opresulttype;
	res->nullconst = false;
	return true;
}

/* a IS DISTINCT FROM b: the operator is an equality; NULLs compare as values */
static bool
compile_distinct(CState *cs, DistinctExpr *de, CRes *res)
{
	const FnInfo *fi;
	CRes		r[2];

	make_type(&res->t, TM_K_BOOL);
	res->nullconst = false;
	set_opfuncid((OpExpr *) de);
	fi = lookup_fn(de->opfuncid);
	if (fi == NULL || fi->cls != FN_CMP || fi->sub != TM_PRED_EQ)
		return fail(cs, "IS DISTINCT FROM with an unsupported operator");
	if (list_length(de->args) != 2 || !compile_args(cs, de->args, r, 2, false) ||
		!check_kind(cs, &r[0], fi->k1) || !check_kind(cs, &r[1], fi->k2))
		return false;
	if ((fi->aux == TM_CMP_TEXT || fi->aux == TM_CMP_BPCHAR) &&
		!check_text_collation(cs, de->inputcollid, TM_PRED_EQ))
		return false;
	emit(cs, TMI_CMP, fi->aux | TMF_DISTINCT, TM_PRED_EQ, r[0].t.scale, r[1].t.scale);
	return true;
}

/* GREATEST / LEAST: btree order of the common type; NULLs ignored */
static bool
compile_minmax(CState *cs, MinMaxExpr *mm, CRes *res)
{
	ListCell   *lc;
	CRes		acc;
	bool		have = false;
	bool		first = true;
	int			cls = 0;
	CRes		r;

	memset(&acc, 0, sizeof(acc));
	foreach(lc, mm->args)
	{
		if (!compile_node(cs, (Node *) lfirst(lc), &r, false) || !unify_branch(cs, &acc, &have, &r))
			return false;
		if (!first)
			emit(cs, TMI_MINMAX, 0, mm->op == IS_GREATEST ? 1 : 0, 0, 0);	/* class patched below */
		first = false;
	}
	if (!finish_branches(cs, res, &acc, have, mm->minmaxtype, mm->minmaxcollid))
		return false;
	switch (res->t.kind)
	{
		case TM_K_BOOL:
		case TM_K_INT2:
		case TM_K_INT4:
		case TM_K_INT8:
		case TM_K_DATE:
		case TM_K_TIMESTAMP:
			cls = TM_CMP_INT;
			break;
		case TM_K_FLOAT4:
		case TM_K_FLOAT8:
			cls = TM_CMP_FLOAT;
			break;
		case TM_K_NUMERIC:
			cls = TM_CMP_NUMERIC;
			break;
		case TM_K_TEXT:
		case TM_K_BPCHAR:
			if (!OidIsValid(mm->inputcollid) || !lc_collate_is_c(mm->inputcollid))
				return fail(cs, "GREATEST / LEAST on text is supported only with the C collation");
			cls = res->t.kind == TM_K_TEXT ? TM_CMP_TEXT : TM_CMP_BPCHAR;
			break;
		default:
			return fail(cs, "GREATEST / LEAST of an unsupported type");
	}
	{
		int			i;

		for (i = 0; i < cs->ncode; i++)
			if (cs->code[i].op == TMI_MINMAX && cs->code[i].flags == 0)
				cs->code[i].flags = (uint16) cls;
	}
	return true;
}

/* ------------------------------------------------------------------------------------------------
 * x op ANY / ALL (array)
 * ------------------------------------------------------------------------------------------------
 */
typedef struct SortItem
{
	TmValue		v;
} SortItem;

static int
sortitem_cmp(const void *a, const void *b, void *arg)
{
	int			cls = *(const int *) arg;

	return tm_cmp_class(cls, &((const SortItem *) a)->v, &((const SortItem *) b)->v, 0, 0);
}

static bool
compile_saop(CState *cs, ScalarArrayOpExpr *sa, CRes *res)
{
	const FnInfo *fi;
	Node	   *left;
	Node	   *right;
	CRes		lr;
	int			cls;

	make_type(&res->t, TM_K_BOOL);
	res->nullconst = false;
	if (list_length(sa->args) != 2)
		return fail(cs, "malformed ScalarArrayOpExpr");
	set_sa_opfuncid(sa);
	fi = lookup_fn(sa->opfuncid);
	if (fi == NULL || fi->cls != FN_CMP ||
		fi->sub != (sa->useOr ? TM_PRED_EQ : TM_PRED_NE))
		return fail(cs, "only = ANY (IN) and <> ALL (NOT IN) array comparisons are supported");
	cls = fi->aux;
	if ((cls == TM_CMP_TEXT || cls == TM_CMP_BPCHAR) && !check_text_collation(cs, sa->inputcollid, fi->sub))
		return false;
	left = (Node *) linitial(sa->args);
	right = (Node *) lsecond(sa->args);

	if (IsA(right, Const))
	{
		Const	   *c = (Const *) right;
		ArrayType  *arr;
		Oid			elemtype;
		int16		typlen;
		bool		typbyval;
		char		typalign;
		Datum	   *elems;
		bool	   *nulls;
		int			n;
		int			i;
		int			cnt = 0;
		bool		hasnull = false;
		SortItem   *items;
		TmType		et;
		int			first = -1;

		if (!compile_node(cs, left, &lr, false) || !check_kind(cs, &lr, fi->k1))
			return false;
		if (cls == TM_CMP_DATE_TS || cls == TM_CMP_TS_DATE)
			return fail(cs, "IN list comparing date with timestamp");
		if (c->constisnull)
		{
			/* PostgreSQL returns NULL for a NULL array (after evaluating the scalar) */
			emit(cs, TMI_POP, 0, 0, 0, 0);
			emit(cs, TMI_PUSH_NULL, 0, 0, 0, 0);
			return true;
		}
		arr = DatumGetArrayTypeP(c->constvalue);
		elemtype = ARR_ELEMTYPE(arr);
		get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
		deconstruct_array(arr, elemtype, typlen, typbyval, typalign, &elems, &nulls, &n);
		if (n == 0)
		{
			emit(cs, TMI_POP, 0, 0, 0, 0);
			emit_bool_const(cs, !sa->useOr);
			return true;
		}
		if (fi->k2 == TM_K_NUMERIC)
		{
			make_type(&et, TM_K_NUMERIC);
			et.scale = lr.t.scale;	/* elements at the scalar's scale */
		}
		else
			make_type(&et, fi->k2);
		items = palloc0(sizeof(SortItem) * n);
		for (i = 0; i < n; i++)
		{
			if (nulls[i])
			{
				hasnull = true;
				continue;
			}
			if (!tm_datum_to_value(elems[i], &et, &items[cnt].v))
			{
				/* a numeric not exact at the scalar's scale (or NaN) never equals the scalar */
				if (et.kind == TM_K_NUMERIC)
					continue;
				return fail(cs, "array element not representable");
			}
			cnt++;
		}
		if (cnt > 1)
		{
			int			j = 0;

			qsort_arg(items, cnt, sizeof(SortItem), sortitem_cmp, &cls);
			for (i = 1; i < cnt; i++)
				if (tm_cmp_class(cls, &items[j].v, &items[i].v, 0, 0) != 0)
					items[++j] = items[i];
			cnt = j + 1;
		}
		for (i = 0; i < cnt; i++)
		{
			int			idx;

			if (cls == TM_CMP_TEXT || cls == TM_CMP_BPCHAR)
				idx = add_text_const(cs, items[i].v.s.p, items[i].v.s.len);
			else
				idx = add_const(cs, &items[i].v);
			if (i == 0)
				first = idx;
		}
		emit(cs, TMI_IN, cls, first < 0 ? 0 : first, cnt,
			 (sa->useOr ? 0 : TMF_IN_NEGATE) | (hasnull ? TMF_IN_HASNULL : 0));
		return true;
	}
	else if (IsA(right, ArrayExpr) && !((ArrayExpr *) right)->multidims)
	{
		ArrayExpr  *ae = (ArrayExpr *) right;
		int		   *jumps;
		int			nj = 0;
		ListCell   *lc;
		int			k;
		bool		first = true;

		if (list_length(ae->elements) == 0)
			return fail(cs, "empty ARRAY[] in IN");
		foreach(lc, ae->elements)
		{
			Node	   *el = (Node *) lfirst(lc);

			if (!IsA(el, Const) && !IsA(el, Var))
				return fail(cs, "IN list elements must be constants or columns");
		}
		if (!compile_node(cs, left, &lr, false) || !check_kind(cs, &lr, fi->k1))
			return false;
		k = alloc_local(cs);
		emit(cs, TMI_STORE_LOCAL, 0, k, 0, 0);
		jumps = palloc(sizeof(int) * list_length(ae->elements));
		foreach(lc, ae->elements)
		{
			CRes		er;

			if (!first)
				jumps[nj++] = emit(cs, sa->useOr ? TMI_JUMP_IF_TRUE : TMI_JUMP_IF_FALSE, 0, -1, 0, 0);
			emit(cs, TMI_LOAD_LOCAL, 0, k, 0, 0);
			if (!compile_node(cs, (Node *) lfirst(lc), &er, false) || !check_kind(cs, &er, fi->k2))
				return false;
			emit(cs, TMI_CMP, cls, fi->sub, lr.t.scale, er.t.scale);
			if (!first)
				emit(cs, sa->useOr ? TMI_OR : TMI_AND, 0, 0, 0, 0);
			first = false;
		}
		while (nj > 0)
			patch_jump(cs, jumps[--nj]);
		cs->nlocals--;
		return true;
	}
	return fail(cs, "array comparison with a non-constant array");
}

/* ------------------------------------------------------------------------------------------------
 * Nodes
 * ------------------------------------------------------------------------------------------------
 */

/*
 * Compile node where its value may show (output, aggregate input, key, CASE branch, function
 * argument...): a quotient is refused there, because PostgreSQL gives each quotient its own dscale
 * (1 / 3 has 20 digits after the point, 100 / 3 has 16) and themis holds values at one scale.
 * Comparisons and + - * (whose results are exact) take quotients through compile_node_dyn.
 */
static bool
compile_node(CState *cs, Node *node, CRes *res, bool toplevel)
{
	if (!compile_node_dyn(cs, node, res, toplevel))
		return false;
	if (res->dynscale)
		return fail(cs, "the result of a numeric division is used where its scale shows (only comparisons of it run in themis)");
	return true;
}

static bool
compile_node_dyn(CState *cs, Node *node, CRes *res, bool toplevel)
{
	memset(res, 0, sizeof(CRes));
	if (node == NULL)
		return fail(cs, "NULL expression");
	if (node == cs->override_node)
	{
		emit(cs, TMI_LOAD_LOCAL, 0, cs->override_local, 0, 0);
		res->t = cs->override_type;
		return true;
	}
	check_stack_depth();

	switch (nodeTag(node))
	{
		case T_Var:
			{
				Var		   *v = (Var *) node;
				int			slot = v->varattno - 1;

				if (v->varno != TM_SLOT_VARNO || v->varlevelsup != 0)
					return fail(cs, "reference to a column that is not a pipeline slot");
				if (slot < 0 || slot >= cs->nslots)
					return fail(cs, "slot number out of range");
				if (cs->slottypes[slot].kind == TM_K_INVALID)
					return fail(cs, "column of an unsupported type");
				emit(cs, TMI_PUSH_SLOT, 0, slot, 0, 0);
				res->t = cs->slottypes[slot];
				return true;
			}
		case T_Const:
			return compile_const(cs, (Const *) node, res);
		case T_RelabelType:
			{
				RelabelType *rt = (RelabelType *) node;
				TmType		t;
				const char *why = NULL;

				if (!compile_node(cs, (Node *) rt->arg, res, false))
					return false;
				if (res->nullconst)
				{
					if (rt->resulttype == NUMERICOID)
						return true;
				}
				if (!tm_type_from_pg(rt->resulttype, res->t.kind == TM_K_NUMERIC ? -1 : rt->resulttypmod,
									 rt->resultcollid, &t, &why))
				{
					/* numeric without a typmod (from a domain or numeric(p, s)): the argument's scale */
					if (res->t.kind != TM_K_NUMERIC)
						return fail(cs, why);
					t = res->t;
					t.pgtype = rt->resulttype;	/* not the domain's: the result is of the base type */
				}
				if (t.kind != res->t.kind &&
					!(res->t.kind == TM_K_TEXT && t.kind == TM_K_BPCHAR))
					return fail(cs, "binary coercion between different kinds");
				if (res->t.kind == TM_K_NUMERIC)
				{
					t.scale = res->t.scale;
					t.typmod = res->t.typmod;
				}
				res->t = t;
				return true;
			}
		case T_OpExpr:
			{
				OpExpr	   *op = (OpExpr *) node;

				if (op->opretset)
					return fail(cs, "set-returning operator");
				set_opfuncid(op);
				return compile_func(cs, op->opfuncid, op->args, op->inputcollid, res);
			}
		case T_FuncExpr:
			{
				FuncExpr   *fe = (FuncExpr *) node;
				bool		ok;

				if (fe->funcretset)
					return fail(cs, "set-returning function");
				ok = compile_func(cs, fe->funcid, fe->args, fe->inputcollid, res);
				if (ok && (res->t.kind == TM_K_TEXT || res->t.kind == TM_K_BPCHAR))
				{
					res->t.pgtype = fe->funcresulttype;
					res->t.collation = fe->funccollid;
				}
				return ok;
			}
		case T_BoolExpr:
			return compile_bool(cs, (BoolExpr *) node, res, toplevel);
		case T_NullTest:
			{
				NullTest   *nt = (NullTest *) node;
				CRes		r;

				if (nt->argisrow)
					return fail(cs, "IS NULL on a row value");
				if (!compile_node_dyn(cs, (Node *) nt->arg, &r, false))	/* only NULL-ness */
					return false;
				emit(cs, nt->nulltesttype == IS_NULL ? TMI_IS_NULL : TMI_IS_NOT_NULL, 0, 0, 0, 0);
				make_type(&res->t, TM_K_BOOL);
				return true;
			}
		case T_BooleanTest:
			{
				BooleanTest *bt = (BooleanTest *) node;
				CRes		r;
				int			op;

				if (!compile_node(cs, (Node *) bt->arg, &r, false))
					return false;
				if (r.t.kind != TM_K_BOOL)
					return fail(cs, "boolean test of a non-boolean");
				switch (bt->booltesttype)
				{
					case IS_TRUE:
						op = TMI_IS_TRUE;
						break;
					case IS_NOT_TRUE:
						op = TMI_IS_NOT_TRUE;
						break;
					case IS_FALSE:
						op = TMI_IS_FALSE;
						break;
					case IS_NOT_FALSE:
						op = TMI_IS_NOT_FALSE;
						break;
					case IS_UNKNOWN:
						op = TMI_IS_NULL;
						break;
					case IS_NOT_UNKNOWN:
						op = TMI_IS_NOT_NULL;
						break;
					default:
						return fail(cs, "unknown boolean test");
				}
				emit(cs, op, 0, 0, 0, 0);
				make_type(&res->t, TM_K_BOOL);
				return true;
			}
		case T_CaseExpr:
			return compile_case(cs, (CaseExpr *) node, res);
		case T_CaseTestExpr:
			if (cs->case_local < 0)
				return fail(cs, "CaseTestExpr outside of CASE");
			emit(cs, TMI_LOAD_LOCAL, 0, cs->case_local, 0, 0);
			res->t = cs->case_type;
			return true;
		case T_CoalesceExpr:
			return compile_coalesce(cs, (CoalesceExpr *) node, res);
		case T_NullIfExpr:
			return compile_nullif(cs, (NullIfExpr *) node, res);
		case T_ScalarArrayOpExpr:
			return compile_saop(cs, (ScalarArrayOpExpr *) node, res);
		case T_DistinctExpr:
			return compile_distinct(cs, (DistinctExpr *) node, res);
		case T_MinMaxExpr:
			return compile_minmax(cs, (MinMaxExpr *) node, res);
		case T_Param:
			return fail(cs, "parameters are not supported here");
		case T_CoerceViaIO:
			return fail(cs, "I/O conversion casts are not supported");
		case T_Aggref:
			return fail(cs, "aggregate in expression");
		case T_SubPlan:
		case T_AlternativeSubPlan:
			return fail(cs, "subplans are not supported");
		default:
			return fail(cs, psprintf("expression node %d is not supported", (int) nodeTag(node)));
	}
}

/* convert the result on the stack from type *from to *to, exactly */
static bool
emit_coercion(CState *cs, const TmType *from, const TmType *to)
{
	if (is_int_kind(from->kind) && is_int_kind(to->kind))
	{
		if (to->kind < from->kind)
			return fail(cs, "key coercion would narrow an integer");
		return true;
	}
	if (from->kind == to->kind)
	{
		if (from->kind == TM_K_NUMERIC)
		{
			if (to->scale < from->scale)
				return fail(cs, "key coercion would round a numeric");
			if (to->scale > from->scale)
				emit(cs, TMI_NUM_RESCALE, 0, to->scale - from->scale, 0, 0);
		}
		return true;
	}
	if (is_int_kind(from->kind) && to->kind == TM_K_NUMERIC)
	{
		emit(cs, TMI_INT_TO_NUM, 0, to->scale, 0, 0);
		return true;
	}
	if (from->kind == TM_K_FLOAT4 && to->kind == TM_K_FLOAT8)
		return true;
	if (from->kind == TM_K_DATE && to->kind == TM_K_TIMESTAMP)
	{
		emit(cs, TMI_DATE_TO_TS, 0, 0, 0, 0);
		return true;
	}
	return fail(cs, "no exact conversion between key types");
}

TmExpr *
tm_compile_expr(Expr *expr, const TmType *slottypes, int nslots, const TmType *coerce_to, const char **why)
{
	CState		cs;
	CRes		res;
	TmExpr	   *e;
	Size		instr_off,
				const_off,
				pool_off,
				total;
	int		   *depth;

	memset(&cs, 0, sizeof(cs));
	cs.maxcode = 32;
	cs.code = palloc(cs.maxcode * sizeof(TmInstr));
	cs.maxconst = 8;
	cs.consts = palloc(cs.maxconst * sizeof(TmValue));
	initStringInfo(&cs.pool);
	cs.case_local = -1;
	cs.override_local = -1;
	cs.slottypes = slottypes;
	cs.nslots = nslots;

	if (contain_volatile_functions((Node *) expr))
	{
		*why = "volatile function";
		return NULL;
	}
	if (!compile_node(&cs, (Node *) expr, &res, true))
	{
		*why = cs.why ? cs.why : "expression not supported";
		return NULL;
	}
	if (res.nullconst && res.t.kind == TM_K_NUMERIC && coerce_to == NULL)
	{
		*why = "NULL numeric of unknown scale";
		return NULL;
	}
	if (coerce_to != NULL)
	{
		if (!res.nullconst && !emit_coercion(&cs, &res.t, coerce_to))
		{
			*why = cs.why;
			return NULL;
		}
		res.t = *coerce_to;
	}
	if (cs.maxdepth > TM_EXPR_MAX_STACK || cs.depth != 1)
	{
		*why = cs.depth != 1 ? "internal error: unbalanced expression stack" : "expression too deep";
		return NULL;
	}
	if (cs.maxlocals > TM_EXPR_MAX_LOCALS)
	{
		*why = "too many nested CASE / NULLIF expressions";
		return NULL;
	}

	/* lay out the block: header, instructions, constants, pool; every part 16-byte aligned */
	instr_off = TYPEALIGN(16, sizeof(TmExpr));
	const_off = TYPEALIGN(16, instr_off + cs.ncode * sizeof(TmInstr));
	pool_off = TYPEALIGN(16, const_off + cs.nconst * sizeof(TmValue));
	total = TYPEALIGN(16, pool_off + cs.pool.len);
	if (total > (Size) PG_INT32_MAX / 2)
	{
		*why = "expression too large";
		return NULL;
	}
	e = (TmExpr *) palloc0(total);
	e->total_size = (int32) total;
	e->ninstr = cs.ncode;
	e->instr_off = (int32) instr_off;
	e->nconst = cs.nconst;
	e->const_off = (int32) const_off;
	e->pool_len = cs.pool.len;
	e->pool_off = (int32) pool_off;
	e->max_stack = Max(cs.maxdepth, 1);
	e->result = res.t;
	memcpy((char *) e + instr_off, cs.code, cs.ncode * sizeof(TmInstr));
	if (cs.nconst > 0)
		memcpy((char *) e + const_off, (const char *) cs.consts, cs.nconst * sizeof(TmValue));
	if (cs.pool.len > 0)
		memcpy((char *) e + pool_off, cs.pool.data, cs.pool.len);

	depth = palloc((cs.ncode + 1) * sizeof(int));
	if (!tm_expr_validate(e, nslots, depth))
	{
		*why = "internal error: invalid bytecode";
		return NULL;
	}
	pfree(depth);
	return e;
}

bool
tm_join_key_type(const TmType *a, const TmType *b, Oid eqop, TmType *out, const char **why)
{
	Oid			fn = get_opcode(eqop);
	const FnInfo *fi = lookup_fn(fn);

	if (fi == NULL || fi->cls != FN_CMP || fi->sub != TM_PRED_EQ)
	{
		*why = "join operator is not a supported equality";
		return false;
	}
	if (!(fi->k1 == a->kind && fi->k2 == b->kind) && !(fi->k1 == b->kind && fi->k2 == a->kind))
	{
		*why = "join key types do not match the operator";
		return false;
	}
	if (is_int_kind(a->kind) && is_int_kind(b->kind))
	{
		make_type(out, Max(a->kind, b->kind));
		return true;
	}
	if ((a->kind == TM_K_FLOAT4 || a->kind == TM_K_FLOAT8) &&
		(b->kind == TM_K_FLOAT4 || b->kind == TM_K_FLOAT8))
	{
		make_type(out, (a->kind == TM_K_FLOAT8 || b->kind == TM_K_FLOAT8) ? TM_K_FLOAT8 : TM_K_FLOAT4);
		return true;
	}
	if (a->kind == TM_K_NUMERIC && b->kind == TM_K_NUMERIC)
	{
		make_type(out, TM_K_NUMERIC);
		out->scale = Max(a->scale, b->scale);
		return true;
	}
	if ((a->kind == TM_K_DATE || a->kind == TM_K_TIMESTAMP) &&
		(b->kind == TM_K_DATE || b->kind == TM_K_TIMESTAMP))
	{
		make_type(out, (a->kind == TM_K_DATE && b->kind == TM_K_DATE) ? TM_K_DATE : TM_K_TIMESTAMP);
		return true;
	}
	if (a->kind == b->kind && (a->kind == TM_K_TEXT || a->kind == TM_K_BPCHAR))
	{
		Oid			coll = OidIsValid(a->collation) ? a->collation : b->collation;

		if (!OidIsValid(coll) ||
			(!lc_collate_is_c(coll) && !get_collation_isdeterministic(coll)) ||
			(OidIsValid(b->collation) && b->collation != coll &&
			 !lc_collate_is_c(b->collation) && !get_collation_isdeterministic(b->collation)))
		{
			*why = "text join key with a nondeterministic or unknown collation";
			return false;
		}
		make_type(out, a->kind);
		out->pgtype = a->pgtype;
		out->collation = coll;
		return true;
	}
	if (a->kind == TM_K_BOOL && b->kind == TM_K_BOOL)
	{
		make_type(out, TM_K_BOOL);
		return true;
	}
	*why = "join key types cannot be compared exactly";
	return false;
}

/* ------------------------------------------------------------------------------------------------
 * Disassembly
 * ------------------------------------------------------------------------------------------------
 */
static const char *
cmp_class_name(int c)
{
	switch (c)
	{
		case TM_CMP_INT: return "int";
		case TM_CMP_FLOAT: return "float";
		case TM_CMP_NUMERIC: return "numeric";
		case TM_CMP_TEXT: return "text";
		case TM_CMP_BPCHAR: return "bpchar";
		case TM_CMP_DATE_TS: return "date_ts";
		case TM_CMP_TS_DATE: return "ts_date";
		default: return "?";
	}
}

static const char *
kind_name(int k)
{
	TmType		t;

	make_type(&t, k);
	if (k == TM_K_NUMERIC)
		return "numeric";
	return tm_type_name(&t);
}

static void
append_const(StringInfo buf, const TmExpr *e, int idx, bool text)
{
	TmValue		v;

	if (idx < 0 || idx >= e->nconst)
	{
		appendStringInfoString(buf, "?");
		return;
	}
	v = tm_expr_const(e, idx, text);
	if (text)
	{
		appendStringInfoChar(buf, '\'');
		appendBinaryStringInfo(buf, v.s.p, v.s.len);
		appendStringInfoChar(buf, '\'');
	}
	else
		appendStringInfo(buf, INT64_FORMAT, (int64) v.i);
}

char *
tm_expr_to_string(const TmExpr *e)
{
	StringInfoData buf;
	const TmInstr *code = tm_expr_code(e);
	int			i;
	static const char *const preds[] = {"=", "<>", "<", "<=", ">", ">="};

	initStringInfo(&buf);
	appendStringInfo(&buf, "-> %s", tm_type_name(&e->result));
	for (i = 0; i < e->ninstr; i++)
	{
		const TmInstr *in = &code[i];

		appendStringInfo(&buf, "\n%3d: %s", i, tm_opcode_name(in->op));
		switch (in->op)
		{
			case TMI_PUSH_SLOT:
				appendStringInfo(&buf, " %d", in->a);
				break;
			case TMI_PUSH_CONST:
				appendStringInfoChar(&buf, ' ');
				append_const(&buf, e, in->a, (in->flags & TMF_TEXT) != 0);
				break;
			case TMI_STORE_LOCAL:
			case TMI_LOAD_LOCAL:
				appendStringInfo(&buf, " $%d", in->a);
				break;
			case TMI_JUMP:
			case TMI_JUMP_IF_FALSE:
			case TMI_JUMP_IF_TRUE:
			case TMI_QJUMP_IF_FALSE:
			case TMI_JUMP_IF_NOT_TRUE_POP:
			case TMI_JUMP_IF_NOT_NULL:
				appendStringInfo(&buf, " -> %d", in->a);
				break;
			case TMI_CMP:
				appendStringInfo(&buf, " %s %s", cmp_class_name(in->flags & TMF_CLASS_MASK),
								 (in->flags & TMF_DISTINCT) ? "is distinct from" :
								 (in->a >= 0 && in->a <= 5) ? preds[in->a] : "?");
				if ((in->flags & TMF_CLASS_MASK) == TM_CMP_NUMERIC)
					appendStringInfo(&buf, " (scales %d, %d)", in->b, in->c);
				break;
			case TMI_MINMAX:
				appendStringInfo(&buf, " %s %s", in->a ? "greatest" : "least", cmp_class_name(in->flags));
				break;
			case TMI_IN:
				{
					int			j;
					bool		text = (in->flags == TM_CMP_TEXT || in->flags == TM_CMP_BPCHAR);

					appendStringInfo(&buf, " %s%s (", cmp_class_name(in->flags),
									 (in->c & TMF_IN_NEGATE) ? " not" : "");
					for (j = 0; j < in->b && j < 20; j++)
					{
						if (j > 0)
							appendStringInfoString(&buf, ", ");
						append_const(&buf, e, in->a + j, text);
					}
					if (in->b > 20)
						appendStringInfo(&buf, ", ... %d values", in->b);
					if (in->c & TMF_IN_HASNULL)
						appendStringInfoString(&buf, ", NULL");
					appendStringInfoChar(&buf, ')');
				}
				break;
			case TMI_ADD:
			case TMI_SUB:
			case TMI_MUL:
			case TMI_DIV:
			case TMI_MOD:
				appendStringInfo(&buf, " %s", kind_name(in->flags));
				if (in->flags == TM_K_NUMERIC && in->op == TMI_DIV)
					appendStringInfo(&buf, " (scales %d, %d, held at %d)", in->a, in->b, in->c);
				else if (in->flags == TM_K_NUMERIC)
					appendStringInfo(&buf, " (scales %d, %d)", in->a, in->b);
				break;
			case TMI_NEG:
			case TMI_ABS:
			case TMI_INT_NARROW:
			case TMI_INT_TO_FLOAT:
				appendStringInfo(&buf, " %s", kind_name(in->flags));
				break;
			case TMI_NUM_TO_INT:
			case TMI_NUM_TO_FLOAT:
				appendStringInfo(&buf, " %s (scale %d)", kind_name(in->flags), in->a);
				break;
			case TMI_FLOAT_TO_INT:
				appendStringInfo(&buf, " %s -> %s", kind_name(in->b), kind_name(in->flags));
				break;
			case TMI_INT_TO_NUM:
			case TMI_NUM_CHECK_PREC:
				appendStringInfo(&buf, " %d", in->a);
				break;
			case TMI_NUM_DIV_REDUCE:
				appendStringInfo(&buf, " (scales %d, %d) to %d%s", in->a, in->b, in->c,
								 in->flags == TM_REDUCE_TRUNC ? " trunc" : in->flags == TM_REDUCE_CEIL ? " ceil" :
								 in->flags == TM_REDUCE_FLOOR ? " floor" : " round");
				break;
			case TMI_NUM_RESCALE:
				appendStringInfo(&buf, " %d%s", in->a,
								 in->a >= 0 ? "" : in->flags == TM_REDUCE_TRUNC ? " trunc" :
								 in->flags == TM_REDUCE_CEIL ? " ceil" : in->flags == TM_REDUCE_FLOOR ? " floor" : " round");
				break;
			case TMI_FLOAT_FN:
				{
					static const char *const fns[] = {"round", "trunc", "ceil", "floor"};

					appendStringInfo(&buf, " %s", in->flags <= TM_FFN_FLOOR ? fns[in->flags] : "?");
				}
				break;
			case TMI_TS_PL_INTERVAL:
				appendStringInfo(&buf, " %d mons %d days ", in->a, in->b);
				append_const(&buf, e, in->c, false);
				appendStringInfoString(&buf, " us");
				break;
			case TMI_EXTRACT:
				appendStringInfo(&buf, " %s from %s -> %s",
								 in->a == TM_FIELD_YEAR ? "year" : in->a == TM_FIELD_MONTH ? "month" : "day",
								 kind_name(in->flags), in->b ? "float8" : "numeric");
				break;
			case TMI_LIKE:
			case TMI_SUBSTR:
			case TMI_CHAR_LENGTH:
				appendStringInfo(&buf, "%s%s%s%s",
								 (in->op == TMI_LIKE && (in->flags & TMF_NEGATE)) ? " not" : "",
								 (in->flags & TMF_UTF8) ? " utf8" : " bytes",
								 (in->op == TMI_SUBSTR && (in->flags & TMF_HASLEN)) ? " with length" : "",
								 (in->op == TMI_CHAR_LENGTH && (in->flags & TMF_BPCHAR)) ? " bpchar" : "");
				break;
			default:
				break;
		}
	}
	return buf.data;
}
