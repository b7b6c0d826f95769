/* SPDX-License-Identifier: MIT */
/* record/record.h - entry point of `eprof record`. */
#ifndef EPROF_RECORD_RECORD_H
#define EPROF_RECORD_RECORD_H

/*
 * The recorder's memory ceiling (--mem-limit, default 512 MiB): whatever
 * users map, run or write, its resident set stays under it. What it holds
 * once set up is its base; the rest is the budget (record/budget.h) that
 * unwind tables, their builds and the symbol tables of sampled binaries
 * draw from, each before the memory is taken; fixed bounds cap the rest: a
 * binary's MiniDebugInfo (ELF_MINIDEBUG_MAX), perf maps (record/jitmap.c),
 * stack copies held (record/rawstack.c), the comm rows (format/comm.c).
 * The recording stores the ceiling (mem_ceiling), the base (mem_base) and
 * the peak resident set seen (peak_rss), `eprof info` shows them, and a
 * peak over the ceiling is warned about.
 */

/* Returns an exit status (util/status.h), or the recorded command's status. */
int cmd_record(int argc, char **argv);

#endif
