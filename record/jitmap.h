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

struct session;
struct jitmaps;
struct recording;

/* NULL on ENOMEM. */
struct jitmaps *jitmaps__new(void);
/* Accepts NULL. */
void jitmaps__free(struct jitmaps *j);

/*
 * At the exit of process pid: reads /tmp/perf-PID.map if it exists (again,
 * if it changed since it was last read), and never again. A missing or
 * unreadable map is no error: most processes have none. 0 or -ENOMEM.
 */
int jitmaps__read(struct jitmaps *j, uint32_t pid);

/*
 * Adds to s->rec, as a binary of path /tmp/perf-PID.map, the symbols of
 * pid's map covering addrs (sorted) that are not stored yet. While the
 * process lives, the map is read first if it was not, or if it changed and
 * an address is not covered. Increments *nr_maps the first time a map gets
 * a row.
 */
int jitmaps__store(struct jitmaps *j, struct session *s, uint32_t pid, const uint64_t *addrs,
		   size_t n, size_t *nr_maps);

/*
 * Called after each commit: writes to rec the maps cut (read only in part)
 * since the last call, and frees the maps of processes that exited two
 * commits ago. 0 or the recording's error.
 */
int jitmaps__after_commit(struct jitmaps *j, struct recording *rec);

#endif
