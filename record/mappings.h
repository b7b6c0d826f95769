/* SPDX-License-Identifier: MIT */
/*
 * record/mappings.h - the mappings record/ keeps for capture: every
 * executable mapping of a live target, and of a process with samples. A
 * mapping reaches the recording only once a sample falls in it
 * (mapping__write), so the file holds the mappings its stacks use and no
 * others. The session adds and forgets them; capture finds and writes them.
 */
#ifndef EPROF_RECORD_MAPPINGS_H
#define EPROF_RECORD_MAPPINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/recording.h"

/* A mapping as record/ keeps it (path owned). */
struct mapping {
	uint64_t time_ns;
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint32_t tgid;
	uint32_t build_id_len;
	uint8_t build_id[REC_BUILD_ID_MAX];
	bool written;		/* in the recording: a sample fell in it */
	char *path;
};

struct mapping_table {
	struct mapping *v;
	size_t nr, alloc;
	bool dirty;		/* added to or compacted since capture sorted it */
	size_t nr_sorted;	/* v[0 .. nr_sorted) are still in capture's order */
	uint64_t nr_written;	/* mappings written to the recording so far */
};

/* Keeps m, copying its path; it moves t->v. Prints; -ENOMEM. */
int mapping_table__add(struct mapping_table *t, const struct rec_mapping *m);

/* The row of kept mapping k (m->path points into k). */
void mapping__to_rec(const struct mapping *k, struct rec_mapping *m);

/* Adds kept mapping k of t to rec, once: a sample fell in it. */
int mapping__write(struct mapping_table *t, struct recording *rec, struct mapping *k);

/* Frees every mapping and the table's memory; t is empty after. */
void mapping_table__release(struct mapping_table *t);

#endif
