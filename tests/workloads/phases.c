// SPDX-License-Identifier: MIT
/*
 * phases: burns CPU in phase_a for the first half of its run, then in
 * phase_b for the second half, so a report split in time must see one
 * function, then the other.
 *
 * usage: phases [MILLISECONDS]   (default 4000)
 *
 * The leaves keep a volatile array on the stack so they set up a frame
 * (DESIGN.md, "What frame pointers miss").
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define SPIN_BODY(until)                                                           \
	volatile uint64_t acc[4] = { 1, 2, 3, 4 };                                 \
	while (now_ns() < (until))                                                 \
		for (int i = 0; i < 20000; i++)                                    \
			acc[i & 3] = acc[i & 3] * 2862933555777941757ull + 3037000493ull; \
	return acc[0] ^ acc[1] ^ acc[2] ^ acc[3]

__attribute__((noinline)) uint64_t phase_a(uint64_t until) { SPIN_BODY(until); }
__attribute__((noinline)) uint64_t phase_b(uint64_t until) { SPIN_BODY(until); }

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 4000;
	uint64_t start = now_ns(), half = start + ms * 500000ull, end = start + ms * 1000000ull;

	sink += phase_a(half);
	sink += phase_b(end);
	return (int)(sink & 0);
}
