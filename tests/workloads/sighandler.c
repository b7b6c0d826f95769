// SPDX-License-Identifier: MIT
/*
 * sighandler: the hot work runs in a signal handler. main -> run raises
 * SIGUSR1 again and again; the handler spins in handler_work. A stack
 * sampled in handler_work goes through the kernel's signal frame (the
 * sigreturn trampoline) back to raise() and run and main.
 *
 * usage: sighandler [SIGNALS]   (default 600)
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WORK_LOOPS 300000

volatile uint64_t sink;

__attribute__((noinline)) void handler_work(void)
{
	volatile uint64_t acc[2] = { 3, 5 };

	for (int i = 0; i < WORK_LOOPS; i++)
		acc[i & 1] = acc[i & 1] * 2862933555777941757ull + 3037000493ull;
	sink += acc[0] ^ acc[1];
}

static void on_usr1(int sig)
{
	(void)sig;
	handler_work();
}

__attribute__((noinline)) void run(int signals)
{
	for (int i = 0; i < signals; i++)
		raise(SIGUSR1);
	sink++;
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	run(argc > 1 ? atoi(argv[1]) : 600);
	return 0;
}
