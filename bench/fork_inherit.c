// SPDX-License-Identifier: MIT
/*
 * bench/fork_inherit.c - the recorder's CPU per fork against the number of
 * mappings it keeps (issue 19, "the side-band scales with forks"), on the
 * session's own side-band sink, without the kernel: NMAPS mappings of
 * NMAPS / 10 live processes, then FORKS forks of a 10-mapping parent, each
 * child getting its copies (added to the kept mappings, as in a storm).
 * MODE tail: the NMAPS were added since the last sort (a commit's worth of
 * a fork storm); sorted: capture sorted them. Prints CPU ns per fork.
 * Built and run by bench/fork-inherit.sh against a source tree and its build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/session.h"
#include "record/sideband.h"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int by_pid_start(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

int main(int argc, char **argv)
{
	struct session s;
	struct sideband_sink sink;
	struct rec_mapping m;
	size_t nmaps, forks, i;
	uint64_t t0, t1;
	int sorted;

	if (argc != 4) {
		fprintf(stderr, "usage: fork_inherit NMAPS FORKS tail|sorted\n");
		return 2;
	}
	nmaps = strtoul(argv[1], NULL, 10);
	forks = strtoul(argv[2], NULL, 10);
	sorted = !strcmp(argv[3], "sorted");
	memset(&s, 0, sizeof(s));
	session__sideband_sink(&s, &sink);
	memset(&m, 0, sizeof(m));
	m.path = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	for (i = 0; i < nmaps; i++) {
		m.tgid = 100000 + (uint32_t)(i / 10);
		m.start = 0x7f0000000000ull + (i % 10) * 0x100000;
		m.end = m.start + 0x1000;
		m.time_ns = 1 + i;
		if (sink.mapping(sink.ctx, &m))
			return 1;
	}
	for (i = 0; i < 10; i++) {
		m.tgid = 50;
		m.start = 0x5000000 + i * 0x100000;
		m.end = m.start + 0x1000;
		m.time_ns = nmaps + 1;
		if (sink.mapping(sink.ctx, &m))
			return 1;
	}
	if (sorted) {
		qsort(s.maps.v, s.maps.nr, sizeof(*s.maps.v), by_pid_start);
		s.maps.dirty = false;
		s.maps.nr_sorted = s.maps.nr;
	}
	t0 = cpu_ns();
	for (i = 0; i < forks; i++)
		if (sink.fork(sink.ctx, 50, 300000 + (uint32_t)i, nmaps + 2 + i))
			return 1;
	t1 = cpu_ns();
	printf("%zu mappings (%s), %zu forks: %.0f ns of CPU per fork, %zu mappings kept after\n",
	       nmaps, argv[3], forks, (double)(t1 - t0) / (double)forks, s.maps.nr);
	return 0;
}
