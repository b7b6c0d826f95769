// SPDX-License-Identifier: MIT
/*
 * short_lived: spins in short_lived_work for the given milliseconds
 * (default 20) and exits. forker execs it to test that a process living
 * only a few milliseconds is still symbolized.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t sink;

__attribute__((noinline)) void short_lived_work(uint64_t ms)
{
	struct timespec ts;
	uint64_t end, now;
	volatile uint64_t acc[2] = { 3, 5 };

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + ms * 1000000ull;
	do {
		for (int i = 0; i < 10000; i++)
			acc[i & 1] = acc[i & 1] * 6364136223846793005ull + 7;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	} while (now < end);
	sink += acc[0];
}

int main(int argc, char **argv)
{
	short_lived_work(argc > 1 ? strtoull(argv[1], NULL, 10) : 20);
	return 0;
}
