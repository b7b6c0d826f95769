// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_record_budget.c - record/budget.c: --mem-limit's sizes,
 * and a budget that never lends more than it has, whatever is given back.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "record/budget.h"
#include "tests/unit/harness.h"

static void sizes_parse(void)
{
	uint64_t v = 0;

	CHECK_OK(mem_limit__parse("512M", &v));
	CHECK_EQ_U64(v, 512ull << 20);
	CHECK_OK(mem_limit__parse("2G", &v));
	CHECK_EQ_U64(v, 2ull << 30);
	CHECK_OK(mem_limit__parse("64K", &v));
	CHECK_EQ_U64(v, 64ull << 10);
	CHECK_OK(mem_limit__parse("1000000", &v));
	CHECK_EQ_U64(v, 1000000);
	CHECK(mem_limit__parse("", &v) == -EINVAL);
	CHECK(mem_limit__parse("M", &v) == -EINVAL);
	CHECK(mem_limit__parse("12X", &v) == -EINVAL);
	CHECK(mem_limit__parse("-1M", &v) == -EINVAL);
	CHECK(mem_limit__parse("0", &v) == -EINVAL);
	CHECK(mem_limit__parse("99999999999999999999G", &v) == -EINVAL);
	CHECK(mem_limit__parse("17179869184G", &v) == -EINVAL);	/* 2^64 bytes */
}

static void takes_no_more_than_it_has(void)
{
	mem_budget__set_ceiling(100);
	CHECK_EQ_U64(mem_budget__size(), 100);
	CHECK(mem_budget__take(60));
	CHECK_EQ_U64(mem_budget__free(), 40);
	CHECK(!mem_budget__take(41));
	CHECK(mem_budget__take(40));
	CHECK(!mem_budget__take(1));
	CHECK_EQ_U64(mem_budget__free(), 0);
	CHECK_EQ_U64(mem_budget__take_upto(10), 0);
	mem_budget__give(30);
	CHECK_EQ_U64(mem_budget__take_upto(50), 30);
	CHECK(!mem_budget__take(UINT64_MAX));
	mem_budget__give(1000);		/* more than was taken: none is owed */
	CHECK(mem_budget__take(100));
	CHECK_EQ_U64(mem_budget__peak(), 100);
	mem_budget__give(100);
	/* a symbols share leaves what is kept for windows; windows still take it */
	mem_budget__keep_for_windows(25);
	CHECK_EQ_U64(mem_budget__take_share(60), 60);
	CHECK_EQ_U64(mem_budget__take_share(60), 15);
	CHECK_EQ_U64(mem_budget__take_share(1), 0);
	CHECK(mem_budget__take(25));
	mem_budget__give(100);
	mem_budget__set_ceiling(100);	/* a new ceiling keeps nothing for windows */
	CHECK_EQ_U64(mem_budget__take_share(100), 100);
	mem_budget__give(100);
}

static void the_base_is_subtracted(void)
{
	uint64_t base = 0;

	/* this test holds far less than 1 GiB: a quarter of the rest is held back */
	mem_budget__set_ceiling(1ull << 30);
	CHECK_OK(mem_budget__set_base(&base));
	CHECK(base > 0 && base < (1ull << 30));
	CHECK_EQ_U64(mem_budget__base(), base);
	CHECK_EQ_U64(mem_budget__size(), ((1ull << 30) - base) - ((1ull << 30) - base) / 4);
	/* a small ceiling keeps MEM_RESERVE_MIN back, the budget never under MEM_BUDGET_MIN */
	mem_budget__set_ceiling(base + (80ull << 20));
	CHECK_OK(mem_budget__set_base(&base));
	CHECK(mem_budget__size() <= mem_budget__ceiling() - base - MEM_RESERVE_MIN);
	CHECK(mem_budget__size() + MEM_RESERVE_MIN + (4ull << 20) >= mem_budget__ceiling() - base);
	mem_budget__set_ceiling(base + (40ull << 20));
	CHECK_OK(mem_budget__set_base(&base));
	CHECK_EQ_U64(mem_budget__size(), MEM_BUDGET_MIN);
	/* a ceiling under what is held already: refused, the least budget left */
	mem_budget__set_ceiling(base);
	CHECK(mem_budget__set_base(&base) == -ENOSPC);
	CHECK_EQ_U64(mem_budget__size(), MEM_BUDGET_MIN);
}

static const struct test tests[] = {
	{ "--mem-limit sizes parse, nonsense is refused", sizes_parse },
	{ "the budget lends no more than it has", takes_no_more_than_it_has },
	{ "the base is what the process holds, subtracted", the_base_is_subtracted },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
