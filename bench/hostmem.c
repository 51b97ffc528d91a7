/*
 * bench/hostmem.c — how fast this machine writes memory it has not touched yet, the way a cold load
 * does (src/colbuild_parallel.c: each participant reads its chunks into fresh private memory, then writes
 * them through its own fresh mapping of the leader's memfd).  Where page faults are slow (a virtual
 * machine: on a 2-core VM, 0.3 GB/s for a first write against 16 GB/s for a second one), they, not the
 * reading of the heap, can bound the load; bench/run.sh keeps this next to the cold path's throughput.
 *
 *   bin/hostmem [MiB per process (256)] [processes (8)]
 *
 * Prints one "name GB/s" line each:
 *   private_4k        first write (memset) of fresh private anonymous memory (4 kB pages)
 *   private_thp       the same after MADV_HUGEPAGE (transparent huge pages where the kernel allows)
 *   private_again     the same memory written again: a write without page faults
 *   memfd_map         first write through a fresh shared mapping of a fresh memfd
 *   memfd_populate_map  the same, its pages faulted in first in one call (MADV_POPULATE_WRITE), as the
 *                     request build does for the sources it copies into the request's memfd
 *   memfd_thp_map     memfd_populate_map with huge pages advised over the mapping (MADV_HUGEPAGE, as
 *                     src/colbuild.c's tm_map_shared does): faster only where the kernel gives shared
 *                     memory huge pages (/sys/kernel/mm/transparent_hugepage/shmem_enabled: advise,
 *                     within_size or always; the Debian and Ubuntu default, never, gives memfd_populate_map)
 *   memfd_pwrite      pwrite into a fresh memfd (no mapping: the kernel copies)
 *   memfd_map_xN      N processes at once, each writing its own slice of one fresh memfd through its own
 *                     mapping (what the participants of a load do); GB/s of all of them together
 *   memfd_pwrite_xN   the same with pwrite (writers of one file share its lock)
 *   memfd_thp_map_xN  memfd_map_xN with huge pages advised over each mapping, as a load's participants do
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#ifdef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE_ MADV_POPULATE_WRITE
#else
#define MADV_POPULATE_WRITE_ 23	/* Linux 5.14 */
#endif

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

static int
fresh_memfd(size_t len)
{
	int			fd = memfd_create("hostmem", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, (off_t) len) < 0)
		die("memfd");
	return fd;
}

static char *
map_fd(int fd, size_t len)
{
	char	   *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void
pwrite_all(int fd, const char *buf, size_t len, off_t off, size_t step)
{
	for (size_t done = 0; done < len;)
	{
		size_t		n = len - done < step ? len - done : step;
		ssize_t		w = pwrite(fd, buf, n, off + (off_t) done);

		if (w <= 0)
			die("pwrite");
		done += (size_t) w;
	}
}

/* GB/s of a first write of len bytes through a fresh mapping of a fresh memfd (populate: its pages
 * faulted in first, in one call; huge: huge pages advised over the mapping first) */
static double
map_write(size_t len, const char *src, size_t step, int populate, int huge)
{
	int			fd = fresh_memfd(len);
	char	   *a = map_fd(fd, len);
	double		t0 = now();

	if (huge)
		(void) madvise(a, len, MADV_HUGEPAGE);
	if (populate)
		(void) madvise(a, len, MADV_POPULATE_WRITE_);
	for (size_t o = 0; o < len; o += step)
		memcpy(a + o, src, len - o < step ? len - o : step);
	t0 = now() - t0;
	munmap(a, len);
	close(fd);
	return (double) len / 1e9 / t0;
}

/* nproc processes write their own len-byte slices of one fresh memfd at once: GB/s together (huge: each
 * mapping with huge pages advised) */
static double
parallel_write(size_t len, int nproc, int use_pwrite, int huge, const char *src, size_t step)
{
	int			fd = fresh_memfd(len * nproc);
	int			go[2];
	double		t0,
				t1;

	if (pipe(go) < 0)
		die("pipe");
	for (int i = 0; i < nproc; i++)
	{
		pid_t		pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0)
		{
			char		c;

			close(go[1]);
			if (read(go[0], &c, 1) < 0)	/* all start together: the parent closes the pipe */
				_exit(1);
			if (use_pwrite)
				pwrite_all(fd, src, len, (off_t) (len * i), step);
			else
			{
				char	   *m = map_fd(fd, len * nproc);

				if (huge)
					(void) madvise(m, len * nproc, MADV_HUGEPAGE);
				for (size_t o = 0; o < len; o += step)
					memcpy(m + len * i + o, src, len - o < step ? len - o : step);
			}
			_exit(0);
		}
	}
	close(go[0]);
	t0 = now();
	close(go[1]);
	while (wait(NULL) > 0)
		;
	t1 = now();
	close(fd);
	return (double) len * nproc / 1e9 / (t1 - t0);
}

int
main(int argc, char **argv)
{
	size_t		mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
	int			nproc = argc > 2 ? atoi(argv[2]) : 8;
	size_t		len = mib << 20;
	size_t		step = (size_t) 4 << 20;
	char	   *src,
			   *a;
	int			fd;
	double		t0,
				t1,
				t2;

	if (mib == 0 || nproc < 1)
	{
		fprintf(stderr, "usage: hostmem [MiB per process] [processes]\n");
		return 2;
	}
	/* the source of the copies: written once, so it faults nothing later */
	src = malloc(step);
	if (src == NULL)
		die("malloc");
	memset(src, 7, step);

	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		die("mmap");
	t0 = now();
	memset(a, 1, len);
	t1 = now();
	memset(a, 2, len);
	t2 = now();
	printf("private_4k %.2f\n", len / 1e9 / (t1 - t0));
	printf("private_again %.2f\n", len / 1e9 / (t2 - t1));
	munmap(a, len);

	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		die("mmap");
	(void) madvise(a, len, MADV_HUGEPAGE);
	t0 = now();
	memset(a, 1, len);
	t1 = now();
	printf("private_thp %.2f\n", len / 1e9 / (t1 - t0));
	munmap(a, len);

	printf("memfd_map %.2f\n", map_write(len, src, step, 0, 0));
	/* as the request build copies a source into the request's memfd (src/gpu_run.c, tm_populate_write) */
	printf("memfd_populate_map %.2f\n", map_write(len, src, step, 1, 0));
	printf("memfd_thp_map %.2f\n", map_write(len, src, step, 1, 1));

	fd = fresh_memfd(len);
	t0 = now();
	pwrite_all(fd, src, len, 0, step);
	t1 = now();
	printf("memfd_pwrite %.2f\n", len / 1e9 / (t1 - t0));
	close(fd);

	printf("memfd_map_x%d %.2f\n", nproc, parallel_write(len, nproc, 0, 0, src, step));
	printf("memfd_pwrite_x%d %.2f\n", nproc, parallel_write(len, nproc, 1, 0, src, step));
	printf("memfd_thp_map_x%d %.2f\n", nproc, parallel_write(len, nproc, 0, 1, src, step));
	return 0;
}
