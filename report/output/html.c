// SPDX-License-Identifier: MIT
/*
 * report/output/html.c - `eprof report --html OUT`: one self-contained page
 * (heat map, per-CPU strips, flame graph, top table, diff of two ranges).
 *
 * The page needs no server and fetches nothing: its style and script
 * (report/output/html/app.css, app.js, compiled in at build time) and its data are
 * all inline, so it works from file:// and under a Content-Security-Policy
 * that forbids every network access. The data is a JSON object in a
 * <script type="application/json"> element, which the browser never runs,
 * and the arrays it describes, as one zlib stream in base64 in the
 * elements after it (html_bin, bin__write: the page inflates it with the
 * browser's own DecompressionStream into typed arrays, no parsing of
 * numbers), those of the first view before the page's script, the rows
 * (another stream) after it:
 *
 *   names   the frame names, each once (the string table): their UTF-8
 *           text, NUL-separated (bin__put_names)
 *   tree_depth, tree_name
 *           every stack is a path from the root (the comm) of one tree;
 *           its nodes in depth-first order, children by name (as drawn),
 *           each as its depth (the root's 0: a node's parent is the last
 *           node before it one level up) and, from node 1, its name id
 *   stacks  the node each distinct stack ends at, the most sampled first
 *           (small numbers are short, and compress well)
 *   rows_*  one row per (time bucket, CPU, state, stack), sorted by time:
 *           the bucket as a step from the previous row's (the first from
 *           origin_ns, the whole second before the first sample), the CPU,
 *           the state (with states), the count, the stack's number, the
 *           thread's (with states)
 *   self_S  per state S, each stack's count over the whole recording,
 *           which is the own count of the node it ends at (the first view,
 *           of everything, is drawn from them before any row is read)
 *   idle    the nodes (depth first) at the top of the idle task's stacks
 *           (pid 0, one per CPU under -a): the page leaves what is under
 *           them out of the flame graph and counts it as idle in the heat
 *           map and strips, whose shade is then the busy share
 *   states  (JSON) only for recordings with off-CPU time: on-CPU rows count
 *           samples, blocked and runnable ones ns; the page weighs them
 *           into on-CPU, off-CPU or wall views (period_ns: a sample's time)
 *   modules (JSON) the binaries (paths; kernel modules; [kernel.kallsyms])
 *           the frames came from, and name_mod, per name the module's
 *           number + 1 (0: none, as the comm): a function name found in
 *           two binaries is two names, one in each
 *   threads (JSON) only with states: [tid, pid, name id] of each thread
 *           (the page's per-thread lanes)
 *
 * An array is n numbers in the fewest bytes its largest needs (1 to 7),
 * written as byte planes: the low byte of every number, then the next
 * byte of every number... The high planes of small numbers are runs of
 * zeros, and the low ones repeat: deflated, a million rows of a busy
 * machine take some 1.5 bytes each (base32 text took 3.5).
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

#include <zlib.h>

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
	struct strtab strs;		/* the names' text */
	struct u64map name_of;		/* text's id << 32 | module's id + 1 -> name */
	uint32_t *name_str;		/* per name: its text's id */
	size_t nr_names, alloc_name_str;
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
	const char *last_mod;		/* a cache of the last module interned */
	uint32_t last_mid;
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

/* The arrays of the page (see the top of this file), before deflating. */
#define HTML_BIN_MAX	16
struct html_bin {
	uint8_t *buf;
	size_t len, alloc;
	struct { const char *name; size_t n; unsigned width; } arr[HTML_BIN_MAX];
	size_t nr;
	uint64_t *scratch;		/* one array's numbers */
	size_t alloc_scratch;
};

/* b->scratch of n numbers, to fill and pass to bin__put() */
static uint64_t *bin__scratch(struct html_bin *b, size_t n)
{
	if (vec__grow(&b->scratch, &b->alloc_scratch, n ? n : 1, sizeof(*b->scratch)))
		return NULL;
	return b->scratch;
}

/* The n numbers v (each < 2^53) as the array name, in byte planes. */
static int bin__put(struct html_bin *b, const char *name, const uint64_t *v, size_t n)
{
	uint64_t max = 0;
	unsigned w = 1, k;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	while (w < 8 && max >> (8 * w))
		w++;
	if (b->nr == HTML_BIN_MAX || n > SIZE_MAX / 8 - b->len)
		return -E2BIG;
	if (vec__grow(&b->buf, &b->alloc, b->len + n * w ? b->len + n * w : 1, 1))
		return -ENOMEM;
	for (k = 0; k < w; k++)
		for (i = 0; i < n; i++)
			b->buf[b->len++] = (uint8_t)(v[i] >> (8 * k));
	b->arr[b->nr].name = name;
	b->arr[b->nr].n = n;
	b->arr[b->nr++].width = w;
	return 0;
}

/*
 * The frame names as the array "names": each name's text in UTF-8, a NUL
 * after each but the last (a name holds no NUL), which the page decodes
 * with TextDecoder and splits. As json_put_str() writes them: every byte
 * of an ill-formed sequence is U+FFFD, so the page reads the same text.
 * Inside the deflated arrays the names take some a fifth of their size as
 * JSON text, and the page parses no JSON for them.
 */
static int bin__put_names(struct html_bin *b, const struct strtab *strs, const uint32_t *name_str,
			  size_t nr)
{
	static const unsigned char fffd[3] = { 0xef, 0xbf, 0xbd };
	size_t i, start = b->len;

	if (b->nr == HTML_BIN_MAX)
		return -E2BIG;
	for (i = 0; i < nr; i++) {
		const unsigned char *p = (const unsigned char *)strtab__str(strs, name_str[i]);
		size_t len = strlen((const char *)p), need = 3 * len + 1, k;

		if (need > SIZE_MAX - b->len || vec__grow(&b->buf, &b->alloc, b->len + need, 1))
			return -ENOMEM;
		if (i)
			b->buf[b->len++] = 0;
		while (len) {
			k = utf8_seq_len(p, len);
			if (k) {
				memcpy(b->buf + b->len, p, k);
				b->len += k;
			} else {
				memcpy(b->buf + b->len, fffd, sizeof(fffd));
				b->len += sizeof(fffd);
				k = 1;
			}
			p += k;
			len -= k;
		}
	}
	b->arr[b->nr].name = "names";
	b->arr[b->nr].n = b->len - start;
	b->arr[b->nr++].width = 1;
	return 0;
}

/* "KEY":{"NAME":[N,WIDTH],...},"KEY_bytes":LEN, */
static void bin__put_layout(FILE *out, const char *key, const struct html_bin *b)
{
	size_t i;

	fprintf(out, "\"%s\":{", key);
	for (i = 0; i < b->nr; i++)
		fprintf(out, "%s\"%s\":[%zu,%u]", i ? "," : "", b->arr[i].name, b->arr[i].n,
			b->arr[i].width);
	fprintf(out, "},\"%s_bytes\":%zu,", key, b->len);
}

/* Base64 characters in one element of bin__write() (a multiple of 4). */
#define HTML_B64_PIECE	65536

/*
 * The arrays, deflated (zlib's format, which the browser's
 * DecompressionStream("deflate") reads) and in base64 (RFC 4648), as
 * <script> elements of class cls, each of HTML_B64_PIECE characters but
 * the last: the browser parses a page of pieces faster than one element
 * of it all, and may run the page's script between them, so that the
 * rows after it hold up neither the inflation of the first view's arrays
 * nor its drawing (one element of 1.3 MB: some 25 ms more here before the
 * first view's arrays were in). Each piece is base64 of its own.
 */
static int bin__write(const struct html_bin *b, const char *cls, FILE *out)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uLongf zlen = compressBound(b->len);
	unsigned char *z = malloc(zlen ? zlen : 1);
	size_t i;

	if (!z)
		return -ENOMEM;
	if (compress2(z, &zlen, b->buf, b->len, Z_BEST_COMPRESSION) != Z_OK) {
		free(z);
		return -ENOMEM;
	}
	for (i = 0; i < zlen; i += 3) {	/* zlib writes some bytes, always */
		uint32_t v = (uint32_t)z[i] << 16 | (i + 1 < zlen ? (uint32_t)z[i + 1] << 8 : 0) |
			     (i + 2 < zlen ? z[i + 2] : 0);
		char q[4] = { b64[v >> 18], b64[v >> 12 & 63], i + 1 < zlen ? b64[v >> 6 & 63] : '=',
			      i + 2 < zlen ? b64[v & 63] : '=' };

		if (i % (HTML_B64_PIECE / 4 * 3) == 0)
			fprintf(out, "%s<script class=\"%s\" type=\"application/octet-stream\">",
				i ? "</script>\n" : "", cls);
		fwrite(q, 1, 4, out);
	}
	fputs("</script>\n", out);
	free(z);
	return 0;
}

static void bin__release(struct html_bin *b)
{
	free(b->buf);
	free(b->scratch);
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
 * The page's name of the text str in module mod (NULL: none, as the comm):
 * a function of one name in two binaries is two names, each with its
 * module, so that the tables list both (and each with the right module).
 */
static int html__name(struct html_ctx *h, const char *str, const char *mod, uint32_t *out)
{
	uint32_t sid, mid = 0;
	uint64_t *slot;
	bool added;
	int err;

	err = strtab__intern(&h->strs, str, &sid);
	if (!err && mod) {
		if (mod != h->last_mod) {	/* a stack's frames are mostly of one module or two */
			err = strtab__intern(&h->mods, mod, &h->last_mid);
			h->last_mod = err ? NULL : mod;
		}
		mid = h->last_mid + 1;
	}
	if (!err)
		err = u64map__upsert(&h->name_of, (uint64_t)sid << 32 | mid, h->nr_names, &slot, &added);
	if (err)
		return err;
	if (added) {
		if (vec__grow(&h->name_str, &h->alloc_name_str, h->nr_names + 1, sizeof(*h->name_str)) ||
		    vec__grow(&h->name_mod, &h->alloc_name_mod, h->nr_names + 1, sizeof(*h->name_mod)))
			return -ENOMEM;
		h->name_str[h->nr_names] = sid;
		h->name_mod[h->nr_names++] = mid;
	}
	*out = (uint32_t)*slot;
	return 0;
}

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

		err = html__name(h, v->names[i], h->mod_of[i], &nid) ?:
		      u64map__upsert(&h->edges, from << 32 | nid, h->nr_nodes, &slot, &added);
		if (err)
			return err;
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

	nref = calloc(h->nr_names ? h->nr_names : 1, sizeof(*nref));
	rank = calloc(h->nr_names ? h->nr_names : 1, sizeof(*rank));
	nk = calloc(n, sizeof(*nk));
	first = calloc(n + 1, sizeof(*first));
	todo = calloc(n, sizeof(*todo));
	h->pre = calloc(n, sizeof(*h->pre));
	h->by_pre = calloc(n, sizeof(*h->by_pre));
	if (!nref || !rank || !nk || !first || !todo || !h->pre || !h->by_pre)
		goto out;
	for (i = 0; i < h->nr_names; i++)
		nref[i] = (struct name_ref){ strtab__str(&h->strs, h->name_str[i]), (uint32_t)i };
	qsort(nref, h->nr_names, sizeof(*nref), cmp_name_ref);
	for (i = 0; i < h->nr_names; i++)
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
 * Numbers the page could not hold exactly: counts from 2^53 (JavaScript
 * numbers), CPUs from 2^31 (its typed arrays); only a damaged file has
 * them (CPU numbers near 2^32 without a CPU count to refuse them).
 */
static int html__check(const struct html_ctx *h)
{
	size_t i;

	if (h->cpu_stride > INT32_MAX)
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
	err = html__name(h, comm[0] ? comm : "[unknown]", NULL, &h->threads[h->nr_threads].name);
	*out = (uint32_t)h->nr_threads++;
	return err;
}

/*
 * The module of each of entry e's names (view_names__build()'s order: the
 * --by and comm levels, then the user frames root first, then the kernel
 * ones): the mapping's path, the kernel module, [kernel.kallsyms].
 */
static int html__modules(struct html_ctx *h, const struct sym_stack *st)
{
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
			/* pipeline.c's [runnable] leaf is no kernel frame: no module */
			h->mod_of[i] = f->dso ? f->dso : f->flags & SYM_FRAME_KERNEL ? "[kernel.kallsyms]" : NULL;
		}
	}
	return 0;
}

/* Every non-empty entry of s as a row, and what s says about itself. */
static int html_add(void *state, const struct report_ctx *rc, const struct report_src *s)
{
	struct html_ctx *h = state;
	const struct agg_entry *e;
	size_t k = 0;
	int err = 0;

	h->first_slot = UINT32_MAX;
	h->last_slot = 0;
	if (s->cfg.key_state)	/* the pipeline kept the off-CPU states apart */
		h->nr_states = AGG_RUNNABLE + 1;
	if (vec__grow(&h->rows, &h->alloc_rows, h->nr_rows + s->agg.nr, sizeof(*h->rows)))
		return -ENOMEM;
	while (!err && (e = report_src__next(s, &k))) {
		struct html_row *r = &h->rows[h->nr_rows];

		err = view_names__build(&h->names_of, rc, s, e) ?:
		      html__modules(h, report_src__stack(s, e));
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

/*
 * The page's arrays: in b what its first view needs (the tree, idle tops,
 * stacks, name modules, the sums of everything), in rb the rows, which the
 * page inflates while it draws that view.
 */
static int html__arrays(struct html_ctx *h, struct html_bin *b, struct html_bin *rb)
{
	size_t n = h->nr_nodes ? h->nr_nodes - 1 : 0, i, k;
	uint64_t *v;
	uint32_t prev = 0;
	int err;

	/*
	 * the nodes in depth-first order: the depth of each (a parent comes
	 * before its children), then the name of nodes 1..
	 */
	if (!(v = bin__scratch(b, h->nr_nodes)))
		return -ENOMEM;
	v[0] = 0;
	for (i = 1; i < h->nr_nodes; i++)
		v[i] = v[h->pre[h->parent[h->by_pre[i]]]] + 1;
	err = bin__put(b, "tree_depth", v, h->nr_nodes);
	for (i = 1; i < h->nr_nodes; i++)
		v[i - 1] = h->name[h->by_pre[i]];
	err = err ?: bin__put(b, "tree_name", v, n);
	for (i = 1, k = 0; i < h->nr_nodes; i++)
		if (h->idle_top[h->by_pre[i]])
			v[k++] = i;
	err = err ?: bin__put(b, "idle", v, k);
	if (err || !(v = bin__scratch(b, h->nr_stacks)))
		return err ?: -ENOMEM;
	for (i = 0; i < h->nr_stacks; i++)
		v[i] = h->stack_node[i];
	err = bin__put(b, "stacks", v, h->nr_stacks);
	if (err || !(v = bin__scratch(b, h->nr_names)))
		return err ?: -ENOMEM;
	for (i = 0; i < h->nr_names; i++)
		v[i] = h->name_mod[i];
	err = bin__put(b, "name_mod", v, h->nr_names) ?:
	      bin__put_names(b, &h->strs, h->name_str, h->nr_names);
	/*
	 * per state, each stack's count over the whole recording (a node's own
	 * count is its stack's): the first view needs no row
	 */
	for (k = 0; k < h->nr_states && !err; k++) {
		static const char *const self[] = { "self_0", "self_1", "self_2" };

		if (!(v = bin__scratch(b, h->nr_stacks)))
			return -ENOMEM;
		memset(v, 0, h->nr_stacks * sizeof(*v));
		for (i = 0; i < h->nr_rows; i++) {
			uint64_t *c = &v[h->rows[i].stack];

			if (h->rows[i].state != k)
				continue;
			if (h->rows[i].count >= HTML_MAX_NUMBER - *c)	/* both below 2^53 (html__check) */
				return -EOVERFLOW;
			*c += h->rows[i].count;
		}
		err = bin__put(b, self[k], v, h->nr_stacks);
	}
	if (err || !(v = bin__scratch(b, h->nr_rows)))
		return err ?: -ENOMEM;
	for (i = 0; i < h->nr_rows; i++) {
		v[i] = h->rows[i].slot - prev;
		prev = h->rows[i].slot;
	}
	err = bin__put(rb, "rows_step", v, h->nr_rows);
#define HTML_COLUMN(NAME, EXPR)						\
	for (i = 0; i < h->nr_rows && !err; i++)			\
		v[i] = (EXPR);						\
	err = err ?: bin__put(rb, NAME, v, h->nr_rows)
	HTML_COLUMN("rows_cpu", h->rows[i].cpu);
	HTML_COLUMN("rows_count", h->rows[i].count);
	HTML_COLUMN("rows_stack", h->rows[i].stack);
	if (h->nr_states > 1) {
		HTML_COLUMN("rows_state", h->rows[i].state);
		HTML_COLUMN("rows_thread", h->rows[i].thread);
	}
#undef HTML_COLUMN
	return err;
}

static void put_data(struct html_ctx *h, const struct report_ctx *rc, const struct html_bin b[2])
{
	FILE *out = h->out;
	const struct report_opts *o = rc->opts;
	size_t i;

	fprintf(out, "{\"version\":3,\"slot_ns\":%llu,\"label_depth\":%d,\"total\":%" PRIu64
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
	fprintf(out, "\n\"nr_names\":%zu,\"modules\":[", h->nr_names);
	for (i = 0; i < h->mods.nr; i++) {
		if (i)
			fputc(',', out);
		json_put_str(out, strtab__str(&h->mods, (uint32_t)i));
	}
	fputs("],\n", out);
	bin__put_layout(out, "arrays", &b[0]);
	bin__put_layout(out, "rows", &b[1]);
	fprintf(out, "\"nr_nodes\":%zu,\"nr_stacks\":%zu,\"nr_rows\":%zu,\"last_slot\":%" PRIu32 "}",
		h->nr_nodes, h->nr_stacks, h->nr_rows, h->nr_rows ? h->rows[h->nr_rows - 1].slot : 0);
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
	h->name_of = (struct u64map)U64MAP_INIT;
	strtab__init(&h->strs);
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
	struct html_bin bin[2] = { { 0 }, { 0 } };
	int err;

	h->out = out;
	if (fclose(h->sources_f))
		err = -ENOMEM;
	else
		err = html__order(h) ?: html__check(h) ?: html__arrays(h, &bin[0], &bin[1]);
	h->sources_f = NULL;
	if (err) {
		bin__release(&bin[0]);
		bin__release(&bin[1]);
		return err;
	}
	/* no network: a page that tried to fetch anything would be a bug, and is refused */
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      "<title>eprof report</title>\n<style>\n", out);
	fputs(eprof_html_app_css, out);
	fputs("</style></head>\n<body>\n<script id=\"eprof-data\" type=\"application/json\">", out);
	put_data(h, rc, bin);
	fputs("</script>\n", out);
	err = bin__write(&bin[0], "eprof-arrays", out);
	if (!err) {
		fputs("<script>\n", out);
		fputs(eprof_html_diff_js, out);	/* the diff mode, which app.js calls */
		fputs("</script>\n<script>\n", out);
		fputs(eprof_html_app_js, out);
		/* the rows last: the browser reads them while the page draws its first view */
		fputs("</script>\n", out);
		err = bin__write(&bin[1], "eprof-rows", out);
	}
	bin__release(&bin[0]);
	bin__release(&bin[1]);
	if (err)
		return err;
	fputs("</body></html>\n", out);
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
	strtab__release(&h->strs);
	u64map__release(&h->name_of);
	free(h->name_str);
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
