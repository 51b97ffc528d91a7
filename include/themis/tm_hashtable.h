/*
 * tm_hashtable.h — the hash tables of the themis executors: the join hash table, the aggregation group
 * table and the DISTINCT value sets.  Plain C for gcc and nvcc, no PostgreSQL: the CPU executor
 * (src/cpu_exec.c) and the engine unit tests (test/unit/test_hashtable.c) use it; the GPU executor
 * must keep its rules (the hash rule, NULL handling, equality).
 *
 * Hash rule of keys (join keys and group keys alike):
 *     h = 0; for each key k in order: h = tm_hash_key(h, &k, k is NULL, &keytype)
 *   where tm_hash_key combines tm_hash_value(k) (tm_hash.h), or TM_NULL_KEY_HASH for a NULL key.
 *   Join keys are never NULL (a row with a NULL key never matches: the build side drops it, the probe
 *   side does not look it up).  A directory position is tm_ht_pos(h, mask): the final mix
 *   (tm_hash_mix64) of h, masked, so that positions do not depend on the low bits of tm_hash_value.
 *   Directories use linear probing and are at most half full.  Keys are equal when every key is equal
 *   under tm_values_equal (group keys: or both NULL).
 *
 * TmJoinTable   key -> the contiguous range [start, end) of build rows with these keys.  Built from the
 *               collected rows (key columns + one hash per row): tm_join_table_build() groups rows by
 *               equal keys and returns, per row, its position in the built table; the caller moves its
 *               columns (keys and payload) there (tm_ht_scatter_values) and sets jt->keys to the moved
 *               key columns.  Lookup: tm_join_table_lookup(hash, keys).
 * TmGroupTable  find-or-insert of groups (hash aggregation).  The group keys live in the caller's
 *               columns (keycols[k][g], keynulls[k][g]: the result rows); the table maps hashes to group
 *               numbers.  tm_group_table_find() gives the group or -1 and the free position where the
 *               caller then inserts (tm_group_table_insert) after storing the new group's keys.  NULLs
 *               group together.
 * TmDistinctSet the (group, value) pairs seen by a DISTINCT aggregate (count(DISTINCT x) etc.): adding a
 *               pair tells whether it is new.  Values are NULL-free (aggregates skip NULL inputs).
 *
 * Memory: every allocation goes through a TmHtMem (alloc and free callbacks; an optional tick callback
 * that long loops call every 65536 rows, e.g. for interrupt checks); the tables own nothing else.  Arrays
 * are 16-byte aligned.  Text values are stored as given (pointer + length): the bytes belong to the
 * caller (TmDistinctSet: tm_distinct_add returns the index of a new value so that the caller can make it
 * point at bytes it owns).  Functions that allocate are host only; lookups run on host and device.
 */
#ifndef THEMIS_TM_HASHTABLE_H
#define THEMIS_TM_HASHTABLE_H

#include "themis/tm_types.h"
#include "themis/tm_hash.h"

#if defined(__CUDACC_RTC__)
#define TM_HT_HOST static __device__ inline	/* NVRTC compiles device code only: never called there */
#elif defined(__CUDACC__)
#define TM_HT_HOST static __host__ inline
#else
#define TM_HT_HOST static inline
#endif

/* hash of a NULL key (group keys: NULLs group together) */
#define TM_NULL_KEY_HASH	UINT64_C(0x9E3779B97F4A7C15)

/* the join table refuses build sides this large (row positions are int32) */
#define TM_JOIN_TABLE_MAX_ROWS	(INT32_MAX / 2)

typedef enum TmHtStatus
{
	TM_HT_OK = 0,
	TM_HT_NOMEM,				/* the allocator returned NULL */
	TM_HT_TOO_MANY_ROWS			/* join table: nrows >= TM_JOIN_TABLE_MAX_ROWS */
} TmHtStatus;

/* ------------------------------------------------------------------------------------------------
 * Hash rule, positions, memory
 * ------------------------------------------------------------------------------------------------
 */

/* one step of the key hash: h combined with key v (isnull: v is not read) of type t */
TM_FN uint64_t
tm_hash_key(uint64_t h, const TmValue *v, bool isnull, const TmType *t)
{
	return tm_hash_combine(h, isnull ? TM_NULL_KEY_HASH : tm_hash_value(v, t));
}

/* hash of nkeys keys; nulls may be NULL (no NULL keys) */
TM_FN uint64_t
tm_hash_keys(const TmValue *keys, const bool *nulls, const TmType *types, int nkeys)
{
	uint64_t	h = 0;
	int			k;

	for (k = 0; k < nkeys; k++)
		h = tm_hash_key(h, &keys[k], nulls != NULL && nulls[k], &types[k]);
	return h;
}

/* directory position of hash h (mask = directory size - 1) */
TM_FN uint64_t
tm_ht_pos(uint64_t h, uint64_t mask)
{
	return tm_hash_mix64(h) & mask;
}

/* directory size: smallest power of two >= n, at least 16 */
TM_FN uint64_t
tm_ht_pow2(uint64_t n)
{
	uint64_t	p = 16;

	while (p < n)
		p <<= 1;
	return p;
}

typedef struct TmHtMem
{
	void	   *(*alloc) (void *arg, size_t size);	/* NULL: out of memory (or it does not return) */
	void		(*free) (void *arg, void *p);	/* may be NULL: nothing is freed */
	void		(*tick) (void *arg);	/* may be NULL: called every 65536 rows of long loops */
	void	   *arg;
} TmHtMem;

#define TM_HT_ALIGN 16

/* size bytes, 16-byte aligned (the raw pointer is kept just before the block); NULL if out of memory */
TM_HT_HOST void *
tm_ht_alloc(const TmHtMem *m, size_t size)
{
	char	   *raw = (char *) m->alloc(m->arg, (size > 0 ? size : 1) + TM_HT_ALIGN + sizeof(void *));
	char	   *p;

	if (raw == NULL)
		return NULL;
	p = (char *) (((uintptr_t) raw + sizeof(void *) + TM_HT_ALIGN - 1) & ~(uintptr_t) (TM_HT_ALIGN - 1));
	((void **) p)[-1] = raw;
	return p;
}

TM_HT_HOST void
tm_ht_free(const TmHtMem *m, void *p)
{
	if (p != NULL && m->free != NULL)
		m->free(m->arg, ((void **) p)[-1]);
}

/* dst[pos[r]] = src[r] for r < n (moving a column of a join table's build rows into place) */
TM_HT_HOST void
tm_ht_scatter_values(TmValue *dst, const TmValue *src, const int32_t *pos, int64_t n)
{
	int64_t		r;

	for (r = 0; r < n; r++)
		dst[pos[r]] = src[r];
}

TM_HT_HOST void
tm_ht_scatter_bools(bool *dst, const bool *src, const int32_t *pos, int64_t n)
{
	int64_t		r;

	for (r = 0; r < n; r++)
		dst[pos[r]] = src[r];
}

/* non-NULL keys a[0..nkeys) equal to row `row` of the key columns cols[k][] */
TM_FN bool
tm_ht_keys_equal(const TmValue *a, const TmValue *const *cols, int64_t row, const TmType *types,
				 int nkeys)
{
	int			k;

	for (k = 0; k < nkeys; k++)
		if (!tm_values_equal(&a[k], &cols[k][row], &types[k]))
			return false;
	return true;
}

/* ------------------------------------------------------------------------------------------------
 * TmJoinTable: key -> [start, end) of build rows
 * ------------------------------------------------------------------------------------------------
 */
typedef struct TmJoinEntry
{
	uint64_t	hash;
	int32_t		start;			/* first row of the group of equal keys */
	int32_t		count;			/* rows in the group; 0 = empty entry */
} TmJoinEntry;

typedef struct TmJoinTable
{
	int			nkeys;
	const TmType *keytypes;
	int64_t		nrows;
	int64_t		ngroups;		/* distinct keys */
	const TmValue *const *keys; /* keys[k][row] of the built rows (set by the caller, see above) */
	TmJoinEntry *entries;		/* one per group, linear probing */
	uint64_t	mask;
} TmJoinTable;

/*
 * Build jt from n rows: keys[k][r] (k < nkeys, never NULL) with hashes[r] (the hash rule above).  Rows
 * with equal keys get contiguous positions, groups in the order of their first row, rows of a group in
 * their input order: on return pos[r] (n entries, caller's memory) is the position of row r.  The
 * caller then moves its columns there and sets jt->keys.  On failure nothing stays allocated.
 */
TM_HT_HOST TmHtStatus
tm_join_table_build(TmJoinTable *jt, const TmHtMem *m, int nkeys, const TmType *keytypes,
					int64_t n, const TmValue *const *keys, const uint64_t *hashes, int32_t *pos)
{
	int32_t    *dir;			/* pass 1 directory: group or -1 */
	uint64_t	dirmask;
	uint64_t   *ghash;			/* per group: hash */
	int64_t    *grep;			/* per group: representative row, then its start (ngroups + 1) */
	int64_t    *cursor;
	int32_t    *gid = pos;		/* per row: its group, then its position */
	int64_t		r,
				g,
				sum;

	memset(jt, 0, sizeof(TmJoinTable));
	jt->nkeys = nkeys;
	jt->keytypes = keytypes;
	jt->nrows = n;
	if (n >= TM_JOIN_TABLE_MAX_ROWS)
		return TM_HT_TOO_MANY_ROWS;

	dirmask = tm_ht_pow2((uint64_t) n * 2) - 1;
	dir = (int32_t *) tm_ht_alloc(m, sizeof(int32_t) * (dirmask + 1));
	ghash = (uint64_t *) tm_ht_alloc(m, sizeof(uint64_t) * (n > 0 ? n : 1));
	grep = (int64_t *) tm_ht_alloc(m, sizeof(int64_t) * (n + 1));
	if (dir == NULL || ghash == NULL || grep == NULL)
	{
		tm_ht_free(m, dir);
		tm_ht_free(m, ghash);
		tm_ht_free(m, grep);
		return TM_HT_NOMEM;
	}
	memset(dir, 0xff, sizeof(int32_t) * (dirmask + 1));

	/* pass 1: find or create each row's group */
	for (r = 0; r < n; r++)
	{
		uint64_t	h = hashes[r];
		uint64_t	p = tm_ht_pos(h, dirmask);

		for (;;)
		{
			int32_t		e = dir[p];

			if (e < 0)
			{
				e = (int32_t) jt->ngroups++;
				dir[p] = e;
				ghash[e] = h;
				grep[e] = r;
				gid[r] = e;
				break;
			}
			if (ghash[e] == h)
			{
				int64_t		rep = grep[e];
				int			k;
				bool		eq = true;

				for (k = 0; k < nkeys; k++)
					if (!tm_values_equal(&keys[k][r], &keys[k][rep], &keytypes[k]))
					{
						eq = false;
						break;
					}
				if (eq)
				{
					gid[r] = e;
					break;
				}
			}
			p = (p + 1) & dirmask;
		}
		if ((r & 0xffff) == 0 && m->tick != NULL)
			m->tick(m->arg);
	}
	tm_ht_free(m, dir);

	/* pass 2: group sizes -> start offsets (grep[] becomes the start of each group) */
	cursor = (int64_t *) tm_ht_alloc(m, sizeof(int64_t) * (jt->ngroups + 1));
	jt->mask = tm_ht_pow2((uint64_t) jt->ngroups * 2) - 1;
	jt->entries = (TmJoinEntry *) tm_ht_alloc(m, sizeof(TmJoinEntry) * (jt->mask + 1));
	if (cursor == NULL || jt->entries == NULL)
	{
		tm_ht_free(m, cursor);
		tm_ht_free(m, jt->entries);
		tm_ht_free(m, ghash);
		tm_ht_free(m, grep);
		jt->entries = NULL;
		return TM_HT_NOMEM;
	}
	memset(cursor, 0, sizeof(int64_t) * (jt->ngroups + 1));
	for (r = 0; r < n; r++)
		cursor[gid[r]]++;
	sum = 0;
	for (g = 0; g < jt->ngroups; g++)
	{
		int64_t		cnt = cursor[g];

		grep[g] = sum;
		cursor[g] = sum;
		sum += cnt;
	}
	grep[jt->ngroups] = sum;

	/* the final directory: one entry per group */
	memset(jt->entries, 0, sizeof(TmJoinEntry) * (jt->mask + 1));
	for (g = 0; g < jt->ngroups; g++)
	{
		uint64_t	p = tm_ht_pos(ghash[g], jt->mask);

		while (jt->entries[p].count != 0)
			p = (p + 1) & jt->mask;
		jt->entries[p].hash = ghash[g];
		jt->entries[p].start = (int32_t) grep[g];
		jt->entries[p].count = (int32_t) (grep[g + 1] - grep[g]);
	}
	tm_ht_free(m, ghash);
	tm_ht_free(m, grep);

	/* pass 3: the position of each row */
	for (r = 0; r < n; r++)
		gid[r] = (int32_t) cursor[gid[r]]++;
	tm_ht_free(m, cursor);
	return TM_HT_OK;
}

/* true with [*start, *end) if some build rows have these keys (nkeys values, none NULL, hash h) */
TM_FN bool
tm_join_table_lookup(const TmJoinTable *jt, uint64_t h, const TmValue *keys, int64_t *start,
					 int64_t *end)
{
	uint64_t	p = tm_ht_pos(h, jt->mask);

	for (;;)
	{
		const TmJoinEntry *e = &jt->entries[p];

		if (e->count == 0)
			return false;
		if (e->hash == h && tm_ht_keys_equal(keys, jt->keys, e->start, jt->keytypes, jt->nkeys))
		{
			*start = e->start;
			*end = (int64_t) e->start + e->count;
			return true;
		}
		p = (p + 1) & jt->mask;
	}
}

TM_HT_HOST void
tm_join_table_release(TmJoinTable *jt, const TmHtMem *m)
{
	tm_ht_free(m, jt->entries);
	jt->entries = NULL;
}

/* ------------------------------------------------------------------------------------------------
 * TmGroupTable: find or insert a group by its keys
 * ------------------------------------------------------------------------------------------------
 */
typedef struct TmGroupEntry
{
	uint64_t	hash;
	int64_t		g;				/* group, -1 = empty entry */
} TmGroupEntry;

typedef struct TmGroupTable
{
	int			nkeys;
	const TmType *keytypes;
	TmValue *const *keycols;	/* keycols[k][g]: the caller's group key columns (may be reallocated:
								 * only this array of column pointers must stay) */
	bool	   *const *keynulls;	/* keynulls[k][g] */
	int64_t		ngroups;
	TmGroupEntry *dir;			/* linear probing, at most half full */
	uint64_t	mask;
} TmGroupTable;

/* grow or shrink the directory to dirsize (a power of two > 2 * ngroups) */
TM_HT_HOST TmHtStatus
tm_group_table_resize(TmGroupTable *gt, const TmHtMem *m, uint64_t dirsize)
{
	TmGroupEntry *old = gt->dir;
	uint64_t	oldsize = old ? gt->mask + 1 : 0;
	TmGroupEntry *dir = (TmGroupEntry *) tm_ht_alloc(m, sizeof(TmGroupEntry) * dirsize);
	uint64_t	i;

	if (dir == NULL)
		return TM_HT_NOMEM;
	memset(dir, 0xff, sizeof(TmGroupEntry) * dirsize);
	gt->dir = dir;
	gt->mask = dirsize - 1;
	for (i = 0; i < oldsize; i++)
	{
		uint64_t	p;

		if (old[i].g < 0)
			continue;
		p = tm_ht_pos(old[i].hash, gt->mask);
		while (dir[p].g >= 0)
			p = (p + 1) & gt->mask;
		dir[p] = old[i];
	}
	tm_ht_free(m, old);
	return TM_HT_OK;
}

/* an empty table over the caller's key columns, with a directory of tm_ht_pow2(dirsize) entries */
TM_HT_HOST TmHtStatus
tm_group_table_init(TmGroupTable *gt, const TmHtMem *m, int nkeys, const TmType *keytypes,
					TmValue *const *keycols, bool *const *keynulls, uint64_t dirsize)
{
	memset(gt, 0, sizeof(TmGroupTable));
	gt->nkeys = nkeys;
	gt->keytypes = keytypes;
	gt->keycols = keycols;
	gt->keynulls = keynulls;
	return tm_group_table_resize(gt, m, tm_ht_pow2(dirsize));
}

/*
 * The group whose keys are keys[k] / nulls[k] (hash h), or -1 if there is none: then *pos is where
 * tm_group_table_insert puts it.
 */
TM_FN int64_t
tm_group_table_find(const TmGroupTable *gt, uint64_t h, const TmValue *keys, const bool *nulls,
					uint64_t *pos)
{
	uint64_t	p = tm_ht_pos(h, gt->mask);

	for (;;)
	{
		const TmGroupEntry *e = &gt->dir[p];
		int64_t		g = e->g;

		if (g < 0)
		{
			*pos = p;
			return -1;
		}
		if (e->hash == h)
		{
			bool		eq = true;
			int			k;

			for (k = 0; k < gt->nkeys && eq; k++)
			{
				bool		gn = gt->keynulls[k][g];

				if (gn != nulls[k])
					eq = false;
				else if (!gn)
					eq = tm_values_equal(&keys[k], &gt->keycols[k][g], &gt->keytypes[k]);
			}
			if (eq)
				return g;
		}
		p = (p + 1) & gt->mask;
	}
}

/*
 * Record group g (its keys already in the key columns) with hash h at the position that
 * tm_group_table_find returned (no other insert in between); the directory doubles when more than
 * half full.  TM_HT_NOMEM: g is recorded, but the directory could not grow (do not insert more).
 */
TM_HT_HOST TmHtStatus
tm_group_table_insert(TmGroupTable *gt, const TmHtMem *m, uint64_t pos, uint64_t h, int64_t g)
{
	gt->dir[pos].hash = h;
	gt->dir[pos].g = g;
	gt->ngroups++;
	if ((uint64_t) gt->ngroups * 2 > gt->mask + 1)
		return tm_group_table_resize(gt, m, (gt->mask + 1) * 2);
	return TM_HT_OK;
}

TM_HT_HOST void
tm_group_table_release(TmGroupTable *gt, const TmHtMem *m)
{
	tm_ht_free(m, gt->dir);
	gt->dir = NULL;
}

/* ------------------------------------------------------------------------------------------------
 * TmDistinctSet: (group, value) pairs of a DISTINCT aggregate
 * ------------------------------------------------------------------------------------------------
 */
typedef struct TmDistinctEntry
{
	uint64_t	hash;
	int64_t		g;				/* group */
	int64_t		idx;			/* index into vals, -1 = empty entry */
} TmDistinctEntry;

typedef struct TmDistinctSet
{
	const TmType *type;
	int64_t		n;				/* pairs */
	int64_t		cap;			/* values; the directory has tm_ht_pow2(2 * cap) entries */
	TmValue    *vals;
	TmDistinctEntry *dir;
	uint64_t	mask;
} TmDistinctSet;

/* hash of the pair (g, v) */
TM_FN uint64_t
tm_distinct_hash(const TmDistinctSet *d, int64_t g, const TmValue *v)
{
	return tm_hash_combine(tm_hash_value(v, d->type), (uint64_t) g);
}

/* room for cap values (> n), directory rebuilt */
TM_HT_HOST TmHtStatus
tm_distinct_grow(TmDistinctSet *d, const TmHtMem *m, int64_t cap)
{
	uint64_t	dirsize = tm_ht_pow2((uint64_t) cap * 2);
	TmValue    *vals = (TmValue *) tm_ht_alloc(m, sizeof(TmValue) * cap);
	TmDistinctEntry *dir = (TmDistinctEntry *) tm_ht_alloc(m, sizeof(TmDistinctEntry) * dirsize);
	TmDistinctEntry *old = d->dir;
	uint64_t	oldsize = old ? d->mask + 1 : 0;
	uint64_t	i;

	if (vals == NULL || dir == NULL)
	{
		tm_ht_free(m, vals);
		tm_ht_free(m, dir);
		return TM_HT_NOMEM;
	}
	if (d->n > 0)
		memcpy(vals, d->vals, sizeof(TmValue) * d->n);
	tm_ht_free(m, d->vals);
	d->vals = vals;
	d->cap = cap;
	d->mask = dirsize - 1;
	d->dir = dir;
	memset(dir, 0xff, sizeof(TmDistinctEntry) * dirsize);
	for (i = 0; i < oldsize; i++)
	{
		uint64_t	p;

		if (old[i].idx < 0)
			continue;
		p = tm_ht_pos(old[i].hash, d->mask);
		while (dir[p].idx >= 0)
			p = (p + 1) & d->mask;
		dir[p] = old[i];
	}
	tm_ht_free(m, old);
	return TM_HT_OK;
}

/* an empty set of values of type `type`, room for cap (>= 1) values before it grows */
TM_HT_HOST TmHtStatus
tm_distinct_init(TmDistinctSet *d, const TmHtMem *m, const TmType *type, int64_t cap)
{
	memset(d, 0, sizeof(TmDistinctSet));
	d->type = type;
	return tm_distinct_grow(d, m, cap > 0 ? cap : 1);
}

/*
 * Add (g, v) (v not NULL).  Returns 1 if it is new: *idx is then the index of its copy in d->vals (whose
 * text bytes are still v's: the caller makes them its own), 0 if it was there, -1 if out of memory.
 */
TM_HT_HOST int
tm_distinct_add(TmDistinctSet *d, const TmHtMem *m, int64_t g, const TmValue *v, int64_t *idx)
{
	uint64_t	h = tm_distinct_hash(d, g, v);
	uint64_t	p = tm_ht_pos(h, d->mask);
	TmDistinctEntry *e;
	int64_t		i;

	for (;;)
	{
		e = &d->dir[p];
		if (e->idx < 0)
			break;
		if (e->hash == h && e->g == g && tm_values_equal(&d->vals[e->idx], v, d->type))
			return 0;
		p = (p + 1) & d->mask;
	}
	i = d->n++;
	d->vals[i] = *v;
	e->hash = h;
	e->g = g;
	e->idx = i;
	*idx = i;
	if (d->n >= d->cap && tm_distinct_grow(d, m, d->cap * 2) != TM_HT_OK)
	{
		/* undo: the entry was the last one placed, so clearing it breaks no probe chain */
		e->idx = -1;
		d->n--;
		return -1;
	}
	return 1;
}

/* true if (g, v) is in the set */
TM_FN bool
tm_distinct_contains(const TmDistinctSet *d, int64_t g, const TmValue *v)
{
	uint64_t	h = tm_distinct_hash(d, g, v);
	uint64_t	p = tm_ht_pos(h, d->mask);

	for (;;)
	{
		const TmDistinctEntry *e = &d->dir[p];

		if (e->idx < 0)
			return false;
		if (e->hash == h && e->g == g && tm_values_equal(&d->vals[e->idx], v, d->type))
			return true;
		p = (p + 1) & d->mask;
	}
}

TM_HT_HOST void
tm_distinct_release(TmDistinctSet *d, const TmHtMem *m)
{
	tm_ht_free(m, d->vals);
	tm_ht_free(m, d->dir);
	d->vals = NULL;
	d->dir = NULL;
}

#endif							/* THEMIS_TM_HASHTABLE_H */
