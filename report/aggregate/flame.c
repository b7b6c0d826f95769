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

/*
 * 40 bytes a node: links are node ids, and a node's self count is its total
 * less its children's, found when the walk visits it.
 */
struct flame_node {
	const char *name;
	uint64_t total, total2;		/* inclusive new and baseline counts */
	uint32_t parent;		/* node ids; ROOT_ID, or NO_NODE for none */
	uint32_t first_child;
	uint32_t next_sibling;
	uint32_t nr_children;
};

#define NO_NODE		UINT32_MAX
#define ROOT_ID		(UINT32_MAX - 1)
#define MAX_NODES	(UINT32_MAX - 1)	/* ids below ROOT_ID */

/* What a probe of the (parent, name) -> child table looks for. */
struct kid_key {
	uint32_t parent;
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

static uint64_t hash_kid(uint32_t parent, const char *name)
{
	return hash_mix(hash_u64(parent), (uintptr_t)name);
}

static struct flame_node *node_at(const struct flame_tree *t, uint32_t id)
{
	if (id == ROOT_ID)
		return (struct flame_node *)&t->root;
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
	t->root.parent = t->root.first_child = t->root.next_sibling = NO_NODE;
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

/* A new node, the t->nr_nodes'th, with no links; NULL when out of memory. */
static struct flame_node *alloc_node(struct flame_tree *t)
{
	size_t blk = t->nr_nodes / NODE_BLOCK;
	struct flame_node *n;

	if (t->nr_nodes >= MAX_NODES)
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
	n->first_child = n->next_sibling = NO_NODE;
	return n;
}

/* Enters child id of parent, which has more than SCAN_MAX children; the caller made room. */
static void add_kid(struct flame_tree *t, uint32_t parent, uint32_t id)
{
	struct kid_key k = { parent, node_at(t, id)->name };
	uint32_t *slot;
	bool added;

	/* cannot fail: the room was made (hashmap__reserve) */
	hashmap__upsert(&t->kids, hash_kid(parent, k.name), kid_eq, &k, t, id, &slot, &added);
}

/*
 * The id of the child of node pid called name (interned), created when
 * missing; NO_NODE when out of memory. Most nodes have one or two children,
 * usually allocated next to them: scanning those is cheaper than a probe
 * into a table far bigger than the cache. Parents of more than SCAN_MAX
 * children (the few near the root) have their children in the table.
 */
static uint32_t get_child(struct flame_tree *t, uint32_t pid, const char *name)
{
	struct flame_node *parent = node_at(t, pid), *n;
	uint32_t id, c;
	size_t need;

	if (parent->nr_children <= SCAN_MAX) {
		for (c = parent->first_child; c != NO_NODE; c = node_at(t, c)->next_sibling) {
			if (node_at(t, c)->name == name)
				return c;
		}
	} else {
		struct kid_key k = { pid, name };
		uint32_t *slot = hashmap__find(&t->kids, hash_kid(pid, name), kid_eq, &k, t);

		if (slot)
			return *slot;
	}
	/*
	 * Make room in the table first, so a failure leaves no half-entered
	 * node.
	 */
	if (parent->nr_children >= SCAN_MAX) {
		need = parent->nr_children == SCAN_MAX ? SCAN_MAX + 1 : 1;
		if (hashmap__reserve(&t->kids, t->kids.nr + need))
			return NO_NODE;
	}
	n = alloc_node(t);
	if (!n)
		return NO_NODE;
	id = (uint32_t)t->nr_nodes++;
	n->name = name;
	n->parent = pid;
	n->next_sibling = parent->first_child;
	parent->first_child = id;
	parent->nr_children++;
	if (parent->nr_children == SCAN_MAX + 1) {
		/* the parent just outgrew scanning: enter all its children */
		for (c = parent->first_child; c != NO_NODE; c = node_at(t, c)->next_sibling)
			add_kid(t, pid, c);
	} else if (parent->nr_children > SCAN_MAX) {
		add_kid(t, pid, id);
	}
	return id;
}

int flame_tree__add(struct flame_tree *t, const char *const *frames, size_t nr, uint64_t count,
		    uint64_t count2)
{
	uint32_t cur = ROOT_ID;
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
		if (cur == NO_NODE)
			return -ENOMEM;
		t->path[i] = node_at(t, cur);	/* blocks do not move */
	}
	t->root.total += count;
	t->root.total2 += count2;
	for (i = 0; i < nr; i++) {
		t->path[i]->total += count;
		t->path[i]->total2 += count2;
	}
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

static int fill_level(const struct flame_tree *t, struct walk_level *l,
		      const struct flame_node *parent, uint64_t start)
{
	uint32_t c;
	size_t i = 0;

	if (vec__grow(&l->kids, &l->alloc, parent->nr_children, sizeof(*l->kids)))
		return -ENOMEM;
	for (c = parent->first_child; c != NO_NODE; c = node_at(t, c)->next_sibling)
		l->kids[i++] = node_at(t, c);
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
	uint32_t c;
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
	err = fill_level(t, &levels[0], &t->root, 0);
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
		f.self = n->total;
		f.total2 = n->total2;
		f.self2 = n->total2;
		for (c = n->first_child; c != NO_NODE; c = node_at(t, c)->next_sibling) {
			f.self -= node_at(t, c)->total;
			f.self2 -= node_at(t, c)->total2;
		}
		f.nr_children = n->nr_children;
		l->cursor += n->total;
		err = fn(&f, ctx);
		if (err < 0)
			goto out;
		if (err == FLAME_WALK_SKIP || !n->nr_children) {
			err = 0;
			continue;
		}
		if (depth == alloc &&
		    vec__grow_zero(&levels, &alloc, depth + 1, sizeof(*levels))) {
			err = -ENOMEM;
			goto out;
		}
		err = fill_level(t, &levels[depth], n, f.start);
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
