/*
 * modcount.h — MVCC modification counters: may a GPU column cache entry of a table serve a snapshot?
 *
 * A cache entry of table R is built by reading R with some snapshot; it is stamped then
 * (tm_modcount_stamp) and, for every later query, checked against that query's snapshot
 * (tm_modcount_valid).  The reasoning is at the top of modcount.c.
 */
#ifndef THEMIS_MODCOUNT_H
#define THEMIS_MODCOUNT_H

#include "postgres.h"
#include "utils/snapshot.h"

/* number of per-table slots in shared memory (tables map to hash(dboid, relid) % TM_MODCOUNT_SLOTS) */
#define TM_MODCOUNT_SLOTS 4096

/*
 * What tm_modcount_stamp read when an entry was built.  table_count covers the table's slot and the
 * slots of its partition ancestors (writes routed through a partitioned parent); global_count the
 * global slot (utility statements).
 */
typedef struct TmCacheStamp
{
	uint64		table_count;
	uint64		global_count;
	bool		clean;			/* the entry may serve later snapshots (see tm_modcount_valid) */
} TmCacheStamp;

/*
 * Called from _PG_init: requests the shared memory (only while shared_preload_libraries is being
 * processed) and installs the ExecutorStart and ProcessUtility hooks (always).
 */
extern void tm_modcount_init(void);

/* The shared counters exist (themis was in shared_preload_libraries). */
extern bool tm_modcount_available(void);

/* Records a write of relid by this transaction (the hooks do this; exported for tests). */
extern void tm_modcount_bump(Oid relid);

/*
 * Stamp for a cache entry of relid BUILT with snapshot snap: call it after snap was taken and before
 * reading the table.  The counts are read now; clean: the entry may serve later snapshots, i.e. every
 * transaction that recorded a write of the table (or a utility statement) before now finished before
 * snap was taken (max_writer < snap's xmin), and tm_modcount_cacheable(relid).
 */
extern void tm_modcount_stamp(Oid relid, Snapshot snap, TmCacheStamp *out);

/*
 * May an entry stamped *st serve a query whose snapshot is snap (taken before this call)?
 * st->clean, both counts unchanged, every recorded writer finished before snap was taken, and
 * tm_modcount_cacheable(relid).
 */
extern bool tm_modcount_valid(Oid relid, Snapshot snap, const TmCacheStamp *st);

/*
 * The cache may be used for this relation at all: shared counters available, not in recovery (a
 * standby's changes come from WAL replay, which no hook sees), a permanent or unlogged table or
 * materialized view with data that is not a system catalog, in a database without a logical
 * replication subscription (apply workers write without the executor).
 */
extern bool tm_modcount_cacheable(Oid relid);

/* relid is a materialized view WITH NO DATA (its scan raises an error in PostgreSQL) */
extern bool tm_unpopulated_matview(Oid relid);

#endif							/* THEMIS_MODCOUNT_H */
