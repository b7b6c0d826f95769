// SPDX-License-Identifier: MIT
/*
 * report/aggregate/strtab.c - string interning for report/.
 *
 * Strings live in 64 KiB arena chunks (longer ones get a chunk of their
 * own), so interning costs one hash probe (util/hashmap) and, for a new string, a
 * copy without a malloc of its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate/strtab.h"
#include "util/vec.h"

#define CHUNK_SIZE	(64 * 1024)

struct strtab_chunk {
	struct strtab_chunk *next;
	size_t used;
	size_t cap;
	char data[];
};

/* What a probe looks for: len bytes at s, not NUL-terminated. */
struct str_key {
	const char *s;
	size_t len;
};

static bool str_eq(uint32_t id, const void *key, const void *ctx)
{
	const char *cand = ((const struct strtab *)ctx)->strs[id];
	const struct str_key *k = key;

	return !strncmp(cand, k->s, k->len) && cand[k->len] == '\0';
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
	hashmap__release(&t->index);
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

int strtab__intern_len(struct strtab *t, const char *s, size_t len, uint32_t *id)
{
	struct str_key key;
	uint32_t *slot;
	uint64_t h;
	bool added;
	char *copy;
	int err;

	key.s = s;
	key.len = strnlen(s, len);	/* the stored copy is a C string */
	h = hash_bytes(s, key.len);
	slot = hashmap__find(&t->index, h, str_eq, &key, t);
	if (slot) {
		*id = (uint32_t)*slot;
		return 0;
	}
	/* the string is stored before the index names it: str_eq may read it */
	if (t->nr == UINT32_MAX - 1 || vec__grow(&t->strs, &t->alloc, t->nr + 1, sizeof(*t->strs)))
		return -ENOMEM;
	copy = arena_alloc(t, key.len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, key.len);
	copy[key.len] = '\0';
	t->strs[t->nr] = copy;
	err = hashmap__upsert(&t->index, h, str_eq, &key, t, t->nr, &slot, &added);
	if (err)
		return err;	/* the copy stays in the arena, unnamed, until release */
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
