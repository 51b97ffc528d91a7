/*
 * bench/jit/constshape_dev.cuh — device code shared by the two kernels of bench/jit/constshape.cu: the one
 * nvcc compiles into the program (the generic form) and the one NVRTC compiles at run time from the
 * source the program writes (the constant-shape form).  Both read the same columns and end the same way,
 * so that what differs between them is only how a row's values and arguments are computed.
 */
#ifndef THEMIS_BENCH_CONSTSHAPE_DEV_CUH
#define THEMIS_BENCH_CONSTSHAPE_DEV_CUH

#include "themis/tm_expr_eval.h"

#define CS_NCOL		4			/* l_quantity, l_extendedprice, l_discount, l_tax */
#define CS_NAGG		8			/* TPC-H Q1's aggregates: count, 7 numeric sums */
#define CS_TPB		256

typedef struct CsCols
{
	const tm_int128 *num[CS_NCOL];	/* numeric(15,2) values, scaled by 100 */
	long long	n;
} CsCols;

typedef struct CsOut
{
	unsigned long long lo[CS_NAGG];	/* the sums modulo 2^128, as two words */
	unsigned long long hi[CS_NAGG];
	int			err;			/* the first error status seen, 0 if none */
} CsOut;

/* x into the 128-bit word pair (lo, hi) with atomics: a carry out of lo goes into hi */
__device__ __forceinline__ void
cs_add128(unsigned long long *lo, unsigned long long *hi, tm_int128 x)
{
	unsigned long long xl = (unsigned long long) (tm_uint128) x;
	unsigned long long xh = (unsigned long long) ((tm_uint128) x >> 64);
	unsigned long long old = atomicAdd(lo, xl);

	if (old + xl < old)
		xh++;
	atomicAdd(hi, xh);
}

/* every thread's sums into the block's, then the block's into o (all threads of the block call it) */
__device__ __forceinline__ void
cs_flush(const tm_int128 *acc, int err, CsOut *o)
{
	__shared__ unsigned long long slo[CS_NAGG],
				shi[CS_NAGG];

	if (threadIdx.x < CS_NAGG)
		slo[threadIdx.x] = shi[threadIdx.x] = 0;
	__syncthreads();
	for (int a = 0; a < CS_NAGG; a++)
		cs_add128(&slo[a], &shi[a], acc[a]);
	if (err != 0)
		atomicCAS(&o->err, 0, err);
	__syncthreads();
	if (threadIdx.x < CS_NAGG)
		cs_add128(&o->lo[threadIdx.x], &o->hi[threadIdx.x],
				  (tm_int128) (((tm_uint128) shi[threadIdx.x] << 64) | (tm_uint128) slo[threadIdx.x]));
}

#endif							/* THEMIS_BENCH_CONSTSHAPE_DEV_CUH */
