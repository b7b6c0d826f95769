/* SPDX-License-Identifier: MIT */
/*
 * util/status.h - exit statuses of eprof's commands (cmd_* return these).
 * `record -- CMD` exits with CMD's own status instead.
 */
#ifndef EPROF_UTIL_STATUS_H
#define EPROF_UTIL_STATUS_H

enum exit_status {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* failure, after a message */
	EXIT_USAGE = 2,		/* bad flag or value */
};

#endif
