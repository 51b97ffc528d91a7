/*
 * pcopy.c — memcpy of large host buffers by several threads: the daemon's uploads copy each chunk of a
 * request's memfd into a pinned staging buffer before its DMA, and one thread copies at a fraction of
 * the memory bandwidth the DMA could take (a cold query uploads gigabytes of columns).
 *
 * A pool of threads started once (pcopy_init) waits for jobs; pcopy(dst, src, n) cuts [0, n) into
 * slices of whole cache lines, hands one to each pool thread and copies the first itself, and returns
 * when every slice is copied.  One job at a time: the caller serializes (the daemon copies under
 * gpud_lock).  Buffers under PCOPY_MIN_PARALLEL bytes, or no pool, are copied by the caller alone.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpud.h"

#define PCOPY_MIN_PARALLEL	((size_t) 4 << 20)
#define PCOPY_MAX_THREADS	16

static struct
{
	pthread_mutex_t mu;
	pthread_cond_t go;			/* a new job (gen changed) or stop */
	pthread_cond_t done;		/* pending reached 0 */
	int			nthreads;		/* pool threads (the caller copies a slice too) */
	pthread_t	threads[PCOPY_MAX_THREADS];
	uint64_t	gen;			/* jobs posted so far */
	uint64_t	start_gen;		/* gen when the pool started: a thread's first job comes after it */
	int			pending;
	bool		stop;
	char	   *dst;
	const char *src;
	size_t		n;
} pc = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};

/* bytes [*off, *off + *len) of slice i of nslices of an n-byte job: whole 64-byte lines but the last */
static void
slice(size_t n, int i, int nslices, size_t *off, size_t *len)
{
	size_t		per = ((n / (size_t) nslices) + 63) & ~(size_t) 63;
	size_t		lo = per * (size_t) i;
	size_t		hi = lo + per;

	if (lo > n)
		lo = n;
	if (hi > n || i == nslices - 1)
		hi = n;
	*off = lo;
	*len = hi - lo;
}

static void *
pcopy_thread(void *arg)
{
	int			me = (int) (intptr_t) arg;
	uint64_t	seen = pc.start_gen;	/* set before the thread was created */

	for (;;)
	{
		char	   *dst;
		const char *src;
		size_t		n,
					off,
					len;
		int			nslices;

		pthread_mutex_lock(&pc.mu);
		while (!pc.stop && pc.gen == seen)
			pthread_cond_wait(&pc.go, &pc.mu);
		if (pc.stop)
		{
			pthread_mutex_unlock(&pc.mu);
			return NULL;
		}
		seen = pc.gen;
		dst = pc.dst;
		src = pc.src;
		n = pc.n;
		nslices = pc.nthreads + 1;
		pthread_mutex_unlock(&pc.mu);

		slice(n, me + 1, nslices, &off, &len);
		if (len > 0)
			memcpy(dst + off, src + off, len);

		pthread_mutex_lock(&pc.mu);
		if (--pc.pending == 0)
			pthread_cond_signal(&pc.done);
		pthread_mutex_unlock(&pc.mu);
	}
}

/*
 * Start the pool: nthreads threads (< 0: half the online CPUs, at most 8); returns the threads started
 * (0: every copy is the caller's alone).
 */
int
pcopy_init(int nthreads)
{
	if (nthreads < 0)
	{
		long		ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		nthreads = ncpu > 1 ? (int) (ncpu / 2) : 0;
		if (nthreads > 8)
			nthreads = 8;
	}
	if (nthreads > PCOPY_MAX_THREADS)
		nthreads = PCOPY_MAX_THREADS;
	pthread_mutex_lock(&pc.mu);
	pc.stop = false;
	pc.start_gen = pc.gen;
	pthread_mutex_unlock(&pc.mu);
	pc.nthreads = 0;
	for (int i = 0; i < nthreads; i++)
	{
		if (pthread_create(&pc.threads[i], NULL, pcopy_thread, (void *) (intptr_t) i) != 0)
			break;
		pc.nthreads++;
	}
	return pc.nthreads;
}

/* stop and join the pool's threads */
void
pcopy_shutdown(void)
{
	pthread_mutex_lock(&pc.mu);
	pc.stop = true;
	pthread_cond_broadcast(&pc.go);
	pthread_mutex_unlock(&pc.mu);
	for (int i = 0; i < pc.nthreads; i++)
		pthread_join(pc.threads[i], NULL);
	pc.nthreads = 0;
}

/* memcpy(dst, src, n) with the pool's threads */
void
pcopy(void *dst, const void *src, size_t n)
{
	size_t		off,
				len;

	if (pc.nthreads == 0 || n < PCOPY_MIN_PARALLEL)
	{
		memcpy(dst, src, n);
		return;
	}
	pthread_mutex_lock(&pc.mu);
	pc.dst = dst;
	pc.src = src;
	pc.n = n;
	pc.pending = pc.nthreads;
	pc.gen++;
	pthread_cond_broadcast(&pc.go);
	pthread_mutex_unlock(&pc.mu);

	slice(n, 0, pc.nthreads + 1, &off, &len);
	memcpy(dst, src, len);

	pthread_mutex_lock(&pc.mu);
	while (pc.pending > 0)
		pthread_cond_wait(&pc.done, &pc.mu);
	pthread_mutex_unlock(&pc.mu);
}
