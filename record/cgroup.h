/* SPDX-License-Identifier: MIT */
/*
 * record/cgroup.h - `record --cgroup PATH` (perf's -G): the cgroup v2
 * directory whose tasks (and its descendants') the CPU clock samples.
 */
#ifndef EPROF_RECORD_CGROUP_H
#define EPROF_RECORD_CGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "util/hashmap.h"

struct recording;

/*
 * Opens the cgroup v2 directory path: absolute, or relative to the
 * cgroup2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid
 * system, as /proc/self/mountinfo says). Returns an O_RDONLY directory fd
 * for perf_event_open(PERF_FLAG_PID_CGROUP), or a negative errno after one
 * message saying what to give instead.
 */
int cgroup__open(const char *path);

/*
 * Which cgroup each sampled thread is in, as the recording stores it: a
 * change log (format's thread_cgroup rows), and each cgroup's path, named
 * at record time because a cgroup is gone once its tasks are. The BPF
 * sampler sends a thread's cgroup id only when it differs from the last one
 * it sent (EV_CGROUP); what each thread was last heard in and last written
 * with is in its row of the thread table (record/threads.h, session.c),
 * so that a file started by --switch-output gets its threads' rows again.
 */
struct cgroup_log {
	struct u64map named;		/* cgroup id -> 1 + index into paths; 0: vanished */
	char **paths;
	size_t nr_paths, alloc_paths;
	struct u64map named_here;	/* cgroup ids with a name row in this file */
	int mnt_fd;			/* the cgroup2 mount (open_by_handle_at), -1: none */
	char *mnt;			/* its path */
	uint64_t nr_rows, nr_vanished;
};

/* Finds the cgroup2 mount (none is not an error: ids stay unnamed). */
void cgroup_log__init(struct cgroup_log *cl);
void cgroup_log__release(struct cgroup_log *cl);

/*
 * Adds the row "thread tid of process tgid is in cgroup id from time_ns
 * on" (0: from the file's start) to rec, and the cgroup's name the first
 * time the file uses it. Prints; -ENOMEM or the writer's error.
 */
int cgroup_log__write(struct cgroup_log *cl, struct recording *rec, uint64_t time_ns,
		      uint32_t tgid, uint32_t tid, uint64_t id);

/* A new file (record --switch-output): it has no rows and no names yet. */
void cgroup_log__start_file(struct cgroup_log *cl);

#endif
