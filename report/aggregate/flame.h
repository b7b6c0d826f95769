/* SPDX-License-Identifier: MIT */
/*
 * report/aggregate/flame.h - a tree of stack frames with sample counts, the input of
 * the flame-graph writer (out_svg.h).
 *
 * Stacks are added root-most frame first; equal prefixes share nodes, so the
 * tree grows with the number of distinct (parent, frame) pairs, not with the
 * number of stacks. Frame names are copied and interned by the tree.
 *
 * Every node keeps two pairs of counts: the "new" counts (count, drawn as
 * widths) and, for differential graphs, the baseline counts (count2).
 * total = samples of stacks passing through the node (inclusive), self =
 * samples of stacks ending at it; so total = self + sum of children's totals.
 */
#ifndef EPROF_REPORT_FLAME_H
#define EPROF_REPORT_FLAME_H

#include <stddef.h>
#include <stdint.h>

struct flame_tree;

/* One node as flame_tree__walk() shows it; valid only during the callback. */
struct flame_frame {
	const char *name;	/* interned, lives as long as the tree */
	size_t depth;		/* 0 for frames[0] of flame_tree__add() (e.g. the comm) */
	uint64_t start;		/* samples left of it at its depth: x in sample units */
	uint64_t total;		/* inclusive new count */
	uint64_t self;		/* new count of stacks ending here */
	uint64_t total2;	/* inclusive baseline count (differential graphs) */
	uint64_t self2;
	size_t nr_children;
};

/*
 * Returns 0 to go on, FLAME_WALK_SKIP to go on without visiting this frame's
 * descendants, or a negative errno that stops the walk and is returned by it.
 */
typedef int (*flame_visit_fn)(const struct flame_frame *f, void *ctx);
#define FLAME_WALK_SKIP	1

/* An empty tree, or NULL when out of memory. */
struct flame_tree *flame_tree__new(void);
/* Frees the tree and its interned names; accepts NULL. */
void flame_tree__free(struct flame_tree *t);

/*
 * Adds one stack: frames[0] is the root-most frame (e.g. the comm),
 * frames[nr - 1] the leaf. count is the new recording's number of samples of
 * this stack, count2 the baseline's (0 unless drawing a differential graph).
 * Adding the same stack twice adds the counts. nr == 0 counts the samples at
 * the root only. The names are copied.
 * Returns 0, -EINVAL (NULL or empty frame name), -EOVERFLOW (a total would
 * wrap) or -ENOMEM; on error the counts are unchanged.
 */
int flame_tree__add(struct flame_tree *t, const char *const *frames, size_t nr, uint64_t count,
		    uint64_t count2);

/* Sums of all counts added (the root's totals). */
uint64_t flame_tree__total(const struct flame_tree *t);
uint64_t flame_tree__total2(const struct flame_tree *t);
/* Number of distinct frames (nodes) in the tree, the root not counted. */
size_t flame_tree__nr_frames(const struct flame_tree *t);

/*
 * Calls fn for every node but the root, depth first, parents before their
 * children and siblings in strcmp() order of their names, so the order (and
 * any output made from it) depends only on the stacks added.
 * Returns 0, -ENOMEM, or the first negative value fn returned.
 */
int flame_tree__walk(const struct flame_tree *t, flame_visit_fn fn, void *ctx);

#endif
