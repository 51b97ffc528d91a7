/*
 * tm_eval_kernel.cu — evaluates one themis expression (TmExpr bytecode) on N rows on the GPU.
 *
 * This is the first kernel of themis: it runs the same interpreter as the CPU executor
 * (themis/tm_expr_eval.h, compiled here for the device) and so proves that the host/device headers
 * build under nvcc and give the same answers on both sides (test/unit/gpu_*.cu compare them).  The
 * pipeline kernels (NIFS/AWS) will evaluate expressions the same way.
 *
 * Built only when include/themis/tm_expr_eval.h and tm_hash.h exist (see the Makefile).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "themis/tm_types.h"
#include "themis/tm_expr.h"
#include "themis/tm_expr_eval.h"
#include "themis/tm_hash.h"
#include "tm_cuda.h"

/* slots per row this kernel accepts (a row's slots live in thread-local memory) */
#define TM_EVAL_MAX_SLOTS 32

static void
set_cuda_err(char *err, int errlen, const char *what, cudaError_t rc)
{
	if (err != NULL && errlen > 0)
		snprintf(err, (size_t) errlen, "%s: %s (%s)", what, cudaGetErrorString(rc), cudaGetErrorName(rc));
}

/* every CUDA call is checked: on failure, set err and leave through "fail" */
#define TM_CUDA_CHECK(call) \
	do { \
		cudaError_t tm_rc_ = (call); \
		if (tm_rc_ != cudaSuccess) \
		{ \
			set_cuda_err(err, errlen, #call, tm_rc_); \
			goto fail; \
		} \
	} while (0)

/*
 * One thread per row (grid-stride loop).  Slot s of row r: in[s * nrows + r], NULL if
 * innull != NULL && innull[s * nrows + r].  hash (if not NULL): tm_hash_value of each non-NULL result
 * (0 for NULL results and errors), as a hash join or grouping would hash it.
 */
__global__ void
tm_eval_expr_kernel(const TmExpr *e, const TmValue *in, const uint8_t *innull, int nslots, int64_t nrows,
					TmValue *out, uint8_t *outnull, int32_t *status, uint64_t *hash)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;

	for (int64_t r = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; r < nrows; r += stride)
	{
		TmValue		slots[TM_EVAL_MAX_SLOTS];
		bool		nulls[TM_EVAL_MAX_SLOTS];
		TmValue		res;
		bool		isnull = true;
		TmStatus	st;

		for (int s = 0; s < nslots; s++)
		{
			slots[s] = in[(int64_t) s * nrows + r];
			nulls[s] = innull != NULL && innull[(int64_t) s * nrows + r] != 0;
		}
		res.n = 0;
		st = tm_eval(e, slots, nulls, &res, &isnull);
		out[r] = res;
		outnull[r] = isnull ? 1 : 0;
		status[r] = (int32_t) st;
		if (hash != NULL)
			hash[r] = (st == TM_OK && !isnull) ? tm_hash_value(&res, &e->result) : 0;
	}
}

extern "C" int
tm_cuda_eval_expr(int dev, const TmExpr *expr,
				  const TmValue *in, const uint8_t *innull, int nslots, int64_t nrows,
				  TmValue *out, uint8_t *outnull, int32_t *status, uint64_t *hash,
				  char *err, int errlen)
{
	TmExpr	   *d_expr = NULL;
	TmValue    *d_in = NULL;
	uint8_t    *d_innull = NULL;
	TmValue    *d_out = NULL;
	uint8_t    *d_outnull = NULL;
	int32_t    *d_status = NULL;
	uint64_t   *d_hash = NULL;
	int		   *depth = NULL;
	size_t		in_bytes = 0;
	int			threads = 256;
	int			blocks = 0;
	int			rc = -1;
	bool		ok;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (expr == NULL || nslots < 0 || nslots > TM_EVAL_MAX_SLOTS || nrows < 0)
	{
		if (err != NULL && errlen > 0)
			snprintf(err, (size_t) errlen, "tm_cuda_eval_expr: bad arguments (nslots %d, at most %d)",
					 nslots, TM_EVAL_MAX_SLOTS);
		return -1;
	}

	/* never ship malformed bytecode to the device */
	depth = (int *) malloc(sizeof(int) * ((size_t) expr->ninstr + 1));
	if (depth == NULL)
	{
		if (err != NULL && errlen > 0)
			snprintf(err, (size_t) errlen, "tm_cuda_eval_expr: out of memory");
		return -1;
	}
	ok = expr->ninstr >= 1 && tm_expr_validate(expr, nslots, depth);
	free(depth);
	if (!ok)
	{
		if (err != NULL && errlen > 0)
			snprintf(err, (size_t) errlen, "tm_cuda_eval_expr: malformed expression");
		return -1;
	}
	if (nrows == 0)
		return 0;

	TM_CUDA_CHECK(cudaSetDevice(dev));

	in_bytes = sizeof(TmValue) * (size_t) nslots * (size_t) nrows;
	TM_CUDA_CHECK(cudaMalloc((void **) &d_expr, (size_t) expr->total_size));
	TM_CUDA_CHECK(cudaMemcpy(d_expr, expr, (size_t) expr->total_size, cudaMemcpyHostToDevice));
	if (nslots > 0)
	{
		TM_CUDA_CHECK(cudaMalloc((void **) &d_in, in_bytes));
		TM_CUDA_CHECK(cudaMemcpy(d_in, in, in_bytes, cudaMemcpyHostToDevice));
		if (innull != NULL)
		{
			TM_CUDA_CHECK(cudaMalloc((void **) &d_innull, (size_t) nslots * (size_t) nrows));
			TM_CUDA_CHECK(cudaMemcpy(d_innull, innull, (size_t) nslots * (size_t) nrows,
									 cudaMemcpyHostToDevice));
		}
	}
	TM_CUDA_CHECK(cudaMalloc((void **) &d_out, sizeof(TmValue) * (size_t) nrows));
	TM_CUDA_CHECK(cudaMalloc((void **) &d_outnull, (size_t) nrows));
	TM_CUDA_CHECK(cudaMalloc((void **) &d_status, sizeof(int32_t) * (size_t) nrows));
	if (hash != NULL)
		TM_CUDA_CHECK(cudaMalloc((void **) &d_hash, sizeof(uint64_t) * (size_t) nrows));

	blocks = (int) ((nrows + threads - 1) / threads);
	if (blocks > 65535)
		blocks = 65535;
	tm_eval_expr_kernel<<<blocks, threads>>>(d_expr, d_in, d_innull, nslots, nrows,
											 d_out, d_outnull, d_status, d_hash);
	TM_CUDA_CHECK(cudaGetLastError());
	TM_CUDA_CHECK(cudaDeviceSynchronize());

	TM_CUDA_CHECK(cudaMemcpy(out, d_out, sizeof(TmValue) * (size_t) nrows, cudaMemcpyDeviceToHost));
	TM_CUDA_CHECK(cudaMemcpy(outnull, d_outnull, (size_t) nrows, cudaMemcpyDeviceToHost));
	TM_CUDA_CHECK(cudaMemcpy(status, d_status, sizeof(int32_t) * (size_t) nrows, cudaMemcpyDeviceToHost));
	if (hash != NULL)
		TM_CUDA_CHECK(cudaMemcpy(hash, d_hash, sizeof(uint64_t) * (size_t) nrows, cudaMemcpyDeviceToHost));
	rc = 0;

fail:
	/* free what was allocated; report only the first error */
	{
		void	   *bufs[] = {d_expr, d_in, d_innull, d_out, d_outnull, d_status, d_hash};

		for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		{
			if (bufs[i] != NULL)
			{
				cudaError_t frc = cudaFree(bufs[i]);

				if (frc != cudaSuccess && rc == 0)
				{
					set_cuda_err(err, errlen, "cudaFree", frc);
					rc = -1;
				}
			}
		}
	}
	if (rc != 0)
		(void) cudaGetLastError();	/* clear a non-sticky error for the next caller */
	return rc;
}
