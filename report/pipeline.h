/* SPDX-License-Identifier: MIT */
/*
 * report/pipeline.h - `eprof report` without its command line:
 * recording -> aggregate -> symbolize -> the chosen outputs.
 *
 * cmd_report.c turns argv into struct report_opts; tests call
 * report__run() directly with an open_memstream() stream.
 */
#ifndef EPROF_REPORT_PIPELINE_H
#define EPROF_REPORT_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum report_output {
	REPORT_OUT_FOLD = 1u << 0,
};

struct report_opts {
	const char *input;		/* the recording */
	const char *output;		/* file to create; NULL: the stream given to report__run */
	unsigned int outputs;		/* enum report_output, at least one */
};

/* What the closing stderr line says. */
struct report_summary {
	uint64_t samples;
	uint64_t lost_samples;		/* ring buffer full */
	uint64_t lost_stacks;		/* user + kernel stacks not captured */
	uint64_t frames;		/* weighted by samples */
	uint64_t resolved;
	uint64_t missing_stack_samples;
	size_t distinct_keys;		/* aggregate entries */
	size_t symbolized;		/* distinct stacks symbolized */
};

/*
 * Reads opts->input and writes the selected outputs to opts->output, created
 * only once the recording has been read (a bad input leaves no empty file
 * behind), or to out when opts->output is NULL. Fills *sum (may be NULL).
 * Returns 0 or a negative errno after printing one line.
 */
int report__run(const struct report_opts *opts, FILE *out, struct report_summary *sum);

/* "eprof: 12345 samples, 0 lost, 3 stacks not captured, 98.7% of frames resolved" */
void report__print_summary(const struct report_summary *sum, FILE *f);

#endif
