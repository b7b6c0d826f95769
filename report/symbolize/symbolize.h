/* SPDX-License-Identifier: MIT */
/*
 * report/symbolize/symbolize.h - raw stack addresses to function names, offline.
 *
 * Everything comes from the recording: the stacks, each process's file
 * mappings over time, the symbol data of the sampled binaries (by build-id,
 * or by path for a binary without one) and the kernel symbols. Add them all
 * (symbolizer__load() does it from a recording; tests add them by hand),
 * then ask for stacks. A stack is symbolized once per (process, stack id,
 * set of mappings in effect) and cached, so a report costs one lookup per
 * distinct stack, not per sample.
 */
#ifndef EPROF_REPORT_SYMBOLIZE_H
#define EPROF_REPORT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format/recording.h"

struct recording;
struct rec_stack;
struct rec_mapping;
struct rec_binary;
struct rec_ksym;
struct stack_agg;
struct symbolizer;

/*
 * The name of a user frame in no mapping (and no JIT map) in a sample taken
 * at or after the start of the first window in which the kernel dropped
 * side-band records: its mmap record may be among those lost. Other frames
 * in no mapping are "[unknown]".
 */
#define SYM_SIDEBAND_LOST	"[unknown: side-band lost]"

enum sym_frame_flags {
	SYM_FRAME_KERNEL = 1u << 0,	/* a kernel frame (folded with "_[k]") */
	SYM_FRAME_RESOLVED = 1u << 1,	/* name is a symbol, not a placeholder */
	SYM_FRAME_JIT = 1u << 2,	/* named by a /tmp/perf-PID.map (name ends "_[j]") */
	SYM_FRAME_INLINE = 1u << 3,	/* an inlined function (--inline), not a real frame */
	/* in no mapping, at or after side-band records were lost: SYM_SIDEBAND_LOST */
	SYM_FRAME_SIDEBAND_LOST = 1u << 4,
	SYM_FRAME_PYTHON = 1u << 5,	/* a Python function (name ends "_[py]") */
};

/*
 * Where a frame's name came from, so that a report can say how many
 * frames each source named. Unresolved frames (also those a stripped
 * binary's FDE groups by function start) are SYM_SRC_UNRESOLVED.
 */
enum sym_source {
	SYM_SRC_UNRESOLVED,
	SYM_SRC_ELF,			/* the binary's own .symtab or .dynsym */
	SYM_SRC_DEBUG_FILE,		/* a separate debug file found by build-id */
	SYM_SRC_DEBUGLINK,		/* a separate debug file found by .gnu_debuglink */
	SYM_SRC_DEBUGDATA,		/* the binary's MiniDebugInfo (.gnu_debugdata) */
	SYM_SRC_DEBUGINFOD,		/* a debug file from a debuginfod server */
	SYM_SRC_EMBEDDED,		/* the DWARF file record --debuginfo embedded */
	SYM_SRC_JIT,			/* a JIT map (/tmp/perf-PID.map) */
	SYM_SRC_KERNEL,			/* kernel symbols */
	SYM_SRC_PLT,			/* a PLT stub, "name@plt" */
	SYM_SRC_PYTHON,			/* a Python code object the recorder read */
	SYM_SRC_MAX
};

/*
 * Adds a Python code object (from the recording's python_code table).
 * 0 or -ENOMEM.
 */
int symbolizer__add_py_code(struct symbolizer *sym, const struct rec_py_code *c);

/*
 * The source line of code unit instr in a CPython 3.11 location table
 * (co_linetable) of a code object starting at first_line; -1 when the
 * table has none for it or is damaged.
 */
long py_line_of(const uint8_t *t, size_t len, uint32_t first_line, uint32_t instr);

/* A short name of a source for reports: "binary", "debug file", ... */
const char *sym_source__name(enum sym_source s);
/* The same as a JSON key: "binary", "debug_file", "gnu_debugdata", ... */
const char *sym_source__key(enum sym_source s);

struct sym_frame {
	/*
	 * The function name; unresolved: "basename+0xOFF" (OFF: file offset)
	 * when the mapping is known, else "[unknown]". Kernel names carry no
	 * "_[k]": emitters add their own decoration.
	 */
	const char *name;
	/* kernel: module name, NULL for the core kernel; user: mapping path or NULL */
	const char *dso;
	uint64_t addr;			/* the address as sampled */
	uint32_t flags;			/* enum sym_frame_flags */
	uint32_t obj;			/* index + 1 of its sym_object; 0: none */
	uint32_t source;		/* enum sym_source */
	uint32_t src_line;		/* the line in src_file; 0: unknown */
	/*
	 * The symbol as the binary spells it (C++/Rust mangled) when name is
	 * its demangled form; NULL when name is the symbol itself (pprof's
	 * Function.system_name).
	 */
	const char *system_name;
	/*
	 * Where the code is, for views that carry it apart from the name
	 * (pprof): the function without name's decorations (Python: the
	 * qualname; native: no ":FILE:LINE", "@0xADDR"), NULL when name is
	 * it; the source file as recorded or as the debug info spells it
	 * (NULL: unknown, then src_line is 0); the function's first line
	 * (0: unknown). Python frames; native frames under --lines or
	 * --inline, from DWARF.
	 */
	const char *func;
	const char *src_file;
	uint32_t func_line;
};

/*
 * A symbolized stack, in the recording's order: frames 0 .. nr_kernel - 1
 * kernel innermost first, then nr_user user frames innermost first. Read
 * them with sym_stack__frame(): a symbolizer's stacks hold their frames,
 * a stack store's (several -i) point to frames it keeps once for all.
 */
struct sym_stack {
	uint32_t nr_kernel;
	uint32_t nr_user;
	uint32_t nr_resolved;
	bool missing;			/* the stack id is not in the recording */
	const struct sym_frame *const *shared;	/* NULL: the frames are frames[] */
	struct sym_frame frames[];
};

/* Frame i of st (i < nr_kernel + nr_user). */
static inline const struct sym_frame *sym_stack__frame(const struct sym_stack *st, size_t i)
{
	return st->shared ? st->shared[i] : &st->frames[i];
}

/* Frame counts of symbolizer__resolve(), weighted by samples. */
struct sym_stats {
	uint64_t frames;
	uint64_t resolved;
	uint64_t missing_stack_samples;	/* samples whose stack id was not found */
	/* samples with a SYM_FRAME_SIDEBAND_LOST frame: touched by a side-band loss */
	uint64_t sideband_lost_samples;
	uint64_t debuginfod_files;	/* debug files found through debuginfod */
	uint64_t by_source[SYM_SRC_MAX];	/* frames by where their name came from */
};

/*
 * lead, then "binary 120, .gnu_debugdata 30, unresolved 4" for the
 * non-zero counts of by_source (SYM_SRC_MAX of them), unresolved last, and
 * a newline; nothing when all are zero.
 */
void sym_sources__print(const uint64_t *by_source, const char *lead, FILE *f);

/*
 * How a report symbolizes beyond the recording's symbols. A frame they do
 * not cover (and, for inline and lines, every frame) is looked up in the
 * DWARF the recording embeds for its build-id (record --debuginfo), else,
 * with local set, in local files whose build-id matches: the debug_dirs in
 * order, /usr/lib/debug, the original path (elf/debuginfo.h).
 */
struct sym_opts {
	bool local;
	const char *const *debug_dirs;	/* --debug-dir, in order (kept, not copied) */
	size_t nr_debug_dirs;
	bool inline_frames;		/* inlined functions as frames of their own */
	bool lines;			/* names get ":FILE:LINE" (file basename) */
	bool addresses;			/* names get "@0xVADDR" (the ELF address looked up) */
	bool no_demangle;		/* keep C++/Rust names mangled (--no-demangle) */
	bool short_names;		/* no parameter lists, no return types (--short-names) */
	bool no_python;		/* Python frames left out, the interpreter's native frames kept (--no-python) */
	/*
	 * debuginfod: 0 as DEBUGINFOD_URLS says (on when it names servers),
	 * 1 on (--debuginfod[=URLS]), -1 off (--no-debuginfod).
	 */
	int debuginfod;
	const char *debuginfod_urls;	/* --debuginfod=URLS, else NULL (kept, not copied) */
};

/*
 * One binary (or "[kernel]", "[unknown]" for addresses outside every
 * mapping, a JIT map) as the report sees it: where its names come from and
 * how many of its sampled frames stayed unresolved.
 */
struct sym_object {
	const char *path;
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint32_t build_id_len;
	const char *embedded;		/* source of the recording's symbols; NULL: none */
	const char *local;		/* the local file used; NULL: none (or not looked for) */
	bool embedded_dwarf;		/* the recording holds its DWARF (record --debuginfo) */
	const char *why;		/* why frames stayed unresolved; NULL: none did */
	uint64_t frames;		/* sampled frames, weighted by samples (symbolizer__resolve) */
	uint64_t unresolved;		/* of them, not resolved */
};

struct symbolizer;

/* NULL on ENOMEM. */
struct symbolizer *symbolizer__new(void);
/* Accepts NULL. Every string and stack handed out dies with it. */
void symbolizer__free(struct symbolizer *sym);

/*
 * Adding, each copying what it keeps. 0, -ENOMEM, or -EBUSY once stacks
 * have been looked up. Nothing is printed (the caller names the source).
 */
int symbolizer__add_stack(struct symbolizer *sym, const struct rec_stack *st);
int symbolizer__add_mapping(struct symbolizer *sym, const struct rec_mapping *m);
int symbolizer__add_binary(struct symbolizer *sym, const struct rec_binary *b);
int symbolizer__add_ksym(struct symbolizer *sym, const struct rec_ksym *k);

/*
 * Sets the options (before the first lookup; -EBUSY after). The default is
 * the recording alone. o->debug_dirs must outlive sym.
 */
int symbolizer__set_opts(struct symbolizer *sym, const struct sym_opts *o);

/*
 * Adds every stack, mapping, binary and kernel symbol of rec; prints its
 * errors. rec's embedded DWARF is read when first needed, so rec must stay
 * open while stacks are looked up.
 */
int symbolizer__load(struct symbolizer *sym, struct recording *rec);

/*
 * The symbolized stack stack_id of process tgid as it was at time_ns (the
 * mappings in effect then choose the binaries). An unknown stack id gives
 * an empty stack with `missing` set. *out is valid until
 * symbolizer__free(). 0 or -ENOMEM.
 */
int symbolizer__stack(struct symbolizer *sym, uint32_t tgid, uint32_t stack_id,
		      uint64_t time_ns, const struct sym_stack **out);

/*
 * What the views read of an aggregate: its entries' symbolized stacks,
 * by entry index (stack[i] is entries[i]'s). The symbolizer makes it and
 * leaves the aggregate as loading made it; the report's cuts
 * (--kernel-only, --user-only, off-CPU waits) replace a row with a cut
 * copy, or with NULL where nothing was left of it (the entry leaves the
 * report). The stacks belong to the symbolizer (or a stack store, or the
 * cuts' owner); the table holds only pointers.
 */
struct sym_table {
	const struct sym_stack **stack;
	size_t nr;
};

void sym_table__release(struct sym_table *t);

/*
 * The stack table of agg (each entry symbolized at its last sample time)
 * in *out; the frame counts go to the stats. Prints its errors. A damaged
 * embedded DWARF file does not stop it (local files may serve), but its
 * error is returned at the end, every entry resolved and *out set; other
 * errors leave *out empty.
 */
int symbolizer__resolve(struct symbolizer *sym, const struct stack_agg *agg,
			struct sym_table *out);

const struct sym_stats *symbolizer__stats(const struct symbolizer *sym);

/* Distinct stacks symbolized so far (cache entries). */
size_t symbolizer__nr_symbolized(const struct symbolizer *sym);

/* The objects, counted by symbolizer__resolve(). */
size_t symbolizer__nr_objects(const struct symbolizer *sym);
const struct sym_object *symbolizer__object(const struct symbolizer *sym, size_t i);

/*
 * One line, when frames stayed unresolved: "eprof: unresolved frames:
 * libfoo.so 123 (no symbols), [unknown] 45 (no mapping)", most first;
 * "unresolved frames in 'PATH':" when path (of several recordings) is given.
 */
void symbolizer__print_unresolved(const struct symbolizer *sym, const char *path, FILE *f);

/*
 * Unresolved frames summed over several symbolizers (report over several
 * recordings, each symbolizer freed before the next): one line for all,
 * "eprof: unresolved frames WHAT: ...", binaries of one path and reason
 * counted together.
 */
struct sym_tally;
struct sym_tally *sym_tally__new(void);			/* NULL on ENOMEM */
void sym_tally__free(struct sym_tally *t);		/* accepts NULL */
int sym_tally__add(struct sym_tally *t, const struct symbolizer *sym);	/* 0 or -ENOMEM */
void sym_tally__print(const struct sym_tally *t, const char *what, FILE *f);

#endif
