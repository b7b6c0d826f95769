// SPDX-License-Identifier: MIT
/*
 * frameless: a hot leaf that uses no stack, so the compiler gives it no
 * frame even with -fno-omit-frame-pointer (built with
 * -momit-leaf-frame-pointer, as GCC and clang treat such leaves), called
 * from two callers in a known ratio: caller_a makes 7 of every 10 calls,
 * caller_b 3, each call the same work (70/30).
 * main -> run -> caller_a | caller_b -> leaf_mix
 *
 * A frame-pointer walk from inside leaf_mix reads the caller's saved frame
 * pointer, so it goes straight to run: the caller is lost. A table walk
 * looks the return address up at rsp and finds it.
 *
 * usage: frameless [ROUNDS]   (default 400)
 */
#include <stdint.h>
#include <stdlib.h>

#define LEAF_LOOPS 200000

volatile uint64_t sink;

/* Registers only: no push, no stack slot, no frame. */
__attribute__((noinline)) uint64_t leaf_mix(uint64_t x)
{
	for (int i = 0; i < LEAF_LOOPS; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) void caller_a(int calls)
{
	uint64_t x = 1;

	for (int i = 0; i < calls; i++)
		x = leaf_mix(x);
	sink += x;	/* work after the calls: no tail call */
}

__attribute__((noinline)) void caller_b(int calls)
{
	uint64_t x = 2;

	for (int i = 0; i < calls; i++)
		x = leaf_mix(x);
	sink += x;
}

__attribute__((noinline)) void run(int rounds)
{
	for (int r = 0; r < rounds; r++) {
		caller_a(7);
		caller_b(3);
	}
	sink++;
}

int main(int argc, char **argv)
{
	run(argc > 1 ? atoi(argv[1]) : 400);
	return 0;
}
