/* SPDX-License-Identifier: MIT */
/*
 * record/offcpu.h - record --off-cpu: turns what on_switch (bpf/sampler.bpf.c)
 * sends and sums into the recording's offcpu, offcpu_sum and offcpu_loss
 * tables, with stacks interned in the same stack table as samples.
 */
#ifndef EPROF_RECORD_OFFCPU_H
#define EPROF_RECORD_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;
struct ev_offcpu_stack;
struct ev_offcpu;

/* Default --off-cpu-thresh (see record/offcpu.c for why this value). */
#define OFFCPU_THRESH_DEFAULT_NS	1000000ull

struct offcpu;

/*
 * The map fds come from the sampler: its starts and its sums.
 * keep_for_switch (--switch-output): keeps the stacks and thread names
 * on_switch sent, which it never sends again, for the files after a
 * switch. -ENOMEM (printed).
 */
int offcpu__new(int start_fd, int sums_fd, int nr_possible_cpus, bool keep_for_switch,
		struct offcpu **out);

/* A stack record (validated by the caller): interned, its hash remembered. */
int offcpu__on_stack(struct session *s, const struct ev_offcpu_stack *e);

/* A long interval: one offcpu row. */
int offcpu__on_interval(struct session *s, const struct ev_offcpu *e);

/*
 * Adds offcpu_sum rows at time for what the in-kernel sums gained since the
 * last flush, and offcpu_loss rows for what the counters say was lost
 * (stats: the sampler's counters, as sampler__read_stats() gives them).
 */
int offcpu__flush(struct session *s, uint64_t time, const uint64_t *stats);

/*
 * After the switch hook is detached: closes every interval still open at
 * end_ns (an offcpu row when long, else an offcpu_sum row at end_ns).
 */
int offcpu__close_open(struct session *s, uint64_t end_ns);

/*
 * A new file replaced s->rec (--switch-output), after session__start_file(),
 * from start_ns (its meta start_ns): stacks are stored again in it as its
 * rows need them, and an interval that began before start_ns moves the
 * file's REC_META_OFFCPU_SINCE back. Accepts NULL.
 */
void offcpu__start_file(struct offcpu *o, uint64_t start_ns);

/* Interval and sum rows written into the current file. */
uint64_t offcpu__file_rows(const struct offcpu *o);

/* Intervals recorded so far, and those lost (for the summary line). */
void offcpu__totals(const struct offcpu *o, uint64_t *kept, uint64_t *lost);

/* Accepts NULL. */
void offcpu__free(struct offcpu *o);

#endif
