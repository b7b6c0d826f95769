// SPDX-License-Identifier: MIT
/*
 * record/capture.c - the symbol data of what was sampled, captured while
 * the recording goes, so that every committed sample can be named from the
 * recording alone: on another machine, after the binaries changed, and
 * after a recorder killed with SIGKILL or stopped by a full disk.
 *
 * This is capture, not symbolization: for each sampled user address it
 * finds the mapping that held it (the latest one for that process that
 * began no later than the sample), turns it into an offset in the mapped
 * file, and groups offsets by binary: by the file behind the mapping
 * (mapping__resolve: its device, inode, ctime and size, recorded under its
 * build-id or, when another file claimed that build-id first, under an id
 * of its own), else by path. Each binary is opened once, only if it is
 * that very file with that build-id, and the symbols covering sampled
 * addresses are stored with the file's PT_LOAD segments. report/ does
 * every lookup later.
 *
 * Incremental: every commit (about once a second) first runs a step over
 * the (process, stack) pairs sampled for the first time since the previous
 * step, and the stacks new since then, and adds only symbols not stored
 * before, in the same transaction as the samples that need them. So a
 * binary has one row per step that found new symbols in it (report/ merges
 * rows of one key), each with its segments. What a step needs stays in
 * memory: per binary its parsed symbol table (the ELF file stays mapped, its
 * descriptor closed) and a byte per symbol saying it is stored; the kernel
 * symbols, read from /proc/kallsyms once, at the first kernel address. A
 * CPU-bound workload soon samples no new pairs: its steps cost nothing.
 *
 * A pair whose address is in no mapping yet (its mmap record may still be
 * queued) is tried again at the next step, and every pair once more at the
 * end, which also reads /proc/kallsyms again for the kernel addresses no
 * symbol covered (modules or BPF programs loaded while recording).
 *
 * Return addresses point after their call, and a call can be the last
 * instruction of a function, so for every frame but the innermost both the
 * address and the address minus one are covered.
 *
 * Addresses in anonymous memory go to the process's JIT map (jitmap.c).
 *
 * Symbols are stored one row per source (".symtab", ".dynsym",
 * ".gnu_debugdata", "debug file .symtab" found by build-id, "debuglink
 * .symtab"), so that a report can say how many frames each source named.
 * A sampled offset no symbol covers stores the range of the FDE that
 * covers it instead, in a row of source ".eh_frame": a report names
 * every address of a stripped function by the function's start.
 *
 * Kernel symbols come from /proc/kallsyms: each symbol ends where the next
 * one begins.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/budget.h"
#include "record/capture.h"
#include "record/rt_thread.h"
#include "elf/cfi.h"
#include "elf/elf_file.h"
#include "record/jitmap.h"
#include "record/mappings.h"
#include "record/stacks.h"
#include "util/bsearch.h"
#include "util/hashmap.h"
#include "util/log.h"
#include "util/path.h"
#include "util/vec.h"

#define MAX_CANDIDATES	8
#define MAX_OPEN_TRIES	4	/* steps that may try to open a binary that failed */

struct u64vec {
	uint64_t *v;
	size_t nr, alloc;
};

struct binary {
	uint8_t build_id[REC_BUILD_ID_MAX];	/* the recorded one (mapping__resolve) */
	uint32_t build_id_len;
	uint32_t file;			/* index + 1 into the mapping table's files, or 0 */
	char *path;
	bool vdso;
	struct elf_file *f;		/* open (its fd closed) once found */
	struct elf_file *dbg;		/* its debug file, when the symbols come from there */
	const struct elf_file *sf;	/* f or dbg: where the symbols are */
	uint8_t *stored;		/* per sf->syms: in the recording already */
	struct cfi_fde *fdes;		/* f's FDE ranges, read at its first unnamed offset */
	size_t nr_fdes;
	uint8_t *fde_stored;		/* per fdes: in the recording already */
	bool fdes_read;
	uint64_t charged;		/* of the memory budget: its symbols and FDEs */
	bool emitted;			/* a row (with the segments) was added */
	unsigned int tries;		/* failed opens */
	/* this step only */
	bool in_step;
	struct mapping cand[MAX_CANDIDATES];	/* mappings to open it through (paths not owned) */
	size_t nr_cand;
	struct u64vec offs;		/* sampled file offsets (freed after the step) */
};

struct jit_addr {
	uint32_t pid;
	struct jit_sample v;		/* the address and its sample's time */
};

struct ksym_tmp;
struct ksym_fetch;

/* /proc/kallsyms read, parsed and sorted. */
struct kallsyms {
	char *buf;			/* the file; the names point into it */
	struct ksym_tmp *syms;		/* sorted by address */
	size_t nr;
};

static struct ksym_fetch *fetch_start(void);
static void fetch_free(struct ksym_fetch *f);

struct capture {
	struct binary *bins;
	size_t nr_bins, alloc_bins;
	struct hashmap bin_index;	/* hash of the key -> index into bins */
	size_t *step_bins;		/* binaries with offsets in this step */
	size_t nr_step, alloc_step;

	struct u64vec pairs;		/* pairs noted since the last step */
	struct u64vec retry;		/* pairs with an address in no mapping yet */
	struct u64vec work;
	struct jit_addr *jit;		/* this step's addresses outside file mappings */
	size_t nr_jit, alloc_jit;

	size_t next_stack;		/* stack ids up to it scanned for kernel frames */
	struct ksym_fetch *fetch;	/* kallsyms being read ahead, or NULL */
	bool ksyms_read;
	struct kallsyms ks;
	uint8_t *kstored;		/* per ks.syms: in the recording already */
	struct u64vec kaddrs;		/* this step's kernel addresses */
	struct u64vec kmissed;		/* covered by no symbol: tried again at the end */

	struct capture_stats st;
};

static int map_cmp(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static size_t sort_unique(uint64_t *v, size_t n)
{
	size_t i, out = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), u64_cmp);
	for (i = 0; i < n; i++)
		if (!out || v[out - 1] != v[i])
			v[out++] = v[i];
	return out;
}

static int u64vec__push(struct u64vec *v, uint64_t x)
{
	if (vec__grow(&v->v, &v->alloc, v->nr + 1, sizeof(*v->v)))
		return -ENOMEM;
	v->v[v->nr++] = x;
	return 0;
}

static void u64vec__release(struct u64vec *v)
{
	free(v->v);
	memset(v, 0, sizeof(*v));
}

struct capture *capture__new(void)
{
	struct capture *c = calloc(1, sizeof(struct capture));

	if (c)
		c->fetch = fetch_start();	/* NULL: read when first needed */
	return c;
}

static void kallsyms_release(struct kallsyms *k)
{
	free(k->syms);
	free(k->buf);
	memset(k, 0, sizeof(*k));
}

static void free_ksyms(struct capture *c)
{
	kallsyms_release(&c->ks);
	free(c->kstored);
	c->kstored = NULL;
}

void capture__free(struct capture *c)
{
	size_t i;

	if (!c)
		return;
	fetch_free(c->fetch);
	for (i = 0; i < c->nr_bins; i++) {
		struct binary *b = &c->bins[i];

		free(b->path);
		free(b->stored);
		free(b->fdes);
		free(b->fde_stored);
		u64vec__release(&b->offs);
		elf_file__close(b->dbg);
		elf_file__close(b->f);
		mem_budget__give(b->charged);
	}
	free(c->bins);
	hashmap__release(&c->bin_index);
	free(c->step_bins);
	u64vec__release(&c->pairs);
	u64vec__release(&c->retry);
	u64vec__release(&c->work);
	free(c->jit);
	free_ksyms(c);
	u64vec__release(&c->kaddrs);
	u64vec__release(&c->kmissed);
	free(c);
}

int capture__note_pair(struct capture *c, uint64_t pair)
{
	if (!c)
		return 0;
	if (u64vec__push(&c->pairs, pair))
		return pr_errno(-ENOMEM, "cannot keep the stacks to capture symbols for");
	return 0;
}

const uint64_t *capture__noted_pairs(const struct capture *c, size_t *nr)
{
	*nr = c ? c->pairs.nr : 0;
	return c ? c->pairs.v : NULL;
}

/* --- user space ------------------------------------------------------------ */

static bool mapping_below(const void *elem, const void *key)
{
	return ((const struct mapping *)elem)->tgid < *(const uint32_t *)key;
}

/* The mapping of tgid holding addr at time t (see the file comment). */
static struct mapping *find_mapping(const struct capture_source *s, uint32_t tgid, uint64_t addr,
				    uint64_t t)
{
	struct mapping *best = NULL, *any = NULL;
	size_t i;

	/* from the first mapping of tgid */
	i = bsearch_lower_bound(&tgid, s->maps->v, s->maps->nr, sizeof(*s->maps->v), mapping_below);
	for (; i < s->maps->nr && s->maps->v[i].tgid == tgid && s->maps->v[i].start <= addr;
	     i++) {
		struct mapping *m = &s->maps->v[i];

		if (addr >= m->end)
			continue;
		if (m->time_ns <= t) {
			if (!best || m->time_ns >= best->time_ns)
				best = m;
		} else if (!any || m->time_ns < any->time_ns) {
			any = m;
		}
	}
	return best ? best : any;
}

/* What binary_for() looks for: the key of a mapping's binary. */
struct bin_key {
	const struct mapping *m;
	const uint8_t *id;		/* the recorded build-id */
	uint32_t len;
	bool vdso;
};

static bool same_key(const struct binary *b, const struct bin_key *k)
{
	if (k->vdso || b->vdso)
		return k->vdso && b->vdso;
	if (b->build_id_len || k->len)
		return b->build_id_len == k->len && !memcmp(b->build_id, k->id, k->len);
	return !strcmp(b->path, k->m->path);
}

static bool bin_eq(uint32_t i, const void *key, const void *ctx)
{
	return same_key(&((const struct capture *)ctx)->bins[i], key);
}

static struct binary *binary_for(struct capture *c, const struct mapping_table *t,
				 const struct mapping *m)
{
	const struct mapped_file *f = mapping__file(t, m);
	struct bin_key k = { m, f ? f->rec_id : m->build_id, f ? f->id_len : m->build_id_len,
			     !strcmp(m->path, "[vdso]") };
	uint32_t *slot;
	uint64_t hash;
	struct binary *b;
	char *path;
	size_t i;

	if (k.vdso)
		hash = hash_str("[vdso]");
	else if (k.len)
		hash = hash_bytes(k.id, k.len);
	else
		hash = hash_str(m->path);
	slot = hashmap__find(&c->bin_index, hash, bin_eq, &k, c);
	if (slot) {
		b = &c->bins[*slot];
		goto found;
	}
	path = strdup(m->path);
	if (!path || vec__grow(&c->bins, &c->alloc_bins, c->nr_bins + 1, sizeof(*c->bins)) ||
	    hashmap__add(&c->bin_index, hash, (uint32_t)c->nr_bins)) {
		free(path);
		return NULL;	/* capture fails with -ENOMEM */
	}
	b = &c->bins[c->nr_bins++];
	memset(b, 0, sizeof(*b));
	b->vdso = k.vdso;
	b->path = path;
	b->build_id_len = k.len;
	memcpy(b->build_id, k.id, k.len);
	b->file = m->file;
found:
	if (!b->in_step) {
		if (vec__grow(&c->step_bins, &c->alloc_step, c->nr_step + 1, sizeof(*c->step_bins)))
			return NULL;
		c->step_bins[c->nr_step++] = (size_t)(b - c->bins);
		b->in_step = true;
	}
	if (b->sf)
		return b;	/* open already: no need for a way in */
	for (i = 0; i < b->nr_cand; i++)
		if (b->cand[i].tgid == m->tgid && b->cand[i].start == m->start)
			return b;
	if (b->nr_cand < MAX_CANDIDATES)
		b->cand[b->nr_cand++] = *m;
	return b;
}

static int note_jit(struct capture *c, uint32_t pid, uint64_t addr, uint64_t t)
{
	if (vec__grow(&c->jit, &c->alloc_jit, c->nr_jit + 1, sizeof(*c->jit)))
		return -ENOMEM;
	c->jit[c->nr_jit].pid = pid;
	c->jit[c->nr_jit].v.addr = addr;
	c->jit[c->nr_jit].v.time_ns = t;
	c->nr_jit++;
	return 0;
}

/* 1: addr is in no mapping (yet). */
static int add_user_addr(struct capture *c, const struct capture_source *s, uint32_t tgid,
			 uint64_t addr, uint64_t t)
{
	struct mapping *m = find_mapping(s, tgid, addr, t);
	struct binary *b;
	int err;

	/* the recording keeps the mappings samples fall in, and only those */
	if (m) {
		err = mapping__resolve(s->maps, m);
		if (!err)
			err = mapping__write(s->maps, s->rec, m, s->complete_ns);
		if (err)
			return err;
	}

	if (!m || !is_file_path(m->path)) {
		if (note_jit(c, tgid, addr, t))
			return -ENOMEM;
		if (!m)
			return 1;
		if (strcmp(m->path, "[vdso]"))
			return 0;	/* anonymous memory: only a JIT map can name it */
	}
	b = binary_for(c, s->maps, m);
	if (!b)
		return -ENOMEM;
	return u64vec__push(&b->offs, addr - m->start + m->pgoff);
}

/* The user addresses of one pair; 1: some address is in no mapping. */
static int add_pair(struct capture *c, const struct capture_source *s, uint64_t pair)
{
	uint32_t tgid = (uint32_t)(pair >> 32), j;
	const struct stack_entry *e = stack_table__get(s->stacks, (uint32_t)pair);
	const uint64_t *t = u64map__find(s->pairs, pair);
	int err, unmapped = 0;

	if (!e || !t)
		return 0;
	for (j = 0; j < e->nr_user; j++) {
		uint64_t a = e->frames[e->nr_kernel + j];

		err = add_user_addr(c, s, tgid, a, *t);
		if (err < 0)
			return err;
		unmapped |= err;
		if (!j || !a)
			continue;
		err = add_user_addr(c, s, tgid, a - 1, *t);
		if (err < 0)
			return err;
		unmapped |= err;
	}
	return unmapped;
}

static int open_binary_in(struct binary *b, const struct mapping_table *t,
			  struct capture_stats *st, uint64_t share)
{
	const struct mapped_file *file = b->file && b->file <= t->nr_files ?
					 &t->files[b->file - 1] : NULL;
	const uint8_t *real = file ? file->real_id : b->build_id;
	const void *image;
	struct elf_file *f = NULL, *dbg = NULL;
	size_t i, size;
	int fd, err;

	if (b->vdso) {
		err = vdso__image(&image, &size);
		if (!err)
			err = elf_file__open_max(-1, image, size, share, &f);
		if (err)
			return err;
	}
	for (i = 0; !f && i < b->nr_cand; i++) {
		const struct mapping *m = &b->cand[i];

		fd = mapped_file__open(m->tgid, m->start, m->end, m->path);
		if (fd < 0)
			continue;
		/* only the very file the mapping was resolved to */
		if (file && !mapped_file__is(file, fd)) {
			close(fd);
			continue;
		}
		err = elf_file__open_max(fd, NULL, 0, share, &f);
		if (err == -ENOMEM)
			return err;
		if (err)
			continue;
		/* Never trust a file whose build-id differs from the mapped one. */
		if (b->build_id_len && (f->build_id_len != b->build_id_len ||
					memcmp(f->build_id, real, b->build_id_len))) {
			elf_file__close(f);
			f = NULL;
		}
	}
	if (!f)
		return -ENOENT;
	if (f->debugdata_err)
		pr_warn("'%s': its MiniDebugInfo (.gnu_debugdata) is %s: not used", b->path,
			f->debugdata_err == -EFBIG ? "too large once inflated" : "damaged");
	if (f->syms_cut_bytes)
		pr_warn("'%s': its symbol tables are over eprof's bounds (%u entries) or its "
			"memory limit (%llu MiB, --mem-limit): named from the first ones", b->path,
			ELF_SYMS_MAX, (unsigned long long)(mem_budget__ceiling() >> 20));
	else if (f->syms_cut)
		pr_warn("'%s': its symbol tables are over eprof's bounds (%u entries): "
			"named from the first ones", b->path, ELF_SYMS_MAX);
	/* A stripped binary: its separate debug file's .symtab is richer. */
	b->sf = f;
	if (!b->vdso && (!f->source || strcmp(f->source, ".symtab")) &&
	    !debug_file__open(f, b->path, &dbg)) {
		if (dbg->source && !strcmp(dbg->source, ".symtab")) {
			b->sf = dbg;
			st->debug_files++;
		} else {
			elf_file__close(dbg);
			dbg = NULL;
		}
	}
	b->stored = calloc(b->sf->nr_syms ? b->sf->nr_syms : 1, 1);
	if (!b->stored) {
		b->sf = NULL;
		elf_file__close(dbg);
		elf_file__close(f);
		return -ENOMEM;
	}
	elf_file__release_fd(f);
	elf_file__release_fd(dbg);
	b->f = f;
	b->dbg = dbg;
	return 0;
}

/*
 * Opens b's file with a share of the memory budget: what is free, at most
 * half of it, less what is kept for unwind windows. Its symbols that fit
 * are read (its debug file's from what f left), and what they cost stays
 * taken while b is open.
 */
static int open_binary(struct binary *b, const struct mapping_table *t,
		       struct capture_stats *st)
{
	uint64_t share = mem_budget__take_share(mem_budget__size() / 2);
	int err = open_binary_in(b, t, st, share ? share : 1);

	b->charged = err ? 0 : b->f->bytes + (b->dbg ? b->dbg->bytes : 0);
	if (b->charged > share)
		b->charged = share;
	mem_budget__give(share - b->charged);
	return err;
}

/*
 * --debuginfo: embeds the file holding b's DWARF, found as open_binary()
 * found symbols (the debug file, else the binary itself), once, when b is
 * first opened. Only section headers are read here: record never parses
 * DWARF. A binary without a build-id is skipped (report/ matches DWARF by
 * build-id), as is one without DWARF anywhere.
 */
static int store_dwarf(struct capture *c, const struct capture_source *s, struct binary *b)
{
	struct elf_file *extra = NULL;
	const struct elf_file *src = NULL;
	const void *bytes;
	size_t size = 0;
	int err = 0;

	if (b->vdso || !b->build_id_len)
		return 0;
	if (b->dbg && elf_file__has_section(b->dbg, ".debug_info")) {
		src = b->dbg;
	} else if (elf_file__has_section(b->f, ".debug_info")) {
		src = b->f;
	} else if (!b->dbg && !debug_file__open(b->f, b->path, &extra)) {
		/* symbols came from the binary's .symtab; its DWARF may be apart */
		if (elf_file__has_section(extra, ".debug_info"))
			src = extra;
	}
	if (!src) {
		pr_debug("no DWARF to embed for '%s'", b->path);
		goto out;
	}
	bytes = elf_file__bytes(src, &size);
	if (!bytes || !size) {
		pr_debug("cannot read the DWARF file of '%s'", b->path);
		goto out;
	}
	if (size > REC_DEBUGINFO_MAX) {
		pr_warn("the DWARF of '%s' is %zu MiB, more than a recording holds: not embedded",
			b->path, size >> 20);
		goto out;
	}
	err = recording__add_debuginfo(s->rec, b->build_id, b->build_id_len, b->path,
				       bytes, size);
	if (!err) {
		c->st.dwarf_files++;
		c->st.dwarf_bytes += size;
		pr_debug("embedded the DWARF of '%s' from its %s (%zu bytes)", b->path,
			 src == b->f ? "binary" : "debug file", size);
	}
out:
	elf_file__close(extra);
	return err;
}

/* The source the recording names for symbol k of b's symbol file. */
static const char *symbol_source(const struct binary *b, size_t k)
{
	if (b->sf == b->dbg)
		return b->dbg->by_debuglink ? "debuglink .symtab" : "debug file .symtab";
	return elf_file__symbol_source(b->sf, k);
}

static int add_row(const struct capture_source *s, struct binary *b, const char *source,
		   const struct rec_symbol *syms, size_t nr)
{
	struct rec_binary rb;

	memset(&rb, 0, sizeof(rb));
	/* the key the mappings carry: report/ matches rows to mappings by it */
	memcpy(rb.build_id, b->build_id, sizeof(rb.build_id));
	rb.build_id_len = b->build_id_len;
	rb.path = b->vdso ? "[vdso]" : b->path;
	rb.source = source;
	rb.nr_segments = b->f->nr_segs;
	rb.segments = b->f->segs;
	rb.nr_symbols = nr;
	rb.symbols = (struct rec_symbol *)syms;
	return recording__add_binary(s->rec, &rb);
}

/*
 * The FDE covering vaddr when no symbol does, if not stored yet: its
 * index into b->fdes, or -1. b's FDEs are read at the first such offset.
 */
static long fresh_fde(struct binary *b, uint64_t vaddr)
{
	long j;

	if (!b->fdes_read) {
		/* the section read, and at most an FDE per 8 bytes of it kept */
		uint64_t sec = elf_file__section_size(b->f, ".eh_frame"), cost, keep;

		if (!sec)
			sec = elf_file__section_size(b->f, ".debug_frame");
		cost = sec + sec / 8 * (sizeof(*b->fdes) + 1);
		b->fdes_read = true;
		if (!mem_budget__take(cost))
			return -1;	/* over the memory limit: the offsets stay apart */
		if (cfi_fdes__read(b->f->elf, &b->fdes, &b->nr_fdes)) {
			mem_budget__give(cost);
			return -1;	/* no CFI, or none readable: the offsets stay apart */
		}
		keep = sec + b->nr_fdes * (sizeof(*b->fdes) + 1);
		keep = keep < cost ? keep : cost;
		mem_budget__give(cost - keep);
		b->charged += keep;
		b->fde_stored = calloc(b->nr_fdes ? b->nr_fdes : 1, 1);
		if (!b->fde_stored) {
			free(b->fdes);
			b->fdes = NULL;
			b->nr_fdes = 0;
		}
	}
	j = cfi_fdes__find(b->fdes, b->nr_fdes, vaddr);
	if (j < 0 || b->fde_stored[j])
		return -1;
	b->fde_stored[j] = 1;
	return j;
}

/*
 * Adds b's symbols of fresh (indexes into b->sf->syms, sorted), one row
 * per source, then the FDE ranges of fdes (indexes into b->fdes).
 */
static int add_rows(const struct capture_source *s, struct binary *b, struct u64vec *fresh,
		    const struct u64vec *fdes, struct rec_symbol *syms)
{
	const char *source;
	size_t i, nr;
	int err = 0;

	while (!err && fresh->nr) {
		source = symbol_source(b, fresh->v[0]);
		for (i = 0, nr = 0; i < fresh->nr; i++) {
			if (strcmp(symbol_source(b, fresh->v[i]), source))
				fresh->v[i - nr] = fresh->v[i];		/* another row's */
			else
				syms[nr++] = b->sf->syms[fresh->v[i]];
		}
		fresh->nr -= nr;
		err = add_row(s, b, source, syms, nr);
	}
	for (i = 0; !err && i < fdes->nr; i++) {
		const struct cfi_fde *e = &b->fdes[fdes->v[i]];

		/* a range, not a name: report/ spells it from the mapping */
		syms[i] = (struct rec_symbol){ .addr = e->start, .size = e->end - e->start,
					       .name = "[fde]" };
	}
	if (!err && fdes->nr)
		err = add_row(s, b, ".eh_frame", syms, fdes->nr);
	return err;
}

/* Adds rows with b's symbols covering this step's offsets that are not stored yet. */
static int store_binary(struct capture *c, const struct capture_source *s, struct binary *b,
			struct u64vec *fresh)
{
	struct u64vec fdes = { 0 };
	struct rec_symbol *syms = NULL;
	const struct elf_file *sf;
	uint64_t vaddr;
	size_t i, nr;
	long k;
	int err = 0;

	if (!b->sf) {
		if (b->tries >= MAX_OPEN_TRIES)
			return 0;
		err = open_binary(b, s->maps, &c->st);
		if (err == -ENOMEM)
			goto out;
		if (err) {
			if (!b->tries++)
				pr_debug("no symbols for '%s': cannot open it, or it changed",
					 b->path);
			return 0;
		}
		if (s->debuginfo) {
			err = store_dwarf(c, s, b);
			if (err)
				return err;
		}
	}
	sf = b->sf;
	fresh->nr = 0;
	b->offs.nr = sort_unique(b->offs.v, b->offs.nr);
	for (i = 0; i < b->offs.nr; i++) {
		if (elf_file__offset_to_vaddr(b->f, b->offs.v[i], &vaddr))
			continue;
		k = elf_file__find_symbol(sf, vaddr);
		if (k >= 0 && !b->stored[k]) {
			b->stored[k] = 1;
			err = u64vec__push(fresh, (uint64_t)k);
		} else if (k < 0 && (k = fresh_fde(b, vaddr)) >= 0) {
			err = u64vec__push(&fdes, (uint64_t)k);
		}
		if (err)
			goto out;
	}
	/*
	 * The first row goes in even without a symbol: its segments let a
	 * report translate offsets for a debug file it finds itself.
	 */
	nr = fresh->nr + fdes.nr;
	if (!nr && (b->emitted || !b->f->nr_segs))
		goto out;
	if (fresh->nr > 1)
		qsort(fresh->v, fresh->nr, sizeof(*fresh->v), u64_cmp);
	if (fdes.nr > 1)
		qsort(fdes.v, fdes.nr, sizeof(*fdes.v), u64_cmp);
	err = -ENOMEM;
	syms = calloc(nr ? nr : 1, sizeof(*syms));
	if (!syms)
		goto out;
	c->st.symbols += fresh->nr;
	err = nr ? add_rows(s, b, fresh, &fdes, syms) : add_row(s, b, "none", NULL, 0);
	if (!err) {
		if (!b->emitted)
			c->st.binaries++;
		b->emitted = true;
	}
out:
	if (err == -ENOMEM)
		pr_errno(err, "cannot capture the symbols of '%s'", b->path);
	u64vec__release(&fdes);
	free(syms);
	return err;
}

static int store_binaries(struct capture *c, const struct capture_source *s)
{
	struct u64vec fresh = { 0 };
	size_t i;
	int err = 0;

	for (i = 0; i < c->nr_step; i++) {
		struct binary *b = &c->bins[c->step_bins[i]];

		if (!err)
			err = store_binary(c, s, b, &fresh);
		b->in_step = false;
		/*
		 * freed, not kept for the next step: every binary ever sampled
		 * held its largest step's offsets to the end (a step's come
		 * from its new stacks, which the stack table charged)
		 */
		u64vec__release(&b->offs);
		b->nr_cand = 0;
	}
	c->nr_step = 0;
	u64vec__release(&fresh);
	return err;
}

static int jit_cmp(const void *a, const void *b)
{
	const struct jit_addr *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->v.addr != y->v.addr)
		return x->v.addr < y->v.addr ? -1 : 1;
	return x->v.time_ns < y->v.time_ns ? -1 : x->v.time_ns > y->v.time_ns;
}

/* This step's anonymous addresses, process by process, to the JIT maps. */
static int store_jit(struct capture *c, const struct capture_source *s)
{
	struct jit_sample *v = NULL;
	size_t i, j, nr, alloc = 0;
	int err = 0;

	if (c->nr_jit > 1)
		qsort(c->jit, c->nr_jit, sizeof(*c->jit), jit_cmp);
	for (i = 0; i < c->nr_jit && !err; i = j) {
		nr = 0;
		for (j = i; j < c->nr_jit && c->jit[j].pid == c->jit[i].pid && !err; j++) {
			err = vec__grow(&v, &alloc, nr + 1, sizeof(*v));
			if (!err)
				v[nr++] = c->jit[j].v;
		}
		if (err)
			err = pr_errno(err, "cannot capture JIT symbols");
		else
			err = jitmaps__store(s->jitmaps, s->rec, c->jit[i].pid, v, nr, &c->st.jit_maps);
	}
	c->nr_jit = 0;
	free(v);
	return err;
}

/* --- kernel ---------------------------------------------------------------- */

struct ksym_tmp {
	uint64_t addr;
	const char *name;
	const char *module;
};

static bool ksym_at_or_below(const void *elem, const void *key)
{
	return ((const struct ksym_tmp *)elem)->addr <= *(const uint64_t *)key;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym_tmp *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int read_all(const char *path, char **out, size_t *len)
{
	size_t alloc = 8 << 20, n = 0;
	char *buf = malloc(alloc + 1), *nb;
	ssize_t r;
	int fd;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		if (n == alloc) {
			alloc *= 2;
			nb = realloc(buf, alloc + 1);
			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = read(fd, buf + n, alloc - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(buf);
			close(fd);
			return err;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Parses kallsyms in place: text symbols with a non-zero address. */
static int parse_kallsyms(char *buf, struct ksym_tmp **out, size_t *nr_out)
{
	struct ksym_tmp *v = NULL, *nv;
	size_t nr = 0, alloc = 0;
	char *line = buf, *next;

	for (; *line; line = next) {
		char *type, *name, *mod, *end;
		uint64_t addr;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		addr = strtoull(line, &end, 16);
		if (end == line || *end != ' ' || !addr)
			continue;
		type = end + 1;
		if (!strchr("tTwW", *type) || !*type || type[1] != ' ')
			continue;
		name = type + 2;
		mod = strchr(name, '\t');
		if (mod) {
			*mod++ = '\0';
			if (*mod == '[') {
				mod++;
				end = strchr(mod, ']');
				if (end)
					*end = '\0';
			} else {
				mod = NULL;
			}
		}
		if (nr == alloc) {
			alloc = alloc ? alloc * 2 : 65536;
			nv = reallocarray(v, alloc, sizeof(*nv));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[nr].addr = addr;
		v[nr].name = name;
		v[nr].module = mod;
		nr++;
	}
	*out = v;
	*nr_out = nr;
	return 0;
}


/*
 * /proc/kallsyms lists the core kernel in address order, with a few aliases
 * out of name order: an insertion sort finishes that in one pass. Anything
 * further from sorted (modules, BPF programs) falls back to qsort().
 */
static void sort_ksyms(struct ksym_tmp *v, size_t nr)
{
	size_t i, j, moves = 0;
	struct ksym_tmp x;

	for (i = 1; i < nr; i++) {
		if (ksym_cmp(&v[i - 1], &v[i]) <= 0)
			continue;
		x = v[i];
		for (j = i; j > 0 && ksym_cmp(&v[j - 1], &x) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
		moves += i - j;
		if (moves > nr) {
			qsort(v, nr, sizeof(*v), ksym_cmp);
			return;
		}
	}
}

/* /proc/kallsyms read, parsed and sorted: the read's error, or the parse's in *parse_err. */
static int read_kallsyms(struct kallsyms *k, int *parse_err)
{
	size_t len;
	int err;

	*parse_err = 0;
	err = read_all("/proc/kallsyms", &k->buf, &len);
	if (err)
		return err;
	*parse_err = parse_kallsyms(k->buf, &k->syms, &k->nr);
	if (!*parse_err && k->nr > 1)
		sort_ksyms(k->syms, k->nr);
	return 0;
}

/*
 * kallsyms read ahead, on a thread started with the capture: reading it is
 * about 20% of a short recording's start-to-finish on a 2-CPU machine, and
 * it overlaps the BPF object's load this way.
 */
struct ksym_fetch {
	pthread_t thread;
	int read_err, parse_err;
	struct kallsyms k;
};

static void *fetch_main(void *arg)
{
	struct ksym_fetch *f = arg;

	f->read_err = read_kallsyms(&f->k, &f->parse_err);
	return NULL;
}

static struct ksym_fetch *fetch_start(void)
{
	struct ksym_fetch *f = calloc(1, sizeof(*f));

	if (f && rt_thread__create(&f->thread, NULL, fetch_main, f)) {
		free(f);
		f = NULL;
	}
	return f;
}

/* Waits for the thread; the result stays in f. */
static void fetch_join(struct ksym_fetch *f)
{
	pthread_join(f->thread, NULL);
}

static void fetch_free(struct ksym_fetch *f)
{
	if (!f)
		return;
	fetch_join(f);
	kallsyms_release(&f->k);
	free(f);
}

/*
 * Reads and sorts /proc/kallsyms (again, at the end); the old table goes.
 * The first time takes what the read-ahead thread found.
 */
static int load_kallsyms(struct capture *c)
{
	int err, parse_err;

	free_ksyms(c);
	if (c->fetch) {
		fetch_join(c->fetch);
		err = c->fetch->read_err;
		parse_err = c->fetch->parse_err;
		c->ks = c->fetch->k;
		free(c->fetch);
		c->fetch = NULL;
	} else {
		err = read_kallsyms(&c->ks, &parse_err);
	}
	if (err) {
		free_ksyms(c);
		pr_warn("cannot read '/proc/kallsyms': %s (kernel frames will have no names)",
			strerror(-err));
		return 0;
	}
	err = parse_err;
	if (!err) {
		c->kstored = calloc(c->ks.nr ? c->ks.nr : 1, 1);
		if (!c->kstored)
			err = -ENOMEM;
	}
	if (err) {
		free_ksyms(c);
		return pr_errno(err, "cannot capture kernel symbols");
	}
	pr_debug("read %zu kernel symbols", c->ks.nr);
	return 0;
}

/*
 * Adds the symbols covering addrs (sorted, unique) not stored yet; the
 * addresses no symbol covers go to missed when it is not NULL.
 */
static int store_ksyms(struct capture *c, const struct capture_source *s,
		       const struct u64vec *addrs, struct u64vec *missed)
{
	const struct ksym_tmp *k = c->ks.syms;
	struct rec_ksym *out;
	size_t i, j, lo, nr_out = 0;
	int err = 0;

	out = calloc(addrs->nr ? addrs->nr : 1, sizeof(*out));
	if (!out)
		return pr_errno(-ENOMEM, "cannot capture kernel symbols");
	for (i = 0; i < addrs->nr && !err; i++) {
		uint64_t a = addrs->v[i];

		/* first symbol above a */
		lo = bsearch_lower_bound(&a, k, c->ks.nr, sizeof(*k), ksym_at_or_below);
		/* k[lo - 1] covers a up to k[lo]; the last symbol has no known end */
		if (!lo || lo >= c->ks.nr) {
			if (missed)
				err = u64vec__push(missed, a);
			continue;
		}
		/* Among aliases at one address, the first in name order is stored. */
		for (j = lo - 1; j > 0 && k[j - 1].addr == k[lo - 1].addr; j--)
			;
		if (c->kstored[j])
			continue;
		c->kstored[j] = 1;
		out[nr_out].addr = k[j].addr;
		out[nr_out].end = k[lo].addr;
		out[nr_out].name = k[j].name;
		out[nr_out].module = k[j].module;
		nr_out++;
	}
	if (err)
		pr_errno(err, "cannot capture kernel symbols");
	if (!err && nr_out)
		err = recording__add_ksyms(s->rec, out, nr_out);
	if (!err)
		c->st.ksyms += nr_out;
	free(out);
	return err;
}

/* The kernel addresses of the stacks new since the last step. */
static int step_kernel(struct capture *c, const struct capture_source *s)
{
	const struct stack_table *t = s->stacks;
	size_t i;
	uint32_t j;
	int err = 0;

	c->kaddrs.nr = 0;
	/* ids are dense, those up to t->first forgotten (record/stacks.h) */
	for (i = c->next_stack > t->first ? c->next_stack - t->first : 0; i < t->nr && !err; i++) {
		const struct stack_entry *e = &t->entries[i];

		for (j = 0; j < e->nr_kernel && !err; j++) {
			err = u64vec__push(&c->kaddrs, e->frames[j]);
			if (!err && j && e->frames[j])
				err = u64vec__push(&c->kaddrs, e->frames[j] - 1);
		}
	}
	if (err)
		return pr_errno(err, "cannot capture kernel symbols");
	c->next_stack = t->first + t->nr;
	if (!c->kaddrs.nr)
		return 0;
	if (!c->ksyms_read) {
		c->ksyms_read = true;
		err = load_kallsyms(c);
		if (err)
			return err;
	}
	c->kaddrs.nr = sort_unique(c->kaddrs.v, c->kaddrs.nr);
	return store_ksyms(c, s, &c->kaddrs, &c->kmissed);
}

/* --- steps ----------------------------------------------------------------- */

static void sort_maps(const struct capture_source *s)
{
	if (!s->maps->dirty)
		return;
	if (s->maps->nr > 1)
		qsort(s->maps->v, s->maps->nr, sizeof(*s->maps->v), map_cmp);
	s->maps->dirty = false;
	s->maps->nr_sorted = s->maps->nr;
}

bool capture__retrying(const struct capture *c, uint32_t tgid)
{
	size_t i;

	for (i = 0; c && i < c->retry.nr; i++)
		if (c->retry.v[i] >> 32 == tgid)
			return true;
	return false;
}

size_t capture__retry_tgids(const struct capture *c, uint32_t *out, size_t max)
{
	size_t i, j, nr = 0;

	for (i = 0; c && i < c->retry.nr && nr < max; i++) {
		uint32_t tgid = (uint32_t)(c->retry.v[i] >> 32);

		for (j = 0; j < nr && out[j] != tgid; j++)
			;
		if (j == nr)
			out[nr++] = tgid;
	}
	return nr;
}

int capture__step(struct capture *c, const struct capture_source *s)
{
	struct u64vec tmp;
	size_t i;
	int err = 0;

	if (!c)
		return 0;
	if (c->pairs.nr || c->retry.nr) {
		sort_maps(s);
		/* last step's unmapped pairs get this one more chance */
		tmp = c->work;
		c->work = c->retry;
		c->retry = tmp;
		c->retry.nr = 0;
		for (i = 0; i < c->pairs.nr && !err; i++) {
			err = add_pair(c, s, c->pairs.v[i]);
			if (err > 0)
				err = u64vec__push(&c->retry, c->pairs.v[i]);
		}
		for (i = 0; i < c->work.nr && err >= 0; i++)
			err = add_pair(c, s, c->work.v[i]);
		c->pairs.nr = 0;
		c->work.nr = 0;
		if (err < 0)
			return pr_errno(err, "cannot capture user symbols");
		err = store_binaries(c, s);
		if (!err)
			err = store_jit(c, s);
		if (err)
			return err;
	}
	return step_kernel(c, s);
}

int capture__run(struct capture *c, const struct capture_source *s, struct capture_stats *st)
{
	size_t i;
	int err;

	memset(st, 0, sizeof(*st));
	err = capture__step(c, s);
	if (err)
		return err;
	/* Every pair once more: mappings may have come after a pair's last step. */
	sort_maps(s);
	u64map__for_each(s->pairs, i) {
		err = add_pair(c, s, s->pairs->keys[i]);
		if (err < 0)
			return pr_errno(err, "cannot capture user symbols");
	}
	err = store_binaries(c, s);
	if (!err)
		err = store_jit(c, s);
	if (!err && c->kmissed.nr) {
		c->kmissed.nr = sort_unique(c->kmissed.v, c->kmissed.nr);
		err = load_kallsyms(c);
		if (!err && c->ks.nr)
			err = store_ksyms(c, s, &c->kmissed, NULL);
	}
	if (err)
		return err;
	for (i = 0; i < c->nr_bins; i++)
		if (!c->bins[i].sf && c->bins[i].tries)
			c->st.missing++;
	*st = c->st;
	return 0;
}
