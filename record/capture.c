// SPDX-License-Identifier: MIT
/*
 * record/capture.c - the symbol data of what was sampled, captured before
 * the binaries change or disappear, so the recording can be reported on
 * another machine.
 *
 * This is capture, not symbolization: for each sampled user address it
 * finds the mapping that held it (the latest one for that process that
 * began no later than the sample), turns it into an offset in the mapped
 * file, and groups offsets by binary (build-id, else path). Each binary is
 * opened once, only if its build-id is the recorded one, and the symbols
 * covering at least one sampled address are stored with the file's PT_LOAD
 * segments. report/ does every lookup later.
 *
 * Return addresses point after their call, and a call can be the last
 * instruction of a function, so for every frame but the innermost both the
 * address and the address minus one are covered.
 *
 * Kernel symbols come from /proc/kallsyms (read only when kernel frames
 * were sampled): each symbol ends where the next one begins.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/capture.h"
#include "record/elf_file.h"
#include "record/jitmap.h"
#include "util/log.h"

#define MAX_CANDIDATES	8

struct binary {
	uint8_t build_id[REC_BUILD_ID_MAX];
	uint32_t build_id_len;
	const char *path;
	bool vdso;
	const struct mapping *cand[MAX_CANDIDATES];	/* mappings to open it through */
	size_t nr_cand;
	uint64_t *offs;		/* sampled file offsets */
	size_t nr_offs, alloc_offs;
};

struct capture {
	struct session *s;
	struct binary *bins;
	size_t nr_bins, alloc_bins;
	struct u64map bin_index;	/* hash of the key -> index + 1 (probing on collisions) */
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

	if (n)
		qsort(v, n, sizeof(*v), u64_cmp);
	for (i = 0; i < n; i++)
		if (!out || v[out - 1] != v[i])
			v[out++] = v[i];
	return out;
}

static int push_u64(uint64_t **v, size_t *nr, size_t *alloc, uint64_t x)
{
	if (*nr == *alloc) {
		size_t n = *alloc ? *alloc * 2 : 64;
		uint64_t *nv = reallocarray(*v, n, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*alloc = n;
	}
	(*v)[(*nr)++] = x;
	return 0;
}

/* The mapping of tgid holding addr at time t (see the file comment). */
static const struct mapping *find_mapping(const struct session *s, uint32_t tgid, uint64_t addr,
					  uint64_t t)
{
	const struct mapping *best = NULL, *any = NULL;
	size_t lo = 0, hi = s->nr_maps, i;

	while (lo < hi) {	/* first mapping of tgid */
		size_t mid = lo + (hi - lo) / 2;

		if (s->maps[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < s->nr_maps && s->maps[i].tgid == tgid && s->maps[i].start <= addr; i++) {
		const struct mapping *m = &s->maps[i];

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

static bool same_key(const struct binary *b, const struct mapping *m, bool vdso)
{
	if (vdso || b->vdso)
		return vdso && b->vdso;
	if (b->build_id_len || m->build_id_len)
		return b->build_id_len == m->build_id_len &&
		       !memcmp(b->build_id, m->build_id, m->build_id_len);
	return !strcmp(b->path, m->path);
}

static struct binary *binary_for(struct capture *c, const struct mapping *m)
{
	bool vdso = !strcmp(m->path, "[vdso]"), added;
	uint64_t key, *slot;
	struct binary *b;
	size_t i;

	if (vdso)
		key = hash_bytes("[vdso]", 6);
	else if (m->build_id_len)
		key = hash_bytes(m->build_id, m->build_id_len);
	else
		key = hash_bytes(m->path, strlen(m->path));
	for (;; key++) {
		if (u64map__upsert(&c->bin_index, key, 0, &slot, &added))
			return NULL;
		if (added)
			break;
		b = &c->bins[*slot - 1];
		if (same_key(b, m, vdso))
			goto found;
	}
	if (c->nr_bins == c->alloc_bins) {
		size_t n = c->alloc_bins ? c->alloc_bins * 2 : 32;
		struct binary *nb = reallocarray(c->bins, n, sizeof(*nb));

		if (!nb)
			return NULL;	/* capture fails with -ENOMEM: the slot is never read */
		c->bins = nb;
		c->alloc_bins = n;
	}
	b = &c->bins[c->nr_bins];
	memset(b, 0, sizeof(*b));
	b->vdso = vdso;
	b->path = m->path;
	b->build_id_len = m->build_id_len;
	memcpy(b->build_id, m->build_id, sizeof(b->build_id));
	*slot = ++c->nr_bins;
found:
	for (i = 0; i < b->nr_cand; i++)
		if (b->cand[i]->tgid == m->tgid && b->cand[i]->start == m->start)
			return b;
	if (b->nr_cand < MAX_CANDIDATES)
		b->cand[b->nr_cand++] = m;
	return b;
}

static int add_user_addr(struct capture *c, uint32_t tgid, uint64_t addr, uint64_t t)
{
	const struct mapping *m = find_mapping(c->s, tgid, addr, t);
	struct binary *b;

	if (!m)
		return 0;
	b = binary_for(c, m);
	if (!b)
		return -ENOMEM;
	return push_u64(&b->offs, &b->nr_offs, &b->alloc_offs, addr - m->start + m->pgoff);
}

static int collect_user(struct capture *c)
{
	struct session *s = c->s;
	size_t i;
	uint32_t j;
	int err;

	u64map__for_each(&s->pairs, i) {
		uint32_t tgid = (uint32_t)(s->pairs.keys[i] >> 32);
		uint32_t id = (uint32_t)s->pairs.keys[i];
		const struct stack_entry *e = stack_table__get(&s->stacks, id);

		if (!e)
			continue;
		for (j = 0; j < e->nr_user; j++) {
			uint64_t a = e->frames[e->nr_kernel + j];

			err = add_user_addr(c, tgid, a, s->pairs.vals[i]);
			if (!err && j && a)
				err = add_user_addr(c, tgid, a - 1, s->pairs.vals[i]);
			if (err)
				return err;
		}
	}
	return 0;
}

static int open_binary(const struct binary *b, struct elf_file **out)
{
	const void *image;
	size_t i, size;
	int fd, err;

	if (b->vdso) {
		err = vdso__image(&image, &size);
		return err ? err : elf_file__open(-1, image, size, out);
	}
	for (i = 0; i < b->nr_cand; i++) {
		const struct mapping *m = b->cand[i];
		struct elf_file *f;

		fd = mapped_file__open(m->tgid, m->start, m->end, m->path);
		if (fd < 0)
			continue;
		if (elf_file__open(fd, NULL, 0, &f))
			continue;
		/* Never trust a file whose build-id differs from the mapped one. */
		if (b->build_id_len && (f->build_id_len != b->build_id_len ||
					memcmp(f->build_id, b->build_id, b->build_id_len))) {
			elf_file__close(f);
			continue;
		}
		*out = f;
		return 0;
	}
	return -ENOENT;
}

static int store_binary(struct capture *c, struct binary *b, struct capture_stats *st)
{
	struct rec_symbol *syms = NULL;
	struct elf_file *f = NULL, *dbg = NULL;
	const struct elf_file *sf;
	struct rec_binary rb;
	uint8_t *used = NULL;
	size_t i, nr = 0;
	uint64_t vaddr;
	long k;
	int err;

	err = open_binary(b, &f);
	if (err) {
		pr_debug("no symbols for '%s': cannot open it, or it changed", b->path);
		st->missing++;
		return 0;
	}
	/* A stripped binary: its separate debug file's .symtab is richer. */
	sf = f;
	if (!b->vdso && (!f->source || strcmp(f->source, ".symtab")) &&
	    !debug_file__open(f, b->path, &dbg) && dbg->source && !strcmp(dbg->source, ".symtab")) {
		sf = dbg;
		st->debug_files++;
	}
	err = -ENOMEM;
	used = calloc(sf->nr_syms ? sf->nr_syms : 1, 1);
	syms = calloc(sf->nr_syms ? sf->nr_syms : 1, sizeof(*syms));
	if (!used || !syms)
		goto out;
	b->nr_offs = sort_unique(b->offs, b->nr_offs);
	for (i = 0; i < b->nr_offs; i++) {
		if (elf_file__offset_to_vaddr(f, b->offs[i], &vaddr))
			continue;
		k = elf_file__find_symbol(sf, vaddr);
		if (k >= 0)
			used[k] = 1;
	}
	for (i = 0; i < sf->nr_syms; i++)
		if (used[i])
			syms[nr++] = sf->syms[i];
	err = 0;
	/*
	 * Even without a symbol, the segments let a report translate offsets
	 * for a debug file it finds itself (--debug-dir).
	 */
	if (!nr && !f->nr_segs)
		goto out;
	memset(&rb, 0, sizeof(rb));
	memcpy(rb.build_id, f->build_id, sizeof(rb.build_id));
	rb.build_id_len = f->build_id_len;
	rb.path = b->vdso ? "[vdso]" : b->path;
	rb.source = !nr ? "none" : sf == dbg ? "debug file .symtab" : sf->source;
	rb.nr_segments = f->nr_segs;
	rb.segments = f->segs;
	rb.nr_symbols = nr;
	rb.symbols = syms;
	err = recording__add_binary(c->s->rec, &rb);
	if (!err) {
		st->binaries++;
		st->symbols += nr;
	}
out:
	if (err == -ENOMEM)
		pr_errno(err, "cannot capture the symbols of '%s'", b->path);
	free(used);
	free(syms);
	elf_file__close(dbg);
	elf_file__close(f);
	return err;
}

/* --- kernel ---------------------------------------------------------------- */

struct ksym_tmp {
	uint64_t addr;
	const char *name;
	const char *module;
};

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

static int capture_kernel(struct capture *c, struct capture_stats *st)
{
	const struct stack_table *t = &c->s->stacks;
	struct ksym_tmp *syms = NULL;
	struct rec_ksym *out = NULL;
	uint64_t *addrs = NULL;
	size_t nr_addrs = 0, alloc = 0, nr_syms = 0, nr_out = 0, i, j, k;
	char *buf = NULL;
	size_t len;
	int err = 0;

	for (i = 0; i < t->nr && !err; i++) {
		const struct stack_entry *e = &t->entries[i];

		for (j = 0; j < e->nr_kernel && !err; j++) {
			err = push_u64(&addrs, &nr_addrs, &alloc, e->frames[j]);
			if (!err && j && e->frames[j])
				err = push_u64(&addrs, &nr_addrs, &alloc, e->frames[j] - 1);
		}
	}
	if (err) {
		pr_errno(err, "cannot capture kernel symbols");
		goto out;
	}
	if (!nr_addrs)
		goto out;
	nr_addrs = sort_unique(addrs, nr_addrs);
	err = read_all("/proc/kallsyms", &buf, &len);
	if (err) {
		pr_warn("cannot read '/proc/kallsyms': %s (kernel frames will have no names)",
			strerror(-err));
		err = 0;
		goto out;
	}
	err = parse_kallsyms(buf, &syms, &nr_syms);
	if (err) {
		pr_errno(err, "cannot capture kernel symbols");
		goto out;
	}
	if (nr_syms)
		qsort(syms, nr_syms, sizeof(*syms), ksym_cmp);
	out = calloc(nr_syms ? nr_syms : 1, sizeof(*out));
	if (!out) {
		err = pr_errno(-ENOMEM, "cannot capture kernel symbols");
		goto out;
	}
	/* Both lists are sorted: walk them together. */
	for (i = 0, k = 0; i < nr_addrs; i++) {
		uint64_t a = addrs[i], end;

		while (k + 1 < nr_syms && syms[k + 1].addr <= a)
			k++;
		if (!nr_syms || syms[k].addr > a)
			continue;
		for (j = k + 1; j < nr_syms && syms[j].addr == syms[k].addr; j++)
			;
		if (j >= nr_syms)
			continue;	/* the last symbol has no known end */
		end = syms[j].addr;
		if (a >= end)
			continue;
		if (nr_out && out[nr_out - 1].addr == syms[k].addr)
			continue;
		/* Among aliases at one address, the first in name order is stored. */
		for (j = k; j > 0 && syms[j - 1].addr == syms[k].addr; j--)
			;
		out[nr_out].addr = syms[j].addr;
		out[nr_out].end = end;
		out[nr_out].name = syms[j].name;
		out[nr_out].module = syms[j].module;
		nr_out++;
	}
	if (nr_out) {
		err = recording__add_ksyms(c->s->rec, out, nr_out);
		if (!err)
			st->ksyms = nr_out;
	}
out:
	free(out);
	free(syms);
	free(buf);
	free(addrs);
	return err;
}

int capture__run(struct session *s, struct capture_stats *st)
{
	struct capture c;
	size_t i;
	int err;

	memset(st, 0, sizeof(*st));
	memset(&c, 0, sizeof(c));
	c.s = s;
	if (s->nr_maps)
		qsort(s->maps, s->nr_maps, sizeof(*s->maps), map_cmp);
	err = collect_user(&c);
	if (err) {
		pr_errno(err, "cannot capture user symbols");
		goto out;
	}
	for (i = 0; i < c.nr_bins && !err; i++)
		err = store_binary(&c, &c.bins[i], st);
	if (!err)
		err = capture_kernel(&c, st);
	if (!err)
		err = jitmaps__capture(s->jitmaps, s, &st->jit_maps);
out:
	for (i = 0; i < c.nr_bins; i++)
		free(c.bins[i].offs);
	free(c.bins);
	u64map__release(&c.bin_index);
	return err;
}
