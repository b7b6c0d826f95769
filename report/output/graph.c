// SPDX-License-Identifier: MIT
/*
 * report/output/graph.c - the stack views: folded stacks (plain, with a --by
 * level, merged over several recordings, or base/new for --diff) and the
 * SVG flame graph (flame.c builds the tree, output/svg.c draws it).
 *
 * One recording without --by goes straight to output/fold.c, the fast path.
 * Everything else is merged by names: each entry's root-first names are
 * interned, and the sequence of their ids (aggregate/lines.c) or the tree
 * of them (aggregate/flame.c) keeps its counts per side, so equal lines
 * from different keys, threads or recordings add up; the cost follows the
 * distinct lines or frames, never the samples nor the recordings.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "report/aggregate/flame.h"
#include "report/aggregate/lines.h"
#include "report/output/fold.h"
#include "report/output/svg.h"
#include "report/view.h"

/* One entry's root-first names into the lines, on side (0: new or the only one, 1: base). */
static int add_entry_line(struct fold_lines *l, struct view_names *v, const struct report_ctx *rc,
			  const struct report_src *s, const struct agg_entry *e, int side)
{
	int err = view_names__build(v, rc, s, e);

	return err ? err : fold_lines__add(l, v->names, v->nr, side, e->count);
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
		if (s->agg.entries[k].count)
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
		return fold__write(&rc->srcs[0].agg, out);
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
			if (s->agg.entries[k].count)
				err = add_entry_line(&l, &v, rc, s, &s->agg.entries[k],
						     i == 0 ? 1 : 0);
	}
	if (!err)
		err = fold_lines__write(&l, true, out);
	fold_lines__release(&l);
	view_names__release(&v);
	return err;
}

/* "3.02 s", "250 ms" */
static void add_duration(struct strbuf *sb, uint64_t ns)
{
	if (ns >= 1000000000ull)
		strbuf_addf(sb, "%.2f s", (double)ns / 1e9);
	else
		strbuf_addf(sb, "%.0f ms", (double)ns / 1e6);
}

/* ", 297 samples", or ", 2.67 s blocked" when weighing by time. */
static void add_amount(struct strbuf *sb, const struct report_opts *o, uint64_t n)
{
	if (o->weight == REPORT_WEIGHT_SAMPLES) {
		strbuf_addf(sb, ", %" PRIu64 " samples", n);
		return;
	}
	strbuf_addstr(sb, ", ");
	add_duration(sb, n);
	strbuf_addstr(sb, o->weight == REPORT_WEIGHT_WALL ? " of wall time (on-CPU, blocked, "
			  "runnable)" : " blocked off the CPU");
}

static void add_source_line(struct strbuf *sb, const struct report_ctx *rc,
			    const struct report_src *s)
{
	strbuf_addstr(sb, s->command ? s->command : s->path);
	if (s->hostname)
		strbuf_addf(sb, " on %s", s->hostname);
	strbuf_addstr(sb, ", ");
	add_duration(sb, s->end_ns > s->start_ns ? s->end_ns - s->start_ns : 0);
	add_amount(sb, rc->opts, s->nr_samples);
}

/* The line under the title: command, host, duration, samples. */
static void subtitle(struct strbuf *sb, const struct report_ctx *rc)
{
	uint64_t longest = 0;
	size_t i;

	if (rc->diff) {
		strbuf_addstr(sb, "base: ");
		add_source_line(sb, rc, &rc->srcs[0]);
		strbuf_addstr(sb, "; new: ");
		add_source_line(sb, rc, &rc->srcs[1]);
		return;
	}
	if (rc->nr_srcs == 1) {
		add_source_line(sb, rc, &rc->srcs[0]);
		return;
	}
	for (i = 0; i < rc->nr_srcs; i++) {
		const struct report_src *s = &rc->srcs[i];

		if (s->end_ns > s->start_ns && s->end_ns - s->start_ns > longest)
			longest = s->end_ns - s->start_ns;
	}
	strbuf_addf(sb, "%zu recordings (", rc->nr_srcs);
	for (i = 0; i < rc->nr_srcs; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "",
			    rc->srcs[i].hostname ? rc->srcs[i].hostname : rc->srcs[i].path);
	strbuf_addstr(sb, "), up to ");
	add_duration(sb, longest);
	add_amount(sb, rc->opts, rc->total);
}

struct svg_merge {
	struct flame_tree *tree;
	struct view_names names;
};

static int svg_start(void **state, const struct report_ctx *rc)
{
	struct svg_merge *m = calloc(1, sizeof(*m));

	(void)rc;
	if (!m)
		return -ENOMEM;
	m->names = (struct view_names)VIEW_NAMES_INIT;
	m->tree = flame_tree__new();
	if (!m->tree) {
		free(m);
		return -ENOMEM;
	}
	*state = m;
	return 0;
}

static int svg_add(void *state, const struct report_ctx *rc, const struct report_src *s)
{
	struct svg_merge *m = state;
	bool base = rc->diff && s == &rc->srcs[0];
	size_t k;
	int err = 0;

	for (k = 0; k < s->agg.nr && !err; k++) {
		const struct agg_entry *e = &s->agg.entries[k];

		if (!e->count)
			continue;
		err = view_names__build(&m->names, rc, s, e);
		if (!err)
			err = flame_tree__add(m->tree, m->names.names, m->names.nr,
					      base ? 0 : e->count, base ? e->count : 0);
	}
	return err;
}

static int svg_write(void *state, const struct report_ctx *rc, FILE *out)
{
	struct svg_merge *m = state;
	struct strbuf sub = STRBUF_INIT;
	struct svg_opts so = { 0 };
	int err;

	subtitle(&sub, rc);
	if (sub.oom) {
		strbuf_release(&sub);
		return -ENOMEM;
	}
	so.title = rc->opts->title;
	so.subtitle = sub.buf;
	so.icicle = rc->opts->icicle;
	so.diff = rc->diff;
	so.time_ns = rc->opts->weight != REPORT_WEIGHT_SAMPLES;
	err = svg__write(m->tree, &so, out);
	if (!err)
		err = view__check_stream(out);
	strbuf_release(&sub);
	return err;
}

static void svg_free(void *state)
{
	struct svg_merge *m = state;

	if (!m)
		return;
	flame_tree__free(m->tree);
	view_names__release(&m->names);
	free(m);
}

const struct view_merge_ops view_svg_merge = { svg_start, svg_add, svg_write, svg_free };

int view_svg__write(const struct report_ctx *rc, FILE *out)
{
	return view__write_merged(&view_svg_merge, rc, out);
}
