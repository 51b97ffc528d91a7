/*
 * bench/membw.cu — the GPU's measured copy bandwidth, for the scan floors of bench/lib/report.py
 * (issue 6: the GPU time of a scan-heavy query against the time to read its columns once).
 *
 *   bench/bin/membw [MiB]     (default 1024: the themis daemon on the same card leaves little free)
 *
 * Copies a buffer of MiB mebibytes to another on device 0 (cudaMemcpyAsync, device to device), 3 times
 * to warm up and 20 times timed with CUDA events, and prints
 *   device=<name>
 *   copy_bytes=<bytes of one copy>
 *   copy_bytes_per_s=<2 * bytes * 20 / seconds>   (each copy reads and writes its bytes)
 * Exit status 1 with a message on stderr if there is no usable GPU or a CUDA call fails.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
		{ \
			fprintf(stderr, "membw: %s: %s\n", #call, cudaGetErrorString(e_)); \
			return 1; \
		} \
	} while (0)

int
main(int argc, char **argv)
{
	long		mib = argc > 1 ? atol(argv[1]) : 1024;
	size_t		bytes;
	void	   *src = NULL;
	void	   *dst = NULL;
	cudaEvent_t t0,
				t1;
	cudaDeviceProp prop;
	float		ms = 0;
	const int	reps = 20;

	if (mib <= 0)
	{
		fprintf(stderr, "membw: bad size %s (MiB)\n", argv[1]);
		return 1;
	}
	bytes = (size_t) mib << 20;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	CHECK(cudaMalloc(&src, bytes));
	CHECK(cudaMalloc(&dst, bytes));
	CHECK(cudaMemset(src, 1, bytes));
	CHECK(cudaEventCreate(&t0));
	CHECK(cudaEventCreate(&t1));
	for (int i = 0; i < 3; i++)
		CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
	CHECK(cudaEventRecord(t0, 0));
	for (int i = 0; i < reps; i++)
		CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
	CHECK(cudaEventRecord(t1, 0));
	CHECK(cudaEventSynchronize(t1));
	CHECK(cudaEventElapsedTime(&ms, t0, t1));
	if (ms <= 0)
	{
		fprintf(stderr, "membw: no time measured\n");
		return 1;
	}
	printf("device=%s\n", prop.name);
	printf("copy_bytes=%zu\n", bytes);
	printf("copy_bytes_per_s=%.0f\n", 2.0 * (double) bytes * reps / (ms / 1000.0));
	CHECK(cudaFree(src));
	CHECK(cudaFree(dst));
	return 0;
}
