/* SPDX-License-Identifier: MIT */
/*
 * util/path.h - what a mapping's path names: record/ (which files to open
 * and capture) and report/ (which to symbolize from a file) must agree.
 */
#ifndef EPROF_UTIL_PATH_H
#define EPROF_UTIL_PATH_H

#include <stdbool.h>

/* A path of a file, not "//anon", "[vdso]", "[heap]" or a name the kernel made up. */
static inline bool is_file_path(const char *path)
{
	return path[0] == '/' && path[1] != '/';
}

#endif
