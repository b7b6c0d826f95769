/* SPDX-License-Identifier: MIT */
/*
 * elf/cfi.h - a binary's call-frame information (.eh_frame, else
 * .debug_frame) turned into the compact unwind table the BPF walker
 * follows (bpf/unwind.h). Built with libdw, once per build-id, by record/.
 */
#ifndef EPROF_ELF_CFI_H
#define EPROF_ELF_CFI_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/unwind.h"

struct cfi_table {
	struct unw_row *rows;		/* sorted by off; equal neighbours merged */
	size_t nr_rows;
	size_t nr_fdes;			/* FDEs read */
	size_t nr_unsupported;		/* rows of type UNW_CFA_UNSUPPORTED */
	const char *source;		/* ".eh_frame" or ".debug_frame" (static) */
};

/*
 * Builds the unwind table of the ELF file open at fd (fd stays open and
 * is not moved). Row offsets are file offsets, translated from the CFI's
 * virtual addresses through the file's PT_LOAD segments. Returns 0,
 * -ENOENT when the file has no CFI, -ENOEXEC when it is not an x86-64 ELF
 * file, -EBADMSG when its CFI cannot be read, -ENOMEM. Never prints.
 */
int cfi_table__build(int fd, struct cfi_table *out);

/* Frees what cfi_table__build allocated; accepts a zeroed table. */
void cfi_table__release(struct cfi_table *t);

#endif
