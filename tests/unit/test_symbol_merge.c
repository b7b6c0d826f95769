// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_symbol_merge.c - the recorder stores symbol data as it
 * goes, one commit at a time, so a recording may hold several binary rows
 * for one build-id (each with the symbols new in its commit, the segments
 * maybe in only one of them), several for one JIT map, and kernel symbols
 * repeated across chunks. Written through format/ and read back by the
 * symbolizer, they must name frames as one row with everything would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/symbolize/symbolize.h"
#include "tests/unit/harness.h"

#define K0 0xffffffff81000000ull

static void mapping(struct recording *rec, uint32_t tgid, uint64_t start, uint64_t end,
		    uint64_t pgoff, const char *path, uint8_t build_id)
{
	struct rec_mapping m = { .time_ns = 0, .tgid = tgid, .start = start, .end = end,
				 .pgoff = pgoff, .path = path };

	if (build_id) {
		memset(m.build_id, build_id, REC_BUILD_ID_MAX);
		m.build_id_len = REC_BUILD_ID_MAX;
	}
	CHECK_OK(recording__add_mapping(rec, &m));
}

static void binary(struct recording *rec, uint8_t build_id, const char *path, const char *source,
		   const struct rec_segment *seg, const struct rec_symbol *syms, size_t nr)
{
	struct rec_binary b = { .path = path, .source = source, .nr_segments = seg ? 1 : 0,
				.segments = seg, .nr_symbols = nr, .symbols = syms };

	if (build_id) {
		memset(b.build_id, build_id, REC_BUILD_ID_MAX);
		b.build_id_len = REC_BUILD_ID_MAX;
	}
	CHECK_OK(recording__add_binary(rec, &b));
}

static void stack(struct recording *rec, uint32_t id, uint32_t nk, uint32_t nu,
		  const uint64_t *frames)
{
	struct rec_stack st = { .id = id, .nr_kernel = nk, .nr_user = nu, .frames = frames };

	CHECK_OK(recording__add_stack(rec, &st));
}

static void sample(struct recording *rec, uint64_t t, uint32_t id)
{
	struct rec_sample s = { .time_ns = t, .tgid = 100, .tid = 100, .cpu = 0, .stack_id = id };

	CHECK_OK(recording__add_sample(rec, &s));
}

/* Three commits, as a recorder storing symbols incrementally would write them. */
static int write_incremental(const char *path)
{
	static const struct rec_segment app_seg = { 0, 0x400000, 0x2000 };
	static const struct rec_symbol app_1[] = { { 0x400100, 0x80, "app_main" } };
	static const struct rec_symbol app_2[] = {
		{ 0x400100, 0x80, "app_main" },		/* a repeat: harmless */
		{ 0x400180, 0x80, "app_work" },
	};
	static const struct rec_segment foo_seg = { 0x1000, 0x11000, 0x1000 };
	static const struct rec_symbol foo_2[] = { { 0x11000, 0x100, "foo_fn" } };
	static const struct rec_symbol jit_1[] = { { 0x7e0000000000, 0x40, "jit_one" } };
	static const struct rec_symbol jit_3[] = { { 0x7e0000000040, 0x40, "jit_two" } };
	static const struct rec_ksym ks_1[] = {
		{ K0, K0 + 0x100, "entry_SYSCALL_64", NULL },
		{ K0 + 0x100, K0 + 0x200, "ksys_read", NULL },
	};
	static const struct rec_ksym ks_2[] = {
		{ K0 + 0x100, K0 + 0x200, "ksys_read", NULL },	/* again, in another chunk */
		{ K0 + 0x300, K0 + 0x400, "vfs_read", NULL },
	};
	/* app_work <- app_main */
	static const uint64_t s1[] = { 0x400190, 0x400110 };
	/* ksys_read <- entry_SYSCALL_64 | foo_fn <- app_work */
	static const uint64_t s2[] = { K0 + 0x150, K0 + 0x10, 0x7f0000000010, 0x400190 };
	/* vfs_read <- ksys_read | jit_two <- jit_one <- app_main */
	static const uint64_t s3[] = { K0 + 0x310, K0 + 0x110, 0x7e0000000050, 0x7e0000000010,
				       0x400110 };
	struct recording *rec = NULL;
	int err;

	err = recording__create(path, &rec);
	if (err)
		return err;
	mapping(rec, 100, 0x400000, 0x402000, 0, "/usr/bin/app", 0xb2);
	mapping(rec, 100, 0x7f0000000000, 0x7f0000001000, 0x1000, "/lib/libfoo.so", 0xc3);
	mapping(rec, 100, 0x7e0000000000, 0x7e0000001000, 0, "//anon", 0);
	/* commit 1: app's first symbol; libfoo's segments but no symbol yet */
	binary(rec, 0xb2, "/usr/bin/app", ".symtab", &app_seg, app_1, 1);
	binary(rec, 0xc3, "/lib/libfoo.so", "none", &foo_seg, NULL, 0);
	binary(rec, 0, "/tmp/perf-100.map", "perf-map", NULL, jit_1, 1);
	CHECK_OK(recording__add_ksyms(rec, ks_1, 2));
	stack(rec, 1, 0, 2, s1);
	sample(rec, 100, 1);
	CHECK_OK(recording__commit(rec));
	/* commit 2: app without segments this time, libfoo's symbol */
	binary(rec, 0xb2, "/usr/bin/app", ".symtab", NULL, app_2, 2);
	binary(rec, 0xc3, "/lib/libfoo.so", ".dynsym", NULL, foo_2, 1);
	CHECK_OK(recording__add_ksyms(rec, ks_2, 2));
	stack(rec, 2, 2, 2, s2);
	sample(rec, 200, 2);
	CHECK_OK(recording__commit(rec));
	/* commit 3: the JIT map's second symbol */
	binary(rec, 0, "/tmp/perf-100.map", "perf-map", NULL, jit_3, 1);
	stack(rec, 3, 2, 3, s3);
	sample(rec, 300, 3);
	err = recording__finish(rec);
	recording__close(rec);
	return err;
}

static const char *name(const struct sym_stack *st, uint32_t i)
{
	return st && i < st->nr_kernel + st->nr_user ? st->frames[i].name : "(none)";
}

static void rows_of_one_binary_merge(void)
{
	const char *path = path_in("incremental.eprof");
	struct recording *rec = NULL;
	struct symbolizer *sym = symbolizer__new();
	const struct sym_stack *st = NULL;
	const struct sym_object *o;
	bool saw_foo = false;
	size_t i;

	CHECK(sym != NULL);
	CHECK_OK(write_incremental(path));
	CHECK_OK(recording__open(path, &rec));
	if (!sym || !rec)
		goto out;
	CHECK_OK(symbolizer__load(sym, rec));

	CHECK_OK(symbolizer__stack(sym, 100, 1, 100, &st));
	CHECK_STR(name(st, 0), "app_work");	/* from the second row */
	CHECK_STR(name(st, 1), "app_main");	/* from the first */
	CHECK(st && st->nr_resolved == 2);

	CHECK_OK(symbolizer__stack(sym, 100, 2, 200, &st));
	CHECK_STR(name(st, 0), "ksys_read");
	CHECK_STR(name(st, 1), "entry_SYSCALL_64");
	/* libfoo: symbols from one row, segments (offset 0x1010 -> 0x11010) from the other */
	CHECK_STR(name(st, 2), "foo_fn");
	CHECK_STR(name(st, 3), "app_work");
	CHECK(st && st->nr_resolved == 4);

	CHECK_OK(symbolizer__stack(sym, 100, 3, 300, &st));
	CHECK_STR(name(st, 0), "vfs_read");	/* from the second ksym chunk */
	CHECK_STR(name(st, 1), "ksys_read");
	CHECK_STR(name(st, 2), "jit_two_[j]");	/* JIT rows merge too */
	CHECK_STR(name(st, 3), "jit_one_[j]");
	CHECK_STR(name(st, 4), "app_main");
	CHECK(st && st->nr_resolved == 5);

	/* One object per binary, and the source of the row that had symbols. */
	for (i = 0; (o = symbolizer__object(sym, i)); i++) {
		if (strcmp(o->path, "/lib/libfoo.so"))
			continue;
		CHECK(!saw_foo);
		saw_foo = true;
		CHECK_STR(o->embedded, ".dynsym");
	}
	CHECK(saw_foo);
out:
	symbolizer__free(sym);
	recording__close(rec);
}

/* The same through symbolizer__add_binary: a row may repeat a whole other row. */
static void repeated_rows_by_hand(void)
{
	static const struct rec_segment seg = { 0, 0x400000, 0x1000 };
	static const struct rec_symbol syms[] = { { 0x400100, 0x100, "only" } };
	static const uint64_t f[] = { 0x400150 };
	struct rec_binary b = { .path = "/bin/x", .source = ".symtab", .nr_segments = 1,
				.segments = &seg, .nr_symbols = 1, .symbols = syms };
	struct rec_mapping m = { .tgid = 7, .start = 0x400000, .end = 0x401000, .path = "/bin/x" };
	struct rec_stack rs = { .id = 1, .nr_user = 1, .frames = f };
	struct symbolizer *sym = symbolizer__new();
	const struct sym_stack *st = NULL;
	int i;

	CHECK(sym != NULL);
	if (!sym)
		return;
	for (i = 0; i < 3; i++)
		CHECK_OK(symbolizer__add_binary(sym, &b));
	CHECK_OK(symbolizer__add_mapping(sym, &m));
	CHECK_OK(symbolizer__add_stack(sym, &rs));
	CHECK_OK(symbolizer__stack(sym, 7, 1, 0, &st));
	CHECK_STR(name(st, 0), "only");
	symbolizer__free(sym);
}

/*
 * A frame-pointer walk through code without frame pointers yields runs of
 * values in no mapping: one "[unknown]" stands for each run; frames in a
 * mapping but without a symbol are kept one by one.
 */
static void unmapped_runs_collapse(void)
{
	static const struct rec_segment seg = { 0, 0x400000, 0x1000 };
	static const struct rec_symbol syms[] = { { 0x400100, 0x100, "only" } };
	/* innermost first: only, 3 unmapped, only, 2 mapped without symbol, 1 unmapped */
	static const uint64_t f[] = { 0x400150, 0x1234, 0x5678, 0x9abc, 0x400160,
				      0x400f00, 0x400f10, 0x77 };
	struct rec_binary b = { .path = "/bin/x", .source = ".symtab", .nr_segments = 1,
				.segments = &seg, .nr_symbols = 1, .symbols = syms };
	struct rec_mapping m = { .tgid = 7, .start = 0x400000, .end = 0x401000, .path = "/bin/x" };
	struct rec_stack rs = { .id = 1, .nr_user = 8, .frames = f };
	struct symbolizer *sym = symbolizer__new();
	const struct sym_stack *st = NULL;

	CHECK(sym != NULL);
	if (!sym)
		return;
	CHECK_OK(symbolizer__add_binary(sym, &b));
	CHECK_OK(symbolizer__add_mapping(sym, &m));
	CHECK_OK(symbolizer__add_stack(sym, &rs));
	CHECK_OK(symbolizer__stack(sym, 7, 1, 0, &st));
	CHECK(st && st->nr_kernel == 0 && st->nr_user == 6);
	CHECK_STR(name(st, 0), "only");
	CHECK_STR(name(st, 1), "[unknown]");
	CHECK_STR(name(st, 2), "only");
	CHECK_STR(name(st, 3), "x+0xf00");	/* named by the address itself */
	CHECK_STR(name(st, 4), "x+0xf10");
	CHECK_STR(name(st, 5), "[unknown]");
	CHECK(st && st->nr_resolved == 2);
	symbolizer__free(sym);
}

/*
 * pid 7 was two processes: the second, forked at 100, has its own JIT map
 * ("/tmp/perf-7.map@100") with other code at the same address. Each sample
 * is named from the map of the process that had the pid at its time.
 */
static void reused_pid_jit_maps_apart(void)
{
	static const struct rec_symbol first[] = { { 0x7e0000000000, 0x40, "first_fn" } };
	static const struct rec_symbol second[] = { { 0x7e0000000000, 0x40, "second_fn" } };
	static const uint64_t f[] = { 0x7e0000000010 };
	struct rec_binary b1 = { .path = "/tmp/perf-7.map", .source = "perf-map",
				 .nr_symbols = 1, .symbols = first };
	struct rec_binary b2 = { .path = "/tmp/perf-7.map@100", .source = "perf-map",
				 .nr_symbols = 1, .symbols = second };
	struct rec_binary bad = { .path = "/tmp/perf-7.map@", .source = "perf-map",
				  .nr_symbols = 1, .symbols = second };
	struct rec_mapping m = { .tgid = 7, .start = 0x7e0000000000, .end = 0x7e0000001000,
				 .path = "//anon" };
	struct rec_stack rs = { .id = 1, .nr_user = 1, .frames = f };
	struct symbolizer *sym = symbolizer__new();
	const struct sym_stack *st = NULL;

	CHECK(sym != NULL);
	if (!sym)
		return;
	CHECK_OK(symbolizer__add_binary(sym, &b2));
	CHECK_OK(symbolizer__add_binary(sym, &b1));
	CHECK_OK(symbolizer__add_binary(sym, &bad));	/* no time: not a JIT map */
	CHECK_OK(symbolizer__add_mapping(sym, &m));
	CHECK_OK(symbolizer__add_stack(sym, &rs));
	CHECK_OK(symbolizer__stack(sym, 7, 1, 50, &st));
	CHECK_STR(name(st, 0), "first_fn_[j]");
	CHECK_OK(symbolizer__stack(sym, 7, 1, 100, &st));
	CHECK_STR(name(st, 0), "second_fn_[j]");
	CHECK_OK(symbolizer__stack(sym, 7, 1, 60, &st));	/* not the cached later one */
	CHECK_STR(name(st, 0), "first_fn_[j]");
	CHECK_OK(symbolizer__stack(sym, 7, 1, 5000, &st));
	CHECK_STR(name(st, 0), "second_fn_[j]");
	symbolizer__free(sym);
}

static const struct test tests[] = {
	{ "rows of one binary, JIT map and kernel merge", rows_of_one_binary_merge },
	{ "repeated rows added by hand", repeated_rows_by_hand },
	{ "runs of unmapped user frames collapse into one [unknown]", unmapped_runs_collapse },
	{ "a reused pid's JIT maps name only their own process's samples", reused_pid_jit_maps_apart },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
