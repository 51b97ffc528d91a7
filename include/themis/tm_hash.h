/*
 * tm_hash.h — hashing, equality, ordering and sum() accumulation of themis values, host and device.
 *
 * Used by hash joins (keys), grouping (keys), count(distinct), min/max and sum.  Equality and order
 * follow PostgreSQL's btree operators of each type: floats treat all NaNs as equal and above every
 * other value, -0 equals 0; bpchar ignores trailing blanks; text compares bytes (callers use the text
 * order only where the collation is C/POSIX).  Values equal under tm_values_equal hash equal.
 */
#ifndef THEMIS_TM_HASH_H
#define THEMIS_TM_HASH_H

#include "themis/tm_expr_eval.h"

TM_FN uint64_t
tm_hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

TM_FN uint64_t
tm_hash_combine(uint64_t h, uint64_t k)
{
	h ^= k + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	return tm_hash_mix64(h);
}

/* hash of a byte string (byte-wise loads: no alignment assumption) */
TM_FN uint64_t
tm_hash_bytes(const char *p, int32_t len)
{
	const unsigned char *s = (const unsigned char *) p;
	uint64_t	h = UINT64_C(0x243f6a8885a308d3) ^ ((uint64_t) (uint32_t) len * UINT64_C(0x9e3779b97f4a7c15));
	int32_t		i = 0;

	for (; i + 8 <= len; i += 8)
	{
		uint64_t	k = (uint64_t) s[i] | ((uint64_t) s[i + 1] << 8) | ((uint64_t) s[i + 2] << 16) |
			((uint64_t) s[i + 3] << 24) | ((uint64_t) s[i + 4] << 32) | ((uint64_t) s[i + 5] << 40) |
			((uint64_t) s[i + 6] << 48) | ((uint64_t) s[i + 7] << 56);

		h = (h ^ tm_hash_mix64(k)) * UINT64_C(0x100000001b3);
		h ^= h >> 29;
	}
	if (i < len)
	{
		uint64_t	k = 0;
		int			sh = 0;

		for (; i < len; i++, sh += 8)
			k |= (uint64_t) s[i] << sh;
		h = (h ^ tm_hash_mix64(k)) * UINT64_C(0x100000001b3);
	}
	return tm_hash_mix64(h);
}

/* hash of a non-NULL value of type t */
TM_FN uint64_t
tm_hash_value(const TmValue *v, const TmType *t)
{
	switch (t->kind)
	{
		case TM_K_BOOL:
		case TM_K_INT2:
		case TM_K_INT4:
		case TM_K_INT8:
		case TM_K_DATE:
		case TM_K_TIMESTAMP:
			return tm_hash_mix64((uint64_t) v->i);
		case TM_K_FLOAT4:
		case TM_K_FLOAT8:
			{
				double		f = v->f;
				uint64_t	bits;

				if (f == 0.0)
					f = 0.0;	/* -0 hashes as 0 */
				if (tm_isnan(f))
					return UINT64_C(0x7ff8000000000000);	/* all NaNs alike */
				memcpy(&bits, &f, sizeof(bits));
				return tm_hash_mix64(bits);
			}
		case TM_K_NUMERIC:
			{
				tm_uint128	u = (tm_uint128) v->n;

				return tm_hash_combine(tm_hash_mix64((uint64_t) u), (uint64_t) (u >> 64));
			}
		case TM_K_TEXT:
			return tm_hash_bytes(v->s.p, v->s.len);
		case TM_K_BPCHAR:
			return tm_hash_bytes(v->s.p, tm_bpchar_truelen(v->s.p, v->s.len));
		default:
			return 0;
	}
}

/* PostgreSQL equality of two non-NULL values of type t */
TM_FN bool
tm_values_equal(const TmValue *a, const TmValue *b, const TmType *t)
{
	switch (t->kind)
	{
		case TM_K_BOOL:
		case TM_K_INT2:
		case TM_K_INT4:
		case TM_K_INT8:
		case TM_K_DATE:
		case TM_K_TIMESTAMP:
			return a->i == b->i;
		case TM_K_FLOAT4:
		case TM_K_FLOAT8:
			return tm_isnan(a->f) ? tm_isnan(b->f) : (!tm_isnan(b->f) && a->f == b->f);
		case TM_K_NUMERIC:
			return a->n == b->n;
		case TM_K_TEXT:
			return tm_bytes_eq(a->s.p, a->s.len, b->s.p, b->s.len);
		case TM_K_BPCHAR:
			return tm_bytes_eq(a->s.p, tm_bpchar_truelen(a->s.p, a->s.len),
							   b->s.p, tm_bpchar_truelen(b->s.p, b->s.len));
		default:
			return false;
	}
}

/* btree order of two non-NULL values of type t: -1, 0, 1 (text kinds: byte order) */
TM_FN int
tm_values_cmp(const TmValue *a, const TmValue *b, const TmType *t)
{
	switch (t->kind)
	{
		case TM_K_BOOL:
		case TM_K_INT2:
		case TM_K_INT4:
		case TM_K_INT8:
		case TM_K_DATE:
		case TM_K_TIMESTAMP:
			return tm_cmp_class(TM_CMP_INT, a, b, 0, 0);
		case TM_K_FLOAT4:
		case TM_K_FLOAT8:
			return tm_cmp_class(TM_CMP_FLOAT, a, b, 0, 0);
		case TM_K_NUMERIC:
			return tm_cmp_class(TM_CMP_NUMERIC, a, b, 0, 0);
		case TM_K_TEXT:
			return tm_cmp_class(TM_CMP_TEXT, a, b, 0, 0);
		case TM_K_BPCHAR:
			return tm_cmp_class(TM_CMP_BPCHAR, a, b, 0, 0);
		default:
			return 0;
	}
}

/*
 * sum() transition for a non-NULL input v of type argtype into acc (type restype), as PostgreSQL:
 *   int2/int4 -> int8 (int2_sum/int4_sum: no overflow check),
 *   int8 -> numeric scale 0 (int128 accumulation),
 *   numeric(s) -> numeric(s) (int128; overflow -> TM_ERR_FALLBACK),
 *   float4 -> float4 (float4pl), float8 -> float8 (float8pl): overflow to infinity from finite inputs
 *   raises TM_ERR_FLOAT_OVERFLOW.  The first input initializes the state, like a strict transfn.
 */
TM_FN TmStatus
tm_sum_add(TmValue *acc, bool *accnull, const TmValue *v, const TmType *argtype, const TmType *restype)
{
	TmValue		a;
	TmValue		x;

	TM_LOADV(x, v);
	TM_LOADV(a, acc);
	switch (argtype->kind)
	{
		case TM_K_INT2:
		case TM_K_INT4:
			if (*accnull)
				a.i = x.i;
			else
				a.i = (int64_t) ((uint64_t) a.i + (uint64_t) x.i);
			break;
		case TM_K_INT8:
			{
				tm_int128	xi;

				if (tm_num_upscale((tm_int128) x.i, restype->scale, &xi))
					return TM_ERR_FALLBACK;
				if (*accnull)
					a.n = xi;
				else if (tm_add_s128_overflow(a.n, xi, &a.n))
					return TM_ERR_FALLBACK;
			}
			break;
		case TM_K_NUMERIC:
			{
				tm_int128	xn = x.n;

				if (restype->scale > argtype->scale)
				{
					if (tm_num_upscale(xn, restype->scale - argtype->scale, &xn))
						return TM_ERR_FALLBACK;
				}
				else if (restype->scale < argtype->scale)
					return TM_ERR_INTERNAL;
				if (*accnull)
					a.n = xn;
				else if (tm_add_s128_overflow(a.n, xn, &a.n))
					return TM_ERR_FALLBACK;
			}
			break;
		case TM_K_FLOAT4:
			if (*accnull)
				a.f = x.f;
			else
			{
				TmStatus	st = tm_float4_op(TMI_ADD, a.f, x.f, &a.f);

				if (st != TM_OK)
					return st;
			}
			break;
		case TM_K_FLOAT8:
			if (*accnull)
				a.f = x.f;
			else
			{
				TmStatus	st = tm_float8_op(TMI_ADD, a.f, x.f, &a.f);

				if (st != TM_OK)
					return st;
			}
			break;
		default:
			return TM_ERR_INTERNAL;
	}
	*accnull = false;
	TM_STOREV(acc, a);
	return TM_OK;
}

#endif							/* THEMIS_TM_HASH_H */
