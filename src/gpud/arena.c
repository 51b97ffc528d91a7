/*
 * arena.c — device memory for cached columns and query inputs: one cudaMalloc when the daemon starts
 * (no cudaMalloc on the query path), carved by a first-fit allocator over a list of ranges kept in
 * address order; freeing merges a range with free neighbours.  256-byte alignment.  Callers hold
 * gpud_lock.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpud.h"

#define ARENA_ALIGN 256

struct ArenaBlock
{
	size_t		off;
	size_t		size;
	bool		used;
	struct ArenaBlock *next;
};

static char *arena_base;
static size_t arena_total;
static size_t arena_inuse;
static ArenaBlock *arena_list;

bool
arena_init(size_t bytes, char *err, int errlen)
{
	cudaError_t e;

	bytes &= ~(size_t) (ARENA_ALIGN - 1);
	if (bytes == 0)
	{
		snprintf(err, errlen, "cache arena of 0 bytes");
		return false;
	}
	e = cudaMalloc((void **) &arena_base, bytes);
	if (e != cudaSuccess)
	{
		snprintf(err, errlen, "cudaMalloc of a %zu-byte cache arena: %s", bytes, cudaGetErrorString(e));
		(void) cudaGetLastError();
		return false;
	}
	arena_list = calloc(1, sizeof(ArenaBlock));
	if (arena_list == NULL)
	{
		snprintf(err, errlen, "out of host memory");
		return false;
	}
	arena_list->off = 0;
	arena_list->size = bytes;
	arena_total = bytes;
	return true;
}

void *
arena_alloc(size_t bytes)
{
	ArenaBlock *b;

	if (arena_base == NULL)
		return NULL;
	bytes = (bytes + ARENA_ALIGN - 1) & ~(size_t) (ARENA_ALIGN - 1);
	if (bytes == 0)
		bytes = ARENA_ALIGN;
	for (b = arena_list; b != NULL; b = b->next)
	{
		if (b->used || b->size < bytes)
			continue;
		if (b->size > bytes)
		{
			ArenaBlock *rest = calloc(1, sizeof(ArenaBlock));

			if (rest == NULL)
				return NULL;
			rest->off = b->off + bytes;
			rest->size = b->size - bytes;
			rest->next = b->next;
			b->next = rest;
			b->size = bytes;
		}
		b->used = true;
		arena_inuse += b->size;
		return arena_base + b->off;
	}
	return NULL;
}

void
arena_free(void *p)
{
	ArenaBlock *prev = NULL;
	ArenaBlock *b;
	size_t		off;

	if (p == NULL)
		return;
	off = (size_t) ((char *) p - arena_base);
	for (b = arena_list; b != NULL && b->off != off; b = b->next)
		prev = b;
	if (b == NULL || !b->used)
	{
		gpud_log("arena_free: %p is not an allocated range (ignored)", p);
		return;
	}
	b->used = false;
	arena_inuse -= b->size;
	/* merge with the next, then with the previous */
	if (b->next != NULL && !b->next->used)
	{
		ArenaBlock *n = b->next;

		b->size += n->size;
		b->next = n->next;
		free(n);
	}
	if (prev != NULL && !prev->used)
	{
		prev->size += b->size;
		prev->next = b->next;
		free(b);
	}
}

size_t
arena_size(void)
{
	return arena_total;
}

size_t
arena_used(void)
{
	return arena_inuse;
}
