/* SPDX-License-Identifier: MIT */
/*
 * report/pipeline.h - `eprof report` without its command line:
 * recording -> aggregate -> symbolize -> the chosen outputs.
 *
 * cmd_report.c turns argv into struct report_opts; tests call
 * report__run() directly with an open_memstream() stream.
 */
#ifndef EPROF_REPORT_PIPELINE_H
#define EPROF_REPORT_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/symbolize/symbolize.h"

enum report_output {
	REPORT_OUT_FOLD = 1u << 0,
	REPORT_OUT_SVG = 1u << 1,
	REPORT_OUT_TOP = 1u << 2,
	REPORT_OUT_PERCPU = 1u << 3,
	REPORT_OUT_PERNODE = 1u << 4,
	REPORT_OUT_TIMELINE = 1u << 5,
	REPORT_OUT_PPROF = 1u << 6,
	REPORT_OUT_SAMPLES = 1u << 7,
	REPORT_OUT_HTML = 1u << 8,
	REPORT_OUT_SPEEDSCOPE = 1u << 9,
	REPORT_OUT_FIREFOX = 1u << 10,
};

/* The level --by adds at the root of fold, SVG and HTML output, and groups top by. */
enum report_by {
	REPORT_BY_NONE,
	REPORT_BY_PID,
	REPORT_BY_TID,
	REPORT_BY_COMM,
	REPORT_BY_CGROUP,	/* the cgroup (v2) path the thread ran in */
	REPORT_BY_FILE,		/* the recording (-i FILE) a sample came from */
};

/* Whether --by adds a level above the comm (the comm is the root anyway). */
static inline int report_by__level(enum report_by by)
{
	return by == REPORT_BY_PID || by == REPORT_BY_TID || by == REPORT_BY_CGROUP ||
	       by == REPORT_BY_FILE;
}

/* What a stack's count is (--off-cpu, --wall): samples, or nanoseconds. */
enum report_weight {
	REPORT_WEIGHT_SAMPLES,		/* on-CPU samples (the default) */
	REPORT_WEIGHT_OFFCPU,		/* ns blocked off the CPU */
	REPORT_WEIGHT_WALL,		/* ns on the CPU (samples x period), blocked, runnable */
};

/* Which half of each stack is kept (--kernel-only, --user-only). */
enum report_half {
	REPORT_HALF_BOTH,
	REPORT_HALF_KERNEL,
	REPORT_HALF_USER,
};

struct report_opts {
	const char *input;		/* the recording, when nr_inputs is 0 */
	const char *output;		/* file to create; NULL: the stream given to report__run */
	unsigned int outputs;		/* enum report_output, exactly one */
	struct sym_opts sym;		/* local files, --debug-dir, --inline, --lines */

	/* several -i (merged into one report), or --diff BASE NEW (both set) */
	const char *const *inputs;
	size_t nr_inputs;
	const char *diff_base;
	const char *diff_new;

	/* filters (sorted lists, as parse_u32_list() makes them; NULL: all) */
	const uint32_t *pids;
	size_t nr_pids;
	const uint32_t *tids;
	size_t nr_tids;
	const char *comm;
	const uint32_t *xpids;		/* left out: --exclude-pid, --exclude-comm */
	size_t nr_xpids;
	const char *xcomm;
	const uint32_t *cpus;
	size_t nr_cpus;
	const uint32_t *nodes;
	size_t nr_nodes;
	uint64_t from_ns;		/* from each recording's start */
	uint64_t to_ns;
	bool has_to;
	enum report_half half;
	enum report_weight weight;	/* not samples: every count is in ns */

	/* presentation */
	enum report_by by;
	bool icicle;			/* --svg */
	bool csv;			/* --timeline */
	const char *title;		/* --svg */
	unsigned int top_n;		/* --top; 0: 20 */
	uint64_t timeline_ns;		/* --timeline interval */
};

/* What the closing stderr line says. */
struct report_summary {
	uint64_t samples;
	uint64_t lost_samples;		/* ring buffer full */
	uint64_t lost_stacks;		/* user + kernel stacks not captured */
	uint64_t truncated_stacks;	/* deeper than the capture limit */
	uint64_t lost_sideband;		/* side-band records the kernel dropped */
	uint64_t sideband_lost_samples;	/* samples they touched (sym_stats) */
	bool ticks_known;		/* every recording has tick rows (format v2) */
	bool unknown_ticks;		/* some recording has none */
	struct tick_breakdown ticks;	/* their sum */
	uint64_t frames;		/* weighted by samples */
	uint64_t resolved;
	uint64_t by_source[SYM_SRC_MAX];	/* frames by where their name came from */
	uint64_t missing_stack_samples;
	uint64_t filtered;		/* samples the filters left out */
	uint64_t cut_ns;		/* time (--off-cpu, --wall) --kernel/user-only left out */
	size_t distinct_keys;		/* aggregate entries */
	size_t symbolized;		/* distinct stacks symbolized */
	/* how user stacks were unwound (--call-graph dwarf recordings) */
	uint64_t unw_walks;
	uint64_t unw_complete;		/* reached the outermost frame */
	uint64_t unw_truncated;		/* cut at the depth limit */
	uint64_t unw_fallback;		/* with a frame-pointer step */
	/* Python frames (REC_META_PY_*), for whole recordings */
	bool py_met;			/* some recording met an interpreter */
	uint64_t py_walks, py_samples, py_unreadable, py_depth, py_copy, py_unknown;
	char py_unknown_first[64];	/* "3.10 (process 12)" of the first such recording */
	/* --off-cpu, --wall: what the time is made of */
	enum report_weight weight;
	uint64_t oncpu_ns, blocked_ns, runnable_ns;
	uint64_t period_ns;		/* of the samples converted (the first recording's) */
	uint64_t offcpu_intervals;	/* intervals and sums counted */
	uint64_t offcpu_lost, offcpu_lost_ns, offcpu_untracked, offcpu_lost_stacks;
};

/* A count as text: "123" samples, or a time ("1.23 s", "45.6 ms") when weighing by time. */
const char *report__count_str(const struct report_opts *o, uint64_t n, char *buf, size_t len);

/*
 * Reads the recording(s) and writes the selected outputs to opts->output, created
 * only once the recording has been read (a bad input leaves no empty file
 * behind), or to out when opts->output is NULL. Fills *sum (may be NULL).
 * Returns 0 or a negative errno after printing one line.
 */
int report__run(const struct report_opts *opts, FILE *out, struct report_summary *sum);

/* "eprof: 12345 samples, 0 lost, 3 stacks not captured, 98.7% of frames resolved" */
void report__print_summary(const struct report_summary *sum, FILE *f);

#endif
