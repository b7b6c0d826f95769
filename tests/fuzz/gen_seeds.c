// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/gen_seeds.c - writes the fuzzers' seed corpus with the format
 * API itself, so that the seeds are always what the current writer makes.
 *
 *   gen_seeds OUTDIR  ->  OUTDIR/reader/<name>.rec, OUTDIR/codec/<blob>.bin,
 *                         OUTDIR/tables/<name>.bin
 *
 * Recordings: one with every table filled across two commits (samples on
 * three CPUs, kernel and user stacks, comms, mappings with and without a
 * build-id, two binaries, kernel symbols with and without a module, loss
 * rows), one never finished, one empty, one with a single sample. Each is
 * rewritten with 512-byte pages (VACUUM), which keeps the files at a few
 * KiB: mutations then hit the b-tree pages and the BLOBs, not the padding
 * of larger pages; "full-native.rec" keeps the writer's own page size.
 *
 * SQL seeds: the full recording changed by SQL (sql_mutations below:
 * views, triggers, renamed tables and columns, type changes, long strings).
 *
 * Codec seeds: every BLOB of those recordings, decompressed, behind the
 * 17-byte header fuzz_codec.c expects (decoder and parameters from the
 * chunk's row), plus the compressed BLOBs for the zstd decoder and a
 * string/varint sequence. Table seeds: every row of those recordings in
 * fuzz_tables.c's layout (drive.h), data BLOBs decompressed, so that
 * replaying one rebuilds the recording.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>
#include <zstd.h>

#include "format/codec.h"
#include "format/recording.h"
#include "tests/fuzz/drive.h"

static const char *outdir;

static int fail(const char *what)
{
	fprintf(stderr, "gen_seeds: %s\n", what);
	return -1;
}

static const char *out_path(const char *sub, const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s/%s", outdir, sub, name);
	return buf;
}

/* --- recordings ------------------------------------------------------------ */

static int add_meta(struct recording *rec)
{
	static const char *const kv[][2] = {
		{ REC_META_EPROF_VERSION, "0.1.0-fuzz" }, { REC_META_HOSTNAME, "seed" },
		{ REC_META_KERNEL, "6.1.0" }, { REC_META_ARCH, "x86_64" },
		{ REC_META_NR_CPUS, "4" }, { REC_META_NUMA_MAP, "0:0,1:0,2:1,3:1" },
		{ REC_META_FREQ_HZ, "999" }, { REC_META_EVENT, "cpu-clock" },
		{ REC_META_CLOCK, "CLOCK_MONOTONIC" }, { REC_META_START_NS, "1000000" },
		{ REC_META_END_NS, "90000000" }, { REC_META_START_REALTIME, "1700000000" },
		{ REC_META_COMMAND, "eprof record -a" }, { REC_META_TARGET, "-a" },
		{ REC_META_OFF_CPU_THRESH, "1000000" },
	};
	size_t i;
	int err = 0;

	for (i = 0; i < sizeof(kv) / sizeof(kv[0]) && !err; i++)
		err = recording__set_meta(rec, kv[i][0], kv[i][1]);
	return err;
}

/* Samples base..base+n on CPUs 0, 1 and 3, about 1 ms apart with jitter. */
static int add_samples(struct recording *rec, uint64_t base, size_t n, uint32_t nr_stacks)
{
	struct rec_sample s;
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		s.cpu = (uint32_t)(i % 3 == 2 ? 3 : i % 3);
		s.time_ns = base + i / 3 * 1001001 + (i * 7919) % 5000 + s.cpu;
		s.tgid = 100 + (uint32_t)(i % 3);
		s.tid = s.tgid + (uint32_t)(i % 2);
		s.stack_id = 1 + (uint32_t)(i % nr_stacks);
		err = recording__add_sample(rec, &s);
	}
	return err;
}

static int add_stacks(struct recording *rec, uint32_t first, uint32_t n)
{
	uint64_t frames[8];
	struct rec_stack st = { .frames = frames };
	uint32_t i, j;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		st.id = first + i;
		st.nr_kernel = i % 3;
		st.nr_user = 1 + i % 4;
		for (j = 0; j < st.nr_kernel; j++)
			frames[j] = 0xffffffff81000000ull + 0x1000 * (i + j) + 0x10 * j;
		for (j = 0; j < st.nr_user; j++)
			frames[st.nr_kernel + j] = 0x401000 + 0x40 * (i + 3 * j);
		err = recording__add_stack(rec, &st);
	}
	return err;
}

static int add_tables(struct recording *rec)
{
	static const struct rec_segment segs[] = {
		{ 0, 0x400000, 0x1000 }, { 0x1000, 0x401000, 0x5000 },
	};
	static const struct rec_symbol syms[] = {
		{ 0x401000, 0x40, "main" }, { 0x401040, 0x100, "work_a" },
		{ 0x401140, 0x80, "work_b" }, { 0x4011c0, 0, "" },
	};
	static const struct rec_symbol vdso_syms[] = { { 0x700, 0x30, "__vdso_clock_gettime" } };
	static const struct rec_ksym ksyms[] = {
		{ 0xffffffff81000000ull, 0xffffffff81000100ull, "_text", NULL },
		{ 0xffffffff81001000ull, 0xffffffff81001200ull, "do_syscall_64", NULL },
		{ 0xffffffffc0000000ull, 0xffffffffc0000080ull, "ext4_readpage", "ext4" },
	};
	struct rec_binary bin = {
		.build_id = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
			      15, 16 },
		.build_id_len = 20, .path = "/usr/bin/seed", .source = ".symtab",
		.nr_segments = 2, .segments = segs, .nr_symbols = 4, .symbols = syms,
	};
	struct rec_binary vdso = {
		.path = "[vdso]", .source = ".dynsym", .nr_symbols = 1, .symbols = vdso_syms,
	};
	/* CPython 3.11 location tables: two entries, then one of a long form */
	static const uint8_t lt[] = { 0xf0, 0x03, 0xd8, 0x02, 0x06, 0x07, 0xf2, 0x04, 0x02 };
	struct rec_py_code py = {
		.tgid = 100, .key = 1, .addr = 0x7f0000001000ull, .version = 0x030b,
		.name = "spin", .qualname = "Worker.spin", .filename = "/srv/app/seed.py",
		.first_line = 12, .linetable = lt, .linetable_len = sizeof(lt),
	};
	struct rec_py_code py2 = {
		.tgid = 101, .key = 7, .addr = 0x7f0000002000ull, .version = 0x030d,
		.name = "<module>", .qualname = "<module>", .filename = "seed.py", .first_line = 1,
	};
	struct rec_comm c = { .time_ns = 0, .tgid = 100, .tid = 100, .comm = "seed" };
	struct rec_comm c2 = { .time_ns = 2000000, .tgid = 101, .tid = 102, .comm = "worker-15chars!" };
	struct rec_mapping m = {
		.time_ns = 0, .tgid = 100, .start = 0x400000, .end = 0x406000, .pgoff = 0,
		.path = "/usr/bin/seed", .build_id = { 0xde, 0xad, 0xbe, 0xef }, .build_id_len = 4,
	};
	struct rec_mapping m2 = {
		.time_ns = 3000000, .tgid = 101, .start = 0x7fff0000, .end = 0x7fff2000,
		.path = "[vdso]",
	};
	struct rec_loss l = { 5000000, 1, 3, 1, 0, 2, 1 };
	/* off-CPU (v2): two long intervals of one thread, sums of two flushes, a loss */
	struct rec_offcpu o1 = { 2000000, 3000000, 100, 100, 1, REC_OFFCPU_BLOCKED, 2 };
	struct rec_offcpu o2 = { 6000000, 1500000, 100, 100, 2, REC_OFFCPU_RUNNABLE, 3 };
	struct rec_offcpu_sum s1 = { 10000000, 100, 100, REC_OFFCPU_BLOCKED, 0, 1, 12, 90000 };
	struct rec_offcpu_sum s2 = { 20000000, 101, 102, REC_OFFCPU_RUNNABLE, 3, 4, 3, 2500 };
	struct rec_offcpu_loss ol = { 20000000, 2, 1, 5000, 0, 1 };
	/* cgroups (v2): two named, one gone; threads first seen, then one moved */
	struct rec_cgroup g1 = { 1, "/" }, g2 = { 4242, "/system.slice/seed.service" };
	struct rec_thread_cgroup t1 = { 0, 100, 100, 4242 }, t2 = { 0, 101, 102, 1 };
	struct rec_thread_cgroup t3 = { 15000000, 100, 100, 9999 };
	int err;

	err = recording__add_comm(rec, &c);
	err = err ?: recording__add_comm(rec, &c2);
	err = err ?: recording__add_mapping(rec, &m);
	err = err ?: recording__add_mapping(rec, &m2);
	err = err ?: recording__add_binary(rec, &bin);
	err = err ?: recording__add_binary(rec, &vdso);
	err = err ?: recording__add_ksyms(rec, ksyms, sizeof(ksyms) / sizeof(ksyms[0]));
	err = err ?: recording__add_loss(rec, &l);
	err = err ?: recording__add_offcpu(rec, &o1);
	err = err ?: recording__add_offcpu(rec, &o2);
	err = err ?: recording__add_offcpu_sum(rec, &s1);
	err = err ?: recording__add_offcpu_sum(rec, &s2);
	err = err ?: recording__add_offcpu_loss(rec, &ol);
	err = err ?: recording__add_cgroup(rec, &g1);
	err = err ?: recording__add_cgroup(rec, &g2);
	err = err ?: recording__add_thread_cgroup(rec, &t1);
	err = err ?: recording__add_thread_cgroup(rec, &t2);
	err = err ?: recording__add_thread_cgroup(rec, &t3);
	err = err ?: recording__add_py_code(rec, &py);
	err = err ?: recording__add_py_code(rec, &py2);
	return err;
}

enum shape { FULL, UNFINISHED, EMPTY, ONE_SAMPLE };

static int write_recording(const char *path, enum shape shape)
{
	struct recording *rec = NULL;
	struct rec_stack one = { .id = 7, .nr_user = 0, .nr_kernel = 0 };
	struct rec_sample s = { .time_ns = 12345678, .tgid = 1, .tid = 1, .cpu = 0, .stack_id = 7 };
	struct rec_jit_cut cut = { 101, "/tmp/perf-101.map", 4096, 80, 100000, 2000, true };
	int err;

	err = recording__create(path, &rec);
	if (err)
		return err;
	err = add_meta(rec);
	switch (shape) {
	case FULL:
		err = err ?: add_stacks(rec, 1, 6);
		err = err ?: add_samples(rec, 1000000, 24, 6);
		err = err ?: add_tables(rec);
		err = err ?: recording__commit(rec);
		err = err ?: recording__add_jit_cut(rec, &cut);
		err = err ?: add_stacks(rec, 7, 3);
		err = err ?: add_samples(rec, 40000000, 12, 9);
		err = err ?: recording__finish(rec);
		break;
	case UNFINISHED:
		err = err ?: add_stacks(rec, 1, 2);
		err = err ?: add_samples(rec, 5000000, 5, 2);
		err = err ?: recording__commit(rec);
		break;
	case EMPTY:
		err = err ?: recording__finish(rec);
		break;
	case ONE_SAMPLE:
		err = err ?: recording__add_stack(rec, &one);
		err = err ?: recording__add_sample(rec, &s);
		err = err ?: recording__finish(rec);
		break;
	}
	recording__close(rec);
	return err;
}

/* Rewrites the database at path with 512-byte pages. */
static int shrink_pages(const char *path)
{
	sqlite3 *db = NULL;
	int rc;

	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "PRAGMA page_size = 512; VACUUM;", NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : fail(sqlite3_errstr(rc));
}

/*
 * SQL-level mutations of a recording (issue 24), each a seed of its own:
 * what a byte-level mutator hardly ever writes, since the schema text and
 * the b-tree must change together. A recording is an untrusted SQLite
 * database: views (one that never ends) and triggers in place of eprof's
 * tables, renamed tables and columns, changed column types and values,
 * strings far longer than any eprof writes.
 */
static const struct {
	const char *name;
	const char *sql;
} sql_mutations[] = {
	{ "sql-view-meta", "ALTER TABLE meta RENAME TO m0;"
	  "CREATE VIEW meta AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c)"
	  " SELECT key, value FROM m0, c;" },
	{ "sql-view-samples", "ALTER TABLE sample_chunk RENAME TO s0;"
	  "CREATE VIEW sample_chunk AS SELECT * FROM s0, s0 AS s1, s0 AS s2;" },
	{ "sql-view-stacks", "ALTER TABLE stack_chunk RENAME TO s0;"
	  "CREATE VIEW stack_chunk AS SELECT * FROM s0 UNION ALL SELECT * FROM s0;" },
	{ "sql-view-ksyms", "ALTER TABLE ksym_chunk RENAME TO k0;"
	  "CREATE VIEW ksym_chunk AS SELECT * FROM k0;" },
	{ "sql-trigger", "CREATE TRIGGER t0 BEFORE UPDATE ON meta BEGIN DELETE FROM sample_chunk; END;"
	  "CREATE TRIGGER t1 AFTER INSERT ON meta BEGIN SELECT RAISE(ABORT, 'x'); END;" },
	{ "sql-index", "CREATE INDEX i0 ON meta(value);" },
	{ "sql-view-python", "ALTER TABLE python_code RENAME TO p0;"
	  "CREATE VIEW python_code AS SELECT * FROM p0 UNION ALL SELECT * FROM p0;" },
	{ "sql-python-types", "UPDATE python_code SET linetable = CAST(linetable AS TEXT),"
	  " first_line = -first_line, code_key = code_key - 7;" },
	{ "sql-renamed-table", "ALTER TABLE stack_chunk RENAME TO stack_chunk_old;" },
	{ "sql-renamed-column", "ALTER TABLE meta RENAME COLUMN value TO v;" },
	{ "sql-extra-column", "ALTER TABLE meta ADD COLUMN extra BLOB;" },
	{ "sql-meta-types", "CREATE TABLE m1 (key BLOB PRIMARY KEY, value INTEGER);"
	  "INSERT INTO m1 SELECT key, value FROM meta; DROP TABLE meta;"
	  "ALTER TABLE m1 RENAME TO meta;" },
	{ "sql-value-types", "UPDATE meta SET value = CAST(value AS BLOB) WHERE key = 'nr_cpus';"
	  "UPDATE meta SET value = -1.5e300 WHERE key = 'freq_hz';"
	  "UPDATE meta SET value = x'00ff' WHERE key = 'hostname';" },
	{ "sql-long-strings", "UPDATE meta SET value = printf('%.20000c', 'N') WHERE key = 'hostname';"
	  "UPDATE meta SET value = value || printf('%.10000c', 'x') WHERE key = 'command';"
	  "INSERT OR REPLACE INTO meta VALUES (printf('%.5000c', 'k'), 'v');" },
};

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	size_t n;
	int err = in && out ? 0 : -1;

	while (!err && (n = fread(buf, 1, sizeof(buf), in)))
		if (fwrite(buf, 1, n, out) != n)
			err = -1;
	if (in && ferror(in))
		err = -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		err = -1;
	return err ? fail("cannot copy a recording") : 0;
}

/* Writes reader/<name>.rec for each mutation, from reader/full.rec. */
static int sql_seeds(void)
{
	char from[4096], name[256];
	size_t i;

	snprintf(from, sizeof(from), "%s", out_path("reader", "full.rec"));
	for (i = 0; i < sizeof(sql_mutations) / sizeof(sql_mutations[0]); i++) {
		sqlite3 *db = NULL;
		int rc;

		snprintf(name, sizeof(name), "%s.rec", sql_mutations[i].name);
		if (copy_file(from, out_path("reader", name)))
			return -1;
		rc = sqlite3_open_v2(out_path("reader", name), &db, SQLITE_OPEN_READWRITE, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, sql_mutations[i].sql, NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			fprintf(stderr, "gen_seeds: %s: %s\n", sql_mutations[i].name, sqlite3_errmsg(db));
		sqlite3_close(db);
		fuzz_remove_sidecars(out_path("reader", name));
		if (rc != SQLITE_OK)
			return -1;
	}
	return 0;
}

/* --- codec seeds ------------------------------------------------------------- */

static int write_codec_seed(const char *name, int kind, uint64_t a, uint32_t b, uint32_t c,
			    const void *payload, size_t len)
{
	uint8_t *buf = malloc(FUZZ_CODEC_HEADER + len);
	int i, err;

	if (!buf)
		return fail("out of memory");
	buf[0] = (uint8_t)kind;
	for (i = 0; i < 8; i++)
		buf[1 + i] = (uint8_t)(a >> (8 * i));
	for (i = 0; i < 4; i++) {
		buf[9 + i] = (uint8_t)(b >> (8 * i));
		buf[13 + i] = (uint8_t)(c >> (8 * i));
	}
	if (len)
		memcpy(buf + FUZZ_CODEC_HEADER, payload, len);
	err = fuzz_write_file(out_path("codec", name), buf, FUZZ_CODEC_HEADER + len);
	free(buf);
	return err ? fail(name) : 0;
}

/*
 * v2 stack chunks are compressed with the stacks of the chunk before as a
 * zstd prefix (format/writer.c): decompressing them in id order needs the
 * last one's stacks, which are its bytes after the leading mapping chunk
 * id (a varint). *lead is that varint's length.
 */
static struct bytebuf stack_chain;

static void *unzstd(const void *blob, size_t len, unsigned long long size, bool chained,
		    size_t *lead)
{
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	void *raw = malloc(size ? size : 1);
	size_t got = 0, i;

	*lead = 0;
	if (dctx && raw && chained && stack_chain.len)
		got = ZSTD_DCtx_refPrefix(dctx, stack_chain.data, stack_chain.len);
	if (dctx && raw && !ZSTD_isError(got))
		got = ZSTD_decompressDCtx(dctx, raw, size, blob, len);
	ZSTD_freeDCtx(dctx);
	if (!dctx || !raw || ZSTD_isError(got) || got != size) {
		free(raw);
		return NULL;
	}
	if (chained) {
		for (i = 0; i < size && (((uint8_t *)raw)[i] & 0x80); i++)
			;
		*lead = i < size ? i + 1 : size;
		stack_chain.len = 0;
		if (bytebuf__put(&stack_chain, (uint8_t *)raw + *lead, size - *lead)) {
			free(raw);
			return NULL;
		}
	}
	return raw;
}

/*
 * One table's BLOBs: the SELECT gives a, b, c, then the compressed data.
 * Each becomes a decoder seed and a zstd seed.
 */
static int extract(sqlite3 *db, const char *rec_name, const char *prefix, int kind,
		   const char *sql)
{
	bool chained = kind == FUZZ_CODEC_STACKS;	/* a: encoding 2 in bit 16 */
	sqlite3_stmt *st = NULL;
	char name[256];
	void *raw = NULL;
	size_t lead;
	int nr = 0, err = 0;

	stack_chain.len = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(sqlite3_errmsg(db));
	while (!err && sqlite3_step(st) == SQLITE_ROW) {
		const void *blob = sqlite3_column_blob(st, 3);
		size_t len = (size_t)sqlite3_column_bytes(st, 3);
		unsigned long long size = ZSTD_getFrameContentSize(blob, len);

		if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
			err = fail("a BLOB without a zstd content size");
			break;
		}
		raw = unzstd(blob, len, size, chained, &lead);
		if (!raw) {
			err = fail("cannot decompress a BLOB");
			break;
		}
		snprintf(name, sizeof(name), "%s-%s-%d.bin", prefix, rec_name, nr);
		err = write_codec_seed(name, kind, (uint64_t)sqlite3_column_int64(st, 0) |
				       (chained ? 1u << 16 : 0),
				       (uint32_t)sqlite3_column_int64(st, 1),
				       (uint32_t)sqlite3_column_int64(st, 2), (uint8_t *)raw + lead,
				       size - lead);
		snprintf(name, sizeof(name), "zstd-%s-%s-%d.bin", prefix, rec_name, nr);
		/* a frame that needs its prefix is no seed for the plain decoder */
		if (!chained || nr == 0)
			err = err ?: write_codec_seed(name, FUZZ_CODEC_ZSTD, 0,
						      (uint32_t)size + 16, 0, blob, len);
		free(raw);
		raw = NULL;
		nr++;
	}
	free(raw);
	sqlite3_finalize(st);
	return err;
}

static int put_le(struct bytebuf *b, uint64_t v, int bytes)
{
	uint8_t buf[8];
	int i;

	for (i = 0; i < bytes; i++)
		buf[i] = (uint8_t)(v >> (8 * i));
	return bytebuf__put(b, buf, (size_t)bytes);
}

/* One value in the layout fuzz_build_tables() reads. */
static int put_value(struct bytebuf *b, sqlite3_stmt *st, int i, bool data, bool chained)
{
	const void *p = sqlite3_column_blob(st, i);
	size_t len = (size_t)sqlite3_column_bytes(st, i), lead;
	unsigned long long size;
	void *raw;
	int err;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		err = bytebuf__put(b, (uint8_t[]){ FUZZ_I64 }, 1);
		return err ?: put_le(b, (uint64_t)sqlite3_column_int64(st, i), 8);
	case SQLITE_NULL:
		return bytebuf__put(b, (uint8_t[]){ FUZZ_NULL }, 1);
	case SQLITE_TEXT:
		p = sqlite3_column_text(st, i);
		err = bytebuf__put(b, (uint8_t[]){ FUZZ_TEXT }, 1);
		break;
	case SQLITE_BLOB:
		if (!data) {
			err = bytebuf__put(b, (uint8_t[]){ FUZZ_BLOB }, 1);
			break;
		}
		size = ZSTD_getFrameContentSize(p, len);
		if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
		    size > 0xffff)
			return fail("a data BLOB that does not fit a table seed");
		raw = unzstd(p, len, size, chained, &lead);
		if (!raw)
			return fail("cannot decompress a BLOB");
		err = bytebuf__put(b, (uint8_t[]){ FUZZ_ZSTD }, 1);
		err = err ?: put_le(b, size, 2);
		err = err ?: bytebuf__put(b, raw, size);
		free(raw);
		return err;
	default:
		return fail("a REAL in a recording");
	}
	if (len > 0xffff)
		return fail("a value too long for a table seed");
	err = err ?: put_le(b, len, 2);
	return err ?: bytebuf__put(b, p, len);
}

/* Every row of the recording at path as one fuzz_tables input. */
static int table_seed(sqlite3 *db, const char *rec_name)
{
	struct bytebuf b = { 0 };
	sqlite3_stmt *st;
	char name[256];
	int t, i, err = 0;

	for (t = 0; t < FUZZ_TABLES_NR && !err; t++) {
		bool chained = !strcmp(fuzz_tables[t].name, "stack_chunk");

		if (sqlite3_prepare_v2(db, fuzz_tables[t].select, -1, &st, NULL) != SQLITE_OK)
			return fail(sqlite3_errmsg(db));
		stack_chain.len = 0;
		while (!err && sqlite3_step(st) == SQLITE_ROW) {
			err = bytebuf__put(&b, (uint8_t[]){ (uint8_t)t }, 1);
			for (i = 0; i < fuzz_tables[t].nr_columns && !err; i++)
				err = put_value(&b, st, i, i == fuzz_tables[t].data_column,
						chained);
		}
		sqlite3_finalize(st);
	}
	snprintf(name, sizeof(name), "%s.bin", rec_name);
	err = err ?: fuzz_write_file(out_path("tables", name), b.data, b.len);
	bytebuf__release(&b);
	return err ? fail("cannot write a table seed") : 0;
}

static int extract_all(const char *path, const char *rec_name)
{
	sqlite3 *db = NULL;
	int err;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return fail("cannot open a recording just written");
	}
	err = extract(db, rec_name, "samples", FUZZ_CODEC_SAMPLES,
		      "SELECT first_time, nr_samples, 0, data FROM sample_chunk");
	err = err ?: extract(db, rec_name, "stacks", FUZZ_CODEC_STACKS,
			     "SELECT nr_stacks, first_id, last_id, data FROM stack_chunk");
	err = err ?: extract(db, rec_name, "binary", FUZZ_CODEC_BINARY,
			     "SELECT 0, 0, 0, data FROM binary UNION ALL "
			     "SELECT 0, 0, 0, data FROM binary_chunk");
	err = err ?: extract(db, rec_name, "ksyms", FUZZ_CODEC_KSYMS,
			     "SELECT 0, nr_syms, 0, data FROM ksym_chunk");
	err = err ?: table_seed(db, rec_name);
	sqlite3_close(db);
	return err;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		enum shape shape;
		bool small_pages;
	} recs[] = {
		{ "full", FULL, true }, { "full-native", FULL, false },
		{ "unfinished", UNFINISHED, true }, { "empty", EMPTY, true },
		{ "one-sample", ONE_SAMPLE, true },
	};
	/* string "ab", varint 300, string "", varint 0 */
	static const uint8_t strings[] = { 2, 'a', 'b', 0, 0xac, 0x02, 0, 0, 0 };
	char name[256];
	size_t i;
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds OUTDIR\n");
		return 2;
	}
	outdir = argv[1];
	if ((mkdir(outdir, 0755) && errno != EEXIST) ||
	    (mkdir(out_path("reader", ""), 0755) && errno != EEXIST) ||
	    (mkdir(out_path("codec", ""), 0755) && errno != EEXIST) ||
	    (mkdir(out_path("tables", ""), 0755) && errno != EEXIST))
		return fail("cannot create the output directories"), 1;
	for (i = 0; i < sizeof(recs) / sizeof(recs[0]) && !err; i++) {
		snprintf(name, sizeof(name), "%s.rec", recs[i].name);
		err = write_recording(out_path("reader", name), recs[i].shape);
		if (err) {
			fail("cannot write a recording");
			break;
		}
		if (recs[i].small_pages)
			err = shrink_pages(out_path("reader", name));
		fuzz_remove_sidecars(out_path("reader", name));
		if (!err && recs[i].small_pages)
			err = extract_all(out_path("reader", name), recs[i].name);
	}
	err = err ?: sql_seeds();
	err = err ?: write_codec_seed("strings-0.bin", FUZZ_CODEC_STRINGS, 16, 1000, 0, strings,
				      sizeof(strings));
	return err ? 1 : 0;
}
