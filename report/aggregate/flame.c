// SPDX-License-Identifier: MIT
/*
 * report/aggregate/flame.c - the frame tree behind flame graphs.
 *
 * flame_tree__add() costs O(1) per frame, whatever the tree's shape. A
 * string table interns names: a function appears under many parents but
 * its name is stored once, and names then compare by pointer.
 * A child is found by scanning its parent's children when there are at most
 * SCAN_MAX of them (most nodes; the scan stays in cache where a probe into a
 * big table would miss), else through a hash table (util/hashmap) keyed by
 * (parent, name). Children are linked, unordered, to their parent; the name order
 * flamegraph.pl users expect comes from flame_tree__walk(), which sorts each
 * node's children as it visits them. Sorting on insert would cost
 * O(children) per new child, quadratic for a node with 100k children.
 *
 * Nodes come from blocks of NODE_BLOCK, so a tree of a million frames costs
 * a thousand allocations.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate/flame.h"
#include "report/aggregate/strtab.h"
#include "util/hashmap.h"
#include "util/vec.h"

#define NODE_BLOCK	1024
#define SCAN_MAX	4	/* children found by scanning rather than the table */

struct flame_node {
	const char *name;
	struct flame_node *parent;
	struct flame_node *first_child;
	struct flame_node *next_sibling;
	uint64_t total, self;
	uint64_t total2, self2;
	size_t nr_children;
	uint32_t id;			/* blocks[id / NODE_BLOCK][id % NODE_BLOCK] is this node */
};

/* What a probe of the (parent, name) -> child table looks for. */
struct kid_key {
	const struct flame_node *parent;
	const char *name;
};

struct flame_tree {
	struct flame_node root;
	size_t nr_nodes;
	struct flame_node **blocks;	/* node i is blocks[i / NODE_BLOCK][i % NODE_BLOCK] */
	size_t nr_blocks, alloc_blocks;

	struct strtab names;		/* every name once: names compare by pointer */
	struct hashmap kids;		/* (parent, name) -> child, for parents of many */

	struct flame_node **path;	/* scratch for flame_tree__add() */
	size_t path_cap;
};

static uint64_t hash_kid(const struct flame_node *parent, const char *name)
{
	return hash_mix(hash_u64((uintptr_t)parent), (uintptr_t)name);
}

static struct flame_node *node_at(const struct flame_tree *t, uint32_t id)
{
	return &t->blocks[id / NODE_BLOCK][id % NODE_BLOCK];
}

static bool kid_eq(uint32_t id, const void *key, const void *ctx)
{
	const struct flame_node *n = node_at(ctx, id);
	const struct kid_key *k = key;

	return n->parent == k->parent && n->name == k->name;
}

struct flame_tree *flame_tree__new(void)
{
	struct flame_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->root.name = "all";
	strtab__init(&t->names);
	hashmap__init(&t->kids);
	return t;
}

void flame_tree__free(struct flame_tree *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr_blocks; i++)
		free(t->blocks[i]);
	free(t->blocks);
	strtab__release(&t->names);
	hashmap__release(&t->kids);
	free(t->path);
	free(t);
}

/* A zeroed node, the t->nr_nodes'th; NULL when out of memory. */
static struct flame_node *alloc_node(struct flame_tree *t)
{
	size_t blk = t->nr_nodes / NODE_BLOCK;
	struct flame_node *n;

	if (t->nr_nodes >= UINT32_MAX)
		return NULL;	/* ids are 32-bit (and 4G nodes would not fit anyway) */
	if (blk == t->nr_blocks) {
		if (vec__grow(&t->blocks, &t->alloc_blocks, t->nr_blocks + 1, sizeof(*t->blocks)))
			return NULL;
		t->blocks[blk] = malloc(NODE_BLOCK * sizeof(struct flame_node));
		if (!t->blocks[blk])
			return NULL;
		t->nr_blocks++;
	}
	n = memset(&t->blocks[blk][t->nr_nodes % NODE_BLOCK], 0, sizeof(struct flame_node));
	n->id = (uint32_t)t->nr_nodes;
	return n;
}

/* Enters n, a child of a parent with more than SCAN_MAX children; the caller made room. */
static void add_kid(struct flame_tree *t, struct flame_node *n)
{
	struct kid_key k = { n->parent, n->name };
	uint32_t *slot;
	bool added;

	/* cannot fail: the room was made (hashmap__reserve) */
	hashmap__upsert(&t->kids, hash_kid(n->parent, n->name), kid_eq, &k, t, n->id, &slot,
			&added);
}

/*
 * The child of parent called name (interned), created when missing; NULL
 * when out of memory. Most nodes have one or two children, usually allocated
 * next to them: scanning those is cheaper than a probe into a table far
 * bigger than the cache. Parents of more than SCAN_MAX children (the few near
 * the root) have their children in the table.
 */
static struct flame_node *get_child(struct flame_tree *t, struct flame_node *parent,
				    const char *name)
{
	struct flame_node *n;
	size_t need;

	if (parent->nr_children <= SCAN_MAX) {
		for (n = parent->first_child; n; n = n->next_sibling) {
			if (n->name == name)
				return n;
		}
	} else {
		struct kid_key k = { parent, name };
		uint32_t *slot = hashmap__find(&t->kids, hash_kid(parent, name), kid_eq, &k, t);

		if (slot)
			return node_at(t, *slot);
	}
	/*
	 * Make room in the table first, so a failure leaves no half-entered
	 * node.
	 */
	if (parent->nr_children >= SCAN_MAX) {
		need = parent->nr_children == SCAN_MAX ? SCAN_MAX + 1 : 1;
		if (hashmap__reserve(&t->kids, t->kids.nr + need))
			return NULL;
	}
	n = alloc_node(t);
	if (!n)
		return NULL;
	n->name = name;
	n->parent = parent;
	n->next_sibling = parent->first_child;
	parent->first_child = n;
	parent->nr_children++;
	t->nr_nodes++;
	if (parent->nr_children == SCAN_MAX + 1) {
		/* the parent just outgrew scanning: enter all its children */
		for (n = parent->first_child; n; n = n->next_sibling)
			add_kid(t, n);
		return parent->first_child;
	}
	if (parent->nr_children > SCAN_MAX)
		add_kid(t, n);
	return n;
}

int flame_tree__add(struct flame_tree *t, const char *const *frames, size_t nr, uint64_t count,
		    uint64_t count2)
{
	struct flame_node *cur = &t->root, *leaf;
	uint64_t sum;
	const char *name;
	size_t i;

	if (nr && !frames)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		if (!frames[i] || !frames[i][0])
			return -EINVAL;
	}
	/* every total is at most the root's, so checking the root is enough */
	if (__builtin_add_overflow(t->root.total, count, &sum) ||
	    __builtin_add_overflow(t->root.total2, count2, &sum))
		return -EOVERFLOW;
	if (vec__grow(&t->path, &t->path_cap, nr, sizeof(*t->path)))
		return -ENOMEM;
	/*
	 * Find or create the whole path first, count afterwards: a failure half
	 * way leaves empty nodes (invisible in every output) but no half-counted
	 * stack.
	 */
	for (i = 0; i < nr; i++) {
		name = strtab__dup(&t->names, frames[i]);
		if (!name)
			return -ENOMEM;
		cur = get_child(t, cur, name);
		if (!cur)
			return -ENOMEM;
		t->path[i] = cur;
	}
	t->root.total += count;
	t->root.total2 += count2;
	for (i = 0; i < nr; i++) {
		t->path[i]->total += count;
		t->path[i]->total2 += count2;
	}
	leaf = nr ? t->path[nr - 1] : &t->root;
	leaf->self += count;
	leaf->self2 += count2;
	return 0;
}

uint64_t flame_tree__total(const struct flame_tree *t)
{
	return t->root.total;
}

uint64_t flame_tree__total2(const struct flame_tree *t)
{
	return t->root.total2;
}

size_t flame_tree__nr_frames(const struct flame_tree *t)
{
	return t->nr_nodes;
}

/* One level of the walk: a parent's children, sorted, and where the next one starts. */
struct walk_level {
	const struct flame_node **kids;
	size_t nr, alloc, next;
	uint64_t cursor;
};

static int by_name(const void *a, const void *b)
{
	const struct flame_node *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static int fill_level(struct walk_level *l, const struct flame_node *parent, uint64_t start)
{
	const struct flame_node *c;
	size_t i = 0;

	if (vec__grow(&l->kids, &l->alloc, parent->nr_children, sizeof(*l->kids)))
		return -ENOMEM;
	for (c = parent->first_child; c; c = c->next_sibling)
		l->kids[i++] = c;
	l->nr = i;
	l->next = 0;
	l->cursor = start;
	qsort(l->kids, l->nr, sizeof(*l->kids), by_name);
	return 0;
}

int flame_tree__walk(const struct flame_tree *t, flame_visit_fn fn, void *ctx)
{
	struct walk_level *levels = NULL, *l;
	size_t depth = 0, alloc = 0, i;
	const struct flame_node *n;
	struct flame_frame f;
	int err = 0;

	/*
	 * An explicit stack of levels, not recursion: stacks are as deep as the
	 * caller makes them. Each level's buffer is kept for the next sibling
	 * that reaches that depth.
	 */
	levels = calloc(16, sizeof(*levels));
	if (!levels)
		return -ENOMEM;
	alloc = 16;
	err = fill_level(&levels[0], &t->root, 0);
	if (err)
		goto out;
	depth = 1;		/* number of live levels */
	while (depth) {
		l = &levels[depth - 1];
		if (l->next == l->nr) {
			depth--;
			continue;
		}
		n = l->kids[l->next++];
		f.name = n->name;
		f.depth = depth - 1;
		f.start = l->cursor;
		f.total = n->total;
		f.self = n->self;
		f.total2 = n->total2;
		f.self2 = n->self2;
		f.nr_children = n->nr_children;
		l->cursor += n->total;
		err = fn(&f, ctx);
		if (err < 0)
			goto out;
		if (err == FLAME_WALK_SKIP || !n->nr_children) {
			err = 0;
			continue;
		}
		if (depth == alloc) {
			size_t had = alloc;

			if (vec__grow(&levels, &alloc, depth + 1, sizeof(*levels))) {
				err = -ENOMEM;
				goto out;
			}
			memset(levels + had, 0, (alloc - had) * sizeof(*levels));
		}
		err = fill_level(&levels[depth], n, f.start);
		if (err)
			goto out;
		depth++;
	}
out:
	for (i = 0; i < alloc; i++)
		free(levels[i].kids);
	free(levels);
	return err;
}
