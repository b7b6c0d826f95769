/* SPDX-License-Identifier: MIT */
/*
 * elf/elf_file.h - the raw bytes of an ELF file that record/ keeps:
 * its build-id, its PT_LOAD segments and its function symbols. No lookup
 * by address here beyond what capture needs: report/ symbolizes.
 */
#ifndef EPROF_ELF_ELF_FILE_H
#define EPROF_ELF_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/recording.h"

/* Where a symbol of an elf_file comes from (elf_file.srcs). */
enum elf_sym_src {
	ELF_SYM_SYMTAB,			/* the file's .symtab */
	ELF_SYM_DYNSYM,			/* its .dynsym (a stripped file) */
	ELF_SYM_DEBUGDATA,		/* the .symtab of its MiniDebugInfo (.gnu_debugdata) */
	ELF_SYM_PLT,			/* a PLT stub named from its relocation */
	ELF_SYM_ENTRY,			/* a stripped executable's entry point, "_start" */
};

struct elf_file {
	void *elf;			/* Elf *, owns the strings below */
	int fd;				/* -1 for an in-memory image */
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint32_t build_id_len;		/* 0: the file has none */
	struct rec_segment *segs;
	size_t nr_segs;
	/*
	 * Sorted by addr, every size > 0: functions, assembly labels (size 0
	 * in the file: they run to the next symbol or their section's end)
	 * and the PLT stubs as "name@plt".
	 */
	struct rec_symbol *syms;
	uint8_t *srcs;			/* srcs[i]: enum elf_sym_src of syms[i] */
	size_t nr_syms;
	/*
	 * ".symtab", else ".gnu_debugdata" (a stripped file's MiniDebugInfo,
	 * with its .dynsym), else ".dynsym"; NULL: no symbols.
	 */
	const char *source;
	int debugdata_err;		/* why .gnu_debugdata was not used (-errno), or 0 */
	bool syms_cut;			/* a symbol or relocation table was over ELF_SYMS_MAX */
	bool syms_cut_bytes;		/* ... or over elf_file__open_max's bytes */
	uint64_t max_bytes;		/* elf_file__open_max's bound, 0: none */
	uint64_t bytes;			/* what its symbol tables cost, as charged */
	void *mini_elf;			/* Elf * of the MiniDebugInfo: owns its names */
	void *mini_image;		/* its inflated bytes */
	bool by_debuglink;		/* a debug file found by .gnu_debuglink, not build-id */
	struct rec_symbol *plt;		/* the PLT stubs, "name@plt", also in syms */
	size_t nr_plt;
	char *plt_names;		/* owns the names of plt */
};

/*
 * Build-id of the ELF file open at fd (the fd is not closed). Returns 0 and
 * sets *len to 0 when the file has no build-id; -ENOEXEC if it is not ELF.
 */
int elf_file__read_build_id(int fd, uint8_t *out, uint32_t *len);

/*
 * Opens the ELF file at fd (taking ownership of fd) or the image in memory
 * (fd -1, image/size), reading build-id, segments and symbols. -ENOEXEC
 * when it is not ELF, -ENOMEM.
 */
int elf_file__open(int fd, const void *image, size_t size, struct elf_file **out);

/*
 * The same, reading at most max_bytes of symbols: each symbol table is
 * charged its string table and, per entry read, the entry and what is kept
 * of it, before a byte of it is read; past the bound only the entries that
 * fit are read (syms_cut and syms_cut_bytes set), and a MiniDebugInfo that
 * does not fit once inflated is not used. f->bytes says what was charged.
 * record/ passes its memory budget's share (record/budget.h).
 */
int elf_file__open_max(int fd, const void *image, size_t size, uint64_t max_bytes,
		       struct elf_file **out);

/* Accepts NULL. */
void elf_file__close(struct elf_file *f);

/*
 * The defined .dynsym symbol name (any type: record/python.c looks for
 * _PyRuntime, an object): its ELF virtual address and size. -ENOENT.
 */
int elf_file__dynsym(const struct elf_file *f, const char *name, uint64_t *vaddr,
		     uint64_t *size);

/*
 * The source a recording names for symbol k of f: ".symtab", ".dynsym",
 * ".gnu_debugdata"; a PLT stub takes its file's source.
 */
const char *elf_file__symbol_source(const struct elf_file *f, size_t k);

/*
 * The most entries read from one symbol table (.symtab, .dynsym, the
 * MiniDebugInfo's) or one relocation table: 2 Mi, above the largest real
 * ones (a browser's .symtab holds about 1 M functions). Past it the first
 * ELF_SYMS_MAX are read, the file is named from them and syms_cut is set:
 * 40 M crafted entries cost what 2 Mi do (48 MiB of the mapped file, 80 MiB
 * of heap), in memory and in time.
 */
#define ELF_SYMS_MAX		(1u << 21)

/*
 * The largest MiniDebugInfo inflated: 64 MiB, far above real ones (a
 * browser's is a few MiB); a larger or corrupt one is not used.
 */
#define ELF_MINIDEBUG_MAX	(64ull << 20)

/*
 * Inflates the .gnu_debugdata section of an open libelf handle (an Elf *)
 * into *image (malloc'd, the caller frees), an ELF file of *size bytes.
 * -ENOENT when there is none, -EBADMSG when it is not xz or not ELF
 * inside, -EFBIG past ELF_MINIDEBUG_MAX or liblzma's memory limit,
 * -ENOMEM. Never prints.
 */
int elf_minidebug__inflate(void *elf, void **image, size_t *size);

/*
 * Closes f's file descriptor, keeping what was read (the symbol names stay
 * valid), so that many files can stay open without holding descriptors.
 * Does nothing if libelf still needs the descriptor. Accepts NULL.
 */
void elf_file__release_fd(struct elf_file *f);

/* Index of the symbol containing vaddr, or -1. */
long elf_file__find_symbol(const struct elf_file *f, uint64_t vaddr);

/* Translates a file offset to an ELF virtual address via PT_LOAD segments. */
int elf_file__offset_to_vaddr(const struct elf_file *f, uint64_t off, uint64_t *vaddr);

/*
 * The PT_LOAD segments of an open libelf handle (an Elf *), in header
 * order, into a calloc'd array the caller frees (set even when empty).
 * For callers that hold their own handle, such as elf/cfi.c. -ENOMEM.
 */
int elf_segments__read(void *elf, struct rec_segment **segs, size_t *nr);

/*
 * The rank of a symbol among its aliases at one address (lower wins):
 * type and bind as in ELF (STT_*, STB_*). elf_sym__underscores: how many
 * leading underscores name has (at most 8).
 */
int elf_sym__rank(int type, int bind, const char *name);
int elf_sym__underscores(const char *name);

/*
 * The same for a separate debug file, whose PT_LOAD segments may have no
 * file bytes (NOBITS sections): such a segment spans its memory size, so
 * offsets of the binary it describes still translate.
 */
int elf_segments__read_debug(void *elf, struct rec_segment **segs, size_t *nr);

/*
 * The one file-offset -> virtual-address translation of eprof, over PT_LOAD
 * segments (from a binary, a debug file or a recording). -ENOENT when no
 * segment's file image covers off.
 */
int elf_segments__offset_to_vaddr(const struct rec_segment *segs, size_t nr, uint64_t off,
				  uint64_t *vaddr);

/*
 * Translates an ELF virtual address to a file offset via PT_LOAD segments
 * (the inverse of elf_file__offset_to_vaddr); *left is how many bytes of
 * that segment's file image start at vaddr. -ENOENT when no segment's file
 * image covers vaddr.
 */
int elf_segments__vaddr_to_offset(const struct rec_segment *segs, size_t nr, uint64_t vaddr,
				  uint64_t *off, uint64_t *left);

/*
 * The first section named name with contents (not SHT_NOBITS, not empty)
 * of an open libelf handle (an Elf *), as an Elf_Scn *, or NULL.
 */
void *elf_section__find(void *elf, const char *name);

/* The size of f's section of that name with contents, 0 when it has none. */
uint64_t elf_file__section_size(const struct elf_file *f, const char *name);

/* True when f has a section of that name with contents (e.g. ".debug_info"). */
bool elf_file__has_section(const struct elf_file *f, const char *name);

/* The whole file's bytes as libelf holds them (valid while f is open), or NULL. */
const void *elf_file__bytes(const struct elf_file *f, size_t *size);

/*
 * DIR/.build-id/xx/rest.debug for build-id id[0 .. len), into buf (the
 * path gdb, perf and debuginfod's clients use; DIR is /usr/lib/debug or a
 * --debug-dir). -EINVAL without a build-id, -ENAMETOOLONG when it does
 * not fit.
 */
int elf_build_id__debug_path(char *buf, size_t size, const char *dir, const uint8_t *id,
			     uint32_t len);

/*
 * Opens the separate debug file of f (the binary at path) whose build-id
 * is f's: /usr/lib/debug/.build-id/xx/rest.debug, else the .gnu_debuglink
 * name in path's directory, its .debug/ subdirectory, and
 * /usr/lib/debug/DIR. -ENOENT when there is none (or f has no build-id).
 * Its symbols include f's PLT stubs (a debug file has no code to name
 * them from); -ENOMEM.
 */
int debug_file__open(const struct elf_file *f, const char *path, struct elf_file **out);

/*
 * The largest binary or debug file elf/ opens: 4 GiB, above the biggest
 * real debug files (a browser's full DWARF is 2 to 3 GiB); libelf maps the
 * file, so only what is read costs memory.
 */
#define ELF_FILE_MAX_SIZE	(4ull << 30)

/*
 * Opens path for reading as elf/ opens every file some input named (a
 * debuglink, a build-id path, a mapped file, a --debug-dir entry): only a
 * regular file of at most ELF_FILE_MAX_SIZE, never blocking
 * (util/safe_open.h). Returns an fd for elf_file__open() or -errno
 * (-ENODEV for a FIFO, socket or device, -EISDIR, -EFBIG).
 */
int elf_file__open_fd(const char *path);

/*
 * Opens the file mapped at [start, end) in process pid for reading: the very
 * file through /proc/PID/map_files while the process lives, else PATH
 * resolved inside /proc/PID/root (safe_open_in_root(): a container's
 * symlinks stay inside it), else PATH; each only a regular file of at most
 * ELF_FILE_MAX_SIZE, never blocking. A mapped file that is not regular is
 * not looked for elsewhere. Returns an
 * fd or -errno.
 */
int mapped_file__open(uint32_t pid, uint64_t start, uint64_t end, const char *path);

/*
 * eprof's own vDSO image (the same in every 64-bit process of this boot):
 * its address from the auxiliary vector, its size from /proc/self/maps.
 * -ENOENT when there is none.
 */
int vdso__image(const void **image, size_t *size);

#endif
