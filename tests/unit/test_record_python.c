// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_record_python.c - record/python.c without an interpreter:
 * code objects laid out as CPython 3.11 lays them out, in this process and
 * in a forked child (its copy of them), read with process_vm_readv as a
 * target's are. The splice puts each run of Python frames in its eval-loop
 * frame, and the runs whose eval loop the native walk did not reach
 * outermost; one code object that cannot be read leaves the others of a
 * sample named; the code-object budget (per process and in all) holds, and
 * an ended process gives its part back.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/types.h>

#include "bpf/events.h"
#include "format/recording.h"
#include "record/python.h"
#include "tests/unit/harness.h"

/* 3.11's offsets (record/python.c's table): what the reader looks at */
#define CO_SIZE		184	/* co_code_adaptive */
#define CO_FIRSTLINENO	72
#define CO_FILENAME	112
#define CO_NAME		120
#define CO_QUALNAME	128
#define CO_LINETABLE	136
#define STR_HEAD	48	/* sizeof(PyASCIIObject) */

#define NR_CODES	8
#define EVAL_LO		0x500000ull
#define EVAL_HI		0x540000ull

/* A compact ASCII str: length at 16, state at 32 (compact, ascii, kind 1), text at 48. */
struct fake_str {
	_Alignas(8) uint8_t b[STR_HEAD + 32];
};

/* A bytes object: ob_size at 16, the bytes at 32. */
struct fake_bytes {
	_Alignas(8) uint8_t b[32 + 8];
};

static _Alignas(8) uint8_t codes[NR_CODES][CO_SIZE];
static struct fake_str names[NR_CODES], file;
static struct fake_bytes table;

static void put_word(uint8_t *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

static void make_str(struct fake_str *s, const char *text)
{
	uint64_t len = strlen(text);
	uint32_t state = 1u << 2 | 1u << 5 | 1u << 6;

	memset(s, 0, sizeof(*s));
	put_word(s->b, 16, len);
	memcpy(s->b + 32, &state, sizeof(state));
	memcpy(s->b + STR_HEAD, text, len);
}

static void make_codes(void)
{
	char name[16];
	int32_t line;
	size_t i;

	make_str(&file, "app.py");
	memset(&table, 0, sizeof(table));
	put_word(table.b, 16, 2);
	table.b[32] = 0x80;
	for (i = 0; i < NR_CODES; i++) {
		snprintf(name, sizeof(name), "f%zu", i);
		make_str(&names[i], name);
		memset(codes[i], 0, CO_SIZE);
		line = (int32_t)(10 * i + 1);
		memcpy(codes[i] + CO_FIRSTLINENO, &line, sizeof(line));
		put_word(codes[i], CO_FILENAME, (uintptr_t)&file);
		put_word(codes[i], CO_NAME, (uintptr_t)&names[i]);
		put_word(codes[i], CO_QUALNAME, (uintptr_t)&names[i]);
		put_word(codes[i], CO_LINETABLE, (uintptr_t)&table);
	}
}

/* The frame word the sampler writes for code object at addr, instruction 3. */
static uint64_t py_word(uintptr_t addr, bool entry)
{
	return PY_FRAME_TAG | (entry ? PY_FRAME_ENTRY : 0) |
	       ((uint64_t)(addr >> 3) & PY_FRAME_CODE_MASK) << PY_FRAME_CODE_SHIFT | 3;
}

static uint64_t key_of(uint64_t w)
{
	return w >> PY_FRAME_CODE_SHIFT & PY_FRAME_CODE_MASK;
}

/* A sample of tgid: user frames u (innermost first), then Python frames py. */
struct sample_buf {
	_Alignas(8) uint8_t b[sizeof(struct ev_sample) + 64 * sizeof(uint64_t)];
};

static struct ev_sample *make_sample(struct sample_buf *s, uint32_t tgid, const uint64_t *u,
				     uint32_t nu, const uint64_t *py, uint32_t npy)
{
	struct ev_sample *e = (struct ev_sample *)s->b;

	memset(s, 0, sizeof(*s));
	e->hdr.type = EV_SAMPLE;
	e->hdr.flags = (uint16_t)(npy << EV_SAMPLE_PY_SHIFT);
	e->tgid = tgid;
	e->tid = tgid;
	e->nr_uframes = (uint16_t)nu;
	memcpy(e->frames, u, nu * sizeof(*u));
	memcpy(e->frames + nu, py, npy * sizeof(*py));
	return e;
}

struct fixture {
	char dir[64], path[96];
	struct recording *rec;
	struct pyrec *pr;
};

static bool open_fixture(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/eprof-pyrec.XXXXXX");
	if (!mkdtemp(f->dir))
		return false;
	snprintf(f->path, sizeof(f->path), "%s/t.eprof", f->dir);
	make_codes();
	return !recording__create(f->path, &f->rec) && !pyrec__new(-1, &f->pr);
}

static void close_fixture(struct fixture *f)
{
	pyrec__free(f->pr);
	if (f->rec)
		recording__discard(f->rec);
	rmdir(f->dir);
}

/* Splices s, the spliced user frames into out: their count. */
static uint32_t splice(struct fixture *f, struct sample_buf *s, uint64_t *out)
{
	uint32_t nu = 0;

	CHECK_OK(pyrec__splice(f->pr, f->rec, (struct ev_sample *)s->b, false, out, &nu));
	return nu;
}

static void runs_go_into_their_eval_loops_and_the_rest_outermost(void)
{
	static uint64_t out[PYREC_MAX_FRAMES];
	uint32_t me = (uint32_t)getpid();
	struct sample_buf s;
	struct fixture f;

	if (!open_fixture(&f)) {
		CHECK(!"fixture");
		goto out;
	}
	CHECK_OK(pyrec__adopt(f.pr, me, 0x030b, EVAL_LO, EVAL_HI));
	CHECK(pyrec__adopt(f.pr, me + 1, 0x0309, EVAL_LO, EVAL_HI) == -EINVAL);

	/* leaf, eval loop, a C function, eval loop, main: two runs, one for each loop */
	{
		uint64_t u[] = { 0x401000, EVAL_LO + 0x101, 0x402000, EVAL_LO + 0x201, 0x403000 };
		uint64_t py[] = { py_word((uintptr_t)codes[0], false), py_word((uintptr_t)codes[1], true),
				  py_word((uintptr_t)codes[2], true) };

		make_sample(&s, me, u, 5, py, 3);
		CHECK_EQ_U64(splice(&f, &s, out), 8);
		CHECK_EQ_U64(out[0], 0x401000);
		CHECK_EQ_U64(key_of(out[1]), 1);	/* f0, then f1: the inner loop's run */
		CHECK_EQ_U64(key_of(out[2]), 2);
		CHECK_EQ_U64(out[3], EVAL_LO + 0x101);
		CHECK_EQ_U64(out[4], 0x402000);
		CHECK_EQ_U64(key_of(out[5]), 3);	/* f2: the outer loop's */
		CHECK_EQ_U64(out[6], EVAL_LO + 0x201);
		CHECK_EQ_U64(out[7], 0x403000);
		CHECK((out[1] & PY_FRAME_TAG) == PY_FRAME_TAG);
		CHECK_EQ_U64(pyrec__stats(f.pr)->frames_outer, 0);
	}
	/*
	 * The native walk stopped at the leaf (no table yet): both runs ran
	 * in loops it did not reach, so they follow it, in order, keyed as before.
	 */
	{
		uint64_t u[] = { 0x401000 };
		uint64_t py[] = { py_word((uintptr_t)codes[0], false), py_word((uintptr_t)codes[1], true),
				  PY_FRAME_EMPTY, py_word((uintptr_t)codes[2], true) };

		make_sample(&s, me, u, 1, py, 4);
		CHECK_EQ_U64(splice(&f, &s, out), 4);
		CHECK_EQ_U64(out[0], 0x401000);
		CHECK_EQ_U64(key_of(out[1]), 1);
		CHECK_EQ_U64(key_of(out[2]), 2);
		CHECK_EQ_U64(key_of(out[3]), 3);
		CHECK_EQ_U64(pyrec__stats(f.pr)->frames_outer, 3);
		CHECK_EQ_U64(pyrec__stats(f.pr)->frames_unplaced, 0);
		CHECK_EQ_U64(pyrec__stats(f.pr)->codes, 3);
	}
out:
	close_fixture(&f);
}

static void an_unreadable_code_object_leaves_the_others_named(void)
{
	static uint64_t out[PYREC_MAX_FRAMES];
	uint32_t me = (uint32_t)getpid();
	struct sample_buf s;
	struct fixture f;
	long page = sysconf(_SC_PAGESIZE);
	void *hole = mmap(NULL, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!open_fixture(&f) || hole == MAP_FAILED) {
		CHECK(!"fixture");
		goto out;
	}
	CHECK_OK(pyrec__adopt(f.pr, me, 0x030b, EVAL_LO, EVAL_HI));
	{
		uint64_t u[] = { EVAL_LO + 1, 0x403000 };
		uint64_t py[] = { py_word((uintptr_t)codes[0], false), py_word((uintptr_t)hole, false),
				  py_word((uintptr_t)codes[1], false), py_word(8, false),
				  py_word((uintptr_t)codes[2], true) };

		make_sample(&s, me, u, 2, py, 5);
		CHECK_EQ_U64(splice(&f, &s, out), 7);
		CHECK_EQ_U64(key_of(out[0]), 1);
		CHECK_EQ_U64(key_of(out[1]), 0);	/* unreadable: [unknown] */
		CHECK_EQ_U64(key_of(out[2]), 2);
		CHECK_EQ_U64(key_of(out[3]), 0);
		CHECK_EQ_U64(key_of(out[4]), 3);
		CHECK_EQ_U64(out[5], EVAL_LO + 1);
		CHECK_EQ_U64(pyrec__stats(f.pr)->frames_unnamed, 2);
		CHECK_EQ_U64(pyrec__stats(f.pr)->codes, 3);
	}
out:
	if (hole != MAP_FAILED)
		munmap(hole, (size_t)page);
	close_fixture(&f);
}

/* One sample of tgid running code objects [from, to) of codes[], one run. */
static void sample_codes(struct fixture *f, uint32_t tgid, size_t from, size_t to)
{
	static uint64_t out[PYREC_MAX_FRAMES];
	uint64_t u[] = { EVAL_LO + 1 }, py[NR_CODES];
	struct sample_buf s;
	size_t i;

	for (i = from; i < to; i++)
		py[i - from] = py_word((uintptr_t)codes[i], i + 1 == to);
	make_sample(&s, tgid, u, 1, py, (uint32_t)(to - from));
	splice(f, &s, out);
}

static void the_code_object_budget_holds_per_process_and_in_all(void)
{
	uint32_t me = (uint32_t)getpid();
	const struct pyrec_stats *st;
	struct fixture f;
	pid_t child = -1;

	if (!open_fixture(&f)) {
		CHECK(!"fixture");
		goto out;
	}
	st = pyrec__stats(f.pr);
	/* a copy of the code objects, at the same addresses, in another process */
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK(child > 0);
	if (child <= 0)
		goto out;
	CHECK_OK(pyrec__adopt(f.pr, me, 0x030b, EVAL_LO, EVAL_HI));
	CHECK_OK(pyrec__adopt(f.pr, (uint32_t)child, 0x030b, EVAL_LO, EVAL_HI));
	pyrec__set_code_budget(f.pr, 3, 5);

	/* 4 code objects, 3 a process: the fourth is not kept, its frames unnamed */
	sample_codes(&f, me, 0, 4);
	CHECK_EQ_U64(st->codes, 3);
	CHECK_EQ_U64(st->frames_unnamed, 1);
	sample_codes(&f, me, 0, 4);	/* the three kept are not read again */
	CHECK_EQ_U64(st->codes, 3);
	CHECK_EQ_U64(st->frames_unnamed, 2);

	/* the child's: 2 of 3 fit in the 5 in all */
	sample_codes(&f, (uint32_t)child, 4, 7);
	CHECK_EQ_U64(st->codes, 5);
	CHECK_EQ_U64(st->frames_unnamed, 3);

	/* the child ends: its 2 are given back, and this process's fourth still does not fit */
	pyrec__forget(f.pr, (uint32_t)child);
	sample_codes(&f, me, 3, 4);
	CHECK_EQ_U64(st->codes, 5);
	CHECK_EQ_U64(st->frames_unnamed, 4);
	/* a second process has room again */
	CHECK_OK(pyrec__adopt(f.pr, (uint32_t)child, 0x030b, EVAL_LO, EVAL_HI));
	sample_codes(&f, (uint32_t)child, 4, 6);
	CHECK_EQ_U64(st->codes, 7);
	CHECK_EQ_U64(st->frames_unnamed, 4);
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	close_fixture(&f);
}

static const struct test tests[] = {
	{ "runs go into their eval loops, runs without one outermost",
	  runs_go_into_their_eval_loops_and_the_rest_outermost },
	{ "an unreadable code object leaves the others of its sample named",
	  an_unreadable_code_object_leaves_the_others_named },
	{ "the code-object budget holds per process and in all",
	  the_code_object_budget_holds_per_process_and_in_all },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
