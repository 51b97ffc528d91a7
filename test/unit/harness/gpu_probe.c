/*
 * gpu_probe.c — exits 0 if a CUDA device usable by themis's kernels exists, else prints why and exits 1.
 * Used by run.sh (make unittest) to decide whether test/unit/gpu_*.cu run; links cuda/tm_device.o.
 */
#include <stdio.h>

#include "tm_cuda.h"

int
main(void)
{
	char		err[256];
	int			n = tm_cuda_device_count(err, sizeof(err));

	if (n < 0)
	{
		printf("%s\n", err);
		return 1;
	}
	for (int dev = 0; dev < n; dev++)
	{
		TmCudaDeviceInfo info;

		if (tm_cuda_device_info(dev, &info, err, sizeof(err)) == 0 && info.usable)
		{
			printf("device %d of %d: %s (sm_%d%d)\n", dev, n, info.name, info.cc_major, info.cc_minor);
			return 0;
		}
	}
	if (n == 0)
		printf("no CUDA device found\n");
	else
		printf("no device with compute capability >= %d.%d\n", tm_cuda_min_sm() / 10, tm_cuda_min_sm() % 10);
	return 1;
}
