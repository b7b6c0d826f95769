/* SPDX-License-Identifier: MIT */
/*
 * util/hashmap.h - the one hash table of eprof: open addressing with
 * linear probing over a flat array of (hash, value) slots, at most half
 * full, growing by doubling with every size checked for overflow.
 *
 * The map does not own keys. A slot holds 32 bits of the key's hash and a
 * 32-bit value, the index of the caller's entry (a string, a stack, a
 * count) in the caller's own array: 8 bytes a slot, so that the table of
 * a report's keys stays in cache. The caller's eq function says whether a
 * value names the key it looks for, and is asked only when the stored bits
 * match, so it is rarely called and a hash collision never merges two
 * keys. Where the key is itself a 32-bit word, the value can be the key
 * (hashmap_eq_u32). Lookups are inline so that eq is inlined too: the
 * aggregation of every sample goes through here.
 *
 * Slots move when the map grows: a pointer returned by find or upsert is
 * valid until the next insertion. Entries are never removed.
 */
#ifndef EPROF_UTIL_HASHMAP_H
#define EPROF_UTIL_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

struct hashmap_slot {
	uint32_t tag;			/* the hash's high half, never 0 in a used slot; 0: empty */
	uint32_t val;
};

struct hashmap {
	struct hashmap_slot *slots;
	size_t cap;			/* a power of two up to 2^32, or 0 before the first insertion */
	size_t nr;
};

#define HASHMAP_INIT { NULL, 0, 0 }

/* Does the entry val name key? ctx is the caller's, passed through. */
typedef bool (*hashmap_eq_fn)(uint32_t val, const void *key, const void *ctx);

/* For maps whose values are the 32-bit keys themselves (sets of ids). */
static inline bool hashmap_eq_u32(uint32_t val, const void *key, const void *ctx)
{
	(void)ctx;
	return val == *(const uint32_t *)key;
}

/*
 * Makes room for n entries without growing again. -ENOMEM, also past 2^31
 * entries (values are 32-bit) and on overflow.
 */
int hashmap__reserve(struct hashmap *m, size_t n);

/*
 * The capacity hashmap__reserve(m, n) gives m (its own when it has room),
 * in slots (struct hashmap_slot): for charging a memory budget before
 * growing. SIZE_MAX where reserve fails.
 */
size_t hashmap__cap_for(const struct hashmap *m, size_t n);

void hashmap__init(struct hashmap *m);
/* Frees the slots; the map is empty and usable again. NULL-safe. */
void hashmap__release(struct hashmap *m);

/* The bits a slot keeps of hash; its index comes from them too, so growing needs no key. */
static inline uint32_t hashmap__tag(uint64_t hash)
{
	uint32_t tag = (uint32_t)(hash >> 32);

	return tag ? tag : 1;		/* 0 marks an empty slot */
}

/* The slot of key (hash its hash), or the empty slot where it would go. cap > 0. */
static inline struct hashmap_slot *hashmap__probe(const struct hashmap *m, uint64_t hash,
						  hashmap_eq_fn eq, const void *key,
						  const void *ctx)
{
	size_t mask = m->cap - 1, i;
	uint32_t tag = hashmap__tag(hash);
	struct hashmap_slot *s;

	for (i = tag & mask;; i = (i + 1) & mask) {
		s = &m->slots[i];
		if (!s->tag || (s->tag == tag && eq(s->val, key, ctx)))
			return s;
	}
}

/* The value of key, or NULL. Valid until the next insertion. */
static inline uint32_t *hashmap__find(const struct hashmap *m, uint64_t hash, hashmap_eq_fn eq,
				      const void *key, const void *ctx)
{
	struct hashmap_slot *s;

	if (!m->cap)
		return NULL;
	s = hashmap__probe(m, hash, eq, key, ctx);
	return s->tag ? &s->val : NULL;
}

/*
 * Finds key, or adds it with value val. *slot points at its value (valid
 * until the next insertion); *added says whether it was new. -ENOMEM, the
 * map unchanged.
 */
static inline int hashmap__upsert(struct hashmap *m, uint64_t hash, hashmap_eq_fn eq,
				  const void *key, const void *ctx, uint32_t val,
				  uint32_t **slot, bool *added)
{
	struct hashmap_slot *s;
	int err;

	if ((m->nr + 1) * 2 > m->cap) {
		err = hashmap__reserve(m, m->nr + 1);
		if (err)
			return err;
	}
	s = hashmap__probe(m, hash, eq, key, ctx);
	*added = !s->tag;
	if (!s->tag) {
		s->tag = hashmap__tag(hash);
		s->val = val;
		m->nr++;
	}
	*slot = &s->val;
	return 0;
}

/*
 * Adds an entry the caller knows is absent (a find just missed it, or the
 * keys are distinct by construction), without asking eq. -ENOMEM, the map
 * unchanged.
 */
static inline int hashmap__add(struct hashmap *m, uint64_t hash, uint32_t val)
{
	uint32_t tag = hashmap__tag(hash);
	size_t mask, i;
	int err;

	if ((m->nr + 1) * 2 > m->cap) {
		err = hashmap__reserve(m, m->nr + 1);
		if (err)
			return err;
	}
	mask = m->cap - 1;
	for (i = tag & mask; m->slots[i].tag; i = (i + 1) & mask)
		;
	m->slots[i].tag = tag;
	m->slots[i].val = val;
	m->nr++;
	return 0;
}

/* Visits every used slot (struct hashmap_slot *s), in no particular order. */
#define hashmap__for_each(m, s) \
	for ((s) = (m)->slots; (s) && (s) < (m)->slots + (m)->cap; (s)++) \
		if ((s)->tag)

/*
 * A map from 64-bit keys to 64-bit values on top of the one table: keys
 * and values in insertion order in keys[0 .. nr) and vals[0 .. nr), the
 * table holding their positions (so at most 2^31 of them).
 */
struct u64map {
	struct hashmap index;
	uint64_t *keys;
	uint64_t *vals;
	size_t nr;
	size_t alloc;
};

#define U64MAP_INIT { HASHMAP_INIT, NULL, NULL, 0, 0 }

/* Pointer to the value of key, or NULL. Valid until the next insertion. */
uint64_t *u64map__find(const struct u64map *m, uint64_t key);

/*
 * Finds key or adds it with value val. *slot points at its value (valid
 * until the next insertion); *added says whether key was new. -ENOMEM, the
 * map unchanged.
 */
int u64map__upsert(struct u64map *m, uint64_t key, uint64_t val, uint64_t **slot, bool *added);

/*
 * The bytes m's arrays take once they have room for n entries (what they
 * take now when they do): for charging a memory budget. UINT64_MAX where
 * growing would fail.
 */
uint64_t u64map__bytes_for(const struct u64map *m, size_t n);

/* NULL-safe; the map is empty and usable again. */
void u64map__release(struct u64map *m);

/* i goes over the positions 0 .. nr of keys[] and vals[], in insertion order. */
#define u64map__for_each(m, i) \
	for ((i) = 0; (i) < (m)->nr; (i)++)

#endif
