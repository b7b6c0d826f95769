/* SPDX-License-Identifier: MIT */
/*
 * report/aggregate.h - samples counted by (thread comm, process, stack).
 *
 * The aggregate is what every output reads: one entry per distinct key,
 * whatever the number of samples. Entries live in a dense array (stable
 * indexes, easy iteration) indexed by an open-addressed hash table.
 * Filters and further key fields (cpu, time slice) belong here, so the
 * emitters stay unaware of where the counts came from.
 */
#ifndef EPROF_REPORT_AGGREGATE_H
#define EPROF_REPORT_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/strtab.h"

struct recording;
struct rec_comm;
struct sym_stack;

struct agg_entry {
	/* the key */
	uint32_t comm_id;		/* in stack_agg.comms */
	uint32_t tgid;
	uint32_t stack_id;
	/* the values */
	uint64_t count;
	uint64_t last_ns;		/* time of the key's latest sample */
	const struct sym_stack *stack;	/* set by symbolizer__resolve(); NULL before */
};

/* One comm row, reduced: thread tid is called comm_id from time_ns on. */
struct agg_comm_row {
	uint64_t time_ns;
	uint32_t tid;
	uint32_t comm_id;
};

struct stack_agg {
	struct agg_entry *entries;
	size_t nr;
	size_t alloc;
	uint32_t *index;		/* entry index + 1, 0 = empty */
	size_t index_cap;		/* power of two, or 0 */

	struct strtab comms;		/* interned thread names */
	struct agg_comm_row *rows;	/* sorted by (tid, time) after stack_agg__sort_comms() */
	size_t nr_rows;
	size_t alloc_rows;

	uint64_t nr_samples;		/* every sample counted */
};

void stack_agg__init(struct stack_agg *agg);
/* Frees everything the aggregate holds. Accepts NULL. */
void stack_agg__release(struct stack_agg *agg);

/* Interns a thread name (sanitising is the emitters' job). 0 or -ENOMEM. */
int stack_agg__intern_comm(struct stack_agg *agg, const char *comm, uint32_t *id);

static inline const char *stack_agg__comm(const struct stack_agg *agg, uint32_t comm_id)
{
	return strtab__str(&agg->comms, comm_id);
}

/* Adds one comm row (thread c->tid is c->comm from c->time_ns on). */
int stack_agg__add_comm(struct stack_agg *agg, const struct rec_comm *c);
/* Sorts the comm rows; call once after the last stack_agg__add_comm(). */
void stack_agg__sort_comms(struct stack_agg *agg);

/*
 * The name of thread tid of process tgid at time_ns: the latest comm row of
 * tid at or before time_ns, else tid's earliest row (the thread existed
 * before its first recorded name), else the same for the main thread
 * (tid == tgid), else "swapper" for tid 0 (the idle task) or "[unknown]".
 */
int stack_agg__comm_at(struct stack_agg *agg, uint32_t tgid, uint32_t tid, uint64_t time_ns,
		       uint32_t *comm_id);

/* Counts `count` samples for the key; last_ns keeps the latest time. 0 or -ENOMEM. */
int stack_agg__add(struct stack_agg *agg, uint32_t comm_id, uint32_t tgid, uint32_t stack_id,
		   uint64_t time_ns, uint64_t count);

/* The entry of a key, or NULL. */
struct agg_entry *stack_agg__find(const struct stack_agg *agg, uint32_t comm_id, uint32_t tgid,
				  uint32_t stack_id);

/*
 * Fills agg from a recording: comm rows first, then every sample streamed
 * (memory grows with distinct keys only). Errors come printed by format/.
 */
int stack_agg__load(struct stack_agg *agg, struct recording *rec);

#endif
