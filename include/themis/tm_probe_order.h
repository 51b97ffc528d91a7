/*
 * tm_probe_order.h — the order in which a pipeline's INNER hash probes run, chosen by the executors (CPU
 * and GPU alike) when the pipeline starts.  Plain C for gcc and nvcc, host only, no PostgreSQL.
 *
 * The plan's order is PostgreSQL's join order, chosen from estimates.  Where those are far off (the
 * JCC-H-style skewed data: TPC-H Q8's lineitem-part join comes out at 19.8 M rows against 57 K estimated),
 * a pipeline can run a probe that multiplies its rows before one that would have dropped most of them.
 * When a pipeline starts, every hash table it probes is built, so each INNER probe's rows out per row in
 * can be estimated from the table itself (tm_probe_expansion):
 *   - keys that never repeat (a table keyed by its primary key, filtered): the share of its source's rows
 *     that the table kept, since the probe side's keys reference those rows;
 *   - keys that repeat (the many side of a join: lineitem by l_orderkey): its rows per row of the probing
 *     pipeline's source.
 * A run of consecutive INNER probes is then ordered greedily: at each step, of the probes whose inputs are
 * there, the one with the fewest rows out per row in, looking one probe ahead (a probe that keeps every
 * row but makes a selective one possible: customer before nation).  The new order is kept only where it
 * is estimated to take at most 3/4 of the probes' work (rows into each probe, summed), so that estimates
 * near each other leave the plan's order alone.
 *
 * Only what cannot change a result or an error moves:
 *   - INNER probes commute (the sink is an aggregation, a hash build or an emit whose order the node does
 *     not promise: planner.c puts a Sort above where a parent needs one);
 *   - a probe moves ahead only of probes whose payload its keys do not read, and only if its keys are bare
 *     slots and it has no residual condition: its own work then raises no error on rows that the probes
 *     it passes would have dropped;
 *   - a probe whose keys are computed or that has a residual condition neither moves nor is passed: its
 *     evaluation, which may raise an error, sees the rows it sees in the plan (a probe moved ahead of it
 *     would drop rows on which PostgreSQL raises the error).  Every other operator sees the same rows or
 *     fewer.
 * Slots name the probe whose payload they hold by its position (TmSlot.level), so the reordered pipeline
 * gets a copy of the slots with the levels moved along (tm_pipeline_permute).
 *
 * The GPU executor goes one step further for a hash table whose build came out far over its estimate: it
 * may build the table from the probing side instead (tm_swap_hold below; cuda/tm_gpu_exec.cu).
 */
#ifndef THEMIS_TM_PROBE_ORDER_H
#define THEMIS_TM_PROBE_ORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "themis/tm_ir.h"
#include "themis/tm_expr_eval.h"	/* TmInstr, tm_expr_code */

#define TM_PROBE_ORDER_MAX_OPS	16	/* pipelines with more operators keep the plan's order */

/*
 * An INNER probe's rows out per row in, from its hash table: build_rows rows, made from build_src_rows
 * source rows, keys repeated or not; src_rows: the probing pipeline's source rows
 */
static inline double
tm_probe_expansion(int64_t build_rows, int64_t build_src_rows, bool repeated, int64_t src_rows)
{
	double		d = (double) (repeated ? src_rows : build_src_rows);

	return (double) build_rows / (d < 1.0 ? 1.0 : d);
}

/* is e a bare slot (a key whose evaluation cannot raise an error)? */
static inline bool
tm_probe_expr_is_slot(const TmExpr *e)
{
	return e != NULL && e->ninstr == 1 && tm_expr_code(e)[0].op == TMI_PUSH_SLOT;
}

/* the ops of [a, a + i) (bits of the run) whose payload slots e reads */
static inline uint32_t
tm_probe_expr_deps(const TmPipeline *pl, const TmExpr *e, int a, int i)
{
	uint32_t	deps = 0;
	const TmInstr *code;

	if (e == NULL)
		return 0;
	code = tm_expr_code(e);
	for (int k = 0; k < e->ninstr; k++)
		if (code[k].op == TMI_PUSH_SLOT && code[k].a >= 0 && code[k].a < pl->nslots)
		{
			int			op = pl->slots[code[k].a].level - 1;	/* the op that fills it, or < 0 */

			if (op >= a && op < a + i)
				deps |= 1u << (op - a);
		}
	return deps;
}

/* rows into the probes of a run, per row into the run, in the order ord (m of them) */
static inline double
tm_probe_order_cost(const double *e, const int *ord, int m)
{
	double		rows = 1.0;
	double		cost = 0.0;

	for (int i = 0; i < m; i++)
	{
		cost += rows;
		rows *= e[ord[i]];
	}
	return cost;
}

/* order the run ops[a .. a + m - 1] (INNER probes; e: per op); true if perm[a ..] changed */
static inline bool
tm_probe_order_run(const TmPipeline *pl, const double *e, int a, int m, int *perm)
{
	uint32_t	deps[TM_PROBE_ORDER_MAX_OPS];
	double		er[TM_PROBE_ORDER_MAX_OPS];
	int			ord[TM_PROBE_ORDER_MAX_OPS];
	int			plan[TM_PROBE_ORDER_MAX_OPS];
	uint32_t	placed = 0;
	bool		changed = false;

	for (int i = 0; i < m; i++)
		deps[i] = 0;
	for (int i = 0; i < m; i++)
	{
		const TmOp *op = &pl->ops[a + i];
		bool		lean = op->qual == NULL;

		for (int k = 0; k < op->nkeys; k++)
		{
			deps[i] |= tm_probe_expr_deps(pl, op->keys[k], a, i);
			lean = lean && tm_probe_expr_is_slot(op->keys[k]);
		}
		deps[i] |= tm_probe_expr_deps(pl, op->qual, a, i);
		if (!lean)
		{
			/*
			 * it stays after every probe it follows in the plan, and before every probe that follows it:
			 * its keys or residual condition, which may raise an error, see the rows they see in the plan
			 */
			deps[i] |= (1u << i) - 1u;
			for (int j = i + 1; j < m; j++)
				deps[j] |= 1u << i;
		}
		er[i] = e[a + i];
		plan[i] = i;
	}

	for (int n = 0; n < m; n++)
	{
		int			best = -1;
		double		best_rank = 0;

		for (int x = 0; x < m; x++)
		{
			double		ahead = 1.0;
			double		rank;

			if ((placed >> x) & 1u || (deps[x] & ~placed) != 0)
				continue;
			/* the most selective probe that x makes possible (one that needs x and nothing else left) */
			for (int y = 0; y < m; y++)
				if (y != x && !((placed >> y) & 1u) && ((deps[y] >> x) & 1u) &&
					(deps[y] & ~(placed | (1u << x))) == 0 && er[y] < ahead)
					ahead = er[y];
			rank = er[x] * ahead;
			if (best < 0 || rank < best_rank)
			{
				best = x;
				best_rank = rank;
			}
		}
		if (best < 0)
			return false;		/* not reached: the plan's order satisfies deps */
		ord[n] = best;
		placed |= 1u << best;
	}
	if (!(tm_probe_order_cost(er, ord, m) <= 0.75 * tm_probe_order_cost(er, plan, m)))
		return false;
	for (int i = 0; i < m; i++)
	{
		changed = changed || ord[i] != i;
		perm[a + i] = a + ord[i];
	}
	return changed;
}

/* may op k take part in a run of probes to order (an INNER probe with an estimate)? */
static inline bool
tm_probe_movable(const TmPipeline *pl, const double *e, int k)
{
	return pl->ops[k].kind == TM_OP_PROBE && pl->ops[k].jointype == TM_JOIN_INNER && e[k] >= 0;
}

/*
 * The order for pipeline pl: perm[i] is the op that runs i-th (pl->nops entries).  e[k]: op k's rows out
 * per row in where it is an INNER probe (tm_probe_expansion), below 0 where it should stay in place.
 * Returns true where the order differs from the plan's.
 */
static inline bool
tm_probe_order(const TmPipeline *pl, const double *e, int *perm)
{
	bool		changed = false;
	int			a = 0;

	for (int k = 0; k < pl->nops; k++)
		perm[k] = k;
	if (pl->nops < 2 || pl->nops > TM_PROBE_ORDER_MAX_OPS)
		return false;
	while (a < pl->nops)
	{
		int			b = a;

		if (!tm_probe_movable(pl, e, a))
		{
			a++;
			continue;
		}
		while (b + 1 < pl->nops && tm_probe_movable(pl, e, b + 1))
			b++;
		if (b > a && tm_probe_order_run(pl, e, a, b - a + 1, perm))
			changed = true;
		a = b + 1;
	}
	return changed;
}

/*
 * The build side chosen at run time (GPU: cuda/tm_gpu_exec.cu, run_swapped).  Is a hash build of n rows,
 * estimated at est by the planner, held ungrouped until the one pipeline that probes its table (INNER)
 * starts, under the setting lim (themis.gpu_swap_build_rows: -1 none; 0 every such build, whatever its
 * rows, the estimate and the probing source; else at least lim rows, more than TM_SWAP_MISESTIMATE times the estimate, and the
 * probing pipeline's source rows, probe_rows (-1: not known yet, a result not made), at most
 * TM_SWAP_PROBE_FACTOR times n: a count of a far larger source would rarely find half as many rows)?
 */
#define TM_SWAP_MISESTIMATE		8
#define TM_SWAP_PROBE_FACTOR	4

static inline bool
tm_swap_hold(int64_t n, double est, int64_t lim, int64_t probe_rows)
{
	if (lim < 0)
		return false;
	if (lim == 0)
		return true;
	if (est < 1)
		est = 1;
	return n >= lim && (double) n > TM_SWAP_MISESTIMATE * est &&
		(probe_rows < 0 || probe_rows <= TM_SWAP_PROBE_FACTOR * n);
}

/* the most rows a held table's probing side may have, up to the probe, to build it instead: half */
static inline int64_t
tm_swap_trial_limit(int64_t held)
{
	return held / 2;
}

/*
 * Is holding a build of n rows bound to be wasted, under the setting lim (as tm_swap_hold), where the
 * probing pipeline's one operator is the probe (bare) and its source has probe_rows rows (-1: not known)?
 * Its rows up to the probe are then its source's, so more than tm_swap_trial_limit(n) of them decline the
 * trial without a pass: the rows would be held only to be built as planned (the skewed TPC-H Q9: 21.7 M
 * lineitem rows held, written and copied, against 15 M orders rows, 4% of its time).  Not under lim = 0,
 * which holds every candidate (the tests' setting).
 */
static inline bool
tm_swap_hopeless(int64_t n, int64_t lim, int64_t probe_rows, bool bare)
{
	return lim > 0 && bare && probe_rows >= 0 && probe_rows > tm_swap_trial_limit(n);
}

/*
 * pl with its ops in the order perm (tm_probe_order) into *out: ops (pl->nops) and slots (pl->nslots) are
 * the caller's arrays for the copies; the rest of *out shares pl's memory.  A payload slot's level follows
 * its probe to its new position.
 */
static inline void
tm_pipeline_permute(const TmPipeline *pl, const int *perm, TmOp *ops, TmSlot *slots, TmPipeline *out)
{
	int			pos[TM_PROBE_ORDER_MAX_OPS];

	*out = *pl;
	if (pl->nops > TM_PROBE_ORDER_MAX_OPS)
		return;					/* (tm_probe_order keeps their order) */
	for (int i = 0; i < pl->nops; i++)
	{
		ops[i] = pl->ops[perm[i]];
		pos[perm[i]] = i;
	}
	for (int s = 0; s < pl->nslots; s++)
	{
		slots[s] = pl->slots[s];
		if (slots[s].level >= 1 && slots[s].level <= pl->nops)
			slots[s].level = (int16_t) (pos[slots[s].level - 1] + 1);
	}
	out->ops = ops;
	out->slots = slots;
}

#endif							/* THEMIS_TM_PROBE_ORDER_H */
