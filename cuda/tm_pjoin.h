/*
 * tm_pjoin.h — C interface of the partitioned hash join of two device-resident relations
 * (cuda/tm_pjoin.cu; the design is described at the top of that file).
 *
 * An equi-join of R (the build side) and S (the probe side, the outer side of LEFT / SEMI / ANTI):
 *
 *   INNER   one output row per pair (r, s) with equal keys
 *   SEMI    one output row per s that has at least one r with an equal key (S columns only)
 *   ANTI    one output row per s that has none (S columns only; S rows with a NULL key included)
 *   LEFT    the INNER rows, plus one row per s without a match, whose R columns are NULL
 *
 * A key is 1 to TM_PJOIN_MAX_KEYS columns, each 4 or 8 bytes, compared bitwise (integers, dates,
 * timestamps, scaled numerics: not floats, whose -0 / NaN would need PostgreSQL's equality); R's and S's
 * key columns have the same widths, column by column.  A row with a NULL in any key column never
 * matches.  Payload columns: fixed width (4 or 8 bytes) or text (int64 offsets[nrows + 1] + bytes, as
 * in tm_gpu_exec.h), each with an optional NULL byte array (1 = NULL).  All column pointers are device
 * memory of the current CUDA device, read in place and never written; they must be aligned to their
 * width (offsets to 8) and stay unchanged until tm_pjoin returns.
 *
 * Algorithms (TmPjoinOptions.algo):
 *   TM_PJOIN_GFTR        radix-partition both sides (keys together with the first payload column),
 *                        join each co-partition in shared memory, write the matches in clustered order,
 *                        then transform every further payload column (partition it the same way) and
 *                        gather from the transformed copy (Gather-From-Transformed-Relations).  When a
 *                        side's only fixed-width payload columns are its first two, both 4 bytes wide,
 *                        the second without a NULL array, both go through the partitioning packed as one
 *                        8-byte value instead (no transform, no gather for the second)
 *   TM_PJOIN_GFUR        the same partitioned join, but further payload columns are gathered from the
 *                        original (untransformed) columns by original row id (the unoptimized variant)
 *   TM_PJOIN_PIPELINED   a global hash table built on R, probed by S row by row, payloads gathered
 *                        directly by the probe (no partitioning)
 * All three support every join kind.
 *
 * Output (TmPjoinResult): device columns, nrows rows (the arrays may hold more: capacity):
 *   keys[]  S's key columns (opts.emit_keys; R's are equal on matched rows), with a NULL array only
 *           where S rows with a NULL key are output (ANTI / LEFT);
 *   r[]     R's payload columns in order (INNER and LEFT only; none for SEMI / ANTI), with a NULL array
 *           where R's column has one or the join is LEFT (unmatched rows: NULL, value 0 / empty);
 *   s[]     S's payload columns in order, NULL arrays where S's column has one.
 * Order of the rows: not specified (tests compare multisets).  What it is: per batch (below) first the
 * inner matches, in runs that each come from one co-partition (a run: the matches of up to 2048 S rows
 * of one work unit, in S's partitioned order; runs in no particular order), then the unmatched (LEFT /
 * ANTI) or matched (SEMI) S rows of that batch, in runs of 2048 in partitioned order; last, the S rows
 * with a NULL key (ANTI / LEFT).  The pipelined variant: per batch, runs of up to 2048 S rows in source
 * order.
 *
 * Device memory, from exactly one of (first that is set):
 *   - opts.workspace / workspace_bytes: a caller's region; nothing else is allocated on the device (no
 *     cudaMalloc).  The result lives in it: valid until the caller reuses the region.
 *     tm_pjoin_workspace_size says how much an unbatched run needs.
 *   - opts.alloc / opts.free / alloc_ctx: called for every device allocation (a daemon's pool).  free
 *     may be called while queued work on opts.stream still uses the memory: the allocator must hand it
 *     out again only to work ordered after that on the same stream (a pool used only on that stream
 *     does so).  The result's arrays come from alloc too: tm_pjoin_result_free gives them back.
 *   - neither: cudaMallocAsync / cudaFreeAsync on opts.stream; tm_pjoin_result_free frees the result.
 * Batches: when an allocation fails (or, with a workspace, when the predicted need exceeds it), the join
 * is redone over S in row chunks and, if that is not enough, over R in hash batches (each batch joins
 * the R rows and S rows whose key hash has the batch's top bits), each batch appending its rows.  Only
 * the result itself must fit whole.  opts.r_batches / s_chunks force a batching (tests).
 *
 * All work is queued on opts.stream (NULL: the legacy default stream); tm_pjoin returns after it has
 * completed (it reads counts back several times).  Every function is extern "C", never throws, checks
 * every CUDA call, and reports failure as a negative TmPjoinRc plus a message in err[errlen].
 *
 * Limits: nrows < 2^31 per relation, at most 2^32 - 1 output rows of one batch, nkeys 1..4,
 * npayload 0..16 per side.
 */
#ifndef THEMIS_TM_PJOIN_H
#define THEMIS_TM_PJOIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define TM_PJOIN_MAX_KEYS		4
#define TM_PJOIN_MAX_PAYLOAD	16

typedef enum TmPjoinAlgo
{
	TM_PJOIN_GFTR = 0,
	TM_PJOIN_GFUR = 1,
	TM_PJOIN_PIPELINED = 2
} TmPjoinAlgo;

typedef enum TmPjoinKind
{
	TM_PJOIN_INNER = 0,
	TM_PJOIN_SEMI = 1,
	TM_PJOIN_ANTI = 2,
	TM_PJOIN_LEFT = 3
} TmPjoinKind;

/* the same numbers as TmGpuRc (tm_gpu_exec.h) */
typedef enum TmPjoinRc
{
	TM_PJOIN_OK = 0,
	TM_PJOIN_ERR_CUDA = -1,			/* a CUDA call failed */
	TM_PJOIN_ERR_NOMEM = -2,		/* not even the batched join fits the device memory given */
	TM_PJOIN_ERR_HOST_NOMEM = -3,
	TM_PJOIN_ERR_UNSUPPORTED = -4,	/* beyond the limits above */
	TM_PJOIN_ERR_BAD_ARG = -5		/* malformed relations or options (a bug of the caller) */
} TmPjoinRc;

/* an input column (device memory) */
typedef struct TmPjoinColumn
{
	int32_t		width;			/* 4 or 8: fixed width; 0: text (payloads only) */
	const void *data;			/* nrows values; text: the bytes (may be NULL if all are empty) */
	const int64_t *offsets;		/* text: nrows + 1 offsets into data */
	const uint8_t *nulls;		/* NULL, or nrows bytes, 1 = NULL */
} TmPjoinColumn;

typedef struct TmPjoinRelation
{
	int64_t		nrows;
	int32_t		nkeys;
	TmPjoinColumn keys[TM_PJOIN_MAX_KEYS];
	int32_t		npayload;
	TmPjoinColumn payload[TM_PJOIN_MAX_PAYLOAD];
} TmPjoinRelation;

/* an output column (device memory; text: offsets has nrows + 1 entries) */
typedef struct TmPjoinOutColumn
{
	int32_t		width;			/* 4, 8, or 0 for text */
	void	   *data;
	int64_t    *offsets;
	uint8_t    *nulls;			/* NULL: no row is NULL */
} TmPjoinOutColumn;

typedef struct TmPjoinResult
{
	int64_t		nrows;
	int64_t		capacity;		/* rows the fixed-width arrays have room for (>= nrows) */
	int32_t		nkeys;
	TmPjoinOutColumn keys[TM_PJOIN_MAX_KEYS];
	int32_t		nr;
	TmPjoinOutColumn r[TM_PJOIN_MAX_PAYLOAD];
	int32_t		ns;
	TmPjoinOutColumn s[TM_PJOIN_MAX_PAYLOAD];
	/* how the arrays were allocated (for tm_pjoin_result_free) */
	int32_t		mem_mode;		/* 0 cudaMallocAsync, 1 workspace, 2 alloc callbacks */
} TmPjoinResult;

typedef void *(*TmPjoinAllocFn) (void *ctx, size_t bytes);	/* NULL when out of memory */
typedef void (*TmPjoinFreeFn) (void *ctx, void *ptr);

typedef struct TmPjoinOptions
{
	int32_t		algo;			/* TmPjoinAlgo */
	int32_t		kind;			/* TmPjoinKind */
	int32_t		emit_keys;		/* 1: output S's key columns */
	void	   *stream;			/* cudaStream_t, NULL: the default stream */

	void	   *workspace;		/* device memory, see above */
	size_t		workspace_bytes;
	TmPjoinAllocFn alloc;
	TmPjoinFreeFn free;
	void	   *alloc_ctx;

	int64_t		out_rows_hint;	/* expected output rows (0: |S|, exact for key / foreign-key joins) */

	/* tuning and tests; 0 = automatic */
	int32_t		r_batches;		/* force this many R hash batches (a power of two <= 256) */
	int32_t		s_chunks;		/* force this many S row chunks */
	int32_t		part_bits;		/* force 2^part_bits partitions (1..16) */
	int32_t		unit_r_rows;	/* R rows per work unit (<= the shared-memory capacity) */
	int32_t		unit_s_rows;	/* S rows per work unit */
} TmPjoinOptions;

/* phases of TmPjoinStats.phase_ms */
enum
{
	TM_PJOIN_PH_PART_R = 0,		/* R: select, hash, partition (pipelined: build the hash table) */
	TM_PJOIN_PH_PART_S,			/* S: select, hash, partition (pipelined: nothing, the probe selects) */
	TM_PJOIN_PH_JOIN,			/* work units, shared-memory build + probe, unmatched rows (pipelined:
								 * the probe with its direct gathers) */
	TM_PJOIN_PH_GATHER,			/* gathers by row id after the join (GFUR, text, wide keys) */
	TM_PJOIN_PH_OTHER,			/* NULL-key rows, growing the result, ... */
	TM_PJOIN_NPHASES
};

typedef struct TmPjoinStats
{
	double		total_ms;		/* first to last event on the stream (host waits included) */
	double		phase_ms[TM_PJOIN_NPHASES];
	double		payload_ms_r[TM_PJOIN_MAX_PAYLOAD];	/* GFTR: transform + gather of R's column j */
	double		payload_ms_s[TM_PJOIN_MAX_PAYLOAD];
	double		bytes_moved;	/* estimate of the device memory traffic (reads + writes) */
	size_t		peak_bytes;		/* most device memory live at once (result included) */
	size_t		workspace_peak;	/* with a workspace: the most of it in use, fragmentation included */
	int64_t		out_rows;
	int64_t		work_units;		/* summed over batches */
	int32_t		part_bits;		/* of the last batch */
	int32_t		r_batches;
	int32_t		s_chunks;
	int32_t		attempts;		/* runs started (more than 1: an allocation failed, batched again) */
	int32_t		grows;			/* times the result was enlarged (more rows than the hint) */
	int32_t		first_payload_carried;	/* bit 0: R's first payload went through the partitioning, bit 1: S's;
										 * bit 2: R's second payload went with it (packed, GFTR), bit 3: S's */
} TmPjoinStats;

/*
 * Join R and S into *out (see above).  stats may be NULL (then no events are recorded).
 * Returns TM_PJOIN_OK or a negative TmPjoinRc with err set; *out is untouched on failure.
 */
extern int	tm_pjoin(const TmPjoinRelation *r, const TmPjoinRelation *s, const TmPjoinOptions *opts,
					 TmPjoinResult *out, TmPjoinStats *stats, char *err, int errlen);

/*
 * Bytes of workspace that tm_pjoin needs for these inputs and options without batching (or with the
 * batching forced by opts), assuming out_rows output rows (<= 0: opts->out_rows_hint, else |S|);
 * fragmentation included.  Reads text offsets' ends on the device (to size text results); queues
 * nothing else.  Returns TM_PJOIN_OK with *bytes set, or a negative TmPjoinRc.
 */
extern int	tm_pjoin_workspace_size(const TmPjoinRelation *r, const TmPjoinRelation *s,
									const TmPjoinOptions *opts, int64_t out_rows, size_t *bytes,
									char *err, int errlen);

/* Give back the arrays of a result made with these options (workspace: nothing to do) and zero it. */
extern void tm_pjoin_result_free(TmPjoinResult *res, const TmPjoinOptions *opts);

#ifdef __cplusplus
}
#endif

#endif							/* THEMIS_TM_PJOIN_H */
