// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_fold.c - the report pipeline piece by piece: comm lookup
 * and aggregation, symbolization from hand-built tables (kernel symbols,
 * mappings over time, segments, return addresses), the folded emitter
 * (order, suffixes, merging, sorting, sanitising) and, at the end, a small
 * recording written through format/ and reported end to end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/recording.h"
#include "report/aggregate/aggregate.h"
#include "report/output/fold.h"
#include "report/pipeline.h"
#include "report/report.h"
#include "report/symbolize/symbolize.h"
#include "tests/unit/harness.h"
#include "util/status.h"
#include "util/strbuf.h"

/* --- helpers --------------------------------------------------------------- */

/* A hand-made stack: nk kernel then nu user frame names, innermost first. */
static struct sym_stack *mkstack(uint32_t nk, uint32_t nu, const char *const *names)
{
	struct sym_stack *st = calloc(1, sizeof(*st) + (nk + nu) * sizeof(st->frames[0]));
	uint32_t i;

	if (!st)
		return NULL;
	st->nr_kernel = nk;
	st->nr_user = nu;
	for (i = 0; i < nk + nu; i++) {
		st->frames[i].name = names[i];
		st->frames[i].flags = (i < nk ? SYM_FRAME_KERNEL : 0) | SYM_FRAME_RESOLVED;
	}
	return st;
}

/* The stack table of the one aggregate a test folds (as symbolizer__resolve makes it). */
#define MAX_ENTRIES	16
static const struct sym_stack *table[MAX_ENTRIES];

/* Adds count samples of (comm, tgid, stack_id); st is the entry's row in the table. */
static void put(struct stack_agg *agg, const char *comm, uint32_t tgid, uint32_t stack_id,
		uint64_t count, const struct sym_stack *st)
{
	struct agg_entry *e;
	uint32_t id;

	CHECK_OK(stack_agg__intern_comm(agg, comm, &id));
	CHECK_OK(stack_agg__add(agg, id, tgid, stack_id, 1, count));
	e = stack_agg__find(agg, id, tgid, stack_id);
	CHECK(e != NULL && (size_t)(e - agg->entries) < MAX_ENTRIES);
	if (e && (size_t)(e - agg->entries) < MAX_ENTRIES)
		table[e - agg->entries] = st;
}

/* The folded output of agg (us: its ns counts in microseconds); the caller frees it. */
static char *fold_text_in(const struct stack_agg *agg, bool us)
{
	struct sym_table t = { table, agg->nr };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	CHECK_OK(fold__write(agg, &t, us, f));
	fclose(f);
	return buf;
}

static char *fold_text(const struct stack_agg *agg)
{
	return fold_text_in(agg, false);
}

/* --- the emitter ------------------------------------------------------------- */

static void fold_puts_user_then_kernel(void)
{
	/* kernel innermost first, then user innermost first, as in the recording */
	static const char *const names[] = { "do_sys_read", "entry_SYSCALL_64", "read", "main",
					     "_start" };
	struct sym_stack *st = mkstack(2, 3, names);
	struct stack_agg agg;
	char *out;

	stack_agg__init(&agg);
	put(&agg, "app", 10, 1, 7, st);
	out = fold_text(&agg);
	CHECK_STR(out, "app;_start;main;read;entry_SYSCALL_64_[k];do_sys_read_[k] 7\n");
	free(out);
	stack_agg__release(&agg);
	free(st);
}

static void fold_merges_and_sorts(void)
{
	static const char *const a[] = { "work", "main" };
	static const char *const b[] = { "idle", "main" };
	static const char *const k[] = { "cpu_idle" };
	struct sym_stack *sa = mkstack(0, 2, a), *sa2 = mkstack(0, 2, a), *sb = mkstack(0, 2, b);
	struct sym_stack *sk = mkstack(1, 0, k);
	struct stack_agg agg;
	char *out;

	stack_agg__init(&agg);
	/* same text from two processes, two stack ids and two keys: one line */
	put(&agg, "zeta", 1, 1, 3, sa);
	put(&agg, "zeta", 2, 5, 4, sa2);
	put(&agg, "zeta", 1, 2, 1, sb);
	put(&agg, "Alpha", 3, 1, 2, sa);
	put(&agg, "swapper", 0, 9, 5, sk);
	out = fold_text(&agg);
	/* bytewise: 'A' < 's' < 'z', and "idle" < "work" */
	CHECK_STR(out, "Alpha;main;work 2\n"
		       "swapper;cpu_idle_[k] 5\n"
		       "zeta;main;idle 1\n"
		       "zeta;main;work 7\n");
	free(out);
	stack_agg__release(&agg);
	free(sa);
	free(sa2);
	free(sb);
	free(sk);
}

static void fold_sorts_whole_lines_bytewise(void)
{
	static const char *const f[] = { "f" };
	struct sym_stack *st = mkstack(0, 1, f);
	struct stack_agg agg;
	char *out;

	stack_agg__init(&agg);
	put(&agg, "ab", 1, 1, 1, st);
	put(&agg, "a", 2, 1, 2, st);
	put(&agg, "a!", 3, 1, 3, st);
	put(&agg, "a b", 4, 1, 4, st);
	put(&agg, "x;y", 5, 1, 5, st);	/* sanitizes to the same text as the next */
	put(&agg, "x:y", 6, 1, 6, st);
	out = fold_text(&agg);
	/* ' ' < '!' < ';' < 'b': where a comm ends, its ';' takes part in the order */
	CHECK_STR(out, "a b;f 4\n"
		       "a!;f 3\n"
		       "a;f 2\n"
		       "ab;f 1\n"
		       "x:y;f 11\n");
	free(out);
	stack_agg__release(&agg);
	free(st);
}

static void fold_empty_stack_is_unknown(void)
{
	struct sym_stack *st = mkstack(0, 0, NULL);
	struct stack_agg agg;
	char *out;

	stack_agg__init(&agg);
	put(&agg, "app", 1, 1, 2, st);
	put(&agg, "app", 1, 2, 3, st);
	put(&agg, "app", 1, 3, 4, NULL);	/* cut away whole: left out */
	out = fold_text(&agg);
	CHECK_STR(out, "app;[unknown] 5\n");
	free(out);
	stack_agg__release(&agg);
	free(st);
}

/* Time in ns, folded in microseconds rounded per entry; an entry under half a µs leaves. */
static void fold_time_in_microseconds(void)
{
	static const char *const a[] = { "a" }, *const b[] = { "b" };
	struct sym_stack *sa = mkstack(0, 1, a), *sb = mkstack(0, 1, b);
	struct stack_agg agg;
	char *out;

	stack_agg__init(&agg);
	put(&agg, "app", 1, 1, 1499, sa);	/* 1 */
	put(&agg, "app", 1, 2, 1500, sa);	/* 2: the same line, 3 */
	put(&agg, "app", 1, 3, 499, sb);	/* 0 */
	out = fold_text_in(&agg, true);
	CHECK_STR(out, "app;a 3\n");
	free(out);
	stack_agg__release(&agg);
	free(sa);
	free(sb);
}

static void fold_sanitizes_names(void)
{
	static const char *const names[] = { "ns;fn\n", "std::map<int;int>\t" };
	struct sym_stack *st = mkstack(1, 1, names);
	struct stack_agg agg;
	char *out;

	stack_agg__init(&agg);
	put(&agg, "a;b\x01", 1, 1, 1, st);
	out = fold_text(&agg);
	CHECK_STR(out, "a:b?;std::map<int:int>?;ns:fn?_[k] 1\n");
	free(out);
	stack_agg__release(&agg);
	free(st);
}

static void fold_append_stack_without_count(void)
{
	static const char *const names[] = { "f" };
	struct sym_stack *st = mkstack(0, 1, names);
	struct strbuf sb = STRBUF_INIT;

	fold__append_stack(&sb, "", st);
	CHECK_STR(sb.buf, "[unknown];f");
	strbuf_release(&sb);
	free(st);
}

/* --- aggregation ------------------------------------------------------------- */

static void add_comm(struct stack_agg *agg, uint64_t t, uint32_t tgid, uint32_t tid,
		     const char *name)
{
	struct rec_comm c = { .time_ns = t, .tgid = tgid, .tid = tid };
	/* Longer names are cut to 15 bytes + NUL, as the kernel cuts a comm. */
	size_t len = strnlen(name, sizeof(c.comm) - 1);

	memcpy(c.comm, name, len);
	c.comm[len] = '\0';
	CHECK_OK(stack_agg__add_comm(agg, &c));
}

static const char *comm_at(struct stack_agg *agg, uint32_t tgid, uint32_t tid, uint64_t t)
{
	uint32_t id = 0;

	CHECK_OK(stack_agg__comm_at(agg, tgid, tid, t, &id));
	return stack_agg__comm(agg, id);
}

static void comm_follows_time(void)
{
	struct stack_agg agg;

	stack_agg__init(&agg);
	add_comm(&agg, 1000, 50, 50, "app");	/* added out of order on purpose */
	add_comm(&agg, 0, 50, 50, "sh");
	add_comm(&agg, 500, 50, 51, "worker");
	add_comm(&agg, 0, 60, 60, "exactly16chars!!");
	stack_agg__sort_comms(&agg);

	CHECK_STR(comm_at(&agg, 50, 50, 10), "sh");
	CHECK_STR(comm_at(&agg, 50, 50, 999), "sh");
	CHECK_STR(comm_at(&agg, 50, 50, 1000), "app");	/* from its time on */
	CHECK_STR(comm_at(&agg, 50, 50, 5000), "app");
	CHECK_STR(comm_at(&agg, 50, 51, 100), "worker");	/* earliest row of the thread */
	CHECK_STR(comm_at(&agg, 50, 52, 100), "sh");	/* the process's main thread */
	CHECK_STR(comm_at(&agg, 50, 52, 2000), "app");
	CHECK_STR(comm_at(&agg, 70, 71, 1), "[unknown]");
	CHECK_STR(comm_at(&agg, 0, 0, 1), "swapper");
	CHECK_STR(comm_at(&agg, 60, 60, 1), "exactly16chars!");	/* 15 + NUL, as the kernel */
	stack_agg__release(&agg);
}

static void agg_counts_many_keys(void)
{
	struct stack_agg agg;
	struct agg_entry *e;
	uint32_t i, rep;
	int ok = 1;

	stack_agg__init(&agg);
	for (rep = 0; rep < 3; rep++)
		for (i = 0; i < 20000; i++)
			ok &= !stack_agg__add(&agg, i % 7, i % 13, i, 100 * rep + i, 1);
	CHECK(ok);
	CHECK_EQ_U64(agg.nr, 20000);
	CHECK_EQ_U64(agg.nr_samples, 60000);
	e = stack_agg__find(&agg, 12345 % 7, 12345 % 13, 12345);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U64(e->count, 3);
		CHECK_EQ_U64(e->last_ns, 200 + 12345);	/* the latest time is kept */
	}
	CHECK(stack_agg__find(&agg, 0, 0, 20000) == NULL);
	CHECK(stack_agg__find(&agg, 1, 12345 % 13, 12345) == NULL);	/* another comm */
	stack_agg__release(&agg);
}

/* --- symbolization ------------------------------------------------------------ */

#define K0 0xffffffff81000000ull

static void add_ksyms(struct symbolizer *sym)
{
	static const struct rec_ksym ks[] = {
		{ K0 + 0x100, K0 + 0x200, "ksys_read", NULL },
		{ K0, K0 + 0x100, "entry_SYSCALL_64", NULL },	/* unsorted on purpose */
		{ K0 + 0x1000, K0 + 0x1100, "nvme_irq", "nvme" },
	};
	size_t i;

	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		CHECK_OK(symbolizer__add_ksym(sym, &ks[i]));
}

static void add_stack(struct symbolizer *sym, uint32_t id, uint32_t nk, uint32_t nu,
		      const uint64_t *frames)
{
	struct rec_stack st = { .id = id, .nr_kernel = nk, .nr_user = nu, .frames = frames };

	CHECK_OK(symbolizer__add_stack(sym, &st));
}

static void add_map(struct symbolizer *sym, uint64_t t, uint32_t tgid, uint64_t start,
		    uint64_t end, uint64_t pgoff, const char *path, uint8_t build_id)
{
	struct rec_mapping m = { .time_ns = t, .tgid = tgid, .start = start, .end = end,
				 .pgoff = pgoff, .path = path };

	if (build_id) {
		memset(m.build_id, build_id, REC_BUILD_ID_MAX);
		m.build_id_len = REC_BUILD_ID_MAX;
	}
	CHECK_OK(symbolizer__add_mapping(sym, &m));
}

static void add_bin(struct symbolizer *sym, uint8_t build_id, const char *path,
		    const struct rec_segment *segs, size_t nr_segs,
		    const struct rec_symbol *syms, size_t nr_syms)
{
	struct rec_binary b = { .path = path, .source = ".symtab", .nr_segments = nr_segs,
				.segments = segs, .nr_symbols = nr_syms, .symbols = syms };

	if (build_id) {
		memset(b.build_id, build_id, REC_BUILD_ID_MAX);
		b.build_id_len = REC_BUILD_ID_MAX;
	}
	CHECK_OK(symbolizer__add_binary(sym, &b));
}

static const char *frame_name(const struct sym_stack *st, uint32_t i)
{
	return st && i < st->nr_kernel + st->nr_user ? st->frames[i].name : "(none)";
}

static void kernel_frames_and_return_addresses(void)
{
	/* innermost: exactly at ksys_read's start; outer: returns to ksys_read's start */
	static const uint64_t f[] = { K0 + 0x100, K0 + 0x100, K0 + 0x1010, K0 + 0x5000 };
	struct symbolizer *sym = symbolizer__new();
	const struct sym_stack *st = NULL;

	CHECK(sym != NULL);
	if (!sym)
		return;
	add_ksyms(sym);
	add_stack(sym, 1, 4, 0, f);
	CHECK_OK(symbolizer__stack(sym, 1, 1, 0, &st));
	CHECK(st != NULL);
	if (st) {
		CHECK_STR(frame_name(st, 0), "ksys_read");	/* the sampled IP: addr itself */
		CHECK_STR(frame_name(st, 1), "entry_SYSCALL_64");	/* a return address: addr - 1 */
		CHECK_STR(frame_name(st, 2), "nvme_irq");
		CHECK_STR(st->frames[2].dso, "nvme");	/* the module is kept */
		CHECK(st->frames[0].dso == NULL);
		CHECK_STR(frame_name(st, 3), "[unknown]");
		CHECK(st->frames[3].flags & SYM_FRAME_KERNEL);
		CHECK(!(st->frames[3].flags & SYM_FRAME_RESOLVED));
		CHECK_EQ_U64(st->nr_resolved, 3);
	}
	symbolizer__free(sym);
}

static void user_frames_through_mappings(void)
{
	/* /app: one PT_LOAD at file offset 0x1000 -> vaddr 0x401000 */
	static const struct rec_segment app_segs[] = { { 0x1000, 0x401000, 0x2000 } };
	static const struct rec_symbol app_syms[] = {
		{ 0x401000, 0x80, "main" },
		{ 0x401080, 0x40, "work" },
		{ 0x4010c0, 0, "marker" },	/* zero size: its own address only */
	};
	/* libx without build-id: found by path, no segments (offset = address) */
	static const struct rec_symbol lib_syms[] = { { 0x2000, 0x100, "lib_fn" } };
	static const uint64_t f1[] = {
		0x7000000080,	/* innermost: work's first byte */
		0x7000000080,	/* return address at work's start: main called last */
		0x7000000010,	/* return address inside main */
		0x7f00002010,	/* libx, by path */
		0x7e00000123,	/* mapped, no symbol data: basename+0xOFF */
		0x10,		/* nothing mapped */
	};
	static const uint64_t f2[] = { 0x70000000c4 };	/* past marker, not in work */
	static const uint64_t f5[] = { 0x70000000c0 };	/* "marker", exactly */
	struct symbolizer *sym = symbolizer__new();
	const struct sym_stack *st = NULL;

	CHECK(sym != NULL);
	if (!sym)
		return;
	add_map(sym, 0, 7, 0x7000000000, 0x7000002000, 0x1000, "/usr/bin/app", 0xaa);
	add_map(sym, 0, 7, 0x7f00000000, 0x7f00010000, 0x0, "/lib/libx.so", 0);
	add_map(sym, 0, 7, 0x7e00000000, 0x7e00001000, 0x3000, "/opt/lib/libnosym.so.1", 0xcc);
	add_bin(sym, 0xaa, "/somewhere/else/app", app_segs, 1, app_syms, 3);
	add_bin(sym, 0, "/lib/libx.so", NULL, 0, lib_syms, 1);
	add_bin(sym, 0, "/lib/other.so", NULL, 0, lib_syms, 1);
	add_stack(sym, 3, 0, 6, f1);
	add_stack(sym, 4, 0, 1, f2);
	add_stack(sym, 5, 0, 1, f5);
	CHECK_OK(symbolizer__stack(sym, 7, 3, 5, &st));
	if (st) {
		CHECK_EQ_U64(st->nr_user, 6);
		CHECK_STR(frame_name(st, 0), "work");
		CHECK_STR(frame_name(st, 1), "main");
		CHECK_STR(frame_name(st, 2), "main");
		CHECK_STR(frame_name(st, 3), "lib_fn");
		CHECK_STR(frame_name(st, 4), "libnosym.so.1+0x3123");	/* file offset */
		CHECK_STR(st->frames[4].dso, "/opt/lib/libnosym.so.1");
		CHECK_STR(frame_name(st, 5), "[unknown]");
		CHECK(st->frames[5].dso == NULL);
		CHECK_EQ_U64(st->nr_resolved, 4);
	}
	CHECK_OK(symbolizer__stack(sym, 7, 4, 5, &st));
	if (st)
		CHECK_STR(frame_name(st, 0), "app+0x10c4");
	CHECK_OK(symbolizer__stack(sym, 7, 5, 5, &st));
	if (st)
		CHECK_STR(frame_name(st, 0), "marker");
	/* another process has none of these mappings */
	CHECK_OK(symbolizer__stack(sym, 8, 3, 5, &st));
	if (st)
		CHECK_STR(frame_name(st, 0), "[unknown]");
	/* an unknown stack id: empty, flagged */
	CHECK_OK(symbolizer__stack(sym, 7, 99, 5, &st));
	if (st) {
		CHECK(st->missing);
		CHECK_EQ_U64(st->nr_kernel + st->nr_user, 0);
	}
	/* adding after the first lookup is refused */
	CHECK(symbolizer__add_ksym(sym, &(struct rec_ksym){ 1, 2, "x", NULL }) == -EBUSY);
	symbolizer__free(sym);
}

static void mapping_chosen_by_time(void)
{
	static const struct rec_symbol old_syms[] = { { 0x1000, 0x100, "old_fn" } };
	static const struct rec_symbol new_syms[] = { { 0x1000, 0x100, "new_fn" } };
	static const uint64_t f[] = { 0x5000001010 };
	struct symbolizer *sym = symbolizer__new();
	const struct sym_stack *a = NULL, *b = NULL, *c = NULL;

	CHECK(sym != NULL);
	if (!sym)
		return;
	/* exec at t=1000 maps a new binary at the same address */
	add_map(sym, 1000, 9, 0x5000000000, 0x5000010000, 0, "/bin/new", 0x22);
	add_map(sym, 0, 9, 0x5000000000, 0x5000010000, 0, "/bin/old", 0x11);
	add_bin(sym, 0x11, "/bin/old", NULL, 0, old_syms, 1);
	add_bin(sym, 0x22, "/bin/new", NULL, 0, new_syms, 1);
	add_stack(sym, 1, 0, 1, f);
	CHECK_OK(symbolizer__stack(sym, 9, 1, 999, &a));
	CHECK_OK(symbolizer__stack(sym, 9, 1, 1000, &b));
	CHECK_OK(symbolizer__stack(sym, 9, 1, 5000, &c));
	CHECK_STR(frame_name(a, 0), "old_fn");
	CHECK_STR(frame_name(b, 0), "new_fn");
	CHECK(b == c);	/* same mappings in effect: symbolized once */
	CHECK_EQ_U64(symbolizer__nr_symbolized(sym), 2);
	symbolizer__free(sym);

	/* a mapping the recorder saw only later still names earlier samples */
	sym = symbolizer__new();
	CHECK(sym != NULL);
	if (!sym)
		return;
	add_map(sym, 1000, 9, 0x5000000000, 0x5000010000, 0, "/bin/new", 0x22);
	add_bin(sym, 0x22, "/bin/new", NULL, 0, new_syms, 1);
	add_stack(sym, 1, 0, 1, f);
	CHECK_OK(symbolizer__stack(sym, 9, 1, 10, &a));
	CHECK_STR(frame_name(a, 0), "new_fn");
	symbolizer__free(sym);
}

static void resolve_weights_frames_by_samples(void)
{
	static const uint64_t f[] = { K0 + 0x10, K0 + 0x9999 };
	struct symbolizer *sym = symbolizer__new();
	struct report_summary sum = { 0 };
	const struct sym_stats *ss;
	struct sym_table t = { NULL, 0 };
	struct stack_agg agg;
	char *buf = NULL;
	size_t len = 0;
	FILE *mf;

	CHECK(sym != NULL);
	if (!sym)
		return;
	stack_agg__init(&agg);
	add_ksyms(sym);
	add_stack(sym, 1, 2, 0, f);
	CHECK_OK(stack_agg__add(&agg, 0, 0, 1, 1, 9));
	CHECK_OK(stack_agg__add(&agg, 0, 0, 2, 1, 1));	/* stack 2 is missing */
	CHECK_OK(symbolizer__resolve(sym, &agg, &t));
	CHECK(t.nr == 2 && t.stack && t.stack[0] && t.stack[1] && t.stack[1]->missing);
	ss = symbolizer__stats(sym);
	CHECK_EQ_U64(ss->frames, 18);
	CHECK_EQ_U64(ss->resolved, 9);
	CHECK_EQ_U64(ss->missing_stack_samples, 1);

	sum.samples = 10;
	sum.lost_samples = 4;
	sum.lost_stacks = 3;
	sum.frames = 3000;
	sum.resolved = 2999;	/* 99.97%: must not print as 100.0% */
	mf = open_memstream(&buf, &len);
	if (mf) {
		report__print_summary(&sum, mf);
		fclose(mf);
		CHECK_STR(buf, "eprof: 10 samples, 4 lost, 3 stacks not captured, "
			       "99.9% of frames resolved\n");
		free(buf);
	}
	sym_table__release(&t);
	symbolizer__free(sym);
	stack_agg__release(&agg);
}

/* --- end to end through a real recording -------------------------------- */

static void comm(struct recording *rec, uint64_t t, uint32_t tgid, uint32_t tid, const char *n)
{
	struct rec_comm c = { .time_ns = t, .tgid = tgid, .tid = tid };

	snprintf(c.comm, sizeof(c.comm), "%s", n);
	CHECK_OK(recording__add_comm(rec, &c));
}

static void mapping(struct recording *rec, uint64_t t, uint32_t tgid, uint64_t start,
		    uint64_t end, uint64_t pgoff, const char *path, uint8_t build_id)
{
	struct rec_mapping m = { .time_ns = t, .tgid = tgid, .start = start, .end = end,
				 .pgoff = pgoff, .path = path };

	if (build_id) {
		memset(m.build_id, build_id, REC_BUILD_ID_MAX);
		m.build_id_len = REC_BUILD_ID_MAX;
	}
	CHECK_OK(recording__add_mapping(rec, &m));
}

static void binary(struct recording *rec, uint8_t build_id, const char *path,
		   const struct rec_segment *seg, const struct rec_symbol *syms, size_t nr)
{
	struct rec_binary b = { .path = path, .source = ".symtab", .nr_segments = seg ? 1 : 0,
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

static void sample(struct recording *rec, uint64_t t, uint32_t tgid, uint32_t tid, uint32_t id)
{
	struct rec_sample s = { .time_ns = t, .tgid = tgid, .tid = tid, .cpu = 0, .stack_id = id };

	CHECK_OK(recording__add_sample(rec, &s));
}

static int write_small_recording(const char *path)
{
	static const struct rec_segment sh_seg = { 0, 0x400000, 0x1000 };
	static const struct rec_symbol sh_syms[] = { { 0x400100, 0x100, "sh_main" } };
	static const struct rec_segment app_seg = { 0, 0x400000, 0x2000 };
	static const struct rec_symbol app_syms[] = {
		{ 0x400100, 0x80, "app_main" },
		{ 0x400180, 0x80, "app_work" },
	};
	static const struct rec_segment libc_seg = { 0x1000, 0x11000, 0x10000 };
	static const struct rec_symbol libc_syms[] = { { 0x11000, 0x100, "read" } };
	static const struct rec_ksym ks[] = {
		{ K0, K0 + 0x100, "entry_SYSCALL_64", NULL },
		{ K0 + 0x100, K0 + 0x200, "ksys_read", NULL },
		{ 0xffffffffc0000000ull, 0xffffffffc0000100ull, "mod_fn", "mymod" },
	};
	/* s1: same addresses before and after the exec */
	static const uint64_t s1[] = { 0x400190, 0x400110 };
	/* s2: read() in libc from app code, through the syscall entry */
	static const uint64_t s2[] = { K0 + 0x150, K0 + 0x100, 0x7f0000000010, 0x400180 };
	/* s3: a module frame, an unknown kernel frame, a library without symbols */
	static const uint64_t s3[] = { 0xffffffffc0000010ull, 0xffffffff90000000ull,
				       0x7f0000100020 };
	static const uint64_t s5[] = { 0x10 };
	static const struct rec_loss loss = { .time_ns = 2000, .cpu = 0, .lost_samples = 3,
					      .lost_ustacks = 1, .lost_kstacks = 2 };
	struct recording *rec = NULL;
	int err;

	err = recording__create(path, &rec);
	if (err)
		return err;
	CHECK_OK(recording__set_meta(rec, REC_META_FREQ_HZ, "99"));
	comm(rec, 0, 100, 100, "sh");
	comm(rec, 1000, 100, 100, "app");	/* exec */
	comm(rec, 500, 100, 101, "worker");
	comm(rec, 0, 200, 200, "app");		/* another process of the same name */
	mapping(rec, 0, 100, 0x400000, 0x401000, 0, "/bin/sh", 0xa1);
	mapping(rec, 1000, 100, 0x400000, 0x402000, 0, "/usr/bin/app", 0xb2);
	mapping(rec, 0, 100, 0x7f0000000000, 0x7f0000010000, 0x1000, "/lib/libc.so.6", 0);
	mapping(rec, 0, 100, 0x7f0000100000, 0x7f0000101000, 0, "/lib/libfoo.so", 0xc3);
	binary(rec, 0xa1, "/bin/sh", &sh_seg, sh_syms, 1);
	binary(rec, 0xb2, "/usr/bin/app", &app_seg, app_syms, 2);
	binary(rec, 0, "/lib/libc.so.6", &libc_seg, libc_syms, 1);
	CHECK_OK(recording__add_ksyms(rec, ks, 3));
	stack(rec, 1, 0, 2, s1);
	stack(rec, 2, 2, 2, s2);
	stack(rec, 3, 2, 1, s3);
	stack(rec, 4, 0, 0, s5);	/* no frames */
	stack(rec, 5, 0, 1, s5);
	CHECK_OK(recording__add_loss(rec, &loss));

	sample(rec, 100, 100, 100, 1);	/* sh;sh_main;sh_main */
	sample(rec, 200, 100, 100, 1);
	sample(rec, 400, 100, 101, 2);	/* before worker's first comm row */
	sample(rec, 600, 100, 101, 2);
	CHECK_OK(recording__commit(rec));	/* two chunks */
	sample(rec, 1500, 100, 100, 1);	/* after exec: app;app_main;app_work */
	sample(rec, 1600, 100, 100, 2);
	sample(rec, 1700, 100, 102, 3);	/* no comm row: the process's name */
	sample(rec, 50, 200, 200, 4);
	sample(rec, 1800, 100, 100, 4);
	sample(rec, 1900, 300, 301, 5);	/* nothing known about 300 */
	err = recording__finish(rec);
	recording__close(rec);
	return err;
}

static void report_of_a_small_recording(void)
{
	const char *path = path_in("small.eprof");
	struct report_opts opts = { .input = path, .outputs = REPORT_OUT_FOLD };
	struct report_summary sum = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_OK(write_small_recording(path));
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	CHECK_OK(report__run(&opts, f, &sum));
	fclose(f);
	CHECK_STR(buf, "[unknown];[unknown] 1\n"
		       "app;[unknown] 2\n"
		       "app;app_main;app_work 1\n"
		       "app;app_main;read;entry_SYSCALL_64_[k];ksys_read_[k] 1\n"
		       "app;libfoo.so+0x20;[unknown]_[k];mod_fn_[k] 1\n"
		       "sh;sh_main;sh_main 2\n"
		       "worker;sh_main;read;entry_SYSCALL_64_[k];ksys_read_[k] 2\n");
	CHECK_EQ_U64(sum.samples, 10);
	CHECK_EQ_U64(sum.lost_samples, 3);
	CHECK_EQ_U64(sum.lost_stacks, 3);
	CHECK_EQ_U64(sum.frames, 22);
	CHECK_EQ_U64(sum.resolved, 19);
	free(buf);
}

static void report_of_a_missing_file_fails(void)
{
	struct report_opts opts = { .input = path_in("does-not-exist.eprof"),
				    .outputs = REPORT_OUT_FOLD };

	CHECK(report__run(&opts, stdout, NULL) < 0);
}

/* Runs fn(argc, argv) with stdout sent to a file; returns its status, *out the text. */
static int run_captured(int (*fn)(int, char **), int argc, char **argv, char **out)
{
	const char *path = path_in("stdout.txt");
	int saved, fd, status;
	FILE *f;
	long len;

	*out = NULL;
	fflush(stdout);
	saved = dup(1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (saved < 0 || fd < 0)
		return -1;
	dup2(fd, 1);
	close(fd);
	status = fn(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	f = fopen(path, "r");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	*out = calloc(1, (size_t)len + 1);
	if (*out && fread(*out, 1, (size_t)len, f) != (size_t)len)
		(*out)[0] = '\0';
	fclose(f);
	return status;
}

/* A mutable argv (getopt may permute it) from string literals; "@IN", "@OUT" are replaced. */
struct args {
	char buf[8][512];
	char *argv[9];
	int argc;
};

static struct args *mkargs(struct args *a, const char *in, const char *out,
			   const char *const *list)
{
	memset(a, 0, sizeof(*a));
	for (; *list && a->argc < 8; list++, a->argc++) {
		const char *v = !strcmp(*list, "@IN") ? in : !strcmp(*list, "@OUT") ? out : *list;

		snprintf(a->buf[a->argc], sizeof(a->buf[0]), "%s", v);
		a->argv[a->argc] = a->buf[a->argc];
	}
	return a;
}

static void report_command_line(void)
{
	static const char *const bad[] = { "report", "--bogus", NULL };
	static const char *const none[] = { "report", "-i", "@IN", NULL };
	static const char *const extra[] = { "report", "--fold", "extra", NULL };
	static const char *const to_file[] = { "report", "-i", "@IN", "--fold", "-o", "@OUT", NULL };
	static const char *const to_stdout[] = { "report", "--input", "@IN", "--fold", NULL };
	static const char *const bad_in[] = { "report", "-i", "@IN", "--fold", "-o", "@OUT", NULL };
	char in[512], o[512], *text = NULL, *file = NULL;
	struct args a;
	FILE *f;

	snprintf(in, sizeof(in), "%s", path_in("cli.eprof"));
	snprintf(o, sizeof(o), "%s", path_in("cli.fold"));
	CHECK_OK(write_small_recording(in));
	mkargs(&a, in, o, bad);
	CHECK_EQ_U64(cmd_report(a.argc, a.argv), EXIT_USAGE);
	mkargs(&a, in, o, none);		/* no output chosen: the top table, as perf report */
	CHECK_EQ_U64(run_captured(cmd_report, a.argc, a.argv, &text), EXIT_OK);
	CHECK(text && !strncmp(text, "# eprof top: ", 13));
	free(text);
	text = NULL;
	mkargs(&a, in, o, extra);
	CHECK_EQ_U64(cmd_report(a.argc, a.argv), EXIT_USAGE);
	mkargs(&a, in, o, to_file);
	CHECK_EQ_U64(cmd_report(a.argc, a.argv), EXIT_OK);
	mkargs(&a, in, o, to_stdout);
	CHECK_EQ_U64(run_captured(cmd_report, a.argc, a.argv, &text), EXIT_OK);
	f = fopen(o, "r");
	CHECK(f != NULL);
	if (f) {
		file = calloc(1, 4096);
		if (file && fread(file, 1, 4095, f) == 0)
			file[0] = '\0';
		fclose(f);
	}
	CHECK(text && strstr(text, "sh;sh_main;sh_main 2\n"));
	CHECK_STR(file, text);	/* -o writes what stdout gets */

	/* a recording that cannot be read leaves no output file behind */
	snprintf(o, sizeof(o), "%s", path_in("never.fold"));
	mkargs(&a, path_in("missing.eprof"), o, bad_in);
	CHECK_EQ_U64(cmd_report(a.argc, a.argv), EXIT_FAIL);
	CHECK(access(o, F_OK) != 0);
	free(text);
	free(file);
}

static void info_text_and_json(void)
{
	static const char *const as_text[] = { "info", "@IN", NULL };
	static const char *const as_json[] = { "info", "--json", "@IN", NULL };
	static const char *const bad[] = { "info", "--bogus", NULL };
	char in[512], *text = NULL;
	struct args a;

	snprintf(in, sizeof(in), "%s", path_in("info.eprof"));
	CHECK_OK(write_small_recording(in));
	mkargs(&a, in, NULL, as_text);
	CHECK_EQ_U64(run_captured(cmd_info, a.argc, a.argv, &text), EXIT_OK);
	CHECK(text && strstr(text, "samples                10\n"));
	CHECK(text && strstr(text, "lost samples           3 (the ring buffer was full)\n"));
	CHECK(text && strstr(text, "dropped stacks         3 (user 1, kernel 2)\n"));
	CHECK(text && strstr(text, "processes sampled      3\n"));
	CHECK(text && strstr(text, "frequency (Hz)         99\n"));
	CHECK(text && strstr(text, "symbols stored         3 binaries, 4 symbols\n"));
	CHECK(text && strstr(text, "binaries: 6\n"));
	CHECK(text && strstr(text, "-                                                 3          0  "
				   "/lib/libc.so.6"));
	CHECK(text && strstr(text, "/lib/libfoo.so                           missing "
				   "(unresolved: no symbols)\n"));
	free(text);
	mkargs(&a, in, NULL, as_json);
	CHECK_EQ_U64(run_captured(cmd_info, a.argc, a.argv, &text), EXIT_OK);
	CHECK(text && !strncmp(text, "{\"file\":\"", 9));
	CHECK(text && strstr(text, "\"freq_hz\":99,"));
	CHECK(text && strstr(text, "\"samples\":10,\"lost_samples\":3,\"dropped_stacks\":3,"));
	CHECK(text && strstr(text, "\"processes\":3,"));
	CHECK(text && strstr(text, "{\"build_id\":null,\"path\":\"/lib/libc.so.6\","
				   "\"symbolized\":\"embedded\",\"embedded\":\".symtab\","
				   "\"local\":null,\"frames\":3,\"unresolved\":0,"
				   "\"unresolved_why\":null,\"embedded_dwarf\":false}"));
	CHECK(text && strstr(text, "\"build_id\":\"a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1\""));
	CHECK(text && strlen(text) > 2 && !strcmp(text + strlen(text) - 2, "}\n"));
	free(text);
	mkargs(&a, in, NULL, bad);
	CHECK_EQ_U64(cmd_info(a.argc, a.argv), EXIT_USAGE);
}

static const struct test tests[] = {
	{ "fold: user frames, then kernel frames with _[k]", fold_puts_user_then_kernel },
	{ "fold: equal lines merge, output sorted bytewise", fold_merges_and_sorts },
	{ "fold: lines sort bytewise across comm ends", fold_sorts_whole_lines_bytewise },
	{ "fold: a stack without frames is comm;[unknown]", fold_empty_stack_is_unknown },
	{ "fold: time in microseconds, rounded per entry", fold_time_in_microseconds },
	{ "fold: ';' and control bytes are replaced", fold_sanitizes_names },
	{ "fold: append one stack", fold_append_stack_without_count },
	{ "aggregate: comm follows exec and falls back", comm_follows_time },
	{ "aggregate: 20000 keys, counts and last time", agg_counts_many_keys },
	{ "symbolize: kernel, modules, return addresses", kernel_frames_and_return_addresses },
	{ "symbolize: user frames through mappings", user_frames_through_mappings },
	{ "symbolize: the mapping in effect at the time", mapping_chosen_by_time },
	{ "symbolize: frame counts weighted by samples", resolve_weights_frames_by_samples },
	{ "report: a small recording end to end", report_of_a_small_recording },
	{ "report: a missing file is an error", report_of_a_missing_file_fails },
	{ "report: command line, -o and stdout agree", report_command_line },
	{ "info: text and JSON", info_text_and_json },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
