// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_report_views.c - the report views on recordings built by
 * hand through format/: filters (pid, tid, comm, cpu, node, time window,
 * kernel-only, user-only) with exact folded output, --by levels, --top with
 * recursion, --per-cpu and a two-node --per-node, --timeline rows (text and
 * CSV), several -i merged, and --diff (fold, and top with its noise
 * estimate).
 *
 * Every recording here has the same symbol data: kernel functions k0..k9,
 * and user functions u0..u9 and a few named ones ("main", "leaf", ...) in
 * "/bin/app" (mapped into every process), so a stack is written as
 * root-first names, e.g. "u0;u1;k2".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/pipeline.h"
#include "tests/unit/harness.h"

#define KBASE	0xffffffff81000000ull
#define UBASE	0x400000ull
#define SEC	1000000000ull
#define START	(5 * SEC)

/* --- building recordings -------------------------------------------------- */

struct builder {
	struct recording *rec;
	uint32_t next_stack;
	uint32_t tgids[16];
	size_t nr_tgids;
};

/* User functions: u0..u9, then a few named ones (a spec may use either). */
static const char *const unames[] = { "u0", "u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9",
				      "main", "alpha_kernel", "beta_kernel", "gamma_kernel",
				      "leaf" };

static void add_symbols(struct recording *rec)
{
	static const char *const knames[] = { "k0", "k1", "k2", "k3", "k4",
					      "k5", "k6", "k7", "k8", "k9" };
	struct rec_ksym ks[10];
	struct rec_symbol us[ARRAY_SIZE(unames)];
	struct rec_binary b = { .build_id = { 1, 2, 3, 4 }, .build_id_len = 4,
				.path = "/bin/app", .source = ".symtab" };
	size_t i;

	for (i = 0; i < 10; i++)
		ks[i] = (struct rec_ksym){ KBASE + i * 0x100, KBASE + (i + 1) * 0x100, knames[i],
					   NULL };
	for (i = 0; i < ARRAY_SIZE(unames); i++)
		us[i] = (struct rec_symbol){ 0x1000 * (i + 1), 0x1000, unames[i] };
	CHECK_OK(recording__add_ksyms(rec, ks, 10));
	b.nr_symbols = ARRAY_SIZE(unames);
	b.symbols = us;
	CHECK_OK(recording__add_binary(rec, &b));
}

static struct builder *builder_new(const char *path, const char *numa)
{
	struct builder *b = calloc(1, sizeof(*b));
	char start[32];

	if (!b)
		return NULL;
	b->next_stack = 1;
	CHECK_OK(recording__create(path, &b->rec));
	if (!b->rec) {
		free(b);
		return NULL;
	}
	snprintf(start, sizeof(start), "%llu", START);
	CHECK_OK(recording__set_meta(b->rec, REC_META_START_NS, start));
	CHECK_OK(recording__set_meta(b->rec, REC_META_HOSTNAME, "testhost"));
	CHECK_OK(recording__set_meta(b->rec, REC_META_TARGET, "-- app"));
	CHECK_OK(recording__set_meta(b->rec, REC_META_FREQ_HZ, "100"));
	if (numa)
		CHECK_OK(recording__set_meta(b->rec, REC_META_NUMA_MAP, numa));
	add_symbols(b->rec);
	return b;
}

/* Thread tid of tgid is called comm; the first thread of a tgid also maps /bin/app. */
static void thread(struct builder *b, uint32_t tgid, uint32_t tid, const char *comm)
{
	struct rec_comm c = { .time_ns = 0, .tgid = tgid, .tid = tid };
	struct rec_mapping m = { .tgid = tgid, .start = UBASE, .end = UBASE + 0x100000,
				 .path = "/bin/app", .build_id = { 1, 2, 3, 4 }, .build_id_len = 4 };
	size_t i;

	snprintf(c.comm, sizeof(c.comm), "%s", comm);
	CHECK_OK(recording__add_comm(b->rec, &c));
	for (i = 0; i < b->nr_tgids; i++)
		if (b->tgids[i] == tgid)
			return;
	b->tgids[b->nr_tgids++] = tgid;
	CHECK_OK(recording__add_mapping(b->rec, &m));
}

/* A stack from root-first names ("u0;u1;k2"); returns its id. */
static uint32_t stack(struct builder *b, const char *spec)
{
	uint64_t user[32], kern[32], frames[64];
	size_t nu = 0, nk = 0, i, n = 0;
	char buf[256], *tok, *save = NULL;
	struct rec_stack st = { .id = b->next_stack++ };

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		unsigned idx = (unsigned)atoi(tok + 1);

		for (i = 10; i < ARRAY_SIZE(unames); i++)
			if (!strcmp(tok, unames[i]))
				idx = (unsigned)i;
		if (tok[0] == 'k' && idx < 10)
			kern[nk++] = KBASE + idx * 0x100 + 0x10;
		else
			user[nu++] = UBASE + 0x1000 * (idx + 1) + 0x10;
	}
	/* the recording's order: kernel innermost first, then user innermost first */
	for (i = nk; i-- > 0;)
		frames[n++] = kern[i];
	for (i = nu; i-- > 0;)
		frames[n++] = user[i];
	st.nr_kernel = (uint32_t)nk;
	st.nr_user = (uint32_t)nu;
	st.frames = frames;
	CHECK_OK(recording__add_stack(b->rec, &st));
	return st.id;
}

static void samples(struct builder *b, uint64_t t_ns, uint32_t tgid, uint32_t tid, uint32_t cpu,
		    uint32_t stack_id, unsigned n)
{
	struct rec_sample s = { START + t_ns, tgid, tid, cpu, stack_id };
	unsigned i;

	for (i = 0; i < n; i++)
		CHECK_OK(recording__add_sample(b->rec, &s));
}

static void builder_finish(struct builder *b)
{
	if (!b)
		return;
	CHECK_OK(recording__finish(b->rec));
	recording__close(b->rec);
	free(b);
}

/* Runs the report and returns its output (the caller frees), NULL when it failed. */
static char *run(struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return NULL;
	err = report__run(o, f, NULL);
	fclose(f);
	CHECK_OK(err);
	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void check_run(struct report_opts *o, const char *expected)
{
	char *out = run(o);

	CHECK_STR(out, expected);
	free(out);
}

/* True when some line of text starts with prefix (after leading spaces) and holds every part. */
static bool has_line(const char *text, const char *const *parts, size_t nr)
{
	const char *line = text, *end;
	char buf[512];
	size_t i, len;

	while (line && *line) {
		end = strchr(line, '\n');
		len = end ? (size_t)(end - line) : strlen(line);
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		for (i = 0; i < nr && strstr(buf, parts[i]); i++)
			;
		if (i == nr)
			return true;
		line = end ? end + 1 : NULL;
	}
	return false;
}

#define HAS_LINE(text, ...)                                                             \
	do {                                                                            \
		static const char *const parts_[] = { __VA_ARGS__ };                    \
		if (!(text) || !has_line(text, parts_, ARRAY_SIZE(parts_))) {           \
			fprintf(stderr, "  %s:%d: no line with %s in:\n%s", __FILE__,    \
				__LINE__, #__VA_ARGS__, (text) ? (text) : "(null)");    \
			harness_failures++;                                             \
		}                                                                       \
	} while (0)

/* --- the filter recording --------------------------------------------------- */

/*
 * alpha (100/100, cpu 0, 0.1 s):     u0;u1 x3
 * alpha-w (100/101, cpu 1, 1.5 s):   u0;u2;k0;k1 x2
 * beta (200/200, cpu 1, 2.5 s):      k2;k3 x1 (a kernel thread's stack)
 * beta (200/201, cpu 0, 0.5 s):      u0;u2;k0;k1 x4
 */
static struct builder *filter_builder(const char *path, const char *numa)
{
	struct builder *b = builder_new(path, numa);
	uint32_t s1, s2, s3;

	if (!b)
		return NULL;
	thread(b, 100, 100, "alpha");
	thread(b, 100, 101, "alpha-w");
	thread(b, 200, 200, "beta");
	thread(b, 200, 201, "beta");
	s1 = stack(b, "u0;u1");
	s2 = stack(b, "u0;u2;k0;k1");
	s3 = stack(b, "k2;k3");
	samples(b, SEC / 10, 100, 100, 0, s1, 3);
	samples(b, SEC / 2, 200, 201, 0, s2, 4);
	samples(b, 3 * SEC / 2, 100, 101, 1, s2, 2);
	samples(b, 5 * SEC / 2, 200, 200, 1, s3, 1);
	return b;
}

static const char *filter_recording(void)
{
	const char *path = path_in("filters.eprof");

	builder_finish(filter_builder(path, "0:0,1:1"));
	return path;
}

static void filters_give_exact_folds(void)
{
	const char *path = filter_recording();
	static const uint32_t pid100[] = { 100 }, tid201[] = { 201 }, one[] = { 1 };
	struct report_opts o = { .input = path, .outputs = REPORT_OUT_FOLD };

	check_run(&o, "alpha-w;u0;u2;k0_[k];k1_[k] 2\n"
		      "alpha;u0;u1 3\n"
		      "beta;k2_[k];k3_[k] 1\n"
		      "beta;u0;u2;k0_[k];k1_[k] 4\n");

	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .pids = pid100,
				  .nr_pids = 1 };
	check_run(&o, "alpha-w;u0;u2;k0_[k];k1_[k] 2\n"
		      "alpha;u0;u1 3\n");

	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .tids = tid201,
				  .nr_tids = 1 };
	check_run(&o, "beta;u0;u2;k0_[k];k1_[k] 4\n");

	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .comm = "beta" };
	check_run(&o, "beta;k2_[k];k3_[k] 1\n"
		      "beta;u0;u2;k0_[k];k1_[k] 4\n");

	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .comm = "nobody" };
	check_run(&o, "");

	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .cpus = one,
				  .nr_cpus = 1 };
	check_run(&o, "alpha-w;u0;u2;k0_[k];k1_[k] 2\n"
		      "beta;k2_[k];k3_[k] 1\n");

	/* node 1 is cpu 1 in "0:0,1:1" */
	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .nodes = one,
				  .nr_nodes = 1 };
	check_run(&o, "alpha-w;u0;u2;k0_[k];k1_[k] 2\n"
		      "beta;k2_[k];k3_[k] 1\n");

	/* [1 s, 2 s) from the start */
	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .from_ns = SEC,
				  .to_ns = 2 * SEC, .has_to = true };
	check_run(&o, "alpha-w;u0;u2;k0_[k];k1_[k] 2\n");

	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .from_ns = 2 * SEC };
	check_run(&o, "beta;k2_[k];k3_[k] 1\n");

	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .to_ns = SEC / 5,
				  .has_to = true };
	check_run(&o, "alpha;u0;u1 3\n");

	/* a pid and a window together */
	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .pids = pid100,
				  .nr_pids = 1, .from_ns = SEC };
	check_run(&o, "alpha-w;u0;u2;k0_[k];k1_[k] 2\n");

	/* the other half goes; a sample left without frames goes too */
	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD,
				  .half = REPORT_HALF_KERNEL };
	check_run(&o, "alpha-w;k0_[k];k1_[k] 2\n"
		      "beta;k0_[k];k1_[k] 4\n"
		      "beta;k2_[k];k3_[k] 1\n");
	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD,
				  .half = REPORT_HALF_USER };
	check_run(&o, "alpha-w;u0;u2 2\n"
		      "alpha;u0;u1 3\n"
		      "beta;u0;u2 4\n");
}

static void filter_summary_counts_what_was_left_out(void)
{
	const char *path = filter_recording();
	static const uint32_t pid100[] = { 100 };
	struct report_opts o = { .input = path, .outputs = REPORT_OUT_FOLD, .pids = pid100,
				 .nr_pids = 1 };
	struct report_summary sum = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	CHECK_OK(report__run(&o, f, &sum));
	fclose(f);
	CHECK_EQ_U64(sum.samples, 5);
	CHECK_EQ_U64(sum.filtered, 5);
	free(buf);
}

static void by_levels_go_at_the_root(void)
{
	const char *path = filter_recording();
	struct report_opts o = { .input = path, .outputs = REPORT_OUT_FOLD, .by = REPORT_BY_PID };
	char *out;

	check_run(&o, "pid 100;alpha-w;u0;u2;k0_[k];k1_[k] 2\n"
		      "pid 100;alpha;u0;u1 3\n"
		      "pid 200;beta;k2_[k];k3_[k] 1\n"
		      "pid 200;beta;u0;u2;k0_[k];k1_[k] 4\n");
	o.by = REPORT_BY_TID;
	check_run(&o, "tid 100;alpha;u0;u1 3\n"
		      "tid 101;alpha-w;u0;u2;k0_[k];k1_[k] 2\n"
		      "tid 200;beta;k2_[k];k3_[k] 1\n"
		      "tid 201;beta;u0;u2;k0_[k];k1_[k] 4\n");
	/* the comm is the root already */
	o.by = REPORT_BY_COMM;
	check_run(&o, "alpha-w;u0;u2;k0_[k];k1_[k] 2\n"
		      "alpha;u0;u1 3\n"
		      "beta;k2_[k];k3_[k] 1\n"
		      "beta;u0;u2;k0_[k];k1_[k] 4\n");

	/* top grouped by pid: most samples first, equal ones by pid; each with its own shares */
	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_TOP, .by = REPORT_BY_PID };
	out = run(&o);
	CHECK(out && strstr(out, "## pid 200: 5 samples (50.00%)") &&
	      strstr(out, "## pid 100: 5 samples (50.00%)") &&
	      strstr(out, "## pid 100") < strstr(out, "## pid 200"));
	/* in pid 100: u1 self 3 of 5, k1 self 2 of 5 */
	HAS_LINE(out, " 3 ", " 60.00% ", "  u1  /bin/app");
	HAS_LINE(out, " 4 ", " 80.00% ", "  k1  [kernel.kallsyms]");
	free(out);

	o.by = REPORT_BY_COMM;
	out = run(&o);
	CHECK(out && strstr(out, "## beta: 5 samples (50.00%)") &&
	      strstr(out, "## alpha: 3 samples (30.00%)") &&
	      strstr(out, "## alpha-w: 2 samples (20.00%)"));
	free(out);
}

/*
 * --by cgroup: the filter recording with its threads' cgroup rows. alpha
 * (100) is in /app from before its first sample; alpha-w (101) has no row
 * of its own and goes with its main thread; beta's main thread (200) is
 * in cgroup 77, gone before it was named; beta's 201 was in /db and moved
 * to /db/slow at 1 s, so only its samples at 0.5 s are in /db. A file
 * without rows has every sample in [unknown cgroup] (t0125: a v1 file).
 */
static void by_cgroup_follows_the_threads(void)
{
	const char *path = filter_recording();
	struct rec_cgroup names[] = { { 5, "/app" }, { 6, "/db" }, { 8, "/db/slow" } };
	struct rec_thread_cgroup rows[] = {
		{ 0, 100, 100, 5 }, { 0, 200, 200, 77 }, { 0, 200, 201, 6 },
		{ START + SEC, 200, 201, 8 },
	};
	struct report_opts o = { .input = path, .outputs = REPORT_OUT_FOLD, .by = REPORT_BY_CGROUP };
	char *out;
	size_t i;

	/* the filter recording again, with the rows and 5 samples of 201 (u0;u1) at 3 s */
	{
		struct builder *b = filter_builder(path, NULL);

		if (!b)
			return;
		samples(b, 3 * SEC, 200, 201, 0, 1, 5);
		for (i = 0; i < ARRAY_SIZE(names); i++)
			CHECK_OK(recording__add_cgroup(b->rec, &names[i]));
		for (i = 0; i < ARRAY_SIZE(rows); i++)
			CHECK_OK(recording__add_thread_cgroup(b->rec, &rows[i]));
		builder_finish(b);
	}
	check_run(&o, "/app;alpha-w;u0;u2;k0_[k];k1_[k] 2\n"
		      "/app;alpha;u0;u1 3\n"
		      "/db/slow;beta;u0;u1 5\n"
		      "/db;beta;u0;u2;k0_[k];k1_[k] 4\n"
		      "cgroup:77;beta;k2_[k];k3_[k] 1\n");
	o.outputs = REPORT_OUT_TOP;
	out = run(&o);
	CHECK(out && strstr(out, "## /db/slow: 5 samples (33.33%)") &&
	      strstr(out, "## /app: 5 samples (33.33%)") &&
	      strstr(out, "## /db: 4 samples (26.67%)") &&
	      strstr(out, "## cgroup:77: 1 samples (6.67%)"));
	free(out);

	/* rows of no thread: every sample in the one unknown group */
	path = filter_recording();
	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD,
				  .by = REPORT_BY_CGROUP };
	out = run(&o);
	CHECK(out && !strncmp(out, "[unknown cgroup];", 17) && !strstr(out, "\n/") &&
	      !strstr(out, "\ncgroup:"));
	free(out);
}

/* --- top ---------------------------------------------------------------------- */

static void top_counts_recursion_once(void)
{
	const char *path = path_in("recursion.eprof");
	struct builder *b = builder_new(path, NULL);
	struct report_opts o = { .input = path, .outputs = REPORT_OUT_TOP, .top_n = 3 };
	uint32_t s1, s2;
	char *out;

	if (!b)
		return;
	thread(b, 10, 10, "app");
	s1 = stack(b, "u0;u1;u0;u1;u0");	/* u0 three times, u1 twice */
	s2 = stack(b, "u0;u2");
	samples(b, 1, 10, 10, 0, s1, 6);
	samples(b, 2, 10, 10, 0, s2, 4);
	builder_finish(b);

	out = run(&o);
	/* SELF SELF% TOTAL TOTAL% FUNCTION BINARY, first by self then by total */
	HAS_LINE(out, "         6   60.00%         10  100.00%  u0  /bin/app");
	HAS_LINE(out, "         4   40.00%          4   40.00%  u2  /bin/app");
	HAS_LINE(out, "         0    0.00%          6   60.00%  u1  /bin/app");
	CHECK(out && strstr(out, "# top 3 by self\n      SELF    SELF%      TOTAL   TOTAL%  "
				 "FUNCTION  BINARY\n         6   60.00%         10  100.00%  u0"));
	CHECK(out && strstr(out, "# top 3 by total\n      SELF    SELF%      TOTAL   TOTAL%  "
				 "FUNCTION  BINARY\n         6   60.00%         10  100.00%  u0  /bin/app\n"
				 "         0    0.00%          6   60.00%  u1  /bin/app\n"
				 "         4   40.00%          4   40.00%  u2  /bin/app\n"));
	free(out);
}

/* --- per-cpu and per-node ------------------------------------------------------- */

static void two_nodes_show_as_two(void)
{
	const char *path = path_in("numa.eprof");
	struct builder *b = builder_new(path, "0:0,1:1");
	struct report_opts o = { .input = path, .outputs = REPORT_OUT_PERNODE };
	uint32_t s1, s2;
	char *out;

	if (!b)
		return;
	thread(b, 10, 10, "app");
	thread(b, 10, 11, "app");
	s1 = stack(b, "u0;u1");
	s2 = stack(b, "u0;u2");
	samples(b, 1, 10, 10, 0, s1, 3);
	samples(b, 1, 10, 11, 1, s2, 2);
	samples(b, 2, 10, 11, 1, s1, 1);
	builder_finish(b);

	out = run(&o);
	CHECK(out && strstr(out, "# 2 NUMA nodes with samples\n"));
	HAS_LINE(out, "node 0 ", " 3 ", " 50.00%");
	HAS_LINE(out, "node 1 ", " 3 ", " 50.00%");
	/* node 0: all u1; node 1: u2 2 of 3, then u1 */
	CHECK(out && strstr(out, "node 0          3   50.00%\n"
				 "             3  100.00%  u1  /bin/app\n"
				 "node 1          3   50.00%\n"
				 "             2   66.67%  u2  /bin/app\n"
				 "             1   33.33%  u1  /bin/app\n"));
	free(out);

	o.outputs = REPORT_OUT_PERCPU;
	out = run(&o);
	CHECK(out && strstr(out, "cpu 0          3   50.00%\n"
				 "             3  100.00%  u1  /bin/app\n"
				 "cpu 1          3   50.00%\n"));
	free(out);

	/* --node restricts every output */
	{
		static const uint32_t one[] = { 1 };

		o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_FOLD, .nodes = one,
					  .nr_nodes = 1 };
		check_run(&o, "app;u0;u1 1\napp;u0;u2 2\n");
	}
}

/* --- timeline ------------------------------------------------------------------ */

static void timeline_rows_follow_the_phases(void)
{
	const char *path = path_in("timeline.eprof");
	struct builder *b = builder_new(path, NULL);
	struct report_opts o = { .input = path, .outputs = REPORT_OUT_TIMELINE,
				 .timeline_ns = SEC, .csv = true };
	uint32_t s1, s2;
	char *out;

	if (!b)
		return;
	thread(b, 10, 10, "app");
	s1 = stack(b, "u0;u1");
	s2 = stack(b, "u0;u2");
	samples(b, SEC / 5, 10, 10, 0, s1, 4);
	samples(b, 6 * SEC / 5, 10, 10, 0, s2, 3);
	samples(b, 7 * SEC / 5, 10, 10, 0, s1, 1);
	samples(b, 3 * SEC + 1, 10, 10, 0, s2, 3);
	builder_finish(b);

	check_run(&o, "start_s,end_s,samples,u2,u1,other\n"
		      "0.000,1.000,4,0.00,100.00,0.00\n"
		      "1.000,2.000,4,75.00,25.00,0.00\n"
		      "2.000,3.000,0,0.00,0.00,0.00\n"
		      "3.000,4.000,3,100.00,0.00,0.00\n");
	o.csv = false;
	out = run(&o);
	CHECK(out && strstr(out, "# f1 = u2  /bin/app\n# f2 = u1  /bin/app\n"));
	HAS_LINE(out, "     1.000      2.000          4    75.00%    25.00%     0.00%");
	free(out);
}

/* --- several recordings, and diff ---------------------------------------------- */

/* app: u0;u1 x n1, u0;u2 x n2, u0;u3 x n3 */
static const char *three_way(const char *name, unsigned n1, unsigned n2, unsigned n3)
{
	const char *path = path_in(name);
	struct builder *b = builder_new(path, NULL);
	uint32_t s1, s2, s3;

	if (!b)
		return path;
	thread(b, 10, 10, "app");
	s1 = stack(b, "u0;u1");
	s2 = stack(b, "u0;u2");
	s3 = stack(b, "u0;u3");
	samples(b, 1, 10, 10, 0, s1, n1);
	samples(b, 1, 10, 10, 0, s2, n2);
	samples(b, 1, 10, 10, 0, s3, n3);
	builder_finish(b);
	return path;
}

static void inputs_merge(void)
{
	char a[4096], b[4096];
	const char *inputs[2] = { a, b };
	struct report_opts o = { .inputs = inputs, .nr_inputs = 2, .outputs = REPORT_OUT_FOLD };

	snprintf(a, sizeof(a), "%s", three_way("m1.eprof", 1, 2, 0));
	snprintf(b, sizeof(b), "%s", three_way("m2.eprof", 10, 0, 5));
	check_run(&o, "app;u0;u1 11\napp;u0;u2 2\napp;u0;u3 5\n");
}

/* Part 1, part 2 or both (3) of one machine's samples, in one recording. */
static const char *merge_part(const char *name, unsigned part)
{
	const char *path = path_in(name);
	struct builder *b = builder_new(path, NULL);

	if (!b)
		return path;
	/* comms whose folded lines sort by their bytes: "app 2" < "app2" < "app;..." */
	thread(b, 10, 10, "app");
	thread(b, 10, 11, "app");
	thread(b, 20, 20, "app2");
	thread(b, 30, 30, "app 2");
	if (part & 1) {
		uint32_t s1 = stack(b, "main;u1"), s2 = stack(b, "main;u1;k2;k3");

		samples(b, 1, 10, 10, 0, s1, 7);
		samples(b, 2, 10, 11, 1, s2, 3);
		samples(b, 3, 20, 20, 0, s1, 2);
	}
	if (part & 2) {
		uint32_t s3 = stack(b, "main;u1"), s4 = stack(b, "main;u2;u1");

		samples(b, 4, 10, 10, 1, s3, 5);
		samples(b, 5, 30, 30, 0, s4, 4);
		samples(b, 6, 20, 20, 1, s4, 1);
	}
	builder_finish(b);
	return path;
}

/*
 * Several -i are merged one recording at a time, each freed before the
 * next is read: the views must say what one recording of all the samples
 * says, whatever the grouping.
 */
static void inputs_merge_one_at_a_time(void)
{
	static const enum report_by bys[] = { REPORT_BY_NONE, REPORT_BY_PID, REPORT_BY_TID,
					      REPORT_BY_COMM };
	static const unsigned int views[] = { REPORT_OUT_FOLD, REPORT_OUT_TOP, REPORT_OUT_PERCPU,
					      REPORT_OUT_PERNODE, REPORT_OUT_TIMELINE };
	char a[4096], b[4096], all[4096];
	const char *inputs[2] = { a, b };
	struct report_opts one = { .timeline_ns = SEC },
			   two = { .inputs = inputs, .nr_inputs = 2, .timeline_ns = SEC };
	size_t i, k;

	snprintf(a, sizeof(a), "%s", merge_part("p1.eprof", 1));
	snprintf(b, sizeof(b), "%s", merge_part("p2.eprof", 2));
	snprintf(all, sizeof(all), "%s", merge_part("p12.eprof", 3));
	one.input = all;
	for (i = 0; i < ARRAY_SIZE(views); i++) {
		for (k = 0; k < ARRAY_SIZE(bys); k++) {
			char *x, *y, *hx, *hy;

			one.outputs = two.outputs = views[i];
			one.by = two.by = bys[k];
			x = run(&one);
			y = run(&two);
			/* the tables' header counts the recordings: compare from the next line */
			hx = x && views[i] != REPORT_OUT_FOLD ? strchr(x, '\n') : x;
			hy = y && views[i] != REPORT_OUT_FOLD ? strchr(y, '\n') : y;
			CHECK(hx && hy);
			if (hx && hy)
				CHECK_STR(hy, hx);
			free(x);
			free(y);
		}
	}
	/* the order of the lines is the bytes' */
	two.outputs = REPORT_OUT_FOLD;
	two.by = REPORT_BY_NONE;
	check_run(&two, "app 2;main;u2;u1 4\napp2;main;u1 2\napp2;main;u2;u1 1\n"
			"app;main;u1 12\napp;main;u1;k2_[k];k3_[k] 3\n");
}

static void diff_fold_and_top(void)
{
	char base[4096], now[4096];
	struct report_opts o = { .diff_base = base, .diff_new = now, .outputs = REPORT_OUT_FOLD };
	char *out;

	snprintf(base, sizeof(base), "%s", three_way("base.eprof", 50, 50, 0));
	snprintf(now, sizeof(now), "%s", three_way("new.eprof", 120, 40, 40));
	/* difffolded.pl's format: raw counts, base first */
	check_run(&o, "app;u0;u1 50 120\napp;u0;u2 50 40\napp;u0;u3 0 40\n");

	/*
	 * Self shares: u1 .5 -> .6, u2 .5 -> .2, u3 0 -> .2. Largest change
	 * first; u2's noise sqrt(.25/100 + .16/200) = 5.74%, z = -5.22.
	 */
	o.outputs = REPORT_OUT_TOP;
	out = run(&o);
	HAS_LINE(out, " 50.00% ", " 20.00% ", " -30.00% ", " 5.74% ", " -5.22 ", " yes ", " u2 ");
	HAS_LINE(out, "  0.00% ", " 20.00% ", " +20.00% ", " 2.83% ", " 7.07 ", " yes ", " u3 ");
	HAS_LINE(out, " 50.00% ", " 60.00% ", " +10.00% ", " 6.08% ", " 1.64 ", " no ", " u1 ");
	CHECK(out && strstr(out, " u2 ") < strstr(out, " u3 ") &&
	      strstr(out, " u3 ") < strstr(out, " u1 "));
	free(out);
}

/*
 * Issue 10's case: three kernels call one leaf, and gamma_kernel's weight
 * triples. Every sample ends in the leaf, so no self share moves (the
 * leaf's stays 100%); the total-share table must name gamma_kernel first:
 * 1/3 -> 3/5 of the samples, against -2/15 for each of the others.
 */
static const char *kernels(const char *name, unsigned alpha, unsigned beta, unsigned gamma)
{
	const char *path = path_in(name);
	struct builder *b = builder_new(path, NULL);

	if (!b)
		return path;
	thread(b, 10, 10, "app");
	samples(b, 1, 10, 10, 0, stack(b, "main;alpha_kernel;leaf"), alpha);
	samples(b, 1, 10, 10, 0, stack(b, "main;beta_kernel;leaf"), beta);
	samples(b, 1, 10, 10, 0, stack(b, "main;gamma_kernel;leaf"), gamma);
	builder_finish(b);
	return path;
}

static void diff_top_names_the_caller_that_grew(void)
{
	char base[4096], now[4096];
	struct report_opts o = { .diff_base = base, .diff_new = now, .outputs = REPORT_OUT_TOP };
	const char *total, *self, *row;
	char *out;

	snprintf(base, sizeof(base), "%s", kernels("kbase.eprof", 100, 100, 100));
	snprintf(now, sizeof(now), "%s", kernels("knew.eprof", 100, 100, 300));
	out = run(&o);
	total = out ? strstr(out, "# largest changes of total share") : NULL;
	self = out ? strstr(out, "# largest changes of self share") : NULL;
	CHECK(total && self && total < self);
	if (!total || !self)
		goto out;
	/* the first row of the total table, after its column header */
	row = strchr(strchr(total, '\n') + 1, '\n') + 1;
	CHECK(!strncmp(row, "  33.33%   60.00%   +26.67% ", 28));
	CHECK(strstr(row, "gamma_kernel") && strstr(row, "gamma_kernel") < strchr(row, '\n'));
	/* sqrt(2/9/300 + .24/500) = 3.49%, z = 7.63: a real change */
	HAS_LINE(total, " 33.33% ", " 60.00% ", " +26.67% ", " 3.49% ", " 7.63 ", " yes ",
		 " gamma_kernel ");
	HAS_LINE(total, " 33.33% ", " 20.00% ", " -13.33% ", " yes ", " alpha_kernel ");
	HAS_LINE(total, " 33.33% ", " 20.00% ", " -13.33% ", " yes ", " beta_kernel ");
	HAS_LINE(total, "100.00% ", "100.00% ", " +0.00% ", " no ", " leaf ");
	/* the self table: only the leaf, unchanged; no kernel has self samples */
	HAS_LINE(self, "100.00% ", "100.00% ", " +0.00% ", " 0.00% ", " no ", " leaf ");
	CHECK(!strstr(self, "_kernel"));
out:
	free(out);
}

/* --- samples ---------------------------------------------------------------- */

static void samples_in_time_order_with_filters(void)
{
	const char *path = filter_recording();
	static const uint32_t pid100[] = { 100 };
	struct report_opts o = { .input = path, .outputs = REPORT_OUT_SAMPLES, .pids = pid100,
				 .nr_pids = 1 };
	struct builder *b;
	uint32_t s1, s2;

	/* perf script's layout: header, frames innermost first, a blank line */
	check_run(&o, "alpha   100/100   [000]     0.100000:   10000000 cpu-clock:\n"
		      "\t          402010 u1 (/bin/app)\n"
		      "\t          401010 u0 (/bin/app)\n\n"
		      "alpha   100/100   [000]     0.100000:   10000000 cpu-clock:\n"
		      "\t          402010 u1 (/bin/app)\n"
		      "\t          401010 u0 (/bin/app)\n\n"
		      "alpha   100/100   [000]     0.100000:   10000000 cpu-clock:\n"
		      "\t          402010 u1 (/bin/app)\n"
		      "\t          401010 u0 (/bin/app)\n\n"
		      "alpha-w   100/101   [001]     1.500000:   10000000 cpu-clock:\n"
		      "\tffffffff81000110 k1 ([kernel.kallsyms])\n"
		      "\tffffffff81000010 k0 ([kernel.kallsyms])\n"
		      "\t          403010 u2 (/bin/app)\n"
		      "\t          401010 u0 (/bin/app)\n\n"
		      "alpha-w   100/101   [001]     1.500000:   10000000 cpu-clock:\n"
		      "\tffffffff81000110 k1 ([kernel.kallsyms])\n"
		      "\tffffffff81000010 k0 ([kernel.kallsyms])\n"
		      "\t          403010 u2 (/bin/app)\n"
		      "\t          401010 u0 (/bin/app)\n\n");

	/* a window, a cpu and a half of the stack together; a kernel thread's stack stays */
	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_SAMPLES, .from_ns = SEC,
				  .half = REPORT_HALF_KERNEL };
	check_run(&o, "alpha-w   100/101   [001]     1.500000:   10000000 cpu-clock:\n"
		      "\tffffffff81000110 k1 ([kernel.kallsyms])\n"
		      "\tffffffff81000010 k0 ([kernel.kallsyms])\n\n"
		      "alpha-w   100/101   [001]     1.500000:   10000000 cpu-clock:\n"
		      "\tffffffff81000110 k1 ([kernel.kallsyms])\n"
		      "\tffffffff81000010 k0 ([kernel.kallsyms])\n\n"
		      "beta   200/200   [001]     2.500000:   10000000 cpu-clock:\n"
		      "\tffffffff81000310 k3 ([kernel.kallsyms])\n"
		      "\tffffffff81000210 k2 ([kernel.kallsyms])\n\n");
	/* --user-only drops that kernel thread's sample: nothing of it is left */
	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_SAMPLES, .from_ns = 2 * SEC,
				  .half = REPORT_HALF_USER };
	check_run(&o, "");

	/*
	 * A chunk is sorted by the writer, but the next one may reach back a
	 * few ms (the ring buffer's reordering): the sample at 1.005 s goes in
	 * a chunk before those at 1.000001 s and 1.002 s, and comes out last.
	 */
	path = path_in("order.eprof");
	b = builder_new(path, NULL);
	if (!b)
		return;
	thread(b, 10, 10, "app");
	s1 = stack(b, "u0;u1");
	s2 = stack(b, "u0;u2");
	samples(b, SEC + 5000000, 10, 10, 1, s1, 1);
	CHECK_OK(recording__commit(b->rec));
	samples(b, SEC + 1000, 10, 10, 0, s2, 1);
	samples(b, SEC + 2000000, 10, 10, 1, s1, 1);
	builder_finish(b);
	o = (struct report_opts){ .input = path, .outputs = REPORT_OUT_SAMPLES };
	check_run(&o, "app    10/10    [000]     1.000001:   10000000 cpu-clock:\n"
		      "\t          403010 u2 (/bin/app)\n"
		      "\t          401010 u0 (/bin/app)\n\n"
		      "app    10/10    [001]     1.002000:   10000000 cpu-clock:\n"
		      "\t          402010 u1 (/bin/app)\n"
		      "\t          401010 u0 (/bin/app)\n\n"
		      "app    10/10    [001]     1.005000:   10000000 cpu-clock:\n"
		      "\t          402010 u1 (/bin/app)\n"
		      "\t          401010 u0 (/bin/app)\n\n");
}

static const struct test tests[] = {
	{ "filters give exact folds", filters_give_exact_folds },
	{ "the summary counts what the filters left out", filter_summary_counts_what_was_left_out },
	{ "--by levels go at the root; --top groups by them", by_levels_go_at_the_root },
	{ "--by cgroup follows each thread's cgroup rows", by_cgroup_follows_the_threads },
	{ "--top counts a recursive function once per sample", top_counts_recursion_once },
	{ "two NUMA nodes show as two; per-cpu", two_nodes_show_as_two },
	{ "--timeline rows follow the phases", timeline_rows_follow_the_phases },
	{ "several -i merge", inputs_merge },
	{ "several -i merge one at a time as one recording of them all", inputs_merge_one_at_a_time },
	{ "--diff fold and top with noise", diff_fold_and_top },
	{ "--samples: each sample in time order, filtered", samples_in_time_order_with_filters },
	{ "--diff --top ranks the caller whose total share grew", diff_top_names_the_caller_that_grew },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
