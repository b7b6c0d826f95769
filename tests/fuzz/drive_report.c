// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/drive_report.c - one fuzz input through every view of
 * `eprof report` and through `eprof info`, so that the checks a reader makes
 * against the rest of the file (times within the span, CPUs below the CPU
 * count, chunks that do not overlap, stacks that exist) and every size a
 * view derives from the file (timeline rows, per-CPU tables) meet hostile
 * numbers, not only the decoders.
 *
 * The contract checked is issue 9's: a view either succeeds without having
 * printed an error, or fails with a negative errno after printing at least
 * one ("an error said is a failure"); a report without filters counts
 * every sample the reader delivers, no more (a copied chunk must not count
 * twice). The views write to /dev/null; local files are not looked up
 * (the input's paths name files of this machine).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording.h"
#include "report/pipeline.h"
#include "report/report.h"
#include "tests/fuzz/drive.h"
#include "util/log.h"

static FILE *devnull(void)
{
	static FILE *null;

	if (!null)
		null = fopen("/dev/null", "w");
	return null;
}

static int count_one(void *ctx, const struct rec_sample *s)
{
	(void)s;
	++*(uint64_t *)ctx;
	return 0;
}

/* Samples the reader delivers, or -1 when it fails. */
static int64_t delivered(const char *path)
{
	struct recording *rec = NULL;
	uint64_t n = 0;
	int err;

	err = recording__open(path, &rec);
	if (!err)
		err = recording__for_each_sample(rec, count_one, &n);
	recording__close(rec);
	return err ? -1 : (int64_t)n;
}

/* One report__run; checks its return against what it printed. */
static enum fuzz_result one_view(const struct report_opts *o, const char *what, int64_t samples)
{
	struct report_summary sum = { 0 };
	unsigned int before = log_error_count();
	FILE *out = devnull();
	int rc;

	if (!out)
		return FUZZ_REJECTED;
	rc = report__run(o, out, &sum);
	clearerr(out);
	if (rc > 0 || (rc == 0 && log_error_count() != before) ||
	    (rc < 0 && log_error_count() == before)) {
		fprintf(fuzz_report ? fuzz_report : stderr, "fuzz: contract violation: report %s "
			"returned %d after %u error lines\n", what, rc, log_error_count() - before);
		return FUZZ_BROKEN;
	}
	if (!rc && !strcmp(what, "--fold") && samples >= 0 && sum.samples != (uint64_t)samples) {
		fprintf(fuzz_report ? fuzz_report : stderr, "fuzz: contract violation: report "
			"--fold counted %llu samples, the reader delivered %lld\n",
			(unsigned long long)sum.samples, (long long)samples);
		return FUZZ_BROKEN;
	}
	return rc ? FUZZ_REJECTED : FUZZ_ACCEPTED;
}

/* `eprof info PATH` and `--json`: EXIT_OK only without an error line. */
static enum fuzz_result info(const char *path, bool json)
{
	char *argv[] = { (char *)"info", (char *)path, (char *)"--json", NULL };

	unsigned int before = log_error_count();
	FILE *saved = stdout;
	int status;

	stdout = devnull();	/* what info prints is not the point */
	status = cmd_info(json ? 3 : 2, argv);
	fflush(stdout);
	clearerr(stdout);
	stdout = saved;
	if ((status == 0) != (log_error_count() == before)) {
		fprintf(fuzz_report ? fuzz_report : stderr, "fuzz: contract violation: info exited "
			"%d after %u error lines\n", status, log_error_count() - before);
		return FUZZ_BROKEN;
	}
	return status ? FUZZ_REJECTED : FUZZ_ACCEPTED;
}

enum fuzz_result fuzz_drive_report(const char *path)
{
	static const struct {
		const char *what;
		unsigned int output;
		uint64_t timeline_ns;
	} views[] = {
		{ "--fold", REPORT_OUT_FOLD, 0 },
		{ "--svg", REPORT_OUT_SVG, 0 },
		{ "--per-node", REPORT_OUT_PERNODE, 0 },
		{ "--timeline 0.000001", REPORT_OUT_TIMELINE, 1000 },
		{ "--pprof", REPORT_OUT_PPROF, 0 },
		{ "--samples", REPORT_OUT_SAMPLES, 0 },
	};
	const char *inputs[2] = { path, path };
	struct report_opts o;
	enum fuzz_result res = FUZZ_ACCEPTED, r;
	int64_t samples = delivered(path);
	size_t i;

	if (!devnull())
		return FUZZ_REJECTED;
	for (i = 0; i < sizeof(views) / sizeof(views[0]) && res != FUZZ_BROKEN; i++) {
		memset(&o, 0, sizeof(o));
		o.input = path;
		o.outputs = views[i].output;
		o.timeline_ns = views[i].timeline_ns;
		r = one_view(&o, views[i].what, samples);
		if (r != FUZZ_ACCEPTED)
			res = r;
	}
	/* weighed by time (off-CPU tables): refused with one line without them */
	for (i = 0; i < 3 && res != FUZZ_BROKEN; i++) {
		memset(&o, 0, sizeof(o));
		o.input = path;
		o.weight = i ? REPORT_WEIGHT_WALL : REPORT_WEIGHT_OFFCPU;
		o.outputs = i == 0 ? REPORT_OUT_FOLD : i == 1 ? REPORT_OUT_TIMELINE : REPORT_OUT_PPROF;
		o.timeline_ns = 1000;
		r = one_view(&o, i == 0 ? "--off-cpu --fold" : i == 1 ? "--wall --timeline 0.000001" :
			     "--wall --pprof", -1);
		if (r != FUZZ_ACCEPTED)
			res = r;
	}
	/* two recordings: a diff against itself, and a merge */
	memset(&o, 0, sizeof(o));
	o.outputs = REPORT_OUT_TOP;
	o.diff_base = path;
	o.diff_new = path;
	if (res != FUZZ_BROKEN && (r = one_view(&o, "--diff --top", -1)) != FUZZ_ACCEPTED)
		res = r;
	memset(&o, 0, sizeof(o));
	o.outputs = REPORT_OUT_FOLD;
	o.inputs = inputs;
	o.nr_inputs = 2;
	o.by = REPORT_BY_TID;
	if (res != FUZZ_BROKEN && (r = one_view(&o, "-i -i --by tid", -1)) != FUZZ_ACCEPTED)
		res = r;
	if (res != FUZZ_BROKEN && (r = info(path, false)) != FUZZ_ACCEPTED)
		res = r;
	return res;
}
