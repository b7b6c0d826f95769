/* SPDX-License-Identifier: MIT */
/*
 * record/sampler.h - the BPF sampler: load, target set, attach per CPU,
 * ring-buffer consumer, loss counters.
 */
#ifndef EPROF_RECORD_SAMPLER_H
#define EPROF_RECORD_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/session.h"

struct sampler;

/*
 * Opens, configures and loads the BPF object, attaches the fork follower
 * and sets up the ring buffer, whose records go to s. Prints on failure.
 */
int sampler__open(struct session *s, struct sampler **out);

/* Adds a process to the target set (no-op without a filter). */
int sampler__add_target(struct sampler *sp, uint32_t tgid);

/* True when tgid is in the target set, or when every process is a target. */
bool sampler__is_target(struct sampler *sp, uint32_t tgid);

/* Opens the CPU clock on each CPU and attaches the sampler to it. */
int sampler__attach(struct sampler *sp, const uint32_t *cpus, size_t nr, uint64_t freq);

/* Stops sampling: destroys the links (and with them the perf events). */
void sampler__detach(struct sampler *sp);

/* Epoll fd of the ring buffer, to wait on with other fds. */
int sampler__epoll_fd(struct sampler *sp);

/*
 * Hands queued records to the session, at most budget of them (SIZE_MAX:
 * all); *more says the budget stopped it with records left. 0 or -errno.
 */
int sampler__consume(struct sampler *sp, size_t budget, bool *more);

/* Whether user stacks are walked with unwind tables (else frame pointers). */
bool sampler__unwinds(const struct sampler *sp);

/* fds of the unwind maps: tables, walker misses, per-binary counts (unwind.bpf.h). */
void sampler__unwind_fds(struct sampler *sp, int *tables, int *missing, int *bins);

/* fds of the off-CPU maps: threads off the CPU now, short intervals summed. */
void sampler__offcpu_fds(struct sampler *sp, int *start, int *sums);

/* fd of the BPF map the side-band perf buffer registers its events in. */
int sampler__sideband_map_fd(struct sampler *sp);

/*
 * Reads the per-CPU stats map into vals[cpu * EV_STAT_MAX + stat] for every
 * possible CPU (nr_possible * EV_STAT_MAX entries).
 */
int sampler__read_stats(struct sampler *sp, uint64_t *vals);

/*
 * Accounts the ticks of every attached CPU since the previous call: one row
 * each in rows[] (room for sampler__nr_cpus()), *nr set to how many. Also
 * works after sampler__detach(), for the last interval.
 */
int sampler__account_ticks(struct sampler *sp, uint64_t now, struct rec_ticks *rows,
			   size_t *nr);

/* CPUs the sampler is attached to (0 before sampler__attach). */
size_t sampler__nr_cpus(const struct sampler *sp);

/* Accepts NULL. */
void sampler__close(struct sampler *sp);

#endif
