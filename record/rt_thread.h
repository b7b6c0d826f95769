/* SPDX-License-Identifier: MIT */
/*
 * record/rt_thread.h - a recorder thread at the recorder's own priority.
 *
 * The recorder runs SCHED_FIFO with SCHED_RESET_ON_FORK (cmd_record.c's
 * raise_priority), and the reset applies to threads too: a thread created
 * as it comes runs SCHED_OTHER, and on a machine saturated by busy loops
 * it waits for a CPU for as long as they run.
 */
#ifndef EPROF_RECORD_RT_THREAD_H
#define EPROF_RECORD_RT_THREAD_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>

/* pthread_create() with attr (may be NULL) and the caller's real-time policy, if it has one. */
static inline int rt_thread__create(pthread_t *th, pthread_attr_t *attr, void *(*fn)(void *),
				    void *arg)
{
	pthread_attr_t own;
	struct sched_param sp;
	int policy = sched_getscheduler(0), err;

	if (!attr) {
		pthread_attr_init(&own);
		attr = &own;
	}
	if ((policy & ~SCHED_RESET_ON_FORK) == SCHED_FIFO && !sched_getparam(0, &sp)) {
		pthread_attr_setinheritsched(attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(attr, SCHED_FIFO);
		pthread_attr_setschedparam(attr, &sp);
	}
	err = pthread_create(th, attr, fn, arg);
	if (err == EPERM) {	/* no right to real time after all: as it comes */
		pthread_attr_setinheritsched(attr, PTHREAD_INHERIT_SCHED);
		err = pthread_create(th, attr, fn, arg);
	}
	if (attr == &own)
		pthread_attr_destroy(&own);
	return err;
}

#endif
