/*
 * colbuild.h — columns in the GPU layout, built in a backend (colbuild.c); used by gpud_client.c and
 * exec_node.c.
 */
#ifndef THEMIS_COLBUILD_H
#define THEMIS_COLBUILD_H

#include "themis.h"
#include "themis/tm_gpud_proto.h"
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

typedef struct TmColSet
{
	int			ncols;
	int64		nrows;
	int64		cap;
	TmColBuild *cols;
} TmColSet;

extern void tm_colset_init(TmColSet *set, int ncols);
/* read the present columns (by attno) of every row rel's snapshot sees; false + *why if a value is not
 * representable */
extern bool tm_colset_read_table(TmColSet *set, Relation rel, Snapshot snap, const char **why);
/* read the present columns (by position) of every row of a subplan */
extern bool tm_colset_read_plan(TmColSet *set, PlanState *ps, EState *estate, const char **why);
extern int64 tm_colset_bytes(const TmColSet *set);
/* copy the columns to map + *off (advanced), describing them in out[ncols] */
extern void tm_colset_pack(const TmColSet *set, char *map, int64 *off, TmxCol *out);
/* a result set over a result memfd (mapped until CurrentMemoryContext is reset) */
extern TmResultSet *tm_result_from_memfd(int fd, int64 fdlen, int64 nrows, int ncols, const TmxCol *cols,
										 const TmType *types);

#endif							/* THEMIS_COLBUILD_H */
