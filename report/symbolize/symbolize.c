// SPDX-License-Identifier: MIT
/*
 * report/symbolize/symbolize.c - offline symbolization from the recording alone.
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
 * (report/symbolize/debuginfo.c), only ever by matching build-id, and only when the
 * options ask for it; so do inline frames and source lines. Anonymous
 * memory is named through the process's JIT map (/tmp/perf-PID.map, stored
 * by the recorder as a binary of that path). The recorder stores symbols
 * commit by commit, so rows of one binary (or JIT map) are merged into one
 * and repeated kernel symbols dropped. Each frame is charged to an
 * object (a binary, "[kernel]", "[unknown]") so a report can say where the
 * unresolved frames are and why.
 *
 * This file owns the symbolizer and turns raw stacks into named ones;
 * maps.c, binaries.c, kernel.c and names.c do the lookups it asks for
 * (internal.h says who calls whom).
 *
 * Stacks are cached by (tgid, stack id, epoch), the epoch being how many of
 * P's mapping times are <= t: within one epoch the same mappings are in
 * effect, so the result cannot differ, and an exec that maps a new binary at
 * the same addresses still gets a stack of its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf_file.h"
#include "format/recording.h"
#include "report/aggregate/aggregate.h"
#include "report/aggregate/strtab.h"
#include "report/symbolize/internal.h"
#include "util/bsearch.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/vec.h"

struct symbolizer *symbolizer__new(void)
{
	struct symbolizer *sym = calloc(1, sizeof(*sym));

	if (sym) {
		strtab__init(&sym->names);
		demangler__init(&sym->dm, &sym->names);
		sym->sideband_lost_ns = UINT64_MAX;	/* none known lost */
	}
	return sym;
}

void symbolizer__free(struct symbolizer *sym)
{
	size_t i;

	if (!sym)
		return;
	for (i = 0; i < sym->nr_cached; i++)
		free(sym->cache[i].st);
	free(sym->cache);
	hashmap__release(&sym->cache_index);
	for (i = 0; i < sym->nr_objs; i++)
		dbg_file__close(sym->objs[i].dbg);
	free(sym->objs);
	debuginfod__end(sym);
	free(sym->jits);
	symbolizer__release_py(sym);
	for (i = 0; i < sym->nr_bins; i++) {
		free(sym->bins[i].segs);
		free(sym->bins[i].syms);
		free(sym->bins[i].fdes);
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

/* --- preparing: sort everything once ------------------------------------ */

static int cmp_raw_stack(const void *a, const void *b)
{
	const struct raw_stack *x = a, *y = b;

	return x->id != y->id ? CMP(x->id, y->id) : CMP(x->off, y->off);
}

static int prepare(struct symbolizer *sym)
{
	int err;

	sort(sym->stacks, sym->nr_stacks, sizeof(*sym->stacks), cmp_raw_stack);
	symbolizer__index_ksyms(sym);
	err = symbolizer__index_binaries(sym);
	if (!err)
		err = symbolizer__index_maps(sym);
	if (!err)
		err = symbolizer__build_objects(sym);
	if (!err)
		sym->prepared = true;
	return err;
}

/* --- lookups ---------------------------------------------------------------- */

static bool raw_stack_below(const void *elem, const void *key)
{
	return ((const struct raw_stack *)elem)->id < *(const uint32_t *)key;
}

static const struct raw_stack *find_raw_stack(const struct symbolizer *sym, uint32_t id)
{
	size_t lo = bsearch_lower_bound(&id, sym->stacks, sym->nr_stacks, sizeof(*sym->stacks),
					raw_stack_below);

	return lo < sym->nr_stacks && sym->stacks[lo].id == id ? &sym->stacks[lo] : NULL;
}

/*
 * An address in no file mapping may be a JIT's code: 1 with *f named from
 * the JIT's symbols, 0 when none holds it, or -ENOMEM.
 */
static int symbolize_jit(struct symbolizer *sym, uint32_t tgid, uint64_t t, uint64_t look,
			 struct sym_frame *f)
{
	uint32_t gen;
	const struct jit *j = symbolizer__find_jit(sym, tgid, t, &gen);
	const struct bin_sym *s = j ? bin__find_symbol(j->bin, look) : NULL;

	if (!s)
		return 0;
	f->name = symbolizer__intern_fmt(sym, "%s_[j]", s->s.name);
	f->dso = j->bin->view.path;
	f->flags = SYM_FRAME_RESOLVED | SYM_FRAME_JIT;
	f->source = SYM_SRC_JIT;
	f->obj = j->obj + 1;
	return f->name ? 1 : -ENOMEM;
}

/* No mapping holds the address: the frame stays "[unknown]" and its object says why. */
static void symbolize_no_map(struct symbolizer *sym, uint64_t t, struct sym_frame *f)
{
	if (t >= sym->sideband_lost_ns) {
		f->name = SYM_SIDEBAND_LOST;
		f->flags = SYM_FRAME_SIDEBAND_LOST;
		sym->objs[OBJ_UNKNOWN].pub.why = "no mapping; side-band records lost";
		return;
	}
	if (!sym->objs[OBJ_UNKNOWN].pub.why)
		sym->objs[OBJ_UNKNOWN].pub.why = "no mapping";
}

/*
 * No name for an address in mapping m: the frame stays unresolved, spelled
 * "file+0xOFF", and its object says why. 1, or -ENOMEM.
 */
static int symbolize_unnamed(struct symbolizer *sym, const struct map *m, struct object *o,
			     const struct dbg_file *dbg, bool have_vaddr, uint64_t vaddr,
			     uint64_t addr, struct sym_frame *f)
{
	const struct rec_symbol *fde;
	uint64_t off;

	if (!o->pub.why)
		o->pub.why = o->bin && o->bin->view.nr_symbols ? "not in the symbols"
			     : dbg ? "not in the local file's symbols" : "no symbols";
	f->source = SYM_SRC_UNRESOLVED;
	/*
	 * A stripped function: every address in it is spelled by the
	 * function's start, which its FDE gives, so that it makes one
	 * row and one tower; the frame stays unresolved (pprof keeps
	 * the address, with no function).
	 */
	fde = m->bin && have_vaddr ? bin__find_fde(m->bin, vaddr) : NULL;
	if (fde && !elf_segments__vaddr_to_offset(m->bin->view.segments,
						   m->bin->view.nr_segments, fde->addr,
						   &off, &vaddr))
		f->name = symbolizer__intern_fmt(sym, "%s+0x%" PRIx64, m->base, off);
	else
		f->name = symbolizer__intern_fmt(sym, "%s+0x%" PRIx64, m->base,
						 addr - m->start + m->pgoff);
	return f->name ? 1 : -ENOMEM;
}

/*
 * A resolved frame f (out[0]) as one frame per inline level of chain[0 .. n)
 * (chain[0] innermost .. chain[n - 1] the function the code is in, named
 * name and system): out[0 .. n), at most max. n, or -errno.
 */
static int symbolize_inlines(struct symbolizer *sym, const char *name, const char *system,
			     const struct dbg_frame *chain, int n, uint64_t vaddr,
			     bool have_vaddr, struct sym_frame *out, int max)
{
	const struct sym_frame *f = &out[0];
	int i, err;

	if (n > max)
		n = max;
	for (i = 0; i < n; i++) {
		const char *iname = name, *isystem = system;

		if (i < n - 1) {
			iname = "[unknown]";
			isystem = NULL;
			if (chain[i].func) {
				err = symbolizer__shown_name(sym, chain[i].func, &iname, &isystem);
				if (err)
					return err;
			}
		}
		out[i] = *f;
		out[i].name = symbolizer__decorate(sym, iname, &chain[i], vaddr, have_vaddr);
		if (!out[i].name)
			return -ENOMEM;
		out[i].system_name = isystem;
		err = symbolizer__set_source(sym, &out[i], iname, &chain[i]);
		if (err)
			return err;
		if (i < n - 1)
			out[i].flags |= SYM_FRAME_INLINE;
	}
	return n;
}

/* Fills out[0 .. n) for one user address, innermost first; returns n (>= 1) or -ENOMEM. */
static int symbolize_user(struct symbolizer *sym, const struct proc_maps *pm, uint32_t tgid,
			  uint64_t t, uint64_t addr, bool is_return, struct sym_frame *out,
			  int max)
{
	uint64_t look = is_return && addr ? addr - 1 : addr, vaddr = 0, off;
	const struct map *m = pm ? symbolizer__find_map(sym, pm, look, t) : NULL;
	struct dbg_frame chain[DBG_MAX_INLINE];
	const struct bin_sym *s = NULL;
	struct sym_frame *f = &out[0];
	const char *name = NULL, *system = NULL;
	struct dbg_file *dbg = NULL;
	struct object *o;
	bool have_vaddr = false;
	int n = 0, err;

	f->addr = addr;
	f->flags = 0;
	f->name = "[unknown]";
	f->dso = NULL;
	f->system_name = NULL;
	f->func = NULL;
	f->src_file = NULL;
	f->src_line = f->func_line = 0;
	f->obj = OBJ_UNKNOWN + 1;
	f->source = SYM_SRC_UNRESOLVED;
	if (!m || !is_file_path(m->path)) {
		err = symbolize_jit(sym, tgid, t, look, f);
		if (err)
			return err;
	}
	if (!m) {
		symbolize_no_map(sym, t, f);
		return 1;
	}
	o = &sym->objs[m->obj];
	f->dso = m->path;
	f->obj = m->obj + 1;
	off = look - m->start + m->pgoff;
	if (m->bin && m->bin->view.nr_segments)
		have_vaddr = !elf_segments__offset_to_vaddr(m->bin->view.segments,
							    m->bin->view.nr_segments, off, &vaddr);
	if (m->bin) {
		s = bin__find_symbol(m->bin, have_vaddr ? vaddr : off);
		name = s ? s->s.name : NULL;
		f->source = s ? s->src : SYM_SRC_UNRESOLVED;
	}
	if (!name || sym->opts.inline_frames || sym->opts.lines)
		dbg = symbolizer__debug_file(sym, o);
	if (dbg && !have_vaddr)
		have_vaddr = dbg_file__offset_to_vaddr(dbg, off, &vaddr);
	if (dbg && have_vaddr && !name) {
		name = dbg_file__symbol(dbg, vaddr);
		if (name && !(name = strtab__dup(&sym->names, name)))
			return -ENOMEM;
		f->source = o->dbg_src;
	}
	if (dbg && have_vaddr && (sym->opts.inline_frames || sym->opts.lines))
		n = dbg_file__frames(dbg, vaddr, chain, DBG_MAX_INLINE);
	if (!name && n && chain[n - 1].func) {
		name = strtab__dup(&sym->names, chain[n - 1].func);
		f->source = o->dbg_src;
	}
	if (!name)
		return symbolize_unnamed(sym, m, o, dbg, have_vaddr, vaddr, addr, f);
	f->flags = SYM_FRAME_RESOLVED;
	err = symbolizer__shown_name(sym, name, &name, &system);
	if (err)
		return err;
	if (!n || !sym->opts.inline_frames) {
		f->name = symbolizer__decorate(sym, name, n ? &chain[0] : NULL, vaddr, have_vaddr);
		f->system_name = system;
		if (!f->name)
			return -ENOMEM;
		/* the line in the function named: where its code inlined the others */
		err = symbolizer__set_source(sym, f, name, n ? &chain[n - 1] : NULL);
		return err ? err : 1;
	}
	return symbolize_inlines(sym, name, system, chain, n, vaddr, have_vaddr, out, max);
}

static bool cached_eq(uint32_t i, const void *key, const void *ctx)
{
	const struct cached_stack *c = &((const struct symbolizer *)ctx)->cache[i];
	const struct cached_stack *k = key;

	return c->tgid == k->tgid && c->stack_id == k->stack_id && c->epoch == k->epoch &&
	       c->after_loss == k->after_loss;
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
	bool py_run = false;
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
			err = symbolizer__kernel_frame(sym, addr, i > 0, &st->frames[k]);
			st->frames[k].source = st->frames[k].flags & SYM_FRAME_RESOLVED
					       ? SYM_SRC_KERNEL : SYM_SRC_UNRESOLVED;
			n = 1;
		} else if (sym_is_python_frame(addr) && !sym->opts.no_python) {
			err = symbolizer__py_frame(sym, tgid, addr, &st->frames[k]);
			n = err ? 0 : 1;
			if (n)
				st->nr_user++;
			py_run = true;
		} else if (sym_is_python_frame(addr)) {
			n = 0;		/* --no-python: the native frames alone */
		} else if (py_run && !sym->opts.no_python) {
			/* the eval-loop frame that ran them: its Python frames stand for it */
			py_run = false;
			n = 0;
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
	struct cached_stack key = { .tgid = tgid, .stack_id = stack_id };
	const struct proc_maps *pm;
	uint32_t *i, gen;
	uint64_t hash;
	int err;

	if (!sym->prepared) {
		err = prepare(sym);
		if (err)
			return err;
	}
	pm = symbolizer__find_proc(sym, tgid);
	key.epoch = pm ? symbolizer__epoch(sym, pm, time_ns) : 0;
	/* a reused pid's later JIT map starts an epoch of its own */
	if (symbolizer__find_jit(sym, tgid, time_ns, &gen))
		key.epoch += gen << 24;
	key.after_loss = time_ns >= sym->sideband_lost_ns;
	hash = hash_mix((uint64_t)tgid << 32 | stack_id, key.epoch | (uint64_t)key.after_loss << 32);
	i = hashmap__find(&sym->cache_index, hash, cached_eq, &key, sym);
	if (i) {
		*out = sym->cache[*i].st;
		return 0;
	}
	if (vec__grow(&sym->cache, &sym->alloc_cache, sym->nr_cached + 1, sizeof(*sym->cache)))
		return -ENOMEM;
	err = symbolize_raw(sym, find_raw_stack(sym, stack_id), pm, tgid, time_ns, &key.st);
	if (err)
		return err;
	err = hashmap__add(&sym->cache_index, hash, (uint32_t)sym->nr_cached);
	if (err) {
		free(key.st);
		return err;
	}
	sym->cache[sym->nr_cached++] = key;
	*out = key.st;
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

static int on_py_code(void *ctx, const struct rec_py_code *c)
{
	struct load_ctx *lc = ctx;

	return lc->err = symbolizer__add_py_code(lc->sym, c);
}

static int on_ksym(void *ctx, const struct rec_ksym *k)
{
	struct load_ctx *lc = ctx;

	return lc->err = symbolizer__add_ksym(lc->sym, k);
}

/* The first loss row with side-band records lost, then the row before it. */
struct loss_window {
	uint64_t first;		/* its time; UINT64_MAX: none */
	uint64_t before;	/* the latest row's time before first; 0: none */
};

static int on_loss_first(void *ctx, const struct rec_loss *l)
{
	struct loss_window *w = ctx;

	if (l->lost_sideband && l->time_ns < w->first)
		w->first = l->time_ns;
	return 0;
}

static int on_loss_before(void *ctx, const struct rec_loss *l)
{
	struct loss_window *w = ctx;

	if (l->time_ns < w->first && l->time_ns > w->before)
		w->before = l->time_ns;
	return 0;
}

/*
 * A loss row counts what was lost on its CPU since the CPU's previous
 * row, so the first lost record can be as old as the row before the first
 * row with side-band records lost (any CPU's: rows are written together).
 * A mapping whose record was lost stays missing for the rest of its
 * process's life, on every CPU, so the window has no end.
 */
static int find_sideband_loss(struct symbolizer *sym, struct recording *rec)
{
	struct loss_window w = { UINT64_MAX, 0 };
	int err = recording__for_each_loss(rec, on_loss_first, &w);

	if (!err && w.first != UINT64_MAX)
		err = recording__for_each_loss(rec, on_loss_before, &w);
	sym->sideband_lost_ns = w.first == UINT64_MAX ? UINT64_MAX : w.before;
	return err;
}

int symbolizer__load(struct symbolizer *sym, struct recording *rec)
{
	struct load_ctx lc = { sym, 0 };
	size_t i;
	int err;

	err = find_sideband_loss(sym, rec);
	if (err)
		return pr_errno(err, "cannot read the losses of '%s'", recording__path(rec));
	err = recording__for_each_stack(rec, on_stack, &lc);
	if (!err)
		err = recording__for_each_mapping(rec, on_mapping, &lc);
	if (!err)
		err = recording__for_each_binary(rec, on_binary, &lc);
	if (!err)
		err = recording__for_each_ksym(rec, on_ksym, &lc);
	if (!err)
		err = recording__for_each_py_code(rec, on_py_code, &lc);
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

		/* a resolved frame has a source, an unresolved one none */
		sym->stats.by_source[f->flags & SYM_FRAME_RESOLVED && f->source < SYM_SRC_MAX
				     ? f->source : SYM_SRC_UNRESOLVED] += count;
		if (!f->obj || f->obj > sym->nr_objs)
			continue;
		o = &sym->objs[f->obj - 1];
		o->pub.frames += count;
		if (!(f->flags & SYM_FRAME_RESOLVED))
			o->pub.unresolved += count;
	}
}

static bool sideband_lost(const struct sym_stack *st)
{
	uint32_t i;

	for (i = 0; i < st->nr_user; i++)
		if (st->frames[st->nr_kernel + i].flags & SYM_FRAME_SIDEBAND_LOST)
			return true;
	return false;
}

void sym_table__release(struct sym_table *t)
{
	free(t->stack);
	t->stack = NULL;
	t->nr = 0;
}

int symbolizer__resolve(struct symbolizer *sym, const struct stack_agg *agg,
			struct sym_table *out)
{
	struct sym_table t = { calloc(agg->nr ? agg->nr : 1, sizeof(*t.stack)), agg->nr };
	const struct sym_stack *st;
	uint64_t n;
	size_t i;
	int err;

	if (!t.stack)
		return pr_errno(-ENOMEM, "cannot symbolize the stacks");
	for (i = 0; i < agg->nr; i++) {
		const struct agg_entry *e = &agg->entries[i];

		err = symbolizer__stack(sym, e->tgid, e->stack_id, e->last_ns, &st);
		if (err) {
			sym_table__release(&t);
			return pr_errno(err, "cannot symbolize stack %" PRIu32 " of process %" PRIu32,
					e->stack_id, e->tgid);
		}
		t.stack[i] = st;
		n = stack_agg__events(agg, e);
		count_objects(sym, st, n);
		sym->stats.frames += (uint64_t)(st->nr_kernel + st->nr_user) * n;
		sym->stats.resolved += (uint64_t)st->nr_resolved * n;
		if (st->missing)
			sym->stats.missing_stack_samples += n;
		if (sideband_lost(st))
			sym->stats.sideband_lost_samples += n;
	}
	*out = t;
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
	sym->dm.short_names = o->short_names;
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

#define MAX_UNRESOLVED_SHOWN	8

const char *sym_source__name(enum sym_source s)
{
	static const char *const names[SYM_SRC_MAX] = {
		[SYM_SRC_UNRESOLVED] = "unresolved",
		[SYM_SRC_ELF] = "binary",
		[SYM_SRC_DEBUG_FILE] = "debug file",
		[SYM_SRC_DEBUGLINK] = "debuglink",
		[SYM_SRC_DEBUGDATA] = ".gnu_debugdata",
		[SYM_SRC_DEBUGINFOD] = "debuginfod",
		[SYM_SRC_EMBEDDED] = "embedded DWARF",
		[SYM_SRC_JIT] = "JIT map",
		[SYM_SRC_KERNEL] = "kernel",
		[SYM_SRC_PLT] = "PLT",
		[SYM_SRC_PYTHON] = "Python",
	};

	return (unsigned int)s < SYM_SRC_MAX ? names[s] : "?";
}

const char *sym_source__key(enum sym_source s)
{
	static const char *const keys[SYM_SRC_MAX] = {
		[SYM_SRC_UNRESOLVED] = "unresolved",
		[SYM_SRC_ELF] = "binary",
		[SYM_SRC_DEBUG_FILE] = "debug_file",
		[SYM_SRC_DEBUGLINK] = "debuglink",
		[SYM_SRC_DEBUGDATA] = "gnu_debugdata",
		[SYM_SRC_DEBUGINFOD] = "debuginfod",
		[SYM_SRC_EMBEDDED] = "embedded_dwarf",
		[SYM_SRC_JIT] = "jit_map",
		[SYM_SRC_KERNEL] = "kernel",
		[SYM_SRC_PLT] = "plt",
		[SYM_SRC_PYTHON] = "python",
	};

	return (unsigned int)s < SYM_SRC_MAX ? keys[s] : "unknown";
}

void sym_sources__print(const uint64_t *by_source, const char *lead, FILE *f)
{
	const char *sep = "";
	int i;

	/* unresolved last, the sources in their fixed order before it */
	for (i = 1; i <= SYM_SRC_MAX; i++) {
		int s = i % SYM_SRC_MAX;

		if (!by_source[s])
			continue;
		if (!*sep)
			fputs(lead, f);
		fprintf(f, "%s %s %" PRIu64, sep, sym_source__name(s), by_source[s]);
		sep = ",";
	}
	if (*sep)
		fputc('\n', f);
}

struct sym_tally {
	struct strtab keys;		/* "why\x01path" -> id */
	uint64_t *count;		/* id -> unresolved frames */
	size_t alloc;
};

struct sym_tally *sym_tally__new(void)
{
	struct sym_tally *t = calloc(1, sizeof(*t));

	if (t)
		strtab__init(&t->keys);
	return t;
}

void sym_tally__free(struct sym_tally *t)
{
	if (!t)
		return;
	strtab__release(&t->keys);
	free(t->count);
	free(t);
}

int sym_tally__add(struct sym_tally *t, const struct symbolizer *sym)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t id;
	size_t i;
	int err = 0;

	for (i = 0; i < sym->nr_objs && !err; i++) {
		const struct sym_object *o = &sym->objs[i].pub;

		if (!o->unresolved)
			continue;
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s\x01%s", o->why ? o->why : "no symbols", o->path);
		err = sb.oom ? -ENOMEM : strtab__intern(&t->keys, sb.buf, &id);
		if (!err)
			err = vec__grow_zero(&t->count, &t->alloc, (size_t)id + 1, sizeof(*t->count));
		if (!err)
			t->count[id] += o->unresolved;
	}
	strbuf_release(&sb);
	return err;
}

static const struct sym_tally *sort_tally;	/* qsort() has no context in C */

/* Most unresolved first, then by path (after the why). */
static int cmp_tally(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_tally->count[x] != sort_tally->count[y])
		return sort_tally->count[x] > sort_tally->count[y] ? -1 : 1;
	return strcmp(strchr(strtab__str(&sort_tally->keys, x), '\x01'),
		      strchr(strtab__str(&sort_tally->keys, y), '\x01'));
}

void sym_tally__print(const struct sym_tally *t, const char *what, FILE *f)
{
	uint32_t *v, i, nr = t->keys.nr;
	const char *key, *sep;

	if (!nr)
		return;
	v = calloc(nr, sizeof(*v));
	if (!v)
		return;
	for (i = 0; i < nr; i++)
		v[i] = i;
	sort_tally = t;
	qsort(v, nr, sizeof(*v), cmp_tally);
	if (what)
		fprintf(f, "eprof: unresolved frames %s:", what);
	else
		fputs("eprof: unresolved frames:", f);
	for (i = 0; i < nr && i < MAX_UNRESOLVED_SHOWN; i++) {
		key = strtab__str(&t->keys, v[i]);
		sep = strchr(key, '\x01');
		fprintf(f, "%s %s %" PRIu64 " (%.*s)", i ? "," : "", basename_of(sep + 1),
			t->count[v[i]], (int)(sep - key), key);
	}
	if (nr > MAX_UNRESOLVED_SHOWN)
		fprintf(f, ", and %u more binaries", nr - MAX_UNRESOLVED_SHOWN);
	fputc('\n', f);
	free(v);
}

void symbolizer__print_unresolved(const struct symbolizer *sym, const char *path, FILE *f)
{
	struct sym_tally *t = sym_tally__new();
	struct strbuf what = STRBUF_INIT;

	if (path)
		strbuf_addf(&what, "in '%s'", path);
	if (t && !what.oom && !sym_tally__add(t, sym))
		sym_tally__print(t, path ? what.buf : NULL, f);
	strbuf_release(&what);
	sym_tally__free(t);
}
