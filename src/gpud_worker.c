/*
 * gpud_worker.c — the background worker that supervises themis-gpud.
 *
 * Registered by _PG_init when themis is in shared_preload_libraries.  It starts the daemon (fork + exec
 * of $bindir/themis-gpud, or themis.gpud_path) with the data directory as working directory and the
 * server's stderr, restarts it with exponential backoff (1 s doubling to 60 s, back to 1 s after a minute
 * of uptime) whenever it exits or is killed, and stops it (SIGTERM, then SIGKILL after 5 s) when the
 * cluster shuts down.  If the worker itself dies, the daemon gets SIGTERM (PR_SET_PDEATHSIG) and the
 * postmaster restarts the worker; neither event restarts the cluster, since neither process touches
 * PostgreSQL's shared memory.
 */
#include "postgres.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "themis.h"

PGDLLEXPORT void themis_gpud_worker_main(Datum arg);

static volatile sig_atomic_t stop_requested = false;

static void
worker_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	stop_requested = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

void
tm_gpud_worker_register(void)
{
	BackgroundWorker w;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS;
	w.bgw_start_time = BgWorkerStart_PostmasterStart;
	w.bgw_restart_time = 5;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "themis");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "themis_gpud_worker_main");
	snprintf(w.bgw_name, BGW_MAXLEN, "themis GPU daemon supervisor");
	snprintf(w.bgw_type, BGW_MAXLEN, "themis gpud supervisor");
	RegisterBackgroundWorker(&w);
}

static char *
daemon_path(void)
{
	char		dir[MAXPGPATH];

	if (themis_gpud_path != NULL && themis_gpud_path[0] != '\0')
		return pstrdup(themis_gpud_path);
	strlcpy(dir, my_exec_path, sizeof(dir));
	get_parent_directory(dir);
	return psprintf("%s/themis-gpud", dir);
}

static pid_t
start_daemon(const char *path)
{
	char		limit[32];
	char		cache[32];
	char		dev[16];
	pid_t		pid;

	snprintf(limit, sizeof(limit), "%lldM", (long long) themis_gpu_memory_limit);
	snprintf(cache, sizeof(cache), "%lldM", (long long) themis_cache_size);
	snprintf(dev, sizeof(dev), "%d", themis_gpu_device);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
	{
		/* child: no PostgreSQL code from here on */
		char	   *argv[] = {(char *) path, "--device", dev, "--memory-limit", limit, "--cache-size", cache, NULL};
		int			devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0)
		{
			dup2(devnull, 0);
			close(devnull);
		}
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		execv(path, argv);
		fprintf(stderr, "themis: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	return pid;
}

static void
stop_daemon(pid_t pid)
{
	int			status;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 50; i++)
	{
		if (waitpid(pid, &status, WNOHANG) == pid)
			return;
		pg_usleep(100000);
	}
	kill(pid, SIGKILL);
	(void) waitpid(pid, &status, 0);
}

void
themis_gpud_worker_main(Datum arg)
{
	char	   *path;
	pid_t		child = 0;
	TimestampTz started = 0;
	TimestampTz next_start = 0;
	int			backoff_ms = 1000;
	bool		reported_missing = false;

	pqsignal(SIGTERM, worker_sigterm);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();

	path = daemon_path();
	while (!stop_requested)
	{
		TimestampTz now = GetCurrentTimestamp();

		if (child > 0)
		{
			int			status;
			pid_t		r = waitpid(child, &status, WNOHANG);

			if (r == child)
			{
				bool		long_run = TimestampDifferenceExceeds(started, now, 60000);

				if (WIFSIGNALED(status))
					ereport(LOG, (errmsg("themis: GPU daemon (pid %d) was terminated by signal %d: restarting it",
										 (int) child, WTERMSIG(status))));
				else
					ereport(LOG, (errmsg("themis: GPU daemon (pid %d) exited with status %d: restarting it",
										 (int) child, WEXITSTATUS(status))));
				child = 0;
				backoff_ms = long_run ? 1000 : Min(backoff_ms * 2, 60000);
				next_start = TimestampTzPlusMilliseconds(now, long_run ? 0 : backoff_ms);
			}
		}
		if (child == 0 && now >= next_start)
		{
			if (access(path, X_OK) != 0)
			{
				if (!reported_missing)
					ereport(LOG, (errmsg("themis: GPU daemon \"%s\" not found: GPU execution is off", path)));
				reported_missing = true;
				next_start = TimestampTzPlusMilliseconds(now, 60000);
			}
			else
			{
				reported_missing = false;
				child = start_daemon(path);
				if (child < 0)
				{
					ereport(LOG, (errmsg("themis: could not fork the GPU daemon: %m")));
					child = 0;
					next_start = TimestampTzPlusMilliseconds(now, backoff_ms);
				}
				else
					started = now;
			}
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 200, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
	}
	stop_daemon(child);
	proc_exit(0);
}
