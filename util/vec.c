// SPDX-License-Identifier: MIT
/*
 * util/vec.c - growing arrays (see vec.h). Starts at 16 elements: small
 * tables stay small, and doubling reaches any size in few reallocations.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

#define VEC_FIRST	16

size_t vec__alloc_for(size_t alloc, size_t need)
{
	size_t n = alloc ? alloc : VEC_FIRST;

	if (need <= alloc)
		return alloc;
	while (n < need) {
		if (__builtin_mul_overflow(n, 2, &n))
			return SIZE_MAX;
	}
	return n;
}

int vec__grow(void *arr, size_t *alloc, size_t need, size_t elem)
{
	void **p = arr;
	size_t n, bytes;
	void *q;

	if (need <= *alloc)
		return 0;
	n = vec__alloc_for(*alloc, need);
	if (n == SIZE_MAX || !elem || __builtin_mul_overflow(n, elem, &bytes))
		return -ENOMEM;
	q = realloc(*p, bytes);
	if (!q)
		return -ENOMEM;
	*p = q;
	*alloc = n;
	return 0;
}

int vec__grow_zero(void *arr, size_t *alloc, size_t need, size_t elem)
{
	char **p = arr;
	size_t had = *alloc;

	if (vec__grow(arr, alloc, need, elem))
		return -ENOMEM;
	/* had * elem fitted before, and *alloc * elem fits now */
	memset(*p + had * elem, 0, (*alloc - had) * elem);
	return 0;
}

void vec__free(void *arr, size_t *nr, size_t *alloc)
{
	void **p = arr;

	free(*p);
	*p = NULL;
	*nr = 0;
	*alloc = 0;
}
