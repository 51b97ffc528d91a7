/*
 * gpud_client.c — a backend's connection to the GPU daemon themis-gpud (protocol: themis/tm_gpud_proto.h).
 *
 * One connection per backend, opened on first use and kept.  HELLO checks the protocol version and
 * returns the daemon's status; a daemon without a usable GPU is remembered for a few seconds so that
 * themis.device = auto does not knock on its door for every query.  A request that is interrupted
 * (query cancel, statement_timeout, ERROR or exit while waiting) closes the connection at once: that close
 * is how the daemon learns that the query was canceled, and it stops the request's GPU work
 * (src/gpud/cancel.c); the next request connects again.  A daemon that dies (or is killed) shows up as a
 * failed request with a clear reason; the supervisor starts a new one and the next request connects to it.
 * With themis.stream_loads a query may send LOADs without waiting (tm_gpud_send) and read their replies
 * later, in order (tm_gpud_recv); any other request, or an ERROR in between, drops the connection first.
 */
#include "postgres.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "miscadmin.h"
#include "utils/timestamp.h"

#include "themis.h"
#include "gpud_client.h"
#include "themis/tm_gpud_io.h"

#define UNUSABLE_RETRY_MS	2000

static int	gpud_sock = -1;
static bool gpud_busy = false;		/* a request is in flight (or was interrupted) */
static int	gpud_npending = 0;	/* requests sent by tm_gpud_send whose replies are not read yet */
static TmxStatus gpud_hello;
static TimestampTz gpud_retry_at = 0;	/* device = auto: don't try before this */
static char gpud_why[512];

static void
io_tick(void *arg)
{
	CHECK_FOR_INTERRUPTS();
}

void
tm_gpud_disconnect(void)
{
	if (gpud_sock >= 0)
		close(gpud_sock);
	gpud_sock = -1;
	gpud_busy = false;
	gpud_npending = 0;
}

/* receive one reply; payload copied into palloc'd memory */
static int
recv_reply(TmMsgHdr *h, void **payload, int *fds, int *nfds)
{
	void	   *raw = NULL;

	if (tm_msg_recv(gpud_sock, h, &raw, fds, nfds, TM_GPUD_MAX_PAYLOAD, io_tick, NULL) < 0)
		return -1;
	*payload = palloc(Max(h->len, 1));
	if (h->len > 0)
		memcpy(*payload, raw, h->len);
	free(raw);
	return 0;
}

/* text of an ERROR reply */
static char *
error_text(const void *payload, uint64 len, TmxError *e)
{
	memset(e, 0, sizeof(TmxError));
	if (len < sizeof(TmxError))
		return pstrdup("malformed error reply");
	memcpy(e, payload, sizeof(TmxError));
	if (e->msglen < 0 || sizeof(TmxError) + e->msglen > len)
		return pstrdup("malformed error reply");
	return pnstrdup((const char *) payload + sizeof(TmxError), e->msglen);
}

/*
 * Connect and say HELLO.  An ERROR answer or another protocol version (an extension upgraded without a
 * server restart) raises an ERROR where raise is true, else it is returned as why.
 */
static bool
connect_and_hello(bool raise, const char **why)
{
	struct sockaddr_un addr;
	TmMsgHdr	h;
	void	   *payload;
	int			fds[TM_GPUD_MAX_FDS];
	int			nfds = 0;
	int			s;

	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
	{
		snprintf(gpud_why, sizeof(gpud_why), "socket(): %m");
		*why = gpud_why;
		return false;
	}
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strlcpy(addr.sun_path, TM_GPUD_SOCKET, sizeof(addr.sun_path));
	/* the backend's working directory is the data directory, where the daemon listens */
	if (connect(s, (struct sockaddr *) &addr, sizeof(addr)) < 0)
	{
		if (errno == ENOENT || errno == ECONNREFUSED)
			snprintf(gpud_why, sizeof(gpud_why),
					 "the GPU daemon themis-gpud is not running (themis must be in shared_preload_libraries; see the server log)");
		else
			snprintf(gpud_why, sizeof(gpud_why), "cannot connect to themis-gpud: %m");
		close(s);
		*why = gpud_why;
		return false;
	}
	gpud_sock = s;
	gpud_busy = true;
	if (tm_msg_send(gpud_sock, TM_MSG_HELLO, NULL, 0, NULL, 0, io_tick, NULL) < 0 ||
		recv_reply(&h, &payload, fds, &nfds) < 0)
	{
		snprintf(gpud_why, sizeof(gpud_why), "themis-gpud did not answer: %m");
		tm_gpud_disconnect();
		*why = gpud_why;
		return false;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	gpud_busy = false;
	if (h.type == TM_MSG_ERROR || h.version != TM_GPUD_PROTO_VERSION)
	{
		TmxError	e;
		char	   *msg = h.type == TM_MSG_ERROR ? error_text(payload, h.len, &e) :
			psprintf("themis-gpud speaks protocol version %d, the extension speaks %d: install matching versions of themis and restart the server",
					 (int) h.version, TM_GPUD_PROTO_VERSION);

		tm_gpud_disconnect();
		if (raise)
			ereport(ERROR,
					(errcode(ERRCODE_CONNECTION_FAILURE),
					 errmsg("themis: %s", msg)));
		snprintf(gpud_why, sizeof(gpud_why), "%s", msg);
		*why = gpud_why;
		return false;
	}
	if (h.type != TM_MSG_HELLO_OK || h.len != sizeof(TmxStatus))
	{
		tm_gpud_disconnect();
		snprintf(gpud_why, sizeof(gpud_why), "themis-gpud answered HELLO with message %d", (int) h.type);
		*why = gpud_why;
		return false;
	}
	memcpy(&gpud_hello, payload, sizeof(TmxStatus));
	pfree(payload);
	return true;
}

bool
tm_gpud_ready(bool force, const char **why)
{
	if (themis_debug_fault == THEMIS_FAULT_NO_GPU)
	{
		/* tests: as if the daemon had no usable GPU */
		*why = "no usable GPU (themis.debug_fault = no_gpu)";
		return false;
	}
	if (gpud_busy)
		tm_gpud_disconnect();
	if (gpud_sock >= 0)
		return true;
	if (!force && gpud_retry_at != 0 && GetCurrentTimestamp() < gpud_retry_at)
	{
		*why = gpud_why;
		return false;
	}
	if (!connect_and_hello(force, why))
	{
		gpud_retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), UNUSABLE_RETRY_MS);
		return false;
	}
	if (!gpud_hello.usable)
	{
		snprintf(gpud_why, sizeof(gpud_why), "themis-gpud has no usable GPU: %s", gpud_hello.detail);
		*why = gpud_why;
		tm_gpud_disconnect();
		gpud_retry_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), UNUSABLE_RETRY_MS);
		return false;
	}
	gpud_retry_at = 0;
	return true;
}

int
tm_gpud_request(int type, const void *payload, Size len, int fd,
				void **reply, Size *rlen, int *rfd, const char **why)
{
	return tm_gpud_request_fds(type, payload, len, fd >= 0 ? &fd : NULL, fd >= 0 ? 1 : 0,
							   reply, rlen, rfd, why);
}

int
tm_gpud_request_fds(int type, const void *payload, Size len, const int *sfds, int nsfds,
					void **reply, Size *rlen, int *rfd, const char **why)
{
	TmMsgHdr	h;
	int			fds[TM_GPUD_MAX_FDS];
	int			nfds = 0;
	volatile bool failed;

	*reply = NULL;
	*rlen = 0;
	if (rfd)
		*rfd = -1;
	if (gpud_npending > 0)
		tm_gpud_disconnect();	/* replies not read: they would be taken for this one's */
	if (gpud_sock < 0 && !tm_gpud_ready(true, why))
		return -1;
	gpud_busy = true;
	PG_TRY();
	{
		failed = tm_msg_send(gpud_sock, type, payload, len, sfds, nsfds, io_tick, NULL) < 0 ||
			recv_reply(&h, reply, fds, &nfds) < 0;
	}
	PG_CATCH();
	{
		/* interrupted (io_tick): closing tells the daemon to stop this request's GPU work */
		tm_gpud_disconnect();
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (failed)
	{
		if (errno == ECONNRESET || errno == EPIPE)
			snprintf(gpud_why, sizeof(gpud_why),
					 "themis-gpud closed the connection during the request (it may have died; it is restarted automatically)");
		else
			snprintf(gpud_why, sizeof(gpud_why), "request to themis-gpud failed: %m");
		tm_gpud_disconnect();
		*why = gpud_why;
		return -1;
	}
	gpud_busy = false;
	if (h.version != TM_GPUD_PROTO_VERSION)
	{
		tm_gpud_disconnect();
		snprintf(gpud_why, sizeof(gpud_why), "themis-gpud answered with protocol version %d, expected %d",
				 (int) h.version, TM_GPUD_PROTO_VERSION);
		*why = gpud_why;
		return -1;
	}
	for (int i = 0; i < nfds; i++)
	{
		if (rfd && *rfd < 0)
			*rfd = fds[i];
		else
			close(fds[i]);
	}
	*rlen = h.len;
	return h.type;
}

int
tm_gpud_send(int type, const void *payload, Size len, int fd, const char **why)
{
	volatile bool failed;

	if (gpud_busy && gpud_npending == 0)
		tm_gpud_disconnect();	/* an interrupted request's connection */
	if (gpud_sock < 0 && !tm_gpud_ready(true, why))
		return -1;
	gpud_busy = true;
	PG_TRY();
	{
		failed = tm_msg_send(gpud_sock, type, payload, len, fd >= 0 ? &fd : NULL, fd >= 0 ? 1 : 0,
							 io_tick, NULL) < 0;
	}
	PG_CATCH();
	{
		tm_gpud_disconnect();
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (failed)
	{
		snprintf(gpud_why, sizeof(gpud_why), "request to themis-gpud failed: %m");
		tm_gpud_disconnect();
		*why = gpud_why;
		return -1;
	}
	gpud_npending++;
	return 0;
}

int
tm_gpud_recv(void **reply, Size *rlen, const char **why)
{
	TmMsgHdr	h;
	int			fds[TM_GPUD_MAX_FDS];
	int			nfds = 0;
	volatile bool failed;

	*reply = NULL;
	*rlen = 0;
	if (gpud_sock < 0 || gpud_npending <= 0)
	{
		*why = "no request to themis-gpud is waiting for its reply";
		return -1;
	}
	PG_TRY();
	{
		failed = recv_reply(&h, reply, fds, &nfds) < 0;
	}
	PG_CATCH();
	{
		tm_gpud_disconnect();
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (failed || h.version != TM_GPUD_PROTO_VERSION)
	{
		snprintf(gpud_why, sizeof(gpud_why), failed ?
				 "themis-gpud closed the connection during the request (it may have died; it is restarted automatically)" :
				 "themis-gpud answered with another protocol version");
		tm_gpud_disconnect();
		*why = gpud_why;
		return -1;
	}
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	if (--gpud_npending == 0)
		gpud_busy = false;
	*rlen = h.len;
	return h.type;
}

int
tm_gpud_pending(void)
{
	return gpud_npending;
}

char *
tm_gpud_error_text(const void *payload, Size len, TmxError *e)
{
	return error_text(payload, len, e);
}

bool
tm_gpud_status(TmxStatus *st, const char **why)
{
	void	   *reply;
	Size		rlen;
	int			t;

	if (gpud_busy)
		tm_gpud_disconnect();
	if (gpud_sock < 0 && !connect_and_hello(true, why))
		return false;
	t = tm_gpud_request(TM_MSG_STATUS, NULL, 0, -1, &reply, &rlen, NULL, why);
	if (t != TM_MSG_STATUS_OK || rlen != sizeof(TmxStatus))
	{
		if (t >= 0)
		{
			*why = "unexpected answer to STATUS";
			tm_gpud_disconnect();
		}
		return false;
	}
	memcpy(st, reply, sizeof(TmxStatus));
	pfree(reply);
	if (!st->usable)
		tm_gpud_disconnect();	/* device = auto keeps asking at most every few seconds */
	return true;
}
