// SPDX-License-Identifier: MIT
/*
 * record/mappings.c - the table of kept mappings (record/mappings.h). It
 * is shared by the session, which adds, inherits and forgets mappings as
 * the side-band reports them, and by capture, which writes those samples
 * fall in; it lives apart from both so that neither calls the other.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/mappings.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/vec.h"

static bool path_eq(uint32_t val, const void *key, const void *ctx)
{
	const struct path_pool *p = ctx;

	return !strcmp(p->strs[val], key);
}

/* path's copy in p, added when new; NULL when out of memory. */
static const char *path_pool__intern(struct path_pool *p, const char *path)
{
	uint64_t hash = hash_bytes(path, strlen(path));
	uint32_t *slot;
	char *copy;

	slot = hashmap__find(&p->index, hash, path_eq, path, p);
	if (slot)
		return p->strs[*slot];
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
	return copy;
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

int mapping_table__add(struct mapping_table *t, const struct rec_mapping *m)
{
	const char *path = path_pool__intern(&t->paths, m->path);
	struct mapping *k;

	if (!path || vec__grow(&t->v, &t->alloc, t->nr + 1, sizeof(*t->v)))
		return pr_errno(-ENOMEM, "cannot keep mappings");
	k = &t->v[t->nr];
	*k = (struct mapping){ .time_ns = m->time_ns, .start = m->start, .end = m->end,
			       .pgoff = m->pgoff, .tgid = m->tgid,
			       .build_id_len = m->build_id_len, .path = path };
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

int mapping__write(struct mapping_table *t, struct recording *rec, struct mapping *k,
		   uint64_t complete_ns)
{
	struct rec_mapping m;
	int err;

	if (k->written)
		return 0;
	mapping__to_rec(k, &m);
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
	struct path_pool fresh = { HASHMAP_INIT, NULL, 0, 0 };
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
	return 0;
}

void mapping_table__release(struct mapping_table *t)
{
	free(t->v);
	path_pool__release(&t->paths);
	u64map__release(&t->forgot_written);
	memset(t, 0, sizeof(*t));
}
