/* SPDX-License-Identifier: MIT */
/*
 * util/clock.h - the one clock of a recording: CLOCK_MONOTONIC, which is
 * what bpf_ktime_get_ns() reads in the BPF programs, so times taken here
 * and in the kernel compare directly.
 */
#ifndef EPROF_UTIL_CLOCK_H
#define EPROF_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* The time of clock id in ns. */
static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Current CLOCK_MONOTONIC time in ns. */
static inline uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

#endif
