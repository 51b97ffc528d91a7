/*
 * colbuild_parallel.c — a heap table read into a TmColSet by parallel workers
 * (tm_colset_read_table_parallel), and themis.debug_colset_checksum(), which lets the regression tests
 * compare it with the serial read (colbuild.c).
 *
 * How a load goes:
 *   - the table's blocks [0, B) are cut into contiguous chunks, large first, small last (guided_chunks).  The
 *     participants (the launched workers and the leader) claim chunks in block order from a counter in
 *     the parallel context's DSM and read each with a heap scan limited to its range (heap_setscanlimits,
 *     no synchronized scan) under the caller's snapshot, which the DSM carries (serialized as a parallel
 *     seq scan's is; it is also the workers' active snapshot), into columns with the same present
 *     columns and TmTypes as the caller's set;
 *   - when no chunk is left, each participant records the size of each of its chunks (rows; per column
 *     bytes of values and whether it has NULLs) in the DSM and keeps the columns in its own memory.  Once
 *     every chunk is read, the leader lays out the whole set in tm_colset_pack's layout (colbuild.c) from
 *     those sizes, makes a memfd of that size and publishes its descriptor; every participant then writes
 *     its own chunks at their places in it, at the same time (a worker opens the leader's memfd through
 *     /proc/<leader pid>/fd/<fd>, as the same user): rows in block order, text offsets rebased.  The set
 *     comes back packed (colbuild.h), and the request to the GPU daemon sends that memfd as it is, so the
 *     leader copies nothing but its own chunks.  A worker that cannot open or map the memfd leaves its
 *     chunks for the leader to read again and write.  The workers exit when the leader says so; an ERROR
 *     anywhere (the parallel context's cleanup at abort ends the workers; the memfd goes with the leader's
 *     memory context) leaves nothing behind;
 *   - the rows come out in exactly the order of one sequential scan, which the GPU column cache relies on
 *     when it adds columns to an entry;
 *   - a value that is not representable stops every participant; the result is false with *why, as in
 *     the serial read.
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
 * workers allowed (max_parallel_workers_per_gather = 0, themis.load_workers = 0, the table's parallel_workers
 * option) and small tables.  Otherwise it asks for themis.load_workers (default: max_parallel_workers, at
 * most one less than the CPUs this process may run on: the leader reads too; none on one CPU).
 * The columns never go through /dev/shm (DSM): only the chunks' sizes do.
 */
#include "postgres.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

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
#include "utils/timestamp.h"
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
/* chunks: none smaller than this (guided_chunks) */
#define TM_PAR_MIN_CHUNK_BLOCKS		((BlockNumber) (((Size) 8 * 1024 * 1024) / BLCKSZ))

/* keys of the parallel context's table of contents */
#define TM_PKEY_SHARED		UINT64CONST(0x7E3D5C0100000001)
#define TM_PKEY_COLS		UINT64CONST(0x7E3D5C0100000002)
#define TM_PKEY_CHUNKS		UINT64CONST(0x7E3D5C0100000003)
#define TM_PKEY_SNAPSHOT	UINT64CONST(0x7E3D5C0100000004)
#define TM_PKEY_BUFUSAGE	UINT64CONST(0x7E3D5C0100000005)
#define TM_PKEY_WALUSAGE	UINT64CONST(0x7E3D5C0100000006)
#define TM_PKEY_CHUNKCOLS	UINT64CONST(0x7E3D5C0100000007)
#define TM_PKEY_FINAL		UINT64CONST(0x7E3D5C0100000008)

typedef enum TmChunkState
{
	TM_CHUNK_FREE,				/* nobody has claimed it */
	TM_CHUNK_CLAIMED,			/* being read */
	TM_CHUNK_READ,				/* a worker read it and holds it: its sizes are in the chunk's TmParChunkCols */
	TM_CHUNK_LOCAL,				/* the leader read it */
	TM_CHUNK_COPIED,			/* its worker wrote it into the memfd */
	TM_CHUNK_RETRY,				/* its worker could not write it into the memfd: the leader reads it */
	TM_CHUNK_UNREPRESENTABLE,	/* a value is not representable: the load fails */
	TM_CHUNK_STOPPED			/* abandoned: the load fails */
} TmChunkState;

/*
 * One chunk.  start and nblocks are fixed when the load starts; claiming sets state and owner under
 * TmParShared.mutex, then only the owner writes the entry (and its TmParChunkCols) until it decrements
 * nbusy (or, for the copy, ncopying) under the mutex; the leader reads the entries once that is 0.
 */
typedef struct TmParChunk
{
	BlockNumber start;
	BlockNumber nblocks;
	int			state;			/* TmChunkState */
	int			owner;			/* ParallelWorkerNumber of its reader, -1: the leader */
	int64		nrows;
} TmParChunk;

/* the size of a column of a chunk read (chunk c, column k: entry c * ncols + k) */
typedef struct TmParChunkCol
{
	int64		dlen;			/* bytes of values */
	bool		nulls;			/* has NULLs */
} TmParChunkCol;

/* a column of the set, as the workers rebuild it */
typedef struct TmParCol
{
	TmType		type;
	int16		attno;
	bool		present;
} TmParCol;

typedef enum TmFinalState
{
	TM_FINAL_WAIT,				/* the leader has not made the memfd yet */
	TM_FINAL_MEMFD,				/* copy your chunks into it */
	TM_FINAL_ABORT				/* the load fails: copy nothing */
} TmFinalState;

typedef struct TmParShared
{
	Oid			relid;
	PGPROC	   *leader_proc;	/* for the workers' xmin (see the worker) */
	int			leader_pid;		/* the memfd is /proc/<leader_pid>/fd/<final_fd> */
	int			ncols;
	int			nchunks;
	pg_atomic_uint32 stop;		/* nonzero: a chunk failed, every participant stops reading */
	ConditionVariable chunk_done;	/* a worker finished reading, or copying, its chunks */
	ConditionVariable final_ready;	/* final_state left TM_FINAL_WAIT */
	ConditionVariable released; /* the leader is done with the workers */
	slock_t		mutex;
	int			next_chunk;		/* the next chunk to claim */
	int			nbusy;			/* chunks claimed and not read */
	int			ncopying;		/* chunks READ and not yet copied (or given up) by their worker */
	int			final_state;	/* TmFinalState */
	int			final_fd;
	int64		final_len;		/* the memfd's size */
	bool		all_attached;	/* workers may exit */
	TimestampTz first_out;		/* when a participant first found no chunk left (0: not yet) */
} TmParShared;

/* what a load did (themis.debug_colset_checksum, DEBUG1) */
typedef struct TmParInfo
{
	int			workers_planned;
	int			workers_launched;
	int			nchunks;
	int			leader_chunks;
	int			retried_chunks;
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

static inline bool
kind_is_text(int kind)
{
	return kind == TM_K_TEXT || kind == TM_K_BPCHAR;
}

/*
 * The chunks of a table of nblocks blocks read by nparts participants, in block order, as guided
 * self-scheduling sizes them: each takes 1 / (2 nparts) of the blocks left, none smaller than
 * TM_PAR_MIN_CHUNK_BLOCKS (the last takes the rest).  The participants claim them in that order, so the
 * large ones go first and the last ones, which the others wait for, are small.  (Four equal chunks per
 * participant left them waiting up to a chunk's time at the end: 30-250 ms of a lineitem read here.)
 * Their count; where starts is not NULL, the first block of each (nblocks after the last).
 */
static int
guided_chunks(BlockNumber nblocks, int nparts, BlockNumber *starts)
{
	BlockNumber at = 0;
	int			n = 0;

	while (at < nblocks)
	{
		BlockNumber left = nblocks - at;
		BlockNumber size = Max(left / (BlockNumber) (2 * Max(nparts, 1)), TM_PAR_MIN_CHUNK_BLOCKS);

		if (left - Min(size, left) < TM_PAR_MIN_CHUNK_BLOCKS)
			size = left;
		if (starts != NULL)
			starts[n] = at;
		at += size;
		n++;
	}
	if (n == 0)
	{
		/* no blocks: one empty chunk */
		if (starts != NULL)
			starts[0] = 0;
		n = 1;
	}
	if (starts != NULL)
		starts[n] = nblocks;
	return n;
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
	/* from then on participants wait for the last chunks (DEBUG1: how long the reading tailed off) */
	if (c < 0 && sh->first_out == 0)
	{
		TimestampTz now = GetCurrentTimestamp();

		SpinLockAcquire(&sh->mutex);
		if (sh->first_out == 0)
			sh->first_out = now;
		SpinLockRelease(&sh->mutex);
	}
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

/* chunk c, read into cs: its row count and column sizes into the shared entries */
static void
record_chunk(TmParChunk *chunks, TmParChunkCol *ccols, int ncols, int c, const TmColSet *cs)
{
	chunks[c].nrows = cs->nrows;
	for (int k = 0; k < ncols; k++)
	{
		const TmColBuild *b = &cs->cols[k];
		TmParChunkCol *cc = &ccols[(Size) c * ncols + k];

		cc->dlen = !b->present ? 0 : kind_is_text(b->type.kind) ? b->dlen :
			(int64) Max(tm_kind_width(b->type.kind), 0) * cs->nrows;
		cc->nulls = b->present && b->nulls != NULL;
	}
}

/*
 * The memfd layout of the whole set (tm_colset_pack's, colbuild.c: per present column its values, 8-aligned,
 * then text offsets (nrows + 1), then NULL bytes, 8-aligned, where any chunk has NULLs) from the chunks'
 * sizes: the descriptors into fcols[ncols]; returns the bytes.
 */
static int64
final_layout(const TmParCol *cols, int ncols, const TmParChunk *chunks, const TmParChunkCol *ccols,
			 int nchunks, TmxCol *fcols)
{
	int64		n = 0;
	int64		off = 0;

	for (int c = 0; c < nchunks; c++)
		n += chunks[c].nrows;
	for (int k = 0; k < ncols; k++)
	{
		TmxCol	   *x = &fcols[k];
		int64		dlen = 0;
		bool		nulls = false;

		memset(x, 0, sizeof(TmxCol));
		x->kind = cols[k].type.kind;
		x->scale = cols[k].type.kind == TM_K_NUMERIC ? cols[k].type.scale : 0;
		x->attno = cols[k].attno;
		x->nulls_off = -1;
		if (!cols[k].present)
			continue;
		x->present = 1;
		for (int c = 0; c < nchunks; c++)
		{
			dlen += ccols[(Size) c * ncols + k].dlen;
			nulls |= ccols[(Size) c * ncols + k].nulls;
		}
		x->data_off = off;
		x->data_len = dlen;
		off += TYPEALIGN(8, dlen);
		if (kind_is_text(x->kind))
		{
			x->offsets_off = off;
			off += 8 * (n + 1);
		}
		if (nulls)
		{
			x->nulls_off = off;
			off += TYPEALIGN(8, n);
		}
	}
	return off;
}

/*
 * Write chunk c, read into cs, at its place in the memfd mapped at map (zeroed where nothing is written):
 * its rows follow those of the chunks before it, and its text offsets count the bytes of those chunks.
 */
static void
copy_chunk(char *map, const TmxCol *fcols, int ncols, const TmParChunk *chunks, const TmParChunkCol *ccols,
		   int c, const TmColSet *cs)
{
	int64		row0 = 0;

	if (cs->nrows == 0)
		return;
	for (int p = 0; p < c; p++)
		row0 += chunks[p].nrows;
	for (int k = 0; k < ncols; k++)
	{
		const TmColBuild *b = &cs->cols[k];
		const TmxCol *x = &fcols[k];
		int64		n = cs->nrows;

		if (!x->present)
			continue;
		if (kind_is_text(x->kind))
		{
			int64		byte0 = 0;
			int64	   *o = (int64 *) (map + x->offsets_off) + row0;

			for (int p = 0; p < c; p++)
				byte0 += ccols[(Size) p * ncols + k].dlen;
			tm_populate_write((char *) o, 8 * (n + 1));
			if (b->dlen > 0)
			{
				tm_populate_write(map + x->data_off + byte0, b->dlen);
				memcpy(map + x->data_off + byte0, b->data, b->dlen);
			}
			if (byte0 == 0 && b->offsets[0] == 0)
				memcpy(o, b->offsets, 8 * (n + 1));
			else
				for (int64 r = 0; r <= n; r++)
					o[r] = byte0 + (b->offsets[r] - b->offsets[0]);
		}
		else
		{
			int			w = Max(tm_kind_width(x->kind), 0);

			tm_populate_write(map + x->data_off + (Size) w * row0, (Size) w * n);
			memcpy(map + x->data_off + (Size) w * row0, b->data, (Size) w * n);
		}
		if (x->nulls_off >= 0 && b->nulls != NULL)
		{
			tm_populate_write(map + x->nulls_off + row0, n);
			memcpy(map + x->nulls_off + row0, b->nulls, n);
		}
	}
}

/* ---------------------------------------------------------------- the workers */

/*
 * Write the chunks this worker read (mine[c], sizes recorded) into the leader's memfd; false if it cannot
 * be opened or mapped (then the leader reads them again).
 */
static bool
copy_mine(TmParShared *sh, TmParChunk *chunks, TmParChunkCol *ccols, TmColSet **mine, const TmxCol *fcols)
{
	char		path[64];
	int			fd;
	char	   *map;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", sh->leader_pid, sh->final_fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
	{
		elog(DEBUG1, "themis: parallel worker cannot open the leader's column buffer %s: %m", path);
		return false;
	}
	map = tm_map_shared(fd, sh->final_len);
	close(fd);
	if (map == MAP_FAILED)
	{
		elog(DEBUG1, "themis: parallel worker cannot map the leader's column buffer: %m");
		return false;
	}
	for (int c = 0; c < sh->nchunks; c++)
		if (mine[c] != NULL)
		{
			CHECK_FOR_INTERRUPTS();
			copy_chunk(map, fcols, sh->ncols, chunks, ccols, c, mine[c]);
		}
	munmap(map, sh->final_len);
	return true;
}

void
themis_colbuild_parallel_main(dsm_segment *seg, shm_toc *toc)
{
	TmParShared *sh = shm_toc_lookup(toc, TM_PKEY_SHARED, false);
	TmParCol   *cols = shm_toc_lookup(toc, TM_PKEY_COLS, false);
	TmParChunk *chunks = shm_toc_lookup(toc, TM_PKEY_CHUNKS, false);
	TmParChunkCol *ccols = shm_toc_lookup(toc, TM_PKEY_CHUNKCOLS, false);
	TmxCol	   *fcols = shm_toc_lookup(toc, TM_PKEY_FINAL, false);
	BufferUsage *bufusage = shm_toc_lookup(toc, TM_PKEY_BUFUSAGE, false);
	WalUsage   *walusage = shm_toc_lookup(toc, TM_PKEY_WALUSAGE, false);
	Snapshot	snap;
	Relation	rel;
	TmColSet  **mine;
	int			nmine = 0;
	int			failed = -1;
	TmReadResult r = TM_READ_OK;
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
		nmine++;
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
	for (int c = 0; c < sh->nchunks; c++)
	{
		if (mine[c] == NULL)
			continue;
		record_chunk(chunks, ccols, sh->ncols, c, mine[c]);
		if (failed >= 0)
			chunks[c].state = c == failed && r == TM_READ_UNREPRESENTABLE ? TM_CHUNK_UNREPRESENTABLE :
				TM_CHUNK_STOPPED;
		else
			chunks[c].state = TM_CHUNK_READ;
	}
	if (nmine > 0)
		finish_chunks(sh, nmine, failed >= 0 && r == TM_READ_UNREPRESENTABLE);

	/* wait for the leader's memfd, then write my chunks at their places in it */
	if (nmine > 0 && failed < 0)
	{
		int			state;

		ConditionVariablePrepareToSleep(&sh->final_ready);
		for (;;)
		{
			SpinLockAcquire(&sh->mutex);
			state = sh->final_state;
			SpinLockRelease(&sh->mutex);
			if (state != TM_FINAL_WAIT)
				break;
			ConditionVariableSleep(&sh->final_ready, PG_WAIT_EXTENSION);
		}
		ConditionVariableCancelSleep();
		if (state == TM_FINAL_MEMFD)
		{
			bool		ok = copy_mine(sh, chunks, ccols, mine, fcols);

			for (int c = 0; c < sh->nchunks; c++)
				if (mine[c] != NULL)
					chunks[c].state = ok ? TM_CHUNK_COPIED : TM_CHUNK_RETRY;
			SpinLockAcquire(&sh->mutex);
			sh->ncopying -= nmine;
			SpinLockRelease(&sh->mutex);
			ConditionVariableBroadcast(&sh->chunk_done);
		}
	}
	MemoryContextDelete(cxt);

	/* stay until the leader is done with the workers (it may still look at the chunks' entries) */
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

	table_close(rel, AccessShareLock);
	UnregisterSnapshot(snap);
	InstrEndParallelQuery(&bufusage[ParallelWorkerNumber], &walusage[ParallelWorkerNumber]);
}

/* ---------------------------------------------------------------- the leader */

/* the CPUs this process may run on (its affinity mask: cpusets and containers), else online; 0: unknown */
static int
usable_cpus(void)
{
#ifdef CPU_COUNT
	cpu_set_t	set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
#endif
	{
		long		n = sysconf(_SC_NPROCESSORS_ONLN);

		return n > 0 ? (int) Min(n, (long) INT_MAX) : 0;
	}
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
	/*
	 * a load is a one-off read of the whole table: every worker PostgreSQL allows, not a Gather's share,
	 * but by default no more than the leader and they can run at once (one per CPU it may run on)
	 */
	if (themis_load_workers >= 0)
		n = Min(n, themis_load_workers);
	else
	{
		int			ncpu = usable_cpus();

		n = Min(n, max_parallel_workers);
		if (ncpu > 0)
			n = Min(n, ncpu - 1);
	}
	if (n <= 0)
		return 0;
	return n;
}

/* the leader reads chunk c into a set of its own, in CurrentMemoryContext */
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

/* give back the arrays of a chunk the leader has written into the memfd */
static void
free_chunk(TmColSet *cs)
{
	for (int k = 0; k < cs->ncols; k++)
	{
		TmColBuild *b = &cs->cols[k];

		if (b->data)
			pfree(b->data);
		if (b->offsets)
			pfree(b->offsets);
		if (b->nulls)
			pfree(b->nulls);
	}
	pfree(cs->cols);
	pfree(cs);
}

/* wait until *counter (under sh->mutex) is 0 */
static void
wait_for_zero(TmParShared *sh, int *counter, ParallelContext *pcxt, Relation rel)
{
	ConditionVariablePrepareToSleep(&sh->chunk_done);
	for (;;)
	{
		int			n;

		SpinLockAcquire(&sh->mutex);
		n = *counter;
		SpinLockRelease(&sh->mutex);
		if (n == 0)
			break;
		if (ConditionVariableTimedSleep(&sh->chunk_done, 1000, PG_WAIT_EXTENSION))
			check_workers(pcxt, rel);
	}
	ConditionVariableCancelSleep();
}

/* the memfd of a packed set, closed and unmapped with the memory context that holds the set */
typedef struct PackedRelease
{
	MemoryContextCallback cb;
	int			fd;
	char	   *map;
	Size		len;
} PackedRelease;

static void
release_packed(void *arg)
{
	PackedRelease *m = (PackedRelease *) arg;

	if (m->map != NULL)
		munmap(m->map, m->len);
	if (m->fd >= 0)
		close(m->fd);
	m->map = NULL;
	m->fd = -1;
}

/* a zeroed memfd of len bytes (at least 8), mapped read-write until CurrentMemoryContext goes */
static PackedRelease *
make_memfd(int64 len, Relation rel)
{
	PackedRelease *m = palloc0(sizeof(PackedRelease));

	m->fd = -1;
	m->len = Max(len, 8);
	m->cb.func = release_packed;
	m->cb.arg = m;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &m->cb);
	m->fd = memfd_create("themis-columns", MFD_CLOEXEC);
	if (m->fd < 0 || ftruncate(m->fd, m->len) < 0)
		elog(ERROR, "themis: cannot make a %lld-byte buffer for the columns of \"%s\": %m",
			 (long long) m->len, RelationGetRelationName(rel));
	m->map = tm_map_shared(m->fd, m->len);
	if (m->map == MAP_FAILED)
	{
		m->map = NULL;
		elog(ERROR, "themis: cannot map a %lld-byte buffer for the columns of \"%s\": %m",
			 (long long) m->len, RelationGetRelationName(rel));
	}
	return m;
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
	TmParChunkCol *ccols;
	TmxCol	   *fcols;
	BufferUsage *bufusage;
	WalUsage   *walusage;
	Snapshot	psnap;
	Size		snaplen;
	char	   *snapspace;
	BlockNumber *starts;
	bool		pushed = false;
	int			nchunks;
	TmColSet  **local;
	bool		failed;
	instr_time	t_start,
				t_read,
				t_written;
	TimestampTz ts_start = GetCurrentTimestamp();
	double		first_out_ms = -1;

	INSTR_TIME_SET_CURRENT(t_start);
	nchunks = guided_chunks(nblocks, nworkers + 1, NULL);
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
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(TmParChunkCol), mul_size(nchunks, set->ncols)));
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(TmxCol), Max(set->ncols, 1)));
	shm_toc_estimate_chunk(&pcxt->estimator, snaplen);
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(BufferUsage), nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(WalUsage), nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 8);

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
	sh->leader_pid = MyProcPid;
	sh->ncols = set->ncols;
	sh->nchunks = nchunks;
	pg_atomic_init_u32(&sh->stop, 0);
	ConditionVariableInit(&sh->chunk_done);
	ConditionVariableInit(&sh->final_ready);
	ConditionVariableInit(&sh->released);
	SpinLockInit(&sh->mutex);
	sh->next_chunk = 0;
	sh->nbusy = 0;
	sh->ncopying = 0;
	sh->final_state = TM_FINAL_WAIT;
	sh->final_fd = -1;
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
	starts = palloc(sizeof(BlockNumber) * (nchunks + 1));
	if (guided_chunks(nblocks, nworkers + 1, starts) != nchunks)
		elog(ERROR, "themis: the chunks of \"%s\" changed", RelationGetRelationName(rel));
	for (int c = 0; c < nchunks; c++)
	{
		BlockNumber from = starts[c];
		BlockNumber to = starts[c + 1];

		memset(&chunks[c], 0, sizeof(TmParChunk));
		chunks[c].start = from;
		chunks[c].nblocks = to - from;
		chunks[c].state = TM_CHUNK_FREE;
		chunks[c].owner = -1;
	}
	shm_toc_insert(pcxt->toc, TM_PKEY_CHUNKS, chunks);
	ccols = shm_toc_allocate(pcxt->toc, mul_size(sizeof(TmParChunkCol), mul_size(nchunks, set->ncols)));
	memset(ccols, 0, mul_size(sizeof(TmParChunkCol), mul_size(nchunks, set->ncols)));
	shm_toc_insert(pcxt->toc, TM_PKEY_CHUNKCOLS, ccols);
	fcols = shm_toc_allocate(pcxt->toc, mul_size(sizeof(TmxCol), Max(set->ncols, 1)));
	memset(fcols, 0, mul_size(sizeof(TmxCol), Max(set->ncols, 1)));
	shm_toc_insert(pcxt->toc, TM_PKEY_FINAL, fcols);

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

	/* the leader reads chunks too, until none is left */
	for (;;)
	{
		int			c = claim_chunk(sh, chunks, -1);
		TmReadResult r;

		if (c < 0)
			break;
		r = leader_read_chunk(c, sh, chunks, local, cols, rel, psnap);
		info->leader_chunks++;
		record_chunk(chunks, ccols, set->ncols, c, local[c]);
		chunks[c].state = r == TM_READ_OK ? TM_CHUNK_LOCAL :
			r == TM_READ_UNREPRESENTABLE ? TM_CHUNK_UNREPRESENTABLE : TM_CHUNK_STOPPED;
		finish_chunks(sh, 1, r == TM_READ_UNREPRESENTABLE);
		if (r != TM_READ_OK)
			break;
	}

	/* wait for the workers' chunks */
	wait_for_zero(sh, &sh->nbusy, pcxt, rel);
	INSTR_TIME_SET_CURRENT(t_read);
	t_written = t_read;
	SpinLockAcquire(&sh->mutex);
	if (sh->first_out != 0)
		first_out_ms = (double) (sh->first_out - ts_start) / 1000.0;
	SpinLockRelease(&sh->mutex);

	/* every entry is final: lay the columns out in one memfd, where each participant writes its chunks */
	failed = pg_atomic_read_u32(&sh->stop) != 0;
	if (!failed)
	{
		int64		total;
		PackedRelease *m;
		int			ncopying = 0;

		for (int c = 0; c < nchunks; c++)
		{
			if (chunks[c].state == TM_CHUNK_READ)
				ncopying++;
			else if (chunks[c].state != TM_CHUNK_LOCAL)
				elog(ERROR, "themis: chunk %d of a parallel read is in state %d", c, chunks[c].state);
		}
		total = final_layout(cols, set->ncols, chunks, ccols, nchunks, fcols);
		m = make_memfd(total, rel);
		SpinLockAcquire(&sh->mutex);
		sh->final_fd = m->fd;
		sh->final_len = m->len;
		sh->ncopying = ncopying;
		sh->final_state = TM_FINAL_MEMFD;
		SpinLockRelease(&sh->mutex);
		ConditionVariableBroadcast(&sh->final_ready);

		for (int c = 0; c < nchunks; c++)
			if (chunks[c].state == TM_CHUNK_LOCAL)
			{
				CHECK_FOR_INTERRUPTS();
				copy_chunk(m->map, fcols, set->ncols, chunks, ccols, c, local[c]);
				free_chunk(local[c]);
				local[c] = NULL;
			}
		wait_for_zero(sh, &sh->ncopying, pcxt, rel);
		INSTR_TIME_SET_CURRENT(t_written);

		/* the chunks a worker could not write: read again (same snapshot, same rows) and write here */
		for (int c = 0; c < nchunks && !failed; c++)
		{
			if (chunks[c].state == TM_CHUNK_RETRY)
			{
				int64		nrows = chunks[c].nrows;

				if (leader_read_chunk(c, sh, chunks, local, cols, rel, psnap) != TM_READ_OK ||
					local[c]->nrows != nrows)
					elog(ERROR, "themis: chunk %d of \"%s\" read again differs", c, RelationGetRelationName(rel));
				copy_chunk(m->map, fcols, set->ncols, chunks, ccols, c, local[c]);
				free_chunk(local[c]);
				local[c] = NULL;
				info->retried_chunks++;
			}
			else if (chunks[c].state != TM_CHUNK_COPIED && chunks[c].state != TM_CHUNK_LOCAL)
				elog(ERROR, "themis: chunk %d of a parallel read is in state %d", c, chunks[c].state);
			set->nrows += chunks[c].nrows;
		}
		set->cap = set->nrows;
		set->packed = true;
		set->packed_fd = m->fd;
		set->packed_map = m->map;
		set->packed_len = total;
		set->packed_cols = palloc(sizeof(TmxCol) * Max(set->ncols, 1));
		memcpy(set->packed_cols, fcols, sizeof(TmxCol) * set->ncols);
	}
	else
	{
		SpinLockAcquire(&sh->mutex);
		sh->final_state = TM_FINAL_ABORT;
		SpinLockRelease(&sh->mutex);
		ConditionVariableBroadcast(&sh->final_ready);
	}

	/* the workers may exit */
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
	/* the two phases: every chunk read into its participant's memory, then written into the memfd */
	INSTR_TIME_SUBTRACT(t_written, t_read);
	INSTR_TIME_SUBTRACT(t_read, t_start);
	elog(DEBUG1, "themis: read \"%s\" (%u blocks, %lld rows, %lld bytes) with %d of %d parallel workers, %d chunks (%d by the leader, %d read again): chunks read in %.1f ms, written into the memfd in %.1f ms; the first participant out of chunks after %.1f ms",
		 RelationGetRelationName(rel), nblocks, (long long) set->nrows, (long long) set->packed_len,
		 info->workers_launched, info->workers_planned, info->nchunks, info->leader_chunks,
		 info->retried_chunks, INSTR_TIME_GET_MILLISEC(t_read), INSTR_TIME_GET_MILLISEC(t_written),
		 first_out_ms);
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
