// SPDX-License-Identifier: MIT
/*
 * ratio: work_x, work_y and work_z do X, Y and Z units of identical work
 * per round, so their shares are X:Y:Z by construction; two runs with
 * different units make a known differential profile.
 *
 * usage: ratio MILLISECONDS X Y Z   (of CPU time, cpu_time.h; e.g. 3000 2 3 3,
 * then 3000 4 2 2: work_x's share doubles from 25% to 50%)
 */
#include <stdint.h>
#include <stdlib.h>

#include "cpu_time.h"

volatile uint64_t sink;

#define UNIT_BODY(units)                                                           \
	volatile uint64_t acc[4] = { 1, 2, 3, 4 };                                 \
	for (int u = 0; u < (units); u++)                                          \
		for (int i = 0; i < 20000; i++)                                    \
			acc[i & 3] = acc[i & 3] * 2862933555777941757ull + 3037000493ull; \
	return acc[0] ^ acc[1] ^ acc[2] ^ acc[3]

__attribute__((noinline)) uint64_t work_x(int units) { UNIT_BODY(units); }
__attribute__((noinline)) uint64_t work_y(int units) { UNIT_BODY(units); }
__attribute__((noinline)) uint64_t work_z(int units) { UNIT_BODY(units); }

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 3000, end;
	int x = argc > 2 ? atoi(argv[2]) : 1, y = argc > 3 ? atoi(argv[3]) : 1;
	int z = argc > 4 ? atoi(argv[4]) : 1;

	end = cpu_time_ns() + ms * 1000000ull;
	while (cpu_time_ns() < end) {
		sink += work_x(x);
		sink += work_y(y);
		sink += work_z(z);
	}
	return (int)(sink & 0);
}
