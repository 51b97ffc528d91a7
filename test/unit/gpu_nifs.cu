/*
 * gpu_nifs.cu — tests of the Themis scheduler of the GPU executor (cuda/tm_gpu_exec.cu: nifs_kernel,
 * tm_gpu_pool_set_load_balance): every plan runs with TM_GPU_LB_NONE, TM_GPU_LB_NIFS and
 * TM_GPU_LB_NIFS_AWS (the last two also with few warps: tm_gpu_set_lb_max_warps 1, 3, 40, where hand-offs
 * and idle waits are frequent), and the rows (as multisets: NIFS emits in no particular order), the
 * stats and the errors are compared with a host reference interpreter of the IR written here (the shared
 * tm_eval / tm_sum_add / tm_values_cmp, depth first, std::map hash tables and groups).
 *
 * Covered: 1-4 inner joins over a fact table with foreign keys uniform and Zipf 0.5 / 1.0 / 1.5 (star and
 * chain), multi-match joins (duplicate build keys, skewed multiplicities), a JCC-H-like case (five keys
 * hold a quarter of the fact table and have many build rows), one source row with 150000 matches (the
 * range is split across warps), inner / semi / anti / left probes with and without residual quals
 * (NULL keys on both sides, a residual across three levels, the NULL row of a LEFT probe feeding later
 * probes), filters at every level, AGG grouped / global / DISTINCT / FILTER clauses / text min and max,
 * EMIT, HASH_BUILD fed by a join and probed later, an AGG result read by a later pipeline, expression
 * errors (one bad tuple deep in the tree: its source row, in every mode and over chunks; errors in
 * EMIT values, aggregate arguments, build keys), chunked host inputs (tm_gpu_set_max_chunk_rows),
 * device-resident inputs, empty inputs, and the load-balance figures (idle_ratio in [0, 1], imbalance
 * >= 1, iterations > 0, no hand-offs without AWS, all zero with NONE; AWS hands work off and balances the
 * single skewed row better than NIFS).  Cancel (tm_gpu_pool_cancel): a join of 10^12 tuples canceled from
 * another thread ends with TM_GPU_ERR_CANCELED within a second in every mode (AWS with few warps too,
 * where warps wait idle), also in a match loop whose residual no match passes, and the pool is right
 * afterwards.
 *
 * Prints "N passed, N failed" (tm_unit.h); without a usable GPU it says it skipped and passes.
 *
 *   nvcc -gencode arch=compute_90,code=sm_90 -std=c++17 --fmad=false -Iinclude -Icuda -Itest/unit \
 *        test/unit/gpu_nifs.cu cuda/tm_gpu_exec.cu -o gpu_nifs
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "themis/tm_types.h"
#include "themis/tm_expr.h"
#include "themis/tm_ir.h"
#include "themis/tm_expr_eval.h"
#include "themis/tm_hash.h"
#include "tm_gpu_exec.h"
#include "tm_unit.h"

/* ------------------------------------------------------------------------------------------------
 * Memory that lives until the end (plans, expressions)
 * ------------------------------------------------------------------------------------------------
 */
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

/* ------------------------------------------------------------------------------------------------
 * A tiny assembler (as in gpu_pipeline.cu)
 * ------------------------------------------------------------------------------------------------
 */
struct Asm
{
	TmInstr		code[256];
	int			n;
	TmValue		consts[64];
	int			nc;
	char		pool[1024];
	int			plen;
};

static Asm A;

static void
a_init(void)
{
	memset(&A, 0, sizeof(A));
}

static int
a_op(int op, int flags, int a, int b, int c)
{
	TmInstr    *in = &A.code[A.n];

	in->op = (uint16_t) op;
	in->flags = (uint16_t) flags;
	in->a = a;
	in->b = b;
	in->c = c;
	return A.n++;
}

static void
p_slot(int s)
{
	a_op(TMI_PUSH_SLOT, 0, s, 0, 0);
}

static void
p_int(int64_t i)
{
	TmValue		v;

	memset(&v, 0, sizeof(v));
	v.i = i;
	A.consts[A.nc] = v;
	a_op(TMI_PUSH_CONST, 0, A.nc++, 0, 0);
}

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

static TmExpr *
a_build(TmType result)
{
	size_t		io = 48,
				co,
				po,
				total;
	TmExpr	   *e;
	int			depth[300];

	co = (io + A.n * sizeof(TmInstr) + 15) & ~(size_t) 15;
	po = (co + A.nc * sizeof(TmValue) + 15) & ~(size_t) 15;
	total = (po + A.plen + 15) & ~(size_t) 15;
	e = (TmExpr *) mk<char>(total);
	e->total_size = (int32_t) total;
	e->ninstr = A.n;
	e->instr_off = (int32_t) io;
	e->nconst = A.nc;
	e->const_off = (int32_t) co;
	e->pool_len = A.plen;
	e->pool_off = (int32_t) po;
	e->max_stack = TM_EXPR_MAX_STACK;
	e->result = result;
	memcpy((char *) e + io, A.code, A.n * sizeof(TmInstr));
	memcpy((char *) e + co, A.consts, A.nc * sizeof(TmValue));
	memcpy((char *) e + po, A.pool, A.plen);
	if (!tm_expr_validate(e, -1, depth))
	{
		printf("assembled expression does not validate (%s)\n", tm_unit_current);
		tm_unit_failed++;
	}
	return e;
}

static TmExpr *
x_slot(int s, TmType t)
{
	a_init();
	p_slot(s);
	return a_build(t);
}

/* slot a <pred> slot b (integer kinds) */
static TmExpr *
x_cmp_slots(int a, int pred, int b)
{
	a_init();
	p_slot(a);
	p_slot(b);
	a_op(TMI_CMP, TM_CMP_INT, pred, 0, 0);
	return a_build(ty(TM_K_BOOL));
}

/* slot a <pred> constant (integer kinds) */
static TmExpr *
x_cmp_const(int a, int pred, int64_t k)
{
	a_init();
	p_slot(a);
	p_int(k);
	a_op(TMI_CMP, TM_CMP_INT, pred, 0, 0);
	return a_build(ty(TM_K_BOOL));
}

/* slot a % m (integer kind) */
static TmExpr *
x_mod(int a, int64_t m, int kind)
{
	a_init();
	p_slot(a);
	p_int(m);
	a_op(TMI_MOD, kind, 0, 0, 0);
	return a_build(ty(kind));
}

/* (slot a + slot b) % m (int4) */
static TmExpr *
x_addmod(int a, int b, int64_t m)
{
	a_init();
	p_slot(a);
	p_slot(b);
	a_op(TMI_ADD, TM_K_INT4, 0, 0, 0);
	p_int(m);
	a_op(TMI_MOD, TM_K_INT4, 0, 0, 0);
	return a_build(ty(TM_K_INT4));
}

/* slot a + slot b < slot c (int4): a residual across levels */
static TmExpr *
x_sum_lt(int a, int b, int c)
{
	a_init();
	p_slot(a);
	p_slot(b);
	a_op(TMI_ADD, TM_K_INT4, 0, 0, 0);
	p_slot(c);
	a_op(TMI_CMP, TM_CMP_INT, TM_PRED_LT, 0, 0);
	return a_build(ty(TM_K_BOOL));
}

/* k / (slot s - z) (int4): division by zero where s = z */
static TmExpr *
x_div_zero_at(int s, int64_t z, int64_t k, int kind = TM_K_INT4)
{
	a_init();
	p_int(k);
	p_slot(s);
	p_int(z);
	a_op(TMI_SUB, kind, 0, 0, 0);
	a_op(TMI_DIV, kind, 0, 0, 0);
	return a_build(ty(kind));
}

/* k / (slot s - z) > -1000000 (a qual that fails with a division by zero where s = z) */
static TmExpr *
x_div_qual(int s, int64_t z, int kind)
{
	a_init();
	p_int(100);
	p_slot(s);
	p_int(z);
	a_op(TMI_SUB, kind, 0, 0, 0);
	a_op(TMI_DIV, kind, 0, 0, 0);
	p_int(-1000000);
	a_op(TMI_CMP, TM_CMP_INT, TM_PRED_GT, 0, 0);
	return a_build(ty(TM_K_BOOL));
}

/* ------------------------------------------------------------------------------------------------
 * Plans
 * ------------------------------------------------------------------------------------------------
 */
struct PipeB
{
	TmPipeline	pl;
	std::vector<TmSlot> slots;
	std::vector<TmOp> ops;

	PipeB(int srckind, int src)
	{
		memset(&pl, 0, sizeof(pl));
		pl.srckind = srckind;
		if (srckind == TM_SRC_RESULT)
			pl.src_result = src;
	}
	int slot(TmType t, int level, int col)
	{
		TmSlot		s;

		s.type = t;
		s.level = (int16_t) level;
		s.col = (int16_t) col;
		slots.push_back(s);
		return (int) slots.size() - 1;
	}
	void filter(TmExpr *q)
	{
		TmOp		op;

		memset(&op, 0, sizeof(op));
		op.kind = TM_OP_FILTER;
		op.qual = q;
		ops.push_back(op);
	}
	void probe(int jointype, int ht, std::vector<TmExpr *> keys, TmExpr *qual)
	{
		TmOp		op;

		memset(&op, 0, sizeof(op));
		op.kind = TM_OP_PROBE;
		op.jointype = jointype;
		op.ht = ht;
		op.nkeys = (int) keys.size();
		op.keys = mkcopy(keys);
		op.qual = qual;
		ops.push_back(op);
	}
	int level() const
	{
		return (int) ops.size();
	}
	TmPipeline emit(int result, std::vector<TmExpr *> vals)
	{
		pl.sink.kind = TM_SINK_EMIT;
		pl.sink.target = result;
		pl.sink.nvals = (int) vals.size();
		pl.sink.vals = mkcopy(vals);
		return done();
	}
	TmPipeline build(int ht, std::vector<TmExpr *> keys, std::vector<TmExpr *> vals)
	{
		pl.sink.kind = TM_SINK_HASH_BUILD;
		pl.sink.target = ht;
		pl.sink.nkeys = (int) keys.size();
		pl.sink.keys = mkcopy(keys);
		pl.sink.nvals = (int) vals.size();
		pl.sink.vals = mkcopy(vals);
		return done();
	}
	TmPipeline agg(int result, std::vector<TmExpr *> keys, std::vector<TmAgg> aggs)
	{
		pl.sink.kind = TM_SINK_AGG;
		pl.sink.target = result;
		pl.sink.nkeys = (int) keys.size();
		pl.sink.keys = mkcopy(keys);
		pl.sink.naggs = (int) aggs.size();
		pl.sink.aggs = mkcopy(aggs);
		return done();
	}
	TmPipeline done()
	{
		pl.nslots = (int) slots.size();
		pl.slots = mkcopy(slots);
		pl.nops = (int) ops.size();
		pl.ops = mkcopy(ops);
		return pl;
	}
};

static TmAgg
agg(int kind, TmExpr *arg, TmType restype, TmExpr *filter = NULL, bool distinct = false)
{
	TmAgg		a;

	memset(&a, 0, sizeof(a));
	a.kind = kind;
	a.arg = arg;
	a.restype = restype;
	a.filter = filter;
	a.distinct = distinct;
	return a;
}

static TmHashTable
hashtable(std::vector<TmType> keys, std::vector<TmType> pay)
{
	TmHashTable h;

	h.nkeys = (int) keys.size();
	h.keytypes = mkcopy(keys);
	h.npayload = (int) pay.size();
	h.payloadtypes = mkcopy(pay);
	return h;
}

static TmResult
result(std::vector<TmType> cols)
{
	TmResult	r;

	r.ncols = (int) cols.size();
	r.coltypes = mkcopy(cols);
	return r;
}

static TmPlan
plan(std::vector<TmPipeline> pipes, std::vector<TmHashTable> hts, std::vector<TmResult> res, int output,
	 std::vector<TmType> params = std::vector<TmType>())
{
	TmPlan		p;

	memset(&p, 0, sizeof(p));
	p.npipelines = (int) pipes.size();
	p.pipelines = mkcopy(pipes);
	p.nhashtables = (int) hts.size();
	p.hashtables = mkcopy(hts);
	p.nresults = (int) res.size();
	p.results = mkcopy(res);
	p.output_result = output;
	p.nparams = (int) params.size();
	p.paramtypes = mkcopy(params);
	return p;
}

/* ------------------------------------------------------------------------------------------------
 * Data
 * ------------------------------------------------------------------------------------------------
 */
static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t
rnd(void)
{
	return tm_unit_xorshift(&rng);
}

static int64_t
rnd_range(int64_t lo, int64_t hi)		/* [lo, hi] */
{
	return lo + (int64_t) (rnd() % (uint64_t) (hi - lo + 1));
}

static bool
chance(double p)
{
	return (double) (rnd() >> 11) / 9007199254740992.0 < p;
}

/* Zipf over [0, n): value i with weight 1 / (i + 1)^s (0 is the hottest); s = 0: uniform */
struct Zipf
{
	std::vector<double> cdf;
	int			n;
	double		s;

	Zipf(int n_, double s_) : n(n_), s(s_)
	{
		double		sum = 0;

		if (s == 0)
			return;
		for (int i = 0; i < n; i++)
		{
			sum += 1.0 / pow((double) (i + 1), s);
			cdf.push_back(sum);
		}
		for (auto &x : cdf)
			x /= sum;
	}
	int draw()
	{
		double		u;

		if (s == 0)
			return (int) rnd_range(0, n - 1);
		u = (double) (rnd() >> 11) / 9007199254740992.0;
		return std::min(n - 1, (int) (std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()));
	}
};

struct HCol
{
	int			kind;
	bool		has_nulls;
	std::vector<int64_t> i;
	std::vector<std::string> s;
	std::vector<uint8_t> nul;
};

struct HTable
{
	int64_t		nrows = 0;
	std::vector<HCol> cols;
};

static HCol
col_new(int kind)
{
	HCol		c;

	c.kind = kind;
	c.has_nulls = false;
	return c;
}

static void
push_i(HCol &c, int64_t v, bool null = false)
{
	c.i.push_back(null ? 0 : v);
	c.nul.push_back(null);
	c.has_nulls |= null;
}

static void
push_s(HCol &c, const std::string &v, bool null = false)
{
	c.s.push_back(null ? std::string() : v);
	c.nul.push_back(null);
	c.has_nulls |= null;
}

static const char *const words[] = {"", "a", "ab", "abc", "hello", "world", "zebra", "Zebra", "\xce\xa9mega",
	"longer text value 0123456789"};
#define NWORDS ((int) (sizeof(words) / sizeof(words[0])))

/* the table in the layout of tm_gpu_exec.h (int and text kinds only) */
struct GpuIn
{
	std::vector<std::vector<char>> bufs;
	std::vector<std::vector<int64_t>> offs;
	std::vector<std::vector<uint8_t>> nulls;
	std::vector<TmGpuColumn> cols;
	TmGpuTable	t;

	explicit GpuIn(const HTable &h)
	{
		size_t		nc = h.cols.size();

		bufs.resize(nc);
		offs.resize(nc);
		nulls.resize(nc);
		cols.resize(nc);
		for (size_t c = 0; c < nc; c++)
		{
			const HCol &hc = h.cols[c];
			TmGpuColumn &g = cols[c];
			int			w = tm_gpu_kind_width(hc.kind);

			memset(&g, 0, sizeof(g));
			g.kind = (int16_t) hc.kind;
			if (hc.has_nulls)
			{
				nulls[c] = hc.nul;
				g.nulls = nulls[c].data();
			}
			if (w == 0)
			{
				offs[c].push_back(0);
				for (int64_t r = 0; r < h.nrows; r++)
				{
					bufs[c].insert(bufs[c].end(), hc.s[r].begin(), hc.s[r].end());
					offs[c].push_back((int64_t) bufs[c].size());
				}
				bufs[c].push_back(0);
				g.offsets = offs[c].data();
			}
			else
			{
				bufs[c].resize((size_t) w * (size_t) h.nrows + 16);
				for (int64_t r = 0; r < h.nrows; r++)
				{
					char	   *p = bufs[c].data() + (size_t) w * r;

					switch (hc.kind)
					{
						case TM_K_INT4:
						case TM_K_DATE:
							*(int32_t *) p = (int32_t) hc.i[r];
							break;
						case TM_K_INT8:
							*(int64_t *) p = hc.i[r];
							break;
					}
				}
			}
			g.data = bufs[c].data();
		}
		memset(&t, 0, sizeof(t));
		t.ncols = (int32_t) nc;
		t.nrows = h.nrows;
		t.cols = cols.data();
	}
};

/* the same table in device memory, passed with on_device = 1 */
struct DevIn
{
	std::vector<void *> ptrs;
	std::vector<TmGpuColumn> cols;
	TmGpuTable	t;
	bool		ok = true;

	void	   *copy(const void *h, size_t n, cudaStream_t s)
	{
		void	   *d = NULL;

		if (cudaMalloc(&d, n > 0 ? n : 1) != cudaSuccess)
		{
			ok = false;
			return NULL;
		}
		ptrs.push_back(d);
		if (n > 0 && cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s) != cudaSuccess)
			ok = false;
		return d;
	}
	DevIn(const GpuIn &g, cudaStream_t s)
	{
		int64_t		n = g.t.nrows;

		cols = g.cols;
		for (size_t c = 0; c < cols.size(); c++)
		{
			const TmGpuColumn &hc = g.cols[c];
			int			w = tm_gpu_kind_width(hc.kind);

			if (hc.nulls != NULL)
				cols[c].nulls = (uint8_t *) copy(hc.nulls, (size_t) n, s);
			if (w == 0)
			{
				cols[c].offsets = (int64_t *) copy(hc.offsets, sizeof(int64_t) * (size_t) (n + 1), s);
				cols[c].data = copy(hc.data, (size_t) hc.offsets[n], s);
			}
			else
				cols[c].data = copy(hc.data, (size_t) w * (size_t) n, s);
		}
		t = g.t;
		t.cols = cols.data();
		t.on_device = 1;
	}
	~DevIn()
	{
		for (void *p : ptrs)
			cudaFree(p);
	}
};

/*
 * The fact table F: id, four foreign keys (uniform or Zipf over [0, domain), some NULL, some without a
 * partner: domain + x), a value v (NULLs), a group g, a text t
 */
enum { F_ID, F_K1, F_K2, F_K3, F_K4, F_V, F_G, F_T, F_NCOLS };

static HTable
make_fact(int64_t n, int domain, double zipf, double nullp = 0.02, double missp = 0.02)
{
	HTable		t;
	Zipf		z(domain, zipf);

	t.nrows = n;
	t.cols.push_back(col_new(TM_K_INT8));
	for (int k = 0; k < 4; k++)
		t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_TEXT));
	for (int64_t r = 0; r < n; r++)
	{
		push_i(t.cols[F_ID], r);
		for (int k = 0; k < 4; k++)
			push_i(t.cols[F_K1 + k], chance(missp) ? domain + rnd_range(0, 99) : z.draw(), chance(nullp));
		push_i(t.cols[F_V], rnd_range(-50, 50), chance(0.08));
		push_i(t.cols[F_G], rnd_range(0, 9), chance(0.05));
		push_s(t.cols[F_T], words[rnd() % NWORDS], chance(0.08));
	}
	return t;
}

/*
 * A dimension D: key k of [0, domain) appears mult(k) times (rows shuffled), p = a payload in
 * [0, pdomain) (a key of the next table in chains), w in [-50, 50] (NULLs), name (text)
 */
enum { D_K, D_P, D_W, D_NAME, D_NCOLS };

template <class M>
static HTable
make_dim(int domain, M mult, int pdomain, double nullkeyp = 0.0)
{
	HTable		t;
	std::vector<int64_t> keys;

	for (int k = 0; k < domain; k++)
		for (int m = mult(k); m > 0; m--)
			keys.push_back(k);
	for (size_t i = keys.size(); i > 1; i--)
		std::swap(keys[i - 1], keys[rnd() % i]);
	t.nrows = (int64_t) keys.size();
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_TEXT));
	for (int64_t r = 0; r < t.nrows; r++)
	{
		push_i(t.cols[D_K], keys[r], chance(nullkeyp));
		push_i(t.cols[D_P], rnd_range(0, pdomain - 1));
		push_i(t.cols[D_W], rnd_range(-50, 50), chance(0.1));
		push_s(t.cols[D_NAME], words[rnd() % NWORDS], chance(0.1));
	}
	return t;
}

static int
one(int)
{
	return 1;
}

/* ------------------------------------------------------------------------------------------------
 * Rows as text, for comparison
 * ------------------------------------------------------------------------------------------------
 */
static std::string
i128_str(tm_int128 v)
{
	char		buf[64];
	int			p = 63;
	bool		neg = v < 0;
	tm_uint128	u = neg ? (tm_uint128) 0 - (tm_uint128) v : (tm_uint128) v;

	buf[p] = '\0';
	do
	{
		buf[--p] = (char) ('0' + (int) (u % 10));
		u /= 10;
	} while (u != 0);
	if (neg)
		buf[--p] = '-';
	return std::string(buf + p);
}

static std::string
cI(int64_t v)
{
	return std::to_string((long long) v) + "|";
}

static std::string
cN(tm_int128 v)
{
	return i128_str(v) + "|";
}

static std::string
cF(double v)
{
	char		buf[64];

	snprintf(buf, sizeof(buf), "%.17g|", v);
	return buf;
}

static std::string
cS(const std::string &s)
{
	return std::to_string(s.size()) + ":" + s + "|";
}

static std::string
cB(const std::string &s)
{
	size_t		len = s.size();

	while (len > 0 && s[len - 1] == ' ')
		len--;
	return cS(s.substr(0, len));
}

static const std::string cNULL = "N|";

/* a value of kind as its cell (the way the output of tm_gpu_execute renders it) */
static std::string
render(const TmValue &v, bool isnull, int kind)
{
	if (isnull)
		return cNULL;
	switch (kind)
	{
		case TM_K_BOOL:
			return cI(v.i != 0);
		case TM_K_INT2:
			return cI((int16_t) v.i);
		case TM_K_INT4:
		case TM_K_DATE:
			return cI((int32_t) v.i);
		case TM_K_FLOAT4:
			return cF((double) (float) v.f);
		case TM_K_FLOAT8:
			return cF(v.f);
		case TM_K_NUMERIC:
			return cN(v.n);
		case TM_K_TEXT:
			return cS(std::string(v.s.p, (size_t) v.s.len));
		case TM_K_BPCHAR:
			return cB(std::string(v.s.p, (size_t) v.s.len));
		default:
			return cI(v.i);
	}
}

static std::string
out_cell(const TmGpuColumn &c, int64_t r)
{
	const char *p = (const char *) c.data;

	if (c.nulls[r])
		return cNULL;
	switch (c.kind)
	{
		case TM_K_BOOL:
			return cI(((const uint8_t *) p)[r]);
		case TM_K_INT2:
			return cI(((const int16_t *) p)[r]);
		case TM_K_INT4:
		case TM_K_DATE:
			return cI(((const int32_t *) p)[r]);
		case TM_K_INT8:
		case TM_K_TIMESTAMP:
			return cI(((const int64_t *) p)[r]);
		case TM_K_FLOAT4:
			return cF(((const float *) p)[r]);
		case TM_K_FLOAT8:
			return cF(((const double *) p)[r]);
		case TM_K_NUMERIC:
			{
				tm_int128	v;

				memcpy(&v, p + 16 * r, 16);
				return cN(v);
			}
		case TM_K_TEXT:
			return cS(std::string(p + c.offsets[r], (size_t) (c.offsets[r + 1] - c.offsets[r])));
		case TM_K_BPCHAR:
			return cB(std::string(p + c.offsets[r], (size_t) (c.offsets[r + 1] - c.offsets[r])));
	}
	return "?|";
}

static std::vector<std::string>
out_rows(const TmGpuTable &t)
{
	std::vector<std::string> rows;

	for (int64_t r = 0; r < t.nrows; r++)
	{
		std::string row;

		for (int c = 0; c < t.ncols; c++)
			row += out_cell(t.cols[c], r);
		rows.push_back(row);
	}
	return rows;
}

/* one check: the rows are the expected ones, as multisets */
static void
check_rows(const char *what, std::vector<std::string> got, std::vector<std::string> exp)
{
	size_t		i;

	std::sort(got.begin(), got.end());
	std::sort(exp.begin(), exp.end());
	for (i = 0; i < got.size() && i < exp.size(); i++)
		if (got[i] != exp[i])
			break;
	TM_CHECK_MSG(got.size() == exp.size() && i == got.size(),
				 "%s: %zu rows, expected %zu; first difference at %zu: got \"%s\", expected \"%s\"", what,
				 got.size(), exp.size(), i, i < got.size() ? got[i].c_str() : "(none)",
				 i < exp.size() ? exp[i].c_str() : "(none)");
}

/* ------------------------------------------------------------------------------------------------
 * The host reference: the IR run depth first with the shared interpreter (like src/cpu_exec.c)
 * ------------------------------------------------------------------------------------------------
 */
struct Ref
{
	struct Res
	{
		bool		made = false;
		std::vector<std::vector<TmValue>> v;	/* per row */
		std::vector<std::vector<char>> nl;
	};
	struct HT
	{
		std::map<std::string, std::vector<int64_t>> idx;	/* rendered keys -> build rows, in order */
		std::vector<std::vector<TmValue>> pay;	/* per row */
		std::vector<std::vector<char>> paynl;
	};
	struct AggSt
	{
		TmValue		acc;
		bool		accnull = true;
		int64_t		count = 0;
		std::set<std::string> seen;	/* DISTINCT */
	};
	struct Group
	{
		std::vector<TmValue> k;
		std::vector<char> kn;
		std::vector<AggSt> a;
	};

	const TmPlan *plan;
	std::vector<const HTable *> inputs;
	const TmValue *params;
	const bool *paramnulls;
	std::vector<Res> res;
	std::vector<HT> hts;
	std::vector<int64_t> st_source, st_sink, st_out;
	int			errpipe = -1;
	std::set<std::pair<int, int64_t>> errs;	/* (status, source row) of every failing tuple */
	std::vector<std::string> rows;		/* the output result, rendered */

	/* the running pipeline */
	const TmPipeline *pl = NULL;
	int64_t		row = 0;
	TmValue		vals[TM_GPU_MAX_SLOTS];
	bool		nulls[TM_GPU_MAX_SLOTS];
	int64_t		sinkrows = 0;
	std::map<std::string, Group> groups;

	Ref(const TmPlan &p, std::vector<const HTable *> in, const TmValue *pa, const bool *pn)
		: plan(&p), inputs(in), params(pa), paramnulls(pn)
	{
		res.resize((size_t) p.nresults);
		hts.resize((size_t) p.nhashtables);
	}

	void err(int st)
	{
		errs.insert(std::make_pair(st, row));
	}

	bool agg_distinct(const TmAgg *a)
	{
		return a->distinct && a->arg != NULL && (a->kind == TM_AGG_COUNT || a->kind == TM_AGG_SUM);
	}

	void fill(int level, int64_t r)
	{
		const TmOp *op = &pl->ops[level - 1];

		for (int s = 0; s < pl->nslots; s++)
			if (pl->slots[s].level == level)
			{
				if (r < 0)
				{
					vals[s].n = 0;
					nulls[s] = true;
				}
				else
				{
					vals[s] = hts[op->ht].pay[r][pl->slots[s].col];
					nulls[s] = hts[op->ht].paynl[r][pl->slots[s].col] != 0;
				}
			}
	}

	void sink()
	{
		const TmSink *sk = &pl->sink;
		int			st;

		if (sk->kind == TM_SINK_EMIT)
		{
			std::vector<TmValue> v((size_t) sk->nvals);
			std::vector<char> n((size_t) sk->nvals);

			for (int i = 0; i < sk->nvals; i++)
			{
				bool		isnull;

				if ((st = tm_eval(sk->vals[i], vals, nulls, &v[i], &isnull)) != TM_OK)
					return err(st);
				n[i] = isnull;
			}
			res[sk->target].v.push_back(v);
			res[sk->target].nl.push_back(n);
			sinkrows++;
		}
		else if (sk->kind == TM_SINK_HASH_BUILD)
		{
			const TmHashTable *def = &plan->hashtables[sk->target];
			HT		   &ht = hts[sk->target];
			std::string key;
			std::vector<TmValue> v((size_t) sk->nvals);
			std::vector<char> n((size_t) sk->nvals);

			for (int i = 0; i < sk->nkeys; i++)
			{
				TmValue		k;
				bool		isnull;

				if ((st = tm_eval(sk->keys[i], vals, nulls, &k, &isnull)) != TM_OK)
					return err(st);
				if (isnull)
					return;		/* never matches: dropped */
				key += render(k, false, def->keytypes[i].kind);
			}
			for (int i = 0; i < sk->nvals; i++)
			{
				bool		isnull;

				if ((st = tm_eval(sk->vals[i], vals, nulls, &v[i], &isnull)) != TM_OK)
					return err(st);
				n[i] = isnull;
			}
			ht.idx[key].push_back((int64_t) ht.pay.size());
			ht.pay.push_back(v);
			ht.paynl.push_back(n);
			sinkrows++;
		}
		else
		{
			const TmResult *rd = &plan->results[sk->target];
			std::string key;
			std::vector<TmValue> kv((size_t) sk->nkeys);
			std::vector<char> kn((size_t) sk->nkeys);
			Group	   *g;

			for (int i = 0; i < sk->nkeys; i++)
			{
				bool		isnull;

				if ((st = tm_eval(sk->keys[i], vals, nulls, &kv[i], &isnull)) != TM_OK)
					return err(st);
				kn[i] = isnull;
				key += render(kv[i], isnull, rd->coltypes[i].kind);
			}
			g = &groups[key];
			if (g->a.empty())
			{
				g->k = kv;
				g->kn = kn;
				g->a.resize((size_t) sk->naggs);
			}
			for (int a = 0; a < sk->naggs; a++)
			{
				const TmAgg *ag = &sk->aggs[a];
				AggSt	   *s = &g->a[a];
				TmValue		v;
				bool		isnull;

				if (ag->filter != NULL)
				{
					if ((st = tm_eval(ag->filter, vals, nulls, &v, &isnull)) != TM_OK)
						return err(st);
					if (isnull || v.i == 0)
						continue;
				}
				if (ag->kind == TM_AGG_COUNT_STAR)
				{
					s->count++;
					continue;
				}
				if ((st = tm_eval(ag->arg, vals, nulls, &v, &isnull)) != TM_OK)
					return err(st);
				if (isnull)
					continue;
				if (agg_distinct(ag) && !s->seen.insert(render(v, false, ag->arg->result.kind)).second)
					continue;
				if (ag->kind == TM_AGG_COUNT)
					s->count++;
				else if (ag->kind == TM_AGG_SUM)
				{
					if ((st = tm_sum_add(&s->acc, &s->accnull, &v, &ag->arg->result, &ag->restype)) != TM_OK)
						return err(st);
				}
				else
				{
					int			cmp = s->accnull ? 0 : tm_values_cmp(&v, &s->acc, &ag->restype);

					if (s->accnull || (ag->kind == TM_AGG_MIN ? cmp < 0 : cmp > 0))
					{
						s->acc = v;
						s->accnull = false;
					}
				}
			}
			sinkrows++;
		}
	}

	void walk(int k)
	{
		const TmOp *op;
		const TmHashTable *def;
		std::string key;
		bool		hasnull = false;
		const std::vector<int64_t> *m = NULL;
		bool		found = false;
		int			st;

		if (k == pl->nops)
			return sink();
		op = &pl->ops[k];
		if (op->kind == TM_OP_FILTER)
		{
			bool		pass;

			if ((st = tm_eval_qual(op->qual, vals, nulls, &pass)) != TM_OK)
				return err(st);
			if (pass)
				walk(k + 1);
			return;
		}
		def = &plan->hashtables[op->ht];
		for (int i = 0; i < op->nkeys; i++)
		{
			TmValue		v;
			bool		isnull;

			if ((st = tm_eval(op->keys[i], vals, nulls, &v, &isnull)) != TM_OK)
				return err(st);
			if (isnull)
			{
				hasnull = true;
				break;
			}
			key += render(v, false, def->keytypes[i].kind);
		}
		if (!hasnull)
		{
			auto		it = hts[op->ht].idx.find(key);

			if (it != hts[op->ht].idx.end())
				m = &it->second;
		}
		for (size_t i = 0; m != NULL && i < m->size(); i++)
		{
			bool		pass = true;

			fill(k + 1, (*m)[i]);
			if (op->qual != NULL && (st = tm_eval_qual(op->qual, vals, nulls, &pass)) != TM_OK)
			{
				err(st);		/* this match's tuple fails; the others go on (any of them may be reported) */
				continue;
			}
			if (!pass)
				continue;
			found = true;
			if (op->jointype == TM_JOIN_SEMI || op->jointype == TM_JOIN_ANTI)
				break;
			walk(k + 1);
		}
		if ((op->jointype == TM_JOIN_SEMI && found) || (op->jointype == TM_JOIN_ANTI && !found) ||
			(op->jointype == TM_JOIN_LEFT && !found))
		{
			fill(k + 1, -1);
			walk(k + 1);
		}
	}

	void run_pipeline(int p)
	{
		const TmSink *sk;
		std::vector<std::vector<TmValue>> srcv;
		std::vector<std::vector<char>> srcn;
		int64_t		nrows;
		int64_t		before = 0;

		pl = &plan->pipelines[p];
		sk = &pl->sink;
		sinkrows = 0;
		groups.clear();
		if (sk->kind == TM_SINK_AGG && sk->nkeys == 0)
			groups[""].a.resize((size_t) sk->naggs);
		if (sk->kind == TM_SINK_EMIT)
			before = (int64_t) res[sk->target].v.size();
		nrows = pl->srckind == TM_SRC_RESULT ? (int64_t) res[pl->src_result].v.size() : inputs[p]->nrows;
		/* an inner or semi probe into a hash table without rows: no source row is read (as PostgreSQL) */
		for (int o = 0; o < pl->nops; o++)
			if (pl->ops[o].kind == TM_OP_PROBE &&
				(pl->ops[o].jointype == TM_JOIN_INNER || pl->ops[o].jointype == TM_JOIN_SEMI) &&
				hts[pl->ops[o].ht].pay.empty())
				nrows = 0;
		for (row = 0; row < nrows; row++)
		{
			for (int s = 0; s < pl->nslots; s++)
			{
				const TmSlot *sl = &pl->slots[s];

				vals[s].n = 0;
				nulls[s] = true;
				if (sl->level == -1)
				{
					nulls[s] = paramnulls != NULL && paramnulls[sl->col];
					if (!nulls[s])
						vals[s] = params[sl->col];
				}
				else if (sl->level == 0 && pl->srckind == TM_SRC_RESULT)
				{
					vals[s] = res[pl->src_result].v[row][sl->col];
					nulls[s] = res[pl->src_result].nl[row][sl->col] != 0;
				}
				else if (sl->level == 0)
				{
					const HCol &c = inputs[p]->cols[sl->col];

					nulls[s] = c.nul[row] != 0;
					if (nulls[s])
						continue;
					if (c.kind == TM_K_TEXT || c.kind == TM_K_BPCHAR)
					{
						vals[s].s.p = c.s[row].data();
						vals[s].s.len = (int32_t) c.s[row].size();
					}
					else
						vals[s].i = c.i[row];
				}
			}
			walk(0);
		}
		st_source.push_back(nrows);
		st_sink.push_back(sinkrows);
		if (sk->kind == TM_SINK_EMIT)
		{
			res[sk->target].made = true;
			st_out.push_back((int64_t) res[sk->target].v.size() - before);
		}
		else if (sk->kind == TM_SINK_HASH_BUILD)
			st_out.push_back((int64_t) hts[sk->target].pay.size());
		else
		{
			Res		   &r = res[sk->target];

			r.made = true;
			for (auto &gi : groups)
			{
				Group	   &g = gi.second;
				std::vector<TmValue> v = g.k;
				std::vector<char> n = g.kn;

				for (int a = 0; a < sk->naggs; a++)
				{
					const TmAgg *ag = &sk->aggs[a];
					AggSt	   &s = g.a[a];
					TmValue		x;

					x.n = 0;
					if (ag->kind == TM_AGG_COUNT_STAR || ag->kind == TM_AGG_COUNT)
					{
						x.i = s.count;
						v.push_back(x);
						n.push_back(0);
					}
					else
					{
						v.push_back(s.accnull ? x : s.acc);
						n.push_back(s.accnull);
					}
				}
				r.v.push_back(v);
				r.nl.push_back(n);
			}
			st_out.push_back((int64_t) groups.size());
		}
	}

	void run()
	{
		for (int p = 0; p < plan->npipelines; p++)
		{
			run_pipeline(p);
			if (!errs.empty())
			{
				errpipe = p;
				return;
			}
		}
		{
			const TmResult *rd = &plan->results[plan->output_result];
			const Res  &r = res[plan->output_result];

			for (size_t i = 0; i < r.v.size(); i++)
			{
				std::string s;

				for (int c = 0; c < rd->ncols; c++)
					s += render(r.v[i][c], r.nl[i][c] != 0, rd->coltypes[c].kind);
				rows.push_back(s);
			}
		}
	}
};

/* ------------------------------------------------------------------------------------------------
 * Running a plan in every mode
 * ------------------------------------------------------------------------------------------------
 */
static TmGpuPool *g_pool;

struct Variant
{
	int			mode;
	int			maxwarps;
	const char *name;
};

static const Variant g_variants[] = {
	{TM_GPU_LB_NONE, 0, "none"},
	{TM_GPU_LB_NIFS, 0, "nifs"},
	{TM_GPU_LB_NIFS_AWS, 0, "nifs_aws"},
	{TM_GPU_LB_NIFS, 3, "nifs, 3 warps"},
	{TM_GPU_LB_NIFS_AWS, 1, "nifs_aws, 1 warp"},
	{TM_GPU_LB_NIFS_AWS, 3, "nifs_aws, 3 warps"},
	{TM_GPU_LB_NIFS_AWS, 40, "nifs_aws, 40 warps"},
};
#define NVARIANTS ((int) (sizeof(g_variants) / sizeof(g_variants[0])))

struct Run
{
	int			rc;
	TmGpuTable	out;
	TmGpuFailure fail;
	std::vector<TmGpuPipelineStats> stats;
	char		err[512];
};

static Run
run_plan(const TmPlan &p, std::vector<const HTable *> inputs, const Variant &v, const TmValue *params = NULL,
		 const bool *paramnulls = NULL, bool on_device = false)
{
	Run			r;
	std::vector<GpuIn *> gin;
	std::vector<DevIn *> din;
	std::vector<TmGpuTable> tabs;
	bool		ok = true;

	memset(&r.out, 0, sizeof(r.out));
	memset(&r.fail, 0, sizeof(r.fail));
	r.err[0] = '\0';
	r.stats.resize((size_t) p.npipelines);
	for (auto *h : inputs)
	{
		GpuIn	   *g = h ? new GpuIn(*h) : NULL;
		DevIn	   *d = (g && on_device) ? new DevIn(*g, (cudaStream_t) tm_gpu_pool_stream(g_pool)) : NULL;
		TmGpuTable	empty;

		memset(&empty, 0, sizeof(empty));
		gin.push_back(g);
		din.push_back(d);
		tabs.push_back(d ? d->t : g ? g->t : empty);
		ok &= (d == NULL || d->ok);
	}
	tm_gpu_pool_set_load_balance(g_pool, v.mode);
	tm_gpu_set_lb_max_warps(v.maxwarps);
	if (ok)
		r.rc = tm_gpu_execute(g_pool, &p, tabs.data(), (int) tabs.size(), params, paramnulls,
							  &r.out, r.stats.data(), &r.fail, r.err, sizeof(r.err));
	else
	{
		r.rc = TM_GPU_ERR_CUDA;
		snprintf(r.err, sizeof(r.err), "test: copying the inputs to the device failed");
	}
	tm_gpu_pool_set_load_balance(g_pool, TM_GPU_LB_NONE);
	tm_gpu_set_lb_max_warps(0);
	for (auto *d : din)
		delete d;
	for (auto *g : gin)
		delete g;
	return r;
}

/* the load-balance figures of a successful run make sense for its mode */
static void
check_figures(const char *what, const Variant &v, const Run &r)
{
	for (size_t p = 0; p < r.stats.size(); p++)
	{
		const TmGpuPipelineStats &s = r.stats[p];

		if (v.mode == TM_GPU_LB_NONE || s.source_rows == 0)
		{
			TM_CHECK_MSG(s.idle_ratio == 0 && s.imbalance == 0 && s.warp_iterations == 0 && s.handoffs == 0,
						 "%s: pipeline %zu: figures %g %g %lld %lld, expected zeros", what, p, s.idle_ratio,
						 s.imbalance, (long long) s.warp_iterations, (long long) s.handoffs);
			continue;
		}
		TM_CHECK_MSG(s.idle_ratio >= 0 && s.idle_ratio <= 1 && s.imbalance >= 1 - 1e-9 && s.warp_iterations > 0 &&
					 s.handoffs >= 0 && (v.mode == TM_GPU_LB_NIFS_AWS || s.handoffs == 0) &&
					 (v.maxwarps != 1 || s.handoffs == 0),
					 "%s: pipeline %zu: idle ratio %g, imbalance %g, iterations %lld, hand-offs %lld", what, p,
					 s.idle_ratio, s.imbalance, (long long) s.warp_iterations, (long long) s.handoffs);
	}
}

static const std::vector<int> g_all_variants = {0, 1, 2, 3, 4, 5, 6};

/*
 * pl in every variant (or those listed) against the reference: rows as multisets and stats, or the
 * error (its status and source row among those the reference met, in the same pipeline).  Returns the
 * reference rows.
 */
static std::vector<std::string>
check_plan(const char *what, const TmPlan &pl, std::vector<const HTable *> inputs, const TmValue *params = NULL,
		   const bool *paramnulls = NULL, const std::vector<int> &variants = g_all_variants, bool on_device = false)
{
	Ref			ref(pl, inputs, params, paramnulls);

	ref.run();
	for (int vi : variants)
	{
		const Variant &v = g_variants[vi];
		char		w[300];
		Run			r = run_plan(pl, inputs, v, params, paramnulls, on_device);

		snprintf(w, sizeof(w), "%s [%s]", what, v.name);
		if (ref.errpipe >= 0)
		{
			TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.pipeline == ref.errpipe &&
						 ref.errs.count(std::make_pair((int) r.fail.status, (int64_t) r.fail.row)) == 1,
						 "%s: rc %d, pipeline %d status %d row %lld; expected an error in pipeline %d (%zu "
						 "failing tuples, first status %d row %lld): %s", w, r.rc, r.fail.pipeline,
						 r.fail.status, (long long) r.fail.row, ref.errpipe, ref.errs.size(),
						 ref.errs.begin()->first, (long long) ref.errs.begin()->second, r.err);
			TM_CHECK(r.out.cols == NULL);
			continue;
		}
		TM_CHECK_MSG(r.rc == TM_GPU_OK, "%s: tm_gpu_execute returned %d: %s", w, r.rc, r.err);
		if (r.rc != TM_GPU_OK)
			continue;
		check_rows(w, out_rows(r.out), ref.rows);
		for (int p = 0; p < pl.npipelines; p++)
			TM_CHECK_MSG(r.stats[p].source_rows == ref.st_source[p] && r.stats[p].sink_rows == ref.st_sink[p] &&
						 r.stats[p].out_rows == ref.st_out[p],
						 "%s: pipeline %d: stats %lld / %lld / %lld, expected %lld / %lld / %lld", w, p,
						 (long long) r.stats[p].source_rows, (long long) r.stats[p].sink_rows,
						 (long long) r.stats[p].out_rows, (long long) ref.st_source[p],
						 (long long) ref.st_sink[p], (long long) ref.st_out[p]);
		check_figures(w, v, r);
		tm_gpu_table_free(&r.out);
	}
	return ref.rows;
}

/* ------------------------------------------------------------------------------------------------
 * Plan shapes
 * ------------------------------------------------------------------------------------------------
 */

/* D -> HASH_BUILD ht (k -> p, w, name) */
static TmPipeline
dim_build(int ht)
{
	PipeB		pb(TM_SRC_TABLE, 0);
	int			k = pb.slot(ty(TM_K_INT4), 0, D_K);
	int			p = pb.slot(ty(TM_K_INT4), 0, D_P);
	int			w = pb.slot(ty(TM_K_INT4), 0, D_W);
	int			n = pb.slot(ty(TM_K_TEXT), 0, D_NAME);

	return pb.build(ht, {x_slot(k, ty(TM_K_INT4))},
					{x_slot(p, ty(TM_K_INT4)), x_slot(w, ty(TM_K_INT4)), x_slot(n, ty(TM_K_TEXT))});
}

static TmHashTable
dim_ht(void)
{
	return hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4), ty(TM_K_INT4), ty(TM_K_TEXT)});
}

enum Sink { SINK_GLOBAL, SINK_GROUPED, SINK_EMIT };

/*
 * nj joins of F with dims 0 .. nj-1 (inner): star (probe key j = F.k(j+1)) or chain (probe key j >= 1 =
 * the p of join j - 1), then the sink:
 *   SINK_GLOBAL   count(*), sum(v), sum(p of every join), max(w of the last), count(w of the first),
 *                 min(name of the last)
 *   SINK_GROUPED  by (g, p of the last join % 7): count(*), sum(w of the last), count(DISTINCT t)
 *   SINK_EMIT     id, v, p and w of every join
 */
static TmPlan
join_plan(int nj, bool chain, Sink sink, int jointype = TM_JOIN_INNER)
{
	std::vector<TmPipeline> pipes;
	std::vector<TmHashTable> hts;
	PipeB		pf(TM_SRC_TABLE, 0);
	int			id = pf.slot(ty(TM_K_INT8), 0, F_ID);
	int			v = pf.slot(ty(TM_K_INT4), 0, F_V);
	int			g = pf.slot(ty(TM_K_INT4), 0, F_G);
	int			t = pf.slot(ty(TM_K_TEXT), 0, F_T);
	std::vector<int> ps, ws, ns;
	std::vector<TmType> rt;

	for (int j = 0; j < nj; j++)
	{
		pipes.push_back(dim_build(j));
		hts.push_back(dim_ht());
	}
	for (int j = 0; j < nj; j++)
	{
		TmExpr	   *key;

		if (chain && j > 0)
			key = x_slot(ps[j - 1], ty(TM_K_INT4));
		else
			key = x_slot(pf.slot(ty(TM_K_INT4), 0, F_K1 + j), ty(TM_K_INT4));
		pf.probe(jointype, j, {key}, NULL);
		ps.push_back(pf.slot(ty(TM_K_INT4), j + 1, 0));
		ws.push_back(pf.slot(ty(TM_K_INT4), j + 1, 1));
		ns.push_back(pf.slot(ty(TM_K_TEXT), j + 1, 2));
	}
	if (sink == SINK_GLOBAL)
	{
		std::vector<TmAgg> aggs = {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
			agg(TM_AGG_SUM, x_slot(v, ty(TM_K_INT4)), ty(TM_K_INT8))};

		rt = {ty(TM_K_INT8), ty(TM_K_INT8)};
		for (int j = 0; j < nj; j++)
		{
			aggs.push_back(agg(TM_AGG_SUM, x_slot(ps[j], ty(TM_K_INT4)), ty(TM_K_INT8)));
			rt.push_back(ty(TM_K_INT8));
		}
		aggs.push_back(agg(TM_AGG_MAX, x_slot(ws[nj - 1], ty(TM_K_INT4)), ty(TM_K_INT4)));
		aggs.push_back(agg(TM_AGG_COUNT, x_slot(ws[0], ty(TM_K_INT4)), ty(TM_K_INT8)));
		aggs.push_back(agg(TM_AGG_MIN, x_slot(ns[nj - 1], ty(TM_K_TEXT)), ty(TM_K_TEXT)));
		rt.push_back(ty(TM_K_INT4));
		rt.push_back(ty(TM_K_INT8));
		rt.push_back(ty(TM_K_TEXT));
		pipes.push_back(pf.agg(0, {}, aggs));
	}
	else if (sink == SINK_GROUPED)
	{
		rt = {ty(TM_K_INT4), ty(TM_K_INT4), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8)};
		pipes.push_back(pf.agg(0, {x_slot(g, ty(TM_K_INT4)), x_mod(ps[nj - 1], 7, TM_K_INT4)},
							   {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								agg(TM_AGG_SUM, x_slot(ws[nj - 1], ty(TM_K_INT4)), ty(TM_K_INT8)),
								agg(TM_AGG_COUNT, x_slot(t, ty(TM_K_TEXT)), ty(TM_K_INT8), NULL, true)}));
	}
	else
	{
		std::vector<TmExpr *> vals = {x_slot(id, ty(TM_K_INT8)), x_slot(v, ty(TM_K_INT4))};

		rt = {ty(TM_K_INT8), ty(TM_K_INT4)};
		for (int j = 0; j < nj; j++)
		{
			vals.push_back(x_slot(ps[j], ty(TM_K_INT4)));
			vals.push_back(x_slot(ws[j], ty(TM_K_INT4)));
			rt.push_back(ty(TM_K_INT4));
			rt.push_back(ty(TM_K_INT4));
		}
		pipes.push_back(pf.emit(0, vals));
	}
	return plan(pipes, hts, {result(rt)}, 0);
}

/* inputs of join_plan: the dims, then F */
static std::vector<const HTable *>
join_inputs(const std::vector<HTable> &dims, int nj, const HTable *F)
{
	std::vector<const HTable *> in;

	for (int j = 0; j < nj; j++)
		in.push_back(&dims[j]);
	in.push_back(F);
	return in;
}

/* ------------------------------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------------------------------
 */

/* 1-4 joins (star and chain) over a fact table with uniform and Zipf foreign keys, primary-key dims */
static void
test_star_zipf(void)
{
	const double zipfs[] = {0, 0.5, 1.0, 1.5};
	std::vector<HTable> dims;

	for (int j = 0; j < 4; j++)
		dims.push_back(make_dim(2000, one, 2000, 0.01));
	for (double z : zipfs)
	{
		HTable		F = make_fact(30000, 2000, z);

		for (int nj = 1; nj <= 4; nj++)
		{
			char		w[100];

			snprintf(w, sizeof(w), "star, %d joins, zipf %.1f, global aggregate", nj, z);
			check_plan(w, join_plan(nj, false, SINK_GLOBAL), join_inputs(dims, nj, &F));
			snprintf(w, sizeof(w), "chain, %d joins, zipf %.1f, grouped aggregate", nj, z);
			check_plan(w, join_plan(nj, true, SINK_GROUPED), join_inputs(dims, nj, &F));
		}
		{
			char		w[100];

			snprintf(w, sizeof(w), "star, 2 joins, zipf %.1f, emit", z);
			std::vector<std::string> rows = check_plan(w, join_plan(2, false, SINK_EMIT), join_inputs(dims, 2, &F));

			TM_CHECK(rows.size() > 20000);
		}
	}
}

/* multi-match joins: build keys with skewed multiplicities (key k: 60 / (k + 1) rows), fan-out */
static void
test_fanout(void)
{
	auto		mult = [](int k) { return std::max(1, 60 / (k + 1)); };
	std::vector<HTable> dims;

	dims.push_back(make_dim(400, mult, 400, 0.02));
	dims.push_back(make_dim(400, mult, 400, 0.02));
	dims.push_back(make_dim(400, one, 400));
	for (double z : {0.0, 1.0})
	{
		HTable		F = make_fact(6000, 400, z);
		char		w[100];

		for (int nj = 1; nj <= 3; nj++)
		{
			snprintf(w, sizeof(w), "fan-out chain, %d joins, zipf %.1f, global aggregate", nj, z);
			check_plan(w, join_plan(nj, true, SINK_GLOBAL), join_inputs(dims, nj, &F));
			snprintf(w, sizeof(w), "fan-out star, %d joins, zipf %.1f, grouped aggregate", nj, z);
			check_plan(w, join_plan(nj, false, SINK_GROUPED), join_inputs(dims, nj, &F));
		}
		snprintf(w, sizeof(w), "fan-out star, 1 join, zipf %.1f, emit", z);
		check_plan(w, join_plan(1, false, SINK_EMIT), join_inputs(dims, 1, &F));
		snprintf(w, sizeof(w), "fan-out chain, 2 joins, zipf %.1f, emit", z);
		check_plan(w, join_plan(2, true, SINK_EMIT), join_inputs(dims, 2, &F));
	}
}

/* JCC-H-like: five keys hold a quarter of the fact table, and each of them has 80 build rows */
static void
test_jcch(void)
{
	HTable		F = make_fact(16000, 3000, 0, 0.01, 0.01);
	std::vector<HTable> dims;
	auto		mult = [](int k) { return k < 5 ? 80 : 1; };

	for (int64_t r = 0; r < F.nrows; r++)
		if (r % 4 == 0)
			F.cols[F_K1].i[r] = rnd_range(0, 4);
	dims.push_back(make_dim(3000, mult, 3000));
	dims.push_back(make_dim(3000, one, 3000));
	dims.push_back(make_dim(3000, one, 3000));
	check_plan("jcc-h, 1 join, global aggregate", join_plan(1, false, SINK_GLOBAL), join_inputs(dims, 1, &F));
	check_plan("jcc-h, 3 joins (chain), global aggregate", join_plan(3, true, SINK_GLOBAL), join_inputs(dims, 3, &F));
	check_plan("jcc-h, 2 joins, grouped aggregate", join_plan(2, true, SINK_GROUPED), join_inputs(dims, 2, &F));
	check_plan("jcc-h, 2 joins, emit", join_plan(2, false, SINK_EMIT), join_inputs(dims, 2, &F));
}

/* every join type, with and without a residual, NULL keys on both sides, multi-match build side */
static void
test_join_types(void)
{
	static const char *const jname[] = {"", "inner", "semi", "anti", "left"};
	HTable		F = make_fact(5000, 300, 1.0, 0.05, 0.05);
	HTable		D = make_dim(300, [](int k) { return 1 + k % 4; }, 300, 0.05);

	for (int jt = TM_JOIN_INNER; jt <= TM_JOIN_LEFT; jt++)
		for (int resid = 0; resid < 2; resid++)
		{
			PipeB		pf(TM_SRC_TABLE, 1);
			int			id = pf.slot(ty(TM_K_INT8), 0, F_ID);
			int			k = pf.slot(ty(TM_K_INT4), 0, F_K1);
			int			v = pf.slot(ty(TM_K_INT4), 0, F_V);
			int			p = pf.slot(ty(TM_K_INT4), 1, 0);
			int			w = pf.slot(ty(TM_K_INT4), 1, 1);
			bool		wide = (jt == TM_JOIN_INNER || jt == TM_JOIN_LEFT);
			std::vector<TmExpr *> vals = {x_slot(id, ty(TM_K_INT8)), x_slot(v, ty(TM_K_INT4))};
			std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT4)};
			char		what[100];

			pf.probe(jt, 0, {x_slot(k, ty(TM_K_INT4))}, resid ? x_cmp_slots(w, TM_PRED_LT, v) : NULL);
			if (wide)
			{
				vals.push_back(x_slot(p, ty(TM_K_INT4)));
				vals.push_back(x_slot(w, ty(TM_K_INT4)));
				rt.push_back(ty(TM_K_INT4));
				rt.push_back(ty(TM_K_INT4));
			}
			TmPlan		pe = plan({dim_build(0), pf.emit(0, vals)}, {dim_ht()}, {result(rt)}, 0);

			snprintf(what, sizeof(what), "%s join%s, emit", jname[jt], resid ? " with residual" : "");
			check_plan(what, pe, {&D, &F});

			/* the same, into a global aggregate */
			PipeB		pa(TM_SRC_TABLE, 1);
			int			ak = pa.slot(ty(TM_K_INT4), 0, F_K1);
			int			av = pa.slot(ty(TM_K_INT4), 0, F_V);
			int			aw = pa.slot(ty(TM_K_INT4), 1, 1);

			pa.probe(jt, 0, {x_slot(ak, ty(TM_K_INT4))}, resid ? x_cmp_slots(aw, TM_PRED_LT, av) : NULL);
			TmPlan		pg = plan({dim_build(0), pa.agg(0, {}, {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
																	agg(TM_AGG_SUM, x_slot(av, ty(TM_K_INT4)), ty(TM_K_INT8))})},
								  {dim_ht()}, {result({ty(TM_K_INT8), ty(TM_K_INT8)})}, 0);

			snprintf(what, sizeof(what), "%s join%s, aggregate", jname[jt], resid ? " with residual" : "");
			check_plan(what, pg, {&D, &F});
		}
}

/*
 * A deep mix: F -> FILTER v > -40 -> LEFT D1 (residual w1 < v) -> SEMI D2 on k2 with residual
 * w1 + w2 < v (three levels) -> FILTER p1 % 3 <> 1 -> ANTI D3 on p1 (residual w3 > v) -> LEFT D4 on k4
 * (residual w4 < w1) -> EMIT / AGG.  The NULL row of the first LEFT probe flows on (w1 NULL: the SEMI
 * residual is never true for it, so it stops there), the NULL row of the last one reaches the sink.
 */
static void
test_deep_mix(void)
{
	HTable		F = make_fact(6000, 200, 1.0, 0.05, 0.05);
	auto		mult = [](int k) { return 1 + (k * 7) % 5; };
	std::vector<HTable> dims;

	for (int j = 0; j < 4; j++)
		dims.push_back(make_dim(200, mult, 200, 0.03));
	for (int s = 0; s < 2; s++)
	{
		PipeB		pf(TM_SRC_TABLE, 4);
		int			id = pf.slot(ty(TM_K_INT8), 0, F_ID);
		int			k1 = pf.slot(ty(TM_K_INT4), 0, F_K1);
		int			k2 = pf.slot(ty(TM_K_INT4), 0, F_K2);
		int			k4 = pf.slot(ty(TM_K_INT4), 0, F_K4);
		int			v = pf.slot(ty(TM_K_INT4), 0, F_V);
		int			g = pf.slot(ty(TM_K_INT4), 0, F_G);
		int			p1,
					w1,
					w2,
					w3,
					p4,
					w4;
		std::vector<TmHashTable> hts = {dim_ht(), dim_ht(), dim_ht(), dim_ht()};

		pf.filter(x_cmp_const(v, TM_PRED_GT, -40));
		p1 = pf.slot(ty(TM_K_INT4), 2, 0);
		w1 = pf.slot(ty(TM_K_INT4), 2, 1);
		pf.probe(TM_JOIN_LEFT, 0, {x_slot(k1, ty(TM_K_INT4))}, x_cmp_slots(w1, TM_PRED_LT, v));
		w2 = pf.slot(ty(TM_K_INT4), 3, 1);
		pf.probe(TM_JOIN_SEMI, 1, {x_slot(k2, ty(TM_K_INT4))}, x_sum_lt(w1, w2, v));
		a_init();
		p_slot(p1);
		p_int(3);
		a_op(TMI_MOD, TM_K_INT4, 0, 0, 0);
		p_int(1);
		a_op(TMI_CMP, TM_CMP_INT, TM_PRED_NE, 0, 0);
		pf.filter(a_build(ty(TM_K_BOOL)));
		w3 = pf.slot(ty(TM_K_INT4), 5, 1);
		pf.probe(TM_JOIN_ANTI, 2, {x_slot(p1, ty(TM_K_INT4))}, x_cmp_slots(w3, TM_PRED_GT, v));
		p4 = pf.slot(ty(TM_K_INT4), 6, 0);
		w4 = pf.slot(ty(TM_K_INT4), 6, 1);
		pf.probe(TM_JOIN_LEFT, 3, {x_slot(k4, ty(TM_K_INT4))}, x_cmp_slots(w4, TM_PRED_LT, w1));
		if (s == 0)
		{
			TmPlan		pl = plan({dim_build(0), dim_build(1), dim_build(2), dim_build(3),
								   pf.emit(0, {x_slot(id, ty(TM_K_INT8)), x_slot(p1, ty(TM_K_INT4)),
											   x_slot(w1, ty(TM_K_INT4)), x_slot(p4, ty(TM_K_INT4))})},
								  hts, {result({ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_INT4), ty(TM_K_INT4)})}, 0);
			std::vector<std::string> rows = check_plan("deep mix, emit", pl,
													   {&dims[0], &dims[1], &dims[2], &dims[3], &F});

			TM_CHECK(rows.size() > 100);
		}
		else
		{
			TmPlan		pl = plan({dim_build(0), dim_build(1), dim_build(2), dim_build(3),
								   pf.agg(0, {x_slot(g, ty(TM_K_INT4))},
										  {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
										   agg(TM_AGG_COUNT, x_slot(p1, ty(TM_K_INT4)), ty(TM_K_INT8)),
										   agg(TM_AGG_SUM, x_slot(w4, ty(TM_K_INT4)), ty(TM_K_INT8)),
										   agg(TM_AGG_SUM, x_slot(p4, ty(TM_K_INT4)), ty(TM_K_INT8), NULL, true)})},
								  hts, {result({ty(TM_K_INT4), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8),
												ty(TM_K_INT8)})}, 0);

			check_plan("deep mix, grouped aggregate", pl, {&dims[0], &dims[1], &dims[2], &dims[3], &F});
		}
	}
}

/* filters at every level; aggregates with FILTER clauses, DISTINCT, text min / max; parameters */
static void
test_filters_aggs(void)
{
	HTable		F = make_fact(12000, 500, 0.8);
	HTable		D = make_dim(500, [](int k) { return 1 + k % 3; }, 500, 0.02);
	PipeB		pf(TM_SRC_TABLE, 1);
	int			k = pf.slot(ty(TM_K_INT4), 0, F_K1);
	int			v = pf.slot(ty(TM_K_INT4), 0, F_V);
	int			t = pf.slot(ty(TM_K_TEXT), 0, F_T);
	int			par = pf.slot(ty(TM_K_INT4), -1, 0);
	int			p,
				w,
				n;
	TmValue		param;
	bool		pnull = false;

	pf.filter(x_cmp_slots(v, TM_PRED_LE, par));
	p = pf.slot(ty(TM_K_INT4), 2, 0);
	w = pf.slot(ty(TM_K_INT4), 2, 1);
	n = pf.slot(ty(TM_K_TEXT), 2, 2);
	pf.probe(TM_JOIN_INNER, 0, {x_slot(k, ty(TM_K_INT4))}, NULL);
	pf.filter(x_cmp_slots(w, TM_PRED_LE, v));
	pf.filter(x_cmp_const(p, TM_PRED_NE, 17));
	TmPlan		pl = plan({dim_build(0),
						   pf.agg(0, {x_slot(n, ty(TM_K_TEXT))},
								  {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								   agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8), x_cmp_const(w, TM_PRED_GT, 0)),
								   agg(TM_AGG_COUNT, x_slot(p, ty(TM_K_INT4)), ty(TM_K_INT8), NULL, true),
								   agg(TM_AGG_SUM, x_mod(p, 10, TM_K_INT4), ty(TM_K_INT8), NULL, true),
								   agg(TM_AGG_SUM, x_slot(w, ty(TM_K_INT4)), ty(TM_K_INT8), x_cmp_const(v, TM_PRED_LT, 0)),
								   agg(TM_AGG_MIN, x_slot(t, ty(TM_K_TEXT)), ty(TM_K_TEXT)),
								   agg(TM_AGG_MAX, x_slot(t, ty(TM_K_TEXT)), ty(TM_K_TEXT)),
								   agg(TM_AGG_COUNT, x_slot(t, ty(TM_K_TEXT)), ty(TM_K_INT8), x_cmp_const(p, TM_PRED_LT, 250), true)})},
						  {dim_ht()},
						  {result({ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8),
								   ty(TM_K_INT8), ty(TM_K_TEXT), ty(TM_K_TEXT), ty(TM_K_INT8)})}, 0,
						  {ty(TM_K_INT4)});

	memset(&param, 0, sizeof(param));
	param.i = 30;
	check_plan("filters at every level, aggregates by text", pl, {&D, &F}, &param, &pnull);
	pnull = true;
	check_plan("filters, NULL parameter", pl, {&D, &F}, &param, &pnull, {0, 1, 2});
}

/*
 * HASH_BUILD fed by a join, probed by a later pipeline; an AGG result read by a later pipeline:
 *   D2 -> ht0 (k -> p, w, name)
 *   D1 -> PROBE ht0 inner on p (multi) -> FILTER -> HASH_BUILD ht1 ((k % 50) -> (p1 + w2, name2))
 *   F  -> PROBE ht1 on (k1 % 50) -> AGG result0 by (name2): count(*), sum(v), max(x)
 *   result0 -> FILTER count > 3 -> EMIT result1
 */
static void
test_build_chain(void)
{
	HTable		F = make_fact(8000, 300, 1.2);
	HTable		D1 = make_dim(300, [](int k) { return 1 + k % 3; }, 120, 0.02);
	HTable		D2 = make_dim(120, [](int k) { return 1 + (k * 5) % 4; }, 50, 0.02);
	PipeB		p1(TM_SRC_TABLE, 1);
	int			d1k = p1.slot(ty(TM_K_INT4), 0, D_K);
	int			d1p = p1.slot(ty(TM_K_INT4), 0, D_P);
	int			d2w = p1.slot(ty(TM_K_INT4), 1, 1);
	int			d2n = p1.slot(ty(TM_K_TEXT), 1, 2);
	PipeB		p2(TM_SRC_TABLE, 2);
	int			fk = p2.slot(ty(TM_K_INT4), 0, F_K1);
	int			fv = p2.slot(ty(TM_K_INT4), 0, F_V);
	int			mx = p2.slot(ty(TM_K_INT4), 1, 0);
	int			mn = p2.slot(ty(TM_K_TEXT), 1, 1);
	std::vector<TmType> rt = {ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT4)};
	PipeB		p3(TM_SRC_RESULT, 0);
	int			r0 = p3.slot(rt[0], 0, 0);
	int			r1 = p3.slot(rt[1], 0, 1);
	int			r2 = p3.slot(rt[2], 0, 2);
	int			r3 = p3.slot(rt[3], 0, 3);

	p1.probe(TM_JOIN_INNER, 0, {x_slot(d1p, ty(TM_K_INT4))}, NULL);
	p1.filter(x_cmp_const(d2w, TM_PRED_NE, 0));
	TmPipeline	build1 = p1.build(1, {x_mod(d1k, 50, TM_K_INT4)}, {x_addmod(d1p, d2w, 1000), x_slot(d2n, ty(TM_K_TEXT))});
	p2.probe(TM_JOIN_INNER, 1, {x_mod(fk, 50, TM_K_INT4)}, NULL);
	TmPipeline	aggp = p2.agg(0, {x_slot(mn, ty(TM_K_TEXT))},
							  {agg(TM_AGG_COUNT_STAR, NULL, rt[1]), agg(TM_AGG_SUM, x_slot(fv, ty(TM_K_INT4)), rt[2]),
							   agg(TM_AGG_MAX, x_slot(mx, ty(TM_K_INT4)), rt[3])});
	p3.filter(x_cmp_const(r1, TM_PRED_GT, 3));
	TmPipeline	emit = p3.emit(1, {x_slot(r0, rt[0]), x_slot(r1, rt[1]), x_slot(r2, rt[2]), x_slot(r3, rt[3])});
	TmPlan		pl = plan({dim_build(0), build1, aggp, emit},
						  {dim_ht(), hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4), ty(TM_K_TEXT)})},
						  {result(rt), result(rt)}, 1);
	std::vector<std::string> rows = check_plan("hash build fed by a join, aggregate, result source", pl,
											   {&D2, &D1, &F, NULL});

	TM_CHECK(rows.size() > 3);
}

/*
 * One source row meets 150000 build rows, then a primary-key join: the range is shared across warps
 * (AWS hands it off; NIFS leaves it to one warp).  Also checks the figures: hand-offs with AWS, and
 * AWS balances better than NIFS.
 */
static void
test_one_hot_row(void)
{
	HTable		F = make_fact(64, 10, 0, 0, 0);
	HTable		D1 = make_dim(10, [](int k) { return k == 3 ? 150000 : 1; }, 1000);
	HTable		D2 = make_dim(1000, one, 1000);
	std::vector<HTable> dims = {D1, D2};
	TmPlan		pl = join_plan(2, true, SINK_GLOBAL);

	for (int64_t r = 0; r < F.nrows; r++)
		F.cols[F_K1].i[r] = (r == 37) ? 3 : 5;
	check_plan("one row with 150000 matches", pl, join_inputs(dims, 2, &F));

	/* the figures: NIFS leaves the row to one warp, AWS shares it */
	{
		Run			rn = run_plan(pl, join_inputs(dims, 2, &F), g_variants[1]);
		Run			ra = run_plan(pl, join_inputs(dims, 2, &F), g_variants[2]);
		Run			r3 = run_plan(pl, join_inputs(dims, 2, &F), g_variants[5]);

		TM_CHECK_MSG(rn.rc == TM_GPU_OK && ra.rc == TM_GPU_OK && r3.rc == TM_GPU_OK, "rc %d %d %d: %s %s", rn.rc,
					 ra.rc, r3.rc, rn.err, ra.err);
		if (rn.rc == TM_GPU_OK && ra.rc == TM_GPU_OK && r3.rc == TM_GPU_OK)
		{
			const TmGpuPipelineStats &sn = rn.stats[2];
			const TmGpuPipelineStats &sa = ra.stats[2];

			printf("one hot row: nifs imbalance %.2f idle %.3f; nifs_aws imbalance %.2f idle %.3f hand-offs %lld; "
				   "3 warps hand-offs %lld\n", sn.imbalance, sn.idle_ratio, sa.imbalance, sa.idle_ratio,
				   (long long) sa.handoffs, (long long) r3.stats[2].handoffs);
			TM_CHECK_MSG(sa.handoffs > 0 && r3.stats[2].handoffs > 0, "hand-offs %lld, with 3 warps %lld",
						 (long long) sa.handoffs, (long long) r3.stats[2].handoffs);
			TM_CHECK_MSG(sn.handoffs == 0, "nifs hand-offs %lld", (long long) sn.handoffs);
			TM_CHECK_MSG(sa.imbalance < sn.imbalance, "imbalance: nifs_aws %.2f, nifs %.2f", sa.imbalance,
						 sn.imbalance);
			check_rows("one hot row, nifs vs nifs_aws", out_rows(ra.out), out_rows(rn.out));
		}
		tm_gpu_table_free(&rn.out);
		tm_gpu_table_free(&ra.out);
		tm_gpu_table_free(&r3.out);
	}
}

static double
now_s(void)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/*
 * Cancel: F (10^6 rows) joins D (10^6 rows) on one key, 10^12 tuples into count(*), sum(w) (minutes of
 * work in any mode); another thread cancels the pool 300 ms into the call, which must return
 * TM_GPU_ERR_CANCELED within a second of that, without a result.  With a residual that no match passes,
 * the plain kernel spends the time in one row's match loop.  A canceled pool refuses every call until
 * cleared; then it runs a plan right.  A watchdog ends the test (failed) if a call does not come back.
 */
static void
test_cancel(void)
{
	HTable		F = make_fact(1000000, 1, 0, 0, 0);
	HTable		D = make_dim(1, [](int) { return 1000000; }, 1000);
	GpuIn		gD(D);
	GpuIn		gF(F);
	TmGpuTable	tabs[2] = {gD.t, gF.t};
	const int	variants[] = {0, 1, 2, 6};
	const char *const rname[] = {"", ", residual", ", max under the lock"};
	std::atomic<bool> finished(false);
	std::thread watchdog([&finished]() {
		for (int i = 0; i < 1200 && !finished.load(); i++)
			std::this_thread::sleep_for(std::chrono::milliseconds(100));
		if (!finished.load())
		{
			printf("FAIL [test_cancel]: a canceled tm_gpu_execute did not return within 120 s\n");
			fflush(stdout);
			_exit(1);
		}
	});

	/* resid: 0 none, 1 a residual no match passes, 2 none and max(t) under the group's lock (see below) */
	for (int resid = 0; resid < 3; resid++)
	{
		PipeB		pf(TM_SRC_TABLE, 1);
		int			k = pf.slot(ty(TM_K_INT4), 0, F_K1);
		int			w = pf.slot(ty(TM_K_INT4), 1, 1);
		int			t = pf.slot(ty(TM_K_TEXT), 0, F_T);
		TmPlan		pl;

		pf.probe(TM_JOIN_INNER, 0, {x_slot(k, ty(TM_K_INT4))}, resid == 1 ? x_cmp_const(w, TM_PRED_GT, 1000) : NULL);
		if (resid < 2)
			pl = plan({dim_build(0), pf.agg(0, {}, {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
													  agg(TM_AGG_SUM, x_slot(w, ty(TM_K_INT4)), ty(TM_K_INT8))})},
					  {dim_ht()}, {result({ty(TM_K_INT8), ty(TM_K_INT8)})}, 0);
		else
		{
			/*
			 * every tuple takes the one group's lock (a text max; without the fast paths, no peek): a
			 * cancel must not wait for each thread of the grid to take the lock once more
			 */
			pl = plan({dim_build(0), pf.agg(0, {}, {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
													  agg(TM_AGG_MAX, x_slot(t, ty(TM_K_TEXT)), ty(TM_K_TEXT))})},
					  {dim_ht()}, {result({ty(TM_K_INT8), ty(TM_K_TEXT)})}, 0);
			tm_gpu_pool_set_fast_paths(g_pool, 0);
		}
		for (int vi : variants)
		{
			const Variant &v = g_variants[vi];
			std::atomic<double> t_cancel(0);
			std::vector<TmGpuPipelineStats> stats(2);
			Run			r;
			double		t0;
			double		t1;

			memset(&r.out, 0, sizeof(r.out));
			tm_gpu_pool_set_load_balance(g_pool, v.mode);
			tm_gpu_set_lb_max_warps(v.maxwarps);
			t0 = now_s();
			{
				/* the inputs are ready: the 300 ms are GPU time (uploads, the build, then the probe) */
				std::thread canceler([&t_cancel]() {
					std::this_thread::sleep_for(std::chrono::milliseconds(300));
					t_cancel.store(now_s());
					tm_gpu_pool_cancel(g_pool);
				});

				r.rc = tm_gpu_execute(g_pool, &pl, tabs, 2, NULL, NULL, &r.out, stats.data(), &r.fail, r.err,
									  sizeof(r.err));
				t1 = now_s();
				canceler.join();
			}
			tm_gpu_pool_set_load_balance(g_pool, TM_GPU_LB_NONE);
			tm_gpu_set_lb_max_warps(0);
			printf("cancel [%s%s]: rc %d after %.3f s, %.3f s after the cancel (%s)\n", v.name, rname[resid],
				   r.rc, t1 - t0, t1 - t_cancel.load(), r.err);
			TM_CHECK_MSG(r.rc == TM_GPU_ERR_CANCELED && strstr(r.err, "canceled") != NULL,
						 "[%s%s] rc %d (%s): expected TM_GPU_ERR_CANCELED", v.name, rname[resid], r.rc, r.err);
			TM_CHECK_MSG(t1 - t_cancel.load() < 1.0, "[%s%s] returned %.3f s after the cancel", v.name,
						 rname[resid], t1 - t_cancel.load());
			TM_CHECK(r.out.cols == NULL && r.out.nrows == 0);
			TM_CHECK(tm_gpu_pool_canceled(g_pool));
			tm_gpu_table_free(&r.out);

			/* still canceled: the next call fails at once; cleared, the pool works */
			t0 = now_s();
			r = run_plan(pl, {&D, &F}, v);
			TM_CHECK_MSG(r.rc == TM_GPU_ERR_CANCELED && now_s() - t0 < 1.0, "[%s] canceled pool: rc %d after %.3f s",
						 v.name, r.rc, now_s() - t0);
			tm_gpu_table_free(&r.out);
			tm_gpu_pool_clear_cancel(g_pool);
			TM_CHECK(!tm_gpu_pool_canceled(g_pool));
			{
				HTable		Fs = make_fact(3000, 200, 1.0);
				std::vector<HTable> dims = {make_dim(200, [](int kk) { return 1 + kk % 7; }, 200)};
				char		what[100];

				snprintf(what, sizeof(what), "after a cancel [%s]", v.name);
				check_plan(what, join_plan(1, false, SINK_GLOBAL), join_inputs(dims, 1, &Fs), NULL, NULL, {vi});
			}
		}
	}
	tm_gpu_pool_set_fast_paths(g_pool, 1);
	tm_gpu_pool_cancel(NULL);	/* no-ops */
	tm_gpu_pool_clear_cancel(NULL);
	TM_CHECK(!tm_gpu_pool_canceled(NULL));
	finished.store(true);
	watchdog.join();
}

/* expression errors: one failing tuple deep in the tree (its exact source row), and errors at sinks */
static void
test_errors(void)
{
	HTable		F = make_fact(10000, 300, 1.0, 0.0, 0.0);
	HTable		D1 = make_dim(300, [](int k) { return 1 + k % 5; }, 300);
	HTable		D2 = make_dim(300, one, 300);
	int64_t		bad = 7777;
	std::vector<int64_t> chunks = {0, 7, 1000};

	/* F.id = 7777 fails in the residual of the second join (only tuples that reach it evaluate it) */
	F.cols[F_K1].i[bad] = 4;	/* 5 matches */
	{
		PipeB		pf(TM_SRC_TABLE, 2);
		int			id = pf.slot(ty(TM_K_INT8), 0, F_ID);
		int			k1 = pf.slot(ty(TM_K_INT4), 0, F_K1);
		int			p1 = pf.slot(ty(TM_K_INT4), 1, 0);

		pf.probe(TM_JOIN_INNER, 0, {x_slot(k1, ty(TM_K_INT4))}, NULL);
		pf.probe(TM_JOIN_INNER, 1, {x_slot(p1, ty(TM_K_INT4))}, x_div_qual(id, bad, TM_K_INT8));
		TmPlan		pl = plan({dim_build(0), dim_build(1), pf.agg(0, {}, {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8))})},
							  {dim_ht(), dim_ht()}, {result({ty(TM_K_INT8)})}, 0);

		check_plan("error in a level-2 residual", pl, {&D1, &D2, &F});
		for (int64_t n : chunks)
			for (int vi : {1, 2, 5})
			{
				tm_gpu_set_max_chunk_rows(n);
				Run			r = run_plan(pl, {&D1, &D2, &F}, g_variants[vi]);

				tm_gpu_set_max_chunk_rows(0);
				TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.status == TM_ERR_DIV_BY_ZERO && r.fail.pipeline == 2 &&
							 r.fail.row == bad, "[%s] chunks of %lld: rc %d status %d pipeline %d row %lld: %s",
							 g_variants[vi].name, (long long) n, r.rc, r.fail.status, r.fail.pipeline,
							 (long long) r.fail.row, r.err);
				tm_gpu_table_free(&r.out);
			}
	}

	/* in an EMIT value after a fan-out */
	{
		PipeB		pf(TM_SRC_TABLE, 1);
		int			id = pf.slot(ty(TM_K_INT8), 0, F_ID);
		int			k1 = pf.slot(ty(TM_K_INT4), 0, F_K1);
		int			w1 = pf.slot(ty(TM_K_INT4), 1, 1);

		pf.probe(TM_JOIN_INNER, 0, {x_slot(k1, ty(TM_K_INT4))}, NULL);
		TmPlan		pl = plan({dim_build(0), pf.emit(0, {x_slot(id, ty(TM_K_INT8)), x_div_zero_at(w1, 13, 1000)})},
							  {dim_ht()}, {result({ty(TM_K_INT8), ty(TM_K_INT4)})}, 0);

		check_plan("error in an emit value", pl, {&D1, &F});
	}

	/* in an aggregate's argument, global */
	{
		PipeB		pf(TM_SRC_TABLE, 1);
		int			k1 = pf.slot(ty(TM_K_INT4), 0, F_K1);
		int			v = pf.slot(ty(TM_K_INT4), 0, F_V);

		pf.probe(TM_JOIN_SEMI, 0, {x_slot(k1, ty(TM_K_INT4))}, NULL);
		TmPlan		pl = plan({dim_build(0), pf.agg(0, {}, {agg(TM_AGG_SUM, x_div_zero_at(v, 7, 100), ty(TM_K_INT8))})},
							  {dim_ht()}, {result({ty(TM_K_INT8)})}, 0);

		check_plan("error in an aggregate argument", pl, {&D1, &F});
	}

	/* in a build key of a HASH_BUILD fed by a join (pipeline 1) */
	{
		PipeB		p1(TM_SRC_TABLE, 1);
		int			k1 = p1.slot(ty(TM_K_INT4), 0, F_K1);
		int			v = p1.slot(ty(TM_K_INT4), 0, F_V);
		int			w1 = p1.slot(ty(TM_K_INT4), 1, 1);
		PipeB		p2(TM_SRC_TABLE, 0);
		int			dk = p2.slot(ty(TM_K_INT4), 0, D_K);
		int			m = p2.slot(ty(TM_K_INT4), 1, 0);

		p1.probe(TM_JOIN_INNER, 0, {x_slot(k1, ty(TM_K_INT4))}, NULL);
		TmPipeline	b = p1.build(1, {x_div_zero_at(w1, 21, 1000)}, {x_slot(v, ty(TM_K_INT4))});
		p2.probe(TM_JOIN_INNER, 1, {x_slot(dk, ty(TM_K_INT4))}, NULL);
		TmPlan		pl = plan({dim_build(0), b, p2.emit(0, {x_slot(m, ty(TM_K_INT4))})},
							  {dim_ht(), hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4)})}, {result({ty(TM_K_INT4)})}, 0);

		check_plan("error in a build key after a join", pl, {&D1, &F, &D2});
	}
}

/* chunked host inputs (tm_gpu_set_max_chunk_rows) give the rows and stats of an unchunked run */
static void
test_chunks(void)
{
	HTable		F = make_fact(9000, 300, 1.0);
	auto		mult = [](int k) { return std::max(1, 20 / (k + 1)); };
	std::vector<HTable> dims = {make_dim(300, mult, 300, 0.02), make_dim(300, one, 300), make_dim(300, one, 300)};
	TmPlan		plans[] = {join_plan(2, true, SINK_EMIT), join_plan(3, false, SINK_GROUPED),
		join_plan(1, false, SINK_GLOBAL), join_plan(2, false, SINK_GLOBAL, TM_JOIN_LEFT)};
	int			nj[] = {2, 3, 1, 2};
	const char *names[] = {"chain emit", "star grouped (DISTINCT)", "global", "left joins, global"};

	for (int i = 0; i < 4; i++)
		for (int64_t n : {7, 1000, 4096})
		{
			char		w[100];

			snprintf(w, sizeof(w), "chunks of %lld rows, %s", (long long) n, names[i]);
			tm_gpu_set_max_chunk_rows(n);
			check_plan(w, plans[i], join_inputs(dims, nj[i], &F), NULL, NULL, n == 7 ? std::vector<int>{1, 5} :
					   std::vector<int>{0, 1, 2, 6});
			tm_gpu_set_max_chunk_rows(0);
		}

	/* the hash build chain over chunks */
	{
		HTable		D1 = make_dim(300, [](int k) { return 1 + k % 3; }, 120);
		HTable		D2 = make_dim(120, [](int k) { return 1 + k % 4; }, 50);
		PipeB		p1(TM_SRC_TABLE, 1);
		int			d1k = p1.slot(ty(TM_K_INT4), 0, D_K);
		int			d1p = p1.slot(ty(TM_K_INT4), 0, D_P);
		int			d2n = p1.slot(ty(TM_K_TEXT), 1, 2);
		PipeB		p2(TM_SRC_TABLE, 2);
		int			fk = p2.slot(ty(TM_K_INT4), 0, F_K1);
		int			fid = p2.slot(ty(TM_K_INT8), 0, F_ID);
		int			mn = p2.slot(ty(TM_K_TEXT), 1, 0);

		p1.probe(TM_JOIN_INNER, 0, {x_slot(d1p, ty(TM_K_INT4))}, NULL);
		TmPipeline	b = p1.build(1, {x_mod(d1k, 40, TM_K_INT4)}, {x_slot(d2n, ty(TM_K_TEXT))});
		p2.probe(TM_JOIN_INNER, 1, {x_mod(fk, 40, TM_K_INT4)}, x_cmp_const(fid, TM_PRED_LT, 3000));
		TmPlan		pl = plan({dim_build(0), b, p2.emit(0, {x_slot(fid, ty(TM_K_INT8)), x_slot(mn, ty(TM_K_TEXT))})},
							  {dim_ht(), hashtable({ty(TM_K_INT4)}, {ty(TM_K_TEXT)})},
							  {result({ty(TM_K_INT8), ty(TM_K_TEXT)})}, 0);

		tm_gpu_set_max_chunk_rows(500);
		check_plan("chunks of 500 rows, hash build chain", pl, {&D2, &D1, &F}, NULL, NULL, {0, 1, 2, 5});
		tm_gpu_set_max_chunk_rows(0);
	}
}

/* device-resident inputs and empty inputs */
static void
test_inputs(void)
{
	HTable		F = make_fact(7000, 500, 1.5);
	std::vector<HTable> dims = {make_dim(500, [](int k) { return 1 + k % 2; }, 500), make_dim(500, one, 500)};
	HTable		E = make_fact(0, 500, 0);
	std::vector<HTable> edims = {make_dim(0, one, 500), make_dim(500, one, 500)};

	check_plan("device inputs, 2 joins, emit", join_plan(2, true, SINK_EMIT), join_inputs(dims, 2, &F), NULL, NULL,
			   {0, 1, 2, 5}, true);
	check_plan("empty fact table", join_plan(2, true, SINK_GLOBAL), join_inputs(dims, 2, &E));
	check_plan("empty fact table, grouped", join_plan(2, true, SINK_GROUPED), join_inputs(dims, 2, &E));
	check_plan("empty build side", join_plan(2, true, SINK_GLOBAL), join_inputs(edims, 2, &F));
	check_plan("empty build side, left joins", join_plan(2, true, SINK_EMIT, TM_JOIN_LEFT), join_inputs(edims, 2, &F));

	/* a scan without ops: source -> EMIT / AGG */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			id = p.slot(ty(TM_K_INT8), 0, F_ID);
		int			t = p.slot(ty(TM_K_TEXT), 0, F_T);
		PipeB		q = p;
		TmPlan		pe = plan({p.emit(0, {x_slot(id, ty(TM_K_INT8)), x_slot(t, ty(TM_K_TEXT))})}, {},
							  {result({ty(TM_K_INT8), ty(TM_K_TEXT)})}, 0);
		TmPlan		pa = plan({q.agg(0, {x_slot(t, ty(TM_K_TEXT))}, {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8))})}, {},
							  {result({ty(TM_K_TEXT), ty(TM_K_INT8)})}, 0);

		check_plan("scan, emit", pe, {&F});
		check_plan("scan, aggregate", pa, {&F});
	}
}

int
main(void)
{
	int			ndev = 0;
	cudaError_t e = cudaGetDeviceCount(&ndev);
	char		err[256];

	if (e != cudaSuccess || ndev == 0)
	{
		printf("skipped: no GPU (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
		return tm_unit_done();
	}
	if (tm_gpu_pool_create(0, (size_t) 1 << 30, &g_pool, err, sizeof(err)) != TM_GPU_OK)
	{
		printf("tm_gpu_pool_create: %s\n", err);
		tm_unit_failed++;
		return tm_unit_done();
	}

	/* the mode switch */
	TM_CHECK_INT_EQ(tm_gpu_pool_get_load_balance(g_pool), TM_GPU_LB_NONE);
	tm_gpu_pool_set_load_balance(g_pool, TM_GPU_LB_NIFS_AWS);
	TM_CHECK_INT_EQ(tm_gpu_pool_get_load_balance(g_pool), TM_GPU_LB_NIFS_AWS);
	tm_gpu_pool_set_load_balance(g_pool, 7);	/* ignored */
	TM_CHECK_INT_EQ(tm_gpu_pool_get_load_balance(g_pool), TM_GPU_LB_NIFS_AWS);
	tm_gpu_pool_set_load_balance(g_pool, TM_GPU_LB_NONE);
	TM_CHECK_INT_EQ(tm_gpu_pool_get_load_balance(NULL), TM_GPU_LB_NONE);

	TM_RUN(test_star_zipf);
	TM_RUN(test_fanout);
	TM_RUN(test_jcch);
	TM_RUN(test_join_types);
	TM_RUN(test_deep_mix);
	TM_RUN(test_filters_aggs);
	TM_RUN(test_build_chain);
	TM_RUN(test_one_hot_row);
	TM_RUN(test_errors);
	TM_RUN(test_chunks);
	TM_RUN(test_inputs);
	TM_RUN(test_cancel);
	printf("device memory used at most: %zu bytes of %zu\n", tm_gpu_pool_peak(g_pool), tm_gpu_pool_size(g_pool));

	TM_CHECK(tm_gpu_pool_destroy(g_pool, err, sizeof(err)) == TM_GPU_OK);
	for (void *p : g_allocs)
		free(p);
	return tm_unit_done();
}
