// SPDX-License-Identifier: MIT
/*
 * short_lived: spins in short_lived_work for the given milliseconds of CPU
 * time (default 20; cpu_time.h) and exits. forker execs it to test that a process living
 * only a few milliseconds is still symbolized.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cpu_time.h"

volatile uint64_t sink;

__attribute__((noinline)) void short_lived_work(uint64_t ms)
{
	uint64_t end = cpu_time_ns() + ms * 1000000ull;
	volatile uint64_t acc[2] = { 3, 5 };

	do {
		for (int i = 0; i < 10000; i++)
			acc[i & 1] = acc[i & 1] * 6364136223846793005ull + 7;
	} while (cpu_time_ns() < end);
	sink += acc[0];
}

int main(int argc, char **argv)
{
	short_lived_work(argc > 1 ? strtoull(argv[1], NULL, 10) : 20);
	return 0;
}
