// SPDX-License-Identifier: MIT
/*
 * report/cmd_report.c - `eprof report`: options to struct report_opts, the
 * output stream, and the one summary line on stderr.
 *
 * The pipeline (pipeline.c) creates the output file only once the
 * recording has been read, and a failed write or close of it is an error:
 * a half-written flame graph input must not look like a success.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/pipeline.h"
#include "report/report.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/parse.h"
#include "util/status.h"

static void print_report_usage(FILE *f)
{
	fprintf(f, "usage: eprof report [-i FILE]... [filters] [OUTPUT] [-o OUT] [-v]\n"
		   "       eprof report --diff BASE NEW [filters] (--fold | --svg OUT | --top [N] |\n"
		   "                                              --html OUT)\n\n"
		   "   -i, --input FILE    a recording (default: eprof.data); several are merged\n"
		   "   --diff BASE NEW     compare two recordings, shares normalized by each total\n"
		   "outputs (one; the default is --top):\n"
		   "   --fold              folded stacks, one line per stack (flamegraph.pl input);\n"
		   "                       with --diff: \"stack base_count new_count\" (raw counts)\n"
		   "   --svg OUT           interactive flame graph (--icicle: top-down, --title TEXT);\n"
		   "                       with --diff: red where NEW grew, blue where it shrank\n"
		   "   --top [N]           top N functions (default 20) by self and by total;\n"
		   "                       with --diff: largest changes of total share, then of\n"
		   "                       self share, each with its noise\n"
		   "   --per-cpu           samples and top functions of each CPU\n"
		   "   --per-node          samples and top functions of each NUMA node\n"
		   "   --timeline SECONDS  one row per interval with the top functions' shares (--csv)\n"
		   "   --pprof OUT         gzip profile.proto for go tool pprof and others\n"
		   "   --html OUT          one page: heat map, per-CPU strips, time ranges, flame\n"
		   "                       graph, top table and diff of two ranges (no network)\n"
		   "   --speedscope OUT    speedscope's JSON file format: a profile per thread\n"
		   "   --firefox OUT       Firefox Profiler's processed format: a track per thread,\n"
		   "                       samples with their times, off-CPU intervals as markers\n"
		   "   --samples           every sample in time order, as perf script prints them\n"
		   "filters:\n"
		   "   --pid LIST, --tid LIST, --cpu LIST, --node LIST   e.g. 1,4-7\n"
		   "   --comm NAME         threads of that name (at the time of the sample)\n"
		   "   --exclude-pid LIST, --exclude-comm NAME   leave those out (the idle task:\n"
		   "                       --exclude-pid 0)\n"
		   "   --from SECONDS, --to SECONDS   a window from the start of each recording\n"
		   "   --kernel-only, --user-only     keep that half of each stack\n"
		   "weights (recordings made with record --off-cpu; counts become time):\n"
		   "   --off-cpu           time blocked off the CPU (sleeps, I/O, locks, pipes)\n"
		   "   --wall              wall time: on-CPU (samples x period), blocked and\n"
		   "                       runnable (preempted) time; --by tid: a tower per thread;\n"
		   "                       --fold counts are microseconds; --html has all three\n"
		   "                       views and opens on this one\n"
		   "   --by pid|tid|comm|cgroup|file   add that level at the root (fold, SVG,\n"
		   "                       HTML); group --top by it (file: the -i recording)\n"
		   "   -o, --output OUT    write to OUT instead of stdout\n"
		   "   --debug-dir DIR     look for debug files (by build-id) in DIR first; repeatable\n"
		   "   --inline            inlined functions as frames of their own (needs DWARF)\n"
		   "   --lines             append :FILE:LINE to function names (needs DWARF)\n"
		   "   --no-demangle       show C++ and Rust names as the binary spells them\n"
		   "   --short-names       C++ names without parameter lists and return types\n"
		   "                       (overloads merge): smaller flame graphs\n"
		   "   --no-python         the interpreter's native frames (_PyEval_EvalFrameDefault)\n"
		   "                       in place of the Python frames they ran\n"
		   "   --debuginfod[=URLS] fetch debug files no local file gives by build-id from\n"
		   "                       the servers URLS (space-separated), else DEBUGINFOD_URLS;\n"
		   "                       on by default when DEBUGINFOD_URLS is set\n"
		   "   --no-debuginfod     never ask a debuginfod server, even with DEBUGINFOD_URLS\n"
		   "   -v, --verbose       say more on stderr\n"
		   "   -h, --help          this text\n");
}

enum { OPT_FOLD = 0x100, OPT_DEBUG_DIR, OPT_INLINE, OPT_LINES, OPT_NO_DEMANGLE, OPT_SHORT_NAMES, OPT_DEBUGINFOD,
       OPT_NO_DEBUGINFOD, OPT_NO_PYTHON,
       /* the views (report_view_option()) */
       OPT_VIEW_FIRST, OPT_SVG = OPT_VIEW_FIRST, OPT_TOP, OPT_PERCPU, OPT_PERNODE, OPT_TIMELINE,
       OPT_PPROF, OPT_DIFF, OPT_PID, OPT_TID, OPT_COMM, OPT_CPU, OPT_NODE, OPT_FROM, OPT_TO,
       OPT_KERNEL_ONLY, OPT_USER_ONLY, OPT_BY, OPT_ICICLE, OPT_CSV, OPT_TITLE, OPT_SAMPLES,
       OPT_HTML, OPT_OFF_CPU, OPT_WALL, OPT_XPID, OPT_XCOMM, OPT_SPEEDSCOPE,
       OPT_FIREFOX };

#define MAX_DEBUG_DIRS	64

static const struct option long_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "fold", no_argument, NULL, OPT_FOLD },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "short-names", no_argument, NULL, OPT_SHORT_NAMES },
	{ "no-python", no_argument, NULL, OPT_NO_PYTHON },
	{ "debuginfod", optional_argument, NULL, OPT_DEBUGINFOD },
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "top", optional_argument, NULL, OPT_TOP },
	{ "per-cpu", no_argument, NULL, OPT_PERCPU },
	{ "per-node", no_argument, NULL, OPT_PERNODE },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "pprof", required_argument, NULL, OPT_PPROF },
	{ "samples", no_argument, NULL, OPT_SAMPLES },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "speedscope", required_argument, NULL, OPT_SPEEDSCOPE },
	{ "firefox", required_argument, NULL, OPT_FIREFOX },
	{ "diff", required_argument, NULL, OPT_DIFF },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "exclude-pid", required_argument, NULL, OPT_XPID },
	{ "exclude-comm", required_argument, NULL, OPT_XCOMM },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "node", required_argument, NULL, OPT_NODE },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "kernel-only", no_argument, NULL, OPT_KERNEL_ONLY },
	{ "user-only", no_argument, NULL, OPT_USER_ONLY },
	{ "by", required_argument, NULL, OPT_BY },
	{ "icicle", no_argument, NULL, OPT_ICICLE },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "wall", no_argument, NULL, OPT_WALL },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The one-line message for a getopt failure (opterr is off). */
static int usage_error(char **argv, int opt)
{
	const char *arg = argv[optind - 1];

	if (opt == ':')
		pr_err("option '%s' needs a value (see 'eprof report --help')", arg);
	else if (optopt > 0 && optopt < 0x80)
		pr_err("unknown option '-%c' (see 'eprof report --help')", optopt);
	else
		pr_err("unknown option '%s' (see 'eprof report --help')", arg);
	return EXIT_USAGE;
}

/* What the view options collect before they land in report_opts. */
struct view_args {
	const char **inputs;		/* every -i */
	size_t nr_inputs;
	uint32_t *pids, *tids, *cpus, *nodes, *xpids;
	const char *file;		/* --svg OUT, --pprof OUT */
	bool kernel_only, user_only;
};

static void view_args__release(struct view_args *va)
{
	free(va->inputs);
	free(va->pids);
	free(va->tids);
	free(va->cpus);
	free(va->nodes);
	free(va->xpids);
}

static int parse_list(const char *opt, const char *arg, uint32_t max, uint32_t **v, size_t *nr)
{
	free(*v);
	*v = NULL;
	if (parse_u32_list(arg, max, v, nr) || !*nr) {
		pr_err("%s wants a list like 1,4-7, not '%s' (see 'eprof report --help')", opt, arg);
		return -EINVAL;
	}
	return 0;
}

static int parse_secs(const char *opt, const char *arg, uint64_t *ns)
{
	if (parse_seconds_ns(arg, ns)) {
		pr_err("%s wants seconds like 2 or 0.5, not '%s' (see 'eprof report --help')", opt,
		       arg);
		return -EINVAL;
	}
	return 0;
}

/* The view options (which output); 0, -EINVAL after one line, or -ENOENT: not one of these. */
static int report_output_option(int opt, int argc, char **argv, struct report_opts *o,
				struct view_args *va)
{
	uint64_t v;

	switch (opt) {
	case OPT_SVG:
	case OPT_PPROF:
	case OPT_HTML:
	case OPT_SPEEDSCOPE:
	case OPT_FIREFOX:
		if (!optarg[0]) {
			pr_err("an empty file name was given (see 'eprof report --help')");
			return -EINVAL;
		}
		o->outputs |= opt == OPT_SVG ? REPORT_OUT_SVG :
			      opt == OPT_HTML ? REPORT_OUT_HTML :
			      opt == OPT_SPEEDSCOPE ? REPORT_OUT_SPEEDSCOPE :
			      opt == OPT_FIREFOX ? REPORT_OUT_FIREFOX : REPORT_OUT_PPROF;
		va->file = optarg;
		return 0;
	case OPT_TOP:
		/* "--top N" as well as "--top=N": a number right after is the count */
		if (!optarg && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9')
			optarg = argv[optind++];
		if (optarg && parse_u64(optarg, 1, 1000000, &v)) {
			pr_err("--top wants a count from 1, not '%s' (see 'eprof report --help')",
			       optarg);
			return -EINVAL;
		}
		o->top_n = optarg ? (unsigned int)v : 0;
		o->outputs |= REPORT_OUT_TOP;
		return 0;
	case OPT_PERCPU:
		o->outputs |= REPORT_OUT_PERCPU;
		return 0;
	case OPT_SAMPLES:
		o->outputs |= REPORT_OUT_SAMPLES;
		return 0;
	case OPT_PERNODE:
		o->outputs |= REPORT_OUT_PERNODE;
		return 0;
	case OPT_TIMELINE:
		if (parse_secs("--timeline", optarg, &o->timeline_ns))
			return -EINVAL;
		if (!o->timeline_ns) {
			pr_err("--timeline wants an interval above 0 seconds");
			return -EINVAL;
		}
		o->outputs |= REPORT_OUT_TIMELINE;
		return 0;
	case OPT_DIFF:
		if (optind >= argc || !optarg[0] || !argv[optind][0] || argv[optind][0] == '-') {
			pr_err("--diff wants two recordings: --diff BASE NEW (see 'eprof report --help')");
			return -EINVAL;
		}
		o->diff_base = optarg;
		o->diff_new = argv[optind++];
		return 0;
	default:
		return -ENOENT;
	}
}

/* The filters; 0, -EINVAL after one line, or -ENOENT: not one of these. */
static int report_filter_option(int opt, struct report_opts *o, struct view_args *va)
{
	switch (opt) {
	case OPT_PID:
		return parse_list("--pid", optarg, UINT32_MAX - 1, &va->pids, &o->nr_pids);
	case OPT_TID:
		return parse_list("--tid", optarg, UINT32_MAX - 1, &va->tids, &o->nr_tids);
	case OPT_CPU:
		return parse_list("--cpu", optarg, 65535, &va->cpus, &o->nr_cpus);
	case OPT_NODE:
		return parse_list("--node", optarg, 65535, &va->nodes, &o->nr_nodes);
	case OPT_COMM:
		o->comm = optarg;
		return 0;
	case OPT_XPID:
		return parse_list("--exclude-pid", optarg, UINT32_MAX - 1, &va->xpids, &o->nr_xpids);
	case OPT_XCOMM:
		o->xcomm = optarg;
		return 0;
	case OPT_FROM:
		return parse_secs("--from", optarg, &o->from_ns);
	case OPT_TO:
		o->has_to = true;
		return parse_secs("--to", optarg, &o->to_ns);
	case OPT_KERNEL_ONLY:
		va->kernel_only = true;
		return 0;
	case OPT_USER_ONLY:
		va->user_only = true;
		return 0;
	default:
		return -ENOENT;
	}
}

/* The options of the views and filters; 0 or -EINVAL after one line. */
static int report_view_option(int opt, int argc, char **argv, struct report_opts *o,
			      struct view_args *va)
{
	int err = report_output_option(opt, argc, argv, o, va);

	if (err == -ENOENT)
		err = report_filter_option(opt, o, va);
	if (err != -ENOENT)
		return err;
	switch (opt) {
	case OPT_BY:
		if (!strcmp(optarg, "pid"))
			o->by = REPORT_BY_PID;
		else if (!strcmp(optarg, "tid"))
			o->by = REPORT_BY_TID;
		else if (!strcmp(optarg, "comm"))
			o->by = REPORT_BY_COMM;
		else if (!strcmp(optarg, "cgroup"))
			o->by = REPORT_BY_CGROUP;
		else if (!strcmp(optarg, "file"))
			o->by = REPORT_BY_FILE;
		else {
			pr_err("--by wants pid, tid, comm, cgroup or file, not '%s'", optarg);
			return -EINVAL;
		}
		return 0;
	case OPT_ICICLE:
		o->icicle = true;
		return 0;
	case OPT_CSV:
		o->csv = true;
		return 0;
	case OPT_TITLE:
		o->title = optarg;
		return 0;
	case OPT_OFF_CPU:
	case OPT_WALL:
		if (o->weight) {
			pr_err("--off-cpu and --wall exclude each other");
			return -EINVAL;
		}
		o->weight = opt == OPT_WALL ? REPORT_WEIGHT_WALL : REPORT_WEIGHT_OFFCPU;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Options that make no sense together; 0 or -EINVAL after one line. */
/*
 * Several -i merge their samples, so one file named twice (by the same
 * path or another) would count each sample twice: refuse it.
 */
static bool same_input_twice(const struct view_args *va)
{
	struct stat a, b;
	size_t i, j;

	for (i = 0; i < va->nr_inputs; i++) {
		if (stat(va->inputs[i], &a))
			continue;	/* opening it says what is wrong */
		for (j = i + 1; j < va->nr_inputs; j++) {
			if (!stat(va->inputs[j], &b) && a.st_dev == b.st_dev &&
			    a.st_ino == b.st_ino) {
				pr_err("'%s' and '%s' are the same recording: name it once "
				       "(-i merges its samples, so they would count twice)",
				       va->inputs[i], va->inputs[j]);
				return true;
			}
		}
	}
	return false;
}

static int check_view_options(struct report_opts *o, struct view_args *va)
{
	unsigned int out = o->outputs;
	const unsigned int with_file = REPORT_OUT_SVG | REPORT_OUT_PPROF | REPORT_OUT_HTML |
				       REPORT_OUT_SPEEDSCOPE | REPORT_OUT_FIREFOX;

	if (!out)	/* as perf report: no view asked for is the top table */
		o->outputs = out = REPORT_OUT_TOP;
	if (out & (out - 1)) {
		pr_err("choose one output of --fold, --svg, --top, --per-cpu, --per-node, "
		       "--timeline, --pprof, --samples, --html, --speedscope, --firefox");
		return -EINVAL;
	}
	if (o->diff_base && va->nr_inputs) {
		pr_err("--diff BASE NEW names its recordings: drop -i");
		return -EINVAL;
	}
	if (o->diff_base && !(out & (REPORT_OUT_FOLD | REPORT_OUT_SVG | REPORT_OUT_TOP | REPORT_OUT_HTML))) {
		pr_err("--diff works with --fold, --svg, --top or --html");
		return -EINVAL;
	}
	if ((out & with_file) && o->output) {
		pr_err("%s names its file: drop -o", out & REPORT_OUT_SVG ? "--svg" :
		       out & REPORT_OUT_HTML ? "--html" :
		       out & REPORT_OUT_SPEEDSCOPE ? "--speedscope" :
		       out & REPORT_OUT_FIREFOX ? "--firefox" : "--pprof");
		return -EINVAL;
	}
	if (va->kernel_only && va->user_only) {
		pr_err("--kernel-only and --user-only exclude each other");
		return -EINVAL;
	}
	if ((o->icicle || o->title) && !(out & REPORT_OUT_SVG)) {
		pr_err("%s goes with --svg", o->icicle ? "--icicle" : "--title");
		return -EINVAL;
	}
	if (o->csv && !(out & REPORT_OUT_TIMELINE)) {
		pr_err("--csv goes with --timeline");
		return -EINVAL;
	}
	if (o->by && (!(out & (REPORT_OUT_FOLD | REPORT_OUT_SVG | REPORT_OUT_TOP |
			       REPORT_OUT_HTML)) || (o->diff_base && (out & REPORT_OUT_TOP)))) {
		pr_err("--by goes with --fold, --svg, --top or --html (not --diff --top)");
		return -EINVAL;
	}
	if (o->weight && (out & REPORT_OUT_SAMPLES)) {
		pr_err("%s weighs stacks by time: it goes with --fold, --svg, --top, --per-cpu, "
		       "--per-node, --timeline, --pprof, --html, --speedscope or --firefox", o->weight == REPORT_WEIGHT_WALL ?
		       "--wall" : "--off-cpu");
		return -EINVAL;
	}
	if (o->has_to && o->to_ns <= o->from_ns) {
		pr_err("--to must come after --from");
		return -EINVAL;
	}
	if (out & with_file)
		o->output = va->file;
	o->half = va->kernel_only ? REPORT_HALF_KERNEL :
		  va->user_only ? REPORT_HALF_USER : REPORT_HALF_BOTH;
	o->pids = va->pids;
	o->xpids = va->xpids;
	o->tids = va->tids;
	o->cpus = va->cpus;
	o->nodes = va->nodes;
	if (va->nr_inputs > 1) {
		if (same_input_twice(va))
			return -EINVAL;
		o->inputs = va->inputs;
		o->nr_inputs = va->nr_inputs;
	}
	return 0;
}

/*
 * The filters as given ("--comm nosuch --from 100"), for the note that
 * they matched nothing; NULL when none was given (or on ENOMEM).
 */
static char *filters_given(int argc, char **argv)
{
	static const char *const names[] = { "--pid", "--tid", "--comm", "--cpu", "--node",
					     "--from", "--to", "--exclude-pid", "--exclude-comm" };
	struct strbuf sb = STRBUF_INIT;
	size_t k, len;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			len = strlen(names[k]);
			if (strncmp(argv[i], names[k], len))
				continue;
			if (argv[i][len] == '=') {
				strbuf_addf(&sb, "%s%s", sb.len ? " " : "", argv[i]);
			} else if (!argv[i][len] && i + 1 < argc) {
				strbuf_addf(&sb, "%s%s %s", sb.len ? " " : "", argv[i], argv[i + 1]);
				i++;
			}
			break;
		}
	}
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

/*
 * An empty report is no error (perf's filters say nothing either), but it
 * must not look like a recording without samples: say which it is.
 */
static void note_empty(const struct report_summary *sum, int argc, char **argv)
{
	char *filters;

	if (sum->samples || sum->offcpu_intervals)	/* --off-cpu counts no sample */
		return;
	if (!sum->filtered) {
		pr_notice("the recording has no samples");
		return;
	}
	filters = filters_given(argc, argv);
	pr_notice("no samples match %s (%" PRIu64 " sample%s in the recording)",
		  filters ? filters : "the filters", sum->filtered, sum->filtered == 1 ? "" : "s");
	free(filters);
}

/* The options of symbolization; 0 or -EINVAL after one line. */
static int report_sym_option(int opt, struct sym_opts *so, const char **debug_dirs)
{
	const char *env;

	switch (opt) {
	case OPT_DEBUG_DIR:
		if (!optarg[0] || so->nr_debug_dirs == MAX_DEBUG_DIRS) {
			pr_err("%s --debug-dir (see 'eprof report --help')",
			       optarg[0] ? "too many" : "an empty directory name for");
			return -EINVAL;
		}
		debug_dirs[so->nr_debug_dirs++] = optarg;
		return 0;
	case OPT_INLINE:
		so->inline_frames = true;
		return 0;
	case OPT_LINES:
		so->lines = true;
		return 0;
	case OPT_NO_DEMANGLE:
		so->no_demangle = true;
		return 0;
	case OPT_SHORT_NAMES:
		so->short_names = true;
		return 0;
	case OPT_NO_PYTHON:
		so->no_python = true;
		return 0;
	case OPT_DEBUGINFOD:
		env = getenv("DEBUGINFOD_URLS");
		if (optarg ? !optarg[0] : !env || !env[0]) {
			pr_err("--debuginfod names no server (give --debuginfod=URLS or set "
			       "DEBUGINFOD_URLS)");
			return -EINVAL;
		}
		so->debuginfod = 1;
		so->debuginfod_urls = optarg;
		return 0;
	case OPT_NO_DEBUGINFOD:
		so->debuginfod = -1;
		so->debuginfod_urls = NULL;
		return 0;
	default:
		return -EINVAL;
	}
}

/* -i FILE: one more input (argc bounds how many). 0, or -ENOMEM after one line. */
static int add_input(struct report_opts *o, struct view_args *va, int argc, const char *file)
{
	o->input = file;
	if (!va->inputs)
		va->inputs = calloc((size_t)argc, sizeof(*va->inputs));
	if (!va->inputs)
		return pr_errno(-ENOMEM, "cannot read the options");
	va->inputs[va->nr_inputs++] = file;
	return 0;
}

/* The lines on stderr after a report: the summary, why it is empty, and with -v the counts. */
static void print_done(const struct report_summary *sum, int argc, char **argv)
{
	report__print_summary(sum, stderr);
	note_empty(sum, argc, argv);
	if (sum->filtered)
		pr_info("%" PRIu64 " samples left out by the filters", sum->filtered);
	if (sum->cut_ns)
		pr_info("%.3f s of time left out by --kernel-only/--user-only",
			(double)sum->cut_ns / 1e9);
	pr_info("%zu distinct (comm, process, stack) keys, %zu stacks symbolized",
		sum->distinct_keys, sum->symbolized);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts opts = { .input = "eprof.data" };
	struct report_summary sum = { 0 };
	static const char *debug_dirs[MAX_DEBUG_DIRS];
	struct view_args va = { 0 };
	const char *env;
	int opt, err;

	opts.sym.local = true;
	opts.sym.debug_dirs = debug_dirs;
	env = getenv("EPROF_ADDRESSES");	/* for tests: "@0xVADDR" after user names */
	opts.sym.addresses = env && *env && strcmp(env, "0");

	optind = 0;	/* glibc: full reinitialisation, then starts at argv[1] */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:o:vh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (add_input(&opts, &va, argc, optarg))
				return EXIT_FAIL;
			break;
		case 'o':
			opts.output = optarg;
			break;
		case OPT_DEBUG_DIR:
		case OPT_INLINE:
		case OPT_LINES:
		case OPT_NO_DEMANGLE:
		case OPT_SHORT_NAMES:
		case OPT_NO_PYTHON:
		case OPT_DEBUGINFOD:
		case OPT_NO_DEBUGINFOD:
			if (report_sym_option(opt, &opts.sym, debug_dirs))
				goto usage;
			break;
		case OPT_FOLD:
			opts.outputs |= REPORT_OUT_FOLD;
			break;
		case 'v':
			log_set_level(LOG_INFO);
			break;
		case 'h':
			print_report_usage(stdout);
			return EXIT_OK;
		default:
			if (opt >= OPT_VIEW_FIRST) {
				if (report_view_option(opt, argc, argv, &opts, &va))
					goto usage;
				break;
			}
			view_args__release(&va);
			return usage_error(argv, opt);
		}
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s' (see 'eprof report --help')", argv[optind]);
		goto usage;
	}
	if (check_view_options(&opts, &va))
		goto usage;
	if (!opts.input[0] || (opts.output && !opts.output[0])) {
		pr_err("an empty file name was given (see 'eprof report --help')");
		goto usage;
	}

	err = report__run(&opts, stdout, &sum);
	view_args__release(&va);
	if (err)
		return EXIT_FAIL;
	print_done(&sum, argc, argv);
	return EXIT_OK;
usage:
	view_args__release(&va);
	return EXIT_USAGE;
}
