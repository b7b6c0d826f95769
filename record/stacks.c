// SPDX-License-Identifier: MIT
/*
 * record/stacks.c - the stack table and its pairs (see stacks.h).
 *
 * The ring-buffer consumer sees up to ~20000 samples a second and looks up
 * each one's stack here: one probe of util/hashmap's flat slots, and a
 * comparison of the frames only when the 64-bit hashes match. The only
 * allocations on the hot path are the copy of a stack seen for the first
 * time and the growth of the arrays, each charged to the memory budget
 * before it is made.
 *
 * The arrays of stacks and their index always keep room for one more
 * stack: the empty stack that a refused sample gets then fits without
 * growing them, whatever the budget says.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/budget.h"
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
	const struct stack_table *t = ctx;
	const struct stack_entry *e = &t->entries[id - t->first - 1];
	const struct stack_key *k = key;

	return e->nr_kernel == k->nr_kernel && e->nr_user == k->nr_user &&
	       !memcmp(e->frames, k->frames, (size_t)(k->nr_kernel + k->nr_user) * sizeof(*k->frames));
}

static uint32_t find(const struct stack_table *t, uint64_t h, const struct stack_key *key)
{
	uint32_t *slot = hashmap__find(&t->index, h, stack_eq, key, t);

	return slot ? *slot : 0;
}

/* What malloc holds for n frames: its header, rounded to 16, 32 at least. */
static uint64_t frames_bytes(size_t n)
{
	uint64_t b = ((n ? n * sizeof(uint64_t) : 1) + 8 + 15) & ~15ull;

	return b < 32 ? 32 : b;
}

/* Bytes a new stack of n frames takes, its arrays grown to hold `room` stacks. */
static uint64_t stack_cost(const struct stack_table *t, size_t n, size_t room)
{
	size_t alloc = vec__alloc_for(t->alloc, room), cap = hashmap__cap_for(&t->index, room);

	if (alloc == SIZE_MAX || cap == SIZE_MAX)
		return UINT64_MAX;
	return frames_bytes(n) + (uint64_t)(alloc - t->alloc) * sizeof(*t->entries) +
	       (uint64_t)(cap - t->index.cap) * sizeof(struct hashmap_slot);
}

/* Bytes a new pair takes. */
static uint64_t pair_cost(const struct stack_table *t)
{
	uint64_t after = u64map__bytes_for(&t->pairs, t->pairs.nr + 1);

	return after == UINT64_MAX ? UINT64_MAX : after - u64map__bytes_for(&t->pairs, t->pairs.nr);
}

/*
 * Takes cost from the floor, else from the budget within the table's
 * share; else marks the table full.
 */
static bool charge(struct stack_table *t, uint64_t cost)
{
	uint64_t share = mem_budget__size() / STACKS_SHARE_DIV;

	if (t->floor <= STACKS_FLOOR && cost <= STACKS_FLOOR - t->floor) {
		t->floor += cost;
		return true;
	}
	if (cost > share || t->charged > share - cost || !mem_budget__take(cost)) {
		t->full = true;
		return false;
	}
	t->charged += cost;
	return true;
}

/* Gives back cost taken by charge(): the budget's part first. */
static void refund(struct stack_table *t, uint64_t cost)
{
	uint64_t d = cost < t->charged ? cost : t->charged;

	mem_budget__give(d);
	t->charged -= d;
	t->floor -= cost - d < t->floor ? cost - d : t->floor;
}

/*
 * Adds the stack (absent), its arrays left with room for `room` stacks;
 * cost is what was charged for it. Its id, or 0 with -ENOMEM/-EOVERFLOW
 * in *err (cost given back).
 */
static uint32_t add(struct stack_table *t, uint64_t h, const struct stack_key *key, size_t room,
		    uint64_t cost, int *err)
{
	size_t n = (size_t)key->nr_kernel + key->nr_user;
	struct stack_entry *e;

	*err = 0;
	if ((uint64_t)t->first + t->nr >= UINT32_MAX - 1)
		*err = -EOVERFLOW;
	else if (vec__grow(&t->entries, &t->alloc, room, sizeof(*t->entries)) ||
		 hashmap__reserve(&t->index, room))
		*err = -ENOMEM;
	if (*err)
		goto fail;
	/* the entry is filled before the index names it: stack_eq may read it */
	e = &t->entries[t->nr];
	e->frames = malloc(n ? n * sizeof(*key->frames) : 1);
	if (!e->frames) {
		*err = -ENOMEM;
		goto fail;
	}
	if (n)
		memcpy(e->frames, key->frames, n * sizeof(*key->frames));
	e->hash = h;
	e->nr_kernel = key->nr_kernel;
	e->nr_user = key->nr_user;
	/* room was made: this adds no slots */
	*err = hashmap__add(&t->index, h, t->first + (uint32_t)t->nr + 1);
	if (*err) {
		free(e->frames);
		goto fail;
	}
	t->nr++;
	return t->first + (uint32_t)t->nr;
fail:
	refund(t, cost);
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
	struct stack_key key = { frames, nr_kernel, nr_user };
	uint64_t cost;
	uint32_t id;

	*added = false;
	*err = 0;
	id = find(t, h, &key);
	if (id)
		return id;
	cost = stack_cost(t, (size_t)nr_kernel + nr_user, t->nr + 2);
	if (!charge(t, cost)) {
		*err = -ENOSPC;
		return 0;
	}
	id = add(t, h, &key, t->nr + 2, cost, err);
	*added = id != 0;
	return id;
}

/* The empty stack for a sample the budget refused: it fits in the room kept. */
static uint32_t empty_stack(struct stack_table *t, bool *added, int *err)
{
	static const uint64_t none[1];
	struct stack_key key = { none, 0, 0 };
	uint64_t h = stack_hash(none, 0, 0), cost;
	uint32_t id = find(t, h, &key);

	*added = false;
	*err = 0;
	if (id)
		return id;
	cost = stack_cost(t, 0, t->nr + 1);
	if (mem_budget__take(cost)) {
		t->charged += cost;
	} else {
		t->uncharged += cost;
		cost = 0;
	}
	id = add(t, h, &key, t->nr + 1, cost, err);
	*added = id != 0;
	return id;
}

int stack_table__use(struct stack_table *t, const uint64_t *frames, uint32_t nr_kernel,
		     uint32_t nr_user, uint32_t tgid, uint64_t time_ns, struct stack_use *out)
{
	struct stack_key key = { frames, nr_kernel, nr_user };
	uint64_t h = stack_hash(frames, nr_kernel, nr_user), cost = 0, c, *slot;
	bool pair = true;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->id = find(t, h, &key);
	if (out->id)
		pair = !u64map__find(&t->pairs, (uint64_t)tgid << 32 | out->id);
	else
		cost = stack_cost(t, (size_t)nr_kernel + nr_user, t->nr + 2);
	if (pair) {
		c = pair_cost(t);
		cost = c > UINT64_MAX - cost ? UINT64_MAX : cost + c;
	}
	/* both or neither: a stack kept must be in the recording before its id is used */
	if (cost && !charge(t, cost)) {
		t->file.refused++;
		t->total.refused++;
		out->refused = true;
		out->id = empty_stack(t, &out->added, &err);
		return err;
	}
	if (!out->id) {
		c = cost - (pair ? pair_cost(t) : 0);
		out->id = add(t, h, &key, t->nr + 2, c, &err);
		if (!out->id) {
			refund(t, cost - c);
			return err;
		}
		out->added = true;
	}
	if (pair) {
		err = u64map__upsert(&t->pairs, (uint64_t)tgid << 32 | out->id, time_ns, &slot,
				     &out->pair_added);
		if (err)
			return err;
	}
	return 0;
}

const struct stack_entry *stack_table__get(const struct stack_table *t, uint32_t id)
{
	if (id <= t->first || id - t->first > t->nr)
		return NULL;
	return &t->entries[id - t->first - 1];
}

bool stack_table__forget_due(const struct stack_table *t)
{
	return t->full ||
	       t->floor + t->charged > (STACKS_FLOOR + mem_budget__size() / STACKS_SHARE_DIV) / 2;
}

/* Frees the stacks and pairs, gives their memory back; ids and stats stay. */
static void free_all(struct stack_table *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->entries[i].frames);
	free(t->entries);
	t->entries = NULL;
	t->nr = t->alloc = 0;
	hashmap__release(&t->index);
	u64map__release(&t->pairs);
	mem_budget__give(t->charged);
	t->charged = t->uncharged = t->floor = 0;
	t->full = false;
}

void stack_table__forget(struct stack_table *t)
{
	t->file.forgets++;
	t->total.forgets++;
	t->file.forgotten += t->nr;
	t->total.forgotten += t->nr;
	t->first += (uint32_t)t->nr;
	free_all(t);
}

void stack_table__clear(struct stack_table *t)
{
	free_all(t);
	t->first = 0;
	memset(&t->file, 0, sizeof(t->file));
	memset(&t->noted, 0, sizeof(t->noted));
}

void stack_table__release(struct stack_table *t)
{
	free_all(t);
	memset(t, 0, sizeof(*t));
}
