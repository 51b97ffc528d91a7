/*
 * gpud.h — declarations shared by the files of themis-gpud, the GPU daemon (src/gpud/).
 *
 *   main.c    options, CUDA device and memory set-up, the socket server (one thread per connection),
 *             message dispatch, STATUS
 *   arena.c   the device memory arena: one cudaMalloc at start, first-fit allocation with coalescing
 *   cache.c   the column cache: table entries (key + stamp) holding device columns, LRU eviction
 *   exec.c    EXECUTE and LOAD: sources from the cache or uploaded from the request's memfd through
 *             pinned staging buffers, tm_gpu_execute, the result written to a memfd
 *   cancel.c  while a request holds the GPU, a watcher thread notices its backend closing the
 *             connection (query canceled) and cancels the executor's pool (tm_gpu_pool_cancel)
 *   pcopy.c   memcpy by a pool of threads (an upload's copies into the pinned staging buffers)
 *
 * The daemon is plain C (gcc) over the CUDA runtime API and the C interface of cuda/tm_gpu_exec.cu.
 * It never links PostgreSQL code and never attaches to PostgreSQL's shared memory.  All GPU work and
 * every change to the cache happen under one mutex (gpud_lock): queries from several backends run one
 * after another on the GPU, while their request parsing and replies overlap.
 */
#ifndef THEMIS_GPUD_H
#define THEMIS_GPUD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "themis/tm_gpud_proto.h"
#include "tm_gpu_exec.h"

/* ---- main.c ---- */
typedef struct GpudState
{
	bool		usable;			/* a device, an arena and a pool exist */
	int			device;
	TmxStatus	status;			/* static parts filled at start */
	TmGpuPool  *pool;			/* executor work memory */
	void	   *stream;			/* cudaStream_t for uploads */
	void	   *staging[2];		/* pinned host buffers */
	void	   *staging_ev[2];	/* cudaEvent_t: the copy out of staging[i] finished */
	size_t		staging_size;
	double		start_time;
	int64_t		queries;
	int64_t		cache_hits;
	int64_t		cache_misses;
	int			verbose;
} GpudState;

extern GpudState gpud;
extern pthread_mutex_t gpud_lock;

extern double gpud_now(void);
extern void gpud_log(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/* ---- arena.c ---- */
typedef struct ArenaBlock ArenaBlock;

extern bool arena_init(size_t bytes, char *err, int errlen);
extern void *arena_alloc(size_t bytes);		/* device pointer, or NULL if no free range fits */
extern void arena_free(void *p);
extern size_t arena_size(void);
extern size_t arena_used(void);

/* ---- cache.c ---- */
typedef struct CacheCol
{
	int16_t		attno;
	int16_t		kind;
	int16_t		scale;
	void	   *data;			/* device pointers (arena) */
	int64_t    *offsets;
	uint8_t    *nulls;
	int64_t		bytes;
} CacheCol;

typedef struct CacheTable
{
	uint32_t	dboid;
	uint32_t	relid;
	uint32_t	relfilenode;
	uint64_t	table_count;
	uint64_t	global_count;
	int64_t		nrows;
	int			ncols;
	CacheCol   *cols;
	int64_t		hits;
	double		loaded_at;
	double		used_at;
	int			in_use;			/* held by the running query: not evictable */
	char		relname[64];
	struct CacheTable *next;
} CacheTable;

extern CacheTable *cache_find(uint32_t dboid, uint32_t relid, uint32_t relfilenode);
extern CacheCol *cache_find_col(CacheTable *t, int attno, int kind, int scale);
/* the entry for key with this stamp and nrows: an existing one, or a new empty one (an entry of the same
 * key with another stamp is dropped) */
extern CacheTable *cache_get_for_store(const TmxSource *src);
extern bool cache_add_col(CacheTable *t, const CacheCol *col);
/* arena_alloc that evicts unused entries (least recently used first) until it fits; NULL if it cannot */
extern void *cache_alloc_evicting(size_t bytes);
extern int64_t cache_drop(uint32_t dboid, uint32_t relid);
extern int64_t cache_entries(void);
extern int64_t cache_bytes(void);
extern TmxCacheRow *cache_list(int64_t *n);	/* malloc'd */

/* ---- cancel.c ---- */
typedef struct GpudWatch
{
	int			sock;			/* the request's connection */
	int			evfd;			/* eventfd: gpud_watch_stop wakes the thread */
	pthread_t	thread;
	bool		running;		/* the thread exists */
	int			canceled;		/* the client went away (atomic; gpud_watch_canceled) */
	double		started_at;		/* gpud_now() at gpud_watch_start */
	double		canceled_at;	/* and when the close was seen */
} GpudWatch;

/* under gpud_lock, before the request's GPU work: clear the pool's cancel word, watch sock */
extern void gpud_watch_start(GpudWatch *w, int sock);
/* before gpud_lock is released (idempotent; a GpudWatch zeroed by memset is fine) */
extern void gpud_watch_stop(GpudWatch *w);
extern bool gpud_watch_canceled(const GpudWatch *w);

/* ---- pcopy.c ---- */
/* start the copy threads (< 0: half the CPUs, at most 8); the number started */
extern int	pcopy_init(int nthreads);
extern void pcopy_shutdown(void);
/* memcpy(dst, src, n) by the pool's threads and the caller; one call at a time */
extern void pcopy(void *dst, const void *src, size_t n);

/* ---- exec.c ---- */
/* handle EXECUTE or LOAD; sends the reply; false if the connection must be closed */
extern bool gpud_handle_exec(int sock, int type, const char *payload, uint64_t len, int *fds, int nfds);
extern bool gpud_send_error(int sock, int kind, int gpu_rc, int status, int pipeline, int64_t row,
							const char *fmt,...) __attribute__((format(printf, 7, 8)));

#endif							/* THEMIS_GPUD_H */
