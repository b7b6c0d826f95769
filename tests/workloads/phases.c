// SPDX-License-Identifier: MIT
/*
 * phases: burns CPU in phase_a for the first half of its work, then in
 * phase_b for the second half, so a report split in time must see one
 * function, then the other.
 *
 * usage: phases [MILLISECONDS]   (of CPU time, default 4000; cpu_time.h)
 *
 * On a busy machine the halves take longer than MILLISECONDS / 2 of wall
 * time each, so phases prints when it switched, "switch NS" (CLOCK_MONOTONIC,
 * the recording's clock), for a test to place its time windows.
 *
 * The leaves keep a volatile array on the stack so they set up a frame
 * (DESIGN.md, "What frame pointers miss").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_time.h"

volatile uint64_t sink;

#define SPIN_BODY(ns)                                                              \
	volatile uint64_t acc[4] = { 1, 2, 3, 4 };                                 \
	uint64_t end = cpu_time_ns() + (ns);                                       \
	while (cpu_time_ns() < end)                                                \
		for (int i = 0; i < 20000; i++)                                    \
			acc[i & 3] = acc[i & 3] * 2862933555777941757ull + 3037000493ull; \
	return acc[0] ^ acc[1] ^ acc[2] ^ acc[3]

__attribute__((noinline)) uint64_t phase_a(uint64_t ns) { SPIN_BODY(ns); }
__attribute__((noinline)) uint64_t phase_b(uint64_t ns) { SPIN_BODY(ns); }

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 4000;

	sink += phase_a(ms * 500000ull);
	printf("switch %llu\n", (unsigned long long)now_ns());
	fflush(stdout);
	sink += phase_b(ms * 500000ull);
	return (int)(sink & 0);
}
