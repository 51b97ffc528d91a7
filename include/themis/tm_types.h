/*
 * tm_types.h — value and type representation shared by host (gcc) and device (nvcc) code.
 *
 * Everything here is plain C that both compilers accept; it must not include PostgreSQL headers,
 * so that kernels and engine unit tests can use it.  PostgreSQL-specific conversions live in
 * src/datum_conv.c.
 */
#ifndef THEMIS_TM_TYPES_H
#define THEMIS_TM_TYPES_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __CUDACC__
#define TM_HD __host__ __device__
#define TM_INLINE __host__ __device__ __forceinline__
#else
#define TM_HD
#define TM_INLINE static inline
#endif

/*
 * 128-bit integer for numeric values and sums.  Its alignment is lowered to 8 so that TmValue arrays
 * can live in palloc'd memory (MAXALIGN is 8); compilers then split 128-bit loads.
 */
typedef __int128 tm_int128 __attribute__((aligned(8)));

/* Kinds of values themis can evaluate.  Anything else stays on PostgreSQL. */
typedef enum TmKind
{
	TM_K_INVALID = 0,
	TM_K_BOOL,					/* .i: 0 / 1 */
	TM_K_INT2,					/* .i */
	TM_K_INT4,					/* .i */
	TM_K_INT8,					/* .i */
	TM_K_FLOAT4,				/* .f (value rounded to float) */
	TM_K_FLOAT8,				/* .f */
	TM_K_NUMERIC,				/* .n: value * 10^scale, scale in TmType.scale */
	TM_K_DATE,					/* .i: PostgreSQL DateADT (days since 2000-01-01, +-infinity sentinels) */
	TM_K_TIMESTAMP,				/* .i: PostgreSQL Timestamp (usec since 2000-01-01, +-infinity sentinels) */
	TM_K_TEXT,					/* .s: bytes of text / varchar (no header, not NUL-terminated) */
	TM_K_BPCHAR					/* .s: bytes of char(n) as stored (blank padded); compared without trailing blanks */
} TmKind;

/*
 * Bytes per value of a kind in a column array (the GPU layout of cuda/tm_gpu_exec.h, also built by
 * src/colbuild.c): text kinds 0 (they are offsets + bytes), -1 for kinds no column holds.
 */
TM_INLINE int
tm_kind_width(int kind)
{
	switch (kind)
	{
		case TM_K_BOOL:
			return 1;
		case TM_K_INT2:
			return 2;
		case TM_K_INT4:
		case TM_K_DATE:
		case TM_K_FLOAT4:
			return 4;
		case TM_K_INT8:
		case TM_K_TIMESTAMP:
		case TM_K_FLOAT8:
			return 8;
		case TM_K_NUMERIC:
			return 16;
		case TM_K_TEXT:
		case TM_K_BPCHAR:
			return 0;
		default:
			return -1;
	}
}

/* A type as themis sees it: kind plus what PostgreSQL needs to turn it back into a Datum. */
typedef struct TmType
{
	int16_t		kind;			/* TmKind */
	int16_t		scale;			/* TM_K_NUMERIC: decimal digits after the point (the dscale of every value) */
	int32_t		typmod;			/* PostgreSQL typmod of the output (-1 if none) */
	uint32_t	pgtype;			/* PostgreSQL type OID of the output */
	uint32_t	collation;		/* collation OID for text kinds (0 otherwise) */
} TmType;

/*
 * One value.  Text values point at bytes owned by whoever produced them (a column store, a constant
 * pool); they are never freed through a TmValue.
 */
typedef struct TmValue
{
	union
	{
		int64_t		i;
		double		f;
		tm_int128	n;
		struct
		{
			const char *p;
			int32_t		len;
		}			s;
	};
} TmValue;

/*
 * Result status of evaluation.  TM_OK is 0.  Errors that PostgreSQL itself would raise are reported
 * with the same SQLSTATE and message by the host (see datum_conv.c: tm_raise_status).  TM_ERR_FALLBACK
 * means "themis cannot represent this value exactly" (e.g. a numeric sum beyond 128 bits): the query
 * must run on the kept CPU plan instead.
 */
typedef enum TmStatus
{
	TM_OK = 0,
	TM_ERR_DIV_BY_ZERO,			/* 22012 division by zero */
	TM_ERR_INT2_OUT_OF_RANGE,	/* 22003 smallint out of range */
	TM_ERR_INT4_OUT_OF_RANGE,	/* 22003 integer out of range */
	TM_ERR_INT8_OUT_OF_RANGE,	/* 22003 bigint out of range */
	TM_ERR_FLOAT_OVERFLOW,		/* 22003 value out of range: overflow */
	TM_ERR_FLOAT_UNDERFLOW,		/* 22003 value out of range: underflow */
	TM_ERR_DATE_OUT_OF_RANGE,	/* 22008 date out of range */
	TM_ERR_TIMESTAMP_OUT_OF_RANGE,	/* 22008 timestamp out of range */
	TM_ERR_NUMERIC_OUT_OF_RANGE,	/* 22003 value overflows numeric format */
	TM_ERR_SUBSTRING_NEGATIVE,	/* 22011 negative substring length not allowed */
	TM_ERR_LIKE_ESCAPE,			/* 22025 LIKE pattern must not end with escape character */
	TM_ERR_FALLBACK,			/* not representable by themis: run the CPU plan */
	TM_ERR_INTERNAL				/* bug: malformed bytecode and such */
} TmStatus;

#endif							/* THEMIS_TM_TYPES_H */
