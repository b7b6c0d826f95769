// SPDX-License-Identifier: MIT
/*
 * record/unwind_windows.c - a partial table's windows (unwind_windows.h).
 *
 * Each window has a state: not asked for, wanted (a walk or a raw stack
 * met it), out (in a batch a builder thread is building), built (its rows
 * appended to its binary's map: record/unwind.c) or refused (its build or
 * its load failed: left ABSENT, and its samples are finished with
 * frame-pointer steps).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cfi.h"
#include "record/unwind_windows.h"
#include "util/bsearch.h"

enum { WIN_NONE, WIN_WANTED, WIN_OUT, WIN_BUILT, WIN_REFUSED };

struct unw_windows {
	uint8_t state[UNW_NR_WINDOWS];
	size_t nr_wanted;
};

struct unw_windows *unw_windows__new(void)
{
	return calloc(1, sizeof(struct unw_windows));
}

void unw_windows__free(struct unw_windows *w)
{
	free(w);
}

bool unw_windows__want(struct unw_windows *w, uint32_t window)
{
	if (window >= UNW_NR_WINDOWS || w->state[window] != WIN_NONE)
		return false;
	w->state[window] = WIN_WANTED;
	w->nr_wanted++;
	return true;
}

bool unw_windows__refused(const struct unw_windows *w, uint32_t window)
{
	return window < UNW_NR_WINDOWS && w->state[window] == WIN_REFUSED;
}

bool unw_windows__is_out(const struct unw_windows *w, uint32_t window)
{
	return window < UNW_NR_WINDOWS && w->state[window] == WIN_OUT;
}

size_t unw_windows__wanted(const struct unw_windows *w)
{
	return w->nr_wanted;
}

size_t unw_windows__batch(struct unw_windows *w, struct cfi_range *out, size_t max,
			  size_t max_windows)
{
	size_t n = 0, taken = 0;
	uint32_t i;

	for (i = 0; i < UNW_NR_WINDOWS && w->nr_wanted && taken < max_windows; i++) {
		uint64_t lo = (uint64_t)i << UNW_WINDOW_SHIFT;

		if (w->state[i] != WIN_WANTED)
			continue;
		if (n && out[n - 1].hi == lo) {
			out[n - 1].hi = lo + (1u << UNW_WINDOW_SHIFT);	/* touching: one range */
		} else {
			if (n == max)
				break;
			out[n++] = (struct cfi_range){ lo, lo + (1u << UNW_WINDOW_SHIFT) };
		}
		w->state[i] = WIN_OUT;
		w->nr_wanted--;
		taken++;
	}
	return n;
}

/* Sets the windows of rg[0 .. nr) that are out to state; returns how many. */
static size_t set_out(struct unw_windows *w, const struct cfi_range *rg, size_t nr, uint8_t state)
{
	size_t i, count = 0;
	uint64_t x;

	for (i = 0; i < nr; i++)
		for (x = rg[i].lo >> UNW_WINDOW_SHIFT;
		     x < UNW_NR_WINDOWS && x << UNW_WINDOW_SHIFT < rg[i].hi; x++)
			if (w->state[x] == WIN_OUT) {
				w->state[x] = state;
				count++;
			}
	return count;
}

size_t unw_windows__built(struct unw_windows *w, const struct cfi_range *rg, size_t nr)
{
	return set_out(w, rg, nr, WIN_BUILT);
}

size_t unw_windows__refuse(struct unw_windows *w, const struct cfi_range *rg, size_t nr)
{
	return set_out(w, rg, nr, WIN_REFUSED);
}

void unw_windows__retry(struct unw_windows *w, const struct cfi_range *rg, size_t nr)
{
	w->nr_wanted += set_out(w, rg, nr, WIN_WANTED);
}

static bool row_at_or_below(const void *elem, const void *key)
{
	return ((const struct unw_row *)elem)->off <= *(const uint64_t *)key;
}

size_t unw_window_slice(const struct unw_row *rows, size_t nr, uint32_t window, size_t *first)
{
	uint64_t lo = (uint64_t)window << UNW_WINDOW_SHIFT, last = lo + (1u << UNW_WINDOW_SHIFT) - 1;
	size_t a = bsearch_lower_bound(&lo, rows, nr, sizeof(*rows), row_at_or_below);
	size_t b = bsearch_lower_bound(&last, rows, nr, sizeof(*rows), row_at_or_below);

	/* a: rows at or before lo; the last of them covers lo, else the window's first row does */
	*first = a ? a - 1 : 0;
	return b > *first ? b - *first : 0;
}
