// SPDX-License-Identifier: MIT
/*
 * util/parse.c - strict command-line number parsing: no sign, no trailing
 * junk, no silent wrap-around.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "util/vec.h"

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_seconds_ns(const char *s, uint64_t *out_ns)
{
	uint64_t whole = 0, frac = 0, scale = 1000000000ull;
	const char *p = s;

	if (!s || !(isdigit((unsigned char)*p) || *p == '.'))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		if (whole > (UINT64_MAX / 1000000000ull - 9) / 10)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p) && p - s == 1)
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
		}
	}
	if (*p)
		return -EINVAL;
	*out_ns = whole * 1000000000ull + frac;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int parse_one(const char **pp, uint32_t max, uint32_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > max)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	*pp = p;
	return 0;
}

int parse_u32_list(const char *s, uint32_t max, uint32_t **out, size_t *out_nr)
{
	uint32_t *vals = NULL, lo, hi, v;
	size_t nr = 0, cap = 0, i, j;
	const char *p = s;
	int err;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		err = parse_one(&p, max, &lo);
		if (err)
			goto fail;
		hi = lo;
		if (*p == '-') {
			p++;
			err = parse_one(&p, max, &hi);
			if (err)
				goto fail;
			if (hi < lo) {
				err = -EINVAL;
				goto fail;
			}
		}
		for (v = lo;; v++) {
			if (nr == (1u << 24)) {
				err = -ERANGE;
				goto fail;
			}
			if (vec__grow(&vals, &cap, nr + 1, sizeof(*vals))) {
				err = -ENOMEM;
				goto fail;
			}
			vals[nr++] = v;
			if (v == hi)
				break;
		}
		if (*p == '\0')
			break;
		if (*p != ',') {
			err = -EINVAL;
			goto fail;
		}
		p++;
	}
	qsort(vals, nr, sizeof(*vals), cmp_u32);
	for (i = 0, j = 0; i < nr; i++)
		if (j == 0 || vals[j - 1] != vals[i])
			vals[j++] = vals[i];
	*out = vals;
	*out_nr = j;
	return 0;
fail:
	free(vals);
	return err;
}
