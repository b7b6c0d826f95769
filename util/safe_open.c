// SPDX-License-Identifier: MIT
/*
 * util/safe_open.c - open only regular files of bounded size, never block.
 *
 * stat(2) comes first so that a device is never opened (opening some has
 * side effects, and /dev/tty would become a controlling terminal without
 * O_NOCTTY); the fstat(2) after the open is the check that counts, since
 * the path may name something else by then. O_NONBLOCK makes the open of a
 * FIFO return at once; it changes nothing for a regular file, whose reads
 * never block on it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/safe_open.h"

static int check_type(const struct stat *st, uint64_t max_size)
{
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (!S_ISREG(st->st_mode))
		return -EFTYPE_NOT_REGULAR;
	if (max_size && (uint64_t)st->st_size > max_size)
		return -EFBIG;
	return 0;
}

int safe_open_regular(const char *path, uint64_t max_size, enum safe_open_flags flags,
		      struct stat *st)
{
	int oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	struct stat pre, post;
	int fd, err;

	if (flags & SAFE_OPEN_NOFOLLOW) {
		oflags |= O_NOFOLLOW;
		err = lstat(path, &pre);
	} else {
		err = stat(path, &pre);
	}
	if (err)
		return -errno;
	err = check_type(&pre, max_size);
	if (err)
		return err;
	fd = open(path, oflags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &post)) {
		err = -errno;
		close(fd);
		return err;
	}
	err = check_type(&post, max_size);
	if (err) {
		close(fd);
		return err;
	}
	if (st)
		*st = post;
	return fd;
}

int safe_open_in_root(int root_fd, const char *path, uint64_t max_size, struct stat *st)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct stat pre, post;
	char self[64];
	int pfd, fd, err;

	pfd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (pfd < 0)
		return -errno;
	err = fstat(pfd, &pre) ? -errno : check_type(&pre, max_size);
	if (err) {
		close(pfd);
		return err;
	}
	/* reopening the O_PATH descriptor opens that very inode, now known regular */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	close(pfd);
	if (err)
		return err;
	if (fstat(fd, &post)) {
		err = -errno;
		close(fd);
		return err;
	}
	err = check_type(&post, max_size);
	if (!err && (post.st_dev != pre.st_dev || post.st_ino != pre.st_ino))
		err = -ESTALE;
	if (err) {
		close(fd);
		return err;
	}
	if (st)
		*st = post;
	return fd;
}

const char *safe_open_strerror(int err)
{
	switch (err) {
	case -EISDIR:
		return "it is a directory";
	case -EFTYPE_NOT_REGULAR:
		return "it is not a regular file (a FIFO, socket or device)";
	case -EFBIG:
		return "it is larger than eprof reads";
	default:
		return strerror(-err);
	}
}
