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
#include "util/hashmap.h"

/* A mapping as record/ keeps it (its path is its table's). */
struct mapping {
	uint64_t time_ns;
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint32_t tgid;
	uint32_t build_id_len;
	uint8_t build_id[REC_BUILD_ID_MAX];
	bool written;		/* in the recording: a sample fell in it */
	const char *path;	/* in the table's path pool */
};

/*
 * Each distinct path once: a fork storm maps the same few files (sh, libc,
 * ld.so) hundreds of thousands of times, a copy each when paths were owned
 * by mappings. The pool lives until mapping_table__repool() rebuilds it
 * from the mappings still kept, so it holds the paths of one file's span.
 */
struct path_pool {
	struct hashmap index;	/* hash of a path -> its position in strs */
	char **strs;
	size_t nr, alloc;
};

struct mapping_table {
	struct mapping *v;
	size_t nr, alloc;
	bool dirty;		/* added to or compacted since capture sorted it */
	size_t nr_sorted;	/* v[0 .. nr_sorted) are still in capture's order */
	uint64_t nr_written;	/* mappings written to the recording so far */
	struct path_pool paths;
	/*
	 * Processes whose mappings were forgotten (they ended) after some were
	 * written to this file: a process that takes the pid later does not
	 * see those rows in v, so its rows keep their times.
	 */
	struct u64map forgot_written;
};

/* Keeps m, its path in t's pool; it moves t->v. Prints; -ENOMEM. */
int mapping_table__add(struct mapping_table *t, const struct rec_mapping *m);

/* The row of kept mapping k (m->path points into k). */
void mapping__to_rec(const struct mapping *k, struct rec_mapping *m);

/*
 * Adds kept mapping k of t to rec, once: a sample fell in it. t is sorted
 * by (tgid, start) unless dirty. k's row gets time 0, "from the file's
 * start", when it is older than complete_ns (t holds every mapping
 * stamped before then) and no other mapping of its process overlaps it:
 * a time only orders the mappings that cover one address.
 */
int mapping__write(struct mapping_table *t, struct recording *rec, struct mapping *k,
		   uint64_t complete_ns);

/*
 * Rebuilds t's path pool from the mappings t still keeps, freeing the
 * paths no mapping uses any more. -ENOMEM leaves the old pool in place.
 */
int mapping_table__repool(struct mapping_table *t);

/* Frees every mapping and the table's memory; t is empty after. */
void mapping_table__release(struct mapping_table *t);

#endif
