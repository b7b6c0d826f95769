// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_bsearch.c - util/bsearch.h, the one binary search: the
 * same index a linear scan finds, for the first element >= a key and the
 * first > it, over runs of equal elements, empty arrays and elements wider
 * than the key, in at most log2(n) + 1 probes.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/unit/harness.h"
#include "util/bsearch.h"

struct elem {
	uint64_t start;
	uint32_t tgid;
	char pad[13];		/* an odd size: the stride is size, not the key's */
};

static size_t probes;

static bool below(const void *elem, const void *key)
{
	probes++;
	return ((const struct elem *)elem)->start < *(const uint64_t *)key;
}

static bool at_or_below(const void *elem, const void *key)
{
	probes++;
	return ((const struct elem *)elem)->start <= *(const uint64_t *)key;
}

static bool below_u64(const void *elem, const void *key)
{
	probes++;
	return *(const uint64_t *)elem < *(const uint64_t *)key;
}

/* What the search must find: the first i with !(v[i] below key), by scanning. */
static size_t scan(const struct elem *v, size_t nr, uint64_t key, bool or_equal)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (or_equal ? v[i].start > key : v[i].start >= key)
			break;
	return i;
}

static unsigned int log2_ceil(size_t n)
{
	unsigned int k = 0;

	while (((size_t)1 << k) < n)
		k++;
	return k;
}

static void matches_a_linear_scan(void)
{
	struct elem v[70];
	size_t nr, i, got, bad = 0;
	uint64_t key;

	/* runs of equal starts (0 0 0 3 3 3 6 ...), every prefix length */
	for (i = 0; i < 70; i++)
		v[i] = (struct elem){ .start = (i / 3) * 3, .tgid = (uint32_t)i };
	for (nr = 0; nr <= 70; nr++) {
		for (key = 0; key <= 72; key++) {
			probes = 0;
			got = bsearch_lower_bound(&key, v, nr, sizeof(*v), below);
			bad += got != scan(v, nr, key, false) || probes > log2_ceil(nr + 1);
			probes = 0;
			got = bsearch_lower_bound(&key, v, nr, sizeof(*v), at_or_below);
			bad += got != scan(v, nr, key, true) || probes > log2_ceil(nr + 1);
		}
	}
	CHECK_EQ_U64(bad, 0);
}

static void finds_run_edges(void)
{
	struct elem v[6] = { { .start = 10 }, { .start = 20 }, { .start = 20 },
			     { .start = 20 }, { .start = 30 }, { .start = UINT64_MAX } };
	uint64_t key = 20;

	/* the first of the equal ones, and the first after them */
	CHECK_EQ_U64(bsearch_lower_bound(&key, v, 6, sizeof(*v), below), 1);
	CHECK_EQ_U64(bsearch_lower_bound(&key, v, 6, sizeof(*v), at_or_below), 4);
	/* below everything: 0; above everything: nr */
	key = 0;
	CHECK_EQ_U64(bsearch_lower_bound(&key, v, 6, sizeof(*v), at_or_below), 0);
	key = UINT64_MAX;
	CHECK_EQ_U64(bsearch_lower_bound(&key, v, 6, sizeof(*v), at_or_below), 6);
	CHECK_EQ_U64(bsearch_lower_bound(&key, v, 6, sizeof(*v), below), 5);
	/* an empty array is never read */
	CHECK_EQ_U64(bsearch_lower_bound(&key, NULL, 0, sizeof(*v), below), 0);
}

static void large_arrays_in_log_probes(void)
{
	size_t nr = 1000003, i, got;
	uint64_t *v = malloc(nr * sizeof(*v)), key;

	CHECK(v != NULL);
	if (!v)
		return;
	for (i = 0; i < nr; i++)
		v[i] = i * 2;
	for (key = 0; key < 2 * nr + 2; key += 99991) {
		probes = 0;
		got = bsearch_lower_bound(&key, v, nr, sizeof(*v), below_u64);
		CHECK_EQ_U64(got, (key + 1) / 2 < nr ? (key + 1) / 2 : nr);
		CHECK(probes <= log2_ceil(nr + 1));
	}
	free(v);
}

static const struct test tests[] = {
	{ "the index a linear scan finds, < and <=, every length", matches_a_linear_scan },
	{ "the first of equal elements, the first after them, the ends", finds_run_edges },
	{ "a million elements in at most 20 probes", large_arrays_in_log_probes },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
