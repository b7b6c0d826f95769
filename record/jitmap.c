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
 * The file lives in a world-writable directory and any user writes it: it
 * is opened without following symlinks, only if it is a regular file
 * (util/safe_open.h) owned by root or by the process's owner (as perf
 * does: another user's file would name root's JIT code), and read only up
 * to a bound, its bytes taken from the recorder's memory budget
 * (record/budget.h). One map is read up to an eighth of the budget and at
 * most JIT_MAP_MAX_BYTES of text plus symbol table (64 MiB: 48 MiB of text,
 * at least 16 MiB for 699,050 symbols; about 500,000 lines of V8's
 * --perf-basic-prof, several times what perf-map-agent writes for a large
 * JVM), all maps held at once up to a quarter of the budget and at most
 * JIT_MAPS_MAX_BYTES; a 7-million-line map would otherwise take the root
 * recorder past 1 GB. The share is per process: a map being read gets its
 * full bound, the largest maps of other processes giving way (read again
 * when they are needed), so one user's big maps never leave another
 * process without symbols. A map that does not fit is cut and counted,
 * and the first one cut is named in a warning. The bytes read
 * are kept in one buffer that the names point into (no allocation per
 * line). Past the cut, lines are only counted (within JIT_COUNT_MAX_BYTES,
 * so a sparse terabyte file ends the count too), and the cut is stored in
 * the recording (jit_map_cut) for `eprof info` to show. A map that was cut
 * is not read again while its process lives: only once more at its exit.
 *
 * A pid is reused: a map is one process's, from its fork (jitmaps__new_process)
 * to the next fork of that pid, and samples are matched to it by time. A
 * later process's symbols are stored under "/tmp/perf-PID.map@FORK_NS", so
 * that report never lends one process's JIT names to another. The exit
 * record's read is the last of a process's map; when it was lost, the map
 * is not read for that process again (the file may be the next one's).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/budget.h"
#include "record/jitmap.h"
#include "record/threads.h"
#include "format/recording.h"
#include "util/bsearch.h"
#include "util/hashmap.h"
#include "util/log.h"
#include "util/safe_open.h"
#include "util/vec.h"

#define JIT_MAP_MAX_BYTES	(64u << 20)
#define JIT_MAPS_MAX_BYTES	(256u << 20)
#define JIT_COUNT_MAX_BYTES	(1ull << 30)
#define JIT_COUNT_BUF		(1u << 20)

struct jitmap {
	uint32_t pid;
	uint64_t born_ns;		/* its process's fork; 0: before any fork seen */
	size_t older;			/* index + 1 of the previous process of pid, 0: none */
	struct rec_symbol *syms;	/* sorted by addr; names point into text */
	size_t nr;
	char *text;			/* the bytes read, lines NUL-terminated */
	size_t held;			/* bytes of text and syms, for the budget */
	struct rec_jit_cut cut;		/* the last cut (cut.path NULL: none) */
	bool cut_unsaved;		/* not yet in the recording */
	bool cut_seen;			/* some read was cut */
	unsigned int commits_since_final;	/* freed two commits after the exit */
	bool final;			/* read at the process's exit: never again */
	bool have_stat;			/* the file last read: */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct u64map stored;		/* hashes of the symbols stored */
	bool any_stored;
	bool owner_known;		/* owner: the process's uid, seen while it lived */
	bool owner_warned;
	uid_t owner;
};

struct jitmaps {
	struct u64map index;		/* pid -> index + 1 of its latest process */
	struct threads *procs;		/* born_ns and exec_uid of each process (threads.h) */
	struct jitmap *maps;
	size_t nr, alloc;
	size_t held;			/* sum of the maps' held bytes */
	bool said_cut;			/* a map was cut: warned once */
};

struct jitmaps *jitmaps__new(struct threads *procs)
{
	struct jitmaps *j = calloc(1, sizeof(struct jitmaps));

	if (j)
		j->procs = procs;
	return j;
}

/* The row of process pid, or NULL (none, or no table). */
static struct proc_row *proc_of(const struct jitmaps *j, uint32_t pid)
{
	return j->procs ? threads__proc(j->procs, pid) : NULL;
}

/* Frees m's symbols and text, their bytes given back to the memory budget. */
static void jitmap__release(struct jitmap *m)
{
	mem_budget__give(m->held);
	free(m->syms);
	free(m->text);
	m->syms = NULL;
	m->text = NULL;
	m->nr = 0;
	m->held = 0;
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

/* Lines in [p, p + n): newlines, plus a last line without one. */
static uint64_t count_lines(const char *p, size_t n, bool *open_line)
{
	const char *end = p + n, *nl;
	uint64_t lines = 0;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		lines++;
		p = nl + 1;
		*open_line = false;
	}
	if (p < end)
		*open_line = true;
	return lines;
}

/*
 * Reads at most limit bytes of fd into m->text (NUL-terminated). When the
 * file goes on past them, *more is set and *next is the byte after.
 */
static int read_text(int fd, size_t limit, struct jitmap *m, size_t *len, bool *more, char *next)
{
	size_t alloc = 0, n = 0;
	char *nb;
	ssize_t r;

	*more = false;
	for (;;) {
		if (n == alloc) {
			if (alloc == limit)
				break;
			alloc = alloc ? alloc * 2 : 65536;
			if (alloc > limit)
				alloc = limit;
			nb = realloc(m->text, alloc + 1);
			if (!nb)
				return -ENOMEM;
			m->text = nb;
		}
		r = read(fd, m->text + n, alloc - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;		/* a read error ends the map where it is */
		n += (size_t)r;
	}
	if (!m->text) {
		m->text = malloc(1);
		if (!m->text)
			return -ENOMEM;
	}
	m->text[n] = '\0';
	*len = n;
	if (n == limit) {
		do {
			r = read(fd, next, 1);
		} while (r < 0 && errno == EINTR);
		*more = r == 1;
	}
	return 0;
}

/*
 * Counts the lines still in fd past the cut, reading at most
 * JIT_COUNT_MAX_BYTES; *open_line says whether a line is under way.
 */
static void count_rest(int fd, struct rec_jit_cut *cut, bool *open_line)
{
	uint64_t seen = 0;
	char *buf = malloc(JIT_COUNT_BUF);
	ssize_t r;

	cut->dropped_lines_exact = false;
	if (!buf)
		return;
	while (seen < JIT_COUNT_MAX_BYTES) {
		r = read(fd, buf, JIT_COUNT_BUF);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			cut->dropped_lines_exact = r == 0;
			break;
		}
		seen += (uint64_t)r;
		cut->dropped_lines += count_lines(buf, (size_t)r, open_line);
	}
	cut->dropped_bytes += seen;
	free(buf);
}

/*
 * One line "START SIZE NAME" (hex numbers), NUL-terminated: its name (a
 * trailing CR cut off), or NULL when the line is malformed.
 */
static char *parse_line(char *p, unsigned long long *start, unsigned long long *size)
{
	char *end, *name;

	*start = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return NULL;
	p = end + 1;
	*size = strtoull(p, &end, 16);
	if (end == p || *end != ' ' || !*size || *start + *size < *start)
		return NULL;
	name = end + 1;
	name[strcspn(name, "\r")] = '\0';
	return *name ? name : NULL;
}

/*
 * The map was cut at pos of the len bytes read (file_more: the file goes
 * on, next its byte after them): what was kept and dropped, into m->cut.
 */
static void note_cut(int fd, const struct stat *st, struct jitmap *m, size_t len, size_t pos,
		     bool file_more, char next)
{
	struct rec_jit_cut *cut = &m->cut;
	bool open_line = false;

	/* the lines past pos were not parsed: their bytes are intact */
	cut->kept_bytes = pos;
	cut->kept_symbols = m->nr;
	cut->dropped_bytes = len - pos;
	cut->dropped_lines = count_lines(m->text + pos, len - pos, &open_line);
	cut->dropped_lines_exact = true;
	if (file_more) {
		cut->dropped_bytes++;
		cut->dropped_lines += count_lines(&next, 1, &open_line);
		count_rest(fd, cut, &open_line);
	}
	if (open_line)
		cut->dropped_lines++;
	if ((uint64_t)st->st_size > pos + cut->dropped_bytes)
		cut->dropped_bytes = (uint64_t)st->st_size - pos;
}

/*
 * Parses the map open at fd (st from its fstat) into m, reading and keeping
 * at most limit bytes of text and symbol table; a malformed line is
 * skipped. Fills m->cut when the map did not fit (m->cut.path stays NULL
 * when it did).
 */
static int parse(int fd, const struct stat *st, size_t limit, struct jitmap *m)
{
	size_t len, pos = 0, alloc = 0, line_start;
	struct rec_jit_cut *cut = &m->cut;
	bool file_more, is_cut = false;
	char next = 0;
	int err;

	memset(cut, 0, sizeof(*cut));
	/* three quarters for text, the rest (at least) for the symbol table */
	err = read_text(fd, limit - limit / 4, m, &len, &file_more, &next);
	if (err)
		return err;
	while (pos < len) {
		unsigned long long start, size;
		char *p = m->text + pos, *name, *nl;
		struct rec_symbol *ns;

		line_start = pos;
		nl = memchr(p, '\n', len - pos);
		if (!nl && file_more) {
			is_cut = true;	/* a line the cut went through */
			break;
		}
		if (nl)
			*nl = '\0';
		pos = nl ? (size_t)(nl - m->text) + 1 : len;
		name = parse_line(p, &start, &size);
		if (!name)
			continue;
		if (m->nr == alloc) {
			size_t na = alloc ? alloc * 2 : 64;

			/* text and table together stay within limit */
			if (len + na * sizeof(*ns) > limit)
				na = len < limit ? (limit - len) / sizeof(*ns) : 0;
			if (na <= alloc) {
				if (nl)
					*nl = '\n';
				pos = line_start;
				is_cut = true;
				break;
			}
			ns = reallocarray(m->syms, na, sizeof(*ns));
			if (!ns)
				return -ENOMEM;
			m->syms = ns;
			alloc = na;
		}
		m->syms[m->nr].addr = start;
		m->syms[m->nr].size = size;
		m->syms[m->nr].name = name;
		m->nr++;
	}
	if (file_more)
		is_cut = true;	/* the bytes read ended at a line's end, the file did not */
	if (m->nr > 1)
		qsort(m->syms, m->nr, sizeof(*m->syms), sym_cmp);
	m->held = len + alloc * sizeof(*m->syms);
	if (is_cut)
		note_cut(fd, st, m, len, pos, file_more, next);
	return 0;
}

/*
 * Notes the owner of m's process while it lives (not once it ended: the pid
 * may be another's). A process gone before its map is looked at (a short
 * one, reaped by the recorder) keeps the owner seen at its exec.
 */
static void note_owner(const struct jitmaps *j, struct jitmap *m)
{
	const struct proc_row *p = proc_of(j, m->pid);
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u", m->pid);
	if (!m->final && !stat(path, &st)) {
		m->owner = st.st_uid;
		m->owner_known = true;
	} else if (!m->owner_known && p && p->exec_uid) {
		m->owner = (uid_t)(p->exec_uid - 1);
		m->owner_known = true;
	}
}

/*
 * The map of pid's latest process; with fresh, a new one even if pid has
 * one (the pid was reused). NULL on ENOMEM.
 */
static struct jitmap *jitmap_of(struct jitmaps *j, uint32_t pid, bool fresh)
{
	const struct proc_row *p;
	uint64_t *slot;
	bool added;
	struct jitmap *m;

	if (u64map__upsert(&j->index, pid, 0, &slot, &added))
		return NULL;
	if (!added && !fresh)
		return &j->maps[*slot - 1];
	if (vec__grow(&j->maps, &j->alloc, j->nr + 1, sizeof(*j->maps))) {
		if (added)
			*slot = 0;
		return NULL;
	}
	m = &j->maps[j->nr];
	memset(m, 0, sizeof(*m));
	m->pid = pid;
	p = proc_of(j, pid);
	m->born_ns = p ? p->born_ns : 0;
	m->older = *slot;	/* 0 when added */
	*slot = ++j->nr;
	note_owner(j, m);
	return m;
}

/* The map of the process that had pid at time t, or NULL. */
static struct jitmap *jitmap_at(struct jitmaps *j, uint32_t pid, uint64_t t)
{
	struct jitmap *m = jitmap_of(j, pid, false);

	while (m && m->born_ns > t)
		m = m->older ? &j->maps[m->older - 1] : NULL;
	return m;
}

/* "/tmp/perf-PID.map", and "@FORK_NS" after it for a reused pid. */
static void map_name(const struct jitmap *m, char *buf, size_t len, bool stored)
{
	if (stored && m->older)
		snprintf(buf, len, "/tmp/perf-%u.map@%llu", m->pid, (unsigned long long)m->born_ns);
	else
		snprintf(buf, len, "/tmp/perf-%u.map", m->pid);
}

/* The most one map may hold: an eighth of the memory budget, at most JIT_MAP_MAX_BYTES. */
static size_t map_max(void)
{
	uint64_t b = mem_budget__size() / 8;

	return b < JIT_MAP_MAX_BYTES ? (size_t)b : JIT_MAP_MAX_BYTES;
}

/* The most all maps may hold: a quarter of the memory budget, at most JIT_MAPS_MAX_BYTES. */
static size_t maps_max(void)
{
	uint64_t b = mem_budget__size() / 4;

	return b < JIT_MAPS_MAX_BYTES ? (size_t)b : JIT_MAPS_MAX_BYTES;
}

/* Releases the largest maps of other processes until room bytes more fit the maps' share. */
static void make_room(struct jitmaps *j, const struct jitmap *keep, size_t room)
{
	while (j->held + room > maps_max()) {
		struct jitmap *big = NULL;
		size_t i;

		for (i = 0; i < j->nr; i++)
			if (&j->maps[i] != keep && j->maps[i].held &&
			    (!big || j->maps[i].held > big->held))
				big = &j->maps[i];
		if (!big)
			return;
		pr_debug("JIT map of process %u released (%zu KiB) for process %u's", big->pid,
			 big->held >> 10, keep->pid);
		j->held -= big->held;
		jitmap__release(big);
		big->have_stat = false;		/* read again when needed */
	}
}

/*
 * Reads /tmp/perf-PID.map into m unless it is the file read last time,
 * unchanged. A missing or unreadable map, or one another user wrote, is no
 * error.
 */
static int refresh(struct jitmaps *j, struct jitmap *m)
{
	struct jitmap fresh;
	char path[64];
	struct stat st;
	size_t others, limit;
	int fd, err;

	map_name(m, path, sizeof(path), false);
	note_owner(j, m);
	fd = safe_open_regular(path, 0, SAFE_OPEN_NOFOLLOW, &st);
	if (fd < 0)
		return 0;
	if (st.st_uid != 0 && (!m->owner_known || st.st_uid != m->owner)) {
		close(fd);
		if (!m->owner_warned)
			pr_debug("'%s' is owned by uid %u, not by its process's owner or root: not read",
				 path, (unsigned)st.st_uid);
		m->owner_warned = true;
		return 0;
	}
	if (m->have_stat && st.st_dev == m->dev && st.st_ino == m->ino && st.st_size == m->size &&
	    st.st_mtim.tv_sec == m->mtime.tv_sec && st.st_mtim.tv_nsec == m->mtime.tv_nsec) {
		close(fd);
		return 0;
	}
	/* the old contents go first: never two copies of a big map at once */
	j->held -= m->held;
	jitmap__release(m);
	make_room(j, m, map_max());
	others = j->held;
	limit = others < maps_max() ? maps_max() - others : 0;
	if (limit > map_max())
		limit = map_max();
	/* what the memory budget has left, if less: the map is cut there */
	limit = (size_t)mem_budget__take_upto(limit);
	memset(&fresh, 0, sizeof(fresh));
	err = parse(fd, &st, limit, &fresh);
	close(fd);
	mem_budget__give(limit - (fresh.held < limit ? fresh.held : limit));
	if (err) {
		jitmap__release(&fresh);
		m->have_stat = false;
		return pr_errno(err, "cannot read '%s'", path);
	}
	m->syms = fresh.syms;
	m->nr = fresh.nr;
	m->text = fresh.text;
	m->held = fresh.held;
	j->held = others + m->held;
	if (fresh.cut.kept_bytes || fresh.cut.dropped_bytes) {
		m->cut = fresh.cut;
		m->cut_unsaved = true;
		m->cut_seen = true;
		if (!j->said_cut)
			pr_warn("'%s' is %lld bytes: read %llu (%zu symbols; a perf map may hold an "
				"eighth of the memory budget, all of them a quarter), %llu lines not "
				"read (`eprof info` counts the maps cut)",
				path, (long long)st.st_size, (unsigned long long)m->cut.kept_bytes,
				m->nr, (unsigned long long)m->cut.dropped_lines);
		j->said_cut = true;
		pr_debug("'%s' is %lld bytes: read %llu (%zu symbols), %llu lines not read",
			 path, (long long)st.st_size, (unsigned long long)m->cut.kept_bytes, m->nr,
			 (unsigned long long)m->cut.dropped_lines);
	}
	m->have_stat = true;
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->size = st.st_size;
	m->mtime = st.st_mtim;
	pr_debug("read %zu JIT symbols from '%s'", m->nr, path);
	return 0;
}

static int read_final(struct jitmaps *j, struct jitmap *m)
{
	if (m->final)
		return 0;
	m->final = true;
	return refresh(j, m);
}

int jitmaps__read(struct jitmaps *j, uint32_t pid)
{
	struct jitmap *m;
	uint64_t *slot;
	char path[64];
	struct stat st;

	if (!j)
		return 0;
	/*
	 * Every process that ends is asked about. One that never had a map
	 * and has no file gets no entry: under a fork storm those entries
	 * were 15 MB in 8 s, kept to the end of the file.
	 */
	slot = u64map__find(&j->index, pid);
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	if ((!slot || !*slot) && lstat(path, &st))
		return 0;
	m = jitmap_of(j, pid, false);
	if (!m)
		return pr_errno(-ENOMEM, "cannot keep JIT maps");
	return read_final(j, m);
}

int jitmaps__exec(struct jitmaps *j, uint32_t pid)
{
	struct proc_row *p;
	char path[32];
	struct stat st;
	int err;

	if (!j || !j->procs)
		return 0;
	snprintf(path, sizeof(path), "/proc/%u", pid);
	if (stat(path, &st))
		return 0;		/* gone already: nothing trustworthy to note */
	err = threads__proc_add(j->procs, pid, &p);
	if (err == -ENOSPC)
		return 0;		/* no row (said once): its owner is looked up later */
	if (err)
		return pr_errno(err, "cannot keep JIT maps");
	p->exec_uid = (uint64_t)st.st_uid + 1;
	return 0;
}

int jitmaps__new_process(struct jitmaps *j, uint32_t pid, uint64_t fork_ns)
{
	struct proc_row *p;
	struct jitmap *m;
	uint64_t *slot;
	int err;

	if (!j || !j->procs)
		return 0;
	p = threads__proc(j->procs, pid);
	if (p && p->born_ns >= fork_ns)
		return 0;		/* this fork, or an older one, seen already */
	err = threads__proc_add(j->procs, pid, &p);
	if (err == -ENOSPC)
		return 0;		/* no row (said once): its map is taken as its pid's */
	if (err)
		return pr_errno(err, "cannot keep JIT maps");
	p->born_ns = fork_ns;
	p->exec_uid = 0;	/* the uid was the previous process's */
	slot = u64map__find(&j->index, pid);
	if (!slot || !*slot)
		return 0;		/* no map looked at yet: the next is the new process's */
	/*
	 * The earlier process is gone, its exit record lost: the file may be
	 * the new process's by now, so it is not read for the old one again.
	 */
	j->maps[*slot - 1].final = true;
	m = jitmap_of(j, pid, true);
	return m ? 0 : pr_errno(-ENOMEM, "cannot keep JIT maps");
}

static bool sym_at_or_below(const void *elem, const void *key)
{
	return ((const struct rec_symbol *)elem)->addr <= *(const uint64_t *)key;
}

/* Index of the symbol covering a, or -1. */
static long find(const struct jitmap *m, uint64_t a)
{
	size_t lo = bsearch_lower_bound(&a, m->syms, m->nr, sizeof(*m->syms), sym_at_or_below);

	if (lo && a - m->syms[lo - 1].addr < m->syms[lo - 1].size)
		return (long)(lo - 1);
	return -1;
}

static uint64_t sym_key(const struct rec_symbol *sym)
{
	return hash_mix(hash_mix(hash_str(sym->name), sym->addr), sym->size);
}

/* jitmaps__store() for the addresses addrs (sorted, distinct) of one process's map. */
static int store_one(struct jitmaps *j, struct recording *rec, struct jitmap *m,
		     const uint64_t *addrs, size_t n, size_t *nr_maps)
{
	struct rec_symbol *out = NULL;
	struct rec_binary b;
	char path[64];
	uint64_t *slot;
	size_t i, nr = 0;
	bool added;
	long x;
	int err = 0;

	/* a map cut once is read again only at the process's exit */
	for (i = 0; i < n && !m->final && !m->cut_seen; i++) {
		if (find(m, addrs[i]) < 0) {	/* new code since the map was read? */
			err = refresh(j, m);
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
	map_name(m, path, sizeof(path), true);
	memset(&b, 0, sizeof(b));
	b.path = path;
	b.source = "perf-map";
	b.nr_symbols = nr;
	b.symbols = out;
	err = recording__add_binary(rec, &b);
	if (!err && !m->any_stored) {
		m->any_stored = true;
		(*nr_maps)++;
	}
out:
	free(out);
	return err;
}

int jitmaps__store(struct jitmaps *j, struct recording *rec, uint32_t pid,
		   const struct jit_sample *v, size_t n, size_t *nr_maps)
{
	struct jitmap *m, *next, *o;
	uint64_t *addrs = NULL;
	size_t i, nr;
	int err = 0;

	if (!j || !n)
		return 0;
	if (!jitmap_of(j, pid, false))
		return pr_errno(-ENOMEM, "cannot keep JIT maps");
	addrs = calloc(n, sizeof(*addrs));
	if (!addrs)
		return pr_errno(-ENOMEM, "cannot store JIT maps");
	/* one pass per process that had pid in this step (usually one), oldest first */
	for (m = NULL; !err; m = next) {
		next = NULL;
		for (i = 0; i < n; i++) {
			o = jitmap_at(j, pid, v[i].time_ns);
			if (o && (!m || o > m) && (!next || o < next))
				next = o;
		}
		if (!next)
			break;
		for (i = 0, nr = 0; i < n; i++)
			if (jitmap_at(j, pid, v[i].time_ns) == next &&
			    (!nr || addrs[nr - 1] != v[i].addr))
				addrs[nr++] = v[i].addr;
		err = store_one(j, rec, next, addrs, nr, nr_maps);
	}
	free(addrs);
	return err;
}

int jitmaps__after_commit(struct jitmaps *j, struct recording *rec)
{
	char path[64];
	size_t i;
	int err;

	for (i = 0; j && i < j->nr; i++) {
		struct jitmap *m = &j->maps[i];

		if (m->cut_unsaved) {
			map_name(m, path, sizeof(path), true);
			m->cut.tgid = m->pid;
			m->cut.path = path;
			err = recording__add_jit_cut(rec, &m->cut);
			m->cut.path = NULL;
			if (err)
				return err;
			m->cut_unsaved = false;
		}
		/*
		 * The commit after a process's exit stored what its last samples
		 * needed; one more lets samples that trailed the exit record in.
		 * Then its map goes, so that the budget serves live processes.
		 */
		if (m->final && m->text && ++m->commits_since_final >= 2) {
			j->held -= m->held;
			jitmap__release(m);
		}
	}
	return 0;
}
