/* SPDX-License-Identifier: MIT */
/*
 * report/view.h - what every report view (fold, SVG, top, per-CPU,
 * per-node, timeline, diff, pprof) reads, and the helpers they share.
 *
 * The pipeline (pipeline.c) fills one report_src per recording: its
 * filtered aggregate, resolved by its own symbolizer, and the metadata the
 * views print. Views never look at samples: they walk the aggregates, whose
 * size follows the number of distinct keys. A view that merges recordings
 * (several -i) does it by names (of frames, functions, comms), since stack
 * ids and comm ids mean nothing across files.
 */
#ifndef EPROF_REPORT_VIEW_H
#define EPROF_REPORT_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/aggregate/aggregate.h"
#include "report/aggregate/strtab.h"
#include "report/pipeline.h"
#include "report/symbolize/symbolize.h"
#include "util/strbuf.h"

struct recording;
struct symbolizer;
struct sym_frame;
struct sym_stack;

/* Rows the timeline writes at most (the pipeline refuses more with a hint). */
#define VIEW_TIMELINE_MAX_ROWS	100000

/* The time buckets of the HTML report: its heat map's finest step. */
#define VIEW_HTML_SLOT_NS	10000000ull
/* Its buckets from the start at most: a day (a column per second). */
#define VIEW_HTML_MAX_SLOTS	(86400ull * 1000000000 / VIEW_HTML_SLOT_NS)

/*
 * One recording, read and resolved. Views read an entry's stack in the
 * table, not in the aggregate (report_src__stack), and pass over the
 * entries that report_src__next() does: no count, or cut away whole.
 */
struct report_src {
	const char *path;
	struct recording *rec;
	struct stack_agg agg;		/* as loading counted it */
	struct symbolizer *sym;
	struct sym_table stacks;	/* agg's entries' stacks; NULL: cut away whole */
	uint64_t nr_cut_away;		/* agg's count in the entries cut away whole */
	uint64_t cut_away_samples;	/* of which samples (the rest is ns of time) */
	uint64_t nr_samples;		/* counted, after every filter and cut */
	uint64_t start_ns;		/* meta start_ns, else the first sample's time */
	uint64_t end_ns;		/* meta end_ns, else the last sample's time */
	uint64_t freq_hz;		/* 0: unknown */
	uint64_t start_realtime;	/* seconds since the epoch; 0: unknown */
	char *hostname;			/* NULL: unknown */
	char *command;			/* the recorded command line; NULL: unknown */
	int32_t *cpu_node;		/* from meta numa_map; -1: not listed */
	size_t nr_cpu_node;
	struct sym_stack **cut;		/* --kernel-only/--user-only copies, owned */
	size_t nr_cut;
	struct agg_config cfg;		/* what loaded agg: the filters, to walk the samples again */
	bool *cpu_ok;			/* cfg.cpu_ok, owned */
};

/* The symbolized stack of s's entry e (NULL: --kernel/user-only left nothing of it). */
static inline const struct sym_stack *report_src__stack(const struct report_src *s,
							const struct agg_entry *e)
{
	return s->stacks.stack[e - s->agg.entries];
}

/* Whether s's entry k is in the report: a count, and a stack left by the cuts. */
static inline bool report_src__kept(const struct report_src *s, size_t k)
{
	return s->agg.entries[k].count && s->stacks.stack[k];
}

/* The entry from *k on that is in the report, *k moved past it; NULL after the last. */
static inline const struct agg_entry *report_src__next(const struct report_src *s, size_t *k)
{
	while (*k < s->agg.nr)
		if (report_src__kept(s, (*k)++))
			return &s->agg.entries[*k - 1];
	return NULL;
}

/* What s counted after the cuts, in its aggregate's unit (kept after the view merged it). */
static inline uint64_t report_src__counted(const struct report_src *s)
{
	return s->agg.nr_samples - s->nr_cut_away;
}

struct report_ctx {
	const struct report_opts *opts;
	struct report_src *srcs;
	size_t nr_srcs;
	uint64_t total;			/* samples over every source */
	bool diff;			/* srcs[0] is the base, srcs[1] the new recording */
	const struct report_summary *sum;	/* losses and frames named, complete */
};

/* The NUMA node of cpu in s, or -1. */
static inline int32_t report_src__node(const struct report_src *s, uint32_t cpu)
{
	return cpu < s->nr_cpu_node ? s->cpu_node[cpu] : -1;
}

/*
 * Parses a numa_map value ("0:0,1:0,2:1") into a cpu -> node array (-1 for
 * cpus not listed). 0, -EINVAL (malformed) or -ENOMEM.
 */
int view__parse_numa_map(const char *map, int32_t **cpu_node, size_t *nr);

/* --- the names of a stack, root first ---------------------------------- */

/*
 * Frame names of an entry from the root: the --by level ("pid 1234",
 * "tid 1235", the cgroup path; none for comm or no --by, the comm being
 * the root anyway),
 * the comm, user frames outermost first, then kernel frames outermost first
 * with "_[k]". A stack without frames gets "[unknown]". Names are sanitized
 * as in the folded output (';' -> ':', control bytes -> '?').
 */
struct view_names {
	struct strbuf sb;
	size_t *offs;
	const char **names;
	size_t nr, alloc;
};

#define VIEW_NAMES_INIT { STRBUF_INIT, NULL, NULL, 0, 0 }

int view_names__build(struct view_names *v, const struct report_ctx *rc,
		      const struct report_src *s, const struct agg_entry *e);
void view_names__release(struct view_names *v);

/* The --by level text of an entry into sb ("pid 1234", "tid 1235", the comm, the cgroup). */
void view__by_label(struct strbuf *sb, enum report_by by, const struct report_src *s,
		    const struct agg_entry *e);

/* --- functions ------------------------------------------------------------- */

/*
 * Functions, identified by display name and binary across recordings: a
 * user function is its symbol name in its binary (mapping path), a kernel
 * one its name (no "_[k]": the binary says kernel) in "[kernel.kallsyms]"
 * or its module, a Python one "qualname_[py]" in its .py file (the line
 * that ran is the stack views' business, as pprof keeps it apart).
 */
struct func_tab {
	struct strtab keys;		/* "name\x01binary" -> id */
	struct strtab strs;		/* display names */
	const char **name;		/* id -> display name (interned) */
	const char **binary;
	uint32_t *mark;			/* id -> last stamp that saw it (distinct per sample) */
	size_t alloc;
	uint32_t stamp;
	uint32_t *ids;			/* func_tab__stack(): the stack's distinct functions */
	size_t nr_ids, alloc_ids;
	struct strbuf sb;		/* scratch */
};

void func_tab__init(struct func_tab *ft);
void func_tab__release(struct func_tab *ft);
static inline uint32_t func_tab__nr(const struct func_tab *ft)
{
	return ft->keys.nr;
}

/* The id of frame f. 0 or -ENOMEM. */
int func_tab__frame(struct func_tab *ft, const struct sym_frame *f, uint32_t *id);

/*
 * The leaf function of st (its innermost frame; "[unknown]" for an empty
 * stack) and the distinct functions on it in ft->ids[0 .. ft->nr_ids), each
 * once even under recursion. 0 or -ENOMEM.
 */
int func_tab__stack(struct func_tab *ft, const struct sym_stack *st, uint32_t *leaf);

/* Grows the per-function count arrays *self and *total (when not NULL) to ft's size. */
int func_tab__grow_counts(const struct func_tab *ft, uint64_t **counts, size_t *alloc);

/* Writes s as a CSV field (quoted when it holds ',', '"' or a line break). */
void view__csv_field(FILE *out, const char *s);

/* "100.0%": part of whole in percent, 0 for an empty whole. */
static inline double view__pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}


/* Returns -EIO (or -errno) when out has seen a write error, else 0. */
int view__check_stream(FILE *out);

/* --- merging several recordings, one at a time --------------------------- */

/*
 * A view that merges several recordings keeps only what it writes (its
 * folded lines, its tree, its functions, its profile): the pipeline hands
 * it each recording once resolved (add), frees that recording's aggregate,
 * symbols and file before reading the next, and asks for the output once
 * all are in (write). Its memory follows the distinct lines, frames or
 * functions of the whole, not the number of recordings.
 */
struct view_merge_ops {
	int (*start)(void **state, const struct report_ctx *rc);
	/* s is one of rc->srcs, resolved; it is freed once add returns */
	int (*add)(void *state, const struct report_ctx *rc, const struct report_src *s);
	int (*write)(void *state, const struct report_ctx *rc, FILE *out);
	void (*free)(void *state);	/* accepts NULL */
};

extern const struct view_merge_ops view_fold_merge;
extern const struct view_merge_ops view_svg_merge;
extern const struct view_merge_ops view_top_merge;
extern const struct view_merge_ops view_percpu_merge;
extern const struct view_merge_ops view_pernode_merge;
extern const struct view_merge_ops view_pprof_merge;
extern const struct view_merge_ops view_html_merge;
extern const struct view_merge_ops view_timeline_merge;
extern const struct view_merge_ops view_speedscope_merge;
extern const struct view_merge_ops view_firefox_merge;

/* start, add every one of rc->srcs, write, free: a view's write from its merge. */
int view__write_merged(const struct view_merge_ops *ops, const struct report_ctx *rc, FILE *out);

/* --- the emitters (one per report_output) ---------------------------------- */

int view_fold__write(const struct report_ctx *rc, FILE *out);
int view_svg__write(const struct report_ctx *rc, FILE *out);
int view_top__write(const struct report_ctx *rc, FILE *out);
int view_percpu__write(const struct report_ctx *rc, FILE *out);
int view_pernode__write(const struct report_ctx *rc, FILE *out);
int view_timeline__write(const struct report_ctx *rc, FILE *out);
int view_pprof__write(const struct report_ctx *rc, FILE *out);
int view_samples__write(const struct report_ctx *rc, FILE *out);
int view_html__write(const struct report_ctx *rc, FILE *out);
int view_html_diff__write(const struct report_ctx *rc, FILE *out);
int view_speedscope__write(const struct report_ctx *rc, FILE *out);
int view_firefox__write(const struct report_ctx *rc, FILE *out);
int view_diff_fold__write(const struct report_ctx *rc, FILE *out);
int view_diff_top__write(const struct report_ctx *rc, FILE *out);

#endif
