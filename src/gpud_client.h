/*
 * gpud_client.h — a backend's connection to themis-gpud (gpud_client.c).
 */
#ifndef THEMIS_GPUD_CLIENT_H
#define THEMIS_GPUD_CLIENT_H

#include "themis/tm_gpud_proto.h"

/*
 * Connected to a daemon with a usable GPU?  Connects (HELLO) if needed.  force: try even if a recent try
 * failed (themis.device = gpu); otherwise a failure is remembered for a few seconds.  false with *why.
 * A daemon of another protocol version (or one that answers HELLO with an error) is an ERROR where
 * force is true, else false with *why (themis.device = auto: PostgreSQL's plan).
 */
extern bool tm_gpud_ready(bool force, const char **why);
extern void tm_gpud_disconnect(void);

/*
 * Send one request (payload, optional fd) and wait for the reply: its TmMsgType, payload (palloc'd) and
 * the first descriptor sent with it (or -1; the caller closes it).  -1 with *why if the daemon could not be
 * reached or the connection broke (it is dropped).  Waiting checks for interrupts.
 */
extern int	tm_gpud_request(int type, const void *payload, Size len, int fd,
							void **reply, Size *rlen, int *rfd, const char **why);
/* the same with nfds descriptors (at most TM_GPUD_MAX_FDS) sent with the request */
extern int	tm_gpud_request_fds(int type, const void *payload, Size len, const int *fds, int nfds,
								void **reply, Size *rlen, int *rfd, const char **why);
extern char *tm_gpud_error_text(const void *payload, Size len, TmxError *e);

/*
 * A request whose reply is read later (themis.stream_loads: a LOAD sent while the backend goes on
 * reading): tm_gpud_send sends it (0, or -1 with *why), tm_gpud_recv reads the reply of the oldest one
 * not yet read (as tm_gpud_request's).  Until every reply is read the connection is busy: an ERROR in
 * between, or any other request, drops the connection first (the daemon stops the pending work).
 */
extern int	tm_gpud_send(int type, const void *payload, Size len, int fd, const char **why);
extern int	tm_gpud_recv(void **reply, Size *rlen, const char **why);
extern int	tm_gpud_pending(void);

/* the daemon's STATUS (connecting if needed); false with *why if it cannot be reached */
extern bool tm_gpud_status(TmxStatus *st, const char **why);

#endif							/* THEMIS_GPUD_CLIENT_H */
