/* SPDX-License-Identifier: MIT */
/*
 * record/unwind_windows.h - the rows a big binary's partial table holds
 * (record/unwind.c): the windows of file offsets (UNW_WINDOW_SHIFT) that
 * walks met, each built by elf/cfi.h's range build and merged in, ABSENT
 * rows everywhere else. The rows are what its kernel map holds.
 */
#ifndef EPROF_RECORD_UNWIND_WINDOWS_H
#define EPROF_RECORD_UNWIND_WINDOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "bpf/unwind.h"

struct cfi_range;
struct unw_windows;

/* Windows of 32-bit file offsets. */
#define UNW_NR_WINDOWS	(1u << (32 - UNW_WINDOW_SHIFT))

/* No window built. NULL on ENOMEM. */
struct unw_windows *unw_windows__new(void);

/* Accepts NULL. */
void unw_windows__free(struct unw_windows *w);

/*
 * Asks for window: true when it was neither built, asked for nor left
 * out before (it is then in the next batch).
 */
bool unw_windows__want(struct unw_windows *w, uint32_t window);

/* Whether window was left out (unw_windows__refuse): not asked for again. */
bool unw_windows__refused(const struct unw_windows *w, uint32_t window);

/* Whether window is in a batch out (unw_windows__batch), not yet built or refused. */
bool unw_windows__is_out(const struct unw_windows *w, uint32_t window);

/* Windows asked for and not yet in a batch. */
size_t unw_windows__wanted(const struct unw_windows *w);

/*
 * The next batch: the windows asked for, lowest first, at most
 * max_windows of them, as file-offset ranges into out (touching ones
 * merged, at most max ranges); they are out until built or refused.
 * Returns how many ranges.
 */
size_t unw_windows__batch(struct unw_windows *w, struct cfi_range *out, size_t max,
			  size_t max_windows);

/* The windows of rg[0 .. nr) that are out are built. Returns how many. */
size_t unw_windows__built(struct unw_windows *w, const struct cfi_range *rg, size_t nr);

/* A batch that could not be built or loaded: its windows are left out. Returns how many. */
size_t unw_windows__refuse(struct unw_windows *w, const struct cfi_range *rg, size_t nr);

/* A batch that may be built later: its windows are asked for again. */
void unw_windows__retry(struct unw_windows *w, const struct cfi_range *rg, size_t nr);

/*
 * The rows of rows[0 .. nr) (increasing offsets: a range build's) that
 * window takes: from the last at or before its start to the last before
 * its end. *first: the index of the first. Returns how many (0: none).
 */
size_t unw_window_slice(const struct unw_row *rows, size_t nr, uint32_t window, size_t *first);

#endif
