// SPDX-License-Identifier: MIT
/*
 * threads_deep: two threads spin in thread_work (their stacks end in
 * start_thread and clone3), while the main thread recurses 200 calls deep
 * and spins at the bottom in deep_work: its stacks are deeper than the 127
 * frames a stack holds, so they are cut there and counted as truncated.
 *
 * usage: threads_deep [MILLISECONDS [DEPTH [THREADS]]]   (defaults 1500 200 2;
 * MILLISECONDS of CPU time per thread, cpu_time.h)
 * (bench/unwind.sh uses DEPTH and THREADS 0 to compare walks at one depth)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu_time.h"

volatile uint64_t sink;

/* Spins for ns of the calling thread's CPU time. */
static void spin_for(uint64_t ns)
{
	volatile uint64_t acc[2] = { 3, 5 };
	uint64_t end = cpu_time_ns() + ns;

	while (cpu_time_ns() < end)
		for (int i = 0; i < 20000; i++)
			acc[i & 1] = acc[i & 1] * 6364136223846793005ull + 7;
	sink += acc[0];
}

__attribute__((noinline)) void thread_work(uint64_t ns)
{
	spin_for(ns);
}

static void *thread_main(void *arg)
{
	thread_work(*(uint64_t *)arg);
	return NULL;
}

__attribute__((noinline)) void deep_work(uint64_t ns)
{
	spin_for(ns);
}

__attribute__((noinline)) void recurse(int depth, uint64_t ns)
{
	if (depth)
		recurse(depth - 1, ns);
	else
		deep_work(ns);
	sink++;		/* no tail call: every level keeps its frame */
}

int main(int argc, char **argv)
{
	uint64_t ns = (uint64_t)(argc > 1 ? atoi(argv[1]) : 1500) * 1000000ull;
	int depth = argc > 2 ? atoi(argv[2]) : 200, nr = argc > 3 ? atoi(argv[3]) : 2;
	pthread_t t[2];

	if (nr < 0 || nr > 2)
		nr = 2;
	for (int i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, thread_main, &ns);
	recurse(depth > 0 ? depth : 0, ns);
	for (int i = 0; i < nr; i++)
		pthread_join(t[i], NULL);
	return 0;
}
