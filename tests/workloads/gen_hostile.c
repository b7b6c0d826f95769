// SPDX-License-Identifier: MIT
/*
 * gen_hostile: writes a small recording through format/, as a hostile
 * user could hand one to `eprof report` (issue 9). By default it is valid:
 * 2 CPUs, one process with two threads, 60 samples over 2 s on four stacks
 * of kernel and user frames, a mapping with a build-id, the embedded
 * symbols of half of its functions (so that the report looks for a local
 * file for the rest), kernel symbols. Options make it hostile:
 *
 *   map=PATH      the mapping's path (default /nonexistent/app): a FIFO,
 *                 /dev/zero, /dev/tty... the report must not open
 *   late=SECONDS  one more sample, in a chunk of its own, SECONDS after
 *                 the start (far beyond the recorded end_ns)
 *   cpu=N         one more sample on CPU N (the recording says 2 CPUs)
 *   unfinished    no end_ns and not finalized, as a killed recorder leaves
 *   names=N       every symbol name (user and kernel) prefixed with N 'N's
 *   meta=KEY=VAL  meta row KEY set to VAL (after the defaults: hostname,
 *                 command... with escape sequences)
 *   comm=NAME     the main thread's comm
 *   python        a Python code object (python_code row: Job.py_hot of
 *                 /srv/job.py, first line 40, a 3.11 location table) and
 *                 20 more samples on a fifth stack whose Python frame runs
 *                 its code unit 5 (line 43) in place of an eval-loop frame
 *   offcpu=N      N off-CPU intervals (one after another over the span,
 *                 both threads, both states, the four stacks) and N/4 summed
 *                 rows flushed at 16 times; an --off-cpu recording
 *
 * usage: gen_hostile OUT.eprof [OPTION]...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"

#define START_NS	1000000000ull
#define SPAN_NS		2000000000ull
#define MAP_START	0x400000ull
#define KBASE		0xffffffff81000000ull

static int fail(const char *what, int err)
{
	fprintf(stderr, "gen_hostile: %s failed: %d\n", what, err);
	return 1;
}

/* The python option's code object and stack 5: Python frame, the eval loop, main. */
static int add_python(struct recording *rec)
{
	/* two entries of the one-line form: 4 units at line +1, 4 at +2 */
	static const uint8_t lt[] = { 0xdb, 0x04, 0x10, 0xe3, 0x04, 0x12 };
	struct rec_py_code c = {
		.tgid = 100, .key = 1, .addr = 0x7f0000001000ull, .version = 0x030b,
		.name = "py_hot", .qualname = "Job.py_hot", .filename = "/srv/job.py",
		.first_line = 40, .linetable = lt, .linetable_len = sizeof(lt),
	};
	uint64_t frames[3] = { (7ull << 61) | 1ull << 60 | 1ull << 16 | 5, MAP_START + 0x1010,
			       MAP_START + 0x1010 };
	struct rec_stack st = { .id = 5, .nr_user = 3, .frames = frames };

	return recording__add_py_code(rec, &c) ?: recording__add_stack(rec, &st);
}

static int add_meta(struct recording *rec, bool unfinished)
{
	static const char *const kv[][2] = {
		{ REC_META_EPROF_VERSION, "gen_hostile" }, { REC_META_HOSTNAME, "hostile" },
		{ REC_META_NR_CPUS, "2" }, { REC_META_NUMA_MAP, "0:0,1:0" },
		{ REC_META_FREQ_HZ, "30" }, { REC_META_EVENT, "cpu-clock" },
		{ REC_META_CLOCK, "CLOCK_MONOTONIC" }, { REC_META_START_NS, "1000000000" },
		{ REC_META_TARGET, "-- app" },
	};
	size_t i;
	int err = 0;

	for (i = 0; i < sizeof(kv) / sizeof(kv[0]) && !err; i++)
		err = recording__set_meta(rec, kv[i][0], kv[i][1]);
	if (!err && !unfinished)
		err = recording__set_meta(rec, REC_META_END_NS, "3000000000");
	return err;
}

/* Four stacks: do_work <- main (user), one with a kernel frame on top. */
static int add_stacks(struct recording *rec)
{
	uint64_t frames[3];
	struct rec_stack st = { .frames = frames };
	uint32_t i;
	int err = 0;

	for (i = 0; i < 4 && !err; i++) {
		st.id = i + 1;
		st.nr_kernel = i == 3;
		st.nr_user = 2;
		frames[0] = KBASE + 0x10;
		frames[st.nr_kernel] = MAP_START + 0x1000 + 0x100 * i + 0x10;	/* fn_I */
		frames[st.nr_kernel + 1] = MAP_START + 0x1010;			/* main */
		err = recording__add_stack(rec, &st);
	}
	return err;
}

/* name prefixed with pad 'N's (malloc'd), or name itself when pad is 0 */
static char *padded(const char *name, size_t pad)
{
	char *s = malloc(pad + strlen(name) + 1);

	if (s) {
		memset(s, 'N', pad);
		strcpy(s + pad, name);
	}
	return s;
}

static int add_symbols(struct recording *rec, const uint8_t *build_id, const char *path,
		       size_t pad)
{
	/* main and fn_1 only: fn_2, fn_3 send the report to look for a local file */
	struct rec_symbol syms[] = { { 0x1000, 0x100, padded("main", pad) },
				     { 0x1100, 0x100, padded("fn_1", pad) } };
	struct rec_ksym ks[] = { { KBASE, KBASE + 0x100, padded("ksys_read", pad), NULL } };
	struct rec_binary b = { .build_id_len = 20, .path = path, .source = ".symtab",
				.nr_symbols = 2, .symbols = syms };
	int err = -1;

	memcpy(b.build_id, build_id, 20);
	if (syms[0].name && syms[1].name && ks[0].name)
		err = recording__add_binary(rec, &b);
	if (!err)
		err = recording__add_ksyms(rec, ks, 1);
	free((char *)syms[0].name);
	free((char *)syms[1].name);
	free((char *)ks[0].name);
	return err;
}

/*
 * n intervals one after another over the span (each thread's never
 * overlap), and n / 4 sums flushed at 16
 * times, committed every 65536 rows as the recorder does.
 */
static int add_offcpu(struct recording *rec, size_t n)
{
	struct rec_offcpu o = { .duration_ns = (SPAN_NS - 1000000) / n ?: 1, .tgid = 100 };
	struct rec_offcpu_sum sum = { .tgid = 100, .count = 3, .total_ns = 300000 };
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		o.time_ns = START_NS + (uint64_t)((unsigned __int128)i * (SPAN_NS - 1000000) / n);
		o.tid = 100 + (uint32_t)(i % 2);
		o.cpu = (uint32_t)(i % 2);
		o.state = (uint32_t)(i / 2 % 2);
		o.stack_id = 1 + (uint32_t)(i % 4);
		err = recording__add_offcpu(rec, &o);
		if (!err && i % 65536 == 65535)
			err = recording__commit(rec);
	}
	for (i = 0; i < n / 4 && !err; i++) {
		sum.time_ns = START_NS + SPAN_NS / 16 * (1 + i * 16 / (n / 4));
		sum.tid = 1000 + (uint32_t)i;	/* one row per thread and flush */
		sum.cpu = (uint32_t)(i % 2);
		sum.state = (uint32_t)(i / 2 % 2);
		sum.stack_id = 1 + (uint32_t)(i / 4 % 4);
		err = recording__add_offcpu_sum(rec, &sum);
		if (!err && i % 65536 == 65535)
			err = recording__commit(rec);
	}
	return err ?: recording__commit(rec);
}

int main(int argc, char **argv)
{
	static const uint8_t build_id[20] = { 0xe9, 0x50, 0xf1, 0x0f, 1, 2, 3, 4, 5, 6,
					      7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct rec_comm c1 = { .tgid = 100, .tid = 100, .comm = "app" };
	struct rec_comm c2 = { .tgid = 100, .tid = 101, .comm = "worker" };
	struct rec_mapping m = { .tgid = 100, .start = MAP_START, .end = MAP_START + 0x10000,
				 .path = "/nonexistent/app", .build_id_len = 20 };
	struct rec_sample s = { 0 };
	struct recording *rec = NULL;
	bool unfinished = false, late = false, cpu = false, python = false;
	uint64_t late_ns = 0;
	uint32_t cpu_nr = 0;
	const char *metas[8];
	size_t pad = 0, nr_metas = 0, k, nr_offcpu = 0;
	int i, err;

	if (argc < 2)
		return fail("usage: gen_hostile OUT [map=PATH] [late=SECONDS] [cpu=N] [unfinished] [names=N] [meta=K=V] [comm=NAME] [offcpu=N] [python]",
			    -1);
	for (i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "map=", 4)) {
			m.path = argv[i] + 4;
		} else if (!strncmp(argv[i], "late=", 5)) {
			late = true;
			late_ns = (uint64_t)(strtod(argv[i] + 5, NULL) * 1e9);
		} else if (!strncmp(argv[i], "cpu=", 4)) {
			cpu = true;
			cpu_nr = (uint32_t)strtoul(argv[i] + 4, NULL, 10);
		} else if (!strncmp(argv[i], "names=", 6)) {
			pad = strtoul(argv[i] + 6, NULL, 10);
		} else if (!strncmp(argv[i], "meta=", 5) && strchr(argv[i] + 5, '=') &&
			   nr_metas < sizeof(metas) / sizeof(metas[0])) {
			metas[nr_metas++] = argv[i] + 5;
		} else if (!strncmp(argv[i], "offcpu=", 7)) {
			nr_offcpu = strtoul(argv[i] + 7, NULL, 10);
		} else if (!strncmp(argv[i], "comm=", 5)) {
			snprintf(c1.comm, sizeof(c1.comm), "%s", argv[i] + 5);
		} else if (!strcmp(argv[i], "python")) {
			python = true;
		} else if (!strcmp(argv[i], "unfinished")) {
			unfinished = true;
		} else {
			return fail(argv[i], -1);
		}
	}
	memcpy(m.build_id, build_id, 20);
	err = recording__create(argv[1], &rec);
	if (err)
		return fail("create", err);
	err = add_meta(rec, unfinished);
	for (k = 0; k < nr_metas && !err; k++) {
		char key[64];
		const char *eq = strchr(metas[k], '=');

		snprintf(key, sizeof(key), "%.*s", (int)(eq - metas[k]), metas[k]);
		err = recording__set_meta(rec, key, eq + 1);
	}
	err = err ?: recording__add_comm(rec, &c1);
	err = err ?: recording__add_comm(rec, &c2);
	err = err ?: recording__add_mapping(rec, &m);
	err = err ?: add_stacks(rec);
	err = err ?: add_symbols(rec, build_id, m.path, pad);
	err = err ?: (python ? add_python(rec) : 0);
	for (i = 0; i < 60 && !err; i++) {
		s.time_ns = START_NS + (uint64_t)i * (SPAN_NS / 60);
		s.tgid = 100;
		s.tid = 100 + (uint32_t)(i % 2);
		s.cpu = (uint32_t)(i % 2);
		s.stack_id = 1 + (uint32_t)(i % 4);
		err = recording__add_sample(rec, &s);
		if (!err && python && i % 3 == 0) {
			s.time_ns++;
			s.stack_id = 5;
			err = recording__add_sample(rec, &s);
		}
		if (!err && i == 19)
			err = recording__commit(rec);	/* two chunks, unlike each other */
	}
	if (!err && cpu) {
		s.time_ns = START_NS + SPAN_NS - 1;
		s.cpu = cpu_nr;
		err = recording__add_sample(rec, &s);
	}
	err = err ?: recording__commit(rec);
	if (!err && late) {
		s.time_ns = START_NS + late_ns;
		s.cpu = 0;
		err = recording__add_sample(rec, &s);
		err = err ?: recording__commit(rec);
	}
	if (!err && nr_offcpu) {
		err = recording__set_meta(rec, REC_META_OFF_CPU_THRESH, "1000000");
		err = err ?: add_offcpu(rec, nr_offcpu);
	}
	if (!err && !unfinished)
		err = recording__finish(rec);
	recording__close(rec);
	return err ? fail("writing", err) : 0;
}
