// SPDX-License-Identifier: MIT
/*
 * forker: a long-running parent that spins in parent_work and, every
 * 100 ms, starts a short-lived child that spins for 20 ms and exits:
 * in child_work (fork only), or in another program when a path is given
 * (fork + exec of that program with argument "20").
 *
 * usage: forker MILLISECONDS [EXEC_PATH]
 * Prints its pid on stdout first, so a test can attach with -p.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void spin_until(uint64_t end)
{
	volatile uint64_t acc[2] = { 1, 2 };

	while (now_ns() < end)
		for (int i = 0; i < 10000; i++)
			acc[i & 1] = acc[i & 1] * 6364136223846793005ull + 1;
	sink += acc[0];
}

__attribute__((noinline)) void child_work(uint64_t ms)
{
	spin_until(now_ns() + ms * 1000000ull);
	sink++;
}

__attribute__((noinline)) void parent_work(uint64_t ms)
{
	spin_until(now_ns() + ms * 1000000ull);
	sink++;
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 3000;
	const char *exec_path = argc > 2 ? argv[2] : NULL;
	uint64_t end;
	pid_t pid;

	printf("%d\n", (int)getpid());
	fflush(stdout);
	end = now_ns() + ms * 1000000ull;
	while (now_ns() < end) {
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
