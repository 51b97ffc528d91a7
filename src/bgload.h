/*
 * bgload.h — loads of the GPU column cache in background workers, for cold queries (bgload.c).
 */
#ifndef THEMIS_BGLOAD_H
#define THEMIS_BGLOAD_H

#include "utils/relcache.h"

/* _PG_init: the shared memory of the loads (with themis in shared_preload_libraries) */
extern void tm_bgload_init(void);

/* whether this backend may queue loads now (shared memory, a role that can connect, no pause) */
extern bool tm_bgload_possible(void);

/* whether a worker of this role may load relid's columns attnos (no recent failure, privileges, RLS) */
extern bool tm_bgload_may_load(Oid relid, const int16 *attnos, int natts);

/* whether this role may read relid's columns attnos (SELECT on the table or on each) whole (no RLS) */
extern bool tm_bgload_may_read(Oid relid, const int16 *attnos, int natts);

/* whether a load of relid (this database) with any of the columns attnos is queued or running */
extern bool tm_bgload_running(Oid relid, const int16 *attnos, int natts);

/* PostgreSQL's estimated cost of a parallel sequential scan of rel */
extern double tm_bgload_scan_cost(Relation rel);

/* queue a worker that loads relid's columns attnos as roleid (true: queued, or another load of it is) */
extern bool tm_bgload_start(Oid relid, Oid roleid, const int16 *attnos, int natts);

/* wait while a load of relid (this database) is queued or running; true if there was one */
extern bool tm_bgload_wait(Oid relid);

/* wait while loads of this database are queued or running; the number of waits (0: none) */
extern int	tm_bgload_wait_all(void);

/* stop the loads of relid (InvalidOid: of every table of this database) and wait for them to end */
extern void tm_bgload_stop(Oid relid);

/* cache_sql.c: load columns attnos of relid into the cache (natts < 0: every column themis can
 * represent); background: as a worker, where a check that fails loads nothing instead of an ERROR;
 * the bytes of the table's entry, *complete: every column read is cached now */
extern int64 tm_cache_load(Oid relid, const int16 *attnos, int natts, bool background, bool *complete);

#endif							/* THEMIS_BGLOAD_H */
