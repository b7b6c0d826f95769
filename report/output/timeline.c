// SPDX-License-Identifier: MIT
/*
 * report/output/timeline.c - --timeline SECONDS: one row per interval from
 * each recording's start, with its samples and the self share of the
 * functions that lead the whole report, so a phase change shows as shares
 * moving from one column to another. --csv writes the same as CSV.
 *
 * The aggregate was keyed by interval (agg_config.slot_ns), so this walks
 * entries, not samples. The columns are the TIMELINE_COLUMNS functions with
 * the most self samples over the whole report; "other" is the rest.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/symbolize/symbolize.h"
#include "report/view.h"

#define TIMELINE_COLUMNS	5

int view_timeline__write(const struct report_ctx *rc, FILE *out)
{
	uint64_t *self = NULL, *rows = NULL, *samples = NULL, width = rc->opts->timeline_ns;
	size_t alloc = 0, nr_slots = 0, i, k, j, nr_cols = 0;
	uint32_t cols[TIMELINE_COLUMNS], leaf, f;
	bool csv = rc->opts->csv, ms = rc->opts->weight != REPORT_WEIGHT_SAMPLES;
	struct func_tab ft;
	int err = 0;

	func_tab__init(&ft);
	/* pass 1: self per function over everything; the number of intervals */
	for (i = 0; i < rc->nr_srcs && !err; i++) {
		const struct report_src *s = &rc->srcs[i];

		for (k = 0; k < s->agg.nr && !err; k++) {
			const struct agg_entry *e = &s->agg.entries[k];

			if (!e->count)
				continue;
			err = func_tab__stack(&ft, e->stack, &leaf);
			if (!err)
				err = func_tab__grow_counts(&ft, &self, &alloc);
			if (!err)
				self[leaf] += e->count;
			if ((size_t)e->slot + 1 > nr_slots)
				nr_slots = (size_t)e->slot + 1;
		}
	}
	if (err)
		goto out;
	/* the leading functions, by self then name */
	for (f = 0; f < func_tab__nr(&ft); f++) {
		if (!self[f])
			continue;
		for (j = nr_cols; j > 0; j--) {
			uint32_t o = cols[j - 1];

			if (self[o] > self[f] ||
			    (self[o] == self[f] && strcmp(ft.name[o], ft.name[f]) <= 0))
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

	/* report__run() refused more with a message; a direct caller gets -E2BIG */
	if (nr_slots > VIEW_TIMELINE_MAX_ROWS) {
		err = -E2BIG;
		goto out;
	}
	/* pass 2: per interval, its samples and each column's self samples */
	rows = calloc(nr_slots ? nr_slots * TIMELINE_COLUMNS : 1, sizeof(*rows));
	samples = calloc(nr_slots ? nr_slots : 1, sizeof(*samples));
	if (!rows || !samples) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < rc->nr_srcs && !err; i++) {
		const struct report_src *s = &rc->srcs[i];

		for (k = 0; k < s->agg.nr && !err; k++) {
			const struct agg_entry *e = &s->agg.entries[k];

			if (!e->count)
				continue;
			err = func_tab__stack(&ft, e->stack, &leaf);
			if (err)
				break;
			samples[e->slot] += e->count;
			for (j = 0; j < nr_cols; j++)
				if (cols[j] == leaf)
					rows[(size_t)e->slot * TIMELINE_COLUMNS + j] += e->count;
		}
	}
	if (err)
		goto out;

	if (csv) {
		fputs(ms ? "start_s,end_s,ms" : "start_s,end_s,samples", out);
		for (j = 0; j < nr_cols; j++) {
			fputc(',', out);
			view__csv_field(out, ft.name[cols[j]]);
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
			fprintf(out, "# f%zu = %s  %s\n", j + 1, ft.name[cols[j]], ft.binary[cols[j]]);
		fprintf(out, "%10s %10s %10s", "START_S", "END_S", ms ? "MS" : "SAMPLES");
		for (j = 0; j < nr_cols; j++)
			fprintf(out, " %7sf%zu", "", j + 1);
		fprintf(out, " %9s\n", "other");
	}
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
	err = view__check_stream(out);
out:
	free(rows);
	free(samples);
	free(self);
	func_tab__release(&ft);
	return err;
}
