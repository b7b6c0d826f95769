// SPDX-License-Identifier: MIT
/*
 * gen_stacks: writes a synthetic recording through format/ with N distinct
 * stacks (default 100000): fa_I;fb_J;fc_K for I, J < 100 and K < N/10000,
 * one sample each, plus 100 extra samples of fa_0;fb_0;fc_K for each K so
 * that every function has a frame wide enough to be drawn in a flame graph.
 * Functions are kernel symbols, so the recording needs no binary.
 *
 * usage: gen_stacks OUT.eprof [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"

#define KBASE	0xffffffff81000000ull
#define NA	100
#define NB	100

static int fail(const char *what, int err)
{
	fprintf(stderr, "gen_stacks: %s failed: %d\n", what, err);
	return 1;
}

int main(int argc, char **argv)
{
	struct recording *rec;
	struct rec_ksym *ks;
	struct rec_comm c = { .time_ns = 0, .tgid = 1, .tid = 1, .comm = "gen" };
	char (*names)[32];
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000, nc, i, nk, id = 1;
	uint64_t frames[3];
	int err;

	if (argc < 2)
		return fail("usage: gen_stacks OUT [N]", -1);
	nc = n / (NA * NB) ? n / (NA * NB) : 1;
	nk = NA + NB + nc;
	ks = calloc(nk, sizeof(*ks));
	names = calloc(nk, sizeof(*names));
	if (!ks || !names)
		return fail("calloc", -1);
	for (i = 0; i < nk; i++) {
		if (i < NA)
			snprintf(names[i], sizeof(names[i]), "fa_%lu", i);
		else if (i < NA + NB)
			snprintf(names[i], sizeof(names[i]), "fb_%lu", i - NA);
		else
			snprintf(names[i], sizeof(names[i]), "fc_%lu", i - NA - NB);
		ks[i] = (struct rec_ksym){ KBASE + i * 0x100, KBASE + (i + 1) * 0x100, names[i],
					   NULL };
	}
	err = recording__create(argv[1], &rec);
	if (err)
		return fail("create", err);
	recording__set_meta(rec, REC_META_START_NS, "1000000000");
	recording__set_meta(rec, REC_META_END_NS, "11000000000");
	recording__set_meta(rec, REC_META_HOSTNAME, "generator");
	recording__set_meta(rec, REC_META_TARGET, "-- gen_stacks");
	recording__set_meta(rec, REC_META_NUMA_MAP, "0:0");
	err = recording__add_ksyms(rec, ks, nk);
	if (!err)
		err = recording__add_comm(rec, &c);
	for (i = 0; !err && i < NA * NB * nc; i++) {
		unsigned long a = i / (NB * nc), b = (i / nc) % NB, k = i % nc;
		struct rec_stack st = { .id = (uint32_t)id++, .nr_kernel = 3, .frames = frames };
		struct rec_sample s = { 1000000000ull + i * 1000, 1, 1, 0, st.id };
		int rep, nrep = (a == 0 && b == 0) ? 101 : 1;

		/* innermost first */
		frames[0] = ks[NA + NB + k].addr + 0x10;
		frames[1] = ks[NA + b].addr + 0x10;
		frames[2] = ks[a].addr + 0x10;
		err = recording__add_stack(rec, &st);
		for (rep = 0; !err && rep < nrep; rep++)
			err = recording__add_sample(rec, &s);
		if (!err && recording__pending_samples(rec) >= 65536)
			err = recording__commit(rec);
	}
	if (!err)
		err = recording__finish(rec);
	recording__close(rec);
	free(ks);
	free(names);
	return err ? fail("writing", err) : 0;
}
