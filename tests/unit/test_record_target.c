// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_record_target.c - target bookkeeping (record/target.c)
 * with real processes and pidfds, no BPF: -p checks (no such process, a
 * thread instead of a process), the count of processes still alive, the
 * gate that holds -- CMD until sampling is ready (and runs nothing when
 * setup fails), a command that cannot run, the command's exit status, and
 * stopping a command that outlives the recording, including one that
 * ignores SIGTERM.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/target.h"
#include "tests/unit/harness.h"

/* Waits (up to 10 s) until watched process i has exited, then tells t. */
static void wait_exit(struct target *t, size_t i)
{
	struct pollfd p = { .fd = t->pidfds[i], .events = POLLIN };

	CHECK(poll(&p, 1, 10000) == 1);
	target__on_exit(t, i);
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static void *park(void *arg)
{
	int *fds = arg;
	pid_t tid = gettid();
	char c;

	CHECK(write(fds[1], &tid, sizeof(tid)) == sizeof(tid));
	CHECK(read(fds[0], &c, 1) == 0);	/* until the test closes the pipe */
	return NULL;
}

static void watch_pids_checks(void)
{
	struct target t;
	uint32_t none = 0x3fffffff;	/* above any pid_max */
	int to_main[2], to_thread[2], ends[2];
	pthread_t th;
	pid_t tid = 0;
	uint32_t u;

	target__init(&t);
	CHECK(target__watch_pids(&t, &none, 1) == -ESRCH);
	CHECK_EQ_U64(t.nr, 0);

	/* a thread of this process is not a process: -p names its tgid */
	CHECK_OK(pipe(to_main));
	CHECK_OK(pipe(to_thread));
	ends[0] = to_thread[0];		/* the thread reads here, writes its tid there */
	ends[1] = to_main[1];
	CHECK_OK(pthread_create(&th, NULL, park, ends));
	CHECK(read(to_main[0], &tid, sizeof(tid)) == sizeof(tid));
	u = (uint32_t)tid;
	CHECK(target__watch_pids(&t, &u, 1) == -EINVAL);
	close(to_thread[1]);
	pthread_join(th, NULL);
	close(to_thread[0]);
	close(to_main[0]);
	close(to_main[1]);

	u = (uint32_t)getpid();
	CHECK_OK(target__watch_pids(&t, &u, 1));
	CHECK_EQ_U64(t.nr, 1);
	CHECK_EQ_U64(t.nr_alive, 1);
	CHECK(t.pidfds[0] >= 0);
	CHECK_EQ_U64(t.child, 0);	/* -p starts nothing */
	target__release_fds(&t);
	CHECK_EQ_U64(t.nr, 0);
	target__release_fds(&t);	/* twice is harmless */
}

static void alive_count_follows_exits(void)
{
	struct target t;
	uint32_t pids[2];
	pid_t a, b;
	int status;

	target__init(&t);
	a = fork();
	if (a == 0)
		_exit(0);
	b = fork();
	if (b == 0) {
		pause();	/* until killed */
		_exit(0);
	}
	pids[0] = (uint32_t)a;
	pids[1] = (uint32_t)b;
	CHECK_OK(target__watch_pids(&t, pids, 2));
	CHECK_EQ_U64(t.nr_alive, 2);
	wait_exit(&t, 0);
	CHECK_EQ_U64(t.nr_alive, 1);
	CHECK(t.pidfds[0] == -1);
	target__on_exit(&t, 0);		/* the same exit again counts once */
	target__on_exit(&t, 7);		/* no such index */
	CHECK_EQ_U64(t.nr_alive, 1);
	kill(b, SIGKILL);
	wait_exit(&t, 1);
	CHECK_EQ_U64(t.nr_alive, 0);
	CHECK(!t.child_reaped);		/* not ours to reap: -p */
	CHECK(waitpid(a, &status, 0) == a);
	CHECK(waitpid(b, &status, 0) == b);
	target__release_fds(&t);
}

static void gate_holds_the_command(void)
{
	char sh[] = "sh", dash_c[] = "-c", script[256];
	char *argv[] = { sh, dash_c, script, NULL };
	struct target t;
	const char *mark = path_in("ran");

	snprintf(script, sizeof(script), "touch '%s'; exit 7", mark);
	target__init(&t);
	CHECK_OK(target__fork(&t, argv));
	CHECK(t.child > 0);
	CHECK_EQ_U64(t.nr_alive, 1);
	usleep(100000);
	CHECK(!exists(mark));		/* held at the gate */
	CHECK_OK(target__release(&t));
	wait_exit(&t, 0);
	CHECK(t.child_reaped);
	CHECK(WIFEXITED(t.child_status) && WEXITSTATUS(t.child_status) == 7);
	CHECK(exists(mark));
	CHECK_EQ_U64(t.nr_alive, 0);
	target__release_fds(&t);
}

static void closed_gate_runs_nothing(void)
{
	char touch[] = "touch", never[256];
	char *argv[] = { touch, never, NULL };
	struct target t;

	snprintf(never, sizeof(never), "%s", path_in("never"));
	target__init(&t);
	CHECK_OK(target__fork(&t, argv));
	target__abort_child(&t);	/* setup failed before the release */
	CHECK(t.child_reaped);
	CHECK(WIFEXITED(t.child_status) && WEXITSTATUS(t.child_status) == 127);
	CHECK(!exists(argv[1]));
	target__release_fds(&t);
}

/*
 * The command at its gate is CMD from its fork on, before it first runs
 * (it never shows as the recorder's name), and the recorder keeps its own.
 */
static void gate_child_has_the_command_name(void)
{
	char sh[] = "/bin/sh", dash_c[] = "-c", script[] = "exit 0";
	char *argv[] = { sh, dash_c, script, NULL };
	char own[16] = "", now[16] = "", comm[32] = "", path[64];
	struct target t;
	FILE *f;

	CHECK(!prctl(PR_GET_NAME, own));
	CHECK(!prctl(PR_SET_NAME, "unit-recorder"));
	target__init(&t);
	CHECK_OK(target__fork(&t, argv));
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)t.child);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(comm, sizeof(comm), f) != NULL);
		fclose(f);
	}
	CHECK(!strcmp(comm, "sh\n"));
	CHECK(!prctl(PR_GET_NAME, now));
	CHECK(!strcmp(now, "unit-recorder"));
	prctl(PR_SET_NAME, own);
	target__abort_child(&t);
	CHECK(t.child_reaped);
	target__release_fds(&t);
}

/* A command that cannot run is found before anything is created. */
static void check_cmd_as_execvp(void)
{
	const char *plain = path_in("not-executable");
	FILE *f = fopen(plain, "w");

	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK_OK(target__check_cmd("sh"));		/* through PATH */
	CHECK_OK(target__check_cmd("/bin/sh"));
	CHECK(target__check_cmd("eprof-no-such-command") == -ENOENT);
	CHECK(target__check_cmd("/nonexistent/eprof-test-command") == -ENOENT);
	CHECK(target__check_cmd("") == -ENOENT);
	CHECK(target__check_cmd(plain) == -EACCES);	/* exists, not executable */
	CHECK(target__check_cmd(test_dir()) == -EACCES);	/* a directory */
}

/* An exec that fails anyway is reported by release, and the child reaped. */
static void failed_exec_reported_by_release(void)
{
	char cmd[] = "/nonexistent/eprof-test-command";
	char *argv[] = { cmd, NULL };
	struct target t;

	target__init(&t);
	CHECK_OK(target__fork(&t, argv));
	CHECK(target__release(&t) == -ENOENT);
	CHECK(t.child_reaped);
	CHECK(WIFEXITED(t.child_status) && WEXITSTATUS(t.child_status) == 127);
	target__release_fds(&t);
}

static void stop_ends_a_running_command(void)
{
	char sleep_[] = "sleep", secs[] = "30";
	char *argv[] = { sleep_, secs, NULL };
	struct target t;

	target__init(&t);
	CHECK_OK(target__fork(&t, argv));
	CHECK_OK(target__release(&t));
	target__try_reap(&t);
	CHECK(!t.child_reaped);		/* still running: not waited for */
	target__stop_child(&t);
	CHECK(t.child_reaped);
	CHECK(WIFSIGNALED(t.child_status) && WTERMSIG(t.child_status) == SIGTERM);
	target__release_fds(&t);

	/*
	 * A command that ignores SIGTERM gets SIGKILL (after 2 s). An ignored
	 * signal stays ignored through fork and exec, so the child is deaf
	 * from its first instruction.
	 */
	target__init(&t);
	signal(SIGTERM, SIG_IGN);
	CHECK_OK(target__fork(&t, argv));
	signal(SIGTERM, SIG_DFL);
	CHECK_OK(target__release(&t));
	target__stop_child(&t);
	CHECK(t.child_reaped);
	CHECK(WIFSIGNALED(t.child_status) && WTERMSIG(t.child_status) == SIGKILL);
	target__release_fds(&t);
}

static const struct test tests[] = {
	{ "-p: no such process, a thread, a process", watch_pids_checks },
	{ "the alive count follows each exit once", alive_count_follows_exits },
	{ "the gate holds the command until released", gate_holds_the_command },
	{ "the command at its gate carries its name", gate_child_has_the_command_name },
	{ "a closed gate runs nothing and exits 127", closed_gate_runs_nothing },
	{ "commands are checked as execvp would run them", check_cmd_as_execvp },
	{ "a failed exec is reported by release", failed_exec_reported_by_release },
	{ "stop: SIGTERM, then SIGKILL for a deaf command", stop_ends_a_running_command },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
