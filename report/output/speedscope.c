// SPDX-License-Identifier: MIT
/*
 * report/output/speedscope.c - `eprof report --speedscope OUT`: the
 * profile in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), for speedscope
 * and the viewers that read it.
 *
 * One "sampled" profile per thread (per recording with several -i), named
 * "COMM (pid P, tid T)"; every profile's samples index one shared frame
 * table, a name each. A sample is a distinct stack of the aggregate, root
 * first, below the thread (no comm frame: the profile is the thread), and
 * its weight is its count: samples, or ns with --off-cpu and --wall
 * (unit "nanoseconds"). Samples go in the order of their stack's last
 * sample, so speedscope's time-ordered view follows the recording roughly;
 * its left-heavy and sandwich views do not depend on the order.
 *
 * A Python function is one frame, "qualname_[py]" with its .py file and
 * first line, whatever line ran: speedscope tells frames apart by their
 * entry, so a frame per line would list a function once per line in the
 * sandwich view (the Firefox export and pprof keep the lines).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/hashmap.h"
#include "util/vec.h"
#include "report/view.h"

/* One sample: a run of frame ids in ss_ctx.frames. */
struct ss_sample {
	uint64_t last_ns;
	uint64_t weight;
	size_t first;			/* in ss_ctx.frames */
	uint32_t nr;
	uint32_t profile;
};

struct ss_profile {
	char *name;
	uint64_t total;
	uint32_t id;			/* the order it was made in */
};

/* A Python frame's function: display name, file and first line (0: unknown). */
struct ss_py {
	const char *name;		/* NULL: a native frame, its name is the key */
	const char *file;
	uint32_t line;
};

struct ss_ctx {
	struct strtab names;		/* frame key -> id (the shared frames) */
	struct func_tab py_funcs;	/* Python functions: their names and files */
	struct ss_py *py;		/* frame id -> its function (Python frames) */
	size_t alloc_py;
	struct strbuf key;		/* scratch */
	uint32_t *frames;
	size_t nr_frames, alloc_frames;
	struct ss_sample *samples;
	size_t nr_samples, alloc_samples;
	struct ss_profile *profiles;
	size_t nr_profiles, alloc_profiles;
	struct view_names names_of;	/* scratch */
	size_t nr_srcs;
	char *title;			/* the first recording's command */
};

static int ss_start(void **state, const struct report_ctx *rc)
{
	struct ss_ctx *c = calloc(1, sizeof(*c));

	(void)rc;
	if (!c)
		return -ENOMEM;
	strtab__init(&c->names);
	func_tab__init(&c->py_funcs);
	c->key = (struct strbuf)STRBUF_INIT;
	c->names_of = (struct view_names)VIEW_NAMES_INIT;
	*state = c;
	return 0;
}

/* The profile of thread (tgid, tid) of this recording, made on first use. */
static int ss_profile(struct ss_ctx *c, struct u64map *threads, const struct report_ctx *rc,
		      const struct report_src *s, const struct agg_entry *e, uint32_t *out)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t *slot;
	bool added;
	int err;

	err = u64map__upsert(threads, (uint64_t)e->tgid << 32 | e->tid, c->nr_profiles, &slot, &added);
	if (err)
		return err;
	*out = (uint32_t)*slot;
	if (!added)
		return 0;
	if (vec__grow(&c->profiles, &c->alloc_profiles, c->nr_profiles + 1, sizeof(*c->profiles)))
		return -ENOMEM;
	view__by_label(&sb, REPORT_BY_COMM, s, e);
	strbuf_addf(&sb, " (pid %" PRIu32 ", tid %" PRIu32 ")", e->tgid, e->tid);
	if (rc->nr_srcs > 1)
		strbuf_addf(&sb, " in %s", s->path);
	if (sb.oom) {
		strbuf_release(&sb);
		return -ENOMEM;
	}
	c->profiles[c->nr_profiles++] = (struct ss_profile){ strbuf_detach(&sb), 0, 0 };
	return 0;
}

/*
 * The frame id of name i of c->names_of (skip: the levels before the
 * frames) for entry e's stack: a native frame by its name, a Python one
 * by its function ("\x01" keeps the two kinds of key apart).
 */
static int ss_frame(struct ss_ctx *c, const struct sym_stack *st, size_t i, size_t skip,
		    uint32_t *id)
{
	size_t nu = st ? st->nr_user : 0, k = i - skip;
	const struct sym_frame *f = NULL;
	uint32_t fn;
	int err;

	if (st && k < nu)
		f = sym_stack__frame(st, st->nr_kernel + (nu - 1 - k));
	if (!f || !(f->flags & SYM_FRAME_PYTHON) || !f->func || !f->func[0])
		return strtab__intern(&c->names, c->names_of.names[i], id);
	err = func_tab__frame(&c->py_funcs, f, &fn);
	if (err)
		return err;
	strbuf_reset(&c->key);
	strbuf_addf(&c->key, "\x01%" PRIu32, fn);
	if (c->key.oom)
		return -ENOMEM;
	err = strtab__intern(&c->names, c->key.buf, id);
	if (err || vec__grow_zero(&c->py, &c->alloc_py, (size_t)*id + 1, sizeof(*c->py)))
		return err ? err : -ENOMEM;
	c->py[*id] = (struct ss_py){ c->py_funcs.name[fn], c->py_funcs.binary[fn], f->func_line };
	return 0;
}

static int ss_add(void *state, const struct report_ctx *rc, const struct report_src *s)
{
	struct ss_ctx *c = state;
	struct u64map threads = U64MAP_INIT;
	size_t skip = report_by__level(rc->opts->by) ? 2 : 1;	/* the --by level, the comm */
	const struct agg_entry *e;
	size_t k = 0, i;
	int err = 0;

	while (!err && (e = report_src__next(s, &k))) {
		struct ss_sample *smp;
		uint32_t prof, id;

		err = view_names__build(&c->names_of, rc, s, e) ?:
		      ss_profile(c, &threads, rc, s, e, &prof);
		if (err)
			break;
		if (vec__grow(&c->samples, &c->alloc_samples, c->nr_samples + 1, sizeof(*c->samples)) ||
		    vec__grow(&c->frames, &c->alloc_frames, c->nr_frames + c->names_of.nr,
			      sizeof(*c->frames))) {
			err = -ENOMEM;
			break;
		}
		smp = &c->samples[c->nr_samples++];
		*smp = (struct ss_sample){ e->last_ns, e->count, c->nr_frames, 0, prof };
		for (i = skip; i < c->names_of.nr && !err; i++) {
			err = ss_frame(c, report_src__stack(s, e), i, skip, &id);
			c->frames[c->nr_frames++] = id;
			smp->nr++;
		}
		c->profiles[prof].total += e->count;
	}
	u64map__release(&threads);
	if (!c->nr_srcs++ && s->command && !err)
		err = (c->title = strdup(s->command)) ? 0 : -ENOMEM;
	return err;
}

static int cmp_profile(const void *a, const void *b)
{
	const struct ss_profile *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct ss_sample *x = a, *y = b;

	if (x->profile != y->profile)
		return x->profile < y->profile ? -1 : 1;
	if (x->last_ns != y->last_ns)
		return x->last_ns < y->last_ns ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int ss_write(void *state, const struct report_ctx *rc, FILE *out)
{
	struct ss_ctx *c = state;
	bool ns = rc->opts->weight != REPORT_WEIGHT_SAMPLES;
	size_t i, p, k = 0, j;
	uint32_t *rank;

	/* the busiest thread first: speedscope opens on the first profile */
	rank = calloc(c->nr_profiles ? c->nr_profiles : 1, sizeof(*rank));
	if (!rank)
		return -ENOMEM;
	for (p = 0; p < c->nr_profiles; p++)
		c->profiles[p].id = (uint32_t)p;
	qsort(c->profiles, c->nr_profiles, sizeof(*c->profiles), cmp_profile);
	for (p = 0; p < c->nr_profiles; p++)
		rank[c->profiles[p].id] = (uint32_t)p;
	for (i = 0; i < c->nr_samples; i++)
		c->samples[i].profile = rank[c->samples[i].profile];
	free(rank);
	qsort(c->samples, c->nr_samples, sizeof(*c->samples), cmp_sample);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	      "\"exporter\":\"eprof\",\"name\":", out);
	json_put_str(out, c->nr_srcs == 1 && c->title ? c->title : "eprof report");
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", out);
	for (i = 0; i < c->names.nr; i++) {
		const struct ss_py *py = i < c->alloc_py && c->py[i].name ? &c->py[i] : NULL;

		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		json_put_str(out, py ? py->name : strtab__str(&c->names, (uint32_t)i));
		if (py) {
			fputs(",\"file\":", out);
			json_put_str(out, py->file);
			if (py->line)
				fprintf(out, ",\"line\":%" PRIu32, py->line);
		}
		fputc('}', out);
	}
	fputs("]},\"profiles\":[", out);
	for (p = 0; p < c->nr_profiles; p++) {
		size_t from = k;

		fputs(p ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":", out);
		json_put_str(out, c->profiles[p].name);
		fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[",
			ns ? "nanoseconds" : "none", c->profiles[p].total);
		for (; k < c->nr_samples && c->samples[k].profile == p; k++) {
			const struct ss_sample *smp = &c->samples[k];

			fputs(k > from ? ",[" : "[", out);
			for (j = 0; j < smp->nr; j++)
				fprintf(out, j ? ",%" PRIu32 : "%" PRIu32, c->frames[smp->first + j]);
			fputc(']', out);
		}
		fputs("],\"weights\":[", out);
		for (i = from; i < k; i++)
			fprintf(out, i > from ? ",%" PRIu64 : "%" PRIu64, c->samples[i].weight);
		fputs("]}", out);
	}
	fputs("]}\n", out);
	return view__check_stream(out);
}

static void ss_free(void *state)
{
	struct ss_ctx *c = state;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_profiles; i++)
		free(c->profiles[i].name);
	free(c->profiles);
	free(c->title);
	free(c->samples);
	free(c->frames);
	strtab__release(&c->names);
	func_tab__release(&c->py_funcs);
	free(c->py);
	strbuf_release(&c->key);
	view_names__release(&c->names_of);
	free(c);
}

const struct view_merge_ops view_speedscope_merge = { ss_start, ss_add, ss_write, ss_free };

int view_speedscope__write(const struct report_ctx *rc, FILE *out)
{
	return view__write_merged(&view_speedscope_merge, rc, out);
}
