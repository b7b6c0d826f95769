// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_unwind_windows.c - record/unwind_windows.c: a partial
 * table's windows go wanted -> out -> built, left out or asked for again,
 * each once; and the rows of a range build that each window takes.
 */
#include <stdbool.h>
#include <stdint.h>

#include "elf/cfi.h"
#include "record/unwind_windows.h"
#include "tests/unit/harness.h"

#define W(x)	((uint64_t)(x) << UNW_WINDOW_SHIFT)

static void states(void)
{
	struct unw_windows *w = unw_windows__new();
	struct cfi_range rg[4];
	size_t n;

	CHECK(w != NULL);
	CHECK(unw_windows__want(w, 3));
	CHECK(!unw_windows__want(w, 3));		/* asked once */
	CHECK(unw_windows__want(w, 4));
	CHECK(unw_windows__want(w, 9));
	CHECK(!unw_windows__want(w, UNW_NR_WINDOWS));
	CHECK_EQ_U64(unw_windows__wanted(w), 3);
	n = unw_windows__batch(w, rg, 4, SIZE_MAX);
	CHECK_EQ_U64(n, 2);				/* 3 and 4 touch: one range */
	CHECK_EQ_U64(rg[0].lo, W(3));
	CHECK_EQ_U64(rg[0].hi, W(5));
	CHECK_EQ_U64(rg[1].lo, W(9));
	CHECK(unw_windows__is_out(w, 4) && !unw_windows__is_out(w, 5));
	CHECK_EQ_U64(unw_windows__wanted(w), 0);
	/* short of memory: asked for again, in the next batch */
	unw_windows__retry(w, rg, n);
	CHECK_EQ_U64(unw_windows__wanted(w), 3);
	CHECK_EQ_U64(unw_windows__batch(w, rg, 4, SIZE_MAX), 2);
	CHECK_EQ_U64(unw_windows__built(w, rg, 1), 2);
	CHECK_EQ_U64(unw_windows__refuse(w, rg + 1, 1), 1);
	CHECK(unw_windows__refused(w, 9) && !unw_windows__refused(w, 3));
	CHECK(!unw_windows__want(w, 3) && !unw_windows__want(w, 9));
	CHECK_EQ_U64(unw_windows__built(w, rg, 1), 0);	/* built once */
	/* a batch of at most two windows (one too big for its reserve was split) */
	CHECK(unw_windows__want(w, 20) && unw_windows__want(w, 21) && unw_windows__want(w, 30));
	CHECK_EQ_U64(unw_windows__batch(w, rg, 4, 2), 1);
	CHECK_EQ_U64(rg[0].lo, W(20));
	CHECK_EQ_U64(rg[0].hi, W(22));
	CHECK_EQ_U64(unw_windows__wanted(w), 1);
	CHECK(!unw_windows__is_out(w, 30));
	unw_windows__free(w);
}

static void slices(void)
{
	/* a function across windows 0 and 1, one in 1, nothing in 2, one from 3 on */
	static const struct unw_row rows[] = {
		{ .off = 0x1000, .cfa_type = UNW_CFA_RSP },
		{ .off = 0xff00, .cfa_type = UNW_CFA_RBP },
		{ .off = 0x10100, .cfa_type = UNW_CFA_NONE },
		{ .off = 0x18000, .cfa_type = UNW_CFA_RSP },
		{ .off = 0x18100, .cfa_type = UNW_CFA_NONE },
		{ .off = 0x30000, .cfa_type = UNW_CFA_RSP },
	};
	size_t first = 99;

	CHECK_EQ_U64(unw_window_slice(rows, 6, 0, &first), 2);
	CHECK_EQ_U64(first, 0);
	/* window 1 starts inside the row at 0xff00: it takes it */
	CHECK_EQ_U64(unw_window_slice(rows, 6, 1, &first), 4);
	CHECK_EQ_U64(first, 1);
	/* window 2: only the row covering its start */
	CHECK_EQ_U64(unw_window_slice(rows, 6, 2, &first), 1);
	CHECK_EQ_U64(first, 4);
	CHECK_EQ_U64(unw_window_slice(rows, 6, 3, &first), 1);
	CHECK_EQ_U64(first, 5);
	CHECK_EQ_U64(unw_window_slice(rows, 6, 7, &first), 1);	/* the last row goes on */
	CHECK_EQ_U64(unw_window_slice(rows + 1, 5, 0, &first), 1);	/* its first row starts inside */
	CHECK_EQ_U64(first, 0);
	CHECK_EQ_U64(unw_window_slice(rows + 5, 1, 0, &first), 0);	/* no row in it */
	CHECK_EQ_U64(unw_window_slice(rows, 0, 0, &first), 0);
}

static const struct test tests[] = {
	{ "windows are asked for, batched, built or left out once", states },
	{ "each window takes the rows that cover it", slices },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
