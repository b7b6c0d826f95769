/* SPDX-License-Identifier: MIT */
/*
 * report/aggregate/lines.h - distinct folded lines, merged over several
 * recordings (or the two sides of --diff), as sequences of interned names.
 *
 * A folded line is its names joined by ';'. Kept as text, the lines of an
 * hour of `record -a` were 112 MB; kept as ids of names interned once,
 * they take 4 bytes a frame. Lines are written sorted bytewise by their
 * text, which the comparison finds from the names without building it.
 * Names must hold no ';' (the folded output's names are sanitized).
 */
#ifndef EPROF_REPORT_LINES_H
#define EPROF_REPORT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/aggregate/strtab.h"
#include "util/hashmap.h"

struct line {
	size_t off;			/* its name ids: fold_lines.ids[off .. off + nr) */
	uint32_t nr;
	uint64_t count[2];		/* per side: new (or the only one), base */
};

struct fold_lines {
	struct strtab names;		/* name -> id */
	uint32_t *ids;			/* every line's name ids, one line after another */
	size_t nr_ids, alloc_ids;
	struct line *lines;
	size_t nr, alloc;
	struct hashmap index;		/* a line's ids -> its index in lines */
};

void fold_lines__init(struct fold_lines *l);
/* Frees everything; the lines are empty and usable again. */
void fold_lines__release(struct fold_lines *l);

/*
 * Adds count to side (0 or 1) of the line names[0 .. nr), root first,
 * nr > 0. Returns 0, -EOVERFLOW (the count would wrap) or -ENOMEM.
 */
int fold_lines__add(struct fold_lines *l, const char *const *names, size_t nr, int side,
		    uint64_t count);

/*
 * Writes every line with a count, sorted bytewise: "line count", or with
 * two sides "line base new" (difffolded.pl's format, every line). Returns
 * 0, -ENOMEM, or the stream's error.
 */
int fold_lines__write(const struct fold_lines *l, bool two, FILE *out);

#endif
