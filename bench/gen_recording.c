// SPDX-License-Identifier: MIT
/*
 * gen_recording: makes a big recording out of a real one, through the
 * format API, so that bench/run.sh can time `eprof report` at 10M samples
 * without recording for ten minutes. Everything but the samples (metadata,
 * stacks, comms, mappings, symbols, kernel symbols, losses) is copied as is;
 * the samples are the source's, repeated in order with their times shifted
 * by the source's duration on each pass, until there are N of them. The
 * report of the result is the source's report with every count multiplied,
 * so its work per sample is that of a real recording.
 *
 * usage: gen_recording SOURCE.eprof OUT.eprof NR_SAMPLES
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"

struct copy {
	struct recording *out;
	struct rec_sample *samples;
	size_t nr, cap;
	struct rec_ksym *ksyms;
	size_t nr_ksyms, cap_ksyms;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	void *n;
	size_t c = *cap ? *cap : 1024;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*p, c * elem);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = c;
	return 0;
}

static int on_sample(void *ctx, const struct rec_sample *s)
{
	struct copy *c = ctx;

	if (grow((void **)&c->samples, &c->cap, c->nr + 1, sizeof(*s)))
		return -ENOMEM;
	c->samples[c->nr++] = *s;
	return 0;
}

static int on_stack(void *ctx, const struct rec_stack *st)
{
	return recording__add_stack(((struct copy *)ctx)->out, st);
}

static int on_comm(void *ctx, const struct rec_comm *cm)
{
	return recording__add_comm(((struct copy *)ctx)->out, cm);
}

static int on_mapping(void *ctx, const struct rec_mapping *m)
{
	return recording__add_mapping(((struct copy *)ctx)->out, m);
}

static int on_loss(void *ctx, const struct rec_loss *l)
{
	return recording__add_loss(((struct copy *)ctx)->out, l);
}

static int on_binary(void *ctx, const struct rec_binary *b)
{
	return recording__add_binary(((struct copy *)ctx)->out, b);
}

static int on_ksym(void *ctx, const struct rec_ksym *k)
{
	struct copy *c = ctx;
	struct rec_ksym *d;

	if (grow((void **)&c->ksyms, &c->cap_ksyms, c->nr_ksyms + 1, sizeof(*k)))
		return -ENOMEM;
	d = &c->ksyms[c->nr_ksyms];
	*d = *k;
	d->name = k->name ? strdup(k->name) : NULL;
	d->module = k->module ? strdup(k->module) : NULL;
	if ((k->name && !d->name) || (k->module && !d->module))
		return -ENOMEM;
	c->nr_ksyms++;
	return 0;
}

static const char *const meta_keys[] = {
	REC_META_EPROF_VERSION, REC_META_HOSTNAME, REC_META_KERNEL, REC_META_ARCH,
	REC_META_NR_CPUS, REC_META_NUMA_MAP, REC_META_FREQ_HZ, REC_META_EVENT,
	REC_META_CLOCK, REC_META_START_NS, REC_META_START_REALTIME,
	REC_META_COMMAND, REC_META_TARGET,
};

int main(int argc, char **argv)
{
	struct recording *in = NULL;
	struct copy c = { 0 };
	unsigned long long want;
	uint64_t first, span;
	char *v = NULL, buf[32];
	size_t i;
	int err;

	if (argc != 4 || !(want = strtoull(argv[3], NULL, 10))) {
		fprintf(stderr, "usage: gen_recording SOURCE.eprof OUT.eprof NR_SAMPLES\n");
		return 2;
	}
	err = recording__open(argv[1], &in);
	if (!err)
		err = recording__create(argv[2], &c.out);
	for (i = 0; !err && i < sizeof(meta_keys) / sizeof(meta_keys[0]); i++) {
		if (recording__get_meta(in, meta_keys[i], &v))
			continue;
		err = recording__set_meta(c.out, meta_keys[i], v);
		free(v);
	}
	if (!err)
		err = recording__for_each_sample(in, on_sample, &c);
	if (!err && !c.nr)
		err = -ENODATA;
	if (!err)
		err = recording__for_each_stack(in, on_stack, &c);
	if (!err)
		err = recording__for_each_comm(in, on_comm, &c);
	if (!err)
		err = recording__for_each_mapping(in, on_mapping, &c);
	if (!err)
		err = recording__for_each_loss(in, on_loss, &c);
	if (!err)
		err = recording__for_each_binary(in, on_binary, &c);
	if (!err)
		err = recording__for_each_ksym(in, on_ksym, &c);
	if (!err && c.nr_ksyms)
		err = recording__add_ksyms(c.out, c.ksyms, c.nr_ksyms);
	if (!err)
		err = recording__commit(c.out);
	if (err)
		goto out;

	first = c.samples[0].time_ns;
	span = c.samples[c.nr - 1].time_ns - first + 1000;
	for (unsigned long long k = 0; k < want && !err; k++) {
		struct rec_sample s = c.samples[k % c.nr];

		s.time_ns += (k / c.nr) * span;
		err = recording__add_sample(c.out, &s);
		if (!err && recording__pending_samples(c.out) >= (1u << 20))
			err = recording__commit(c.out);
	}
	if (err)
		goto out;
	snprintf(buf, sizeof(buf), "%llu",
		 (unsigned long long)(first + ((want - 1) / c.nr + 1) * span));
	err = recording__set_meta(c.out, REC_META_END_NS, buf);
	if (!err)
		err = recording__finish(c.out);
out:
	if (err)
		fprintf(stderr, "gen_recording: %s -> %s: %s\n", argv[1], argv[2], strerror(-err));
	recording__close(c.out);
	recording__close(in);
	for (i = 0; i < c.nr_ksyms; i++) {
		free((char *)c.ksyms[i].name);
		free((char *)c.ksyms[i].module);
	}
	free(c.ksyms);
	free(c.samples);
	return err ? 1 : 0;
}
