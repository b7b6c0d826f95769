/* SPDX-License-Identifier: MIT */
/*
 * record/budget.h - the recorder's memory ceiling, and the one budget that
 * every allocation sized by what users map, run or write draws from.
 *
 * The ceiling (--mem-limit, default 512 MiB) bounds the recorder's resident
 * set. What the recorder holds once set up - its ring buffers, BPF maps,
 * libraries, SQLite - is its base; three quarters of the rest of the
 * ceiling are the budget, a quarter (MEM_RESERVE_MIN at least) is left for
 * what grows with the recording itself (SQLite's cache, the first 4 MiB
 * of the stack table and of the mapping table) and allocator slack.
 * Unwind tables (their build and their rows), the symbol tables of sampled
 * binaries, perf maps, side-band buffers, the stack and mapping tables
 * past their floors (record/stacks.h, record/mappings.h) and the stack
 * copies that wait for their tables take from it before they allocate,
 * and give back what they free. A binary whose share does not fit is recorded with frame
 * pointers and named as far as the budget allows, and a warning names it.
 * Thread-safe: the unwind table builders take from it too.
 */
#ifndef EPROF_RECORD_BUDGET_H
#define EPROF_RECORD_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

/* Issue 24: at most 512 MB by default, whatever users map or run. */
#define MEM_CEILING_DEFAULT	(512ull << 20)
/* The least budget a ceiling must leave over the base: else it is refused. */
#define MEM_BUDGET_MIN		(16ull << 20)
/* The least of the ceiling kept out of the budget (set_base), beside the base. */
#define MEM_RESERVE_MIN		(32ull << 20)

/* The machine's memory / divisor, within [lo, hi] (lo when unknown). */
uint64_t machine_memory_share(uint64_t divisor, uint64_t lo, uint64_t hi);

/* --mem-limit's value: bytes, or a count with a K, M or G suffix. -EINVAL. */
int mem_limit__parse(const char *s, uint64_t *out);

/*
 * Makes the allocator give freed memory back and keep few arenas, so that
 * the resident set follows what the budget counts. Once, at start.
 */
void mem_budget__hold_allocator(void);

/*
 * Sets the ceiling; until mem_budget__set_base() the whole of it is the
 * budget.
 */
void mem_budget__set_ceiling(uint64_t ceiling);

/*
 * Reads the resident set now as the base, and makes the budget the ceiling
 * less it and the reserve, MEM_BUDGET_MIN at least. -ENOSPC (and *base
 * set) when the ceiling less the base is under MEM_BUDGET_MIN; the budget
 * is then MEM_BUDGET_MIN.
 */
int mem_budget__set_base(uint64_t *base);

uint64_t mem_budget__ceiling(void);
uint64_t mem_budget__base(void);
/* The budget: the ceiling less the base. */
uint64_t mem_budget__size(void);
/* What is not taken now (another thread may take it the next moment). */
uint64_t mem_budget__free(void);
/* The most that was taken at once. */
uint64_t mem_budget__peak(void);
/* What is taken now. */
uint64_t mem_budget__used(void);

/* Takes bytes if they fit the budget; false when they do not (nothing taken). */
bool mem_budget__take(uint64_t bytes);

/* Takes what is free, up to want; returns how much (0: nothing free). */
uint64_t mem_budget__take_upto(uint64_t want);

/*
 * What a big binary's unwind windows may need (record/unwind.c sets it
 * once a table goes by windows): a share taken for a binary's symbols
 * (mem_budget__take_share) leaves it free. Under a tight --mem-limit the
 * symbols of libLLVM and libclang-cpp took the budget, and the windows
 * that make clang's stacks whole waited for it to the end.
 */
void mem_budget__keep_for_windows(uint64_t bytes);

/* mem_budget__take_upto(), leaving free what is kept for windows. */
uint64_t mem_budget__take_share(uint64_t want);

/* Gives back bytes taken before. */
void mem_budget__give(uint64_t bytes);

#endif
