/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/cpu_time.h - the clock the workloads spin by.
 *
 * A workload asked to run for N milliseconds runs for N milliseconds of its
 * thread's CPU time, not of wall time: the CPU clock samples a thread in
 * proportion to the CPU time it gets, so the samples a test sees follow
 * from the work (about N x HZ / 1000) however busy the machine is. On a
 * loaded machine the workload takes longer instead of being sampled less.
 */
#ifndef EPROF_TESTS_WORKLOADS_CPU_TIME_H
#define EPROF_TESTS_WORKLOADS_CPU_TIME_H

#include <stdint.h>
#include <time.h>

#include "util/clock.h"	/* now_ns(): the clock of the recording's timestamps */

/* CPU time of the calling thread, in ns. */
static inline uint64_t cpu_time_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

#endif
