/* SPDX-License-Identifier: MIT */
/*
 * report/symbolize/internal.h - what the files of the symbolizer share, and
 * nothing outside report/symbolize/ includes.
 *
 * symbolize.c owns the symbolizer's life and turns raw stacks into named
 * ones; it asks maps.c which mapping covered an address, binaries.c for the
 * symbol data, objects and debug files of a binary, kernel.c for kernel
 * symbols and names.c for the name shown (demangled, decorated). Calls go
 * one way only: symbolize.c -> maps.c -> binaries.c, and kernel.c -> names.c.
 */
#ifndef EPROF_REPORT_SYMBOLIZE_INTERNAL_H
#define EPROF_REPORT_SYMBOLIZE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/debuginfo.h"
#include "format/recording.h"
#include "report/aggregate/strtab.h"
#include "report/symbolize/demangle.h"
#include "report/symbolize/symbolize.h"
#include "util/cmp.h"
#include "util/hashmap.h"
#include "util/path.h"

struct raw_stack {
	uint32_t id;
	uint32_t nr_kernel;
	uint32_t nr_user;
	size_t off;			/* into symbolizer.frames */
};

/* A stored symbol and the source its row named (enum sym_source). */
struct bin_sym {
	struct rec_symbol s;		/* name interned */
	uint32_t src;
};

struct bin {
	struct rec_binary view;		/* segments point at segs; nr_symbols counts syms */
	struct rec_segment *segs;
	struct bin_sym *syms;
	/*
	 * The FDE ranges the recorder stored for sampled offsets no symbol
	 * covers (rows of source ".eh_frame"): not names, function starts.
	 */
	struct rec_symbol *fdes;
	size_t nr_fdes;
};

struct map {
	uint32_t tgid;
	uint64_t time_ns;
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint64_t max_end;		/* max end over this tgid's maps up to this one */
	const char *path;
	const char *base;		/* basename of path */
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint32_t build_id_len;
	const struct bin *bin;		/* set by prepare; NULL: no symbol data */
	uint32_t obj;			/* set by prepare: index into objs */
};

struct proc_maps {
	uint32_t tgid;
	size_t first;			/* maps[first .. first + nr), sorted by start */
	size_t nr;
	size_t times_first;		/* map_times[times_first .. + nr_times): distinct, sorted */
	size_t nr_times;
};

struct ksym {
	uint64_t addr;
	uint64_t end;
	const char *name;
	const char *module;
};

enum { OBJ_UNKNOWN, OBJ_KERNEL, OBJ_FIRST_FILE };

struct object {
	struct sym_object pub;
	const struct bin *bin;		/* the recording's symbols, or NULL */
	struct dbg_file *dbg;		/* the local file, or NULL */
	uint32_t dbg_src;		/* enum sym_source of the names dbg gives */
	bool tried;			/* local lookup done */
	bool special;			/* "[vdso]", "//anon"...: no local file can exist */
};

struct jit {
	uint32_t tgid;
	uint64_t since;			/* the fork of the process whose map it is; 0: first */
	uint32_t obj;
	const struct bin *bin;		/* symbols in absolute addresses */
};

/* A symbolized stack of the cache, and the key it is cached under. */
struct cached_stack {
	uint32_t tgid;
	uint32_t stack_id;
	uint32_t epoch;
	bool after_loss;		/* at or after sideband_lost_ns */
	struct sym_stack *st;
};

/* A Python code object of the recording (python.c). */
struct py_code {
	uint32_t tgid;
	uint64_t key;			/* the frames' code key */
	const char *qualname;		/* interned */
	const char *file;		/* basename, interned */
	const char *path;		/* co_filename as recorded, interned */
	uint32_t first_line;
	uint8_t *table;			/* co_linetable, malloc'd */
	size_t table_len;
};

struct symbolizer {
	struct strtab names;
	struct demangler dm;		/* over names: each symbol demangled once */

	struct raw_stack *stacks;
	size_t nr_stacks, alloc_stacks;
	uint64_t *frames;
	size_t nr_frames, alloc_frames;

	struct map *maps;
	size_t nr_maps, alloc_maps;
	struct proc_maps *procs;
	size_t nr_procs;
	uint64_t *map_times;

	struct bin *bins;
	size_t nr_bins, alloc_bins;

	struct ksym *ksyms;
	size_t nr_ksyms, alloc_ksyms;

	struct cached_stack *cache;	/* in the order they were symbolized */
	size_t nr_cached, alloc_cache;
	struct hashmap cache_index;	/* (tgid, stack id, epoch) -> index into cache */

	struct object *objs;
	size_t nr_objs;
	struct jit *jits;		/* sorted by tgid */
	size_t nr_jits;
	struct py_code *py;		/* python.c */
	size_t nr_py, alloc_py;
	struct hashmap py_index;	/* (tgid, addr) -> index into py */
	struct sym_opts opts;
	struct recording *rec;		/* for its embedded DWARF; NULL: none */
	/*
	 * Start of the first window in which side-band records were lost: the
	 * previous loss row's time, 0 if none came before; UINT64_MAX: none lost.
	 */
	uint64_t sideband_lost_ns;
	int damage;			/* the first error reading it (printed), or 0 */

	bool prepared;
	struct sym_stats stats;
	struct debuginfod_client *dic;	/* started at its first use */
	bool dic_failed;
};

/*
 * debuginfod.c: the debug file of build-id id from the servers of
 * --debuginfod=URLS or DEBUGINFOD_URLS (none with --no-debuginfod),
 * through libdebuginfod's cache. 0 (*out set), -ENOENT
 * (none: not asked, not found, or not the recorded build-id), -ENOMEM.
 */
int debuginfod__find(struct symbolizer *sym, const uint8_t *id, uint32_t len,
		     struct dbg_file **out);
void debuginfod__end(struct symbolizer *sym);

/*
 * python.c: whether user frame word w is a Python frame; names it (0 or
 * -ENOMEM); frees the code table.
 */
bool sym_is_python_frame(uint64_t w);
int symbolizer__py_frame(struct symbolizer *sym, uint32_t tgid, uint64_t w, struct sym_frame *f);
void symbolizer__release_py(struct symbolizer *sym);

/* qsort() wants a non-NULL base even for nothing to sort. */
static inline void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static inline const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* maps.c: each process's mappings over time */

/* Sorts the mappings, indexes them by process and finds each one's binary. */
int symbolizer__index_maps(struct symbolizer *sym);
const struct proc_maps *symbolizer__find_proc(const struct symbolizer *sym, uint32_t tgid);
/* How many of the process's distinct mapping times are <= t. */
uint32_t symbolizer__epoch(const struct symbolizer *sym, const struct proc_maps *pm, uint64_t t);
const struct map *symbolizer__find_map(const struct symbolizer *sym, const struct proc_maps *pm,
				       uint64_t addr, uint64_t t);

/* binaries.c: the stored symbol data, the objects frames are charged to, debug files */

/* Sorts the binaries, merges rows of one key and their symbols. -ENOMEM. */
int symbolizer__index_binaries(struct symbolizer *sym);
const struct bin *symbolizer__find_bin(const struct symbolizer *sym, const struct map *m);
const struct bin_sym *bin__find_symbol(const struct bin *b, uint64_t v);
/* The stored FDE range covering v, or NULL. */
const struct rec_symbol *bin__find_fde(const struct bin *b, uint64_t v);
/* (Re)builds objs and jits once maps and binaries are indexed. -ENOMEM. */
int symbolizer__build_objects(struct symbolizer *sym);
/*
 * The JIT map of the process that had tgid at time t (the latest whose
 * fork is at or before t), or NULL; *gen is its rank among tgid's maps.
 */
const struct jit *symbolizer__find_jit(const struct symbolizer *sym, uint32_t tgid, uint64_t t,
				       uint32_t *gen);
/* The object's DWARF or local file, looked for once; NULL when there is none. */
struct dbg_file *symbolizer__debug_file(struct symbolizer *sym, struct object *o);

/* kernel.c: kernel symbols */

void symbolizer__index_ksyms(struct symbolizer *sym);
int symbolizer__kernel_frame(struct symbolizer *sym, uint64_t addr, bool is_return,
			     struct sym_frame *f);

/* names.c: the names frames are shown with, interned in sym->names */

int symbolizer__shown_name(struct symbolizer *sym, const char *name, const char **shown,
			   const char **system);
const char *symbolizer__intern_fmt(struct symbolizer *sym, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *symbolizer__decorate(struct symbolizer *sym, const char *name,
				 const struct dbg_frame *df, uint64_t vaddr, bool have_vaddr);

/*
 * Sets f's func (name, when f->name, decorated, differs), src_file and
 * src_line (df's, when df has a file), func_line 0. 0 or -ENOMEM.
 */
int symbolizer__set_source(struct symbolizer *sym, struct sym_frame *f, const char *name,
			   const struct dbg_frame *df);

#endif
