/*
 * test_expr.c — engine unit tests of the expression interpreter (tm_expr_eval.h) and of hashing,
 * equality, ordering and sum accumulation (tm_hash.h).  Standalone: no PostgreSQL headers.
 *
 * Expressions are assembled by hand (see Asm below).  Expected values follow PostgreSQL 15.
 *
 *   gcc -O1 -Wall -Iinclude test/unit/test_expr.c -o /tmp/test_expr && /tmp/test_expr
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <math.h>

#include "themis/tm_types.h"
#include "themis/tm_expr.h"
#include "themis/tm_expr_eval.h"
#include "themis/tm_hash.h"
#include "tm_unit.h"

/* ------------------------------------------------------------------------------------------------
 * A tiny assembler
 * ------------------------------------------------------------------------------------------------
 */
typedef struct Asm
{
	TmInstr		code[512];
	int			n;
	TmValue		consts[256];
	int			nc;
	char		pool[8192];
	int			plen;
} Asm;

static Asm A;

static void
a_init(void)
{
	memset(&A, 0, sizeof(A));
}

static int
a_op(int op, int flags, int a, int b, int c)
{
	TmInstr    *in = &A.code[A.n];

	in->op = (uint16_t) op;
	in->flags = (uint16_t) flags;
	in->a = a;
	in->b = b;
	in->c = c;
	return A.n++;
}

static int
k_val(TmValue v)
{
	A.consts[A.nc] = v;
	return A.nc++;
}

static int
k_int(int64_t i)
{
	TmValue		v;

	memset(&v, 0, sizeof(v));
	v.i = i;
	return k_val(v);
}

static int
k_text(const char *s, int len)
{
	TmValue		v;

	memset(&v, 0, sizeof(v));
	if (len < 0)
		len = (int) strlen(s);
	v.s.p = (const char *) (intptr_t) A.plen;
	v.s.len = len;
	memcpy(A.pool + A.plen, s, len);
	A.plen += len;
	return k_val(v);
}

/* pushes */
static void
p_slot(int s)
{
	a_op(TMI_PUSH_SLOT, 0, s, 0, 0);
}

static void
p_int(int64_t i)
{
	a_op(TMI_PUSH_CONST, 0, k_int(i), 0, 0);
}

static void
p_num(tm_int128 n)
{
	TmValue		v;

	memset(&v, 0, sizeof(v));
	v.n = n;
	a_op(TMI_PUSH_CONST, 0, k_val(v), 0, 0);
}

static void
p_text(const char *s)
{
	a_op(TMI_PUSH_CONST, TMF_TEXT, k_text(s, -1), 0, 0);
}

static void
p_null(void)
{
	a_op(TMI_PUSH_NULL, 0, 0, 0, 0);
}

static void
patch(int at)
{
	A.code[at].a = A.n;
}

static TmExpr *built[4096];
static int	nbuilt = 0;

/* build the block (16-byte aligned, like the compiler's layout) and validate it */
static TmExpr *
a_build(void)
{
	size_t		io = 48,
				co,
				po,
				total;
	TmExpr	   *e;
	int			depth[600];

	co = (io + A.n * sizeof(TmInstr) + 15) & ~(size_t) 15;
	po = (co + A.nc * sizeof(TmValue) + 15) & ~(size_t) 15;
	total = (po + A.plen + 15) & ~(size_t) 15;
	e = (TmExpr *) aligned_alloc(16, total);
	memset(e, 0, total);
	e->total_size = (int32_t) total;
	e->ninstr = A.n;
	e->instr_off = (int32_t) io;
	e->nconst = A.nc;
	e->const_off = (int32_t) co;
	e->pool_len = A.plen;
	e->pool_off = (int32_t) po;
	e->max_stack = TM_EXPR_MAX_STACK;
	memcpy((char *) e + io, A.code, A.n * sizeof(TmInstr));
	memcpy((char *) e + co, A.consts, A.nc * sizeof(TmValue));
	memcpy((char *) e + po, A.pool, A.plen);
	if (!tm_expr_validate(e, -1, depth))
	{
		printf("assembled expression does not validate (%s)\n", tm_unit_current);
		tm_unit_failed++;
	}
	if (nbuilt < 4096)
		built[nbuilt++] = e;
	return e;
}

/* ------------------------------------------------------------------------------------------------
 * Evaluation helpers
 * ------------------------------------------------------------------------------------------------
 */
static TmValue S[8];
static bool SN[8];
static bool ST[8];				/* slot holds text (device copies the bytes) */

static void
slots_clear(void)
{
	memset(S, 0, sizeof(S));
	memset(SN, 0, sizeof(SN));
	memset(ST, 0, sizeof(ST));
}

static void
s_int(int i, int64_t v)
{
	S[i].i = v;
	SN[i] = false;
	ST[i] = false;
}

static void
s_null(int i)
{
	S[i].n = 0;
	SN[i] = true;
	ST[i] = false;
}

static void
s_text(int i, const char *s)
{
	S[i].s.p = s;
	S[i].s.len = (int32_t) strlen(s);
	SN[i] = false;
	ST[i] = true;
}

static TmStatus last_status;
static bool last_null;
static TmValue last;

#ifdef TM_EXPR_TEST_DEVICE
/* gpu_expr.cu: evaluate on the device too and check that it agrees with the host */
static void device_check(const TmExpr *e, TmStatus hst, bool hnull, const TmValue *hres);
static void gpu_hash_checks(void);
#endif

static int	fast_checked = 0;	/* evaluations checked against the fast form */

/*
 * Where e has the fast form (TmFastArith), it must give what the interpreter gave over the same slots:
 * the same status and, where that is TM_OK, the same null flag and the same value bytes
 */
static void
fast_check(const TmExpr *e, TmStatus st, bool isnull, const TmValue *res)
{
	TmFastArith fa;
	TmValue		v;
	bool		vnull = false;
	TmStatus	vst;

	if (!tm_fast_arith_compile(e, &fa))
		return;
	fast_checked++;
	memset(&v, 0, sizeof(v));
	vst = tm_fast_arith_eval(&fa, S, SN, &v, &vnull);
	TM_CHECK_MSG(vst == st && (st != TM_OK || (vnull == isnull && (isnull || memcmp(&v, res, sizeof(v)) == 0))),
				 "fast form: status %d null %d, interpreter: status %d null %d", (int) vst, (int) vnull, (int) st,
				 (int) isnull);
}

static TmStatus
run(TmExpr *e)
{
	last_status = tm_eval(e, S, SN, &last, &last_null);
	fast_check(e, last_status, last_null, &last);
#ifdef TM_EXPR_TEST_DEVICE
	device_check(e, last_status, last_null, &last);
#endif
	return last_status;
}

/* expected outcomes */
#define EXPECT_INT(e, v) \
	do { \
		TmStatus st_ = run(e); \
		TM_CHECK_MSG(st_ == TM_OK && !last_null && last.i == (int64_t) (v), \
					 "status %d null %d value %lld, expected %lld", (int) st_, (int) last_null, \
					 (long long) last.i, (long long) (v)); \
	} while (0)
#define EXPECT_NULL(e) \
	do { \
		TmStatus st_ = run(e); \
		TM_CHECK_MSG(st_ == TM_OK && last_null, "status %d null %d value %lld, expected NULL", \
					 (int) st_, (int) last_null, (long long) last.i); \
	} while (0)
#define EXPECT_STATUS(e, stat) \
	do { \
		TmStatus st_ = run(e); \
		TM_CHECK_MSG(st_ == (stat), "status %d, expected %d", (int) st_, (int) (stat)); \
	} while (0)
#define EXPECT_FLOAT(e, v) \
	do { \
		TmStatus st_ = run(e); \
		double v_ = (v); \
		TM_CHECK_MSG(st_ == TM_OK && !last_null && \
					 ((last.f == v_ && signbit(last.f) == signbit(v_)) || (isnan(last.f) && isnan(v_))), \
					 "status %d null %d value %.17g, expected %.17g", (int) st_, (int) last_null, last.f, v_); \
	} while (0)
#define EXPECT_NUM(e, v) \
	do { \
		TmStatus st_ = run(e); \
		tm_int128 v_ = (v); \
		TM_CHECK_MSG(st_ == TM_OK && !last_null && last.n == v_, \
					 "status %d null %d value %lld, expected %lld", (int) st_, (int) last_null, \
					 (long long) last.n, (long long) v_); \
	} while (0)
#define EXPECT_TEXT(e, str) \
	do { \
		TmStatus st_ = run(e); \
		const char *s_ = (str); \
		TM_CHECK_MSG(st_ == TM_OK && !last_null && last.s.len == (int32_t) strlen(s_) && \
					 memcmp(last.s.p, s_, last.s.len) == 0, \
					 "status %d null %d value \"%.*s\", expected \"%s\"", (int) st_, (int) last_null, \
					 last_null ? 0 : (int) last.s.len, last_null ? "" : last.s.p, s_); \
	} while (0)

/* 3VL encoding for tests: 0 false, 1 true, 2 NULL */
static void
s_bool3(int i, int v)
{
	if (v == 2)
		s_null(i);
	else
		s_int(i, v);
}

static int
result3(TmExpr *e)
{
	if (run(e) != TM_OK)
		return -1;
	return last_null ? 2 : (last.i != 0);
}

/* days since 2000-01-01 */
static int64_t
mkdate(int y, int m, int d)
{
	return tm_date2j(y, m, d) - TM_POSTGRES_EPOCH_JDATE;
}

static int64_t
mkts(int y, int m, int d, int hh, int mi, int ss)
{
	return mkdate(y, m, d) * TM_USECS_PER_DAY + ((int64_t) hh * 3600 + mi * 60 + ss) * INT64_C(1000000);
}

/* ------------------------------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------------------------------
 */
static void
test_three_valued_logic(void)
{
	static const int and_t[3][3] = {{0, 0, 0}, {0, 1, 2}, {0, 2, 2}};
	static const int or_t[3][3] = {{0, 1, 2}, {1, 1, 1}, {2, 1, 2}};
	static const int not_t[3] = {1, 0, 2};
	TmExpr	   *eand,
			   *eor,
			   *enot;
	int			j,
				x,
				y;

	a_init();
	p_slot(0);
	j = a_op(TMI_JUMP_IF_FALSE, 0, -1, 0, 0);
	p_slot(1);
	a_op(TMI_AND, 0, 0, 0, 0);
	patch(j);
	eand = a_build();

	a_init();
	p_slot(0);
	j = a_op(TMI_JUMP_IF_TRUE, 0, -1, 0, 0);
	p_slot(1);
	a_op(TMI_OR, 0, 0, 0, 0);
	patch(j);
	eor = a_build();

	a_init();
	p_slot(0);
	a_op(TMI_NOT, 0, 0, 0, 0);
	enot = a_build();

	for (x = 0; x < 3; x++)
	{
		slots_clear();
		s_bool3(0, x);
		TM_CHECK_INT_EQ(result3(enot), not_t[x]);
		for (y = 0; y < 3; y++)
		{
			s_bool3(1, y);
			TM_CHECK_INT_EQ(result3(eand), and_t[x][y]);
			TM_CHECK_INT_EQ(result3(eor), or_t[x][y]);
		}
	}

	/* IS [NOT] TRUE / FALSE / NULL */
	{
		static const int ops[6] = {TMI_IS_TRUE, TMI_IS_NOT_TRUE, TMI_IS_FALSE, TMI_IS_NOT_FALSE,
		TMI_IS_NULL, TMI_IS_NOT_NULL};
		static const int expect[6][3] = {
			{0, 1, 0}, {1, 0, 1}, {1, 0, 0}, {0, 1, 1}, {0, 0, 1}, {1, 1, 0}
		};
		int			o;

		for (o = 0; o < 6; o++)
		{
			TmExpr	   *e;

			a_init();
			p_slot(0);
			a_op(ops[o], 0, 0, 0, 0);
			e = a_build();
			for (x = 0; x < 3; x++)
			{
				slots_clear();
				s_bool3(0, x);
				TM_CHECK_INT_EQ(result3(e), expect[o][x]);
			}
		}
	}
}

static void
test_short_circuit(void)
{
	TmExpr	   *e;
	int			j;
	bool		pass;

	/* slot0 AND (1 / 0 = 1), top-level (qual) AND */
	a_init();
	p_slot(0);
	j = a_op(TMI_QJUMP_IF_FALSE, 0, -1, 0, 0);
	p_int(1);
	p_int(0);
	a_op(TMI_DIV, TM_K_INT4, 0, 0, 0);
	p_int(1);
	a_op(TMI_CMP, TM_CMP_INT, TM_PRED_EQ, 0, 0);
	a_op(TMI_AND, 0, 0, 0, 0);
	patch(j);
	e = a_build();

	slots_clear();
	s_int(0, 0);				/* false: never evaluates the division */
	EXPECT_INT(e, 0);
	TM_CHECK(tm_eval_qual(e, S, SN, &pass) == TM_OK && !pass);
	s_null(0);					/* NULL: a value AND goes on (error), a qual stops */
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);
	TM_CHECK(tm_eval_qual(e, S, SN, &pass) == TM_OK && !pass);
	s_int(0, 1);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);
	TM_CHECK(tm_eval_qual(e, S, SN, &pass) == TM_ERR_DIV_BY_ZERO);

	/* slot0 OR (1 / 0 = 1) */
	a_init();
	p_slot(0);
	j = a_op(TMI_JUMP_IF_TRUE, 0, -1, 0, 0);
	p_int(1);
	p_int(0);
	a_op(TMI_DIV, TM_K_INT4, 0, 0, 0);
	p_int(1);
	a_op(TMI_CMP, TM_CMP_INT, TM_PRED_EQ, 0, 0);
	a_op(TMI_OR, 0, 0, 0, 0);
	patch(j);
	e = a_build();
	slots_clear();
	s_int(0, 1);
	EXPECT_INT(e, 1);
	s_int(0, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);

	/* qual over a plain comparison: NULL fails */
	a_init();
	p_slot(0);
	p_int(5);
	a_op(TMI_CMP, TM_CMP_INT, TM_PRED_LT, 0, 0);
	e = a_build();
	slots_clear();
	s_null(0);
	TM_CHECK(tm_eval_qual(e, S, SN, &pass) == TM_OK && !pass);
	s_int(0, 4);
	TM_CHECK(tm_eval_qual(e, S, SN, &pass) == TM_OK && pass);
	TM_CHECK(tm_eval_qual(e, S, NULL, &pass) == TM_OK && pass);	/* no null array */
}

static TmExpr *
binop_c(int op, int kind, int sa, int sb, int c)
{
	a_init();
	p_slot(0);
	p_slot(1);
	a_op(op, kind, sa, sb, c);
	return a_build();
}

static TmExpr *
binop(int op, int kind, int sa, int sb)
{
	return binop_c(op, kind, sa, sb, 0);
}

static TmExpr *
unop(int op, int flags, int a, int b)
{
	a_init();
	p_slot(0);
	a_op(op, flags, a, b, 0);
	return a_build();
}

static TmExpr *
cmpop(int cls, int pred, int sa, int sb)
{
	a_init();
	p_slot(0);
	p_slot(1);
	a_op(TMI_CMP, cls, pred, sa, sb);
	return a_build();
}

static void
test_integers(void)
{
	TmExpr	   *e;

	slots_clear();
	/* int4 */
	e = binop(TMI_ADD, TM_K_INT4, 0, 0);
	s_int(0, 2147483646);
	s_int(1, 1);
	EXPECT_INT(e, 2147483647);
	s_int(1, 2);
	EXPECT_STATUS(e, TM_ERR_INT4_OUT_OF_RANGE);
	s_int(0, -2147483647 - 1);
	s_int(1, -1);
	EXPECT_STATUS(e, TM_ERR_INT4_OUT_OF_RANGE);
	s_null(1);
	EXPECT_NULL(e);

	e = binop(TMI_SUB, TM_K_INT4, 0, 0);
	s_int(0, -2147483647);
	s_int(1, 1);
	EXPECT_INT(e, -2147483647 - 1);
	s_int(1, 2);
	EXPECT_STATUS(e, TM_ERR_INT4_OUT_OF_RANGE);

	e = binop(TMI_MUL, TM_K_INT4, 0, 0);
	s_int(0, 65536);
	s_int(1, 32768);
	EXPECT_STATUS(e, TM_ERR_INT4_OUT_OF_RANGE);
	s_int(1, -32768);
	EXPECT_INT(e, -2147483647 - 1);

	e = binop(TMI_DIV, TM_K_INT4, 0, 0);
	s_int(0, 7);
	s_int(1, -2);
	EXPECT_INT(e, -3);			/* truncation toward zero */
	s_int(0, -7);
	s_int(1, 2);
	EXPECT_INT(e, -3);
	s_int(1, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);
	s_int(0, -2147483647 - 1);
	s_int(1, -1);
	EXPECT_STATUS(e, TM_ERR_INT4_OUT_OF_RANGE);
	s_int(0, 0);
	s_int(1, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);

	e = binop(TMI_MOD, TM_K_INT4, 0, 0);
	s_int(0, -7);
	s_int(1, 3);
	EXPECT_INT(e, -1);
	s_int(0, 7);
	s_int(1, -3);
	EXPECT_INT(e, 1);
	s_int(0, -2147483647 - 1);
	s_int(1, -1);
	EXPECT_INT(e, 0);
	s_int(1, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);

	/* int2 */
	e = binop(TMI_ADD, TM_K_INT2, 0, 0);
	s_int(0, 32767);
	s_int(1, 1);
	EXPECT_STATUS(e, TM_ERR_INT2_OUT_OF_RANGE);
	e = binop(TMI_DIV, TM_K_INT2, 0, 0);
	s_int(0, -32768);
	s_int(1, -1);
	EXPECT_STATUS(e, TM_ERR_INT2_OUT_OF_RANGE);
	e = binop(TMI_MUL, TM_K_INT2, 0, 0);
	s_int(0, 181);
	s_int(1, 181);
	EXPECT_INT(e, 32761);
	s_int(1, 182);
	EXPECT_STATUS(e, TM_ERR_INT2_OUT_OF_RANGE);

	/* int8 */
	e = binop(TMI_ADD, TM_K_INT8, 0, 0);
	s_int(0, TM_INT64_MAX);
	s_int(1, 1);
	EXPECT_STATUS(e, TM_ERR_INT8_OUT_OF_RANGE);
	s_int(1, -1);
	EXPECT_INT(e, TM_INT64_MAX - 1);
	e = binop(TMI_MUL, TM_K_INT8, 0, 0);
	s_int(0, INT64_C(3037000500));
	s_int(1, INT64_C(3037000500));
	EXPECT_STATUS(e, TM_ERR_INT8_OUT_OF_RANGE);
	s_int(1, INT64_C(3037000499));
	EXPECT_INT(e, INT64_C(3037000500) * INT64_C(3037000499));
	e = binop(TMI_DIV, TM_K_INT8, 0, 0);
	s_int(0, TM_INT64_MIN);
	s_int(1, -1);
	EXPECT_STATUS(e, TM_ERR_INT8_OUT_OF_RANGE);
	e = binop(TMI_MOD, TM_K_INT8, 0, 0);
	EXPECT_INT(e, 0);
	s_int(1, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);
	/* int4 / int8 mixed: operands live in .i, the operator's width decides */
	e = binop(TMI_ADD, TM_K_INT8, 0, 0);
	s_int(0, 2147483647);
	s_int(1, 2147483647);
	EXPECT_INT(e, INT64_C(4294967294));

	/* unary minus, abs */
	e = unop(TMI_NEG, TM_K_INT4, 0, 0);
	s_int(0, -2147483647 - 1);
	EXPECT_STATUS(e, TM_ERR_INT4_OUT_OF_RANGE);
	s_int(0, 5);
	EXPECT_INT(e, -5);
	e = unop(TMI_ABS, TM_K_INT2, 0, 0);
	s_int(0, -32768);
	EXPECT_STATUS(e, TM_ERR_INT2_OUT_OF_RANGE);
	s_int(0, -32767);
	EXPECT_INT(e, 32767);
	e = unop(TMI_NEG, TM_K_INT8, 0, 0);
	s_int(0, TM_INT64_MIN);
	EXPECT_STATUS(e, TM_ERR_INT8_OUT_OF_RANGE);

	/* narrowing casts */
	e = unop(TMI_INT_NARROW, TM_K_INT4, 0, 0);
	s_int(0, INT64_C(2147483648));
	EXPECT_STATUS(e, TM_ERR_INT4_OUT_OF_RANGE);
	s_int(0, -2147483647 - 1);
	EXPECT_INT(e, -2147483647 - 1);
	e = unop(TMI_INT_NARROW, TM_K_INT2, 0, 0);
	s_int(0, 32768);
	EXPECT_STATUS(e, TM_ERR_INT2_OUT_OF_RANGE);
	s_null(0);
	EXPECT_NULL(e);

	/* comparisons across widths */
	e = cmpop(TM_CMP_INT, TM_PRED_LT, 0, 0);
	s_int(0, -2147483647 - 1);
	s_int(1, TM_INT64_MAX);
	EXPECT_INT(e, 1);
	s_null(0);
	EXPECT_NULL(e);
	e = cmpop(TM_CMP_INT, TM_PRED_GE, 0, 0);
	s_int(0, 3);
	s_int(1, 3);
	EXPECT_INT(e, 1);
	e = cmpop(TM_CMP_INT, TM_PRED_NE, 0, 0);
	EXPECT_INT(e, 0);
}

static void
s_float(int i, double f)
{
	S[i].f = f;
	SN[i] = false;
	ST[i] = false;
}

static void
test_floats(void)
{
	TmExpr	   *e;
	double		nan = NAN;
	double		inf = INFINITY;

	slots_clear();
	e = binop(TMI_MUL, TM_K_FLOAT8, 0, 0);
	s_float(0, 1e308);
	s_float(1, 10);
	EXPECT_STATUS(e, TM_ERR_FLOAT_OVERFLOW);
	s_float(0, 1e-300);
	s_float(1, 1e-300);
	EXPECT_STATUS(e, TM_ERR_FLOAT_UNDERFLOW);
	s_float(0, inf);
	s_float(1, 2);
	EXPECT_FLOAT(e, inf);		/* infinite input: no error */
	s_float(0, 0);
	s_float(1, inf);
	EXPECT_FLOAT(e, nan);		/* 0 * inf = NaN, no error */
	s_float(0, -0.0);
	s_float(1, 5);
	EXPECT_FLOAT(e, -0.0);

	e = binop(TMI_ADD, TM_K_FLOAT8, 0, 0);
	s_float(0, 1.7e308);
	s_float(1, 1.7e308);
	EXPECT_STATUS(e, TM_ERR_FLOAT_OVERFLOW);
	s_float(0, inf);
	s_float(1, -inf);
	EXPECT_FLOAT(e, nan);
	s_float(0, 0.1);
	s_float(1, 0.2);
	EXPECT_FLOAT(e, 0.1 + 0.2);

	e = binop(TMI_DIV, TM_K_FLOAT8, 0, 0);
	s_float(0, 1);
	s_float(1, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);
	s_float(0, nan);
	EXPECT_FLOAT(e, nan);		/* NaN / 0 = NaN */
	s_float(0, 1e308);
	s_float(1, 1e-10);
	EXPECT_STATUS(e, TM_ERR_FLOAT_OVERFLOW);
	s_float(0, 1e-300);
	s_float(1, 1e100);
	EXPECT_STATUS(e, TM_ERR_FLOAT_UNDERFLOW);
	s_float(0, 1e-308);
	s_float(1, 1e10);
	EXPECT_FLOAT(e, 1e-318);	/* denormal, not zero: no underflow */
	s_float(0, 1);
	s_float(1, inf);
	EXPECT_FLOAT(e, 0.0);		/* finite / inf = 0 without underflow */

	/* float4 computes in single precision */
	e = binop(TMI_ADD, TM_K_FLOAT4, 0, 0);
	s_float(0, 16777216.0);
	s_float(1, 1.0);
	EXPECT_FLOAT(e, 16777216.0);
	s_float(0, (double) 3e38f);
	s_float(1, (double) 3e38f);
	EXPECT_STATUS(e, TM_ERR_FLOAT_OVERFLOW);
	s_float(0, (double) 0.1f);
	s_float(1, (double) 0.2f);
	EXPECT_FLOAT(e, (double) (0.1f + 0.2f));
	e = binop(TMI_MUL, TM_K_FLOAT4, 0, 0);
	s_float(0, (double) 1e-30f);
	s_float(1, (double) 1e-30f);
	EXPECT_STATUS(e, TM_ERR_FLOAT_UNDERFLOW);
	e = binop(TMI_DIV, TM_K_FLOAT4, 0, 0);
	s_float(0, 1);
	s_float(1, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);

	/* NaN equals NaN and sorts above everything; -0 = 0 */
	e = cmpop(TM_CMP_FLOAT, TM_PRED_EQ, 0, 0);
	s_float(0, nan);
	s_float(1, nan);
	EXPECT_INT(e, 1);
	s_float(0, -0.0);
	s_float(1, 0.0);
	EXPECT_INT(e, 1);
	s_float(0, nan);
	s_float(1, 1.0);
	EXPECT_INT(e, 0);
	e = cmpop(TM_CMP_FLOAT, TM_PRED_GT, 0, 0);
	s_float(0, nan);
	s_float(1, inf);
	EXPECT_INT(e, 1);
	s_float(0, inf);
	s_float(1, nan);
	EXPECT_INT(e, 0);
	e = cmpop(TM_CMP_FLOAT, TM_PRED_LE, 0, 0);
	s_float(0, nan);
	s_float(1, nan);
	EXPECT_INT(e, 1);

	/* casts */
	e = unop(TMI_F8_TO_F4, 0, 0, 0);
	s_float(0, 1e39);
	EXPECT_STATUS(e, TM_ERR_FLOAT_OVERFLOW);
	s_float(0, 1e-50);
	EXPECT_STATUS(e, TM_ERR_FLOAT_UNDERFLOW);
	s_float(0, inf);
	EXPECT_FLOAT(e, inf);
	s_float(0, 0.1);
	EXPECT_FLOAT(e, (double) 0.1f);
	e = unop(TMI_FLOAT_TO_INT, TM_K_INT4, 0, TM_K_FLOAT8);
	s_float(0, 2.5);
	EXPECT_INT(e, 2);			/* rint: half to even */
	s_float(0, 3.5);
	EXPECT_INT(e, 4);
	s_float(0, -2.5);
	EXPECT_INT(e, -2);
	s_float(0, 2147483647.4);
	EXPECT_INT(e, 2147483647);
	s_float(0, 2147483647.5);
	EXPECT_STATUS(e, TM_ERR_INT4_OUT_OF_RANGE);
	s_float(0, -2147483648.5);
	EXPECT_INT(e, -2147483647 - 1);
	s_float(0, nan);
	EXPECT_STATUS(e, TM_ERR_INT4_OUT_OF_RANGE);
	e = unop(TMI_FLOAT_TO_INT, TM_K_INT8, 0, TM_K_FLOAT8);
	s_float(0, 9223372036854775807.0);
	EXPECT_STATUS(e, TM_ERR_INT8_OUT_OF_RANGE);
	s_float(0, -9223372036854775808.0);
	EXPECT_INT(e, TM_INT64_MIN);
	e = unop(TMI_FLOAT_TO_INT, TM_K_INT2, 0, TM_K_FLOAT8);
	s_float(0, 32767.5);
	EXPECT_STATUS(e, TM_ERR_INT2_OUT_OF_RANGE);
	e = unop(TMI_INT_TO_FLOAT, TM_K_FLOAT4, 0, 0);
	s_int(0, 16777217);
	EXPECT_FLOAT(e, 16777216.0);
	e = unop(TMI_INT_TO_FLOAT, TM_K_FLOAT8, 0, 0);
	s_int(0, INT64_C(9007199254740993));
	EXPECT_FLOAT(e, 9007199254740992.0);
	e = unop(TMI_NEG, TM_K_FLOAT8, 0, 0);
	s_float(0, 0.0);
	EXPECT_FLOAT(e, -0.0);
	/* round (rint: half to even), trunc, ceil, floor */
	e = unop(TMI_FLOAT_FN, TM_FFN_ROUND, 0, 0);
	s_float(0, 2.5);
	EXPECT_FLOAT(e, 2.0);
	s_float(0, -0.5);
	EXPECT_FLOAT(e, -0.0);
	e = unop(TMI_FLOAT_FN, TM_FFN_TRUNC, 0, 0);
	s_float(0, -2.7);
	EXPECT_FLOAT(e, -2.0);
	s_float(0, -0.5);
	EXPECT_FLOAT(e, -0.0);
	s_float(0, inf);
	EXPECT_FLOAT(e, inf);
	e = unop(TMI_FLOAT_FN, TM_FFN_CEIL, 0, 0);
	s_float(0, -0.5);
	EXPECT_FLOAT(e, -0.0);
	s_float(0, 1.0000001);
	EXPECT_FLOAT(e, 2.0);
	e = unop(TMI_FLOAT_FN, TM_FFN_FLOOR, 0, 0);
	s_float(0, -0.5);
	EXPECT_FLOAT(e, -1.0);
	s_float(0, nan);
	EXPECT_FLOAT(e, nan);
	e = unop(TMI_ABS, TM_K_FLOAT8, 0, 0);
	s_float(0, -inf);
	EXPECT_FLOAT(e, inf);
}

static void
s_num(int i, tm_int128 n)
{
	S[i].n = n;
	SN[i] = false;
	ST[i] = false;
}

static void
test_numeric(void)
{
	TmExpr	   *e;
	tm_int128	big = (tm_int128) INT64_C(1000000000000000000) * INT64_C(100000000000000000);	/* 1e35 */

	slots_clear();
	/* 1.5 (scale 1) + 2.25 (scale 2) = 3.75 (scale 2) */
	e = binop(TMI_ADD, TM_K_NUMERIC, 1, 2);
	s_num(0, 15);
	s_num(1, 225);
	EXPECT_NUM(e, 375);
	s_num(0, -15);
	EXPECT_NUM(e, 75);
	s_num(0, big * 1000);		/* 1e38 * 10 overflows int128 */
	EXPECT_STATUS(e, TM_ERR_FALLBACK);
	s_null(0);
	EXPECT_NULL(e);
	e = binop(TMI_ADD, TM_K_NUMERIC, 0, 0);
	s_num(0, TM_INT128_MAX);
	s_num(1, 1);
	EXPECT_STATUS(e, TM_ERR_FALLBACK);
	/* 1.5 - 2.25 */
	e = binop(TMI_SUB, TM_K_NUMERIC, 1, 2);
	s_num(0, 15);
	s_num(1, 225);
	EXPECT_NUM(e, -75);
	/* 1.5 * 2.25 = 3.375 (scale 3) */
	e = binop(TMI_MUL, TM_K_NUMERIC, 1, 2);
	EXPECT_NUM(e, 3375);
	s_num(0, big);
	s_num(1, 10000);
	EXPECT_STATUS(e, TM_ERR_FALLBACK);
	s_num(0, -big);
	s_num(1, 1000);
	EXPECT_NUM(e, -big * 1000);
	s_num(0, (tm_int128) INT64_C(4000000000000000000));
	s_num(1, (tm_int128) INT64_C(4000000000000000000));
	EXPECT_NUM(e, (tm_int128) INT64_C(4000000000000000000) * INT64_C(4000000000000000000));
	/* mod: 7.5 % 2 = 1.5; -7.5 % 2 = -1.5; x % 0 */
	e = binop(TMI_MOD, TM_K_NUMERIC, 1, 0);
	s_num(0, 75);
	s_num(1, 2);
	EXPECT_NUM(e, 15);
	s_num(0, -75);
	EXPECT_NUM(e, -15);
	s_num(1, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);
	/*
	 * div (numeric_div): select_div_scale's result scale, round half away from zero, held at c.
	 * 1 / 3 = 0.33333333333333333333 (scale 20: first digits 1 <= 3); 100 / 3 = 33.3333333333333333
	 * (16); 150001 / 131072 = 1.14441680908203125 -> 1.1444168090820313 (a tie at the 17th digit).
	 */
	e = binop_c(TMI_DIV, TM_K_NUMERIC, 0, 0, 20);
	s_num(0, 1);
	s_num(1, 3);
	EXPECT_NUM(e, (tm_int128) INT64_C(3333333333333333333) * 10 + 3);
	s_num(0, 2);
	EXPECT_NUM(e, (tm_int128) INT64_C(6666666666666666666) * 10 + 7);
	s_num(0, -2);
	EXPECT_NUM(e, -((tm_int128) INT64_C(6666666666666666666) * 10 + 7));
	s_num(0, 100);
	EXPECT_NUM(e, (tm_int128) INT64_C(333333333333333333) * 10000);	/* 33.3333333333333333 at 20 */
	s_num(0, 150001);
	s_num(1, 131072);
	EXPECT_NUM(e, (tm_int128) INT64_C(11444168090820313) * 10000);
	s_num(1, -131072);
	EXPECT_NUM(e, -(tm_int128) INT64_C(11444168090820313) * 10000);
	s_num(0, 0);
	s_num(1, INT64_C(99999999999));
	EXPECT_NUM(e, 0);						/* 0 whatever the scale */
	s_num(0, 1);
	s_num(1, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);
	s_num(0, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);
	s_num(0, 1);
	s_num(1, 100000);						/* 10^-5: scale 24 > 20 */
	EXPECT_STATUS(e, TM_ERR_FALLBACK);
	s_num(0, big);
	s_num(1, 7);							/* fits only below 10^18 at scale 20 */
	EXPECT_STATUS(e, TM_ERR_FALLBACK);
	/* operands' scales: 0.000001 (6) / 0.001 (3) = 0.001 (scale 20); 7.50 (2) / 2.5 (1) = 3 (16) */
	e = binop_c(TMI_DIV, TM_K_NUMERIC, 6, 3, 20);
	s_num(0, 1);
	s_num(1, 1);
	EXPECT_NUM(e, (tm_int128) INT64_C(100000000000000000));
	e = binop_c(TMI_DIV, TM_K_NUMERIC, 2, 1, 20);
	s_num(0, 750);
	s_num(1, 25);
	EXPECT_NUM(e, (tm_int128) 3 * INT64_C(100000000000000000) * 1000);
	/*
	 * a long division: 10^30 / 123.45678901 (scale 8): weights 7 / 0, first digits 100 <= 123, so
	 * qweight 6 and scale max(16 - 24, 8) = 8; 10^30 * 10^16 is beyond 128 bits, the quotient
	 * 8100000073053900658.87313004237675985 rounded to 8 digits is not
	 */
	e = binop_c(TMI_DIV, TM_K_NUMERIC, 0, 8, 8);
	s_num(0, (tm_int128) INT64_C(1000000000000000) * INT64_C(1000000000000000));
	s_num(1, INT64_C(12345678901));
	EXPECT_NUM(e, (tm_int128) INT64_C(810000007305390065) * INT64_C(1000000000000000000) +
			   INT64_C(887313004237675985));
	/*
	 * div then reduce (round(x / y, s) and friends, TMI_NUM_DIV_REDUCE): from the quotient's own scale.
	 * round(1 / 3, 2) = 0.33, round(2 / 3, 2) = 0.67, trunc(-2 / 3, 3) = -0.666, ceil(1 / 3) = 1,
	 * floor(-1 / 3) = -1; round(1 / 100000, 6) = 0.000010 (the quotient's scale is 24: no fallback);
	 * round(150001 / 131072, 15): of 1.1444168090820313 (scale 16), 1.144416809082031
	 */
	e = binop_c(TMI_NUM_DIV_REDUCE, TM_REDUCE_ROUND, 0, 0, 2);
	s_num(0, 1);
	s_num(1, 3);
	EXPECT_NUM(e, 33);
	s_num(0, 2);
	EXPECT_NUM(e, 67);
	s_num(1, 0);
	EXPECT_STATUS(e, TM_ERR_DIV_BY_ZERO);
	e = binop_c(TMI_NUM_DIV_REDUCE, TM_REDUCE_TRUNC, 0, 0, 3);
	s_num(0, -2);
	s_num(1, 3);
	EXPECT_NUM(e, -666);
	e = binop_c(TMI_NUM_DIV_REDUCE, TM_REDUCE_CEIL, 0, 0, 0);
	s_num(0, 1);
	EXPECT_NUM(e, 1);
	e = binop_c(TMI_NUM_DIV_REDUCE, TM_REDUCE_FLOOR, 0, 0, 0);
	s_num(0, -1);
	EXPECT_NUM(e, -1);
	e = binop_c(TMI_NUM_DIV_REDUCE, TM_REDUCE_ROUND, 0, 0, 6);
	s_num(0, 1);
	s_num(1, 100000);
	EXPECT_NUM(e, 10);
	e = binop_c(TMI_NUM_DIV_REDUCE, TM_REDUCE_ROUND, 0, 0, 15);
	s_num(0, 150001);
	s_num(1, 131072);
	EXPECT_NUM(e, (tm_int128) INT64_C(1144416809082031));
	s_num(0, 0);
	EXPECT_NUM(e, 0);
	/* the weight of a value: base-10000 digits aligned at the point */
	{
		int			w,
					f;

		tm_num_weight(5, 1, &w, &f);		/* 0.5 = .5000 */
		TM_CHECK(w == -1 && f == 5000);
		tm_num_weight(12345, 0, &w, &f);	/* 1|2345 */
		TM_CHECK(w == 1 && f == 1);
		tm_num_weight(-1, 5, &w, &f);		/* 0.00001 = .0000|1000 */
		TM_CHECK(w == -2 && f == 1000);
		tm_num_weight(99999999, 4, &w, &f);	/* 9999.9999 */
		TM_CHECK(w == 0 && f == 9999);
	}
	/* unary */
	e = unop(TMI_NEG, TM_K_NUMERIC, 0, 0);
	s_num(0, 12);
	EXPECT_NUM(e, -12);
	e = unop(TMI_ABS, TM_K_NUMERIC, 0, 0);
	s_num(0, -12);
	EXPECT_NUM(e, 12);

	/* comparisons at different scales: 1.50 (2) = 1.5 (1); 2 (0) > 1.99 (2) */
	e = cmpop(TM_CMP_NUMERIC, TM_PRED_EQ, 2, 1);
	s_num(0, 150);
	s_num(1, 15);
	EXPECT_INT(e, 1);
	s_num(1, 16);
	EXPECT_INT(e, 0);
	e = cmpop(TM_CMP_NUMERIC, TM_PRED_GT, 0, 2);
	s_num(0, 2);
	s_num(1, 199);
	EXPECT_INT(e, 1);
	/* rescale overflow decides by sign */
	e = cmpop(TM_CMP_NUMERIC, TM_PRED_LT, 0, 30);
	s_num(0, big);
	s_num(1, big);
	EXPECT_INT(e, 0);
	s_num(0, -big);
	EXPECT_INT(e, 1);
	e = cmpop(TM_CMP_NUMERIC, TM_PRED_LT, 30, 0);
	s_num(0, big);
	s_num(1, big);
	EXPECT_INT(e, 1);
	s_num(1, -big);
	EXPECT_INT(e, 0);

	/* rounding (round_var: half away from zero) */
	e = unop(TMI_NUM_RESCALE, 0, -1, 0);
	s_num(0, 25);
	EXPECT_NUM(e, 3);
	s_num(0, -25);
	EXPECT_NUM(e, -3);
	s_num(0, 24);
	EXPECT_NUM(e, 2);
	s_num(0, -24);
	EXPECT_NUM(e, -2);
	e = unop(TMI_NUM_RESCALE, 0, -2, 0);
	s_num(0, 1249);				/* 12.49 -> 12 */
	EXPECT_NUM(e, 12);
	s_num(0, 1250);
	EXPECT_NUM(e, 13);
	s_num(0, -1250);
	EXPECT_NUM(e, -13);
	e = unop(TMI_NUM_RESCALE, 0, 3, 0);
	s_num(0, 7);
	EXPECT_NUM(e, 7000);
	s_num(0, big * 1000);
	EXPECT_STATUS(e, TM_ERR_FALLBACK);
	s_num(0, -big);
	EXPECT_NUM(e, -big * 1000);
	/* trunc / ceil / floor by digit dropping */
	{
		static const struct
		{
			int			mode;
			int			k;
			int64_t		in;
			int64_t		out;
		}			rc[] = {
			{TM_REDUCE_TRUNC, 1, 25, 2}, {TM_REDUCE_TRUNC, 1, -25, -2}, {TM_REDUCE_TRUNC, 2, 199, 1},
			{TM_REDUCE_CEIL, 1, 21, 3}, {TM_REDUCE_CEIL, 1, -29, -2}, {TM_REDUCE_CEIL, 1, 20, 2},
			{TM_REDUCE_FLOOR, 1, 21, 2}, {TM_REDUCE_FLOOR, 1, -21, -3}, {TM_REDUCE_FLOOR, 1, -20, -2},
			{TM_REDUCE_ROUND, 1, 15, 2}, {TM_REDUCE_ROUND, 1, -15, -2}, {TM_REDUCE_ROUND, 1, 14, 1},
			{TM_REDUCE_CEIL, 3, 1, 1}, {TM_REDUCE_FLOOR, 3, -1, -1}, {TM_REDUCE_TRUNC, 3, -999, 0},
		};
		int			k;

		for (k = 0; k < (int) (sizeof(rc) / sizeof(rc[0])); k++)
		{
			e = unop(TMI_NUM_RESCALE, rc[k].mode, -rc[k].k, 0);
			s_num(0, rc[k].in);
			EXPECT_NUM(e, rc[k].out);
		}
		TM_CHECK(tm_num_reduce(big, 39, TM_REDUCE_CEIL) == 1);
		TM_CHECK(tm_num_reduce(-big, 39, TM_REDUCE_FLOOR) == -1);
		TM_CHECK(tm_num_reduce(big, 39, TM_REDUCE_TRUNC) == 0);
		TM_CHECK(tm_num_reduce(big * 1000, 39, TM_REDUCE_ROUND) == 0);
		TM_CHECK(tm_num_reduce(big * 1000, 38, TM_REDUCE_ROUND) == 1);
	}
	/* numeric(4,2) precision check: 99.99 fits, 100.00 does not */
	e = unop(TMI_NUM_CHECK_PREC, 0, 4, 0);
	s_num(0, 9999);
	EXPECT_NUM(e, 9999);
	s_num(0, -10000);
	EXPECT_STATUS(e, TM_ERR_FALLBACK);
	/* numeric -> int */
	e = unop(TMI_NUM_TO_INT, TM_K_INT4, 1, 0);
	s_num(0, 25);
	EXPECT_INT(e, 3);
	s_num(0, -25);
	EXPECT_INT(e, -3);
	s_num(0, (tm_int128) 21474836474);	/* 2147483647.4 */
	EXPECT_INT(e, 2147483647);
	s_num(0, (tm_int128) 21474836475);	/* 2147483647.5 */
	EXPECT_STATUS(e, TM_ERR_INT4_OUT_OF_RANGE);
	e = unop(TMI_NUM_TO_INT, TM_K_INT2, 0, 0);
	s_num(0, -32769);
	EXPECT_STATUS(e, TM_ERR_INT2_OUT_OF_RANGE);
	e = unop(TMI_NUM_TO_INT, TM_K_INT8, 0, 0);
	s_num(0, (tm_int128) TM_INT64_MAX + 1);
	EXPECT_STATUS(e, TM_ERR_INT8_OUT_OF_RANGE);
	/* numeric -> float: correctly rounded like numeric_out + strtod / strtof */
	e = unop(TMI_NUM_TO_FLOAT, TM_K_FLOAT8, 2, 0);
	s_num(0, 12345);
	EXPECT_FLOAT(e, 123.45);
	s_num(0, -1);
	EXPECT_FLOAT(e, -0.01);
	s_num(0, 0);
	EXPECT_FLOAT(e, 0.0);
	s_num(0, (tm_int128) INT64_C(9007199254740993));
	EXPECT_STATUS(e, TM_ERR_FALLBACK);
	e = unop(TMI_NUM_TO_FLOAT, TM_K_FLOAT8, 22, 0);
	s_num(0, 3);
	EXPECT_FLOAT(e, 3e-22);
	e = unop(TMI_NUM_TO_FLOAT, TM_K_FLOAT4, 3, 0);
	s_num(0, 1001);
	EXPECT_FLOAT(e, (double) 1.001f);
	s_num(0, 16777217);
	EXPECT_STATUS(e, TM_ERR_FALLBACK);
	/* int -> numeric */
	e = unop(TMI_INT_TO_NUM, 0, 2, 0);
	s_int(0, -7);
	EXPECT_NUM(e, -700);
	s_int(0, TM_INT64_MIN);
	EXPECT_NUM(e, (tm_int128) TM_INT64_MIN * 100);

	/* TPC-H Q1: l_extendedprice * (1 - l_discount) * (1 + l_tax), all numeric(15,2) */
	a_init();
	p_slot(0);
	p_num(1);
	p_slot(1);
	a_op(TMI_SUB, TM_K_NUMERIC, 0, 2, 0);
	a_op(TMI_MUL, TM_K_NUMERIC, 2, 2, 0);
	p_num(1);
	p_slot(2);
	a_op(TMI_ADD, TM_K_NUMERIC, 0, 2, 0);
	a_op(TMI_MUL, TM_K_NUMERIC, 4, 2, 0);
	e = a_build();
	{
		TmFastArith fa;

		/* in the fast form (its evaluations below are checked against the interpreter by run()) */
		TM_CHECK(tm_fast_arith_compile(e, &fa) && fa.n == 9);
	}
	s_num(0, 3307894);			/* 33078.94 */
	s_num(1, 4);				/* 0.04 */
	s_num(2, 2);				/* 0.02 */
	/* 33078.94 * 0.96 = 31755.7824; * 1.02 = 32390.898048 */
	EXPECT_NUM(e, (tm_int128) 32390898048);
}

static void
test_in_list(void)
{
	TmExpr	   *e;
	int			first;

	/* x IN (1, 3, 7) (sorted) */
	a_init();
	p_slot(0);
	first = k_int(1);
	k_int(3);
	k_int(7);
	a_op(TMI_IN, TM_CMP_INT, first, 3, 0);
	e = a_build();
	slots_clear();
	s_int(0, 3);
	EXPECT_INT(e, 1);
	s_int(0, 7);
	EXPECT_INT(e, 1);
	s_int(0, 1);
	EXPECT_INT(e, 1);
	s_int(0, 4);
	EXPECT_INT(e, 0);
	s_null(0);
	EXPECT_NULL(e);

	/* x IN (1, NULL) */
	a_init();
	p_slot(0);
	first = k_int(1);
	a_op(TMI_IN, TM_CMP_INT, first, 1, TMF_IN_HASNULL);
	e = a_build();
	s_int(0, 1);
	EXPECT_INT(e, 1);
	s_int(0, 2);
	EXPECT_NULL(e);

	/* x NOT IN (1, 3) and NOT IN (1, NULL) */
	a_init();
	p_slot(0);
	first = k_int(1);
	k_int(3);
	a_op(TMI_IN, TM_CMP_INT, first, 2, TMF_IN_NEGATE);
	e = a_build();
	s_int(0, 3);
	EXPECT_INT(e, 0);
	s_int(0, 2);
	EXPECT_INT(e, 1);
	s_null(0);
	EXPECT_NULL(e);
	a_init();
	p_slot(0);
	first = k_int(1);
	a_op(TMI_IN, TM_CMP_INT, first, 1, TMF_IN_NEGATE | TMF_IN_HASNULL);
	e = a_build();
	s_int(0, 1);
	EXPECT_INT(e, 0);
	s_int(0, 2);
	EXPECT_NULL(e);

	/* bpchar IN ('MAIL', 'SHIP') against blank-padded values */
	a_init();
	p_slot(0);
	first = k_text("MAIL", -1);
	k_text("SHIP", -1);
	a_op(TMI_IN, TM_CMP_BPCHAR, first, 2, 0);
	e = a_build();
	s_text(0, "SHIP      ");
	EXPECT_INT(e, 1);
	s_text(0, "SHIPX     ");
	EXPECT_INT(e, 0);
	s_text(0, "AIR       ");
	EXPECT_INT(e, 0);
	/* text IN: trailing blanks matter */
	a_init();
	p_slot(0);
	first = k_text("MAIL", -1);
	k_text("SHIP", -1);
	a_op(TMI_IN, TM_CMP_TEXT, first, 2, 0);
	e = a_build();
	s_text(0, "SHIP ");
	EXPECT_INT(e, 0);
	s_text(0, "MAIL");
	EXPECT_INT(e, 1);
	/* float IN with NaN */
	a_init();
	p_slot(0);
	{
		TmValue		v;

		memset(&v, 0, sizeof(v));
		v.f = 1.0;
		first = k_val(v);
		v.f = NAN;
		k_val(v);
	}
	a_op(TMI_IN, TM_CMP_FLOAT, first, 2, 0);
	e = a_build();
	s_float(0, NAN);
	EXPECT_INT(e, 1);
	s_float(0, 2.0);
	EXPECT_INT(e, 0);
	/* empty list with NULL only */
	a_init();
	p_slot(0);
	a_op(TMI_IN, TM_CMP_INT, 0, 0, TMF_IN_HASNULL);
	e = a_build();
	s_int(0, 5);
	EXPECT_NULL(e);
}

static void
test_text(void)
{
	TmExpr	   *e;

	slots_clear();
	/* text compare: bytes, C order */
	e = cmpop(TM_CMP_TEXT, TM_PRED_LT, 0, 0);
	s_text(0, "abc");
	s_text(1, "abd");
	EXPECT_INT(e, 1);
	s_text(1, "abc");
	EXPECT_INT(e, 0);
	s_text(0, "ab");
	EXPECT_INT(e, 1);
	s_text(0, "\xc3\xa9");		/* high bytes sort above ASCII */
	s_text(1, "z");
	EXPECT_INT(e, 0);
	e = cmpop(TM_CMP_TEXT, TM_PRED_EQ, 0, 0);
	s_text(0, "ab ");
	s_text(1, "ab");
	EXPECT_INT(e, 0);
	/* bpchar: trailing blanks do not count */
	e = cmpop(TM_CMP_BPCHAR, TM_PRED_EQ, 0, 0);
	EXPECT_INT(e, 1);
	s_text(0, "ab\t");
	EXPECT_INT(e, 0);
	s_text(0, "");
	s_text(1, "   ");
	EXPECT_INT(e, 1);
	e = cmpop(TM_CMP_BPCHAR, TM_PRED_LT, 0, 0);
	s_text(0, "a   ");
	s_text(1, "a\x01");
	EXPECT_INT(e, 1);			/* 'a' < 'a\001' once blanks are gone */

	/* rtrim, char_length */
	e = unop(TMI_BPCHAR_RTRIM, 0, 0, 0);
	s_text(0, "ab  ");
	EXPECT_TEXT(e, "ab");
	s_text(0, "  ");
	EXPECT_TEXT(e, "");
	e = unop(TMI_CHAR_LENGTH, TMF_UTF8, 0, 0);
	s_text(0, "h\xc3\xa9llo");
	EXPECT_INT(e, 5);
	s_text(0, "\xe6\x97\xa5\xe6\x9c\xac");
	EXPECT_INT(e, 2);
	s_text(0, "");
	EXPECT_INT(e, 0);
	e = unop(TMI_CHAR_LENGTH, 0, 0, 0);
	s_text(0, "h\xc3\xa9llo");
	EXPECT_INT(e, 6);
	e = unop(TMI_CHAR_LENGTH, TMF_UTF8 | TMF_BPCHAR, 0, 0);
	s_text(0, "h\xc3\xa9  ");
	EXPECT_INT(e, 2);
}

static TmExpr *
like_expr(const char *pat, int flags)
{
	a_init();
	p_slot(0);
	p_text(pat);
	a_op(TMI_LIKE, flags, 0, 0, 0);
	return a_build();
}

static void
check_like(const char *str, const char *pat, int expect)
{
	TmExpr	   *e = like_expr(pat, TMF_UTF8);

	slots_clear();
	s_text(0, str);
	if (expect < 0)
	{
		TmStatus	st = run(e);

		TM_CHECK_MSG(st == TM_ERR_LIKE_ESCAPE, "'%s' LIKE '%s': status %d, expected LIKE escape error",
					 str, pat, (int) st);
	}
	else
	{
		TmStatus	st = run(e);

		TM_CHECK_MSG(st == TM_OK && !last_null && last.i == expect, "'%s' LIKE '%s' = %d (status %d), expected %d",
					 str, pat, (int) last.i, (int) st, expect);
	}
}

static void
test_like(void)
{
	TmExpr	   *e;

	check_like("abc", "abc", 1);
	check_like("abc", "ab", 0);
	check_like("ab", "abc", 0);
	check_like("abc", "a%", 1);
	check_like("abc", "%c", 1);
	check_like("abc", "%b%", 1);
	check_like("abc", "_b_", 1);
	check_like("abc", "__", 0);
	check_like("abc", "___", 1);
	check_like("abc", "____", 0);
	check_like("", "%", 1);
	check_like("", "", 1);
	check_like("", "_", 0);
	check_like("", "%%", 1);
	check_like("a", "", 0);
	check_like("abc", "%_", 1);
	check_like("a", "%__", 0);
	check_like("ab", "%%%b", 1);
	check_like("abcabd", "%abd", 1);
	check_like("abcabc", "%abd", 0);
	check_like("mississippi", "%iss%ppi", 1);
	check_like("mississippi", "%iss%ssi", 0);
	check_like("mississippi", "m%s%s%s%s%i", 1);
	check_like("aaaaaaaaab", "%a%a%a%b", 1);
	check_like("aaaaaaaaaa", "%a%a%a%b", 0);
	check_like("PROMO BRUSHED COPPER", "PROMO%", 1);
	check_like("forest green", "%green%", 1);
	check_like("special requests", "%special%requests%", 1);
	check_like("special reques", "%special%requests%", 0);
	/* escapes */
	check_like("a%", "a\\%", 1);
	check_like("ab", "a\\%", 0);
	check_like("a_c", "a\\_c", 1);
	check_like("abc", "a\\_c", 0);
	check_like("a\\c", "a\\\\c", 1);
	check_like("abc", "\\a\\b\\c", 1);
	check_like("50% off", "%\\%%", 1);
	check_like("50 off", "%\\%%", 0);
	/* pattern ending with the escape: an error only where matching reaches it */
	check_like("ab", "a\\", -1);
	check_like("a", "a\\", 0);		/* text ends first: no error */
	check_like("xb", "a\\", 0);
	check_like("abc", "%\\", -1);
	check_like("", "%\\", 0);
	check_like("", "\\", 0);
	check_like("x", "\\", -1);
	check_like("abc", "%b\\", -1);	/* after 'b' matched, the escape is reached */
	check_like("axc", "%b\\", 0);	/* no 'b' in the text: the scan ends first */
	/* multibyte: '_' is one character */
	check_like("h\xc3\xa9llo", "h_llo", 1);
	check_like("h\xc3\xa9llo", "h__llo", 0);
	check_like("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "_\xe6\x9c\xac_", 1);
	check_like("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "___", 1);
	check_like("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "____", 0);
	check_like("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "%\xe8\xaa\x9e", 1);
	check_like("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "%_\xe8\xaa\x9e", 1);
	check_like("\xc3\xa9t\xc3\xa9", "%\xc3\xa9", 1);
	check_like("\xc3\xa9t\xc3\xa9", "_t_", 1);

	/* single-byte mode: '_' is one byte */
	e = like_expr("h__llo", 0);
	slots_clear();
	s_text(0, "h\xc3\xa9llo");
	EXPECT_INT(e, 1);
	/* NOT LIKE and NULLs */
	e = like_expr("a%", TMF_UTF8 | TMF_NEGATE);
	s_text(0, "abc");
	EXPECT_INT(e, 0);
	s_text(0, "bc");
	EXPECT_INT(e, 1);
	s_null(0);
	EXPECT_NULL(e);
	e = like_expr("a\\", TMF_UTF8 | TMF_NEGATE);
	s_text(0, "ab");
	EXPECT_STATUS(e, TM_ERR_LIKE_ESCAPE);
}

static TmExpr *
substr_expr(int start, int len, bool haslen, int flags)
{
	a_init();
	p_slot(0);
	p_int(start);
	if (haslen)
		p_int(len);
	a_op(TMI_SUBSTR, flags | (haslen ? TMF_HASLEN : 0), 0, 0, 0);
	return a_build();
}

static void
check_substr(const char *s, int start, int len, bool haslen, const char *expect)
{
	TmExpr	   *e = substr_expr(start, len, haslen, TMF_UTF8);

	slots_clear();
	s_text(0, s);
	EXPECT_TEXT(e, expect);
}

static void
test_substring(void)
{
	TmExpr	   *e;

	check_substr("hello", 2, 3, true, "ell");
	check_substr("hello", 1, 5, true, "hello");
	check_substr("hello", 1, 10, true, "hello");
	check_substr("hello", 0, 3, true, "he");
	check_substr("hello", -1, 3, true, "h");
	check_substr("hello", -5, 3, true, "");
	check_substr("hello", -2147483647 - 1, 5, true, "");
	check_substr("hello", 3, 0, true, "");
	check_substr("hello", 6, 1, true, "");
	check_substr("hello", 5, 1, true, "o");
	check_substr("hello", 2, 2147483647, true, "ello");
	check_substr("hello", 3, 0, false, "llo");
	check_substr("hello", -3, 0, false, "hello");
	check_substr("hello", 9, 0, false, "");
	check_substr("", 1, 1, true, "");
	check_substr("h\xc3\xa9llo", 2, 2, true, "\xc3\xa9l");
	check_substr("h\xc3\xa9llo", 2, 0, false, "\xc3\xa9llo");
	check_substr("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 3, 5, true, "\xe8\xaa\x9e");
	check_substr("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 0, 2, true, "\xe6\x97\xa5");
	/* TPC-H Q22: substring(c_phone from 1 for 2) */
	check_substr("13-761-547-5974", 1, 2, true, "13");

	e = substr_expr(2, -1, true, TMF_UTF8);
	slots_clear();
	s_text(0, "hello");
	EXPECT_STATUS(e, TM_ERR_SUBSTRING_NEGATIVE);
	s_text(0, "");
	EXPECT_STATUS(e, TM_ERR_SUBSTRING_NEGATIVE);
	s_null(0);
	EXPECT_NULL(e);
	/* bytes mode */
	e = substr_expr(2, 2, true, 0);
	s_text(0, "h\xc3\xa9llo");
	EXPECT_TEXT(e, "\xc3\xa9");
	/* NULL start */
	a_init();
	p_slot(0);
	p_null();
	a_op(TMI_SUBSTR, TMF_UTF8, 0, 0, 0);
	e = a_build();
	s_text(0, "abc");
	EXPECT_NULL(e);
}

static void
test_dates(void)
{
	TmExpr	   *e;
	int			y,
				m,
				d;
	int64_t		day;
	int			ok = 1;

	/* date2j / j2date round trip and leap years */
	TM_CHECK_INT_EQ(tm_date2j(2000, 1, 1), TM_POSTGRES_EPOCH_JDATE);
	TM_CHECK_INT_EQ(mkdate(1970, 1, 1), -10957);
	TM_CHECK_INT_EQ(mkdate(2000, 3, 1) - mkdate(2000, 2, 28), 2);
	TM_CHECK_INT_EQ(mkdate(1900, 3, 1) - mkdate(1900, 2, 28), 1);
	TM_CHECK_INT_EQ(mkdate(2024, 3, 1) - mkdate(2024, 2, 28), 2);
	TM_CHECK_INT_EQ(mkdate(2100, 3, 1) - mkdate(2100, 2, 28), 1);
	for (day = -2451545; day < 3000000; day += 7)
	{
		int			y2,
					m2,
					d2;

		tm_j2date((int) (day + TM_POSTGRES_EPOCH_JDATE), &y, &m, &d);
		if (mkdate(y, m, d) != day || m < 1 || m > 12 || d < 1 || d > tm_days_in_month(y, m))
		{
			ok = 0;
			break;
		}
		tm_j2date((int) (day + 1 + TM_POSTGRES_EPOCH_JDATE), &y2, &m2, &d2);
		if (!((y2 == y && m2 == m && d2 == d + 1) || (y2 == y && m2 == m + 1 && d2 == 1) ||
			  (y2 == y + 1 && m2 == 1 && d2 == 1)))
		{
			ok = 0;
			break;
		}
	}
	TM_CHECK_MSG(ok, "j2date/date2j disagree at day %lld", (long long) day);

	/* date + int, date - int, date - date */
	slots_clear();
	e = binop(TMI_DATE_PLI, 0, 0, 0);
	s_int(0, mkdate(1998, 12, 1));
	s_int(1, -90);
	EXPECT_INT(e, mkdate(1998, 9, 2));
	s_int(0, mkdate(2000, 2, 28));
	s_int(1, 1);
	EXPECT_INT(e, mkdate(2000, 2, 29));
	s_int(0, TM_DATEVAL_NOEND);
	s_int(1, -5);
	EXPECT_INT(e, TM_DATEVAL_NOEND);
	s_int(0, TM_DATE_END_JULIAN - TM_POSTGRES_EPOCH_JDATE - 1);
	s_int(1, 1);
	EXPECT_STATUS(e, TM_ERR_DATE_OUT_OF_RANGE);
	s_int(1, 0);
	EXPECT_INT(e, TM_DATE_END_JULIAN - TM_POSTGRES_EPOCH_JDATE - 1);
	s_int(0, -TM_POSTGRES_EPOCH_JDATE);
	s_int(1, -1);
	EXPECT_STATUS(e, TM_ERR_DATE_OUT_OF_RANGE);
	s_int(0, 2000000000);
	s_int(1, 2147483647);
	EXPECT_STATUS(e, TM_ERR_DATE_OUT_OF_RANGE);
	e = binop(TMI_DATE_MII, 0, 0, 0);
	s_int(0, mkdate(2000, 3, 1));
	s_int(1, 1);
	EXPECT_INT(e, mkdate(2000, 2, 29));
	s_int(0, -TM_POSTGRES_EPOCH_JDATE);
	s_int(1, -2147483647 - 1);
	EXPECT_STATUS(e, TM_ERR_DATE_OUT_OF_RANGE);
	e = binop(TMI_DATE_MI, 0, 0, 0);
	s_int(0, mkdate(2001, 1, 1));
	s_int(1, mkdate(2000, 1, 1));
	EXPECT_INT(e, 366);
	s_int(1, TM_DATEVAL_NOBEGIN);
	EXPECT_STATUS(e, TM_ERR_FALLBACK);

	/* date + interval (months, days, time), month-end clamping */
	{
		struct
		{
			int			y, m, d;
			int			months, days;
			int64_t		us;
			int			ey, em, ed, eh;
		}			cases[] = {
			{2000, 1, 31, 1, 0, 0, 2000, 2, 29, 0},
			{2001, 1, 31, 1, 0, 0, 2001, 2, 28, 0},
			{2000, 3, 31, -1, 0, 0, 2000, 2, 29, 0},
			{1999, 12, 31, 2, 0, 0, 2000, 2, 29, 0},
			{2000, 1, 15, -1, 0, 0, 1999, 12, 15, 0},
			{2000, 1, 15, -12, 0, 0, 1999, 1, 15, 0},
			{2000, 1, 15, -13, 0, 0, 1998, 12, 15, 0},
			{2000, 1, 15, 12, 0, 0, 2001, 1, 15, 0},
			{2000, 1, 15, 13, 0, 0, 2001, 2, 15, 0},
			{2000, 12, 15, 1, 0, 0, 2001, 1, 15, 0},
			{2000, 2, 29, 12, 0, 0, 2001, 2, 28, 0},
			{2000, 2, 29, 48, 0, 0, 2004, 2, 29, 0},
			{1998, 12, 1, 0, -90, 0, 1998, 9, 2, 0},
			{1995, 1, 1, 0, 0, 3 * INT64_C(3600000000), 1995, 1, 1, 3},
			{1995, 1, 1, 0, 0, -INT64_C(3600000000), 1994, 12, 31, 23},
			{1994, 1, 31, 1, 1, 0, 1994, 3, 1, 0},		/* months first: Feb 28, then +1 day */
			{1, 1, 31, -1, 0, 0, 0, 12, 31, 0},		/* into 1 BC (year 0 internally) */
		};
		int			i;

		for (i = 0; i < (int) (sizeof(cases) / sizeof(cases[0])); i++)
		{
			TmValue		us;

			a_init();
			p_slot(0);
			a_op(TMI_DATE_TO_TS, 0, 0, 0, 0);
			memset(&us, 0, sizeof(us));
			us.i = cases[i].us;
			a_op(TMI_TS_PL_INTERVAL, 0, cases[i].months, cases[i].days, k_val(us));
			e = a_build();
			slots_clear();
			s_int(0, mkdate(cases[i].y, cases[i].m, cases[i].d));
			EXPECT_INT(e, mkts(cases[i].ey, cases[i].em, cases[i].ed, cases[i].eh, 0, 0));
		}
	}
	/* infinities pass through; out of range */
	{
		TmValue		us;

		a_init();
		p_slot(0);
		memset(&us, 0, sizeof(us));
		a_op(TMI_TS_PL_INTERVAL, 0, 1, 0, k_val(us));
		e = a_build();
		slots_clear();
		s_int(0, TM_DT_NOEND);
		EXPECT_INT(e, TM_DT_NOEND);
		s_int(0, TM_DT_NOBEGIN);
		EXPECT_INT(e, TM_DT_NOBEGIN);
		s_int(0, mkts(294276, 12, 15, 0, 0, 0));
		EXPECT_STATUS(e, TM_ERR_TIMESTAMP_OUT_OF_RANGE);
		s_int(0, mkts(294276, 11, 15, 0, 0, 0));
		EXPECT_INT(e, mkts(294276, 12, 15, 0, 0, 0));
		a_init();
		p_slot(0);
		us.i = TM_INT64_MAX;
		a_op(TMI_TS_PL_INTERVAL, 0, 0, 0, k_val(us));
		e = a_build();
		s_int(0, mkts(2000, 1, 1, 0, 0, 0));
		EXPECT_STATUS(e, TM_ERR_TIMESTAMP_OUT_OF_RANGE);
		s_int(0, -1);
		EXPECT_STATUS(e, TM_ERR_TIMESTAMP_OUT_OF_RANGE);
		a_init();
		p_slot(0);
		us.i = 0;
		a_op(TMI_TS_PL_INTERVAL, 0, -2147483647 - 1, 0, k_val(us));
		e = a_build();
		s_int(0, mkts(2000, 1, 1, 0, 0, 0));
		EXPECT_STATUS(e, TM_ERR_TIMESTAMP_OUT_OF_RANGE);
		a_init();
		p_slot(0);
		a_op(TMI_TS_PL_INTERVAL, 0, 0, 2147483647, k_val(us));
		e = a_build();
		EXPECT_STATUS(e, TM_ERR_TIMESTAMP_OUT_OF_RANGE);
	}

	/* date -> timestamp, timestamp -> date */
	e = unop(TMI_DATE_TO_TS, 0, 0, 0);
	slots_clear();
	s_int(0, mkdate(1999, 12, 31));
	EXPECT_INT(e, mkts(1999, 12, 31, 0, 0, 0));
	s_int(0, TM_DATEVAL_NOBEGIN);
	EXPECT_INT(e, TM_DT_NOBEGIN);
	s_int(0, TM_DATEVAL_NOEND);
	EXPECT_INT(e, TM_DT_NOEND);
	s_int(0, TM_TIMESTAMP_END_JULIAN - TM_POSTGRES_EPOCH_JDATE);
	EXPECT_STATUS(e, TM_ERR_FALLBACK);
	s_int(0, TM_TIMESTAMP_END_JULIAN - TM_POSTGRES_EPOCH_JDATE - 1);
	EXPECT_INT(e, (int64_t) (TM_TIMESTAMP_END_JULIAN - TM_POSTGRES_EPOCH_JDATE - 1) * TM_USECS_PER_DAY);
	e = unop(TMI_TS_TO_DATE, 0, 0, 0);
	s_int(0, mkts(1999, 12, 31, 23, 0, 0));
	EXPECT_INT(e, mkdate(1999, 12, 31));
	s_int(0, mkts(1066, 10, 14, 12, 30, 0));
	EXPECT_INT(e, mkdate(1066, 10, 14));
	s_int(0, TM_DT_NOEND);
	EXPECT_INT(e, TM_DATEVAL_NOEND);

	/* date vs timestamp */
	e = cmpop(TM_CMP_DATE_TS, TM_PRED_LT, 0, 0);
	s_int(0, mkdate(2000, 1, 1));
	s_int(1, mkts(2000, 1, 1, 0, 0, 1));
	EXPECT_INT(e, 1);
	s_int(1, mkts(2000, 1, 1, 0, 0, 0));
	EXPECT_INT(e, 0);
	s_int(0, TM_TIMESTAMP_END_JULIAN - TM_POSTGRES_EPOCH_JDATE + 5);	/* beyond timestamps */
	s_int(1, TM_DT_NOEND);
	EXPECT_INT(e, 1);
	s_int(1, mkts(294276, 12, 31, 23, 59, 59));
	EXPECT_INT(e, 0);
	s_int(0, TM_DATEVAL_NOBEGIN);
	s_int(1, TM_DT_NOBEGIN);
	EXPECT_INT(e, 0);
	e = cmpop(TM_CMP_DATE_TS, TM_PRED_EQ, 0, 0);
	EXPECT_INT(e, 1);			/* -infinity = -infinity */
	e = cmpop(TM_CMP_TS_DATE, TM_PRED_GT, 0, 0);
	s_int(0, mkts(2000, 1, 1, 0, 0, 1));
	s_int(1, mkdate(2000, 1, 1));
	EXPECT_INT(e, 1);
	s_int(0, TM_DT_NOEND);
	s_int(1, TM_TIMESTAMP_END_JULIAN - TM_POSTGRES_EPOCH_JDATE + 5);
	EXPECT_INT(e, 1);

	/* EXTRACT */
	{
		TmExpr	   *ey = unop(TMI_EXTRACT, TM_K_DATE, TM_FIELD_YEAR, 0);
		TmExpr	   *em = unop(TMI_EXTRACT, TM_K_DATE, TM_FIELD_MONTH, 0);
		TmExpr	   *ed = unop(TMI_EXTRACT, TM_K_DATE, TM_FIELD_DAY, 0);
		TmExpr	   *tyf = unop(TMI_EXTRACT, TM_K_TIMESTAMP, TM_FIELD_YEAR, 1);
		TmExpr	   *tmf = unop(TMI_EXTRACT, TM_K_TIMESTAMP, TM_FIELD_MONTH, 1);
		TmExpr	   *tdn = unop(TMI_EXTRACT, TM_K_TIMESTAMP, TM_FIELD_DAY, 0);

		s_int(0, mkdate(2000, 2, 29));
		EXPECT_NUM(ey, 2000);
		EXPECT_NUM(em, 2);
		EXPECT_NUM(ed, 29);
		s_int(0, mkdate(0, 6, 1));	/* 1 BC */
		EXPECT_NUM(ey, -1);
		s_int(0, mkdate(-1, 6, 1));	/* 2 BC */
		EXPECT_NUM(ey, -2);
		s_int(0, TM_DATEVAL_NOEND);
		EXPECT_STATUS(ey, TM_ERR_FALLBACK);
		EXPECT_NULL(em);
		s_int(0, mkts(1995, 3, 15, 23, 59, 59));
		EXPECT_FLOAT(tyf, 1995.0);
		EXPECT_FLOAT(tmf, 3.0);
		EXPECT_NUM(tdn, 15);
		s_int(0, mkts(1969, 12, 31, 23, 59, 59));
		EXPECT_NUM(tdn, 31);
		s_int(0, TM_DT_NOBEGIN);
		EXPECT_FLOAT(tyf, -INFINITY);
		EXPECT_NULL(tmf);
		EXPECT_NULL(tdn);
	}
}

static void
test_control(void)
{
	TmExpr	   *e;
	int			j1,
				j2,
				j3;

	/* COALESCE(slot0, slot1, 7) */
	a_init();
	p_slot(0);
	j1 = a_op(TMI_JUMP_IF_NOT_NULL, 0, -1, 0, 0);
	a_op(TMI_POP, 0, 0, 0, 0);
	p_slot(1);
	j2 = a_op(TMI_JUMP_IF_NOT_NULL, 0, -1, 0, 0);
	a_op(TMI_POP, 0, 0, 0, 0);
	p_int(7);
	patch(j1);
	patch(j2);
	e = a_build();
	slots_clear();
	s_int(0, 1);
	s_int(1, 2);
	EXPECT_INT(e, 1);
	s_null(0);
	EXPECT_INT(e, 2);
	s_null(1);
	EXPECT_INT(e, 7);

	/* CASE slot0 WHEN 1 THEN 10 WHEN 2 THEN 20 ELSE NULL END */
	a_init();
	p_slot(0);
	a_op(TMI_STORE_LOCAL, 0, 0, 0, 0);
	a_op(TMI_LOAD_LOCAL, 0, 0, 0, 0);
	p_int(1);
	a_op(TMI_CMP, TM_CMP_INT, TM_PRED_EQ, 0, 0);
	j1 = a_op(TMI_JUMP_IF_NOT_TRUE_POP, 0, -1, 0, 0);
	p_int(10);
	j2 = a_op(TMI_JUMP, 0, -1, 0, 0);
	patch(j1);
	a_op(TMI_LOAD_LOCAL, 0, 0, 0, 0);
	p_int(2);
	a_op(TMI_CMP, TM_CMP_INT, TM_PRED_EQ, 0, 0);
	j1 = a_op(TMI_JUMP_IF_NOT_TRUE_POP, 0, -1, 0, 0);
	p_int(20);
	j3 = a_op(TMI_JUMP, 0, -1, 0, 0);
	patch(j1);
	p_null();
	patch(j2);
	patch(j3);
	e = a_build();
	slots_clear();
	s_int(0, 1);
	EXPECT_INT(e, 10);
	s_int(0, 2);
	EXPECT_INT(e, 20);
	s_int(0, 3);
	EXPECT_NULL(e);
	s_null(0);
	EXPECT_NULL(e);

	/* NULLIF(slot0, slot1) */
	a_init();
	p_slot(0);
	a_op(TMI_STORE_LOCAL, 0, 1, 0, 0);
	a_op(TMI_LOAD_LOCAL, 0, 1, 0, 0);
	p_slot(1);
	a_op(TMI_CMP, TM_CMP_INT, TM_PRED_EQ, 0, 0);
	j1 = a_op(TMI_JUMP_IF_NOT_TRUE_POP, 0, -1, 0, 0);
	p_null();
	j2 = a_op(TMI_JUMP, 0, -1, 0, 0);
	patch(j1);
	a_op(TMI_LOAD_LOCAL, 0, 1, 0, 0);
	patch(j2);
	e = a_build();
	slots_clear();
	s_int(0, 4);
	s_int(1, 4);
	EXPECT_NULL(e);
	s_int(1, 5);
	EXPECT_INT(e, 4);
	s_null(1);
	EXPECT_INT(e, 4);
	s_null(0);
	EXPECT_NULL(e);
}

static void
test_distinct_minmax(void)
{
	TmExpr	   *e;

	/* IS DISTINCT FROM */
	e = cmpop(TM_CMP_INT | TMF_DISTINCT, TM_PRED_EQ, 0, 0);
	slots_clear();
	s_int(0, 1);
	s_int(1, 1);
	EXPECT_INT(e, 0);
	s_int(1, 2);
	EXPECT_INT(e, 1);
	s_null(1);
	EXPECT_INT(e, 1);
	s_null(0);
	EXPECT_INT(e, 0);
	e = cmpop(TM_CMP_NUMERIC | TMF_DISTINCT, TM_PRED_EQ, 1, 2);
	s_num(0, 15);
	s_num(1, 150);
	EXPECT_INT(e, 0);
	e = cmpop(TM_CMP_FLOAT | TMF_DISTINCT, TM_PRED_EQ, 0, 0);
	s_float(0, NAN);
	s_float(1, NAN);
	EXPECT_INT(e, 0);

	/* GREATEST(slot0, slot1, slot2) */
	a_init();
	p_slot(0);
	p_slot(1);
	a_op(TMI_MINMAX, TM_CMP_INT, 1, 0, 0);
	p_slot(2);
	a_op(TMI_MINMAX, TM_CMP_INT, 1, 0, 0);
	e = a_build();
	slots_clear();
	s_int(0, 1);
	s_int(1, 5);
	s_int(2, 3);
	EXPECT_INT(e, 5);
	s_null(1);
	EXPECT_INT(e, 3);
	s_null(0);
	s_null(2);
	EXPECT_NULL(e);
	/* LEAST on bpchar keeps the first of equal values */
	a_init();
	p_slot(0);
	p_slot(1);
	a_op(TMI_MINMAX, TM_CMP_BPCHAR, 0, 0, 0);
	e = a_build();
	slots_clear();
	s_text(0, "ab  ");
	s_text(1, "ab");
	EXPECT_TEXT(e, "ab  ");
	s_text(1, "aa");
	EXPECT_TEXT(e, "aa");
	/* float: NaN is the greatest */
	a_init();
	p_slot(0);
	p_slot(1);
	a_op(TMI_MINMAX, TM_CMP_FLOAT, 1, 0, 0);
	e = a_build();
	s_float(0, INFINITY);
	s_float(1, NAN);
	EXPECT_FLOAT(e, NAN);
}

static void
test_validate(void)
{
	int			depth[64];
	TmExpr	   *e;

	/* backward jump */
	a_init();
	p_int(1);
	a_op(TMI_JUMP, 0, 0, 0, 0);
	{
		size_t		total = 48 + 2 * sizeof(TmInstr) + 16;

		e = (TmExpr *) aligned_alloc(16, (total + 15) & ~(size_t) 15);
		memset(e, 0, total);
		e->total_size = (int32_t) total;
		e->ninstr = A.n;
		e->instr_off = 48;
		e->nconst = 1;
		e->const_off = 48 + 2 * sizeof(TmInstr);
		e->max_stack = 4;
		memcpy((char *) e + 48, A.code, A.n * sizeof(TmInstr));
		TM_CHECK(!tm_expr_validate(e, -1, depth));
		/* now fix it: a single push validates */
		e->ninstr = 1;
		TM_CHECK(tm_expr_validate(e, -1, depth));
		/* bad slot number */
		((TmInstr *) ((char *) e + 48))[0].op = TMI_PUSH_SLOT;
		((TmInstr *) ((char *) e + 48))[0].a = 3;
		TM_CHECK(!tm_expr_validate(e, 2, depth));
		TM_CHECK(tm_expr_validate(e, 4, depth));
		/* stack underflow */
		((TmInstr *) ((char *) e + 48))[0].op = TMI_AND;
		TM_CHECK(!tm_expr_validate(e, 4, depth));
		free(e);
	}
}

static void
test_hash(void)
{
	TmType		tf = {TM_K_FLOAT8, 0, -1, 701, 0};
	TmType		tb = {TM_K_BPCHAR, 0, -1, 1042, 100};
	TmType		tt = {TM_K_TEXT, 0, -1, 25, 100};
	TmType		tn = {TM_K_NUMERIC, 2, -1, 1700, 0};
	TmType		ti = {TM_K_INT4, 0, -1, 23, 0};
	TmValue		a,
				b;
	double		nan2;
	uint64_t	bits;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.f = 0.0;
	b.f = -0.0;
	TM_CHECK(tm_values_equal(&a, &b, &tf));
	TM_CHECK(tm_hash_value(&a, &tf) == tm_hash_value(&b, &tf));
	TM_CHECK(tm_values_cmp(&a, &b, &tf) == 0);
	a.f = NAN;
	bits = UINT64_C(0xfff8000000000123);	/* another NaN */
	memcpy(&nan2, &bits, sizeof(nan2));
	b.f = nan2;
	TM_CHECK(tm_values_equal(&a, &b, &tf));
	TM_CHECK(tm_hash_value(&a, &tf) == tm_hash_value(&b, &tf));
	b.f = INFINITY;
	TM_CHECK(!tm_values_equal(&a, &b, &tf));
	TM_CHECK(tm_values_cmp(&a, &b, &tf) > 0);
	TM_CHECK(tm_values_cmp(&b, &a, &tf) < 0);
	a.f = 1.0;
	b.f = 2.0;
	TM_CHECK(tm_hash_value(&a, &tf) != tm_hash_value(&b, &tf));

	a.s.p = "AIR   ";
	a.s.len = 6;
	b.s.p = "AIR";
	b.s.len = 3;
	TM_CHECK(tm_values_equal(&a, &b, &tb));
	TM_CHECK(tm_hash_value(&a, &tb) == tm_hash_value(&b, &tb));
	TM_CHECK(tm_values_cmp(&a, &b, &tb) == 0);
	TM_CHECK(!tm_values_equal(&a, &b, &tt));
	TM_CHECK(tm_values_cmp(&a, &b, &tt) > 0);
	b.s.p = "AIR REG";
	b.s.len = 7;
	TM_CHECK(tm_values_cmp(&a, &b, &tb) < 0);
	TM_CHECK(!tm_values_equal(&a, &b, &tb));
	/* long strings: equal bytes hash equal, a changed byte changes the hash */
	{
		char		x[100],
					y[100];
		int			i;

		for (i = 0; i < 100; i++)
			x[i] = y[i] = (char) ('a' + i % 26);
		a.s.p = x;
		a.s.len = 100;
		b.s.p = y;
		b.s.len = 100;
		TM_CHECK(tm_hash_value(&a, &tt) == tm_hash_value(&b, &tt));
		y[77] = 'Z';
		TM_CHECK(tm_hash_value(&a, &tt) != tm_hash_value(&b, &tt));
		TM_CHECK(tm_values_cmp(&a, &b, &tt) > 0);
		b.s.len = 99;
		y[77] = x[77];
		TM_CHECK(tm_hash_value(&a, &tt) != tm_hash_value(&b, &tt));
	}
	a.n = 150;
	b.n = 150;
	TM_CHECK(tm_values_equal(&a, &b, &tn));
	TM_CHECK(tm_hash_value(&a, &tn) == tm_hash_value(&b, &tn));
	b.n = -150;
	TM_CHECK(tm_values_cmp(&a, &b, &tn) > 0);
	TM_CHECK(tm_hash_value(&a, &tn) != tm_hash_value(&b, &tn));
	a.i = 5;
	b.i = 5;
	TM_CHECK(tm_hash_value(&a, &ti) == tm_hash_value(&b, &ti));
	TM_CHECK(tm_hash_combine(1, 2) != tm_hash_combine(2, 1));

	/* few collisions over small ints */
	{
		int			coll = 0;
		int			i;
		static uint64_t seen[4096];

		memset(seen, 0, sizeof(seen));
		for (i = 0; i < 2000; i++)
		{
			TmValue		v;
			uint64_t	h;

			v.i = i;
			h = tm_hash_value(&v, &ti);
			if (seen[h & 4095])
				coll++;
			seen[h & 4095] = 1;
		}
		TM_CHECK_MSG(coll < 700, "%d bucket collisions", coll);
	}
}

static void
test_sum(void)
{
	TmType		i4 = {TM_K_INT4, 0, -1, 23, 0};
	TmType		i8 = {TM_K_INT8, 0, -1, 20, 0};
	TmType		n0 = {TM_K_NUMERIC, 0, -1, 1700, 0};
	TmType		n2 = {TM_K_NUMERIC, 2, -1, 1700, 0};
	TmType		f8 = {TM_K_FLOAT8, 0, -1, 701, 0};
	TmType		f4 = {TM_K_FLOAT4, 0, -1, 700, 0};
	TmValue		acc,
				v;
	bool		accnull;
	int			i;

	memset(&acc, 0, sizeof(acc));
	memset(&v, 0, sizeof(v));
	accnull = true;
	for (i = 0; i < 3; i++)
	{
		v.i = 2147483647;
		TM_CHECK(tm_sum_add(&acc, &accnull, &v, &i4, &i8) == TM_OK);
	}
	TM_CHECK(!accnull && acc.i == INT64_C(3) * 2147483647);

	accnull = true;
	v.i = TM_INT64_MAX;
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &i8, &n0) == TM_OK);
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &i8, &n0) == TM_OK);
	TM_CHECK(acc.n == (tm_int128) TM_INT64_MAX * 2);

	accnull = true;
	v.n = TM_INT128_MAX - 5;
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &n2, &n2) == TM_OK);
	v.n = 5;
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &n2, &n2) == TM_OK);
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &n2, &n2) == TM_ERR_FALLBACK);

	accnull = true;
	v.f = 1e308;
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &f8, &f8) == TM_OK);
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &f8, &f8) == TM_ERR_FLOAT_OVERFLOW);
	accnull = true;
	v.f = INFINITY;
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &f8, &f8) == TM_OK);
	v.f = 1.0;
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &f8, &f8) == TM_OK && acc.f == INFINITY);
	accnull = true;
	v.f = 16777216.0;
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &f4, &f4) == TM_OK);
	v.f = 1.0;
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &f4, &f4) == TM_OK && acc.f == 16777216.0);
	v.f = (double) 3e38f;
	accnull = true;
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &f4, &f4) == TM_OK);
	TM_CHECK(tm_sum_add(&acc, &accnull, &v, &f4, &f4) == TM_ERR_FLOAT_OVERFLOW);
}

static void
test_unaligned_slots(void)
{
	/* slots at an 8-byte (not 16-byte) aligned address, as palloc may give */
	char	   *raw = (char *) aligned_alloc(16, 16 * 9);
	TmValue    *slots = (TmValue *) (raw + 8);
	TmValue		v,
				r;
	bool		isnull;
	TmExpr	   *e = binop(TMI_ADD, TM_K_NUMERIC, 2, 2);

	memset(raw, 0, 16 * 9);
	memset(&v, 0, sizeof(v));
	v.n = 123;
	memcpy((char *) &slots[0], &v, sizeof(v));
	v.n = 877;
	memcpy((char *) &slots[1], &v, sizeof(v));
	TM_CHECK(tm_eval(e, slots, NULL, (TmValue *) (raw + 8 + 16 * 4), &isnull) == TM_OK);
	memcpy(&r, raw + 8 + 16 * 4, sizeof(r));
	TM_CHECK(!isnull && r.n == 1000);
	free(raw);
}

/*
 * The fast form against the interpreter on random arithmetic: trees of up to 7 operators over slots,
 * constants and NULL, of one kind each (integers of every width, floats, numerics of scales 0-3 with
 * values near 2^127, 2^100, 2^63 and zero, so that overflows and the fallbacks are hit), a quarter of
 * them with division and modulo too (which the fast form refuses, as it does floats), each evaluated over
 * random slots by run() (which compares both where the form compiled); then other forms it refuses
 */
static uint64_t fa_rng = 88172645463325252ULL;

static uint64_t
fa_rand(void)
{
	return tm_unit_xorshift(&fa_rng);
}

static TmValue
fa_value(int kind)
{
	TmValue		v;
	int			r = (int) (fa_rand() % 8);

	memset(&v, 0, sizeof(v));
	if (kind == TM_K_FLOAT4 || kind == TM_K_FLOAT8)
	{
		static const double f[] = {0.0, 1.5, -2.25, 1e300, -1e-300, 3.0e38, 7.0, -0.5};

		v.f = f[r];
		return v;
	}
	if (kind == TM_K_NUMERIC)
	{
		tm_int128	big = (tm_int128) 1 << (r == 0 ? 126 : r == 1 ? 100 : r == 2 ? 63 : 10);

		v.n = r < 3 ? big - (tm_int128) (fa_rand() % 1000) : (tm_int128) ((int64_t) (fa_rand() % 20001) - 10000);
		if (r == 7)
			v.n = 0;
		if (fa_rand() & 1)
			v.n = -v.n;
		return v;
	}
	v.i = r == 0 ? tm_int_min(kind) : r == 1 ? (kind == TM_K_INT2 ? 32767 : kind == TM_K_INT4 ? 2147483647 : INT64_MAX) :
		r == 2 ? -1 : r == 3 ? 0 : (int64_t) (fa_rand() % 2001) - 1000;
	return v;
}

static bool fa_divmod;			/* fa_tree may draw TMI_DIV and TMI_MOD */
static bool fa_drew_divmod;		/* and it did */
static bool fa_drew_op;			/* fa_tree drew an operator (not a lone push) */

/* a random tree of kind `kind` with up to `ops` operators, in postfix; the scale of its value */
static int
fa_tree(int kind, int ops, int depth)
{
	if (ops == 0 || depth >= 3 || fa_rand() % 4 == 0)
	{
		int			r = (int) (fa_rand() % 8);

		if (r < 5)
			p_slot(r);
		else if (r < 7)
		{
			TmValue		v = fa_value(kind);

			a_op(TMI_PUSH_CONST, 0, k_val(v), 0, 0);
		}
		else
			p_null();
		return kind == TM_K_NUMERIC ? (int) (fa_rand() % 4) : 0;
	}
	{
		static const int opsv[] = {TMI_ADD, TMI_SUB, TMI_MUL, TMI_DIV, TMI_MOD};
		int			op = opsv[fa_rand() % (!fa_divmod ? 3 : kind == TM_K_FLOAT4 || kind == TM_K_FLOAT8 ? 4 : 5)];
		int			ls = fa_tree(kind, (ops - 1) / 2, depth + 1);
		int			rs = fa_tree(kind, ops - 1 - (ops - 1) / 2, depth + 1);
		int			sc = op == TMI_MUL ? ls + rs : op == TMI_DIV ? (int) (fa_rand() % 6) : (ls > rs ? ls : rs);

		a_op(op, kind, ls, rs, sc);
		fa_drew_op = true;
		if (op == TMI_DIV || op == TMI_MOD)
			fa_drew_divmod = true;
		return sc;
	}
}

static void
test_fast_arith(void)
{
	static const int kinds[] = {TM_K_INT2, TM_K_INT4, TM_K_INT8, TM_K_FLOAT4, TM_K_FLOAT8, TM_K_NUMERIC};
	int			before = fast_checked;
	int			compiled = 0;
	TmFastArith fa;

	for (int t = 0; t < 3000; t++)
	{
		int			kind = kinds[t % 6];
		TmExpr	   *e;
		bool		ok;

		a_init();
		fa_divmod = t % 4 == 3;
		fa_drew_divmod = false;
		fa_drew_op = false;
		fa_tree(kind, 1 + (int) (fa_rand() % 7), 0);
		e = a_build();
		ok = tm_fast_arith_compile(e, &fa);
		/* the fast form takes a lone push and integer and numeric ADD / SUB / MUL: every such tree here */
		TM_CHECK_MSG(ok == (!fa_drew_op || (kind != TM_K_FLOAT4 && kind != TM_K_FLOAT8 && !fa_drew_divmod)),
					 "tree %d (kind %d): compiled %d", t, kind, (int) ok);
		if (ok)
			compiled++;
		for (int r = 0; r < 8; r++)
		{
			slots_clear();
			for (int i = 0; i < 5; i++)
			{
				S[i] = fa_value(kind);
				SN[i] = fa_rand() % 10 == 0;
			}
			run(e);
		}
	}
	TM_CHECK_MSG(compiled > 1200, "%d of 3000 random trees in the fast form", compiled);
	TM_CHECK(fast_checked - before >= 8 * compiled);

	/* refused: text constants, comparisons, more than TM_FA_MAX_DEPTH entries, a bare NOP-only block */
	a_init();
	p_slot(0);
	p_text("x");
	a_op(TMI_CMP, TM_CMP_TEXT, TM_PRED_EQ, 0, 0);
	TM_CHECK(!tm_fast_arith_compile(a_build(), &fa));
	a_init();
	for (int i = 0; i < 5; i++)
		p_slot(i);
	for (int i = 0; i < 4; i++)
		a_op(TMI_ADD, TM_K_INT8, 0, 0, 0);
	TM_CHECK(!tm_fast_arith_compile(a_build(), &fa));
	a_init();
	p_slot(0);
	a_op(TMI_NEG, TM_K_INT8, 0, 0, 0);
	TM_CHECK(!tm_fast_arith_compile(a_build(), &fa));
}

/*
 * numeric_div's 64-bit fast paths (tm_udivmod, tm_mul_exceeds, the 64-bit digit count) against the
 * 128-bit code they replaced, kept here as the reference (ref_*): the digit count, select_div_scale's
 * weights, and the exact quotient and scale (tm_num_div_exact) over random operands of 1 to 38 digits,
 * both signs, zeros, scales 0 to 38, and the boundaries of 64 bits and of powers of ten
 */
static int
ref_u128_digits(tm_uint128 u)
{
	int			d = 1;

	while (d < 39 && u >= (tm_uint128) tm_pow10(d))
		d++;
	return d;
}

static void
ref_num_weight(tm_int128 x, int sx, int *weight, int *first)
{
	tm_uint128	u = tm_abs_u128(x);
	int			e,
				w,
				j;

	*weight = 0;
	*first = 0;
	if (u == 0)
		return;
	e = ref_u128_digits(u) - 1 - sx;
	w = (e >= 0) ? e / 4 : -((3 - e) / 4);
	j = sx + 4 * w;
	if (j >= 0)
		*first = (int) (u / (tm_uint128) tm_pow10(j));
	else
		*first = (int) (u * (tm_uint128) tm_pow10_u64(-j));
	*weight = w;
}

static TmStatus
ref_num_div_exact(tm_int128 x, int sx, tm_int128 y, int sy, tm_int128 *q_out, int *rscale_out)
{
	int			w1,
				f1,
				w2,
				f2,
				qweight,
				rscale,
				k;
	tm_uint128	ux = tm_abs_u128(x);
	tm_uint128	uy = tm_abs_u128(y);
	const tm_uint128 lim = (tm_uint128) TM_INT128_MAX;
	tm_uint128	q,
				rem;
	bool		neg = (x < 0) != (y < 0);

	if (y == 0)
		return TM_ERR_DIV_BY_ZERO;
	if (x == 0)
	{
		*q_out = 0;
		*rscale_out = 0;
		return TM_OK;
	}
	ref_num_weight(x, sx, &w1, &f1);
	ref_num_weight(y, sy, &w2, &f2);
	qweight = w1 - w2;
	if (f1 <= f2)
		qweight--;
	rscale = 16 - qweight * 4;
	if (rscale < sx)
		rscale = sx;
	if (rscale < sy)
		rscale = sy;
	if (rscale < 0)
		rscale = 0;
	if (rscale > 38)
		return TM_ERR_FALLBACK;
	k = rscale + sy - sx;
	q = ux / uy;
	rem = ux % uy;
	while (k > 0)
	{
		int			m = k < 19 ? k : 19;
		tm_uint128	p,
					t;

		while (m > 1 && rem > lim / (tm_uint128) tm_pow10_u64(m))
			m--;
		p = (tm_uint128) tm_pow10_u64(m);
		if (rem > lim / p || q > lim / p)
			return TM_ERR_FALLBACK;
		t = rem * p;
		q = q * p + t / uy;
		rem = t % uy;
		if (q > lim)
			return TM_ERR_FALLBACK;
		k -= m;
	}
	if (rem >= uy - rem)
	{
		if (q >= lim)
			return TM_ERR_FALLBACK;
		q++;
	}
	*q_out = neg ? -(tm_int128) q : (tm_int128) q;
	*rscale_out = rscale;
	return TM_OK;
}

/* a random value below 10^d (d <= 38), of either sign, zero one time in 16 */
static tm_int128
nd_value(int d)
{
	tm_uint128	r = ((tm_uint128) fa_rand() << 64) | fa_rand();
	tm_int128	v;

	if (fa_rand() % 16 == 0)
		return 0;
	v = (tm_int128) (r % (tm_uint128) tm_pow10(d));
	return (fa_rand() & 1) ? -v : v;
}

/* a scale: mostly 0 to 6, sometimes up to 38 */
static int
nd_scale(void)
{
	return (fa_rand() % 4 == 0) ? (int) (fa_rand() % 39) : (int) (fa_rand() % 7);
}

static void
test_num_div_fast(void)
{
	int			bad = 0;

	/* digit counts at the powers of ten and at 2^64 */
	for (int k = 0; k <= 38; k++)
	{
		tm_uint128	p = (tm_uint128) tm_pow10(k);

		TM_CHECK_INT_EQ(tm_u128_digits(p), ref_u128_digits(p));
		TM_CHECK_INT_EQ(tm_u128_digits(p + 1), ref_u128_digits(p + 1));
		if (k > 0)
			TM_CHECK_INT_EQ(tm_u128_digits(p - 1), ref_u128_digits(p - 1));
	}
	for (int k = -1; k <= 1; k++)
	{
		tm_uint128	u = ((tm_uint128) 1 << 64) + (tm_uint128) (tm_int128) k;

		TM_CHECK_INT_EQ(tm_u128_digits(u), ref_u128_digits(u));
	}
	TM_CHECK_INT_EQ(tm_u128_digits((tm_uint128) TM_INT128_MAX), 39);

	for (int i = 0; i < 1000000; i++)
	{
		tm_int128	x = nd_value(1 + (int) (fa_rand() % 38));
		tm_int128	y = nd_value(1 + (int) (fa_rand() % 38));
		int			sx = nd_scale();
		int			sy = nd_scale();
		int			w1,
					f1,
					w2,
					f2,
					rs1 = -1,
					rs2 = -1;
		tm_int128	q1 = 0,
					q2 = 0;
		TmStatus	st1,
					st2;

		if (i % 2 == 0)
		{
			/* operands within 64 bits, as most are (the fast paths' own case) */
			x = (tm_int128) ((int64_t) (uint64_t) x);
			y = (tm_int128) ((int64_t) (uint64_t) y);
		}
		tm_num_weight(x, sx, &w1, &f1);
		ref_num_weight(x, sx, &w2, &f2);
		st1 = tm_num_div_exact(x, sx, y, sy, &q1, &rs1);
		st2 = ref_num_div_exact(x, sx, y, sy, &q2, &rs2);
		if (w1 != w2 || f1 != f2 || st1 != st2 || (st1 == TM_OK && (q1 != q2 || rs1 != rs2)))
		{
			if (bad++ < 5)
				TM_CHECK_MSG(false, "case %d: x %lld..%llu scale %d, y %lld..%llu scale %d: status %d / %d, "
							 "scale %d / %d, weight %d / %d", i,
							 (long long) (int64_t) (x >> 64), (unsigned long long) (uint64_t) x, sx,
							 (long long) (int64_t) (y >> 64), (unsigned long long) (uint64_t) y, sy,
							 (int) st1, (int) st2, rs1, rs2, w1, w2);
		}
	}
	TM_CHECK_INT_EQ(bad, 0);

	/*
	 * the same through the interpreter (TMI_DIV held at scale 38), which gpu_expr.cu also runs on the
	 * device and checks against the host
	 */
	{
		static TmExpr *ex[39][39];
		int			nok = 0;

		for (int i = 0; i < 4000; i++)
		{
			tm_int128	x = nd_value(1 + (int) (fa_rand() % 30));
			tm_int128	y = nd_value(1 + (int) (fa_rand() % 30));
			int			sx = nd_scale();
			int			sy = nd_scale();
			int			rs = -1;
			tm_int128	q = 0,
						want = 0;
			TmStatus	st;

			if (i % 2 == 0)
			{
				x = (tm_int128) ((int64_t) (uint64_t) x);
				y = (tm_int128) ((int64_t) (uint64_t) y);
			}
			if (ex[sx][sy] == NULL)
				ex[sx][sy] = binop_c(TMI_DIV, TM_K_NUMERIC, sx, sy, 38);
			st = ref_num_div_exact(x, sx, y, sy, &q, &rs);
			if (st == TM_OK && (rs > 38 || tm_num_upscale(q, 38 - rs, &want)))
				st = TM_ERR_FALLBACK;
			s_num(0, x);
			s_num(1, y);
			if (st == TM_OK)
			{
				nok++;
				EXPECT_NUM(ex[sx][sy], want);
			}
			else
				EXPECT_STATUS(ex[sx][sy], st);
		}
		TM_CHECK(nok > 1000);
	}
}

/*
 * tm_mul_s128_overflow's and tm_num_upscale's 64-bit fast paths against the 128-bit code (kept here as
 * the reference, ref_mul_s128_overflow) over random operands of 1 to 38 digits, both signs, and the
 * boundaries of 64 and 128 bits: the same product, the same overflow
 */
static bool
ref_mul_s128_overflow(tm_int128 a, tm_int128 b, tm_int128 *r)
{
	bool		neg = (a < 0) != (b < 0);
	tm_uint128	ua = tm_abs_u128(a);
	tm_uint128	ub = tm_abs_u128(b);
	uint64_t	ah = (uint64_t) (ua >> 64);
	uint64_t	bh = (uint64_t) (ub >> 64);
	tm_uint128	p;
	tm_uint128	limit;

	*r = 0;
	if (ah != 0 && bh != 0)
		return true;
	if (ah == 0 && bh == 0)
		p = (tm_uint128) (uint64_t) ua * (tm_uint128) (uint64_t) ub;
	else
	{
		tm_uint128	x = ah ? ua : ub;
		uint64_t	y = ah ? (uint64_t) ub : (uint64_t) ua;
		tm_uint128	hi = (tm_uint128) (uint64_t) (x >> 64) * (tm_uint128) y;
		tm_uint128	lo = (tm_uint128) (uint64_t) x * (tm_uint128) y;
		tm_uint128	hs;

		if ((hi >> 64) != 0)
			return true;
		hs = hi << 64;
		p = hs + lo;
		if (p < hs)
			return true;
	}
	limit = ((tm_uint128) 1) << 127;
	if (neg)
	{
		if (p > limit)
			return true;
		*r = (tm_int128) ((tm_uint128) 0 - p);
	}
	else
	{
		if (p > limit - 1)
			return true;
		*r = (tm_int128) p;
	}
	return false;
}

static bool
ref_num_upscale(tm_int128 x, int k, tm_int128 *r)
{
	if (k == 0 || x == 0)
	{
		*r = x;
		return false;
	}
	if (k > 38)
		return true;
	return ref_mul_s128_overflow(x, tm_pow10(k), r);
}

static void
test_mul_fast(void)
{
	const tm_int128 edges[] = {
		0, 1, -1, 2, -2, 10, -10,
		(tm_int128) INT64_MAX, (tm_int128) INT64_MIN, (tm_int128) INT64_MAX - 1, (tm_int128) INT64_MIN + 1,
		(tm_int128) INT64_MAX + 1, (tm_int128) INT64_MIN - 1, (tm_int128) UINT64_MAX, -(tm_int128) UINT64_MAX,
		TM_INT128_MAX, -TM_INT128_MAX, -TM_INT128_MAX - 1, (tm_int128) 1 << 100, -((tm_int128) 1 << 100),
		((tm_int128) 1 << 64) - 3, (tm_int128) 3037000499LL, (tm_int128) 3037000500LL
	};
	int			ne = (int) (sizeof(edges) / sizeof(edges[0]));
	int			bad = 0;

	for (int i = 0; i < ne; i++)
		for (int j = 0; j < ne; j++)
		{
			tm_int128	r1 = 7,
						r2 = 7;
			bool		o1 = tm_mul_s128_overflow(edges[i], edges[j], &r1);
			bool		o2 = ref_mul_s128_overflow(edges[i], edges[j], &r2);

			if (o1 != o2 || (!o1 && r1 != r2))
				bad++;
		}
	for (int i = 0; i < ne; i++)
		for (int k = 0; k <= 40; k++)
		{
			tm_int128	r1 = 7,
						r2 = 7;
			bool		o1 = tm_num_upscale(edges[i], k, &r1);
			bool		o2 = ref_num_upscale(edges[i], k, &r2);

			if (o1 != o2 || (!o1 && r1 != r2))
				bad++;
		}
	TM_CHECK_INT_EQ(bad, 0);
	for (int i = 0; i < 1000000; i++)
	{
		tm_int128	x = nd_value(1 + (int) (fa_rand() % 38));
		tm_int128	y = nd_value(1 + (int) (fa_rand() % 38));
		int			k = (int) (fa_rand() % 40);
		tm_int128	r1 = 7,
					r2 = 7;
		bool		o1,
					o2;

		if (i % 2 == 0)
		{
			/* within 64 bits, the fast paths' own case */
			x = (tm_int128) ((int64_t) (uint64_t) x);
			y = (tm_int128) ((int64_t) (uint64_t) y);
		}
		o1 = tm_mul_s128_overflow(x, y, &r1);
		o2 = ref_mul_s128_overflow(x, y, &r2);
		if (o1 != o2 || (!o1 && r1 != r2))
		{
			if (bad++ < 5)
				TM_CHECK_MSG(false, "mul case %d: x %lld..%llu, y %lld..%llu: overflow %d / %d", i,
							 (long long) (int64_t) (x >> 64), (unsigned long long) (uint64_t) x,
							 (long long) (int64_t) (y >> 64), (unsigned long long) (uint64_t) y, o1, o2);
		}
		o1 = tm_num_upscale(x, k, &r1);
		o2 = ref_num_upscale(x, k, &r2);
		if (o1 != o2 || (!o1 && r1 != r2))
		{
			if (bad++ < 5)
				TM_CHECK_MSG(false, "upscale case %d: x %lld..%llu, k %d: overflow %d / %d", i,
							 (long long) (int64_t) (x >> 64), (unsigned long long) (uint64_t) x, k, o1, o2);
		}
	}
	TM_CHECK_INT_EQ(bad, 0);
}

int
main(void)
{
	int			i;

	TM_RUN(test_three_valued_logic);
	TM_RUN(test_short_circuit);
	TM_RUN(test_integers);
	TM_RUN(test_floats);
	TM_RUN(test_numeric);
	TM_RUN(test_in_list);
	TM_RUN(test_text);
	TM_RUN(test_like);
	TM_RUN(test_substring);
	TM_RUN(test_dates);
	TM_RUN(test_control);
	TM_RUN(test_distinct_minmax);
	TM_RUN(test_validate);
	TM_RUN(test_hash);
	TM_RUN(test_sum);
	TM_RUN(test_unaligned_slots);
	TM_RUN(test_fast_arith);
	TM_RUN(test_num_div_fast);
	TM_RUN(test_mul_fast);
#ifdef TM_EXPR_TEST_DEVICE
	TM_RUN(gpu_hash_checks);
#endif
	for (i = 0; i < nbuilt; i++)
		free(built[i]);
	return tm_unit_done();
}
