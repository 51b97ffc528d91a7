/*
 * datum_conv.c — conversions between PostgreSQL and themis: types (Oid, typmod) <-> TmType,
 * Datum <-> TmValue, and TmStatus -> ereport with PostgreSQL's own SQLSTATE and message.
 *
 * numeric values are held by themis as int128 scaled by 10^TmType.scale; the conversion reads and
 * writes the varlena Numeric format of PostgreSQL 15 directly (short and long headers), producing the
 * same canonical representation as numeric.c's make_result (leading/trailing zero digits stripped,
 * dscale == scale).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "themis.h"
#include "themis/tm_expr_eval.h"
#include "colbuild.h"

/* Numeric header layout (numeric.c) */
#define TMN_SIGN_MASK			0xC000
#define TMN_POS					0x0000
#define TMN_NEG					0x4000
#define TMN_SHORT				0x8000
#define TMN_SPECIAL				0xC000
#define TMN_SHORT_SIGN_MASK		0x2000
#define TMN_SHORT_DSCALE_MASK	0x1F80
#define TMN_SHORT_DSCALE_SHIFT	7
#define TMN_SHORT_DSCALE_MAX	(TMN_SHORT_DSCALE_MASK >> TMN_SHORT_DSCALE_SHIFT)
#define TMN_SHORT_WEIGHT_SIGN_MASK	0x0040
#define TMN_SHORT_WEIGHT_MASK	0x003F
#define TMN_SHORT_WEIGHT_MAX	TMN_SHORT_WEIGHT_MASK
#define TMN_SHORT_WEIGHT_MIN	(-(TMN_SHORT_WEIGHT_MASK + 1))
#define TMN_DSCALE_MASK			0x3FFF
#define TMN_NBASE				10000
#define TMN_MAX_SCALE			38	/* themis keeps at most 38 digits after the point */
#define TMN_MAX_PRECISION		38

bool
tm_type_from_pg(Oid typid, int32 typmod, Oid collid, TmType *out, const char **why)
{
	Oid			basetype = typid;
	int32		basetypmod = typmod;

	memset(out, 0, sizeof(TmType));
	out->pgtype = typid;
	out->typmod = typmod;

	if (get_typtype(typid) == TYPTYPE_DOMAIN)
		basetype = getBaseTypeAndTypmod(typid, &basetypmod);

	switch (basetype)
	{
		case BOOLOID:
			out->kind = TM_K_BOOL;
			break;
		case INT2OID:
			out->kind = TM_K_INT2;
			break;
		case INT4OID:
			out->kind = TM_K_INT4;
			break;
		case INT8OID:
			out->kind = TM_K_INT8;
			break;
		case FLOAT4OID:
			out->kind = TM_K_FLOAT4;
			break;
		case FLOAT8OID:
			out->kind = TM_K_FLOAT8;
			break;
		case NUMERICOID:
			{
				int			precision;
				int			scale;

				if (basetypmod < (int32) VARHDRSZ)
				{
					*why = "numeric without typmod";
					return false;
				}
				precision = ((basetypmod - VARHDRSZ) >> 16) & 0xffff;
				scale = (((basetypmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
				if (scale < 0)
				{
					*why = "numeric with negative scale";
					return false;
				}
				if (precision > TMN_MAX_PRECISION || scale > TMN_MAX_SCALE)
				{
					*why = "numeric precision above 38 digits";
					return false;
				}
				out->kind = TM_K_NUMERIC;
				out->scale = (int16) scale;
			}
			break;
		case DATEOID:
			out->kind = TM_K_DATE;
			break;
		case TIMESTAMPOID:
			out->kind = TM_K_TIMESTAMP;
			break;
		case TEXTOID:
		case VARCHAROID:
			out->kind = TM_K_TEXT;
			out->collation = collid;
			break;
		case BPCHAROID:
			out->kind = TM_K_BPCHAR;
			out->collation = collid;
			break;
		default:
			*why = psprintf("type %s is not supported", format_type_be(typid));
			return false;
	}
	return true;
}

static const uint64 pow10_u64[20] = {
	UINT64CONST(1), UINT64CONST(10), UINT64CONST(100), UINT64CONST(1000), UINT64CONST(10000),
	UINT64CONST(100000), UINT64CONST(1000000), UINT64CONST(10000000), UINT64CONST(100000000),
	UINT64CONST(1000000000), UINT64CONST(10000000000), UINT64CONST(100000000000),
	UINT64CONST(1000000000000), UINT64CONST(10000000000000), UINT64CONST(100000000000000),
	UINT64CONST(1000000000000000), UINT64CONST(10000000000000000), UINT64CONST(100000000000000000),
	UINT64CONST(1000000000000000000), UINT64CONST(10000000000000000000)
};

/*
 * Numeric Datum -> value * 10^scale.  False for NaN / infinities, for values with more fractional
 * digits than scale, and for values beyond int128.  *dscale (if not NULL) receives the display scale.
 */
static bool
numeric_datum_to_int128(Datum d, int scale, tm_int128 *out, int *dscale)
{
	struct varlena *vl = (struct varlena *) DatumGetPointer(d);
	const char *data;
	uint16		header;
	bool		neg;
	int			weight;
	int			ds;
	const char *digits;
	int			ndigits;
	int			last_exp;
	int			i;
	tm_int128	acc;
	int			len;

	/* values in a heap page are plain (short or 4-byte header): detoast only what is not */
	if (VARATT_IS_COMPRESSED(vl) || VARATT_IS_EXTERNAL(vl))
		vl = pg_detoast_datum_packed(vl);
	data = VARDATA_ANY(vl);
	len = VARSIZE_ANY_EXHDR(vl);
	if (len < (int) sizeof(uint16))
		return false;
	memcpy(&header, data, sizeof(uint16));
	if ((header & TMN_SIGN_MASK) == TMN_SPECIAL)
		return false;
	if (header & TMN_SHORT)
	{
		neg = (header & TMN_SHORT_SIGN_MASK) != 0;
		ds = (header & TMN_SHORT_DSCALE_MASK) >> TMN_SHORT_DSCALE_SHIFT;
		weight = (header & TMN_SHORT_WEIGHT_SIGN_MASK) ? (int) (~TMN_SHORT_WEIGHT_MASK | (header & TMN_SHORT_WEIGHT_MASK)) :
			(int) (header & TMN_SHORT_WEIGHT_MASK);
		digits = data + sizeof(uint16);
		ndigits = (len - (int) sizeof(uint16)) / (int) sizeof(int16);
	}
	else
	{
		int16		w;

		if (len < (int) (sizeof(uint16) + sizeof(int16)))
			return false;
		neg = (header & TMN_SIGN_MASK) == TMN_NEG;
		ds = header & TMN_DSCALE_MASK;
		memcpy(&w, data + sizeof(uint16), sizeof(int16));
		weight = w;
		digits = data + sizeof(uint16) + sizeof(int16);
		ndigits = (len - (int) (sizeof(uint16) + sizeof(int16))) / (int) sizeof(int16);
	}
	if (dscale)
		*dscale = ds;
	if (ndigits == 0)
	{
		*out = 0;
		return true;
	}

	/* Horner over the base-10000 digits; the last digit has decimal exponent last_exp at scale */
	last_exp = 4 * (weight - (ndigits - 1)) + scale;
	if (ndigits <= 4)
	{
		uint64		u = 0;

		for (i = 0; i < ndigits; i++)
		{
			int16		dg;

			memcpy(&dg, digits + i * sizeof(int16), sizeof(int16));
			u = u * TMN_NBASE + (uint64) dg;
		}
		/*
		 * The common case (at most 16 significant digits, at most 19 decimal places to drop): 64-bit
		 * arithmetic, no 128-bit division.  u < 10^16, so u * 10^k fits for k <= 2.
		 */
		if (last_exp <= 0 && last_exp >= -19)
		{
			if (last_exp < 0)
			{
				uint64		p = pow10_u64[-last_exp];

				if (u % p != 0)
					return false;	/* more fractional digits than the scale */
				u /= p;
			}
			*out = neg ? -(tm_int128) u : (tm_int128) u;
			return true;
		}
		if (last_exp > 0 && last_exp <= 2)
		{
			u *= pow10_u64[last_exp];
			*out = neg ? -(tm_int128) u : (tm_int128) u;
			return true;
		}
		acc = (tm_int128) u;
	}
	else
	{
		acc = 0;
		for (i = 0; i < ndigits; i++)
		{
			int16		dg;

			memcpy(&dg, digits + i * sizeof(int16), sizeof(int16));
			if (tm_mul_s128_overflow(acc, TMN_NBASE, &acc) ||
				tm_add_s128_overflow(acc, (tm_int128) dg, &acc))
				return false;
		}
	}
	if (last_exp > 0)
	{
		if (tm_num_upscale(acc, last_exp, &acc))
			return false;
	}
	else if (last_exp < 0)
	{
		tm_int128	p;

		if (-last_exp > 38)
			return false;
		p = tm_pow10(-last_exp);
		if (acc % p != 0)
			return false;		/* more fractional digits than the scale */
		acc /= p;
	}
	*out = neg ? -acc : acc;
	return true;
}

/* value * 10^-scale -> Numeric with dscale = scale, in make_result's canonical form */
static Datum
int128_to_numeric_datum(tm_int128 x, int scale)
{
	int16		dg[32];
	int			n = 0;
	int			weight;
	bool		neg = x < 0;
	tm_uint128	u = tm_abs_u128(x);
	tm_uint128	p = (tm_uint128) tm_pow10(scale);
	tm_uint128	ip = u / p;
	tm_uint128	fp = u % p;
	int16		tmp[16];
	int			nint = 0;
	int			nfrac = (scale + 3) / 4;
	int			k;
	int16	   *digits;
	Numeric		result;
	Size		len;

	while (ip > 0)
	{
		tmp[nint++] = (int16) (ip % TMN_NBASE);
		ip /= TMN_NBASE;
	}
	for (k = nint - 1; k >= 0; k--)
		dg[n++] = tmp[k];
	for (k = 0; k < nfrac; k++)
	{
		int			rest = scale - 4 * (k + 1);	/* fractional digits after this group */

		if (rest >= 0)
			dg[n++] = (int16) ((fp / (tm_uint128) tm_pow10(rest)) % TMN_NBASE);
		else
			dg[n++] = (int16) ((fp % (tm_uint128) tm_pow10(scale - 4 * k)) * (tm_uint128) tm_pow10(-rest));
	}
	weight = nint - 1;

	/* strip leading and trailing zero digits */
	digits = dg;
	while (n > 0 && *digits == 0)
	{
		digits++;
		weight--;
		n--;
	}
	while (n > 0 && digits[n - 1] == 0)
		n--;
	if (n == 0)
	{
		weight = 0;
		neg = false;
	}

	if (scale <= TMN_SHORT_DSCALE_MAX && weight <= TMN_SHORT_WEIGHT_MAX && weight >= TMN_SHORT_WEIGHT_MIN)
	{
		uint16		header;

		len = VARHDRSZ + sizeof(uint16) + n * sizeof(int16);
		result = (Numeric) palloc(len);
		SET_VARSIZE(result, len);
		header = (uint16) ((neg ? (TMN_SHORT | TMN_SHORT_SIGN_MASK) : TMN_SHORT)
						   | (scale << TMN_SHORT_DSCALE_SHIFT)
						   | (weight < 0 ? TMN_SHORT_WEIGHT_SIGN_MASK : 0)
						   | (weight & TMN_SHORT_WEIGHT_MASK));
		memcpy(VARDATA(result), &header, sizeof(uint16));
		if (n > 0)
			memcpy(VARDATA(result) + sizeof(uint16), digits, n * sizeof(int16));
	}
	else
	{
		uint16		sign_dscale = (uint16) ((neg ? TMN_NEG : TMN_POS) | (scale & TMN_DSCALE_MASK));
		int16		w = (int16) weight;

		len = VARHDRSZ + sizeof(uint16) + sizeof(int16) + n * sizeof(int16);
		result = (Numeric) palloc(len);
		SET_VARSIZE(result, len);
		memcpy(VARDATA(result), &sign_dscale, sizeof(uint16));
		memcpy(VARDATA(result) + sizeof(uint16), &w, sizeof(int16));
		if (n > 0)
			memcpy(VARDATA(result) + sizeof(uint16) + sizeof(int16), digits, n * sizeof(int16));
	}
	return NumericGetDatum(result);
}

/* for the column loader (colbuild.h): a numeric Datum scaled to scale, as tm_datum_to_value converts it */
bool
tm_numeric_to_scaled(Datum d, int scale, tm_int128 *out)
{
	return numeric_datum_to_int128(d, scale, out, NULL);
}

bool
tm_datum_to_value(Datum d, const TmType *t, TmValue *v)
{
	TmValue		r;

	memset(&r, 0, sizeof(r));
	switch (t->kind)
	{
		case TM_K_BOOL:
			r.i = DatumGetBool(d) ? 1 : 0;
			break;
		case TM_K_INT2:
			r.i = DatumGetInt16(d);
			break;
		case TM_K_INT4:
			r.i = DatumGetInt32(d);
			break;
		case TM_K_INT8:
			r.i = DatumGetInt64(d);
			break;
		case TM_K_FLOAT4:
			r.f = (double) DatumGetFloat4(d);
			break;
		case TM_K_FLOAT8:
			r.f = DatumGetFloat8(d);
			break;
		case TM_K_DATE:
			r.i = DatumGetDateADT(d);
			break;
		case TM_K_TIMESTAMP:
			r.i = DatumGetTimestamp(d);
			break;
		case TM_K_NUMERIC:
			if (!numeric_datum_to_int128(d, t->scale, &r.n, NULL))
				return false;
			break;
		case TM_K_TEXT:
		case TM_K_BPCHAR:
			{
				text	   *tp = DatumGetTextPP(d);

				r.s.p = VARDATA_ANY(tp);
				r.s.len = VARSIZE_ANY_EXHDR(tp);
			}
			break;
		default:
			return false;
	}
	memcpy((char *) v, (const char *) &r, sizeof(TmValue));
	return true;
}

Datum
tm_value_to_datum(const TmValue *v, const TmType *t)
{
	TmValue		x;

	memcpy((char *) &x, (const char *) v, sizeof(TmValue));
	switch (t->kind)
	{
		case TM_K_BOOL:
			return BoolGetDatum(x.i != 0);
		case TM_K_INT2:
			return Int16GetDatum((int16) x.i);
		case TM_K_INT4:
			return Int32GetDatum((int32) x.i);
		case TM_K_INT8:
			return Int64GetDatum(x.i);
		case TM_K_FLOAT4:
			return Float4GetDatum((float4) x.f);
		case TM_K_FLOAT8:
			return Float8GetDatum(x.f);
		case TM_K_DATE:
			return DateADTGetDatum((DateADT) x.i);
		case TM_K_TIMESTAMP:
			return TimestampGetDatum((Timestamp) x.i);
		case TM_K_NUMERIC:
			return int128_to_numeric_datum(x.n, t->scale);
		case TM_K_TEXT:
		case TM_K_BPCHAR:
			return PointerGetDatum(cstring_to_text_with_len(x.s.p, x.s.len));
		default:
			elog(ERROR, "themis: cannot convert value of kind %d to a datum", t->kind);
	}
	return (Datum) 0;			/* keep compiler quiet */
}

void
tm_raise_status(TmStatus st)
{
	switch (st)
	{
		case TM_ERR_DIV_BY_ZERO:
			ereport(ERROR,
					(errcode(ERRCODE_DIVISION_BY_ZERO),
					 errmsg("division by zero")));
			break;
		case TM_ERR_INT2_OUT_OF_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("smallint out of range")));
			break;
		case TM_ERR_INT4_OUT_OF_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("integer out of range")));
			break;
		case TM_ERR_INT8_OUT_OF_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("bigint out of range")));
			break;
		case TM_ERR_FLOAT_OVERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("value out of range: overflow")));
			break;
		case TM_ERR_FLOAT_UNDERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("value out of range: underflow")));
			break;
		case TM_ERR_DATE_OUT_OF_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("date out of range")));
			break;
		case TM_ERR_TIMESTAMP_OUT_OF_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("timestamp out of range")));
			break;
		case TM_ERR_NUMERIC_OUT_OF_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("value overflows numeric format")));
			break;
		case TM_ERR_SUBSTRING_NEGATIVE:
			ereport(ERROR,
					(errcode(ERRCODE_SUBSTRING_ERROR),
					 errmsg("negative substring length not allowed")));
			break;
		case TM_ERR_LIKE_ESCAPE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_ESCAPE_SEQUENCE),
					 errmsg("LIKE pattern must not end with escape character")));
			break;
		case TM_ERR_FALLBACK:
			elog(ERROR, "themis: value not representable, the query must run on the PostgreSQL plan");
			break;
		case TM_OK:
		case TM_ERR_INTERNAL:
		default:
			break;
	}
	elog(ERROR, "themis: internal error in expression evaluation (status %d)", (int) st);
	pg_unreachable();
}

const char *
tm_type_name(const TmType *t)
{
	switch (t->kind)
	{
		case TM_K_BOOL:
			return "bool";
		case TM_K_INT2:
			return "int2";
		case TM_K_INT4:
			return "int4";
		case TM_K_INT8:
			return "int8";
		case TM_K_FLOAT4:
			return "float4";
		case TM_K_FLOAT8:
			return "float8";
		case TM_K_NUMERIC:
			return psprintf("numeric(%d)", t->scale);
		case TM_K_DATE:
			return "date";
		case TM_K_TIMESTAMP:
			return "timestamp";
		case TM_K_TEXT:
			return t->pgtype == VARCHAROID ? "varchar" : "text";
		case TM_K_BPCHAR:
			return "bpchar";
		default:
			return "invalid";
	}
}
