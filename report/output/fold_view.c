// SPDX-License-Identifier: MIT
/*
 * report/output/fold_view.c - --fold: folded stacks, plain, with a --by
 * level, merged over several recordings, or base/new for --diff
 * (difffolded.pl's input). output/fold.c writes the lines.
 *
 * One recording without --by goes straight to fold__write, the fast path.
 * Everything else is merged by names: each entry's root-first names are
 * interned, and the sequence of their ids (aggregate/lines.c) keeps its
 * counts per side, so equal lines from different keys, threads or
 * recordings add up; the cost follows the distinct lines, never the
 * samples nor the recordings.
 */
#include <errno.h>
#include <stdlib.h>

#include "report/aggregate/lines.h"
#include "report/output/fold.h"
#include "report/view.h"

/*
 * What a line of entry e counts: samples, or time (--off-cpu, --wall) in
 * microseconds rounded per entry, since flamegraph.pl wants whole numbers.
 */
static uint64_t fold_count(const struct report_ctx *rc, const struct agg_entry *e)
{
	return rc->opts->weight == REPORT_WEIGHT_SAMPLES ? e->count : (e->count + 500) / 1000;
}

/* One entry's root-first names into the lines, on side (0: new or the only one, 1: base). */
static int add_entry_line(struct fold_lines *l, struct view_names *v, const struct report_ctx *rc,
			  const struct report_src *s, const struct agg_entry *e, int side)
{
	uint64_t n = fold_count(rc, e);
	int err = n ? view_names__build(v, rc, s, e) : 0;

	return err || !n ? err : fold_lines__add(l, v->names, v->nr, side, n);
}

struct fold_merge {
	struct fold_lines lines;
	struct view_names names;
};

static int fold_start(void **state, const struct report_ctx *rc)
{
	struct fold_merge *m = calloc(1, sizeof(*m));

	(void)rc;
	if (!m)
		return -ENOMEM;
	fold_lines__init(&m->lines);
	m->names = (struct view_names)VIEW_NAMES_INIT;
	*state = m;
	return 0;
}

static int fold_add(void *state, const struct report_ctx *rc, const struct report_src *s)
{
	struct fold_merge *m = state;
	size_t k;
	int err = 0;

	for (k = 0; k < s->agg.nr && !err; k++)
		if (report_src__kept(s, k))
			err = add_entry_line(&m->lines, &m->names, rc, s, &s->agg.entries[k], 0);
	return err;
}

static int fold_write(void *state, const struct report_ctx *rc, FILE *out)
{
	struct fold_merge *m = state;

	(void)rc;
	return fold_lines__write(&m->lines, false, out);
}

static void fold_free(void *state)
{
	struct fold_merge *m = state;

	if (!m)
		return;
	fold_lines__release(&m->lines);
	view_names__release(&m->names);
	free(m);
}

const struct view_merge_ops view_fold_merge = { fold_start, fold_add, fold_write, fold_free };

int view_fold__write(const struct report_ctx *rc, FILE *out)
{
	if (rc->nr_srcs == 1 && (rc->opts->by == REPORT_BY_NONE || rc->opts->by == REPORT_BY_COMM))
		return fold__write(&rc->srcs[0].agg, &rc->srcs[0].stacks,
				   rc->opts->weight != REPORT_WEIGHT_SAMPLES, out);
	return view__write_merged(&view_fold_merge, rc, out);
}

/* difffolded.pl's format: "stack base_count new_count", raw counts of each recording. */
int view_diff_fold__write(const struct report_ctx *rc, FILE *out)
{
	struct view_names v = VIEW_NAMES_INIT;
	struct fold_lines l;
	size_t i, k;
	int err = 0;

	fold_lines__init(&l);
	for (i = 0; i < 2 && !err; i++) {
		const struct report_src *s = &rc->srcs[i];

		for (k = 0; k < s->agg.nr && !err; k++)
			if (report_src__kept(s, k))
				err = add_entry_line(&l, &v, rc, s, &s->agg.entries[k],
						     i == 0 ? 1 : 0);
	}
	if (!err)
		err = fold_lines__write(&l, true, out);
	fold_lines__release(&l);
	view_names__release(&v);
	return err;
}
