// SPDX-License-Identifier: MIT
/*
 * record/unwind_windows.c - a partial table's windows (unwind_windows.h).
 *
 * Each window has a state: not asked for, wanted (a walk or a raw stack
 * met it), out (in a batch a builder thread is building), built (its rows
 * merged in) or refused (its build or its load failed: left ABSENT, and
 * its samples are finished with frame-pointer steps). The rows are the
 * whole table's in built windows and ABSENT elsewhere, so a merge is a
 * sweep of two such tables: where the held one is ABSENT, the new one's
 * row holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/cfi.h"
#include "record/unwind_windows.h"

enum { WIN_NONE, WIN_WANTED, WIN_OUT, WIN_BUILT, WIN_REFUSED };

struct unw_windows {
	uint8_t state[UNW_NR_WINDOWS];
	size_t nr_wanted;
	struct unw_row *rows;	/* increasing offsets, equal neighbours merged */
	size_t nr;
};

static const struct unw_row absent = { .cfa_type = UNW_CFA_ABSENT };

struct unw_windows *unw_windows__new(void)
{
	struct unw_windows *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->rows = malloc(sizeof(*w->rows));
	if (!w->rows) {
		free(w);
		return NULL;
	}
	w->rows[0] = absent;
	w->nr = 1;
	return w;
}

void unw_windows__free(struct unw_windows *w)
{
	if (!w)
		return;
	free(w->rows);
	free(w);
}

const struct unw_row *unw_windows__rows(const struct unw_windows *w, size_t *nr)
{
	*nr = w->nr;
	return w->rows;
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

size_t unw_windows__wanted(const struct unw_windows *w)
{
	return w->nr_wanted;
}

size_t unw_windows__batch(struct unw_windows *w, struct cfi_range *out, size_t max)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < UNW_NR_WINDOWS && w->nr_wanted; i++) {
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
	}
	return n;
}

/* Appends row at off to out[*n], merged with an equal neighbour. */
static void push(struct unw_row *out, size_t *n, uint64_t off, const struct unw_row *row)
{
	struct unw_row r = *row;

	r.off = (uint32_t)off;
	if (*n && !memcmp((const char *)&out[*n - 1] + sizeof(r.off),
			  (const char *)&r + sizeof(r.off), sizeof(r) - sizeof(r.off)))
		return;
	out[(*n)++] = r;
}

/*
 * w's rows with rows merged in, into out (room for w->nr + nr_rows):
 * at each offset where either changes, w's row unless it is ABSENT.
 */
static size_t sweep(const struct unw_windows *w, const struct unw_row *rows, size_t nr_rows,
		    struct unw_row *out)
{
	size_t i = 0, k = 0, n = 0;

	while (i < w->nr || k < nr_rows) {
		uint64_t off = k >= nr_rows || (i < w->nr && w->rows[i].off <= rows[k].off) ?
			       w->rows[i].off : rows[k].off;
		const struct unw_row *a, *b;

		while (i < w->nr && w->rows[i].off <= off)
			i++;
		while (k < nr_rows && rows[k].off <= off)
			k++;
		a = i ? &w->rows[i - 1] : &absent;
		b = k ? &rows[k - 1] : &absent;
		push(out, &n, off, a->cfa_type != UNW_CFA_ABSENT ? a : b);
	}
	return n;
}

size_t unw_windows__merged_rows(const struct unw_windows *w, size_t nr_rows)
{
	return w->nr + nr_rows;
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

int unw_windows__merge(struct unw_windows *w, const struct cfi_range *rg, size_t nr,
		       const struct unw_row *rows, size_t nr_rows, size_t *windows)
{
	struct unw_row *out = malloc((w->nr + nr_rows) * sizeof(*out));
	size_t n;

	if (!out)
		return -ENOMEM;
	n = sweep(w, rows, nr_rows, out);
	free(w->rows);
	w->rows = out;
	w->nr = n;
	*windows = set_out(w, rg, nr, WIN_BUILT);
	return 0;
}

size_t unw_windows__refuse(struct unw_windows *w, const struct cfi_range *rg, size_t nr)
{
	return set_out(w, rg, nr, WIN_REFUSED);
}

void unw_windows__retry(struct unw_windows *w, const struct cfi_range *rg, size_t nr)
{
	w->nr_wanted += set_out(w, rg, nr, WIN_WANTED);
}
