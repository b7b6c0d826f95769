/* SPDX-License-Identifier: MIT */
/*
 * record/capture.h - store the symbol data a report needs elsewhere, as the
 * recording goes: at every commit, for the stacks sampled since the previous
 * one, the PT_LOAD segments of their binaries and the symbols covering their
 * addresses that are not stored yet, the kernel symbols covering their kernel
 * addresses, and the JIT map symbols covering their anonymous code (with
 * --debuginfo, also each binary's DWARF file, once); at the end, whatever is
 * left. A recording cut short at any commit can name every
 * frame it holds.
 */
#ifndef EPROF_RECORD_CAPTURE_H
#define EPROF_RECORD_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct capture;
struct jitmaps;
struct mapping_table;
struct recording;
struct stack_table;
struct u64map;

/* What a capture step reads, and where it writes (record/session.c owns them all). */
struct capture_source {
	struct recording *rec;		/* written to */
	const struct stack_table *stacks;
	const struct u64map *pairs;	/* tgid << 32 | stack id -> time of its first sample */
	struct mapping_table *maps;	/* sorted here; a mapping a sample falls in is written */
	struct jitmaps *jitmaps;	/* /tmp/perf-PID.map of the sampled processes */
	bool debuginfo;			/* --debuginfo: embed each binary's DWARF */
	uint64_t complete_ns;		/* maps holds every mapping stamped before it */
};

struct capture_stats {
	size_t binaries;	/* binaries stored */
	size_t missing;		/* binaries that could not be read (or had changed) */
	size_t symbols;		/* user symbols stored */
	size_t ksyms;		/* kernel symbols stored */
	size_t debug_files;	/* binaries whose symbols came from a separate debug file */
	size_t jit_maps;	/* /tmp/perf-PID.map files stored */
	size_t dwarf_files;	/* --debuginfo: files with DWARF embedded */
	uint64_t dwarf_bytes;	/* their size before compression */
};

/* NULL on ENOMEM. */
struct capture *capture__new(void);
/* Accepts NULL. */
void capture__free(struct capture *c);

/* Notes a (tgid << 32 | stack id) pair sampled for the first time. 0 or -ENOMEM. */
int capture__note_pair(struct capture *c, uint64_t pair);

/*
 * The pairs noted since the last step, in the order noted (*nr of them; 0
 * for NULL): valid until the next note or step, which empties them.
 */
const uint64_t *capture__noted_pairs(const struct capture *c, size_t *nr);

/*
 * Whether a pair of process tgid waits for a mapping (it is tried again at
 * the next step): that process's mappings are still needed.
 */
bool capture__retrying(const struct capture *c, uint32_t tgid);

/* The processes with pairs waiting for a mapping, at most max, each once. */
size_t capture__retry_tgids(const struct capture *c, uint32_t *out, size_t max);

/*
 * Before a commit: adds to s->rec the symbol data of the pairs noted and the
 * stacks interned since the previous step, leaving out what is stored
 * already. Sorts s->maps. Costs nothing when nothing new was sampled.
 */
int capture__step(struct capture *c, const struct capture_source *s);

/*
 * At the end: a last step, then every sampled pair once more (for mappings
 * that arrived late), the JIT maps of the processes still alive, and kernel
 * addresses no symbol covered against a fresh /proc/kallsyms. *st: totals
 * over the whole recording.
 */
int capture__run(struct capture *c, const struct capture_source *s, struct capture_stats *st);

#endif
