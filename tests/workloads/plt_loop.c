// SPDX-License-Identifier: MIT
/*
 * plt_loop: spends a known part of its time in a PLT stub and in an
 * assembly label, the two kinds of code that no symbol table sizes.
 *
 * usage: plt_loop [ROUNDS]   (default 2000, about 1 s of CPU)
 *
 * A fixed amount of work, not of time, so the number of CPU-clock samples
 * does not depend on how loaded the machine is.
 *
 * call_labs() calls libc's labs() through the PLT (built with -fno-builtin
 * so the call stays a call): the jmp of the stub, labs itself and the loop
 * share the time, so the stub "labs@plt" takes a steady part of the
 * samples. label_spin is a bare assembly label (STT_NOTYPE, size 0), as
 * in hand-written assembly and ld.so's _start, that burns the same amount
 * of CPU per round as call_labs.
 */
#include <stdlib.h>

#define ROUND 200000

volatile long sink;
static volatile int round_len = ROUND;

/* label_spin(n): counts n down; a label with no .type and no .size. */
__asm__(".text\n"
	".globl label_spin\n"
	"label_spin:\n"
	"	mov %edi, %ecx\n"
	"1:	dec %ecx\n"
	"	jnz 1b\n"
	"	ret\n");
void label_spin(unsigned int n);

/*
 * labs() is declared const, so a compiler may treat call_labs() as const
 * too and call it once for the whole loop: reading sink, and a length read
 * from a volatile (round_len), keep every call.
 */
__attribute__((noinline)) long call_labs(int n)
{
	long acc = sink & 1;

	for (int i = 0; i < n; i++)
		acc += labs(acc ^ (long)i);	/* through labs@plt */
	return acc;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;

	for (unsigned long r = 0; r < rounds; r++) {
		sink += call_labs(round_len);
		label_spin(ROUND * 4);
	}
	return 0;
}
