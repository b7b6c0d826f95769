// SPDX-License-Identifier: MIT
/*
 * report/output/html.c - `eprof report --html OUT`: one self-contained page
 * (heat map, per-CPU strips, flame graph, top table, diff of two ranges).
 *
 * The page needs no server and fetches nothing: its style and script
 * (report/output/html/app.css, app.js, compiled in at build time) and its data are
 * all inline, so it works from file:// and under a Content-Security-Policy
 * that forbids every network access. The data is one JSON object in a
 * <script type="application/json"> element, which the browser never runs:
 *
 *   names   the frame names, each once (the string table)
 *   stacks  the distinct stacks, as arrays of name ids, root (the comm)
 *           first, the most sampled first (small ids are short to write)
 *   t k cn  three parallel columns, one row per (time bucket, CPU, stack):
 *           the bucket as a delta to the previous row's (rows are sorted by
 *           time, so most deltas are 0 or 1; the first from origin_ns, the
 *           whole second before the first sample), the stack id, and
 *           cpu + cpu_stride * (samples - 1): most rows hold one sample, and
 *           then this is the CPU alone
 *
 * The pipeline aggregated by (comm, process, stack, CPU, 10 ms bucket), so
 * the columns come from the aggregate without reading the samples again,
 * and their size follows the distinct keys, not the samples: the page holds
 * every question of "when, where, what" a user can ask by selection, and
 * answers it by summing the rows that fall in the selection.
 *
 * Several -i are merged as the other views merge them: by names, each
 * recording's buckets counted from its own start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/view.h"

/* report/output/html/app.css and app.js, embedded by report/CMakeLists.txt */
extern const char eprof_html_app_css[];
extern const char eprof_html_app_js[];

/* One output row, before sorting by time. */
struct html_row {
	uint32_t slot;
	uint32_t cpu;
	uint32_t stack;
	uint64_t count;
};

/* Larger packed values would lose precision as JavaScript numbers. */
#define HTML_MAX_PACKED	(1ull << 53)

struct html_ctx {
	FILE *out;
	uint32_t cpu_stride;		/* the largest CPU + 1 */
	struct strtab names;		/* frame name -> id */
	struct strtab stacks;		/* "id,id,id" -> stack id */
	struct strbuf key;		/* scratch: the key of one stack */
	struct html_row *rows;
	size_t nr_rows;
	uint32_t *order;		/* stack ids by samples: order[new id] = old id */
	uint32_t origin;		/* the first row's bucket, rounded down to a second */
};

/*
 * s as a JSON string. '<', '>' and '&' go as \u escapes, so no name can
 * close the <script> element that holds the data or open a comment in it.
 */
static void put_json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* "key":"value", (or null) */
static void put_field_str(FILE *out, const char *key, const char *val)
{
	fprintf(out, "\"%s\":", key);
	if (val)
		put_json_str(out, val);
	else
		fputs("null", out);
	fputc(',', out);
}

static int cmp_row(const void *a, const void *b)
{
	const struct html_row *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* The stack id of one entry's names, interning names and the stack. */
static int html__stack_id(struct html_ctx *h, const struct view_names *v, uint32_t *id)
{
	uint32_t nid;
	size_t i;
	int err;

	strbuf_reset(&h->key);
	for (i = 0; i < v->nr; i++) {
		err = strtab__intern(&h->names, v->names[i], &nid);
		if (err)
			return err;
		strbuf_addf(&h->key, i ? ",%" PRIu32 : "%" PRIu32, nid);
	}
	if (h->key.oom)
		return -ENOMEM;
	return strtab__intern_len(&h->stacks, h->key.buf, h->key.len, id);
}

struct stack_rank {
	uint64_t count;
	uint32_t id;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct stack_rank *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Renumbers the stacks by samples, most first (h->order[new] = old): the
 * rows name the busiest stacks most often, and short ids keep the file
 * small.
 */
static int html__order_stacks(struct html_ctx *h)
{
	size_t nr = h->stacks.nr, i;
	struct stack_rank *rank;
	uint32_t *to_new;

	rank = calloc(nr ? nr : 1, sizeof(*rank));
	to_new = calloc(nr ? nr : 1, sizeof(*to_new));
	h->order = calloc(nr ? nr : 1, sizeof(*h->order));
	if (!rank || !to_new || !h->order) {
		free(rank);
		free(to_new);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++)
		rank[i].id = (uint32_t)i;
	for (i = 0; i < h->nr_rows; i++)
		rank[h->rows[i].stack].count += h->rows[i].count;
	qsort(rank, nr, sizeof(*rank), cmp_rank);
	for (i = 0; i < nr; i++) {
		h->order[i] = rank[i].id;
		to_new[rank[i].id] = (uint32_t)i;
	}
	for (i = 0; i < h->nr_rows; i++)
		h->rows[i].stack = to_new[h->rows[i].stack];
	free(rank);
	free(to_new);
	return 0;
}

/*
 * Counts too large to pack with the CPU as exact JavaScript numbers (some
 * 10^11 samples in 10 ms on one CPU: only a damaged file has them); the
 * pipeline has already refused buckets beyond VIEW_HTML_MAX_SLOTS.
 */
static int html__check(const struct html_ctx *h)
{
	size_t i;

	for (i = 0; i < h->nr_rows; i++) {
		const struct html_row *r = &h->rows[i];

		if (r->count - 1 > (HTML_MAX_PACKED - r->cpu) / h->cpu_stride)
			return -EOVERFLOW;
	}
	return 0;
}

/* Every non-empty entry of every recording as a row. */
static int html__collect(struct html_ctx *h, const struct report_ctx *rc)
{
	struct view_names v = VIEW_NAMES_INIT;
	size_t i, k, nr = 0;
	int err = 0;

	for (i = 0; i < rc->nr_srcs; i++)
		nr += rc->srcs[i].agg.nr;
	h->rows = calloc(nr ? nr : 1, sizeof(*h->rows));
	if (!h->rows)
		return -ENOMEM;
	for (i = 0; i < rc->nr_srcs && !err; i++) {
		const struct report_src *s = &rc->srcs[i];

		for (k = 0; k < s->agg.nr && !err; k++) {
			const struct agg_entry *e = &s->agg.entries[k];
			struct html_row *r = &h->rows[h->nr_rows];

			if (!e->count)
				continue;
			err = view_names__build(&v, rc, s, e);
			if (!err)
				err = html__stack_id(h, &v, &r->stack);
			r->slot = e->slot;
			r->cpu = e->cpu;
			if (e->cpu >= h->cpu_stride)
				h->cpu_stride = e->cpu + 1;
			r->count = e->count;
			h->nr_rows++;
		}
	}
	view_names__release(&v);
	if (!err)
		err = html__order_stacks(h);
	/* the page starts at the whole second before the first sample (--from, a late -i) */
	for (k = 0; k < h->nr_rows; k++)
		if (!k || h->rows[k].slot < h->origin)
			h->origin = h->rows[k].slot;
	h->origin -= h->origin % (1000000000ull / VIEW_HTML_SLOT_NS);
	for (k = 0; k < h->nr_rows; k++)
		h->rows[k].slot -= h->origin;
	if (!err && h->nr_rows > 1)
		qsort(h->rows, h->nr_rows, sizeof(*h->rows), cmp_row);
	return err;
}

/*
 * What one recording says about itself, as a JSON object. A value that is
 * absent (or that format/ refuses) shows as unknown: the header informs, and
 * the samples do not depend on it.
 */
static void put_source(FILE *out, const struct report_src *s)
{
	static const char *const keys[][2] = {
		{ "kernel", REC_META_KERNEL }, { "arch", REC_META_ARCH },
		{ "event", REC_META_EVENT }, { "eprof_version", REC_META_EPROF_VERSION },
	};
	char *v = NULL;
	size_t i;

	fputc('{', out);
	put_field_str(out, "path", s->path);
	put_field_str(out, "host", s->hostname);
	put_field_str(out, "command", s->command);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (recording__get_meta(s->rec, keys[i][1], &v))
			v = NULL;
		put_field_str(out, keys[i][0], v);
		free(v);
		v = NULL;
	}
	if (recording__get_meta(s->rec, REC_META_NR_CPUS, &v))
		v = NULL;
	fprintf(out, "\"cpus\":%" PRIu64 ",", v ? (uint64_t)strtoull(v, NULL, 10) : 0);
	free(v);
	fprintf(out, "\"start_realtime\":%" PRIu64 ",\"duration_ns\":%" PRIu64
		",\"freq_hz\":%" PRIu64 ",\"samples\":%" PRIu64 "}", s->start_realtime,
		s->end_ns > s->start_ns ? s->end_ns - s->start_ns : 0, s->freq_hz, s->nr_samples);
}

/* The recordings' CPU -> NUMA node map (the first recording that lists a CPU wins). */
static void put_nodes(FILE *out, const struct report_ctx *rc)
{
	size_t n = 0, i, c;

	for (i = 0; i < rc->nr_srcs; i++)
		if (rc->srcs[i].nr_cpu_node > n)
			n = rc->srcs[i].nr_cpu_node;
	fputs("\"nodes\":[", out);
	for (c = 0; c < n; c++) {
		int32_t node = -1;

		for (i = 0; i < rc->nr_srcs && node < 0; i++)
			node = report_src__node(&rc->srcs[i], (uint32_t)c);
		fprintf(out, c ? ",%" PRId32 : "%" PRId32, node);
	}
	fputs("],", out);
}

static void put_quality(FILE *out, const struct report_summary *sum)
{
	const struct tick_breakdown *tb = &sum->ticks;

	fprintf(out, "\"quality\":{\"samples\":%" PRIu64 ",\"lost_samples\":%" PRIu64
		",\"lost_stacks\":%" PRIu64 ",\"truncated_stacks\":%" PRIu64 ",\"frames\":%" PRIu64
		",\"resolved\":%" PRIu64 ",\"filtered\":%" PRIu64, sum->samples, sum->lost_samples,
		sum->lost_stacks, sum->truncated_stacks, sum->frames, sum->resolved, sum->filtered);
	if (sum->unw_walks)
		fprintf(out, ",\"unwind\":{\"walks\":%" PRIu64 ",\"complete\":%" PRIu64
			",\"truncated\":%" PRIu64 ",\"fallback\":%" PRIu64 "}", sum->unw_walks,
			sum->unw_complete, sum->unw_truncated, sum->unw_fallback);
	if (sum->ticks_known)
		fprintf(out, ",\"ticks\":{\"expected\":%" PRIu64 ",\"fired\":%" PRIu64
			",\"kept\":%" PRIu64 ",\"throttled\":%" PRIu64 ",\"missed\":%" PRIu64 "}",
			tb->expected, tb->fired, tb->kept, tb->throttled, tb->missed);
	fputs("},", out);
}

static void put_data(struct html_ctx *h, const struct report_ctx *rc)
{
	FILE *out = h->out;
	const struct report_opts *o = rc->opts;
	uint32_t prev = 0;
	size_t i;

	fprintf(out, "{\"version\":1,\"slot_ns\":%llu,\"label_depth\":%d,\"total\":%" PRIu64
		",\"cpu_stride\":%" PRIu32 ",\"origin_ns\":%llu,", VIEW_HTML_SLOT_NS,
		o->by == REPORT_BY_PID || o->by == REPORT_BY_TID ? 2 : 1, rc->total, h->cpu_stride,
		h->origin * VIEW_HTML_SLOT_NS);
	put_field_str(out, "title", o->title);
	fputs("\"sources\":[", out);
	for (i = 0; i < rc->nr_srcs; i++) {
		if (i)
			fputc(',', out);
		put_source(out, &rc->srcs[i]);
	}
	fputs("],", out);
	put_nodes(out, rc);
	put_quality(out, rc->sum);
	fputs("\n\"names\":[", out);
	for (i = 0; i < h->names.nr; i++) {
		if (i)
			fputc(',', out);
		put_json_str(out, strtab__str(&h->names, (uint32_t)i));
	}
	fputs("],\n\"stacks\":[", out);
	for (i = 0; i < h->stacks.nr; i++)
		fprintf(out, "%s[%s]", i ? "," : "", strtab__str(&h->stacks, h->order[i]));
	fputs("],\n\"t\":[", out);
	for (i = 0; i < h->nr_rows; i++) {
		fprintf(out, i ? ",%" PRIu32 : "%" PRIu32, h->rows[i].slot - prev);
		prev = h->rows[i].slot;
	}
	fputs("],\n\"k\":[", out);
	for (i = 0; i < h->nr_rows; i++)
		fprintf(out, i ? ",%" PRIu32 : "%" PRIu32, h->rows[i].stack);
	fputs("],\n\"cn\":[", out);
	for (i = 0; i < h->nr_rows; i++)
		fprintf(out, i ? ",%" PRIu64 : "%" PRIu64,
			h->rows[i].cpu + (uint64_t)h->cpu_stride * (h->rows[i].count - 1));
	fputs("]}", out);
}

int view_html__write(const struct report_ctx *rc, FILE *out)
{
	struct html_ctx h = { .out = out, .key = STRBUF_INIT, .cpu_stride = 1 };
	int err;

	strtab__init(&h.names);
	strtab__init(&h.stacks);
	err = html__collect(&h, rc) ?: html__check(&h);
	if (err)
		goto out;
	/* no network: a page that tried to fetch anything would be a bug, and is refused */
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      "<title>eprof report</title>\n<style>\n", out);
	fputs(eprof_html_app_css, out);
	fputs("</style></head>\n<body>\n<script id=\"eprof-data\" type=\"application/json\">", out);
	put_data(&h, rc);
	fputs("</script>\n<script>\n", out);
	fputs(eprof_html_app_js, out);
	fputs("</script>\n</body></html>\n", out);
	err = view__check_stream(out);
out:
	free(h.rows);
	free(h.order);
	strbuf_release(&h.key);
	strtab__release(&h.names);
	strtab__release(&h.stacks);
	return err;
}
