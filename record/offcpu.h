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

struct session;
struct ev_offcpu_stack;
struct ev_offcpu;

/* Default --off-cpu-thresh (see record/offcpu.c for why this value). */
#define OFFCPU_THRESH_DEFAULT_NS	1000000ull

struct offcpu;

/* The map fds come from the sampler: its starts and its sums. -ENOMEM (printed). */
int offcpu__new(int start_fd, int sums_fd, int nr_possible_cpus, struct offcpu **out);

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

/* Intervals recorded so far, and those lost (for the summary line). */
void offcpu__totals(const struct offcpu *o, uint64_t *kept, uint64_t *lost);

/* Accepts NULL. */
void offcpu__free(struct offcpu *o);

#endif
