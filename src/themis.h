/*
 * themis.h — declarations shared by the PostgreSQL-side modules of themis (the files in src/).
 *
 * Who owns what:
 *   themis.c        _PG_init, GUCs
 *   planner.c       planner_hook: finds eligible subtrees, builds Custom Scan (Themis) nodes
 *   translate.c     plan subtree -> TmPlan (pipelines), used by planner.c
 *   ir_serialize.c  TmPlan <-> flat blob kept in custom_private
 *   expr_compile.c  PostgreSQL Expr -> TmExpr bytecode
 *   datum_conv.c    Datum <-> TmValue, PostgreSQL types <-> TmType, status -> ereport
 *   cpu_exec.c      the CPU executor of a TmPlan
 *   exec_node.c     the Custom Scan executor node (run, fallback, tuples, rescan)
 *   explain.c       EXPLAIN output of the node
 *   device.c        themis.version(), themis.gpu_status() (asks the daemon)
 *   modcount.c      per-table modification counters in shared memory: may a cache entry serve a snapshot?
 *   colbuild.c      columns in the GPU layout from heap tables and subplans; results back
 *   gpud_client.c   the backend's connection to the GPU daemon themis-gpud (src/gpud/)
 *   gpu_run.c       running a TmPlan on the daemon (cached / inline sources)
 *   gpud_worker.c   the background worker that starts and restarts the daemon
 *   cache_sql.c     themis.cache_table(), cache_drop(), cache_entries()
 */
#ifndef THEMIS_H
#define THEMIS_H

#include "postgres.h"
#include "nodes/extensible.h"
#include "nodes/execnodes.h"
#include "nodes/plannodes.h"
#include "nodes/primnodes.h"
#include "commands/explain.h"

#include "themis/tm_types.h"
#include "themis/tm_expr.h"
#include "themis/tm_ir.h"

/* ---- themis.c: settings ---- */
typedef enum ThemisDevice
{
	THEMIS_DEVICE_AUTO,
	THEMIS_DEVICE_GPU,
	THEMIS_DEVICE_CPU
} ThemisDevice;

extern bool themis_enabled;
extern int	themis_device;			/* ThemisDevice */
extern int	themis_min_rows;		/* 0: take every eligible subtree */
extern double themis_startup_cost;	/* fixed cost of running a Themis node */
extern double themis_tuple_cost;	/* cost per source row scanned by a Themis node */
extern bool themis_fallback;
extern bool themis_debug_ir;		/* print the IR (NOTICE) when a plan is made */
extern bool themis_decorrelate_on;	/* themis.decorrelate */
extern int	themis_stream_lookup_side;	/* themis.stream_lookup_side: THEMIS_TRI_* */
extern int	themis_inline_view_ctes;	/* themis.inline_view_ctes: THEMIS_TRI_* (auto: GPU usable) */
extern bool themis_view_max_ties;	/* themis.view_max_ties */
extern bool themis_gpu_fast_paths;	/* themis.gpu_fast_paths */
extern bool themis_gpu_private_global_agg;	/* themis.gpu_private_global_agg */
extern bool themis_gpu_group_wagg;	/* themis.gpu_group_wagg */
extern bool themis_gpu_nointerp;	/* themis.gpu_nointerp */
extern bool themis_gpu_dynamic_rows;	/* themis.gpu_dynamic_rows */
extern int	themis_gpu_swap_build_rows;	/* themis.gpu_swap_build_rows */
extern int	themis_gpu_swap_fuse;	/* themis.gpu_swap_fuse: THEMIS_SWAP_FUSE_* */
#define THEMIS_SWAP_FUSE_OFF	0
#define THEMIS_SWAP_FUSE_SAMPLE	1
#define THEMIS_SWAP_FUSE_COUNT	2
extern int	themis_gpu_jit;			/* themis.gpu_jit: THEMIS_JIT_* */
#define THEMIS_JIT_OFF			0
#define THEMIS_JIT_ON			1
#define THEMIS_JIT_WAIT			2
extern bool themis_probe_order;	/* themis.probe_order */
extern bool themis_build_reduction;	/* themis.build_reduction */
extern bool themis_build_exprs;	/* themis.build_exprs */
extern bool themis_dependent_group_keys;	/* themis.dependent_group_keys */
extern bool themis_stream_loads;	/* themis.stream_loads */
extern double themis_cold_plan_fraction;	/* themis.cold_plan_fraction */
extern bool themis_load_page_reader;	/* themis.load_page_reader */

/* decorrelate.c */
extern bool themis_decorrelate_candidate(Query *parse);
extern bool themis_decorrelate(Query *parse);
extern bool themis_column_not_null(Oid relid, const char *attname, bool inh);
/* the rewritten plan is kept unless estimated more than this many times as costly as the original */
#define THEMIS_DECORRELATE_MAX_RATIO 4.0
extern char *themis_gpud_path;		/* daemon executable ("" = next to postgres) */
extern int	themis_gpu_memory_limit;	/* MB, 0 = auto */
extern int	themis_cache_size;		/* MB, 0 = half of the limit */
extern int	themis_gpu_device;
extern int	themis_debug_fault;		/* ThemisFault */
extern int	themis_load_balance;	/* ThemisLoadBalance */
extern int	themis_load_workers;	/* parallel workers of a column load; -1: max_parallel_workers */
extern int	themis_join_algorithm;	/* ThemisJoinAlgorithm */

/* the same order as TmGpuJoinAlgo (cuda/tm_gpu_exec.h) */
typedef enum ThemisJoinAlgorithm
{
	THEMIS_JOIN_AUTO,
	THEMIS_JOIN_PARTITIONED,
	THEMIS_JOIN_PARTITIONED_GFUR,
	THEMIS_JOIN_PIPELINED
} ThemisJoinAlgorithm;

typedef enum ThemisTriState
{
	THEMIS_TRI_OFF,
	THEMIS_TRI_ON,				/* stream_lookup_side: table over 4x the outer side's estimated rows */
	THEMIS_TRI_AUTO				/* stream_lookup_side: over 1000x; inline_view_ctes: GPU usable */
} ThemisTriState;

typedef enum ThemisLoadBalance
{
	THEMIS_LB_NONE,
	THEMIS_LB_NIFS,
	THEMIS_LB_NIFS_AWS,
	THEMIS_LB_AUTO
} ThemisLoadBalance;

typedef enum ThemisFault
{
	THEMIS_FAULT_NONE,
	THEMIS_FAULT_DAEMON_CRASH,
	THEMIS_FAULT_GPU_ERROR,
	THEMIS_FAULT_DAEMON_HANG,
	THEMIS_FAULT_NO_GPU,
	THEMIS_FAULT_REQUEST_ONE_FD
} ThemisFault;

/* ---- gpud_worker.c ---- */
extern void tm_gpud_worker_register(void);

/* ---- translate.c / expr_compile.c: slot references ---- */

/*
 * While a subtree is translated, expressions are rewritten so that their inputs are slots of the
 * pipeline under construction: Var(varno = TM_SLOT_VARNO, varattno = slot + 1) with the slot's
 * PostgreSQL type in vartype / vartypmod / varcollid.  No PostgreSQL code ever sees these Vars.
 */
#define TM_SLOT_VARNO (-100)

/*
 * Compile expr (whose Vars are slot Vars) to bytecode.  slottypes[nslots] give the TmType of each slot.
 * If coerce_to is not NULL, the result is converted to that type (used for hash keys: integer widening,
 * numeric rescaling, float4 -> float8, bpchar/varchar -> text, date -> timestamp); the conversion must be
 * exact and order preserving, else compile fails.
 * Returns a palloc'd TmExpr, or NULL with *why set to a short reason ("function foo is not supported").
 */
extern TmExpr *tm_compile_expr(Expr *expr, const TmType *slottypes, int nslots,
							   const TmType *coerce_to, const char **why);

/*
 * The type in which a hash/merge join's key pair (left type a, right type b, equality operator eqop)
 * is compared: both sides are compiled with coerce_to = *out.  False (with *why) if themis cannot
 * compare these exactly.
 */
extern bool tm_join_key_type(const TmType *a, const TmType *b, Oid eqop, TmType *out, const char **why);

/* Human-readable bytecode (debug output of themis.debug_ir). */
extern char *tm_expr_to_string(const TmExpr *e);

/* ---- datum_conv.c ---- */

/* The TmType for a PostgreSQL type (typmod, collation), or false with *why set. */
extern bool tm_type_from_pg(Oid typid, int32 typmod, Oid collid, TmType *out, const char **why);

/*
 * Datum -> TmValue of type t.  Text kinds: the datum is detoasted into CurrentMemoryContext if needed
 * and v->s points into it (the caller copies the bytes where they must live longer).  Numeric: the
 * value is scaled to t->scale; returns false if it does not fit exactly (caller falls back).
 */
extern bool tm_datum_to_value(Datum d, const TmType *t, TmValue *v);

/* TmValue of type t -> Datum of type t->pgtype (palloc'd in CurrentMemoryContext where by reference). */
extern Datum tm_value_to_datum(const TmValue *v, const TmType *t);

/* ereport(ERROR) with PostgreSQL's own SQLSTATE and message for an error status (not TM_OK/FALLBACK). */
extern void tm_raise_status(TmStatus st) pg_attribute_noreturn();

/* Short name of a type for EXPLAIN / debug ("int4", "numeric(2)", "text"). */
extern const char *tm_type_name(const TmType *t);

/* ---- ir_serialize.c ---- */
extern bytea *tm_plan_serialize(const TmPlan *plan);
extern TmPlan *tm_plan_deserialize(const bytea *blob);	/* palloc'd in CurrentMemoryContext */
extern char *tm_plan_to_string(const TmPlan *plan);	/* debug dump */

/* ---- translate.c ---- */
typedef struct TmTranslation
{
	TmPlan	   *plan;
	List	   *scan_tlist;			/* custom_scan_tlist: one TargetEntry per output result column */
	List	   *params;				/* Param expressions for level -1 slots (custom_exprs) */
	List	   *inputs;				/* Plans read by SUBPLAN sources: custom_plans[1..] */
	List	   *tlist;				/* the node's targetlist over INDEX_VAR Vars */
	List	   *qual;				/* the node's qual over INDEX_VAR Vars */
	double		source_rows;		/* sum of estimated source rows of all pipelines (cost) */
	double		max_source_rows;	/* largest single source (min_rows check) */
	/* ordering the replaced subtree produced and its parent needs: a Sort goes on top */
	int			nsortkeys;
	AttrNumber *sortcols;			/* positions in tlist */
	Oid		   *sortops;
	Oid		   *sortcolls;
	bool	   *nullsfirst;
} TmTranslation;

/*
 * Translate the subtree rooted at `root` (a node of pstmt's final plan) into a TmTranslation.
 * need_order: the parent relies on the order of root's output.  Returns NULL with *why set when some
 * part of the subtree cannot run in themis.
 */
extern TmTranslation *tm_translate(PlannedStmt *pstmt, Plan *root, bool need_order, const char **why);
/* may the rows of a plan tree come out in an order (a Sort, a Merge Join, an index scan, ...)? */
extern bool tm_plan_ordered(Plan *p);

/* ---- build_reduce.c ---- */
/* SEMI probes that drop a hash build's rows that its probing pipeline would drop (themis.build_reduction) */
extern void tm_reduce_builds(TmPlan *plan);
/* an immediate unique index of relid on columns among attnos (build_reduce.c) */
extern bool tm_unique_index_covers(Oid relid, Bitmapset *attnos);
/* an index was passed over as not yet usable by the snapshot: the plan is transient (build_reduce.c) */
extern bool themis_plan_transient;

/* ---- planner.c ---- */
/*
 * Tables the statement being planned reads under security quals (row-level security policies, a
 * security-barrier view's conditions): translate.c leaves their scans to PostgreSQL
 */
extern List *themis_secure_relids;

/* ---- exec_node.c ---- */
extern CustomScanMethods themis_scan_methods;
extern void themis_register_exec(void);

/*
 * custom_private of a Themis Custom Scan: list_make1(Const of type bytea holding tm_plan_serialize()).
 * custom_plans: the replaced CPU subtree (the fallback) first, then the subplans that pipelines with
 *               a SUBPLAN source read (parts of that subtree themis leaves to PostgreSQL).
 * custom_exprs: the parameter expressions (level -1 slots), in order.
 */

/* ---- cpu_exec.c ---- */

/* A materialized result: ncols columns of nrows values each. */
typedef struct TmResultSet
{
	int			ncols;
	const TmType *types;
	int64		nrows;
	TmValue   **values;			/* values[col][row] */
	bool	  **nulls;			/* nulls[col][row] */
} TmResultSet;

#define THEMIS_PROBE_ORDER_OPS	16	/* TM_PROBE_ORDER_MAX_OPS (themis/tm_probe_order.h) */

typedef struct TmPipelineStats
{
	int64		source_rows;		/* rows read from the source */
	int64		sink_rows;			/* rows that reached the sink */
	int64		out_rows;			/* rows the sink produced (hash table rows, groups, emitted rows) */
	double		time_ms;
	/* GPU runs with themis.load_balance = nifs / nifs_aws (0 otherwise), of the last run */
	double		idle_ratio;			/* idle lanes per warp iteration / 32 */
	double		imbalance;			/* busiest warp's busy cycles / the average warp's */
	int64		warp_iterations;
	int64		handoffs;			/* work hand-offs between warps */
	/* GPU runs: the partitioned join (themis.join_algorithm) of the last run */
	int32		join_algo;			/* ThemisJoinAlgorithm: PARTITIONED (GFTR) or PARTITIONED_GFUR where it
									 * ran (anything else: it did not) */
	int32		join_op;			/* the INNER probe it ran in place of (where it ran) */
	int64		join_rows;
	double		join_ms;
	/* the order its ops ran in, of the last run (themis.probe_order; both executors) */
	int32		probe_reordered;	/* 1: probe_order, not the plan's */
	int8		probe_order[THEMIS_PROBE_ORDER_OPS];	/* the op that ran i-th */
	/* GPU runs: a hash table's build side chosen at run time (themis.gpu_swap_build_rows), the last run */
	int32		swap;				/* 1: this pipeline's rows up to probe swap_op built the table, the held
									 * build rows probed it; 4: ... the put-off build pipeline's rows probed
									 * it as they were made; 2: the held (or put-off) rows were built as
									 * planned (those rows were too many, or did not fit a trial build:
									 * swap_rows -1); 3: this pipeline's build was put off and not made,
									 * its rows probed the table pipeline swap_op built; 0: none */
	int32		swap_op;
	int64		swap_rows;			/* those rows (3: the estimate of its build's rows) */
	/* GPU runs: the kernel generated for it (themis.gpu_jit), the last run */
	int32		jit;				/* 0: not asked for; 1: it ran; 2: the generic kernel ran, the generated
									 * one was being compiled; 3: the pipeline has not its shape; 4:
									 * compiling it failed; 5: no NVRTC in the daemon (cuda/tm_jit.h) */
	double		jit_ms;				/* NVRTC's time to compile it */
} TmPipelineStats;

/*
 * Run all pipelines of plan on the CPU and return the output result.  Tables are read with
 * estate->es_snapshot.  params/paramnulls hold the level -1 values; inputs[i - 1] is the initialized
 * PlanState of custom_plans[i] (SUBPLAN sources), rescanned by the caller.  Memory is allocated in
 * CurrentMemoryContext.  It returns NULL with *fallback_reason set when themis cannot run the plan
 * (TM_ERR_FALLBACK: a value it cannot represent) and, with *error set too, when an expression raised
 * an error PostgreSQL raises as well (overflow, division by zero): the caller then runs PostgreSQL's
 * own plan, which raises that error exactly where PostgreSQL would (or not at all, when its plan never
 * evaluates that row), or raises it itself (tm_raise_status) when fallback is off.  stats: array of
 * npipelines.
 */
extern TmResultSet *tm_cpu_execute(const TmPlan *plan, EState *estate,
								   const TmValue *params, const bool *paramnulls,
								   PlanState **inputs, int ninputs,
								   TmPipelineStats *stats, const char **fallback_reason,
								   TmStatus *error);

/* ---- explain.c ---- */
extern void themis_explain(CustomScanState *node, List *ancestors, ExplainState *es);


#endif							/* THEMIS_H */
