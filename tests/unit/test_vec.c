// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_vec.c - util/vec.c, the one array-growing helper: it
 * keeps what it held, doubles, and refuses sizes that would wrap.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/unit/harness.h"
#include "util/vec.h"

static void grows_and_keeps_contents(void)
{
	uint64_t *v = NULL;
	size_t alloc = 0, i;

	for (i = 0; i < 1000; i++) {
		CHECK_OK(vec__grow(&v, &alloc, i + 1, sizeof(*v)));
		CHECK(alloc >= i + 1);
		v[i] = i * 7;
	}
	for (i = 0; i < 1000; i++)
		CHECK_EQ_U64(v[i], i * 7);
	CHECK_EQ_U64(alloc, 1024);	/* 16, doubled six times */
	CHECK_OK(vec__grow(&v, &alloc, 10, sizeof(*v)));	/* never shrinks */
	CHECK_EQ_U64(alloc, 1024);
	free(v);
}

static void overflow_is_refused(void)
{
	uint64_t *v = NULL;
	size_t alloc = 0;

	/* SIZE_MAX / 2 + 2 elements: doubling wraps before it gets there */
	CHECK_EQ_U64(vec__grow(&v, &alloc, SIZE_MAX / 2 + 2, 1), -ENOMEM);
	/* fits as a count, not as bytes */
	CHECK_EQ_U64(vec__grow(&v, &alloc, SIZE_MAX / 4, sizeof(*v)), -ENOMEM);
	CHECK(v == NULL);
	CHECK_EQ_U64(alloc, 0);
	CHECK_OK(vec__grow(&v, &alloc, 3, sizeof(*v)));
	CHECK_EQ_U64(vec__grow(&v, &alloc, SIZE_MAX / 4, sizeof(*v)), -ENOMEM);
	CHECK(v != NULL);		/* a failure leaves the array as it was */
	CHECK_EQ_U64(alloc, 16);
	free(v);
}

static void grow_zero_zeroes_only_new_elements(void)
{
	uint64_t *v = NULL;
	size_t alloc = 0, i, had;
	bool zero = true;

	CHECK_OK(vec__grow_zero(&v, &alloc, 3, sizeof(*v)));
	CHECK(v && alloc >= 3);
	if (!v)
		return;
	for (i = 0; i < alloc; i++)
		v[i] = i + 1;
	had = alloc;
	CHECK_OK(vec__grow_zero(&v, &alloc, had + 1, sizeof(*v)));
	CHECK(alloc > had);
	for (i = 0; i < had; i++)
		CHECK_EQ_U64(v[i], i + 1);
	for (i = had; i < alloc; i++)
		zero = zero && !v[i];
	CHECK(zero);
	CHECK_EQ_U64(vec__grow_zero(&v, &alloc, SIZE_MAX, sizeof(*v)), (uint64_t)-ENOMEM);
	free(v);
}

static void free_leaves_an_empty_array(void)
{
	uint64_t *v = NULL;
	size_t nr = 0, alloc = 0;

	vec__free(&v, &nr, &alloc);	/* an array never grown */
	CHECK(v == NULL);
	CHECK_OK(vec__grow(&v, &alloc, 40, sizeof(*v)));
	nr = 40;
	vec__free(&v, &nr, &alloc);
	CHECK(v == NULL);
	CHECK_EQ_U64(nr, 0);
	CHECK_EQ_U64(alloc, 0);
	CHECK_OK(vec__grow(&v, &alloc, 1, sizeof(*v)));	/* grows again from nothing */
	CHECK_EQ_U64(alloc, 16);
	vec__free(&v, &nr, &alloc);
}

static const struct test tests[] = {
	{ "grows, keeps what it held, never shrinks", grows_and_keeps_contents },
	{ "sizes that would wrap are -ENOMEM, the array untouched", overflow_is_refused },
	{ "grow_zero zeroes the new elements only", grow_zero_zeroes_only_new_elements },
	{ "free leaves an empty array that grows again", free_leaves_an_empty_array },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
