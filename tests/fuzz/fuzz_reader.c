// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_reader.c - libFuzzer target: the input is a recording
 * file. It is written to a file in a tmpfs directory (recording__open
 * takes a path, and SQLite reads through the VFS), opened and walked with
 * every reader call by fuzz_drive_reader(). Any return code is fine;
 * crashes, leaks, undefined behaviour, timeouts and broken contracts are
 * not.
 *
 * SQLite parses the bytes first, so this fuzzes its b-tree code as well;
 * its heap is capped so that a page count that lies cannot eat the
 * machine. eprof's own messages ("... is damaged: ...") would be most of
 * the output and slow the run down: they go to /dev/null unless
 * EPROF_FUZZ_VERBOSE is set. libFuzzer and the sanitizers write to file
 * descriptor 2 directly, so their reports still reach the terminal.
 *
 * Built a second time as fuzz_report (FUZZ_WITH_REPORT): the file is then
 * also reported with every view of `eprof report` and `eprof info`
 * (fuzz_drive_report), where a number from the file meets what sizes an
 * allocation or an output. Slower per input, so a target of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

#include "tests/fuzz/drive.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static char path[256];

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
	snprintf(path, sizeof(path), "%s/eprof-fuzz-%d.rec", dir ? dir : "/tmp", (int)getpid());
	atexit(remove_file);
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

	fuzz_remove_sidecars(path);
	if (fuzz_write_file(path, data, len)) {
		fprintf(fuzz_report, "fuzz_reader: cannot write '%s'\n", path);
		abort();
	}
	res = fuzz_drive_reader(path, false);
#ifdef FUZZ_WITH_REPORT
	if (res != FUZZ_BROKEN)
		res = fuzz_drive_report(path);
#endif
	fuzz_remove_sidecars(path);
	if (res == FUZZ_BROKEN)
		abort();
	return 0;
}
