/*
 * colbuild.c — the backend's side of the data that goes to and comes from the GPU daemon:
 *
 *   - TmColSet: columns in the GPU layout of cuda/tm_gpu_exec.h (fixed-width arrays, text as offsets +
 *     bytes, a NULL byte per row where NULLs exist), filled from a heap table read with the query's
 *     snapshot (no synchronized scans: the same snapshot always yields the same rows in the same order,
 *     which the column cache relies on when it adds columns to an entry) or from a PostgreSQL subplan;
 *   - packing column sets into one memfd for a request (tm_colset_pack);
 *   - (colbuild_parallel.c) the same table read by parallel workers, block range by block range
 *     (tm_colset_read_blocks here): the set then holds the ranges as parts, which tm_colset_bytes and
 *     tm_colset_pack treat as the one set they are concatenated in block order;
 *   - turning a result memfd back into a TmResultSet (tm_result_from_memfd).
 *
 * Buffers are palloc'd (huge allocations allowed) in CurrentMemoryContext.
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "themis.h"
#include "themis/tm_gpud_io.h"
#include "colbuild.h"

/* bytes per value (text kinds: 0; kinds no column holds: treated as 0, refused in put_value) */
static inline int
kind_width(int kind)
{
	return Max(tm_kind_width(kind), 0);
}

static inline bool
kind_is_text(int kind)
{
	return kind == TM_K_TEXT || kind == TM_K_BPCHAR;
}

void
tm_colset_init(TmColSet *set, int ncols)
{
	set->ncols = ncols;
	set->nrows = 0;
	set->cap = 0;
	set->cols = palloc0(sizeof(TmColBuild) * Max(ncols, 1));
	set->nparts = 0;
	set->parts = NULL;
	set->packed = false;
	set->packed_fd = -1;
	set->packed_map = NULL;
	set->packed_len = 0;
	set->packed_cols = NULL;
}

/*
 * Ask for transparent huge pages over the 2 MB pages inside a big buffer: a column of a large table is
 * written once, front to back, and with 4 kB pages most of that time goes to page faults (a third of a
 * serial read of lineitem).  Advice only: where THP is off, or the range has no whole 2 MB page, nothing
 * changes; realloc's mremap keeps the advice.
 */
#define TM_HUGE_PAGE ((uintptr_t) 2 * 1024 * 1024)

void
tm_advise_huge(void *p, Size len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t	lo = ((uintptr_t) p + TM_HUGE_PAGE - 1) & ~(TM_HUGE_PAGE - 1);
	uintptr_t	hi = ((uintptr_t) p + len) & ~(TM_HUGE_PAGE - 1);

	if (p != NULL && hi > lo)
		(void) madvise((void *) lo, hi - lo, MADV_HUGEPAGE);
#endif
}

/*
 * A read-write shared mapping of the first len bytes of memfd fd (MAP_FAILED if it cannot be had), with
 * huge pages advised over it.  Shared memory gets huge pages only where the kernel's
 * /sys/kernel/mm/transparent_hugepage/shmem_enabled allows them (advise: for ranges advised so, as these
 * are; always, within_size: everywhere); the Debian and Ubuntu default is never.  Where it allows them, a
 * first write into a fresh memfd faults 2 MB at a time: on the H200 host 3.4-5.4 GB/s a process, against
 * 1.1-2.2 GB/s with 4 kB pages (measured 2026-11-28, bench/hostmem.c's memfd_thp_map).
 */
void *
tm_map_shared(int fd, Size len)
{
	void	   *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p != MAP_FAILED)
		tm_advise_huge(p, len);
	return p;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

/*
 * Fault in the pages of [p, p + len) for writing (a memfd's shared mapping, fresh anonymous memory), in one call instead of
 * one page fault per 4 kB page as memcpy goes (shared memory has no huge pages by default).  Kernels
 * before 5.14 refuse the advice: memcpy then faults the pages in as before.
 */
void
tm_populate_write(void *p, Size len)
{
	uintptr_t	pg = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t	lo = (uintptr_t) p & ~(pg - 1);

	if (p != NULL && len > 0)
		(void) madvise((void *) lo, (uintptr_t) p + len - lo, MADV_POPULATE_WRITE);
}

/* a huge allocation (or reallocation) in CurrentMemoryContext, with huge pages advised */
static void *
alloc_big(void *old, Size len)
{
	void	   *p = old ? repalloc_huge(old, len) : MemoryContextAllocHuge(CurrentMemoryContext, len);

	if (len >= 2 * TM_HUGE_PAGE)
		tm_advise_huge(p, len);
	return p;
}

/* give every present column room for ncap rows (more than set->cap) */
static void
set_capacity(TmColSet *set, int64 ncap)
{
	if (set->nparts > 0 || set->packed)
		elog(ERROR, "themis: rows cannot be added to a column set read in parts");
	for (int c = 0; c < set->ncols; c++)
	{
		TmColBuild *b = &set->cols[c];

		if (!b->present)
			continue;
		if (kind_is_text(b->type.kind))
		{
			bool		first = b->offsets == NULL;

			b->offsets = alloc_big(b->offsets, sizeof(int64) * (ncap + 1));
			if (first)
				b->offsets[0] = 0;
		}
		else
			b->data = alloc_big(b->data, (Size) kind_width(b->type.kind) * ncap);
		if (b->nulls)
			b->nulls = alloc_big(b->nulls, ncap);
	}
	set->cap = ncap;
}

/* make room for one more row in every present column */
static inline void
grow(TmColSet *set)
{
	if (set->nrows < set->cap)
		return;
	set_capacity(set, set->cap ? set->cap * 2 : 4096);
}

/* room for n more bytes of text in column b */
static inline void
text_room(TmColBuild *b, int64 n)
{
	if (b->dlen + n > b->dcap)
	{
		int64		ncap = Max(b->dcap * 2, b->dlen + n + 65536);

		b->data = alloc_big(b->data, ncap);
		b->dcap = ncap;
	}
}

/*
 * Before reading nblocks blocks of heap table rel into an empty set: room for the rows they are
 * expected to hold (pg_class's rows per page, 5% more), and text bytes at the columns' average widths
 * (pg_statistic), so that the columns are not copied as they double.  More rows than that still fit:
 * the arrays then grow as they would have.
 */
static void
reserve_for_blocks(TmColSet *set, Relation rel, BlockNumber nblocks)
{
	double		pages = rel->rd_rel->relpages;
	double		tuples = rel->rd_rel->reltuples;
	double		est;
	int64		rows;

	if (set->cap > 0 || set->nrows > 0 || nblocks == 0 || pages <= 0 || tuples <= 0)
		return;
	est = tuples / pages * 1.05 * nblocks + 64;
	est = Min(est, (double) MaxHeapTuplesPerPage * nblocks);
	rows = (int64) est;
	if (rows <= 4096)
		return;
	set_capacity(set, rows);
	for (int c = 0; c < set->ncols; c++)
	{
		TmColBuild *b = &set->cols[c];
		int32		w;

		if (!b->present || !kind_is_text(b->type.kind) || b->data != NULL)
			continue;
		w = get_attavgwidth(RelationGetRelid(rel), b->attno);
		if (w > 0)
			text_room(b, (int64) ((double) rows * w * 1.05));
	}
}

/* append value (isnull) to column b at row r (rows before r exist) */
static void
put_value(TmColSet *set, TmColBuild *b, int64 r, const TmValue *v, bool isnull)
{
	int			w = kind_width(b->type.kind);

	if (isnull && b->nulls == NULL)
	{
		b->nulls = alloc_big(NULL, Max(set->cap, 1));
		memset(b->nulls, 0, Max(set->cap, 1));
	}
	if (b->nulls)
		b->nulls[r] = isnull ? 1 : 0;
	if (kind_is_text(b->type.kind))
	{
		int32		len = isnull ? 0 : v->s.len;

		text_room(b, len);
		if (len > 0)
			memcpy(b->data + b->dlen, v->s.p, len);
		b->dlen += len;
		b->offsets[r + 1] = b->dlen;
		return;
	}
	if (isnull)
	{
		memset(b->data + (Size) w * r, 0, w);
		return;
	}
	switch (b->type.kind)
	{
		case TM_K_BOOL:
			((uint8 *) b->data)[r] = v->i ? 1 : 0;
			break;
		case TM_K_INT2:
			((int16 *) b->data)[r] = (int16) v->i;
			break;
		case TM_K_INT4:
		case TM_K_DATE:
			((int32 *) b->data)[r] = (int32) v->i;
			break;
		case TM_K_INT8:
		case TM_K_TIMESTAMP:
			((int64 *) b->data)[r] = v->i;
			break;
		case TM_K_FLOAT4:
			((float *) b->data)[r] = (float) v->f;
			break;
		case TM_K_FLOAT8:
			((double *) b->data)[r] = v->f;
			break;
		case TM_K_NUMERIC:
			memcpy(b->data + (Size) 16 * r, &v->n, 16);
			break;
		default:
			elog(ERROR, "themis: column kind %d cannot go to the GPU", b->type.kind);
	}
}

/* append the row of slot (values of attribute / column numbers given by fetch) */
static bool
put_row(TmColSet *set, TupleTableSlot *slot, bool by_attno, MemoryContext rowcxt)
{
	int64		r = set->nrows;
	MemoryContext old;
	bool		ok = true;

	grow(set);
	for (int c = 0; c < set->ncols && ok; c++)
	{
		TmColBuild *b = &set->cols[c];
		int			idx = by_attno ? b->attno - 1 : c;
		TmValue		v;
		bool		isnull = slot->tts_isnull[idx];

		if (!b->present)
			continue;
		old = MemoryContextSwitchTo(rowcxt);
		if (!isnull && !tm_datum_to_value(slot->tts_values[idx], &b->type, &v))
			ok = false;
		MemoryContextSwitchTo(old);
		if (ok)
			put_value(set, b, r, &v, isnull);
	}
	MemoryContextReset(rowcxt);
	if (ok)
		set->nrows++;
	return ok;
}

/* a present column of a table read: where its value is in the slot */
typedef struct ReadCol
{
	TmColBuild *b;
	int			idx;			/* attno - 1 */
	int			kind;
	int			scale;
} ReadCol;

/*
 * put_row for a table's rows (values and isnull by attno - 1): the common kinds stored straight from the
 * Datum (no TmValue, no memory context switch), the rest (and toasted text) through put_row's conversion.
 * Same bytes as put_row.
 */
static bool
put_table_row(TmColSet *set, const ReadCol *rc, int nrc, const Datum *values, const bool *isnull,
			  MemoryContext rowcxt)
{
	int64		r = set->nrows;
	bool		used_cxt = false;
	bool		ok = true;

	grow(set);
	for (int i = 0; i < nrc && ok; i++)
	{
		TmColBuild *b = rc[i].b;
		Datum		d = values[rc[i].idx];

		if (isnull[rc[i].idx])
		{
			put_value(set, b, r, NULL, true);
			continue;
		}
		if (b->nulls)
			b->nulls[r] = 0;
		switch (rc[i].kind)
		{
			case TM_K_INT4:
			case TM_K_DATE:
				((int32 *) b->data)[r] = DatumGetInt32(d);
				break;
			case TM_K_INT8:
			case TM_K_TIMESTAMP:
				((int64 *) b->data)[r] = DatumGetInt64(d);
				break;
			case TM_K_NUMERIC:
				{
					tm_int128	n;

					if (!tm_numeric_to_scaled(d, rc[i].scale, &n))
						ok = false;
					else
						memcpy(b->data + (Size) 16 * r, &n, 16);
				}
				break;
			case TM_K_TEXT:
			case TM_K_BPCHAR:
				{
					struct varlena *vl = (struct varlena *) DatumGetPointer(d);

					if (!VARATT_IS_COMPRESSED(vl) && !VARATT_IS_EXTERNAL(vl))
					{
						int32		len = VARSIZE_ANY_EXHDR(vl);

						text_room(b, len);
						memcpy(b->data + b->dlen, VARDATA_ANY(vl), len);
						b->dlen += len;
						b->offsets[r + 1] = b->dlen;
						break;
					}
				}
				/* FALLTHROUGH */
			default:
				{
					TmValue		v;
					MemoryContext old = MemoryContextSwitchTo(rowcxt);

					used_cxt = true;
					ok = tm_datum_to_value(d, &b->type, &v);
					MemoryContextSwitchTo(old);
					if (ok)
						put_value(set, b, r, &v, false);
				}
				break;
		}
	}
	if (used_cxt)
		MemoryContextReset(rowcxt);
	if (ok)
		set->nrows++;
	return ok;
}

/* the page reader fetches the row this many rows ahead into the cache */
#define TM_PREFETCH_ROWS 2

/* the page reader's view of an attribute up to the last one read */
typedef struct PageAtt
{
	int16		len;
	bool		byval;
	char		align;
	int32		cacheoff;		/* its offset in a row with no NULL before it; -1: found by walking */
} PageAtt;

/*
 * values / isnull of attributes 1 .. natts of tup, as heap_deform_tuple gives them (stopping at natts):
 * offsets from cacheoff while no NULL came before, else walked; attributes the row lacks (added to the
 * table after it was written) take their missing value.
 */
static inline void
page_deform(HeapTupleHeader tup, TupleDesc desc, const PageAtt *atts, int natts, Datum *values,
			bool *isnull)
{
	int			have = Min((int) HeapTupleHeaderGetNatts(tup), natts);
	bool		hasnulls = (tup->t_infomask & HEAP_HASNULL) != 0;
	bits8	   *bp = tup->t_bits;
	char	   *tp = (char *) tup + tup->t_hoff;
	uint32		off = 0;
	bool		slow = false;
	int			a;

	for (a = 0; a < have; a++)
	{
		const PageAtt *att = &atts[a];

		if (hasnulls && att_isnull(a, bp))
		{
			values[a] = (Datum) 0;
			isnull[a] = true;
			slow = true;
			continue;
		}
		isnull[a] = false;
		if (!slow && att->cacheoff >= 0)
			off = att->cacheoff;
		else if (att->len == -1)
			off = att_align_pointer(off, att->align, -1, tp + off);
		else
			off = att_align_nominal(off, att->align);
		values[a] = fetch_att(tp + off, att->byval, att->len);
		off = att_addlength_pointer(off, att->len, tp + off);
		if (att->len <= 0)
			slow = true;
	}
	for (; a < natts; a++)
		values[a] = getmissingattr(desc, a + 1, &isnull[a]);
}

/*
 * tm_colset_read_blocks for a heap table and an MVCC snapshot, without a table scan: each page's visible
 * rows are found as heapam's page-at-a-time scan finds them (all of an all-visible page, else
 * HeapTupleSatisfiesVisibility under the share lock, with the same checks for serializable transactions
 * and old snapshots), then read with the pin alone, deformed only up to the last attribute wanted.  The
 * same rows in the same order as the scan; about a fifth less CPU per row than a slot per row.
 */
static TmReadResult
read_pages(TmColSet *set, Relation rel, Snapshot snap, BlockNumber start, BlockNumber nblocks,
		   pg_atomic_uint32 *stop, const ReadCol *rc, int nrc, int maxattno, MemoryContext rowcxt)
{
	TupleDesc	desc = RelationGetDescr(rel);
	BlockNumber relblocks = RelationGetNumberOfBlocks(rel);
	BlockNumber end;
	BufferAccessStrategy strategy = NULL;
	PageAtt    *atts = palloc(sizeof(PageAtt) * Max(maxattno, 1));
	Datum	   *values = palloc(sizeof(Datum) * Max(maxattno, 1));
	bool	   *isnull = palloc(sizeof(bool) * Max(maxattno, 1));
	OffsetNumber vis[MaxHeapTuplesPerPage];
	TmReadResult result = TM_READ_OK;
	int32		off = 0;

	for (int a = 0; a < maxattno; a++)
	{
		Form_pg_attribute fa = TupleDescAttr(desc, a);

		atts[a].len = fa->attlen;
		atts[a].byval = fa->attbyval;
		atts[a].align = fa->attalign;
		atts[a].cacheoff = -1;
		if (off < 0)
			continue;
		if (fa->attlen > 0)
		{
			off = att_align_nominal(off, fa->attalign);
			atts[a].cacheoff = off;
			off += fa->attlen;
		}
		else
		{
			/* a varlena starts here unpadded only where the offset is already aligned */
			if (fa->attlen == -1 && off == att_align_nominal(off, fa->attalign))
				atts[a].cacheoff = off;
			off = -1;
		}
	}
	if (nblocks == InvalidBlockNumber)
	{
		start = 0;
		end = relblocks;
	}
	else
		end = start < relblocks ? start + Min(nblocks, relblocks - start) : start;
	/* as heap_beginscan: a ring of buffers for tables over a quarter of shared_buffers */
	if (!RelationUsesLocalBuffers(rel) && relblocks > (BlockNumber) (NBuffers / 4))
		strategy = GetAccessStrategy(BAS_BULKREAD);
	PredicateLockRelation(rel, snap);
	pgstat_count_heap_scan(rel);

	for (BlockNumber blk = start; blk < end && result == TM_READ_OK; blk++)
	{
		Buffer		buf;
		Page		page;
		OffsetNumber lines;
		bool		all_visible;
		bool		ssi;
		int			nvis = 0;

		CHECK_FOR_INTERRUPTS();
		if (stop != NULL && pg_atomic_read_u32(stop) != 0)
		{
			result = TM_READ_STOPPED;
			break;
		}
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);
		heap_page_prune_opt(rel, buf);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		TestForOldSnapshot(snap, rel, page);
		lines = PageGetMaxOffsetNumber(page);
		all_visible = PageIsAllVisible(page) && !snap->takenDuringRecovery;
		/* what HeapCheckForSerializableConflictOut asks first, once a page */
		ssi = CheckForSerializableConflictOutNeeded(rel, snap);
		for (OffsetNumber o = FirstOffsetNumber; o <= lines; o++)
		{
			ItemId		lp = PageGetItemId(page, o);
			HeapTupleData tuple;
			bool		valid;

			if (!ItemIdIsNormal(lp))
				continue;
			tuple.t_tableOid = RelationGetRelid(rel);
			tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
			tuple.t_len = ItemIdGetLength(lp);
			ItemPointerSet(&tuple.t_self, blk, o);
			valid = all_visible || HeapTupleSatisfiesVisibility(&tuple, snap, buf);
			if (ssi)
				HeapCheckForSerializableConflictOut(valid, rel, &tuple, buf, snap);
			if (valid)
				vis[nvis++] = o;
		}
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		/* the pin keeps the rows where they are (pruning moves them only under a cleanup lock) */
		for (int i = 0; i < nvis; i++)
		{
			HeapTupleHeader tup = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, vis[i]));

			/* the rows are where the reads wait: fetch a few ahead (header and the next cache line) */
			if (i + TM_PREFETCH_ROWS < nvis)
			{
				ItemId		lpa = PageGetItemId(page, vis[i + TM_PREFETCH_ROWS]);
				char	   *ahead = PageGetItem(page, lpa);

				__builtin_prefetch(ahead);
				if (ItemIdGetLength(lpa) > 64)
					__builtin_prefetch(ahead + 64);
			}
			page_deform(tup, desc, atts, maxattno, values, isnull);
			pgstat_count_heap_getnext(rel);
			if (!put_table_row(set, rc, nrc, values, isnull, rowcxt))
			{
				result = TM_READ_UNREPRESENTABLE;
				break;
			}
		}
		ReleaseBuffer(buf);
	}
	if (strategy != NULL)
		FreeAccessStrategy(strategy);
	pfree(atts);
	pfree(values);
	pfree(isnull);
	return result;
}

TmReadResult
tm_colset_read_blocks(TmColSet *set, Relation rel, Snapshot snap, BlockNumber start, BlockNumber nblocks,
					  pg_atomic_uint32 *stop)
{
	TableScanDesc scan;
	TupleTableSlot *slot;
	MemoryContext rowcxt;
	int			maxattno = 0;
	TmReadResult result = TM_READ_OK;
	ReadCol    *rc = palloc(sizeof(ReadCol) * Max(set->ncols, 1));
	int			nrc = 0;

	for (int c = 0; c < set->ncols; c++)
		if (set->cols[c].present)
		{
			if (set->cols[c].attno <= 0 || set->cols[c].attno > RelationGetDescr(rel)->natts)
				elog(ERROR, "themis: attribute %d of \"%s\" cannot be read into a column",
					 set->cols[c].attno, RelationGetRelationName(rel));
			maxattno = Max(maxattno, set->cols[c].attno);
			rc[nrc].b = &set->cols[c];
			rc[nrc].idx = set->cols[c].attno - 1;
			rc[nrc].kind = set->cols[c].type.kind;
			rc[nrc].scale = set->cols[c].type.scale;
			nrc++;
		}
	if (nblocks != InvalidBlockNumber && rel->rd_tableam != GetHeapamTableAmRoutine())
		elog(ERROR, "themis: a block range of \"%s\" cannot be read: not a heap table",
			 RelationGetRelationName(rel));
	if (nblocks == 0)
		return TM_READ_OK;
	reserve_for_blocks(set, rel, nblocks != InvalidBlockNumber ? nblocks : RelationGetNumberOfBlocks(rel));
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "themis column row", ALLOCSET_SMALL_SIZES);
	if (themis_load_page_reader && rel->rd_tableam == GetHeapamTableAmRoutine() && IsMVCCSnapshot(snap))
	{
		result = read_pages(set, rel, snap, start, nblocks, stop, rc, nrc, maxattno, rowcxt);
		MemoryContextDelete(rowcxt);
		pfree(rc);
		return result;
	}
	/* no synchronized scan: a given snapshot must always see the rows in the same order */
	scan = table_beginscan_strat(rel, snap, 0, NULL, true, false);
	if (nblocks != InvalidBlockNumber)
		heap_setscanlimits(scan, start, nblocks);
	slot = table_slot_create(rel, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		if (stop != NULL && pg_atomic_read_u32(stop) != 0)
		{
			result = TM_READ_STOPPED;
			break;
		}
		if (maxattno > 0)
			slot_getsomeattrs(slot, maxattno);
		if (!put_table_row(set, rc, nrc, slot->tts_values, slot->tts_isnull, rowcxt))
		{
			result = TM_READ_UNREPRESENTABLE;
			break;
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	MemoryContextDelete(rowcxt);
	pfree(rc);
	return result;
}

bool
tm_colset_read_table(TmColSet *set, Relation rel, Snapshot snap, const char **why)
{
	if (tm_colset_read_blocks(set, rel, snap, 0, InvalidBlockNumber, NULL) != TM_READ_OK)
	{
		*why = psprintf("a value of \"%s\" is not representable by themis", RelationGetRelationName(rel));
		return false;
	}
	return true;
}

bool
tm_colset_read_plan(TmColSet *set, PlanState *ps, EState *estate, const char **why)
{
	MemoryContext rowcxt;
	int			maxcol = 0;

	for (int c = 0; c < set->ncols; c++)
		if (set->cols[c].present)
			maxcol = c + 1;
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "themis column row", ALLOCSET_SMALL_SIZES);
	for (;;)
	{
		TupleTableSlot *slot;
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		/* PostgreSQL's nodes expect the query context (see cpu_exec.c) */
		old = MemoryContextSwitchTo(estate->es_query_cxt);
		slot = ExecProcNode(ps);
		MemoryContextSwitchTo(old);
		if (TupIsNull(slot))
			break;
		if (maxcol > 0)
			slot_getsomeattrs(slot, maxcol);
		if (!put_row(set, slot, false, rowcxt))
		{
			*why = "a value of a PostgreSQL subplan is not representable by themis";
			MemoryContextDelete(rowcxt);
			return false;
		}
	}
	MemoryContextDelete(rowcxt);
	return true;
}

/* the parts of a set: a set read in one piece is one part */
static inline int
set_nparts(const TmColSet *set)
{
	return set->nparts > 0 ? set->nparts : 1;
}

/* rows and arrays of column c in part p of set */
static void
part_col(const TmColSet *set, int p, int c, int64 *nrows, TmColPartCol *pc)
{
	const TmColBuild *b = &set->cols[c];

	if (set->nparts > 0)
	{
		*nrows = set->parts[p].nrows;
		*pc = set->parts[p].cols[c];
		return;
	}
	*nrows = set->nrows;
	pc->data = b->data;
	pc->dlen = kind_is_text(b->type.kind) ? b->dlen : (int64) kind_width(b->type.kind) * set->nrows;
	pc->offsets = b->offsets;
	pc->nulls = b->nulls;
}

/* bytes of column c's values and whether it has NULLs, over all parts */
static void
col_totals(const TmColSet *set, int c, int64 *dlen, bool *nulls)
{
	*dlen = 0;
	*nulls = false;
	for (int p = 0; p < set_nparts(set); p++)
	{
		int64		n;
		TmColPartCol pc;

		part_col(set, p, c, &n, &pc);
		*dlen += pc.dlen;
		*nulls |= pc.nulls != NULL;
	}
}

/* bytes one column takes in a memfd (each array 8-aligned) */
static int64
col_packed_size(const TmColSet *set, int c)
{
	const TmColBuild *b = &set->cols[c];
	int64		n = set->nrows;
	int64		dlen;
	bool		nulls;
	int64		sz;

	if (!b->present)
		return 0;
	col_totals(set, c, &dlen, &nulls);
	sz = TYPEALIGN(8, dlen);
	if (kind_is_text(b->type.kind))
		sz += 8 * (n + 1);
	if (nulls)
		sz += TYPEALIGN(8, n);
	return sz;
}

int64
tm_colset_bytes(const TmColSet *set)
{
	int64		total = 0;

	if (set->packed)
		return set->packed_len;
	for (int c = 0; c < set->ncols; c++)
		total += col_packed_size(set, c);
	return total;
}

/* a packed set's columns described at *off (then advanced past them) instead of 0 */
static void
packed_cols_at(const TmColSet *set, int64 *off, TmxCol *out)
{
	for (int c = 0; c < set->ncols; c++)
	{
		TmxCol	   *x = &out[c];

		*x = set->packed_cols[c];
		if (!x->present)
			continue;
		x->data_off += *off;
		if (x->kind == TM_K_TEXT || x->kind == TM_K_BPCHAR)
			x->offsets_off += *off;
		if (x->nulls_off >= 0)
			x->nulls_off += *off;
	}
	*off += set->packed_len;
}

bool
tm_colset_packed_fd(const TmColSet *set, int *fd, int64 *fdlen, TmxCol *out)
{
	if (!set->packed)
		return false;
	*fd = set->packed_fd;
	*fdlen = Max(set->packed_len, 8);
	memcpy(out, set->packed_cols, sizeof(TmxCol) * set->ncols);
	return true;
}

/*
 * A packed set copied into file fd at *off with pwrite (no mapping: the kernel allocates the file's pages
 * as it copies, where writing through a fresh mapping faults them in first; bench/hostmem.c measures
 * both), described in out[ncols] and *off advanced as tm_colset_pack does.  False (errno set) if the
 * set is not packed or a write fails.
 */
bool
tm_colset_pack_fd(const TmColSet *set, int fd, int64 *off, TmxCol *out)
{
	if (!set->packed)
	{
		errno = EINVAL;
		return false;
	}
	if (tm_io_pwrite_all(fd, set->packed_map, set->packed_len, *off) < 0)
		return false;
	packed_cols_at(set, off, out);
	return true;
}

void
tm_colset_pack(const TmColSet *set, char *map, int64 *off, TmxCol *out)
{
	int64		n = set->nrows;

	if (set->packed)
	{
		/* one copy of the whole layout, its offsets moved by *off */
		if (set->packed_len > 0)
			memcpy(map + *off, set->packed_map, set->packed_len);
		packed_cols_at(set, off, out);
		return;
	}
	for (int c = 0; c < set->ncols; c++)
	{
		const TmColBuild *b = &set->cols[c];
		TmxCol	   *x = &out[c];
		int64		dlen;
		bool		nulls;
		int64		pos;

		memset(x, 0, sizeof(TmxCol));
		x->kind = b->type.kind;
		x->scale = b->type.kind == TM_K_NUMERIC ? b->type.scale : 0;
		x->attno = b->attno;
		x->nulls_off = -1;
		if (!b->present)
			continue;
		x->present = 1;
		col_totals(set, c, &dlen, &nulls);
		x->data_off = *off;
		x->data_len = dlen;
		pos = *off;
		for (int p = 0; p < set_nparts(set); p++)
		{
			int64		pn;
			TmColPartCol pc;

			part_col(set, p, c, &pn, &pc);
			if (pc.dlen > 0)
				memcpy(map + pos, pc.data, pc.dlen);
			pos += pc.dlen;
		}
		*off += TYPEALIGN(8, dlen);
		if (kind_is_text(b->type.kind))
		{
			int64	   *o = (int64 *) (map + *off);
			int64		row = 0;
			int64		base = 0;

			x->offsets_off = *off;
			o[0] = 0;
			for (int p = 0; p < set_nparts(set); p++)
			{
				int64		pn;
				TmColPartCol pc;

				part_col(set, p, c, &pn, &pc);
				if (pn == 0)
					continue;
				if (pc.offsets[0] == base)
					memcpy(o + row, pc.offsets, 8 * (pn + 1));
				else
				{
					/* a later part: its offsets start from its own bytes */
					for (int64 r = 0; r < pn; r++)
						o[row + r + 1] = base + (pc.offsets[r + 1] - pc.offsets[0]);
				}
				row += pn;
				base += pc.dlen;
			}
			*off += 8 * (n + 1);
		}
		if (nulls)
		{
			int64		row = 0;

			x->nulls_off = *off;
			for (int p = 0; p < set_nparts(set); p++)
			{
				int64		pn;
				TmColPartCol pc;

				part_col(set, p, c, &pn, &pc);
				if (pc.nulls != NULL)
					memcpy(map + *off + row, pc.nulls, pn);
				else
					memset(map + *off + row, 0, pn);
				row += pn;
			}
			*off += TYPEALIGN(8, n);
		}
	}
}

/* munmap of a result's mapping when its memory context goes */
typedef struct MapRelease
{
	MemoryContextCallback cb;
	void	   *addr;
	size_t		len;
} MapRelease;

static void
release_map(void *arg)
{
	MapRelease *m = (MapRelease *) arg;

	munmap(m->addr, m->len);
}

TmResultSet *
tm_result_from_memfd(int fd, int64 fdlen, int64 nrows, int ncols, const TmxCol *cols, const TmType *types)
{
	TmResultSet *rs = palloc0(sizeof(TmResultSet));
	char	   *map = NULL;
	MapRelease *mr;

	if (fdlen > 0)
	{
		map = mmap(NULL, fdlen, PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED)
			elog(ERROR, "themis: cannot map the GPU daemon's result: %m");
		mr = palloc0(sizeof(MapRelease));
		mr->addr = map;
		mr->len = fdlen;
		mr->cb.func = release_map;
		mr->cb.arg = mr;
		MemoryContextRegisterResetCallback(CurrentMemoryContext, &mr->cb);
	}
	rs->ncols = ncols;
	rs->types = types;
	rs->nrows = nrows;
	rs->values = palloc0(sizeof(TmValue *) * Max(ncols, 1));
	rs->nulls = palloc0(sizeof(bool *) * Max(ncols, 1));
	for (int c = 0; c < ncols; c++)
	{
		const TmxCol *x = &cols[c];
		int			kind = types[c].kind;
		int			w = kind_width(kind);
		char	   *raw;
		TmValue    *vals;
		bool	   *nulls;
		int64		dlen = kind_is_text(kind) ? x->data_len : (int64) w * nrows;

		if (x->kind != kind || x->data_off < 0 || x->data_off + dlen > fdlen ||
			(kind_is_text(kind) && (x->offsets_off < 0 || x->offsets_off + 8 * (nrows + 1) > fdlen)) ||
			(x->nulls_off >= 0 && x->nulls_off + nrows > fdlen))
			elog(ERROR, "themis: malformed result column %d from the GPU daemon", c + 1);
		raw = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(TmValue) * Max(nrows, 1) + 16);
		vals = (TmValue *) TYPEALIGN(16, raw);
		nulls = MemoryContextAllocHuge(CurrentMemoryContext, Max(nrows, 1));
		if (x->nulls_off >= 0)
			memcpy(nulls, map + x->nulls_off, nrows);
		else
			memset(nulls, 0, nrows);
		for (int64 r = 0; r < nrows; r++)
		{
			const char *d = map + x->data_off;
			TmValue    *v = &vals[r];

			if (nulls[r])
				continue;
			switch (kind)
			{
				case TM_K_BOOL:
					v->i = ((const uint8 *) d)[r];
					break;
				case TM_K_INT2:
					v->i = ((const int16 *) d)[r];
					break;
				case TM_K_INT4:
				case TM_K_DATE:
					v->i = ((const int32 *) d)[r];
					break;
				case TM_K_INT8:
				case TM_K_TIMESTAMP:
					v->i = ((const int64 *) d)[r];
					break;
				case TM_K_FLOAT4:
					v->f = ((const float *) d)[r];
					break;
				case TM_K_FLOAT8:
					v->f = ((const double *) d)[r];
					break;
				case TM_K_NUMERIC:
					memcpy(&v->n, d + 16 * r, 16);
					break;
				case TM_K_TEXT:
				case TM_K_BPCHAR:
					{
						const int64 *o = (const int64 *) (map + x->offsets_off);

						if (o[r] < 0 || o[r + 1] < o[r] || o[r + 1] > x->data_len)
							elog(ERROR, "themis: malformed text in result column %d from the GPU daemon", c + 1);
						v->s.p = d + o[r];
						v->s.len = (int32) (o[r + 1] - o[r]);
						break;
					}
				default:
					elog(ERROR, "themis: result column kind %d from the GPU daemon", kind);
			}
		}
		rs->values[c] = vals;
		rs->nulls[c] = nulls;
	}
	return rs;
}
