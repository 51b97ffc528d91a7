/*
 * test_gpud_pcopy.c — the daemon's threaded memcpy (src/gpud/pcopy.c), without a GPU:
 *
 *   - every size around the slice boundaries (whole cache lines per thread, the rest to the last), with
 *     misaligned sources and destinations, copies exactly the bytes asked and nothing beyond them;
 *   - pools of 0, 1, 3 and 8 threads, a thousand jobs in a row (no lost wake-up), restart after shutdown.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tm_unit.h"
#include "../../src/gpud/pcopy.c"

/* copy n bytes from src + so to dst + dof (dst filled with 0xEE first); check the copy and the guards */
static void
check_copy(const char *src, char *dst, size_t cap, size_t so, size_t dof, size_t n, const char *what)
{
	bool		ok = true;

	memset(dst, 0xEE, cap);
	pcopy(dst + dof, src + so, n);
	if (memcmp(dst + dof, src + so, n) != 0)
		ok = false;
	for (size_t i = 0; i < dof && ok; i++)
		ok = (unsigned char) dst[i] == 0xEE;
	for (size_t i = dof + n; i < cap && ok; i++)
		ok = (unsigned char) dst[i] == 0xEE;
	TM_CHECK_MSG(ok, "%s: %zu bytes (src +%zu, dst +%zu)", what, n, so, dof);
}

int
main(void)
{
	size_t		cap = (size_t) 24 << 20;
	char	   *src = malloc(cap);
	char	   *dst = malloc(cap);
	int			pools[] = {0, 1, 3, 8};

	tm_unit_current = "pcopy";

	for (size_t i = 0; i < cap; i++)
		src[i] = (char) (i * 2654435761u >> 13);

	for (int p = 0; p < 4; p++)
	{
		int			started = pcopy_init(pools[p]);
		char		what[64];
		size_t		base[] = {0, 1, PCOPY_MIN_PARALLEL - 1, PCOPY_MIN_PARALLEL, PCOPY_MIN_PARALLEL + 1,
							  (size_t) 5 << 20, (size_t) 16 << 20, cap - 4096};

		snprintf(what, sizeof(what), "pool of %d", pools[p]);
		TM_CHECK_MSG(started == pools[p], "%s: %d threads started", what, started);
		for (int b = 0; b < 8; b++)
			for (size_t d = 0; d < 3; d++)
			{
				size_t		n = base[b] + d * 63;

				if (n + 200 > cap)
					continue;
				check_copy(src, dst, cap, d * 7, d * 13 + (size_t) b, n, what);
			}
		/* many small-but-parallel jobs in a row: every job waits for all of its slices */
		for (int j = 0; j < 1000; j++)
		{
			size_t		n = PCOPY_MIN_PARALLEL + (size_t) (j * 4099) % 65536;

			memset(dst, 0, n + 64);
			pcopy(dst, src + j, n);
			if (memcmp(dst, src + j, n) != 0 || dst[n] != 0)
			{
				TM_CHECK_MSG(false, "%s: job %d of 1000 (%zu bytes)", what, j, n);
				break;
			}
		}
		pcopy_shutdown();
	}
	free(src);
	free(dst);
	return tm_unit_done();
}
