// SPDX-License-Identifier: MIT
/*
 * fork_after_dlopen: loads a library on CPU 1, then forks on CPU 0; the
 * child spins in the library's hotlib_spin. The side-band records of the
 * two CPUs arrive in separate buffers, so the recorder must not copy the
 * parent's mappings to the child before it has read the dlopen's mmap.
 *
 * usage: fork_after_dlopen LIBRARY [MILLISECONDS]   (of CPU time, default 500)
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* best effort on one CPU */
}

int main(int argc, char **argv)
{
	uint64_t (*spin)(uint64_t);
	void *lib;
	pid_t pid;

	if (argc < 2)
		return 2;
	pin(1);
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	spin = (uint64_t (*)(uint64_t))dlsym(lib, "hotlib_spin");
	if (!spin)
		return 1;
	pin(0);
	pid = fork();
	if (pid == 0) {
		spin(argc > 2 ? strtoull(argv[2], NULL, 10) : 500);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return 0;
}
