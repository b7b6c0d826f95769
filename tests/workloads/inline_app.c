// SPDX-License-Identifier: MIT
/*
 * inline_app: its hot loop is a static inline function forced inline into
 * outer_work, so only DWARF knows it exists. The build strips the binary
 * and keeps its DWARF in a separate debug file (workloads.cmake). It runs
 * for the given milliseconds of CPU time (default 1000; cpu_time.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "cpu_time.h"

volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t inlined_mix(uint64_t x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ull + (uint64_t)i;
	return x;
}

__attribute__((noinline)) uint64_t outer_work(uint64_t ms)
{
	volatile uint64_t acc[2] = { 1, 2 };
	uint64_t end = cpu_time_ns() + ms * 1000000ull;

	do {
		acc[0] = inlined_mix(acc[0]);
	} while (cpu_time_ns() < end);
	return acc[0] + acc[1];
}

int main(int argc, char **argv)
{
	sink = outer_work(argc > 1 ? strtoull(argv[1], NULL, 10) : 1000);
	return 0;
}
