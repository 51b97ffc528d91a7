/*
 * xover.cu — where the partitioned join overtakes the probe inside the pipeline's kernel, measured through
 * the GPU executor itself (tm_gpu_execute, cuda/tm_gpu_exec.cu): the threshold of
 * themis.join_algorithm = auto (tm_gpu_set_pjoin_l2_factor).
 *
 *   xover [--log2s LIST] [--log2r LIST] [--runs N] [--pool-gib G]
 *
 * Plan (device-resident inputs, as from the column cache):
 *   pipeline 0: R (key int4, a permutation of 0 .. |R|-1; pay int8) -> HASH_BUILD ht 0 (key -> pay)
 *   pipeline 1: S (fk int4 uniform over R's keys; v int8) -> PROBE ht 0 inner on fk
 *               -> AGG: count(*), sum(v), sum(pay)
 * For each |S| (default 2^24, 2^26) and |R| <= |S| (default 2^14 .. 2^26), pipeline 1 runs with
 * TM_GPU_JOIN_PIPELINED, TM_GPU_JOIN_PARTITIONED (GFTR) and TM_GPU_JOIN_PARTITIONED_GFUR; the time of
 * pipeline 1 (TmGpuPipelineStats.time_ms, median of N runs after one warm-up) is reported with the built
 * table's size in multiples of the L2 cache (as the executor counts it: 16-byte key and payload values,
 * payload NULL bytes, directory), and the three results are checked equal (count and both sums).
 *
 * Output: "# " lines (device, L2), a CSV (log2s, log2r, table_over_l2, pipelined_ms, partitioned_ms,
 * gfur_ms, speedup), then "crossover: ..." — the smallest table / L2 ratio from which the partitioned join
 * is faster in every measured case with that ratio or more (per |S| and over all).
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "themis/tm_types.h"
#include "themis/tm_expr.h"
#include "themis/tm_ir.h"
#include "themis/tm_expr_eval.h"
#include "tm_gpu_exec.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static TmType
ty(int kind, int scale = 0)
{
	TmType		t;

	memset(&t, 0, sizeof(t));
	t.kind = (int16_t) kind;
	t.scale = (int16_t) scale;
	t.typmod = -1;
	return t;
}

/* slot s as an expression (one instruction) */
static TmExpr *
slot_expr(int s, TmType t)
{
	size_t		io = (sizeof(TmExpr) + 15) & ~(size_t) 15;
	size_t		total = (io + sizeof(TmInstr) + 15) & ~(size_t) 15;
	TmExpr	   *e = (TmExpr *) calloc(1, total);
	TmInstr    *in = (TmInstr *) ((char *) e + io);

	e->total_size = (int32_t) total;
	e->ninstr = 1;
	e->instr_off = (int32_t) io;
	e->const_off = (int32_t) total;
	e->pool_off = (int32_t) total;
	e->max_stack = 1;
	e->result = t;
	in->op = TMI_PUSH_SLOT;
	in->a = s;
	return e;
}

__global__ void
gen_r(int32_t *key, int64_t *pay, long long n, unsigned long long seed)
{
	for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x)
	{
		/* a permutation of 0 .. n-1: i * odd + c mod n is one when n is a power of two */
		long long	k = (long long) (((unsigned long long) i * 2654435761ULL + seed) & (unsigned long long) (n - 1));

		key[i] = (int32_t) k;
		pay[i] = k * 3 + 1;
	}
}

__global__ void
gen_s(int32_t *fk, int64_t *v, long long n, long long nr, unsigned long long seed)
{
	for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x)
	{
		unsigned long long x = (unsigned long long) i * 0x9E3779B97F4A7C15ULL + seed;

		x ^= x >> 31;
		x *= 0xBF58476D1CE4E5B9ULL;
		x ^= x >> 29;
		fk[i] = (int32_t) (x % (unsigned long long) nr);
		v[i] = (int64_t) (i % 1000);
	}
}

static std::vector<int>
parse_list(const char *s)
{
	std::vector<int> v;

	while (*s)
	{
		v.push_back(atoi(s));
		while (*s && *s != ',')
			s++;
		if (*s == ',')
			s++;
	}
	return v;
}

int
main(int argc, char **argv)
{
	std::vector<int> log2s = {24, 26};
	std::vector<int> log2r = {14, 16, 18, 19, 20, 21, 22, 23, 24, 25, 26};
	int			runs = 3;
	double		pool_gib = 24;
	cudaDeviceProp prop;
	TmGpuPool  *pool;
	char		err[512];
	double		best_all = -1;
	bool		any_all = false;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--log2s") && i + 1 < argc)
			log2s = parse_list(argv[++i]);
		else if (!strcmp(argv[i], "--log2r") && i + 1 < argc)
			log2r = parse_list(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pool-gib") && i + 1 < argc)
			pool_gib = atof(argv[++i]);
		else
		{
			fprintf(stderr, "usage: xover [--log2s LIST] [--log2r LIST] [--runs N] [--pool-gib G]\n");
			return 2;
		}
	}
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("# device: %s, %d SMs, L2 %d bytes\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize);
	if (tm_gpu_pool_create(0, (size_t) (pool_gib * 1073741824.0), &pool, err, sizeof(err)) != TM_GPU_OK)
	{
		fprintf(stderr, "tm_gpu_pool_create: %s\n", err);
		return 1;
	}
	tm_gpu_pool_set_load_balance(pool, TM_GPU_LB_AUTO);
	printf("log2s,log2r,table_over_l2,pipelined_ms,partitioned_ms,gfur_ms,speedup\n");

	for (int ls : log2s)
	{
		long long	ns = 1LL << ls;
		double		best = -1;		/* smallest ratio from which partitioned wins everywhere */
		std::vector<std::pair<double, bool>> seen;
		int32_t    *fk;
		int64_t    *v;

		CK(cudaMalloc(&fk, sizeof(int32_t) * ns));
		CK(cudaMalloc(&v, sizeof(int64_t) * ns));
		for (int lr : log2r)
		{
			long long	nr = 1LL << lr;
			int32_t    *key;
			int64_t    *pay;
			TmGpuColumn rc[2], sc[2];
			TmGpuTable	in[2];
			double		med[3] = {0, 0, 0};
			long long	chk[3][3];
			double		ratio;

			if (lr > ls)
				continue;
			CK(cudaMalloc(&key, sizeof(int32_t) * nr));
			CK(cudaMalloc(&pay, sizeof(int64_t) * nr));
			gen_r<<<1024, 256>>>(key, pay, nr, 12345);
			gen_s<<<1024, 256>>>(fk, v, ns, nr, 777);
			CK(cudaGetLastError());
			CK(cudaDeviceSynchronize());
			memset(rc, 0, sizeof(rc));
			memset(sc, 0, sizeof(sc));
			rc[0].kind = TM_K_INT4;
			rc[0].data = key;
			rc[1].kind = TM_K_INT8;
			rc[1].data = pay;
			sc[0].kind = TM_K_INT4;
			sc[0].data = fk;
			sc[1].kind = TM_K_INT8;
			sc[1].data = v;
			in[0].ncols = 2;
			in[0].nrows = nr;
			in[0].cols = rc;
			in[0].on_device = 1;
			in[1].ncols = 2;
			in[1].nrows = ns;
			in[1].cols = sc;
			in[1].on_device = 1;

			/* the plan */
			TmSlot		rs[2] = {{ty(TM_K_INT4), 0, 0}, {ty(TM_K_INT8), 0, 1}};
			TmSlot		ss[3] = {{ty(TM_K_INT4), 0, 0}, {ty(TM_K_INT8), 0, 1}, {ty(TM_K_INT8), 1, 0}};
			TmExpr	   *bkeys[1] = {slot_expr(0, ty(TM_K_INT4))};
			TmExpr	   *bvals[1] = {slot_expr(1, ty(TM_K_INT8))};
			TmExpr	   *pkeys[1] = {slot_expr(0, ty(TM_K_INT4))};
			TmOp		op;
			TmAgg		aggs[3];
			TmPipeline	pl[2];
			TmType		ktypes[1] = {ty(TM_K_INT4)};
			TmType		ptypes[1] = {ty(TM_K_INT8)};
			TmHashTable ht = {1, ktypes, 1, ptypes};
			TmType		otypes[3] = {ty(TM_K_INT8), ty(TM_K_NUMERIC, 0), ty(TM_K_NUMERIC, 0)};
			TmResult	res = {3, otypes};
			TmPlan		plan;

			memset(&op, 0, sizeof(op));
			op.kind = TM_OP_PROBE;
			op.jointype = TM_JOIN_INNER;
			op.ht = 0;
			op.nkeys = 1;
			op.keys = pkeys;
			memset(aggs, 0, sizeof(aggs));
			aggs[0].kind = TM_AGG_COUNT_STAR;
			aggs[0].restype = otypes[0];
			aggs[1].kind = TM_AGG_SUM;
			aggs[1].arg = slot_expr(1, ty(TM_K_INT8));
			aggs[1].restype = otypes[1];
			aggs[2].kind = TM_AGG_SUM;
			aggs[2].arg = slot_expr(2, ty(TM_K_INT8));
			aggs[2].restype = otypes[2];
			memset(pl, 0, sizeof(pl));
			pl[0].srckind = TM_SRC_TABLE;
			pl[0].nsrccols = 2;
			pl[0].nslots = 2;
			pl[0].slots = rs;
			pl[0].sink.kind = TM_SINK_HASH_BUILD;
			pl[0].sink.target = 0;
			pl[0].sink.nkeys = 1;
			pl[0].sink.keys = bkeys;
			pl[0].sink.nvals = 1;
			pl[0].sink.vals = bvals;
			pl[1].srckind = TM_SRC_TABLE;
			pl[1].nsrccols = 2;
			pl[1].nslots = 3;
			pl[1].slots = ss;
			pl[1].nops = 1;
			pl[1].ops = &op;
			pl[1].sink.kind = TM_SINK_AGG;
			pl[1].sink.target = 0;
			pl[1].sink.naggs = 3;
			pl[1].sink.aggs = aggs;
			memset(&plan, 0, sizeof(plan));
			plan.npipelines = 2;
			plan.pipelines = pl;
			plan.nhashtables = 1;
			plan.hashtables = &ht;
			plan.nresults = 1;
			plan.results = &res;
			plan.output_result = 0;

			for (int m = 0; m < 3; m++)
			{
				static const int algos[3] = {TM_GPU_JOIN_PIPELINED, TM_GPU_JOIN_PARTITIONED,
											 TM_GPU_JOIN_PARTITIONED_GFUR};
				std::vector<double> t;

				tm_gpu_pool_set_join_algorithm(pool, algos[m]);
				for (int r = 0; r <= runs; r++)
				{
					TmGpuTable	out;
					TmGpuPipelineStats st[2];
					int			rc_ = tm_gpu_execute(pool, &plan, in, 2, NULL, NULL, &out, st, NULL, err, sizeof(err));

					if (rc_ != TM_GPU_OK)
					{
						fprintf(stderr, "tm_gpu_execute (log2s %d, log2r %d, algo %d): %s\n", ls, lr, algos[m], err);
						return 1;
					}
					if (algos[m] != TM_GPU_JOIN_PIPELINED && st[1].join_algo != algos[m])
					{
						fprintf(stderr, "log2s %d, log2r %d: the partitioned join did not run (%d)\n", ls, lr,
								st[1].join_algo);
						return 1;
					}
					if (r > 0)
						t.push_back(st[1].time_ms);
					chk[m][0] = *(int64_t *) out.cols[0].data;
					chk[m][1] = (long long) *(int64_t *) out.cols[1].data;	/* low 64 bits of the sums */
					chk[m][2] = (long long) *(int64_t *) out.cols[2].data;
					tm_gpu_table_free(&out);
				}
				std::sort(t.begin(), t.end());
				med[m] = t[t.size() / 2];
			}
			for (int m = 1; m < 3; m++)
				if (chk[m][0] != chk[0][0] || chk[m][1] != chk[0][1] || chk[m][2] != chk[0][2] || chk[0][0] != ns)
				{
					fprintf(stderr, "log2s %d, log2r %d: results differ (count %lld vs %lld)\n", ls, lr, chk[m][0],
							chk[0][0]);
					return 1;
				}
			ratio = (double) nr * (16.0 * 2 + 1 + 32) / (double) prop.l2CacheSize;
			printf("%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f\n", ls, lr, ratio, med[0], med[1], med[2], med[0] / med[1]);
			fflush(stdout);
			seen.push_back({ratio, med[1] < med[0]});
			free(bkeys[0]);
			free(bvals[0]);
			free(pkeys[0]);
			free(aggs[1].arg);
			free(aggs[2].arg);
			CK(cudaFree(key));
			CK(cudaFree(pay));
		}
		/* the smallest ratio r such that every case with ratio >= r is a win */
		std::sort(seen.begin(), seen.end());
		for (size_t i = seen.size(); i > 0 && seen[i - 1].second; i--)
			best = seen[i - 1].first;
		if (best > 0)
			printf("crossover at |S| = 2^%d: partitioned faster from a table of %.2f x L2 on\n", ls, best);
		else
			printf("crossover at |S| = 2^%d: the partitioned join was not faster at the largest table\n", ls);
		if (best > 0 && (!any_all || best > best_all))
			best_all = best;
		any_all = any_all || best > 0;
		CK(cudaFree(fk));
		CK(cudaFree(v));
	}
	if (any_all)
		printf("crossover: partitioned faster in every measured case from %.2f x L2 (threshold in use: %.2f)\n",
			   best_all, tm_gpu_pjoin_l2_factor());
	tm_gpu_pool_destroy(pool, err, sizeof(err));
	return 0;
}
