/*
 * bgload.c — loads of the GPU column cache in background workers, for cold queries.
 *
 * A query whose tables are not in the column cache loads them before it runs (gpu_run.c).  Where
 * PostgreSQL's kept plan is estimated much cheaper than reading those tables (an index plan that touches
 * a few rows of a large table: TPC-H Q19), the Themis node runs that plan instead (exec_node.c), and at
 * the end of its execution queues one background worker per table here: the worker connects to the
 * database as the query's role, and loads the columns that the query read into the cache, as
 * themis.cache_table() does (cache_sql.c: tm_cache_load).  Starting after the query, it does not slow the
 * plan down.
 *
 * Shared memory holds one slot per load that is queued or running.  A query that reads a table whose load
 * runs makes a cold start too where its own kept plan is that cheap (without queueing another load), and
 * otherwise waits for the load, as it would read the table itself (gpu_run.c); themis.cache_wait() waits
 * for the loads of the database.  themis.cache_drop() stops the loads of the tables it drops, so that none
 * stores them again after it: a worker closes its daemon connection (which the daemon checks when it takes
 * a request, src/gpud/cancel.c) before it clears its slot.  A worker clears its slot when it exits, errors
 * included; a slot whose worker never started is taken back after TM_BGLOAD_START_MS.
 *
 * A load that did not store every column it read (the worker failed: the role may not connect, a value
 * themis cannot represent, no room in the cache; or the table had writes its snapshot could not see as
 * final) marks
 * its table for TM_BGLOAD_RETRY_MS: meanwhile cold queries of it load it themselves, as before, instead
 * of queueing the same load again.  Where a worker cannot be registered (max_worker_processes), no cold
 * query defers its loads for that long either.
 */
#include "postgres.h"

#include <signal.h>

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "storage/bufmgr.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/spccache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "themis.h"
#include "bgload.h"
#include "gpud_client.h"
#include "modcount.h"

#define TM_BGLOAD_SLOTS		16
#define TM_BGLOAD_START_MS	30000	/* a worker not started after this never will */
#define TM_BGLOAD_RETRY_MS	60000	/* no deferral of a table this long after its load failed, nor of
										 * any after a worker could not be registered */
#define TM_ATTMASK_BYTES	((MaxHeapAttributeNumber + 8) / 8)

typedef struct TmBgLoadSlot
{
	bool		used;
	bool		cancel;			/* themis.cache_drop(): the worker stops, or does not start */
	uint32		generation;		/* of this use of the slot (the worker's bgw_extra) */
	Oid			dboid;
	Oid			relid;
	Oid			roleid;
	pid_t		pid;			/* the worker's, 0 until it starts */
	TimestampTz queued;
	bits8		attmask[TM_ATTMASK_BYTES];	/* bit attno - 1: a column to load */
} TmBgLoadSlot;

typedef struct TmBgLoadFailed
{
	Oid			dboid;
	Oid			relid;
	TimestampTz until;
} TmBgLoadFailed;

typedef struct TmBgLoadShared
{
	slock_t		mutex;
	uint32		next_generation;
	TimestampTz paused_until;	/* a registration failed: no deferral before this */
	TmBgLoadSlot slots[TM_BGLOAD_SLOTS];
	TmBgLoadFailed failed[TM_BGLOAD_SLOTS];	/* recent loads that did not store every column (a ring) */
	int			next_failed;
} TmBgLoadShared;

static TmBgLoadShared *bgload_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

PGDLLEXPORT void themis_bgload_main(Datum arg);

static void
bgload_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(sizeof(TmBgLoadShared));
}

static void
bgload_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	bgload_shared = ShmemInitStruct("themis background loads", sizeof(TmBgLoadShared), &found);
	if (!found)
	{
		memset(bgload_shared, 0, sizeof(TmBgLoadShared));
		SpinLockInit(&bgload_shared->mutex);
	}
	LWLockRelease(AddinShmemInitLock);
}

void
tm_bgload_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = bgload_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = bgload_shmem_startup;
}

/* a slot whose worker never started is free again (caller holds the mutex) */
static bool
slot_stale(TmBgLoadSlot *s, TimestampTz now)
{
	return s->used && s->pid == 0 && TimestampDifferenceExceeds(s->queued, now, TM_BGLOAD_START_MS);
}

/* the slot of a load of (this database, relid) that is queued or running, or -1 (caller holds the mutex) */
static int
find_slot(Oid relid, TimestampTz now)
{
	for (int i = 0; i < TM_BGLOAD_SLOTS; i++)
	{
		TmBgLoadSlot *s = &bgload_shared->slots[i];

		if (slot_stale(s, now))
			s->used = false;
		if (s->used && s->dboid == MyDatabaseId && s->relid == relid)
			return i;
	}
	return -1;
}

bool
tm_bgload_possible(void)
{
	TimestampTz now = GetCurrentTimestamp();
	HeapTuple	tup;
	bool		canlogin = false;
	bool		paused;

	if (bgload_shared == NULL || IsParallelWorker() || RecoveryInProgress())
		return false;
	SpinLockAcquire(&bgload_shared->mutex);
	paused = bgload_shared->paused_until > now;
	SpinLockRelease(&bgload_shared->mutex);
	if (paused)
		return false;
	/* the worker connects as this role (PostgreSQL 15 refuses a role without LOGIN or CONNECT) */
	tup = SearchSysCache1(AUTHOID, ObjectIdGetDatum(GetUserId()));
	if (HeapTupleIsValid(tup))
	{
		canlogin = ((Form_pg_authid) GETSTRUCT(tup))->rolcanlogin;
		ReleaseSysCache(tup);
	}
	return canlogin && pg_database_aclcheck(MyDatabaseId, GetUserId(), ACL_CONNECT) == ACLCHECK_OK;
}

bool
tm_bgload_may_load(Oid relid, const int16 *attnos, int natts)
{
	TimestampTz now = GetCurrentTimestamp();
	bool		failed = false;

	if (bgload_shared == NULL)
		return false;
	SpinLockAcquire(&bgload_shared->mutex);
	for (int i = 0; i < TM_BGLOAD_SLOTS && !failed; i++)
		failed = bgload_shared->failed[i].dboid == MyDatabaseId && bgload_shared->failed[i].relid == relid &&
			bgload_shared->failed[i].until > now;
	SpinLockRelease(&bgload_shared->mutex);
	if (failed)
		return false;

	/*
	 * The worker reads as this role (inside a SECURITY DEFINER function, its owner), and stores nothing
	 * where the role could not read the columns itself: a query that reads them only through a view's
	 * owner loads them itself
	 */
	return tm_bgload_may_read(relid, attnos, natts);
}

bool
tm_bgload_may_read(Oid relid, const int16 *attnos, int natts)
{
	bool		readable = pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK;

	if (!readable && natts > 0)
	{
		readable = true;
		for (int a = 0; a < natts && readable; a++)
			readable = pg_attribute_aclcheck(relid, attnos[a], GetUserId(), ACL_SELECT) == ACLCHECK_OK;
	}
	return readable && check_enable_rls(relid, InvalidOid, true) != RLS_ENABLED;
}

bool
tm_bgload_running(Oid relid, const int16 *attnos, int natts)
{
	TimestampTz now = GetCurrentTimestamp();
	bool		any = false;
	int			idx;

	if (bgload_shared == NULL)
		return false;
	SpinLockAcquire(&bgload_shared->mutex);
	idx = find_slot(relid, now);
	for (int a = 0; idx >= 0 && a < natts && !any; a++)
		any = attnos[a] > 0 && attnos[a] <= MaxHeapAttributeNumber &&
			(bgload_shared->slots[idx].attmask[(attnos[a] - 1) / 8] & (1 << ((attnos[a] - 1) % 8))) != 0;
	SpinLockRelease(&bgload_shared->mutex);
	return any;
}

/*
 * PostgreSQL's estimate of a parallel sequential scan of rel, as cost_seqscan makes it with the workers
 * compute_parallel_worker gives a table of its size: what reading the whole table costs it.
 */
double
tm_bgload_scan_cost(Relation rel)
{
	BlockNumber pages = RelationGetNumberOfBlocks(rel);
	double		tuples = rel->rd_rel->reltuples;
	double		spc_random;
	double		spc_seq;
	int			workers = 0;
	double		divisor = 1.0;

	if (tuples < 0)
		tuples = (double) pages * (BLCKSZ / 64.0);	/* never analyzed: many narrow rows */
	get_tablespace_page_costs(rel->rd_rel->reltablespace, &spc_random, &spc_seq);
	if (max_parallel_workers_per_gather > 0)
	{
		int			reloption = RelationGetParallelWorkers(rel, -1);

		if (reloption >= 0)
			workers = reloption;
		else if (pages >= (BlockNumber) min_parallel_table_scan_size)
		{
			double		threshold = Max(min_parallel_table_scan_size, 1);

			workers = 1;
			while (pages >= threshold * 3)
			{
				workers++;
				threshold *= 3;
				if (workers >= INT_MAX / 3)
					break;
			}
		}
		workers = Min(workers, max_parallel_workers_per_gather);
	}
	if (workers > 0)
	{
		double		leader = 1.0 - 0.3 * workers;

		divisor = workers + (parallel_leader_participation && leader > 0 ? leader : 0);
	}
	return spc_seq * pages + cpu_tuple_cost * tuples / divisor;
}

bool
tm_bgload_start(Oid relid, Oid roleid, const int16 *attnos, int natts)
{
	BackgroundWorker w;
	BackgroundWorkerHandle *handle;
	TimestampTz now = GetCurrentTimestamp();
	int			idx = -1;
	uint32		gen = 0;
	char	   *name;

	if (bgload_shared == NULL)
		return false;
	SpinLockAcquire(&bgload_shared->mutex);
	if (find_slot(relid, now) >= 0)
	{
		/* another query's load of it is queued or running */
		SpinLockRelease(&bgload_shared->mutex);
		return true;
	}
	for (int i = 0; i < TM_BGLOAD_SLOTS && idx < 0; i++)
		if (!bgload_shared->slots[i].used)
			idx = i;
	if (idx >= 0)
	{
		TmBgLoadSlot *s = &bgload_shared->slots[idx];

		memset(s, 0, sizeof(TmBgLoadSlot));
		s->used = true;
		s->generation = gen = ++bgload_shared->next_generation;
		s->dboid = MyDatabaseId;
		s->relid = relid;
		s->roleid = roleid;
		s->queued = now;
		for (int a = 0; a < natts; a++)
			if (attnos[a] > 0 && attnos[a] <= MaxHeapAttributeNumber)
				s->attmask[(attnos[a] - 1) / 8] |= (bits8) (1 << ((attnos[a] - 1) % 8));
	}
	SpinLockRelease(&bgload_shared->mutex);
	if (idx < 0)
		return false;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "themis");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "themis_bgload_main");
	name = get_rel_name(relid);
	snprintf(w.bgw_name, BGW_MAXLEN, "themis background load of %s", name ? name : "a table");
	snprintf(w.bgw_type, BGW_MAXLEN, "themis background load");
	w.bgw_main_arg = Int32GetDatum(idx);
	memcpy(w.bgw_extra, &gen, sizeof(gen));
	w.bgw_notify_pid = 0;
	if (RegisterDynamicBackgroundWorker(&w, &handle))
		return true;

	/* no worker slot (max_worker_processes): cold queries load their tables themselves for a while */
	SpinLockAcquire(&bgload_shared->mutex);
	if (bgload_shared->slots[idx].generation == gen)
		bgload_shared->slots[idx].used = false;
	bgload_shared->paused_until = TimestampTzPlusMilliseconds(now, TM_BGLOAD_RETRY_MS);
	SpinLockRelease(&bgload_shared->mutex);
	ereport(LOG,
			(errmsg("themis: no background worker for loading \"%s\" into the GPU column cache; cold queries load their tables themselves for a minute",
					name ? name : "?"),
			 errhint("Raise max_worker_processes.")));
	return false;
}

bool
tm_bgload_wait(Oid relid)
{
	bool		waited = false;

	if (bgload_shared == NULL)
		return false;
	for (;;)
	{
		TimestampTz now = GetCurrentTimestamp();
		int			idx;

		SpinLockAcquire(&bgload_shared->mutex);
		idx = find_slot(relid, now);
		SpinLockRelease(&bgload_shared->mutex);
		if (idx < 0)
			return waited;
		waited = true;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 2, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

int
tm_bgload_wait_all(void)
{
	int			waited = 0;

	if (bgload_shared == NULL)
		return 0;
	for (;;)
	{
		TimestampTz now = GetCurrentTimestamp();
		bool		any = false;

		SpinLockAcquire(&bgload_shared->mutex);
		for (int i = 0; i < TM_BGLOAD_SLOTS && !any; i++)
		{
			TmBgLoadSlot *s = &bgload_shared->slots[i];

			if (slot_stale(s, now))
				s->used = false;
			any = s->used && s->dboid == MyDatabaseId;
		}
		SpinLockRelease(&bgload_shared->mutex);
		if (!any)
			return waited;
		waited++;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 2, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

void
tm_bgload_stop(Oid relid)
{
	TimestampTz start = GetCurrentTimestamp();

	if (bgload_shared == NULL)
		return;
	for (;;)
	{
		TimestampTz now = GetCurrentTimestamp();
		pid_t		signal_pids[TM_BGLOAD_SLOTS];
		int			nsignal = 0;
		bool		left = false;

		SpinLockAcquire(&bgload_shared->mutex);
		for (int i = 0; i < TM_BGLOAD_SLOTS; i++)
		{
			TmBgLoadSlot *s = &bgload_shared->slots[i];

			if (slot_stale(s, now))
				s->used = false;
			if (!s->used || s->dboid != MyDatabaseId || (OidIsValid(relid) && s->relid != relid))
				continue;
			if (s->pid == 0)
				s->used = false;	/* not started: it exits when it does (generation) */
			else
			{
				if (!s->cancel)
					signal_pids[nsignal++] = s->pid;
				s->cancel = true;
				left = true;
			}
		}
		SpinLockRelease(&bgload_shared->mutex);
		/* outside the spinlock: a worker that exited meanwhile is gone, or not ours (ESRCH, EPERM) */
		for (int i = 0; i < nsignal; i++)
			(void) kill(signal_pids[i], SIGTERM);
		if (!left)
			return;
		if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), 60000))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("themis: a background load of the GPU column cache did not stop")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 2, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* ---- the worker ---- */

static int	my_slot = -1;
static uint32 my_generation = 0;
static bool my_stored = false;

/*
 * At the worker's exit, errors included: the daemon connection is closed first, so that a LOAD the daemon
 * has not taken yet is dropped (src/gpud/cancel.c) before themis.cache_drop() can see the slot free.  A
 * load that did not store every column it read, unless stopped, marks its table (see the top of the
 * file).
 */
static void
release_slot(int code, Datum arg)
{
	TimestampTz now = GetCurrentTimestamp();

	if (bgload_shared == NULL || my_slot < 0)
		return;
	tm_gpud_disconnect();
	SpinLockAcquire(&bgload_shared->mutex);
	if (bgload_shared->slots[my_slot].generation == my_generation)
	{
		TmBgLoadSlot *s = &bgload_shared->slots[my_slot];

		if (!my_stored && !s->cancel)
		{
			TmBgLoadFailed *f = &bgload_shared->failed[bgload_shared->next_failed];

			f->dboid = s->dboid;
			f->relid = s->relid;
			f->until = TimestampTzPlusMilliseconds(now, TM_BGLOAD_RETRY_MS);
			bgload_shared->next_failed = (bgload_shared->next_failed + 1) % TM_BGLOAD_SLOTS;
		}
		s->used = false;
	}
	SpinLockRelease(&bgload_shared->mutex);
	my_slot = -1;
}

void
themis_bgload_main(Datum arg)
{
	int			idx = DatumGetInt32(arg);
	TmBgLoadSlot s;
	bool		mine = false;
	int16	   *attnos;
	int			natts = 0;
	int64		stored;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	memcpy(&my_generation, MyBgworkerEntry->bgw_extra, sizeof(my_generation));
	if (bgload_shared == NULL || idx < 0 || idx >= TM_BGLOAD_SLOTS)
		proc_exit(0);
	SpinLockAcquire(&bgload_shared->mutex);
	if (bgload_shared->slots[idx].used && bgload_shared->slots[idx].generation == my_generation &&
		!bgload_shared->slots[idx].cancel)
	{
		bgload_shared->slots[idx].pid = MyProcPid;
		s = bgload_shared->slots[idx];
		mine = true;
		my_slot = idx;
	}
	SpinLockRelease(&bgload_shared->mutex);
	if (!mine)
		proc_exit(0);				/* stopped before it started (themis.cache_drop()) */
	before_shmem_exit(release_slot, (Datum) 0);

	BackgroundWorkerInitializeConnectionByOid(s.dboid, s.roleid, 0);
	attnos = palloc(sizeof(int16) * MaxHeapAttributeNumber);
	for (int a = 1; a <= MaxHeapAttributeNumber; a++)
		if (s.attmask[(a - 1) / 8] & (1 << ((a - 1) % 8)))
			attnos[natts++] = (int16) a;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	/* a table being altered or dropped is left alone: no lock wait with the backends that wait for us */
	if (!ConditionalLockRelationOid(s.relid, AccessShareLock))
		elog(DEBUG1, "themis: background load of relation %u skipped: the table is locked", s.relid);
	else if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(s.relid)))
		UnlockRelationOid(s.relid, AccessShareLock);
	else
	{
		pgstat_report_activity(STATE_RUNNING,
							   psprintf("themis: loading \"%s\" into the GPU column cache", get_rel_name(s.relid)));
		stored = tm_cache_load(s.relid, attnos, natts, true, &my_stored);
		elog(DEBUG1, "themis: background load of \"%s\": %s, %lld bytes in its entry", get_rel_name(s.relid),
			 my_stored ? "every column stored" : "not every column stored", (long long) stored);
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}
