/*
 * colbuild.h — columns in the GPU layout, built in a backend (colbuild.c, with parallel workers:
 * colbuild_parallel.c); used by gpu_run.c and cache_sql.c.
 */
#ifndef THEMIS_COLBUILD_H
#define THEMIS_COLBUILD_H

#include "themis.h"
#include "themis/tm_gpud_proto.h"
#include "port/atomics.h"
#include "storage/block.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

typedef struct TmColBuild
{
	TmType		type;
	bool		present;		/* read this column (others are sent as absent) */
	int16		attno;			/* heap attribute (table sources) */
	char	   *data;			/* fixed-width values, or text bytes */
	int64		dlen;			/* text: bytes used */
	int64		dcap;
	int64	   *offsets;		/* text: nrows + 1 */
	uint8	   *nulls;			/* NULL until the first NULL */
} TmColBuild;

/* a column of a TmColPart: arrays owned by whoever made the part */
typedef struct TmColPartCol
{
	const char *data;			/* fixed-width values, or text bytes */
	int64		dlen;			/* bytes in data */
	const int64 *offsets;		/* text: nrows + 1, from any base */
	const uint8 *nulls;			/* NULL: no NULLs in this part */
} TmColPartCol;

/* consecutive rows of a set read in parts (colbuild_parallel.c) */
typedef struct TmColPart
{
	int64		nrows;
	TmColPartCol *cols;			/* the set's ncols */
} TmColPart;

/*
 * A set is read in one piece (its rows in the columns' arrays), in parts: then its rows are those of
 * parts[0..nparts-1] in order, or packed (colbuild_parallel.c): then its rows are already in
 * tm_colset_pack's layout (at offset 0) in a memfd, packed_fd, mapped at packed_map, and described by
 * packed_cols.  In parts or packed, the columns' arrays are unused and no row can be added.  Either way
 * tm_colset_bytes and tm_colset_pack see the same layout.
 */
typedef struct TmColSet
{
	int			ncols;
	int64		nrows;
	int64		cap;
	TmColBuild *cols;
	int			nparts;
	TmColPart  *parts;
	bool		packed;
	int			packed_fd;		/* owned by the memory context the set was read in */
	char	   *packed_map;
	int64		packed_len;		/* bytes of columns (the memfd may be longer) */
	TmxCol	   *packed_cols;	/* ncols */
} TmColSet;

extern void tm_colset_init(TmColSet *set, int ncols);
/* advise transparent huge pages over the whole 2 MB pages of [p, p + len) (colbuild.c) */
extern void tm_advise_huge(void *p, Size len);
/* fault in the pages of [p, p + len) for writing, in one call (colbuild.c) */
extern void tm_populate_write(void *p, Size len);
/* a read-write shared mapping of memfd fd's first len bytes, huge pages advised; MAP_FAILED if none (colbuild.c) */
extern void *tm_map_shared(int fd, Size len);
/* read the present columns (by attno) of every row rel's snapshot sees; false + *why if a value is not
 * representable */
extern bool tm_colset_read_table(TmColSet *set, Relation rel, Snapshot snap, const char **why);

typedef enum TmReadResult
{
	TM_READ_OK,
	TM_READ_UNREPRESENTABLE,	/* a value is not representable by themis */
	TM_READ_STOPPED				/* *stop became nonzero */
} TmReadResult;

/*
 * Append the present columns (by attno) of the rows snap sees in blocks [start, start + nblocks) of rel,
 * in the order of a sequential scan (no synchronized scan).  nblocks = InvalidBlockNumber: the whole
 * table (any table AM); otherwise rel must be a heap table.  stop (may be NULL) is polled per row (per page
 * where the page reader reads, themis.load_page_reader).
 */
extern TmReadResult tm_colset_read_blocks(TmColSet *set, Relation rel, Snapshot snap, BlockNumber start,
										  BlockNumber nblocks, pg_atomic_uint32 *stop);

/*
 * colbuild_parallel.c: tm_colset_read_table with parallel workers where PostgreSQL gives them and the table
 * is big enough (else it is tm_colset_read_table).  Same rows in the same order, packed alike; the set may
 * come back packed, whose memfd and mapping CurrentMemoryContext owns (tm_colset_packed_fd).
 */
extern bool tm_colset_read_table_parallel(TmColSet *set, Relation rel, Snapshot snap, const char **why);

/* datum_conv.c: a numeric Datum scaled to scale (10^scale units); false where tm_datum_to_value fails */
extern bool tm_numeric_to_scaled(Datum d, int scale, tm_int128 *out);

/* read the present columns (by position) of every row of a subplan */
extern bool tm_colset_read_plan(TmColSet *set, PlanState *ps, EState *estate, const char **why);
extern int64 tm_colset_bytes(const TmColSet *set);
/* copy the columns to map + *off (advanced), describing them in out[ncols] */
extern void tm_colset_pack(const TmColSet *set, char *map, int64 *off, TmxCol *out);
/*
 * A packed set's memfd, to be sent as it is instead of packed again: *fd, its length *fdlen (at least 8)
 * and the columns at offset 0 in out[ncols]; false if the set is not packed.
 */
extern bool tm_colset_packed_fd(const TmColSet *set, int *fd, int64 *fdlen, TmxCol *out);
/* a packed set written into fd at *off (advanced) with pwrite, as tm_colset_pack; false with errno */
extern bool tm_colset_pack_fd(const TmColSet *set, int fd, int64 *off, TmxCol *out);
/* a result set over a result memfd (mapped until CurrentMemoryContext is reset) */
extern TmResultSet *tm_result_from_memfd(int fd, int64 fdlen, int64 nrows, int ncols, const TmxCol *cols,
										 const TmType *types);

#endif							/* THEMIS_COLBUILD_H */
