/* SPDX-License-Identifier: MIT */
/*
 * report/symbolize/stack_store.h - symbolized stacks that outlive their
 * symbolizer.
 *
 * A report over many recordings (several -i: a day of --switch-output
 * files, a fleet) would hold every file's symbolizer (its symbol tables,
 * its kernel symbols, its DWARF) until the views are written, because
 * each aggregate entry points into it. The pipeline copies the stacks an
 * aggregate uses here instead and frees the symbolizer: strings and
 * frames are interned once for all files, and a stack met in several
 * files (the same frames, names and, unless names_only, addresses) is
 * stored once. Memory then follows the merged result, not the number of
 * files.
 */
#ifndef EPROF_REPORT_STACK_STORE_H
#define EPROF_REPORT_STACK_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "report/aggregate/strtab.h"
#include "util/hashmap.h"

struct sym_stack;

struct stack_store {
	/*
	 * Frames by their names alone (set before the first intern): the
	 * addresses and objects are dropped, so that the same code met in
	 * many processes and files is one stack. For views that print names
	 * (not pprof, whose locations are addresses in mappings).
	 */
	bool names_only;
	struct strtab strs;		/* names, binary paths, system names */
	/*
	 * Each distinct frame once, in blocks that never move: a stored
	 * stack is an array of pointers to them (8 bytes a frame, not 72),
	 * and the frames of one hot path are shared by all its stacks.
	 */
	struct sym_frame **blocks;
	size_t nr_frames, nr_blocks;
	struct hashmap frame_index;	/* hash of a frame -> its number */
	struct sym_stack **stacks;	/* owned copies, their frames shared */
	size_t nr, alloc;
	struct hashmap index;		/* hash of a copy -> index into stacks */
};

void stack_store__init(struct stack_store *ss);
/* Frees every copy and string. Accepts NULL. */
void stack_store__release(struct stack_store *ss);

/*
 * The store's copy of st (made when new), valid until the release; NULL
 * gives NULL. Sets *out; 0 or -ENOMEM.
 */
int stack_store__intern(struct stack_store *ss, const struct sym_stack *st,
			const struct sym_stack **out);

#endif
