// SPDX-License-Identifier: MIT
/*
 * bigcfi_run LIB: dlopens LIB (libbigcfi.so) and exits: a process that
 * maps it first and is gone by the time its code runs elsewhere.
 * bigcfi_run LIB GO MS: dlopens LIB, waits (10 s at most) until the file
 * GO exists, then spins in its big_run for MS milliseconds of CPU time.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile uint64_t sink;

int main(int argc, char **argv)
{
	uint64_t (*run)(uint64_t);
	void *h;
	int i;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: bigcfi_run LIB [GO MS]\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW);
	if (!h || !(run = (uint64_t (*)(uint64_t))dlsym(h, "big_run"))) {
		fprintf(stderr, "bigcfi_run: %s\n", dlerror());
		return 1;
	}
	if (argc == 2)
		return 0;
	for (i = 0; i < 1000 && access(argv[2], F_OK); i++)
		usleep(10000);
	sink = run(strtoull(argv[3], NULL, 10));
	return 0;
}
