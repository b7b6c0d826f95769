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
#include "util/log.h"
#include "util/vec.h"

int mapping_table__add(struct mapping_table *t, const struct rec_mapping *m)
{
	struct mapping *k;

	if (vec__grow(&t->v, &t->alloc, t->nr + 1, sizeof(*t->v)))
		return pr_errno(-ENOMEM, "cannot keep mappings");
	k = &t->v[t->nr];
	*k = (struct mapping){ .time_ns = m->time_ns, .start = m->start, .end = m->end,
			       .pgoff = m->pgoff, .tgid = m->tgid,
			       .build_id_len = m->build_id_len, .path = strdup(m->path) };
	if (!k->path)
		return pr_errno(-ENOMEM, "cannot keep mappings");
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

int mapping__write(struct mapping_table *t, struct recording *rec, struct mapping *k)
{
	struct rec_mapping m;
	int err;

	if (k->written)
		return 0;
	mapping__to_rec(k, &m);
	err = recording__add_mapping(rec, &m);
	if (err)
		return err;
	k->written = true;
	t->nr_written++;
	return 0;
}

void mapping_table__release(struct mapping_table *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->v[i].path);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
