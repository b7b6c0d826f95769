/* SPDX-License-Identifier: MIT */
/*
 * util/strbuf.h - a growable, always NUL-terminated string.
 *
 * struct strbuf sb = STRBUF_INIT; strbuf_addf(&sb, ...); use sb.buf;
 * strbuf_release(&sb). An allocation failure is sticky: sb.oom is set, later
 * appends do nothing, and the caller checks it once at the end.
 */
#ifndef EPROF_UTIL_STRBUF_H
#define EPROF_UTIL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *buf;	/* never NULL: points at "" until something is added */
	size_t len;
	size_t alloc;
	bool oom;
};

extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0, false }

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Keeps the allocation, sets the length to len (<= current length). */
void strbuf_setlen(struct strbuf *sb, size_t len);
void strbuf_reset(struct strbuf *sb);
/* Hands the buffer to the caller (free() it); sb is left empty. NULL on oom. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);

#endif
