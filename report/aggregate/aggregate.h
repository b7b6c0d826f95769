/* SPDX-License-Identifier: MIT */
/*
 * report/aggregate/aggregate.h - samples counted by (thread comm, process, stack).
 *
 * The aggregate is what every output reads: one entry per distinct key,
 * whatever the number of samples. Entries live in a dense array (stable
 * indexes, easy iteration) indexed by an open-addressed hash table.
 * Filters and further key fields (cpu, time slice) belong here, so the
 * emitters stay unaware of where the counts came from: a filtered-out
 * sample is never counted, and a key field an output does not ask for is 0
 * in every entry (so it costs no distinct entries).
 */
#ifndef EPROF_REPORT_AGGREGATE_H
#define EPROF_REPORT_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/aggregate/strtab.h"
#include "util/hashmap.h"

struct recording;
struct rec_comm;

/* The key of an entry; fields not kept by the agg_config are 0. */
struct agg_key {
	uint32_t comm_id;		/* in stack_agg.comms */
	uint32_t tgid;
	uint32_t stack_id;
	uint32_t tid;			/* agg_config.key_tid */
	uint32_t cpu;			/* agg_config.key_cpu */
	uint32_t slot;			/* agg_config.slot_ns: (time - start) / slot_ns */
	uint32_t state;			/* agg_config.key_state: AGG_ONCPU, AGG_BLOCKED, ... */
	uint32_t cgroup;		/* agg_config.key_cgroup: in stack_agg.cgroups */
};

/* What time an entry counts, when agg_config.key_state keeps it apart. */
enum agg_state {
	AGG_ONCPU,			/* samples */
	AGG_BLOCKED,			/* off the CPU: 1 + enum rec_offcpu_state */
	AGG_RUNNABLE,
};

struct agg_entry {
	/* the key */
	uint32_t comm_id;		/* in stack_agg.comms */
	uint32_t tgid;
	uint32_t stack_id;
	uint32_t tid;
	uint32_t cpu;
	uint32_t slot;
	uint32_t state;
	uint32_t cgroup;
	/* the values */
	uint64_t count;
	uint64_t last_ns;		/* time of the key's latest sample */
};

/*
 * One comm row, reduced: thread tid is called comm_id from time_ns on. The
 * cgroup rows have the same shape: tid ran in cgroup comm_id (an id in
 * stack_agg.cgroups) from time_ns on.
 */
struct agg_comm_row {
	uint64_t time_ns;
	uint32_t tid;
	uint32_t comm_id;
};

struct stack_agg {
	struct agg_entry *entries;
	size_t nr;
	size_t alloc;
	struct hashmap index;		/* hash of a key -> index of its entry */

	struct strtab comms;		/* interned thread names */
	struct agg_comm_row *rows;	/* sorted by (tid, time) after stack_agg__sort_comms() */
	size_t nr_rows;
	size_t alloc_rows;

	struct strtab cgroups;		/* cgroup paths; id 0 "[unknown cgroup]" (key_cgroup) */
	struct agg_comm_row *cg_rows;	/* sorted by (tid, time) */
	size_t nr_cg_rows;
	size_t alloc_cg_rows;

	uint64_t nr_samples;		/* every sample counted */
	uint64_t nr_filtered;		/* samples a filter left out (stack_agg__load_cfg) */
	uint64_t first_ns;		/* earliest and latest counted sample time */
	uint64_t last_ns;
	uint32_t max_slot;		/* largest slot counted */
	/* weighing by time: what the counts (ns) are made of */
	uint64_t nr_weighed_samples;	/* samples counted, each sample_ns */
	uint64_t oncpu_ns;		/* their weight */
	uint64_t offcpu_ns[2];		/* blocked, runnable (enum rec_offcpu_state) */
	uint64_t nr_offcpu;		/* off-CPU intervals and sums counted */
	/* which counts are ns (stack_agg__events()) */
	bool ns_samples;		/* every count (agg_config.sample_ns) */
	bool ns_offcpu;			/* off-CPU entries' (agg_config.offcpu_states) */
	bool states_apart;		/* agg_config.key_state: entries say which they are */
};

/* Whether entry e counts ns of time (--off-cpu, --wall), not samples. */
static inline bool stack_agg__counts_ns(const struct stack_agg *agg, const struct agg_entry *e)
{
	return agg->ns_samples || (agg->ns_offcpu && (!agg->states_apart || e->state != AGG_ONCPU));
}

/*
 * How many events (samples, off-CPU intervals) entry e stands for, to
 * count frames by: its count where it counts samples; where it counts ns,
 * 1: the entry, not its nanoseconds.
 */
static inline uint64_t stack_agg__events(const struct stack_agg *agg, const struct agg_entry *e)
{
	return stack_agg__counts_ns(agg, e) ? 1 : e->count;
}

/*
 * The entry from *k on that has a count (the views pass over the others),
 * *k moved past it; NULL after the last. Start with *k = 0.
 */
static inline const struct agg_entry *stack_agg__next(const struct stack_agg *agg, size_t *k)
{
	while (*k < agg->nr) {
		const struct agg_entry *e = &agg->entries[(*k)++];

		if (e->count)
			return e;
	}
	return NULL;
}

/*
 * Which samples stack_agg__load_cfg() counts, and which key fields it keeps.
 * Lists are sorted (parse_u32_list() makes them so); NULL lists and a NULL
 * comm let everything through.
 */
struct agg_config {
	const uint32_t *pids;		/* tgids */
	size_t nr_pids;
	const uint32_t *tids;
	size_t nr_tids;
	const char *comm;		/* the thread's name at the time of the sample */
	const uint32_t *xpids;		/* tgids left out (--exclude-pid) */
	size_t nr_xpids;
	const char *xcomm;		/* a thread name left out (--exclude-comm) */
	const bool *cpu_ok;		/* cpu_ok[cpu] for cpu < nr_cpu_ok; NULL: every cpu */
	size_t nr_cpu_ok;
	uint64_t start_ns;		/* time origin; 0: the first sample's time */
	uint64_t from_ns;		/* window [from, to) relative to start_ns */
	uint64_t to_ns;			/* 0: no end */
	bool key_tid;
	bool key_cpu;
	bool key_cgroup;		/* the cgroup of each sample (its thread's, at its time) */
	uint64_t slot_ns;		/* 0: no time slots */
	/*
	 * Weighing by time (report --off-cpu, --wall): counts become ns. A
	 * sample weighs sample_ns (its period); off-CPU intervals of the states
	 * in offcpu_states (bits 1 << enum rec_offcpu_state) weigh their
	 * duration, split across time slots and clipped to the window.
	 */
	uint64_t sample_ns;		/* 0: a sample counts 1 (the default, samples) */
	bool no_samples;		/* off-CPU time alone (--off-cpu) */
	bool key_state;			/* keep on-CPU, blocked, runnable apart (pprof) */
	unsigned int offcpu_states;	/* 0: no off-CPU time */
};

void stack_agg__init(struct stack_agg *agg);
/* Frees everything the aggregate holds. Accepts NULL. */
void stack_agg__release(struct stack_agg *agg);

/*
 * Frees what only loading needs (the key index and the comm rows), once
 * the aggregate is complete: entries and thread names stay for the views;
 * nothing may be added, found or walked after.
 */
void stack_agg__compact(struct stack_agg *agg);

/* Interns a thread name (sanitising is the emitters' job). 0 or -ENOMEM. */
int stack_agg__intern_comm(struct stack_agg *agg, const char *comm, uint32_t *id);

static inline const char *stack_agg__comm(const struct stack_agg *agg, uint32_t comm_id)
{
	return strtab__str(&agg->comms, comm_id);
}

/* The path of a cgroup id of the key ("/", "/system.slice", "cgroup:ID", "[unknown cgroup]"). */
static inline const char *stack_agg__cgroup(const struct stack_agg *agg, uint32_t cgroup)
{
	return strtab__str(&agg->cgroups, cgroup);
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

/* The same with a whole key (tid, cpu and slot too). */
int stack_agg__add_key(struct stack_agg *agg, const struct agg_key *k, uint64_t time_ns,
		       uint64_t count);
struct agg_entry *stack_agg__find_key(const struct stack_agg *agg, const struct agg_key *k);

/*
 * Fills agg from a recording: comm rows first, then every sample streamed
 * (memory grows with distinct keys only). Errors come printed by format/.
 */
int stack_agg__load(struct stack_agg *agg, struct recording *rec);

/*
 * The same, counting only the samples cfg lets through and keeping the key
 * fields it asks for. cfg may be NULL (everything, as stack_agg__load()).
 */
int stack_agg__load_cfg(struct stack_agg *agg, struct recording *rec,
			const struct agg_config *cfg);

/*
 * Called with each sample a filter let through and the entry it was
 * counted in. A non-zero return stops the walk and is returned.
 */
struct rec_sample;
typedef int (*agg_sample_fn)(void *ctx, const struct rec_sample *s, const struct agg_entry *e);

/*
 * Streams rec's samples again, in the recording's order, after
 * stack_agg__load_cfg(agg, rec, cfg) with the same cfg: fn sees every
 * sample that was counted, and none that was filtered out or whose entry
 * was emptied since (count 0). Memory does not grow with samples. Errors of
 * the reader come printed; fn's own are returned unprinted.
 */
int stack_agg__walk(struct stack_agg *agg, struct recording *rec, const struct agg_config *cfg,
		    agg_sample_fn fn, void *ctx);

/*
 * Streams rec's off-CPU intervals (not the sums, which have no times of
 * their own) in the recording's order, after stack_agg__load_cfg(agg, rec,
 * cfg) with the same cfg (offcpu_states set): fn sees each interval of a
 * state cfg counts that a filter let through (at its start, or at the
 * window's start when it began before) with the entry it was counted in.
 */
struct rec_offcpu;
typedef int (*agg_offcpu_fn)(void *ctx, const struct rec_offcpu *o, const struct agg_entry *e);
int stack_agg__walk_offcpu(struct stack_agg *agg, struct recording *rec,
			   const struct agg_config *cfg, agg_offcpu_fn fn, void *ctx);

#endif
