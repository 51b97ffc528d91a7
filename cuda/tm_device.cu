/*
 * tm_device.cu — CUDA device discovery for themis (see tm_cuda.h).
 *
 * themis.so links the CUDA runtime statically; the runtime loads the driver (libcuda.so.1) only at the
 * first CUDA call, so themis.so loads on machines without an NVIDIA driver, and these functions report
 * why no GPU can be used instead of failing.  Nothing here creates a CUDA context.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "tm_cuda.h"

/* nvcc defines __CUDA_ARCH_LIST__ as the virtual architectures of this compilation, e.g. 800,900 */
#ifdef __CUDA_ARCH_LIST__
static const int tm_arch_list[] = {__CUDA_ARCH_LIST__};
#else
static const int tm_arch_list[] = {800};
#endif
#define TM_NARCH ((int) (sizeof(tm_arch_list) / sizeof(tm_arch_list[0])))

static void
set_err(char *err, int errlen, const char *what, cudaError_t rc)
{
	if (err == NULL || errlen <= 0)
		return;
	snprintf(err, (size_t) errlen, "%s: %s (%s, %d)", what, cudaGetErrorString(rc),
			 cudaGetErrorName(rc), (int) rc);
}

extern "C" int
tm_cuda_min_sm(void)
{
	int			m = tm_arch_list[0];

	for (int i = 1; i < TM_NARCH; i++)
		if (tm_arch_list[i] < m)
			m = tm_arch_list[i];
	return m / 10;
}

extern "C" const char *
tm_cuda_arch_list(void)
{
	static char buf[128];

	if (buf[0] == '\0')
	{
		size_t		len = 0;

		for (int i = 0; i < TM_NARCH && len < sizeof(buf) - 16; i++)
			len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%ssm_%d",
									 i > 0 ? " " : "", tm_arch_list[i] / 10);
	}
	return buf;
}

extern "C" void
tm_cuda_versions(int *runtime_version, int *driver_version)
{
	int			v;

	if (runtime_version)
	{
		v = 0;
		if (cudaRuntimeGetVersion(&v) != cudaSuccess)
			v = 0;
		*runtime_version = v;
	}
	if (driver_version)
	{
		/* 0 when no driver can be loaded; does not initialize the driver */
		v = 0;
		if (cudaDriverGetVersion(&v) != cudaSuccess)
			v = 0;
		*driver_version = v;
	}
}

extern "C" int
tm_cuda_device_count(char *err, int errlen)
{
	int			n = 0;
	int			drv = 0;
	cudaError_t rc;

	if (err && errlen > 0)
		err[0] = '\0';

	rc = cudaDriverGetVersion(&drv);
	if (rc == cudaSuccess && drv == 0)
	{
		if (err && errlen > 0)
			snprintf(err, (size_t) errlen, "no NVIDIA driver found (libcuda.so.1 cannot be loaded)");
		return -1;
	}

	rc = cudaGetDeviceCount(&n);
	if (rc != cudaSuccess)
	{
		if (rc == cudaErrorInsufficientDriver && drv > 0)
		{
			int			rt = 0;

			(void) cudaRuntimeGetVersion(&rt);
			if (err && errlen > 0)
				snprintf(err, (size_t) errlen,
						 "NVIDIA driver too old: it supports CUDA %d.%d, themis was built with CUDA %d.%d",
						 drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
		}
		else
			set_err(err, errlen, "cudaGetDeviceCount", rc);
		/* clear the runtime's sticky last error */
		(void) cudaGetLastError();
		return -1;
	}
	return n;
}

extern "C" int
tm_cuda_device_info(int dev, TmCudaDeviceInfo *info, char *err, int errlen)
{
	cudaDeviceProp prop;
	cudaError_t rc;
	int			sm;

	if (err && errlen > 0)
		err[0] = '\0';
	memset(info, 0, sizeof(*info));

	rc = cudaGetDeviceProperties(&prop, dev);
	if (rc != cudaSuccess)
	{
		set_err(err, errlen, "cudaGetDeviceProperties", rc);
		(void) cudaGetLastError();
		return -1;
	}
	snprintf(info->name, sizeof(info->name), "%s", prop.name);
	info->cc_major = prop.major;
	info->cc_minor = prop.minor;
	info->multiprocessors = prop.multiProcessorCount;
	info->total_mem = prop.totalGlobalMem;
	sm = prop.major * 10 + prop.minor;
	info->usable = (sm >= tm_cuda_min_sm()) ? 1 : 0;
	return 0;
}
