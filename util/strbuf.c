// SPDX-License-Identifier: MIT
/*
 * util/strbuf.c - growable strings (git's strbuf idea, our own code).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

char strbuf_empty[1];

static bool grow(struct strbuf *sb, size_t extra)
{
	size_t want, cap;
	char *n;

	if (sb->oom)
		return false;
	if (__builtin_add_overflow(sb->len, extra + 1, &want)) {
		sb->oom = true;
		return false;
	}
	if (want <= sb->alloc)
		return true;
	cap = sb->alloc ? sb->alloc : 64;
	while (cap < want) {
		if (__builtin_mul_overflow(cap, 2, &cap)) {
			sb->oom = true;
			return false;
		}
	}
	n = realloc(sb->alloc ? sb->buf : NULL, cap);
	if (!n) {
		sb->oom = true;
		return false;
	}
	if (!sb->alloc)
		n[0] = '\0';
	sb->buf = n;
	sb->alloc = cap;
	return true;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (!grow(sb, len))
		return;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !grow(sb, (size_t)n)) {
		sb->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > sb->len)
		return;
	sb->len = len;
	if (sb->alloc)
		sb->buf[len] = '\0';
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

char *strbuf_detach(struct strbuf *sb)
{
	char *r;

	if (sb->oom) {
		strbuf_release(sb);
		return NULL;
	}
	r = sb->alloc ? sb->buf : strdup("");
	sb->buf = strbuf_empty;
	sb->len = sb->alloc = 0;
	return r;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sb->buf = strbuf_empty;
	sb->len = sb->alloc = 0;
	sb->oom = false;
}
