// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_hostile.c - what eprof does with files other users put
 * in its way: safe_open_regular() refuses FIFOs, devices, directories,
 * symlinks (when asked) and files over the bound, without blocking; the
 * jit_map_cut table round-trips, is replaced per process and map, and
 * lies in it are damage; a recording is created 0600 and a planted journal
 * symlink does not stop its commits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "format/recording.h"
#include "tests/unit/harness.h"
#include "util/escape.h"
#include "util/safe_open.h"

/* path_in() returns one buffer: keep a copy of each name. */
static char *path_dup(const char *name)
{
	return strdup(path_in(name));
}

static void safe_open_refuses_what_is_not_a_regular_file(void)
{
	char *fifo = path_dup("fifo"), *reg = path_dup("reg"), *link = path_dup("link");
	struct stat st;
	int fd;

	CHECK_OK(mkfifo(fifo, 0600));
	/* a FIFO without a writer: an open(2) without O_NONBLOCK would block here */
	CHECK_EQ_U64(safe_open_regular(fifo, 0, 0, NULL), -EFTYPE_NOT_REGULAR);
	CHECK_EQ_U64(safe_open_regular("/dev/null", 0, 0, NULL), -EFTYPE_NOT_REGULAR);
	CHECK_EQ_U64(safe_open_regular(test_dir(), 0, 0, NULL), -EISDIR);
	CHECK_EQ_U64(safe_open_regular(path_in("missing"), 0, 0, NULL), -ENOENT);

	fd = open(reg, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK(write(fd, "0123456789", 10) == 10);
	close(fd);
	fd = safe_open_regular(reg, 10, 0, &st);
	CHECK(fd >= 0);
	CHECK_EQ_U64(st.st_size, 10);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	CHECK_EQ_U64(safe_open_regular(reg, 9, 0, NULL), -EFBIG);

	CHECK_OK(symlink(reg, link));
	fd = safe_open_regular(link, 0, 0, NULL);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_U64(safe_open_regular(link, 0, SAFE_OPEN_NOFOLLOW, NULL), -EFTYPE_NOT_REGULAR);
	CHECK(strstr(safe_open_strerror(-EFTYPE_NOT_REGULAR), "not a regular file") != NULL);
	free(fifo);
	free(reg);
	free(link);
}

/* A symlink inside a process's root cannot lead out of it. */
static void safe_open_in_root_stays_inside(void)
{
	char *root = path_dup("root"), buf[700];
	int rfd, fd;

	CHECK_OK(mkdir(root, 0700));
	snprintf(buf, sizeof(buf), "%s/lib", root);
	CHECK_OK(mkdir(buf, 0700));
	snprintf(buf, sizeof(buf), "%s/lib/escape", root);
	CHECK_OK(symlink("/etc/os-release", buf));	/* exists on the host, not in root */
	snprintf(buf, sizeof(buf), "%s/lib/fifo", root);
	CHECK_OK(mkfifo(buf, 0600));
	snprintf(buf, sizeof(buf), "%s/lib/real", root);
	fd = open(buf, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	close(fd);
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(rfd >= 0);
	if (access("/etc/os-release", F_OK) == 0)
		CHECK_EQ_U64(safe_open_in_root(rfd, "/lib/escape", 0, NULL), -ENOENT);
	CHECK_EQ_U64(safe_open_in_root(rfd, "/lib/fifo", 0, NULL), -EFTYPE_NOT_REGULAR);
	CHECK_EQ_U64(safe_open_in_root(rfd, "/../../lib/../lib/fifo", 0, NULL), -EFTYPE_NOT_REGULAR);
	fd = safe_open_in_root(rfd, "/lib/real", 0, NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	close(rfd);
	free(root);
}

struct cuts {
	size_t n;
	struct rec_jit_cut last;
	char path[64];
};

static int on_cut(void *ctx, const struct rec_jit_cut *c)
{
	struct cuts *cs = ctx;

	cs->n++;
	cs->last = *c;
	snprintf(cs->path, sizeof(cs->path), "%s", c->path);
	cs->last.path = cs->path;
	return 0;
}

static int sql(const char *path, const char *stmt)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open(path, &db);

	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, stmt, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

static void jit_cuts_round_trip(void)
{
	const char *path = path_in("cut.eprof");
	struct rec_jit_cut a = { 42, "/tmp/perf-42.map", 1000, 20, 5000, 90, true };
	struct rec_jit_cut b = { 42, "/tmp/perf-42.map", 2000, 40, 9000, 150, false };
	struct recording *rec = NULL;
	struct stat st;
	struct cuts cs;

	CHECK_OK(recording__create(path, &rec));
	if (!rec)
		return;
	CHECK_OK(stat(path, &st));
	CHECK_EQ_U64(st.st_mode & 0777, 0600);
	CHECK_OK(recording__add_jit_cut(rec, &a));
	CHECK_OK(recording__commit(rec));
	CHECK_OK(recording__add_jit_cut(rec, &b));	/* the latest cut replaces the first */
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	rec = NULL;

	CHECK_OK(recording__open(path, &rec));
	memset(&cs, 0, sizeof(cs));
	if (rec)
		CHECK_OK(recording__for_each_jit_cut(rec, on_cut, &cs));
	recording__close(rec);
	rec = NULL;
	CHECK_EQ_U64(cs.n, 1);
	CHECK_EQ_U64(cs.last.tgid, 42);
	CHECK_STR(cs.last.path, "/tmp/perf-42.map");
	CHECK_EQ_U64(cs.last.kept_bytes, 2000);
	CHECK_EQ_U64(cs.last.kept_symbols, 40);
	CHECK_EQ_U64(cs.last.dropped_bytes, 9000);
	CHECK_EQ_U64(cs.last.dropped_lines, 150);
	CHECK(!cs.last.dropped_lines_exact);

	/* a count that cannot be (more symbols than bytes) is damage */
	CHECK_EQ_U64(sql(path, "UPDATE jit_map_cut SET kept_symbols = 3000"), SQLITE_OK);
	CHECK_OK(recording__open(path, &rec));
	if (rec)
		CHECK_EQ_U64(recording__for_each_jit_cut(rec, on_cut, &cs), -EBADMSG);
	recording__close(rec);
	rec = NULL;

	/* a v1 file has no cuts: one that has v2's tables was relabelled, and is damage */
	CHECK_EQ_U64(sql(path, "PRAGMA user_version = 1"), SQLITE_OK);
	CHECK_EQ_U64(recording__open(path, &rec), -EBADMSG);
	recording__close(rec);
}

/* A journal symlink planted after the recording started does not stop commits. */
static void planted_journal_does_not_stop_commits(void)
{
	char *path = path_dup("planted.eprof"), *target = path_dup("target");
	char journal[600];
	struct recording *rec = NULL;
	struct rec_sample s = { 0 };
	struct stat st;
	int i, fd;

	snprintf(journal, sizeof(journal), "%s-journal", path);
	fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	close(fd);
	CHECK_OK(recording__create(path, &rec));
	if (!rec)
		goto out;
	for (i = 0; i < 3; i++) {
		/* the journal is ours for the whole recording: it cannot be replaced */
		if (symlink(target, journal))
			CHECK_EQ_U64(errno, EEXIST);
		s.time_ns = (uint64_t)i;
		CHECK_OK(recording__add_sample(rec, &s));
		CHECK_OK(recording__commit(rec));
	}
	CHECK_OK(lstat(journal, &st));
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ_U64(st.st_mode & 0777, 0600);
	CHECK_OK(recording__finish(rec));
	recording__close(rec);
	CHECK(lstat(journal, &st) && errno == ENOENT);	/* removed at the end */
	CHECK_OK(stat(target, &st));
	CHECK_EQ_U64(st.st_size, 0);
out:
	free(path);
	free(target);
}

static void escape_is_terminal_safe(void)
{
	char out[64];
	size_t n;

	/* ESC [ 2 J, BEL, a C1 CSI (U+009B), a lone byte, a backslash; UTF-8 passes */
	n = escape_terminal(out, sizeof(out), "a\033[2J\a\xc2\x9b\xff\\\xc3\xa9", 12);
	CHECK(!strcmp(out, "a\\033[2J\\007\\302\\233\\377\\\\\xc3\xa9"));
	CHECK_EQ_U64(n, strlen(out));
	/* cut at a whole piece: never half an escape */
	n = escape_terminal(out, 4, "\033x", 2);
	CHECK(!strcmp(out, ""));
	CHECK_EQ_U64(n, 5);
	n = escape_terminal(out, 6, "\033x", 2);
	CHECK(!strcmp(out, "\\033x"));
}

static const struct test tests[] = {
	{ "escape_terminal: controls, C1, bad UTF-8 and backslash as \\ooo", escape_is_terminal_safe },
	{ "safe_open_regular refuses FIFOs, devices, directories, symlinks, big files",
	  safe_open_refuses_what_is_not_a_regular_file },
	{ "safe_open_in_root: symlinks stay inside, FIFOs refused", safe_open_in_root_stays_inside },
	{ "JIT map cuts round-trip; lies are damage; none in v1", jit_cuts_round_trip },
	{ "a planted journal symlink does not stop commits", planted_journal_does_not_stop_commits },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
