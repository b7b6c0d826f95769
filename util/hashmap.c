// SPDX-License-Identifier: MIT
/*
 * util/hashmap.c - growing the one hash table (see hashmap.h). A slot's
 * index comes from the hash bits it keeps, so growing needs nothing from
 * the caller: every used slot is moved to its place in an array twice as
 * large.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/vec.h"

#define HASHMAP_FIRST	64

void hashmap__init(struct hashmap *m)
{
	memset(m, 0, sizeof(*m));
}

void hashmap__release(struct hashmap *m)
{
	if (!m)
		return;
	free(m->slots);
	hashmap__init(m);
}

size_t hashmap__cap_for(const struct hashmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : HASHMAP_FIRST, need;

	if (n > (size_t)1 << 31 || __builtin_mul_overflow(n, 2, &need))
		return SIZE_MAX;	/* a 32-bit value names each entry */
	if (need <= m->cap)
		return m->cap;
	while (cap < need)
		if (__builtin_mul_overflow(cap, 2, &cap))
			return SIZE_MAX;
	return cap;
}

int hashmap__reserve(struct hashmap *m, size_t n)
{
	size_t cap = hashmap__cap_for(m, n), bytes, i, j;
	struct hashmap_slot *slots;

	if (cap == m->cap)
		return 0;
	if (cap == SIZE_MAX || __builtin_mul_overflow(cap, sizeof(*slots), &bytes))
		return -ENOMEM;
	slots = calloc(1, bytes);
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++) {
		if (!m->slots[i].tag)
			continue;
		for (j = m->slots[i].tag & (cap - 1); slots[j].tag; j = (j + 1) & (cap - 1))
			;
		slots[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

static bool u64map_eq(uint32_t val, const void *key, const void *ctx)
{
	const struct u64map *m = ctx;

	return m->keys[val] == *(const uint64_t *)key;
}

uint64_t *u64map__find(const struct u64map *m, uint64_t key)
{
	uint32_t *pos = hashmap__find(&m->index, hash_u64(key), u64map_eq, &key, m);

	return pos ? &m->vals[*pos] : NULL;
}

int u64map__upsert(struct u64map *m, uint64_t key, uint64_t val, uint64_t **slot, bool *added)
{
	size_t alloc = m->alloc;
	uint32_t *pos;
	int err;

	/* room first, so that a failure leaves the map as it was */
	if (vec__grow(&m->keys, &alloc, m->nr + 1, sizeof(*m->keys)))
		return -ENOMEM;
	if (alloc != m->alloc) {
		size_t valloc = m->alloc;

		if (vec__grow(&m->vals, &valloc, alloc, sizeof(*m->vals)))
			return -ENOMEM;
		m->alloc = alloc;
	}
	err = hashmap__upsert(&m->index, hash_u64(key), u64map_eq, &key, m, (uint32_t)m->nr, &pos,
			      added);
	if (err)
		return err;
	if (*added) {
		m->keys[m->nr] = key;
		m->vals[m->nr] = val;
		m->nr++;
	}
	*slot = &m->vals[*pos];
	return 0;
}

uint64_t u64map__bytes_for(const struct u64map *m, size_t n)
{
	size_t alloc = vec__alloc_for(m->alloc, n), cap = hashmap__cap_for(&m->index, n);

	if (alloc == SIZE_MAX || cap == SIZE_MAX)
		return UINT64_MAX;
	return (uint64_t)alloc * 2 * sizeof(uint64_t) + (uint64_t)cap * sizeof(struct hashmap_slot);
}

void u64map__release(struct u64map *m)
{
	if (!m)
		return;
	hashmap__release(&m->index);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
