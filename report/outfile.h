/* SPDX-License-Identifier: MIT */
/*
 * report/outfile.h - the file a view writes (-o, --svg, --pprof, --html):
 * never one of the recordings it reads, and never left half written.
 */
#ifndef EPROF_REPORT_OUTFILE_H
#define EPROF_REPORT_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct outfile {
	FILE *f;
	const char *path;	/* the name asked for */
	char *tmp;		/* where it is written until it is complete; NULL: path itself */
};

/*
 * Refuses (one line, -EINVAL) an output path that names one of the nr
 * inputs: the same path, or the same file (device and inode) by another
 * name or link.
 */
int outfile__check(const char *path, const char *const *inputs, size_t nr);

/*
 * Opens what path's view is written to: a regular file (or none yet) is
 * written as a new file beside it and renamed over it by outfile__commit,
 * so a failing view leaves the old file, or none; anything else (a
 * terminal, /dev/null, a FIFO) is written directly. Printed errors.
 */
int outfile__open(struct outfile *o, const char *path);
/* Closes and puts the file in place (printed errors); o is released either way. */
int outfile__commit(struct outfile *o);
/* Closes and removes what was written; nothing if o was not opened. */
void outfile__abort(struct outfile *o);

#endif
