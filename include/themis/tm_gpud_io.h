/*
 * tm_gpud_io.h — sending and receiving one protocol message (tm_gpud_proto.h) over a Unix socket, with
 * file descriptors.  Shared by the daemon and the backends; plain C and POSIX, no PostgreSQL headers.
 *
 * The functions block; `tick` (may be NULL) is called about every 100 ms while waiting, so that a backend
 * can check for interrupts (it may not return: the caller then drops the connection).  They return 0, or
 * -1 with errno set (EPROTO: not a message of this protocol; ECONNRESET: peer closed).
 */
#ifndef THEMIS_TM_GPUD_IO_H
#define THEMIS_TM_GPUD_IO_H

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "themis/tm_gpud_proto.h"

typedef void (*TmIoTick) (void *arg);

/*
 * write len bytes of buf at offset off of file fd (a request's or a result's memfd: pwrite needs no
 * mapping, whose page faults cost more than the kernel's copy on the GPU host, bench/hostmem.c)
 */
static inline int
tm_io_pwrite_all(int fd, const void *buf, int64_t len, int64_t off)
{
	const char *p = (const char *) buf;

	while (len > 0)
	{
		ssize_t		w = pwrite(fd, p, (size_t) (len < ((int64_t) 1 << 30) ? len : ((int64_t) 1 << 30)),
							   (off_t) off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
		{
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		off += w;
		len -= w;
	}
	return 0;
}

/* wait until fd is readable (events POLLIN) or writable (POLLOUT) */
static inline int
tm_io_wait(int fd, short events, TmIoTick tick, void *arg)
{
	for (;;)
	{
		struct pollfd p;
		int			r;

		p.fd = fd;
		p.events = events;
		p.revents = 0;
		r = poll(&p, 1, 100);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (tick)
			tick(arg);
	}
}

static inline int
tm_io_write_all(int fd, const void *buf, size_t len, TmIoTick tick, void *arg)
{
	const char *p = (const char *) buf;

	while (len > 0)
	{
		ssize_t		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
			{
				if (tm_io_wait(fd, POLLOUT, tick, arg) < 0)
					return -1;
				continue;
			}
			return -1;
		}
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

static inline int
tm_io_read_all(int fd, void *buf, size_t len, TmIoTick tick, void *arg)
{
	char	   *p = (char *) buf;

	while (len > 0)
	{
		ssize_t		n = recv(fd, p, len, MSG_DONTWAIT);

		if (n == 0)
		{
			errno = ECONNRESET;
			return -1;
		}
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
			{
				if (tm_io_wait(fd, POLLIN, tick, arg) < 0)
					return -1;
				continue;
			}
			return -1;
		}
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

/* send header (with fds) and payload */
static inline int
tm_msg_send(int sock, int type, const void *payload, uint64_t len, const int *fds, int nfds,
			TmIoTick tick, void *arg)
{
	TmMsgHdr	h;
	struct msghdr m;
	struct iovec iov;
	union
	{
		char		buf[CMSG_SPACE(sizeof(int) * TM_GPUD_MAX_FDS)];
		struct cmsghdr align;
	}			cbuf;

	if (nfds < 0 || nfds > TM_GPUD_MAX_FDS)
	{
		errno = EINVAL;
		return -1;
	}
	memset(&h, 0, sizeof(h));
	h.magic = TM_GPUD_MAGIC;
	h.version = TM_GPUD_PROTO_VERSION;
	h.type = (uint16_t) type;
	h.nfds = (uint32_t) nfds;
	h.len = len;

	memset(&m, 0, sizeof(m));
	iov.iov_base = &h;
	iov.iov_len = sizeof(h);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (nfds > 0)
	{
		struct cmsghdr *c;

		memset(&cbuf, 0, sizeof(cbuf));
		m.msg_control = cbuf.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	for (;;)
	{
		ssize_t		n = sendmsg(sock, &m, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
			{
				if (tm_io_wait(sock, POLLOUT, tick, arg) < 0)
					return -1;
				continue;
			}
			return -1;
		}
		/* the descriptors went with the first byte; send the rest of the header plainly */
		if ((size_t) n < sizeof(h) &&
			tm_io_write_all(sock, (char *) &h + n, sizeof(h) - (size_t) n, tick, arg) < 0)
			return -1;
		break;
	}
	if (len > 0 && tm_io_write_all(sock, payload, (size_t) len, tick, arg) < 0)
		return -1;
	return 0;
}

/*
 * Receive one message: *hdr, the payload in *payload (malloc'd, NULL if empty; the caller frees it) and
 * up to TM_GPUD_MAX_FDS descriptors in fds[] (*nfds of them; the caller closes them).  A message whose
 * magic is wrong, or whose payload exceeds maxlen, fails with EPROTO.  The version is NOT checked here.
 */
static inline int
tm_msg_recv(int sock, TmMsgHdr *hdr, void **payload, int *fds, int *nfds, uint64_t maxlen,
			TmIoTick tick, void *arg)
{
	struct msghdr m;
	struct iovec iov;
	union
	{
		char		buf[CMSG_SPACE(sizeof(int) * TM_GPUD_MAX_FDS)];
		struct cmsghdr align;
	}			cbuf;
	ssize_t		n;
	struct cmsghdr *c;

	*payload = NULL;
	*nfds = 0;
	memset(&m, 0, sizeof(m));
	iov.iov_base = hdr;
	iov.iov_len = sizeof(*hdr);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf.buf;
	m.msg_controllen = sizeof(cbuf.buf);
	for (;;)
	{
		n = recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		{
			if (tm_io_wait(sock, POLLIN, tick, arg) < 0)
				return -1;
			continue;
		}
		break;
	}
	if (n < 0)
		return -1;
	if (n == 0)
	{
		errno = ECONNRESET;
		return -1;
	}
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c))
	{
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		{
			int			k = (int) ((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			int			got[TM_GPUD_MAX_FDS];

			if (k > TM_GPUD_MAX_FDS)
				k = TM_GPUD_MAX_FDS;
			memcpy(got, CMSG_DATA(c), sizeof(int) * k);
			for (int i = 0; i < k; i++)
				fds[(*nfds)++] = got[i];
		}
	}
	if ((size_t) n < sizeof(*hdr) &&
		tm_io_read_all(sock, (char *) hdr + n, sizeof(*hdr) - (size_t) n, tick, arg) < 0)
		goto fail;
	if (hdr->magic != TM_GPUD_MAGIC || hdr->len > maxlen || (m.msg_flags & MSG_CTRUNC))
	{
		errno = EPROTO;
		goto fail;
	}
	if (hdr->len > 0)
	{
		*payload = malloc((size_t) hdr->len);
		if (*payload == NULL)
		{
			errno = ENOMEM;
			goto fail;
		}
		if (tm_io_read_all(sock, *payload, (size_t) hdr->len, tick, arg) < 0)
			goto fail;
	}
	return 0;

fail:
	{
		int			save = errno;

		free(*payload);
		*payload = NULL;
		for (int i = 0; i < *nfds; i++)
			close(fds[i]);
		*nfds = 0;
		errno = save;
	}
	return -1;
}

#endif							/* THEMIS_TM_GPUD_IO_H */
