// SPDX-License-Identifier: MIT
/*
 * record/budget.c - the recorder's memory budget (budget.h): one counter of
 * bytes taken, compared with the ceiling less the base, atomically, as the
 * unwind table builders take from it on their own threads.
 */
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/budget.h"
#include "util/parse.h"

static uint64_t ceiling = MEM_CEILING_DEFAULT, base, size = MEM_CEILING_DEFAULT;
static _Atomic uint64_t used, peak;
static _Atomic uint64_t windows_keep;	/* left free by mem_budget__take_share() */

uint64_t machine_memory_share(uint64_t divisor, uint64_t lo, uint64_t hi)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t c;

	if (pages <= 0 || page <= 0)
		return lo;
	c = (uint64_t)pages * (uint64_t)page / divisor;
	return c < lo ? lo : c > hi ? hi : c;
}

int mem_limit__parse(const char *s, uint64_t *out)
{
	static const char suffixes[] = "KMG";
	size_t len = strlen(s);
	const char *p;
	char num[32];
	unsigned int shift = 0;
	uint64_t v;

	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len + 1);
	p = strchr(suffixes, s[len - 1]);
	if (p && *p) {
		shift = 10 * (unsigned int)(p - suffixes + 1);
		num[len - 1] = '\0';
	}
	if (parse_u64(num, 1, UINT64_MAX >> shift, &v))
		return -EINVAL;
	*out = v << shift;
	return 0;
}

void mem_budget__hold_allocator(void)
{
	/*
	 * glibc raises its mmap threshold to the largest block freed (up to
	 * 32 MiB), so a perf map's or a symbol table's freed buffers, and the
	 * next ones carved from the heap, stay resident; every thread that
	 * allocates gets an arena of its own. Under the t0816 attacks that
	 * slack was 17 MiB over a 128 MiB ceiling. Fixed thresholds give big
	 * blocks back when freed, and two arenas serve the builders.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	mallopt(M_TRIM_THRESHOLD, 128 << 10);
	mallopt(M_ARENA_MAX, 2);
}

void mem_budget__set_ceiling(uint64_t c)
{
	ceiling = c;
	base = 0;
	size = c;
	atomic_store(&windows_keep, 0);
}

/* The resident set now, in bytes (0 when unknown). */
static uint64_t resident(void)
{
	unsigned long long total, rss;
	long page = sysconf(_SC_PAGESIZE);
	FILE *f = fopen("/proc/self/statm", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &total, &rss);
	fclose(f);
	return n == 2 && page > 0 ? (uint64_t)rss * (uint64_t)page : 0;
}

int mem_budget__set_base(uint64_t *out)
{
	uint64_t reserve;

	base = resident();
	*out = base;
	if (base > ceiling || ceiling - base < MEM_BUDGET_MIN) {
		size = MEM_BUDGET_MIN;
		return -ENOSPC;
	}
	/*
	 * A quarter held back, MEM_RESERVE_MIN at least, for what grows with
	 * the recording rather than with what users map (SQLite's cache, the
	 * stack table), for the allocator's slack around what is charged,
	 * sort buffers and the library pages first run after the base. The
	 * t0816 attacks under a 128 MiB ceiling held 31 MiB beyond the base
	 * and the budget taken.
	 */
	reserve = (ceiling - base) / 4;
	if (reserve < MEM_RESERVE_MIN)
		reserve = MEM_RESERVE_MIN;
	size = ceiling - base > reserve + MEM_BUDGET_MIN ? ceiling - base - reserve : MEM_BUDGET_MIN;
	return 0;
}

uint64_t mem_budget__ceiling(void)
{
	return ceiling;
}

uint64_t mem_budget__base(void)
{
	return base;
}

uint64_t mem_budget__size(void)
{
	return size;
}

uint64_t mem_budget__free(void)
{
	uint64_t u = atomic_load(&used);

	return u < size ? size - u : 0;
}

uint64_t mem_budget__peak(void)
{
	return atomic_load(&peak);
}

uint64_t mem_budget__used(void)
{
	return atomic_load(&used);
}

static void note_peak(uint64_t now)
{
	uint64_t p = atomic_load(&peak);

	while (now > p && !atomic_compare_exchange_weak(&peak, &p, now))
		;
}

bool mem_budget__take(uint64_t bytes)
{
	uint64_t u = atomic_load(&used);

	do {
		if (bytes > size || u > size - bytes)
			return false;
	} while (!atomic_compare_exchange_weak(&used, &u, u + bytes));
	note_peak(u + bytes);
	return true;
}

/* Takes what is free beyond keep, up to want. */
static uint64_t take_leaving(uint64_t want, uint64_t keep)
{
	uint64_t u = atomic_load(&used), n, cap = size > keep ? size - keep : 0;

	do {
		n = u >= cap ? 0 : cap - u < want ? cap - u : want;
		if (!n)
			return 0;
	} while (!atomic_compare_exchange_weak(&used, &u, u + n));
	note_peak(u + n);
	return n;
}

uint64_t mem_budget__take_upto(uint64_t want)
{
	return take_leaving(want, 0);
}

void mem_budget__keep_for_windows(uint64_t bytes)
{
	atomic_store(&windows_keep, bytes);
}

uint64_t mem_budget__take_share(uint64_t want)
{
	return take_leaving(want, atomic_load(&windows_keep));
}

void mem_budget__give(uint64_t bytes)
{
	uint64_t u = atomic_load(&used);

	/* never below zero, whatever a caller gives back */
	while (!atomic_compare_exchange_weak(&used, &u, u > bytes ? u - bytes : 0))
		;
}
