// SPDX-License-Identifier: MIT
/*
 * report/symbolize/binaries.c - the symbol data the recording stores per
 * binary, the objects frames are charged to, and their debug files.
 *
 * A binary is keyed by build-id, or by path when it has none. The recorder
 * stores symbols commit by commit, so several rows of one key are merged
 * into one before anything is looked up. Each distinct binary among the
 * mappings becomes an object (plus "[unknown]", "[kernel]" and the JIT maps,
 * /tmp/perf-PID.map stored as binaries without a build-id) so that a report
 * can say where unresolved frames are and why. An object's DWARF is looked
 * for once: the file the recording embeds first, then local files, only
 * ever by matching build-id.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_file.h"
#include "report/symbolize/internal.h"
#include "util/bsearch.h"
#include "util/log.h"
#include "util/vec.h"

/* The source of a stored symbol, from its row's source and its name. */
static uint32_t row_source(const char *source, const char *name)
{
	size_t n = strlen(name);

	if (n > 4 && !strcmp(name + n - 4, "@plt"))
		return SYM_SRC_PLT;
	if (!strcmp(source, "perf-map"))
		return SYM_SRC_JIT;
	if (!strcmp(source, ".gnu_debugdata"))
		return SYM_SRC_DEBUGDATA;
	if (!strncmp(source, "debuglink", 9))
		return SYM_SRC_DEBUGLINK;
	if (!strncmp(source, "debug file", 10))
		return SYM_SRC_DEBUG_FILE;
	return SYM_SRC_ELF;
}

/* A row of FDE ranges (record/capture.c): function starts, not names. */
static bool is_fde_row(const struct rec_binary *b)
{
	return b->source && !strcmp(b->source, ".eh_frame");
}

int symbolizer__add_binary(struct symbolizer *sym, const struct rec_binary *b)
{
	bool fde = is_fde_row(b);
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
	if (b->nr_symbols && fde) {
		p->fdes = calloc(b->nr_symbols, sizeof(*p->fdes));
		if (!p->fdes) {
			free(p->segs);
			return -ENOMEM;
		}
		for (i = 0; i < b->nr_symbols; i++)
			p->fdes[i] = (struct rec_symbol){ b->symbols[i].addr, b->symbols[i].size,
							  "" };
		p->nr_fdes = b->nr_symbols;
	} else if (b->nr_symbols) {
		p->syms = calloc(b->nr_symbols, sizeof(*p->syms));
		if (!p->syms) {
			free(p->segs);
			return -ENOMEM;
		}
	}
	for (i = 0; !fde && i < b->nr_symbols; i++) {
		struct bin_sym *s = &p->syms[i];

		s->s.addr = b->symbols[i].addr;
		s->s.size = b->symbols[i].size;
		s->s.name = strtab__dup(&sym->names, b->symbols[i].name ? b->symbols[i].name
									: "[unknown]");
		if (!s->s.name) {
			free(p->segs);
			free(p->syms);
			return -ENOMEM;
		}
		s->src = row_source(p->view.source, s->s.name);
	}
	p->view.nr_segments = b->nr_segments;
	p->view.segments = p->segs;
	p->view.nr_symbols = fde ? 0 : b->nr_symbols;
	sym->nr_bins++;
	return 0;
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

static int cmp_rec_symbol(const struct rec_symbol *x, const struct rec_symbol *y)
{
	if (x->addr != y->addr)
		return CMP(x->addr, y->addr);
	if (x->size != y->size)
		return CMP(y->size, x->size);	/* the widest first */
	/* then the public name: malloc, not __libc_malloc (elf_sym__rank) */
	if (elf_sym__underscores(x->name) != elf_sym__underscores(y->name))
		return CMP(elf_sym__underscores(x->name), elf_sym__underscores(y->name));
	return strcmp(x->name, y->name);
}

static int cmp_symbol(const void *a, const void *b)
{
	const struct bin_sym *x = a, *y = b;
	int c = cmp_rec_symbol(&x->s, &y->s);

	return c ? c : CMP(x->src, y->src);
}

static int cmp_fde(const void *a, const void *b)
{
	return cmp_rec_symbol(a, b);
}

static int cmp_map_bin(const struct map *m, const struct bin *b)
{
	return cmp_bin_key(m->build_id_len, m->build_id, m->path, b->view.build_id_len,
			   b->view.build_id, b->view.path);
}

static bool bin_below_map(const void *elem, const void *key)
{
	return cmp_map_bin(key, elem) > 0;
}

/* The bins are unique after merge_bins(). */
const struct bin *symbolizer__find_bin(const struct symbolizer *sym, const struct map *m)
{
	size_t i = bsearch_lower_bound(m, sym->bins, sym->nr_bins, sizeof(*sym->bins),
				       bin_below_map);

	return i < sym->nr_bins && !cmp_map_bin(m, &sym->bins[i]) ? &sym->bins[i] : NULL;
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

static struct object *new_object(struct symbolizer *sym, const char *path)
{
	struct object *o = &sym->objs[sym->nr_objs++];

	memset(o, 0, sizeof(*o));
	o->pub.path = path;
	return o;
}

/* One object per distinct binary key among the maps, plus the special ones. */
int symbolizer__build_objects(struct symbolizer *sym)
{
	struct map **order = NULL;
	struct object *o = NULL;
	size_t i;
	unsigned int pid;
	char tail;

	for (i = 0; i < sym->nr_objs; i++)
		dbg_file__close(sym->objs[i].dbg);
	free(sym->objs);	/* a failed earlier attempt may have left them */
	free(sym->jits);
	sym->objs = NULL;
	sym->jits = NULL;
	sym->nr_objs = sym->nr_jits = 0;
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
/* Appends n items of size elem at src to the calloc'd *dst of *nr items. */
static int append(void *dst, size_t *nr, const void *src, size_t n, size_t elem)
{
	char *p;

	if (!n)
		return 0;
	p = realloc(*(void **)dst, (*nr + n) * elem);
	if (!p)
		return -ENOMEM;
	memcpy(p + *nr * elem, src, n * elem);
	*(void **)dst = p;
	*nr += n;
	return 0;
}

static int merge_bins(struct symbolizer *sym)
{
	size_t i, j, out = 0, nr_syms;

	for (i = 0; i < sym->nr_bins; i = j) {
		struct bin *b = &sym->bins[i];

		for (j = i + 1; j < sym->nr_bins && !cmp_bin(b, &sym->bins[j]); j++) {
			struct bin *o = &sym->bins[j];

			nr_syms = b->view.nr_symbols;
			if (append(&b->syms, &nr_syms, o->syms, o->view.nr_symbols, sizeof(*b->syms)) ||
			    append(&b->fdes, &b->nr_fdes, o->fdes, o->nr_fdes, sizeof(*b->fdes))) {
				/* keep the table whole: the rows not merged yet stay apart */
				b->view.nr_symbols = nr_syms;
				if (out != i)
					sym->bins[out] = *b;
				out++;
				memmove(&sym->bins[out], o, (sym->nr_bins - j) * sizeof(*b));
				sym->nr_bins = out + sym->nr_bins - j;
				return -ENOMEM;
			}
			if (!b->view.nr_symbols && o->view.nr_symbols)
				b->view.source = o->view.source;	/* not "none" */
			b->view.nr_symbols = nr_syms;
			if (!b->view.nr_segments && o->view.nr_segments) {
				b->segs = o->segs;
				b->view.segments = o->segs;
				b->view.nr_segments = o->view.nr_segments;
				o->segs = NULL;
			}
			free(o->segs);
			free(o->syms);
			free(o->fdes);
		}
		if (out != i)
			sym->bins[out] = *b;
		out++;
	}
	sym->nr_bins = out;
	return 0;
}

/* Drops exact repeats from sorted symbols (rows that overlap); returns the count left. */
static size_t unique_symbols(struct bin_sym *s, size_t n)
{
	size_t i, out = 0;

	for (i = 0; i < n; i++)
		if (!out || s[out - 1].s.addr != s[i].s.addr || s[out - 1].s.size != s[i].s.size ||
		    strcmp(s[out - 1].s.name, s[i].s.name))
			s[out++] = s[i];
	return out;
}

/* Drops repeated and nested FDE ranges from sorted ones; returns the count left. */
static size_t unique_fdes(struct rec_symbol *s, size_t n)
{
	size_t i, out = 0;

	for (i = 0; i < n; i++)
		if (!out || s[i].addr - s[out - 1].addr >= s[out - 1].size)
			s[out++] = s[i];
	return out;
}

int symbolizer__index_binaries(struct symbolizer *sym)
{
	size_t i;

	sort(sym->bins, sym->nr_bins, sizeof(*sym->bins), cmp_bin);
	if (merge_bins(sym))
		return -ENOMEM;
	for (i = 0; i < sym->nr_bins; i++) {
		struct bin *b = &sym->bins[i];

		sort(b->syms, b->view.nr_symbols, sizeof(*b->syms), cmp_symbol);
		b->view.nr_symbols = unique_symbols(b->syms, b->view.nr_symbols);
		sort(b->fdes, b->nr_fdes, sizeof(*b->fdes), cmp_fde);
		b->nr_fdes = unique_fdes(b->fdes, b->nr_fdes);
	}
	return 0;
}

static bool bin_sym_at_or_below(const void *elem, const void *key)
{
	return ((const struct bin_sym *)elem)->s.addr <= *(const uint64_t *)key;
}

static bool rec_symbol_at_or_below(const void *elem, const void *key)
{
	return ((const struct rec_symbol *)elem)->addr <= *(const uint64_t *)key;
}

const struct bin_sym *bin__find_symbol(const struct bin *b, uint64_t v)
{
	const struct bin_sym *syms = b->syms;
	size_t lo, i, steps;

	lo = bsearch_lower_bound(&v, syms, b->view.nr_symbols, sizeof(*syms), bin_sym_at_or_below);
	/*
	 * syms[lo - 1] starts closest below v; look back a little for an
	 * enclosing symbol when v lies past the end of a nested one. A
	 * zero-size symbol covers only its own address.
	 */
	for (i = lo, steps = 0; i-- > 0 && steps < 16; steps++) {
		const struct bin_sym *s = &syms[i];

		if (v == s->s.addr || v - s->s.addr < s->s.size) {
			while (i > 0 && syms[i - 1].s.addr == s->s.addr)
				s = &syms[--i];	/* aliases: the first in sort order */
			return s;
		}
	}
	return NULL;
}

const struct rec_symbol *bin__find_fde(const struct bin *b, uint64_t v)
{
	size_t lo = bsearch_lower_bound(&v, b->fdes, b->nr_fdes, sizeof(*b->fdes),
					rec_symbol_at_or_below);

	return lo && v - b->fdes[lo - 1].addr < b->fdes[lo - 1].size ? &b->fdes[lo - 1] : NULL;
}

static bool jit_below(const void *elem, const void *key)
{
	return ((const struct jit *)elem)->tgid < *(const uint32_t *)key;
}

const struct jit *symbolizer__find_jit(const struct symbolizer *sym, uint32_t tgid, uint64_t t,
				       uint32_t *gen)
{
	size_t lo, i;
	const struct jit *best = NULL;

	*gen = 0;
	lo = bsearch_lower_bound(&tgid, sym->jits, sym->nr_jits, sizeof(*sym->jits), jit_below);
	for (i = lo; i < sym->nr_jits && sym->jits[i].tgid == tgid && sym->jits[i].since <= t;
	     i++) {
		best = &sym->jits[i];
		*gen = (uint32_t)(i - lo);
	}
	return best;
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
struct dbg_file *symbolizer__debug_file(struct symbolizer *sym, struct object *o)
{
	char why[4096 + 64];
	int err;

	if (o->tried)
		return o->dbg;
	o->tried = true;
	if (o->special)
		return NULL;
	if (o->pub.embedded_dwarf && sym->rec && embedded_file(sym, o)) {
		o->dbg_src = SYM_SRC_EMBEDDED;
		return o->dbg;
	}
	if (!sym->opts.local)
		return NULL;
	err = dbg_file__find(sym->opts.debug_dirs, sym->opts.nr_debug_dirs, o->pub.build_id,
			     o->pub.build_id_len, o->pub.path, &o->dbg, why, sizeof(why));
	if (strstr(why, "another build-id"))	/* one line per binary, at most */
		pr_warn("%s: skipped %s than the recorded one", o->pub.path, why);
	else if (err && strcmp(why, "no local file"))	/* a FIFO, a device, too large */
		pr_warn("%s: skipped %s", o->pub.path, why);
	if (!err)
		o->dbg_src = dbg_file__found(o->dbg) == DBG_FOUND_BINARY ? SYM_SRC_ELF
			     : SYM_SRC_DEBUG_FILE;
	if (err == -ENOENT) {	/* --debuginfod, DEBUGINFOD_URLS: the distribution's servers */
		err = debuginfod__find(sym, o->pub.build_id, o->pub.build_id_len, &o->dbg);
		o->dbg_src = SYM_SRC_DEBUGINFOD;
	}
	if (!err) {
		o->pub.local = strtab__dup(&sym->names, dbg_file__path(o->dbg));
		return o->dbg;
	}
	o->dbg = NULL;
	pr_debug("no local file for '%s' (%s)", o->pub.path, why);
	return NULL;
}
