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

struct sideband;

/*
 * Opens and enables a dummy perf event with mmap2/comm/task records on
 * every online CPU (build-ids from the kernel where it supports them).
 */
int sideband__open(struct session *s, struct sideband **out);

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
