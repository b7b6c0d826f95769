// SPDX-License-Identifier: MIT
/*
 * report/aggregate/flame.c - the frame tree behind flame graphs.
 *
 * flame_tree__add() costs O(1) per frame, whatever the tree's shape. An
 * open-addressing table interns names: a function appears under many
 * parents but its name is stored once, and names then compare by pointer.
 * A child is found by scanning its parent's children when there are at most
 * SCAN_MAX of them (most nodes; the scan stays in cache where a probe into a
 * big table would miss), else through a second table keyed by (parent,
 * name). Children are linked, unordered, to their parent; the name order
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
};

/*
 * A slot of the (parent, name) -> child table (node NULL: free). The stored
 * hash lets probes and rehashing skip the nodes, cache misses in a big tree.
 */
struct kid_slot {
	struct flame_node *node;
	uint64_t hash;
};

/* Interned names: slots hold the string and its hash; NULL marks a free slot. */
struct name_slot {
	char *name;
	uint64_t hash;
};

struct flame_tree {
	struct flame_node root;
	size_t nr_nodes;
	struct flame_node **blocks;	/* node i is blocks[i / NODE_BLOCK][i % NODE_BLOCK] */
	size_t nr_blocks, alloc_blocks;

	struct name_slot *names;
	size_t names_cap;		/* power of two */
	size_t nr_names;

	struct kid_slot *kids;		/* (parent, name) -> child, for parents of many */
	size_t kids_cap;		/* power of two */
	size_t nr_kids;

	struct flame_node **path;	/* scratch for flame_tree__add() */
	size_t path_cap;
};

static uint64_t hash_str(const char *s, size_t *len)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	const char *p;

	for (p = s; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 0x100000001b3ull;
	}
	*len = (size_t)(p - s);
	return h;
}

static uint64_t mix64(uint64_t x)
{
	/* the splitmix64 finalizer: spreads pointer bits over the whole word */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static uint64_t hash_kid(const struct flame_node *parent, const char *name)
{
	return mix64((uint64_t)(uintptr_t)parent * 31 + (uint64_t)(uintptr_t)name);
}

struct flame_tree *flame_tree__new(void)
{
	struct flame_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->root.name = "all";
	t->names_cap = 1024;
	t->names = calloc(t->names_cap, sizeof(*t->names));
	t->kids_cap = 1024;
	t->kids = calloc(t->kids_cap, sizeof(*t->kids));
	if (!t->names || !t->kids) {
		flame_tree__free(t);
		return NULL;
	}
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
	if (t->names) {
		for (i = 0; i < t->names_cap; i++)
			free(t->names[i].name);
	}
	free(t->names);
	free(t->kids);
	free(t->path);
	free(t);
}

static int grow_names(struct flame_tree *t)
{
	size_t cap = t->names_cap * 2, i, j;
	struct name_slot *n;

	if (cap < t->names_cap)
		return -ENOMEM;
	n = calloc(cap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (i = 0; i < t->names_cap; i++) {
		if (!t->names[i].name)
			continue;
		for (j = t->names[i].hash & (cap - 1); n[j].name; j = (j + 1) & (cap - 1))
			;
		n[j] = t->names[i];
	}
	free(t->names);
	t->names = n;
	t->names_cap = cap;
	return 0;
}

/* The interned copy of name, made on first sight; NULL when out of memory. */
static const char *intern(struct flame_tree *t, const char *name)
{
	size_t len, i;
	uint64_t h = hash_str(name, &len);
	char *copy;

	for (i = h & (t->names_cap - 1); t->names[i].name; i = (i + 1) & (t->names_cap - 1)) {
		if (t->names[i].hash == h && !strcmp(t->names[i].name, name))
			return t->names[i].name;
	}
	/* keep the load under 1/2 so probe runs stay short */
	if ((t->nr_names + 1) * 2 > t->names_cap) {
		if (grow_names(t))
			return NULL;
		for (i = h & (t->names_cap - 1); t->names[i].name; i = (i + 1) & (t->names_cap - 1))
			;
	}
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, name, len + 1);
	t->names[i].name = copy;
	t->names[i].hash = h;
	t->nr_names++;
	return copy;
}

static int grow_kids(struct flame_tree *t)
{
	size_t cap = t->kids_cap * 2, i, j;
	struct kid_slot *k;

	if (cap < t->kids_cap)
		return -ENOMEM;
	k = calloc(cap, sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (i = 0; i < t->kids_cap; i++) {
		if (!t->kids[i].node)
			continue;
		for (j = t->kids[i].hash & (cap - 1); k[j].node; j = (j + 1) & (cap - 1))
			;
		k[j] = t->kids[i];
	}
	free(t->kids);
	t->kids = k;
	t->kids_cap = cap;
	return 0;
}

/* A zeroed node, the t->nr_nodes'th; NULL when out of memory. */
static struct flame_node *alloc_node(struct flame_tree *t)
{
	size_t blk = t->nr_nodes / NODE_BLOCK;

	if (blk == t->nr_blocks) {
		if (t->nr_blocks == t->alloc_blocks) {
			size_t n = t->alloc_blocks ? 2 * t->alloc_blocks : 64;
			struct flame_node **b = realloc(t->blocks, n * sizeof(*b));

			if (!b)
				return NULL;
			t->blocks = b;
			t->alloc_blocks = n;
		}
		t->blocks[blk] = malloc(NODE_BLOCK * sizeof(struct flame_node));
		if (!t->blocks[blk])
			return NULL;
		t->nr_blocks++;
	}
	return memset(&t->blocks[blk][t->nr_nodes % NODE_BLOCK], 0, sizeof(struct flame_node));
}

/* Enters n, a child of a parent with more than SCAN_MAX children; the caller made room. */
static void add_kid(struct flame_tree *t, struct flame_node *n)
{
	uint64_t h = hash_kid(n->parent, n->name);
	size_t i;

	for (i = h & (t->kids_cap - 1); t->kids[i].node; i = (i + 1) & (t->kids_cap - 1))
		;
	t->kids[i].node = n;
	t->kids[i].hash = h;
	t->nr_kids++;
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
	size_t i, need;
	uint64_t h;

	if (parent->nr_children <= SCAN_MAX) {
		for (n = parent->first_child; n; n = n->next_sibling) {
			if (n->name == name)
				return n;
		}
	} else {
		h = hash_kid(parent, name);
		for (i = h & (t->kids_cap - 1); t->kids[i].node; i = (i + 1) & (t->kids_cap - 1)) {
			n = t->kids[i].node;
			if (t->kids[i].hash == h && n->parent == parent && n->name == name)
				return n;
		}
	}
	/*
	 * Make room in the table first, so a failure leaves no half-entered
	 * node; a load of at most 2/3 keeps linear probing short.
	 */
	if (parent->nr_children >= SCAN_MAX) {
		need = parent->nr_children == SCAN_MAX ? SCAN_MAX + 1 : 1;
		while ((t->nr_kids + need) * 3 > t->kids_cap * 2) {
			if (grow_kids(t))
				return NULL;
		}
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
	if (nr > t->path_cap) {
		struct flame_node **p;

		if (nr > SIZE_MAX / sizeof(*p))
			return -ENOMEM;
		p = realloc(t->path, nr * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->path = p;
		t->path_cap = nr;
	}
	/*
	 * Find or create the whole path first, count afterwards: a failure half
	 * way leaves empty nodes (invisible in every output) but no half-counted
	 * stack.
	 */
	for (i = 0; i < nr; i++) {
		name = intern(t, frames[i]);
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

	if (parent->nr_children > l->alloc) {
		const struct flame_node **k;

		if (parent->nr_children > SIZE_MAX / sizeof(*k))
			return -ENOMEM;
		k = realloc(l->kids, parent->nr_children * sizeof(*k));
		if (!k)
			return -ENOMEM;
		l->kids = k;
		l->alloc = parent->nr_children;
	}
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
			struct walk_level *nl = realloc(levels, 2 * alloc * sizeof(*nl));

			if (!nl) {
				err = -ENOMEM;
				goto out;
			}
			memset(nl + alloc, 0, alloc * sizeof(*nl));
			levels = nl;
			alloc *= 2;
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
