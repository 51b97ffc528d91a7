/*
 * bench/jit/constshape.cu — would a kernel compiled at run time for one pipeline pay (issue 6)?
 *
 * The profiles of TPC-H Q1 and of the skewed Q14 (bench/reports/2026-12-07-h100-sf1-ncu-q1-q15 and
 * 2026-12-07-h100-sf10-checks) put the generic pipeline kernel's time in issuing its interpreter's
 * instructions and in local memory for its dynamically indexed slot array.  This measures that part on
 * Q1's aggregate arguments, and what compiling a kernel for them at run time costs:
 *
 *   generic: as pipeline_kernel does it: the columns loaded into a slot array at the slots the load
 *            descriptors name, each argument a slot or a TmFastArith in device memory, run by
 *            tm_fast_arith_eval, the sums in an array indexed by the aggregate;
 *   jit:     the source this program writes for the same descriptors: each column in a variable, each
 *            instruction of each argument one call of tm_arith_addsubmul (the arithmetic
 *            tm_fast_arith_eval runs, in the same order) with literal operands, each sum a variable;
 *            compiled with NVRTC (the program's headers: include/themis/tm_expr_eval.h and
 *            bench/jit/constshape_dev.cuh), loaded and launched through the runtime (cudaLibrary*).
 *
 * Both run over the same generated columns (numeric(15,2): quantity, price, discount, tax), with the same
 * grid (every SM full, grid-stride), and end the same way (constshape_dev.cuh); their sums must be equal.
 * Group keys, filters and the aggregate update of the real kernel are not part of it.
 *
 *   bench/bin/constshape [rows] [repository root]   (default 60000000 rows, the current directory)
 *
 * Prints the card, NVRTC's compile time, each kernel's registers, local memory and median time of 7
 * alternating runs, ns per row, and the ratio; exit status 1 if a call fails or the sums differ.
 */
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "constshape_dev.cuh"
#include "tm_nvrtc.h"

#define RUNS 7

#define CHECK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
		{ \
			fprintf(stderr, "constshape: %s: %s\n", #call, cudaGetErrorString(e_)); \
			exit(1); \
		} \
	} while (0)
#define CHECK_RTC(call) \
	do { \
		nvrtcResult e_ = (call); \
		if (e_ != NVRTC_SUCCESS) \
		{ \
			fprintf(stderr, "constshape: %s: %s\n", #call, nvrtcGetErrorString(e_)); \
			exit(1); \
		} \
	} while (0)

/* an argument: kind 0 count(*), 1 a slot (arg), 2 a TmFastArith (fa[arg]) */
typedef struct CsDesc
{
	int			nload;
	int			col[CS_NCOL];	/* column i into slot slot[i] */
	int			slot[CS_NCOL];
	int			nagg;			/* CS_NAGG, read at run time as pipeline_kernel reads its counts */
	int			kind[CS_NAGG];
	int			arg[CS_NAGG];
	TmFastArith fa[2];
} CsDesc;

/* ---------------------------------------------------------------- the generic form */

__global__ void __launch_bounds__(CS_TPB)
cs_generic(CsCols C, const CsDesc *__restrict__ D, CsOut *o)
{
	TmValue		slots[16];
	bool		nulls[16];
	tm_int128	acc[CS_NAGG];
	int			err = 0;
	long long	stride = (long long) gridDim.x * blockDim.x;

	for (int s = 0; s < 16; s++)
	{
		slots[s].n = 0;
		nulls[s] = false;
	}
	for (int a = 0; a < CS_NAGG; a++)
		acc[a] = 0;
	for (long long row = (long long) blockIdx.x * blockDim.x + threadIdx.x; row < C.n; row += stride)
	{
		for (int i = 0; i < D->nload; i++)
			slots[D->slot[i]].n = C.num[D->col[i]][row];
		for (int a = 0; a < D->nagg; a++)
		{
			tm_int128	v = 1;

			if (D->kind[a] == 1)
				v = slots[D->arg[a]].n;
			else if (D->kind[a] == 2)
			{
				TmValue		r;
				bool		isnull;
				TmStatus	st = tm_fast_arith_eval(&D->fa[D->arg[a]], slots, nulls, &r, &isnull);

				if (st != TM_OK && err == 0)
					err = (int) st;
				v = isnull ? 0 : r.n;
			}
			acc[a] += v;
		}
	}
	cs_flush(acc, err, o);
}

/* ---------------------------------------------------------------- the generated form */

/* a 128-bit constant as C source */
static void
put_i128(char **p, tm_int128 x)
{
	tm_uint128	u = (tm_uint128) x;

	*p += sprintf(*p, "(tm_int128) (((tm_uint128) 0x%llxULL << 64) | (tm_uint128) 0x%llxULL)",
				  (unsigned long long) (u >> 64), (unsigned long long) u);
}

/*
 * The kernel "cs_jit" for D, as C source into buf: what a generator of pipeline kernels would write for
 * these arguments.  Columns are known to have no NULLs, so no NULL flag is carried.
 */
static void
write_source(const CsDesc *D, char *buf)
{
	char	   *p = buf;

	p += sprintf(p, "#include \"constshape_dev.cuh\"\n\n"
				 "extern \"C\" __global__ void __launch_bounds__(CS_TPB)\n"
				 "cs_jit(CsCols C, CsOut *o)\n{\n"
				 "\tlong long stride = (long long) gridDim.x * blockDim.x;\n\tint err = 0;\n");
	for (int a = 0; a < CS_NAGG; a++)
		p += sprintf(p, "\ttm_int128 acc%d = 0;\n", a);
	p += sprintf(p, "\tfor (long long row = (long long) blockIdx.x * blockDim.x + threadIdx.x; row < C.n; "
				 "row += stride)\n\t{\n");
	for (int i = 0; i < D->nload; i++)
		p += sprintf(p, "\t\tTmValue s%d; s%d.n = C.num[%d][row];\n", D->slot[i], D->slot[i], D->col[i]);
	for (int a = 0; a < CS_NAGG; a++)
	{
		if (D->kind[a] == 0)
			p += sprintf(p, "\t\tacc%d += 1;\n", a);
		else if (D->kind[a] == 1)
			p += sprintf(p, "\t\tacc%d += s%d.n;\n", a, D->arg[a]);
		else
		{
			const TmFastArith *fa = &D->fa[D->arg[a]];

			p += sprintf(p, "\t\t{\n\t\t\tTmValue r0, r1, r2, r3, v;\n\t\t\tTmStatus st;\n");
			for (int i = 0; i < fa->n; i++)
			{
				const TmFaInstr *f = &fa->ins[i];

				if (f->op == TMI_PUSH_SLOT)
					p += sprintf(p, "\t\t\tr%d = s%d;\n", f->reg, f->a);
				else if (f->op == TMI_PUSH_CONST)
				{
					p += sprintf(p, "\t\t\tr%d.n = ", f->reg);
					put_i128(&p, fa->k[i].n);
					p += sprintf(p, ";\n");
				}
				else
					p += sprintf(p, "\t\t\tst = tm_arith_addsubmul(%d, %d, %d, %d, r%d, r%d, &v);\n"
								 "\t\t\tif (st != TM_OK && err == 0) err = (int) st;\n\t\t\tr%d = v;\n",
								 f->op, f->kind, f->a, f->b, f->reg, f->reg + 1, f->reg);
			}
			p += sprintf(p, "\t\t\tacc%d += r0.n;\n\t\t}\n", a);
		}
	}
	p += sprintf(p, "\t}\n\t{\n\t\ttm_int128 acc[CS_NAGG] = {");
	for (int a = 0; a < CS_NAGG; a++)
		p += sprintf(p, "%sacc%d", a ? ", " : "", a);
	p += sprintf(p, "};\n\n\t\tcs_flush(acc, err, o);\n\t}\n}\n");
}


static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* the columns: hashes of the row number in Q1's ranges (scaled by 100) */
__global__ void
cs_fill(tm_int128 *q, tm_int128 *p, tm_int128 *d, tm_int128 *t, long long n)
{
	for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (long long) gridDim.x * blockDim.x)
	{
		unsigned long long h = (unsigned long long) i * 0x9E3779B97F4A7C15ULL;

		h ^= h >> 29;
		q[i] = (tm_int128) (100 * (1 + h % 50));
		p[i] = (tm_int128) (90000 + (h >> 8) % 10400000);
		d[i] = (tm_int128) ((h >> 40) % 11);
		t[i] = (tm_int128) ((h >> 50) % 9);
	}
}

static int
cmp_float(const void *a, const void *b)
{
	float		x = *(const float *) a,
				y = *(const float *) b;

	return (x > y) - (x < y);
}

/* a TmFastArith instruction */
static TmFaInstr
fa_ins(int op, int kind, int reg, int a, int b)
{
	TmFaInstr	f;

	memset(&f, 0, sizeof(f));
	f.op = (uint8_t) op;
	f.kind = (uint8_t) kind;
	f.reg = (uint8_t) reg;
	f.a = a;
	f.b = b;
	return f;
}

/* the generated form of D compiled by NVRTC for sm_<major><minor>: its cubin, and the time it took */
static void
compile_jit(const CsDesc *D, const char *root, int major, int minor, char **cubin, size_t *size, double *ms)
{
	char	   *src = (char *) malloc(1 << 16);
	char		inc1[1024],
				inc2[1024],
				arch[64];
	nvrtcProgram prog;
	const char *opts[3 + TM_NVRTC_NOPTS];
	nvrtcResult rc;
	double		t0;

	write_source(D, src);
	if (getenv("CONSTSHAPE_SOURCE") != NULL)
		fputs(src, stdout);
	snprintf(inc1, sizeof(inc1), "-I%s/include", root);
	snprintf(inc2, sizeof(inc2), "-I%s/bench/jit", root);
	snprintf(arch, sizeof(arch), "--gpu-architecture=sm_%d%d", major, minor);
	opts[0] = arch;
	opts[1] = inc1;
	opts[2] = inc2;
	for (int i = 0; i < TM_NVRTC_NOPTS; i++)
		opts[3 + i] = tm_nvrtc_opts[i];
	t0 = now_ms();
	CHECK_RTC(nvrtcCreateProgram(&prog, src, "cs_jit.cu", TM_NVRTC_NHEADERS, tm_nvrtc_headers,
								 tm_nvrtc_header_names));
	rc = nvrtcCompileProgram(prog, 3 + TM_NVRTC_NOPTS, opts);
	*ms = now_ms() - t0;
	if (rc != NVRTC_SUCCESS)
	{
		size_t		ls;
		char	   *log;

		CHECK_RTC(nvrtcGetProgramLogSize(prog, &ls));
		log = (char *) malloc(ls + 1);
		CHECK_RTC(nvrtcGetProgramLog(prog, log));
		fprintf(stderr, "constshape: NVRTC: %s\n%s\nsource:\n%s\n", nvrtcGetErrorString(rc), log, src);
		exit(1);
	}
	CHECK_RTC(nvrtcGetCUBINSize(prog, size));
	*cubin = (char *) malloc(*size);
	CHECK_RTC(nvrtcGetCUBIN(prog, *cubin));
	CHECK_RTC(nvrtcDestroyProgram(&prog));
	free(src);
}

int
main(int argc, char **argv)
{
	long long	n = argc > 1 ? atoll(argv[1]) : 60000000LL;
	const char *root = argc > 2 ? argv[2] : ".";
	CsDesc		D;
	CsDesc	   *dD;
	CsCols		C;
	CsOut	   *dout;
	CsOut		out[2];
	tm_int128  *cols[CS_NCOL];
	cudaDeviceProp prop;
	int			dev = 0,
				ndev = 0;
	int			nb_gen = 0,
				nb_jit = 0;
	float		t_gen[RUNS],
				t_jit[RUNS];
	cudaEvent_t e0,
				e1;
	double		t0,
				t_rtc;
	size_t		cubin_size;
	char	   *cubin;
	cudaLibrary_t lib;
	cudaKernel_t fn;
	cudaFuncAttributes ga,
				ja;

	/* Q1's arguments; the columns in slots 3, 7, 9, 12 (as a pipeline's slots come) */
	memset(&D, 0, sizeof(D));
	D.nload = 4;
	D.col[0] = 0, D.slot[0] = 3;	/* l_quantity */
	D.col[1] = 1, D.slot[1] = 7;	/* l_extendedprice */
	D.col[2] = 2, D.slot[2] = 9;	/* l_discount */
	D.col[3] = 3, D.slot[3] = 12;	/* l_tax */
	D.nagg = CS_NAGG;
	D.kind[0] = 0;				/* count(*) */
	D.kind[1] = 1, D.arg[1] = 3;	/* sum(l_quantity) */
	D.kind[2] = 1, D.arg[2] = 7;	/* sum(l_extendedprice) */
	D.kind[3] = 2, D.arg[3] = 0;	/* sum(l_extendedprice * (1 - l_discount)) */
	D.kind[4] = 2, D.arg[4] = 1;	/* sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) */
	D.kind[5] = 1, D.arg[5] = 3;	/* avg(l_quantity)'s sum */
	D.kind[6] = 1, D.arg[6] = 7;	/* avg(l_extendedprice)'s sum */
	D.kind[7] = 1, D.arg[7] = 9;	/* avg(l_discount)'s sum */
	/* price * (1 - disc): scales 2, 0 - 2 -> 2, 2 * 2 -> 4 */
	D.fa[0].n = 5;
	D.fa[0].ins[0] = fa_ins(TMI_PUSH_SLOT, 0, 0, 7, 0);
	D.fa[0].ins[1] = fa_ins(TMI_PUSH_CONST, 0, 1, 0, 0);
	D.fa[0].k[1].n = 1;
	D.fa[0].ins[2] = fa_ins(TMI_PUSH_SLOT, 0, 2, 9, 0);
	D.fa[0].ins[3] = fa_ins(TMI_SUB, TM_K_NUMERIC, 1, 0, 2);
	D.fa[0].ins[4] = fa_ins(TMI_MUL, TM_K_NUMERIC, 0, 2, 2);
	/* ... * (1 + tax): 0 + 2 -> 2, 4 * 2 -> 6 */
	D.fa[1] = D.fa[0];
	D.fa[1].n = 9;
	D.fa[1].ins[5] = fa_ins(TMI_PUSH_CONST, 0, 1, 0, 0);
	D.fa[1].k[5].n = 1;
	D.fa[1].ins[6] = fa_ins(TMI_PUSH_SLOT, 0, 2, 12, 0);
	D.fa[1].ins[7] = fa_ins(TMI_ADD, TM_K_NUMERIC, 1, 0, 2);
	D.fa[1].ins[8] = fa_ins(TMI_MUL, TM_K_NUMERIC, 0, 4, 2);

	/* no GPU (the CPU machines): the generated source is compiled for sm_90, and that is all */
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1)
	{
		compile_jit(&D, root, 9, 0, &cubin, &cubin_size, &t_rtc);
		printf("no GPU: the generated source compiled for sm_90 in %.1f ms (%zu bytes), nothing run\n",
			   t_rtc, cubin_size);
		return 0;
	}
	CHECK(cudaSetDevice(dev));
	CHECK(cudaGetDeviceProperties(&prop, dev));
	CHECK(cudaFree(0));			/* the primary context, where the generated form's library goes */
	printf("device=%s (sm_%d%d, %d SMs)\nrows=%lld\n", prop.name, prop.major, prop.minor,
		   prop.multiProcessorCount, n);
	compile_jit(&D, root, prop.major, prop.minor, &cubin, &cubin_size, &t_rtc);
	t0 = now_ms();
	CHECK(cudaLibraryLoadData(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0));
	CHECK(cudaLibraryGetKernel(&fn, lib, "cs_jit"));
	printf("nvrtc_compile_ms=%.1f\ncubin_bytes=%zu\nmodule_load_ms=%.1f\n", t_rtc, cubin_size, now_ms() - t0);
	CHECK(cudaFuncGetAttributes(&ja, (const void *) fn));
	CHECK(cudaFuncGetAttributes(&ga, cs_generic));
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb_gen, cs_generic, CS_TPB, 0));
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb_jit, (const void *) fn, CS_TPB, 0));

	/* the data */
	for (int c = 0; c < CS_NCOL; c++)
	{
		CHECK(cudaMalloc((void **) &cols[c], sizeof(tm_int128) * (size_t) n));
		C.num[c] = cols[c];
	}
	C.n = n;
	cs_fill<<<prop.multiProcessorCount * 8, 256>>>(cols[0], cols[1], cols[2], cols[3], n);
	CHECK(cudaGetLastError());
	CHECK(cudaMalloc((void **) &dD, sizeof(D)));
	CHECK(cudaMemcpy(dD, &D, sizeof(D), cudaMemcpyHostToDevice));
	CHECK(cudaMalloc((void **) &dout, sizeof(CsOut) * 2));
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	CHECK(cudaDeviceSynchronize());

	/* alternating runs; the first of each is a warm-up, not counted */
	for (int r = -1; r < RUNS; r++)
	{
		float		ms;
		CsOut	   *o1 = dout + 1;
		void	   *args[] = {&C, &o1};

		CHECK(cudaMemset(dout, 0, sizeof(CsOut) * 2));
		CHECK(cudaEventRecord(e0));
		cs_generic<<<prop.multiProcessorCount * nb_gen, CS_TPB>>>(C, dD, dout);
		CHECK(cudaGetLastError());
		CHECK(cudaEventRecord(e1));
		CHECK(cudaEventSynchronize(e1));
		CHECK(cudaEventElapsedTime(&ms, e0, e1));
		if (r >= 0)
			t_gen[r] = ms;
		CHECK(cudaEventRecord(e0));
		CHECK(cudaLaunchKernel((const void *) fn, dim3(prop.multiProcessorCount * nb_jit), dim3(CS_TPB), args, 0, 0));
		CHECK(cudaEventRecord(e1));
		CHECK(cudaEventSynchronize(e1));
		CHECK(cudaEventElapsedTime(&ms, e0, e1));
		if (r >= 0)
			t_jit[r] = ms;
		CHECK(cudaMemcpy(out, dout, sizeof(CsOut) * 2, cudaMemcpyDeviceToHost));
		if (memcmp(&out[0], &out[1], sizeof(CsOut)) != 0)
		{
			fprintf(stderr, "constshape: the two forms' sums differ (run %d)\n", r);
			for (int a = 0; a < CS_NAGG; a++)
				fprintf(stderr, "  sum %d: %016llx%016llx %016llx%016llx\n", a, out[0].hi[a], out[0].lo[a],
						out[1].hi[a], out[1].lo[a]);
			return 1;
		}
	}
	qsort(t_gen, RUNS, sizeof(float), cmp_float);
	qsort(t_jit, RUNS, sizeof(float), cmp_float);
	printf("error_status=%d\n", out[0].err);
	printf("generic: %d registers, %zu bytes local, %d blocks/SM, median %.3f ms (%.3f-%.3f), %.3f ns/row\n",
		   ga.numRegs, ga.localSizeBytes, nb_gen, t_gen[RUNS / 2], t_gen[0], t_gen[RUNS - 1],
		   t_gen[RUNS / 2] * 1e6 / (double) n);
	printf("jit:     %d registers, %zu bytes local, %d blocks/SM, median %.3f ms (%.3f-%.3f), %.3f ns/row\n",
		   ja.numRegs, ja.localSizeBytes, nb_jit, t_jit[RUNS / 2], t_jit[0], t_jit[RUNS - 1], t_jit[RUNS / 2] * 1e6 / (double) n);
	printf("generic/jit=%.2f\n", t_gen[RUNS / 2] / t_jit[RUNS / 2]);
	CHECK(cudaLibraryUnload(lib));
	return 0;
}
