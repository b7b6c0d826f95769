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
 *   tree    every stack is a path from the root (the comm) of one tree;
 *           its nodes in depth-first order, children by name (as drawn),
 *           each as the step back to its parent and its name id
 *   stacks  the node each distinct stack ends at, the most sampled first
 *           (small numbers are short to write)
 *   rows    one per (time bucket, CPU, state, stack), sorted by time: the
 *           bucket as a step from the previous row's (the first from
 *           origin_ns, the whole second before the first sample), the CPU,
 *           the state, the count and the stack's number
 *   idle    the nodes (depth first) at the top of the idle task's stacks
 *           (pid 0, one per CPU under -a): the page leaves what is under
 *           them out of the flame graph and counts it as idle in the heat
 *           map and strips, whose shade is then the busy share
 *   states  only for recordings with off-CPU time: on-CPU rows count
 *           samples, blocked and runnable ones ns; the page weighs them
 *           into on-CPU, off-CPU or wall views (period_ns: a sample's time)
 *   modules the binaries (paths; kernel modules; [kernel.kallsyms]) the
 *           frames came from, and name_mod, per name the module's number
 *           + 1 (0: none, as the comm), where its first frame was
 *   threads only with states: [tid, pid, name id] of each thread, whose
 *           number each row then ends with (the page's per-thread lanes)
 *
 * tree, stacks and rows are strings of numbers in base 32, one character
 * per digit (put_num()): a million rows make some 4 MB instead of the 10 of
 * decimal arrays, and the page decodes them in one pass into typed arrays.
 *
 * The pipeline aggregated by (comm, process, stack, CPU, 10 ms bucket), so
 * the rows come from the aggregate without reading the samples again, and
 * their size follows the distinct keys, not the samples: the page holds
 * every question of "when, where, what" a user can ask by selection, and
 * answers it by summing the rows that fall in the selection into the
 * stacks, then the stacks up the tree.
 *
 * Several -i are merged as the other views merge them, one recording at
 * a time: by names, each recording's buckets counted from its own start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "util/json.h"
#include "util/log.h"
#include "util/hashmap.h"
#include "util/vec.h"
#include "report/symbolize/symbolize.h"
#include "report/view.h"

/* report/output/html/app.css and app.js, embedded by report/CMakeLists.txt */
extern const char eprof_html_app_css[];
extern const char eprof_html_app_js[];
extern const char eprof_html_diff_js[];

/* One output row, before sorting by time. */
struct html_row {
	uint32_t slot;
	uint32_t cpu;
	uint32_t stack;			/* the stack's last node, then its rank */
	uint32_t state;			/* enum agg_state (0, on-CPU, without off-CPU data) */
	uint32_t thread;		/* in html_ctx.threads (0 without off-CPU data) */
	uint64_t count;			/* samples on the CPU, ns off it */
};

/* Larger numbers would lose precision as JavaScript numbers. */
#define HTML_MAX_NUMBER	(1ull << 53)

struct html_ctx {
	FILE *out;
	uint32_t cpu_stride;		/* the largest CPU + 1 */
	uint32_t nr_states;		/* 3 with off-CPU data (on-CPU, blocked, runnable), else 1 */
	struct strtab names;		/* frame name -> id */
	struct u64map edges;		/* parent << 32 | name -> node */
	uint32_t *parent, *name;	/* per node; node 0 is the root */
	size_t nr_nodes, alloc_parent, alloc_name;
	uint8_t *idle_top;		/* per node: the first node of an idle-task stack */
	size_t alloc_idle;
	uint32_t *pre;			/* node -> its place in depth-first order */
	uint32_t *by_pre;		/* the inverse */
	uint32_t *stack_node;		/* stack rank -> node */
	size_t nr_stacks;
	struct html_row *rows;
	size_t nr_rows, alloc_rows;
	uint32_t origin;		/* the first row's bucket, rounded down to a second */
	struct view_names names_of;	/* scratch: an entry's names */
	const char **mod_of;		/* scratch: the module of each of them (NULL: none) */
	size_t alloc_mod_of;
	struct strtab mods;		/* module -> id */
	uint32_t *name_mod;		/* per name: its module's id + 1, 0 for none */
	size_t alloc_name_mod;
	char *sources;			/* each recording's put_source(), comma-separated */
	size_t sources_len;
	FILE *sources_f;		/* writes sources until the page is written */
	size_t nr_sources;
	struct u64map thread_of;	/* source << 32 | tid -> thread number */
	struct html_thread {
		uint32_t tid, pid, name;
	} *threads;
	size_t nr_threads, alloc_threads;
	/* --diff BASE NEW: the new recording's buckets follow the base's */
	uint32_t slot_offset;		/* added to the buckets of the recording being added */
	uint32_t first_slot, last_slot;	/* of the rows of the recording added last */
	bool diff;
	struct { const char *path; uint64_t from_ns, to_ns; } side[2];
};

/* "key":"value", (or null) */
static void put_field_str(FILE *out, const char *key, const char *val)
{
	fprintf(out, "\"%s\":", key);
	if (val)
		json_put_str(out, val);
	else
		fputs("null", out);
	fputc(',', out);
}

/*
 * v (< 2^53) in base 32, low digits first, one character each from the
 * base64url alphabet: the first 32 end a number, the last 32 say more
 * digits follow. No separator is needed and no character needs escaping
 * in JSON or HTML; most numbers of the page (bucket steps, CPUs, stack
 * ranks of busy stacks) take one or two characters.
 */
static void put_num(FILE *out, uint64_t v)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

	while (v >= 32) {
		fputc(digits[32 + (v & 31)], out);
		v >>= 5;
	}
	fputc(digits[v], out);
}

static int cmp_row(const void *a, const void *b)
{
	const struct html_row *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* The key of the edges of the root's idle-task children: no node has this number. */
#define HTML_IDLE_ROOT	UINT32_MAX

/*
 * The node of one entry's names, from the root (the comm) down: the page's
 * stacks are the paths of one tree, so a shared prefix is written once and
 * the page sums a selection up the tree without building it again. The
 * idle task's stacks (idle) hang from a top node of their own, even where
 * a process took the name "swapper".
 */
static int html__stack_node(struct html_ctx *h, const struct view_names *v, bool idle,
			    uint32_t *out)
{
	uint32_t node = 0, nid;
	uint64_t *slot;
	bool added;
	size_t i;
	int err;

	for (i = 0; i < v->nr; i++) {
		uint64_t from = i == 0 && idle ? HTML_IDLE_ROOT : node;

		err = strtab__intern(&h->names, v->names[i], &nid) ?:
		      u64map__upsert(&h->edges, from << 32 | nid, h->nr_nodes, &slot, &added);
		if (err)
			return err;
		if (added && h->mod_of[i]) {
			uint32_t mid;

			if (vec__grow_zero(&h->name_mod, &h->alloc_name_mod, nid + 1, sizeof(*h->name_mod)))
				return -ENOMEM;
			if (!h->name_mod[nid]) {
				err = strtab__intern(&h->mods, h->mod_of[i], &mid);
				if (err)
					return err;
				h->name_mod[nid] = mid + 1;
			}
		}
		if (added) {
			if (vec__grow(&h->parent, &h->alloc_parent, h->nr_nodes + 1, sizeof(*h->parent)) ||
			    vec__grow(&h->name, &h->alloc_name, h->nr_nodes + 1, sizeof(*h->name)) ||
			    vec__grow_zero(&h->idle_top, &h->alloc_idle, h->nr_nodes + 1,
					   sizeof(*h->idle_top)))
				return -ENOMEM;
			h->parent[h->nr_nodes] = node;
			h->name[h->nr_nodes] = nid;
			h->idle_top[h->nr_nodes] = i == 0 && idle;
			h->nr_nodes++;
		}
		node = (uint32_t)*slot;
	}
	*out = node;
	return 0;
}

struct name_ref {
	const char *s;
	uint32_t id;
};

static int cmp_name_ref(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->id < y->id ? -1 : x->id > y->id);
}

/* A node keyed by (parent, name's rank in sorted order). */
struct node_key {
	uint64_t key;
	uint32_t node;
};

static int cmp_node_key(const void *a, const void *b)
{
	const struct node_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * Numbers the nodes depth first, children in the order of their names (as
 * the flame graph draws them): a node's subtree is then the run of nodes
 * after it, which the page uses for zoom, and its children come in drawing
 * order.
 */
static int html__order_nodes(struct html_ctx *h)
{
	size_t n = h->nr_nodes, i, top = 0, pos = 0;
	struct name_ref *nref = NULL;
	struct node_key *nk = NULL;
	uint32_t *rank = NULL, *first = NULL, *todo = NULL;
	int err = -ENOMEM;

	nref = calloc(h->names.nr ? h->names.nr : 1, sizeof(*nref));
	rank = calloc(h->names.nr ? h->names.nr : 1, sizeof(*rank));
	nk = calloc(n, sizeof(*nk));
	first = calloc(n + 1, sizeof(*first));
	todo = calloc(n, sizeof(*todo));
	h->pre = calloc(n, sizeof(*h->pre));
	h->by_pre = calloc(n, sizeof(*h->by_pre));
	if (!nref || !rank || !nk || !first || !todo || !h->pre || !h->by_pre)
		goto out;
	for (i = 0; i < h->names.nr; i++)
		nref[i] = (struct name_ref){ strtab__str(&h->names, (uint32_t)i), (uint32_t)i };
	qsort(nref, h->names.nr, sizeof(*nref), cmp_name_ref);
	for (i = 0; i < h->names.nr; i++)
		rank[nref[i].id] = (uint32_t)i;
	/* the children of each node, as a run of nk sorted by (parent, name) */
	for (i = 1; i < n; i++)
		nk[i - 1] = (struct node_key){ (uint64_t)h->parent[i] << 32 | rank[h->name[i]],
					       (uint32_t)i };
	qsort(nk, n - 1, sizeof(*nk), cmp_node_key);
	for (i = 1; i < n; i++)
		first[h->parent[i] + 1]++;
	for (i = 0; i < n; i++)
		first[i + 1] += first[i];
	/* depth first without recursion (stacks may be deep): children pushed last first */
	todo[top++] = 0;
	while (top) {
		uint32_t node = todo[--top];
		size_t c;

		h->pre[node] = (uint32_t)pos;
		h->by_pre[pos++] = node;
		for (c = first[node + 1]; c > first[node]; c--)
			todo[top++] = nk[c - 1].node;
	}
	err = 0;
out:
	free(nref);
	free(rank);
	free(nk);
	free(first);
	free(todo);
	return err;
}

struct stack_rank {
	uint64_t count;
	uint32_t node;			/* in depth-first order */
};

static int cmp_rank(const void *a, const void *b)
{
	const struct stack_rank *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/*
 * The stacks (the nodes rows end at) numbered by samples, most first: the
 * rows name the busiest stacks most often, and short numbers keep the file
 * small. rows[].stack becomes the rank.
 */
static int html__order_stacks(struct html_ctx *h)
{
	size_t n = h->nr_nodes, i;
	struct stack_rank *rank = NULL;
	uint64_t *count;
	uint32_t *to_rank = NULL;
	int err = -ENOMEM;

	count = calloc(n, sizeof(*count));
	to_rank = calloc(n, sizeof(*to_rank));
	if (!count || !to_rank)
		goto out;
	for (i = 0; i < h->nr_rows; i++)
		count[h->rows[i].stack] += h->rows[i].count;
	for (i = 0; i < n; i++)
		if (count[i])
			h->nr_stacks++;
	rank = calloc(h->nr_stacks ? h->nr_stacks : 1, sizeof(*rank));
	h->stack_node = calloc(h->nr_stacks ? h->nr_stacks : 1, sizeof(*h->stack_node));
	if (!rank || !h->stack_node)
		goto out;
	h->nr_stacks = 0;
	for (i = 0; i < n; i++)
		if (count[i])
			rank[h->nr_stacks++] = (struct stack_rank){ count[i], h->pre[i] };
	qsort(rank, h->nr_stacks, sizeof(*rank), cmp_rank);
	for (i = 0; i < h->nr_stacks; i++) {
		h->stack_node[i] = rank[i].node;
		to_rank[h->by_pre[rank[i].node]] = (uint32_t)i;
	}
	for (i = 0; i < h->nr_rows; i++)
		h->rows[i].stack = to_rank[h->rows[i].stack];
	err = 0;
out:
	free(count);
	free(rank);
	free(to_rank);
	return err;
}

/*
 * Rows whose first number (bucket step, CPU, and whether more than one
 * sample) or count would not be exact as a JavaScript number: only a
 * damaged file has them (CPU numbers near 2^32 without a CPU count to
 * refuse them); the pipeline has already refused buckets beyond
 * VIEW_HTML_MAX_SLOTS.
 */
static int html__check(const struct html_ctx *h)
{
	uint64_t limit = HTML_MAX_NUMBER / 2 / h->nr_states / (VIEW_HTML_MAX_SLOTS + 2);
	size_t i;

	if (h->cpu_stride > limit)
		return -EOVERFLOW;
	for (i = 0; i < h->nr_rows; i++)
		if (h->rows[i].count >= HTML_MAX_NUMBER)
			return -EOVERFLOW;
	return 0;
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

/* The number of entry e's thread (per recording: tids are reused across machines). */
static int html__thread(struct html_ctx *h, const struct report_src *s, const struct agg_entry *e,
			uint32_t *out)
{
	const char *comm = stack_agg__comm(&s->agg, e->comm_id);
	uint64_t *slot;
	bool added;
	int err;

	err = u64map__upsert(&h->thread_of, (uint64_t)h->nr_sources << 32 | e->tid, h->nr_threads,
			     &slot, &added);
	if (err || !added) {
		*out = err ? 0 : (uint32_t)*slot;
		return err;
	}
	if (vec__grow(&h->threads, &h->alloc_threads, h->nr_threads + 1, sizeof(*h->threads)))
		return -ENOMEM;
	h->threads[h->nr_threads] = (struct html_thread){ e->tid, e->tgid, 0 };
	err = strtab__intern(&h->names, comm[0] ? comm : "[unknown]", &h->threads[h->nr_threads].name);
	*out = (uint32_t)h->nr_threads++;
	return err;
}

/*
 * The module of each of entry e's names (view_names__build()'s order: the
 * --by and comm levels, then the user frames root first, then the kernel
 * ones): the mapping's path, the kernel module, [kernel.kallsyms].
 */
static int html__modules(struct html_ctx *h, const struct agg_entry *e)
{
	const struct sym_stack *st = e->stack;
	size_t n = h->names_of.nr, nf = st ? st->nr_user + st->nr_kernel : 0, i;

	if (vec__grow(&h->mod_of, &h->alloc_mod_of, n ? n : 1, sizeof(*h->mod_of)))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct sym_frame *f;
		size_t k;

		h->mod_of[i] = NULL;
		if (!nf || i < n - nf)
			continue;
		k = i - (n - nf);	/* the k-th frame from the root */
		if (k < st->nr_user) {
			f = sym_stack__frame(st, st->nr_kernel + st->nr_user - 1 - k);
			h->mod_of[i] = f->dso;
		} else {
			f = sym_stack__frame(st, st->nr_kernel - 1 - (k - st->nr_user));
			h->mod_of[i] = f->dso ? f->dso : "[kernel.kallsyms]";
		}
	}
	return 0;
}

/* Every non-empty entry of s as a row, and what s says about itself. */
static int html_add(void *state, const struct report_ctx *rc, const struct report_src *s)
{
	struct html_ctx *h = state;
	size_t k;
	int err = 0;

	h->first_slot = UINT32_MAX;
	h->last_slot = 0;
	if (s->cfg.key_state)	/* the pipeline kept the off-CPU states apart */
		h->nr_states = AGG_RUNNABLE + 1;
	if (vec__grow(&h->rows, &h->alloc_rows, h->nr_rows + s->agg.nr, sizeof(*h->rows)))
		return -ENOMEM;
	for (k = 0; k < s->agg.nr && !err; k++) {
		const struct agg_entry *e = &s->agg.entries[k];
		struct html_row *r = &h->rows[h->nr_rows];

		if (!e->count)
			continue;
		err = view_names__build(&h->names_of, rc, s, e) ?: html__modules(h, e);
		if (!err)
			err = html__stack_node(h, &h->names_of, e->tgid == 0, &r->stack);
		r->slot = e->slot + h->slot_offset;
		if (r->slot < h->first_slot)
			h->first_slot = r->slot;
		if (r->slot > h->last_slot)
			h->last_slot = r->slot;
		r->cpu = e->cpu;
		r->state = e->state < h->nr_states ? e->state : 0;
		r->thread = 0;
		if (!err && h->nr_states > 1)
			err = html__thread(h, s, e, &r->thread);
		if (e->cpu >= h->cpu_stride)
			h->cpu_stride = e->cpu + 1;
		r->count = e->count;
		h->nr_rows++;
	}
	if (h->nr_sources++)
		fputc(',', h->sources_f);
	put_source(h->sources_f, s);
	return err;
}

/* The tree and the stacks in the page's order; the rows by time from the origin. */
static int html__order(struct html_ctx *h)
{
	size_t k;
	int err;

	err = html__order_nodes(h);
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
	if (sum->offcpu_intervals || sum->offcpu_lost || sum->offcpu_untracked)
		fprintf(out, ",\"offcpu\":{\"intervals\":%" PRIu64 ",\"blocked_ns\":%" PRIu64
			",\"runnable_ns\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"lost_ns\":%" PRIu64
			",\"untracked\":%" PRIu64 ",\"lost_stacks\":%" PRIu64 "}", sum->offcpu_intervals,
			sum->blocked_ns, sum->runnable_ns, sum->offcpu_lost, sum->offcpu_lost_ns,
			sum->offcpu_untracked, sum->offcpu_lost_stacks);
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

	fprintf(out, "{\"version\":2,\"slot_ns\":%llu,\"label_depth\":%d,\"total\":%" PRIu64
		",\"cpu_stride\":%" PRIu32 ",\"origin_ns\":%llu,", VIEW_HTML_SLOT_NS,
		report_by__level(o->by) ? 2 : 1, rc->total, h->cpu_stride,
		h->origin * VIEW_HTML_SLOT_NS);
	put_field_str(out, "title", o->title);
	if (h->nr_states > 1) {
		/*
		 * the page weighs samples by the period for wall time; it opens on
		 * wall (what the recording was made for), on off-CPU for --off-cpu
		 */
		fprintf(out, "\"states\":[\"on-CPU\",\"blocked\",\"runnable\"],\"period_ns\":%" PRIu64
			",\"view\":\"%s\",", rc->sum->period_ns, o->weight == REPORT_WEIGHT_WALL ? "wall" :
			o->weight == REPORT_WEIGHT_OFFCPU ? "off" : "wall");
		fputs("\"threads\":[", out);
		for (i = 0; i < h->nr_threads; i++)
			fprintf(out, "%s[%" PRIu32 ",%" PRIu32 ",%" PRIu32 "]", i ? "," : "",
				h->threads[i].tid, h->threads[i].pid, h->threads[i].name);
		fputs("],", out);
	}
	if (h->diff) {
		/* the two recordings, each a selection of diff.js: ns as origin_ns counts them */
		fputs("\"diff\":{", out);
		for (i = 0; i < 2; i++) {
			fprintf(out, "%s\"%s\":{", i ? "," : "", i ? "new" : "base");
			put_field_str(out, "path", h->side[i].path);
			fprintf(out, "\"from_ns\":%" PRIu64 ",\"to_ns\":%" PRIu64 "}", h->side[i].from_ns,
				h->side[i].to_ns);
		}
		fputs("},", out);
	}
	fputs("\"sources\":[", out);
	fwrite(h->sources, 1, h->sources_len, out);
	fputs("],", out);
	put_nodes(out, rc);
	put_quality(out, rc->sum);
	fputs("\n\"names\":[", out);
	for (i = 0; i < h->names.nr; i++) {
		if (i)
			fputc(',', out);
		json_put_str(out, strtab__str(&h->names, (uint32_t)i));
	}
	/* nodes 1.. in depth-first order: the step back to the parent, the name */
	fputs("],\n\"modules\":[", out);
	for (i = 0; i < h->mods.nr; i++) {
		if (i)
			fputc(',', out);
		json_put_str(out, strtab__str(&h->mods, (uint32_t)i));
	}
	fputs("],\"name_mod\":\"", out);
	for (i = 0; i < h->names.nr; i++)
		put_num(out, i < h->alloc_name_mod ? h->name_mod[i] : 0);
	fprintf(out, "\",\n\"nr_nodes\":%zu,\"tree\":\"", h->nr_nodes);
	for (i = 1; i < h->nr_nodes; i++) {
		uint32_t node = h->by_pre[i];

		put_num(out, i - h->pre[h->parent[node]]);
		put_num(out, h->name[node]);
	}
	fputs("\",\n\"idle\":\"", out);
	for (i = 1; i < h->nr_nodes; i++)
		if (h->idle_top[h->by_pre[i]])
			put_num(out, i);
	fprintf(out, "\",\n\"nr_stacks\":%zu,\"stacks\":\"", h->nr_stacks);
	for (i = 0; i < h->nr_stacks; i++)
		put_num(out, h->stack_node[i]);
	/*
	 * per row: ((bucket step * CPUs + CPU) * states + state) * 2 + (a
	 * count above one), then the count - 2 when above one, then the
	 * stack's rank, then (with states) the thread's number
	 */
	fprintf(out, "\",\n\"nr_rows\":%zu,\"rows\":\"", h->nr_rows);
	for (i = 0; i < h->nr_rows; i++) {
		const struct html_row *r = &h->rows[i];
		uint64_t head = (((uint64_t)(r->slot - prev) * h->cpu_stride + r->cpu) * h->nr_states +
				 r->state) * 2 + (r->count > 1);

		put_num(out, head);
		if (r->count > 1)
			put_num(out, r->count - 2);
		put_num(out, r->stack);
		if (h->nr_states > 1)
			put_num(out, r->thread);
		prev = r->slot;
	}
	fputs("\"}", out);
}

static int html_start(void **state, const struct report_ctx *rc)
{
	struct html_ctx *h = calloc(1, sizeof(*h));

	(void)rc;
	if (!h)
		return -ENOMEM;
	*state = h;
	h->edges = (struct u64map)U64MAP_INIT;
	h->thread_of = (struct u64map)U64MAP_INIT;
	h->cpu_stride = 1;
	h->nr_states = 1;
	h->names_of = (struct view_names)VIEW_NAMES_INIT;
	strtab__init(&h->names);
	strtab__init(&h->mods);
	h->parent = calloc(1, sizeof(*h->parent));
	h->name = calloc(1, sizeof(*h->name));
	h->idle_top = calloc(1, sizeof(*h->idle_top));
	h->sources_f = open_memstream(&h->sources, &h->sources_len);
	if (!h->parent || !h->name || !h->idle_top || !h->sources_f)
		return -ENOMEM;
	h->alloc_parent = h->alloc_name = h->alloc_idle = h->nr_nodes = 1;	/* the root */
	return 0;
}

static int html_write(void *state, const struct report_ctx *rc, FILE *out)
{
	struct html_ctx *h = state;
	int err;

	h->out = out;
	if (fclose(h->sources_f))
		err = -ENOMEM;
	else
		err = html__order(h) ?: html__check(h);
	h->sources_f = NULL;
	if (err)
		return err;
	/* no network: a page that tried to fetch anything would be a bug, and is refused */
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      "<title>eprof report</title>\n<style>\n", out);
	fputs(eprof_html_app_css, out);
	fputs("</style></head>\n<body>\n<script id=\"eprof-data\" type=\"application/json\">", out);
	put_data(h, rc);
	fputs("</script>\n<script>\n", out);
	fputs(eprof_html_diff_js, out);	/* the diff mode, which app.js calls */
	fputs("</script>\n<script>\n", out);
	fputs(eprof_html_app_js, out);
	fputs("</script>\n</body></html>\n", out);
	return view__check_stream(out);
}

static void html_free(void *state)
{
	struct html_ctx *h = state;

	if (!h)
		return;
	if (h->sources_f)
		fclose(h->sources_f);
	free(h->sources);
	free(h->rows);
	free(h->parent);
	free(h->name);
	free(h->idle_top);
	free(h->pre);
	free(h->by_pre);
	free(h->stack_node);
	strtab__release(&h->names);
	strtab__release(&h->mods);
	free(h->mod_of);
	free(h->name_mod);
	u64map__release(&h->edges);
	u64map__release(&h->thread_of);
	free(h->threads);
	view_names__release(&h->names_of);
	free(h);
}

const struct view_merge_ops view_html_merge = { html_start, html_add, html_write, html_free };

int view_html__write(const struct report_ctx *rc, FILE *out)
{
	return view__write_merged(&view_html_merge, rc, out);
}

/*
 * --diff BASE NEW --html: one page with both recordings on its time axis,
 * the base from its start, the new one from the whole second after a gap
 * of a second; diff.js makes them the first and second selections, so the
 * page opens in its diff mode (widths: new; colours: significant changes).
 */
int view_html_diff__write(const struct report_ctx *rc, FILE *out)
{
	const uint32_t per_sec = (uint32_t)(1000000000ull / VIEW_HTML_SLOT_NS);
	struct html_ctx *h = NULL;
	void *state = NULL;
	uint64_t next;
	int err, i;

	err = html_start(&state, rc);
	h = state;
	if (!h)
		return err;
	for (i = 0; i < 2 && !err; i++) {
		err = html_add(h, rc, &rc->srcs[i]);
		if (err)
			break;
		if (h->first_slot > h->last_slot)	/* no samples: an empty range at the offset */
			h->first_slot = h->last_slot = h->slot_offset;
		h->side[i].path = rc->srcs[i].path;
		h->side[i].from_ns = (uint64_t)h->first_slot * VIEW_HTML_SLOT_NS;
		h->side[i].to_ns = ((uint64_t)h->last_slot + 1) * VIEW_HTML_SLOT_NS;
		next = ((uint64_t)h->last_slot / per_sec + 2) * per_sec;
		if (next > VIEW_HTML_MAX_SLOTS) {
			pr_err("the two recordings span more than a day: the HTML report shows at most "
			       "a day (choose a window with --from/--to)");
			err = -E2BIG;
		}
		h->slot_offset = (uint32_t)next;
	}
	h->diff = true;
	if (!err)
		err = html_write(h, rc, out);
	html_free(h);
	return err;
}
