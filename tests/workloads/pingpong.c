// SPDX-License-Identifier: MIT
/*
 * pingpong: two threads hand one byte back and forth over two pipes,
 * ROUNDS round trips, so that each hand-off is a context switch: the
 * context-switch-heavy workload of bench/offcpu.sh (issue 12). Pinned to
 * one CPU (taskset -c N), every hand-off switches directly from one
 * thread to the other.
 *
 * usage: pingpong ROUNDS
 * prints "pingpong rounds R wall_ns W cpu_ns C switches S": its wall time,
 * the CPU time of its threads and their context switches (getrusage).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cpu_time.h"

static int ping[2], pong[2];
static uint64_t rounds;

static void *ponger(void *arg)
{
	char c;

	(void)arg;
	for (uint64_t i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(2);
	return NULL;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	pthread_t t;
	uint64_t t0, t1;
	char c = 'x';

	if (argc != 2 || !(rounds = strtoull(argv[1], NULL, 10))) {
		fprintf(stderr, "usage: pingpong ROUNDS\n");
		return 2;
	}
	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, ponger, NULL))
		return 2;
	t0 = now_ns();
	for (uint64_t i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 2;
	t1 = now_ns();
	pthread_join(t, NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("pingpong rounds %llu wall_ns %llu cpu_ns %llu switches %ld\n",
	       (unsigned long long)rounds, (unsigned long long)(t1 - t0),
	       (unsigned long long)((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
				    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull),
	       ru.ru_nvcsw + ru.ru_nivcsw);
	return 0;
}
