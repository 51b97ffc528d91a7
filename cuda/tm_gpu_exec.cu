/*
 * tm_gpu_exec.cu — the GPU executor of a themis plan: runs the pipelines of a TmPlan on one CUDA
 * device (C interface and column layout: tm_gpu_exec.h).
 *
 * Two schedulers run a pipeline (tm_gpu_pool_set_load_balance).  TM_GPU_LB_NIFS / TM_GPU_LB_NIFS_AWS
 * is the Themis one: warps traverse the evaluation tree level by level (No-Imbalance-First-Search) and
 * hand work to idle warps (Adaptive Work Sharing); its design is the comment above nifs_kernel.  It
 * shares everything else with the plain one (expressions, probes, sinks, chunks, hash build, AGG tables)
 * and differs only where said there (EMIT / HASH_BUILD rows in no particular order; the COUNT pass only
 * counts).  TM_GPU_LB_NONE (the default) is the straightforward first version:
 *
 *   - one thread per source row (grid-stride loop): it loads the row's level-0 slots into a per-thread
 *     TmValue array and walks the row's evaluation tree depth-first, exactly like run_ops() of the CPU
 *     executor (src/cpu_exec.c): FILTER with tm_eval_qual, PROBE by a lookup key -> [start, end) of
 *     build rows and a loop over that range (residual qual per match; inner / semi / anti / left), and
 *     every leaf goes to the sink; where the pipeline starts with FILTERs or an INNER / SEMI probe (and
 *     the fast paths are on), warps take 32 rows at a time, run the filters and the probe's lookup on
 *     the slots those read, and queue the rows that pass until 32 fill a warp (pipeline_rows_compacted);
 *     leading filters that are trees of plain tests over source columns run before it in a lean kernel
 *     of their own, one bit per row (prefilter_kernel), and the warps read the bits 1,024 rows at a time
 *     and queue the rows whose bit is set (straight from the bits where nothing else runs before the
 *     queue); where the lookup goes first on an integer key (before the filters, with no filters, or
 *     right after filters that all ran in the prefilter), that key is tested against a bitmap of the
 *     build's keys too (semi_prefilter_kernel);
 *   - EMIT and HASH_BUILD run each pipeline twice: a COUNT pass (rows each source row sends to the sink)
 *     and, after an exclusive prefix sum of the counts (CUB), a RUN pass that writes every sink row at its
 *     position.  The output is compact and in the same order as the CPU executor's (source order, then
 *     depth first).  A HASH_BUILD whose source rows bound its rows (no probe that can multiply them)
 *     runs the RUN pass alone: rows take positions from a counter, in no particular order
 *     (sink_hash_build);
 *   - HASH_BUILD then groups the collected rows by key: insert into a directory with atomicCAS (the
 *     first row of each key owns its slot; the lanes of a warp with equal keys go once), count per slot,
 *     prefix sum, stable radix sort of (slot, row) pairs (CUB) and a gather, so that rows with equal keys
 *     are contiguous and keep their order; the directory entries become { hash, start, count };
 *   - AGG: one global hash table of groups.  A thread that finds no group claims a directory slot
 *     (CAS EMPTY -> BUSY), takes a group number, writes the keys and publishes the number; others spin
 *     while a slot is BUSY.  Aggregates update with atomics: count and int sums with atomicAdd,
 *     int8 / numeric sums as 192-bit integers (three 64-bit atomicAdds with carries, exact: overflow of
 *     128 bits is checked once, at the end), min / max of integer kinds with atomicMin / atomicMax, and
 *     everything else (float sums, min / max of floats, numerics, text) under a per-group spin lock with
 *     the host functions tm_sum_add / tm_values_cmp (a min / max first compares with a seqlock snapshot
 *     of the value and skips the lock where the row cannot change it; a float sum adds the values of a
 *     warp's lanes for one group first, one lane takes the lock).  The table starts small and is
 *     rebuilt at the bound (the number of sink rows) if it overflows;
 *   - expression errors (tm_eval status != TM_OK) go to a device error word, first error wins, and stop
 *     all threads at their next row; the host reports it after the pass;
 *   - cancel (tm_gpu_pool_cancel): a thread reads the pool's cancel word (mapped host memory) every
 *     CANCEL_POLL_CYCLES at most, between the steps of its walk (and in the match loops of residual
 *     quals, and while it waits for a group's lock); if it is set, the thread leaves and sets
 *     DFlags.stop, so the others leave at their next row or read (or try of the lock).  The host
 *     checks the word before and after every pass and fails the execution with
 *     TM_GPU_ERR_CANCELED: the partial state of a canceled pass is never used.
 *
 * Hash rule (the one of themis/tm_hashtable.h, shared with the CPU executor): h = 0; for each key
 * h = tm_hash_key(h, key, key is NULL, type) (a NULL key hashes as TM_NULL_KEY_HASH).  Join keys are never
 * NULL (such rows never match); group keys may be NULL (NULLs group together).  Directory position:
 * tm_ht_pos(h, mask), linear probing, directories at most half full.
 *
 * DISTINCT aggregates (count / sum; min / max DISTINCT are plain min / max): per aggregate, a device set
 * of the (group, value) pairs seen in the AGG pass, with the same claim / publish protocol as the group
 * table; values are equal under tm_values_equal of the argument's type (as TmDistinctSet of the CPU
 * executor: floats -0 = 0 and NaN = NaN, bpchar without trailing blanks, numerics by scaled value, text
 * by bytes) and hash with tm_distinct_hash.  Only the thread that inserts a pair updates the aggregate,
 * so each group aggregates each of its distinct non-NULL values once.  The set starts with room for
 * min(bound, DISTINCT_INITIAL_CAP) pairs; if it fills up, the pass is redone with room for bound pairs.
 *
 * Memory: everything on the device comes from the pool's bump allocator; per pipeline, its descriptor
 * (the DPipe of tm_pipeline_dev.cuh with expressions, slot lists, parameter values) is laid out in a host image and
 * uploaded with one copy.  Device results (EMIT / AGG) and build rows are kept as TmValue arrays plus
 * NULL bytes; text values point at bytes in device memory (input columns, expression pools) that live
 * until tm_gpu_execute returns.  All work is ordered on the pool's one stream.
 *
 * Chunks (a host input larger than the pool space left, or tm_gpu_set_max_chunk_rows): the pool is a
 * stack at both ends.  What lives on (results, hash tables, descriptors, group tables) grows from the
 * bottom as always; a chunk (its uploaded columns and the scratch of its passes: counts, offsets) is
 * taken from the top and given back after the chunk.  The descriptor is uploaded once; per chunk only its
 * source column pointers and row count are rewritten.  The sinks:
 *   - EMIT / HASH_BUILD: a COUNT sweep over all chunks sizes the output, which is then allocated whole;
 *     a second sweep counts each chunk again (for its offsets) and writes its rows after those of the
 *     earlier chunks, so the rows are those of an unchunked run, in the same order; HASH_BUILD then
 *     groups the collected rows once, as unchunked;
 *   - AGG: the group table and the aggregate states (DISTINCT sets too) persist across chunks; if one
 *     overflows in a chunk, that chunk has already updated part of the state, so the aggregation starts
 *     over from the first chunk with a larger table / set;
 *   - after each chunk, the text values the sink keeps that point into the chunk (tested by address:
 *     the chunk is the whole top part of the pool) are copied into a bottom allocation and repointed:
 *     the chunk's new rows (EMIT / HASH_BUILD), new groups' keys and DISTINCT pairs, and every group's
 *     text min / max state.  Values that point elsewhere (expression pools, parameters, earlier results,
 *     build rows) are left alone.
 * If a chunk's copies do not fit, the chunk is redone with half as many rows (EMIT / HASH_BUILD write
 * the same rows again; an AGG starts over).
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <cooperative_groups.h>
#include <algorithm>
#include <vector>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "themis/tm_types.h"
#include "themis/tm_trace.h"
#include "themis/tm_expr.h"
#include "themis/tm_ir.h"
#include "themis/tm_expr_eval.h"
#include "themis/tm_hash.h"
#include "themis/tm_hashtable.h"
#include "themis/tm_probe_order.h"
#include "tm_gpu_exec.h"
#include "tm_pjoin.h"

#include "tm_pipeline_dev.cuh"
#include "tm_jit.h"

/* does a comparison's result c (-1, 0, 1) satisfy test t's predicate (DPreTest.mask)? */
__device__ __forceinline__ bool
pre_test_pass(int c, const DPreTest *t)
{
	return c >= -1 && ((t->mask >> (c + 1)) & 1u) != 0;
}

/*
 * One test of prefilter_kernel's plain form on a lane's PRE_UNROLL rows row0, row0 + 32, .. whose bits
 * are set in pm: the loads of those rows first, all in flight together, then the comparisons (a NULL
 * fails); the bits of the rows that still pass.  pre_test_i128: the same for 16-byte numerics.
 */
template <class T>
__device__ __forceinline__ unsigned int
pre_test_int(const T *__restrict__ d, const uint8_t *__restrict__ nl, long long row0, const DPreTest *t,
			 unsigned int pm)
{
	T			v[PRE_UNROLL];
	unsigned int nul = 0;
	int64_t		k = (int64_t) t->klo;
	unsigned int out = 0;

#pragma unroll
	for (int u = 0; u < PRE_UNROLL; u++)
	{
		bool		p = (pm >> u) & 1u;

		v[u] = p ? d[row0 + 32 * u] : (T) 0;
		if (p && nl != NULL && nl[row0 + 32 * u] != 0)
			nul |= 1u << u;
	}
#pragma unroll
	for (int u = 0; u < PRE_UNROLL; u++)
	{
		int64_t		x = (int64_t) v[u];

		if (pre_test_pass((x > k) - (x < k), t))
			out |= 1u << u;
	}
	return out & pm & ~nul;
}

__device__ __forceinline__ unsigned int
pre_test_i128(const uint64_t *__restrict__ d, const uint8_t *__restrict__ nl, long long row0,
			  const DPreTest *t, unsigned int pm)
{
	uint64_t	lo[PRE_UNROLL],
				hi[PRE_UNROLL];
	unsigned int nul = 0;
	tm_int128	k = (tm_int128) (((tm_uint128) (uint64_t) t->khi << 64) | (tm_uint128) t->klo);
	unsigned int out = 0;

#pragma unroll
	for (int u = 0; u < PRE_UNROLL; u++)
	{
		bool		p = (pm >> u) & 1u;

		lo[u] = p ? d[2 * (row0 + 32 * u)] : 0;
		hi[u] = p ? d[2 * (row0 + 32 * u) + 1] : 0;
		if (p && nl != NULL && nl[row0 + 32 * u] != 0)
			nul |= 1u << u;
	}
#pragma unroll
	for (int u = 0; u < PRE_UNROLL; u++)
	{
		tm_int128	x = (tm_int128) (((tm_uint128) hi[u] << 64) | (tm_uint128) lo[u]);

		if (pre_test_pass((x > k) - (x < k), t))
			out |= 1u << u;
	}
	return out & pm & ~nul;
}

/*
 * The prefilter of pipeline_kernel: the leading filters that are trees of plain tests over the source
 * columns (DPipe.prefq, see img_pipeline) on every source row, one bit per row into bits[] (bit l of
 * word w: row 32 w + l passes them all).  A lean kernel (no slot array, no interpreter: each test
 * loads its column where it needs it), so that pipeline_kernel, with its registers and its stack, runs
 * only on the rows that pass (TPC-H Q6: 2% of lineitem): it skips words of 0 and starts the leading
 * filters after npre.  The tests raise no error, so what pipeline_kernel would raise is unchanged.
 */
template <bool PLAIN>
__global__ void __launch_bounds__(TPB)
prefilter_kernel(const DPipe *__restrict__ P, int64_t nrows, uint32_t *__restrict__ bits)
{
	unsigned int lane = threadIdx.x & 31u;
	long long	nchunks = (nrows + 31) / 32;
	long long	nwarps = ((long long) gridDim.x * blockDim.x) >> 5;
	const int	npre = P->npre;
	const int	nt = PLAIN ? P->npretest : 0;
	__shared__ DPreTest st[PRE_MAX_TESTS];
	__shared__ const char *sdata[PRE_MAX_TESTS];
	__shared__ const uint8_t *snulls[PRE_MAX_TESTS];

	/* the plain form: the tests and their columns' arrays in shared memory */
	if (PLAIN && (int) threadIdx.x < nt)
	{
		const DCol *c;

		st[threadIdx.x] = P->pretest[threadIdx.x];
		c = &P->srccols[st[threadIdx.x].col];
		sdata[threadIdx.x] = c->data;
		snulls[threadIdx.x] = c->nulls;
	}
	__syncthreads();

	/*
	 * A warp takes PRE_UNROLL consecutive words (chunks of 32 rows) at a time, so that each lane has that
	 * many independent loads in flight per test instead of one chain of round trips per 32 rows
	 */
	for (long long cb = (((long long) blockIdx.x * blockDim.x + threadIdx.x) >> 5) * PRE_UNROLL; cb < nchunks;
		 cb += nwarps * PRE_UNROLL)
	{
		unsigned int pm = 0;	/* bit u: row (cb + u) * 32 + lane passes so far */

#pragma unroll
		for (int u = 0; u < PRE_UNROLL; u++)
			if ((cb + u) * 32 + lane < nrows)
				pm |= 1u << u;

		/*
		 * plain: the tests in order, each on the lanes whose row passed the ones before (a selective first
		 * test spares the later columns' bytes: TPC-H Q6's date range, then the 16-byte numerics)
		 */
		for (int i = 0; i < nt && pm != 0; i++)
		{
			const DPreTest *t = &st[i];
			const char *d = sdata[i];
			long long	row0 = cb * 32 + lane;

			/* (the width is the same in every lane) */
			if (t->w == 16)
				pm = pre_test_i128((const uint64_t *) d, snulls[i], row0, t, pm);
			else if (t->w == 8)
				pm = pre_test_int((const int64_t *) d, snulls[i], row0, t, pm);
			else if (t->w == 4)
				pm = pre_test_int((const int32_t *) d, snulls[i], row0, t, pm);
			else if (t->w == 2)
				pm = pre_test_int((const int16_t *) d, snulls[i], row0, t, pm);
			else
				pm = pre_test_int((const uint8_t *) d, snulls[i], row0, t, pm);
		}
		for (int u = 0; u < PRE_UNROLL && !PLAIN; u++)
		{
			long long	row = (cb + u) * 32 + lane;
			bool		pass = (pm >> u) & 1u;

			for (int k = 0; k < npre && pass; k++)
			{
				const DFastQual *fq = P->prefq[k];
				const TmExpr *qual = P->ops[k].qual;

				pass = fq_run(fq, [&](int p) {
					const DFastCmp *f = &fq->c[p];
					TmValue		a,
								b;
					bool		an = false,
								bn = false;

					if (f->l >= 0)
						load_col(&P->srccols[f->l], row, &a, &an);
					else
						a = f->lk;
					if (f->r >= 0)
						load_col(&P->srccols[f->r], row, &b, &bn);
					else
						b = f->rk;
					return fq_test_ab(f, qual, &a, an, &b, bn);
				});
			}
			if (!pass)
				pm &= ~(1u << u);
		}
#pragma unroll
		for (int u = 0; u < PRE_UNROLL; u++)
		{
			unsigned int w = __ballot_sync(0xffffffffu, (pm >> u) & 1u);

			if (lane == 0 && cb + u < nchunks)
				bits[cb + u] = w;
		}
	}
}

/*
 * The semi-join prefilter of a pipeline whose lookup goes first (DPipe.probe_first: a build of at most
 * PROBE_FIRST_MAX_ROWS rows, bare-slot keys, leading filters that raise no error) on one integer key: a
 * bitmap over [kmin, kmin + nbits) of the build's keys (semi_minmax_kernel, semi_bits_kernel), and
 * semi_prefilter_kernel's bit per source row: its key is not NULL and its bit is set.  A row without the
 * bit has no build row with its key, so the lookup would drop it before anything else ran on it (a bit
 * set in error would only let a row through to the lookup).  TPC-H Q19: 4,808 parts out of 2 M, and
 * about 0.24% of lineitem's rows go on to pipeline_kernel.  The same holds where the lookup comes first
 * in the pipeline (no leading filters) and right after leading filters that all ran in prefilter_kernel
 * (fast quals: no error to miss); there (and_bits) only the rows whose bit prefilter_kernel set are
 * tested, and their bits are kept or cleared in place (each word is read and written by one warp).
 */
#define SEMI_MAX_BITS		((long long) 1 << 27)	/* 16 MB of bitmap at most */

__global__ void
semi_minmax_kernel(const TmValue *__restrict__ keys, int64_t n, long long *mm)
{
	long long	lo = LLONG_MAX;
	long long	hi = LLONG_MIN;

	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t) gridDim.x * blockDim.x)
	{
		long long	k = (long long) keys[i].i;

		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	for (int o = 16; o > 0; o >>= 1)
	{
		long long	l2 = __shfl_xor_sync(0xffffffffu, lo, o);
		long long	h2 = __shfl_xor_sync(0xffffffffu, hi, o);

		lo = l2 < lo ? l2 : lo;
		hi = h2 > hi ? h2 : hi;
	}
	if ((threadIdx.x & 31u) == 0)
	{
		atomicMin(&mm[0], lo);
		atomicMax(&mm[1], hi);
	}
}

__global__ void
semi_bits_kernel(const TmValue *__restrict__ keys, int64_t n, long long kmin, uint32_t *bm)
{
	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t) gridDim.x * blockDim.x)
	{
		unsigned long long b = (unsigned long long) keys[i].i - (unsigned long long) kmin;

		atomicOr(&bm[b >> 5], 1u << (b & 31u));
	}
}

/* one column's keys of a lane's PRE_UNROLL rows (those of pm) against the bitmap: the rows that pass */
template <class T>
__device__ __forceinline__ unsigned int
semi_test(const T *__restrict__ d, const uint8_t *__restrict__ nl, long long row0, long long kmin,
		  unsigned long long nbits, const uint32_t *__restrict__ bm, unsigned int pm)
{
	unsigned long long b[PRE_UNROLL];
	unsigned int in = 0;
	unsigned int out = 0;

#pragma unroll
	for (int u = 0; u < PRE_UNROLL; u++)
	{
		bool		p = (pm >> u) & 1u;

		b[u] = p ? (unsigned long long) (long long) d[row0 + 32 * u] - (unsigned long long) kmin : nbits;
		if (p && (nl == NULL || nl[row0 + 32 * u] == 0) && b[u] < nbits)
			in |= 1u << u;
	}
#pragma unroll
	for (int u = 0; u < PRE_UNROLL; u++)
		if (((in >> u) & 1u) != 0 && ((bm[b[u] >> 5] >> (b[u] & 31u)) & 1u) != 0)
			out |= 1u << u;
	return out;
}

__global__ void __launch_bounds__(TPB)
semi_prefilter_kernel(const DPipe *__restrict__ P, int64_t nrows, int col, int w, long long kmin,
					  unsigned long long nbits, const uint32_t *__restrict__ bm, uint32_t *bits, bool and_bits)
{
	unsigned int lane = threadIdx.x & 31u;
	long long	nchunks = (nrows + 31) / 32;
	long long	nwarps = ((long long) gridDim.x * blockDim.x) >> 5;
	const char *d = P->srccols[col].data;
	const uint8_t *nl = P->srccols[col].nulls;

	for (long long cb = (((long long) blockIdx.x * blockDim.x + threadIdx.x) >> 5) * PRE_UNROLL; cb < nchunks;
		 cb += nwarps * PRE_UNROLL)
	{
		long long	row0 = cb * 32 + lane;
		unsigned int pm = 0;

#pragma unroll
		for (int u = 0; u < PRE_UNROLL; u++)
			if (row0 + 32 * u < nrows && (!and_bits || ((bits[cb + u] >> lane) & 1u) != 0))
				pm |= 1u << u;
		/* (the width is the same in every lane) */
		if (w == 8)
			pm = semi_test((const int64_t *) d, nl, row0, kmin, nbits, bm, pm);
		else if (w == 4)
			pm = semi_test((const int32_t *) d, nl, row0, kmin, nbits, bm, pm);
		else
			pm = semi_test((const int16_t *) d, nl, row0, kmin, nbits, bm, pm);
#pragma unroll
		for (int u = 0; u < PRE_UNROLL; u++)
		{
			unsigned int wd = __ballot_sync(0xffffffffu, (pm >> u) & 1u);

			if (lane == 0 && cb + u < nchunks)
				bits[cb + u] = wd;
		}
	}
}

/* ------------------------------------------------------------------------------------------------
 * The Themis scheduler: No-Imbalance-First-Search within a warp, Adaptive Work Sharing across warps
 * (TM_GPU_LB_NIFS, TM_GPU_LB_NIFS_AWS; pipeline_kernel above is TM_GPU_LB_NONE)
 * ------------------------------------------------------------------------------------------------
 *
 * Evaluation tree.  A pipeline with nops ops has levels 0 .. nops.  A tuple of level 0 is a source row;
 * a tuple of level j >= 1 is a child made by op j - 1 from a tuple of level j - 1.  A tuple is known by
 * its row offsets at levels 0 .. j (lazy materialization: offsets only; slot values are loaded when the
 * work on the tuple needs them, from the source columns and the build sides' payload columns).  The
 * work on a tuple of level j ("visit", lb_visit):
 *   1. if op j - 1 is an INNER or LEFT probe with a residual qual and the tuple is a build row (not the
 *      NULL row of a LEFT probe): the residual, on this match; false drops the tuple;
 *   2. j == nops: the sink (EMIT, HASH_BUILD, AGG, exactly as sink_row);
 *      else op j, which makes at most one range of children at level j + 1:
 *        FILTER            true: [-1, 0)  (one child; filter levels have no slots)
 *        PROBE INNER       the keys' build rows [start, end) (the residual is step 1 of each child)
 *        PROBE LEFT        no residual: [start, end), or [-1, 0) (offset -1 = the NULL row) if empty;
 *                          residual: the lane looks for the first match r0 that passes it: [r0, end)
 *                          (step 1 tests the others), or [-1, 0) if none passes
 *        PROBE SEMI / ANTI one passing match decides (the lane loops over the matches while the
 *                          residual fails): [-1, 0) or nothing; so a row goes on at most once
 *   NULL keys match nothing, as everywhere.  Offsets are int32: source rows < 2^31, build rows < 2^29.
 *
 * NIFS (per warp).  Each warp holds, per level j >= 1, a queue of at most LB_QCAP = 64 ranges in shared
 * memory: start, end, and the offsets of the levels 0 .. j - 1 of the tuple that made it (the ancestors);
 * level 0 is a range of source rows [lo0, hi0).  pend[j] = tuples pending at level j.  An iteration:
 *   - picks the HIGHEST level j with pend[j] >= 32, else the LOWEST level with pend[j] > 0 (all of it:
 *     then every level has fewer than 32); none: the warp is idle;
 *   - takes T = min(32, pend[j]) tuples of level j, one per lane (ranges are taken from the top of the
 *     queue, each from its start: a warp scan of the range sizes, an OR of the lanes' start positions
 *     and a popcount tell each lane its range and offset; used ranges are popped, a partly used one
 *     keeps its rest);
 *   - every lane visits its tuple (divergent code: expressions, probes, the sink), the warp reconverges
 *     (__syncwarp) and appends the children ranges to level j + 1 (ballot, popcount positions).
 *   Bound: level j is taken only when every level above it holds < 32 tuples, so level j + 1 holds at
 *   most 31 ranges (ranges are never empty) before the at most 32 new ones: 63 <= LB_QCAP.  Memory per
 *   warp: 2 x (levels - 1) x 32 ranges, (j + 2) ints per range of level j (lb_warp_bytes).
 *   Sinks: COUNT passes count the rows reaching the sink; AGG updates its group table per lane (atomics,
 *   as pipeline_kernel), except a global AGG of count / int sum / int min, max without DISTINCT, whose
 *   lanes keep partial states that each warp adds in once at its end (lb_agg_local: no atomic on the
 *   same words per row); the RUN pass of EMIT / HASH_BUILD takes output positions for the warp's rows
 *   with one atomicAdd on DFlags.cursor (checked against the counted total), so rows come in no
 *   particular order.  Each warp starts with an equal slice of the source rows.
 *
 * AWS (across warps; cooperative launch, so that every warp is resident and waits cannot deadlock):
 *   - workload of a warp = (height of its highest pending subtrees, ceil(log2(1 + their number))): the
 *     lowest level j0 whose tuples can be split (height nops - j0 + 1) and pend[j0], packed as
 *     (height << 8 | log) in DFlags.wlmax's unit.  Splittable: >= 2 tuples (>= 64 at the sink level,
 *     fewer are not worth a hand-off).  A level holding one tuple is passed over (a deviation from the
 *     paper's wording): NIFS leaves a lone low tuple pending while it drains the levels above it, and
 *     counting it would hide, say, a million-row range of level 1 behind the last row of level 0;
 *   - a busy warp checks every 1 + min(32, floor(log2(all warps / idle warps))) iterations (every 33
 *     while none is idle; nidle and wlmax are loaded at the start of the iteration, so the loads overlap
 *     its work).  If some warp is idle and its workload reaches the maximum seen (or it has posted
 *     before), it posts it with atomicMax on DFlags.wlmax;
 *     if it holds the maximum (ties too: equal warps share at once, so work spreads exponentially), it
 *     is "the busiest warp" and claims an idle warp in the two-level bitmap (top: which 32-warp words
 *     have idle warps; bottom: one bit per warp; claimed by atomicAnd clearing the bit, only the warp
 *     that saw it set owns it); a warp lowers its own posted value as its work shrinks (CAS) and clears
 *     it when it goes idle, so the maximum does not go stale;
 *   - the hand-off: half of the tuples of level j0 (level 0: the upper half of its row range; else the
 *     top queue ranges, the last one split, at most LB_MB_ENT = 32 ranges with their ancestors) written
 *     into the idle warp's own mailbox (global memory), then __threadfence and its mailbox word set;
 *     the idle warp copies the ranges into its queues (through L2: __ldcg) and is busy again;
 *   - termination: DFlags.nidle counts idle warps.  A warp going idle sets its bitmap bits, then
 *     increments nidle, then polls (with __nanosleep back-off) its mailbox word, nidle == all warps (the
 *     end) and DFlags.stop (an error).  A donor decrements nidle for the warp it claimed BEFORE it writes
 *     the hand-off, while it is busy itself, so nidle cannot reach all warps while work is in flight:
 *     once every warp is idle no warp can hand anything off, and every warp leaves.  A donor never waits
 *     for anyone; an idle warp waits only for its mailbox, nidle or stop.  Every warp-wide decision
 *     (stop, level, donate, wake) is taken by lane 0 or from shared memory after __syncwarp and broadcast,
 *     so all 32 lanes always reach the same __syncwarp / __shfl_sync / __ballot_sync.
 *   Memory ordering: bitmap bits, nidle, wlmax and mailbox words are changed with device-scope atomics;
 *   bottom bit set, __threadfence, top bit set (and a claimer that empties a bottom word clears its top
 *   bit, __threadfence, and sets it again if the bottom word is no longer empty); hand-off data is
 *   written by all lanes, each fences, __syncwarp, lane 0 fences and sets the mailbox word; the receiver
 *   reads the word with ld.acquire, __syncwarp, and the data with __ldcg.  Hand-offs are rare (at most
 *   one per check), so none of this is on the per-tuple path.
 *
 * Errors: the first one wins (record_error), with the tuple's source row (its level-0 offset); every warp
 * stops within two iterations (the stop word is loaded one iteration ahead, so the load does not stall
 * the warp), idle ones leave their wait.  A full AGG table / DISTINCT set stops the
 * pass as in pipeline_kernel (ST_ABORT).  Cancel (tm_gpu_pool_cancel): lane 0 of a busy warp reads the
 * pool's cancel word at the start of an iteration (at most every CANCEL_POLL_CYCLES) and, if it is set,
 * sets DFlags.stop: every warp leaves as after an error, and the host reports the pass canceled.
 *
 * Figures (DFlags.lb_*): warp iterations, idle lanes (32 - T per iteration), hand-offs, and per warp its
 * busy cycles (clock64 while it has work), summed and maximized over warps.
 *
 * Grid and memory (lb_grid, launch_lb): up to 8 warps per block (fewer where their queues would take more
 * than 96 KB of shared memory: deep pipelines), as many blocks as can be resident at once (occupancy
 * API; tm_gpu_set_lb_max_warps limits it for tests).  NIFS is a plain launch; AWS a cooperative one,
 * retried with half the blocks if the device refuses that many, and needs scratch from the pool for the
 * pass (lb_scratch_layout: per warp a mailbox word, 4 header ints and LB_MB_ENT ranges of nops + 2 ints,
 * and the bitmaps; about 0.4 to 1 KB per warp), which chunk sizing counts (Src.lb_bytes).  With NIFS the
 * COUNT pass only counts (no per-row counts and prefix sum), so chunks need no COUNT arrays either.
 */
#define LB_TPB				256			/* threads per block at most (fewer for deep pipelines) */
#define LB_QCAP				64			/* ranges of a level's queue per warp: 2 x 32 */
#define LB_MB_ENT			32			/* ranges of a hand-off at most */
#define LB_MAXL				(TM_GPU_MAX_OPS + 1)	/* levels */
#define LB_FULL				0xffffffffu
#define LB_MAX_WARPS		32768		/* the top level of the idle bitmap is one word per lane */

/* per-warp state in shared memory; the queues follow it (lb_queue) */
struct LbHdr
{
	long long	pend[LB_MAXL];	/* tuples pending per level (level 0: hi0 - lo0) */
	int			nent[LB_MAXL];	/* ranges in the queue of each level >= 1 */
	int			lo0;			/* level 0: source rows [lo0, hi0) */
	int			hi0;
};

#define LB_HDR_BYTES		((int) ((sizeof(LbHdr) + 15) & ~(size_t) 15))

/* kernel arguments of the scheduler */
struct DLb
{
	int			mode;			/* TM_GPU_LB_NIFS / TM_GPU_LB_NIFS_AWS */
	int			nwarps;			/* warps of the grid (blocks x wpb) */
	int			wpb;			/* warps per block */
	int			warp_bytes;		/* shared memory per warp */
	int			mbstride;		/* ints per hand-off range: start, end, nops ancestors at most */
	int			nbm1;			/* words of the bottom / top level of the idle bitmap */
	int			nbm2;
	int			pad;
	/* AWS only */
	int		   *mbstate;		/* per warp: 1 = a hand-off waits in its mailbox */
	unsigned int *bm1;			/* one bit per warp: idle and not claimed */
	unsigned int *bm2;			/* one bit per word of bm1: it may have a bit set */
	int		   *mbhdr;			/* per warp 4 ints: level, ranges, (level 0) lo, hi */
	int		   *mbent;			/* per warp LB_MB_ENT ranges of mbstride ints */
};

/* shared memory of one warp for a pipeline of nops ops */
static inline int
lb_warp_bytes(int nops)
{
	int			ints = 0;

	for (int j = 1; j <= nops; j++)
		ints += LB_QCAP * (j + 2);
	return LB_HDR_BYTES + 4 * ints;
}

/* the queue of level j >= 1: start[LB_QCAP], end[LB_QCAP], then ancestor k's offsets [LB_QCAP], k < j */
__device__ __forceinline__ int *
lb_queue(int *Q, int j)
{
	return Q + LB_QCAP * ((j - 1) * j / 2 + 2 * (j - 1));
}

__device__ __forceinline__ unsigned int
lb_lanemask_lt(int lane)
{
	return (1u << lane) - 1u;
}

__device__ __forceinline__ int
lb_scan_int(int v, int lane)	/* inclusive */
{
	for (int d = 1; d < 32; d <<= 1)
	{
		int			u = __shfl_up_sync(LB_FULL, v, d);

		if (lane >= d)
			v += u;
	}
	return v;
}

__device__ __forceinline__ long long
lb_scan_ll(long long v, int lane)	/* inclusive */
{
	for (int d = 1; d < 32; d <<= 1)
	{
		long long	u = __shfl_up_sync(LB_FULL, v, d);

		if (lane >= d)
			v += u;
	}
	return v;
}

__device__ __forceinline__ long long
lb_sum_ll(long long v)
{
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_xor_sync(LB_FULL, v, d);
	return v;
}

__device__ __forceinline__ unsigned int
lb_or(unsigned int v)
{
	for (int d = 16; d > 0; d >>= 1)
		v |= __shfl_xor_sync(LB_FULL, v, d);
	return v;
}

__device__ __forceinline__ int
ld_acquire_int(const int *p)
{
	int			v;

	asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ int
ld_volatile_int(const int *p)
{
	return *(volatile const int *) p;
}

__device__ __forceinline__ unsigned int
ld_volatile_u32(const unsigned int *p)
{
	return *(volatile const unsigned int *) p;
}

/* ceil(log2(x)), x >= 1 */
__device__ __forceinline__ unsigned int
lb_clog2(unsigned long long x)
{
	return x <= 1 ? 0u : (unsigned int) (64 - __clzll((long long) (x - 1)));
}

/* a set bit of m (m != 0), searching from bit rot upwards (cyclically): spreads the claims */
__device__ __forceinline__ int
lb_pick(unsigned int m, int rot)
{
	int			r = rot & 31;
	unsigned int x = r ? ((m >> r) | (m << (32 - r))) : m;

	return ((__ffs((int) x) - 1) + r) & 31;
}

/* the level an iteration takes (NIFS), or -1: nothing pending */
__device__ __forceinline__ int
lb_choose(const LbHdr *H, int nops)
{
	for (int j = nops; j >= 0; j--)
		if (H->pend[j] >= 32)
			return j;
	for (int j = 0; j <= nops; j++)
		if (H->pend[j] > 0)
			return j;
	return -1;
}

/* the slots that the work on a tuple of level j reads, from its offsets anc[0 .. j] */
__device__ __forceinline__ void
lb_load(const DPipe *P, int j, const int *anc, TmValue *vals, bool *nulls)
{
	for (int i = P->lboff[j]; i < P->lboff[j + 1]; i++)
	{
		DLRef		ref = P->lbref[i];

		if (ref.level == 0)
			load_col(&P->srccols[ref.col], (int64_t) anc[0], &vals[ref.slot], &nulls[ref.slot]);
		else
		{
			int			r = anc[ref.level];
			const DJoin *ht = P->ops[ref.level - 1].ht;

			if (r < 0)
			{
				vals[ref.slot].n = 0;	/* the NULL row of a LEFT probe */
				nulls[ref.slot] = true;
			}
			else
			{
				vals[ref.slot] = ht->pay[ref.col][r];
				nulls[ref.slot] = ht->paynulls[ref.col][r] != 0;
			}
		}
	}
}

/*
 * A global AGG (no group keys) of count(*) / count(x) / sum(int2, int4) / min, max(integer kinds), no
 * DISTINCT (DPipe.lb_local): each lane keeps partial states (lacc, lseen: aggregate a has seen a value)
 * and the warp adds them into the group's state once, at the end of the kernel (lb_agg_flush), instead
 * of an atomic on the same words per sink row.  The same arithmetic (int sums wrap, as int4_sum), in
 * another order.  Order of evaluation per row as agg_update: FILTER, then the argument, aggregate by
 * aggregate.
 */
#define LB_LOCAL_AGGS		8

__device__ int
lb_agg_local(const DPipe *P, const TmValue *vals, const bool *nulls, long long *lacc, unsigned int *lseen)
{
	for (int a = 0; a < P->naggs; a++)
	{
		const DAgg *ag = &P->aggs[a];
		TmValue		v;
		bool		isnull;
		int			st;

		if (ag->filter != NULL)
		{
			bool		pass;

			st = agg_filter(ag, vals, nulls, &pass);
			if (st != TM_OK)
				return st;
			if (!pass)
				continue;
		}
		if (ag->kind == TM_AGG_COUNT_STAR)
		{
			lacc[a]++;
			continue;
		}
		st = agg_arg(ag, vals, nulls, &v, &isnull);
		if (st != TM_OK)
			return st;
		if (isnull)
			continue;
		if (ag->mode == AM_COUNT)
			lacc[a]++;
		else if (ag->mode == AM_SUM_I64)
		{
			lacc[a] = (long long) ((unsigned long long) lacc[a] + (unsigned long long) v.i);
			*lseen |= 1u << a;
		}
		else
		{
			lacc[a] = ag->kind == TM_AGG_MIN ? min(lacc[a], (long long) v.i) : max(lacc[a], (long long) v.i);
			*lseen |= 1u << a;
		}
	}
	return TM_OK;
}

/* the identities of the partial states */
__device__ __forceinline__ void
lb_agg_init(const DPipe *P, long long *lacc)
{
	for (int a = 0; a < LB_LOCAL_AGGS; a++)
		lacc[a] = 0;
	for (int a = 0; a < P->naggs && a < LB_LOCAL_AGGS; a++)
		if (P->aggs[a].mode == AM_MINMAX_INT)
			lacc[a] = P->aggs[a].kind == TM_AGG_MIN ? INT64_MAX : INT64_MIN;
}

/* the warp's partial states into group 0's state (whole warp) */
__device__ void
lb_agg_flush(const DPipe *P, const DRun &R, const long long *lacc, unsigned int lseen, int lane)
{
	unsigned int seen = lb_or(lseen);

	for (int a = 0; a < P->naggs; a++)
	{
		const DAgg *ag = &P->aggs[a];
		long long	v = lacc[a];

		for (int d = 16; d > 0; d >>= 1)
		{
			long long	o = __shfl_xor_sync(LB_FULL, v, d);

			if (ag->mode != AM_MINMAX_INT)
				v = (long long) ((unsigned long long) v + (unsigned long long) o);
			else
				v = ag->kind == TM_AGG_MIN ? min(v, o) : max(v, o);
		}
		if (lane == 0)
		{
			const DAggState *S = &R.astate[a];

			if (ag->mode == AM_COUNT)
			{
				if (v != 0)
					atomicAdd(S->w, (unsigned long long) v);
			}
			else if ((seen >> a) & 1u)
			{
				if (ag->mode == AM_SUM_I64)
					atomicAdd(S->w, (unsigned long long) v);
				else if (ag->kind == TM_AGG_MIN)
					atomicMin((long long *) S->w, v);
				else
					atomicMax((long long *) S->w, v);
				mark_seen(&S->seen[0]);
			}
		}
	}
}

/*
 * The work on one tuple of level j (its offsets anc[0 .. j]): see the design above.  Children of op j:
 * [*cs, *ce) of level j + 1 (empty: none).  At the sink, COUNT passes and AGG are done here (sink_row);
 * the RUN pass of EMIT / HASH_BUILD only decides *emit (HASH_BUILD: and evaluates the keys into hkeys,
 * their hash into *hh); lb_write writes the row once the warp has taken positions.
 */
__device__ int
lb_visit(const DPipe *P, const DRun &R, int j, const int *anc, TmValue *vals, bool *nulls, int *cs, int *ce,
		 bool *emit, TmValue *hkeys, uint64_t *hh, long long *cnt, long long *lacc, unsigned int *lseen)
{
	int			st;

	*cs = *ce = 0;
	*emit = false;
	lb_load(P, j, anc, vals, nulls);

	/* 1. the residual of the probe that made this tuple */
	if (j > 0)
	{
		const DOp  *pop = &P->ops[j - 1];

		if (pop->kind == TM_OP_PROBE && pop->qual != NULL && anc[j] >= 0 &&
			(pop->jointype == TM_JOIN_INNER || pop->jointype == TM_JOIN_LEFT))
		{
			bool		pass;

			st = op_qual(pop, vals, nulls, &pass);
			if (st != TM_OK || !pass)
				return st;
		}
	}

	/* 2. the sink */
	if (j == P->nops)
	{
		long long	pos = 0;

		if (R.pass == PASS_RUN && P->lb_local)
		{
			st = lb_agg_local(P, vals, nulls, lacc, lseen);
			if (st == TM_OK)
				(*cnt)++;
			return st;
		}
		if (R.pass != PASS_RUN || P->sinkkind == TM_SINK_AGG)
			return sink_row<false>(P, R, vals, nulls, &pos, cnt);
		if (P->sinkkind == TM_SINK_HASH_BUILD)
		{
			uint64_t	h = 0;

			for (int i = 0; i < P->nkeys; i++)
			{
				bool		isnull;

				st = x_eval(P->keys[i], P->fastx, vals, nulls, &hkeys[i], &isnull);
				if (st != TM_OK)
					return st;
				if (isnull)
					return TM_OK;	/* a NULL key never matches: the row is dropped */
				h = tm_hash_key(h, &hkeys[i], false, &P->keytypes[i]);
			}
			*hh = h;
		}
		*emit = true;
		(*cnt)++;
		return TM_OK;
	}

	/* 2. op j */
	{
		const DOp  *op = &P->ops[j];
		const DJoin *ht = op->ht;
		TmValue		keys[TM_GPU_MAX_KEYS];
		uint64_t	h = 0;
		bool		hasnull = false;
		int64_t		s = 0;
		int64_t		e = 0;
		int64_t		first;
		bool		any;

		if (op->kind == TM_OP_FILTER)
		{
			bool		pass;

			st = op_qual(op, vals, nulls, &pass);
			if (st == TM_OK && pass)
			{
				*cs = -1;
				*ce = 0;
			}
			return st;
		}
		for (int i = 0; i < op->nkeys; i++)
		{
			bool		isnull;

			st = x_eval(op->keys[i], op->fastx, vals, nulls, &keys[i], &isnull);
			if (st != TM_OK)
				return st;
			if (isnull)
			{
				hasnull = true;	/* NULL keys never match */
				break;
			}
			h = tm_hash_key(h, &keys[i], false, &ht->keytypes[i]);
		}
		if (hasnull || !join_lookup(ht, h, keys, &s, &e))
			s = e = 0;
		first = s;
		any = e > s;
		if (op->qual != NULL && op->jointype != TM_JOIN_INNER)
		{
			/* SEMI / ANTI / LEFT: is there a match that passes the residual? */
			any = false;
			for (int64_t r = s; r < e; r++)
			{
				bool		pass;

				fill_level(op, r, vals, nulls);
				st = op_qual(op, vals, nulls, &pass);
				if (st != TM_OK)
					return st;
				if (pass)
				{
					any = true;
					first = r;
					break;
				}
			}
		}
		switch (op->jointype)
		{
			case TM_JOIN_INNER:
				if (any)
				{
					*cs = (int) s;
					*ce = (int) e;
				}
				break;
			case TM_JOIN_LEFT:
				if (any)
				{
					*cs = (int) first;
					*ce = (int) e;
				}
				else
				{
					*cs = -1;
					*ce = 0;
				}
				break;
			case TM_JOIN_SEMI:
				if (any)
				{
					*cs = -1;
					*ce = 0;
				}
				break;
			default:			/* ANTI */
				if (!any)
				{
					*cs = -1;
					*ce = 0;
				}
				break;
		}
	}
	return TM_OK;
}

/* RUN pass of EMIT / HASH_BUILD: the row of the current tuple at output position pos */
__device__ int
lb_write(const DPipe *P, const DRun &R, const TmValue *vals, const bool *nulls, const TmValue *hkeys, uint64_t hh,
		 long long pos)
{
	int			c0 = (P->sinkkind == TM_SINK_HASH_BUILD) ? P->nkeys : 0;

	for (int i = 0; i < P->nvals; i++)
	{
		TmValue		v;
		bool		isnull;
		int			st = x_eval(P->vals[i], P->fastx, vals, nulls, &v, &isnull);

		if (st != TM_OK)
			return st;
		if (isnull)
			v.n = 0;
		R.outvals[c0 + i][pos] = v;
		R.outnulls[c0 + i][pos] = isnull ? 1 : 0;
	}
	if (P->sinkkind == TM_SINK_HASH_BUILD)
	{
		for (int i = 0; i < P->nkeys; i++)
		{
			R.outvals[i][pos] = hkeys[i];
			R.outnulls[i][pos] = 0;
		}
		R.outhash[pos] = hh;
	}
	return TM_OK;
}

/* append the children ranges [cs, ce) of the lanes (tuples of level j, offsets anc) to level j + 1 */
__device__ __forceinline__ void
lb_push(LbHdr *H, int *Q, int j, int lane, const int *anc, int cs, int ce, DFlags *F)
{
	bool		has = ce > cs;
	unsigned int m = __ballot_sync(LB_FULL, has);
	int			n1;
	int			add;
	long long	sz;

	if (m == 0)
		return;
	n1 = H->nent[j + 1];
	add = __popc(m);
	sz = lb_sum_ll(has ? (long long) ce - cs : 0);
	if (n1 + add > LB_QCAP)
	{
		/* cannot happen (see the bound in the design): fail rather than overwrite */
		if (lane == 0)
			record_error(F, TM_ERR_INTERNAL, -1);
		return;
	}
	if (has)
	{
		int		   *S = lb_queue(Q, j + 1);
		int			k = n1 + __popc(m & lb_lanemask_lt(lane));

		S[k] = cs;
		S[LB_QCAP + k] = ce;
		for (int i = 0; i <= j; i++)
			S[(2 + i) * LB_QCAP + k] = anc[i];
	}
	__syncwarp();
	if (lane == 0)
	{
		H->nent[j + 1] = n1 + add;
		H->pend[j + 1] += sz;
	}
}

/*
 * AWS: the warp's workload and the level it would share (*j0): its lowest level whose pending tuples can
 * be split (>= 2 of them; >= 64 at the sink level, less is not worth a hand-off).  0 (and *j0 = -1):
 * nothing to share.  A lone tuple of a lower level is skipped: NIFS leaves it pending while it drains the
 * levels above (they hold >= 32), so it would otherwise hide a large range behind it.
 */
__device__ __forceinline__ unsigned int
lb_workload(const LbHdr *H, int nops, int *j0)
{
	*j0 = -1;
	for (int j = 0; j <= nops; j++)
	{
		long long	cnt = H->pend[j];
		int			height = nops - j + 1;

		if (cnt >= 2 && (height >= 2 || cnt >= 64))
		{
			*j0 = j;
			return ((unsigned int) height << 8) | lb_clog2((unsigned long long) cnt + 1);
		}
	}
	return 0;
}

/* AWS, lane 0: claim an idle warp of bottom word w1 (word: its bits as last read); the warp, or -1 */
__device__ int
lb_claim_word(const DLb &L, int w1, unsigned int word)
{
	while (word != 0)
	{
		int			b = __ffs((int) word) - 1;
		unsigned int bit = 1u << b;
		unsigned int old = atomicAnd(&L.bm1[w1], ~bit);

		if (old & bit)
		{
			if ((old & ~bit) == 0)
			{
				/* the word is empty now: clear its top bit; set it again if a warp came meanwhile */
				unsigned int tb = 1u << (w1 & 31);

				atomicAnd(&L.bm2[w1 >> 5], ~tb);
				__threadfence();
				if (ld_volatile_u32(&L.bm1[w1]) != 0)
					atomicOr(&L.bm2[w1 >> 5], tb);
			}
			return w1 * 32 + b;
		}
		word = old & ~bit;		/* others took it: try the bits left */
	}
	return -1;
}

/*
 * AWS: claim an idle warp (whole warp: lanes read bitmap words in parallel, lane 0 claims).  The warp
 * (its bit cleared, nidle decremented for it), or -1.
 */
__device__ int
lb_claim(const DLb &L, DFlags *F, int wid, int lane)
{
	int			found = -1;
	bool		stale = false;

	/* the top level first: one word per lane */
	for (int attempt = 0; attempt < 4 && found < 0; attempt++)
	{
		unsigned int top = lane < L.nbm2 ? ld_volatile_u32(&L.bm2[lane]) : 0u;
		unsigned int tm = __ballot_sync(LB_FULL, top != 0);
		int			tw;
		int			w1;
		unsigned int word;
		unsigned int bm;
		int			b;

		if (tm == 0)
			break;
		tw = lb_pick(tm, wid + attempt);
		top = __shfl_sync(LB_FULL, top, tw);
		w1 = tw * 32 + lane;
		word = ((top >> lane) & 1u) != 0 && w1 < L.nbm1 ? ld_volatile_u32(&L.bm1[w1]) : 0u;
		bm = __ballot_sync(LB_FULL, word != 0);
		if (bm == 0)
		{
			stale = true;		/* top bits of empty words: a claim in progress, or a lost race */
			continue;
		}
		b = lb_pick(bm, wid * 7 + attempt);
		word = __shfl_sync(LB_FULL, word, b);
		if (lane == 0)
			found = lb_claim_word(L, tw * 32 + b, word);
		found = __shfl_sync(LB_FULL, found, 0);
		stale = found < 0;
	}
	/* the top level misled us: the bottom level, 32 words at a time */
	for (int base = 0; stale && found < 0 && base < L.nbm1; base += 32)
	{
		int			w1 = base + lane;
		unsigned int word = w1 < L.nbm1 ? ld_volatile_u32(&L.bm1[w1]) : 0u;
		unsigned int bm = __ballot_sync(LB_FULL, word != 0);
		int			b;

		if (bm == 0)
			continue;
		b = __ffs((int) bm) - 1;
		word = __shfl_sync(LB_FULL, word, b);
		if (lane == 0)
			found = lb_claim_word(L, base + b, word);
		found = __shfl_sync(LB_FULL, found, 0);
	}
	if (found >= 0 && lane == 0)
		atomicSub(&F->nidle, 1);	/* before the hand-off is written: see termination */
	return found;
}

/*
 * AWS: hand half of the tuples of level j0 (the warp's lowest splittable level, lb_workload) to the
 * claimed warp r: written into its mailbox, then its mailbox word set
 */
__device__ void
lb_give(const DLb &L, LbHdr *H, int *Q, int j0, int r, int lane)
{
	int		   *hdr = L.mbhdr + 4 * (size_t) r;

	if (j0 == 0)
	{
		if (lane == 0)
		{
			int			give = (H->hi0 - H->lo0) / 2;

			hdr[0] = 0;
			hdr[1] = 0;
			hdr[2] = H->hi0 - give;
			hdr[3] = H->hi0;
			H->hi0 -= give;
			H->pend[0] -= give;
		}
	}
	else
	{
		long long	give = H->pend[j0] / 2;
		int			n = H->nent[j0];
		int		   *S = lb_queue(Q, j0);
		int			idx = n - 1 - lane;		/* lane t: the t-th range from the top */
		int			rs = 0;
		int			re = 0;
		long long	incl;
		long long	excl;
		bool		take;
		bool		whole;
		int			gs;
		int			m;
		int			nwhole;
		long long	given;

		if (idx >= 0)
		{
			rs = S[idx];
			re = S[LB_QCAP + idx];
		}
		incl = lb_scan_ll((long long) re - rs, lane);
		excl = incl - ((long long) re - rs);
		take = idx >= 0 && excl < give;
		whole = take && incl <= give;
		gs = (take && !whole) ? re - (int) (give - excl) : rs;	/* split: the donor keeps [rs, gs) */
		m = __popc(__ballot_sync(LB_FULL, take));
		nwhole = __popc(__ballot_sync(LB_FULL, whole));
		given = lb_sum_ll(take ? (long long) re - gs : 0);
		if (take)
		{
			int		   *ent = L.mbent + ((size_t) r * LB_MB_ENT + lane) * L.mbstride;

			ent[0] = gs;
			ent[1] = re;
			for (int k = 0; k < j0; k++)
				ent[2 + k] = S[(2 + k) * LB_QCAP + idx];
		}
		__syncwarp();
		if (take && !whole)
			S[LB_QCAP + idx] = gs;
		if (lane == 0)
		{
			hdr[0] = j0;
			hdr[1] = m;
			H->nent[j0] = n - nwhole;
			H->pend[j0] -= given;
		}
	}
	__threadfence();
	__syncwarp();
	if (lane == 0)
	{
		__threadfence();
		atomicExch(&L.mbstate[r], 1);
	}
	__syncwarp();
}

/*
 * AWS: a check of a busy warp (see the design); returns the iterations until the next one.  nid and
 * wlseen: DFlags.nidle and DFlags.wlmax as lane 0 read them at the start of the iteration (the loads
 * overlap the iteration's work); only a warp whose workload reaches wlseen posts it with atomicMax.
 */
__device__ int
lb_share(const DPipe *P, const DLb &L, DFlags *F, LbHdr *H, int *Q, int wid, int lane, int nid,
		 unsigned int wlseen, unsigned int *posted, long long *handoffs)
{
	int			period;
	int			lg;
	int			j0;
	unsigned int w;
	int			cand = 0;
	int			r;

	nid = __shfl_sync(LB_FULL, nid, 0);
	wlseen = __shfl_sync(LB_FULL, wlseen, 0);
	if (nid <= 0)
		return 33;
	lg = 31 - __clz(max(1, L.nwarps / nid));
	period = 1 + min(32, lg);
	w = lb_workload(H, P->nops, &j0);
	if (lane == 0)
	{
		/* keep the posted maximum honest: lower (or clear) this warp's own stale value */
		if (*posted != 0 && *posted != w)
			*posted = (atomicCAS(&F->wlmax, *posted, w) == *posted) ? w : 0;
		if (w != 0 && (w >= wlseen || *posted != 0) && atomicMax(&F->wlmax, w) <= w)
		{
			cand = 1;
			*posted = w;
		}
	}
	cand = __shfl_sync(LB_FULL, cand, 0);
	if (!cand)
		return period;
	r = lb_claim(L, F, wid, lane);
	if (r < 0)
		return period;
	lb_give(L, H, Q, j0, r, lane);
	(*handoffs)++;
	w = lb_workload(H, P->nops, &j0);
	if (lane == 0 && *posted != 0 && *posted != w)
		*posted = (atomicCAS(&F->wlmax, *posted, w) == *posted) ? w : 0;
	return period;
}

/*
 * AWS: the warp has no work.  Register it idle (bitmap, then nidle) and wait for a hand-off (true: it is
 * in the queues now) or the end of the pass (false: every warp idle, or an error).
 */
__device__ bool
lb_wait(const DLb &L, DFlags *F, LbHdr *H, int *Q, int wid, int lane, unsigned int *posted)
{
	int			got = 0;
	const int  *hdr = L.mbhdr + 4 * (size_t) wid;
	int			lv;
	int			m;

	if (lane == 0)
	{
		unsigned int ns = 64;

		if (*posted != 0)
		{
			atomicCAS(&F->wlmax, *posted, 0u);
			*posted = 0;
		}
		__threadfence();
		atomicOr(&L.bm1[wid >> 5], 1u << (wid & 31));
		__threadfence();
		atomicOr(&L.bm2[wid >> 10], 1u << ((wid >> 5) & 31));
		__threadfence();
		atomicAdd(&F->nidle, 1);
		for (;;)
		{
			if (ld_acquire_int(&L.mbstate[wid]) != 0)
			{
				got = 1;
				break;
			}
			if (ld_volatile_int(&F->nidle) >= L.nwarps || ld_volatile_int(&F->stop) != 0)
				break;
			__nanosleep(ns);
			if (ns < 2048)
				ns <<= 1;
		}
	}
	__syncwarp();				/* orders lane 0's acquire before the other lanes' reads */
	got = __shfl_sync(LB_FULL, got, 0);
	if (!got)
		return false;
	(void) ld_acquire_int(&L.mbstate[wid]);	/* and each lane's own (the word stays 1 until reset below) */
	lv = __ldcg(&hdr[0]);
	m = __ldcg(&hdr[1]);
	if (lv == 0)
	{
		if (lane == 0)
		{
			H->lo0 = __ldcg(&hdr[2]);
			H->hi0 = __ldcg(&hdr[3]);
			H->pend[0] = H->hi0 - H->lo0;
		}
	}
	else
	{
		long long	sz = 0;

		if (lane < m)
		{
			const int  *ent = L.mbent + ((size_t) wid * LB_MB_ENT + lane) * L.mbstride;
			int		   *S = lb_queue(Q, lv);
			int			s = __ldcg(&ent[0]);
			int			e = __ldcg(&ent[1]);

			S[lane] = s;
			S[LB_QCAP + lane] = e;
			for (int k = 0; k < lv; k++)
				S[(2 + k) * LB_QCAP + lane] = __ldcg(&ent[2 + k]);
			sz = (long long) e - s;
		}
		sz = lb_sum_ll(sz);
		if (lane == 0)
		{
			H->nent[lv] = m;
			H->pend[lv] = sz;
		}
	}
	__syncwarp();
	if (lane == 0)
		*(volatile int *) &L.mbstate[wid] = 0;	/* no one writes it before this warp is idle again */
	__syncwarp();
	return true;
}

/* the pipeline over its source rows with the Themis scheduler: a persistent grid of L.nwarps warps */
__global__ void __launch_bounds__(LB_TPB, LB_MIN_BLOCKS)
nifs_kernel(const DPipe *__restrict__ P, DRun R, DLb L)
{
	extern __shared__ __align__(16) unsigned char lb_smem[];
	TmValue		vals[TM_GPU_MAX_SLOTS];
	bool		nulls[TM_GPU_MAX_SLOTS];
	int			anc[LB_MAXL];
	TmValue		hkeys[TM_GPU_MAX_KEYS];
	long long	lacc[LB_LOCAL_AGGS];
	unsigned int lseen = 0;
	const int	lane = (int) (threadIdx.x & 31);
	const int	wib = (int) (threadIdx.x >> 5);
	const int	wid = (int) blockIdx.x * L.wpb + wib;
	const int	nops = P->nops;
	const bool	aws = (L.mode == TM_GPU_LB_NIFS_AWS);
	DFlags	   *F = R.flags;
	LbHdr	   *H = (LbHdr *) (lb_smem + (size_t) wib * L.warp_bytes);
	int		   *Q = (int *) (lb_smem + (size_t) wib * L.warp_bytes + LB_HDR_BYTES);
	long long	cnt = 0;
	long long	t0;
	long long	busy = 0;
	long long	iters = 0;
	long long	idle = 0;
	long long	handoffs = 0;
	unsigned int posted = 0;
	int			until_check = 1;
	bool		active = true;
	int			stop_pre = 0;	/* lane 0: DFlags.stop as loaded one iteration earlier */
	DCancel		cp;				/* lane 0 reads the cancel word */

	if (wid >= L.nwarps)
		return;					/* whole warps (the grid is blocks x wpb warps) */
	for (int s = 0; s < P->nslots; s++)
	{
		vals[s] = P->init_vals[s];
		nulls[s] = P->init_nulls[s] != 0;
	}
	lb_agg_init(P, lacc);
	if (lane == 0)
	{
		long long	n = P->nrows;

		for (int j = 0; j < LB_MAXL; j++)
		{
			H->pend[j] = 0;
			H->nent[j] = 0;
		}
		H->lo0 = (int) (n * wid / L.nwarps);
		H->hi0 = (int) (n * (wid + 1) / L.nwarps);
		H->pend[0] = H->hi0 - H->lo0;
	}
	__syncwarp();
	t0 = clock64();
	cancel_init(&cp, R.cancel);

	for (;;)
	{
		int			stop = __shfl_sync(LB_FULL, stop_pre, 0);
		int			j;
		int			T;
		bool		has;
		int			cs = 0;
		int			ce = 0;
		bool		emit = false;
		uint64_t	hh = 0;
		int			pre_nid = 0;
		unsigned int pre_wl = 0;

		if (stop)
			break;
		if (lane == 0)
		{
			stop_pre = (int) stopped(F);	/* used at the next iteration: the load overlaps this one */
			if (cancel_poll(&cp))
			{
				/* canceled: every warp leaves as after an error (idle ones leave their wait on stop) */
				atomicExch(&F->stop, 1);
				stop_pre = 1;
			}
		}
		j = lb_choose(H, nops);
		if (j < 0)
		{
			busy += clock64() - t0;
			active = false;
			if (!aws || !lb_wait(L, F, H, Q, wid, lane, &posted))
				break;
			active = true;
			t0 = clock64();
			until_check = 1;
			continue;
		}

		/* a check at the end of this iteration: its loads now, used after the visit */
		if (aws && until_check <= 1 && lane == 0)
		{
			pre_nid = ld_volatile_int(&F->nidle);
			pre_wl = ld_volatile_u32(&F->wlmax);
		}

		/* take T tuples of level j, one per lane: anc[0 .. j] */
		T = H->pend[j] < 32 ? (int) H->pend[j] : 32;
		has = lane < T;
		if (j == 0)
		{
			anc[0] = H->lo0 + lane;
			__syncwarp();
			if (lane == 0)
			{
				H->lo0 += T;
				H->pend[0] -= T;
			}
		}
		else
		{
			int			n = H->nent[j];
			int		   *S = lb_queue(Q, j);
			int			idx = n - 1 - lane;		/* lane t: the t-th range from the top */
			int			rs = 0;
			int			re = 0;
			int			csz;
			int			excl;
			bool		touched;
			bool		full;
			unsigned int starts;
			int			nfull;
			int			my_t;

			if (idx >= 0)
			{
				rs = S[idx];
				re = S[LB_QCAP + idx];
			}
			csz = min(re - rs, 32);		/* sizes capped: T <= 32, and the scan stays small */
			excl = lb_scan_int(csz, lane) - csz;
			touched = idx >= 0 && excl < T;
			full = touched && re - rs <= T - excl;
			starts = lb_or(touched ? (1u << excl) : 0u);	/* bit p: a range starts at lane p */
			nfull = __popc(__ballot_sync(LB_FULL, full));
			my_t = __popc(starts & (lane == 31 ? LB_FULL : ((2u << lane) - 1u))) - 1;
			{
				int			src = my_t < 0 ? 0 : my_t;
				int			t_excl = __shfl_sync(LB_FULL, excl, src);
				int			t_rs = __shfl_sync(LB_FULL, rs, src);

				if (has)
				{
					int			eidx = n - 1 - my_t;

					anc[j] = t_rs + (lane - t_excl);
					for (int k = 0; k < j; k++)
						anc[k] = S[(2 + k) * LB_QCAP + eidx];
				}
			}
			__syncwarp();
			if (touched && !full)
				S[idx] = rs + (T - excl);	/* the partly taken range keeps its rest */
			if (lane == 0)
			{
				H->nent[j] = n - nfull;
				H->pend[j] -= T;
			}
		}

		/* visit (divergent), then the warp together again */
		if (has)
		{
			int			st = lb_visit(P, R, j, anc, vals, nulls, &cs, &ce, &emit, hkeys, &hh, &cnt, lacc, &lseen);

			if (st != TM_OK)
			{
				if (st != ST_ABORT)
					record_error(F, st, (long long) anc[0]);
				cs = ce = 0;
				emit = false;
			}
		}
		__syncwarp();
		if (j < nops)
			lb_push(H, Q, j, lane, anc, cs, ce, F);
		else if (R.pass == PASS_RUN && P->sinkkind != TM_SINK_AGG)
		{
			unsigned int em = __ballot_sync(LB_FULL, emit);

			if (em != 0)
			{
				unsigned long long base = 0;

				if (lane == 0)
					base = atomicAdd(&F->cursor, (unsigned long long) __popc(em));
				base = __shfl_sync(LB_FULL, base, 0);
				if (emit)
				{
					long long	pos = (long long) base + __popc(em & lb_lanemask_lt(lane));
					int			st = pos < R.limit ? lb_write(P, R, vals, nulls, hkeys, hh, R.base + pos)
						: TM_ERR_INTERNAL;	/* more rows than counted: cannot happen */

					if (st != TM_OK)
						record_error(F, st, (long long) anc[0]);
				}
			}
		}
		__syncwarp();
		iters++;
		idle += 32 - T;
		if (aws && --until_check <= 0)
			until_check = lb_share(P, L, F, H, Q, wid, lane, pre_nid, pre_wl, &posted, &handoffs);
	}
	if (active)
		busy += clock64() - t0;
	if (P->lb_local && R.pass == PASS_RUN)
		lb_agg_flush(P, R, lacc, lseen, lane);
	cnt = lb_sum_ll(cnt);
	if (lane == 0)
	{
		if (cnt > 0)
			atomicAdd(&F->sinkrows, (unsigned long long) cnt);
		atomicAdd(&F->lb_iters, (unsigned long long) iters);
		atomicAdd(&F->lb_idle, (unsigned long long) idle);
		if (handoffs > 0)
			atomicAdd(&F->lb_handoffs, (unsigned long long) handoffs);
		atomicAdd(&F->lb_busy_sum, (unsigned long long) busy);
		atomicMax(&F->lb_busy_max, (unsigned long long) busy);
	}
}

/* ------------------------------------------------------------------------------------------------
 * Small kernels: AGG table set-up and results, join build, output conversion
 * ------------------------------------------------------------------------------------------------
 */
#define GRID_STRIDE(i, n) \
	for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
		 i += (int64_t) gridDim.x * blockDim.x)

/* b &= m over n words (run_pass: a prefilter's bits within a sample's windows) */
__global__ void
and_bits_kernel(uint32_t *b, const uint32_t *m, long long n)
{
	GRID_STRIDE(i, n)
		b[i] &= m[i];
}

/* identity of atomicMin / atomicMax states */
__global__ void
agg_init_kernel(unsigned long long *w, long long cap, long long init)
{
	GRID_STRIDE(g, cap)
		w[3 * g] = (unsigned long long) init;
}

/* final value of aggregate state (one aggregate) of groups [0, ngroups) into a result column */
__global__ void
agg_final_kernel(DAggState S, int mode, long long ngroups, TmValue *out, uint8_t *outnulls,
				 DFlags *flags)
{
	GRID_STRIDE(g, ngroups)
	{
		const unsigned long long *w = &S.w[3 * g];
		TmValue		v;
		bool		isnull = (S.seen[g] == 0);

		v.n = 0;
		switch (mode)
		{
			case AM_COUNT:
				v.i = (int64_t) w[0];
				isnull = false;
				break;
			case AM_SUM_I64:
			case AM_MINMAX_INT:
				v.i = (int64_t) w[0];
				break;
			case AM_SUM_I192:
				/* fits 128 bits iff the top word is the sign extension of the middle one */
				if (w[2] != (((long long) w[1] < 0) ? ~0ULL : 0ULL))
				{
					record_error(flags, TM_ERR_FALLBACK, -1);
					isnull = true;
				}
				else
					v.n = (tm_int128) (((tm_uint128) w[1] << 64) | (tm_uint128) w[0]);
				break;
			case AM_LOCKED:
				memcpy(&v, w, sizeof(v));
				break;
		}
		if (isnull)
			v.n = 0;
		out[g] = v;
		outnulls[g] = isnull ? 1 : 0;
	}
}

/* join build: the directory slot of row r's keys (hash h), found or claimed */
__device__ __forceinline__ uint64_t
join_slot(const TmValue *const *keys, const TmType *keytypes, int nkeys, const uint64_t *hashes,
		  long long r, uint64_t h, unsigned int *dir, uint64_t mask)
{
	uint64_t	p = tm_ht_pos(h, mask);

	for (;;)
	{
		unsigned int e = atomicCAS(&dir[p], JDIR_EMPTY, (unsigned int) r);
		bool		eq;

		if (e == JDIR_EMPTY)
			return p;
		eq = hashes[e] == h;
		for (int k = 0; k < nkeys && eq; k++)
			eq = tm_values_equal(&keys[k][r], &keys[k][e], &keytypes[k]);
		if (eq)
			return p;
		p = (p + 1) & mask;
	}
}

/*
 * join build: each row finds or claims the directory slot of its keys.  The lanes of a warp whose rows
 * have the same hash (__match_any_sync) and keys equal to the first such lane's go to the directory once,
 * through that lane, which adds them to the slot's count in one atomic: rows come in runs of equal keys
 * where the source is clustered by the key (lineitem by l_orderkey: TPC-H Q4's and Q21's builds of 38 M
 * and 60 M rows), which did one CAS and one atomicAdd per row on the same few words
 */
__global__ void
join_insert_kernel(const TmValue *const *keys, const TmType *keytypes, int nkeys, const uint64_t *hashes,
				   long long n, unsigned int *dir, uint64_t mask, unsigned int *gid, int *cnt, int *repeated)
{
	const int	lane = (int) (threadIdx.x & 31);
	const long long nwarps = ((long long) gridDim.x * blockDim.x) >> 5;

	/* whole warps: the lanes past n leave in the last round, after the ballot */
	for (long long w = ((long long) blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * 32 < n; w += nwarps)
	{
		long long	r = w * 32 + lane;
		unsigned int act = __ballot_sync(0xffffffffu, r < n);
		uint64_t	h;
		unsigned int peers;
		int			lead;
		long long	lr;
		uint64_t	p = 0;
		bool		same = true;
		unsigned int group;
		int			k;

		if (r >= n)
			break;
		h = hashes[r];
		peers = __match_any_sync(act, h);
		lead = __ffs(peers) - 1;
		if (lane == lead)
			p = join_slot(keys, keytypes, nkeys, hashes, r, h, dir, mask);
		p = __shfl_sync(peers, p, lead);
		lr = __shfl_sync(peers, r, lead);
		for (k = 0; k < nkeys && same && lane != lead; k++)
			same = tm_values_equal(&keys[k][r], &keys[k][lr], &keytypes[k]);
		group = __ballot_sync(peers, same);
		if (!same)
			p = join_slot(keys, keytypes, nkeys, hashes, r, h, dir, mask);	/* equal hashes, other keys */
		gid[r] = (unsigned int) p;
		/* a key's second row says that keys repeat (same value from every writer: no atomic) */
		if (!same)
		{
			if (atomicAdd(&cnt[p], 1) == 1)
				*repeated = 1;
		}
		else if (lane == lead)
		{
			int			add = __popc(group);

			if (atomicAdd(&cnt[p], add) + add >= 2)
				*repeated = 1;
		}
	}
}

__global__ void
iota_kernel(unsigned int *v, long long n)
{
	GRID_STRIDE(i, n)
		v[i] = (unsigned int) i;
}

/* dst[i] = src[perm[i]] for columns of TmValues and their NULL bytes */
__global__ void
gather_kernel(const TmValue *src, const uint8_t *srcnulls, const unsigned int *perm, long long n,
			  TmValue *dst, uint8_t *dstnulls)
{
	GRID_STRIDE(i, n)
	{
		unsigned int r = perm[i];

		dst[i] = src[r];
		if (dstnulls != NULL)
			dstnulls[i] = srcnulls[r];
	}
}

__global__ void
join_entries_kernel(const unsigned int *dir, const int *cnt, const int *start, const uint64_t *hashes,
					long long dirsize, DEntry *entries)
{
	GRID_STRIDE(p, dirsize)
	{
		DEntry		e;

		e.hash = 0;
		e.start = 0;
		e.count = 0;
		if (cnt[p] > 0)
		{
			e.hash = hashes[dir[p]];
			e.start = start[p];
			e.count = cnt[p];
		}
		entries[p] = e;
	}
}

/* output conversion: TmValues to the fixed-width layout of kind */
__global__ void
to_fixed_kernel(const TmValue *src, const uint8_t *nulls, long long n, int kind, char *dst)
{
	GRID_STRIDE(i, n)
	{
		TmValue		v = src[i];

		if (nulls[i])
			v.n = 0;
		switch (kind)
		{
			case TM_K_BOOL:
				((uint8_t *) dst)[i] = (uint8_t) (v.i != 0);
				break;
			case TM_K_INT2:
				((int16_t *) dst)[i] = (int16_t) v.i;
				break;
			case TM_K_INT4:
			case TM_K_DATE:
				((int32_t *) dst)[i] = (int32_t) v.i;
				break;
			case TM_K_INT8:
			case TM_K_TIMESTAMP:
				((int64_t *) dst)[i] = v.i;
				break;
			case TM_K_FLOAT4:
				((float *) dst)[i] = (float) v.f;
				break;
			case TM_K_FLOAT8:
				((double *) dst)[i] = v.f;
				break;
			case TM_K_NUMERIC:
				((uint64_t *) dst)[2 * i] = (uint64_t) (tm_uint128) v.n;
				((uint64_t *) dst)[2 * i + 1] = (uint64_t) ((tm_uint128) v.n >> 64);
				break;
		}
	}
}

/* output conversion of text: lengths (lens[n] = 0 for the prefix sum) ... */
__global__ void
text_len_kernel(const TmValue *src, const uint8_t *nulls, long long n, long long *lens)
{
	GRID_STRIDE(i, n + 1)
		lens[i] = (i < n && !nulls[i]) ? (long long) src[i].s.len : 0;
}

/* ... then the bytes */
__global__ void
text_copy_kernel(const TmValue *src, const uint8_t *nulls, long long n, const long long *offs, char *dst)
{
	GRID_STRIDE(i, n)
	{
		if (!nulls[i])
		{
			const char *p = src[i].s.p;
			int32_t		len = src[i].s.len;

			for (int32_t j = 0; j < len; j++)
				dst[offs[i] + j] = p[j];
		}
	}
}

/* chunks: text offsets of a chunk relative to its first byte */
__global__ void
rebase_offsets_kernel(int64_t *offs, long long n, int64_t base)
{
	GRID_STRIDE(i, n)
		offs[i] -= base;
}

/*
 * chunks: a column of kept text values (TmValues at vals + r * stride, r < n; NULL where nulls[r] != 0
 * or seen[r] == 0) whose values that point into the chunk ([lo, hi]) are copied out of it
 */
struct DFix
{
	char	   *vals;
	long long	stride;
	const uint8_t *nulls;
	const unsigned int *seen;
	long long	n;
};

__device__ __forceinline__ TmValue *
fix_value(const DFix &F, long long r, const char *lo, const char *hi)
{
	TmValue    *v;

	if ((F.nulls != NULL && F.nulls[r] != 0) || (F.seen != NULL && F.seen[r] == 0))
		return NULL;
	v = (TmValue *) (F.vals + r * F.stride);
	if (v->s.p < lo || v->s.p > hi)
		return NULL;
	return v;
}

/* acc[0] += bytes of the values to copy, acc[1] += their number */
__global__ void
fix_measure_kernel(DFix F, const char *lo, const char *hi, unsigned long long *acc)
{
	unsigned long long bytes = 0;
	unsigned long long cnt = 0;

	GRID_STRIDE(r, F.n)
	{
		const TmValue *v = fix_value(F, r, lo, hi);

		if (v != NULL)
		{
			bytes += (unsigned long long) (v->s.len > 0 ? v->s.len : 0);
			cnt++;
		}
	}
	if (cnt > 0)
	{
		atomicAdd(&acc[0], bytes);
		atomicAdd(&acc[1], cnt);
	}
}

/* copy them to arena (*cursor: bytes of it taken) and repoint them */
__global__ void
fix_copy_kernel(DFix F, const char *lo, const char *hi, char *arena, unsigned long long *cursor)
{
	GRID_STRIDE(r, F.n)
	{
		TmValue    *v = fix_value(F, r, lo, hi);

		if (v != NULL)
		{
			const char *p = v->s.p;
			int32_t		len = v->s.len > 0 ? v->s.len : 0;
			unsigned long long off = len > 0 ? atomicAdd(cursor, (unsigned long long) len) : 0;

			for (int32_t j = 0; j < len; j++)
				arena[off + j] = p[j];
			v->s.p = arena + off;
		}
	}
}

/* ------------------------------------------------------------------------------------------------
 * Host side: pool, errors
 * ------------------------------------------------------------------------------------------------
 */
struct TmGpuPool
{
	int			dev;
	int			nsm;
	char	   *base;
	size_t		size;
	size_t		used;			/* bottom end: [0, used) is taken */
	size_t		hi;				/* top end: [hi, size) is taken (chunks) */
	size_t		peak;
	cudaStream_t stream;
	int			lb;				/* TmGpuLoadBalance */
	int			coop;			/* the device can launch cooperative kernels (AWS needs it) */
	int			smem_optin;		/* shared memory per block at most (opt-in) */
	bool		thread_sums;	/* pipeline_kernel may take PIPE_SMEM_MAX of dynamic shared memory (DRun.priv_t) */
	int			l2_bytes;		/* the device's L2 cache */
	int			join_algo;		/* TmGpuJoinAlgo */
	bool		no_fast_paths;	/* tm_gpu_pool_set_fast_paths(pool, 0): no DFastQual, x_eval, nlead */
	bool		private_global;	/* tm_gpu_pool_set_private_global: global AGGs block-private too */
	bool		group_wagg;		/* tm_gpu_pool_set_group_wagg: grouped AGGs' lanes combine (DAgg.wagg) */
	int			jit;			/* tm_gpu_pool_set_jit: kernels generated per pipeline (0 off, 1 on, 2 on
								 * and waited for) */
	bool		interp_always;	/* tm_gpu_pool_set_nointerp(pool, 0): pipeline_kernel<false> always */
	bool		static_rows;	/* tm_gpu_pool_set_dynamic_rows(pool, 0): DRun.dyn off */
	bool		plan_probe_order;	/* tm_gpu_pool_set_probe_order(pool, 0): the plan's probe order */
	int64_t		swap_rows;		/* tm_gpu_pool_set_swap_rows: which builds may change sides (run_swapped) */
	int64_t		fuse_sample;	/* tm_gpu_pool_set_swap_fuse: fuse_sample's least sample rows (INT64_MAX: all
								 * of every source; 0: builds held, never put off: run_fused) */
	/* tm_gpu_pool_set_topn: the cut of the output result before it leaves the device (n 0: none) */
	int64_t		topn_n;
	int			topn_col;
	bool		topn_desc;
	bool		topn_nulls_first;
	int64_t		topn_in;		/* the last execution: rows before the cut, -1 if none was made */
	volatile int *cancel;		/* tm_gpu_pool_cancel: mapped pinned host memory ... */
	const volatile int *cancel_dev;	/* ... and its device address (what kernels read) */
};

/* a device result: TmValue columns */
struct HResult
{
	bool		made;
	bool		by_agg;
	int			ncols;
	int64_t		nrows;
	TmValue   **vals;			/* host array of device pointers */
	uint8_t   **nulls;
};

/* a built join table */
struct HHash
{
	bool		built;
	bool		repeated;		/* some key has several build rows */
	int64_t		nrows;
	int64_t		src_rows;		/* source rows of the pipeline that built it (tm_probe_expansion) */
	const DJoin *d;				/* device */
	TmValue   **cols;			/* host array of its nkeys + npayload device columns (rows in d's order) */
	uint8_t   **paynulls;		/* host array of the payload columns' NULL arrays (npayload) */
	/* rows collected and not yet grouped by key, held for run_swapped (defer_rows) */
	bool		pending;
	int64_t		pend_n;
	int			pend_ncols;		/* nkeys + npayload */
	TmValue   **pend_cols;		/* host array of device columns, keys first (key NULL flags all 0) */
	uint8_t   **pend_nulls;
	uint64_t   *pend_hashes;	/* device: each row's key hash */
	/* its build pipeline put off (fuse_sample), to run in its probing pipeline (run_fused) */
	bool		fused;
	int			fuse_pipe;		/* that pipeline */
	double		fuse_ms;		/* the time of its count */
};

/* one tm_gpu_execute */
struct Ctx
{
	TmGpuPool  *pool;
	cudaStream_t stream;
	const TmPlan *plan;
	const TmPlan *plan0;		/* the plan as given (plan: run_swapped's copy, swplan, once it makes one) */
	char	   *err;
	int			errlen;
	int			rc;
	TmGpuFailure *fail;
	HResult    *results;
	HHash	   *hts;
	DFlags	   *dflags;			/* device: flags of the current pass */
	int			pipeline;		/* current pipeline, for messages */
	int64_t		row_base;		/* source row number of row 0 of the current chunk */
	int			lb;				/* the scheduler of this execution (TmGpuLoadBalance) */
	bool		empty_source;	/* the current pipeline reads no source row (pipeline_has_empty_probe) */
	int			lb_nops;		/* ops of the current pipeline (the NIFS grid depends on it) */
	/* the current pipeline's load-balance figures, over its passes */
	int			lb_passes;
	unsigned long long lb_iters;
	unsigned long long lb_idle;
	unsigned long long lb_handoffs;
	double		lb_max_sum;		/* sum over passes of the busiest warp's cycles */
	double		lb_avg_sum;		/* sum over passes of the average warp's cycles */
	const DPipe *pre_P;			/* the last pipeline uploaded, and its DPipe.npre (run_pass: the prefilter) */
	int			pre_nops;
	bool		pre_compact;	/* ... and whether pipeline_kernel runs it in pipeline_rows_compacted */
	bool		pre_plain;		/* ... and whether its prefilter has the plain form (DPipe.npretest) */
	bool		pre_nointerp;	/* ... and whether pipeline_kernel<true> runs it (DPipe.nointerp) */
	int			pre_semi_ht;	/* ... or the join table whose keys make its semi-join prefilter (-1: none) */
	int			pre_semi_col;	/* ... the source column of the probe's key, and its width */
	int			pre_semi_w;
	bool		prefiltered_semi;	/* ... the current pipeline's prefilter was the semi-join one */
	bool		prefiltered_plain;	/* ... the current pipeline's prefilter ran in the plain form */
	int64_t		prefiltered;	/* the current pipeline's passes with the prefilter */
	int64_t		nointerp_passes;	/* the current pipeline's passes in pipeline_kernel<true> */
	const void *pre_jit_fn;		/* the last pipeline uploaded: its generated kernel, NULL if none (yet) */
	int			pre_jit;		/* ... and where that stands (TmJitState) */
	int			jit_state;		/* the current pipeline's generated kernel: TmJitState of its last upload */
	int64_t		jit_passes;		/* ... its passes that ran in it */
	double		jit_ms;			/* ... NVRTC's time for it */
	int64_t		dyn_groups;		/* ... groups of rows its warps took as they finished (DFlags.wgroups) */
	bool		trace;			/* THEMIS_GPU_TRACE: time each step (trace_step) */
	double		trace_t;		/* when the last traced step ended */
	/* run_swapped */
	bool		defer_build;	/* the current pipeline's build may be held for its probe side ... */
	int64_t		defer_probe_rows;	/* ... whose source has so many rows (-1: not known yet) */
	bool		defer_probe_bare;	/* ... and whose one operator is the probe (tm_swap_hopeless) */
	long long	trial_limit;	/* > 0: the current build is a trial, to be built only with so many rows */
	bool		trial_declined;	/* ... it had more */
	int64_t		sample_rows;	/* > 0: the current build only counts its sink rows over so many source
								 * rows (all, or windows: sink_hash_build), into sample_n (fuse_sample) */
	long long	sample_n;		/* ... -1: it could not (chunks) */
	int64_t		sample_src;		/* ... the source rows it counted over */
	double		sample_ms;		/* fuse_sample's time, where it counted and did not put the build off */
	int			pj_res;			/* the result the partitioned join's probe side goes to */
	int			nres_alloc;		/* entries of results */
	TmPlan		swplan;			/* the plan with the swapped tables' definitions (plan points to it) */
	TmHashTable *swhts;			/* swplan.hashtables (malloc'd) */
	TmResult   *swres;			/* swplan.results (malloc'd) */
	TmType	   *swtypes[TM_GPU_MAX_SLOTS];	/* malloc'd payload types of swapped tables, to free */
	int			nswtypes;
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec * 1000.0 + (double) ts.tv_nsec / 1e6;
}

/*
 * THEMIS_GPU_TRACE (themis/tm_trace.h): each step of a pipeline (passes, prefix sums, the hash build's
 * insert / sort / gather, ...) timed to stderr (the server log), the stream synchronized after it, so
 * the query runs slower
 */
static void
trace_step(Ctx *c, const char *what, long long n)
{
	cudaError_t e;
	double		t;

	if (!c->trace)
		return;
	e = cudaStreamSynchronize(c->stream);
	t = now_ms();
	fprintf(stderr, "themis-gpud trace: pipeline %d %-16s %11lld %9.3f ms%s%s\n", c->pipeline, what, n,
			t - c->trace_t, e != cudaSuccess ? " " : "", e != cudaSuccess ? cudaGetErrorString(e) : "");
	c->trace_t = t;
}

static void
set_msg(char *err, int errlen, const char *fmt, ...)
{
	va_list		ap;

	if (err == NULL || errlen <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, (size_t) errlen, fmt, ap);
	va_end(ap);
}

/* record failure rc with a message (the first failure wins); returns false */
static bool
fail(Ctx *c, int rc, const char *fmt, ...)
{
	va_list		ap;

	if (c->rc != TM_GPU_OK)
		return false;
	c->rc = rc;
	if (c->fail != NULL && c->fail->pipeline < 0)
		c->fail->pipeline = c->pipeline;
	if (c->err != NULL && c->errlen > 0)
	{
		int			len = 0;

		if (c->pipeline >= 0)
			len = snprintf(c->err, (size_t) c->errlen, "pipeline %d: ", c->pipeline);
		if (len < 0 || len >= c->errlen)
			len = 0;
		va_start(ap, fmt);
		vsnprintf(c->err + len, (size_t) (c->errlen - len), fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool
fail_cuda(Ctx *c, const char *what, cudaError_t e)
{
	return fail(c, TM_GPU_ERR_CUDA, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

/* every CUDA call is checked: on failure, record it and return false from the calling function */
#define CK(call) \
	do { \
		cudaError_t ck_rc_ = (call); \
		if (ck_rc_ != cudaSuccess) \
			return fail_cuda(c, #call, ck_rc_); \
	} while (0)

/* a kernel launch: check the launch itself */
#define LAUNCH_CHECK(name) \
	do { \
		cudaError_t ck_rc_ = cudaGetLastError(); \
		if (ck_rc_ != cudaSuccess) \
			return fail_cuda(c, name, ck_rc_); \
	} while (0)

static const char *
status_name(int st)
{
	switch (st)
	{
		case TM_ERR_DIV_BY_ZERO: return "division by zero";
		case TM_ERR_INT2_OUT_OF_RANGE: return "smallint out of range";
		case TM_ERR_INT4_OUT_OF_RANGE: return "integer out of range";
		case TM_ERR_INT8_OUT_OF_RANGE: return "bigint out of range";
		case TM_ERR_FLOAT_OVERFLOW: return "value out of range: overflow";
		case TM_ERR_FLOAT_UNDERFLOW: return "value out of range: underflow";
		case TM_ERR_DATE_OUT_OF_RANGE: return "date out of range";
		case TM_ERR_TIMESTAMP_OUT_OF_RANGE: return "timestamp out of range";
		case TM_ERR_NUMERIC_OUT_OF_RANGE: return "value overflows numeric format";
		case TM_ERR_SUBSTRING_NEGATIVE: return "negative substring length not allowed";
		case TM_ERR_LIKE_ESCAPE: return "LIKE pattern must not end with escape character";
		case TM_ERR_FALLBACK: return "value not representable by themis";
		case TM_ERR_INTERNAL: return "internal error (malformed bytecode)";
		default: return "unknown error";
	}
}

static size_t
align_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* n, at least 1 (sizes of arrays that may be empty) */
static size_t
Max1(int64_t n)
{
	return n > 0 ? (size_t) n : 1;
}

/* bytes between the two ends of the pool */
static size_t
pool_free(const TmGpuPool *pool)
{
	size_t		off = align_up(pool->used, POOL_ALIGN);

	return off > pool->hi ? 0 : pool->hi - off;
}

static void
pool_note_peak(TmGpuPool *pool)
{
	size_t		inuse = pool->used + (pool->size - pool->hi);

	if (inuse > pool->peak)
		pool->peak = inuse;
}

/* bytes from the bottom of the pool (aligned to POOL_ALIGN), NULL with TM_GPU_ERR_NOMEM if they do not fit */
static void *
pool_alloc(Ctx *c, size_t bytes)
{
	TmGpuPool  *pool = c->pool;
	size_t		off = align_up(pool->used, POOL_ALIGN);

	if (bytes == 0)
		bytes = 1;
	if (off > pool->hi || bytes > pool->hi - off)
	{
		fail(c, TM_GPU_ERR_NOMEM, "device pool exhausted: %zu bytes requested, %zu of %zu free",
			 bytes, pool_free(pool), pool->size);
		return NULL;
	}
	pool->used = off + bytes;
	pool_note_peak(pool);
	return pool->base + off;
}

/* pool_alloc where there is room, else NULL without a failure */
static void *
pool_try_alloc(Ctx *c, size_t bytes)
{
	TmGpuPool  *pool = c->pool;
	size_t		off = align_up(pool->used, POOL_ALIGN);

	if (bytes == 0 || off > pool->hi || bytes > pool->hi - off)
		return NULL;
	return pool_alloc(c, bytes);
}

/* bytes from the top of the pool (chunks: given back by resetting pool->hi) */
static void *
pool_alloc_hi(Ctx *c, size_t bytes)
{
	TmGpuPool  *pool = c->pool;
	size_t		off = align_up(pool->used, POOL_ALIGN);
	size_t		nb = align_up(bytes > 0 ? bytes : 1, POOL_ALIGN);

	if (off > pool->hi || nb > pool->hi - off)
	{
		fail(c, TM_GPU_ERR_NOMEM, "device pool exhausted: %zu bytes requested, %zu of %zu free",
			 bytes, pool_free(pool), pool->size);
		return NULL;
	}
	/* off is aligned, hi - nb >= off: aligning down stays above the bottom end */
	pool->hi = (pool->hi - nb) & ~(size_t) (POOL_ALIGN - 1);
	pool_note_peak(pool);
	return pool->base + pool->hi;
}

template <class T>
static T *
dalloc(Ctx *c, size_t n)
{
	return (T *) pool_alloc(c, sizeof(T) * n);
}

template <class T>
static T *
dalloc_hi(Ctx *c, size_t n)
{
	return (T *) pool_alloc_hi(c, sizeof(T) * n);
}

/* n elements of host array h to a new device array (hi: at the top of the pool; NULL on failure) */
template <class T>
static T *
upload(Ctx *c, const T *h, size_t n, bool hi = false)
{
	T		   *d = hi ? dalloc_hi<T>(c, n) : dalloc<T>(c, n);
	cudaError_t e;

	if (d == NULL)
		return NULL;
	if (n == 0)
		return d;
	e = cudaMemcpyAsync(d, h, sizeof(T) * n, cudaMemcpyHostToDevice, c->stream);
	if (e != cudaSuccess)
	{
		fail_cuda(c, "cudaMemcpyAsync (upload)", e);
		return NULL;
	}
	return d;
}

static int	g_max_blocks = 0;		/* tm_gpu_set_max_blocks: 0 = no limit */

/* blocks of a grid-stride launch over n items: at most 16 per multiprocessor (and g_max_blocks) */
static int
nblocks(Ctx *c, int64_t n)
{
	int64_t		b = (n + TPB - 1) / TPB;
	int64_t		maxb = (int64_t) c->pool->nsm * 16;

	if (g_max_blocks > 0 && maxb > g_max_blocks)
		maxb = g_max_blocks;
	if (b > maxb)
		b = maxb;
	return b < 1 ? 1 : (int) b;
}

static void *
xmalloc0(Ctx *c, size_t bytes)
{
	void	   *p = calloc(1, bytes > 0 ? bytes : 1);

	if (p == NULL)
		fail(c, TM_GPU_ERR_HOST_NOMEM, "out of host memory (%zu bytes)", bytes);
	return p;
}

/* exclusive prefix sum of n values (CUB); temporary storage is given back to the pool at once */
template <class T>
static bool
exclusive_sum(Ctx *c, const T *in, T *out, int n)
{
	size_t		tbytes = 0;
	size_t		mark = c->pool->used;
	void	   *tmp;

	CK(cub::DeviceScan::ExclusiveSum(NULL, tbytes, in, out, n, c->stream));
	tmp = pool_alloc(c, tbytes);
	if (tmp == NULL)
		return false;
	CK(cub::DeviceScan::ExclusiveSum(tmp, tbytes, in, out, n, c->stream));
	/* later work on the stream runs after the scan: the temporary bytes can be reused */
	c->pool->used = mark;
	return true;
}

/* read n bytes of device memory (waits for the stream) */
static bool
download(Ctx *c, void *h, const void *d, size_t n)
{
	CK(cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, c->stream));
	CK(cudaStreamSynchronize(c->stream));
	return true;
}

/* ------------------------------------------------------------------------------------------------
 * Host side: plan checks
 * ------------------------------------------------------------------------------------------------
 */
static bool
kind_is_text(int kind)
{
	return kind == TM_K_TEXT || kind == TM_K_BPCHAR;
}

extern "C" int
tm_gpu_kind_width(int kind)
{
	return tm_kind_width(kind);
}

/* the layout class of a kind: kinds of one class share a column layout */
static int
layout_class(int kind)
{
	switch (kind)
	{
		case TM_K_INT4:
		case TM_K_DATE:
			return TM_K_INT4;
		case TM_K_INT8:
		case TM_K_TIMESTAMP:
			return TM_K_INT8;
		case TM_K_TEXT:
		case TM_K_BPCHAR:
			return TM_K_TEXT;
		default:
			return kind;
	}
}

static bool
kind_is_intlike(int kind)
{
	return kind == TM_K_BOOL || kind == TM_K_INT2 || kind == TM_K_INT4 || kind == TM_K_INT8 ||
		kind == TM_K_DATE || kind == TM_K_TIMESTAMP;
}

/* expression e is well formed for a pipeline with nslots slots */
static bool
check_expr(Ctx *c, const TmExpr *e, int nslots, const char *what)
{
	int		   *depth;
	bool		ok;

	if (e == NULL)
		return fail(c, TM_GPU_ERR_BAD_PLAN, "%s: missing expression", what);
	if (e->ninstr < 1 || e->total_size < (int32_t) sizeof(TmExpr))
		return fail(c, TM_GPU_ERR_BAD_PLAN, "%s: malformed expression", what);
	depth = (int *) xmalloc0(c, sizeof(int) * ((size_t) e->ninstr + 1));
	if (depth == NULL)
		return false;
	ok = tm_expr_validate(e, nslots, depth);
	free(depth);
	if (!ok)
		return fail(c, TM_GPU_ERR_BAD_PLAN, "%s: malformed expression", what);
	return true;
}

/*
 * Can a source row of pl give several sink rows?  Only through an INNER / LEFT probe of a table in which
 * some key has several build rows (HHash.repeated; a table not built yet counts as one).  Probes of
 * tables with unique keys (TPC-H's joins on primary keys) give at most one row per source row, so an
 * aggregation over them needs no COUNT pass to bound its rows: the source rows bound them.
 */
static bool
has_fanout(const Ctx *c, const TmPipeline *pl)
{
	for (int k = 0; k < pl->nops; k++)
	{
		const TmOp *op = &pl->ops[k];

		if (op->kind != TM_OP_PROBE || (op->jointype != TM_JOIN_INNER && op->jointype != TM_JOIN_LEFT))
			continue;
		if (op->ht < 0 || op->ht >= c->plan->nhashtables || !c->hts[op->ht].built || c->hts[op->ht].repeated)
			return true;
	}
	return false;
}

/* the device memory of a group table with room for cap groups of nk keys and na aggregates, about */
static size_t
agg_table_bytes(int nk, int na, long long cap)
{
	return (size_t) cap * (2 * sizeof(unsigned long long) + sizeof(uint64_t) +
						   (size_t) nk * (sizeof(TmValue) + 1) + (size_t) na * (3 * 8 + 4 + 4));
}

/* may the ops of the pipeline drop a source row (all but LEFT probes may)? */
static bool
may_drop_rows(const TmPipeline *pl)
{
	for (int k = 0; k < pl->nops; k++)
		if (pl->ops[k].kind != TM_OP_PROBE || pl->ops[k].jointype != TM_JOIN_LEFT)
			return true;
	return false;
}

/*
 * Aggregate a keeps a DISTINCT set: count / sum (DISTINCT x).  As the CPU executor, count(*) ignores the
 * flag; min / max (DISTINCT x) equal min / max (x), they run as the plain aggregates.
 */
static bool
agg_is_distinct(const TmAgg *a)
{
	return a->distinct && a->arg != NULL && (a->kind == TM_AGG_COUNT || a->kind == TM_AGG_SUM);
}

/*
 * Does sink_agg count pl's sink rows with a COUNT pass before it aggregates?  Where its probes can fan
 * out (has_fanout): the sink rows are the room its group table and DISTINCT sets may need.  A global
 * aggregate (no group keys) without DISTINCT has one group and no sets: nothing to bound, no pass (TPC-H
 * Q14's probe of the lineitem rows by part key: 0.38 of its 1.23 ms on an H100).
 */
static bool
agg_counts_sink_rows(const Ctx *c, const TmPipeline *pl)
{
	if (!has_fanout(c, pl))
		return false;
	if (pl->sink.nkeys > 0)
		return true;
	for (int a = 0; a < pl->sink.naggs; a++)
		if (agg_is_distinct(&pl->sink.aggs[a]))
			return true;
	return false;
}

/* update mode of aggregate a (0 with the failure recorded if it cannot run) */
static int
agg_mode(Ctx *c, const TmAgg *a, int idx)
{
	int			ak;

	switch (a->kind)
	{
		case TM_AGG_COUNT_STAR:
		case TM_AGG_COUNT:
			return AM_COUNT;
		case TM_AGG_SUM:
			ak = a->arg->result.kind;
			if (ak == TM_K_INT2 || ak == TM_K_INT4)
				return AM_SUM_I64;
			if (ak == TM_K_INT8 || ak == TM_K_NUMERIC)
			{
				if (a->restype.kind != TM_K_NUMERIC ||
					(ak == TM_K_NUMERIC && a->restype.scale < a->arg->result.scale))
					return fail(c, TM_GPU_ERR_BAD_PLAN, "aggregate %d: bad sum result type", idx), 0;
				return AM_SUM_I192;
			}
			if (ak == TM_K_FLOAT4 || ak == TM_K_FLOAT8)
				return AM_LOCKED;
			return fail(c, TM_GPU_ERR_BAD_PLAN, "aggregate %d: sum of kind %d", idx, ak), 0;
		case TM_AGG_MIN:
		case TM_AGG_MAX:
		case TM_AGG_ANY:
			ak = a->arg->result.kind;
			if (tm_gpu_kind_width(ak) < 0)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "aggregate %d: min/max of kind %d", idx, ak), 0;
			return kind_is_intlike(ak) ? AM_MINMAX_INT : AM_LOCKED;
		default:
			return fail(c, TM_GPU_ERR_BAD_PLAN, "aggregate %d: unknown kind %d", idx, a->kind), 0;
	}
}

/* the whole pipeline is well formed and runnable here (hash tables / results it reads exist) */
static bool
check_pipeline(Ctx *c, const TmPipeline *pl, const TmGpuTable *input)
{
	const TmPlan *plan = c->plan;
	const TmSink *sk = &pl->sink;
	char		what[64];

	if (pl->nslots < 0 || pl->nslots > TM_GPU_MAX_SLOTS)
		return fail(c, TM_GPU_ERR_UNSUPPORTED, "%d slots (at most %d)", pl->nslots, TM_GPU_MAX_SLOTS);
	if (pl->nops < 0 || pl->nops > TM_GPU_MAX_OPS)
		return fail(c, TM_GPU_ERR_UNSUPPORTED, "%d ops (at most %d)", pl->nops, TM_GPU_MAX_OPS);

	/* source */
	if (pl->srckind == TM_SRC_RESULT)
	{
		if (pl->src_result < 0 || pl->src_result >= plan->nresults || !c->results[pl->src_result].made)
			return fail(c, TM_GPU_ERR_BAD_PLAN, "result %d is read before it is made", pl->src_result);
	}
	else if (pl->srckind == TM_SRC_TABLE || pl->srckind == TM_SRC_SUBPLAN)
	{
		if (input == NULL)
			return fail(c, TM_GPU_ERR_BAD_PLAN, "no input table for this pipeline");
		if (input->nrows < 0 || input->ncols < 0 || (input->ncols > 0 && input->cols == NULL) ||
			(input->on_device != 0 && input->on_device != 1))
			return fail(c, TM_GPU_ERR_BAD_PLAN, "malformed input table");
	}
	else
		return fail(c, TM_GPU_ERR_BAD_PLAN, "unknown source kind %d", pl->srckind);

	/* slots */
	for (int s = 0; s < pl->nslots; s++)
	{
		const TmSlot *sl = &pl->slots[s];
		int			lv = sl->level;

		if (tm_gpu_kind_width(sl->type.kind) < 0)
			return fail(c, TM_GPU_ERR_UNSUPPORTED, "slot %d has kind %d", s, sl->type.kind);
		if (lv < -1 || lv > pl->nops)
			return fail(c, TM_GPU_ERR_BAD_PLAN, "slot %d has an invalid level %d", s, lv);
		if (lv == -1)
		{
			if (sl->col < 0 || sl->col >= plan->nparams)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "slot %d refers to parameter %d of %d", s, sl->col,
							plan->nparams);
		}
		else if (lv == 0)
		{
			if (pl->srckind == TM_SRC_RESULT)
			{
				const HResult *r = &c->results[pl->src_result];

				if (sl->col < 0 || sl->col >= r->ncols)
					return fail(c, TM_GPU_ERR_BAD_PLAN, "slot %d refers to column %d of result %d", s,
								sl->col, pl->src_result);
			}
			else
			{
				const TmGpuColumn *col;

				if (sl->col < 0 || sl->col >= input->ncols)
					return fail(c, TM_GPU_ERR_BAD_PLAN, "slot %d refers to source column %d of %d", s,
								sl->col, input->ncols);
				col = &input->cols[sl->col];
				if (tm_gpu_kind_width(col->kind) < 0 ||
					layout_class(col->kind) != layout_class(sl->type.kind))
					return fail(c, TM_GPU_ERR_BAD_PLAN, "source column %d has kind %d, slot %d kind %d",
								sl->col, col->kind, s, sl->type.kind);
				if (input->on_device)
				{
					/* device memory: not readable here (source_columns checks the pointers) */
					if (input->nrows > 0 && (kind_is_text(col->kind) ? col->offsets == NULL : col->data == NULL))
						return fail(c, TM_GPU_ERR_BAD_PLAN, "source column %d has no data", sl->col);
				}
				else if (input->nrows > 0 &&
					(kind_is_text(col->kind) ? (col->offsets == NULL ||
												(col->data == NULL && col->offsets[input->nrows] > 0) ||
												col->offsets[0] < 0 ||
												col->offsets[input->nrows] < col->offsets[0])
					 : col->data == NULL))
					return fail(c, TM_GPU_ERR_BAD_PLAN, "source column %d has no data", sl->col);
			}
		}
		else
		{
			const TmOp *op = &pl->ops[lv - 1];

			if (op->kind != TM_OP_PROBE)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "slot %d has level %d of a filter", s, lv);
			if (op->ht < 0 || op->ht >= plan->nhashtables)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "op %d probes hash table %d", lv - 1, op->ht);
			if (sl->col < 0 || sl->col >= plan->hashtables[op->ht].npayload)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "slot %d refers to payload column %d of hash table %d",
							s, sl->col, op->ht);
		}
	}

	/* ops */
	for (int k = 0; k < pl->nops; k++)
	{
		const TmOp *op = &pl->ops[k];

		snprintf(what, sizeof(what), "op %d", k);
		if (op->kind == TM_OP_FILTER)
		{
			if (!check_expr(c, op->qual, pl->nslots, what))
				return false;
		}
		else if (op->kind == TM_OP_PROBE)
		{
			if (op->jointype < TM_JOIN_INNER || op->jointype > TM_JOIN_LEFT)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "op %d: unknown join type %d", k, op->jointype);
			if (op->ht < 0 || op->ht >= plan->nhashtables || !c->hts[op->ht].built)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "hash table %d is probed before it is built", op->ht);
			if (op->nkeys != plan->hashtables[op->ht].nkeys)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "probe of hash table %d has %d keys, the table has %d",
							op->ht, op->nkeys, plan->hashtables[op->ht].nkeys);
			if (op->nkeys < 1 || op->nkeys > TM_GPU_MAX_KEYS)
				return fail(c, TM_GPU_ERR_UNSUPPORTED, "op %d: %d keys", k, op->nkeys);
			for (int i = 0; i < op->nkeys; i++)
				if (!check_expr(c, op->keys[i], pl->nslots, what))
					return false;
			if (op->qual != NULL && !check_expr(c, op->qual, pl->nslots, what))
				return false;
		}
		else
			return fail(c, TM_GPU_ERR_BAD_PLAN, "op %d: unknown kind %d", k, op->kind);
	}

	/* sink */
	snprintf(what, sizeof(what), "sink");
	switch (sk->kind)
	{
		case TM_SINK_EMIT:
			if (sk->target < 0 || sk->target >= plan->nresults || plan->results[sk->target].ncols != sk->nvals)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "EMIT sink does not match result %d", sk->target);
			if (c->results[sk->target].made && c->results[sk->target].by_agg)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "EMIT into result %d made by an AGG", sk->target);
			for (int i = 0; i < sk->nvals; i++)
				if (!check_expr(c, sk->vals[i], pl->nslots, what))
					return false;
			for (int i = 0; i < sk->nvals; i++)
				if (tm_gpu_kind_width(plan->results[sk->target].coltypes[i].kind) < 0)
					return fail(c, TM_GPU_ERR_UNSUPPORTED, "result %d column %d has kind %d", sk->target, i,
								plan->results[sk->target].coltypes[i].kind);
			break;
		case TM_SINK_HASH_BUILD:
			{
				const TmHashTable *def;

				if (sk->target < 0 || sk->target >= plan->nhashtables)
					return fail(c, TM_GPU_ERR_BAD_PLAN, "HASH_BUILD sink has an invalid hash table %d", sk->target);
				def = &plan->hashtables[sk->target];
				if (def->nkeys != sk->nkeys || def->npayload != sk->nvals)
					return fail(c, TM_GPU_ERR_BAD_PLAN, "HASH_BUILD sink does not match hash table %d", sk->target);
				if (sk->nkeys < 1 || sk->nkeys > TM_GPU_MAX_KEYS)
					return fail(c, TM_GPU_ERR_UNSUPPORTED, "hash table with %d keys", sk->nkeys);
				if (c->hts[sk->target].built)
					return fail(c, TM_GPU_ERR_BAD_PLAN, "hash table %d is built twice", sk->target);
				for (int i = 0; i < sk->nkeys; i++)
					if (!check_expr(c, sk->keys[i], pl->nslots, what))
						return false;
				for (int i = 0; i < sk->nvals; i++)
					if (!check_expr(c, sk->vals[i], pl->nslots, what))
						return false;
				break;
			}
		case TM_SINK_AGG:
			if (sk->target < 0 || sk->target >= plan->nresults ||
				plan->results[sk->target].ncols != sk->nkeys + sk->naggs)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "AGG sink does not match result %d", sk->target);
			if (c->results[sk->target].made)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "result %d is made twice", sk->target);
			if (sk->nkeys < 0 || sk->nkeys > TM_GPU_MAX_KEYS)
				return fail(c, TM_GPU_ERR_UNSUPPORTED, "aggregation with %d group keys", sk->nkeys);
			for (int i = 0; i < sk->nkeys; i++)
				if (!check_expr(c, sk->keys[i], pl->nslots, what))
					return false;
			for (int i = 0; i < sk->nkeys + sk->naggs; i++)
				if (tm_gpu_kind_width(plan->results[sk->target].coltypes[i].kind) < 0)
					return fail(c, TM_GPU_ERR_UNSUPPORTED, "result %d column %d has kind %d", sk->target, i,
								plan->results[sk->target].coltypes[i].kind);
			for (int a = 0; a < sk->naggs; a++)
			{
				const TmAgg *ag = &sk->aggs[a];

				if (ag->kind != TM_AGG_COUNT_STAR && !check_expr(c, ag->arg, pl->nslots, what))
					return false;
				if (ag->filter != NULL && !check_expr(c, ag->filter, pl->nslots, what))
					return false;
				if (agg_mode(c, ag, a) == 0)
					return false;
			}
			break;
		default:
			return fail(c, TM_GPU_ERR_BAD_PLAN, "unknown sink kind %d", sk->kind);
	}
	return true;
}

/* ------------------------------------------------------------------------------------------------
 * Host side: the pipeline descriptor image
 * ------------------------------------------------------------------------------------------------
 */

/*
 * A host image of a device region: put() appends bytes and returns their offset; dev() is the device
 * address of an offset.  Built twice: first without memory (h == NULL) to measure, then for real.
 */
struct Img
{
	char	   *h;
	size_t		len;
	uintptr_t	d;
};

static size_t
img_put(Img *im, const void *src, size_t n, size_t align)
{
	size_t		off = align_up(im->len, align);

	if (im->h != NULL)
	{
		if (src != NULL)
			memcpy(im->h + off, src, n);
		else
			memset(im->h + off, 0, n);
	}
	im->len = off + n;
	return off;
}

template <class T>
static T *
img_dev(const Img *im, size_t off)
{
	return (T *) (im->d + off);
}

/* copy of expression e in the image; its device address */
static const TmExpr *
img_expr(Img *im, const TmExpr *e)
{
	if (e == NULL)
		return NULL;
	return img_dev<const TmExpr>(im, img_put(im, e, (size_t) e->total_size, 16));
}

/*
 * One plain test of qual e at code[*pc] into *f, advancing *pc past it: PUSH_SLOT / PUSH_CONST twice and
 * a CMP without IS DISTINCT FROM, or PUSH_SLOT and an IN.  False if the code there is something else.
 */
/* are p[0 .. len) whole UTF8 sequences (lead bytes with their continuation bytes)? */
static bool
utf8_valid(const char *p, int32_t len)
{
	for (int32_t i = 0; i < len;)
	{
		unsigned char c = (unsigned char) p[i];
		int			n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;

		if (n == 0 || i + n > len)
			return false;
		for (int k = 1; k < n; k++)
			if ((((unsigned char) p[i + k]) & 0xC0) != 0x80)
				return false;
		i += n;
	}
	return true;
}

/* a comparison's predicate with its operands swapped */
static uint8_t
pred_mirror(uint8_t pred)
{
	switch (pred)
	{
		case TM_PRED_LT:
			return TM_PRED_GT;
		case TM_PRED_LE:
			return TM_PRED_GE;
		case TM_PRED_GT:
			return TM_PRED_LT;
		case TM_PRED_GE:
			return TM_PRED_LE;
		default:
			return pred;
	}
}

/*
 * A slot compared with a constant k that lies strictly between the values q and q + 1 of the slot's
 * kind (a numeric of finer scale than the slot's, a timestamp that is not a midnight against a date): the
 * test with q in its place.  False for = and <>, which keep the general comparison.
 */
static bool
pred_between(DFastCmp *f)
{
	if (f->pred == TM_PRED_LT || f->pred == TM_PRED_LE)
		f->pred = TM_PRED_LE;	/* x < k, x <= k: x <= q */
	else if (f->pred == TM_PRED_GT || f->pred == TM_PRED_GE)
		f->pred = TM_PRED_GT;	/* x > k, x >= k: x > q */
	else
		return false;
	return true;
}

/*
 * A test of a slot against a constant, brought to a plain comparison of the slot's own values where that
 * is exact for every value the slot can hold: the slot on the left; a numeric constant at the slot's
 * scale (TPC-H Q6's `l_quantity < 24`: 2400 at scale 2, not 24 upscaled on every row); a date against a
 * timestamp constant as a comparison of dates (`l_shipdate < date '1995-01-01' + interval '1' year`),
 * a timestamp against a date constant as one of timestamps.  fq_test_ab compares TM_CMP_INT and
 * TM_CMP_NUMERIC of one scale without the comparison classes.  Anything else stays as it is.
 */
static void
fast_test_normalize(DFastCmp *f)
{
	const int64_t E = TM_TIMESTAMP_END_JULIAN - TM_POSTGRES_EPOCH_JDATE;	/* days of the timestamp range */
	DFastCmp	g;

	if (f->l < 0 && f->r >= 0)
	{
		g = *f;
		f->l = g.r;
		f->r = g.l;
		f->lk = g.rk;
		f->rk = g.lk;
		f->lscale = g.rscale;
		f->rscale = g.lscale;
		f->pred = pred_mirror(g.pred);
		if (g.cls == TM_CMP_DATE_TS)
			f->cls = TM_CMP_TS_DATE;
		else if (g.cls == TM_CMP_TS_DATE)
			f->cls = TM_CMP_DATE_TS;
	}
	if (f->l < 0 || f->r >= 0)
		return;
	g = *f;
	if (f->cls == TM_CMP_NUMERIC && f->rscale < f->lscale)
	{
		tm_int128	k;

		if (f->lscale - f->rscale > 38 || tm_num_upscale(f->rk.n, f->lscale - f->rscale, &k))
			return;				/* beyond 128 bits at the slot's scale: tm_num_cmp knows */
		f->rk.n = k;
		f->rscale = f->lscale;
	}
	else if (f->cls == TM_CMP_NUMERIC && f->rscale > f->lscale && f->lscale >= 0)
	{
		tm_int128	p,
					q,
					r;

		if (f->rscale - f->lscale > 38)
			return;
		p = tm_pow10(f->rscale - f->lscale);
		q = f->rk.n / p;
		r = f->rk.n % p;
		if (r < 0)
			q -= 1;				/* floor */
		if (r != 0 && !pred_between(f))
			return;
		f->rk.n = q;
		f->rscale = f->lscale;
	}
	else if (f->cls == TM_CMP_DATE_TS)
	{
		int64_t		ts = f->rk.i;
		int64_t		q = ts / TM_USECS_PER_DAY;

		if (ts == TM_DT_NOBEGIN || ts == TM_DT_NOEND)
			return;
		if (ts % TM_USECS_PER_DAY < 0)
			q -= 1;				/* floor */
		if (q <= -E || q >= E)
			return;
		/*
		 * date d against ts: d * USECS_PER_DAY against ts for d in the timestamp range; -infinity is below
		 * and +infinity and dates past the range (tm_date_cmp_timestamp: above) are above every q here
		 */
		if (ts != q * TM_USECS_PER_DAY && !pred_between(f))
		{
			*f = g;
			return;
		}
		f->cls = TM_CMP_INT;
		f->rk.n = 0;
		f->rk.i = q;
	}
	else if (f->cls == TM_CMP_TS_DATE)
	{
		int64_t		d = f->rk.i;

		if (d <= -E || d >= E)
			return;				/* (the infinities too) */
		f->cls = TM_CMP_INT;
		f->rk.n = 0;
		f->rk.i = d * TM_USECS_PER_DAY;
	}
}

static bool
fast_test_compile(const TmExpr *e, const TmExpr *dev, int *pc, DFastCmp *f)
{
	const TmInstr *code = tm_expr_code(e);
	int			i = *pc;

	memset(f, 0, sizeof(*f));
	if (i + 2 > e->ninstr)
		return false;
	if (code[i].op == TMI_PUSH_SLOT && code[i + 1].op == TMI_IN)
	{
		const TmInstr *in = &code[i + 1];

		if (in->flags < TM_CMP_INT || in->flags > TM_CMP_TS_DATE || in->b < 0 || in->a < 0 ||
			in->a + in->b > e->nconst || (in->c & ~(TMF_IN_NEGATE | TMF_IN_HASNULL)) != 0)
			return false;
		f->l = (int16_t) code[i].a;
		f->r = -1;
		f->cls = (uint8_t) in->flags;
		f->pred = FQ_PRED_IN;
		f->pad = (int16_t) in->c;
		f->lscale = in->a;
		f->rscale = in->b;
		*pc = i + 2;
		return true;
	}
	if (i + 3 > e->ninstr)
		return false;

	/*
	 * slot [BPCHAR_RTRIM] LIKE a text constant of literals and '%' only (no '_', no escape: those take the
	 * interpreter): TPC-H's `o_comment NOT LIKE '%special%requests%'`, `p_type LIKE 'PROMO%'`
	 */
	{
		int			j = i + 1;
		bool		rtrim = false;

		if (code[i].op == TMI_PUSH_SLOT && code[j].op == TMI_BPCHAR_RTRIM)
		{
			rtrim = true;
			j++;
		}
		if (code[i].op == TMI_PUSH_SLOT && j + 1 < e->ninstr && code[j].op == TMI_PUSH_CONST &&
			(code[j].flags & TMF_TEXT) && code[j].a >= 0 && code[j].a < e->nconst &&
			code[j + 1].op == TMI_LIKE && (code[j + 1].flags & ~(TMF_NEGATE | TMF_UTF8)) == 0)
		{
			TmValue		k;
			const char *pat;

			memcpy(&k, (const char *) e + e->const_off + sizeof(TmValue) * (size_t) code[j].a, sizeof(TmValue));
			pat = (const char *) e + e->pool_off + (intptr_t) k.s.p;
			if (k.s.len < 0 || (intptr_t) k.s.p + k.s.len > e->pool_len)
				return false;
			for (int32_t x = 0; x < k.s.len; x++)
				if (pat[x] == '_' || pat[x] == '\\')
					return false;
			if ((code[j + 1].flags & TMF_UTF8) && !utf8_valid(pat, k.s.len))
				return false;	/* (PostgreSQL's constants are valid: literals then match at characters) */
			f->l = (int16_t) code[i].a;
			f->r = -1;
			f->pred = FQ_PRED_LIKE;
			f->pad = (int16_t) (((code[j + 1].flags & TMF_NEGATE) ? FQ_LIKE_NEGATE : 0) | (rtrim ? FQ_LIKE_RTRIM : 0));
			f->rk = k;
			f->rk.s.p = (const char *) dev + e->pool_off + (intptr_t) k.s.p;
			*pc = j + 2;
			return true;
		}
	}
	for (int side = 0; side < 2; side++)
	{
		const TmInstr *in = &code[i + side];
		int16_t    *slot = side == 0 ? &f->l : &f->r;
		TmValue    *k = side == 0 ? &f->lk : &f->rk;

		if (in->op == TMI_PUSH_SLOT)
			*slot = (int16_t) in->a;
		else if (in->op == TMI_PUSH_CONST && in->a >= 0 && in->a < e->nconst)
		{
			*slot = -1;
			memcpy(k, (const char *) e + e->const_off + sizeof(TmValue) * (size_t) in->a, sizeof(TmValue));
			if (in->flags & TMF_TEXT)
				k->s.p = (const char *) dev + e->pool_off + (intptr_t) k->s.p;
		}
		else
			return false;
	}
	if (code[i + 2].op != TMI_CMP || (code[i + 2].flags & ~TMF_CLASS_MASK) != 0 ||
		code[i + 2].flags < TM_CMP_INT || code[i + 2].flags > TM_CMP_TS_DATE ||
		code[i + 2].a < TM_PRED_EQ || code[i + 2].a > TM_PRED_GE)
		return false;
	f->cls = (uint8_t) code[i + 2].flags;
	f->pred = (uint8_t) code[i + 2].a;
	f->lscale = code[i + 2].b;
	f->rscale = code[i + 2].c;
	fast_test_normalize(f);
	*pc = i + 3;
	return true;
}

/*
 * Qual e as an AND / OR tree of plain tests (DFastQual above) into *fq, if it is one.  The bytecode of
 * AND (OR) of n arguments is A1 JUMP_IF_FALSE (JUMP_IF_TRUE) A2 AND (OR) JUMP ... An AND (OR), every jump
 * to the end; a qual's top-level AND has QJUMP_IF_FALSE to the end of the code instead.  The tests go to
 * c[], the rest one for one to prog[], jump targets mapped from code positions to prog positions.
 *
 * A top-level AND whose leading conjuncts are such trees and whose next one is anything else gives those
 * leading ones with fq->partial (the prog stops before that conjunct's QJUMP_IF_FALSE): a row that fails
 * them is rejected without the interpreter, as the qual's QJUMP_IF_FALSE would reject it before reaching
 * the rest (they raise no error, so nothing the interpreter would raise is skipped), and a row that passes
 * them runs the whole qual.  dev: the device address of e's copy in the image (text constants point into
 * its pool).
 */
static bool
fast_qual_compile(const TmExpr *e, const TmExpr *dev, DFastQual *fq)
{
	const TmInstr *code;
	std::vector<int> at;		/* code position -> prog position, -1: inside a test */
	std::vector<int> dest;		/* prog position -> code position jumped to */
	int			pc = 0,
				depth = 0,
				end;
	int			cut_pc = -1,	/* the last top-level QJUMP_IF_FALSE: code, prog, tests there */
				cut_prog = 0,
				cut_n = 0;

	/* (dev only resolves text constants: the decision must not depend on it, for upload_pipeline lays
	 * the image out twice, the first time at base address 0) */
	if (e == NULL || e->ninstr <= 0)
		return false;
	code = tm_expr_code(e);
	memset(fq, 0, sizeof(*fq));
	at.assign((size_t) e->ninstr + 1, -1);
	dest.assign(FQ_PROG_MAX, 0);
	while (pc < e->ninstr)
	{
		const TmInstr *in = &code[pc];
		int			p;

		if (fq->nprog >= FQ_PROG_MAX)
			break;
		at[pc] = fq->nprog;
		p = fq->nprog;
		if (in->op == TMI_QJUMP_IF_FALSE && in->a == e->ninstr && depth == 1)
		{
			cut_pc = pc;
			cut_prog = p;
			cut_n = fq->n;
			fq->prog[p] = FQ_JF;
			dest[p] = in->a;
			pc++;
		}
		else if ((in->op == TMI_JUMP_IF_FALSE || in->op == TMI_JUMP_IF_TRUE) && depth >= 1 &&
				 in->a > pc && in->a <= e->ninstr)
		{
			fq->prog[p] = in->op == TMI_JUMP_IF_FALSE ? FQ_JF : FQ_JT;
			dest[p] = in->a;
			pc++;
		}
		else if ((in->op == TMI_AND || in->op == TMI_OR) && depth >= 2)
		{
			fq->prog[p] = in->op == TMI_AND ? FQ_AND : FQ_OR;
			depth--;
			pc++;
		}
		else if (fq->n < FQ_MAX && depth < FQ_DEPTH && fast_test_compile(e, dev, &pc, &fq->c[fq->n]))
		{
			fq->prog[p] = (uint8_t) fq->n++;
			depth++;
		}
		else
			break;
		fq->nprog++;
	}
	if (pc == e->ninstr && depth == 1)
		end = e->ninstr;		/* all of it */
	else if (cut_pc > 0)
	{
		/* the conjuncts before the last top-level jump reached */
		end = cut_pc;
		fq->nprog = cut_prog;
		fq->n = cut_n;
		fq->partial = 1;
	}
	else
		return false;
	at[end] = fq->nprog;
	for (int p = 0; p < fq->nprog; p++)
	{
		int			t;

		if (fq->prog[p] != FQ_JF && fq->prog[p] != FQ_JT)
			continue;
		t = dest[p] >= end ? fq->nprog : at[dest[p]];
		if (t < 0 || t <= p)
			return false;		/* into a test, or backwards: not code of an AND / OR */
		fq->tgt[p] = (uint8_t) t;
	}
	return fq->nprog > 0;
}

extern "C" int
tm_gpu_qual_is_fast(const TmExpr *e)
{
	DFastQual	fq;

	return fast_qual_compile(e, e, &fq) && !fq.partial ? 1 : 0;
}

extern "C" int
tm_gpu_qual_fast_eval(const TmExpr *e, const TmValue *vals, const bool *nulls, bool *pass)
{
	DFastQual	fq;

	if (!fast_qual_compile(e, e, &fq))
		return 0;
	*pass = fq_eval(&fq, e, vals, nulls);
	return fq.partial ? 2 : 1;
}

/* array of n expressions: device address of the pointer array (NULL if n == 0 or on failure) */
static const TmExpr *const *
img_exprs(Ctx *c, Img *im, TmExpr *const *es, int n)
{
	const TmExpr **p;
	const TmExpr *const *res;

	if (n <= 0)
		return NULL;
	p = (const TmExpr **) xmalloc0(c, sizeof(TmExpr *) * (size_t) n);
	if (p == NULL)
		return NULL;
	for (int i = 0; i < n; i++)
		p[i] = img_expr(im, es[i]);
	res = img_dev<const TmExpr *const>(im, img_put(im, p, sizeof(TmExpr *) * (size_t) n, 16));
	free(p);
	return res;
}

/* NIFS: mark the slots that expression e reads (TMI_PUSH_SLOT) */
static void
expr_slots(const TmExpr *e, bool *want, int nslots)
{
	const TmInstr *code;

	if (e == NULL)
		return;
	code = tm_expr_code(e);
	for (int i = 0; i < e->ninstr; i++)
		if (code[i].op == TMI_PUSH_SLOT && code[i].a >= 0 && code[i].a < nslots)
			want[code[i].a] = true;
}

/* the slots that the sink's expressions read */
static void
sink_slots(const TmSink *sk, bool *want, int nslots)
{
	for (int i = 0; i < sk->nkeys; i++)
		expr_slots(sk->keys[i], want, nslots);
	if (sk->kind != TM_SINK_AGG)
		for (int i = 0; i < sk->nvals; i++)
			expr_slots(sk->vals[i], want, nslots);
	else
		for (int a = 0; a < sk->naggs; a++)
		{
			if (sk->aggs[a].kind != TM_AGG_COUNT_STAR)
				expr_slots(sk->aggs[a].arg, want, nslots);
			expr_slots(sk->aggs[a].filter, want, nslots);
		}
}

/*
 * NIFS: the slots that the work on a tuple of level j reads (see lb_visit): the residual of the INNER /
 * LEFT probe that made it (op j - 1), then op j's qual or keys (and the residual that SEMI / ANTI / LEFT
 * test right there, whose own level is filled per match), or at j == nops the sink's expressions.  Only
 * slots of levels 0 .. j are loaded; parameters are set once.  refs: (nops + 1) * nslots entries at
 * most; off: nops + 2 offsets.
 */
static void
lb_load_lists(const TmPipeline *pl, DLRef *refs, int32_t *off)
{
	const TmSink *sk = &pl->sink;
	int			n = 0;

	for (int j = 0; j <= pl->nops; j++)
	{
		bool		want[TM_GPU_MAX_SLOTS];

		memset(want, 0, sizeof(want));
		if (j > 0)
		{
			const TmOp *pop = &pl->ops[j - 1];

			if (pop->kind == TM_OP_PROBE && (pop->jointype == TM_JOIN_INNER || pop->jointype == TM_JOIN_LEFT))
				expr_slots(pop->qual, want, pl->nslots);
		}
		if (j == pl->nops)
			sink_slots(sk, want, pl->nslots);
		else
		{
			const TmOp *op = &pl->ops[j];

			if (op->kind == TM_OP_FILTER)
				expr_slots(op->qual, want, pl->nslots);
			else
			{
				for (int i = 0; i < op->nkeys; i++)
					expr_slots(op->keys[i], want, pl->nslots);
				if (op->jointype != TM_JOIN_INNER)
					expr_slots(op->qual, want, pl->nslots);
			}
		}
		off[j] = n;
		for (int sl = 0; sl < pl->nslots; sl++)
			if (want[sl] && pl->slots[sl].level >= 0 && pl->slots[sl].level <= j)
			{
				refs[n].slot = (int16_t) sl;
				refs[n].level = pl->slots[sl].level;
				refs[n].col = pl->slots[sl].col;
				refs[n].pad = 0;
				n++;
			}
	}
	off[pl->nops + 1] = n;
}

/*
 * Does the pre-check of op nlead (an INNER / SEMI probe after nlead leading filters) go before the
 * filters?  Where its table is small (PROBE_FIRST_MAX_ROWS build rows: the lookup stays in the L2 cache)
 * it can be the cheaper and the more selective test: TPC-H Q19's lineitem rows look up 4,808 of 2 M
 * parts, after a filter on two text columns and a numeric that 4% of them pass.  Only where the order
 * cannot show: the keys are bare slots and every filter has a fast form without the interpreter
 * (DFastQual, not partial), so neither side can raise an error, and a row goes on only if both pass.
 */
#define PROBE_FIRST_MAX_ROWS	65536

static bool
probe_goes_first(const Ctx *c, const TmPipeline *pl, int nlead)
{
	const TmOp *op = &pl->ops[nlead];

	if (op->ht < 0 || op->ht >= c->plan->nhashtables || !c->hts[op->ht].built ||
		c->hts[op->ht].nrows > PROBE_FIRST_MAX_ROWS)
		return false;
	for (int i = 0; i < op->nkeys; i++)
		if (op->keys[i]->ninstr != 1 || tm_expr_code(op->keys[i])->op != TMI_PUSH_SLOT)
			return false;
	for (int k = 0; k < nlead; k++)
		if (!tm_gpu_qual_is_fast(pl->ops[k].qual))
			return false;
	return true;
}

/* e is one PUSH_SLOT: x_eval reads the slot without the interpreter (pipeline_kernel<true>) */
static bool
expr_is_bare_slot(const TmExpr *e)
{
	return e != NULL && e->ninstr == 1 && tm_expr_code(e)->op == TMI_PUSH_SLOT;
}

/*
 * Lay out pipeline pl's descriptor in im: expressions, slot lists, parameter values, source columns
 * (srccols: ncols device column descriptors).  Returns the offset of the DPipe.
 *
 * DPipe.nointerp: pipeline_kernel<true>, which has no call into the interpreter (d_eval, d_qual), no
 * DISTINCT set and no locked aggregate compiled in, runs the pipeline where nothing of it needs them:
 * every qual has a whole fast form (DFastQual), every key, payload and output value, aggregate FILTER
 * and argument is a bare slot (a FILTER may have a whole fast form instead, an argument a fast
 * arithmetic form), no aggregate is DISTINCT or AM_LOCKED.  Why: the skewed TPC-H Q14's lineitem
 * pipeline waited 9.3 of its 23 cycles per instruction for instructions to be fetched (Nsight Compute,
 * SF 1, bench/reports/2026-12-07-h100-sf10-checks); this instance is 1.26 MB of sm_90 code where the
 * generic one is 2.1 MB (both at the launch bound's 128 registers).  Measured only beside the row walk
 * out of line (see walk_row): 5% and 8% off the skewed Q1 and Q14 against the generic kernel
 * (bench/reports/2026-12-07-h100-sf10-nointerp).  Results are the same either way (themis.gpu_nointerp,
 * off by default; tm_gpu_pool_set_nointerp).
 */
static size_t
img_pipeline(Ctx *c, Img *im, const TmPipeline *pl, const DCol *srccols, int ncols, int64_t nrows,
			 const TmValue *params, const bool *paramnulls)
{
	const TmPlan *plan = c->plan;
	const TmSink *sk = &pl->sink;
	bool		fast = !c->pool->no_fast_paths;
	DPipe		P;
	TmValue		init[TM_GPU_MAX_SLOTS];
	uint8_t		initnull[TM_GPU_MAX_SLOTS];
	DSlotRef	refs[TM_GPU_MAX_SLOTS];
	DOp			ops[TM_GPU_MAX_OPS];
	DFastQual	prefq[PRE_MAX_OPS];
	int			n;
	bool		ni = fast && !c->pool->interp_always;	/* DPipe.nointerp */

	memset(&P, 0, sizeof(P));
	memset(init, 0, sizeof(init));
	memset(ops, 0, sizeof(ops));
	P.nrows = nrows;
	P.fastx = fast ? 1 : 0;
	/*
	 * leading filters, which pipeline_kernel runs ahead of the walk of the row's evaluation tree, and the
	 * INNER / SEMI probe after them, whose lookup it runs there too (pipeline_rows_compacted)
	 */
	while (fast && P.nlead < pl->nops && pl->ops[P.nlead].kind == TM_OP_FILTER)
		P.nlead++;
	P.precheck = -1;
	if (fast && P.nlead < pl->nops && pl->ops[P.nlead].kind == TM_OP_PROBE &&
		(pl->ops[P.nlead].jointype == TM_JOIN_INNER || pl->ops[P.nlead].jointype == TM_JOIN_SEMI))
		P.precheck = P.nlead;
	P.probe_first = P.precheck > 0 && probe_goes_first(c, pl, P.nlead) ? 1 : 0;
	P.nslots = pl->nslots;
	P.nops = pl->nops;
	P.sinkkind = sk->kind;

	/* parameters: text bytes go into the image too */
	for (int s = 0; s < pl->nslots; s++)
	{
		const TmSlot *sl = &pl->slots[s];

		initnull[s] = 1;
		if (sl->level != -1)
			continue;
		initnull[s] = (paramnulls == NULL || !paramnulls[sl->col]) ? 0 : 1;
		if (initnull[s] || params == NULL)
		{
			initnull[s] = 1;
			continue;
		}
		init[s] = params[sl->col];
		if (kind_is_text(sl->type.kind))
		{
			size_t		off = img_put(im, init[s].s.p, (size_t) init[s].s.len, 1);

			init[s].s.p = img_dev<const char>(im, off);
		}
	}
	P.init_vals = img_dev<const TmValue>(im, img_put(im, init, sizeof(TmValue) * (size_t) Max1(pl->nslots), 16));
	P.init_nulls = img_dev<const uint8_t>(im, img_put(im, initnull, (size_t) Max1(pl->nslots), 16));

	/* level-0 slots: first those that the leading filters and the pre-check read */
	{
		bool		lead[TM_GPU_MAX_SLOTS];

		memset(lead, 0, sizeof(lead));
		for (int k = 0; k < P.nlead; k++)
			expr_slots(pl->ops[k].qual, lead, pl->nslots);
		if (P.precheck >= 0)
			for (int i = 0; i < pl->ops[P.precheck].nkeys; i++)
				expr_slots(pl->ops[P.precheck].keys[i], lead, pl->nslots);
		n = 0;
		for (int pass = 0; pass < 2; pass++)
		{
			for (int s = 0; s < pl->nslots; s++)
				if (pl->slots[s].level == 0 && lead[s] == (pass == 0))
				{
					refs[n].slot = (int16_t) s;
					refs[n].col = pl->slots[s].col;
					n++;
				}
			if (pass == 0)
				P.nload_lead = n;
		}
	}
	P.nload = n;
	P.load = img_dev<const DSlotRef>(im, img_put(im, refs, sizeof(DSlotRef) * (size_t) Max1(n), 16));
	P.srccols = img_dev<const DCol>(im, img_put(im, srccols, sizeof(DCol) * (size_t) Max1(ncols), 16));

	/* ops */
	for (int k = 0; k < pl->nops; k++)
	{
		const TmOp *op = &pl->ops[k];
		DOp		   *d = &ops[k];

		d->kind = op->kind;
		d->jointype = op->jointype;
		d->qual = img_expr(im, op->qual);
		d->fastx = fast ? 1 : 0;
		if (op->qual != NULL && fast)
		{
			DFastQual	fq;

			if (fast_qual_compile(op->qual, d->qual, &fq))
				d->fq = img_dev<const DFastQual>(im, img_put(im, &fq, sizeof(fq), 16));
			else
				fq.partial = true;
			if (fq.partial)
				ni = false;		/* the interpreter runs it, or a part of it */
		}
		if (op->kind != TM_OP_PROBE)
			continue;
		for (int i = 0; i < op->nkeys; i++)
			if (!expr_is_bare_slot(op->keys[i]))
				ni = false;
		d->nkeys = op->nkeys;
		d->keys = img_exprs(c, im, op->keys, op->nkeys);
		d->ht = c->hts[op->ht].d;
		n = 0;
		for (int s = 0; s < pl->nslots; s++)
			if (pl->slots[s].level == k + 1)
			{
				refs[n].slot = (int16_t) s;
				refs[n].col = pl->slots[s].col;
				n++;
			}
		d->nfill = n;
		d->fill = img_dev<const DSlotRef>(im, img_put(im, refs, sizeof(DSlotRef) * (size_t) Max1(n), 16));
	}
	P.ops = img_dev<const DOp>(im, img_put(im, ops, sizeof(DOp) * (size_t) Max1(pl->nops), 16));

	/*
	 * prefilter_kernel: the leading filters, as far as each is a whole tree of tests whose operands are
	 * source columns, constants and non-NULL parameters (as constants)
	 */
	for (int k = 0; fast && !P.probe_first && k < P.nlead && k < PRE_MAX_OPS; k++)
	{
		DFastQual	fq;
		bool		ok;

		if (!fast_qual_compile(pl->ops[k].qual, ops[k].qual, &fq) || fq.partial)
			break;
		ok = true;
		for (int i = 0; i < fq.n && ok; i++)
			for (int side = 0; side < 2 && ok; side++)
			{
				DFastCmp   *f = &fq.c[i];
				int16_t    *sl = side == 0 ? &f->l : &f->r;
				const TmSlot *ts;

				if (*sl < 0)
					continue;
				ts = &pl->slots[*sl];
				if (ts->level == 0)
					*sl = (int16_t) ts->col;
				else if (ts->level == -1 && !initnull[*sl])
				{
					if (side == 0)
						f->lk = init[*sl];
					else
						f->rk = init[*sl];
					*sl = -1;
				}
				else
					ok = false;
			}
		if (!ok)
			break;
		P.prefq[k] = img_dev<const DFastQual>(im, img_put(im, &fq, sizeof(fq), 16));
		P.npre = k + 1;
		prefq[k] = fq;
	}
	/* its plain form: each tree a conjunction of tests of integer or numeric columns against constants */
	{
		DPreTest	pt[PRE_MAX_TESTS];
		bool		plain = P.npre > 0;

		n = 0;
		memset(pt, 0, sizeof(pt));
		for (int k = 0; k < P.npre && plain; k++)
		{
			const DFastQual *fq = &prefq[k];

			for (int i = 0; i < fq->nprog; i++)
				if (fq->prog[i] == FQ_OR || fq->prog[i] == FQ_JT)
					plain = false;
			for (int i = 0; i < fq->n && plain; i++)
			{
				const DFastCmp *f = &fq->c[i];
				int			fmt = f->l >= 0 && f->l < ncols ? srccols[f->l].fmt : -1;
				int			w = 0;
				static const uint8_t masks[] = {2, 5, 1, 3, 4, 6};	/* = <> < <= > >= */

				if (f->cls == TM_CMP_INT)
					w = fmt == TM_K_BOOL ? 1 : fmt == TM_K_INT2 ? 2 : (fmt == TM_K_INT4 || fmt == TM_K_DATE) ? 4 :
						(fmt == TM_K_INT8 || fmt == TM_K_TIMESTAMP) ? 8 : 0;
				else if (f->cls == TM_CMP_NUMERIC && f->lscale == f->rscale && fmt == TM_K_NUMERIC)
					w = 16;
				if (n >= PRE_MAX_TESTS || w == 0 || f->r >= 0 || f->pred > TM_PRED_GE)
				{
					plain = false;
					break;
				}
				pt[n].col = f->l;
				pt[n].w = (uint8_t) w;
				pt[n].mask = masks[f->pred];
				if (w == 16)
				{
					pt[n].klo = (uint64_t) (tm_uint128) f->rk.n;
					pt[n].khi = (int64_t) (f->rk.n >> 64);
				}
				else
					pt[n].klo = (uint64_t) f->rk.i;
				n++;
			}
		}
		if (plain && n > 0)
		{
			P.pretest = img_dev<const DPreTest>(im, img_put(im, pt, sizeof(DPreTest) * (size_t) n, 16));
			P.npretest = n;
		}
	}

	/* NIFS: what each level loads */
	{
		DLRef		lbrefs[LB_MAXL * TM_GPU_MAX_SLOTS];
		int32_t		lboff[LB_MAXL + 1];

		lb_load_lists(pl, lbrefs, lboff);
		P.lbref = img_dev<const DLRef>(im, img_put(im, lbrefs, sizeof(DLRef) * (size_t) Max1(lboff[pl->nops + 1]), 16));
		P.lboff = img_dev<const int32_t>(im, img_put(im, lboff, sizeof(int32_t) * (size_t) (pl->nops + 2), 16));
	}

	/* sink */
	P.nkeys = sk->nkeys;
	P.nvals = (sk->kind == TM_SINK_AGG) ? 0 : sk->nvals;
	P.keys = img_exprs(c, im, sk->keys, sk->nkeys);
	for (int i = 0; i < sk->nkeys; i++)
		if (!expr_is_bare_slot(sk->keys[i]))
			ni = false;
	for (int i = 0; sk->kind != TM_SINK_AGG && i < sk->nvals; i++)
		if (!expr_is_bare_slot(sk->vals[i]))
			ni = false;
	if (sk->kind == TM_SINK_HASH_BUILD)
		P.keytypes = img_dev<const TmType>(im, img_put(im, plan->hashtables[sk->target].keytypes,
													   sizeof(TmType) * (size_t) sk->nkeys, 16));
	else if (sk->kind == TM_SINK_AGG && sk->nkeys > 0)
		P.keytypes = img_dev<const TmType>(im, img_put(im, plan->results[sk->target].coltypes,
													   sizeof(TmType) * (size_t) sk->nkeys, 16));
	if (sk->kind != TM_SINK_AGG)
		P.vals = img_exprs(c, im, sk->vals, sk->nvals);
	else
	{
		DAgg		aggs[64];
		DAgg	   *ap = aggs;

		P.naggs = sk->naggs;
		if (sk->naggs > 64)
		{
			ap = (DAgg *) calloc((size_t) sk->naggs, sizeof(DAgg));
			if (ap == NULL)
				return fail(c, TM_GPU_ERR_HOST_NOMEM, "out of host memory"), 0;
		}
		for (int a = 0; a < sk->naggs; a++)
		{
			const TmAgg *ag = &sk->aggs[a];

			memset(&ap[a], 0, sizeof(DAgg));
			ap[a].kind = ag->kind;
			ap[a].mode = agg_mode(c, ag, a);
			ap[a].distinct = agg_is_distinct(ag) ? 1 : 0;
			ap[a].fastx = fast ? 1 : 0;
			ap[a].peek = (fast && ap[a].mode == AM_LOCKED && ag->kind != TM_AGG_SUM) ? 1 : 0;
			ap[a].wsum = (fast && ap[a].mode == AM_LOCKED && ag->kind == TM_AGG_SUM) ? 1 : 0;
			ap[a].wagg = (fast && ap[a].mode != AM_LOCKED && (sk->nkeys == 0 || c->pool->group_wagg)) ? 1 : 0;
			ap[a].arg = (ag->kind == TM_AGG_COUNT_STAR) ? NULL : img_expr(im, ag->arg);
			if (fast && ag->kind != TM_AGG_COUNT_STAR && ag->arg != NULL && ag->arg->ninstr > 1)
			{
				TmFastArith fa;

				if (tm_fast_arith_compile(ag->arg, &fa))
					ap[a].fa = img_dev<const TmFastArith>(im, img_put(im, &fa, sizeof(fa), 16));
			}
			ap[a].filter = img_expr(im, ag->filter);
			if (fast && ag->filter != NULL && !expr_is_bare_slot(ag->filter))
			{
				DFastQual	fq;

				if (fast_qual_compile(ag->filter, ap[a].filter, &fq) && !fq.partial)
					ap[a].ffq = img_dev<const DFastQual>(im, img_put(im, &fq, sizeof(fq), 16));
			}
			if (ag->kind != TM_AGG_COUNT_STAR)
				ap[a].argtype = ag->arg->result;
			ap[a].restype = ag->restype;
			if (ap[a].distinct || ap[a].mode == AM_LOCKED ||
				(ag->filter != NULL && ap[a].ffq == NULL && !expr_is_bare_slot(ag->filter)) ||
				(ag->kind != TM_AGG_COUNT_STAR && ap[a].fa == NULL && !expr_is_bare_slot(ag->arg)))
				ni = false;
		}
		/* NIFS: a global aggregate of simple aggregates keeps partial states per lane (lb_agg_local) */
		P.lb_local = (sk->nkeys == 0 && sk->naggs >= 1 && sk->naggs <= LB_LOCAL_AGGS) ? 1 : 0;
		for (int a = 0; a < sk->naggs && P.lb_local; a++)
			if (agg_is_distinct(&sk->aggs[a]) ||
				(ap[a].mode != AM_COUNT && ap[a].mode != AM_SUM_I64 && ap[a].mode != AM_MINMAX_INT))
				P.lb_local = 0;
		P.aggs = img_dev<const DAgg>(im, img_put(im, ap, sizeof(DAgg) * (size_t) Max1(sk->naggs), 16));
		if (ap != aggs)
			free(ap);
	}
	P.nointerp = ni ? 1 : 0;
	return img_put(im, &P, sizeof(P), 16);
}

/* the host copy of a device address of image im (tm_jit_source's TmJitHostFn) */
static const void *
img_host(const void *dev, void *arg)
{
	const Img  *im = (const Img *) arg;

	return im->h + ((uintptr_t) dev - im->d);
}

/*
 * The generated kernel of the pipeline whose image im was just laid out (hp: its DPipe), where
 * tm_gpu_pool_set_jit asks for one: c->pre_jit_fn once compiled and loaded (run_pass then runs it
 * instead of pipeline_kernel), and where it stands (c->pre_jit, the pipeline's figures).  The first
 * execution of a shape starts its compile in the background and runs pipeline_kernel (jit 2: waits for
 * it); why a pipeline has none goes to the daemon's log (THEMIS_GPU_TRACE) and EXPLAIN's state
 */
static void
jit_prepare(Ctx *c, const DPipe *hp, Img *im)
{
	char	   *src = NULL;
	char		why[512];

	c->pre_jit_fn = NULL;
	c->pre_jit = TM_JIT_OFF;
	if (c->pool->jit == 0)
		return;
	if (!tm_jit_source(hp, img_host, im, &src, why, sizeof(why)))
		c->pre_jit = TM_JIT_NOT_ELIGIBLE;
	else
	{
		c->pre_jit = tm_jit_kernel(src, c->pool->dev, c->pool->thread_sums ? PIPE_SMEM_MAX : 0,
								   c->pool->jit == 2, &c->pre_jit_fn, why, sizeof(why));
		c->jit_ms = tm_jit_compile_ms(src);
		if (getenv("THEMIS_JIT_SOURCE") != NULL)
			fprintf(stderr, "themis-gpud: generated kernel of pipeline %d:\n%s\n", c->pipeline, src);
		free(src);
	}
	c->jit_state = c->pre_jit;
	if (c->trace || c->pre_jit == TM_JIT_FAILED)
		fprintf(stderr, "themis-gpud: pipeline %d: generated kernel: %s%s%s\n", c->pipeline,
				c->pre_jit == TM_JIT_RAN ? "loaded" : c->pre_jit == TM_JIT_COMPILING ? "compiling" :
				c->pre_jit == TM_JIT_NOT_ELIGIBLE ? "none" : c->pre_jit == TM_JIT_FAILED ? "failed" : "no NVRTC",
				why[0] != '\0' && c->pre_jit != TM_JIT_RAN ? ": " : "",
				c->pre_jit != TM_JIT_RAN ? why : "");
}

/*
 * upload pipeline pl's descriptor (one copy); its device address, or NULL.  dsrccols: if not NULL, set to
 * the device address of its array of source column descriptors (chunks rewrite it).
 */
static const DPipe *
upload_pipeline(Ctx *c, const TmPipeline *pl, const DCol *srccols, int ncols, int64_t nrows,
				const TmValue *params, const bool *paramnulls, DCol **dsrccols = NULL)
{
	Img			im;
	size_t		off;
	char	   *d;
	cudaError_t e;

	/* measure, then lay out for real */
	memset(&im, 0, sizeof(im));
	img_pipeline(c, &im, pl, srccols, ncols, nrows, params, paramnulls);
	if (c->rc != TM_GPU_OK)
		return NULL;
	d = (char *) pool_alloc(c, im.len);
	if (d == NULL)
		return NULL;
	im.h = (char *) xmalloc0(c, im.len);
	if (im.h == NULL)
		return NULL;
	im.len = 0;
	im.d = (uintptr_t) d;
	off = img_pipeline(c, &im, pl, srccols, ncols, nrows, params, paramnulls);
	if (c->rc != TM_GPU_OK)
	{
		free(im.h);
		return NULL;
	}
	{
		DPipe		hp;

		memcpy(&hp, im.h + off, sizeof(hp));
		if (dsrccols != NULL)
			*dsrccols = (DCol *) hp.srccols;
		c->pre_P = (const DPipe *) (d + off);
		c->pre_nops = hp.npre;
		c->pre_compact = hp.nlead > 0 || hp.precheck >= 0;
		c->pre_plain = hp.npretest > 0;
		c->pre_nointerp = hp.nointerp != 0;
		jit_prepare(c, &hp, &im);
		c->pre_semi_ht = -1;
		c->pre_semi_col = -1;
		c->pre_semi_w = 0;

		/*
		 * The semi-join prefilter: where the lookup goes first, one integer key of a source column and an
		 * integer build key, the rows whose key is not among the build's keys cannot pass the lookup,
		 * whatever else they hold.  The lookup goes first where it comes before the leading filters
		 * (probe_first: a small table, bare-slot keys, filters that raise no error) or where there are
		 * none (precheck 0: the probe is the pipeline's first op, TPC-H Q14's 2 M parts against 750 K
		 * lineitem rows), and where it comes right after leading filters that all run in prefilter_kernel
		 * (fast quals: a row it skips would raise no error in them; TPC-H Q3's lineitem rows after its date
		 * filter, against 1.46 M orders of 15 M), the semi-join test then on the rows that passed them.
		 * Not probe_first, on a build no larger than the source: the bitmap costs a pass over the build's
		 * keys and saves at most a lookup a source row.  (A host input run in chunks is uploaded with no
		 * row count, nrows 0: there only probe_first's form runs, and the bitmap is made again per chunk.
		 * precheck >= 0 means precheck == nlead: img_pipeline sets it so.)
		 */
		if ((hp.probe_first && hp.npre == 0) || (hp.precheck >= 0 && hp.precheck == hp.nlead && hp.npre == hp.nlead))
		{
			const TmOp *op = &pl->ops[hp.precheck];
			const TmInstr *in = op->nkeys == 1 && op->keys[0]->ninstr == 1 ? tm_expr_code(op->keys[0]) : NULL;
			bool		bare = in != NULL && in->op == TMI_PUSH_SLOT && in->a >= 0 && in->a < pl->nslots;
			const TmSlot *ks = bare ? &pl->slots[in->a] : NULL;
			bool		built = op->ht >= 0 && op->ht < c->plan->nhashtables && c->hts[op->ht].built &&
				c->hts[op->ht].nrows > 0 && c->hts[op->ht].cols != NULL &&
				(hp.probe_first || c->hts[op->ht].nrows <= nrows);
			int			kk = built ? c->plan->hashtables[op->ht].keytypes[0].kind : -1;
			int			fmt = bare && ks->level == 0 && ks->col >= 0 && ks->col < ncols ? srccols[ks->col].fmt : -1;
			int			w = fmt == TM_K_INT2 ? 2 : fmt == TM_K_INT4 ? 4 : fmt == TM_K_INT8 ? 8 : 0;

			if (built && w > 0 && (kk == TM_K_INT2 || kk == TM_K_INT4 || kk == TM_K_INT8))
			{
				c->pre_semi_ht = op->ht;
				c->pre_semi_col = ks->col;
				c->pre_semi_w = w;
			}
		}
	}
	/* from pageable memory: returns once the bytes are staged, so im.h can go */
	e = cudaMemcpyAsync(d, im.h, im.len, cudaMemcpyHostToDevice, c->stream);
	free(im.h);
	if (e != cudaSuccess)
	{
		fail_cuda(c, "cudaMemcpyAsync (pipeline descriptor)", e);
		return NULL;
	}
	return (const DPipe *) (d + off);
}

/*
 * A pointer of a device-resident input column (what: "data", "offsets", "nulls") can be read by the
 * kernels: not plain host memory, not memory of another device, aligned to align bytes.
 */
static bool
check_device_ptr(Ctx *c, const void *p, size_t align, int col, const char *what)
{
	cudaPointerAttributes a;
	cudaError_t e;

	if ((uintptr_t) p % align != 0)
		return fail(c, TM_GPU_ERR_BAD_PLAN, "device input column %d: %s %p is not aligned to %zu bytes",
					col, what, p, align);
	memset(&a, 0, sizeof(a));
	e = cudaPointerGetAttributes(&a, p);
	if (e != cudaSuccess)
	{
		(void) cudaGetLastError();	/* not sticky: clear it */
		return fail(c, TM_GPU_ERR_BAD_PLAN, "device input column %d: %s %p is not a device pointer (%s)",
					col, what, p, cudaGetErrorString(e));
	}
	if (a.type == cudaMemoryTypeUnregistered)
		return fail(c, TM_GPU_ERR_BAD_PLAN, "device input column %d: %s %p is host memory", col, what, p);
	if (a.type == cudaMemoryTypeDevice && a.device != c->pool->dev)
		return fail(c, TM_GPU_ERR_BAD_PLAN, "device input column %d: %s %p is memory of device %d, the pool's is %d",
					col, what, p, a.device, c->pool->dev);
	return true;
}

/* alignment of the data of a column of kind (its loads in load_col) */
static size_t
kind_align(int kind)
{
	int			w = tm_gpu_kind_width(kind);

	if (w <= 0)
		return 1;
	return w > 8 ? 8 : (size_t) w;
}

/*
 * Device column descriptors of pipeline pl's source (*cols, ncols of them, malloc'd) and its row count.
 * TABLE / SUBPLAN: the columns that level-0 slots read are uploaded (device-resident inputs: used in
 * place); RESULT: the result's columns.
 */
static bool
source_columns(Ctx *c, const TmPipeline *pl, const TmGpuTable *input, DCol **cols, int *ncols,
			   int64_t *nrows)
{
	DCol	   *dc;

	*cols = NULL;
	if (pl->srckind == TM_SRC_RESULT)
	{
		const HResult *r = &c->results[pl->src_result];

		dc = (DCol *) xmalloc0(c, sizeof(DCol) * Max1(r->ncols));
		if (dc == NULL)
			return false;
		for (int i = 0; i < r->ncols; i++)
		{
			dc[i].fmt = FMT_VALUE;
			dc[i].data = (const char *) r->vals[i];
			dc[i].nulls = r->nulls[i];
		}
		*cols = dc;
		*ncols = r->ncols;
		*nrows = c->empty_source ? 0 : r->nrows;
		return true;
	}

	dc = (DCol *) xmalloc0(c, sizeof(DCol) * Max1(input->ncols));
	if (dc == NULL)
		return false;
	*cols = dc;
	*ncols = input->ncols;
	*nrows = c->empty_source ? 0 : input->nrows;
	for (int s = 0; s < pl->nslots; s++)
	{
		int			ci = pl->slots[s].col;
		const TmGpuColumn *col;
		int64_t		n = *nrows;

		if (pl->slots[s].level != 0 || dc[ci].fmt != 0)
			continue;			/* not a source column, or uploaded already */
		col = &input->cols[ci];
		dc[ci].fmt = col->kind;
		if (input->on_device)
		{
			if (n > 0)
			{
				if (col->nulls != NULL && !check_device_ptr(c, col->nulls, 1, ci, "nulls"))
					return false;
				if (kind_is_text(col->kind))
				{
					if (!check_device_ptr(c, col->offsets, sizeof(int64_t), ci, "offsets") ||
						(col->data != NULL && !check_device_ptr(c, col->data, 1, ci, "data")))
						return false;
				}
				else if (!check_device_ptr(c, col->data, kind_align(col->kind), ci, "data"))
					return false;
			}
			dc[ci].nulls = col->nulls;
			dc[ci].offsets = col->offsets;
			dc[ci].data = (const char *) col->data;
			continue;
		}
		if (col->nulls != NULL)
		{
			dc[ci].nulls = upload(c, col->nulls, (size_t) n);
			if (dc[ci].nulls == NULL)
				return false;
		}
		if (kind_is_text(col->kind))
		{
			int64_t		nbytes = n > 0 ? col->offsets[n] : 0;

			dc[ci].offsets = upload(c, col->offsets, (size_t) n + 1);
			dc[ci].data = upload(c, (const char *) col->data, (size_t) nbytes);
			if (dc[ci].offsets == NULL || dc[ci].data == NULL)
				return false;
		}
		else
		{
			dc[ci].data = upload(c, (const char *) col->data, (size_t) n * tm_gpu_kind_width(col->kind));
			if (dc[ci].data == NULL)
				return false;
		}
	}
	return true;
}

/* DFlags.err and errrow from errinv (record_error) */
static void
decode_error(DFlags *f)
{
	if (f->errinv != 0)
	{
		unsigned long long key = ~f->errinv;

		f->err = (int) (key & 0xff);
		f->errrow = (long long) (key >> 8) - 1;
	}
	else
	{
		f->err = 0;
		f->errrow = -1;
	}
}

/* the pool's cancel word is set (tm_gpu_pool_cancel): record TM_GPU_ERR_CANCELED and return true */
static bool
check_canceled(Ctx *c)
{
	if (c->pool->cancel == NULL || __atomic_load_n(c->pool->cancel, __ATOMIC_ACQUIRE) == 0)
		return false;
	fail(c, TM_GPU_ERR_CANCELED, "canceled");
	return true;
}

/* flags of the pass: an expression error fails the execution */
static bool
check_flags(Ctx *c, DFlags *f)
{
	decode_error(f);
	if (f->err != 0)
	{
		/* a source row of the current chunk: its number in the whole source (-1: none) */
		long long	row = f->errrow >= 0 ? f->errrow + (long long) c->row_base : f->errrow;

		if (c->fail != NULL)
		{
			c->fail->status = f->err;
			c->fail->row = row;
		}
		return fail(c, TM_GPU_ERR_EXPR, "%s (status %d) at source row %lld", status_name(f->err), f->err, row);
	}
	return true;
}

/* ------------------------------------------------------------------------------------------------
 * Host side: the grid of the Themis scheduler (nifs_kernel)
 * ------------------------------------------------------------------------------------------------
 */
static int	g_lb_max_warps = 0;		/* tm_gpu_set_lb_max_warps: 0 = no limit */

struct LbGrid
{
	int			wpb;			/* warps per block */
	int			warp_bytes;		/* shared memory per warp */
	size_t		smem;			/* per block */
	int			blocks;			/* all resident at once */
	int			nwarps;
};

/*
 * The grid of nifs_kernel for a pipeline of nops ops: up to 8 warps per block (fewer where their queues
 * take more than 96 KB of shared memory), as many blocks as can be resident at once (the occupancy of
 * the kernel), at most LB_MAX_WARPS (and tm_gpu_set_lb_max_warps) warps
 */
static bool
lb_grid(Ctx *c, int nops, LbGrid *g)
{
	int			budget = c->pool->smem_optin < 96 * 1024 ? c->pool->smem_optin : 96 * 1024;
	int			nb = 0;

	memset(g, 0, sizeof(*g));
	g->warp_bytes = lb_warp_bytes(nops);
	g->wpb = budget / g->warp_bytes;
	if (g->wpb > LB_TPB / 32)
		g->wpb = LB_TPB / 32;
	if (g_lb_max_warps > 0 && g->wpb > g_lb_max_warps)
		g->wpb = g_lb_max_warps;
	if (g->wpb < 1)
		return fail(c, TM_GPU_ERR_UNSUPPORTED, "NIFS: %d ops take %d bytes of shared memory per warp", nops,
					g->warp_bytes);
	g->smem = (size_t) g->wpb * (size_t) g->warp_bytes;
	/* the same limit for every grid (not the grid's own bytes): no call can shrink it under another's */
	CK(cudaFuncSetAttribute(nifs_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, budget));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, nifs_kernel, g->wpb * 32, g->smem));
	if (nb < 1)
		return fail(c, TM_GPU_ERR_UNSUPPORTED, "NIFS: a block of %d warps does not fit a multiprocessor", g->wpb);
	g->blocks = nb * c->pool->nsm;
	if (g->blocks * g->wpb > LB_MAX_WARPS)
		g->blocks = LB_MAX_WARPS / g->wpb;
	if (g_lb_max_warps > 0 && g->blocks * g->wpb > g_lb_max_warps)
		g->blocks = g_lb_max_warps / g->wpb;
	if (g->blocks < 1)
		g->blocks = 1;
	g->nwarps = g->blocks * g->wpb;
	return true;
}

/* AWS scratch in the pool: [mailbox words | bottom bitmap | top bitmap] (zeroed), headers, ranges */
struct LbScratch
{
	size_t		off_bm1;
	size_t		off_bm2;
	size_t		zero_bytes;
	size_t		off_hdr;
	size_t		off_ent;
	size_t		total;
};

static void
lb_scratch_layout(int nwarps, int nops, LbScratch *l)
{
	size_t		nbm1 = ((size_t) nwarps + 31) / 32;
	size_t		nbm2 = (nbm1 + 31) / 32;

	l->off_bm1 = align_up(sizeof(int) * (size_t) nwarps, POOL_ALIGN);
	l->off_bm2 = align_up(l->off_bm1 + sizeof(unsigned int) * nbm1, POOL_ALIGN);
	l->zero_bytes = l->off_bm2 + sizeof(unsigned int) * nbm2;
	l->off_hdr = align_up(l->zero_bytes, POOL_ALIGN);
	l->off_ent = align_up(l->off_hdr + sizeof(int) * 4 * (size_t) nwarps, POOL_ALIGN);
	l->total = l->off_ent + sizeof(int) * (size_t) nwarps * LB_MB_ENT * (size_t) (nops + 2);
}

/* pool bytes that a pass of the current scheduler takes for a pipeline of nops ops (besides DFlags) */
static bool
lb_scratch_bytes(Ctx *c, int nops, size_t *bytes)
{
	LbGrid		g;
	LbScratch	l;

	*bytes = 0;
	if (c->lb != TM_GPU_LB_NIFS_AWS)
		return true;
	if (!lb_grid(c, nops, &g))
		return false;
	lb_scratch_layout(g.nwarps, nops, &l);
	*bytes = align_up(l.total, POOL_ALIGN) + POOL_ALIGN;
	return true;
}

/* launch nifs_kernel for pass R (its AWS scratch is taken from the pool for the pass); *nwarps: its grid */
static bool
launch_lb(Ctx *c, const DPipe *P, const DRun &R, int *nwarps)
{
	LbGrid		g;
	DLb			L;
	DRun		Rl = R;
	size_t		mark = c->pool->used;

	if (!lb_grid(c, c->lb_nops, &g))
		return false;
	memset(&L, 0, sizeof(L));
	L.mode = c->lb;
	L.nwarps = g.nwarps;
	L.wpb = g.wpb;
	L.warp_bytes = g.warp_bytes;
	L.mbstride = c->lb_nops + 2;
	if (c->lb == TM_GPU_LB_NIFS_AWS)
	{
		LbScratch	l;
		char	   *d;

		lb_scratch_layout(g.nwarps, c->lb_nops, &l);
		d = (char *) pool_alloc(c, l.total);
		if (d == NULL)
			return false;
		L.mbstate = (int *) d;
		L.bm1 = (unsigned int *) (d + l.off_bm1);
		L.bm2 = (unsigned int *) (d + l.off_bm2);
		L.mbhdr = (int *) (d + l.off_hdr);
		L.mbent = (int *) (d + l.off_ent);
		CK(cudaMemsetAsync(d, 0, l.zero_bytes, c->stream));
		/* every block resident at once, or the waits of idle warps could hold SMs that others need */
		for (int blocks = g.blocks;; blocks /= 2)
		{
			void	   *args[3] = {(void *) &P, (void *) &Rl, (void *) &L};
			cudaError_t e;

			L.nwarps = blocks * g.wpb;
			L.nbm1 = (L.nwarps + 31) / 32;
			L.nbm2 = (L.nbm1 + 31) / 32;
			e = cudaLaunchCooperativeKernel((const void *) nifs_kernel, dim3((unsigned) blocks),
											dim3((unsigned) g.wpb * 32), args, g.smem, c->stream);
			if (e == cudaSuccess)
				break;
			(void) cudaGetLastError();
			if (e != cudaErrorCooperativeLaunchTooLarge || blocks <= 1)
				return fail_cuda(c, "cudaLaunchCooperativeKernel (nifs_kernel)", e);
		}
	}
	else
	{
		nifs_kernel<<<g.blocks, g.wpb * 32, g.smem, c->stream>>>(P, Rl, L);
		LAUNCH_CHECK("nifs_kernel");
	}
	/* later work on the stream runs after the kernel: the scratch can be reused */
	c->pool->used = mark;
	*nwarps = L.nwarps;
	return true;
}

/*
 * run_pass: the semi-join prefilter of pipeline P (Ctx.pre_semi_ht; see semi_prefilter_kernel), its bits
 * into *bits (from the pool; left NULL where the keys span more than SEMI_MAX_BITS values or the pool has
 * no room: the pipeline then runs without it); where *bits holds prefilter_kernel's bits already, they are
 * narrowed in place (left as they are where it cannot run).  *done: whether it ran.  The bitmap and the
 * bits are the caller's to give back.
 */
static bool
semi_prefilter(Ctx *c, const DPipe *P, int64_t nrows, int nb, size_t nbits, uint32_t **bits, bool *done)
{
	const HHash *H = &c->hts[c->pre_semi_ht];
	static const long long mm0[2] = {LLONG_MAX, LLONG_MIN};
	long long	hmm[2];
	long long  *mm = (long long *) pool_try_alloc(c, sizeof(mm0));
	unsigned long long span;
	size_t		bmbytes;
	uint32_t   *bm;
	uint32_t   *b;
	bool		and_bits = *bits != NULL;

	*done = false;
	if (mm == NULL || H->nrows <= 0)
		return true;
	CK(cudaMemcpyAsync(mm, mm0, sizeof(mm0), cudaMemcpyHostToDevice, c->stream));
	semi_minmax_kernel<<<nblocks(c, H->nrows), TPB, 0, c->stream>>>(H->cols[0], H->nrows, mm);
	LAUNCH_CHECK("semi_minmax_kernel");
	if (!download(c, hmm, mm, sizeof(hmm)))
		return false;
	if (hmm[0] > hmm[1])
		return true;
	span = (unsigned long long) hmm[1] - (unsigned long long) hmm[0] + 1;
	if (span == 0 || span > (unsigned long long) SEMI_MAX_BITS)
		return true;
	bmbytes = sizeof(uint32_t) * (size_t) ((span + 31) / 32);
	bm = (uint32_t *) pool_try_alloc(c, bmbytes);
	b = bm == NULL ? NULL : and_bits ? *bits : (uint32_t *) pool_try_alloc(c, nbits);
	if (b == NULL)
		return true;
	CK(cudaMemsetAsync(bm, 0, bmbytes, c->stream));
	semi_bits_kernel<<<nblocks(c, H->nrows), TPB, 0, c->stream>>>(H->cols[0], H->nrows, hmm[0], bm);
	LAUNCH_CHECK("semi_bits_kernel");
	semi_prefilter_kernel<<<nb, TPB, 0, c->stream>>>(P, nrows, c->pre_semi_col, c->pre_semi_w, hmm[0], span,
													 bm, b, and_bits);
	LAUNCH_CHECK("semi_prefilter_kernel");
	*bits = b;
	*done = true;
	return true;
}

/* one pass of the pipeline kernel over nrows source rows; *f: its flags */
static bool
run_pass(Ctx *c, const DPipe *P, const DRun &R0, int64_t nrows, DFlags *f)
{
	bool		lb = c->lb != TM_GPU_LB_NONE && nrows > 0;
	int			nwarps = 1;
	DRun		R = R0;
	size_t		smem = priv_smem_bytes(R0);

	/* canceled: between passes (and chunks) nothing more is launched; a pass cut short is not used */
	if (check_canceled(c))
		return false;
	R.cancel = c->pool->cancel_dev;
	R.dyn = c->pool->static_rows ? 0 : 1;
	CK(cudaMemsetAsync(c->dflags, 0, sizeof(DFlags), c->stream));
	if (lb && R0.prebits != NULL)
		return fail(c, TM_GPU_ERR_BAD_PLAN, "a sample's windows in a NIFS pass");
	if (lb)
	{
		DRun		Rl = R;

		/* the block-private memo and states are pipeline_kernel's */
		Rl.memo = 0;
		Rl.priv_k = 0;
		Rl.priv_t = 0;
		Rl.priv_ns = 0;
		if (!launch_lb(c, P, Rl, &nwarps))
			return false;
	}
	else if (nrows > 0 && P == c->pre_P && c->pre_jit_fn != NULL && R0.prebits == NULL && R.pass == PASS_RUN)
	{
		/*
		 * The pipeline's generated kernel (jit_prepare): its filters inline, so no prefilter; a thread a
		 * row, grid-stride, over one wave of the blocks the device holds at once (each block sets up and
		 * flushes its private states once)
		 */
		int			per_sm = 0;
		int			nb = nblocks(c, nrows);
		int64_t		n = nrows;
		void	   *args[] = {(void *) &P, (void *) &R, (void *) &n};

		CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, c->pre_jit_fn, TPB, smem));
		if (per_sm >= 1 && nb > per_sm * c->pool->nsm)
			nb = per_sm * c->pool->nsm;
		CK(cudaLaunchKernel(c->pre_jit_fn, dim3(nb), dim3(TPB), args, smem, c->stream));
		c->jit_passes++;
	}
	else if (nrows > 0)
	{
		size_t		mark = c->pool->used;
		size_t		nbits = sizeof(uint32_t) * (size_t) ((nrows + 31) / 32);
		uint32_t   *bits = NULL;
		bool		semi = false;
		int			nb = nblocks(c, nrows);
		bool		ni = P == c->pre_P && c->pre_nointerp;
		const uint32_t *win = R0.prebits;	/* a sample's windows (sink_hash_build): only their rows run */

		/*
		 * pipeline_kernel takes bits as the rows that passed the prefilter's filters (DPipe.npre), so the
		 * windows go alone only where the pipeline has no such filters, else into the prefilter's bits
		 */
		R.prebits = NULL;
		if (win != NULL && P != c->pre_P)
			return fail(c, TM_GPU_ERR_BAD_PLAN, "a sample's windows over another pipeline's rows");

		/* (no room for the bits: the leading filters run in pipeline_kernel, as without a prefilter) */
		if (P == c->pre_P && c->pre_nops > 0)
		{
			bits = (uint32_t *) pool_try_alloc(c, nbits);
			if (bits != NULL && c->pre_plain)
				prefilter_kernel<true><<<nb, TPB, 0, c->stream>>>(P, nrows, bits);
			else if (bits != NULL)
				prefilter_kernel<false><<<nb, TPB, 0, c->stream>>>(P, nrows, bits);
			if (bits != NULL)
				LAUNCH_CHECK("prefilter_kernel");
		}
		/* (after leading filters only where prefilter_kernel ran them: see upload_pipeline) */
		if (P == c->pre_P && c->pre_semi_ht >= 0 && (c->pre_nops == 0 || bits != NULL))
		{
			if (!semi_prefilter(c, P, nrows, nb, nbits, &bits, &semi))
				return false;
		}
		if (win != NULL && c->pre_nops > 0 && bits == NULL)
			return fail(c, TM_GPU_ERR_NOMEM, "no room for a sample's prefilter bits");
		if (bits != NULL && win != NULL)
		{
			and_bits_kernel<<<nblocks(c, (nrows + 31) / 32), TPB, 0, c->stream>>>(bits, win, (nrows + 31) / 32);
			LAUNCH_CHECK("and_bits_kernel");
		}
		if (bits != NULL)
		{
			R.prebits = bits;
			c->prefiltered++;
			c->prefiltered_plain = c->pre_plain;
			c->prefiltered_semi = semi;
		}
		else if (win != NULL)
			R.prebits = win;

		/*
		 * pipeline_kernel then runs on the rows that passed, read from the bits 1,024 at a time: two waves
		 * of the blocks a multiprocessor holds at once, not nblocks' 16 a multiprocessor (8 waves of
		 * pipeline_kernel), each block of which would set up and flush its private states for a few rows
		 * (TPC-H Q6: 2% of 60 M rows).  Where its warps take their groups of rows as they finish
		 * (R.dyn: pipeline_rows_compacted, with bits or without), one wave: the first takes every row, a
		 * second would only set up and flush.
		 */
		if (R.prebits != NULL || (R.dyn && P == c->pre_P && c->pre_compact))
		{
			int			per_sm = 0;
			int			waves = R.dyn ? 1 : 2;	/* bits: pipeline_rows_compacted runs */

			if (ni)
				CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pipeline_kernel<true>, TPB, smem));
			else
				CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pipeline_kernel<false>, TPB, smem));
			if (per_sm >= 1 && nb > waves * per_sm * c->pool->nsm)
				nb = waves * per_sm * c->pool->nsm;
		}
		if (ni)
		{
			pipeline_kernel<true><<<nb, TPB, smem, c->stream>>>(P, R, nrows);
			c->nointerp_passes++;
		}
		else
			pipeline_kernel<false><<<nb, TPB, smem, c->stream>>>(P, R, nrows);
		LAUNCH_CHECK("pipeline_kernel");
		c->pool->used = mark;	/* the bits: later work on the stream runs after the kernel */
	}
	if (!download(c, f, c->dflags, sizeof(DFlags)))
		return false;
	if (check_canceled(c))
		return false;
	decode_error(f);
	if (!lb)
		c->dyn_groups += (int64_t) f->wgroups;

	/*
	 * The Themis scheduler stops every warp at the first error it meets, which need not be the one of the
	 * lowest source row (the one PostgreSQL raises): the rows up to it are run again by pipeline_kernel,
	 * which reports the lowest row's error exactly.  (The pass fails either way; if the rerun ends
	 * without an error, say on a full group table, the first one stands.)  A NIFS pass has no per-row
	 * counts or positions: the rerun counts nothing, and writes rows (a RUN pass) from position 0 on,
	 * inside the space the COUNT pass found for all rows; the result is dropped.
	 */
	if (lb && f->err != 0 && f->errrow > 0)
	{
		DFlags		f2;

		CK(cudaMemsetAsync(c->dflags, 0, sizeof(DFlags), c->stream));
		pipeline_kernel<false><<<nblocks(c, f->errrow + 1), TPB, smem, c->stream>>>(P, R, f->errrow + 1);
		LAUNCH_CHECK("pipeline_kernel");
		if (!download(c, &f2, c->dflags, sizeof(DFlags)))
			return false;
		if (f2.errinv != 0)
			f->errinv = f2.errinv;
		decode_error(f);
	}
	if (lb)
	{
		c->lb_passes++;
		c->lb_iters += f->lb_iters;
		c->lb_idle += f->lb_idle;
		c->lb_handoffs += f->lb_handoffs;
		c->lb_max_sum += (double) f->lb_busy_max;
		c->lb_avg_sum += (double) f->lb_busy_sum / (double) nwarps;
	}
	trace_step(c, R.pass == PASS_COUNT ? "count pass" : R.pass == PASS_RUN ? "run pass" : "pass",
			   (long long) nrows);
	return check_flags(c, f);
}

/*
 * COUNT pass: *offs = exclusive prefix sum of the sink rows of each source row (nrows + 1 values).
 * hi: its arrays are taken from the top of the pool (scratch of a chunk).
 */
static bool
count_pass(Ctx *c, const DPipe *P, int64_t nrows, long long **offs, long long *total, bool hi = false)
{
	long long  *counts;
	DRun		R;
	DFlags		f;

	if (c->lb != TM_GPU_LB_NONE)
	{
		/* NIFS: only the total (the RUN pass takes positions from a counter): *offs = NULL */
		memset(&R, 0, sizeof(R));
		R.pass = PASS_COUNT;
		R.flags = c->dflags;
		*offs = NULL;
		if (!run_pass(c, P, R, nrows, &f))
			return false;
		*total = (long long) f.sinkrows;
		return true;
	}
	counts = hi ? dalloc_hi<long long>(c, (size_t) nrows + 1) : dalloc<long long>(c, (size_t) nrows + 1);
	*offs = hi ? dalloc_hi<long long>(c, (size_t) nrows + 1) : dalloc<long long>(c, (size_t) nrows + 1);
	if (counts == NULL || *offs == NULL)
		return false;
	CK(cudaMemsetAsync(counts, 0, sizeof(long long) * ((size_t) nrows + 1), c->stream));
	memset(&R, 0, sizeof(R));
	R.pass = PASS_COUNT;
	R.counts = counts;
	R.flags = c->dflags;
	if (!run_pass(c, P, R, nrows, &f))
		return false;
	if (!exclusive_sum(c, counts, *offs, (int) (nrows + 1)))
		return false;
	trace_step(c, "count prefix sum", (long long) nrows);
	return download(c, total, *offs + nrows, sizeof(long long));
}

/* n TmValue columns with NULL bytes, and the device arrays of their pointers */
static bool
alloc_value_columns(Ctx *c, int ncols, int64_t n, TmValue **vals, uint8_t **nulls,
					TmValue ***dvals, uint8_t ***dnulls, bool hi = false)
{
	for (int i = 0; i < ncols; i++)
	{
		vals[i] = hi ? dalloc_hi<TmValue>(c, Max1(n)) : dalloc<TmValue>(c, Max1(n));
		nulls[i] = hi ? dalloc_hi<uint8_t>(c, Max1(n)) : dalloc<uint8_t>(c, Max1(n));
		if (vals[i] == NULL || nulls[i] == NULL)
			return false;
	}
	*dvals = upload(c, vals, Max1(ncols), hi);
	*dnulls = upload(c, nulls, Max1(ncols), hi);
	return *dvals != NULL && *dnulls != NULL;
}

/* ------------------------------------------------------------------------------------------------
 * Host side: the source of a pipeline, whole or in chunks
 * ------------------------------------------------------------------------------------------------
 */
static int64_t g_max_chunk_rows = -1;	/* tm_gpu_set_max_chunk_rows; -1: not called */

/* at most this many rows per chunk (0: no limit) */
static int64_t
max_chunk_rows(void)
{
	static int64_t env = -1;

	if (g_max_chunk_rows >= 0)
		return g_max_chunk_rows;
	if (env < 0)
	{
		const char *v = getenv("TM_GPU_MAX_CHUNK_ROWS");
		long long	n = v != NULL ? atoll(v) : 0;

		env = n > 0 ? (int64_t) n : 0;
	}
	return env;
}

extern "C" void
tm_gpu_set_max_chunk_rows(int64_t n)
{
	g_max_chunk_rows = n > 0 ? n : 0;
}

/*
 * The source of a pipeline as the sinks see it: either the whole source, uploaded (or device-resident,
 * or a result) before the descriptor was laid out (chunked = false: one "chunk" of nrows rows), or a
 * host input read in chunks (chunked = true): src_open uploads the chunk that starts at a row into the
 * top of the pool and points the descriptor at it, src_close gives its space back.
 */
struct Src
{
	bool		chunked;
	const DPipe *P;				/* device */
	int64_t		nrows;			/* source rows in all */
	/* chunked */
	const TmGpuTable *input;	/* the host input */
	int			ncols;
	bool	   *read;			/* the columns that level-0 slots read */
	DCol	   *dc;				/* host descriptors of the current chunk's columns */
	DCol	   *dcols;			/* device: the descriptor's source column array (P->srccols) */
	int64_t		maxrows;		/* rows per chunk at most (0: no limit) */
	bool		count_scratch;	/* the passes over a chunk take COUNT arrays (2 x 8 bytes a row; not
								 * with NIFS, whose COUNT pass only counts) */
	bool		lb;				/* the NIFS / AWS scheduler runs the passes */
	size_t		lb_bytes;		/* pool bytes its passes take (AWS scratch) */
	double		copy_factor;	/* bytes of text copied out of a chunk, expected per text byte of it */
	size_t		himark;			/* pool->hi before any chunk (the top of the chunk area) */
	/* the open chunk: rows [start, start + n) */
	int64_t		start;
	int64_t		n;
	size_t		lowmark;		/* pool->used when it was opened */
	bool		live;			/* it holds memory at the top of the pool */
};

/* forget a failure (to run again another way) */
static void
clear_failure(Ctx *c)
{
	c->rc = TM_GPU_OK;
	if (c->err != NULL && c->errlen > 0)
		c->err[0] = '\0';
	if (c->fail != NULL)
	{
		c->fail->pipeline = -1;
		c->fail->status = 0;
		c->fail->row = -1;
	}
}

/* temporary bytes of an exclusive prefix sum of n long longs (exclusive_sum) */
static bool
scan_tmp_bytes(Ctx *c, int64_t n, size_t *bytes)
{
	*bytes = 0;
	CK(cub::DeviceScan::ExclusiveSum(NULL, *bytes, (const long long *) NULL, (long long *) NULL, (int) n,
									 c->stream));
	return true;
}

/* text bytes of rows [start, start + n) of a host column (0 where the offsets are malformed) */
static int64_t
text_bytes(const TmGpuColumn *col, int64_t start, int64_t n)
{
	int64_t		b = col->offsets[start + n] - col->offsets[start];

	return b > 0 ? b : 0;
}

/*
 * Pool bytes that rows [start, start + n) take as a chunk: its columns (as src_open allocates them), the
 * COUNT arrays and the prefix sum's temporary bytes (tmp) if the passes need them, the expected copies
 * of text values (copy_factor), and some slack for small allocations and alignment.
 */
static size_t
chunk_bytes(const Src *S, int64_t start, int64_t n, size_t tmp)
{
	size_t		need = 16 * (size_t) POOL_ALIGN + tmp + S->lb_bytes;
	int64_t		tb = 0;

	for (int ci = 0; ci < S->ncols; ci++)
	{
		const TmGpuColumn *col = &S->input->cols[ci];

		if (!S->read[ci])
			continue;
		if (col->nulls != NULL)
			need += align_up((size_t) n, POOL_ALIGN);
		if (kind_is_text(col->kind))
		{
			int64_t		b = text_bytes(col, start, n);

			need += align_up(sizeof(int64_t) * (size_t) (n + 1), POOL_ALIGN) + align_up((size_t) b, POOL_ALIGN);
			tb += b;
		}
		else
			need += align_up((size_t) n * (size_t) tm_gpu_kind_width(col->kind), POOL_ALIGN);
	}
	if (S->count_scratch && !S->lb)
		need += 2 * align_up(sizeof(long long) * (size_t) (n + 1), POOL_ALIGN);
	if (S->copy_factor > 0 && tb > 0)
		need += (size_t) (S->copy_factor * (double) tb) + 2 * (size_t) POOL_ALIGN;
	return need;
}

/* bytes of the chunk [start, start + n) with the prefix sum's temporary bytes for it */
static bool
chunk_need(Ctx *c, const Src *S, int64_t start, int64_t n, size_t *need)
{
	size_t		tmp = 0;

	if (S->count_scratch && !S->lb && !scan_tmp_bytes(c, n + 1, &tmp))
		return false;
	*need = chunk_bytes(S, start, n, tmp);
	return true;
}

/* which source columns pipeline pl reads (S->read, S->dc kinds) */
static bool
src_init(Ctx *c, Src *S, const TmPipeline *pl, const TmGpuTable *input)
{
	memset(S, 0, sizeof(*S));
	S->chunked = true;
	S->input = input;
	S->ncols = input->ncols;
	S->nrows = input->nrows;
	S->maxrows = max_chunk_rows();
	S->himark = c->pool->hi;
	S->lb = c->lb != TM_GPU_LB_NONE;
	if (!lb_scratch_bytes(c, pl->nops, &S->lb_bytes))
		return false;
	S->read = (bool *) xmalloc0(c, sizeof(bool) * Max1(S->ncols));
	S->dc = (DCol *) xmalloc0(c, sizeof(DCol) * Max1(S->ncols));
	if (S->read == NULL || S->dc == NULL)
		return false;
	for (int s = 0; s < pl->nslots; s++)
		if (pl->slots[s].level == 0)
		{
			int			ci = pl->slots[s].col;

			S->read[ci] = true;
			S->dc[ci].fmt = S->input->cols[ci].kind;
		}
	return true;
}

static void
src_free(Src *S)
{
	free(S->read);
	free(S->dc);
	S->read = NULL;
	S->dc = NULL;
}

/* give the open chunk's space at the top of the pool back */
static void
src_close(Ctx *c, Src *S)
{
	if (S->chunked)
		c->pool->hi = S->himark;
	S->live = false;
}

/*
 * Open the chunk that starts at source row start: as many rows as fit the free pool space (at most
 * S->maxrows), uploaded at the top of the pool (text offsets rebased to the chunk's first byte), and the
 * descriptor's source columns and row count pointed at it.  Fails with TM_GPU_ERR_NOMEM if not even one
 * row fits.
 */
static bool
src_open(Ctx *c, Src *S, int64_t start)
{
	TmGpuPool  *pool = c->pool;
	size_t		freeb = pool_free(pool);
	int64_t		lim = S->nrows - start;
	int64_t		lo = 1;
	int64_t		hi;
	size_t		need;
	int64_t		n;

	S->start = start;
	S->n = 0;
	S->live = false;
	S->lowmark = pool->used;
	c->row_base = start;
	if (S->maxrows > 0 && lim > S->maxrows)
		lim = S->maxrows;
	if (!chunk_need(c, S, start, 1, &need))
		return false;
	if (need > freeb)
		return fail(c, TM_GPU_ERR_NOMEM,
					"device pool exhausted: a chunk of one source row (row %lld) needs %zu bytes, %zu of %zu free",
					(long long) start, need, freeb, pool->size);
	/* the most rows that fit (the bytes grow with the rows) */
	hi = lim;
	while (lo < hi)
	{
		int64_t		mid = lo + (hi - lo + 1) / 2;

		if (!chunk_need(c, S, start, mid, &need))
			return false;
		if (need <= freeb)
			lo = mid;
		else
			hi = mid - 1;
	}
	n = lo;
	S->n = n;
	S->live = true;

	for (int ci = 0; ci < S->ncols; ci++)
	{
		const TmGpuColumn *col = &S->input->cols[ci];
		DCol	   *d = &S->dc[ci];

		if (!S->read[ci])
			continue;
		d->nulls = NULL;
		if (col->nulls != NULL)
		{
			d->nulls = upload(c, col->nulls + start, (size_t) n, true);
			if (d->nulls == NULL)
				return false;
		}
		if (kind_is_text(col->kind))
		{
			int64_t		b0 = col->offsets[start];
			int64_t		b1 = col->offsets[start + n];
			int64_t    *o;

			if (b0 < 0 || b1 < b0)
				return fail(c, TM_GPU_ERR_BAD_PLAN, "source column %d: text offsets decrease in rows %lld..%lld",
							ci, (long long) start, (long long) (start + n));
			o = upload(c, col->offsets + start, (size_t) n + 1, true);
			d->offsets = o;
			d->data = upload(c, (const char *) col->data + b0, (size_t) (b1 - b0), true);
			if (o == NULL || d->data == NULL)
				return false;
			if (b0 != 0)
			{
				rebase_offsets_kernel<<<nblocks(c, n + 1), TPB, 0, c->stream>>>(o, (long long) n + 1, b0);
				LAUNCH_CHECK("rebase_offsets_kernel");
			}
		}
		else
		{
			size_t		w = (size_t) tm_gpu_kind_width(col->kind);

			d->data = upload(c, (const char *) col->data + (size_t) start * w, (size_t) n * w, true);
			if (d->data == NULL)
				return false;
		}
	}
	/* from pageable host memory: staged before the calls return */
	if (S->ncols > 0)
		CK(cudaMemcpyAsync(S->dcols, S->dc, sizeof(DCol) * (size_t) S->ncols, cudaMemcpyHostToDevice, c->stream));
	CK(cudaMemcpyAsync((char *) S->P + offsetof(DPipe, nrows), &S->n, sizeof(int64_t), cudaMemcpyHostToDevice,
					   c->stream));
	return true;
}

/*
 * After a failure while a chunk was open: if the pool ran out and the chunk has more than one row,
 * forget the failure, give back what the chunk took (at both ends) and make the chunks from here on half
 * as large.  True: the caller redoes the chunk (an AGG starts over).
 */
static bool
src_retry(Ctx *c, Src *S)
{
	if (!S->chunked || c->rc != TM_GPU_ERR_NOMEM || !S->live || S->n <= 1)
		return false;
	clear_failure(c);
	c->pool->used = S->lowmark;
	src_close(c, S);
	S->maxrows = S->n / 2;
	return true;
}

/*
 * The text values of fx[0 .. nfx) that point into the open chunk (the top part of the pool) are copied
 * into a new bottom allocation and repointed (acc: 3 device counters: bytes, values, bytes copied)
 */
static bool
fix_text(Ctx *c, const Src *S, const DFix *fx, int nfx, unsigned long long *acc)
{
	TmGpuPool  *pool = c->pool;
	const char *lo = pool->base + pool->hi;
	const char *hi = pool->base + S->himark;
	unsigned long long h[2];
	char	   *arena;
	bool		any = false;

	for (int i = 0; i < nfx; i++)
		any |= fx[i].n > 0;
	if (!any)
		return true;
	CK(cudaMemsetAsync(acc, 0, 3 * sizeof(unsigned long long), c->stream));
	for (int i = 0; i < nfx; i++)
		if (fx[i].n > 0)
		{
			fix_measure_kernel<<<nblocks(c, fx[i].n), TPB, 0, c->stream>>>(fx[i], lo, hi, acc);
			LAUNCH_CHECK("fix_measure_kernel");
		}
	if (!download(c, h, acc, sizeof(h)))
		return false;
	if (h[1] == 0)
		return true;
	arena = dalloc<char>(c, (size_t) h[0]);
	if (arena == NULL)
		return false;
	for (int i = 0; i < nfx; i++)
		if (fx[i].n > 0)
		{
			fix_copy_kernel<<<nblocks(c, fx[i].n), TPB, 0, c->stream>>>(fx[i], lo, hi, arena, acc + 2);
			LAUNCH_CHECK("fix_copy_kernel");
		}
	return true;
}

/* chunks, the first sweep of EMIT / HASH_BUILD: *total = sink rows of the whole source */
static bool
chunked_count(Ctx *c, Src *S, long long *total)
{
	*total = 0;
	S->count_scratch = true;
	S->copy_factor = 0;
	for (int64_t start = 0; start < S->nrows;)
	{
		long long  *offs;
		long long	t = 0;

		if (!src_open(c, S, start) || !count_pass(c, S->P, S->n, &offs, &t, true))
		{
			if (src_retry(c, S))
				continue;
			return false;
		}
		src_close(c, S);
		*total += t;
		start += S->n;
	}
	return true;
}

/*
 * chunks, the second sweep of EMIT / HASH_BUILD: count each chunk again and write its rows after those
 * of the earlier chunks, at [base, base + its rows) of the output (R: the RUN pass's output arguments;
 * vals / nulls: host arrays of the ncols output columns, text[i]: column i holds text values, which are
 * copied out of the chunk).  The output has room up to row end, which the last chunk must reach.
 */
static bool
chunked_write(Ctx *c, Src *S, DRun R, long long base, long long end, int ncols, TmValue *const *vals,
			  uint8_t *const *nulls, const bool *text)
{
	int			ntext = 0;
	DFix	   *fx = NULL;
	unsigned long long *acc = NULL;
	long long	base0 = base;

	if (end == base)
		return true;			/* no sink rows: nothing to write (and no expression to raise an error) */
	for (int i = 0; i < ncols; i++)
		ntext += text[i] ? 1 : 0;
	S->count_scratch = true;
	/* sink rows per source row, times the text columns */
	S->copy_factor = (ntext > 0 && S->nrows > 0) ? (double) ntext * (double) (end - base0) / (double) S->nrows : 0;
	if (ntext > 0)
	{
		fx = (DFix *) xmalloc0(c, sizeof(DFix) * (size_t) ntext);
		acc = dalloc<unsigned long long>(c, 3);
		if (fx == NULL || acc == NULL)
		{
			free(fx);
			return false;
		}
	}
	for (int64_t start = 0; start < S->nrows;)
	{
		long long  *offs;
		long long	t = 0;
		DFlags		f;
		bool		ok;

		ok = src_open(c, S, start) && count_pass(c, S->P, S->n, &offs, &t, true);
		if (ok && base + t > end)
		{
			free(fx);
			return fail(c, TM_GPU_ERR_BAD_PLAN, "rows %lld..%lld: more sink rows than the first sweep counted",
						(long long) start, (long long) (start + S->n));
		}
		if (ok)
		{
			R.pass = PASS_RUN;
			R.offs = offs;
			R.base = base;
			R.limit = t;
			ok = run_pass(c, S->P, R, S->n, &f);
		}
		if (ok && ntext > 0)
		{
			int			k = 0;

			for (int i = 0; i < ncols; i++)
				if (text[i])
				{
					fx[k].vals = (char *) (vals[i] + base);
					fx[k].stride = (long long) sizeof(TmValue);
					fx[k].nulls = nulls[i] + base;
					fx[k].seen = NULL;
					fx[k].n = t;
					k++;
				}
			ok = fix_text(c, S, fx, ntext, acc);
		}
		if (!ok)
		{
			/* rows of a redone chunk are written again at the same places */
			if (src_retry(c, S))
				continue;
			free(fx);
			return false;
		}
		src_close(c, S);
		base += t;
		start += S->n;
	}
	free(fx);
	if (base != end)
		return fail(c, TM_GPU_ERR_BAD_PLAN, "chunks: %lld sink rows written, the first sweep counted %lld",
					base - base0, end - base0);
	return true;
}

/*
 * EMIT: room for total more rows in the sink's result, after the rows made so far (copied); *dvals /
 * *dnulls: device arrays of its column pointers (the host ones: the result's vals / nulls)
 */
static bool
emit_grow(Ctx *c, const TmSink *sk, long long total, TmValue ***dvals, uint8_t ***dnulls)
{
	HResult    *res = &c->results[sk->target];
	int			ncols = sk->nvals;
	int64_t		old = res->made ? res->nrows : 0;
	TmValue   **vals;
	uint8_t   **nulls;

	if (old + total >= INT32_MAX)
		return fail(c, TM_GPU_ERR_UNSUPPORTED, "result %d would have %lld rows", sk->target,
					(long long) (old + total));
	vals = (TmValue **) xmalloc0(c, sizeof(TmValue *) * Max1(ncols));
	nulls = (uint8_t **) xmalloc0(c, sizeof(uint8_t *) * Max1(ncols));
	if (vals == NULL || nulls == NULL ||
		!alloc_value_columns(c, ncols, old + total, vals, nulls, dvals, dnulls))
	{
		free(vals);
		free(nulls);
		return false;
	}
	/* appending: the rows made so far first */
	for (int i = 0; i < ncols && old > 0; i++)
	{
		cudaError_t e;

		if ((e = cudaMemcpyAsync(vals[i], res->vals[i], sizeof(TmValue) * old, cudaMemcpyDeviceToDevice,
								 c->stream)) != cudaSuccess ||
			(e = cudaMemcpyAsync(nulls[i], res->nulls[i], old, cudaMemcpyDeviceToDevice,
								 c->stream)) != cudaSuccess)
		{
			free(vals);
			free(nulls);
			return fail_cuda(c, "cudaMemcpyAsync (append)", e);
		}
	}
	/* the result owns its host arrays from here on */
	free(res->vals);
	free(res->nulls);
	res->vals = vals;
	res->nulls = nulls;
	res->made = true;
	res->ncols = ncols;
	res->nrows = old + total;
	return true;
}

/* EMIT: count, prefix sum, write (appending to the result if an earlier EMIT made it) */
static bool
sink_emit(Ctx *c, const TmPipeline *pl, const DPipe *P, int64_t nrows, TmGpuPipelineStats *st)
{
	const TmSink *sk = &pl->sink;
	HResult    *res = &c->results[sk->target];
	long long  *offs;
	long long	total;
	int64_t		old = res->made ? res->nrows : 0;
	TmValue   **dvals;
	uint8_t   **dnulls;
	DRun		R;
	DFlags		f;

	if (!count_pass(c, P, nrows, &offs, &total))
		return false;
	if (!emit_grow(c, sk, total, &dvals, &dnulls))
		return false;

	memset(&R, 0, sizeof(R));
	R.pass = PASS_RUN;
	R.offs = offs;
	R.base = old;
	R.limit = total;
	R.outvals = dvals;
	R.outnulls = dnulls;
	R.flags = c->dflags;
	if (!run_pass(c, P, R, nrows, &f))
		return false;
	st->sink_rows = total;
	st->out_rows = total;
	return true;
}

/* EMIT over chunks: a COUNT sweep, the result grown once, a sweep that writes each chunk's rows */
static bool
sink_emit_chunked(Ctx *c, const TmPipeline *pl, Src *S, TmGpuPipelineStats *st)
{
	const TmSink *sk = &pl->sink;
	HResult    *res = &c->results[sk->target];
	int			ncols = sk->nvals;
	int64_t		old = res->made ? res->nrows : 0;
	long long	total;
	TmValue   **dvals;
	uint8_t   **dnulls;
	bool	   *text;
	DRun		R;
	bool		ok;

	if (!chunked_count(c, S, &total) || !emit_grow(c, sk, total, &dvals, &dnulls))
		return false;
	text = (bool *) xmalloc0(c, sizeof(bool) * Max1(ncols));
	if (text == NULL)
		return false;
	for (int i = 0; i < ncols; i++)
		text[i] = kind_is_text(sk->vals[i]->result.kind);
	memset(&R, 0, sizeof(R));
	R.outvals = dvals;
	R.outnulls = dnulls;
	R.flags = c->dflags;
	ok = chunked_write(c, S, R, old, old + total, ncols, res->vals, res->nulls, text);
	free(text);
	st->sink_rows = total;
	st->out_rows = total;
	return ok;
}

/* stable radix sort of (key, value) pairs on the low `bits` bits of the keys (CUB) */
static bool
sort_pairs(Ctx *c, const unsigned int *kin, unsigned int *kout, const unsigned int *vin, unsigned int *vout,
		   int n, int bits)
{
	size_t		tbytes = 0;
	size_t		mark = c->pool->used;
	void	   *tmp;

	CK(cub::DeviceRadixSort::SortPairs(NULL, tbytes, kin, kout, vin, vout, n, 0, bits, c->stream));
	tmp = pool_alloc(c, tbytes);
	if (tmp == NULL)
		return false;
	CK(cub::DeviceRadixSort::SortPairs(tmp, tbytes, kin, kout, vin, vout, n, 0, bits, c->stream));
	c->pool->used = mark;
	return true;
}

/*
 * Group collected build rows by key into hash table `target` (nk keys, nv payload columns; hrows / hrnulls:
 * host arrays of the n rows' device columns, keys first; hashes: each row's key hash): directory insert,
 * count per directory slot, prefix sum, stable sort of (slot, row), gather.  The table's definition is
 * c->plan's (run_swapped may have replaced it).
 */
static bool
build_group(Ctx *c, int target, int nk, int nv, TmValue **hrows, uint8_t **hrnulls, uint64_t *hashes,
			long long n)
{
	const TmHashTable *def = &c->plan->hashtables[target];
	int			ncols = nk + nv;
	uint64_t	dirsize;
	int			bits = 0;
	unsigned int *dir, *gid, *gid_sorted, *iota, *perm;
	int		   *cnt, *start, *repeated;
	int			hrepeated = 0;
	TmType	   *dkeytypes;
	TmValue   **drows;
	DEntry	   *entries;
	DJoin		J;
	bool		ok = false;

	if (nk < 1 || nk > TM_GPU_MAX_KEYS || nk != def->nkeys)
		return fail(c, TM_GPU_ERR_BAD_PLAN, "hash table %d: %d keys to group by", target, nk);
	dirsize = 16;
	while (dirsize < (uint64_t) n * 2)
		dirsize <<= 1;
	while (((uint64_t) 1 << bits) < dirsize)
		bits++;
	dir = dalloc<unsigned int>(c, dirsize);
	cnt = dalloc<int>(c, dirsize);
	start = dalloc<int>(c, dirsize);
	gid = dalloc<unsigned int>(c, Max1(n));
	gid_sorted = dalloc<unsigned int>(c, Max1(n));
	iota = dalloc<unsigned int>(c, Max1(n));
	perm = dalloc<unsigned int>(c, Max1(n));
	entries = dalloc<DEntry>(c, dirsize);
	repeated = dalloc<int>(c, 1);
	dkeytypes = upload(c, def->keytypes, (size_t) nk);
	drows = upload(c, (TmValue *const *) hrows, Max1(ncols));
	if (dir == NULL || cnt == NULL || start == NULL || gid == NULL || gid_sorted == NULL || iota == NULL ||
		perm == NULL || entries == NULL || repeated == NULL || dkeytypes == NULL || drows == NULL)
		return false;
	if (cudaMemsetAsync(dir, 0xff, sizeof(unsigned int) * dirsize, c->stream) != cudaSuccess ||
		cudaMemsetAsync(cnt, 0, sizeof(int) * dirsize, c->stream) != cudaSuccess ||
		cudaMemsetAsync(repeated, 0, sizeof(int), c->stream) != cudaSuccess)
	{
		fail_cuda(c, "cudaMemsetAsync (join directory)", cudaGetLastError());
		return false;
	}
	if (n > 0)
	{
		join_insert_kernel<<<nblocks(c, n), TPB, 0, c->stream>>>(drows, dkeytypes, nk, hashes, n, dir,
																   dirsize - 1, gid, cnt, repeated);
		if (cudaPeekAtLastError() != cudaSuccess)
		{
			fail_cuda(c, "join_insert_kernel", cudaGetLastError());
			return false;
		}
		iota_kernel<<<nblocks(c, n), TPB, 0, c->stream>>>(iota, n);
		if (cudaPeekAtLastError() != cudaSuccess)
		{
			fail_cuda(c, "iota_kernel", cudaGetLastError());
			return false;
		}
	}
	trace_step(c, "build insert", n);
	if (!exclusive_sum(c, cnt, start, (int) dirsize))
		return false;
	if (n > 0 && !sort_pairs(c, gid, gid_sorted, iota, perm, (int) n, bits))
		return false;
	trace_step(c, "build sort", n);
	join_entries_kernel<<<nblocks(c, dirsize), TPB, 0, c->stream>>>(dir, cnt, start, hashes, dirsize, entries);
	if (cudaPeekAtLastError() != cudaSuccess)
	{
		fail_cuda(c, "join_entries_kernel", cudaGetLastError());
		return false;
	}

	/* the final columns: rows with equal keys contiguous */
	{
		TmValue    *fin[TM_GPU_MAX_KEYS + 256];
		uint8_t    *finnulls[TM_GPU_MAX_KEYS + 256];
		TmValue   **hfin = fin;
		uint8_t   **hfinnulls = finnulls;

		if (ncols > (int) (sizeof(fin) / sizeof(fin[0])))
		{
			hfin = (TmValue **) xmalloc0(c, sizeof(TmValue *) * ncols);
			hfinnulls = (uint8_t **) xmalloc0(c, sizeof(uint8_t *) * ncols);
		}
		if (hfin != NULL && hfinnulls != NULL)
		{
			bool		good = true;

			for (int i = 0; i < ncols && good; i++)
			{
				hfin[i] = dalloc<TmValue>(c, Max1(n));
				hfinnulls[i] = (i < nk) ? NULL : dalloc<uint8_t>(c, Max1(n));
				good = hfin[i] != NULL && (i < nk || hfinnulls[i] != NULL);
				if (good && n > 0)
				{
					gather_kernel<<<nblocks(c, n), TPB, 0, c->stream>>>(hrows[i], hrnulls[i], perm, n,
																		 hfin[i], hfinnulls[i]);
					if (cudaPeekAtLastError() != cudaSuccess)
					{
						fail_cuda(c, "gather_kernel", cudaGetLastError());
						good = false;
					}
				}
			}
			if (good)
			{
				memset(&J, 0, sizeof(J));
				J.nkeys = nk;
				J.npay = nv;
				J.mask = dirsize - 1;
				J.keytypes = dkeytypes;
				J.entries = entries;
				J.keys = upload(c, (const TmValue *const *) hfin, Max1(nk));
				J.pay = nv > 0 ? upload(c, (const TmValue *const *) hfin + nk, (size_t) nv) : NULL;
				J.paynulls = nv > 0 ? upload(c, (const uint8_t *const *) hfinnulls + nk, (size_t) nv) : NULL;
				if (J.keys != NULL && (nv == 0 || (J.pay != NULL && J.paynulls != NULL)))
				{
					HHash	   *H = &c->hts[target];

					/* the partitioned join reads the columns as they are (join_partitioned) */
					free(H->cols);	/* a build retried over chunks */
					free(H->paynulls);
					H->cols = (TmValue **) xmalloc0(c, sizeof(TmValue *) * Max1(ncols));
					H->paynulls = (uint8_t **) xmalloc0(c, sizeof(uint8_t *) * Max1(nv));
					if (H->cols != NULL && H->paynulls != NULL)
					{
						memcpy(H->cols, hfin, sizeof(TmValue *) * ncols);
						if (nv > 0)
							memcpy(H->paynulls, hfinnulls + nk, sizeof(uint8_t *) * nv);
					}
					else
						J.keys = NULL;
				}
				if (J.keys != NULL && (nv == 0 || (J.pay != NULL && J.paynulls != NULL)))
				{
					c->hts[target].d = upload(c, &J, 1);
					if (c->hts[target].d != NULL)
					{
						c->hts[target].built = true;
						c->hts[target].nrows = n;
						ok = true;
					}
				}
			}
		}
		if (hfin != fin)
			free(hfin);
		if (hfinnulls != finnulls)
			free(hfinnulls);
	}
	/* uploads above read host arrays: complete them before those arrays go */
	if (ok && cudaStreamSynchronize(c->stream) != cudaSuccess)
		ok = fail_cuda(c, "cudaStreamSynchronize (hash build)", cudaGetLastError());
	trace_step(c, "build gather", n);
	if (ok && !download(c, &hrepeated, repeated, sizeof(int)))
		ok = false;
	c->hts[target].repeated = ok && hrepeated != 0;
	return ok;
}

/*
 * Hold the n collected rows of hash table `target` ungrouped (run_swapped): copied out of the top of the
 * pool where they are there (copy), else kept where they are
 */
static bool
defer_rows(Ctx *c, int target, int ncols, TmValue **hrows, uint8_t **hrnulls, uint64_t *hashes, long long n,
		   bool copy)
{
	HHash	   *H = &c->hts[target];
	TmValue   **cols = (TmValue **) xmalloc0(c, sizeof(TmValue *) * Max1(ncols));
	uint8_t   **nulls = (uint8_t **) xmalloc0(c, sizeof(uint8_t *) * Max1(ncols));
	uint64_t   *hh = hashes;

	if (cols == NULL || nulls == NULL)
	{
		free(cols);
		free(nulls);
		return false;
	}
	for (int i = 0; i < ncols; i++)
	{
		cols[i] = copy ? dalloc<TmValue>(c, Max1(n)) : hrows[i];
		nulls[i] = copy ? dalloc<uint8_t>(c, Max1(n)) : hrnulls[i];
		if (cols[i] == NULL || nulls[i] == NULL)
			goto nomem;
		if (copy && n > 0 &&
			(cudaMemcpyAsync(cols[i], hrows[i], sizeof(TmValue) * n, cudaMemcpyDeviceToDevice,
							 c->stream) != cudaSuccess ||
			 cudaMemcpyAsync(nulls[i], hrnulls[i], n, cudaMemcpyDeviceToDevice, c->stream) != cudaSuccess))
		{
			fail_cuda(c, "cudaMemcpyAsync (held build rows)", cudaGetLastError());
			goto nomem;
		}
	}
	if (copy)
	{
		hh = dalloc<uint64_t>(c, Max1(n));
		if (hh == NULL)
			goto nomem;
		if (n > 0 && cudaMemcpyAsync(hh, hashes, sizeof(uint64_t) * n, cudaMemcpyDeviceToDevice,
									 c->stream) != cudaSuccess)
		{
			fail_cuda(c, "cudaMemcpyAsync (held build hashes)", cudaGetLastError());
			goto nomem;
		}
	}
	H->pending = true;
	H->pend_n = n;
	H->pend_ncols = ncols;
	H->pend_cols = cols;
	H->pend_nulls = nulls;
	H->pend_hashes = hh;
	trace_step(c, "build held", n);
	return true;

nomem:
	free(cols);
	free(nulls);
	return false;
}

/* group the held rows of hash table h as planned (run_swapped did not swap it) */
static bool
finish_pending(Ctx *c, int h)
{
	HHash	   *H = &c->hts[h];
	const TmHashTable *def = &c->plan->hashtables[h];
	bool		ok;

	ok = build_group(c, h, def->nkeys, H->pend_ncols - def->nkeys, H->pend_cols, H->pend_nulls,
					 H->pend_hashes, H->pend_n);
	if (ok)
		H->nrows = H->pend_n;
	free(H->pend_cols);
	free(H->pend_nulls);
	H->pend_cols = NULL;
	H->pend_nulls = NULL;
	H->pending = false;
	return ok;
}

/* is a build of n rows, of pipeline pl, one to hold for run_swapped (tm_gpu_pool_set_swap_rows)? */
static bool
defer_wanted(const Ctx *c, const TmPipeline *pl, long long n)
{
	return c->defer_build && tm_swap_hold(n, pl->est_rows, c->pool->swap_rows, c->defer_probe_rows) &&
		!tm_swap_hopeless(n, c->pool->swap_rows, c->defer_probe_rows, c->defer_probe_bare);
}

/*
 * HASH_BUILD: collect the rows (count, prefix sum, write: keys, payload, hash), then group them by key
 * (build_group).
 *
 * Without a COUNT pass where the source rows bound the build rows (no probe that can multiply rows,
 * has_fanout; not over chunks; themis.gpu_fast_paths): one RUN pass writes the rows at positions taken
 * from a counter (claim_pos), into room for every source row at the top of the pool, scratch that is given
 * back once the gather has made the table's own columns, where that room takes at most half of the free
 * pool.  The rows then come in no particular order, as with NIFS (rows of equal keys are contiguous
 * either way); the COUNT pass was as long as the RUN pass (TPC-H SF 10 on an H200: Q21 5.7 + 2.8 +
 * 13.7 ms, Q9 19.8 ms, Q8 7.4 ms, Q12 8.0 ms of its 20.7).
 *
 * run_swapped: rows that defer_wanted are held ungrouped (defer_rows); a trial build (c->trial_limit) builds
 * nothing where its rows, counted (or written, single), are more than the limit.
 */
static bool
sink_hash_build(Ctx *c, const TmPipeline *pl, Src *S, TmGpuPipelineStats *st)
{
	const TmSink *sk = &pl->sink;
	int			nk = sk->nkeys;
	int			nv = sk->nvals;
	int			ncols = nk + nv;
	long long  *offs = NULL;
	long long	n;
	TmValue    *rows[TM_GPU_MAX_KEYS + 256];
	uint8_t    *rnulls[TM_GPU_MAX_KEYS + 256];
	TmValue   **hrows = rows;
	uint8_t   **hrnulls = rnulls;
	TmValue   **drows;
	uint8_t   **drnulls;
	uint64_t   *hashes;
	DRun		R;
	DFlags		f;
	bool		ok = false;
	const size_t hi0 = c->pool->hi;
	bool		trial = c->trial_limit > 0;
	bool		single = !S->chunked && !c->pool->no_fast_paths && S->nrows > 0 &&
		S->nrows < TM_GPU_MAX_BUILD_ROWS && !has_fanout(c, pl) &&
		(size_t) S->nrows * ((size_t) ncols * (sizeof(TmValue) + 1) + sizeof(uint64_t)) +
		(size_t) ncols * POOL_ALIGN * 2 <= pool_free(c->pool) / 2;

	if (c->sample_rows > 0)
	{
		/*
		 * fuse_sample (fused_error: the whole source): the sink rows of so many source rows counted, none
		 * written.  A part of the source is taken in SAMPLE_WINDOWS windows spread over it, which
		 * pipeline_kernel alone runs (their rows' bits as a prefilter's: run_pass), since the rows in a
		 * source's order are not a sample of it (JCC-H's lineitem: the hot orders' rows in a few runs).
		 */
		int64_t		m = S->nrows < c->sample_rows ? S->nrows : c->sample_rows;
		int			lb0 = c->lb;
		bool		counted;

		if (S->chunked && m < S->nrows)
			return true;		/* (sample_n stays -1) */
		if (m < S->nrows)
		{
			long long	nw = (S->nrows + 31) / 32;	/* words of bits */
			long long	ww = ((m + 31) / 32 + SAMPLE_WINDOWS - 1) / SAMPLE_WINDOWS;	/* a window's words */
			uint32_t   *win = (uint32_t *) pool_try_alloc(c, sizeof(uint32_t) * (size_t) nw);
			int64_t		covered = 0;

			if (win == NULL)
				return true;	/* (no room: no estimate) */
			CK(cudaMemsetAsync(win, 0, sizeof(uint32_t) * (size_t) nw, c->stream));
			for (int w = 0; w < SAMPLE_WINDOWS; w++)
			{
				long long	a = (long long) w * nw / SAMPLE_WINDOWS;
				long long	b = (long long) (w + 1) * nw / SAMPLE_WINDOWS;

				if (b > a + ww)
					b = a + ww;
				if (b <= a)
					continue;
				CK(cudaMemsetAsync(win + a, 0xff, sizeof(uint32_t) * (size_t) (b - a), c->stream));
				covered += (b * 32 < S->nrows ? b * 32 : S->nrows) - a * 32;
				if (b == nw && S->nrows % 32 != 0)
				{
					/* no bit past the last row: pipeline_rows_compacted queues a set bit's row unchecked */
					uint32_t	tail = (1u << (S->nrows % 32)) - 1u;

					CK(cudaMemcpyAsync(win + nw - 1, &tail, sizeof(tail), cudaMemcpyHostToDevice, c->stream));
					CK(cudaStreamSynchronize(c->stream));	/* (tail is this frame's) */
				}
			}
			memset(&R, 0, sizeof(R));
			R.pass = PASS_COUNT;
			R.flags = c->dflags;
			R.prebits = win;
			c->lb = TM_GPU_LB_NONE;
			counted = run_pass(c, S->P, R, S->nrows, &f);
			c->lb = lb0;
			if (!counted)
				return false;
			n = (long long) f.sinkrows;
			m = covered;
		}
		else
		{
			counted = S->chunked ? chunked_count(c, S, &n) : count_pass(c, S->P, m, &offs, &n);
			if (!counted)
				return false;
		}
		c->sample_n = n;
		c->sample_src = m;
		st->sink_rows = n;
		trace_step(c, "build sample", n);
		return true;
	}

	/* chunks: a first sweep counts the rows; single: the source rows bound them */
	if (single)
		n = S->nrows;
	else if (S->chunked ? !chunked_count(c, S, &n) : !count_pass(c, S->P, S->nrows, &offs, &n))
		return false;
	if (trial && !single && n > c->trial_limit)
	{
		/* too many rows to build instead of the held ones: nothing is built (run_swapped) */
		c->trial_declined = true;
		st->sink_rows = n;
		trace_step(c, "build trial", n);
		return true;
	}
	if (n >= TM_GPU_MAX_BUILD_ROWS)
		return fail(c, TM_GPU_ERR_UNSUPPORTED, "hash table %d: build side of %lld rows", sk->target, n);
	if (ncols > (int) (sizeof(rows) / sizeof(rows[0])))
	{
		hrows = (TmValue **) xmalloc0(c, sizeof(TmValue *) * ncols);
		hrnulls = (uint8_t **) xmalloc0(c, sizeof(uint8_t *) * ncols);
		if (hrows == NULL || hrnulls == NULL)
			goto done;
	}

	/* the collected rows */
	hashes = single ? dalloc_hi<uint64_t>(c, Max1(n)) : dalloc<uint64_t>(c, Max1(n));
	if (hashes == NULL || !alloc_value_columns(c, ncols, n, hrows, hrnulls, &drows, &drnulls, single))
		goto done;
	memset(&R, 0, sizeof(R));
	R.outvals = drows;
	R.outnulls = drnulls;
	R.outhash = hashes;
	R.flags = c->dflags;
	if (single)
	{
		R.pass = PASS_RUN;
		R.claim = 1;
		R.limit = n;
		if (!run_pass(c, S->P, R, S->nrows, &f))
			goto done;
		n = (long long) f.cursor;
		if (n > S->nrows)
		{
			fail(c, TM_GPU_ERR_BAD_PLAN, "hash table %d: more build rows than source rows", sk->target);
			goto done;
		}
	}
	else if (S->chunked)
	{
		/* the second sweep writes each chunk's rows after those of the earlier chunks: source order */
		bool	   *text = (bool *) xmalloc0(c, sizeof(bool) * Max1(ncols));
		bool		wrote;

		if (text == NULL)
			goto done;
		for (int i = 0; i < ncols; i++)
			text[i] = kind_is_text(i < nk ? sk->keys[i]->result.kind : sk->vals[i - nk]->result.kind);
		wrote = chunked_write(c, S, R, 0, n, ncols, hrows, hrnulls, text);
		free(text);
		if (!wrote)
			goto done;
	}
	else
	{
		R.pass = PASS_RUN;
		R.offs = offs;
		R.limit = n;
		if (!run_pass(c, S->P, R, S->nrows, &f))
			goto done;
	}

	if (trial && n > c->trial_limit)
	{
		/* (single: counted as written) */
		c->trial_declined = true;
		st->sink_rows = n;
		trace_step(c, "build trial", n);
		ok = true;
		goto done;
	}
	if (defer_wanted(c, pl, n))
	{
		ok = defer_rows(c, sk->target, ncols, hrows, hrnulls, hashes, n, single);
		if (ok)
		{
			st->sink_rows = n;
			st->out_rows = n;
		}
		goto done;
	}
	ok = build_group(c, sk->target, nk, nv, hrows, hrnulls, hashes, n);
	if (ok)
	{
		st->sink_rows = n;
		st->out_rows = n;
	}

done:
	if (single)
		c->pool->hi = hi0;		/* the collected rows (all later work on them is ordered on the stream) */
	if (hrows != rows)
		free(hrows);
	if (hrnulls != rnulls)
		free(hrnulls);
	return ok;
}

/*
 * chunks, AGG: after a chunk's pass, copy out of the chunk the text values that the state took from it:
 * the keys of the groups made in this chunk (from *ng_prev on), every group's text min / max state, the
 * values of the DISTINCT pairs added in this chunk (from dn_prev[a] on)
 */
static bool
agg_fix_chunk(Ctx *c, const Src *S, const TmSink *sk, const DRun &R, TmValue *const *gkeys,
			  uint8_t *const *gknulls, const DAggState *states, long long cap, unsigned long long *ng_prev,
			  unsigned long long *dn_prev, DFix *fx, unsigned long long *acc)
{
	unsigned long long ng;
	int			n = 0;

	if (!download(c, &ng, R.ngroups, sizeof(ng)))
		return false;
	if ((long long) ng > cap)
		ng = (unsigned long long) cap;
	for (int k = 0; k < sk->nkeys; k++)
		if (kind_is_text(sk->keys[k]->result.kind) && ng > *ng_prev)
		{
			memset(&fx[n], 0, sizeof(DFix));
			fx[n].vals = (char *) (gkeys[k] + *ng_prev);
			fx[n].stride = (long long) sizeof(TmValue);
			fx[n].nulls = gknulls[k] + *ng_prev;
			fx[n].n = (long long) (ng - *ng_prev);
			n++;
		}
	for (int a = 0; a < sk->naggs; a++)
	{
		const TmAgg *ag = &sk->aggs[a];
		const DAggState *st = &states[a];

		if (ag->kind == TM_AGG_COUNT_STAR || !kind_is_text(ag->arg->result.kind))
			continue;
		if (ag->kind == TM_AGG_MIN || ag->kind == TM_AGG_MAX || ag->kind == TM_AGG_ANY)
		{
			/* the state words of group g: a TmValue at w[3g], NULL while seen[g] == 0 */
			memset(&fx[n], 0, sizeof(DFix));
			fx[n].vals = (char *) st->w;
			fx[n].stride = 3 * (long long) sizeof(unsigned long long);
			fx[n].seen = st->seen;
			fx[n].n = (long long) ng;
			n++;
		}
		else if (agg_is_distinct(ag))
		{
			unsigned long long dn;

			if (!download(c, &dn, st->dn, sizeof(dn)))
				return false;
			if ((long long) dn > st->dcap)
				dn = (unsigned long long) st->dcap;
			if (dn > dn_prev[a])
			{
				memset(&fx[n], 0, sizeof(DFix));
				fx[n].vals = (char *) (st->dvals + dn_prev[a]);
				fx[n].stride = (long long) sizeof(TmValue);
				fx[n].n = (long long) (dn - dn_prev[a]);
				n++;
			}
			dn_prev[a] = dn;
		}
	}
	*ng_prev = ng;
	return fix_text(c, S, fx, n, acc);
}

/*
 * The block-private memo and states of a grouped aggregation (R->memo, R->priv_k: "Block-private
 * aggregation"): the memo where the keys are few, private states where every aggregate's update is an
 * atomic on its words (no DISTINCT, no lock).  A global aggregate (no keys,
 * tm_gpu_pool_set_private_global): no memo, the private states of its one group.
 */
static void
agg_private(const TmSink *sk, const int *modes, bool thread_sums, DRun *R)
{
	int			na = sk->naggs;
	bool		atomics = na > 0;

	R->memo = (sk->nkeys > 0 && sk->nkeys <= MEMO_MAX_KEYS) ? 1 : 0;
	/* any(x) updates the group's own state, private group or not (agg_update_priv_warp) */
	for (int a = 0; a < na; a++)
		if ((modes[a] == AM_LOCKED && sk->aggs[a].kind != TM_AGG_ANY) || agg_is_distinct(&sk->aggs[a]))
			atomics = false;
	if (atomics)
	{
		R->priv_na = na;
		R->priv_k = PRIV_STATE_BYTES / (na * (3 * 8 + 4));
		if (R->priv_k > PRIV_MAX_GROUPS)
			R->priv_k = PRIV_MAX_GROUPS;
		if (sk->nkeys == 0 && R->priv_k > 1)
			R->priv_k = 1;
		if (R->priv_k < 1)
			R->priv_na = R->priv_k = 0;
	}
	if (R->priv_k > 0 && thread_sums)
	{
		int			ns = 0;

		for (int a = 0; a < na; a++)
			if (sk->aggs[a].kind != TM_AGG_COUNT_STAR && (modes[a] == AM_SUM_I64 || modes[a] == AM_SUM_I192))
				ns++;
		if (ns > 0)
		{
			R->priv_ns = ns;
			R->priv_t = PRIV_THREAD_BYTES / (ns * TPB * 8);
			if (R->priv_t > R->priv_k)
				R->priv_t = R->priv_k;
			if (R->priv_t < 1)
				R->priv_t = R->priv_ns = 0;
		}
	}
}

/*
 * AGG: group table with atomics.  The table first gets room for min(bound, AGG_INITIAL_CAP) groups, or
 * where the planner expects more groups for bound ones (see below) (bound: sink rows, counted by a COUNT pass where probes can multiply rows and the table or a DISTINCT set needs it (agg_counts_sink_rows), else the source
 * rows), and each DISTINCT set room for min(bound, DISTINCT_INITIAL_CAP) pairs; if one of them overflows,
 * the pass is redone with room for bound groups / pairs there, bound counted first where it was not.
 *
 * Over chunks, the table and the states persist from chunk to chunk.  A chunk whose pass overflows has
 * updated part of the state already: the aggregation starts over from the first chunk, with 4 times the
 * room where it overflowed (at most bound; with probes that can multiply rows, bound is not counted:
 * INT32_MAX - 1).  So it does if a chunk's text copies do not fit (with chunks half as large).
 */
static bool
sink_agg(Ctx *c, const TmPipeline *pl, Src *S, TmGpuPipelineStats *st)
{
	const TmSink *sk = &pl->sink;
	HResult    *res = &c->results[sk->target];
	int			nk = sk->nkeys;
	int			na = sk->naggs;
	int			ncols = nk + na;
	long long	bound = S->nrows;
	bool		counted = false;	/* bound is the sink rows, counted */
	long long	cap;
	long long	dcap;
	size_t		mark;
	int		   *modes = NULL;
	DAggState  *states = NULL;
	TmValue	   *gkeys[TM_GPU_MAX_KEYS];
	uint8_t    *gknulls[TM_GPU_MAX_KEYS];
	unsigned long long ng = 0;
	unsigned long long *dn_prev = NULL;
	long long	sinkrows = 0;
	int			ntext = 0;
	DFix	   *fx = NULL;
	unsigned long long *acc = NULL;
	DFlags		f;
	cudaError_t e;
	bool		ok = false;

	if (agg_counts_sink_rows(c, pl))
	{
		long long  *offs;

		if (S->chunked)
			bound = INT32_MAX - 1;	/* not counted (a sweep over the chunks): the tables grow by steps */
		else if (!count_pass(c, S->P, S->nrows, &offs, &bound))
			return false;
		counted = !S->chunked;
	}
	if (bound >= INT32_MAX)
		return fail(c, TM_GPU_ERR_UNSUPPORTED, "aggregation of %lld rows", bound);
	cap = (nk == 0) ? 1 : (bound < AGG_INITIAL_CAP ? bound : AGG_INITIAL_CAP);
	if (nk > 0 && pl->est_groups > AGG_INITIAL_CAP / 2 && bound > cap)
	{
		/*
		 * The planner expects many groups: a first table too small is a pass thrown away (TPC-H Q3's 113 K
		 * groups on an H200: 6.7 ms of its 31 ms).  Room for every sink row, as the pass after an overflow
		 * takes, where the estimate is within a factor of 32 of them and that fits in a quarter of the free
		 * pool (the table stays until the query ends), else for twice the estimate where that fits: the
		 * smaller table was the slower one (Q17's 2 M groups of 60 M rows: 31.2 ms with room for twice
		 * the estimate, 19.2 ms with room for 60 M)
		 */
		double		want = 2 * pl->est_groups;
		long long	ecap = want < (double) bound ? (long long) want : bound;

		if ((double) bound <= 32 * pl->est_groups && agg_table_bytes(nk, na, bound) <= pool_free(c->pool) / 4)
			cap = bound;
		else if (ecap > cap && agg_table_bytes(nk, na, ecap) <= pool_free(c->pool) / 4)
			cap = ecap;
	}
	if (cap < 1)
		cap = 1;
	dcap = bound < DISTINCT_INITIAL_CAP ? bound : DISTINCT_INITIAL_CAP;
	/* counted: bound is the sink rows themselves, room for as many pairs is what an overflow would take
	 * (TPC-H Q16's 1.2 M pairs: its first pass thrown away), where the sets fit in a quarter of the pool */
	if (counted && bound > dcap)
	{
		int			nd = 0;

		for (int a = 0; a < na; a++)
			nd += agg_is_distinct(&sk->aggs[a]) ? 1 : 0;
		if (nd > 0 && (size_t) bound * nd * (6 * sizeof(unsigned long long) + sizeof(TmValue)) <=
			pool_free(c->pool) / 4)
			dcap = bound;
	}
	if (dcap < 1)
		dcap = 1;
	modes = (int *) xmalloc0(c, sizeof(int) * Max1(na));
	states = (DAggState *) xmalloc0(c, sizeof(DAggState) * Max1(na));
	dn_prev = (unsigned long long *) xmalloc0(c, sizeof(unsigned long long) * Max1(na));
	if (modes == NULL || states == NULL || dn_prev == NULL)
		goto done;
	for (int a = 0; a < na; a++)
		modes[a] = agg_mode(c, &sk->aggs[a], a);
	if (S->chunked)
	{
		/* text values that the state keeps: group keys, min / max states, DISTINCT values */
		for (int k = 0; k < nk; k++)
			ntext += kind_is_text(sk->keys[k]->result.kind) ? 1 : 0;
		for (int a = 0; a < na; a++)
		{
			const TmAgg *ag = &sk->aggs[a];

			if (ag->kind != TM_AGG_COUNT_STAR && kind_is_text(ag->arg->result.kind) &&
				(ag->kind == TM_AGG_MIN || ag->kind == TM_AGG_MAX || ag->kind == TM_AGG_ANY ||
				 agg_is_distinct(ag)))
				ntext++;
		}
		S->count_scratch = false;
		S->copy_factor = ntext;	/* at most one copy per text value of a source row (without probes) */
		if (ntext > 0)
		{
			fx = (DFix *) xmalloc0(c, sizeof(DFix) * (size_t) ntext);
			acc = dalloc<unsigned long long>(c, 3);
			if (fx == NULL || acc == NULL)
				goto done;
		}
	}

	mark = c->pool->used;
	for (;;)
	{
		DRun		R;
		uint64_t	dirsize = 16;
		unsigned long long ng0 = (nk == 0) ? 1 : 0;
		unsigned long long ng_prev = ng0;
		bool		overflow = false;
		bool		again = false;

		memset(&R, 0, sizeof(R));
		R.pass = PASS_RUN;
		R.flags = c->dflags;
		R.gcap = cap;
		if ((nk > 0 || c->pool->private_global) && !c->pool->no_fast_paths)
			agg_private(sk, modes, c->pool->thread_sums, &R);
		if (nk > 0)
		{
			while (dirsize < (uint64_t) cap * 2)
				dirsize <<= 1;
			R.gdir = dalloc<unsigned long long>(c, dirsize);
			R.gmask = dirsize - 1;
			R.ghash = dalloc<uint64_t>(c, (size_t) cap);
			if (R.gdir == NULL || R.ghash == NULL)
				goto done;
			if ((e = cudaMemsetAsync(R.gdir, 0xff, sizeof(unsigned long long) * dirsize, c->stream)) != cudaSuccess)
			{
				fail_cuda(c, "cudaMemsetAsync (group directory)", e);
				goto done;
			}
			for (int k = 0; k < nk; k++)
			{
				gkeys[k] = dalloc<TmValue>(c, (size_t) cap);
				gknulls[k] = dalloc<uint8_t>(c, (size_t) cap);
				if (gkeys[k] == NULL || gknulls[k] == NULL)
					goto done;
			}
			R.gkeys = upload(c, gkeys, (size_t) nk);
			R.gknulls = upload(c, gknulls, (size_t) nk);
			if (R.gkeys == NULL || R.gknulls == NULL)
				goto done;
		}
		for (int a = 0; a < na; a++)
		{
			memset(&states[a], 0, sizeof(DAggState));
			states[a].w = dalloc<unsigned long long>(c, 3 * (size_t) cap);
			states[a].seen = dalloc<unsigned int>(c, (size_t) cap);
			states[a].lock = dalloc<unsigned int>(c, (size_t) cap);
			if (states[a].w == NULL || states[a].seen == NULL || states[a].lock == NULL)
				goto done;
			if ((e = cudaMemsetAsync(states[a].w, 0, sizeof(unsigned long long) * 3 * cap, c->stream)) != cudaSuccess ||
				(e = cudaMemsetAsync(states[a].seen, 0, sizeof(unsigned int) * cap, c->stream)) != cudaSuccess ||
				(e = cudaMemsetAsync(states[a].lock, 0, sizeof(unsigned int) * cap, c->stream)) != cudaSuccess)
			{
				fail_cuda(c, "cudaMemsetAsync (aggregate states)", e);
				goto done;
			}
			if (modes[a] == AM_MINMAX_INT)
			{
				agg_init_kernel<<<nblocks(c, cap), TPB, 0, c->stream>>>(states[a].w, cap,
																		 sk->aggs[a].kind == TM_AGG_MIN ?
																		 INT64_MAX : INT64_MIN);
				if ((e = cudaGetLastError()) != cudaSuccess)
				{
					fail_cuda(c, "agg_init_kernel", e);
					goto done;
				}
			}
			if (agg_is_distinct(&sk->aggs[a]))
			{
				uint64_t	dsize = tm_ht_pow2((uint64_t) dcap * 2);
				DAggState  *DS = &states[a];

				DS->ddir = dalloc<unsigned long long>(c, dsize);
				DS->dmask = dsize - 1;
				DS->dcap = dcap;
				DS->dn = dalloc<unsigned long long>(c, 1);
				DS->dhash = dalloc<uint64_t>(c, (size_t) dcap);
				DS->dg = dalloc<long long>(c, (size_t) dcap);
				DS->dvals = dalloc<TmValue>(c, (size_t) dcap);
				if (DS->ddir == NULL || DS->dn == NULL || DS->dhash == NULL || DS->dg == NULL || DS->dvals == NULL)
					goto done;
				if ((e = cudaMemsetAsync(DS->ddir, 0xff, sizeof(unsigned long long) * dsize, c->stream)) != cudaSuccess ||
					(e = cudaMemsetAsync(DS->dn, 0, sizeof(unsigned long long), c->stream)) != cudaSuccess)
				{
					fail_cuda(c, "cudaMemsetAsync (DISTINCT set)", e);
					goto done;
				}
			}
			dn_prev[a] = 0;
		}
		R.astate = upload(c, states, Max1(na));
		R.ngroups = upload(c, &ng0, 1);
		if (R.astate == NULL || R.ngroups == NULL)
			goto done;

		/* the pass over the whole source, or over each chunk */
		sinkrows = 0;
		for (int64_t start = 0; !S->chunked || start < S->nrows;)
		{
			bool		good = !S->chunked || src_open(c, S, start);

			good = good && run_pass(c, S->P, R, S->chunked ? S->n : S->nrows, &f);
			if (good && (f.overflow || f.doverflow))
			{
				overflow = true;
				break;
			}
			if (good)
				sinkrows += (long long) f.sinkrows;
			if (good && ntext > 0)
				good = agg_fix_chunk(c, S, sk, R, gkeys, gknulls, states, cap, &ng_prev, dn_prev, fx, acc);
			if (!good)
			{
				if (src_retry(c, S))
				{
					again = true;	/* with smaller chunks, from the first one */
					break;
				}
				goto done;
			}
			if (!S->chunked)
				break;
			src_close(c, S);
			start += S->n;
		}
		if (overflow)
		{
			bool		grow = false;

			/*
			 * A single pass over the whole source whose sink rows were not counted (bound: the source rows)
			 * and whose ops may drop rows (a filter, an INNER / SEMI / ANTI probe), where a table with room
			 * for every source row would take more than half of the free pool: count the sink rows now,
			 * so that the larger table has room for them only (an aggregation over a join of a fact table
			 * with millions of groups would otherwise take room for all of the fact table's rows), where
			 * the pool has room for the count's arrays.  Where the table fits, the count is not worth its
			 * pass (TPC-H Q20's lineitem by (l_partkey, l_suppkey), 9 M of 60 M rows after its filter:
			 * 11.1 -> 18.7 ms on an H200 with it).  Without such ops the sink rows are the source rows
			 * (TPC-H Q18's lineitem by l_orderkey): nothing to count
			 */
			if (!counted && !S->chunked && may_drop_rows(pl))
			{
				long long  *offs;
				long long	nsink;

				c->pool->used = mark;	/* the failed pass's tables */
				if (agg_table_bytes(nk, na, bound) > pool_free(c->pool) / 2 &&
					pool_free(c->pool) > 3 * sizeof(long long) * ((size_t) S->nrows + 1) + ((size_t) 1 << 20))
				{
					if (!count_pass(c, S->P, S->nrows, &offs, &nsink))
						goto done;
					c->pool->used = mark;
					counted = true;
					if (nsink < bound)
						bound = nsink;
				}
			}
			/* again, with more room where it overflowed: for every sink row, or 4 times as much */
			if (f.overflow && cap < bound)
			{
				cap = S->chunked ? (4 * cap < bound ? 4 * cap : bound) : bound;
				grow = true;
			}
			if (f.doverflow && dcap < bound)
			{
				dcap = S->chunked ? (4 * dcap < bound ? 4 * dcap : bound) : bound;
				grow = true;
			}
			if (!grow)
			{
				fail(c, TM_GPU_ERR_BAD_PLAN, "%s of %lld overflowed", f.overflow ? "group table" : "DISTINCT set",
					 f.overflow ? cap : dcap);
				goto done;
			}
			src_close(c, S);
			again = true;
		}
		if (again)
		{
			c->pool->used = mark;
			continue;
		}
		if (!download(c, &ng, R.ngroups, sizeof(ng)))
			goto done;
		break;
	}
	if ((long long) ng > cap)
		ng = (unsigned long long) cap;

	/* the result: keys, then the final value of each aggregate */
	{
		TmValue   **vals = (TmValue **) xmalloc0(c, sizeof(TmValue *) * Max1(ncols));
		uint8_t   **nulls = (uint8_t **) xmalloc0(c, sizeof(uint8_t *) * Max1(ncols));
		TmValue   **dvals;
		uint8_t   **dnulls;
		DFlags		ff;

		if (vals == NULL || nulls == NULL ||
			!alloc_value_columns(c, ncols, (int64_t) ng, vals, nulls, &dvals, &dnulls))
		{
			free(vals);
			free(nulls);
			goto done;
		}
		res->vals = vals;
		res->nulls = nulls;
		res->ncols = ncols;
		res->nrows = (int64_t) ng;
		res->made = true;
		res->by_agg = true;
		for (int k = 0; k < nk && ng > 0; k++)
		{
			if ((e = cudaMemcpyAsync(vals[k], gkeys[k], sizeof(TmValue) * ng, cudaMemcpyDeviceToDevice,
									 c->stream)) != cudaSuccess ||
				(e = cudaMemcpyAsync(nulls[k], gknulls[k], ng, cudaMemcpyDeviceToDevice,
									 c->stream)) != cudaSuccess)
			{
				fail_cuda(c, "cudaMemcpyAsync (group keys)", e);
				goto done;
			}
		}
		if ((e = cudaMemsetAsync(c->dflags, 0, sizeof(DFlags), c->stream)) != cudaSuccess)
		{
			fail_cuda(c, "cudaMemsetAsync (flags)", e);
			goto done;
		}
		for (int a = 0; a < na && ng > 0; a++)
		{
			agg_final_kernel<<<nblocks(c, (int64_t) ng), TPB, 0, c->stream>>>(states[a], modes[a], (long long) ng,
																			  vals[nk + a], nulls[nk + a],
																			  c->dflags);
			if ((e = cudaGetLastError()) != cudaSuccess)
			{
				fail_cuda(c, "agg_final_kernel", e);
				goto done;
			}
		}
		if (!download(c, &ff, c->dflags, sizeof(ff)) || !check_flags(c, &ff))
			goto done;
	}
	st->sink_rows = sinkrows;
	st->out_rows = (long long) ng;
	ok = true;

done:
	free(modes);
	free(states);
	free(dn_prev);
	free(fx);
	return ok;
}

/* ------------------------------------------------------------------------------------------------
 * Host side: the output result back to host columns
 * ------------------------------------------------------------------------------------------------
 */
static bool
output_column(Ctx *c, const HResult *r, int i, int kind, TmGpuColumn *col)
{
	int64_t		n = r->made ? r->nrows : 0;
	size_t		mark = c->pool->used;

	col->kind = (int16_t) kind;
	col->nulls = (uint8_t *) xmalloc0(c, Max1(n));
	if (col->nulls == NULL)
		return false;
	if (n > 0 && !download(c, col->nulls, r->nulls[i], (size_t) n))
		return false;

	if (kind_is_text(kind))
	{
		long long  *lens;
		long long  *offs;
		long long	total = 0;
		char	   *bytes;

		col->offsets = (int64_t *) xmalloc0(c, sizeof(int64_t) * ((size_t) n + 1));
		if (col->offsets == NULL)
			return false;
		if (n > 0)
		{
			lens = dalloc<long long>(c, (size_t) n + 1);
			offs = dalloc<long long>(c, (size_t) n + 1);
			if (lens == NULL || offs == NULL)
				return false;
			text_len_kernel<<<nblocks(c, n + 1), TPB, 0, c->stream>>>(r->vals[i], r->nulls[i], n, lens);
			LAUNCH_CHECK("text_len_kernel");
			if (!exclusive_sum(c, lens, offs, (int) (n + 1)) ||
				!download(c, &total, offs + n, sizeof(total)))
				return false;
			bytes = dalloc<char>(c, Max1(total));
			if (bytes == NULL)
				return false;
			text_copy_kernel<<<nblocks(c, n), TPB, 0, c->stream>>>(r->vals[i], r->nulls[i], n, offs, bytes);
			LAUNCH_CHECK("text_copy_kernel");
			if (!download(c, col->offsets, offs, sizeof(int64_t) * ((size_t) n + 1)))
				return false;
			col->data = xmalloc0(c, Max1(total));
			if (col->data == NULL || (total > 0 && !download(c, col->data, bytes, (size_t) total)))
				return false;
		}
		else
		{
			col->data = xmalloc0(c, 1);
			if (col->data == NULL)
				return false;
		}
	}
	else
	{
		int			w = tm_gpu_kind_width(kind);

		col->data = xmalloc0(c, Max1(n * w));
		if (col->data == NULL)
			return false;
		if (n > 0)
		{
			char	   *d = dalloc<char>(c, (size_t) (n * w));

			if (d == NULL)
				return false;
			to_fixed_kernel<<<nblocks(c, n), TPB, 0, c->stream>>>(r->vals[i], r->nulls[i], n, kind, d);
			LAUNCH_CHECK("to_fixed_kernel");
			if (!download(c, col->data, d, (size_t) (n * w)))
				return false;
		}
	}
	c->pool->used = mark;
	return true;
}

/* top-N (topn_cut): the sort key of row i as a K (int64 kinds, or a numeric's 128-bit value) */
template <typename K>
__device__ __forceinline__ K
topn_key(const TmValue &v, bool wide)
{
	return wide ? (K) v.n : (K) v.i;
}

/* top-N: each row's key, a NULL's being nullkey (the last one in the sort order); *nn += the NULLs */
template <typename K>
__global__ void
topn_keys_kernel(const TmValue *vals, const uint8_t *nulls, long long n, bool wide, K nullkey, K *keys,
				 unsigned long long *nn)
{
	GRID_STRIDE(i, n)
	{
		bool		isnull = nulls[i] != 0;
		unsigned int am = __activemask();
		unsigned int m = __ballot_sync(am, isnull);

		keys[i] = isnull ? nullkey : topn_key<K>(vals[i], wide);
		if (m != 0 && (threadIdx.x & 31) == (unsigned int) (__ffs(am) - 1))
			atomicAdd(nn, (unsigned long long) __popc(m));
	}
}

/* top-N: keep[i] = row i is not later in the sort order than the threshold (NULLs: nulls_first) */
template <typename K>
__global__ void
topn_flags_kernel(const TmValue *vals, const uint8_t *nulls, long long n, bool wide, bool desc,
				  bool nulls_first, bool have_thr, K thr, uint8_t *keep)
{
	GRID_STRIDE(i, n)
	{
		bool		ok;

		if (nulls[i])
			ok = nulls_first;
		else
		{
			K			k = topn_key<K>(vals[i], wide);

			ok = have_thr && !(desc ? thr > k : thr < k);	/* not before(thr, k) */
		}
		keep[i] = ok ? 1 : 0;
	}
}

/* top-N: the keys sorted into the sort order (tmp NULL: *tb = the scratch bytes needed) */
template <typename K>
static cudaError_t
topn_sort(void *tmp, size_t *tb, const K *keys, K *sorted, long long n, bool desc, cudaStream_t st)
{
	if (desc)
		return cub::DeviceRadixSort::SortKeysDescending(tmp, *tb, keys, sorted, (int) n, 0, (int) sizeof(K) * 8, st);
	return cub::DeviceRadixSort::SortKeys(tmp, *tb, keys, sorted, (int) n, 0, (int) sizeof(K) * 8, st);
}

/* top-N on the device: *k2 rows kept (their numbers, in order, in *idx); k2 == n: no cut */
template <typename K>
static bool
topn_select(Ctx *c, const TmValue *vals, const uint8_t *nulls, long long n, bool wide, long long want,
			unsigned int **idx, long long *k2)
{
	TmGpuPool  *pool = c->pool;
	const bool	desc = pool->topn_desc;
	const bool	nf = pool->topn_nulls_first;
	K			nullkey;
	K			thr;
	K		   *keys = dalloc_hi<K>(c, (size_t) n);
	K		   *sorted = dalloc_hi<K>(c, (size_t) n);
	uint8_t    *keep = dalloc_hi<uint8_t>(c, (size_t) n);
	unsigned long long *cnt = dalloc_hi<unsigned long long>(c, 2);
	unsigned long long hcnt[2];
	bool		have_thr = false;
	size_t		tb = 0;
	size_t		tb2 = 0;
	void	   *tmp;
	thrust::counting_iterator<unsigned int> it(0);

	*idx = dalloc_hi<unsigned int>(c, (size_t) n);
	if (keys == NULL || sorted == NULL || keep == NULL || cnt == NULL || *idx == NULL)
		return false;
	/* the last key in the sort order: NULLs sort with it, after every key up to the n - nn-th */
	if (sizeof(K) == 8)
		nullkey = desc ? (K) INT64_MIN : (K) INT64_MAX;
	else
	{
		__int128_t	mx = (__int128_t) (~(unsigned __int128) 0 >> 1);

		nullkey = desc ? (K) (-mx - 1) : (K) mx;
	}
	CK(cudaMemsetAsync(cnt, 0, 2 * sizeof(unsigned long long), c->stream));
	topn_keys_kernel<K><<<nblocks(c, n), TPB, 0, c->stream>>>(vals, nulls, n, wide, nullkey, keys, cnt);
	LAUNCH_CHECK("topn_keys_kernel");
	if (!download(c, hcnt, cnt, sizeof(unsigned long long)))
		return false;
	if (!(nf && (long long) hcnt[0] >= want))	/* else the NULLs alone fill the first n: keep them (tied) */
	{
		long long	k = nf ? want - (long long) hcnt[0] : want;	/* the k-th earliest non-NULL key */

		if (n - (long long) hcnt[0] < k)
		{
			*k2 = n;			/* every non-NULL key is among the first n, and NULLs after them: all */
			return true;
		}
		CK(topn_sort<K>(NULL, &tb, keys, sorted, n, desc, c->stream));
		CK(cub::DeviceSelect::Flagged(NULL, tb2, it, keep, *idx, cnt + 1, (int) n, c->stream));
		tmp = pool_alloc_hi(c, tb > tb2 ? tb : tb2);
		if (tmp == NULL)
			return false;
		CK(topn_sort<K>(tmp, &tb, keys, sorted, n, desc, c->stream));
		if (!download(c, &thr, sorted + (k - 1), sizeof(K)))
			return false;
		have_thr = true;
	}
	else
	{
		memset(&thr, 0, sizeof(thr));
		CK(cub::DeviceSelect::Flagged(NULL, tb2, it, keep, *idx, cnt + 1, (int) n, c->stream));
		tmp = pool_alloc_hi(c, tb2);
		if (tmp == NULL)
			return false;
	}
	topn_flags_kernel<K><<<nblocks(c, n), TPB, 0, c->stream>>>(vals, nulls, n, wide, desc, nf, have_thr, thr, keep);
	LAUNCH_CHECK("topn_flags_kernel");
	tb2 = tb > tb2 ? tb : tb2;
	CK(cub::DeviceSelect::Flagged(tmp, tb2, it, keep, *idx, cnt + 1, (int) n, c->stream));
	if (!download(c, &hcnt[1], cnt + 1, sizeof(unsigned long long)))
		return false;
	*k2 = (long long) hcnt[1];
	return true;
}

/*
 * ORDER BY ... LIMIT above the plan (tm_gpu_pool_set_topn, decided by the backend's topn.c): keep only the
 * output rows whose key (column topn_col: an integer, date, timestamp or numeric of one scale, compared as
 * held, which is the order of the type's < / >) is not later in the sort order than the topn_n-th earliest
 * one, ties and NULLs placed as nulls_first says: a superset of the rows the Limit returns, in result
 * order, so that neither the transfer nor the backend sees the rest (TPC-H Q10: 20 of 388,503 groups).
 * The threshold is found on the device (a radix sort of the keys; it took 12 ms on the host for Q10's
 * groups on an H200), the rows kept with a stable selection.  The backend's own cut (themis_topn_select)
 * runs on what arrives.  Out of pool memory: no cut.
 */
static bool
topn_cut(Ctx *c)
{
	TmGpuPool  *pool = c->pool;
	const TmResult *def = &c->plan->results[c->plan->output_result];
	HResult    *r = &c->results[c->plan->output_result];
	const int	col = pool->topn_col;
	const int64_t want = pool->topn_n;
	int64_t		n = r->made ? r->nrows : 0;
	int			kind;
	bool		wide;
	bool		ok;
	size_t		mark = c->pool->used;
	const size_t hi0 = c->pool->hi;
	unsigned int *perm = NULL;
	long long	k2 = 0;

	if (want <= 0 || n <= want || col < 0 || col >= def->ncols || col >= r->ncols || n > (int64_t) INT32_MAX)
		return true;
	kind = def->coltypes[col].kind;
	wide = kind == TM_K_NUMERIC;
	if (!wide && kind != TM_K_INT2 && kind != TM_K_INT4 && kind != TM_K_INT8 && kind != TM_K_DATE &&
		kind != TM_K_TIMESTAMP)
		return true;
	ok = wide ? topn_select<__int128_t>(c, r->vals[col], r->nulls[col], n, true, want, &perm, &k2)
		: topn_select<long long>(c, r->vals[col], r->nulls[col], n, false, want, &perm, &k2);
	if (!ok || k2 >= n)
	{
		c->pool->hi = hi0;
		if (ok)
			return true;
		if (c->rc != TM_GPU_ERR_NOMEM)
			return false;
		clear_failure(c);		/* no room: the whole result goes */
		return true;
	}

	{
		std::vector<TmValue *> nv((size_t) r->ncols);
		std::vector<uint8_t *> nnul((size_t) r->ncols);

		for (int i = 0; i < r->ncols && c->rc == TM_GPU_OK; i++)
		{
			nv[(size_t) i] = dalloc<TmValue>(c, Max1(k2));
			nnul[(size_t) i] = dalloc<uint8_t>(c, Max1(k2));
			if (nv[(size_t) i] != NULL && nnul[(size_t) i] != NULL && k2 > 0)
			{
				gather_kernel<<<nblocks(c, k2), TPB, 0, c->stream>>>(r->vals[i], r->nulls[i], perm, k2,
																	 nv[(size_t) i], nnul[(size_t) i]);
				if (cudaPeekAtLastError() != cudaSuccess)
					fail_cuda(c, "gather_kernel (top-N)", cudaGetLastError());
			}
		}
		c->pool->hi = hi0;		/* the selection's scratch (the gathers are ordered after it) */
		if (c->rc != TM_GPU_OK)
		{
			if (c->rc != TM_GPU_ERR_NOMEM)
				return false;
			clear_failure(c);	/* no room for the copy: the whole result goes */
			c->pool->used = mark;
			return true;
		}
		for (int i = 0; i < r->ncols; i++)
		{
			r->vals[i] = nv[(size_t) i];
			r->nulls[i] = nnul[(size_t) i];
		}
		r->nrows = k2;
		pool->topn_in = n;
	}
	return true;
}

static bool
output_table(Ctx *c, TmGpuTable *out)
{
	const TmResult *def = &c->plan->results[c->plan->output_result];
	const HResult *r = &c->results[c->plan->output_result];
	TmGpuTable	t;

	memset(&t, 0, sizeof(t));
	t.ncols = def->ncols;
	t.nrows = r->made ? r->nrows : 0;
	t.cols = (TmGpuColumn *) xmalloc0(c, sizeof(TmGpuColumn) * Max1(def->ncols));
	if (t.cols == NULL)
		return false;
	if (r->made && r->ncols != def->ncols)
	{
		free(t.cols);
		return fail(c, TM_GPU_ERR_BAD_PLAN, "output result has %d columns, expected %d", r->ncols, def->ncols);
	}
	for (int i = 0; i < def->ncols; i++)
	{
		if (!output_column(c, r, i, def->coltypes[i].kind, &t.cols[i]))
		{
			tm_gpu_table_free(&t);
			return false;
		}
	}
	*out = t;
	return true;
}

/* ------------------------------------------------------------------------------------------------
 * The C interface
 * ------------------------------------------------------------------------------------------------
 */
/* the pipeline over its whole source (uploaded at the bottom of the pool if it is a host input) */
static bool
run_whole(Ctx *c, const TmPipeline *pl, const TmGpuTable *input, const TmValue *params, const bool *paramnulls,
		  TmGpuPipelineStats *st)
{
	DCol	   *cols = NULL;
	int			ncols = 0;
	int64_t		nrows = 0;
	const DPipe *P;
	Src			S;

	if (!source_columns(c, pl, input, &cols, &ncols, &nrows))
	{
		free(cols);
		return false;
	}
	P = upload_pipeline(c, pl, cols, ncols, nrows, params, paramnulls);
	free(cols);
	if (P == NULL)
		return false;
	trace_step(c, "setup", (long long) nrows);
	st->source_rows = nrows;
	memset(&S, 0, sizeof(S));
	S.P = P;
	S.nrows = nrows;
	switch (pl->sink.kind)
	{
		case TM_SINK_EMIT:
			return sink_emit(c, pl, P, nrows, st);
		case TM_SINK_HASH_BUILD:
			return sink_hash_build(c, pl, &S, st);
		default:
			return sink_agg(c, pl, &S, st);
	}
}

/* the pipeline over chunks of its host input */
static bool
run_chunked(Ctx *c, const TmPipeline *pl, const TmGpuTable *input, const TmValue *params,
			const bool *paramnulls, TmGpuPipelineStats *st)
{
	Src			S;
	bool		ok = false;

	if (src_init(c, &S, pl, input))
	{
		/* the descriptor once; src_open points its source columns and row count at each chunk */
		S.P = upload_pipeline(c, pl, S.dc, S.ncols, 0, params, paramnulls, &S.dcols);
		if (S.P != NULL)
		{
			st->source_rows = S.nrows;
			switch (pl->sink.kind)
			{
				case TM_SINK_EMIT:
					ok = sink_emit_chunked(c, pl, &S, st);
					break;
				case TM_SINK_HASH_BUILD:
					ok = sink_hash_build(c, pl, &S, st);
					break;
				default:
					ok = sink_agg(c, pl, &S, st);
					break;
			}
		}
	}
	/* nothing that lives on is at the top of the pool */
	c->pool->hi = S.himark;
	c->row_base = 0;
	src_free(&S);
	return ok;
}

/*
 * Pipeline pl over host input `input` is to run over chunks: the chunk row limit says so, or its source
 * columns (with the COUNT arrays its passes take) do not fit the free pool space
 */
static bool
want_chunks(Ctx *c, const TmPipeline *pl, const TmGpuTable *input, bool *chunk)
{
	int64_t		lim = max_chunk_rows();
	Src			S;
	size_t		need;
	bool		ok;

	*chunk = false;
	if (lim > 0 && input->nrows > lim)
	{
		*chunk = true;
		return true;
	}
	if (!src_init(c, &S, pl, input))
	{
		src_free(&S);
		return false;
	}
	S.count_scratch = pl->sink.kind != TM_SINK_AGG || agg_counts_sink_rows(c, pl);
	ok = chunk_need(c, &S, 0, S.nrows, &need);
	if (ok)
		*chunk = need > pool_free(c->pool);
	src_free(&S);
	return ok;
}

/*
 * TM_GPU_LB_AUTO: the Themis scheduler for a pipeline with an INNER / LEFT probe of a hash table in which
 * some key repeats (a source row may have many result rows: the imbalance NIFS / AWS is for), the plain
 * kernel otherwise.  The hash tables a pipeline probes are built by earlier pipelines.
 */
static int
auto_scheduler(const Ctx *c, const TmPipeline *pl)
{
	for (int j = 0; j < pl->nops; j++)
	{
		const TmOp *op = &pl->ops[j];

		if (op->kind == TM_OP_PROBE && (op->jointype == TM_JOIN_INNER || op->jointype == TM_JOIN_LEFT) &&
			op->ht >= 0 && op->ht < c->plan->nhashtables && c->hts[op->ht].repeated)
			return c->pool->coop ? TM_GPU_LB_NIFS_AWS : TM_GPU_LB_NIFS;
	}
	return TM_GPU_LB_NONE;
}

/* ------------------------------------------------------------------------------------------------
 * The partitioned join (tm_gpu_pool_set_join_algorithm; the join itself is cuda/tm_pjoin.cu)
 * ------------------------------------------------------------------------------------------------
 */

/*
 * TM_GPU_JOIN_AUTO's threshold in L2 sizes of the built table (bench/join/xover.cu measures where the
 * partitioned join overtakes the probe in the pipeline's kernel)
 */
#define PJOIN_L2_FACTOR_DEFAULT 4.0

static double g_pjoin_l2_factor = PJOIN_L2_FACTOR_DEFAULT;

/* bytes [off, off + w) of each TmValue into a w-byte array (w = 4 or 8) */
__global__ void
pj_split_kernel(const TmValue *v, long long n, int off, int w, void *out)
{
	for (long long r = blockIdx.x * (long long) blockDim.x + threadIdx.x; r < n;
		 r += (long long) gridDim.x * blockDim.x)
	{
		const char *b = (const char *) &v[r] + off;

		if (w == 8)
			((int64_t *) out)[r] = *(const int64_t *) b;
		else
			((int32_t *) out)[r] = *(const int32_t *) b;
	}
}

/*
 * How a value of kind `kind` travels through the join: part 0 = bytes 0..w0-1 of its TmValue, part 1 =
 * bytes 8..8+w1-1 (w1 = 0: none); load_col's FMT_PARTS puts them back.  Keys are compared bitwise, so
 * floats and text cannot be keys.
 */
struct PjLayout
{
	int			w0;
	int			w1;
	bool		sext;
};

static bool
pj_layout(int kind, bool key, PjLayout *l)
{
	l->w0 = l->w1 = 0;
	l->sext = false;
	switch (kind)
	{
		case TM_K_BOOL:
		case TM_K_INT2:
		case TM_K_INT4:
		case TM_K_DATE:
			l->w0 = 4;
			l->sext = true;
			return true;
		case TM_K_INT8:
		case TM_K_TIMESTAMP:
			l->w0 = 8;
			return true;
		case TM_K_FLOAT4:
		case TM_K_FLOAT8:
			if (key)
				return false;	/* -0 = 0 and NaN = NaN in PostgreSQL: not bitwise */
			l->w0 = 8;
			return true;
		case TM_K_NUMERIC:
			l->w0 = 8;
			l->w1 = 8;
			return true;
		case TM_K_TEXT:
		case TM_K_BPCHAR:
			if (key)
				return false;
			l->w0 = 8;			/* the pointer (into a source column or the build side's rows) */
			l->w1 = 4;			/* the length */
			return true;
		default:
			return false;
	}
}

/* what the partitioned join of one pipeline takes and gives (pj_choose) */
struct PjPlan
{
	int			k;				/* the probe op it replaces */
	int			ht;
	int			ns;				/* S columns: source columns read after the probe */
	int			nr;				/* R columns: payload columns read after the probe */
	int16_t		scol[TM_GPU_MAX_SLOTS];		/* source column of S column i */
	int16_t		sslot[TM_GPU_MAX_SLOTS];	/* a level-0 slot that reads it */
	int16_t		rcol[TM_GPU_MAX_SLOTS];		/* payload column of R column i */
	int16_t		rslot[TM_GPU_MAX_SLOTS];
	bool		want[TM_GPU_MAX_SLOTS];		/* slots read after the probe */
};

/* the slots that the ops after op k (and its residual) and the sink read */
static void
pj_wanted(const TmPipeline *pl, int k, bool *want)
{
	const TmSink *sk = &pl->sink;

	memset(want, 0, sizeof(bool) * TM_GPU_MAX_SLOTS);
	expr_slots(pl->ops[k].qual, want, pl->nslots);
	for (int j = k + 1; j < pl->nops; j++)
	{
		for (int i = 0; pl->ops[j].kind == TM_OP_PROBE && i < pl->ops[j].nkeys; i++)
			expr_slots(pl->ops[j].keys[i], want, pl->nslots);
		expr_slots(pl->ops[j].qual, want, pl->nslots);
	}
	sink_slots(sk, want, pl->nslots);
}

/* the built table's bytes as the probe in the kernel reads them: key and payload TmValues, directory */
static double
pj_table_bytes(const Ctx *c, int ht)
{
	const TmHashTable *def = &c->plan->hashtables[ht];

	return (double) c->hts[ht].nrows * (16.0 * (def->nkeys + def->npayload) + def->npayload + 32.0);
}

/*
 * Does pipeline pl (nrows source rows) run with the partitioned join, and which (*algo: TM_PJOIN_GFTR /
 * _GFUR)?  Its first op that is not a FILTER must be an INNER probe; keys of at most TM_PJOIN_MAX_KEYS
 * parts, none float or text; the columns read after the probe within the payload limits.
 */
static bool
pj_choose(const Ctx *c, const TmPipeline *pl, int64_t nrows, PjPlan *J, int *algo)
{
	int			mode = c->pool->join_algo;
	const TmOp *op = NULL;
	const TmHashTable *def;
	const HHash *H;
	int			parts = 0;
	int			sparts = 0;
	int			rparts = 0;

	if (mode == TM_GPU_JOIN_PIPELINED)
		return false;
	J->k = -1;
	for (int j = 0; j < pl->nops; j++)
	{
		if (pl->ops[j].kind == TM_OP_FILTER)
			continue;
		if (pl->ops[j].kind == TM_OP_PROBE && pl->ops[j].jointype == TM_JOIN_INNER)
			J->k = j;
		break;
	}
	if (J->k < 0)
		return false;
	op = &pl->ops[J->k];
	J->ht = op->ht;
	def = &c->plan->hashtables[op->ht];
	H = &c->hts[op->ht];
	if (!H->built || H->cols == NULL || H->nrows <= 0 || nrows <= 0 || H->nrows >= INT32_MAX)
		return false;
	for (int i = 0; i < op->nkeys; i++)
	{
		PjLayout	l;

		if (op->keys[i]->result.kind != def->keytypes[i].kind ||
			op->keys[i]->result.scale != def->keytypes[i].scale || !pj_layout(def->keytypes[i].kind, true, &l))
			return false;
		parts += l.w1 ? 2 : 1;
	}
	if (parts > TM_PJOIN_MAX_KEYS)
		return false;

	pj_wanted(pl, J->k, J->want);
	J->ns = J->nr = 0;
	for (int s = 0; s < pl->nslots; s++)
	{
		const TmSlot *sl = &pl->slots[s];
		PjLayout	l;
		int			i;

		if (!J->want[s] || sl->level == -1 || sl->level > J->k + 1)
			continue;
		if (sl->level != 0 && sl->level != J->k + 1)
			return false;		/* a level of a FILTER: never read (check_pipeline) */
		if (!pj_layout(sl->type.kind, false, &l))
			return false;
		if (sl->level == 0)
		{
			for (i = 0; i < J->ns && J->scol[i] != sl->col; i++)
				;
			if (i == J->ns)
			{
				J->scol[J->ns] = sl->col;
				J->sslot[J->ns++] = (int16_t) s;
				sparts += l.w1 ? 2 : 1;
			}
		}
		else
		{
			for (i = 0; i < J->nr && J->rcol[i] != sl->col; i++)
				;
			if (i == J->nr)
			{
				J->rcol[J->nr] = sl->col;
				J->rslot[J->nr++] = (int16_t) s;
				rparts += l.w1 ? 2 : 1;
			}
		}
	}
	if (sparts > TM_PJOIN_MAX_PAYLOAD || rparts > TM_PJOIN_MAX_PAYLOAD)
		return false;

	if (mode == TM_GPU_JOIN_AUTO &&
		(pj_table_bytes(c, J->ht) <= g_pjoin_l2_factor * (double) c->pool->l2_bytes || nrows < H->nrows))
		return false;
	*algo = (mode == TM_GPU_JOIN_PARTITIONED_GFUR) ? TM_PJOIN_GFUR : TM_PJOIN_GFTR;
	return true;
}

/*
 * TM_GPU_JOIN_AUTO: are the probe's keys in about ascending order in its source?  Then the probe in the
 * pipeline's kernel stays: rows with one key come together (lineitem's by l_orderkey) and a build made in
 * the same order keeps its rows in it, so the lookups read the table almost in order, which the
 * partitioned join's crossover (bench/join/xover.cu, uniform random keys) does not see.  On an H200 at
 * TPC-H SF 10 it lost on every such probe it took: the skewed data's Q3 (lineitem against 7.35 M
 * orders) 27.7 against 16.7 ms, Q7 25.9 against 19.9; Q9 29.2 against 27.7 on the uniform data
 * (bench/reports/2026-11-28-h200-sf10-9q-unmap-join-order).  A sample: PJ_ORDER_SEGS runs of
 * PJ_ORDER_SEG adjacent pairs spread over the column, "in order" where at least 9 in 10 pairs of non-NULL
 * keys do not descend (uniform random keys: about half).  Only a bare integer source column as the key.
 */
#define PJ_ORDER_SEGS	256
#define PJ_ORDER_SEG	256

/* the sample's position i of pj_order's segment g: the first row of a pair (i, i + 1) */
__host__ __device__ static inline long long
pj_order_row(long long n, int segs, int g, int t)
{
	long long	stride = (n - 1) / segs;

	return (long long) g * stride + t;
}

__host__ __device__ static inline long long
pj_order_val(const void *d, int w, long long i)
{
	return w == 2 ? ((const int16_t *) d)[i] : w == 4 ? ((const int32_t *) d)[i] : ((const int64_t *) d)[i];
}

/* cnt[0]: pairs sampled in order, cnt[1]: pairs sampled (blockDim.x = PJ_ORDER_SEG) */
__global__ void
pj_order_kernel(const void *d, int w, const uint8_t *nulls, long long n, int segs, unsigned long long *cnt)
{
	long long	i = pj_order_row(n, segs, blockIdx.x, threadIdx.x);
	bool		pair = i + 1 < n && (long long) threadIdx.x < (n - 1) / segs &&
		(nulls == NULL || (nulls[i] == 0 && nulls[i + 1] == 0));
	bool		asc = pair && pj_order_val(d, w, i) <= pj_order_val(d, w, i + 1);
	int			na = __syncthreads_count(asc);
	int			np = __syncthreads_count(pair);

	if (threadIdx.x == 0)
	{
		atomicAdd(&cnt[0], (unsigned long long) na);
		atomicAdd(&cnt[1], (unsigned long long) np);
	}
}

static bool
pj_probe_in_order(Ctx *c, const TmPipeline *pl, int k, const TmGpuTable *input, int64_t nrows)
{
	const TmOp *op = &pl->ops[k];
	const TmInstr *in = op->nkeys == 1 && op->keys[0]->ninstr == 1 ? tm_expr_code(op->keys[0]) : NULL;
	const TmSlot *ks;
	const TmGpuColumn *col;
	unsigned long long h[2] = {0, 0};
	int			segs;
	int			w;

	if (in == NULL || in->op != TMI_PUSH_SLOT || in->a < 0 || in->a >= pl->nslots || input == NULL ||
		pl->srckind == TM_SRC_RESULT || nrows < 2 * PJ_ORDER_SEG)
		return false;
	ks = &pl->slots[in->a];
	if (ks->level != 0 || ks->col < 0 || ks->col >= input->ncols || input->nrows != nrows)
		return false;
	col = &input->cols[ks->col];
	w = layout_class(col->kind) == TM_K_INT2 ? 2 : layout_class(col->kind) == TM_K_INT4 ? 4 :
		layout_class(col->kind) == TM_K_INT8 ? 8 : 0;
	if (w == 0 || col->data == NULL)
		return false;
	segs = (int) ((nrows - 1) / PJ_ORDER_SEG < PJ_ORDER_SEGS ? (nrows - 1) / PJ_ORDER_SEG : PJ_ORDER_SEGS);
	if (input->on_device)
	{
		size_t		mark = c->pool->used;
		unsigned long long *d = (unsigned long long *) pool_try_alloc(c, sizeof(h));

		if (d == NULL)
			return false;
		CK(cudaMemsetAsync(d, 0, sizeof(h), c->stream));
		pj_order_kernel<<<segs, PJ_ORDER_SEG, 0, c->stream>>>(col->data, w, col->nulls, nrows, segs, d);
		LAUNCH_CHECK("pj_order_kernel");
		if (!download(c, h, d, sizeof(h)))
			return false;
		c->pool->used = mark;	/* the stream is idle: the two counts can go */
	}
	else
	{
		for (int g = 0; g < segs; g++)
			for (int t = 0; t < PJ_ORDER_SEG && t < (nrows - 1) / segs; t++)
			{
				long long	i = pj_order_row(nrows, segs, g, t);

				if (i + 1 >= nrows || (col->nulls != NULL && (col->nulls[i] || col->nulls[i + 1])))
					continue;
				h[0] += pj_order_val(col->data, w, i) <= pj_order_val(col->data, w, i + 1) ? 1 : 0;
				h[1]++;
			}
	}
	return h[1] > 0 && 10 * h[0] >= 9 * h[1];
}

/* a compiled expression that reads slot s (one instruction) */
static TmExpr *
pj_slot_expr(Ctx *c, int s, TmType type)
{
	size_t		io = align_up(sizeof(TmExpr), 16);
	size_t		total = align_up(io + sizeof(TmInstr), 16);
	TmExpr	   *e = (TmExpr *) xmalloc0(c, total);
	TmInstr    *in;

	if (e == NULL)
		return NULL;
	e->total_size = (int32_t) total;
	e->ninstr = 1;
	e->instr_off = (int32_t) io;
	e->const_off = (int32_t) total;
	e->pool_off = (int32_t) total;
	e->max_stack = 1;
	e->result = type;
	in = (TmInstr *) ((char *) e + io);
	in->op = TMI_PUSH_SLOT;
	in->a = s;
	return e;
}

/*
 * column v (n TmValues, nulls or NULL) of kind `kind` as join columns at *out (one or two), at the top of
 * the pool; copy_nulls: the NULL array is copied there too (it lives in memory given back before the join)
 */
static bool
pj_parts(Ctx *c, const TmValue *v, const uint8_t *nulls, int64_t n, int kind, bool key, bool copy_nulls,
		 TmPjoinColumn *out, int *nout)
{
	PjLayout	l;

	if (!pj_layout(kind, key, &l))
		return fail(c, TM_GPU_ERR_BAD_PLAN, "partitioned join: kind %d", kind);
	if (copy_nulls && nulls != NULL)
	{
		uint8_t    *d = (uint8_t *) pool_alloc_hi(c, Max1(n));
		cudaError_t e;

		if (d == NULL)
			return false;
		if (n > 0 && (e = cudaMemcpyAsync(d, nulls, (size_t) n, cudaMemcpyDeviceToDevice, c->stream)) != cudaSuccess)
			return fail_cuda(c, "cudaMemcpyAsync (partitioned join NULLs)", e);
		nulls = d;
	}
	for (int p = 0; p < (l.w1 ? 2 : 1); p++)
	{
		int			w = p == 0 ? l.w0 : l.w1;
		void	   *d = pool_alloc_hi(c, (size_t) w * Max1(n));

		if (d == NULL)
			return false;
		if (n > 0)
		{
			pj_split_kernel<<<nblocks(c, n), TPB, 0, c->stream>>>(v, n, p == 0 ? 0 : 8, w, d);
			if (cudaPeekAtLastError() != cudaSuccess)
				return fail_cuda(c, "pj_split_kernel", cudaGetLastError());
		}
		memset(&out[*nout], 0, sizeof(TmPjoinColumn));
		out[*nout].width = w;
		out[*nout].data = d;
		out[*nout].nulls = p == 0 ? nulls : NULL;
		(*nout)++;
	}
	return true;
}

/* a FMT_PARTS source column over join output columns cols[0] (and cols[1]) */
static void
pj_dcol(const TmPjoinOutColumn *cols, int kind, DCol *dc)
{
	PjLayout	l;

	(void) pj_layout(kind, false, &l);
	memset(dc, 0, sizeof(DCol));
	dc->fmt = FMT_PARTS;
	dc->pad = l.w0 | (l.w1 << 8) | (l.sext ? 0x10000 : 0);
	dc->data = (const char *) cols[0].data;
	dc->offsets = l.w1 ? (const int64_t *) cols[1].data : NULL;
	dc->nulls = cols[0].nulls;
}

static void
pj_low(const void *p, uintptr_t *low)
{
	if (p != NULL && (uintptr_t) p < *low)
		*low = (uintptr_t) p;
}

/*
 * Pipeline pl with its INNER probe J->k run as the partitioned join (see tm_gpu_exec.h); lb: the
 * execution's scheduler setting.  On failure the pool's top end is as before; the caller resets its
 * bottom end if it runs the pipeline again.
 */
static bool
run_partitioned(Ctx *c, const TmPipeline *pl, const TmGpuTable *input, bool host, const PjPlan *J, int algo,
				int lb, const TmValue *params, const bool *paramnulls, TmGpuPipelineStats *st)
{
	const TmPlan *plan = c->plan;
	const TmOp *op = &pl->ops[J->k];
	const TmHashTable *def = &plan->hashtables[J->ht];
	HHash	   *H = &c->hts[J->ht];
	HResult    *SR = &c->results[c->pj_res];
	TmGpuPool  *pool = c->pool;
	size_t		hi0 = pool->hi;
	size_t		mark = pool->used;
	double		t0 = now_ms();
	TmPipeline	pre;
	TmPipeline	post;
	TmGpuPipelineStats pst;
	TmExpr	   *vals[TM_GPU_MAX_KEYS + TM_GPU_MAX_SLOTS];
	TmSlot	   *slots = NULL;
	TmOp	   *ops = NULL;
	TmPjoinRelation R;
	TmPjoinRelation S;
	TmPjoinOptions o;
	TmPjoinResult res;
	TmPjoinStats ps;
	int			spart0[TM_GPU_MAX_SLOTS];
	int			rpart0[TM_GPU_MAX_SLOTS];
	int			nk = op->nkeys;
	int64_t		ns_rows;
	DCol		cols[2 * TM_GPU_MAX_SLOTS];
	bool		ok = false;
	int			nv = 0;

	memset(vals, 0, sizeof(vals));
	memset(&res, 0, sizeof(res));
	memset(&o, 0, sizeof(o));

	/* 1. the probe side: the source through the FILTERs, its keys and the columns read later */
	free(SR->vals);
	free(SR->nulls);
	memset(SR, 0, sizeof(HResult));
	for (int i = 0; i < nk; i++)
		vals[nv++] = op->keys[i];
	for (int i = 0; i < J->ns; i++)
		if ((vals[nv++] = pj_slot_expr(c, J->sslot[i], pl->slots[J->sslot[i]].type)) == NULL)
			goto out;
	pre = *pl;
	pre.nops = J->k;
	memset(&pre.sink, 0, sizeof(TmSink));
	pre.sink.kind = TM_SINK_EMIT;
	pre.sink.target = c->pj_res;
	pre.sink.nvals = nv;
	pre.sink.vals = vals;
	c->lb = (lb == TM_GPU_LB_AUTO) ? TM_GPU_LB_NONE : lb;
	c->lb_nops = pre.nops;
	memset(&pst, 0, sizeof(pst));
	if (!run_whole(c, &pre, input, params, paramnulls, &pst))
		goto out;
	st->source_rows = pst.source_rows;
	ns_rows = SR->nrows;

	/* 2. the join's inputs, split into the parts it carries, at the top of the pool */
	memset(&R, 0, sizeof(R));
	memset(&S, 0, sizeof(S));
	R.nrows = H->nrows;
	S.nrows = ns_rows;
	for (int i = 0; i < nk; i++)
		if (!pj_parts(c, H->cols[i], NULL, R.nrows, def->keytypes[i].kind, true, false, R.keys, &R.nkeys) ||
			!pj_parts(c, SR->vals[i], SR->nulls[i], S.nrows, def->keytypes[i].kind, true, !host, S.keys,
					  &S.nkeys))
			goto out;
	for (int i = 0; i < J->ns; i++)
	{
		spart0[i] = S.npayload;
		if (!pj_parts(c, SR->vals[nk + i], SR->nulls[nk + i], S.nrows, pl->slots[J->sslot[i]].type.kind, false,
					  !host, S.payload, &S.npayload))
			goto out;
	}
	for (int i = 0; i < J->nr; i++)
	{
		rpart0[i] = R.npayload;
		if (!pj_parts(c, H->cols[def->nkeys + J->rcol[i]], H->paynulls[J->rcol[i]], R.nrows,
					  pl->slots[J->rslot[i]].type.kind, false, false, R.payload, &R.npayload))
			goto out;
	}
	/*
	 * The probe side's result is read only by the splits and copies queued above: its memory (and the
	 * pipeline's descriptor) can go, unless a host input was uploaded there (text parts point into it).
	 */
	free(SR->vals);
	free(SR->nulls);
	memset(SR, 0, sizeof(HResult));
	if (!host)
		pool->used = mark;

	/* 3. the join, in the pool's free middle as its workspace (its result ends up at the top) */
	if (check_canceled(c))
		goto out;
	{
		size_t		off = align_up(pool->used, POOL_ALIGN);
		char		perr[256];
		int			rc;
		uintptr_t	low = (uintptr_t) (pool->base + pool->hi);

		if (off >= pool->hi || pool->hi - off < 4096)
		{
			fail(c, TM_GPU_ERR_NOMEM, "device pool exhausted before the partitioned join");
			goto out;
		}
		o.algo = algo;
		o.kind = TM_PJOIN_INNER;
		o.emit_keys = 0;
		o.stream = (void *) c->stream;
		o.workspace = pool->base + off;
		o.workspace_bytes = pool->hi - off;
		memset(&ps, 0, sizeof(ps));
		/* no probe row passed the FILTERs: nothing to join (the sink still runs: one group of an AGG) */
		rc = S.nrows == 0 ? TM_PJOIN_OK : tm_pjoin(&R, &S, &o, &res, &ps, perr, sizeof(perr));
		if (rc != TM_PJOIN_OK)
		{
			fail(c, rc == TM_PJOIN_ERR_NOMEM ? TM_GPU_ERR_NOMEM :
				 rc == TM_PJOIN_ERR_HOST_NOMEM ? TM_GPU_ERR_HOST_NOMEM :
				 rc == TM_PJOIN_ERR_UNSUPPORTED ? TM_GPU_ERR_UNSUPPORTED :
				 rc == TM_PJOIN_ERR_BAD_ARG ? TM_GPU_ERR_BAD_PLAN : TM_GPU_ERR_CUDA,
				 "partitioned join: %s", perr);
			goto out;
		}
		if (pool->used + ps.workspace_peak + (pool->size - pool->hi) > pool->peak)
			pool->peak = pool->used + ps.workspace_peak + (pool->size - pool->hi);
		for (int i = 0; i < res.nr; i++)
		{
			pj_low(res.r[i].data, &low);
			pj_low(res.r[i].nulls, &low);
		}
		for (int i = 0; i < res.ns; i++)
		{
			pj_low(res.s[i].data, &low);
			pj_low(res.s[i].nulls, &low);
		}
		/* the result's arrays stay (the bottom of the workspace is free again) */
		pool->hi = ((size_t) (low - (uintptr_t) pool->base)) & ~(size_t) (POOL_ALIGN - 1);
		if (pool->hi < off)
		{
			fail(c, TM_GPU_ERR_BAD_PLAN, "partitioned join: result below its workspace");
			goto out;
		}
		if (res.nrows >= INT32_MAX)
		{
			fail(c, TM_GPU_ERR_UNSUPPORTED, "partitioned join of %lld rows", (long long) res.nrows);
			goto out;
		}
	}
	if (check_canceled(c))
		goto out;
	st->join_algo = algo == TM_PJOIN_GFUR ? TM_GPU_JOIN_PARTITIONED_GFUR : TM_GPU_JOIN_PARTITIONED;
	st->join_op = J->k;
	st->join_rows = res.nrows;
	st->join_ms = now_ms() - t0;

	/* 4. the rest of the pipeline over the joined rows: S columns, then R columns */
	for (int i = 0; i < J->ns; i++)
		pj_dcol(&res.s[spart0[i]], pl->slots[J->sslot[i]].type.kind, &cols[i]);
	for (int i = 0; i < J->nr; i++)
		pj_dcol(&res.r[rpart0[i]], pl->slots[J->rslot[i]].type.kind, &cols[J->ns + i]);
	{
		int			shift = op->qual != NULL ? J->k : J->k + 1;
		int			nops = pl->nops - (J->k + 1) + (op->qual != NULL ? 1 : 0);
		const DPipe *P;
		Src			Sx;

		slots = (TmSlot *) xmalloc0(c, sizeof(TmSlot) * Max1(pl->nslots));
		ops = (TmOp *) xmalloc0(c, sizeof(TmOp) * Max1(nops));
		if (slots == NULL || ops == NULL)
			goto out;
		post = *pl;
		post.nops = nops;
		post.ops = ops;
		post.slots = slots;
		post.nsrccols = J->ns + J->nr;
		if (op->qual != NULL)
		{
			ops[0].kind = TM_OP_FILTER;
			ops[0].qual = op->qual;
			ops[0].label = op->label;
			ops[0].est_rows = op->est_rows;
		}
		for (int j = J->k + 1; j < pl->nops; j++)
			ops[j - shift] = pl->ops[j];
		for (int s = 0; s < pl->nslots; s++)
		{
			const TmSlot *sl = &pl->slots[s];
			int			i;

			slots[s] = *sl;
			if (sl->level == 0 || sl->level == J->k + 1)
			{
				/* a column read after the probe, else a slot nobody reads (above every level) */
				slots[s].level = (int16_t) (nops + 1);
				if (!J->want[s])
					continue;
				if (sl->level == 0)
				{
					for (i = 0; i < J->ns && J->scol[i] != sl->col; i++)
						;
				}
				else
				{
					for (i = 0; i < J->nr && J->rcol[i] != sl->col; i++)
						;
					i += J->ns;
				}
				slots[s].level = 0;
				slots[s].col = (int16_t) i;
			}
			else if (sl->level > J->k + 1)
				slots[s].level = (int16_t) (sl->level - shift);
		}
		c->lb = (lb == TM_GPU_LB_AUTO) ? auto_scheduler(c, &post) : lb;
		c->lb_nops = post.nops;
		P = upload_pipeline(c, &post, cols, post.nsrccols, res.nrows, params, paramnulls);
		if (P == NULL)
			goto out;
		memset(&pst, 0, sizeof(pst));
		memset(&Sx, 0, sizeof(Sx));
		Sx.P = P;
		Sx.nrows = res.nrows;
		switch (post.sink.kind)
		{
			case TM_SINK_EMIT:
				ok = sink_emit(c, &post, P, res.nrows, &pst);
				break;
			case TM_SINK_HASH_BUILD:
				ok = sink_hash_build(c, &post, &Sx, &pst);
				break;
			default:
				ok = sink_agg(c, &post, &Sx, &pst);
				break;
		}
		/* an expression error after the join: its row is a joined row, not a source row */
		if (!ok && c->rc == TM_GPU_ERR_EXPR && c->fail != NULL)
			c->fail->row = -1;
		st->sink_rows = pst.sink_rows;
		st->out_rows = pst.out_rows;
	}

out:
	/* the rest's kernels are queued before anything that reuses the top end */
	pool->hi = hi0;
	for (int i = nk; i < nv; i++)
		free(vals[i]);
	free(slots);
	free(ops);
	return ok;
}

/*
 * Does an inner or semi probe of this pipeline read a built hash table without rows?  Then no row can
 * pass, and like PostgreSQL's hash join (and the CPU executor, cpu_exec.c) the pipeline does not read its
 * source at all: no expression is evaluated on it, so none can raise an error PostgreSQL would not.
 */
static bool
pipeline_has_empty_probe(const Ctx *c, const TmPipeline *pl)
{
	for (int o = 0; o < pl->nops; o++)
	{
		const TmOp *op = &pl->ops[o];

		if (op->kind == TM_OP_PROBE &&
			(op->jointype == TM_JOIN_INNER || op->jointype == TM_JOIN_SEMI) &&
			op->ht >= 0 && op->ht < c->plan->nhashtables &&
			c->hts[op->ht].built && c->hts[op->ht].nrows == 0)
			return true;
	}
	return false;
}

static_assert(TM_GPU_PROBE_ORDER_OPS == TM_PROBE_ORDER_MAX_OPS, "TmGpuPipelineStats.probe_order");

/*
 * The order of pl's INNER probes for this run (themis/tm_probe_order.h), into perm: each probe's rows out
 * per row in from its built table (its rows, its pipeline's source rows, repeated keys or not) and this
 * pipeline's nrows source rows.  True where it differs from the plan's.
 */
static bool
probe_order(const Ctx *c, const TmPipeline *pl, int64_t nrows, int *perm)
{
	double		e[TM_PROBE_ORDER_MAX_OPS];

	if (c->pool->plan_probe_order || pl->nops < 2 || pl->nops > TM_PROBE_ORDER_MAX_OPS)
		return false;
	for (int k = 0; k < pl->nops; k++)
	{
		const TmOp *op = &pl->ops[k];

		e[k] = -1;
		if (op->kind == TM_OP_PROBE && op->jointype == TM_JOIN_INNER && op->ht >= 0 &&
			op->ht < c->plan->nhashtables && c->hts[op->ht].built)
			e[k] = tm_probe_expansion(c->hts[op->ht].nrows, c->hts[op->ht].src_rows, c->hts[op->ht].repeated,
									  nrows);
		else if (op->kind == TM_OP_PROBE && op->jointype == TM_JOIN_INNER && op->ht >= 0 &&
				 op->ht < c->plan->nhashtables && (c->hts[op->ht].pending || c->hts[op->ht].fused))
		{
			/* held rows (run_swapped), not grouped yet, or put off (run_fused: pend_n estimated): taken
			 * as keys that repeat */
			e[k] = tm_probe_expansion(c->hts[op->ht].pend_n, c->hts[op->ht].src_rows, true, nrows);
		}
	}
	return tm_probe_order(pl, e, perm);
}

/* the current pipeline's scheduler (lb, or auto_scheduler's choice) and its figures, from zero */
static void
pipeline_figures_reset(Ctx *c, const TmPipeline *pl, int lb)
{
	c->lb = lb == TM_GPU_LB_AUTO ? auto_scheduler(c, pl) : lb;
	c->lb_nops = pl->nops;
	c->lb_passes = 0;
	c->prefiltered = 0;
	c->nointerp_passes = 0;
	c->jit_state = TM_JIT_OFF;
	c->jit_passes = 0;
	c->jit_ms = 0;
	c->dyn_groups = 0;
	c->prefiltered_plain = false;
	c->prefiltered_semi = false;
	c->lb_iters = c->lb_idle = c->lb_handoffs = 0;
	c->lb_max_sum = c->lb_avg_sum = 0;
}

/*
 * One pipeline pl (number p of the plan: messages, traces) over its input (TABLE / SUBPLAN sources): its
 * probes in the order probe_order gives, the partitioned join where pj_choose takes it, chunks where the
 * input does not fit, and their fallbacks; its figures into *stp
 */
static bool
run_pipeline(Ctx *c, int p, const TmPipeline *pl, const TmGpuTable *input, const TmValue *params,
			 const bool *paramnulls, int lb, TmGpuPipelineStats *stp)
{
	TmGpuPipelineStats st;
	int64_t		nrows;
	bool		host;
	bool		chunk = false;
	bool		partitioned = false;
	bool		use_pj;
	PjPlan		pj;
	int			pj_algo;
	double		t0 = now_ms();

	size_t		used0 = c->pool->used;
	HResult		res0;
	int			perm[TM_PROBE_ORDER_MAX_OPS];
	bool		reordered = false;
	TmPipeline	plx;			/* pl in the order perm (where reordered) */
	TmOp		xops[TM_PROBE_ORDER_MAX_OPS];
	TmSlot		xslots[TM_GPU_MAX_SLOTS];

	memset(&res0, 0, sizeof(res0));
	c->pipeline = p;
	c->trace = tm_trace_wanted();
	c->trace_t = t0;
	c->row_base = 0;
	pipeline_figures_reset(c, pl, lb);
	memset(&st, 0, sizeof(st));
	if (!check_pipeline(c, pl, input))
		return false;
	nrows = (pl->srckind == TM_SRC_RESULT) ? c->results[pl->src_result].nrows : input->nrows;
	c->empty_source = pipeline_has_empty_probe(c, pl);
	if (c->empty_source)
		nrows = 0;			/* run_whole over no row: the sink's target is made, empty */
	if (nrows >= INT32_MAX)
		return fail(c, TM_GPU_ERR_UNSUPPORTED, "source of %lld rows", (long long) nrows);

	/* the probes in the order their built tables say is cheapest (the pipeline checked again) */
	if (!c->empty_source && probe_order(c, pl, nrows, perm))
	{
		tm_pipeline_permute(pl, perm, xops, xslots, &plx);
		if (!check_pipeline(c, &plx, input))
			return false;
		pl = &plx;
		reordered = true;
		c->lb = lb == TM_GPU_LB_AUTO ? auto_scheduler(c, pl) : lb;
		if (c->trace)
		{
			fprintf(stderr, "themis-gpud trace: pipeline %d probes in the order", p);
			for (int k = 0; k < pl->nops; k++)
				fprintf(stderr, " %d", perm[k]);
			fprintf(stderr, "\n");
		}
	}
	host = pl->srckind != TM_SRC_RESULT && !input->on_device;
	if (pl->sink.kind == TM_SINK_EMIT)
		res0 = c->results[pl->sink.target];
	if (host && nrows > 0 && !want_chunks(c, pl, input, &chunk))
		return false;
	use_pj = !chunk && !c->empty_source && c->trial_limit == 0 && c->sample_rows == 0 &&
		pj_choose(c, pl, nrows, &pj, &pj_algo);
	if (use_pj && c->pool->join_algo == TM_GPU_JOIN_AUTO)
	{
		use_pj = !pj_probe_in_order(c, pl, pj.k, input, nrows);
		if (c->rc != TM_GPU_OK)
			return false;	/* a CUDA call of the sample failed */
	}
	if (use_pj)
	{
		bool		defer = c->defer_build;
		bool		pj_ok;

		/* (no build held from within the partitioned join: it gives back what its parts take) */
		c->defer_build = false;
		pj_ok = run_partitioned(c, pl, input, host, &pj, pj_algo, lb, params, paramnulls, &st);
		c->defer_build = defer;
		if (pj_ok)
			partitioned = true;
		else
		{
			/*
			 * Out of pool memory, or beyond the partitioned join's limits (2^31 work units, 2^32
			 * rows of a batch, a joined result of 2^31 rows: a fan-out the kernel's probe streams
			 * into its sink): the probe in the pipeline's kernel instead, unless the sink has already
			 * put something into its target
			 */
			if ((c->rc != TM_GPU_ERR_NOMEM && c->rc != TM_GPU_ERR_UNSUPPORTED) ||
				(pl->sink.kind == TM_SINK_EMIT &&
				 memcmp(&res0, &c->results[pl->sink.target], sizeof(res0)) != 0) ||
				(pl->sink.kind == TM_SINK_AGG && c->results[pl->sink.target].made) ||
				(pl->sink.kind == TM_SINK_HASH_BUILD && c->hts[pl->sink.target].built))
				return false;
			clear_failure(c);
			c->pool->used = used0;
			memset(&st, 0, sizeof(st));
			pipeline_figures_reset(c, pl, lb);
		}
	}
	if (!partitioned && !chunk)
	{
		if (!run_whole(c, pl, input, params, paramnulls, &st))
		{
			/* the sink ran out of pool memory: try chunks (the input's space is reused then) */
			if (!(host && nrows > 1 && c->rc == TM_GPU_ERR_NOMEM))
				return false;
			clear_failure(c);
			c->pool->used = used0;
			memset(&st, 0, sizeof(st));
			chunk = true;
		}
	}
	if (!partitioned && chunk && !run_chunked(c, pl, input, params, paramnulls, &st))
	{
		/*
		 * Not even one row fits beside the AWS scratch (what earlier pipelines left in the pool takes
		 * the rest): this pipeline runs with the plain kernel, which needs no scratch.
		 */
		if (!(c->rc == TM_GPU_ERR_NOMEM && c->lb == TM_GPU_LB_NIFS_AWS && host))
			return false;
		/* ... unless rows were already added to the result it emits into */
		if (pl->sink.kind == TM_SINK_EMIT && memcmp(&res0, &c->results[pl->sink.target], sizeof(res0)) != 0)
			return false;
		clear_failure(c);
		c->pool->used = used0;
		memset(&st, 0, sizeof(st));
		c->lb = TM_GPU_LB_NONE;
		c->lb_passes = 0;
		c->prefiltered = 0;
		c->nointerp_passes = 0;
		c->jit_state = TM_JIT_OFF;
		c->jit_passes = 0;
		c->jit_ms = 0;
		c->dyn_groups = 0;
		c->prefiltered_plain = false;
		c->prefiltered_semi = false;
		if (!run_chunked(c, pl, input, params, paramnulls, &st))
			return false;
	}
	CK(cudaStreamSynchronize(c->stream));
	trace_step(c, "rest", (long long) nrows);
	st.time_ms = now_ms() - t0;
	if (c->trace)
		fprintf(stderr, "themis-gpud trace: pipeline %d total %.3f ms (%s%s)\n", p, st.time_ms,
				partitioned ? "partitioned join" : "pipelined", chunk ? ", chunks" : "");
	if (!partitioned)
	{
		st.join_algo = TM_GPU_JOIN_PIPELINED;
		st.join_op = -1;
	}
	if (c->lb_passes > 0)
	{
		st.idle_ratio = c->lb_iters > 0 ? (double) c->lb_idle / (32.0 * (double) c->lb_iters) : 0;
		st.imbalance = c->lb_avg_sum > 0 ? c->lb_max_sum / c->lb_avg_sum : 1;
		st.warp_iterations = (int64_t) c->lb_iters;
		st.handoffs = (int64_t) c->lb_handoffs;
	}
	st.prefilter_passes = c->prefiltered;
	st.prefilter_plain = c->prefiltered_plain ? 1 : 0;
	st.prefilter_semi = c->prefiltered_semi ? 1 : 0;
	st.dynamic_groups = c->dyn_groups;
	st.nointerp_passes = c->nointerp_passes;
	st.jit = c->jit_passes > 0 ? TM_JIT_RAN : c->jit_state == TM_JIT_RAN ? TM_JIT_OFF : c->jit_state;
	st.jit_passes = c->jit_passes;
	st.jit_ms = c->jit_ms;
	if (reordered)
	{
		st.probe_reordered = 1;
		for (int k = 0; k < pl->nops; k++)
			st.probe_order[k] = (int8_t) perm[k];
		if (st.join_op >= 0 && st.join_op < pl->nops)
			st.join_op = perm[st.join_op];	/* the plan's number of the probe */
	}
	if (pl->sink.kind == TM_SINK_HASH_BUILD && pl->sink.target >= 0 && pl->sink.target < c->plan->nhashtables)
		c->hts[pl->sink.target].src_rows = nrows;
	*stp = st;
	return true;
}

/* ------------------------------------------------------------------------------------------------
 * Build sides chosen at run time (tm_gpu_pool_set_swap_rows)
 *
 * PostgreSQL puts the side it estimates smaller into the hash table.  Where the estimate is far off
 * (JCC-H-style skewed data: TPC-H Q8's lineitem-part join gives 19.8 M rows against 57 K estimated), the
 * table is built from many rows and probed by few.  A build that comes out far over its estimate is held
 * ungrouped (defer_rows) when its table's one use is an INNER probe of a later pipeline; when that
 * pipeline starts, run_swapped counts its rows up to the probe and builds the table from whichever side
 * has fewer.
 * ------------------------------------------------------------------------------------------------
 */

/*
 * May pipeline p's build be held: its table's one use is an INNER probe of a later pipeline?  Sets
 * c->defer_probe_rows: that pipeline's source rows, where its input says (-1: a result not made yet), and
 * c->defer_probe_bare: whether that probe is its one operator.
 */
static bool
swap_candidate(Ctx *c, int p, const TmGpuTable *inputs, int ninputs)
{
	const TmPlan *plan = c->plan;
	const TmPipeline *pl = &plan->pipelines[p];
	int			h = pl->sink.target;
	int			uses = 0;
	int			prober = -1;

	c->defer_probe_rows = -1;
	c->defer_probe_bare = false;
	if (c->pool->swap_rows < 0 || pl->sink.kind != TM_SINK_HASH_BUILD || h < 0 || h >= plan->nhashtables)
		return false;
	for (int q = 0; q < plan->npipelines; q++)
		for (int k = 0; k < plan->pipelines[q].nops; k++)
		{
			const TmOp *op = &plan->pipelines[q].ops[k];

			if (op->kind != TM_OP_PROBE || op->ht != h)
				continue;
			if (q <= p || op->jointype != TM_JOIN_INNER)
				return false;
			uses++;
			prober = q;
		}
	if (uses != 1)
		return false;
	if (plan->pipelines[prober].srckind != TM_SRC_RESULT && inputs != NULL && prober < ninputs)
		c->defer_probe_rows = inputs[prober].nrows;
	c->defer_probe_bare = plan->pipelines[prober].nops == 1;
	return true;
}

/*
 * The op of pl that probes a table whose rows are held (fused: whose build was put off, run_fused; of
 * several, the one with the most rows, or estimated to have them: only one is tried the other way round),
 * or -1
 */
static int
pending_probe(const Ctx *c, const TmPipeline *pl, bool fused)
{
	int			best = -1;

	for (int k = 0; k < pl->nops; k++)
	{
		const TmOp *op = &pl->ops[k];

		if (op->kind == TM_OP_PROBE && op->ht >= 0 && op->ht < c->plan->nhashtables &&
			(fused ? c->hts[op->ht].fused : c->hts[op->ht].pending) &&
			(best < 0 || c->hts[op->ht].pend_n > c->hts[pl->ops[best].ht].pend_n))
			best = k;
	}
	return best;
}

/*
 * c->plan as a copy whose table definitions and results run_swapped can change (the pipelines are the
 * plan's); results: every entry of c->results (a swapped table's held rows are result pj_res + 1 + table)
 */
static bool
swplan_init(Ctx *c)
{
	const TmPlan *plan = c->plan;

	if (plan == &c->swplan)
		return true;
	c->swhts = (TmHashTable *) xmalloc0(c, sizeof(TmHashTable) * Max1(plan->nhashtables));
	c->swres = (TmResult *) xmalloc0(c, sizeof(TmResult) * Max1(c->nres_alloc));
	if (c->swhts == NULL || c->swres == NULL)
		return false;
	memcpy(c->swhts, plan->hashtables, sizeof(TmHashTable) * plan->nhashtables);
	memcpy(c->swres, plan->results, sizeof(TmResult) * plan->nresults);
	c->swplan = *plan;
	c->swplan.hashtables = c->swhts;
	c->swplan.results = c->swres;
	c->swplan.nresults = c->nres_alloc;
	c->plan = &c->swplan;
	return true;
}

/*
 * run_swapped / run_fused: the probing pipeline pl in the order probe_order gives (q, its probe of h at j)
 * and A, the trial build of h from q's rows up to the probe: its keys the probe's, its payload the slots of
 * q's source and of its operators before the probe that are read after it (paycol: q's slot -> A's
 * payload column, or -1; paytypes: their types)
 */
struct SwapTrial
{
	int			perm[TM_PROBE_ORDER_MAX_OPS];
	TmOp		xops[TM_PROBE_ORDER_MAX_OPS];
	TmSlot		xslots[TM_GPU_MAX_SLOTS];
	TmPipeline	plx;
	const TmPipeline *q;
	int			j;
	int			paycol[TM_GPU_MAX_SLOTS];
	TmExpr	   *payvals[TM_GPU_MAX_SLOTS];
	TmType	   *paytypes;
	int			npay;
	TmSlot		aslots[TM_GPU_MAX_SLOTS];
	TmPipeline	A;
	TmGpuPipelineStats sta;
};

static void
swap_trial_free(SwapTrial *W)
{
	free(W->paytypes);
	W->paytypes = NULL;
	for (int i = 0; i < TM_GPU_MAX_SLOTS; i++)
	{
		free(W->payvals[i]);
		W->payvals[i] = NULL;
	}
}

/*
 * W for pipeline pl (nrows source rows), whose op jo probes the held or put-off hash table h.  False where
 * A cannot be made (c->rc says whether that was a failure or only a slot that A cannot fill).
 */
static bool
swap_trial_init(Ctx *c, const TmPipeline *pl, int jo, int64_t nrows, SwapTrial *W)
{
	const TmPipeline *q = pl;
	int			j = jo;
	int			dummy0 = -1;
	bool		used[TM_GPU_MAX_SLOTS];

	for (int k = 0; k < pl->nops; k++)
		W->perm[k] = k;
	if (probe_order(c, pl, nrows, W->perm))
	{
		tm_pipeline_permute(pl, W->perm, W->xops, W->xslots, &W->plx);
		q = &W->plx;
		for (int k = 0; k < q->nops; k++)
			if (W->perm[k] == jo)
				j = k;
	}
	W->q = q;
	W->j = j;

	/* A's payload */
	memset(used, 0, sizeof(used));
	expr_slots(q->ops[j].qual, used, q->nslots);
	for (int k = j + 1; k < q->nops; k++)
	{
		for (int i = 0; i < q->ops[k].nkeys; i++)
			expr_slots(q->ops[k].keys[i], used, q->nslots);
		expr_slots(q->ops[k].qual, used, q->nslots);
	}
	sink_slots(&q->sink, used, q->nslots);
	W->paytypes = (TmType *) xmalloc0(c, sizeof(TmType) * Max1(q->nslots));
	if (W->paytypes == NULL)
		return false;
	W->npay = 0;
	for (int s = 0; s < q->nslots; s++)
	{
		int			lv = q->slots[s].level;

		W->paycol[s] = -1;
		if (lv == 0 && dummy0 < 0)
			dummy0 = s;
		if (lv >= 0 && lv <= j && used[s])
		{
			W->paycol[s] = W->npay;
			W->paytypes[W->npay] = q->slots[s].type;
			if ((W->payvals[W->npay] = pj_slot_expr(c, s, q->slots[s].type)) == NULL)
				return false;
			W->npay++;
		}
	}

	/* A: q's source and ops before the probe; the slots of later ops (read by none of them) a source slot */
	for (int s = 0; s < q->nslots; s++)
	{
		W->aslots[s] = q->slots[s];
		if (q->slots[s].level > j)
		{
			if (dummy0 < 0)
				return false;
			W->aslots[s] = q->slots[dummy0];
		}
	}
	W->A = *q;
	W->A.nops = j;
	W->A.slots = W->aslots;
	memset(&W->A.sink, 0, sizeof(W->A.sink));
	W->A.sink.kind = TM_SINK_HASH_BUILD;
	W->A.sink.target = pl->ops[jo].ht;
	W->A.sink.nkeys = pl->ops[jo].nkeys;
	W->A.sink.keys = q->ops[j].keys;
	W->A.sink.nvals = W->npay;
	W->A.sink.vals = W->payvals;
	W->A.est_rows = j > 0 ? q->ops[j - 1].est_rows : q->est_source_rows;
	return true;
}

/*
 * The trial: A (pipeline p's rows up to the probe) builds its table h, with h's definition in c->swplan as
 * A builds it, where it has at most half of n rows (the held rows, or the put-off build's estimate).
 * *declined where it had more, or did not fit (W->sta.sink_rows -1), or (empty_declines) had none:
 * nothing of A's lives on, h's definition is the plan's.  False where A failed otherwise.  Where A has no
 * operator, its rows are at most its nsrc source rows (rows with a NULL key are not built): more than half
 * of n decline it without a pass (the skewed TPC-H Q9: all 15 M orders rows, against 21.7 M held lineitem
 * rows, were written to be counted).
 */
static bool
swap_trial_run(Ctx *c, int p, SwapTrial *W, int64_t n, int64_t nsrc, const TmGpuTable *input,
			   const TmValue *params, const bool *paramnulls, int lb, bool empty_declines, bool *declined)
{
	int			h = W->A.sink.target;
	HHash	   *H = &c->hts[h];
	TmHashTable def0;
	int64_t		src_rows0 = H->src_rows;
	size_t		mark;
	bool		ok;

	*declined = false;
	memset(&W->sta, 0, sizeof(W->sta));
	if (W->A.nops == 0 && nsrc > tm_swap_trial_limit(n))
	{
		W->sta.source_rows = nsrc;
		W->sta.sink_rows = nsrc;
		*declined = true;
		return true;
	}
	if (!swplan_init(c))
		return false;
	def0 = c->swhts[h];
	c->swtypes[c->nswtypes++] = W->paytypes;
	c->swhts[h].npayload = W->npay;
	c->swhts[h].payloadtypes = W->paytypes;
	W->paytypes = NULL;

	mark = c->pool->used;
	c->trial_limit = tm_swap_trial_limit(n);
	c->trial_declined = false;
	ok = run_pipeline(c, p, &W->A, input, params, paramnulls, lb, &W->sta);
	c->trial_limit = 0;
	if (!ok && (c->rc == TM_GPU_ERR_NOMEM || c->rc == TM_GPU_ERR_UNSUPPORTED) && !H->built)
	{
		/* the trial did not fit (A built nothing): as planned (EXPLAIN: no rows counted) */
		clear_failure(c);
		c->trial_declined = true;
		W->sta.sink_rows = -1;
		ok = true;
	}
	if (!ok)
		return false;
	if (c->trial_declined || (empty_declines && W->sta.sink_rows == 0))
	{
		c->pool->used = mark;
		c->swhts[h] = def0;
		H->src_rows = src_rows0;
		H->built = false;
		*declined = true;
	}
	return true;
}

/* check_pipeline of pl with its held or put-off table H counted as built */
static bool
check_as_built(Ctx *c, const TmPipeline *pl, const TmGpuTable *input, HHash *H)
{
	bool		ok;

	H->built = true;
	ok = check_pipeline(c, pl, input);
	H->built = false;
	return ok;
}

/*
 * Where a swapped pipeline ran in A and B (or F), the order its ops ran in, by the plan's numbers, into
 * *st: A's, then the later run's (its op i: plan op ops_at[i], -1 for one of the put-off pipeline's)
 */
static void
swap_run_order(const SwapTrial *W, const TmGpuPipelineStats *stl, int nl, const int *ops_at,
			   TmGpuPipelineStats *st)
{
	int			n = 0;

	st->probe_reordered = 0;
	for (int i = 0; i < W->j; i++)
		st->probe_order[n++] = (int8_t) W->perm[W->sta.probe_reordered ? W->sta.probe_order[i] : i];
	for (int i = 0; i < nl; i++)
	{
		int			b = stl->probe_reordered ? stl->probe_order[i] : i;

		if (ops_at[b] >= 0)
			st->probe_order[n++] = (int8_t) ops_at[b];
	}
	for (int i = 0; i < n; i++)
		if (st->probe_order[i] != i)
			st->probe_reordered = 1;
	st->join_op = -1;
	if (stl->join_algo != TM_GPU_JOIN_PIPELINED && stl->join_op >= 0 && stl->join_op < nl)
		st->join_op = ops_at[stl->join_op];
}

/*
 * Pipeline pl (number p) probes, with its op jo (INNER), hash table h, whose build rows are held
 * (defer_rows).  pl's rows up to the probe (the probes in the order probe_order gives, h taken as keys that
 * repeat) are counted in a trial build: where they are at most half the held rows, they build h (pipeline
 * A: pl's source and its operators before the probe, the probe's keys as keys, the slots read after it as
 * payload), and the held rows probe it (pipeline B, over them as a result: the probe, keys the held rows'
 * keys, then pl's operators after the probe and its sink, each slot moved to where B has it).  Else h is
 * built from the held rows and pl runs as planned.
 *
 * The same rows meet the same expressions either way: A runs pl's operators before the probe over pl's
 * source, as pl does, and evaluates the probe's keys on the rows that reach it; the probe pairs the same
 * rows with the same residual condition; B runs the operators after it over the same pairs.  Only the
 * order of the sink's rows changes, which the node does not promise (tm_probe_order.h).  Where a probe of pl
 * has an empty table, pl reads no row as planned: nothing is swapped.
 */
static bool
run_swapped(Ctx *c, int p, const TmPipeline *pl, int jo, const TmGpuTable *input, const TmValue *params,
			const bool *paramnulls, int lb, TmGpuPipelineStats *st)
{
	int			h = pl->ops[jo].ht;
	HHash	   *H = &c->hts[h];
	const TmHashTable def0 = c->plan->hashtables[h];	/* the plan's definition (a copy: swhts changes) */
	int			nk = def0.nkeys;
	int			nv = def0.npayload;
	int			ridx = c->pj_res + 1 + h;
	double		t0 = now_ms();
	int64_t		nrows;
	SwapTrial	W;
	const TmPipeline *q;
	int			j;
	TmExpr	   *bkeys[TM_GPU_MAX_KEYS];
	TmSlot		bslots[TM_GPU_MAX_SLOTS];
	TmOp		bops[TM_GPU_MAX_OPS];
	int			ops_at[TM_GPU_MAX_OPS];
	TmType	   *rtypes = NULL;
	TmPipeline	B;
	TmGpuPipelineStats stb;
	HResult    *R;
	bool		declined;
	bool		ok = false;

	memset(bkeys, 0, sizeof(bkeys));
	memset(&W, 0, sizeof(W));
	c->pipeline = p;

	/* other held tables that pl probes: grouped as planned */
	for (int k = 0; k < pl->nops; k++)
	{
		int			t = pl->ops[k].ht;

		if (k != jo && pl->ops[k].kind == TM_OP_PROBE && t >= 0 && t < c->plan->nhashtables &&
			c->hts[t].pending && !finish_pending(c, t))
			return false;
	}

	/* pl as it would run, h counted as built */
	if (!check_as_built(c, pl, input, H))
		return false;
	nrows = pl->srckind == TM_SRC_RESULT ? c->results[pl->src_result].nrows : input->nrows;
	if (pl->nops > TM_PROBE_ORDER_MAX_OPS || pl->nslots + nk > TM_GPU_MAX_SLOTS || H->pend_ncols != nk + nv ||
		tm_swap_trial_limit(H->pend_n) < 1 || ridx >= c->nres_alloc || c->nswtypes + 2 > TM_GPU_MAX_SLOTS ||
		pipeline_has_empty_probe(c, pl) || nrows >= INT32_MAX)
		goto keep;
	if (!swap_trial_init(c, pl, jo, nrows, &W))
	{
		if (c->rc != TM_GPU_OK)
			goto out;
		goto keep;
	}
	q = W.q;
	j = W.j;
	rtypes = (TmType *) xmalloc0(c, sizeof(TmType) * Max1(nk + nv));
	if (rtypes == NULL)
		goto out;

	/*
	 * B: the held rows (their keys, then h's payload), the probe with those keys, q's ops after it.  Slots:
	 * A's payload at level 1, h's payload in the held rows, later ops' one level up (by j), the keys new;
	 * slots of q's ops before the probe that nothing after it reads a key column (read by none of B's
	 * expressions)
	 */
	for (int i = 0; i < nk; i++)
		if ((bkeys[i] = pj_slot_expr(c, q->nslots + i, def0.keytypes[i])) == NULL)
			goto out;
	for (int s = 0; s < q->nslots; s++)
	{
		TmSlot		sl = q->slots[s];
		int			lv = sl.level;

		if (lv >= 0 && lv <= j)
		{
			if (W.paycol[s] >= 0)
			{
				sl.level = 1;
				sl.col = (int16_t) W.paycol[s];
			}
			else
			{
				sl.type = def0.keytypes[0];
				sl.level = 0;
				sl.col = 0;
			}
		}
		else if (lv == j + 1)
		{
			sl.level = 0;
			sl.col = (int16_t) (nk + sl.col);
		}
		else if (lv > j + 1)
			sl.level = (int16_t) (lv - j);
		bslots[s] = sl;
	}
	for (int i = 0; i < nk; i++)
	{
		bslots[q->nslots + i].type = def0.keytypes[i];
		bslots[q->nslots + i].level = 0;
		bslots[q->nslots + i].col = (int16_t) i;
	}
	bops[0] = q->ops[j];
	bops[0].keys = bkeys;
	ops_at[0] = jo;
	for (int k = j + 1; k < q->nops; k++)
	{
		bops[k - j] = q->ops[k];
		ops_at[k - j] = W.perm[k];
	}
	B = *q;
	B.srckind = TM_SRC_RESULT;
	B.relid = 0;
	B.rtindex = 0;
	B.subplan = 0;
	B.src_result = ridx;
	B.nsrccols = nk + nv;
	B.src_attnos = NULL;
	B.nslots = q->nslots + nk;
	B.slots = bslots;
	B.nops = q->nops - j;
	B.ops = bops;
	B.est_source_rows = (double) H->pend_n;

	/* the held rows' definition as a result */
	if (!swplan_init(c))
		goto out;
	memcpy(rtypes, def0.keytypes, sizeof(TmType) * nk);
	if (nv > 0)
		memcpy(rtypes + nk, def0.payloadtypes, sizeof(TmType) * nv);
	c->swtypes[c->nswtypes++] = rtypes;
	c->swres[ridx].ncols = nk + nv;
	c->swres[ridx].coltypes = rtypes;
	rtypes = NULL;

	/* the trial: A builds h where it has at most half the held rows */
	if (!swap_trial_run(c, p, &W, H->pend_n, nrows, input, params, paramnulls, lb, false, &declined))
		goto out;
	if (declined)
	{
		ok = finish_pending(c, h) && run_pipeline(c, p, pl, input, params, paramnulls, lb, st);
		if (ok)
		{
			st->swap = 2;
			st->swap_op = jo;
			st->swap_rows = W.sta.sink_rows;
			st->time_ms = now_ms() - t0;
		}
		goto out;
	}

	/* swapped: the held rows, as result ridx, probe h */
	R = &c->results[ridx];
	free(R->vals);
	free(R->nulls);
	memset(R, 0, sizeof(*R));
	R->made = true;
	R->ncols = nk + nv;
	R->nrows = H->pend_n;
	R->vals = H->pend_cols;
	R->nulls = H->pend_nulls;
	H->pend_cols = NULL;
	H->pend_nulls = NULL;
	H->pending = false;
	if (c->trace)
		fprintf(stderr, "themis-gpud trace: pipeline %d builds hash table %d from %lld rows, probed by %lld\n",
				p, h, (long long) W.sta.sink_rows, (long long) R->nrows);
	ok = run_pipeline(c, p, &B, NULL, params, paramnulls, lb, &stb);
	if (!ok)
		goto out;
	/* a table B builds: made from pl's source rows (tm_probe_expansion), not from the held rows */
	if (B.sink.kind == TM_SINK_HASH_BUILD && B.sink.target >= 0 && B.sink.target < c->plan->nhashtables)
		c->hts[B.sink.target].src_rows = W.sta.source_rows;
	*st = stb;
	st->source_rows = W.sta.source_rows;
	st->time_ms = now_ms() - t0;
	st->swap = 1;
	st->swap_op = jo;
	st->swap_rows = W.sta.sink_rows;
	st->prefilter_passes += W.sta.prefilter_passes;
	st->nointerp_passes += W.sta.nointerp_passes;
	st->dynamic_groups += W.sta.dynamic_groups;
	swap_run_order(&W, &stb, B.nops, ops_at, st);
	goto out;

keep:
	/* as planned */
	ok = finish_pending(c, h) && run_pipeline(c, p, pl, input, params, paramnulls, lb, st);
	if (ok)
		st->time_ms = now_ms() - t0;	/* the grouping of the held rows too */
out:
	c->trial_limit = 0;
	swap_trial_free(&W);
	free(rtypes);
	for (int i = 0; i < TM_GPU_MAX_KEYS; i++)
		free(bkeys[i]);
	return ok;
}

/* ------------------------------------------------------------------------------------------------
 * Builds put off (run_fused, tm_gpu_pool_set_swap_fuse)
 *
 * run_swapped's held rows are written (keys, payload, hashes: TPC-H Q8 on the skewed data, 19.8 M rows
 * of lineitem into 1.5 GB), copied out of the pool's top and read again by B.  Where a build's rows can
 * be estimated before they are made, that is avoided: fuse_sample counts the sink rows of a sample of
 * the build pipeline's source (pipeline_kernel's COUNT pass over windows spread over it: nothing written;
 * a large source only, unless themis.gpu_swap_fuse = count, which counts all of every source), and where
 * tm_swap_hold would hold that many rows, the pipeline is put off (HHash.fused).  The pipelines after it
 * run; when the table's probing pipeline starts, run_fused runs A, the trial build of the table from the
 * probing pipeline's rows up to the probe (as run_swapped does), and then F: the put-off pipeline's
 * source and operators, the probe of A's table with the put-off build's keys, the probing pipeline's
 * operators after the probe and its sink.  Where A has more than half the estimated rows, the put-off
 * pipeline runs as planned, then the probing one.
 *
 * The same rows meet the same expressions: F runs the put-off pipeline's operators over its whole source,
 * and its build's keys on every row that reaches them, as the planned build does; its payload is its
 * own slots (fuse_possible), read where the probing pipeline reads the table's payload.  The pipelines
 * that ran in between neither read the table nor are read by the put-off one (its table's one use is the
 * probing pipeline's probe; they come after it in the plan).  Only errors could come in another order:
 * where a later pipeline (one in between, A or F) raises one, the put-off pipeline is counted over its
 * whole source (fused_errors), so that its own error, which it would have raised first as planned, stands.
 * ------------------------------------------------------------------------------------------------
 */

/*
 * Can pipeline p's build (a swap_candidate) be put off?  Its payload columns must be its own slots, the
 * pipeline F made of it and its probing pipeline (*prober) within the slot and op limits.
 */
static bool
fuse_possible(const Ctx *c, int p, int *prober)
{
	const TmPlan *plan = c->plan;
	const TmPipeline *pl = &plan->pipelines[p];
	int			h = pl->sink.target;
	bool		src_slot = false;

	*prober = -1;
	if (c->pool->fuse_sample <= 0)
		return false;
	for (int i = 0; i < pl->sink.nvals; i++)
		if (!tm_probe_expr_is_slot(pl->sink.vals[i]) || tm_expr_code(pl->sink.vals[i])[0].a < 0 ||
			tm_expr_code(pl->sink.vals[i])[0].a >= pl->nslots)
			return false;
	for (int s = 0; s < pl->nslots; s++)
		if (pl->slots[s].level == 0)
			src_slot = true;
	for (int q = p + 1; q < plan->npipelines && *prober < 0; q++)
		for (int k = 0; k < plan->pipelines[q].nops; k++)
			if (plan->pipelines[q].ops[k].kind == TM_OP_PROBE && plan->pipelines[q].ops[k].ht == h)
				*prober = q;
	return src_slot && *prober >= 0 &&
		pl->nops + plan->pipelines[*prober].nops <= TM_PROBE_ORDER_MAX_OPS &&
		pl->nslots + plan->pipelines[*prober].nslots <= TM_GPU_MAX_SLOTS;
}

/* pipeline p's input, where its source is one */
static const TmGpuTable *
pipeline_input(const Ctx *c, int p, const TmGpuTable *inputs, int ninputs)
{
	const TmPipeline *pl = &c->plan->pipelines[p];

	if ((pl->srckind == TM_SRC_TABLE || pl->srckind == TM_SRC_SUBPLAN) && inputs != NULL && p < ninputs)
		return &inputs[p];
	return NULL;
}

/*
 * Pipeline p's build (swap_candidate: c->defer_probe_rows set) put off, if fuse_possible and a count of
 * its sink rows over its source, or a sample of it, says it has rows that tm_swap_hold would hold: *fused,
 * and *st its figures so far (swap 3).  False where the count of its whole source failed (its error is
 * the one it raises as planned), or the execution was canceled or a CUDA call failed.
 */
static bool
fuse_sample(Ctx *c, int p, const TmPipeline *pl, const TmGpuTable *input, const TmValue *params,
			const bool *paramnulls, int lb, TmGpuPipelineStats *st, bool *fused)
{
	HHash	   *H = &c->hts[pl->sink.target];
	size_t		used0 = c->pool->used;
	double		t0 = now_ms();
	TmGpuPipelineStats sts;
	int64_t		nrows;
	int			prober;
	long long	n;
	bool		ok;
	bool		whole;

	*fused = false;
	c->sample_ms = 0;
	if (!fuse_possible(c, p, &prober))
		return true;
	if (pl->srckind == TM_SRC_RESULT)
		nrows = c->results[pl->src_result].nrows;
	else if (input != NULL)
		nrows = input->nrows;
	else
		return true;
	if (nrows <= 0 || nrows >= INT32_MAX)
		return true;
	/*
	 * The source rows counted over.  themis.gpu_swap_fuse = count (pool->fuse_sample INT64_MAX): all of
	 * them.  sample: a 16th of a source of over twice pool->fuse_sample rows, at least that many, in
	 * windows spread over it (sink_hash_build).  A smaller source is not put off: its count would cost
	 * about what its build does (counted whole, every such build of the uniform TPC-H Q3, Q5 and Q8 made
	 * them 17-21% slower), and where its build has too many rows, run_swapped holds them.
	 */
	if (c->pool->fuse_sample == INT64_MAX)
		c->sample_rows = nrows;
	else if (nrows / 2 <= c->pool->fuse_sample)
		return true;
	else
		c->sample_rows = nrows / 16 > c->pool->fuse_sample ? nrows / 16 : c->pool->fuse_sample;
	whole = c->sample_rows >= nrows;
	c->sample_n = -1;
	c->sample_src = 0;
	memset(&sts, 0, sizeof(sts));
	ok = run_pipeline(c, p, pl, input, params, paramnulls, lb, &sts);
	c->sample_rows = 0;
	c->pool->used = used0;
	c->sample_ms = now_ms() - t0;
	if (!ok && (whole || c->rc == TM_GPU_ERR_CANCELED || c->rc == TM_GPU_ERR_CUDA))
		return false;
	if (!ok)
	{
		/*
		 * A sample's error (or no room for its bits): its row need not be the first one that raises, so
		 * the pipeline is not put off and raises as planned, its count's time with it
		 */
		clear_failure(c);
		return true;
	}
	if (c->sample_n <= 0 || c->sample_src <= 0)
		return true;
	n = (long long) ((double) c->sample_n * ((double) nrows / (double) c->sample_src));
	if (!tm_swap_hold(n, pl->est_rows, c->pool->swap_rows, c->defer_probe_rows) || tm_swap_trial_limit(n) < 1 ||
		tm_swap_hopeless(n, c->pool->swap_rows, c->defer_probe_rows, c->defer_probe_bare))
		return true;
	H->fused = true;
	H->fuse_pipe = p;
	H->pend_n = n;				/* (probe_order: the estimate) */
	H->fuse_ms = now_ms() - t0;
	*fused = true;
	memset(st, 0, sizeof(*st));
	st->time_ms = H->fuse_ms;
	st->swap = 3;
	st->swap_op = prober;
	st->swap_rows = n;
	st->join_algo = TM_GPU_JOIN_PIPELINED;
	st->join_op = -1;
	if (c->trace)
		fprintf(stderr, "themis-gpud trace: pipeline %d put off: %lld build rows of %lld source rows counted, "
				"about %lld in all\n", p, c->sample_n, (long long) c->sample_src, n);
	return true;
}

/*
 * The put-off build of hash table h, run as planned (its figures into stats, with its count's time; the
 * time of the run added to *ms)
 */
static bool
unfuse(Ctx *c, int h, const TmGpuTable *inputs, int ninputs, const TmValue *params, const bool *paramnulls,
	   int lb, TmGpuPipelineStats *stats, double *ms)
{
	HHash	   *H = &c->hts[h];
	int			fp = H->fuse_pipe;
	TmGpuPipelineStats st;
	int			p0 = c->pipeline;
	double		t0 = now_ms();

	H->fused = false;
	H->pend_n = 0;
	memset(&st, 0, sizeof(st));
	if (!run_pipeline(c, fp, &c->plan->pipelines[fp], pipeline_input(c, fp, inputs, ninputs), params, paramnulls,
					  lb, &st))
		return false;
	st.time_ms += H->fuse_ms;
	if (stats != NULL)
		stats[fp] = st;
	c->pipeline = p0;
	*ms += now_ms() - t0;
	return true;
}

/*
 * Pipeline fp, put off, and its table h (as the plan defines it, not built) counted over its whole source
 * (nothing written; the pool as it was after): true where it raised an expression error of its own, which
 * then is the execution's failure; else (none, or the count failed otherwise) the first failure stands
 */
static bool
fused_error(Ctx *c, int fp, int h, const TmGpuTable *inputs, int ninputs, const TmValue *params,
			const bool *paramnulls, int lb)
{
	int			rc = c->rc;
	int			p0 = c->pipeline;
	TmGpuFailure f0;
	char	   *msg = NULL;
	TmGpuPipelineStats st;
	bool		built = c->hts[h].built;
	TmHashTable def;
	size_t		used0;
	bool		ok;
	bool		own;

	memset(&f0, 0, sizeof(f0));
	if (c->fail != NULL)
		f0 = *c->fail;
	if (c->err != NULL && c->errlen > 0 && (msg = strdup(c->err)) == NULL)
		return false;
	clear_failure(c);
	memset(&st, 0, sizeof(st));
	used0 = c->pool->used;
	c->hts[h].built = false;
	def = c->plan->hashtables[h];
	if (c->plan == &c->swplan)
		c->swhts[h] = c->plan0->hashtables[h];
	c->sample_rows = INT64_MAX;
	ok = run_pipeline(c, fp, &c->plan->pipelines[fp], pipeline_input(c, fp, inputs, ninputs), params, paramnulls,
					  lb, &st);
	c->sample_rows = 0;
	c->pool->used = used0;
	c->hts[h].built = built;
	if (c->plan == &c->swplan)
		c->swhts[h] = def;
	own = !ok && c->rc == TM_GPU_ERR_EXPR;
	if (!own)
	{
		/* none of its own (or the count could not run): the first failure stands */
		clear_failure(c);
		c->rc = rc;
		c->pipeline = p0;
		if (c->fail != NULL)
			*c->fail = f0;
		if (msg != NULL)
			snprintf(c->err, (size_t) c->errlen, "%s", msg);
	}
	free(msg);
	return own;
}

/*
 * A pipeline failed on an expression error while builds were put off: each put-off pipeline before the
 * failed one, which as planned would have run before it, is counted over its whole source, in the plan's
 * order, and the first error of their own is the execution's (else the failure stands)
 */
static void
fused_errors(Ctx *c, const TmGpuTable *inputs, int ninputs, const TmValue *params, const bool *paramnulls, int lb)
{
	int			failed = c->fail != NULL && c->fail->pipeline >= 0 ? c->fail->pipeline : c->pipeline;

	if (c->rc != TM_GPU_ERR_EXPR)
		return;
	for (int fp = 0; fp < failed; fp++)
		for (int h = 0; h < c->plan->nhashtables; h++)
			if (c->hts[h].fused && c->hts[h].fuse_pipe == fp)
			{
				if (fused_error(c, fp, h, inputs, ninputs, params, paramnulls, lb))
					return;
			}
}

/* a copy of e with each slot number moved up by off */
static TmExpr *
expr_shift_slots(Ctx *c, const TmExpr *e, int off)
{
	TmExpr	   *x = (TmExpr *) xmalloc0(c, (size_t) e->total_size);
	TmInstr    *code;

	if (x == NULL)
		return NULL;
	memcpy(x, e, (size_t) e->total_size);
	code = (TmInstr *) ((char *) x + x->instr_off);
	for (int i = 0; i < x->ninstr; i++)
		if (code[i].op == TMI_PUSH_SLOT)
			code[i].a += off;
	return x;
}

/*
 * Pipeline pl (number p) probes, with its op jo (INNER), hash table h, whose build pipeline bp (number fp)
 * was put off.  A as in run_swapped, against the estimate of h's rows; where A builds h, F (over bp's source,
 * into pl's sink): bp's ops, the probe of h with bp's build keys, q's ops after the probe.  Slots: q's
 * first (A's payload at level bp->nops + 1, h's payload the bp slot it is, later ops' levels moved past
 * bp's ops and the probe), then bp's (ns on: their expressions moved by ns).  Where A declines, bp runs as
 * planned, then pl.
 */
static bool
run_fused(Ctx *c, int p, const TmPipeline *pl, int jo, const TmGpuTable *inputs, int ninputs,
		  const TmValue *params, const bool *paramnulls, int lb, TmGpuPipelineStats *stats, TmGpuPipelineStats *st)
{
	int			h = pl->ops[jo].ht;
	HHash	   *H = &c->hts[h];
	int			fp = H->fuse_pipe;
	const TmPipeline *bp = &c->plan->pipelines[fp];
	const TmGpuTable *input = pipeline_input(c, p, inputs, ninputs);
	const TmGpuTable *binput = pipeline_input(c, fp, inputs, ninputs);
	int			ns = pl->nslots;
	int			nb = bp->nops;
	double		t0 = now_ms();
	int64_t		nrows;
	SwapTrial	W;
	const TmPipeline *q;
	int			j;
	int			b0 = -1;
	TmSlot		fslots[TM_GPU_MAX_SLOTS];
	TmOp		fops[TM_GPU_MAX_OPS];
	int			ops_at[TM_GPU_MAX_OPS];
	TmExpr	   *shifted[TM_GPU_MAX_OPS * (TM_GPU_MAX_KEYS + 1) + TM_GPU_MAX_KEYS];
	TmExpr	  **fkeys = NULL;
	int			nshift = 0;
	int			nfkeys = 0;
	TmPipeline	F;
	TmGpuPipelineStats stf;
	double		unfused_ms = 0;	/* (the put-off pipelines run as planned: their own figures) */
	bool		declined;
	bool		ok = false;

	memset(&W, 0, sizeof(W));
	memset(shifted, 0, sizeof(shifted));
	c->pipeline = p;

	/* the other held or put-off tables that pl probes: as planned */
	for (int k = 0; k < pl->nops; k++)
	{
		int			t = pl->ops[k].ht;

		if (k == jo || pl->ops[k].kind != TM_OP_PROBE || t < 0 || t >= c->plan->nhashtables)
			continue;
		if (c->hts[t].pending && !finish_pending(c, t))
			return false;
		if (c->hts[t].fused && !unfuse(c, t, inputs, ninputs, params, paramnulls, lb, stats, &unfused_ms))
			return false;
	}

	/* pl as it would run, h counted as built */
	if (!check_as_built(c, pl, input, H))
		return false;
	nrows = pl->srckind == TM_SRC_RESULT ? c->results[pl->src_result].nrows : input->nrows;
	for (int s = 0; s < bp->nslots && b0 < 0; s++)
		if (bp->slots[s].level == 0)
			b0 = s;
	if (pl->nops > TM_PROBE_ORDER_MAX_OPS || c->nswtypes + 1 > TM_GPU_MAX_SLOTS || nrows >= INT32_MAX ||
		pipeline_has_empty_probe(c, pl) || b0 < 0 || ns + bp->nslots > TM_GPU_MAX_SLOTS ||
		nb + pl->nops > TM_GPU_MAX_OPS || bp->sink.nkeys != pl->ops[jo].nkeys)
		goto keep;
	if (!swap_trial_init(c, pl, jo, nrows, &W))
	{
		if (c->rc != TM_GPU_OK)
			goto out;
		goto keep;
	}
	q = W.q;
	j = W.j;

	/* F's slots: q's (as above), then bp's */
	for (int s = 0; s < ns; s++)
	{
		TmSlot		sl = q->slots[s];
		int			lv = sl.level;

		if (lv >= 0 && lv <= j)
		{
			if (W.paycol[s] >= 0)
			{
				sl.level = (int16_t) (nb + 1);
				sl.col = (int16_t) W.paycol[s];
			}
			else
				sl = bp->slots[b0];		/* (read by none of F's expressions) */
		}
		else if (lv == j + 1)
		{
			/* h's payload column: the slot of bp that its build wrote there */
			int			t;

			if (sl.col < 0 || sl.col >= bp->sink.nvals)
				goto keep;
			t = tm_expr_code(bp->sink.vals[sl.col])[0].a;
			if (bp->slots[t].type.kind != sl.type.kind || bp->slots[t].type.scale != sl.type.scale)
				goto keep;
			sl = bp->slots[t];
		}
		else if (lv > j + 1)
			sl.level = (int16_t) (lv - (j + 1) + nb + 1);
		fslots[s] = sl;
	}
	for (int t = 0; t < bp->nslots; t++)
		fslots[ns + t] = bp->slots[t];

	/* F's ops: bp's (their expressions over bp's slots, moved by ns), the probe, q's after it */
	for (int k = 0; k < nb; k++)
		nfkeys += bp->ops[k].nkeys;
	fkeys = (TmExpr **) xmalloc0(c, sizeof(TmExpr *) * Max1(nfkeys + bp->sink.nkeys));
	if (fkeys == NULL)
		goto out;
	nfkeys = 0;
	for (int k = 0; k < nb; k++)
	{
		fops[k] = bp->ops[k];
		fops[k].keys = fkeys + nfkeys;
		for (int i = 0; i < bp->ops[k].nkeys; i++)
		{
			if ((fkeys[nfkeys] = expr_shift_slots(c, bp->ops[k].keys[i], ns)) == NULL)
				goto out;
			shifted[nshift++] = fkeys[nfkeys++];
		}
		if (bp->ops[k].qual != NULL)
		{
			if ((fops[k].qual = expr_shift_slots(c, bp->ops[k].qual, ns)) == NULL)
				goto out;
			shifted[nshift++] = fops[k].qual;
		}
		ops_at[k] = -1;
	}
	fops[nb] = q->ops[j];
	fops[nb].keys = fkeys + nfkeys;
	for (int i = 0; i < bp->sink.nkeys; i++)
	{
		if ((fkeys[nfkeys] = expr_shift_slots(c, bp->sink.keys[i], ns)) == NULL)
			goto out;
		shifted[nshift++] = fkeys[nfkeys++];
	}
	ops_at[nb] = jo;
	for (int k = j + 1; k < q->nops; k++)
	{
		fops[nb + k - j] = q->ops[k];
		ops_at[nb + k - j] = W.perm[k];
	}
	F = *q;
	F.srckind = bp->srckind;
	F.relid = bp->relid;
	F.rtindex = bp->rtindex;
	F.src_result = bp->src_result;
	F.subplan = bp->subplan;
	F.nsrccols = bp->nsrccols;
	F.src_attnos = bp->src_attnos;
	F.source_label = bp->source_label;
	F.est_source_rows = bp->est_source_rows;
	F.nslots = ns + bp->nslots;
	F.slots = fslots;
	F.nops = nb + q->nops - j;
	F.ops = fops;

	/*
	 * The trial: A builds h where it has at most half the estimated rows, and some (F over an empty h would
	 * read no row, and so not run bp's operators, which as planned run over all of bp's rows).  h stays put
	 * off till F is done (fused_errors).
	 */
	if (!swap_trial_run(c, p, &W, H->pend_n, nrows, input, params, paramnulls, lb, true, &declined))
		goto out;
	if (declined)
	{
		ok = unfuse(c, h, inputs, ninputs, params, paramnulls, lb, stats, &unfused_ms) &&
			run_pipeline(c, p, pl, input, params, paramnulls, lb, st);
		if (ok)
		{
			st->swap = 2;
			st->swap_op = jo;
			st->swap_rows = W.sta.sink_rows;
			st->time_ms = now_ms() - t0 - unfused_ms;
		}
		goto out;
	}

	/* F */
	if (c->trace)
		fprintf(stderr, "themis-gpud trace: pipeline %d builds hash table %d from %lld rows, probed by pipeline "
				"%d's (about %lld)\n", p, h, (long long) W.sta.sink_rows, fp, (long long) H->pend_n);
	memset(&stf, 0, sizeof(stf));
	ok = run_pipeline(c, p, &F, binput, params, paramnulls, lb, &stf);
	if (!ok)
	{
		if (c->fail != NULL && c->rc == TM_GPU_ERR_EXPR)
			c->fail->row = -1;		/* (a row of bp's source, not of pl's) */
		goto out;
	}
	H->fused = false;
	if (F.sink.kind == TM_SINK_HASH_BUILD && F.sink.target >= 0 && F.sink.target < c->plan->nhashtables)
		c->hts[F.sink.target].src_rows = W.sta.source_rows;
	if (stats != NULL)
	{
		TmGpuPipelineStats *sb = &stats[fp];

		/* the put-off pipeline: its source read by F, nothing built; the partitioned join of its probe */
		sb->source_rows = stf.source_rows;
		sb->sink_rows = 0;
		sb->out_rows = 0;
		if (stf.join_algo != TM_GPU_JOIN_PIPELINED && stf.join_op >= 0 && stf.join_op < nb)
		{
			sb->join_algo = stf.join_algo;
			sb->join_op = stf.join_op;
			sb->join_rows = stf.join_rows;
			sb->join_ms = stf.join_ms;
		}
	}
	*st = stf;
	st->source_rows = W.sta.source_rows;
	st->time_ms = now_ms() - t0 - unfused_ms;
	st->swap = 4;
	st->swap_op = jo;
	st->swap_rows = W.sta.sink_rows;
	st->prefilter_passes += W.sta.prefilter_passes;
	st->nointerp_passes += W.sta.nointerp_passes;
	st->dynamic_groups += W.sta.dynamic_groups;
	swap_run_order(&W, &stf, F.nops, ops_at, st);
	if (st->join_op < 0)
		st->join_algo = TM_GPU_JOIN_PIPELINED;	/* (bp's probe, above) */
	H->pend_n = 0;
	goto out;

keep:
	/* as planned */
	ok = unfuse(c, h, inputs, ninputs, params, paramnulls, lb, stats, &unfused_ms) &&
		run_pipeline(c, p, pl, input, params, paramnulls, lb, st);
	if (ok)
		st->time_ms = now_ms() - t0 - unfused_ms;
out:
	c->trial_limit = 0;
	swap_trial_free(&W);
	for (int i = 0; i < nshift; i++)
		free(shifted[i]);
	free(fkeys);
	return ok;
}

static bool
execute_plan(Ctx *c, const TmGpuTable *inputs, int ninputs, const TmValue *params, const bool *paramnulls,
			 TmGpuTable *out, TmGpuPipelineStats *stats)
{
	const TmPlan *plan = c->plan;	/* (run_swapped may point c->plan at a copy: the same pipelines) */
	int			lb = c->lb;

	CK(cudaSetDevice(c->pool->dev));
	c->dflags = dalloc<DFlags>(c, 1);
	if (c->dflags == NULL)
		return false;

	for (int p = 0; p < plan->npipelines; p++)
	{
		const TmPipeline *pl = &plan->pipelines[p];
		const TmGpuTable *input = NULL;
		TmGpuPipelineStats st;
		int			jf = pending_probe(c, pl, true);
		int			jo = pending_probe(c, pl, false);
		bool		ok;

		if ((pl->srckind == TM_SRC_TABLE || pl->srckind == TM_SRC_SUBPLAN) && inputs != NULL && p < ninputs)
			input = &inputs[p];
		if (jf >= 0)
			ok = run_fused(c, p, pl, jf, inputs, ninputs, params, paramnulls, lb, stats, &st);
		else if (jo >= 0)
			ok = run_swapped(c, p, pl, jo, input, params, paramnulls, lb, &st);
		else
		{
			bool		fused = false;

			c->defer_build = swap_candidate(c, p, inputs, ninputs);
			c->sample_ms = 0;
			ok = !c->defer_build || fuse_sample(c, p, pl, input, params, paramnulls, lb, &st, &fused);
			if (ok && !fused)
			{
				ok = run_pipeline(c, p, pl, input, params, paramnulls, lb, &st);
				st.time_ms += c->sample_ms;		/* (a count that did not put it off) */
			}
			c->defer_build = false;
		}
		if (!ok)
		{
			fused_errors(c, inputs, ninputs, params, paramnulls, lb);
			return false;
		}
		if (stats != NULL)
			stats[p] = st;
	}
	for (int h = 0; h < plan->nhashtables; h++)
		if (c->hts[h].fused)
			return fail(c, TM_GPU_ERR_BAD_PLAN, "hash table %d: its build was put off and never run", h);
	c->pipeline = -1;
	c->empty_source = false;
	if (!topn_cut(c))
		return false;
	trace_step(c, "top-N cut", (long long) c->pool->topn_in);
	if (!output_table(c, out))
		return false;
	trace_step(c, "output", (long long) out->nrows);
	return true;
}

extern "C" int
tm_gpu_execute(TmGpuPool *pool, const TmPlan *plan, const TmGpuTable *inputs, int ninputs,
			   const TmValue *params, const bool *paramnulls,
			   TmGpuTable *out, TmGpuPipelineStats *stats, TmGpuFailure *failure,
			   char *err, int errlen)
{
	Ctx			ctx;
	Ctx		   *c = &ctx;

	memset(&ctx, 0, sizeof(ctx));
	c->err = err;
	c->errlen = errlen;
	c->pipeline = -1;
	c->fail = failure;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (failure != NULL)
	{
		failure->pipeline = -1;
		failure->status = 0;
		failure->row = -1;
	}
	if (pool == NULL || plan == NULL || out == NULL)
	{
		fail(c, TM_GPU_ERR_BAD_PLAN, "tm_gpu_execute: no pool, plan or output");
		return c->rc;
	}
	if (plan->output_result < 0 || plan->output_result >= plan->nresults || plan->npipelines < 0)
	{
		fail(c, TM_GPU_ERR_BAD_PLAN, "plan has an invalid output result %d", plan->output_result);
		return c->rc;
	}
	if (plan->nparams > 0 && params == NULL)
	{
		fail(c, TM_GPU_ERR_BAD_PLAN, "plan has %d parameters, none given", plan->nparams);
		return c->rc;
	}
	c->pool = pool;
	c->stream = pool->stream;
	c->plan = plan;
	c->plan0 = plan;
	c->lb = pool->lb;
	if (c->lb == TM_GPU_LB_NIFS_AWS && !pool->coop)
		c->lb = TM_GPU_LB_NIFS;	/* waiting warps need every block resident: only with cooperative launch */
	pool->used = 0;
	pool->hi = pool->size;
	pool->peak = 0;
	pool->topn_in = -1;
	/*
	 * more results: the partitioned join's probe side (join_partitioned), and one for each hash table
	 * whose held build rows probe it instead (run_swapped)
	 */
	c->pj_res = plan->nresults;
	c->nres_alloc = plan->nresults + 1 + plan->nhashtables;
	c->results = (HResult *) xmalloc0(c, sizeof(HResult) * (size_t) c->nres_alloc);
	c->hts = (HHash *) xmalloc0(c, sizeof(HHash) * Max1(plan->nhashtables));

	if (c->results != NULL && c->hts != NULL && !check_canceled(c))
	{
		TmGpuTable	out0 = *out;

		(void) execute_plan(c, inputs, ninputs, params, paramnulls, out, stats);
		/* canceled after the last pass: the result is dropped all the same */
		if (c->rc == TM_GPU_OK && check_canceled(c))
		{
			tm_gpu_table_free(out);
			*out = out0;
		}
	}

	if (c->rc != TM_GPU_OK)
	{
		/* let queued work finish before the pool is reused; clear a non-sticky error */
		(void) cudaStreamSynchronize(pool->stream);
		(void) cudaGetLastError();
	}
	if (c->results != NULL)
		for (int i = 0; i < c->nres_alloc; i++)
		{
			free(c->results[i].vals);
			free(c->results[i].nulls);
		}
	free(c->results);
	if (c->hts != NULL)
		for (int i = 0; i < plan->nhashtables; i++)
		{
			free(c->hts[i].cols);
			free(c->hts[i].paynulls);
			free(c->hts[i].pend_cols);
			free(c->hts[i].pend_nulls);
		}
	free(c->hts);
	free(c->swhts);
	free(c->swres);
	for (int i = 0; i < c->nswtypes; i++)
		free(c->swtypes[i]);
	return c->rc;
}

extern "C" int
tm_gpu_pool_create(int dev, size_t bytes, TmGpuPool **poolp, char *err, int errlen)
{
	Ctx			ctx;
	Ctx		   *c = &ctx;
	TmGpuPool  *pool;
	cudaError_t e;

	memset(&ctx, 0, sizeof(ctx));
	c->err = err;
	c->errlen = errlen;
	c->pipeline = -1;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	*poolp = NULL;
	if (bytes == 0)
	{
		fail(c, TM_GPU_ERR_BAD_PLAN, "tm_gpu_pool_create: size 0");
		return c->rc;
	}
	pool = (TmGpuPool *) xmalloc0(c, sizeof(TmGpuPool));
	if (pool == NULL)
		return c->rc;
	pool->dev = dev;
	pool->size = bytes;
	pool->hi = bytes;
	pool->swap_rows = TM_GPU_SWAP_ROWS_DEFAULT;
	pool->fuse_sample = 0;
	if ((e = cudaSetDevice(dev)) != cudaSuccess)
		fail_cuda(c, "cudaSetDevice", e);
	else if ((e = cudaDeviceGetAttribute(&pool->nsm, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
			 (e = cudaDeviceGetAttribute(&pool->coop, cudaDevAttrCooperativeLaunch, dev)) != cudaSuccess ||
			 (e = cudaDeviceGetAttribute(&pool->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess ||
			 (e = cudaDeviceGetAttribute(&pool->l2_bytes, cudaDevAttrL2CacheSize, dev)) != cudaSuccess)
		fail_cuda(c, "cudaDeviceGetAttribute", e);
	/*
	 * pipeline_kernel's thread-private sums take it over the default 48 KB (one value for every launch;
	 * with its static shared memory, where the device allows it: else there are none)
	 */
	else if (pool->smem_optin >= PIPE_SMEM_MAX + PIPE_SMEM_STATIC_MAX &&
			 ((e = cudaFuncSetAttribute(pipeline_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
										PIPE_SMEM_MAX)) != cudaSuccess ||
			  (e = cudaFuncSetAttribute(pipeline_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
										PIPE_SMEM_MAX)) != cudaSuccess))
		fail_cuda(c, "cudaFuncSetAttribute (pipeline_kernel)", e);
	else if ((e = cudaMalloc((void **) &pool->base, bytes)) != cudaSuccess)
		fail(c, (e == cudaErrorMemoryAllocation) ? TM_GPU_ERR_NOMEM : TM_GPU_ERR_CUDA,
			 "cudaMalloc of %zu bytes: %s (%s)", bytes, cudaGetErrorString(e), cudaGetErrorName(e));
	else if ((e = cudaStreamCreateWithFlags(&pool->stream, cudaStreamNonBlocking)) != cudaSuccess)
		fail_cuda(c, "cudaStreamCreateWithFlags", e);
	else if ((e = cudaHostAlloc((void **) &pool->cancel, sizeof(int),
								cudaHostAllocMapped | cudaHostAllocPortable)) != cudaSuccess)
	{
		pool->cancel = NULL;
		fail_cuda(c, "cudaHostAlloc (cancel word)", e);
	}
	else if ((e = cudaHostGetDevicePointer((void **) &pool->cancel_dev, (void *) pool->cancel, 0)) != cudaSuccess)
		fail_cuda(c, "cudaHostGetDevicePointer (cancel word)", e);
	else
		*pool->cancel = 0;
	if (c->rc != TM_GPU_OK)
	{
		if (pool->cancel != NULL)
			(void) cudaFreeHost((void *) pool->cancel);
		if (pool->stream != NULL)
			(void) cudaStreamDestroy(pool->stream);
		if (pool->base != NULL)
			(void) cudaFree(pool->base);
		(void) cudaGetLastError();
		free(pool);
		return c->rc;
	}
	if (pool->nsm < 1)
		pool->nsm = 1;
	pool->thread_sums = pool->smem_optin >= PIPE_SMEM_MAX + PIPE_SMEM_STATIC_MAX;
	*poolp = pool;
	return TM_GPU_OK;
}

extern "C" int
tm_gpu_reserve_local_memory(size_t *bytes, char *err, int errlen)
{
	cudaFuncAttributes a;
	size_t		need = 0,
				cur = 0;
	cudaError_t e;

	*bytes = 0;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if ((e = cudaFuncGetAttributes(&a, pipeline_kernel<false>)) != cudaSuccess)
		goto fail;
	need = a.localSizeBytes;
	if ((e = cudaFuncGetAttributes(&a, pipeline_kernel<true>)) != cudaSuccess)
		goto fail;
	if (a.localSizeBytes > need)
		need = a.localSizeBytes;
	if ((e = cudaFuncGetAttributes(&a, nifs_kernel)) != cudaSuccess)
		goto fail;
	if (a.localSizeBytes > need)
		need = a.localSizeBytes;
	if ((e = cudaDeviceGetLimit(&cur, cudaLimitStackSize)) != cudaSuccess)
		goto fail;
	/* the limit is per thread; setting it makes the driver allocate it for every resident thread now */
	if (need > cur && (e = cudaDeviceSetLimit(cudaLimitStackSize, need)) != cudaSuccess)
		goto fail;
	*bytes = need > cur ? need : cur;
	return TM_GPU_OK;
fail:
	set_msg(err, errlen, "local memory of the pipeline kernels (%zu bytes a thread): %s (%s)", need,
			cudaGetErrorString(e), cudaGetErrorName(e));
	(void) cudaGetLastError();
	return e == cudaErrorMemoryAllocation ? TM_GPU_ERR_NOMEM : TM_GPU_ERR_CUDA;
}

extern "C" int
tm_gpu_pool_destroy(TmGpuPool *pool, char *err, int errlen)
{
	int			rc = TM_GPU_OK;
	cudaError_t e;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (pool == NULL)
		return TM_GPU_OK;
	if ((e = cudaSetDevice(pool->dev)) == cudaSuccess)
	{
		(void) cudaStreamSynchronize(pool->stream);
		if ((e = cudaStreamDestroy(pool->stream)) == cudaSuccess &&
			(e = cudaFree(pool->base)) == cudaSuccess)
			e = cudaFreeHost((void *) pool->cancel);
	}
	if (e != cudaSuccess)
	{
		set_msg(err, errlen, "tm_gpu_pool_destroy: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
		(void) cudaGetLastError();
		rc = TM_GPU_ERR_CUDA;
	}
	free(pool);
	return rc;
}

extern "C" size_t
tm_gpu_pool_size(const TmGpuPool *pool)
{
	return pool ? pool->size : 0;
}

extern "C" size_t
tm_gpu_pool_peak(const TmGpuPool *pool)
{
	return pool ? pool->peak : 0;
}

extern "C" int
tm_gpu_pool_device(const TmGpuPool *pool)
{
	return pool ? pool->dev : -1;
}

extern "C" void *
tm_gpu_pool_stream(const TmGpuPool *pool)
{
	return pool ? (void *) pool->stream : NULL;
}

extern "C" void
tm_gpu_pool_set_load_balance(TmGpuPool *pool, int mode)
{
	if (pool != NULL && (mode == TM_GPU_LB_NONE || mode == TM_GPU_LB_NIFS || mode == TM_GPU_LB_NIFS_AWS ||
						 mode == TM_GPU_LB_AUTO))
		pool->lb = mode;
}

extern "C" int
tm_gpu_pool_get_load_balance(const TmGpuPool *pool)
{
	return pool ? pool->lb : TM_GPU_LB_NONE;
}

extern "C" void
tm_gpu_pool_set_join_algorithm(TmGpuPool *pool, int algo)
{
	if (pool != NULL && algo >= TM_GPU_JOIN_AUTO && algo <= TM_GPU_JOIN_PIPELINED)
		pool->join_algo = algo;
}

extern "C" int
tm_gpu_pool_get_join_algorithm(const TmGpuPool *pool)
{
	return pool != NULL ? pool->join_algo : TM_GPU_JOIN_AUTO;
}

extern "C" void
tm_gpu_pool_set_fast_paths(TmGpuPool *pool, int on)
{
	if (pool != NULL)
		pool->no_fast_paths = !on;
}

extern "C" void
tm_gpu_pool_set_private_global(TmGpuPool *pool, int on)
{
	if (pool != NULL)
		pool->private_global = on != 0;
}

extern "C" void
tm_gpu_pool_set_group_wagg(TmGpuPool *pool, int on)
{
	if (pool != NULL)
		pool->group_wagg = on != 0;
}

extern "C" void
tm_gpu_pool_set_jit(TmGpuPool *pool, int mode)
{
	if (pool != NULL)
		pool->jit = mode < 0 ? 0 : mode > 2 ? 2 : mode;
}

/*
 * The source tm_jit_source writes for pipeline p of plan, whose source columns have the layouts fmts
 * (ncols; TmKind or FMT_VALUE): laid out on the host alone (no device, no pool, no parameters, hash
 * tables not built: the probes' descriptors get addresses never read), so that the sources of the
 * generated kernels can be tested on a machine without a GPU.
 */
extern "C" bool
tm_gpu_jit_source(const TmPlan *plan, int p, const int *fmts, int ncols, char **src, char *why, size_t whylen)
{
	TmGpuPool	pool;
	Ctx			c;
	Img			im;
	DCol		cols[TM_GPU_MAX_SLOTS];
	char		err[256];
	const TmPipeline *pl;
	size_t		off;
	bool		ok;

	*src = NULL;
	if (p < 0 || p >= plan->npipelines || ncols < 0 || ncols > TM_GPU_MAX_SLOTS)
		return snprintf(why, whylen, "no such pipeline"), false;
	pl = &plan->pipelines[p];
	memset(&pool, 0, sizeof(pool));
	memset(&c, 0, sizeof(c));
	memset(cols, 0, sizeof(cols));
	c.pool = &pool;
	c.plan = c.plan0 = plan;
	c.err = err;
	c.errlen = (int) sizeof(err);
	c.rc = TM_GPU_OK;
	c.hts = (HHash *) calloc((size_t) Max1(plan->nhashtables), sizeof(HHash));
	if (c.hts == NULL)
		return snprintf(why, whylen, "out of host memory"), false;
	for (int h = 0; h < plan->nhashtables; h++)
		c.hts[h].d = (const DJoin *) (uintptr_t) (0x200000 * (h + 1));	/* never read */
	for (int i = 0; i < ncols; i++)
	{
		cols[i].fmt = fmts[i];
		cols[i].data = (const char *) (uintptr_t) (0x100000 * (i + 1));	/* never read */
	}
	memset(&im, 0, sizeof(im));
	img_pipeline(&c, &im, pl, cols, ncols, 1000, NULL, NULL);
	if (c.rc != TM_GPU_OK || (im.h = (char *) calloc(1, im.len)) == NULL)
	{
		free(c.hts);
		return snprintf(why, whylen, "%s", c.rc != TM_GPU_OK ? err : "out of host memory"), false;
	}
	im.len = 0;
	im.d = (uintptr_t) 0x7f0000000000ULL;
	off = img_pipeline(&c, &im, pl, cols, ncols, 1000, NULL, NULL);
	ok = c.rc == TM_GPU_OK && tm_jit_source((const DPipe *) (im.h + off), img_host, &im, src, why, whylen);
	if (c.rc != TM_GPU_OK)
		snprintf(why, whylen, "%s", err);
	free(im.h);
	free(c.hts);
	return ok;
}

extern "C" void
tm_gpu_pool_set_nointerp(TmGpuPool *pool, int on)
{
	if (pool != NULL)
		pool->interp_always = on == 0;
}

extern "C" void
tm_gpu_pool_set_dynamic_rows(TmGpuPool *pool, int on)
{
	if (pool != NULL)
		pool->static_rows = !on;
}

extern "C" void
tm_gpu_pool_set_probe_order(TmGpuPool *pool, int on)
{
	if (pool != NULL)
		pool->plan_probe_order = !on;
}

extern "C" void
tm_gpu_pool_set_swap_rows(TmGpuPool *pool, int64_t rows)
{
	if (pool != NULL)
		pool->swap_rows = rows;
}

extern "C" void
tm_gpu_pool_set_swap_fuse(TmGpuPool *pool, int64_t sample_rows)
{
	if (pool != NULL)
		pool->fuse_sample = sample_rows > 0 ? sample_rows : 0;
}

extern "C" void
tm_gpu_pool_set_topn(TmGpuPool *pool, int64_t n, int col, int desc, int nulls_first)
{
	if (pool == NULL)
		return;
	pool->topn_n = n > 0 && col >= 0 ? n : 0;
	pool->topn_col = col;
	pool->topn_desc = desc != 0;
	pool->topn_nulls_first = nulls_first != 0;
}

extern "C" int64_t
tm_gpu_pool_topn_rows_in(const TmGpuPool *pool)
{
	return pool != NULL ? pool->topn_in : -1;
}

extern "C" void
tm_gpu_set_pjoin_l2_factor(double f)
{
	g_pjoin_l2_factor = f > 0 ? f : PJOIN_L2_FACTOR_DEFAULT;
}

extern "C" double
tm_gpu_pjoin_l2_factor(void)
{
	return g_pjoin_l2_factor;
}

extern "C" void
tm_gpu_pool_cancel(TmGpuPool *pool)
{
	/* a plain store: callable from any thread and from a signal handler */
	if (pool != NULL && pool->cancel != NULL)
		__atomic_store_n(pool->cancel, 1, __ATOMIC_RELEASE);
}

extern "C" void
tm_gpu_pool_clear_cancel(TmGpuPool *pool)
{
	if (pool != NULL && pool->cancel != NULL)
		__atomic_store_n(pool->cancel, 0, __ATOMIC_RELEASE);
}

extern "C" int
tm_gpu_pool_canceled(const TmGpuPool *pool)
{
	return pool != NULL && pool->cancel != NULL && __atomic_load_n(pool->cancel, __ATOMIC_ACQUIRE) != 0;
}

extern "C" void
tm_gpu_set_lb_max_warps(int n)
{
	g_lb_max_warps = n > 0 ? n : 0;
}

extern "C" void
tm_gpu_set_max_blocks(int n)
{
	g_max_blocks = n > 0 ? n : 0;
}

extern "C" void
tm_gpu_table_free(TmGpuTable *t)
{
	if (t == NULL)
		return;
	if (t->cols != NULL)
		for (int i = 0; i < t->ncols; i++)
		{
			free(t->cols[i].data);
			free(t->cols[i].offsets);
			free(t->cols[i].nulls);
		}
	free(t->cols);
	memset(t, 0, sizeof(*t));
}
