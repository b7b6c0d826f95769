/* SPDX-License-Identifier: MIT */
/*
 * record/stacks.h - the stack table that gives each distinct stack a dense
 * id, on the sampling hot path. It grows and never shrinks; the recorder
 * frees it once at the end. (The u64 -> u64 maps the recorder also keeps
 * are util/hashmap.h's.)
 */
#ifndef EPROF_RECORD_STACKS_H
#define EPROF_RECORD_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

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
	struct hashmap index;		/* stack hash -> id */
};

#define STACK_TABLE_INIT { NULL, 0, 0, HASHMAP_INIT }

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
