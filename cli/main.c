// SPDX-License-Identifier: MIT
/*
 * cli/main.c - eprof's entry point: one table of commands, the exit-status
 * policy, and the last check that stdout really reached its destination.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "record/record.h"
#include "report/report.h"
#include "util/log.h"
#include "util/status.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	bool passes_child_status;	/* record -- CMD exits with CMD's status */
};

static const struct command commands[] = {
	{ "record", cmd_record, "sample CPU stacks into a recording", true },
	{ "report", cmd_report, "fold, draw or tabulate a recording", false },
	{ "info", cmd_info, "describe a recording", false },
};

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: eprof <command> [options]\n\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "   %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n"
		   "   eprof record [-F HZ] [-o FILE] [-d SECONDS] [--cpu LIST] "
		   "(-a | -p PID[,PID...] | -- CMD [ARGS...])\n"
		   "   eprof report [-i FILE]... [filters] (--fold | --svg OUT | --top [N] | "
		   "--per-cpu | --per-node | --timeline SECONDS | --pprof OUT | --html OUT | "
		   "--speedscope OUT | --firefox OUT | --samples)\n"
		   "   eprof report --diff BASE NEW [filters] (--fold | --svg OUT | --top [N] | --html OUT)\n"
		   "   eprof info [FILE] [--json]\n\n"
		   "'eprof <command> --help' describes a command's options.\n");
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* A full disk or a closed pipe on stdout is a failure, not a success. */
static int finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			pr_errno(-errno, "cannot write the output");
		return status ? status : EXIT_FAIL;
	}
	return status;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	int status;

	if (argc < 2) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		print_usage(stdout);
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("eprof %s (recording format v1)\n", EPROF_VERSION);
		return finish_stdout(EXIT_OK);
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		pr_err("'%s' is not an eprof command (see 'eprof --help')", argv[1]);
		return EXIT_USAGE;
	}
	status = cmd->run(argc - 1, argv + 1);
	if (status == EXIT_FAIL && !log_error_count() && !cmd->passes_child_status)
		pr_err("%s failed without a message (this is a bug, please report it)", cmd->name);
	/*
	 * An error said is a failure, even where the command went on (a
	 * damaged part of a recording skipped): a script must not take a
	 * report that printed "error:" for a good one.
	 */
	if (status == EXIT_OK && log_error_count() && !cmd->passes_child_status)
		status = EXIT_FAIL;
	return finish_stdout(status);
}
