/* SPDX-License-Identifier: MIT */
/*
 * record/target.h - what is recorded: a command eprof starts (held at a
 * gate until sampling is ready), existing processes, or everything; and
 * how eprof notices that they are gone (pidfds, one per process).
 */
#ifndef EPROF_RECORD_TARGET_H
#define EPROF_RECORD_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct target {
	pid_t child;			/* -- CMD, or 0 */
	int gate_fd;			/* write end of the child's gate, or -1 */
	int exec_err_fd;		/* read end of the child's exec-error pipe, or -1 */
	const char *cmd;		/* argv[0] of -- CMD (borrowed) */
	int *pidfds;			/* one per watched process, -1 once it exited */
	pid_t *pids;
	size_t nr, alloc;
	size_t nr_alive;
	bool child_reaped;
	int child_status;		/* wait status, valid once child_reaped */
	uint64_t child_nofile;		/* soft RLIMIT_NOFILE CMD execs with; 0: eprof's */
};

void target__init(struct target *t);

/*
 * Checks that every pid names a live process (not a thread of another one)
 * and opens a pidfd for each. Prints "no process with pid N" and returns
 * -ESRCH when one does not exist.
 */
int target__watch_pids(struct target *t, const uint32_t *pids, size_t nr);

/*
 * Checks, before anything is created, that file (argv[0] of -- CMD) names
 * something execvp(3) could run: found in PATH (or as given, with a '/'),
 * a regular file, executable. Prints "cannot run 'FILE': REASON" and returns
 * -ENOENT or -EACCES otherwise.
 */
int target__check_cmd(const char *file);

/*
 * Forks the child that will exec argv; it waits at the gate until
 * target__release() (or exits with 127 when the gate is closed without it).
 */
int target__fork(struct target *t, char **argv);

/*
 * Lets the child exec and waits until it did. When the exec failed, prints
 * "cannot run 'CMD': REASON", reaps the child and returns -errno.
 */
int target__release(struct target *t);

/*
 * Called when pidfds[i] is readable: marks process i as gone and reaps the
 * child if it was it.
 */
void target__on_exit(struct target *t, size_t i);

/* Reaps the child if it has exited already, without waiting. */
void target__try_reap(struct target *t);

/* Kills and reaps a child that never passed the gate (setup failed). */
void target__abort_child(struct target *t);

/*
 * Ends a command still running: SIGTERM, then SIGKILL after 2 s; reaps it.
 * Only the command itself is signalled, as perf does, not its children.
 */
void target__stop_child(struct target *t);

/* Closes the fds. Accepts a zeroed or initialised target. */
void target__release_fds(struct target *t);

#endif
