/*
 * cache.c — the GPU column cache of themis-gpud.
 *
 * An entry is one table as one backend read it: key (database, relation, relfilenode), the stamp the
 * backend computed before reading (modification counts, src/modcount.c), the row count, and the columns
 * loaded so far, each in device memory (arena.c) in the layout of tm_gpu_exec.h.  The daemon does not
 * judge visibility: a backend asks for key + stamp, and an entry serves only an exact match.  Columns
 * are added to an entry only with the same stamp and row count (the backend guarantees that a snapshot
 * that may use the entry reads the same rows in the same order).  Eviction: least recently used entries
 * that no running query holds, when the arena has no room.  Callers hold gpud_lock.
 */
#include <stdlib.h>
#include <string.h>

#include "gpud.h"

static CacheTable *cache_head;

static void
free_table(CacheTable *t)
{
	for (int i = 0; i < t->ncols; i++)
	{
		arena_free(t->cols[i].data);
		arena_free(t->cols[i].offsets);
		arena_free(t->cols[i].nulls);
	}
	free(t->cols);
	free(t);
}

static void
unlink_table(CacheTable *t)
{
	CacheTable **pp;

	for (pp = &cache_head; *pp != NULL; pp = &(*pp)->next)
		if (*pp == t)
		{
			*pp = t->next;
			return;
		}
}

CacheTable *
cache_find(uint32_t dboid, uint32_t relid, uint32_t relfilenode)
{
	for (CacheTable *t = cache_head; t != NULL; t = t->next)
		if (t->dboid == dboid && t->relid == relid && t->relfilenode == relfilenode)
			return t;
	return NULL;
}

CacheCol *
cache_find_col(CacheTable *t, int attno, int kind, int scale)
{
	for (int i = 0; i < t->ncols; i++)
		if (t->cols[i].attno == attno && t->cols[i].kind == kind && t->cols[i].scale == scale)
			return &t->cols[i];
	return NULL;
}

CacheTable *
cache_get_for_store(const TmxSource *src)
{
	CacheTable *t = cache_find(src->dboid, src->relid, src->relfilenode);

	if (t != NULL)
	{
		if (t->table_count == src->table_count && t->global_count == src->global_count &&
			t->nrows == src->nrows)
			return t;
		if (t->in_use)
			return NULL;		/* an older version serves this very query: keep it, store nothing */
		unlink_table(t);
		free_table(t);
	}
	t = calloc(1, sizeof(CacheTable));
	if (t == NULL)
		return NULL;
	t->dboid = src->dboid;
	t->relid = src->relid;
	t->relfilenode = src->relfilenode;
	t->table_count = src->table_count;
	t->global_count = src->global_count;
	t->nrows = src->nrows;
	t->loaded_at = t->used_at = gpud_now();
	memcpy(t->relname, src->relname, sizeof(t->relname));
	t->relname[sizeof(t->relname) - 1] = '\0';
	t->next = cache_head;
	cache_head = t;
	return t;
}

bool
cache_add_col(CacheTable *t, const CacheCol *col)
{
	CacheCol   *n = realloc(t->cols, sizeof(CacheCol) * (t->ncols + 1));

	if (n == NULL)
		return false;
	t->cols = n;
	t->cols[t->ncols++] = *col;
	return true;
}

void *
cache_alloc_evicting(size_t bytes)
{
	for (;;)
	{
		void	   *p = arena_alloc(bytes);
		CacheTable *victim = NULL;

		if (p != NULL)
			return p;
		for (CacheTable *t = cache_head; t != NULL; t = t->next)
			if (!t->in_use && (victim == NULL || t->used_at < victim->used_at))
				victim = t;
		if (victim == NULL)
			return NULL;
		gpud_log("evicting %s (relation %u, %d columns) for %zu bytes", victim->relname, victim->relid,
				 victim->ncols, bytes);
		unlink_table(victim);
		free_table(victim);
	}
}

int64_t
cache_drop(uint32_t dboid, uint32_t relid)
{
	int64_t		n = 0;
	CacheTable **pp = &cache_head;

	while (*pp != NULL)
	{
		CacheTable *t = *pp;

		if ((dboid == 0 || t->dboid == dboid) && (relid == 0 || t->relid == relid) && !t->in_use)
		{
			*pp = t->next;
			free_table(t);
			n++;
		}
		else
			pp = &t->next;
	}
	return n;
}

int64_t
cache_entries(void)
{
	int64_t		n = 0;

	for (CacheTable *t = cache_head; t != NULL; t = t->next)
		n++;
	return n;
}

int64_t
cache_bytes(void)
{
	int64_t		n = 0;

	for (CacheTable *t = cache_head; t != NULL; t = t->next)
		for (int i = 0; i < t->ncols; i++)
			n += t->cols[i].bytes;
	return n;
}

TmxCacheRow *
cache_list(int64_t *np)
{
	int64_t		n = 0;
	TmxCacheRow *rows;
	double		now = gpud_now();

	for (CacheTable *t = cache_head; t != NULL; t = t->next)
		n += t->ncols;
	rows = calloc(n > 0 ? n : 1, sizeof(TmxCacheRow));
	if (rows == NULL)
		return NULL;
	n = 0;
	for (CacheTable *t = cache_head; t != NULL; t = t->next)
		for (int i = 0; i < t->ncols; i++)
		{
			TmxCacheRow *r = &rows[n++];

			r->dboid = t->dboid;
			r->relid = t->relid;
			r->relfilenode = t->relfilenode;
			r->attno = t->cols[i].attno;
			r->kind = t->cols[i].kind;
			r->scale = t->cols[i].scale;
			r->table_count = t->table_count;
			r->global_count = t->global_count;
			r->nrows = t->nrows;
			r->bytes = t->cols[i].bytes;
			r->hits = t->hits;
			r->age_s = now - t->loaded_at;
			r->idle_s = now - t->used_at;
			memcpy(r->relname, t->relname, sizeof(r->relname));
		}
	*np = n;
	return rows;
}
