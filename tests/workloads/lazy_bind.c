// SPDX-License-Identifier: MIT
/*
 * lazy_bind: calls the C library through its PLT the way a lazily bound
 * program makes its first call to each function. Run with LD_BIND_NOT=1,
 * ld.so never fills the GOT, so every call goes through its resolver:
 * _dl_runtime_resolve_xsavec (whose CFA is rbx-based: it realigns rsp for
 * XSAVEC and keeps its frame in rbx), then _dl_fixup and the symbol lookup.
 * Most of the time is spent there.
 *
 * call_a makes three calls for each one of call_b's, so the resolver's
 * samples split 75/25 between them. A fixed amount of work, not of time.
 *
 * usage: lazy_bind [ROUNDS]   (default 2000, about 1 s of CPU; it execs
 * itself again with LD_BIND_NOT=1 when that is not set)
 */
#include <stdlib.h>
#include <unistd.h>

#define CALLS 1000

volatile long sink;

__attribute__((noinline)) void call_a(int n)
{
	for (int i = 0; i < n; i++)
		sink += labs(sink ^ (long)i);	/* through labs@plt: built with -fno-builtin */
}

__attribute__((noinline)) void call_b(int n)
{
	for (int i = 0; i < n; i++)
		sink += labs(sink ^ (long)i);
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;

	if (!getenv("LD_BIND_NOT")) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0)
			return 127;
		self[n] = '\0';		/* by its own name: the comm stays lazy_bind */
		setenv("LD_BIND_NOT", "1", 1);
		execv(self, argv);
		return 127;
	}
	for (unsigned long r = 0; r < rounds; r++) {
		call_a(3 * CALLS);
		call_b(CALLS);
	}
	return 0;
}
