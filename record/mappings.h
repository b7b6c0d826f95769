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
	uint32_t file;		/* index + 1 into the table's files; 0: not resolved,
				 * MAPPING_FILE_UNKNOWN: its file could not be opened */
	uint8_t build_id[REC_BUILD_ID_MAX];	/* as the kernel or the file gave it */
	uint8_t build_id_len;
	bool written;		/* in the recording: a sample fell in it */
	const char *path;	/* in the table's path pool */
};

/*
 * A file sampled code was mapped from, told from every other as fstat(2)
 * tells files apart. Its rows in the recording (mapping, binary) carry
 * rec_id: the file's build-id, unless another file of this recording
 * claimed that build-id first; then an id derived from it that no other
 * file has. A build-id is a note anyone can write: a user's binary that
 * carries the build-id of root's program gets rows of its own, so report/
 * never names root's frames with the user's symbols.
 */
#define MAPPING_FILE_UNKNOWN	UINT32_MAX

struct mapped_file {
	uint64_t dev, ino, ctime_ns, size;
	uint8_t real_id[REC_BUILD_ID_MAX];
	uint8_t rec_id[REC_BUILD_ID_MAX];
	uint8_t id_len;
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
	uint64_t bytes;		/* what the strings take */
};

/*
 * The table, its paths and its files draw from the memory budget
 * (record/budget.h): the first MAPS_FLOOR bytes whatever it says (they
 * come from the part of the ceiling kept beside the budget: the mappings
 * of ordinary processes always fit), the rest only while it has room. A
 * mapping that does not fit is not kept (nr_refused): samples in it are
 * recorded, their frames there unnamed.
 */
#define MAPS_FLOOR	(4ull << 20)

/*
 * A process's first MAPS_PROC_FLOOR_ROWS kept mappings may draw from the
 * floor; past them, from the budget alone, and only while the table holds
 * less than a quarter of it. A few processes with tens of thousands of
 * mappings each then never take the floor (the mappings of the others
 * still fit) nor the whole budget (their symbols and tables still fit).
 */
#define MAPS_PROC_FLOOR_ROWS	4096
#define MAPS_BIG_SHARE_DIV	4

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
	/* files of the mappings samples fell in (mapping__resolve) */
	struct mapped_file *files;
	size_t nr_files, alloc_files;
	struct hashmap file_index;	/* hash of identity and build-id -> index into files */
	struct hashmap claim_index;	/* hash of rec_id -> index into files */
	uint64_t charged;		/* of the memory budget */
	uint64_t floor;			/* held beside it (MAPS_FLOOR at most) */
	struct u64map per_proc;		/* tgid -> its mappings in v (mapping_table__fit recounts) */
	uint64_t index_bytes;		/* of the session's index over v (mapping_table__index_bytes) */
	uint64_t index_charged;		/* ... of them taken from the memory budget */
	uint64_t nr_refused;		/* mappings not kept: the budget was full */
	uint8_t warned;			/* 1: for a process past its floor rows; 2: for others */
	uint64_t refused_noted;		/* nr_refused as the recording's meta says (the session's) */
};

/*
 * Keeps m, its path in t's pool; it moves t->v. Where the memory budget
 * cannot take it, counts it in t->nr_refused instead and returns 0.
 * Prints; -ENOMEM.
 */
int mapping_table__add(struct mapping_table *t, const struct rec_mapping *m);

/*
 * After mappings were forgotten (t->nr lowered): counts each process's
 * mappings again, and gives back what t's array no longer needs when it is
 * mostly empty.
 */
void mapping_table__fit(struct mapping_table *t);

/*
 * The bytes an index over t's mappings that its user keeps takes now
 * (record/session.c's tail index): taken from the memory budget where it
 * has room, never refused (a few bytes per mapping kept: it is bounded by
 * the mappings the budget lets t keep), and never from the floor that
 * keeps small processes' mappings (t0818: charged with the table, it took
 * the floor under a user's 240,000 mappings, and known_split went
 * unnamed).
 */
void mapping_table__index_bytes(struct mapping_table *t, uint64_t bytes);

/* The row of kept mapping k (m->path points into k). */
void mapping__to_rec(const struct mapping *k, struct rec_mapping *m);

/*
 * Finds the file behind kept mapping k (a file with a build-id; others are
 * matched by path) and its recorded build-id: k->file. Opens the file
 * once per mapping. 0 or -ENOMEM (printed).
 */
int mapping__resolve(struct mapping_table *t, struct mapping *k);

/* The file k was resolved to, or NULL. */
const struct mapped_file *mapping__file(const struct mapping_table *t, const struct mapping *k);

/* Whether the file open at fd is f. */
bool mapped_file__is(const struct mapped_file *f, int fd);

/*
 * Adds kept mapping k of t to rec, once (with its file's recorded
 * build-id when resolved): a sample fell in it. t is sorted
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
