/*
 * gpu_run.c — runs a themis plan on the GPU through the daemon themis-gpud.
 *
 * For each pipeline the source goes as:
 *   RESULT   nothing (the daemon has it from an earlier pipeline);
 *   TABLE    CACHED when the column cache may serve this snapshot (modcount.c: the table is cacheable and
 *            no write to it is newer than the snapshot's xmin), with the stamp taken now, before anything
 *            is read; otherwise INLINE: read here with the query's snapshot and sent;
 *   SUBPLAN  INLINE: the PostgreSQL subplan runs here and its rows are sent.
 * Cold starts (themis.cold_plan_fraction, bgload.c): where the caller's kept PostgreSQL plan is estimated
 * much cheaper than reading the tables that background workers load now, or that the daemon's first NEED
 * lacks, the run ends there: the caller runs that plan, and after a NEED queues background loads.  A
 * table that a worker loads is otherwise waited for before the first request.
 * Otherwise, if the daemon lacks a CACHED source (NEED), that table is read now and sent INLINE with `store`, under
 * the stamp taken before reading, so that the daemon keeps it for later queries.  With themis.stream_loads
 * those tables are read largest first and each but the last read goes at once in a LOAD of its own, which
 * the daemon uploads while the others are read; the request then names it as CACHED.
 *
 * Outcome: a result set; or NULL with *error set (an expression raised an error PostgreSQL raises too:
 * handled like the CPU executor's); or NULL with *reason (the GPU path is not available or failed:
 * daemon unreachable, no GPU, out of device memory, CUDA error, unsupported plan) and the caller decides
 * between the CPU executor, the kept PostgreSQL plan and an ERROR.
 */
#include "postgres.h"

#include <sys/mman.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/table.h"
#include "executor/executor.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "themis.h"
#include "bgload.h"
#include "colbuild.h"
#include "gpu_run.h"
#include "gpud_client.h"
#include "modcount.h"
#include "tm_gpu_exec.h"
#include "themis/tm_trace.h"

typedef struct SrcState
{
	TmxSource	hdr;
	TmColSet	set;			/* INLINE columns (read once, kept for a resend) */
	bool		have_data;
	TmType	   *types;			/* per source column (kind 0: not read) */
	bool	   *present;
	int			slot;			/* > 0: sent in its own memfd, the request's descriptor of that number */
	bool		streamed;		/* loaded into the cache by a LOAD of its own (themis.stream_loads) */
} SrcState;

/* themis.stream_loads: a source to keep in the cache gets a LOAD of its own from this size on */
#define TM_STREAM_MIN_BYTES		((int64) 32 * 1024 * 1024)

/* the source columns of pipeline pl that level-0 slots read, with their types */
static void
source_columns(const TmPipeline *pl, SrcState *s)
{
	s->types = palloc0(sizeof(TmType) * Max(pl->nsrccols, 1));
	s->present = palloc0(sizeof(bool) * Max(pl->nsrccols, 1));
	for (int i = 0; i < pl->nslots; i++)
	{
		const TmSlot *sl = &pl->slots[i];

		if (sl->level != 0)
			continue;
		if (sl->col < 0 || sl->col >= pl->nsrccols)
			elog(ERROR, "themis: slot refers to source column %d of %d", sl->col, pl->nsrccols);
		if (!s->present[sl->col])
		{
			s->present[sl->col] = true;
			s->types[sl->col] = sl->type;
		}
	}
}

/* read the source's rows into s->set; false with *why if a value is not representable */
static bool
read_source(const TmPipeline *pl, SrcState *s, EState *estate, PlanState **inputs, int ninputs,
			const char **why)
{
	bool		ok;

	tm_colset_init(&s->set, pl->nsrccols);
	for (int c = 0; c < pl->nsrccols; c++)
	{
		s->set.cols[c].present = s->present[c];
		s->set.cols[c].type = s->types[c];
		s->set.cols[c].attno = pl->srckind == TM_SRC_TABLE ? pl->src_attnos[c] : 0;
	}
	if (pl->srckind == TM_SRC_TABLE)
	{
		Relation	rel = table_open(pl->relid, AccessShareLock);

		ok = tm_colset_read_table_parallel(&s->set, rel, estate->es_snapshot, why);
		table_close(rel, NoLock);
	}
	else
	{
		if (pl->subplan < 1 || pl->subplan > ninputs)
			elog(ERROR, "themis: pipeline reads subplan %d of %d", pl->subplan, ninputs);
		ok = tm_colset_read_plan(&s->set, inputs[pl->subplan - 1], estate, why);
	}
	s->hdr.nrows = s->set.nrows;
	s->have_data = ok;
	return ok;
}

/* the blocks of a table source's relation (0 for other sources): the reading order of stream_loads */
static BlockNumber
source_blocks(const TmPipeline *pl)
{
	Relation	rel;
	BlockNumber n;

	if (pl->srckind != TM_SRC_TABLE)
		return 0;
	rel = table_open(pl->relid, AccessShareLock);
	n = RelationGetNumberOfBlocks(rel);
	table_close(rel, NoLock);
	return n;
}

/*
 * The order in which order[0 .. n) are read with themis.stream_loads: the sources to keep in the cache
 * (store) first, largest first, so that the largest one's upload overlaps the reading of the others;
 * the others after them, in their own order.
 */
static void
stream_order(const TmPlan *plan, const SrcState *srcs, int *order, int n)
{
	BlockNumber *blocks = palloc(sizeof(BlockNumber) * Max(n, 1));

	for (int k = 0; k < n; k++)
		blocks[k] = srcs[order[k]].hdr.store ? source_blocks(&plan->pipelines[order[k]]) : 0;
	/* insertion sort, stable: store before the rest, then blocks descending */
	for (int k = 1; k < n; k++)
	{
		int			p = order[k];
		BlockNumber b = blocks[k];
		bool		st = srcs[p].hdr.store != 0;
		int			j = k;

		while (j > 0)
		{
			bool		st_prev = srcs[order[j - 1]].hdr.store != 0;

			if (!(st && (!st_prev || b > blocks[j - 1])))
				break;
			order[j] = order[j - 1];
			blocks[j] = blocks[j - 1];
			j--;
		}
		order[j] = p;
		blocks[j] = b;
	}
	pfree(blocks);
}

/*
 * Send source s, just read in parallel and to be kept in the cache, to the daemon in a LOAD of its own
 * (as themis.cache_table() does, with the query's columns and its stamp); its reply is read after the
 * other sources are (tm_gpud_recv).  1: sent; 0: not sent (it then goes with the query's request); -1:
 * the send failed and the connection was dropped, with the LOADs sent before it.
 */
static int
send_load(SrcState *s)
{
	StringInfoData buf;
	TmxExec		x;
	TmxSource	src = s->hdr;
	TmxCol	   *cols = palloc0(sizeof(TmxCol) * Max(s->hdr.ncols, 1));
	int			fd;
	int64		len;
	const char *why = NULL;
	int			r;

	if (!tm_colset_packed_fd(&s->set, &fd, &len, cols))
		return 0;
	src.mode = TMX_SRC_INLINE;
	src.store = 1;
	src.fd_slot = 0;
	src.slot_len = 0;
	memset(&x, 0, sizeof(x));
	x.npipes = 1;
	x.fd_len = Max(len, 8);
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, (char *) &x, sizeof(x));
	appendBinaryStringInfo(&buf, (char *) &src, sizeof(src));
	appendBinaryStringInfo(&buf, (char *) cols, sizeof(TmxCol) * s->hdr.ncols);
	r = tm_gpud_send(TM_MSG_LOAD, buf.data, buf.len, fd, &why) < 0 ? -1 : 1;
	if (r < 0 && tm_trace_wanted())
		elog(LOG, "themis trace: \"%s\" not streamed: %s", s->hdr.relname, why);
	pfree(buf.data);
	pfree(cols);
	return r;
}

/*
 * At the end of the run, errors included: LOADs still waiting for their replies (an ERROR while the other
 * sources were read) drop the connection, which tells the daemon to stop them, as for any request.
 */
static void
drop_pending_loads(void *arg)
{
	if (tm_gpud_pending() > 0)
		tm_gpud_disconnect();
}

/* close a descriptor at the end of the run, errors included */
typedef struct FdRelease
{
	MemoryContextCallback cb;
	int			fd;
} FdRelease;

static void
release_fd(void *arg)
{
	FdRelease  *f = (FdRelease *) arg;

	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

static FdRelease *
own_fd(int fd)
{
	FdRelease  *f = palloc0(sizeof(FdRelease));

	f->fd = fd;
	f->cb.func = release_fd;
	f->cb.arg = f;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &f->cb);
	return f;
}

/* milliseconds since t0; for THEMIS_GPU_TRACE (themis/tm_trace.h): a LOG line per attempt of a run
 * (sources cached / inline, time reading them, the request's round trip) and one for the result */
static double
ms_since(instr_time t0)
{
	instr_time	t;

	INSTR_TIME_SET_CURRENT(t);
	INSTR_TIME_SUBTRACT(t, t0);
	return INSTR_TIME_GET_MILLISEC(t);
}

/*
 * Whether the kept plan, estimated at kept_cost, is cheaper than themis.cold_plan_fraction of PostgreSQL's
 * estimate of scanning the tables that the daemon lacks (need: its first NEED), or that background workers
 * load now (need NULL: before the first request).  If so, info->cold lists those tables with the columns
 * that the plan reads, and info->cold_queue says whether to queue their loads (bgload.c): after a NEED,
 * where a worker of this role may load every one of them; while they load, there is nothing to queue.
 */
static bool
cold_start(const TmPlan *plan, const SrcState *srcs, const int32 *need, double kept_cost,
		   TmGpuRunInfo *info)
{
	int			np = plan->npipelines;
	double		scan = 0;

	if (kept_cost < 0 || themis_cold_plan_fraction <= 0 || IsParallelWorker() ||
		(need != NULL && !tm_bgload_possible()))
		return false;
	info->cold_relids = palloc0(sizeof(Oid) * np);
	info->cold_attnos = palloc0(sizeof(int16 *) * np);
	info->cold_natts = palloc0(sizeof(int) * np);
	info->ncold = 0;
	for (int p = 0; p < np; p++)
	{
		const TmPipeline *pl = &plan->pipelines[p];
		int			k;

		if (srcs[p].hdr.mode != TMX_SRC_CACHED || pl->srckind != TM_SRC_TABLE || (need != NULL && !need[p]))
			continue;
		if (need == NULL)
		{
			/* the columns this pipeline reads: is any of them loading? */
			int16	   *mine = palloc(sizeof(int16) * Max(pl->nsrccols, 1));
			int			n = 0;
			bool		loading;

			for (int c = 0; c < pl->nsrccols; c++)
				if (srcs[p].present[c])
					mine[n++] = pl->src_attnos[c];
			loading = tm_bgload_running(pl->relid, mine, n);
			pfree(mine);
			if (!loading)
				continue;
		}
		for (k = 0; k < info->ncold && info->cold_relids[k] != pl->relid; k++)
			;
		if (k == info->ncold)
		{
			Relation	rel = table_open(pl->relid, AccessShareLock);

			scan += tm_bgload_scan_cost(rel);
			table_close(rel, NoLock);
			info->cold_relids[k] = pl->relid;
			info->cold_attnos[k] = palloc(sizeof(int16) * MaxHeapAttributeNumber);
			info->ncold++;
		}
		/* the columns of every pipeline that reads it */
		for (int c = 0; c < pl->nsrccols; c++)
		{
			bool		dup = false;

			if (!srcs[p].present[c])
				continue;
			for (int j = 0; j < info->cold_natts[k] && !dup; j++)
				dup = info->cold_attnos[k][j] == pl->src_attnos[c];
			if (!dup)
				info->cold_attnos[k][info->cold_natts[k]++] = pl->src_attnos[c];
		}
	}
	info->cold_kept_cost = kept_cost;
	info->cold_scan_cost = scan;
	if (info->ncold == 0 || kept_cost >= themis_cold_plan_fraction * scan)
	{
		info->ncold = 0;
		return false;
	}
	/* a load that would store nothing (see bgload.c): this query loads the tables itself */
	for (int k = 0; need != NULL && k < info->ncold; k++)
		if (!tm_bgload_may_load(info->cold_relids[k], info->cold_attnos[k], info->cold_natts[k]))
		{
			info->ncold = 0;
			return false;
		}
	info->cold = true;
	info->cold_queue = need != NULL;
	info->cold_roleid = GetUserId();
	if (tm_trace_wanted())
		elog(LOG, "themis trace: cold start: the kept plan (cost %.0f) runs, %d tables (scan cost %.0f) %s in the background",
			 kept_cost, info->ncold, scan, need != NULL ? "load" : "are loading");
	return true;
}

TmResultSet *
tm_gpu_run(const TmPlan *plan, const bytea *blob, EState *estate,
		   const TmValue *params, const bool *paramnulls,
		   PlanState **inputs, int ninputs, int flags, const TmGpuRunTopN *topn,
		   double kept_cost, TmPipelineStats *stats, TmGpuRunInfo *info,
		   const char **reason, TmStatus *error)
{
	SrcState   *srcs;
	int			np = plan->npipelines;
	int			attempt;
	int		   *order = palloc(sizeof(int) * Max(np, 1));	/* the sources to read, in reading order */
	int		   *loading = palloc(sizeof(int) * Max(np, 1));	/* those sent in LOADs of their own */
	int			nread;
	int			nloading;
	MemoryContextCallback *pending_cb = NULL;
	bool		may_stream = themis_stream_loads;
	int			extra = 0;		/* attempts allowed past the three (a NEED after streamed loads) */

	memset(info, 0, sizeof(TmGpuRunInfo));
	info->topn_rows_in = -1;
	info->use = palloc0(sizeof(int) * Max(np, 1));
	*reason = NULL;
	*error = TM_OK;

	if (!tm_gpud_ready(themis_device == THEMIS_DEVICE_GPU, reason))
		return NULL;

	srcs = palloc0(sizeof(SrcState) * Max(np, 1));
	for (int p = 0; p < np; p++)
	{
		const TmPipeline *pl = &plan->pipelines[p];
		SrcState   *s = &srcs[p];

		s->hdr.ncols = pl->nsrccols;
		if (pl->srckind == TM_SRC_RESULT)
		{
			s->hdr.mode = TMX_SRC_NONE;
			s->hdr.ncols = 0;
			continue;
		}
		source_columns(pl, s);
		s->hdr.mode = TMX_SRC_INLINE;
		if (pl->srckind == TM_SRC_TABLE)
		{
			bool		cacheable = tm_modcount_available() && tm_modcount_cacheable(pl->relid);

			for (int c = 0; c < pl->nsrccols && cacheable; c++)
				if (s->present[c] && pl->src_attnos[c] <= 0)
					cacheable = false;	/* system columns are not cached */
			if (cacheable)
			{
				Relation	rel = table_open(pl->relid, AccessShareLock);
				TmCacheStamp st;

				/*
				 * A SERIALIZABLE transaction reads the whole table, from the cache or not: its
				 * predicate lock, as the heap read takes it (colbuild.c), so that a concurrent
				 * writer's read-write conflict is seen (a no-op at other isolation levels)
				 */
				PredicateLockRelation(rel, estate->es_snapshot);
				tm_modcount_stamp(pl->relid, estate->es_snapshot, &st);
				s->hdr.dboid = MyDatabaseId;
				s->hdr.relid = pl->relid;
				s->hdr.relfilenode = rel->rd_node.relNode;
				s->hdr.table_count = st.table_count;
				s->hdr.global_count = st.global_count;
				strlcpy(s->hdr.relname, RelationGetRelationName(rel), sizeof(s->hdr.relname));
				table_close(rel, NoLock);
				if (st.clean)
					s->hdr.mode = TMX_SRC_CACHED;
				else if (tm_trace_wanted())
					elog(LOG, "themis trace: pipeline %d: the cache stamp of \"%s\" is not clean: read inline",
						 p, s->hdr.relname);
			}
		}
	}

	/*
	 * A table that a background worker loads: a cold start again where the kept plan is that cheap (the
	 * next runs of the query that made the load, TPC-H Q19), else this query waits for the load, as it
	 * would load the table itself
	 */
	if (cold_start(plan, srcs, NULL, kept_cost, info))
	{
		*reason = "cold start";
		return NULL;
	}
	{
		instr_time	tw0;
		bool		waited = false;

		INSTR_TIME_SET_CURRENT(tw0);
		for (int p = 0; p < np; p++)
			if (srcs[p].hdr.mode == TMX_SRC_CACHED && tm_bgload_wait(srcs[p].hdr.relid))
				waited = true;
		if (waited)
			info->bgload_wait_ms = ms_since(tw0);
	}

	/*
	 * Attempt 1 sends cached sources by reference; a NEED turns the missing ones into inline sources.
	 * Another backend's load may evict an entry between two attempts, hence a third one.
	 */
	for (attempt = 0; attempt < 3 + extra; attempt++)
	{
		StringInfoData buf;
		TmxExec		x;
		int64		total = 0;
		int			fd = -1;
		FdRelease  *fdr = NULL;
		char	   *map;
		int64		off = 0;
		int			t;
		void	   *reply;
		Size		rlen;
		int			rfd = -1;
		FdRelease  *rfdr;
		int			direct;		/* the source whose memfd is sent, or < 0 */
		int			sfds[TM_GPUD_MAX_FDS];
		int			nslots = 1;
		int64		slot_bytes = 0;	/* of the sets sent in memfds of their own */
		instr_time	tr0;
		double		read_ms,
					pack_ms;

		/*
		 * Read what must go inline (first attempt: INLINE sources; after NEED: those too).  With
		 * themis.stream_loads, the sources to keep in the cache (store, after a NEED) are read first,
		 * largest first, and each one but the last of the reads goes to the daemon in a LOAD of its own
		 * as soon as it is read: the daemon uploads it while this backend reads the others.  Their
		 * replies are read after the last read; a loaded one is then named as cached in the request.
		 */
		INSTR_TIME_SET_CURRENT(tr0);
		nread = 0;
		nloading = 0;
		for (int p = 0; p < np; p++)
			if (srcs[p].hdr.mode == TMX_SRC_INLINE && !srcs[p].have_data)
				order[nread++] = p;
		if (may_stream && nread > 1)
			stream_order(plan, srcs, order, nread);
		for (int k = 0; k < nread; k++)
		{
			int			p = order[k];
			int			sent;

			if (!read_source(&plan->pipelines[p], &srcs[p], estate, inputs, ninputs, reason))
			{
				if (nloading > 0)
					tm_gpud_disconnect();	/* the daemon stops the loads */
				return NULL;
			}
			if (!may_stream || k == nread - 1 || !srcs[p].hdr.store || !srcs[p].set.packed ||
				tm_colset_bytes(&srcs[p].set) < TM_STREAM_MIN_BYTES)
				continue;
			if (pending_cb == NULL)
			{
				pending_cb = palloc0(sizeof(MemoryContextCallback));
				pending_cb->func = drop_pending_loads;
				MemoryContextRegisterResetCallback(CurrentMemoryContext, pending_cb);
			}
			sent = send_load(&srcs[p]);
			if (sent > 0)
				loading[nloading++] = p;
			else if (sent < 0)
			{
				/* the connection is gone, and the earlier LOADs with it: everything goes with the request */
				nloading = 0;
				may_stream = false;
			}
		}
		read_ms = ms_since(tr0);
		info->read_ms += read_ms;
		INSTR_TIME_SET_CURRENT(tr0);
		for (int k = 0; k < nloading; k++)
		{
			int			p = loading[k];

			t = tm_gpud_recv(&reply, &rlen, reason);
			if (t < 0)
				return NULL;
			if (t == TM_MSG_LOAD_OK && rlen == sizeof(TmxLoadReply) &&
				((TmxLoadReply *) reply)->entries_stored > 0)
			{
				srcs[p].hdr.mode = TMX_SRC_CACHED;
				srcs[p].streamed = true;
				info->loads_streamed++;
				info->bytes_sent += tm_colset_bytes(&srcs[p].set);
			}
			else if (tm_trace_wanted())
			{
				TmxError	e;

				elog(LOG, "themis trace: the LOAD of \"%s\" answered %d%s%s: sent with the request", srcs[p].hdr.relname,
					 t, t == TM_MSG_ERROR ? ": " : "", t == TM_MSG_ERROR ? tm_gpud_error_text(reply, rlen, &e) : "");
			}
			if (reply != NULL)
				pfree(reply);
		}
		info->wait_ms += ms_since(tr0);
		for (int p = 0; p < np; p++)
			if (srcs[p].hdr.mode == TMX_SRC_INLINE)
				total += tm_colset_bytes(&srcs[p].set);
		INSTR_TIME_SET_CURRENT(tr0);

		/*
		 * The request's data: the inline sources' columns.  Where sources were read in parallel, each
		 * is already packed in a memfd of its own: the largest of them is the request's first
		 * descriptor, the sources not read in parallel appended to it, and each other one goes as it is,
		 * as a descriptor of its own (TmxSource.fd_slot), so that no set read in parallel is copied
		 * again (a cold query of lineitem and a few smaller tables spent seconds copying lineitem's
		 * columns here: EXPLAIN's Request Build Time, H200, TPC-H SF 10; then 0.15-0.25 s writing the
		 * other sets read in parallel into lineitem's memfd, TPC-H Q4 and Q8).  Past TM_GPUD_MAX_FDS
		 * descriptors, the others are written into the first with pwrite, which was faster than a fresh
		 * mapping on the GPU host (bench/hostmem.c: 2.28 against 1.27 GB/s).
		 */
		direct = -1;
		for (int p = 0; p < np; p++)
			if (srcs[p].hdr.mode == TMX_SRC_INLINE && srcs[p].set.packed &&
				(direct < 0 || tm_colset_bytes(&srcs[p].set) > tm_colset_bytes(&srcs[direct].set)))
				direct = p;
		for (int p = 0; p < np; p++)
		{
			srcs[p].slot = 0;
			if (srcs[p].hdr.mode == TMX_SRC_INLINE && srcs[p].set.packed && p != direct &&
				nslots < (themis_debug_fault == THEMIS_FAULT_REQUEST_ONE_FD ? 1 : TM_GPUD_MAX_FDS))
			{
				srcs[p].slot = nslots++;
				slot_bytes += tm_colset_bytes(&srcs[p].set);
				total -= tm_colset_bytes(&srcs[p].set);
			}
		}
		map = NULL;
		if (direct >= 0)
		{
			int64		dbytes = tm_colset_bytes(&srcs[direct].set);
			int64		base = TYPEALIGN(8, dbytes);
			int64		rest = total - dbytes;

			fd = srcs[direct].set.packed_fd;
			if (rest == 0)
				total = Max(dbytes, 8);
			else
			{
				/* the others after the carrier's columns, in its memfd grown for them */
				total = base + rest;
				if (ftruncate(fd, total) < 0)
					elog(ERROR, "themis: cannot grow a column buffer to %lld bytes: %m", (long long) total);
				map = tm_map_shared(fd, total);
				if (map == MAP_FAILED)
					elog(ERROR, "themis: cannot map a %lld-byte transfer buffer: %m", (long long) total);
				off = base;
			}
		}
		else if (total > 0)
		{
			fd = memfd_create("themis-input", MFD_CLOEXEC);
			if (fd < 0)
				elog(ERROR, "themis: memfd_create: %m");
			fdr = own_fd(fd);
			if (ftruncate(fd, total) < 0)
				elog(ERROR, "themis: cannot size a %lld-byte transfer buffer: %m", (long long) total);
			map = tm_map_shared(fd, total);
			if (map == MAP_FAILED)
				elog(ERROR, "themis: cannot map a %lld-byte transfer buffer: %m", (long long) total);
			tm_populate_write(map, total);
		}

		memset(&x, 0, sizeof(x));
		x.blob_len = VARSIZE_ANY_EXHDR(blob);
		x.nparams = plan->nparams;
		x.npipes = np;
		x.flags = flags;
		x.fd_len = total;
		x.swap_rows = themis_gpu_swap_build_rows;
		if (topn != NULL && topn->n > 0)
		{
			x.topn_n = topn->n;
			x.topn_col = topn->col;
			x.topn_flags = (topn->desc ? TMX_TOPN_DESC : 0) | (topn->nulls_first ? TMX_TOPN_NULLS_FIRST : 0);
		}
		initStringInfo(&buf);
		appendBinaryStringInfo(&buf, (char *) &x, sizeof(x));	/* params_text_len patched below */
		appendBinaryStringInfo(&buf, VARDATA_ANY(blob), x.blob_len);
		while (buf.len % 8)
			appendStringInfoChar(&buf, 0);
		{
			StringInfoData text;

			initStringInfo(&text);
			for (int i = 0; i < plan->nparams; i++)
			{
				TmxParam	xp;
				int			k = plan->paramtypes[i].kind;

				memset(&xp, 0, sizeof(xp));
				xp.isnull = paramnulls[i] ? 1 : 0;
				if (!paramnulls[i])
				{
					memcpy(xp.value, &params[i], sizeof(TmValue));
					if (k == TM_K_TEXT || k == TM_K_BPCHAR)
					{
						memset(xp.value, 0, sizeof(xp.value));
						xp.len = params[i].s.len;
						xp.text_off = text.len;
						appendBinaryStringInfo(&text, params[i].s.p, params[i].s.len);
					}
				}
				appendBinaryStringInfo(&buf, (char *) &xp, sizeof(xp));
			}
			((TmxExec *) buf.data)->params_text_len = text.len;
			appendBinaryStringInfo(&buf, text.data, text.len);
			while (buf.len % 8)
				appendStringInfoChar(&buf, 0);
		}
		for (int p = 0; p < np; p++)
		{
			SrcState   *s = &srcs[p];
			TmxCol	   *cols = palloc0(sizeof(TmxCol) * Max(s->hdr.ncols, 1));

			s->hdr.fd_slot = 0;
			s->hdr.slot_len = 0;
			if (s->hdr.mode == TMX_SRC_INLINE && s->slot > 0)
			{
				int			sfd;
				int64		slen;

				/* its columns at offset 0 of its own memfd, sent as it is */
				if (!tm_colset_packed_fd(&s->set, &sfd, &slen, cols))
					elog(ERROR, "themis: a source read in parallel is not packed");
				s->hdr.fd_slot = s->slot;
				s->hdr.slot_len = Max(slen, 8);
				sfds[s->slot] = sfd;
			}
			else if (s->hdr.mode == TMX_SRC_INLINE && p == direct)
			{
				int			dfd;
				int64		dlen;

				/* its columns at offset 0 of the memfd that carries the request */
				if (!tm_colset_packed_fd(&s->set, &dfd, &dlen, cols))
					elog(ERROR, "themis: a source read in parallel is not packed");
			}
			else if (s->hdr.mode == TMX_SRC_INLINE && direct >= 0 && s->set.packed)
			{
				/* another set read in parallel: written into the carrier, not through the mapping */
				if (!tm_colset_pack_fd(&s->set, fd, &off, cols))
					elog(ERROR, "themis: cannot write %lld bytes of columns into the transfer buffer: %m",
						 (long long) tm_colset_bytes(&s->set));
			}
			else if (s->hdr.mode == TMX_SRC_INLINE)
			{
				/* the carrier's pages of this set faulted in at once (a fresh memfd is populated whole) */
				if (direct >= 0)
					tm_populate_write(map + off, tm_colset_bytes(&s->set));
				tm_colset_pack(&s->set, map, &off, cols);
			}
			else if (s->hdr.mode == TMX_SRC_CACHED)
			{
				const TmPipeline *pl = &plan->pipelines[p];

				for (int c = 0; c < s->hdr.ncols; c++)
				{
					cols[c].nulls_off = -1;
					if (!s->present[c])
						continue;
					cols[c].kind = s->types[c].kind;
					cols[c].scale = s->types[c].kind == TM_K_NUMERIC ? s->types[c].scale : 0;
					cols[c].attno = pl->src_attnos[c];
				}
			}
			appendBinaryStringInfo(&buf, (char *) &s->hdr, sizeof(TmxSource));
			appendBinaryStringInfo(&buf, (char *) cols, sizeof(TmxCol) * s->hdr.ncols);
		}
		if (map != NULL)
			munmap(map, total);

		pack_ms = ms_since(tr0);
		info->pack_ms += pack_ms;
		INSTR_TIME_SET_CURRENT(tr0);
		sfds[0] = fd;
		t = tm_gpud_request_fds(TM_MSG_EXECUTE, buf.data, buf.len, sfds, fd >= 0 ? nslots : 0,
								&reply, &rlen, &rfd, reason);
		info->wait_ms += ms_since(tr0);
		if (tm_trace_wanted())
		{
			int			ncached = 0,
						ninline = 0;

			for (int p = 0; p < np; p++)
			{
				ncached += srcs[p].hdr.mode == TMX_SRC_CACHED;
				ninline += srcs[p].hdr.mode == TMX_SRC_INLINE;
			}
			elog(LOG, "themis trace: attempt %d: %d sources cached, %d inline (%lld bytes, read in %.1f ms, "
				 "request built in %.1f ms); the daemon answered %s after %.1f ms",
				 attempt + 1, ncached, ninline, (long long) total, read_ms, pack_ms,
				 t == TM_MSG_NEED ? "NEED" : t == TM_MSG_RESULT ? "RESULT" : t == TM_MSG_ERROR ? "ERROR" : "?",
				 ms_since(tr0));
		}
		if (fdr != NULL)
			release_fd(fdr);
		info->bytes_sent += total + slot_bytes;
		if (t < 0)
			return NULL;
		rfdr = own_fd(rfd);

		if (t == TM_MSG_NEED)
		{
			const int32 *need = (const int32 *) reply;

			/*
			 * A NEED after streamed loads: a LOAD's uploads may have evicted what the query had in the
			 * cache (an EXECUTE holds its cached sources before it uploads; separate LOADs cannot).  Once,
			 * the query gets an attempt more, without streaming: one request, as with stream_loads off.
			 */
			if (nloading > 0 && may_stream)
			{
				may_stream = false;
				extra = 1;
			}
			if (attempt >= 2 + extra || rlen != sizeof(int32) * np)
			{
				*reason = "themis-gpud asked again for sources that were sent";
				tm_gpud_disconnect();
				return NULL;
			}
			if (attempt == 0 && cold_start(plan, srcs, need, kept_cost, info))
			{
				*reason = "cold start";
				return NULL;
			}
			for (int p = 0; p < np; p++)
				if (need[p] && srcs[p].hdr.mode == TMX_SRC_CACHED)
				{
					srcs[p].hdr.mode = TMX_SRC_INLINE;
					srcs[p].hdr.store = 1;
				}
			continue;
		}
		if (t == TM_MSG_ERROR)
		{
			TmxError	e;
			char	   *msg = tm_gpud_error_text(reply, rlen, &e);

			if (e.kind == TMX_ERR_GPU && e.gpu_rc == TM_GPU_ERR_EXPR)
			{
				if (e.status == TM_ERR_FALLBACK)
					*reason = "a value is not representable by themis (GPU)";
				else
				{
					*error = (TmStatus) e.status;
					*reason = "an expression raised an error on the GPU";
				}
				return NULL;
			}
			*reason = psprintf("GPU: %s", msg);
			info->failed = true;
			return NULL;
		}
		if (t != TM_MSG_RESULT || rlen < sizeof(TmxResult))
		{
			*reason = psprintf("unexpected answer %d from themis-gpud", t);
			tm_gpud_disconnect();
			return NULL;
		}
		{
			TmxResult  *res = (TmxResult *) reply;
			const TmResult *outr = &plan->results[plan->output_result];
			TmxPipeStats *ps = (TmxPipeStats *) ((char *) reply + sizeof(TmxResult));
			TmxCol	   *ocols = (TmxCol *) ((char *) reply + sizeof(TmxResult) + sizeof(TmxPipeStats) * res->npipes);
			TmResultSet *rs;

			if (res->npipes != np || res->ncols != outr->ncols ||
				rlen != sizeof(TmxResult) + sizeof(TmxPipeStats) * np + sizeof(TmxCol) * res->ncols ||
				(res->fd_len > 0 && rfd < 0))
				elog(ERROR, "themis: malformed result from themis-gpud");
			INSTR_TIME_SET_CURRENT(tr0);
			rs = tm_result_from_memfd(rfd, res->fd_len, res->nrows, res->ncols, ocols, outr->coltypes);
			release_fd(rfdr);
			info->convert_ms = ms_since(tr0);
			if (tm_trace_wanted())
				elog(LOG, "themis trace: result of %lld rows converted in %.1f ms (daemon: upload %.1f ms, GPU %.1f ms, %lld bytes uploaded)",
					 (long long) res->nrows, ms_since(tr0), res->upload_ms, res->gpu_ms, (long long) res->bytes_uploaded);
			for (int p = 0; p < np; p++)
			{
				stats[p].source_rows = ps[p].source_rows;
				stats[p].sink_rows = ps[p].sink_rows;
				stats[p].out_rows = ps[p].out_rows;
				stats[p].time_ms = ps[p].time_ms;
				stats[p].idle_ratio = ps[p].idle_ratio;
				stats[p].imbalance = ps[p].imbalance;
				stats[p].warp_iterations = ps[p].warp_iterations;
				stats[p].handoffs = ps[p].handoffs;
				stats[p].join_algo = ps[p].join_algo;
				stats[p].join_op = ps[p].join_op;
				stats[p].join_rows = ps[p].join_rows;
				stats[p].join_ms = ps[p].join_ms;
				stats[p].probe_reordered = ps[p].probe_reordered;
				memcpy(stats[p].probe_order, ps[p].probe_order, sizeof(stats[p].probe_order));
				stats[p].swap = ps[p].swap;
				stats[p].swap_op = ps[p].swap_op;
				stats[p].swap_rows = ps[p].swap_rows;
				stats[p].jit = ps[p].jit;
				stats[p].jit_ms = ps[p].jit_ms;
				info->use[p] = ps[p].use;
				/* a source loaded by its own LOAD is a hit of this request, and was loaded by this query */
				if (srcs[p].streamed && info->use[p] == TMX_USE_CACHE_HIT)
					info->use[p] = TMX_USE_CACHE_LOADED;
			}
			info->gpu_ms = res->gpu_ms;
			info->topn_rows_in = res->topn_rows_in;
			info->upload_ms = res->upload_ms;
			info->bytes_uploaded = res->bytes_uploaded;
			info->ran = true;
			return rs;
		}
	}
	*reason = "themis-gpud did not run the plan";
	return NULL;
}
