/* SPDX-License-Identifier: MIT */
/*
 * util/safe_open.h - opening a file that some input named (a path in a
 * binary's .gnu_debuglink, a mapped file, /tmp/perf-PID.map, a path in a
 * recording) without letting whoever put it there hang or bloat eprof.
 *
 * A FIFO with no writer blocks open(2) forever, /dev/tty or /dev/zero block
 * or never end, a directory or a socket is not data. So the file is checked
 * with stat(2) before it is opened (a device is never opened at all), opened
 * O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC (a FIFO swapped in after the
 * check cannot block), and checked again with fstat(2) on what was opened.
 * Its size is bounded by the caller, who reads no more than that.
 */
#ifndef EPROF_UTIL_SAFE_OPEN_H
#define EPROF_UTIL_SAFE_OPEN_H

#include <stdint.h>
#include <sys/stat.h>

enum safe_open_flags {
	SAFE_OPEN_NOFOLLOW = 1u << 0,	/* refuse a symlink as the last component */
};

/*
 * Opens path for reading if it is a regular file of at most max_size bytes
 * (0: no bound). Returns the fd (O_CLOEXEC, the caller closes it) and fills
 * *st (may be NULL) from fstat of that fd; or -errno: the open's own error
 * (-ENOENT, -EACCES, ...), -EISDIR for a directory, -EFTYPE_NOT_REGULAR
 * (below) for a FIFO, socket or device (and a symlink with
 * SAFE_OPEN_NOFOLLOW), -EFBIG when the file is larger than max_size. Never
 * prints.
 */
int safe_open_regular(const char *path, uint64_t max_size, enum safe_open_flags flags,
		      struct stat *st);

/*
 * Like safe_open_regular(), for path (absolute or not) resolved inside the
 * directory root_fd as if it were "/" (openat2 RESOLVE_IN_ROOT, no magic
 * links): a symlink in a container's tree cannot lead out of it. The file
 * is looked at through O_PATH first, so a device is never opened. -ENOSYS
 * on kernels before 5.6.
 */
int safe_open_in_root(int root_fd, const char *path, uint64_t max_size, struct stat *st);

/* What safe_open_regular() returns for a FIFO, socket or device. */
#define EFTYPE_NOT_REGULAR	ENODEV

/* A short reason for a negative safe_open_regular() result, for messages. */
const char *safe_open_strerror(int err);

#endif
