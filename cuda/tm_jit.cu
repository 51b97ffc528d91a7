/*
 * tm_jit.cu — kernels generated per pipeline: their source (tm_jit_source), NVRTC loaded at run time and
 * run in a background thread, and a process-wide cache of the kernels it made (tm_jit_kernel).  Host
 * code only; the interface and the shape of pipeline it serves are in tm_jit.h.
 *
 * The generated kernel is pipeline_rows (cuda/tm_pipeline_dev.cuh) unrolled for one pipeline: a thread
 * per source row, grid-stride; the columns it reads loaded into variables; the FILTERs' trees of tests
 * written out (integer and same-scale numeric comparisons inline, the others through fq_test_ab); the
 * group found as sink_row finds it (memo_find, group_find); each aggregate's argument written out
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

/* operand `side` (0: l, 1: r) of test f: "&vS", "nS" for a slot, the test's constant otherwise */
static void
test_operand(const DFastCmp *f, int side, int k, int p, std::string *ref, std::string *isnull)
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
		snprintf(buf, sizeof(buf), "&fq%d->c[%d].%s", k, p, side == 0 ? "lk" : "rk");
		*ref = buf;
		*isnull = "false";
	}
}

/*
 * Test p of op k's DFastQual fq as a C expression: integer comparisons and numeric comparisons of one
 * scale (fq_test_ab's own shortcuts) written out with the constant in the source, the others (LIKE, IN,
 * other classes) through fq_test_ab on the device copy of the test (its text constants live there)
 */
static std::string
test_src(const DFastCmp *f, int k, int p)
{
	static const char *const ops[] = {"==", "!=", "<", "<=", ">", ">="};
	std::string s;
	std::string a,
				an,
				b,
				bn;

	test_operand(f, 0, k, p, &a, &an);
	test_operand(f, 1, k, p, &b, &bn);
	if (f->pred <= TM_PRED_GE &&
		(f->cls == TM_CMP_INT || (f->cls == TM_CMP_NUMERIC && f->lscale == f->rscale)))
	{
		const char *fld = f->cls == TM_CMP_INT ? "i" : "n";
		std::string l = f->l >= 0 ? "v" + std::to_string(f->l) + "." + fld : val_src(&f->lk) + "." + fld;
		std::string r = f->r >= 0 ? "v" + std::to_string(f->r) + "." + fld : val_src(&f->rk) + "." + fld;

		put(s, "(!%s && !%s && %s %s %s)", an.c_str(), bn.c_str(), l.c_str(), ops[f->pred], r.c_str());
		return s;
	}
	put(s, "fq_test_ab(&fq%d->c[%d], qu%d, %s, %s, %s, %s)", k, p, k, a.c_str(), an.c_str(), b.c_str(),
		bn.c_str());
	return s;
}

/*
 * op k's tree of tests as a C expression.  The program's jumps are left out: each skips a push and the
 * AND / OR that takes it, whose value the jump's condition decides, so the tree without them has the
 * same value; && and || short-circuit where the jumps did.  No test raises an error.
 */
static bool
qual_src(const DFastQual *fq, int k, std::string *out, char *why, size_t whylen)
{
	std::string st[FQ_DEPTH];
	int			sp = 0;

	for (int pc = 0; pc < fq->nprog; pc++)
	{
		int			p = fq->prog[pc];

		if (p < FQ_MAX)
		{
			if (p >= fq->n || sp >= FQ_DEPTH)
				return no(why, whylen, "filter %d: bad test program", k);
			st[sp++] = test_src(&fq->c[p], k, p);
		}
		else if (p == FQ_AND || p == FQ_OR)
		{
			if (sp < 2)
				return no(why, whylen, "filter %d: bad test program", k);
			st[sp - 2] = "(" + st[sp - 2] + (p == FQ_AND ? " && " : " || ") + st[sp - 1] + ")";
			sp--;
		}
		else if (p != FQ_JF && p != FQ_JT)
			return no(why, whylen, "filter %d: bad test program", k);
	}
	if (sp != 1)
		return no(why, whylen, "filter %d: bad test program", k);
	*out = st[0];
	return true;
}

/*
 * Aggregate a's argument into TmValue av, bool an, int ast (TM_OK or the error), as statements at
 * indent ind: a bare slot, or a TmFastArith written out as tm_fast_arith_eval runs it
 */
static void
arg_src(std::string &s, const TmFastArith *fa, int slot, const char *ind)
{
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

bool
tm_jit_source(const DPipe *P, TmJitHostFn host, void *arg, char **src, char *why, size_t whylen)
{
	const DSlotRef *load = P->nload > 0 ? (const DSlotRef *) host(P->load, arg) : NULL;
	const DCol *cols = (const DCol *) host(P->srccols, arg);
	const DOp  *ops = P->nops > 0 ? (const DOp *) host(P->ops, arg) : NULL;
	const DAgg *aggs = P->naggs > 0 ? (const DAgg *) host(P->aggs, arg) : NULL;
	const TmExpr *const *keys = P->nkeys > 0 ? (const TmExpr *const *) host(P->keys, arg) : NULL;
	const TmType *keytypes = P->nkeys > 0 ? (const TmType *) host(P->keytypes, arg) : NULL;
	const DFastQual *fqs[TM_GPU_MAX_OPS];
	const TmFastArith *fas[64];
	int			argslot[64];
	int			keyslot[TM_GPU_MAX_KEYS];
	int			loadcol[TM_GPU_MAX_SLOTS];	/* the column slot s is loaded from, or -1 */
	bool		used[TM_GPU_MAX_SLOTS];
	bool		tested[TM_GPU_MAX_SLOTS];	/* read by a filter: loaded before the filters, the others after */
	bool		colused[TM_GPU_MAX_SLOTS];
	std::string s;

	*src = NULL;
	/* the shape (tm_jit.h) */
	if (P->sinkkind != TM_SINK_AGG)
		return no(why, whylen, "the sink is not an aggregate");
	if (!P->fastx)
		return no(why, whylen, "fast paths off");
	if (P->nops != P->nlead || P->precheck >= 0)
		return no(why, whylen, "a join");
	if (P->nslots < 0 || P->nslots > TM_GPU_MAX_SLOTS || P->nkeys > TM_GPU_MAX_KEYS || P->naggs > 64 ||
		P->nops > TM_GPU_MAX_OPS || P->naggs < 1)
		return no(why, whylen, "too many slots, keys or aggregates");
	memset(used, 0, sizeof(used));
	memset(tested, 0, sizeof(tested));
	memset(colused, 0, sizeof(colused));
	for (int i = 0; i < P->nslots; i++)
		loadcol[i] = -1;
	for (int i = 0; i < P->nload; i++)
	{
		if (load[i].slot < 0 || load[i].slot >= P->nslots || load[i].col < 0 || load[i].col >= TM_GPU_MAX_SLOTS)
			return no(why, whylen, "bad load list");
		loadcol[load[i].slot] = load[i].col;
	}
	for (int k = 0; k < P->nops; k++)
	{
		if (ops[k].kind != TM_OP_FILTER || ops[k].fq == NULL)
			return no(why, whylen, "filter %d is not a tree of plain tests", k);
		fqs[k] = (const DFastQual *) host(ops[k].fq, arg);
		if (fqs[k]->partial || fqs[k]->n > FQ_MAX || fqs[k]->nprog > FQ_PROG_MAX)
			return no(why, whylen, "filter %d is not a tree of plain tests", k);
		for (int p = 0; p < fqs[k]->n; p++)
		{
			const DFastCmp *f = &fqs[k]->c[p];

			if (f->l >= P->nslots || f->r >= P->nslots)
				return no(why, whylen, "filter %d: bad slot", k);
			if (f->l >= 0)
				used[f->l] = tested[f->l] = true;
			if (f->r >= 0)
				used[f->r] = tested[f->r] = true;
		}
	}
	for (int i = 0; i < P->nkeys; i++)
	{
		keyslot[i] = bare_slot((const TmExpr *) host(keys[i], arg));
		if (keyslot[i] < 0 || keyslot[i] >= P->nslots)
			return no(why, whylen, "group key %d is not a column", i);
		used[keyslot[i]] = true;
	}
	for (int a = 0; a < P->naggs; a++)
	{
		const DAgg *ag = &aggs[a];

		fas[a] = NULL;
		argslot[a] = -1;
		if (ag->kind == TM_AGG_ANY || ag->distinct || ag->filter != NULL ||
			(ag->mode != AM_COUNT && ag->mode != AM_SUM_I64 && ag->mode != AM_SUM_I192 && ag->mode != AM_MINMAX_INT))
			return no(why, whylen, "aggregate %d: FILTER, DISTINCT, any() or a locked update", a);
		if (ag->kind == TM_AGG_COUNT_STAR)
			continue;
		if (ag->fa != NULL)
		{
			fas[a] = (const TmFastArith *) host(ag->fa, arg);
			if (fas[a]->n < 1 || fas[a]->n > TM_FA_MAX_INSTR)
				return no(why, whylen, "aggregate %d: bad arithmetic", a);
			for (int i = 0; i < fas[a]->n; i++)
				if (fas[a]->ins[i].op == TMI_PUSH_SLOT)
				{
					if (fas[a]->ins[i].a < 0 || fas[a]->ins[i].a >= P->nslots)
						return no(why, whylen, "aggregate %d: bad slot", a);
					used[fas[a]->ins[i].a] = true;
				}
			continue;
		}
		argslot[a] = bare_slot((const TmExpr *) host(ag->arg, arg));
		if (argslot[a] < 0 || argslot[a] >= P->nslots)
			return no(why, whylen, "aggregate %d: the argument is neither a column nor plain arithmetic", a);
		used[argslot[a]] = true;
	}
	for (int sl = 0; sl < P->nslots; sl++)
		if (used[sl] && loadcol[sl] >= 0)
			colused[loadcol[sl]] = true;

	/* the kernel */
	put(s, "/* generated by themis (cuda/tm_jit.cu) */\n#include \"tm_pipeline_dev.cuh\"\n\n"
		"static __device__ __forceinline__ TmValue\ntmj_val(unsigned long long lo, unsigned long long hi)\n{\n"
		"\tTmValue v;\n\n\tv.n = (tm_int128) (((tm_uint128) hi << 64) | (tm_uint128) lo);\n\treturn v;\n}\n\n"
		"extern \"C\" __global__ void __launch_bounds__(TPB, PL_MIN_BLOCKS)\n"
		TM_JIT_KERNEL_NAME "(const DPipe *__restrict__ P, DRun R, int64_t rowlimit)\n{\n"
		"\tint64_t nrows = P->nrows < rowlimit ? P->nrows : rowlimit;\n"
		"\tint64_t stride = (int64_t) gridDim.x * blockDim.x;\n"
		"\tunsigned long long nsink = 0;\n\tDCancel cp;\n");
	/* what every row reads the same: columns (their kinds constant), parameters, tests, aggregates */
	for (int c = 0; c < TM_GPU_MAX_SLOTS; c++)
		if (colused[c])
			put(s, "\tDCol c%d = P->srccols[%d];\n\tc%d.fmt = %d;\n", c, c, c, cols[c].fmt);
	for (int sl = 0; sl < P->nslots; sl++)
		if (used[sl] && loadcol[sl] < 0)
			put(s, "\tconst TmValue v%d = P->init_vals[%d];\n\tconst bool n%d = P->init_nulls[%d] != 0;\n",
				sl, sl, sl, sl);
	for (int k = 0; k < P->nops; k++)
		put(s, "\tconst DFastQual *fq%d = P->ops[%d].fq;\n\tconst TmExpr *qu%d = P->ops[%d].qual;\n", k, k, k, k);
	for (int i = 0; i < P->nkeys; i++)
		put(s, "\tTmType kt%d = P->keytypes[%d];\n\tkt%d.kind = %d;\n", i, i, i, keytypes[i].kind);
	for (int a = 0; a < P->naggs; a++)
		put(s, "\tDAgg ag%d = P->aggs[%d];\n\tag%d.kind = %d; ag%d.mode = %d; ag%d.wagg = %d; ag%d.distinct = 0;\n"
			"\tag%d.argtype.kind = %d; ag%d.argtype.scale = %d; ag%d.restype.scale = %d;\n",
			a, a, a, aggs[a].kind, a, aggs[a].mode, a, aggs[a].wagg, a, a, aggs[a].argtype.kind, a,
			aggs[a].argtype.scale, a, aggs[a].restype.scale);
	put(s, "\n\tcancel_init(&cp, R.cancel);\n\tif (R.memo || R.priv_k > 0)\n\t\tpriv_init(P, R);\n"
		"\tfor (int64_t row = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; row < nrows; row += stride)\n\t{\n"
		"\t\tint st = TM_OK;\n\t\tlong long g = 0;\n\t\tTmValue av;\n\t\tbool an;\n\t\tint ast;\n\n"
		"\t\t(void) av; (void) an; (void) ast;\n"
		"\t\tif (stopped_at(R.flags, row))\n\t\t\tbreak;\n");
	for (int sl = 0; sl < P->nslots; sl++)
		if (tested[sl] && loadcol[sl] >= 0)
			put(s, "\t\tTmValue v%d;\n\t\tbool n%d;\n\t\tload_col(&c%d, row, &v%d, &n%d);\n", sl, sl, loadcol[sl], sl, sl);
	for (int k = 0; k < P->nops; k++)
	{
		std::string q;

		if (!qual_src(fqs[k], k, &q, why, whylen))
			return false;
		put(s, "\t\tif (!%s)\n\t\t{\n\t\t\tif (cancel_poll(&cp))\n\t\t\t{\n\t\t\t\tatomicExch(&R.flags->stop, 1);\n"
			"\t\t\t\tbreak;\n\t\t\t}\n\t\t\tcontinue;\n\t\t}\n", q.c_str());
	}
	/* the other columns, for the rows that passed (TPC-H Q6: 2% of them) */
	for (int sl = 0; sl < P->nslots; sl++)
		if (used[sl] && !tested[sl] && loadcol[sl] >= 0)
			put(s, "\t\tTmValue v%d;\n\t\tbool n%d;\n\t\tload_col(&c%d, row, &v%d, &n%d);\n", sl, sl, loadcol[sl], sl, sl);
	put(s, "\t\tdo\n\t\t{\n");
	if (P->nkeys > 0)
	{
		put(s, "\t\t\tTmValue keys[%d];\n\t\t\tbool knulls[%d];\n\t\t\tuint64_t h = 0;\n\n", P->nkeys, P->nkeys);
		for (int i = 0; i < P->nkeys; i++)
			put(s, "\t\t\tkeys[%d] = v%d;\n\t\t\tknulls[%d] = n%d;\n\t\t\th = tm_hash_key(h, &keys[%d], knulls[%d], &kt%d);\n",
				i, keyslot[i], i, keyslot[i], i, i, i);
		put(s, "\t\t\tif (R.memo)\n\t\t\t{\n\t\t\t\tint slot;\n\n\t\t\t\tg = memo_find(P, h, keys, knulls, &slot);\n"
			"\t\t\t\tif (g < 0)\n\t\t\t\t{\n\t\t\t\t\tg = group_find(P, R, h, keys, knulls);\n"
			"\t\t\t\t\tif (g < 0)\n\t\t\t\t\t{\n\t\t\t\t\t\tst = ST_ABORT;\n\t\t\t\t\t\tbreak;\n\t\t\t\t\t}\n"
			"\t\t\t\t\tmemo_add(P, slot, h, keys, knulls, g);\n\t\t\t\t}\n\t\t\t}\n\t\t\telse\n\t\t\t{\n"
			"\t\t\t\tg = group_find(P, R, h, keys, knulls);\n\t\t\t\tif (g < 0)\n\t\t\t\t{\n"
			"\t\t\t\t\tst = ST_ABORT;\n\t\t\t\t\tbreak;\n\t\t\t\t}\n\t\t\t}\n");
	}
	/* the block's private states (agg_update_priv_warp) */
	put(s, "\t\t\tif (g < R.priv_k)\n\t\t\t{\n\t\t\t\tunsigned int act = __activemask();\n"
		"\t\t\t\tunsigned int peers = __match_any_sync(act, (unsigned int) g);\n"
		"\t\t\t\tunsigned int lane = threadIdx.x & 31u;\n"
		"\t\t\t\tbool first = (peers & ((1u << lane) - 1u)) == 0;\n\t\t\t\tbool thr = g < R.priv_t;\n"
		"\t\t\t\tint err = TM_OK;\n\t\t\t\tint j = 0;\n\n");
	for (int a = 0; a < P->naggs; a++)
	{
		put(s, "\t\t\t\t{\n\t\t\t\t\tunsigned long long x[3] = {0, 0, 0};\n\t\t\t\t\tbool has = false;\n\n"
			"\t\t\t\t\tif (err == TM_OK)\n\t\t\t\t\t{\n");
		if (aggs[a].kind == TM_AGG_COUNT_STAR)
			put(s, "\t\t\t\t\t\thas = true;\n");
		else
		{
			arg_src(s, fas[a], argslot[a], "\t\t\t\t\t\t");
			put(s, "\t\t\t\t\t\tif (ast != TM_OK)\n\t\t\t\t\t\t\terr = ast;\n\t\t\t\t\t\telse if (!an)\n\t\t\t\t\t\t{\n"
				"\t\t\t\t\t\t\tast = priv_x(&ag%d, &av, x);\n\t\t\t\t\t\t\tif (ast != TM_OK)\n"
				"\t\t\t\t\t\t\t\terr = ast;\n\t\t\t\t\t\t\telse\n\t\t\t\t\t\t\t\thas = true;\n\t\t\t\t\t\t}\n", a);
		}
		put(s, "\t\t\t\t\t}\n\t\t\t\t\tpriv_warp_combine(R, g, %d, &ag%d, act, peers, first, thr, &j, &err, has, x);\n"
			"\t\t\t\t}\n", a, a);
	}
	put(s, "\t\t\t\tst = err;\n\t\t\t\tbreak;\n\t\t\t}\n");
	/* the group's own states (agg_update) */
	for (int a = 0; a < P->naggs; a++)
	{
		if (aggs[a].kind == TM_AGG_COUNT_STAR)
		{
			put(s, "\t\t\tav.n = 0;\n\t\t\tst = agg_apply<true>(&ag%d, &R.astate[%d], g, av, R.flags, R.cancel);\n"
				"\t\t\tif (st != TM_OK)\n\t\t\t\tbreak;\n", a, a);
			continue;
		}
		arg_src(s, fas[a], argslot[a], "\t\t\t");
		put(s, "\t\t\tif (ast != TM_OK)\n\t\t\t{\n\t\t\t\tst = ast;\n\t\t\t\tbreak;\n\t\t\t}\n"
			"\t\t\tif (!an)\n\t\t\t{\n\t\t\t\tst = agg_apply<true>(&ag%d, &R.astate[%d], g, av, R.flags, R.cancel);\n"
			"\t\t\t\tif (st != TM_OK)\n\t\t\t\t\tbreak;\n\t\t\t}\n", a, a);
	}
	put(s, "\t\t} while (0);\n"
		"\t\tif (st != TM_OK)\n\t\t{\n\t\t\tif (st == ST_CANCEL)\n\t\t\t\tatomicExch(&R.flags->stop, 1);\n"
		"\t\t\telse if (st != ST_ABORT)\n\t\t\t\trecord_error(R.flags, st, (long long) row);\n\t\t\tbreak;\n\t\t}\n"
		"\t\tnsink++;\n\t}\n"
		"\tif (nsink > 0)\n\t\tatomicAdd(&R.flags->sinkrows, nsink);\n"
		"\tif (R.priv_k > 0)\n\t\tpriv_flush(P, R);\n}\n");
	*src = strdup(s.c_str());
	if (*src == NULL)
		return no(why, whylen, "out of host memory");
	return true;
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
