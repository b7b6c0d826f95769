/* SPDX-License-Identifier: MIT */
/*
 * record/cgroup.h - `record --cgroup PATH` (perf's -G): the cgroup v2
 * directory whose tasks (and its descendants') the CPU clock samples.
 */
#ifndef EPROF_RECORD_CGROUP_H
#define EPROF_RECORD_CGROUP_H

/*
 * Opens the cgroup v2 directory path: absolute, or relative to the
 * cgroup2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid
 * system, as /proc/self/mountinfo says). Returns an O_RDONLY directory fd
 * for perf_event_open(PERF_FLAG_PID_CGROUP), or a negative errno after one
 * message saying what to give instead.
 */
int cgroup__open(const char *path);

#endif
