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

/*
 * Bounds on what one binary may cost, because record runs as root on
 * binaries any user controls. The largest Debian binaries are far below
 * them: cc1 (a 33 MB compiler) has 479k rows, python3.11 65k, libc 28k.
 *  - rows: 4Mi rows are 48 MiB of table;
 *  - FDEs: 2Mi;
 *  - work: libdw re-runs an FDE's CFI program from its start for each row
 *    it yields, so crafted CFI with many rows in one long FDE costs
 *    rows x program length where libdw walks it. Each lookup, and each
 *    FDE run in one pass, is charged its CIE and FDE program bytes plus a
 *    fixed cost, against a budget of about a second of work.
 *  - section: the CFI section (.eh_frame, or .debug_frame once inflated)
 *    is at most 32 MiB, checked against its header before a byte of it is
 *    read (cc1's .eh_frame is 4 MiB; a sparse 2 GB one costs nothing).
 *    The build holds the section once (read straight into the builder's
 *    image; twice for a compressed .debug_frame, libelf inflating it) and
 *    at most CFI_MAX_ROWS rows: 32 + 32 + 48 MiB at worst.
 *  - segments: PT_LOAD segments not in address and file order (the ELF
 *    rule; a crafted file breaks it) are looked up one by one, so at most
 *    64 of them (CFI_MAX_LOOSE_SEGS in cfi.c).
 * Past any of them the build fails with -E2BIG (the walker then takes
 * frame-pointer steps in that binary). An FDE whose CFA program libdw
 * could be made to choke on (huge register numbers, deep remember_state
 * nesting, unknown opcodes: see cfi.c) is not an error: its range becomes
 * an UNSUPPORTED row.
 */
#define CFI_MAX_ROWS		(1u << 22)
#define CFI_MAX_FDES		(1u << 21)
#define CFI_MAX_WORK		(1ull << 30)
#define CFI_MAX_SECTION		(32ull << 20)
/*
 * A range build (cfi_table__build_ranges) holds the section and only the
 * rows of its ranges, so it takes a larger section, still charged to its
 * max_bytes: PyTorch's libtorch_cpu has about 30 MiB of .eh_frame.
 */
#define CFI_MAX_SECTION_RANGES	(128ull << 20)

struct cfi_table {
	struct unw_row *rows;		/* strictly increasing off; equal neighbours
					   merged; the last row is UNW_CFA_NONE */
	size_t nr_rows;
	size_t nr_fdes;			/* FDEs read */
	size_t nr_unsupported;		/* rows of type UNW_CFA_UNSUPPORTED */
	size_t nr_per_row;		/* FDEs libdw walked row by row (cfi.c) */
	const char *source;		/* ".eh_frame" or ".debug_frame" (static) */
};

/*
 * Builds the unwind table of the ELF file open at fd (fd stays open and
 * is not moved). Row offsets are file offsets, translated from the CFI's
 * virtual addresses through the file's PT_LOAD segments. Returns 0,
 * -ENOENT when the file has no CFI, -ENOEXEC when it is not an x86-64 ELF
 * file, -EBADMSG when its CFI cannot be read, -E2BIG past a limit above,
 * -ENOMEM. Never prints. On failure *out is left zeroed.
 */
int cfi_table__build(int fd, struct cfi_table *out);

/*
 * The same, with flags: CFI_BUILD_PER_ROW asks libdw for every row
 * (dwarf_cfi_addrframe, which reruns the FDE's program each time) instead
 * of running each FDE's program once. The table is the same; tests and
 * bench/ compare the two.
 */
#define CFI_BUILD_PER_ROW	1u
int cfi_table__build_flags(int fd, unsigned int flags, struct cfi_table *out);

/*
 * The same, holding at most max_bytes at once (the CFI section's two
 * copies, the build's arrays, the rows; not libdw's own state, a few
 * bytes a CIE): -E2BIG past it, found as soon as the bytes are asked for,
 * so a build over its bound costs little. record/ passes its memory
 * budget's share (record/budget.h).
 */
int cfi_table__build_max(int fd, uint64_t max_bytes, struct cfi_table *out);

/* File offsets [lo, hi). */
struct cfi_range {
	uint64_t lo, hi;
};

/*
 * The table of the file open at fd as the whole build gives it, for the
 * file offsets in the ranges v[0 .. nr) only (sorted, neither overlapping
 * nor touching, below 4 GiB), and UNW_CFA_ABSENT rows for every offset
 * outside them: a range's first row is the rule in force at its start,
 * cut there, and an ABSENT row starts at its end. Only the FDEs that
 * overlap a range are run, so it holds the section (once), those FDEs and
 * their rows, never the whole table: for a binary too big to build whole
 * (record/unwind.c's partial tables). The same vetting, bounds (with
 * CFI_MAX_SECTION_RANGES for the section) and errors as
 * cfi_table__build_max; -EINVAL for ranges out of order.
 */
int cfi_table__build_ranges(int fd, const struct cfi_range *v, size_t nr, uint64_t max_bytes,
			    struct cfi_table *out);

/*
 * The same in two steps, for a caller that builds ranges again and again
 * (record/ loads a big binary's table by windows): a source is the CFI
 * section copied, vetted and indexed by file offset once, holding
 * cfi_source__bytes() (the section, 16 bytes an FDE, the segments) and no
 * file descriptor; each build then runs only its ranges' FDEs. open: the
 * errors of cfi_table__build_max, within max_bytes; build: the same,
 * within max_bytes beside the source. One build at a time per source.
 */
struct cfi_source;
int cfi_source__open(int fd, uint64_t max_bytes, struct cfi_source **out);
uint64_t cfi_source__bytes(const struct cfi_source *src);
int cfi_source__build(struct cfi_source *src, const struct cfi_range *v, size_t nr,
		      uint64_t max_bytes, struct cfi_table *out);
/* Accepts NULL. */
void cfi_source__close(struct cfi_source *src);

/*
 * The size of the CFI section a build would read (.eh_frame, else
 * .debug_frame), from the section headers only (a compressed one counts
 * four times its size, a guess): a caller's estimate of a table before
 * building it. 0, -ENOEXEC or -ENOENT.
 */
int cfi_section__size(int fd, uint64_t *size);

/*
 * The same for an ELF image in memory (image, size), such as the vDSO
 * (elf_file.h's vdso__image()): its offsets are from the image's start,
 * which is what a VMA with page offset 0 gives.
 */
int cfi_table__build_image(const void *image, size_t size, struct cfi_table *out);

/*
 * The row covering file offset off (the last row at or before it), or NULL
 * before the first row. A user-space twin of the BPF walker's search, for
 * tests and tools.
 */
const struct unw_row *cfi_table__lookup(const struct cfi_table *t, uint64_t off);

/* A function's address range as its FDE gives it: [start, end), virtual addresses. */
struct cfi_fde {
	uint64_t start, end;
};

/*
 * The FDE ranges of the CFI (.eh_frame, else .debug_frame) of an open
 * libelf handle (an Elf *, not ended here) into a calloc'd array the
 * caller frees, sorted by start and without overlaps (of two that overlap
 * the lower one is kept). It names a stripped binary's functions by their
 * start where no symbol does. The same errors as cfi_table__build.
 */
int cfi_fdes__read(void *elf, struct cfi_fde **out, size_t *nr);

/* Index of the range of v[0 .. nr) covering vaddr, or -1. */
long cfi_fdes__find(const struct cfi_fde *v, size_t nr, uint64_t vaddr);

/* Frees what cfi_table__build allocated; accepts a zeroed table. */
void cfi_table__release(struct cfi_table *t);

#endif
