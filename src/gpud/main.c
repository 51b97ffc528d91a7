/*
 * main.c — themis-gpud, the GPU daemon of themis: start-up and the socket server.
 *
 * Started by the themis supervisor background worker (src/gpud_worker.c) with the data directory as its
 * working directory; it can also be started by hand for tests:
 *
 *   themis-gpud [--socket PATH] [--device N] [--memory-limit BYTES] [--cache-size BYTES] [--verbose]
 *
 * --memory-limit: device memory the daemon takes in all (default: nearly all that is free); --cache-size:
 * the part of it for cached columns and query inputs (default: half), the rest is the executor's work pool.
 *
 * It owns the CUDA context of one device, a device arena for cached columns and query inputs
 * (arena.c) and the executor's work pool (tm_gpu_pool_create), all allocated here, once.  Without a
 * usable device it still serves: HELLO and STATUS say why, EXECUTE answers TMX_ERR_NO_DEVICE, so backends
 * learn it instead of seeing a daemon that keeps restarting.
 *
 * It exits on SIGTERM / SIGINT, when its parent (the supervisor) dies (PR_SET_PDEATHSIG and a getppid
 * check), and when the socket file is removed or replaced.  Messages go to stderr, which the supervisor
 * connects to the server log.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gpud.h"
#include "tm_cuda.h"
#include "themis/tm_gpud_io.h"

GpudState	gpud;
pthread_mutex_t gpud_lock = PTHREAD_MUTEX_INITIALIZER;

static volatile sig_atomic_t stop_requested = 0;
static const char *socket_path = TM_GPUD_SOCKET;
static int	listen_fd = -1;

#define STAGING_BYTES	(32u << 20)

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
	va_list		ap;
	char		buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "themis-gpud[%d]: %s\n", (int) getpid(), buf);
	fflush(stderr);
}

static void
handle_stop(int sig)
{
	stop_requested = 1;
}

static size_t
parse_bytes(const char *s)
{
	char	   *end;
	double		v = strtod(s, &end);

	switch (*end)
	{
		case 'k': case 'K': v *= 1024.0; break;
		case 'm': case 'M': v *= 1024.0 * 1024; break;
		case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
		default: break;
	}
	return v < 0 ? 0 : (size_t) v;
}

/*
 * Find the device, allocate arena, pool and staging; on failure gpud.usable stays false with a reason.
 * Returns false where the failure may pass (the context or memory could not be had: another process
 * holds the device or its memory): the daemon then exits and its supervisor starts it again later.
 */
static bool
setup_device(int dev, size_t limit, size_t cache_size)
{
	TmxStatus  *st = &gpud.status;
	TmCudaDeviceInfo info;
	char		err[256];
	size_t		free_b = 0,
				total_b = 0;
	size_t		arena_b,
				pool_b,
				lmem_b = 0;
	cudaError_t e;
	cudaStream_t stream;
	int			n;

	tm_cuda_versions(&st->runtime_version, &st->driver_version);
	n = tm_cuda_device_count(err, sizeof(err));
	if (n < 0)
	{
		snprintf(st->detail, sizeof(st->detail), "%s", err);
		return true;
	}
	st->ndevices = n;
	if (n == 0)
	{
		snprintf(st->detail, sizeof(st->detail), "no CUDA device found");
		return true;
	}
	if (dev < 0 || dev >= n)
	{
		snprintf(st->detail, sizeof(st->detail), "device %d does not exist (%d found)", dev, n);
		return true;
	}
	if (tm_cuda_device_info(dev, &info, err, sizeof(err)) < 0)
	{
		snprintf(st->detail, sizeof(st->detail), "%s", err);
		return true;
	}
	snprintf(st->name, sizeof(st->name), "%s", info.name);
	st->cc_major = info.cc_major;
	st->cc_minor = info.cc_minor;
	st->mem_total = (int64_t) info.total_mem;
	if (!info.usable)
	{
		snprintf(st->detail, sizeof(st->detail), "%s (sm_%d%d): this build has code for %s only",
				 info.name, info.cc_major, info.cc_minor, tm_cuda_arch_list());
		return true;
	}
	if ((e = cudaSetDevice(dev)) != cudaSuccess)
	{
		snprintf(st->detail, sizeof(st->detail), "CUDA context on device %d: %s", dev, cudaGetErrorString(e));
		return false;
	}
	/* the kernels' stacks first: what is free after them is what the limit below shares out */
	if (tm_gpu_reserve_local_memory(&lmem_b, err, sizeof(err)) != TM_GPU_OK)
	{
		snprintf(st->detail, sizeof(st->detail), "%s", err);
		return false;
	}
	gpud_log("pipeline kernels' stacks resident: %zu bytes a thread", lmem_b);
	if ((e = cudaMemGetInfo(&free_b, &total_b)) != cudaSuccess)
	{
		snprintf(st->detail, sizeof(st->detail), "CUDA context on device %d: %s", dev, cudaGetErrorString(e));
		return false;
	}
	st->mem_free = (int64_t) free_b;
	/* leave room for the context, CUB temporaries outside the pool and other processes */
	if (limit == 0 || limit > free_b - (free_b / 16))
		limit = free_b - free_b / 16 - ((size_t) 512 << 20);
	arena_b = (cache_size > 0 && cache_size < limit - ((size_t) 64 << 20)) ? cache_size : limit / 2;
	pool_b = limit - arena_b;
	if (!arena_init(arena_b, err, sizeof(err)))
	{
		snprintf(st->detail, sizeof(st->detail), "%s", err);
		return false;
	}
	if (tm_gpu_pool_create(dev, pool_b, &gpud.pool, err, sizeof(err)) != TM_GPU_OK)
	{
		snprintf(st->detail, sizeof(st->detail), "work pool of %zu bytes: %s", pool_b, err);
		return false;
	}
	if ((e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)) != cudaSuccess)
	{
		snprintf(st->detail, sizeof(st->detail), "cudaStreamCreate: %s", cudaGetErrorString(e));
		return false;
	}
	gpud.stream = stream;
	gpud.staging_size = STAGING_BYTES;
	for (int i = 0; i < 2; i++)
	{
		cudaEvent_t ev;

		if ((e = cudaHostAlloc(&gpud.staging[i], STAGING_BYTES, cudaHostAllocDefault)) != cudaSuccess ||
			(e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) != cudaSuccess)
		{
			snprintf(st->detail, sizeof(st->detail), "pinned staging buffers: %s", cudaGetErrorString(e));
			return false;
		}
		gpud.staging_ev[i] = ev;
	}
	/* the copies into staging: with one thread the upload runs at a fraction of the DMA's speed */
	(void) pcopy_init(-1);
	st->arena_size = (int64_t) arena_size();
	st->pool_size = (int64_t) pool_b;
	st->usable = 1;
	st->device = dev;
	gpud.device = dev;
	gpud.usable = true;
	snprintf(st->detail, sizeof(st->detail), "%s (sm_%d%d), %.1f GiB cache arena, %.1f GiB work pool",
			 info.name, info.cc_major, info.cc_minor, arena_b / 1073741824.0, pool_b / 1073741824.0);
	return true;
}

static void
fill_status(TmxStatus *out)
{
	pthread_mutex_lock(&gpud_lock);
	*out = gpud.status;
	out->pid = (int32_t) getpid();
	out->arena_used = (int64_t) arena_used();
	out->cache_bytes = cache_bytes();
	out->cache_entries = cache_entries();
	out->pool_peak = gpud.pool ? (int64_t) tm_gpu_pool_peak(gpud.pool) : 0;
	out->queries = gpud.queries;
	out->cache_hits = gpud.cache_hits;
	out->cache_misses = gpud.cache_misses;
	out->uptime_s = gpud_now() - gpud.start_time;
	pthread_mutex_unlock(&gpud_lock);
}

bool
gpud_send_error(int sock, int kind, int gpu_rc, int status, int pipeline, int64_t row, const char *fmt,...)
{
	struct
	{
		TmxError	e;
		char		msg[1024];
	}			m;
	va_list		ap;
	int			len;

	memset(&m, 0, sizeof(m));
	va_start(ap, fmt);
	len = vsnprintf(m.msg, sizeof(m.msg), fmt, ap);
	va_end(ap);
	if (len < 0)
		len = 0;
	if (len >= (int) sizeof(m.msg))
		len = sizeof(m.msg) - 1;
	m.e.kind = kind;
	m.e.gpu_rc = gpu_rc;
	m.e.status = status;
	m.e.pipeline = pipeline;
	m.e.row = row;
	m.e.msglen = len;
	return tm_msg_send(sock, TM_MSG_ERROR, &m, sizeof(TmxError) + len, NULL, 0, NULL, NULL) == 0;
}

/* one connection: requests until the peer closes or a protocol error */
static void *
serve_connection(void *arg)
{
	int			sock = (int) (intptr_t) arg;

	for (;;)
	{
		TmMsgHdr	h;
		void	   *payload = NULL;
		int			fds[TM_GPUD_MAX_FDS];
		int			nfds = 0;
		bool		keep = true;

		if (tm_msg_recv(sock, &h, &payload, fds, &nfds, TM_GPUD_MAX_PAYLOAD, NULL, NULL) < 0)
			break;
		if (h.version != TM_GPUD_PROTO_VERSION)
		{
			gpud_send_error(sock, TMX_ERR_VERSION, 0, 0, -1, -1,
							"themis-gpud speaks protocol version %d, the extension speaks %d: install matching versions of themis and restart the server",
							TM_GPUD_PROTO_VERSION, (int) h.version);
			keep = false;
		}
		else
		{
			switch (h.type)
			{
				case TM_MSG_HELLO:
				case TM_MSG_STATUS:
					{
						TmxStatus	st;

						fill_status(&st);
						keep = tm_msg_send(sock, h.type == TM_MSG_HELLO ? TM_MSG_HELLO_OK : TM_MSG_STATUS_OK,
										   &st, sizeof(st), NULL, 0, NULL, NULL) == 0;
						break;
					}
				case TM_MSG_EXECUTE:
				case TM_MSG_LOAD:
					keep = gpud_handle_exec(sock, h.type, payload, h.len, fds, nfds);
					nfds = 0;	/* taken over */
					break;
				case TM_MSG_CACHE_LIST:
					{
						int64_t		n = 0;
						TmxCacheRow *rows;
						char	   *buf;

						pthread_mutex_lock(&gpud_lock);
						rows = cache_list(&n);
						pthread_mutex_unlock(&gpud_lock);
						buf = rows ? malloc(sizeof(int64_t) + sizeof(TmxCacheRow) * n) : NULL;
						if (buf == NULL)
						{
							keep = gpud_send_error(sock, TMX_ERR_INTERNAL, 0, 0, -1, -1, "out of host memory");
							free(rows);
							break;
						}
						memcpy(buf, &n, sizeof(n));
						memcpy(buf + sizeof(n), rows, sizeof(TmxCacheRow) * n);
						keep = tm_msg_send(sock, TM_MSG_CACHE_ROWS, buf, sizeof(int64_t) + sizeof(TmxCacheRow) * n,
										   NULL, 0, NULL, NULL) == 0;
						free(buf);
						free(rows);
						break;
					}
				case TM_MSG_CACHE_DROP:
					{
						TmxDrop		d;
						int64_t		n;

						if (h.len != sizeof(d))
						{
							keep = false;
							break;
						}
						memcpy(&d, payload, sizeof(d));
						pthread_mutex_lock(&gpud_lock);
						n = cache_drop(d.dboid, d.relid);
						pthread_mutex_unlock(&gpud_lock);
						keep = tm_msg_send(sock, TM_MSG_CACHE_DROPPED, &n, sizeof(n), NULL, 0, NULL, NULL) == 0;
						break;
					}
				default:
					gpud_send_error(sock, TMX_ERR_PROTOCOL, 0, 0, -1, -1, "unknown message type %d", (int) h.type);
					keep = false;
					break;
			}
		}
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		free(payload);
		if (!keep)
			break;
	}
	close(sock);
	return NULL;
}

/* the socket file is still ours (not removed or replaced by another daemon) */
static bool
socket_is_ours(const struct stat *mine)
{
	struct stat now;

	return stat(socket_path, &now) == 0 && now.st_ino == mine->st_ino && now.st_dev == mine->st_dev;
}

int
main(int argc, char **argv)
{
	int			dev = 0;
	size_t		limit = 0;
	size_t		cache_size = 0;
	sigset_t	none;
	struct sockaddr_un addr;
	struct stat mine;
	pid_t		parent = getppid();
	struct sigaction sa;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			socket_path = argv[++i];
		else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
			dev = atoi(argv[++i]);
		else if (strcmp(argv[i], "--memory-limit") == 0 && i + 1 < argc)
			limit = parse_bytes(argv[++i]);
		else if (strcmp(argv[i], "--cache-size") == 0 && i + 1 < argc)
			cache_size = parse_bytes(argv[++i]);
		else if (strcmp(argv[i], "--verbose") == 0)
			gpud.verbose = 1;
		else if (strcmp(argv[i], "--version") == 0)
		{
			printf("themis-gpud protocol %d\n", TM_GPUD_PROTO_VERSION);
			return 0;
		}
		else
		{
			fprintf(stderr, "usage: themis-gpud [--socket PATH] [--device N] [--memory-limit BYTES] [--cache-size BYTES] [--verbose]\n");
			return 2;
		}
	}
	/* started by a PostgreSQL process: nothing of its signal set-up applies here */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handle_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);

	gpud.start_time = gpud_now();
	if (!setup_device(dev, limit, cache_size))
	{
		gpud_log("no usable GPU for now: %s; exiting, to be started again", gpud.status.detail);
		return 3;
	}
	gpud_log("%s%s", gpud.usable ? "ready: " : "no usable GPU: ", gpud.status.detail);

	if (strlen(socket_path) >= sizeof(addr.sun_path))
	{
		gpud_log("socket path too long: %s", socket_path);
		return 1;
	}
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen_fd < 0)
	{
		gpud_log("socket: %s", strerror(errno));
		return 1;
	}
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strcpy(addr.sun_path, socket_path);
	unlink(socket_path);
	umask(077);
	if (bind(listen_fd, (struct sockaddr *) &addr, sizeof(addr)) < 0 || listen(listen_fd, 64) < 0 ||
		stat(socket_path, &mine) < 0)
	{
		gpud_log("cannot listen on %s: %s", socket_path, strerror(errno));
		return 1;
	}

	while (!stop_requested)
	{
		struct pollfd p;
		int			r;

		p.fd = listen_fd;
		p.events = POLLIN;
		r = poll(&p, 1, 500);
		if (getppid() != parent || !socket_is_ours(&mine))
			break;
		if (r > 0)
		{
			int			c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
			struct ucred cred;
			socklen_t	clen = sizeof(cred);
			pthread_t	th;
			pthread_attr_t attr;

			if (c < 0)
				continue;
			if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 || cred.uid != geteuid())
			{
				gpud_log("refused a connection from uid %d", (int) cred.uid);
				close(c);
				continue;
			}
			pthread_attr_init(&attr);
			pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
			if (pthread_create(&th, &attr, serve_connection, (void *) (intptr_t) c) != 0)
			{
				gpud_log("pthread_create: %s", strerror(errno));
				close(c);
			}
			pthread_attr_destroy(&attr);
		}
	}
	if (socket_is_ours(&mine))
		unlink(socket_path);
	gpud_log("exiting");
	/* threads may be in CUDA calls: leave without running destructors */
	_exit(0);
}
