// SPDX-License-Identifier: MIT
/*
 * report/out_profile.c - --pprof OUT: the resolved aggregates through the
 * profile.proto builder (out_pprof.c).
 *
 * The aggregate kept tid and cpu in its key for this view, so each entry is
 * one pprof sample with labels pid, tid, comm and cpu. Frames go leaf first,
 * as the recording stores them (kernel innermost first, then user innermost
 * first). Function names are the symbol names without the folded output's
 * "_[k]" (the kernel mapping "[kernel.kallsyms]" says where they live), so
 * `go tool pprof -top` lists the same totals as --fold for every function;
 * a demangled C++ or Rust name keeps its mangled form as the function's
 * system_name.
 * Mappings carry the build-id the recording stored for their file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/out_pprof.h"
#include "report/symbolize.h"
#include "report/view.h"

/* path -> hex build-id, from the recording's mappings (the first one with a build-id wins) */
struct build_ids {
	struct strtab paths;
	char **hex;			/* path id -> hex or NULL */
	size_t alloc;
	int err;
};

static int on_mapping(void *ctx, const struct rec_mapping *m)
{
	struct build_ids *b = ctx;
	uint32_t id, i;

	if (!m->path || !m->build_id_len)
		return 0;
	b->err = strtab__intern(&b->paths, m->path, &id);
	if (b->err)
		return b->err;
	if (id >= b->alloc) {
		size_t n = b->alloc ? 2 * b->alloc : 64;
		char **p;

		while (n <= id)
			n *= 2;
		p = reallocarray(b->hex, n, sizeof(*p));
		if (!p)
			return b->err = -ENOMEM;
		memset(p + b->alloc, 0, (n - b->alloc) * sizeof(*p));
		b->hex = p;
		b->alloc = n;
	}
	if (b->hex[id])
		return 0;
	b->hex[id] = malloc(2 * m->build_id_len + 1);
	if (!b->hex[id])
		return b->err = -ENOMEM;
	for (i = 0; i < m->build_id_len && i < REC_BUILD_ID_MAX; i++)
		sprintf(b->hex[id] + 2 * i, "%02x", m->build_id[i]);
	return 0;
}

static void build_ids__release(struct build_ids *b)
{
	size_t i;

	for (i = 0; i < b->alloc; i++)
		free(b->hex[i]);
	free(b->hex);
	strtab__release(&b->paths);
}

static const char *build_id_of(struct build_ids *b, const char *path)
{
	uint32_t id;

	if (!path || strtab__intern(&b->paths, path, &id) || id >= b->alloc)
		return NULL;
	return b->hex[id];
}

int view_pprof__write(const struct report_ctx *rc, FILE *out)
{
	const struct report_src *first = &rc->srcs[0];
	uint64_t period = first->freq_hz ? 1000000000ull / first->freq_hz : 0;
	struct pprof_frame *frames = NULL;
	struct pprof_builder *b;
	size_t alloc = 0, i, k, j;
	int err = 0;

	b = pprof__new(period, first->start_realtime * 1000000000ull,
		       first->end_ns > first->start_ns ? first->end_ns - first->start_ns : 0);
	if (!b)
		return -ENOMEM;
	for (i = 0; i < rc->nr_srcs && !err; i++) {
		const struct report_src *s = &rc->srcs[i];
		struct build_ids ids = { .paths = STRTAB_INIT };

		err = recording__for_each_mapping(s->rec, on_mapping, &ids);
		if (err && ids.err)
			err = ids.err;
		for (k = 0; k < s->agg.nr && !err; k++) {
			const struct agg_entry *e = &s->agg.entries[k];
			const struct sym_stack *st = e->stack;
			size_t nr = st ? (size_t)st->nr_kernel + st->nr_user : 0;
			struct pprof_labels lab = { .pid = e->tgid, .tid = e->tid, .cpu = e->cpu };

			if (!e->count)
				continue;
			if (nr + 1 > alloc) {
				struct pprof_frame *p = reallocarray(frames, nr + 1, sizeof(*p));

				if (!p) {
					err = -ENOMEM;
					break;
				}
				frames = p;
				alloc = nr + 1;
			}
			memset(frames, 0, (nr + 1) * sizeof(*frames));
			for (j = 0; j < nr; j++) {
				const struct sym_frame *f = &st->frames[j];
				struct pprof_frame *p = &frames[j];

				p->function = f->name && f->name[0] ? f->name : "[unknown]";
				p->system_name = f->system_name;
				p->address = f->addr;
				p->kernel = (f->flags & SYM_FRAME_KERNEL) != 0;
				if (!p->kernel && f->dso && f->dso[0]) {
					p->binary = f->dso;
					p->build_id = build_id_of(&ids, f->dso);
				}
			}
			if (!nr) {
				frames[0].function = "[unknown]";
				nr = 1;
			}
			lab.comm = stack_agg__comm(&s->agg, e->comm_id);
			err = pprof__add_sample(b, frames, nr, e->count, &lab);
		}
		build_ids__release(&ids);
	}
	if (!err)
		err = pprof__write(b, out);
	if (!err)
		err = view__check_stream(out);
	free(frames);
	pprof__free(b);
	return err;
}
