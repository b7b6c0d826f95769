/* SPDX-License-Identifier: MIT */
/*
 * record/overlap.h - side-band records seen twice while a buffer is
 * replaced by a larger one (record/sideband.c).
 *
 * Under -a the side-band's events listen to every process, and the kernel
 * writes each record to every listening event. When the side-band grows,
 * the new events are enabled before the old ones are disabled, so that no
 * record falls between them; a record written in between reaches both
 * buffers. The old buffer is read to its end first, and its records
 * stamped inside the window [from, to] are remembered here by content
 * (the CPU, the record's bytes less its times, which the kernel stamps
 * per event); a record of the new buffer stamped inside the window whose
 * content was remembered is the same record again, and is skipped once
 * per copy remembered. Two genuinely distinct records of one content in
 * the window (one page mapped twice at one address) would say the same
 * thing: skipping one loses nothing.
 */
#ifndef EPROF_RECORD_OVERLAP_H
#define EPROF_RECORD_OVERLAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_header;

struct overlap {
	uint64_t from_ns, to_ns;	/* the window; to_ns 0: none open */
	uint64_t *keys;			/* sorted by overlap__seal() */
	bool *taken;			/* per key: matched by a copy already */
	size_t nr, alloc, alloc_taken;
	bool sealed;
};

/*
 * The content of a side-band record read from CPU cpu, without its times
 * (the sample_id's, and a fork's or an exit's own): equal for the copies
 * the kernel writes of one record into two events. h->size is trusted to
 * have been checked against the buffer (at least the header).
 */
uint64_t overlap__key(int cpu, const struct perf_event_header *h);

/* Opens the window [from_ns, to_ns] (to_ns > 0), forgetting what was kept. */
void overlap__begin(struct overlap *o, uint64_t from_ns, uint64_t to_ns);

/*
 * A record of the old buffer: kept when stamped inside the window. -ENOMEM
 * (not printed): the caller handles the record anyway.
 */
int overlap__note(struct overlap *o, int cpu, const struct perf_event_header *h);

/* The old buffer was read to its end: what it kept is searchable. */
void overlap__seal(struct overlap *o);

/*
 * A record of the new buffer: true when it is a copy of one the old buffer
 * kept (that copy is then used up), false when it is to be handled.
 */
bool overlap__is_copy(struct overlap *o, int cpu, const struct perf_event_header *h);

/* Whether a window is open. */
bool overlap__open(const struct overlap *o);

/* Closes the window; o can be begun again. */
void overlap__end(struct overlap *o);

void overlap__release(struct overlap *o);

#endif
