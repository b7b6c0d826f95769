/* SPDX-License-Identifier: MIT */
/* report/report.h - entry points of `eprof report` and `eprof info`. */
#ifndef EPROF_REPORT_REPORT_H
#define EPROF_REPORT_REPORT_H

/* Each returns an exit status (util/status.h). */
int cmd_report(int argc, char **argv);
int cmd_info(int argc, char **argv);

#endif
