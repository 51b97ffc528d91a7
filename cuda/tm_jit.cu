/*
 * tm_jit.cu — kernels generated per pipeline: their source (tm_jit_source), NVRTC loaded at run time and
 * run in a background thread, and a process-wide cache of the kernels it made (tm_jit_kernel).  Host
 * code only; the interface and the shape of pipeline it serves are in tm_jit.h.
 *
 * The generated kernel is pipeline_rows (cuda/tm_pipeline_dev.cuh) unrolled for one pipeline: a thread
 * per source row, grid-stride; the columns it reads loaded into variables; the trees of tests of FILTERs,
 * residuals and aggregate FILTERs written out (integer and same-scale numeric comparisons inline, the
 * others through fq_test_ab); the walk of the row's evaluation tree (walk_row, op_next, probe_decide) as
 * nested blocks, a FILTER an if, an inner probe a loop over its key's build rows (join_lookup, the
 * payload into slot variables), a semi / anti probe a loop that looks for one passing row; the group
 * found as sink_row finds it (memo_find, group_find); each aggregate's argument written out
 * (a TmFastArith as one tm_arith_addsubmul call per instruction, the arithmetic tm_fast_arith_eval runs,
 * in its order, NULLs as it takes them) and its update through agg_apply / priv_x / priv_warp_combine,
 * the functions agg_update and agg_update_priv_warp are made of, with the kind and the mode constant.
 * Errors, the lowest row's error, cancel polls, private states and their flush are pipeline_kernel's.
 *
 * NVRTC: libnvrtc from the CUDA toolkit (CUDA_HOME, default /usr/local/cuda; dlopen, as libcuda is
 * found at run time: the daemon runs without the toolkit too, with pipeline_kernel only), the toolkit's
 * headers for <cooperative_groups.h>, themis's own headers compiled into this file
 * (tm_jit_headers.inc, made by scripts/embed-headers.sh), and cuda/tm_nvrtc.h's C library stubs and
 * options.  The kernel is compiled for the device's own architecture, to a cubin, and loaded with
 * cudaLibraryLoadData into the calling thread's context.
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>
#include <new>
#include <string>

#define TM_PIPELINE_DESC_ONLY
#include "tm_pipeline_dev.cuh"
#include "tm_jit.h"
#include "tm_nvrtc.h"
#include "tm_jit_headers.inc"

/* ------------------------------------------------------------------------------------------------
 * The source
 * ------------------------------------------------------------------------------------------------
 */

static void
put(std::string &s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
put(std::string &s, const char *fmt, ...)
{
	char		buf[1024];
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int) sizeof(buf))
	{
		std::string big((size_t) n + 1, '\0');

		va_start(ap, fmt);
		vsnprintf(&big[0], big.size(), fmt, ap);
		va_end(ap);
		big.resize((size_t) n);
		s += big;
	}
	else if (n > 0)
		s += buf;
}

/* a TmValue's 16 bytes as an expression of the generated source (tmj_val) */
static std::string
val_src(const TmValue *v)
{
	unsigned long long w[2];
	char		buf[80];

	memcpy(w, v, sizeof(w));
	snprintf(buf, sizeof(buf), "tmj_val(0x%llxULL, 0x%llxULL)", w[0], w[1]);
	return buf;
}

static bool
no(char *why, size_t whylen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool
no(char *why, size_t whylen, const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return false;
}

/* the slot e reads where it is one PUSH_SLOT (host copy), else -1 */
static int
bare_slot(const TmExpr *e)
{
	const TmInstr *in;

	if (e == NULL || e->ninstr != 1)
		return -1;
	in = tm_expr_code(e);
	return in->op == TMI_PUSH_SLOT ? in->a : -1;
}

/*
 * operand `side` (0: l, 1: r) of test p of the DFastQual the source names fq: "&vS", "nS" for a slot,
 * the test's constant (in the device copy) otherwise
 */
static void
test_operand(const DFastCmp *f, int side, const char *fq, int p, std::string *ref, std::string *isnull)
{
	int			sl = side == 0 ? f->l : f->r;
	char		buf[96];

	if (sl >= 0)
	{
		snprintf(buf, sizeof(buf), "&v%d", sl);
		*ref = buf;
		snprintf(buf, sizeof(buf), "n%d", sl);
		*isnull = buf;
	}
	else
	{
		snprintf(buf, sizeof(buf), "&%s->c[%d].%s", fq, p, side == 0 ? "lk" : "rk");
		*ref = buf;
		*isnull = "false";
	}
}

/*
 * Test p of a DFastQual (fq, qu: the names of its device copy and of its expression in the source) as a
 * C expression: integer comparisons and numeric comparisons of one scale (fq_test_ab's own shortcuts)
 * written out with the constant in the source, the others (LIKE, IN, other classes) through fq_test_ab
 * on the device copy of the test (its text constants live there)
 */
static std::string
test_src(const DFastCmp *f, const char *fq, const char *qu, int p)
{
	static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
	std::string s;
	std::string a,
				an,
				b,
				bn;

	test_operand(f, 0, fq, p, &a, &an);
	test_operand(f, 1, fq, p, &b, &bn);
	if (f->pred <= TM_PRED_GE &&
		(f->cls == TM_CMP_INT || (f->cls == TM_CMP_NUMERIC && f->lscale == f->rscale)))
	{
		const char *fld = f->cls == TM_CMP_INT ? "i" : "n";
		std::string l = f->l >= 0 ? "v" + std::to_string(f->l) + "." + fld : val_src(&f->lk) + "." + fld;
		std::string r = f->r >= 0 ? "v" + std::to_string(f->r) + "." + fld : val_src(&f->rk) + "." + fld;

		put(s, "(!%s && !%s && %s %s %s)", an.c_str(), bn.c_str(), l.c_str(), ops[f->pred], r.c_str());
		return s;
	}
	put(s, "fq_test_ab(&%s->c[%d], %s, %s, %s, %s, %s)", fq, p, qu, a.c_str(), an.c_str(), b.c_str(), bn.c_str());
	return s;
}

/*
 * A DFastQual's tree of tests as a C expression (fq, qu: see test_src).  The program's jumps are left
 * out: each skips a push and the AND / OR that takes it, whose value the jump's condition decides, so
 * the tree without them has the same value; && and || short-circuit where the jumps did.  No test
 * raises an error.
 */
static bool
qual_src(const DFastQual *f, const char *fq, const char *qu, std::string *out, char *why, size_t whylen)
{
	std::string st[FQ_DEPTH];
	int			sp = 0;

	for (int pc = 0; pc < f->nprog; pc++)
	{
		int			p = f->prog[pc];

		if (p < FQ_MAX)
		{
			if (p >= f->n || sp >= FQ_DEPTH)
				return no(why, whylen, "%s: bad test program", fq);
			st[sp++] = test_src(&f->c[p], fq, qu, p);
		}
		else if (p == FQ_AND || p == FQ_OR)
		{
			if (sp < 2)
				return no(why, whylen, "%s: bad test program", fq);
			st[sp - 2] = "(" + st[sp - 2] + (p == FQ_AND ? " && " : " || ") + st[sp - 1] + ")";
			sp--;
		}
		else if (p != FQ_JF && p != FQ_JT)
			return no(why, whylen, "%s: bad test program", fq);
	}
	if (sp != 1)
		return no(why, whylen, "%s: bad test program", fq);
	*out = st[0];
	return true;
}

/*
 * Aggregate a's argument into TmValue av, bool an, int ast (TM_OK or the error), as statements at
 * indent ind: a bare slot, or a TmFastArith written out as tm_fast_arith_eval runs it
 */
static void
arg_src(std::string &s, const TmFastArith *fa, int slot, const std::string &ind0)
{
	const char *ind = ind0.c_str();

	if (fa == NULL)
	{
		put(s, "%sav = v%d; an = n%d; ast = TM_OK;\n", ind, slot, slot);
		return;
	}
	put(s, "%sast = TM_OK;\n%sdo\n%s{\n", ind, ind, ind);
	put(s, "%s\tTmValue r0, r1, r2, r3, t;\n%s\tbool q0 = false, q1 = false, q2 = false, q3 = false;\n\n", ind, ind);
	put(s, "%s\tr0.n = r1.n = r2.n = r3.n = 0;\n", ind);
	for (int i = 0; i < fa->n; i++)
	{
		const TmFaInstr *f = &fa->ins[i];
		int			r = f->reg >= 3 ? 3 : f->reg;
		int			r1 = f->reg + 1 >= 3 ? 3 : f->reg + 1;

		if (f->op == TMI_PUSH_SLOT)
			put(s, "%s\tr%d = v%d; q%d = n%d;\n", ind, r, f->a, r, f->a);
		else if (f->op == TMI_PUSH_CONST)
			put(s, "%s\tr%d = %s; q%d = false;\n", ind, r, val_src(&fa->k[i]).c_str(), r);
		else if (f->op == TMI_PUSH_NULL)
			put(s, "%s\tr%d.n = 0; q%d = true;\n", ind, r, r);
		else
			put(s, "%s\tif (q%d || q%d)\n%s\t\tq%d = true;\n%s\telse\n%s\t{\n"
				"%s\t\tast = (int) tm_arith_addsubmul(%d, %d, %d, %d, r%d, r%d, &t);\n"
				"%s\t\tif (ast != TM_OK)\n%s\t\t\tbreak;\n%s\t\tr%d = t;\n%s\t}\n",
				ind, r, r1, ind, r, ind, ind, ind, f->op, f->kind, f->a, f->b, r, r1, ind, ind, ind, r, ind);
	}
	put(s, "%s\tav = r0; an = q0;\n%s} while (0);\n", ind, ind);
}

/* what tm_jit_source reads of a pipeline (host copies) and what it has found out */
typedef struct Gen
{
	const DPipe *P;
	const DOp  *ops;
	const DAgg *aggs;
	const DFastQual *fqs[TM_GPU_MAX_OPS];	/* each op's qual (FILTER, residual), or NULL */
	const DSlotRef *fill[TM_GPU_MAX_OPS];	/* each probe's payload slots */
	int			pkey[TM_GPU_MAX_OPS][TM_GPU_MAX_KEYS];	/* each probe's key slots */
	int			nlead;			/* ops before the first probe (all FILTERs) */
	const TmFastArith *fas[64];
	const DFastQual *ffq[64];	/* each aggregate's FILTER as a tree of tests, or NULL */
	int			fslot[64];		/* ... or as a bare slot, or -1 */
	int			argslot[64];
	int			keyslot[TM_GPU_MAX_KEYS];
	std::string s;
} Gen;

/* " \t" * n */
static std::string
tabs(int n)
{
	return std::string((size_t) n, '\t');
}

/* the sink (the aggregate's update of the row at hand) at indent d; an error: st, goto row_done */
static void
sink_src(Gen *G, int d)
{
	const DPipe *P = G->P;
	std::string &s = G->s;
	std::string t = tabs(d);
	const char *i0 = t.c_str();

	put(s, "%s{\n%s\tlong long g = 0;\n%s\tTmValue av;\n%s\tbool an;\n%s\tint ast;\n\n"
		"%s\t(void) av; (void) an; (void) ast;\n", i0, i0, i0, i0, i0, i0);
	if (P->nkeys > 0)
	{
		put(s, "%s\tTmValue keys[%d];\n%s\tbool knulls[%d];\n%s\tuint64_t h = 0;\n\n", i0, P->nkeys, i0, P->nkeys, i0);
		for (int i = 0; i < P->nkeys; i++)
			put(s, "%s\tkeys[%d] = v%d;\n%s\tknulls[%d] = n%d;\n%s\th = tm_hash_key(h, &keys[%d], knulls[%d], &kt%d);\n",
				i0, i, G->keyslot[i], i0, i, G->keyslot[i], i0, i, i, i);
		put(s, "%s\tif (R.memo)\n%s\t{\n%s\t\tint slot;\n\n%s\t\tg = memo_find(P, h, keys, knulls, &slot);\n"
			"%s\t\tif (g < 0 && (g = group_find(P, R, h, keys, knulls)) >= 0)\n"
			"%s\t\t\tmemo_add(P, slot, h, keys, knulls, g);\n%s\t}\n%s\telse\n"
			"%s\t\tg = group_find(P, R, h, keys, knulls);\n%s\tif (g < 0)\n%s\t{\n%s\t\tst = ST_ABORT;\n"
			"%s\t\tgoto row_done;\n%s\t}\n", i0, i0, i0, i0, i0, i0, i0, i0, i0, i0, i0, i0, i0, i0);
	}
	/* the block's private states (agg_update_priv_warp) */
	put(s, "%s\tif (g < R.priv_k)\n%s\t{\n%s\t\tunsigned int act = __activemask();\n"
		"%s\t\tunsigned int peers = __match_any_sync(act, (unsigned int) g);\n"
		"%s\t\tunsigned int lane = threadIdx.x & 31u;\n"
		"%s\t\tbool first = (peers & ((1u << lane) - 1u)) == 0;\n%s\t\tbool thr = g < R.priv_t;\n"
		"%s\t\tint err = TM_OK;\n%s\t\tint j = 0;\n\n", i0, i0, i0, i0, i0, i0, i0, i0, i0);
	for (int a = 0; a < P->naggs; a++)
	{
		std::string ia = t + "\t\t\t\t";
		std::string cond = G->ffq[a] != NULL ? "ffp" + std::to_string(a) :
			G->fslot[a] >= 0 ? "(!n" + std::to_string(G->fslot[a]) + " && v" + std::to_string(G->fslot[a]) + ".i != 0)" :
			std::string("true");

		if (G->ffq[a] != NULL)
		{
			std::string q;

			(void) qual_src(G->ffq[a], ("ff" + std::to_string(a)).c_str(), ("fu" + std::to_string(a)).c_str(), &q,
							NULL, 0);
			put(s, "%s\t\tbool ffp%d = %s;\n", i0, a, q.c_str());
		}
		put(s, "%s\t\t{\n%s\t\t\tunsigned long long x[3] = {0, 0, 0};\n%s\t\t\tbool has = false;\n\n"
			"%s\t\t\tif (err == TM_OK && %s)\n%s\t\t\t{\n", i0, i0, i0, i0, cond.c_str(), i0);
		if (G->aggs[a].kind == TM_AGG_COUNT_STAR)
			put(s, "%shas = true;\n", ia.c_str());
		else
		{
			arg_src(s, G->fas[a], G->argslot[a], ia);
			put(s, "%sif (ast != TM_OK)\n%s\terr = ast;\n%selse if (!an)\n%s{\n%s\tast = priv_x(&ag%d, &av, x);\n"
				"%s\tif (ast != TM_OK)\n%s\t\terr = ast;\n%s\telse\n%s\t\thas = true;\n%s}\n",
				ia.c_str(), ia.c_str(), ia.c_str(), ia.c_str(), ia.c_str(), a, ia.c_str(), ia.c_str(), ia.c_str(),
				ia.c_str(), ia.c_str());
		}
		put(s, "%s\t\t\t}\n%s\t\t\tpriv_warp_combine(R, g, %d, &ag%d, act, peers, first, thr, &j, &err, has, x);\n"
			"%s\t\t}\n", i0, i0, a, a, i0);
	}
	put(s, "%s\t\tst = err;\n%s\t}\n%s\telse\n%s\t{\n", i0, i0, i0, i0);
	/* the group's own states (agg_update) */
	for (int a = 0; a < P->naggs; a++)
	{
		std::string ia = t + "\t\t\t";

		if (G->ffq[a] != NULL)
		{
			std::string q;

			(void) qual_src(G->ffq[a], ("ff" + std::to_string(a)).c_str(), ("fu" + std::to_string(a)).c_str(), &q,
							NULL, 0);
			put(s, "%s\t\tif (st == TM_OK && %s)\n%s\t\t{\n", i0, q.c_str(), i0);
		}
		else if (G->fslot[a] >= 0)
			put(s, "%s\t\tif (st == TM_OK && !n%d && v%d.i != 0)\n%s\t\t{\n", i0, G->fslot[a], G->fslot[a], i0);
		else
			put(s, "%s\t\tif (st == TM_OK)\n%s\t\t{\n", i0, i0);
		if (G->aggs[a].kind == TM_AGG_COUNT_STAR)
			put(s, "%sav.n = 0;\n%sst = agg_apply<true>(&ag%d, &R.astate[%d], g, av, R.flags, R.cancel);\n",
				ia.c_str(), ia.c_str(), a, a);
		else
		{
			arg_src(s, G->fas[a], G->argslot[a], ia);
			put(s, "%sif (ast != TM_OK)\n%s\tst = ast;\n%selse if (!an)\n"
				"%s\tst = agg_apply<true>(&ag%d, &R.astate[%d], g, av, R.flags, R.cancel);\n",
				ia.c_str(), ia.c_str(), ia.c_str(), ia.c_str(), a, a);
		}
		put(s, "%s\t\t}\n", i0);
	}
	put(s, "%s\t}\n%s\tif (st != TM_OK)\n%s\t\tgoto row_done;\n%s\tnsink++;\n%s}\n", i0, i0, i0, i0, i0);
}

/*
 * op k and what follows it, at indent d: a FILTER an if around the rest; an INNER probe a loop over its
 * key's build rows (their payload into the slots, the residual an if around the rest), a SEMI / ANTI
 * probe the rest once if a build row passes / none does (op_next and probe_decide of the walk, written
 * out as nested blocks)
 */
static bool
ops_src(Gen *G, int k, int d, char *why, size_t whylen)
{
	const DOp  *op;
	std::string &s = G->s;
	std::string t = tabs(d);
	const char *i0 = t.c_str();
	std::string q = "true";
	char		fq[16],
				qu[16];

	if (k == G->P->nops)
	{
		sink_src(G, d);
		return true;
	}
	op = &G->ops[k];
	snprintf(fq, sizeof(fq), "fq%d", k);
	snprintf(qu, sizeof(qu), "qu%d", k);
	if (G->fqs[k] != NULL && !qual_src(G->fqs[k], fq, qu, &q, why, whylen))
		return false;
	if (op->kind == TM_OP_FILTER)
	{
		if (k < G->nlead)
		{
			/* a leading filter: the row is done where it fails (the cancel word polled, as the walk does) */
			put(s, "%sif (!%s)\n%s{\n%s\tif (cancel_poll(&cp))\n%s\t\tst = ST_CANCEL;\n%s\tgoto row_done;\n%s}\n",
				i0, q.c_str(), i0, i0, i0, i0, i0);
			if (k == G->nlead - 1)
			{
				/* the other columns, for the rows that passed (TPC-H Q6: 2% of them) */
				put(s, "%sLOAD_REST\n", i0);
			}
			return ops_src(G, k + 1, d, why, whylen);
		}
		put(s, "%sif (%s)\n%s{\n", i0, q.c_str(), i0);
		if (!ops_src(G, k + 1, d + 1, why, whylen))
			return false;
		put(s, "%s}\n", i0);
		return true;
	}

	/* a probe: its keys looked up (NULL keys never match) */
	put(s, "%s{\n%s\tTmValue pk[%d];\n%s\tuint64_t h = 0;\n%s\tint64_t rs = 0, re = 0;\n%s\tbool kn = false;\n\n",
		i0, i0, op->nkeys, i0, i0, i0);
	for (int i = 0; i < op->nkeys; i++)
		put(s, "%s\tpk[%d] = v%d;\n%s\tkn = kn || n%d;\n%s\tif (!kn)\n%s\t\th = tm_hash_key(h, &pk[%d], false, &hk%d[%d]);\n",
			i0, i, G->pkey[k][i], i0, G->pkey[k][i], i0, i0, i, k, i);
	put(s, "%s\tif (kn || !join_lookup(ht%d, h, pk, &rs, &re))\n%s\t\trs = re = 0;\n", i0, k, i0);
	if (op->jointype == TM_JOIN_INNER)
		put(s, "%s\tfor (int64_t r%d = rs; r%d < re; r%d++)\n%s\t{\n", i0, k, k, k, i0);
	else
		put(s, "%s\tbool found = false;\n\n%s\tfor (int64_t r%d = rs; r%d < re; r%d++)\n%s\t{\n", i0, i0, k, k, k, i0);
	put(s, "%s\t\tif (cancel_poll(&cp))\n%s\t\t{\n%s\t\t\tst = ST_CANCEL;\n%s\t\t\tgoto row_done;\n%s\t\t}\n",
		i0, i0, i0, i0, i0);
	for (int i = 0; i < op->nfill; i++)
		put(s, "%s\t\tv%d = pay%d_%d[r%d];\n%s\t\tn%d = pn%d_%d[r%d] != 0;\n", i0, G->fill[k][i].slot, k, i, k, i0,
			G->fill[k][i].slot, k, i, k);
	if (op->jointype == TM_JOIN_INNER)
	{
		put(s, "%s\t\tif (%s)\n%s\t\t{\n", i0, q.c_str(), i0);
		if (!ops_src(G, k + 1, d + 3, why, whylen))
			return false;
		put(s, "%s\t\t}\n%s\t}\n%s}\n", i0, i0, i0);
		return true;
	}
	put(s, "%s\t\tif (%s)\n%s\t\t{\n%s\t\t\tfound = true;\n%s\t\t\tbreak;\n%s\t\t}\n%s\t}\n%s\tif (%sfound)\n%s\t{\n",
		i0, q.c_str(), i0, i0, i0, i0, i0, i0, op->jointype == TM_JOIN_SEMI ? "" : "!", i0);
	if (!ops_src(G, k + 1, d + 2, why, whylen))
		return false;
	put(s, "%s\t}\n%s}\n", i0, i0);
	return true;
}

bool
tm_jit_source(const DPipe *P, TmJitHostFn host, void *arg, char **src, char *why, size_t whylen)
{
	const DSlotRef *load = P->nload > 0 ? (const DSlotRef *) host(P->load, arg) : NULL;
	const DCol *cols = (const DCol *) host(P->srccols, arg);
	const TmExpr *const *keys = P->nkeys > 0 ? (const TmExpr *const *) host(P->keys, arg) : NULL;
	const TmType *keytypes = P->nkeys > 0 ? (const TmType *) host(P->keytypes, arg) : NULL;
	Gen		   *G;
	int			loadcol[TM_GPU_MAX_SLOTS];	/* the column slot s is loaded from, or -1 */
	int			fillop[TM_GPU_MAX_SLOTS];	/* the probe whose payload slot s is, or -1 */
	bool		used[TM_GPU_MAX_SLOTS];
	bool		tested[TM_GPU_MAX_SLOTS];	/* read by a leading filter: loaded before them, the others after */
	bool		colused[TM_GPU_MAX_SLOTS];
	std::string rest;
	size_t		at;
	bool		ok = false;

	*src = NULL;
	/* the shape (tm_jit.h) */
	if (P->sinkkind != TM_SINK_AGG)
		return no(why, whylen, "the sink is not an aggregate");
	if (!P->fastx)
		return no(why, whylen, "fast paths off");
	if (P->nslots < 0 || P->nslots > TM_GPU_MAX_SLOTS || P->nkeys > TM_GPU_MAX_KEYS || P->naggs > 64 ||
		P->nops > TM_GPU_MAX_OPS || P->naggs < 1)
		return no(why, whylen, "too many slots, keys or aggregates");
	G = new (std::nothrow) Gen();
	if (G == NULL)
		return no(why, whylen, "out of host memory");
	G->P = P;
	G->ops = P->nops > 0 ? (const DOp *) host(P->ops, arg) : NULL;
	G->aggs = (const DAgg *) host(P->aggs, arg);
	memset(used, 0, sizeof(used));
	memset(tested, 0, sizeof(tested));
	memset(colused, 0, sizeof(colused));
	for (int i = 0; i < P->nslots; i++)
		loadcol[i] = fillop[i] = -1;
	for (int i = 0; i < P->nload; i++)
	{
		if (load[i].slot < 0 || load[i].slot >= P->nslots || load[i].col < 0 || load[i].col >= TM_GPU_MAX_SLOTS)
		{
			no(why, whylen, "bad load list");
			goto done;
		}
		loadcol[load[i].slot] = load[i].col;
	}
	G->nlead = 0;
	while (G->nlead < P->nops && G->ops[G->nlead].kind == TM_OP_FILTER)
		G->nlead++;
	for (int k = 0; k < P->nops; k++)
	{
		const DOp  *op = &G->ops[k];

		G->fqs[k] = op->fq != NULL ? (const DFastQual *) host(op->fq, arg) : NULL;
		if ((op->kind == TM_OP_FILTER && G->fqs[k] == NULL) || (op->qual != NULL && G->fqs[k] == NULL) ||
			(G->fqs[k] != NULL && (G->fqs[k]->partial || G->fqs[k]->n > FQ_MAX || G->fqs[k]->nprog > FQ_PROG_MAX)))
		{
			no(why, whylen, "op %d: a condition that is not a tree of plain tests", k);
			goto done;
		}
		for (int p = 0; G->fqs[k] != NULL && p < G->fqs[k]->n; p++)
		{
			const DFastCmp *f = &G->fqs[k]->c[p];

			if (f->l >= P->nslots || f->r >= P->nslots)
			{
				no(why, whylen, "op %d: bad slot", k);
				goto done;
			}
			if (f->l >= 0)
				used[f->l] = true;
			if (f->r >= 0)
				used[f->r] = true;
			if (f->l >= 0 && k < G->nlead)
				tested[f->l] = true;
			if (f->r >= 0 && k < G->nlead)
				tested[f->r] = true;
		}
		if (op->kind == TM_OP_FILTER)
			continue;
		if (op->kind != TM_OP_PROBE ||
			(op->jointype != TM_JOIN_INNER && op->jointype != TM_JOIN_SEMI && op->jointype != TM_JOIN_ANTI))
		{
			no(why, whylen, "op %d: a left join", k);
			goto done;
		}
		if (op->nkeys < 1 || op->nkeys > TM_GPU_MAX_KEYS)
		{
			no(why, whylen, "op %d: bad keys", k);
			goto done;
		}
		{
			const TmExpr *const *pk = (const TmExpr *const *) host(op->keys, arg);

			for (int i = 0; i < op->nkeys; i++)
			{
				G->pkey[k][i] = bare_slot((const TmExpr *) host(pk[i], arg));
				if (G->pkey[k][i] < 0 || G->pkey[k][i] >= P->nslots)
				{
					no(why, whylen, "op %d: a join key that is not a column", k);
					goto done;
				}
				used[G->pkey[k][i]] = true;
			}
		}
		G->fill[k] = op->nfill > 0 ? (const DSlotRef *) host(op->fill, arg) : NULL;
		for (int i = 0; i < op->nfill; i++)
		{
			if (G->fill[k][i].slot < 0 || G->fill[k][i].slot >= P->nslots)
			{
				no(why, whylen, "op %d: bad payload slot", k);
				goto done;
			}
			fillop[G->fill[k][i].slot] = k;
		}
	}
	for (int i = 0; i < P->nkeys; i++)
	{
		G->keyslot[i] = bare_slot((const TmExpr *) host(keys[i], arg));
		if (G->keyslot[i] < 0 || G->keyslot[i] >= P->nslots)
		{
			no(why, whylen, "group key %d is not a column", i);
			goto done;
		}
		used[G->keyslot[i]] = true;
	}
	for (int a = 0; a < P->naggs; a++)
	{
		const DAgg *ag = &G->aggs[a];

		G->fas[a] = NULL;
		G->ffq[a] = NULL;
		G->fslot[a] = -1;
		G->argslot[a] = -1;
		if (ag->kind == TM_AGG_ANY || ag->distinct ||
			(ag->mode != AM_COUNT && ag->mode != AM_SUM_I64 && ag->mode != AM_SUM_I192 && ag->mode != AM_MINMAX_INT))
		{
			no(why, whylen, "aggregate %d: DISTINCT, any() or a locked update", a);
			goto done;
		}
		if (ag->filter != NULL)
		{
			if (ag->ffq != NULL)
			{
				G->ffq[a] = (const DFastQual *) host(ag->ffq, arg);
				if (G->ffq[a]->partial || G->ffq[a]->n > FQ_MAX || G->ffq[a]->nprog > FQ_PROG_MAX)
					G->ffq[a] = NULL;
				for (int p = 0; G->ffq[a] != NULL && p < G->ffq[a]->n; p++)
				{
					if (G->ffq[a]->c[p].l >= P->nslots || G->ffq[a]->c[p].r >= P->nslots)
						G->ffq[a] = NULL;
					else
					{
						if (G->ffq[a]->c[p].l >= 0)
							used[G->ffq[a]->c[p].l] = true;
						if (G->ffq[a]->c[p].r >= 0)
							used[G->ffq[a]->c[p].r] = true;
					}
				}
			}
			else if ((G->fslot[a] = bare_slot((const TmExpr *) host(ag->filter, arg))) >= P->nslots)
				G->fslot[a] = -1;
			if (G->ffq[a] == NULL && G->fslot[a] < 0)
			{
				no(why, whylen, "aggregate %d: a FILTER that is not a tree of plain tests", a);
				goto done;
			}
			if (G->fslot[a] >= 0)
				used[G->fslot[a]] = true;
			else
			{
				std::string q;

				if (!qual_src(G->ffq[a], "ff", "fu", &q, why, whylen))
					goto done;
			}
		}
		if (ag->kind == TM_AGG_COUNT_STAR)
			continue;
		if (ag->fa != NULL)
		{
			G->fas[a] = (const TmFastArith *) host(ag->fa, arg);
			if (G->fas[a]->n < 1 || G->fas[a]->n > TM_FA_MAX_INSTR)
			{
				no(why, whylen, "aggregate %d: bad arithmetic", a);
				goto done;
			}
			for (int i = 0; i < G->fas[a]->n; i++)
				if (G->fas[a]->ins[i].op == TMI_PUSH_SLOT)
				{
					if (G->fas[a]->ins[i].a < 0 || G->fas[a]->ins[i].a >= P->nslots)
					{
						no(why, whylen, "aggregate %d: bad slot", a);
						goto done;
					}
					used[G->fas[a]->ins[i].a] = true;
				}
			continue;
		}
		G->argslot[a] = bare_slot((const TmExpr *) host(ag->arg, arg));
		if (G->argslot[a] < 0 || G->argslot[a] >= P->nslots)
		{
			no(why, whylen, "aggregate %d: the argument is neither a column nor plain arithmetic", a);
			goto done;
		}
		used[G->argslot[a]] = true;
	}
	for (int sl = 0; sl < P->nslots; sl++)
		if (used[sl] && loadcol[sl] >= 0 && fillop[sl] < 0)
			colused[loadcol[sl]] = true;

	/* the kernel */
	{
		std::string &s = G->s;

		put(s, "/* generated by themis (cuda/tm_jit.cu) */\n#include \"tm_pipeline_dev.cuh\"\n\n"
			"static __device__ __forceinline__ TmValue\ntmj_val(unsigned long long lo, unsigned long long hi)\n{\n"
			"\tTmValue v;\n\n\tv.n = (tm_int128) (((tm_uint128) hi << 64) | (tm_uint128) lo);\n\treturn v;\n}\n\n"
			"extern \"C\" __global__ void __launch_bounds__(TPB, PL_MIN_BLOCKS)\n"
			TM_JIT_KERNEL_NAME "(const DPipe *__restrict__ P, DRun R, int64_t rowlimit)\n{\n"
			"\tint64_t nrows = P->nrows < rowlimit ? P->nrows : rowlimit;\n"
			"\tint64_t stride = (int64_t) gridDim.x * blockDim.x;\n"
			"\tunsigned long long nsink = 0;\n\tDCancel cp;\n");
		/* what every row reads the same: columns (their kinds constant), parameters, tests, tables, aggregates */
		for (int c = 0; c < TM_GPU_MAX_SLOTS; c++)
			if (colused[c])
				put(s, "\tDCol c%d = P->srccols[%d];\n\tc%d.fmt = %d;\n", c, c, c, cols[c].fmt);
		for (int sl = 0; sl < P->nslots; sl++)
			if (used[sl] && loadcol[sl] < 0 && fillop[sl] < 0)
				put(s, "\tconst TmValue v%d = P->init_vals[%d];\n\tconst bool n%d = P->init_nulls[%d] != 0;\n",
					sl, sl, sl, sl);
		for (int k = 0; k < P->nops; k++)
		{
			if (G->fqs[k] != NULL)
				put(s, "\tconst DFastQual *fq%d = P->ops[%d].fq;\n\tconst TmExpr *qu%d = P->ops[%d].qual;\n", k, k, k, k);
			if (G->ops[k].kind != TM_OP_PROBE)
				continue;
			put(s, "\tconst DJoin *ht%d = P->ops[%d].ht;\n\tconst TmType *hk%d = ht%d->keytypes;\n", k, k, k, k);
			for (int i = 0; i < G->ops[k].nfill; i++)
				if (used[G->fill[k][i].slot])
					put(s, "\tconst TmValue *pay%d_%d = ht%d->pay[%d];\n\tconst uint8_t *pn%d_%d = ht%d->paynulls[%d];\n",
						k, i, k, G->fill[k][i].col, k, i, k, G->fill[k][i].col);
		}
		for (int i = 0; i < P->nkeys; i++)
			put(s, "\tTmType kt%d = P->keytypes[%d];\n\tkt%d.kind = %d;\n", i, i, i, keytypes[i].kind);
		for (int a = 0; a < P->naggs; a++)
		{
			const DAgg *ag = &G->aggs[a];

			put(s, "\tDAgg ag%d = P->aggs[%d];\n\tag%d.kind = %d; ag%d.mode = %d; ag%d.wagg = %d; ag%d.distinct = 0;\n"
				"\tag%d.argtype.kind = %d; ag%d.argtype.scale = %d; ag%d.restype.scale = %d;\n",
				a, a, a, ag->kind, a, ag->mode, a, ag->wagg, a, a, ag->argtype.kind, a, ag->argtype.scale, a,
				ag->restype.scale);
			if (G->ffq[a] != NULL)
				put(s, "\tconst DFastQual *ff%d = P->aggs[%d].ffq;\n\tconst TmExpr *fu%d = P->aggs[%d].filter;\n",
					a, a, a, a);
		}
		put(s, "\n\tcancel_init(&cp, R.cancel);\n\tif (R.memo || R.priv_k > 0)\n\t\tpriv_init(P, R);\n"
			"\tfor (int64_t row = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; row < nrows; row += stride)\n\t{\n"
			"\t\tint st = TM_OK;\n");
		/* the slots of probes' payloads: NULL until filled, as pipeline_kernel starts them */
		for (int sl = 0; sl < P->nslots; sl++)
			if (used[sl] && fillop[sl] >= 0)
				put(s, "\t\tTmValue v%d;\n\t\tbool n%d = true;\n", sl, sl);
		for (int sl = 0; sl < P->nslots; sl++)
			if (used[sl] && loadcol[sl] >= 0 && fillop[sl] < 0)
				put(s, "\t\tTmValue v%d;\n\t\tbool n%d;\n", sl, sl);
		for (int sl = 0; sl < P->nslots; sl++)
			if (used[sl] && fillop[sl] >= 0)
				put(s, "\t\tv%d.n = 0;\n", sl);
		put(s, "\n\t\tif (stopped_at(R.flags, row))\n\t\t\tbreak;\n");
		for (int sl = 0; sl < P->nslots; sl++)
			if (used[sl] && loadcol[sl] >= 0 && fillop[sl] < 0 && tested[sl])
				put(s, "\t\tload_col(&c%d, row, &v%d, &n%d);\n", loadcol[sl], sl, sl);
		for (int sl = 0; sl < P->nslots; sl++)
			if (used[sl] && loadcol[sl] >= 0 && fillop[sl] < 0 && !tested[sl])
				put(rest, "\t\tload_col(&c%d, row, &v%d, &n%d);\n", loadcol[sl], sl, sl);
		if (G->nlead == 0)
			s += rest;
		if (!ops_src(G, 0, 2, why, whylen))
			goto done;
		if (G->nlead > 0 && (at = s.find("\t\tLOAD_REST\n")) != std::string::npos)
			s.replace(at, strlen("\t\tLOAD_REST\n"), rest);
		put(s, "row_done:\n"
			"\t\tif (st != TM_OK)\n\t\t{\n\t\t\tif (st == ST_CANCEL)\n\t\t\t\tatomicExch(&R.flags->stop, 1);\n"
			"\t\t\telse if (st != ST_ABORT)\n\t\t\t\trecord_error(R.flags, st, (long long) row);\n\t\t\tbreak;\n\t\t}\n"
			"\t}\n"
			"\tif (nsink > 0)\n\t\tatomicAdd(&R.flags->sinkrows, nsink);\n"
			"\tif (R.priv_k > 0)\n\t\tpriv_flush(P, R);\n}\n");
		*src = strdup(s.c_str());
		if (*src == NULL)
			no(why, whylen, "out of host memory");
		else
			ok = true;
	}
done:
	delete G;
	return ok;
}

/* ------------------------------------------------------------------------------------------------
 * NVRTC, loaded at run time
 * ------------------------------------------------------------------------------------------------
 */

/* the part of nvrtc.h used here */
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

static struct
{
	int			state;			/* 0: not tried, 1: loaded, -1: not there (why) */
	char		why[512];
	char		inc_cuda[450];
	char		inc_cccl[450];
	bool		have_cccl;
	nvrtcResult (*create) (nvrtcProgram *, const char *, const char *, int, const char *const *,
						   const char *const *);
	nvrtcResult (*compile) (nvrtcProgram, int, const char *const *);
	nvrtcResult (*log_size) (nvrtcProgram, size_t *);
	nvrtcResult (*log) (nvrtcProgram, char *);
	nvrtcResult (*cubin_size) (nvrtcProgram, size_t *);
	nvrtcResult (*cubin) (nvrtcProgram, char *);
	nvrtcResult (*destroy) (nvrtcProgram *);
	const char *(*error_string) (nvrtcResult);
} rtc;

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* libnvrtc and the toolkit's headers (once; under jit.mu) */
static bool
rtc_load(void)
{
	const char *home = getenv("CUDA_HOME");
	char		root[400];
	char		path[512];
	void	   *h;

	if (rtc.state != 0)
		return rtc.state > 0;
	rtc.state = -1;
	snprintf(root, sizeof(root), "%s", home != NULL && *home ? home : "/usr/local/cuda");
	snprintf(rtc.inc_cuda, sizeof(rtc.inc_cuda), "%s/include", root);
	snprintf(path, sizeof(path), "%s/cooperative_groups.h", rtc.inc_cuda);
	if (access(path, R_OK) != 0)
	{
		snprintf(rtc.why, sizeof(rtc.why), "no CUDA toolkit headers at %s (set CUDA_HOME)", rtc.inc_cuda);
		return false;
	}
	/* CUDA 13 keeps <cuda/std/...> (cooperative_groups.h includes them) under include/cccl */
	snprintf(rtc.inc_cccl, sizeof(rtc.inc_cccl), "%s/include/cccl", root);
	rtc.have_cccl = is_dir(rtc.inc_cccl);
	snprintf(path, sizeof(path), "%s/lib64/libnvrtc.so", root);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		h = dlopen("libnvrtc.so", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
	{
		snprintf(rtc.why, sizeof(rtc.why), "no libnvrtc (%s)", dlerror());
		return false;
	}
#define SYM(field, name) \
	do { \
		*(void **) &rtc.field = dlsym(h, name); \
		if (rtc.field == NULL) \
		{ \
			snprintf(rtc.why, sizeof(rtc.why), "libnvrtc without %s", name); \
			return false; \
		} \
	} while (0)
	SYM(create, "nvrtcCreateProgram");
	SYM(compile, "nvrtcCompileProgram");
	SYM(log_size, "nvrtcGetProgramLogSize");
	SYM(log, "nvrtcGetProgramLog");
	SYM(cubin_size, "nvrtcGetCUBINSize");
	SYM(cubin, "nvrtcGetCUBIN");
	SYM(destroy, "nvrtcDestroyProgram");
	SYM(error_string, "nvrtcGetErrorString");
#undef SYM
	rtc.state = 1;
	return true;
}

/*
 * src compiled for sm_<arch> into *cubin (malloc'd); false with why (NVRTC's log, cut) where it fails.
 * Any thread: NVRTC programs are independent.
 */
static bool
rtc_compile(const char *src, int arch, char **cubin, size_t *size, double *ms, char *why, size_t whylen)
{
	const char *names[TM_NVRTC_NHEADERS + TM_JIT_NHEADERS];
	const char *srcs[TM_NVRTC_NHEADERS + TM_JIT_NHEADERS];
	const char *opts[4 + TM_NVRTC_NOPTS];
	char		o_arch[64],
				o_cuda[610],
				o_cccl[610];
	int			nopts = 0;
	nvrtcProgram prog;
	nvrtcResult rc;
	struct timespec t0,
				t1;
	bool		ok = false;

	*cubin = NULL;
	for (int i = 0; i < TM_NVRTC_NHEADERS; i++)
	{
		names[i] = tm_nvrtc_header_names[i];
		srcs[i] = tm_nvrtc_headers[i];
	}
	for (int i = 0; i < TM_JIT_NHEADERS; i++)
	{
		names[TM_NVRTC_NHEADERS + i] = tm_jit_header_names[i];
		srcs[TM_NVRTC_NHEADERS + i] = tm_jit_header_srcs[i];
	}
	snprintf(o_arch, sizeof(o_arch), "--gpu-architecture=sm_%d", arch);
	snprintf(o_cuda, sizeof(o_cuda), "-I%s", rtc.inc_cuda);
	snprintf(o_cccl, sizeof(o_cccl), "-I%s", rtc.inc_cccl);
	opts[nopts++] = o_arch;
	opts[nopts++] = o_cuda;
	if (rtc.have_cccl)
		opts[nopts++] = o_cccl;
	for (int i = 0; i < TM_NVRTC_NOPTS; i++)
		opts[nopts++] = tm_nvrtc_opts[i];
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = rtc.create(&prog, src, "tm_jit_pipeline.cu", TM_NVRTC_NHEADERS + TM_JIT_NHEADERS, srcs, names);
	if (rc != 0)
	{
		snprintf(why, whylen, "nvrtcCreateProgram: %s", rtc.error_string(rc));
		return false;
	}
	rc = rtc.compile(prog, nopts, opts);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	if (rc != 0)
	{
		size_t		ls = 0;
		char	   *log;

		rtc.log_size(prog, &ls);
		log = (char *) malloc(ls + 1);
		if (log != NULL)
		{
			log[0] = '\0';
			rtc.log(prog, log);
		}
		snprintf(why, whylen, "NVRTC: %s: %s", rtc.error_string(rc), log != NULL ? log : "");
		free(log);
	}
	else if (rtc.cubin_size(prog, size) == 0 && (*cubin = (char *) malloc(*size)) != NULL &&
			 rtc.cubin(prog, *cubin) == 0)
		ok = true;
	else
		snprintf(why, whylen, "NVRTC: no cubin");
	if (!ok)
	{
		free(*cubin);
		*cubin = NULL;
	}
	rtc.destroy(&prog);
	return ok;
}

/* ------------------------------------------------------------------------------------------------
 * The cache and the compiling thread
 * ------------------------------------------------------------------------------------------------
 */

enum JitEntryState
{
	E_QUEUED,					/* waiting for or in the compiling thread */
	E_COMPILED,					/* cubin made, not loaded yet */
	E_LOADED,					/* fn */
	E_FAILED					/* why */
};

typedef struct JitEntry
{
	struct JitEntry *next;		/* the cache's list */
	struct JitEntry *qnext;		/* the queue */
	uint64_t	hash;
	int			dev;
	int			arch;
	char	   *src;
	int			state;
	char	   *cubin;
	size_t		cubin_size;
	double		ms;
	cudaLibrary_t lib;
	const void *fn;
	char		why[512];
} JitEntry;

static struct
{
	pthread_mutex_t mu;
	pthread_cond_t work;		/* the queue has an entry */
	pthread_cond_t done;		/* an entry left E_QUEUED */
	bool		thread;			/* the compiling thread runs */
	JitEntry   *all;
	JitEntry   *qhead;
	JitEntry   *qtail;
} jit = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, false, NULL, NULL, NULL};

static uint64_t
src_hash(const char *s)
{
	uint64_t	h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char) *s) * 1099511628211ULL;
	return h;
}

/* the compiling thread: entries in the order they came, one at a time */
static void *
jit_thread(void *unused)
{
	(void) unused;
	pthread_mutex_lock(&jit.mu);
	for (;;)
	{
		JitEntry   *e;
		char	   *cubin;
		size_t		size = 0;
		double		ms = 0;
		char		why[512];
		bool		ok;

		while (jit.qhead == NULL)
			pthread_cond_wait(&jit.work, &jit.mu);
		e = jit.qhead;
		jit.qhead = e->qnext;
		if (jit.qhead == NULL)
			jit.qtail = NULL;
		pthread_mutex_unlock(&jit.mu);
		why[0] = '\0';
		ok = rtc_compile(e->src, e->arch, &cubin, &size, &ms, why, sizeof(why));
		pthread_mutex_lock(&jit.mu);
		e->ms = ms;
		if (ok)
		{
			e->cubin = cubin;
			e->cubin_size = size;
			e->state = E_COMPILED;
		}
		else
		{
			snprintf(e->why, sizeof(e->why), "%s", why);
			e->state = E_FAILED;
		}
		pthread_cond_broadcast(&jit.done);
	}
	return NULL;
}

/* the entry of (src, dev), made and queued if new; NULL with why if it cannot be (under jit.mu) */
static JitEntry *
jit_entry(const char *src, int dev, char *why, size_t whylen)
{
	uint64_t	h = src_hash(src);
	JitEntry   *e;
	int			major = 0,
				minor = 0;

	for (e = jit.all; e != NULL; e = e->next)
		if (e->hash == h && e->dev == dev && strcmp(e->src, src) == 0)
			return e;
	if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
		cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
	{
		(void) cudaGetLastError();
		snprintf(why, whylen, "the device's compute capability is not known");
		return NULL;
	}
	if (!jit.thread)
	{
		pthread_t	t;
		pthread_attr_t at;

		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &at, jit_thread, NULL) != 0)
		{
			pthread_attr_destroy(&at);
			snprintf(why, whylen, "no thread to compile in");
			return NULL;
		}
		pthread_attr_destroy(&at);
		jit.thread = true;
	}
	e = (JitEntry *) calloc(1, sizeof(JitEntry));
	if (e == NULL || (e->src = strdup(src)) == NULL)
	{
		free(e);
		snprintf(why, whylen, "out of host memory");
		return NULL;
	}
	e->hash = h;
	e->dev = dev;
	e->arch = major * 10 + minor;
	e->state = E_QUEUED;
	e->next = jit.all;
	jit.all = e;
	if (jit.qtail != NULL)
		jit.qtail->qnext = e;
	else
		jit.qhead = e;
	jit.qtail = e;
	pthread_cond_signal(&jit.work);
	return e;
}

int
tm_jit_kernel(const char *src, int dev, size_t smem_max, bool wait, const void **fn, char *why, size_t whylen)
{
	JitEntry   *e;
	int			rc;

	*fn = NULL;
	why[0] = '\0';
	pthread_mutex_lock(&jit.mu);
	if (!rtc_load())
	{
		snprintf(why, whylen, "%s", rtc.why);
		pthread_mutex_unlock(&jit.mu);
		return TM_JIT_UNAVAILABLE;
	}
	e = jit_entry(src, dev, why, whylen);
	if (e == NULL)
	{
		pthread_mutex_unlock(&jit.mu);
		return TM_JIT_FAILED;
	}
	while (wait && e->state == E_QUEUED)
		pthread_cond_wait(&jit.done, &jit.mu);
	if (e->state == E_COMPILED)
	{
		cudaError_t err;
		cudaKernel_t k;

		/* into the calling thread's context: the executor's */
		err = cudaLibraryLoadData(&e->lib, e->cubin, NULL, NULL, 0, NULL, NULL, 0);
		if (err == cudaSuccess)
			err = cudaLibraryGetKernel(&k, e->lib, TM_JIT_KERNEL_NAME);
		if (err == cudaSuccess && smem_max > 48 * 1024)
			err = cudaFuncSetAttribute((const void *) k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem_max);
		if (err == cudaSuccess)
		{
			e->fn = (const void *) k;
			e->state = E_LOADED;
		}
		else
		{
			snprintf(e->why, sizeof(e->why), "loading the generated kernel: %s", cudaGetErrorString(err));
			(void) cudaGetLastError();
			e->state = E_FAILED;
		}
		free(e->cubin);
		e->cubin = NULL;
	}
	switch (e->state)
	{
		case E_LOADED:
			*fn = e->fn;
			rc = TM_JIT_RAN;
			break;
		case E_FAILED:
			snprintf(why, whylen, "%s", e->why);
			rc = TM_JIT_FAILED;
			break;
		default:
			rc = TM_JIT_COMPILING;
			break;
	}
	pthread_mutex_unlock(&jit.mu);
	return rc;
}

double
tm_jit_compile_ms(const char *src)
{
	uint64_t	h = src_hash(src);
	double		ms = 0;

	pthread_mutex_lock(&jit.mu);
	for (JitEntry *e = jit.all; e != NULL; e = e->next)
		if (e->hash == h && strcmp(e->src, src) == 0)
			ms = e->ms;
	pthread_mutex_unlock(&jit.mu);
	return ms;
}

int
tm_jit_compile_check(const char *src, int arch, double *ms, char *why, size_t whylen)
{
	char	   *cubin = NULL;
	size_t		size = 0;
	bool		ok;

	*ms = 0;
	pthread_mutex_lock(&jit.mu);
	ok = rtc_load();
	if (!ok)
		snprintf(why, whylen, "%s", rtc.why);
	pthread_mutex_unlock(&jit.mu);
	if (!ok)
		return -1;
	ok = rtc_compile(src, arch, &cubin, &size, ms, why, whylen);
	free(cubin);
	return ok ? 1 : 0;
}
