/*
 * tm_expr_eval.h — opcodes, instruction layout and interpreter of the themis expression bytecode,
 * plus the value primitives (integer/float/numeric arithmetic, dates, text, LIKE) that implement
 * PostgreSQL 15 semantics.  Host (gcc, C) and device (nvcc, CUDA C++) code.
 *
 * The bytecode is a stack machine.  Each stack entry is a TmValue plus a null flag.  Jumps only go
 * forward (the compiler never emits backward jumps; tm_expr_validate checks it), so evaluation always
 * terminates and the stack depth at every instruction is known statically.
 *
 * No allocation, no recursion, no libc beyond <math.h> rint() and <string.h> memcpy (host only).
 * Text results always point into an input value or into the expression's pool (substring, rtrim).
 *
 * Functions are "static inline" (TM_FN) so that several translation units may include this header.
 *
 * Build note for device code: floats must be IEEE exact: compile without --use_fast_math / -ftz=true,
 * and with --fmad=false (PostgreSQL never contracts a*b+c into a fused multiply-add).
 */
#ifndef THEMIS_TM_EXPR_EVAL_H
#define THEMIS_TM_EXPR_EVAL_H

#include <math.h>
#include <float.h>
#include <string.h>
#include "themis/tm_types.h"
#include "themis/tm_expr.h"

#ifdef __CUDACC__
#define TM_FN static __host__ __device__ inline
#else
#define TM_FN static inline
#endif

/*
 * Loads and stores of TmValue through pointers that might not be 16-byte aligned (palloc only
 * guarantees 8): on the host, go through memcpy on char pointers so that the compiler cannot emit
 * aligned SSE moves.  Device memory is always naturally aligned.
 */
#if defined(__CUDA_ARCH__)
#define TM_LOADV(dst, srcp)		((dst) = *(srcp))
#define TM_STOREV(dstp, src)	(*(dstp) = (src))
#else
#define TM_LOADV(dst, srcp)		memcpy((char *) &(dst), (const char *) (srcp), sizeof(TmValue))
#define TM_STOREV(dstp, src)	memcpy((char *) (dstp), (const char *) &(src), sizeof(TmValue))
#endif

typedef unsigned __int128 tm_uint128;

/* ------------------------------------------------------------------------------------------------
 * Instruction set
 * ------------------------------------------------------------------------------------------------
 */
typedef enum TmOpcode
{
	TMI_NOP = 0,
	/* stack / locals */
	TMI_PUSH_SLOT,				/* a = slot */
	TMI_PUSH_CONST,				/* a = const index; flags & TMF_TEXT: resolve .s.p pool offset */
	TMI_PUSH_NULL,
	TMI_POP,
	TMI_STORE_LOCAL,			/* a = local: pop into it */
	TMI_LOAD_LOCAL,				/* a = local: push it */
	/* control (targets are instruction indexes > pc) */
	TMI_JUMP,					/* a = target */
	TMI_JUMP_IF_FALSE,			/* peek: non-NULL false -> jump (AND chain) */
	TMI_JUMP_IF_TRUE,			/* peek: non-NULL true -> jump (OR chain) */
	TMI_QJUMP_IF_FALSE,			/* top-level AND: like JUMP_IF_FALSE; in qual mode also on NULL */
	TMI_JUMP_IF_NOT_TRUE_POP,	/* pop: NULL or false -> jump (CASE WHEN) */
	TMI_JUMP_IF_NOT_NULL,		/* peek: non-NULL -> jump (COALESCE) */
	/* logic */
	TMI_AND,					/* pop b, a: 3VL a AND b */
	TMI_OR,						/* pop b, a: 3VL a OR b */
	TMI_NOT,
	TMI_IS_NULL,
	TMI_IS_NOT_NULL,
	TMI_IS_TRUE,
	TMI_IS_NOT_TRUE,
	TMI_IS_FALSE,
	TMI_IS_NOT_FALSE,
	/*
	 * comparison: flags = TmCmpClass (| TMF_DISTINCT: IS DISTINCT FROM, NULL-aware, pred must be EQ),
	 * a = TmCmpPred, b = left scale, c = right scale (numeric)
	 */
	TMI_CMP,
	/* GREATEST / LEAST step: pop v, cur: NULLs skipped, ties keep cur; flags = class, a = 1 greatest */
	TMI_MINMAX,
	/* x IN sorted const list: flags = TmCmpClass, a = first const, b = count, c = TMF_IN_* bits */
	TMI_IN,
	/* arithmetic: flags = TmKind (INT2, INT4, INT8, FLOAT4, FLOAT8, NUMERIC); numeric: a, b = scales */
	TMI_ADD,
	TMI_SUB,
	TMI_MUL,
	TMI_DIV,					/* NUMERIC: a, b = operand scales, c = result scale (tm_num_div) */
	TMI_MOD,					/* INT2/4/8, NUMERIC */
	TMI_NEG,					/* unary: numeric needs no scale */
	TMI_ABS,
	/* conversions */
	TMI_INT_NARROW,				/* flags = target INT2 / INT4: range check */
	TMI_INT_TO_NUM,				/* a = scale: value * 10^a */
	TMI_NUM_RESCALE,			/* a = delta digits: > 0 exact scale-up (FALLBACK on overflow), < 0 drop
								 * digits, flags = TmReduce (round half away from zero, trunc, ceil, floor) */
	TMI_NUM_CHECK_PREC,			/* a = precision: |x| >= 10^a -> numeric field overflow (FALLBACK) */
	TMI_NUM_TO_INT,				/* flags = target INT2/4/8, a = scale: round half away from zero */
	TMI_INT_TO_FLOAT,			/* flags = target FLOAT4 / FLOAT8 */
	TMI_NUM_TO_FLOAT,			/* flags = target FLOAT4 / FLOAT8, a = scale: exact fast path, else FALLBACK */
	TMI_FLOAT_TO_INT,			/* flags = target INT2/4/8, b = source FLOAT4 / FLOAT8 */
	TMI_F8_TO_F4,
	TMI_FLOAT_FN,				/* float8 round / trunc / ceil / floor: flags = TmFloatFn */
	TMI_DATE_TO_TS,
	TMI_TS_TO_DATE,
	TMI_BPCHAR_RTRIM,			/* text(bpchar): drop trailing blanks */
	/* date / time */
	TMI_DATE_PLI,				/* pop int4, date: date + int */
	TMI_DATE_MII,				/* date - int */
	TMI_DATE_MI,				/* date - date -> int4 */
	TMI_TS_PL_INTERVAL,			/* a = months, b = days, c = const index of usecs (.i) */
	TMI_EXTRACT,				/* flags = source DATE / TIMESTAMP, a = TmField, b = 0: numeric(0), 1: float8 */
	/* text: flags & TMF_UTF8: characters are UTF8 sequences, else bytes */
	TMI_LIKE,					/* pop pattern, text; flags & TMF_NEGATE: NOT LIKE */
	TMI_SUBSTR,					/* flags & TMF_HASLEN: pop len; pop start, text */
	TMI_CHAR_LENGTH,			/* flags & TMF_BPCHAR: without trailing blanks */
	TMI_NUM_DIV_REDUCE,			/* pop y, x: numeric_div reduced to scale c by flags (TmReduce); a, b =
								 * the operands' scales (tm_num_div_reduce) */
	TMI__COUNT
} TmOpcode;

/* flag bits */
#define TMF_TEXT	0x0001			/* PUSH_CONST of a text kind */
#define TMF_NEGATE	0x0001			/* LIKE */
#define TMF_UTF8	0x0002			/* LIKE, SUBSTR, CHAR_LENGTH */
#define TMF_HASLEN	0x0004			/* SUBSTR */
#define TMF_BPCHAR	0x0008			/* CHAR_LENGTH */

#define TMF_DISTINCT	0x0100		/* CMP: IS DISTINCT FROM */
#define TMF_CLASS_MASK	0x00ff		/* CMP: the TmCmpClass part of flags */

#define TMF_IN_NEGATE	0x0001		/* x <> ALL (list) */
#define TMF_IN_HASNULL	0x0002		/* the array held a NULL element */

typedef enum TmCmpClass
{
	TM_CMP_INT = 1,				/* .i of int2/int4/int8/date/timestamp/bool (same kind or int cross) */
	TM_CMP_FLOAT,				/* .f (float4 values are exact doubles) */
	TM_CMP_NUMERIC,				/* .n with scales b / c */
	TM_CMP_TEXT,				/* bytes, C order */
	TM_CMP_BPCHAR,				/* bytes without trailing blanks, C order */
	TM_CMP_DATE_TS,				/* left date, right timestamp */
	TM_CMP_TS_DATE				/* left timestamp, right date */
} TmCmpClass;

typedef enum TmCmpPred
{
	TM_PRED_EQ = 0,
	TM_PRED_NE,
	TM_PRED_LT,
	TM_PRED_LE,
	TM_PRED_GT,
	TM_PRED_GE
} TmCmpPred;

typedef enum TmReduce
{
	TM_REDUCE_ROUND = 0,		/* round_var: half away from zero */
	TM_REDUCE_TRUNC,			/* trunc_var: toward zero */
	TM_REDUCE_CEIL,
	TM_REDUCE_FLOOR
} TmReduce;

typedef enum TmFloatFn
{
	TM_FFN_ROUND = 0,			/* dround: rint */
	TM_FFN_TRUNC,				/* dtrunc */
	TM_FFN_CEIL,
	TM_FFN_FLOOR
} TmFloatFn;

typedef enum TmField
{
	TM_FIELD_YEAR = 1,
	TM_FIELD_MONTH,
	TM_FIELD_DAY
} TmField;

/* One instruction: 16 bytes. */
typedef struct TmInstr
{
	uint16_t	op;				/* TmOpcode */
	uint16_t	flags;
	int32_t		a;
	int32_t		b;
	int32_t		c;
} TmInstr;

#define TM_EXPR_MAX_LOCALS 16

/* ------------------------------------------------------------------------------------------------
 * Constants of PostgreSQL's integer, date and timestamp types
 * ------------------------------------------------------------------------------------------------
 */
#define TM_INT16_MIN	(-32767 - 1)
#define TM_INT16_MAX	32767
#define TM_INT32_MIN	(-2147483647 - 1)
#define TM_INT32_MAX	2147483647
#define TM_INT64_MIN	(-INT64_C(9223372036854775807) - 1)
#define TM_INT64_MAX	INT64_C(9223372036854775807)

#define TM_INT128_MAX	((tm_int128) ((((tm_uint128) 1) << 127) - 1))
#define TM_INT128_MIN	(-TM_INT128_MAX - 1)

#define TM_DATEVAL_NOBEGIN	TM_INT32_MIN
#define TM_DATEVAL_NOEND	TM_INT32_MAX
#define TM_DT_NOBEGIN		TM_INT64_MIN
#define TM_DT_NOEND			TM_INT64_MAX

#define TM_POSTGRES_EPOCH_JDATE	2451545
#define TM_DATETIME_MIN_JULIAN	0
#define TM_DATE_END_JULIAN		2147483494	/* date2j(5874898, 1, 1) */
#define TM_TIMESTAMP_END_JULIAN	109203528	/* date2j(294277, 1, 1) */
#define TM_MIN_TIMESTAMP		INT64_C(-211813488000000000)
#define TM_END_TIMESTAMP		INT64_C(9223371331200000000)
#define TM_USECS_PER_DAY		INT64_C(86400000000)

#define TM_IS_VALID_DATE(d) \
	((int64_t) (TM_DATETIME_MIN_JULIAN - TM_POSTGRES_EPOCH_JDATE) <= (int64_t) (d) && \
	 (int64_t) (d) < (int64_t) (TM_DATE_END_JULIAN - TM_POSTGRES_EPOCH_JDATE))
#define TM_IS_VALID_TIMESTAMP(t)	(TM_MIN_TIMESTAMP <= (t) && (t) < TM_END_TIMESTAMP)
#define TM_DATE_NOT_FINITE(d)	((d) == TM_DATEVAL_NOBEGIN || (d) == TM_DATEVAL_NOEND)
#define TM_TS_NOT_FINITE(t)		((t) == TM_DT_NOBEGIN || (t) == TM_DT_NOEND)

#define TM_JULIAN_MINYEAR	(-4713)
#define TM_JULIAN_MINMONTH	(11)
#define TM_JULIAN_MAXYEAR	(5874898)
#define TM_JULIAN_MAXMONTH	(6)
#define TM_IS_VALID_JULIAN(y,m,d) \
	(((y) > TM_JULIAN_MINYEAR || \
	  ((y) == TM_JULIAN_MINYEAR && ((m) >= TM_JULIAN_MINMONTH))) && \
	 ((y) < TM_JULIAN_MAXYEAR || \
	  ((y) == TM_JULIAN_MAXYEAR && ((m) < TM_JULIAN_MAXMONTH))))

/* ------------------------------------------------------------------------------------------------
 * Integer arithmetic with overflow detection (two's complement wrap, like -fwrapv)
 * ------------------------------------------------------------------------------------------------
 */
TM_FN bool
tm_add_s64_overflow(int64_t a, int64_t b, int64_t *r)
{
	int64_t		res = (int64_t) ((uint64_t) a + (uint64_t) b);

	*r = res;
	return ((a ^ res) & (b ^ res)) < 0;
}

TM_FN bool
tm_sub_s64_overflow(int64_t a, int64_t b, int64_t *r)
{
	int64_t		res = (int64_t) ((uint64_t) a - (uint64_t) b);

	*r = res;
	return ((a ^ b) & (a ^ res)) < 0;
}

TM_FN bool
tm_mul_s64_overflow(int64_t a, int64_t b, int64_t *r)
{
	tm_int128	p = (tm_int128) a * (tm_int128) b;

	*r = (int64_t) p;
	return p != (tm_int128) (int64_t) p;
}

TM_FN bool
tm_add_s128_overflow(tm_int128 a, tm_int128 b, tm_int128 *r)
{
	tm_int128	res = (tm_int128) ((tm_uint128) a + (tm_uint128) b);

	*r = res;
	return ((a ^ res) & (b ^ res)) < 0;
}

TM_FN bool
tm_sub_s128_overflow(tm_int128 a, tm_int128 b, tm_int128 *r)
{
	tm_int128	res = (tm_int128) ((tm_uint128) a - (tm_uint128) b);

	*r = res;
	return ((a ^ b) & (a ^ res)) < 0;
}

TM_FN tm_uint128
tm_abs_u128(tm_int128 a)
{
	return a < 0 ? (tm_uint128) 0 - (tm_uint128) a : (tm_uint128) a;
}

TM_FN bool
tm_mul_s128_overflow(tm_int128 a, tm_int128 b, tm_int128 *r)
{
	bool		neg;
	tm_uint128	ua;
	tm_uint128	ub;
	uint64_t	ah;
	uint64_t	bh;
	tm_uint128	p;
	tm_uint128	limit;

	/* both within 64 bits (TPC-H's prices and rates): |a * b| <= 2^126, exact in 128 bits */
	if (a == (tm_int128) (int64_t) a && b == (tm_int128) (int64_t) b)
	{
		*r = (tm_int128) (int64_t) a * (tm_int128) (int64_t) b;
		return false;
	}
	neg = (a < 0) != (b < 0);
	ua = tm_abs_u128(a);
	ub = tm_abs_u128(b);
	ah = (uint64_t) (ua >> 64);
	bh = (uint64_t) (ub >> 64);
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

/* 10^k for 0 <= k <= 38 */
TM_FN uint64_t
tm_pow10_u64(int k)
{
	uint64_t	r = 1;
	uint64_t	b = 10;

	/* square-and-multiply: at most 5 steps for k <= 19 */
	while (k > 0)
	{
		if (k & 1)
			r *= b;
		b *= b;
		k >>= 1;
	}
	return r;
}

TM_FN tm_int128
tm_pow10(int k)
{
	if (k <= 19)
		return (tm_int128) tm_pow10_u64(k);
	return (tm_int128) tm_pow10_u64(19) * (tm_int128) tm_pow10_u64(k - 19);
}

/* x * 10^k, k >= 0; true on overflow */
TM_FN bool
tm_num_upscale(tm_int128 x, int k, tm_int128 *r)
{
	if (k == 0 || x == 0)
	{
		*r = x;
		return false;
	}
	if (k > 38)
		return true;
	/* |x| <= 2^63, 10^k < 2^64: |x * 10^k| < 2^127, no overflow */
	if (k <= 19 && x == (tm_int128) (int64_t) x)
	{
		*r = (tm_int128) (int64_t) x * (tm_int128) tm_pow10_u64(k);
		return false;
	}
	return tm_mul_s128_overflow(x, tm_pow10(k), r);
}

/* x / 10^k rounded half away from zero (PostgreSQL's round_var), k > 0 */
TM_FN tm_int128
tm_num_round_down(tm_int128 x, int k)
{
	tm_int128	p;
	tm_int128	q;
	tm_int128	rem;

	if (k <= 0)
		return x;
	if (k > 38)
		return 0;				/* |x| < 1.7e38 < 0.5 * 10^39 */
	p = tm_pow10(k);
	q = x / p;
	rem = x % p;
	if (rem < 0)
		rem = -rem;
	if (rem >= p / 2)
		q += (x < 0) ? -1 : 1;
	return q;
}

/* x / 10^k (k > 0) reduced to an integer by mode (TmReduce) */
TM_FN tm_int128
tm_num_reduce(tm_int128 x, int k, int mode)
{
	tm_int128	q;
	tm_int128	rem;

	if (k <= 0)
		return x;
	if (mode == TM_REDUCE_ROUND)
		return tm_num_round_down(x, k);
	if (k > 38)
	{
		q = 0;					/* |x| < 10^39 */
		rem = x;
	}
	else
	{
		tm_int128	p = tm_pow10(k);

		q = x / p;
		rem = x % p;
	}
	if (rem != 0)
	{
		if (mode == TM_REDUCE_CEIL && x > 0)
			q += 1;
		else if (mode == TM_REDUCE_FLOOR && x < 0)
			q -= 1;
	}
	return q;
}

/*
 * a / b (b > 0), and a % b into *rem: in 64 bits where both fit (on the GPU a 128-bit division is a long
 * software routine, a 64-bit one a short one)
 */
TM_FN tm_uint128
tm_udivmod(tm_uint128 a, tm_uint128 b, tm_uint128 *rem)
{
	if ((a >> 64) == 0 && (b >> 64) == 0)
	{
		uint64_t	a64 = (uint64_t) a;
		uint64_t	b64 = (uint64_t) b;

		*rem = a64 % b64;
		return a64 / b64;
	}
	*rem = a % b;
	return a / b;
}

/* a * b > lim, b > 0, without overflow: a multiplication where a fits in 64 bits, else lim / b */
TM_FN bool
tm_mul_exceeds(tm_uint128 a, uint64_t b, tm_uint128 lim)
{
	if ((a >> 64) == 0)
		return (tm_uint128) (uint64_t) a * b > lim;	/* below 2^128 */
	return a > lim / b;
}

/* decimal digits of u > 0 (1..39) */
TM_FN int
tm_u128_digits(tm_uint128 u)
{
	int			d = 1;

	if ((u >> 64) == 0)
	{
		uint64_t	v = (uint64_t) u;
		uint64_t	p = 10;

		/* 64 bits hold 20 digits at most; 10^19 is the last power of ten below 2^64 */
		while (d < 20 && v >= p)
		{
			d++;
			if (d < 20)
				p *= 10;
		}
		return d;
	}
	while (d < 39 && u >= (tm_uint128) tm_pow10(d))
		d++;
	return d;
}

/*
 * Weight and first digit of x (scale sx) as a PostgreSQL NumericVar holds them: base-10000 digits
 * aligned at the decimal point, weight = position of the leading non-zero one (0: units), first =
 * its value (1..9999).  0 gives weight 0, first 0 (select_div_scale's defaults).
 */
TM_FN void
tm_num_weight(tm_int128 x, int sx, int *weight, int *first)
{
	tm_uint128	u = tm_abs_u128(x);
	int			e,
				w,
				j;

	*weight = 0;
	*first = 0;
	if (u == 0)
		return;
	e = tm_u128_digits(u) - 1 - sx;		/* floor(log10(|value|)) */
	w = (e >= 0) ? e / 4 : -((3 - e) / 4);
	j = sx + 4 * w;						/* -3 <= j <= 38: |x| / 10^j is the leading group */
	if (j >= 0)
	{
		tm_uint128	r;

		*first = (int) tm_udivmod(u, (tm_uint128) tm_pow10(j), &r);
	}
	else
		*first = (int) (u * (tm_uint128) tm_pow10_u64(-j));
	*weight = w;
}

/*
 * Scale a numeric quotient is held at: select_div_scale keeps 16 significant digits, so quotients
 * from 10^-4 up have at most 20 digits after the point (more only when an operand has more).
 */
#define TM_NUM_DIV_SCALE 20

/*
 * numeric_div's exact result: x (scale sx) / y (scale sy) rounded half away from zero (div_var with
 * round = true) to PostgreSQL's value-dependent scale (select_div_scale: at least 16 significant digits,
 * at least either operand's dscale): *q at scale *rscale.  Such a quotient has about 20 digits, so it
 * fits unless an operand's scale or magnitude is extreme (TM_ERR_FALLBACK); y = 0 is division by zero.
 */
TM_FN TmStatus
tm_num_div_exact(tm_int128 x, int sx, tm_int128 y, int sy, tm_int128 *q_out, int *rscale_out)
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
		*q_out = 0;				/* 0 at any scale */
		*rscale_out = 0;
		return TM_OK;
	}
	tm_num_weight(x, sx, &w1, &f1);
	tm_num_weight(y, sy, &w2, &f2);
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

	/*
	 * |x| * 10^k / |y| truncated, k = rscale + sy - sx >= 0: long division in steps that fit (the bounds
	 * tested by multiplication and the divisions done in 64 bits where the values allow: tm_mul_exceeds,
	 * tm_udivmod)
	 */
	k = rscale + sy - sx;
	q = tm_udivmod(ux, uy, &rem);
	while (k > 0)
	{
		int			m = k < 19 ? k : 19;
		uint64_t	p;
		tm_uint128	t;

		while (m > 1 && tm_mul_exceeds(rem, tm_pow10_u64(m), lim))
			m--;
		p = tm_pow10_u64(m);
		if (tm_mul_exceeds(rem, p, lim) || tm_mul_exceeds(q, p, lim))
			return TM_ERR_FALLBACK;
		t = rem * p;
		q = q * p + tm_udivmod(t, uy, &rem);
		if (q > lim)
			return TM_ERR_FALLBACK;
		k -= m;
	}
	/* round half away from zero: 2 * rem >= |y| */
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

/*
 * numeric_div held at the fixed scale rs (TMI_DIV): a quotient whose own scale exceeds rs, or that does
 * not fit there, is TM_ERR_FALLBACK.
 */
TM_FN TmStatus
tm_num_div(tm_int128 x, int sx, tm_int128 y, int sy, int rs, tm_int128 *r)
{
	tm_int128	q;
	int			rscale;
	TmStatus	st = tm_num_div_exact(x, sx, y, sy, &q, &rscale);

	if (st != TM_OK)
		return st;
	if (rscale > rs || tm_num_upscale(q, rs - rscale, r))
		return TM_ERR_FALLBACK;
	return TM_OK;
}

/*
 * round / trunc / ceil / floor (mode, TmReduce) of numeric_div's result to scale s >= 0
 * (TMI_NUM_DIV_REDUCE): the quotient at its own scale, then reduced as numeric_round etc. reduce it
 * (no fixed scale in between, so small quotients need no fallback).
 */
TM_FN TmStatus
tm_num_div_reduce(tm_int128 x, int sx, tm_int128 y, int sy, int s, int mode, tm_int128 *r)
{
	tm_int128	q;
	int			rscale;
	TmStatus	st = tm_num_div_exact(x, sx, y, sy, &q, &rscale);

	if (st != TM_OK)
		return st;
	if (s >= rscale)
	{
		if (tm_num_upscale(q, s - rscale, r))
			return TM_ERR_FALLBACK;
	}
	else
		*r = tm_num_reduce(q, rscale - s, mode);
	return TM_OK;
}

/* compare a (scale sa) with b (scale sb) */
TM_FN int
tm_num_cmp(tm_int128 a, int sa, tm_int128 b, int sb)
{
	tm_int128	t;

	if (sa < sb)
	{
		if (tm_num_upscale(a, sb - sa, &t))
			return a < 0 ? -1 : 1;
		a = t;
	}
	else if (sa > sb)
	{
		if (tm_num_upscale(b, sa - sb, &t))
			return b < 0 ? 1 : -1;
		b = t;
	}
	return a < b ? -1 : (a > b ? 1 : 0);
}

/* ------------------------------------------------------------------------------------------------
 * Floats (float.c / float.h)
 * ------------------------------------------------------------------------------------------------
 */
TM_FN bool
tm_isnan(double x)
{
	return x != x;
}

TM_FN bool
tm_isinf(double x)
{
	return x > DBL_MAX || x < -DBL_MAX;
}

TM_FN bool
tm_isinf4(float x)
{
	return x > FLT_MAX || x < -FLT_MAX;
}

/* float8_cmp_internal: NaN equals NaN and sorts above everything */
TM_FN int
tm_float_cmp(double a, double b)
{
	if (tm_isnan(a))
		return tm_isnan(b) ? 0 : 1;
	if (tm_isnan(b))
		return -1;
	return a > b ? 1 : (a < b ? -1 : 0);
}

TM_FN TmStatus
tm_float8_op(int op, double a, double b, double *r)
{
	double		res;

	switch (op)
	{
		case TMI_ADD:
			res = a + b;
			if (tm_isinf(res) && !tm_isinf(a) && !tm_isinf(b))
				return TM_ERR_FLOAT_OVERFLOW;
			break;
		case TMI_SUB:
			res = a - b;
			if (tm_isinf(res) && !tm_isinf(a) && !tm_isinf(b))
				return TM_ERR_FLOAT_OVERFLOW;
			break;
		case TMI_MUL:
			res = a * b;
			if (tm_isinf(res) && !tm_isinf(a) && !tm_isinf(b))
				return TM_ERR_FLOAT_OVERFLOW;
			if (res == 0.0 && a != 0.0 && b != 0.0)
				return TM_ERR_FLOAT_UNDERFLOW;
			break;
		case TMI_DIV:
			if (b == 0.0 && !tm_isnan(a))
				return TM_ERR_DIV_BY_ZERO;
			res = a / b;
			if (tm_isinf(res) && !tm_isinf(a))
				return TM_ERR_FLOAT_OVERFLOW;
			if (res == 0.0 && a != 0.0 && !tm_isinf(b))
				return TM_ERR_FLOAT_UNDERFLOW;
			break;
		default:
			return TM_ERR_INTERNAL;
	}
	*r = res;
	return TM_OK;
}

/* float4 operators compute in single precision (operands are exact floats held in doubles) */
TM_FN TmStatus
tm_float4_op(int op, double da, double db, double *r)
{
	float		a = (float) da;
	float		b = (float) db;
	float		res;

	switch (op)
	{
		case TMI_ADD:
			res = a + b;
			if (tm_isinf4(res) && !tm_isinf4(a) && !tm_isinf4(b))
				return TM_ERR_FLOAT_OVERFLOW;
			break;
		case TMI_SUB:
			res = a - b;
			if (tm_isinf4(res) && !tm_isinf4(a) && !tm_isinf4(b))
				return TM_ERR_FLOAT_OVERFLOW;
			break;
		case TMI_MUL:
			res = a * b;
			if (tm_isinf4(res) && !tm_isinf4(a) && !tm_isinf4(b))
				return TM_ERR_FLOAT_OVERFLOW;
			if (res == 0.0f && a != 0.0f && b != 0.0f)
				return TM_ERR_FLOAT_UNDERFLOW;
			break;
		case TMI_DIV:
			if (b == 0.0f && !tm_isnan(da))
				return TM_ERR_DIV_BY_ZERO;
			res = a / b;
			if (tm_isinf4(res) && !tm_isinf4(a))
				return TM_ERR_FLOAT_OVERFLOW;
			if (res == 0.0f && a != 0.0f && !tm_isinf4(b))
				return TM_ERR_FLOAT_UNDERFLOW;
			break;
		default:
			return TM_ERR_INTERNAL;
	}
	*r = (double) res;
	return TM_OK;
}

/* ------------------------------------------------------------------------------------------------
 * Integer operators of int.c / int8.c (operands already widened to the operator's type)
 * ------------------------------------------------------------------------------------------------
 */
TM_FN TmStatus
tm_int_range_status(int kind)
{
	return kind == TM_K_INT2 ? TM_ERR_INT2_OUT_OF_RANGE :
		kind == TM_K_INT4 ? TM_ERR_INT4_OUT_OF_RANGE : TM_ERR_INT8_OUT_OF_RANGE;
}

TM_FN bool
tm_int_fits(int kind, int64_t v)
{
	if (kind == TM_K_INT2)
		return v >= TM_INT16_MIN && v <= TM_INT16_MAX;
	if (kind == TM_K_INT4)
		return v >= TM_INT32_MIN && v <= TM_INT32_MAX;
	return true;
}

TM_FN int64_t
tm_int_min(int kind)
{
	return kind == TM_K_INT2 ? TM_INT16_MIN : kind == TM_K_INT4 ? TM_INT32_MIN : TM_INT64_MIN;
}

TM_FN TmStatus
tm_int_op(int op, int kind, int64_t a, int64_t b, int64_t *r)
{
	int64_t		res;
	bool		ovf = false;

	switch (op)
	{
		case TMI_ADD:
			ovf = tm_add_s64_overflow(a, b, &res);
			break;
		case TMI_SUB:
			ovf = tm_sub_s64_overflow(a, b, &res);
			break;
		case TMI_MUL:
			ovf = tm_mul_s64_overflow(a, b, &res);
			break;
		case TMI_DIV:
			if (b == 0)
				return TM_ERR_DIV_BY_ZERO;
			if (b == -1)
			{
				/* INT_MIN / -1 overflows; the C division would trap */
				if (a == tm_int_min(kind))
					return tm_int_range_status(kind);
				res = -a;
			}
			else
				res = a / b;
			break;
		case TMI_MOD:
			if (b == 0)
				return TM_ERR_DIV_BY_ZERO;
			/* INT_MIN % -1 would trap; the result is 0 */
			res = (b == -1) ? 0 : a % b;
			break;
		default:
			return TM_ERR_INTERNAL;
	}
	if (ovf || !tm_int_fits(kind, res))
		return tm_int_range_status(kind);
	*r = res;
	return TM_OK;
}

/* ------------------------------------------------------------------------------------------------
 * Dates and timestamps (date.c, timestamp.c, datetime.c)
 * ------------------------------------------------------------------------------------------------
 */
TM_FN int
tm_date2j(int y, int m, int d)
{
	int			julian;
	int			century;

	if (m > 2)
	{
		m += 1;
		y += 4800;
	}
	else
	{
		m += 13;
		y += 4799;
	}

	century = y / 100;
	julian = y * 365 - 32167;
	julian += y / 4 - century + century / 4;
	julian += 7834 * m / 256 + d;

	return julian;
}

TM_FN void
tm_j2date(int jd, int *year, int *month, int *day)
{
	unsigned int julian;
	unsigned int quad;
	unsigned int extra;
	int			y;

	julian = (unsigned int) jd;
	julian += 32044;
	quad = julian / 146097;
	extra = (julian - quad * 146097) * 4 + 3;
	julian += 60 + quad * 3 + extra / 146097;
	quad = julian / 1461;
	julian -= quad * 1461;
	y = (int) (julian * 4 / 1461);
	julian = ((y != 0) ? ((julian + 305) % 365) : ((julian + 306) % 366))
		+ 123;
	y += (int) (quad * 4);
	*year = y - 4800;
	quad = julian * 2141 / 65536;
	*day = (int) (julian - 7834 * quad / 256);
	*month = (int) ((quad + 10) % 12 + 1);
}

TM_FN bool
tm_isleap(int y)
{
	return ((y % 4) == 0 && ((y % 100) != 0 || (y % 400) == 0));
}

TM_FN int
tm_days_in_month(int y, int m)
{
	switch (m)
	{
		case 2:
			return tm_isleap(y) ? 29 : 28;
		case 4:
		case 6:
		case 9:
		case 11:
			return 30;
		default:
			return 31;
	}
}

/*
 * timestamp2tm without time zone: date part as y/m/d, time of day in usecs.  -1 when out of range.
 */
TM_FN int
tm_timestamp2tm(int64_t dt, int *y, int *m, int *d, int64_t *tod)
{
	int64_t		time = dt;
	int64_t		date;

	date = time / TM_USECS_PER_DAY;
	if (date != 0)
		time -= date * TM_USECS_PER_DAY;
	if (time < 0)
	{
		time += TM_USECS_PER_DAY;
		date -= 1;
	}
	date += TM_POSTGRES_EPOCH_JDATE;
	if (date < 0 || date > (int64_t) TM_INT32_MAX)
		return -1;
	tm_j2date((int) date, y, m, d);
	*tod = time;
	return 0;
}

/* tm2timestamp without time zone (time of day given in usecs); -1 when out of range */
TM_FN int
tm_tm2timestamp(int y, int m, int d, int64_t time, int64_t *result)
{
	int64_t		date;
	int64_t		res;

	if (!TM_IS_VALID_JULIAN(y, m, d))
		return -1;
	date = (int64_t) tm_date2j(y, m, d) - TM_POSTGRES_EPOCH_JDATE;
	res = (int64_t) ((uint64_t) date * (uint64_t) TM_USECS_PER_DAY + (uint64_t) time);
	/* check for major overflow */
	if ((int64_t) ((uint64_t) res - (uint64_t) time) / TM_USECS_PER_DAY != date)
		return -1;
	/* check for just-barely overflow (okay except time-of-day wraps) */
	if ((res < 0 && date > 0) || (res > 0 && date < -1))
		return -1;
	if (!TM_IS_VALID_TIMESTAMP(res))
		return -1;
	*result = res;
	return 0;
}

/* date2timestamp_opt_overflow: 0 ok, 1 beyond the timestamp range (dates have no lower overflow) */
TM_FN int
tm_date2timestamp(int64_t date, int64_t *ts)
{
	if (date == TM_DATEVAL_NOBEGIN)
		*ts = TM_DT_NOBEGIN;
	else if (date == TM_DATEVAL_NOEND)
		*ts = TM_DT_NOEND;
	else
	{
		if (date >= (TM_TIMESTAMP_END_JULIAN - TM_POSTGRES_EPOCH_JDATE))
		{
			*ts = TM_DT_NOEND;
			return 1;
		}
		*ts = date * TM_USECS_PER_DAY;
	}
	return 0;
}

/* date_cmp_timestamp_internal */
TM_FN int
tm_date_cmp_timestamp(int64_t date, int64_t ts)
{
	int64_t		dt1;

	if (tm_date2timestamp(date, &dt1) > 0)
		return ts == TM_DT_NOEND ? -1 : 1;
	return dt1 < ts ? -1 : (dt1 > ts ? 1 : 0);
}

/* timestamp_pl_interval with a constant interval (months, days, usecs) */
TM_FN TmStatus
tm_timestamp_pl_interval(int64_t ts, int32_t months, int32_t days, int64_t usecs, int64_t *result)
{
	if (TM_TS_NOT_FINITE(ts))
	{
		*result = ts;
		return TM_OK;
	}
	if (months != 0)
	{
		int			y, m, d;
		int64_t		tod;

		if (tm_timestamp2tm(ts, &y, &m, &d, &tod) != 0)
			return TM_ERR_TIMESTAMP_OUT_OF_RANGE;
		m = (int) (int32_t) ((uint32_t) m + (uint32_t) months);
		if (m > 12)
		{
			y += (m - 1) / 12;
			m = ((m - 1) % 12) + 1;
		}
		else if (m < 1)
		{
			y += m / 12 - 1;
			m = m % 12 + 12;
		}
		/* adjust for end of month boundary problems... */
		if (d > tm_days_in_month(y, m))
			d = tm_days_in_month(y, m);
		if (tm_tm2timestamp(y, m, d, tod, &ts) != 0)
			return TM_ERR_TIMESTAMP_OUT_OF_RANGE;
	}
	if (days != 0)
	{
		int			y, m, d;
		int64_t		tod;
		int			julian;

		if (tm_timestamp2tm(ts, &y, &m, &d, &tod) != 0)
			return TM_ERR_TIMESTAMP_OUT_OF_RANGE;
		julian = (int) (int32_t) ((uint32_t) tm_date2j(y, m, d) + (uint32_t) days);
		tm_j2date(julian, &y, &m, &d);
		if (tm_tm2timestamp(y, m, d, tod, &ts) != 0)
			return TM_ERR_TIMESTAMP_OUT_OF_RANGE;
	}
	ts = (int64_t) ((uint64_t) ts + (uint64_t) usecs);
	if (!TM_IS_VALID_TIMESTAMP(ts))
		return TM_ERR_TIMESTAMP_OUT_OF_RANGE;
	*result = ts;
	return TM_OK;
}

/* ------------------------------------------------------------------------------------------------
 * Text (varlena.c, varchar.c, like_match.c)
 * ------------------------------------------------------------------------------------------------
 */

/* bcTruelen: length without trailing blanks */
TM_FN int32_t
tm_bpchar_truelen(const char *p, int32_t len)
{
	while (len > 0 && p[len - 1] == ' ')
		len--;
	return len;
}

/* varstr_cmp in the C locale */
TM_FN int
tm_bytes_cmp(const char *a, int32_t alen, const char *b, int32_t blen)
{
	int32_t		n = alen < blen ? alen : blen;
	int32_t		i;

	for (i = 0; i < n; i++)
	{
		unsigned char ca = (unsigned char) a[i];
		unsigned char cb = (unsigned char) b[i];

		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return 0;
}

TM_FN bool
tm_bytes_eq(const char *a, int32_t alen, const char *b, int32_t blen)
{
	int32_t		i;

	if (alen != blen)
		return false;
	for (i = 0; i < alen; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* pg_utf_mblen */
TM_FN int
tm_utf8_mblen(const char *s)
{
	unsigned char c = (unsigned char) *s;

	if ((c & 0x80) == 0)
		return 1;
	else if ((c & 0xe0) == 0xc0)
		return 2;
	else if ((c & 0xf0) == 0xe0)
		return 3;
	else if ((c & 0xf8) == 0xf0)
		return 4;
	return 1;
}

/* pg_mbstrlen_with_len */
TM_FN int32_t
tm_char_count(const char *p, int32_t len, bool utf8)
{
	int32_t		n = 0;

	if (!utf8)
		return len;
	while (len > 0)
	{
		int			l = tm_utf8_mblen(p);

		len -= l;
		p += l;
		n++;
	}
	return n;
}

/*
 * text_substring: characters [start, start + length) (1-based), PostgreSQL's rules for start < 1,
 * overflowing ends and negative lengths.  The result points into the input.
 */
TM_FN TmStatus
tm_substring(const char *p, int32_t len, int32_t start, int32_t length, bool haslen, bool utf8,
			 const char **rp, int32_t *rlen)
{
	int64_t		S = start;
	int64_t		S1 = S < 1 ? 1 : S;
	int64_t		E = 0;
	bool		toend;
	int32_t		nchars;
	int64_t		E1;
	int64_t		i;
	const char *s;
	const char *end = p + len;

	*rp = p;
	*rlen = 0;
	if (!haslen)
		toend = true;
	else if (length < 0)
		return TM_ERR_SUBSTRING_NEGATIVE;
	else
	{
		E = S + (int64_t) length;
		toend = (E > TM_INT32_MAX);		/* pg_add_s32_overflow: run to end of string */
		if (!toend && E < 1)
			return TM_OK;
	}
	if (len == 0)
		return TM_OK;
	nchars = tm_char_count(p, len, utf8);
	if (S1 > nchars)
		return TM_OK;
	if (!toend)
		E1 = (E < 1 + (int64_t) nchars) ? E : 1 + (int64_t) nchars;
	else
		E1 = 1 + (int64_t) nchars;
	if (!utf8)
	{
		*rp = p + (S1 - 1);
		*rlen = (int32_t) (E1 - S1);
		return TM_OK;
	}
	for (i = 0; i < S1 - 1 && p < end; i++)
		p += tm_utf8_mblen(p);
	s = p;
	for (i = S1; i < E1 && p < end; i++)
		p += tm_utf8_mblen(p);
	if (p > end)
		p = end;
	*rp = s;
	*rlen = (int32_t) (p - s);
	return TM_OK;
}

#define TM_LIKE_TRUE	1
#define TM_LIKE_FALSE	0
#define TM_LIKE_ABORT	(-1)
#define TM_LIKE_ERROR	(-2)	/* pattern ends with the escape character */

#define TM_LIKE_NEXTCHAR(t, tlen, utf8) \
	do { \
		if (utf8) \
		{ \
			do { (t)++; (tlen)--; } while ((tlen) > 0 && (((unsigned char) *(t)) & 0xC0) == 0x80); \
		} \
		else \
		{ \
			(t)++; (tlen)--; \
		} \
	} while (0)

/*
 * MatchText of like_match.c (case sensitive, escape '\'), without recursion.  PostgreSQL recurses at
 * each '%'; a recursive call started at a '%' never returns LIKE_FALSE (it returns TRUE, ABORT or
 * raises), so only the innermost '%' scan can ever resume: one saved frame is an exact emulation,
 * including when the "ends with escape" error is raised.
 */
TM_FN int
tm_like_match(const char *t, int32_t tlen, const char *p, int32_t plen, bool utf8)
{
	bool		have = false;
	const char *ft = NULL;
	int32_t		ftlen = 0;
	const char *fp = NULL;
	int32_t		fplen = 0;
	char		ffirst = 0;

	for (;;)
	{
		bool		failed = false;

		/* one activation of MatchText on (t, p) */
		while (tlen > 0 && plen > 0)
		{
			if (*p == '\\')
			{
				p++;
				plen--;
				if (plen <= 0)
					return TM_LIKE_ERROR;
				if (*p != *t)
				{
					failed = true;
					break;
				}
			}
			else if (*p == '%')
			{
				char		firstpat;
				bool		found = false;

				p++;
				plen--;
				while (plen > 0)
				{
					if (*p == '%')
					{
						p++;
						plen--;
					}
					else if (*p == '_')
					{
						if (tlen <= 0)
							return TM_LIKE_ABORT;
						TM_LIKE_NEXTCHAR(t, tlen, utf8);
						p++;
						plen--;
					}
					else
						break;
				}
				if (plen <= 0)
					return TM_LIKE_TRUE;
				if (*p == '\\')
				{
					if (plen < 2)
						return TM_LIKE_ERROR;
					firstpat = p[1];
				}
				else
					firstpat = *p;
				while (tlen > 0)
				{
					if (*t == firstpat)
					{
						found = true;
						break;
					}
					TM_LIKE_NEXTCHAR(t, tlen, utf8);
				}
				if (!found)
					return TM_LIKE_ABORT;
				/* "recurse": remember this scan position, then match from here */
				have = true;
				ft = t;
				ftlen = tlen;
				fp = p;
				fplen = plen;
				ffirst = firstpat;
				continue;
			}
			else if (*p == '_')
			{
				TM_LIKE_NEXTCHAR(t, tlen, utf8);
				p++;
				plen--;
				continue;
			}
			else if (*p != *t)
			{
				failed = true;
				break;
			}
			t++;
			tlen--;
			p++;
			plen--;
		}
		if (!failed)
		{
			if (tlen > 0)
				failed = true;	/* end of pattern, but not of text */
			else
			{
				while (plen > 0 && *p == '%')
				{
					p++;
					plen--;
				}
				if (plen <= 0)
					return TM_LIKE_TRUE;
				return TM_LIKE_ABORT;
			}
		}
		/* this activation returned LIKE_FALSE: resume the innermost '%' scan */
		if (!have)
			return TM_LIKE_FALSE;
		t = ft;
		tlen = ftlen;
		p = fp;
		plen = fplen;
		TM_LIKE_NEXTCHAR(t, tlen, utf8);
		{
			bool		found = false;

			while (tlen > 0)
			{
				if (*t == ffirst)
				{
					found = true;
					break;
				}
				TM_LIKE_NEXTCHAR(t, tlen, utf8);
			}
			if (!found)
				return TM_LIKE_ABORT;
		}
		ft = t;
		ftlen = tlen;
	}
}

/* ------------------------------------------------------------------------------------------------
 * Comparison of two non-NULL values of a comparison class
 * ------------------------------------------------------------------------------------------------
 */
TM_FN int
tm_cmp_class(int cls, const TmValue *a, const TmValue *b, int sa, int sb)
{
	switch (cls)
	{
		case TM_CMP_INT:
			return a->i < b->i ? -1 : (a->i > b->i ? 1 : 0);
		case TM_CMP_FLOAT:
			return tm_float_cmp(a->f, b->f);
		case TM_CMP_NUMERIC:
			return tm_num_cmp(a->n, sa, b->n, sb);
		case TM_CMP_TEXT:
			return tm_bytes_cmp(a->s.p, a->s.len, b->s.p, b->s.len);
		case TM_CMP_BPCHAR:
			return tm_bytes_cmp(a->s.p, tm_bpchar_truelen(a->s.p, a->s.len),
								b->s.p, tm_bpchar_truelen(b->s.p, b->s.len));
		case TM_CMP_DATE_TS:
			return tm_date_cmp_timestamp(a->i, b->i);
		case TM_CMP_TS_DATE:
			return -tm_date_cmp_timestamp(b->i, a->i);
		default:
			return 0;
	}
}

TM_FN bool
tm_pred_holds(int pred, int c)
{
	switch (pred)
	{
		case TM_PRED_EQ:
			return c == 0;
		case TM_PRED_NE:
			return c != 0;
		case TM_PRED_LT:
			return c < 0;
		case TM_PRED_LE:
			return c <= 0;
		case TM_PRED_GT:
			return c > 0;
		default:
			return c >= 0;
	}
}

/* ------------------------------------------------------------------------------------------------
 * Block access
 * ------------------------------------------------------------------------------------------------
 */
TM_FN const TmInstr *
tm_expr_code(const TmExpr *e)
{
	return (const TmInstr *) ((const char *) e + e->instr_off);
}

/* constant i, with text pool offsets resolved to pointers */
TM_FN TmValue
tm_expr_const(const TmExpr *e, int i, bool text)
{
	TmValue		v;

	TM_LOADV(v, (const TmValue *) ((const char *) e + e->const_off) + i);
	if (text)
		v.s.p = (const char *) e + e->pool_off + (intptr_t) v.s.p;
	return v;
}

/* TMI_IN's search: is x one of the n sorted constants first .. first + n - 1 of e (comparison class cls)? */
TM_FN bool
tm_in_list_find(const TmExpr *e, int cls, int first, int n, const TmValue *x)
{
	bool		text = (cls == TM_CMP_TEXT || cls == TM_CMP_BPCHAR);
	int			lo = 0;
	int			hi = n - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		TmValue		cv = tm_expr_const(e, first + mid, text);
		int			c = tm_cmp_class(cls, x, &cv, 0, 0);

		if (c == 0)
			return true;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return false;
}

/*
 * x op y for TMI_ADD / SUB / MUL of integers (kind TM_K_INT2 / 4 / 8) and numerics (a and b: the operands'
 * scales), into *r, which starts as x (the bytes an integer result does not set stay x's): tm_arith_op's
 * part that the fast form (TmFastArith) runs, kept apart so that its code stays small
 */
TM_FN TmStatus
tm_arith_addsubmul(int op, int kind, int a, int b, TmValue x, TmValue y, TmValue *r)
{
	tm_int128	xn;
	tm_int128	yn;
	bool		ovf = false;

	*r = x;
	if (kind != TM_K_NUMERIC)
		return tm_int_op(op, kind, x.i, y.i, &r->i);
	xn = x.n;
	yn = y.n;
	if (op == TMI_MUL)
		ovf = tm_mul_s128_overflow(xn, yn, &r->n);
	else
	{
		/* bring both to the larger scale */
		if (a < b)
			ovf = tm_num_upscale(xn, b - a, &xn);
		else if (a > b)
			ovf = tm_num_upscale(yn, a - b, &yn);
		if (!ovf)
			ovf = op == TMI_ADD ? tm_add_s128_overflow(xn, yn, &r->n) : tm_sub_s128_overflow(xn, yn, &r->n);
	}
	return ovf ? TM_ERR_FALLBACK : TM_OK;
}

/*
 * x op y for TMI_ADD / SUB / MUL / DIV / MOD of kind `kind` (the instruction's flags; numeric: a and b
 * the operands' scales, c the quotient's), into *r, which starts as x.  The interpreter's arithmetic.
 */
TM_FN TmStatus
tm_arith_op(int op, int kind, int a, int b, int c, TmValue x, TmValue y, TmValue *r)
{
	*r = x;
	switch (kind)
	{
		case TM_K_INT2:
		case TM_K_INT4:
		case TM_K_INT8:
			return tm_int_op(op, kind, x.i, y.i, &r->i);
		case TM_K_FLOAT8:
			return tm_float8_op(op, x.f, y.f, &r->f);
		case TM_K_FLOAT4:
			return tm_float4_op(op, x.f, y.f, &r->f);
		case TM_K_NUMERIC:
			if (op == TMI_ADD || op == TMI_SUB || op == TMI_MUL)
				return tm_arith_addsubmul(op, kind, a, b, x, y, r);
			if (op == TMI_DIV)
				return tm_num_div(x.n, a, y.n, b, c, &r->n);
			if (op == TMI_MOD)
			{
				tm_int128	xn = x.n;
				tm_int128	yn = y.n;

				/* bring both to the larger scale */
				if ((a < b && tm_num_upscale(xn, b - a, &xn)) || (a > b && tm_num_upscale(yn, a - b, &yn)))
					return TM_ERR_FALLBACK;
				if (yn == 0)
					return TM_ERR_DIV_BY_ZERO;
				r->n = xn % yn;
				return TM_OK;
			}
			return TM_ERR_INTERNAL;
		default:
			return TM_ERR_INTERNAL;
	}
}

/* ------------------------------------------------------------------------------------------------
 * The interpreter
 * ------------------------------------------------------------------------------------------------
 */
TM_FN TmStatus
tm_eval_mode(const TmExpr *e, const TmValue *slots, const bool *slotnulls,
			 TmValue *result, bool *isnull, bool qualmode)
{
	const TmInstr *code = tm_expr_code(e);
	int			n = e->ninstr;
	int			pc = 0;
	int			sp = 0;			/* number of entries */
	TmValue		st[TM_EXPR_MAX_STACK];
	bool		nl[TM_EXPR_MAX_STACK];
	TmValue		loc[TM_EXPR_MAX_LOCALS];
	bool		locnl[TM_EXPR_MAX_LOCALS];
	TmStatus	rc;

#define TOP (sp - 1)
#define PUSHCHECK() do { if (sp >= TM_EXPR_MAX_STACK) return TM_ERR_INTERNAL; } while (0)

	while (pc < n)
	{
		const TmInstr *in = &code[pc++];

		switch (in->op)
		{
			case TMI_NOP:
				break;
			case TMI_PUSH_SLOT:
				PUSHCHECK();
				TM_LOADV(st[sp], &slots[in->a]);
				nl[sp] = slotnulls ? slotnulls[in->a] : false;
				sp++;
				break;
			case TMI_PUSH_CONST:
				PUSHCHECK();
				st[sp] = tm_expr_const(e, in->a, (in->flags & TMF_TEXT) != 0);
				nl[sp] = false;
				sp++;
				break;
			case TMI_PUSH_NULL:
				PUSHCHECK();
				st[sp].n = 0;
				nl[sp] = true;
				sp++;
				break;
			case TMI_POP:
				sp--;
				break;
			case TMI_STORE_LOCAL:
				sp--;
				loc[in->a] = st[sp];
				locnl[in->a] = nl[sp];
				break;
			case TMI_LOAD_LOCAL:
				PUSHCHECK();
				st[sp] = loc[in->a];
				nl[sp] = locnl[in->a];
				sp++;
				break;

			case TMI_JUMP:
				pc = in->a;
				break;
			case TMI_JUMP_IF_FALSE:
				if (!nl[TOP] && st[TOP].i == 0)
					pc = in->a;
				break;
			case TMI_JUMP_IF_TRUE:
				if (!nl[TOP] && st[TOP].i != 0)
					pc = in->a;
				break;
			case TMI_QJUMP_IF_FALSE:
				if (nl[TOP] ? qualmode : st[TOP].i == 0)
					pc = in->a;
				break;
			case TMI_JUMP_IF_NOT_TRUE_POP:
				sp--;
				if (nl[sp] || st[sp].i == 0)
					pc = in->a;
				break;
			case TMI_JUMP_IF_NOT_NULL:
				if (!nl[TOP])
					pc = in->a;
				break;

			case TMI_AND:
				/* a is true or NULL here (else the chain jumped), but be general */
				sp--;
				if ((!nl[sp] && st[sp].i == 0) || (!nl[TOP] && st[TOP].i == 0))
				{
					st[TOP].i = 0;
					nl[TOP] = false;
				}
				else if (nl[sp] || nl[TOP])
				{
					st[TOP].i = 0;
					nl[TOP] = true;
				}
				else
					st[TOP].i = 1;
				break;
			case TMI_OR:
				sp--;
				if ((!nl[sp] && st[sp].i != 0) || (!nl[TOP] && st[TOP].i != 0))
				{
					st[TOP].i = 1;
					nl[TOP] = false;
				}
				else if (nl[sp] || nl[TOP])
				{
					st[TOP].i = 0;
					nl[TOP] = true;
				}
				else
					st[TOP].i = 0;
				break;
			case TMI_NOT:
				if (!nl[TOP])
					st[TOP].i = !st[TOP].i;
				break;
			case TMI_IS_NULL:
				st[TOP].i = nl[TOP];
				nl[TOP] = false;
				break;
			case TMI_IS_NOT_NULL:
				st[TOP].i = !nl[TOP];
				nl[TOP] = false;
				break;
			case TMI_IS_TRUE:
				st[TOP].i = !nl[TOP] && st[TOP].i != 0;
				nl[TOP] = false;
				break;
			case TMI_IS_NOT_TRUE:
				st[TOP].i = nl[TOP] || st[TOP].i == 0;
				nl[TOP] = false;
				break;
			case TMI_IS_FALSE:
				st[TOP].i = !nl[TOP] && st[TOP].i == 0;
				nl[TOP] = false;
				break;
			case TMI_IS_NOT_FALSE:
				st[TOP].i = nl[TOP] || st[TOP].i != 0;
				nl[TOP] = false;
				break;

			case TMI_CMP:
				sp--;
				if (in->flags & TMF_DISTINCT)
				{
					/* IS DISTINCT FROM: never NULL */
					if (nl[sp] || nl[TOP])
					{
						st[TOP].i = (nl[sp] != nl[TOP]);
						nl[TOP] = false;
						break;
					}
					st[TOP].i = tm_cmp_class(in->flags & TMF_CLASS_MASK, &st[TOP], &st[sp], in->b, in->c) != 0;
					break;
				}
				if (nl[sp] || nl[TOP])
				{
					nl[TOP] = true;
					break;
				}
				{
					int			c = tm_cmp_class(in->flags, &st[TOP], &st[sp], in->b, in->c);

					st[TOP].i = tm_pred_holds(in->a, c);
				}
				break;
			case TMI_MINMAX:
				sp--;
				if (nl[sp])
					break;		/* keep cur (maybe NULL) */
				if (nl[TOP])
				{
					st[TOP] = st[sp];
					nl[TOP] = false;
					break;
				}
				{
					int			c = tm_cmp_class(in->flags, &st[TOP], &st[sp], in->b, in->c);

					if (in->a ? c < 0 : c > 0)
						st[TOP] = st[sp];
				}
				break;

			case TMI_IN:
				if (nl[TOP])
					break;		/* strict: NULL */
				{
					bool		found = tm_in_list_find(e, in->flags, in->a, in->b, &st[TOP]);

					if (found)
						st[TOP].i = (in->c & TMF_IN_NEGATE) ? 0 : 1;
					else if (in->c & TMF_IN_HASNULL)
						nl[TOP] = true;
					else
						st[TOP].i = (in->c & TMF_IN_NEGATE) ? 1 : 0;
				}
				break;

			case TMI_ADD:
			case TMI_SUB:
			case TMI_MUL:
			case TMI_DIV:
			case TMI_MOD:
				sp--;
				if (nl[sp] || nl[TOP])
				{
					nl[TOP] = true;
					break;
				}
				rc = tm_arith_op(in->op, in->flags, in->a, in->b, in->c, st[TOP], st[sp], &st[TOP]);
				if (rc != TM_OK)
					return rc;
				break;

			case TMI_NEG:
			case TMI_ABS:
				if (nl[TOP])
					break;
				switch (in->flags)
				{
					case TM_K_INT2:
					case TM_K_INT4:
					case TM_K_INT8:
						if (in->op == TMI_NEG || st[TOP].i < 0)
						{
							if (st[TOP].i == tm_int_min(in->flags))
								return tm_int_range_status(in->flags);
							st[TOP].i = -st[TOP].i;
						}
						break;
					case TM_K_FLOAT4:
					case TM_K_FLOAT8:
						st[TOP].f = (in->op == TMI_NEG) ? -st[TOP].f : fabs(st[TOP].f);
						break;
					case TM_K_NUMERIC:
						if (in->op == TMI_NEG || st[TOP].n < 0)
						{
							if (st[TOP].n == TM_INT128_MIN)
								return TM_ERR_FALLBACK;
							st[TOP].n = -st[TOP].n;
						}
						break;
					default:
						return TM_ERR_INTERNAL;
				}
				break;

			case TMI_INT_NARROW:
				if (!nl[TOP] && !tm_int_fits(in->flags, st[TOP].i))
					return tm_int_range_status(in->flags);
				break;
			case TMI_INT_TO_NUM:
				if (!nl[TOP])
				{
					tm_int128	v = (tm_int128) st[TOP].i;

					if (tm_num_upscale(v, in->a, &st[TOP].n))
						return TM_ERR_FALLBACK;
				}
				break;
			case TMI_NUM_RESCALE:
				if (!nl[TOP])
				{
					if (in->a > 0)
					{
						if (tm_num_upscale(st[TOP].n, in->a, &st[TOP].n))
							return TM_ERR_FALLBACK;
					}
					else if (in->a < 0)
						st[TOP].n = tm_num_reduce(st[TOP].n, -in->a, in->flags);
				}
				break;
			case TMI_NUM_DIV_REDUCE:
				sp--;
				if (nl[sp] || nl[TOP])
				{
					nl[TOP] = true;
					break;
				}
				rc = tm_num_div_reduce(st[TOP].n, in->a, st[sp].n, in->b, in->c, in->flags, &st[TOP].n);
				if (rc != TM_OK)
					return rc;
				break;
			case TMI_NUM_CHECK_PREC:
				if (!nl[TOP] && in->a <= 38 && tm_abs_u128(st[TOP].n) >= (tm_uint128) tm_pow10(in->a))
					return TM_ERR_FALLBACK;		/* "numeric field overflow" */
				break;
			case TMI_NUM_TO_INT:
				if (!nl[TOP])
				{
					tm_int128	v = tm_num_round_down(st[TOP].n, in->a);

					if (v < (tm_int128) tm_int_min(in->flags) ||
						v > -((tm_int128) tm_int_min(in->flags)) - 1)
						return tm_int_range_status(in->flags);
					st[TOP].i = (int64_t) v;
				}
				break;
			case TMI_INT_TO_FLOAT:
				if (!nl[TOP])
				{
					if (in->flags == TM_K_FLOAT4)
						st[TOP].f = (double) (float) st[TOP].i;
					else
						st[TOP].f = (double) st[TOP].i;
				}
				break;
			case TMI_NUM_TO_FLOAT:
				if (!nl[TOP])
				{
					/*
					 * numeric_float8 / numeric_float4 go through numeric_out and strtod / strtof: the
					 * correctly rounded value.  One IEEE division of two exactly representable values
					 * is correctly rounded too (Clinger's fast path); other values fall back.
					 */
					tm_int128	x = st[TOP].n;
					tm_uint128	ux = tm_abs_u128(x);

					if (in->flags == TM_K_FLOAT4)
					{
						if (ux > ((tm_uint128) 1 << 24) || in->a > 10)
							return TM_ERR_FALLBACK;
						st[TOP].f = (double) ((float) (int64_t) x / (float) tm_pow10_u64(in->a));
					}
					else
					{
						if (ux > ((tm_uint128) 1 << 53) || in->a > 22)
							return TM_ERR_FALLBACK;
						st[TOP].f = (double) (int64_t) x / (double) (in->a <= 19 ? tm_pow10_u64(in->a) :
																	(double) tm_pow10_u64(19) * (double) tm_pow10_u64(in->a - 19));
					}
				}
				break;
			case TMI_FLOAT_TO_INT:
				if (!nl[TOP])
				{
					double		num = rint(st[TOP].f);
					double		lim = -(double) tm_int_min(in->flags);

					/* FLOATx_FITS_IN_INTy: the bounds are powers of two, exact in float too */
					if (tm_isnan(num) || !(num >= -lim && num < lim))
						return tm_int_range_status(in->flags);
					st[TOP].i = (int64_t) num;
				}
				break;
			case TMI_F8_TO_F4:
				if (!nl[TOP])
				{
					double		num = st[TOP].f;
					float		r = (float) num;

					if (tm_isinf4(r) && !tm_isinf(num))
						return TM_ERR_FLOAT_OVERFLOW;
					if (r == 0.0f && num != 0.0)
						return TM_ERR_FLOAT_UNDERFLOW;
					st[TOP].f = (double) r;
				}
				break;
			case TMI_FLOAT_FN:
				if (!nl[TOP])
				{
					double		x = st[TOP].f;
					double		r;

					switch (in->flags)
					{
						case TM_FFN_ROUND:
							r = rint(x);
							break;
						case TM_FFN_TRUNC:
							r = (x >= 0) ? floor(x) : -floor(-x);
							break;
						case TM_FFN_CEIL:
							r = ceil(x);
							break;
						case TM_FFN_FLOOR:
							r = floor(x);
							break;
						default:
							return TM_ERR_INTERNAL;
					}
					st[TOP].f = r;
				}
				break;
			case TMI_DATE_TO_TS:
				if (!nl[TOP])
				{
					if (tm_date2timestamp(st[TOP].i, &st[TOP].i) != 0)
						return TM_ERR_FALLBACK;		/* "date out of range for timestamp" */
				}
				break;
			case TMI_TS_TO_DATE:
				if (!nl[TOP])
				{
					int64_t		ts = st[TOP].i;

					if (ts == TM_DT_NOBEGIN)
						st[TOP].i = TM_DATEVAL_NOBEGIN;
					else if (ts == TM_DT_NOEND)
						st[TOP].i = TM_DATEVAL_NOEND;
					else
					{
						int			y, m, d;
						int64_t		tod;

						if (tm_timestamp2tm(ts, &y, &m, &d, &tod) != 0)
							return TM_ERR_TIMESTAMP_OUT_OF_RANGE;
						st[TOP].i = tm_date2j(y, m, d) - TM_POSTGRES_EPOCH_JDATE;
					}
				}
				break;
			case TMI_BPCHAR_RTRIM:
				if (!nl[TOP])
					st[TOP].s.len = tm_bpchar_truelen(st[TOP].s.p, st[TOP].s.len);
				break;

			case TMI_DATE_PLI:
			case TMI_DATE_MII:
				sp--;
				if (nl[sp] || nl[TOP])
				{
					nl[TOP] = true;
					break;
				}
				if (!TM_DATE_NOT_FINITE(st[TOP].i))
				{
					int64_t		r = (in->op == TMI_DATE_PLI) ? st[TOP].i + st[sp].i : st[TOP].i - st[sp].i;

					if (!TM_IS_VALID_DATE(r))
						return TM_ERR_DATE_OUT_OF_RANGE;
					st[TOP].i = r;
				}
				break;
			case TMI_DATE_MI:
				sp--;
				if (nl[sp] || nl[TOP])
				{
					nl[TOP] = true;
					break;
				}
				if (TM_DATE_NOT_FINITE(st[TOP].i) || TM_DATE_NOT_FINITE(st[sp].i))
					return TM_ERR_FALLBACK;		/* "cannot subtract infinite dates" */
				st[TOP].i = (int64_t) (int32_t) (st[TOP].i - st[sp].i);
				break;
			case TMI_TS_PL_INTERVAL:
				if (!nl[TOP])
				{
					TmValue		us = tm_expr_const(e, in->c, false);

					rc = tm_timestamp_pl_interval(st[TOP].i, in->a, in->b, us.i, &st[TOP].i);
					if (rc != TM_OK)
						return rc;
				}
				break;
			case TMI_EXTRACT:
				if (!nl[TOP])
				{
					int64_t		v = st[TOP].i;
					int			y, m, d;
					int64_t		r;
					bool		isneg;

					if (in->flags == TM_K_DATE ? TM_DATE_NOT_FINITE(v) : TM_TS_NOT_FINITE(v))
					{
						isneg = (in->flags == TM_K_DATE) ? (v == TM_DATEVAL_NOBEGIN) : (v == TM_DT_NOBEGIN);
						if (in->a != TM_FIELD_YEAR)
							nl[TOP] = true;		/* oscillating units: NULL */
						else if (in->b == 0)
							return TM_ERR_FALLBACK;		/* numeric +-Infinity */
						else
							st[TOP].f = isneg ? -HUGE_VAL : HUGE_VAL;
						break;
					}
					if (in->flags == TM_K_DATE)
						tm_j2date((int) (v + TM_POSTGRES_EPOCH_JDATE), &y, &m, &d);
					else
					{
						int64_t		tod;

						if (tm_timestamp2tm(v, &y, &m, &d, &tod) != 0)
							return TM_ERR_TIMESTAMP_OUT_OF_RANGE;
					}
					if (in->a == TM_FIELD_YEAR)
						r = (y > 0) ? y : y - 1;	/* there is no year 0 */
					else if (in->a == TM_FIELD_MONTH)
						r = m;
					else
						r = d;
					if (in->b == 0)
						st[TOP].n = (tm_int128) r;
					else
						st[TOP].f = (double) r;
				}
				break;

			case TMI_LIKE:
				sp--;
				if (nl[sp] || nl[TOP])
				{
					nl[TOP] = true;
					break;
				}
				{
					int			m = tm_like_match(st[TOP].s.p, st[TOP].s.len, st[sp].s.p, st[sp].s.len,
												  (in->flags & TMF_UTF8) != 0);

					if (m == TM_LIKE_ERROR)
						return TM_ERR_LIKE_ESCAPE;
					st[TOP].i = ((m == TM_LIKE_TRUE) != ((in->flags & TMF_NEGATE) != 0));
				}
				break;
			case TMI_SUBSTR:
				{
					bool		haslen = (in->flags & TMF_HASLEN) != 0;
					bool		anynull;
					int32_t		len = 0;
					int32_t		start;
					const char *rp;
					int32_t		rlen;

					anynull = nl[TOP];
					if (haslen)
					{
						len = (int32_t) st[TOP].i;
						sp--;
						anynull = anynull || nl[TOP];
					}
					start = (int32_t) st[TOP].i;
					sp--;
					if (anynull || nl[TOP])
					{
						nl[TOP] = true;
						break;
					}
					rc = tm_substring(st[TOP].s.p, st[TOP].s.len, start, len, haslen,
									  (in->flags & TMF_UTF8) != 0, &rp, &rlen);
					if (rc != TM_OK)
						return rc;
					st[TOP].s.p = rp;
					st[TOP].s.len = rlen;
				}
				break;
			case TMI_CHAR_LENGTH:
				if (!nl[TOP])
				{
					int32_t		l = st[TOP].s.len;

					if (in->flags & TMF_BPCHAR)
						l = tm_bpchar_truelen(st[TOP].s.p, l);
					st[TOP].i = tm_char_count(st[TOP].s.p, l, (in->flags & TMF_UTF8) != 0);
				}
				break;

			default:
				return TM_ERR_INTERNAL;
		}
	}
#undef TOP
#undef PUSHCHECK
	if (sp != 1)
		return TM_ERR_INTERNAL;
	TM_STOREV(result, st[0]);
	*isnull = nl[0];
	return TM_OK;
}

/*
 * Evaluate e over the current row.  Text results may point into the slot values or into e's pool.
 */
TM_FN TmStatus
tm_eval(const TmExpr *e, const TmValue *slots, const bool *slotnulls, TmValue *result, bool *isnull)
{
	return tm_eval_mode(e, slots, slotnulls, result, isnull, false);
}

/*
 * Evaluate a qualification: *pass = the result is non-NULL true.  Semantics of ExecQual over an
 * implicitly-ANDed qual list: the top-level AND chain stops at the first argument that is not true
 * (NULL included), so later arguments are not evaluated (and cannot raise errors).  Use tm_eval (and
 * test for true) where PostgreSQL evaluates a boolean expression as a value, e.g. aggregate FILTER.
 */
TM_FN TmStatus
tm_eval_qual(const TmExpr *e, const TmValue *slots, const bool *slotnulls, bool *pass)
{
	TmValue		r;
	bool		isnull;
	TmStatus	st = tm_eval_mode(e, slots, slotnulls, &r, &isnull, true);

	*pass = (st == TM_OK && !isnull && r.i != 0);
	return st;
}

/* ------------------------------------------------------------------------------------------------
 * The fast form of arithmetic expressions (TmFastArith)
 * ------------------------------------------------------------------------------------------------
 *
 * An expression made of slots, constants (not text) and NULL, and the binary arithmetic operators only
 * (TMI_ADD / SUB / MUL of integers and numerics: the revenue terms of TPC-H,
 * l_extendedprice * (1 - l_discount) * (1 + l_tax), and most aggregate arguments that are not one slot),
 * in at most TM_FA_MAX_INSTR instructions and TM_FA_MAX_DEPTH stack entries.  The stack depth before each
 * instruction is known when the code is decoded, so each instruction names the register it writes (a
 * push: the depth; an operator: depth - 2, its left operand, the right one is the next register): the
 * evaluation keeps the four registers as variables instead of the interpreter's stack array, which on
 * the GPU lives in local memory, and runs no dispatch over the whole instruction set.  The arithmetic
 * is the interpreter's (tm_arith_addsubmul, which tm_arith_op runs for these operators), in the same
 * order, so the values and the errors are the same (test_expr.c checks every case it evaluates both
 * ways).  Division, modulo and floats stay with the interpreter: their code would make the fast form's
 * call clobber more registers in the kernels that call it.
 */
#define TM_FA_MAX_INSTR 16
#define TM_FA_MAX_DEPTH 4

typedef struct TmFaInstr
{
	uint8_t		op;				/* TMI_PUSH_SLOT / PUSH_CONST / PUSH_NULL, or an arithmetic operator */
	uint8_t		kind;			/* an operator's TmKind (the instruction's flags) */
	uint8_t		reg;			/* the register written: a push's depth, an operator's left operand */
	uint8_t		pad;
	int32_t		a;				/* PUSH_SLOT: the slot; an operator: the instruction's a, b, c */
	int32_t		b;
	int32_t		c;
} TmFaInstr;

typedef struct TmFastArith
{
	int32_t		n;				/* instructions */
	int32_t		pad[3];
	TmFaInstr	ins[TM_FA_MAX_INSTR];
	TmValue		k[TM_FA_MAX_INSTR];	/* PUSH_CONST: the constant, copied (no text) */
} TmFastArith;

/* e in the fast form, into *fa: false where e is not such an expression */
TM_FN bool
tm_fast_arith_compile(const TmExpr *e, TmFastArith *fa)
{
	const TmInstr *code;
	int			depth = 0;

	memset(fa, 0, sizeof(*fa));
	if (e == NULL || e->ninstr < 1)
		return false;
	code = tm_expr_code(e);
	for (int i = 0; i < e->ninstr; i++)
	{
		const TmInstr *in = &code[i];
		TmFaInstr  *f;

		if (in->op == TMI_NOP)
			continue;
		if (fa->n >= TM_FA_MAX_INSTR)
			return false;
		f = &fa->ins[fa->n];
		f->op = (uint8_t) in->op;
		switch (in->op)
		{
			case TMI_PUSH_SLOT:
			case TMI_PUSH_CONST:
			case TMI_PUSH_NULL:
				if (depth >= TM_FA_MAX_DEPTH)
					return false;
				if (in->op == TMI_PUSH_CONST)
				{
					if ((in->flags & TMF_TEXT) != 0 || in->a < 0 || in->a >= e->nconst)
						return false;
					fa->k[fa->n] = tm_expr_const(e, in->a, false);
				}
				f->a = in->a;
				f->reg = (uint8_t) depth++;
				break;
			case TMI_ADD:
			case TMI_SUB:
			case TMI_MUL:
				if (depth < 2)
					return false;
				if (in->flags != TM_K_INT2 && in->flags != TM_K_INT4 && in->flags != TM_K_INT8 &&
					in->flags != TM_K_NUMERIC)
					return false;
				f->kind = (uint8_t) in->flags;
				f->a = in->a;
				f->b = in->b;
				f->c = in->c;
				depth--;
				f->reg = (uint8_t) (depth - 1);
				break;
			default:
				return false;
		}
		fa->n++;
	}
	return depth == 1 && fa->n > 0;
}

/* register r of the four: selects, so that they stay variables */
#define TM_FA_REG(r) ((r) == 0 ? r0 : (r) == 1 ? r1 : (r) == 2 ? r2 : r3)
#define TM_FA_NUL(r) ((r) == 0 ? n0 : (r) == 1 ? n1 : (r) == 2 ? n2 : n3)

/* evaluate fa over the current row: as tm_eval on the expression fa was made of */
TM_FN TmStatus
tm_fast_arith_eval(const TmFastArith *fa, const TmValue *slots, const bool *slotnulls, TmValue *result,
				   bool *isnull)
{
	TmValue		r0,
				r1,
				r2,
				r3;
	bool		n0 = false,
				n1 = false,
				n2 = false,
				n3 = false;

	r0.n = r1.n = r2.n = r3.n = 0;
	for (int i = 0; i < fa->n; i++)
	{
		const TmFaInstr *f = &fa->ins[i];
		TmValue		v;
		bool		vn;

		if (f->op == TMI_PUSH_SLOT)
		{
			TM_LOADV(v, &slots[f->a]);
			vn = slotnulls ? slotnulls[f->a] : false;
		}
		else if (f->op == TMI_PUSH_CONST)
		{
			v = fa->k[i];
			vn = false;
		}
		else if (f->op == TMI_PUSH_NULL)
		{
			v.n = 0;
			vn = true;
		}
		else
		{
			TmValue		x = TM_FA_REG(f->reg);

			if (TM_FA_NUL(f->reg) || TM_FA_NUL(f->reg + 1))
			{
				v = x;
				vn = true;
			}
			else
			{
				TmStatus	rc = tm_arith_addsubmul(f->op, f->kind, f->a, f->b, x, TM_FA_REG(f->reg + 1), &v);

				if (rc != TM_OK)
					return rc;
				vn = false;
			}
		}
		switch (f->reg)
		{
			case 0:
				r0 = v;
				n0 = vn;
				break;
			case 1:
				r1 = v;
				n1 = vn;
				break;
			case 2:
				r2 = v;
				n2 = vn;
				break;
			default:
				r3 = v;
				n3 = vn;
				break;
		}
	}
	TM_STOREV(result, r0);
	*isnull = n0;
	return TM_OK;
}

#undef TM_FA_REG
#undef TM_FA_NUL

/* ------------------------------------------------------------------------------------------------
 * Validation (host, once per expression: after deserialization or before shipping to the device)
 * ------------------------------------------------------------------------------------------------
 */

/* stack effect of an instruction: pops, pushes */
TM_FN bool
tm_instr_effect(const TmInstr *in, int *pops, int *pushes)
{
	*pops = 0;
	*pushes = 0;
	switch (in->op)
	{
		case TMI_NOP:
		case TMI_JUMP:
			break;
		case TMI_PUSH_SLOT:
		case TMI_PUSH_CONST:
		case TMI_PUSH_NULL:
		case TMI_LOAD_LOCAL:
			*pushes = 1;
			break;
		case TMI_POP:
		case TMI_STORE_LOCAL:
		case TMI_JUMP_IF_NOT_TRUE_POP:
			*pops = 1;
			break;
		case TMI_JUMP_IF_FALSE:
		case TMI_JUMP_IF_TRUE:
		case TMI_QJUMP_IF_FALSE:
		case TMI_JUMP_IF_NOT_NULL:
		case TMI_NOT:
		case TMI_IS_NULL:
		case TMI_IS_NOT_NULL:
		case TMI_IS_TRUE:
		case TMI_IS_NOT_TRUE:
		case TMI_IS_FALSE:
		case TMI_IS_NOT_FALSE:
		case TMI_IN:
		case TMI_NEG:
		case TMI_ABS:
		case TMI_INT_NARROW:
		case TMI_INT_TO_NUM:
		case TMI_NUM_RESCALE:
		case TMI_NUM_CHECK_PREC:
		case TMI_NUM_TO_INT:
		case TMI_INT_TO_FLOAT:
		case TMI_NUM_TO_FLOAT:
		case TMI_FLOAT_TO_INT:
		case TMI_F8_TO_F4:
		case TMI_FLOAT_FN:
		case TMI_DATE_TO_TS:
		case TMI_TS_TO_DATE:
		case TMI_BPCHAR_RTRIM:
		case TMI_TS_PL_INTERVAL:
		case TMI_EXTRACT:
		case TMI_CHAR_LENGTH:
			*pops = 1;
			*pushes = 1;
			break;
		case TMI_AND:
		case TMI_OR:
		case TMI_CMP:
		case TMI_MINMAX:
		case TMI_ADD:
		case TMI_SUB:
		case TMI_MUL:
		case TMI_DIV:
		case TMI_MOD:
		case TMI_NUM_DIV_REDUCE:
		case TMI_DATE_PLI:
		case TMI_DATE_MII:
		case TMI_DATE_MI:
		case TMI_LIKE:
			*pops = 2;
			*pushes = 1;
			break;
		case TMI_SUBSTR:
			*pops = (in->flags & TMF_HASLEN) ? 3 : 2;
			*pushes = 1;
			break;
		default:
			return false;
	}
	return true;
}

/*
 * Check that e is well formed: offsets inside the block, forward jumps only, operands in range,
 * consistent stack depth at every instruction and exactly one result.  nslots: slots available
 * (-1: do not check slot numbers).  depth: scratch array of e->ninstr + 1 ints.
 */
TM_FN bool
tm_expr_validate(const TmExpr *e, int nslots, int *depth)
{
	const TmInstr *code;
	int			i;
	int			maxd = 0;

	if (e->total_size < (int32_t) sizeof(TmExpr) || e->ninstr < 1 || e->nconst < 0 || e->pool_len < 0 ||
		e->instr_off < (int32_t) sizeof(TmExpr) ||
		(int64_t) e->instr_off + (int64_t) e->ninstr * (int64_t) sizeof(TmInstr) > e->total_size ||
		(e->nconst > 0 && (e->const_off < (int32_t) sizeof(TmExpr) ||
						   (int64_t) e->const_off + (int64_t) e->nconst * (int64_t) sizeof(TmValue) > e->total_size)) ||
		(e->pool_len > 0 && (e->pool_off < (int32_t) sizeof(TmExpr) ||
							 (int64_t) e->pool_off + e->pool_len > e->total_size)) ||
		e->max_stack < 1 || e->max_stack > TM_EXPR_MAX_STACK)
		return false;
	code = tm_expr_code(e);
	for (i = 0; i <= e->ninstr; i++)
		depth[i] = -1;
	depth[0] = 0;
	for (i = 0; i < e->ninstr; i++)
	{
		const TmInstr *in = &code[i];
		int			pops, pushes, d, nd;
		bool		isjump = false;
		bool		falls = true;

		if (!tm_instr_effect(in, &pops, &pushes))
			return false;
		d = depth[i];
		if (d < 0)
			return false;		/* unreachable code: the compiler never emits it */
		if (d < pops)
			return false;
		nd = d - pops + pushes;
		if (nd > e->max_stack)
			return false;
		if (nd > maxd)
			maxd = nd;
		switch (in->op)
		{
			case TMI_PUSH_SLOT:
				if (in->a < 0 || (nslots >= 0 && in->a >= nslots))
					return false;
				break;
			case TMI_PUSH_CONST:
				if (in->a < 0 || in->a >= e->nconst)
					return false;
				if (in->flags & TMF_TEXT)
				{
					TmValue		v;

					TM_LOADV(v, (const TmValue *) ((const char *) e + e->const_off) + in->a);
					if ((intptr_t) v.s.p < 0 || v.s.len < 0 ||
						(int64_t) (intptr_t) v.s.p + v.s.len > e->pool_len)
						return false;
				}
				break;
			case TMI_STORE_LOCAL:
			case TMI_LOAD_LOCAL:
				if (in->a < 0 || in->a >= TM_EXPR_MAX_LOCALS)
					return false;
				break;
			case TMI_JUMP:
				falls = false;
				isjump = true;
				break;
			case TMI_JUMP_IF_FALSE:
			case TMI_JUMP_IF_TRUE:
			case TMI_QJUMP_IF_FALSE:
			case TMI_JUMP_IF_NOT_TRUE_POP:
			case TMI_JUMP_IF_NOT_NULL:
				isjump = true;
				break;
			case TMI_CMP:
				if ((in->flags & TMF_CLASS_MASK) < TM_CMP_INT || (in->flags & TMF_CLASS_MASK) > TM_CMP_TS_DATE ||
					(in->flags & ~(TMF_CLASS_MASK | TMF_DISTINCT)) != 0 ||
					in->a < TM_PRED_EQ || in->a > TM_PRED_GE)
					return false;
				break;
			case TMI_MINMAX:
				if (in->flags < TM_CMP_INT || in->flags > TM_CMP_BPCHAR)
					return false;
				break;
			case TMI_IN:
				if (in->flags < TM_CMP_INT || in->flags > TM_CMP_BPCHAR || in->b < 0 || in->a < 0 ||
					in->a + in->b > e->nconst)
					return false;
				if (in->flags == TM_CMP_TEXT || in->flags == TM_CMP_BPCHAR)
				{
					int			j;

					for (j = 0; j < in->b; j++)
					{
						TmValue		v;

						TM_LOADV(v, (const TmValue *) ((const char *) e + e->const_off) + in->a + j);
						if ((intptr_t) v.s.p < 0 || v.s.len < 0 ||
							(int64_t) (intptr_t) v.s.p + v.s.len > e->pool_len)
							return false;
					}
				}
				break;
			case TMI_ADD:
			case TMI_SUB:
			case TMI_MUL:
			case TMI_DIV:
			case TMI_MOD:
			case TMI_NEG:
			case TMI_ABS:
				if (in->flags < TM_K_INT2 || in->flags > TM_K_NUMERIC)
					return false;
				if (in->flags == TM_K_NUMERIC &&
					(in->a < 0 || in->a > 38 || in->b < 0 || in->b > 38 || in->c < 0 || in->c > 38))
					return false;
				break;
			case TMI_INT_NARROW:
			case TMI_NUM_TO_INT:
			case TMI_FLOAT_TO_INT:
				if (in->flags < TM_K_INT2 || in->flags > TM_K_INT8)
					return false;
				break;
			case TMI_TS_PL_INTERVAL:
				if (in->c < 0 || in->c >= e->nconst)
					return false;
				break;
			case TMI_NUM_RESCALE:
				if (in->flags > TM_REDUCE_FLOOR)
					return false;
				break;
			case TMI_NUM_DIV_REDUCE:
				if (in->flags > TM_REDUCE_FLOOR || in->a < 0 || in->a > 38 || in->b < 0 || in->b > 38 ||
					in->c < 0 || in->c > 38)
					return false;
				break;
			case TMI_FLOAT_FN:
				if (in->flags > TM_FFN_FLOOR)
					return false;
				break;
			default:
				break;
		}
		if (isjump)
		{
			int			jd = (in->op == TMI_JUMP) ? d : nd;

			if (in->a <= i || in->a > e->ninstr)
				return false;
			if (depth[in->a] >= 0 && depth[in->a] != jd)
				return false;
			depth[in->a] = jd;
		}
		if (falls)
		{
			if (depth[i + 1] >= 0 && depth[i + 1] != nd)
				return false;
			depth[i + 1] = nd;
		}
	}
	if (depth[e->ninstr] != 1)
		return false;
	(void) maxd;
	return true;
}

/* Opcode names (disassembly) */
TM_FN const char *
tm_opcode_name(int op)
{
	switch (op)
	{
		case TMI_NOP: return "nop";
		case TMI_PUSH_SLOT: return "slot";
		case TMI_PUSH_CONST: return "const";
		case TMI_PUSH_NULL: return "null";
		case TMI_POP: return "pop";
		case TMI_STORE_LOCAL: return "store";
		case TMI_LOAD_LOCAL: return "load";
		case TMI_JUMP: return "jump";
		case TMI_JUMP_IF_FALSE: return "jump_if_false";
		case TMI_JUMP_IF_TRUE: return "jump_if_true";
		case TMI_QJUMP_IF_FALSE: return "qual_jump_if_false";
		case TMI_JUMP_IF_NOT_TRUE_POP: return "pop_jump_if_not_true";
		case TMI_JUMP_IF_NOT_NULL: return "jump_if_not_null";
		case TMI_AND: return "and";
		case TMI_OR: return "or";
		case TMI_NOT: return "not";
		case TMI_IS_NULL: return "is_null";
		case TMI_IS_NOT_NULL: return "is_not_null";
		case TMI_IS_TRUE: return "is_true";
		case TMI_IS_NOT_TRUE: return "is_not_true";
		case TMI_IS_FALSE: return "is_false";
		case TMI_IS_NOT_FALSE: return "is_not_false";
		case TMI_CMP: return "cmp";
		case TMI_MINMAX: return "minmax";
		case TMI_IN: return "in";
		case TMI_ADD: return "add";
		case TMI_SUB: return "sub";
		case TMI_MUL: return "mul";
		case TMI_DIV: return "div";
		case TMI_MOD: return "mod";
		case TMI_NEG: return "neg";
		case TMI_ABS: return "abs";
		case TMI_INT_NARROW: return "int_narrow";
		case TMI_INT_TO_NUM: return "int_to_numeric";
		case TMI_NUM_RESCALE: return "numeric_rescale";
		case TMI_NUM_CHECK_PREC: return "numeric_check_precision";
		case TMI_NUM_TO_INT: return "numeric_to_int";
		case TMI_INT_TO_FLOAT: return "int_to_float";
		case TMI_NUM_TO_FLOAT: return "numeric_to_float";
		case TMI_FLOAT_TO_INT: return "float_to_int";
		case TMI_F8_TO_F4: return "float8_to_float4";
		case TMI_FLOAT_FN: return "float_fn";
		case TMI_DATE_TO_TS: return "date_to_timestamp";
		case TMI_TS_TO_DATE: return "timestamp_to_date";
		case TMI_BPCHAR_RTRIM: return "bpchar_rtrim";
		case TMI_DATE_PLI: return "date_pli";
		case TMI_DATE_MII: return "date_mii";
		case TMI_DATE_MI: return "date_mi";
		case TMI_TS_PL_INTERVAL: return "timestamp_pl_interval";
		case TMI_EXTRACT: return "extract";
		case TMI_LIKE: return "like";
		case TMI_SUBSTR: return "substr";
		case TMI_CHAR_LENGTH: return "char_length";
		case TMI_NUM_DIV_REDUCE: return "numeric_div_reduce";
		default: return "?";
	}
}

#endif							/* THEMIS_TM_EXPR_EVAL_H */
