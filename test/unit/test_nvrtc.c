/*
 * test_nvrtc.c — the pipeline kernel's device code (cuda/tm_pipeline_dev.cuh) compiles with NVRTC, as
 * kernels generated per pipeline will be compiled at run time (bench/jit/constshape.cu).  NVRTC only
 * compiles, so no GPU is needed; libnvrtc is loaded at run time from the CUDA toolkit (CUDA_HOME, default
 * /usr/local/cuda), and where there is none the test says "skipped" (test/unit/harness/run.sh).
 *
 *   - the header alone: every function that is not a template, the others parsed;
 *   - a source with an error fails, with NVRTC's log (the check above can fail);
 *   - TM_NVRTC_FULL set: pipeline_kernel<false> and <true> instantiated and compiled whole (about 2.5 min
 *     on a 2-core machine, hence not by default), their lowered names found.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tm_unit.h"
#include "tm_nvrtc.h"

/* the part of nvrtc.h used here (the library is opened with dlopen) */
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

static struct
{
	nvrtcResult (*create) (nvrtcProgram *, const char *, const char *, int, const char *const *,
						   const char *const *);
	nvrtcResult (*compile) (nvrtcProgram, int, const char *const *);
	nvrtcResult (*log_size) (nvrtcProgram, size_t *);
	nvrtcResult (*log) (nvrtcProgram, char *);
	nvrtcResult (*cubin_size) (nvrtcProgram, size_t *);
	nvrtcResult (*add_name) (nvrtcProgram, const char *);
	nvrtcResult (*lowered_name) (nvrtcProgram, const char *, const char **);
	nvrtcResult (*destroy) (nvrtcProgram *);
	const char *(*error_string) (nvrtcResult);
} rtc;

static char cuda_home[512];
static char inc_cuda[600];
static char inc_cccl[600];
static bool have_cccl;

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* libnvrtc and the toolkit's headers; false (and why) where they are not there */
static bool
load_nvrtc(char *why, size_t whylen)
{
	const char *home = getenv("CUDA_HOME");
	char		path[600];
	void	   *h;

	snprintf(cuda_home, sizeof(cuda_home), "%s", home && *home ? home : "/usr/local/cuda");
	snprintf(inc_cuda, sizeof(inc_cuda), "%s/include", cuda_home);
	if (!is_dir(inc_cuda))
	{
		snprintf(why, whylen, "no CUDA toolkit headers at %s", inc_cuda);
		return false;
	}
	/* CUDA 13 keeps <cuda/std/...> (cooperative_groups.h includes them) under include/cccl */
	snprintf(inc_cccl, sizeof(inc_cccl), "%s/include/cccl", cuda_home);
	have_cccl = is_dir(inc_cccl);
	snprintf(path, sizeof(path), "%s/lib64/libnvrtc.so", cuda_home);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		h = dlopen("libnvrtc.so", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
	{
		snprintf(why, whylen, "no libnvrtc (%s)", dlerror());
		return false;
	}
#define SYM(field, name) \
	do { \
		*(void **) &rtc.field = dlsym(h, name); \
		if (rtc.field == NULL) \
		{ \
			snprintf(why, whylen, "libnvrtc without %s", name); \
			return false; \
		} \
	} while (0)
	SYM(create, "nvrtcCreateProgram");
	SYM(compile, "nvrtcCompileProgram");
	SYM(log_size, "nvrtcGetProgramLogSize");
	SYM(log, "nvrtcGetProgramLog");
	SYM(cubin_size, "nvrtcGetCUBINSize");
	SYM(add_name, "nvrtcAddNameExpression");
	SYM(lowered_name, "nvrtcGetLoweredName");
	SYM(destroy, "nvrtcDestroyProgram");
	SYM(error_string, "nvrtcGetErrorString");
#undef SYM
	return true;
}

/*
 * src compiled for sm_90 with themis's include paths (the repository root is the current directory, as
 * under make unittest); names: name expressions to add (NULL-terminated, or NULL).  Returns NVRTC's status;
 * *log gets its log (malloc'd), *cubin its cubin's size, *ms the time, lowered[i] each name's lowered form.
 */
static nvrtcResult
compile(const char *src, const char *const *names, char **log, size_t *cubin, double *ms,
		const char **lowered)
{
	nvrtcProgram prog;
	char		i_cuda[610],
				i_cccl[610];
	const char *opts[5 + TM_NVRTC_NOPTS];
	int			nopts = 0;
	nvrtcResult rc;
	size_t		ls = 0;
	struct timespec t0,
				t1;

	snprintf(i_cuda, sizeof(i_cuda), "-I%s", inc_cuda);
	snprintf(i_cccl, sizeof(i_cccl), "-I%s", inc_cccl);
	opts[nopts++] = "--gpu-architecture=sm_90";
	opts[nopts++] = "-Iinclude";
	opts[nopts++] = "-Icuda";
	opts[nopts++] = i_cuda;
	if (have_cccl)
		opts[nopts++] = i_cccl;
	for (int i = 0; i < TM_NVRTC_NOPTS; i++)
		opts[nopts++] = tm_nvrtc_opts[i];
	if (rtc.create(&prog, src, "tm_nvrtc_test.cu", TM_NVRTC_NHEADERS, tm_nvrtc_headers,
				   tm_nvrtc_header_names) != 0)
		return -1;
	for (int i = 0; names != NULL && names[i] != NULL; i++)
		rtc.add_name(prog, names[i]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = rtc.compile(prog, nopts, opts);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	rtc.log_size(prog, &ls);
	*log = malloc(ls + 1);
	(*log)[0] = '\0';
	rtc.log(prog, *log);
	*cubin = 0;
	if (rc == 0)
	{
		rtc.cubin_size(prog, cubin);
		/* the lowered names belong to the program: copied before it goes */
		for (int i = 0; names != NULL && names[i] != NULL; i++)
		{
			const char *ln = NULL;

			lowered[i] = rtc.lowered_name(prog, names[i], &ln) == 0 && ln != NULL ? strdup(ln) : NULL;
		}
	}
	rtc.destroy(&prog);
	return rc;
}

static void
test_header(void)
{
	char	   *log;
	size_t		cubin;
	double		ms;
	nvrtcResult rc = compile("#include \"tm_pipeline_dev.cuh\"\n", NULL, &log, &cubin, &ms, NULL);

	TM_CHECK_MSG(rc == 0, "NVRTC: %s\n%s", rc >= 0 ? rtc.error_string(rc) : "create failed", log);
	TM_CHECK(cubin > 0);
	printf("  tm_pipeline_dev.cuh: %.0f ms, %zu bytes of cubin\n", ms, cubin);
	free(log);
}

static void
test_error_reported(void)
{
	char	   *log;
	size_t		cubin;
	double		ms;
	nvrtcResult rc = compile("#include \"tm_pipeline_dev.cuh\"\n__device__ int f(void) { return no_such_name; }\n",
							 NULL, &log, &cubin, &ms, NULL);

	TM_CHECK(rc != 0);
	TM_CHECK_MSG(strstr(log, "no_such_name") != NULL, "log: %s", log);
	free(log);
}

static void
test_full_kernel(void)
{
	const char *names[] = {"pipeline_kernel<false>", "pipeline_kernel<true>", NULL};
	const char *lowered[2] = {NULL, NULL};
	char	   *log;
	size_t		cubin;
	double		ms;
	nvrtcResult rc = compile("#include \"tm_pipeline_dev.cuh\"\n", names, &log, &cubin, &ms, lowered);

	TM_CHECK_MSG(rc == 0, "NVRTC: %s\n%s", rc >= 0 ? rtc.error_string(rc) : "create failed", log);
	for (int i = 0; i < 2; i++)
		TM_CHECK_MSG(lowered[i] != NULL && strstr(lowered[i], "pipeline_kernel") != NULL, "%s: %s", names[i],
					 lowered[i] ? lowered[i] : "(none)");
	printf("  pipeline_kernel<false>, <true>: %.0f ms, %zu bytes of cubin\n", ms, cubin);
	free(log);
}

int
main(void)
{
	char		why[700];

	if (!load_nvrtc(why, sizeof(why)))
	{
		printf("skipped: %s\n", why);
		return tm_unit_done();
	}
	TM_RUN(test_header);
	TM_RUN(test_error_reported);
	if (getenv("TM_NVRTC_FULL") != NULL)
		TM_RUN(test_full_kernel);
	return tm_unit_done();
}
