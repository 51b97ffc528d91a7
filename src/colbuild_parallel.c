/*
 * colbuild_parallel.c — a heap table read into a TmColSet by parallel workers
 * (tm_colset_read_table_parallel), and themis.debug_colset_checksum(), which lets the regression tests
 * compare it with the serial read (colbuild.c).
 *
 * How a load goes:
 *   - the table's blocks [0, B) are cut into fixed contiguous chunks (a few per participant).  The
 *     participants (the launched workers and the leader) claim chunks in block order from a counter in
 *     the parallel context's DSM and read each with a heap scan limited to its range (heap_setscanlimits,
 *     no synchronized scan) under the caller's snapshot, which the DSM carries (serialized as a parallel
 *     seq scan's is; it is also the workers' active snapshot), into columns with the same present
 *     columns and TmTypes as the caller's set;
 *   - when no chunk is left, a worker copies the chunks it read into one DSM segment of its own
 *     (dsm_create; per chunk a head, then tm_colset_pack's layout) and records where each is.  It stays
 *     attached until the leader has attached every worker's segment, then detaches and exits.  No
 *     segment is ever pinned: each lives exactly as long as a process is attached to it, so an ERROR
 *     anywhere (the parallel context's cleanup at abort ends the workers; the leader's mappings go with
 *     the memory context, or its resource owner before they are handed to it) or a crash (crash
 *     restart) leaves nothing behind;
 *   - the caller's set comes back in parts (colbuild.h): the chunks in block order, the leader's in its
 *     own memory, the workers' in their segments, mapped as long as CurrentMemoryContext lives.
 *     tm_colset_pack concatenates them (text offsets rebased) as it copies the columns out: the rows come
 *     out in exactly the order of one sequential scan, which the GPU column cache relies on when it adds
 *     columns to an entry, and no extra copy is made;
 *   - a value that is not representable stops every participant; the result is false with *why, as in
 *     the serial read.  A worker that cannot get a DSM segment (all slots taken) leaves its chunks for
 *     the leader to read again.
 *
 * Parallel mode: the executor enters parallel mode only for plans with parallelModeNeeded, and a
 * Themis node runs in plans of every kind (and themis.cache_table() outside any such plan).  The load
 * therefore enters parallel mode itself, around the parallel context only, as PostgreSQL's parallel
 * CREATE INDEX (_bt_begin_parallel) and parallel VACUUM do: the rules of parallel mode are about what the
 * leader may do while workers run (no writes, no new xids, command ids, combo cids or subtransactions),
 * and while the workers run the leader only reads the table.  The transaction state, combo cids and
 * snapshots the workers need are those of this moment (InitializeParallelDSM).  What stays serial: a
 * parallel worker (no nested parallelism), single-user mode, temporary tables (workers cannot see the
 * leader's local buffers), table AMs other than heap, non-MVCC snapshots, no interrupts allowed, no
 * workers allowed (max_parallel_workers_per_gather, the table's parallel_workers), small tables, and
 * (posix DSM) too little room in /dev/shm for the estimated columns.
 */
#include "postgres.h"

#include <sys/resource.h>
#ifdef __linux__
#include <sys/statvfs.h>
#endif

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "common/cryptohash.h"
#include "common/md5.h"
#include "executor/instrument.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "postmaster/bgworker.h"
#include "storage/bufmgr.h"
#include "storage/condition_variable.h"
#include "storage/dsm.h"
#include "storage/dsm_impl.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/shm_toc.h"
#include "storage/spin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#include "themis.h"
#include "colbuild.h"

PG_FUNCTION_INFO_V1(themis_debug_colset_checksum);

/* the entry point of the workers (library "themis") */
extern PGDLLEXPORT void themis_colbuild_parallel_main(dsm_segment *seg, shm_toc *toc);

/* tables below this size are read serially */
#define TM_PAR_MIN_BLOCKS			((BlockNumber) (((Size) 64 * 1024 * 1024) / BLCKSZ))
/* one worker per this many blocks (up to max_parallel_workers_per_gather) */
#define TM_PAR_BLOCKS_PER_WORKER	((BlockNumber) (((Size) 32 * 1024 * 1024) / BLCKSZ))
/* chunks: this many per participant, none smaller than TM_PAR_MIN_CHUNK_BLOCKS */
#define TM_PAR_CHUNKS_PER_PARTICIPANT 4
#define TM_PAR_MIN_CHUNK_BLOCKS		((BlockNumber) (((Size) 8 * 1024 * 1024) / BLCKSZ))

/* keys of the parallel context's table of contents */
#define TM_PKEY_SHARED		UINT64CONST(0x7E3D5C0100000001)
#define TM_PKEY_COLS		UINT64CONST(0x7E3D5C0100000002)
#define TM_PKEY_CHUNKS		UINT64CONST(0x7E3D5C0100000003)
#define TM_PKEY_SNAPSHOT	UINT64CONST(0x7E3D5C0100000004)
#define TM_PKEY_BUFUSAGE	UINT64CONST(0x7E3D5C0100000005)
#define TM_PKEY_WALUSAGE	UINT64CONST(0x7E3D5C0100000006)

typedef enum TmChunkState
{
	TM_CHUNK_FREE,				/* nobody has claimed it */
	TM_CHUNK_CLAIMED,			/* being read */
	TM_CHUNK_STORED,			/* a worker read it: at `offset` in its DSM segment `handle` (none if no rows) */
	TM_CHUNK_LOCAL,				/* the leader read it */
	TM_CHUNK_RETRY,				/* a worker read it but got no DSM segment: the leader reads it */
	TM_CHUNK_UNREPRESENTABLE,	/* a value is not representable: the load fails */
	TM_CHUNK_STOPPED			/* abandoned: the load fails */
} TmChunkState;

/*
 * One chunk.  start and nblocks are fixed when the load starts; claiming sets state and owner under
 * TmParShared.mutex, then only the owner writes the entry until it decrements nbusy (under the mutex);
 * the leader reads the entries once nbusy is 0.
 */
typedef struct TmParChunk
{
	BlockNumber start;
	BlockNumber nblocks;
	int			state;			/* TmChunkState */
	int			owner;			/* ParallelWorkerNumber of its reader, -1: the leader */
	dsm_handle	handle;
	Size		offset;
	int64		nrows;
} TmParChunk;

/* a column of the set, as the workers rebuild it */
typedef struct TmParCol
{
	TmType		type;
	int16		attno;
	bool		present;
} TmParCol;

typedef struct TmParShared
{
	Oid			relid;
	PGPROC	   *leader_proc;	/* for the workers' xmin (see the worker) */
	int			ncols;
	int			nchunks;
	pg_atomic_uint32 stop;		/* nonzero: a chunk failed, every participant stops reading */
	ConditionVariable chunk_done;	/* a worker finished its chunks */
	ConditionVariable released; /* the leader has attached every worker's segment */
	slock_t		mutex;
	int			next_chunk;		/* the next chunk to claim */
	int			nbusy;			/* chunks claimed and not finished */
	bool		all_attached;	/* workers may detach from their segments and exit */
} TmParShared;

/* a chunk in a worker's segment: this head, then its columns in tm_colset_pack's layout at data_off */
typedef struct TmParChunkHead
{
	int64		nrows;
	int32		ncols;
	int32		pad;
	int64		data_off;		/* from the head */
	TmxCol		cols[FLEXIBLE_ARRAY_MEMBER];
} TmParChunkHead;

#define CHUNK_HEAD_SIZE(ncols) MAXALIGN(offsetof(TmParChunkHead, cols) + sizeof(TmxCol) * (ncols))

/* what a load did (themis.debug_colset_checksum, DEBUG1) */
typedef struct TmParInfo
{
	int			workers_planned;
	int			workers_launched;
	int			nchunks;
	int			leader_chunks;
} TmParInfo;

/* an empty set with the columns (types, attnos, present) of cols */
static void
set_from_cols(TmColSet *set, const TmParCol *cols, int ncols)
{
	tm_colset_init(set, ncols);
	for (int c = 0; c < ncols; c++)
	{
		set->cols[c].type = cols[c].type;
		set->cols[c].attno = cols[c].attno;
		set->cols[c].present = cols[c].present;
	}
}

/* claim the next chunk for owner; -1 when none is left or the load stops */
static int
claim_chunk(TmParShared *sh, TmParChunk *chunks, int owner)
{
	int			c = -1;

	if (pg_atomic_read_u32(&sh->stop) != 0)
		return -1;
	SpinLockAcquire(&sh->mutex);
	if (sh->next_chunk < sh->nchunks)
	{
		c = sh->next_chunk++;
		chunks[c].state = TM_CHUNK_CLAIMED;
		chunks[c].owner = owner;
		sh->nbusy++;
	}
	SpinLockRelease(&sh->mutex);
	return c;
}

/* the owner of n chunks has written their entries: publish them and wake the leader */
static void
finish_chunks(TmParShared *sh, int n, bool unrepresentable)
{
	if (unrepresentable)
		pg_atomic_write_u32(&sh->stop, 1);
	SpinLockAcquire(&sh->mutex);
	sh->nbusy -= n;
	SpinLockRelease(&sh->mutex);
	ConditionVariableBroadcast(&sh->chunk_done);
}

/* ---------------------------------------------------------------- the workers */

/*
 * Put the chunks this worker read (mine[c]) into one DSM segment and record them; failed: the chunk whose
 * read did not succeed (r), or -1.  Returns the segment (NULL: none made).
 */
static dsm_segment *
store_chunks(TmParShared *sh, TmParChunk *chunks, TmColSet **mine, int failed, TmReadResult r)
{
	Size	   *offs = palloc0(sizeof(Size) * sh->nchunks);
	Size		total = 0;
	dsm_segment *seg = NULL;
	int			n = 0;

	if (failed < 0)
	{
		for (int c = 0; c < sh->nchunks; c++)
			if (mine[c] != NULL && mine[c]->nrows > 0)
			{
				offs[c] = total;
				total += CHUNK_HEAD_SIZE(sh->ncols) + MAXALIGN(tm_colset_bytes(mine[c]));
			}
		if (total > 0)
			seg = dsm_create(total, DSM_CREATE_NULL_IF_MAXSEGMENTS);
	}
	for (int c = 0; c < sh->nchunks; c++)
	{
		TmParChunk *ch = &chunks[c];

		if (mine[c] == NULL)
			continue;
		n++;
		ch->nrows = mine[c]->nrows;
		ch->handle = DSM_HANDLE_INVALID;
		ch->offset = 0;
		if (failed >= 0)
			ch->state = c == failed && r == TM_READ_UNREPRESENTABLE ? TM_CHUNK_UNREPRESENTABLE : TM_CHUNK_STOPPED;
		else if (mine[c]->nrows == 0)
			ch->state = TM_CHUNK_STORED;
		else if (seg == NULL)
			ch->state = TM_CHUNK_RETRY;
		else
		{
			TmParChunkHead *h = (TmParChunkHead *) ((char *) dsm_segment_address(seg) + offs[c]);
			int64		off = 0;

			h->nrows = mine[c]->nrows;
			h->ncols = mine[c]->ncols;
			h->pad = 0;
			h->data_off = CHUNK_HEAD_SIZE(sh->ncols);
			tm_colset_pack(mine[c], (char *) h + h->data_off, &off, h->cols);
			ch->state = TM_CHUNK_STORED;
			ch->handle = dsm_segment_handle(seg);
			ch->offset = offs[c];
		}
	}
	finish_chunks(sh, n, failed >= 0 && r == TM_READ_UNREPRESENTABLE);
	return seg;
}

void
themis_colbuild_parallel_main(dsm_segment *seg, shm_toc *toc)
{
	TmParShared *sh = shm_toc_lookup(toc, TM_PKEY_SHARED, false);
	TmParCol   *cols = shm_toc_lookup(toc, TM_PKEY_COLS, false);
	TmParChunk *chunks = shm_toc_lookup(toc, TM_PKEY_CHUNKS, false);
	BufferUsage *bufusage = shm_toc_lookup(toc, TM_PKEY_BUFUSAGE, false);
	WalUsage   *walusage = shm_toc_lookup(toc, TM_PKEY_WALUSAGE, false);
	Snapshot	snap;
	Relation	rel;
	TmColSet  **mine;
	bool		any = false;
	int			failed = -1;
	TmReadResult r = TM_READ_OK;
	dsm_segment *store = NULL;
	MemoryContext cxt;

	snap = RestoreSnapshot(shm_toc_lookup(toc, TM_PKEY_SNAPSHOT, false));

	/*
	 * At READ COMMITTED, PostgreSQL 15 restores a transaction snapshot taken when the parallel context
	 * was set up, whose xmin may be newer than the query snapshot's.  TransactionXmin must not be newer
	 * than the xmin of a snapshot in use (pg_subtrans lookups assume it); install the older one, which
	 * the leader's own xmin covers (ProcArrayInstallRestoredXmin checks that), as later releases do.
	 */
	if (TransactionIdIsNormal(snap->xmin) && TransactionIdPrecedes(snap->xmin, TransactionXmin))
		(void) ProcArrayInstallRestoredXmin(snap->xmin, sh->leader_proc);
	snap = RegisterSnapshot(snap);
	InstrStartParallelQuery();

	rel = table_open(sh->relid, AccessShareLock);
	mine = palloc0(sizeof(TmColSet *) * Max(sh->nchunks, 1));
	cxt = AllocSetContextCreate(CurrentMemoryContext, "themis parallel chunks", ALLOCSET_DEFAULT_SIZES);
	for (;;)
	{
		int			c = claim_chunk(sh, chunks, ParallelWorkerNumber);
		MemoryContext old;

		if (c < 0)
			break;
		any = true;
		old = MemoryContextSwitchTo(cxt);
		mine[c] = palloc(sizeof(TmColSet));
		set_from_cols(mine[c], cols, sh->ncols);
		r = tm_colset_read_blocks(mine[c], rel, snap, chunks[c].start, chunks[c].nblocks, &sh->stop);
		MemoryContextSwitchTo(old);
		if (r != TM_READ_OK)
		{
			failed = c;
			break;
		}
	}
	if (any)
		store = store_chunks(sh, chunks, mine, failed, r);
	MemoryContextDelete(cxt);

	/* keep the segment until the leader holds it */
	ConditionVariablePrepareToSleep(&sh->released);
	for (;;)
	{
		bool		done;

		SpinLockAcquire(&sh->mutex);
		done = sh->all_attached;
		SpinLockRelease(&sh->mutex);
		if (done)
			break;
		ConditionVariableSleep(&sh->released, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();

	if (store != NULL)
		dsm_detach(store);
	table_close(rel, AccessShareLock);
	UnregisterSnapshot(snap);
	InstrEndParallelQuery(&bufusage[ParallelWorkerNumber], &walusage[ParallelWorkerNumber]);
}

/* ---------------------------------------------------------------- the leader */

/* bytes the loaded columns may take (for the room check): rows from the statistics, text at most the heap */
static double
estimate_bytes(Relation rel, const TmColSet *set, BlockNumber nblocks)
{
	double		rows;
	double		per_row = 0;
	bool		text = false;

	if (rel->rd_rel->reltuples >= 0 && rel->rd_rel->relpages > 0)
		rows = rel->rd_rel->reltuples / rel->rd_rel->relpages * nblocks;
	else
		rows = (double) nblocks * (BLCKSZ / 40);	/* unknown: narrow tuples */
	for (int c = 0; c < set->ncols; c++)
	{
		const TmColBuild *b = &set->cols[c];

		if (!b->present)
			continue;
		if (b->type.kind == TM_K_TEXT || b->type.kind == TM_K_BPCHAR)
		{
			per_row += 8;
			text = true;
		}
		else
			per_row += Max(tm_kind_width(b->type.kind), 0);
		per_row += 1;			/* NULL bytes */
	}
	return rows * per_row + (text ? (double) nblocks * BLCKSZ : 0);
}

/* workers to ask for (0: read serially); *nblocks: the table's size now */
static int
plan_workers(Relation rel, Snapshot snap, const TmColSet *set, BlockNumber *nblocks)
{
	int			n;

	*nblocks = 0;
	if (!IsUnderPostmaster || IsParallelWorker() || InitializingParallelWorker)
		return 0;
	if (max_parallel_workers_per_gather <= 0 || !INTERRUPTS_CAN_BE_PROCESSED() ||
		CurrentResourceOwner == NULL)
		return 0;
	if (rel->rd_tableam != GetHeapamTableAmRoutine() || RelationUsesLocalBuffers(rel) ||
		(rel->rd_rel->relkind != RELKIND_RELATION && rel->rd_rel->relkind != RELKIND_MATVIEW))
		return 0;
	if (snap == NULL || snap->snapshot_type != SNAPSHOT_MVCC || HistoricSnapshotActive())
		return 0;
	*nblocks = RelationGetNumberOfBlocks(rel);
	if (*nblocks < TM_PAR_MIN_BLOCKS)
		return 0;
	n = RelationGetParallelWorkers(rel, -1);
	if (n < 0)
		n = (int) Min(*nblocks / TM_PAR_BLOCKS_PER_WORKER, (BlockNumber) 1024);
	n = Min(n, max_parallel_workers_per_gather);
	if (n <= 0)
		return 0;
#ifdef __linux__
	if (dynamic_shared_memory_type == DSM_IMPL_POSIX)
	{
		struct statvfs fs;

		/* the workers' columns go to /dev/shm: a full one would fail the query, not slow it */
		if (statvfs("/dev/shm", &fs) == 0 &&
			(double) fs.f_bavail * fs.f_frsize < estimate_bytes(rel, set, *nblocks))
		{
			elog(DEBUG1, "themis: \"%s\" is read serially: too little room in /dev/shm for its columns",
				 RelationGetRelationName(rel));
			return 0;
		}
	}
#endif
	return n;
}

/* the leader reads chunk c into a set of its own, in CurrentMemoryContext (it becomes a part) */
static TmReadResult
leader_read_chunk(int c, TmParShared *sh, TmParChunk *chunks, TmColSet **local, const TmParCol *cols,
				  Relation rel, Snapshot snap)
{
	TmColSet   *cs = palloc(sizeof(TmColSet));

	set_from_cols(cs, cols, sh->ncols);
	local[c] = cs;
	return tm_colset_read_blocks(cs, rel, snap, chunks[c].start, chunks[c].nblocks, &sh->stop);
}

/* a worker that holds chunks has gone without an error seen so far: see what PostgreSQL says */
static void
check_workers(ParallelContext *pcxt, Relation rel)
{
	CHECK_FOR_INTERRUPTS();		/* rethrows a worker's ERROR */
	for (int i = 0; i < pcxt->nworkers_launched; i++)
	{
		pid_t		pid;

		if (GetBackgroundWorkerPid(pcxt->worker[i].bgwhandle, &pid) != BGWH_STOPPED)
			return;
	}
	/* every worker exited while chunks are claimed: their errors, or failed starts, are raised here */
	WaitForParallelWorkersToFinish(pcxt);
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("themis: parallel workers reading \"%s\" exited before finishing",
					RelationGetRelationName(rel))));
}

/* a worker's segment, mapped as long as the memory context that holds the set's parts */
typedef struct SegMapping
{
	MemoryContextCallback cb;
	dsm_handle	handle;
	dsm_segment *seg;
} SegMapping;

static void
release_mapping(void *arg)
{
	SegMapping *m = (SegMapping *) arg;

	if (m->seg != NULL)
		dsm_detach(m->seg);
	m->seg = NULL;
}

/* the mapping of segment h in CurrentMemoryContext (maps[0..*nmaps-1]: those made so far) */
static char *
map_segment(dsm_handle h, SegMapping **maps, int *nmaps, Relation rel)
{
	SegMapping *m;

	for (int i = 0; i < *nmaps; i++)
		if (maps[i]->handle == h)
			return dsm_segment_address(maps[i]->seg);
	m = palloc0(sizeof(SegMapping));
	m->handle = h;
	m->seg = dsm_attach(h);
	if (m->seg == NULL)
		elog(ERROR, "themis: cannot attach the columns a parallel worker read from \"%s\"",
			 RelationGetRelationName(rel));
	/* from the resource owner to the memory context: the set may outlive the current resource owner */
	dsm_pin_mapping(m->seg);
	m->cb.func = release_mapping;
	m->cb.arg = m;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &m->cb);
	maps[(*nmaps)++] = m;
	return dsm_segment_address(m->seg);
}

/* a part of set: nrows rows read by the leader (local) or in a worker's segment (the chunk head at base) */
static void
make_part(TmColSet *set, TmColPart *part, const TmColSet *local, const char *base, int64 nrows)
{
	part->nrows = nrows;
	part->cols = palloc0(sizeof(TmColPartCol) * Max(set->ncols, 1));
	for (int c = 0; c < set->ncols; c++)
	{
		TmColPartCol *pc = &part->cols[c];
		int			kind = set->cols[c].type.kind;
		bool		text = kind == TM_K_TEXT || kind == TM_K_BPCHAR;

		if (!set->cols[c].present || nrows == 0)
			continue;
		if (local != NULL)
		{
			const TmColBuild *b = &local->cols[c];

			pc->data = b->data;
			pc->dlen = text ? b->dlen : (int64) Max(tm_kind_width(kind), 0) * nrows;
			pc->offsets = b->offsets;
			pc->nulls = b->nulls;
		}
		else
		{
			const TmParChunkHead *h = (const TmParChunkHead *) base;
			const char *data = base + h->data_off;
			const TmxCol *x = &h->cols[c];

			if (h->nrows != nrows || h->ncols != set->ncols || !x->present || x->kind != kind)
				elog(ERROR, "themis: malformed columns from a parallel worker");
			pc->data = data + x->data_off;
			pc->dlen = x->data_len;
			pc->offsets = text ? (const int64 *) (data + x->offsets_off) : NULL;
			pc->nulls = x->nulls_off >= 0 ? (const uint8 *) (data + x->nulls_off) : NULL;
		}
	}
}

/* no workers after all: the serial read with our registered snapshot, which is then released */
static bool
read_serially(TmColSet *set, Relation rel, Snapshot psnap, const char **why)
{
	bool		ok = tm_colset_read_table(set, rel, psnap, why);

	UnregisterSnapshot(psnap);
	return ok;
}

static bool
read_parallel(TmColSet *set, Relation rel, Snapshot snap, int nworkers, BlockNumber nblocks,
			  TmParInfo *info, const char **why)
{
	ParallelContext *pcxt;
	TmParShared *sh;
	TmParCol   *cols;
	TmParChunk *chunks;
	BufferUsage *bufusage;
	WalUsage   *walusage;
	Snapshot	psnap;
	Size		snaplen;
	char	   *snapspace;
	bool		pushed = false;
	int			nchunks;
	TmColSet  **local;
	SegMapping **maps;
	int			nmaps = 0;
	bool		failed;

	nchunks = Min((BlockNumber) (nworkers + 1) * TM_PAR_CHUNKS_PER_PARTICIPANT,
				  nblocks / TM_PAR_MIN_CHUNK_BLOCKS);
	nchunks = Max(nchunks, 1);
	info->workers_planned = nworkers;
	info->nchunks = nchunks;

	/* a snapshot of our own: the caller's may be one that taking a new snapshot overwrites */
	psnap = RegisterSnapshot(snap);

	EnterParallelMode();
	pcxt = CreateParallelContext("themis", "themis_colbuild_parallel_main", nworkers);
	snaplen = EstimateSnapshotSpace(psnap);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(TmParShared));
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(TmParCol) * set->ncols);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(TmParChunk) * nchunks);
	shm_toc_estimate_chunk(&pcxt->estimator, snaplen);
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(BufferUsage), nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(WalUsage), nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 6);

	/* the workers' active snapshot is the leader's now: make it the one we read with */
	if (!ActiveSnapshotSet() || GetActiveSnapshot() != psnap)
	{
		PushActiveSnapshot(psnap);
		pushed = true;
	}
	InitializeParallelDSM(pcxt);
	if (pushed)
		PopActiveSnapshot();
	if (pcxt->seg == NULL || pcxt->nworkers == 0)
	{
		/* no DSM segment (or session segment) to be had: read serially */
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return read_serially(set, rel, psnap, why);
	}

	sh = shm_toc_allocate(pcxt->toc, sizeof(TmParShared));
	memset(sh, 0, sizeof(TmParShared));
	sh->relid = RelationGetRelid(rel);
	sh->leader_proc = MyProc;
	sh->ncols = set->ncols;
	sh->nchunks = nchunks;
	pg_atomic_init_u32(&sh->stop, 0);
	ConditionVariableInit(&sh->chunk_done);
	ConditionVariableInit(&sh->released);
	SpinLockInit(&sh->mutex);
	sh->next_chunk = 0;
	sh->nbusy = 0;
	sh->all_attached = false;
	shm_toc_insert(pcxt->toc, TM_PKEY_SHARED, sh);

	cols = shm_toc_allocate(pcxt->toc, sizeof(TmParCol) * set->ncols);
	for (int c = 0; c < set->ncols; c++)
	{
		memset(&cols[c], 0, sizeof(TmParCol));
		cols[c].type = set->cols[c].type;
		cols[c].attno = set->cols[c].attno;
		cols[c].present = set->cols[c].present;
	}
	shm_toc_insert(pcxt->toc, TM_PKEY_COLS, cols);

	chunks = shm_toc_allocate(pcxt->toc, sizeof(TmParChunk) * nchunks);
	for (int c = 0; c < nchunks; c++)
	{
		BlockNumber from = (BlockNumber) ((uint64) nblocks * c / nchunks);
		BlockNumber to = (BlockNumber) ((uint64) nblocks * (c + 1) / nchunks);

		memset(&chunks[c], 0, sizeof(TmParChunk));
		chunks[c].start = from;
		chunks[c].nblocks = to - from;
		chunks[c].state = TM_CHUNK_FREE;
		chunks[c].owner = -1;
		chunks[c].handle = DSM_HANDLE_INVALID;
	}
	shm_toc_insert(pcxt->toc, TM_PKEY_CHUNKS, chunks);

	snapspace = shm_toc_allocate(pcxt->toc, snaplen);
	SerializeSnapshot(psnap, snapspace);
	shm_toc_insert(pcxt->toc, TM_PKEY_SNAPSHOT, snapspace);
	bufusage = shm_toc_allocate(pcxt->toc, mul_size(sizeof(BufferUsage), nworkers));
	memset(bufusage, 0, mul_size(sizeof(BufferUsage), nworkers));
	shm_toc_insert(pcxt->toc, TM_PKEY_BUFUSAGE, bufusage);
	walusage = shm_toc_allocate(pcxt->toc, mul_size(sizeof(WalUsage), nworkers));
	memset(walusage, 0, mul_size(sizeof(WalUsage), nworkers));
	shm_toc_insert(pcxt->toc, TM_PKEY_WALUSAGE, walusage);

	LaunchParallelWorkers(pcxt);
	info->workers_launched = pcxt->nworkers_launched;
	if (pcxt->nworkers_launched == 0)
	{
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return read_serially(set, rel, psnap, why);
	}

	local = palloc0(sizeof(TmColSet *) * nchunks);
	maps = palloc0(sizeof(SegMapping *) * nchunks);

	/* the leader reads chunks too, until none is left */
	for (;;)
	{
		int			c = claim_chunk(sh, chunks, -1);
		TmReadResult r;

		if (c < 0)
			break;
		r = leader_read_chunk(c, sh, chunks, local, cols, rel, psnap);
		info->leader_chunks++;
		chunks[c].state = r == TM_READ_OK ? TM_CHUNK_LOCAL :
			r == TM_READ_UNREPRESENTABLE ? TM_CHUNK_UNREPRESENTABLE : TM_CHUNK_STOPPED;
		chunks[c].nrows = local[c]->nrows;
		finish_chunks(sh, 1, r == TM_READ_UNREPRESENTABLE);
		if (r != TM_READ_OK)
			break;
	}

	/* wait for the workers' chunks */
	ConditionVariablePrepareToSleep(&sh->chunk_done);
	for (;;)
	{
		int			nbusy;

		SpinLockAcquire(&sh->mutex);
		nbusy = sh->nbusy;
		SpinLockRelease(&sh->mutex);
		if (nbusy == 0)
			break;
		if (ConditionVariableTimedSleep(&sh->chunk_done, 1000, PG_WAIT_EXTENSION))
			check_workers(pcxt, rel);
	}
	ConditionVariableCancelSleep();

	/* every entry is final: the parts, in block order */
	failed = pg_atomic_read_u32(&sh->stop) != 0;
	if (!failed)
	{
		TmColPart  *parts = palloc0(sizeof(TmColPart) * nchunks);
		int64		total = 0;

		for (int c = 0; c < nchunks && !failed; c++)
		{
			TmParChunk *ch = &chunks[c];

			if (ch->state == TM_CHUNK_RETRY)
			{
				/* its worker got no DSM segment */
				if (leader_read_chunk(c, sh, chunks, local, cols, rel, psnap) != TM_READ_OK)
					failed = true;
				ch->state = TM_CHUNK_LOCAL;
				ch->nrows = local[c]->nrows;
				info->leader_chunks++;
			}
			if (ch->state == TM_CHUNK_LOCAL)
				make_part(set, &parts[c], local[c], NULL, ch->nrows);
			else if (ch->state == TM_CHUNK_STORED && ch->nrows > 0)
				make_part(set, &parts[c], NULL, map_segment(ch->handle, maps, &nmaps, rel) + ch->offset,
						  ch->nrows);
			else if (ch->state == TM_CHUNK_STORED)
				make_part(set, &parts[c], NULL, NULL, 0);
			else
				elog(ERROR, "themis: chunk %d of a parallel read is in state %d", c, ch->state);
			total += ch->nrows;
		}
		if (!failed)
		{
			set->parts = parts;
			set->nparts = nchunks;
			set->nrows = total;
			set->cap = total;
		}
	}

	/* the workers may let go of their segments and exit */
	SpinLockAcquire(&sh->mutex);
	sh->all_attached = true;
	SpinLockRelease(&sh->mutex);
	ConditionVariableBroadcast(&sh->released);
	WaitForParallelWorkersToFinish(pcxt);
	for (int i = 0; i < pcxt->nworkers_launched; i++)
		InstrAccumParallelQuery(&bufusage[i], &walusage[i]);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
	UnregisterSnapshot(psnap);

	if (failed)
	{
		*why = psprintf("a value of \"%s\" is not representable by themis", RelationGetRelationName(rel));
		return false;
	}
	elog(DEBUG1, "themis: read \"%s\" (%u blocks, %lld rows) with %d of %d parallel workers, %d chunks (%d by the leader)",
		 RelationGetRelationName(rel), nblocks, (long long) set->nrows, info->workers_launched,
		 info->workers_planned, info->nchunks, info->leader_chunks);
	return true;
}

static bool
read_table_parallel(TmColSet *set, Relation rel, Snapshot snap, TmParInfo *info, const char **why)
{
	BlockNumber nblocks;
	int			nworkers;

	memset(info, 0, sizeof(TmParInfo));
	Assert(set->nrows == 0 && set->nparts == 0);
	for (int c = 0; c < set->ncols; c++)
		if (set->cols[c].present &&
			(set->cols[c].attno <= 0 || set->cols[c].attno > RelationGetDescr(rel)->natts))
			elog(ERROR, "themis: attribute %d of \"%s\" cannot be read into a column",
				 set->cols[c].attno, RelationGetRelationName(rel));
	nworkers = plan_workers(rel, snap, set, &nblocks);
	if (nworkers <= 0)
		return tm_colset_read_table(set, rel, snap, why);
	return read_parallel(set, rel, snap, nworkers, nblocks, info, why);
}

bool
tm_colset_read_table_parallel(TmColSet *set, Relation rel, Snapshot snap, const char **why)
{
	TmParInfo	info;

	return read_table_parallel(set, rel, snap, &info, why);
}

/* ---------------------------------------------------------------- themis.debug_colset_checksum */

/* CPU time (user + system) of this process between a and b, ms */
static double
ru_ms(const struct rusage *a, const struct rusage *b)
{
	return (b->ru_utime.tv_sec - a->ru_utime.tv_sec + b->ru_stime.tv_sec - a->ru_stime.tv_sec) * 1000.0 +
		(b->ru_utime.tv_usec - a->ru_utime.tv_usec + b->ru_stime.tv_usec - a->ru_stime.tv_usec) / 1000.0;
}

/*
 * themis.debug_colset_checksum(rel regclass, parallel bool) -> (rows int8, checksum text, workers int4):
 * every column of rel that themis can represent, read as the GPU loader reads it (parallel: through
 * tm_colset_read_table_parallel, else serially) with the current snapshot; md5 of the packed columns
 * (descriptors and bytes) and the parallel workers that were launched.
 */
Datum
themis_debug_colset_checksum(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	bool		parallel = PG_GETARG_BOOL(1);
	Relation	rel;
	TupleDesc	desc;
	TupleDesc	rdesc;
	TmColSet	set;
	TmParInfo	info;
	const char *why = NULL;
	bool		ok;
	int64		total;
	int64		off = 0;
	char	   *buf;
	TmxCol	   *xcols;
	pg_cryptohash_ctx *md5;
	uint8		digest[MD5_DIGEST_LENGTH];
	char		hex[2 * MD5_DIGEST_LENGTH + 1];
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	instr_time	start;
	instr_time	loaded;
	instr_time	packed;
	struct rusage ru0;
	struct rusage ru1;
	struct rusage ru2;

	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid))));
	if (get_call_result_type(fcinfo, NULL, &rdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	rel = table_open(relid, AccessShareLock);
	if (rel->rd_rel->relkind != RELKIND_RELATION && rel->rd_rel->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel))));
	desc = RelationGetDescr(rel);
	tm_colset_init(&set, desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);
		const char *tw;

		set.cols[i].attno = a->attnum;
		if (a->attisdropped)
			continue;
		set.cols[i].present = tm_type_from_pg(a->atttypid, a->atttypmod, a->attcollation,
											  &set.cols[i].type, &tw);
	}
	memset(&info, 0, sizeof(info));
	getrusage(RUSAGE_SELF, &ru0);
	INSTR_TIME_SET_CURRENT(start);
	if (parallel)
		ok = read_table_parallel(&set, rel, GetActiveSnapshot(), &info, &why);
	else
		ok = tm_colset_read_table(&set, rel, GetActiveSnapshot(), &why);
	INSTR_TIME_SET_CURRENT(loaded);
	getrusage(RUSAGE_SELF, &ru1);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("themis: %s", why)));

	total = tm_colset_bytes(&set);
	/* zeroed: the padding between arrays is hashed too (a memfd starts zeroed) */
	buf = MemoryContextAllocExtended(CurrentMemoryContext, Max(total, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	xcols = palloc0(sizeof(TmxCol) * Max(set.ncols, 1));
	tm_colset_pack(&set, buf, &off, xcols);
	INSTR_TIME_SET_CURRENT(packed);
	getrusage(RUSAGE_SELF, &ru2);
	INSTR_TIME_SUBTRACT(packed, loaded);
	INSTR_TIME_SUBTRACT(loaded, start);
	elog(DEBUG1, "themis: \"%s\" read in %.1f ms (%s; leader CPU %.1f ms), packed in %.1f ms (CPU %.1f ms), %lld bytes",
		 RelationGetRelationName(rel), INSTR_TIME_GET_MILLISEC(loaded), parallel ? "parallel" : "serial",
		 ru_ms(&ru0, &ru1), INSTR_TIME_GET_MILLISEC(packed), ru_ms(&ru1, &ru2), (long long) total);
	md5 = pg_cryptohash_create(PG_MD5);
	if (md5 == NULL || pg_cryptohash_init(md5) < 0 ||
		pg_cryptohash_update(md5, (const uint8 *) &set.nrows, sizeof(set.nrows)) < 0 ||
		pg_cryptohash_update(md5, (const uint8 *) xcols, sizeof(TmxCol) * set.ncols) < 0 ||
		pg_cryptohash_update(md5, (const uint8 *) buf, total) < 0 ||
		pg_cryptohash_final(md5, digest, sizeof(digest)) < 0)
		elog(ERROR, "themis: could not compute an MD5 checksum");
	pg_cryptohash_free(md5);
	for (int i = 0; i < MD5_DIGEST_LENGTH; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	table_close(rel, AccessShareLock);

	values[0] = Int64GetDatum(set.nrows);
	values[1] = CStringGetTextDatum(hex);
	values[2] = Int32GetDatum(info.workers_launched);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(rdesc), values, nulls)));
}
