// SPDX-License-Identifier: MIT
/*
 * record/hashmap.c - open-addressing tables for the ring-buffer consumer.
 *
 * The consumer sees up to ~20000 samples a second; each one looks up its
 * stack, its (process, stack) pair and its thread's last comm. Linear
 * probing over flat arrays keeps those lookups to a cache line or two, and
 * the only allocation on the hot path is the copy of a stack seen for the
 * first time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/hashmap.h"

uint64_t hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = hash_u64(len ^ 0x9e3779b97f4a7c15ull), w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		h = hash_u64(h ^ w);
		p += 8;
		len -= 8;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = hash_u64(h ^ w ^ 0xff);
	}
	return h;
}

static int u64map_grow(struct u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i, j;
	uint64_t *keys, *vals;
	uint8_t *used;

	keys = calloc(ncap, sizeof(*keys));
	vals = calloc(ncap, sizeof(*vals));
	used = calloc(ncap, 1);
	if (!keys || !vals || !used) {
		free(keys);
		free(vals);
		free(used);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		j = hash_u64(m->keys[i]) & (ncap - 1);
		while (used[j])
			j = (j + 1) & (ncap - 1);
		used[j] = 1;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	free(m->used);
	m->keys = keys;
	m->vals = vals;
	m->used = used;
	m->cap = ncap;
	return 0;
}

uint64_t *u64map__find(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = hash_u64(key) & (m->cap - 1);
	while (m->used[i]) {
		if (m->keys[i] == key)
			return &m->vals[i];
		i = (i + 1) & (m->cap - 1);
	}
	return NULL;
}

int u64map__upsert(struct u64map *m, uint64_t key, uint64_t val, uint64_t **slot, bool *added)
{
	size_t i;
	int err;

	if ((m->nr + 1) * 4 > m->cap * 3) {	/* load factor <= 3/4 */
		err = u64map_grow(m);
		if (err)
			return err;
	}
	i = hash_u64(key) & (m->cap - 1);
	while (m->used[i]) {
		if (m->keys[i] == key) {
			*slot = &m->vals[i];
			*added = false;
			return 0;
		}
		i = (i + 1) & (m->cap - 1);
	}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->nr++;
	*slot = &m->vals[i];
	*added = true;
	return 0;
}

void u64map__release(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static uint64_t stack_hash(const uint64_t *frames, uint32_t nr_kernel, uint32_t nr_user)
{
	uint64_t h = hash_u64(((uint64_t)nr_kernel << 32 | nr_user) ^ 0x5bd1e9955bd1e995ull);
	uint32_t i;

	for (i = 0; i < nr_kernel + nr_user; i++)
		h = hash_u64(h ^ frames[i]) + i;
	return h;
}

static bool stack_equal(const struct stack_entry *e, uint64_t hash, const uint64_t *frames,
			uint32_t nr_kernel, uint32_t nr_user)
{
	return e->hash == hash && e->nr_kernel == nr_kernel && e->nr_user == nr_user &&
	       !memcmp(e->frames, frames, (size_t)(nr_kernel + nr_user) * sizeof(*frames));
}

static int stack_slots_grow(struct stack_table *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1024, i, j;
	uint32_t *slots = calloc(ncap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++) {
		j = t->entries[i].hash & (ncap - 1);
		while (slots[j])
			j = (j + 1) & (ncap - 1);
		slots[j] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = slots;
	t->cap = ncap;
	return 0;
}

uint32_t stack_table__intern(struct stack_table *t, const uint64_t *frames, uint32_t nr_kernel,
			     uint32_t nr_user, bool *added, int *err)
{
	return stack_table__intern_hash(t, stack_hash(frames, nr_kernel, nr_user), frames, nr_kernel,
					nr_user, added, err);
}

uint32_t stack_table__intern_hash(struct stack_table *t, uint64_t h, const uint64_t *frames,
				  uint32_t nr_kernel, uint32_t nr_user, bool *added, int *err)
{
	size_t i, n = (size_t)nr_kernel + nr_user;
	struct stack_entry *e;
	uint32_t id;

	*added = false;
	*err = 0;
	if ((t->nr + 1) * 2 > t->cap) {		/* load factor <= 1/2 */
		*err = stack_slots_grow(t);
		if (*err)
			return 0;
	}
	i = h & (t->cap - 1);
	while ((id = t->slots[i])) {
		if (stack_equal(&t->entries[id - 1], h, frames, nr_kernel, nr_user))
			return id;
		i = (i + 1) & (t->cap - 1);
	}
	if (t->nr == UINT32_MAX - 1) {
		*err = -EOVERFLOW;
		return 0;
	}
	if (t->nr == t->alloc) {
		size_t nalloc = t->alloc ? t->alloc * 2 : 1024;
		struct stack_entry *ne = reallocarray(t->entries, nalloc, sizeof(*ne));

		if (!ne) {
			*err = -ENOMEM;
			return 0;
		}
		t->entries = ne;
		t->alloc = nalloc;
	}
	e = &t->entries[t->nr];
	e->frames = malloc(n ? n * sizeof(*frames) : 1);
	if (!e->frames) {
		*err = -ENOMEM;
		return 0;
	}
	memcpy(e->frames, frames, n * sizeof(*frames));
	e->hash = h;
	e->nr_kernel = nr_kernel;
	e->nr_user = nr_user;
	id = (uint32_t)++t->nr;
	t->slots[i] = id;
	*added = true;
	return id;
}

const struct stack_entry *stack_table__get(const struct stack_table *t, uint32_t id)
{
	if (!id || id > t->nr)
		return NULL;
	return &t->entries[id - 1];
}

void stack_table__release(struct stack_table *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->entries[i].frames);
	free(t->entries);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
