// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_tablecache.c - format/tablecache.c: an entry comes back
 * only for its own key, whole; a damaged one is refused and removed; the
 * directory stays under its bound, the least recently used entries first.
 * Runs as root (the cache is root's) or skips the checks that need it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/tablecache.h"
#include "tests/unit/harness.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/eprof-tc.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static struct table_cache_key key_of(uint64_t ino)
{
	struct table_cache_key k = { .dev = 0xfe00, .ino = ino, .ctime_ns = 123456789, .size = 4096,
				     .build_id = { 0xab, 0xcd, 0xef }, .build_id_len = 3 };
	return k;
}

static void round_trip_by_key_only(void)
{
	struct table_cache *c;
	struct table_cache_key k = key_of(7), other = key_of(7);
	uint32_t rows[300], *got;
	size_t nr, i;

	if (geteuid())
		return;
	make_dir();
	for (i = 0; i < 300; i++)
		rows[i] = (uint32_t)(i * 3);
	CHECK_OK(table_cache__open(dir, 0, &c));
	CHECK_EQ_U64(table_cache__get(c, &k, 4, 1000, (void **)&got, &nr), -ENOENT);
	CHECK(!table_cache__has(c, &k));
	CHECK_OK(table_cache__put(c, &k, rows, 300, 4));
	CHECK(table_cache__has(c, &k));
	CHECK_OK(table_cache__get(c, &k, 4, 1000, (void **)&got, &nr));
	CHECK_EQ_U64(nr, 300);
	CHECK(!memcmp(got, rows, sizeof(rows)));
	free(got);
	/* the same build-id on another file (ctime) finds nothing */
	other.ctime_ns++;
	CHECK(!table_cache__has(c, &other));
	CHECK_EQ_U64(table_cache__get(c, &other, 4, 1000, (void **)&got, &nr), -ENOENT);
	/* rows of another size, or more than the caller takes, are refused */
	CHECK_EQ_U64(table_cache__get(c, &k, 8, 1000, (void **)&got, &nr), -EBADMSG);
	CHECK_OK(table_cache__put(c, &k, rows, 300, 4));
	CHECK_EQ_U64(table_cache__get(c, &k, 4, 100, (void **)&got, &nr), -EBADMSG);
	table_cache__close(c);
	remove_dir();
}

/* Every byte of an entry flipped in turn: refused (or, for an unused header byte, whole). */
static void damage_is_refused(void)
{
	struct table_cache *c;
	struct table_cache_key k = key_of(9);
	uint32_t rows[64], *got;
	char path[256];
	struct stat st;
	size_t nr, i;
	off_t pos;
	int fd;

	if (geteuid())
		return;
	make_dir();
	for (i = 0; i < 64; i++)
		rows[i] = (uint32_t)(i * i);
	CHECK_OK(table_cache__open(dir, 0, &c));
	CHECK_OK(table_cache__put(c, &k, rows, 64, 4));
	snprintf(path, sizeof(path), "%s/abcdef-fe00-9-75bcd15-1000.tab", dir);
	CHECK_OK(stat(path, &st));
	CHECK_EQ_U64(st.st_mode & 0777, 0600);
	for (pos = 0; pos < st.st_size; pos += 3) {
		unsigned char b;
		int err;

		CHECK_OK(table_cache__put(c, &k, rows, 64, 4));
		fd = open(path, O_RDWR);
		CHECK(fd >= 0);
		CHECK(pread(fd, &b, 1, pos) == 1);
		b ^= 0x5a;
		CHECK(pwrite(fd, &b, 1, pos) == 1);
		close(fd);
		err = table_cache__get(c, &k, 4, 1000, (void **)&got, &nr);
		if (!err) {
			/* the rows themselves are never taken damaged */
			CHECK_EQ_U64(nr, 64);
			CHECK(!memcmp(got, rows, sizeof(rows)));
			free(got);
		} else {
			CHECK_EQ_U64(err, -EBADMSG);
			CHECK(access(path, F_OK) != 0);	/* removed */
		}
	}
	/* a file another user could have written is not taken */
	CHECK_OK(table_cache__put(c, &k, rows, 64, 4));
	CHECK_OK(chmod(path, 0644));
	CHECK_EQ_U64(table_cache__get(c, &k, 4, 1000, (void **)&got, &nr), -EBADMSG);
	table_cache__close(c);
	remove_dir();
}

static void bounded_and_refuses_open_dirs(void)
{
	struct table_cache *c;
	struct table_cache_key k;
	static uint32_t rows[40000];
	uint32_t *got;
	char sub[128];
	size_t nr, i;

	if (geteuid())
		return;
	make_dir();
	for (i = 0; i < 40000; i++)
		rows[i] = (uint32_t)(i * 2654435761u);	/* incompressible enough */
	/* room for about two entries of ~160 KB */
	CHECK_OK(table_cache__open(dir, 400000, &c));
	for (i = 1; i <= 4; i++) {
		k = key_of(i);
		CHECK_OK(table_cache__put(c, &k, rows, 40000, 4));
		usleep(20000);		/* distinct modification times */
	}
	k = key_of(1);
	CHECK_EQ_U64(table_cache__get(c, &k, 4, 40000, (void **)&got, &nr), -ENOENT);
	k = key_of(4);
	CHECK_OK(table_cache__get(c, &k, 4, 40000, (void **)&got, &nr));
	free(got);
	table_cache__close(c);
	/* a directory others may write, or a relative path, is refused */
	snprintf(sub, sizeof(sub), "%s/open", dir);
	CHECK_OK(mkdir(sub, 0777));
	CHECK_OK(chmod(sub, 0777));
	CHECK_EQ_U64(table_cache__open(sub, 0, &c), -EPERM);
	CHECK_EQ_U64(table_cache__open("tmp/x", 0, &c), -EINVAL);
	snprintf(sub, sizeof(sub), "%s/../x", dir);
	CHECK_EQ_U64(table_cache__open(sub, 0, &c), -EINVAL);
	remove_dir();
}

static const struct test tests[] = {
	{ "an entry comes back for its own key only, whole", round_trip_by_key_only },
	{ "a damaged or open entry is refused and removed", damage_is_refused },
	{ "the directory is bounded; open directories are refused", bounded_and_refuses_open_dirs },
};

int main(void)
{
	return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
