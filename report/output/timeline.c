// SPDX-License-Identifier: MIT
/*
 * report/output/timeline.c - --timeline SECONDS: one row per interval from
 * each recording's start, with its samples and the self share of the
 * functions that lead the whole report, so a phase change shows as shares
 * moving from one column to another. --csv writes the same as CSV.
 *
 * The aggregate was keyed by interval (agg_config.slot_ns), so this walks
 * entries, not samples, one recording at a time: what stays is the self
 * count of each (interval, leaf function). The columns are the TIMELINE_COLUMNS functions with
 * the most self samples over the whole report; "other" is the rest.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbolize/symbolize.h"
#include "report/view.h"
#include "util/hashmap.h"
#include "util/vec.h"

#define TIMELINE_COLUMNS	5

/* What the timeline keeps of the recordings merged so far. */
struct timeline_merge {
	struct func_tab ft;
	uint64_t *self;			/* function -> self over everything */
	size_t alloc_self;
	struct u64map cells;		/* slot << 32 | leaf function -> count */
	uint64_t *samples;		/* slot -> count */
	size_t nr_slots, alloc_samples;
	bool too_many;			/* a slot past VIEW_TIMELINE_MAX_ROWS */
};

static int timeline_start(void **state, const struct report_ctx *rc)
{
	struct timeline_merge *m = calloc(1, sizeof(*m));

	(void)rc;
	if (!m)
		return -ENOMEM;
	func_tab__init(&m->ft);
	*state = m;
	return 0;
}

/* Self per function over everything, and per interval; each interval's samples. */
static int timeline_add(void *state, const struct report_ctx *rc, const struct report_src *s)
{
	struct timeline_merge *m = state;
	const struct agg_entry *e;
	uint64_t *cell;
	uint32_t leaf;
	bool added;
	size_t k = 0;
	int err = 0;

	(void)rc;
	while (!err && (e = report_src__next(s, &k))) {
		if (e->slot >= VIEW_TIMELINE_MAX_ROWS) {
			/* report__run() refuses it, with a message, before writing */
			m->too_many = true;
			continue;
		}
		err = func_tab__stack(&m->ft, report_src__stack(s, e), &leaf);
		if (!err)
			err = func_tab__grow_counts(&m->ft, &m->self, &m->alloc_self);
		if (!err)
			err = u64map__upsert(&m->cells, (uint64_t)e->slot << 32 | leaf, 0, &cell,
					     &added);
		if (err)
			break;
		m->self[leaf] += e->count;
		*cell += e->count;
		if (e->slot >= m->nr_slots) {
			if (vec__grow_zero(&m->samples, &m->alloc_samples, (size_t)e->slot + 1,
					   sizeof(*m->samples)))
				return -ENOMEM;
			m->nr_slots = (size_t)e->slot + 1;
		}
		m->samples[e->slot] += e->count;
	}
	return err;
}

/* The leading functions (at most TIMELINE_COLUMNS), by self then name, into cols; how many. */
static size_t pick_columns(const struct timeline_merge *m, uint32_t *cols)
{
	const struct func_tab *ft = &m->ft;
	const uint64_t *self = m->self;
	size_t j, nr_cols = 0;
	uint32_t f;

	for (f = 0; f < func_tab__nr(ft); f++) {
		if (!self[f])
			continue;
		for (j = nr_cols; j > 0; j--) {
			uint32_t o = cols[j - 1];

			if (self[o] > self[f] ||
			    (self[o] == self[f] && strcmp(ft->name[o], ft->name[f]) <= 0))
				break;
			if (j < TIMELINE_COLUMNS)
				cols[j] = o;
		}
		if (j < TIMELINE_COLUMNS) {
			cols[j] = f;
			if (nr_cols < TIMELINE_COLUMNS)
				nr_cols++;
		}
	}
	return nr_cols;
}

/* The header: CSV's column names, or the text's legend and column heads. */
static void put_header(FILE *out, const struct report_ctx *rc, const struct func_tab *ft,
		       const uint32_t *cols, size_t nr_cols)
{
	uint64_t width = rc->opts->timeline_ns;
	bool csv = rc->opts->csv, ms = rc->opts->weight != REPORT_WEIGHT_SAMPLES;
	size_t j;

	if (csv) {
		fputs(ms ? "start_s,end_s,ms" : "start_s,end_s,samples", out);
		for (j = 0; j < nr_cols; j++) {
			fputc(',', out);
			view__csv_field(out, ft->name[cols[j]]);
		}
		fputs(",other\n", out);
	} else {
		if (ms)
			fprintf(out, "# eprof timeline: %.3f s intervals from the start of each "
				"recording, %.3f ms of %s in %zu recording%s\n", (double)width / 1e9,
				(double)rc->total / 1e6, rc->opts->weight == REPORT_WEIGHT_WALL ?
				"wall time" : "blocked time", rc->nr_srcs, rc->nr_srcs == 1 ? "" : "s");
		else
			fprintf(out, "# eprof timeline: %.3f s intervals from the start of each "
				"recording, %" PRIu64 " samples in %zu recording%s\n",
				(double)width / 1e9, rc->total, rc->nr_srcs,
				rc->nr_srcs == 1 ? "" : "s");
		fprintf(out, "# columns: share of the interval's %s whose leaf is the function\n",
			ms ? "time" : "samples");
		for (j = 0; j < nr_cols; j++)
			fprintf(out, "# f%zu = %s  %s\n", j + 1, ft->name[cols[j]], ft->binary[cols[j]]);
		fprintf(out, "%10s %10s %10s", "START_S", "END_S", ms ? "MS" : "SAMPLES");
		for (j = 0; j < nr_cols; j++)
			fprintf(out, " %7sf%zu", "", j + 1);
		fprintf(out, " %9s\n", "other");
	}
}

static int timeline_write(void *state, const struct report_ctx *rc, FILE *out)
{
	struct timeline_merge *m = state;
	const struct func_tab *ft = &m->ft;
	uint64_t *rows = NULL, *samples = m->samples, width = rc->opts->timeline_ns;
	size_t nr_slots = m->nr_slots, i, j, nr_cols;
	uint32_t cols[TIMELINE_COLUMNS];
	bool csv = rc->opts->csv, ms = rc->opts->weight != REPORT_WEIGHT_SAMPLES;

	if (m->too_many)
		return -E2BIG;
	nr_cols = pick_columns(m, cols);
	/* per interval, each column's self samples */
	rows = calloc(nr_slots ? nr_slots * TIMELINE_COLUMNS : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	u64map__for_each(&m->cells, i) {
		uint64_t key = m->cells.keys[i];

		for (j = 0; j < nr_cols; j++)
			if (cols[j] == (uint32_t)key)
				rows[(key >> 32) * TIMELINE_COLUMNS + j] += m->cells.vals[i];
	}

	put_header(out, rc, ft, cols, nr_cols);
	for (i = 0; i < nr_slots; i++) {
		double start = (double)i * (double)width / 1e9, end = start + (double)width / 1e9;
		uint64_t rest = samples[i];

		if (ms)
			fprintf(out, csv ? "%.3f,%.3f,%.3f" : "%10.3f %10.3f %10.3f", start, end,
				(double)samples[i] / 1e6);
		else if (csv)
			fprintf(out, "%.3f,%.3f,%" PRIu64, start, end, samples[i]);
		else
			fprintf(out, "%10.3f %10.3f %10" PRIu64, start, end, samples[i]);
		for (j = 0; j < nr_cols; j++) {
			uint64_t v = rows[i * TIMELINE_COLUMNS + j];

			rest -= v;
			fprintf(out, csv ? ",%.2f" : " %8.2f%%", view__pct(v, samples[i]));
		}
		fprintf(out, csv ? ",%.2f\n" : " %8.2f%%\n", view__pct(rest, samples[i]));
	}
	free(rows);
	return view__check_stream(out);
}

static void timeline_free(void *state)
{
	struct timeline_merge *m = state;

	if (!m)
		return;
	func_tab__release(&m->ft);
	free(m->self);
	u64map__release(&m->cells);
	free(m->samples);
	free(m);
}

const struct view_merge_ops view_timeline_merge = { timeline_start, timeline_add, timeline_write,
						    timeline_free };

int view_timeline__write(const struct report_ctx *rc, FILE *out)
{
	return view__write_merged(&view_timeline_merge, rc, out);
}
