// SPDX-License-Identifier: MIT
/*
 * dlopener: spins in before_dlopen for 0.5 s of CPU time, then dlopens
 * libhotlib.so (next to the executable) and spins in its hotlib_spin for
 * 0.5 s of CPU time (cpu_time.h), so the library is mapped only in the
 * middle of a recording.
 *
 * usage: dlopener [MS [THREADS]]
 *   THREADS: that many more threads, started first, that only sleep (a
 *   server's thread pool, for the side-band's per-thread events with -p).
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_time.h"

volatile uint64_t sink;

__attribute__((noinline)) void before_dlopen(uint64_t ms)
{
	volatile uint64_t acc[2] = { 3, 5 };
	uint64_t end = cpu_time_ns() + ms * 1000000ull;

	do {
		for (int i = 0; i < 10000; i++)
			acc[i & 1] = acc[i & 1] * 6364136223846793005ull + 7;
	} while (cpu_time_ns() < end);
	sink += acc[0];
}

static void *idle_thread(void *arg)
{
	for (;;)	/* until main returns */
		pause();
	return arg;
}

/* n sleeping threads with small stacks; 0 or -1 */
static int start_idle(unsigned long n)
{
	pthread_attr_t at;
	pthread_t t;

	if (pthread_attr_init(&at) || pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) ||
	    pthread_attr_setstacksize(&at, 64 * 1024))
		return -1;
	while (n--)
		if (pthread_create(&t, &at, idle_thread, NULL))
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 500;
	char path[PATH_MAX];
	uint64_t (*spin)(uint64_t);
	ssize_t n;
	void *h;

	if (argc > 2 && start_idle(strtoul(argv[2], NULL, 10))) {
		fprintf(stderr, "dlopener: cannot start %s threads\n", argv[2]);
		return 1;
	}
	before_dlopen(ms);
	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n <= 0)
		return 1;
	path[n] = '\0';
	strcpy(strrchr(path, '/') + 1, "libhotlib.so");
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 1;
	}
	spin = (uint64_t (*)(uint64_t))dlsym(h, "hotlib_spin");
	if (!spin)
		return 1;
	sink += spin(ms);
	return 0;
}
