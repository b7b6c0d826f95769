// SPDX-License-Identifier: MIT
/*
 * report/pipeline.c - one pass from the recordings to the chosen output.
 *
 * The order is fixed: for each recording, comms and samples are folded into
 * its aggregate first (the only step whose input grows with the recording;
 * the filters act here, so a filtered-out sample costs nothing later), then
 * its symbol data is loaded and each distinct stack symbolized once, into
 * the source's stack table; then --kernel-only/--user-only cut each
 * distinct stack once (in the table: the aggregate stays as loading made
 * it), and the chosen view writes from the aggregates and their tables. Each recording keeps its own
 * aggregate: stack and comm ids are per file, so views that merge several
 * recordings (a fleet, or a diff) merge by names.
 *
 * With several recordings, every view but --samples and --diff merges
 * them one at a time (view.h, struct view_merge_ops): each file, once
 * resolved, goes into the view's own lines, tree, function counts or
 * profile, and everything of that file but its title (aggregate, symbols,
 * open file) is freed before the next is read. A report over 24 files of
 * an hour of -a needs about what the largest of them needs alone
 * (bench/RESULTS.md). --samples keeps every file whole (it walks the
 * samples again); --diff moves the stacks of its two into one stack store
 * (strings interned once for both) and frees their symbolizers.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/aggregate/aggregate.h"
#include "report/output/fold.h"
#include "report/outfile.h"
#include "report/pipeline.h"
#include "report/symbolize/stack_store.h"
#include "report/symbolize/symbolize.h"
#include "report/view.h"
#include "util/hashmap.h"
#include "util/log.h"

/*
 * What a view needs loading to keep for it: its row in the emitter table
 * says it, and loading reads only the row (no view is named outside it).
 */
enum view_need {
	NEED_TID	= 1u << 0,	/* samples keyed by thread */
	NEED_CGROUP	= 1u << 1,	/* by cgroup too, where the recording knows them */
	NEED_CPU	= 1u << 2,	/* by CPU */
	NEED_STATES	= 1u << 3,	/* on-CPU, blocked and runnable time kept apart */
	NEED_FILES	= 1u << 4,	/* each recording open while it writes (several -i) */
};

/* A view's time slots: none, --timeline's width, or a fixed width. */
#define SLOTS_NONE	0
#define SLOTS_OPTION	UINT64_MAX

struct emitter {
	unsigned int output;		/* enum report_output */
	const char *what;		/* for the error message */
	int (*write)(const struct report_ctx *rc, FILE *out);
	int (*write_diff)(const struct report_ctx *rc, FILE *out);	/* NULL: not with --diff */
	const struct view_merge_ops *merge;	/* several -i, one at a time; NULL: all kept */
	unsigned int needs;		/* enum view_need */
	uint64_t slot_ns;		/* SLOTS_NONE, SLOTS_OPTION or a width */
	int (*check)(const struct report_ctx *rc);	/* refuses what it could not show */
};

static int check_timeline_rows(const struct report_ctx *rc);
static int check_html_span(const struct report_ctx *rc);

static const struct emitter emitters[] = {
	{ REPORT_OUT_FOLD, "the folded stacks", view_fold__write, view_diff_fold__write,
	  &view_fold_merge, 0, SLOTS_NONE, NULL },
	{ REPORT_OUT_SVG, "the flame graph", view_svg__write, view_svg__write, &view_svg_merge,
	  0, SLOTS_NONE, NULL },
	{ REPORT_OUT_TOP, "the top table", view_top__write, view_diff_top__write, &view_top_merge,
	  0, SLOTS_NONE, NULL },
	{ REPORT_OUT_PERCPU, "the per-CPU table", view_percpu__write, NULL, &view_percpu_merge,
	  NEED_CPU, SLOTS_NONE, NULL },
	{ REPORT_OUT_PERNODE, "the per-node table", view_pernode__write, NULL,
	  &view_pernode_merge, NEED_CPU, SLOTS_NONE, NULL },
	{ REPORT_OUT_TIMELINE, "the timeline", view_timeline__write, NULL,
	  &view_timeline_merge, 0, SLOTS_OPTION, check_timeline_rows },
	{ REPORT_OUT_PPROF, "the pprof profile", view_pprof__write, NULL, &view_pprof_merge,
	  NEED_TID | NEED_CGROUP | NEED_CPU, SLOTS_NONE, NULL },
	{ REPORT_OUT_SAMPLES, "the samples", view_samples__write, NULL, NULL,
	  NEED_FILES, SLOTS_NONE, NULL },
	{ REPORT_OUT_HTML, "the HTML report", view_html__write, view_html_diff__write,
	  &view_html_merge, NEED_CPU | NEED_STATES | NEED_FILES, VIEW_HTML_SLOT_NS,
	  check_html_span },
	{ REPORT_OUT_SPEEDSCOPE, "the speedscope profile", view_speedscope__write, NULL,
	  &view_speedscope_merge, NEED_TID, SLOTS_NONE, NULL },
	{ REPORT_OUT_FIREFOX, "the Firefox Profiler profile", view_firefox__write, NULL,
	  &view_firefox_merge, NEED_TID | NEED_STATES, SLOTS_NONE, NULL },
};

static int on_loss(void *ctx, const struct rec_loss *l)
{
	struct report_summary *sum = ctx;

	sum->lost_samples += l->lost_samples;
	sum->lost_stacks += l->lost_ustacks + l->lost_kstacks;
	sum->truncated_stacks += l->truncated_stacks;
	sum->lost_sideband += l->lost_sideband;
	return 0;
}

static int on_unwind(void *ctx, const struct rec_unwind *u)
{
	struct report_summary *sum = ctx;
	size_t i;

	if (u->path[0])
		return 0;	/* per-binary rows: info shows them */
	sum->unw_walks += u->walks;
	sum->unw_complete += u->stop[REC_UNW_STOP_END] + u->stop[REC_UNW_STOP_ZERO];
	sum->unw_truncated += u->stop[REC_UNW_STOP_DEPTH];
	for (i = 0; i < REC_UNW_FB_MAX; i++)
		sum->unw_fallback += u->fallback[i];
	return 0;
}

static int meta_str(struct recording *rec, const char *key, char **out);
static int meta_u64(struct recording *rec, const char *key, uint64_t *out);

/* The Python walks' account of one more recording (none without the meta). */
static int add_python(struct recording *rec, struct report_summary *sum)
{
	uint64_t v[6];
	char *which = NULL;
	int err;

	err = meta_u64(rec, REC_META_PY_WALKS, &v[0]) ?:
	      meta_u64(rec, REC_META_PY_SAMPLES, &v[1]) ?:
	      meta_u64(rec, REC_META_PY_UNREADABLE, &v[2]) ?:
	      meta_u64(rec, REC_META_PY_DEPTH, &v[3]) ?:
	      meta_u64(rec, REC_META_PY_COPY, &v[4]) ?:
	      meta_u64(rec, REC_META_PY_UNKNOWN, &v[5]) ?:
	      meta_str(rec, REC_META_PY_VERSIONS, &which);
	if (err)
		return err;
	if (v[0] || v[5] || which)
		sum->py_met = true;
	sum->py_walks += v[0];
	sum->py_samples += v[1];
	sum->py_unreadable += v[2];
	sum->py_depth += v[3];
	sum->py_copy += v[4];
	sum->py_unknown += v[5];
	if (which && !sum->py_unknown_first[0])
		snprintf(sum->py_unknown_first, sizeof(sum->py_unknown_first), "%s", which);
	free(which);
	return 0;
}

/* The clock's account of one more recording; unknown once any recording lacks it. */
static int add_ticks(struct recording *rec, struct report_summary *sum)
{
	struct tick_breakdown tb;
	int err;

	err = recording__tick_breakdown(rec, &tb);
	if (err == -ENOENT) {
		sum->ticks_known = false;
		sum->unknown_ticks = true;
		return 0;
	}
	if (err)
		return err;
	sum->ticks_known = !sum->unknown_ticks;
	sum->ticks.expected += tb.expected;
	sum->ticks.throttled += tb.throttled;
	sum->ticks.missed += tb.missed;
	sum->ticks.fired += tb.fired;
	sum->ticks.kept += tb.kept;
	sum->ticks.throttles += tb.throttles;
	return 0;
}

const char *report__count_str(const struct report_opts *o, uint64_t n, char *buf, size_t len)
{
	if (o->weight == REPORT_WEIGHT_SAMPLES)
		snprintf(buf, len, "%" PRIu64, n);
	else if (n >= 1000000000ull)
		snprintf(buf, len, "%.3g s", (double)n / 1e9);
	else if (n >= 1000000ull)
		snprintf(buf, len, "%.3g ms", (double)n / 1e6);
	else
		snprintf(buf, len, "%.3g us", (double)n / 1e3);
	return buf;
}

/*
 * --off-cpu and --wall: which intervals count and what a sample weighs (its
 * period: a sample stands for the CPU time between two ticks).
 */
static int need_offcpu(const struct report_src *s)
{
	if (recording__has_offcpu(s->rec))
		return 0;
	pr_err("'%s' has no off-CPU time: --off-cpu and --wall need a recording made "
	       "with 'eprof record --off-cpu'", s->path);
	return -EINVAL;
}

/* What the recorder could not follow off the CPU, into the summary. */
static int add_offcpu_loss(struct report_src *s, struct report_summary *sum)
{
	struct rec_offcpu_loss l;
	int err;

	err = recording__offcpu_loss_total(s->rec, &l);
	if (err)
		return err;
	sum->offcpu_lost += l.lost;
	sum->offcpu_lost_ns += l.lost_ns;
	sum->offcpu_untracked += l.untracked;
	sum->offcpu_lost_stacks += l.lost_stacks;
	return 0;
}

static int weigh_by_time(struct report_src *s, const struct report_opts *o,
			 struct report_summary *sum)
{
	struct agg_config *cfg = &s->cfg;

	if (need_offcpu(s))
		return -EINVAL;
	if (o->weight == REPORT_WEIGHT_WALL && !s->freq_hz) {
		pr_err("'%s' is damaged: no sampling frequency to turn samples into time", s->path);
		return -EBADMSG;
	}
	sum->weight = o->weight;
	cfg->offcpu_states = 1u << REC_OFFCPU_BLOCKED;
	cfg->no_samples = o->weight == REPORT_WEIGHT_OFFCPU;
	/* states apart: off-CPU entries are charged to their wait reason (cut_sched()) */
	cfg->key_state = true;
	if (o->weight == REPORT_WEIGHT_WALL) {
		cfg->offcpu_states |= 1u << REC_OFFCPU_RUNNABLE;
		cfg->sample_ns = (1000000000ull + s->freq_hz / 2) / s->freq_hz;
		if (!sum->period_ns)
			sum->period_ns = cfg->sample_ns;
	}
	return add_offcpu_loss(s, sum);
}

/*
 * --html of a recording with off-CPU time: the page switches between
 * on-CPU, off-CPU and wall views itself, so it gets every state apart in
 * its own unit (on-CPU samples, blocked and runnable ns) and the sampling
 * period to weigh samples by. --off-cpu and --wall only pick the first view.
 */
static int keep_states_apart(struct report_src *s, const struct report_opts *o,
			     struct report_summary *sum)
{
	struct agg_config *cfg = &s->cfg;

	if (!recording__has_offcpu(s->rec))
		return o->weight == REPORT_WEIGHT_SAMPLES ? 0 : need_offcpu(s);
	cfg->offcpu_states = 1u << REC_OFFCPU_BLOCKED | 1u << REC_OFFCPU_RUNNABLE;
	cfg->key_state = true;
	cfg->key_tid = true;	/* the page's per-thread lanes */
	if (s->freq_hz && !sum->period_ns)
		sum->period_ns = (1000000000ull + s->freq_hz / 2) / s->freq_hz;
	return add_offcpu_loss(s, sum);
}

/* A metadata value, *out NULL when absent; a damaged one is an error (printed). */
static int meta_str(struct recording *rec, const char *key, char **out)
{
	int err = recording__get_meta(rec, key, out);

	if (err == -ENOENT) {
		*out = NULL;
		return 0;
	}
	return err;
}

/* A numeric metadata value (format/ checked it at open), 0 when absent. */
static int meta_u64(struct recording *rec, const char *key, uint64_t *out)
{
	char *v = NULL;
	int err = meta_str(rec, key, &v);

	*out = v ? strtoull(v, NULL, 10) : 0;
	free(v);
	return err;
}

static bool in_list(const uint32_t *v, size_t nr, uint32_t x)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* cpu_ok[] for --cpu and --node in recording s; NULL (and 0) when neither was given. */
static int make_cpu_filter(const struct report_opts *o, const struct report_src *s, bool **ok,
			   size_t *nr)
{
	size_t n = s->nr_cpu_node, c;
	bool *v;

	*ok = NULL;
	*nr = 0;
	if (!o->cpus && !o->nodes)
		return 0;
	if (o->cpus && o->nr_cpus && o->cpus[o->nr_cpus - 1] + 1 > n)
		n = o->cpus[o->nr_cpus - 1] + 1;
	if (o->nodes && !s->nr_cpu_node)
		pr_warn("'%s' has no CPU to NUMA node map: --node matches none of its samples",
			s->path);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (c = 0; c < n; c++) {
		int32_t node = report_src__node(s, (uint32_t)c);

		v[c] = (!o->cpus || in_list(o->cpus, o->nr_cpus, (uint32_t)c)) &&
		       (!o->nodes || (node >= 0 && in_list(o->nodes, o->nr_nodes, (uint32_t)node)));
	}
	*ok = v;
	*nr = n;
	return 0;
}

/*
 * The part of a stack an entry keeps: frames [first, first + nr_kernel +
 * nr_user) of it, the first nr_kernel of them kernel frames.
 */
struct stack_cut {
	uint32_t first, nr_kernel, nr_user;
	bool runnable;			/* a [runnable] leaf on top (runnable_leaf) */
};

/* --kernel-only / --user-only: one half. */
static bool cut_half(const struct agg_entry *e, const struct sym_stack *st, void *arg,
		     struct stack_cut *c)
{
	enum report_half half = *(const enum report_half *)arg;

	(void)e;
	c->first = half == REPORT_HALF_KERNEL ? 0 : st->nr_kernel;
	c->nr_kernel = half == REPORT_HALF_KERNEL ? st->nr_kernel : 0;
	c->nr_user = half == REPORT_HALF_USER ? st->nr_user : 0;
	return true;
}

/*
 * The scheduler's own frames at the top of a blocked thread's kernel stack
 * (__schedule, schedule, schedule_timeout, io_schedule, __cond_resched...):
 * where every blocked thread is, so they say nothing about why.
 */
static bool sched_frame(const struct sym_frame *f)
{
	return f->name && (strstr(f->name, "schedule") || strstr(f->name, "cond_resched"));
}

/*
 * Off-CPU time is charged to its wait reason, the function that blocked
 * (do_nanosleep, pipe_read, futex_wait_queue, __mutex_lock...): the
 * scheduler frames above it are cut. Runnable time (a thread preempted,
 * or yielding, and waiting for a CPU: record's sched_switch saw it still
 * runnable) has no wait reason: what is left on top of its stack is where
 * it was preempted (the timer interrupt's irqentry_exit_to_user_mode...),
 * which would read as a wait in that function, so a [runnable] leaf takes
 * its time instead. Entries of on-CPU samples keep their stacks: a CPU
 * that ran __schedule did spend its time there.
 */
static const struct sym_frame runnable_leaf = { .name = "[runnable]", .source = SYM_SRC_UNRESOLVED };

static bool cut_sched(const struct agg_entry *e, const struct sym_stack *st, void *arg,
		      struct stack_cut *c)
{
	bool runnable = e->state == AGG_RUNNABLE;
	uint32_t k = 0;

	(void)arg;
	if (e->state == AGG_ONCPU)
		return false;
	while (k < st->nr_kernel && sched_frame(sym_stack__frame(st, k)))
		k++;
	if (k == st->nr_kernel && !st->nr_user && !runnable)
		k--;	/* a stack of scheduler frames alone keeps its last */
	if (!k && !runnable)
		return false;
	*c = (struct stack_cut){ k, st->nr_kernel - k, st->nr_user, runnable };
	return true;
}

/*
 * Cuts each distinct symbolized stack of the entries that want() one
 * way once (a pointer -> copy map, one per way: pass the same want for
 * every entry), in s's stack table; an entry left without frames was
 * entirely in the part cut away: its row becomes NULL and its samples
 * leave the report. The copies join s->cut.
 */
static int cut_stacks(struct report_src *s,
		      bool (*want)(const struct agg_entry *, const struct sym_stack *, void *,
				   struct stack_cut *), void *arg)
{
	struct u64map cuts = U64MAP_INIT;	/* stack -> its cut copy */
	struct sym_stack *cut, **all;
	struct stack_cut c;
	uint64_t *to;
	size_t i;
	bool added;
	int err = 0;

	for (i = 0; i < s->agg.nr; i++) {
		const struct agg_entry *e = &s->agg.entries[i];
		const struct sym_stack *st = s->stacks.stack[i];
		uint32_t j, n;

		memset(&c, 0, sizeof(c));	/* a want() that does not split sets no runnable */
		if (!st || !want(e, st, arg, &c))
			continue;
		/* stacks are allocated, so aligned: the low bit tells a copy with a [runnable] leaf */
		err = u64map__upsert(&cuts, (uintptr_t)st | c.runnable, 0, &to, &added);
		if (err)
			goto out;
		if (added) {
			n = c.nr_kernel + c.nr_user;
			cut = malloc(sizeof(*cut) + (size_t)(n + c.runnable) * sizeof(cut->frames[0]));
			if (!cut) {
				err = -ENOMEM;
				goto out;
			}
			memcpy(cut, st, sizeof(*cut));
			cut->shared = NULL;
			if (c.runnable)
				cut->frames[0] = runnable_leaf;
			for (j = 0; j < n; j++)
				cut->frames[c.runnable + j] = *sym_stack__frame(st, c.first + j);
			cut->nr_kernel = c.nr_kernel + c.runnable;
			cut->nr_user = c.nr_user;
			*to = (uintptr_t)cut;
		}
		cut = (struct sym_stack *)(uintptr_t)*to;
		s->stacks.stack[i] = cut;
		if (!cut->nr_kernel && !cut->nr_user) {
			s->stacks.stack[i] = NULL;
			s->nr_cut_away += e->count;
			if (!stack_agg__counts_ns(&s->agg, e))
				s->cut_away_samples += e->count;
		}
	}
out:
	/* the copies live as long as the source: keep them in one array */
	all = reallocarray(s->cut, s->nr_cut + cuts.nr + 1, sizeof(*s->cut));
	if (all)
		s->cut = all;
	else
		err = -ENOMEM;
	u64map__for_each(&cuts, i) {
		cut = (struct sym_stack *)(uintptr_t)cuts.vals[i];
		if (all && cut)
			s->cut[s->nr_cut++] = cut;
		else
			free(cut);
	}
	u64map__release(&cuts);
	return err;
}
/* Opens s's recording and reads what every view needs of it: losses, ticks, meta data. */
static int open_source(struct report_src *s, struct report_summary *sum)
{
	char *numa = NULL;
	uint64_t nr_cpus;
	int err;

	err = recording__open(s->path, &s->rec);
	if (err)
		return err;
	err = recording__for_each_loss(s->rec, on_loss, sum);
	if (!err)
		err = recording__for_each_unwind(s->rec, on_unwind, sum);
	if (err)
		return err;
	err = add_ticks(s->rec, sum) ?: add_python(s->rec, sum);
	if (err)
		return err;
	err = meta_u64(s->rec, REC_META_START_NS, &s->start_ns) ?:
	      meta_u64(s->rec, REC_META_END_NS, &s->end_ns) ?:
	      meta_u64(s->rec, REC_META_FREQ_HZ, &s->freq_hz) ?:
	      meta_u64(s->rec, REC_META_START_REALTIME, &s->start_realtime) ?:
	      meta_u64(s->rec, REC_META_NR_CPUS, &nr_cpus) ?:
	      meta_str(s->rec, REC_META_HOSTNAME, &s->hostname) ?:
	      meta_str(s->rec, REC_META_TARGET, &s->command) ?:
	      (s->command ? 0 : meta_str(s->rec, REC_META_COMMAND, &s->command)) ?:
	      meta_str(s->rec, REC_META_NUMA_MAP, &numa);
	if (err)
		return err;
	if (numa) {
		err = view__parse_numa_map(numa, &s->cpu_node, &s->nr_cpu_node);
		if (err == -EINVAL || (!err && nr_cpus && s->nr_cpu_node > nr_cpus)) {
			pr_err("'%s' is damaged: meta %s \"%.64s\" is not a map of its %" PRIu64
			       " CPUs to nodes", s->path, REC_META_NUMA_MAP, numa, nr_cpus);
			err = -EBADMSG;
		} else if (err) {
			pr_errno(err, "cannot read '%s'", s->path);
		}
		free(numa);
		if (err)
			return err;
	}
	return 0;
}

/* The filters and keys of s's aggregate, from the options and the recording. */
static int config_source(struct report_src *s, const struct report_opts *o,
			 const struct emitter *em, struct report_summary *sum)
{
	struct agg_config *cfg = &s->cfg;
	int err;

	err = make_cpu_filter(o, s, &s->cpu_ok, &cfg->nr_cpu_ok);
	if (err)
		return pr_errno(err, "cannot read '%s'", s->path);
	cfg->pids = o->pids;
	cfg->nr_pids = o->nr_pids;
	cfg->tids = o->tids;
	cfg->nr_tids = o->nr_tids;
	cfg->comm = o->comm;
	cfg->xpids = o->xpids;
	cfg->nr_xpids = o->nr_xpids;
	cfg->xcomm = o->xcomm;
	cfg->cpu_ok = s->cpu_ok;
	cfg->start_ns = s->start_ns;
	cfg->from_ns = o->from_ns;
	cfg->to_ns = o->has_to ? o->to_ns : 0;
	cfg->key_tid = o->by == REPORT_BY_TID || (em->needs & NEED_TID);
	cfg->key_cgroup = o->by == REPORT_BY_CGROUP ||
			  ((em->needs & NEED_CGROUP) && recording__has_cgroups(s->rec));
	if (o->by == REPORT_BY_CGROUP && !recording__has_cgroups(s->rec))
		pr_warn("'%s' has no cgroup data (recorded by an older eprof): its samples are "
			"all in [unknown cgroup]", s->path);
	cfg->key_cpu = (em->needs & NEED_CPU) != 0;
	cfg->slot_ns = em->slot_ns == SLOTS_OPTION ? o->timeline_ns : em->slot_ns;
	if (o->has_to && o->to_ns <= o->from_ns) {
		/* an empty window: count nothing, but still read the file through */
		cfg->from_ns = UINT64_MAX;
		cfg->to_ns = 0;
	}
	if (em->needs & NEED_STATES)
		err = keep_states_apart(s, o, sum);
	else if (o->weight != REPORT_WEIGHT_SAMPLES)
		err = weigh_by_time(s, o, sum);
	return err;
}

/* Names s's stacks; what the symbolizer counted goes into sum. */
static int symbolize_source(struct report_src *s, const struct report_opts *o,
			    struct report_summary *sum, struct sym_tally *unresolved)
{
	const struct sym_stats *st;
	int err, i;

	s->sym = symbolizer__new();
	if (!s->sym)
		return pr_errno(-ENOMEM, "cannot symbolize '%s'", s->path);
	err = symbolizer__set_opts(s->sym, &o->sym);
	if (err)
		return pr_errno(err, "cannot symbolize '%s'", s->path);
	err = symbolizer__load(s->sym, s->rec);
	if (!err)
		err = symbolizer__resolve(s->sym, &s->agg, &s->stacks);
	if (err)
		return err;
	if (unresolved)	/* several recordings: one line for all, at the end */
		err = sym_tally__add(unresolved, s->sym);
	else
		symbolizer__print_unresolved(s->sym, o->diff_base ? s->path : NULL, stderr);
	if (err)
		return pr_errno(err, "cannot symbolize '%s'", s->path);
	st = symbolizer__stats(s->sym);
	sum->frames += st->frames;
	sum->resolved += st->resolved;
	for (i = 0; i < SYM_SRC_MAX; i++)
		sum->by_source[i] += st->by_source[i];
	sum->missing_stack_samples += st->missing_stack_samples;
	sum->sideband_lost_samples += st->sideband_lost_samples;
	sum->distinct_keys += s->agg.nr;
	sum->symbolized += symbolizer__nr_symbolized(s->sym);
	if (st->missing_stack_samples) {
		/* the recorder commits a stack with the first sample that uses it */
		pr_err("'%s' is damaged: %" PRIu64 " samples refer to stacks that are not in the "
		       "recording", s->path, st->missing_stack_samples);
		return -EBADMSG;
	}
	return 0;
}

/* s's samples, time and filtered counts into sum, in the view's weight. */
static void count_source(struct report_src *s, const struct report_opts *o,
			 const struct emitter *em, struct report_summary *sum)
{
	s->nr_samples = s->agg.nr_samples - s->nr_cut_away;
	if (s->cfg.key_state && (em->needs & NEED_STATES)) {
		/* the aggregate's count is samples plus off-CPU ns: the samples alone */
		s->nr_samples -= s->agg.offcpu_ns[REC_OFFCPU_BLOCKED] +
				 s->agg.offcpu_ns[REC_OFFCPU_RUNNABLE];
		sum->samples += s->nr_samples;
		sum->blocked_ns += s->agg.offcpu_ns[REC_OFFCPU_BLOCKED];
		sum->runnable_ns += s->agg.offcpu_ns[REC_OFFCPU_RUNNABLE];
		sum->offcpu_intervals += s->agg.nr_offcpu;
	} else if (o->weight == REPORT_WEIGHT_SAMPLES) {
		sum->samples += s->nr_samples;
	} else {
		sum->samples += s->agg.nr_weighed_samples;
		sum->oncpu_ns += s->agg.oncpu_ns;
		sum->blocked_ns += s->agg.offcpu_ns[REC_OFFCPU_BLOCKED];
		sum->runnable_ns += s->agg.offcpu_ns[REC_OFFCPU_RUNNABLE];
		sum->offcpu_intervals += s->agg.nr_offcpu;
	}
	sum->filtered += s->agg.nr_filtered + s->cut_away_samples;
	sum->cut_ns += s->nr_cut_away - s->cut_away_samples;
}

/* Opens, filters, aggregates and symbolizes one recording. */
static int load_source(struct report_src *s, const struct report_opts *o,
		       const struct emitter *em, struct report_summary *sum,
		       struct sym_tally *unresolved)
{
	int err;

	err = open_source(s, sum);
	if (!err)
		err = config_source(s, o, em, sum);
	if (!err)
		err = stack_agg__load_cfg(&s->agg, s->rec, &s->cfg);
	if (err)
		return err;
	if (!s->start_ns)
		s->start_ns = s->agg.first_ns;
	if (!s->end_ns || s->end_ns < s->start_ns)
		s->end_ns = s->agg.last_ns;
	err = symbolize_source(s, o, sum, unresolved);
	if (err)
		return err;
	if (s->cfg.key_state && s->agg.nr_offcpu) {
		err = cut_stacks(s, cut_sched, NULL);
		if (err)
			return pr_errno(err, "cannot report '%s'", s->path);
	}
	if (o->half != REPORT_HALF_BOTH) {
		err = cut_stacks(s, cut_half, (void *)&o->half);
		if (err)
			return pr_errno(err, "cannot report '%s'", s->path);
	}
	count_source(s, o, em, sum);
	return 0;
}

/* Frees s's symbolizer and what its stacks were cut into. */
static void free_symbols(struct report_src *s)
{
	size_t i;

	for (i = 0; i < s->nr_cut; i++)
		free(s->cut[i]);
	free(s->cut);
	s->cut = NULL;
	s->nr_cut = 0;
	sym_table__release(&s->stacks);
	symbolizer__free(s->sym);
	s->sym = NULL;
}

/*
 * One of the two recordings of --diff is aggregated and symbolized: its
 * stacks move into the store and what only loading needed goes. --samples
 * walks the files again with their symbolizers: it keeps them whole.
 */
static int compact_source(struct report_src *s, const struct emitter *em,
			  struct stack_store *ss)
{
	struct sym_table kept;
	size_t i;
	int err;

	if (em->needs & NEED_FILES)
		return 0;	/* --html reads each file's metadata as it writes */
	for (i = 0; i < s->stacks.nr; i++) {
		if (!s->stacks.stack[i])
			continue;	/* cut away */
		err = stack_store__intern(ss, s->stacks.stack[i], &s->stacks.stack[i]);
		if (err)
			return pr_errno(err, "cannot report '%s'", s->path);
	}
	kept = s->stacks;
	s->stacks = (struct sym_table){ NULL, 0 };
	free_symbols(s);
	s->stacks = kept;
	stack_agg__compact(&s->agg);
	recording__close(s->rec);
	s->rec = NULL;
	return 0;
}

/*
 * A recording a view has merged: only what names it (path, command, host,
 * times, samples) stays for the output's title, with its aggregate's sums.
 */
static void drop_source(struct report_src *s)
{
	struct stack_agg sums = s->agg;

	free_symbols(s);
	stack_agg__release(&s->agg);
	/* its sums and span stay: the checks before writing read them */
	s->agg.nr_samples = sums.nr_samples;
	s->agg.first_ns = sums.first_ns;
	s->agg.last_ns = sums.last_ns;
	s->agg.max_slot = sums.max_slot;
	recording__close(s->rec);
	s->rec = NULL;
}

static void release_source(struct report_src *s)
{
	drop_source(s);
	free(s->hostname);
	free(s->command);
	free(s->cpu_node);
	free(s->cpu_ok);
}

static const struct emitter *find_emitter(unsigned int outputs)
{
	size_t i;

	for (i = 0; i < sizeof(emitters) / sizeof(emitters[0]); i++)
		if (outputs == emitters[i].output)
			return &emitters[i];
	return NULL;
}

/*
 * The timeline has a row per interval from the start to the last sample:
 * refuse, with a longer interval to try, what no one could read (and what
 * would make a file of gigabytes out of one stray sample).
 */
static int check_timeline_rows(const struct report_ctx *rc)
{
	uint64_t rows = 0, width = rc->opts->timeline_ns, secs;
	size_t i;

	for (i = 0; i < rc->nr_srcs; i++) {
		const struct report_src *s = &rc->srcs[i];
		uint64_t n = s->agg.max_slot + 1ull;

		/* the aggregate stops counting slots at UINT32_MAX: the times say more */
		if (s->agg.max_slot == UINT32_MAX && s->agg.last_ns > s->start_ns)
			n = (s->agg.last_ns - s->start_ns) / width + 1;
		if (report_src__counted(s) && n > rows)
			rows = n;
	}
	if (rows <= VIEW_TIMELINE_MAX_ROWS)
		return 0;
	/* a whole number of seconds that fits, rounded up to a power of ten */
	secs = (uint64_t)(((unsigned __int128)rows * width / VIEW_TIMELINE_MAX_ROWS + 999999999) /
			  1000000000);
	for (i = 1; i < secs && i <= UINT64_MAX / 10; i *= 10)
		;
	pr_err("--timeline %.3g s gives %" PRIu64 " intervals, more than %d: choose a longer one "
	       "(e.g. --timeline %zu) or a window with --from/--to", (double)width / 1e9, rows,
	       VIEW_TIMELINE_MAX_ROWS, i);
	return -E2BIG;
}

/* The HTML report's heat map has a column per second: refuse more than a day of them. */
static int check_html_span(const struct report_ctx *rc)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	for (i = 0; i < rc->nr_srcs; i++) {
		const struct report_src *s = &rc->srcs[i];
		uint64_t first;

		if (!report_src__counted(s))
			continue;
		first = s->agg.first_ns > s->start_ns ? s->agg.first_ns - s->start_ns : 0;
		if (first / VIEW_HTML_SLOT_NS < lo)
			lo = first / VIEW_HTML_SLOT_NS;
		if (s->agg.max_slot > hi)
			hi = s->agg.max_slot;
	}
	if (hi < lo || hi - lo <= VIEW_HTML_MAX_SLOTS)
		return 0;
	pr_err("the samples span more than a day: the HTML report shows at most a day (choose a "
	       "window with --from/--to)");
	return -E2BIG;
}

/* The recordings a run reads: --diff's two, the -i list, or the one input. */
static size_t run_paths(const struct report_opts *opts, bool diff, const char **two,
			const char *const **paths)
{
	if (diff) {
		two[0] = opts->diff_base;
		two[1] = opts->diff_new;
		*paths = two;
		return 2;
	}
	if (opts->nr_inputs) {
		*paths = opts->inputs;
		return opts->nr_inputs;
	}
	*paths = &opts->input;
	return 1;
}

/*
 * Loads each recording in turn. Several: the view takes each (merge; it
 * starts once the first is loaded, whose times may title the output), or
 * the store keeps their stacks.
 */
static int load_sources(struct report_ctx *rc, struct report_summary *sum,
			const struct emitter *em, bool merge, void **merged, struct stack_store *store,
			struct sym_tally *unresolved)
{
	size_t i, nr = rc->nr_srcs;
	char what[64];
	int err;

	for (i = 0; i < nr; i++) {
		err = load_source(&rc->srcs[i], rc->opts, em, sum, unresolved);
		if (!err && merge) {
			err = i ? 0 : em->merge->start(merged, rc);
			if (!err)
				err = em->merge->add(*merged, rc, &rc->srcs[i]);
			if (err)
				pr_errno(err, "cannot report '%s'", rc->srcs[i].path);
			drop_source(&rc->srcs[i]);
		} else if (!err && nr > 1) {
			err = compact_source(&rc->srcs[i], em, store);
		}
		if (!err && nr > 1)
			malloc_trim(0);	/* the next file's loading reuses the pages this one freed */
		if (err)
			return err;
		rc->total += rc->srcs[i].nr_samples;
	}
	if (nr > 1 && !merge)
		pr_info("%zu distinct symbolized stacks kept for %zu recordings", store->nr, nr);
	if (unresolved) {
		snprintf(what, sizeof(what), "in %zu recordings", nr);
		sym_tally__print(unresolved, what, stderr);
	}
	return 0;
}

/*
 * Writes the view (merge: from the state merged, that it merged the
 * recordings into) to out, or to -o's file, which a failing view leaves as
 * it was.
 */
static int write_view(struct report_ctx *rc, const struct emitter *em, bool merge, void *merged,
		      FILE *out)
{
	const char *path = rc->opts->output;
	struct outfile of = { 0 };
	int err;

	if (path) {
		err = outfile__open(&of, path);
		if (err)
			return err;
		out = of.f;
	}
	err = merge ? em->merge->write(merged, rc, out) :
		       (rc->diff ? em->write_diff : em->write)(rc, out);
	if (err) {
		pr_errno(err, "cannot write %s to %s%s%s", em->what, path ? "'" : "",
			 path ? path : "the standard output", path ? "'" : "");
		if (path)
			outfile__abort(&of);
		return err;
	}
	return path ? outfile__commit(&of) : 0;
}

int report__run(const struct report_opts *opts, FILE *out, struct report_summary *sum)
{
	struct report_summary local = { 0 };
	struct report_ctx rc = { .opts = opts, .sum = sum ? sum : &local };
	struct stack_store store;
	const struct emitter *em;
	const char *const *paths;
	const char *diff_paths[2];
	struct sym_tally *unresolved = NULL;
	void *merged = NULL;
	size_t i, nr;
	bool merge;
	int err;

	em = find_emitter(opts->outputs);
	rc.diff = opts->diff_base && opts->diff_new;
	if (!em || (rc.diff && !em->write_diff)) {
		pr_err("choose one output%s (see 'eprof report --help')",
		       rc.diff ? " of --fold, --svg, --top or --html with --diff" : "");
		return -EINVAL;
	}
	nr = run_paths(opts, rc.diff, diff_paths, &paths);
	err = outfile__check(opts->output, paths, nr);
	if (err)
		return err;
	rc.srcs = calloc(nr, sizeof(*rc.srcs));
	if (!rc.srcs)
		return pr_errno(-ENOMEM, "cannot report");
	if (!rc.diff && nr > 1) {
		unresolved = sym_tally__new();
		if (!unresolved) {
			free(rc.srcs);
			return pr_errno(-ENOMEM, "cannot report");
		}
	}
	stack_store__init(&store);
	store.names_only = true;	/* --diff compares by names */
	rc.nr_srcs = nr;
	for (i = 0; i < nr; i++) {
		stack_agg__init(&rc.srcs[i].agg);
		rc.srcs[i].path = paths[i];
	}
	merge = nr > 1 && !rc.diff && em->merge;
	err = load_sources(&rc, sum ? sum : &local, em, merge, &merged, &store, unresolved);
	if (!err && em->check)
		err = em->check(&rc);
	if (!err)
		err = write_view(&rc, em, merge, merged, out);
	if (merged)
		em->merge->free(merged);
	for (i = 0; i < rc.nr_srcs; i++)
		release_source(&rc.srcs[i]);
	free(rc.srcs);
	stack_store__release(&store);
	sym_tally__free(unresolved);
	return err;
}

/* gone ticks of any task in the proportion of the fired ticks that were targets'. */
static uint64_t targets_part(uint64_t gone, const struct tick_breakdown *tb)
{
	return tb->fired ? (uint64_t)(((unsigned __int128)gone * tb->kept + tb->fired / 2) /
				      tb->fired) : gone;
}

void report__print_summary(const struct report_summary *sum, FILE *f)
{
	uint64_t permille;

	const struct tick_breakdown *tb = &sum->ticks;
	uint64_t gone = tb->throttled;

	if (sum->weight == REPORT_WEIGHT_WALL)
		fprintf(f, "eprof: times: on-CPU %.3f s (%" PRIu64 " samples x %.3f ms, the sampling "
			"period), blocked %.3f s, runnable %.3f s\n", (double)sum->oncpu_ns / 1e9,
			sum->samples, (double)sum->period_ns / 1e6, (double)sum->blocked_ns / 1e9,
			(double)sum->runnable_ns / 1e9);
	else if (sum->weight == REPORT_WEIGHT_OFFCPU)
		fprintf(f, "eprof: times: blocked %.3f s off the CPU\n",
			(double)sum->blocked_ns / 1e9);
	if (sum->weight != REPORT_WEIGHT_SAMPLES)
		fprintf(f, "eprof: %" PRIu64 " off-CPU intervals and sums, %" PRIu64 " lost (%.3f s), "
			"%" PRIu64 " not followed, %" PRIu64 " without their stack\n",
			sum->offcpu_intervals, sum->offcpu_lost, (double)sum->offcpu_lost_ns / 1e9,
			sum->offcpu_untracked, sum->offcpu_lost_stacks);
	fprintf(f, "eprof: %" PRIu64 " samples, ", sum->samples);
	if (!sum->ticks_known)		/* format v1: the clock's account was not kept */
		fprintf(f, "%" PRIu64 " lost, ", sum->lost_samples);
	else if (tb->kept == tb->fired)	/* -a: every tick is a sample */
		fprintf(f, "%" PRIu64 " lost (%" PRIu64 " throttled, %" PRIu64 " ring buffer full), ",
			sum->lost_samples + gone, tb->throttled, sum->lost_samples);
	else if (gone)
		/*
		 * Throttled ticks of any task: which task one would have hit is
		 * unknown, so the targets' part is estimated from the ticks that
		 * fired (a "0 lost" alone would hide it).
		 */
		fprintf(f, "%" PRIu64 " lost in the ring buffer; the kernel throttled %" PRIu64
			" ticks of any task, about %" PRIu64 " of them this recording's, ",
			sum->lost_samples, gone, targets_part(gone, tb));
	else
		fprintf(f, "%" PRIu64 " lost, ", sum->lost_samples);
	/*
	 * A tick that neither fired nor was throttled is no lost sample: a CPU
	 * with nothing to run stops its timer (tickless idle), and that is
	 * most of them; a late timer is the rest. Said apart, never as lost.
	 */
	if (sum->ticks_known && tb->missed)
		fprintf(f, "%" PRIu64 " ticks did not fire (idle CPUs stop their timer; else a "
			"late timer), ", tb->missed);
	fprintf(f, "%" PRIu64 " stacks not captured, ", sum->lost_stacks);
	/* records lost and the samples they touched (SYM_SIDEBAND_LOST), never silent */
	if (sum->lost_sideband || sum->sideband_lost_samples)
		fprintf(f, "%" PRIu64 " side-band records lost, %" PRIu64 " samples with a "
			"frame in no mapping after it (" SYM_SIDEBAND_LOST "), ",
			sum->lost_sideband, sum->sideband_lost_samples);
	if (!sum->frames) {
		fprintf(f, "no frames to resolve");
	} else {
		/* rounded down: 99.96% must not read as 100.0% */
		permille = (uint64_t)((unsigned __int128)sum->resolved * 1000 / sum->frames);
		fprintf(f, "%" PRIu64 ".%" PRIu64 "%% of frames resolved", permille / 10,
			permille % 10);
	}
	if (sum->unw_walks) {
		permille = (uint64_t)((unsigned __int128)sum->unw_complete * 1000 / sum->unw_walks);
		fprintf(f, "; user stacks: %" PRIu64 ".%" PRIu64 "%% complete, %" PRIu64
			" truncated, %" PRIu64 " with frame-pointer steps", permille / 10,
			permille % 10, sum->unw_truncated, sum->unw_fallback);
	}
	fputc('\n', f);
	if (sum->py_met)
		/* recording-wide, as the recorder counted them: filters do not apply */
		fprintf(f, "eprof: Python: %" PRIu64 " samples with Python frames of %" PRIu64
			" in interpreters; %" PRIu64 " walks stopped early (%" PRIu64 " frame "
			"unreadable, %" PRIu64 " depth limit, %" PRIu64 " stack copy, %" PRIu64
			" unknown version%s%s)\n", sum->py_samples, sum->py_walks + sum->py_copy + sum->py_unknown,
			sum->py_unreadable + sum->py_depth + sum->py_copy + sum->py_unknown,
			sum->py_unreadable, sum->py_depth, sum->py_copy, sum->py_unknown,
			sum->py_unknown_first[0] ? ": Python " : "", sum->py_unknown_first);
	sym_sources__print(sum->by_source, "eprof: frames named by:", f);
}
