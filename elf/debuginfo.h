/* SPDX-License-Identifier: MIT */
/*
 * elf/debuginfo.h - local ELF and DWARF files for one build-id, read with
 * libdw: report/'s fallback when the recording's own symbol data does not
 * cover a frame, and its source of inline frames and source lines. No
 * libdw type crosses this header: report/ asks, elf/ reads.
 *
 * A file is used only when its build-id is the recorded one. Where to look,
 * in order: each --debug-dir DIR (DIR/.build-id/xx/rest.debug,
 * DIR/BASENAME, DIR/BASENAME.debug), /usr/lib/debug/.build-id/xx/rest.debug,
 * then the original path. A binary recorded without a build-id is looked up
 * at its original path only, and never trusted for more than its name.
 */
#ifndef EPROF_ELF_DEBUGINFO_H
#define EPROF_ELF_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/recording.h"

struct dbg_file;

/* One level of an inline chain at an address. */
struct dbg_frame {
	const char *func;	/* linkage name (C++/Rust: mangled), else DW_AT_name; NULL: none */
	const char *file;	/* NULL when unknown */
	int line;		/* 0 when unknown */
};

#define DBG_MAX_INLINE	16

/*
 * Looks for a local file for (build_id, path). Returns 0 and *out, or
 * -ENOENT, or -ENOMEM. why[] names the first file skipped ("'PATH' has
 * another build-id"), even when a later one was used; else it is empty on
 * success and "no local file" on -ENOENT. dirs: the --debug-dir list.
 */
int dbg_file__find(const char *const *dirs, size_t nr_dirs, const uint8_t *build_id,
		   uint32_t build_id_len, const char *path, struct dbg_file **out, char *why,
		   size_t why_len);

/*
 * Opens path as the debug file of build_id: 0, -ENOENT when it has another
 * build-id (or none), another -errno when it is no readable ELF file.
 */
int dbg_file__open_checked(const char *path, const uint8_t *build_id, uint32_t len,
			   struct dbg_file **out);

/*
 * Opens an ELF image held in memory (the debug file embedded by
 * `record --debuginfo`). Takes ownership of data (malloc'd).
 */
int dbg_file__open_memory(void *data, size_t size, const char *name, struct dbg_file **out);

/* Accepts NULL. */
void dbg_file__close(struct dbg_file *f);

/* How dbg_file__find() found a file. */
enum dbg_found {
	DBG_FOUND_BUILD_ID,	/* DIR/.build-id/xx/rest.debug */
	DBG_FOUND_NAME,		/* DIR/BASENAME or DIR/BASENAME.debug of a --debug-dir */
	DBG_FOUND_BINARY,	/* the original path: the binary itself */
};

enum dbg_found dbg_file__found(const struct dbg_file *f);

const char *dbg_file__path(const struct dbg_file *f);

/* True when the file has DWARF (.debug_info). */
bool dbg_file__has_dwarf(struct dbg_file *f);

/* File offset -> ELF virtual address through the file's PT_LOAD headers. */
bool dbg_file__offset_to_vaddr(struct dbg_file *f, uint64_t off, uint64_t *vaddr);

/* The name of the symbol covering vaddr (valid while f is open), or NULL. */
const char *dbg_file__symbol(struct dbg_file *f, uint64_t vaddr);

/*
 * The inline chain at vaddr, innermost first: out[0] is the function whose
 * code is at vaddr, file:line the source line of vaddr; each next entry is
 * its caller, with the line of the call. The last entry is the function
 * the code was compiled into. Returns the count (0: no DWARF for vaddr).
 */
int dbg_file__frames(struct dbg_file *f, uint64_t vaddr, struct dbg_frame *out, int max);

#endif
