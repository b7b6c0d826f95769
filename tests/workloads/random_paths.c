// SPDX-License-Identifier: MIT
/*
 * random_paths: THREADS threads each descend DEPTH calls deep through
 * eight functions path_0 .. path_7, each level's function drawn at random,
 * spin a little at the bottom, come back up and draw a new path: nearly
 * every sample has a stack never seen before (8^DEPTH paths), the load
 * that grows a recorder's stack table without bound.
 *
 * usage: random_paths [MILLISECONDS [DEPTH [THREADS]]]   (defaults 3000 40 2;
 * MILLISECONDS of CPU time per thread, cpu_time.h)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu_time.h"

volatile uint64_t sink;

typedef void (*step_fn)(uint64_t *rng, int depth);

static step_fn steps[8];

/* Spins about 50 microseconds, then returns: the bottom of a path. */
static void bottom(uint64_t *rng)
{
	volatile uint64_t acc = *rng;

	for (int i = 0; i < 20000; i++)
		acc = acc * 6364136223846793005ull + 7;
	sink += acc;
}

static void next(uint64_t *rng, int depth)
{
	*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
	if (depth)
		steps[*rng >> 61](rng, depth - 1);
	else
		bottom(rng);
	sink++;		/* no tail call: every level keeps its frame */
}

#define STEP(n) \
	__attribute__((noinline)) void path_##n(uint64_t *rng, int depth) \
	{ \
		next(rng, depth); \
		sink += n; \
	}
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)

struct job {
	uint64_t ns;
	int depth;
	uint64_t seed;
};

static void *run(void *arg)
{
	struct job *j = arg;
	uint64_t end = cpu_time_ns() + j->ns, rng = j->seed;
	int i;

	while (cpu_time_ns() < end)	/* a system call: one per 16 paths */
		for (i = 0; i < 16; i++)
			next(&rng, j->depth);
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t ns = (uint64_t)(argc > 1 ? atoi(argv[1]) : 3000) * 1000000ull;
	int depth = argc > 2 ? atoi(argv[2]) : 40, nr = argc > 3 ? atoi(argv[3]) : 2;
	pthread_t th[64];
	struct job jobs[64];
	int i;

	steps[0] = path_0; steps[1] = path_1; steps[2] = path_2; steps[3] = path_3;
	steps[4] = path_4; steps[5] = path_5; steps[6] = path_6; steps[7] = path_7;
	if (nr < 1 || nr > 64 || depth < 0 || depth > 10000)
		return 2;
	for (i = 0; i < nr; i++) {
		jobs[i] = (struct job){ ns, depth, 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1) };
		if (pthread_create(&th[i], NULL, run, &jobs[i]))
			return 1;
	}
	for (i = 0; i < nr; i++)
		pthread_join(th[i], NULL);
	return 0;
}
