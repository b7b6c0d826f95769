// SPDX-License-Identifier: MIT
/*
 * report/aggregate/lines.c - distinct folded lines as sequences of name ids.
 *
 * A line is added by interning each of its names, then the sequence of ids
 * as a whole; both tables grow with distinct names and distinct lines only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate/lines.h"
#include "util/hash.h"
#include "util/vec.h"

void fold_lines__init(struct fold_lines *l)
{
	memset(l, 0, sizeof(*l));
	strtab__init(&l->names);
	hashmap__init(&l->index);
}

void fold_lines__release(struct fold_lines *l)
{
	strtab__release(&l->names);
	free(l->ids);
	free(l->lines);
	hashmap__release(&l->index);
	fold_lines__init(l);
}

/* The line being added: its ids at the end of l->ids, not yet a line. */
struct probe {
	const uint32_t *ids;
	uint32_t nr;
};

static bool same_line(uint32_t val, const void *key, const void *ctx)
{
	const struct fold_lines *l = ctx;
	const struct probe *p = key;
	const struct line *ln = &l->lines[val];

	return ln->nr == p->nr && !memcmp(l->ids + ln->off, p->ids, p->nr * sizeof(*p->ids));
}

int fold_lines__add(struct fold_lines *l, const char *const *names, size_t nr, int side,
		    uint64_t count)
{
	struct probe p;
	struct line *ln;
	uint32_t *slot;
	uint64_t h = 0;
	bool added;
	size_t i;
	int err;

	if (!nr || nr > UINT32_MAX || l->nr >= UINT32_MAX)
		return -EINVAL;
	/* the ids go where the line would be kept; a line already known takes them back */
	if (vec__grow(&l->ids, &l->alloc_ids, l->nr_ids + nr, sizeof(*l->ids)))
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		err = strtab__intern(&l->names, names[i], &l->ids[l->nr_ids + i]);
		if (err)
			return err;
		h = hash_mix(h, l->ids[l->nr_ids + i]);
	}
	h = hash_u64(h ^ nr);
	p.ids = l->ids + l->nr_ids;
	p.nr = (uint32_t)nr;
	if (vec__grow(&l->lines, &l->alloc, l->nr + 1, sizeof(*l->lines)))
		return -ENOMEM;
	err = hashmap__upsert(&l->index, h, same_line, &p, l, (uint32_t)l->nr, &slot, &added);
	if (err)
		return err;
	ln = &l->lines[*slot];
	if (added) {
		*ln = (struct line){ .off = l->nr_ids, .nr = (uint32_t)nr };
		l->nr_ids += nr;
		l->nr++;
	}
	if (ln->count[side] > UINT64_MAX - count)
		return -EOVERFLOW;
	ln->count[side] += count;
	return 0;
}

/*
 * strcmp() of the texts of two lines. Equal ids are equal names; at the
 * first names that differ the bytes decide, and where one name ends its
 * line goes on with ';' or ends.
 */
static int cmp_lines(const void *a, const void *b, void *ctx)
{
	const struct fold_lines *l = ctx;
	const struct line *x = &l->lines[*(const uint32_t *)a], *y = &l->lines[*(const uint32_t *)b];
	const uint32_t *p = l->ids + x->off, *q = l->ids + y->off;
	const unsigned char *s, *t;
	uint32_t i, n = x->nr < y->nr ? x->nr : y->nr;
	int c, d;

	for (i = 0; i < n && p[i] == q[i]; i++)
		;
	if (i == n)
		return x->nr < y->nr ? -1 : x->nr > y->nr;
	s = (const unsigned char *)strtab__str(&l->names, p[i]);
	t = (const unsigned char *)strtab__str(&l->names, q[i]);
	while (*s && *s == *t)
		s++, t++;
	c = *s ? *s : i + 1 < x->nr ? ';' : 0;
	d = *t ? *t : i + 1 < y->nr ? ';' : 0;
	return c - d;
}

int fold_lines__write(const struct fold_lines *l, bool two, FILE *out)
{
	uint32_t *order, i, k;

	order = calloc(l->nr ? l->nr : 1, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < l->nr; i++)
		order[i] = i;
	if (l->nr > 1)
		qsort_r(order, l->nr, sizeof(*order), cmp_lines, (void *)l);
	for (i = 0; i < l->nr; i++) {
		const struct line *ln = &l->lines[order[i]];

		if (!two && !ln->count[0])
			continue;
		for (k = 0; k < ln->nr; k++) {
			if (k)
				putc(';', out);
			fputs(strtab__str(&l->names, l->ids[ln->off + k]), out);
		}
		if (two)
			fprintf(out, " %" PRIu64 " %" PRIu64 "\n", ln->count[1], ln->count[0]);
		else
			fprintf(out, " %" PRIu64 "\n", ln->count[0]);
	}
	free(order);
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
