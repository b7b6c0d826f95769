/* SPDX-License-Identifier: MIT */
/*
 * record/jitmap.h - the JIT symbol maps (/tmp/perf-PID.map) that sampled
 * processes write, read while the process lives and for the last time at
 * its exit, and stored as a binary of that path whose symbols are absolute
 * addresses (only those covering sampled addresses, each once).
 */
#ifndef EPROF_RECORD_JITMAP_H
#define EPROF_RECORD_JITMAP_H

#include <stddef.h>
#include <stdint.h>

struct jitmaps;
struct recording;

/* An address outside the mapped files, and when a sample met it. */
struct jit_sample {
	uint64_t addr;
	uint64_t time_ns;
};

struct threads;

/*
 * NULL on ENOMEM. Each process's fork time and owner at its exec are kept
 * in its row of procs (record/threads.h), with the lifetime of that row;
 * procs NULL: none are kept.
 */
struct jitmaps *jitmaps__new(struct threads *procs);
/* Accepts NULL. */
void jitmaps__free(struct jitmaps *j);

/*
 * At the exit of process pid: reads /tmp/perf-PID.map if it exists (again,
 * if it changed since it was last read), and never again for this process.
 * A missing or unreadable map is no error: most processes have none. 0 or
 * -ENOMEM.
 */
int jitmaps__read(struct jitmaps *j, uint32_t pid);

/*
 * Process pid has just exec'd: notes its owner now, while it lives, so a
 * map it writes can be read even if it is reaped before its exit record
 * is seen. 0 or -ENOMEM.
 */
int jitmaps__exec(struct jitmaps *j, uint32_t pid);

/*
 * A new process pid was forked at fork_ns (pid reuse is possible): from
 * fork_ns on, /tmp/perf-PID.map is the new process's, read while it lives
 * and at its exit; an earlier process of that pid is not read again.
 * 0 or -ENOMEM.
 */
int jitmaps__new_process(struct jitmaps *j, uint32_t pid, uint64_t fork_ns);

/*
 * Adds to rec the symbols covering v (sorted by address) that are not
 * stored yet, each from the map of the process that had pid at the time of
 * its sample: the first as a binary of path /tmp/perf-PID.map, a later one
 * (the pid reused) as /tmp/perf-PID.map@FORK_NS. An address sampled before
 * the first process of pid that eprof knows of gets no symbol. While a
 * process lives, its map is read first if it was not, or if it changed and
 * an address is not covered. Increments *nr_maps the first time a map gets
 * a row.
 */
int jitmaps__store(struct jitmaps *j, struct recording *rec, uint32_t pid,
		   const struct jit_sample *v, size_t n, size_t *nr_maps);

/*
 * Called after each commit: writes to rec the maps cut (read only in part)
 * since the last call, and frees the maps of processes that exited two
 * commits ago. 0 or the recording's error.
 */
int jitmaps__after_commit(struct jitmaps *j, struct recording *rec);

#endif
