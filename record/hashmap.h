/* SPDX-License-Identifier: MIT */
/*
 * record/hashmap.h - the two tables on the sampling hot path: a u64 -> u64
 * map (open addressing, linear probing) and the stack table that gives each
 * distinct stack a dense id. Both grow by doubling and never shrink; the
 * recorder frees them once at the end.
 */
#ifndef EPROF_RECORD_HASHMAP_H
#define EPROF_RECORD_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 64-bit finalizer (splitmix64): every input bit reaches every output bit. */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t hash_bytes(const void *data, size_t len);

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t cap;		/* power of two, or 0 before the first insert */
	size_t nr;
};

#define U64MAP_INIT { NULL, NULL, NULL, 0, 0 }

/* Pointer to the value of key, or NULL. Valid until the next insert. */
uint64_t *u64map__find(const struct u64map *m, uint64_t key);

/*
 * Finds key or inserts it with value val. *slot points at the value (valid
 * until the next insert); *added tells whether key was new. -ENOMEM.
 */
int u64map__upsert(struct u64map *m, uint64_t key, uint64_t val, uint64_t **slot, bool *added);

void u64map__release(struct u64map *m);

#define u64map__for_each(m, i) \
	for ((i) = 0; (i) < (m)->cap; (i)++) \
		if ((m)->used[i])

/* One distinct stack: frames[0 .. nr_kernel) kernel, then nr_user user frames. */
struct stack_entry {
	uint64_t hash;
	uint64_t *frames;
	uint32_t nr_kernel;
	uint32_t nr_user;
};

/*
 * Stacks deduplicated by content: a 64-bit hash picks the slot, the full
 * frame arrays are compared on every hash match, so two different stacks
 * never share an id. Ids are dense: 1, 2, 3, ...
 */
struct stack_table {
	struct stack_entry *entries;	/* entries[id - 1] */
	size_t nr;
	size_t alloc;
	uint32_t *slots;		/* 0 empty, else an id */
	size_t cap;
};

#define STACK_TABLE_INIT { NULL, 0, 0, NULL, 0 }

/*
 * Returns the id of the stack (kframes, ukframes), adding a copy when it is
 * new (*added set). 0 with *err = -ENOMEM on allocation failure.
 */
uint32_t stack_table__intern(struct stack_table *t, const uint64_t *frames, uint32_t nr_kernel,
			     uint32_t nr_user, bool *added, int *err);

/*
 * The same with the stack's hash given by the caller instead of computed:
 * where the hash is known already, and for tests, which give different
 * stacks one hash to check that they still get different ids.
 */
uint32_t stack_table__intern_hash(struct stack_table *t, uint64_t hash, const uint64_t *frames,
				  uint32_t nr_kernel, uint32_t nr_user, bool *added, int *err);

const struct stack_entry *stack_table__get(const struct stack_table *t, uint32_t id);

void stack_table__release(struct stack_table *t);

#endif
