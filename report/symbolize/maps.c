// SPDX-License-Identifier: MIT
/*
 * report/symbolize/maps.c - each process's file mappings over time.
 *
 * A process maps, unmaps and re-maps files while it runs (dlopen, exec), so
 * the mapping that covered an address depends on when the sample was
 * taken. Mappings are sorted by (process, start) with a running maximum of
 * their ends, so the candidates for an address are found by one binary
 * search and a short walk back. A process's distinct mapping times number
 * its epochs: two samples of one stack in the same epoch see the same
 * mappings, which is what lets symbolize.c cache a stack per epoch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbolize/internal.h"
#include "util/bsearch.h"
#include "util/vec.h"

int symbolizer__add_mapping(struct symbolizer *sym, const struct rec_mapping *m)
{
	struct map *p;
	const char *path;

	if (sym->prepared)
		return -EBUSY;
	if (vec__grow(&sym->maps, &sym->alloc_maps, sym->nr_maps + 1, sizeof(*sym->maps)))
		return -ENOMEM;
	path = strtab__dup(&sym->names, m->path ? m->path : "");
	if (!path)
		return -ENOMEM;
	p = &sym->maps[sym->nr_maps++];
	memset(p, 0, sizeof(*p));
	p->tgid = m->tgid;
	p->time_ns = m->time_ns;
	p->start = m->start;
	p->end = m->end;
	p->pgoff = m->pgoff;
	p->path = path;
	p->base = basename_of(path);
	p->build_id_len = m->build_id_len > REC_BUILD_ID_MAX ? REC_BUILD_ID_MAX : m->build_id_len;
	memcpy(p->build_id, m->build_id, p->build_id_len);
	return 0;
}

static int cmp_map(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	if (x->tgid != y->tgid)
		return CMP(x->tgid, y->tgid);
	if (x->start != y->start)
		return CMP(x->start, y->start);
	if (x->time_ns != y->time_ns)
		return CMP(x->time_ns, y->time_ns);
	if (x->end != y->end)
		return CMP(x->end, y->end);
	return strcmp(x->path, y->path);
}

static int cmp_u64(const void *a, const void *b)
{
	return CMP(*(const uint64_t *)a, *(const uint64_t *)b);
}

static bool proc_below(const void *elem, const void *key)
{
	return ((const struct proc_maps *)elem)->tgid < *(const uint32_t *)key;
}

static bool u64_at_or_below(const void *elem, const void *key)
{
	return *(const uint64_t *)elem <= *(const uint64_t *)key;
}

static bool map_starts_at_or_below(const void *elem, const void *key)
{
	return ((const struct map *)elem)->start <= *(const uint64_t *)key;
}

const struct proc_maps *symbolizer__find_proc(const struct symbolizer *sym, uint32_t tgid)
{
	size_t lo = bsearch_lower_bound(&tgid, sym->procs, sym->nr_procs, sizeof(*sym->procs),
					proc_below);

	return lo < sym->nr_procs && sym->procs[lo].tgid == tgid ? &sym->procs[lo] : NULL;
}

/* How many of the process's distinct mapping times are <= t. */
uint32_t symbolizer__epoch(const struct symbolizer *sym, const struct proc_maps *pm, uint64_t t)
{
	const uint64_t *times = sym->map_times + pm->times_first;

	return (uint32_t)bsearch_lower_bound(&t, times, pm->nr_times, sizeof(*times),
					     u64_at_or_below);
}

/*
 * The mapping covering addr: the latest mapped at or before t, else the
 * earliest mapped after t (a mapping the recorder saw late).
 */
const struct map *symbolizer__find_map(const struct symbolizer *sym, const struct proc_maps *pm,
				       uint64_t addr, uint64_t t)
{
	const struct map *maps = sym->maps + pm->first, *best = NULL, *m;
	/* first map with start > addr */
	size_t i = bsearch_lower_bound(&addr, maps, pm->nr, sizeof(*maps), map_starts_at_or_below);

	while (i-- > 0 && maps[i].max_end > addr) {
		m = &maps[i];
		if (addr < m->start || addr >= m->end)
			continue;
		if (!best) {
			best = m;
		} else if (m->time_ns <= t) {
			if (best->time_ns > t || m->time_ns > best->time_ns)
				best = m;
		} else if (best->time_ns > t && m->time_ns < best->time_ns) {
			best = m;
		}
	}
	return best;
}

/* Sorts the mappings, indexes them by process and finds each one's binary. */
int symbolizer__index_maps(struct symbolizer *sym)
{
	size_t i, j, nr_procs = 0, t;
	struct proc_maps *pm;

	sort(sym->maps, sym->nr_maps, sizeof(*sym->maps), cmp_map);

	for (i = 0; i < sym->nr_maps; i++)
		if (!i || sym->maps[i].tgid != sym->maps[i - 1].tgid)
			nr_procs++;
	free(sym->procs);	/* a failed earlier attempt may have left them */
	free(sym->map_times);
	sym->nr_procs = 0;
	sym->procs = calloc(nr_procs ? nr_procs : 1, sizeof(*sym->procs));
	sym->map_times = calloc(sym->nr_maps ? sym->nr_maps : 1, sizeof(*sym->map_times));
	if (!sym->procs || !sym->map_times)
		return -ENOMEM;
	pm = NULL;
	for (i = 0; i < sym->nr_maps; i++) {
		struct map *m = &sym->maps[i];

		if (!pm || m->tgid != pm->tgid) {
			pm = &sym->procs[sym->nr_procs++];
			pm->tgid = m->tgid;
			pm->first = i;
			pm->times_first = i;
		}
		pm->nr++;
		m->max_end = i > pm->first && m[-1].max_end > m->end ? m[-1].max_end : m->end;
		m->bin = symbolizer__find_bin(sym, m);
		sym->map_times[i] = m->time_ns;
	}
	/* each process's distinct mapping times, sorted: its epochs */
	for (i = 0; i < sym->nr_procs; i++) {
		pm = &sym->procs[i];
		sort(sym->map_times + pm->first, pm->nr, sizeof(uint64_t), cmp_u64);
		for (j = 0, t = 0; j < pm->nr; j++) {
			uint64_t v = sym->map_times[pm->first + j];

			if (!t || sym->map_times[pm->first + t - 1] != v)
				sym->map_times[pm->first + t++] = v;
		}
		pm->nr_times = t;
	}
	return 0;
}
