/*
 * themis.c — module entry point: settings (GUCs), the planner hook, the executor node registration, and,
 * when preloaded, the shared memory of the modification counters and the GPU daemon's supervisor.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "optimizer/planner.h"
#include "utils/guc.h"

#include "themis.h"
#include "bgload.h"
#include "modcount.h"

PG_MODULE_MAGIC;

bool		themis_enabled = true;
bool		themis_decorrelate_on = true;
int			themis_stream_lookup_side = THEMIS_TRI_AUTO;
int			themis_inline_view_ctes = THEMIS_TRI_AUTO;
bool		themis_view_max_ties = true;
bool		themis_gpu_fast_paths = true;
bool		themis_gpu_private_global_agg = false;
bool		themis_gpu_group_wagg = false;
bool		themis_gpu_nointerp = false;
bool		themis_gpu_dynamic_rows = true;
int			themis_gpu_swap_build_rows = 1000000;
int			themis_gpu_swap_fuse = THEMIS_SWAP_FUSE_OFF;
int			themis_gpu_jit = THEMIS_JIT_OFF;
bool		themis_probe_order = true;
bool		themis_build_reduction = true;
bool		themis_build_exprs = true;
bool		themis_dependent_group_keys = false;
bool		themis_stream_loads = true;
double		themis_cold_plan_fraction = 0.2;
bool		themis_load_page_reader = true;
int			themis_device = THEMIS_DEVICE_AUTO;
int			themis_min_rows = 100000;
double		themis_startup_cost = 10000.0;
double		themis_tuple_cost = 0.001;
bool		themis_fallback = true;
bool		themis_debug_ir = false;
char	   *themis_gpud_path = NULL;
int			themis_gpu_memory_limit = 0;
int			themis_cache_size = 0;
int			themis_gpu_device = 0;
int			themis_debug_fault = THEMIS_FAULT_NONE;
int			themis_load_balance = THEMIS_LB_AUTO;
int			themis_load_workers = -1;
int			themis_join_algorithm = THEMIS_JOIN_AUTO;

static const struct config_enum_entry join_algorithm_options[] = {
	{"auto", THEMIS_JOIN_AUTO, false},
	{"partitioned", THEMIS_JOIN_PARTITIONED, false},
	{"partitioned_gfur", THEMIS_JOIN_PARTITIONED_GFUR, false},
	{"pipelined", THEMIS_JOIN_PIPELINED, false},
	{NULL, 0, false}
};

static const struct config_enum_entry swap_fuse_options[] = {
	{"off", THEMIS_SWAP_FUSE_OFF, false},
	{"sample", THEMIS_SWAP_FUSE_SAMPLE, false},
	{"count", THEMIS_SWAP_FUSE_COUNT, false},
	{NULL, 0, false}
};

static const struct config_enum_entry jit_options[] = {
	{"off", THEMIS_JIT_OFF, false},
	{"on", THEMIS_JIT_ON, false},
	{"wait", THEMIS_JIT_WAIT, false},
	{NULL, 0, false}
};

static const struct config_enum_entry tri_state_options[] = {
	{"auto", THEMIS_TRI_AUTO, false},
	{"on", THEMIS_TRI_ON, false},
	{"off", THEMIS_TRI_OFF, false},
	{"true", THEMIS_TRI_ON, true},
	{"false", THEMIS_TRI_OFF, true},
	{"yes", THEMIS_TRI_ON, true},
	{"no", THEMIS_TRI_OFF, true},
	{"1", THEMIS_TRI_ON, true},
	{"0", THEMIS_TRI_OFF, true},
	{NULL, 0, false}
};

static const struct config_enum_entry load_balance_options[] = {
	{"none", THEMIS_LB_NONE, false},
	{"nifs", THEMIS_LB_NIFS, false},
	{"nifs_aws", THEMIS_LB_NIFS_AWS, false},
	{"auto", THEMIS_LB_AUTO, false},
	{NULL, 0, false}
};

static const struct config_enum_entry fault_options[] = {
	{"none", THEMIS_FAULT_NONE, false},
	{"daemon_crash", THEMIS_FAULT_DAEMON_CRASH, false},
	{"gpu_error", THEMIS_FAULT_GPU_ERROR, false},
	{"daemon_hang", THEMIS_FAULT_DAEMON_HANG, false},
	{"no_gpu", THEMIS_FAULT_NO_GPU, false},
	{"request_one_fd", THEMIS_FAULT_REQUEST_ONE_FD, false},
	{NULL, 0, false}
};

static const struct config_enum_entry device_options[] = {
	{"auto", THEMIS_DEVICE_AUTO, false},
	{"gpu", THEMIS_DEVICE_GPU, false},
	{"cpu", THEMIS_DEVICE_CPU, false},
	{NULL, 0, false}
};

extern void themis_install_planner_hook(void);

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomBoolVariable("themis.decorrelate",
							 "Rewrite correlated scalar subqueries with aggregates into joins with grouped subqueries before planning.",
							 "Only where the answer is the same (see src/decorrelate.c); applies while themis.enabled is on.",
							 &themis_decorrelate_on,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("themis.stream_lookup_side",
							 "Inner joins PostgreSQL runs as index lookups: hash the outer side and stream the looked-up table where it is much larger.",
							 "A nested loop over a parameterized scan becomes a hash join; off: its table is hashed (read whole). "
							 "on: where the table has more than 4 times the outer side's estimated rows, the outer side is hashed "
							 "and the table streams through the probe instead; auto (default): the same where the table has more "
							 "than 1000 times the outer side's estimated rows (TPC-H Q17: 2,000 parts against 60 M lineitem rows), "
							 "or more than 4 times and at least 10 million rows (a fact table) (src/translate.c).",
							 &themis_stream_lookup_side,
							 THEMIS_TRI_AUTO,
							 tri_state_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.view_max_ties",
							 "The max-over-a-view pattern (TPC-H Q15) computed once: the view's rows with the largest value, as its first row with ties.",
							 "A CTE read by one FROM item and by the scalar subquery of a WHERE condition v.s = (SELECT max(s) FROM v) "
							 "(or min) is read once, as (... ORDER BY s DESC NULLS LAST FETCH FIRST 1 ROW WITH TIES), and the "
							 "condition becomes v.s IS NOT NULL; the Themis node under the Sort returns only the largest rows "
							 "(src/decorrelate.c). Other uses of such a CTE are left to themis.inline_view_ctes.",
							 &themis_view_max_ties,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("themis.inline_view_ctes",
							 "The max-over-a-view pattern (TPC-H Q15): plan an aggregating CTE anew at each reference instead of materializing it.",
							 "A CTE with aggregates referenced more than once, once by a scalar subquery that aggregates over it, is "
							 "marked NOT MATERIALIZED, so that each reference is a Themis node of its own (the aggregation runs twice) "
							 "and the CTE's rows never pass through PostgreSQL. auto (default): where the GPU is usable (themis.device "
							 "gpu, or auto with the daemon's GPU usable); on the CPU executor materializing is cheaper "
							 "(src/decorrelate.c).",
							 &themis_inline_view_ctes,
							 THEMIS_TRI_AUTO,
							 tri_state_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.gpu_fast_paths",
							 "GPU: plain comparisons and bare columns without the expression interpreter, leading filters ahead of the operator walk.",
							 "Filters and join residuals that are AND / OR trees of plain comparisons and IN lists, and keys, payloads and aggregate "
							 "arguments that are bare columns, are evaluated without the interpreter. Results are the same either way; "
							 "off turns these paths off (for measuring the difference, or ruling them out when looking into a suspected bug).",
							 &themis_gpu_fast_paths,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.gpu_private_global_agg",
							 "GPU: a global aggregate (no GROUP BY) keeps block-private states and thread-private partial sums, as a grouped one does for its first groups.",
							 "Instead of one atomic per warp of rows on the aggregate's words (TPC-H Q14 on skewed data: 4.2 M rows into "
							 "one group). Off by default until measured on a GPU; results are the same either way. Under "
							 "themis.gpu_fast_paths only (cuda/tm_gpu_exec.cu, tm_gpu_pool_set_private_global).",
							 &themis_gpu_private_global_agg,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.gpu_group_wagg",
							 "GPU: the lanes of a warp that update the same group of a grouped aggregate combine their values, and one of them does the atomic.",
							 "For the groups without block-private states (past a block's first ones, or all of them where an aggregate keeps "
							 "private states off: a float sum, DISTINCT): counts, integer and numeric sums, integer min / max. Where a warp's rows "
							 "crowd onto a few groups (the skewed TPC-H Q15: a quarter of lineitem on 25 suppliers) it does fewer atomics on the "
							 "same words; where they do not it costs the combination. Off by default until measured on a GPU; results are the "
							 "same either way. Under themis.gpu_fast_paths only (cuda/tm_gpu_exec.cu, tm_gpu_pool_set_group_wagg).",
							 &themis_gpu_group_wagg,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.gpu_nointerp",
							 "GPU: a pipeline that needs no expression interpreter runs in a kernel compiled without it.",
							 "Where every condition (and aggregate FILTER) has a fast form, every key and value is a column, "
							 "every aggregate argument a column or a fast arithmetic expression, and no aggregate is DISTINCT "
							 "or needs a lock (float sums, min / max of numeric, float or text). The generic kernel's "
							 "interpreter and other branches set its code size. Off by default: on an H100 the uniform TPC-H Q14 "
							 "took 21% less with it and Q15 18% more, against the generic kernel in the same run "
							 "(bench/reports/2026-12-07-h100-sf10-swap-build). Results are the same either way. "
							 "Under themis.gpu_fast_paths only (cuda/tm_gpu_exec.cu, tm_gpu_pool_set_nointerp).",
							 &themis_gpu_nointerp,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("themis.gpu_jit",
							 "GPU: a pipeline of filters and aggregates over a table runs in a kernel generated for it.",
							 "The kernel has the pipeline's columns, tests and aggregate arithmetic in its code instead of reading them "
							 "from descriptors at every row; the daemon compiles it with NVRTC (from the CUDA toolkit: CUDA_HOME) in the "
							 "background and keeps it for every later run of the same shape, and runs the generic kernel until it is "
							 "ready, where it cannot be made (joins, DISTINCT, FILTER, float sums, ...) and where there is no NVRTC. "
							 "wait: each execution waits for its kernels to be compiled (tests). EXPLAIN ANALYZE shows which kernel ran "
							 "(\"Kernel:\"). Results and errors are the same either way (cuda/tm_jit.h).",
							 &themis_gpu_jit,
							 THEMIS_JIT_OFF,
							 jit_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.gpu_dynamic_rows",
							 "GPU: the warps of a pipeline with leading filters or a pre-checked probe take its source rows 1,024 at a time as they finish, instead of each a fixed share.",
							 "The rows of a pipeline differ in cost (how many pass the filters, how many build rows they meet, how hot their "
							 "groups are); in fixed shares a block's warps that end first wait for its slowest. Results are the same either way. "
							 "Under themis.gpu_fast_paths only (cuda/tm_gpu_exec.cu, warp_next_group).",
							 &themis_gpu_dynamic_rows,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("themis.gpu_swap_build_rows",
							"GPU: a hash table whose build side came out with at least this many rows, and more than 8 times the "
							"planner's estimate, is built from the probing pipeline's side instead where that side has at most half as many rows.",
							"The build's rows are held until the pipeline that probes the table (its one use, an inner join, over a source of "
							"at most 4 times the build's rows, where it is a table) starts; that pipeline's rows up to the probe are then counted, and the smaller "
							"side is built (TPC-H Q8 on skewed data: 19.8 M lineitem rows estimated at 57 K, against the 0.94 M orders rows "
							"that reach the join). EXPLAIN ANALYZE shows it (\"Build Side\"). Results and errors are the same either way. "
							"0: every such table is tried, whatever its rows, its estimate and its probing pipeline's source; -1: none "
							"(themis/tm_probe_order.h, cuda/tm_gpu_exec.cu: run_swapped).",
							&themis_gpu_swap_build_rows,
							1000000,
							-1,
							INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("themis.gpu_swap_fuse",
							 "GPU: a build that themis.gpu_swap_build_rows would hold is put off where its rows can be counted before they are written.",
							 "Where the build's payload is plain columns of its pipeline, its sink rows are counted before any is written "
							 "(sample: over a 16th of a source of over 8 M rows, at least 4 M, in windows spread over it; a smaller source is not put off; count: over all of every source), and "
							 "on that count the pipeline is put off: where the probing pipeline's rows up to the probe build the table "
							 "instead, the put-off pipeline's rows probe it as they are made, never written. Off (the default): the rows are "
							 "written and held as themis.gpu_swap_build_rows says. Off by default: on an H100, a sample of the first rows cost the uniform TPC-H "
							 "Q3, Q5, Q8 17-21% (the count of every candidate build) and misjudged the skewed Q8, whose matching lineitem "
							 "rows are clustered (bench/reports/2026-12-07-h100-sf10-swap-fuse); the windows are not yet timed. EXPLAIN ANALYZE shows it (\"Build Side: not "
							 "built\"). Results and errors are the same either way (cuda/tm_gpu_exec.cu: run_fused).",
							 &themis_gpu_swap_fuse,
							 THEMIS_SWAP_FUSE_OFF,
							 swap_fuse_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.probe_order",
							 "Runs a pipeline's inner hash probes in the order that the built hash tables say is cheapest, where it differs from the plan's by much.",
							 "When a pipeline starts, every table it probes is built, so each inner probe's rows out per row in are known "
							 "from the table's rows; a probe that drops most rows then goes ahead of one that multiplies them (join orders "
							 "chosen from estimates that were far off). Only probes with bare keys and no residual condition move, never "
							 "ahead of a probe whose payload they read, and never across a probe with computed keys or a residual "
							 "condition: results and errors are the same either way. EXPLAIN ANALYZE shows the "
							 "order that ran (themis/tm_probe_order.h).",
							 &themis_probe_order,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.build_reduction",
							 "Builds a hash table only from the rows that the pipeline probing it can keep, where that pipeline then probes a "
							 "filtered table on the first table's columns.",
							 "A SEMI probe of the second table is added to the first table's build (the second one built first), where the "
							 "second table is estimated to keep at most half of its source's rows and nothing between the two probes, nor "
							 "the first table's build keys and columns, can raise an error: results and errors are the same either way "
							 "(src/build_reduce.c). EXPLAIN shows the added probe. Takes effect when a query is planned.",
							 &themis_build_reduction,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.dependent_group_keys",
							 "Carries a group key that a join makes functionally dependent on the other group keys by any(), instead of "
							 "hashing and comparing it on every row.",
							 "A group key that is a column of the rows an inner probe matched, where the probe's keys are group keys of "
							 "integer types and the probed table's keys are unique (an immediate unique index): one value per group. "
							 "TPC-H Q3 groups by l_orderkey, o_orderdate, o_shippriority with o_orderkey = l_orderkey. Results are the "
							 "same either way. Off by default: on an H100 the skewed TPC-H Q3 took 14.0 ms with it, 11.4 ms without "
							 "(bench/reports/2026-12-07-h100-sf10-checks). Takes effect when a query is planned (src/translate.c).",
							 &themis_dependent_group_keys,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.build_exprs",
							 "Compute an expression over an inner join's build-side columns once per build row, where it is built, rather than once per match.",
							 "Only expressions that cannot raise an error (comparisons, LIKE with a plain pattern, IS NULL, AND / OR / NOT of "
							 "those), where the build is estimated to have no more rows than the matches: TPC-H Q14's p_type LIKE 'PROMO%' "
							 "on the part rows, not on each matching lineitem row (src/translate.c). Takes effect when a query is planned.",
							 &themis_build_exprs,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.stream_loads",
							 "GPU: a query that loads tables into the column cache sends each large one to the daemon as soon as it is read, so that its upload overlaps the reading of the others.",
							 "The tables are then read largest first; each one but the last read goes to the daemon in a LOAD request of its own "
							 "on the backend's connection, whose reply is awaited only after the last read; the query's request then names it as "
							 "cached. A load that fails is sent with the query's request, as without this setting (src/gpu_run.c).",
							 &themis_stream_loads,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("themis.cold_plan_fraction",
							 "GPU: a query whose tables are not in the column cache runs PostgreSQL's plan, and loads them in the background, where that plan is estimated cheaper than this fraction of reading them.",
							 "On the daemon's request for tables it does not hold, the Themis node compares the estimated cost of the PostgreSQL "
							 "plan it replaced with PostgreSQL's estimate of a parallel sequential scan of those tables.  Below this fraction, that "
							 "plan runs, and at the end of the query a background worker per table loads the columns the query read.  While a "
							 "table loads, queries whose plan is that cheap run it too, and other queries wait for the load (themis.cache_wait() "
							 "waits for them all).  0: cold queries always load their tables themselves.  The default, 0.2, is measured: on an "
							 "H100 host at TPC-H scale factor 10, PostgreSQL's index plan for Q19 (0.17 of the scan's cost) took 0.22-0.32 s where "
							 "loading took 1.3 s, and its plans for Q4 and Q7 (0.25 and 0.26) took longer than loading (src/bgload.c).",
							 &themis_cold_plan_fraction,
							 0.2,
							 0.0, 1.0,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.load_page_reader",
							 "Column loads read a heap table's pages directly rather than through a table scan.",
							 "The same rows in the same order, with the scan's visibility, serializable and old-snapshot checks; "
							 "off: through PostgreSQL's table scan, a slot per row (for tests comparing the two, src/colbuild.c).",
							 &themis_load_page_reader,
							 true,
							 PGC_USERSET,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.enabled",
							 "Runs eligible parts of query plans with themis.",
							 NULL,
							 &themis_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("themis.device",
							 "Where themis runs its plans: auto (the GPU where one is usable when a statement is planned, else PostgreSQL's plan), gpu, or cpu (the CPU executor).",
							 NULL,
							 &themis_device,
							 THEMIS_DEVICE_AUTO,
							 device_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("themis.min_rows",
							"Smallest estimated source table size that themis takes; 0 takes every eligible subtree.",
							NULL,
							&themis_min_rows,
							100000,
							0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomRealVariable("themis.startup_cost",
							 "Planner's estimate of the fixed cost of running a Themis node.",
							 NULL,
							 &themis_startup_cost,
							 10000.0,
							 0.0, 1e12,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("themis.tuple_cost",
							 "Planner's estimate of the cost per source row scanned by a Themis node.",
							 NULL,
							 &themis_tuple_cost,
							 0.001,
							 0.0, 1e6,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.fallback",
							 "Runs the kept PostgreSQL plan when themis cannot run a node (off: raise an error).",
							 NULL,
							 &themis_fallback,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("themis.debug_ir",
							 "Prints the themis IR of every Themis node planned (NOTICE).",
							 "Superusers only: it prints the plans' constants, also those of a SECURITY DEFINER function's queries.",
							 &themis_debug_ir,
							 false,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("themis.debug_fault",
							 "Fault injection for tests: the GPU daemon crashes (daemon_crash), reports a CUDA error (gpu_error) or holds the request for 20 s (daemon_hang) when it gets a query; or this backend finds no usable GPU (no_gpu), or sends each request's data in one descriptor, as past the protocol's limit of descriptors (request_one_fd).",
							 NULL,
							 &themis_debug_fault,
							 THEMIS_FAULT_NONE,
							 fault_options,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("themis.load_workers",
							"Parallel workers that read a table's columns for the GPU (a cold query's load, themis.cache_table()).",
							"-1: max_parallel_workers (every worker PostgreSQL allows; fewer if fewer are free), at most one less than the CPUs the server may run on (the backend reads too); 0: read in this backend alone.  max_parallel_workers_per_gather = 0 or the table's parallel_workers option also bound it.",
							&themis_load_workers,
							-1, -1, 1024,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("themis.load_balance",
							 "GPU scheduler: auto, none (one thread per source row), nifs (warps, No-Imbalance-First-Search) or nifs_aws (and Adaptive Work Sharing across warps).",
							 "auto: per pipeline, nifs_aws where a probe of it can return several build rows per probe row (a hash table with a repeated key), else none.",
							 &themis_load_balance,
							 THEMIS_LB_AUTO,
							 load_balance_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("themis.join_algorithm",
							 "GPU inner joins: auto, partitioned (radix-partitioned hash join, Gather-From-Transformed-Relations), partitioned_gfur (the same, gathering from the untransformed columns) or pipelined (the probe inside the pipeline's kernel).",
							 "auto: partitioned where the built hash table is several times the GPU's L2 cache and the probe side is at least as large, else pipelined.  The CPU executor always runs pipelined.",
							 &themis_join_algorithm,
							 THEMIS_JOIN_AUTO,
							 join_algorithm_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("themis.gpud_path",
							   "Path of the GPU daemon executable (empty: themis-gpud next to the postgres binary).",
							   NULL,
							   &themis_gpud_path,
							   "",
							   PGC_POSTMASTER,
							   0,
							   NULL, NULL, NULL);

	DefineCustomIntVariable("themis.gpu_memory_limit",
							"Device memory the GPU daemon takes in all (0: nearly all that is free).",
							NULL,
							&themis_gpu_memory_limit,
							0,
							0, INT_MAX,
							PGC_POSTMASTER,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("themis.cache_size",
							"Device memory for cached columns and query inputs, part of themis.gpu_memory_limit (0: half of it).",
							NULL,
							&themis_cache_size,
							0,
							0, INT_MAX,
							PGC_POSTMASTER,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("themis.gpu_device",
							"CUDA device number the GPU daemon uses.",
							NULL,
							&themis_gpu_device,
							0,
							0, 64,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	MarkGUCPrefixReserved("themis");

	themis_register_exec();
	themis_install_planner_hook();
	tm_modcount_init();
	tm_bgload_init();
	if (process_shared_preload_libraries_in_progress)
		tm_gpud_worker_register();
}
