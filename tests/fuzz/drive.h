/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/drive.h - what the fuzz targets and the regression test do
 * with one input: run every reader call on a recording file, or feed raw
 * bytes to one of format/'s BLOB decoders, and check the API's contract
 * (return values, the invariants the callbacks are promised).
 */
#ifndef EPROF_TESTS_FUZZ_DRIVE_H
#define EPROF_TESTS_FUZZ_DRIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where contract violations are described; NULL: stderr. */
extern FILE *fuzz_report;

/*
 * Codec inputs: byte 0 picks the decoder (modulo FUZZ_CODEC_NR), bytes
 * 1..16 are its parameters (a little-endian u64 "a", then u32 "b" and "c",
 * zero when the input is shorter), the rest is the decoder's input.
 */
enum fuzz_codec {
	FUZZ_CODEC_SAMPLES,	/* a: first_time, b: n (mod 2^16) */
	FUZZ_CODEC_STACKS,	/* b: first_id, c: last_id, a: n (mod 2^16), bit 16 of a:
				 * encoding 2 (user frames by 4 fixed mapping starts) */
	FUZZ_CODEC_BINARY,
	FUZZ_CODEC_KSYMS,	/* b: n (mod 2^16) */
	FUZZ_CODEC_ZSTD,	/* b: cap (mod 2^20) */
	FUZZ_CODEC_STRINGS,	/* a: string max, b: varint max, alternating */
	FUZZ_CODEC_NR
};
#define FUZZ_CODEC_HEADER	17

/* The outcome of one input. */
enum fuzz_result {
	FUZZ_REJECTED = 0,	/* every call returned 0 or a negative errno; some failed */
	FUZZ_ACCEPTED = 1,	/* every call returned 0 */
	FUZZ_BROKEN = -1,	/* a contract violation (described on fuzz_report) */
};

/*
 * Opens path with recording__open and runs every reader call on it. With
 * strict_errno (the file was written by SQLite, only eprof's rows and
 * BLOBs can be damaged) the only failures allowed are -EBADMSG and -ENOMEM.
 */
enum fuzz_result fuzz_drive_reader(const char *path, bool strict_errno);

/*
 * Runs every view of `eprof report` (no filters, output to /dev/null, no
 * local files) and `eprof info` over the recording at path (drive_report.c):
 * each must fail with a negative errno after an error line, or succeed
 * without one; --fold must count exactly the samples the reader delivers.
 */
enum fuzz_result fuzz_drive_report(const char *path);

/* Feeds one codec input (layout above) to its decoder. */
enum fuzz_result fuzz_drive_codec(const uint8_t *data, size_t len);

/*
 * Table inputs (fuzz_tables.c): a sequence of rows, each a table byte
 * (index into fuzz_tables[], modulo FUZZ_TABLES_NR) and then one value per
 * column of that table, each a kind byte (enum fuzz_value, modulo
 * FUZZ_VALUE_NR) and its bytes: FUZZ_SMALL one signed byte, FUZZ_I64 and
 * FUZZ_REAL 8 bytes little-endian, FUZZ_TEXT, FUZZ_BLOB and FUZZ_ZSTD a
 * little-endian u16 length and that many bytes (FUZZ_ZSTD: compressed into
 * a valid zstd frame before it is stored, so the BLOB decoders see the
 * fuzzer's bytes through the real reader). Missing bytes read as zero.
 */
enum fuzz_value {
	FUZZ_SMALL, FUZZ_I64, FUZZ_TEXT, FUZZ_BLOB, FUZZ_REAL, FUZZ_NULL, FUZZ_ZSTD,
	FUZZ_VALUE_NR
};

struct fuzz_table {
	const char *name;
	int nr_columns;
	const char *insert;	/* INSERT with nr_columns parameters */
	const char *select;	/* the same columns, for gen_seeds */
	int data_column;	/* the zstd BLOB column, or -1 */
};

#define FUZZ_TABLES_NR	15
extern const struct fuzz_table fuzz_tables[FUZZ_TABLES_NR];

/*
 * Copies the recording template (tlen bytes) to path and inserts the rows
 * of a table input into it. 0, or a negative errno when the file cannot be
 * written; rows SQLite refuses (NOT NULL, a duplicate id...) are skipped.
 */
int fuzz_build_tables(const char *path, const void *template, size_t tlen,
		      const uint8_t *data, size_t len);

/* Writes an empty, finished recording at path and reads its bytes into *out. */
int fuzz_make_template(const char *path, void **out, size_t *len);

/* Writes len bytes to path (truncating); 0 or a negative errno. */
int fuzz_write_file(const char *path, const void *data, size_t len);

/* Removes the journal, WAL and shm files SQLite may leave next to path. */
void fuzz_remove_sidecars(const char *path);

#endif
