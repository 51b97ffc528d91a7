/*
 * tm_gpud_proto.h — the wire protocol between PostgreSQL backends (src/gpud_client.c) and the GPU
 * daemon themis-gpud (src/gpud/).  Plain C, no PostgreSQL headers: both sides include it.
 *
 * Transport: a Unix stream socket TM_GPUD_SOCKET in the data directory (both sides run with the data
 * directory as working directory, so the name is relative).  The daemon accepts only peers of its own
 * uid (SO_PEERCRED).  Every message is a TmMsgHdr followed by hdr.len payload bytes; file descriptors
 * (memfds holding bulk data) travel with the header as SCM_RIGHTS, hdr.nfds of them.  Both ends are
 * the same host and build family, so structs go in native layout; every struct below has explicit
 * padding and a size that is a multiple of 8.
 *
 * Versioning: hdr.version is TM_GPUD_PROTO_VERSION of the sender.  A daemon answers a message of
 * another version with TM_MSG_ERROR (TMX_ERR_VERSION) and closes the connection; a backend treats a
 * reply of another version the same way.  Change the version whenever anything in this file changes.
 *
 * Conversation (the client speaks first, one request, one reply):
 *   HELLO                       -> HELLO_OK (TmxStatus) | ERROR
 *   STATUS                      -> STATUS_OK (TmxStatus)
 *   EXECUTE (TmxExec, fds)      -> RESULT (TmxResult + stats + cols, 1 fd) | NEED (int32 per source) | ERROR
 *   LOAD    (TmxExec without plan, fds) -> LOAD_OK (TmxLoadReply) | ERROR
 *   CACHE_LIST                  -> CACHE_ROWS (int64 n, then n TmxCacheRow)
 *   CACHE_DROP (TmxDrop)        -> CACHE_DROPPED (int64 entries dropped)
 *
 * Cancel: the client sends nothing while it waits for a reply; if it closes the connection instead (its
 * query was canceled, src/gpud_client.c), the daemon stops the request's GPU work (src/gpud/cancel.c)
 * and sends no result.  No message is needed for that, so it changed nothing on the wire.
 *
 * EXECUTE payload: TmxExec, the plan blob (ir_serialize.c format, padded to 8), nparams TmxParam, the
 * text bytes of the parameters (params_text_len, padded to 8), then npipes TmxSource each followed by
 * its ncols TmxCol.  Offsets in TmxCol refer to the memfd named by the source's fd_slot: slot 0 is the
 * message's first descriptor (TmxExec.fd_len bytes; the data of most inline sources), slot k > 0 the
 * k-th further one, which holds that one source's columns alone (TmxSource.slot_len bytes): a table read
 * by parallel workers arrives packed in a memfd of its own, and is sent as it is rather than copied into
 * the first (a cold request of lineitem and orders spent 0.15-0.25 s copying).  An EXECUTE with no
 * inline data may send no fd.
 *
 * A TABLE source may be sent CACHED: the daemon uses its cache entry if one exists with the same key
 * (database, relation, relfilenode) and the same stamp (modification counts, see src/modcount.c), holding
 * every listed column (attno, kind, scale).  If any CACHED source misses, the daemon answers NEED (one
 * int32 per source: 1 = send it inline) and runs nothing; the backend reads those tables and sends the
 * EXECUTE again with them INLINE and `store` set, and the daemon keeps them in its cache.  Whether an
 * entry may serve a snapshot is decided by the backend alone: the daemon compares stamps for equality.
 */
#ifndef THEMIS_TM_GPUD_PROTO_H
#define THEMIS_TM_GPUD_PROTO_H

#include <stdint.h>

#define TM_GPUD_MAGIC			0x44505447u		/* "TGPD" */
#define TM_GPUD_PROTO_VERSION	8
#define TM_GPUD_SOCKET			"themis-gpud.sock"
#define TM_GPUD_MAX_FDS			16	/* descriptors with one message */
#define TM_GPUD_MAX_PAYLOAD		(INT64_C(1) << 32)	/* sanity limit of one message's payload */

typedef enum TmMsgType
{
	TM_MSG_HELLO = 1,
	TM_MSG_HELLO_OK,
	TM_MSG_ERROR,
	TM_MSG_STATUS,
	TM_MSG_STATUS_OK,
	TM_MSG_EXECUTE,
	TM_MSG_RESULT,
	TM_MSG_NEED,
	TM_MSG_LOAD,
	TM_MSG_LOAD_OK,
	TM_MSG_CACHE_LIST,
	TM_MSG_CACHE_ROWS,
	TM_MSG_CACHE_DROP,
	TM_MSG_CACHE_DROPPED
} TmMsgType;

typedef struct TmMsgHdr
{
	uint32_t	magic;			/* TM_GPUD_MAGIC */
	uint16_t	version;		/* TM_GPUD_PROTO_VERSION of the sender */
	uint16_t	type;			/* TmMsgType */
	uint32_t	nfds;			/* descriptors sent with this header (SCM_RIGHTS) */
	uint32_t	pad;
	uint64_t	len;			/* payload bytes that follow */
} TmMsgHdr;

/* ERROR payload: TmxError followed by the message text (msglen bytes, no NUL) */
typedef enum TmxErrKind
{
	TMX_ERR_VERSION = 1,		/* protocol version mismatch */
	TMX_ERR_PROTOCOL,			/* malformed message */
	TMX_ERR_NO_DEVICE,			/* the daemon has no usable GPU */
	TMX_ERR_GPU,				/* tm_gpu_execute failed: gpu_rc says how (TmGpuRc) */
	TMX_ERR_NOMEM,				/* not enough device memory (pool or cache arena) */
	TMX_ERR_INTERNAL
} TmxErrKind;

typedef struct TmxError
{
	int32_t		kind;			/* TmxErrKind */
	int32_t		gpu_rc;			/* TMX_ERR_GPU: TmGpuRc */
	int32_t		status;			/* gpu_rc == TM_GPU_ERR_EXPR: the TmStatus raised */
	int32_t		pipeline;		/* pipeline that failed, -1 if none */
	int64_t		row;
	int32_t		msglen;
	int32_t		pad;
} TmxError;

/* HELLO_OK / STATUS_OK payload */
typedef struct TmxStatus
{
	int32_t		usable;			/* 1: a GPU is in use; 0: see detail */
	int32_t		device;			/* CUDA device number */
	int32_t		ndevices;
	int32_t		pid;			/* the daemon's pid */
	int32_t		cc_major;
	int32_t		cc_minor;
	int32_t		runtime_version;
	int32_t		driver_version;
	int64_t		mem_total;		/* device memory */
	int64_t		mem_free;		/* free when the daemon started, before its own allocations */
	int64_t		arena_size;		/* cache + input arena */
	int64_t		arena_used;
	int64_t		cache_bytes;	/* bytes held by cache entries */
	int64_t		pool_size;		/* executor work pool */
	int64_t		pool_peak;		/* most of the pool one query used */
	int64_t		cache_entries;
	int64_t		queries;		/* EXECUTEs run */
	int64_t		cache_hits;		/* CACHED sources served */
	int64_t		cache_misses;	/* CACHED sources answered with NEED */
	double		uptime_s;
	char		name[128];		/* device name */
	char		detail[256];	/* why not usable, or a summary */
} TmxStatus;

/* EXECUTE / LOAD payload head */
/* TmxExec.flags: fault injection for tests (the backend sets them only from themis.debug_fault) */
#define TMX_FLAG_FAULT_CRASH	0x1		/* the daemon aborts while handling this request */
#define TMX_FLAG_FAULT_GPU		0x2		/* the daemon answers as if a CUDA call had failed */
#define TMX_FLAG_FAULT_HANG		0x4		/* the daemon holds the request for 20 s before running it */
/* TmxExec.flags: the GPU scheduler (themis.load_balance); neither bit: the plain executor */
#define TMX_FLAG_LB_NIFS		0x10	/* NIFS within warps */
#define TMX_FLAG_LB_NIFS_AWS	0x20	/* NIFS and Adaptive Work Sharing */
#define TMX_FLAG_LB_AUTO		0x40	/* per pipeline: NIFS_AWS where a probe can fan out, else plain */
/* TmxExec.flags: themis.join_algorithm; none of these bits: auto */
#define TMX_FLAG_JOIN_PARTITIONED	0x80	/* the partitioned join (GFTR) wherever it applies */
#define TMX_FLAG_JOIN_GFUR			0x100	/* the partitioned join, gathers from the original columns */
#define TMX_FLAG_JOIN_PIPELINED		0x200	/* every probe in the pipeline's kernel */
/* TmxExec.flags: themis.gpu_fast_paths = off: the kernels' fast paths off (every expression interpreted) */
#define TMX_FLAG_NO_FAST_PATHS		0x400
/* TmxExec.flags: themis.gpu_private_global_agg = on: global aggregates keep block-private states too */
#define TMX_FLAG_PRIVATE_GLOBAL		0x800
/* TmxExec.flags: themis.gpu_dynamic_rows = off: pipeline warps run fixed shares of the source rows */
#define TMX_FLAG_STATIC_ROWS		0x1000
/* TmxExec.flags: themis.probe_order = off: every pipeline's probes in the plan's order */
#define TMX_FLAG_PLAN_PROBE_ORDER	0x2000
/* TmxExec.flags: themis.gpu_nointerp = off: every pipeline in the generic kernel (with the interpreter) */
#define TMX_FLAG_INTERP_ALWAYS		0x4000
/* TmxExec.flags: themis.gpu_swap_fuse = sample: builds put off on a count of a sample of their source rows
 * (tm_gpu_pool_set_swap_fuse); with TMX_FLAG_SWAP_FUSE_COUNT (= count): of all of them */
#define TMX_FLAG_SWAP_FUSE			0x8000
#define TMX_FLAG_SWAP_FUSE_COUNT	0x10000
/* TmxExec.flags: themis.gpu_group_wagg = on: grouped aggregates' lanes of one group combine before their atomic */
#define TMX_FLAG_GROUP_WAGG			0x20000
/* TmxExec.flags: themis.gpu_jit = on: kernels generated per pipeline (tm_gpu_pool_set_jit); with
 * TMX_FLAG_JIT_WAIT (= wait) each execution waits for its kernels to be compiled */
#define TMX_FLAG_JIT				0x40000
#define TMX_FLAG_JIT_WAIT			0x80000

typedef struct TmxExec
{
	int32_t		blob_len;		/* plan blob bytes (LOAD: 0) */
	int32_t		nparams;
	int32_t		npipes;			/* TmxSource entries: one per pipeline (LOAD: any number) */
	int32_t		flags;
	int64_t		params_text_len;
	int64_t		fd_len;			/* bytes of the memfd (0: no fd) */
	/* ORDER BY ... LIMIT above (tm_gpu_pool_set_topn): keep the output rows that can be in the first topn_n */
	int64_t		topn_n;			/* 0: no cut */
	int32_t		topn_col;		/* output column of the sort key */
	int32_t		topn_flags;		/* TMX_TOPN_* */
	int64_t		swap_rows;		/* themis.gpu_swap_build_rows (tm_gpu_pool_set_swap_rows) */
} TmxExec;

#define TMX_TOPN_DESC			0x1	/* larger keys first */
#define TMX_TOPN_NULLS_FIRST	0x2

typedef struct TmxParam
{
	int32_t		isnull;
	int32_t		len;			/* text kinds: bytes at text_off of the parameter text area */
	int64_t		text_off;
	uint8_t		value[16];		/* the TmValue (text kinds: ignored) */
} TmxParam;

typedef enum TmxSourceMode
{
	TMX_SRC_NONE = 0,			/* RESULT source: nothing to send */
	TMX_SRC_INLINE,				/* columns in the memfd */
	TMX_SRC_CACHED				/* a TABLE source the daemon should have cached */
} TmxSourceMode;

typedef struct TmxSource
{
	int32_t		mode;			/* TmxSourceMode */
	int32_t		ncols;			/* TmxCol entries that follow (the pipeline's nsrccols) */
	uint32_t	dboid;			/* cache key (TABLE sources; 0 otherwise) */
	uint32_t	relid;
	uint32_t	relfilenode;
	int32_t		store;			/* INLINE: keep these columns in the cache under key + stamp */
	uint64_t	table_count;	/* stamp */
	uint64_t	global_count;
	int64_t		nrows;			/* INLINE: rows of every column */
	int32_t		fd_slot;		/* INLINE: the descriptor holding the columns (0: the first; k: one of its own) */
	int32_t		pad_;
	int64_t		slot_len;		/* fd_slot > 0: bytes of that descriptor */
	char		relname[64];	/* for the cache listing */
} TmxSource;

typedef struct TmxCol
{
	int16_t		kind;			/* TmKind (tm_gpu_exec.h layout) */
	int16_t		scale;			/* numeric scale */
	int16_t		attno;			/* TABLE: heap attribute number; 0: not read by the plan */
	int16_t		present;		/* INLINE: the data below exists (columns the plan does not read: 0) */
	int64_t		data_off;		/* memfd offsets (INLINE) */
	int64_t		data_len;
	int64_t		offsets_off;	/* text kinds: nrows + 1 int64 */
	int64_t		nulls_off;		/* -1: no NULLs */
} TmxCol;

/* RESULT payload: TmxResult, npipes TmxPipeStats, ncols TmxCol (offsets into the reply's memfd) */
typedef struct TmxResult
{
	int64_t		nrows;
	int32_t		ncols;
	int32_t		npipes;
	int64_t		fd_len;
	int64_t		bytes_uploaded;	/* host -> device bytes of this query (inline sources) */
	double		gpu_ms;			/* tm_gpu_execute wall time */
	double		upload_ms;
	int64_t		pool_peak;
	int64_t		topn_rows_in;	/* rows before the daemon's top-N cut; -1: no cut made */
} TmxResult;

typedef enum TmxSourceUse
{
	TMX_USE_NONE = 0,			/* RESULT source */
	TMX_USE_INLINE,				/* sent by the backend, not kept */
	TMX_USE_CACHE_HIT,			/* served from the cache */
	TMX_USE_CACHE_LOADED		/* sent by the backend and now cached */
} TmxSourceUse;

typedef struct TmxPipeStats
{
	int64_t		source_rows;
	int64_t		sink_rows;
	int64_t		out_rows;
	double		time_ms;
	int32_t		use;			/* TmxSourceUse */
	int32_t		jit;			/* TmGpuPipelineStats.jit: its generated kernel (TmJitState) */
	double		idle_ratio;		/* load-balance figures of the Themis scheduler (0: plain executor) */
	double		imbalance;
	int64_t		warp_iterations;
	int64_t		handoffs;
	int32_t		join_algo;		/* TmGpuJoinAlgo that ran for the first INNER probe (tm_gpu_exec.h) */
	int32_t		join_op;		/* the probe the partitioned join replaced, -1: none */
	int64_t		join_rows;
	double		join_ms;
	int32_t		probe_reordered;	/* 1: the ops ran in the order probe_order (themis.probe_order) */
	int32_t		pad2;
	int8_t		probe_order[16];	/* the op that ran i-th, where probe_reordered */
	int32_t		swap;			/* TmGpuPipelineStats.swap: 1 swapped, 2 tried and kept, 3 put off, 4 swapped
								 * with a put-off build */
	int32_t		swap_op;
	int64_t		swap_rows;
	double		jit_ms;			/* TmGpuPipelineStats.jit_ms */
} TmxPipeStats;

/* LOAD_OK payload */
typedef struct TmxLoadReply
{
	int64_t		entries_stored;	/* sources whose every column sent is now in the cache */
	int64_t		bytes_stored;	/* bytes of those sources' cache entries (all their columns) */
} TmxLoadReply;

/* CACHE_ROWS payload: int64 n, then n of these (one per cached column) */
typedef struct TmxCacheRow
{
	uint32_t	dboid;
	uint32_t	relid;
	uint32_t	relfilenode;
	int16_t		attno;
	int16_t		kind;
	int16_t		scale;
	int16_t		pad;
	int32_t		pad2;
	uint64_t	table_count;
	uint64_t	global_count;
	int64_t		nrows;
	int64_t		bytes;			/* device bytes of this column */
	int64_t		hits;			/* queries served by its table entry */
	double		age_s;			/* seconds since loaded */
	double		idle_s;			/* seconds since last used */
	char		relname[64];
} TmxCacheRow;

/* CACHE_DROP payload: dboid 0 = every database; relid 0 = every table of the database */
typedef struct TmxDrop
{
	uint32_t	dboid;
	uint32_t	relid;
} TmxDrop;

#endif							/* THEMIS_TM_GPUD_PROTO_H */
