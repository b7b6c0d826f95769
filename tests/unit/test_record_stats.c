// SPDX-License-Identifier: MIT
/*
 * tests/unit/test_record_stats.c - record/stats.h, the one per-CPU delta of
 * the BPF counters: each CPU's row gains what it grew since the last call,
 * the other rows are left alone, and a second call with the same counters
 * gains nothing (the loss rows of session.c and offcpu.c rest on it).
 */
#include <stdint.h>
#include <string.h>

#include "record/stats.h"
#include "tests/unit/harness.h"

#define NR_CPUS 3

static void each_cpu_gains_what_it_grew(void)
{
	uint64_t cur[NR_CPUS * EV_STAT_MAX], prev[NR_CPUS * EV_STAT_MAX], d[EV_STAT_MAX];
	size_t k, bad = 0;
	int cpu;

	memset(prev, 0, sizeof(prev));
	for (k = 0; k < NR_CPUS * EV_STAT_MAX; k++)
		cur[k] = 1000 + k;
	/* the first call: everything since zero */
	stats__delta(cur, prev, 1, d);
	for (k = 0; k < EV_STAT_MAX; k++)
		bad += d[k] != 1000 + EV_STAT_MAX + k;
	CHECK_EQ_U64(bad, 0);
	/* only CPU 1's row was taken */
	for (k = 0; k < EV_STAT_MAX; k++)
		bad += prev[k] != 0 || prev[EV_STAT_MAX + k] != cur[EV_STAT_MAX + k] ||
		       prev[2 * EV_STAT_MAX + k] != 0;
	CHECK_EQ_U64(bad, 0);
	/* the same counters again: nothing gained */
	stats__delta(cur, prev, 1, d);
	for (k = 0; k < EV_STAT_MAX; k++)
		bad += d[k] != 0;
	CHECK_EQ_U64(bad, 0);
	stats__delta(cur, prev, 0, d);
	stats__delta(cur, prev, 2, d);
	CHECK(!memcmp(cur, prev, sizeof(cur)));
	/* some counters grow on some CPUs */
	cur[1 * EV_STAT_MAX + EV_STAT_RINGBUF_FULL] += 7;
	cur[2 * EV_STAT_MAX + EV_STAT_OFFCPU_LOST_NS] += 123456789;
	stats__delta(cur, prev, 1, d);
	CHECK_EQ_U64(d[EV_STAT_RINGBUF_FULL], 7);
	CHECK_EQ_U64(d[EV_STAT_OFFCPU_LOST_NS], 0);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		stats__delta(cur, prev, cpu, d);
	CHECK_EQ_U64(d[EV_STAT_OFFCPU_LOST_NS], 123456789);
	CHECK_EQ_U64(d[EV_STAT_RINGBUF_FULL], 0);
	CHECK(!memcmp(cur, prev, sizeof(cur)));
}

static void a_counter_past_2_to_the_64_still_differs_right(void)
{
	uint64_t cur[EV_STAT_MAX] = { 0 }, prev[EV_STAT_MAX] = { 0 }, d[EV_STAT_MAX];

	prev[EV_STAT_SAMPLES] = UINT64_MAX - 1;
	cur[EV_STAT_SAMPLES] = 3;	/* wrapped: 5 more */
	stats__delta(cur, prev, 0, d);
	CHECK_EQ_U64(d[EV_STAT_SAMPLES], 5);
}

static const struct test tests[] = {
	{ "each CPU's row gains what it grew, once", each_cpu_gains_what_it_grew },
	{ "a counter that wrapped still gives its gain", a_counter_past_2_to_the_64_still_differs_right },
};

int main(void)
{
	return run_tests(tests, ARRAY_SIZE(tests));
}
