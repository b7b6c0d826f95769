// SPDX-License-Identifier: MIT
/*
 * record/stacks.c - the stack table (see stacks.h).
 *
 * The ring-buffer consumer sees up to ~20000 samples a second and looks up
 * each one's stack here: one probe of util/hashmap's flat slots, and a
 * comparison of the frames only when the 64-bit hashes match. The only
 * allocation on the hot path is the copy of a stack seen for the first
 * time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/stacks.h"
#include "util/vec.h"

/* What a probe looks for: the frames of one stack. */
struct stack_key {
	const uint64_t *frames;
	uint32_t nr_kernel;
	uint32_t nr_user;
};

static uint64_t stack_hash(const uint64_t *frames, uint32_t nr_kernel, uint32_t nr_user)
{
	uint64_t h = hash_u64((uint64_t)nr_kernel << 32 | nr_user);
	uint32_t i;

	for (i = 0; i < nr_kernel + nr_user; i++)
		h = hash_mix(h, frames[i]);
	return h;
}

static bool stack_eq(uint32_t id, const void *key, const void *ctx)
{
	const struct stack_entry *e = &((const struct stack_table *)ctx)->entries[id - 1];
	const struct stack_key *k = key;

	return e->nr_kernel == k->nr_kernel && e->nr_user == k->nr_user &&
	       !memcmp(e->frames, k->frames, (size_t)(k->nr_kernel + k->nr_user) * sizeof(*k->frames));
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
	struct stack_key key = { frames, nr_kernel, nr_user };
	size_t n = (size_t)nr_kernel + nr_user;
	struct stack_entry *e;
	uint32_t *slot;

	*added = false;
	*err = 0;
	slot = hashmap__find(&t->index, h, stack_eq, &key, t);
	if (slot)
		return *slot;
	if (t->nr >= UINT32_MAX - 1) {
		*err = -EOVERFLOW;
		return 0;
	}
	/* the entry is filled before the index names it: stack_eq may read it */
	if (vec__grow(&t->entries, &t->alloc, t->nr + 1, sizeof(*t->entries))) {
		*err = -ENOMEM;
		return 0;
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
	*err = hashmap__upsert(&t->index, h, stack_eq, &key, t, (uint32_t)t->nr + 1, &slot, added);
	if (*err) {
		free(e->frames);
		return 0;
	}
	return (uint32_t)++t->nr;
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
	hashmap__release(&t->index);
	memset(t, 0, sizeof(*t));
}
