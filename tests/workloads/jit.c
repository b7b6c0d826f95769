// SPDX-License-Identifier: MIT
/*
 * jit: copies a tiny counted loop (x86-64 machine code) into an executable
 * anonymous page, announces it in /tmp/perf-PID.map as jit_hot_loop, and
 * calls it for the given milliseconds of CPU time (default 1000;
 * cpu_time.h). The map is left for the caller to remove. With a second
 * argument GO, it waits (up to 60 s) for the file GO to exist between
 * writing the map and running, so that a test can change the map first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu_time.h"

/* mov ecx, 200000; 1: dec ecx; jnz 1b; ret */
static const unsigned char code[] = { 0xb9, 0x40, 0x0d, 0x03, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000, end;
	char path[64];
	void (*fn)(void);
	FILE *f;
	void *p;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_hot_loop\n", (unsigned long)(uintptr_t)p, sizeof(code));
	fclose(f);
	for (int i = 0; argc > 2 && i < 60000 && access(argv[2], F_OK); i++)
		usleep(1000);
	fn = (void (*)(void))p;
	end = cpu_time_ns() + ms * 1000000ull;
	while (cpu_time_ns() < end)
		fn();
	return 0;
}
