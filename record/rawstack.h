/* SPDX-License-Identifier: MIT */
/*
 * record/rawstack.h - the raw-stack fallback's user-space half: samples
 * whose BPF walk met a binary without its table yet come with a copy of
 * the stack from there (events.h, ev_raw); they are held until every table
 * their walk needs is in, walked again with those tables (record/uwalk.c)
 * and handed on with the whole stack, before the chunk they belong to is
 * committed. The stack bytes never reach the recording.
 */
#ifndef EPROF_RECORD_RAWSTACK_H
#define EPROF_RECORD_RAWSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uwalk_vma;

struct ev_sample;
struct recording;
struct rawstack;
struct unwinder;

/*
 * Bytes of stack copies a second, all CPUs together: 4 MiB per CPU sampled,
 * from 16 to 64 MiB (perf --call-graph dwarf writes 8 KiB a sample: 16 MB
 * a second at 999 Hz on 2 CPUs). A fork storm's first ticks take a copy
 * each; a program that runs on has its tables in and takes none.
 */
uint64_t rawstack_budget_default(uint32_t nr_cpus);
#define RAWSTACK_HOLD_NS	4000000000ull	/* a sample waits this long for its tables */

/* Receives a sample, finished or as the walker left it: 0 or -errno. */
typedef int (*rawstack_emit_fn)(void *ctx, const struct ev_sample *e);

struct rawstack_totals {
	uint64_t held;		/* samples that came with a stack copy */
	uint64_t finished;	/* walked again with their tables */
	uint64_t complete;	/* of those, reaching the outermost frame (or a zero return) */
	uint64_t given_up;	/* a table never came: stored as the walker left them */
	uint64_t gave_way;	/* of those, given up for windows short of memory (give_way) */
	uint64_t not_held;	/* no room in the memory budget to wait: tried once at once */
	uint64_t held_back;	/* commits that held samples back for copies still waiting */
};

/* NULL on ENOMEM. */
/*
 * The mapping of tgid holding pc at time_ns, as the side-band told it, into
 * *out; false when none is known.
 */
typedef bool (*rawstack_vma_fn)(void *ctx, uint32_t tgid, uint64_t pc, uint64_t time_ns,
				struct uwalk_vma *out);

struct rawstack *rawstack__new(struct unwinder *u, rawstack_vma_fn find_vma, void *ctx);
/* Accepts NULL. */
void rawstack__free(struct rawstack *r);

/*
 * Keeps a copy of e (EV_SAMPLE_F_RAW, size bytes, validated), *held (its
 * Python frames may be rewritten until the next call). 0 or -ENOMEM.
 */
int rawstack__hold(struct rawstack *r, const struct ev_sample *e, size_t size,
		   struct ev_sample **held);

/*
 * Whether a held sample still waits for a table and may wait longer: the
 * commit of its chunk waits too. Asks for the tables it needs.
 */
bool rawstack__waiting(struct rawstack *r);

/*
 * Hands every held sample to emit: finished where its tables are in, the
 * others as the walker left them when they waited long enough or when
 * final (then the tables still being built are waited for, a bounded time).
 * Samples that may still wait are kept.
 */
int rawstack__flush(struct rawstack *r, bool final, rawstack_emit_fn emit, void *ctx);

/*
 * For a commit after a flush: the time of the earliest sample still held
 * (those that wait for tables), UINT64_MAX when none. The commit writes no
 * sample from then on, so that no chunk reaches back into an earlier
 * one's time; such a commit is counted (held_back).
 */
uint64_t rawstack__held_since(struct rawstack *r);

void rawstack__totals(const struct rawstack *r, struct rawstack_totals *t);

/*
 * The unwind totals (EV_STAT_*, summed over CPUs) as the stored stacks
 * have them: a finished stack counted by how its second walk ended.
 */
void rawstack__adjust_stats(const struct rawstack *r, uint64_t *stats_total);

/* Its metadata keys (REC_META_RAW_*): budget, samples, bytes, finished... */
int rawstack__store(const struct rawstack *r, struct recording *rec, const uint64_t *stats_total,
		    uint64_t budget);

#endif
