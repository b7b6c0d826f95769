// SPDX-License-Identifier: MIT
/*
 * record/target.c - starting the command to record, watching the processes.
 *
 * `eprof record -- CMD` forks a child that blocks on a pipe (the gate)
 * before it execs: the parent first puts the child's pid in the BPF target
 * set and enables the side-band and the sampler, then writes one byte, so
 * CMD is sampled from its first instruction and every mapping it makes is
 * seen. If the parent fails before that, it closes the gate and the child
 * exits without running anything.
 *
 * The command must not outlive a recorder killed with SIGKILL: the child
 * asks for SIGKILL when its parent dies (PR_SET_PDEATHSIG, kept across
 * exec) and checks that the parent did not die before it asked.
 *
 * A command that cannot be run is found before the recording is created
 * (target__check_cmd, as execvp(3) searches PATH), so a typo leaves no file
 * and does not move an existing one aside; an exec that fails anyway (a
 * missing ELF interpreter, say) is reported by the child through a
 * close-on-exec pipe, which reads EOF once the exec succeeded.
 *
 * Exits are noticed through pidfds in the recorder's epoll set, which wake
 * it at once (no polling interval adds to `eprof record -- true`).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/target.h"
#include "util/log.h"
#include "util/vec.h"

static void reap_child(struct target *t, int options);

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

void target__init(struct target *t)
{
	memset(t, 0, sizeof(*t));
	t->gate_fd = -1;
	t->exec_err_fd = -1;
}

static int add_watch(struct target *t, pid_t pid, int fd)
{
	size_t a = t->alloc, b = t->alloc;

	/* one size for both: vec__grow's follows from (alloc, need) */
	if (vec__grow(&t->pidfds, &a, t->nr + 1, sizeof(*t->pidfds)) ||
	    vec__grow(&t->pids, &b, t->nr + 1, sizeof(*t->pids)))
		return -ENOMEM;
	t->alloc = a;
	t->pidfds[t->nr] = fd;
	t->pids[t->nr] = pid;
	t->nr++;
	t->nr_alive++;
	return 0;
}

/* The Tgid line of /proc/PID/status; -ESRCH when there is no such task. */
static int read_tgid(pid_t pid, pid_t *tgid)
{
	char path[64], line[256];
	FILE *f;
	int found = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Tgid: %d", tgid) == 1) {
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

int target__watch_pids(struct target *t, const uint32_t *pids, size_t nr)
{
	size_t i;
	pid_t tgid;
	int fd, err;

	for (i = 0; i < nr; i++) {
		pid_t pid = (pid_t)pids[i];

		if (pid <= 0 || read_tgid(pid, &tgid)) {
			pr_err("no process with pid %u (check it with 'ps -p %u')", pids[i], pids[i]);
			return -ESRCH;
		}
		if (tgid != pid) {
			pr_err("%d is a thread of process %d (use -p %d)", (int)pid, (int)tgid,
			       (int)tgid);
			return -EINVAL;
		}
		fd = pidfd_open_(pid);
		if (fd < 0) {
			err = -errno;
			if (err == -ESRCH) {
				pr_err("no process with pid %d (check it with 'ps -p %d')", (int)pid, (int)pid);
				return err;
			}
			return pr_errno(err, "cannot watch process %d", (int)pid);
		}
		err = add_watch(t, pid, fd);
		if (err) {
			close(fd);
			return pr_errno(err, "cannot watch process %d", (int)pid);
		}
	}
	return 0;
}

/* Whether path can be exec'd: 0, or -errno as execve(2) would say it. */
static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || access(path, X_OK))
		return -EACCES;
	return 0;
}

int target__check_cmd(const char *file)
{
	char buf[4096], def[256];
	const char *path, *p, *end;
	int err, seen = -ENOENT;
	size_t len;

	if (!*file) {
		err = -ENOENT;
		goto fail;
	}
	if (strchr(file, '/')) {
		err = check_exec(file);
		if (err)
			goto fail;
		return 0;
	}
	path = getenv("PATH");
	if (!path) {	/* execvp's default */
		len = confstr(_CS_PATH, def, sizeof(def));
		path = len && len <= sizeof(def) ? def : "/bin:/usr/bin";
	}
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		len = (size_t)(end - p);
		if ((size_t)snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, p, len ? "/" : "",
				     file) < sizeof(buf)) {
			err = check_exec(buf);
			if (!err)
				return 0;
			if (err == -EACCES)
				seen = err;	/* found, not runnable: execvp says EACCES */
		}
		if (!*end)
			break;
	}
	err = seen;
fail:
	pr_err("cannot run '%s': %s", file, strerror(-err));
	return err;
}

/*
 * In the child: die with the parent, wait for its go, then become CMD.
 * Never returns; an exec failure goes to the parent as an errno on errfd.
 */
static void child_run(int gate, int errfd, pid_t parent, char **argv, uint64_t nofile)
{
	struct rlimit rl;
	ssize_t n;
	int e;
	char go;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(127);	/* the recorder is already gone */
	do {
		n = read(gate, &go, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);	/* the parent gave up: run nothing */
	close(gate);
	/* the limit eprof was started with, not the one it raised for itself */
	if (nofile && !getrlimit(RLIMIT_NOFILE, &rl) && nofile < rl.rlim_cur) {
		rl.rlim_cur = (rlim_t)nofile;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	execvp(argv[0], argv);
	e = errno;
	do {
		n = write(errfd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	_exit(e == ENOENT ? 127 : 126);
}

int target__fork(struct target *t, char **argv)
{
	int pipefd[2], errpipe[2], fd, err;
	pid_t pid, parent = getpid();
	char own[16] = "";	/* the kernel's TASK_COMM_LEN, NUL included */
	const char *base;

	if (pipe2(pipefd, O_CLOEXEC))
		return pr_errno(-errno, "cannot create a pipe");
	if (pipe2(errpipe, O_CLOEXEC)) {
		err = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return pr_errno(err, "cannot create a pipe");
	}
	fflush(NULL);
	/*
	 * Until its exec, the child is CMD to whoever looks, not "eprof": born
	 * with that name, so that no tick and no read of /proc/PID/comm (the
	 * recorder's, before the gate) sees another, even before it first runs.
	 */
	base = strrchr(argv[0], '/');
	prctl(PR_GET_NAME, own);
	prctl(PR_SET_NAME, base && base[1] ? base + 1 : argv[0]);
	pid = fork();
	if (pid && own[0])
		prctl(PR_SET_NAME, own);	/* the recorder is eprof again */
	if (pid < 0) {
		err = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		close(errpipe[0]);
		close(errpipe[1]);
		return pr_errno(err, "cannot start '%s'", argv[0]);
	}
	if (pid == 0) {
		close(pipefd[1]);
		close(errpipe[0]);
		child_run(pipefd[0], errpipe[1], parent, argv, t->child_nofile);
	}
	close(pipefd[0]);
	close(errpipe[1]);
	t->child = pid;
	t->gate_fd = pipefd[1];
	t->exec_err_fd = errpipe[0];
	t->cmd = argv[0];
	fd = pidfd_open_(pid);
	if (fd < 0)
		return pr_errno(-errno, "cannot watch the command (pid %d)", (int)pid);
	err = add_watch(t, pid, fd);
	if (err) {
		close(fd);
		return pr_errno(err, "cannot watch the command (pid %d)", (int)pid);
	}
	return 0;
}

int target__release(struct target *t)
{
	ssize_t n;
	int e = 0;

	if (t->gate_fd < 0)
		return 0;
	do {
		n = write(t->gate_fd, "g", 1);
	} while (n < 0 && errno == EINTR);
	close(t->gate_fd);
	t->gate_fd = -1;
	if (n != 1)
		return pr_errno(-errno, "cannot start the command");
	/* EOF: the exec succeeded (the pipe was close-on-exec) */
	do {
		n = read(t->exec_err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(t->exec_err_fd);
	t->exec_err_fd = -1;
	if (n == (ssize_t)sizeof(e) && e > 0) {
		pr_err("cannot run '%s': %s", t->cmd, strerror(e));
		reap_child(t, 0);
		return -e;
	}
	return 0;
}

static void reap_child(struct target *t, int options)
{
	int status;
	pid_t r;

	if (!t->child || t->child_reaped)
		return;
	do {
		r = waitpid(t->child, &status, options);
	} while (r < 0 && errno == EINTR);
	if (r == t->child) {
		t->child_reaped = true;
		t->child_status = status;
	}
}

void target__on_exit(struct target *t, size_t i)
{
	if (i >= t->nr || t->pidfds[i] < 0)
		return;
	close(t->pidfds[i]);
	t->pidfds[i] = -1;
	t->nr_alive--;
	if (t->pids[i] == t->child)
		reap_child(t, 0);	/* its pidfd is readable: it has exited */
}

void target__try_reap(struct target *t)
{
	reap_child(t, WNOHANG);
}

void target__abort_child(struct target *t)
{
	if (!t->child || t->child_reaped)
		return;
	if (t->gate_fd >= 0) {
		close(t->gate_fd);	/* the child reads EOF and exits */
		t->gate_fd = -1;
		reap_child(t, 0);
	}
}

void target__stop_child(struct target *t)
{
	int i;

	if (!t->child || t->child_reaped)
		return;
	kill(t->child, SIGTERM);
	for (i = 0; i < 200 && !t->child_reaped; i++) {	/* up to 2 s to exit cleanly */
		usleep(10000);
		reap_child(t, WNOHANG);
	}
	if (!t->child_reaped) {
		kill(t->child, SIGKILL);
		reap_child(t, 0);
	}
}

void target__release_fds(struct target *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->pidfds[i] >= 0)
			close(t->pidfds[i]);
	free(t->pidfds);
	free(t->pids);
	if (t->gate_fd >= 0)
		close(t->gate_fd);
	if (t->exec_err_fd >= 0)
		close(t->exec_err_fd);
	t->exec_err_fd = -1;
	t->pidfds = NULL;
	t->pids = NULL;
	t->nr = 0;
	t->gate_fd = -1;
}
