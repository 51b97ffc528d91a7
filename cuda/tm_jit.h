/*
 * tm_jit.h — kernels generated per pipeline and compiled at run time (cuda/tm_jit.cu), for the executor
 * (cuda/tm_gpu_exec.cu, C++).
 *
 * pipeline_kernel reads its pipeline's shape (which slots, which tests, which aggregates) from memory at
 * every row: loops over descriptors, an interpreter for arithmetic, a slot array in local memory.  For a
 * pipeline of the shape below, tm_jit_source writes a kernel that has that shape in its code: each slot
 * a variable, each test and each aggregate's arithmetic a line, each aggregate's update the same device
 * functions pipeline_kernel calls (agg_apply, priv_warp_combine, group_find, ...) with constant kinds and
 * modes.  The kernel takes pipeline_kernel's arguments (the DPipe, the DRun, a row limit), so it is a
 * drop-in for one pass; what changes from run to run (column addresses, parameters, text constants,
 * aggregate states) it reads from them as pipeline_kernel does, so one compiled kernel serves every run
 * of the same shape.  NVRTC compiles it in a background thread (tm_jit_kernel); until it is loaded, or
 * where compiling fails, pipeline_kernel runs.
 *
 * The shape (anything else: no generated kernel, tm_jit_source says why):
 *   - the sink is an AGG;
 *   - ops are FILTERs and INNER, SEMI or ANTI probes (no LEFT) whose keys are bare slots; every qual
 *     (a FILTER's, a probe's residual) has a whole DFastQual (no interpreter);
 *   - group keys are bare slots;
 *   - aggregates: count(*), or count / sum / min / max in the atomic modes (AM_COUNT, AM_SUM_I64,
 *     AM_SUM_I192, AM_MINMAX_INT) of a bare slot or a TmFastArith; a FILTER a whole DFastQual or a bare
 *     slot; no DISTINCT, no any().
 */
#ifndef THEMIS_TM_JIT_H
#define THEMIS_TM_JIT_H

#include <stddef.h>

struct DPipe;

/* where a pipeline's generated kernel stands (TmGpuPipelineStats.jit) */
enum TmJitState
{
	TM_JIT_OFF = 0,				/* not asked for (themis.gpu_jit = off) */
	TM_JIT_RAN,					/* the generated kernel ran the pipeline */
	TM_JIT_COMPILING,			/* pipeline_kernel ran: the generated one was being compiled */
	TM_JIT_NOT_ELIGIBLE,		/* pipeline_kernel ran: the pipeline has not the shape above */
	TM_JIT_FAILED,				/* pipeline_kernel ran: compiling or loading the generated one failed */
	TM_JIT_UNAVAILABLE			/* pipeline_kernel ran: no NVRTC (libnvrtc, the CUDA headers) here */
};

/* the host copy of the device object at dev in a pipeline's image (arg: the caller's image) */
typedef const void *(*TmJitHostFn) (const void *dev, void *arg);

/*
 * The source of the kernel for pipeline P (the host copy of its DPipe; its device pointers are read
 * through host), malloc'd into *src; false, with why, where P has not the shape.
 */
extern bool tm_jit_source(const DPipe *P, TmJitHostFn host, void *arg, char **src, char *why, size_t whylen);

/* the name of the kernel tm_jit_source writes */
#define TM_JIT_KERNEL_NAME "tm_jit_pipeline"

/*
 * The generated kernel of source src for device dev (the current device of the calling thread), with
 * smem_max bytes of dynamic shared memory allowed: TM_JIT_RAN and *fn where it is loaded;
 * TM_JIT_COMPILING where it is being compiled (the first call for src starts that, in the background;
 * wait: the call waits for it and loads it); TM_JIT_FAILED or TM_JIT_UNAVAILABLE (why) where there will
 * be none.  Thread-safe; kernels stay loaded until the process ends (one per shape).
 */
extern int	tm_jit_kernel(const char *src, int dev, size_t smem_max, bool wait, const void **fn,
						  char *why, size_t whylen);

/* NVRTC's time of the compile of src (ms; 0 if none was made), for EXPLAIN and the benchmarks */
extern double tm_jit_compile_ms(const char *src);

/*
 * src compiled for sm_<arch> and nothing more (no device needed: tests): 1 if it compiles, 0 if not (why:
 * NVRTC's log), -1 if there is no NVRTC here (why); *ms: NVRTC's time
 */
extern int	tm_jit_compile_check(const char *src, int arch, double *ms, char *why, size_t whylen);

#endif							/* THEMIS_TM_JIT_H */
