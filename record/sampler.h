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

#include "format/recording.h"

struct ev_sample;
struct ev_offcpu_stack;
struct ev_offcpu;
struct ev_cgroup;
struct sampler;

/* What the sampler is set up for (from the record options). */
struct sampler_config {
	uint64_t freq;			/* -F: with nr_cpus, sizes the ring buffer */
	size_t nr_cpus;			/* CPUs to be sampled */
	int nr_possible_cpus;		/* per-CPU maps hold this many values */
	bool filter;			/* only the target set is sampled (not -a) */
	bool follow;			/* the targets' new processes become targets */
	bool dwarf;			/* --call-graph dwarf: load the table walker */
	bool off_cpu;			/* --off-cpu: load and attach the switch hook */
	uint64_t off_cpu_thresh_ns;	/* intervals kept with their times */
	uint32_t gate_parent;		/* -- CMD: the recorder's pid (its child's pre-exec waits go) */
	uint64_t raw_budget;		/* dwarf: bytes of raw stack a second (events.h, ev_raw) */
	const char *table_cache;	/* where the probed mmap hook is kept, or NULL */
};

/*
 * Where valid records go, from inside libbpf's ring-buffer callback: each
 * returns 0 or a negative error, which stops the consume. offcpu_stack and
 * offcpu are called only when config.off_cpu is set.
 */
struct sampler_sink {
	int (*sample)(void *ctx, const struct ev_sample *e);
	int (*offcpu_stack)(void *ctx, const struct ev_offcpu_stack *e);
	int (*offcpu)(void *ctx, const struct ev_offcpu *e);
	int (*cgroup)(void *ctx, const struct ev_cgroup *e);	/* NULL: ignored */
	void *ctx;
};

/*
 * Opens, configures and loads the BPF object, attaches the fork follower
 * and sets up the ring buffer, whose valid records go to sink (copied).
 * Prints on failure.
 */
int sampler__open(const struct sampler_config *cfg, const struct sampler_sink *sink,
		  struct sampler **out);

/* Ring-buffer records that failed validation, so far. */
uint64_t sampler__nr_malformed(const struct sampler *sp);

/* Adds a process to the target set (no-op without a filter). */
int sampler__add_target(struct sampler *sp, uint32_t tgid);

/* The py_procs map (bpf/events.h, struct py_proc) for record/python.c. */
int sampler__py_map_fd(struct sampler *sp);

/* True when tgid is in the target set, or when every process is a target. */
bool sampler__is_target(struct sampler *sp, uint32_t tgid);

/* Opens the CPU clock on each CPU and attaches the sampler to it. */
int sampler__attach(struct sampler *sp, const uint32_t *cpus, size_t nr, uint64_t freq);

/* Stops sampling: destroys the links (and with them the perf events). */
void sampler__detach(struct sampler *sp);

/* Epoll fd of the ring buffer, to wait on with other fds. */
int sampler__epoll_fd(struct sampler *sp);

/*
 * Hands queued records to the sink, at most budget of them (SIZE_MAX:
 * all); *more says the budget stopped it with records left. 0 or -errno.
 */
int sampler__consume(struct sampler *sp, size_t budget, bool *more);

/* Whether user stacks are walked with unwind tables (else frame pointers). */
bool sampler__unwinds(const struct sampler *sp);

struct unwind_maps;

/* fds of the unwind maps (unwind.bpf.h). */
void sampler__unwind_fds(struct sampler *sp, struct unwind_maps *out);

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
