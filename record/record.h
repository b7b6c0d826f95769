/* SPDX-License-Identifier: MIT */
/* record/record.h - entry point of `eprof record`. */
#ifndef EPROF_RECORD_RECORD_H
#define EPROF_RECORD_RECORD_H

/* Returns an exit status (util/status.h), or the recorded command's status. */
int cmd_record(int argc, char **argv);

#endif
