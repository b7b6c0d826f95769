// SPDX-License-Identifier: MIT
/*
 * tests/helper/cfi_dump.c - cfi-dump: build a binary's unwind table with
 * elf/cfi.c and print it, for tests, inspection and bench/.
 *
 *   cfi-dump [-q] [-R] [-r N] FILE
 *
 * The first line is a summary (`# source=.eh_frame rows=N fdes=N
 * unsupported=N bytes=N`); then one row per line, `OFF CFA CFA_OFF RBP
 * RBP_OFF` with OFF in hex. -q prints the summary only. -r N builds the
 * table N times and adds the mean build time (`build_ms=`, wall clock) and
 * CPU time (`cpu_ms=`, user + system: what a loaded machine distorts
 * least), for benchmarks that must not count process start-up. -R builds
 * it row by row with libdw (CFI_BUILD_PER_ROW), the builder before the
 * one-pass one; `per_row=` says how many FDEs libdw walked.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elf/cfi.h"

static const char *const cfa_names[] = {
	[UNW_CFA_NONE] = "NONE", [UNW_CFA_RSP] = "RSP", [UNW_CFA_RBP] = "RBP",
	[UNW_CFA_PLT] = "PLT", [UNW_CFA_SIGNAL] = "SIGNAL", [UNW_CFA_END] = "END",
	[UNW_CFA_RBX] = "RBX", [UNW_CFA_UNSUPPORTED] = "UNSUPPORTED",
	[UNW_CFA_RA_RDI] = "RA_RDI", [UNW_CFA_ABSENT] = "ABSENT",
};
static const char *const rbp_names[] = {
	[UNW_RBP_SAME] = "SAME", [UNW_RBP_CFA] = "CFA", [UNW_RBP_UNDEF] = "UNDEF",
};

static double clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int usage(void)
{
	fprintf(stderr, "usage: cfi-dump [-q] [-R] [-r N] FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct cfi_table t = { 0 };
	int opt, fd, err = 0, quiet = 0;
	unsigned int flags = 0;
	long repeat = 0, i;
	double t0 = 0, c0 = 0, ms = 0, cpu = 0;
	char *end;

	while ((opt = getopt(argc, argv, "qRr:")) != -1) {
		switch (opt) {
		case 'q':
			quiet = 1;
			break;
		case 'R':
			flags |= CFI_BUILD_PER_ROW;
			break;
		case 'r':
			errno = 0;
			repeat = strtol(optarg, &end, 10);
			if (errno || *end || repeat < 1 || repeat > 100000)
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (optind + 1 != argc)
		return usage();
	fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "cfi-dump: cannot open '%s': %s\n", argv[optind], strerror(errno));
		return 1;
	}
	if (repeat) {
		t0 = clock_ms(CLOCK_MONOTONIC);
		c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
		for (i = 0; i < repeat && !err; i++) {
			cfi_table__release(&t);
			err = cfi_table__build_flags(fd, flags, &t);
		}
		ms = (clock_ms(CLOCK_MONOTONIC) - t0) / (double)repeat;
		cpu = (clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0) / (double)repeat;
	} else {
		err = cfi_table__build_flags(fd, flags, &t);
	}
	close(fd);
	if (err) {
		fprintf(stderr, "cfi-dump: cannot build the unwind table of '%s': %s\n",
			argv[optind], strerror(-err));
		return 1;
	}
	printf("# source=%s rows=%zu fdes=%zu unsupported=%zu bytes=%zu per_row=%zu", t.source,
	       t.nr_rows, t.nr_fdes, t.nr_unsupported, t.nr_rows * sizeof(*t.rows), t.nr_per_row);
	if (repeat)
		printf(" build_ms=%.3f cpu_ms=%.3f", ms, cpu);
	printf("\n");
	for (i = 0; !quiet && (size_t)i < t.nr_rows; i++) {
		const struct unw_row *r = &t.rows[i];

		printf("%08" PRIx32 " %s %" PRId32 " %s %d %s %d\n", r->off,
		       r->cfa_type < sizeof(cfa_names) / sizeof(*cfa_names) ? cfa_names[r->cfa_type] : "?",
		       r->cfa_off, r->rbp_type < 3 ? rbp_names[r->rbp_type] : "?", r->rbp_off,
		       r->rbx_type < 3 ? rbp_names[r->rbx_type] : "?", r->rbx_off);
	}
	cfi_table__release(&t);
	return fflush(stdout) ? 1 : 0;
}
