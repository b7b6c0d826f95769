// SPDX-License-Identifier: MIT
/*
 * record/jitmap.c - /tmp/perf-PID.map, the de facto JIT symbol interface
 * (V8, the JVM with perf-map-agent, LuaJIT, ...): one "START SIZE name"
 * line per generated function, hexadecimal, the name running to the end of
 * the line. A process usually deletes or rewrites its map when it exits, or
 * its pid is reused, so the map is read at its exit (the side-band's EXIT
 * record) and for good then. While the process lives, a commit that sampled
 * new addresses outside its mapped files reads the map (again, if it changed
 * since it was last read and an address is not covered), and stores the
 * symbols covering them that are not stored yet: a recording cut short
 * names the JIT code sampled up to its last commit.
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
#include "util/safe_open.h"

#define JIT_MAX_LINE	4096

struct jitmap {
	uint32_t pid;
	struct rec_symbol *syms;	/* sorted by addr; names malloc'd */
	size_t nr;
	bool final;			/* read at the process's exit: never again */
	bool have_stat;			/* the file last read: */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct u64map stored;		/* hashes of the symbols stored */
	bool any_stored;
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
	m->syms = NULL;
	m->nr = 0;
}

void jitmaps__free(struct jitmaps *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->nr; i++) {
		jitmap__release(&j->maps[i]);
		u64map__release(&j->maps[i].stored);
	}
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

/*
 * Reads /tmp/perf-PID.map into m unless it is the file read last time,
 * unchanged. A missing or unreadable map is no error.
 */
static int refresh(struct jitmap *m)
{
	struct jitmap fresh;
	char path[64];
	struct stat st;
	FILE *f;
	int fd, err;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", m->pid);
	fd = safe_open_regular(path, 0, SAFE_OPEN_NOFOLLOW, &st);
	if (fd < 0)
		return 0;
	if (m->have_stat && st.st_dev == m->dev && st.st_ino == m->ino && st.st_size == m->size &&
	    st.st_mtim.tv_sec == m->mtime.tv_sec && st.st_mtim.tv_nsec == m->mtime.tv_nsec) {
		close(fd);
		return 0;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return 0;
	}
	memset(&fresh, 0, sizeof(fresh));
	err = parse(f, &fresh);
	fclose(f);
	if (err) {
		jitmap__release(&fresh);
		return pr_errno(err, "cannot read '%s'", path);
	}
	jitmap__release(m);
	m->syms = fresh.syms;
	m->nr = fresh.nr;
	m->have_stat = true;
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->size = st.st_size;
	m->mtime = st.st_mtim;
	pr_debug("read %zu JIT symbols from '%s'", m->nr, path);
	return 0;
}

int jitmaps__read(struct jitmaps *j, uint32_t pid)
{
	struct jitmap *m;

	if (!j)
		return 0;
	m = jitmap_of(j, pid);
	if (!m)
		return pr_errno(-ENOMEM, "cannot keep JIT maps");
	if (m->final)
		return 0;
	m->final = true;
	return refresh(m);
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

static uint64_t sym_key(const struct rec_symbol *sym)
{
	return hash_u64(sym->addr) ^ hash_u64(sym->size + 1) * 31 ^
	       hash_bytes(sym->name, strlen(sym->name));
}

int jitmaps__store(struct jitmaps *j, struct session *s, uint32_t pid, const uint64_t *addrs,
		   size_t n, size_t *nr_maps)
{
	struct rec_symbol *out = NULL;
	struct rec_binary b;
	struct jitmap *m;
	char path[64];
	uint64_t *slot;
	size_t i, nr = 0;
	bool added;
	long x;
	int err = 0;

	if (!j || !n)
		return 0;
	m = jitmap_of(j, pid);
	if (!m)
		return pr_errno(-ENOMEM, "cannot keep JIT maps");
	for (i = 0; i < n && !m->final; i++) {
		if (find(m, addrs[i]) < 0) {	/* new code since the map was read? */
			err = refresh(m);
			if (err)
				return err;
			break;
		}
	}
	if (!m->nr)
		return 0;
	out = calloc(n, sizeof(*out));
	if (!out)
		return pr_errno(-ENOMEM, "cannot store JIT maps");
	/* addrs are sorted: so are the symbols found */
	for (i = 0; i < n; i++) {
		x = find(m, addrs[i]);
		if (x < 0)
			continue;
		err = u64map__upsert(&m->stored, sym_key(&m->syms[x]), 0, &slot, &added);
		if (err) {
			pr_errno(err, "cannot store JIT maps");
			goto out;
		}
		if (added)
			out[nr++] = m->syms[x];
	}
	if (!nr)
		goto out;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", m->pid);
	memset(&b, 0, sizeof(b));
	b.path = path;
	b.source = "perf-map";
	b.nr_symbols = nr;
	b.symbols = out;
	err = recording__add_binary(s->rec, &b);
	if (!err && !m->any_stored) {
		m->any_stored = true;
		(*nr_maps)++;
	}
out:
	free(out);
	return err;
}
