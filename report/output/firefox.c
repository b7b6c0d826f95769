// SPDX-License-Identifier: MIT
/*
 * report/output/firefox.c - `eprof report --firefox OUT`: the profile in
 * Firefox Profiler's processed profile format, the JSON its "Load a
 * profile from file" takes as it is (no conversion step).
 *
 * The format is documented by its TypeScript types (the profiler's
 * src/types/profile.ts, docs-developer/processed-profile-format.md and
 * CHANGELOG-formats.md); this writes version FF_PROCESSED_VERSION, which
 * the profiler loads and upgrades as any older file of its own. Its shape:
 *
 *   meta        interval (the sampling period, ms), startTime (epoch ms),
 *               categories (Other, User, Kernel, Off-CPU), the OffCPU
 *               marker schema, version / preprocessedProfileVersion
 *   shared      stringArray, funcTable (a function per name and binary,
 *               its binary the resource; a Python one "qualname_[py]" in
 *               its .py file, with its first line), frameTable (a frame per
 *               function and line: a Python function's lines are frames of
 *               one function, each with its line; a native frame's line
 *               where the debug info gave one),
 *               stackTable (frame, prefixOffset: the parent is i - offset,
 *               0 for a root; parents come first), resourceTable, and the
 *               empty nativeSymbols, sources, sourceLocationTable
 *   threads     a track per thread ("pid" a string, "tid" a number): its
 *               on-CPU samples (stack, time in ms from meta.startTime, in
 *               time order) and, for a recording made with --off-cpu, each
 *               off-CPU interval as an interval marker "Blocked" or
 *               "Runnable" (data: state, where it waited: the innermost
 *               user function, and the stack it left the CPU with as its
 *               cause)
 *
 * A stack is root first, below the thread (the track is the thread).
 * Samples are streamed from the recording a second time (stack_agg__walk,
 * the filters that built the aggregate) and held as 24 bytes each until
 * they are sorted; off-CPU sums (intervals below the recorder's threshold,
 * which have no times) are left out of the markers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/symbolize/symbolize.h"
#include "report/view.h"
#include "util/hashmap.h"
#include "util/json.h"
#include "util/vec.h"

/* Firefox Profiler's processed format version written, and its Gecko version. */
#define FF_PROCESSED_VERSION	70
#define FF_GECKO_VERSION	36

enum ff_category { FF_CAT_OTHER, FF_CAT_USER, FF_CAT_KERNEL, FF_CAT_OFFCPU };

struct ff_sample {
	double time;			/* ms from meta.startTime */
	uint32_t thread;
	uint32_t stack;
	uint64_t seq;			/* arrival: equal times keep it */
};

struct ff_marker {
	double start, end;
	uint32_t thread;
	uint32_t stack;
	uint32_t where;			/* a func */
	uint32_t state;			/* enum rec_offcpu_state */
	uint64_t seq;
};

struct ff_thread {
	char *name;			/* its latest comm */
	char *process;			/* its process's track name */
	char *pid;
	uint32_t tid;
	bool main;
	uint64_t nr_samples;
	uint32_t id;			/* the order it was made in */
};

struct ff_ctx {
	struct strtab strs;		/* stringArray */
	struct func_tab ft;		/* functions by name and binary */
	uint32_t *func_name;		/* func -> string */
	int32_t *func_res;		/* func -> resource */
	uint8_t *func_cat;		/* func -> enum ff_category */
	uint32_t *func_line;		/* func -> its first line (0: unknown) */
	size_t alloc_func;
	uint32_t nr_func;
	struct u64map frame_of;		/* func << 32 | line -> frame */
	uint32_t *frame_func, *frame_line;	/* frame -> func, line (0: unknown) */
	size_t nr_frames, alloc_frame_func, alloc_frame_line;
	struct strtab res;		/* binary -> resource */
	uint32_t *res_name;
	size_t alloc_res;
	struct u64map stack_of;		/* (prefix + 1) << 32 | frame -> stack */
	uint32_t *stack_frame;
	uint32_t *stack_prefix;		/* UINT32_MAX: a root */
	size_t nr_stacks, alloc_stacks, alloc_prefix;
	struct ff_sample *samples;
	size_t nr_samples, alloc_samples;
	struct ff_marker *markers;
	size_t nr_markers, alloc_markers;
	struct ff_thread *threads;
	size_t nr_threads, alloc_threads;
	/* the recording being added */
	const struct report_src *src;
	size_t src_idx;
	bool several;			/* more than one recording */
	struct u64map thread_of;	/* (tgid << 32 | tid) -> thread */
	uint32_t *entry_stack;		/* agg entry -> stack */
	uint32_t *entry_where;		/* agg entry -> func where it waited */
	double offset_ms;		/* its start from meta.startTime */
	uint64_t seq;
	/* the profile */
	uint64_t realtime0;		/* the first recording's start, epoch seconds */
	double interval_ms;
	double end_ms;
	char *product;
};

static int ff_start(void **state, const struct report_ctx *rc)
{
	struct ff_ctx *c = calloc(1, sizeof(*c));

	(void)rc;
	if (!c)
		return -ENOMEM;
	strtab__init(&c->strs);
	strtab__init(&c->res);
	func_tab__init(&c->ft);
	c->stack_of = (struct u64map)U64MAP_INIT;
	c->frame_of = (struct u64map)U64MAP_INIT;
	c->thread_of = (struct u64map)U64MAP_INIT;
	*state = c;
	return 0;
}

static int ff_string(struct ff_ctx *c, const char *s, uint32_t *id)
{
	return strtab__intern(&c->strs, s, id);
}

/* Grows the per-func columns to hold id (all four have c->alloc_func rows). */
static int ff_grow_funcs(struct ff_ctx *c, uint32_t id)
{
	size_t n = c->alloc_func;
	void *p;

	if (id < n)
		return 0;
	n = n ? n : 64;
	while (n <= id)
		n *= 2;
	p = realloc(c->func_name, n * sizeof(*c->func_name));
	if (!p)
		return -ENOMEM;
	c->func_name = p;
	p = realloc(c->func_res, n * sizeof(*c->func_res));
	if (!p)
		return -ENOMEM;
	c->func_res = p;
	p = realloc(c->func_cat, n * sizeof(*c->func_cat));
	if (!p)
		return -ENOMEM;
	c->func_cat = p;
	p = realloc(c->func_line, n * sizeof(*c->func_line));
	if (!p)
		return -ENOMEM;
	c->func_line = p;
	c->alloc_func = n;
	return 0;
}

/* The func of f, its columns made on first use. */
static int ff_func(struct ff_ctx *c, const struct sym_frame *f, uint32_t *out)
{
	bool kernel = f->flags & SYM_FRAME_KERNEL;
	uint32_t id, name, res;
	int err;

	err = func_tab__frame(&c->ft, f, &id);
	if (err)
		return err;
	*out = id;
	if (id < c->nr_func)
		return 0;
	err = ff_grow_funcs(c, id) ?:
	      ff_string(c, c->ft.name[id], &name) ?:
	      strtab__intern(&c->res, c->ft.binary[id], &res);
	if (err)
		return err;
	if (vec__grow(&c->res_name, &c->alloc_res, res + 1, sizeof(*c->res_name)))
		return -ENOMEM;
	err = ff_string(c, c->ft.binary[id], &c->res_name[res]);
	if (err)
		return err;
	c->func_name[id] = name;
	c->func_res[id] = (int32_t)res;
	c->func_cat[id] = strcmp(c->ft.name[id], "[unknown]") ? (kernel ? FF_CAT_KERNEL : FF_CAT_USER) :
			  FF_CAT_OTHER;
	c->func_line[id] = f->flags & SYM_FRAME_PYTHON ? f->func_line : 0;
	c->nr_func = id + 1;
	return 0;
}

/* The frame of f: its func at the line that ran (0: unknown), made on first use. */
static int ff_frame(struct ff_ctx *c, const struct sym_frame *f, uint32_t *out)
{
	uint32_t func;
	uint64_t *slot;
	bool added;
	int err;

	err = ff_func(c, f, &func) ?:
	      u64map__upsert(&c->frame_of, (uint64_t)func << 32 | f->src_line, c->nr_frames, &slot,
			     &added);
	if (err)
		return err;
	*out = (uint32_t)*slot;
	if (!added)
		return 0;
	if (vec__grow(&c->frame_func, &c->alloc_frame_func, c->nr_frames + 1, sizeof(*c->frame_func)) ||
	    vec__grow(&c->frame_line, &c->alloc_frame_line, c->nr_frames + 1, sizeof(*c->frame_line)))
		return -ENOMEM;
	c->frame_func[c->nr_frames] = func;
	c->frame_line[c->nr_frames++] = f->src_line;
	return 0;
}

/* The stack of frame under prefix (UINT32_MAX: a root), made on first use. */
static int ff_stack(struct ff_ctx *c, uint32_t prefix, uint32_t frame, uint32_t *out)
{
	uint64_t *slot;
	bool added;
	int err;

	err = u64map__upsert(&c->stack_of, ((uint64_t)prefix + 1) << 32 | frame, c->nr_stacks,
			     &slot, &added);
	if (err)
		return err;
	*out = (uint32_t)*slot;
	if (!added)
		return 0;
	if (vec__grow(&c->stack_frame, &c->alloc_stacks, c->nr_stacks + 1, sizeof(*c->stack_frame)))
		return -ENOMEM;
	if (vec__grow(&c->stack_prefix, &c->alloc_prefix, c->nr_stacks + 1, sizeof(*c->stack_prefix)))
		return -ENOMEM;
	c->stack_frame[c->nr_stacks] = frame;
	c->stack_prefix[c->nr_stacks] = prefix;
	c->nr_stacks++;
	return 0;
}

/* An entry's stack, root first, and where it waited (its innermost user function). */
static int ff_entry(struct ff_ctx *c, const struct agg_entry *e, uint32_t *stack, uint32_t *where)
{
	static const struct sym_frame unknown = { .name = "[unknown]" };
	const struct sym_stack *st = report_src__stack(c->src, e);
	uint32_t nk = st ? st->nr_kernel : 0, nu = st ? st->nr_user : 0, i, f, at = UINT32_MAX;
	int err;

	if (!nk && !nu) {
		err = ff_frame(c, &unknown, &f) ?: ff_stack(c, UINT32_MAX, f, stack);
		if (!err)
			*where = c->frame_func[f];
		return err;
	}
	for (i = nu; i-- > 0;) {
		err = ff_frame(c, sym_stack__frame(st, nk + i), &f) ?: ff_stack(c, at, f, &at);
		if (err)
			return err;
	}
	for (i = nk; i-- > 0;) {
		err = ff_frame(c, sym_stack__frame(st, i), &f) ?: ff_stack(c, at, f, &at);
		if (err)
			return err;
	}
	*stack = at;
	return ff_func(c, sym_stack__frame(st, nu ? nk : 0), where);
}

/* The track of thread (tgid, tid) of the recording being added, made on first use. */
static int ff_thread(struct ff_ctx *c, uint32_t tgid, uint32_t tid, const struct agg_entry *e,
		     uint32_t *out)
{
	const struct report_src *s = c->src;
	struct strbuf sb = STRBUF_INIT;
	struct ff_thread *t;
	uint64_t *slot;
	bool added;
	int err;

	err = u64map__upsert(&c->thread_of, (uint64_t)tgid << 32 | tid, c->nr_threads, &slot, &added);
	if (err)
		return err;
	*out = (uint32_t)*slot;
	if (!added) {
		t = &c->threads[*out];
		if (strcmp(t->name, stack_agg__comm(&s->agg, e->comm_id)) && e->comm_id) {
			/* the latest name it had: the walk goes forward in time, roughly */
			char *n = strdup(stack_agg__comm(&s->agg, e->comm_id));

			if (!n)
				return -ENOMEM;
			free(t->name);
			t->name = n;
		}
		return 0;
	}
	if (vec__grow(&c->threads, &c->alloc_threads, c->nr_threads + 1, sizeof(*c->threads)))
		return -ENOMEM;
	t = &c->threads[c->nr_threads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->main = tid == tgid;
	t->id = (uint32_t)c->nr_threads;
	strbuf_addf(&sb, "%" PRIu32, tgid);
	if (c->src_idx)
		strbuf_addf(&sb, ":%zu", c->src_idx);	/* pids of two recordings are two processes */
	t->pid = strbuf_detach(&sb);
	view__by_label(&sb, REPORT_BY_COMM, s, e);
	t->name = strbuf_detach(&sb);
	strbuf_addf(&sb, "pid %" PRIu32, tgid);
	if (c->several)
		strbuf_addf(&sb, " in %s", s->path);
	t->process = strbuf_detach(&sb);
	c->nr_threads++;
	if (!t->pid || !t->name || !t->process)
		return -ENOMEM;
	return 0;
}

static double ff_ms(const struct ff_ctx *c, uint64_t time_ns)
{
	const struct report_src *s = c->src;

	return c->offset_ms + (time_ns >= s->start_ns ? (double)(time_ns - s->start_ns) / 1e6 :
			       -(double)(s->start_ns - time_ns) / 1e6);
}

static int on_sample(void *ctx, const struct rec_sample *smp, const struct agg_entry *e)
{
	struct ff_ctx *c = ctx;
	uint32_t th;
	int err;

	if (!report_src__stack(c->src, e))
		return 0;	/* cut away whole */
	err = ff_thread(c, smp->tgid, smp->tid, e, &th);
	if (err)
		return err;
	if (vec__grow(&c->samples, &c->alloc_samples, c->nr_samples + 1, sizeof(*c->samples)))
		return -ENOMEM;
	c->samples[c->nr_samples++] = (struct ff_sample){ ff_ms(c, smp->time_ns), th,
		c->entry_stack[e - c->src->agg.entries], c->seq++ };
	c->threads[th].nr_samples++;
	return 0;
}

static int on_offcpu(void *ctx, const struct rec_offcpu *o, const struct agg_entry *e)
{
	struct ff_ctx *c = ctx;
	size_t k = (size_t)(e - c->src->agg.entries);
	uint32_t th;
	int err;

	if (!report_src__stack(c->src, e))
		return 0;	/* cut away whole */
	err = ff_thread(c, o->tgid, o->tid, e, &th);
	if (err)
		return err;
	if (vec__grow(&c->markers, &c->alloc_markers, c->nr_markers + 1, sizeof(*c->markers)))
		return -ENOMEM;
	c->markers[c->nr_markers++] = (struct ff_marker){ ff_ms(c, o->time_ns),
		ff_ms(c, o->time_ns + o->duration_ns), th, c->entry_stack[k], c->entry_where[k],
		o->state, c->seq++ };
	return 0;
}

static int ff_add(void *state, const struct report_ctx *rc, const struct report_src *s)
{
	struct ff_ctx *c = state;
	size_t k, n = s->agg.nr ? s->agg.nr : 1;
	double end;
	int err = 0;

	if (!c->src_idx && !c->product) {
		c->realtime0 = s->start_realtime;
		c->interval_ms = s->freq_hz ? 1000.0 / (double)s->freq_hz : 1.0;
		c->product = strdup(s->command && rc->nr_srcs == 1 ? s->command : "eprof");
		if (!c->product)
			return -ENOMEM;
	}
	c->src = s;
	c->several = rc->nr_srcs > 1;
	c->offset_ms = c->realtime0 && s->start_realtime ?
		       ((double)s->start_realtime - (double)c->realtime0) * 1000.0 : 0.0;
	c->entry_stack = calloc(n, sizeof(*c->entry_stack));
	c->entry_where = calloc(n, sizeof(*c->entry_where));
	if (!c->entry_stack || !c->entry_where)
		err = -ENOMEM;
	for (k = 0; k < s->agg.nr && !err; k++)
		if (report_src__kept(s, k))
			err = ff_entry(c, &s->agg.entries[k], &c->entry_stack[k], &c->entry_where[k]);
	if (!err)
		err = stack_agg__walk((struct stack_agg *)&s->agg, s->rec, &s->cfg, on_sample, c);
	if (!err)
		err = stack_agg__walk_offcpu((struct stack_agg *)&s->agg, s->rec, &s->cfg, on_offcpu, c);
	end = c->offset_ms + (s->end_ns > s->start_ns ? (double)(s->end_ns - s->start_ns) / 1e6 : 0);
	if (end > c->end_ms)
		c->end_ms = end;
	free(c->entry_stack);
	free(c->entry_where);
	c->entry_stack = c->entry_where = NULL;
	u64map__release(&c->thread_of);
	c->thread_of = (struct u64map)U64MAP_INIT;
	c->src_idx++;
	return err;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct ff_thread *x = a, *y = b;

	if (x->nr_samples != y->nr_samples)
		return x->nr_samples > y->nr_samples ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct ff_sample *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_marker(const void *a, const void *b)
{
	const struct ff_marker *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "[a,b,...]" of n unsigned values v(i). */
#define PUT_COLUMN(out, key, n, fmt, v)						\
	do {									\
		size_t i_;							\
		fputs("\"" key "\":[", out);					\
		for (i_ = 0; i_ < (n); i_++)					\
			fprintf(out, i_ ? "," fmt : fmt, v(i_));		\
		fputs("],", out);						\
	} while (0)

/* "[...]" of the n numbers v, the text zero in place of each 0 (and of all with v NULL). */
static void put_nums(FILE *out, const char *key, size_t n, const uint32_t *v, const char *zero)
{
	size_t i;

	fprintf(out, "\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		if (v && v[i])
			fprintf(out, "%" PRIu32, v[i]);
		else
			fputs(zero, out);
	}
	fputs("],", out);
}

/* "[x,x,...]" of n copies of the text x. */
static void put_repeat(FILE *out, const char *key, size_t n, const char *x)
{
	put_nums(out, key, n, NULL, x);
}

static void put_meta(const struct ff_ctx *c, FILE *out)
{
	fprintf(out, "{\"meta\":{\"version\":%d,\"preprocessedProfileVersion\":%d,"
		"\"interval\":%.6f,\"startTime\":%" PRIu64 ",\"profilingStartTime\":0,"
		"\"profilingEndTime\":%.6f,\"processType\":0,\"product\":",
		FF_GECKO_VERSION, FF_PROCESSED_VERSION, c->interval_ms, c->realtime0 * 1000,
		c->end_ms);
	json_put_str(out, c->product);
	fputs(",\"importedFrom\":\"eprof\",\"stackwalk\":1,\"debug\":false,\"symbolicated\":true,"
	      "\"symbolicationNotSupported\":true,\"usesOnlyOneStackType\":true,"
	      "\"sourceCodeIsNotOnSearchfox\":true,\"platform\":\"X11\",\"oscpu\":\"Linux\","
	      "\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\",\"threadCPUDelta\":\"ns\"},"
	      "\"initialSelectedThreads\":[0],\"keepProfileThreadOrder\":true,"
	      "\"categories\":["
	      "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
	      "{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
	      "{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":[\"Other\"]},"
	      "{\"name\":\"Off-CPU\",\"color\":\"blue\",\"subcategories\":[\"Other\"]}],"
	      "\"markerSchema\":[{\"name\":\"OffCPU\",\"tooltipLabel\":\"{marker.name} in "
	      "{marker.data.where}\",\"tableLabel\":\"{marker.data.where}\",\"chartLabel\":"
	      "\"{marker.data.where}\",\"display\":[\"marker-chart\",\"marker-table\","
	      "\"timeline-overview\"],\"description\":\"Time the thread spent off the CPU: "
	      "blocked (asleep: I/O, a lock, a timer) or runnable (preempted, waiting for a CPU), "
	      "recorded by eprof record --off-cpu.\",\"fields\":[{\"key\":\"state\",\"label\":"
	      "\"State\",\"format\":\"string\"},{\"key\":\"where\",\"label\":\"Waiting in\","
	      "\"format\":\"string\"}]}]},\"libs\":[],", out);
}

#define FUNC_NAME(i)	c->func_name[i]
#define FUNC_RES(i)	c->func_res[i]
#define FRAME_CAT(i)	(unsigned int)c->func_cat[c->frame_func[i]]
#define FRAME_FUNC(i)	c->frame_func[i]
#define STACK_FRAME(i)	c->stack_frame[i]
#define STACK_OFFSET(i)	(c->stack_prefix[i] == UINT32_MAX ? 0 : (uint32_t)(i) - c->stack_prefix[i])
#define RES_NAME(i)	c->res_name[i]

static void put_shared(const struct ff_ctx *c, FILE *out)
{
	uint32_t nr_res = c->res.nr;
	size_t i;

	fputs("\"shared\":{\"stringArray\":[", out);
	for (i = 0; i < c->strs.nr; i++) {
		if (i)
			fputc(',', out);
		json_put_str(out, strtab__str(&c->strs, (uint32_t)i));
	}
	fputs("],\n\"funcTable\":{", out);
	PUT_COLUMN(out, "name", c->nr_func, "%" PRIu32, FUNC_NAME);
	put_repeat(out, "isJS", c->nr_func, "false");
	put_repeat(out, "relevantForJS", c->nr_func, "false");
	PUT_COLUMN(out, "resource", c->nr_func, "%" PRId32, FUNC_RES);
	put_repeat(out, "source", c->nr_func, "null");
	put_nums(out, "lineNumber", c->nr_func, c->func_line, "null");
	put_repeat(out, "columnNumber", c->nr_func, "null");
	put_repeat(out, "originalLocation", c->nr_func, "null");
	fprintf(out, "\"length\":%" PRIu32 "},\n\"frameTable\":{", c->nr_func);
	put_repeat(out, "address", c->nr_frames, "-1");
	put_repeat(out, "lib", c->nr_frames, "-1");
	put_repeat(out, "inlineDepth", c->nr_frames, "0");
	PUT_COLUMN(out, "category", c->nr_frames, "%u", FRAME_CAT);
	put_repeat(out, "subcategory", c->nr_frames, "0");
	PUT_COLUMN(out, "func", c->nr_frames, "%" PRIu32, FRAME_FUNC);
	put_repeat(out, "nativeSymbol", c->nr_frames, "null");
	put_repeat(out, "innerWindowID", c->nr_frames, "0");
	put_nums(out, "line", c->nr_frames, c->frame_line, "null");
	put_repeat(out, "column", c->nr_frames, "null");
	put_repeat(out, "originalLocation", c->nr_frames, "null");
	fprintf(out, "\"length\":%zu},\n\"stackTable\":{", c->nr_frames);
	PUT_COLUMN(out, "frame", c->nr_stacks, "%" PRIu32, STACK_FRAME);
	PUT_COLUMN(out, "prefixOffset", c->nr_stacks, "%" PRIu32, STACK_OFFSET);
	fprintf(out, "\"length\":%zu},\n\"resourceTable\":{", c->nr_stacks);
	PUT_COLUMN(out, "name", nr_res, "%" PRIu32, RES_NAME);
	put_repeat(out, "host", nr_res, "null");
	put_repeat(out, "type", nr_res, "1");
	fprintf(out, "\"length\":%" PRIu32 "},\n", nr_res);
	fputs("\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],\"functionSize\":[],"
	      "\"length\":0},\"sources\":{\"id\":[],\"filename\":[],\"startLine\":[],"
	      "\"startColumn\":[],\"sourceMapURL\":[],\"content\":[],\"length\":0},"
	      "\"sourceLocationTable\":{\"source\":[],\"line\":[],\"column\":[],\"length\":0}},\n", out);
}

static const char *const state_name[] = { "Blocked", "Runnable" };
static const char *const state_key[] = { "blocked", "runnable" };

static void put_thread(const struct ff_ctx *c, FILE *out, uint32_t th, const struct ff_sample *smp,
		       size_t nr_smp, const struct ff_marker *mk, size_t nr_mk, const uint32_t *names)
{
	const struct ff_thread *t = &c->threads[th];
	size_t i;

	fputs(th ? ",\n{" : "\n{", out);
	fputs("\"processType\":\"default\",\"processStartupTime\":0,\"processShutdownTime\":null,"
	      "\"registerTime\":0,\"unregisterTime\":null,\"pausedRanges\":[],\"name\":", out);
	json_put_str(out, t->name);
	fprintf(out, ",\"isMainThread\":%s,\"processName\":", t->main ? "true" : "false");
	json_put_str(out, t->process);
	fputs(",\"pid\":", out);
	json_put_str(out, t->pid);
	fprintf(out, ",\"tid\":%" PRIu32 ",\"samples\":{\"weight\":null,\"weightType\":\"samples\",",
		t->tid);
#define SMP_STACK(i)	smp[i].stack
#define SMP_TIME(i)	smp[i].time
	PUT_COLUMN(out, "stack", nr_smp, "%" PRIu32, SMP_STACK);
	PUT_COLUMN(out, "time", nr_smp, "%.6f", SMP_TIME);
	fprintf(out, "\"length\":%zu},\"markers\":{\"data\":[", nr_smp);
	for (i = 0; i < nr_mk; i++) {
		fprintf(out, "%s{\"type\":\"OffCPU\",\"state\":\"%s\",\"where\":", i ? "," : "",
			state_key[mk[i].state & 1]);
		json_put_str(out, c->ft.name[mk[i].where]);
		fprintf(out, ",\"cause\":{\"tid\":%" PRIu32 ",\"time\":%.6f,\"stack\":%" PRIu32 "}}",
			t->tid, mk[i].start, mk[i].stack);
	}
	fputs("],", out);
#define MK_NAME(i)	names[mk[i].state & 1]
#define MK_START(i)	mk[i].start
#define MK_END(i)	mk[i].end
#define MK_ONE(i)	1
#define MK_CAT(i)	FF_CAT_OFFCPU
	PUT_COLUMN(out, "name", nr_mk, "%" PRIu32, MK_NAME);
	PUT_COLUMN(out, "startTime", nr_mk, "%.6f", MK_START);
	PUT_COLUMN(out, "endTime", nr_mk, "%.6f", MK_END);
	PUT_COLUMN(out, "phase", nr_mk, "%d", MK_ONE);
	PUT_COLUMN(out, "category", nr_mk, "%d", MK_CAT);
	fprintf(out, "\"length\":%zu}}", nr_mk);
}

static int ff_write(void *state, const struct report_ctx *rc, FILE *out)
{
	struct ff_ctx *c = state;
	uint32_t names[2], *rank, th;
	size_t i, k = 0, m = 0;
	int err = 0;

	(void)rc;
	for (i = 0; i < 2 && !err; i++)
		err = ff_string(c, state_name[i], &names[i]);
	if (err)
		return err;
	/* the busiest thread first: the profiler opens on initialSelectedThreads */
	rank = calloc(c->nr_threads ? c->nr_threads : 1, sizeof(*rank));
	if (!rank)
		return -ENOMEM;
	qsort(c->threads, c->nr_threads, sizeof(*c->threads), cmp_thread);
	for (i = 0; i < c->nr_threads; i++)
		rank[c->threads[i].id] = (uint32_t)i;
	for (i = 0; i < c->nr_samples; i++)
		c->samples[i].thread = rank[c->samples[i].thread];
	for (i = 0; i < c->nr_markers; i++)
		c->markers[i].thread = rank[c->markers[i].thread];
	free(rank);
	qsort(c->samples, c->nr_samples, sizeof(*c->samples), cmp_sample);
	qsort(c->markers, c->nr_markers, sizeof(*c->markers), cmp_marker);
	put_meta(c, out);
	put_shared(c, out);
	fputs("\"threads\":[", out);
	for (th = 0; th < c->nr_threads; th++) {
		size_t k0 = k, m0 = m;

		while (k < c->nr_samples && c->samples[k].thread == th)
			k++;
		while (m < c->nr_markers && c->markers[m].thread == th)
			m++;
		put_thread(c, out, th, c->samples + k0, k - k0, c->markers + m0, m - m0, names);
	}
	fputs("]}\n", out);
	return view__check_stream(out);
}

static void ff_free(void *state)
{
	struct ff_ctx *c = state;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_threads; i++) {
		free(c->threads[i].name);
		free(c->threads[i].process);
		free(c->threads[i].pid);
	}
	free(c->threads);
	free(c->samples);
	free(c->markers);
	free(c->stack_frame);
	free(c->stack_prefix);
	u64map__release(&c->stack_of);
	u64map__release(&c->thread_of);
	free(c->func_name);
	free(c->func_res);
	free(c->func_cat);
	free(c->func_line);
	free(c->frame_func);
	free(c->frame_line);
	u64map__release(&c->frame_of);
	free(c->res_name);
	free(c->entry_stack);
	free(c->entry_where);
	free(c->product);
	strtab__release(&c->res);
	strtab__release(&c->strs);
	func_tab__release(&c->ft);
	free(c);
}

const struct view_merge_ops view_firefox_merge = { ff_start, ff_add, ff_write, ff_free };

int view_firefox__write(const struct report_ctx *rc, FILE *out)
{
	return view__write_merged(&view_firefox_merge, rc, out);
}
