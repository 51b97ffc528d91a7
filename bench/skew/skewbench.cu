/*
 * skewbench.cu — load-balance benchmark of the GPU executor (cuda/tm_gpu_exec.cu): the same TmPlans run
 * with the three schedulers (tm_gpu_pool_set_load_balance: none, nifs, nifs_aws) over generated
 * device-resident tables, and the figures of the probe pipeline printed as CSV.
 *
 *   skewbench [options]              the cases (default: the whole matrix), every mode: CSV on stdout
 *   skewbench --list                 the case names of the matrix
 *   skewbench --info                 the device
 *   skewbench --csv-header           the CSV header line
 *
 * Options: --log2f N [26] fact rows 2^N;  --case NAME (repeatable; default all);  --modes LIST
 * [none,nifs,nifs_aws];  --runs N [3] timed runs per mode (median; 1 where one run takes > 2 s);
 * --warmup N [1];  --quick (log2f 24, a smaller matrix);  --join pipelined|auto|partitioned [pipelined]:
 * the pool's join algorithm (tm_gpu_pool_set_join_algorithm).  pipelined by default: the probes run in
 * the scheduler's kernel, so the modes are compared on the same plans.  auto is the daemon's default,
 * where the multi-match cases' large dim 1 goes to the partitioned join (its own kernels: the modes
 * then differ only in what follows the join).
 *
 * Cases (F: the fact table, 2^log2f rows; dims have 2^20 keys unless said; sinks: "global" = count(*),
 * sum(payload of the last join); "-grp" = the same grouped by F.g, 1024 groups):
 *   pk-<dist>-k<J>      J = 1..4 inner joins, star: F.fk_j -> dim j (primary keys, one match each);
 *                       dist = u (uniform foreign keys), z0.5 / z1.0 / z1.5 (Zipf over the keys, key 0
 *                       hottest).  No fan-out: the work per source row is the same for every row.
 *   mm-z<s>-k<J>        multi-match chain: F.fk_1 (uniform) -> dim 1 whose key r has
 *                       max(1, M / (r + 1)^s) rows (s = 0.5: M = 2^11, 1.0: 2^18, 1.5: 2^21), then
 *                       J - 1 primary-key joins, each on the payload of the previous level.  A few
 *                       source rows (64 per key) meet up to M build rows: the skew of the work.
 *   jcch-k<J>           JCC-H-like: five keys hold a quarter of F (the rest uniform); in dim 1 the five
 *                       have 16 rows each, other keys 2; then J - 1 primary-key joins (chain)
 *   hot-k<J>            one source row meets 2^21 build rows (every other row one), then J - 1
 *                       primary-key joins (chain)
 *
 * CSV columns: card, case, mode, ms (median time of the probe pipeline: its COUNT pass, its RUN pass,
 * the aggregate's result; inputs are on the device, nothing is uploaded), idle_ratio, imbalance,
 * iterations, handoffs (TmGpuPipelineStats of the probe pipeline), then total_ms (the whole
 * tm_gpu_execute, hash builds included), sink_rows, check ("ok": the result equals the none mode's),
 * runs, log2f, joins.
 *
 * The sinks: with nifs / nifs_aws a global aggregate of count / int sum keeps partial states per lane
 * (one atomic per warp at the end); with none every sink row does an atomicAdd on the same words.  The
 * -grp cases aggregate through the group table in every mode (the same code).
 *
 * Build (bench/skew/run.sh does it):
 *   nvcc -arch=sm_90 -O3 -std=c++17 --fmad=false -Iinclude -Icuda bench/skew/skewbench.cu \
 *        cuda/tm_gpu_exec.cu -o skewbench
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "themis/tm_types.h"
#include "themis/tm_expr.h"
#include "themis/tm_ir.h"
#include "themis/tm_expr_eval.h"
#include "tm_gpu_exec.h"

#define CK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
		{ \
			fprintf(stderr, "skewbench: %s: %s (line %d)\n", #call, cudaGetErrorString(e_), __LINE__); \
			exit(2); \
		} \
	} while (0)

static const char *CSV_HEADER =
	"card,case,mode,ms,idle_ratio,imbalance,iterations,handoffs,total_ms,sink_rows,check,runs,log2f,joins";

/* ---- plans (a tiny assembler, as in test/unit/gpu_nifs.cu) ----------------------------------- */

static std::vector<void *> g_allocs;

template <class T>
static T *
mk(size_t n)
{
	T		   *p = (T *) aligned_alloc(16, ((sizeof(T) * (n > 0 ? n : 1)) + 15) & ~(size_t) 15);

	memset((void *) p, 0, sizeof(T) * (n > 0 ? n : 1));
	g_allocs.push_back(p);
	return p;
}

template <class T>
static T *
mkcopy(const std::vector<T> &v)
{
	T		   *p = mk<T>(v.size());

	for (size_t i = 0; i < v.size(); i++)
		p[i] = v[i];
	return p;
}

static TmType
ty(int kind)
{
	TmType		t;

	memset(&t, 0, sizeof(t));
	t.kind = (int16_t) kind;
	t.typmod = -1;
	return t;
}

/* out of line: inlined into x_slot, gcc's -Warray-bounds follows the validator into code for constants */
static bool __attribute__((noinline))
validate(const TmExpr *e)
{
	int			depth[8];

	return tm_expr_validate(e, -1, depth);
}

/* the expression "slot s" of type t */
static TmExpr *
x_slot(int s, TmType t)
{
	size_t		io = 48;
	size_t		total = (io + sizeof(TmInstr) + 15) & ~(size_t) 15;
	TmExpr	   *e = (TmExpr *) mk<char>(total);
	TmInstr    *in = (TmInstr *) ((char *) e + io);

	e->total_size = (int32_t) total;
	e->ninstr = 1;
	e->instr_off = (int32_t) io;
	e->const_off = (int32_t) total;
	e->pool_off = (int32_t) total;
	e->max_stack = TM_EXPR_MAX_STACK;
	e->result = t;
	in->op = TMI_PUSH_SLOT;
	in->a = s;
	if (!validate(e))
	{
		fprintf(stderr, "skewbench: expression does not validate\n");
		exit(2);
	}
	return e;
}

struct PipeB
{
	TmPipeline	pl;
	std::vector<TmSlot> slots;
	std::vector<TmOp> ops;

	PipeB()
	{
		memset(&pl, 0, sizeof(pl));
		pl.srckind = TM_SRC_TABLE;
	}
	int slot(int level, int col)
	{
		TmSlot		s;

		s.type = ty(TM_K_INT4);
		s.level = (int16_t) level;
		s.col = (int16_t) col;
		slots.push_back(s);
		return (int) slots.size() - 1;
	}
	void probe(int ht, TmExpr *key)
	{
		TmOp		op;

		memset(&op, 0, sizeof(op));
		op.kind = TM_OP_PROBE;
		op.jointype = TM_JOIN_INNER;
		op.ht = ht;
		op.nkeys = 1;
		op.keys = mkcopy(std::vector<TmExpr *>{key});
		ops.push_back(op);
	}
	TmPipeline finish()
	{
		pl.nslots = (int) slots.size();
		pl.slots = mkcopy(slots);
		pl.nops = (int) ops.size();
		pl.ops = mkcopy(ops);
		return pl;
	}
};

/* fact columns (int4): fk1 .. fk4, g (group 0 .. 1023), v */
enum { F_FK1, F_FK2, F_FK3, F_FK4, F_G, F_V, F_NCOLS };
/* dim columns (int4): key, payload */
enum { D_K, D_P, D_NCOLS };

/*
 * dims 0 .. J-1 -> HASH_BUILD ht j (k -> p);  F -> PROBE ht 0 on fk1 -> PROBE ht j on (star: fk_j+1;
 * chain: p of level j) -> AGG (global or by g): count(*), sum(p of the last join)
 */
static TmPlan
make_plan(int joins, bool chain, bool grouped)
{
	std::vector<TmPipeline> pipes;
	std::vector<TmHashTable> hts;
	std::vector<TmResult> res;
	PipeB		pf;
	int			g = pf.slot(0, F_G);
	int			p = -1;
	TmPlan		plan;
	TmHashTable h;
	TmResult	r;
	std::vector<TmAgg> aggs(2);
	std::vector<TmType> rt;

	for (int j = 0; j < joins; j++)
	{
		PipeB		pb;
		int			k = pb.slot(0, D_K);
		int			v = pb.slot(0, D_P);

		pb.pl.sink.kind = TM_SINK_HASH_BUILD;
		pb.pl.sink.target = j;
		pb.pl.sink.nkeys = 1;
		pb.pl.sink.keys = mkcopy(std::vector<TmExpr *>{x_slot(k, ty(TM_K_INT4))});
		pb.pl.sink.nvals = 1;
		pb.pl.sink.vals = mkcopy(std::vector<TmExpr *>{x_slot(v, ty(TM_K_INT4))});
		pipes.push_back(pb.finish());
		h.nkeys = 1;
		h.keytypes = mkcopy(std::vector<TmType>{ty(TM_K_INT4)});
		h.npayload = 1;
		h.payloadtypes = mkcopy(std::vector<TmType>{ty(TM_K_INT4)});
		hts.push_back(h);
	}
	for (int j = 0; j < joins; j++)
	{
		int			key = (chain && j > 0) ? p : pf.slot(0, F_FK1 + j);

		pf.probe(j, x_slot(key, ty(TM_K_INT4)));
		p = pf.slot(j + 1, 0);
	}
	memset(aggs.data(), 0, sizeof(TmAgg) * 2);
	aggs[0].kind = TM_AGG_COUNT_STAR;
	aggs[0].restype = ty(TM_K_INT8);
	aggs[1].kind = TM_AGG_SUM;
	aggs[1].arg = x_slot(p, ty(TM_K_INT4));
	aggs[1].restype = ty(TM_K_INT8);
	pf.pl.sink.kind = TM_SINK_AGG;
	pf.pl.sink.target = 0;
	if (grouped)
	{
		pf.pl.sink.nkeys = 1;
		pf.pl.sink.keys = mkcopy(std::vector<TmExpr *>{x_slot(g, ty(TM_K_INT4))});
		rt.push_back(ty(TM_K_INT4));
	}
	pf.pl.sink.naggs = 2;
	pf.pl.sink.aggs = mkcopy(aggs);
	rt.push_back(ty(TM_K_INT8));
	rt.push_back(ty(TM_K_INT8));
	pipes.push_back(pf.finish());
	r.ncols = (int) rt.size();
	r.coltypes = mkcopy(rt);
	res.push_back(r);

	memset(&plan, 0, sizeof(plan));
	plan.npipelines = (int) pipes.size();
	plan.pipelines = mkcopy(pipes);
	plan.nhashtables = (int) hts.size();
	plan.hashtables = mkcopy(hts);
	plan.nresults = 1;
	plan.results = mkcopy(res);
	plan.output_result = 0;
	return plan;
}

/* ---- data ------------------------------------------------------------------------------------- */

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

/* uniform in [0, 1) from a hash */
__host__ __device__ static inline double
unit(uint64_t h)
{
	return (double) (h >> 11) / 9007199254740992.0;
}

enum { FK_UNIFORM, FK_ZIPF, FK_JCCH, FK_HOT };

/*
 * column c of F: FK_UNIFORM over [0, domain); FK_ZIPF by the cdf over [0, domain); FK_JCCH: a quarter
 * of the rows on keys 0 .. 4, the rest uniform over [5, domain); FK_HOT: row hot_row on key 0, the
 * rest uniform over [1, domain).  g: 0 .. 1023, v: -50 .. 50.
 */
__global__ void
gen_fact(int32_t *col, long long n, int c, int how, int domain, const double *cdf, long long hot_row,
		 uint64_t seed)
{
	for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x)
	{
		uint64_t	h = mix64(seed ^ mix64((uint64_t) i * 8 + (uint64_t) c + 1));
		int32_t		v;

		if (c == F_G)
			v = (int32_t) (h % 1024);
		else if (c == F_V)
			v = (int32_t) (h % 101) - 50;
		else if (how == FK_UNIFORM)
			v = (int32_t) (h % (uint64_t) domain);
		else if (how == FK_ZIPF)
		{
			double		u = unit(h);
			int			lo = 0;
			int			hi = domain - 1;

			while (lo < hi)
			{
				int			mid = (lo + hi) / 2;

				if (cdf[mid] < u)
					lo = mid + 1;
				else
					hi = mid;
			}
			v = lo;
		}
		else if (how == FK_JCCH)
			v = (h & 3) == 0 ? (int32_t) ((h >> 8) % 5) : 5 + (int32_t) ((h >> 8) % (uint64_t) (domain - 5));
		else
			v = i == hot_row ? 0 : 1 + (int32_t) (h % (uint64_t) (domain - 1));
		col[i] = v;
	}
}

struct DevTable
{
	std::vector<int32_t *> cols;
	std::vector<TmGpuColumn> gcols;
	TmGpuTable	t;

	void		finish(long long n)
	{
		gcols.resize(cols.size());
		for (size_t c = 0; c < cols.size(); c++)
		{
			memset(&gcols[c], 0, sizeof(TmGpuColumn));
			gcols[c].kind = TM_K_INT4;
			gcols[c].data = cols[c];
		}
		memset(&t, 0, sizeof(t));
		t.ncols = (int32_t) cols.size();
		t.nrows = n;
		t.cols = gcols.data();
		t.on_device = 1;
	}
	void		release()
	{
		for (int32_t *p : cols)
			cudaFree(p);
		cols.clear();
	}
};

/* a dim from its keys (host): payload = a hash of the row, in [0, pdomain) */
static DevTable
make_dim(const std::vector<int32_t> &keys, int pdomain, uint64_t seed)
{
	DevTable	d;
	std::vector<int32_t> pay(keys.size());
	size_t		n = keys.size();

	for (size_t i = 0; i < n; i++)
		pay[i] = (int32_t) (mix64(seed ^ (uint64_t) i) % (uint64_t) pdomain);
	for (int c = 0; c < D_NCOLS; c++)
	{
		int32_t    *p = NULL;

		CK(cudaMalloc(&p, sizeof(int32_t) * (n > 0 ? n : 1)));
		CK(cudaMemcpy(p, c == D_K ? keys.data() : pay.data(), sizeof(int32_t) * n, cudaMemcpyHostToDevice));
		d.cols.push_back(p);
	}
	d.finish((long long) n);
	return d;
}

/* ---- cases ------------------------------------------------------------------------------------ */

struct Case
{
	std::string name;
	int			joins;
	bool		chain;
	bool		grouped;
	int			fk;				/* FK_* of F.fk1 (the others: uniform, or zipf as fk1 for pk-z) */
	double		zipf;			/* pk-z: of every foreign key; mm: of dim 1's multiplicities */
	bool		mm;				/* dim 1 has multiplicities */
};

static std::vector<Case>
matrix(bool quick)
{
	std::vector<Case> m;
	const char *zs[] = {"0.5", "1.0", "1.5"};

	for (int j = 1; j <= 4; j++)
		if (!quick || j == 1 || j == 4)
			m.push_back({"pk-u-k" + std::to_string(j), j, false, false, FK_UNIFORM, 0, false});
	for (int z = 0; z < 3; z++)
		for (int j = 1; j <= 4; j++)
			if (!quick || j == 4)
				m.push_back({std::string("pk-z") + zs[z] + "-k" + std::to_string(j), j, false, false, FK_ZIPF,
							 0.5 * (z + 1), false});
	for (int z = 0; z < 3; z++)
		for (int j : {1, 2, 4})
			if (!quick || j == 2)
				m.push_back({std::string("mm-z") + zs[z] + "-k" + std::to_string(j), j, true, false, FK_UNIFORM,
							 0.5 * (z + 1), true});
	for (int j : {1, 2})
		m.push_back({"jcch-k" + std::to_string(j), j, true, false, FK_JCCH, 0, true});
	for (int j : {1, 2})
		if (!quick || j == 2)
			m.push_back({"hot-k" + std::to_string(j), j, true, false, FK_HOT, 0, true});
	/* through the group table in every mode */
	m.push_back({"pk-u-k4-grp", 4, false, true, FK_UNIFORM, 0, false});
	m.push_back({"mm-z1.0-k2-grp", 2, true, true, FK_UNIFORM, 1.0, true});
	if (!quick)
		m.push_back({"jcch-k2-grp", 2, true, true, FK_JCCH, 0, true});
	return m;
}

#define DIM_KEYS	(1 << 20)

/* dim 1's keys for a multi-match case */
static std::vector<int32_t>
mm_keys(const Case &cs)
{
	std::vector<int32_t> keys;

	if (cs.fk == FK_JCCH)
	{
		for (int k = 0; k < DIM_KEYS; k++)
			for (int m = k < 5 ? 16 : 2; m > 0; m--)
				keys.push_back(k);
	}
	else if (cs.fk == FK_HOT)
	{
		for (int m = 0; m < (1 << 21); m++)
			keys.push_back(0);
		for (int k = 1; k < DIM_KEYS; k++)
			keys.push_back(k);
	}
	else
	{
		double		top = cs.zipf < 0.75 ? (double) (1 << 11) : cs.zipf < 1.25 ? (double) (1 << 18) : (double) (1 << 21);

		for (int k = 0; k < DIM_KEYS; k++)
		{
			long long	m = (long long) (top / pow((double) (k + 1), cs.zipf));

			for (m = m < 1 ? 1 : m; m > 0; m--)
				keys.push_back(k);
		}
	}
	/* build order does not matter (rows of a key are grouped); shuffle anyway */
	for (size_t i = keys.size(); i > 1; i--)
		std::swap(keys[i - 1], keys[mix64(0x5eed ^ i) % i]);
	return keys;
}

/* ---- running ---------------------------------------------------------------------------------- */

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec * 1000.0 + (double) ts.tv_nsec / 1e6;
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

/* the result rows as text (sorted), to compare the modes */
static std::string
result_text(const TmGpuTable &t)
{
	std::vector<std::string> rows;
	std::string all;

	for (int64_t r = 0; r < t.nrows; r++)
	{
		std::string row;

		for (int c = 0; c < t.ncols; c++)
		{
			const TmGpuColumn &col = t.cols[c];

			if (col.nulls[r])
				row += "N|";
			else if (col.kind == TM_K_INT4)
				row += std::to_string(((const int32_t *) col.data)[r]) + "|";
			else
				row += std::to_string((long long) ((const int64_t *) col.data)[r]) + "|";
		}
		rows.push_back(row);
	}
	std::sort(rows.begin(), rows.end());
	for (auto &r : rows)
		all += r + "\n";
	return all;
}

struct Measure
{
	bool		ok;
	double		ms;
	double		total_ms;
	TmGpuPipelineStats st;
	std::string text;
	char		err[512];
};

static Measure
run_once(TmGpuPool *pool, const TmPlan &plan, const std::vector<TmGpuTable> &inputs)
{
	Measure		m;
	std::vector<TmGpuPipelineStats> stats((size_t) plan.npipelines);
	TmGpuTable	out;
	TmGpuFailure fl;
	double		t0 = now_ms();
	int			rc;

	memset(&out, 0, sizeof(out));
	m.err[0] = '\0';
	rc = tm_gpu_execute(pool, &plan, inputs.data(), (int) inputs.size(), NULL, NULL, &out, stats.data(), &fl,
						m.err, sizeof(m.err));
	m.total_ms = now_ms() - t0;
	m.ok = rc == TM_GPU_OK;
	if (!m.ok)
		return m;
	m.st = stats[(size_t) plan.npipelines - 1];
	m.ms = m.st.time_ms;
	m.text = result_text(out);
	tm_gpu_table_free(&out);
	return m;
}

static const char *const mode_names[] = {"none", "nifs", "nifs_aws"};

static void
run_case(TmGpuPool *pool, const Case &cs, int log2f, const std::vector<int> &modes, int runs, int warmup,
		 const std::string &card)
{
	long long	n = 1LL << log2f;
	DevTable	F;
	std::vector<DevTable> dims;
	std::vector<TmGpuTable> inputs;
	double	   *dcdf = NULL;
	TmPlan		plan = make_plan(cs.joins, cs.chain, cs.grouped);
	std::string ref;
	bool		have_ref = false;

	fprintf(stderr, "== %s (F = 2^%d rows, %d join%s)\n", cs.name.c_str(), log2f, cs.joins, cs.joins > 1 ? "s" : "");
	/* Zipf cdf over the dim keys (pk-z) */
	if (cs.fk == FK_ZIPF)
	{
		std::vector<double> cdf(DIM_KEYS);
		double		sum = 0;

		for (int i = 0; i < DIM_KEYS; i++)
		{
			sum += 1.0 / pow((double) (i + 1), cs.zipf);
			cdf[i] = sum;
		}
		for (auto &x : cdf)
			x /= sum;
		CK(cudaMalloc(&dcdf, sizeof(double) * DIM_KEYS));
		CK(cudaMemcpy(dcdf, cdf.data(), sizeof(double) * DIM_KEYS, cudaMemcpyHostToDevice));
	}
	for (int c = 0; c < F_NCOLS; c++)
	{
		int32_t    *p = NULL;
		int			how = FK_UNIFORM;

		CK(cudaMalloc(&p, sizeof(int32_t) * (size_t) n));
		if (c == F_FK1)
			how = cs.fk;
		else if (c <= F_FK4 && cs.fk == FK_ZIPF)
			how = FK_ZIPF;
		gen_fact<<<1024, 256>>>(p, n, c, how, DIM_KEYS, dcdf, n / 3, 0xC0FFEEULL);
		CK(cudaGetLastError());
		F.cols.push_back(p);
	}
	CK(cudaDeviceSynchronize());
	F.finish(n);
	for (int j = 0; j < cs.joins; j++)
	{
		std::vector<int32_t> keys;

		if (j == 0 && cs.mm)
			keys = mm_keys(cs);
		else
			for (int k = 0; k < DIM_KEYS; k++)
				keys.push_back(k);
		dims.push_back(make_dim(keys, DIM_KEYS, 0xD1 + (uint64_t) j));
	}
	for (auto &d : dims)
		inputs.push_back(d.t);
	inputs.push_back(F.t);

	for (int mode : modes)
	{
		std::vector<Measure> ms;
		Measure		med;
		int			nr = runs;

		tm_gpu_pool_set_load_balance(pool, mode);
		for (int w = 0; w < warmup; w++)
		{
			Measure		m = run_once(pool, plan, inputs);

			if (!m.ok)
			{
				fprintf(stderr, "   %s: failed: %s\n", mode_names[mode], m.err);
				break;
			}
			if (m.total_ms > 2000)
				nr = 1;			/* slow: one timed run */
		}
		for (int r = 0; r < nr; r++)
		{
			Measure		m = run_once(pool, plan, inputs);

			if (!m.ok)
			{
				fprintf(stderr, "   %s: failed: %s\n", mode_names[mode], m.err);
				ms.clear();
				break;
			}
			ms.push_back(m);
		}
		if (ms.empty())
		{
			printf("%s,%s,%s,,,,,,,,failed,0,%d,%d\n", card.c_str(), cs.name.c_str(), mode_names[mode], log2f,
				   cs.joins);
			fflush(stdout);
			continue;
		}
		std::sort(ms.begin(), ms.end(), [](const Measure &a, const Measure &b) { return a.ms < b.ms; });
		med = ms[ms.size() / 2];
		if (!have_ref)
		{
			ref = med.text;
			have_ref = true;
		}
		printf("%s,%s,%s,%.3f,%.4f,%.3f,%lld,%lld,%.3f,%lld,%s,%zu,%d,%d\n", card.c_str(), cs.name.c_str(),
			   mode_names[mode], med.ms, med.st.idle_ratio, med.st.imbalance, (long long) med.st.warp_iterations,
			   (long long) med.st.handoffs, med.total_ms, (long long) med.st.sink_rows,
			   med.text == ref ? "ok" : "MISMATCH", ms.size(), log2f, cs.joins);
		fflush(stdout);
		fprintf(stderr, "   %-8s %10.3f ms  idle %.3f  imbalance %.2f  hand-offs %lld  sink rows %lld  join %s%s\n",
				mode_names[mode], med.ms, med.st.idle_ratio, med.st.imbalance, (long long) med.st.handoffs,
				(long long) med.st.sink_rows,
				med.st.join_algo == TM_GPU_JOIN_PIPELINED ? "pipelined" : "partitioned",
				med.text == ref ? "" : "  RESULT DIFFERS");
	}
	tm_gpu_pool_set_load_balance(pool, TM_GPU_LB_NONE);
	F.release();
	for (auto &d : dims)
		d.release();
	if (dcdf != NULL)
		cudaFree(dcdf);
}

static void
usage(void)
{
	fprintf(stderr, "usage: skewbench [--info | --list | --csv-header] [--log2f N] [--case NAME]... "
			"[--modes none,nifs,nifs_aws] [--join pipelined|auto|partitioned] [--runs N] [--warmup N] [--quick]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	int			log2f = 26;
	int			runs = 3;
	int			warmup = 1;
	bool		quick = false;
	bool		list = false;
	bool		info = false;
	std::vector<std::string> only;
	std::vector<int> modes = {TM_GPU_LB_NONE, TM_GPU_LB_NIFS, TM_GPU_LB_NIFS_AWS};
	bool		log2f_set = false;
	int			join = TM_GPU_JOIN_PIPELINED;

	for (int i = 1; i < argc; i++)
	{
		std::string a = argv[i];
		bool		more = i + 1 < argc;

		if (a == "--csv-header")
		{
			printf("%s\n", CSV_HEADER);
			return 0;
		}
		else if (a == "--info")
			info = true;
		else if (a == "--list")
			list = true;
		else if (a == "--quick")
			quick = true;
		else if (a == "--log2f" && more)
		{
			log2f = atoi(argv[++i]);
			log2f_set = true;
		}
		else if (a == "--case" && more)
			only.push_back(argv[++i]);
		else if (a == "--runs" && more)
			runs = std::max(1, atoi(argv[++i]));
		else if (a == "--warmup" && more)
			warmup = std::max(0, atoi(argv[++i]));
		else if (a == "--join" && more)
		{
			std::string s = argv[++i];

			if (s == "pipelined")
				join = TM_GPU_JOIN_PIPELINED;
			else if (s == "auto")
				join = TM_GPU_JOIN_AUTO;
			else if (s == "partitioned")
				join = TM_GPU_JOIN_PARTITIONED;
			else
				usage();
		}
		else if (a == "--modes" && more)
		{
			std::string s = argv[++i];

			modes.clear();
			for (int m = 0; m < 3; m++)
				if (("," + s + ",").find("," + std::string(mode_names[m]) + ",") != std::string::npos)
					modes.push_back(m);
			if (modes.empty())
				usage();
		}
		else
			usage();
	}
	if (quick && !log2f_set)
		log2f = 24;
	if (log2f < 10 || log2f > 30)
		usage();

	std::vector<Case> cases = matrix(quick);

	if (list)
	{
		for (auto &c : matrix(false))
			printf("%s\n", c.name.c_str());
		return 0;
	}

	int			ndev = 0;

	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)
	{
		fprintf(stderr, "skewbench: no GPU\n");
		return 2;
	}
	CK(cudaSetDevice(0));

	std::string card = card_name();

	if (info)
	{
		cudaDeviceProp p;
		size_t		fr,
					total;

		CK(cudaGetDeviceProperties(&p, 0));
		CK(cudaMemGetInfo(&fr, &total));
		printf("card=%s\nsms=%d\nl2_bytes=%d\nmemory_bytes=%zu\n", card.c_str(), p.multiProcessorCount,
			   p.l2CacheSize, total);
		return 0;
	}
	if (!only.empty())
	{
		std::vector<Case> sel;

		for (auto &c : matrix(false))
			if (std::find(only.begin(), only.end(), c.name) != only.end())
				sel.push_back(c);
		if (sel.size() != only.size())
		{
			fprintf(stderr, "skewbench: unknown case (see --list)\n");
			return 2;
		}
		cases = sel;
	}

	/* the executor's pool: half the free memory (at most 24 GiB); the tables live beside it */
	size_t		fr = 0,
				total = 0;
	TmGpuPool  *pool = NULL;
	char		err[512];

	CK(cudaMemGetInfo(&fr, &total));
	size_t		pool_bytes = std::min(fr / 2, (size_t) 24 << 30);

	if (tm_gpu_pool_create(0, pool_bytes, &pool, err, sizeof(err)) != TM_GPU_OK)
	{
		fprintf(stderr, "skewbench: tm_gpu_pool_create: %s\n", err);
		return 2;
	}
	tm_gpu_pool_set_join_algorithm(pool, join);
	for (auto &c : cases)
		run_case(pool, c, log2f, modes, runs, warmup, card);
	tm_gpu_pool_destroy(pool, err, sizeof(err));
	for (void *p : g_allocs)
		free(p);
	return 0;
}
