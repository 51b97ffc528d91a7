/*
 * modcount.c — MVCC modification counters for the GPU column cache: every write of a table is
 * recorded in shared memory before it happens, so that a backend can tell whether a cache entry of
 * the table, built by reading it with one snapshot, may serve a query with another snapshot.  Also the
 * SQL function themis.modcount() (debugging and tests).
 *
 * Counters.  Shared memory (only when themis is in shared_preload_libraries) holds TM_MODCOUNT_SLOTS
 * table slots and one global slot.  Table (dboid, relid) uses slot hash(dboid, relid) % TM_MODCOUNT_SLOTS;
 * tables that share a slot only make the answers below more conservative, never wrong.  A slot has
 *   count        writes recorded (only grows)
 *   max_writer   largest FullTransactionId of a transaction that recorded a write (0: none; only grows)
 *
 * Recording ("bump"), always BEFORE the first row is written: the writer raises max_writer to its
 * top-level FullTransactionId (assigned now if it has none yet; CAS loop), then increments count.  Both
 * are atomic read-modify-write operations, i.e. full memory barriers: whoever sees the new count also
 * sees the raised max_writer, and both are visible before any row the writer then writes.
 *   - ExecutorStart hook: every result relation of the plan (INSERT, UPDATE, DELETE, MERGE, INSERT ... ON
 *     CONFLICT, data-modifying CTEs: PlannedStmt.resultRelations) and, when it is partitioned or has
 *     inheritance children, all its inheritors (tuple routing writes into partitions).  Not for EXPLAIN
 *     without ANALYZE; not for temporary tables (never cacheable).
 *   - ProcessUtility hook: every utility statement outside a short whitelist of statements that change
 *     no table contents bumps the GLOBAL slot, which every entry checks: COPY FROM, TRUNCATE, VACUUM
 *     FULL, CLUSTER, ALTER TABLE, DROP, REFRESH MATERIALIZED VIEW, COMMIT PREPARED, ...
 *
 * Deciding.  An entry of table R built by reading R with snapshot B is stamped (tm_modcount_stamp,
 * called after B was taken and before R is read): the counts of R's slot (plus the slots of R's
 * partition ancestors, summed: see below) and of the global slot are read, then the max_writer of
 * those slots.  The entry is clean if every max_writer < xmin(B).  A query with snapshot Q may use the
 * entry (tm_modcount_valid) if it is clean, both counts are unchanged and every max_writer < xmin(Q).
 *
 * Why this is correct.  xmin of a snapshot is the oldest transaction running when it was taken (the
 * taker's own included): every transaction with an older xid had finished, and the snapshot sees its
 * final state (its rows if it committed, none if it aborted).
 *   1. The transactions counted in the stamp all have xid <= max_writer < xmin(B): they had finished when
 *      B was taken, so B (the entry) saw the final state of every one of them.
 *   2. A writer that is not counted in the stamp increments count after the stamp read it; it writes
 *      only after that, so it committed after B was taken (B precedes the stamp): B sees none of its
 *      rows, and count differs at every later check, so the entry is never used again.
 *   3. At a check with Q: unchanged counts mean the writers recorded so far are exactly the counted
 *      ones (counts only grow, and every writer counts itself before writing).  They all finished
 *      before Q was taken (xid <= max_writer < xmin(Q)), so Q sees exactly their final state, as B did:
 *      the same tuples of R.  A writer recording itself after the check writes after it, and Q, taken
 *      before the check, cannot see those writes.  This holds for Q older than B as well (a long
 *      REPEATABLE READ transaction): if a counted writer was still running for Q, max_writer >= xmin(Q).
 *   4. A transaction that wrote R has max_writer >= its xid >= the xmin of its own snapshots: it neither
 *      builds clean entries of R nor uses entries of R (it must see its own uncommitted rows).
 * Order of the reads.  tm_modcount_stamp must read the counts before max_writer: a writer raises
 * max_writer before incrementing count, so a count read that includes a writer is followed (after a read
 * barrier) by a max_writer read that includes it too; the other order could count a writer whose xid
 * it missed.  tm_modcount_valid reads the counts first as well, but either order is safe there:
 * max_writer only grows, so any value read after the stamp already covers every counted writer, and a
 * larger value (a new writer raised it but has not counted itself yet) only makes the test stricter;
 * a new writer that has counted itself makes the counts differ whichever was read first.
 *
 * Partitions.  Writes through a partitioned parent bump the parent and (find_all_inheritors) all its
 * partitions.  That list is read before the executor routes rows, and ATTACH PARTITION takes only a
 * SHARE UPDATE EXCLUSIVE lock on the parent, which does not conflict with the writer's: a partition
 * attached in between would receive rows without its slot being bumped.  So a partition's stamp and
 * checks also cover the slots of its partition ancestors (their counts summed into table_count, their
 * max_writer included): the parent's bump is then enough.  The ancestors of a table only change
 * through utility statements that bump the global slot (ATTACH / DETACH PARTITION, DROP; a table made
 * by CREATE TABLE ... PARTITION OF has them from its creation on), so a stamp and a later check with
 * the same global count read the same slots.
 *
 * Statements without an xid of their own.  L = ReadNextFullTransactionId() - 1 is not smaller than any
 * xid assigned so far: a snapshot whose xmin is larger than L was taken after all of them finished.
 * When no xid can be assigned (recovery, parallel mode, read-only transaction: no permanent table can
 * be written then), the writer id is L.  A utility statement at top level outside a transaction block
 * may commit transactions of its own, with xids assigned after it starts (VACUUM FULL, CLUSTER, CREATE
 * INDEX CONCURRENTLY, REINDEX, DETACH PARTITION CONCURRENTLY, COMMIT PREPARED, CREATE DATABASE, ...): it
 * bumps the global slot with L before it runs (assigning no xid: such statements must not have one);
 * while it runs, every transaction it commits with an xid bumps the global slot with that xid before
 * committing (xact callback, XACT_EVENT_PRE_COMMIT); and after it returns it bumps with L once more
 * (the transaction still open then has an xid <= L).  An entry stamped while it runs is invalidated by
 * its next commit or by the final bump, and one stamped after the final bump is clean only for a
 * snapshot taken after all of the statement's transactions finished.  Other utility statements bump
 * with the top-level xid, which stays running until their whole transaction ends.
 *
 * Known limits: what writes table rows with neither the executor nor a utility statement, and how each
 * is covered.
 *   - WAL replay on a standby: tm_modcount_cacheable() is false while RecoveryInProgress().
 *     Transactions prepared before a promotion (or a crash restart) wrote without being recorded:
 *     COMMIT PREPARED / ROLLBACK PREPARED bump the global slot (the rest of TransactionStmt does not).
 *   - logical replication apply and table synchronization workers (ExecSimpleRelationInsert, CopyFrom,
 *     ExecuteTruncateGuts, no ExecutorStart): no table is cacheable in a database that has a
 *     subscription.  Not only its pg_subscription_rel tables: an apply worker keeps writing a table that
 *     ALTER SUBSCRIPTION ... REFRESH PUBLICATION removed from there while changes for it were in flight
 *     (its own note of the table stays READY).  CREATE / ALTER / DROP SUBSCRIPTION are utility
 *     statements and bump the global slot; DROP stops the workers.  Third-party replication (pglogical,
 *     BDR) is NOT covered.
 *   - a materialized view WITH NO DATA: not cacheable (PostgreSQL's scan of it raises an error).
 *   - system catalogs (written directly by DDL): not cacheable.  Temporary tables: not cacheable.
 *   - shared memory is reinitialized at a crash restart: counts then start at the clock's value in
 *     microseconds since 2000, so that stamps taken before the restart do not match again (unless a
 *     slot had more than one bump per microsecond on average since the previous start, or the clock
 *     went back).  max_writer restarts at 0: no transaction survives a restart except prepared ones.
 *   - NOT covered: C code that writes heaps through the table AM or heap functions directly, or swaps
 *     relation files, outside the executor and utility statements: pg_repack, pg_squeeze, pg_surgery
 *     (heap_force_kill / heap_force_freeze), custom background workers doing so.
 *   - themis not preloaded: no counters; tm_modcount_available() and tm_modcount_cacheable() are false.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_subscription.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parsetree.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "tcop/utility.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/xid8.h"

#include "modcount.h"

PG_FUNCTION_INFO_V1(themis_modcount);

#define TM_MODCOUNT_GLOBAL TM_MODCOUNT_SLOTS	/* index of the global slot */

typedef struct TmModSlot
{
	pg_atomic_uint64 count;			/* writes recorded */
	pg_atomic_uint64 max_writer;	/* largest FullTransactionId (as uint64) that recorded one; 0: none */
} TmModSlot;

typedef struct TmModcountShared
{
	TmModSlot	slots[TM_MODCOUNT_SLOTS + 1];	/* the table slots, then the global slot */
} TmModcountShared;

static TmModcountShared *modcount_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/*
 * True while a top-level utility statement that may commit transactions of its own runs: each
 * transaction committed meanwhile records itself (modcount_xact_callback).
 */
static bool modcount_own_xacts = false;

/* ---- shared memory ---- */

static void
modcount_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(sizeof(TmModcountShared));
}

static void
modcount_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	modcount_shared = ShmemInitStruct("themis modcount", sizeof(TmModcountShared), &found);
	if (!found)
	{
		/*
		 * Counts start at a value that differs from one (re)initialization to the next (crash restarts
		 * reinitialize shared memory): stamps taken before must not match counts that grew again.
		 */
		TimestampTz now = GetCurrentTimestamp();
		uint64		base = now > 0 ? (uint64) now : 1;
		int			i;

		for (i = 0; i <= TM_MODCOUNT_SLOTS; i++)
		{
			pg_atomic_init_u64(&modcount_shared->slots[i].count, base);
			pg_atomic_init_u64(&modcount_shared->slots[i].max_writer, 0);
		}
	}
	LWLockRelease(AddinShmemInitLock);
}

bool
tm_modcount_available(void)
{
	return modcount_shared != NULL;
}

/* ---- slots ---- */

static inline int
table_slot(Oid relid)
{
	return (int) (hash_combine(hash_bytes_uint32((uint32) MyDatabaseId),
							   hash_bytes_uint32((uint32) relid)) % TM_MODCOUNT_SLOTS);
}

/*
 * The table slots that cover relid: its own and those of its partition ancestors, without duplicates.
 * Returns their number; *slots is palloc'd.
 */
static int
relation_slots(Oid relid, int **slots)
{
	List	   *ancestors = NIL;
	ListCell   *lc;
	int		   *s;
	int			n = 0;

	if (get_rel_relispartition(relid))
		ancestors = get_partition_ancestors(relid);
	s = palloc(sizeof(int) * (1 + list_length(ancestors)));
	s[n++] = table_slot(relid);
	foreach(lc, ancestors)
	{
		int			slot = table_slot(lfirst_oid(lc));
		int			i;

		for (i = 0; i < n && s[i] != slot; i++)
			;
		if (i == n)
			s[n++] = slot;
	}
	list_free(ancestors);
	*slots = s;
	return n;
}

/* Sum of the counts of slots[], and the global count.  Only atomic reads: never fails. */
static void
read_counts(const int *slots, int nslots, uint64 *table_count, uint64 *global_count)
{
	uint64		sum = 0;
	int			i;

	for (i = 0; i < nslots; i++)
		sum += pg_atomic_read_u64(&modcount_shared->slots[slots[i]].count);
	*table_count = sum;
	*global_count = pg_atomic_read_u64(&modcount_shared->slots[TM_MODCOUNT_GLOBAL].count);
}

/* Largest max_writer of slots[]; the global slot's goes to *global_max. */
static uint64
read_max_writer(const int *slots, int nslots, uint64 *global_max)
{
	uint64		m = 0;
	int			i;

	for (i = 0; i < nslots; i++)
		m = Max(m, pg_atomic_read_u64(&modcount_shared->slots[slots[i]].max_writer));
	*global_max = pg_atomic_read_u64(&modcount_shared->slots[TM_MODCOUNT_GLOBAL].max_writer);
	return m;
}

/*
 * Raise the slot's max_writer to writer (if larger), then count the write.  Both are full barriers
 * (compare-exchange, fetch-add): a process that sees the new count sees the raised max_writer, and
 * both are visible before anything this process writes afterwards.
 */
static void
bump_slot(int slot, uint64 writer)
{
	TmModSlot  *s = &modcount_shared->slots[slot];
	uint64		cur = pg_atomic_read_u64(&s->max_writer);

	while (cur < writer)
	{
		if (pg_atomic_compare_exchange_u64(&s->max_writer, &cur, writer))
			break;
		/* cur now holds the value found; loop while it is still smaller */
	}
	pg_atomic_fetch_add_u64(&s->count, 1);
}

/* ---- writer ids and snapshots ---- */

/* Can this process be given a top-level xid now without an error (or a pointless one)? */
static bool
can_assign_xid(void)
{
	/* a read-only transaction can write temporary tables only, which are not recorded */
	return IsTransactionState() && !RecoveryInProgress() && !IsInParallelMode() && !XactReadOnly;
}

/*
 * ReadNextFullTransactionId() - 1 (as uint64): not smaller than any xid assigned so far, and smaller
 * than the xmin of every snapshot taken once all of them have finished.  No xid is assigned.
 */
static uint64
latest_assigned_xid(void)
{
	uint64		next = U64FromFullTransactionId(ReadNextFullTransactionId());

	return next > 0 ? next - 1 : 0;
}

/* The value a write recorded now raises max_writer to: the top-level FullTransactionId if possible. */
static uint64
current_writer(void)
{
	if (can_assign_xid())
		return U64FromFullTransactionId(GetTopFullTransactionId());
	return latest_assigned_xid();
}

/* Bump the global slot with latest_assigned_xid(). */
static void
bump_global_next(void)
{
	bump_slot(TM_MODCOUNT_GLOBAL, latest_assigned_xid());
}

/*
 * snap's xmin as a FullTransactionId (uint64), through *xmin; false if snap is not a plain MVCC
 * snapshot (such a snapshot cannot use the cache).  xmin is not newer than the next xid and within
 * 2^31 of it: it belongs to next's epoch unless it is numerically larger than next's xid (it is then
 * from the epoch before, the counter having wrapped around in between).
 */
static bool
snapshot_xmin_full(Snapshot snap, uint64 *xmin)
{
	FullTransactionId next;
	uint32		epoch;

	if (snap == NULL || snap->snapshot_type != SNAPSHOT_MVCC || snap->takenDuringRecovery ||
		!TransactionIdIsNormal(snap->xmin))
		return false;
	next = ReadNextFullTransactionId();
	epoch = EpochFromFullTransactionId(next);
	if (snap->xmin > XidFromFullTransactionId(next))
	{
		if (epoch == 0)
			return false;		/* cannot happen */
		epoch--;
	}
	*xmin = U64FromFullTransactionId(FullTransactionIdFromEpochAndXid(epoch, snap->xmin));
	return true;
}

/* ---- the API ---- */

void
tm_modcount_bump(Oid relid)
{
	if (modcount_shared == NULL)
		return;
	bump_slot(table_slot(relid), current_writer());
}

/* Has this database a logical replication subscription (pg_subscription, a shared catalog)? */
static bool
database_has_subscription(void)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	bool		found;

	rel = table_open(SubscriptionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_subscription_subdbid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(MyDatabaseId));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * Is relid a materialized view without data (REFRESH / CREATE ... WITH NO DATA)?  PostgreSQL's scan of
 * it raises an error (ExecOpenScanRelation): not cacheable, and not translated (translate.c).
 */
bool
tm_unpopulated_matview(Oid relid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		r = false;

	if (HeapTupleIsValid(tp))
	{
		Form_pg_class c = (Form_pg_class) GETSTRUCT(tp);

		r = c->relkind == RELKIND_MATVIEW && !c->relispopulated;
		ReleaseSysCache(tp);
	}
	return r;
}

bool
tm_modcount_cacheable(Oid relid)
{
	char		relkind;

	if (modcount_shared == NULL || RecoveryInProgress() || !IsTransactionState())
		return false;
	if (IsCatalogRelationOid(relid))
		return false;
	relkind = get_rel_relkind(relid);	/* '\0' if there is no such relation */
	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
		return false;
	if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		return false;
	/* committed catalog changes up to now, not those of a catalog snapshot taken earlier */
	InvalidateCatalogSnapshot();
	return !tm_unpopulated_matview(relid) && !database_has_subscription();
}

void
tm_modcount_stamp(Oid relid, Snapshot snap, TmCacheStamp *out)
{
	int		   *slots;
	int			nslots;
	bool		cacheable;
	uint64		xmin = 0;
	uint64		table_max;
	uint64		global_max;

	out->table_count = 0;
	out->global_count = 0;
	out->clean = false;
	if (modcount_shared == NULL)
		return;

	cacheable = tm_modcount_cacheable(relid);
	nslots = relation_slots(relid, &slots);
	/* counts first, then max_writer (see the top of the file) */
	read_counts(slots, nslots, &out->table_count, &out->global_count);
	pg_read_barrier();
	table_max = read_max_writer(slots, nslots, &global_max);
	pfree(slots);

	out->clean = cacheable && snapshot_xmin_full(snap, &xmin) &&
		table_max < xmin && global_max < xmin;
}

bool
tm_modcount_valid(Oid relid, Snapshot snap, const TmCacheStamp *st)
{
	int		   *slots;
	int			nslots;
	uint64		table_count;
	uint64		global_count;
	uint64		xmin;
	uint64		table_max;
	uint64		global_max;

	if (modcount_shared == NULL || st == NULL || !st->clean)
		return false;
	if (!snapshot_xmin_full(snap, &xmin))
		return false;
	if (!tm_modcount_cacheable(relid))
		return false;

	nslots = relation_slots(relid, &slots);
	read_counts(slots, nslots, &table_count, &global_count);
	if (table_count != st->table_count || global_count != st->global_count)
	{
		pfree(slots);
		return false;
	}
	pg_read_barrier();
	table_max = read_max_writer(slots, nslots, &global_max);
	pfree(slots);
	return table_max < xmin && global_max < xmin;
}

/* ---- ExecutorStart: result relations ---- */

/* Bump every result relation of the plan (and its inheritors) before the executor writes anything. */
static void
record_result_relations(QueryDesc *queryDesc)
{
	PlannedStmt *pstmt = queryDesc->plannedstmt;
	CmdType		op = queryDesc->operation;
	bool		have_writer = false;
	uint64		writer = 0;
	ListCell   *lc;

	if (op != CMD_INSERT && op != CMD_UPDATE && op != CMD_DELETE && op != CMD_MERGE &&
		pstmt->resultRelations == NIL && !pstmt->hasModifyingCTE)
		return;

	if (pstmt->resultRelations == NIL)
	{
		/* modifies something the plan does not list: everything may have changed */
		bump_slot(TM_MODCOUNT_GLOBAL, current_writer());
		return;
	}

	foreach(lc, pstmt->resultRelations)
	{
		RangeTblEntry *rte = rt_fetch(lfirst_int(lc), pstmt->rtable);
		Oid			relid;

		if (rte->rtekind != RTE_RELATION || !OidIsValid(rte->relid))
			continue;
		relid = rte->relid;
		/* temporary tables are never cached; writing only them needs no xid from us */
		if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
			continue;
		if (!have_writer)
		{
			writer = current_writer();
			have_writer = true;
		}
		bump_slot(table_slot(relid), writer);

		/* tuple routing writes into partitions; an inheritance parent's children are written too */
		if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE || has_subclass(relid))
		{
			List	   *all = find_all_inheritors(relid, NoLock, NULL);
			ListCell   *lc2;

			foreach(lc2, all)
			{
				if (lfirst_oid(lc2) != relid)
					bump_slot(table_slot(lfirst_oid(lc2)), writer);
			}
			list_free(all);
		}
	}
}

static void
modcount_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	if (modcount_shared != NULL && (eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0)
		record_result_relations(queryDesc);

	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

/* ---- ProcessUtility: everything but a read-only whitelist bumps the global slot ---- */

/* Does VACUUM / ANALYZE have a FULL option (of any value: in doubt, it is a VACUUM FULL)? */
static bool
vacuum_has_full(VacuumStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->options)
	{
		DefElem    *opt = (DefElem *) lfirst(lc);

		if (IsA(opt, DefElem) && opt->defname != NULL && strcmp(opt->defname, "full") == 0)
			return true;
	}
	return false;
}

/*
 * Utility statements that change no table contents (or whose writes go through the executor, which
 * records them).  Kept short and obviously safe; everything else bumps the global slot.
 */
static bool
utility_is_read_only(Node *stmt)
{
	if (stmt == NULL)
		return false;
	switch (nodeTag(stmt))
	{
		case T_TransactionStmt:
			{
				TransactionStmtKind kind = ((TransactionStmt *) stmt)->kind;

				/* a prepared transaction may have written unrecorded (before a restart/promotion) */
				return kind != TRANS_STMT_COMMIT_PREPARED && kind != TRANS_STMT_ROLLBACK_PREPARED;
			}
		case T_CopyStmt:
			return !((CopyStmt *) stmt)->is_from;
		case T_VacuumStmt:
			/* plain VACUUM and ANALYZE do not change what any snapshot sees */
			return !vacuum_has_full((VacuumStmt *) stmt);
		case T_VariableSetStmt:
		case T_VariableShowStmt:
		case T_ExplainStmt:		/* EXPLAIN ANALYZE of a DML statement runs the executor */
		case T_PrepareStmt:
		case T_ExecuteStmt:		/* runs the executor */
		case T_DeallocateStmt:
		case T_LockStmt:
		case T_ListenStmt:
		case T_NotifyStmt:
		case T_UnlistenStmt:
		case T_CheckPointStmt:
		case T_DiscardStmt:
		case T_CreateStmt:		/* a new, empty table */
		case T_ViewStmt:		/* views, functions, comments and privileges hold no table's rows */
		case T_CreateFunctionStmt:
		case T_CommentStmt:
		case T_GrantStmt:
		case T_GrantRoleStmt:
		case T_DeclareCursorStmt:
		case T_ClosePortalStmt:
		case T_FetchStmt:
		case T_CallStmt:		/* the statements inside go through the executor / ProcessUtility */
		case T_DoStmt:
		case T_ConstraintsSetStmt:	/* deferred triggers write through the executor */
			return true;
		default:
			return false;
	}
}

static void
call_prev_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				  ProcessUtilityContext context, ParamListInfo params, QueryEnvironment *queryEnv,
				  DestReceiver *dest, QueryCompletion *qc)
{
	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

static void
modcount_ProcessUtility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
						ProcessUtilityContext context, ParamListInfo params,
						QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (modcount_shared == NULL || utility_is_read_only(pstmt->utilityStmt))
	{
		call_prev_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
		return;
	}

	if (can_assign_xid() && (context != PROCESS_UTILITY_TOPLEVEL || IsTransactionBlock()))
	{
		/* runs inside this transaction: its xid covers the statement until the transaction ends */
		bump_slot(TM_MODCOUNT_GLOBAL, U64FromFullTransactionId(GetTopFullTransactionId()));
		call_prev_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	}
	else
	{
		/* may commit transactions of its own (or cannot have an xid): before, during and after */
		bool		save_own_xacts = modcount_own_xacts;

		bump_global_next();
		modcount_own_xacts = true;
		PG_TRY();
		{
			call_prev_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
		}
		PG_FINALLY();
		{
			modcount_own_xacts = save_own_xacts;
		}
		PG_END_TRY();
		bump_global_next();
	}
}

/* While such a statement runs, each transaction it commits records itself before committing. */
static void
modcount_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_PRE_COMMIT && modcount_own_xacts && modcount_shared != NULL)
	{
		FullTransactionId fxid = GetTopFullTransactionIdIfAny();

		if (FullTransactionIdIsValid(fxid))
			bump_slot(TM_MODCOUNT_GLOBAL, U64FromFullTransactionId(fxid));
	}
}

void
tm_modcount_init(void)
{
	if (process_shared_preload_libraries_in_progress)
	{
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = modcount_shmem_request;
		prev_shmem_startup_hook = shmem_startup_hook;
		shmem_startup_hook = modcount_shmem_startup;
	}
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = modcount_ExecutorStart;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = modcount_ProcessUtility;
	RegisterXactCallback(modcount_xact_callback, NULL);
}

/* ---- SQL ---- */

/*
 * themis.modcount(rel regclass, OUT available bool, OUT table_count int8, OUT global_count int8,
 *                 OUT max_writer xid8, OUT global_max_writer xid8, OUT cacheable bool, OUT clean_now bool)
 *
 * table_count / max_writer: over the table's slot and its partition ancestors' slots (what a stamp
 * reads); counts and max_writer are NULL when not available.  clean_now: a stamp taken with the
 * statement's snapshot would be clean.
 */
Datum
themis_modcount(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7];

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);
	if (tupdesc->natts != 7)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("themis.modcount() has an unexpected definition"),
				 errhint("Update the extension: ALTER EXTENSION themis UPDATE.")));

	memset(nulls, 0, sizeof(nulls));
	values[0] = BoolGetDatum(modcount_shared != NULL);
	if (modcount_shared == NULL)
	{
		nulls[1] = nulls[2] = nulls[3] = nulls[4] = true;
		values[5] = BoolGetDatum(false);
		values[6] = BoolGetDatum(false);
	}
	else
	{
		int		   *slots;
		int			nslots;
		uint64		table_count;
		uint64		global_count;
		uint64		table_max;
		uint64		global_max;
		TmCacheStamp st;

		nslots = relation_slots(relid, &slots);
		read_counts(slots, nslots, &table_count, &global_count);
		pg_read_barrier();
		table_max = read_max_writer(slots, nslots, &global_max);
		pfree(slots);
		values[1] = Int64GetDatum((int64) table_count);
		values[2] = Int64GetDatum((int64) global_count);
		values[3] = FullTransactionIdGetDatum(FullTransactionIdFromU64(table_max));
		values[4] = FullTransactionIdGetDatum(FullTransactionIdFromU64(global_max));
		values[5] = BoolGetDatum(tm_modcount_cacheable(relid));
		tm_modcount_stamp(relid, ActiveSnapshotSet() ? GetActiveSnapshot() : NULL, &st);
		values[6] = BoolGetDatum(st.clean);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
