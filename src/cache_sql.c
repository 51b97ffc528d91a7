/*
 * cache_sql.c — SQL interface of the GPU column cache:
 *
 *   themis.cache_table(regclass) -> int8    load every column themis can represent into the cache now
 *                                           (bytes stored); requires SELECT on the table
 *   themis.cache_drop(regclass = NULL) -> int8   drop the table's entry (NULL: every table of this
 *                                           database), after stopping its background loads (bgload.c);
 *                                           number of entries dropped (0 without a usable GPU daemon:
 *                                           nothing is cached then)
 *   themis.cache_wait() -> bool              wait until no background load of this database's tables
 *                                           (bgload.c) is queued or running; whether there was one
 *   themis.cache_entries() -> setof record  one row per cached column of this database's tables that the
 *                                           caller may read, with whether the
 *                                           entry may serve the caller's snapshot now (valid); the view
 *                                           themis.cache selects from it; no rows without a usable daemon
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "themis.h"
#include "colbuild.h"
#include "gpud_client.h"
#include "modcount.h"
#include "bgload.h"

PG_FUNCTION_INFO_V1(themis_cache_table);
PG_FUNCTION_INFO_V1(themis_cache_drop);
PG_FUNCTION_INFO_V1(themis_cache_wait);
PG_FUNCTION_INFO_V1(themis_cache_entries);

static void
require_daemon(void)
{
	const char *why = NULL;

	if (!tm_gpud_ready(true, &why))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("themis: the GPU column cache is not available: %s", why)));
}

Datum
themis_cache_table(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);

	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid))));
	/* the cache holds every row: not loaded, nor sized, by a caller whom a policy shows only some */
	if (check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("themis: table \"%s\" is read under row-level security and cannot be cached by this role",
						get_rel_name(relid))));
	if (!tm_modcount_available())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("themis: the GPU column cache needs themis in shared_preload_libraries")));
	if (!tm_modcount_cacheable(relid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("themis: table \"%s\" cannot be cached", get_rel_name(relid)),
				 errdetail("Only permanent and unlogged tables and populated materialized views are cached, in a database without logical replication subscriptions, and not on a standby.")));
	require_daemon();
	PG_RETURN_INT64(tm_cache_load(relid, NULL, -1, false, NULL));
}

/*
 * Read columns attnos of relid (natts < 0: every column themis can represent) with the active snapshot
 * and store them in the cache; the bytes of the table's entry, and in *complete (unless NULL) whether
 * every column read is in it now (the daemon keeps no column that does not fit in its cache).  themis.cache_table() checked the table and the caller
 * before; a background load (bgload.c) checks here, and where a check fails, or the stamp is not clean,
 * it loads nothing and says so at DEBUG1 only (a read or the daemon failing is an ERROR either way: the
 * worker exits with it, and its table is marked, bgload.c).
 */
int64
tm_cache_load(Oid relid, const int16 *attnos, int natts, bool background, bool *complete)
{
	Relation	rel;
	TupleDesc	desc;
	TmColSet	set;
	TmCacheStamp st;
	const char *why = NULL;
	TmxSource	src;
	TmxExec		x;
	TmxCol	   *cols;
	StringInfoData buf;
	int64		total;
	int64		off = 0;
	int			fd;
	int64		fdlen;
	bool		own_fd;
	char	   *map = NULL;
	void	   *reply;
	Size		rlen;
	int			t;

	if (complete != NULL)
		*complete = false;
	if (background)
	{
		/* the role may still read the columns whole, and the table be cached */
		if (!tm_bgload_may_read(relid, attnos, natts) ||
			!tm_modcount_available() || !tm_modcount_cacheable(relid) || !tm_gpud_ready(true, &why))
		{
			elog(DEBUG1, "themis: background load of \"%s\" skipped: %s", get_rel_name(relid),
				 why ? why : "the table or the role no longer allows it");
			return 0;
		}
	}

	rel = table_open(relid, AccessShareLock);
	desc = RelationGetDescr(rel);
	tm_colset_init(&set, desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute a = TupleDescAttr(desc, i);
		const char *tw;
		bool		wanted = natts < 0;

		set.cols[i].attno = a->attnum;
		if (a->attisdropped)
			continue;
		for (int k = 0; k < natts && !wanted; k++)
			wanted = attnos[k] == a->attnum;
		if (wanted)
			set.cols[i].present = tm_type_from_pg(a->atttypid, a->atttypmod, a->attcollation,
												  &set.cols[i].type, &tw);
	}
	/* the stamp before reading (see modcount.c) */
	tm_modcount_stamp(relid, GetActiveSnapshot(), &st);
	if (!st.clean)
	{
		table_close(rel, AccessShareLock);
		ereport(background ? DEBUG1 : NOTICE,
				(errmsg("themis: \"%s\" has writes that this snapshot cannot see as final; it is cached by the first query after they are",
						RelationGetRelationName(rel))));
		return 0;
	}
	if (!tm_colset_read_table_parallel(&set, rel, GetActiveSnapshot(), &why))
	{
		/* drop the columns that cannot be represented, read again */
		table_close(rel, AccessShareLock);
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("themis: cannot cache \"%s\": %s", get_rel_name(relid), why)));
	}

	memset(&src, 0, sizeof(src));
	src.mode = TMX_SRC_INLINE;
	src.ncols = set.ncols;
	src.dboid = MyDatabaseId;
	src.relid = relid;
	src.relfilenode = rel->rd_node.relNode;
	src.store = 1;
	src.table_count = st.table_count;
	src.global_count = st.global_count;
	src.nrows = set.nrows;
	strlcpy(src.relname, RelationGetRelationName(rel), sizeof(src.relname));
	table_close(rel, AccessShareLock);

	cols = palloc0(sizeof(TmxCol) * Max(set.ncols, 1));
	/* read in parallel: the columns are in a memfd already (the set's), sent as it is */
	own_fd = !tm_colset_packed_fd(&set, &fd, &fdlen, cols);
	if (own_fd)
	{
		total = tm_colset_bytes(&set);
		fdlen = Max(total, 8);
		fd = memfd_create("themis-cache", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, fdlen) < 0 ||
			(map = tm_map_shared(fd, fdlen)) == MAP_FAILED)
		{
			if (fd >= 0)
				close(fd);
			elog(ERROR, "themis: cannot make a %lld-byte transfer buffer: %m", (long long) total);
		}
		tm_colset_pack(&set, map, &off, cols);
		munmap(map, fdlen);
	}

	memset(&x, 0, sizeof(x));
	x.npipes = 1;
	x.fd_len = fdlen;
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, (char *) &x, sizeof(x));
	appendBinaryStringInfo(&buf, (char *) &src, sizeof(src));
	appendBinaryStringInfo(&buf, (char *) cols, sizeof(TmxCol) * set.ncols);
	PG_TRY();
	{
		t = tm_gpud_request(TM_MSG_LOAD, buf.data, buf.len, fd, &reply, &rlen, NULL, &why);
	}
	PG_FINALLY();
	{
		if (own_fd)
			close(fd);
	}
	PG_END_TRY();
	if (t < 0)
		ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE), errmsg("themis: %s", why)));
	if (t == TM_MSG_ERROR)
	{
		TmxError	e;

		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("themis: cannot cache \"%s\": %s", get_rel_name(relid), tm_gpud_error_text(reply, rlen, &e))));
	}
	if (t != TM_MSG_LOAD_OK || rlen != sizeof(TmxLoadReply))
		elog(ERROR, "themis: unexpected answer %d from themis-gpud", t);
	if (complete != NULL)
		*complete = ((TmxLoadReply *) reply)->entries_stored > 0;
	return ((TmxLoadReply *) reply)->bytes_stored;
}

Datum
themis_cache_drop(PG_FUNCTION_ARGS)
{
	TmxDrop		d;
	void	   *reply;
	Size		rlen;
	const char *why = NULL;
	int			t;

	if (!superuser() && !PG_ARGISNULL(0) && !pg_class_ownercheck(PG_GETARG_OID(0), GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s to drop it from the GPU cache", get_rel_name(PG_GETARG_OID(0)))));
	if (!superuser() && PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be superuser to drop every table from the GPU cache")));
	d.dboid = MyDatabaseId;
	d.relid = PG_ARGISNULL(0) ? 0 : PG_GETARG_OID(0);
	/* a background load of a table dropped here would store it again after the drop: stopped first */
	tm_bgload_stop(d.relid);
	if (!tm_gpud_ready(true, &why))
		PG_RETURN_INT64(0);		/* no daemon with a GPU: nothing is cached */
	t = tm_gpud_request(TM_MSG_CACHE_DROP, &d, sizeof(d), -1, &reply, &rlen, NULL, &why);
	if (t < 0)
		ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE), errmsg("themis: %s", why)));
	if (t != TM_MSG_CACHE_DROPPED || rlen != sizeof(int64))
		elog(ERROR, "themis: unexpected answer %d from themis-gpud", t);
	PG_RETURN_INT64(*(int64 *) reply);
}

Datum
themis_cache_wait(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(tm_bgload_wait_all() > 0);
}

Datum
themis_cache_entries(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	void	   *reply;
	Size		rlen;
	const char *why = NULL;
	int			t;
	int64		n;
	TmxCacheRow *rows;

	InitMaterializedSRF(fcinfo, 0);
	if (!tm_gpud_ready(true, &why))
		return (Datum) 0;		/* no daemon with a GPU: nothing is cached (gpu_status() says why) */
	t = tm_gpud_request(TM_MSG_CACHE_LIST, NULL, 0, -1, &reply, &rlen, NULL, &why);
	if (t < 0)
		ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE), errmsg("themis: %s", why)));
	if (t != TM_MSG_CACHE_ROWS || rlen < sizeof(int64))
		elog(ERROR, "themis: unexpected answer %d from themis-gpud", t);
	memcpy(&n, reply, sizeof(n));
	if (n < 0 || rlen != sizeof(int64) + sizeof(TmxCacheRow) * n)
		elog(ERROR, "themis: malformed cache listing from themis-gpud");
	rows = (TmxCacheRow *) ((char *) reply + sizeof(int64));
	for (int64 i = 0; i < n; i++)
	{
		TmxCacheRow *r = &rows[i];
		Datum		values[9];
		bool		nulls[9];
		HeapTuple	atup;
		bool		valid = false;
		HeapTuple	ctup;

		/*
		 * this database's tables the caller may read, whole: not those a row-level security policy
		 * shows him only in part (the entry's rows and bytes are the whole table's)
		 */
		if (r->dboid != MyDatabaseId ||
			!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(r->relid)) ||
			pg_class_aclcheck(r->relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK ||
			check_enable_rls(r->relid, InvalidOid, true) == RLS_ENABLED)
			continue;
		memset(nulls, 0, sizeof(nulls));
		values[0] = ObjectIdGetDatum(r->relid);
		atup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(r->relid), Int16GetDatum(r->attno));
		if (HeapTupleIsValid(atup))
		{
			Form_pg_attribute a = (Form_pg_attribute) GETSTRUCT(atup);

			values[1] = CStringGetTextDatum(NameStr(a->attname));
			values[2] = CStringGetTextDatum(format_type_with_typemod(a->atttypid, a->atttypmod));
			ReleaseSysCache(atup);
		}
		else
		{
			values[1] = CStringGetTextDatum(psprintf("#%d", r->attno));
			nulls[2] = true;
		}
		values[3] = Int64GetDatum(r->nrows);
		values[4] = Int64GetDatum(r->bytes);
		values[5] = Int64GetDatum(r->hits);
		ctup = SearchSysCache1(RELOID, ObjectIdGetDatum(r->relid));
		if (HeapTupleIsValid(ctup))
		{
			Form_pg_class c = (Form_pg_class) GETSTRUCT(ctup);

			if (c->relfilenode == r->relfilenode && tm_modcount_available() && ActiveSnapshotSet() &&
				tm_modcount_cacheable(r->relid))
			{
				TmCacheStamp st;

				tm_modcount_stamp(r->relid, GetActiveSnapshot(), &st);
				valid = st.clean && st.table_count == r->table_count && st.global_count == r->global_count;
			}
			ReleaseSysCache(ctup);
		}
		values[6] = BoolGetDatum(valid);
		values[7] = Float8GetDatum(r->age_s);
		values[8] = Float8GetDatum(r->idle_s);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
