// SPDX-License-Identifier: MIT
/*
 * report/aggregate/strtab.c - string interning for report/.
 *
 * Strings live in 64 KiB arena chunks (longer ones get a chunk of their
 * own), so interning costs one hash probe and, for a new string, a copy
 * without a malloc of its own. The id table is open-addressed with linear
 * probing and kept at most half full.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate/strtab.h"

#define CHUNK_SIZE	(64 * 1024)

struct strtab_chunk {
	struct strtab_chunk *next;
	size_t used;
	size_t cap;
	char data[];
};

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 29);
}

void strtab__init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void strtab__release(struct strtab *t)
{
	struct strtab_chunk *c, *next;

	if (!t)
		return;
	for (c = t->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(t->strs);
	free(t->index);
	strtab__init(t);
}

static char *arena_alloc(struct strtab *t, size_t size)
{
	struct strtab_chunk *c = t->chunks;
	size_t cap;

	if (!c || c->cap - c->used < size) {
		cap = size > CHUNK_SIZE / 4 ? size : CHUNK_SIZE;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		if (size > CHUNK_SIZE / 4 && t->chunks) {
			/* a big string: keep filling the current small chunk */
			c->next = t->chunks->next;
			t->chunks->next = c;
		} else {
			c->next = t->chunks;
			t->chunks = c;
		}
	}
	c->used += size;
	return c->data + c->used - size;
}

static int rehash(struct strtab *t)
{
	size_t cap = t->index_cap ? t->index_cap * 2 : 256;
	uint32_t *idx, i;
	size_t j;

	idx = calloc(cap, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++) {
		j = hash_bytes(t->strs[i], strlen(t->strs[i])) & (cap - 1);
		while (idx[j])
			j = (j + 1) & (cap - 1);
		idx[j] = i + 1;
	}
	free(t->index);
	t->index = idx;
	t->index_cap = cap;
	return 0;
}

int strtab__intern_len(struct strtab *t, const char *s, size_t len, uint32_t *id)
{
	const char **strs;
	uint64_t h;
	size_t j;
	char *copy;
	int err;

	len = strnlen(s, len);	/* the stored copy is a C string */
	if ((size_t)t->nr * 2 >= t->index_cap) {
		err = rehash(t);
		if (err)
			return err;
	}
	h = hash_bytes(s, len);
	for (j = h & (t->index_cap - 1); t->index[j]; j = (j + 1) & (t->index_cap - 1)) {
		const char *cand = t->strs[t->index[j] - 1];

		if (!strncmp(cand, s, len) && cand[len] == '\0') {
			*id = t->index[j] - 1;
			return 0;
		}
	}
	if (t->nr == UINT32_MAX - 1)
		return -ENOMEM;
	if (t->nr == t->alloc) {
		uint32_t n = t->alloc ? t->alloc * 2 : 64;

		strs = realloc(t->strs, (size_t)n * sizeof(*strs));
		if (!strs)
			return -ENOMEM;
		t->strs = strs;
		t->alloc = n;
	}
	copy = arena_alloc(t, len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->strs[t->nr] = copy;
	t->index[j] = t->nr + 1;
	*id = t->nr++;
	return 0;
}

int strtab__intern(struct strtab *t, const char *s, uint32_t *id)
{
	return strtab__intern_len(t, s, strlen(s), id);
}

const char *strtab__dup(struct strtab *t, const char *s)
{
	uint32_t id;

	if (strtab__intern(t, s, &id))
		return NULL;
	return t->strs[id];
}
