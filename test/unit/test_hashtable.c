/*
 * test_hashtable.c — engine unit tests of the hash tables of themis (themis/tm_hashtable.h): the join
 * hash table (key -> contiguous [start, end) of build rows), the aggregation group table (find or
 * insert; NULLs group together) and the DISTINCT value sets.  Standalone: no PostgreSQL headers.
 *
 * Every key value is generated from a "class" (an int): values of equal classes are equal under
 * PostgreSQL's rules and values of different classes are not, whatever their representation (bpchar
 * with any number of trailing blanks, float8 -0.0 / 0.0, NaNs of any sign and payload, text bytes at
 * another address).  The reference answers come from the classes alone, by brute force, never from
 * tm_values_equal or a hash: every lookup is compared with them.
 *
 *   gcc -O1 -Wall -Iinclude -Itest/unit test/unit/test_hashtable.c -o /tmp/t -lm && /tmp/t
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <float.h>

#include "themis/tm_types.h"
#include "themis/tm_hash.h"
#include "themis/tm_hashtable.h"
#include "tm_unit.h"

/* ------------------------------------------------------------------------------------------------
 * Random numbers, memory
 * ------------------------------------------------------------------------------------------------
 */
static uint64_t rng_state = 1;

static uint64_t
rnd(void)
{
	/* splitmix64 */
	uint64_t	z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* uniform in [0, n) */
static int
rnd_below(int n)
{
	return (int) (rnd() % (uint64_t) n);
}

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n > 0 ? n : 1);

	if (p == NULL)
	{
		printf("out of memory\n");
		exit(2);
	}
	return p;
}

/* the allocator handed to the tables: malloc, counting live blocks; fails once `fail_after` hits 0 */
typedef struct TestMem
{
	int64_t		live;			/* blocks allocated and not freed */
	int64_t		allocs;
	int64_t		fail_after;		/* < 0: never fail */
	int64_t		ticks;
	int			misaligned;		/* tm_ht_alloc results not 16-byte aligned */
} TestMem;

static void *
tmem_alloc(void *arg, size_t size)
{
	TestMem    *t = (TestMem *) arg;

	if (t->fail_after == 0)
		return NULL;
	if (t->fail_after > 0)
		t->fail_after--;
	t->live++;
	t->allocs++;
	return xmalloc(size);
}

static void
tmem_free(void *arg, void *p)
{
	((TestMem *) arg)->live--;
	free(p);
}

static void
tmem_tick(void *arg)
{
	((TestMem *) arg)->ticks++;
}

static TmHtMem
mem_of(TestMem *t)
{
	TmHtMem		m;

	memset(t, 0, sizeof(TestMem));
	t->fail_after = -1;
	m.alloc = tmem_alloc;
	m.free = tmem_free;
	m.tick = tmem_tick;
	m.arg = t;
	return m;
}

/* a bump allocator for text bytes that must live until the end */
static char *text_pool = NULL;
static size_t text_used = 0,
			text_cap = 0;

static char *
text_alloc(size_t n)
{
	char	   *p;

	if (text_used + n > text_cap)
	{
		/* a new block; earlier blocks stay alive (leaked on purpose until exit) */
		text_cap = n > (1 << 20) ? n : (1 << 20);
		text_pool = (char *) xmalloc(text_cap);
		text_used = 0;
	}
	p = text_pool + text_used;
	text_used += n;
	return p;
}

/* ------------------------------------------------------------------------------------------------
 * Types and values from classes
 * ------------------------------------------------------------------------------------------------
 */
static TmType
mk_type(int kind, int scale)
{
	TmType		t;

	memset(&t, 0, sizeof(t));
	t.kind = (int16_t) kind;
	t.scale = (int16_t) scale;
	t.typmod = -1;
	return t;
}

static const char *const text_base[] = {
	"", "a", "ab", "ab ", " ab", "a b", "abc", "b", "ab  ",
	"a much longer text value that crosses several eight byte blocks", "0123456", "01234567",
	"012345678", "AB", "\xc3\xa9t\xc3\xa9"
};

static const char *const bpchar_base[] = {
	"", "a", "ab", " ab", "a b", "abc", "b", "x  y", "0123456", "01234567", "012345678",
	"a much longer char(n) value that crosses several eight byte blocks", "AB", "\t"
};

#define NTEXT ((int) (sizeof(text_base) / sizeof(text_base[0])))
#define NBPCHAR ((int) (sizeof(bpchar_base) / sizeof(bpchar_base[0])))

/*
 * the bytes of text class c: base[c % nbase], then "#<c / nbase>" if c >= nbase (distinct classes give
 * distinct strings: no base contains '#'); into buf, returns the length
 */
static int
class_text(char *buf, const char *const *base, int nbase, int c)
{
	int			len = (int) strlen(base[c % nbase]);

	memcpy(buf, base[c % nbase], len);
	if (c >= nbase)
		len += sprintf(buf + len, "#%d", c / nbase);
	return len;
}

static const uint64_t nan_bits[] = {
	UINT64_C(0x7ff8000000000000), UINT64_C(0xfff8000000000000), UINT64_C(0x7ff0000000000001),
	UINT64_C(0x7ff8dead0000beef), UINT64_C(0xffffffffffffffff)
};

/*
 * A value of class c (>= 0) of type t, in a random representation.  Text bytes go to `buf` if it is
 * not NULL (scratch), else to the text pool (a fresh copy at a new address every time).
 */
static TmValue
class_value(const TmType *t, int c, char *buf)
{
	TmValue		v;

	memset(&v, 0, sizeof(v));
	switch (t->kind)
	{
		case TM_K_INT4:
			v.i = (int64_t) (c % 2 ? c : -c) * 7 + (c % 2);
			break;
		case TM_K_INT8:
			if (c == 0)
				v.i = INT64_MIN;
			else if (c == 1)
				v.i = INT64_MAX;
			else if (c == 2)
				v.i = -1;
			else if (c == 3)
				v.i = 0;
			else
				v.i = (int64_t) c * INT64_C(0x100000001) - 12345;
			break;
		case TM_K_NUMERIC:
			{
				tm_int128	p30 = (tm_int128) 1000000000000000LL * (tm_int128) 1000000000000000LL;

				if (c == 0)
					v.n = 0;
				else if (c == 1)
					v.n = p30;
				else if (c == 2)
					v.n = -p30;
				else if (c == 3)
					v.n = (tm_int128) 1 << 100;
				else if (c == 4)
					v.n = ((tm_int128) 1 << 64) + 1;	/* low 64 bits like class 5's */
				else if (c == 5)
					v.n = 1;
				else
					v.n = (tm_int128) (c % 2 ? c : -c) * 101;
				break;
			}
		case TM_K_FLOAT8:
			{
				double		f;

				if (c == 0)
					f = rnd_below(2) ? 0.0 : -0.0;
				else if (c == 1)
				{
					uint64_t	bits = nan_bits[rnd_below((int) (sizeof(nan_bits) / sizeof(nan_bits[0])))];

					memcpy(&f, &bits, sizeof(f));
				}
				else if (c == 2)
					f = INFINITY;
				else if (c == 3)
					f = -INFINITY;
				else if (c == 4)
					f = DBL_MIN;
				else if (c == 5)
					f = 4.9406564584124654e-324;	/* smallest denormal */
				else if (c == 6)
					f = DBL_MAX;
				else
					f = (c % 2 ? c : -c) * 0.5;
				v.f = f;
				break;
			}
		case TM_K_TEXT:
		case TM_K_BPCHAR:
			{
				char		tmp[256];
				int			len = t->kind == TM_K_TEXT ? class_text(tmp, text_base, NTEXT, c) :
					class_text(tmp, bpchar_base, NBPCHAR, c);
				int			blanks = t->kind == TM_K_BPCHAR ? rnd_below(4) : 0;
				char	   *p = buf != NULL ? buf : text_alloc(len + blanks + 1);

				memcpy(p, tmp, len);
				memset(p + len, ' ', blanks);
				v.s.p = p;
				v.s.len = len + blanks;
				break;
			}
		default:
			printf("class_value: unsupported kind %d\n", t->kind);
			exit(2);
	}
	return v;
}

/* ------------------------------------------------------------------------------------------------
 * Rows of keys
 * ------------------------------------------------------------------------------------------------
 */
#define MAXKEYS 8

typedef struct Schema
{
	int			nkeys;
	TmType		types[MAXKEYS];
	int			domain[MAXKEYS];	/* classes 0 .. domain - 1 */
	int			null_pct;		/* percent of NULL keys */
	int			skew_pct;		/* percent of rows with class 0 in every key (the hot key) */
} Schema;

typedef struct Rows
{
	int64_t		n;
	int			nkeys;
	int		   *cls;			/* cls[r * nkeys + k], -1 = NULL */
	TmValue    *cols[MAXKEYS];	/* cols[k][r] */
	bool	   *nulls[MAXKEYS];
} Rows;

static Rows
gen_rows(const Schema *sc, int64_t n)
{
	Rows		rs;
	int64_t		r;
	int			k;

	memset(&rs, 0, sizeof(rs));
	rs.n = n;
	rs.nkeys = sc->nkeys;
	rs.cls = (int *) xmalloc(sizeof(int) * (n * sc->nkeys + 1));
	for (k = 0; k < sc->nkeys; k++)
	{
		rs.cols[k] = (TmValue *) xmalloc(sizeof(TmValue) * (n + 1));
		rs.nulls[k] = (bool *) xmalloc(n + 1);
	}
	for (r = 0; r < n; r++)
	{
		bool		hot = rnd_below(100) < sc->skew_pct;

		for (k = 0; k < sc->nkeys; k++)
		{
			int			c = hot ? 0 : rnd_below(sc->domain[k]);

			if (!hot && rnd_below(100) < sc->null_pct)
				c = -1;
			rs.cls[r * sc->nkeys + k] = c;
			rs.nulls[k][r] = c < 0;
			if (c >= 0)
				rs.cols[k][r] = class_value(&sc->types[k], c, NULL);
			else
				memset(&rs.cols[k][r], 0x5a, sizeof(TmValue));	/* garbage: must not be read */
		}
	}
	return rs;
}

static void
free_rows(Rows *rs)
{
	int			k;

	free(rs->cls);
	for (k = 0; k < rs->nkeys; k++)
	{
		free(rs->cols[k]);
		free(rs->nulls[k]);
	}
}

static bool
row_has_null(const Rows *rs, int64_t r)
{
	int			k;

	for (k = 0; k < rs->nkeys; k++)
		if (rs->cls[r * rs->nkeys + k] < 0)
			return true;
	return false;
}

/* SQL equality of keys (join): no NULLs, equal classes */
static bool
ref_join_eq(const Rows *a, int64_t ra, const Rows *b, int64_t rb)
{
	int			k;

	for (k = 0; k < a->nkeys; k++)
	{
		int			ca = a->cls[ra * a->nkeys + k],
					cb = b->cls[rb * b->nkeys + k];

		if (ca < 0 || cb < 0 || ca != cb)
			return false;
	}
	return true;
}

/* grouping equality: NULL equals NULL */
static bool
ref_group_eq(const Rows *a, int64_t ra, const Rows *b, int64_t rb)
{
	return memcmp(&a->cls[ra * a->nkeys], &b->cls[rb * b->nkeys], sizeof(int) * a->nkeys) == 0;
}

/* qsort order of row numbers of sort_rows by their classes */
static const Rows *sort_rows;

static int
cmp_row_classes(const void *a, const void *b)
{
	int64_t		ra = *(const int64_t *) a,
				rb = *(const int64_t *) b;
	int			k;

	for (k = 0; k < sort_rows->nkeys; k++)
	{
		int			ca = sort_rows->cls[ra * sort_rows->nkeys + k],
					cb = sort_rows->cls[rb * sort_rows->nkeys + k];

		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
	return 0;
}

static void
row_keys(const Rows *rs, int64_t r, TmValue *keys, bool *nulls)
{
	int			k;

	for (k = 0; k < rs->nkeys; k++)
	{
		keys[k] = rs->cols[k][r];
		nulls[k] = rs->nulls[k][r];
	}
}

/* hash modes: the real rule, or degenerate hashes that make the tables rely on key equality alone */
enum
{
	HASH_REAL,					/* tm_hash_keys */
	HASH_ZERO,					/* every key hashes to 0: one long probe chain */
	HASH_FOUR					/* the real hash & 3: four hash values */
};

static uint64_t
key_hash(int mode, const TmValue *keys, const bool *nulls, const TmType *types, int nkeys)
{
	uint64_t	h = tm_hash_keys(keys, nulls, types, nkeys);

	if (mode == HASH_ZERO)
		return 0;
	if (mode == HASH_FOUR)
		return h & 3;
	return h;
}

/* ------------------------------------------------------------------------------------------------
 * The hash rule
 * ------------------------------------------------------------------------------------------------
 */
static void
test_hash_rule(void)
{
	TmType		types[3];
	TmValue		keys[3];
	bool		nulls[3] = {false, true, false};
	uint64_t	h;
	int			bad = 0;
	int			i;

	types[0] = mk_type(TM_K_INT4, 0);
	types[1] = mk_type(TM_K_TEXT, 0);
	types[2] = mk_type(TM_K_BPCHAR, 0);
	keys[0] = class_value(&types[0], 5, NULL);
	memset(&keys[1], 0, sizeof(TmValue));
	keys[2] = class_value(&types[2], 3, NULL);

	/* h = 0; h = combine(h, NULL ? 0x9E3779B97F4A7C15 : tm_hash_value(key)) */
	h = 0;
	h = tm_hash_combine(h, tm_hash_value(&keys[0], &types[0]));
	h = tm_hash_combine(h, UINT64_C(0x9E3779B97F4A7C15));
	h = tm_hash_combine(h, tm_hash_value(&keys[2], &types[2]));
	TM_CHECK(tm_hash_keys(keys, nulls, types, 3) == h);
	TM_CHECK(tm_hash_key(0, &keys[0], false, &types[0]) ==
			 tm_hash_combine(0, tm_hash_value(&keys[0], &types[0])));
	TM_CHECK(tm_hash_key(123, NULL, true, &types[1]) == tm_hash_combine(123, TM_NULL_KEY_HASH));
	TM_CHECK(TM_NULL_KEY_HASH == UINT64_C(0x9E3779B97F4A7C15));
	/* no nulls array: no NULL keys */
	TM_CHECK(tm_hash_keys(keys, NULL, types, 1) == tm_hash_combine(0, tm_hash_value(&keys[0], &types[0])));
	TM_CHECK(tm_hash_keys(keys, NULL, types, 0) == 0);
	/* key order matters */
	{
		TmType		t2[2] = {types[0], types[0]};
		TmValue		k2[2],
					k2r[2];

		k2[0] = class_value(&types[0], 1, NULL);
		k2[1] = class_value(&types[0], 2, NULL);
		k2r[0] = k2[1];
		k2r[1] = k2[0];
		TM_CHECK(tm_hash_keys(k2, NULL, t2, 2) != tm_hash_keys(k2r, NULL, t2, 2));
	}
	/* a NULL key and a key whose value hashes like it still differ in equality (checked below) */

	/* directory positions: the final mix of h, masked */
	for (i = 0; i < 1000; i++)
	{
		uint64_t	x = rnd();
		uint64_t	mask = (UINT64_C(1) << (4 + i % 20)) - 1;

		if (tm_ht_pos(x, mask) != (tm_hash_mix64(x) & mask))
			bad++;
	}
	TM_CHECK_INT_EQ(bad, 0);
	TM_CHECK_INT_EQ(tm_ht_pow2(0), 16);
	TM_CHECK_INT_EQ(tm_ht_pow2(16), 16);
	TM_CHECK_INT_EQ(tm_ht_pow2(17), 32);
	TM_CHECK_INT_EQ(tm_ht_pow2(1000), 1024);

	/* values of one class hash alike, whatever their representation (all key types) */
	{
		int			kinds[] = {TM_K_INT4, TM_K_INT8, TM_K_NUMERIC, TM_K_FLOAT8, TM_K_TEXT, TM_K_BPCHAR};
		int			ki,
					c,
					rep;

		bad = 0;
		for (ki = 0; ki < 6; ki++)
		{
			TmType		t = mk_type(kinds[ki], kinds[ki] == TM_K_NUMERIC ? 2 : 0);

			for (c = 0; c < 40; c++)
			{
				TmValue		a = class_value(&t, c, NULL);

				for (rep = 0; rep < 8; rep++)
				{
					TmValue		b = class_value(&t, c, NULL);
					TmValue		o = class_value(&t, (c + 1 + rep) % 40, NULL);

					if (tm_hash_value(&a, &t) != tm_hash_value(&b, &t) || !tm_values_equal(&a, &b, &t))
						bad++;
					if (tm_values_equal(&a, &o, &t))
						bad++;
				}
			}
		}
		TM_CHECK_MSG(bad == 0, "%d class / equality disagreements", bad);
	}
}

/* ------------------------------------------------------------------------------------------------
 * TmJoinTable
 * ------------------------------------------------------------------------------------------------
 */

/*
 * Build a join table from `build` (rows with a NULL key dropped, as the executor does) and check it:
 * positions, groups, every build row's own lookup, and every probe row's lookup against a brute-force
 * scan of the build rows.  probe_all: brute-force every probe (else a sample of 2000).
 */
static void
check_join(const char *name, const Schema *sc, const Rows *build, const Rows *probe, int hmode)
{
	TestMem		tm;
	TmHtMem		m = mem_of(&tm);
	int			nk = sc->nkeys;
	int64_t		n = 0,
				r,
				i;
	int64_t    *kept = (int64_t *) xmalloc(sizeof(int64_t) * (build->n + 1));	/* kept row -> build row */
	int64_t    *mult_of_row = (int64_t *) xmalloc(sizeof(int64_t) * (build->n + 1));
	TmValue    *keys[MAXKEYS],
			   *moved[MAXKEYS];
	TmValue    *ids,
			   *movedids;
	uint64_t   *hashes;
	int32_t    *pos;
	int64_t    *mult;			/* per kept row: rows with its keys (reference) */
	char	   *mark;
	int64_t		ref_groups = 0;
	TmJoinTable jt;
	TmHtStatus	st;
	int64_t		bad_perm = 0,
				bad_self = 0,
				bad_probe = 0,
				probes = 0,
				hits = 0;
	int			k;
	char		first[256] = "";

	for (r = 0; r < build->n; r++)
		if (!row_has_null(build, r))
			kept[n++] = r;
	for (k = 0; k < nk; k++)
	{
		keys[k] = (TmValue *) xmalloc(sizeof(TmValue) * (n + 1));
		moved[k] = (TmValue *) xmalloc(sizeof(TmValue) * (n + 1));
		for (i = 0; i < n; i++)
			keys[k][i] = build->cols[k][kept[i]];
	}
	ids = (TmValue *) xmalloc(sizeof(TmValue) * (n + 1));
	movedids = (TmValue *) xmalloc(sizeof(TmValue) * (n + 1));
	hashes = (uint64_t *) xmalloc(sizeof(uint64_t) * (n + 1));
	pos = (int32_t *) xmalloc(sizeof(int32_t) * (n + 1));
	mult = (int64_t *) xmalloc(sizeof(int64_t) * (n + 1));
	mark = (char *) xmalloc(n + 1);
	for (i = 0; i < n; i++)
	{
		TmValue		kv[MAXKEYS];
		bool		kn[MAXKEYS];

		row_keys(build, kept[i], kv, kn);
		hashes[i] = key_hash(hmode, kv, NULL, sc->types, nk);
		memset(&ids[i], 0, sizeof(TmValue));
		ids[i].i = i;
	}

	/* reference: multiplicity of each kept row's keys, number of distinct keys (classes sorted) */
	{
		int64_t    *ord = (int64_t *) xmalloc(sizeof(int64_t) * (n + 1));
		int64_t		a,
					b;

		for (i = 0; i < n; i++)
			ord[i] = kept[i];
		sort_rows = build;
		qsort(ord, n, sizeof(int64_t), cmp_row_classes);
		for (a = 0; a < n; a = b)
		{
			for (b = a + 1; b < n && cmp_row_classes(&ord[a], &ord[b]) == 0; b++)
				;
			ref_groups++;
			for (i = a; i < b; i++)
				mult_of_row[ord[i]] = b - a;
		}
		for (i = 0; i < n; i++)
			mult[i] = mult_of_row[kept[i]];
		free(ord);
	}

	st = tm_join_table_build(&jt, &m, nk, sc->types, n, (const TmValue *const *) keys, hashes, pos);
	TM_CHECK_MSG(st == TM_HT_OK, "%s: build status %d", name, (int) st);
	if (st != TM_HT_OK)
		goto done;
	TM_CHECK_MSG(jt.nrows == n && jt.ngroups == ref_groups, "%s: rows %" PRId64 " groups %" PRId64
				 ", expected %" PRId64 " and %" PRId64, name, jt.nrows, jt.ngroups, n, ref_groups);
	TM_CHECK_MSG(jt.mask + 1 == tm_ht_pow2((uint64_t) ref_groups * 2),
				 "%s: directory of %" PRIu64 " entries for %" PRId64 " groups", name, jt.mask + 1, ref_groups);
	TM_CHECK_MSG(tm.live == 1, "%s: %" PRId64 " blocks live after the build (the directory only)",
				 name, tm.live);
	TM_CHECK_MSG(n < 65536 || tm.ticks >= n / 65536, "%s: %" PRId64 " ticks for %" PRId64 " rows",
				 name, tm.ticks, n);

	/* pos is a permutation */
	memset(mark, 0, n + 1);
	for (i = 0; i < n; i++)
	{
		if (pos[i] < 0 || pos[i] >= n || mark[pos[i]])
			bad_perm++;
		else
			mark[pos[i]] = 1;
	}
	TM_CHECK_MSG(bad_perm == 0, "%s: %" PRId64 " bad positions", name, bad_perm);
	if (bad_perm != 0)
		goto done;

	/* move the key columns and the row ids, as the executor moves its columns */
	for (k = 0; k < nk; k++)
		tm_ht_scatter_values(moved[k], keys[k], pos, n);
	tm_ht_scatter_values(movedids, ids, pos, n);
	jt.keys = (const TmValue *const *) moved;

	/* every build row finds exactly its group: contiguous, complete, in input order */
	for (i = 0; i < n; i++)
	{
		TmValue		kv[MAXKEYS];
		bool		kn[MAXKEYS];
		int64_t		s = -1,
					e = -1,
					j;
		bool		ok;

		row_keys(build, kept[i], kv, kn);
		ok = tm_join_table_lookup(&jt, hashes[i], kv, &s, &e);
		ok = ok && s <= pos[i] && pos[i] < e && e - s == mult[i];
		for (j = s; ok && j < e; j++)
		{
			int64_t		o = movedids[j].i;

			ok = ref_join_eq(build, kept[i], build, kept[o]) &&
				(j == s || movedids[j - 1].i < o);
		}
		if (!ok && bad_self++ == 0)
			snprintf(first, sizeof(first), "build row %" PRId64 ": range [%" PRId64 ", %" PRId64
					 ") position %d multiplicity %" PRId64, kept[i], s, e, pos[i], mult[i]);
	}
	TM_CHECK_MSG(bad_self == 0, "%s: %" PRId64 " bad self lookups, first: %s", name, bad_self, first);

	/* every probe row against a brute-force scan of all build rows (NULL never equals anything) */
	for (r = 0; r < probe->n; r++)
	{
		TmValue		kv[MAXKEYS];
		bool		kn[MAXKEYS];
		int64_t		s = 0,
					e = 0,
					j,
					expect = 0;
		bool		found = false,
					ok = true;

		for (j = 0; j < build->n; j++)
			if (ref_join_eq(probe, r, build, j))
				expect++;
		probes++;
		if (!row_has_null(probe, r))
		{
			row_keys(probe, r, kv, kn);
			found = tm_join_table_lookup(&jt, key_hash(hmode, kv, NULL, sc->types, nk), kv, &s, &e);
		}
		else
			ok = expect == 0;	/* the executor does not look NULL keys up */
		if (!found)
			s = e = 0;
		if (found != (expect > 0) || e - s != expect)
			ok = false;
		for (j = s; ok && j < e; j++)
			ok = ref_join_eq(probe, r, build, kept[movedids[j].i]);
		hits += found;
		if (!ok && bad_probe++ == 0)
			snprintf(first, sizeof(first), "probe row %" PRId64 ": found %d [%" PRId64 ", %" PRId64
					 "), expected %" PRId64 " rows", r, found, s, e, expect);
	}
	TM_CHECK_MSG(bad_probe == 0, "%s: %" PRId64 " of %" PRId64 " probes wrong, first: %s", name,
				 bad_probe, probes, first);

	tm_join_table_release(&jt, &m);
	TM_CHECK_MSG(tm.live == 0, "%s: %" PRId64 " blocks leaked", name, tm.live);
	if (getenv("TM_UNIT_VERBOSE"))
		printf("  %-40s build %" PRId64 " (kept %" PRId64 ", %" PRId64 " keys) probes %" PRId64
			   " (hits %" PRId64 ")\n", name, build->n, n, ref_groups, probes, hits);
done:
	for (k = 0; k < nk; k++)
	{
		free(keys[k]);
		free(moved[k]);
	}
	free(kept);
	free(mult_of_row);
	free(ids);
	free(movedids);
	free(hashes);
	free(pos);
	free(mult);
	free(mark);
}

static void
run_join(const char *name, const Schema *sc, int64_t nbuild, int64_t nprobe, int hmode)
{
	Rows		b = gen_rows(sc, nbuild);
	Rows		p = gen_rows(sc, nprobe);

	check_join(name, sc, &b, &p, hmode);
	free_rows(&b);
	free_rows(&p);
}

static Schema
schema1(int kind, int domain)
{
	Schema		sc;

	memset(&sc, 0, sizeof(sc));
	sc.nkeys = 1;
	sc.types[0] = mk_type(kind, kind == TM_K_NUMERIC ? 2 : 0);
	sc.domain[0] = domain;
	return sc;
}

/* the six key types, small domains: multi-column keys collide in some columns and not in others */
static Schema
schema_mixed(int null_pct, int skew_pct)
{
	Schema		sc;
	int			kinds[6] = {TM_K_INT4, TM_K_INT8, TM_K_NUMERIC, TM_K_TEXT, TM_K_BPCHAR, TM_K_FLOAT8};
	int			doms[6] = {3, 4, 3, 5, 4, 9};
	int			k;

	memset(&sc, 0, sizeof(sc));
	sc.nkeys = 6;
	for (k = 0; k < 6; k++)
	{
		sc.types[k] = mk_type(kinds[k], kinds[k] == TM_K_NUMERIC ? 2 : 0);
		sc.domain[k] = doms[k];
	}
	sc.null_pct = null_pct;
	sc.skew_pct = skew_pct;
	return sc;
}

static void
test_join_single_keys(void)
{
	int			kinds[6] = {TM_K_INT4, TM_K_INT8, TM_K_NUMERIC, TM_K_TEXT, TM_K_BPCHAR, TM_K_FLOAT8};
	const char *names[6] = {"int4", "int8", "numeric", "text", "bpchar", "float8"};
	int			i;
	char		name[64];

	for (i = 0; i < 6; i++)
	{
		Schema		sc = schema1(kinds[i], 300);

		/* random keys with duplicates: about 7 rows per key, probes half hits */
		snprintf(name, sizeof(name), "join %s dup", names[i]);
		run_join(name, &sc, 2000, 1000, HASH_REAL);
		/* the special classes only (-0/0, NaNs, infinities, blanks, 128-bit values) */
		sc.domain[0] = 8;
		snprintf(name, sizeof(name), "join %s specials", names[i]);
		run_join(name, &sc, 500, 200, HASH_REAL);
		/* NULL keys: dropped from the build side, never found */
		sc.domain[0] = 50;
		sc.null_pct = 30;
		snprintf(name, sizeof(name), "join %s nulls", names[i]);
		run_join(name, &sc, 1000, 500, HASH_REAL);
	}
}

static void
test_join_skew(void)
{
	Schema		sc = schema1(TM_K_INT8, 1000);

	/* one key holds 90% of the rows */
	sc.skew_pct = 90;
	run_join("join skew 90%", &sc, 5000, 2000, HASH_REAL);
	/* every row has the same key */
	sc.skew_pct = 100;
	run_join("join one key", &sc, 3000, 100, HASH_REAL);
	/* all keys distinct */
	sc.skew_pct = 0;
	sc.domain[0] = 1000000;
	run_join("join unique keys", &sc, 5000, 2000, HASH_REAL);
}

static void
test_join_multicolumn(void)
{
	Schema		sc = schema_mixed(0, 0);

	run_join("join 6 mixed keys", &sc, 3000, 2000, HASH_REAL);
	sc = schema_mixed(10, 0);
	run_join("join 6 mixed keys, nulls", &sc, 3000, 2000, HASH_REAL);
	sc = schema_mixed(5, 60);
	run_join("join 6 mixed keys, skew", &sc, 3000, 2000, HASH_REAL);
	/* two text-ish keys: ("ab", "c") vs ("a", "bc") must differ */
	sc = schema_mixed(0, 0);
	sc.nkeys = 2;
	sc.types[0] = mk_type(TM_K_TEXT, 0);
	sc.types[1] = mk_type(TM_K_BPCHAR, 0);
	sc.domain[0] = 20;
	sc.domain[1] = 20;
	run_join("join text + bpchar", &sc, 2000, 1000, HASH_REAL);
}

static void
test_join_collisions(void)
{
	Schema		sc = schema_mixed(5, 0);
	Schema		s1 = schema1(TM_K_BPCHAR, 60);

	/* equal hashes for different keys: only key equality separates them */
	run_join("join all hashes 0", &sc, 1500, 800, HASH_ZERO);
	run_join("join 4 hash values", &sc, 1500, 800, HASH_FOUR);
	run_join("join bpchar hashes 0", &s1, 600, 300, HASH_ZERO);
}

static void
test_join_sizes(void)
{
	Schema		sc = schema1(TM_K_INT4, 100);
	Rows		empty = gen_rows(&sc, 0);
	Rows		p = gen_rows(&sc, 300);
	Rows		one = gen_rows(&sc, 1);
	int64_t		n;

	/* empty build side: nothing is ever found */
	check_join("join empty build side", &sc, &empty, &p, HASH_REAL);
	/* one row */
	check_join("join one build row", &sc, &one, &p, HASH_REAL);
	/* no probes at all, a build side with only NULL keys */
	sc.null_pct = 100;
	{
		Rows		nb = gen_rows(&sc, 200);

		check_join("join build side all NULL", &sc, &nb, &p, HASH_REAL);
		free_rows(&nb);
	}
	free_rows(&empty);
	free_rows(&one);
	free_rows(&p);

	/* growing build sides: directory sizes from 16 entries up, around the powers of two */
	sc = schema1(TM_K_INT8, 1);
	for (n = 1; n <= 40000; n = n * 3 + 1)
	{
		char		name[64];

		sc.domain[0] = (int) (n / 2 + 1);
		snprintf(name, sizeof(name), "join %" PRId64 " build rows", n);
		run_join(name, &sc, n, n < 3000 ? 1000 : 300, HASH_REAL);
		sc.domain[0] = (int) n * 4 + 8;
		snprintf(name, sizeof(name), "join %" PRId64 " sparse build rows", n);
		run_join(name, &sc, n, 300, HASH_REAL);
	}
	/* just over a power of two of groups (directory = 2 * groups rounded up) */
	sc.domain[0] = 2000000000;
	run_join("join 8193 unique", &sc, 8193, 200, HASH_REAL);
	/* a big build side: ticks during the build */
	sc.domain[0] = 50000;
	run_join("join 150000 build rows", &sc, 150000, 200, HASH_REAL);
}

static void
test_join_failures(void)
{
	TestMem		tm;
	TmHtMem		m = mem_of(&tm);
	TmType		t = mk_type(TM_K_INT4, 0);
	TmJoinTable jt;
	TmValue    *col = (TmValue *) xmalloc(sizeof(TmValue) * 1000);
	TmValue    *cols[1] = {col};
	uint64_t   *h = (uint64_t *) xmalloc(sizeof(uint64_t) * 1000);
	int32_t    *pos = (int32_t *) xmalloc(sizeof(int32_t) * 1000);
	int			i,
				fail;

	/* too many rows: refused before touching anything */
	TM_CHECK(tm_join_table_build(&jt, &m, 1, &t, TM_JOIN_TABLE_MAX_ROWS, NULL, NULL, NULL) ==
			 TM_HT_TOO_MANY_ROWS);
	TM_CHECK_INT_EQ(tm.allocs, 0);

	for (i = 0; i < 1000; i++)
	{
		memset(&col[i], 0, sizeof(TmValue));
		col[i].i = i % 77;
		h[i] = tm_hash_keys(&col[i], NULL, &t, 1);
	}
	/* out of memory at each allocation of the build: reported, nothing left allocated */
	for (fail = 0; fail < 5; fail++)
	{
		TmHtStatus	st;

		m = mem_of(&tm);
		tm.fail_after = fail;
		st = tm_join_table_build(&jt, &m, 1, &t, 1000, (const TmValue *const *) cols, h, pos);
		TM_CHECK_MSG(st == TM_HT_NOMEM && tm.live == 0,
					 "allocation %d failing: status %d, %" PRId64 " blocks live", fail, (int) st, tm.live);
	}
	m = mem_of(&tm);
	tm.fail_after = 5;
	TM_CHECK(tm_join_table_build(&jt, &m, 1, &t, 1000, (const TmValue *const *) cols, h, pos) == TM_HT_OK);
	TM_CHECK_INT_EQ(jt.ngroups, 77);
	tm_join_table_release(&jt, &m);
	TM_CHECK_INT_EQ(tm.live, 0);
	free(col);
	free(h);
	free(pos);
}

/* ------------------------------------------------------------------------------------------------
 * TmGroupTable
 * ------------------------------------------------------------------------------------------------
 */

/* the caller's side of a group table: key columns that it grows (reallocates) itself */
typedef struct GroupCols
{
	int			nkeys;
	int64_t		cap;
	TmValue    *cols[MAXKEYS];
	bool	   *nulls[MAXKEYS];
} GroupCols;

static void
gcols_init(GroupCols *gc, int nkeys)
{
	int			k;

	memset(gc, 0, sizeof(*gc));
	gc->nkeys = nkeys;
	gc->cap = 4;
	for (k = 0; k < nkeys; k++)
	{
		gc->cols[k] = (TmValue *) xmalloc(sizeof(TmValue) * gc->cap);
		gc->nulls[k] = (bool *) xmalloc(gc->cap);
	}
}

/* store group g's keys, growing the columns (new addresses: the table must only keep cols/nulls) */
static void
gcols_set(GroupCols *gc, int64_t g, const TmValue *keys, const bool *nulls)
{
	int			k;

	if (g >= gc->cap)
	{
		int64_t		ncap = gc->cap * 2;

		for (k = 0; k < gc->nkeys; k++)
		{
			TmValue    *nv = (TmValue *) xmalloc(sizeof(TmValue) * ncap);
			bool	   *nn = (bool *) xmalloc(ncap);

			memcpy(nv, gc->cols[k], sizeof(TmValue) * gc->cap);
			memcpy(nn, gc->nulls[k], gc->cap);
			memset(gc->cols[k], 0xa5, sizeof(TmValue) * gc->cap);
			free(gc->cols[k]);
			free(gc->nulls[k]);
			gc->cols[k] = nv;
			gc->nulls[k] = nn;
		}
		gc->cap = ncap;
	}
	for (k = 0; k < gc->nkeys; k++)
	{
		gc->nulls[k][g] = nulls[k];
		if (nulls[k])
			memset(&gc->cols[k][g], 0x5a, sizeof(TmValue));	/* never read */
		else
			gc->cols[k][g] = keys[k];
	}
}

static void
gcols_free(GroupCols *gc)
{
	int			k;

	for (k = 0; k < gc->nkeys; k++)
	{
		free(gc->cols[k]);
		free(gc->nulls[k]);
	}
}

/* directory invariants: half full at most, every group once, at a position its hash reaches */
static int64_t
check_group_dir(const TmGroupTable *gt, const GroupCols *gc, int hmode)
{
	uint64_t	size = gt->mask + 1,
				p;
	int64_t		bad = 0,
				used = 0;
	char	   *seen = (char *) xmalloc(gt->ngroups + 1);

	memset(seen, 0, gt->ngroups + 1);
	if ((size & (size - 1)) != 0 || (uint64_t) gt->ngroups * 2 > size)
		bad++;
	for (p = 0; p < size; p++)
	{
		const TmGroupEntry *e = &gt->dir[p];
		TmValue		kv[MAXKEYS];
		bool		kn[MAXKEYS];
		uint64_t	q;
		int			k;

		if (e->g < 0)
			continue;
		used++;
		if (e->g >= gt->ngroups || seen[e->g])
		{
			bad++;
			continue;
		}
		seen[e->g] = 1;
		for (k = 0; k < gc->nkeys; k++)
		{
			kv[k] = gc->cols[k][e->g];
			kn[k] = gc->nulls[k][e->g];
		}
		if (e->hash != key_hash(hmode, kv, kn, gt->keytypes, gt->nkeys))
			bad++;
		/* no empty entry between its home position and p */
		for (q = tm_ht_pos(e->hash, gt->mask); q != p; q = (q + 1) & gt->mask)
			if (gt->dir[q].g < 0)
			{
				bad++;
				break;
			}
	}
	if (used != gt->ngroups)
		bad++;
	free(seen);
	return bad;
}

/*
 * Group the rows one by one (find, else store the keys and insert), comparing each answer with a
 * brute-force scan of the groups so far; then find every row again.
 */
static void
check_groups(const char *name, const Schema *sc, const Rows *rows, uint64_t dirsize, int hmode)
{
	TestMem		tm;
	TmHtMem		m = mem_of(&tm);
	TmGroupTable gt;
	GroupCols	gc;
	int64_t    *rep = (int64_t *) xmalloc(sizeof(int64_t) * (rows->n + 1));	/* group -> first row */
	int64_t    *rowg = (int64_t *) xmalloc(sizeof(int64_t) * (rows->n + 1));
	int64_t		ngroups = 0,
				r,
				bad = 0,
				bad2 = 0,
				baddir;
	char		first[256] = "";
	TmHtStatus	st;

	gcols_init(&gc, sc->nkeys);
	st = tm_group_table_init(&gt, &m, sc->nkeys, sc->types, gc.cols, gc.nulls, dirsize);
	TM_CHECK_MSG(st == TM_HT_OK && gt.mask + 1 == tm_ht_pow2(dirsize), "%s: init", name);

	for (r = 0; r < rows->n; r++)
	{
		TmValue		kv[MAXKEYS];
		bool		kn[MAXKEYS];
		int64_t		g,
					ref = -1,
					j;
		uint64_t	pos = 0,
					h;

		for (j = 0; j < ngroups; j++)
			if (ref_group_eq(rows, r, rows, rep[j]))
			{
				ref = j;
				break;
			}
		row_keys(rows, r, kv, kn);
		h = key_hash(hmode, kv, kn, sc->types, sc->nkeys);
		g = tm_group_table_find(&gt, h, kv, kn, &pos);
		if (g != ref && bad++ == 0)
			snprintf(first, sizeof(first), "row %" PRId64 ": group %" PRId64 ", expected %" PRId64,
					 r, g, ref);
		if (ref < 0)
		{
			if (g >= 0)
				continue;		/* reported */
			g = ngroups++;
			rep[g] = r;
			gcols_set(&gc, g, kv, kn);
			st = tm_group_table_insert(&gt, &m, pos, h, g);
			if (st != TM_HT_OK && bad++ == 0)
				snprintf(first, sizeof(first), "row %" PRId64 ": insert status %d", r, (int) st);
		}
		rowg[r] = ref >= 0 ? ref : g;
	}
	TM_CHECK_MSG(bad == 0, "%s: %" PRId64 " wrong answers, first: %s", name, bad, first);
	TM_CHECK_MSG(gt.ngroups == ngroups, "%s: %" PRId64 " groups, expected %" PRId64, name,
				 gt.ngroups, ngroups);
	baddir = check_group_dir(&gt, &gc, hmode);
	TM_CHECK_MSG(baddir == 0, "%s: %" PRId64 " directory defects", name, baddir);
	TM_CHECK_MSG(gt.mask + 1 == (ngroups * 2 > (int64_t) tm_ht_pow2(dirsize) ?
								 tm_ht_pow2((uint64_t) ngroups * 2) : tm_ht_pow2(dirsize)),
				 "%s: directory of %" PRIu64 " for %" PRId64 " groups (initial %" PRIu64 ")", name,
				 gt.mask + 1, ngroups, dirsize);

	/* everything again, in another representation: fresh values of the same classes */
	for (r = 0; r < rows->n; r++)
	{
		TmValue		kv[MAXKEYS];
		bool		kn[MAXKEYS];
		uint64_t	pos;
		int			k;
		int64_t		g;

		for (k = 0; k < sc->nkeys; k++)
		{
			int			c = rows->cls[r * sc->nkeys + k];

			kn[k] = c < 0;
			if (c >= 0)
				kv[k] = class_value(&sc->types[k], c, NULL);
			else
				memset(&kv[k], 0x33, sizeof(TmValue));
		}
		g = tm_group_table_find(&gt, key_hash(hmode, kv, kn, sc->types, sc->nkeys), kv, kn, &pos);
		if (g != rowg[r] && bad2++ == 0)
			snprintf(first, sizeof(first), "row %" PRId64 ": group %" PRId64 ", expected %" PRId64,
					 r, g, rowg[r]);
	}
	TM_CHECK_MSG(bad2 == 0, "%s: %" PRId64 " wrong second lookups, first: %s", name, bad2, first);

	tm_group_table_release(&gt, &m);
	TM_CHECK_MSG(tm.live == 0, "%s: %" PRId64 " blocks leaked", name, tm.live);
	if (getenv("TM_UNIT_VERBOSE"))
		printf("  %-40s rows %" PRId64 " groups %" PRId64 " directory %" PRIu64 "\n", name, rows->n,
			   ngroups, gt.mask + 1);
	gcols_free(&gc);
	free(rep);
	free(rowg);
}

static void
run_groups(const char *name, const Schema *sc, int64_t n, uint64_t dirsize, int hmode)
{
	Rows		rs = gen_rows(sc, n);

	check_groups(name, sc, &rs, dirsize, hmode);
	free_rows(&rs);
}

static void
test_group_keys(void)
{
	int			kinds[6] = {TM_K_INT4, TM_K_INT8, TM_K_NUMERIC, TM_K_TEXT, TM_K_BPCHAR, TM_K_FLOAT8};
	const char *names[6] = {"int4", "int8", "numeric", "text", "bpchar", "float8"};
	int			i;
	char		name[64];

	for (i = 0; i < 6; i++)
	{
		Schema		sc = schema1(kinds[i], 400);

		snprintf(name, sizeof(name), "group %s", names[i]);
		run_groups(name, &sc, 3000, 2048, HASH_REAL);
		/* NULLs form one group of their own */
		sc.null_pct = 25;
		sc.domain[0] = 10;
		snprintf(name, sizeof(name), "group %s nulls", names[i]);
		run_groups(name, &sc, 1000, 16, HASH_REAL);
	}
}

static void
test_group_multicolumn(void)
{
	Schema		sc = schema_mixed(0, 0);

	run_groups("group 6 mixed keys", &sc, 4000, 16, HASH_REAL);
	sc = schema_mixed(20, 0);
	run_groups("group 6 mixed keys, nulls", &sc, 4000, 16, HASH_REAL);
	sc = schema_mixed(15, 80);
	run_groups("group 6 mixed keys, skew", &sc, 4000, 2048, HASH_REAL);
	/* all keys NULL: one group */
	sc = schema_mixed(100, 0);
	run_groups("group all NULL", &sc, 500, 16, HASH_REAL);
	/* equal hashes for different keys, NULL vs non-NULL with equal hashes */
	sc = schema_mixed(10, 0);
	run_groups("group all hashes 0", &sc, 1500, 16, HASH_ZERO);
	run_groups("group 4 hash values", &sc, 1500, 16, HASH_FOUR);
	sc = schema1(TM_K_INT4, 20);
	sc.null_pct = 30;
	run_groups("group int4 hashes 0 with NULLs", &sc, 500, 16, HASH_ZERO);
}

/* many groups from the smallest directory: it doubles many times; reference by construction */
static void
test_group_growth(void)
{
	TestMem		tm;
	TmHtMem		m = mem_of(&tm);
	TmType		t = mk_type(TM_K_INT8, 0);
	TmGroupTable gt;
	GroupCols	gc;
	const int64_t N = 100000;
	int64_t    *order = (int64_t *) xmalloc(sizeof(int64_t) * N * 2);
	int64_t    *gof = (int64_t *) xmalloc(sizeof(int64_t) * N * 2);
	int64_t		i,
				bad = 0,
				resizes = 0;
	uint64_t	lastsize;
	bool		nonull = false;

	gcols_init(&gc, 1);
	TM_CHECK(tm_group_table_init(&gt, &m, 1, &t, gc.cols, gc.nulls, 1) == TM_HT_OK);
	TM_CHECK_INT_EQ(gt.mask + 1, 16);
	lastsize = gt.mask + 1;
	for (i = 0; i < 2 * N; i++)
		order[i] = i;
	for (i = N - 1; i > 0; i--)
	{
		int64_t		j = (int64_t) (rnd() % (uint64_t) (i + 1)),
					x = order[i];

		order[i] = order[j];
		order[j] = x;
	}
	for (i = 0; i < N; i++)
	{
		TmValue		v = class_value(&t, (int) order[i], NULL);
		uint64_t	pos = 0,
					h = tm_hash_keys(&v, &nonull, &t, 1);
		int64_t		g = tm_group_table_find(&gt, h, &v, &nonull, &pos);

		if (g != -1)
			bad++;
		gof[order[i]] = i;
		gcols_set(&gc, i, &v, &nonull);
		if (tm_group_table_insert(&gt, &m, pos, h, i) != TM_HT_OK)
			bad++;
		if (gt.mask + 1 != lastsize)
		{
			resizes++;
			if (gt.mask + 1 != lastsize * 2 || (uint64_t) gt.ngroups * 2 <= lastsize)
				bad++;
			lastsize = gt.mask + 1;
		}
	}
	TM_CHECK_MSG(bad == 0, "%" PRId64 " wrong inserts", bad);
	TM_CHECK_INT_EQ(gt.ngroups, N);
	TM_CHECK_INT_EQ(gt.mask + 1, 262144);
	TM_CHECK_INT_EQ(resizes, 14);	/* 16 -> 262144 */
	TM_CHECK_INT_EQ(tm.live, 1);	/* old directories freed */
	TM_CHECK_INT_EQ(check_group_dir(&gt, &gc, HASH_REAL), 0);

	/* every key again, and as many absent ones */
	bad = 0;
	for (i = 0; i < 2 * N; i++)
	{
		TmValue		v = class_value(&t, (int) i, NULL);
		uint64_t	pos;
		int64_t		g = tm_group_table_find(&gt, tm_hash_keys(&v, NULL, &t, 1), &v, &nonull, &pos);

		if (g != (i < N ? gof[i] : -1))
			bad++;
	}
	TM_CHECK_MSG(bad == 0, "%" PRId64 " wrong lookups after growth", bad);

	/* out of memory while doubling: reported, the group is in, the table still answers */
	{
		TmValue		v = class_value(&t, (int) (2 * N + 5), NULL);
		uint64_t	pos = 0,
					h;
		int64_t		g;

		/* fill up to the doubling point (bounded: a directory that doubles too early never gets there) */
		for (i = N; i < 4 * N && gt.ngroups * 2 + 2 <= (int64_t) (gt.mask + 1); i++)
		{
			TmValue		w = class_value(&t, (int) (2 * N + 100 + i), NULL);

			h = tm_hash_keys(&w, NULL, &t, 1);
			if (tm_group_table_find(&gt, h, &w, &nonull, &pos) == -1)
			{
				gcols_set(&gc, gt.ngroups, &w, &nonull);
				tm_group_table_insert(&gt, &m, pos, h, gt.ngroups);
			}
		}
		lastsize = gt.mask + 1;
		TM_CHECK_MSG(gt.ngroups * 2 + 2 > (int64_t) lastsize, "%" PRId64 " groups in a directory of %"
					 PRIu64 " after %" PRId64 " more inserts", gt.ngroups, lastsize, i - N);
		h = tm_hash_keys(&v, NULL, &t, 1);
		g = tm_group_table_find(&gt, h, &v, &nonull, &pos);
		TM_CHECK_INT_EQ(g, -1);
		gcols_set(&gc, gt.ngroups, &v, &nonull);
		tm.fail_after = 0;
		TM_CHECK(tm_group_table_insert(&gt, &m, pos, h, gt.ngroups) == TM_HT_NOMEM);
		tm.fail_after = -1;
		TM_CHECK(gt.mask + 1 == lastsize);
		TM_CHECK_INT_EQ(tm_group_table_find(&gt, h, &v, &nonull, &pos), gt.ngroups - 1);
	}
	tm_group_table_release(&gt, &m);
	TM_CHECK_INT_EQ(tm.live, 0);
	gcols_free(&gc);
	free(order);
	free(gof);
}

/* ------------------------------------------------------------------------------------------------
 * TmDistinctSet
 * ------------------------------------------------------------------------------------------------
 */
static void
check_distinct(const char *name, int kind, int domain, int ngroups, int nadds, int64_t initcap)
{
	TestMem		tm;
	TmHtMem		m = mem_of(&tm);
	TmType		t = mk_type(kind, kind == TM_K_NUMERIC ? 2 : 0);
	TmDistinctSet ds;
	char	   *seen = (char *) xmalloc((size_t) domain * ngroups);
	char		scratch[256];
	int64_t		nseen = 0,
				bad = 0,
				bad2 = 0;
	int			i,
				g,
				c;
	char		first[200] = "";
	bool		text = kind == TM_K_TEXT || kind == TM_K_BPCHAR;

	memset(seen, 0, (size_t) domain * ngroups);
	TM_CHECK_MSG(tm_distinct_init(&ds, &m, &t, initcap) == TM_HT_OK, "%s: init", name);
	for (i = 0; i < nadds; i++)
	{
		TmValue		v;
		int64_t		idx = -1;
		int			r;

		g = rnd_below(ngroups);
		c = rnd_below(domain);
		/* the value's bytes are scratch, overwritten by the next value: the caller owns copies */
		v = class_value(&t, c, scratch);
		r = tm_distinct_add(&ds, &m, g, &v, &idx);
		if (r != (seen[(size_t) g * domain + c] ? 0 : 1) && bad++ == 0)
			snprintf(first, sizeof(first), "add (%d, class %d): %d", g, c, r);
		if (r == 1)
		{
			seen[(size_t) g * domain + c] = 1;
			nseen++;
			if (idx < 0 || idx >= ds.n || ds.vals[idx].s.p != v.s.p ||
				memcmp(&ds.vals[idx], &v, sizeof(TmValue)) != 0)
				bad++;
			else if (text)
			{
				char	   *own = text_alloc(v.s.len + 1);

				memcpy(own, v.s.p, v.s.len);
				ds.vals[idx].s.p = own;
			}
		}
		if (text)
			memset(scratch, '~', sizeof(scratch));
	}
	TM_CHECK_MSG(bad == 0, "%s: %" PRId64 " wrong adds, first: %s", name, bad, first);
	TM_CHECK_MSG(ds.n == nseen, "%s: %" PRId64 " pairs, expected %" PRId64, name, ds.n, nseen);
	TM_CHECK_MSG(ds.n < ds.cap && ds.mask + 1 == tm_ht_pow2((uint64_t) ds.cap * 2),
				 "%s: %" PRId64 " pairs, capacity %" PRId64 ", directory %" PRIu64, name, ds.n, ds.cap,
				 ds.mask + 1);

	/* membership of every pair, fresh representations */
	for (g = 0; g < ngroups; g++)
		for (c = 0; c < domain; c++)
		{
			TmValue		v = class_value(&t, c, scratch);

			if (tm_distinct_contains(&ds, g, &v) != (seen[(size_t) g * domain + c] != 0) && bad2++ == 0)
				snprintf(first, sizeof(first), "contains (%d, class %d)", g, c);
		}
	TM_CHECK_MSG(bad2 == 0, "%s: %" PRId64 " wrong memberships, first: %s", name, bad2, first);

	/* out of memory while growing: -1, the pair is not in, and it can be added later */
	if (nseen < (int64_t) domain * ngroups)
	{
		int64_t		idx;
		int64_t		n0;

		/* a pair not in the set */
		for (i = 0; seen[i]; i++)
			;
		g = i / domain;
		c = i % domain;
		/* fill up to one below the capacity with pairs of a group beyond the others */
		for (i = 0; ds.n + 1 < ds.cap; i++)
		{
			TmValue		w = class_value(&t, i, NULL);

			tm_distinct_add(&ds, &m, ngroups + 1 + i / domain, &w, &idx);
		}
		n0 = ds.n;
		{
			TmValue		v = class_value(&t, c, NULL);

			tm.fail_after = 0;
			TM_CHECK_MSG(tm_distinct_add(&ds, &m, g, &v, &idx) == -1, "%s: add without memory", name);
			tm.fail_after = -1;
			TM_CHECK_MSG(ds.n == n0 && !tm_distinct_contains(&ds, g, &v), "%s: undone", name);
			TM_CHECK_MSG(tm_distinct_add(&ds, &m, g, &v, &idx) == 1 && tm_distinct_contains(&ds, g, &v),
						 "%s: added after all", name);
		}
	}
	tm_distinct_release(&ds, &m);
	TM_CHECK_MSG(tm.live == 0, "%s: %" PRId64 " blocks leaked", name, tm.live);
	free(seen);
}

static void
test_distinct(void)
{
	/* count(DISTINCT x) per group: the same value in different groups counts in each */
	check_distinct("distinct int4", TM_K_INT4, 200, 30, 20000, 1024);
	check_distinct("distinct int8 from capacity 1", TM_K_INT8, 500, 40, 30000, 1);
	check_distinct("distinct numeric", TM_K_NUMERIC, 100, 10, 5000, 1);
	check_distinct("distinct float8 (-0, NaN)", TM_K_FLOAT8, 12, 50, 5000, 16);
	check_distinct("distinct text", TM_K_TEXT, 60, 20, 5000, 1);
	check_distinct("distinct bpchar (trailing blanks)", TM_K_BPCHAR, 40, 20, 5000, 1);
	check_distinct("distinct one group", TM_K_INT4, 3000, 1, 20000, 1024);
}

int
main(void)
{
	rng_state = 20240601;
	TM_RUN(test_hash_rule);
	TM_RUN(test_join_single_keys);
	TM_RUN(test_join_skew);
	TM_RUN(test_join_multicolumn);
	TM_RUN(test_join_collisions);
	TM_RUN(test_join_sizes);
	TM_RUN(test_join_failures);
	TM_RUN(test_group_keys);
	TM_RUN(test_group_multicolumn);
	TM_RUN(test_group_growth);
	TM_RUN(test_distinct);
	return tm_unit_done();
}
