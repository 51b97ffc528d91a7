/*
 * tm_trace.h — is THEMIS_GPU_TRACE set in the environment (inherited from the postmaster by backends and
 * the GPU daemon)?  Then the daemon's executor times each step of each pipeline, the daemon says why a
 * cached source missed and how long a request's parts took, and a backend logs each attempt of a GPU run:
 * diagnostics for finding where a query's time goes, off by default.  Read once per process.
 */
#ifndef THEMIS_TM_TRACE_H
#define THEMIS_TM_TRACE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline bool
tm_trace_wanted(void)
{
	static int	wanted = -1;

	if (wanted < 0)
	{
		const char *v = getenv("THEMIS_GPU_TRACE");

		wanted = (v != NULL && v[0] != '\0' && strcmp(v, "0") != 0) ? 1 : 0;
	}
	return wanted == 1;
}

#endif							/* THEMIS_TM_TRACE_H */
