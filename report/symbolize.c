// SPDX-License-Identifier: MIT
/*
 * report/symbolize.c - offline symbolization from the recording alone.
 *
 * User address in process P at time t: the mapping of P that covers it
 * (the latest one mapped at or before t; else any, the earliest) gives a
 * file offset; the mapping's build-id (or its path, for binaries without
 * one) picks the stored symbol data; its PT_LOAD segments turn the offset
 * into an ELF virtual address; a binary search finds the symbol. Kernel
 * addresses go straight to the stored kernel symbols.
 *
 * Every frame but the innermost of each part is a return address: the
 * instruction after a call. A call that is the last instruction of a
 * function returns past its end, so those frames are looked up at addr - 1
 * (perf does the same) to name the caller.
 *
 * What the recording's symbols do not cover may be found in the DWARF file
 * the recording embeds (record --debuginfo), else in local files
 * (report/debuginfo.c), only ever by matching build-id, and only when the
 * options ask for it; so do inline frames and source lines. Anonymous
 * memory is named through the process's JIT map (/tmp/perf-PID.map, stored
 * by the recorder as a binary of that path). The recorder stores symbols
 * commit by commit, so rows of one binary (or JIT map) are merged into one
 * and repeated kernel symbols dropped. Each frame is charged to an
 * object (a binary, "[kernel]", "[unknown]") so a report can say where the
 * unresolved frames are and why.
 *
 * Stacks are cached by (tgid, stack id, epoch), the epoch being how many of
 * P's mapping times are <= t: within one epoch the same mappings are in
 * effect, so the result cannot differ, and an exec that maps a new binary at
 * the same addresses still gets a stack of its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/aggregate.h"
#include "report/debuginfo.h"
#include "report/demangle.h"
#include "report/strtab.h"
#include "report/symbolize.h"
#include "util/log.h"
#include "util/vec.h"

struct raw_stack {
	uint32_t id;
	uint32_t nr_kernel;
	uint32_t nr_user;
	size_t off;			/* into symbolizer.frames */
};

struct bin {
	struct rec_binary view;		/* segments/symbols point at the arrays below */
	struct rec_segment *segs;
	struct rec_symbol *syms;	/* names interned */
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
	bool tried;			/* local lookup done */
	bool special;			/* "[vdso]", "//anon"...: no local file can exist */
};

struct jit {
	uint32_t tgid;
	uint64_t since;			/* the fork of the process whose map it is; 0: first */
	uint32_t obj;
	const struct bin *bin;		/* symbols in absolute addresses */
};

struct cache_slot {
	uint32_t tgid;
	uint32_t stack_id;
	uint32_t epoch;
	struct sym_stack *st;		/* NULL: empty slot */
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

	struct cache_slot *cache;
	size_t cache_cap, nr_cached;

	struct object *objs;
	size_t nr_objs;
	struct jit *jits;		/* sorted by tgid */
	size_t nr_jits;
	struct sym_opts opts;
	struct recording *rec;		/* for its embedded DWARF; NULL: none */
	int damage;			/* the first error reading it (printed), or 0 */

	bool prepared;
	struct sym_stats stats;
};

struct symbolizer *symbolizer__new(void)
{
	struct symbolizer *sym = calloc(1, sizeof(*sym));

	if (sym) {
		strtab__init(&sym->names);
		demangler__init(&sym->dm, &sym->names);
	}
	return sym;
}

void symbolizer__free(struct symbolizer *sym)
{
	size_t i;

	if (!sym)
		return;
	for (i = 0; i < sym->cache_cap; i++)
		free(sym->cache[i].st);
	free(sym->cache);
	for (i = 0; i < sym->nr_objs; i++)
		dbg_file__close(sym->objs[i].dbg);
	free(sym->objs);
	free(sym->jits);
	for (i = 0; i < sym->nr_bins; i++) {
		free(sym->bins[i].segs);
		free(sym->bins[i].syms);
	}
	free(sym->bins);
	free(sym->ksyms);
	free(sym->map_times);
	free(sym->procs);
	free(sym->maps);
	free(sym->frames);
	free(sym->stacks);
	demangler__release(&sym->dm);
	strtab__release(&sym->names);
	free(sym);
}

/* --- adding ----------------------------------------------------------------- */

int symbolizer__add_stack(struct symbolizer *sym, const struct rec_stack *st)
{
	size_t n;
	struct raw_stack *r;

	if (sym->prepared)
		return -EBUSY;
	if (__builtin_add_overflow((size_t)st->nr_kernel, (size_t)st->nr_user, &n) ||
	    __builtin_add_overflow(n, sym->nr_frames, &n))
		return -ENOMEM;
	if (vec__grow(&sym->frames, &sym->alloc_frames, n, sizeof(*sym->frames)) ||
	    vec__grow(&sym->stacks, &sym->alloc_stacks, sym->nr_stacks + 1, sizeof(*sym->stacks)))
		return -ENOMEM;
	r = &sym->stacks[sym->nr_stacks++];
	r->id = st->id;
	r->nr_kernel = st->nr_kernel;
	r->nr_user = st->nr_user;
	r->off = sym->nr_frames;
	if (n > sym->nr_frames)
		memcpy(sym->frames + sym->nr_frames, st->frames,
		       (n - sym->nr_frames) * sizeof(*sym->frames));
	sym->nr_frames = n;
	return 0;
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

int symbolizer__add_mapping(struct symbolizer *sym, const struct rec_mapping *m)
{
	struct map *p;
	const char *path;

	if (sym->prepared)
		return -EBUSY;
	if (vec__grow(&sym->maps, &sym->alloc_maps, sym->nr_maps + 1, sizeof(*sym->maps)))
		return -ENOMEM;
	path = strtab__dup(&sym->names, m->path ? m->path : "");
	if (!path)
		return -ENOMEM;
	p = &sym->maps[sym->nr_maps++];
	memset(p, 0, sizeof(*p));
	p->tgid = m->tgid;
	p->time_ns = m->time_ns;
	p->start = m->start;
	p->end = m->end;
	p->pgoff = m->pgoff;
	p->path = path;
	p->base = basename_of(path);
	p->build_id_len = m->build_id_len > REC_BUILD_ID_MAX ? REC_BUILD_ID_MAX : m->build_id_len;
	memcpy(p->build_id, m->build_id, p->build_id_len);
	return 0;
}

int symbolizer__add_binary(struct symbolizer *sym, const struct rec_binary *b)
{
	struct bin *p;
	size_t i;

	if (sym->prepared)
		return -EBUSY;
	if (vec__grow(&sym->bins, &sym->alloc_bins, sym->nr_bins + 1, sizeof(*sym->bins)))
		return -ENOMEM;
	p = &sym->bins[sym->nr_bins];
	memset(p, 0, sizeof(*p));
	p->view.build_id_len = b->build_id_len > REC_BUILD_ID_MAX ? REC_BUILD_ID_MAX
								  : b->build_id_len;
	memcpy(p->view.build_id, b->build_id, p->view.build_id_len);
	p->view.path = strtab__dup(&sym->names, b->path ? b->path : "");
	p->view.source = strtab__dup(&sym->names, b->source ? b->source : "");
	if (!p->view.path || !p->view.source)
		return -ENOMEM;
	if (b->nr_segments) {
		p->segs = calloc(b->nr_segments, sizeof(*p->segs));
		if (!p->segs)
			return -ENOMEM;
		memcpy(p->segs, b->segments, b->nr_segments * sizeof(*p->segs));
	}
	if (b->nr_symbols) {
		p->syms = calloc(b->nr_symbols, sizeof(*p->syms));
		if (!p->syms) {
			free(p->segs);
			return -ENOMEM;
		}
	}
	for (i = 0; i < b->nr_symbols; i++) {
		p->syms[i].addr = b->symbols[i].addr;
		p->syms[i].size = b->symbols[i].size;
		p->syms[i].name = strtab__dup(&sym->names, b->symbols[i].name ? b->symbols[i].name
									     : "[unknown]");
		if (!p->syms[i].name) {
			free(p->segs);
			free(p->syms);
			return -ENOMEM;
		}
	}
	p->view.nr_segments = b->nr_segments;
	p->view.segments = p->segs;
	p->view.nr_symbols = b->nr_symbols;
	p->view.symbols = p->syms;
	sym->nr_bins++;
	return 0;
}

int symbolizer__add_ksym(struct symbolizer *sym, const struct rec_ksym *k)
{
	struct ksym *p;

	if (sym->prepared)
		return -EBUSY;
	if (vec__grow(&sym->ksyms, &sym->alloc_ksyms, sym->nr_ksyms + 1, sizeof(*sym->ksyms)))
		return -ENOMEM;
	p = &sym->ksyms[sym->nr_ksyms];
	p->addr = k->addr;
	p->end = k->end;
	p->name = strtab__dup(&sym->names, k->name ? k->name : "[unknown]");
	p->module = k->module && k->module[0] ? strtab__dup(&sym->names, k->module) : NULL;
	if (!p->name || (k->module && k->module[0] && !p->module))
		return -ENOMEM;
	sym->nr_ksyms++;
	return 0;
}

/* --- preparing: sort everything once ------------------------------------ */

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int cmp_raw_stack(const void *a, const void *b)
{
	const struct raw_stack *x = a, *y = b;

	return x->id != y->id ? CMP(x->id, y->id) : CMP(x->off, y->off);
}

static int cmp_map(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	if (x->tgid != y->tgid)
		return CMP(x->tgid, y->tgid);
	if (x->start != y->start)
		return CMP(x->start, y->start);
	if (x->time_ns != y->time_ns)
		return CMP(x->time_ns, y->time_ns);
	if (x->end != y->end)
		return CMP(x->end, y->end);
	return strcmp(x->path, y->path);
}

static int cmp_u64(const void *a, const void *b)
{
	return CMP(*(const uint64_t *)a, *(const uint64_t *)b);
}

/* Binaries: by build-id, then (for those without one) by path. */
static int cmp_bin_key(uint32_t len_a, const uint8_t *id_a, const char *path_a, uint32_t len_b,
		       const uint8_t *id_b, const char *path_b)
{
	int c;

	if (len_a != len_b)
		return CMP(len_a, len_b);
	c = memcmp(id_a, id_b, len_a);
	if (c || len_a)
		return c;
	return strcmp(path_a, path_b);
}

static int cmp_bin(const void *a, const void *b)
{
	const struct bin *x = a, *y = b;

	return cmp_bin_key(x->view.build_id_len, x->view.build_id, x->view.path,
			   y->view.build_id_len, y->view.build_id, y->view.path);
}

static int cmp_symbol(const void *a, const void *b)
{
	const struct rec_symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return CMP(x->addr, y->addr);
	if (x->size != y->size)
		return CMP(y->size, x->size);	/* the widest first */
	return strcmp(x->name, y->name);
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return CMP(x->addr, y->addr);
	if (x->end != y->end)
		return CMP(y->end, x->end);
	return strcmp(x->name, y->name);
}

/* qsort() wants a non-NULL base even for nothing to sort. */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static const struct bin *find_bin(const struct symbolizer *sym, const struct map *m)
{
	size_t lo = 0, hi = sym->nr_bins, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = cmp_bin_key(m->build_id_len, m->build_id, m->path,
				sym->bins[mid].view.build_id_len, sym->bins[mid].view.build_id,
				sym->bins[mid].view.path);
		if (!c)
			return &sym->bins[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static int cmp_map_key(const void *a, const void *b)
{
	const struct map *x = *(const struct map *const *)a, *y = *(const struct map *const *)b;

	return cmp_bin_key(x->build_id_len, x->build_id, x->path, y->build_id_len, y->build_id,
			   y->path);
}

static int cmp_jit(const void *a, const void *b)
{
	const struct jit *x = a, *y = b;

	if (x->tgid != y->tgid)
		return CMP(x->tgid, y->tgid);
	return CMP(x->since, y->since);
}

static bool is_file_path(const char *path)
{
	return path[0] == '/' && path[1] != '/';
}

static struct object *new_object(struct symbolizer *sym, const char *path)
{
	struct object *o = &sym->objs[sym->nr_objs++];

	memset(o, 0, sizeof(*o));
	o->pub.path = path;
	return o;
}

/* One object per distinct binary key among the maps, plus the special ones. */
static int build_objects(struct symbolizer *sym)
{
	struct map **order = NULL;
	struct object *o = NULL;
	size_t i;
	unsigned int pid;
	char tail;

	order = calloc(sym->nr_maps ? sym->nr_maps : 1, sizeof(*order));
	sym->objs = calloc(sym->nr_maps + sym->nr_bins + OBJ_FIRST_FILE, sizeof(*sym->objs));
	sym->jits = calloc(sym->nr_bins ? sym->nr_bins : 1, sizeof(*sym->jits));
	if (!order || !sym->objs || !sym->jits) {
		free(order);
		return -ENOMEM;
	}
	new_object(sym, "[unknown]")->special = true;
	o = new_object(sym, "[kernel]");
	o->special = true;
	o->pub.embedded = sym->nr_ksyms ? "kallsyms" : NULL;
	for (i = 0; i < sym->nr_maps; i++)
		order[i] = &sym->maps[i];
	sort(order, sym->nr_maps, sizeof(*order), cmp_map_key);
	for (i = 0; i < sym->nr_maps; i++) {
		struct map *m = order[i];

		if (!i || cmp_map_key(&order[i - 1], &order[i])) {
			o = new_object(sym, m->path);
			o->pub.build_id_len = m->build_id_len;
			memcpy(o->pub.build_id, m->build_id, m->build_id_len);
			o->bin = m->bin;
			o->special = !is_file_path(m->path);
			if (m->bin && m->bin->view.nr_symbols)
				o->pub.embedded = m->bin->view.source;
		}
		m->obj = (uint32_t)(sym->nr_objs - 1);
	}
	free(order);
	/*
	 * JIT maps: binaries stored as "/tmp/perf-PID.map", and as
	 * "/tmp/perf-PID.map@FORK_NS" for a later process of a reused pid
	 * (record/jitmap.c): each names the samples from its process's fork on.
	 */
	for (i = 0; i < sym->nr_bins; i++) {
		const struct bin *b = &sym->bins[i];
		unsigned long long since = 0;

		if (b->view.build_id_len ||
		    (sscanf(b->view.path, "/tmp/perf-%u.map%c", &pid, &tail) != 1 &&
		     (sscanf(b->view.path, "/tmp/perf-%u.map@%llu%c", &pid, &since, &tail) != 2 ||
		      !since)))
			continue;
		o = new_object(sym, b->view.path);
		o->special = true;
		o->bin = b;
		o->pub.embedded = b->view.source;
		sym->jits[sym->nr_jits].tgid = pid;
		sym->jits[sym->nr_jits].since = since;
		sym->jits[sym->nr_jits].obj = (uint32_t)(sym->nr_objs - 1);
		sym->jits[sym->nr_jits].bin = b;
		sym->nr_jits++;
	}
	sort(sym->jits, sym->nr_jits, sizeof(*sym->jits), cmp_jit);
	return 0;
}

/*
 * The recorder stores a binary's symbols as it samples them, one row per
 * commit that needed new ones, so several rows may share a key: they become
 * one binary with the union of their symbols and the segments of the first
 * row that has any. bins must be sorted by key. On ENOMEM the table is left
 * whole (some keys merged, the rest not), so a later attempt may go on.
 */
static int merge_bins(struct symbolizer *sym)
{
	size_t i, j, k, out = 0, n;

	for (i = 0; i < sym->nr_bins; i = j) {
		struct bin *b = &sym->bins[i];
		struct rec_symbol *syms;

		n = b->view.nr_symbols;
		for (j = i + 1; j < sym->nr_bins && !cmp_bin(b, &sym->bins[j]); j++)
			n += sym->bins[j].view.nr_symbols;
		if (j - i > 1) {
			syms = calloc(n ? n : 1, sizeof(*syms));
			if (!syms) {
				memmove(&sym->bins[out], b, (sym->nr_bins - i) * sizeof(*b));
				sym->nr_bins = out + sym->nr_bins - i;
				return -ENOMEM;
			}
			for (k = i, n = 0; k < j; k++) {
				struct bin *o = &sym->bins[k];

				if (o->view.nr_symbols)
					memcpy(syms + n, o->syms, o->view.nr_symbols * sizeof(*syms));
				n += o->view.nr_symbols;
				if (k == i)
					continue;
				if (!b->view.nr_segments && o->view.nr_segments) {
					b->segs = o->segs;
					b->view.segments = o->segs;
					b->view.nr_segments = o->view.nr_segments;
					o->segs = NULL;
				}
				if (!b->view.nr_symbols && o->view.nr_symbols)
					b->view.source = o->view.source;	/* not "none" */
				free(o->segs);
				free(o->syms);
			}
			free(b->syms);
			b->syms = syms;
			b->view.symbols = syms;
			b->view.nr_symbols = n;
		}
		if (out != i)
			sym->bins[out] = *b;
		out++;
	}
	sym->nr_bins = out;
	return 0;
}

/* Drops exact repeats from sorted symbols (rows that overlap); returns the count left. */
static size_t unique_symbols(struct rec_symbol *s, size_t n)
{
	size_t i, out = 0;

	for (i = 0; i < n; i++)
		if (!out || s[out - 1].addr != s[i].addr || s[out - 1].size != s[i].size ||
		    strcmp(s[out - 1].name, s[i].name))
			s[out++] = s[i];
	return out;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The same for sorted kernel symbols: the recorder adds them chunk by chunk. */
static size_t unique_ksyms(struct ksym *k, size_t n)
{
	size_t i, out = 0;

	for (i = 0; i < n; i++)
		if (!out || k[out - 1].addr != k[i].addr || k[out - 1].end != k[i].end ||
		    !same_str(k[out - 1].name, k[i].name) ||
		    !same_str(k[out - 1].module, k[i].module))
			k[out++] = k[i];
	return out;
}

static int prepare(struct symbolizer *sym)
{
	size_t i, j, nr_procs = 0, t;
	struct proc_maps *pm;

	sort(sym->stacks, sym->nr_stacks, sizeof(*sym->stacks), cmp_raw_stack);
	sort(sym->bins, sym->nr_bins, sizeof(*sym->bins), cmp_bin);
	if (merge_bins(sym))
		return -ENOMEM;
	for (i = 0; i < sym->nr_bins; i++) {
		struct bin *b = &sym->bins[i];

		sort(b->syms, b->view.nr_symbols, sizeof(*b->syms), cmp_symbol);
		b->view.nr_symbols = unique_symbols(b->syms, b->view.nr_symbols);
	}
	sort(sym->ksyms, sym->nr_ksyms, sizeof(*sym->ksyms), cmp_ksym);
	sym->nr_ksyms = unique_ksyms(sym->ksyms, sym->nr_ksyms);
	sort(sym->maps, sym->nr_maps, sizeof(*sym->maps), cmp_map);

	for (i = 0; i < sym->nr_maps; i++)
		if (!i || sym->maps[i].tgid != sym->maps[i - 1].tgid)
			nr_procs++;
	free(sym->procs);	/* a failed earlier attempt may have left them */
	free(sym->map_times);
	sym->nr_procs = 0;
	sym->procs = calloc(nr_procs ? nr_procs : 1, sizeof(*sym->procs));
	sym->map_times = calloc(sym->nr_maps ? sym->nr_maps : 1, sizeof(*sym->map_times));
	if (!sym->procs || !sym->map_times)
		return -ENOMEM;
	pm = NULL;
	for (i = 0; i < sym->nr_maps; i++) {
		struct map *m = &sym->maps[i];

		if (!pm || m->tgid != pm->tgid) {
			pm = &sym->procs[sym->nr_procs++];
			pm->tgid = m->tgid;
			pm->first = i;
			pm->times_first = i;
		}
		pm->nr++;
		m->max_end = i > pm->first && m[-1].max_end > m->end ? m[-1].max_end : m->end;
		m->bin = find_bin(sym, m);
		sym->map_times[i] = m->time_ns;
	}
	/* each process's distinct mapping times, sorted: its epochs */
	for (i = 0; i < sym->nr_procs; i++) {
		pm = &sym->procs[i];
		sort(sym->map_times + pm->first, pm->nr, sizeof(uint64_t), cmp_u64);
		for (j = 0, t = 0; j < pm->nr; j++) {
			uint64_t v = sym->map_times[pm->first + j];

			if (!t || sym->map_times[pm->first + t - 1] != v)
				sym->map_times[pm->first + t++] = v;
		}
		pm->nr_times = t;
	}
	for (i = 0; i < sym->nr_objs; i++)
		dbg_file__close(sym->objs[i].dbg);
	free(sym->objs);	/* a failed earlier attempt may have left them */
	free(sym->jits);
	sym->objs = NULL;
	sym->jits = NULL;
	sym->nr_objs = sym->nr_jits = 0;
	if (build_objects(sym))
		return -ENOMEM;
	sym->prepared = true;
	return 0;
}

/* --- lookups ---------------------------------------------------------------- */

static const struct raw_stack *find_raw_stack(const struct symbolizer *sym, uint32_t id)
{
	size_t lo = 0, hi = sym->nr_stacks, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sym->stacks[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sym->nr_stacks && sym->stacks[lo].id == id ? &sym->stacks[lo] : NULL;
}

static const struct proc_maps *find_proc(const struct symbolizer *sym, uint32_t tgid)
{
	size_t lo = 0, hi = sym->nr_procs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sym->procs[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sym->nr_procs && sym->procs[lo].tgid == tgid ? &sym->procs[lo] : NULL;
}

/* How many of the process's distinct mapping times are <= t. */
static uint32_t epoch_of(const struct symbolizer *sym, const struct proc_maps *pm, uint64_t t)
{
	const uint64_t *times = sym->map_times + pm->times_first;
	size_t lo = 0, hi = pm->nr_times, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (times[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

/*
 * The mapping covering addr: the latest mapped at or before t, else the
 * earliest mapped after t (a mapping the recorder saw late).
 */
static const struct map *find_map(const struct symbolizer *sym, const struct proc_maps *pm,
				  uint64_t addr, uint64_t t)
{
	const struct map *maps = sym->maps + pm->first, *best = NULL, *m;
	size_t lo = 0, hi = pm->nr, mid, i;

	/* first map with start > addr */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0 && maps[i].max_end > addr;) {
		m = &maps[i];
		if (addr < m->start || addr >= m->end)
			continue;
		if (!best) {
			best = m;
		} else if (m->time_ns <= t) {
			if (best->time_ns > t || m->time_ns > best->time_ns)
				best = m;
		} else if (best->time_ns > t && m->time_ns < best->time_ns) {
			best = m;
		}
	}
	return best;
}

static const struct rec_symbol *find_symbol(const struct bin *b, uint64_t v)
{
	const struct rec_symbol *syms = b->syms;
	size_t lo = 0, hi = b->view.nr_symbols, mid, i, steps;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (syms[mid].addr <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * syms[lo - 1] starts closest below v; look back a little for an
	 * enclosing symbol when v lies past the end of a nested one. A
	 * zero-size symbol covers only its own address.
	 */
	for (i = lo, steps = 0; i-- > 0 && steps < 16; steps++) {
		const struct rec_symbol *s = &syms[i];

		if (v == s->addr || v - s->addr < s->size) {
			while (i > 0 && syms[i - 1].addr == s->addr)
				s = &syms[--i];	/* aliases: the first in sort order */
			return s;
		}
	}
	return NULL;
}

static const struct ksym *find_ksym(const struct symbolizer *sym, uint64_t v)
{
	const struct ksym *k = sym->ksyms;
	size_t lo = 0, hi = sym->nr_ksyms, mid, i, steps;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k[mid].addr <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo, steps = 0; i-- > 0 && steps < 16; steps++) {
		if (v < k[i].end || v == k[i].addr) {
			while (i > 0 && k[i - 1].addr == k[i].addr)
				i--;
			return &k[i];
		}
	}
	return NULL;
}

/*
 * The name shown for the symbol name (interned): without the default
 * version a versioned definition carries ("memcpy@@GLIBC_2.14" is memcpy,
 * as perf shows it; "memcpy@GLIBC_2.2.5", an old version kept for old
 * binaries, and "puts@plt" stay as they are), then demangled unless
 * --no-demangle; *system gets name when they differ, else NULL.
 */
static int shown_name(struct symbolizer *sym, const char *name, const char **shown,
		      const char **system)
{
	const char *at = strstr(name, "@@");
	const char *base = name;
	uint32_t id;
	int r;

	*shown = name;
	*system = NULL;
	if (at && at != name) {
		if (strtab__intern_len(&sym->names, name, (size_t)(at - name), &id))
			return -ENOMEM;
		base = strtab__str(&sym->names, id);
		*shown = base;
	}
	if (!sym->opts.no_demangle) {
		r = demangler__get(&sym->dm, base, shown);
		if (r < 0)
			return r;
	}
	if (*shown != name) {
		*system = strtab__dup(&sym->names, name);	/* interned already: a lookup */
		if (!*system)
			return -ENOMEM;
	}
	return 0;
}

static int symbolize_kernel(struct symbolizer *sym, uint64_t addr, bool is_return,
			    struct sym_frame *f)
{
	const struct ksym *k = find_ksym(sym, is_return && addr ? addr - 1 : addr);
	int err;

	f->addr = addr;
	f->flags = SYM_FRAME_KERNEL;
	f->obj = OBJ_KERNEL + 1;
	f->system_name = NULL;
	if (k) {
		/* Rust in the kernel has v0-mangled names; C names pass unchanged */
		err = shown_name(sym, k->name, &f->name, &f->system_name);
		if (err)
			return err;
		f->dso = k->module;
		f->flags |= SYM_FRAME_RESOLVED;
	} else {
		f->name = "[unknown]";
		f->dso = NULL;
		sym->objs[OBJ_KERNEL].pub.why = "not in the kernel symbols";
	}
	return 0;
}

/*
 * The JIT map of the process that had tgid at time t (the latest whose
 * fork is at or before t), or NULL; *gen is its rank among tgid's maps.
 */
static const struct jit *find_jit(const struct symbolizer *sym, uint32_t tgid, uint64_t t,
				  uint32_t *gen)
{
	size_t lo = 0, hi = sym->nr_jits, mid, i;
	const struct jit *best = NULL;

	*gen = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sym->jits[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < sym->nr_jits && sym->jits[i].tgid == tgid && sym->jits[i].since <= t;
	     i++) {
		best = &sym->jits[i];
		*gen = (uint32_t)(i - lo);
	}
	return best;
}

static const char *intern_fmt(struct symbolizer *sym, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The interned result of a printf (cut at 4 KiB), or NULL on ENOMEM. */
static const char *intern_fmt(struct symbolizer *sym, const char *fmt, ...)
{
	char buf[4096 + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		buf[0] = '\0';
	return strtab__dup(&sym->names, buf);
}

/* The DWARF file the recording embeds for o, opened from memory, or NULL. */
static struct dbg_file *embedded_file(struct symbolizer *sym, struct object *o)
{
	void *data = NULL;
	size_t size = 0;
	int err;

	err = recording__get_debuginfo(sym->rec, o->pub.build_id, o->pub.build_id_len, &data,
				       &size);
	if (err) {
		/* printed; symbolizing goes on, but the report fails (issue 9) */
		if (err != -ENOENT && !sym->damage)
			sym->damage = err;
		return NULL;
	}
	err = dbg_file__open_memory(data, size, o->pub.path, &o->dbg);
	if (err) {
		pr_warn("%s: the embedded DWARF is not a readable ELF file", o->pub.path);
		o->dbg = NULL;
		return NULL;
	}
	return o->dbg;
}

/*
 * Looks for the object's DWARF or local file once: the recording's own
 * first, then local files; says once why one was not used.
 */
static struct dbg_file *local_file(struct symbolizer *sym, struct object *o)
{
	char why[4096 + 64];
	int err;

	if (o->tried)
		return o->dbg;
	o->tried = true;
	if (o->special)
		return NULL;
	if (o->pub.embedded_dwarf && sym->rec && embedded_file(sym, o))
		return o->dbg;
	if (!sym->opts.local)
		return NULL;
	err = dbg_file__find(sym->opts.debug_dirs, sym->opts.nr_debug_dirs, o->pub.build_id,
			     o->pub.build_id_len, o->pub.path, &o->dbg, why, sizeof(why));
	if (strstr(why, "another build-id"))	/* one line per binary, at most */
		pr_warn("%s: skipped %s than the recorded one", o->pub.path, why);
	else if (err && strcmp(why, "no local file"))	/* a FIFO, a device, too large */
		pr_warn("%s: skipped %s", o->pub.path, why);
	if (!err) {
		o->pub.local = strtab__dup(&sym->names, dbg_file__path(o->dbg));
		return o->dbg;
	}
	o->dbg = NULL;
	pr_debug("no local file for '%s' (%s)", o->pub.path, why);
	return NULL;
}

static const char *base_of_file(const char *file)
{
	const char *s = file ? strrchr(file, '/') : NULL;

	return s ? s + 1 : file;
}

/* name, then ":FILE:LINE" with --lines and "@0xVADDR" with the addresses. */
static const char *decorate(struct symbolizer *sym, const char *name, const struct dbg_frame *df,
			    uint64_t vaddr, bool have_vaddr)
{
	char where[4096], at[32];

	where[0] = at[0] = '\0';
	if (sym->opts.lines && df && df->file)
		snprintf(where, sizeof(where), ":%s:%d", base_of_file(df->file), df->line);
	if (sym->opts.addresses && have_vaddr)
		snprintf(at, sizeof(at), "@0x%" PRIx64, vaddr);
	if (!where[0] && !at[0])
		return strtab__dup(&sym->names, name);
	return intern_fmt(sym, "%s%s%s", name, where, at);
}

/* Fills out[0 .. n) for one user address, innermost first; returns n (>= 1) or -ENOMEM. */
static int symbolize_user(struct symbolizer *sym, const struct proc_maps *pm, uint32_t tgid,
			  uint64_t t, uint64_t addr, bool is_return, struct sym_frame *out,
			  int max)
{
	uint64_t look = is_return && addr ? addr - 1 : addr, vaddr = 0, off;
	const struct map *m = pm ? find_map(sym, pm, look, t) : NULL;
	struct dbg_frame chain[DBG_MAX_INLINE];
	const struct rec_symbol *s = NULL;
	struct sym_frame *f = &out[0];
	const char *name = NULL, *system = NULL;
	struct dbg_file *dbg = NULL;
	struct object *o;
	bool have_vaddr = false;
	int n = 0, i, err;

	f->addr = addr;
	f->flags = 0;
	f->name = "[unknown]";
	f->dso = NULL;
	f->system_name = NULL;
	f->obj = OBJ_UNKNOWN + 1;
	if (!m || !is_file_path(m->path)) {
		uint32_t gen;
		const struct jit *j = find_jit(sym, tgid, t, &gen);

		s = j ? find_symbol(j->bin, look) : NULL;
		if (s) {
			f->name = intern_fmt(sym, "%s_[j]", s->name);
			f->dso = j->bin->view.path;
			f->flags = SYM_FRAME_RESOLVED | SYM_FRAME_JIT;
			f->obj = j->obj + 1;
			return f->name ? 1 : -ENOMEM;
		}
	}
	if (!m) {
		sym->objs[OBJ_UNKNOWN].pub.why = "no mapping";
		return 1;
	}
	o = &sym->objs[m->obj];
	f->dso = m->path;
	f->obj = m->obj + 1;
	off = look - m->start + m->pgoff;
	if (m->bin && m->bin->view.nr_segments)
		have_vaddr = rec_binary__offset_to_vaddr(&m->bin->view, off, &vaddr);
	if (m->bin) {
		s = find_symbol(m->bin, have_vaddr ? vaddr : off);
		name = s ? s->name : NULL;
	}
	if (!name || sym->opts.inline_frames || sym->opts.lines)
		dbg = local_file(sym, o);
	if (dbg && !have_vaddr)
		have_vaddr = dbg_file__offset_to_vaddr(dbg, off, &vaddr);
	if (dbg && have_vaddr && !name) {
		name = dbg_file__symbol(dbg, vaddr);
		if (name && !(name = strtab__dup(&sym->names, name)))
			return -ENOMEM;
	}
	if (dbg && have_vaddr && (sym->opts.inline_frames || sym->opts.lines))
		n = dbg_file__frames(dbg, vaddr, chain, DBG_MAX_INLINE);
	if (!name && n && chain[n - 1].func)
		name = strtab__dup(&sym->names, chain[n - 1].func);
	if (!name) {
		if (!o->pub.why)
			o->pub.why = o->bin && o->bin->view.nr_symbols ? "not in the symbols"
				     : dbg ? "not in the local file's symbols" : "no symbols";
		f->name = intern_fmt(sym, "%s+0x%" PRIx64, m->base, addr - m->start + m->pgoff);
		return f->name ? 1 : -ENOMEM;
	}
	f->flags = SYM_FRAME_RESOLVED;
	err = shown_name(sym, name, &name, &system);
	if (err)
		return err;
	if (!n || !sym->opts.inline_frames) {
		f->name = decorate(sym, name, n ? &chain[0] : NULL, vaddr, have_vaddr);
		f->system_name = system;
		return f->name ? 1 : -ENOMEM;
	}
	/* chain[0] innermost .. chain[n - 1] the function the code is in */
	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		const char *iname = name, *isystem = system;

		if (i < n - 1) {
			iname = "[unknown]";
			isystem = NULL;
			if (chain[i].func) {
				err = shown_name(sym, chain[i].func, &iname, &isystem);
				if (err)
					return err;
			}
		}
		out[i] = *f;
		out[i].name = decorate(sym, iname, &chain[i], vaddr, have_vaddr);
		if (!out[i].name)
			return -ENOMEM;
		out[i].system_name = isystem;
		if (i < n - 1)
			out[i].flags |= SYM_FRAME_INLINE;
	}
	return n;
}

static uint64_t cache_hash(uint32_t tgid, uint32_t stack_id, uint32_t epoch)
{
	uint64_t h = ((uint64_t)tgid << 32 | stack_id) ^ ((uint64_t)epoch * 0x9e3779b97f4a7c15ull);

	h ^= h >> 33;		/* murmur3's finalizer */
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

static struct cache_slot *cache_probe(struct cache_slot *cache, size_t cap, uint32_t tgid,
				      uint32_t stack_id, uint32_t epoch)
{
	size_t j = cache_hash(tgid, stack_id, epoch) & (cap - 1);

	for (; cache[j].st; j = (j + 1) & (cap - 1))
		if (cache[j].tgid == tgid && cache[j].stack_id == stack_id &&
		    cache[j].epoch == epoch)
			break;
	return &cache[j];
}

static int cache_grow(struct symbolizer *sym)
{
	size_t cap = sym->cache_cap ? sym->cache_cap * 2 : 1024, i;
	struct cache_slot *c, *s;

	c = calloc(cap, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (i = 0; i < sym->cache_cap; i++) {
		s = &sym->cache[i];
		if (s->st)
			*cache_probe(c, cap, s->tgid, s->stack_id, s->epoch) = *s;
	}
	free(sym->cache);
	sym->cache = c;
	sym->cache_cap = cap;
	return 0;
}

/* A user frame that fell in no mapping and no JIT map. */
static bool is_unmapped(const struct sym_frame *f)
{
	return f->obj == OBJ_UNKNOWN + 1 && !(f->flags & SYM_FRAME_RESOLVED);
}

static int symbolize_raw(struct symbolizer *sym, const struct raw_stack *raw,
			 const struct proc_maps *pm, uint32_t tgid, uint64_t t,
			 struct sym_stack **out)
{
	size_t nr = raw ? (size_t)raw->nr_kernel + raw->nr_user : 0, i, cap, k = 0;
	int per = sym->opts.inline_frames ? DBG_MAX_INLINE : 1, n;
	struct sym_stack *st, *small;
	int err = 0;

	cap = raw ? raw->nr_kernel + (size_t)raw->nr_user * (size_t)per : 0;
	st = calloc(1, sizeof(*st) + cap * sizeof(st->frames[0]));
	if (!st)
		return -ENOMEM;
	st->missing = !raw;
	if (raw)
		st->nr_kernel = raw->nr_kernel;
	for (i = 0; i < nr && !err; i++) {
		uint64_t addr = sym->frames[raw->off + i];

		if (i < raw->nr_kernel) {
			err = symbolize_kernel(sym, addr, i > 0, &st->frames[k]);
			n = 1;
		} else {
			n = symbolize_user(sym, pm, tgid, t, addr, i > raw->nr_kernel,
					   &st->frames[k], per);
			/*
			 * A frame-pointer walk through code built without frame
			 * pointers yields runs of values that are in no mapping at
			 * all; one "[unknown]" stands for the whole run.
			 */
			if (n == 1 && k > st->nr_kernel && is_unmapped(&st->frames[k]) &&
			    is_unmapped(&st->frames[k - 1]))
				n = 0;
			if (n < 0)
				err = n;
			else
				st->nr_user += (uint32_t)n;
		}
		for (; !err && n > 0; n--, k++)
			if (st->frames[k].flags & SYM_FRAME_RESOLVED)
				st->nr_resolved++;
	}
	if (err) {
		free(st);
		return err;
	}
	if (k < cap) {	/* give back what inline frames did not use */
		small = realloc(st, sizeof(*st) + k * sizeof(st->frames[0]));
		if (small)
			st = small;
	}
	*out = st;
	return 0;
}

int symbolizer__stack(struct symbolizer *sym, uint32_t tgid, uint32_t stack_id,
		      uint64_t time_ns, const struct sym_stack **out)
{
	const struct proc_maps *pm;
	struct cache_slot *slot;
	struct sym_stack *st;
	uint32_t epoch, gen;
	int err;

	if (!sym->prepared) {
		err = prepare(sym);
		if (err)
			return err;
	}
	pm = find_proc(sym, tgid);
	epoch = pm ? epoch_of(sym, pm, time_ns) : 0;
	/* a reused pid's later JIT map starts an epoch of its own */
	if (find_jit(sym, tgid, time_ns, &gen))
		epoch += gen << 24;
	if (sym->nr_cached * 2 >= sym->cache_cap) {
		err = cache_grow(sym);
		if (err)
			return err;
	}
	slot = cache_probe(sym->cache, sym->cache_cap, tgid, stack_id, epoch);
	if (!slot->st) {
		err = symbolize_raw(sym, find_raw_stack(sym, stack_id), pm, tgid, time_ns, &st);
		if (err)
			return err;
		slot->tgid = tgid;
		slot->stack_id = stack_id;
		slot->epoch = epoch;
		slot->st = st;
		sym->nr_cached++;
	}
	*out = slot->st;
	return 0;
}

/* --- whole recordings and aggregates -------------------------------------- */

struct load_ctx {
	struct symbolizer *sym;
	int err;
};

static int on_stack(void *ctx, const struct rec_stack *st)
{
	struct load_ctx *lc = ctx;

	return lc->err = symbolizer__add_stack(lc->sym, st);
}

static int on_mapping(void *ctx, const struct rec_mapping *m)
{
	struct load_ctx *lc = ctx;

	return lc->err = symbolizer__add_mapping(lc->sym, m);
}

static int on_binary(void *ctx, const struct rec_binary *b)
{
	struct load_ctx *lc = ctx;

	return lc->err = symbolizer__add_binary(lc->sym, b);
}

static int on_ksym(void *ctx, const struct rec_ksym *k)
{
	struct load_ctx *lc = ctx;

	return lc->err = symbolizer__add_ksym(lc->sym, k);
}

int symbolizer__load(struct symbolizer *sym, struct recording *rec)
{
	struct load_ctx lc = { sym, 0 };
	size_t i;
	int err;

	err = recording__for_each_stack(rec, on_stack, &lc);
	if (!err)
		err = recording__for_each_mapping(rec, on_mapping, &lc);
	if (!err)
		err = recording__for_each_binary(rec, on_binary, &lc);
	if (!err)
		err = recording__for_each_ksym(rec, on_ksym, &lc);
	if (err && lc.err)
		return pr_errno(err, "cannot load the symbol data of '%s'", recording__path(rec));
	if (err)
		return err;
	err = prepare(sym);
	if (err)
		return pr_errno(err, "cannot index the symbol data of '%s'", recording__path(rec));
	sym->rec = rec;
	for (i = 0; i < sym->nr_objs; i++) {
		struct object *o = &sym->objs[i];

		if (o->special || !o->pub.build_id_len)
			continue;
		err = recording__has_debuginfo(rec, o->pub.build_id, o->pub.build_id_len);
		if (err < 0)
			return err;
		o->pub.embedded_dwarf = err == 1;
	}
	return 0;
}

static void count_objects(struct symbolizer *sym, const struct sym_stack *st, uint64_t count)
{
	uint32_t i;

	for (i = 0; i < st->nr_kernel + st->nr_user; i++) {
		const struct sym_frame *f = &st->frames[i];
		struct object *o;

		if (!f->obj || f->obj > sym->nr_objs)
			continue;
		o = &sym->objs[f->obj - 1];
		o->pub.frames += count;
		if (!(f->flags & SYM_FRAME_RESOLVED))
			o->pub.unresolved += count;
	}
}

int symbolizer__resolve(struct symbolizer *sym, struct stack_agg *agg)
{
	const struct sym_stack *st;
	size_t i;
	int err;

	for (i = 0; i < agg->nr; i++) {
		struct agg_entry *e = &agg->entries[i];

		err = symbolizer__stack(sym, e->tgid, e->stack_id, e->last_ns, &st);
		if (err)
			return pr_errno(err, "cannot symbolize stack %" PRIu32 " of process %" PRIu32,
					e->stack_id, e->tgid);
		e->stack = st;
		count_objects(sym, st, e->count);
		sym->stats.frames += (uint64_t)(st->nr_kernel + st->nr_user) * e->count;
		sym->stats.resolved += (uint64_t)st->nr_resolved * e->count;
		if (st->missing)
			sym->stats.missing_stack_samples += e->count;
	}
	return sym->damage;
}

const struct sym_stats *symbolizer__stats(const struct symbolizer *sym)
{
	return &sym->stats;
}

size_t symbolizer__nr_symbolized(const struct symbolizer *sym)
{
	return sym->nr_cached;
}

int symbolizer__set_opts(struct symbolizer *sym, const struct sym_opts *o)
{
	if (sym->prepared && sym->nr_cached)
		return -EBUSY;
	sym->opts = *o;
	return 0;
}

size_t symbolizer__nr_objects(const struct symbolizer *sym)
{
	return sym->nr_objs;
}

const struct sym_object *symbolizer__object(const struct symbolizer *sym, size_t i)
{
	return i < sym->nr_objs ? &sym->objs[i].pub : NULL;
}

static int cmp_unresolved(const void *a, const void *b)
{
	const struct sym_object *x = *(const struct sym_object *const *)a;
	const struct sym_object *y = *(const struct sym_object *const *)b;

	if (x->unresolved != y->unresolved)
		return x->unresolved > y->unresolved ? -1 : 1;
	return strcmp(x->path, y->path);
}

#define MAX_UNRESOLVED_SHOWN	8

void symbolizer__print_unresolved(const struct symbolizer *sym, FILE *f)
{
	const struct sym_object **v;
	size_t i, nr = 0;

	v = calloc(sym->nr_objs ? sym->nr_objs : 1, sizeof(*v));
	if (!v)
		return;
	for (i = 0; i < sym->nr_objs; i++)
		if (sym->objs[i].pub.unresolved)
			v[nr++] = &sym->objs[i].pub;
	sort(v, nr, sizeof(*v), cmp_unresolved);
	if (nr)
		fputs("eprof: unresolved frames:", f);
	for (i = 0; i < nr && i < MAX_UNRESOLVED_SHOWN; i++)
		fprintf(f, "%s %s %" PRIu64 " (%s)", i ? "," : "", basename_of(v[i]->path),
			v[i]->unresolved, v[i]->why ? v[i]->why : "no symbols");
	if (nr > MAX_UNRESOLVED_SHOWN)
		fprintf(f, ", and %zu more binaries", nr - MAX_UNRESOLVED_SHOWN);
	if (nr)
		fputc('\n', f);
	free(v);
}
