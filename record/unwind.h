/* SPDX-License-Identifier: MIT */
/*
 * record/unwind.h - the unwind tables the BPF walker follows with
 * `--call-graph dwarf`: built per build-id through elf/cfi.h, loaded into
 * the sampler's maps under every file key (device, inode, ctime) that holds
 * that build-id, kept within a memory budget, least recently used first out.
 */
#ifndef EPROF_RECORD_UNWIND_H
#define EPROF_RECORD_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/recording.h"

/*
 * Bytes of BPF map memory for tables: by default 1/128 of the machine's
 * memory, between 64 MiB (a small VM) and 512 MiB (the recorder's stated
 * ceiling); a 24 GiB machine gets 192 MiB, enough for libLLVM, cc1plus
 * and a PyTorch process's libraries at once.
 */
#define UNWIND_BUDGET_MIN	(64ull << 20)
#define UNWIND_BUDGET_MAX	(512ull << 20)
#define UNWIND_BUDGET_LIMIT	(4ull << 30)	/* the most --unwind-budget takes */
uint64_t unwind_budget_default(void);

struct unwinder;

/* Totals over the recording, for the summary and the metadata. */
struct unwind_totals {
	size_t tables;		/* tables built */
	size_t files;		/* file keys loaded (one table may serve several) */
	size_t no_cfi;		/* binaries without usable CFI */
	size_t unreadable;	/* mappings whose file could not be opened */
	size_t evicted;		/* tables dropped to stay within the budget */
	uint64_t rows;		/* rows built */
	uint64_t build_ns;	/* time spent building and loading */
	uint64_t peak_bytes;	/* most table memory held at once */
	size_t cache_hits;	/* tables read from the on-disk cache, not built */
	size_t cache_stored;	/* tables built and written to it */
	size_t partial;		/* big tables loaded by windows (unwind.c) */
	size_t windows;		/* windows loaded into them */
	size_t windows_refused;	/* windows left out: over the budget */
	size_t windows_waits;	/* batches of windows that waited for the memory budget */
	size_t windows_unbuilt;	/* windows asked for, not loaded when the recording ended */
	size_t refused;		/* binaries whose table was over the budget or the bounds */
};

/* The sampler's unwind maps (bpf/unwind.bpf.h), by fd. */
struct unwind_maps {
	int tables;		/* unw_tables: file key -> its table */
	int missing;		/* unw_missing: files walked without a table */
	int absent;		/* unw_absent: windows partial tables lack */
	int bins;		/* unw_bins: per-binary counts */
};

/*
 * Sets up the unwinder over the sampler's maps (sampler__unwind_fds())
 * with a budget in bytes.
 * cache_dir (NULL: none) keeps tables between recordings
 * (format/tablecache.h); one it cannot use is warned about, not fatal.
 * Prints on failure.
 */
int unwinder__open(const struct unwind_maps *maps, uint64_t budget, const char *cache_dir,
		   struct unwinder **out);

/* Its budget: the one asked for, at most half the memory budget (record/budget.h). */
uint64_t unwinder__budget(const struct unwinder *u);

/*
 * Queues the file mapped at [start, end) in tgid (path as mapped) for a
 * table; cheap, so side-band callbacks may call it. 0 or -ENOMEM.
 */
int unwinder__note_mapping(struct unwinder *u, uint32_t tgid, uint64_t start, uint64_t end,
			   const char *path);

/*
 * Builds tables: for the mappings the BPF walker found without one, then
 * for the queue, until about budget_ns has passed. Called from the record
 * loop, never from a ring-buffer callback. Sets *more when work is left.
 */
int unwinder__work(struct unwinder *u, uint64_t budget_ns, bool *more);

/*
 * Hands every queued mapping to the builder and waits up to timeout_ns for
 * the tables being built (-p and -- CMD: ready before the first sample).
 * Prints on failure.
 */
int unwinder__drain(struct unwinder *u, uint64_t timeout_ns);

/*
 * The same, but waits only for the tables being built: one the table cache
 * holds is in a few milliseconds later, and a sample that comes first has
 * its stack copied and finished with it (record/rawstack.h).
 */
int unwinder__drain_builds(struct unwinder *u, uint64_t timeout_ns);

/*
 * Starts building a table for the file at path (e.g. the command about to
 * be run); unwinder__drain() waits for it. Failures are quiet.
 */
void unwinder__prepare_path(struct unwinder *u, const char *path);

/* Adds the per-binary and total unwind counts to rec. */
int unwinder__store(struct unwinder *u, struct recording *rec, const uint64_t *stats_total);

/*
 * The row the BPF walker would find at file offset off of the binary behind
 * key (struct unw_key), from the very table it follows (mapped, no copy):
 * for walks finished in user space (record/rawstack.c). PENDING: the file
 * is not known yet, or its table is being built.
 */
enum unwinder_row {
	UNWINDER_ROW_FOUND,
	UNWINDER_ROW_NO_TABLE,
	UNWINDER_ROW_NO_CFI,
	UNWINDER_ROW_PENDING,
};

struct unw_key;
struct unw_row;
enum unwinder_row unwinder__row(struct unwinder *u, const struct unw_key *key, uint64_t off,
				struct unw_row *row);

/*
 * Asks for the table of the file mapped at [start, end) in tgid under key,
 * as a walker miss does. 0 or -errno (printed).
 */
int unwinder__request(struct unwinder *u, uint32_t tgid, uint64_t start, uint64_t end,
		      const struct unw_key *key);

/*
 * The memory the windows of big binaries wait for (what their last batch
 * lacked, added over the binaries still asked for windows); 0: none wait.
 */
uint64_t unwinder__mem_wanted(const struct unwinder *u);

/* An fd that becomes readable when a table is built (to wait on with epoll). */
int unwinder__event_fd(const struct unwinder *u);

void unwinder__totals(const struct unwinder *u, struct unwind_totals *t);

/* Whether tables are kept on disk between recordings (--table-cache). */
bool unwinder__caches(const struct unwinder *u);

/* Accepts NULL. */
void unwinder__close(struct unwinder *u);

#endif
