/*
 * test_gpud_cancel.c — the cancel watcher of themis-gpud (src/gpud/cancel.c), without a GPU: over a
 * socketpair standing for a backend's connection, with the executor's cancel calls stubbed.
 *
 *   - a connection that stays open is not canceled, and the watcher stops at once when asked;
 *   - the backend closing its end is seen within milliseconds: the request is marked canceled and the
 *     pool's cancel word set (once);
 *   - a connection closed before the watch starts (the request waited for the lock) is canceled at once;
 *   - start clears the pool's cancel word; stop is idempotent; a thousand start / stop cycles are cheap.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tm_unit.h"
#include "../../src/gpud/cancel.c"

/* ---- stubs of the daemon and the executor ---- */
GpudState	gpud;
static int	n_cancel = 0;
static int	n_clear = 0;
static int	dummy_pool;

double
gpud_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

void
gpud_log(const char *fmt,...)
{
	(void) fmt;
}

void
tm_gpu_pool_cancel(TmGpuPool *pool)
{
	if (pool == (TmGpuPool *) &dummy_pool)
		__atomic_add_fetch(&n_cancel, 1, __ATOMIC_SEQ_CST);
}

void
tm_gpu_pool_clear_cancel(TmGpuPool *pool)
{
	if (pool == (TmGpuPool *) &dummy_pool)
		n_clear++;
}

static void
sleep_ms(int ms)
{
	usleep((useconds_t) ms * 1000);
}

static void
test_open_connection(void)
{
	int			sv[2];
	GpudWatch	w;
	double		t0;

	TM_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	n_cancel = n_clear = 0;
	gpud_watch_start(&w, sv[0]);
	TM_CHECK(w.running);
	TM_CHECK_INT_EQ(n_clear, 1);
	sleep_ms(50);
	TM_CHECK(!gpud_watch_canceled(&w));
	t0 = gpud_now();
	gpud_watch_stop(&w);
	TM_CHECK_MSG(gpud_now() - t0 < 0.1, "stop took %.3f s", gpud_now() - t0);
	TM_CHECK(!w.running);
	TM_CHECK(!gpud_watch_canceled(&w));
	TM_CHECK_INT_EQ(n_cancel, 0);
	gpud_watch_stop(&w);		/* again: nothing */
	close(sv[0]);
	close(sv[1]);
}

static void
test_backend_closes(void)
{
	int			sv[2];
	GpudWatch	w;
	double		t0;
	double		seen = -1;

	TM_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	n_cancel = 0;
	gpud_watch_start(&w, sv[0]);
	sleep_ms(20);
	t0 = gpud_now();
	close(sv[1]);
	for (int i = 0; i < 1000; i++)
	{
		if (gpud_watch_canceled(&w))
		{
			seen = gpud_now() - t0;
			break;
		}
		sleep_ms(1);
	}
	TM_CHECK_MSG(seen >= 0 && seen < 0.1, "the close was seen after %.3f s", seen);
	TM_CHECK_INT_EQ(__atomic_load_n(&n_cancel, __ATOMIC_SEQ_CST), 1);
	TM_CHECK(w.canceled_at >= t0);
	sleep_ms(20);				/* the closed socket stays readable: still one cancel */
	TM_CHECK_INT_EQ(__atomic_load_n(&n_cancel, __ATOMIC_SEQ_CST), 1);
	gpud_watch_stop(&w);
	TM_CHECK(gpud_watch_canceled(&w));
	close(sv[0]);
}

static void
test_closed_before(void)
{
	int			sv[2];
	GpudWatch	w;

	TM_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	n_cancel = 0;
	close(sv[1]);
	gpud_watch_start(&w, sv[0]);
	TM_CHECK(gpud_watch_canceled(&w));	/* at once, no waiting for a thread */
	TM_CHECK_INT_EQ(n_cancel, 1);
	gpud_watch_stop(&w);
	close(sv[0]);
}

static void
test_cycles(void)
{
	int			sv[2];
	GpudWatch	w;
	double		t0;

	TM_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	n_cancel = 0;
	t0 = gpud_now();
	for (int i = 0; i < 1000; i++)
	{
		gpud_watch_start(&w, sv[0]);
		gpud_watch_stop(&w);
	}
	printf("1000 watch start / stop cycles: %.1f us each\n", (gpud_now() - t0) * 1000.0);
	TM_CHECK_MSG(gpud_now() - t0 < 2.0, "%.3f s", gpud_now() - t0);
	TM_CHECK_INT_EQ(n_cancel, 0);
	memset(&w, 0, sizeof(w));
	gpud_watch_stop(&w);		/* a zeroed watch: nothing */
	close(sv[0]);
	close(sv[1]);
}

int
main(void)
{
	gpud.pool = (TmGpuPool *) &dummy_pool;
	TM_RUN(test_open_connection);
	TM_RUN(test_backend_closes);
	TM_RUN(test_closed_before);
	TM_RUN(test_cycles);
	return tm_unit_done();
}
