/*
 * test_probe_order.c — engine unit tests of the order in which a pipeline's INNER probes run
 * (themis/tm_probe_order.h): the rows-out-per-row-in estimate, the greedy order with its one probe of
 * look-ahead and its 3/4 threshold, what may not move (probes whose keys read an earlier probe's payload,
 * probes with a residual condition or computed keys, other join kinds, runs broken by a filter), and the
 * slots' levels in the reordered copy; the rules over 20,000 random pipelines; and which builds the GPU
 * executor holds to choose their side at run time (tm_swap_hold).  Standalone: no
 * PostgreSQL headers.
 *
 *   gcc -O1 -Wall -Iinclude -Itest/unit test/unit/test_probe_order.c -o /tmp/t -lm && /tmp/t
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "themis/tm_probe_order.h"
#include "tm_unit.h"

/* an expression block of the given instructions (layout as the compiler's: header, then code) */
static TmExpr *
mk_expr(const TmInstr *code, int n)
{
	size_t		io = 48;
	size_t		total = (io + (size_t) n * sizeof(TmInstr) + 15) & ~(size_t) 15;
	TmExpr	   *e = (TmExpr *) aligned_alloc(16, total);

	memset(e, 0, total);
	e->total_size = (int32_t) total;
	e->ninstr = n;
	e->instr_off = (int32_t) io;
	e->const_off = (int32_t) total;
	e->pool_off = (int32_t) total;
	e->max_stack = 2;
	e->result.kind = TM_K_INT4;
	memcpy((char *) e + io, code, (size_t) n * sizeof(TmInstr));
	return e;
}

/* the bare slot s */
static TmExpr *
x_slot(int s)
{
	TmInstr		in;

	memset(&in, 0, sizeof(in));
	in.op = TMI_PUSH_SLOT;
	in.a = s;
	return mk_expr(&in, 1);
}

/* a computed value of slot s (s + 1: an expression that could raise an error) */
static TmExpr *
x_computed(int s)
{
	TmInstr		in[3];

	memset(in, 0, sizeof(in));
	in[0].op = TMI_PUSH_SLOT;
	in[0].a = s;
	in[1].op = TMI_PUSH_CONST;
	in[1].a = 0;
	in[2].op = TMI_ADD;
	return mk_expr(in, 3);
}

/* a pipeline under construction: source slots first, then each op's payload slot */
typedef struct P
{
	TmPipeline	pl;
	TmOp		ops[TM_PROBE_ORDER_MAX_OPS + 2];
	TmSlot		slots[64];
	TmExpr	   *keys[TM_PROBE_ORDER_MAX_OPS + 2];
} P;

static void
p_init(P *p, int nsrc)
{
	memset(p, 0, sizeof(*p));
	p->pl.ops = p->ops;
	p->pl.slots = p->slots;
	for (int s = 0; s < nsrc; s++)
	{
		p->slots[s].type.kind = TM_K_INT4;
		p->slots[s].level = 0;
		p->slots[s].col = (int16_t) s;
	}
	p->pl.nslots = nsrc;
}

/* an op of kind (jointype for a probe) whose key is `key`; returns its payload slot */
static int
p_op(P *p, int kind, int jointype, TmExpr *key)
{
	int			k = p->pl.nops++;
	TmOp	   *op = &p->ops[k];
	int			s = p->pl.nslots++;

	op->kind = kind;
	op->jointype = jointype;
	op->ht = k;
	if (kind == TM_OP_PROBE)
	{
		p->keys[k] = key;
		op->nkeys = 1;
		op->keys = &p->keys[k];
	}
	else
		op->qual = key;
	p->slots[s].type.kind = TM_K_INT4;
	p->slots[s].level = (int16_t) (k + 1);
	p->slots[s].col = 0;
	return s;
}

static int
p_probe(P *p, TmExpr *key)
{
	return p_op(p, TM_OP_PROBE, TM_JOIN_INNER, key);
}

/* perm as text, "1 2 0" */
static const char *
perm_text(const int *perm, int n)
{
	static char buf[256];
	int			len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%d", i ? " " : "", perm[i]);
	return buf;
}

static void
check_order(const char *what, const P *p, const double *e, bool want_changed, const char *want)
{
	int			perm[TM_PROBE_ORDER_MAX_OPS];
	bool		changed = tm_probe_order(&p->pl, e, perm);

	TM_CHECK_MSG(changed == want_changed && strcmp(perm_text(perm, p->pl.nops), want) == 0,
				 "%s: order %s (changed %d), expected %s (%d)", what, perm_text(perm, p->pl.nops),
				 (int) changed, want, (int) want_changed);
}

/* the rows out per row in of a probe */
static void
test_expansion(void)
{
	/* unique keys: the share of the build's source rows kept (nation by region: 5 of 25) */
	TM_CHECK(tm_probe_expansion(5, 25, false, 15000000) == 0.2);
	/* repeated keys: build rows per probing row (lineitem by l_orderkey, probed by orders) */
	TM_CHECK(tm_probe_expansion(19769680, 59996148, true, 15000000) > 1.3);
	TM_CHECK(tm_probe_expansion(399012, 60012768, true, 15000000) < 0.03);
	/* no source rows: no division by zero */
	TM_CHECK(tm_probe_expansion(0, 0, false, 0) == 0.0);
	TM_CHECK(tm_probe_expansion(3, 0, true, 0) == 3.0);
}

/*
 * TPC-H Q8's last pipeline: orders probes lineitem (by o_orderkey), customer (o_custkey), nation n1
 * (c_nationkey: customer's payload), supplier (l_suppkey: lineitem's payload), nation n2 (s_nationkey)
 */
static void
q8(P *p)
{
	int			li, cu, su;

	p_init(p, 2);				/* slots 0, 1: o_orderkey, o_custkey */
	li = p_probe(p, x_slot(0));
	cu = p_probe(p, x_slot(1));
	(void) p_probe(p, x_slot(cu));
	su = p_probe(p, x_slot(li));
	(void) p_probe(p, x_slot(su));
}

static void
test_q8(void)
{
	P			p;

	q8(&p);
	{
		/* skewed data: lineitem-part came out at 1.32 rows per order; the region keeps 1 nation in 5 */
		double		e[] = {1.32, 1.0, 0.2, 1.0, 1.0};

		check_order("skewed Q8", &p, e, true, "1 2 0 3 4");
	}
	{
		/* uniform data: 2.7% of orders meet the lineitem-part join: the plan's order */
		double		e[] = {0.027, 1.0, 0.2, 1.0, 1.0};

		check_order("uniform Q8", &p, e, false, "0 1 2 3 4");
	}
	{
		/* a probe that is not INNER, or one to keep in place (e < 0): the run is broken there */
		double		e[] = {1.32, -1, 0.2, 1.0, 1.0};

		check_order("Q8, customer kept", &p, e, false, "0 1 2 3 4");
	}
}

/* the greedy choice, the threshold, and what keeps a probe in place */
static void
test_rules(void)
{
	P			p;

	/* two independent probes: the selective one first, if it saves a quarter of the work */
	p_init(&p, 2);
	p_probe(&p, x_slot(0));
	p_probe(&p, x_slot(1));
	{
		double		e1[] = {1.0, 0.1};
		double		e2[] = {1.0, 0.9};
		double		e3[] = {4.0, 2.0};
		double		e4[] = {0.5, 0.1};

		check_order("independent, 1.0 then 0.1", &p, e1, true, "1 0");
		check_order("independent, 1.0 then 0.9 (under the threshold)", &p, e2, false, "0 1");
		check_order("independent, 4.0 then 2.0", &p, e3, true, "1 0");
		/* cost 1.5 against 1.1: 0.73 of it */
		check_order("independent, 0.5 then 0.1", &p, e4, true, "1 0");
	}

	/* the second probe's key is the first's payload: it cannot go first */
	p_init(&p, 1);
	{
		int			s = p_probe(&p, x_slot(0));

		p_probe(&p, x_slot(s));
	}
	{
		double		e[] = {5.0, 0.01};

		check_order("dependent", &p, e, false, "0 1");
	}

	/* a residual condition, or a computed key: not ahead of probes that came before it, nor behind later ones */
	p_init(&p, 2);
	p_probe(&p, x_slot(0));
	p_probe(&p, x_slot(1));
	p.ops[1].qual = x_slot(1);
	{
		double		e[] = {5.0, 0.01};

		check_order("residual condition", &p, e, false, "0 1");
		p.ops[1].qual = NULL;
		check_order("residual condition gone", &p, e, true, "1 0");
		p.keys[1] = x_computed(1);
		check_order("computed key", &p, e, false, "0 1");
		/* ... nor may others go ahead of it: its evaluation would miss the rows they drop */
		p.keys[1] = x_slot(1);
		p.ops[0].qual = x_slot(0);
		check_order("residual condition on the probe that would be passed", &p, e, false, "0 1");
		p.ops[0].qual = NULL;
		p.keys[0] = x_computed(0);
		check_order("computed key on the probe that would be passed", &p, e, false, "0 1");
	}

	/* a filter between two probes: two runs of one probe, nothing moves */
	p_init(&p, 2);
	p_probe(&p, x_slot(0));
	p_op(&p, TM_OP_FILTER, 0, x_slot(1));
	p_probe(&p, x_slot(1));
	{
		double		e[] = {5.0, -1, 0.01};

		check_order("a filter between", &p, e, false, "0 1 2");
	}

	/* a SEMI probe is not moved, nor anything across it */
	p_init(&p, 3);
	p_probe(&p, x_slot(0));
	p_op(&p, TM_OP_PROBE, TM_JOIN_SEMI, x_slot(1));
	p_probe(&p, x_slot(2));
	p_probe(&p, x_slot(1));
	{
		double		e[] = {5.0, 0.01, 3.0, 0.01};

		check_order("semi join", &p, e, true, "0 1 3 2");
	}

	/* more operators than TM_PROBE_ORDER_MAX_OPS: the plan's order */
	p_init(&p, 1);
	for (int k = 0; k <= TM_PROBE_ORDER_MAX_OPS; k++)
		p_probe(&p, x_slot(0));
	{
		double		e[TM_PROBE_ORDER_MAX_OPS + 1];
		int			perm[TM_PROBE_ORDER_MAX_OPS + 1];

		for (int k = 0; k <= TM_PROBE_ORDER_MAX_OPS; k++)
			e[k] = 10.0 - k * 0.5;
		TM_CHECK(!tm_probe_order(&p.pl, e, perm));
		for (int k = 0; k <= TM_PROBE_ORDER_MAX_OPS; k++)
			TM_CHECK_INT_EQ(perm[k], k);
	}
}

/* the reordered copy: ops moved, payload slots' levels with them, the rest as it was */
static void
test_permute(void)
{
	P			p;
	double		e[] = {1.32, 1.0, 0.2, 1.0, 1.0};
	int			perm[TM_PROBE_ORDER_MAX_OPS];
	TmOp		ops[TM_PROBE_ORDER_MAX_OPS];
	TmSlot		slots[64];
	TmPipeline	out;

	q8(&p);
	TM_CHECK(tm_probe_order(&p.pl, e, perm));
	tm_pipeline_permute(&p.pl, perm, ops, slots, &out);
	TM_CHECK_INT_EQ(out.nops, 5);
	TM_CHECK_INT_EQ(out.nslots, p.pl.nslots);
	TM_CHECK(out.ops == ops && out.slots == slots);
	for (int i = 0; i < 5; i++)
		TM_CHECK_INT_EQ(out.ops[i].ht, p.ops[perm[i]].ht);
	/* source slots stay at level 0; op k's payload slot (2 + k) at its op's new position + 1 */
	TM_CHECK_INT_EQ(out.slots[0].level, 0);
	TM_CHECK_INT_EQ(out.slots[1].level, 0);
	TM_CHECK_INT_EQ(out.slots[2].level, 3);	/* lineitem: third */
	TM_CHECK_INT_EQ(out.slots[3].level, 1);	/* customer: first */
	TM_CHECK_INT_EQ(out.slots[4].level, 2);	/* n1: second */
	TM_CHECK_INT_EQ(out.slots[5].level, 4);
	TM_CHECK_INT_EQ(out.slots[6].level, 5);
	/* every op reads only slots of level 0 or of ops before it, in the new order */
	for (int i = 0; i < 5; i++)
	{
		const TmInstr *in = tm_expr_code(out.ops[i].keys[0]);

		TM_CHECK_MSG(out.slots[in[0].a].level <= i, "op %d reads a slot of level %d", i,
					 (int) out.slots[in[0].a].level);
	}
	/* the plan's pipeline is untouched */
	TM_CHECK_INT_EQ(p.slots[2].level, 1);
	TM_CHECK_INT_EQ(p.ops[0].ht, 0);
}

/* xorshift64*, a fixed seed: the same pipelines on every run */
static uint64_t rng = 88172645463325252ULL;

static int
rnd(int n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (int) ((rng * 2685821657736338717ULL) >> 33) % n;
}

/*
 * Random pipelines of filters and probes (inner and others, keys on the source or on an earlier probe's
 * payload, computed keys, residual conditions) with random estimates: whatever the order, it is a
 * permutation that moves only inner probes within their runs, every op reads only slots filled before it,
 * a probe with a computed key or a residual condition still follows every probe of its run it followed
 * and precedes every one that followed it,
 * and a new order is estimated to take at most 3/4 of the plan's work
 */
static void
test_random(void)
{
	int			changed = 0;

	for (int iter = 0; iter < 20000; iter++)
	{
		P			p;
		int			nops = 2 + rnd(TM_PROBE_ORDER_MAX_OPS - 1);
		int			pay[TM_PROBE_ORDER_MAX_OPS];
		double		e[TM_PROBE_ORDER_MAX_OPS];
		int			perm[TM_PROBE_ORDER_MAX_OPS];
		int			pos[TM_PROBE_ORDER_MAX_OPS];
		TmOp		ops[TM_PROBE_ORDER_MAX_OPS];
		TmSlot		slots[64];
		TmPipeline	out;
		bool		bad = false;

		p_init(&p, 3);
		for (int k = 0; k < nops; k++)
		{
			int			r = rnd(10);
			int			src = rnd(k + 1) == 0 || k == 0 ? rnd(3) : pay[rnd(k)];
			TmExpr	   *key = rnd(8) == 0 ? x_computed(src) : x_slot(src);

			if (r == 0)
				pay[k] = p_op(&p, TM_OP_FILTER, 0, x_slot(src));
			else
				pay[k] = p_op(&p, TM_OP_PROBE, r == 1 ? TM_JOIN_SEMI : r == 2 ? TM_JOIN_LEFT : TM_JOIN_INNER, key);
			if (r > 2 && rnd(6) == 0)
				p.ops[k].qual = x_slot(k > 0 ? pay[rnd(k)] : 0);
			e[k] = p.ops[k].kind == TM_OP_PROBE && p.ops[k].jointype == TM_JOIN_INNER ?
				(rnd(5) == 0 ? -1 : (double) rnd(1000) / 100.0) : -1;
		}
		if (!tm_probe_order(&p.pl, e, perm))
		{
			for (int i = 0; i < nops; i++)
				bad = bad || perm[i] != i;
			TM_CHECK_MSG(!bad, "iteration %d: unchanged, yet not the plan's order: %s", iter, perm_text(perm, nops));
			continue;
		}
		changed++;
		memset(pos, 0xff, sizeof(pos));
		for (int i = 0; i < nops; i++)
			if (perm[i] >= 0 && perm[i] < nops && pos[perm[i]] < 0)
				pos[perm[i]] = i;
			else
				bad = true;
		TM_CHECK_MSG(!bad, "iteration %d: not a permutation: %s", iter, perm_text(perm, nops));
		if (bad)
			continue;
		tm_pipeline_permute(&p.pl, perm, ops, slots, &out);
		for (int i = 0; i < nops && !bad; i++)
		{
			const TmOp *op = &out.ops[i];
			const TmExpr *xs[2] = {op->kind == TM_OP_PROBE ? op->keys[0] : op->qual,
								   op->kind == TM_OP_PROBE ? op->qual : NULL};

			/* only inner probes move, and only within a run of them */
			if (perm[i] != i)
			{
				int			lo = perm[i] < i ? perm[i] : i;
				int			hi = perm[i] < i ? i : perm[i];

				for (int k = lo; k <= hi; k++)
					bad = bad || !tm_probe_movable(&p.pl, e, k);
			}
			/* every slot it reads is a source slot or filled by an op before it */
			for (int x = 0; x < 2; x++)
				if (xs[x] != NULL)
				{
					const TmInstr *in = tm_expr_code(xs[x]);

					for (int j = 0; j < xs[x]->ninstr; j++)
						if (in[j].op == TMI_PUSH_SLOT && out.slots[in[j].a].level > i)
							bad = true;
				}
			/*
			 * a computed key or a residual condition: still after every inner probe of its run it followed,
			 * and before every one that followed it
			 */
			if (op->kind == TM_OP_PROBE && (op->qual != NULL || !tm_probe_expr_is_slot(op->keys[0])))
			{
				for (int k = perm[i] - 1; k >= 0 && tm_probe_movable(&p.pl, e, k); k--)
					bad = bad || pos[k] > i;
				for (int k = perm[i] + 1; k < nops && tm_probe_movable(&p.pl, e, k); k++)
					bad = bad || pos[k] < i;
			}
		}
		TM_CHECK_MSG(!bad, "iteration %d: order %s breaks a rule", iter, perm_text(perm, nops));
		/* the saving: rows into each reordered run's probes, plan order against new */
		for (int a = 0; a < nops; a++)
		{
			int			b = a;
			double		old = 0,
						neu = 0,
						ro = 1,
						rn = 1;
			bool		moved = false;

			if (!tm_probe_movable(&p.pl, e, a))
				continue;
			while (b + 1 < nops && tm_probe_movable(&p.pl, e, b + 1))
				b++;
			for (int i = a; i <= b; i++)
			{
				old += ro;
				neu += rn;
				ro *= e[i];
				rn *= e[perm[i]];
				moved = moved || perm[i] != i;
			}
			TM_CHECK_MSG(!moved || neu <= 0.75 * old + 1e-9, "iteration %d: order %s costs %.3f against %.3f",
						 iter, perm_text(perm, nops), neu, old);
			a = b;
		}
	}
	/* the pipelines are random enough to reorder some and not others */
	TM_CHECK_MSG(changed > 1000 && changed < 19000, "%d of 20000 reordered", changed);
}

/*
 * tm_swap_hold: which builds the GPU executor holds for run_swapped, at the default setting (1,000,000)
 * and the others: the row floor, the 8x misestimate, the probing source's 4x, an unknown source, 0 and -1;
 * and the trial's limit (half the held rows)
 */
static void
test_swap_hold(void)
{
	const int64_t def = 1000000;

	/* the skewed Q8: 19.8 M lineitem rows estimated at 57 K, probed by the 15 M orders rows */
	TM_CHECK(tm_swap_hold(19769680, 57008, def, 15000000));
	/* the skewed Q14: 2 M part rows (a per-lookup estimate of 1) probed by 60 M lineitem rows: no */
	TM_CHECK(!tm_swap_hold(2000000, 1, def, 59996148));
	/* the uniform Q8: 399 K rows, under the floor */
	TM_CHECK(!tm_swap_hold(399012, 99898, def, 15000000));
	/* the floor: exactly lim rows are enough, one fewer is not */
	TM_CHECK(tm_swap_hold(def, 1000, def, def));
	TM_CHECK(!tm_swap_hold(def - 1, 1000, def, def));
	/* more than 8 times the estimate: 8 times exactly is not; an estimate under 1 counts as 1 */
	TM_CHECK(!tm_swap_hold(8000000, 1000000, def, 1));
	TM_CHECK(tm_swap_hold(8000001, 1000000, def, 1));
	TM_CHECK(tm_swap_hold(def, 0, def, 1));
	/* the probing source at most 4 times the build's rows; -1 (a result not made yet): not known, held */
	TM_CHECK(tm_swap_hold(2000000, 1, def, 8000000));
	TM_CHECK(!tm_swap_hold(2000000, 1, def, 8000001));
	TM_CHECK(tm_swap_hold(2000000, 1, def, -1));
	/* 0: every candidate, whatever its rows, estimate and probing source; -1: none */
	TM_CHECK(tm_swap_hold(1, 1e9, 0, INT64_C(1) << 40));
	TM_CHECK(!tm_swap_hold(19769680, 57008, -1, 15000000));
	/* the trial's limit */
	TM_CHECK(tm_swap_trial_limit(19769680) == 9884840);
	TM_CHECK(tm_swap_trial_limit(3) == 1);
	TM_CHECK(tm_swap_trial_limit(1) == 0);
	/* hopeless: the skewed Q9 (21.7 M lineitem rows, 15 M orders rows, the probe orders' one operator) */
	TM_CHECK(tm_swap_hopeless(21700000, def, 15000000, true));
	TM_CHECK(!tm_swap_hopeless(21700000, def, 15000000, false));
	/* half exactly is still a trial's (not more than the limit); one more is not; not known: tried */
	TM_CHECK(!tm_swap_hopeless(2000000, def, 1000000, true));
	TM_CHECK(tm_swap_hopeless(2000000, def, 1000001, true));
	TM_CHECK(!tm_swap_hopeless(2000000, def, -1, true));
	/* lim 0 holds every candidate; -1 holds none (tm_swap_hold says so first) */
	TM_CHECK(!tm_swap_hopeless(2000000, 0, 1000001, true));
}

int
main(void)
{
	TM_RUN(test_expansion);
	TM_RUN(test_q8);
	TM_RUN(test_rules);
	TM_RUN(test_permute);
	TM_RUN(test_random);
	TM_RUN(test_swap_hold);
	return tm_unit_done();
}
