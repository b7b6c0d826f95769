// SPDX-License-Identifier: MIT
/*
 * report/output/top.c - the function tables: --top (optionally grouped by
 * pid, tid or comm), --per-cpu and --per-node (samples and share of each
 * CPU or node with its top functions), and --diff --top (the largest
 * changes of total share, then of self share, each with its sampling
 * noise).
 *
 * --per-cpu and --per-node list the aggregate entries of all recordings
 * with a group key, sort them by it, and count each run of equal keys into
 * per-function arrays: self for the stack's leaf, total once for each
 * distinct function on the stack. Only the functions a run touched are
 * reset for the next run, so the cost follows entries and functions, not
 * groups times functions. --top takes the recordings one at a time
 * instead (struct top_merge): each entry adds to its (group, function)
 * cells, and each group's run is read from its cells into the same arrays.
 *
 * The noise of a change of share p1 -> p2 (n1, n2 samples) is the standard
 * error of a difference of two proportions, sqrt(p1(1-p1)/n1 +
 * p2(1-p2)/n2); z is the change over it. Sampling is close to binomial, so
 * |z| >= 3 is a change sampling error alone would make about once in 400
 * functions; such rows are marked "yes".
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/output/change.h"
#include "report/symbolize/symbolize.h"
#include "report/view.h"
#include "util/vec.h"

#define TOP_DEFAULT	20
#define PER_GROUP_TOP	5
#define SIGNIFICANT_Z	SHARE_SIGNIFICANT_Z

/* Per-function counts of one run of entries, with the list of functions touched. */
struct counts {
	struct func_tab ft;
	uint64_t *self, *total;
	size_t alloc_self, alloc_total;
	uint32_t *touched;
	size_t nr_touched, alloc_touched;
	uint64_t samples;
};

static void counts__release(struct counts *c)
{
	func_tab__release(&c->ft);
	free(c->self);
	free(c->total);
	free(c->touched);
}

static int touch(struct counts *c, uint32_t id)
{
	if (c->self[id] || c->total[id])
		return 0;
	if (vec__grow(&c->touched, &c->alloc_touched, c->nr_touched + 1, sizeof(*c->touched)))
		return -ENOMEM;
	c->touched[c->nr_touched++] = id;
	return 0;
}

static void counts__reset(struct counts *c)
{
	size_t i;

	for (i = 0; i < c->nr_touched; i++)
		c->self[c->touched[i]] = c->total[c->touched[i]] = 0;
	c->nr_touched = 0;
	c->samples = 0;
}

static const struct counts *sort_counts;	/* qsort() has no context in C */
static bool sort_by_total;

static int cmp_func(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const uint64_t *v = sort_by_total ? sort_counts->total : sort_counts->self;
	const uint64_t *w = sort_by_total ? sort_counts->self : sort_counts->total;
	int c;

	if (v[x] != v[y])
		return v[x] > v[y] ? -1 : 1;
	if (w[x] != w[y])
		return w[x] > w[y] ? -1 : 1;
	c = strcmp(sort_counts->ft.name[x], sort_counts->ft.name[y]);
	return c ? c : strcmp(sort_counts->ft.binary[x], sort_counts->ft.binary[y]);
}

/* The touched functions sorted by self (or total), largest first; the caller frees. */
static uint32_t *ranked(struct counts *c, bool by_total)
{
	uint32_t *ids = calloc(c->nr_touched ? c->nr_touched : 1, sizeof(*ids));

	if (!ids)
		return NULL;
	memcpy(ids, c->touched, c->nr_touched * sizeof(*ids));
	sort_counts = c;
	sort_by_total = by_total;
	if (c->nr_touched > 1)
		qsort(ids, c->nr_touched, sizeof(*ids), cmp_func);
	return ids;
}

struct remainder {
	uint64_t rem;
	size_t rank;
};

static int cmp_remainder(const void *a, const void *b)
{
	const struct remainder *x = a, *y = b;

	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * SELF% as shown, in hundredths of a percent, indexed by function id (the
 * caller frees). Each function's share rounded alone made a long table add
 * up to 104% (a thousand functions of one sample in 3,500 each show 0.03%),
 * so the shares are rounded together: every function gets its share
 * rounded down, and the hundredths still missing from the share of all the
 * samples with a function go to the largest remainders. Each share shown is
 * then within 0.01 of the true one and the column adds up exactly.
 */
static uint32_t *self_shares(const struct counts *c, const uint32_t *by_self)
{
	uint32_t *units = calloc(c->alloc_self ? c->alloc_self : 1, sizeof(*units));
	struct remainder *r = calloc(c->nr_touched ? c->nr_touched : 1, sizeof(*r));
	uint64_t whole = c->samples, sum = 0, given = 0, target, u;
	size_t i, nr = 0;

	if (!units || !r || !whole)
		goto out;
	for (i = 0; i < c->nr_touched; i++) {
		uint32_t id = by_self[i];
		unsigned __int128 scaled = (unsigned __int128)c->self[id] * 10000;

		if (!c->self[id])
			continue;
		u = (uint64_t)(scaled / whole);
		units[id] = (uint32_t)u;
		given += u;
		sum += c->self[id];
		r[nr].rem = (uint64_t)(scaled % whole);
		r[nr].rank = i;
		nr++;
	}
	target = (uint64_t)(((unsigned __int128)sum * 10000 + whole / 2) / whole);
	qsort(r, nr, sizeof(*r), cmp_remainder);
	for (i = 0; i < nr && given < target; i++, given++)
		units[by_self[r[i].rank]]++;
out:
	free(r);
	return units;
}

/* "12.34%" from hundredths, "<0.01%" for a share too small to show as one. */
static const char *fmt_share(char *buf, size_t len, uint64_t units, uint64_t count)
{
	if (count && !units)
		snprintf(buf, len, "%s", "<0.01%");
	else
		snprintf(buf, len, "%" PRIu64 ".%02" PRIu64 "%%", units / 100, units % 100);
	return buf;
}

/*
 * Counts are samples, or ns when the report weighs by time (--off-cpu,
 * --wall): then the columns show milliseconds. Set by each writer.
 */
static bool time_ms;

/* A count in a column of width w. */
static void put_n(FILE *out, int w, uint64_t n)
{
	if (time_ms)
		fprintf(out, "%*.3f", w, (double)n / 1e6);
	else
		fprintf(out, "%*" PRIu64, w, n);
}

static void put_row(FILE *out, const struct counts *c, uint32_t id, uint64_t whole,
		    const uint32_t *self_units)
{
	char self[32], total[32];
	uint64_t total_units = whole ?
		(uint64_t)(((unsigned __int128)c->total[id] * 10000 + whole / 2) / whole) : 0;

	put_n(out, 10, c->self[id]);
	fprintf(out, " %8s ", fmt_share(self, sizeof(self), self_units[id], c->self[id]));
	put_n(out, 10, c->total[id]);
	fprintf(out, " %8s  %s  %s\n", fmt_share(total, sizeof(total), total_units, c->total[id]),
		c->ft.name[id], c->ft.binary[id]);
}

/* The two tables of one group: top n by self, top n by total. */
static int put_tables(FILE *out, struct counts *c, unsigned int n)
{
	uint32_t *ids, *units;
	size_t i;
	int pass;

	ids = ranked(c, false);
	units = ids ? self_shares(c, ids) : NULL;
	free(ids);
	if (!units)
		return -ENOMEM;
	for (pass = 0; pass < 2; pass++) {
		ids = ranked(c, pass == 1);
		if (!ids) {
			free(units);
			return -ENOMEM;
		}
		fprintf(out, "# top %u by %s\n", n, pass ? "total" : "self");
		fprintf(out, "%10s %8s %10s %8s  %s  %s\n", time_ms ? "SELF_MS" : "SELF", "SELF%",
			time_ms ? "TOTAL_MS" : "TOTAL", "TOTAL%", "FUNCTION", "BINARY");
		for (i = 0; i < c->nr_touched && i < n; i++) {
			if (!(pass ? c->total[ids[i]] : c->self[ids[i]]))
				break;
			put_row(out, c, ids[i], c->samples, units);
		}
		free(ids);
	}
	free(units);
	return 0;
}

/* --- grouping ---------------------------------------------------------------- */

enum group_by { GROUP_NONE, GROUP_PID, GROUP_TID, GROUP_COMM, GROUP_CPU, GROUP_NODE, GROUP_CGROUP,
		GROUP_FILE };

/* A group's cells: [start, end) of the sorted cells, with its sample count. */
struct run {
	size_t start, end;
	uint64_t samples;
	uint64_t key;
};

static int cmp_run_samples(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void put_group_label(FILE *out, enum group_by by, const struct strtab *labels,
			    const struct run *r)
{
	switch (by) {
	case GROUP_PID:
		fprintf(out, "pid %" PRIu64, r->key);
		break;
	case GROUP_TID:
		fprintf(out, "tid %" PRIu64, r->key);
		break;
	case GROUP_COMM:
	case GROUP_CGROUP:
	case GROUP_FILE:
		fputs(strtab__str(labels, (uint32_t)r->key), out);
		break;
	case GROUP_CPU:
		fprintf(out, "cpu %" PRIu64, r->key);
		break;
	case GROUP_NODE:
		if (r->key == UINT32_MAX)
			fputs("node ?", out);
		else
			fprintf(out, "node %" PRIu64, r->key);
		break;
	default:
		fputs("all", out);
	}
}

static enum group_by top_group(enum report_by by)
{
	switch (by) {
	case REPORT_BY_PID:
		return GROUP_PID;
	case REPORT_BY_TID:
		return GROUP_TID;
	case REPORT_BY_COMM:
		return GROUP_COMM;
	case REPORT_BY_CGROUP:
		return GROUP_CGROUP;
	case REPORT_BY_FILE:
		return GROUP_FILE;
	default:
		return GROUP_NONE;
	}
}

static void put_header(FILE *out, const struct report_ctx *rc, const char *what)
{
	time_ms = rc->opts->weight != REPORT_WEIGHT_SAMPLES;
	if (time_ms)
		fprintf(out, "# eprof %s: %.3f ms of %s in %zu recording%s\n", what,
			(double)rc->total / 1e6, rc->opts->weight == REPORT_WEIGHT_WALL ?
			"wall time (on-CPU, blocked, runnable)" : "blocked time", rc->nr_srcs,
			rc->nr_srcs == 1 ? "" : "s");
	else
		fprintf(out, "# eprof %s: %" PRIu64 " samples in %zu recording%s\n", what,
			rc->total, rc->nr_srcs, rc->nr_srcs == 1 ? "" : "s");
}

/*
 * --top merges recordings one at a time: each entry adds to the (group,
 * function) cells it touches, and the entries go with their recording. A
 * group is a pid, a tid, or a comm or cgroup by its text (0 ungrouped).
 */
struct top_cell {
	uint64_t self, total;
};

struct top_merge {
	enum group_by by;
	struct counts c;		/* its func_tab names functions across recordings */
	struct strtab labels;		/* GROUP_COMM, GROUP_CGROUP: text -> key */
	struct u64map cells;		/* group << 32 | function id -> position in cell[] */
	struct top_cell *cell;
	size_t alloc_cell;
	struct u64map groups;		/* group -> samples */
};

static int start_by(void **state, enum group_by by)
{
	struct top_merge *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->by = by;
	func_tab__init(&m->c.ft);
	strtab__init(&m->labels);
	*state = m;
	return 0;
}

static int top_start(void **state, const struct report_ctx *rc)
{
	return start_by(state, top_group(rc->opts->by));
}

static int percpu_start(void **state, const struct report_ctx *rc)
{
	(void)rc;
	return start_by(state, GROUP_CPU);
}

static int pernode_start(void **state, const struct report_ctx *rc)
{
	(void)rc;
	return start_by(state, GROUP_NODE);
}

static int top_cell_add(struct top_merge *m, uint64_t group, uint32_t id, uint64_t self,
			uint64_t total)
{
	uint64_t *pos;
	bool added;
	int err;

	err = u64map__upsert(&m->cells, group << 32 | id, m->cells.nr, &pos, &added);
	if (err)
		return err;
	if (added) {
		if (vec__grow(&m->cell, &m->alloc_cell, m->cells.nr, sizeof(*m->cell)))
			return -ENOMEM;	/* the cell's key stays, counting nothing: freed with the map */
		m->cell[*pos] = (struct top_cell){ 0, 0 };
	}
	m->cell[*pos].self += self;
	m->cell[*pos].total += total;
	return 0;
}

/* Counts each entry of s: self for its leaf, total once for each distinct function. */
static int top_add(void *state, const struct report_ctx *rc, const struct report_src *s)
{
	struct top_merge *m = state;
	const struct agg_entry *e;
	uint64_t *samples;
	uint32_t leaf, id, i;
	bool added;
	size_t k = 0;
	int err = 0;

	(void)rc;
	while (!err && (e = report_src__next(s, &k))) {
		uint64_t group = 0;

		switch (m->by) {
		case GROUP_PID:
			group = e->tgid;
			break;
		case GROUP_TID:
			group = e->tid;
			break;
		case GROUP_CPU:
			group = e->cpu;
			break;
		case GROUP_NODE:
			/* unknown node (-1) sorts last */
			group = (uint32_t)report_src__node(s, e->cpu);
			break;
		case GROUP_COMM:
		case GROUP_CGROUP:
		case GROUP_FILE:
			/* by text: ids differ between recordings */
			err = strtab__intern(&m->labels, m->by == GROUP_COMM ?
					     stack_agg__comm(&s->agg, e->comm_id) :
					     m->by == GROUP_FILE ? s->path :
					     stack_agg__cgroup(&s->agg, e->cgroup), &id);
			group = id;
			break;
		default:
			break;
		}
		if (!err)
			err = func_tab__stack(&m->c.ft, report_src__stack(s, e), &leaf);
		for (i = 0; !err && i < m->c.ft.nr_ids; i++)
			err = top_cell_add(m, group, m->c.ft.ids[i], 0, e->count);
		if (!err)
			err = top_cell_add(m, group, leaf, e->count, 0);
		if (!err)
			err = u64map__upsert(&m->groups, group, 0, &samples, &added);
		if (!err)
			*samples += e->count;
	}
	return err;
}

static const struct u64map *sort_cells;	/* qsort() has no context in C */

static int cmp_cell(const void *a, const void *b)
{
	uint64_t x = sort_cells->keys[*(const uint32_t *)a];
	uint64_t y = sort_cells->keys[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

/* The cells sorted by (group, function) and each group's run of them. */
static int top_runs(struct top_merge *m, uint32_t **order, struct run **runs, size_t *nr_runs)
{
	size_t i, n = m->cells.nr, r = 0;
	uint64_t key;

	*order = calloc(n ? n : 1, sizeof(**order));
	*runs = calloc(m->groups.nr ? m->groups.nr : 1, sizeof(**runs));
	if (!*order || !*runs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		(*order)[i] = (uint32_t)i;
	sort_cells = &m->cells;
	if (n > 1)
		qsort(*order, n, sizeof(**order), cmp_cell);
	for (i = 0; i < n; i++) {
		key = m->cells.keys[(*order)[i]] >> 32;
		if (!i || key != (*runs)[r - 1].key) {
			if (r == m->groups.nr)
				return -EINVAL;	/* every group has its samples counted */
			(*runs)[r].start = i;
			(*runs)[r].key = key;
			(*runs)[r].samples = *u64map__find(&m->groups, key);
			r++;
		}
		(*runs)[r - 1].end = i + 1;
	}
	*nr_runs = r;
	return 0;
}

/* Loads group run r into m->c, as count_run() does from entries. */
static int top_load_run(struct top_merge *m, const uint32_t *order, const struct run *r)
{
	size_t i;
	int err;

	err = func_tab__grow_counts(&m->c.ft, &m->c.self, &m->c.alloc_self);
	if (!err)
		err = func_tab__grow_counts(&m->c.ft, &m->c.total, &m->c.alloc_total);
	if (err)
		return err;
	counts__reset(&m->c);
	for (i = r->start; i < r->end; i++) {
		const struct top_cell *cell = &m->cell[order[i]];
		uint32_t id = (uint32_t)m->cells.keys[order[i]];

		err = touch(&m->c, id);
		if (err)
			return err;
		m->c.self[id] = cell->self;
		m->c.total[id] = cell->total;
	}
	m->c.samples = r->samples;
	return 0;
}

static int top_write(void *state, const struct report_ctx *rc, FILE *out)
{
	struct top_merge *m = state;
	unsigned int n = rc->opts->top_n ? rc->opts->top_n : TOP_DEFAULT;
	uint32_t *order = NULL;
	struct run *runs = NULL;
	size_t nr_runs = 0, i;
	int err;

	err = top_runs(m, &order, &runs, &nr_runs);
	if (err)
		goto out;
	if (nr_runs > 1)
		qsort(runs, nr_runs, sizeof(*runs), cmp_run_samples);
	put_header(out, rc, "top");
	for (i = 0; i < nr_runs; i++) {
		err = top_load_run(m, order, &runs[i]);
		if (err)
			goto out;
		if (m->by != GROUP_NONE) {
			fputs("\n## ", out);
			put_group_label(out, m->by, &m->labels, &runs[i]);
			fputs(": ", out);
			put_n(out, 0, runs[i].samples);
			fprintf(out, " %s (%.2f%%)\n", time_ms ? "ms" : "samples",
				view__pct(runs[i].samples, rc->total));
		}
		err = put_tables(out, &m->c, n);
		if (err)
			goto out;
	}
	err = view__check_stream(out);
out:
	free(order);
	free(runs);
	return err;
}

static void top_free(void *state)
{
	struct top_merge *m = state;

	if (!m)
		return;
	counts__release(&m->c);
	strtab__release(&m->labels);
	u64map__release(&m->cells);
	free(m->cell);
	u64map__release(&m->groups);
	free(m);
}

const struct view_merge_ops view_top_merge = { top_start, top_add, top_write, top_free };

int view_top__write(const struct report_ctx *rc, FILE *out)
{
	return view__write_merged(&view_top_merge, rc, out);
}

/* --per-cpu / --per-node: each group's samples and share, then its top functions by self. */
static int group_write(void *state, const struct report_ctx *rc, FILE *out)
{
	struct top_merge *m = state;
	enum group_by by = m->by;
	struct counts *c = &m->c;
	uint32_t *order = NULL, *ids;
	struct run *runs = NULL;
	size_t nr_runs = 0, i, j;
	int err;

	err = top_runs(m, &order, &runs, &nr_runs);	/* in key order */
	if (err)
		goto out;
	put_header(out, rc, by == GROUP_CPU ? "per-cpu" : "per-node");
	if (by == GROUP_NODE) {
		size_t nodes = 0;

		for (i = 0; i < nr_runs; i++)
			nodes += runs[i].key != UINT32_MAX;
		fprintf(out, "# %zu NUMA node%s with samples\n", nodes, nodes == 1 ? "" : "s");
	}
	fprintf(out, "# %-8s %10s %8s   then its top %d functions by self: %s SHARE FUNCTION "
		"BINARY\n", by == GROUP_CPU ? "CPU" : "NODE", time_ms ? "MS" : "SAMPLES", "SHARE",
		PER_GROUP_TOP, time_ms ? "MS" : "SAMPLES");
	for (i = 0; i < nr_runs; i++) {
		err = top_load_run(m, order, &runs[i]);
		if (err)
			goto out;
		put_group_label(out, by, &m->labels, &runs[i]);
		fputc(' ', out);
		put_n(out, 10, runs[i].samples);
		fprintf(out, " %7.2f%%\n", view__pct(runs[i].samples, rc->total));
		ids = ranked(c, false);
		if (!ids) {
			err = -ENOMEM;
			goto out;
		}
		for (j = 0; j < c->nr_touched && j < PER_GROUP_TOP && c->self[ids[j]]; j++) {
			fputs("    ", out);
			put_n(out, 10, c->self[ids[j]]);
			fprintf(out, " %7.2f%%  %s  %s\n", view__pct(c->self[ids[j]], c->samples),
				c->ft.name[ids[j]], c->ft.binary[ids[j]]);
		}
		free(ids);
	}
	err = view__check_stream(out);
out:
	free(order);
	free(runs);
	return err;
}

const struct view_merge_ops view_percpu_merge = { percpu_start, top_add, group_write, top_free };
const struct view_merge_ops view_pernode_merge = { pernode_start, top_add, group_write, top_free };

int view_percpu__write(const struct report_ctx *rc, FILE *out)
{
	return view__write_merged(&view_percpu_merge, rc, out);
}

int view_pernode__write(const struct report_ctx *rc, FILE *out)
{
	return view__write_merged(&view_pernode_merge, rc, out);
}

/* --- diff --------------------------------------------------------------------- */

/* One function's share on both sides, of self or of total samples. */
struct change {
	uint32_t id;
	double p1, p2, delta, se, z;
};

static int cmp_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Per side and per function: self samples (the leaf) and total ones (on the stack). */
struct diff_counts {
	struct func_tab ft;
	uint64_t *self[2], *total[2];
	size_t alloc_self[2], alloc_total[2];
};

static int diff_counts__add(struct diff_counts *d, int side, const struct sym_stack *st,
			    const struct agg_entry *e)
{
	uint32_t leaf;
	size_t i;
	int err, k;

	err = func_tab__stack(&d->ft, st, &leaf);
	for (k = 0; k < 2 && !err; k++) {
		err = func_tab__grow_counts(&d->ft, &d->self[k], &d->alloc_self[k]);
		if (!err)
			err = func_tab__grow_counts(&d->ft, &d->total[k], &d->alloc_total[k]);
	}
	if (err)
		return err;
	d->self[side][leaf] += e->count;
	for (i = 0; i < d->ft.nr_ids; i++)
		d->total[side][d->ft.ids[i]] += e->count;
	return 0;
}

static void diff_counts__release(struct diff_counts *d)
{
	int k;

	for (k = 0; k < 2; k++) {
		free(d->self[k]);
		free(d->total[k]);
	}
	func_tab__release(&d->ft);
}

/*
 * The functions present on either side (by counts c1, c2 of n1, n2
 * samples) into ch, largest change of share first; returns how many.
 */
static size_t rank_changes(const uint64_t *c1, const uint64_t *c2, uint32_t nr_funcs, uint64_t n1,
			   uint64_t n2, struct change *ch)
{
	struct share_change sc;
	size_t nr = 0;
	uint32_t f;

	for (f = 0; f < nr_funcs; f++) {
		struct change *c;

		if (!c1[f] && !c2[f])
			continue;	/* e.g. a caller only, in the self table */
		c = &ch[nr++];
		sc = share_change(c1[f], n1, c2[f], n2);
		*c = (struct change){ f, sc.p1, sc.p2, sc.delta, sc.se, sc.z };
	}
	if (nr > 1)
		qsort(ch, nr, sizeof(*ch), cmp_change);
	return nr;
}

static void put_changes(FILE *out, const struct func_tab *ft, const struct change *ch, size_t nr,
			unsigned int n, const char *what)
{
	size_t i;

	fprintf(out, "# largest changes of %s\n", what);
	fprintf(out, "%8s %8s %9s %8s %8s  %-3s  %s  %s\n", "BASE%", "NEW%", "CHANGE", "STDERR",
		"Z", "SIG", "FUNCTION", "BINARY");
	for (i = 0; i < nr && i < n; i++) {
		const struct change *c = &ch[i];

		fprintf(out, "%7.2f%% %7.2f%% %+8.2f%% %7.2f%% %8.2f  %-3s  %s  %s\n",
			100 * c->p1, 100 * c->p2, 100 * c->delta, 100 * c->se, c->z,
			fabs(c->z) >= SIGNIFICANT_Z ? "yes" : "no", ft->name[c->id],
			ft->binary[c->id]);
	}
}

/*
 * Two tables: changes of total share first (a caller whose share grew shows
 * there even when its callees' self shares did not move), then of self
 * share (where the time is spent).
 */
int view_diff_top__write(const struct report_ctx *rc, FILE *out)
{
	unsigned int n = rc->opts->top_n ? rc->opts->top_n : TOP_DEFAULT;
	uint64_t n1 = rc->srcs[0].nr_samples, n2 = rc->srcs[1].nr_samples;
	struct diff_counts d = { 0 };
	struct change *ch = NULL;
	uint32_t nr_funcs;
	size_t k, nr;
	int err = 0, side;

	func_tab__init(&d.ft);
	for (side = 0; side < 2 && !err; side++) {
		const struct report_src *s = &rc->srcs[side];

		for (k = 0; k < s->agg.nr && !err; k++)
			if (report_src__kept(s, k))
				err = diff_counts__add(&d, side, s->stacks.stack[k],
						       &s->agg.entries[k]);
	}
	if (err)
		goto out;
	nr_funcs = func_tab__nr(&d.ft);
	ch = calloc(nr_funcs ? nr_funcs : 1, sizeof(*ch));
	if (!ch) {
		err = -ENOMEM;
		goto out;
	}
	if (rc->opts->weight != REPORT_WEIGHT_SAMPLES) {
		/* time: shares of each recording's time; the noise counts a ms as a sample */
		fprintf(out, "# eprof diff top: base '%s' %.3f ms, new '%s' %.3f ms of %s\n",
			rc->srcs[0].path, (double)n1 / 1e6, rc->srcs[1].path, (double)n2 / 1e6,
			rc->opts->weight == REPORT_WEIGHT_WALL ? "wall time" : "blocked time");
		n1 /= 1000000;
		n2 /= 1000000;
		for (side = 0; side < 2; side++)
			for (k = 0; k < nr_funcs; k++) {
				d.total[side][k] /= 1000000;
				d.self[side][k] /= 1000000;
			}
	} else {
		fprintf(out, "# eprof diff top: base '%s' %" PRIu64 " samples, new '%s' %" PRIu64
			" samples\n", rc->srcs[0].path, n1, rc->srcs[1].path, n2);
	}
	fprintf(out, "# shares of each recording's samples; STDERR = sqrt(p1(1-p1)/n1 + "
		"p2(1-p2)/n2), Z = CHANGE/STDERR, SIG = |Z| >= %.0f\n", SIGNIFICANT_Z);
	/* with no function at all the count arrays are NULL and never read */
	nr = rank_changes(d.total[0], d.total[1], nr_funcs, n1, n2, ch);
	put_changes(out, &d.ft, ch, nr, n, "total share (samples with the function on the stack)");
	nr = rank_changes(d.self[0], d.self[1], nr_funcs, n1, n2, ch);
	put_changes(out, &d.ft, ch, nr, n, "self share (samples in the function itself)");
	err = view__check_stream(out);
out:
	free(ch);
	diff_counts__release(&d);
	return err;
}
