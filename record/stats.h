/* SPDX-License-Identifier: MIT */
/*
 * record/stats.h - the BPF programs' per-CPU counters (bpf/events.h's
 * EV_STAT_*), as sampler__read_stats() reads them: EV_STAT_MAX values per
 * possible CPU. Each commit writes what they gained since the last one, per
 * CPU (the sampler's losses in session.c, the off-CPU losses in offcpu.c),
 * each user keeping its own copy of the values it saw last.
 */
#ifndef EPROF_RECORD_STATS_H
#define EPROF_RECORD_STATS_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bpf/events.h"

/*
 * What CPU cpu's counters in cur gained since prev (both EV_STAT_MAX per
 * CPU): delta[k] for every counter k; prev's row then holds cur's. The
 * differences are unsigned, so a counter that wrapped still gives its gain.
 */
static inline void stats__delta(const uint64_t *cur, uint64_t *prev, int cpu,
				uint64_t delta[EV_STAT_MAX])
{
	const uint64_t *c = cur + (size_t)cpu * EV_STAT_MAX;
	uint64_t *p = prev + (size_t)cpu * EV_STAT_MAX;
	size_t k;

	for (k = 0; k < EV_STAT_MAX; k++)
		delta[k] = c[k] - p[k];
	memcpy(p, c, EV_STAT_MAX * sizeof(*c));
}

#endif
