/* SPDX-License-Identifier: MIT */
/*
 * record/jitmap.h - the JIT symbol maps (/tmp/perf-PID.map) that sampled
 * processes write, read when the process exits or when the recording
 * ends, whichever comes first, and stored as a binary of that path whose
 * symbols are absolute addresses (only those covering sampled addresses).
 */
#ifndef EPROF_RECORD_JITMAP_H
#define EPROF_RECORD_JITMAP_H

#include <stddef.h>
#include <stdint.h>

struct session;
struct jitmaps;

/* NULL on ENOMEM. */
struct jitmaps *jitmaps__new(void);
/* Accepts NULL. */
void jitmaps__free(struct jitmaps *j);

/*
 * Reads /tmp/perf-PID.map if it exists and was not read yet (a missing or
 * unreadable map is no error: most processes have none). 0 or -ENOMEM.
 */
int jitmaps__read(struct jitmaps *j, uint32_t pid);

/*
 * At the end: reads the maps of the sampled processes not read yet, then
 * adds to s->rec, per map, the symbols covering the process's sampled user
 * addresses. *stored counts the maps stored.
 */
int jitmaps__capture(struct jitmaps *j, struct session *s, size_t *stored);

#endif
