// SPDX-License-Identifier: MIT
/*
 * forker: a parent that runs MILLISECONDS / 100 rounds; in each round it
 * starts a short-lived child that spins for 20 ms and exits, spins 100 ms
 * in parent_work, and reaps the child. The child spins in child_work (fork
 * only), or in another program when a path is given (fork + exec of that
 * program with argument "20"). Every spin is CPU time (cpu_time.h), so each
 * round is the same work however busy the machine is.
 *
 * usage: forker MILLISECONDS [EXEC_PATH]
 * Prints its pid on stdout first, so a test can attach with -p.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu_time.h"

volatile uint64_t sink;

__attribute__((noinline)) void spin_for(uint64_t ms)
{
	volatile uint64_t acc[2] = { 1, 2 };
	uint64_t end = cpu_time_ns() + ms * 1000000ull;

	while (cpu_time_ns() < end)
		for (int i = 0; i < 10000; i++)
			acc[i & 1] = acc[i & 1] * 6364136223846793005ull + 1;
	sink += acc[0];
}

__attribute__((noinline)) void child_work(uint64_t ms)
{
	spin_for(ms);
	sink++;
}

__attribute__((noinline)) void parent_work(uint64_t ms)
{
	spin_for(ms);
	sink++;
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 3000, round;
	const char *exec_path = argc > 2 ? argv[2] : NULL;
	pid_t pid;

	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (round = 0; round < ms / 100; round++) {
		pid = fork();
		if (pid == 0) {
			if (exec_path) {
				execl(exec_path, exec_path, "20", (char *)NULL);
				_exit(127);
			}
			child_work(20);
			_exit(0);
		}
		parent_work(100);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return 0;
}
