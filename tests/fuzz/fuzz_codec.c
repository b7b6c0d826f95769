// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_codec.c - libFuzzer target: raw bytes straight into
 * format/'s BLOB decoders (sample columns, stack chunks, binaries, kernel
 * symbol chunks, zstd framing, strings and varints). Byte 0 picks the
 * decoder and 16 bytes of parameters follow (layout in drive.h). Without
 * SQLite and zstd in front, nearly every mutation reaches a decoder's
 * checks. Decoder messages go to /dev/null unless EPROF_FUZZ_VERBOSE is set.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/fuzz/drive.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
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
	if (fuzz_drive_codec(data, len) == FUZZ_BROKEN)
		abort();
	return 0;
}
