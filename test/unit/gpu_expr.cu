/*
 * gpu_expr.cu — runs every interpreter case of test_expr.c on the GPU as well and checks that the device
 * gives the same status, null flag and value as the host (floats bit for bit, NaNs alike; text by
 * content).  Also compares tm_hash_value / tm_values_equal / tm_values_cmp / tm_sum_add on both.
 *
 *   nvcc -std=c++17 --fmad=false -arch=sm_90 -Iinclude -Itest/unit test/unit/gpu_expr.cu -o gpu_expr
 */
#define TM_EXPR_TEST_DEVICE 1
#include "test_expr.c"

#include <cuda_runtime.h>

static int	device_mismatches = 0;

__global__ void
eval_kernel(const TmExpr *e, const TmValue *slots, const bool *nulls, TmValue *res, bool *isnull, int *st)
{
	*st = (int) tm_eval(e, slots, nulls, res, isnull);
}

#define CUDA_OK(x) \
	do { \
		cudaError_t err_ = (x); \
		if (err_ != cudaSuccess) \
		{ \
			printf("CUDA error %s at %s:%d\n", cudaGetErrorString(err_), __FILE__, __LINE__); \
			exit(2); \
		} \
	} while (0)

/* slots 0..7: text slots are copied to device memory, the other values as they are */
static void
device_check(const TmExpr *e, TmStatus hst, bool hnull, const TmValue *hres)
{
	char	   *d_block;
	size_t		textbytes = 0;
	size_t		off;
	int			i;
	TmValue		dslots[8];
	TmValue		dres;
	bool		dnull = false;
	int			dst = -1;
	char	   *d_e;
	TmValue    *d_slots;
	bool	   *d_nulls;
	TmValue    *d_res;
	bool	   *d_isnull;
	int		   *d_st;
	bool		same;

	for (i = 0; i < 8; i++)
		if (ST[i] && !SN[i])
			textbytes += S[i].s.len + 1;
	CUDA_OK(cudaMalloc(&d_block, e->total_size + textbytes + 16 * 8 + 64));
	d_e = d_block;
	CUDA_OK(cudaMemcpy(d_e, e, e->total_size, cudaMemcpyHostToDevice));
	off = e->total_size;
	memcpy(dslots, S, sizeof(dslots));
	for (i = 0; i < 8; i++)
		if (ST[i] && !SN[i])
		{
			CUDA_OK(cudaMemcpy(d_block + off, S[i].s.p, S[i].s.len, cudaMemcpyHostToDevice));
			dslots[i].s.p = d_block + off;
			off += S[i].s.len + 1;
		}
	off = (off + 15) & ~(size_t) 15;
	d_slots = (TmValue *) (d_block + off);
	CUDA_OK(cudaMemcpy(d_slots, dslots, sizeof(dslots), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMalloc(&d_nulls, 8));
	CUDA_OK(cudaMemcpy(d_nulls, SN, 8, cudaMemcpyHostToDevice));
	CUDA_OK(cudaMalloc(&d_res, sizeof(TmValue)));
	CUDA_OK(cudaMalloc(&d_isnull, sizeof(bool)));
	CUDA_OK(cudaMalloc(&d_st, sizeof(int)));
	CUDA_OK(cudaMemset(d_res, 0, sizeof(TmValue)));
	eval_kernel<<<1, 1>>>((const TmExpr *) d_e, d_slots, d_nulls, d_res, d_isnull, d_st);
	CUDA_OK(cudaGetLastError());
	CUDA_OK(cudaDeviceSynchronize());
	CUDA_OK(cudaMemcpy(&dres, d_res, sizeof(TmValue), cudaMemcpyDeviceToHost));
	CUDA_OK(cudaMemcpy(&dnull, d_isnull, sizeof(bool), cudaMemcpyDeviceToHost));
	CUDA_OK(cudaMemcpy(&dst, d_st, sizeof(int), cudaMemcpyDeviceToHost));

	same = (dst == (int) hst);
	if (same && hst == TM_OK)
	{
		same = (dnull == hnull);
		if (same && !hnull)
		{
			const char *dp = dres.s.p;

			if (dp >= d_block && dp < d_block + off)
			{
				/* text result: compare the bytes it points at */
				char		buf[256];

				same = (dres.s.len == hres->s.len && dres.s.len < (int) sizeof(buf));
				if (same && dres.s.len > 0)
				{
					CUDA_OK(cudaMemcpy(buf, dp, dres.s.len, cudaMemcpyDeviceToHost));
					same = memcmp(buf, hres->s.p, dres.s.len) == 0;
				}
			}
			else
				same = (memcmp(&dres, hres, sizeof(TmValue)) == 0 ||
						(isnan(dres.f) && isnan(hres->f)));
		}
	}
	if (!same)
		device_mismatches++;
	TM_CHECK_MSG(same, "device differs from host: status %d/%d null %d/%d value %lld/%lld (%s)",
				 dst, (int) hst, (int) dnull, (int) hnull, (long long) dres.i, (long long) hres->i,
				 tm_unit_current);
	cudaFree(d_block);
	cudaFree(d_nulls);
	cudaFree(d_res);
	cudaFree(d_isnull);
	cudaFree(d_st);
}

__global__ void
hash_kernel(const TmValue *v, const TmType *t, int n, uint64_t *h, int *eq, int *cmp, TmValue *acc, int *sst)
{
	int			i;
	bool		accnull = true;

	for (i = 0; i < n; i++)
	{
		h[i] = tm_hash_value(&v[i], &t[i]);
		eq[i] = i > 0 && t[i].kind == t[i - 1].kind ? tm_values_equal(&v[i], &v[i - 1], &t[i]) : -1;
		cmp[i] = i > 0 && t[i].kind == t[i - 1].kind ? tm_values_cmp(&v[i], &v[i - 1], &t[i]) : -9;
	}
	/* float4 sum in single precision, then float8 overflow */
	{
		TmType		f4 = {TM_K_FLOAT4, 0, -1, 700, 0};
		TmValue		x;

		x.f = 16777216.0;
		sst[0] = tm_sum_add(&acc[0], &accnull, &x, &f4, &f4);
		x.f = 1.0;
		sst[1] = tm_sum_add(&acc[0], &accnull, &x, &f4, &f4);
	}
}

/* tm_hash_value / tm_values_equal / tm_values_cmp / tm_sum_add: same answers on the device */
static void
gpu_hash_checks(void)
{
	enum { N = 16 };
	TmValue		v[N];
	TmType		t[N];
	uint64_t	h[N], dh[N];
	int			eq[N], deq[N], cmp[N], dcmp[N];
	int			i;
	TmValue    *d_v;
	TmType	   *d_t;
	uint64_t   *d_h;
	int		   *d_eq, *d_cmp, *d_sst;
	TmValue    *d_acc;
	TmValue		acc;
	int			sst[2];
	static const char *texts[] = {"AIR   ", "AIR", "special requests, carefully", "special requests, carefullz"};
	char	   *d_text;
	double		nan2;
	uint64_t	bits = UINT64_C(0xfff8000000000123);

	memcpy(&nan2, &bits, sizeof(nan2));
	memset(v, 0, sizeof(v));
	memset(t, 0, sizeof(t));
	for (i = 0; i < N; i++)
		t[i].typmod = -1;
	t[0].kind = TM_K_INT8; v[0].i = 42;
	t[1].kind = TM_K_INT8; v[1].i = -42;
	t[2].kind = TM_K_FLOAT8; v[2].f = 0.0;
	t[3].kind = TM_K_FLOAT8; v[3].f = -0.0;
	t[4].kind = TM_K_FLOAT8; v[4].f = NAN;
	t[5].kind = TM_K_FLOAT8; v[5].f = nan2;
	t[6].kind = TM_K_FLOAT8; v[6].f = 1e308;
	t[7].kind = TM_K_NUMERIC; v[7].n = (tm_int128) INT64_C(123456789012345678) * 1000;
	t[8].kind = TM_K_NUMERIC; v[8].n = -v[7].n;
	t[9].kind = TM_K_DATE; v[9].i = -3000;
	t[10].kind = TM_K_BPCHAR;
	t[11].kind = TM_K_BPCHAR;
	t[12].kind = TM_K_TEXT;
	t[13].kind = TM_K_TEXT;
	t[14].kind = TM_K_FLOAT4; v[14].f = (double) 0.1f;
	t[15].kind = TM_K_FLOAT4; v[15].f = (double) -0.0f;

	CUDA_OK(cudaMalloc(&d_text, 256));
	{
		size_t		off = 0;
		int			k;

		for (k = 0; k < 4; k++)
		{
			size_t		len = strlen(texts[k]);

			CUDA_OK(cudaMemcpy(d_text + off, texts[k], len, cudaMemcpyHostToDevice));
			v[10 + k].s.len = (int32_t) len;
			v[10 + k].s.p = d_text + off;		/* device pointers for the kernel */
			off += len;
		}
	}
	CUDA_OK(cudaMalloc(&d_v, sizeof(v)));
	CUDA_OK(cudaMalloc(&d_t, sizeof(t)));
	CUDA_OK(cudaMalloc(&d_h, sizeof(h)));
	CUDA_OK(cudaMalloc(&d_eq, sizeof(eq)));
	CUDA_OK(cudaMalloc(&d_cmp, sizeof(cmp)));
	CUDA_OK(cudaMalloc(&d_sst, sizeof(sst)));
	CUDA_OK(cudaMalloc(&d_acc, sizeof(TmValue)));
	CUDA_OK(cudaMemcpy(d_v, v, sizeof(v), cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(d_t, t, sizeof(t), cudaMemcpyHostToDevice));
	hash_kernel<<<1, 1>>>(d_v, d_t, N, d_h, d_eq, d_cmp, d_acc, d_sst);
	CUDA_OK(cudaGetLastError());
	CUDA_OK(cudaDeviceSynchronize());
	CUDA_OK(cudaMemcpy(dh, d_h, sizeof(dh), cudaMemcpyDeviceToHost));
	CUDA_OK(cudaMemcpy(deq, d_eq, sizeof(deq), cudaMemcpyDeviceToHost));
	CUDA_OK(cudaMemcpy(dcmp, d_cmp, sizeof(dcmp), cudaMemcpyDeviceToHost));
	CUDA_OK(cudaMemcpy(&acc, d_acc, sizeof(acc), cudaMemcpyDeviceToHost));
	CUDA_OK(cudaMemcpy(sst, d_sst, sizeof(sst), cudaMemcpyDeviceToHost));
	for (i = 0; i < 4; i++)
		v[10 + i].s.p = texts[i];		/* host pointers for the host side */
	for (i = 0; i < N; i++)
	{
		h[i] = tm_hash_value(&v[i], &t[i]);
		eq[i] = i > 0 && t[i].kind == t[i - 1].kind ? tm_values_equal(&v[i], &v[i - 1], &t[i]) : -1;
		cmp[i] = i > 0 && t[i].kind == t[i - 1].kind ? tm_values_cmp(&v[i], &v[i - 1], &t[i]) : -9;
		TM_CHECK_MSG(h[i] == dh[i], "hash of value %d: host %llx device %llx", i,
					 (unsigned long long) h[i], (unsigned long long) dh[i]);
		TM_CHECK_MSG(eq[i] == deq[i], "equality of value %d: host %d device %d", i, eq[i], deq[i]);
		TM_CHECK_MSG(cmp[i] == dcmp[i], "order of value %d: host %d device %d", i, cmp[i], dcmp[i]);
	}
	TM_CHECK(h[2] == h[3] && h[4] == h[5] && h[10] == h[11] && h[14] != h[15]);
	TM_CHECK(sst[0] == TM_OK && sst[1] == TM_OK && acc.f == 16777216.0);
	cudaFree(d_text);
	cudaFree(d_v);
	cudaFree(d_t);
	cudaFree(d_h);
	cudaFree(d_eq);
	cudaFree(d_cmp);
	cudaFree(d_sst);
	cudaFree(d_acc);
}
