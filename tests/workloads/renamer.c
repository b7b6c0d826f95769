// SPDX-License-Identifier: MIT
/*
 * renamer: a thread renaming itself in a loop (PR_SET_NAME) for SECONDS of
 * wall time, through NAMES names ("flip" and "flop" when 2, the default;
 * else "rn0", "rn1", ...), then prints how many renames it made. The
 * comm-flood attack of t0811 and t0816.
 *
 * usage: renamer SECONDS [NAMES]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

int main(int argc, char **argv)
{
	unsigned long n = 0, names = argc > 2 ? strtoul(argv[2], NULL, 10) : 2;
	long secs = argc > 1 ? atol(argv[1]) : 1;
	struct timespec t0, t;
	char name[16];

	if (!names || names > 100000)
		names = 100000;	/* "rn99999" fits a thread name */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (names == 2)
			snprintf(name, sizeof(name), "%s", n % 2 ? "flip" : "flop");
		else
			snprintf(name, sizeof(name), "rn%u", (unsigned int)(n % names) % 100000u);
		n++;
		prctl(PR_SET_NAME, name, 0, 0, 0);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < secs);
	printf("%lu\n", n);
	return 0;
}
