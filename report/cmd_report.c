// SPDX-License-Identifier: MIT
/*
 * report/cmd_report.c - `eprof report`: options to struct report_opts, the
 * output stream, and the one summary line on stderr.
 *
 * The pipeline (pipeline.c) creates the output file only once the
 * recording has been read, and a failed write or close of it is an error:
 * a half-written flame graph input must not look like a success.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "report/pipeline.h"
#include "report/report.h"
#include "util/log.h"
#include "util/status.h"

static void print_report_usage(FILE *f)
{
	fprintf(f, "usage: eprof report [-i FILE] --fold [-o OUT] [-v]\n\n"
		   "   -i, --input FILE    the recording (default: eprof.data)\n"
		   "   --fold              folded stacks, one line per stack (flamegraph.pl input)\n"
		   "   -o, --output OUT    write to OUT instead of stdout\n"
		   "   -v, --verbose       say more on stderr\n"
		   "   -h, --help          this text\n");
}

enum { OPT_FOLD = 0x100 };

static const struct option long_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "fold", no_argument, NULL, OPT_FOLD },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The one-line message for a getopt failure (opterr is off). */
static int usage_error(char **argv, int opt)
{
	const char *arg = argv[optind - 1];

	if (opt == ':')
		pr_err("option '%s' needs a value (see 'eprof report --help')", arg);
	else if (optopt > 0 && optopt < 0x80)
		pr_err("unknown option '-%c' (see 'eprof report --help')", optopt);
	else
		pr_err("unknown option '%s' (see 'eprof report --help')", arg);
	return EXIT_USAGE;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts opts = { .input = "eprof.data" };
	struct report_summary sum = { 0 };
	int opt, err;

	optind = 0;	/* glibc: full reinitialisation, then starts at argv[1] */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":i:o:vh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'i':
			opts.input = optarg;
			break;
		case 'o':
			opts.output = optarg;
			break;
		case OPT_FOLD:
			opts.outputs |= REPORT_OUT_FOLD;
			break;
		case 'v':
			log_set_level(LOG_INFO);
			break;
		case 'h':
			print_report_usage(stdout);
			return EXIT_OK;
		default:
			return usage_error(argv, opt);
		}
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s' (see 'eprof report --help')", argv[optind]);
		return EXIT_USAGE;
	}
	if (!opts.outputs) {
		pr_err("choose an output, e.g. --fold (see 'eprof report --help')");
		return EXIT_USAGE;
	}
	if (!opts.input[0] || (opts.output && !opts.output[0])) {
		pr_err("an empty file name was given (see 'eprof report --help')");
		return EXIT_USAGE;
	}

	err = report__run(&opts, stdout, &sum);
	if (err)
		return EXIT_FAIL;
	report__print_summary(&sum, stderr);
	pr_info("%zu distinct (comm, process, stack) keys, %zu stacks symbolized",
		sum.distinct_keys, sum.symbolized);
	return EXIT_OK;
}
