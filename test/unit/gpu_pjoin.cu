/*
 * gpu_pjoin.cu — tests of the partitioned hash join (cuda/tm_pjoin.cu, interface cuda/tm_pjoin.h).
 *
 * Random relations are generated on the host, uploaded, joined on the GPU with each algorithm (GFTR, GFUR,
 * pipelined) and compared, as multisets of rendered rows, with a plain CPU hash join written here (a map
 * from the tuple of key values to R's rows; NULL keys never match).  Covered: inner / semi / anti / left;
 * NULL keys on both sides (ANTI / LEFT output S's); NULL payloads; duplicates on both sides; Zipf-skewed
 * foreign keys (1.5) with tiny work units (an S partition split over many units, R partitions split into
 * several shared-memory chunks); key layouts 1 x 4, 1 x 8, 2 x 4 bytes (exact words) and 2 .. 4 mixed
 * columns (hashed, verified column by column: S rows that agree on all but one key column); payloads of 4
 * and 8 bytes and text, 0 .. 5 columns per side; keys spaced 1, 1024, 2^20 apart (the hash must still
 * spread them); empty inputs; batches (forced R hash batches and S chunks, a workspace smaller than an
 * unbatched run needs, an allocator that fails past a limit); results larger than the hint (grown, also
 * across batches); the three memory modes; tm_pjoin_workspace_size (a run in exactly that much needs no
 * batching); GFTR's peak memory not above GFUR's; argument errors; GFTR's packed payloads (two 4-byte
 * columns carried as one value: every kind, NULL keys, NULLs in the first payload, text after them,
 * batches, skew, growth, memory modes; and the cases that must not pack).  Plus random configurations.
 *
 * Prints "N passed, N failed" (tm_unit.h); without a usable GPU it says it skipped and passes.
 *
 *   make CUDA=yes test/unit/bin/gpu_pjoin && test/unit/bin/gpu_pjoin
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tm_pjoin.h"
#include "tm_unit.h"

/* ------------------------------------------------------------------------------------------------
 * Random numbers (deterministic)
 * ------------------------------------------------------------------------------------------------
 */
static uint64_t g_rng = 88172645463325252ULL;

static uint64_t
rnd(void)
{
	return tm_unit_xorshift(&g_rng);
}

static int64_t
rnd_below(int64_t n)
{
	return n <= 0 ? 0 : (int64_t) (rnd() % (uint64_t) n);
}

static double
rnd_unit(void)
{
	return (double) (rnd() >> 11) / 9007199254740992.0;
}

/* Zipf over [0, n): value i with weight 1 / (i + 1)^s */
struct Zipf
{
	std::vector<double> cdf;

	Zipf(int64_t n, double s)
	{
		double		sum = 0;

		cdf.resize((size_t) n);
		for (int64_t i = 0; i < n; i++)
		{
			sum += 1.0 / pow((double) (i + 1), s);
			cdf[(size_t) i] = sum;
		}
		for (int64_t i = 0; i < n; i++)
			cdf[(size_t) i] /= sum;
	}
	int64_t		draw(void)
	{
		double		u = rnd_unit();

		return (int64_t) (std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
	}
};

/* ------------------------------------------------------------------------------------------------
 * Host relations
 * ------------------------------------------------------------------------------------------------
 */
struct HCol
{
	int			width;			/* 4, 8, 0 = text */
	std::vector<uint64_t> v;
	std::vector<std::string> t;
	std::vector<uint8_t> nulls;	/* empty: no NULL array */
};

struct HRel
{
	int64_t		n = 0;
	std::vector<HCol> keys;
	std::vector<HCol> pay;
};

struct Gen
{
	int			nkeys = 1;
	int			kw[4] = {4, 4, 4, 4};	/* key widths */
	uint64_t	kmul = 1;		/* spacing of key values */
	std::vector<int> rpay;		/* payload widths of R (0 = text) */
	std::vector<int> spay;
	int64_t		nR = 1000;
	int64_t		nS = 4000;
	int64_t		rdomain = 0;	/* 0: R keys unique (a permutation of 0 .. nR-1); else drawn from [0, rdomain) */
	double		match = 1.0;	/* share of S rows whose id is drawn inside R's id range */
	double		zipf = 0;		/* S ids: Zipf(zipf) over R's ids (0: uniform) */
	double		rkeynull = 0;	/* chance of a NULL in a key column of a row */
	double		skeynull = 0;
	double		paynull = 0;	/* chance of NULL payloads (and that a column has a NULL array: 1/2) */
	std::vector<double> rpaynull;	/* per R payload column (overrides paynull): 0 no NULL array, > 0 one
									 * with that chance of NULL */
	std::vector<double> spaynull;
	double		perturb = 0;	/* S rows whose last key column is altered (multi-column keys) */
	int64_t		rhot = 0;		/* R rows carrying id 0 additionally (a heavy duplicate) */
};

static uint64_t
key_value(int64_t id, int c, int width, uint64_t mul)
{
	uint64_t	x;

	if (c == 0)
		x = (uint64_t) id * mul + 12345;	/* injective in id (mul odd, or the id range small enough) */
	else
		x = ((uint64_t) id * (uint64_t) (2 * c + 1)) * 0x9E3779B97F4A7C15ULL + (uint64_t) c;
	if (width == 4)
		return x & 0xFFFFFFFFULL;
	return x ^ ((uint64_t) (id % 977) << 44);
}

static std::string
rand_text(void)
{
	static const char *words[] = {"", "a", "bc", "def", "PostgreSQL", "themis", "0123456789abcdef0123456789",
	"x y z", "NULL", "longer text value with spaces and more spaces"};
	std::string s = words[rnd_below(10)];

	if (rnd_below(3) == 0)
		s += std::to_string(rnd_below(100000));
	return s;
}

static HCol
make_payload(int width, int64_t n, double nullp, bool force_nulls = false)
{
	HCol		c;

	c.width = width;
	if (width == 0)
		for (int64_t i = 0; i < n; i++)
			c.t.push_back(rand_text());
	else
		for (int64_t i = 0; i < n; i++)
			c.v.push_back(width == 4 ? (rnd() & 0xFFFFFFFFULL) : rnd());
	if (nullp > 0 && (force_nulls || rnd_below(2) == 0))
	{
		c.nulls.resize((size_t) n);
		for (int64_t i = 0; i < n; i++)
			c.nulls[(size_t) i] = rnd_unit() < nullp ? 1 : 0;
	}
	return c;
}

static void
set_keys(HRel &r, const Gen &g, const std::vector<int64_t> &ids, double nullp, double perturb)
{
	r.keys.clear();
	for (int c = 0; c < g.nkeys; c++)
	{
		HCol		k;

		k.width = g.kw[c];
		for (size_t i = 0; i < ids.size(); i++)
			k.v.push_back(key_value(ids[i], c, k.width, g.kmul));
		r.keys.push_back(k);
	}
	if (perturb > 0 && g.nkeys >= 2)
	{
		HCol	   &k = r.keys[(size_t) g.nkeys - 1];

		for (size_t i = 0; i < ids.size(); i++)
			if (rnd_unit() < perturb)
				k.v[i] = (k.v[i] + 1) & (k.width == 4 ? 0xFFFFFFFFULL : ~0ULL);
	}
	if (nullp > 0)
		for (int c = 0; c < g.nkeys; c++)
		{
			if (c > 0 && rnd_below(2) == 0)
				continue;		/* not every key column has a NULL array */
			r.keys[(size_t) c].nulls.resize(ids.size());
			for (size_t i = 0; i < ids.size(); i++)
				r.keys[(size_t) c].nulls[i] = rnd_unit() < nullp ? 1 : 0;
		}
}

static void
generate(const Gen &g, HRel &R, HRel &S)
{
	std::vector<int64_t> rid((size_t) (g.nR + g.rhot)),
				sid((size_t) g.nS);
	int64_t		dom = g.rdomain > 0 ? g.rdomain : (g.nR > 0 ? g.nR : 1);

	for (int64_t i = 0; i < g.nR; i++)
		rid[(size_t) i] = g.rdomain > 0 ? rnd_below(g.rdomain) : i;
	if (g.rdomain == 0)
		for (int64_t i = g.nR - 1; i > 0; i--)
			std::swap(rid[(size_t) i], rid[(size_t) rnd_below(i + 1)]);
	for (int64_t i = 0; i < g.rhot; i++)
		rid[(size_t) (g.nR + i)] = 0;

	Zipf	   *z = g.zipf > 0 ? new Zipf(dom, g.zipf) : NULL;

	for (int64_t i = 0; i < g.nS; i++)
	{
		if (rnd_unit() < g.match)
			sid[(size_t) i] = z ? z->draw() : rnd_below(dom);
		else
			sid[(size_t) i] = dom + rnd_below(dom + 1000);	/* outside R's ids */
	}
	delete z;

	R = HRel();
	S = HRel();
	R.n = g.nR + g.rhot;
	S.n = g.nS;
	set_keys(R, g, rid, g.rkeynull, 0);
	set_keys(S, g, sid, g.skeynull, g.perturb);
	for (size_t j = 0; j < g.rpay.size(); j++)
		R.pay.push_back(j < g.rpaynull.size() ? make_payload(g.rpay[j], R.n, g.rpaynull[j], true) :
						make_payload(g.rpay[j], R.n, g.paynull));
	for (size_t j = 0; j < g.spay.size(); j++)
		S.pay.push_back(j < g.spaynull.size() ? make_payload(g.spay[j], S.n, g.spaynull[j], true) :
						make_payload(g.spay[j], S.n, g.paynull));
}

/* ------------------------------------------------------------------------------------------------
 * Device copies
 * ------------------------------------------------------------------------------------------------
 */
struct DRel
{
	TmPjoinRelation rel;
	std::vector<void *> ptrs;
};

static void *
upload(DRel &d, const void *h, size_t bytes)
{
	void	   *p = NULL;

	if (cudaMalloc(&p, bytes > 0 ? bytes : 8) != cudaSuccess)
	{
		printf("cudaMalloc(%zu) failed\n", bytes);
		tm_unit_failed++;
		return NULL;
	}
	if (bytes > 0)
		cudaMemcpy(p, h, bytes, cudaMemcpyHostToDevice);
	d.ptrs.push_back(p);
	return p;
}

static void
upload_col(DRel &d, const HCol &c, int64_t n, TmPjoinColumn *out)
{
	memset(out, 0, sizeof(*out));
	out->width = c.width;
	if (c.width == 4)
	{
		std::vector<uint32_t> v((size_t) n);

		for (int64_t i = 0; i < n; i++)
			v[(size_t) i] = (uint32_t) c.v[(size_t) i];
		out->data = upload(d, v.data(), v.size() * 4);
	}
	else if (c.width == 8)
		out->data = upload(d, c.v.data(), (size_t) n * 8);
	else
	{
		std::vector<int64_t> off((size_t) n + 1);
		std::string bytes;

		for (int64_t i = 0; i < n; i++)
		{
			off[(size_t) i] = (int64_t) bytes.size();
			bytes += c.t[(size_t) i];
		}
		off[(size_t) n] = (int64_t) bytes.size();
		out->offsets = (const int64_t *) upload(d, off.data(), off.size() * 8);
		out->data = bytes.empty() ? NULL : upload(d, bytes.data(), bytes.size());
	}
	if (!c.nulls.empty())
		out->nulls = (const uint8_t *) upload(d, c.nulls.data(), c.nulls.size());
}

static void
to_device(const HRel &h, DRel &d)
{
	memset(&d.rel, 0, sizeof(d.rel));
	d.rel.nrows = h.n;
	d.rel.nkeys = (int32_t) h.keys.size();
	for (size_t c = 0; c < h.keys.size(); c++)
		upload_col(d, h.keys[c], h.n, &d.rel.keys[c]);
	d.rel.npayload = (int32_t) h.pay.size();
	for (size_t c = 0; c < h.pay.size(); c++)
		upload_col(d, h.pay[c], h.n, &d.rel.payload[c]);
}

static void
free_dev(DRel &d)
{
	for (void *p : d.ptrs)
		cudaFree(p);
	d.ptrs.clear();
}

/* ------------------------------------------------------------------------------------------------
 * Rendering rows, the CPU reference, reading results
 * ------------------------------------------------------------------------------------------------
 */
static void
render_val(std::string &s, const HCol &c, int64_t i)
{
	if (!c.nulls.empty() && c.nulls[(size_t) i])
		s += "N|";
	else if (c.width == 0)
		s += "T" + std::to_string(c.t[(size_t) i].size()) + ":" + c.t[(size_t) i] + "|";
	else
		s += std::to_string(c.v[(size_t) i]) + "|";
}

static void
render_nulls(std::string &s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s += "N|";
}

static bool
key_null(const HRel &r, int64_t i)
{
	for (const HCol &k : r.keys)
		if (!k.nulls.empty() && k.nulls[(size_t) i])
			return true;
	return false;
}

static std::vector<std::string>
reference(const HRel &R, const HRel &S, int kind, bool emit_keys)
{
	std::map<std::vector<uint64_t>, std::vector<int64_t>> ht;
	std::vector<std::string> out;

	for (int64_t i = 0; i < R.n; i++)
	{
		if (key_null(R, i))
			continue;

		std::vector<uint64_t> k;

		for (const HCol &c : R.keys)
			k.push_back(c.v[(size_t) i]);
		ht[k].push_back(i);
	}
	for (int64_t j = 0; j < S.n; j++)
	{
		const std::vector<int64_t> *m = NULL;

		if (!key_null(S, j))
		{
			std::vector<uint64_t> k;

			for (const HCol &c : S.keys)
				k.push_back(c.v[(size_t) j]);

			auto		it = ht.find(k);

			if (it != ht.end())
				m = &it->second;
		}

		std::string head;

		if (emit_keys)
			for (const HCol &c : S.keys)
				render_val(head, c, j);

		std::string tail;

		for (const HCol &c : S.pay)
			render_val(tail, c, j);

		if (kind == TM_PJOIN_INNER || kind == TM_PJOIN_LEFT)
		{
			if (m != NULL)
				for (int64_t i : *m)
				{
					std::string s = head;

					for (const HCol &c : R.pay)
						render_val(s, c, i);
					out.push_back(s + "#" + tail);
				}
			else if (kind == TM_PJOIN_LEFT)
			{
				std::string s = head;

				render_nulls(s, R.pay.size());
				out.push_back(s + "#" + tail);
			}
		}
		else if ((kind == TM_PJOIN_SEMI) == (m != NULL))
			out.push_back(head + "#" + tail);
	}
	std::sort(out.begin(), out.end());
	return out;
}

/* a device result column on the host */
static bool
download_col(const TmPjoinOutColumn &c, int64_t n, HCol &h, const char *what)
{
	h = HCol();
	h.width = c.width;
	if (n == 0)
		return true;
	if (c.nulls != NULL)
	{
		h.nulls.resize((size_t) n);
		cudaMemcpy(h.nulls.data(), c.nulls, (size_t) n, cudaMemcpyDeviceToHost);
	}
	if (c.width == 4 || c.width == 8)
	{
		if (c.data == NULL)
		{
			printf("result column %s: no data\n", what);
			return false;
		}
		h.v.resize((size_t) n);
		if (c.width == 8)
			cudaMemcpy(h.v.data(), c.data, (size_t) n * 8, cudaMemcpyDeviceToHost);
		else
		{
			std::vector<uint32_t> v((size_t) n);

			cudaMemcpy(v.data(), c.data, (size_t) n * 4, cudaMemcpyDeviceToHost);
			for (int64_t i = 0; i < n; i++)
				h.v[(size_t) i] = v[(size_t) i];
		}
		return true;
	}
	if (c.width != 0 || c.offsets == NULL)
	{
		printf("result column %s: width %d, offsets %p\n", what, c.width, (void *) c.offsets);
		return false;
	}

	std::vector<int64_t> off((size_t) n + 1);

	cudaMemcpy(off.data(), c.offsets, off.size() * 8, cudaMemcpyDeviceToHost);
	if (off[0] != 0)
	{
		printf("result column %s: offsets[0] = %lld\n", what, (long long) off[0]);
		return false;
	}
	for (int64_t i = 0; i < n; i++)
		if (off[(size_t) i + 1] < off[(size_t) i])
		{
			printf("result column %s: offsets decrease at %lld\n", what, (long long) i);
			return false;
		}

	std::string bytes((size_t) off[(size_t) n], '\0');

	if (!bytes.empty())
	{
		if (c.data == NULL)
		{
			printf("result column %s: no bytes\n", what);
			return false;
		}
		cudaMemcpy(&bytes[0], c.data, bytes.size(), cudaMemcpyDeviceToHost);
	}
	for (int64_t i = 0; i < n; i++)
		h.t.push_back(bytes.substr((size_t) off[(size_t) i], (size_t) (off[(size_t) i + 1] - off[(size_t) i])));
	return true;
}

static bool
result_rows(const TmPjoinResult &res, const HRel &R, const HRel &S, int kind, bool emit_keys,
			std::vector<std::string> &rows)
{
	const int64_t n = res.nrows;
	std::vector<HCol> k,
				r,
				s;
	bool		ok = true;

	rows.clear();
	if (res.capacity < n)
	{
		printf("capacity %lld < nrows %lld\n", (long long) res.capacity, (long long) n);
		return false;
	}
	if (res.nkeys != (emit_keys ? (int) S.keys.size() : 0))
	{
		printf("result has %d key columns\n", res.nkeys);
		return false;
	}
	if (res.nr != ((kind == TM_PJOIN_INNER || kind == TM_PJOIN_LEFT) ? (int) R.pay.size() : 0) ||
		res.ns != (int) S.pay.size())
	{
		printf("result has %d / %d payload columns\n", res.nr, res.ns);
		return false;
	}
	k.resize((size_t) res.nkeys);
	r.resize((size_t) res.nr);
	s.resize((size_t) res.ns);
	for (int c = 0; c < res.nkeys; c++)
		ok = ok && download_col(res.keys[c], n, k[(size_t) c], "key");
	for (int c = 0; c < res.nr; c++)
		ok = ok && download_col(res.r[c], n, r[(size_t) c], "R payload");
	for (int c = 0; c < res.ns; c++)
		ok = ok && download_col(res.s[c], n, s[(size_t) c], "S payload");
	if (!ok)
		return false;
	for (int64_t i = 0; i < n; i++)
	{
		std::string row;

		for (const HCol &c : k)
			render_val(row, c, i);
		for (const HCol &c : r)
			render_val(row, c, i);
		row += "#";
		for (const HCol &c : s)
			render_val(row, c, i);
		rows.push_back(row);
	}
	std::sort(rows.begin(), rows.end());
	return true;
}

/* ------------------------------------------------------------------------------------------------
 * Running a join and checking it
 * ------------------------------------------------------------------------------------------------
 */
static const char *algo_name[] = {"gftr", "gfur", "pipelined"};
static const char *kind_name[] = {"inner", "semi", "anti", "left"};

/* an allocator for the callback mode: cudaMalloc up to a limit */
struct TestAlloc
{
	size_t		limit;
	size_t		used;
	size_t		peak;
	int			fails;
	std::map<void *, size_t> live;
};

static void *
test_alloc(void *ctx, size_t bytes)
{
	TestAlloc  *a = (TestAlloc *) ctx;
	void	   *p = NULL;

	if (a->used + bytes > a->limit)
	{
		a->fails++;
		return NULL;
	}
	if (cudaMalloc(&p, bytes) != cudaSuccess)
	{
		cudaGetLastError();
		a->fails++;
		return NULL;
	}
	a->live[p] = bytes;
	a->used += bytes;
	if (a->used > a->peak)
		a->peak = a->used;
	return p;
}

static void
test_free(void *ctx, void *p)
{
	TestAlloc  *a = (TestAlloc *) ctx;
	auto		it = a->live.find(p);

	if (it == a->live.end())
	{
		printf("test_free: unknown pointer %p\n", p);
		tm_unit_failed++;
		return;
	}
	a->used -= it->second;
	a->live.erase(it);
	cudaFree(p);
}

enum
{
	MEM_DEFAULT = 0,
	MEM_WORKSPACE,
	MEM_CALLBACK
};

struct RunCfg
{
	int			mem = MEM_DEFAULT;
	size_t		ws_bytes = 0;	/* MEM_WORKSPACE: 0 = what tm_pjoin_workspace_size says (x ws_factor) */
	double		ws_factor = 1.0;
	size_t		cb_limit = (size_t) 1 << 40;
	int			r_batches = 0;
	int			s_chunks = 0;
	int			part_bits = 0;
	int			unit_r_rows = 0;
	int			unit_s_rows = 0;
	int64_t		hint = 0;
	bool		emit_keys = true;
	int			expect_rc = TM_PJOIN_OK;
	bool		check_pack = false;	/* check which sides GFTR packed (stats.first_payload_carried) */
};

struct RunOut
{
	TmPjoinStats st;
	size_t		ws_need;
	int			rc;
	TestAlloc	ta;
};

/* GFTR packs a side's payloads 0 and 1 into one carried value (tm_pjoin.cu, pj_pack_ok): they are its
 * only fixed-width payloads, both 4 bytes, and payload 1 has no NULL array */
static bool
packable(const HRel &h)
{
	if (h.pay.size() < 2 || h.pay[0].width != 4 || h.pay[1].width != 4 || !h.pay[1].nulls.empty())
		return false;
	for (size_t j = 2; j < h.pay.size(); j++)
		if (h.pay[j].width != 0)
			return false;
	return true;
}

/* the bits 2 (R) and 3 (S) of TmPjoinStats.first_payload_carried expected */
static int
expect_pack_bits(const HRel &R, const HRel &S, int algo, int kind)
{
	/* exact key words only (wide keys carry row ids): 1 column, or 2 columns of 4 bytes */
	bool		exact = R.keys.size() == 1 || (R.keys.size() == 2 && R.keys[0].width == 4 && R.keys[1].width == 4);
	int			bits = 0;

	if (algo != TM_PJOIN_GFTR || !exact)
		return 0;
	if ((kind == TM_PJOIN_INNER || kind == TM_PJOIN_LEFT) && packable(R))
		bits |= 4;
	if (packable(S))
		bits |= 8;
	return bits;
}

static bool
run_join(const char *label, const HRel &R, const HRel &S, DRel &dR, DRel &dS, int algo, int kind, const RunCfg &cfg,
		 RunOut *ro)
{
	TmPjoinOptions o;
	TmPjoinResult res;
	TmPjoinStats st;
	char		err[512];
	void	   *ws = NULL;
	bool		ok = true;
	RunOut		local;

	if (ro == NULL)
		ro = &local;
	memset(&o, 0, sizeof(o));
	memset(&res, 0, sizeof(res));
	ro->ta = TestAlloc{cfg.cb_limit, 0, 0, 0, {}};
	ro->ws_need = 0;
	o.algo = algo;
	o.kind = kind;
	o.emit_keys = cfg.emit_keys ? 1 : 0;
	o.r_batches = cfg.r_batches;
	o.s_chunks = cfg.s_chunks;
	o.part_bits = cfg.part_bits;
	o.unit_r_rows = cfg.unit_r_rows;
	o.unit_s_rows = cfg.unit_s_rows;
	o.out_rows_hint = cfg.hint;
	std::vector<std::string> want = reference(R, S, kind, cfg.emit_keys);

	if (cfg.mem == MEM_WORKSPACE)
	{
		/* sized for the rows the run will hold: its first allocation (hint or |S|), or more */
		int64_t		rows = cfg.hint > 0 ? cfg.hint : S.n;
		size_t		need = 0;

		if ((int64_t) want.size() > rows)
			rows = (int64_t) want.size();

		int			rc = tm_pjoin_workspace_size(&dR.rel, &dS.rel, &o, rows, &need, err, sizeof(err));

		TM_CHECK_MSG(rc == TM_PJOIN_OK, "%s: tm_pjoin_workspace_size: %d %s", label, rc, err);
		ro->ws_need = need;

		size_t		bytes = cfg.ws_bytes > 0 ? cfg.ws_bytes : (size_t) ((double) need * cfg.ws_factor);

		if (bytes < 4096)
			bytes = 4096;
		if (cudaMalloc(&ws, bytes) != cudaSuccess)
		{
			cudaGetLastError();
			printf("%s: no device memory for a workspace of %zu bytes\n", label, bytes);
			tm_unit_failed++;
			return false;
		}
		o.workspace = ws;
		o.workspace_bytes = bytes;
	}
	else if (cfg.mem == MEM_CALLBACK)
	{
		o.alloc = test_alloc;
		o.free = test_free;
		o.alloc_ctx = &ro->ta;
	}

	int			rc = tm_pjoin(&dR.rel, &dS.rel, &o, &res, &st, err, sizeof(err));

	ro->rc = rc;
	if (rc != cfg.expect_rc)
	{
		TM_CHECK_MSG(false, "%s [%s %s]: tm_pjoin returned %d (expected %d): %s", label, algo_name[algo],
					 kind_name[kind], rc, cfg.expect_rc, err);
		ok = false;
	}
	else if (rc == TM_PJOIN_OK)
	{
		std::vector<std::string> got;

		ro->st = st;
		if (!result_rows(res, R, S, kind, cfg.emit_keys, got))
		{
			TM_CHECK_MSG(false, "%s [%s %s]: unreadable result", label, algo_name[algo], kind_name[kind]);
			ok = false;
		}
		else if (got != want)
		{
			size_t		i = 0;

			while (i < got.size() && i < want.size() && got[i] == want[i])
				i++;
			TM_CHECK_MSG(false, "%s [%s %s]: %zu rows, expected %zu; first difference at %zu: got \"%s\" want \"%s\"",
						 label, algo_name[algo], kind_name[kind], got.size(), want.size(), i,
						 i < got.size() ? got[i].c_str() : "(end)", i < want.size() ? want[i].c_str() : "(end)");
			ok = false;
		}
		else
		{
			TM_CHECK(true);
			TM_CHECK_MSG(st.out_rows == (int64_t) want.size() && st.total_ms >= 0 &&
						 st.peak_bytes > 0 && st.attempts >= 1,
						 "%s [%s %s]: stats out_rows %lld, total %.3f ms, peak %zu, attempts %d", label,
						 algo_name[algo], kind_name[kind], (long long) st.out_rows, st.total_ms, st.peak_bytes,
						 st.attempts);
			if (cfg.check_pack)
			{
				int			want_bits = expect_pack_bits(R, S, algo, kind);

				TM_CHECK_MSG((st.first_payload_carried & 12) == want_bits,
							 "%s [%s %s]: packed sides 0x%x, expected 0x%x", label, algo_name[algo],
							 kind_name[kind], st.first_payload_carried & 12, want_bits);
			}
		}
		tm_pjoin_result_free(&res, &o);
	}
	else
		TM_CHECK(true);
	if (cfg.mem == MEM_CALLBACK)
		TM_CHECK_MSG(ro->ta.used == 0, "%s [%s %s]: %zu bytes not given back to the allocator", label,
					 algo_name[algo], kind_name[kind], ro->ta.used);
	if (ws != NULL)
		cudaFree(ws);

	cudaError_t e = cudaDeviceSynchronize();

	TM_CHECK_MSG(e == cudaSuccess, "%s: device error after the join: %s", label, cudaGetErrorString(e));
	return ok;
}

/* generate, upload, run every algorithm x the given kinds */
static void
check_all(const char *label, const Gen &g, const RunCfg &cfg, int kinds_mask = 15, int algos_mask = 7)
{
	HRel		R,
				S;
	DRel		dR,
				dS;

	generate(g, R, S);
	to_device(R, dR);
	to_device(S, dS);
	for (int a = 0; a < 3; a++)
		for (int k = 0; k < 4; k++)
			if ((algos_mask >> a) & 1 && (kinds_mask >> k) & 1)
				run_join(label, R, S, dR, dS, a, k, cfg, NULL);
	free_dev(dR);
	free_dev(dS);
}

/* ------------------------------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------------------------------
 */
static void
test_basic(void)
{
	Gen			g;
	RunCfg		cfg;

	g.nR = 5000;
	g.nS = 20000;
	g.match = 0.8;
	g.rpay = {4};
	g.spay = {4};
	check_all("basic 4/4", g, cfg);
	g.rpay = {4, 4};
	g.spay = {4, 4};
	check_all("basic 4/4 two payloads", g, cfg);
	cfg.emit_keys = false;
	check_all("basic no keys", g, cfg, 1 | 8);
	/* keys 1024 apart (low bits zero) and 2^20 apart */
	cfg.emit_keys = true;
	g.kmul = 1024;
	check_all("keys 1024 apart", g, cfg, 1);
	g.kmul = 1 << 20;
	check_all("keys 2^20 apart", g, cfg, 1);
}

static void
test_kinds_nulls_dups(void)
{
	Gen			g;
	RunCfg		cfg;

	g.nR = 6000;
	g.nS = 9000;
	g.rdomain = 2500;			/* duplicates in R */
	g.match = 0.7;
	g.rkeynull = 0.05;
	g.skeynull = 0.05;
	g.paynull = 0.2;
	g.rpay = {4, 8};
	g.spay = {8, 4};
	check_all("nulls + duplicates", g, cfg);
	g.rpay = {8};
	g.spay = {};
	check_all("nulls + duplicates, S without payload", g, cfg);
	g.rpay = {};
	g.spay = {4};
	check_all("nulls + duplicates, R without payload", g, cfg);
}

static void
test_key_layouts(void)
{
	struct
	{
		int			n;
		int			w[4];
	}			layouts[] = {{1, {8}}, {2, {4, 4}}, {2, {8, 4}}, {2, {4, 8}}, {3, {4, 4, 4}}, {4, {8, 8, 4, 8}}};

	for (auto &l : layouts)
	{
		Gen			g;
		RunCfg		cfg;
		char		label[64];

		g.nkeys = l.n;
		for (int c = 0; c < 4; c++)
			g.kw[c] = l.w[c];
		g.nR = 3000;
		g.nS = 7000;
		g.rdomain = 2000;
		g.match = 0.8;
		g.perturb = 0.2;
		g.skeynull = 0.02;
		g.rpay = {4, 0};
		g.spay = {8};
		snprintf(label, sizeof(label), "key layout %d cols (%d,%d,%d,%d)", l.n, l.w[0], l.w[1], l.w[2], l.w[3]);
		check_all(label, g, cfg);
	}
}

static void
test_payload_widths(void)
{
	std::vector<std::vector<int>> pays = {{}, {4}, {8}, {0}, {4, 8}, {8, 8, 4}, {0, 4}, {4, 0, 8, 0}, {8, 4, 4, 8, 0}};

	for (size_t i = 0; i < pays.size(); i++)
	{
		Gen			g;
		RunCfg		cfg;
		char		label[64];

		g.nR = 2000;
		g.nS = 5000;
		g.match = 0.6;
		g.paynull = 0.1;
		g.rpay = pays[i];
		g.spay = pays[(i + 3) % pays.size()];
		g.kw[0] = (i % 2) ? 8 : 4;
		snprintf(label, sizeof(label), "payload widths #%zu", i);
		check_all(label, g, cfg);
	}
}

static void
test_skew(void)
{
	Gen			g;
	RunCfg		cfg;

	/* Zipf 1.5: a third of S on one key; tiny units split the hot partition over many blocks */
	g.nR = 3000;
	g.nS = 60000;
	g.zipf = 1.5;
	g.rpay = {4, 4};
	g.spay = {4, 8};
	cfg.unit_s_rows = 256;
	check_all("zipf 1.5, small S units", g, cfg);
	cfg.unit_s_rows = 0;
	check_all("zipf 1.5", g, cfg);

	/* an R partition larger than a unit's R chunk: several chunks per partition (flags across units) */
	g.zipf = 1.1;
	g.rhot = 1500;				/* 1500 extra R rows with id 0 */
	g.nS = 8000;
	g.skeynull = 0.03;
	cfg.part_bits = 2;
	cfg.unit_r_rows = 128;
	cfg.unit_s_rows = 512;
	check_all("R partitions of many chunks", g, cfg);
	cfg.part_bits = 16;			/* more partitions than rows */
	cfg.unit_r_rows = 0;
	cfg.unit_s_rows = 0;
	check_all("2^16 partitions", g, cfg);
}

static void
test_empty(void)
{
	int64_t		sizes[][2] = {{0, 100}, {100, 0}, {0, 0}, {1, 1}};

	for (auto &sz : sizes)
	{
		Gen			g;
		RunCfg		cfg;
		char		label[64];

		g.nR = sz[0];
		g.nS = sz[1];
		g.rpay = {4, 0};
		g.spay = {8, 0};
		g.skeynull = 0.3;
		snprintf(label, sizeof(label), "empty: R %lld, S %lld", (long long) sz[0], (long long) sz[1]);
		check_all(label, g, cfg);
	}

	/* no match at all */
	Gen			g;
	RunCfg		cfg;

	g.nR = 500;
	g.nS = 800;
	g.match = 0;
	g.rpay = {4};
	g.spay = {4};
	check_all("no match", g, cfg);
}

static void
test_batches(void)
{
	Gen			g;
	RunCfg		cfg;

	g.nR = 8000;
	g.nS = 20000;
	g.rdomain = 5000;
	g.match = 0.8;
	g.rkeynull = 0.02;
	g.skeynull = 0.02;
	g.paynull = 0.1;
	g.rpay = {4, 8, 0};
	g.spay = {8, 4};
	cfg.r_batches = 4;
	check_all("4 R batches", g, cfg);
	cfg.r_batches = 1;
	cfg.s_chunks = 3;
	check_all("3 S chunks", g, cfg);
	cfg.r_batches = 8;
	cfg.s_chunks = 5;
	check_all("8 R batches x 5 S chunks", g, cfg);

	/*
	 * A workspace at 45% of an unbatched run's need: batched by itself, same rows.  A small result (10%
	 * match, R keys unique, a hint) so that most of the need is scratch, which batching divides.
	 */
	HRel		R,
				S;
	DRel		dR,
				dS;

	g = Gen();
	g.nR = 8000;
	g.nS = 40000;
	g.match = 0.1;
	g.rkeynull = 0.02;
	g.skeynull = 0.02;
	g.paynull = 0.1;
	g.rpay = {4, 8};
	g.spay = {8, 4};
	generate(g, R, S);
	to_device(R, dR);
	to_device(S, dS);
	for (int a = 0; a < 3; a++)
	{
		RunCfg		c2;
		RunOut		ro;

		c2.mem = MEM_WORKSPACE;
		c2.ws_factor = 0.45;
		c2.hint = 8000;
		if (run_join("workspace 45%", R, S, dR, dS, a, TM_PJOIN_INNER, c2, &ro))
			TM_CHECK_MSG(ro.st.r_batches * ro.st.s_chunks > 1 || ro.st.attempts > 1,
						 "[%s] a workspace of 45%% of %zu bytes ran unbatched (peak %zu)", algo_name[a],
						 ro.ws_need, ro.st.workspace_peak);

		/* an allocator that fails past 45% of the need: retried with batches */
		RunCfg		c3;

		c3.mem = MEM_CALLBACK;
		c3.hint = 8000;
		c3.cb_limit = (size_t) ((double) ro.ws_need * 0.45);
		if (run_join("allocator limit", R, S, dR, dS, a, TM_PJOIN_INNER, c3, &ro))
			TM_CHECK_MSG(ro.st.attempts > 1 && ro.ta.peak <= c3.cb_limit,
						 "[%s] allocator limit %zu: attempts %d, peak %zu", algo_name[a], c3.cb_limit,
						 ro.st.attempts, ro.ta.peak);
	}
	free_dev(dR);
	free_dev(dS);
}

static void
test_growth(void)
{
	Gen			g;
	RunCfg		cfg;

	/* many-to-many: far more rows than |S| */
	g.nR = 4000;
	g.nS = 3000;
	g.rdomain = 200;
	g.rpay = {4, 8};
	g.spay = {4, 0};
	cfg.hint = 10;
	check_all("result beyond the hint", g, cfg, 1 | 8);
	cfg.s_chunks = 3;
	cfg.r_batches = 2;
	check_all("result beyond the hint, batched", g, cfg, 1 | 8);
	cfg.s_chunks = 0;
	cfg.r_batches = 0;
	cfg.hint = 0;
	check_all("result beyond |S|", g, cfg, 1 | 8);
}

static void
test_memory_modes(void)
{
	Gen			g;
	HRel		R,
				S;
	DRel		dR,
				dS;

	g.nR = 20000;
	g.nS = 50000;
	g.match = 0.9;
	g.rpay = {4, 4};
	g.spay = {4, 4};
	generate(g, R, S);
	to_device(R, dR);
	to_device(S, dS);
	for (int a = 0; a < 3; a++)
	{
		RunCfg		cfg;
		RunOut		ro;

		/* exactly the predicted workspace: no batching, and the prediction holds */
		cfg.mem = MEM_WORKSPACE;
		if (run_join("workspace exact", R, S, dR, dS, a, TM_PJOIN_INNER, cfg, &ro))
			TM_CHECK_MSG(ro.st.r_batches == 1 && ro.st.s_chunks == 1 && ro.st.attempts == 1 &&
						 ro.st.workspace_peak <= ro.ws_need && ro.st.peak_bytes <= ro.st.workspace_peak,
						 "[%s] workspace %zu: batches %d x %d, attempts %d, used %zu, live peak %zu",
						 algo_name[a], ro.ws_need, ro.st.r_batches, ro.st.s_chunks, ro.st.attempts,
						 ro.st.workspace_peak, ro.st.peak_bytes);
		cfg.mem = MEM_CALLBACK;
		if (run_join("callbacks", R, S, dR, dS, a, TM_PJOIN_INNER, cfg, &ro))
			TM_CHECK_MSG(ro.ta.peak == ro.st.peak_bytes,
						 "[%s] allocator peak %zu, reported %zu", algo_name[a], ro.ta.peak, ro.st.peak_bytes);
		cfg.mem = MEM_DEFAULT;
		run_join("cudaMallocAsync", R, S, dR, dS, a, TM_PJOIN_INNER, cfg, NULL);
	}

	/* GFTR holds no more memory at once than GFUR (4-byte keys and payloads, two payloads per side) */
	{
		RunCfg		cfg;
		RunOut		a,
					b;

		cfg.mem = MEM_CALLBACK;
		if (run_join("peak gftr", R, S, dR, dS, TM_PJOIN_GFTR, TM_PJOIN_INNER, cfg, &a) &&
			run_join("peak gfur", R, S, dR, dS, TM_PJOIN_GFUR, TM_PJOIN_INNER, cfg, &b))
			TM_CHECK_MSG(a.st.peak_bytes <= b.st.peak_bytes, "GFTR peak %zu > GFUR peak %zu", a.st.peak_bytes,
						 b.st.peak_bytes);
	}
	free_dev(dR);
	free_dev(dS);
}

static void
test_errors(void)
{
	Gen			g;
	HRel		R,
				S;
	DRel		dR,
				dS;
	TmPjoinOptions o;
	TmPjoinResult res;
	char		err[256];

	g.nR = 1000;
	g.nS = 1000;
	g.rpay = {4};
	g.spay = {4};
	generate(g, R, S);
	to_device(R, dR);
	to_device(S, dS);

	memset(&o, 0, sizeof(o));
	memset(&res, 0, sizeof(res));

	/* key widths differ */
	TmPjoinRelation bad = dS.rel;

	bad.keys[0].width = 8;
	TM_CHECK_INT_EQ(tm_pjoin(&dR.rel, &bad, &o, &res, NULL, err, sizeof(err)), TM_PJOIN_ERR_BAD_ARG);
	bad = dS.rel;
	bad.nkeys = 0;
	TM_CHECK_INT_EQ(tm_pjoin(&dR.rel, &bad, &o, &res, NULL, err, sizeof(err)), TM_PJOIN_ERR_BAD_ARG);
	bad = dS.rel;
	bad.payload[0].width = 3;
	TM_CHECK_INT_EQ(tm_pjoin(&dR.rel, &bad, &o, &res, NULL, err, sizeof(err)), TM_PJOIN_ERR_BAD_ARG);
	o.kind = 7;
	TM_CHECK_INT_EQ(tm_pjoin(&dR.rel, &dS.rel, &o, &res, NULL, err, sizeof(err)), TM_PJOIN_ERR_BAD_ARG);
	o.kind = 0;
	o.r_batches = 3;
	TM_CHECK_INT_EQ(tm_pjoin(&dR.rel, &dS.rel, &o, &res, NULL, err, sizeof(err)), TM_PJOIN_ERR_BAD_ARG);
	o.r_batches = 0;
	TM_CHECK(res.nrows == 0 && res.nr == 0);

	/* a workspace that holds not even the result */
	{
		RunCfg		cfg;

		cfg.mem = MEM_WORKSPACE;
		cfg.ws_bytes = 4096;
		cfg.expect_rc = TM_PJOIN_ERR_NOMEM;
		for (int a = 0; a < 3; a++)
			run_join("tiny workspace", R, S, dR, dS, a, TM_PJOIN_INNER, cfg, NULL);
	}
	free_dev(dR);
	free_dev(dS);
}

static void
test_random(void)
{
	for (int t = 0; t < 60; t++)
	{
		Gen			g;
		RunCfg		cfg;
		char		label[64];
		int			layouts[][5] = {{1, 4}, {1, 8}, {2, 4, 4}, {2, 8, 4}, {3, 4, 8, 4}, {4, 4, 4, 4, 4}};
		int			li = (int) rnd_below(10);

		if (li > 5)
			li = 0;				/* mostly single 4-byte keys */
		g.nkeys = layouts[li][0];
		for (int c = 0; c < g.nkeys; c++)
			g.kw[c] = layouts[li][c + 1];
		g.kmul = rnd_below(3) == 0 ? 1024 : 1;
		g.nR = rnd_below(4) == 0 ? rnd_below(50) : rnd_below(30000);
		g.nS = rnd_below(4) == 0 ? rnd_below(50) : rnd_below(40000);
		g.rdomain = rnd_below(2) ? 0 : 1 + rnd_below(g.nR + 10);
		g.match = rnd_unit();
		g.zipf = rnd_below(3) == 0 ? 0.5 + rnd_unit() : 0;
		g.rkeynull = rnd_below(3) == 0 ? 0.1 * rnd_unit() : 0;
		g.skeynull = rnd_below(3) == 0 ? 0.1 * rnd_unit() : 0;
		g.paynull = rnd_below(2) == 0 ? 0.3 * rnd_unit() : 0;
		g.perturb = g.nkeys > 1 ? 0.2 * rnd_unit() : 0;
		g.rhot = rnd_below(5) == 0 ? rnd_below(3000) : 0;
		for (int64_t j = 0, n = rnd_below(5); j < n; j++)
			g.rpay.push_back((int) (rnd_below(5) == 0 ? 0 : (rnd_below(2) ? 4 : 8)));
		for (int64_t j = 0, n = rnd_below(5); j < n; j++)
			g.spay.push_back((int) (rnd_below(5) == 0 ? 0 : (rnd_below(2) ? 4 : 8)));
		if (rnd_below(4) == 0)
			cfg.part_bits = 1 + (int) rnd_below(16);
		if (rnd_below(4) == 0)
			cfg.unit_r_rows = 64 * (1 + (int) rnd_below(40));
		if (rnd_below(4) == 0)
			cfg.unit_s_rows = 1 + (int) rnd_below(5000);
		if (rnd_below(5) == 0)
			cfg.r_batches = 1 << rnd_below(4);
		if (rnd_below(5) == 0)
			cfg.s_chunks = 1 + (int) rnd_below(4);
		if (rnd_below(5) == 0)
			cfg.hint = 1 + rnd_below(100);
		cfg.emit_keys = rnd_below(4) != 0;
		cfg.mem = (int) rnd_below(3);
		cfg.ws_factor = 2.5;	/* a result that outgrows its hint is copied: old and new arrays */
		snprintf(label, sizeof(label), "random #%d", t);
		check_all(label, g, cfg, 1 << rnd_below(4));
	}
}

/*
 * GFTR's packed payloads: two 4-byte payload columns carried as one 8-byte value through the partitioning
 * and split at emission (tm_pjoin.cu, "Packed payloads").  Every kind and algorithm (GFUR and pipelined
 * as the reference paths), the packing checked where expected and absent where not.
 */
static void
test_packed(void)
{
	Gen			g;
	RunCfg		cfg;

	cfg.check_pack = true;
	g.nR = 6000;
	g.nS = 15000;
	g.rdomain = 4000;			/* duplicates in R */
	g.match = 0.75;
	g.rpay = {4, 4};
	g.spay = {4, 4};
	check_all("packed 4+4 / 4+4", g, cfg);
	cfg.emit_keys = false;
	check_all("packed, no keys", g, cfg);
	cfg.emit_keys = true;

	/* NULL keys: rows are selected (the hash pass packs through the selection vector) */
	g.rkeynull = 0.05;
	g.skeynull = 0.05;
	check_all("packed, NULL keys", g, cfg);

	/* payload 0 with NULLs (its NULL array is transformed), payload 1 without: still packed */
	g.rpaynull = {0.2, 0};
	g.spaynull = {0.3, 0};
	check_all("packed, payload 0 with NULLs", g, cfg);

	/* payload 1 with NULLs: not packed, per-column transforms */
	g.rpaynull = {0, 0.2};
	g.spaynull = {0.2, 0.25};
	check_all("payload 1 with NULLs: not packed", g, cfg);

	/* three 4-byte payloads: not packed (more than 8 bytes) */
	g.rpaynull = {};
	g.spaynull = {};
	g.rpay = {4, 4, 4};
	g.spay = {4, 4, 4};
	check_all("three 4-byte payloads: not packed", g, cfg);
	g.rpaynull = {0.1, 0, 0.2};
	g.spaynull = {0, 0, 0.1};
	check_all("three 4-byte payloads with NULLs", g, cfg);

	/* text after the two: packed (text goes by row id, through positions) */
	g.rpay = {4, 4, 0};
	g.spay = {4, 4, 0};
	g.rpaynull = {0.1, 0, 0.1};
	g.spaynull = {0, 0, 0.2};
	check_all("packed + text", g, cfg);

	/* one side packed, the other not (4 + 8 bytes, 8 bytes alone, text first) */
	g.rpaynull = {};
	g.spaynull = {};
	g.rpay = {4, 4};
	g.spay = {4, 8};
	check_all("R packed, S 4+8", g, cfg);
	g.rpay = {8};
	g.spay = {4, 4};
	check_all("R 8, S packed", g, cfg);
	g.rpay = {0, 4, 4};
	g.spay = {4, 4};
	check_all("R text first, S packed", g, cfg);
	g.rpay = {4, 4};
	g.spay = {};
	check_all("R packed, S without payload", g, cfg);

	/* key layouts: 8-byte key words (K = u64) with 8-byte values; wide keys carry row ids (no packing) */
	g.rpay = {4, 4};
	g.spay = {4, 4};
	g.kw[0] = 8;
	check_all("packed, 8-byte key", g, cfg);
	g.nkeys = 2;
	g.kw[0] = 4;
	g.kw[1] = 4;
	g.perturb = 0.2;
	check_all("packed, 2 x 4-byte keys", g, cfg);
	g.nkeys = 3;
	g.kw[2] = 8;
	check_all("3 key columns: not packed", g, cfg);
	g = Gen();

	/* batches: R hash batches and S chunks (selected rows on both sides), results beyond the hint */
	g.nR = 8000;
	g.nS = 20000;
	g.rdomain = 5000;
	g.match = 0.8;
	g.rkeynull = 0.02;
	g.skeynull = 0.02;
	g.rpay = {4, 4};
	g.spay = {4, 4};
	g.rpaynull = {0.1, 0};
	cfg.r_batches = 4;
	check_all("packed, 4 R batches", g, cfg);
	cfg.r_batches = 1;
	cfg.s_chunks = 3;
	check_all("packed, 3 S chunks", g, cfg);
	cfg.r_batches = 8;
	cfg.s_chunks = 5;
	check_all("packed, 8 R batches x 5 S chunks", g, cfg);
	cfg.r_batches = 2;
	cfg.s_chunks = 3;
	cfg.hint = 10;
	check_all("packed, batched, result beyond the hint", g, cfg);
	cfg = RunCfg();
	cfg.check_pack = true;

	/* Zipf 1.5 foreign keys (a third of S on one key), tiny S units: the hot partition over many blocks */
	g = Gen();
	g.nR = 3000;
	g.nS = 60000;
	g.zipf = 1.5;
	g.rpay = {4, 4};
	g.spay = {4, 4};
	cfg.unit_s_rows = 256;
	check_all("packed, zipf 1.5, small S units", g, cfg);
	cfg.unit_s_rows = 0;

	/* skew: a hot R key over several shared-memory chunks (8-byte values: smaller chunks), tiny units */
	g = Gen();
	g.nR = 3000;
	g.nS = 8000;
	g.zipf = 1.1;				/* as test_skew: about 2 million result rows from the hot key */
	g.rhot = 1500;
	g.skeynull = 0.03;
	g.rpay = {4, 4};
	g.spay = {4, 4};
	g.spaynull = {0.1, 0};
	cfg.part_bits = 2;
	cfg.unit_r_rows = 128;
	cfg.unit_s_rows = 512;
	check_all("packed, R partitions of many chunks", g, cfg);
	cfg.part_bits = 16;
	cfg.unit_r_rows = 0;
	cfg.unit_s_rows = 0;
	check_all("packed, 2^16 partitions", g, cfg);

	/* empty inputs (LEFT / ANTI with an empty R: every S row unmatched, written by the flag kernel) */
	{
		int64_t		sizes[][2] = {{0, 100}, {100, 0}, {0, 0}, {1, 1}};

		for (auto &sz : sizes)
		{
			char		label[64];

			g = Gen();
			g.nR = sz[0];
			g.nS = sz[1];
			g.rpay = {4, 4};
			g.spay = {4, 4};
			g.skeynull = 0.3;
			snprintf(label, sizeof(label), "packed, empty: R %lld, S %lld", (long long) sz[0], (long long) sz[1]);
			check_all(label, g, cfg);
		}
	}

	/* many-to-many: far more rows than |S| (the result grows, the packed columns with it) */
	g = Gen();
	g.nR = 4000;
	g.nS = 3000;
	g.rdomain = 200;
	g.rpay = {4, 4};
	g.spay = {4, 4};
	cfg = RunCfg();
	cfg.check_pack = true;
	cfg.hint = 10;
	check_all("packed, result beyond the hint", g, cfg, 1 | 8);

	/* memory modes: a workspace of exactly the predicted size, the callbacks */
	{
		HRel		R,
					S;
		DRel		dR,
					dS;

		g = Gen();
		g.nR = 20000;
		g.nS = 50000;
		g.match = 0.9;
		g.skeynull = 0.01;
		g.rpay = {4, 4};
		g.spay = {4, 4};
		generate(g, R, S);
		to_device(R, dR);
		to_device(S, dS);
		for (int k = 0; k < 4; k++)
		{
			RunCfg		c2;
			RunOut		ro;

			c2.check_pack = true;
			c2.mem = MEM_WORKSPACE;
			if (run_join("packed, workspace exact", R, S, dR, dS, TM_PJOIN_GFTR, k, c2, &ro))
				TM_CHECK_MSG(ro.st.r_batches == 1 && ro.st.s_chunks == 1 && ro.st.attempts == 1 &&
							 ro.st.workspace_peak <= ro.ws_need,
							 "[packed %s] workspace %zu: batches %d x %d, attempts %d, used %zu",
							 kind_name[k], ro.ws_need, ro.st.r_batches, ro.st.s_chunks, ro.st.attempts,
							 ro.st.workspace_peak);
			c2.mem = MEM_CALLBACK;
			if (run_join("packed, callbacks", R, S, dR, dS, TM_PJOIN_GFTR, k, c2, &ro))
				TM_CHECK_MSG(ro.ta.peak == ro.st.peak_bytes, "[packed %s] allocator peak %zu, reported %zu",
							 kind_name[k], ro.ta.peak, ro.st.peak_bytes);
		}
		free_dev(dR);
		free_dev(dS);
	}
}

int
main(void)
{
	int			ndev = 0;
	cudaError_t e = cudaGetDeviceCount(&ndev);

	if (e != cudaSuccess || ndev == 0)
	{
		printf("skipped: no GPU (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
		return tm_unit_done();
	}

	TM_RUN(test_basic);
	TM_RUN(test_kinds_nulls_dups);
	TM_RUN(test_key_layouts);
	TM_RUN(test_payload_widths);
	TM_RUN(test_skew);
	TM_RUN(test_empty);
	TM_RUN(test_batches);
	TM_RUN(test_growth);
	TM_RUN(test_memory_modes);
	TM_RUN(test_errors);
	TM_RUN(test_random);
	TM_RUN(test_packed);
	return tm_unit_done();
}
