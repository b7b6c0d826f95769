/* SPDX-License-Identifier: MIT */
/*
 * record/sideband.h - mappings and thread names of the targets: from perf
 * side-band records while recording, from /proc for what existed before.
 */
#ifndef EPROF_RECORD_SIDEBAND_H
#define EPROF_RECORD_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/session.h"

struct perf_event_header;

struct sideband;

/*
 * Opens and enables a dummy perf event with mmap2/comm/task records on
 * every online CPU (build-ids from the kernel where it supports them).
 */
int sideband__open(struct session *s, struct sideband **out);

/*
 * A side-band with no perf events yet (sideband__open() adds them): records
 * reach it through sideband__handle() only, as unit tests feed them. With
 * no sampler in s, every process is a target.
 */
int sideband__new(struct session *s, struct sideband **out);

/*
 * Handles one perf record read from CPU cpu's buffer. Forks are held back
 * until sideband__end_batch(): the records of the other CPUs may still
 * hold the parent's mmaps that happened before the fork.
 */
int sideband__handle(struct sideband *sb, int cpu, const struct perf_event_header *h);

/* After every CPU's buffer was read: applies the held forks, oldest first. */
int sideband__end_batch(struct sideband *sb);

int sideband__epoll_fd(struct sideband *sb);

/* Handles every queued record. */
int sideband__consume(struct sideband *sb);

/*
 * Adds the executable file mappings (time 0) and the thread names of the
 * existing processes pids[0 .. nr), or of every process when all is set.
 */
int sideband__scan_proc(struct sideband *sb, const uint32_t *pids, size_t nr, bool all);

/* Accepts NULL. */
void sideband__close(struct sideband *sb);

#endif
