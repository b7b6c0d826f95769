// SPDX-License-Identifier: MIT
/*
 * record/mappings.c - the table of kept mappings (record/mappings.h). It
 * is shared by the session, which adds, inherits and forgets mappings as
 * the side-band reports them, and by capture, which writes those samples
 * fall in; it lives apart from both so that neither calls the other.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "record/budget.h"
#include "record/mappings.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/vec.h"

static bool path_eq(uint32_t val, const void *key, const void *ctx)
{
	const struct path_pool *p = ctx;

	return !strcmp(p->strs[val], key);
}

/* What malloc holds for a string of len bytes: its header, rounded to 16, 32 at least. */
static uint64_t str_bytes(size_t len)
{
	uint64_t b = ((uint64_t)len + 1 + 8 + 15) & ~15ull;

	return b < 32 ? 32 : b;
}

static const char *path_pool__find(const struct path_pool *p, const char *path, uint64_t hash)
{
	uint32_t *slot = hashmap__find(&p->index, hash, path_eq, path, p);

	return slot ? p->strs[*slot] : NULL;
}

/* Bytes a new path of len bytes takes in p; UINT64_MAX when p cannot grow. */
static uint64_t path_pool__cost(const struct path_pool *p, size_t len)
{
	size_t alloc = vec__alloc_for(p->alloc, p->nr + 1), cap = hashmap__cap_for(&p->index, p->nr + 1);

	if (alloc == SIZE_MAX || cap == SIZE_MAX)
		return UINT64_MAX;
	return str_bytes(len) + (uint64_t)(alloc - p->alloc) * sizeof(*p->strs) +
	       (uint64_t)(cap - p->index.cap) * sizeof(struct hashmap_slot);
}

/* Adds path (absent from p); its copy, or NULL when out of memory. */
static const char *path_pool__add(struct path_pool *p, const char *path, size_t len, uint64_t hash)
{
	char *copy;

	if (p->nr >= UINT32_MAX || vec__grow(&p->strs, &p->alloc, p->nr + 1, sizeof(*p->strs)))
		return NULL;
	copy = strdup(path);
	if (!copy)
		return NULL;
	if (hashmap__add(&p->index, hash, (uint32_t)p->nr)) {
		free(copy);
		return NULL;
	}
	p->strs[p->nr++] = copy;
	p->bytes += str_bytes(len);
	return copy;
}

/* path's copy in p, added when new; NULL when out of memory. */
static const char *path_pool__intern(struct path_pool *p, const char *path)
{
	size_t len = strlen(path);
	uint64_t hash = hash_bytes(path, len);
	const char *known = path_pool__find(p, path, hash);

	return known ? known : path_pool__add(p, path, len, hash);
}

static void path_pool__release(struct path_pool *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		free(p->strs[i]);
	free(p->strs);
	hashmap__release(&p->index);
	memset(p, 0, sizeof(*p));
}

/* --- what the table takes of the memory budget --------------------------- */

/* The bytes t's arrays, paths, files and per-process maps take. */
static uint64_t table_bytes(const struct mapping_table *t)
{
	return (uint64_t)t->alloc * sizeof(*t->v) + (uint64_t)t->paths.alloc * sizeof(*t->paths.strs) +
	       (uint64_t)t->paths.index.cap * sizeof(struct hashmap_slot) + t->paths.bytes +
	       (uint64_t)t->alloc_files * sizeof(*t->files) +
	       (uint64_t)(t->file_index.cap + t->claim_index.cap) * sizeof(struct hashmap_slot) +
	       u64map__bytes_for(&t->per_proc, t->per_proc.nr) +
	       u64map__bytes_for(&t->forgot_written, t->forgot_written.nr);
}

/*
 * Takes cost from the floor (unless big: a process past its floor rows),
 * else from the budget; false when neither has room.
 */
static bool take_as(struct mapping_table *t, uint64_t cost, bool big)
{
	if (!big && t->floor <= MAPS_FLOOR && cost <= MAPS_FLOOR - t->floor) {
		t->floor += cost;
		return true;
	}
	/* what symbols and tables need stays free of such processes' mappings */
	if (big && t->charged + cost > mem_budget__size() / MAPS_BIG_SHARE_DIV)
		return false;
	if (!mem_budget__take(cost))
		return false;
	t->charged += cost;
	return true;
}

static bool take(struct mapping_table *t, uint64_t cost)
{
	return take_as(t, cost, false);
}

/*
 * Makes what t holds (charged and floor) what it takes now: gives back
 * what it freed (the budget's first), and holds what grew unasked (a
 * file resolved: one per sampled binary) beside the floor if it must.
 */
static void settle(struct mapping_table *t)
{
	uint64_t now = table_bytes(t), held = t->charged + t->floor, d;

	if (now > held) {
		if (!take(t, now - held))
			t->floor += now - held;
		return;
	}
	d = held - now < t->charged ? held - now : t->charged;
	mem_budget__give(d);
	t->charged -= d;
	t->floor -= held - now - d;
}

/* Counts one more kept mapping of tgid; without memory it goes uncounted (small). */
static void count_proc(struct mapping_table *t, uint32_t tgid)
{
	uint64_t *slot;
	bool added;

	if (!u64map__upsert(&t->per_proc, tgid, 0, &slot, &added))
		++*slot;
}

int mapping_table__add(struct mapping_table *t, const struct rec_mapping *m)
{
	size_t len = strlen(m->path), alloc = vec__alloc_for(t->alloc, t->nr + 1);
	uint64_t hash = hash_bytes(m->path, len), cost = 0, *rows = u64map__find(&t->per_proc, m->tgid);
	uint64_t grow = u64map__bytes_for(&t->per_proc, t->per_proc.nr + 1);
	const char *path = path_pool__find(&t->paths, m->path, hash);
	bool big = rows && *rows >= MAPS_PROC_FLOOR_ROWS;
	struct mapping *k;

	if (!path)
		cost = path_pool__cost(&t->paths, len);
	if (alloc == SIZE_MAX || cost == UINT64_MAX || grow == UINT64_MAX)
		return pr_errno(-ENOMEM, "cannot keep mappings");
	cost += (uint64_t)(alloc - t->alloc) * sizeof(*t->v);
	if (!rows)
		cost += grow - u64map__bytes_for(&t->per_proc, t->per_proc.nr);
	if (cost && !take_as(t, cost, big)) {
		t->nr_refused++;
		if (big && !(t->warned & 1))
			pr_warn("the memory budget is full: a process keeps no more than %d mappings "
				"from now on (the others' have a reserve), and samples in the "
				"rest go unnamed (raise --mem-limit)", MAPS_PROC_FLOOR_ROWS);
		else if (!big && !(t->warned & 2))
			pr_warn("the memory budget is full: mappings of processes are not kept from "
				"now on, and samples in them go unnamed (raise --mem-limit)");
		t->warned |= big ? 1 : 2;
		return 0;
	}
	count_proc(t, m->tgid);
	if (!path)
		path = path_pool__add(&t->paths, m->path, len, hash);
	if (!path || vec__grow(&t->v, &t->alloc, t->nr + 1, sizeof(*t->v))) {
		settle(t);
		return pr_errno(-ENOMEM, "cannot keep mappings");
	}
	k = &t->v[t->nr];
	*k = (struct mapping){ .time_ns = m->time_ns, .start = m->start, .end = m->end,
			       .pgoff = m->pgoff, .tgid = m->tgid,
			       .build_id_len = (uint8_t)(m->build_id_len > REC_BUILD_ID_MAX ?
							 REC_BUILD_ID_MAX : m->build_id_len),
			       .path = path };
	memcpy(k->build_id, m->build_id, sizeof(k->build_id));
	t->nr++;
	t->dirty = true;
	return 0;
}

void mapping__to_rec(const struct mapping *k, struct rec_mapping *m)
{
	memset(m, 0, sizeof(*m));
	m->time_ns = k->time_ns;
	m->tgid = k->tgid;
	m->start = k->start;
	m->end = k->end;
	m->pgoff = k->pgoff;
	m->path = k->path;
	m->build_id_len = k->build_id_len;
	memcpy(m->build_id, k->build_id, sizeof(m->build_id));
}

/* No other mapping of k's process covers any of k's addresses, as far as t knows. */
static bool alone(const struct mapping_table *t, const struct mapping *k)
{
	const struct mapping *m;

	if (t->dirty || k < t->v || k >= t->v + t->nr || u64map__find(&t->forgot_written, k->tgid))
		return false;
	/* sorted by (tgid, start): those before start at or below k's start */
	for (m = k; m > t->v && m[-1].tgid == k->tgid;) {
		m--;
		if (m->end > k->start)
			return false;
	}
	for (m = k + 1; m < t->v + t->nr && m->tgid == k->tgid; m++)
		if (m->start < k->end)
			return false;
	return true;
}

static void ident_of(const struct stat *st, struct mapped_file *f)
{
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->ctime_ns = (uint64_t)st->st_ctim.tv_sec * 1000000000ull + (uint64_t)st->st_ctim.tv_nsec;
	f->size = (uint64_t)st->st_size;
}

static uint64_t file_hash(const struct mapped_file *f)
{
	return hash_mix(hash_mix(hash_mix(hash_mix(hash_bytes(f->real_id, f->id_len), f->dev),
					  f->ino), f->ctime_ns), f->size);
}

static bool file_eq(uint32_t i, const void *key, const void *ctx)
{
	const struct mapped_file *a = &((const struct mapping_table *)ctx)->files[i], *b = key;

	return a->dev == b->dev && a->ino == b->ino && a->ctime_ns == b->ctime_ns &&
	       a->size == b->size && a->id_len == b->id_len &&
	       !memcmp(a->real_id, b->real_id, b->id_len);
}

/* The key of claim_index: a recorded build-id (its length is the file's). */
struct claim_key {
	const uint8_t *id;
	uint8_t len;
};

static bool claim_eq(uint32_t i, const void *key, const void *ctx)
{
	const struct mapped_file *a = &((const struct mapping_table *)ctx)->files[i];
	const struct claim_key *k = key;

	return a->id_len == k->len && !memcmp(a->rec_id, k->id, k->len);
}

static bool claimed(const struct mapping_table *t, const uint8_t *id, uint8_t len)
{
	struct claim_key k = { id, len };

	return hashmap__find(&t->claim_index, hash_bytes(id, len), claim_eq, &k, t);
}

/*
 * f's recorded build-id: its own, or when another file claimed that, the
 * first of a series derived from it that nobody claimed (a file may carry
 * a derived id as its real one: it is then a claim like any other).
 */
static void choose_rec_id(const struct mapping_table *t, struct mapped_file *f)
{
	uint64_t h = hash_bytes(f->real_id, f->id_len), w = 0;
	uint64_t n;
	size_t i;

	memcpy(f->rec_id, f->real_id, f->id_len);
	for (n = 1; claimed(t, f->rec_id, f->id_len); n++) {
		for (i = 0; i < f->id_len; i++) {
			if (i % 8 == 0)
				w = hash_mix(hash_mix(h, n), i);
			f->rec_id[i] = (uint8_t)(w >> (i % 8 * 8));
		}
	}
}

int mapping__resolve(struct mapping_table *t, struct mapping *k)
{
	struct mapped_file key, *f;
	struct stat st;
	uint64_t hash;
	uint32_t *slot;
	int fd;

	if (k->file || !k->build_id_len || k->path[0] != '/' || k->path[1] == '/')
		return 0;
	memset(&key, 0, sizeof(key));
	key.id_len = k->build_id_len;
	memcpy(key.real_id, k->build_id, k->build_id_len);
	/*
	 * A file that cannot be opened any more (its process ended, its path
	 * is gone) is recorded under its build-id, as before identities: there
	 * is nothing to tell it from another file with that build-id, and no
	 * symbols of its own are stored for it either.
	 */
	fd = mapped_file__open(k->tgid, k->start, k->end, k->path);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		k->file = MAPPING_FILE_UNKNOWN;
		return 0;
	}
	close(fd);
	ident_of(&st, &key);
	hash = file_hash(&key);
	slot = hashmap__find(&t->file_index, hash, file_eq, &key, t);
	if (slot) {
		k->file = *slot + 1;
		return 0;
	}
	if (t->nr_files >= UINT32_MAX - 1 ||
	    vec__grow(&t->files, &t->alloc_files, t->nr_files + 1, sizeof(*t->files)))
		return pr_errno(-ENOMEM, "cannot keep mappings");
	choose_rec_id(t, &key);
	if (hashmap__add(&t->file_index, hash, (uint32_t)t->nr_files) ||
	    hashmap__add(&t->claim_index, hash_bytes(key.rec_id, key.id_len),
			 (uint32_t)t->nr_files))
		return pr_errno(-ENOMEM, "cannot keep mappings");
	f = &t->files[t->nr_files++];
	*f = key;
	settle(t);
	k->file = (uint32_t)t->nr_files;
	if (memcmp(f->rec_id, f->real_id, f->id_len))
		pr_debug("'%s' (inode %llu) carries the build-id of another file: recorded under "
			 "its own", k->path, (unsigned long long)f->ino);
	return 0;
}

const struct mapped_file *mapping__file(const struct mapping_table *t, const struct mapping *k)
{
	return k->file && k->file <= t->nr_files ? &t->files[k->file - 1] : NULL;
}

bool mapped_file__is(const struct mapped_file *f, int fd)
{
	struct mapped_file id;
	struct stat st;

	if (fstat(fd, &st))
		return false;
	ident_of(&st, &id);
	return id.dev == f->dev && id.ino == f->ino && id.ctime_ns == f->ctime_ns &&
	       id.size == f->size;
}

int mapping__write(struct mapping_table *t, struct recording *rec, struct mapping *k,
		   uint64_t complete_ns)
{
	const struct mapped_file *f = mapping__file(t, k);
	struct rec_mapping m;
	int err;

	if (k->written)
		return 0;
	mapping__to_rec(k, &m);
	if (f)
		memcpy(m.build_id, f->rec_id, f->id_len);
	if (k->time_ns < complete_ns && alone(t, k))
		m.time_ns = 0;
	err = recording__add_mapping(rec, &m);
	if (err)
		return err;
	k->written = true;
	t->nr_written++;
	return 0;
}

int mapping_table__repool(struct mapping_table *t)
{
	struct path_pool fresh = { HASHMAP_INIT, NULL, 0, 0, 0 };
	const char **paths;
	size_t i;

	/* the new paths go aside first: on failure every mapping keeps its old one */
	paths = calloc(t->nr ? t->nr : 1, sizeof(*paths));
	if (!paths)
		return pr_errno(-ENOMEM, "cannot keep mappings");
	for (i = 0; i < t->nr; i++) {
		paths[i] = path_pool__intern(&fresh, t->v[i].path);
		if (!paths[i]) {
			free(paths);
			path_pool__release(&fresh);
			return pr_errno(-ENOMEM, "cannot keep mappings");
		}
	}
	for (i = 0; i < t->nr; i++)
		t->v[i].path = paths[i];
	free(paths);
	path_pool__release(&t->paths);
	t->paths = fresh;
	settle(t);
	return 0;
}

/* Counts each process's mappings again after some were forgotten. */
static void recount(struct mapping_table *t)
{
	size_t i;

	u64map__release(&t->per_proc);
	for (i = 0; i < t->nr; i++)
		count_proc(t, t->v[i].tgid);
}

void mapping_table__fit(struct mapping_table *t)
{
	size_t a = t->alloc;
	struct mapping *v;

	recount(t);
	while (a > 16 && t->nr <= a / 4)
		a /= 2;
	v = a == t->alloc ? NULL : realloc(t->v, a * sizeof(*v));
	if (v) {
		t->v = v;
		t->alloc = a;
	}
	settle(t);
}

void mapping_table__index_bytes(struct mapping_table *t, uint64_t bytes)
{
	uint64_t d;

	if (bytes > t->index_bytes) {
		d = bytes - t->index_bytes;
		if (mem_budget__take(d))
			t->index_charged += d;
	} else {
		d = t->index_bytes - bytes < t->index_charged ? t->index_bytes - bytes :
								t->index_charged;
		mem_budget__give(d);
		t->index_charged -= d;
	}
	t->index_bytes = bytes;
}

void mapping_table__release(struct mapping_table *t)
{
	free(t->v);
	path_pool__release(&t->paths);
	u64map__release(&t->forgot_written);
	u64map__release(&t->per_proc);
	free(t->files);
	hashmap__release(&t->file_index);
	hashmap__release(&t->claim_index);
	mem_budget__give(t->charged + t->index_charged);
	memset(t, 0, sizeof(*t));
}
