/*
 * gpu_pipeline.cu — tests of the GPU executor (cuda/tm_gpu_exec.cu, interface cuda/tm_gpu_exec.h).
 *
 * Builds small TmPlans by hand (expressions assembled like test_expr.c does), runs them on the GPU over
 * random tables with NULLs, duplicates and skewed (Zipf) keys, and compares the output with a plain CPU
 * reference written here (nested loops, maps).  Rows are compared as sorted lists of text renderings
 * (in order where the executor promises an order).  Covered: filter + emit with a parameter; inner /
 * semi / anti / left joins with and without residual quals; two joins in one pipeline (a two-key one
 * and a residual across levels); grouped and global aggregation (count / sum / min / max over int4,
 * int8, numeric, float8, date, text, FILTER clauses, NULL group keys, bpchar keys); aggregation after a
 * join feeding a RESULT source; grouped aggregates over no sink row (0 source rows, every row filtered,
 * every aggregate FILTERed: block-private states that stay empty); a group table that outgrows its first
 * size (also in a small pool, where the COUNT pass sizes the new one); EMIT appends; DISTINCT
 * aggregates (count / sum / min / max over int4, int8, numeric, text, bpchar, float8 with -0 / NaN,
 * FILTER clauses, NULL group keys, no group keys, after a join, sets that outgrow their first size,
 * heavy contention on few values); device-resident inputs (on_device = 1: same results as host inputs,
 * bad pointers refused); errors: division by zero (also in a later pipeline), numeric sum beyond 128
 * bits (fallback; grouped too, on the block-private path and with the fast paths off), a pool too
 * small.  Chunks (host inputs run over row chunks): each plan run unchunked and with
 * tm_gpu_set_max_chunk_rows 1, 7, 1000 (and others) gives the same rows (EMIT: in the same order) and
 * stats: EMIT of every kind, substrings, constants and parameters; filters that drop whole
 * chunks or every row; joins whose build and probe sides are chunked (text keys, EMIT appends); grouped,
 * global and DISTINCT aggregates, after a join, into a RESULT source; long texts met again in later
 * chunks; group tables / DISTINCT sets that overflow in a later chunk; expression errors in a late
 * chunk (the source row number); device inputs (never chunked); and without the limit: a pool smaller
 * than the input, a pool that holds the input but not the sink as well (run again over chunks), a
 * skewed join whose chunk is redone with fewer rows.
 *
 * The whole list runs once per scheduler (tm_gpu_pool_set_load_balance): TM_GPU_LB_NONE, then
 * TM_GPU_LB_NIFS_AWS, then TM_GPU_LB_AUTO, then twice more with the partitioned join forced wherever it
 * applies (tm_gpu_pool_set_join_algorithm: PARTITIONED under NONE, PARTITIONED_GFUR under AUTO; rows as
 * multisets then); the environment variable TM_GPU_TEST_LB_MODES picks other passes: e.g. "0,2,p,g"
 * ("0".."3": that scheduler with the AUTO join, "p": NONE with PARTITIONED, "g": AUTO with
 * PARTITIONED_GFUR); TM_GPU_TEST_JIT_ONLY set: only the last pass, kernels generated per pipeline
 * (tm_gpu_pool_set_jit; test_jit_sources also runs on the host without a GPU).  test_partitioned_join
 * compares the partitioned join with the probe in the kernel.  With
 * NIFS / NIFS_AWS, rows are compared as multisets where NONE promises an order (EMIT in source order), and
 * the chunk test's pool-peak ratio is not checked (the scheduler's scratch is a fixed part of the peak).
 * test/unit/gpu_nifs.cu tests the Themis scheduler itself.
 *
 * Prints "N passed, N failed" (tm_unit.h); without a usable GPU it says it skipped and passes (make
 * unittest does not even run it then, see test/unit/harness/run.sh).
 *
 *   nvcc -gencode arch=compute_90,code=sm_90 -std=c++17 --fmad=false -Iinclude -Icuda -Itest/unit \
 *        test/unit/gpu_pipeline.cu cuda/tm_gpu_exec.cu -o gpu_pipeline
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "themis/tm_types.h"
#include "themis/tm_expr.h"
#include "themis/tm_ir.h"
#include "themis/tm_expr_eval.h"
#include "tm_gpu_exec.h"
#include "tm_jit.h"
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
 * A tiny assembler (as in test_expr.c)
 * ------------------------------------------------------------------------------------------------
 */
struct Asm
{
	TmInstr		code[256];
	int			n;
	TmValue		consts[256];
	int			nc;
	char		pool[4096];
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
p_const(TmValue v)
{
	A.consts[A.nc] = v;
	a_op(TMI_PUSH_CONST, 0, A.nc++, 0, 0);
}

static void
p_int(int64_t i)
{
	TmValue		v;

	memset(&v, 0, sizeof(v));
	v.i = i;
	p_const(v);
}

static void
patch(int at)
{
	A.code[at].a = A.n;
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

/* the assembled block, 16-byte aligned like the compiler's, checked by tm_expr_validate */
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

/* slot s */
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

/* slot a % m (integer kind kind) */
static TmExpr *
x_mod(int a, int64_t m, int kind)
{
	a_init();
	p_slot(a);
	p_int(m);
	a_op(TMI_MOD, kind, 0, 0, 0);
	return a_build(ty(kind));
}

/* slot a % m <pred> constant k (integer kind kind) */
static TmExpr *
x_mod_cmp(int a, int64_t m, int kind, int pred, int64_t k)
{
	a_init();
	p_slot(a);
	p_int(m);
	a_op(TMI_MOD, kind, 0, 0, 0);
	p_int(k);
	a_op(TMI_CMP, TM_CMP_INT, pred, 0, 0);
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
agg(int kind, TmExpr *arg, TmType restype, TmExpr *filter = NULL)
{
	TmAgg		a;

	memset(&a, 0, sizeof(a));
	a.kind = kind;
	a.arg = arg;
	a.restype = restype;
	a.filter = filter;
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
 * Random data
 * ------------------------------------------------------------------------------------------------
 */
static uint64_t rng = 0x9E3779B97F4A7C15ULL;

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

/* Zipf over [0, n): value i with weight 1 / (i + 1)^s (value 0 is the hottest) */
struct Zipf
{
	std::vector<double> cdf;

	Zipf(int n, double s)
	{
		double		sum = 0;

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
		double		u = (double) (rnd() >> 11) / 9007199254740992.0;

		return (int) (std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
	}
};

/* a host column: values by kind, NULL flags */
struct HCol
{
	int			kind;
	bool		has_nulls;		/* pass a nulls array to the GPU */
	std::vector<int64_t> i;		/* bool, int kinds, date */
	std::vector<double> f;
	std::vector<__int128> n;	/* numeric (tm_int128 values) */
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

/* append one value (null: a NULL) */
static void
push_i(HCol &c, int64_t v, bool null = false)
{
	c.i.push_back(null ? 0 : v);
	c.nul.push_back(null);
	c.has_nulls |= null;
}

static void
push_f(HCol &c, double v, bool null = false)
{
	c.f.push_back(null ? 0 : v);
	c.nul.push_back(null);
	c.has_nulls |= null;
}

static void
push_n(HCol &c, tm_int128 v, bool null = false)
{
	c.n.push_back(null ? 0 : v);
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

/* the table in the layout of tm_gpu_exec.h (buffers owned here) */
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
						case TM_K_BOOL:
							*(uint8_t *) p = (uint8_t) hc.i[r];
							break;
						case TM_K_INT2:
							*(int16_t *) p = (int16_t) hc.i[r];
							break;
						case TM_K_INT4:
						case TM_K_DATE:
							*(int32_t *) p = (int32_t) hc.i[r];
							break;
						case TM_K_INT8:
						case TM_K_TIMESTAMP:
							*(int64_t *) p = hc.i[r];
							break;
						case TM_K_FLOAT4:
							*(float *) p = (float) hc.f[r];
							break;
						case TM_K_FLOAT8:
							*(double *) p = hc.f[r];
							break;
						case TM_K_NUMERIC:
							memcpy(p, &hc.n[r], 16);
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
		t.on_device = 0;
	}
};

/*
 * The same table in device memory (cudaMalloc'd here, copied on the pool's stream without waiting:
 * the executor's work on that stream comes after the copies), passed with on_device = 1
 */
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
cB(const std::string &s)		/* bpchar: compared without trailing blanks */
{
	size_t		len = s.size();

	while (len > 0 && s[len - 1] == ' ')
		len--;
	return cS(s.substr(0, len));
}

static const std::string cNULL = "N|";

/* cell r of a host column, rendered like the expected ones */
static std::string
cell(const HCol &c, int64_t r)
{
	if (c.nul[r])
		return cNULL;
	switch (c.kind)
	{
		case TM_K_FLOAT4:
		case TM_K_FLOAT8:
			return cF(c.f[r]);
		case TM_K_NUMERIC:
			return cN(c.n[r]);
		case TM_K_TEXT:
			return cS(c.s[r]);
		case TM_K_BPCHAR:
			return cB(c.s[r]);
		default:
			return cI(c.i[r]);
	}
}

/* cell r of an output column */
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

/* the scheduler and the join algorithm of the current pass over the tests (TmGpuLoadBalance, TmGpuJoinAlgo) */
static int	g_lb_mode = TM_GPU_LB_NONE;
static bool g_fast_paths = true;	/* g_pool's themis.gpu_fast_paths (main) */
static bool g_dynamic_rows = true;	/* tm_gpu_pool_set_dynamic_rows of the pass */
static bool g_jit = false;		/* tm_gpu_pool_set_jit(g_pool, 2) in the pass: generated kernels, waited for */
static int	g_join_mode = TM_GPU_JOIN_AUTO;

/* the partitioned join of the pass's join algorithm runs wherever it applies: joins promise no order */
static bool
forced_partitioned(void)
{
	return g_join_mode == TM_GPU_JOIN_PARTITIONED || g_join_mode == TM_GPU_JOIN_PARTITIONED_GFUR;
}

/*
 * one check: the rows are the expected ones (in this order if ordered, else as multisets; NIFS / AWS
 * promise no order: multisets)
 */
static void
check_rows(const char *what, std::vector<std::string> got, std::vector<std::string> exp, bool ordered)
{
	size_t		i;

	if (!ordered || g_lb_mode != TM_GPU_LB_NONE || forced_partitioned())
	{
		std::sort(got.begin(), got.end());
		std::sort(exp.begin(), exp.end());
	}
	for (i = 0; i < got.size() && i < exp.size(); i++)
		if (got[i] != exp[i])
			break;
	TM_CHECK_MSG(got.size() == exp.size() && i == got.size(),
				 "%s: %zu rows, expected %zu; first difference at %zu: got \"%s\", expected \"%s\"", what,
				 got.size(), exp.size(), i, i < got.size() ? got[i].c_str() : "(none)",
				 i < exp.size() ? exp[i].c_str() : "(none)");
}

/* ------------------------------------------------------------------------------------------------
 * Running a plan
 * ------------------------------------------------------------------------------------------------
 */
static TmGpuPool *g_pool;

struct Run
{
	int			rc;
	TmGpuTable	out;
	TmGpuFailure fail;
	std::vector<TmGpuPipelineStats> stats;
	char		err[512];
};

/* inputs: per pipeline, NULL for RESULT sources; on_device: pass them as device-resident inputs */
static Run
run_plan(const TmPlan &p, std::vector<const HTable *> inputs, const TmValue *params = NULL,
		 const bool *paramnulls = NULL, TmGpuPool *pool = NULL, bool on_device = false)
{
	Run			r;
	std::vector<GpuIn *> gin;
	std::vector<DevIn *> din;
	std::vector<TmGpuTable> tabs;
	TmGpuPool  *pl = pool ? pool : g_pool;
	bool		ok = true;

	memset(&r.out, 0, sizeof(r.out));
	memset(&r.fail, 0, sizeof(r.fail));
	r.err[0] = '\0';
	r.stats.resize((size_t) p.npipelines);
	tm_gpu_pool_set_load_balance(pl, g_lb_mode);
	tm_gpu_pool_set_join_algorithm(pl, g_join_mode);
	for (auto *h : inputs)
	{
		GpuIn	   *g = h ? new GpuIn(*h) : NULL;
		DevIn	   *d = (g && on_device) ? new DevIn(*g, (cudaStream_t) tm_gpu_pool_stream(pl)) : NULL;
		TmGpuTable	empty;

		memset(&empty, 0, sizeof(empty));
		gin.push_back(g);
		din.push_back(d);
		tabs.push_back(d ? d->t : g ? g->t : empty);
		ok &= (d == NULL || d->ok);
	}
	if (ok)
		r.rc = tm_gpu_execute(pl, &p, tabs.data(), (int) tabs.size(), params, paramnulls,
							  &r.out, r.stats.data(), &r.fail, r.err, sizeof(r.err));
	else
	{
		r.rc = TM_GPU_ERR_CUDA;
		snprintf(r.err, sizeof(r.err), "test: copying the inputs to the device failed");
	}
	for (auto *d : din)
		delete d;
	for (auto *g : gin)
		delete g;
	return r;
}

#define CHECK_OK(run) \
	TM_CHECK_MSG((run).rc == TM_GPU_OK, "tm_gpu_execute returned %d: %s", (run).rc, (run).err)

/* ------------------------------------------------------------------------------------------------
 * Test data: T (probe / fact side), B (build side), C (second build side, two keys)
 * ------------------------------------------------------------------------------------------------
 */
enum { T_ID, T_K, T_V, T_BIG, T_NUM, T_TXT, T_G, T_F, T_D, T_BP, T_NCOLS };
enum { B_K, B_W, B_NAME, B_NCOLS };
enum { C_G, C_PAR, C_LABEL, C_X, C_NCOLS };

static const char *const words[] = {"", "a", "ab", "abc", "hello", "world", "zebra", "Zebra", "\xce\xa9mega",
	"longer text value 0123456789"};
#define NWORDS ((int) (sizeof(words) / sizeof(words[0])))

static HTable
make_T(int64_t n, int kdomain)
{
	HTable		t;
	Zipf		zk(kdomain, 1.1);
	Zipf		zg(20, 1.5);
	static const char *const bps[] = {"x", "x  ", "y ", "y", "zz"};

	t.nrows = n;
	t.cols.push_back(col_new(TM_K_INT8));
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_INT8));
	t.cols.push_back(col_new(TM_K_NUMERIC));
	t.cols.push_back(col_new(TM_K_TEXT));
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_FLOAT8));
	t.cols.push_back(col_new(TM_K_DATE));
	t.cols.push_back(col_new(TM_K_BPCHAR));
	for (int64_t r = 0; r < n; r++)
	{
		push_i(t.cols[T_ID], r);
		push_i(t.cols[T_K], zk.draw(), chance(0.05));
		push_i(t.cols[T_V], rnd_range(-50, 50), chance(0.10));
		push_i(t.cols[T_BIG], rnd_range(-(INT64_C(1) << 61), INT64_C(1) << 61), chance(0.10));
		push_n(t.cols[T_NUM], (tm_int128) rnd_range(-INT64_C(1000000000000000000), INT64_C(1000000000000000000)) *
			   (tm_int128) rnd_range(1, 1000), chance(0.10));
		push_s(t.cols[T_TXT], words[rnd() % NWORDS], chance(0.10));
		push_i(t.cols[T_G], zg.draw(), chance(0.15));
		push_f(t.cols[T_F], (double) rnd_range(-100, 100), chance(0.10));
		push_i(t.cols[T_D], rnd_range(-3000, 9000), chance(0.10));
		push_s(t.cols[T_BP], bps[rnd() % 5], chance(0.10));
	}
	return t;
}

/* keys: mostly the same hot keys as T, some that T never has; duplicates everywhere */
static HTable
make_B(int64_t n, int kdomain)
{
	HTable		t;
	Zipf		zk(kdomain, 1.1);

	t.nrows = n;
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_TEXT));
	for (int64_t r = 0; r < n; r++)
	{
		int64_t		k = chance(0.8) ? zk.draw() : kdomain + rnd_range(0, 50);

		push_i(t.cols[B_K], k, chance(0.05));
		push_i(t.cols[B_W], rnd_range(-50, 50), chance(0.10));
		push_s(t.cols[B_NAME], words[rnd() % NWORDS], chance(0.10));
	}
	return t;
}

static HTable
make_C(int64_t n)
{
	HTable		t;

	t.nrows = n;
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_INT8));
	t.cols.push_back(col_new(TM_K_TEXT));
	t.cols.push_back(col_new(TM_K_INT8));
	for (int64_t r = 0; r < n; r++)
	{
		push_i(t.cols[C_G], rnd_range(0, 24), chance(0.05));
		push_i(t.cols[C_PAR], rnd_range(0, 1));
		push_s(t.cols[C_LABEL], words[rnd() % NWORDS], chance(0.10));
		push_i(t.cols[C_X], rnd_range(-60, 60), chance(0.10));
	}
	return t;
}

static bool
isnull(const HTable &t, int c, int64_t r)
{
	return t.cols[c].nul[r] != 0;
}

static int64_t
ival(const HTable &t, int c, int64_t r)
{
	return t.cols[c].i[r];
}

/* ------------------------------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------------------------------
 */

/* T -> FILTER v % 3 = 1 -> FILTER v <= $0 -> EMIT (id, v, txt, num, v * 2, f, bp): source order kept */
static void
test_filter_emit(void)
{
	HTable		T = make_T(5000, 300);
	PipeB		p(TM_SRC_TABLE, 0);
	int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
	int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
	int			s_txt = p.slot(ty(TM_K_TEXT), 0, T_TXT);
	int			s_num = p.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
	int			s_f = p.slot(ty(TM_K_FLOAT8), 0, T_F);
	int			s_bp = p.slot(ty(TM_K_BPCHAR), 0, T_BP);
	int			s_par = p.slot(ty(TM_K_INT4), -1, 0);
	TmExpr	   *v2;
	TmValue		param;
	bool		paramnull = false;
	std::vector<std::string> exp;

	p.filter(x_mod_cmp(s_v, 3, TM_K_INT4, TM_PRED_EQ, 1));
	p.filter(x_cmp_slots(s_v, TM_PRED_LE, s_par));
	a_init();
	p_slot(s_v);
	p_int(2);
	a_op(TMI_MUL, TM_K_INT4, 0, 0, 0);
	v2 = a_build(ty(TM_K_INT4));

	std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_TEXT), ty(TM_K_NUMERIC, 2), ty(TM_K_INT4),
		ty(TM_K_FLOAT8), ty(TM_K_BPCHAR)};
	TmPlan		pl = plan({p.emit(0, {x_slot(s_id, rt[0]), x_slot(s_v, rt[1]), x_slot(s_txt, rt[2]),
									   x_slot(s_num, rt[3]), v2, x_slot(s_f, rt[5]), x_slot(s_bp, rt[6])})},
						  {}, {result(rt)}, 0, {ty(TM_K_INT4)});

	memset(&param, 0, sizeof(param));
	param.i = 40;
	Run			r = run_plan(pl, {&T}, &param, &paramnull);

	CHECK_OK(r);
	for (int64_t i = 0; i < T.nrows; i++)
	{
		int64_t		v = ival(T, T_V, i);

		if (isnull(T, T_V, i) || v % 3 != 1 || v > 40)
			continue;
		exp.push_back(cell(T.cols[T_ID], i) + cell(T.cols[T_V], i) + cell(T.cols[T_TXT], i) +
					  cell(T.cols[T_NUM], i) + cI(v * 2) + cell(T.cols[T_F], i) + cell(T.cols[T_BP], i));
	}
	check_rows("filter + emit", out_rows(r.out), exp, true);
	TM_CHECK_INT_EQ(r.stats[0].source_rows, T.nrows);
	TM_CHECK_INT_EQ(r.stats[0].out_rows, (int64_t) exp.size());
	tm_gpu_table_free(&r.out);

	/* a NULL parameter: v <= NULL is never true */
	paramnull = true;
	r = run_plan(pl, {&T}, &param, &paramnull);
	CHECK_OK(r);
	TM_CHECK_INT_EQ(r.out.nrows, 0);
	tm_gpu_table_free(&r.out);
}

/* B -> HASH_BUILD ht0 (k -> w, name);  T -> PROBE ht0 (jointype, residual b.w < t.v?) -> EMIT */
static void
test_joins(void)
{
	HTable		T = make_T(6000, 300);
	HTable		B = make_B(1500, 300);
	static const char *const jname[] = {"", "inner", "semi", "anti", "left"};

	for (int jt = TM_JOIN_INNER; jt <= TM_JOIN_LEFT; jt++)
		for (int resid = 0; resid < 2; resid++)
		{
			PipeB		pb(TM_SRC_TABLE, 0);
			int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
			int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
			int			b_name = pb.slot(ty(TM_K_TEXT), 0, B_NAME);
			TmPipeline	build = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))},
										 {x_slot(b_w, ty(TM_K_INT4)), x_slot(b_name, ty(TM_K_TEXT))});
			PipeB		pp(TM_SRC_TABLE, 1);
			int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
			int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
			int			t_v = pp.slot(ty(TM_K_INT4), 0, T_V);
			int			m_w = pp.slot(ty(TM_K_INT4), 1, 0);
			int			m_name = pp.slot(ty(TM_K_TEXT), 1, 1);
			bool		wide = (jt == TM_JOIN_INNER || jt == TM_JOIN_LEFT);
			std::vector<TmType> rt;
			std::vector<TmExpr *> vals;
			std::vector<std::string> exp;
			char		what[64];

			pp.probe(jt, 0, {x_slot(t_k, ty(TM_K_INT4))}, resid ? x_cmp_slots(m_w, TM_PRED_LT, t_v) : NULL);
			rt = {ty(TM_K_INT8), ty(TM_K_INT4)};
			vals = {x_slot(t_id, rt[0]), x_slot(t_v, rt[1])};
			if (wide)
			{
				rt.push_back(ty(TM_K_INT4));
				rt.push_back(ty(TM_K_TEXT));
				vals.push_back(x_slot(m_w, rt[2]));
				vals.push_back(x_slot(m_name, rt[3]));
			}
			TmPlan		pl = plan({build, pp.emit(0, vals)},
								  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4), ty(TM_K_TEXT)})},
								  {result(rt)}, 0);
			Run			r = run_plan(pl, {&B, &T});

			snprintf(what, sizeof(what), "%s join%s", jname[jt], resid ? " with residual" : "");
			CHECK_OK(r);
			/* nested loops */
			for (int64_t i = 0; i < T.nrows; i++)
			{
				bool		found = false;
				std::string left = cell(T.cols[T_ID], i) + cell(T.cols[T_V], i);

				for (int64_t j = 0; j < B.nrows && !isnull(T, T_K, i); j++)
				{
					if (isnull(B, B_K, j) || ival(B, B_K, j) != ival(T, T_K, i))
						continue;
					if (resid && (isnull(B, B_W, j) || isnull(T, T_V, i) || !(ival(B, B_W, j) < ival(T, T_V, i))))
						continue;
					found = true;
					if (wide)
						exp.push_back(left + cell(B.cols[B_W], j) + cell(B.cols[B_NAME], j));
				}
				if ((jt == TM_JOIN_SEMI && found) || (jt == TM_JOIN_ANTI && !found))
					exp.push_back(left);
				if (jt == TM_JOIN_LEFT && !found)
					exp.push_back(left + cNULL + cNULL);
			}
			check_rows(what, out_rows(r.out), exp, false);
			TM_CHECK_MSG(r.stats[0].out_rows <= B.nrows && r.stats[1].out_rows == (int64_t) exp.size(),
						 "%s: stats %lld / %lld", what, (long long) r.stats[0].out_rows,
						 (long long) r.stats[1].out_rows);
			tm_gpu_table_free(&r.out);
		}
}

/*
 * The pre-check of pipeline_rows_compacted: the lookup of an INNER / SEMI probe right after the leading
 * filters, so that only rows with build rows of their keys go on (queued into full warps, the lookup
 * carried with them).  The source's stretches of 4,096 rows match the build on every row, on about 3%
 * of them, or on none: warps that run in place, warps whose rows wait in the queue, warps that drop
 * everything.  The queue fills only where a warp takes several chunks of 32 rows, and a full grid
 * covers these 60,000 rows at once, so the whole test runs again on a grid of 8 blocks
 * (tm_gpu_set_max_blocks).  NULL keys; with and without a residual and a leading filter (one in fast
 * form, which the lookup of this small table goes before, and one the interpreter runs, which goes
 * first); EMIT (probe side in source order) and a global AGG; against nested loops.
 */
static void check_rows_probe_order(const char *what, const std::vector<std::string> &got,
								   const std::vector<std::string> &exp);

static void
test_precheck(void)
{
	HTable		T = make_T(60000, 300);
	HTable		B = make_B(900, 300);
	std::vector<int64_t> bkeys;
	std::map<int64_t, std::vector<int64_t>> brows;	/* key -> B rows */
	static const char *const jname[] = {"", "inner", "semi"};

	for (int64_t j = 0; j < B.nrows; j++)
		if (!isnull(B, B_K, j))
		{
			bkeys.push_back(ival(B, B_K, j));
			brows[ival(B, B_K, j)].push_back(j);
		}
	for (int64_t i = 0; i < T.nrows; i++)
	{
		int			stretch = (int) ((i / 4096) % 3);

		if (isnull(T, T_K, i))
			continue;
		if (stretch == 0 || (stretch == 1 && chance(0.03)))
			T.cols[T_K].i[i] = bkeys[rnd() % bkeys.size()];
		else
			T.cols[T_K].i[i] = 100000 + i;
	}

	for (int cap = 0; cap <= 8; cap += 8)		/* 8 blocks: each warp takes ~30 chunks of 32 rows */
	for (int jt = TM_JOIN_INNER; jt <= TM_JOIN_SEMI; jt++)
		for (int resid = 0; resid < 2; resid++)
			for (int lead = 0; lead < 3; lead++)	/* 1: a filter in fast form, after the lookup */
				for (int sink = 0; sink < 2; sink++)
				{
					PipeB		pb(TM_SRC_TABLE, 0);
					int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
					int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
					TmPipeline	build = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))}, {x_slot(b_w, ty(TM_K_INT4))});
					PipeB		pp(TM_SRC_TABLE, 1);
					int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
					int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
					int			t_v = pp.slot(ty(TM_K_INT4), 0, T_V);
					int			m_w = pp.slot(ty(TM_K_INT4), lead ? 2 : 1, 0);	/* the probe's level */
					bool		wide = (jt == TM_JOIN_INNER);
					std::vector<TmType> rt;
					std::vector<TmExpr *> vals;
					std::vector<std::string> exp;
					int64_t		cnt = 0,
								sum = 0;
					bool		hsum = false;
					char		what[128];

					if (lead == 1)
						pp.filter(x_cmp_const(t_v, TM_PRED_NE, 7));
					else if (lead == 2)
						pp.filter(x_mod_cmp(t_v, 5, TM_K_INT4, TM_PRED_NE, 3));
					pp.probe(jt, 0, {x_slot(t_k, ty(TM_K_INT4))}, resid ? x_cmp_slots(m_w, TM_PRED_LT, t_v) : NULL);
					if (sink == 0)
					{
						rt = {ty(TM_K_INT8), ty(TM_K_INT4)};
						vals = {x_slot(t_id, rt[0]), x_slot(t_v, rt[1])};
						if (wide)
						{
							rt.push_back(ty(TM_K_INT4));
							vals.push_back(x_slot(m_w, rt[2]));
						}
					}
					else
						rt = {ty(TM_K_INT8), ty(TM_K_INT8)};
					TmPlan		pl = plan({build, sink == 0 ? pp.emit(0, vals) :
										   pp.agg(0, {}, {agg(TM_AGG_COUNT_STAR, NULL, rt[0]),
														  agg(TM_AGG_SUM, x_slot(t_v, ty(TM_K_INT4)), rt[1])})},
										  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4)})}, {result(rt)}, 0);
					tm_gpu_set_max_blocks(cap);
					Run			r = run_plan(pl, {&B, &T});

					tm_gpu_set_max_blocks(0);
					snprintf(what, sizeof(what), "pre-check%s: %s join%s%s, %s", cap ? " (8 blocks)" : "", jname[jt],
							 resid ? " with residual" : "",
							 lead == 1 ? " and a filter (lookup first)" : lead == 2 ? " after a filter" : "",
							 sink ? "aggregate" : "emit");
					CHECK_OK(r);
					for (int64_t i = 0; i < T.nrows; i++)
					{
						bool		found = false;
						std::string left = cell(T.cols[T_ID], i) + cell(T.cols[T_V], i);

						if (lead && (isnull(T, T_V, i) || (lead == 1 ? ival(T, T_V, i) == 7 : ival(T, T_V, i) % 5 == 3)))
							continue;
						if (isnull(T, T_K, i) || brows.count(ival(T, T_K, i)) == 0)
							continue;
						for (int64_t j : brows[ival(T, T_K, i)])
						{
							if (jt == TM_JOIN_SEMI && found)
								break;
							if (resid && (isnull(B, B_W, j) || isnull(T, T_V, i) || !(ival(B, B_W, j) < ival(T, T_V, i))))
								continue;
							found = true;
							if (wide)
							{
								exp.push_back(left + cell(B.cols[B_W], j));
								cnt++;
								if (!isnull(T, T_V, i))
								{
									sum += ival(T, T_V, i);
									hsum = true;
								}
							}
						}
						if (jt == TM_JOIN_SEMI && found)
						{
							exp.push_back(left);
							cnt++;
							if (!isnull(T, T_V, i))
							{
								sum += ival(T, T_V, i);
								hsum = true;
							}
						}
					}
					if (sink == 0)
						check_rows_probe_order(what, out_rows(r.out), exp);
					else
						check_rows(what, out_rows(r.out), {cI(cnt) + (hsum ? cI(sum) : cNULL)}, false);
					/*
					 * the lookup first (before the filter in fast form, or with no filter: a build smaller than
					 * the source): its key against a bitmap of the build's keys, before pipeline_kernel
					 */
					if (g_lb_mode == TM_GPU_LB_NONE && !forced_partitioned())
						TM_CHECK_MSG(r.stats[1].prefilter_semi == (g_fast_paths && lead != 2 ? 1 : 0),
									 "%s: semi-join prefilter %d", what, (int) r.stats[1].prefilter_semi);
					tm_gpu_table_free(&r.out);
				}
}

static TmExpr *x_div_zero_at(int s, int64_t z, int64_t k);

/*
 * The semi-join prefilter tests' build side: one key column of kind holding keys[0 .. nkeys - 1], a NULL
 * key, then npad keys pad + i % padmod (nb: each non-NULL key's count)
 */
static void
semi_build_table(HTable &B, std::map<int64_t, int> &nb, int kind, const int64_t *keys, int nkeys,
				 int64_t pad, int64_t npad, int64_t padmod)
{
	B.nrows = 0;
	B.cols.push_back(col_new(kind));
	for (int i = 0; i < nkeys; i++)
	{
		push_i(B.cols[0], keys[i], false);
		nb[keys[i]]++;
		B.nrows++;
	}
	push_i(B.cols[0], 77, true);	/* a NULL key */
	B.nrows++;
	for (int64_t i = 0; i < npad; i++)
	{
		push_i(B.cols[0], pad + i % padmod, false);
		nb[pad + i % padmod]++;
		B.nrows++;
	}
}

/*
 * ... and its plan: pipeline 0 builds table 0 on B's keys; pipeline 1 reads the source's key (column
 * kcol, kind skind) and int4 column vcol, optionally filters v <> 7 (fast form), probes (jt) on the key
 * as hkind, and aggregates count(*) and sum(arg), arg: v, or 100 / z of int4 column zcol (zcol >= 0)
 */
static TmPlan
semi_plan(int skind, int hkind, int jt, bool filter, int kcol, int vcol, int zcol)
{
	PipeB		pb(TM_SRC_TABLE, 0);
	int			b_k = pb.slot(ty(hkind), 0, 0);
	TmPipeline	build = pb.build(0, {x_slot(b_k, ty(hkind))}, {});
	PipeB		pp(TM_SRC_TABLE, 1);
	int			t_k = pp.slot(ty(skind), 0, kcol);
	int			t_v = pp.slot(ty(TM_K_INT4), 0, vcol);
	int			t_z = zcol >= 0 ? pp.slot(ty(TM_K_INT4), 0, zcol) : -1;
	std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT8)};

	if (filter)
		pp.filter(x_cmp_const(t_v, TM_PRED_NE, 7));
	pp.probe(jt, 0, {x_slot(t_k, ty(hkind))}, NULL);
	return plan({build, pp.agg(0, {}, {agg(TM_AGG_COUNT_STAR, NULL, rt[0]),
									   agg(TM_AGG_SUM, zcol >= 0 ? x_div_zero_at(t_z, 0, 100) :
										   x_slot(t_v, ty(TM_K_INT4)), rt[1])})},
				{hashtable({ty(hkind)}, {})}, {result(rt)}, 0);
}

/*
 * The semi-join prefilter over integer keys of both widths: build keys negative, 0, positive, NULL and
 * repeated, probe keys below, inside (in and out of the build) and above their range, and NULL; and a
 * build whose keys span more than the bitmap may hold (no prefilter, the same rows).  A leading filter in
 * fast form (v <> 7), then the inner lookup (which goes first); or no filter, the inner or semi lookup
 * first in the pipeline, on a build smaller than the source (the prefilter) or larger (none: the bitmap
 * would cost more than the lookups it saves); or the filter in fast form, then the lookup in a build too
 * large to go first (70,000 rows): the semi-join test narrows prefilter_kernel's bits.  Count and sum
 * against the host.
 */
static void
test_semi_prefilter(void)
{
	static const int64_t bk[] = {-5, -1, 0, 3, 3, 64, 1000, 65535, 1 << 20};

	static const char *const fname[] = {"a filter, then the inner lookup", "the inner lookup first",
		"the semi lookup first", "the inner lookup first, a larger build",
		"a filter, then the inner lookup in 70,000 rows"};

	for (int kind : {TM_K_INT4, TM_K_INT8})
		for (int wide = 0; wide < 2; wide++)
			for (int cap = 0; cap <= 3; cap += 3)
			for (int form = 0; form < 5; form++)
			{
				HTable		B;
				HTable		T;
				std::map<int64_t, int> nb;
				int64_t		cnt = 0,
							sum = 0;
				bool		hsum = false;
				int64_t		tn = form == 3 ? 7 : 100003;	/* form 3: fewer source rows than build rows */
				int			jt = form == 2 ? TM_JOIN_SEMI : TM_JOIN_INNER;
				char		what[160];

				/* form 4: 70,000 rows, keys no source row has */
				semi_build_table(B, nb, kind, bk, 9, 3000000, form == 4 ? 70000 - 11 : 0, INT64_MAX);
				if (wide)
				{
					int64_t		k = kind == TM_K_INT8 ? INT64_C(1) << 40 : INT64_C(2000000000);

					push_i(B.cols[0], k, false);
					nb[k]++;
					B.nrows++;
				}
				T.nrows = tn;
				T.cols.push_back(col_new(TM_K_INT8));
				T.cols.push_back(col_new(kind));
				T.cols.push_back(col_new(TM_K_INT4));
				for (int64_t r = 0; r < T.nrows; r++)
				{
					int64_t		k = r % 11 == 0 ? bk[(r / 11) % 9] : r % 13 == 0 ? -1000 - r :
						r % 17 == 0 ? (INT64_C(1) << 20) + r : r % 101 == 0 ? (int64_t) (r % 2000) : r;
					int			m;

					if (form == 3)	/* 7 rows: 3 and 0 in the build, the others not */
						k = r == 1 ? 3 : r == 4 ? 0 : 500 + r;
					m = jt == TM_JOIN_SEMI ? 1 : nb.count(k) ? nb[k] : 0;
					push_i(T.cols[0], r, false);
					push_i(T.cols[1], k, r % 19 == 0);
					push_i(T.cols[2], r % 10, r % 23 == 0);
					if (r % 19 == 0 || ((form == 0 || form == 4) && (r % 23 == 0 || r % 10 == 7)) || nb.count(k) == 0)
						continue;
					cnt += m;
					if (r % 23 != 0)
					{
						sum += m * (r % 10);
						hsum = true;
					}
				}

				TmPlan		pl = semi_plan(kind, kind, jt, form == 0 || form == 4, 1, 2, -1);

				tm_gpu_set_max_blocks(cap);
				Run			r = run_plan(pl, {&B, &T});

				tm_gpu_set_max_blocks(0);
				snprintf(what, sizeof(what), "semi-join prefilter, int%d keys, %s%s%s", kind == TM_K_INT8 ? 8 : 4,
						 fname[form], wide ? ", too wide a span" : "", cap ? ", 3 blocks" : "");
				CHECK_OK(r);
				check_rows(what, out_rows(r.out), {cI(cnt) + (hsum ? cI(sum) : cNULL)}, false);
				if (g_lb_mode == TM_GPU_LB_NONE && !forced_partitioned())
				{
					TM_CHECK_MSG(r.stats[1].prefilter_semi == (g_fast_paths && !wide && form != 3 ? 1 : 0),
								 "%s: semi-join prefilter %d", what, (int) r.stats[1].prefilter_semi);
					if (form == 4)	/* the filter ran in prefilter_kernel, before the semi-join test */
						TM_CHECK_MSG(r.stats[1].prefilter_plain == (g_fast_paths ? 1 : 0),
									 "%s: plain prefilter %d", what, (int) r.stats[1].prefilter_plain);
				}
				tm_gpu_table_free(&r.out);
			}
}

/*
 * The semi-join prefilter over every pair of integer kinds (source column int2 / int4 / int8 against a
 * build key int2 / int4 / int8), where the lookup is the first op (inner, semi) and after a filter in fast
 * form with a build too large to go first (70,000 rows); inputs from host memory, device-resident, and in
 * chunks of 7,000 rows (upload_pipeline sees no row count there: no prefilter of these forms, the same
 * rows).  The sink's argument divides by a column that is 0 on some rows the join drops (no error may
 * come of them) and, in the error runs, on one row it keeps, the first error: that row's number (none
 * where the partitioned join ran the lookup).
 */
static void
test_semi_prefilter_kinds(void)
{
	static const int64_t bk[] = {-5, -1, 0, 3, 3, 64, 1000, 32767, -32768};
	static const int kinds[] = {TM_K_INT2, TM_K_INT4, TM_K_INT8};

	for (int skind : kinds)
		for (int hkind : kinds)
			for (int form = 0; form < 3; form++)	/* inner first, semi first, a filter then inner */
				for (int err = 0; err < 2; err++)
					for (int mode = 0; mode < 3; mode++)	/* host, device-resident, chunks of 7,000 */
					{
						HTable		B;
						HTable		T;
						std::map<int64_t, int> nb;
						int64_t		cnt = 0;
						int64_t		errrow = -1;
						int			jt = form == 1 ? TM_JOIN_SEMI : TM_JOIN_INNER;
						char		what[200];

						semi_build_table(B, nb, hkind, bk, 9, 22000, form == 2 ? 70000 : 0, 10000);
						T.nrows = 100003;
						T.cols.push_back(col_new(skind));
						T.cols.push_back(col_new(TM_K_INT4));
						T.cols.push_back(col_new(TM_K_INT4));
						for (int64_t r = 0; r < T.nrows; r++)
						{
							/* keys in int2's range: the build's, others inside its span, others outside */
							int64_t		k = r % 11 == 0 ? bk[(r / 11) % 9] :
								r % 7 == 0 ? -30000 + (r % 5000) : 2000 + (r % 20000);
							bool		knull = r % 19 == 0;
							bool		vnull = r % 23 == 0;
							int64_t		v = r % 10;
							bool		in = !knull && nb.count(k) > 0;
							bool		passf = form != 2 || (!vnull && v != 7);
							int64_t		z = 1;

							if (!(in && passf) && r % 10 == 9)
								z = 0;			/* an error only if the row reached the sink */
							if (err && in && passf && r >= 50000 && errrow < 0)
							{
								z = 0;
								errrow = r;
							}
							push_i(T.cols[0], k, knull);
							push_i(T.cols[1], v, vnull);
							push_i(T.cols[2], z, false);
							if (in && passf)
								cnt += jt == TM_JOIN_SEMI ? 1 : nb[k];
						}

						TmPlan		pl = semi_plan(skind, hkind, jt, form == 2, 0, 1, 2);

						if (mode == 2)
							tm_gpu_set_max_chunk_rows(7000);
						Run			r = run_plan(pl, {&B, &T}, NULL, NULL, NULL, mode == 1);

						tm_gpu_set_max_chunk_rows(0);
						snprintf(what, sizeof(what), "semi-join prefilter, int%d source against int%d keys, %s%s, %s",
								 skind == TM_K_INT2 ? 2 : skind == TM_K_INT4 ? 4 : 8,
								 hkind == TM_K_INT2 ? 2 : hkind == TM_K_INT4 ? 4 : 8,
								 form == 0 ? "inner first" : form == 1 ? "semi first" : "a filter, then inner",
								 err ? ", an error" : "", mode == 0 ? "host" : mode == 1 ? "device" : "chunks");
						/* the partitioned join (forced; inner lookups, not over chunks) knows joined rows
						 * only, not which source row one came from: no row */
						if (err && forced_partitioned() && jt == TM_JOIN_INNER && mode != 2)
							errrow = -1;
						if (err)
							TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.status == TM_ERR_DIV_BY_ZERO &&
										 r.fail.pipeline == 1 && r.fail.row == errrow,
										 "%s: rc %d status %d row %lld (expected %lld): %s", what, r.rc,
										 r.fail.status, (long long) r.fail.row, (long long) errrow, r.err);
						else
						{
							CHECK_OK(r);
							check_rows(what, out_rows(r.out), {cI(cnt) + (cnt > 0 ? cI(100 * cnt) : cNULL)}, false);
							if (g_lb_mode == TM_GPU_LB_NONE && !forced_partitioned())
								TM_CHECK_MSG(r.stats[1].prefilter_semi == (g_fast_paths && mode != 2 ? 1 : 0),
											 "%s: semi-join prefilter %d", what, (int) r.stats[1].prefilter_semi);
						}
						tm_gpu_table_free(&r.out);
					}
}

/*
 * B -> ht0 (k -> w, name);  C -> ht1 ((g, par) -> label, x);
 * T -> PROBE ht0 inner on k -> PROBE ht1 left on (t.g, t.id % 2), residual c.x > b.w -> EMIT (id, w, label, x)
 */
static void
test_two_joins(void)
{
	HTable		T = make_T(4000, 300);
	HTable		B = make_B(800, 300);
	HTable		C = make_C(300);
	PipeB		pb(TM_SRC_TABLE, 0);
	int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
	int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
	int			b_name = pb.slot(ty(TM_K_TEXT), 0, B_NAME);
	TmPipeline	build0 = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))},
								  {x_slot(b_w, ty(TM_K_INT4)), x_slot(b_name, ty(TM_K_TEXT))});
	PipeB		pc(TM_SRC_TABLE, 0);
	int			c_g = pc.slot(ty(TM_K_INT4), 0, C_G);
	int			c_par = pc.slot(ty(TM_K_INT8), 0, C_PAR);
	int			c_label = pc.slot(ty(TM_K_TEXT), 0, C_LABEL);
	int			c_x = pc.slot(ty(TM_K_INT8), 0, C_X);
	TmPipeline	build1 = pc.build(1, {x_slot(c_g, ty(TM_K_INT4)), x_slot(c_par, ty(TM_K_INT8))},
								  {x_slot(c_label, ty(TM_K_TEXT)), x_slot(c_x, ty(TM_K_INT8))});
	PipeB		pp(TM_SRC_TABLE, 0);
	int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
	int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
	int			t_g = pp.slot(ty(TM_K_INT4), 0, T_G);
	int			m_w = pp.slot(ty(TM_K_INT4), 1, 0);
	int			m_label = pp.slot(ty(TM_K_TEXT), 2, 0);
	int			m_x = pp.slot(ty(TM_K_INT8), 2, 1);
	std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_TEXT), ty(TM_K_INT8)};
	std::vector<std::string> exp;

	pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(TM_K_INT4))}, NULL);
	pp.probe(TM_JOIN_LEFT, 1, {x_slot(t_g, ty(TM_K_INT4)), x_mod(t_id, 2, TM_K_INT8)},
			 x_cmp_slots(m_x, TM_PRED_GT, m_w));
	TmPlan		pl = plan({build0, build1,
						   pp.emit(0, {x_slot(t_id, rt[0]), x_slot(m_w, rt[1]), x_slot(m_label, rt[2]),
									   x_slot(m_x, rt[3])})},
						  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4), ty(TM_K_TEXT)}),
						   hashtable({ty(TM_K_INT4), ty(TM_K_INT8)}, {ty(TM_K_TEXT), ty(TM_K_INT8)})},
						  {result(rt)}, 0);
	Run			r = run_plan(pl, {&B, &C, &T});

	CHECK_OK(r);
	for (int64_t i = 0; i < T.nrows; i++)
	{
		if (isnull(T, T_K, i))
			continue;
		for (int64_t j = 0; j < B.nrows; j++)
		{
			bool		found = false;
			std::string left;

			if (isnull(B, B_K, j) || ival(B, B_K, j) != ival(T, T_K, i))
				continue;
			left = cell(T.cols[T_ID], i) + cell(B.cols[B_W], j);
			for (int64_t l = 0; l < C.nrows && !isnull(T, T_G, i); l++)
			{
				if (isnull(C, C_G, l) || ival(C, C_G, l) != ival(T, T_G, i) || ival(C, C_PAR, l) != ival(T, T_ID, i) % 2)
					continue;
				if (isnull(C, C_X, l) || isnull(B, B_W, j) || !(ival(C, C_X, l) > ival(B, B_W, j)))
					continue;
				found = true;
				exp.push_back(left + cell(C.cols[C_LABEL], l) + cell(C.cols[C_X], l));
			}
			if (!found)
				exp.push_back(left + cNULL + cNULL);
		}
	}
	check_rows("two joins", out_rows(r.out), exp, false);
	tm_gpu_table_free(&r.out);
}

/*
 * Build sides chosen at run time (tm_gpu_pool_set_swap_rows, run_swapped): T's rows build table 0 by k,
 * B's rows that pass a filter probe it (INNER, a residual condition over both sides), then probe C's
 * table (LEFT, keys over table 0's payload, a residual over B's w) and emit columns of all three.  With
 * few of B's rows they build table 0 instead and the held rows of T probe it (stats: swap 1); with many
 * they are counted and T's rows are built as planned (swap 2; without B's filter, B's source rows are
 * its rows up to the probe, taken without a pass); with the setting at -1 nothing is tried.
 * With builds put off (tm_gpu_pool_set_swap_fuse, run_fused), T's build is not run: its rows are counted
 * (all of them, or 1,000 in windows over its 4,000), and where B's few rows build table 0, T's pipeline
 * probes it as its rows are made, then C's (stats: 3 for T's pipeline, 4 for B's); where B's rows are
 * many, T's pipeline runs as planned, then B's (2).  With the default sample T is too small to be put
 * off, and is held.  Each case also with a filter on T that keeps every row with a key, whose prefilter's
 * bits the sample's windows go into.  The rows are the reference's each time.
 */
static void
test_swap_build(void)
{
	/* builds put off (counted over all of T's rows, over a sample of 1,000), held (T too small), held */
	for (int64_t fuse : {INT64_MAX, INT64_C(1000), TM_GPU_SWAP_FUSE_SAMPLE_DEFAULT, INT64_C(0)})
	for (bool tfilt : {false, true})
	{
		tm_gpu_pool_set_swap_fuse(g_pool, fuse);
		HTable		T = make_T(4000, 300);
		bool		putoff = fuse == INT64_MAX || (fuse > 0 && T.nrows > 2 * fuse);
		HTable		C = make_C(300);
		struct
		{
			int64_t		nb;			/* B's rows */
			int64_t		wlo;		/* B's filter: w >= wlo */
			int64_t		setting;	/* tm_gpu_pool_set_swap_rows */
			int			swap;		/* stats[2].swap expected */
			bool		filt;		/* B's filter (none: the trial has no operator, its rows are B's) */
		}			cases[] = {{800, 30, 0, 1, true}, {12000, -100, 0, 2, true}, {12000, -100, 0, 2, false},
							   {800, 30, -1, 0, true}, {800, 30, INT64_C(1) << 40, 0, true}};

		for (auto &cs : cases)
		{
			HTable		B = make_B(cs.nb, 300);
			PipeB		pt(TM_SRC_TABLE, 0);
			int			t_id = pt.slot(ty(TM_K_INT8), 0, T_ID);
			int			t_k = pt.slot(ty(TM_K_INT4), 0, T_K);
			int			t_g = pt.slot(ty(TM_K_INT4), 0, T_G);
			int			t_txt = pt.slot(ty(TM_K_TEXT), 0, T_TXT);

			if (tfilt)
				pt.filter(x_cmp_const(t_k, TM_PRED_GE, 0));	/* (true for every key: a prefilter's bits) */
			TmPipeline	build0 = pt.build(0, {x_slot(t_k, ty(TM_K_INT4))},
										  {x_slot(t_id, ty(TM_K_INT8)), x_slot(t_g, ty(TM_K_INT4)),
										   x_slot(t_txt, ty(TM_K_TEXT))});
			PipeB		pc(TM_SRC_TABLE, 0);
			int			c_g = pc.slot(ty(TM_K_INT4), 0, C_G);
			int			c_par = pc.slot(ty(TM_K_INT8), 0, C_PAR);
			int			c_label = pc.slot(ty(TM_K_TEXT), 0, C_LABEL);
			int			c_x = pc.slot(ty(TM_K_INT8), 0, C_X);
			TmPipeline	build1 = pc.build(1, {x_slot(c_g, ty(TM_K_INT4)), x_slot(c_par, ty(TM_K_INT8))},
										  {x_slot(c_label, ty(TM_K_TEXT)), x_slot(c_x, ty(TM_K_INT8))});
			PipeB		pp(TM_SRC_TABLE, 0);
			int			b_k = pp.slot(ty(TM_K_INT4), 0, B_K);
			int			b_w = pp.slot(ty(TM_K_INT4), 0, B_W);
			int			b_name = pp.slot(ty(TM_K_TEXT), 0, B_NAME);
			int			f = cs.filt ? 1 : 0;	/* the probes' levels are after the filter */
			int			m_id = pp.slot(ty(TM_K_INT8), 1 + f, 0);
			int			m_g = pp.slot(ty(TM_K_INT4), 1 + f, 1);
			int			m_txt = pp.slot(ty(TM_K_TEXT), 1 + f, 2);
			int			l_label = pp.slot(ty(TM_K_TEXT), 2 + f, 0);
			int			l_x = pp.slot(ty(TM_K_INT8), 2 + f, 1);
			std::vector<TmType> rt = {ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_TEXT), ty(TM_K_TEXT), ty(TM_K_INT8)};
			std::vector<std::string> exp;
			int64_t		probing = 0;
			char		what[160];

			if (cs.filt)
				pp.filter(x_cmp_const(b_w, TM_PRED_GE, cs.wlo));
			pp.probe(TM_JOIN_INNER, 0, {x_slot(b_k, ty(TM_K_INT4))}, x_cmp_slots(m_g, TM_PRED_LE, b_w));
			pp.probe(TM_JOIN_LEFT, 1, {x_slot(m_g, ty(TM_K_INT4)), x_mod(m_id, 2, TM_K_INT8)},
					 x_cmp_slots(l_x, TM_PRED_GT, b_w));
			TmPlan		pl = plan({build0, build1,
								   pp.emit(0, {x_slot(b_name, rt[0]), x_slot(m_id, rt[1]), x_slot(m_txt, rt[2]),
											   x_slot(l_label, rt[3]), x_slot(l_x, rt[4])})},
								  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_TEXT)}),
								   hashtable({ty(TM_K_INT4), ty(TM_K_INT8)}, {ty(TM_K_TEXT), ty(TM_K_INT8)})},
								  {result(rt)}, 0);

			tm_gpu_pool_set_swap_rows(g_pool, cs.setting);
			Run			r = run_plan(pl, {&T, &C, &B});

			tm_gpu_pool_set_swap_rows(g_pool, TM_GPU_SWAP_ROWS_DEFAULT);
			snprintf(what, sizeof(what), "swapped build, %lld rows of B, w >= %lld%s, setting %lld, fuse %lld%s",
					 (long long) cs.nb, (long long) cs.wlo, cs.filt ? "" : " (no filter)", (long long) cs.setting,
					 (long long) fuse, tfilt ? ", T filtered" : "");
			CHECK_OK(r);
			for (int64_t j = 0; j < B.nrows; j++)
			{
				if (isnull(B, B_W, j) || ival(B, B_W, j) < cs.wlo)
					continue;
				if (!isnull(B, B_K, j))
					probing++;
				for (int64_t i = 0; i < T.nrows && !isnull(B, B_K, j); i++)
				{
					bool		found = false;
					std::string left;

					if (isnull(T, T_K, i) || ival(T, T_K, i) != ival(B, B_K, j))
						continue;
					if (isnull(T, T_G, i) || !(ival(T, T_G, i) <= ival(B, B_W, j)))
						continue;
					left = cell(B.cols[B_NAME], j) + cell(T.cols[T_ID], i) + cell(T.cols[T_TXT], i);
					for (int64_t l = 0; l < C.nrows; l++)
					{
						if (isnull(C, C_G, l) || ival(C, C_G, l) != ival(T, T_G, i) || ival(C, C_PAR, l) != ival(T, T_ID, i) % 2)
							continue;
						if (isnull(C, C_X, l) || !(ival(C, C_X, l) > ival(B, B_W, j)))
							continue;
						found = true;
						exp.push_back(left + cell(C.cols[C_LABEL], l) + cell(C.cols[C_X], l));
					}
					if (!found)
						exp.push_back(left + cNULL + cNULL);
				}
			}
			TM_CHECK_MSG(exp.size() > 100, "%s: only %zu rows expected", what, exp.size());
			check_rows(what, out_rows(r.out), exp, false);
			TM_CHECK_MSG(r.stats[2].swap == (putoff && cs.swap == 1 ? 4 : cs.swap), "%s: swap %d, expected %d", what,
						 (int) r.stats[2].swap, putoff && cs.swap == 1 ? 4 : cs.swap);
			if (cs.swap != 0)
			{
				/* (no filter: B's rows, counted without a pass) */
				int64_t		want = cs.filt ? probing : B.nrows;

				TM_CHECK_MSG(r.stats[2].swap_op == f, "%s: swap op %d", what, (int) r.stats[2].swap_op);
				TM_CHECK_MSG(r.stats[2].swap_rows == want, "%s: %lld rows up to the probe, expected %lld", what,
							 (long long) r.stats[2].swap_rows, (long long) want);
				TM_CHECK_MSG(r.stats[2].source_rows == B.nrows, "%s: source rows %lld", what,
							 (long long) r.stats[2].source_rows);
			}
			if (putoff && cs.swap == 1)
			{
				/* T's pipeline put off: its rows counted, never built */
				TM_CHECK_MSG(r.stats[0].swap == 3 && r.stats[0].swap_op == 2, "%s: T's pipeline swap %d op %d", what,
							 (int) r.stats[0].swap, (int) r.stats[0].swap_op);
				TM_CHECK_MSG(r.stats[0].swap_rows > 3000 && r.stats[0].swap_rows <= T.nrows, "%s: T's rows counted %lld",
							 what, (long long) r.stats[0].swap_rows);
				TM_CHECK_MSG(r.stats[0].sink_rows == 0 && r.stats[0].source_rows == T.nrows,
							 "%s: T's pipeline sink rows %lld, source rows %lld", what, (long long) r.stats[0].sink_rows,
							 (long long) r.stats[0].source_rows);
			}
			else
			{
				TM_CHECK_MSG(r.stats[0].swap == 0, "%s: T's pipeline swap %d", what, (int) r.stats[0].swap);
				TM_CHECK_MSG(r.stats[0].sink_rows > 3000, "%s: T's build rows %lld", what,
							 (long long) r.stats[0].sink_rows);
			}
			tm_gpu_table_free(&r.out);
		}
	}
	tm_gpu_pool_set_swap_fuse(g_pool, 0);
}

/*
 * A held build whose probing pipeline's one operator is the probe (tm_swap_hopeless): T's rows build table
 * 0 by k (payload v), B's rows probe it INNER and count / sum T's v.  At the setting 1 (every build of a
 * row or more, eight times its estimate) with B's 3,000 rows, more than half of T's keyed rows, T's build
 * is not held (stats swap 0: before, it was held and declined without a pass, swap 2), nor put off where
 * builds are put off on a count of all their rows (before: put off, then declined); with 1,000 it is held
 * and B's rows build the table (swap 1); at 0 (every candidate) the 3,000 are held and declined (swap 2);
 * with a filter on B before the probe (w >= -100: the rows with a w) the 3,000 are held and counted in a
 * trial, which declines (swap 2).  The counts are the reference's each time.
 */
static void
test_swap_bare(void)
{
	HTable		T = make_T(4000, 300);
	int64_t		tkeyed = 0;

	for (int64_t i = 0; i < T.nrows; i++)
		if (!isnull(T, T_K, i))
			tkeyed++;
	struct
	{
		int64_t		nb;
		int64_t		setting;
		bool		filt;		/* B's filter before the probe */
		int64_t		fuse;		/* tm_gpu_pool_set_swap_fuse */
		int			swap;		/* stats[1].swap expected (stats[0].swap: 0) */
	}			cases[] = {{3000, 1, false, 0, 0}, {3000, 1, false, INT64_MAX, 0}, {1000, 1, false, 0, 1},
						   {3000, 0, false, 0, 2}, {3000, 1, true, 0, 2}};

	for (auto &cs : cases)
	{
		HTable		B = make_B(cs.nb, 300);
		PipeB		pt(TM_SRC_TABLE, 0);
		int			t_k = pt.slot(ty(TM_K_INT4), 0, T_K);
		int			t_v = pt.slot(ty(TM_K_INT4), 0, T_V);
		TmPipeline	build = pt.build(0, {x_slot(t_k, ty(TM_K_INT4))}, {x_slot(t_v, ty(TM_K_INT4))});
		PipeB		pp(TM_SRC_TABLE, 0);
		int			b_k = pp.slot(ty(TM_K_INT4), 0, B_K);
		int			b_w = pp.slot(ty(TM_K_INT4), 0, B_W);
		int			m_v = pp.slot(ty(TM_K_INT4), cs.filt ? 2 : 1, 0);
		std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT8)};
		std::map<int64_t, std::pair<int64_t, int64_t>> tk;	/* k -> (T's rows, the sum of their v) */
		int64_t		n = 0;
		int64_t		sum = 0;
		bool		sumnull = true;
		char		what[120];

		if (cs.filt)
			pp.filter(x_cmp_const(b_w, TM_PRED_GE, -100));
		pp.probe(TM_JOIN_INNER, 0, {x_slot(b_k, ty(TM_K_INT4))}, NULL);
		TmPlan		pl = plan({build, pp.agg(0, {}, {agg(TM_AGG_COUNT_STAR, NULL, rt[0]),
													agg(TM_AGG_SUM, x_slot(m_v, ty(TM_K_INT4)), rt[1])})},
							  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4)})}, {result(rt)}, 0);

		tm_gpu_pool_set_swap_rows(g_pool, cs.setting);
		tm_gpu_pool_set_swap_fuse(g_pool, cs.fuse);
		Run			r = run_plan(pl, {&T, &B});

		tm_gpu_pool_set_swap_rows(g_pool, TM_GPU_SWAP_ROWS_DEFAULT);
		tm_gpu_pool_set_swap_fuse(g_pool, 0);
		snprintf(what, sizeof(what), "held build probed by %s: %lld rows of B, setting %lld%s",
				 cs.filt ? "a filter and the probe" : "its one operator", (long long) cs.nb, (long long) cs.setting,
				 cs.fuse ? ", builds put off on a count" : "");
		CHECK_OK(r);
		for (int64_t i = 0; i < T.nrows; i++)
		{
			if (isnull(T, T_K, i))
				continue;
			tk[ival(T, T_K, i)].first++;
			if (!isnull(T, T_V, i))
				tk[ival(T, T_K, i)].second += ival(T, T_V, i);
		}
		for (int64_t j = 0; j < B.nrows; j++)
		{
			if (isnull(B, B_K, j) || tk.count(ival(B, B_K, j)) == 0 || (cs.filt && isnull(B, B_W, j)))
				continue;
			n += tk[ival(B, B_K, j)].first;
			sum += tk[ival(B, B_K, j)].second;
		}
		for (int64_t i = 0; i < T.nrows && sumnull; i++)
			if (!isnull(T, T_K, i) && !isnull(T, T_V, i))
				for (int64_t j = 0; j < B.nrows && sumnull; j++)
					if (!isnull(B, B_K, j) && ival(B, B_K, j) == ival(T, T_K, i) && !(cs.filt && isnull(B, B_W, j)))
						sumnull = false;
		check_rows(what, out_rows(r.out), {cI(n) + (sumnull ? cNULL : cI(sum))}, false);
		TM_CHECK_MSG(cs.nb > tkeyed / 2 || cs.swap != 0, "%s: B's rows %lld not over half T's %lld", what,
					 (long long) cs.nb, (long long) tkeyed);
		TM_CHECK_MSG(r.stats[1].swap == cs.swap, "%s: swap %d, expected %d", what, (int) r.stats[1].swap, cs.swap);
		TM_CHECK_MSG(r.stats[0].swap == 0, "%s: T's pipeline swap %d", what, (int) r.stats[0].swap);
		tm_gpu_table_free(&r.out);
	}
}

/*
 * Builds put off (run_fused) whose pipeline has operators: C's table (by g; payload x) is probed LEFT by
 * T's pipeline, which filters on 100 / (id - z) >= -1000 and builds table 0 by k with payload (id, C's x);
 * B's rows probe table 0 and emit (id, x), so F has T's filter and probe before the probe of B's table
 * (their expressions moved) and reads a payload of T's probe.  T's pipeline is put off after a count of
 * 1,000 of its rows, in 16 windows of 64 spread over its 4,000, where no error is (the same decision in
 * modes 0-3):
 *   mode 0: no error; the rows are the reference's, and T's pipeline was put off (stats 3, 4);
 *   mode 1: T's filter divides by zero at id 3,300 (between two windows), met in F;
 *   mode 2: ... and B's filter before the probe raises integer out of range in the trial, first;
 *   mode 3: ... and B's filter keeps no row: an empty trial, T's pipeline as planned;
 *   mode 4: a division by zero at id 3,500, in a window, and one at id 3,300: the sample meets the first
 *           only, so T's pipeline is not put off, and as planned raises the second, of the lower row.
 * As planned T's pipeline runs first, so its division by zero is the error, from pipeline 1, each time.
 */
static void
test_swap_fuse_errors(void)
{
	HTable		T = make_T(4000, 300);
	HTable		B = make_B(800, 300);
	HTable		C = make_C(300);

	for (int mode = 0; mode < 5; mode++)
	{
		PipeB		pc(TM_SRC_TABLE, 0);
		int			c_g = pc.slot(ty(TM_K_INT4), 0, C_G);
		int			c_x = pc.slot(ty(TM_K_INT8), 0, C_X);
		TmPipeline	buildc = pc.build(1, {x_slot(c_g, ty(TM_K_INT4))}, {x_slot(c_x, ty(TM_K_INT8))});
		PipeB		pt(TM_SRC_TABLE, 0);
		int			t_id = pt.slot(ty(TM_K_INT8), 0, T_ID);
		int			t_k = pt.slot(ty(TM_K_INT4), 0, T_K);
		int			t_g = pt.slot(ty(TM_K_INT4), 0, T_G);
		int			l_x = pt.slot(ty(TM_K_INT8), 2, 0);
		PipeB		pp(TM_SRC_TABLE, 0);
		int			b_k = pp.slot(ty(TM_K_INT4), 0, B_K);
		int			b_w = pp.slot(ty(TM_K_INT4), 0, B_W);
		bool		bfilt = mode == 2 || mode == 3;	/* B's filter */
		int			m_id = pp.slot(ty(TM_K_INT8), bfilt ? 2 : 1, 0);	/* (after B's filter, if any) */
		int			m_x = pp.slot(ty(TM_K_INT8), bfilt ? 2 : 1, 1);
		std::vector<std::string> exp;

		/* 100 / (id - z) >= -1000 (mode 4: 100 / (id - 3500) + 100 / (id - 3300) >= -1000) */
		a_init();
		p_int(100);
		p_slot(t_id);
		p_int(mode == 0 ? INT64_C(1000000000) : mode == 4 ? INT64_C(3500) : INT64_C(3300));
		a_op(TMI_SUB, TM_K_INT8, 0, 0, 0);
		a_op(TMI_DIV, TM_K_INT8, 0, 0, 0);
		if (mode == 4)
		{
			/* + 100 / (id - 3300): the first row that raises is outside the windows */
			p_int(100);
			p_slot(t_id);
			p_int(3300);
			a_op(TMI_SUB, TM_K_INT8, 0, 0, 0);
			a_op(TMI_DIV, TM_K_INT8, 0, 0, 0);
			a_op(TMI_ADD, TM_K_INT8, 0, 0, 0);
		}
		p_int(-1000);
		a_op(TMI_CMP, TM_CMP_INT, TM_PRED_GE, 0, 0);
		pt.filter(a_build(ty(TM_K_BOOL)));
		pt.probe(TM_JOIN_LEFT, 1, {x_slot(t_g, ty(TM_K_INT4))}, NULL);
		TmPipeline	build0 = pt.build(0, {x_slot(t_k, ty(TM_K_INT4))},
									  {x_slot(t_id, ty(TM_K_INT8)), x_slot(l_x, ty(TM_K_INT8))});

		if (bfilt)
		{
			/* mode 2: w * 2147483647 <> 0 (out of range where |w| > 1); mode 3: w > 1000 (none) */
			a_init();
			p_slot(b_w);
			if (mode == 2)
			{
				p_int(2147483647);
				a_op(TMI_MUL, TM_K_INT4, 0, 0, 0);
				p_int(0);
				a_op(TMI_CMP, TM_CMP_INT, TM_PRED_NE, 0, 0);
			}
			else
			{
				p_int(1000);
				a_op(TMI_CMP, TM_CMP_INT, TM_PRED_GT, 0, 0);
			}
			pp.filter(a_build(ty(TM_K_BOOL)));
		}
		pp.probe(TM_JOIN_INNER, 0, {x_slot(b_k, ty(TM_K_INT4))}, NULL);
		TmPlan		pl = plan({buildc, build0, pp.emit(0, {x_slot(m_id, ty(TM_K_INT8)), x_slot(m_x, ty(TM_K_INT8))})},
							  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT8), ty(TM_K_INT8)}),
							   hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT8)})},
							  {result({ty(TM_K_INT8), ty(TM_K_INT8)})}, 0);

		tm_gpu_pool_set_swap_rows(g_pool, 0);
		tm_gpu_pool_set_swap_fuse(g_pool, 1000);
		Run			r = run_plan(pl, {&C, &T, &B});

		tm_gpu_pool_set_swap_rows(g_pool, TM_GPU_SWAP_ROWS_DEFAULT);
		tm_gpu_pool_set_swap_fuse(g_pool, 0);
		if (mode > 0)
		{
			TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.status == TM_ERR_DIV_BY_ZERO && r.fail.pipeline == 1,
						 "mode %d: rc %d status %d pipeline %d: %s", mode, r.rc, r.fail.status, r.fail.pipeline,
						 r.err);
			/* mode 4: the planned run's first row (3,300), not the sample's (3,500) */
			TM_CHECK_MSG(mode != 4 || r.fail.row == 3300, "mode 4: the error's row %lld", (long long) r.fail.row);
			tm_gpu_table_free(&r.out);
			continue;
		}
		CHECK_OK(r);
		for (int64_t j = 0; j < B.nrows; j++)
			for (int64_t i = 0; i < T.nrows && !isnull(B, B_K, j); i++)
			{
				bool		found = false;

				if (isnull(T, T_K, i) || ival(T, T_K, i) != ival(B, B_K, j))
					continue;
				for (int64_t l = 0; l < C.nrows && !isnull(T, T_G, i); l++)
					if (!isnull(C, C_G, l) && ival(C, C_G, l) == ival(T, T_G, i))
					{
						found = true;
						exp.push_back(cell(T.cols[T_ID], i) + cell(C.cols[C_X], l));
					}
				if (!found)
					exp.push_back(cell(T.cols[T_ID], i) + cNULL);
			}
		TM_CHECK_MSG(exp.size() > 100, "put-off build: only %zu rows expected", exp.size());
		check_rows("put-off build with operators", out_rows(r.out), exp, false);
		TM_CHECK_MSG(r.stats[1].swap == 3 && r.stats[1].swap_op == 2 && r.stats[2].swap == 4 && r.stats[2].swap_op == 0,
					 "put-off build: swap %d (op %d), %d (op %d)", (int) r.stats[1].swap, (int) r.stats[1].swap_op,
					 (int) r.stats[2].swap, (int) r.stats[2].swap_op);
		tm_gpu_table_free(&r.out);
	}
}

/*
 * themis.probe_order (themis/tm_probe_order.h): T probes B by k (keys repeated, 3 build rows per T row:
 * a fan-out, hot keys) and then G by g, which keeps one key in 20.  Where G's key is a source column the executor
 * runs G's probe first (stats: the order 1, 0); where it is B's payload (B's w), it cannot.  The rows are
 * the reference's either way, with the setting on and off, and a partitioned join forced on the pass
 * reports the plan's number of the probe it replaced.
 */
static HTable
make_G(int64_t n)
{
	HTable		t;

	t.nrows = n;
	t.cols.push_back(col_new(TM_K_INT4));
	for (int64_t r = 0; r < n; r++)
		push_i(t.cols[0], r);
	return t;
}

static void
test_probe_order(void)
{
	HTable		T = make_T(2000, 300);
	HTable		B = make_B(6000, 300);
	HTable		G = make_G(100);

	for (int dep = 0; dep < 2; dep++)
		for (int on = 1; on >= 0; on--)
		{
			PipeB		pb(TM_SRC_TABLE, 0);
			int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
			int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
			TmPipeline	build0 = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))}, {x_slot(b_w, ty(TM_K_INT4))});
			PipeB		pg(TM_SRC_TABLE, 0);
			int			g_g = pg.slot(ty(TM_K_INT4), 0, 0);
			PipeB		pp(TM_SRC_TABLE, 0);
			int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
			int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
			int			t_g = pp.slot(ty(TM_K_INT4), 0, T_G);
			int			m_w = pp.slot(ty(TM_K_INT4), 1, 0);
			std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_INT4)};
			std::vector<std::string> exp;
			char		what[96];
			/* G keeps key 3 (of T's g) or, probed by B's w, keys 0 .. 4 (of w's -50 .. 50) */
			int64_t		glo = dep ? 0 : 3,
						ghi = dep ? 4 : 3;
			TmPipeline	buildg;

			pg.filter(x_cmp_const(g_g, TM_PRED_GE, glo));
			pg.filter(x_cmp_const(g_g, TM_PRED_LE, ghi));
			buildg = pg.build(1, {x_slot(g_g, ty(TM_K_INT4))}, {});
			pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(TM_K_INT4))}, NULL);
			pp.probe(TM_JOIN_INNER, 1, {x_slot(dep ? m_w : t_g, ty(TM_K_INT4))}, NULL);

			TmPlan		pl = plan({build0, buildg,
								   pp.emit(0, {x_slot(t_id, rt[0]), x_slot(m_w, rt[1]), x_slot(t_g, rt[2])})},
								  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4)}), hashtable({ty(TM_K_INT4)}, {})},
								  {result(rt)}, 0);

			tm_gpu_pool_set_probe_order(g_pool, on);
			Run			r = run_plan(pl, {&B, &G, &T});

			tm_gpu_pool_set_probe_order(g_pool, 1);
			snprintf(what, sizeof(what), "probe order, G by %s, setting %s", dep ? "B's w" : "T's g",
					 on ? "on" : "off");
			CHECK_OK(r);
			for (int64_t i = 0; i < T.nrows; i++)
			{
				if (isnull(T, T_K, i))
					continue;
				for (int64_t j = 0; j < B.nrows; j++)
				{
					int64_t		gk;

					if (isnull(B, B_K, j) || ival(B, B_K, j) != ival(T, T_K, i))
						continue;
					if (dep ? isnull(B, B_W, j) : isnull(T, T_G, i))
						continue;
					gk = dep ? ival(B, B_W, j) : ival(T, T_G, i);
					if (gk < glo || gk > ghi)
						continue;
					exp.push_back(cell(T.cols[T_ID], i) + cell(B.cols[B_W], j) + cell(T.cols[T_G], i));
				}
			}
			TM_CHECK_MSG(exp.size() > 100, "%s: only %zu rows expected", what, exp.size());
			check_rows(what, out_rows(r.out), exp, false);
			/* B: about 5,700 rows on 2,000 of T's (3 a row); G: 1 of its 100 */
			TM_CHECK_MSG(r.stats[2].probe_reordered == (on && !dep ? 1 : 0), "%s: reordered %d", what,
						 (int) r.stats[2].probe_reordered);
			if (r.stats[2].probe_reordered)
				TM_CHECK_MSG(r.stats[2].probe_order[0] == 1 && r.stats[2].probe_order[1] == 0,
							 "%s: order %d %d", what, (int) r.stats[2].probe_order[0],
							 (int) r.stats[2].probe_order[1]);
			/* the partitioned join's probe, by its number in the plan */
			if (r.stats[2].join_algo != TM_GPU_JOIN_PIPELINED)
				TM_CHECK_MSG(r.stats[2].join_op == 0 || r.stats[2].join_op == 1, "%s: partitioned join op %d",
							 what, (int) r.stats[2].join_op);
			tm_gpu_table_free(&r.out);
		}
}

/* the aggregates of test_group_agg / test_global_agg, over T's slots */
struct AggSlots
{
	int			v, big, num, txt, f, d;
};

static std::vector<TmAgg>
t_aggs(const AggSlots &s)
{
	return {
		agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
		agg(TM_AGG_COUNT, x_slot(s.v, ty(TM_K_INT4)), ty(TM_K_INT8)),
		agg(TM_AGG_SUM, x_slot(s.v, ty(TM_K_INT4)), ty(TM_K_INT8)),
		agg(TM_AGG_SUM, x_slot(s.big, ty(TM_K_INT8)), ty(TM_K_NUMERIC, 0)),
		agg(TM_AGG_SUM, x_slot(s.num, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 2)),
		agg(TM_AGG_MIN, x_slot(s.v, ty(TM_K_INT4)), ty(TM_K_INT4)),
		agg(TM_AGG_MAX, x_slot(s.v, ty(TM_K_INT4)), ty(TM_K_INT4)),
		agg(TM_AGG_MIN, x_slot(s.num, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 2)),
		agg(TM_AGG_MAX, x_slot(s.num, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 2)),
		agg(TM_AGG_MIN, x_slot(s.txt, ty(TM_K_TEXT)), ty(TM_K_TEXT)),
		agg(TM_AGG_MAX, x_slot(s.big, ty(TM_K_INT8)), ty(TM_K_INT8)),
		agg(TM_AGG_SUM, x_slot(s.f, ty(TM_K_FLOAT8)), ty(TM_K_FLOAT8)),
		agg(TM_AGG_MAX, x_slot(s.f, ty(TM_K_FLOAT8)), ty(TM_K_FLOAT8)),
		agg(TM_AGG_MIN, x_slot(s.d, ty(TM_K_DATE)), ty(TM_K_DATE)),
		agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8), x_cmp_const(s.v, TM_PRED_GT, 0)),
		agg(TM_AGG_SUM, x_slot(s.big, ty(TM_K_INT8)), ty(TM_K_NUMERIC, 0), x_cmp_const(s.v, TM_PRED_LT, 0)),
	};
}

static std::vector<TmType>
t_agg_types(void)
{
	return {ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_NUMERIC, 0), ty(TM_K_NUMERIC, 2), ty(TM_K_INT4),
		ty(TM_K_INT4), ty(TM_K_NUMERIC, 2), ty(TM_K_NUMERIC, 2), ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_FLOAT8),
		ty(TM_K_FLOAT8), ty(TM_K_DATE), ty(TM_K_INT8), ty(TM_K_NUMERIC, 0)};
}

/* reference state of t_aggs() for one group */
struct RefAgg
{
	int64_t		cstar = 0, cv = 0, sumv = 0, cpos = 0;
	bool		hv = false, hbig = false, hnum = false, htxt = false, hf = false, hd = false, hneg = false;
	tm_int128	sumbig = 0, sumnum = 0, minnum = 0, maxnum = 0, sumneg = 0;
	int64_t		minv = 0, maxv = 0, maxbig = 0, mind = 0;
	std::string mintxt;
	double		sumf = 0, maxf = 0;

	void add(const HTable &T, int64_t r)
	{
		cstar++;
		if (!isnull(T, T_V, r))
		{
			int64_t		v = ival(T, T_V, r);

			cv++;
			sumv += v;
			minv = hv ? std::min(minv, v) : v;
			maxv = hv ? std::max(maxv, v) : v;
			hv = true;
			if (v > 0)
				cpos++;
			if (v < 0 && !isnull(T, T_BIG, r))
			{
				sumneg += ival(T, T_BIG, r);
				hneg = true;
			}
		}
		if (!isnull(T, T_BIG, r))
		{
			sumbig += ival(T, T_BIG, r);
			maxbig = hbig ? std::max(maxbig, ival(T, T_BIG, r)) : ival(T, T_BIG, r);
			hbig = true;
		}
		if (!isnull(T, T_NUM, r))
		{
			tm_int128	n = T.cols[T_NUM].n[r];

			sumnum += n;
			/* no std::min: tm_int128 is only 8-byte aligned, std::min takes references */
			if (!hnum || n < minnum)
				minnum = n;
			if (!hnum || n > maxnum)
				maxnum = n;
			hnum = true;
		}
		if (!isnull(T, T_TXT, r))
		{
			mintxt = htxt ? std::min(mintxt, T.cols[T_TXT].s[r]) : T.cols[T_TXT].s[r];
			htxt = true;
		}
		if (!isnull(T, T_F, r))
		{
			sumf += T.cols[T_F].f[r];
			maxf = hf ? std::max(maxf, T.cols[T_F].f[r]) : T.cols[T_F].f[r];
			hf = true;
		}
		if (!isnull(T, T_D, r))
		{
			mind = hd ? std::min(mind, ival(T, T_D, r)) : ival(T, T_D, r);
			hd = true;
		}
	}
	std::string cells() const
	{
		return cI(cstar) + cI(cv) + (hv ? cI(sumv) : cNULL) + (hbig ? cN(sumbig) : cNULL) +
			(hnum ? cN(sumnum) : cNULL) + (hv ? cI(minv) : cNULL) + (hv ? cI(maxv) : cNULL) +
			(hnum ? cN(minnum) : cNULL) + (hnum ? cN(maxnum) : cNULL) + (htxt ? cS(mintxt) : cNULL) +
			(hbig ? cI(maxbig) : cNULL) + (hf ? cF(sumf) : cNULL) + (hf ? cF(maxf) : cNULL) +
			(hd ? cI(mind) : cNULL) + cI(cpos) + (hneg ? cN(sumneg) : cNULL);
	}
	/* the cells of t_aggs_atomic() */
	std::string cells_atomic() const
	{
		return cI(cstar) + cI(cv) + (hv ? cI(sumv) : cNULL) + (hbig ? cN(sumbig) : cNULL) +
			(hnum ? cN(sumnum) : cNULL) + (hv ? cI(minv) : cNULL) + (hv ? cI(maxv) : cNULL) +
			(hbig ? cI(maxbig) : cNULL) + (hd ? cI(mind) : cNULL) + cI(cpos) + (hneg ? cN(sumneg) : cNULL);
	}
};

/*
 * the aggregates of t_aggs() whose updates are atomics on their words (counts, integer and numeric sums,
 * integer / date min and max): those a block keeps private states of ("Block-private aggregation")
 */
static std::vector<TmAgg>
t_aggs_atomic(const AggSlots &s)
{
	std::vector<TmAgg> all = t_aggs(s);

	return {all[0], all[1], all[2], all[3], all[4], all[5], all[6], all[10], all[13], all[14], all[15]};
}

static std::vector<TmType>
t_agg_types_atomic(void)
{
	std::vector<TmType> all = t_agg_types();

	return {all[0], all[1], all[2], all[3], all[4], all[5], all[6], all[10], all[13], all[14], all[15]};
}

static PipeB
t_agg_pipe(AggSlots *s)
{
	PipeB		p(TM_SRC_TABLE, 0);

	s->v = p.slot(ty(TM_K_INT4), 0, T_V);
	s->big = p.slot(ty(TM_K_INT8), 0, T_BIG);
	s->num = p.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
	s->txt = p.slot(ty(TM_K_TEXT), 0, T_TXT);
	s->f = p.slot(ty(TM_K_FLOAT8), 0, T_F);
	s->d = p.slot(ty(TM_K_DATE), 0, T_D);
	return p;
}

/* T -> AGG by (g, bp) [NULL keys; bpchar keys equal without trailing blanks] */
static void
test_group_agg(void)
{
	HTable		T = make_T(20000, 300);
	AggSlots	s;
	PipeB		p = t_agg_pipe(&s);
	int			s_g = p.slot(ty(TM_K_INT4), 0, T_G);
	int			s_bp = p.slot(ty(TM_K_BPCHAR), 0, T_BP);
	std::vector<TmType> rt = {ty(TM_K_INT4), ty(TM_K_BPCHAR)};
	std::vector<TmType> at = t_agg_types();
	std::map<std::string, RefAgg> groups;
	std::vector<std::string> exp;

	rt.insert(rt.end(), at.begin(), at.end());
	TmPlan		pl = plan({p.agg(0, {x_slot(s_g, ty(TM_K_INT4)), x_slot(s_bp, ty(TM_K_BPCHAR))}, t_aggs(s))},
						  {}, {result(rt)}, 0);
	Run			r = run_plan(pl, {&T});

	CHECK_OK(r);
	for (int64_t i = 0; i < T.nrows; i++)
		groups[cell(T.cols[T_G], i) + cell(T.cols[T_BP], i)].add(T, i);
	for (auto &g : groups)
		exp.push_back(g.first + g.second.cells());
	check_rows("group by (g, bp)", out_rows(r.out), exp, false);
	TM_CHECK_INT_EQ(r.stats[0].sink_rows, T.nrows);
	TM_CHECK_INT_EQ(r.stats[0].out_rows, (int64_t) groups.size());
	tm_gpu_table_free(&r.out);
}

/*
 * Grouped aggregations whose aggregates are all atomics (blocks keep private states of the first groups,
 * and a memo of the groups they found): T -> [FILTER v > -40] -> AGG by keys, against the reference:
 * by bp (4 groups with NULL: all private), by (g, bp) (about 80 groups: some private, the others in the
 * table), by (g, bp, id % 3, g, bp) (5 keys: no memo), by id % 40000 (more groups than private states, the
 * memo full), without keys (one group: private where tm_gpu_pool_set_private_global is on, else one atomic
 * per warp), by k (Zipf over 300 values and NULL: a warp's lanes often share a group past the private ones,
 * which they combine under tm_gpu_pool_set_group_wagg); with and without the leading filter (pipeline_kernel's two row loops); on a full grid and
 * on a grid of 2 blocks (tm_gpu_set_max_blocks), where each thread adds hundreds of rows into its
 * thread-private sums (the first groups' sums)
 */
static void
test_private_agg(void)
{
	HTable		T = make_T(200000, 300);

	for (int variant = 0; variant < 12; variant++)
	{
		for (int filtered = 0; filtered < 2; filtered++)
		{
			AggSlots	s;
			PipeB		p = t_agg_pipe(&s);
			int			s_g = p.slot(ty(TM_K_INT4), 0, T_G);
			int			s_bp = p.slot(ty(TM_K_BPCHAR), 0, T_BP);
			int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
			int			s_k = p.slot(ty(TM_K_INT4), 0, T_K);
			int			cap = variant >= 6 ? 2 : 0;	/* blocks: 0 = a full grid */
			int			kv = variant % 6;	/* the keys */
			std::vector<TmExpr *> keys;
			std::vector<TmType> rt;
			std::vector<TmType> at = t_agg_types_atomic();
			std::map<std::string, RefAgg> groups;
			std::vector<std::string> exp;
			char		what[64];

			if (kv == 0)
			{
				keys = {x_slot(s_bp, ty(TM_K_BPCHAR))};
				rt = {ty(TM_K_BPCHAR)};
			}
			else if (kv == 1)
			{
				keys = {x_slot(s_g, ty(TM_K_INT4)), x_slot(s_bp, ty(TM_K_BPCHAR))};
				rt = {ty(TM_K_INT4), ty(TM_K_BPCHAR)};
			}
			else if (kv == 2)
			{
				keys = {x_slot(s_g, ty(TM_K_INT4)), x_slot(s_bp, ty(TM_K_BPCHAR)), x_mod(s_id, 3, TM_K_INT8),
					x_slot(s_g, ty(TM_K_INT4)), x_slot(s_bp, ty(TM_K_BPCHAR))};
				rt = {ty(TM_K_INT4), ty(TM_K_BPCHAR), ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_BPCHAR)};
			}
			else if (kv == 3)
			{
				keys = {x_mod(s_id, 40000, TM_K_INT8)};
				rt = {ty(TM_K_INT8)};
			}
			else if (kv == 5)
			{
				keys = {x_slot(s_k, ty(TM_K_INT4))};
				rt = {ty(TM_K_INT4)};
			}
			rt.insert(rt.end(), at.begin(), at.end());
			if (filtered)
				p.filter(x_cmp_const(s.v, TM_PRED_GT, -40));
			TmPlan		pl = plan({p.agg(0, keys, t_aggs_atomic(s))}, {}, {result(rt)}, 0);
			tm_gpu_set_max_blocks(cap);
			Run			r = run_plan(pl, {&T});

			tm_gpu_set_max_blocks(0);
			int64_t		nsink = 0;

			CHECK_OK(r);
			for (int64_t i = 0; i < T.nrows; i++)
			{
				std::string k;

				if (filtered && (isnull(T, T_V, i) || ival(T, T_V, i) <= -40))
					continue;
				nsink++;
				if (kv == 0)
					k = cell(T.cols[T_BP], i);
				else if (kv == 1)
					k = cell(T.cols[T_G], i) + cell(T.cols[T_BP], i);
				else if (kv == 2)
					k = cell(T.cols[T_G], i) + cell(T.cols[T_BP], i) + cI(i % 3) + cell(T.cols[T_G], i) +
						cell(T.cols[T_BP], i);
				else if (kv == 3)
					k = cI(i % 40000);
				else if (kv == 5)
					k = cell(T.cols[T_K], i);
				groups[k].add(T, i);
			}
			for (auto &g : groups)
				exp.push_back(g.first + g.second.cells_atomic());
			snprintf(what, sizeof(what), "private states, keys %d%s%s", kv, filtered ? ", filtered" : "",
					 cap ? ", 2 blocks" : "");
			check_rows(what, out_rows(r.out), exp, false);
			TM_CHECK_INT_EQ(r.stats[0].sink_rows, nsink);
			TM_CHECK_INT_EQ(r.stats[0].out_rows, (int64_t) groups.size());
			tm_gpu_table_free(&r.out);
		}
	}
}

/*
 * any(x) (TM_AGG_ANY), where x has one value per group as the plan guarantees (here: x is a group key, so
 * NULL in the NULL group): T -> [FILTER v > -40] -> AGG by keys: any() of the keys with the aggregates of
 * test_private_agg, against the reference.  By g (int4: any() updates with atomics, private states and
 * the memo), by (g, txt) (any(txt) and any(g): the text one takes the group's lock once, and no longer
 * keeps the private states off), by num where id < 30000 (numeric, locked), by id % 40000 (more groups than private
 * states); on a full grid and on a grid of 2 blocks (hundreds of rows per thread, most of them finding
 * their group's value there), on g_pool and on a pool with the fast paths off (no peek, every row at the
 * groups' states)
 */
static TmGpuPool *plain_pool(void);
static void plain_pool_destroy(TmGpuPool *pool);

static void
test_any_agg(void)
{
	HTable		T = make_T(200000, 300);
	TmGpuPool  *plain = plain_pool();

	for (int variant = 0; variant < 16; variant++)
	{
		AggSlots	s;
		PipeB		p = t_agg_pipe(&s);
		int			s_g = p.slot(ty(TM_K_INT4), 0, T_G);
		int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
		int			kv = variant % 4;	/* the keys */
		int			cap = (variant / 4) % 2 ? 2 : 0;	/* blocks: 0 = a full grid */
		bool		use_plain = variant >= 8;
		std::vector<TmExpr *> keys;
		std::vector<TmAgg> aggs;
		std::vector<TmType> rt;
		std::vector<TmType> at = t_agg_types_atomic();
		std::vector<TmAgg> atomic = t_aggs_atomic(s);
		std::map<std::string, RefAgg> groups;
		std::map<std::string, std::string> anys;
		std::vector<std::string> exp;
		char		what[80];

		if (use_plain && plain == NULL)
			break;
		if (kv == 0)
		{
			keys = {x_slot(s_g, ty(TM_K_INT4))};
			aggs = {agg(TM_AGG_ANY, x_slot(s_g, ty(TM_K_INT4)), ty(TM_K_INT4))};
			rt = {ty(TM_K_INT4), ty(TM_K_INT4)};
		}
		else if (kv == 1)
		{
			keys = {x_slot(s_g, ty(TM_K_INT4)), x_slot(s.txt, ty(TM_K_TEXT))};
			aggs = {agg(TM_AGG_ANY, x_slot(s.txt, ty(TM_K_TEXT)), ty(TM_K_TEXT)),
				agg(TM_AGG_ANY, x_slot(s_g, ty(TM_K_INT4)), ty(TM_K_INT4))};
			rt = {ty(TM_K_INT4), ty(TM_K_TEXT), ty(TM_K_TEXT), ty(TM_K_INT4)};
		}
		else if (kv == 2)
		{
			keys = {x_slot(s.num, ty(TM_K_NUMERIC, 2))};
			aggs = {agg(TM_AGG_ANY, x_slot(s.num, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 2))};
			rt = {ty(TM_K_NUMERIC, 2), ty(TM_K_NUMERIC, 2)};
		}
		else
		{
			keys = {x_mod(s_id, 40000, TM_K_INT8)};
			aggs = {agg(TM_AGG_ANY, x_mod(s_id, 40000, TM_K_INT8), ty(TM_K_INT8))};
			rt = {ty(TM_K_INT8), ty(TM_K_INT8)};
		}
		aggs.insert(aggs.end(), atomic.begin(), atomic.end());
		rt.insert(rt.end(), at.begin(), at.end());
		p.filter(x_cmp_const(s.v, TM_PRED_GT, -40));
		if (kv == 2)
			p.filter(x_cmp_const(s_id, TM_PRED_LT, 30000));	/* num is unique: 30,000 groups */
		TmPlan		pl = plan({p.agg(0, keys, aggs)}, {}, {result(rt)}, 0);
		tm_gpu_set_max_blocks(cap);
		Run			r = run_plan(pl, {&T}, NULL, NULL, use_plain ? plain : NULL);

		tm_gpu_set_max_blocks(0);
		CHECK_OK(r);
		for (int64_t i = 0; i < T.nrows; i++)
		{
			std::string k;
			std::string a;

			if (isnull(T, T_V, i) || ival(T, T_V, i) <= -40 || (kv == 2 && ival(T, T_ID, i) >= 30000))
				continue;
			if (kv == 0)
				k = a = cell(T.cols[T_G], i);
			else if (kv == 1)
			{
				k = cell(T.cols[T_G], i) + cell(T.cols[T_TXT], i);
				a = cell(T.cols[T_TXT], i) + cell(T.cols[T_G], i);
			}
			else if (kv == 2)
				k = a = cell(T.cols[T_NUM], i);
			else
				k = a = cI(i % 40000);
			groups[k].add(T, i);
			anys[k] = a;
		}
		for (auto &g : groups)
			exp.push_back(g.first + anys[g.first] + g.second.cells_atomic());
		snprintf(what, sizeof(what), "any(), keys %d%s%s", kv, cap ? ", 2 blocks" : "",
				 use_plain ? ", fast paths off" : "");
		check_rows(what, out_rows(r.out), exp, false);
		TM_CHECK_INT_EQ(r.stats[0].out_rows, (int64_t) groups.size());
		tm_gpu_table_free(&r.out);
	}
	plain_pool_destroy(plain);
}

/*
 * any() of columns that are not keys but have one value per key, as a primary key's table's columns do
 * (TPC-H Q10's customer columns by c_custkey): F (k, t, n, i, v) -> AGG by k: any(t), any(n), any(i),
 * count(*), sum(v), against the reference.  t (text), n (numeric), i (int8) are functions of k, NULL for
 * every row of some keys (the group's any() is then NULL: its state is never set, every row of the group
 * evaluates the column), and the hot keys hold most rows (Zipf).  On a full grid and on 2 blocks, on g_pool
 * and with the fast paths off
 */
static void
test_any_dependent(void)
{
	enum { F_K, F_T, F_N, F_I, F_V, F_NCOLS };
	HTable		F;
	Zipf		zk(3000, 1.2);
	TmGpuPool  *plain = plain_pool();

	F.nrows = 150000;
	F.cols.push_back(col_new(TM_K_INT4));
	F.cols.push_back(col_new(TM_K_TEXT));
	F.cols.push_back(col_new(TM_K_NUMERIC));
	F.cols.push_back(col_new(TM_K_INT8));
	F.cols.push_back(col_new(TM_K_INT4));
	for (int64_t r = 0; r < F.nrows; r++)
	{
		int64_t		k = zk.draw();
		bool		knull = r % 97 == 0;

		push_i(F.cols[F_K], k, knull);
		push_s(F.cols[F_T], std::string(words[k % NWORDS]) + "#" + std::to_string(k), knull || k % 5 == 0);
		push_n(F.cols[F_N], (tm_int128) k * 1000003 - 7, knull || k % 7 == 0);
		push_i(F.cols[F_I], k * 3 - 1000, knull || k % 3 == 0);
		push_i(F.cols[F_V], rnd_range(-50, 50), chance(0.10));
	}
	for (int variant = 0; variant < 4; variant++)
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_k = p.slot(ty(TM_K_INT4), 0, F_K);
		int			s_t = p.slot(ty(TM_K_TEXT), 0, F_T);
		int			s_n = p.slot(ty(TM_K_NUMERIC, 2), 0, F_N);
		int			s_i = p.slot(ty(TM_K_INT8), 0, F_I);
		int			s_v = p.slot(ty(TM_K_INT4), 0, F_V);
		int			cap = variant % 2 ? 2 : 0;
		bool		use_plain = variant >= 2;
		std::map<std::string, std::pair<int64_t, std::pair<int64_t, bool>>> cnt;	/* count, sum(v), has v */
		std::map<std::string, std::string> dep;
		std::vector<std::string> exp;
		char		what[80];

		if (use_plain && plain == NULL)
			break;
		TmPlan		pl = plan({p.agg(0, {x_slot(s_k, ty(TM_K_INT4))},
									 {agg(TM_AGG_ANY, x_slot(s_t, ty(TM_K_TEXT)), ty(TM_K_TEXT)),
									  agg(TM_AGG_ANY, x_slot(s_n, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 2)),
									  agg(TM_AGG_ANY, x_slot(s_i, ty(TM_K_INT8)), ty(TM_K_INT8)),
									  agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
									  agg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8))})},
							  {}, {result({ty(TM_K_INT4), ty(TM_K_TEXT), ty(TM_K_NUMERIC, 2), ty(TM_K_INT8),
										   ty(TM_K_INT8), ty(TM_K_INT8)})}, 0);

		tm_gpu_set_max_blocks(cap);
		Run			r = run_plan(pl, {&F}, NULL, NULL, use_plain ? plain : NULL);

		tm_gpu_set_max_blocks(0);
		CHECK_OK(r);
		for (int64_t i = 0; i < F.nrows; i++)
		{
			std::string k = cell(F.cols[F_K], i);
			auto	   &c = cnt[k];

			dep[k] = cell(F.cols[F_T], i) + cell(F.cols[F_N], i) + cell(F.cols[F_I], i);
			c.first++;
			if (!isnull(F, F_V, i))
			{
				c.second.first += ival(F, F_V, i);
				c.second.second = true;
			}
		}
		for (auto &g : cnt)
			exp.push_back(g.first + dep[g.first] + cI(g.second.first) +
						  (g.second.second.second ? cI(g.second.second.first) : cNULL));
		snprintf(what, sizeof(what), "any() of dependent columns%s%s", cap ? ", 2 blocks" : "",
				 use_plain ? ", fast paths off" : "");
		check_rows(what, out_rows(r.out), exp, false);
		TM_CHECK_INT_EQ(r.stats[0].out_rows, (int64_t) cnt.size());
		tm_gpu_table_free(&r.out);
	}
	plain_pool_destroy(plain);
}

/*
 * pipeline_kernel<true>, compiled without the interpreter (tm_gpu_pool_set_nointerp): T -> [FILTER v > -40]
 * -> AGG by keys, against the reference, and the kernel that ran (TmGpuPipelineStats.nointerp_passes).
 * By bp and without keys, with bare-slot aggregates, two with a FILTER of a comparison and one with a
 * FILTER of txt LIKE '%e%' (their fast forms, DAgg.ffq), and a sum of v * v - 7 in its fast arithmetic form:
 * pipeline_kernel<true> where the pass runs pipeline_kernel with the fast paths on and it is not turned
 * off; by id % 3 (a key the interpreter computes) and with a float sum (a locked aggregate) added: the
 * generic kernel.  With and without the filter (pipeline_kernel's two row loops).
 */
static bool g_nointerp = true;	/* tm_gpu_pool_set_nointerp of the pass */
static void p_text(const char *s);

static void
test_nointerp(void)
{
	HTable		T = make_T(200000, 300);

	for (int kv = 0; kv < 4; kv++)
	{
		for (int filtered = 0; filtered < 2; filtered++)
		{
			AggSlots	s;
			PipeB		p = t_agg_pipe(&s);
			int			s_bp = p.slot(ty(TM_K_BPCHAR), 0, T_BP);
			int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
			std::vector<TmAgg> all = t_aggs(s);
			std::vector<TmType> allt = t_agg_types();
			std::vector<TmAgg> aggs = {all[0], all[1], all[2], all[3], all[4], all[5], all[6], all[10], all[13],
				all[14], all[15]};
			std::vector<TmType> rt;
			std::vector<TmExpr *> keys;
			std::map<std::string, RefAgg> groups;
			std::map<std::string, std::pair<bool, int64_t>> sq;	/* sum(v * v - 7) */
			std::map<std::string, double> fsum;
			std::map<std::string, int64_t> liked;	/* count(*) FILTER (WHERE txt LIKE '%e%') */
			std::vector<std::string> exp;
			bool		expect = kv < 2 && g_fast_paths && g_nointerp &&
				(g_lb_mode == TM_GPU_LB_NONE || g_lb_mode == TM_GPU_LB_AUTO);
			char		what[80];

			if (kv == 0 || kv == 3)
			{
				keys = {x_slot(s_bp, ty(TM_K_BPCHAR))};
				rt = {ty(TM_K_BPCHAR)};
			}
			else if (kv == 2)
			{
				keys = {x_mod(s_id, 3, TM_K_INT8)};
				rt = {ty(TM_K_INT8)};
			}
			for (int a : {0, 1, 2, 3, 4, 5, 6, 10, 13, 14, 15})
				rt.push_back(allt[a]);
			a_init();
			p_slot(s.v);
			p_slot(s.v);
			a_op(TMI_MUL, TM_K_INT4, 0, 0, 0);
			p_int(7);
			a_op(TMI_SUB, TM_K_INT4, 0, 0, 0);
			aggs.push_back(agg(TM_AGG_SUM, a_build(ty(TM_K_INT4)), ty(TM_K_INT8)));
			rt.push_back(ty(TM_K_INT8));
			/* a FILTER whose fast form holds a text constant (the device image's pool) */
			a_init();
			p_slot(s.txt);
			p_text("%e%");
			a_op(TMI_LIKE, TMF_UTF8, 0, 0, 0);
			aggs.push_back(agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8), a_build(ty(TM_K_BOOL))));
			rt.push_back(ty(TM_K_INT8));
			if (kv == 3)
			{
				aggs.push_back(all[11]);
				rt.push_back(allt[11]);
			}
			if (filtered)
				p.filter(x_cmp_const(s.v, TM_PRED_GT, -40));
			TmPlan		pl = plan({p.agg(0, keys, aggs)}, {}, {result(rt)}, 0);
			Run			r = run_plan(pl, {&T});

			CHECK_OK(r);
			for (int64_t i = 0; i < T.nrows; i++)
			{
				std::string k;

				if (filtered && (isnull(T, T_V, i) || ival(T, T_V, i) <= -40))
					continue;
				if (kv == 0 || kv == 3)
					k = cell(T.cols[T_BP], i);
				else if (kv == 2)
					k = cI(i % 3);
				groups[k].add(T, i);
				if (!isnull(T, T_V, i))
				{
					sq[k].first = true;
					sq[k].second += ival(T, T_V, i) * ival(T, T_V, i) - 7;
				}
				if (!isnull(T, T_F, i))
					fsum[k] += T.cols[T_F].f[i];
				liked[k] += !isnull(T, T_TXT, i) && T.cols[T_TXT].s[i].find('e') != std::string::npos ? 1 : 0;
			}
			if (kv == 1 && groups.empty())
				groups[""] = RefAgg();
			for (auto &g : groups)
			{
				const RefAgg &a = g.second;
				std::string row = g.first + cI(a.cstar) + cI(a.cv) + (a.hv ? cI(a.sumv) : cNULL) +
					(a.hbig ? cN(a.sumbig) : cNULL) + (a.hnum ? cN(a.sumnum) : cNULL) + (a.hv ? cI(a.minv) : cNULL) +
					(a.hv ? cI(a.maxv) : cNULL) + (a.hbig ? cI(a.maxbig) : cNULL) + (a.hd ? cI(a.mind) : cNULL) +
					cI(a.cpos) + (a.hneg ? cN(a.sumneg) : cNULL) + (sq[g.first].first ? cI(sq[g.first].second) : cNULL) +
					cI(liked[g.first]);

				if (kv == 3)
					row += a.hf ? cF(fsum[g.first]) : cNULL;
				exp.push_back(row);
			}
			snprintf(what, sizeof(what), "no interpreter, keys %d%s", kv, filtered ? ", filtered" : "");
			check_rows(what, out_rows(r.out), exp, false);
			TM_CHECK_MSG((r.stats[0].nointerp_passes > 0) == expect, "%s: %lld passes without the interpreter",
						 what, (long long) r.stats[0].nointerp_passes);
			tm_gpu_table_free(&r.out);
		}
	}
}

/*
 * The aggregations of test_private_agg with no row for them (the blocks' memo and private states start
 * and flush empty): AGG by keys over a source of 0 rows, with and without a filter; over 20000 rows that
 * a filter drops every one of (v > 1000: v is in [-50, 50] or NULL); and after a first filter that keeps
 * most rows (v > -40, then id < 0).  Grouped (by bp: few keys, private states and the memo; by (g, bp,
 * id % 3, g, bp): 5 keys, no memo; by id % 40000): no group at all; without keys: the one row of
 * test_global_agg's empty case (counts 0, the rest NULL).  Then every row reaches the sink but every
 * aggregate's FILTER drops it (v > 1000): each group is there, its aggregates as over no row (the
 * private states' identities, min INT64_MAX / max INT64_MIN, never reach a result)
 */
static void
test_private_agg_empty(void)
{
	HTable		E = make_T(0, 300);
	HTable		T = make_T(20000, 300);
	RefAgg		none;

	for (int variant = 0; variant < 4; variant++)
	{
		/* src 0: 0 rows; 1: 0 rows, filter; 2: every row filtered; 3: the second filter; 4: aggregate FILTERs */
		for (int src = 0; src < 5; src++)
		{
			const HTable *in = src < 2 ? &E : &T;
			AggSlots	s;
			PipeB		p = t_agg_pipe(&s);
			int			s_g = p.slot(ty(TM_K_INT4), 0, T_G);
			int			s_bp = p.slot(ty(TM_K_BPCHAR), 0, T_BP);
			int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
			std::vector<TmExpr *> keys;
			std::vector<TmType> rt;
			std::vector<TmType> at = t_agg_types_atomic();
			std::vector<TmAgg> aggs = t_aggs_atomic(s);
			std::set<std::string> groups;
			std::vector<std::string> exp;
			char		what[96];

			if (variant == 1)
			{
				keys = {x_slot(s_bp, ty(TM_K_BPCHAR))};
				rt = {ty(TM_K_BPCHAR)};
			}
			else if (variant == 2)
			{
				keys = {x_slot(s_g, ty(TM_K_INT4)), x_slot(s_bp, ty(TM_K_BPCHAR)), x_mod(s_id, 3, TM_K_INT8),
					x_slot(s_g, ty(TM_K_INT4)), x_slot(s_bp, ty(TM_K_BPCHAR))};
				rt = {ty(TM_K_INT4), ty(TM_K_BPCHAR), ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_BPCHAR)};
			}
			else if (variant == 3)
			{
				keys = {x_mod(s_id, 40000, TM_K_INT8)};
				rt = {ty(TM_K_INT8)};
			}
			rt.insert(rt.end(), at.begin(), at.end());
			if (src == 1 || src == 2)
				p.filter(x_cmp_const(s.v, TM_PRED_GT, 1000));
			else if (src == 3)
			{
				p.filter(x_cmp_const(s.v, TM_PRED_GT, -40));
				p.filter(x_cmp_const(s_id, TM_PRED_LT, 0));
			}
			else if (src == 4)
			{
				for (auto &a : aggs)
					a.filter = x_cmp_const(s.v, TM_PRED_GT, 1000);
			}
			TmPlan		pl = plan({p.agg(0, keys, aggs)}, {}, {result(rt)}, 0);
			Run			r = run_plan(pl, {in});

			CHECK_OK(r);
			if (variant == 0)
				exp.push_back(none.cells_atomic());
			else if (src == 4)
			{
				for (int64_t i = 0; i < T.nrows; i++)
				{
					if (variant == 1)
						groups.insert(cell(T.cols[T_BP], i));
					else if (variant == 2)
						groups.insert(cell(T.cols[T_G], i) + cell(T.cols[T_BP], i) + cI(i % 3) +
									  cell(T.cols[T_G], i) + cell(T.cols[T_BP], i));
					else
						groups.insert(cI(i % 40000));
				}
				for (auto &g : groups)
					exp.push_back(g + none.cells_atomic());
			}
			snprintf(what, sizeof(what), "no sink row for the aggregates, keys %d, source %d", variant, src);
			check_rows(what, out_rows(r.out), exp, variant == 0);
			TM_CHECK_INT_EQ(r.out.ncols, (int64_t) rt.size());
			TM_CHECK_INT_EQ(r.out.nrows, (int64_t) exp.size());
			TM_CHECK_INT_EQ(r.stats[0].source_rows, in->nrows);
			TM_CHECK_INT_EQ(r.stats[0].sink_rows, src == 4 ? T.nrows : 0);
			TM_CHECK_INT_EQ(r.stats[0].out_rows, (int64_t) exp.size());
			tm_gpu_table_free(&r.out);
		}
	}
}

/* a second pool with the fast paths off (no private states: every row on the groups' words), or NULL */
static TmGpuPool *
plain_pool(void)
{
	TmGpuPool  *pool = NULL;
	char		err[256];
	int			rc = tm_gpu_pool_create(0, (size_t) 64 << 20, &pool, err, sizeof(err));

	TM_CHECK_MSG(rc == TM_GPU_OK, "%s", err);
	if (rc != TM_GPU_OK)
		return NULL;
	tm_gpu_pool_set_fast_paths(pool, 0);
	return pool;
}

/* destroy a pool of plain_pool() (NULL: nothing) */
static void
plain_pool_destroy(TmGpuPool *pool)
{
	char		err[256];

	if (pool != NULL)
		TM_CHECK_MSG(tm_gpu_pool_destroy(pool, err, sizeof(err)) == TM_GPU_OK, "%s", err);
}

/*
 * Numeric sums at and beyond 128 bits, grouped: H (g, n numeric(0)) -> AGG by g: count(*), count(n),
 * sum(n).  With few groups the blocks add into private states (192-bit sums in shared memory, flushed
 * into the groups' 192-bit words) and the range is checked once, on the final sums (agg_final_kernel),
 * as on the plain path.  Each case runs on g_pool (the private path where the scheduler is NONE and the
 * fast paths are on) and on a pool with the fast paths off (no private states: every row on the groups'
 * words), which must agree: a group's sum beyond 128 bits fails the execution with TM_GPU_ERR_EXPR /
 * TM_ERR_FALLBACK (the CPU runs the query, as for test_errors' global sum), sums within the range are
 * exact, whatever the partial sums on the way (a block's, the group's, a thread's 64-bit partial: the
 * last two cases run on one block, so that each thread adds many rows into its thread-private sums)
 */
static void
test_private_agg_overflow(void)
{
	static const char *const names[] = {"every group past 2^127", "every group past -2^127",
		"one group of 40 past 2^127", "one group at 2^127", "groups at 2^127 - 1 and -2^127 + 1",
		"partial sums past 128 bits, total 5", "thread-private sums past 2^63 (one block)",
		"thread-private sums of small values (one block)"};
	const tm_int128 p126 = (tm_int128) 1 << 126;
	TmGpuPool  *plain = plain_pool();
	char		err[256];

	if (plain == NULL)
		return;
	for (int cs = 0; cs < 8; cs++)
	{
		HTable		H;
		bool		fallback = cs <= 3;
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_g = p.slot(ty(TM_K_INT4), 0, 0);
		int			s_n = p.slot(ty(TM_K_NUMERIC, 0), 0, 1);
		struct G
		{
			int64_t		cstar = 0, cn = 0;
			tm_uint128	sum = 0;	/* wraps: exact where the total fits 128 bits */
		};
		std::map<int64_t, G> groups;
		std::vector<std::string> exp;
		char		what[128];

		H.cols.push_back(col_new(TM_K_INT4));
		H.cols.push_back(col_new(TM_K_NUMERIC));
		switch (cs)
		{
			case 0:
			case 1:
				/* 1000 rows of 2^126 (-2^126) a group: 2^136 (-2^136) */
				for (int64_t i = 0; i < 4000; i++)
				{
					push_i(H.cols[0], i % 4);
					push_n(H.cols[1], cs == 0 ? p126 : -p126);
				}
				break;
			case 2:
				/* group 17 (private or not, as its number falls): 100 rows of 2^126; the others small */
				for (int64_t i = 0; i < 4000; i++)
				{
					push_i(H.cols[0], i % 40);
					if (i % 40 == 17)
						push_n(H.cols[1], p126);
					else
						push_n(H.cols[1], (tm_int128) rnd_range(-1000, 1000), chance(0.1));
				}
				break;
			case 3:
			case 4:
				/*
				 * group 3: 2^126 + 2^126 = 2^127, one past the range, or 2^126 + 2^126 - 1 = 2^127 - 1, its
				 * top; group 2: -2^127 + 1, the bottom but one
				 */
				push_i(H.cols[0], 0);
				push_n(H.cols[1], 7);
				push_i(H.cols[0], 1);
				push_n(H.cols[1], 0, true);
				push_i(H.cols[0], 3);
				push_n(H.cols[1], p126);
				push_i(H.cols[0], 2);
				push_n(H.cols[1], -p126);
				push_i(H.cols[0], 3);
				push_n(H.cols[1], cs == 3 ? p126 : p126 - 1);
				push_i(H.cols[0], 2);
				push_n(H.cols[1], -p126 + 1);
				break;
			default:
				/*
				 * 16 runs of 256 rows (a block's rows where a thread has one row), alternately 2^126 and
				 * -2^126: a block's private sum of a group is +-2^132 (64 rows), the group's sum of the 16
				 * runs 0; then 5 once a group, and two NULLs
				 */
				for (int64_t i = 0; i < 4096; i++)
				{
					push_i(H.cols[0], i % 4);
					push_n(H.cols[1], (i / 256) % 2 == 0 ? p126 : -p126);
				}
				for (int64_t i = 4096; i < 4108; i++)
				{
					push_i(H.cols[0], i % 4);
					push_n(H.cols[1], 5, i >= 4100);
				}
				break;
			case 6:
				/*
				 * one block (below): each thread 32 rows of one group, +-(2^62 + a little), two thirds
				 * positive: its 64-bit partial overflows upwards every few rows (no two negative rows of a
				 * thread follow each other: the overflows downwards are test_private_agg's, int8 sums)
				 */
				for (int64_t i = 0; i < 8192; i++)
				{
					tm_int128	v = ((tm_int128) 1 << 62) + (i % 1000);

					push_i(H.cols[0], i % 4);
					push_n(H.cols[1], i % 3 == 0 ? -v : v);
				}
				break;
			case 7:
				/* one block: 6 groups of small values and NULLs, many rows a thread */
				for (int64_t i = 0; i < 8192; i++)
				{
					push_i(H.cols[0], i % 6);
					push_n(H.cols[1], (tm_int128) rnd_range(-1000000, 1000000), chance(0.1));
				}
				break;
		}
		H.nrows = (int64_t) H.cols[0].i.size();
		TmPlan		pl = plan({p.agg(0, {x_slot(s_g, ty(TM_K_INT4))},
								 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								  agg(TM_AGG_COUNT, x_slot(s_n, ty(TM_K_NUMERIC, 0)), ty(TM_K_INT8)),
								  agg(TM_AGG_SUM, x_slot(s_n, ty(TM_K_NUMERIC, 0)), ty(TM_K_NUMERIC, 0))})},
							  {}, {result({ty(TM_K_INT4), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_NUMERIC, 0)})}, 0);
		tm_gpu_set_max_blocks(cs >= 6 ? 1 : 0);
		Run			r = run_plan(pl, {&H});
		Run			rp = run_plan(pl, {&H}, NULL, NULL, plain);

		tm_gpu_set_max_blocks(0);
		if (fallback)
		{
			TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.status == TM_ERR_FALLBACK && r.fail.pipeline == 0,
						 "%s: rc %d status %d pipeline %d: %s", names[cs], r.rc, r.fail.status, r.fail.pipeline,
						 r.err);
			TM_CHECK_MSG(rp.rc == TM_GPU_ERR_EXPR && rp.fail.status == TM_ERR_FALLBACK && rp.fail.pipeline == 0,
						 "%s, fast paths off: rc %d status %d pipeline %d: %s", names[cs], rp.rc, rp.fail.status,
						 rp.fail.pipeline, rp.err);
			TM_CHECK_MSG(r.fail.row == rp.fail.row, "%s: error row %lld, fast paths off %lld", names[cs],
						 (long long) r.fail.row, (long long) rp.fail.row);
			TM_CHECK(r.out.cols == NULL);
			TM_CHECK(rp.out.cols == NULL);
			continue;
		}
		for (int64_t i = 0; i < H.nrows; i++)
		{
			G		   *g = &groups[ival(H, 0, i)];

			g->cstar++;
			if (!isnull(H, 1, i))
			{
				g->cn++;
				g->sum += (tm_uint128) H.cols[1].n[i];
			}
		}
		for (auto &g : groups)
			exp.push_back(cI(g.first) + cI(g.second.cstar) + cI(g.second.cn) +
						  (g.second.cn > 0 ? cN((tm_int128) g.second.sum) : cNULL));
		CHECK_OK(r);
		CHECK_OK(rp);
		snprintf(what, sizeof(what), "numeric sums, %s", names[cs]);
		check_rows(what, out_rows(r.out), exp, false);
		snprintf(what, sizeof(what), "numeric sums, %s, fast paths off", names[cs]);
		check_rows(what, out_rows(rp.out), exp, false);
		tm_gpu_table_free(&r.out);
		tm_gpu_table_free(&rp.out);
	}
	TM_CHECK(tm_gpu_pool_destroy(plain, err, sizeof(err)) == TM_GPU_OK);
}

/*
 * Global aggregates of atomics (no group keys): H (i int4, n numeric(0)) -> AGG: count(*), count(n),
 * sum(n), sum(i), min(i), max(i), one row, against a reference computed here with the overflow of the
 * numeric sum checked (past 128 bits: the execution fails with TM_ERR_FALLBACK, the CPU runs it).  On
 * g_pool (where tm_gpu_pool_set_private_global is on and the scheduler NONE: the block-private state
 * of the one group and the threads' 64-bit partial sums; otherwise one atomic per warp) and on a pool
 * with the fast paths off (every row on the group's words), which must agree.  Cases: many blocks of
 * small values and NULLs; one block whose threads' partials pass 2^63 every few rows; runs of +-2^126
 * whose block sums pass 128 bits and cancel; a total past 2^127; only NULLs (sum NULL, counts)
 */
static void
test_private_global_sums(void)
{
	static const char *const names[] = {"small values, many blocks", "partials past 2^63 (one block)",
		"runs of +-2^126 (block sums past 128 bits)", "a total past 2^127", "only NULLs"};
	const tm_int128 p126 = (tm_int128) 1 << 126;
	TmGpuPool  *plain = plain_pool();
	char		err[256];

	if (plain == NULL)
		return;
	for (int cs = 0; cs < 5; cs++)
	{
		HTable		H;
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_i = p.slot(ty(TM_K_INT4), 0, 0);
		int			s_n = p.slot(ty(TM_K_NUMERIC, 0), 0, 1);
		int64_t		cstar = 0,
					cn = 0,
					ci = 0,
					isum = 0,
					imin = INT64_MAX,
					imax = INT64_MIN;
		tm_int128	sum = 0;
		bool		overflow = false;
		char		what[160];

		H.cols.push_back(col_new(TM_K_INT4));
		H.cols.push_back(col_new(TM_K_NUMERIC));
		switch (cs)
		{
			case 0:
				for (int64_t i = 0; i < 300000; i++)
				{
					push_i(H.cols[0], rnd_range(-1000000, 1000000), chance(0.05));
					push_n(H.cols[1], (tm_int128) rnd_range(-1000000000, 1000000000), chance(0.1));
				}
				break;
			case 1:
				for (int64_t i = 0; i < 8192; i++)
				{
					tm_int128	v = ((tm_int128) 1 << 62) + (i % 1000);

					push_i(H.cols[0], (int64_t) (i % 7) - 3);
					push_n(H.cols[1], i % 3 == 0 ? -v : v);
				}
				break;
			case 2:
				for (int64_t i = 0; i < 8192; i++)
				{
					push_i(H.cols[0], i);
					push_n(H.cols[1], (i / 256) % 2 == 0 ? p126 : -p126);
				}
				push_i(H.cols[0], 5);
				push_n(H.cols[1], 5);
				break;
			case 3:
				for (int64_t i = 0; i < 4000; i++)
				{
					push_i(H.cols[0], i);
					push_n(H.cols[1], p126);
				}
				break;
			default:
				for (int64_t i = 0; i < 5000; i++)
				{
					push_i(H.cols[0], 0, true);
					push_n(H.cols[1], 0, true);
				}
				break;
		}
		H.nrows = (int64_t) H.cols[0].i.size();
		for (int64_t i = 0; i < H.nrows; i++)
		{
			cstar++;
			if (!isnull(H, 0, i))
			{
				int64_t		v = ival(H, 0, i);

				ci++;
				isum += v;
				imin = v < imin ? v : imin;
				imax = v > imax ? v : imax;
			}
			if (!isnull(H, 1, i))
			{
				cn++;
				if (__builtin_add_overflow(sum, H.cols[1].n[i], &sum))
					overflow = true;
			}
		}
		/* a partial overflow that comes back (case 2) is not one: only the total counts */
		if (cs == 2)
			overflow = false;
		TmPlan		pl = plan({p.agg(0, {},
								 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								  agg(TM_AGG_COUNT, x_slot(s_n, ty(TM_K_NUMERIC, 0)), ty(TM_K_INT8)),
								  agg(TM_AGG_SUM, x_slot(s_n, ty(TM_K_NUMERIC, 0)), ty(TM_K_NUMERIC, 0)),
								  agg(TM_AGG_SUM, x_slot(s_i, ty(TM_K_INT4)), ty(TM_K_INT8)),
								  agg(TM_AGG_MIN, x_slot(s_i, ty(TM_K_INT4)), ty(TM_K_INT4)),
								  agg(TM_AGG_MAX, x_slot(s_i, ty(TM_K_INT4)), ty(TM_K_INT4))})},
							  {}, {result({ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_NUMERIC, 0), ty(TM_K_INT8),
										   ty(TM_K_INT4), ty(TM_K_INT4)})}, 0);
		tm_gpu_set_max_blocks(cs == 1 ? 1 : 0);
		Run			r = run_plan(pl, {&H});
		Run			rp = run_plan(pl, {&H}, NULL, NULL, plain);

		tm_gpu_set_max_blocks(0);
		if (overflow)
		{
			TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.status == TM_ERR_FALLBACK,
						 "global sums, %s: rc %d status %d: %s", names[cs], r.rc, r.fail.status, r.err);
			TM_CHECK_MSG(rp.rc == TM_GPU_ERR_EXPR && rp.fail.status == TM_ERR_FALLBACK,
						 "global sums, %s, fast paths off: rc %d status %d: %s", names[cs], rp.rc,
						 rp.fail.status, rp.err);
			TM_CHECK(r.out.cols == NULL);
			TM_CHECK(rp.out.cols == NULL);
			continue;
		}
		std::vector<std::string> exp = {cI(cstar) + cI(cn) + (cn > 0 ? cN(sum) : cNULL) +
			(ci > 0 ? cI(isum) + cI(imin) + cI(imax) : cNULL + cNULL + cNULL)};

		CHECK_OK(r);
		CHECK_OK(rp);
		snprintf(what, sizeof(what), "global sums, %s", names[cs]);
		check_rows(what, out_rows(r.out), exp, false);
		snprintf(what, sizeof(what), "global sums, %s, fast paths off", names[cs]);
		check_rows(what, out_rows(rp.out), exp, false);
		tm_gpu_table_free(&r.out);
		tm_gpu_table_free(&rp.out);
	}
	TM_CHECK(tm_gpu_pool_destroy(plain, err, sizeof(err)) == TM_GPU_OK);
}

/* numeric constant v (its scale is the instruction's, as the compiler gives it) */
static void
p_numk(tm_int128 v)
{
	TmValue		k;

	k.n = v;					/* all 16 bytes */
	p_const(k);
}

/*
 * Aggregates whose arguments are arithmetic (the fast form, TmFastArith, where the fast paths are on;
 * the interpreter where they are off), against a reference computed here: sum(big / 4 - big % 1000)
 * (int8 -> numeric), max(v * v - 7) (int4), count(big * 2 + 1), sum(v * (1 - v)) (int4 -> int8),
 * sum((num % 1000) * (1 - num % 7)) (numeric(2) operands, numeric(4), TPC-H's revenue shape), count(*),
 * sum(v + NULL) (NULL); over T without keys, by bp (private states) and by id % 40000 (the group table)
 */
static void
test_fast_arith_aggs(void)
{
	HTable		T = make_T(200000, 300);

	/*
	 * variants: 0 no keys, 1 a bpchar key, 2 a computed key; 3 and 4 as 1 and 0 behind two filters (a
	 * test against a constant, a test of two columns).  Under g_jit all but 2 (its key is not a column)
	 * run in the kernel generated for them.
	 */
	for (int variant = 0; variant < 5; variant++)
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
		int			s_big = p.slot(ty(TM_K_INT8), 0, T_BIG);
		int			s_num = p.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
		int			s_bp = p.slot(ty(TM_K_BPCHAR), 0, T_BP);
		int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
		int			s_g = p.slot(ty(TM_K_INT4), 0, T_G);
		std::vector<TmExpr *> keys;
		std::vector<TmType> rt;
		std::vector<TmAgg> aggs;
		bool		filtered = variant >= 3;
		struct Ref
		{
			tm_int128	a1 = 0, a5 = 0;
			int64_t		a2 = 0, a3 = 0, a4 = 0, a6 = 0;
			bool		h1 = false, h2 = false, h4 = false, h5 = false;
		};
		std::map<std::string, Ref> groups;
		std::vector<std::string> exp;
		char		what[64];

		a_init();
		p_slot(s_big);
		p_int(4);
		a_op(TMI_DIV, TM_K_INT8, 0, 0, 0);
		p_slot(s_big);
		p_int(1000);
		a_op(TMI_MOD, TM_K_INT8, 0, 0, 0);
		a_op(TMI_SUB, TM_K_INT8, 0, 0, 0);
		aggs.push_back(agg(TM_AGG_SUM, a_build(ty(TM_K_INT8)), ty(TM_K_NUMERIC, 0)));
		a_init();
		p_slot(s_v);
		p_slot(s_v);
		a_op(TMI_MUL, TM_K_INT4, 0, 0, 0);
		p_int(7);
		a_op(TMI_SUB, TM_K_INT4, 0, 0, 0);
		aggs.push_back(agg(TM_AGG_MAX, a_build(ty(TM_K_INT4)), ty(TM_K_INT4)));
		a_init();
		p_slot(s_big);
		p_int(2);
		a_op(TMI_MUL, TM_K_INT8, 0, 0, 0);
		p_int(1);
		a_op(TMI_ADD, TM_K_INT8, 0, 0, 0);
		aggs.push_back(agg(TM_AGG_COUNT, a_build(ty(TM_K_INT8)), ty(TM_K_INT8)));
		a_init();
		p_slot(s_v);
		p_int(1);
		p_slot(s_v);
		a_op(TMI_SUB, TM_K_INT4, 0, 0, 0);
		a_op(TMI_MUL, TM_K_INT4, 0, 0, 0);
		aggs.push_back(agg(TM_AGG_SUM, a_build(ty(TM_K_INT4)), ty(TM_K_INT8)));
		a_init();
		p_slot(s_num);
		p_numk(1000);
		a_op(TMI_MOD, TM_K_NUMERIC, 2, 0, 0);
		p_numk(1);
		p_slot(s_num);
		p_numk(7);
		a_op(TMI_MOD, TM_K_NUMERIC, 2, 0, 0);
		a_op(TMI_SUB, TM_K_NUMERIC, 0, 2, 0);
		a_op(TMI_MUL, TM_K_NUMERIC, 2, 2, 0);
		aggs.push_back(agg(TM_AGG_SUM, a_build(ty(TM_K_NUMERIC, 4)), ty(TM_K_NUMERIC, 4)));
		aggs.push_back(agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)));
		a_init();
		p_slot(s_v);
		a_op(TMI_PUSH_NULL, 0, 0, 0, 0);
		a_op(TMI_ADD, TM_K_INT4, 0, 0, 0);
		aggs.push_back(agg(TM_AGG_SUM, a_build(ty(TM_K_INT4)), ty(TM_K_INT8)));

		if (variant == 1 || variant == 3)
		{
			keys = {x_slot(s_bp, ty(TM_K_BPCHAR))};
			rt = {ty(TM_K_BPCHAR)};
		}
		else if (variant == 2)
		{
			keys = {x_mod(s_id, 40000, TM_K_INT8)};
			rt = {ty(TM_K_INT8)};
		}
		if (filtered)
		{
			p.filter(x_cmp_const(s_v, TM_PRED_GE, -20));
			p.filter(x_cmp_slots(s_v, TM_PRED_NE, s_g));
		}
		for (const TmAgg &a : aggs)
			rt.push_back(a.restype);

		TmPlan		pl = plan({p.agg(0, keys, aggs)}, {}, {result(rt)}, 0);
		Run			r = run_plan(pl, {&T});

		CHECK_OK(r);
		if (g_jit && r.rc == TM_GPU_OK && r.stats[0].jit == TM_JIT_UNAVAILABLE)
			printf("  (no NVRTC here: the generic kernel ran)\n");
		else if (g_jit && r.rc == TM_GPU_OK)
			TM_CHECK_MSG((r.stats[0].jit == TM_JIT_RAN && r.stats[0].jit_passes > 0) == (variant != 2),
						 "variant %d: generated kernel state %d, %lld passes", variant, r.stats[0].jit,
						 (long long) r.stats[0].jit_passes);
		for (int64_t i = 0; i < T.nrows; i++)
		{
			std::string k = (variant == 1 || variant == 3) ? cell(T.cols[T_BP], i) :
				variant == 2 ? cI(i % 40000) : std::string();

			if (filtered && (isnull(T, T_V, i) || isnull(T, T_G, i) || ival(T, T_V, i) < -20 ||
							 ival(T, T_V, i) == ival(T, T_G, i)))
				continue;

			Ref		   &g = groups[k];

			g.a6++;
			if (!isnull(T, T_BIG, i))
			{
				int64_t		b = ival(T, T_BIG, i);

				g.a1 += (tm_int128) (b / 4 - b % 1000);
				g.h1 = true;
				g.a3++;
			}
			if (!isnull(T, T_V, i))
			{
				int64_t		v = ival(T, T_V, i);

				g.a2 = g.h2 ? std::max(g.a2, v * v - 7) : v * v - 7;
				g.h2 = true;
				g.a4 += v * (1 - v);
				g.h4 = true;
			}
			if (!isnull(T, T_NUM, i))
			{
				tm_int128	n = T.cols[T_NUM].n[i];

				/* scales: 1000 and 7 (scale 0) brought to 2, 1 (scale 0) to 2, the product at 4 */
				g.a5 += (n % 100000) * (100 - n % 700);
				g.h5 = true;
			}
		}
		if (keys.empty())
			(void) groups[std::string()];	/* a global aggregate has its one row whatever passes */
		for (auto &g : groups)
			exp.push_back(g.first + (g.second.h1 ? cN(g.second.a1) : cNULL) +
						  (g.second.h2 ? cI(g.second.a2) : cNULL) + cI(g.second.a3) +
						  (g.second.h4 ? cI(g.second.a4) : cNULL) + (g.second.h5 ? cN(g.second.a5) : cNULL) +
						  cI(g.second.a6) + cNULL);
		snprintf(what, sizeof(what), "arithmetic aggregate arguments, keys %d", variant);
		check_rows(what, out_rows(r.out), exp, false);
		tm_gpu_table_free(&r.out);
	}
}

/* T -> AGG without keys: one group, also over an empty table */
static void
test_global_agg(void)
{
	HTable		T = make_T(3000, 300);
	HTable		E = make_T(0, 300);
	AggSlots	s;
	PipeB		p = t_agg_pipe(&s);
	TmPlan		pl = plan({p.agg(0, {}, t_aggs(s))}, {}, {result(t_agg_types())}, 0);
	RefAgg		all,
				none;
	Run			r = run_plan(pl, {&T});

	CHECK_OK(r);
	for (int64_t i = 0; i < T.nrows; i++)
		all.add(T, i);
	check_rows("global aggregate", out_rows(r.out), {all.cells()}, true);
	tm_gpu_table_free(&r.out);

	r = run_plan(pl, {&E});
	CHECK_OK(r);
	check_rows("global aggregate, no rows", out_rows(r.out), {none.cells()}, true);
	tm_gpu_table_free(&r.out);

	/*
	 * many rows in one launch, all on the one state before it has a value: the min / max under lock
	 * (numeric, text, float8) keep the best of a warp's values in one lane and leave the lock once the
	 * state beats them (a max over 100,000 group results, TPC-H Q15)
	 */
	{
		HTable		L = make_T(400000, 300);
		RefAgg		big;

		r = run_plan(pl, {&L});
		CHECK_OK(r);
		for (int64_t i = 0; i < L.nrows; i++)
			big.add(L, i);
		check_rows("global aggregate, 400000 rows", out_rows(r.out), {big.cells()}, true);
		tm_gpu_table_free(&r.out);
	}
}

/*
 * B -> ht0;  T -> PROBE ht0 inner -> AGG without keys (t_aggs): nearly every T row matches hundreds of
 * B rows (one key), so over a million sink rows update one group: the min / max under lock (numeric,
 * text, float8) with their lock-free peek (the fast paths) or the lock alone (without), and sums of
 * every kind on the same words
 */
static void
test_global_agg_fanout(void)
{
	HTable		T = make_T(4000, 1);
	HTable		B = make_B(400, 1);
	PipeB		pb(TM_SRC_TABLE, 0);
	int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
	TmPipeline	build = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))}, {});
	PipeB		pp(TM_SRC_TABLE, 1);
	AggSlots	s;
	RefAgg		ref;
	int64_t		sinks = 0;

	s.v = pp.slot(ty(TM_K_INT4), 0, T_V);
	s.big = pp.slot(ty(TM_K_INT8), 0, T_BIG);
	s.num = pp.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
	s.txt = pp.slot(ty(TM_K_TEXT), 0, T_TXT);
	s.f = pp.slot(ty(TM_K_FLOAT8), 0, T_F);
	s.d = pp.slot(ty(TM_K_DATE), 0, T_D);
	int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);

	pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(TM_K_INT4))}, NULL);
	TmPipeline	aggp = pp.agg(0, {}, t_aggs(s));
	TmPlan		pl = plan({build, aggp}, {hashtable({ty(TM_K_INT4)}, {})}, {result(t_agg_types())}, 0);
	Run			r = run_plan(pl, {&B, &T});

	CHECK_OK(r);
	for (int64_t i = 0; i < T.nrows; i++)
		for (int64_t j = 0; j < B.nrows && !isnull(T, T_K, i); j++)
			if (!isnull(B, B_K, j) && ival(B, B_K, j) == ival(T, T_K, i))
			{
				ref.add(T, i);
				sinks++;
			}
	TM_CHECK_MSG(sinks > 500000, "the join should fan out (%lld sink rows)", (long long) sinks);
	check_rows("global aggregate over a join that fans out", out_rows(r.out), {ref.cells()}, true);
	TM_CHECK_INT_EQ(r.stats[1].sink_rows, sinks);
	tm_gpu_table_free(&r.out);
}

/*
 * B -> ht0;  T -> PROBE ht0 inner -> AGG result0 by (b.name, t.g): count(*), sum(b.w), max(t.txt);
 * result0 -> FILTER count > 5 -> EMIT result1
 */
static void
test_join_agg_result(void)
{
	HTable		T = make_T(5000, 200);
	HTable		B = make_B(600, 200);
	PipeB		pb(TM_SRC_TABLE, 0);
	int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
	int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
	int			b_name = pb.slot(ty(TM_K_TEXT), 0, B_NAME);
	TmPipeline	build = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))},
								 {x_slot(b_w, ty(TM_K_INT4)), x_slot(b_name, ty(TM_K_TEXT))});
	PipeB		pp(TM_SRC_TABLE, 0);
	int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
	int			t_g = pp.slot(ty(TM_K_INT4), 0, T_G);
	int			t_txt = pp.slot(ty(TM_K_TEXT), 0, T_TXT);
	int			m_w = pp.slot(ty(TM_K_INT4), 1, 0);
	int			m_name = pp.slot(ty(TM_K_TEXT), 1, 1);
	std::vector<TmType> rt = {ty(TM_K_TEXT), ty(TM_K_INT4), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_TEXT)};
	PipeB		pr(TM_SRC_RESULT, 0);
	int			r_name = pr.slot(rt[0], 0, 0);
	int			r_g = pr.slot(rt[1], 0, 1);
	int			r_cnt = pr.slot(rt[2], 0, 2);
	int			r_sum = pr.slot(rt[3], 0, 3);
	int			r_max = pr.slot(rt[4], 0, 4);
	struct G
	{
		int64_t		cnt = 0, sum = 0;
		bool		hsum = false, hmax = false;
		std::string max;
	};
	std::map<std::string, G> groups;
	std::vector<std::string> exp;

	pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(TM_K_INT4))}, NULL);
	TmPipeline	aggp = pp.agg(0, {x_slot(m_name, rt[0]), x_slot(t_g, rt[1])},
							  {agg(TM_AGG_COUNT_STAR, NULL, rt[2]), agg(TM_AGG_SUM, x_slot(m_w, ty(TM_K_INT4)), rt[3]),
							   agg(TM_AGG_MAX, x_slot(t_txt, rt[4]), rt[4])});
	pr.filter(x_cmp_const(r_cnt, TM_PRED_GT, 5));
	TmPipeline	emit = pr.emit(1, {x_slot(r_name, rt[0]), x_slot(r_g, rt[1]), x_slot(r_cnt, rt[2]),
								   x_slot(r_sum, rt[3]), x_slot(r_max, rt[4])});
	TmPlan		pl = plan({build, aggp, emit}, {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4), ty(TM_K_TEXT)})},
						  {result(rt), result(rt)}, 1);
	Run			r = run_plan(pl, {&B, &T, NULL});

	CHECK_OK(r);
	for (int64_t i = 0; i < T.nrows; i++)
		for (int64_t j = 0; j < B.nrows && !isnull(T, T_K, i); j++)
		{
			G		   *g;

			if (isnull(B, B_K, j) || ival(B, B_K, j) != ival(T, T_K, i))
				continue;
			g = &groups[cell(B.cols[B_NAME], j) + cell(T.cols[T_G], i)];
			g->cnt++;
			if (!isnull(B, B_W, j))
			{
				g->sum += ival(B, B_W, j);
				g->hsum = true;
			}
			if (!isnull(T, T_TXT, i))
			{
				g->max = g->hmax ? std::max(g->max, T.cols[T_TXT].s[i]) : T.cols[T_TXT].s[i];
				g->hmax = true;
			}
		}
	for (auto &g : groups)
		if (g.second.cnt > 5)
			exp.push_back(g.first + cI(g.second.cnt) + (g.second.hsum ? cI(g.second.sum) : cNULL) +
						  (g.second.hmax ? cS(g.second.max) : cNULL));
	check_rows("join, aggregate, result source", out_rows(r.out), exp, false);
	TM_CHECK_INT_EQ(r.stats[1].out_rows, (int64_t) groups.size());
	TM_CHECK_INT_EQ(r.stats[2].source_rows, (int64_t) groups.size());
	tm_gpu_table_free(&r.out);
}

/* more groups than the first group table holds: it is rebuilt */
static void
test_many_groups(void)
{
	HTable		T = make_T(100000, 300);
	PipeB		p(TM_SRC_TABLE, 0);
	int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
	int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
	std::map<int64_t, std::pair<int64_t, int64_t>> groups;
	std::vector<std::string> exp;
	TmPlan		pl = plan({p.agg(0, {x_mod(s_id, 70001, TM_K_INT8)},
								 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								  agg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8))})},
						  {}, {result({ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8)})}, 0);
	Run			r = run_plan(pl, {&T});

	CHECK_OK(r);
	for (int64_t i = 0; i < T.nrows; i++)
	{
		auto	   &g = groups[i % 70001];

		g.first++;
		if (!isnull(T, T_V, i))
			g.second += ival(T, T_V, i);
	}
	for (auto &g : groups)
	{
		/* sum is NULL where every v of the group is NULL: recount */
		bool		any = false;

		for (int64_t i = g.first; i < T.nrows && !any; i += 70001)
			any = !isnull(T, T_V, i);
		exp.push_back(cI(g.first) + cI(g.second.first) + (any ? cI(g.second.second) : cNULL));
	}
	check_rows("70001 groups", out_rows(r.out), exp, false);
	tm_gpu_table_free(&r.out);
}

/*
 * An aggregation over a probe of a table whose keys are unique (has_fanout false: no COUNT pass, the
 * source rows bound the sink rows) with more groups than the first group table holds: rebuilt with room
 * for the source rows; INNER (rows whose key is not in the table drop out) and LEFT (they stay, with a
 * NULL payload)
 */
static void
test_unique_join_agg(void)
{
	HTable		T = make_T(100000, 300);

	for (int left = 0; left < 2; left++)
	{
		PipeB		pb(TM_SRC_TABLE, 0);
		int			b_id = pb.slot(ty(TM_K_INT8), 0, T_ID);
		int			b_v = pb.slot(ty(TM_K_INT4), 0, T_V);

		/* the build side: the rows whose id is not a multiple of 7, keyed by id (unique) */
		pb.filter(x_mod_cmp(b_id, 7, TM_K_INT8, TM_PRED_NE, 0));
		TmPipeline	build = pb.build(0, {x_slot(b_id, ty(TM_K_INT8))}, {x_slot(b_v, ty(TM_K_INT4))});
		PipeB		pp(TM_SRC_TABLE, 0);
		int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
		int			m_v = pp.slot(ty(TM_K_INT4), 1, 0);
		std::map<int64_t, std::pair<int64_t, std::pair<bool, int64_t>>> groups;
		std::vector<std::string> exp;

		pp.probe(left ? TM_JOIN_LEFT : TM_JOIN_INNER, 0, {x_slot(t_id, ty(TM_K_INT8))}, NULL);
		TmPipeline	aggp = pp.agg(0, {x_mod(t_id, 70001, TM_K_INT8)},
								  {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								   agg(TM_AGG_SUM, x_slot(m_v, ty(TM_K_INT4)), ty(TM_K_INT8))});
		TmPlan		pl = plan({build, aggp}, {hashtable({ty(TM_K_INT8)}, {ty(TM_K_INT4)})},
							  {result({ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8)})}, 0);
		Run			r = run_plan(pl, {&T, &T});

		CHECK_OK(r);
		for (int64_t i = 0; i < T.nrows; i++)
		{
			bool		match = ival(T, T_ID, i) % 7 != 0;
			std::pair<int64_t, std::pair<bool, int64_t>> *g;

			if (!match && !left)
				continue;
			g = &groups[ival(T, T_ID, i) % 70001];
			g->first++;
			if (match && !isnull(T, T_V, i))
			{
				g->second.first = true;
				g->second.second += ival(T, T_V, i);
			}
		}
		for (auto &g : groups)
			exp.push_back(cI(g.first) + cI(g.second.first) +
						  (g.second.second.first ? cI(g.second.second.second) : cNULL));
		check_rows(left ? "left join on unique keys, 70001 groups" : "join on unique keys, 70001 groups",
				   out_rows(r.out), exp, false);
		TM_CHECK_INT_EQ(r.stats[1].out_rows, (int64_t) groups.size());
		tm_gpu_table_free(&r.out);
	}
}

/*
 * A group table that overflows its first size (AGG_INITIAL_CAP: 65536 groups) in a pool where room for
 * every source row would take more than half of the free space (sink_agg in cuda/tm_gpu_exec.cu).
 * T (600000 rows: id, v) -> [FILTER id % 4 = 0] -> AGG by id % 100003: count(*), sum(v), sum(id), in a
 * pool of 144 MB: a table for 600000 groups is about 82 MB by agg_table_bytes (89 MB allocated, 104 MB
 * with the input and the result), the free space about 135 MB.
 *   - with the filter (its ops may drop rows): the COUNT pass runs and the table is rebuilt with room for
 *     the 150000 sink rows (100003 groups) only: the run takes less than half the pool memory of the same
 *     plan in the 1 GB pool, where the table is rebuilt for all 600000 rows without a count;
 *   - without (the sink rows are the source rows): no COUNT pass, the table for all 600000 rows, about
 *     the pool memory of the 1 GB pool's run.
 * Both exact against the reference and the same as the 1 GB pool's rows.  (The memory is compared under
 * scheduler NONE only, as in test_chunk_filter.)
 */
static void
test_agg_count_pass(void)
{
	const int64_t n = 600000;
	const int64_t m = 100003;
	const size_t small_size = (size_t) 144 << 20;
	HTable		T;
	TmGpuPool  *small = NULL;
	char		err[256];
	int			rc;

	T.nrows = n;
	T.cols.push_back(col_new(TM_K_INT8));
	T.cols.push_back(col_new(TM_K_INT4));
	for (int64_t i = 0; i < n; i++)
	{
		push_i(T.cols[0], i);
		push_i(T.cols[1], rnd_range(-50, 50), chance(0.10));
	}
	rc = tm_gpu_pool_create(0, small_size, &small, err, sizeof(err));
	TM_CHECK_MSG(rc == TM_GPU_OK, "%s", err);
	if (rc != TM_GPU_OK)
		return;
	tm_gpu_set_max_chunk_rows(0);
	for (int filtered = 0; filtered < 2; filtered++)
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_id = p.slot(ty(TM_K_INT8), 0, 0);
		int			s_v = p.slot(ty(TM_K_INT4), 0, 1);
		std::vector<int64_t> cnt((size_t) m, 0),
					sumv((size_t) m, 0),
					sumid((size_t) m, 0);
		std::vector<uint8_t> hv((size_t) m, 0);
		std::vector<std::string> exp;
		int64_t		nsink = 0;
		const char *what = filtered ? "count pass after an overflow, small pool, filter" :
			"group table for every row after an overflow, small pool, no filter";

		if (filtered)
			p.filter(x_mod_cmp(s_id, 4, TM_K_INT8, TM_PRED_EQ, 0));
		TmPlan		pl = plan({p.agg(0, {x_mod(s_id, m, TM_K_INT8)},
								 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								  agg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8)),
								  agg(TM_AGG_SUM, x_slot(s_id, ty(TM_K_INT8)), ty(TM_K_NUMERIC, 0))})},
							  {}, {result({ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_NUMERIC, 0)})}, 0);
		Run			ref = run_plan(pl, {&T});
		size_t		peak_big = tm_gpu_pool_peak(g_pool);
		Run			r = run_plan(pl, {&T}, NULL, NULL, small);
		size_t		peak_small = tm_gpu_pool_peak(small);

		for (int64_t i = 0; i < n; i++)
		{
			int64_t		k = i % m;

			if (filtered && i % 4 != 0)
				continue;
			nsink++;
			cnt[k]++;
			sumid[k] += i;
			if (!isnull(T, 1, i))
			{
				sumv[k] += ival(T, 1, i);
				hv[k] = 1;
			}
		}
		for (int64_t k = 0; k < m; k++)
			if (cnt[k] > 0)
				exp.push_back(cI(k) + cI(cnt[k]) + (hv[k] ? cI(sumv[k]) : cNULL) + cN(sumid[k]));
		TM_CHECK_MSG(exp.size() > 65536, "%zu groups: the first group table should overflow", exp.size());
		CHECK_OK(ref);
		TM_CHECK_MSG(r.rc == TM_GPU_OK, "small pool: rc %d: %s", r.rc, r.err);
		if (r.rc == TM_GPU_OK)
		{
			check_rows(what, out_rows(r.out), exp, false);
			TM_CHECK_INT_EQ(r.stats[0].source_rows, n);
			TM_CHECK_INT_EQ(r.stats[0].sink_rows, nsink);
			TM_CHECK_INT_EQ(r.stats[0].out_rows, (int64_t) exp.size());
			TM_CHECK(peak_small <= small_size);
			if (filtered)
				TM_CHECK_MSG(2 * peak_small < peak_big || g_lb_mode != TM_GPU_LB_NONE || forced_partitioned(),
							 "%s: pool peak %zu, %zu in the 1 GB pool (no COUNT pass?)", what, peak_small,
							 peak_big);
			else
				TM_CHECK_MSG(10 * peak_small >= 9 * peak_big || g_lb_mode != TM_GPU_LB_NONE || forced_partitioned(),
							 "%s: pool peak %zu, %zu in the 1 GB pool", what, peak_small, peak_big);
		}
		if (ref.rc == TM_GPU_OK)
		{
			check_rows(what, out_rows(ref.out), exp, false);
			TM_CHECK_INT_EQ(ref.stats[0].sink_rows, nsink);
		}
		tm_gpu_table_free(&ref.out);
		tm_gpu_table_free(&r.out);
	}
	TM_CHECK(tm_gpu_pool_destroy(small, err, sizeof(err)) == TM_GPU_OK);
}

/* two EMIT pipelines into one result (UNION ALL) */
static void
test_emit_append(void)
{
	HTable		T1 = make_T(700, 50);
	HTable		T2 = make_T(300, 50);
	PipeB		p1(TM_SRC_TABLE, 0);
	int			a_id = p1.slot(ty(TM_K_INT8), 0, T_ID);
	int			a_txt = p1.slot(ty(TM_K_TEXT), 0, T_TXT);
	PipeB		p2(TM_SRC_TABLE, 0);
	int			b_v = p2.slot(ty(TM_K_INT4), 0, T_V);
	int			b_txt = p2.slot(ty(TM_K_TEXT), 0, T_TXT);
	std::vector<std::string> exp;
	TmExpr	   *widen;

	a_init();
	p_slot(b_v);
	widen = a_build(ty(TM_K_INT8));		/* int4 value as int8 (same .i) */
	p2.filter(x_cmp_const(b_v, TM_PRED_GE, 0));
	TmPlan		pl = plan({p1.emit(0, {x_slot(a_id, ty(TM_K_INT8)), x_slot(a_txt, ty(TM_K_TEXT))}),
						   p2.emit(0, {widen, x_slot(b_txt, ty(TM_K_TEXT))})},
						  {}, {result({ty(TM_K_INT8), ty(TM_K_TEXT)})}, 0);
	Run			r = run_plan(pl, {&T1, &T2});

	CHECK_OK(r);
	for (int64_t i = 0; i < T1.nrows; i++)
		exp.push_back(cell(T1.cols[T_ID], i) + cell(T1.cols[T_TXT], i));
	for (int64_t i = 0; i < T2.nrows; i++)
		if (!isnull(T2, T_V, i) && ival(T2, T_V, i) >= 0)
			exp.push_back(cell(T2.cols[T_V], i) + cell(T2.cols[T_TXT], i));
	check_rows("emit append", out_rows(r.out), exp, true);
	tm_gpu_table_free(&r.out);
}

/* errors: division by zero (first pipeline, and in a residual of a later one), sum overflow, refusals */
/*
 * An inner or semi probe into a hash table without rows: like PostgreSQL's hash join (and the CPU
 * executor) the probing pipeline reads no source row, so its probe key 10 / (t.v - t.v) raises nothing;
 * with a build row, or with an anti probe (every row passes), the division by zero is raised.  The sinks
 * still make their targets: an empty EMIT result, a global count(*) of 0.
 */
static void
test_empty_build(void)
{
	HTable		T = make_T(3000, 100);
	HTable		E = make_B(0, 100);
	HTable		B = make_B(300, 100);

	for (int jt = TM_JOIN_INNER; jt <= TM_JOIN_ANTI; jt++)
		for (int sinkagg = 0; sinkagg < 2; sinkagg++)
			for (int nonempty = 0; nonempty < 2; nonempty++)
			{
				PipeB		pb(TM_SRC_TABLE, 0);
				int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
				TmPipeline	build = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))}, {});
				PipeB		pp(TM_SRC_TABLE, 1);
				int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
				int			t_v = pp.slot(ty(TM_K_INT4), 0, T_V);
				bool		raises = nonempty || jt == TM_JOIN_ANTI;
				char		what[96];

				a_init();
				p_int(10);
				p_slot(t_v);
				p_slot(t_v);
				a_op(TMI_SUB, TM_K_INT4, 0, 0, 0);
				a_op(TMI_DIV, TM_K_INT4, 0, 0, 0);
				pp.probe(jt, 0, {a_build(ty(TM_K_INT4))}, NULL);
				TmPlan		pl = sinkagg
					? plan({build, pp.agg(0, {}, {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8))})},
						   {hashtable({ty(TM_K_INT4)}, {})}, {result({ty(TM_K_INT8)})}, 0)
					: plan({build, pp.emit(0, {x_slot(t_id, ty(TM_K_INT8))})},
						   {hashtable({ty(TM_K_INT4)}, {})}, {result({ty(TM_K_INT8)})}, 0);
				Run			r = run_plan(pl, {nonempty ? &B : &E, &T});

				snprintf(what, sizeof(what), "%s probe, %s build side, %s", jt == TM_JOIN_INNER ? "inner" :
						 jt == TM_JOIN_SEMI ? "semi" : "anti", nonempty ? "a" : "an empty",
						 sinkagg ? "count(*)" : "emit");
				if (raises)
				{
					TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.status == TM_ERR_DIV_BY_ZERO &&
								 r.fail.pipeline == 1, "%s: rc %d status %d pipeline %d: %s", what, r.rc,
								 r.fail.status, r.fail.pipeline, r.err);
					tm_gpu_table_free(&r.out);
					continue;
				}
				TM_CHECK_MSG(r.rc == TM_GPU_OK, "%s: rc %d: %s", what, r.rc, r.err);
				if (r.rc != TM_GPU_OK)
					continue;
				check_rows(what, out_rows(r.out), sinkagg ? std::vector<std::string>{"0|"} : std::vector<std::string>{},
						   true);
				TM_CHECK_MSG(r.stats[1].source_rows == 0, "%s: %lld source rows read", what,
							 (long long) r.stats[1].source_rows);
				tm_gpu_table_free(&r.out);
			}
}

/*
 * The top-N cut of the output result (tm_gpu_pool_set_topn): T -> EMIT (id, v, num); the rows kept must
 * be exactly those whose key is not later in the sort order than the n-th earliest (ties and NULLs as
 * the order places them), in result order; where no row can be dropped, no cut (rows_in -1).
 */
static void
test_topn_cut(void)
{
	HTable		T = make_T(3000, 100);
	struct Case
	{
		int			col;		/* output column: 1 = v (int4), 2 = num (numeric) */
		int64_t		n;
		bool		desc;
		bool		nulls_first;
	}			cases[] = {
		{1, 10, false, false}, {1, 10, true, false}, {1, 10, true, true}, {1, 400, true, true},
		{1, 400, false, true}, {1, 2990, false, false}, {2, 5, true, false}, {2, 5, false, true},
		{2, 1, false, false}, {1, 3000, false, false}
	};

	for (const Case &cs : cases)
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
		int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
		int			s_n = p.slot(ty(TM_K_NUMERIC, 0), 0, T_NUM);
		int			tcol = cs.col == 1 ? T_V : T_NUM;
		TmPlan		pl = plan({p.emit(0, {x_slot(s_id, ty(TM_K_INT8)), x_slot(s_v, ty(TM_K_INT4)),
											  x_slot(s_n, ty(TM_K_NUMERIC, 0))})}, {},
							  {result({ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_NUMERIC, 0)})}, 0);
		std::vector<__int128> nonnull;
		int64_t		nn = 0;
		bool		have_thr = false;
		__int128	thr = 0;
		std::vector<std::string> exp;
		char		what[96];

		snprintf(what, sizeof(what), "top-N cut: column %d, n %lld, %s, nulls %s", cs.col, (long long) cs.n,
				 cs.desc ? "desc" : "asc", cs.nulls_first ? "first" : "last");
		for (int64_t i = 0; i < T.nrows; i++)
		{
			if (isnull(T, tcol, i))
				nn++;
			else
				nonnull.push_back(cs.col == 1 ? (__int128) ival(T, tcol, i) : T.cols[tcol].n[(size_t) i]);
		}
		/* the reference: sort the non-NULL keys in the order and take the k-th */
		std::sort(nonnull.begin(), nonnull.end());
		if (cs.desc)
			std::reverse(nonnull.begin(), nonnull.end());
		if (!(cs.nulls_first && nn >= cs.n))
		{
			int64_t		k = cs.nulls_first ? cs.n - nn : cs.n;

			if ((int64_t) nonnull.size() >= k)
			{
				thr = nonnull[(size_t) (k - 1)];
				have_thr = true;
			}
		}
		for (int64_t i = 0; i < T.nrows; i++)
		{
			bool		keep;

			if (isnull(T, tcol, i))
				keep = cs.nulls_first || (!have_thr && !(cs.nulls_first && nn >= cs.n));
			else
			{
				__int128	v = cs.col == 1 ? (__int128) ival(T, tcol, i) : T.cols[tcol].n[(size_t) i];

				keep = !have_thr ? !(cs.nulls_first && nn >= cs.n) : (cs.desc ? v >= thr : v <= thr);
			}
			if (keep)
				exp.push_back(cell(T.cols[T_ID], i) + cell(T.cols[T_V], i) + cell(T.cols[T_NUM], i));
		}
		tm_gpu_pool_set_topn(g_pool, cs.n, cs.col, cs.desc, cs.nulls_first);
		Run			r = run_plan(pl, {&T});
		int64_t		in = tm_gpu_pool_topn_rows_in(g_pool);

		tm_gpu_pool_set_topn(g_pool, 0, 0, 0, 0);
		CHECK_OK(r);
		check_rows(what, out_rows(r.out), exp, true);
		TM_CHECK_MSG(in == ((int64_t) exp.size() < T.nrows ? T.nrows : -1), "%s: rows before the cut %lld, kept %zu",
					 what, (long long) in, exp.size());
		tm_gpu_table_free(&r.out);
	}
}

static void
test_errors(void)
{
	HTable		T = make_T(3000, 100);
	HTable		B = make_B(300, 100);

	/* EMIT 100 / (v % 5) */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
		int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
		TmExpr	   *e;
		int64_t		row;

		a_init();
		p_int(100);
		p_slot(s_v);
		p_int(5);
		a_op(TMI_MOD, TM_K_INT4, 0, 0, 0);
		a_op(TMI_DIV, TM_K_INT4, 0, 0, 0);
		e = a_build(ty(TM_K_INT4));
		TmPlan		pl = plan({p.emit(0, {x_slot(s_id, ty(TM_K_INT8)), e})}, {},
							  {result({ty(TM_K_INT8), ty(TM_K_INT4)})}, 0);
		Run			r = run_plan(pl, {&T});

		row = r.fail.row;
		TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.status == TM_ERR_DIV_BY_ZERO && r.fail.pipeline == 0,
					 "rc %d status %d pipeline %d: %s", r.rc, r.fail.status, r.fail.pipeline, r.err);
		TM_CHECK_MSG(row >= 0 && row < T.nrows && !isnull(T, T_V, row) && ival(T, T_V, row) % 5 == 0,
					 "error row %lld", (long long) row);
		TM_CHECK(strstr(r.err, "division by zero") != NULL);
		TM_CHECK(r.out.cols == NULL);
	}

	/* a residual b.w < 10 / (t.v - t.v) of a join in pipeline 1 */
	{
		PipeB		pb(TM_SRC_TABLE, 0);
		int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
		int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
		TmPipeline	build = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))}, {x_slot(b_w, ty(TM_K_INT4))});
		PipeB		pp(TM_SRC_TABLE, 0);
		int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
		int			t_v = pp.slot(ty(TM_K_INT4), 0, T_V);
		int			m_w = pp.slot(ty(TM_K_INT4), 1, 0);
		int			j;

		/* residual as a qual: b.w IS NOT NULL AND b.w < 10 / (t.v - t.v) */
		a_init();
		p_slot(m_w);
		a_op(TMI_IS_NOT_NULL, 0, 0, 0, 0);
		j = a_op(TMI_QJUMP_IF_FALSE, 0, -1, 0, 0);
		p_slot(m_w);
		p_int(10);
		p_slot(t_v);
		p_slot(t_v);
		a_op(TMI_SUB, TM_K_INT4, 0, 0, 0);
		a_op(TMI_DIV, TM_K_INT4, 0, 0, 0);
		a_op(TMI_CMP, TM_CMP_INT, TM_PRED_LT, 0, 0);
		a_op(TMI_AND, 0, 0, 0, 0);
		patch(j);
		pp.probe(TM_JOIN_SEMI, 0, {x_slot(t_k, ty(TM_K_INT4))}, a_build(ty(TM_K_BOOL)));
		TmPlan		pl = plan({build, pp.emit(0, {x_slot(t_k, ty(TM_K_INT4))})},
							  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4)})}, {result({ty(TM_K_INT4)})}, 0);
		Run			r = run_plan(pl, {&B, &T});

		TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.status == TM_ERR_DIV_BY_ZERO && r.fail.pipeline == 1,
					 "rc %d status %d pipeline %d: %s", r.rc, r.fail.status, r.fail.pipeline, r.err);
	}

	/* sum of numerics beyond 128 bits: fallback to the CPU */
	{
		HTable		H;
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_n = p.slot(ty(TM_K_NUMERIC, 0), 0, 0);
		tm_int128	big = (tm_int128) INT64_C(900000000000000000) * (tm_int128) INT64_C(100000000000000000);

		H.nrows = 4000;
		H.cols.push_back(col_new(TM_K_NUMERIC));
		for (int64_t i = 0; i < H.nrows; i++)
			push_n(H.cols[0], big);		/* 9e34 each: 4000 of them pass 2^127 (1.7e38) */
		TmPlan		pl = plan({p.agg(0, {}, {agg(TM_AGG_SUM, x_slot(s_n, ty(TM_K_NUMERIC, 0)), ty(TM_K_NUMERIC, 0))})},
							  {}, {result({ty(TM_K_NUMERIC, 0)})}, 0);
		Run			r = run_plan(pl, {&H});

		TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.status == TM_ERR_FALLBACK,
					 "rc %d status %d: %s", r.rc, r.fail.status, r.err);

		/* 1000 of them fit: exact */
		H.nrows = 1000;
		r = run_plan(pl, {&H});
		CHECK_OK(r);
		check_rows("numeric sum near 2^127", out_rows(r.out), {cN(big * 1000)}, true);
		tm_gpu_table_free(&r.out);
	}

	/* count(DISTINCT) is no longer refused (test_distinct_* check its results) */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
		TmAgg		a = agg(TM_AGG_COUNT, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8));
		std::set<int64_t> vs;

		a.distinct = true;
		TmPlan		pl = plan({p.agg(0, {}, {a})}, {}, {result({ty(TM_K_INT8)})}, 0);
		Run			r = run_plan(pl, {&T});

		CHECK_OK(r);
		for (int64_t i = 0; i < T.nrows; i++)
			if (!isnull(T, T_V, i))
				vs.insert(ival(T, T_V, i));
		check_rows("count(DISTINCT v)", out_rows(r.out), {cI((int64_t) vs.size())}, true);
		tm_gpu_table_free(&r.out);
	}

	/* a pool too small: an error, not a crash; the big pool still works afterwards */
	{
		TmGpuPool  *small = NULL;
		char		err[256];
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
		TmPlan		pl = plan({p.emit(0, {x_slot(s_id, ty(TM_K_INT8))})}, {}, {result({ty(TM_K_INT8)})}, 0);
		int			rc = tm_gpu_pool_create(0, 8192, &small, err, sizeof(err));

		TM_CHECK_MSG(rc == TM_GPU_OK, "%s", err);
		if (rc == TM_GPU_OK)
		{
			Run			r = run_plan(pl, {&T}, NULL, NULL, small);

			TM_CHECK_MSG(r.rc == TM_GPU_ERR_NOMEM, "rc %d: %s", r.rc, r.err);
			TM_CHECK(tm_gpu_pool_destroy(small, err, sizeof(err)) == TM_GPU_OK);
		}
		Run			r = run_plan(pl, {&T});

		CHECK_OK(r);
		TM_CHECK_INT_EQ(r.out.nrows, T.nrows);
		tm_gpu_table_free(&r.out);
	}
}

/* ------------------------------------------------------------------------------------------------
 * DISTINCT aggregates
 * ------------------------------------------------------------------------------------------------
 */

/* D: group key, then arguments of DISTINCT aggregates with many duplicates */
enum { D_G, D_I, D_B, D_N, D_T, D_P, D_F, D_NCOLS };

static HTable
make_D(int64_t n)
{
	HTable		t;
	Zipf		zg(25, 1.2);
	static const char *const bps[] = {"x", "x  ", "y ", "y", "zz", "", "  "};
	const double fl[] = {-0.0, 0.0, NAN, copysign(NAN, -1.0), 1.5, -2.25, 3.0, 100.0, -0.5, 0.25};
	tm_int128	e25 = (tm_int128) INT64_C(10000000000000) * (tm_int128) INT64_C(1000000000000);

	t.nrows = n;
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_INT4));
	t.cols.push_back(col_new(TM_K_INT8));
	t.cols.push_back(col_new(TM_K_NUMERIC));
	t.cols.push_back(col_new(TM_K_TEXT));
	t.cols.push_back(col_new(TM_K_BPCHAR));
	t.cols.push_back(col_new(TM_K_FLOAT8));
	for (int64_t r = 0; r < n; r++)
	{
		push_i(t.cols[D_G], zg.draw(), chance(0.15));
		push_i(t.cols[D_I], rnd_range(-20, 40), chance(0.10));
		/* distinct sums beyond int64 (sum(int8) is numeric) */
		push_i(t.cols[D_B], rnd_range(-20, 60) * (INT64_C(1) << 55), chance(0.10));
		push_n(t.cols[D_N], (tm_int128) rnd_range(-10, 30) * (chance(0.3) ? e25 : (tm_int128) 125), chance(0.10));
		push_s(t.cols[D_T], words[rnd() % NWORDS], chance(0.10));
		push_s(t.cols[D_P], bps[rnd() % 7], chance(0.10));
		push_f(t.cols[D_F], fl[rnd() % 10], chance(0.10));
	}
	return t;
}

static TmAgg
dagg(int kind, TmExpr *arg, TmType restype, TmExpr *filter = NULL)
{
	TmAgg		a = agg(kind, arg, restype, filter);

	a.distinct = true;
	return a;
}

struct DSlots
{
	int			i, b, n, t, p, f;
};

static PipeB
d_pipe(DSlots *s)
{
	PipeB		p(TM_SRC_TABLE, 0);

	s->i = p.slot(ty(TM_K_INT4), 0, D_I);
	s->b = p.slot(ty(TM_K_INT8), 0, D_B);
	s->n = p.slot(ty(TM_K_NUMERIC, 2), 0, D_N);
	s->t = p.slot(ty(TM_K_TEXT), 0, D_T);
	s->p = p.slot(ty(TM_K_BPCHAR), 0, D_P);
	s->f = p.slot(ty(TM_K_FLOAT8), 0, D_F);
	return p;
}

/* the aggregates of test_distinct_agg (result types: d_agg_types) */
static std::vector<TmAgg>
d_aggs(const DSlots &s)
{
	return {
		agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
		dagg(TM_AGG_COUNT, x_slot(s.i, ty(TM_K_INT4)), ty(TM_K_INT8)),
		dagg(TM_AGG_SUM, x_slot(s.i, ty(TM_K_INT4)), ty(TM_K_INT8)),
		dagg(TM_AGG_SUM, x_slot(s.b, ty(TM_K_INT8)), ty(TM_K_NUMERIC, 0)),
		dagg(TM_AGG_SUM, x_slot(s.n, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 2)),
		dagg(TM_AGG_COUNT, x_slot(s.n, ty(TM_K_NUMERIC, 2)), ty(TM_K_INT8)),
		dagg(TM_AGG_COUNT, x_slot(s.t, ty(TM_K_TEXT)), ty(TM_K_INT8)),
		dagg(TM_AGG_COUNT, x_slot(s.p, ty(TM_K_BPCHAR)), ty(TM_K_INT8)),
		dagg(TM_AGG_COUNT, x_slot(s.f, ty(TM_K_FLOAT8)), ty(TM_K_INT8)),
		dagg(TM_AGG_SUM, x_slot(s.f, ty(TM_K_FLOAT8)), ty(TM_K_FLOAT8)),
		dagg(TM_AGG_MIN, x_slot(s.t, ty(TM_K_TEXT)), ty(TM_K_TEXT)),
		dagg(TM_AGG_MAX, x_slot(s.f, ty(TM_K_FLOAT8)), ty(TM_K_FLOAT8)),
		dagg(TM_AGG_COUNT, x_slot(s.t, ty(TM_K_TEXT)), ty(TM_K_INT8), x_cmp_const(s.i, TM_PRED_GT, 0)),
		dagg(TM_AGG_SUM, x_slot(s.n, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 2), x_cmp_const(s.i, TM_PRED_LT, 0)),
		agg(TM_AGG_COUNT, x_slot(s.i, ty(TM_K_INT4)), ty(TM_K_INT8)),
		dagg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8), x_cmp_const(s.i, TM_PRED_GT, 0)),
		dagg(TM_AGG_MAX, x_slot(s.p, ty(TM_K_BPCHAR)), ty(TM_K_BPCHAR)),
		dagg(TM_AGG_SUM, x_slot(s.i, ty(TM_K_INT4)), ty(TM_K_INT8), x_cmp_const(s.i, TM_PRED_GT, 0)),
	};
}

static std::vector<TmType>
d_agg_types(void)
{
	return {ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_NUMERIC, 0), ty(TM_K_NUMERIC, 2), ty(TM_K_INT8),
		ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_FLOAT8), ty(TM_K_TEXT), ty(TM_K_FLOAT8), ty(TM_K_INT8),
		ty(TM_K_NUMERIC, 2), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_BPCHAR), ty(TM_K_INT8)};
}

static std::string
rstrip_blanks(const std::string &s)
{
	size_t		len = s.size();

	while (len > 0 && s[len - 1] == ' ')
		len--;
	return s.substr(0, len);
}

/*
 * Reference of d_aggs() for one group: sets of the distinct values, with PostgreSQL's equality (float
 * -0 = 0 and all NaNs one value, bpchar without trailing blanks)
 */
struct RefDistinct
{
	int64_t		cstar = 0, ci = 0, cstar_pos = 0;
	std::set<int64_t> si, si_pos, sb;
	std::set<__int128> sn, sn_neg;
	std::set<std::string> st, st_pos, sp;
	std::set<double> sf;		/* NaN apart, -0 as 0 */
	bool		fnan = false;

	void add(const HTable &D, int64_t r)
	{
		bool		inull = isnull(D, D_I, r);
		int64_t		i = ival(D, D_I, r);
		bool		pos = !inull && i > 0;
		bool		neg = !inull && i < 0;

		cstar++;
		if (pos)
			cstar_pos++;
		if (!inull)
		{
			ci++;
			si.insert(i);
			if (pos)
				si_pos.insert(i);
		}
		if (!isnull(D, D_B, r))
			sb.insert(ival(D, D_B, r));
		if (!isnull(D, D_N, r))
		{
			sn.insert(D.cols[D_N].n[r]);
			if (neg)
				sn_neg.insert(D.cols[D_N].n[r]);
		}
		if (!isnull(D, D_T, r))
		{
			st.insert(D.cols[D_T].s[r]);
			if (pos)
				st_pos.insert(D.cols[D_T].s[r]);
		}
		if (!isnull(D, D_P, r))
			sp.insert(rstrip_blanks(D.cols[D_P].s[r]));
		if (!isnull(D, D_F, r))
		{
			double		f = D.cols[D_F].f[r];

			if (std::isnan(f))
				fnan = true;
			else
				sf.insert(f == 0 ? 0.0 : f);
		}
	}
	static std::string isum(const std::set<int64_t> &s)
	{
		int64_t		sum = 0;

		for (int64_t v : s)
			sum += v;
		return s.empty() ? cNULL : cI(sum);
	}
	static std::string nsum(const std::set<__int128> &s)
	{
		__int128	sum = 0;

		for (__int128 v : s)
			sum += v;
		return s.empty() ? cNULL : cN(sum);
	}
	static std::string bsum(const std::set<int64_t> &s)
	{
		__int128	sum = 0;

		for (int64_t v : s)
			sum += v;
		return s.empty() ? cNULL : cN(sum);
	}
	std::string cells() const
	{
		double		fsum = 0;
		bool		fany = fnan || !sf.empty();

		for (double v : sf)
			fsum += v;			/* multiples of 1/4, small: exact in any order */
		if (fnan)
			fsum = NAN;
		return cI(cstar) + cI((int64_t) si.size()) + isum(si) + bsum(sb) + nsum(sn) + cI((int64_t) sn.size()) +
			cI((int64_t) st.size()) + cI((int64_t) sp.size()) + cI((int64_t) sf.size() + (fnan ? 1 : 0)) +
			(fany ? cF(fsum) : cNULL) + (st.empty() ? cNULL : cS(*st.begin())) +
			(fnan ? cF(NAN) : sf.empty() ? cNULL : cF(*sf.rbegin())) + cI((int64_t) st_pos.size()) +
			nsum(sn_neg) + cI(ci) + cI(cstar_pos) + (sp.empty() ? cNULL : cS(*sp.rbegin())) + isum(si_pos);
	}
};

/*
 * Rows with float cells made comparable: a zero may come out as -0 (which of -0 / 0 is aggregated first
 * depends on the order), a NaN with either sign.  No other cell of these tests renders as "-0" or "-nan".
 */
static std::vector<std::string>
norm_zero_nan(std::vector<std::string> rows)
{
	for (auto &row : rows)
	{
		std::string out;

		for (size_t i = 0; i < row.size(); i++)
		{
			bool		cellstart = (i == 0 || row[i - 1] == '|');

			if (cellstart && row.compare(i, 3, "-0|") == 0)
				continue;		/* drop the sign */
			if (cellstart && row.compare(i, 5, "-nan|") == 0)
				continue;
			out += row[i];
		}
		row = out;
	}
	return rows;
}

/* D -> AGG by g (NULL keys group together) and without keys: the DISTINCT aggregates of d_aggs */
static void
test_distinct_agg(void)
{
	HTable		D = make_D(20000);
	HTable		E = make_D(0);

	/* grouped */
	{
		DSlots		s;
		PipeB		p = d_pipe(&s);
		int			s_g = p.slot(ty(TM_K_INT4), 0, D_G);
		std::vector<TmType> rt = {ty(TM_K_INT4)};
		std::vector<TmType> at = d_agg_types();
		std::map<std::string, RefDistinct> groups;
		std::vector<std::string> exp;

		rt.insert(rt.end(), at.begin(), at.end());
		TmPlan		pl = plan({p.agg(0, {x_slot(s_g, ty(TM_K_INT4))}, d_aggs(s))}, {}, {result(rt)}, 0);
		Run			r = run_plan(pl, {&D});

		CHECK_OK(r);
		for (int64_t i = 0; i < D.nrows; i++)
			groups[cell(D.cols[D_G], i)].add(D, i);
		for (auto &g : groups)
			exp.push_back(g.first + g.second.cells());
		check_rows("DISTINCT aggregates by g", norm_zero_nan(out_rows(r.out)), norm_zero_nan(exp), false);
		TM_CHECK_INT_EQ(r.stats[0].sink_rows, D.nrows);
		TM_CHECK_INT_EQ(r.stats[0].out_rows, (int64_t) groups.size());
		tm_gpu_table_free(&r.out);
	}

	/* no group keys: one group, also without rows */
	{
		DSlots		s;
		PipeB		p = d_pipe(&s);
		TmPlan		pl = plan({p.agg(0, {}, d_aggs(s))}, {}, {result(d_agg_types())}, 0);
		RefDistinct all,
					none;
		Run			r = run_plan(pl, {&D});

		CHECK_OK(r);
		for (int64_t i = 0; i < D.nrows; i++)
			all.add(D, i);
		check_rows("DISTINCT aggregates, one group", norm_zero_nan(out_rows(r.out)), norm_zero_nan({all.cells()}),
				   true);
		tm_gpu_table_free(&r.out);

		r = run_plan(pl, {&E});
		CHECK_OK(r);
		check_rows("DISTINCT aggregates, no rows", out_rows(r.out), {none.cells()}, true);
		tm_gpu_table_free(&r.out);
	}

	/* grouped by a text key with NULLs (bpchar argument, numeric argument) */
	{
		DSlots		s;
		PipeB		p = d_pipe(&s);
		std::map<std::string, std::pair<std::set<std::string>, std::set<__int128>>> groups;
		std::vector<std::string> exp;
		TmPlan		pl = plan({p.agg(0, {x_slot(s.t, ty(TM_K_TEXT))},
								 {dagg(TM_AGG_COUNT, x_slot(s.p, ty(TM_K_BPCHAR)), ty(TM_K_INT8)),
								  dagg(TM_AGG_SUM, x_slot(s.n, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 3))})},
							  {}, {result({ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_NUMERIC, 3)})}, 0);
		Run			r = run_plan(pl, {&D});

		CHECK_OK(r);
		for (int64_t i = 0; i < D.nrows; i++)
		{
			auto	   &g = groups[cell(D.cols[D_T], i)];

			if (!isnull(D, D_P, i))
				g.first.insert(rstrip_blanks(D.cols[D_P].s[i]));
			if (!isnull(D, D_N, i))
				g.second.insert(D.cols[D_N].n[i]);
		}
		for (auto &g : groups)
		{
			__int128	sum = 0;

			for (__int128 v : g.second.second)
				sum += v * 10;	/* scale 2 -> 3 */
			exp.push_back(g.first + cI((int64_t) g.second.first.size()) +
						  (g.second.second.empty() ? cNULL : cN(sum)));
		}
		check_rows("DISTINCT aggregates by text", out_rows(r.out), exp, false);
		tm_gpu_table_free(&r.out);
	}
}

/* plan: B -> ht0 (k -> w, name);  T -> PROBE ht0 inner -> AGG by t.g: count(DISTINCT b.name),
 * sum(DISTINCT b.w), count(DISTINCT t.txt), count(*) */
static TmPlan
join_distinct_plan(void)
{
	PipeB		pb(TM_SRC_TABLE, 0);
	int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
	int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
	int			b_name = pb.slot(ty(TM_K_TEXT), 0, B_NAME);
	TmPipeline	build = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))},
								 {x_slot(b_w, ty(TM_K_INT4)), x_slot(b_name, ty(TM_K_TEXT))});
	PipeB		pp(TM_SRC_TABLE, 0);
	int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
	int			t_g = pp.slot(ty(TM_K_INT4), 0, T_G);
	int			t_txt = pp.slot(ty(TM_K_TEXT), 0, T_TXT);
	int			m_w = pp.slot(ty(TM_K_INT4), 1, 0);
	int			m_name = pp.slot(ty(TM_K_TEXT), 1, 1);
	std::vector<TmType> rt = {ty(TM_K_INT4), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8)};

	pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(TM_K_INT4))}, NULL);
	return plan({build, pp.agg(0, {x_slot(t_g, rt[0])},
							   {dagg(TM_AGG_COUNT, x_slot(m_name, ty(TM_K_TEXT)), rt[1]),
								dagg(TM_AGG_SUM, x_slot(m_w, ty(TM_K_INT4)), rt[2]),
								dagg(TM_AGG_COUNT, x_slot(t_txt, ty(TM_K_TEXT)), rt[3]),
								agg(TM_AGG_COUNT_STAR, NULL, rt[4])})},
				{hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4), ty(TM_K_TEXT)})}, {result(rt)}, 0);
}

/* DISTINCT aggregates after a join (the bound of the sets is counted: probes multiply rows) */
static void
test_distinct_join(void)
{
	HTable		T = make_T(5000, 200);
	HTable		B = make_B(600, 200);
	TmPlan		pl = join_distinct_plan();
	struct G
	{
		std::set<std::string> names, txts;
		std::set<int64_t> ws;
		int64_t		cnt = 0;
	};
	std::map<std::string, G> groups;
	std::vector<std::string> exp;
	Run			r = run_plan(pl, {&B, &T});

	CHECK_OK(r);
	for (int64_t i = 0; i < T.nrows; i++)
		for (int64_t j = 0; j < B.nrows && !isnull(T, T_K, i); j++)
		{
			G		   *g;

			if (isnull(B, B_K, j) || ival(B, B_K, j) != ival(T, T_K, i))
				continue;
			g = &groups[cell(T.cols[T_G], i)];
			g->cnt++;
			if (!isnull(B, B_NAME, j))
				g->names.insert(B.cols[B_NAME].s[j]);
			if (!isnull(B, B_W, j))
				g->ws.insert(ival(B, B_W, j));
			if (!isnull(T, T_TXT, i))
				g->txts.insert(T.cols[T_TXT].s[i]);
		}
	for (auto &g : groups)
		exp.push_back(g.first + cI((int64_t) g.second.names.size()) + RefDistinct::isum(g.second.ws) +
					  cI((int64_t) g.second.txts.size()) + cI(g.second.cnt));
	check_rows("DISTINCT aggregates after a join", out_rows(r.out), exp, false);
	tm_gpu_table_free(&r.out);
}

/*
 * More distinct pairs than a set first holds (300000 values, each twice): the pass is redone with a
 * larger set; and heavy contention: every row inserts one of four values
 */
static void
test_distinct_many(void)
{
	HTable		H;
	int64_t		n = 600000;
	int64_t		nv = n / 2;

	H.nrows = n;
	H.cols.push_back(col_new(TM_K_INT8));
	for (int64_t i = 0; i < n; i++)
		push_i(H.cols[0], i / 2);

	/* by v % 3 */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_v = p.slot(ty(TM_K_INT8), 0, 0);
		TmPlan		pl = plan({p.agg(0, {x_mod(s_v, 3, TM_K_INT8)},
								 {dagg(TM_AGG_COUNT, x_slot(s_v, ty(TM_K_INT8)), ty(TM_K_INT8)),
								  dagg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT8)), ty(TM_K_NUMERIC, 0)),
								  dagg(TM_AGG_COUNT, x_mod(s_v, 4, TM_K_INT8), ty(TM_K_INT8)),
								  agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8))})},
							  {}, {result({ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_NUMERIC, 0), ty(TM_K_INT8),
										   ty(TM_K_INT8)})}, 0);
		std::vector<std::string> exp;
		Run			r = run_plan(pl, {&H});

		CHECK_OK(r);
		for (int64_t g = 0; g < 3; g++)
		{
			int64_t		cnt = 0;
			__int128	sum = 0;

			for (int64_t v = g; v < nv; v += 3)
			{
				cnt++;
				sum += v;
			}
			exp.push_back(cI(g) + cI(cnt) + cN(sum) + cI(4) + cI(2 * cnt));
		}
		check_rows("300000 distinct values by v % 3", out_rows(r.out), exp, false);
		tm_gpu_table_free(&r.out);
	}

	/* no group keys */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_v = p.slot(ty(TM_K_INT8), 0, 0);
		TmPlan		pl = plan({p.agg(0, {},
								 {dagg(TM_AGG_COUNT, x_slot(s_v, ty(TM_K_INT8)), ty(TM_K_INT8)),
								  dagg(TM_AGG_SUM, x_mod(s_v, 4, TM_K_INT8), ty(TM_K_NUMERIC, 0)),
								  dagg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT8)), ty(TM_K_NUMERIC, 0))})},
							  {}, {result({ty(TM_K_INT8), ty(TM_K_NUMERIC, 0), ty(TM_K_NUMERIC, 0)})}, 0);
		Run			r = run_plan(pl, {&H});

		CHECK_OK(r);
		check_rows("300000 distinct values", out_rows(r.out),
				   {cI(nv) + cN(6) + cN((tm_int128) nv * (nv - 1) / 2)}, true);
		tm_gpu_table_free(&r.out);
	}
}

/* ------------------------------------------------------------------------------------------------
 * Device-resident inputs
 * ------------------------------------------------------------------------------------------------
 */

/* T -> EMIT every column of T */
static TmPlan
emit_all_plan(void)
{
	PipeB		p(TM_SRC_TABLE, 0);
	std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_INT4), ty(TM_K_INT8), ty(TM_K_NUMERIC, 2),
		ty(TM_K_TEXT), ty(TM_K_INT4), ty(TM_K_FLOAT8), ty(TM_K_DATE), ty(TM_K_BPCHAR)};
	std::vector<TmExpr *> vals;

	for (int c = 0; c < T_NCOLS; c++)
		vals.push_back(x_slot(p.slot(rt[c], 0, c), rt[c]));
	return plan({p.emit(0, vals)}, {}, {result(rt)}, 0);
}

/* on_device = 1 gives the results of host inputs; pointers that cannot be device memory are refused */
static void
test_device_inputs(void)
{
	HTable		T = make_T(8000, 200);
	HTable		B = make_B(900, 200);
	cudaStream_t stream = (cudaStream_t) tm_gpu_pool_stream(g_pool);

	TM_CHECK_INT_EQ(tm_gpu_pool_device(g_pool), 0);
	TM_CHECK(stream != NULL);
	TM_CHECK_INT_EQ(tm_gpu_pool_device(NULL), -1);
	TM_CHECK(tm_gpu_pool_stream(NULL) == NULL);

	/* every column layout, in source order */
	{
		TmPlan		pl = emit_all_plan();
		std::vector<std::string> exp;
		Run			rh = run_plan(pl, {&T});
		size_t		peak_host = tm_gpu_pool_peak(g_pool);
		Run			rd = run_plan(pl, {&T}, NULL, NULL, NULL, true);
		size_t		peak_dev = tm_gpu_pool_peak(g_pool);

		CHECK_OK(rh);
		CHECK_OK(rd);
		for (int64_t i = 0; i < T.nrows; i++)
		{
			std::string row;

			for (int c = 0; c < T_NCOLS; c++)
				row += cell(T.cols[c], i);
			exp.push_back(row);
		}
		check_rows("emit, host inputs", out_rows(rh.out), exp, true);
		check_rows("emit, device inputs", out_rows(rd.out), exp, true);
		/* nothing uploaded: the pool holds less */
		TM_CHECK_MSG(peak_dev < peak_host, "pool peak %zu with device inputs, %zu with host inputs", peak_dev,
					 peak_host);
		tm_gpu_table_free(&rh.out);
		tm_gpu_table_free(&rd.out);
	}

	/* join + DISTINCT aggregation: both pipelines read device inputs */
	{
		TmPlan		pl = join_distinct_plan();
		Run			rh = run_plan(pl, {&B, &T});
		Run			rd = run_plan(pl, {&B, &T}, NULL, NULL, NULL, true);

		CHECK_OK(rh);
		CHECK_OK(rd);
		TM_CHECK(rh.out.nrows > 0);
		check_rows("join + aggregate, device vs host inputs", out_rows(rd.out), out_rows(rh.out), false);
		TM_CHECK_INT_EQ(rd.stats[1].sink_rows, rh.stats[1].sink_rows);
		tm_gpu_table_free(&rh.out);
		tm_gpu_table_free(&rd.out);
	}

	/* refused: host memory passed as device memory, misaligned data, a bad flag; the pool still works */
	{
		TmPlan		pl = emit_all_plan();
		GpuIn		g(T);
		DevIn		d(g, stream);
		TmGpuTable	t;
		TmGpuTable	out;
		TmGpuFailure fl;
		char		err[512];
		int			rc;

		TM_CHECK(d.ok);
		memset(&out, 0, sizeof(out));

		t = d.t;
		t.cols = mkcopy(d.cols);
		t.cols[T_TXT].offsets = g.cols[T_TXT].offsets;	/* host */
		rc = tm_gpu_execute(g_pool, &pl, &t, 1, NULL, NULL, &out, NULL, &fl, err, sizeof(err));
		TM_CHECK_MSG(rc == TM_GPU_ERR_BAD_PLAN && strstr(err, "host memory") != NULL, "rc %d: %s", rc, err);
		TM_CHECK(out.cols == NULL);

		t.cols = mkcopy(d.cols);
		t.cols[T_BIG].data = (char *) d.cols[T_BIG].data + 4;	/* int8 at a 4-byte boundary */
		rc = tm_gpu_execute(g_pool, &pl, &t, 1, NULL, NULL, &out, NULL, &fl, err, sizeof(err));
		TM_CHECK_MSG(rc == TM_GPU_ERR_BAD_PLAN && strstr(err, "aligned") != NULL, "rc %d: %s", rc, err);

		t.cols = mkcopy(d.cols);
		t.on_device = 2;
		rc = tm_gpu_execute(g_pool, &pl, &t, 1, NULL, NULL, &out, NULL, &fl, err, sizeof(err));
		TM_CHECK_MSG(rc == TM_GPU_ERR_BAD_PLAN, "rc %d: %s", rc, err);

		t.on_device = 1;
		rc = tm_gpu_execute(g_pool, &pl, &t, 1, NULL, NULL, &out, NULL, &fl, err, sizeof(err));
		TM_CHECK_MSG(rc == TM_GPU_OK, "rc %d: %s", rc, err);
		TM_CHECK_INT_EQ(out.nrows, T.nrows);
		tm_gpu_table_free(&out);
	}
}

/* ------------------------------------------------------------------------------------------------
 * Chunks: host inputs run over row chunks (forced with tm_gpu_set_max_chunk_rows, or by a small pool)
 * ------------------------------------------------------------------------------------------------
 */

/* text constant s (in the expression's pool) */
static void
p_text(const char *s)
{
	TmValue		v;
	int			len = (int) strlen(s);

	memset(&v, 0, sizeof(v));
	memcpy(A.pool + A.plen, s, (size_t) len);
	v.s.p = (const char *) (intptr_t) A.plen;
	v.s.len = len;
	A.plen += len;
	A.consts[A.nc] = v;
	a_op(TMI_PUSH_CONST, TMF_TEXT, A.nc++, 0, 0);
}

/* substring(slot s from start for len), bytes */
static TmExpr *
x_substr(int s, int64_t start, int64_t len)
{
	a_init();
	p_slot(s);
	p_int(start);
	p_int(len);
	a_op(TMI_SUBSTR, TMF_HASLEN, 0, 0, 0);
	return a_build(ty(TM_K_TEXT));
}

/* coalesce(slot s, 'none'): values that point into the input and into the expression's pool */
static TmExpr *
x_coalesce_text(int s)
{
	int			j;

	a_init();
	p_slot(s);
	j = a_op(TMI_JUMP_IF_NOT_NULL, 0, -1, 0, 0);
	a_op(TMI_POP, 0, 0, 0, 0);
	p_text("none");
	patch(j);
	return a_build(ty(TM_K_TEXT));
}

/* k / (slot s - z) (int4): division by zero where s = z */
static TmExpr *
x_div_zero_at(int s, int64_t z, int64_t k)
{
	a_init();
	p_int(k);
	p_slot(s);
	p_int(z);
	a_op(TMI_SUB, TM_K_INT4, 0, 0, 0);
	a_op(TMI_DIV, TM_K_INT4, 0, 0, 0);
	return a_build(ty(TM_K_INT4));
}

static std::vector<int64_t> g_chunk_sizes = {1, 7, 1000};

/*
 * Run pl unchunked, then over chunks of at most n rows for each n of sizes: the same rows (in the same
 * order if ordered, else as multisets; float zeros / NaNs without sign) and the same stats.  Returns the
 * unchunked rows.
 */
/* the row counts of every pipeline of r are those of ref */
static void
check_same_stats(const char *what, const Run &r, const Run &ref, int npipelines)
{
	for (int p = 0; p < npipelines; p++)
		TM_CHECK_MSG(r.stats[p].source_rows == ref.stats[p].source_rows &&
					 r.stats[p].sink_rows == ref.stats[p].sink_rows &&
					 r.stats[p].out_rows == ref.stats[p].out_rows,
					 "%s: pipeline %d stats %lld / %lld / %lld, reference %lld / %lld / %lld", what, p,
					 (long long) r.stats[p].source_rows, (long long) r.stats[p].sink_rows,
					 (long long) r.stats[p].out_rows, (long long) ref.stats[p].source_rows,
					 (long long) ref.stats[p].sink_rows, (long long) ref.stats[p].out_rows);
}

/*
 * the rows are the expected ones as multisets, and their first cells come in the expected order: a join's
 * EMIT keeps the probe side's order, while the build rows of one key come in the order of the build, which
 * is the source's only where a COUNT pass placed them (not in an unchunked build without one)
 */
static void
check_rows_probe_order(const char *what, const std::vector<std::string> &got, const std::vector<std::string> &exp)
{
	size_t		i;

	check_rows(what, got, exp, false);
	if (g_lb_mode != TM_GPU_LB_NONE || forced_partitioned())
		return;
	for (i = 0; i < got.size() && i < exp.size(); i++)
		if (got[i].substr(0, got[i].find('|')) != exp[i].substr(0, exp[i].find('|')))
			break;
	TM_CHECK_MSG(got.size() == exp.size() && i == got.size(),
				 "%s: probe side out of order at row %zu: got \"%s\", expected \"%s\"", what, i,
				 i < got.size() ? got[i].c_str() : "(none)", i < exp.size() ? exp[i].c_str() : "(none)");
}

/* ordered: -1 = only the first cells in order (check_rows_probe_order) */
static std::vector<std::string>
check_chunked(const char *what, const TmPlan &pl, std::vector<const HTable *> inputs, int ordered,
			  const std::vector<int64_t> &sizes = g_chunk_sizes, const TmValue *params = NULL,
			  const bool *paramnulls = NULL)
{
	std::vector<std::string> exp;

	tm_gpu_set_max_chunk_rows(0);
	Run			ref = run_plan(pl, inputs, params, paramnulls);

	TM_CHECK_MSG(ref.rc == TM_GPU_OK, "%s, unchunked: rc %d: %s", what, ref.rc, ref.err);
	if (ref.rc != TM_GPU_OK)
		return exp;
	exp = norm_zero_nan(out_rows(ref.out));
	for (int64_t n : sizes)
	{
		char		w[200];

		snprintf(w, sizeof(w), "%s, chunks of %lld rows", what, (long long) n);
		tm_gpu_set_max_chunk_rows(n);
		Run			r = run_plan(pl, inputs, params, paramnulls);

		tm_gpu_set_max_chunk_rows(0);
		TM_CHECK_MSG(r.rc == TM_GPU_OK, "%s: rc %d: %s", w, r.rc, r.err);
		if (r.rc != TM_GPU_OK)
			continue;
		if (ordered < 0)
			check_rows_probe_order(w, norm_zero_nan(out_rows(r.out)), exp);
		else
			check_rows(w, norm_zero_nan(out_rows(r.out)), exp, ordered != 0);
		check_same_stats(w, r, ref, pl.npipelines);
		tm_gpu_table_free(&r.out);
	}
	tm_gpu_table_free(&ref.out);
	return exp;
}

/* L: long text values (group keys of up to 200 bytes, values of up to 300 bytes, empty ones) */
enum { L_ID, L_KEY, L_TXT, L_V, L_NCOLS };

static HTable
make_L(int64_t n)
{
	HTable		t;
	std::vector<std::string> keys;
	Zipf		zk(12, 0.8);

	for (int i = 0; i < 12; i++)
		keys.push_back("key " + std::to_string(i) + " " + std::string((size_t) ((i * 37) % 200), (char) ('a' + i)));
	t.nrows = n;
	t.cols.push_back(col_new(TM_K_INT8));
	t.cols.push_back(col_new(TM_K_TEXT));
	t.cols.push_back(col_new(TM_K_TEXT));
	t.cols.push_back(col_new(TM_K_INT4));
	for (int64_t r = 0; r < n; r++)
	{
		std::string s;
		int64_t		len = chance(0.1) ? 0 : rnd_range(0, 300);

		for (int64_t i = 0; i < len; i++)
			s += (char) ('A' + rnd() % 26);
		push_i(t.cols[L_ID], r);
		push_s(t.cols[L_KEY], keys[zk.draw()], chance(0.05));
		push_s(t.cols[L_TXT], s, chance(0.1));
		push_i(t.cols[L_V], rnd_range(-1000, 1000), chance(0.1));
	}
	return t;
}

/*
 * T -> FILTER v % 3 = 1 -> FILTER v <= $0 -> EMIT: every kind, a substring (points into the middle of
 * an input value), coalesce(txt, 'none') (input or expression pool), the text parameter
 */
static void
test_chunk_emit(void)
{
	HTable		T = make_T(2500, 300);
	PipeB		p(TM_SRC_TABLE, 0);
	int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
	int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
	int			s_txt = p.slot(ty(TM_K_TEXT), 0, T_TXT);
	int			s_num = p.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
	int			s_f = p.slot(ty(TM_K_FLOAT8), 0, T_F);
	int			s_bp = p.slot(ty(TM_K_BPCHAR), 0, T_BP);
	int			s_d = p.slot(ty(TM_K_DATE), 0, T_D);
	int			s_par = p.slot(ty(TM_K_INT4), -1, 0);
	int			s_ptxt = p.slot(ty(TM_K_TEXT), -1, 1);
	TmValue		params[2];
	bool		paramnulls[2] = {false, false};
	std::vector<std::string> exp;

	p.filter(x_mod_cmp(s_v, 3, TM_K_INT4, TM_PRED_EQ, 1));
	p.filter(x_cmp_slots(s_v, TM_PRED_LE, s_par));

	std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_TEXT), ty(TM_K_NUMERIC, 2), ty(TM_K_FLOAT8),
		ty(TM_K_BPCHAR), ty(TM_K_DATE), ty(TM_K_TEXT), ty(TM_K_TEXT), ty(TM_K_TEXT)};
	TmPlan		pl = plan({p.emit(0, {x_slot(s_id, rt[0]), x_slot(s_v, rt[1]), x_slot(s_txt, rt[2]),
									   x_slot(s_num, rt[3]), x_slot(s_f, rt[4]), x_slot(s_bp, rt[5]),
									   x_slot(s_d, rt[6]), x_substr(s_txt, 2, 3), x_coalesce_text(s_txt),
									   x_slot(s_ptxt, rt[9])})},
						  {}, {result(rt)}, 0, {ty(TM_K_INT4), ty(TM_K_TEXT)});

	memset(params, 0, sizeof(params));
	params[0].i = 40;
	params[1].s.p = "param text";
	params[1].s.len = 10;
	std::vector<std::string> got = check_chunked("chunked emit", pl, {&T}, true, g_chunk_sizes, params, paramnulls);

	/* the unchunked rows are the right ones */
	for (int64_t i = 0; i < T.nrows; i++)
	{
		int64_t		v = ival(T, T_V, i);
		const std::string &s = T.cols[T_TXT].s[i];
		bool		tn = isnull(T, T_TXT, i);

		if (isnull(T, T_V, i) || v % 3 != 1 || v > 40)
			continue;
		exp.push_back(cell(T.cols[T_ID], i) + cell(T.cols[T_V], i) + cell(T.cols[T_TXT], i) +
					  cell(T.cols[T_NUM], i) + cell(T.cols[T_F], i) + cell(T.cols[T_BP], i) +
					  cell(T.cols[T_D], i) + (tn ? cNULL : cS(s.size() >= 2 ? s.substr(1, 3) : "")) +
					  (tn ? cS("none") : cS(s)) + cS("param text"));
	}
	check_rows("chunked emit: unchunked rows", got, norm_zero_nan(exp), true);
}

/* filters that drop whole chunks (or every row); EMIT and AGG; the pool holds less with chunks */
static void
test_chunk_filter(void)
{
	HTable		T = make_T(20000, 300);
	HTable		Tsmall = make_T(3000, 300);

	for (int keep = 0; keep < 2; keep++)
	{
		/* keep: id in [12345, 12445); else none (id < 0) */
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
		int			s_txt = p.slot(ty(TM_K_TEXT), 0, T_TXT);
		int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
		char		what[100];

		if (keep)
		{
			p.filter(x_cmp_const(s_id, TM_PRED_GE, 12345));
			p.filter(x_cmp_const(s_id, TM_PRED_LT, 12445));
		}
		else
			p.filter(x_cmp_const(s_id, TM_PRED_LT, 0));
		PipeB		q = p;
		PipeB		r = p;
		TmPlan		pe = plan({p.emit(0, {x_slot(s_id, ty(TM_K_INT8)), x_slot(s_txt, ty(TM_K_TEXT)),
										  x_slot(s_v, ty(TM_K_INT4))})},
							  {}, {result({ty(TM_K_INT8), ty(TM_K_TEXT), ty(TM_K_INT4)})}, 0);
		TmPlan		pg = plan({q.agg(0, {x_slot(s_txt, ty(TM_K_TEXT))},
								 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								  agg(TM_AGG_MAX, x_slot(s_txt, ty(TM_K_TEXT)), ty(TM_K_TEXT))})},
							  {}, {result({ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_TEXT)})}, 0);
		TmPlan		pa = plan({r.agg(0, {},
								 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								  agg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8)),
								  agg(TM_AGG_MIN, x_slot(s_txt, ty(TM_K_TEXT)), ty(TM_K_TEXT))})},
							  {}, {result({ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_TEXT)})}, 0);

		snprintf(what, sizeof(what), "emit, filter keeps %s", keep ? "100 rows" : "nothing");
		std::vector<std::string> rows = check_chunked(what, pe, {&T}, true, {7, 1000, 4999});
		TM_CHECK_INT_EQ((int64_t) rows.size(), keep ? 100 : 0);
		check_chunked(what, pe, {&Tsmall}, true, {1});
		snprintf(what, sizeof(what), "grouped aggregate, filter keeps %s", keep ? "100 rows" : "nothing");
		check_chunked(what, pg, {&T}, false, {7, 1000});
		check_chunked(what, pg, {&Tsmall}, false, {1});
		snprintf(what, sizeof(what), "global aggregate, filter keeps %s", keep ? "100 rows" : "nothing");
		rows = check_chunked(what, pa, {&T}, true, {7, 1000});
		TM_CHECK_INT_EQ((int64_t) rows.size(), 1);
		check_chunked(what, pa, {&Tsmall}, true, {1});

		/* the chunks' space is reused: less pool memory than the whole input takes */
		if (keep)
		{
			Run			r0 = run_plan(pe, {&T});
			size_t		peak0 = tm_gpu_pool_peak(g_pool);

			tm_gpu_set_max_chunk_rows(1000);
			Run			r1 = run_plan(pe, {&T});
			size_t		peak1 = tm_gpu_pool_peak(g_pool);

			tm_gpu_set_max_chunk_rows(0);
			CHECK_OK(r0);
			CHECK_OK(r1);
			TM_CHECK_MSG(peak1 < peak0 / 4 || g_lb_mode != TM_GPU_LB_NONE || forced_partitioned(),
						 "pool peak %zu over chunks of 1000 rows, %zu unchunked", peak1, peak0);
			tm_gpu_table_free(&r0.out);
			tm_gpu_table_free(&r1.out);
		}
	}
}

/*
 * joins: build sides and probe sides over chunks; keys and payloads with text; EMIT keeps the order of the
 * probe side's rows exactly (and of a key's build rows where the build side is in chunks: COUNT pass)
 */
static void
test_chunk_join(void)
{
	HTable		T = make_T(2000, 300);
	HTable		B = make_B(1500, 300);

	for (int jt = TM_JOIN_INNER; jt <= TM_JOIN_LEFT; jt++)
	{
		PipeB		pb(TM_SRC_TABLE, 0);
		int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
		int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
		int			b_name = pb.slot(ty(TM_K_TEXT), 0, B_NAME);
		TmPipeline	build = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))},
									 {x_slot(b_w, ty(TM_K_INT4)), x_slot(b_name, ty(TM_K_TEXT))});
		PipeB		pp(TM_SRC_TABLE, 1);
		int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
		int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
		int			t_v = pp.slot(ty(TM_K_INT4), 0, T_V);
		int			t_txt = pp.slot(ty(TM_K_TEXT), 0, T_TXT);
		int			m_w = pp.slot(ty(TM_K_INT4), 1, 0);
		int			m_name = pp.slot(ty(TM_K_TEXT), 1, 1);
		bool		wide = (jt == TM_JOIN_INNER || jt == TM_JOIN_LEFT);
		std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_TEXT)};
		std::vector<TmExpr *> vals;
		char		what[64];

		pp.probe(jt, 0, {x_slot(t_k, ty(TM_K_INT4))}, x_cmp_slots(m_w, TM_PRED_LT, t_v));
		vals = {x_slot(t_id, rt[0]), x_slot(t_v, rt[1]), x_slot(t_txt, rt[2])};
		if (wide)
		{
			rt.push_back(ty(TM_K_INT4));
			rt.push_back(ty(TM_K_TEXT));
			vals.push_back(x_slot(m_w, rt[3]));
			vals.push_back(x_slot(m_name, rt[4]));
		}
		TmPlan		pl = plan({build, pp.emit(0, vals)},
							  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4), ty(TM_K_TEXT)})}, {result(rt)}, 0);

		snprintf(what, sizeof(what), "chunked join type %d", jt);
		check_chunked(what, pl, {&B, &T}, wide ? -1 : 1);
	}

	/* text keys: B.name -> (k, w); T.txt probes it; two EMITs into one result */
	{
		PipeB		pb(TM_SRC_TABLE, 0);
		int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
		int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
		int			b_name = pb.slot(ty(TM_K_TEXT), 0, B_NAME);
		TmPipeline	build = pb.build(0, {x_slot(b_name, ty(TM_K_TEXT))},
									 {x_slot(b_k, ty(TM_K_INT4)), x_slot(b_w, ty(TM_K_INT4))});
		PipeB		pp(TM_SRC_TABLE, 1);
		int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
		int			t_txt = pp.slot(ty(TM_K_TEXT), 0, T_TXT);
		int			m_k = pp.slot(ty(TM_K_INT4), 1, 0);
		PipeB		p2(TM_SRC_TABLE, 2);
		int			u_id = p2.slot(ty(TM_K_INT8), 0, T_ID);
		int			u_bp = p2.slot(ty(TM_K_BPCHAR), 0, T_BP);
		HTable		T2 = make_T(900, 300);

		pp.probe(TM_JOIN_INNER, 0, {x_slot(t_txt, ty(TM_K_TEXT))}, x_cmp_const(t_id, TM_PRED_LT, 400));
		p2.filter(x_cmp_const(u_id, TM_PRED_GE, 300));
		TmPlan		pl = plan({build, pp.emit(0, {x_slot(t_id, ty(TM_K_INT8)), x_slot(t_txt, ty(TM_K_TEXT)),
											   x_slot(m_k, ty(TM_K_INT4))}),
							   p2.emit(0, {x_slot(u_id, ty(TM_K_INT8)), x_slot(u_bp, ty(TM_K_TEXT)),
										   x_slot(u_id, ty(TM_K_INT4))})},
							  {hashtable({ty(TM_K_TEXT)}, {ty(TM_K_INT4), ty(TM_K_INT4)})},
							  {result({ty(TM_K_INT8), ty(TM_K_TEXT), ty(TM_K_INT4)})}, 0);
		std::vector<std::string> rows = check_chunked("chunked join on text keys, EMIT appends", pl, {&B, &T, &T2}, -1);

		TM_CHECK(rows.size() > 1000);
	}
}

/* aggregation over chunks: grouped (NULL and bpchar keys), global, DISTINCT, after a join, into a RESULT */
static void
test_chunk_agg(void)
{
	HTable		T = make_T(3000, 300);
	HTable		D = make_D(2500);

	/* T -> AGG by (g, bp) with every aggregate of t_aggs; without keys */
	{
		AggSlots	s;
		PipeB		p = t_agg_pipe(&s);
		int			s_g = p.slot(ty(TM_K_INT4), 0, T_G);
		int			s_bp = p.slot(ty(TM_K_BPCHAR), 0, T_BP);
		std::vector<TmType> rt = {ty(TM_K_INT4), ty(TM_K_BPCHAR)};
		std::vector<TmType> at = t_agg_types();
		PipeB		q = t_agg_pipe(&s);

		rt.insert(rt.end(), at.begin(), at.end());
		TmPlan		pl = plan({p.agg(0, {x_slot(s_g, ty(TM_K_INT4)), x_slot(s_bp, ty(TM_K_BPCHAR))}, t_aggs(s))},
							  {}, {result(rt)}, 0);
		TmPlan		pg = plan({q.agg(0, {}, t_aggs(s))}, {}, {result(t_agg_types())}, 0);

		check_chunked("chunked group by (g, bp)", pl, {&T}, false);
		check_chunked("chunked global aggregate", pg, {&T}, true);
	}

	/* DISTINCT aggregates: by g, without keys, by a text key */
	{
		DSlots		s;
		PipeB		p = d_pipe(&s);
		int			s_g = p.slot(ty(TM_K_INT4), 0, D_G);
		std::vector<TmType> rt = {ty(TM_K_INT4)};
		std::vector<TmType> at = d_agg_types();
		PipeB		q = d_pipe(&s);
		PipeB		u = d_pipe(&s);

		rt.insert(rt.end(), at.begin(), at.end());
		TmPlan		pl = plan({p.agg(0, {x_slot(s_g, ty(TM_K_INT4))}, d_aggs(s))}, {}, {result(rt)}, 0);
		TmPlan		pg = plan({q.agg(0, {}, d_aggs(s))}, {}, {result(d_agg_types())}, 0);
		TmPlan		pt = plan({u.agg(0, {x_slot(s.t, ty(TM_K_TEXT))},
								 {dagg(TM_AGG_COUNT, x_slot(s.p, ty(TM_K_BPCHAR)), ty(TM_K_INT8)),
								  dagg(TM_AGG_SUM, x_slot(s.n, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 3)),
								  dagg(TM_AGG_COUNT, x_slot(s.t, ty(TM_K_TEXT)), ty(TM_K_INT8)),
								  dagg(TM_AGG_MAX, x_slot(s.p, ty(TM_K_BPCHAR)), ty(TM_K_BPCHAR))})},
							  {}, {result({ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_NUMERIC, 3), ty(TM_K_INT8),
										   ty(TM_K_BPCHAR)})}, 0);

		check_chunked("chunked DISTINCT aggregates by g", pl, {&D}, false);
		check_chunked("chunked DISTINCT aggregates, one group", pg, {&D}, true);
		check_chunked("chunked DISTINCT aggregates by text", pt, {&D}, false);
	}

	/* after a join (probes multiply rows), DISTINCT over build payload text */
	{
		HTable		T2 = make_T(2000, 200);
		HTable		B = make_B(600, 200);

		check_chunked("chunked join + DISTINCT aggregates", join_distinct_plan(), {&B, &T2}, false);
	}

	/* AGG with text keys / max(text) into a RESULT that a later pipeline reads (its text must be valid) */
	{
		HTable		T2 = make_T(2500, 200);
		HTable		B = make_B(600, 200);
		PipeB		pb(TM_SRC_TABLE, 0);
		int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
		int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
		int			b_name = pb.slot(ty(TM_K_TEXT), 0, B_NAME);
		TmPipeline	build = pb.build(0, {x_slot(b_k, ty(TM_K_INT4))},
									 {x_slot(b_w, ty(TM_K_INT4)), x_slot(b_name, ty(TM_K_TEXT))});
		PipeB		pp(TM_SRC_TABLE, 0);
		int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
		int			t_txt = pp.slot(ty(TM_K_TEXT), 0, T_TXT);
		int			t_bp = pp.slot(ty(TM_K_BPCHAR), 0, T_BP);
		int			m_w = pp.slot(ty(TM_K_INT4), 1, 0);
		int			m_name = pp.slot(ty(TM_K_TEXT), 1, 1);
		std::vector<TmType> rt = {ty(TM_K_TEXT), ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_TEXT),
			ty(TM_K_BPCHAR)};
		PipeB		pr(TM_SRC_RESULT, 0);
		int			r_name = pr.slot(rt[0], 0, 0);
		int			r_txt = pr.slot(rt[1], 0, 1);
		int			r_cnt = pr.slot(rt[2], 0, 2);
		int			r_sum = pr.slot(rt[3], 0, 3);
		int			r_max = pr.slot(rt[4], 0, 4);
		int			r_bp = pr.slot(rt[5], 0, 5);

		pp.probe(TM_JOIN_LEFT, 0, {x_slot(t_k, ty(TM_K_INT4))}, NULL);
		TmPipeline	aggp = pp.agg(0, {x_slot(m_name, rt[0]), x_slot(t_txt, rt[1])},
								  {agg(TM_AGG_COUNT_STAR, NULL, rt[2]),
								   agg(TM_AGG_SUM, x_slot(m_w, ty(TM_K_INT4)), rt[3]),
								   agg(TM_AGG_MAX, x_slot(t_txt, rt[4]), rt[4]),
								   agg(TM_AGG_MIN, x_slot(t_bp, rt[5]), rt[5])});
		pr.filter(x_cmp_const(r_cnt, TM_PRED_GT, 1));
		TmPipeline	emit = pr.emit(1, {x_slot(r_name, rt[0]), x_slot(r_txt, rt[1]), x_slot(r_cnt, rt[2]),
									   x_slot(r_sum, rt[3]), x_slot(r_max, rt[4]), x_slot(r_bp, rt[5])});
		TmPlan		pl = plan({build, aggp, emit}, {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4), ty(TM_K_TEXT)})},
							  {result(rt), result(rt)}, 1);

		check_chunked("chunked join, aggregate by text, result source", pl, {&B, &T2, NULL}, false);
	}
}

/* long text values: group keys and min / max / DISTINCT values met again in later chunks */
static void
test_chunk_text(void)
{
	HTable		L = make_L(3000);
	PipeB		p(TM_SRC_TABLE, 0);
	int			s_key = p.slot(ty(TM_K_TEXT), 0, L_KEY);
	int			s_txt = p.slot(ty(TM_K_TEXT), 0, L_TXT);
	int			s_v = p.slot(ty(TM_K_INT4), 0, L_V);
	PipeB		q = p;
	std::map<std::string, std::pair<int64_t, std::set<std::string>>> groups;
	std::vector<std::string> exp;
	TmPlan		pa = plan({p.agg(0, {x_slot(s_key, ty(TM_K_TEXT)), x_substr(s_txt, 1, 2)},
								 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								  agg(TM_AGG_MIN, x_slot(s_txt, ty(TM_K_TEXT)), ty(TM_K_TEXT)),
								  agg(TM_AGG_MAX, x_slot(s_txt, ty(TM_K_TEXT)), ty(TM_K_TEXT)),
								  dagg(TM_AGG_COUNT, x_substr(s_txt, 3, 2), ty(TM_K_INT8)),
								  agg(TM_AGG_MAX, x_slot(s_key, ty(TM_K_TEXT)), ty(TM_K_TEXT)),
								  agg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8)),
								  agg(TM_AGG_ANY, x_slot(s_key, ty(TM_K_TEXT)), ty(TM_K_TEXT))})},
						  {}, {result({ty(TM_K_TEXT), ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_TEXT), ty(TM_K_TEXT),
									   ty(TM_K_INT8), ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_TEXT)})}, 0);
	TmPlan		pe = plan({q.emit(0, {x_slot(s_key, ty(TM_K_TEXT)), x_substr(s_txt, 100, 50),
									   x_slot(s_txt, ty(TM_K_TEXT)), x_coalesce_text(s_key)})},
						  {}, {result({ty(TM_K_TEXT), ty(TM_K_TEXT), ty(TM_K_TEXT), ty(TM_K_TEXT)})}, 0);

	check_chunked("chunked aggregate of long texts", pa, {&L}, false);
	check_chunked("chunked emit of long texts", pe, {&L}, true, {1, 7, 333, 1000});

	/* count(DISTINCT substring(txt from 3 for 2)) by key, checked here */
	{
		PipeB		r(TM_SRC_TABLE, 0);
		int			k = r.slot(ty(TM_K_TEXT), 0, L_KEY);
		int			t = r.slot(ty(TM_K_TEXT), 0, L_TXT);
		TmPlan		pd = plan({r.agg(0, {x_slot(k, ty(TM_K_TEXT))},
								 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								  dagg(TM_AGG_COUNT, x_substr(t, 3, 2), ty(TM_K_INT8))})},
							  {}, {result({ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_INT8)})}, 0);
		std::vector<std::string> got = check_chunked("chunked count(DISTINCT substring)", pd, {&L}, false);

		for (int64_t i = 0; i < L.nrows; i++)
		{
			auto	   &g = groups[cell(L.cols[L_KEY], i)];
			const std::string &s = L.cols[L_TXT].s[i];

			g.first++;
			if (!isnull(L, L_TXT, i))
				g.second.insert(s.size() >= 3 ? s.substr(2, 2) : "");
		}
		for (auto &g : groups)
			exp.push_back(g.first + cI(g.second.first) + cI((int64_t) g.second.second.size()));
		check_rows("chunked count(DISTINCT substring): unchunked rows", got, exp, false);
	}
}

/* the group table / a DISTINCT set overflows in a later chunk: the aggregation starts over */
static void
test_chunk_overflow(void)
{
	HTable		T = make_T(100000, 300);
	PipeB		p(TM_SRC_TABLE, 0);
	int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
	int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
	int			s_txt = p.slot(ty(TM_K_TEXT), 0, T_TXT);
	TmPlan		pl = plan({p.agg(0, {x_mod(s_id, 70001, TM_K_INT8)},
							 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
							  agg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8)),
							  agg(TM_AGG_MAX, x_slot(s_txt, ty(TM_K_TEXT)), ty(TM_K_TEXT))})},
						  {}, {result({ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_TEXT)})}, 0);
	std::vector<std::string> rows = check_chunked("70001 groups over chunks", pl, {&T}, false, {1000, 30000});

	TM_CHECK_INT_EQ((int64_t) rows.size(), 70001);

	/* 300000 distinct values (each twice): the set overflows in the third chunk or so */
	{
		HTable		H;
		int64_t		n = 600000;

		H.nrows = n;
		H.cols.push_back(col_new(TM_K_INT8));
		for (int64_t i = 0; i < n; i++)
			push_i(H.cols[0], i / 2);
		PipeB		q(TM_SRC_TABLE, 0);
		int			s_x = q.slot(ty(TM_K_INT8), 0, 0);
		TmPlan		pd = plan({q.agg(0, {x_mod(s_x, 3, TM_K_INT8)},
								 {dagg(TM_AGG_COUNT, x_slot(s_x, ty(TM_K_INT8)), ty(TM_K_INT8)),
								  dagg(TM_AGG_SUM, x_slot(s_x, ty(TM_K_INT8)), ty(TM_K_NUMERIC, 0)),
								  agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8))})},
							  {}, {result({ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_NUMERIC, 0), ty(TM_K_INT8)})}, 0);

		rows = check_chunked("300000 distinct values over chunks", pd, {&H}, false, {100000});
		TM_CHECK_INT_EQ((int64_t) rows.size(), 3);
	}
}

/* an expression error in a late chunk: its source row number, whatever the chunks */
static void
check_error_row(const char *what, const TmPlan &pl, std::vector<const HTable *> inputs, int pipeline, int64_t row,
				const std::vector<int64_t> &sizes)
{
	std::vector<int64_t> all = {0};

	all.insert(all.end(), sizes.begin(), sizes.end());
	for (int64_t n : all)
	{
		tm_gpu_set_max_chunk_rows(n);
		Run			r = run_plan(pl, inputs);

		tm_gpu_set_max_chunk_rows(0);
		TM_CHECK_MSG(r.rc == TM_GPU_ERR_EXPR && r.fail.status == TM_ERR_DIV_BY_ZERO && r.fail.pipeline == pipeline &&
					 r.fail.row == row,
					 "%s, chunks of %lld rows: rc %d status %d pipeline %d row %lld (expected row %lld): %s", what,
					 (long long) n, r.rc, r.fail.status, r.fail.pipeline, (long long) r.fail.row, (long long) row,
					 r.err);
		TM_CHECK(r.out.cols == NULL);
		tm_gpu_table_free(&r.out);
	}
}

static void
test_chunk_errors(void)
{
	HTable		H;
	HTable		S;
	int64_t		bad = 2777;
	std::vector<int64_t> sizes = {1, 7, 1000};

	/* x = row number, except row `bad`: x = -5 (the only one); 100 / (x + 5) fails there alone */
	H.nrows = 3000;
	H.cols.push_back(col_new(TM_K_INT4));
	H.cols.push_back(col_new(TM_K_TEXT));
	for (int64_t i = 0; i < H.nrows; i++)
	{
		push_i(H.cols[0], i == bad ? -5 : i, i % 11 == 3);
		push_s(H.cols[1], words[i % NWORDS]);
	}
	S.nrows = 10;
	S.cols.push_back(col_new(TM_K_INT4));
	for (int64_t i = 0; i < S.nrows; i++)
		push_i(S.cols[0], i);

	/* in an EMIT value (second sweep) */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_x = p.slot(ty(TM_K_INT4), 0, 0);
		int			s_t = p.slot(ty(TM_K_TEXT), 0, 1);
		TmPlan		pl = plan({p.emit(0, {x_slot(s_t, ty(TM_K_TEXT)), x_div_zero_at(s_x, -5, 100)})}, {},
							  {result({ty(TM_K_TEXT), ty(TM_K_INT4)})}, 0);

		check_error_row("error in an EMIT value", pl, {&H}, 0, bad, sizes);
	}

	/* in a filter (the counting sweep) */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_x = p.slot(ty(TM_K_INT4), 0, 0);
		TmExpr	   *q;

		a_init();
		p_int(100);
		p_slot(s_x);
		p_int(5);
		a_op(TMI_ADD, TM_K_INT4, 0, 0, 0);
		a_op(TMI_DIV, TM_K_INT4, 0, 0, 0);
		p_int(0);
		a_op(TMI_CMP, TM_CMP_INT, TM_PRED_GE, 0, 0);
		q = a_build(ty(TM_K_BOOL));
		p.filter(q);
		TmPlan		pl = plan({p.emit(0, {x_slot(s_x, ty(TM_K_INT4))})}, {}, {result({ty(TM_K_INT4)})}, 0);

		check_error_row("error in a filter", pl, {&H}, 0, bad, sizes);
	}

	/* in an aggregate's argument */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_x = p.slot(ty(TM_K_INT4), 0, 0);
		int			s_t = p.slot(ty(TM_K_TEXT), 0, 1);
		TmPlan		pl = plan({p.agg(0, {x_slot(s_t, ty(TM_K_TEXT))},
								 {agg(TM_AGG_SUM, x_div_zero_at(s_x, -5, 100), ty(TM_K_INT8))})},
							  {}, {result({ty(TM_K_TEXT), ty(TM_K_INT8)})}, 0);

		check_error_row("error in an aggregate", pl, {&H}, 0, bad, sizes);
	}

	/* in a build key (pipeline 0), and in a probe's key (pipeline 1) */
	{
		PipeB		pb(TM_SRC_TABLE, 0);
		int			b_x = pb.slot(ty(TM_K_INT4), 0, 0);
		TmPipeline	build = pb.build(0, {x_div_zero_at(b_x, -5, 100)}, {x_slot(b_x, ty(TM_K_INT4))});
		PipeB		pp(TM_SRC_TABLE, 0);
		int			p_x = pp.slot(ty(TM_K_INT4), 0, 0);
		int			m_x = pp.slot(ty(TM_K_INT4), 1, 0);

		pp.probe(TM_JOIN_INNER, 0, {x_slot(p_x, ty(TM_K_INT4))}, NULL);
		TmPlan		pl = plan({build, pp.emit(0, {x_slot(m_x, ty(TM_K_INT4))})},
							  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4)})}, {result({ty(TM_K_INT4)})}, 0);

		check_error_row("error in a build key", pl, {&H, &S}, 0, bad, sizes);

		PipeB		pb2(TM_SRC_TABLE, 0);
		int			c_x = pb2.slot(ty(TM_K_INT4), 0, 0);
		TmPipeline	build2 = pb2.build(0, {x_slot(c_x, ty(TM_K_INT4))}, {x_slot(c_x, ty(TM_K_INT4))});
		PipeB		pp2(TM_SRC_TABLE, 0);
		int			q_x = pp2.slot(ty(TM_K_INT4), 0, 0);
		int			n_x = pp2.slot(ty(TM_K_INT4), 1, 0);

		pp2.probe(TM_JOIN_LEFT, 0, {x_div_zero_at(q_x, -5, 100)}, NULL);
		TmPlan		pl2 = plan({build2, pp2.emit(0, {x_slot(n_x, ty(TM_K_INT4))})},
							   {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4)})}, {result({ty(TM_K_INT4)})}, 0);

		check_error_row("error in a probe key", pl2, {&S, &H}, 1, bad, sizes);
	}

	/*
	 * Errors of several rows: the lowest row's is reported (PostgreSQL's scan meets it first), whichever
	 * thread or warp fails first.  (x * 100000) / (x % 1000 - 1): x = 2 below row 99999, 1001 there
	 * (division by zero), 30000 from row 100000 on (integer out of range in every one of those rows).
	 */
	{
		HTable		M;
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_x = p.slot(ty(TM_K_INT4), 0, 0);
		TmExpr	   *e;

		M.nrows = 400000;
		M.cols.push_back(col_new(TM_K_INT4));
		for (int64_t i = 0; i < M.nrows; i++)
			push_i(M.cols[0], i < 99999 ? 2 : i == 99999 ? 1001 : 30000);
		a_init();
		p_slot(s_x);
		p_int(100000);
		a_op(TMI_MUL, TM_K_INT4, 0, 0, 0);
		p_slot(s_x);
		p_int(1000);
		a_op(TMI_MOD, TM_K_INT4, 0, 0, 0);
		p_int(1);
		a_op(TMI_SUB, TM_K_INT4, 0, 0, 0);
		a_op(TMI_DIV, TM_K_INT4, 0, 0, 0);
		e = a_build(ty(TM_K_INT4));
		TmPlan		pl = plan({p.agg(0, {}, {agg(TM_AGG_SUM, e, ty(TM_K_INT8))})}, {},
							  {result({ty(TM_K_INT8)})}, 0);

		check_error_row("the lowest row's error of many", pl, {&M}, 0, 99999, {1000, 77777});
	}
}

/* inputs on the device are never chunked: the limit changes nothing */
static void
test_chunk_device_inputs(void)
{
	HTable		T = make_T(3000, 200);
	HTable		B = make_B(500, 200);
	TmPlan		pl = join_distinct_plan();
	TmPlan		pe = emit_all_plan();

	for (int e = 0; e < 2; e++)
	{
		TmPlan	   &p = e ? pe : pl;
		std::vector<const HTable *> in = e ? std::vector<const HTable *>{&T} : std::vector<const HTable *>{&B, &T};
		Run			rh = run_plan(p, in);

		tm_gpu_set_max_chunk_rows(7);
		Run			rd = run_plan(p, in, NULL, NULL, NULL, true);

		tm_gpu_set_max_chunk_rows(0);
		CHECK_OK(rh);
		CHECK_OK(rd);
		check_rows("device inputs with a chunk limit", out_rows(rd.out), out_rows(rh.out), e == 1);
		tm_gpu_table_free(&rh.out);
		tm_gpu_table_free(&rd.out);
	}
}

/*
 * No limit: a pool too small for the whole input (yet large enough for the pipelines' tables and a
 * chunk of rows) runs the plans over chunks, with the results of a large pool
 */
static void
test_chunk_small_pool(void)
{
	HTable		L = make_L(200000);
	HTable		G;
	TmGpuPool  *small = NULL;
	char		err[256];
	size_t		small_size = (size_t) 16 << 20;
	size_t		input_bytes = 0;
	int			rc;

	G.nrows = 12;
	G.cols.push_back(col_new(TM_K_TEXT));
	G.cols.push_back(col_new(TM_K_INT4));
	for (int64_t i = 0; i < G.nrows; i++)
	{
		push_s(G.cols[0], "key " + std::to_string(i) + " " + std::string((size_t) ((i * 37) % 200), (char) ('a' + i)));
		push_i(G.cols[1], i);
	}
	for (int64_t i = 0; i < L.nrows; i++)
		input_bytes += 8 + 2 * 8 + 4 + 2 + L.cols[L_KEY].s[i].size() + L.cols[L_TXT].s[i].size();
	TM_CHECK_MSG(input_bytes > 2 * small_size, "input of %zu bytes", input_bytes);
	rc = tm_gpu_pool_create(0, small_size, &small, err, sizeof(err));
	TM_CHECK_MSG(rc == TM_GPU_OK, "%s", err);
	if (rc != TM_GPU_OK)
		return;
	tm_gpu_set_max_chunk_rows(0);

	/* L -> AGG by key: count(*), sum(v), min(txt), max(txt) */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_key = p.slot(ty(TM_K_TEXT), 0, L_KEY);
		int			s_txt = p.slot(ty(TM_K_TEXT), 0, L_TXT);
		int			s_v = p.slot(ty(TM_K_INT4), 0, L_V);
		TmPlan		pl = plan({p.agg(0, {x_slot(s_key, ty(TM_K_TEXT))},
								 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
								  agg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8)),
								  agg(TM_AGG_MIN, x_slot(s_txt, ty(TM_K_TEXT)), ty(TM_K_TEXT)),
								  agg(TM_AGG_MAX, x_slot(s_txt, ty(TM_K_TEXT)), ty(TM_K_TEXT))})},
							  {}, {result({ty(TM_K_TEXT), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_TEXT), ty(TM_K_TEXT)})},
							  0);
		Run			ref = run_plan(pl, {&L});
		Run			r = run_plan(pl, {&L}, NULL, NULL, small);

		CHECK_OK(ref);
		TM_CHECK_MSG(r.rc == TM_GPU_OK, "small pool: rc %d: %s", r.rc, r.err);
		if (r.rc == TM_GPU_OK)
		{
			check_rows("aggregate, small pool", out_rows(r.out), out_rows(ref.out), false);
			TM_CHECK(tm_gpu_pool_peak(small) <= small_size);
			TM_CHECK_INT_EQ(r.stats[0].source_rows, L.nrows);
			TM_CHECK_INT_EQ(r.stats[0].sink_rows, L.nrows);
		}
		tm_gpu_table_free(&ref.out);
		tm_gpu_table_free(&r.out);
	}

	/* L -> FILTER id % 25 = 0 -> HASH_BUILD key -> (id, txt);  G -> PROBE inner -> EMIT (g, id, txt) */
	{
		PipeB		pb(TM_SRC_TABLE, 0);
		int			b_id = pb.slot(ty(TM_K_INT8), 0, L_ID);
		int			b_key = pb.slot(ty(TM_K_TEXT), 0, L_KEY);
		int			b_txt = pb.slot(ty(TM_K_TEXT), 0, L_TXT);
		PipeB		pp(TM_SRC_TABLE, 0);
		int			g_key = pp.slot(ty(TM_K_TEXT), 0, 0);
		int			g_i = pp.slot(ty(TM_K_INT4), 0, 1);
		int			m_id = pp.slot(ty(TM_K_INT8), 1, 0);
		int			m_txt = pp.slot(ty(TM_K_TEXT), 1, 1);
		TmExpr	   *q;

		q = x_mod_cmp(b_id, 25, TM_K_INT8, TM_PRED_EQ, 0);
		pb.filter(q);
		TmPipeline	build = pb.build(0, {x_slot(b_key, ty(TM_K_TEXT))},
									 {x_slot(b_id, ty(TM_K_INT8)), x_slot(b_txt, ty(TM_K_TEXT))});
		pp.probe(TM_JOIN_INNER, 0, {x_slot(g_key, ty(TM_K_TEXT))}, NULL);
		TmPlan		pl = plan({build, pp.emit(0, {x_slot(g_i, ty(TM_K_INT4)), x_slot(m_id, ty(TM_K_INT8)),
											   x_slot(m_txt, ty(TM_K_TEXT))})},
							  {hashtable({ty(TM_K_TEXT)}, {ty(TM_K_INT8), ty(TM_K_TEXT)})},
							  {result({ty(TM_K_INT4), ty(TM_K_INT8), ty(TM_K_TEXT)})}, 0);
		Run			ref = run_plan(pl, {&L, &G});
		Run			r = run_plan(pl, {&L, &G}, NULL, NULL, small);

		CHECK_OK(ref);
		TM_CHECK_MSG(r.rc == TM_GPU_OK, "small pool: rc %d: %s", r.rc, r.err);
		if (r.rc == TM_GPU_OK)
		{
			check_rows_probe_order("build + probe + emit, small pool", out_rows(r.out), out_rows(ref.out));
			TM_CHECK(r.out.nrows > 5000);
			TM_CHECK_INT_EQ(r.stats[0].sink_rows, ref.stats[0].sink_rows);
		}
		tm_gpu_table_free(&ref.out);
		tm_gpu_table_free(&r.out);
	}

	/* L -> FILTER v > 990 -> EMIT (id, key, txt): rows in source order */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_id = p.slot(ty(TM_K_INT8), 0, L_ID);
		int			s_key = p.slot(ty(TM_K_TEXT), 0, L_KEY);
		int			s_txt = p.slot(ty(TM_K_TEXT), 0, L_TXT);
		int			s_v = p.slot(ty(TM_K_INT4), 0, L_V);

		p.filter(x_cmp_const(s_v, TM_PRED_GT, 990));
		TmPlan		pl = plan({p.emit(0, {x_slot(s_id, ty(TM_K_INT8)), x_slot(s_key, ty(TM_K_TEXT)),
										  x_slot(s_txt, ty(TM_K_TEXT))})},
							  {}, {result({ty(TM_K_INT8), ty(TM_K_TEXT), ty(TM_K_TEXT)})}, 0);
		Run			ref = run_plan(pl, {&L});
		Run			r = run_plan(pl, {&L}, NULL, NULL, small);

		CHECK_OK(ref);
		TM_CHECK_MSG(r.rc == TM_GPU_OK, "small pool: rc %d: %s", r.rc, r.err);
		if (r.rc == TM_GPU_OK)
			check_rows("filter + emit, small pool", out_rows(r.out), out_rows(ref.out), true);
		tm_gpu_table_free(&ref.out);
		tm_gpu_table_free(&r.out);
	}

	/* every row kept: the result cannot fit, whatever the chunks */
	{
		PipeB		p(TM_SRC_TABLE, 0);
		int			s_txt = p.slot(ty(TM_K_TEXT), 0, L_TXT);
		TmPlan		pl = plan({p.emit(0, {x_slot(s_txt, ty(TM_K_TEXT))})}, {}, {result({ty(TM_K_TEXT)})}, 0);
		Run			r = run_plan(pl, {&L}, NULL, NULL, small);

		TM_CHECK_MSG(r.rc == TM_GPU_ERR_NOMEM, "rc %d: %s", r.rc, r.err);
	}
	TM_CHECK(tm_gpu_pool_destroy(small, err, sizeof(err)) == TM_GPU_OK);
}

/*
 * A pool that holds the whole input but not the sink's tables as well: the pipeline is run again over
 * chunks (their space is given back as the chunks go).  The pool's size is set between the peaks of an
 * unchunked and a chunked run.
 */
static void
test_chunk_fallback(void)
{
	HTable		T = make_T(60000, 300);
	HTable		B = make_B(40, 300);

	for (int which = 0; which < 2; which++)
	{
		TmPlan		pl;
		bool		ordered = false;

		if (which == 0)
		{
			/* T -> AGG by g: count(*), sum(v), min(txt) */
			PipeB		p(TM_SRC_TABLE, 0);
			int			s_g = p.slot(ty(TM_K_INT4), 0, T_G);
			int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
			int			s_txt = p.slot(ty(TM_K_TEXT), 0, T_TXT);

			pl = plan({p.agg(0, {x_slot(s_g, ty(TM_K_INT4))},
							 {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
							  agg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8)),
							  agg(TM_AGG_MIN, x_slot(s_txt, ty(TM_K_TEXT)), ty(TM_K_TEXT))})},
					  {}, {result({ty(TM_K_INT4), ty(TM_K_INT8), ty(TM_K_INT8), ty(TM_K_TEXT)})}, 0);
		}
		else
		{
			/* T -> HASH_BUILD id % 5000 -> (v, txt);  B -> PROBE on w + 50 -> EMIT */
			PipeB		pb(TM_SRC_TABLE, 0);
			int			t_id = pb.slot(ty(TM_K_INT8), 0, T_ID);
			int			t_v = pb.slot(ty(TM_K_INT4), 0, T_V);
			int			t_txt = pb.slot(ty(TM_K_TEXT), 0, T_TXT);
			PipeB		pp(TM_SRC_TABLE, 0);
			int			b_w = pp.slot(ty(TM_K_INT4), 0, B_W);
			int			m_v = pp.slot(ty(TM_K_INT4), 1, 0);
			int			m_txt = pp.slot(ty(TM_K_TEXT), 1, 1);
			TmExpr	   *k;

			/* w + 50 (int4) as the int8 key: the same .i */
			a_init();
			p_slot(b_w);
			p_int(50);
			a_op(TMI_ADD, TM_K_INT4, 0, 0, 0);
			k = a_build(ty(TM_K_INT8));
			pp.probe(TM_JOIN_INNER, 0, {k}, NULL);
			pl = plan({pb.build(0, {x_mod(t_id, 5000, TM_K_INT8)},
								{x_slot(t_v, ty(TM_K_INT4)), x_slot(t_txt, ty(TM_K_TEXT))}),
					   pp.emit(0, {x_slot(b_w, ty(TM_K_INT4)), x_slot(m_v, ty(TM_K_INT4)),
								   x_slot(m_txt, ty(TM_K_TEXT))})},
					  {hashtable({ty(TM_K_INT8)}, {ty(TM_K_INT4), ty(TM_K_TEXT)})},
					  {result({ty(TM_K_INT4), ty(TM_K_INT4), ty(TM_K_TEXT)})}, 0);
			ordered = true;
		}
		std::vector<const HTable *> in = which == 0 ? std::vector<const HTable *>{&T} :
			std::vector<const HTable *>{&T, &B};

		/*
		 * the hash build with its COUNT pass (fast paths off): without it, the whole run's build writes
		 * into room for every source row and needs about the memory of the run over chunks, so no pool
		 * lies between the two
		 */
		tm_gpu_pool_set_fast_paths(g_pool, which == 0);
		tm_gpu_set_max_chunk_rows(0);
		Run			ref = run_plan(pl, in);
		size_t		peak_whole = tm_gpu_pool_peak(g_pool);

		tm_gpu_set_max_chunk_rows(2000);
		Run			rc = run_plan(pl, in);
		size_t		peak_chunk = tm_gpu_pool_peak(g_pool);

		tm_gpu_set_max_chunk_rows(0);
		CHECK_OK(ref);
		CHECK_OK(rc);
		TM_CHECK_MSG(peak_chunk + 100000 < peak_whole, "peaks: %zu over chunks, %zu whole", peak_chunk, peak_whole);
		if (ref.rc == TM_GPU_OK && peak_chunk + 100000 < peak_whole)
		{
			TmGpuPool  *mid = NULL;
			char		err[256];
			int			prc = tm_gpu_pool_create(0, (peak_chunk + peak_whole) / 2, &mid, err, sizeof(err));

			TM_CHECK_MSG(prc == TM_GPU_OK, "%s", err);
			if (prc == TM_GPU_OK)
			{
				tm_gpu_pool_set_fast_paths(mid, which == 0);
				Run			r = run_plan(pl, in, NULL, NULL, mid);

				TM_CHECK_MSG(r.rc == TM_GPU_OK, "pool of %zu bytes: rc %d: %s", tm_gpu_pool_size(mid), r.rc, r.err);
				if (r.rc == TM_GPU_OK)
				{
					if (ordered)
						check_rows_probe_order("hash build, run again over chunks", out_rows(r.out), out_rows(ref.out));
					else
						check_rows("aggregate, run again over chunks", out_rows(r.out), out_rows(ref.out), false);
					TM_CHECK_INT_EQ(r.stats[0].sink_rows, ref.stats[0].sink_rows);
				}
				tm_gpu_table_free(&r.out);
				TM_CHECK(tm_gpu_pool_destroy(mid, err, sizeof(err)) == TM_GPU_OK);
			}
		}
		tm_gpu_table_free(&ref.out);
		tm_gpu_table_free(&rc.out);
		tm_gpu_pool_set_fast_paths(g_pool, 1);
	}
}

/*
 * A skewed join in a small pool (6 MB, the input is 12 MB): rows 30000..30099 of 40000 each meet 20
 * build rows and emit their long text (1000 bytes; the other rows' are 300 bytes and meet none).  The
 * chunk with those rows must copy far more text than the average predicts, more than the pool has left
 * beside the chunk: it is redone with fewer rows.  The rows and their order are those of a large pool.
 */
static void
test_chunk_skew(void)
{
	HTable		T;
	HTable		B;
	TmGpuPool  *small = NULL;
	char		err[256];
	int			rc;

	T.nrows = 40000;
	T.cols.push_back(col_new(TM_K_INT8));
	T.cols.push_back(col_new(TM_K_INT4));
	T.cols.push_back(col_new(TM_K_TEXT));
	for (int64_t i = 0; i < T.nrows; i++)
	{
		bool		skew = (i >= 30000 && i < 30100);
		std::string s;

		for (int j = 0; j < (skew ? 1000 : 300); j++)
			s += (char) ('a' + rnd() % 26);
		push_i(T.cols[0], i);
		push_i(T.cols[1], skew ? 0 : 100 + i);
		push_s(T.cols[2], s, i % 17 == 0);
	}
	B.nrows = 60;
	B.cols.push_back(col_new(TM_K_INT4));
	B.cols.push_back(col_new(TM_K_INT4));
	for (int64_t i = 0; i < B.nrows; i++)
	{
		push_i(B.cols[0], i < 20 ? 0 : i);
		push_i(B.cols[1], i);
	}
	PipeB		pb(TM_SRC_TABLE, 0);
	int			b_k = pb.slot(ty(TM_K_INT4), 0, 0);
	int			b_w = pb.slot(ty(TM_K_INT4), 0, 1);
	PipeB		pp(TM_SRC_TABLE, 0);
	int			t_id = pp.slot(ty(TM_K_INT8), 0, 0);
	int			t_k = pp.slot(ty(TM_K_INT4), 0, 1);
	int			t_txt = pp.slot(ty(TM_K_TEXT), 0, 2);
	int			m_w = pp.slot(ty(TM_K_INT4), 1, 0);

	pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(TM_K_INT4))}, NULL);
	TmPlan		pl = plan({pb.build(0, {x_slot(b_k, ty(TM_K_INT4))}, {x_slot(b_w, ty(TM_K_INT4))}),
						   pp.emit(0, {x_slot(t_id, ty(TM_K_INT8)), x_slot(t_txt, ty(TM_K_TEXT)),
									   x_slot(m_w, ty(TM_K_INT4)), x_substr(t_txt, 150, 100)})},
						  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4)})},
						  {result({ty(TM_K_INT8), ty(TM_K_TEXT), ty(TM_K_INT4), ty(TM_K_TEXT)})}, 0);

	tm_gpu_set_max_chunk_rows(0);
	Run			ref = run_plan(pl, {&B, &T});

	CHECK_OK(ref);
	TM_CHECK_INT_EQ(ref.out.nrows, 100 * 20);
	rc = tm_gpu_pool_create(0, (size_t) 6 << 20, &small, err, sizeof(err));
	TM_CHECK_MSG(rc == TM_GPU_OK, "%s", err);
	if (rc == TM_GPU_OK)
	{
		Run			r = run_plan(pl, {&B, &T}, NULL, NULL, small);

		TM_CHECK_MSG(r.rc == TM_GPU_OK, "small pool: rc %d: %s", r.rc, r.err);
		if (r.rc == TM_GPU_OK)
			check_rows("skewed join, small pool", out_rows(r.out), out_rows(ref.out), true);
		tm_gpu_table_free(&r.out);
		TM_CHECK(tm_gpu_pool_destroy(small, err, sizeof(err)) == TM_GPU_OK);
	}
	tm_gpu_table_free(&ref.out);
}

/*
 * The partitioned join inside the executor (tm_gpu_pool_set_join_algorithm): each plan runs with the
 * probe in the kernel (TM_GPU_JOIN_PIPELINED, checked against references by the tests above), then with
 * TM_GPU_JOIN_PARTITIONED and _GFUR; the rows must be the same multiset, the stats the same, and the
 * probing pipeline's stats must say that the partitioned join ran.  Plans: a FILTER before the probe, a
 * residual, every payload kind (int8, numeric, text, float8, date, bpchar; NULLs) on the probe side and
 * int4 + text on the build side; a grouped aggregate over text keys; a global aggregate whose FILTER drops
 * every probe row (one group still); a two-column key (int4, date) with duplicates on both sides and a
 * LEFT probe after it (levels shifted); a FILTER, a probe with a residual and a second probe; a FILTER
 * that drops every probe row before an EMIT; a numeric key.
 */
static void
check_partitioned(const char *what, const TmPlan &pl, std::vector<const HTable *> inputs, int probe_pipe,
				  const TmValue *params = NULL, const bool *paramnulls = NULL)
{
	int			saved = g_join_mode;
	Run			ref;

	g_join_mode = TM_GPU_JOIN_PIPELINED;
	ref = run_plan(pl, inputs, params, paramnulls);
	TM_CHECK_MSG(ref.rc == TM_GPU_OK, "%s, pipelined: rc %d: %s", what, ref.rc, ref.err);
	TM_CHECK_MSG(ref.rc != TM_GPU_OK || ref.stats[probe_pipe].join_algo == TM_GPU_JOIN_PIPELINED,
				 "%s, pipelined: join_algo %d", what, ref.stats[probe_pipe].join_algo);
	for (int mode : {TM_GPU_JOIN_PARTITIONED, TM_GPU_JOIN_PARTITIONED_GFUR})
	{
		char		w[200];
		Run			r;

		snprintf(w, sizeof(w), "%s, %s", what, mode == TM_GPU_JOIN_PARTITIONED ? "GFTR" : "GFUR");
		g_join_mode = mode;
		r = run_plan(pl, inputs, params, paramnulls);
		TM_CHECK_MSG(r.rc == TM_GPU_OK, "%s: rc %d: %s", w, r.rc, r.err);
		if (r.rc != TM_GPU_OK || ref.rc != TM_GPU_OK)
			continue;
		check_rows(w, norm_zero_nan(out_rows(r.out)), norm_zero_nan(out_rows(ref.out)), false);
		TM_CHECK_MSG(r.stats[probe_pipe].join_algo == mode && r.stats[probe_pipe].join_op >= 0,
					 "%s: pipeline %d ran join_algo %d (op %d)", w, probe_pipe, r.stats[probe_pipe].join_algo,
					 r.stats[probe_pipe].join_op);
		check_same_stats(w, r, ref, pl.npipelines);
		tm_gpu_table_free(&r.out);
	}
	if (ref.rc == TM_GPU_OK)
		tm_gpu_table_free(&ref.out);
	g_join_mode = saved;
}

/*
 * TM_GPU_JOIN_AUTO with the threshold lowered to any table (tm_gpu_set_pjoin_l2_factor): a probe whose
 * keys (a bare int4 / int8 source column) come in ascending order with repeats (as lineitem's l_orderkey,
 * a NULL here and there, a few descents) keeps the probe in the kernel; the same keys shuffled go to the
 * partitioned join.  Host and device-resident inputs; count(*) and sum(payload) against the host.  Only in
 * the AUTO modes (a forced algorithm runs as forced).
 */
static void
test_join_auto_order(void)
{
	const int64_t nb = 20000;
	const int64_t nt = 90000;

	if (g_join_mode != TM_GPU_JOIN_AUTO)
		return;
	for (int kind : {TM_K_INT4, TM_K_INT8})
		for (int shuffled = 0; shuffled < 2; shuffled++)
			for (int dev = 0; dev < 2; dev++)
			{
				HTable		B;
				HTable		T;
				std::vector<int64_t> keys((size_t) nt);
				int64_t		cnt = 0,
							sum = 0;
				char		what[160];

				B.nrows = nb;
				B.cols.push_back(col_new(kind));
				B.cols.push_back(col_new(TM_K_INT8));
				for (int64_t i = 0; i < nb; i++)
				{
					push_i(B.cols[0], 3 * i, false);
					push_i(B.cols[1], i % 1000, false);
				}
				for (int64_t r = 0; r < nt; r++)
					keys[(size_t) r] = r % 997 == 0 ? r % 5 : r / 2;	/* a few descents */
				if (shuffled)
					for (int64_t r = nt - 1; r > 0; r--)
						std::swap(keys[(size_t) r], keys[(size_t) rnd_range(0, r)]);
				T.nrows = nt;
				T.cols.push_back(col_new(kind));
				for (int64_t r = 0; r < nt; r++)
				{
					int64_t		k = keys[(size_t) r];
					bool		knull = r % 101 == 0;

					push_i(T.cols[0], k, knull);
					if (!knull && k % 3 == 0 && k / 3 < nb)
					{
						cnt++;
						sum += (k / 3) % 1000;
					}
				}

				PipeB		pb(TM_SRC_TABLE, 0);
				int			b_k = pb.slot(ty(kind), 0, 0);
				int			b_v = pb.slot(ty(TM_K_INT8), 0, 1);
				TmPipeline	build = pb.build(0, {x_slot(b_k, ty(kind))}, {x_slot(b_v, ty(TM_K_INT8))});
				PipeB		pp(TM_SRC_TABLE, 1);
				int			t_k = pp.slot(ty(kind), 0, 0);
				int			m_v = pp.slot(ty(TM_K_INT8), 1, 0);
				std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_NUMERIC, 0)};

				pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(kind))}, NULL);
				TmPlan		pl = plan({build, pp.agg(0, {}, {agg(TM_AGG_COUNT_STAR, NULL, rt[0]),
																 agg(TM_AGG_SUM, x_slot(m_v, ty(TM_K_INT8)), rt[1])})},
									  {hashtable({ty(kind)}, {ty(TM_K_INT8)})}, {result(rt)}, 0);

				tm_gpu_set_pjoin_l2_factor(1e-9);
				Run			r = run_plan(pl, {&B, &T}, NULL, NULL, NULL, dev == 1);

				tm_gpu_set_pjoin_l2_factor(0);
				snprintf(what, sizeof(what), "auto join, int%d keys %s, %s", kind == TM_K_INT8 ? 8 : 4,
						 shuffled ? "shuffled" : "in order", dev ? "device" : "host");
				CHECK_OK(r);
				check_rows(what, out_rows(r.out), {cI(cnt) + cN(sum)}, false);
				TM_CHECK_MSG(r.rc != TM_GPU_OK ||
							 r.stats[1].join_algo == (shuffled ? TM_GPU_JOIN_PARTITIONED : TM_GPU_JOIN_PIPELINED),
							 "%s: join_algo %d", what, r.stats[1].join_algo);
				tm_gpu_table_free(&r.out);
			}
}

static void
test_partitioned_join(void)
{
	HTable		T = make_T(7000, 300);
	HTable		B = make_B(1800, 300);
	HTable		U = make_T(300, 3000);	/* a second build side: few matches per key */
	TmHashTable htb = hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4), ty(TM_K_TEXT)});

	/* the build of B: k -> (w, name) */
	auto		build_b = [&](int ht) {
		PipeB		pb(TM_SRC_TABLE, 0);
		int			b_k = pb.slot(ty(TM_K_INT4), 0, B_K);
		int			b_w = pb.slot(ty(TM_K_INT4), 0, B_W);
		int			b_name = pb.slot(ty(TM_K_TEXT), 0, B_NAME);

		return pb.build(ht, {x_slot(b_k, ty(TM_K_INT4))},
						{x_slot(b_w, ty(TM_K_INT4)), x_slot(b_name, ty(TM_K_TEXT))});
	};

	/* FILTER, INNER probe with residual, EMIT of every kind */
	{
		PipeB		pp(TM_SRC_TABLE, 1);
		int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
		int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
		int			t_v = pp.slot(ty(TM_K_INT4), 0, T_V);
		int			t_num = pp.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
		int			t_txt = pp.slot(ty(TM_K_TEXT), 0, T_TXT);
		int			t_f = pp.slot(ty(TM_K_FLOAT8), 0, T_F);
		int			t_d = pp.slot(ty(TM_K_DATE), 0, T_D);
		int			t_bp = pp.slot(ty(TM_K_BPCHAR), 0, T_BP);
		int			m_w = pp.slot(ty(TM_K_INT4), 2, 0);		/* op 0 is the FILTER */
		int			m_name = pp.slot(ty(TM_K_TEXT), 2, 1);
		std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_NUMERIC, 2), ty(TM_K_TEXT), ty(TM_K_FLOAT8),
			ty(TM_K_DATE), ty(TM_K_BPCHAR), ty(TM_K_INT4), ty(TM_K_TEXT)};

		pp.filter(x_cmp_const(t_v, TM_PRED_GT, -40));
		pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(TM_K_INT4))}, x_cmp_slots(m_w, TM_PRED_LT, t_v));
		TmPlan		pl = plan({build_b(0), pp.emit(0, {x_slot(t_id, rt[0]), x_slot(t_num, rt[1]),
														   x_slot(t_txt, rt[2]), x_slot(t_f, rt[3]),
														   x_slot(t_d, rt[4]), x_slot(t_bp, rt[5]),
														   x_slot(m_w, rt[6]), x_slot(m_name, rt[7])})},
							  {htb}, {result(rt)}, 0);

		check_partitioned("partitioned: filter, residual, emit", pl, {&B, &T}, 1);
	}

	/* grouped aggregate by the build side's text; a global aggregate over no probe rows */
	for (int none = 0; none < 2; none++)
	{
		PipeB		pp(TM_SRC_TABLE, 1);
		int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
		int			t_v = pp.slot(ty(TM_K_INT4), 0, T_V);
		int			t_num = pp.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
		int			t_txt = pp.slot(ty(TM_K_TEXT), 0, T_TXT);
		int			t_d = pp.slot(ty(TM_K_DATE), 0, T_D);
		int			m_w = pp.slot(ty(TM_K_INT4), none ? 2 : 1, 0);	/* after the FILTER: op 1 */
		int			m_name = pp.slot(ty(TM_K_TEXT), none ? 2 : 1, 1);
		std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_NUMERIC, 2), ty(TM_K_TEXT), ty(TM_K_DATE), ty(TM_K_INT8)};
		std::vector<TmExpr *> keys;
		std::vector<TmType> cols;

		if (none)
			pp.filter(x_cmp_const(t_v, TM_PRED_GT, 1000));
		pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(TM_K_INT4))}, NULL);
		if (!none)
		{
			keys = {x_slot(m_name, ty(TM_K_TEXT))};
			cols = {ty(TM_K_TEXT)};
		}
		cols.insert(cols.end(), rt.begin(), rt.end());
		TmPlan		pl = plan({build_b(0),
							   pp.agg(0, keys, {agg(TM_AGG_COUNT_STAR, NULL, rt[0]),
												agg(TM_AGG_SUM, x_slot(t_num, rt[1]), rt[1]),
												agg(TM_AGG_MIN, x_slot(t_txt, rt[2]), rt[2]),
												agg(TM_AGG_MAX, x_slot(t_d, rt[3]), rt[3]),
												agg(TM_AGG_SUM, x_slot(m_w, ty(TM_K_INT4)), rt[4])})},
							  {htb}, {result(cols)}, 0);

		check_partitioned(none ? "partitioned: global aggregate, no probe rows" : "partitioned: grouped aggregate",
						  pl, {&B, &T}, 1);
	}

	/* T2 -> ht0 on (k, d % 7) -> (num);  T -> PROBE ht0 inner on (k, d % 7) -> PROBE ht1 (B) left -> EMIT */
	{
		PipeB		p2(TM_SRC_TABLE, 0);
		int			u_k = p2.slot(ty(TM_K_INT4), 0, T_K);
		int			u_d = p2.slot(ty(TM_K_DATE), 0, T_D);
		int			u_num = p2.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
		TmPipeline	b2 = p2.build(0, {x_slot(u_k, ty(TM_K_INT4)), x_mod(u_d, 7, TM_K_INT4)},
								  {x_slot(u_num, ty(TM_K_NUMERIC, 2))});
		PipeB		pp(TM_SRC_TABLE, 2);
		int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
		int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
		int			t_d = pp.slot(ty(TM_K_DATE), 0, T_D);
		int			m_num = pp.slot(ty(TM_K_NUMERIC, 2), 1, 0);
		int			b_w = pp.slot(ty(TM_K_INT4), 2, 0);
		int			b_name = pp.slot(ty(TM_K_TEXT), 2, 1);
		std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_NUMERIC, 2), ty(TM_K_INT4), ty(TM_K_TEXT)};

		pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(TM_K_INT4)), x_mod(t_d, 7, TM_K_INT4)}, NULL);
		pp.probe(TM_JOIN_LEFT, 1, {x_slot(t_k, ty(TM_K_INT4))}, x_cmp_slots(b_w, TM_PRED_GT, t_k));
		TmPlan		pl = plan({b2, build_b(1), pp.emit(0, {x_slot(t_id, rt[0]), x_slot(m_num, rt[1]),
															  x_slot(b_w, rt[2]), x_slot(b_name, rt[3])})},
							  {hashtable({ty(TM_K_INT4), ty(TM_K_INT4)}, {ty(TM_K_NUMERIC, 2)}), htb},
							  {result(rt)}, 0);

		check_partitioned("partitioned: two-column key, then a left probe", pl, {&U, &B, &T}, 2);
	}

	/*
	 * FILTER, INNER probe with a residual, then a second INNER probe (its level shifts down by k, the
	 * residual becomes a FILTER); also with a FILTER that drops every probe row (an empty EMIT)
	 */
	for (int none = 0; none < 2; none++)
	{
		PipeB		p2(TM_SRC_TABLE, 1);
		int			u_id = p2.slot(ty(TM_K_INT8), 0, T_ID);
		int			u_v = p2.slot(ty(TM_K_INT4), 0, T_V);
		TmPipeline	b2 = p2.build(1, {x_slot(u_id, ty(TM_K_INT8))}, {x_slot(u_v, ty(TM_K_INT4))});
		PipeB		pp(TM_SRC_TABLE, 2);
		int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
		int			t_k = pp.slot(ty(TM_K_INT4), 0, T_K);
		int			t_v = pp.slot(ty(TM_K_INT4), 0, T_V);
		int			m_w = pp.slot(ty(TM_K_INT4), 2, 0);		/* op 1: the first probe */
		int			m_name = pp.slot(ty(TM_K_TEXT), 2, 1);
		int			u_pv = pp.slot(ty(TM_K_INT4), 3, 0);	/* op 2: the second probe */
		std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT4), ty(TM_K_TEXT), ty(TM_K_INT4)};

		pp.filter(x_cmp_const(t_v, TM_PRED_GT, none ? 1000 : -45));
		pp.probe(TM_JOIN_INNER, 0, {x_slot(t_k, ty(TM_K_INT4))}, x_cmp_slots(m_w, TM_PRED_LT, t_v));
		pp.probe(TM_JOIN_INNER, 1, {x_slot(t_id, ty(TM_K_INT8))}, NULL);
		TmPlan		pl = plan({build_b(0), b2, pp.emit(0, {x_slot(t_id, rt[0]), x_slot(m_w, rt[1]),
															  x_slot(m_name, rt[2]), x_slot(u_pv, rt[3])})},
							  {htb, hashtable({ty(TM_K_INT8)}, {ty(TM_K_INT4)})}, {result(rt)}, 0);

		check_partitioned(none ? "partitioned: filter drops every row, emit" :
						  "partitioned: filter, residual, then a second probe", pl, {&B, &U, &T}, 2);
	}

	/* a numeric key (T joined with itself on num) */
	{
		PipeB		p2(TM_SRC_TABLE, 0);
		int			u_num = p2.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
		int			u_id = p2.slot(ty(TM_K_INT8), 0, T_ID);
		TmPipeline	b2 = p2.build(0, {x_slot(u_num, ty(TM_K_NUMERIC, 2))}, {x_slot(u_id, ty(TM_K_INT8))});
		PipeB		pp(TM_SRC_TABLE, 1);
		int			t_num = pp.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
		int			t_id = pp.slot(ty(TM_K_INT8), 0, T_ID);
		int			m_id = pp.slot(ty(TM_K_INT8), 1, 0);
		std::vector<TmType> rt = {ty(TM_K_INT8), ty(TM_K_INT8)};

		pp.probe(TM_JOIN_INNER, 0, {x_slot(t_num, ty(TM_K_NUMERIC, 2))}, NULL);
		TmPlan		pl = plan({b2, pp.emit(0, {x_slot(t_id, rt[0]), x_slot(m_id, rt[1])})},
							  {hashtable({ty(TM_K_NUMERIC, 2)}, {ty(TM_K_INT8)})}, {result(rt)}, 0);

		check_partitioned("partitioned: numeric key", pl, {&T, &T}, 1);
	}
}

/*
 * Quals that are AND / OR trees of plain comparisons run without the interpreter (DFastQual; also run
 * with the fast paths off, below main's loop, where the interpreter must pass the same rows): random
 * trees (a top-level AND of 1 to 4 conjuncts, each an AND / OR of AND / OR ... three levels deep) of
 * tests over every comparison class (int, int cross, float, numeric of two scales, text, bpchar, date
 * against timestamp), slot or constant on either side, and IN / NOT IN lists (int, text, bpchar; empty,
 * with a NULL), NULLs; sometimes with a conjunct that is not a tree of tests (its leading conjuncts are
 * the fast prefix, DFastQual.partial).  Row by row, the fast form on the host (tm_gpu_qual_fast_eval)
 * must give what the interpreter gives (tm_eval_qual: of the whole qual, or of the prefix alone built
 * from the same draws), and on the GPU the rows that pass must be those the interpreter passes.  Without
 * a GPU, the host part runs alone.  (test_joins' residual b.w < t.v is one too.)
 */
static void
fq_operand(int slot, const HCol *c, int64_t r, TmValue *v, bool *null)
{
	(void) slot;
	memset(v, 0, sizeof(*v));
	*null = c->nul[r] != 0;
	if (*null)
		return;
	switch (c->kind)
	{
		case TM_K_FLOAT8:
			v->f = c->f[r];
			break;
		case TM_K_NUMERIC:
			v->n = c->n[r];
			break;
		case TM_K_TEXT:
		case TM_K_BPCHAR:
			v->s.p = c->s[r].data();
			v->s.len = (int32_t) c->s[r].size();
			break;
		default:
			v->i = c->i[r];
			break;
	}
}

struct FqSlots
{
	int			id, v, big, num, txt, f, d, bp, g;
};

static int	g_fq_like_tests = 0;	/* LIKE tests fq_gen_test made */

/* LIKE patterns of literals and '%' (DFastCmp's FQ_PRED_LIKE) */
static const char *const fq_like_pats[] = {"%", "", "%%", "a%", "%a", "%b%", "ab%c", "%e%l%", "hello", "%lo%",
	"%z%a%", "a%b%c%", "%\xce\xa9%", "\xce\xa9%a", "%o%o%", "abc%%", "%123%789", "longer%", "%0123456789",
	"%e", "Z%a", "x", "x%", "%y", "y  ", "%z%z%", "%lz%", "%ob%", "%ab%", "%va%", "%eb%r%", "a%a", "ab%b",
	"x%x", "%zz%z", "%ll%o", "hel%lo", "%xt v%", "%\xa9m%"};
#define NLIKEPATS ((int) (sizeof(fq_like_pats) / sizeof(fq_like_pats[0])))

/* one random plain test */
static void
fq_gen_test(const FqSlots &s)
{
	static const char *const bps[] = {"x", "y ", "zz", "a"};
	int			kind = (int) (rnd() % 10);
	int			pred = (int) (rnd() % 6);
	bool		swap = chance(0.3);
	bool		cmp = true;
	int			cls = TM_CMP_INT,
				sl = 0,
				sr = 0;

	/* left, right: (slot, constant) or two slots; swap: the constant first */
	switch (kind)
	{
		case 0:					/* int4 against a constant */
			if (swap) p_int(rnd_range(-50, 50));
			p_slot(s.v);
			if (!swap) p_int(rnd_range(-50, 50));
			break;
		case 1:					/* int4 against int4, int cross int8 */
			p_slot(s.v);
			p_slot(chance(0.5) ? s.g : s.big);
			break;
		case 2:					/* float8 */
			{
				TmValue		v;

				memset(&v, 0, sizeof(v));
				v.f = (double) rnd_range(-100, 100) + 0.5 * (double) (rnd() % 2);
				A.consts[A.nc] = v;
				if (swap) a_op(TMI_PUSH_CONST, 0, A.nc, 0, 0);
				p_slot(s.f);
				if (!swap) a_op(TMI_PUSH_CONST, 0, A.nc, 0, 0);
				A.nc++;
				cls = TM_CMP_FLOAT;
			}
			break;
		case 3:					/* numeric(2) against a numeric constant of scale 0..3 */
			{
				TmValue		v;
				int			sc = (int) (rnd() % 4);

				memset(&v, 0, sizeof(v));
				v.n = (tm_int128) rnd_range(-INT64_C(1000000000000000000), INT64_C(1000000000000000000)) * 300;
				A.consts[A.nc] = v;
				if (swap) a_op(TMI_PUSH_CONST, 0, A.nc, 0, 0);
				p_slot(s.num);
				if (!swap) a_op(TMI_PUSH_CONST, 0, A.nc, 0, 0);
				A.nc++;
				cls = TM_CMP_NUMERIC;
				sl = swap ? sc : 2;
				sr = swap ? 2 : sc;
			}
			break;
		case 4:					/* text */
			if (swap) p_text(words[rnd() % NWORDS]);
			p_slot(s.txt);
			if (!swap) p_text(words[rnd() % NWORDS]);
			cls = TM_CMP_TEXT;
			break;
		case 5:					/* bpchar (trailing blanks do not count) */
			if (swap) p_text(bps[rnd() % 4]);
			p_slot(s.bp);
			if (!swap) p_text(bps[rnd() % 4]);
			cls = TM_CMP_BPCHAR;
			break;
		case 6:					/* date against a timestamp constant, and the other way round */
			{
				TmValue		v;

				memset(&v, 0, sizeof(v));
				v.i = rnd_range(-3000, 9000) * INT64_C(86400000000) + (chance(0.5) ? 0 : INT64_C(3600000000));
				A.consts[A.nc] = v;
				if (swap) a_op(TMI_PUSH_CONST, 0, A.nc, 0, 0);
				p_slot(s.d);
				if (!swap) a_op(TMI_PUSH_CONST, 0, A.nc, 0, 0);
				A.nc++;
				cls = swap ? TM_CMP_TS_DATE : TM_CMP_DATE_TS;
			}
			break;
		case 8:					/* int4, text or bpchar IN / NOT IN a sorted list of 0 to 4 constants (a NULL in it) */
			{
				int			which = (int) (rnd() % 3);
				int			cnt = (int) (rnd() % 5);
				int			first = A.nc;
				std::vector<TmValue> ks;

				cls = which == 0 ? TM_CMP_INT : which == 1 ? TM_CMP_TEXT : TM_CMP_BPCHAR;
				for (int k = 0; k < cnt; k++)
				{
					TmValue		v;

					memset(&v, 0, sizeof(v));
					if (which == 0)
						v.i = rnd_range(-50, 50);
					else
					{
						const char *w = which == 1 ? words[rnd() % NWORDS] : bps[rnd() % 4];

						v.s.p = A.pool + A.plen;	/* a pointer while sorting, an offset after */
						v.s.len = (int32_t) strlen(w);
						memcpy(A.pool + A.plen, w, strlen(w));
						A.plen += (int) strlen(w);
					}
					ks.push_back(v);
				}
				std::sort(ks.begin(), ks.end(), [cls](const TmValue &x, const TmValue &y) {
					return tm_cmp_class(cls, &x, &y, 0, 0) < 0;
				});
				for (TmValue v : ks)
				{
					if (which != 0)
						v.s.p = (const char *) (intptr_t) (v.s.p - A.pool);
					A.consts[A.nc++] = v;
				}
				p_slot(which == 0 ? s.v : which == 1 ? s.txt : s.bp);
				a_op(TMI_IN, cls, first, cnt, (chance(0.5) ? TMF_IN_NEGATE : 0) | (chance(0.3) ? TMF_IN_HASNULL : 0));
				cmp = false;
			}
			break;
		case 9:					/* text or bpchar (as text: without its blanks, or with them) [NOT] LIKE a pattern of
								 * literals and '%' */
			{
				int			which = (int) (rnd() % 3);

				p_slot(which == 0 ? s.txt : s.bp);
				if (which == 1)
					a_op(TMI_BPCHAR_RTRIM, 0, 0, 0, 0);
				p_text(fq_like_pats[rnd() % (NLIKEPATS - 1)]);	/* not the last, not UTF8 */
				a_op(TMI_LIKE, (chance(0.5) ? TMF_NEGATE : 0) | TMF_UTF8, 0, 0, 0);
				g_fq_like_tests++;
				cmp = false;
			}
			break;
		default:				/* date against int8 (an int cross), slot against itself */
			p_slot(s.d);
			p_slot(chance(0.5) ? s.d : s.v);
			break;
	}
	if (cmp)
		a_op(TMI_CMP, cls, pred, sl, sr);
}

/* a random AND / OR tree of tests, up to `depth` levels of AND / OR; *ntests counts the tests */
static void
fq_gen_tree(const FqSlots &s, int depth, int *ntests)
{
	bool		is_and;
	int			nargs,
				jumps[3],
				nj = 0;

	if (depth == 0 || *ntests >= 14 || chance(0.4))
	{
		fq_gen_test(s);
		(*ntests)++;
		return;
	}
	is_and = chance(0.5);
	nargs = 2 + (int) (rnd() % 2);
	for (int i = 0; i < nargs; i++)
	{
		if (i > 0)
			jumps[nj++] = a_op(is_and ? TMI_JUMP_IF_FALSE : TMI_JUMP_IF_TRUE, 0, -1, 0, 0);
		fq_gen_tree(s, depth - 1, ntests);
		if (i > 0)
			a_op(is_and ? TMI_AND : TMI_OR, 0, 0, 0, 0);
	}
	while (nj > 0)
		patch(jumps[--nj]);
}

/*
 * A random qual: a top-level AND of ncon trees, with (tailpos >= 0) a conjunct that is not one before
 * tree tailpos (tailpos == ncon: last), (v % 3 = 1 OR g > 5); prefix_only: the conjuncts before it only.
 * The random draws start from *seed (the same qual twice, whole and prefix).
 */
static TmExpr *
fq_gen_qual(const FqSlots &s, uint64_t seed, int ncon, int tailpos, bool prefix_only, int *ntests)
{
	int			jumps[8],
				nj = 0,
				total = ncon + (tailpos >= 0 ? 1 : 0);
	uint64_t	saved = rng;
	TmExpr	   *q;

	rng = seed;
	a_init();
	*ntests = 0;
	for (int i = 0; i < total; i++)
	{
		if (prefix_only && i == tailpos)
			break;
		if (i > 0)
			jumps[nj++] = a_op(TMI_QJUMP_IF_FALSE, 0, -1, 0, 0);
		if (i == tailpos)
		{
			int			j;

			p_slot(s.v);
			p_int(3);
			a_op(TMI_MOD, TM_K_INT4, 0, 0, 0);
			p_int(1);
			a_op(TMI_CMP, TM_CMP_INT, TM_PRED_EQ, 0, 0);
			j = a_op(TMI_JUMP_IF_TRUE, 0, -1, 0, 0);
			p_slot(s.g);
			p_int(5);
			a_op(TMI_CMP, TM_CMP_INT, TM_PRED_GT, 0, 0);
			a_op(TMI_OR, 0, 0, 0, 0);
			patch(j);
		}
		else
			fq_gen_tree(s, 3, ntests);
		if (i > 0)
			a_op(TMI_AND, 0, 0, 0, 0);
	}
	while (nj > 0)
		patch(jumps[--nj]);
	q = a_build(ty(TM_K_BOOL));
	rng = saved;
	return q;
}

/*
 * The sources of kernels generated per pipeline (tm_gpu_jit_source, cuda/tm_jit.h), on the host: TPC-H Q1's
 * shape (a date filter, two group keys, counts, sums and min / max of columns and of numeric arithmetic)
 * compiles with NVRTC, its tests and its arithmetic written out; so do inner, semi and anti joins with
 * residuals and an aggregate FILTER; the shapes it does not run (a left join, an EMIT, DISTINCT, a FILTER
 * or a key the interpreter computes) have no source, and say why
 */
static int	g_jit_compiles = 0;	/* generated sources compiled on the host (100: no NVRTC) */

static void
test_jit_sources(void)
{
	static const int fmts[T_NCOLS] = {TM_K_INT8, TM_K_INT4, TM_K_INT4, TM_K_INT8, TM_K_NUMERIC,
		TM_K_TEXT, TM_K_INT4, TM_K_FLOAT8, TM_K_DATE, TM_K_BPCHAR};
	PipeB		p(TM_SRC_TABLE, 0);
	int			s_v = p.slot(ty(TM_K_INT4), 0, T_V);
	int			s_big = p.slot(ty(TM_K_INT8), 0, T_BIG);
	int			s_num = p.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
	int			s_bp = p.slot(ty(TM_K_BPCHAR), 0, T_BP);
	int			s_g = p.slot(ty(TM_K_INT4), 0, T_G);
	int			s_d = p.slot(ty(TM_K_DATE), 0, T_D);
	std::vector<TmAgg> aggs;
	std::vector<TmType> rt = {ty(TM_K_BPCHAR), ty(TM_K_INT4)};
	char	   *src = NULL;
	char		why[4096];
	double		ms = 0;
	int			rc;

	p.filter(x_cmp_const(s_d, TM_PRED_LE, 8000));
	aggs.push_back(agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)));
	aggs.push_back(agg(TM_AGG_SUM, x_slot(s_num, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 2)));
	a_init();					/* num * (1 - num): scales 2, 0 - 2 -> 2, 2 * 2 -> 4 */
	p_slot(s_num);
	p_numk(1);
	p_slot(s_num);
	a_op(TMI_SUB, TM_K_NUMERIC, 0, 2, 0);
	a_op(TMI_MUL, TM_K_NUMERIC, 2, 2, 0);
	aggs.push_back(agg(TM_AGG_SUM, a_build(ty(TM_K_NUMERIC, 4)), ty(TM_K_NUMERIC, 4)));
	aggs.push_back(agg(TM_AGG_MIN, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT4)));
	aggs.push_back(agg(TM_AGG_MAX, x_slot(s_big, ty(TM_K_INT8)), ty(TM_K_INT8)));
	aggs.push_back(agg(TM_AGG_COUNT, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8)));
	aggs.push_back(agg(TM_AGG_SUM, x_slot(s_v, ty(TM_K_INT4)), ty(TM_K_INT8)));
	for (const TmAgg &a : aggs)
		rt.push_back(a.restype);
	{
		PipeB		pa = p;
		TmPlan		pl = plan({pa.agg(0, {x_slot(s_bp, ty(TM_K_BPCHAR)), x_slot(s_g, ty(TM_K_INT4))}, aggs)}, {},
							  {result(rt)}, 0);

		TM_CHECK_MSG(tm_gpu_jit_source(&pl, 0, fmts, T_NCOLS, &src, why, sizeof(why)), "Q1's shape: %s", why);
		if (src != NULL)
		{
			TM_CHECK(strstr(src, "tm_arith_addsubmul") != NULL);	/* the arithmetic written out */
			TM_CHECK(strstr(src, "fq_test_ab") == NULL);	/* the date test inline */
			TM_CHECK(strstr(src, "priv_warp_combine") != NULL && strstr(src, "agg_apply") != NULL);
			rc = tm_jit_compile_check(src, 90, &ms, why, sizeof(why));
			if (rc < 0)
				g_jit_compiles = 100;
			else
			{
				TM_CHECK_MSG(rc == 1, "Q1's shape does not compile: %s\n%s", why, src);
				printf("  Q1's shape: %zu bytes of source, compiled in %.0f ms\n", strlen(src), ms);
				if (getenv("TM_JIT_SHOW") != NULL)
					fputs(src, stdout);
			}
			free(src);
		}
	}

	/* what has no generated kernel */
	{
		std::vector<TmAgg> bad = aggs;
		PipeB		pa = p;

		bad[6].distinct = true;
		TmPlan		pl = plan({pa.agg(0, {}, bad)}, {}, {result(rt)}, 0);

		TM_CHECK(!tm_gpu_jit_source(&pl, 0, fmts, T_NCOLS, &src, why, sizeof(why)) && strstr(why, "DISTINCT") != NULL);
	}
	{
		std::vector<TmAgg> bad = aggs;
		PipeB		pa = p;

		bad[1].filter = x_mod_cmp(s_v, 3, TM_K_INT4, TM_PRED_EQ, 1);	/* not a tree of plain tests */
		TmPlan		pl = plan({pa.agg(0, {}, bad)}, {}, {result(rt)}, 0);

		TM_CHECK(!tm_gpu_jit_source(&pl, 0, fmts, T_NCOLS, &src, why, sizeof(why)) && strstr(why, "FILTER") != NULL);
	}
	{
		PipeB		pa = p;
		TmPlan		pl = plan({pa.agg(0, {x_mod(s_v, 7, TM_K_INT4)}, aggs)}, {}, {result(rt)}, 0);

		TM_CHECK(!tm_gpu_jit_source(&pl, 0, fmts, T_NCOLS, &src, why, sizeof(why)) && strstr(why, "key") != NULL);
	}
	{
		PipeB		pa = p;
		TmPlan		pl = plan({pa.emit(0, {x_slot(s_v, ty(TM_K_INT4))})}, {}, {result({ty(TM_K_INT4)})}, 0);

		TM_CHECK(!tm_gpu_jit_source(&pl, 0, fmts, T_NCOLS, &src, why, sizeof(why)) && strstr(why, "aggregate") != NULL);
	}
	{
		PipeB		pa = p;

		pa.probe(TM_JOIN_LEFT, 0, {x_slot(s_v, ty(TM_K_INT4))}, NULL);
		TmPlan		pl = plan({pa.agg(0, {}, aggs)}, {hashtable({ty(TM_K_INT4)}, {})}, {result(rt)}, 0);

		TM_CHECK(!tm_gpu_jit_source(&pl, 0, fmts, T_NCOLS, &src, why, sizeof(why)) && strstr(why, "left join") != NULL);
	}

	/*
	 * joins: an inner probe whose payload is a group key and an aggregate's argument, its residual a test
	 * of a payload column; a semi and an anti probe; an aggregate FILTER (a tree of tests) - written out
	 * as nested loops, and they compile
	 */
	{
		PipeB		pa = p;
		/* levels: op k's payload is level k + 1, and op 0 is the date filter */
		int			s_p1 = pa.slot(ty(TM_K_INT4), 2, 0);
		int			s_p2 = pa.slot(ty(TM_K_NUMERIC, 2), 2, 1);
		int			s_q = pa.slot(ty(TM_K_INT4), 3, 0);
		std::vector<TmAgg> ja = aggs;

		pa.probe(TM_JOIN_INNER, 0, {x_slot(s_v, ty(TM_K_INT4))}, x_cmp_const(s_p1, TM_PRED_NE, 3));
		pa.probe(TM_JOIN_SEMI, 1, {x_slot(s_g, ty(TM_K_INT4))}, x_cmp_slots(s_q, TM_PRED_LT, s_v));
		pa.probe(TM_JOIN_ANTI, 0, {x_slot(s_p1, ty(TM_K_INT4))}, NULL);
		ja.push_back(agg(TM_AGG_SUM, x_slot(s_p2, ty(TM_K_NUMERIC, 2)), ty(TM_K_NUMERIC, 2),
						 x_cmp_const(s_v, TM_PRED_GT, 0)));
		rt.push_back(ty(TM_K_NUMERIC, 2));
		TmPlan		pl = plan({pa.agg(0, {x_slot(s_p1, ty(TM_K_INT4))}, ja)},
							  {hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4), ty(TM_K_NUMERIC, 2)}),
							   hashtable({ty(TM_K_INT4)}, {ty(TM_K_INT4)})}, {result(rt)}, 0);

		rt.pop_back();
		TM_CHECK_MSG(tm_gpu_jit_source(&pl, 0, fmts, T_NCOLS, &src, why, sizeof(why)), "joins: %s", why);
		if (src != NULL)
		{
			TM_CHECK(strstr(src, "join_lookup") != NULL && strstr(src, "found") != NULL);
			TM_CHECK(strstr(src, "pay1_0[r1]") != NULL && strstr(src, "pay2_0[r2]") != NULL);	/* payloads filled */
			rc = g_jit_compiles >= 100 ? -1 : tm_jit_compile_check(src, 90, &ms, why, sizeof(why));
			if (rc >= 0)
			{
				TM_CHECK_MSG(rc == 1, "the joins do not compile: %s\n%s", why, src);
				printf("  joins: %zu bytes of source, compiled in %.0f ms\n", strlen(src), ms);
				if (getenv("TM_JIT_SHOW") != NULL)
					fputs(src, stdout);
			}
			free(src);
		}
	}
}

static bool g_have_gpu = true;	/* false: test_fast_quals and test_fast_normalize run their host parts only */

static void
test_fast_quals(void)
{
	HTable		T = make_T(20000, 300);

	/* (under g_jit: 25 trials, each a kernel to compile, about a second each) */
	for (int trial = 0; trial < (g_jit ? 25 : 100); trial++)
	{
		PipeB		p(TM_SRC_TABLE, 0);
		FqSlots		s;
		int			slotcol[16];
		int			ncon = 1 + (int) (rnd() % 4);
		int			tailpos = chance(0.3) ? (int) (rnd() % (uint64_t) (ncon + 1)) : -1;
		uint64_t	seed = rnd() | 1;
		int			ntests,
					npre,
					bad = 0;
		TmExpr	   *q,
				   *qpre = NULL;
		std::vector<std::string> exp;
		char		what[96];

		s.id = p.slot(ty(TM_K_INT8), 0, T_ID);
		s.v = p.slot(ty(TM_K_INT4), 0, T_V);
		s.big = p.slot(ty(TM_K_INT8), 0, T_BIG);
		s.num = p.slot(ty(TM_K_NUMERIC, 2), 0, T_NUM);
		s.txt = p.slot(ty(TM_K_TEXT), 0, T_TXT);
		s.f = p.slot(ty(TM_K_FLOAT8), 0, T_F);
		s.d = p.slot(ty(TM_K_DATE), 0, T_D);
		s.bp = p.slot(ty(TM_K_BPCHAR), 0, T_BP);
		s.g = p.slot(ty(TM_K_INT4), 0, T_G);
		slotcol[s.id] = T_ID;
		slotcol[s.v] = T_V;
		slotcol[s.big] = T_BIG;
		slotcol[s.num] = T_NUM;
		slotcol[s.txt] = T_TXT;
		slotcol[s.f] = T_F;
		slotcol[s.d] = T_D;
		slotcol[s.bp] = T_BP;
		slotcol[s.g] = T_G;
		q = fq_gen_qual(s, seed, ncon, tailpos, false, &ntests);
		if (tailpos > 0)
			qpre = fq_gen_qual(s, seed, ncon, tailpos, true, &npre);
		snprintf(what, sizeof(what), "fast qual, trial %d (%d conjuncts, %d tests, tail %d)", trial, ncon, ntests,
				 tailpos);
		TM_CHECK_MSG(tm_gpu_qual_is_fast(q) == (tailpos < 0 ? 1 : 0), "%s: not taken as a tree of tests", what);

		/* the interpreter and the fast form, on the host */
		for (int64_t r = 0; r < T.nrows; r++)
		{
			TmValue		vals[16];
			bool		nulls[16];
			bool		pass = false,
						fpass = false,
						ppass = false;
			int			how;

			memset(vals, 0, sizeof(vals));
			memset(nulls, 1, sizeof(nulls));
			for (int sl = 0; sl <= s.g; sl++)
				fq_operand(sl, &T.cols[slotcol[sl]], r, &vals[sl], &nulls[sl]);
			if (tm_eval_qual(q, vals, nulls, &pass) != TM_OK)
				TM_CHECK_MSG(false, "%s: the interpreter failed", what);
			if (pass)
				exp.push_back(cell(T.cols[T_ID], r));
			how = tm_gpu_qual_fast_eval(q, vals, nulls, &fpass);
			if (how != (tailpos < 0 ? 1 : tailpos == 0 ? 0 : 2))
			{
				TM_CHECK_MSG(false, "%s: fast form %d", what, how);
				break;
			}
			if (how == 2)
			{
				if (tm_eval_qual(qpre, vals, nulls, &ppass) != TM_OK)
					TM_CHECK_MSG(false, "%s: the interpreter failed on the prefix", what);
				if (fpass != ppass || (pass && !fpass))
					bad++;
			}
			else if (how == 1 && fpass != pass)
				bad++;
		}
		TM_CHECK_MSG(bad == 0, "%s: the fast form differs from the interpreter on %d rows", what, bad);
		p.filter(q);

		/*
		 * the kernel generated for these rows' count and id sum behind the qual (themis.gpu_jit): on the
		 * host, its source compiles (NVRTC, sm_90; the first trials whose qual is a whole tree, since each
		 * compile takes a second); under g_jit on the GPU, it runs and counts what the interpreter passes
		 */
		{
			PipeB		pa = p;
			TmPlan		pl = plan({pa.agg(0, {}, {agg(TM_AGG_COUNT_STAR, NULL, ty(TM_K_INT8)),
											  agg(TM_AGG_SUM, x_slot(s.id, ty(TM_K_INT8)), ty(TM_K_NUMERIC, 0))})},
								  {}, {result({ty(TM_K_INT8), ty(TM_K_NUMERIC, 0)})}, 0, {});
			tm_int128	idsum = 0;

			for (const std::string &id : exp)
				idsum += (tm_int128) strtoll(id.c_str(), NULL, 10);
			if (tailpos < 0 && g_jit_compiles < 6 && !g_jit)
			{
				static const int fmts[T_NCOLS] = {TM_K_INT8, TM_K_INT4, TM_K_INT4, TM_K_INT8, TM_K_NUMERIC,
					TM_K_TEXT, TM_K_INT4, TM_K_FLOAT8, TM_K_DATE, TM_K_BPCHAR};
				char	   *src = NULL;
				char		why[2048];
				double		ms = 0;
				int			rc;

				TM_CHECK_MSG(tm_gpu_jit_source(&pl, 0, fmts, T_NCOLS, &src, why, sizeof(why)), "%s: no source: %s",
							 what, why);
				rc = src != NULL ? tm_jit_compile_check(src, 90, &ms, why, sizeof(why)) : 0;
				if (rc < 0)
					g_jit_compiles = 100;	/* no NVRTC here: said once, in main */
				else
					TM_CHECK_MSG(rc == 1, "%s: the generated source does not compile: %s\n%s", what, why,
								 src != NULL ? src : "");
				g_jit_compiles++;
				free(src);
			}
			if (g_have_gpu && (g_jit || trial % 10 == 0))
			{
				Run			run = run_plan(pl, {&T});

				CHECK_OK(run);
				check_rows(what, out_rows(run.out), {cI((int64_t) exp.size()) + (exp.empty() ? cNULL : cN(idsum))},
						   false);
				if (g_jit && run.rc == TM_GPU_OK && run.stats[0].jit != TM_JIT_UNAVAILABLE)
					TM_CHECK_MSG((run.stats[0].jit == TM_JIT_RAN) == (tailpos < 0), "%s: generated kernel state %d",
								 what, run.stats[0].jit);
				tm_gpu_table_free(&run.out);
			}
		}
		if (!g_have_gpu || g_jit)
			continue;
		{
			/* (result() of a copy of a one-element vector: a false -Warray-bounds of g++ 13) */
			TmPlan		pl = plan({p.emit(0, {x_slot(s.id, ty(TM_K_INT8))})}, {}, {result({ty(TM_K_INT8)})}, 0, {});
			Run			run = run_plan(pl, {&T});

			CHECK_OK(run);
			check_rows(what, out_rows(run.out), exp, true);
			/* a whole tree of tests over source columns runs in the prefilter (pipeline_kernel only) */
			if (g_lb_mode == TM_GPU_LB_NONE)
				TM_CHECK_MSG((run.stats[0].prefilter_passes > 0) == (g_fast_paths && tailpos < 0),
							 "%s: %lld passes with the prefilter", what, (long long) run.stats[0].prefilter_passes);
			tm_gpu_table_free(&run.out);
		}
	}

	/* not trees of tests: interpreted */
	TM_CHECK_INT_EQ(tm_gpu_qual_is_fast(x_mod_cmp(0, 3, TM_K_INT4, TM_PRED_EQ, 1)), 0);
	a_init();					/* a list test of an expression, not of a slot */
	p_slot(0);
	p_int(3);
	a_op(TMI_MOD, TM_K_INT4, 0, 0, 0);
	A.consts[A.nc].i = 1;		/* the list: { 1 } */
	a_op(TMI_IN, TM_CMP_INT, A.nc++, 1, 0);
	TM_CHECK_INT_EQ(tm_gpu_qual_is_fast(a_build(ty(TM_K_BOOL))), 0);
	a_init();
	p_slot(0);
	p_slot(1);
	a_op(TMI_CMP, TM_CMP_INT | TMF_DISTINCT, TM_PRED_EQ, 0, 0);
	TM_CHECK_INT_EQ(tm_gpu_qual_is_fast(a_build(ty(TM_K_BOOL))), 0);
	a_init();					/* NOT (v = 1 OR g = 2): NOT is not monotone */
	p_slot(0);
	p_int(1);
	a_op(TMI_CMP, TM_CMP_INT, TM_PRED_EQ, 0, 0);
	{
		int			j = a_op(TMI_JUMP_IF_TRUE, 0, -1, 0, 0);

		p_slot(1);
		p_int(2);
		a_op(TMI_CMP, TM_CMP_INT, TM_PRED_EQ, 0, 0);
		a_op(TMI_OR, 0, 0, 0, 0);
		patch(j);
	}
	a_op(TMI_NOT, 0, 0, 0, 0);
	TM_CHECK_INT_EQ(tm_gpu_qual_is_fast(a_build(ty(TM_K_BOOL))), 0);

	/* more tests than a DFastQual holds: an OR is interpreted, a top-level AND's first 32 run fast */
	for (int and_ = 0; and_ < 2; and_++)
	{
		int			jumps[40],
					nj = 0;
		TmValue		vals[2];
		bool		nulls[2] = {false, false},
					pass = false;
		TmExpr	   *q;

		a_init();
		for (int i = 0; i < 40; i++)
		{
			if (i > 0)
				jumps[nj++] = a_op(and_ ? TMI_QJUMP_IF_FALSE : TMI_JUMP_IF_TRUE, 0, -1, 0, 0);
			p_slot(0);
			p_int(i);
			a_op(TMI_CMP, TM_CMP_INT, and_ ? TM_PRED_NE : TM_PRED_EQ, 0, 0);
			if (i > 0)
				a_op(and_ ? TMI_AND : TMI_OR, 0, 0, 0, 0);
		}
		while (nj > 0)
			patch(jumps[--nj]);
		q = a_build(ty(TM_K_BOOL));
		memset(vals, 0, sizeof(vals));
		vals[0].i = 35;			/* fails conjunct 35, after the first 32 */
		TM_CHECK_INT_EQ(tm_gpu_qual_is_fast(q), 0);
		TM_CHECK_INT_EQ(tm_gpu_qual_fast_eval(q, vals, nulls, &pass), and_ ? 2 : 0);
		if (and_)
		{
			TM_CHECK(pass);		/* the prefix holds; the interpreter rejects the row */
			vals[0].i = 7;
			TM_CHECK_INT_EQ(tm_gpu_qual_fast_eval(q, vals, nulls, &pass), 2);
			TM_CHECK(!pass);
		}
	}
	TM_CHECK_MSG(g_fq_like_tests >= 10, "only %d LIKE tests made", g_fq_like_tests);

	/* every LIKE pattern against every text value (words, and bpchar values with or without their
	 * blanks), LIKE and NOT LIKE, and NULL: the fast test against the interpreter */
	for (int pt = 0; pt < NLIKEPATS; pt++)
		for (int neg = 0; neg < 2; neg++)
			for (int rtrim = 0; rtrim < 2; rtrim++)
			{
				static const char *const bps[] = {"x", "x  ", "y ", "y", "zz", "  ", "hello  "};
				TmExpr	   *q;

				a_init();
				p_slot(0);
				if (rtrim)
					a_op(TMI_BPCHAR_RTRIM, 0, 0, 0, 0);
				p_text(fq_like_pats[pt]);
				a_op(TMI_LIKE, (neg ? TMF_NEGATE : 0) | TMF_UTF8, 0, 0, 0);
				q = a_build(ty(TM_K_BOOL));
				if (pt == NLIKEPATS - 1)
				{
					/* not UTF8 (a continuation byte after the '%'): the interpreter's */
					TM_CHECK_INT_EQ(tm_gpu_qual_is_fast(q), 0);
					continue;
				}
				TM_CHECK_INT_EQ(tm_gpu_qual_is_fast(q), 1);
				for (int w = -1; w < NWORDS + 7; w++)
				{
					TmValue		vals[1];
					bool		nulls[1] = {w < 0};
					const char *t = w < 0 ? "" : w < NWORDS ? words[w] : bps[w - NWORDS];
					bool		pass = false,
								fpass = true;

					memset(vals, 0, sizeof(vals));
					vals[0].s.p = t;
					vals[0].s.len = (int32_t) strlen(t);
					TM_CHECK(tm_eval_qual(q, vals, nulls, &pass) == TM_OK);
					TM_CHECK_INT_EQ(tm_gpu_qual_fast_eval(q, vals, nulls, &fpass), 1);
					TM_CHECK_MSG(pass == fpass, "'%s' %sLIKE '%s'%s: interpreter %d, fast %d", t, neg ? "NOT " : "",
								 fq_like_pats[pt], rtrim ? " (rtrim)" : "", pass, fpass);
				}
			}
	{
		/* '_' and the escape take the interpreter */
		static const char *const slow[] = {"a_c", "%\\%%", "_"};

		for (int i = 0; i < 3; i++)
		{
			a_init();
			p_slot(0);
			p_text(slow[i]);
			a_op(TMI_LIKE, TMF_UTF8, 0, 0, 0);
			TM_CHECK_INT_EQ(tm_gpu_qual_is_fast(a_build(ty(TM_K_BOOL))), 0);
		}
	}
}

/*
 * fast_test_normalize (cuda/tm_gpu_exec.cu): a test of a slot against a constant is compiled to a
 * comparison of the slot's own values (a numeric constant at the slot's scale, a date against a timestamp
 * constant as dates, a timestamp against a date constant as timestamps; the constant on the right).  Each
 * predicate, the constant on either side, constants at, between and around the slot's values and at the
 * ends of the ranges (infinite dates and timestamps, dates past the timestamp range, numerics past 128
 * bits at the slot's scale), slot values around them and NULLs: the fast form on the host against the
 * interpreter, then on the GPU the rows the interpreter passes (the prefilter runs them there).  And the
 * prefilter with a parameter (NULL: no prefilter, no row) and before a leading filter it cannot run.
 */
enum { N_ID, N_NUM, N_D, N_TS, N_NCOLS };

static void
normalize_case(const HTable &T, PipeB &p, const int *slotcol, TmExpr *q, const char *what, int *ncases)
{
	std::vector<std::string> exp;
	int			bad = 0;

	(*ncases)++;
	TM_CHECK_MSG(tm_gpu_qual_is_fast(q) == 1, "%s: not taken as a tree of tests", what);
	for (int64_t r = 0; r < T.nrows; r++)
	{
		TmValue		vals[4];
		bool		nulls[4];
		bool		pass = false,
					fpass = false;

		for (int sl = 0; sl < 4; sl++)
			fq_operand(sl, &T.cols[slotcol[sl]], r, &vals[sl], &nulls[sl]);
		if (tm_eval_qual(q, vals, nulls, &pass) != TM_OK)
			TM_CHECK_MSG(false, "%s: the interpreter failed", what);
		if (pass)
			exp.push_back(cell(T.cols[N_ID], r));
		if (tm_gpu_qual_fast_eval(q, vals, nulls, &fpass) != 1 || fpass != pass)
			bad++;
	}
	TM_CHECK_MSG(bad == 0, "%s: the fast form differs from the interpreter on %d rows", what, bad);
	if (!g_have_gpu)
		return;
	{
		PipeB		p2 = p;

		p2.filter(q);
		TmPlan		pl = plan({p2.emit(0, {x_slot(0, ty(TM_K_INT8))})}, {}, {result({ty(TM_K_INT8)})}, 0, {});
		Run			run = run_plan(pl, {&T});

		CHECK_OK(run);
		check_rows(what, out_rows(run.out), exp, true);
		if (g_lb_mode == TM_GPU_LB_NONE)
			TM_CHECK_MSG((run.stats[0].prefilter_passes > 0) == g_fast_paths, "%s: %lld passes with the prefilter",
						 what, (long long) run.stats[0].prefilter_passes);
		tm_gpu_table_free(&run.out);
	}
}

/* slot `slot` against the constant v (swap: v on the left), class cls, scales of the left and right operand */
static TmExpr *
normalize_qual(int slot, TmValue v, bool swap, int cls, int pred, int sl, int sr)
{
	a_init();
	if (swap)
		p_const(v);
	p_slot(slot);
	if (!swap)
		p_const(v);
	a_op(TMI_CMP, cls, pred, sl, sr);
	return a_build(ty(TM_K_BOOL));
}

static void
test_fast_normalize(void)
{
	const int64_t U = INT64_C(86400000000);
	const int64_t E = 109203528 - 2451545;	/* days of the timestamp range (TM_TIMESTAMP_END_JULIAN) */
	std::vector<tm_int128> nums;
	std::vector<int64_t> dates,
				tss;
	HTable		T;
	PipeB		p(TM_SRC_TABLE, 0);
	int			slotcol[4] = {N_ID, N_NUM, N_D, N_TS};
	int			ncases = 0;
	char		what[128];

	for (int v = -1300; v <= 1300; v++)
		nums.push_back(v);		/* -13.00 .. 13.00 at scale 2 */
	nums.push_back((tm_int128) 1 << 126);
	nums.push_back(-((tm_int128) 1 << 126));
	for (int64_t pivot : {INT64_C(0), INT64_C(100), INT64_C(-800)})
		for (int64_t d = -3; d <= 3; d++)
		{
			dates.push_back(pivot + d);
			for (int64_t t : {-U, INT64_C(-1), INT64_C(0), INT64_C(1), INT64_C(3600000000)})
				tss.push_back((pivot + d) * U + t);
		}
	for (int64_t d : {(int64_t) INT32_MIN, (int64_t) INT32_MAX, E - 2, E - 1, E, E + 1, INT64_C(2000000000),
					  INT64_C(-2451545)})
		dates.push_back(d);
	for (int64_t t : {INT64_MIN, INT64_MAX, (E - 1) * U, (E - 1) * U + 5, INT64_C(-211813488000000000)})
		tss.push_back(t);
	T.nrows = (int64_t) nums.size() * 3;
	T.cols.push_back(col_new(TM_K_INT8));
	T.cols.push_back(col_new(TM_K_NUMERIC));
	T.cols.push_back(col_new(TM_K_DATE));
	T.cols.push_back(col_new(TM_K_TIMESTAMP));
	for (int64_t r = 0; r < T.nrows; r++)
	{
		push_i(T.cols[N_ID], r);
		push_n(T.cols[N_NUM], nums[(size_t) r % nums.size()], r % 37 == 5);
		push_i(T.cols[N_D], dates[(size_t) (r / 3) % dates.size()], r % 41 == 7);
		push_i(T.cols[N_TS], tss[(size_t) r % tss.size()], r % 43 == 9);
	}
	for (int c = 0; c < N_NCOLS; c++)
		p.slot(ty(c == N_ID ? TM_K_INT8 : c == N_NUM ? TM_K_NUMERIC : c == N_D ? TM_K_DATE : TM_K_TIMESTAMP,
				  c == N_NUM ? 2 : 0), 0, c);

	for (int pred = TM_PRED_EQ; pred <= TM_PRED_GE; pred++)
		for (int swap = 0; swap < 2; swap++)
		{
			/* numeric(2) against a numeric constant (value, scale) */
			static const struct { long long v; int sc; } nk[] = {{0, 0}, {5, 0}, {-5, 0}, {12, 0}, {1005, 3},
				{-1005, 3}, {1000, 3}, {12345, 4}, {-12345, 4}, {500, 2}, {7, 1}, {-7, 1}, {1, 38}, {-1, 38},
				{-99999, 5}};
			for (const auto &k : nk)
			{
				TmValue		v;

				memset(&v, 0, sizeof(v));
				v.n = k.v;
				snprintf(what, sizeof(what), "numeric(2) %s %lld scale %d, pred %d", swap ? "right of" : "left of",
						 k.v, k.sc, pred);
				normalize_case(T, p, slotcol,
							   normalize_qual(N_NUM, v, swap, TM_CMP_NUMERIC, pred, swap ? k.sc : 2, swap ? 2 : k.sc),
							   what, &ncases);
			}
			/* past 128 bits at scale 2: compared as it is */
			for (int sign = -1; sign <= 1; sign += 2)
			{
				TmValue		v;

				memset(&v, 0, sizeof(v));
				v.n = (tm_int128) sign * ((tm_int128) 1 << 125);
				snprintf(what, sizeof(what), "numeric(2) %s %s2^125, pred %d", swap ? "right of" : "left of",
						 sign < 0 ? "-" : "", pred);
				normalize_case(T, p, slotcol,
							   normalize_qual(N_NUM, v, swap, TM_CMP_NUMERIC, pred, swap ? 0 : 2, swap ? 2 : 0),
							   what, &ncases);
			}
			/* date against a timestamp constant, then timestamp against a date constant */
			for (int ts = 0; ts < 2; ts++)
			{
				std::vector<int64_t> ks = ts == 0 ?
					std::vector<int64_t>{INT64_C(0), U, -U, U / 2, -U / 2, INT64_C(1), INT64_C(-1), INT64_C(3600000000),
										 100 * U + 7, -800 * U - 7, INT64_MIN, INT64_MAX, (E - 1) * U, (E - 1) * U + 5,
										 INT64_C(-211813488000000000)} :
					std::vector<int64_t>{INT64_C(0), INT64_C(1), INT64_C(-1), INT64_C(100), INT64_C(-800),
										 (int64_t) INT32_MIN, (int64_t) INT32_MAX, E - 1, E, INT64_C(2000000000)};
				int			cls = (ts == 0) == (swap == 0) ? TM_CMP_DATE_TS : TM_CMP_TS_DATE;

				for (int64_t k : ks)
				{
					TmValue		v;

					memset(&v, 0, sizeof(v));
					v.i = k;
					snprintf(what, sizeof(what), "%s %s %s %lld, pred %d", ts ? "timestamp" : "date",
							 swap ? "right of" : "left of", ts ? "date" : "timestamp", (long long) k, pred);
					normalize_case(T, p, slotcol, normalize_qual(ts ? N_TS : N_D, v, swap, cls, pred, 0, 0),
								   what, &ncases);
				}
			}
		}
	TM_CHECK_MSG(ncases == 6 * 2 * 42, "%d cases", ncases);
	if (!g_have_gpu)
		return;

	/* a parameter in the prefilter: num < $1 (5.00); NULL: never true, and not prefiltered */
	for (int pnull = 0; pnull < 2; pnull++)
	{
		PipeB		p2 = p;
		int			s_par = p2.slot(ty(TM_K_NUMERIC, 2), -1, 0);
		TmValue		param;
		bool		paramnull = pnull != 0;
		std::vector<std::string> exp;

		memset(&param, 0, sizeof(param));
		param.n = 500;
		a_init();
		p_slot(N_NUM);
		p_slot(s_par);
		a_op(TMI_CMP, TM_CMP_NUMERIC, TM_PRED_LT, 2, 2);
		p2.filter(a_build(ty(TM_K_BOOL)));
		TmPlan		pl = plan({p2.emit(0, {x_slot(0, ty(TM_K_INT8))})}, {}, {result({ty(TM_K_INT8)})}, 0,
							  {ty(TM_K_NUMERIC, 2)});
		Run			run = run_plan(pl, {&T}, &param, &paramnull);

		for (int64_t r = 0; r < T.nrows && !pnull; r++)
			if (!T.cols[N_NUM].nul[r] && T.cols[N_NUM].n[r] < 500)
				exp.push_back(cell(T.cols[N_ID], r));
		CHECK_OK(run);
		check_rows(pnull ? "num < NULL parameter" : "num < parameter", out_rows(run.out), exp, true);
		if (g_lb_mode == TM_GPU_LB_NONE)
		{
			TM_CHECK_INT_EQ(run.stats[0].prefilter_passes > 0, g_fast_paths && !pnull);
			TM_CHECK_INT_EQ(run.stats[0].prefilter_plain, g_fast_paths && !pnull ? 1 : 0);
		}
		tm_gpu_table_free(&run.out);
	}

	/* the prefilter's leading filter, then one it cannot run (id % 3 = 1) in pipeline_kernel */
	{
		PipeB		p2 = p;
		std::vector<std::string> exp;
		TmValue		v;

		memset(&v, 0, sizeof(v));
		v.i = 100 * U;
		p2.filter(normalize_qual(N_D, v, false, TM_CMP_DATE_TS, TM_PRED_GE, 0, 0));
		p2.filter(x_mod_cmp(N_ID, 3, TM_K_INT8, TM_PRED_EQ, 1));
		TmPlan		pl = plan({p2.emit(0, {x_slot(0, ty(TM_K_INT8)), x_slot(N_NUM, ty(TM_K_NUMERIC, 2))})}, {},
							  {result({ty(TM_K_INT8), ty(TM_K_NUMERIC, 2)})}, 0, {});
		Run			run = run_plan(pl, {&T});

		for (int64_t r = 0; r < T.nrows; r++)
			if (!T.cols[N_D].nul[r] && T.cols[N_D].i[r] >= 100 && r % 3 == 1)
				exp.push_back(cell(T.cols[N_ID], r) + cell(T.cols[N_NUM], r));
		CHECK_OK(run);
		check_rows("prefilter, then id % 3 = 1", out_rows(run.out), exp, true);
		if (g_lb_mode == TM_GPU_LB_NONE)
		{
			TM_CHECK_INT_EQ(run.stats[0].prefilter_passes > 0, g_fast_paths);
			TM_CHECK_INT_EQ(run.stats[0].prefilter_plain, g_fast_paths ? 1 : 0);
		}
		tm_gpu_table_free(&run.out);
	}
}

/*
 * The prefilter where most of its words are 0: pipeline_kernel reads the bits 32 words to a warp and takes
 * only the words that are not 0; prefilter_kernel takes PRE_UNROLL words to a warp.  Over 200,017 rows
 * (not a multiple of 32, 128 or 1,024 rows): filters that pass no row, the last row alone, a cluster, rows
 * scattered over the first three quarters and none after, rows at both ends; the plain form (int8 and int4
 * against constants) and the general one (an OR); alone or before a filter the prefilter cannot run
 * (id % 3 = 1); and one that passes about 45% of the rows (more than the queue holds from a group of words:
 * the rows left for the next round); a filter the prefilter cannot run alone (no bits: the warps take the
 * rows 32 at a time, in groups of 1,024 with themis.gpu_dynamic_rows); on a full grid, on 1 block and on 3
 * (a warp then takes many groups of words, and the last words of the unrolled ones are past the end).  Emitted rows and an aggregation (t_aggs) against the host.
 */
static TmExpr *
x_or3_eq(int a, int64_t k1, int64_t k2, int64_t k3)
{
	a_init();
	p_slot(a);
	p_int(k1);
	a_op(TMI_CMP, TM_CMP_INT, TM_PRED_EQ, 0, 0);
	for (int64_t k : {k2, k3})
	{
		int			j = a_op(TMI_JUMP_IF_TRUE, 0, -1, 0, 0);

		p_slot(a);
		p_int(k);
		a_op(TMI_CMP, TM_CMP_INT, TM_PRED_EQ, 0, 0);
		a_op(TMI_OR, 0, 0, 0, 0);
		patch(j);
	}
	return a_build(ty(TM_K_BOOL));
}

static void
test_prefilter_sparse(void)
{
	HTable		T = make_T(200017, 300);
	const int64_t n = T.nrows;

	for (int c = 0; c < 9; c++)
		for (int cap : {0, 1, 3})
			for (int agg = 0; agg < 2; agg++)
			{
				AggSlots	s;
				PipeB		p = t_agg_pipe(&s);
				int			s_id = p.slot(ty(TM_K_INT8), 0, T_ID);
				bool		pre = c != 8;	/* 8: no filter the prefilter runs */
				bool		plain = c != 5 && pre;
				std::vector<std::string> exp;
				RefAgg		ref;
				int64_t		nsink = 0;
				char		what[96];
				auto		keep = [&](int64_t r) -> bool {
					int64_t		v = isnull(T, T_V, r) ? INT64_MIN : ival(T, T_V, r);

					switch (c)
					{
						case 0: return false;
						case 1: return r == n - 1;
						case 2: return r >= 70000 && r < 71500 && v == 7;
						case 3: return v == 37 && r < 150000;
						case 4: return r >= 5000 && r < 5100 && r % 3 == 1;
						case 5: return r == 3 || r == n - 2 || r == 100000;
						case 6: return r >= 1024 * 5 + 17 && r < 1024 * 9 && v > 45;
						case 7: return v > 0;
						default: return r % 3 == 1;
					}
				};

				switch (c)
				{
					case 0:
						p.filter(x_cmp_const(s_id, TM_PRED_LT, 0));
						break;
					case 1:
						p.filter(x_cmp_const(s_id, TM_PRED_GE, n - 1));
						break;
					case 2:
						p.filter(x_cmp_const(s_id, TM_PRED_GE, 70000));
						p.filter(x_cmp_const(s_id, TM_PRED_LT, 71500));
						p.filter(x_cmp_const(s.v, TM_PRED_EQ, 7));
						break;
					case 3:
						p.filter(x_cmp_const(s.v, TM_PRED_EQ, 37));
						p.filter(x_cmp_const(s_id, TM_PRED_LT, 150000));
						break;
					case 4:
						p.filter(x_cmp_const(s_id, TM_PRED_GE, 5000));
						p.filter(x_cmp_const(s_id, TM_PRED_LT, 5100));
						p.filter(x_mod_cmp(s_id, 3, TM_K_INT8, TM_PRED_EQ, 1));
						break;
					case 5:
						p.filter(x_or3_eq(s_id, 3, n - 2, 100000));
						break;
					case 6:
						p.filter(x_cmp_const(s_id, TM_PRED_GE, 1024 * 5 + 17));
						p.filter(x_cmp_const(s_id, TM_PRED_LT, 1024 * 9));
						p.filter(x_cmp_const(s.v, TM_PRED_GT, 45));
						break;
					case 7:
						/* dense: about 45% of the rows, more than a warp's queue holds from one group */
						p.filter(x_cmp_const(s.v, TM_PRED_GT, 0));
						break;
					default:
						p.filter(x_mod_cmp(s_id, 3, TM_K_INT8, TM_PRED_EQ, 1));
						break;
				}
				for (int64_t r = 0; r < n; r++)
					if (keep(r))
					{
						exp.push_back(cell(T.cols[T_ID], r) + cell(T.cols[T_V], r));
						ref.add(T, r);
						nsink++;
					}
				TmPlan		pl = agg ? plan({p.agg(0, {}, t_aggs(s))}, {}, {result(t_agg_types())}, 0)
					: plan({p.emit(0, {x_slot(s_id, ty(TM_K_INT8)), x_slot(s.v, ty(TM_K_INT4))})}, {},
						   {result({ty(TM_K_INT8), ty(TM_K_INT4)})}, 0, {});

				tm_gpu_set_max_blocks(cap);
				Run			run = run_plan(pl, {&T});

				tm_gpu_set_max_blocks(0);
				snprintf(what, sizeof(what), "sparse prefilter, case %d, %s, %s", c,
						 cap ? (cap == 1 ? "1 block" : "3 blocks") : "full grid", agg ? "aggregated" : "emitted");
				CHECK_OK(run);
				if (agg)
					check_rows(what, out_rows(run.out), {ref.cells()}, true);
				else
					check_rows(what, out_rows(run.out), exp, true);
				TM_CHECK_INT_EQ(run.stats[0].sink_rows, nsink);
				if (g_lb_mode == TM_GPU_LB_NONE)
				{
					TM_CHECK_MSG((run.stats[0].prefilter_passes > 0) == (g_fast_paths && pre), "%s: %lld passes with the prefilter",
								 what, (long long) run.stats[0].prefilter_passes);
					TM_CHECK_MSG(run.stats[0].prefilter_plain == (g_fast_paths && plain ? 1 : 0),
								 "%s: plain form %d", what, (int) run.stats[0].prefilter_plain);
					/* the leading filters: pipeline_rows_compacted, whose warps take groups as they finish */
					TM_CHECK_MSG((run.stats[0].dynamic_groups > 0) == (g_fast_paths && g_dynamic_rows),
								 "%s: %lld groups of rows taken as the warps finished", what,
								 (long long) run.stats[0].dynamic_groups);
				}
				tm_gpu_table_free(&run.out);
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
		/* the host parts of test_fast_quals and test_fast_normalize (the kernels' fast quals against the
		 * interpreter) */
		g_have_gpu = false;
		TM_RUN(test_fast_quals);
		TM_RUN(test_fast_normalize);
		TM_RUN(test_jit_sources);
		printf("skipped: no GPU (%s): only the host parts of test_fast_quals, test_fast_normalize and "
			   "test_jit_sources ran%s\n", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device",
			   g_jit_compiles >= 100 ? " (no NVRTC: generated sources not compiled)" : "");
		return tm_unit_done();
	}
	if (tm_gpu_pool_create(0, (size_t) 1 << 30, &g_pool, err, sizeof(err)) != TM_GPU_OK)
	{
		printf("tm_gpu_pool_create: %s\n", err);
		tm_unit_failed++;
		return tm_unit_done();
	}

	/*
	 * the passes over the list: (scheduler, join algorithm) = (NONE, AUTO), (NIFS_AWS, AUTO), (AUTO, AUTO),
	 * then the partitioned join forced wherever it applies: (NONE, PARTITIONED), (AUTO, PARTITIONED_GFUR);
	 * or those of TM_GPU_TEST_LB_MODES: "0".."3" a scheduler with AUTO, "p" (NONE, PARTITIONED), "g"
	 * (AUTO, PARTITIONED_GFUR)
	 */
	std::vector<std::pair<int, int>> modes = {{TM_GPU_LB_NONE, TM_GPU_JOIN_AUTO}, {TM_GPU_LB_NIFS_AWS, TM_GPU_JOIN_AUTO},
		{TM_GPU_LB_AUTO, TM_GPU_JOIN_AUTO}, {TM_GPU_LB_NONE, TM_GPU_JOIN_PARTITIONED},
		{TM_GPU_LB_AUTO, TM_GPU_JOIN_PARTITIONED_GFUR}};
	const char *env = getenv("TM_GPU_TEST_LB_MODES");

	if (env != NULL && *env != '\0')
	{
		modes.clear();
		for (const char *q = env; *q != '\0'; q++)
			if (*q >= '0' && *q <= '3')
				modes.push_back({*q - '0', TM_GPU_JOIN_AUTO});
			else if (*q == 'p')
				modes.push_back({TM_GPU_LB_NONE, TM_GPU_JOIN_PARTITIONED});
			else if (*q == 'g')
				modes.push_back({TM_GPU_LB_AUTO, TM_GPU_JOIN_PARTITIONED_GFUR});
	}
	/* TM_GPU_TEST_JIT_ONLY set: the pass of generated kernels alone (below) */
	if (getenv("TM_GPU_TEST_JIT_ONLY") != NULL)
		goto jit_pass;
	for (auto mode : modes)
	{
		static const char *const names[] = {"none", "nifs", "nifs_aws", "auto"};
		static const char *const jnames[] = {"auto", "partitioned", "partitioned_gfur", "pipelined"};

		g_lb_mode = mode.first;
		g_join_mode = mode.second;
		tm_gpu_pool_set_load_balance(g_pool, mode.first);
		printf("== scheduler: %s, join algorithm: %s\n", names[mode.first], jnames[mode.second]);
		fflush(stdout);
		TM_RUN(test_filter_emit);
		TM_RUN(test_fast_quals);
		TM_RUN(test_fast_normalize);
		TM_RUN(test_prefilter_sparse);
		TM_RUN(test_joins);
		TM_RUN(test_precheck);
		TM_RUN(test_semi_prefilter);
		TM_RUN(test_semi_prefilter_kinds);
		TM_RUN(test_two_joins);
		TM_RUN(test_probe_order);
		TM_RUN(test_swap_build);
		TM_RUN(test_swap_bare);
		TM_RUN(test_swap_fuse_errors);
		TM_RUN(test_group_agg);
		TM_RUN(test_private_agg);
		TM_RUN(test_private_agg_empty);
		TM_RUN(test_nointerp);
		TM_RUN(test_any_agg);
		TM_RUN(test_any_dependent);
		TM_RUN(test_private_agg_overflow);
		TM_RUN(test_fast_arith_aggs);
		TM_RUN(test_global_agg);
		TM_RUN(test_global_agg_fanout);
		TM_RUN(test_private_global_sums);
		TM_RUN(test_join_agg_result);
		TM_RUN(test_many_groups);
		TM_RUN(test_unique_join_agg);
		TM_RUN(test_agg_count_pass);
		TM_RUN(test_emit_append);
		TM_RUN(test_distinct_agg);
		TM_RUN(test_distinct_join);
		TM_RUN(test_distinct_many);
		TM_RUN(test_device_inputs);
		TM_RUN(test_errors);
		TM_RUN(test_empty_build);
		TM_RUN(test_topn_cut);
		TM_RUN(test_chunk_emit);
		TM_RUN(test_chunk_filter);
		TM_RUN(test_chunk_join);
		TM_RUN(test_chunk_agg);
		TM_RUN(test_chunk_text);
		TM_RUN(test_chunk_overflow);
		TM_RUN(test_chunk_errors);
		TM_RUN(test_chunk_device_inputs);
		TM_RUN(test_chunk_small_pool);
		TM_RUN(test_chunk_fallback);
		TM_RUN(test_chunk_skew);
		TM_RUN(test_partitioned_join);
		TM_RUN(test_join_auto_order);
	}
	g_lb_mode = TM_GPU_LB_NONE;
	g_join_mode = TM_GPU_JOIN_AUTO;
	tm_gpu_pool_set_load_balance(g_pool, TM_GPU_LB_NONE);

	/* the kernels' fast paths off (themis.gpu_fast_paths = off): every expression interpreted */
	printf("== scheduler: none, join algorithm: auto, fast paths off\n");
	fflush(stdout);
	tm_gpu_pool_set_fast_paths(g_pool, 0);
	g_fast_paths = false;
	TM_RUN(test_filter_emit);
	TM_RUN(test_fast_normalize);
	TM_RUN(test_joins);
	TM_RUN(test_precheck);
	TM_RUN(test_semi_prefilter);
	TM_RUN(test_semi_prefilter_kinds);
	TM_RUN(test_fast_quals);
	TM_RUN(test_group_agg);
	TM_RUN(test_private_agg);
	TM_RUN(test_private_agg_empty);
	TM_RUN(test_nointerp);
	TM_RUN(test_fast_arith_aggs);
	TM_RUN(test_global_agg_fanout);
	TM_RUN(test_errors);
	TM_RUN(test_chunk_filter);
	TM_RUN(test_chunk_errors);
	tm_gpu_pool_set_fast_paths(g_pool, 1);
	g_fast_paths = true;

	/* every pipeline in the generic kernel (themis.gpu_nointerp = off) */
	printf("== scheduler: none, join algorithm: auto, the generic kernel only\n");
	fflush(stdout);
	tm_gpu_pool_set_nointerp(g_pool, 0);
	g_nointerp = false;
	TM_RUN(test_filter_emit);
	TM_RUN(test_joins);
	TM_RUN(test_precheck);
	TM_RUN(test_two_joins);
	TM_RUN(test_private_agg);
	TM_RUN(test_nointerp);
	TM_RUN(test_fast_arith_aggs);
	TM_RUN(test_global_agg);
	TM_RUN(test_errors);
	TM_RUN(test_chunk_agg);
	tm_gpu_pool_set_nointerp(g_pool, 1);
	g_nointerp = true;

	/*
	 * the warps of pipeline_rows_compacted each on a fixed share of the rows (themis.gpu_dynamic_rows =
	 * off); the passes above take groups of rows as the warps finish: the tests whose pipelines have
	 * leading filters or a pre-check (with and without the prefilter's bits, on grids of 1 to 3 blocks and
	 * full ones, errors of the lowest row, chunked sources)
	 */
	printf("== scheduler: none, join algorithm: auto, fixed shares of rows\n");
	fflush(stdout);
	tm_gpu_pool_set_dynamic_rows(g_pool, 0);
	g_dynamic_rows = false;
	TM_RUN(test_filter_emit);
	TM_RUN(test_fast_quals);
	TM_RUN(test_prefilter_sparse);
	TM_RUN(test_joins);
	TM_RUN(test_precheck);
	TM_RUN(test_semi_prefilter);
	TM_RUN(test_semi_prefilter_kinds);
	TM_RUN(test_two_joins);
	TM_RUN(test_group_agg);
	TM_RUN(test_private_agg);
	TM_RUN(test_global_agg);
	TM_RUN(test_errors);
	TM_RUN(test_chunk_filter);
	TM_RUN(test_chunk_errors);
	tm_gpu_pool_set_dynamic_rows(g_pool, 1);
	g_dynamic_rows = true;

	/*
	 * global aggregates with block-private states (themis.gpu_private_global_agg), on the plain
	 * executor and with the partitioned join forced: the aggregations of the list that have no keys
	 */
	tm_gpu_pool_set_private_global(g_pool, 1);
	for (int jm : {TM_GPU_JOIN_AUTO, TM_GPU_JOIN_PARTITIONED})
	{
		printf("== scheduler: none, join algorithm: %s, global aggregates block-private\n",
			   jm == TM_GPU_JOIN_AUTO ? "auto" : "partitioned");
		fflush(stdout);
		g_join_mode = jm;
		TM_RUN(test_private_global_sums);
		TM_RUN(test_private_agg);
		TM_RUN(test_private_agg_empty);
		TM_RUN(test_fast_arith_aggs);
		TM_RUN(test_global_agg);
		TM_RUN(test_global_agg_fanout);
		TM_RUN(test_join_agg_result);
		TM_RUN(test_unique_join_agg);
		TM_RUN(test_agg_count_pass);
		TM_RUN(test_errors);
		TM_RUN(test_empty_build);
		TM_RUN(test_chunk_agg);
		TM_RUN(test_chunk_errors);
		TM_RUN(test_chunk_overflow);
	}
	g_join_mode = TM_GPU_JOIN_AUTO;
	tm_gpu_pool_set_private_global(g_pool, 0);

	/* grouped aggregates whose lanes of one group combine before their atomic (themis.gpu_group_wagg) */
	tm_gpu_pool_set_group_wagg(g_pool, 1);
	printf("== scheduler: none, join algorithm: auto, grouped aggregates' lanes combined\n");
	fflush(stdout);
	TM_RUN(test_group_agg);
	TM_RUN(test_private_agg);
	TM_RUN(test_any_agg);
	TM_RUN(test_fast_arith_aggs);
	TM_RUN(test_distinct_agg);
	TM_RUN(test_distinct_join);
	TM_RUN(test_distinct_many);
	TM_RUN(test_join_agg_result);
	TM_RUN(test_agg_count_pass);
	TM_RUN(test_errors);
	TM_RUN(test_chunk_agg);
	TM_RUN(test_chunk_overflow);
	tm_gpu_pool_set_group_wagg(g_pool, 0);

	/*
	 * kernels generated per pipeline (themis.gpu_jit = wait; cuda/tm_jit.h): the aggregations of the list,
	 * those of the generated kernels' shape run in theirs (test_fast_arith_aggs checks that they did),
	 * the others in pipeline_kernel; also with block-private global aggregates
	 */
jit_pass:
	TM_RUN(test_jit_sources);
	tm_gpu_pool_set_jit(g_pool, 2);
	g_jit = true;
	for (int pg : {0, 1})
	{
		printf("== scheduler: none, join algorithm: auto, generated kernels%s\n",
			   pg ? ", global aggregates block-private" : "");
		fflush(stdout);
		tm_gpu_pool_set_private_global(g_pool, pg);
		TM_RUN(test_fast_arith_aggs);
		if (pg == 0)
			TM_RUN(test_fast_quals);
		TM_RUN(test_group_agg);
		TM_RUN(test_private_agg);
		TM_RUN(test_private_agg_empty);
		TM_RUN(test_private_agg_overflow);
		TM_RUN(test_global_agg);
		TM_RUN(test_private_global_sums);
		TM_RUN(test_many_groups);
		TM_RUN(test_agg_count_pass);
		TM_RUN(test_errors);
		TM_RUN(test_chunk_agg);
		TM_RUN(test_chunk_errors);
		TM_RUN(test_chunk_overflow);
		TM_RUN(test_join_agg_result);
		TM_RUN(test_unique_join_agg);
		TM_RUN(test_global_agg_fanout);
		TM_RUN(test_empty_build);
		if (pg == 0)
		{
			TM_RUN(test_any_agg);
			TM_RUN(test_distinct_join);
			TM_RUN(test_precheck);
			TM_RUN(test_semi_prefilter);
			TM_RUN(test_two_joins);
			TM_RUN(test_chunk_join);
		}
	}
	tm_gpu_pool_set_private_global(g_pool, 0);
	tm_gpu_pool_set_jit(g_pool, 0);
	g_jit = false;
	printf("device memory used at most: %zu bytes of %zu\n", tm_gpu_pool_peak(g_pool), tm_gpu_pool_size(g_pool));

	TM_CHECK(tm_gpu_pool_destroy(g_pool, err, sizeof(err)) == TM_GPU_OK);
	for (void *p : g_allocs)
		free(p);
	return tm_unit_done();
}
