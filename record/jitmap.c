// SPDX-License-Identifier: MIT
/*
 * record/jitmap.c - /tmp/perf-PID.map, the de facto JIT symbol interface
 * (V8, the JVM with perf-map-agent, LuaJIT, ...): one "START SIZE name"
 * line per generated function, hexadecimal, the name running to the end of
 * the line. A process usually deletes or rewrites its map when it exits, or
 * its pid is reused, so the map is read at its exit (the side-band's EXIT
 * record) and at the latest when the recording ends.
 *
 * The file lives in a world-writable directory: it is opened without
 * following symlinks and read only if it is a regular file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/jitmap.h"
#include "record/session.h"
#include "util/log.h"

#define JIT_MAX_LINE	4096

struct jitmap {
	uint32_t pid;
	struct rec_symbol *syms;	/* sorted by addr; names malloc'd */
	size_t nr;
	bool read;			/* read (even if absent): never again */
};

struct jitmaps {
	struct u64map index;		/* pid -> index + 1 */
	struct jitmap *maps;
	size_t nr, alloc;
};

struct jitmaps *jitmaps__new(void)
{
	return calloc(1, sizeof(struct jitmaps));
}

static void jitmap__release(struct jitmap *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free((char *)m->syms[i].name);
	free(m->syms);
}

void jitmaps__free(struct jitmaps *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->nr; i++)
		jitmap__release(&j->maps[i]);
	free(j->maps);
	u64map__release(&j->index);
	free(j);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct rec_symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Parses the lines of f; a malformed line is skipped. */
static int parse(FILE *f, struct jitmap *m)
{
	char line[JIT_MAX_LINE];
	size_t alloc = 0;

	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, size;
		char *p = line, *end, *name;
		struct rec_symbol *ns;

		start = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		size = strtoull(p, &end, 16);
		if (end == p || *end != ' ' || !size || start + size < start)
			continue;
		name = end + 1;
		name[strcspn(name, "\r\n")] = '\0';
		if (!*name)
			continue;
		if (m->nr == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			ns = reallocarray(m->syms, alloc, sizeof(*ns));
			if (!ns)
				return -ENOMEM;
			m->syms = ns;
		}
		m->syms[m->nr].addr = start;
		m->syms[m->nr].size = size;
		m->syms[m->nr].name = strdup(name);
		if (!m->syms[m->nr].name)
			return -ENOMEM;
		m->nr++;
	}
	if (m->nr > 1)
		qsort(m->syms, m->nr, sizeof(*m->syms), sym_cmp);
	return 0;
}

static struct jitmap *jitmap_of(struct jitmaps *j, uint32_t pid)
{
	uint64_t *slot;
	bool added;
	struct jitmap *m;

	if (u64map__upsert(&j->index, pid, 0, &slot, &added))
		return NULL;
	if (!added)
		return &j->maps[*slot - 1];
	if (j->nr == j->alloc) {
		size_t n = j->alloc ? j->alloc * 2 : 16;

		m = reallocarray(j->maps, n, sizeof(*m));
		if (!m) {
			*slot = 0;
			return NULL;
		}
		j->maps = m;
		j->alloc = n;
	}
	m = &j->maps[j->nr];
	memset(m, 0, sizeof(*m));
	m->pid = pid;
	*slot = ++j->nr;
	return m;
}

int jitmaps__read(struct jitmaps *j, uint32_t pid)
{
	struct jitmap *m;
	char path[64];
	struct stat st;
	FILE *f;
	int fd, err;

	if (!j)
		return 0;
	m = jitmap_of(j, pid);
	if (!m)
		return pr_errno(-ENOMEM, "cannot keep JIT maps");
	if (m->read)
		return 0;
	m->read = true;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return 0;
	}
	err = parse(f, m);
	fclose(f);
	if (err)
		return pr_errno(err, "cannot read '%s'", path);
	pr_debug("read %zu JIT symbols from '%s'", m->nr, path);
	return 0;
}

/* Index of the symbol covering a, or -1. */
static long find(const struct jitmap *m, uint64_t a)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && a - m->syms[lo - 1].addr < m->syms[lo - 1].size)
		return (long)(lo - 1);
	return -1;
}

static int store(struct session *s, const struct jitmap *m, const uint8_t *used)
{
	struct rec_symbol *out;
	struct rec_binary b;
	char path[64];
	size_t i, nr = 0;
	int err;

	out = calloc(m->nr, sizeof(*out));
	if (!out)
		return pr_errno(-ENOMEM, "cannot store JIT maps");
	for (i = 0; i < m->nr; i++)
		if (used[i])
			out[nr++] = m->syms[i];
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", m->pid);
	memset(&b, 0, sizeof(b));
	b.path = path;
	b.source = "perf-map";
	b.nr_symbols = nr;
	b.symbols = out;
	err = nr ? recording__add_binary(s->rec, &b) : 0;
	free(out);
	return err ? err : nr > 0;	/* 1: stored */
}

int jitmaps__capture(struct jitmaps *j, struct session *s, size_t *stored)
{
	uint8_t *used;
	size_t i, k;
	uint32_t f;
	int err = 0;

	*stored = 0;
	if (!j)
		return 0;
	u64map__for_each(&s->procs, i) {
		err = jitmaps__read(j, (uint32_t)s->procs.keys[i]);
		if (err)
			return err;
	}
	for (k = 0; k < j->nr && !err; k++) {
		struct jitmap *m = &j->maps[k];

		if (!m->nr)
			continue;
		used = calloc(m->nr, 1);
		if (!used)
			return pr_errno(-ENOMEM, "cannot store JIT maps");
		/* every user address of every stack this process sampled */
		u64map__for_each(&s->pairs, i) {
			const struct stack_entry *e;

			if ((uint32_t)(s->pairs.keys[i] >> 32) != m->pid)
				continue;
			e = stack_table__get(&s->stacks, (uint32_t)s->pairs.keys[i]);
			for (f = 0; e && f < e->nr_user; f++) {
				uint64_t a = e->frames[e->nr_kernel + f];
				long x = find(m, a);

				if (x < 0 && f && a)
					x = find(m, a - 1);
				if (x >= 0)
					used[x] = 1;
			}
		}
		err = store(s, m, used);
		if (err > 0) {
			(*stored)++;
			err = 0;
		}
		free(used);
	}
	return err;
}
