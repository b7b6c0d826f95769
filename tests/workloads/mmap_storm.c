// SPDX-License-Identifier: MIT
/*
 * mmap_storm: a noisy neighbour for the side-band. Two processes (it forks
 * once) map and unmap an executable anonymous page as fast as they can:
 * every mmap is a PERF_RECORD_MMAP2 for whoever listens to every process.
 * They stop after the given milliseconds of wall time (default 5000); the
 * second also when the first is killed.
 *
 * usage: mmap_storm [MILLISECONDS]
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void storm(uint64_t end)
{
	long page = sysconf(_SC_PAGESIZE);

	while (wall_ns() < end) {
		for (int i = 0; i < 64; i++) {
			void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				exit(1);
			munmap(p, (size_t)page);
		}
	}
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000;
	uint64_t end = wall_ns() + ms * 1000000ull;
	pid_t child = fork();

	if (child < 0)
		return 1;
	if (child == 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1))
		return 0;
	storm(end);
	if (child == 0)
		return 0;
	waitpid(child, NULL, 0);
	return 0;
}
