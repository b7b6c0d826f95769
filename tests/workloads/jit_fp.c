// SPDX-License-Identifier: MIT
/*
 * jit_fp: JIT code without CFI between two C functions with CFI, as a JIT
 * with frame pointers (a JVM with -XX:+PreserveFramePointer) lays it out.
 * main -> run_jit (C) -> a stub in an anonymous page mapped RW, written,
 * then made RX (push rbp; mov rbp, rsp; call the C function it is given;
 * pop rbp; ret) -> spin (C), which burns the given milliseconds of CPU time
 * (default 1000; cpu_time.h). No perf map is written: the stub is
 * anonymous code with no CFI, which a walker crosses only by its frame
 * pointer. x86-64 only; elsewhere it exits 2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu_time.h"

static volatile uint64_t sink;

__attribute__((noinline)) static void spin(uint64_t end)
{
	while (cpu_time_ns() < end)
		for (int i = 0; i < 10000; i++)
			sink += (uint64_t)i;
}

__attribute__((noinline)) static void run_jit(void (*stub)(void (*)(uint64_t), uint64_t),
					      uint64_t end)
{
	stub(spin, end);
	sink++;		/* not a tail call: run_jit stays on the stack */
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	static const unsigned char code[] = {
		0x55,			/* push rbp */
		0x48, 0x89, 0xe5,	/* mov rbp, rsp */
		0x48, 0x89, 0xf8,	/* mov rax, rdi: the function */
		0x48, 0x89, 0xf7,	/* mov rdi, rsi: its argument */
		0xff, 0xd0,		/* call rax */
		0x5d,			/* pop rbp */
		0xc3,			/* ret */
	};
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000;
	void (*stub)(void (*)(uint64_t), uint64_t);
	void *p;

	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return 1;
	memcpy(&stub, &p, sizeof(stub));
	run_jit(stub, cpu_time_ns() + ms * 1000000ull);
	return 0;
#else
	(void)argc;
	(void)argv;
	return 2;
#endif
}
