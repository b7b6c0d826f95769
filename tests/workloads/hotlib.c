// SPDX-License-Identifier: MIT
/*
 * hotlib: the shared library dlopener loads in the middle of a recording;
 * hotlib_spin is its hot function (it uses the stack, so it has a frame).
 */
#include <stdint.h>
#include <time.h>

__attribute__((noinline)) uint64_t hotlib_spin(uint64_t ms)
{
	volatile uint64_t acc[2] = { 7, 11 };
	struct timespec ts;
	uint64_t end, now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + ms * 1000000ull;
	do {
		for (int i = 0; i < 10000; i++)
			acc[i & 1] = acc[i & 1] * 2862933555777941757ull + 3037000493ull;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	} while (now < end);
	return acc[0];
}
