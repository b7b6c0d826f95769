/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/harness.h - a tiny unit-test harness: a table of named tests,
 * CHECK macros that record a failure and go on, one line per test and a
 * final "N passed, N failed" line that ctest's log shows.
 */
#ifndef EPROF_TESTS_HARNESS_H
#define EPROF_TESTS_HARNESS_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct test {
	const char *name;
	void (*fn)(void);
};

extern int harness_failures;	/* failures in the running test */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define CHECK(cond)                                                             \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, \
				__LINE__, #cond);                               \
			harness_failures++;                                     \
		}                                                               \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                          \
	do {                                                                        \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                    \
		if (a_ != b_) {                                                     \
			fprintf(stderr, "  %s:%d: %s == %" PRIu64 ", expected %s == %" PRIu64 "\n", \
				__FILE__, __LINE__, #a, a_, #b, b_);                \
			harness_failures++;                                         \
		}                                                                   \
	} while (0)

#define CHECK_OK(expr)                                                              \
	do {                                                                        \
		int rc_ = (expr);                                                   \
		if (rc_) {                                                          \
			fprintf(stderr, "  %s:%d: %s returned %d, expected 0\n",    \
				__FILE__, __LINE__, #expr, rc_);                    \
			harness_failures++;                                         \
		}                                                                   \
	} while (0)

#define CHECK_STR(a, b)                                                             \
	do {                                                                        \
		const char *a_ = (a), *b_ = (b);                                    \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                 \
			fprintf(stderr, "  %s:%d: %s is \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, #a, a_ ? a_ : "(null)",         \
				b_ ? b_ : "(null)");                                \
			harness_failures++;                                         \
		}                                                                   \
	} while (0)

/*
 * Marks the running test skipped because the host lacks something it
 * needs (why says what): it is then neither passed nor failed, and the
 * binary exits 77, which ctest reports as skipped (SKIP_RETURN_CODE).
 */
void test_skip(const char *why);

/*
 * Runs every test, prints one line each and "N passed, N failed[, N
 * skipped]"; returns the exit code (77 when some were skipped, none failed).
 */
int run_tests(const struct test *tests, size_t nr);

/* A fresh directory under $TMPDIR (or /tmp); path_in() names a file in it. */
const char *test_dir(void);
const char *path_in(const char *name);

#endif
