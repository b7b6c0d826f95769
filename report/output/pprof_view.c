// SPDX-License-Identifier: MIT
/*
 * report/output/pprof_view.c - --pprof OUT: the resolved aggregates through the
 * profile.proto builder (output/pprof.c).
 *
 * The aggregate kept tid, cpu and cgroup (where recorded) in its key for
 * this view, so each entry is one pprof sample with labels pid, tid, comm,
 * cpu and cgroup. Frames go leaf first,
 * as the recording stores them (kernel innermost first, then user innermost
 * first). Function names are the symbol names without the folded output's
 * "_[k]" (the kernel mapping "[kernel.kallsyms]" says where they live), so
 * `go tool pprof -top` lists the same totals as --fold for every function;
 * a demangled C++ or Rust name keeps its mangled form as the function's
 * system_name. Source files and lines go in the function's and line's
 * own fields, not in its name: a Python frame is the function
 * "qualname_[py]" with its .py file and first line, at its line (pprof
 * -list shows the source); a native frame under --lines or --inline has
 * the file and line its debug info gives.
 *
 * What pprof needs to symbolize again, and to name the profile:
 * - Each user frame keeps the address it was sampled at and the
 *   recording's mapping that held it then (start, limit, file offset,
 *   path, build-id), so address - start + offset is its file offset.
 *   Processes that map a binary alike share one mapping (the builder's),
 *   their addresses moved into it: the locations of a fork storm or of
 *   many recordings are those of the binary, not of each process.
 * - A frame eprof could not name gets no function at all (rather than a
 *   made-up "lib.so+0x1234"), and its mapping says it lacks functions:
 *   pprof, Pyroscope or Parca symbolize it from the binary or build-id.
 * - Mapping 1, after which pprof titles the profile, is the profiled
 *   program: the main binary of the process with the most samples (its
 *   file mapping whose name starts with the process's comm, else its
 *   lowest file mapping, which is where the executable is loaded). The
 *   kernel mapping, spanning the sampled kernel addresses, comes later.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/output/pprof.h"
#include "report/symbolize/symbolize.h"
#include "report/view.h"
#include "util/bsearch.h"
#include "util/vec.h"

/* One file mapping of a recording, as a pprof mapping wants it. */
struct pmap {
	uint64_t time_ns, start, end, pgoff;
	uint32_t tgid;
	const char *path;		/* interned in pmaps.strs */
	const char *build_id;		/* hex, interned; NULL: none */
};

struct pmaps {
	struct strtab strs;
	struct pmap *v;			/* sorted by (tgid, start, time) once read */
	size_t nr, alloc;
	int err;
};

static int on_mapping(void *ctx, const struct rec_mapping *m)
{
	struct pmaps *pm = ctx;
	char hex[2 * REC_BUILD_ID_MAX + 1];
	uint32_t i, n = m->build_id_len < REC_BUILD_ID_MAX ? m->build_id_len : REC_BUILD_ID_MAX;
	struct pmap *p;

	if (!m->path || !m->path[0] || m->end <= m->start)
		return 0;	/* nothing a frame could name as its binary */
	if (vec__grow(&pm->v, &pm->alloc, pm->nr + 1, sizeof(*pm->v)))
		return pm->err = -ENOMEM;
	p = &pm->v[pm->nr];
	*p = (struct pmap){ m->time_ns, m->start, m->end, m->pgoff, m->tgid, NULL, NULL };
	p->path = strtab__dup(&pm->strs, m->path);
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, sizeof(hex) - 2 * i, "%02x", m->build_id[i]);
	if (n)
		p->build_id = strtab__dup(&pm->strs, hex);
	if (!p->path || (n && !p->build_id))
		return pm->err = -ENOMEM;
	pm->nr++;
	return 0;
}

static int cmp_pmap(const void *a, const void *b)
{
	const struct pmap *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* Reads rec's file mappings into pm; 0, or an error (the reader's come printed). */
static int pmaps__load(struct pmaps *pm, struct recording *rec)
{
	int err;

	strtab__init(&pm->strs);
	err = recording__for_each_mapping(rec, on_mapping, pm);
	if (err)
		return pm->err ? pm->err : err;
	if (pm->nr > 1)
		qsort(pm->v, pm->nr, sizeof(*pm->v), cmp_pmap);
	return 0;
}

static void pmaps__release(struct pmaps *pm)
{
	free(pm->v);
	strtab__release(&pm->strs);
}

/*
 * The mapping of process tgid holding addr at time_ns with that path: of
 * the mappings that held it (a range can be mapped again over time), the
 * latest made at or before time_ns, else the earliest. NULL: none.
 */
static bool pmap_at_or_below(const void *elem, const void *key)
{
	const struct pmap *p = elem, *k = key;

	return p->tgid < k->tgid || (p->tgid == k->tgid && p->start <= k->start);
}

static const struct pmap *pmaps__find(const struct pmaps *pm, uint32_t tgid, uint64_t addr,
				      uint64_t time_ns, const char *path)
{
	const struct pmap *found = NULL;
	const struct pmap key = { .tgid = tgid, .start = addr };
	size_t lo, i;

	/* the first mapping after (tgid, addr) */
	lo = bsearch_lower_bound(&key, pm->v, pm->nr, sizeof(*pm->v), pmap_at_or_below);
	for (i = lo; i-- > 0 && pm->v[i].tgid == tgid;) {
		const struct pmap *p = &pm->v[i];

		if (found && p->start != found->start)
			break;
		if (addr >= p->end || strcmp(p->path, path))
			continue;
		found = p;
		if (p->time_ns <= time_ns)
			break;
	}
	return found;
}

/* What every frame of the profile is converted with. */
struct frame_ctx {
	const struct pmaps *maps;
	struct strtab *names;		/* the Python functions' names, kept to the end */
};

/*
 * A Python frame: the function "qualname_[py]" (the mark pprof keeps, so
 * that it is not one with a native function of the same name) with no
 * system name (pprof would take "<module>" for a C++ template and strip
 * it), its .py file and first line, the line in it, and no mapping or
 * address: pprof has nothing to look up. 0 or -ENOMEM.
 */
static int to_pprof_python(const struct frame_ctx *fc, const struct sym_frame *f,
			   struct pprof_frame *p)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s_[py]", f->func ? f->func : "[unknown]");
	p->function = strtab__dup(fc->names, buf);
	p->system_name = "";
	p->file = f->src_file;
	p->line = f->src_line;
	p->start_line = f->func_line;
	return p->function ? 0 : -ENOMEM;
}

static int to_pprof_frame(const struct frame_ctx *fc, const struct agg_entry *e,
			  const struct sym_frame *f, struct pprof_frame *p)
{
	const struct pmap *m;

	memset(p, 0, sizeof(*p));
	if (f->flags & SYM_FRAME_PYTHON)
		return to_pprof_python(fc, f, p);
	p->address = f->addr;
	if (f->flags & SYM_FRAME_RESOLVED) {
		/* without --lines' and --addresses' decorations: pprof has fields for them */
		p->function = f->func ? f->func : f->name;
		p->system_name = f->system_name;
		p->file = f->src_file;
		p->line = f->src_line;
		p->start_line = f->func_line;
	}
	if (f->flags & SYM_FRAME_KERNEL) {
		p->kernel = true;	/* the builder spans the kernel addresses */
		return 0;
	}
	if (!f->dso || !f->dso[0])
		return 0;	/* in no mapping: the address alone */
	p->binary = f->dso;
	m = pmaps__find(fc->maps, e->tgid, f->addr, e->last_ns, f->dso);
	if (!m)
		return 0;	/* a JIT map: not a mapping of the process */
	p->build_id = m->build_id;
	p->map_start = m->start;
	p->map_end = m->end;
	p->map_offset = m->pgoff;
	return 0;
}

struct proc_count {
	uint32_t tgid;
	uint64_t samples;
};

static int cmp_proc(const void *a, const void *b)
{
	const struct proc_count *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/*
 * The process with the most samples in s (*tgid, its samples *n); the idle
 * task (0) is none. 1 when there is one, 0 when not, or -ENOMEM.
 */
static int busiest_process(const struct report_src *s, uint32_t *tgid, uint64_t *n)
{
	struct proc_count *v;
	uint64_t best = 0, sum;
	size_t nr = s->agg.nr, i, k;

	v = calloc(nr ? nr : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (k = 0; k < nr; k++)
		v[k] = (struct proc_count){ s->agg.entries[k].tgid, s->agg.entries[k].count };
	if (nr > 1)
		qsort(v, nr, sizeof(*v), cmp_proc);
	for (i = 0; i < nr; i = k) {
		for (sum = 0, k = i; k < nr && !cmp_proc(&v[k], &v[i]); k++)
			sum += v[k].samples;
		if (sum > best && v[i].tgid) {
			best = sum;
			*tgid = v[i].tgid;
		}
	}
	free(v);
	*n = best;
	return best > 0;
}

static bool starts_with_comm(const char *path, const char *comm)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return comm[0] && !strncmp(base, comm, strlen(comm));
}

/*
 * The main binary of process tgid in s: its file mapping whose name starts
 * with the process's comm, else its lowest file mapping. NULL: none.
 */
static const struct pmap *main_binary(const struct report_src *s, const struct pmaps *maps,
				      uint32_t tgid)
{
	const struct pmap *lowest = NULL, *m;
	const char *comm = "";
	size_t k, i;

	for (k = 0; k < s->agg.nr; k++)
		if (s->agg.entries[k].tgid == tgid) {
			comm = stack_agg__comm(&s->agg, s->agg.entries[k].comm_id);
			break;
		}
	for (i = 0; i < maps->nr; i++) {
		m = &maps->v[i];
		if (m->tgid != tgid || m->path[0] != '/')
			continue;	/* not a file: [vdso], //anon, ... */
		if (starts_with_comm(m->path, comm))
			return m;
		if (!lowest)
			lowest = m;
	}
	return lowest;
}

/* The mapping of main's binary that holds tgid's first sampled frame in it; NULL: none. */
static const struct pmap *sampled_mapping(const struct report_src *s, const struct pmaps *maps,
					  uint32_t tgid, const struct pmap *main)
{
	const struct pmap *m;
	size_t k, j;

	for (k = 0; k < s->agg.nr; k++) {
		const struct agg_entry *e = &s->agg.entries[k];
		const struct sym_stack *st = s->stacks.stack[k];

		if (e->tgid != tgid || !e->count || !st)
			continue;
		for (j = st->nr_kernel; j < st->nr_kernel + st->nr_user; j++) {
			const struct sym_frame *f = sym_stack__frame(st, j);

			if (!f->dso || strcmp(f->dso, main->path))
				continue;
			m = pmaps__find(maps, tgid, f->addr, e->last_ns, f->dso);
			if (m)
				return m;
		}
	}
	return NULL;
}

/*
 * The profiled program's main binary in s, the busiest process's: the
 * mapping of its first sampled frame in that binary (its code), else the
 * binary's mapping main_binary() found. 1 when found (*p), 0 when not.
 */
static int main_mapping(const struct report_src *s, const struct pmaps *maps, uint32_t tgid,
			struct pprof_frame *p)
{
	const struct pmap *main, *m;

	main = main_binary(s, maps, tgid);
	if (!main)
		return 0;
	m = sampled_mapping(s, maps, tgid, main);
	if (m)
		main = m;
	memset(p, 0, sizeof(*p));
	p->binary = main->path;
	p->build_id = main->build_id;
	p->map_start = main->start;
	p->map_end = main->end;
	p->map_offset = main->pgoff;
	return 1;
}

/* the builder, and the frames array reused from one entry to the next */
struct pprof_merge {
	struct pprof_builder *b;
	struct frame_ctx fc;
	struct strtab names;		/* fc.names */
	struct pprof_frame *frames;
	size_t alloc;
	uint64_t busiest;		/* samples of the busiest process so far */
};

/* One aggregate entry of s as one pprof sample with its labels. */
static int add_entry(struct pprof_merge *pm, const struct report_src *s, const struct agg_entry *e)
{
	const struct sym_stack *st = report_src__stack(s, e);
	size_t nr = st ? (size_t)st->nr_kernel + st->nr_user : 0, j;
	struct pprof_labels lab = { .pid = e->tgid, .tid = e->tid, .cpu = e->cpu };

	if (vec__grow(&pm->frames, &pm->alloc, nr + 1, sizeof(*pm->frames)))
		return -ENOMEM;
	for (j = 0; j < nr; j++)
		if (to_pprof_frame(&pm->fc, e, sym_stack__frame(st, j), &pm->frames[j]))
			return -ENOMEM;
	if (!nr) {
		/* no stack at all: one frame says so */
		memset(pm->frames, 0, sizeof(*pm->frames));
		pm->frames[0].function = "[unknown]";
		nr = 1;
	}
	lab.comm = stack_agg__comm(&s->agg, e->comm_id);
	if (s->cfg.key_cgroup)
		lab.cgroup = stack_agg__cgroup(&s->agg, e->cgroup);
	if (e->state != AGG_ONCPU)
		return pprof__add_off_cpu(pm->b, pm->frames, nr, e->count, &lab);
	if (s->cfg.sample_ns)	/* weighed by time: back to samples */
		return pprof__add_sample(pm->b, pm->frames, nr, e->count / s->cfg.sample_ns, &lab);
	return pprof__add_sample(pm->b, pm->frames, nr, e->count, &lab);
}

static int pprof_start(void **state, const struct report_ctx *rc)
{
	const struct report_src *first = &rc->srcs[0];
	uint64_t period = first->freq_hz ? 1000000000ull / first->freq_hz : 0;
	struct pprof_merge *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return -ENOMEM;
	*state = pm;
	strtab__init(&pm->names);
	pm->fc.names = &pm->names;
	/* the first recording is loaded before the view starts: its times are known */
	pm->b = pprof__new(period, first->start_realtime * 1000000000ull,
			   first->end_ns > first->start_ns ? first->end_ns - first->start_ns : 0);
	if (!pm->b)
		return -ENOMEM;
	if (rc->opts->weight != REPORT_WEIGHT_SAMPLES)
		pprof__set_off_cpu(pm->b);
	return 0;
}

/*
 * A recording's samples go into the builder, which sends them on
 * compressed; its mappings are read for its frames only. Its busiest
 * process names the profile if no recording before had a busier one.
 */
static int pprof_add(void *state, const struct report_ctx *rc, const struct report_src *s)
{
	struct pprof_merge *pm = state;
	struct pprof_frame main;
	struct pmaps maps = { 0 };
	uint32_t tgid = 0;
	uint64_t n = 0;
	size_t k;
	int err;

	(void)rc;
	err = pmaps__load(&maps, s->rec);
	if (!err)
		err = busiest_process(s, &tgid, &n);
	if (err > 0 && n > pm->busiest) {
		pm->busiest = n;
		err = pprof__set_main_mapping(pm->b, main_mapping(s, &maps, tgid, &main) ?
						      &main : NULL);
	}
	pm->fc.maps = &maps;
	for (k = 0; k < s->agg.nr && err >= 0; k++)
		if (report_src__kept(s, k))
			err = add_entry(pm, s, &s->agg.entries[k]);
	if (err >= 0)
		err = pprof__send_samples(pm->b);
	pmaps__release(&maps);
	return err < 0 ? err : 0;
}

static int pprof_write(void *state, const struct report_ctx *rc, FILE *out)
{
	struct pprof_merge *pm = state;
	int err;

	(void)rc;
	err = pprof__write(pm->b, out);
	return err ? err : view__check_stream(out);
}

static void pprof_free(void *state)
{
	struct pprof_merge *pm = state;

	if (!pm)
		return;
	pprof__free(pm->b);
	strtab__release(&pm->names);
	free(pm->frames);
	free(pm);
}

const struct view_merge_ops view_pprof_merge = { pprof_start, pprof_add, pprof_write, pprof_free };

int view_pprof__write(const struct report_ctx *rc, FILE *out)
{
	return view__write_merged(&view_pprof_merge, rc, out);
}
