// SPDX-License-Identifier: MIT
/*
 * known_split: burns CPU in three functions whose split is known by
 * construction: work_a spins for 6, work_b 3, work_c 1 units of its own
 * thread's CPU time per round (60/30/10), reached through main ->
 * run_workload -> dispatch. Units of time, not of loop iterations: the same
 * loop runs a few percent faster or slower at another code address, and a
 * count of iterations made a 60% share 62.6% on a quiet machine.
 *
 * usage: known_split [MILLISECONDS]   (of CPU time, default 2000; cpu_time.h)
 *
 * The leaves keep a volatile array on the stack so that they set up a frame
 * even where the compiler would omit it in a leaf (DESIGN.md, "What frame
 * pointers miss"); nothing is a tail call, so each caller keeps its frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_time.h"

/*
 * Of the thread's CPU time. A round (10 units, 31 ms) spans many sampling
 * periods and is a multiple of none of the usual ones: a 1 ms round at
 * -F 999 put every sample at nearly the same phase of the round for
 * seconds, and a 60% share read anywhere from 56% to 65%.
 */
#define UNIT_NS		3100000ull
#define CHUNK_LOOPS	2000		/* between clock reads: a few microseconds */

volatile uint64_t sink;

#define UNIT_BODY(units)                                              \
	volatile uint64_t acc[4] = { 1, 2, 3, 4 };                    \
	uint64_t end = cpu_time_ns() + (uint64_t)(units) * UNIT_NS;   \
	do {                                                          \
		for (int i = 0; i < CHUNK_LOOPS; i++)                 \
			acc[i & 3] = acc[i & 3] * 2862933555777941757ull + 3037000493ull; \
	} while (cpu_time_ns() < end);                                \
	return acc[0] ^ acc[1] ^ acc[2] ^ acc[3]

__attribute__((noinline)) uint64_t work_a(int units) { UNIT_BODY(units); }
__attribute__((noinline)) uint64_t work_b(int units) { UNIT_BODY(units); }
__attribute__((noinline)) uint64_t work_c(int units) { UNIT_BODY(units); }

__attribute__((noinline)) uint64_t dispatch(int which)
{
	uint64_t r;

	switch (which) {
	case 0:
		r = work_a(6);
		break;
	case 1:
		r = work_b(3);
		break;
	default:
		r = work_c(1);
		break;
	}
	sink += r;	/* work after the call: no tail call, dispatch keeps its frame */
	return r;
}

__attribute__((noinline)) uint64_t run_workload(uint64_t ms)
{
	uint64_t end = cpu_time_ns() + ms * 1000000ull, total = 0;

	while (cpu_time_ns() < end) {
		total += dispatch(0);
		total += dispatch(1);
		total += dispatch(2);
	}
	sink += total;
	return total;
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000;

	run_workload(ms);
	return (int)(sink & 0);
}
