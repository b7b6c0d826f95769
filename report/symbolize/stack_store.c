// SPDX-License-Identifier: MIT
/*
 * report/symbolize/stack_store.c - symbolized stacks that outlive their
 * symbolizer (see stack_store.h).
 *
 * A copy is made in two steps: its strings are interned first, into a
 * scratch stack on the stack's own shape, so that two stacks are the same
 * when their frames hold the same pointers; only a stack not yet stored is
 * then copied. The addresses are part of a stack (pprof writes them), so
 * a stack is shared across processes and files where the binaries were
 * mapped alike, or, names_only, wherever the names are the same.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbolize/stack_store.h"
#include "report/symbolize/symbolize.h"
#include "util/hash.h"

void stack_store__init(struct stack_store *ss)
{
	memset(ss, 0, sizeof(*ss));
	strtab__init(&ss->strs);
	hashmap__init(&ss->index);
}

void stack_store__release(struct stack_store *ss)
{
	size_t i;

	if (!ss)
		return;
	for (i = 0; i < ss->nr; i++)
		free(ss->stacks[i]);
	free(ss->stacks);
	hashmap__release(&ss->index);
	strtab__release(&ss->strs);
	stack_store__init(ss);
}

static size_t stack_size(const struct sym_stack *st)
{
	return sizeof(*st) + ((size_t)st->nr_kernel + st->nr_user) * sizeof(st->frames[0]);
}

static bool same_stack(uint32_t val, const void *key, const void *ctx)
{
	const struct stack_store *ss = ctx;
	const struct sym_stack *a = ss->stacks[val], *b = key;
	size_t n = (size_t)a->nr_kernel + a->nr_user, i;

	if (a->nr_kernel != b->nr_kernel || a->nr_user != b->nr_user ||
	    a->nr_resolved != b->nr_resolved || a->missing != b->missing)
		return false;
	for (i = 0; i < n; i++) {
		const struct sym_frame *x = &a->frames[i], *y = &b->frames[i];

		if (x->name != y->name || x->dso != y->dso || x->system_name != y->system_name ||
		    x->addr != y->addr || x->flags != y->flags || x->obj != y->obj)
			return false;
	}
	return true;
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
	struct sym_stack *tmp;
	size_t n, i, size;
	uint64_t h;
	uint32_t *slot;
	bool added;
	int err = -ENOMEM;

	*out = NULL;
	if (!st)
		return 0;
	size = stack_size(st);
	tmp = malloc(size);
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, st, size);
	n = (size_t)st->nr_kernel + st->nr_user;
	h = hash_mix(hash_mix(hash_u64(st->nr_kernel), st->nr_user), st->nr_resolved);
	for (i = 0; i < n; i++) {
		struct sym_frame *f = &tmp->frames[i];

		if (!intern_str(ss, f->name, &f->name) || !intern_str(ss, f->dso, &f->dso) ||
		    !intern_str(ss, f->system_name, &f->system_name))
			goto out;
		if (ss->names_only) {
			f->addr = 0;
			f->obj = 0;
		}
		h = hash_mix(hash_mix(hash_mix(h, (uintptr_t)f->name), (uintptr_t)f->dso),
			     f->addr ^ ((uint64_t)f->flags << 32 | f->obj));
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
