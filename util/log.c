// SPDX-License-Identifier: MIT
/*
 * util/log.c - one-line diagnostics on stderr with an error counter.
 *
 * A message carries names from binaries, processes and recordings, which
 * any user chooses: each is written escaped (util/escape.h), so a name
 * with terminal escape sequences cannot drive the operator's terminal.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/log.h"

static enum log_level cur_level = LOG_NOTICE;
static unsigned int nr_errors;

void log_set_level(enum log_level level)
{
	cur_level = level;
}

enum log_level log_get_level(void)
{
	return cur_level;
}

unsigned int log_error_count(void)
{
	return nr_errors;
}

static void vlog(enum log_level level, const char *fmt, va_list ap, const char *suffix)
	__attribute__((format(printf, 2, 0)));

static void vlog(enum log_level level, const char *fmt, va_list ap, const char *suffix)
{
	static const char *const prefix[] = {
		[LOG_ERR] = "error: ", [LOG_WARN] = "warning: ", [LOG_NOTICE] = "",
		[LOG_INFO] = "", [LOG_DEBUG] = "debug: ",
	};

	if (level == LOG_ERR)
		nr_errors++;
	if (level > cur_level)
		return;
	char buf[4096], *msg = buf;
	va_list aq;
	int n;

	fputs("eprof: ", stderr);
	fputs(prefix[level], stderr);
	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof(buf)) {
		msg = malloc((size_t)n + 1);
		if (msg)
			vsnprintf(msg, (size_t)n + 1, fmt, ap);
		else
			msg = buf;	/* cut: better than nothing */
	}
	if (n > 0)
		escape_fwrite(stderr, msg, strnlen(msg, (size_t)n));
	if (msg != buf)
		free(msg);
	if (suffix) {
		fputs(": ", stderr);
		fputs(suffix, stderr);
	}
	fputc('\n', stderr);
}

void pr_log(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap, NULL);
	va_end(ap);
}

int pr_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap, strerror(err < 0 ? -err : err));
	va_end(ap);
	return err;
}

static bool libbpf_quiet;

int log_quiet_libbpf(int quiet)
{
	int was = libbpf_quiet;

	libbpf_quiet = quiet != 0;
	return was;
}

int log_libbpf_print(int level, const char *fmt, va_list ap)
{
	/* libbpf levels: 0 warn, 1 info, 2 debug. Its lines end in '\n' and name libbpf already. */
	enum log_level mine = level == 0 && !libbpf_quiet ? LOG_INFO : LOG_DEBUG;

	if (mine > cur_level)
		return 0;
	char buf[4096];
	int n;

	fputs("eprof: ", stderr);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n <= 0)
		return n;
	if ((size_t)n >= sizeof(buf))
		n = (int)sizeof(buf) - 1;
	/* its own line end stays one */
	escape_fwrite(stderr, buf, buf[n - 1] == '\n' ? (size_t)n - 1 : (size_t)n);
	if (buf[n - 1] == '\n')
		fputc('\n', stderr);
	return n;
}
