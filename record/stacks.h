/* SPDX-License-Identifier: MIT */
/*
 * record/stacks.h - the stack table that gives each distinct stack a dense
 * id, on the sampling hot path, and the (process, stack) pairs sampled
 * (what capture reads to store the symbols a stack needs). The recorder
 * frees both at the end of a file.
 *
 * Both draw from the memory budget (record/budget.h), within a share of
 * it (STACKS_SHARE_DIV), and both grow with the distinct stacks users
 * make (a fork storm of short processes: every process's addresses are
 * new). When the budget cannot take a new stack or pair, the table is
 * marked full; the session then forgets it at its next commit
 * (stack_table__forget), once capture has read the pairs noted: the ids
 * already given stay valid in the recording, and a stack seen again after
 * that is stored again under a new id (its samples unchanged). Until that
 * commit, a sample whose stack or pair the budget refused gets the empty
 * stack (no frames), which always fits. Both are counted (stack_stats).
 * (The u64 -> u64 maps the recorder also keeps are util/hashmap.h's.)
 */
#ifndef EPROF_RECORD_STACKS_H
#define EPROF_RECORD_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

/*
 * The table and its pairs take their first STACKS_FLOOR bytes whatever
 * the budget says (from the part of the ceiling kept beside it: a sample
 * without its stack is the worst loss, and symbols and tables may have
 * filled the budget), then at most budget / STACKS_SHARE_DIV from it.
 * Past half of the two the session forgets them at a commit, before they
 * are full, so that a commit's new stacks rarely meet a refusal.
 */
#define STACKS_FLOOR		(4ull << 20)
#define STACKS_SHARE_DIV	8

/* One distinct stack: frames[0 .. nr_kernel) kernel, then nr_user user frames. */
struct stack_entry {
	uint64_t hash;
	uint64_t *frames;
	uint32_t nr_kernel;
	uint32_t nr_user;
};

/* What the budget did to the table (stack_table__forget, refusals). */
struct stack_stats {
	uint64_t forgets;	/* times the table was forgotten */
	uint64_t forgotten;	/* stacks forgotten: stored again when met again */
	uint64_t refused;	/* stacks (with their samples) given the empty stack instead */
};

/*
 * Stacks deduplicated by content: a 64-bit hash picks the slot, the full
 * frame arrays are compared on every hash match, so two different stacks
 * never share an id. Ids are dense: 1, 2, 3, ... over the table's life;
 * those up to first were forgotten.
 */
struct stack_table {
	struct stack_entry *entries;	/* entries[id - first - 1] */
	size_t nr;
	size_t alloc;
	struct hashmap index;		/* stack hash -> id */
	struct u64map pairs;		/* tgid << 32 | stack id -> time of its first sample */
	uint32_t first;			/* ids up to it were forgotten */
	uint64_t floor;			/* held beside the budget (STACKS_FLOOR at most) */
	uint64_t charged;		/* of the memory budget */
	uint64_t uncharged;		/* the empty stack's, when both were full */
	bool full;			/* the budget refused: forget at the next commit */
	struct stack_stats file;	/* since stack_table__clear() */
	struct stack_stats noted;	/* of file, as the recording's meta says (the session's) */
	struct stack_stats total;	/* over the table's life */
};

#define STACK_TABLE_INIT { .first = 0 }

/*
 * Returns the id of the stack (kframes, ukframes), adding a copy when it is
 * new (*added set). 0 with *err = -ENOMEM on allocation failure, -ENOSPC
 * when the memory budget refused it (the table is then full).
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

/* What stack_table__use() did. */
struct stack_use {
	uint32_t id;
	bool added;		/* the stack is new: the recording needs it */
	bool pair_added;	/* (tgid, id) is new: capture needs it */
	bool refused;		/* the budget refused: id is the empty stack's */
};

/*
 * A stack used by tgid at time_ns: interned, and the pair (tgid, id) noted
 * with the time of its first use. Where the budget refuses either, the
 * empty stack instead (counted). 0, or -ENOMEM / -EOVERFLOW.
 */
int stack_table__use(struct stack_table *t, const uint64_t *frames, uint32_t nr_kernel,
		     uint32_t nr_user, uint32_t tgid, uint64_t time_ns, struct stack_use *out);

/* Stack id, or NULL when it was never given or was forgotten. */
const struct stack_entry *stack_table__get(const struct stack_table *t, uint32_t id);

/* The budget refused, or the table holds half its floor and share: forget it at this commit. */
bool stack_table__forget_due(const struct stack_table *t);

/*
 * Frees every stack and pair and gives their memory back; the ids go on
 * from where they were, so those given stay valid in the recording.
 */
void stack_table__forget(struct stack_table *t);

/* A new file: frees everything, ids start at 1 again; only the total stats stay. */
void stack_table__clear(struct stack_table *t);

void stack_table__release(struct stack_table *t);

#endif
