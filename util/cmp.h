/* SPDX-License-Identifier: MIT */
/*
 * util/cmp.h - the three-way comparison qsort() comparators are made of.
 */
#ifndef EPROF_UTIL_CMP_H
#define EPROF_UTIL_CMP_H

/* -1, 0 or 1 as a is below, equal to or above b (no subtraction: no overflow). */
#define CMP(a, b)	((a) < (b) ? -1 : (a) > (b))

#endif
