// SPDX-License-Identifier: MIT
/*
 * vdso_clock: the hot work is reading the clock, which glibc does in the
 * vDSO (clock_gettime there reads the TSC without entering the kernel).
 * main -> run -> read_clocks calls clock_gettime(CLOCK_MONOTONIC) in a
 * tight loop, so most samples have vDSO frames on top and a stack that
 * must be unwound through the vDSO (which has no file, only an image in
 * memory) back to read_clocks, run, main and _start.
 *
 * usage: vdso_clock [MILLISECONDS]   (default 1000; of CPU time, cpu_time.h)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_time.h"

volatile uint64_t sink;

__attribute__((noinline)) void read_clocks(uint64_t ns)
{
	uint64_t end = cpu_time_ns() + ns;
	struct timespec ts;

	do {
		for (int i = 0; i < 1000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += (uint64_t)ts.tv_nsec;
		}
	} while (cpu_time_ns() < end);
}

__attribute__((noinline)) void run(uint64_t ns)
{
	read_clocks(ns);
	sink++;		/* no tail call: run keeps its frame */
}

int main(int argc, char **argv)
{
	run((uint64_t)(argc > 1 ? atoi(argv[1]) : 1000) * 1000000ull);
	return 0;
}
