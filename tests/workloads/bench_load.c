// SPDX-License-Identifier: MIT
/*
 * bench_load: fixed amounts of work for bench/run.sh. Unlike known_split,
 * which runs for a set time, every mode here does a set amount of work, so
 * its wall time grows when a profiler slows it down.
 *
 * usage: bench_load cpu UNITS             one thread, 60/30/10 in work_a/b/c
 *        bench_load threads NTHREADS UNITS  UNITS shared by NTHREADS threads
 *        bench_load procs NPROCS UNITS     NPROCS short-lived processes, one
 *                                          after another (fork + exec of itself)
 *        bench_load deep DEPTH UNITS        UNITS done at the bottom of
 *                                          DEPTH nested calls (60+ frames)
 *        bench_load child UNITS            (used by procs)
 *
 * When it ends it appends one line to the file named by BENCH_REPORT (or
 * prints it on stderr): "bench_load MODE wall_ns=N cpu_ns=N", wall time from
 * its start to the end of the work, and the CPU time (user + system) of
 * itself and its children, so a benchmark can tell the workload's own time
 * and CPU from the profiler's.
 *
 * The hot leaves keep a volatile array on the stack so they set up a frame
 * (DESIGN.md, "What frame pointers miss").
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"

#define UNIT_LOOPS 20000

volatile uint64_t sink;

#define UNIT_BODY(units)                                                          \
	volatile uint64_t acc[4] = { 1, 2, 3, 4 };                                \
	for (long u = 0; u < (units); u++)                                        \
		for (int i = 0; i < UNIT_LOOPS; i++)                              \
			acc[i & 3] = acc[i & 3] * 2862933555777941757ull + 3037000493ull; \
	return acc[0] ^ acc[1] ^ acc[2] ^ acc[3]

__attribute__((noinline)) uint64_t work_a(long units) { UNIT_BODY(units); }
__attribute__((noinline)) uint64_t work_b(long units) { UNIT_BODY(units); }
__attribute__((noinline)) uint64_t work_c(long units) { UNIT_BODY(units); }

/* UNITS units of work, in rounds of 10 split 6/3/1. */
__attribute__((noinline)) uint64_t run_units(long units)
{
	uint64_t r = 0;

	for (long done = 0; done < units; done += 10) {
		r += work_a(6);
		r += work_b(3);
		r += work_c(1);
	}
	sink += r;
	return r;
}

__attribute__((noinline)) uint64_t descend(int depth, long units)
{
	uint64_t r;

	if (depth <= 0)
		r = run_units(units);
	else
		r = descend(depth - 1, units);
	sink += r + (uint64_t)depth;	/* no tail call: every level keeps its frame */
	return r;
}

static void *thread_main(void *arg)
{
	run_units((long)(intptr_t)arg);
	return NULL;
}

static int run_threads(int n, long units)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	int i, started = 0;

	if (!t)
		return 1;
	for (i = 0; i < n; i++) {
		if (pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)(units / n)))
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	return started == n ? 0 : 1;
}

static int run_procs(int n, long units)
{
	char arg[32], self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	/* exec the real path, so the children are called bench_load too */
	if (len <= 0)
		return 1;
	self[len] = '\0';
	snprintf(arg, sizeof(arg), "%ld", units);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0)
			return 1;
		if (pid == 0) {
			execl(self, "bench_load", "child", arg, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	return 0;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *path = getenv("BENCH_REPORT");
	long a = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	long b = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
	struct rusage self, kids;
	uint64_t start = now_ns(), wall, cpu;
	FILE *f;
	int err;

	if (!strcmp(mode, "child")) {
		run_units(a);
		return 0;
	}
	if (!strcmp(mode, "cpu") && a > 0)
		err = (run_units(a), 0);
	else if (!strcmp(mode, "threads") && a > 0 && b > 0)
		err = run_threads((int)a, b);
	else if (!strcmp(mode, "procs") && a > 0 && b > 0)
		err = run_procs((int)a, b);
	else if (!strcmp(mode, "deep") && a > 0 && b > 0)
		err = (descend((int)a, b), 0);
	else {
		fprintf(stderr, "usage: bench_load cpu UNITS | threads N UNITS | procs N UNITS | deep DEPTH UNITS\n");
		return 2;
	}
	wall = now_ns() - start;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	cpu = tv_ns(self.ru_utime) + tv_ns(self.ru_stime) + tv_ns(kids.ru_utime) + tv_ns(kids.ru_stime);
	f = path ? fopen(path, "a") : NULL;
	fprintf(f ? f : stderr, "bench_load %s wall_ns=%llu cpu_ns=%llu\n", mode,
		(unsigned long long)wall, (unsigned long long)cpu);
	if (f)
		fclose(f);
	return err;
}
