/* SPDX-License-Identifier: MIT */
/*
 * record/offcpu.h - record --off-cpu: turns what on_switch (bpf/sampler.bpf.c)
 * sends and sums into the recording's offcpu, offcpu_sum and offcpu_loss
 * tables, with stacks interned in the same stack table as samples.
 */
#ifndef EPROF_RECORD_OFFCPU_H
#define EPROF_RECORD_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

#include <stdbool.h>

struct ev_offcpu_stack;
struct ev_offcpu;
struct recording;

/* Default --off-cpu-thresh (see record/offcpu.c for why this value). */
#define OFFCPU_THRESH_DEFAULT_NS	1000000ull

struct offcpu;

/* What the off-CPU reader works with, given by the caller. */
struct offcpu_config {
	int start_fd, sums_fd;		/* the sampler's maps: threads off the CPU now, sums */
	int nr_possible_cpus;
	uint64_t thresh_ns;		/* --off-cpu-thresh */
	/*
	 * The id of a stack in the stack table shared with samples: added to
	 * the recording when new, and noted as used by tgid at time_ns (so
	 * its symbols and the process's names are stored). 0 on failure,
	 * printed.
	 */
	uint32_t (*intern)(void *ctx, const uint64_t *frames, uint32_t nr_kernel,
			   uint32_t nr_user, uint32_t tgid, uint64_t time_ns);
	void *ctx;
	/*
	 * --switch-output: keeps the stacks on_switch sent, which it never
	 * sends again, for the files after a switch; there name() gives a
	 * thread whose row goes in the file its name again (the caller keeps
	 * thread names: record/threads.h). 0 or an error (printed).
	 */
	bool keep_for_switch;
	int (*name)(void *ctx, uint64_t time_ns, uint32_t tgid, uint32_t tid);
};

/* -ENOMEM (printed). */
int offcpu__new(const struct offcpu_config *cfg, struct offcpu **out);

/* A stack record (validated by the caller): interned, its hash remembered. */
int offcpu__on_stack(struct offcpu *o, const struct ev_offcpu_stack *e);

/* A long interval (validated by the caller: a duration, a known state): one offcpu row. */
int offcpu__on_interval(struct offcpu *o, struct recording *rec, const struct ev_offcpu *e);

/*
 * Adds offcpu_sum rows at time for what the in-kernel sums gained since the
 * last flush, and offcpu_loss rows for what the counters say was lost
 * (stats: the sampler's counters, as sampler__read_stats() gives them).
 */
int offcpu__flush(struct offcpu *o, struct recording *rec, uint64_t time,
		  const uint64_t *stats);

/*
 * After the switch hook is detached: closes every interval still open at
 * end_ns (an offcpu row when long, else an offcpu_sum row at end_ns).
 */
int offcpu__close_open(struct offcpu *o, struct recording *rec, uint64_t end_ns);

/*
 * A new file replaced the recording (--switch-output), from start_ns (its
 * meta start_ns): stacks are interned again as its rows need them, and an
 * interval that began before start_ns (it was open at the switch: it goes
 * whole into the file it ends in) moves the file's REC_META_OFFCPU_SINCE
 * back. Accepts NULL.
 */
void offcpu__start_file(struct offcpu *o, uint64_t start_ns);

/* Interval and sum rows written into the current file; 0 for NULL. */
uint64_t offcpu__file_rows(const struct offcpu *o);

/* Intervals recorded so far, and those lost (for the summary line). */
void offcpu__totals(const struct offcpu *o, uint64_t *kept, uint64_t *lost);

/* Accepts NULL. */
void offcpu__free(struct offcpu *o);

#endif
