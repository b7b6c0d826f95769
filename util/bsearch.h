/* SPDX-License-Identifier: MIT */
/*
 * util/bsearch.h - the one binary search: where a key goes in a sorted
 * array (C++'s lower_bound and upper_bound, Rust's partition_point).
 *
 * libc's bsearch() answers only "which element equals the key", and any
 * of equal ones; the lookups here want the first element not below a key
 * (an id), or the first above it (the symbol or mapping starting nearest
 * below an address is the one before that). Inline, so that the compiler
 * turns below() into a plain comparison in the loop.
 */
#ifndef EPROF_UTIL_BSEARCH_H
#define EPROF_UTIL_BSEARCH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The index of the first of base[0 .. nr) (elements of size bytes) for
 * which below(elem, key) is false, nr if there is none. base must be
 * partitioned by below(): every element it is true for comes first. With
 * "elem < key" that is the first element >= key; with "elem <= key" the
 * first element > key, so the one before it is the last <= key.
 */
static inline size_t bsearch_lower_bound(const void *key, const void *base, size_t nr,
					 size_t size,
					 bool (*below)(const void *elem, const void *key))
{
	const char *b = base;
	size_t lo = 0, hi = nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (below(b + mid * size, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
