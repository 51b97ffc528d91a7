/*
 * tm_pjoin.cu — partitioned hash join (GFTR / GFUR) and the pipelined (global hash table) join of two
 * device-resident relations.  C interface and semantics: tm_pjoin.h.
 *
 * Design
 * ======
 *
 * Key words.  Each row's key becomes one machine word kw (type K, 4 or 8 bytes):
 *   - one 4-byte column:          K = uint32, kw = fmix32(key)            (a bijection: kw equal <=> keys equal)
 *   - one 8-byte column:          K = uint64, kw = fmix64(key)            (a bijection)
 *   - two 4-byte columns:         K = uint64, kw = fmix64(k1 << 32 | k0)  (a bijection)
 *   - anything wider ("wide"):    K = uint64, kw = a 64-bit hash of all key columns; equal kw is then
 *                                 verified against the original key columns through row ids.
 * The mixing spreads any key distribution (dense ids, multiples of 1024, dates) evenly over the radix
 * digits, and since it is invertible the exact modes recover the key for the output from kw alone.
 * Rows with a NULL key are removed up front (a selection vector of row ids, CUB DeviceSelect); ANTI /
 * LEFT output S's NULL-key rows at the end ("null step").
 *
 * Partitioning (GFTR and GFUR).  A side is partitioned by B bits of kw (bits [shift, shift + B) with
 * shift = bits(K) - g - B, below the g bits of the hash batch, see Batches) with CUB's stable
 * DeviceRadixSort::SortPairs over just those bits (onesweep: one histogram pass, then 8 bits per pass,
 * so 2 passes for B <= 16).  The value moved along with kw (type V) is the first payload column when it
 * is 4 or 8 bytes wide and the key is exact ("p1 mode"; or two columns "packed", below), else the row
 * id (u32, "id mode").  A stable sort by a digit is a unique permutation, so sorting any other column
 * with the same digits (as a 16-bit key pid = the digit, materialized next to kw by the hashing pass)
 * moves it to exactly the same place: that is the GFTR "transform".  Partition bounds come from one
 * binary search per partition in the sorted kw (a few MB of mostly cached reads instead of a pass over
 * kw), B is chosen so an average R partition holds 3/8 .. 3/4 of a work unit's shared-memory capacity
 * (16 bits at most).
 *
 * Packed payloads (GFTR only).  When a side's only fixed-width payload columns are payloads 0 and 1, both
 * 4 bytes wide, and payload 1 has no NULL array (pj_pack_ok; payload 0 may have one, text columns may
 * follow), the carried value is both of them packed into one u64 (payload 0 in the low half, payload 1
 * in the high half): the hash pass writes it in virtual-row order, the sort moves it with kw, the join
 * kernel holds it in shared memory (8-byte values: a smaller RCAP) and splits it into the two result
 * columns as it writes a row (pj_put_val).  Payload 1 then needs no transform and no gather, and the
 * side no pid and no positions (unless payload 0's NULL array or a text column needs them).  Cost: 4
 * more bytes per row in each sort pass, the packed copy (8 bytes read, 8 written per row), 4 more bytes
 * per row read by the join; saved: the (pid, value) sort, the gather, the pid and position arrays
 * (about 44 bytes per row and side).  GFUR never packs (it is the baseline).
 *
 * Work units.  Per partition p with |R_p| > 0 and |S_p| > 0: ceil(|R_p| / RCAP) x ceil(|S_p| / SCH)
 * units, each an R chunk of at most RCAP rows (what fits the shared-memory table: 8192 rows for 4/4-byte
 * items, 96 KiB per block, two blocks per SM) against an S chunk of at most SCH rows (8192).  Oversized
 * partitions (duplicate keys in R, Zipf-skewed S) thus become many blocks instead of one slow block.
 * Counts per partition, a CUB exclusive sum, and one thread per unit that finds its partition by binary
 * search write the unit list.
 *
 * Join kernel (one 512-thread block per unit).  The R chunk is loaded (coalesced, 4 rows per thread in
 * flight) into shared memory: kw[], values[], and a bucket-chained table (4096 heads, 16-bit next links,
 * built with one shared atomicExch per row).  S rows are streamed in rounds of 4 x 512 rows (4 loads in
 * flight per thread); each thread walks its rows' chains and counts matches; a block-wide scan (warp
 * shuffles, then one warp over the 64 warp totals) gives each match its slot, and one global atomicAdd
 * per round reserves the round's output range, which is then written in S order: the output of a round
 * is contiguous and comes from one co-partition ("clustered").  Written per match: S's key (recovered from
 * kw), R's and S's first payload (p1 mode; packed: split in two) or row ids (id mode), and where further
 * columns need them the positions of the R and S rows in the partitioned order.  SEMI / ANTI / LEFT set
 * a flag per S row (any unit may match it, since an S chunk can meet several R chunks); a second kernel
 * then writes the unmatched (ANTI, LEFT with NULL R columns) or matched (SEMI) S rows after the inner
 * ones.
 *
 * Further payload columns (those not carried).  GFTR: each fixed-width column (and each NULL array) of
 * a side is transformed (CUB SortPairs with the 16-bit pid as key, B bits) and gathered at the written
 * positions: the positions of one output round lie in one partition of a few KiB, so the gather reads
 * nearly sequentially.  One column at a time, so only one transformed copy is alive.  GFUR: row ids of
 * the output rows are obtained the same way (transform of the row-id column, gather by position), and
 * every further column is gathered from the original column by row id (random reads).  Text columns: by
 * row id in both, at the end (lengths, CUB exclusive sum into the new offsets, a warp per row copies the
 * bytes).
 *
 * Pipelined.  One global open-addressing table on R (load <= 1/2, linear probing, slots of (kw, id + 1)
 * claimed with one 64-bit atomicCAS), probed by each S row; output is reserved per round as above and
 * the probe writes all fixed-width columns directly (R's by row id: random; S's: nearly sequential).
 * R's rows of a hash batch are selected (CUB) to size and build the table; S's rows are filtered by the
 * probe itself (NULL key, other batch: no row), so S costs no memory besides the result.
 *
 * Output size.  Output arrays are allocated for out_rows_hint rows (default |S|: exact for a key /
 * foreign-key join, and an upper bound for SEMI / ANTI).  Writes past the capacity are dropped but
 * counted; if the count exceeds it the result is enlarged and that batch's join is run again.
 *
 * Batches.  If memory runs out (an allocation fails; with a workspace, when the dry run below predicts
 * it), the whole join is redone with S split into row chunks (each partitioned and joined against the
 * whole partitioned R), and then with R split into 2^g hash batches as well (batch b: the R and S rows
 * whose kw has b as its top g bits).  Each (batch, chunk) appends its rows; only the result must fit.
 *
 * Memory.  Every device allocation goes through one arena: a caller's workspace (first-fit, long-lived
 * result arrays from the top, scratch from the bottom), a caller's allocator, or cudaMallocAsync.  The
 * orchestration can run "dry": no device work, sizes only, the same allocation sequence: that gives
 * tm_pjoin_workspace_size and the batching that fits a workspace.  Scratch is freed as soon as it is
 * dead; the live maximum is reported.
 *
 * Everything runs on one stream; the host waits for a handful of counts (selected rows, work units,
 * output rows of each batch, text bytes).
 */
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "tm_pjoin.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define PJ_NONE			0xFFFFFFFFu		/* no row (R side of an unmatched LEFT row) */
#define PJ_BLOCK		512				/* threads of the join / emit / probe kernels */
#define PJ_ITEMS		4				/* S rows per thread per round */
#define PJ_NWARPS		(PJ_BLOCK / 32)
#define PJ_ROUND		(PJ_BLOCK * PJ_ITEMS)
#define PJ_NB_BITS		12
#define PJ_NB			(1 << PJ_NB_BITS)	/* buckets of a shared-memory table */
#define PJ_SMEM			(96 * 1024)		/* dynamic shared memory of a join block */
#define PJ_MAX_BITS		16				/* partition bits (pid is 16 bits) */
#define PJ_MAX_GBITS	8				/* hash batches: at most 2^8 */
#define PJ_TPB			256				/* threads of the simple kernels */
#define PJ_ALIGN		256				/* of every device allocation */
#define PJ_UNIT_S		8192			/* default S rows per work unit */
#define PJ_MAX_GCOLS	(TM_PJOIN_MAX_PAYLOAD + TM_PJOIN_MAX_KEYS)

enum
{
	PJ_KL_1x4 = 0,
	PJ_KL_1x8,
	PJ_KL_2x4,
	PJ_KL_WIDE
};

enum
{
	PJ_JM_EMIT = 0,				/* INNER: write matches */
	PJ_JM_FLAG,					/* SEMI / ANTI: flag S rows with a match */
	PJ_JM_EMIT_FLAG				/* LEFT: both */
};

/* ================================================================================================
 * Device helpers
 * ================================================================================================
 */

/* key columns of one side, by value into kernels */
struct PjKeys
{
	int			n;
	int			width[TM_PJOIN_MAX_KEYS];
	const void *data[TM_PJOIN_MAX_KEYS];
	const u8   *nulls[TM_PJOIN_MAX_KEYS];
};

/* murmur3 finalizers and their inverses (all bijections) */
__host__ __device__ static inline u32
pj_mix32(u32 h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

__host__ __device__ static inline u32
pj_unmix32(u32 h)
{
	h ^= h >> 16;
	h *= 0x7ed1b41du;
	h ^= h >> 13;
	h ^= h >> 26;
	h *= 0xa5cb9243u;
	h ^= h >> 16;
	return h;
}

__host__ __device__ static inline u64
pj_mix64(u64 k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

__host__ __device__ static inline u64
pj_unmix64(u64 k)
{
	k ^= k >> 33;
	k *= 0x9cb4b2f8129337dbULL;
	k ^= k >> 33;
	k *= 0x4f74430c22a54005ULL;
	k ^= k >> 33;
	return k;
}

__device__ static inline u64
pj_key_val(const PjKeys &k, int c, u32 row)
{
	return k.width[c] == 4 ? (u64) ((const u32 *) k.data[c])[row] : ((const u64 *) k.data[c])[row];
}

__device__ static inline bool
pj_key_null(const PjKeys &k, u32 row)
{
	for (int c = 0; c < k.n; c++)
		if (k.nulls[c] != NULL && k.nulls[c][row])
			return true;
	return false;
}

__device__ static inline bool
pj_keys_equal(const PjKeys &a, u32 ra, const PjKeys &b, u32 rb)
{
	for (int c = 0; c < a.n; c++)
		if (pj_key_val(a, c, ra) != pj_key_val(b, c, rb))
			return false;
	return true;
}

template <class K>
__device__ static inline K pj_key_word(const PjKeys &k, int layout, u32 row);

template <>
__device__ inline u32
pj_key_word<u32>(const PjKeys &k, int layout, u32 row)
{
	return pj_mix32(((const u32 *) k.data[0])[row]);
}

template <>
__device__ inline u64
pj_key_word<u64>(const PjKeys &k, int layout, u32 row)
{
	if (layout == PJ_KL_1x8)
		return pj_mix64(((const u64 *) k.data[0])[row]);
	if (layout == PJ_KL_2x4)
		return pj_mix64(((u64) ((const u32 *) k.data[1])[row] << 32) | (u64) ((const u32 *) k.data[0])[row]);
	{
		u64			h = 0x243F6A8885A308D3ULL;

		for (int c = 0; c < k.n; c++)
			h = pj_mix64(h ^ pj_key_val(k, c, row)) + 0x9E3779B97F4A7C15ULL * (u64) (c + 1);
		return pj_mix64(h);
	}
}

__device__ static inline u32
pj_fold(u32 k)
{
	return k;
}

__device__ static inline u32
pj_fold(u64 k)
{
	return (u32) (k ^ (k >> 32));
}

/* bucket of a shared-memory table: multiplicative hash of all bits (rows of one partition share the
 * partition bits, the product's top bits still differ) */
template <class K>
__device__ static inline u32
pj_bucket(K kw)
{
	return (pj_fold(kw) * 0x9E3779B1u) >> (32 - PJ_NB_BITS);
}

/* slot of the pipelined table of 2^tbits slots (10 <= tbits <= 31) */
template <class K>
__device__ static inline u32
pj_hpos(K kw, int tbits)
{
	return (pj_fold(kw) * 0x9E3779B1u) >> (32 - tbits);
}

/* ---- block-wide reservation of output slots --------------------------------------------------- */

/*
 * Every thread of the block calls this with cnt[j] = rows it writes for its item j.  Returns the first
 * output index of the block's round (from one atomicAdd on *counter) and sets pre[j] so that item j's rows
 * go to base + pre[j] ...: items in the order j-major, then thread: item j of thread t is S row
 * r0 + j * PJ_BLOCK + t, so the round's rows come out in S order.  Two __syncthreads; the shared arrays
 * are written by warp 0 only between them (see the race note in the caller's loop: calls must be made
 * by all threads the same number of times).
 */
__device__ static inline u64
pj_reserve(const u32 (&cnt)[PJ_ITEMS], u64 (&pre)[PJ_ITEMS], unsigned long long *counter,
		   u64 *s_wsum, u64 *s_woff, u64 *s_base)
{
	const int	lane = threadIdx.x & 31;
	const int	w = threadIdx.x >> 5;

#pragma unroll
	for (int j = 0; j < PJ_ITEMS; j++)
	{
		u64			x = cnt[j];

#pragma unroll
		for (int o = 1; o < 32; o <<= 1)
		{
			u64			y = __shfl_up_sync(0xffffffffu, x, o);

			if (lane >= o)
				x += y;
		}
		pre[j] = x - cnt[j];
		if (lane == 31)
			s_wsum[j * PJ_NWARPS + w] = x;
	}
	__syncthreads();
	if (w == 0)
	{
		const int	NV = PJ_ITEMS * PJ_NWARPS;
		const int	VPL = (NV + 31) / 32;
		u64			loc[VPL];
		u64			t = 0;

#pragma unroll
		for (int q = 0; q < VPL; q++)
		{
			int			idx = lane * VPL + q;

			loc[q] = idx < NV ? s_wsum[idx] : 0;
			t += loc[q];
		}
		u64			x = t;

#pragma unroll
		for (int o = 1; o < 32; o <<= 1)
		{
			u64			y = __shfl_up_sync(0xffffffffu, x, o);

			if (lane >= o)
				x += y;
		}
		u64			total = __shfl_sync(0xffffffffu, x, 31);
		u64			run = x - t;

#pragma unroll
		for (int q = 0; q < VPL; q++)
		{
			int			idx = lane * VPL + q;

			if (idx < NV)
				s_woff[idx] = run;
			run += loc[q];
		}
		if (lane == 0)
			*s_base = total > 0 ? (u64) atomicAdd(counter, (unsigned long long) total) : 0;
	}
	__syncthreads();

	u64			base = *s_base;

#pragma unroll
	for (int j = 0; j < PJ_ITEMS; j++)
		pre[j] += s_woff[j * PJ_NWARPS + w];
	return base;
}

/* ---- what the join / emit kernels write ---------------------------------------------------------- */

struct PjOut
{
	int			klayout;		/* key write: PJ_KL_1x4 / 1x8 / 2x4 (key0 != NULL) */
	void	   *key0;			/* result arrays, index off + o */
	void	   *key1;
	u8		   *knull0;
	u8		   *knull1;
	void	   *rv;				/* R's value (p1 or row id); packed: the low 4 bytes (payload 0) */
	void	   *sv;
	void	   *rv2;			/* packed value (PR / PS): its high 4 bytes (payload 1) */
	void	   *sv2;
	u8		   *rnull;			/* R's p1 NULL flag (LEFT without R's own NULLs) */
	u8		   *rnull2;			/* packed: payload 1's NULL flag (LEFT) */
	u64			rv_none;		/* rv of an unmatched row: 0 (p1) or PJ_NONE (ids) */
	u32		   *rpos;			/* positions in the partitioned order, index o */
	u32		   *spos;
	u64			off;
	u64			cap;			/* writes with o >= cap are dropped (counted) */
};

template <class K>
__device__ static inline void pj_write_key(const PjOut &o, u64 f, K kw);

template <>
__device__ inline void
pj_write_key<u32>(const PjOut &o, u64 f, u32 kw)
{
	((u32 *) o.key0)[f] = pj_unmix32(kw);
	if (o.knull0)
		o.knull0[f] = 0;
}

template <>
__device__ inline void
pj_write_key<u64>(const PjOut &o, u64 f, u64 kw)
{
	u64			x = pj_unmix64(kw);

	if (o.klayout == PJ_KL_2x4)
	{
		((u32 *) o.key0)[f] = (u32) x;
		((u32 *) o.key1)[f] = (u32) (x >> 32);
		if (o.knull1)
			o.knull1[f] = 0;
	}
	else
		((u64 *) o.key0)[f] = x;
	if (o.knull0)
		o.knull0[f] = 0;
}

/* a carried value into its result array(s); PACKED: two 4-byte columns in a u64 (lo: the low half) */
template <class V, bool PACKED>
__device__ static inline void
pj_put_val(void *lo, void *hi, u64 f, V v)
{
	if constexpr (PACKED)
	{
		((u32 *) lo)[f] = (u32) (u64) v;
		((u32 *) hi)[f] = (u32) ((u64) v >> 32);
	}
	else
		((V *) lo)[f] = v;
}

/* PR / PS: R's / S's value is packed (compile-time, so that the other paths keep their code) */
template <class K, class VR, class VS, bool PR, bool PS>
__device__ static inline void
pj_emit_row(const PjOut &o, u64 oo, K kw, bool matched, VR rval, VS sval, u32 rpos, u32 spos)
{
	if (oo >= o.cap)
		return;

	u64			f = o.off + oo;

	if (o.key0)
		pj_write_key<K>(o, f, kw);
	if (o.rv)
		pj_put_val<VR, PR>(o.rv, o.rv2, f, matched ? rval : (VR) o.rv_none);
	if (o.sv)
		pj_put_val<VS, PS>(o.sv, o.sv2, f, sval);
	if (o.rnull)
		o.rnull[f] = matched ? 0 : 1;
	if constexpr (PR)
	{
		if (o.rnull2)
			o.rnull2[f] = matched ? 0 : 1;
	}
	if (o.rpos)
		o.rpos[oo] = matched ? rpos : PJ_NONE;
	if (o.spos)
		o.spos[oo] = spos;
}

/* ================================================================================================
 * Kernels: hashing, partition bounds, work units
 * ================================================================================================
 */

/*
 * Hash pass of a side: for virtual row v (row = sel[v], or base + v) write kw, and as asked the pid
 * (digit), the row id, and a copy of the first payload (when rows are selected, the sort needs it in
 * virtual order).  p1hi != NULL: the copy is the packed value (V = u64), payload 0 (4 bytes, p1) in
 * the low half and payload 1 (4 bytes, p1hi) in the high half.
 */
template <class K, class V>
__global__ void __launch_bounds__(PJ_TPB)
pj_prep(const __grid_constant__ PjKeys keys, int layout, const u32 *sel, u32 base, u32 n, int shift, u32 pmask,
		K *kw, u16 *pid, u32 *ids, const void *p1, const u32 *p1hi, V *p1_out)
{
	for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x)
	{
		u32			row = sel ? sel[v] : base + v;
		K			w = pj_key_word<K>(keys, layout, row);

		kw[v] = w;
		if (pid)
			pid[v] = (u16) ((u32) (w >> shift) & pmask);
		if (ids)
			ids[v] = row;
		if (p1_out)
		{
			if (p1hi != NULL)
				p1_out[v] = (V) (((u64) p1hi[row] << 32) | (u64) ((const u32 *) p1)[row]);
			else
				p1_out[v] = ((const V *) p1)[row];
		}
	}
}

/*
 * start[p] for p in [0, P]: first position of partition p in kw (sorted by the digit), i.e. the first i
 * with digit(kw[i]) >= p (n for p = P): one binary search per partition (P + 1 threads, log2(n) reads
 * each, the upper levels shared in cache) instead of a pass over all n words.
 */
template <class K>
__global__ void __launch_bounds__(PJ_TPB)
pj_bounds(const K *kw, u32 n, int shift, u32 pmask, u32 P, u32 *start)
{
	for (u32 p = blockIdx.x * blockDim.x + threadIdx.x; p <= P; p += gridDim.x * blockDim.x)
	{
		u32			lo = 0,
					hi = n;

		while (lo < hi)
		{
			u32			mid = lo + (hi - lo) / 2;

			if (((u32) (kw[mid] >> shift) & pmask) < p)
				lo = mid + 1;
			else
				hi = mid;
		}
		start[p] = lo;
	}
}

__global__ void __launch_bounds__(PJ_TPB)
pj_units_count(const u32 *Rs, const u32 *Ss, u32 P, u32 rcap, u32 scap, u64 *cnt)
{
	for (u32 p = blockIdx.x * blockDim.x + threadIdx.x; p <= P; p += gridDim.x * blockDim.x)
	{
		if (p == P)
		{
			cnt[p] = 0;
			continue;
		}
		u32			nr = Rs[p + 1] - Rs[p];
		u32			ns = Ss[p + 1] - Ss[p];

		cnt[p] = (nr > 0 && ns > 0) ? (u64) ((nr + rcap - 1) / rcap) * (u64) ((ns + scap - 1) / scap) : 0;
	}
}

/* unit u: its partition by binary search in the exclusive sums uoff[0..P] (uoff[P] = U) */
__global__ void __launch_bounds__(PJ_TPB)
pj_units_fill(const u64 *uoff, u32 P, const u32 *Rs, const u32 *Ss, u32 rcap, u32 scap, u64 U, uint4 *units)
{
	for (u64 u = (u64) blockIdx.x * blockDim.x + threadIdx.x; u < U; u += (u64) gridDim.x * blockDim.x)
	{
		u32			lo = 0,
					hi = P;

		while (hi - lo > 1)
		{
			u32			mid = lo + (hi - lo) / 2;

			if (uoff[mid] <= u)
				lo = mid;
			else
				hi = mid;
		}

		u32			p = lo;
		u64			local = u - uoff[p];
		u32			nr = Rs[p + 1] - Rs[p];
		u32			rc = (nr + rcap - 1) / rcap;
		u32			ri = (u32) (local % rc);
		u32			si = (u32) (local / rc);
		uint4		x;

		x.x = Rs[p] + ri * rcap;
		x.y = min(Rs[p] + (ri + 1) * rcap, Rs[p + 1]);
		x.z = Ss[p] + si * scap;
		x.w = (u32) min((u64) Ss[p] + (u64) (si + 1) * scap, (u64) Ss[p + 1]);
		units[u] = x;
	}
}

/* ================================================================================================
 * The join kernel: one block per work unit
 * ================================================================================================
 */

extern __shared__ __align__(16) unsigned char pj_smem[];

template <class K, class VR>
__device__ static inline u32
pj_count(K k, u32 sid, const K *sk, const VR *sv, const u16 *snext, const u32 *shead,
		 int verify, const PjKeys &rk, const PjKeys &skk, bool any)
{
	u32			c = 0;
	u32			i = shead[pj_bucket(k)];

	while (i != PJ_NONE)
	{
		if (sk[i] == k && (!verify || pj_keys_equal(rk, (u32) sv[i], skk, sid)))
		{
			c++;
			if (any)
				break;
		}

		u16			nx = snext[i];

		i = nx == 0xFFFF ? PJ_NONE : (u32) nx;
	}
	return c;
}

/*
 * Shared memory (dynamic): kw[rcap] | values[rcap] | next[rcap] (u16) | head[PJ_NB] (u32).
 * rcap is a multiple of 64 and at most 65534.
 */
template <class K, class VR, class VS, bool PR, bool PS>
__global__ void __launch_bounds__(PJ_BLOCK, 2)
pj_join(const uint4 *units, u32 rcap, const K *kR, const VR *vR, const K *kS, const VS *vS,
		int mode, u8 *flags, int verify, const __grid_constant__ PjKeys rkeys,
		const __grid_constant__ PjKeys skeys, const __grid_constant__ PjOut o, unsigned long long *counter)
{
	__shared__ u64 s_wsum[PJ_ITEMS * PJ_NWARPS];
	__shared__ u64 s_woff[PJ_ITEMS * PJ_NWARPS];
	__shared__ u64 s_base;

	K		   *sk = (K *) pj_smem;
	VR		   *sv = (VR *) (pj_smem + (size_t) rcap * sizeof(K));
	u16		   *snext = (u16 *) (pj_smem + (size_t) rcap * (sizeof(K) + sizeof(VR)));
	u32		   *shead = (u32 *) (pj_smem + (size_t) rcap * (sizeof(K) + sizeof(VR) + 2));

	const uint4 u = units[blockIdx.x];
	const u32	rb = u.x,
				nr = u.y - u.x,
				sb = u.z,
				ns = u.w - u.z;
	const int	tid = threadIdx.x;
	const bool	load_rv = o.rv != NULL || verify;
	const bool	load_sv = o.sv != NULL || verify;

	for (u32 i = tid; i < PJ_NB; i += PJ_BLOCK)
		shead[i] = PJ_NONE;
	__syncthreads();

	/* load the R chunk and build the chains */
	for (u32 i0 = 0; i0 < nr; i0 += PJ_BLOCK * 4)
	{
		K			k[4];
		VR			v[4];

#pragma unroll
		for (int j = 0; j < 4; j++)
		{
			u32			i = i0 + j * PJ_BLOCK + tid;

			k[j] = 0;
			v[j] = 0;
			if (i < nr)
			{
				k[j] = kR[rb + i];
				if (load_rv)
					v[j] = vR[rb + i];
			}
		}
#pragma unroll
		for (int j = 0; j < 4; j++)
		{
			u32			i = i0 + j * PJ_BLOCK + tid;

			if (i < nr)
			{
				sk[i] = k[j];
				sv[i] = v[j];
				snext[i] = (u16) atomicExch(&shead[pj_bucket(k[j])], i);
			}
		}
	}
	__syncthreads();

	/* probe in rounds of PJ_ROUND S rows (the loop is uniform over the block) */
	for (u32 r0 = 0; r0 < ns; r0 += PJ_ROUND)
	{
		K			k[PJ_ITEMS];
		VS			v[PJ_ITEMS];
		u32			c[PJ_ITEMS];

#pragma unroll
		for (int j = 0; j < PJ_ITEMS; j++)
		{
			u32			i = r0 + j * PJ_BLOCK + tid;

			k[j] = 0;
			v[j] = 0;
			if (i < ns)
			{
				k[j] = kS[sb + i];
				if (load_sv)
					v[j] = vS[sb + i];
			}
		}
#pragma unroll
		for (int j = 0; j < PJ_ITEMS; j++)
		{
			u32			i = r0 + j * PJ_BLOCK + tid;

			c[j] = i < ns ? pj_count<K, VR>(k[j], (u32) v[j], sk, sv, snext, shead, verify, rkeys, skeys,
											  mode == PJ_JM_FLAG) : 0;
			if (flags != NULL && c[j] > 0)
				flags[sb + i] = 1;
		}
		if (mode == PJ_JM_FLAG)
			continue;

		u64			pre[PJ_ITEMS];
		u64			base = pj_reserve(c, pre, counter, s_wsum, s_woff, &s_base);

#pragma unroll
		for (int j = 0; j < PJ_ITEMS; j++)
		{
			if (c[j] == 0)
				continue;

			u64			oo = base + pre[j];
			u32			sidx = sb + r0 + j * PJ_BLOCK + tid;
			u32			i = shead[pj_bucket(k[j])];

			while (i != PJ_NONE)
			{
				if (sk[i] == k[j] && (!verify || pj_keys_equal(rkeys, (u32) sv[i], skeys, (u32) v[j])))
					pj_emit_row<K, VR, VS, PR, PS>(o, oo++, k[j], true, sv[i], v[j], rb + i, sidx);

				u16			nx = snext[i];

				i = nx == 0xFFFF ? PJ_NONE : (u32) nx;
			}
		}
	}
}

/*
 * After the join: the S rows (partitioned order, n of them) whose flag equals want get one row each
 * (LEFT / ANTI: unmatched, R columns NULL; SEMI: matched).  Grid-stride over rounds.
 */
template <class K, class VR, class VS, bool PR, bool PS>
__global__ void __launch_bounds__(PJ_BLOCK)
pj_emit_flags(const K *kS, const VS *vS, const u8 *flags, u32 n, int want, const __grid_constant__ PjOut o,
			  unsigned long long *counter)
{
	__shared__ u64 s_wsum[PJ_ITEMS * PJ_NWARPS];
	__shared__ u64 s_woff[PJ_ITEMS * PJ_NWARPS];
	__shared__ u64 s_base;

	for (u32 r0 = blockIdx.x * PJ_ROUND; r0 < n; r0 += gridDim.x * PJ_ROUND)
	{
		u32			c[PJ_ITEMS];

#pragma unroll
		for (int j = 0; j < PJ_ITEMS; j++)
		{
			u32			i = r0 + j * PJ_BLOCK + threadIdx.x;

			c[j] = (i < n && (flags[i] != 0) == (want != 0)) ? 1 : 0;
		}

		u64			pre[PJ_ITEMS];
		u64			base = pj_reserve(c, pre, counter, s_wsum, s_woff, &s_base);

#pragma unroll
		for (int j = 0; j < PJ_ITEMS; j++)
		{
			u32			i = r0 + j * PJ_BLOCK + threadIdx.x;

			if (c[j])
				pj_emit_row<K, VR, VS, PR, PS>(o, base + pre[j], kS[i], false, (VR) 0, o.sv ? vS[i] : (VS) 0, PJ_NONE,
											   i);
		}
	}
}

/* ================================================================================================
 * Gathers
 * ================================================================================================
 */

/* dst[i] = src[idx[i]] (idx NONE: none_val, NULL flag 1); dstnull from srcnull (or 0) */
template <class W>
__global__ void __launch_bounds__(PJ_TPB)
pj_gather(const u32 *idx, u32 m, const W *src, const u8 *srcnull, W *dst, u8 *dstnull, W none_val)
{
	for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x)
	{
		u32			id = idx[i];

		if (id == PJ_NONE)
		{
			dst[i] = none_val;
			if (dstnull)
				dstnull[i] = 1;
		}
		else
		{
			dst[i] = src[id];
			if (dstnull)
				dstnull[i] = srcnull ? srcnull[id] : 0;
		}
	}
}

/* several columns gathered by one row id: width 4 / 8 (data and NULL flag) or 0 (NULL flag only) */
struct PjGCol
{
	int			width;
	const void *src;
	const u8   *srcnull;
	void	   *dst;			/* result array (index: output row) */
	u8		   *dstnull;
};

struct PjGSet
{
	int			n;
	PjGCol		c[PJ_MAX_GCOLS];
};

__device__ static inline void
pj_gset_emit(const PjGSet &g, u64 f, u32 id)
{
	for (int k = 0; k < g.n; k++)
	{
		const PjGCol &c = g.c[k];

		if (id == PJ_NONE)
		{
			if (c.width == 4)
				((u32 *) c.dst)[f] = 0;
			else if (c.width == 8)
				((u64 *) c.dst)[f] = 0;
			if (c.dstnull)
				c.dstnull[f] = 1;
		}
		else
		{
			if (c.width == 4)
				((u32 *) c.dst)[f] = ((const u32 *) c.src)[id];
			else if (c.width == 8)
				((u64 *) c.dst)[f] = ((const u64 *) c.src)[id];
			if (c.dstnull)
				c.dstnull[f] = c.srcnull ? c.srcnull[id] : 0;
		}
	}
}

/* output rows dst_off + i, i < n, from row ids[i] (ids NULL: all NONE) */
__global__ void __launch_bounds__(PJ_TPB)
pj_gather_ids(const __grid_constant__ PjGSet g, const u32 *ids, u64 n, u64 dst_off)
{
	for (u64 i = (u64) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64) gridDim.x * blockDim.x)
		pj_gset_emit(g, dst_off + i, ids ? ids[i] : PJ_NONE);
}

/* text: lengths (into the result's offsets array, scanned in place afterwards) and NULL flags */
__global__ void __launch_bounds__(PJ_TPB)
pj_text_len(const u32 *ids, u64 m, const int64_t *off, const u8 *srcnull, int64_t *lens, u8 *dstnull)
{
	for (u64 i = (u64) blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64) gridDim.x * blockDim.x)
	{
		u32			id = ids[i];
		bool		nul = id == PJ_NONE || (srcnull != NULL && srcnull[id]);

		lens[i] = nul ? 0 : off[id + 1] - off[id];
		if (dstnull)
			dstnull[i] = nul ? 1 : 0;
	}
}

/* a warp per row copies the bytes */
__global__ void __launch_bounds__(PJ_TPB)
pj_text_copy(const u32 *ids, u64 m, const int64_t *soff, const u8 *sdata, const int64_t *doff, u8 *ddata)
{
	const int	lane = threadIdx.x & 31;
	const u64	nw = (u64) gridDim.x * blockDim.x / 32;

	for (u64 i = ((u64) blockIdx.x * blockDim.x + threadIdx.x) / 32; i < m; i += nw)
	{
		int64_t		d0 = doff[i];
		int64_t		len = doff[i + 1] - d0;

		if (len <= 0)
			continue;

		const u8   *s = sdata + soff[ids[i]];

		for (int64_t b = lane; b < len; b += 32)
			ddata[d0 + b] = s[b];
	}
}

/* ================================================================================================
 * Pipelined: a global table on R, probed by S
 * ================================================================================================
 */

/* K = u32: slots (kw << 32 | id + 1), 0 = empty; K = u64: { kw, id + 1 }, .y == 0: empty */
__device__ static inline bool
pj_slot(const unsigned long long *tab, u32 pos, u32 &kw, u32 &id)
{
	unsigned long long s = tab[pos];

	if (s == 0)
		return false;
	kw = (u32) (s >> 32);
	id = (u32) s - 1;
	return true;
}

__device__ static inline bool
pj_slot(const ulonglong2 *tab, u32 pos, u64 &kw, u32 &id)
{
	ulonglong2	s = tab[pos];

	if (s.y == 0)
		return false;
	kw = s.x;
	id = (u32) (s.y - 1);
	return true;
}

__device__ static inline void
pj_slot_insert(unsigned long long *tab, u32 pos, u32 mask, u32 kw, u32 row)
{
	unsigned long long val = ((unsigned long long) kw << 32) | (unsigned long long) (row + 1);

	while (atomicCAS(&tab[pos], 0ULL, val) != 0ULL)
		pos = (pos + 1) & mask;
}

__device__ static inline void
pj_slot_insert(ulonglong2 *tab, u32 pos, u32 mask, u64 kw, u32 row)
{
	while (atomicCAS(&tab[pos].y, 0ULL, (unsigned long long) row + 1) != 0ULL)
		pos = (pos + 1) & mask;
	tab[pos].x = kw;
}

template <class K, class T>
__global__ void __launch_bounds__(PJ_TPB)
pj_ht_build(const __grid_constant__ PjKeys keys, int layout, const u32 *sel, u32 base, u32 n, T *tab, int tbits)
{
	const u32	mask = (u32) (((u64) 1 << tbits) - 1);

	for (u32 v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x)
	{
		u32			row = sel ? sel[v] : base + v;
		K			kw = pj_key_word<K>(keys, layout, row);

		pj_slot_insert(tab, pj_hpos(kw, tbits), mask, kw, row);
	}
}

template <class K, class T>
__device__ static inline u32
pj_ht_count(const T *tab, u32 pos, u32 mask, K kw, u32 row, int verify, const PjKeys &rk, const PjKeys &sk)
{
	u32			c = 0;
	K			k;
	u32			id;

	while (pj_slot(tab, pos, k, id))
	{
		if (k == kw && (!verify || pj_keys_equal(rk, id, sk, row)))
			c++;
		pos = (pos + 1) & mask;
	}
	return c;
}

/*
 * Probe of S rows base .. base + n - 1.  The probe selects its rows itself (no selection vector): with
 * FILTER, a row with a NULL key, or (gbits > 0) whose kw's top gbits bits are not `batch`, produces
 * nothing here (the NULL-key rows of ANTI / LEFT are written by the null step, the other batches' rows
 * by their batch).  Without FILTER (no NULL arrays in S's key, one batch) every row is probed.
 */
template <class K, class T, bool FILTER>
__global__ void __launch_bounds__(PJ_BLOCK)
pj_ht_probe(const __grid_constant__ PjKeys skeys, int layout, u32 base, u32 n, int gbits, u32 batch,
			const T *tab, int tbits, int verify, const __grid_constant__ PjKeys rkeys, int kind,
			const __grid_constant__ PjGSet gr, const __grid_constant__ PjGSet gs, u32 *rids, u32 *sids,
			u64 off, u64 cap, unsigned long long *counter)
{
	__shared__ u64 s_wsum[PJ_ITEMS * PJ_NWARPS];
	__shared__ u64 s_woff[PJ_ITEMS * PJ_NWARPS];
	__shared__ u64 s_base;
	const u32	mask = (u32) (((u64) 1 << tbits) - 1);

	for (u32 r0 = blockIdx.x * PJ_ROUND; r0 < n; r0 += gridDim.x * PJ_ROUND)
	{
		u32			row[PJ_ITEMS];
		K			kw[PJ_ITEMS];
		u32			m[PJ_ITEMS];
		u32			c[PJ_ITEMS];
		bool		live[PJ_ITEMS];

#pragma unroll
		for (int j = 0; j < PJ_ITEMS; j++)
		{
			u32			v = r0 + j * PJ_BLOCK + threadIdx.x;

			row[j] = 0;
			kw[j] = 0;
			m[j] = 0;
			c[j] = 0;
			live[j] = false;
			if (v < n)
			{
				row[j] = base + v;
				if constexpr (FILTER)
				{
					live[j] = !pj_key_null(skeys, row[j]);
					if (live[j])
					{
						kw[j] = pj_key_word<K>(skeys, layout, row[j]);
						if (gbits > 0 && (u32) (kw[j] >> (sizeof(K) * 8 - gbits)) != batch)
							live[j] = false;
					}
				}
				else
				{
					live[j] = true;
					kw[j] = pj_key_word<K>(skeys, layout, row[j]);
				}
			}
		}
#pragma unroll
		for (int j = 0; j < PJ_ITEMS; j++)
		{
			if (!live[j])
				continue;
			m[j] = pj_ht_count<K, T>(tab, pj_hpos(kw[j], tbits), mask, kw[j], row[j], verify, rkeys, skeys);
			c[j] = kind == TM_PJOIN_INNER ? m[j] :
				kind == TM_PJOIN_SEMI ? (m[j] > 0) :
				kind == TM_PJOIN_ANTI ? (m[j] == 0) : (m[j] > 0 ? m[j] : 1);
		}

		u64			pre[PJ_ITEMS];
		u64			base0 = pj_reserve(c, pre, counter, s_wsum, s_woff, &s_base);

#pragma unroll
		for (int j = 0; j < PJ_ITEMS; j++)
		{
			if (c[j] == 0)
				continue;

			u64			oo = base0 + pre[j];

			if ((kind == TM_PJOIN_INNER || kind == TM_PJOIN_LEFT) && m[j] > 0)
			{
				u32			pos = pj_hpos(kw[j], tbits);
				K			k;
				u32			id;

				while (pj_slot(tab, pos, k, id))
				{
					if (k == kw[j] && (!verify || pj_keys_equal(rkeys, id, skeys, row[j])))
					{
						if (oo < cap)
						{
							pj_gset_emit(gr, off + oo, id);
							pj_gset_emit(gs, off + oo, row[j]);
							if (rids)
								rids[off + oo] = id;
							if (sids)
								sids[off + oo] = row[j];
						}
						oo++;
					}
					pos = (pos + 1) & mask;
				}
			}
			else if (oo < cap)
			{
				/* LEFT without a match, SEMI, ANTI: one row, R side NULL */
				pj_gset_emit(gr, off + oo, PJ_NONE);
				pj_gset_emit(gs, off + oo, row[j]);
				if (rids)
					rids[off + oo] = PJ_NONE;
				if (sids)
					sids[off + oo] = row[j];
			}
		}
	}
}

/* ---- selections (CUB DeviceSelect::If over row numbers) ------------------------------------------ */

template <class K>
struct PjSelPred
{
	PjKeys		keys;
	int			layout;
	int			want_null;		/* 1: rows with a NULL key; 0: rows without, in batch `batch` */
	int			gbits;
	u32			batch;

	__device__ __forceinline__ bool operator()(const u32 &row) const
	{
		bool		isnull = pj_key_null(keys, row);

		if (want_null)
			return isnull;
		if (isnull)
			return false;
		if (gbits == 0)
			return true;

		K			kw = pj_key_word<K>(keys, layout, row);

		return (u32) (kw >> (sizeof(K) * 8 - gbits)) == batch;
	}
};

/* ================================================================================================
 * Host side: context, memory arena, errors, timing
 * ================================================================================================
 */

namespace
{

struct PjBlk
{
	size_t		off;
	size_t		size;
	bool		used;
	bool		hi;
};

struct PjLive
{
	void	   *p;
	size_t		n;
};

struct PjRec
{
	int			ph;				/* TM_PJOIN_PH_*, or 100 + j (R payload j), 200 + j (S payload j) */
	cudaEvent_t a;
	cudaEvent_t b;
};

struct PjCtx
{
	cudaStream_t st;
	bool		dry;			/* sizes only: no device work */
	int			mem_mode;		/* 0 cudaMallocAsync, 1 workspace (or dry), 2 callbacks */
	char	   *ws;
	size_t		ws_size;
	std::vector<PjBlk> blks;
	TmPjoinAllocFn fa;
	TmPjoinFreeFn ff;
	void	   *fctx;
	std::vector<PjLive> live;
	size_t		cur;
	size_t		peak;
	size_t		ws_peak;
	bool		alloc_failed;	/* an allocation failed: batching may help */
	bool		output_failed;	/* the first allocation of the result failed: it cannot */

	int			rc;
	char	   *err;
	int			errlen;

	int			nsm;
	int			smem_optin;

	bool		timing;
	std::vector<PjRec> recs;
	std::vector<cudaEvent_t> evpool;
	size_t		evused;
	int			open_ph;
	cudaEvent_t open_ev;

	double		bytes;
	u64			units;
	int			last_bits;
	int			grows;
	u64			need_rows;		/* most result rows seen (for a retry) */
	u64			text_rows_est;	/* dry: estimated result rows */
};

int
pj_fail(PjCtx *c, int rc, const char *fmt, ...)
{
	if (c->rc == 0)
	{
		c->rc = rc;
		if (c->err != NULL && c->errlen > 0)
		{
			va_list		ap;

			va_start(ap, fmt);
			vsnprintf(c->err, (size_t) c->errlen, fmt, ap);
			va_end(ap);
		}
	}
	return c->rc;
}

int
pj_fail_cuda(PjCtx *c, const char *what, cudaError_t e)
{
	return pj_fail(c, TM_PJOIN_ERR_CUDA, "tm_pjoin: %s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

#define CK(...) \
	do { \
		cudaError_t ck_e_ = (__VA_ARGS__); \
		if (ck_e_ != cudaSuccess) \
			return pj_fail_cuda(c, #__VA_ARGS__, ck_e_); \
	} while (0)

/* propagate a negative rc */
#define TRY(...) \
	do { \
		int try_rc_ = (__VA_ARGS__); \
		if (try_rc_ != 0) \
			return try_rc_; \
	} while (0)

size_t
pj_round(size_t n)
{
	return ((n > 0 ? n : 1) + PJ_ALIGN - 1) & ~(size_t) (PJ_ALIGN - 1);
}

/* first fit in the workspace blocks; hi: the highest fitting block, taken at its top end */
bool
pj_ws_alloc(PjCtx *c, size_t n, bool hi, size_t *off)
{
	if (!hi)
	{
		for (size_t i = 0; i < c->blks.size(); i++)
		{
			PjBlk		b = c->blks[i];

			if (b.used || b.size < n)
				continue;
			c->blks[i].size = n;
			c->blks[i].used = true;
			c->blks[i].hi = false;
			if (b.size > n)
			{
				PjBlk		rest = {b.off + n, b.size - n, false, false};

				c->blks.insert(c->blks.begin() + (long) i + 1, rest);
			}
			*off = b.off;
			return true;
		}
		return false;
	}
	for (size_t k = c->blks.size(); k > 0; k--)
	{
		size_t		i = k - 1;
		PjBlk		b = c->blks[i];

		if (b.used || b.size < n)
			continue;

		PjBlk		mine = {b.off + b.size - n, n, true, true};

		if (b.size > n)
		{
			c->blks[i].size = b.size - n;
			c->blks.insert(c->blks.begin() + (long) i + 1, mine);
		}
		else
			c->blks[i] = mine;
		*off = mine.off;
		return true;
	}
	return false;
}

void
pj_ws_free(PjCtx *c, size_t off)
{
	for (size_t i = 0; i < c->blks.size(); i++)
	{
		if (c->blks[i].off != off || !c->blks[i].used)
			continue;
		c->blks[i].used = false;
		if (i + 1 < c->blks.size() && !c->blks[i + 1].used)
		{
			c->blks[i].size += c->blks[i + 1].size;
			c->blks.erase(c->blks.begin() + (long) i + 1);
		}
		if (i > 0 && !c->blks[i - 1].used)
		{
			c->blks[i - 1].size += c->blks[i].size;
			c->blks.erase(c->blks.begin() + (long) i);
		}
		return;
	}
}

void
pj_ws_extent(PjCtx *c)
{
	size_t		lo = 0,
				hi = 0;

	for (const PjBlk &b : c->blks)
	{
		if (!b.used)
			continue;
		if (b.hi)
		{
			if (c->ws_size - b.off > hi)
				hi = c->ws_size - b.off;
		}
		else if (b.off + b.size > lo)
			lo = b.off + b.size;
	}
	if (lo + hi > c->ws_peak)
		c->ws_peak = lo + hi;
}

/* device memory (NULL with the error set when there is none); hi: long-lived (results) */
void *
pj_alloc(PjCtx *c, size_t bytes, bool hi = false)
{
	size_t		n = pj_round(bytes);
	void	   *p = NULL;

	if (c->rc != 0)
		return NULL;
	if (c->mem_mode == 1)
	{
		size_t		off;

		if (pj_ws_alloc(c, n, hi, &off))
		{
			p = c->ws + off;
			pj_ws_extent(c);
		}
	}
	else if (c->mem_mode == 2)
		p = c->fa(c->fctx, n);
	else
	{
		cudaError_t e = cudaMallocAsync(&p, n, c->st);

		if (e != cudaSuccess)
		{
			(void) cudaGetLastError();
			if (e != cudaErrorMemoryAllocation)
			{
				pj_fail_cuda(c, "cudaMallocAsync", e);
				return NULL;
			}
			p = NULL;
		}
	}
	if (p == NULL)
	{
		c->alloc_failed = true;
		pj_fail(c, TM_PJOIN_ERR_NOMEM, "tm_pjoin: out of device memory: %zu bytes more needed (%zu in use%s)",
				n, c->cur, c->mem_mode == 1 ? " of the workspace" : "");
		return NULL;
	}
	c->live.push_back(PjLive{p, n});
	c->cur += n;
	if (c->cur > c->peak)
		c->peak = c->cur;
	return p;
}

void
pj_release(PjCtx *c, void *p)
{
	if (c->mem_mode == 1)
		pj_ws_free(c, (size_t) ((char *) p - c->ws));
	else if (c->mem_mode == 2)
		c->ff(c->fctx, p);
	else
		(void) cudaFreeAsync(p, c->st);
}

void
pj_free(PjCtx *c, void *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < c->live.size(); i++)
	{
		if (c->live[i].p != p)
			continue;
		c->cur -= c->live[i].n;
		c->live.erase(c->live.begin() + (long) i);
		pj_release(c, p);
		return;
	}
}

/* keep p (part of the result): no longer tracked */
void
pj_forget(PjCtx *c, void *p)
{
	for (size_t i = 0; i < c->live.size(); i++)
		if (c->live[i].p == p)
		{
			c->live.erase(c->live.begin() + (long) i);
			return;
		}
}

void
pj_free_all(PjCtx *c)
{
	while (!c->live.empty())
		pj_free(c, c->live.back().p);
}

template <class T>
T *
pj_alloc_t(PjCtx *c, u64 n, bool hi = false)
{
	return (T *) pj_alloc(c, (size_t) n * sizeof(T), hi);
}

int
pj_grid(PjCtx *c, u64 n, int tpb = PJ_TPB)
{
	u64			b = (n + (u64) tpb - 1) / (u64) tpb;
	u64			maxb = (u64) c->nsm * (tpb >= PJ_BLOCK ? 4 : 16);

	if (b > maxb)
		b = maxb;
	return b < 1 ? 1 : (int) b;
}

template <typename... KArgs, typename... Args>
int
pj_launch(PjCtx *c, const char *name, void (*kern)(KArgs...), u64 grid, int block, size_t smem, Args... args)
{
	if (c->dry || grid == 0)
		return 0;
	if (grid > 0x7FFFFFFFull)
		return pj_fail(c, TM_PJOIN_ERR_UNSUPPORTED, "tm_pjoin: %s: grid of %llu blocks", name,
					   (unsigned long long) grid);
	kern<<<dim3((unsigned) grid), dim3((unsigned) block), smem, c->st>>>(args...);

	cudaError_t e = cudaGetLastError();

	if (e != cudaSuccess)
		return pj_fail_cuda(c, name, e);
	return 0;
}

int
pj_memset(PjCtx *c, void *p, int v, size_t n)
{
	if (c->dry || n == 0)
		return 0;
	CK(cudaMemsetAsync(p, v, n, c->st));
	return 0;
}

int
pj_copy(PjCtx *c, void *dst, const void *src, size_t n)
{
	if (c->dry || n == 0)
		return 0;
	CK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, c->st));
	return 0;
}

/* read n bytes back (waits for the stream) */
int
pj_read(PjCtx *c, void *h, const void *d, size_t n)
{
	CK(cudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, c->st));
	CK(cudaStreamSynchronize(c->st));
	return 0;
}

/* ---- timing ---- */

void
pj_ph_begin(PjCtx *c, int ph)
{
	if (!c->timing || c->dry)
		return;
	if (c->evused + 2 > c->evpool.size())
	{
		cudaEvent_t e1,
					e2;

		if (cudaEventCreate(&e1) != cudaSuccess || cudaEventCreate(&e2) != cudaSuccess)
		{
			(void) cudaGetLastError();
			c->timing = false;
			return;
		}
		c->evpool.push_back(e1);
		c->evpool.push_back(e2);
	}
	c->open_ph = ph;
	c->open_ev = c->evpool[c->evused++];
	(void) cudaEventRecord(c->open_ev, c->st);
}

void
pj_ph_end(PjCtx *c)
{
	if (!c->timing || c->dry || c->open_ph < 0)
		return;

	cudaEvent_t e = c->evpool[c->evused++];

	(void) cudaEventRecord(e, c->st);
	c->recs.push_back(PjRec{c->open_ph, c->open_ev, e});
	c->open_ph = -1;
}

/* ---- CUB wrappers ---- */

template <class K, class V>
int
pj_sort(PjCtx *c, const K *kin, K *kout, const V *vin, V *vout, u32 n, int b0, int b1)
{
	size_t		tb = 0;
	void	   *tmp;

	if (n == 0)
		return 0;
	if (vin != NULL)
		CK(cub::DeviceRadixSort::SortPairs(NULL, tb, kin, kout, vin, vout, (int) n, b0, b1, c->st));
	else
		CK(cub::DeviceRadixSort::SortKeys(NULL, tb, kin, kout, (int) n, b0, b1, c->st));
	tmp = pj_alloc(c, tb);
	if (tmp == NULL)
		return c->rc;
	if (!c->dry)
	{
		if (vin != NULL)
			CK(cub::DeviceRadixSort::SortPairs(tmp, tb, kin, kout, vin, vout, (int) n, b0, b1, c->st));
		else
			CK(cub::DeviceRadixSort::SortKeys(tmp, tb, kin, kout, (int) n, b0, b1, c->st));
	}
	pj_free(c, tmp);

	/* traffic: one histogram pass over the keys, then per 8-bit pass keys and values read + written */
	int			passes = (b1 - b0 + 7) / 8;

	c->bytes += (double) n * (sizeof(K) + 2.0 * passes * (sizeof(K) + (vin ? sizeof(V) : 0)));
	return 0;
}

template <class T>
int
pj_exclusive_sum(PjCtx *c, T *data, u64 n)
{
	size_t		tb = 0;
	void	   *tmp;

	if (n == 0)
		return 0;
	CK(cub::DeviceScan::ExclusiveSum(NULL, tb, data, data, (int64_t) n, c->st));
	tmp = pj_alloc(c, tb);
	if (tmp == NULL)
		return c->rc;
	if (!c->dry)
		CK(cub::DeviceScan::ExclusiveSum(tmp, tb, data, data, (int64_t) n, c->st));
	pj_free(c, tmp);
	return 0;
}

/* rows of [row0, row0 + n) that satisfy pred, into out (room for n); *nsel (dry: est) */
template <class Pred>
int
pj_select(PjCtx *c, u32 row0, u32 n, Pred pred, u32 *out, u32 *nsel, u32 est)
{
	size_t		tb = 0;
	void	   *tmp;
	long long  *dnum;
	thrust::counting_iterator<u32> it(row0);

	*nsel = 0;
	if (n == 0)
		return 0;
	CK(cub::DeviceSelect::If(NULL, tb, it, out, (long long *) NULL, (int64_t) n, pred, c->st));
	dnum = pj_alloc_t<long long>(c, 1);
	tmp = pj_alloc(c, tb);
	if (tmp == NULL || dnum == NULL)
		return c->rc;
	if (c->dry)
		*nsel = est;
	else
	{
		long long	h = 0;

		CK(cub::DeviceSelect::If(tmp, tb, it, out, dnum, (int64_t) n, pred, c->st));
		TRY(pj_read(c, &h, dnum, sizeof(h)));
		*nsel = (u32) h;
	}
	pj_free(c, tmp);
	pj_free(c, dnum);
	c->bytes += (double) n * 8 + (double) *nsel * 4;
	return 0;
}

/* ================================================================================================
 * The plan of a join
 * ================================================================================================
 */

struct PjItem
{
	int			col;			/* payload column */
	int			nulls;			/* 1: its NULL array, 0: its data */
};

struct PjSide
{
	const TmPjoinRelation *rel;
	PjKeys		keys;
	bool		key_nulls;		/* some key column has a NULL array */
	bool		out;			/* its payload columns are output */
	bool		p1;				/* first payload carried through the partitioning */
	bool		pack;			/* ... packed with the second one into one u64 (GFTR, see pj_pack_ok) */
	int			vbytes;			/* bytes of the carried value (pack: 8; p1: its width; else 4: row id) */
	bool		vals;			/* the partitioning carries a value at all */
	std::vector<PjItem> items;	/* fixed-width arrays gathered after the join */
	bool		text;
	bool		need_ids;		/* row ids of the output rows (global array) */
	bool		ids_via_pos;	/* ... obtained from positions (p1 mode) */
	bool		need_pos;		/* the join writes positions */
	bool		want_pid;		/* the hash pass writes pid (for transforms) */
};

struct PjPlan
{
	int			algo;
	int			kind;
	bool		emit_keys;
	int			layout;
	bool		k64;
	bool		verify;
	PjSide		r;
	PjSide		s;
	u32			rcap;			/* R rows per unit */
	u32			scap;			/* S rows per unit */
	int			part_bits;		/* forced, or 0 */
	u64			hint;
	int			smem_budget;
	size_t		text_bytes[2][TM_PJOIN_MAX_PAYLOAD];	/* dry runs: source bytes of text columns */
	bool		text_known;
};

bool
pj_partitioned(const PjPlan *p)
{
	return p->algo != TM_PJOIN_PIPELINED;
}

u32
pj_cap_for(int kbytes, int vbytes, int budget)
{
	long		cap = ((long) budget - (long) PJ_NB * 4) / (kbytes + vbytes + 2);

	cap &= ~63L;
	if (cap > 65472)
		cap = 65472;
	if (cap < 64)
		cap = 64;
	return (u32) cap;
}

size_t
pj_smem_bytes(u32 rcap, int kbytes, int vbytes)
{
	return (size_t) rcap * (size_t) (kbytes + vbytes + 2) + (size_t) PJ_NB * 4;
}

/*
 * GFTR packs payload 1 with payload 0 into one 8-byte carried value when they are the side's only
 * fixed-width payload columns, both 4 bytes wide, and payload 1 has no NULL array (payload 0 may have
 * one: it is transformed like any further array).  Text columns do not matter (gathered by row id at the
 * end either way).  Everything else keeps the per-column transforms.
 */
bool
pj_pack_ok(const TmPjoinRelation *rel)
{
	if (rel->npayload < 2 || rel->payload[0].width != 4 || rel->payload[1].width != 4 ||
		rel->payload[1].nulls != NULL)
		return false;
	for (int j = 2; j < rel->npayload; j++)
		if (rel->payload[j].width != 0)
			return false;
	return true;
}

void
pj_plan_side(PjPlan *p, PjSide *sd, const TmPjoinRelation *rel, bool is_r)
{
	sd->rel = rel;
	memset(&sd->keys, 0, sizeof(sd->keys));
	sd->keys.n = rel->nkeys;
	sd->key_nulls = false;
	for (int c = 0; c < rel->nkeys; c++)
	{
		sd->keys.width[c] = rel->keys[c].width;
		sd->keys.data[c] = rel->keys[c].data;
		sd->keys.nulls[c] = rel->keys[c].nulls;
		if (rel->keys[c].nulls != NULL)
			sd->key_nulls = true;
	}
	sd->out = !is_r || p->kind == TM_PJOIN_INNER || p->kind == TM_PJOIN_LEFT;

	const bool	part = pj_partitioned(p);

	sd->p1 = part && sd->out && !p->verify && rel->npayload > 0 &&
		(rel->payload[0].width == 4 || rel->payload[0].width == 8);
	sd->pack = sd->p1 && p->algo == TM_PJOIN_GFTR && pj_pack_ok(rel);
	sd->vbytes = sd->pack ? 8 : sd->p1 ? rel->payload[0].width : 4;
	sd->items.clear();
	sd->text = false;
	if (sd->out)
	{
		for (int j = 0; j < rel->npayload; j++)
		{
			if (rel->payload[j].width == 0)
			{
				sd->text = true;
				continue;
			}
			if (!(sd->p1 && j == 0) && !(sd->pack && j == 1))
				sd->items.push_back(PjItem{j, 0});
			if (rel->payload[j].nulls != NULL)
				sd->items.push_back(PjItem{j, 1});
		}
	}
	if (!part)
	{
		sd->need_ids = sd->text;
		sd->ids_via_pos = false;
		sd->need_pos = false;
		sd->want_pid = false;
		sd->vals = false;
		return;
	}
	sd->need_ids = sd->text || (!is_r && p->emit_keys && p->layout == PJ_KL_WIDE) ||
		(p->algo == TM_PJOIN_GFUR && !sd->items.empty());
	sd->ids_via_pos = sd->p1 && sd->need_ids;
	sd->need_pos = (p->algo == TM_PJOIN_GFTR && !sd->items.empty()) || sd->ids_via_pos;
	sd->want_pid = sd->need_pos;
	sd->vals = sd->p1 || p->verify || (sd->need_ids && !sd->ids_via_pos);
}

int
pj_validate_rel(const TmPjoinRelation *rel, const char *name, char *err, int errlen)
{
	if (rel == NULL)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: relation %s missing", name);
		return TM_PJOIN_ERR_BAD_ARG;
	}
	if (rel->nrows < 0 || rel->nrows > 0x7FFFFFFFLL)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: %s has %lld rows (0 .. 2^31 - 1 supported)", name,
				 (long long) rel->nrows);
		return rel->nrows < 0 ? TM_PJOIN_ERR_BAD_ARG : TM_PJOIN_ERR_UNSUPPORTED;
	}
	if (rel->nkeys < 1 || rel->nkeys > TM_PJOIN_MAX_KEYS)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: %s has %d key columns (1 .. %d)", name, rel->nkeys,
				 TM_PJOIN_MAX_KEYS);
		return TM_PJOIN_ERR_BAD_ARG;
	}
	if (rel->npayload < 0 || rel->npayload > TM_PJOIN_MAX_PAYLOAD)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: %s has %d payload columns (0 .. %d)", name, rel->npayload,
				 TM_PJOIN_MAX_PAYLOAD);
		return TM_PJOIN_ERR_BAD_ARG;
	}
	for (int c = 0; c < rel->nkeys; c++)
	{
		const TmPjoinColumn *k = &rel->keys[c];

		if (k->width != 4 && k->width != 8)
		{
			snprintf(err, (size_t) errlen, "tm_pjoin: %s key %d has width %d (4 or 8)", name, c, k->width);
			return TM_PJOIN_ERR_BAD_ARG;
		}
		if (rel->nrows > 0 && (k->data == NULL || ((uintptr_t) k->data % (uintptr_t) k->width) != 0))
		{
			snprintf(err, (size_t) errlen, "tm_pjoin: %s key %d: data missing or misaligned", name, c);
			return TM_PJOIN_ERR_BAD_ARG;
		}
	}
	for (int j = 0; j < rel->npayload; j++)
	{
		const TmPjoinColumn *col = &rel->payload[j];

		if (col->width != 0 && col->width != 4 && col->width != 8)
		{
			snprintf(err, (size_t) errlen, "tm_pjoin: %s payload %d has width %d (0 = text, 4, 8)", name, j,
					 col->width);
			return TM_PJOIN_ERR_BAD_ARG;
		}
		if (col->width == 0 && (col->offsets == NULL || ((uintptr_t) col->offsets % 8) != 0))
		{
			snprintf(err, (size_t) errlen, "tm_pjoin: %s payload %d: text offsets missing or misaligned", name, j);
			return TM_PJOIN_ERR_BAD_ARG;
		}
		if (col->width != 0 && rel->nrows > 0 &&
			(col->data == NULL || ((uintptr_t) col->data % (uintptr_t) col->width) != 0))
		{
			snprintf(err, (size_t) errlen, "tm_pjoin: %s payload %d: data missing or misaligned", name, j);
			return TM_PJOIN_ERR_BAD_ARG;
		}
	}
	return 0;
}

int
pj_make_plan(PjPlan *p, const TmPjoinRelation *r, const TmPjoinRelation *s, const TmPjoinOptions *o,
			 int smem_optin, char *err, int errlen)
{
	int			rc;

	if (o == NULL)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: no options");
		return TM_PJOIN_ERR_BAD_ARG;
	}
	if ((rc = pj_validate_rel(r, "R", err, errlen)) != 0 || (rc = pj_validate_rel(s, "S", err, errlen)) != 0)
		return rc;
	if (r->nkeys != s->nkeys)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: R has %d key columns, S %d", r->nkeys, s->nkeys);
		return TM_PJOIN_ERR_BAD_ARG;
	}
	for (int c = 0; c < r->nkeys; c++)
		if (r->keys[c].width != s->keys[c].width)
		{
			snprintf(err, (size_t) errlen, "tm_pjoin: key %d is %d bytes in R, %d in S", c, r->keys[c].width,
					 s->keys[c].width);
			return TM_PJOIN_ERR_BAD_ARG;
		}
	if (o->algo < TM_PJOIN_GFTR || o->algo > TM_PJOIN_PIPELINED || o->kind < TM_PJOIN_INNER ||
		o->kind > TM_PJOIN_LEFT)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: bad algo %d / kind %d", o->algo, o->kind);
		return TM_PJOIN_ERR_BAD_ARG;
	}
	if (o->r_batches < 0 || o->r_batches > (1 << PJ_MAX_GBITS) || (o->r_batches & (o->r_batches - 1)) != 0 ||
		o->s_chunks < 0 || o->part_bits < 0 || o->part_bits > PJ_MAX_BITS || o->unit_r_rows < 0 ||
		o->unit_s_rows < 0 || o->out_rows_hint < 0)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: bad tuning options");
		return TM_PJOIN_ERR_BAD_ARG;
	}
	if (o->workspace != NULL && o->workspace_bytes < PJ_ALIGN)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: workspace of %zu bytes", o->workspace_bytes);
		return TM_PJOIN_ERR_BAD_ARG;
	}
	if (o->workspace == NULL && (o->alloc != NULL) != (o->free != NULL))
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: alloc and free go together");
		return TM_PJOIN_ERR_BAD_ARG;
	}

	p->algo = o->algo;
	p->kind = o->kind;
	p->emit_keys = o->emit_keys != 0;
	if (r->nkeys == 1 && r->keys[0].width == 4)
		p->layout = PJ_KL_1x4;
	else if (r->nkeys == 1)
		p->layout = PJ_KL_1x8;
	else if (r->nkeys == 2 && r->keys[0].width == 4 && r->keys[1].width == 4)
		p->layout = PJ_KL_2x4;
	else
		p->layout = PJ_KL_WIDE;
	p->k64 = p->layout != PJ_KL_1x4;
	p->verify = p->layout == PJ_KL_WIDE;
	pj_plan_side(p, &p->r, r, true);
	pj_plan_side(p, &p->s, s, false);
	p->part_bits = o->part_bits;
	p->hint = (u64) o->out_rows_hint;
	p->smem_budget = PJ_SMEM;
	if (smem_optin > 0 && smem_optin - 2048 < p->smem_budget)
		p->smem_budget = smem_optin - 2048;
	p->rcap = pj_cap_for(p->k64 ? 8 : 4, p->r.vbytes, p->smem_budget);
	/* a multiple of 64 keeps the shared-memory arrays aligned (8-byte values after 4-byte keys) */
	if (o->unit_r_rows > 0 && (u32) o->unit_r_rows < p->rcap)
		p->rcap = (u32) o->unit_r_rows < 64 ? 64 : ((u32) o->unit_r_rows & ~63u);
	p->scap = o->unit_s_rows > 0 ? (u32) o->unit_s_rows : PJ_UNIT_S;
	p->text_known = false;
	memset(p->text_bytes, 0, sizeof(p->text_bytes));
	return 0;
}

/* ================================================================================================
 * The result arrays
 * ================================================================================================
 */

struct PjOutBufs
{
	u64			cap;
	bool		knull;			/* key NULL arrays (S rows with NULL keys are output) */
	void	   *key[TM_PJOIN_MAX_KEYS];
	u8		   *kn[TM_PJOIN_MAX_KEYS];
	void	   *rd[TM_PJOIN_MAX_PAYLOAD];	/* fixed-width data (text: NULL until the end) */
	u8		   *rn[TM_PJOIN_MAX_PAYLOAD];
	void	   *sd[TM_PJOIN_MAX_PAYLOAD];
	u8		   *sn[TM_PJOIN_MAX_PAYLOAD];
	int64_t    *roff[TM_PJOIN_MAX_PAYLOAD];	/* text */
	int64_t    *soff[TM_PJOIN_MAX_PAYLOAD];
	u32		   *rids;
	u32		   *sids;
};

bool
pj_out_rnull(const PjPlan *p, int j)
{
	return p->r.rel->payload[j].nulls != NULL || p->kind == TM_PJOIN_LEFT;
}

bool
pj_out_snull(const PjPlan *p, int j)
{
	return p->s.rel->payload[j].nulls != NULL;
}

/* every capacity-sized array of the result, for allocation and growth: (pointer slot, bytes per row) */
void
pj_out_arrays(const PjPlan *p, PjOutBufs *o, std::vector<std::pair<void **, int>> &v)
{
	v.clear();
	if (p->emit_keys)
		for (int c = 0; c < p->s.rel->nkeys; c++)
		{
			v.push_back(std::make_pair(&o->key[c], p->s.rel->keys[c].width));
			if (o->knull)
				v.push_back(std::make_pair((void **) &o->kn[c], 1));
		}
	if (p->r.out)
		for (int j = 0; j < p->r.rel->npayload; j++)
		{
			if (p->r.rel->payload[j].width == 0)
				continue;
			v.push_back(std::make_pair(&o->rd[j], p->r.rel->payload[j].width));
			if (pj_out_rnull(p, j))
				v.push_back(std::make_pair((void **) &o->rn[j], 1));
		}
	for (int j = 0; j < p->s.rel->npayload; j++)
	{
		if (p->s.rel->payload[j].width == 0)
			continue;
		v.push_back(std::make_pair(&o->sd[j], p->s.rel->payload[j].width));
		if (pj_out_snull(p, j))
			v.push_back(std::make_pair((void **) &o->sn[j], 1));
	}
	if (p->r.need_ids)
		v.push_back(std::make_pair((void **) &o->rids, 4));
	if (p->s.need_ids)
		v.push_back(std::make_pair((void **) &o->sids, 4));
}

int
pj_out_alloc(PjCtx *c, const PjPlan *p, PjOutBufs *o, u64 cap)
{
	std::vector<std::pair<void **, int>> v;

	o->cap = cap;
	pj_out_arrays(p, o, v);
	for (auto &a : v)
	{
		*a.first = pj_alloc(c, (size_t) cap * (size_t) a.second, true);
		if (*a.first == NULL)
		{
			c->output_failed = true;
			return c->rc;
		}
	}
	return 0;
}

/* enlarge to newcap rows keeping the first keep rows */
int
pj_out_grow(PjCtx *c, const PjPlan *p, PjOutBufs *o, u64 newcap, u64 keep)
{
	std::vector<std::pair<void **, int>> v;

	pj_out_arrays(p, o, v);
	for (auto &a : v)
	{
		void	   *n = pj_alloc(c, (size_t) newcap * (size_t) a.second, true);

		if (n == NULL)
			return c->rc;
		TRY(pj_copy(c, n, *a.first, (size_t) keep * (size_t) a.second));
		pj_free(c, *a.first);
		*a.first = n;
	}
	o->cap = newcap;
	c->grows++;
	return 0;
}

/* ================================================================================================
 * Partitioned join (GFTR / GFUR)
 * ================================================================================================
 */

struct PjPart
{
	u32			n;				/* rows (virtual: selected) */
	const u32  *sel;			/* row ids of the virtual rows, or NULL: row = base + v */
	u32			base;
	int			shift;
	int			B;
	void	   *kwp;			/* partitioned key words */
	void	   *vp;				/* partitioned values (or NULL) */
	u16		   *pid;			/* digits in virtual order (transforms) */
	const u32  *ids_src;		/* row ids in virtual order (GFUR / text: transformed into positions) */
	u32		   *ids_own;		/* ids_src when allocated here */
	u32		   *start;			/* partition bounds [P + 1] */
};

void
pj_part_free(PjCtx *c, PjPart *pt)
{
	pj_free(c, pt->start);
	pj_free(c, pt->vp);
	pj_free(c, pt->kwp);
	pj_free(c, pt->ids_own);
	pj_free(c, pt->pid);
	memset(pt, 0, sizeof(*pt));
}

int
pj_choose_bits(const PjPlan *p, u32 nvR)
{
	if (p->part_bits > 0)
		return p->part_bits;

	double		target = 0.75 * p->rcap;
	int			B = 1;

	while (B < PJ_MAX_BITS && (double) nvR / (double) (1u << B) > target)
		B++;
	return B;
}

/* hash, partition (CUB), bounds */
template <class K, class V>
int
pj_partition(PjCtx *c, const PjPlan *p, const PjSide *sd, const u32 *sel, u32 base, u32 n, int shift,
			 int B, PjPart *pt)
{
	const u32	P = 1u << B;
	const bool	want_ids_src = sd->ids_via_pos;
	const bool	iota = sel == NULL && ((sd->vals && !sd->p1) || want_ids_src);

	memset(pt, 0, sizeof(*pt));
	pt->n = n;
	pt->sel = sel;
	pt->base = base;
	pt->shift = shift;
	pt->B = B;

	if (sd->want_pid && (pt->pid = pj_alloc_t<u16>(c, n)) == NULL)
		return c->rc;
	if (iota && (pt->ids_own = pj_alloc_t<u32>(c, n)) == NULL)
		return c->rc;
	if ((pt->kwp = pj_alloc_t<K>(c, n)) == NULL)
		return c->rc;
	if (sd->vals && (pt->vp = pj_alloc_t<V>(c, n)) == NULL)
		return c->rc;

	K		   *kw = pj_alloc_t<K>(c, n);
	V		   *p1c = NULL;

	if (kw == NULL)
		return c->rc;
	/* the carried payload in virtual order: needed when rows are selected, and always when packed */
	if (sd->p1 && (sel != NULL || sd->pack) && (p1c = pj_alloc_t<V>(c, n)) == NULL)
		return c->rc;

	const V    *p1src = sd->p1 ? (const V *) sd->rel->payload[0].data : NULL;
	const u32  *p1hi = sd->pack ? (const u32 *) sd->rel->payload[1].data : NULL;

	TRY(pj_launch(c, "pj_prep", pj_prep<K, V>, pj_grid(c, n), PJ_TPB, 0, sd->keys, p->layout, sel, base, n,
				  shift, P - 1, kw, pt->pid, pt->ids_own, (const void *) p1src, p1hi, p1c));
	/* packed: two 4-byte columns read, one 8-byte value written (2 * sizeof(V) as for a copy) */
	c->bytes += (double) n * (sd->rel->nkeys * 6.0 + sizeof(K) + (pt->pid ? 2 : 0) + (pt->ids_own ? 4 : 0) +
							  (p1c ? 2.0 * sizeof(V) : 0) + (sel ? 4 : 0));

	const V    *vin = NULL;

	if (sd->vals)
	{
		if (sd->p1)
			vin = p1c != NULL ? p1c : p1src + base;
		else
			vin = sel ? (const V *) sel : (const V *) pt->ids_own;
	}
	TRY(pj_sort<K, V>(c, kw, (K *) pt->kwp, vin, (V *) pt->vp, n, shift, shift + B));
	pj_free(c, p1c);
	pj_free(c, kw);
	if (pt->ids_own != NULL && !want_ids_src)
	{
		pj_free(c, pt->ids_own);
		pt->ids_own = NULL;
	}
	pt->ids_src = want_ids_src ? (sel ? sel : pt->ids_own) : NULL;

	if ((pt->start = pj_alloc_t<u32>(c, (u64) P + 1)) == NULL)
		return c->rc;
	if (n == 0)
		TRY(pj_memset(c, pt->start, 0, ((size_t) P + 1) * 4));
	else
	{
		int			levels = 1;

		while (levels < 32 && ((u64) 1 << levels) <= (u64) n)
			levels++;
		TRY(pj_launch(c, "pj_bounds", pj_bounds<K>, pj_grid(c, (u64) P + 1), PJ_TPB, 0, (const K *) pt->kwp, n,
					  shift, P - 1, P, pt->start));
		/* random 32-byte sectors (most of the upper levels from L2) */
		c->bytes += (double) (P + 1) * 32.0 * levels;
	}
	return 0;
}

/* transform (sort by pid) the n virtual rows of a column, then gather the m rows at pos into dst */
template <class W>
int
pj_transform_gather(PjCtx *c, const PjPart *pt, const W *col, bool col_is_virtual, const u32 *pos, u32 m,
					W *dst, u8 *dstnull, W none_val)
{
	const u32	n = pt->n;
	W		   *vtmp = NULL;
	const W    *vin;

	if (col_is_virtual)
		vin = col;
	else if (pt->sel != NULL)
	{
		if ((vtmp = pj_alloc_t<W>(c, n)) == NULL)
			return c->rc;
		TRY(pj_launch(c, "pj_gather(sel)", pj_gather<W>, pj_grid(c, n), PJ_TPB, 0, pt->sel, n, col,
					  (const u8 *) NULL, vtmp, (u8 *) NULL, (W) 0));
		c->bytes += (double) n * (4 + 32 + sizeof(W));
		vin = vtmp;
	}
	else
		vin = col + pt->base;

	W		   *t = pj_alloc_t<W>(c, n);
	u16		   *pidout = pj_alloc_t<u16>(c, n);

	if (t == NULL || pidout == NULL)
		return c->rc;
	TRY(pj_sort<u16, W>(c, pt->pid, pidout, vin, t, n, 0, pt->B));
	pj_free(c, pidout);
	pj_free(c, vtmp);
	TRY(pj_launch(c, "pj_gather", pj_gather<W>, pj_grid(c, m), PJ_TPB, 0, pos, m, (const W *) t,
				  (const u8 *) NULL, dst, dstnull, none_val));
	c->bytes += (double) m * (4 + 2.0 * sizeof(W) + (dstnull ? 1 : 0));
	pj_free(c, t);
	return 0;
}

/* GFTR further arrays of one side, then (p1 mode) the row ids through positions */
int
pj_side_payloads(PjCtx *c, const PjPlan *p, const PjSide *sd, bool is_r, const PjPart *pt, const u32 *pos,
				 u32 m, PjOutBufs *o, u64 off)
{
	if (p->algo == TM_PJOIN_GFTR)
	{
		for (const PjItem &it : sd->items)
		{
			const TmPjoinColumn *col = &sd->rel->payload[it.col];
			u8		   *onull = is_r ? o->rn[it.col] : o->sn[it.col];
			void	   *odata = is_r ? o->rd[it.col] : o->sd[it.col];

			pj_ph_begin(c, (is_r ? 100 : 200) + it.col);
			if (it.nulls)
				TRY(pj_transform_gather<u8>(c, pt, col->nulls, false, pos, m, onull + off, (u8 *) NULL, (u8) 1));
			else
			{
				/* the NULL flags here only where no NULL item writes them (LEFT, R without NULLs) */
				u8		   *dn = (onull != NULL && col->nulls == NULL) ? onull + off : NULL;

				if (col->width == 4)
					TRY(pj_transform_gather<u32>(c, pt, (const u32 *) col->data, false, pos, m,
												 (u32 *) odata + off, dn, 0u));
				else
					TRY(pj_transform_gather<u64>(c, pt, (const u64 *) col->data, false, pos, m,
												 (u64 *) odata + off, dn, (u64) 0));
			}
			pj_ph_end(c);
		}
	}
	if (sd->ids_via_pos)
	{
		pj_ph_begin(c, TM_PJOIN_PH_GATHER);
		TRY(pj_transform_gather<u32>(c, pt, pt->ids_src, true, pos, m, (is_r ? o->rids : o->sids) + off,
									 (u8 *) NULL, PJ_NONE));
		pj_ph_end(c);
	}
	return 0;
}

/* join one (R batch, S chunk): units, join, unmatched rows, payload transforms */
template <class K, class VR, class VS, bool PR, bool PS>
int
pj_part_step(PjCtx *c, const PjPlan *p, PjOutBufs *o, const PjPart *R, const PjPart *S, u64 *offp,
			 u64 rest, unsigned long long *counter)
{
	const u32	P = 1u << R->B;
	const u64	off = *offp;
	const int	kind = p->kind;
	u64			U = 0;

	pj_ph_begin(c, TM_PJOIN_PH_JOIN);

	/* work units */
	u64		   *cnt = pj_alloc_t<u64>(c, (u64) P + 1);

	if (cnt == NULL)
		return c->rc;
	TRY(pj_launch(c, "pj_units_count", pj_units_count, pj_grid(c, (u64) P + 1), PJ_TPB, 0,
				  (const u32 *) R->start, (const u32 *) S->start, P, p->rcap, p->scap, cnt));
	TRY(pj_exclusive_sum<u64>(c, cnt, (u64) P + 1));
	if (c->dry)
		U = P + S->n / p->scap + R->n / p->rcap + 1;
	else
		TRY(pj_read(c, &U, cnt + P, sizeof(U)));
	if (U > 0x7FFFFFFFull)
		return pj_fail(c, TM_PJOIN_ERR_UNSUPPORTED, "tm_pjoin: %llu work units (duplicate keys on both sides?)",
					   (unsigned long long) U);

	uint4	   *units = NULL;

	if (U > 0)
	{
		if ((units = pj_alloc_t<uint4>(c, U)) == NULL)
			return c->rc;
		TRY(pj_launch(c, "pj_units_fill", pj_units_fill, pj_grid(c, U), PJ_TPB, 0, (const u64 *) cnt, P,
					  (const u32 *) R->start, (const u32 *) S->start, p->rcap, p->scap, U, units));
	}
	pj_free(c, cnt);
	c->units += U;

	u8		   *flags = NULL;

	if (kind != TM_PJOIN_INNER)
	{
		if ((flags = pj_alloc_t<u8>(c, S->n)) == NULL)
			return c->rc;
		TRY(pj_memset(c, flags, 0, S->n));
	}

	u64			E = S->n > 0 ? S->n : 1;
	u32		   *rpos = NULL,
			   *spos = NULL;

	if (p->r.need_pos && (rpos = pj_alloc_t<u32>(c, E)) == NULL)
		return c->rc;
	if (p->s.need_pos && (spos = pj_alloc_t<u32>(c, E)) == NULL)
		return c->rc;

	const size_t smem = pj_smem_bytes(p->rcap, sizeof(K), sizeof(VR));
	const int	mode = kind == TM_PJOIN_INNER ? PJ_JM_EMIT : kind == TM_PJOIN_LEFT ? PJ_JM_EMIT_FLAG : PJ_JM_FLAG;
	u64			m = 0;

	if (!c->dry && U > 0)
		CK(cudaFuncSetAttribute(pj_join<K, VR, VS, PR, PS>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));

	for (;;)
	{
		u64			cap_s = o->cap - off < E ? o->cap - off : E;
		PjOut		jo;

		memset(&jo, 0, sizeof(jo));
		jo.klayout = p->layout;
		if (p->emit_keys && p->layout != PJ_KL_WIDE)
		{
			jo.key0 = o->key[0];
			jo.knull0 = o->kn[0];
			if (p->layout == PJ_KL_2x4)
			{
				jo.key1 = o->key[1];
				jo.knull1 = o->kn[1];
			}
		}
		if (p->r.out)
		{
			if (p->r.p1)
			{
				jo.rv = o->rd[0];
				jo.rv_none = 0;
				if (kind == TM_PJOIN_LEFT && p->r.rel->payload[0].nulls == NULL)
					jo.rnull = o->rn[0];
				if (p->r.pack)
				{
					/* payload 1 has no NULL array (pj_pack_ok): NULL flags only for LEFT's unmatched rows */
					jo.rv2 = o->rd[1];
					if (kind == TM_PJOIN_LEFT)
						jo.rnull2 = o->rn[1];
				}
			}
			else if (p->r.need_ids)
			{
				jo.rv = o->rids;
				jo.rv_none = PJ_NONE;
			}
			jo.rpos = rpos;
		}
		if (p->s.p1)
		{
			jo.sv = o->sd[0];
			if (p->s.pack)
				jo.sv2 = o->sd[1];
		}
		else if (p->s.need_ids)
			jo.sv = o->sids;
		jo.spos = spos;
		jo.off = off;
		jo.cap = cap_s;

		TRY(pj_memset(c, counter, 0, sizeof(*counter)));
		TRY(pj_launch(c, "pj_join", pj_join<K, VR, VS, PR, PS>, U, PJ_BLOCK, smem, (const uint4 *) units, p->rcap,
					  (const K *) R->kwp, (const VR *) R->vp, (const K *) S->kwp, (const VS *) S->vp, mode,
					  flags, (int) p->verify, p->r.keys, p->s.keys, jo, counter));
		if (kind != TM_PJOIN_INNER)
			TRY(pj_launch(c, "pj_emit_flags", pj_emit_flags<K, VR, VS, PR, PS>, pj_grid(c, S->n, PJ_ROUND), PJ_BLOCK, 0,
						  (const K *) S->kwp, (const VS *) S->vp, (const u8 *) flags, S->n,
						  kind == TM_PJOIN_SEMI ? 1 : 0, jo, counter));
		if (c->dry)
			m = cap_s;
		else
		{
			unsigned long long h = 0;

			TRY(pj_read(c, &h, counter, sizeof(h)));
			m = h;
		}
		if (off + m > c->need_rows)
			c->need_rows = off + m;
		if (m <= cap_s)
			break;
		if (m > 0xFFFFFFFEull)
			return pj_fail(c, TM_PJOIN_ERR_UNSUPPORTED, "tm_pjoin: %llu result rows from one batch (2^32 - 2 at most)",
						   (unsigned long long) m);
		if (off + m > o->cap)
		{
			/* room for this batch, and the rest at this batch's rate */
			u64			newcap = off + m + (u64) ((double) m / (double) (S->n > 0 ? S->n : 1) * (double) rest);

			TRY(pj_out_grow(c, p, o, newcap, off));
		}
		if (m > E)
		{
			pj_free(c, spos);
			pj_free(c, rpos);
			rpos = spos = NULL;
			E = m;
			if (p->r.need_pos && (rpos = pj_alloc_t<u32>(c, E)) == NULL)
				return c->rc;
			if (p->s.need_pos && (spos = pj_alloc_t<u32>(c, E)) == NULL)
				return c->rc;
		}
	}
	/* traffic: both sides read once (R chunks once per S chunk of their partition), rows written */
	{
		double		row_bytes = (p->emit_keys ? 4.0 * p->s.rel->nkeys : 0) + (p->r.out ? p->r.vbytes : 0) +
			p->s.vbytes + (rpos ? 4 : 0) + (spos ? 4 : 0);

		c->bytes += (double) R->n * (sizeof(K) + sizeof(VR)) * (1.0 + (double) S->n / ((double) p->scap * P + 1)) +
			(double) S->n * (sizeof(K) + sizeof(VS)) + (double) m * row_bytes +
			(flags ? 2.0 * S->n : 0);
	}
	pj_ph_end(c);

	if (p->r.out)
		TRY(pj_side_payloads(c, p, &p->r, true, R, rpos, (u32) m, o, off));
	TRY(pj_side_payloads(c, p, &p->s, false, S, spos, (u32) m, o, off));

	pj_free(c, spos);
	pj_free(c, rpos);
	pj_free(c, flags);
	pj_free(c, units);
	*offp = off + m;
	return 0;
}

template <class K>
int
pj_select_side(PjCtx *c, const PjPlan *p, const PjSide *sd, u32 row0, u32 n, int g, u32 b, u32 **sel,
			   u32 *nv)
{
	*sel = NULL;
	*nv = n;
	if (!sd->key_nulls && g == 0)
		return 0;
	if (n == 0)
		return 0;
	if ((*sel = pj_alloc_t<u32>(c, n)) == NULL)
		return c->rc;

	PjSelPred<K> pred;

	pred.keys = sd->keys;
	pred.layout = p->layout;
	pred.want_null = 0;
	pred.gbits = g;
	pred.batch = b;

	/* dry runs: a hash batch holds about 1 / 2^g of the rows */
	u64			est = g == 0 ? n : (u64) ((double) n / (double) (1u << g) * 1.05) + 1024;

	if (est > n)
		est = n;
	return pj_select(c, row0, n, pred, *sel, nv, (u32) est);
}

template <class K, class VR, class VS, bool PR, bool PS>
int
pj_run_part(PjCtx *c, const PjPlan *p, PjOutBufs *o, int g, int CS, unsigned long long *counter, u64 *m_main)
{
	const int	KB = (int) sizeof(K) * 8;
	const u32	nR = (u32) p->r.rel->nrows;
	const u32	nS = (u32) p->s.rel->nrows;
	const u32	GR = 1u << g;
	u64			off = 0;

	for (u32 b = 0; b < GR; b++)
	{
		u32		   *selR;
		u32			nvR;
		PjPart		R;

		pj_ph_begin(c, TM_PJOIN_PH_PART_R);
		TRY(pj_select_side<K>(c, p, &p->r, 0, nR, g, b, &selR, &nvR));
		if (nvR == 0 && (p->kind == TM_PJOIN_INNER || p->kind == TM_PJOIN_SEMI))
		{
			pj_free(c, selR);
			pj_ph_end(c);
			continue;
		}

		int			B = pj_choose_bits(p, nvR);
		int			shift = KB - g - B;

		c->last_bits = B;
		TRY(pj_partition<K, VR>(c, p, &p->r, selR, 0, nvR, shift, B, &R));
		pj_ph_end(c);

		for (int ch = 0; ch < CS; ch++)
		{
			u32			cb = (u32) ((u64) nS * (u64) ch / (u64) CS);
			u32			ce = (u32) ((u64) nS * (u64) (ch + 1) / (u64) CS);
			u32		   *selS;
			u32			nvS;
			PjPart		S;

			pj_ph_begin(c, TM_PJOIN_PH_PART_S);
			TRY(pj_select_side<K>(c, p, &p->s, cb, ce - cb, g, b, &selS, &nvS));
			if (nvS == 0)
			{
				pj_free(c, selS);
				pj_ph_end(c);
				continue;
			}
			TRY(pj_partition<K, VS>(c, p, &p->s, selS, selS ? 0 : cb, nvS, shift, B, &S));
			pj_ph_end(c);

			double		done = ((double) b * CS + ch + 1) / ((double) GR * CS);
			u64			rest = (u64) ((double) nS * (1.0 - done));

			TRY((pj_part_step<K, VR, VS, PR, PS>(c, p, o, &R, &S, &off, rest, counter)));
			pj_part_free(c, &S);
			pj_free(c, selS);
		}
		pj_part_free(c, &R);
		pj_free(c, selR);
	}
	*m_main = off;
	return 0;
}

/*
 * The value types of the partitioned join: per side u32 (4-byte first payload or row id), u64 (8-byte
 * first payload) or u64 packed (two 4-byte payloads, GFTR), each its own instantiation.
 */
template <class K>
int
pj_run_part_k(PjCtx *c, const PjPlan *p, PjOutBufs *o, int g, int CS, unsigned long long *counter, u64 *m_main)
{
	const int	vr = p->r.pack ? 2 : (p->r.p1 && p->r.vbytes == 8) ? 1 : 0;
	const int	vs = p->s.pack ? 2 : (p->s.p1 && p->s.vbytes == 8) ? 1 : 0;

	switch (vr * 3 + vs)
	{
		case 0:
			return pj_run_part<K, u32, u32, false, false>(c, p, o, g, CS, counter, m_main);
		case 1:
			return pj_run_part<K, u32, u64, false, false>(c, p, o, g, CS, counter, m_main);
		case 2:
			return pj_run_part<K, u32, u64, false, true>(c, p, o, g, CS, counter, m_main);
		case 3:
			return pj_run_part<K, u64, u32, false, false>(c, p, o, g, CS, counter, m_main);
		case 4:
			return pj_run_part<K, u64, u64, false, false>(c, p, o, g, CS, counter, m_main);
		case 5:
			return pj_run_part<K, u64, u64, false, true>(c, p, o, g, CS, counter, m_main);
		case 6:
			return pj_run_part<K, u64, u32, true, false>(c, p, o, g, CS, counter, m_main);
		case 7:
			return pj_run_part<K, u64, u64, true, false>(c, p, o, g, CS, counter, m_main);
		default:
			return pj_run_part<K, u64, u64, true, true>(c, p, o, g, CS, counter, m_main);
	}
}

/* ================================================================================================
 * Pipelined join
 * ================================================================================================
 */

/* all fixed-width columns of a side (and S's keys) as a gather set writing the result arrays */
void
pj_gset_side(const PjPlan *p, const PjOutBufs *o, bool is_r, bool with_keys, PjGSet *g)
{
	const PjSide *sd = is_r ? &p->r : &p->s;

	memset(g, 0, sizeof(*g));
	if (with_keys && p->emit_keys)
		for (int c = 0; c < sd->rel->nkeys; c++)
		{
			PjGCol	   *gc = &g->c[g->n++];

			gc->width = sd->rel->keys[c].width;
			gc->src = sd->rel->keys[c].data;
			gc->srcnull = sd->rel->keys[c].nulls;
			gc->dst = o->key[c];
			gc->dstnull = o->kn[c];
		}
	if (!sd->out)
		return;
	for (int j = 0; j < sd->rel->npayload; j++)
	{
		const TmPjoinColumn *col = &sd->rel->payload[j];

		if (col->width == 0)
			continue;

		PjGCol	   *gc = &g->c[g->n++];

		gc->width = col->width;
		gc->src = col->data;
		gc->srcnull = col->nulls;
		gc->dst = is_r ? o->rd[j] : o->sd[j];
		gc->dstnull = is_r ? o->rn[j] : o->sn[j];
	}
}

template <class K, class T>
int
pj_run_pipe(PjCtx *c, const PjPlan *p, PjOutBufs *o, int g, int CS, unsigned long long *counter, u64 *m_main)
{
	const u32	nR = (u32) p->r.rel->nrows;
	const u32	nS = (u32) p->s.rel->nrows;
	const u32	GR = 1u << g;
	u64			off = 0;

	for (u32 b = 0; b < GR; b++)
	{
		u32		   *selR;
		u32			nvR;

		pj_ph_begin(c, TM_PJOIN_PH_PART_R);
		TRY(pj_select_side<K>(c, p, &p->r, 0, nR, g, b, &selR, &nvR));
		if (nvR == 0 && (p->kind == TM_PJOIN_INNER || p->kind == TM_PJOIN_SEMI))
		{
			pj_free(c, selR);
			pj_ph_end(c);
			continue;
		}

		int			tbits = 10;

		while (tbits < 31 && ((u64) 1 << tbits) < 2 * (u64) nvR)
			tbits++;

		T		   *tab = pj_alloc_t<T>(c, (u64) 1 << tbits);

		if (tab == NULL)
			return c->rc;
		TRY(pj_memset(c, tab, 0, sizeof(T) << tbits));
		TRY(pj_launch(c, "pj_ht_build", pj_ht_build<K, T>, pj_grid(c, nvR), PJ_TPB, 0, p->r.keys, p->layout,
					  (const u32 *) selR, 0u, nvR, tab, tbits));
		c->bytes += (double) (sizeof(T) << tbits) + (double) nvR * (p->r.rel->nkeys * 6.0 + 32);
		pj_ph_end(c);

		for (int ch = 0; ch < CS; ch++)
		{
			u32			cb = (u32) ((u64) nS * (u64) ch / (u64) CS);
			u32			ce = (u32) ((u64) nS * (u64) (ch + 1) / (u64) CS);
			/* S's rows of this batch: selected by the probe itself (no selection vector, no memory) */
			const u32	nvS = ce - cb;

			if (nvS == 0)
				continue;

			double		done = ((double) b * CS + ch + 1) / ((double) GR * CS);
			u64			rest = (u64) ((double) nS * (1.0 - done));
			u64			m = 0;

			PjGSet		gr,
						gs;

			pj_ph_begin(c, TM_PJOIN_PH_JOIN);
			for (;;)
			{
				u64			cap_s = o->cap - off;

				pj_gset_side(p, o, true, false, &gr);
				pj_gset_side(p, o, false, true, &gs);
				TRY(pj_memset(c, counter, 0, sizeof(*counter)));
				if (p->s.key_nulls || g > 0)
					TRY(pj_launch(c, "pj_ht_probe", pj_ht_probe<K, T, true>, pj_grid(c, nvS, PJ_ROUND), PJ_BLOCK,
								  0, p->s.keys, p->layout, cb, nvS, g, b, (const T *) tab, tbits, (int) p->verify,
								  p->r.keys, p->kind, gr, gs, o->rids, o->sids, off, cap_s, counter));
				else
					TRY(pj_launch(c, "pj_ht_probe", pj_ht_probe<K, T, false>, pj_grid(c, nvS, PJ_ROUND), PJ_BLOCK,
								  0, p->s.keys, p->layout, cb, nvS, g, b, (const T *) tab, tbits, (int) p->verify,
								  p->r.keys, p->kind, gr, gs, o->rids, o->sids, off, cap_s, counter));
				if (c->dry)
					m = cap_s < nvS ? cap_s : nvS;
				else
				{
					unsigned long long h = 0;

					TRY(pj_read(c, &h, counter, sizeof(h)));
					m = h;
				}
				if (off + m > c->need_rows)
					c->need_rows = off + m;
				if (m <= cap_s)
					break;

				u64			newcap = off + m + (u64) ((double) m / (double) nvS * (double) rest);

				TRY(pj_out_grow(c, p, o, newcap, off));
			}
			{
				double		rb = 0,
							sbytes = 0;

				for (int j = 0; j < gr.n; j++)
					rb += 32.0 + gr.c[j].width;
				for (int j = 0; j < gs.n; j++)
					sbytes += 2.0 * gs.c[j].width + (gs.c[j].dstnull ? 2 : 0);
				c->bytes += (double) nvS * (p->s.rel->nkeys * 6.0 + 32 + 8 + (p->s.key_nulls ? p->s.rel->nkeys : 0)) +
					(double) m * (rb + sbytes);
			}
			pj_ph_end(c);
			off += m;
		}
		pj_free(c, tab);
		pj_free(c, selR);
	}
	*m_main = off;
	return 0;
}

/* ================================================================================================
 * After the batches: NULL-key rows, gathers by row id, text
 * ================================================================================================
 */

int
pj_null_rows(PjCtx *c, const PjPlan *p, PjOutBufs *o, const u32 *null_ids, u32 n_null, u64 m_main)
{
	if (n_null == 0)
		return 0;
	pj_ph_begin(c, TM_PJOIN_PH_OTHER);
	if (m_main + n_null > o->cap)
		TRY(pj_out_grow(c, p, o, m_main + n_null, m_main));

	PjGSet		g;

	pj_gset_side(p, o, false, true, &g);
	TRY(pj_launch(c, "pj_gather_ids(null S)", pj_gather_ids, pj_grid(c, n_null), PJ_TPB, 0, g, null_ids,
				  (u64) n_null, m_main));
	if (p->r.out)
	{
		pj_gset_side(p, o, true, false, &g);
		TRY(pj_launch(c, "pj_gather_ids(null R)", pj_gather_ids, pj_grid(c, n_null), PJ_TPB, 0, g,
					  (const u32 *) NULL, (u64) n_null, m_main));
	}
	if (o->sids)
		TRY(pj_copy(c, o->sids + m_main, null_ids, (size_t) n_null * 4));
	if (o->rids)
		TRY(pj_memset(c, o->rids + m_main, 0xFF, (size_t) n_null * 4));
	pj_ph_end(c);
	return 0;
}

/* GFUR's further columns and wide keys: by row id from the original columns, rows [0, m) */
int
pj_id_gathers(PjCtx *c, const PjPlan *p, PjOutBufs *o, u64 m)
{
	if (!pj_partitioned(p) || m == 0)
		return 0;
	for (int side = 0; side < 2; side++)
	{
		const bool	is_r = side == 0;
		const PjSide *sd = is_r ? &p->r : &p->s;
		PjGSet		g;

		memset(&g, 0, sizeof(g));
		if (!is_r && p->emit_keys && p->layout == PJ_KL_WIDE)
			for (int k = 0; k < sd->rel->nkeys; k++)
			{
				PjGCol	   *gc = &g.c[g.n++];

				gc->width = sd->rel->keys[k].width;
				gc->src = sd->rel->keys[k].data;
				gc->srcnull = sd->rel->keys[k].nulls;
				gc->dst = o->key[k];
				gc->dstnull = o->kn[k];
			}
		if (p->algo == TM_PJOIN_GFUR && sd->out)
		{
			for (const PjItem &it : sd->items)
			{
				const TmPjoinColumn *col = &sd->rel->payload[it.col];
				bool		has_data_item = false;

				for (const PjItem &it2 : sd->items)
					if (it2.col == it.col && !it2.nulls)
						has_data_item = true;
				if (it.nulls && has_data_item)
					continue;	/* written with its data */

				PjGCol	   *gc = &g.c[g.n++];

				gc->width = it.nulls ? 0 : col->width;
				gc->src = col->data;
				gc->srcnull = col->nulls;
				gc->dst = is_r ? o->rd[it.col] : o->sd[it.col];
				gc->dstnull = is_r ? o->rn[it.col] : o->sn[it.col];
			}
		}
		if (g.n == 0)
			continue;
		pj_ph_begin(c, TM_PJOIN_PH_GATHER);
		TRY(pj_launch(c, "pj_gather_ids", pj_gather_ids, pj_grid(c, m), PJ_TPB, 0, g,
					  (const u32 *) (is_r ? o->rids : o->sids), m, (u64) 0));
		for (int k = 0; k < g.n; k++)
			c->bytes += (double) m * (32.0 + g.c[k].width + (g.c[k].dstnull ? 33 : 0));
		c->bytes += (double) m * 4;
		pj_ph_end(c);
	}
	return 0;
}

int
pj_text_bytes_of(PjCtx *c, const TmPjoinRelation *rel, int j, size_t *bytes)
{
	int64_t		a = 0,
				b = 0;

	*bytes = 0;
	if (rel->nrows == 0)
		return 0;
	TRY(pj_read(c, &a, rel->payload[j].offsets, 8));
	TRY(pj_read(c, &b, rel->payload[j].offsets + rel->nrows, 8));
	*bytes = b > a ? (size_t) (b - a) : 0;
	return 0;
}

int
pj_texts(PjCtx *c, PjPlan *p, PjOutBufs *o, u64 M)
{
	for (int side = 0; side < 2; side++)
	{
		const bool	is_r = side == 0;
		const PjSide *sd = is_r ? &p->r : &p->s;

		if (!sd->out || !sd->text)
			continue;
		for (int j = 0; j < sd->rel->npayload; j++)
		{
			const TmPjoinColumn *col = &sd->rel->payload[j];

			if (col->width != 0)
				continue;
			pj_ph_begin(c, TM_PJOIN_PH_GATHER);

			int64_t    *offs = pj_alloc_t<int64_t>(c, M + 1, true);
			u8		   *nul = NULL;
			const u32  *ids = is_r ? o->rids : o->sids;

			if (offs == NULL)
				return c->rc;
			if (is_r ? pj_out_rnull(p, j) : pj_out_snull(p, j))
				if ((nul = pj_alloc_t<u8>(c, M, true)) == NULL)
					return c->rc;
			TRY(pj_memset(c, offs + M, 0, 8));
			TRY(pj_launch(c, "pj_text_len", pj_text_len, pj_grid(c, M), PJ_TPB, 0, ids, M,
						  (const int64_t *) col->offsets, col->nulls, offs, nul));
			TRY(pj_exclusive_sum<int64_t>(c, offs, M + 1));

			int64_t		total = 0;

			if (c->dry)
			{
				if (!p->text_known)
					TRY(pj_text_bytes_of(c, sd->rel, j, &p->text_bytes[side][j]));
				total = (int64_t) ((double) p->text_bytes[side][j] *
								   ((double) M / (double) (sd->rel->nrows > 0 ? sd->rel->nrows : 1))) + 1;
			}
			else
				TRY(pj_read(c, &total, offs + M, 8));

			u8		   *data = pj_alloc_t<u8>(c, (u64) total, true);

			if (data == NULL)
				return c->rc;
			TRY(pj_launch(c, "pj_text_copy", pj_text_copy, pj_grid(c, M * 32), PJ_TPB, 0, ids, M,
						  (const int64_t *) col->offsets, (const u8 *) col->data, (const int64_t *) offs, data));
			c->bytes += (double) M * (4 + 16 + 16 + 32) + 2.0 * (double) total;
			if (is_r)
			{
				o->roff[j] = offs;
				o->rd[j] = data;
				o->rn[j] = nul;
			}
			else
			{
				o->soff[j] = offs;
				o->sd[j] = data;
				o->sn[j] = nul;
			}
			pj_ph_end(c);
		}
	}
	return 0;
}

/* ================================================================================================
 * One attempt with a given batching
 * ================================================================================================
 */

int
pj_attempt(PjCtx *c, PjPlan *p, int g, int CS, u64 cap0, PjOutBufs *o, u64 *M_out)
{
	const u32	nS = (u32) p->s.rel->nrows;
	u32		   *null_ids = NULL;
	u32			n_null = 0;
	u64			m_main = 0;

	memset(o, 0, sizeof(*o));

	/* S rows with a NULL key (ANTI / LEFT output them) */
	if ((p->kind == TM_PJOIN_ANTI || p->kind == TM_PJOIN_LEFT) && p->s.key_nulls && nS > 0)
	{
		pj_ph_begin(c, TM_PJOIN_PH_OTHER);
		if ((null_ids = pj_alloc_t<u32>(c, nS)) == NULL)
			return c->rc;
		if (p->k64)
		{
			PjSelPred<u64> pred;

			pred.keys = p->s.keys;
			pred.layout = p->layout;
			pred.want_null = 1;
			pred.gbits = 0;
			pred.batch = 0;
			TRY(pj_select(c, 0, nS, pred, null_ids, &n_null, 0));
		}
		else
		{
			PjSelPred<u32> pred;

			pred.keys = p->s.keys;
			pred.layout = p->layout;
			pred.want_null = 1;
			pred.gbits = 0;
			pred.batch = 0;
			TRY(pj_select(c, 0, nS, pred, null_ids, &n_null, 0));
		}
		pj_ph_end(c);
		/* a dry run cannot know: it keeps the list and plans for NULL flags */
		if (n_null == 0 && !c->dry)
		{
			pj_free(c, null_ids);
			null_ids = NULL;
		}
	}
	o->knull = p->emit_keys && (n_null > 0 || null_ids != NULL);

	if (cap0 < (u64) n_null + 1)
		cap0 = (u64) n_null + 1;
	TRY(pj_out_alloc(c, p, o, cap0));

	unsigned long long *counter = pj_alloc_t<unsigned long long>(c, 1);

	if (counter == NULL)
		return c->rc;

	if (p->algo == TM_PJOIN_PIPELINED)
	{
		if (p->k64)
			TRY((pj_run_pipe<u64, ulonglong2>(c, p, o, g, CS, counter, &m_main)));
		else
			TRY((pj_run_pipe<u32, unsigned long long>(c, p, o, g, CS, counter, &m_main)));
	}
	else if (p->k64)
		TRY(pj_run_part_k<u64>(c, p, o, g, CS, counter, &m_main));
	else
		TRY(pj_run_part_k<u32>(c, p, o, g, CS, counter, &m_main));

	TRY(pj_null_rows(c, p, o, null_ids, n_null, m_main));

	const u64	M = m_main + n_null;

	if (M > c->need_rows)
		c->need_rows = M;
	TRY(pj_id_gathers(c, p, o, m_main));
	TRY(pj_texts(c, p, o, M));
	if (c->dry)
		p->text_known = true;

	pj_free(c, counter);
	pj_free(c, null_ids);
	pj_free(c, o->rids);
	pj_free(c, o->sids);
	o->rids = o->sids = NULL;
	*M_out = M;
	return 0;
}

/* ---- contexts ---- */

int
pj_ctx_init(PjCtx *c, const TmPjoinOptions *o, bool dry, char *err, int errlen)
{
	int			dev = 0;

	c->st = (cudaStream_t) o->stream;
	c->dry = dry;
	c->ws = NULL;
	c->ws_size = 0;
	c->fa = NULL;
	c->ff = NULL;
	c->fctx = NULL;
	c->cur = c->peak = c->ws_peak = 0;
	c->alloc_failed = c->output_failed = false;
	c->rc = 0;
	c->err = err;
	c->errlen = errlen;
	c->nsm = 132;
	c->smem_optin = 0;
	c->timing = false;
	c->evused = 0;
	c->open_ph = -1;
	c->open_ev = NULL;
	c->bytes = 0;
	c->units = 0;
	c->last_bits = 0;
	c->grows = 0;
	c->need_rows = 0;
	c->text_rows_est = 0;
	if (dry)
	{
		c->mem_mode = 1;
		c->ws = (char *) (uintptr_t) 0x100000000ULL;
		c->ws_size = (size_t) 1 << 50;
	}
	else if (o->workspace != NULL)
	{
		c->mem_mode = 1;
		c->ws = (char *) o->workspace;
		c->ws_size = o->workspace_bytes & ~(size_t) (PJ_ALIGN - 1);
		if (((uintptr_t) c->ws % PJ_ALIGN) != 0)
		{
			size_t		skip = PJ_ALIGN - (uintptr_t) c->ws % PJ_ALIGN;

			c->ws += skip;
			c->ws_size = (o->workspace_bytes - skip) & ~(size_t) (PJ_ALIGN - 1);
		}
	}
	else if (o->alloc != NULL)
	{
		c->mem_mode = 2;
		c->fa = o->alloc;
		c->ff = o->free;
		c->fctx = o->alloc_ctx;
	}
	else
		c->mem_mode = 0;
	c->blks.clear();
	if (c->mem_mode == 1)
		c->blks.push_back(PjBlk{0, c->ws_size, false, false});

	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&c->nsm, cudaDevAttrMultiProcessorCount, dev));
	CK(cudaDeviceGetAttribute(&c->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
	return 0;
}

void
pj_ctx_reset(PjCtx *c)
{
	pj_free_all(c);
	c->blks.clear();
	if (c->mem_mode == 1)
		c->blks.push_back(PjBlk{0, c->ws_size, false, false});
	c->cur = 0;
	c->alloc_failed = c->output_failed = false;
	c->rc = 0;
	if (c->err != NULL && c->errlen > 0)
		c->err[0] = '\0';
	c->recs.clear();
	c->evused = 0;
	c->open_ph = -1;
	c->bytes = 0;
	c->units = 0;
	c->grows = 0;
}

void
pj_ctx_destroy(PjCtx *c)
{
	for (cudaEvent_t e : c->evpool)
		(void) cudaEventDestroy(e);
	c->evpool.clear();
}

u64
pj_default_cap(const PjPlan *p)
{
	u64			cap = p->hint > 0 ? p->hint : (u64) p->s.rel->nrows;

	return cap > 0 ? cap : 1;
}

/* dry run: workspace bytes (fragmentation included) for batching (g, CS) and cap0 result rows */
int
pj_estimate(const TmPjoinOptions *opts, PjPlan *p, int g, int CS, u64 cap0, size_t *bytes, size_t *live_peak,
			char *err, int errlen)
{
	PjCtx		c;
	PjOutBufs	o;
	u64			M = 0;
	int			rc;

	rc = pj_ctx_init(&c, opts, true, err, errlen);
	if (rc == 0)
		rc = pj_attempt(&c, p, g, CS, cap0, &o, &M);
	/*
	 * A real run allocates the same sequence, but some sizes are data-dependent (selected rows, work
	 * units, text bytes): smaller in the real run as a rule, yet first fit may then place later arrays
	 * differently.  A margin covers that.
	 */
	*bytes = c.ws_peak + c.ws_peak / 32 + ((size_t) 1 << 18);
	if (live_peak)
		*live_peak = c.peak;
	c.live.clear();
	pj_ctx_destroy(&c);
	return rc;
}

/* the batchings tried, in order: S chunks first, then R hash batches */
void
pj_candidates(const PjPlan *p, const TmPjoinOptions *o, std::vector<std::pair<int, int>> &v)
{
	int			g0 = 0;

	v.clear();
	if (o->r_batches > 0)
		while ((1 << g0) < o->r_batches)
			g0++;
	for (int g = g0; g <= PJ_MAX_GBITS; g++)
	{
		int			cs = (g == g0 && o->s_chunks > 0) ? o->s_chunks : 1;

		for (;;)
		{
			v.push_back(std::make_pair(g, cs));
			if ((u64) p->s.rel->nrows / (u64) cs < (1u << 16) || cs >= 64)
				break;
			cs *= 2;
		}
	}
}

}								/* namespace */

/* ================================================================================================
 * Entry points
 * ================================================================================================
 */

extern "C" int
tm_pjoin(const TmPjoinRelation *r, const TmPjoinRelation *s, const TmPjoinOptions *opts,
		 TmPjoinResult *out, TmPjoinStats *stats, char *err, int errlen)
{
	char		dummy[8];
	PjPlan		plan;
	PjCtx		c;
	PjOutBufs	o;
	std::vector<std::pair<int, int>> cands;
	size_t		ci = 0;
	u64			M = 0;
	int			rc;
	int			attempts = 0;
	cudaEvent_t ev0 = NULL,
				ev1 = NULL;

	if (err == NULL || errlen <= 0)
	{
		err = dummy;
		errlen = (int) sizeof(dummy);
	}
	err[0] = '\0';
	if (out == NULL)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin: no result struct");
		return TM_PJOIN_ERR_BAD_ARG;
	}
	{
		int			dev = 0,
					optin = 0;

		if (cudaGetDevice(&dev) != cudaSuccess ||
			cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
		{
			cudaError_t e = cudaGetLastError();

			snprintf(err, (size_t) errlen, "tm_pjoin: no usable CUDA device (%s)", cudaGetErrorString(e));
			return TM_PJOIN_ERR_CUDA;
		}
		if ((rc = pj_make_plan(&plan, r, s, opts, optin, err, errlen)) != 0)
			return rc;
	}
	pj_candidates(&plan, opts, cands);

	/* with a workspace: the first batching whose dry run fits */
	if (opts->workspace != NULL)
	{
		size_t		need = 0;

		for (ci = 0; ci < cands.size(); ci++)
		{
			rc = pj_estimate(opts, &plan, cands[ci].first, cands[ci].second, pj_default_cap(&plan), &need, NULL,
							 err, errlen);
			if (rc != 0)
				return rc;
			if (need <= opts->workspace_bytes)
				break;
		}
		if (ci == cands.size())
			ci = cands.size() - 1;	/* try the smallest anyway (the prediction may be pessimistic) */
		err[0] = '\0';
	}

	if ((rc = pj_ctx_init(&c, opts, false, err, errlen)) != 0)
		return rc;
	if (stats != NULL)
	{
		memset(stats, 0, sizeof(*stats));
		c.timing = true;
		if (cudaEventCreate(&ev0) != cudaSuccess || cudaEventCreate(&ev1) != cudaSuccess)
		{
			(void) cudaGetLastError();
			c.timing = false;
		}
		else
			(void) cudaEventRecord(ev0, c.st);
	}

	u64			cap0 = pj_default_cap(&plan);

	for (;;)
	{
		attempts++;
		rc = pj_attempt(&c, &plan, cands[ci].first, cands[ci].second, cap0, &o, &M);
		if (rc == 0)
			break;
		if (!c.alloc_failed || c.output_failed || ci + 1 >= cands.size())
		{
			pj_free_all(&c);
			if (c.timing && ev0 != NULL)
			{
				(void) cudaEventDestroy(ev0);
				(void) cudaEventDestroy(ev1);
			}
			pj_ctx_destroy(&c);
			return rc;
		}
		/* out of memory: wait for queued work, then try again with more batching */
		(void) cudaStreamSynchronize(c.st);
		if (c.need_rows > cap0)
			cap0 = c.need_rows;
		ci++;
		pj_ctx_reset(&c);
	}

	/* the result */
	memset(out, 0, sizeof(*out));
	out->nrows = (int64_t) M;
	out->capacity = (int64_t) o.cap;
	out->mem_mode = c.mem_mode;
	if (plan.emit_keys)
	{
		out->nkeys = s->nkeys;
		for (int k = 0; k < s->nkeys; k++)
		{
			out->keys[k].width = s->keys[k].width;
			out->keys[k].data = o.key[k];
			out->keys[k].nulls = o.kn[k];
		}
	}
	if (plan.r.out)
	{
		out->nr = r->npayload;
		for (int j = 0; j < r->npayload; j++)
		{
			out->r[j].width = r->payload[j].width;
			out->r[j].data = o.rd[j];
			out->r[j].offsets = o.roff[j];
			out->r[j].nulls = o.rn[j];
		}
	}
	out->ns = s->npayload;
	for (int j = 0; j < s->npayload; j++)
	{
		out->s[j].width = s->payload[j].width;
		out->s[j].data = o.sd[j];
		out->s[j].offsets = o.soff[j];
		out->s[j].nulls = o.sn[j];
	}
	/* everything still tracked is the result (scratch was freed) */
	{
		std::vector<void *> keep;

		for (int k = 0; k < out->nkeys; k++)
		{
			keep.push_back(out->keys[k].data);
			keep.push_back(out->keys[k].nulls);
		}
		for (int j = 0; j < out->nr; j++)
		{
			keep.push_back(out->r[j].data);
			keep.push_back(out->r[j].offsets);
			keep.push_back(out->r[j].nulls);
		}
		for (int j = 0; j < out->ns; j++)
		{
			keep.push_back(out->s[j].data);
			keep.push_back(out->s[j].offsets);
			keep.push_back(out->s[j].nulls);
		}
		for (void *p : keep)
			if (p != NULL)
				pj_forget(&c, p);
		pj_free_all(&c);		/* nothing should be left */
	}

	if (stats != NULL)
	{
		if (c.timing)
			(void) cudaEventRecord(ev1, c.st);

		cudaError_t e = cudaStreamSynchronize(c.st);

		if (e != cudaSuccess)
		{
			tm_pjoin_result_free(out, opts);
			pj_ctx_destroy(&c);
			snprintf(err, (size_t) errlen, "tm_pjoin: cudaStreamSynchronize: %s", cudaGetErrorString(e));
			return TM_PJOIN_ERR_CUDA;
		}
		if (c.timing)
		{
			float		ms = 0;

			if (cudaEventElapsedTime(&ms, ev0, ev1) == cudaSuccess)
				stats->total_ms = ms;
			for (const PjRec &rec : c.recs)
			{
				if (cudaEventElapsedTime(&ms, rec.a, rec.b) != cudaSuccess)
					continue;
				if (rec.ph >= 200)
					stats->payload_ms_s[rec.ph - 200] += ms;
				else if (rec.ph >= 100)
					stats->payload_ms_r[rec.ph - 100] += ms;
				else
					stats->phase_ms[rec.ph] += ms;
			}
			(void) cudaGetLastError();
			(void) cudaEventDestroy(ev0);
			(void) cudaEventDestroy(ev1);
		}
		stats->bytes_moved = c.bytes;
		stats->peak_bytes = c.peak;
		stats->workspace_peak = c.mem_mode == 1 ? c.ws_peak : 0;
		stats->out_rows = (int64_t) M;
		stats->work_units = (int64_t) c.units;
		stats->part_bits = pj_partitioned(&plan) ? c.last_bits : 0;
		stats->r_batches = 1 << cands[ci].first;
		stats->s_chunks = cands[ci].second;
		stats->attempts = attempts;
		stats->grows = c.grows;
		stats->first_payload_carried = (plan.r.p1 ? 1 : 0) | (plan.s.p1 ? 2 : 0) | (plan.r.pack ? 4 : 0) |
			(plan.s.pack ? 8 : 0);
	}
	else
	{
		cudaError_t e = cudaStreamSynchronize(c.st);

		if (e != cudaSuccess)
		{
			tm_pjoin_result_free(out, opts);
			pj_ctx_destroy(&c);
			snprintf(err, (size_t) errlen, "tm_pjoin: cudaStreamSynchronize: %s", cudaGetErrorString(e));
			return TM_PJOIN_ERR_CUDA;
		}
	}
	pj_ctx_destroy(&c);
	return TM_PJOIN_OK;
}

extern "C" int
tm_pjoin_workspace_size(const TmPjoinRelation *r, const TmPjoinRelation *s, const TmPjoinOptions *opts,
						int64_t out_rows, size_t *bytes, char *err, int errlen)
{
	char		dummy[8];
	PjPlan		plan;
	TmPjoinOptions o2;
	int			dev = 0,
				optin = 0,
				rc;
	int			g = 0;

	if (err == NULL || errlen <= 0)
	{
		err = dummy;
		errlen = (int) sizeof(dummy);
	}
	err[0] = '\0';
	if (bytes == NULL || opts == NULL)
	{
		snprintf(err, (size_t) errlen, "tm_pjoin_workspace_size: bad arguments");
		return TM_PJOIN_ERR_BAD_ARG;
	}
	if (cudaGetDevice(&dev) != cudaSuccess ||
		cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
	{
		cudaError_t e = cudaGetLastError();

		snprintf(err, (size_t) errlen, "tm_pjoin_workspace_size: no usable CUDA device (%s)", cudaGetErrorString(e));
		return TM_PJOIN_ERR_CUDA;
	}
	o2 = *opts;
	o2.workspace = NULL;
	o2.workspace_bytes = 0;
	if ((rc = pj_make_plan(&plan, r, s, &o2, optin, err, errlen)) != 0)
		return rc;
	while (opts->r_batches > 0 && (1 << g) < opts->r_batches)
		g++;

	u64			cap = out_rows > 0 ? (u64) out_rows : pj_default_cap(&plan);

	return pj_estimate(&o2, &plan, g, opts->s_chunks > 0 ? opts->s_chunks : 1, cap, bytes, NULL, err, errlen);
}

extern "C" void
tm_pjoin_result_free(TmPjoinResult *res, const TmPjoinOptions *opts)
{
	std::vector<void *> v;

	if (res == NULL)
		return;
	for (int k = 0; k < res->nkeys; k++)
	{
		v.push_back(res->keys[k].data);
		v.push_back(res->keys[k].nulls);
	}
	for (int j = 0; j < res->nr; j++)
	{
		v.push_back(res->r[j].data);
		v.push_back(res->r[j].offsets);
		v.push_back(res->r[j].nulls);
	}
	for (int j = 0; j < res->ns; j++)
	{
		v.push_back(res->s[j].data);
		v.push_back(res->s[j].offsets);
		v.push_back(res->s[j].nulls);
	}
	if (res->mem_mode != 1)
	{
		cudaStream_t st = opts != NULL ? (cudaStream_t) opts->stream : (cudaStream_t) 0;

		for (void *p : v)
		{
			if (p == NULL)
				continue;
			if (res->mem_mode == 2 && opts != NULL && opts->free != NULL)
				opts->free(opts->alloc_ctx, p);
			else if (res->mem_mode == 0)
				(void) cudaFreeAsync(p, st);
		}
	}
	memset(res, 0, sizeof(*res));
}
