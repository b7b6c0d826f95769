/* SPDX-License-Identifier: MIT */
/*
 * util/vec.h - the one way eprof grows an array: doubling, from a small
 * first size, with every multiplication checked, so no count read from a
 * file or the kernel can wrap a size into a short allocation.
 */
#ifndef EPROF_UTIL_VEC_H
#define EPROF_UTIL_VEC_H

#include <stddef.h>

/*
 * Makes *arr (an array of *alloc elements of elem bytes; NULL when *alloc
 * is 0) hold at least need elements, doubling its capacity. On success
 * *arr and *alloc are updated; on failure (-ENOMEM, also when the size
 * would overflow) they are left as they were. arr is a `T **` passed as
 * void *, so callers need no cast.
 */
int vec__grow(void *arr, size_t *alloc, size_t need, size_t elem);

/*
 * The capacity vec__grow() gives an array of alloc elements that must hold
 * need (alloc itself when it does): for charging a memory budget before
 * growing. SIZE_MAX when it would overflow.
 */
size_t vec__alloc_for(size_t alloc, size_t need);

/* vec__grow(), the new elements zeroed (counts, maps by id). */
int vec__grow_zero(void *arr, size_t *alloc, size_t need, size_t elem);

/* Frees what vec__grow() grew: *arr NULL, *nr (its count of elements used) and *alloc 0. */
void vec__free(void *arr, size_t *nr, size_t *alloc);

#endif
