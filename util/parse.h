/* SPDX-License-Identifier: MIT */
/*
 * util/parse.h - strict parsing of numbers and lists given on the command
 * line. Each returns 0 or -EINVAL (-ERANGE when out of range) and prints
 * nothing: the caller names the option.
 */
#ifndef EPROF_UTIL_PARSE_H
#define EPROF_UTIL_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Decimal unsigned integer in [min, max], the whole string. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Non-negative seconds, decimal fraction allowed ("2", "0.5"), as ns. */
int parse_seconds_ns(const char *s, uint64_t *out_ns);

/*
 * A comma-separated list of unsigned ints and ranges ("0-3,8,10-11") with
 * every value <= max. *out is malloc'd, sorted and without duplicates; the
 * caller frees it.
 */
int parse_u32_list(const char *s, uint32_t max, uint32_t **out, size_t *out_nr);

#endif
