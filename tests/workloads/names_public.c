// SPDX-License-Identifier: MIT
/*
 * names_public: a thread (its stack rooted in glibc's clone3) calls malloc,
 * free, fputs and mprotect, functions glibc also names by internal aliases
 * (__libc_malloc, _IO_fputs, __GI___mprotect, __GI___clone3), for the
 * given milliseconds of CPU time (default 1000; cpu_time.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "cpu_time.h"

static uint64_t ms = 1000;

static void *worker(void *arg)
{
	FILE *f = fopen("/dev/null", "w");
	char *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t end = cpu_time_ns() + ms * 1000000ull;
	volatile char *sink;
	int i;

	(void)arg;
	if (!f || page == MAP_FAILED)
		return NULL;
	while (cpu_time_ns() < end) {
		for (i = 0; i < 256; i++) {
			sink = malloc(64 + (size_t)i * 16);
			fputs("names", f);
			mprotect(page, 4096, (i & 1) ? PROT_READ : PROT_NONE);
			free((void *)sink);
		}
	}
	fclose(f);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		ms = strtoull(argv[1], NULL, 10);
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}
