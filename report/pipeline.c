// SPDX-License-Identifier: MIT
/*
 * report/pipeline.c - one pass from a recording to the chosen outputs.
 *
 * The order is fixed: comms and samples are folded into the aggregate
 * first (the only step whose input grows with the recording), then the
 * symbol data is loaded and each distinct stack symbolized once, then every
 * selected emitter writes from the same resolved aggregate. New outputs add
 * a row to the emitter table; filters go into the aggregation step.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "format/recording.h"
#include "report/aggregate.h"
#include "report/out_fold.h"
#include "report/pipeline.h"
#include "report/symbolize.h"
#include "util/log.h"

struct emitter {
	unsigned int output;		/* enum report_output */
	const char *what;		/* for the error message */
	int (*write)(const struct stack_agg *agg, FILE *out);
};

static const struct emitter emitters[] = {
	{ REPORT_OUT_FOLD, "the folded stacks", fold__write },
};

static int on_loss(void *ctx, const struct rec_loss *l)
{
	struct report_summary *sum = ctx;

	sum->lost_samples += l->lost_samples;
	sum->lost_stacks += l->lost_ustacks + l->lost_kstacks;
	return 0;
}

int report__run(const struct report_opts *opts, FILE *out, struct report_summary *sum)
{
	struct report_summary local = { 0 };
	struct recording *rec = NULL;
	struct symbolizer *sym = NULL;
	FILE *file = NULL;
	const struct sym_stats *st;
	struct stack_agg agg;
	size_t i;
	int err;

	stack_agg__init(&agg);
	if (!sum)
		sum = &local;

	err = recording__open(opts->input, &rec);
	if (err)
		goto out;
	err = recording__for_each_loss(rec, on_loss, sum);
	if (err)
		goto out;
	err = stack_agg__load(&agg, rec);
	if (err)
		goto out;
	sym = symbolizer__new();
	if (!sym) {
		err = pr_errno(-ENOMEM, "cannot symbolize '%s'", opts->input);
		goto out;
	}
	err = symbolizer__load(sym, rec);
	if (err)
		goto out;
	err = symbolizer__resolve(sym, &agg);
	if (err)
		goto out;

	st = symbolizer__stats(sym);
	sum->samples = agg.nr_samples;
	sum->frames = st->frames;
	sum->resolved = st->resolved;
	sum->missing_stack_samples = st->missing_stack_samples;
	sum->distinct_keys = agg.nr;
	sum->symbolized = symbolizer__nr_symbolized(sym);
	if (st->missing_stack_samples)
		pr_warn("'%s': %" PRIu64 " samples refer to stacks that are not in the recording",
			opts->input, st->missing_stack_samples);

	if (opts->output) {
		file = fopen(opts->output, "w");
		if (!file) {
			err = pr_errno(-errno, "cannot create '%s'", opts->output);
			goto out;
		}
		out = file;
	}
	for (i = 0; i < sizeof(emitters) / sizeof(emitters[0]); i++) {
		if (!(opts->outputs & emitters[i].output))
			continue;
		err = emitters[i].write(&agg, out);
		if (err) {
			pr_errno(err, "cannot write %s to %s%s%s", emitters[i].what,
				 file ? "'" : "", file ? opts->output : "the standard output",
				 file ? "'" : "");
			goto out;
		}
	}
	if (file) {
		errno = 0;
		if (fclose(file)) {
			file = NULL;
			err = pr_errno(errno ? -errno : -EIO, "cannot write '%s'", opts->output);
			goto out;
		}
		file = NULL;
	}
out:
	if (file)
		fclose(file);
	symbolizer__free(sym);
	stack_agg__release(&agg);
	recording__close(rec);
	return err;
}

void report__print_summary(const struct report_summary *sum, FILE *f)
{
	uint64_t permille;

	fprintf(f, "eprof: %" PRIu64 " samples, %" PRIu64 " lost, %" PRIu64 " stacks not captured, ",
		sum->samples, sum->lost_samples, sum->lost_stacks);
	if (!sum->frames) {
		fprintf(f, "no frames to resolve\n");
		return;
	}
	/* rounded down: 99.96% must not read as 100.0% */
	permille = (uint64_t)((unsigned __int128)sum->resolved * 1000 / sum->frames);
	fprintf(f, "%" PRIu64 ".%" PRIu64 "%% of frames resolved\n", permille / 10, permille % 10);
}
