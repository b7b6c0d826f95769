/* SPDX-License-Identifier: MIT */
/*
 * util/log.h - the one place eprof writes diagnostics.
 *
 * Every message is one line on stderr: "eprof: error: ...", "eprof: warning:
 * ...". pr_info/pr_debug print only with -v. pr_err counts, so cli/main.c can
 * tell a failure that forgot its message (a bug) from one that said it.
 */
#ifndef EPROF_UTIL_LOG_H
#define EPROF_UTIL_LOG_H

#include <stdarg.h>

/* LOG_NOTICE: plain facts the user should see (a file kept as .old), which
 * record -q hides along with its status and summary lines. */
enum log_level { LOG_ERR, LOG_WARN, LOG_NOTICE, LOG_INFO, LOG_DEBUG };

/* Messages at or below this level are printed; default LOG_NOTICE. */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);

/* One line at level: "eprof: error: ", "eprof: warning: ", "eprof: ", "eprof: debug: ". */
void pr_log(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define pr_err(...)	pr_log(LOG_ERR, __VA_ARGS__)
#define pr_warn(...)	pr_log(LOG_WARN, __VA_ARGS__)
/* "eprof: ..." without -v: what eprof did that the user must know (e.g. a file moved aside). */
#define pr_notice(...)	pr_log(LOG_NOTICE, __VA_ARGS__)
#define pr_info(...)	pr_log(LOG_INFO, __VA_ARGS__)
#define pr_debug(...)	pr_log(LOG_DEBUG, __VA_ARGS__)

/*
 * Like pr_err, then ": <strerror(-err)>". Returns err, so callers can write
 * `return pr_errno(-errno, "cannot open '%s'", path);`.
 */
int pr_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Number of pr_err/pr_errno calls so far. */
unsigned int log_error_count(void);

/* Routes libbpf's messages through this log (debug unless a warning). */
int log_libbpf_print(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/*
 * While set, libbpf's warnings are debug lines: for attempts whose failure
 * is expected and handled (a hook this kernel lacks). Returns the old state.
 */
int log_quiet_libbpf(int quiet);

#endif
