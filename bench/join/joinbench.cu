/*
 * joinbench.cu — join microbenchmark of cuda/tm_pjoin.cu: GFTR ("partitioned"), GFUR
 * ("partitioned_gfur") and the global hash table ("pipelined") on generated relations.
 *
 *   joinbench [options]            one case, every variant asked for: CSV lines on stdout
 *   joinbench --info               the device, its L2 and its measured copy bandwidth
 *   joinbench --csv-header         the CSV header line
 *
 * Options (defaults in brackets):
 *   --log2r N [27]  --log2s N [= log2r]   |R| = 2^N, |S| = 2^N (or --r ROWS / --s ROWS)
 *   --kw 4|8 [4]          key width         --pw 4|8 [4]        payload width
 *   --pcols N [1]         payload columns per side (1..8)
 *   --match F [1.0]       share of S rows whose key is in R
 *   --zipf T [0]          S's foreign keys Zipf(T) over R's keys (0: uniform)
 *   --variants LIST [partitioned,partitioned_gfur,pipelined]
 *   --runs N [5]          timed runs per variant (median reported) after --warmup N [1]
 *   --seed N [42]         --label TEXT (CSV column "label")
 *   --no-keys             do not output S's key column
 *
 * Data, generated on the device: R's keys are a random permutation of 0 .. |R|-1 (a Feistel network
 * with cycle walking), R's payload c of key k is f_c(k); S's key of row j is drawn uniformly or by
 * Zipf(T) (an exact table for the first 2^20 ranks, the integral beyond) over 0 .. |R|-1 with
 * probability match, else from |R| .. 2|R|-1 (no partner); S's payload c of row j is g_c(j).  Keys of
 * 8 bytes are the same numbers times an odd constant (all bits used).
 *
 * Check: every S key below |R| has exactly one partner, so the expected row count and the expected sum
 * over rows of a 64-bit hash of (key, R payloads, S payloads) follow from S alone (one kernel over S).
 * The result of every run is hashed the same way on the device (order does not matter) and compared.
 *
 * Bandwidth: cudaMemcpy device to device of 2 GiB (1 GiB where memory is short), best of 10, counted
 * as bytes read + bytes written per second.  floor = (inputs read once + result written once) / that.
 *
 * Memory: one workspace per case, as large as tm_pjoin_workspace_size says the largest variant needs
 * (less if the device has not that much free: tm_pjoin then batches, and the CSV says so).
 *
 * CSV columns: CSV_FIELDS below; bytes_moved is tm_pjoin's estimate of the variant's own traffic and
 * variant_floor_ms that at the copy bandwidth; carried is TmPjoinStats.first_payload_carried (bits 0 / 1:
 * R's / S's first payload went through the partitioning, bits 2 / 3: packed with the second one, GFTR).
 * Times in ms; throughput in G tuples/s = (|R| + |S|) / time.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tm_pjoin.h"

static const char *CSV_FIELDS[] = {
	"card", "label", "log2r", "log2s", "r_rows", "s_rows", "key_w", "pay_w", "pay_cols", "match", "zipf",
	"variant", "total_ms", "part_r_ms", "part_s_ms", "join_ms", "payload_ms", "gather_ms", "other_ms",
	"tput_gtps", "bytes_moved", "variant_floor_ms", "floor_bytes", "floor_ms", "ratio_to_floor", "peak_bytes",
	"workspace_bytes", "out_rows", "expected_rows", "check", "l2_bytes", "build_bytes", "build_over_l2",
	"copy_gbs", "r_batches", "s_chunks", "part_bits", "work_units", "runs", "min_ms", "max_ms", "carried", NULL
};

#define CK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
		{ \
			fprintf(stderr, "joinbench: %s: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__); \
			exit(2); \
		} \
	} while (0)

typedef unsigned long long ull;

/* ---- hashing and generation (device) ---------------------------------------------------------- */

__host__ __device__ static inline uint64_t
mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

__device__ static inline double
unit01(uint64_t seed, uint64_t j, uint64_t stream)
{
	return (double) (mix64(seed ^ mix64(j * 0x9E3779B97F4A7C15ULL + stream)) >> 11) * (1.0 / 9007199254740992.0);
}

/* a bijection of [0, n): a balanced Feistel network over 2 * half bits with cycle walking */
__device__ static inline uint64_t
permute(uint64_t x, uint64_t n, int half, uint64_t seed)
{
	const uint64_t mask = (1ULL << half) - 1;

	do
	{
		uint64_t	L = x >> half,
					R = x & mask;

		for (int r = 0; r < 4; r++)
		{
			uint64_t	F = mix64(R ^ (seed + 0x632BE59BD9B4E019ULL * (uint64_t) (r + 1))) & mask;
			uint64_t	nl = R;

			R = L ^ F;
			L = nl;
		}
		x = (L << half) | R;
	} while (x >= n);
	return x;
}

/* stored key of logical key k */
__host__ __device__ static inline uint64_t
enc_key(uint64_t k, int kw)
{
	return kw == 4 ? (k & 0xFFFFFFFFULL) : k * 0x9E3779B97F4A7C15ULL;
}

/* R's payload c of logical key k; S's payload c of row j */
__host__ __device__ static inline uint64_t
rpay(uint64_t k, int c, int pw)
{
	uint64_t	v = mix64(k * 31 + (uint64_t) c + 0x1234567ULL);

	return pw == 4 ? (v & 0xFFFFFFFFULL) : v;
}

__host__ __device__ static inline uint64_t
spay(uint64_t j, int c, int pw)
{
	uint64_t	v = mix64(j * 131 + (uint64_t) c * 0x51ED27ULL + 0xABCDEFULL);

	return pw == 4 ? (v & 0xFFFFFFFFULL) : v;
}

__host__ __device__ static inline uint64_t
row_hash(uint64_t key, const uint64_t *r, const uint64_t *s, int pcols, bool with_key)
{
	uint64_t	h = with_key ? mix64(key + 0x77) : 0x9999;

	for (int c = 0; c < pcols; c++)
	{
		h ^= mix64(r[c] + 0x1000 * (uint64_t) (c + 1));
		h = mix64(h);
		h ^= mix64(s[c] + 0x2000 * (uint64_t) (c + 1));
		h = mix64(h);
	}
	return h;
}

__device__ static inline void
dstore(void *p, uint64_t i, uint64_t v, int w)
{
	if (w == 4)
		((uint32_t *) p)[i] = (uint32_t) v;
	else
		((uint64_t *) p)[i] = v;
}

__device__ static inline uint64_t
dload(const void *p, uint64_t i, int w)
{
	return w == 4 ? (uint64_t) ((const uint32_t *) p)[i] : ((const uint64_t *) p)[i];
}

#define MAXC 8

struct Cols
{
	void	   *c[MAXC];
};

__global__ void
gen_r(uint64_t n, int half, uint64_t seed, int kw, int pw, int pcols, void *keys, Cols pay)
{
	for (uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	k = permute(i, n, half, seed);

		dstore(keys, i, enc_key(k, kw), kw);
		for (int c = 0; c < pcols; c++)
			dstore(pay.c[c], i, rpay(k, c, pw), pw);
	}
}

/* Zipf: table[i] = sum_{r=1..i+1} r^-theta for i < T; beyond, the integral of x^-theta from T + 0.5 */
struct ZipfDev
{
	const double *table;
	int64_t		T;
	double		ST;				/* table[T - 1] */
	double		Z;				/* total mass */
	double		theta;
};

__device__ static inline uint64_t
zipf_rank(double u, const ZipfDev &z, uint64_t n)
{
	double		t = u * z.Z;

	if (t < z.ST)
	{
		int64_t		lo = 0,
					hi = z.T - 1;	/* first i with table[i] > t */

		while (lo < hi)
		{
			int64_t		mid = (lo + hi) / 2;

			if (z.table[mid] > t)
				hi = mid;
			else
				lo = mid + 1;
		}
		return (uint64_t) lo;	/* rank lo + 1, key lo */
	}

	double		x0 = (double) z.T + 0.5;
	double		rest = t - z.ST;
	double		x;

	if (fabs(z.theta - 1.0) < 1e-9)
		x = x0 * exp(rest);
	else
	{
		double		a = 1.0 - z.theta;
		double		b = pow(x0, a) + a * rest;

		x = b > 0 ? pow(b, 1.0 / a) : (double) n;
	}

	uint64_t	r = (uint64_t) (x + 0.5);	/* rank */

	if (r < (uint64_t) z.T + 1)
		r = (uint64_t) z.T + 1;
	if (r > n)
		r = n;
	return r - 1;
}

__global__ void
gen_s(uint64_t ns, uint64_t nr, uint64_t seed, int kw, int pw, int pcols, double match, int use_zipf, ZipfDev z,
	  void *keys, Cols pay, unsigned long long *exp_rows, unsigned long long *exp_sum, bool with_key)
{
	unsigned long long rows = 0,
				sum = 0;

	for (uint64_t j = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; j < ns; j += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	k;
		bool		hit = unit01(seed, j, 1) < match;

		if (hit)
			k = use_zipf ? zipf_rank(unit01(seed, j, 2), z, nr) : (uint64_t) (unit01(seed, j, 2) * (double) nr);
		else
			k = nr + (uint64_t) (unit01(seed, j, 3) * (double) nr);
		if (hit && k >= nr)
			k = nr - 1;
		dstore(keys, j, enc_key(k, kw), kw);

		uint64_t	rv[MAXC],
					sv[MAXC];

		for (int c = 0; c < pcols; c++)
		{
			sv[c] = spay(j, c, pw);
			dstore(pay.c[c], j, sv[c], pw);
			rv[c] = rpay(k, c, pw);
		}
		if (hit)
		{
			rows++;
			sum += row_hash(enc_key(k, kw), rv, sv, pcols, with_key);
		}
	}
	atomicAdd(exp_rows, rows);
	atomicAdd(exp_sum, sum);
}

/* the result's rows hashed the same way */
__global__ void
check_out(uint64_t m, int kw, int pw, int pcols, const void *keys, Cols r, Cols s, unsigned long long *sum,
		  bool with_key)
{
	unsigned long long acc = 0;

	for (uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	rv[MAXC],
					sv[MAXC];

		for (int c = 0; c < pcols; c++)
		{
			rv[c] = dload(r.c[c], i, pw);
			sv[c] = dload(s.c[c], i, pw);
		}
		acc += row_hash(with_key ? dload(keys, i, kw) : 0, rv, sv, pcols, with_key);
	}
	atomicAdd(sum, acc);
}

/* ---- host ------------------------------------------------------------------------------------ */

struct Opt
{
	uint64_t	nr = 1ULL << 27;
	uint64_t	ns = 0;
	int			kw = 4;
	int			pw = 4;
	int			pcols = 1;
	double		match = 1.0;
	double		zipf = 0;
	std::vector<std::string> variants = {"partitioned", "partitioned_gfur", "pipelined"};
	int			runs = 5;
	int			warmup = 1;
	uint64_t	seed = 42;
	std::string label = "";
	bool		with_key = true;
};

static int
ilog2(uint64_t n)
{
	int			b = 0;

	while (((uint64_t) 1 << b) < n)
		b++;
	return b;
}

static double
copy_bandwidth(double *gbs)
{
	size_t		freeb = 0,
				total = 0;
	size_t		bytes = (size_t) 2 << 30;
	void	   *a = NULL,
			   *b = NULL;
	cudaEvent_t e0,
				e1;
	float		best = 1e30f;

	CK(cudaMemGetInfo(&freeb, &total));
	if (freeb < 3 * bytes)
		bytes = (size_t) 1 << 30;
	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&b, bytes));
	CK(cudaMemset(a, 1, bytes));
	CK(cudaMemset(b, 2, bytes));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	for (int i = 0; i < 12; i++)
	{
		float		ms = 0;

		CK(cudaEventRecord(e0));
		CK(cudaMemcpyAsync(i % 2 ? a : b, i % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice));
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&ms, e0, e1));
		if (i >= 2 && ms < best)
			best = ms;
	}
	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));
	CK(cudaFree(a));
	CK(cudaFree(b));
	*gbs = 2.0 * (double) bytes / (best / 1000.0) / 1e9;
	return *gbs;
}

static std::string
card_name(void)
{
	cudaDeviceProp p;
	int			dev = 0;

	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&p, dev));

	std::string s = p.name;

	for (char &ch : s)
		if (ch == ',' || ch == ' ')
			ch = ch == ',' ? ';' : '_';
	return s;
}

static int
algo_of(const std::string &v)
{
	if (v == "partitioned" || v == "gftr")
		return TM_PJOIN_GFTR;
	if (v == "partitioned_gfur" || v == "gfur")
		return TM_PJOIN_GFUR;
	if (v == "pipelined")
		return TM_PJOIN_PIPELINED;
	return -1;
}

static void
usage(void)
{
	fprintf(stderr, "usage: joinbench [--info | --csv-header] [--log2r N] [--log2s N] [--r ROWS] [--s ROWS] "
			"[--kw 4|8] [--pw 4|8] [--pcols N] [--match F] [--zipf T] [--variants a,b,c] [--runs N] "
			"[--warmup N] [--seed N] [--label TEXT] [--no-keys]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	Opt			o;
	bool		info = false;

	for (int i = 1; i < argc; i++)
	{
		std::string a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a == "--info")
			info = true;
		else if (a == "--csv-header")
		{
			for (int f = 0; CSV_FIELDS[f] != NULL; f++)
				printf("%s%s", f ? "," : "", CSV_FIELDS[f]);
			printf("\n");
			return 0;
		}
		else if (a == "--no-keys")
			o.with_key = false;
		else if (v == NULL)
			usage();
		else if (a == "--log2r")
			o.nr = 1ULL << atoi(argv[++i]);
		else if (a == "--log2s")
			o.ns = 1ULL << atoi(argv[++i]);
		else if (a == "--r")
			o.nr = strtoull(argv[++i], NULL, 10);
		else if (a == "--s")
			o.ns = strtoull(argv[++i], NULL, 10);
		else if (a == "--kw")
			o.kw = atoi(argv[++i]);
		else if (a == "--pw")
			o.pw = atoi(argv[++i]);
		else if (a == "--pcols")
			o.pcols = atoi(argv[++i]);
		else if (a == "--match")
			o.match = atof(argv[++i]);
		else if (a == "--zipf")
			o.zipf = atof(argv[++i]);
		else if (a == "--runs")
			o.runs = atoi(argv[++i]);
		else if (a == "--warmup")
			o.warmup = atoi(argv[++i]);
		else if (a == "--seed")
			o.seed = strtoull(argv[++i], NULL, 10);
		else if (a == "--label")
			o.label = argv[++i];
		else if (a == "--variants")
		{
			std::string list = argv[++i];
			size_t		p = 0;

			o.variants.clear();
			while (p <= list.size())
			{
				size_t		q = list.find(',', p);

				if (q == std::string::npos)
					q = list.size();
				if (q > p)
					o.variants.push_back(list.substr(p, q - p));
				p = q + 1;
			}
		}
		else
			usage();
	}
	if (o.ns == 0)
		o.ns = o.nr;
	if ((o.kw != 4 && o.kw != 8) || (o.pw != 4 && o.pw != 8) || o.pcols < 1 || o.pcols > MAXC || o.runs < 1 ||
		o.nr < 2 || o.nr > (1ULL << 31) - 1 || o.ns > (1ULL << 31) - 1 || o.ns < 1)
		usage();
	for (auto &v : o.variants)
		if (algo_of(v) < 0)
			usage();

	int			dev = 0,
				l2 = 0,
				nsm = 0;
	double		gbs = 0;

	CK(cudaSetDevice(0));
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
	CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
	copy_bandwidth(&gbs);

	std::string card = card_name();

	if (info)
	{
		size_t		freeb = 0,
					total = 0;

		CK(cudaMemGetInfo(&freeb, &total));
		printf("card=%s\nsms=%d\nl2_bytes=%d\nmemory_bytes=%zu\ncopy_gbs=%.1f\n", card.c_str(), nsm, l2, total, gbs);
		return 0;
	}

	/* ---- generate ---- */
	const uint64_t nr = o.nr,
				ns = o.ns;
	void	   *rk = NULL,
			   *sk = NULL;
	Cols		rp,
				sp;

	memset(&rp, 0, sizeof(rp));
	memset(&sp, 0, sizeof(sp));
	CK(cudaMalloc(&rk, nr * o.kw));
	CK(cudaMalloc(&sk, ns * o.kw));
	for (int c = 0; c < o.pcols; c++)
	{
		CK(cudaMalloc(&rp.c[c], nr * o.pw));
		CK(cudaMalloc(&sp.c[c], ns * o.pw));
	}

	int			half = (ilog2(nr) + 1) / 2;

	if (half < 1)
		half = 1;
	gen_r<<<nsm * 8, 256>>>(nr, half, o.seed, o.kw, o.pw, o.pcols, rk, rp);
	CK(cudaGetLastError());

	ZipfDev		z;
	double	   *dtable = NULL;

	memset(&z, 0, sizeof(z));
	if (o.zipf > 0)
	{
		int64_t		T = (int64_t) std::min<uint64_t>(nr, 1ULL << 20);
		std::vector<double> table((size_t) T);
		double		sum = 0;

		for (int64_t i = 0; i < T; i++)
		{
			sum += pow((double) (i + 1), -o.zipf);
			table[(size_t) i] = sum;
		}

		double		tail = 0;

		if ((uint64_t) T < nr)
		{
			double		a = 1.0 - o.zipf,
						x0 = (double) T + 0.5,
						x1 = (double) nr + 0.5;

			tail = fabs(a) < 1e-9 ? log(x1 / x0) : (pow(x1, a) - pow(x0, a)) / a;
		}
		CK(cudaMalloc(&dtable, (size_t) T * sizeof(double)));
		CK(cudaMemcpy(dtable, table.data(), (size_t) T * sizeof(double), cudaMemcpyHostToDevice));
		z.table = dtable;
		z.T = T;
		z.ST = sum;
		z.Z = sum + tail;
		z.theta = o.zipf;
	}

	unsigned long long *dcnt = NULL;
	unsigned long long hcnt[3] = {0, 0, 0};

	CK(cudaMalloc(&dcnt, 3 * sizeof(ull)));
	CK(cudaMemset(dcnt, 0, 3 * sizeof(ull)));
	gen_s<<<nsm * 8, 256>>>(ns, nr, o.seed * 7 + 1, o.kw, o.pw, o.pcols, o.match, o.zipf > 0, z, sk, sp, dcnt,
							dcnt + 1, o.with_key);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hcnt, dcnt, 2 * sizeof(ull), cudaMemcpyDeviceToHost));

	const ull	expect_rows = hcnt[0],
				expect_sum = hcnt[1];

	if (dtable)
		CK(cudaFree(dtable));

	TmPjoinRelation R,
				S;

	memset(&R, 0, sizeof(R));
	memset(&S, 0, sizeof(S));
	R.nrows = (int64_t) nr;
	R.nkeys = 1;
	R.keys[0].width = o.kw;
	R.keys[0].data = rk;
	R.npayload = o.pcols;
	S.nrows = (int64_t) ns;
	S.nkeys = 1;
	S.keys[0].width = o.kw;
	S.keys[0].data = sk;
	S.npayload = o.pcols;
	for (int c = 0; c < o.pcols; c++)
	{
		R.payload[c].width = o.pw;
		R.payload[c].data = rp.c[c];
		S.payload[c].width = o.pw;
		S.payload[c].data = sp.c[c];
	}

	/* ---- one workspace for every variant ---- */
	cudaStream_t st;
	char		err[512];
	size_t		ws_need = 0;

	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	for (auto &v : o.variants)
	{
		TmPjoinOptions po;
		size_t		need = 0;

		memset(&po, 0, sizeof(po));
		po.algo = algo_of(v);
		po.kind = TM_PJOIN_INNER;
		po.emit_keys = o.with_key;
		po.stream = st;
		if (tm_pjoin_workspace_size(&R, &S, &po, (int64_t) expect_rows, &need, err, sizeof(err)) != TM_PJOIN_OK)
		{
			fprintf(stderr, "joinbench: tm_pjoin_workspace_size: %s\n", err);
			return 2;
		}
		ws_need = std::max(ws_need, need);
	}

	size_t		freeb = 0,
				total = 0;
	void	   *ws = NULL;
	size_t		ws_bytes = ws_need;

	CK(cudaMemGetInfo(&freeb, &total));
	if (freeb < ((size_t) 1 << 30))
	{
		fprintf(stderr, "joinbench: only %zu bytes of device memory free after the inputs\n", freeb);
		return 2;
	}
	if (ws_bytes > freeb - ((size_t) 1 << 29))
		ws_bytes = freeb - ((size_t) 1 << 29);	/* tm_pjoin batches */
	CK(cudaMalloc(&ws, ws_bytes));

	/* result hash buffers */
	unsigned long long *dsum = dcnt + 2;

	/* ---- run ---- */
	const double in_bytes = (double) nr * (o.kw + o.pcols * o.pw) + (double) ns * (o.kw + o.pcols * o.pw);
	const double build_bytes = (double) nr * (o.kw + o.pcols * o.pw);

	for (auto &v : o.variants)
	{
		TmPjoinOptions po;
		std::vector<double> times;
		std::vector<TmPjoinStats> stats;
		std::string check = "ok";
		int64_t		out_rows = -1;

		memset(&po, 0, sizeof(po));
		po.algo = algo_of(v);
		po.kind = TM_PJOIN_INNER;
		po.emit_keys = o.with_key;
		po.stream = st;
		po.workspace = ws;
		po.workspace_bytes = ws_bytes;
		po.out_rows_hint = (int64_t) expect_rows > 0 ? (int64_t) expect_rows : 1;

		for (int it = 0; it < o.warmup + o.runs; it++)
		{
			TmPjoinResult res;
			TmPjoinStats s;

			memset(&res, 0, sizeof(res));
			int			rc = tm_pjoin(&R, &S, &po, &res, &s, err, sizeof(err));

			if (rc != TM_PJOIN_OK)
			{
				fprintf(stderr, "joinbench: %s: tm_pjoin: %d %s\n", v.c_str(), rc, err);
				check = "ERROR";
				break;
			}

			/* check every run's result */
			Cols		ro,
						so;

			memset(&ro, 0, sizeof(ro));
			memset(&so, 0, sizeof(so));
			for (int c = 0; c < o.pcols; c++)
			{
				ro.c[c] = res.r[c].data;
				so.c[c] = res.s[c].data;
			}
			CK(cudaMemsetAsync(dsum, 0, sizeof(ull), st));
			if (res.nrows > 0)
				check_out<<<nsm * 8, 256, 0, st>>>((uint64_t) res.nrows, o.kw, o.pw, o.pcols,
												   o.with_key ? res.keys[0].data : NULL, ro, so, dsum, o.with_key);
			CK(cudaGetLastError());

			ull			got = 0;

			CK(cudaMemcpyAsync(&got, dsum, sizeof(ull), cudaMemcpyDeviceToHost, st));
			CK(cudaStreamSynchronize(st));
			if ((ull) res.nrows != expect_rows)
			{
				char		b[128];

				snprintf(b, sizeof(b), "FAIL_rows_%lld_expected_%llu", (long long) res.nrows, expect_rows);
				check = b;
			}
			else if (got != expect_sum && check == "ok")
				check = "FAIL_checksum";
			out_rows = res.nrows;
			tm_pjoin_result_free(&res, &po);
			if (it >= o.warmup)
			{
				times.push_back(s.total_ms);
				stats.push_back(s);
			}
		}

		/* one CSV line: the fields in CSV_FIELDS order */
		std::vector<std::string> f;
		char		b[256];

#define F(...) do { snprintf(b, sizeof(b), __VA_ARGS__); f.push_back(b); } while (0)
		F("%s", card.c_str());
		F("%s", o.label.c_str());
		F("%d", ilog2(nr));
		F("%d", ilog2(ns));
		F("%llu", (ull) nr);
		F("%llu", (ull) ns);
		F("%d", o.kw);
		F("%d", o.pw);
		F("%d", o.pcols);
		F("%.4f", o.match);
		F("%.2f", o.zipf);
		F("%s", v.c_str());
		if (times.empty())
		{
			for (int k = 0; k < 16; k++)
				f.push_back("");
			F("%llu", expect_rows);
			F("%s", check.c_str());
			F("%d", l2);
			F("%.0f", build_bytes);
			F("%.2f", build_bytes / l2);
			F("%.1f", gbs);
			for (int k = 0; k < 8; k++)
				f.push_back("");
		}
		else
		{
			/* the median run (its phases) */
			std::vector<size_t> idx(times.size());

			for (size_t i = 0; i < idx.size(); i++)
				idx[i] = i;
			std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return times[x] < times[y]; });

			const TmPjoinStats &m = stats[idx[idx.size() / 2]];
			double		pay = 0;

			for (int c = 0; c < TM_PJOIN_MAX_PAYLOAD; c++)
				pay += m.payload_ms_r[c] + m.payload_ms_s[c];

			const double out_bytes = (double) expect_rows * ((o.with_key ? o.kw : 0) + 2.0 * o.pcols * o.pw);
			const double floor_bytes = in_bytes + out_bytes;
			const double floor_ms = floor_bytes / (gbs * 1e9) * 1000.0;

			F("%.3f", m.total_ms);
			F("%.3f", m.phase_ms[TM_PJOIN_PH_PART_R]);
			F("%.3f", m.phase_ms[TM_PJOIN_PH_PART_S]);
			F("%.3f", m.phase_ms[TM_PJOIN_PH_JOIN]);
			F("%.3f", pay);
			F("%.3f", m.phase_ms[TM_PJOIN_PH_GATHER]);
			F("%.3f", m.phase_ms[TM_PJOIN_PH_OTHER]);
			F("%.3f", (double) (nr + ns) / (m.total_ms / 1000.0) / 1e9);
			F("%.0f", m.bytes_moved);
			F("%.3f", m.bytes_moved / (gbs * 1e9) * 1000.0);
			F("%.0f", floor_bytes);
			F("%.3f", floor_ms);
			F("%.2f", m.total_ms / floor_ms);
			F("%zu", m.peak_bytes);
			F("%zu", ws_bytes);
			F("%lld", (long long) out_rows);
			F("%llu", expect_rows);
			F("%s", check.c_str());
			F("%d", l2);
			F("%.0f", build_bytes);
			F("%.2f", build_bytes / l2);
			F("%.1f", gbs);
			F("%d", m.r_batches);
			F("%d", m.s_chunks);
			F("%d", m.part_bits);
			F("%lld", (long long) m.work_units);
			F("%d", (int) times.size());
			F("%.3f", times[idx.front()]);
			F("%.3f", times[idx.back()]);
			F("%d", m.first_payload_carried);
		}
#undef F
		for (size_t k = 0; k < f.size(); k++)
			printf("%s%s", k ? "," : "", f[k].c_str());
		printf("\n");
		fflush(stdout);
	}

	CK(cudaFree(ws));
	CK(cudaStreamDestroy(st));
	CK(cudaFree(dcnt));
	for (int c = 0; c < o.pcols; c++)
	{
		CK(cudaFree(rp.c[c]));
		CK(cudaFree(sp.c[c]));
	}
	CK(cudaFree(rk));
	CK(cudaFree(sk));
	return 0;
}
