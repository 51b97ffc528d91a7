/*
 * tm_cuda.h — the C interface of themis's CUDA code (the .cu files of cuda/, compiled by nvcc), for the
 * host side (the .c files of src/, compiled by gcc) and for test programs.
 *
 * Every function here is extern "C", never throws, checks every CUDA call it makes, and reports failure
 * as a negative return value plus a NUL-terminated message in err[errlen].  None of them creates a CUDA
 * context unless it says so.
 *
 * These symbols exist only in a build with CUDA (src/device.c is compiled with THEMIS_NO_CUDA otherwise).
 */
#ifndef THEMIS_TM_CUDA_H
#define THEMIS_TM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "themis/tm_types.h"
#include "themis/tm_expr.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* ---- cuda/tm_device.cu ---- */

/*
 * Number of CUDA devices (>= 0), or -1 with err set (no NVIDIA driver, driver too old for this CUDA
 * runtime, no permission on /dev/nvidia*, ...).  Loads the driver (cuInit) but creates no context.
 */
extern int	tm_cuda_device_count(char *err, int errlen);

typedef struct TmCudaDeviceInfo
{
	char		name[256];
	int			cc_major;			/* compute capability */
	int			cc_minor;
	int			multiprocessors;
	size_t		total_mem;			/* bytes */
	int			usable;				/* 1 if themis's kernels can run on it (see tm_cuda_min_sm) */
} TmCudaDeviceInfo;

/* Properties of device dev: 0, or -1 with err set.  Creates no context. */
extern int	tm_cuda_device_info(int dev, TmCudaDeviceInfo *info, char *err, int errlen);

/* CUDA runtime version themis was built with and driver version found (e.g. 13000), 0 if unknown. */
extern void tm_cuda_versions(int *runtime_version, int *driver_version);

/* Lowest SM version (e.g. 80) with code in this build: older devices cannot run themis's kernels. */
extern int	tm_cuda_min_sm(void);

/* The SM versions this build has code for, e.g. "sm_80 sm_90" (static string). */
extern const char *tm_cuda_arch_list(void);

/* ---- cuda/tm_eval_kernel.cu ---- */

/*
 * Evaluate expression expr (a TmExpr block of expr->total_size bytes, host memory) on nrows rows, on
 * device dev.  Input: nslots slot columns, column-major: slot s of row r is in[s * nrows + r], its NULL
 * flag innull[s * nrows + r] (innull may be NULL: no NULLs).  Text slots are not supported here (their
 * bytes would have to be copied too): the caller passes only fixed-width kinds.  Output: out[r],
 * outnull[r] and status[r] (TmStatus) per row, and if hash is not NULL, hash[r] = tm_hash_value() of
 * the result (tm_hash.h; 0 for NULL or error), host memory.  Creates a context on dev (this is a test
 * and demonstration entry point; the executor will use the daemon's context).
 * Returns 0, or -1 with err set on a CUDA failure or a malformed expression (tm_expr_validate).
 */
extern int	tm_cuda_eval_expr(int dev, const TmExpr *expr,
							  const TmValue *in, const uint8_t *innull, int nslots, int64_t nrows,
							  TmValue *out, uint8_t *outnull, int32_t *status, uint64_t *hash,
							  char *err, int errlen);

#ifdef __cplusplus
}
#endif

#endif							/* THEMIS_TM_CUDA_H */
