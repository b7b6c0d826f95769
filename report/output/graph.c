// SPDX-License-Identifier: MIT
/*
 * report/output/graph.c - the stack views: folded stacks (plain, with a --by
 * level, merged over several recordings, or base/new for --diff) and the
 * SVG flame graph (flame.c builds the tree, output/svg.c draws it).
 *
 * One recording without --by goes straight to output/fold.c, the fast path.
 * Everything else is merged by text: each entry's root-first names are
 * joined into a line, the line interned (so equal lines from different
 * keys, threads or recordings add up) and its counts kept per side; the
 * cost follows the number of distinct lines, never the samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate/flame.h"
#include "report/output/fold.h"
#include "report/output/svg.h"
#include "report/view.h"
#include "util/vec.h"

struct lines {
	struct strtab texts;		/* line text -> id */
	uint64_t *count[2];		/* id -> count, per side (new/only, base) */
	size_t alloc;
	struct strbuf sb;
	struct view_names names;
};

static void lines__release(struct lines *l)
{
	strtab__release(&l->texts);
	free(l->count[0]);
	free(l->count[1]);
	strbuf_release(&l->sb);
	view_names__release(&l->names);
}

static int lines__add(struct lines *l, const struct report_ctx *rc, const struct report_src *s,
		      const struct agg_entry *e, int side)
{
	uint32_t id;
	size_t i;
	int err;

	err = view_names__build(&l->names, rc, s, e);
	if (err)
		return err;
	strbuf_reset(&l->sb);
	for (i = 0; i < l->names.nr; i++) {
		if (i)
			strbuf_addch(&l->sb, ';');
		strbuf_addstr(&l->sb, l->names.names[i]);
	}
	if (l->sb.oom)
		return -ENOMEM;
	err = strtab__intern_len(&l->texts, l->sb.buf, l->sb.len, &id);
	if (err)
		return err;
	if (id >= l->alloc) {
		size_t n = 0, k;

		/* both sides grow alike: vec__grow's size follows from (alloc, need) */
		for (k = 0; k < 2; k++) {
			n = l->alloc;
			if (vec__grow(&l->count[k], &n, (size_t)id + 1, sizeof(*l->count[k])))
				return -ENOMEM;
			memset(l->count[k] + l->alloc, 0, (n - l->alloc) * sizeof(*l->count[k]));
		}
		l->alloc = n;
	}
	l->count[side][id] += e->count;
	return 0;
}

static int cmp_text(const void *a, const void *b, void *texts)
{
	return strcmp(strtab__str(texts, *(const uint32_t *)a),
		      strtab__str(texts, *(const uint32_t *)b));
}

/* Writes every line, sorted: "line count" or, with two sides, "line base new". */
static int lines__write(struct lines *l, bool two, FILE *out)
{
	uint32_t *ids, i, n = l->texts.nr;

	ids = calloc(n ? n : 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ids[i] = i;
	if (n > 1)
		qsort_r(ids, n, sizeof(*ids), cmp_text, &l->texts);
	for (i = 0; i < n; i++) {
		const char *t = strtab__str(&l->texts, ids[i]);

		if (two)
			fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", t, l->count[1][ids[i]],
				l->count[0][ids[i]]);
		else if (l->count[0][ids[i]])
			fprintf(out, "%s %" PRIu64 "\n", t, l->count[0][ids[i]]);
	}
	free(ids);
	return view__check_stream(out);
}

int view_fold__write(const struct report_ctx *rc, FILE *out)
{
	struct lines l = { .texts = STRTAB_INIT, .sb = STRBUF_INIT, .names = VIEW_NAMES_INIT };
	size_t i, k;
	int err = 0;

	if (rc->nr_srcs == 1 && (rc->opts->by == REPORT_BY_NONE || rc->opts->by == REPORT_BY_COMM))
		return fold__write(&rc->srcs[0].agg, out);
	for (i = 0; i < rc->nr_srcs && !err; i++) {
		const struct report_src *s = &rc->srcs[i];

		for (k = 0; k < s->agg.nr && !err; k++)
			if (s->agg.entries[k].count)
				err = lines__add(&l, rc, s, &s->agg.entries[k], 0);
	}
	if (!err)
		err = lines__write(&l, false, out);
	lines__release(&l);
	return err;
}

/* difffolded.pl's format: "stack base_count new_count", raw counts of each recording. */
int view_diff_fold__write(const struct report_ctx *rc, FILE *out)
{
	struct lines l = { .texts = STRTAB_INIT, .sb = STRBUF_INIT, .names = VIEW_NAMES_INIT };
	size_t i, k;
	int err = 0;

	for (i = 0; i < 2 && !err; i++) {
		const struct report_src *s = &rc->srcs[i];

		for (k = 0; k < s->agg.nr && !err; k++)
			if (s->agg.entries[k].count)
				err = lines__add(&l, rc, s, &s->agg.entries[k], i == 0 ? 1 : 0);
	}
	if (!err)
		err = lines__write(&l, true, out);
	lines__release(&l);
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

int view_svg__write(const struct report_ctx *rc, FILE *out)
{
	struct view_names v = VIEW_NAMES_INIT;
	struct strbuf sub = STRBUF_INIT;
	struct svg_opts so = { 0 };
	struct flame_tree *t;
	size_t i, k;
	int err = 0;

	t = flame_tree__new();
	if (!t)
		return -ENOMEM;
	for (i = 0; i < rc->nr_srcs && !err; i++) {
		const struct report_src *s = &rc->srcs[i];
		bool base = rc->diff && i == 0;

		for (k = 0; k < s->agg.nr && !err; k++) {
			const struct agg_entry *e = &s->agg.entries[k];

			if (!e->count)
				continue;
			err = view_names__build(&v, rc, s, e);
			if (!err)
				err = flame_tree__add(t, v.names, v.nr, base ? 0 : e->count,
						      base ? e->count : 0);
		}
	}
	if (err)
		goto out;
	subtitle(&sub, rc);
	if (sub.oom) {
		err = -ENOMEM;
		goto out;
	}
	so.title = rc->opts->title;
	so.subtitle = sub.buf;
	so.icicle = rc->opts->icicle;
	so.diff = rc->diff;
	so.time_ns = rc->opts->weight != REPORT_WEIGHT_SAMPLES;
	err = svg__write(t, &so, out);
	if (!err)
		err = view__check_stream(out);
out:
	strbuf_release(&sub);
	view_names__release(&v);
	flame_tree__free(t);
	return err;
}
