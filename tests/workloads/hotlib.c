// SPDX-License-Identifier: MIT
/*
 * hotlib: the shared library dlopener loads in the middle of a recording;
 * hotlib_spin is its hot function (it uses the stack, so it has a frame).
 * It spins for ms milliseconds of CPU time (cpu_time.h).
 */
#include <stdint.h>

#include "cpu_time.h"

__attribute__((noinline)) uint64_t hotlib_spin(uint64_t ms)
{
	volatile uint64_t acc[2] = { 7, 11 };
	uint64_t end = cpu_time_ns() + ms * 1000000ull;

	do {
		for (int i = 0; i < 10000; i++)
			acc[i & 1] = acc[i & 1] * 2862933555777941757ull + 3037000493ull;
	} while (cpu_time_ns() < end);
	return acc[0];
}
