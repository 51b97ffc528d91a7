/*
 * tm_gpu_exec.h — C interface of the GPU executor of a themis plan (cuda/tm_gpu_exec.cu).
 *
 * The GPU executor runs every pipeline of a TmPlan (themis/tm_ir.h) on one CUDA device, with the same
 * semantics as the CPU executor (src/cpu_exec.c, the reference): the same bytecode interpreter
 * (tm_expr_eval.h), the same hashing and equality (tm_hash.h), the same join / NULL rules.  It is
 * independent of PostgreSQL: the caller hands it host columns (or device-resident ones, see below), it
 * hands back host columns.  Two schedulers run a pipeline (tm_gpu_pool_set_load_balance): the plain one
 * (TM_GPU_LB_NONE, the default: one thread per source row walks that row's evaluation tree depth-first)
 * and the Themis one (TM_GPU_LB_NIFS / TM_GPU_LB_NIFS_AWS: warps traverse the evaluation trees level by
 * level with No-Imbalance-First-Search, and with Adaptive Work Sharing across warps; see the comment
 * above nifs_kernel in tm_gpu_exec.cu).  They compute the same results; what differs is said below.
 *
 * Column layout (host and device alike), by TmKind of the column:
 *
 *   TM_K_BOOL                 uint8_t    0 / 1
 *   TM_K_INT2                 int16_t
 *   TM_K_INT4, TM_K_DATE      int32_t    (date: PostgreSQL DateADT)
 *   TM_K_INT8, TM_K_TIMESTAMP int64_t    (timestamp: PostgreSQL Timestamp)
 *   TM_K_FLOAT4               float
 *   TM_K_FLOAT8               double
 *   TM_K_NUMERIC              16 bytes per value: value * 10^scale as a two's complement 128-bit integer,
 *                             little endian (an array of tm_int128, or of int64_t pairs low, high)
 *   TM_K_TEXT, TM_K_BPCHAR    data = the bytes of all values, offsets = nrows + 1 int64_t: value r is
 *                             data[offsets[r] .. offsets[r + 1])  (bpchar: as stored, blank padded)
 *
 *   nulls: NULL (no NULLs in the column) or nrows bytes, 1 = NULL.  The value of a NULL row is ignored
 *   (it must still be a valid offset pair for text).
 *
 * Inputs: inputs[p] is the source of pipeline p when it reads a TABLE or a SUBPLAN (the caller has read
 * the rows); its columns are the pipeline's source columns (TmPipeline.nsrccols, slot .col indexes
 * them).  Pipelines with a RESULT source read the device copy of an earlier result; their inputs[p] is
 * ignored.  The output is plan->output_result, copied back in the same layout (always with a nulls
 * array, always in host memory).
 *
 * Device-resident inputs (TmGpuTable.on_device = 1, e.g. a daemon's column cache): data, offsets and
 * nulls of the table's columns are device pointers valid in the pool's CUDA context (memory of the
 * pool's device, or managed / mapped memory), read in place: nothing is uploaded and they are not
 * written.  They must stay valid and unchanged until tm_gpu_execute returns, and hold the same layout as
 * above; fixed-width data must be aligned to its value width (8 for numeric), offsets to 8.  The
 * executor does not read their contents on the host, so it cannot check text offsets: they must be
 * non-decreasing within the data (data may be NULL only if every value is empty).  Work is ordered on
 * the pool's stream (tm_gpu_pool_stream): copies the caller queues on that stream before the call are
 * complete before any kernel reads them; copies on other streams must be synchronized by the caller.
 * The other columns of the table (not read by the plan) are ignored.  A host pointer passed as a
 * device one is refused (TM_GPU_ERR_BAD_PLAN) where CUDA can tell (cudaPointerGetAttributes).
 * on_device = 0 (the default of a zeroed struct): host memory, uploaded to the pool.
 *
 * Device memory: one pool per device (tm_gpu_pool_create: the only cudaMalloc), a bump allocator that
 * each tm_gpu_execute starts from empty.  If the pool is too small the call fails with TM_GPU_ERR_NOMEM
 * (and says how much more it needed); nothing else is allocated on the device.
 *
 * Chunks: a pipeline whose source is a host input (TABLE / SUBPLAN, on_device = 0) that does not fit the
 * pool space left (after what earlier pipelines keep: hash tables, results) runs over row chunks of its
 * source: each chunk is uploaded into the top end of the pool, the pipeline's kernels run over it, and its
 * space is reused by the next chunk; the sink accumulates across chunks.  The chunk size follows from the
 * free space and the bytes per row of the columns the pipeline reads (text: the chunk's actual bytes).
 * The outcome is the one of an unchunked run: EMIT rows in the same order (TM_GPU_LB_NIFS*: the same
 * rows), the same hash table rows, the same groups; an expression error reports its source row number;
 * stats add up over the chunks.  Text values of what the sink keeps (EMIT / build rows, group keys, min /
 * max states, DISTINCT values) that point into a chunk's bytes are copied into pool memory that outlives
 * the chunk.  Costs of chunking: EMIT and HASH_BUILD read their source twice (a counting sweep sizes the
 * output first); an AGG whose group table or DISTINCT set overflows in a chunk starts over from the first
 * chunk with a larger one (also when a chunk's copies of text values do not fit: with smaller chunks).  If
 * not even one source row fits, the call fails with TM_GPU_ERR_NOMEM.  A pipeline whose input fits is run
 * whole as before (if it then runs out of pool memory in its sink, it is run again over chunks).  Device-
 * resident inputs (on_device = 1) are never chunked.
 *
 * Every function is extern "C", never throws or aborts, checks every CUDA call it makes and reports
 * failure as a negative TmGpuRc plus a NUL-terminated message in err[errlen].  A pool is used by one
 * host thread at a time (except tm_gpu_pool_cancel, which any thread may call at any time).
 *
 * Cancel: tm_gpu_pool_cancel(pool) stops the pool's running tm_gpu_execute, if any, and every later one
 * until tm_gpu_pool_clear_cancel(pool).  It is one store into a word of mapped pinned host memory
 * (cudaHostAllocMapped), which the pipeline kernels read while they run: each thread of the plain
 * executor at most every ~35 ms of its SM clock, between the steps of its walk (a row's match loop
 * included); with NIFS / AWS, lane 0 of each busy warp at the start of an iteration, as often.  A kernel
 * that sees it leaves early and stops the others (as an expression error does: idle AWS warps leave
 * their wait too); the host checks the word before and after every pass (so between chunks and
 * pipelines too) and at the end, and the call fails with TM_GPU_ERR_CANCELED ("canceled"): a result is
 * never returned from a canceled call, however far it got.  Short kernels (hash-table grouping, CUB
 * sorts and scans, aggregate finalization, output conversion) are not interrupted.  The pool is then
 * usable at once: its memory is a bump allocator that every call starts from empty, and a kernel that
 * left early left no CUDA error.
 *
 * Supported: FILTER; PROBE inner / semi / anti / left with residual quals (NULL keys never match);
 * sinks HASH_BUILD, AGG (count(*), count, sum, min, max, also DISTINCT, with FILTER clauses; group keys
 * may be NULL and group together; no group keys: exactly one group) and EMIT (several EMITs into one
 * result append); parameters (level -1 slots).  DISTINCT aggregates as the CPU executor: over the
 * distinct non-NULL argument values of the group (that pass the FILTER), equal as PostgreSQL's equality
 * (tm_values_equal: floats -0 = 0, NaN = NaN; bpchar without trailing blanks; text by bytes); min / max
 * (DISTINCT x) are min / max (x), and the flag is ignored on count(*), as by the CPU executor.
 * Refused with TM_GPU_ERR_UNSUPPORTED: more than TM_GPU_MAX_SLOTS slots / TM_GPU_MAX_OPS ops /
 * TM_GPU_MAX_KEYS keys, sources of 2^31 rows or more, build sides of TM_GPU_MAX_BUILD_ROWS rows or more.
 *
 * Differences from the CPU executor that are not bugs: rows of the output come in another order (EMIT
 * keeps source order within a pipeline with TM_GPU_LB_NONE, but comes in no particular order with
 * TM_GPU_LB_NIFS / _AWS or where the partitioned join runs (tm_gpu_pool_set_join_algorithm), and so do
 * the rows of a key in a built hash table; groups of an AGG come in no
 * particular order), sums of floats add in another order, a numeric / int8 sum is exact as long as the
 * final sum fits 128 bits (the CPU falls back when a partial sum overflows), and when several rows raise
 * different errors, the one reported may differ.  sum(DISTINCT x) of floats: of values equal under
 * PostgreSQL's equality (-0 and 0), which one is summed depends on the row order (the CPU takes the first
 * one in source order), so a sum of only zeros may come out as -0 or 0.
 */
#ifndef THEMIS_TM_GPU_EXEC_H
#define THEMIS_TM_GPU_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "themis/tm_types.h"
#include "themis/tm_ir.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* limits of this version (per pipeline) */
#define TM_GPU_MAX_SLOTS		64
#define TM_GPU_MAX_OPS			16
#define TM_GPU_MAX_KEYS			16
#define TM_GPU_MAX_BUILD_ROWS	(INT32_C(1) << 29)

typedef enum TmGpuRc
{
	TM_GPU_OK = 0,
	TM_GPU_ERR_CUDA = -1,			/* a CUDA call failed (err says which and why) */
	TM_GPU_ERR_NOMEM = -2,			/* the device pool is too small for this plan */
	TM_GPU_ERR_HOST_NOMEM = -3,		/* malloc failed */
	TM_GPU_ERR_UNSUPPORTED = -4,	/* the plan uses what this executor cannot run yet: run it on the CPU */
	TM_GPU_ERR_BAD_PLAN = -5,		/* malformed plan or inputs (a bug of the caller) */
	TM_GPU_ERR_EXPR = -6,			/* an expression raised an error: TmGpuFailure.status says which
									 * (TM_ERR_FALLBACK: not representable, run the CPU plan) */
	TM_GPU_ERR_CANCELED = -7		/* the pool was canceled (tm_gpu_pool_cancel): no result */
} TmGpuRc;

/* a column in the layout above */
typedef struct TmGpuColumn
{
	int16_t		kind;			/* TmKind */
	void	   *data;
	int64_t    *offsets;		/* text kinds only */
	uint8_t    *nulls;			/* NULL or nrows bytes, 1 = NULL */
} TmGpuColumn;

typedef struct TmGpuTable
{
	int32_t		ncols;
	int64_t		nrows;
	TmGpuColumn *cols;			/* the array itself is host memory */
	int32_t		on_device;		/* inputs only: 0 = the columns' data / offsets / nulls are host memory,
								 * 1 = device pointers (see "Device-resident inputs" above) */
} TmGpuTable;

/*
 * per pipeline, as TmPipelineStats of the CPU executor (first four fields), then the load-balance
 * figures of the Themis scheduler (all 0 with TM_GPU_LB_NONE).  They add up over every pass of the
 * pipeline's kernel (the COUNT pass of EMIT / HASH_BUILD / AGG after a join, the RUN pass, passes over
 * chunks, passes redone after a table overflow).
 */
#define TM_GPU_PROBE_ORDER_OPS	16	/* TM_PROBE_ORDER_MAX_OPS (themis/tm_probe_order.h) */

typedef struct TmGpuPipelineStats
{
	int64_t		source_rows;	/* rows of the source (over chunks too, however often read) */
	int64_t		sink_rows;		/* rows that reached the sink (HASH_BUILD: not counting NULL keys) */
	int64_t		out_rows;		/* hash table rows, groups, or emitted rows */
	double		time_ms;		/* wall clock, uploads and copies included */
	double		idle_ratio;		/* idle lanes per warp iteration / 32, averaged over all iterations */
	double		imbalance;		/* busiest warp's busy cycles / the average warp's (clock64), over
								 * passes: sum of the maxima / sum of the averages; >= 1 */
	int64_t		warp_iterations;	/* warp iterations (each takes up to 32 tuples of one level) */
	int64_t		handoffs;		/* work hand-offs from a busy warp to an idle one (NIFS_AWS) */
	/* the partitioned join (tm_gpu_pool_set_join_algorithm): which ran for this pipeline's first probe */
	int32_t		join_algo;		/* TmGpuJoinAlgo of the join that ran: TM_GPU_JOIN_PIPELINED (the probe in
								 * the pipeline's kernel), TM_GPU_JOIN_PARTITIONED (GFTR) or
								 * TM_GPU_JOIN_PARTITIONED_GFUR */
	int32_t		join_op;		/* the probe op it replaced (partitioned only; else -1) */
	int64_t		join_rows;		/* rows the partitioned join produced */
	double		join_ms;		/* its time: the materialized probe side, the join, the gathers */
	int64_t		prefilter_passes;	/* passes of its kernel that read a prefilter's bits, one per row: its
									 * leading filters run first in the lean prefilter kernel, or the
									 * semi-join test, or both (0: none; see prefilter_kernel) */
	int32_t		prefilter_plain;	/* 1: the filters in their plain form (column-against-constant tests) */
	int32_t		prefilter_semi;	/* 1: the first probe's key was tested against a bitmap of the build's
								 * keys (semi_prefilter_kernel), alone or after the filters */
	int32_t		probe_reordered;	/* 1: the ops ran in the order probe_order, not the plan's */
	int8_t		probe_order[TM_GPU_PROBE_ORDER_OPS];	/* the op that ran i-th (where probe_reordered) */
	int64_t		dynamic_groups;	/* groups of 1,024 source rows that pipeline_kernel's warps took from the
								 * shared counter as they finished (tm_gpu_pool_set_dynamic_rows), each
								 * warp's last, empty, take included; 0: none, fixed shares or another
								 * loop */
	int64_t		nointerp_passes;	/* passes that ran in pipeline_kernel<true>, compiled without the
									 * interpreter (tm_gpu_pool_set_nointerp) */
	int32_t		jit;			/* its kernel generated for it (tm_gpu_pool_set_jit): TmJitState of
								 * cuda/tm_jit.h (0: not asked for; 1: it ran; 2: being compiled; 3: the
								 * pipeline has not the shape; 4: failed; 5: no NVRTC) */
	int64_t		jit_passes;		/* passes that ran in it */
	double		jit_ms;			/* NVRTC's time to compile it (0: none made) */
	/* tm_gpu_pool_set_swap_rows: this pipeline probed a table whose build was held to be tried the other
	 * way round */
	int32_t		swap;			/* 0: none; 1: its rows up to the probe built the table instead, and the held
								 * rows probed it; 2: the held (or put-off) rows were built as planned (this
								 * pipeline's rows were too many, or their trial build did not fit:
								 * swap_rows -1); 3: this pipeline's build was put off and never made: its
								 * rows probed, as they were made, the table that pipeline swap_op built
								 * (tm_gpu_pool_set_swap_fuse); 4: its rows up to the probe built the
								 * table instead, and the put-off pipeline's rows probed it */
	int32_t		swap_op;		/* the probe (plan's number), where swap is 1, 2 or 4; where 3, the probing
								 * pipeline */
	int64_t		swap_rows;		/* its rows up to that probe (counted; where swap is 1 or 4, built); where 3,
								 * the put-off build's rows as estimated from its first source rows */
} TmGpuPipelineStats;

/* where and why a tm_gpu_execute failed */
typedef struct TmGpuFailure
{
	int32_t		pipeline;		/* the pipeline that failed, -1 if none / before any */
	int32_t		status;			/* TM_GPU_ERR_EXPR: the TmStatus raised (first one recorded) */
	int64_t		row;			/* TM_GPU_ERR_EXPR: a source row of that pipeline that raised it (its
								 * number in the whole source, also when the pipeline ran over chunks) */
} TmGpuFailure;

typedef struct TmGpuPool TmGpuPool;

/*
 * Create a pool of `bytes` of device memory on device dev (creates the CUDA context if there is none,
 * one stream, and the cancel word: an int of mapped pinned host memory).  0 and *pool, or a negative
 * TmGpuRc with err set.
 */
extern int	tm_gpu_pool_create(int dev, size_t bytes, TmGpuPool **pool, char *err, int errlen);

/*
 * Make the local memory (per-thread stacks) of the pipeline kernels resident now, on the current device:
 * the driver otherwise allocates it at their first launch, which fails with "out of memory" when the pool
 * and the cache took what was free (several daemons on one GPU).  Call before the pool is made; *bytes:
 * the per-thread stack size set (0 on failure, err set).
 */
extern int	tm_gpu_reserve_local_memory(size_t *bytes, char *err, int errlen);

/* Free the pool (NULL is fine).  0, or TM_GPU_ERR_CUDA with err set (err may be NULL). */
extern int	tm_gpu_pool_destroy(TmGpuPool *pool, char *err, int errlen);

/*
 * ORDER BY ... LIMIT above the plan: the next executions keep only the output rows whose column col
 * (0-based; an integer, date, timestamp or numeric of one scale: others are left alone) is not later in
 * the sort order (desc: larger first; NULLs first or last) than the n-th earliest key: a superset of the
 * rows the Limit returns, ties kept, in result order.  n = 0: no cut.  tm_gpu_pool_topn_rows_in: the
 * output rows before the cut of the last execution, -1 where it made none.
 */
extern void tm_gpu_pool_set_topn(TmGpuPool *pool, int64_t n, int col, int desc, int nulls_first);
extern int64_t tm_gpu_pool_topn_rows_in(const TmGpuPool *pool);

/*
 * The fast paths of the kernels (themis.gpu_fast_paths; tm_gpu_exec.cu): quals that are AND / OR trees
 * of plain comparisons and IN lists of a slot evaluated without the interpreter (DFastQual), bare slots read
 * without it (x_eval), a pipeline's leading filters run ahead of the walk of the row's evaluation tree
 * (DPipe.nlead), the lock-free peek of a min / max and a warp's partial float sums (DAgg.peek, .wsum).
 * tm_gpu_qual_is_fast: can qual e (a FILTER's or a probe's residual) take the first whole, 1 or 0 (a
 * qual whose leading conjuncts only are such trees takes it for those, then the interpreter).
 * tm_gpu_qual_fast_eval: the kernels' fast form of qual e run on the host, for tests: 0 if e has none,
 * else *pass = whether the row passes it, and 1 (it is the whole qual) or 2 (its leading conjuncts).
 * tm_gpu_pool_set_fast_paths(pool, 0): the next executions take none of them; 1 (the default): all.
 * Results are the same either way.
 */
extern int	tm_gpu_qual_is_fast(const TmExpr *e);
extern int	tm_gpu_qual_fast_eval(const TmExpr *e, const TmValue *vals, const bool *nulls, bool *pass);
extern void tm_gpu_pool_set_fast_paths(TmGpuPool *pool, int on);

/*
 * tm_gpu_pool_set_private_global(pool, 1) (themis.gpu_private_global_agg): a global aggregate (no group
 * keys) of pipeline_kernel keeps its state block-private in shared memory too, with thread-private
 * partial sums, as a grouped one does for its first groups ("Block-private aggregation" in
 * tm_gpu_exec.cu), instead of one atomic per warp of sink rows on the same words; 0 (the default): it
 * does not.  Under the fast paths only.  Results are the same either way.
 */
extern void tm_gpu_pool_set_private_global(TmGpuPool *pool, int on);

/*
 * tm_gpu_pool_set_group_wagg(pool, 1) (themis.gpu_group_wagg): in a grouped aggregate, the lanes of a
 * warp that update the same group without block-private states (past the block's first groups, or every
 * group where an aggregate keeps them off: a float sum, DISTINCT) combine their values first, and one of
 * them does the atomic (DAgg.wagg, as global aggregates always do); 0 (the default): one atomic per row.
 * Under the fast paths only.  Results are the same either way.
 */
extern void tm_gpu_pool_set_group_wagg(TmGpuPool *pool, int on);

/*
 * tm_gpu_pool_set_jit(pool, mode) (themis.gpu_jit): 1: pipelines of the shape cuda/tm_jit.h describes
 * (filters and aggregates over a source) run in a kernel generated for them and compiled with NVRTC in the
 * background, pipeline_kernel until it is ready or where it cannot be made; 2: the same, each execution
 * waiting for its kernels to be compiled (tests); 0: pipeline_kernel always.  Results are the same.
 */
extern void tm_gpu_pool_set_jit(TmGpuPool *pool, int mode);

/* the source of pipeline p's generated kernel, laid out on the host alone (tests without a GPU; tm_gpu_exec.cu) */
extern bool tm_gpu_jit_source(const TmPlan *plan, int p, const int *fmts, int ncols, char **src, char *why,
							  size_t whylen);

/*
 * tm_gpu_pool_set_nointerp(pool, 0) (themis.gpu_nointerp = off, the setting's default; the daemon sets
 * it for each request): every pipeline_kernel launch takes the generic kernel; 1 (a new pool's default,
 * which the unit tests run with): a pipeline that needs no interpreter (every qual and aggregate FILTER
 * with a whole fast form or a bare slot, keys and values bare slots, aggregate arguments bare slots or
 * in the fast arithmetic form, no DISTINCT or locked aggregate: float sums, min / max of numeric, float,
 * text) runs in pipeline_kernel<true>, compiled without the interpreter.  Under the fast paths
 * only.  Results are the same either way.
 */
extern void tm_gpu_pool_set_nointerp(TmGpuPool *pool, int on);

/*
 * tm_gpu_pool_set_dynamic_rows(pool, 0) (themis.gpu_dynamic_rows = off): the warps of a pipeline with
 * leading filters or a pre-check each run a fixed share of its source rows; 1 (the default): they take
 * groups of 1,024 rows from a counter as they finish (tm_gpu_exec.cu, warp_next_group), and the kernel
 * runs in one wave of blocks.  Results are the same either way.
 */
extern void tm_gpu_pool_set_dynamic_rows(TmGpuPool *pool, int on);

/*
 * tm_gpu_pool_set_swap_rows (themis.gpu_swap_build_rows): a hash table whose build side came out with at
 * least `rows` rows, and more than TM_SWAP_MISESTIMATE times the planner's estimate of them, where one
 * INNER probe of a later pipeline is its only use, and that pipeline's source has at most
 * TM_SWAP_PROBE_FACTOR times as many rows (where it is a table: a result's rows are not known yet), is
 * held ungrouped until that pipeline starts (themis/tm_probe_order.h, tm_swap_hold; the probing
 * pipeline's own build is not held then).  That
 * pipeline's rows up to the probe are then counted: where they are at most half the held rows, they build
 * the table instead and the held rows probe it (a pipeline of its own over them, carrying on with the
 * probing pipeline's other operators and sink); else the held rows are built as planned.  0: every such
 * table is held, whatever its rows, its estimate and its probing pipeline's source (tests); -1: none.  Results are the same either way.
 */
#define TM_GPU_SWAP_ROWS_DEFAULT	1000000
extern void tm_gpu_pool_set_swap_rows(TmGpuPool *pool, int64_t rows);

/*
 * tm_gpu_pool_set_swap_fuse(pool, sample_rows > 0): a build that tm_gpu_pool_set_swap_rows would hold is,
 * where its rows can be estimated before they are written, not run at all.  Its sink rows are counted over
 * a sample of its source, where it has over twice sample_rows rows: a 16th of them, at least sample_rows,
 * in 16 windows spread over it (TM_GPU_SWAP_FUSE_SAMPLE_DEFAULT for themis.gpu_swap_fuse = sample; a
 * smaller source is not put off); INT64_MAX (count): over all of every such source.  Where that
 * estimate is one to hold, the pipeline is put off; when the probing pipeline starts, its rows up to the
 * probe build the table as above, and the put-off pipeline's rows probe it as they are made, carrying on
 * with the probing pipeline's other operators and sink: the rows are never written.  Where the trial has
 * more than half the estimated rows, the put-off pipeline runs as planned, then the probing one.  Only
 * where the build's payload columns are plain columns of its pipeline.  0 (the default): held as above.
 * Results and errors are the same either way.
 */
#define TM_GPU_SWAP_FUSE_SAMPLE_DEFAULT	((int64_t) 1 << 22)
extern void tm_gpu_pool_set_swap_fuse(TmGpuPool *pool, int64_t sample_rows);

/*
 * tm_gpu_pool_set_probe_order(pool, 0) (themis.probe_order = off): every pipeline's probes run in the
 * plan's order; 1 (the default): a run of INNER probes is reordered when the pipeline starts, from its
 * built hash tables' sizes, where that saves much (themis/tm_probe_order.h; the stats say what ran).
 * Results are the same either way.
 */
extern void tm_gpu_pool_set_probe_order(TmGpuPool *pool, int on);

/* Bytes of the pool, and the most that the last tm_gpu_execute used. */
extern size_t tm_gpu_pool_size(const TmGpuPool *pool);
extern size_t tm_gpu_pool_peak(const TmGpuPool *pool);

/*
 * The pool's CUDA device (-1 for NULL) and its stream (a cudaStream_t as void *; NULL for NULL), for a
 * caller that keeps device-resident inputs: it allocates them on that device (cudaSetDevice first: these
 * functions do not change the current device) and can queue its copies on this stream, which orders
 * them before the kernels of a later tm_gpu_execute.  The stream belongs to the pool: do not destroy it.
 */
extern int	tm_gpu_pool_device(const TmGpuPool *pool);
extern void *tm_gpu_pool_stream(const TmGpuPool *pool);

/*
 * Run plan on the pool's device.
 *   inputs[p] (ninputs >= plan->npipelines; may be NULL if no pipeline reads a TABLE / SUBPLAN): see above.
 *   params / paramnulls: plan->nparams values of the level -1 slots (text values point at host bytes;
 *   paramnulls NULL: none is NULL; both may be NULL when nparams is 0).
 *   out: set to the output result (host memory from malloc; free it with tm_gpu_table_free), also when
 *   no pipeline made it (0 rows).  Untouched on failure.
 *   stats: plan->npipelines entries, or NULL.  fail: where it failed, or NULL.
 * Returns TM_GPU_OK or a negative TmGpuRc with err set (and *fail).
 */
extern int	tm_gpu_execute(TmGpuPool *pool, const TmPlan *plan,
						   const TmGpuTable *inputs, int ninputs,
						   const TmValue *params, const bool *paramnulls,
						   TmGpuTable *out, TmGpuPipelineStats *stats, TmGpuFailure *fail,
						   char *err, int errlen);

/*
 * Which scheduler runs the pipelines of this pool's tm_gpu_execute calls (themis.load_balance):
 *   TM_GPU_LB_NONE      one thread per source row, depth first (a new pool's)
 *   TM_GPU_LB_NIFS      warps, No-Imbalance-First-Search within each warp, no work sharing: each warp
 *                       runs an equal slice of the source rows to the end
 *   TM_GPU_LB_NIFS_AWS  NIFS and Adaptive Work Sharing: busy warps hand half of their largest pending
 *                       subtrees to idle warps; the kernel ends when every warp is idle
 *   TM_GPU_LB_AUTO      per pipeline: NIFS_AWS where one of its INNER / LEFT probes reads a hash table
 *                       in which some key repeats (a probe row can produce several rows: the skew the
 *                       scheduler is for), else NONE (scans, aggregations and probes of unique keys run
 *                       fastest with one thread per row)
 * Other values are ignored.  NIFS_AWS needs cooperative launch (every block resident at once); where the
 * device cannot do it, it runs as NIFS.  Set it while no tm_gpu_execute of the pool runs.
 */
typedef enum TmGpuLoadBalance
{
	TM_GPU_LB_NONE = 0,
	TM_GPU_LB_NIFS = 1,
	TM_GPU_LB_NIFS_AWS = 2,
	TM_GPU_LB_AUTO = 3
} TmGpuLoadBalance;

extern void tm_gpu_pool_set_load_balance(TmGpuPool *pool, int mode);

/*
 * Cancel (see "Cancel" above): tm_gpu_pool_cancel sets the pool's cancel word (thread and async-signal
 * safe: one atomic store; NULL is fine); tm_gpu_pool_clear_cancel clears it (call it before a new
 * execution, not while one runs that should stop); tm_gpu_pool_canceled says whether it is set.
 */
extern void tm_gpu_pool_cancel(TmGpuPool *pool);
extern void tm_gpu_pool_clear_cancel(TmGpuPool *pool);
extern int	tm_gpu_pool_canceled(const TmGpuPool *pool);
extern int	tm_gpu_pool_get_load_balance(const TmGpuPool *pool);	/* TM_GPU_LB_NONE for NULL */

/*
 * How an INNER probe is run (themis.join_algorithm).  The partitioned join (cuda/tm_pjoin.cu) replaces
 * the first op of a pipeline that is an INNER probe after nothing but FILTERs, where the keys are 1 to 4
 * integer-like / numeric values and the columns read after it fit its payload limits: the pipeline runs
 * in three steps instead of one kernel:
 *   1. the source, its FILTERs and the probe's key expressions, into a device result S (probe keys and
 *      the source columns that are read after the probe);
 *   2. tm_pjoin of the built hash table's rows (keys, the payload columns read after the probe) with S:
 *      radix-partitioned on both sides, joined per co-partition in shared memory, further payload
 *      columns transformed and gathered (GFTR) or gathered by row id (GFUR);
 *   3. the rest of the pipeline (the probe's residual as a FILTER, later ops, the sink) over the joined
 *      rows.
 * The results are the same (rows in another order, as with TM_GPU_LB_NIFS*).
 *   TM_GPU_JOIN_AUTO              partitioned (GFTR) where the built table is larger than
 *                                 tm_gpu_pjoin_l2_factor() times the device's L2 cache and the probe side
 *                                 has at least as many rows, unless the probe's key is a bare integer
 *                                 source column in about ascending order (a sample of adjacent pairs:
 *                                 lineitem's l_orderkey); the probe in the kernel otherwise
 *   TM_GPU_JOIN_PARTITIONED       GFTR wherever it applies
 *   TM_GPU_JOIN_PARTITIONED_GFUR  GFUR wherever it applies
 *   TM_GPU_JOIN_PIPELINED         never: every probe runs in the pipeline's kernel
 * Where the partitioned join runs out of pool memory or beyond its limits (2^31 work units, a joined
 * result of 2^31 rows), the pipeline runs with the probe in its kernel.  An expression error after the
 * join reports row -1 (TmGpuFailure.row: the joined rows have no source row number).  Host inputs keep
 * the probe side's materialized result in the pool until the execution ends (device-resident inputs,
 * as in the daemon, give it back before the join).
 * A new pool's is TM_GPU_JOIN_AUTO.  Set it while no tm_gpu_execute of the pool runs.
 */
typedef enum TmGpuJoinAlgo
{
	TM_GPU_JOIN_AUTO = 0,
	TM_GPU_JOIN_PARTITIONED = 1,
	TM_GPU_JOIN_PARTITIONED_GFUR = 2,
	TM_GPU_JOIN_PIPELINED = 3
} TmGpuJoinAlgo;

extern void tm_gpu_pool_set_join_algorithm(TmGpuPool *pool, int algo);
extern int	tm_gpu_pool_get_join_algorithm(const TmGpuPool *pool);

/*
 * TM_GPU_JOIN_AUTO's threshold: the partitioned join where the built table's bytes exceed this many
 * times the L2 cache (measured by bench/join/xover.cu; see its report).  Process-wide (the benchmark
 * sets it); <= 0 restores the default.
 */
extern void tm_gpu_set_pjoin_l2_factor(double f);
extern double tm_gpu_pjoin_l2_factor(void);

/* Free the arrays of a table made by tm_gpu_execute and zero it (NULL or an empty table is fine). */
extern void tm_gpu_table_free(TmGpuTable *t);

/* Bytes per value of kind in the layout above (text kinds: 0), or -1 for kinds the executor cannot hold. */
extern int	tm_gpu_kind_width(int kind);

/*
 * For tests: run every pipeline with a host input of more than n rows over chunks of at most n rows
 * (0: no limit, chunks only where the pool is too small; the default).  Without a call, the environment
 * variable TM_GPU_MAX_CHUNK_ROWS (read once) gives the limit.  Process-wide: set it while no
 * tm_gpu_execute runs.
 */
extern void tm_gpu_set_max_chunk_rows(int64_t n);

/*
 * For tests: run the NIFS / NIFS_AWS kernels with at most n warps (rounded down to whole blocks, at least
 * one block; 0: as many as fit the device at once, the default).  Few warps make hand-offs and waits
 * frequent.  Process-wide: set it while no tm_gpu_execute runs.
 */
extern void tm_gpu_set_lb_max_warps(int n);

/*
 * For tests: launch the grid-stride kernels (pipeline_kernel and the helpers) with at most n blocks
 * (0: up to 16 per multiprocessor, the default).  Few blocks give each warp of pipeline_kernel many
 * chunks of 32 rows, so that its queue of rows that passed the filters and the pre-check fills up.
 * Process-wide: set it while no tm_gpu_execute runs.
 */
extern void tm_gpu_set_max_blocks(int n);

#ifdef __cplusplus
}
#endif

#endif							/* THEMIS_TM_GPU_EXEC_H */
