// SPDX-License-Identifier: MIT
/*
 * report/symbolize/stack_store.c - symbolized stacks that outlive their
 * symbolizer (see stack_store.h).
 *
 * A copy is made in two steps: its strings are interned first, then each
 * frame, so that two stacks are the same when they point to the same
 * frames; only a stack not yet stored is then kept, as an array of
 * pointers to the store's frames. The addresses are part of a stack
 * (pprof writes them), so a stack is shared across processes and files
 * where the binaries were mapped alike, or, names_only, wherever the
 * names are the same.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbolize/stack_store.h"
#include "report/symbolize/symbolize.h"
#include "util/hash.h"

/* Frames a block holds: 4096 x 72 bytes. */
#define FRAME_BLOCK	4096

void stack_store__init(struct stack_store *ss)
{
	memset(ss, 0, sizeof(*ss));
	strtab__init(&ss->strs);
	hashmap__init(&ss->index);
	hashmap__init(&ss->frame_index);
}

void stack_store__release(struct stack_store *ss)
{
	size_t i;

	if (!ss)
		return;
	for (i = 0; i < ss->nr; i++)
		free(ss->stacks[i]);
	free(ss->stacks);
	for (i = 0; i < ss->nr_blocks; i++)
		free(ss->blocks[i]);
	free(ss->blocks);
	hashmap__release(&ss->index);
	hashmap__release(&ss->frame_index);
	strtab__release(&ss->strs);
	stack_store__init(ss);
}

static struct sym_frame *frame_at(const struct stack_store *ss, size_t i)
{
	return &ss->blocks[i / FRAME_BLOCK][i % FRAME_BLOCK];
}

static bool same_frame(uint32_t val, const void *key, const void *ctx)
{
	const struct sym_frame *x = frame_at(ctx, val), *y = key;

	return x->name == y->name && x->dso == y->dso && x->system_name == y->system_name &&
	       x->addr == y->addr && x->flags == y->flags && x->obj == y->obj &&
	       x->func == y->func && x->src_file == y->src_file && x->src_line == y->src_line &&
	       x->func_line == y->func_line;
}

/* The store's frame equal to f (its strings interned already), added when new; NULL on ENOMEM. */
static const struct sym_frame *intern_frame(struct stack_store *ss, const struct sym_frame *f)
{
	uint64_t h = hash_mix(hash_mix(hash_mix(hash_u64((uintptr_t)f->name), (uintptr_t)f->dso),
				       (uintptr_t)f->system_name),
			      f->addr ^ ((uint64_t)f->flags << 32 | f->obj));
	uint32_t *slot;
	bool added;

	h = hash_mix(hash_mix(h, (uintptr_t)f->func ^ (uint64_t)f->func_line << 32),
		     (uintptr_t)f->src_file ^ (uint64_t)f->src_line << 32);

	if (ss->nr_frames >= UINT32_MAX)
		return NULL;
	if (ss->nr_frames == ss->nr_blocks * FRAME_BLOCK) {
		struct sym_frame **b = reallocarray(ss->blocks, ss->nr_blocks + 1, sizeof(*b));

		if (!b)
			return NULL;
		ss->blocks = b;
		b[ss->nr_blocks] = malloc(FRAME_BLOCK * sizeof(**b));
		if (!b[ss->nr_blocks])
			return NULL;
		ss->nr_blocks++;
	}
	*frame_at(ss, ss->nr_frames) = *f;	/* the candidate, kept if new */
	if (hashmap__upsert(&ss->frame_index, h, same_frame, f, ss, (uint32_t)ss->nr_frames,
			    &slot, &added))
		return NULL;
	if (added)
		ss->nr_frames++;
	return frame_at(ss, *slot);
}

static bool same_stack(uint32_t val, const void *key, const void *ctx)
{
	const struct stack_store *ss = ctx;
	const struct sym_stack *a = ss->stacks[val], *b = key;
	size_t n = (size_t)a->nr_kernel + a->nr_user;

	return a->nr_kernel == b->nr_kernel && a->nr_user == b->nr_user &&
	       a->nr_resolved == b->nr_resolved && a->missing == b->missing &&
	       !memcmp(a->shared, b->shared, n * sizeof(a->shared[0]));
}

/* The interned copy of s (NULL stays NULL); false on ENOMEM. */
static bool intern_str(struct stack_store *ss, const char *s, const char **out)
{
	*out = s ? strtab__dup(&ss->strs, s) : NULL;
	return !s || *out;
}

int stack_store__intern(struct stack_store *ss, const struct sym_stack *st,
			const struct sym_stack **out)
{
	const struct sym_frame **refs;
	struct sym_stack *tmp;
	struct sym_frame f;
	size_t n, i;
	uint64_t h;
	uint32_t *slot;
	bool added;
	int err = -ENOMEM;

	*out = NULL;
	if (!st)
		return 0;
	n = (size_t)st->nr_kernel + st->nr_user;
	/* the pointers take the place of the frames */
	tmp = malloc(offsetof(struct sym_stack, frames) + (n ? n : 1) * sizeof(*refs));
	if (!tmp)
		return -ENOMEM;
	memset(tmp, 0, offsetof(struct sym_stack, frames));
	tmp->nr_kernel = st->nr_kernel;
	tmp->nr_user = st->nr_user;
	tmp->nr_resolved = st->nr_resolved;
	tmp->missing = st->missing;
	refs = (const struct sym_frame **)(void *)tmp->frames;
	tmp->shared = refs;
	h = hash_mix(hash_mix(hash_u64(st->nr_kernel), st->nr_user), st->nr_resolved);
	for (i = 0; i < n; i++) {
		f = *sym_stack__frame(st, i);
		if (!intern_str(ss, f.name, &f.name) || !intern_str(ss, f.dso, &f.dso) ||
		    !intern_str(ss, f.system_name, &f.system_name) || !intern_str(ss, f.func, &f.func) ||
		    !intern_str(ss, f.src_file, &f.src_file))
			goto out;
		if (ss->names_only) {
			f.addr = 0;
			f.obj = 0;
		}
		refs[i] = intern_frame(ss, &f);
		if (!refs[i])
			goto out;
		h = hash_mix(h, (uintptr_t)refs[i]);
	}
	if (ss->nr == ss->alloc) {
		size_t a = ss->alloc ? 2 * ss->alloc : 256;
		struct sym_stack **p = reallocarray(ss->stacks, a, sizeof(*p));

		if (!p)
			goto out;
		ss->stacks = p;
		ss->alloc = a;
	}
	ss->stacks[ss->nr] = tmp;	/* the candidate, kept if new */
	err = hashmap__upsert(&ss->index, h, same_stack, tmp, ss, (uint32_t)ss->nr, &slot, &added);
	if (err)
		goto out;
	if (added) {
		ss->nr++;
		tmp = NULL;
	}
	*out = ss->stacks[*slot];
out:
	free(tmp);
	return err;
}
