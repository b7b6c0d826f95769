// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_stack_store.c - the store that keeps symbolized stacks
 * once their symbolizer is gone (report over several -i): a copy owns its
 * strings (the originals may be freed), one stack met twice is stored
 * once, stacks that differ in a name, a flag or (unless names_only) an
 * address stay apart, and names_only drops the addresses so that the same
 * code in two processes is one stack.
 */
#include <stdlib.h>
#include <string.h>

#include "report/symbolize/stack_store.h"
#include "report/symbolize/symbolize.h"
#include "tests/unit/harness.h"

/* A two-frame stack (one kernel, one user) with names and addresses copied to the heap. */
static struct sym_stack *make(const char *kname, const char *uname, uint64_t uaddr)
{
	struct sym_stack *st = calloc(1, sizeof(*st) + 2 * sizeof(st->frames[0]));

	st->nr_kernel = 1;
	st->nr_user = 1;
	st->nr_resolved = 2;
	st->frames[0] = (struct sym_frame){ .name = strdup(kname),
					    .addr = 0xffffffff81000010ull,
					    .flags = SYM_FRAME_KERNEL | SYM_FRAME_RESOLVED };
	st->frames[1] = (struct sym_frame){ .name = strdup(uname), .dso = strdup("/usr/bin/app"),
					    .addr = uaddr, .flags = SYM_FRAME_RESOLVED, .obj = 3 };
	return st;
}

static void drop(struct sym_stack *st)
{
	free((char *)st->frames[0].name);
	free((char *)st->frames[1].name);
	free((char *)st->frames[1].dso);
	free(st);
}

static void copies_outlive_and_dedup(void)
{
	struct stack_store ss;
	struct sym_stack *a = make("do_sys_poll", "main", 0x401000);
	struct sym_stack *b = make("do_sys_poll", "main", 0x401000);
	struct sym_stack *c = make("do_sys_poll", "work", 0x401000);
	struct sym_stack *d = make("do_sys_poll", "main", 0x402000);
	const struct sym_stack *ca, *cb, *cc, *cd, *cn;

	stack_store__init(&ss);
	CHECK_OK(stack_store__intern(&ss, a, &ca));
	CHECK_OK(stack_store__intern(&ss, b, &cb));
	CHECK_OK(stack_store__intern(&ss, c, &cc));
	CHECK_OK(stack_store__intern(&ss, d, &cd));
	CHECK_OK(stack_store__intern(&ss, NULL, &cn));
	CHECK(cn == NULL);
	CHECK(ca == cb);		/* the same stack from two files: stored once */
	CHECK(ca != cc && ca != cd);	/* another name, another address */
	CHECK_EQ_U64(ss.nr, 3);
	drop(a);
	drop(b);
	drop(c);
	drop(d);
	/* the originals are gone: the copies hold their own strings */
	CHECK_STR(sym_stack__frame(ca, 0)->name, "do_sys_poll");
	CHECK_STR(sym_stack__frame(ca, 1)->name, "main");
	CHECK_STR(sym_stack__frame(ca, 1)->dso, "/usr/bin/app");
	CHECK_EQ_U64(sym_stack__frame(ca, 1)->addr, 0x401000);
	CHECK_EQ_U64(sym_stack__frame(ca, 1)->obj, 3);
	CHECK_EQ_U64(cc->nr_kernel + cc->nr_user, 2);
	CHECK_STR(sym_stack__frame(cc, 1)->name, "work");
	CHECK(sym_stack__frame(ca, 1)->dso == sym_stack__frame(cc, 1)->dso);	/* strings interned once */
	CHECK(sym_stack__frame(ca, 0) == sym_stack__frame(cc, 0));	/* and frames */
	stack_store__release(&ss);
	stack_store__release(NULL);
}

static void names_only_merges_addresses(void)
{
	struct stack_store ss;
	struct sym_stack *a = make("do_sys_poll", "main", 0x401000);
	struct sym_stack *b = make("do_sys_poll", "main", 0x7f0401000);
	const struct sym_stack *ca, *cb;

	stack_store__init(&ss);
	ss.names_only = true;
	CHECK_OK(stack_store__intern(&ss, a, &ca));
	CHECK_OK(stack_store__intern(&ss, b, &cb));
	CHECK(ca == cb);
	CHECK_EQ_U64(ss.nr, 1);
	CHECK_EQ_U64(sym_stack__frame(ca, 1)->addr, 0);
	CHECK_EQ_U64(sym_stack__frame(ca, 1)->obj, 0);
	b->frames[1].flags = 0;		/* unresolved: another stack */
	CHECK_OK(stack_store__intern(&ss, b, &cb));
	CHECK(ca != cb);
	drop(a);
	drop(b);
	stack_store__release(&ss);
}

static const struct test tests[] = {
	{ "copies outlive their originals; one stack stored once", copies_outlive_and_dedup },
	{ "names_only: one stack whatever its addresses", names_only_merges_addresses },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
