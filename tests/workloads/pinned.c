// SPDX-License-Identifier: MIT
/*
 * pinned: two threads, one pinned to CPU 0 running on_cpu0, one pinned to
 * CPU 1 running on_cpu1, each for the whole run; per-CPU reports must put
 * each function on its CPU.
 *
 * usage: pinned [MILLISECONDS]   (of CPU time per thread, default 2000;
 * cpu_time.h); exits 3 when a thread
 * cannot be pinned (fewer than two CPUs).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_time.h"

volatile uint64_t sink;
static uint64_t run_ns;

#define SPIN_BODY()                                                                \
	volatile uint64_t acc[4] = { 1, 2, 3, 4 };                                 \
	uint64_t end = cpu_time_ns() + run_ns;                                     \
	while (cpu_time_ns() < end)                                                \
		for (int i = 0; i < 20000; i++)                                    \
			acc[i & 3] = acc[i & 3] * 2862933555777941757ull + 3037000493ull; \
	return acc[0] ^ acc[1] ^ acc[2] ^ acc[3]

__attribute__((noinline)) uint64_t on_cpu0(void) { SPIN_BODY(); }
__attribute__((noinline)) uint64_t on_cpu1(void) { SPIN_BODY(); }

static void *run(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) {
		fprintf(stderr, "pinned: cannot pin to CPU %d\n", cpu);
		exit(3);
	}
	sink += cpu ? on_cpu1() : on_cpu0();
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000;
	pthread_t t[2];
	int i;

	run_ns = ms * 1000000ull;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, run, (void *)(intptr_t)i))
			return 1;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return (int)(sink & 0);
}
