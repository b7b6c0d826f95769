// SPDX-License-Identifier: MIT
/*
 * report/output/svg_view.c - --svg OUT: the flame graph (or its icicle, or
 * --diff's red and blue), titled by the recordings it shows. Entries are
 * merged by their root-first names into one tree (aggregate/flame.c), so
 * equal stacks from different keys, threads or recordings add up;
 * output/svg.c draws the tree.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "report/aggregate/flame.h"
#include "report/output/svg.h"
#include "report/view.h"
#include "util/strbuf.h"

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

		if (!report_src__kept(s, k))
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
