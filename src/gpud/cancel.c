/*
 * cancel.c — themis-gpud notices that the backend of the request it runs has gone, and stops the GPU work.
 *
 * A backend whose query is canceled while it waits for the daemon (statement_timeout, pg_cancel_backend,
 * any ERROR or exit) closes its connection at once (src/gpud_client.c).  While a request holds the GPU
 * (from taking gpud_lock to its reply), a watcher thread polls that connection for the peer's close
 * (POLLRDHUP / POLLHUP / POLLERR; data is not looked at: with themis.stream_loads a backend may send a
 * LOAD behind the one running, src/gpu_run.c).  When it sees one it sets the executor pool's cancel word
 * (tm_gpu_pool_cancel): the running kernels leave within tens of milliseconds and tm_gpu_execute returns
 * TM_GPU_ERR_CANCELED; and the request's own loops (uploads) stop at their next check of
 * gpud_watch_canceled.  The request then frees what it holds as after any failure, and the next request
 * clears the cancel word (gpud_watch_start) before it runs.
 *
 * One watcher per request, started after the request takes gpud_lock and stopped (joined) before it
 * releases it, so a watcher never cancels another request's work.  It waits in poll() on the socket and
 * an eventfd that gpud_watch_stop writes: it costs nothing while it waits and ends at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "gpud.h"

/* the client went away: say so to the request and to the executor */
static void
mark_canceled(GpudWatch *w)
{
	w->canceled_at = gpud_now();
	__atomic_store_n(&w->canceled, 1, __ATOMIC_RELEASE);
	tm_gpu_pool_cancel(gpud.pool);
}

static void *
watch_main(void *arg)
{
	GpudWatch  *w = (GpudWatch *) arg;
	struct pollfd p[2];
	int			np = 2;

	p[0].fd = w->evfd;
	p[0].events = POLLIN;
	p[1].fd = w->sock;
	p[1].events = POLLRDHUP;
	for (;;)
	{
		int			r;

		p[0].revents = p[1].revents = 0;
		r = poll(p, np, -1);
		if (r < 0)
		{
			if (errno == EINTR)
				continue;
			gpud_log("cancel watcher: poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents != 0)
			break;				/* gpud_watch_stop */
		if (np == 2 && (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0)
		{
			mark_canceled(w);
			np = 1;				/* wait for the stop only */
		}
		else if (np == 2 && (p[1].revents & POLLNVAL) != 0)
			np = 1;
	}
	return NULL;
}

void
gpud_watch_start(GpudWatch *w, int sock)
{
	struct pollfd p;

	memset(w, 0, sizeof(*w));
	w->sock = sock;
	w->evfd = -1;
	w->started_at = gpud_now();
	tm_gpu_pool_clear_cancel(gpud.pool);
	/* gone already (while the request waited for the lock): known before anything runs */
	p.fd = sock;
	p.events = POLLRDHUP;
	p.revents = 0;
	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0)
	{
		mark_canceled(w);
		return;
	}
	w->evfd = eventfd(0, EFD_CLOEXEC);
	if (w->evfd < 0)
	{
		gpud_log("cancel watcher: eventfd: %s (this request cannot be canceled)", strerror(errno));
		return;
	}
	if (pthread_create(&w->thread, NULL, watch_main, w) != 0)
	{
		gpud_log("cancel watcher: pthread_create failed (this request cannot be canceled)");
		close(w->evfd);
		w->evfd = -1;
		return;
	}
	w->running = true;
}

void
gpud_watch_stop(GpudWatch *w)
{
	uint64_t	one = 1;

	if (!w->running)
		return;
	while (write(w->evfd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	pthread_join(w->thread, NULL);
	close(w->evfd);
	w->evfd = -1;
	w->running = false;
}

bool
gpud_watch_canceled(const GpudWatch *w)
{
	return __atomic_load_n(&w->canceled, __ATOMIC_ACQUIRE) != 0;
}
