/* SPDX-License-Identifier: MIT */
/* record/record.h - entry point of `eprof record`. */
#ifndef EPROF_RECORD_RECORD_H
#define EPROF_RECORD_RECORD_H

/*
 * The recorder's memory ceiling: whatever users map, run or write, its
 * resident set stays under this. It is the sum of bounds, each checked
 * before the memory is taken: a binary's CFI section (elf/cfi.h), its
 * symbol tables (ELF_SYMS_MAX, elf/elf_file.h), its MiniDebugInfo
 * (ELF_MINIDEBUG_MAX), perf maps (record/jitmap.c), stack copies held
 * (record/rawstack.c), the comm rows (format/comm.c). The recording stores
 * it (mem_ceiling) with the peak resident set seen (peak_rss), `eprof info`
 * shows both, and a peak over it is warned about.
 */
#define RECORD_MEM_CEILING	(512ull << 20)

/* Returns an exit status (util/status.h), or the recorded command's status. */
int cmd_record(int argc, char **argv);

#endif
