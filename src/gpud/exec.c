/*
 * exec.c — EXECUTE and LOAD requests of themis-gpud.
 *
 * EXECUTE: read the plan (themis/tm_ir_read.h) and the parameters; for each pipeline's source, take the
 * columns from the cache (CACHED; any miss -> reply NEED and run nothing) or upload them from the
 * request's memfd (INLINE) into the arena, keeping them in the cache when the backend says so; run
 * tm_gpu_execute; write the output table to a new memfd and reply RESULT with it.  LOAD is the upload
 * and store part alone (themis.cache_table()).  Uploads go through two pinned staging buffers, so that
 * the copy from the mapped memfd (by several threads: pcopy.c) overlaps the DMA of the previous chunk.
 *
 * Everything between the first cache lookup and the reply's memfd holds gpud_lock.  While it is held past
 * the NEED check, a watcher (cancel.c) notices the backend closing the connection (its query was
 * canceled): the executor then stops (TM_GPU_ERR_CANCELED), uploads stop at their next staging chunk,
 * and the request gives back what it holds and ends without a result.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpud.h"
#include "themis/tm_gpud_io.h"
#include "themis/tm_trace.h"
#include "themis/tm_ir_read.h"

/* a malloc arena for one request's plan: freed at once */
typedef struct ReqArena
{
	void	  **ptrs;
	int			n;
	int			cap;
} ReqArena;

static void *
req_alloc(void *arg, size_t size)
{
	ReqArena   *a = (ReqArena *) arg;
	void	   *p;

	if (a->n == a->cap)
	{
		int			ncap = a->cap ? a->cap * 2 : 64;
		void	  **np = realloc(a->ptrs, sizeof(void *) * ncap);

		if (np == NULL)
			return NULL;
		a->ptrs = np;
		a->cap = ncap;
	}
	p = calloc(1, size);
	if (p != NULL)
		a->ptrs[a->n++] = p;
	return p;
}

static void
req_free_all(ReqArena *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->ptrs[i]);
	free(a->ptrs);
	memset(a, 0, sizeof(*a));
}

/*
 * copy host bytes to device memory through the pinned staging buffers; false on a CUDA error or when the
 * request is canceled (w), err set
 */
static bool
upload_range(void *dst, const void *src, size_t n, char *err, int errlen, const GpudWatch *w)
{
	cudaStream_t s = (cudaStream_t) gpud.stream;
	size_t		off = 0;
	int			k = 0;
	cudaError_t e = cudaSuccess;
	bool		canceled = false;

	while (off < n)
	{
		size_t		chunk = n - off < gpud.staging_size ? n - off : gpud.staging_size;

		if (gpud_watch_canceled(w))
		{
			canceled = true;
			break;
		}

		/* the copy that used this staging buffer two chunks ago must be done */
		if ((e = cudaEventSynchronize((cudaEvent_t) gpud.staging_ev[k])) != cudaSuccess)
			break;
		pcopy(gpud.staging[k], (const char *) src + off, chunk);
		if ((e = cudaMemcpyAsync((char *) dst + off, gpud.staging[k], chunk, cudaMemcpyHostToDevice, s)) != cudaSuccess)
			break;
		if ((e = cudaEventRecord((cudaEvent_t) gpud.staging_ev[k], s)) != cudaSuccess)
			break;
		off += chunk;
		k ^= 1;
	}
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(s);
	if (e != cudaSuccess)
	{
		snprintf(err, errlen, "upload of %zu bytes: %s (%s)", n, cudaGetErrorString(e), cudaGetErrorName(e));
		(void) cudaGetLastError();
		return false;
	}
	if (canceled)
	{
		snprintf(err, errlen, "canceled");
		return false;
	}
	return true;
}

/*
 * After a CUDA error: is the context lost?  Errors such as an illegal address in a kernel are sticky:
 * every later CUDA call of this process fails, so the daemon says so and the caller exits; its
 * supervisor starts a fresh one (the queries in flight fall back or end with an ERROR).
 */
static bool
gpud_context_lost(void)
{
	cudaError_t e = cudaDeviceSynchronize();

	if (e == cudaSuccess)
		return false;
	gpud_log("the CUDA context is lost (%s): exiting, to be started again", cudaGetErrorString(e));
	return true;
}

/* a parsed source */
typedef struct Src
{
	TmxSource	hdr;
	TmxCol	   *cols;
	CacheTable *entry;			/* cache entry used or filled */
	int			use;			/* TmxSourceUse */
	void	  **transient;		/* arena ranges to free after the query */
	int			ntransient;
	const char *map;			/* INLINE: the mapped descriptor of its fd_slot */
	int64_t		maplen;
} Src;

static inline bool
range_ok(int64_t off, int64_t len, int64_t total)
{
	return off >= 0 && len >= 0 && off <= total && len <= total - off;
}

static inline int64_t
col_width(int kind)
{
	return tm_gpu_kind_width(kind);
}

/* point the input table at the request's mapped memfd (host memory); drop this source's device copies */
static void
host_source(Src *s, const char *map, TmGpuTable *in)
{
	for (int k = 0; k < s->ntransient; k++)
		arena_free(s->transient[k]);
	s->ntransient = 0;
	in->on_device = 0;
	for (int c = 0; c < s->hdr.ncols; c++)
	{
		const TmxCol *xc = &s->cols[c];
		TmGpuColumn *gc = &in->cols[c];

		gc->kind = xc->kind;
		gc->data = NULL;
		gc->offsets = NULL;
		gc->nulls = NULL;
		if (!xc->present)
			continue;
		gc->data = (void *) (map + xc->data_off);
		if (xc->kind == TM_K_TEXT || xc->kind == TM_K_BPCHAR)
			gc->offsets = (int64_t *) (map + xc->offsets_off);
		if (xc->nulls_off >= 0)
			gc->nulls = (uint8_t *) (map + xc->nulls_off);
	}
	s->use = TMX_USE_INLINE;
}

/*
 * Upload the present columns of INLINE source s (rows in the memfd at map) to the device, into the
 * cache when s->hdr.store, else into transient ranges; fill the input table cols.  false with err set.
 */
static bool
upload_source(Src *s, const char *map, int64_t maplen, TmGpuTable *in, int64_t *bytes, char *err, int errlen,
			  int *errkind, const GpudWatch *w)
{
	int64_t		n = s->hdr.nrows;
	CacheTable *t = NULL;

	s->transient = calloc(3 * (s->hdr.ncols > 0 ? s->hdr.ncols : 1), sizeof(void *));
	if (s->transient == NULL)
	{
		snprintf(err, errlen, "out of host memory");
		*errkind = TMX_ERR_INTERNAL;
		return false;
	}
	if (s->hdr.store)
	{
		t = cache_get_for_store(&s->hdr);
		if (t != NULL)
			t->in_use++;
	}
	s->entry = t;
	s->use = t ? TMX_USE_CACHE_LOADED : TMX_USE_INLINE;
	/* every column must lie inside the data sent (and text offsets inside its bytes: checked by
	 * the backend that wrote them; the executor trusts them) */
	for (int c = 0; c < s->hdr.ncols; c++)
	{
		const TmxCol *xc = &s->cols[c];
		bool		text = xc->kind == TM_K_TEXT || xc->kind == TM_K_BPCHAR;
		int64_t		dlen = text ? xc->data_len : n * col_width(xc->kind);

		if (!xc->present)
			continue;
		if (col_width(xc->kind) < 0 || dlen < 0 || !range_ok(xc->data_off, dlen, maplen) ||
			(text && !range_ok(xc->offsets_off, (n + 1) * 8, maplen)) ||
			(xc->nulls_off >= 0 && !range_ok(xc->nulls_off, n, maplen)))
		{
			snprintf(err, errlen, "column %d of an inline source lies outside the data sent", c);
			*errkind = TMX_ERR_PROTOCOL;
			return false;
		}
	}
	in->ncols = s->hdr.ncols;
	in->nrows = n;
	in->on_device = 1;
	for (int c = 0; c < s->hdr.ncols; c++)
	{
		const TmxCol *xc = &s->cols[c];
		TmGpuColumn *gc = &in->cols[c];
		CacheCol	cc;
		CacheCol   *have = NULL;
		bool		text = xc->kind == TM_K_TEXT || xc->kind == TM_K_BPCHAR;
		int64_t		dlen;
		size_t		parts[3];
		const void *srcs[3];
		void	   *dsts[3] = {NULL, NULL, NULL};
		bool		keep;

		gc->kind = xc->kind;
		if (!xc->present)
			continue;
		dlen = text ? xc->data_len : n * col_width(xc->kind);
		if (t != NULL && (have = cache_find_col(t, xc->attno, xc->kind, xc->scale)) != NULL)
		{
			gc->data = have->data;
			gc->offsets = have->offsets;
			gc->nulls = have->nulls;
			continue;
		}
		parts[0] = (size_t) dlen;
		srcs[0] = map + xc->data_off;
		parts[1] = text ? (size_t) (n + 1) * 8 : 0;
		srcs[1] = text ? map + xc->offsets_off : NULL;
		parts[2] = xc->nulls_off >= 0 ? (size_t) n : 0;
		srcs[2] = xc->nulls_off >= 0 ? map + xc->nulls_off : NULL;
		keep = t != NULL && xc->attno > 0;
		/* into the cache if it all fits (evicting other entries), else transient for this query */
		for (int pass = keep ? 0 : 1; pass < 2; pass++)
		{
			bool		ok = true;

			for (int k = 0; k < 3; k++)
			{
				dsts[k] = NULL;
				if (k > 0 && srcs[k] == NULL)
					continue;
				if ((dsts[k] = cache_alloc_evicting(parts[k])) == NULL)
					ok = false;
			}
			if (ok)
				break;
			for (int k = 0; k < 3; k++)
				arena_free(dsts[k]);
			keep = false;
			if (pass == 1)
			{
				/*
				 * The arena cannot hold this source: hand the executor the mapped host copy, which it
				 * processes in chunks through its work pool.
				 */
				if (gpud.verbose)
					gpud_log("source of %lld rows does not fit the arena (%.1f MiB free of %.1f MiB): run from host memory",
							 (long long) n, (arena_size() - arena_used()) / 1048576.0, arena_size() / 1048576.0);
				host_source(s, map, in);
				return true;
			}
		}
		for (int k = 0; k < 3; k++)
		{
			if (dsts[k] == NULL)
				continue;
			if (!keep)
				s->transient[s->ntransient++] = dsts[k];
			if (parts[k] > 0 && !upload_range(dsts[k], srcs[k], parts[k], err, errlen, w))
			{
				*errkind = TMX_ERR_GPU;
				if (keep)
					for (int j = 0; j < 3; j++)
						if (dsts[j])
							s->transient[s->ntransient++] = dsts[j];
				return false;
			}
			*bytes += (int64_t) parts[k];
		}
		gc->data = dsts[0];
		gc->offsets = (int64_t *) dsts[1];
		gc->nulls = (uint8_t *) dsts[2];
		if (keep)
		{
			memset(&cc, 0, sizeof(cc));
			cc.attno = xc->attno;
			cc.kind = xc->kind;
			cc.scale = xc->scale;
			cc.data = dsts[0];
			cc.offsets = (int64_t *) dsts[1];
			cc.nulls = (uint8_t *) dsts[2];
			cc.bytes = (int64_t) (parts[0] + parts[1] + parts[2]);
			if (!cache_add_col(t, &cc))
				for (int j = 0; j < 3; j++)
					if (dsts[j])
						s->transient[s->ntransient++] = dsts[j];
		}
	}
	return true;
}

/*
 * write the output table to a new memfd: its descriptor, or -1 with err set.  With pwrite, not through a
 * mapping: mmap takes the process's memory-map lock for writing, and waits while another thread unmaps
 * a cold request's data (unmap_request_data); the file's holes (padding) read as zeros.
 */
static int
write_result(const TmGpuTable *out, TmxCol *cols, int64_t *fdlen, char *err, int errlen)
{
	int64_t		total = 0;
	int64_t		n = out->nrows;
	int			fd;
	bool		ok = true;

	for (int c = 0; c < out->ncols; c++)
	{
		const TmGpuColumn *g = &out->cols[c];
		bool		text = g->kind == TM_K_TEXT || g->kind == TM_K_BPCHAR;
		int64_t		dlen = text ? (n > 0 ? g->offsets[n] : 0) : n * col_width(g->kind);

		memset(&cols[c], 0, sizeof(TmxCol));
		cols[c].kind = g->kind;
		cols[c].present = 1;
		cols[c].nulls_off = -1;
		cols[c].data_off = total;
		cols[c].data_len = dlen;
		total += (dlen + 7) & ~7;
		if (text)
		{
			cols[c].offsets_off = total;
			total += (n + 1) * 8;
		}
		if (g->nulls != NULL)
		{
			cols[c].nulls_off = total;
			total += (n + 7) & ~7;
		}
	}
	fd = memfd_create("themis-result", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, total > 0 ? total : 8) < 0)
	{
		snprintf(err, errlen, "result memfd of %lld bytes: %m", (long long) total);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* (text offsets of no rows: the 8 zero bytes ftruncate left there) */
	for (int c = 0; c < out->ncols && ok; c++)
	{
		const TmGpuColumn *g = &out->cols[c];

		if (cols[c].data_len > 0)
			ok = tm_io_pwrite_all(fd, g->data, cols[c].data_len, cols[c].data_off) == 0;
		if (ok && (g->kind == TM_K_TEXT || g->kind == TM_K_BPCHAR) && n > 0)
			ok = tm_io_pwrite_all(fd, g->offsets, (n + 1) * 8, cols[c].offsets_off) == 0;
		if (ok && g->nulls != NULL && n > 0)
			ok = tm_io_pwrite_all(fd, g->nulls, n, cols[c].nulls_off) == 0;
	}
	if (!ok)
	{
		snprintf(err, errlen, "writing the result memfd of %lld bytes: %m", (long long) total);
		close(fd);
		return -1;
	}
	*fdlen = total;
	return fd;
}

/*
 * Unmap a request's data (a cold request's columns: gigabytes, populated, often the last reference to
 * their pages, which the unmap then frees) in a thread of its own.  Done by the connection's thread, it
 * held up that connection's next request, which the thread reads only after it: the second run of a
 * query in a session, right after its cold run, took 0.2-0.8 s more than the third (TPC-H SF 10, about
 * 0.1 s a GB mapped; bench/reports/2026-11-28-h100-sf10-3q-unmap-thread).  munmap holds the process's
 * memory-map lock while it frees a piece's pages, and an mmap or a page fault of another thread waits
 * for it: in pieces of 64 MiB that was 7-17 ms a wait, so the thread takes UNMAP_PIECE at a time and
 * pauses between pieces, and write_result writes without a mapping.
 */
#define UNMAP_PIECE		((int64_t) 2 << 20)
#define UNMAP_PAUSE_US	20		/* between pieces in the unmap thread: others take the lock first */

typedef struct Unmap
{
	char	   *map;
	int64_t		len;
} Unmap;

static void
unmap_in_pieces(char *map, int64_t len)
{
	for (int64_t off = 0; off < len; off += UNMAP_PIECE)
		munmap(map + off, (size_t) (len - off < UNMAP_PIECE ? len - off : UNMAP_PIECE));
}

static void *
unmap_thread(void *arg)
{
	Unmap	   *u = (Unmap *) arg;

	for (int64_t off = 0; off < u->len; off += UNMAP_PIECE)
	{
		munmap(u->map + off, (size_t) (u->len - off < UNMAP_PIECE ? u->len - off : UNMAP_PIECE));
		usleep(UNMAP_PAUSE_US);
	}
	free(u);
	return NULL;
}

/* unmap a request's data: small ones here, larger ones in a detached thread (here if none can start) */
static void
unmap_request_data(char *map, int64_t len)
{
	if (len > UNMAP_PIECE)
	{
		Unmap	   *u = malloc(sizeof(Unmap));
		pthread_attr_t attr;
		pthread_t	th;
		bool		started = false;

		if (u != NULL && pthread_attr_init(&attr) == 0)
		{
			u->map = map;
			u->len = len;
			pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
			started = pthread_create(&th, &attr, unmap_thread, u) == 0;
			pthread_attr_destroy(&attr);
		}
		if (started)
			return;
		free(u);
	}
	unmap_in_pieces(map, len);
}

/*
 * Map len bytes of a request's data descriptor fd, read-only and populated: true with *out set, or false
 * with the error sent to the client (*keep: whether the connection stays).
 */
static bool
map_request_data(int fd, int64_t len, char **out, int sock, bool *keep)
{
	struct stat st;
	char	   *m;

	/* a mapping past the end of the file would fault (SIGBUS) on access */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (int64_t) st.st_size < len)
	{
		*keep = gpud_send_error(sock, TMX_ERR_PROTOCOL, 0, 0, -1, -1,
								"the request's data descriptor is not a file of %lld bytes", (long long) len);
		return false;
	}
	m = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (m == MAP_FAILED)
	{
		*keep = gpud_send_error(sock, TMX_ERR_INTERNAL, 0, 0, -1, -1, "mmap of the request's data: %m");
		return false;
	}
	*out = m;
	return true;
}

bool
gpud_handle_exec(int sock, int type, const char *payload, uint64_t len, int *fds, int nfds)
{
	const TmxExec *x = (const TmxExec *) payload;
	ReqArena	ra;
	TmPlan	   *plan = NULL;
	const char *perr = NULL;
	const char *p;
	const char *end = payload + len;
	TmValue    *params = NULL;
	bool	   *paramnulls = NULL;
	Src		   *srcs = NULL;
	TmGpuTable *inputs = NULL;
	int32_t    *need = NULL;
	char	   *map = NULL;
	int64_t		maplen = 0;
	char	   *slot_maps[TM_GPUD_MAX_FDS] = {NULL};
	int64_t		slot_lens[TM_GPUD_MAX_FDS] = {0};
	bool		keep = true;
	bool		locked = false;
	bool		any_need = false;
	char		err[512];
	int			errkind = TMX_ERR_INTERNAL;
	int64_t		bytes_up = 0;
	double		t0,
				t1,
				t2;
	GpudWatch	watch;

	memset(&ra, 0, sizeof(ra));
	memset(&watch, 0, sizeof(watch));
	err[0] = '\0';
	if (len < sizeof(TmxExec) || x->blob_len < 0 || x->nparams < 0 || x->npipes < 0 || x->npipes > 100000 ||
		x->params_text_len < 0 || x->fd_len < 0 || (x->fd_len > 0 && nfds < 1))
	{
		keep = gpud_send_error(sock, TMX_ERR_PROTOCOL, 0, 0, -1, -1, "malformed request");
		goto done;
	}
	if (x->flags & TMX_FLAG_FAULT_CRASH)
	{
		gpud_log("fault injection: aborting (requested by the backend, themis.debug_fault)");
		abort();
	}
	if (x->flags & TMX_FLAG_FAULT_HANG)
	{
		/* a request that takes long (outside the GPU lock): the backend must be able to cancel it */
		gpud_log("fault injection: holding a request for 20 s (themis.debug_fault)");
		sleep(20);
	}
	if (x->flags & TMX_FLAG_FAULT_GPU)
	{
		keep = gpud_send_error(sock, TMX_ERR_GPU, TM_GPU_ERR_CUDA, 0, 0, -1,
							   "injected fault: cudaErrorLaunchFailure (themis.debug_fault)");
		goto done;
	}
	/* plan */
	p = payload + sizeof(TmxExec);
	if (type == TM_MSG_EXECUTE)
	{
		if (end - p < x->blob_len)
			goto malformed;
		plan = tm_plan_read(p, x->blob_len, req_alloc, &ra, &perr);
		if (plan == NULL)
		{
			keep = gpud_send_error(sock, TMX_ERR_PROTOCOL, 0, 0, -1, -1, "%s", perr ? perr : "bad plan");
			goto done;
		}
		if (plan->nparams != x->nparams || plan->npipelines != x->npipes)
			goto malformed;
	}
	p += (x->blob_len + 7) & ~7;

	/* parameters */
	if (x->nparams > 0)
	{
		const char *text;

		if ((uint64_t) (end - p) < (uint64_t) x->nparams * sizeof(TmxParam) + (uint64_t) x->params_text_len)
			goto malformed;
		params = req_alloc(&ra, sizeof(TmValue) * x->nparams + 16);
		paramnulls = req_alloc(&ra, sizeof(bool) * x->nparams);
		if (params == NULL || paramnulls == NULL)
			goto nomem;
		params = (TmValue *) (((uintptr_t) params + 15) & ~(uintptr_t) 15);
		text = p + sizeof(TmxParam) * x->nparams;
		for (int i = 0; i < x->nparams; i++)
		{
			TmxParam	xp;

			memcpy(&xp, p + sizeof(TmxParam) * i, sizeof(xp));
			paramnulls[i] = xp.isnull != 0;
			memcpy(&params[i], xp.value, sizeof(TmValue));
			if (!xp.isnull && (plan->paramtypes[i].kind == TM_K_TEXT || plan->paramtypes[i].kind == TM_K_BPCHAR))
			{
				if (!range_ok(xp.text_off, xp.len, x->params_text_len))
					goto malformed;
				params[i].s.p = text + xp.text_off;
				params[i].s.len = xp.len;
			}
		}
	}
	p += sizeof(TmxParam) * x->nparams + ((x->params_text_len + 7) & ~7);

	/* sources */
	srcs = req_alloc(&ra, sizeof(Src) * (x->npipes + 1));
	inputs = req_alloc(&ra, sizeof(TmGpuTable) * (x->npipes + 1));
	need = req_alloc(&ra, sizeof(int32_t) * (x->npipes + 1));
	if (srcs == NULL || inputs == NULL || need == NULL)
		goto nomem;
	for (int i = 0; i < x->npipes; i++)
	{
		Src		   *s = &srcs[i];

		if ((size_t) (end - p) < sizeof(TmxSource))
			goto malformed;
		memcpy(&s->hdr, p, sizeof(TmxSource));
		p += sizeof(TmxSource);
		if (s->hdr.ncols < 0 || s->hdr.ncols > 100000 || (size_t) (end - p) < sizeof(TmxCol) * s->hdr.ncols ||
			s->hdr.nrows < 0)
			goto malformed;
		s->cols = req_alloc(&ra, sizeof(TmxCol) * (s->hdr.ncols + 1));
		inputs[i].cols = req_alloc(&ra, sizeof(TmGpuColumn) * (s->hdr.ncols + 1));
		if (s->cols == NULL || inputs[i].cols == NULL)
			goto nomem;
		memcpy(s->cols, p, sizeof(TmxCol) * s->hdr.ncols);
		p += sizeof(TmxCol) * s->hdr.ncols;
	}

	/* the data: the first descriptor, and one more for each source sent in a memfd of its own */
	if (x->fd_len > 0 && !map_request_data(fds[0], x->fd_len, &map, sock, &keep))
		goto done;
	maplen = x->fd_len;
	for (int i = 0; i < x->npipes; i++)
	{
		Src		   *s = &srcs[i];
		int			k = s->hdr.fd_slot;

		s->map = map;
		s->maplen = maplen;
		if (s->hdr.mode != TMX_SRC_INLINE || k == 0)
			continue;
		if (k < 0 || k >= nfds || slot_maps[k] != NULL || s->hdr.slot_len <= 0)
			goto malformed;
		if (!map_request_data(fds[k], s->hdr.slot_len, &slot_maps[k], sock, &keep))
			goto done;
		slot_lens[k] = s->hdr.slot_len;
		s->map = slot_maps[k];
		s->maplen = s->hdr.slot_len;
	}

	/* (after the checks above, which need no GPU: test/gpud/proto.py runs them on machines without one) */
	if (!gpud.usable)
	{
		keep = gpud_send_error(sock, TMX_ERR_NO_DEVICE, 0, 0, -1, -1, "no usable GPU: %s", gpud.status.detail);
		goto done;
	}

	pthread_mutex_lock(&gpud_lock);
	locked = true;
	t0 = gpud_now();

	/* cached sources: all must hit */
	for (int i = 0; i < x->npipes; i++)
	{
		Src		   *s = &srcs[i];
		CacheTable *t;

		if (s->hdr.mode != TMX_SRC_CACHED)
			continue;
		t = cache_find(s->hdr.dboid, s->hdr.relid, s->hdr.relfilenode);
		if (t == NULL && tm_trace_wanted())
			gpud_log("trace: pipeline %d: \"%s\" not in the cache", i, s->hdr.relname);
		if (t != NULL && (t->table_count != s->hdr.table_count || t->global_count != s->hdr.global_count))
		{
			if (tm_trace_wanted())
				gpud_log("trace: pipeline %d: \"%s\" cached under counts %lld / %lld, the query's are %lld / %lld",
						 i, s->hdr.relname, (long long) t->table_count, (long long) t->global_count,
						 (long long) s->hdr.table_count, (long long) s->hdr.global_count);
			t = NULL;
		}
		for (int c = 0; t != NULL && c < s->hdr.ncols; c++)
			if (s->cols[c].attno != 0 && cache_find_col(t, s->cols[c].attno, s->cols[c].kind, s->cols[c].scale) == NULL)
			{
				if (tm_trace_wanted())
					gpud_log("trace: pipeline %d: \"%s\" lacks column %d (kind %d, scale %d) in the cache",
							 i, s->hdr.relname, s->cols[c].attno, s->cols[c].kind, s->cols[c].scale);
				t = NULL;
			}
		if (t == NULL)
		{
			need[i] = 1;
			any_need = true;
			gpud.cache_misses++;
			continue;
		}
		s->entry = t;
	}
	if (any_need)
	{
		pthread_mutex_unlock(&gpud_lock);
		locked = false;
		keep = tm_msg_send(sock, TM_MSG_NEED, need, sizeof(int32_t) * x->npipes, NULL, 0, NULL, NULL) == 0;
		goto done;
	}
	/* from here on the GPU works for this request: stop when its backend goes away */
	gpud_watch_start(&watch, sock);
	if (gpud_watch_canceled(&watch))
		goto canceled;
	/* first hold every cached source, so that uploads below cannot evict them */
	for (int i = 0; i < x->npipes; i++)
	{
		Src		   *s = &srcs[i];
		TmGpuTable *in = &inputs[i];

		if (s->hdr.mode == TMX_SRC_CACHED)
		{
			CacheTable *t = s->entry;

			t->in_use++;
			t->hits++;
			t->used_at = gpud_now();
			gpud.cache_hits++;
			s->use = TMX_USE_CACHE_HIT;
			in->ncols = s->hdr.ncols;
			in->nrows = t->nrows;
			in->on_device = 1;
			for (int c = 0; c < s->hdr.ncols; c++)
			{
				CacheCol   *cc = s->cols[c].attno != 0 ?
					cache_find_col(t, s->cols[c].attno, s->cols[c].kind, s->cols[c].scale) : NULL;

				in->cols[c].kind = s->cols[c].kind;
				if (cc != NULL)
				{
					in->cols[c].data = cc->data;
					in->cols[c].offsets = cc->offsets;
					in->cols[c].nulls = cc->nulls;
				}
			}
		}
	}
	for (int i = 0; i < x->npipes; i++)
	{
		Src		   *s = &srcs[i];
		TmGpuTable *in = &inputs[i];

		if (s->hdr.mode == TMX_SRC_INLINE)
		{
			if (!upload_source(s, s->map, s->maplen, in, &bytes_up, err, sizeof(err), &errkind, &watch))
			{
				if (gpud_watch_canceled(&watch) && strcmp(err, "canceled") == 0)
					goto canceled;
				keep = gpud_send_error(sock, errkind, errkind == TMX_ERR_GPU ? TM_GPU_ERR_CUDA : 0, 0, i, -1, "%s", err);
				if (errkind == TMX_ERR_GPU && gpud_context_lost())
					_exit(4);
				goto done;
			}
		}
	}
	t1 = gpud_now();

	if (type == TM_MSG_LOAD)
	{
		TmxLoadReply r;

		memset(&r, 0, sizeof(r));
		for (int i = 0; i < x->npipes; i++)
			if (srcs[i].entry != NULL)
			{
				/* stored: every column sent is in the entry now (none went to transient or host memory) */
				bool		all = srcs[i].use == TMX_USE_CACHE_LOADED;

				for (int c = 0; all && c < srcs[i].hdr.ncols; c++)
					if (srcs[i].cols[c].present && srcs[i].cols[c].attno != 0 &&
						cache_find_col(srcs[i].entry, srcs[i].cols[c].attno, srcs[i].cols[c].kind,
									   srcs[i].cols[c].scale) == NULL)
						all = false;
				if (all)
					r.entries_stored++;
				for (int c = 0; c < srcs[i].entry->ncols; c++)
					r.bytes_stored += srcs[i].entry->cols[c].bytes;
			}
		keep = tm_msg_send(sock, TM_MSG_LOAD_OK, &r, sizeof(r), NULL, 0, NULL, NULL) == 0;
		goto done;
	}

	/* run */
	{
		TmGpuTable	out;
		TmGpuPipelineStats *stats = req_alloc(&ra, sizeof(TmGpuPipelineStats) * (plan->npipelines + 1));
		TmGpuFailure fail;
		int			rc;
		TmxCol	   *ocols;
		int			rfd;
		int64_t		rlen = 0;
		char	   *reply;
		size_t		rsize;
		TmxResult  *res;
		TmxPipeStats *ps;

		if (stats == NULL)
			goto nomem;
		memset(&out, 0, sizeof(out));
		gpud.queries++;
		tm_gpu_pool_set_load_balance(gpud.pool,
									 (x->flags & TMX_FLAG_LB_AUTO) ? TM_GPU_LB_AUTO :
									 (x->flags & TMX_FLAG_LB_NIFS_AWS) ? TM_GPU_LB_NIFS_AWS :
									 (x->flags & TMX_FLAG_LB_NIFS) ? TM_GPU_LB_NIFS : TM_GPU_LB_NONE);
		tm_gpu_pool_set_join_algorithm(gpud.pool,
									   (x->flags & TMX_FLAG_JOIN_PARTITIONED) ? TM_GPU_JOIN_PARTITIONED :
									   (x->flags & TMX_FLAG_JOIN_GFUR) ? TM_GPU_JOIN_PARTITIONED_GFUR :
									   (x->flags & TMX_FLAG_JOIN_PIPELINED) ? TM_GPU_JOIN_PIPELINED :
									   TM_GPU_JOIN_AUTO);
		tm_gpu_pool_set_fast_paths(gpud.pool, (x->flags & TMX_FLAG_NO_FAST_PATHS) == 0);
		tm_gpu_pool_set_private_global(gpud.pool, (x->flags & TMX_FLAG_PRIVATE_GLOBAL) != 0);
		tm_gpu_pool_set_group_wagg(gpud.pool, (x->flags & TMX_FLAG_GROUP_WAGG) != 0);
		tm_gpu_pool_set_jit(gpud.pool, !(x->flags & TMX_FLAG_JIT) ? 0 : (x->flags & TMX_FLAG_JIT_WAIT) ? 2 : 1);
		tm_gpu_pool_set_nointerp(gpud.pool, (x->flags & TMX_FLAG_INTERP_ALWAYS) == 0);
		tm_gpu_pool_set_dynamic_rows(gpud.pool, (x->flags & TMX_FLAG_STATIC_ROWS) == 0);
		tm_gpu_pool_set_probe_order(gpud.pool, (x->flags & TMX_FLAG_PLAN_PROBE_ORDER) == 0);
		tm_gpu_pool_set_swap_rows(gpud.pool, x->swap_rows);
		tm_gpu_pool_set_swap_fuse(gpud.pool, !(x->flags & TMX_FLAG_SWAP_FUSE) ? 0 :
								  (x->flags & TMX_FLAG_SWAP_FUSE_COUNT) ? INT64_MAX : TM_GPU_SWAP_FUSE_SAMPLE_DEFAULT);
		tm_gpu_pool_set_topn(gpud.pool, x->topn_n, x->topn_col, (x->topn_flags & TMX_TOPN_DESC) != 0,
							 (x->topn_flags & TMX_TOPN_NULLS_FIRST) != 0);
		rc = tm_gpu_execute(gpud.pool, plan, inputs, x->npipes, params, paramnulls, &out, stats, &fail,
							err, sizeof(err));
		t2 = gpud_now();
		if (rc == TM_GPU_ERR_CANCELED)
			goto canceled;
		if (rc != TM_GPU_OK)
		{
			int			kind = rc == TM_GPU_ERR_NOMEM ? TMX_ERR_NOMEM : TMX_ERR_GPU;

			if (rc == TM_GPU_ERR_CUDA)
				gpud_log("CUDA error in pipeline %d: %s", fail.pipeline, err);
			keep = gpud_send_error(sock, kind, rc, fail.status, fail.pipeline, fail.row, "%s", err);
			if (rc == TM_GPU_ERR_CUDA && gpud_context_lost())
				_exit(4);
			goto done;
		}
		ocols = req_alloc(&ra, sizeof(TmxCol) * (out.ncols + 1));
		if (ocols == NULL)
		{
			tm_gpu_table_free(&out);
			goto nomem;
		}
		rfd = write_result(&out, ocols, &rlen, err, sizeof(err));
		if (tm_trace_wanted())
			gpud_log("trace: request: sources %.1f ms (%lld bytes uploaded), execution %.1f ms, result of %lld rows written in %.1f ms",
					 (t1 - t0) * 1000.0, (long long) bytes_up, (t2 - t1) * 1000.0, (long long) out.nrows,
					 (gpud_now() - t2) * 1000.0);
		rsize = sizeof(TmxResult) + sizeof(TmxPipeStats) * plan->npipelines + sizeof(TmxCol) * out.ncols;
		reply = req_alloc(&ra, rsize);
		if (rfd < 0 || reply == NULL)
		{
			tm_gpu_table_free(&out);
			if (rfd >= 0)
				close(rfd);
			keep = gpud_send_error(sock, TMX_ERR_INTERNAL, 0, 0, -1, -1, "%s", rfd < 0 ? err : "out of host memory");
			goto done;
		}
		res = (TmxResult *) reply;
		res->nrows = out.nrows;
		res->ncols = out.ncols;
		res->npipes = plan->npipelines;
		res->fd_len = rlen;
		res->bytes_uploaded = bytes_up;
		res->gpu_ms = (t2 - t1) * 1000.0;
		res->upload_ms = (t1 - t0) * 1000.0;
		res->pool_peak = (int64_t) tm_gpu_pool_peak(gpud.pool);
		res->topn_rows_in = tm_gpu_pool_topn_rows_in(gpud.pool);
		ps = (TmxPipeStats *) (reply + sizeof(TmxResult));
		for (int i = 0; i < plan->npipelines; i++)
		{
			ps[i].source_rows = stats[i].source_rows;
			ps[i].sink_rows = stats[i].sink_rows;
			ps[i].out_rows = stats[i].out_rows;
			ps[i].time_ms = stats[i].time_ms;
			ps[i].use = srcs[i].use;
			ps[i].idle_ratio = stats[i].idle_ratio;
			ps[i].imbalance = stats[i].imbalance;
			ps[i].warp_iterations = stats[i].warp_iterations;
			ps[i].handoffs = stats[i].handoffs;
			ps[i].join_algo = stats[i].join_algo;
			ps[i].join_op = stats[i].join_op;
			ps[i].join_rows = stats[i].join_rows;
			ps[i].join_ms = stats[i].join_ms;
			ps[i].probe_reordered = stats[i].probe_reordered;
			ps[i].pad2 = 0;
			memcpy(ps[i].probe_order, stats[i].probe_order, sizeof(ps[i].probe_order));
			ps[i].swap = stats[i].swap;
			ps[i].swap_op = stats[i].swap_op;
			ps[i].swap_rows = stats[i].swap_rows;
			ps[i].jit = stats[i].jit;
			ps[i].jit_ms = stats[i].jit_ms;
		}
		memcpy(reply + sizeof(TmxResult) + sizeof(TmxPipeStats) * plan->npipelines, ocols,
			   sizeof(TmxCol) * out.ncols);
		tm_gpu_table_free(&out);
		/* release the lock before the reply: the backend may be slow to read */
		gpud_watch_stop(&watch);
		for (int i = 0; i < x->npipes; i++)
		{
			for (int k = 0; k < srcs[i].ntransient; k++)
				arena_free(srcs[i].transient[k]);
			srcs[i].ntransient = 0;
			if (srcs[i].entry)
				srcs[i].entry->in_use--;
			srcs[i].entry = NULL;
		}
		pthread_mutex_unlock(&gpud_lock);
		locked = false;
		keep = tm_msg_send(sock, TM_MSG_RESULT, reply, rsize, &rfd, 1, NULL, NULL) == 0;
		close(rfd);
		goto done;
	}

malformed:
	keep = gpud_send_error(sock, TMX_ERR_PROTOCOL, 0, 0, -1, -1, "malformed request");
	goto done;
nomem:
	keep = gpud_send_error(sock, TMX_ERR_INTERNAL, 0, 0, -1, -1, "out of host memory in themis-gpud");
	goto done;
canceled:
	gpud_watch_stop(&watch);
	gpud_log("request canceled (its backend closed the connection): stopped %.0f ms after that, %.0f ms into its GPU work",
			 (gpud_now() - watch.canceled_at) * 1000.0, (gpud_now() - watch.started_at) * 1000.0);
	/* no one reads this: the connection is closed after it */
	(void) gpud_send_error(sock, TMX_ERR_GPU, TM_GPU_ERR_CANCELED, 0, -1, -1, "canceled");
	keep = false;
done:
	gpud_watch_stop(&watch);
	if (srcs != NULL)
	{
		if (!locked)
		{
			pthread_mutex_lock(&gpud_lock);
			locked = true;
		}
		for (int i = 0; i < x->npipes; i++)
		{
			for (int k = 0; k < srcs[i].ntransient; k++)
				arena_free(srcs[i].transient[k]);
			free(srcs[i].transient);
			if (srcs[i].entry && srcs[i].use != 0)
				srcs[i].entry->in_use--;
		}
	}
	if (locked)
		pthread_mutex_unlock(&gpud_lock);
	if (map != NULL)
		unmap_request_data(map, maplen);
	for (int k = 1; k < TM_GPUD_MAX_FDS; k++)
		if (slot_maps[k] != NULL)
			unmap_request_data(slot_maps[k], slot_lens[k]);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	req_free_all(&ra);
	return keep;
}
