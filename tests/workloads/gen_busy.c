// SPDX-License-Identifier: MIT
/*
 * gen_busy: writes a whole-system (-a) recording through format/ whose
 * busyness is known by construction, for the HTML report's heat map
 * (issue 21). 2 CPUs sampled at 100 Hz for 3 s, one sample per CPU per
 * tick, 1 ms after it:
 *
 *   second 0   every tick busy: app (pid 100) in spin <- main
 *   second 1   the 20 ms row r (two ticks on two CPUs) has r % 5 of its
 *              four samples busy, the rest the idle task's (pid 0,
 *              do_idle <- cpu_startup_entry): 0, 25, 50, 75, 100% busy
 *   second 2   every tick busy, but rows 10-14 (200-300 ms) have no
 *              sample at all: ticks missed, not idle
 *
 * usage: gen_busy OUT.eprof
 */
#include <stdio.h>
#include <string.h>

#include "format/recording.h"

#define START_NS	1000000000ull
#define TICK_NS		10000000ull
#define MAP_START	0x400000ull
#define KBASE		0xffffffff81000000ull

static int add_meta(struct recording *rec)
{
	static const char *const kv[][2] = {
		{ REC_META_EPROF_VERSION, "gen_busy" }, { REC_META_HOSTNAME, "busy" },
		{ REC_META_NR_CPUS, "2" }, { REC_META_NUMA_MAP, "0:0,1:0" },
		{ REC_META_FREQ_HZ, "100" }, { REC_META_EVENT, "cpu-clock" },
		{ REC_META_CLOCK, "CLOCK_MONOTONIC" }, { REC_META_START_NS, "1000000000" },
		{ REC_META_END_NS, "4000000000" }, { REC_META_TARGET, "-a" },
	};
	size_t i;
	int err = 0;

	for (i = 0; i < sizeof(kv) / sizeof(kv[0]) && !err; i++)
		err = recording__set_meta(rec, kv[i][0], kv[i][1]);
	return err;
}

/* Stack 1: spin <- main (user); stack 2: do_idle <- cpu_startup_entry (kernel). */
static int add_stacks(struct recording *rec)
{
	uint64_t user[2] = { MAP_START + 0x1110, MAP_START + 0x1010 };
	uint64_t kern[2] = { KBASE + 0x10, KBASE + 0x110 };
	struct rec_stack busy = { .id = 1, .nr_user = 2, .frames = user };
	struct rec_stack idle = { .id = 2, .nr_kernel = 2, .frames = kern };

	return recording__add_stack(rec, &busy) ?: recording__add_stack(rec, &idle);
}

static int add_symbols(struct recording *rec, const uint8_t *build_id, const char *path)
{
	static const struct rec_symbol syms[] = { { 0x1000, 0x100, "main" },
						  { 0x1100, 0x100, "spin" } };
	static const struct rec_ksym ks[] = { { KBASE, KBASE + 0x100, "do_idle", NULL },
					      { KBASE + 0x100, KBASE + 0x200, "cpu_startup_entry", NULL } };
	struct rec_binary b = { .build_id_len = 20, .path = path, .source = ".symtab",
				.nr_symbols = 2, .symbols = syms };
	int err;

	memcpy(b.build_id, build_id, 20);
	err = recording__add_binary(rec, &b);
	return err ? err : recording__add_ksyms(rec, ks, 2);
}

/* Whether CPU cpu's sample of tick t is busy; -1: the tick was missed. */
static int tick_busy(uint32_t t, uint32_t cpu)
{
	uint32_t row = t % 100 / 2, q = t % 2 * 2 + cpu;

	if (t < 100)
		return 1;
	if (t < 200)
		return q < row % 5;
	return row >= 10 && row < 15 ? -1 : 1;
}

int main(int argc, char **argv)
{
	static const uint8_t build_id[20] = { 0xb0, 0x5e, 1, 2, 3, 4, 5, 6, 7, 8,
					      9, 10, 11, 12, 13, 14, 15, 16, 17, 18 };
	struct rec_comm c = { .tgid = 100, .tid = 100, .comm = "app" };
	struct rec_mapping m = { .tgid = 100, .start = MAP_START, .end = MAP_START + 0x10000,
				 .path = "/nonexistent/app", .build_id_len = 20 };
	struct rec_sample s = { 0 };
	struct recording *rec = NULL;
	uint32_t t, cpu;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_busy OUT.eprof\n");
		return 2;
	}
	memcpy(m.build_id, build_id, 20);
	err = recording__create(argv[1], &rec);
	err = err ?: add_meta(rec);
	err = err ?: recording__add_comm(rec, &c);
	err = err ?: recording__add_mapping(rec, &m);
	err = err ?: add_stacks(rec);
	err = err ?: add_symbols(rec, build_id, m.path);
	for (t = 0; t < 300 && !err; t++) {
		for (cpu = 0; cpu < 2 && !err; cpu++) {
			int busy = tick_busy(t, cpu);

			if (busy < 0)
				continue;
			s.time_ns = START_NS + t * TICK_NS + TICK_NS / 10;
			s.cpu = cpu;
			s.tgid = s.tid = busy ? 100 : 0;
			s.stack_id = busy ? 1 : 2;
			err = recording__add_sample(rec, &s);
		}
	}
	err = err ?: recording__commit(rec);
	err = err ?: recording__finish(rec);
	recording__close(rec);
	if (err)
		fprintf(stderr, "gen_busy: cannot write '%s': %d\n", argv[1], err);
	return err ? 1 : 0;
}
