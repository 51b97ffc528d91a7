/*
 * tm_pipeline_dev.cuh — the device code of the pipeline kernel (pipeline_kernel) and what it runs: the
 * device descriptors (DPipe, DRun, ...), expressions, probes, group tables, aggregate updates and sinks.
 * Included by tm_gpu_exec.cu, whose host code lays out the descriptors and launches the kernels (the
 * executor's design: the comment at its top).  It is a header of its own so that NVRTC can compile the
 * same code at run time (no host code, no CUB / Thrust / C++ library: test/unit/test_nvrtc.c checks it),
 * the ground for kernels generated per pipeline (bench/jit/constshape.cu measured what they would gain).
 */
#ifndef THEMIS_TM_PIPELINE_DEV_CUH
#define THEMIS_TM_PIPELINE_DEV_CUH

#include <cooperative_groups.h>

#include "themis/tm_types.h"
#include "themis/tm_expr.h"
#include "themis/tm_ir.h"
#include "themis/tm_expr_eval.h"
#include "themis/tm_hash.h"
#include "themis/tm_hashtable.h"
#include "tm_gpu_exec.h"

#define TPB					256			/* threads per block */
#define SAMPLE_WINDOWS		16			/* sink_hash_build: a sample of a source, in so many windows */
/*
 * Blocks per multiprocessor that the registers of pipeline_kernel / nifs_kernel must allow
 * (__launch_bounds__): 2 caps them at 128 per thread.  Left to itself the GPU host's nvcc gave them 160
 * and 168 registers: one block of 8 warps per multiprocessor, 12.5% occupancy, the schedulers idle 86%
 * of the cycles waiting on memory (ncu, skewbench on an H200).  With 2: 1.1-1.8x faster on skewbench's
 * cases in every mode (TPC-H SF 10: unchanged, 0.98-1.09x per query); 3 and 4 (80 and 64 registers)
 * spill kilobytes and are no faster (bench/skew/profile.sh sweeps them).
 */
#ifndef PL_MIN_BLOCKS
#define PL_MIN_BLOCKS		2
#endif
#define PRE_MAX_OPS			4			/* leading filters prefilter_kernel runs at most */
#define PRE_UNROLL			4			/* words (32 rows each) a warp of prefilter_kernel takes at a time */
#ifndef LB_MIN_BLOCKS
#define LB_MIN_BLOCKS		2
#endif
#define POOL_ALIGN			256			/* alignment of pool allocations */
#define AGG_INITIAL_CAP		65536		/* groups of the first try of an AGG table */
#define DISTINCT_INITIAL_CAP	262144	/* (group, value) pairs of the first try of a DISTINCT set */
#define FMT_VALUE			100			/* device column of TmValues (results, build rows) */
#define FMT_PARTS			101			/* a TmValue split in two arrays (the partitioned join's output):
										 * bytes 0..w0-1 in data, bytes 8..8+w1-1 in offsets; DCol.pad =
										 * w0 | w1 << 8 | (sign-extend a 4-byte part 0) << 16 */

/* internal status of a thread's walk: the group table or a DISTINCT set overflowed, the pass is redone */
#define ST_ABORT			0x1000
/* internal status of a thread's walk: the execution was canceled (tm_gpu_pool_cancel), the thread leaves */
#define ST_CANCEL			0x1001

/*
 * A kernel reads the pool's cancel word (mapped pinned host memory: each read crosses PCIe, a microsecond
 * or two) at most once every CANCEL_POLL_CYCLES of its SM clock per thread (NIFS: per warp), about 35 ms:
 * the reads stay rare however many threads run, and a kernel shorter than that never reads it (the host
 * checks the word before and after every pass).
 */
#define CANCEL_POLL_CYCLES	(1LL << 26)

/* passes of a pipeline kernel */
#define PASS_COUNT			1
#define PASS_RUN			2

/* AGG directory words (group table and DISTINCT sets) */
#define GDIR_EMPTY			(~0ULL)
#define GDIR_BUSY			(~0ULL - 1)
#define GDIR_OVERFLOW		(~0ULL - 2)

/* join build directory words */
#define JDIR_EMPTY			0xFFFFFFFFu

/* how an aggregate is updated */
enum
{
	AM_COUNT = 1,				/* count(*), count(x): atomicAdd */
	AM_SUM_I64,					/* sum(int2/int4) -> int8: atomicAdd (wraps, like int4_sum) */
	AM_SUM_I192,				/* sum(int8 / numeric) -> numeric: 192-bit atomic add */
	AM_MINMAX_INT,				/* min/max of integer-like kinds: atomicMin / atomicMax */
	AM_LOCKED					/* anything else: per-group lock, tm_sum_add / tm_values_cmp */
};

/* ------------------------------------------------------------------------------------------------
 * Device descriptors (built on the host, uploaded to the pool)
 * ------------------------------------------------------------------------------------------------
 */

/* a readable column: fmt = TmKind of the layout in tm_gpu_exec.h, or FMT_VALUE */
struct DCol
{
	int32_t		fmt;
	int32_t		pad;
	const char *data;
	const int64_t *offsets;
	const uint8_t *nulls;
};

/* slot `slot` takes column `col` (of the source, or of the probed table's payload) */
struct DSlotRef
{
	int16_t		slot;
	int16_t		col;
};

/* directory entry of a built join table: count 0 = empty */
struct DEntry
{
	uint64_t	hash;
	int32_t		start;
	int32_t		count;
};

/* a built join table: rows with equal keys are contiguous */
struct DJoin
{
	int32_t		nkeys;
	int32_t		npay;
	uint64_t	mask;
	const TmType *keytypes;
	const TmValue *const *keys;		/* keys[k][row] */
	const DEntry *entries;
	const TmValue *const *pay;		/* pay[c][row] */
	const uint8_t *const *paynulls;
};

/*
 * A qual that is an AND / OR tree of plain tests: comparisons (slot or constant against slot or constant,
 * no IS DISTINCT FROM) and slots IN (or NOT IN) a list of constants: `l_shipdate >= $1 AND l_shipdate <
 * $2`, `l_receiptdate > l_commitdate`, `l_shipmode IN ('MAIL', 'SHIP')`, TPC-H Q19's join filter (an OR
 * of three ANDs of eight tests).  Decoded once from the bytecode (fast_qual_compile) and evaluated
 * without the interpreter (op_qual, fq_eval).
 *
 * Two-valued: a test is true iff its operands are not NULL and it holds (an IN list: TMI_IN as the
 * interpreter runs it, a binary search of the sorted constants; not found in a list that held a NULL is
 * NULL), else false.  For a tree of AND and OR (no NOT), that is exact for a qual: map false and NULL to
 * false, true to true; the map is monotone on false < NULL < true, where AND is min and OR is max, so it
 * commutes with them and the tree is true in two-valued logic iff it is true in three-valued logic.  No
 * test raises an error, so the order of evaluation does not matter either; the bytecode's short-circuit
 * jumps are kept (prog[], tgt[]: a jump peeks the top of the stack).
 *
 * prog[i] < FQ_MAX pushes test prog[i] (c[]); FQ_AND / FQ_OR pop two, push one; FQ_JF / FQ_JT jump to
 * tgt[i] if the top is false / true (tgt[i] == nprog: the end, the top is the result).  The stack is the
 * bits of a word (FQ_DEPTH).
 */
#define FQ_MAX				32
#define FQ_PROG_MAX			96
#define FQ_DEPTH			32
#define FQ_AND				0xfc
#define FQ_OR				0xfd
#define FQ_JF				0xfe
#define FQ_JT				0xff
#define FQ_PRED_IN			0xff	/* DFastCmp.pred of a list test: l IN constants lscale ..
									 * lscale + rscale - 1 of the qual, pad = the TMF_IN_* bits */
#define FQ_PRED_LIKE		0xfe	/* DFastCmp.pred of l LIKE rk, a pattern of literals and '%' only
									 * (fl_match), pad = FQ_LIKE_* bits */
#define FQ_LIKE_NEGATE		0x0001	/* NOT LIKE */
#define FQ_LIKE_RTRIM		0x0002	/* l is a bpchar taken as text: without its trailing blanks */

struct DFastCmp
{
	int16_t		l;				/* slot of the left operand, or -1: lk */
	int16_t		r;				/* slot of the right operand, or -1: rk */
	uint8_t		cls;			/* TmCmpClass */
	uint8_t		pred;			/* TmCmpPred, or FQ_PRED_IN, FQ_PRED_LIKE */
	int16_t		pad;			/* FQ_PRED_IN: TMF_IN_*; FQ_PRED_LIKE: FQ_LIKE_* */
	int32_t		lscale;			/* numeric scales (TMI_CMP's b, c); FQ_PRED_IN: first constant, count */
	int32_t		rscale;
	TmValue		lk;				/* constants (text: device pointers into the expression's pool) */
	TmValue		rk;
};

struct DFastQual
{
	int32_t		n;				/* tests in c[] */
	int32_t		nprog;
	int32_t		partial;		/* prog is the leading conjuncts of a top-level AND only: rows that pass
								 * them go on to the interpreter (the whole qual), rows that fail them are
								 * rejected */
	int32_t		pad;
	uint8_t		prog[FQ_PROG_MAX];
	uint8_t		tgt[FQ_PROG_MAX];
	DFastCmp	c[FQ_MAX];
};

/* do len bytes at a and b agree? */
__host__ __device__ __forceinline__ bool
fl_eq(const char *a, const char *b, int32_t len)
{
	for (int32_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * text t LIKE pattern p, where p has no '_' and no escape: literals between '%'s.  The first literal is
 * anchored at the start unless p starts with '%', the last at the end unless p ends with '%', and each
 * literal in between is taken at its leftmost occurrence after the one before (leftmost is never worse:
 * a later occurrence leaves less text for the rest).  Bytes: for valid UTF8 (as PostgreSQL stores it)
 * a literal can only occur at character boundaries, so that is LIKE under UTF8 too.
 */
__host__ __device__ __forceinline__ bool
fl_match(const char *t, int32_t tlen, const char *p, int32_t plen)
{
	int32_t		ti = 0;
	int32_t		pi = 0;
	bool		anchored = true;

	for (;;)
	{
		int32_t		pe;
		int32_t		len;

		while (pi < plen && p[pi] == '%')
		{
			pi++;
			anchored = false;
		}
		if (pi >= plen)
			return !anchored || ti == tlen;
		for (pe = pi; pe < plen && p[pe] != '%'; pe++)
			;
		len = pe - pi;
		if (anchored)
		{
			if (tlen - ti < len || !fl_eq(t + ti, p + pi, len))
				return false;
			ti += len;
		}
		else if (pe >= plen)
		{
			/* the last literal, at the end of the text */
			return tlen - len >= ti && fl_eq(t + tlen - len, p + pi, len);
		}
		else
		{
			int32_t		at = -1;
			char		c0 = p[pi];

			for (int32_t s = ti; s + len <= tlen; s++)
				if (t[s] == c0 && fl_eq(t + s + 1, p + pi + 1, len - 1))
				{
					at = s;
					break;
				}
			if (at < 0)
				return false;
			ti = at + len;
		}
		pi = pe;
	}
}

/*
 * one test of a DFastQual on operands a and b (anull, bnull: NULL), two-valued (NULL: false); qual: the
 * expression (its IN-list constants).  A LIKE or IN test reads a only.
 */
__host__ __device__ __forceinline__ bool
fq_test_ab(const DFastCmp *f, const TmExpr *qual, const TmValue *a, bool anull, const TmValue *b, bool bnull)
{
	if (anull)
		return false;
	if (f->pred == FQ_PRED_LIKE)
	{
		int32_t		tlen = a->s.len;

		if (f->pad & FQ_LIKE_RTRIM)
			while (tlen > 0 && a->s.p[tlen - 1] == ' ')
				tlen--;
		return fl_match(a->s.p, tlen, f->rk.s.p, f->rk.s.len) != ((f->pad & FQ_LIKE_NEGATE) != 0);
	}
	if (f->pred == FQ_PRED_IN)
	{
		if (tm_in_list_find(qual, f->cls, f->lscale, f->rscale, a))
			return (f->pad & TMF_IN_NEGATE) == 0;
		return (f->pad & (TMF_IN_NEGATE | TMF_IN_HASNULL)) == TMF_IN_NEGATE;
	}
	if (bnull)
		return false;
	/* the classes fast_test_compile brings constants to: integers, numerics of one scale */
	if (f->cls == TM_CMP_INT)
		return tm_pred_holds(f->pred, a->i < b->i ? -1 : (a->i > b->i ? 1 : 0));
	if (f->cls == TM_CMP_NUMERIC && f->lscale == f->rscale)
		return tm_pred_holds(f->pred, a->n < b->n ? -1 : (a->n > b->n ? 1 : 0));
	return tm_pred_holds(f->pred, tm_cmp_class(f->cls, a, b, f->lscale, f->rscale));
}

/* one test of a DFastQual over the slots of the current row (an operand is a slot, or -1: a constant) */
__host__ __device__ __forceinline__ bool
fq_test(const DFastCmp *f, const TmExpr *qual, const TmValue *vals, const bool *nulls)
{
	return fq_test_ab(f, qual, f->l >= 0 ? &vals[f->l] : &f->lk, f->l >= 0 && nulls[f->l],
					  f->r >= 0 ? &vals[f->r] : &f->rk, f->r >= 0 && nulls[f->r]);
}

/* the tree of fq (its prefix, if partial): true iff it is true; test(p): test p of fq->c[] on the row */
template <typename Test>
__host__ __device__ __forceinline__ bool
fq_run(const DFastQual *fq, Test test)
{
	uint32_t	st = 0;			/* the stack, top in bit 0 */
	int			pc = 0;

	while (pc < fq->nprog)
	{
		int			p = fq->prog[pc];

		if (p < FQ_MAX)
			st = (st << 1) | (test(p) ? 1u : 0u);
		else if (p == FQ_AND)
			st = (st >> 1) & (~1u | st);
		else if (p == FQ_OR)
			st = (st >> 1) | (st & 1u);
		else if ((p == FQ_JF) == ((st & 1u) == 0))
		{
			pc = fq->tgt[pc];
			continue;
		}
		pc++;
	}
	return (st & 1u) != 0;
}

/* the tree of fq (its prefix, if partial) on one row: true iff the qual (the prefix) is true */
__host__ __device__ __forceinline__ bool
fq_eval(const DFastQual *fq, const TmExpr *qual, const TmValue *vals, const bool *nulls)
{
	return fq_run(fq, [&](int p) { return fq_test(&fq->c[p], qual, vals, nulls); });
}

/*
 * A test of prefilter_kernel's plain form: integer column (of kinds up to 8 bytes) or numeric column (16
 * bytes) `col` against the constant k of the same kind (a numeric at the column's scale); holds if the
 * column is not NULL and sign(value - k) + 1 is a set bit of mask (fast_test_normalize brought it there)
 */
#define PRE_MAX_TESTS		16
struct DPreTest
{
	int16_t		col;			/* srccols index */
	uint8_t		w;				/* bytes per value: 1 (bool, unsigned), 2, 4, 8 (signed), 16 (numeric) */
	uint8_t		mask;			/* bit 0: value < k passes, bit 1: value = k, bit 2: value > k */
	int32_t		pad;
	uint64_t	klo;			/* k: bits 0 .. 63 (the whole of it where w <= 8) ... */
	int64_t		khi;			/* ... and 64 .. 127.  Two words, not a tm_int128 at offset 8: nvcc's device
								 * code puts a tm_int128 member at 16 bytes whatever its typedef's alignment
								 * of 8 says (the PTX of an array of such structs has a stride of 32), so
								 * the host's image and the kernel would disagree on the layout */
};

struct DOp
{
	int32_t		kind;
	int32_t		jointype;
	int32_t		nkeys;
	int32_t		nfill;			/* PROBE: slots of its level */
	int32_t		fastx;			/* x_eval: bare slots without the interpreter */
	int32_t		pad;
	const TmExpr *const *keys;
	const TmExpr *qual;
	const DFastQual *fq;		/* qual as plain comparisons, or NULL */
	const DJoin *ht;
	const DSlotRef *fill;
};

struct DAgg
{
	int32_t		kind;			/* TmAggKind */
	int32_t		mode;			/* AM_* */
	int32_t		distinct;		/* count / sum over the distinct values of the group (DAggState.d*) */
	int32_t		fastx;			/* x_eval: bare slots without the interpreter */
	int32_t		peek;			/* AM_LOCKED min / max: rows that cannot change the state skip the lock */
	int32_t		wsum;			/* AM_LOCKED sum (floats): the lanes of a warp updating one group add
								 * their values first, one of them takes the lock */
	int32_t		wagg;			/* count, integer and numeric sums, integer min / max: the lanes of a
								 * warp updating one group combine first, one of them does the atomic */
	const TmExpr *arg;
	const TmFastArith *fa;		/* arg in the fast form (tm_fast_arith_compile), or NULL */
	const TmExpr *filter;
	const DFastQual *ffq;		/* filter as plain comparisons (whole: it raises no error), or NULL */
	TmType		argtype;
	TmType		restype;
};

/* NIFS: slot `slot` of level `level` (0: source column col; k >= 1: payload column col of op k - 1) */
struct DLRef
{
	int16_t		slot;
	int16_t		level;
	int16_t		col;
	int16_t		pad;
};

struct DPipe
{
	int64_t		nrows;
	int32_t		nslots;
	int32_t		nload;
	int32_t		nops;
	int32_t		sinkkind;
	int32_t		nkeys;
	int32_t		nvals;
	int32_t		naggs;
	int32_t		fastx;			/* x_eval: bare slots without the interpreter */
	const TmValue *init_vals;	/* nslots: parameters; other slots start NULL */
	const uint8_t *init_nulls;
	const DSlotRef *load;		/* level-0 slots */
	const DCol *srccols;
	const DOp  *ops;
	const TmExpr *const *keys;	/* HASH_BUILD / AGG keys */
	const TmType *keytypes;
	const TmExpr *const *vals;	/* HASH_BUILD payload / EMIT values */
	const DAgg *aggs;
	/* NIFS: the slots that the work on a tuple of level j reads (levels 0 .. j): lbref[lboff[j] ..
	 * lboff[j + 1]), j = 0 .. nops */
	const DLRef *lbref;
	const int32_t *lboff;
	int32_t		lb_local;		/* NIFS: a global AGG of count / int sum / int min, max (lb_agg_local) */
	int32_t		nlead;			/* pipeline_kernel: ops 0 .. nlead - 1 are FILTERs run ahead of walk_row */
	int32_t		precheck;		/* pipeline_kernel: nlead where op nlead is an INNER / SEMI probe whose
								 * keys are looked up with the leading filters, else -1 */
	int32_t		nload_lead;		/* load[0 .. nload_lead): the slots the leading filters and the
								 * pre-check read */
	int32_t		probe_first;	/* the pre-check runs before the leading filters (probe_goes_first) */
	int32_t		npre;			/* prefilter_kernel: ops 0 .. npre - 1 (leading filters) are prefq[] */
	const DFastQual *prefq[PRE_MAX_OPS];	/* their trees of tests over source columns (DFastCmp.l / r:
											 * a srccols index, or -1: a constant) */
	int32_t		npretest;		/* > 0: prefq[] are conjunctions of the column-against-constant tests
								 * pretest[] (prefilter_kernel's plain form), 0: they are not */
	const DPreTest *pretest;
	int32_t		nointerp;		/* host only: pipeline_kernel<true> runs it (img_pipeline) */
	int32_t		pad2;
};

/*
 * running state of one aggregate: per group g, words w[3g .. 3g+2], seen[g], lock[g]; a DISTINCT
 * aggregate also has its set of (group, value) pairs: a directory of pair numbers (GDIR_* words) and
 * per pair its hash, group and value
 */
struct DAggState
{
	unsigned long long *w;
	unsigned int *seen;
	unsigned int *lock;
	unsigned long long *ddir;	/* DISTINCT: directory (dmask + 1 words), NULL if not DISTINCT */
	uint64_t	dmask;
	long long	dcap;			/* pairs there is room for */
	unsigned long long *dn;		/* pairs taken (one counter) */
	uint64_t   *dhash;			/* per pair */
	long long  *dg;
	TmValue    *dvals;
};

/* error and progress words of a pass */
struct DFlags
{
	int			err;			/* TmStatus of the error of the lowest source row, 0 = none (the host
								 * decodes it from errinv after the pass) */
	int			stop;			/* set on error or overflow: threads stop at their next row (after an
								 * error, pipeline_kernel goes on with rows below the error's) */
	int			overflow;		/* AGG group table full */
	int			doverflow;		/* a DISTINCT set full */
	long long	errrow;			/* its source row (-1: none) */
	unsigned long long errinv;	/* ~(((row + 1) << 8) | status): atomicMax keeps the lowest row's error */
	unsigned long long sinkrows;
	unsigned long long wgroups;	/* pipeline_kernel's compacted loop with DRun.dyn: groups of source rows
								 * taken, past each warp's first (warp_next_group) */
	/* NIFS / AWS (nifs_kernel) */
	int			nidle;			/* AWS: warps registered idle (less those claimed by a donor) */
	unsigned int wlmax;			/* AWS: largest workload posted (the busiest warp, roughly) */
	unsigned long long cursor;	/* RUN pass of EMIT / HASH_BUILD: output rows taken */
	unsigned long long lb_iters;	/* warp iterations */
	unsigned long long lb_idle;		/* idle lanes over all iterations */
	unsigned long long lb_handoffs;
	unsigned long long lb_busy_sum;	/* busy cycles of all warps */
	unsigned long long lb_busy_max;	/* of the busiest warp */
};

/* per-pass arguments (a kernel parameter) */
struct DRun
{
	int			pass;
	long long  *counts;			/* COUNT: sink rows per source row */
	const long long *offs;		/* RUN (EMIT / HASH_BUILD): position of each source row's first row
								 * (NULL with NIFS: rows take positions from DFlags.cursor) */
	long long	base;			/* EMIT: rows already in the result */
	long long	limit;			/* NIFS, RUN (EMIT / HASH_BUILD): rows the COUNT pass counted; with claim:
								 * the room for rows */
	int			claim;			/* pipeline_kernel, RUN (HASH_BUILD) without a COUNT pass (offs NULL):
								 * each sink row takes its position from DFlags.cursor (claim_pos) */
	TmValue *const *outvals;	/* EMIT: nvals columns; HASH_BUILD: nkeys + nvals columns */
	uint8_t *const *outnulls;
	uint64_t   *outhash;		/* HASH_BUILD */
	/* AGG */
	unsigned long long *gdir;
	uint64_t	gmask;
	long long	gcap;
	unsigned long long *ngroups;
	uint64_t   *ghash;
	TmValue *const *gkeys;
	uint8_t *const *gknulls;
	const DAggState *astate;
	int			priv_k;			/* pipeline_kernel, grouped AGG: groups 0 .. priv_k - 1 keep block-private
								 * states in shared memory (0: none; see "Block-private aggregation") */
	int			priv_na;		/* their aggregates (the sink's naggs) */
	int			priv_t;			/* groups 0 .. priv_t - 1 (<= priv_k): each thread keeps 64-bit partial sums of
								 * their sum aggregates in shared memory (0: none; "Thread-private sums") */
	int			priv_ns;		/* the sink's sum aggregates (AM_SUM_I64, AM_SUM_I192) where priv_t > 0 */
	int			memo;			/* pipeline_kernel, grouped AGG: a block-private memo of groups found */
	const uint32_t *prebits;	/* pipeline_kernel: prefilter_kernel's bits (bit l of word w: row 32 w + l
								 * passes ops 0 .. npre - 1), or NULL */
	int			dyn;			/* pipeline_kernel's compacted loop: warps take groups of rows from
								 * DFlags.wgroups as they finish (0: each its fixed share) */
	DFlags	   *flags;
	const volatile int *cancel;	/* the pool's cancel word (device view of host memory; set by run_pass) */
};

/*
 * TM_PIPELINE_DESC_ONLY: the descriptors alone, for host code that lays them out or reads them
 * (cuda/tm_jit.cu) without compiling the device code again
 */
#ifndef TM_PIPELINE_DESC_ONLY

/* ------------------------------------------------------------------------------------------------
 * Device helpers
 * ------------------------------------------------------------------------------------------------
 */

/* the interpreter, instantiated once (it is large) */
__device__ __noinline__ int
d_eval(const TmExpr *e, const TmValue *slots, const bool *nulls, TmValue *res, bool *isnull)
{
	res->n = 0;
	return (int) tm_eval(e, slots, nulls, res, isnull);
}

/*
 * e over the current row: a bare slot (most join keys, payload columns, aggregate arguments: one
 * PUSH_SLOT) is its value without a call into the interpreter, which returns the slot as it is, where
 * fast (themis.gpu_fast_paths); anything else through d_eval
 */
template <bool NI = false>
__device__ __forceinline__ int
x_eval(const TmExpr *e, int fast, const TmValue *slots, const bool *nulls, TmValue *res, bool *isnull)
{
	if (NI || (fast && e->ninstr == 1))
	{
		const TmInstr *in = tm_expr_code(e);

		if (in->op == TMI_PUSH_SLOT && (!NI || e->ninstr == 1))
		{
			*res = slots[in->a];
			*isnull = nulls[in->a];
			return TM_OK;
		}
	}
	if constexpr (NI)
		return TM_ERR_INTERNAL;	/* not a bare slot: DPipe.nointerp is wrong */
	else
		return d_eval(e, slots, nulls, res, isnull);
}

/* the fast form of an arithmetic expression (TmFastArith), instantiated once */
__device__ __noinline__ int
d_fast_arith(const TmFastArith *fa, const TmValue *slots, const bool *nulls, TmValue *res, bool *isnull)
{
	return (int) tm_fast_arith_eval(fa, slots, nulls, res, isnull);
}

/* an aggregate's argument over the current row: its fast form where it has one (themis.gpu_fast_paths) */
template <bool NI = false>
__device__ __forceinline__ int
agg_arg(const DAgg *ag, const TmValue *slots, const bool *nulls, TmValue *res, bool *isnull)
{
	if (ag->fa != NULL)
		return d_fast_arith(ag->fa, slots, nulls, res, isnull);
	return x_eval<NI>(ag->arg, ag->fastx, slots, nulls, res, isnull);
}

/* fq_eval instantiated once: a FILTER's tree of tests (the kernels' code size: see img_pipeline) */
__device__ __noinline__ bool
d_fq_eval(const DFastQual *fq, const TmExpr *qual, const TmValue *vals, const bool *nulls)
{
	return fq_eval(fq, qual, vals, nulls);
}

/*
 * an aggregate's FILTER over the current row: *pass = it is true (NULL: false, as FILTER takes it).  Its
 * fast form where it has a whole one (DAgg.ffq: plain comparisons, which raise no error: TPC-H Q8's
 * n_name = 'BRAZIL'), else the expression (a bare slot: a build-side expression's column)
 */
template <bool NI = false>
__device__ __forceinline__ int
agg_filter(const DAgg *ag, const TmValue *vals, const bool *nulls, bool *pass)
{
	TmValue		v;
	bool		isnull;
	int			st;

	if (ag->ffq != NULL)
	{
		*pass = d_fq_eval(ag->ffq, ag->filter, vals, nulls);
		return TM_OK;
	}
	st = x_eval<NI>(ag->filter, ag->fastx, vals, nulls, &v, &isnull);
	*pass = st == TM_OK && !isnull && v.i != 0;
	return st;
}

__device__ __noinline__ int
d_qual(const TmExpr *e, const TmValue *slots, const bool *nulls, bool *pass)
{
	return (int) tm_eval_qual(e, slots, nulls, pass);
}

/* a FILTER's or a probe's residual qual: its fast form where it has one, else the interpreter */
template <bool NI = false>
__device__ __forceinline__ int
op_qual(const DOp *op, const TmValue *vals, const bool *nulls, bool *pass)
{
	const DFastQual *fq = op->fq;

	if constexpr (NI)
	{
		/* DPipe.nointerp: every qual has a whole fast form */
		if (fq == NULL || fq->partial)
			return TM_ERR_INTERNAL;
		*pass = fq_eval(fq, op->qual, vals, nulls);
		return TM_OK;
	}
	else
	{
		if (fq == NULL)
			return d_qual(op->qual, vals, nulls, pass);
		*pass = fq_eval(fq, op->qual, vals, nulls);
		if (*pass && fq->partial)
			return d_qual(op->qual, vals, nulls, pass);
		return TM_OK;
	}
}

/*
 * An expression error of source row `row` (-1: of no row).  PostgreSQL raises the error of the first row
 * its scan reaches, so of all errors of a pass the one of the lowest row is reported: errinv keeps it
 * (atomicMax of the complement of a key ordered by row, then status).
 */
__device__ __forceinline__ void
record_error(DFlags *f, int st, long long row)
{
	unsigned long long key = ((unsigned long long) (row + 1) << 8) | (unsigned long long) (st & 0xff);

	atomicMax(&f->errinv, ~key);
	atomicExch(&f->stop, 1);
}

/* pipeline_kernel: may the thread at `row` go on?  After an error only rows below the error's do */
__device__ __forceinline__ bool
stopped_at(const DFlags *f, long long row)
{
	unsigned long long inv;

	if (*(volatile const int *) &f->stop == 0)
		return false;
	inv = *(volatile const unsigned long long *) &f->errinv;
	if (inv == 0)
		return true;			/* an overflow: the pass is redone */
	return row + 1 > (long long) ((~inv) >> 8);
}

__device__ __forceinline__ bool
stopped(const DFlags *f)
{
	return *(volatile const int *) &f->stop != 0;
}

/* a thread's (NIFS: a warp's lane 0's) reads of the cancel word, see CANCEL_POLL_CYCLES */
struct DCancel
{
	const volatile int *word;	/* NULL: none */
	long long	at;				/* clock64 of the next read */
};

__device__ __forceinline__ void
cancel_init(DCancel *cp, const volatile int *word)
{
	cp->word = word;
	cp->at = clock64() + CANCEL_POLL_CYCLES;
}

/* has the execution been canceled?  Cheap (a clock read) except every CANCEL_POLL_CYCLES */
__device__ __forceinline__ bool
cancel_poll(DCancel *cp)
{
	long long	now;

	if (cp->word == NULL)
		return false;
	now = clock64();
	if (now < cp->at)
		return false;
	cp->at = now + CANCEL_POLL_CYCLES;
	return *cp->word != 0;
}

/* value of column c at row r */
__device__ __forceinline__ void
load_col(const DCol *c, int64_t r, TmValue *v, bool *isnull)
{
	bool		nl = c->nulls != NULL && c->nulls[r] != 0;

	*isnull = nl;
	v->n = 0;
	if (nl)
		return;
	switch (c->fmt)
	{
		case TM_K_BOOL:
			v->i = ((const uint8_t *) c->data)[r];
			break;
		case TM_K_INT2:
			v->i = ((const int16_t *) c->data)[r];
			break;
		case TM_K_INT4:
		case TM_K_DATE:
			v->i = ((const int32_t *) c->data)[r];
			break;
		case TM_K_INT8:
		case TM_K_TIMESTAMP:
			v->i = ((const int64_t *) c->data)[r];
			break;
		case TM_K_FLOAT4:
			v->f = (double) ((const float *) c->data)[r];
			break;
		case TM_K_FLOAT8:
			v->f = ((const double *) c->data)[r];
			break;
		case TM_K_NUMERIC:
			{
				const uint64_t *w = (const uint64_t *) c->data + 2 * r;

				v->n = (tm_int128) (((tm_uint128) w[1] << 64) | (tm_uint128) w[0]);
			}
			break;
		case TM_K_TEXT:
		case TM_K_BPCHAR:
			{
				int64_t		o = c->offsets[r];

				v->s.p = c->data + o;
				v->s.len = (int32_t) (c->offsets[r + 1] - o);
			}
			break;
		case FMT_VALUE:
			*v = ((const TmValue *) c->data)[r];
			break;
		case FMT_PARTS:
			{
				int			w0 = c->pad & 0xff;
				int			w1 = (c->pad >> 8) & 0xff;

				if (w0 == 8)
					v->i = ((const int64_t *) c->data)[r];
				else if (c->pad & 0x10000)
					v->i = ((const int32_t *) c->data)[r];
				else
					v->i = (int64_t) ((const uint32_t *) c->data)[r];
				if (w1 == 8)
					((int64_t *) v)[1] = ((const int64_t *) c->offsets)[r];
				else if (w1 == 4)
					((int32_t *) v)[2] = ((const int32_t *) c->offsets)[r];
			}
			break;
		default:
			break;
	}
}

/*
 * A directory word with acquire semantics (device scope): the group keys that its writer stored before
 * publishing it (__threadfence, then atomicExch) are visible after it.
 */
__device__ __forceinline__ unsigned long long
ld_acquire(const unsigned long long *p)
{
#ifdef __CUDA_ARCH__
	unsigned long long v;

	asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
#else
	return *(volatile const unsigned long long *) p;
#endif
}

/* TmValue through L2 (values written by other threads of the same kernel) */
__device__ __forceinline__ TmValue
ldcg_value(const TmValue *p)
{
	TmValue		v;
	unsigned long long w[2];

	w[0] = __ldcg((const unsigned long long *) p);
	w[1] = __ldcg((const unsigned long long *) p + 1);
	memcpy(&v, w, sizeof(v));
	return v;
}

/* keys of a join build row equal to keys[] */
__device__ __forceinline__ bool
join_keys_equal(const DJoin *ht, const TmValue *keys, int64_t row)
{
	for (int k = 0; k < ht->nkeys; k++)
		if (!tm_values_equal(&keys[k], &ht->keys[k][row], &ht->keytypes[k]))
			return false;
	return true;
}

/* [start, end) of the build rows with these (non-NULL) keys; false if none */
__device__ bool
join_lookup(const DJoin *ht, uint64_t h, const TmValue *keys, int64_t *start, int64_t *end)
{
	uint64_t	p = tm_ht_pos(h, ht->mask);

	for (;;)
	{
		DEntry		e = ht->entries[p];

		if (e.count == 0)
			return false;
		if (e.hash == h && join_keys_equal(ht, keys, e.start))
		{
			*start = e.start;
			*end = (int64_t) e.start + e.count;
			return true;
		}
		p = (p + 1) & ht->mask;
	}
}

/* ------------------------------------------------------------------------------------------------
 * The pipeline kernel: evaluation tree of each source row, depth first
 * ------------------------------------------------------------------------------------------------
 */

/* traversal state of one op */
struct OpState
{
	int64_t		r;				/* PROBE: next build row */
	int64_t		end;
	bool		found;			/* PROBE: a match passed the residual */
	bool		pending;		/* FILTER / SEMI / ANTI: the one child is still to visit */
	bool		nulldone;		/* LEFT: the NULL-extended child was visited */
};

/* slots of a probe's level from build row r, or NULLs (r < 0) */
__device__ __forceinline__ void
fill_level(const DOp *op, int64_t r, TmValue *vals, bool *nulls)
{
	for (int i = 0; i < op->nfill; i++)
	{
		int			s = op->fill[i].slot;
		int			c = op->fill[i].col;

		if (r < 0)
		{
			vals[s].n = 0;
			nulls[s] = true;
		}
		else
		{
			vals[s] = op->ht->pay[c][r];
			nulls[s] = op->ht->paynulls[c][r] != 0;
		}
	}
}

/* a probe's state before its first match: build rows [r, end) to go through */
__device__ __forceinline__ void
probe_set(OpState *o, int64_t r, int64_t end)
{
	o->r = r;
	o->end = end;
	o->found = false;
	o->nulldone = false;
	o->pending = false;
}

/* a probe's keys looked up: o->r, o->end = the build rows with those keys (none where a key is NULL) */
template <bool NI = false>
__device__ __forceinline__ int
probe_lookup(const DOp *op, OpState *o, TmValue *vals, bool *nulls)
{
	const DJoin *ht = op->ht;
	TmValue		keys[TM_GPU_MAX_KEYS];
	uint64_t	h = 0;
	bool		hasnull = false;

	for (int i = 0; i < op->nkeys; i++)
	{
		bool		isnull;
		int			st = x_eval<NI>(op->keys[i], op->fastx, vals, nulls, &keys[i], &isnull);

		if (st != TM_OK)
			return st;
		if (isnull)
		{
			hasnull = true;	/* NULL keys never match */
			break;
		}
		h = tm_hash_key(h, &keys[i], false, &ht->keytypes[i]);
	}
	probe_set(o, 0, 0);
	if (!hasnull && !join_lookup(ht, h, keys, &o->r, &o->end))
		o->r = o->end = 0;
	return TM_OK;
}

/* the rest of a probe's first visit after probe_lookup: SEMI / ANTI decide on their matches */
template <bool NI = false>
__device__ int
probe_decide(const DOp *op, OpState *o, TmValue *vals, bool *nulls, DCancel *cp)
{
	if (op->jointype == TM_JOIN_SEMI || op->jointype == TM_JOIN_ANTI)
	{
		/* one passing match decides */
		for (; o->r < o->end; o->r++)
		{
			bool		pass = true;

			if (cancel_poll(cp))
				return ST_CANCEL;
			fill_level(op, o->r, vals, nulls);
			if (op->qual != NULL)
			{
				int			st = op_qual<NI>(op, vals, nulls, &pass);

				if (st != TM_OK)
					return st;
			}
			if (pass)
			{
				o->found = true;
				break;
			}
		}
		o->pending = (op->jointype == TM_JOIN_SEMI) ? o->found : !o->found;
	}
	return TM_OK;
}

/* first visit of op: decide the filter, look the keys up */
template <bool NI = false>
__device__ int
op_enter(const DOp *op, OpState *o, TmValue *vals, bool *nulls, DCancel *cp)
{
	int			st;

	if (op->kind == TM_OP_FILTER)
	{
		bool		pass;

		st = op_qual<NI>(op, vals, nulls, &pass);
		o->pending = pass;
		return st;
	}

	/* PROBE */
	st = probe_lookup<NI>(op, o, vals, nulls);
	if (st != TM_OK)
		return st;
	return probe_decide<NI>(op, o, vals, nulls, cp);
}

/* next child of op: *down = true (its level's slots are set) or false (op is done) */
template <bool NI = false>
__device__ int
op_next(const DOp *op, OpState *o, TmValue *vals, bool *nulls, bool *down, DCancel *cp)
{
	*down = false;
	if (op->kind == TM_OP_FILTER || op->jointype == TM_JOIN_SEMI || op->jointype == TM_JOIN_ANTI)
	{
		*down = o->pending;
		o->pending = false;
		return TM_OK;
	}
	/* INNER / LEFT: every passing match */
	while (o->r < o->end)
	{
		int64_t		r = o->r++;
		bool		pass = true;

		if (op->qual != NULL && cancel_poll(cp))	/* many matches may fail the residual */
			return ST_CANCEL;
		fill_level(op, r, vals, nulls);
		if (op->qual != NULL)
		{
			int			st = op_qual<NI>(op, vals, nulls, &pass);

			if (st != TM_OK)
				return st;
		}
		if (pass)
		{
			o->found = true;
			*down = true;
			return TM_OK;
		}
	}
	if (op->jointype == TM_JOIN_LEFT && !o->found && !o->nulldone)
	{
		o->nulldone = true;
		fill_level(op, -1, vals, nulls);
		*down = true;
	}
	return TM_OK;
}

/* group g of the keys (hash h); created if new.  -1 if the table is full (overflow flagged). */
__device__ long long
group_find(const DPipe *P, const DRun &R, uint64_t h, const TmValue *keys, const bool *knulls)
{
	uint64_t	p = tm_ht_pos(h, R.gmask);

	for (;;)
	{
		unsigned long long v = ld_acquire(&R.gdir[p]);

		if (v == GDIR_EMPTY)
		{
			unsigned long long old = atomicCAS(&R.gdir[p], GDIR_EMPTY, GDIR_BUSY);

			if (old == GDIR_EMPTY)
			{
				/* this thread creates the group */
				unsigned long long g = atomicAdd(R.ngroups, 1ULL);

				if ((long long) g >= R.gcap)
				{
					atomicExch(&R.gdir[p], GDIR_OVERFLOW);
					atomicExch(&R.flags->overflow, 1);
					atomicExch(&R.flags->stop, 1);
					return -1;
				}
				R.ghash[g] = h;
				for (int k = 0; k < P->nkeys; k++)
				{
					TmValue		kv = keys[k];

					if (knulls[k])
						kv.n = 0;
					R.gkeys[k][g] = kv;
					R.gknulls[k][g] = knulls[k] ? 1 : 0;
				}
				__threadfence();
				atomicExch(&R.gdir[p], g);
				return (long long) g;
			}
			v = old;
		}
		while (v == GDIR_BUSY)
			v = ld_acquire(&R.gdir[p]);	/* its creator is writing the keys */
		if (v == GDIR_OVERFLOW)
			return -1;
		if (__ldcg((const unsigned long long *) &R.ghash[v]) == h)
		{
			bool		eq = true;

			for (int k = 0; k < P->nkeys && eq; k++)
			{
				bool		gn = __ldcg(&R.gknulls[k][v]) != 0;

				if (gn != knulls[k])
					eq = false;
				else if (!gn)
				{
					TmValue		gv = ldcg_value(&R.gkeys[k][v]);

					eq = tm_values_equal(&keys[k], &gv, &P->keytypes[k]);
				}
			}
			if (eq)
				return (long long) v;
		}
		if (stopped(R.flags) && *(volatile int *) &R.flags->overflow)
			return -1;
		p = (p + 1) & R.gmask;
	}
}

/* w[0..2] += a[0..2] as 192-bit integers; exact whatever the order of the adds */
__device__ __forceinline__ void
atomic_add192w(unsigned long long *w, unsigned long long a0, unsigned long long a1, unsigned long long a2)
{
	unsigned long long old;
	unsigned long long carry;
	unsigned long long m;
	unsigned long long hi;

	old = atomicAdd(&w[0], a0);
	carry = (old + a0 < old) ? 1 : 0;
	m = a1 + carry;
	hi = a2 + ((m < a1) ? 1 : 0);	/* a1 + carry wrapped */
	if (m != 0)
	{
		old = atomicAdd(&w[1], m);
		if (old + m < old)
			hi++;
	}
	if (hi != 0)
		atomicAdd(&w[2], hi);
}

/* w[0..2] += x as 192-bit integers (x sign-extended) */
__device__ __forceinline__ void
atomic_add192(unsigned long long *w, tm_int128 x)
{
	atomic_add192w(w, (unsigned long long) (tm_uint128) x, (unsigned long long) ((tm_uint128) x >> 64),
				   x < 0 ? ~0ULL : 0ULL);
}

/*
 * DAgg.wagg: the lanes that run an update together and update the same state (labeled by its address:
 * lanes at other aggregates or groups may run it too) combine their values in the group's first lane
 * (a tree of shuffles), which alone does the atomic: a global count, sum or integer min / max does up
 * to 32 times fewer atomics on its words (count(*) of 60 M rows on an H200: 44 -> 2 ms).  Global
 * aggregates, and grouped ones only under tm_gpu_pool_set_group_wagg (themis.gpu_group_wagg, off by
 * default): TPC-H Q1's 4 groups ran slower with it (68.8 -> 90.4 ms, before its groups were block-private),
 * their atomics spread over the groups' words; the skewed Q15's rows crowd onto 25 suppliers' words
 * (groups without block-private states: past a block's first ones, or all of them where an aggregate
 * keeps private states off).  The combination is exact (integers; sums in 192 bits)
 */
__device__ __forceinline__ cooperative_groups::coalesced_group
state_peers(const void *w)
{
	namespace cg = cooperative_groups;
	cg::coalesced_group act = cg::coalesced_threads();

	return cg::labeled_partition(act, (unsigned long long) (uintptr_t) w);
}

/* a[0..2] += (b0, b1, b2) as 192-bit integers (wrapping) */
__device__ __forceinline__ void
add192(unsigned long long a[3], unsigned long long b0, unsigned long long b1, unsigned long long b2)
{
	unsigned long long s0 = a[0] + b0;
	unsigned long long c0 = s0 < a[0] ? 1ULL : 0ULL;
	unsigned long long s1 = a[1] + b1;
	unsigned long long c1 = s1 < a[1] ? 1ULL : 0ULL;
	unsigned long long s1c = s1 + c0;

	c1 += s1c < s1 ? 1ULL : 0ULL;
	a[0] = s0;
	a[1] = s1c;
	a[2] = a[2] + b2 + c1;
}

/* the sum of the peers' 192-bit values a[0..2] into rank 0's */
__device__ __forceinline__ void
peers_add192(const cooperative_groups::coalesced_group &peers, unsigned long long a[3])
{
	unsigned int n = peers.size();
	unsigned int rank = peers.thread_rank();

	for (unsigned int off = 1; off < n; off <<= 1)
	{
		unsigned long long b0 = peers.shfl_down(a[0], off);
		unsigned long long b1 = peers.shfl_down(a[1], off);
		unsigned long long b2 = peers.shfl_down(a[2], off);

		if ((rank & (2u * off - 1u)) == 0 && rank + off < n)
			add192(a, b0, b1, b2);
	}
}

/* the sum (op 0) / min (1) / max (2) of the peers' x into rank 0's */
__device__ __forceinline__ long long
peers_reduce64(const cooperative_groups::coalesced_group &peers, long long x, int op)
{
	unsigned int n = peers.size();
	unsigned int rank = peers.thread_rank();

	for (unsigned int off = 1; off < n; off <<= 1)
	{
		long long	y = peers.shfl_down(x, off);

		if ((rank & (2u * off - 1u)) == 0 && rank + off < n)
			x = op == 0 ? (long long) ((unsigned long long) x + (unsigned long long) y) :
				op == 1 ? min(x, y) : max(x, y);
	}
	return x;
}

__device__ __forceinline__ void
mark_seen(unsigned int *seen)
{
	if (*(volatile unsigned int *) seen == 0)
		*(volatile unsigned int *) seen = 1;
}

/*
 * Add the pair (g, v) (v not NULL) to the DISTINCT set of an aggregate: 1 if this thread added it (it
 * then updates the aggregate), 0 if it was there already (added by this or another thread), -1 if the
 * set is full (overflow flagged: the pass is redone with a larger set).  Same claim / publish protocol
 * as group_find: EMPTY -> BUSY by CAS, take a pair number, write the pair, fence, publish the number.
 */
__device__ __noinline__ int
distinct_insert(const DAggState *S, const TmType *type, long long g, const TmValue *v, DFlags *flags)
{
	TmDistinctSet ds;
	uint64_t	h;
	uint64_t	p;

	memset(&ds, 0, sizeof(ds));
	ds.type = type;
	h = tm_distinct_hash(&ds, (int64_t) g, v);
	p = tm_ht_pos(h, S->dmask);
	for (;;)
	{
		unsigned long long e = ld_acquire(&S->ddir[p]);

		if (e == GDIR_EMPTY)
		{
			unsigned long long old = atomicCAS(&S->ddir[p], GDIR_EMPTY, GDIR_BUSY);

			if (old == GDIR_EMPTY)
			{
				unsigned long long i = atomicAdd(S->dn, 1ULL);

				if ((long long) i >= S->dcap)
				{
					atomicExch(&S->ddir[p], GDIR_OVERFLOW);
					atomicExch(&flags->doverflow, 1);
					atomicExch(&flags->stop, 1);
					return -1;
				}
				S->dhash[i] = h;
				S->dg[i] = g;
				S->dvals[i] = *v;
				__threadfence();
				atomicExch(&S->ddir[p], i);
				return 1;
			}
			e = old;
		}
		while (e == GDIR_BUSY)
			e = ld_acquire(&S->ddir[p]);	/* its inserter is writing the pair */
		if (e == GDIR_OVERFLOW)
			return -1;
		if (__ldcg((const unsigned long long *) &S->dhash[e]) == h && __ldcg(&S->dg[e]) == g)
		{
			TmValue		dv = ldcg_value(&S->dvals[e]);

			if (tm_values_equal(v, &dv, type))
				return 0;
		}
		if (stopped(flags) && *(volatile int *) &flags->doverflow)
			return -1;
		p = (p + 1) & S->dmask;
	}
}

/*
 * AM_LOCKED min / max: true if the group's state already has a value that v cannot beat.  seen[g] is a
 * sequence word: 0 until the group has a value, odd while the holder of the lock writes one, even (and
 * not 0) otherwise; the value is read between two reads of it, as a seqlock.  The state only moves one
 * way, so a value that a consistent snapshot beats or equals cannot change it
 */
__device__ static bool
minmax_beaten(const DAgg *ag, const TmValue *v, volatile unsigned long long *vw, volatile unsigned int *vseen)
{
	unsigned int s1 = *vseen;
	unsigned long long words[2];
	TmValue		cur;
	int			cmp;

	if (s1 == 0 || (s1 & 1u) != 0)
		return false;
	if (ag->kind == TM_AGG_ANY)
		return true;			/* the group's one value is there */
	__threadfence();
	words[0] = vw[0];
	words[1] = vw[1];
	__threadfence();
	if (*vseen != s1)
		return false;
	memcpy(&cur, words, sizeof(cur));
	cmp = tm_values_cmp(v, &cur, &ag->restype);
	return ag->kind == TM_AGG_MIN ? cmp >= 0 : cmp <= 0;
}

/* the input conversion of tm_sum_add: an AM_SUM_I192 argument as the sum's scaled integer (false: too large) */
__device__ __forceinline__ bool
sum192_input(const DAgg *ag, const TmValue *v, tm_int128 *x)
{
	if (ag->argtype.kind == TM_K_INT8)
		return !tm_num_upscale((tm_int128) v->i, ag->restype.scale, x);
	return !tm_num_upscale(v->n, ag->restype.scale - ag->argtype.scale, x);
}

/*
 * the part of agg_update after the FILTER and the argument: value v (not NULL; count(*): not read) into
 * aggregate ag of group g.  Forced inline: the kernels generated per pipeline (cuda/tm_jit.cu) call it
 * with a DAgg whose kind, mode and wagg are constants, and only that case's code remains
 */
template <bool NI = false>
__device__ __forceinline__ int
agg_apply(const DAgg *ag, const DAggState *S, long long g, TmValue v, DFlags *flags,
		  const volatile int *cancel)
{
	int			st;
	unsigned long long *w = &S->w[3 * g];

	if (ag->kind == TM_AGG_COUNT_STAR)
	{
		if (ag->wagg)
		{
			cooperative_groups::coalesced_group peers = state_peers(w);

			if (peers.thread_rank() == 0)
				atomicAdd(w, (unsigned long long) peers.size());
			return TM_OK;
		}
		atomicAdd(w, 1ULL);
		return TM_OK;
	}
	if constexpr (NI)
	{
		if (ag->distinct)
			return TM_ERR_INTERNAL;
	}
	else if (ag->distinct)
	{
		/* only the first occurrence of a value in the group is aggregated */
		int			added = distinct_insert(S, &ag->argtype, g, &v, flags);

		if (added < 0)
			return ST_ABORT;
		if (added == 0)
			return TM_OK;
	}

	switch (ag->mode)
	{
		case AM_COUNT:
			if (ag->wagg)
			{
				cooperative_groups::coalesced_group peers = state_peers(w);

				if (peers.thread_rank() == 0)
					atomicAdd(w, (unsigned long long) peers.size());
				return TM_OK;
			}
			atomicAdd(w, 1ULL);
			return TM_OK;
		case AM_SUM_I64:
			if (ag->wagg)
			{
				cooperative_groups::coalesced_group peers = state_peers(w);
				long long	x = peers_reduce64(peers, (long long) v.i, 0);

				if (peers.thread_rank() != 0)
					return TM_OK;
				v.i = x;
			}
			atomicAdd(w, (unsigned long long) v.i);
			mark_seen(&S->seen[g]);
			return TM_OK;
		case AM_SUM_I192:
			{
				tm_int128	x;

				if (!sum192_input(ag, &v, &x))
					return TM_ERR_FALLBACK;
				if (ag->wagg)
				{
					cooperative_groups::coalesced_group peers = state_peers(w);
					unsigned long long a[3];

					a[0] = (unsigned long long) (tm_uint128) x;
					a[1] = (unsigned long long) ((tm_uint128) x >> 64);
					a[2] = x < 0 ? ~0ULL : 0ULL;
					peers_add192(peers, a);
					if (peers.thread_rank() != 0)
						return TM_OK;
					atomic_add192w(w, a[0], a[1], a[2]);
				}
				else
					atomic_add192(w, x);
				mark_seen(&S->seen[g]);
				return TM_OK;
			}
		case AM_MINMAX_INT:
			if (ag->wagg)
			{
				cooperative_groups::coalesced_group peers = state_peers(w);
				long long	x = peers_reduce64(peers, (long long) v.i, ag->kind == TM_AGG_MIN ? 1 : 2);

				if (peers.thread_rank() != 0)
					return TM_OK;
				v.i = x;
			}
			if (ag->kind == TM_AGG_MIN)
				atomicMin((long long *) w, (long long) v.i);
			else
				atomicMax((long long *) w, (long long) v.i);
			mark_seen(&S->seen[g]);
			return TM_OK;
		case AM_LOCKED:
			if constexpr (NI)
				return TM_ERR_INTERNAL;
			else
			{
				unsigned int *lock = &S->lock[g];
				volatile unsigned long long *vw = w;
				volatile unsigned int *vseen = &S->seen[g];
				bool		done = false;
				DCancel		cp;

				/*
				 * A min / max (DAgg.peek: the fast paths): the lanes that run this update together for the
				 * same state (labeled by its address) keep the best of their values in one lane first
				 * (ties: any of them, as the lock's order is any order), and that lane alone goes on; then
				 * it skips the lock if the state already beats its value (minmax_beaten), and checks that
				 * again while it waits: the rows of a global max that all start before the state has a
				 * value (a max over 100,000 group results: one launch) leave the lock after its first holder
				 */
				if (ag->peek)
				{
					namespace cg = cooperative_groups;
					cg::coalesced_group act = cg::coalesced_threads();
					cg::coalesced_group peers = cg::labeled_partition(act, (unsigned long long) (uintptr_t) w);
					unsigned int n = peers.size();

					if (n > 1)
					{
						unsigned int rank = peers.thread_rank();

						/* any(): the peers hold the same value, the first one goes on */
						for (unsigned int off = 1; off < n && ag->kind != TM_AGG_ANY; off <<= 1)
						{
							unsigned long long mine[2];
							TmValue		x;

							memcpy(mine, &v, sizeof(v));
							mine[0] = peers.shfl_down(mine[0], off);
							mine[1] = peers.shfl_down(mine[1], off);
							memcpy(&x, mine, sizeof(x));
							if ((rank & (2u * off - 1u)) == 0 && rank + off < n)
							{
								int			cmp = tm_values_cmp(&x, &v, &ag->restype);

								if (ag->kind == TM_AGG_MIN ? cmp < 0 : cmp > 0)
									v = x;
							}
						}
						if (rank != 0)
							return TM_OK;
					}
					if (minmax_beaten(ag, &v, vw, vseen))
						return TM_OK;
				}
				/*
				 * a float sum (DAgg.wsum: the fast paths): the lanes that run this update together and
				 * update the same state (labeled by its address: lanes at other aggregates or groups may
				 * run it too) add their values in one lane first, as the lock would in some order (the
				 * order of a GPU sum is any order), and that lane alone takes the lock: a sum over a join
				 * that fans out into one group takes the lock up to 32 times less often.  An error of
				 * the partial sum (overflow) is that lane's row's
				 */
				if (ag->wsum)
				{
					namespace cg = cooperative_groups;
					cg::coalesced_group act = cg::coalesced_threads();
					cg::coalesced_group peers = cg::labeled_partition(act, (unsigned long long) (uintptr_t) w);
					unsigned int n = peers.size();

					if (n > 1)
					{
						bool		lead = peers.thread_rank() == 0;
						double		mine = v.f;
						TmValue		acc;
						bool		accnull = true;

						acc.n = 0;
						st = TM_OK;
						for (unsigned int i = 0; i < n; i++)
						{
							TmValue		x;

							x.n = 0;
							x.f = peers.shfl(mine, i);
							if (lead && st == TM_OK)
								st = (int) tm_sum_add(&acc, &accnull, &x, &ag->argtype, &ag->restype);
						}
						if (!lead)
							return TM_OK;
						if (st != TM_OK)
							return st;
						v = acc;
					}
				}
				/*
				 * the lock: test and test-and-set, with a growing sleep between tries, so that the spinners
				 * of a hot group leave the holder (perhaps a lane of their own warp) the issue slots and the
				 * L2 atomic unit (without: seconds for a million updates of one group).  A waiter leaves
				 * (ST_ABORT, the pass is not used) once the pass is stopped by a cancel or an overflow
				 * (DFlags.stop without an error: after an error, rows below it must still be aggregated),
				 * and reads the cancel word itself if it waits long (see CANCEL_POLL_CYCLES): else after
				 * a cancel every thread of the grid would take the lock once more before it polls
				 */
				st = TM_OK;
				cancel_init(&cp, cancel);
				for (unsigned int ns = 16; !done;)
				{
					if (*(volatile unsigned int *) lock != 0u || atomicCAS(lock, 0u, 1u) != 0u)
					{
						__nanosleep(ns);
						if (ns < 512u)
							ns *= 2u;
						if (ag->peek && minmax_beaten(ag, &v, vw, vseen))
							return TM_OK;
						if (stopped(flags) && *(volatile unsigned long long *) &flags->errinv == 0)
							return ST_ABORT;
						if (cancel_poll(&cp))
						{
							atomicExch(&flags->stop, 1);
							return ST_ABORT;
						}
					}
					else
					{
						unsigned long long words[2];
						TmValue		cur;
						bool		curnull;
						bool		store = false;

						__threadfence();
						words[0] = vw[0];
						words[1] = vw[1];
						memcpy(&cur, words, sizeof(cur));
						curnull = (*vseen == 0);
						if (ag->kind == TM_AGG_SUM)
						{
							st = (int) tm_sum_add(&cur, &curnull, &v, &ag->argtype, &ag->restype);
							store = (st == TM_OK);
						}
						else
						{
							int			cmp = (curnull || ag->kind == TM_AGG_ANY) ? 0 :
								tm_values_cmp(&v, &cur, &ag->restype);

							if (curnull || (ag->kind == TM_AGG_MIN ? cmp < 0 : ag->kind == TM_AGG_MAX && cmp > 0))
							{
								cur = v;
								store = true;
							}
						}
						if (store)
						{
							unsigned int s = *vseen;		/* even: no writer but this one */

							memcpy(words, &cur, sizeof(cur));
							*vseen = s | 1u;
							__threadfence();
							vw[0] = words[0];
							vw[1] = words[1];
							__threadfence();
							*vseen = (s + 2u == 0u) ? 2u : s + 2u;
						}
						__threadfence();
						atomicExch(lock, 0u);
						done = true;
					}
				}
				return st;
			}
	}
	return TM_ERR_INTERNAL;
}

/*
 * update aggregate a of group g with the current row (NI: pipeline_kernel<true>, DPipe.nointerp: no
 * DISTINCT, no AM_LOCKED, and neither is compiled in)
 */
template <bool NI = false>
__device__ int
agg_update(const DAgg *ag, const DAggState *S, long long g, const TmValue *vals, const bool *nulls,
		   DFlags *flags, const volatile int *cancel)
{
	TmValue		v;
	bool		isnull;
	int			st;

	/*
	 * any(x): every row of the group has the same x (TmAggKind), so once the group has a value (or a
	 * writer is storing one: seen odd) the row has nothing to add, and its x is not even evaluated: a
	 * hot group's rows read one word each (TPC-H Q10's customer columns, functionally dependent on
	 * c_custkey, were group keys before, hashed and compared on every row)
	 */
	if (ag->kind == TM_AGG_ANY && *(volatile unsigned int *) &S->seen[g] != 0)
		return TM_OK;
	if (ag->filter != NULL)
	{
		bool		pass;

		st = agg_filter<NI>(ag, vals, nulls, &pass);
		if (st != TM_OK || !pass)
			return st;
	}
	if (ag->kind == TM_AGG_COUNT_STAR)
	{
		v.n = 0;
		return agg_apply<NI>(ag, S, g, v, flags, cancel);
	}
	st = agg_arg<NI>(ag, vals, nulls, &v, &isnull);
	if (st != TM_OK)
		return st;
	if (isnull)
		return TM_OK;
	return agg_apply<NI>(ag, S, g, v, flags, cancel);
}

/*
 * Block-private aggregation (pipeline_kernel, grouped AGG sinks; off without themis.gpu_fast_paths).
 * Every sink row of a grouped aggregation finds its group in the table (group_find: a chain of L2 reads,
 * the directory word, then the group's hash and keys) and adds into the group's words with atomics; with
 * few groups every row of the grid goes to the same few words (TPC-H Q1, 4 groups: about 32 of its 59 ms
 * on an H200, one atomic per row and aggregate on the same L2 lines).  So each block keeps, in its shared
 * memory (dynamic, priv_smem_bytes):
 *   - a memo of groups found (R.memo: up to MEMO_MAX_KEYS keys): MEMO_SLOTS entries of (hash, keys, group
 *     number), open addressing over MEMO_PROBE slots; a row whose group is there skips group_find.  An
 *     entry is claimed EMPTY -> BUSY by CAS, written, then published (the fence orders the keys before the
 *     number); a reader that meets BUSY goes to the global table.  The keys are the same TmValues the
 *     global table keeps (bytes owned by the source columns or the plan, valid during the launch);
 *   - the states of groups 0 .. priv_k - 1 (R.priv_k > 0 where every aggregate is a count, an integer or
 *     numeric sum, an integer min / max, none DISTINCT), updated with shared-memory atomics by one lane
 *     per group of the lanes that run the update together, after they combined their values with
 *     shuffles (agg_update_priv_warp), and added into the group's words once per block at the end of the
 *     kernel (priv_flush): the same arithmetic in another order (counts and sums are exact integers, 192
 *     bits for numeric sums; min / max commute).
 * The first groups created are the private ones: where there are few groups, all of them.
 *
 * Thread-private sums (R.priv_t > 0: groups 0 .. priv_t - 1 and the sums of R.priv_ns aggregates fit
 * PRIV_THREAD_BYTES; devices whose blocks cannot take PIPE_SMEM_MAX have none, TmGpuPool.thread_sums).
 * Combining the lanes' values of a sum with shuffles before the shared atomic costs a dozen instructions
 * per round and 192-bit word (TPC-H Q1 on an H200, Nsight Compute: the combination and its atomics
 * about 30% of the kernel's instructions).  So for these groups each thread adds the
 * value of each sum into its own 64-bit word in shared memory (priv_part, [group][sum][thread]: no two
 * threads share a word, no bank conflicts), with no atomic and no shuffle; a value beyond 64 bits, or an
 * add that would overflow them, goes into the group's private 192-bit words with the word's partial
 * instead (atomics), and the word starts again from 0.  At the end of the block each warp adds up the
 * threads' words of a (group, sum) in 192 bits (AM_SUM_I64: in 64 bits, wrapping as its atomics do) into
 * the private words, which priv_flush then adds into the group's: the same integers in another order.
 * Counts and min / max keep the combined update.
 */
#define MEMO_SLOTS			32
#define MEMO_MAX_KEYS		4
#define MEMO_PROBE			8
#define MEMO_EMPTY			(-1)
#define MEMO_BUSY			(-2)
#define MEMO_MISS_LIMIT		256		/* rows that miss a full memo before the block stops looking */
#define MEMO_BYTES			(MEMO_SLOTS * MEMO_MAX_KEYS * (int) sizeof(TmValue) + MEMO_SLOTS * 8 + \
							 MEMO_SLOTS * 4 + MEMO_SLOTS * MEMO_MAX_KEYS + 16)
#define PRIV_MAX_GROUPS		32
#define PRIV_STATE_BYTES	8192		/* shared memory for private states at most, per block */
#define PRIV_THREAD_BYTES	40960		/* shared memory for thread-private sums at most, per block */
/* the most dynamic shared memory a pipeline_kernel block takes (cudaFuncAttributeMaxDynamicSharedMemorySize) */
#define PIPE_SMEM_MAX		(MEMO_BYTES + PRIV_STATE_BYTES + PRIV_THREAD_BYTES + 64)
/* pipeline_kernel's static shared memory (the pre-check's queue: 8 KB on sm_90) with room to spare */
#define PIPE_SMEM_STATIC_MAX (16 * 1024)

extern __shared__ __align__(16) unsigned char tm_dyn_smem[];

/* where a pipeline_kernel block's thread-private sums start in its shared memory (after the memo and states) */
static __host__ __device__ __forceinline__ size_t
priv_part_offset(int memo, int priv_k, int priv_na)
{
	size_t		b = (memo ? (size_t) MEMO_BYTES : 0) + (size_t) priv_k * priv_na * (3 * 8 + 4);

	return (b + 15) & ~(size_t) 15;
}

/* the shared memory a pipeline_kernel block needs for R's memo, private states and thread-private sums */
static __host__ __device__ __forceinline__ size_t
priv_smem_bytes(const DRun &R)
{
	return priv_part_offset(R.memo, R.priv_k, R.priv_na) + (size_t) R.priv_t * R.priv_ns * TPB * 8;
}

__device__ __forceinline__ TmValue *
memo_keys(void)
{
	return (TmValue *) tm_dyn_smem;
}

__device__ __forceinline__ uint64_t *
memo_hash(void)
{
	return (uint64_t *) (tm_dyn_smem + MEMO_SLOTS * MEMO_MAX_KEYS * sizeof(TmValue));
}

__device__ __forceinline__ int *
memo_group(void)
{
	return (int *) (tm_dyn_smem + MEMO_SLOTS * MEMO_MAX_KEYS * sizeof(TmValue) + MEMO_SLOTS * 8);
}

__device__ __forceinline__ uint8_t *
memo_knull(void)
{
	return (uint8_t *) (tm_dyn_smem + MEMO_SLOTS * MEMO_MAX_KEYS * sizeof(TmValue) + MEMO_SLOTS * 12);
}

/* [0]: rows that missed the memo with no entry free; [1]: the memo is off (MEMO_MISS_LIMIT reached) */
__device__ __forceinline__ int *
memo_misses(void)
{
	return (int *) (tm_dyn_smem + MEMO_SLOTS * MEMO_MAX_KEYS * sizeof(TmValue) + MEMO_SLOTS * 12 +
					MEMO_SLOTS * MEMO_MAX_KEYS);
}

/* private state of (group g, aggregate a): 3 words; its seen flag */
__device__ __forceinline__ unsigned long long *
priv_words(const DRun &R, long long g, int a)
{
	return (unsigned long long *) (tm_dyn_smem + (R.memo ? MEMO_BYTES : 0)) + 3 * (g * R.priv_na + a);
}

__device__ __forceinline__ unsigned int *
priv_seen(const DRun &R, long long g, int a)
{
	return (unsigned int *) (tm_dyn_smem + (R.memo ? MEMO_BYTES : 0) +
							 (size_t) R.priv_k * R.priv_na * 3 * 8) + g * R.priv_na + a;
}

/* this thread's partial of sum j (the j-th sum aggregate) of private group g < R.priv_t */
__device__ __forceinline__ unsigned long long *
priv_part(const DRun &R, long long g, int j)
{
	return (unsigned long long *) (tm_dyn_smem + priv_part_offset(R.memo, R.priv_k, R.priv_na)) +
		((size_t) (g * R.priv_ns + j) * TPB + threadIdx.x);
}

/* a sum aggregate: one with a thread-private partial where R.priv_t > 0 */
__device__ __forceinline__ bool
agg_is_priv_sum(const DAgg *ag)
{
	return ag->kind != TM_AGG_COUNT_STAR && (ag->mode == AM_SUM_I64 || ag->mode == AM_SUM_I192);
}

/* the whole block, before its rows: memo empty, private states at their identities */
__device__ void
priv_init(const DPipe *P, const DRun &R)
{
	if (R.memo)
	{
		for (int i = threadIdx.x; i < MEMO_SLOTS; i += blockDim.x)
			memo_group()[i] = MEMO_EMPTY;
		if (threadIdx.x == 0)
			memo_misses()[0] = memo_misses()[1] = 0;
	}
	for (int i = threadIdx.x; i < R.priv_k * R.priv_na; i += blockDim.x)
	{
		const DAgg *ag = &P->aggs[i % R.priv_na];
		unsigned long long *w = priv_words(R, i / R.priv_na, i % R.priv_na);

		w[0] = ag->mode != AM_MINMAX_INT ? 0ULL :
			ag->kind == TM_AGG_MIN ? (unsigned long long) INT64_MAX : (unsigned long long) INT64_MIN;
		w[1] = 0;
		w[2] = 0;
		*priv_seen(R, i / R.priv_na, i % R.priv_na) = 0;
	}
	if (R.priv_t > 0)
	{
		unsigned long long *pp = priv_part(R, 0, 0) - threadIdx.x;

		for (int i = threadIdx.x; i < R.priv_t * R.priv_ns * TPB; i += blockDim.x)
			pp[i] = 0;
	}
	__syncthreads();
}

/*
 * The whole block, after its rows: each (group, sum) of the thread-private sums, the threads' words added
 * up by one warp (each lane TPB / 32 of them, then a tree of shuffles) into the group's private words
 */
__device__ void
priv_part_flush(const DPipe *P, const DRun &R)
{
	unsigned int lane = threadIdx.x & 31u;
	int			nw = blockDim.x / 32;

	for (int i = threadIdx.x / 32; i < R.priv_t * R.priv_ns; i += nw)
	{
		long long	g = i / R.priv_ns;
		int			j = i % R.priv_ns;
		int			a = 0;
		const unsigned long long *pp = priv_part(R, g, j) - threadIdx.x;
		unsigned long long x[3] = {0, 0, 0};
		bool		wide;

		/* the j-th sum aggregate */
		for (int k = 0;; a++)
			if (agg_is_priv_sum(&P->aggs[a]) && k++ == j)
				break;
		wide = P->aggs[a].mode == AM_SUM_I192;
		for (int t = (int) lane; t < TPB; t += 32)
		{
			unsigned long long v = pp[t];

			if (wide)
				add192(x, v, (long long) v < 0 ? ~0ULL : 0ULL, (long long) v < 0 ? ~0ULL : 0ULL);
			else
				x[0] += v;
		}
		for (int off = 16; off > 0; off >>= 1)
		{
			unsigned long long b0 = __shfl_xor_sync(0xffffffffu, x[0], off);
			unsigned long long b1 = __shfl_xor_sync(0xffffffffu, x[1], off);
			unsigned long long b2 = __shfl_xor_sync(0xffffffffu, x[2], off);

			if (wide)
				add192(x, b0, b1, b2);
			else
				x[0] += b0;
		}
		if (lane == 0)
		{
			unsigned long long *w = priv_words(R, g, a);

			/* this warp alone updates (g, a) now */
			if (wide)
				add192(w, x[0], x[1], x[2]);
			else
				w[0] += x[0];
		}
	}
}

/* the whole block, after its rows: the private states into the groups' words */
__device__ void
priv_flush(const DPipe *P, const DRun &R)
{
	__syncthreads();
	if (R.priv_t > 0)
	{
		priv_part_flush(P, R);
		__syncthreads();
	}
	for (int i = threadIdx.x; i < R.priv_k * R.priv_na; i += blockDim.x)
	{
		long long	g = i / R.priv_na;
		int			a = i % R.priv_na;
		const DAgg *ag = &P->aggs[a];
		const DAggState *S = &R.astate[a];
		unsigned long long *w = &S->w[3 * g];
		const unsigned long long *pw = priv_words(R, g, a);

		if (ag->kind == TM_AGG_COUNT_STAR || ag->mode == AM_COUNT)
		{
			if (pw[0] != 0)
				atomicAdd(w, pw[0]);
			continue;
		}
		if (*priv_seen(R, g, a) == 0)
			continue;
		if (ag->mode == AM_SUM_I64)
			atomicAdd(w, pw[0]);
		else if (ag->mode == AM_SUM_I192)
			atomic_add192w(w, pw[0], pw[1], pw[2]);
		else if (ag->kind == TM_AGG_MIN)
			atomicMin((long long *) w, (long long) pw[0]);
		else
			atomicMax((long long *) w, (long long) pw[0]);
		mark_seen(&S->seen[g]);
	}
}

/* a lane's input x to aggregate ag of a private group from its argument's value v (not NULL) */
__device__ __forceinline__ int
priv_x(const DAgg *ag, const TmValue *v, unsigned long long x[3])
{
	if (ag->mode == AM_SUM_I192)
	{
		tm_int128	n;

		if (!sum192_input(ag, v, &n))
			return TM_ERR_FALLBACK;
		x[0] = (unsigned long long) (tm_uint128) n;
		x[1] = (unsigned long long) ((tm_uint128) n >> 64);
		x[2] = n < 0 ? ~0ULL : 0ULL;
	}
	else
		x[0] = (unsigned long long) v->i;
	return TM_OK;
}

/*
 * A lane's input to aggregate ag of a private group: *has = it adds a value (FILTER passed, argument
 * not NULL; count(*): always), in x[0..2] (AM_SUM_I192: the 192-bit sign-extended scaled integer; the
 * other modes: x[0])
 */
template <bool NI = false>
__device__ __forceinline__ int
priv_input(const DAgg *ag, const TmValue *vals, const bool *nulls, bool *has, unsigned long long x[3])
{
	TmValue		v;
	bool		isnull;
	int			st;

	*has = false;
	if (ag->filter != NULL)
	{
		bool		pass;

		st = agg_filter<NI>(ag, vals, nulls, &pass);
		if (st != TM_OK || !pass)
			return st;
	}
	if (ag->kind == TM_AGG_COUNT_STAR)
	{
		*has = true;
		return TM_OK;
	}
	st = agg_arg<NI>(ag, vals, nulls, &v, &isnull);
	if (st != TM_OK)
		return st;
	if (isnull)
		return TM_OK;
	st = priv_x(ag, &v, x);
	*has = st == TM_OK;
	return st;
}

/*
 * The peers' values x (op 0: 192-bit sum of x[0..2]; 1: 64-bit sum of x[0]; 2 / 3: signed min / max of
 * x[0]) into the first of them (the lowest lane of `peers`).  Every lane of act runs it (peers: this
 * lane's group, a subset of act): each round a lane adds the value of the next peer above it still in
 * play, and the peers of odd rank drop out, so log2(peers) rounds (the shuffle reduction of peer groups
 * of E. Westphal, "Voting and shuffling to optimize atomic operations", NVIDIA, 2015)
 */
__device__ __forceinline__ void
peers_combine(unsigned int act, unsigned int peers, int op, unsigned long long x[3])
{
	unsigned int lane = threadIdx.x & 31u;
	unsigned int rank = __popc(peers & ((1u << lane) - 1u));
	unsigned int above = peers & ~((2u << lane) - 1u);	/* lane 31: 2u << 31 == 0, above == 0 */

	while (__any_sync(act, above != 0))
	{
		int			src = above != 0 ? __ffs(above) - 1 : (int) lane;
		unsigned long long b0 = __shfl_sync(act, x[0], src);
		unsigned long long b1 = op == 0 ? __shfl_sync(act, x[1], src) : 0ULL;
		unsigned long long b2 = op == 0 ? __shfl_sync(act, x[2], src) : 0ULL;

		if (above != 0)
		{
			if (op == 0)
				add192(x, b0, b1, b2);
			else if (op == 1)
				x[0] += b0;
			else if (op == 2)
				x[0] = (unsigned long long) min((long long) x[0], (long long) b0);
			else
				x[0] = (unsigned long long) max((long long) x[0], (long long) b0);
		}
		above &= ~__ballot_sync(act, (rank & 1u) != 0);
		rank >>= 1;
	}
}

/*
 * One aggregate's part of agg_update_priv_warp, after each lane's input (priv_input: has, x): the
 * combination of the lanes of act per group (peers) and the update of the block's private state.  Every
 * lane of act runs it; *j: the sum aggregates before a, *err: this lane's first error.  Forced inline:
 * the kernels generated per pipeline (cuda/tm_jit.cu) call it with a DAgg whose kind and mode are
 * constants
 */
__device__ __forceinline__ void
priv_warp_combine(const DRun &R, long long g, int a, const DAgg *ag, unsigned int act, unsigned int peers,
				  bool first, bool thr, int *j, int *err, bool has, unsigned long long x[3])
{
	unsigned int hmask;
	unsigned long long *w = priv_words(R, g, a);
	bool		psum = R.priv_t > 0 && agg_is_priv_sum(ag);	/* the same for every lane */

	if (psum)
		(*j)++;
	hmask = __ballot_sync(act, has);
	if (hmask == 0)
		return;			/* the same for every lane of act */
	if (ag->kind == TM_AGG_COUNT_STAR || ag->mode == AM_COUNT)
	{
		unsigned int n = __popc(hmask & peers);

		if (first && n != 0)
			atomicAdd(w, (unsigned long long) n);
		return;
	}
	if (psum)
	{
		if (thr && has)
		{
			unsigned long long *pp = priv_part(R, g, *j - 1);

			if (ag->mode == AM_SUM_I64)
				*pp += x[0];	/* wraps, as the atomics do */
			else
			{
				unsigned long long sx = (long long) x[0] < 0 ? ~0ULL : 0ULL;
				unsigned long long cur = *pp;
				unsigned long long sum = cur + x[0];

				/* x within 64 bits and cur + x without signed overflow */
				if (x[1] == sx && x[2] == sx && (long long) ((cur ^ sum) & (x[0] ^ sum)) >= 0)
					*pp = sum;
				else
				{
					unsigned long long sc = (long long) cur < 0 ? ~0ULL : 0ULL;

					atomic_add192w(w, x[0], x[1], x[2]);
					if (cur != 0)
						atomic_add192w(w, cur, sc, sc);
					*pp = 0;
				}
			}
			*priv_seen(R, g, a) = 1;
		}
		/* lanes of groups without thread-private sums combine theirs as below, the others add nothing */
		if (__ballot_sync(act, has && !thr) == 0)
			return;
		if (thr)
			has = false;
	}
	if (!has)
	{
		/* the identity of the combination */
		x[0] = ag->mode != AM_MINMAX_INT ? 0ULL :
			ag->kind == TM_AGG_MIN ? (unsigned long long) INT64_MAX : (unsigned long long) INT64_MIN;
		x[1] = x[2] = 0;
	}
	peers_combine(act, peers, ag->mode == AM_SUM_I192 ? 0 : ag->mode == AM_SUM_I64 ? 1 :
				  ag->kind == TM_AGG_MIN ? 2 : 3, x);
	if (!first || (hmask & peers) == 0 || (psum && thr))
		return;
	switch (ag->mode)
	{
		case AM_SUM_I64:
			atomicAdd(w, x[0]);
			break;
		case AM_SUM_I192:
			atomic_add192w(w, x[0], x[1], x[2]);
			break;
		case AM_MINMAX_INT:
			if (ag->kind == TM_AGG_MIN)
				atomicMin((long long *) w, (long long) x[0]);
			else
				atomicMax((long long *) w, (long long) x[0]);
			break;
		default:
			if (*err == TM_OK)
				*err = TM_ERR_INTERNAL;
			break;
	}
	*priv_seen(R, g, a) = 1;
}

/*
 * The sink's aggregates of the current row into the block's private states of its group g < R.priv_k.
 * The lanes that run this together (act) first combine, per group (peers: __match_any_sync on g), what
 * they add, and the first lane of each group alone updates the shared words: one update per group and
 * aggregate per warp step instead of one per row, since a 64-bit shared-memory atomic is a
 * compare-and-store loop on the device (ATOMS.CAST.SPIN.64 on sm_90) in which lanes on the same word take
 * turns (TPC-H Q1's 4 groups on an H200: GPU time 40.7 -> 38.8 ms; the turns were not what holds it,
 * bench/reports/2026-11-27-h200-sf10-22q-warp-priv).  Counts are the ballot's
 * population; sums in 192 bits and integer min / max combine exactly (any order).  Every lane of act
 * takes part in every aggregate's combination, whatever its own row does: a lane whose expression fails
 * adds nothing from then on and returns the error (the pass then fails; its states are not used).
 */
template <bool NI = false>
__device__ int
agg_update_priv_warp(const DPipe *P, const DRun &R, long long g, const TmValue *vals, const bool *nulls)
{
	unsigned int act = __activemask();
	unsigned int peers = __match_any_sync(act, (unsigned int) g);
	unsigned int lane = threadIdx.x & 31u;
	bool		first = (peers & ((1u << lane) - 1u)) == 0;
	bool		thr = g < R.priv_t;	/* this lane's group has thread-private sums */
	int			err = TM_OK;
	int			j = 0;			/* sum aggregates before a */

	for (int a = 0; a < P->naggs; a++)
	{
		const DAgg *ag = &P->aggs[a];
		unsigned long long x[3] = {0, 0, 0};
		bool		has = false;

		if (ag->kind == TM_AGG_ANY)
		{
			/*
			 * any(x) has no private state: once the group has its value a row adds nothing (agg_update
			 * returns after one read), so it is set in the group's words directly (the same for every
			 * lane of act: nothing collective is skipped)
			 */
			if (err == TM_OK)
				err = agg_update<NI>(ag, &R.astate[a], g, vals, nulls, R.flags, R.cancel);
			continue;
		}
		if (err == TM_OK)
		{
			int			st = priv_input<NI>(ag, vals, nulls, &has, x);

			if (st != TM_OK)
			{
				err = st;
				has = false;
			}
		}
		priv_warp_combine(R, g, a, ag, act, peers, first, thr, &j, &err, has, x);
	}
	return err;
}

/*
 * The group of the keys (hash h) in the block's memo: its number, or -1 (not there; *slot: the empty
 * entry where it may be added, or -1).  A block whose rows keep missing a full memo (many groups: TPC-H
 * Q18's 15 M orders) stops looking after MEMO_MISS_LIMIT of them
 */
__device__ __forceinline__ long long
memo_find(const DPipe *P, uint64_t h, const TmValue *keys, const bool *knulls, int *slot)
{
	int			p = (int) (h & (MEMO_SLOTS - 1));

	*slot = -1;
	if (*(volatile int *) &memo_misses()[1])
		return -1;
	for (int i = 0; i < MEMO_PROBE; i++, p = (p + 1) & (MEMO_SLOTS - 1))
	{
		int			g = *(volatile int *) &memo_group()[p];
		bool		eq;

		if (g == MEMO_EMPTY)
		{
			*slot = p;
			return -1;
		}
		if (g == MEMO_BUSY)
			return -1;
		__threadfence_block();	/* the entry's hash and keys after its published number */
		if (*(volatile uint64_t *) &memo_hash()[p] != h)
			continue;
		eq = true;
		for (int k = 0; k < P->nkeys && eq; k++)
		{
			bool		mn = memo_knull()[p * MEMO_MAX_KEYS + k] != 0;

			if (mn != knulls[k])
				eq = false;
			else if (!mn)
			{
				TmValue		mv = memo_keys()[p * MEMO_MAX_KEYS + k];

				eq = tm_values_equal(&keys[k], &mv, &P->keytypes[k]);
			}
		}
		if (eq)
			return g;
	}
	if (atomicAdd(&memo_misses()[0], 1) == MEMO_MISS_LIMIT)
		*(volatile int *) &memo_misses()[1] = 1;
	return -1;
}

/* add group g of the keys (hash h) to the memo at entry slot (from memo_find), unless taken meanwhile */
__device__ __forceinline__ void
memo_add(const DPipe *P, int slot, uint64_t h, const TmValue *keys, const bool *knulls, long long g)
{
	if (slot < 0 || atomicCAS(&memo_group()[slot], MEMO_EMPTY, MEMO_BUSY) != MEMO_EMPTY)
		return;
	memo_hash()[slot] = h;
	for (int k = 0; k < P->nkeys; k++)
	{
		TmValue		kv = keys[k];

		if (knulls[k])
			kv.n = 0;
		memo_keys()[slot * MEMO_MAX_KEYS + k] = kv;
		memo_knull()[slot * MEMO_MAX_KEYS + k] = knulls[k] ? 1 : 0;
	}
	__threadfence_block();
	*(volatile int *) &memo_group()[slot] = (int) g;
}

/*
 * R.claim: the position of a sink row, taken from DFlags.cursor by one atomicAdd for the lanes that reach
 * this point together (warp-aggregated: TPC-H Q21 writes 60 M build rows), -1 if the room is full (cannot
 * happen: the room is a bound on the sink rows, see sink_hash_build)
 */
__device__ __forceinline__ long long
claim_pos(const DRun &R)
{
	namespace cg = cooperative_groups;
	cg::coalesced_group g = cg::coalesced_threads();
	unsigned long long base = 0;
	long long	pos;

	if (g.thread_rank() == 0)
		base = atomicAdd(&R.flags->cursor, (unsigned long long) g.size());
	base = g.shfl(base, 0);
	pos = (long long) base + (long long) g.thread_rank();
	return pos < R.limit ? pos : -1;
}

/* a leaf of the evaluation tree reaches the sink */
template <bool NI>
__device__ int
sink_row(const DPipe *P, const DRun &R, const TmValue *vals, const bool *nulls, long long *pos,
		 long long *cnt)
{
	int			st;

	switch (P->sinkkind)
	{
		case TM_SINK_EMIT:
			if (R.pass == PASS_RUN)
			{
				for (int i = 0; i < P->nvals; i++)
				{
					TmValue		v;
					bool		isnull;

					st = x_eval<NI>(P->vals[i], P->fastx, vals, nulls, &v, &isnull);
					if (st != TM_OK)
						return st;
					if (isnull)
						v.n = 0;
					R.outvals[i][*pos] = v;
					R.outnulls[i][*pos] = isnull ? 1 : 0;
				}
				(*pos)++;
			}
			(*cnt)++;
			return TM_OK;

		case TM_SINK_HASH_BUILD:
			{
				TmValue		keys[TM_GPU_MAX_KEYS];
				uint64_t	h = 0;

				for (int i = 0; i < P->nkeys; i++)
				{
					bool		isnull;

					st = x_eval<NI>(P->keys[i], P->fastx, vals, nulls, &keys[i], &isnull);
					if (st != TM_OK)
						return st;
					if (isnull)
						return TM_OK;	/* a NULL key never matches: the row is dropped */
					h = tm_hash_key(h, &keys[i], false, &P->keytypes[i]);
				}
				if (R.pass == PASS_RUN)
				{
					if (R.claim && (*pos = claim_pos(R)) < 0)
						return TM_ERR_INTERNAL;
					for (int i = 0; i < P->nvals; i++)
					{
						TmValue		v;
						bool		isnull;
						int			c = P->nkeys + i;

						st = x_eval<NI>(P->vals[i], P->fastx, vals, nulls, &v, &isnull);
						if (st != TM_OK)
							return st;
						if (isnull)
							v.n = 0;
						R.outvals[c][*pos] = v;
						R.outnulls[c][*pos] = isnull ? 1 : 0;
					}
					for (int i = 0; i < P->nkeys; i++)
					{
						R.outvals[i][*pos] = keys[i];
						R.outnulls[i][*pos] = 0;
					}
					R.outhash[*pos] = h;
					(*pos)++;
				}
				(*cnt)++;
				return TM_OK;
			}

		case TM_SINK_AGG:
			{
				long long	g = 0;

				if (R.pass == PASS_COUNT)
				{
					(*cnt)++;
					return TM_OK;
				}
				if (P->nkeys > 0)
				{
					TmValue		keys[TM_GPU_MAX_KEYS];
					bool		knulls[TM_GPU_MAX_KEYS];
					uint64_t	h = 0;

					for (int i = 0; i < P->nkeys; i++)
					{
						st = x_eval<NI>(P->keys[i], P->fastx, vals, nulls, &keys[i], &knulls[i]);
						if (st != TM_OK)
							return st;
						h = tm_hash_key(h, &keys[i], knulls[i], &P->keytypes[i]);
					}
					if (R.memo)
					{
						int			slot;

						g = memo_find(P, h, keys, knulls, &slot);
						if (g < 0)
						{
							g = group_find(P, R, h, keys, knulls);
							if (g < 0)
								return ST_ABORT;
							memo_add(P, slot, h, keys, knulls, g);
						}
					}
					else
					{
						g = group_find(P, R, h, keys, knulls);
						if (g < 0)
							return ST_ABORT;
					}
				}
				if (g < R.priv_k)
				{
					st = agg_update_priv_warp<NI>(P, R, g, vals, nulls);
					if (st != TM_OK)
						return st;
				}
				else
				{
					for (int a = 0; a < P->naggs; a++)
					{
						st = agg_update<NI>(&P->aggs[a], &R.astate[a], g, vals, nulls, R.flags, R.cancel);
						if (st != TM_OK)
							return st;
					}
				}
				(*cnt)++;
				return TM_OK;
			}
	}
	return TM_ERR_INTERNAL;
}

/*
 * the evaluation tree of the current source row, depth first (run_ops of the CPU executor), from op k0
 * on (ops before it are filters the row has passed: each has the one child the walk starts with);
 * looked: op k0 is a probe whose keys were looked up already (os[k0] from probe_lookup: the pre-check
 * of pipeline_rows_compacted).  Inlined where it is called (three places in pipeline_rows_compacted, one
 * in pipeline_rows): each has its own copy of the walk, the sink and the aggregates' updates, 2.1 MB of
 * sm_90 code in pipeline_kernel<false> (1.26 MB in pipeline_kernel<true>).  Out of line (__noinline__)
 * it was one copy, 1.07 MB, but on the skewed TPC-H data at SF 10 (H100) Q15's lineitem pipeline took
 * 5.98 ms against 4.92 ms inlined, Q1's 30.3 against 26.5, Q14's 4.66 against 4.23
 * (bench/reports/2026-12-07-h100-sf10-nointerp, against the 22-query run before it): the call per row,
 * and the DRun it reads through a pointer, cost more than the instruction fetches saved
 */
template <bool NI>
__device__ int
walk_row(const DPipe *P, const DRun &R, TmValue *vals, bool *nulls, OpState *os, long long *pos,
		 long long *cnt, DCancel *cp, int k0, bool looked)
{
	int			nops = P->nops;
	int			k = k0;
	bool		enter = true;
	int			st;

	while (k >= k0)
	{
		bool		down;

		if (cancel_poll(cp))	/* a row may have millions of matches */
			return ST_CANCEL;
		if (k == nops)
		{
			st = sink_row<NI>(P, R, vals, nulls, pos, cnt);
			if (st != TM_OK)
				return st;
			k--;
			enter = false;
			continue;
		}
		if (enter)
		{
			if (looked)
			{
				looked = false;		/* only the first visit of op k0 */
				st = probe_decide<NI>(&P->ops[k], &os[k], vals, nulls, cp);
			}
			else
				st = op_enter<NI>(&P->ops[k], &os[k], vals, nulls, cp);
			if (st != TM_OK)
				return st;
		}
		st = op_next<NI>(&P->ops[k], &os[k], vals, nulls, &down, cp);
		if (st != TM_OK)
			return st;
		if (down)
		{
			k++;
			enter = true;
		}
		else
		{
			k--;
			enter = false;
		}
	}
	return TM_OK;
}

/*
 * pipeline_kernel: the ops after the leading filters and the sink for source row `row`, whose slots are
 * loaded (and, with a pre-check, whose os[nlead] holds the probe's lookup); an error is recorded (the
 * lowest row's wins; rows above it stop at stopped_at)
 */
template <bool NI>
__device__ __forceinline__ void
rest_of_row(const DPipe *P, const DRun &R, TmValue *vals, bool *nulls, OpState *os, DCancel *cp,
			long long row, unsigned long long *nsink)
{
	long long	pos = 0;
	long long	cnt = 0;
	int			st;

	if (R.pass == PASS_RUN && R.offs != NULL)
		pos = R.base + R.offs[row];
	st = walk_row<NI>(P, R, vals, nulls, os, &pos, &cnt, cp, P->nlead, P->precheck >= 0);
	if (st == TM_OK)
	{
		if (R.pass == PASS_COUNT && R.counts != NULL)
			R.counts[row] = cnt;
		*nsink += (unsigned long long) cnt;
	}
	else if (st == ST_CANCEL)
		atomicExch(&R.flags->stop, 1);
	else if (st != ST_ABORT)
		record_error(R.flags, st, row);
}

/*
 * The group of source rows a warp of pipeline_rows_compacted runs after group cur (the same in every
 * lane): with R.dyn the first one no warp has taken yet (each warp's first group is its own number, so
 * DFlags.wgroups counts the groups from nwarps on), else cur + nwarps, the warp's fixed share.  The
 * warps' rows differ in cost (how many pass the filters, how many probe rows they meet, how hot their
 * groups are): in fixed shares a block's warps that end first wait at priv_flush's barrier for the
 * slowest (TPC-H Q3 on skewed data at SF 1, Nsight Compute: 31% of the warps' cycles), taken as they
 * finish they end together, within a group's time.
 */
__device__ __forceinline__ long long
warp_next_group(const DRun &R, long long cur, long long nwarps, unsigned int lane)
{
	unsigned long long g = 0;

	if (!R.dyn)
		return cur + nwarps;
	if (lane == 0)
		g = atomicAdd(&R.flags->wgroups, 1ULL);
	return nwarps + (long long) __shfl_sync(0xffffffffu, g, 0);
}

/*
 * pipeline_kernel with leading filters (nlead > 0) or a pre-check: warps, not threads, take the source
 * rows, 32 at a time (with DRun.dyn from groups of 1,024 taken as the warps finish: warp_next_group);
 * each lane runs the leading filters on its row, and the rows that pass are queued in the warp's shared
 * memory until 32 are there, which the 32 lanes then run one each (their slots loaded
 * again): the joins, residual quals and the sink after a selective filter run on full warps, instead of
 * on the few lanes of each warp whose row passed (TPC-H Q19: 3.5% of lineitem's rows pass its leading
 * filter, and each went down the probe and the interpreter with its warp's other 31 lanes idle).  A warp
 * whose 32 rows all pass while its queue is empty runs them in place.  Rows keep their own number (COUNT
 * pass: counts[row]; RUN pass: its offset), so the order in which they run does not matter; after an
 * error the rows above it stop (stopped_at), those below it still run, as in the thread-per-row loop.
 *
 * The pre-check (P->precheck = nlead: the op after the leading filters is an INNER or SEMI probe): the
 * lanes also look the probe's keys up, and a row without a build row of its keys is dropped there (it
 * has no child in the walk).  The lookup, [r, end), goes into the queue with the row and the walk starts
 * from it (walk_row's looked), so no key is looked up twice: TPC-H Q17's residual, a numeric division,
 * runs on the 3% of lineitem rows whose part is in the build, on full warps.  The first pass over a row
 * loads only the slots the leading filters and the pre-check read (P->load[0 .. nload_lead)); the others
 * are loaded for the rows that pass.  Where the probe's table is small and the order cannot show
 * (probe_goes_first), the lookup comes before the filters.
 */
template <bool NI>
__device__ __forceinline__ void
pipeline_rows_compacted(const DPipe *__restrict__ P, const DRun &R, int64_t nrows, TmValue *vals,
						bool *nulls, OpState *os, DCancel *cp, unsigned long long *nsink)
{
	__shared__ long long queue[TPB / 32][64];
	__shared__ int32_t qrange[TPB / 32][2][64];	/* the pre-check's [r, end) of each queued row */
	long long  *q = queue[threadIdx.x >> 5];
	int32_t    *qr = qrange[threadIdx.x >> 5][0];
	int32_t    *qe = qrange[threadIdx.x >> 5][1];
	unsigned int lane = threadIdx.x & 31u;
	unsigned int qn = 0;		/* rows queued: at most 32 between rounds, the same in every lane */
	long long	nchunks = (nrows + 31) / 32;
	long long	nwarps = ((long long) gridDim.x * blockDim.x) >> 5;
	const int	pc = P->precheck;
	OpState    *po = &os[pc < 0 ? 0 : pc];
	const uint32_t *pb = R.prebits;
	const int	k0 = pb != NULL ? P->npre : 0;	/* the filters before it ran in prefilter_kernel */
	const bool	lead = k0 < P->nlead || pc >= 0;	/* anything left to run on the leading slots? */
	const int	nloaded = lead ? P->nload_lead : 0;	/* the slots loaded before the queue */

	long long	next = ((long long) blockIdx.x * blockDim.x + threadIdx.x) >> 5;	/* chunk, or group */
	long long	gbase = -1;		/* with bits: the first chunk of the group in hand; without, R.dyn: the
								 * next chunk of group next to run (-1: the warp's first not begun) */
	unsigned int gword = 0;		/* with bits: this lane's word of that group */
	unsigned int gnz = 0;		/* with bits: the group's words not yet taken that are not 0 */

	for (;;)
	{
		long long	ch;
		long long	row;
		bool		pass = false;
		unsigned int mask;
		unsigned int bits = 0xffffffffu;

		if (pb != NULL && !lead)
		{
			/*
			 * With the prefilter's bits and nothing left to run before the queue (no leading filter after
			 * the prefilter's, no pre-check), a row whose bit is set goes straight to the queue.  A warp
			 * reads a group of 32 words (1,024 rows, one word a lane); each lane writes the rows of its
			 * word's set bits at its place in the group's order (a prefix sum of the words' bit counts), as
			 * many as the queue takes, and keeps the others for the next round.  (TPC-H Q6: 2% of the rows
			 * pass, about 20 in a group.)
			 */
			unsigned int c;
			unsigned int incl;
			unsigned int total;
			unsigned int room = 64 - qn;	/* 32 or more: qn <= 32 here */
			unsigned int at;
			bool		more = true;

			while (__ballot_sync(0xffffffffu, gword != 0) == 0)
			{
				long long	w = next * 32 + lane;

				if (next * 32 >= nchunks)
				{
					more = false;
					break;
				}
				gbase = next * 32;
				gword = w < nchunks ? pb[w] : 0u;
				next = warp_next_group(R, next, nwarps, lane);
				if (cancel_poll(cp))	/* groups whose rows all fail still poll the cancel word */
					atomicExch(&R.flags->stop, 1);
			}
			if (!more)
				break;
			c = (unsigned int) __popc(gword);
			incl = c;
			for (int o = 1; o < 32; o <<= 1)
			{
				unsigned int t = __shfl_up_sync(0xffffffffu, incl, o);

				if (lane >= (unsigned int) o)
					incl += t;
			}
			total = __shfl_sync(0xffffffffu, incl, 31);
			for (at = incl - c; gword != 0 && at < room; at++)
			{
				q[qn + at] = (gbase + lane) * 32 + (__ffs(gword) - 1);
				gword &= gword - 1;
			}
			qn += total < room ? total : room;
			goto queued;
		}
		if (pb != NULL)
		{
			/*
			 * With the prefilter's bits and filters or a pre-check left, a warp reads the bits 32 words at a
			 * time too, one word a lane, and takes the words that are not 0, lowest first: a word of 0 costs
			 * nothing, where one load a word would chain a memory round trip per 32 rows
			 */
			while (gnz == 0)
			{
				long long	w = next * 32 + lane;

				if (next * 32 >= nchunks)
					break;
				gbase = next * 32;
				gword = w < nchunks ? pb[w] : 0u;
				gnz = __ballot_sync(0xffffffffu, gword != 0);
				next = warp_next_group(R, next, nwarps, lane);
				if (gnz == 0 && cancel_poll(cp))	/* rows that all fail still poll the cancel word */
					atomicExch(&R.flags->stop, 1);
			}
			if (gnz == 0)
				break;
			ch = gbase + (__ffs(gnz) - 1);
			bits = __shfl_sync(0xffffffffu, gword, __ffs(gnz) - 1);
			gnz &= gnz - 1;
		}
		else if (!R.dyn)
		{
			if (next >= nchunks)
				break;
			ch = next;
			next += nwarps;
		}
		else
		{
			/* groups of 32 chunks (1,024 rows), as with bits: one take of DFlags.wgroups per group */
			if (gbase < 0 || gbase == next * 32 + 32 || gbase == nchunks)
			{
				if (gbase >= 0)
					next = warp_next_group(R, next, nwarps, lane);
				gbase = next * 32;
				if (gbase >= nchunks)
					break;
			}
			ch = gbase++;
		}
		row = ch * 32 + lane;
		if (row < nrows && ((bits >> lane) & 1u) != 0 && !stopped_at(R.flags, row))
		{
			int			st = TM_OK;
			bool		ok = true;

			for (int i = 0; i < nloaded; i++)
				load_col(&P->srccols[P->load[i].col], row, &vals[P->load[i].slot], &nulls[P->load[i].slot]);
			if (P->probe_first)
			{
				st = probe_lookup<NI>(&P->ops[pc], po, vals, nulls);
				ok = po->r < po->end;
			}
			for (int k = k0; k < P->nlead && ok && st == TM_OK; k++)
				st = op_qual<NI>(&P->ops[k], vals, nulls, &ok);
			if (st == TM_OK && ok && pc >= 0 && !P->probe_first)
			{
				st = probe_lookup<NI>(&P->ops[pc], po, vals, nulls);
				ok = po->r < po->end;
			}
			if (st != TM_OK)
				record_error(R.flags, st, row);
			else if (ok)
				pass = true;
			else if (cancel_poll(cp))	/* rows that all fail still poll the cancel word */
				atomicExch(&R.flags->stop, 1);
		}
		mask = __ballot_sync(0xffffffffu, pass);
		if (mask == 0xffffffffu && qn == 0)
		{
			for (int i = nloaded; i < P->nload; i++)
				load_col(&P->srccols[P->load[i].col], row, &vals[P->load[i].slot], &nulls[P->load[i].slot]);
			rest_of_row<NI>(P, R, vals, nulls, os, cp, row, nsink);
			continue;
		}
		if (pass)
		{
			unsigned int at = qn + __popc(mask & ((1u << lane) - 1u));

			q[at] = row;
			if (pc >= 0)
			{
				qr[at] = (int32_t) po->r;
				qe[at] = (int32_t) po->end;
			}
		}
		qn += (unsigned int) __popc(mask);
queued:
		__syncwarp();
		if (qn >= 32)
		{
			long long	r2;

			qn -= 32;
			r2 = q[qn + lane];
			if (pc >= 0)
				probe_set(po, qr[qn + lane], qe[qn + lane]);
			__syncwarp();
			if (!stopped_at(R.flags, r2))
			{
				for (int i = 0; i < P->nload; i++)
					load_col(&P->srccols[P->load[i].col], r2, &vals[P->load[i].slot], &nulls[P->load[i].slot]);
				rest_of_row<NI>(P, R, vals, nulls, os, cp, r2, nsink);
			}
		}
	}
	__syncwarp();
	if (lane < qn && !stopped_at(R.flags, q[lane]))
	{
		long long	r2 = q[lane];

		if (pc >= 0)
			probe_set(po, qr[lane], qe[lane]);
		for (int i = 0; i < P->nload; i++)
			load_col(&P->srccols[P->load[i].col], r2, &vals[P->load[i].slot], &nulls[P->load[i].slot]);
		rest_of_row<NI>(P, R, vals, nulls, os, cp, r2, nsink);
	}
}

/* pipeline_kernel without leading filters: one thread per source row, grid-stride */
template <bool NI>
__device__ __forceinline__ void
pipeline_rows(const DPipe *__restrict__ P, const DRun &R, int64_t nrows, TmValue *vals, bool *nulls,
			  OpState *os, DCancel *cp, unsigned long long *nsink)
{
	int64_t		stride = (int64_t) gridDim.x * blockDim.x;
	int			k0;

	for (int64_t row = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; row < nrows; row += stride)
	{
		long long	pos = 0;
		long long	cnt = 0;
		int			st;

		if (stopped_at(R.flags, row))
			break;
		for (int i = 0; i < P->nload; i++)
			load_col(&P->srccols[P->load[i].col], row, &vals[P->load[i].slot], &nulls[P->load[i].slot]);
		if (R.pass == PASS_RUN && R.offs != NULL)
			pos = R.base + R.offs[row];
		/* the leading filters, in order, as walk_row would run them first (themis.gpu_fast_paths) */
		st = TM_OK;
		for (k0 = 0; k0 < P->nlead && st == TM_OK; k0++)
		{
			bool		pass;

			st = op_qual<NI>(&P->ops[k0], vals, nulls, &pass);
			if (st == TM_OK && !pass)
				break;
		}
		if (st == TM_OK && k0 < P->nlead)
		{
			/* no sink row; a row loop over rows that all fail still polls the cancel word */
			if (cancel_poll(cp))
				st = ST_CANCEL;
		}
		else if (st == TM_OK)
			st = walk_row<NI>(P, R, vals, nulls, os, &pos, &cnt, cp, k0, false);
		if (st != TM_OK)
		{
			if (st == ST_CANCEL)
				atomicExch(&R.flags->stop, 1);	/* the others stop at their next row (or poll) */
			else if (st != ST_ABORT)
				record_error(R.flags, st, (long long) row);
			break;
		}
		if (R.pass == PASS_COUNT && R.counts != NULL)	/* NULL: NIFS counts only the total */
			R.counts[row] = cnt;
		*nsink += (unsigned long long) cnt;
	}
}

template <bool NI>
__global__ void __launch_bounds__(TPB, PL_MIN_BLOCKS)
pipeline_kernel(const DPipe *__restrict__ P, DRun R, int64_t rowlimit)
{
	TmValue		vals[TM_GPU_MAX_SLOTS];
	bool		nulls[TM_GPU_MAX_SLOTS];
	OpState		os[TM_GPU_MAX_OPS];
	int64_t		nrows = P->nrows < rowlimit ? P->nrows : rowlimit;
	unsigned long long nsink = 0;
	DCancel		cp;

	cancel_init(&cp, R.cancel);
	/* parameters; the other slots start NULL and are set before anything reads them */
	for (int s = 0; s < P->nslots; s++)
	{
		vals[s] = P->init_vals[s];
		nulls[s] = P->init_nulls[s] != 0;
	}

	if (R.memo || R.priv_k > 0)
		priv_init(P, R);
	if (P->nlead > 0 || P->precheck >= 0 || R.prebits != NULL)
		pipeline_rows_compacted<NI>(P, R, nrows, vals, nulls, os, &cp, &nsink);
	else
		pipeline_rows<NI>(P, R, nrows, vals, nulls, os, &cp, &nsink);
	if (nsink > 0)
		atomicAdd(&R.flags->sinkrows, nsink);
	if (R.priv_k > 0)
		priv_flush(P, R);	/* every thread of the block gets here: no thread returns early */
}

#endif							/* TM_PIPELINE_DESC_ONLY */

#endif							/* THEMIS_TM_PIPELINE_DEV_CUH */
