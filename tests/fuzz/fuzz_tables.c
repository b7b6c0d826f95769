// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_tables.c - libFuzzer target: the input is a list of
 * table rows (layout in drive.h) that are inserted into an empty recording
 * with SQLite, their data BLOBs compressed into valid zstd frames, before
 * fuzz_drive_reader() reads the file back. Where fuzz_reader mutates the
 * file's bytes and mostly meets SQLite's and zstd's own checks, this one
 * reaches the reader's column type and range checks, the header-versus-
 * BLOB checks (counts, first and last times, id ranges) and the decoders,
 * through the same calls eprof makes, and then every report view over the
 * file (fuzz_drive_report), where rows that disagree with each other (a
 * sample beyond end_ns, a CPU above nr_cpus, a copied chunk) must be
 * damage. Messages are muted as in fuzz_reader.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

#include "tests/fuzz/drive.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static char path[256];
static void *template;
static size_t template_len;

static void remove_file(void)
{
	unlink(path);
	fuzz_remove_sidecars(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "%s/eprof-fuzz-tables-%d.rec", dir ? dir : "/tmp",
		 (int)getpid());
	atexit(remove_file);
	if (fuzz_make_template(path, &template, &template_len)) {
		fprintf(stderr, "fuzz_tables: cannot write a template recording at '%s'\n", path);
		exit(1);
	}
	sqlite3_hard_heap_limit64(64 << 20);
	fuzz_report = stderr;
	if (!getenv("EPROF_FUZZ_VERBOSE")) {
		FILE *null = fopen("/dev/null", "w");

		if (null)
			stderr = null;	/* only eprof's stdio messages; fd 2 stays */
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	enum fuzz_result res;

	if (fuzz_build_tables(path, template, template_len, data, len)) {
		fprintf(fuzz_report, "fuzz_tables: cannot build '%s'\n", path);
		abort();
	}
	res = fuzz_drive_reader(path, true);
	/* the views only over what the reader accepts: they would stop where it did */
	if (res == FUZZ_ACCEPTED)
		res = fuzz_drive_report(path);
	if (res == FUZZ_BROKEN)
		abort();
	return 0;
}
