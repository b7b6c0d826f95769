/* SPDX-License-Identifier: MIT */
/*
 * record/perf_events.h - the CPUs to sample and the perf events record/
 * opens on them.
 */
#ifndef EPROF_RECORD_PERF_EVENTS_H
#define EPROF_RECORD_PERF_EVENTS_H

#include <stddef.h>
#include <stdint.h>

struct perf_event_attr;

/* Online CPUs from /sys/devices/system/cpu/online; *out is malloc'd. Prints on failure. */
int cpus__online(uint32_t **out, size_t *nr);

/*
 * Opens the software CPU clock on cpu, sampling at freq Hz for every task,
 * disabled (attaching the BPF program enables it). Returns the fd or a
 * negative errno, and prints the reason.
 */
int cpu_clock__open(uint32_t cpu, uint64_t freq);

/* The side-band event attributes: mmap2 with build-ids, comm, task, CLOCK_MONOTONIC times. */
void sideband_attr__init(struct perf_event_attr *attr, int with_build_id);

#endif
