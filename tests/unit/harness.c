// SPDX-License-Identifier: MIT
/*
 * tests/unit/harness.c - runs a table of tests; see harness.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/unit/harness.h"

int harness_failures;
static const char *skip_reason;		/* set by test_skip() in the running test */

static char dir_buf[256];
static char path_buf[512];

const char *test_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (!dir_buf[0]) {
		snprintf(dir_buf, sizeof(dir_buf), "%s/eprof-unit-XXXXXX", tmp ? tmp : "/tmp");
		if (!mkdtemp(dir_buf)) {
			perror("mkdtemp");
			exit(1);
		}
	}
	return dir_buf;
}

const char *path_in(const char *name)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s", test_dir(), name);
	return path_buf;
}

void test_skip(const char *why)
{
	skip_reason = why;
}

int run_tests(const struct test *tests, size_t nr)
{
	size_t i, passed = 0, failed = 0, skipped = 0;
	char cmd[600];

	for (i = 0; i < nr; i++) {
		harness_failures = 0;
		skip_reason = NULL;
		tests[i].fn();
		if (harness_failures) {
			failed++;
			printf("not ok %zu - %s\n", i + 1, tests[i].name);
		} else if (skip_reason) {
			skipped++;
			printf("ok %zu - %s # SKIP %s\n", i + 1, tests[i].name, skip_reason);
		} else {
			passed++;
			printf("ok %zu - %s\n", i + 1, tests[i].name);
		}
		fflush(stdout);
	}
	if (dir_buf[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir_buf);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir_buf);
	}
	if (skipped)
		printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
	else
		printf("%zu passed, %zu failed\n", passed, failed);
	return failed ? 1 : skipped ? 77 : 0;
}
