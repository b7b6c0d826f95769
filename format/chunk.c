// SPDX-License-Identifier: MIT
/*
 * format/chunk.c - the v2 chunk tables (mapping_chunk, comm_chunk,
 * thread_cgroup_chunk), written and read one way: each row is an id, a
 * count of records, an encoding and a zstd blob of the records' columns.
 * The file of each table family (mapping.c, comm.c, cgroup.c) gives only
 * its codec and its checks of a decoded chunk; the rest is here.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "format/internal.h"
#include "util/log.h"
#include "util/vec.h"

int rec_write_chunk(struct recording *rec, const char *sql, size_t n, const struct bytebuf *raw,
		    const char *what)
{
	sqlite3_stmt *st = NULL;
	void *blob = NULL;
	size_t blob_len;
	int err, rc;

	if (raw->len > CODEC_MAX_DECOMPRESSED) {
		pr_err("'%s': %zu %s in one commit is more than a reader accepts", rec->path, n,
		       what);
		return -E2BIG;
	}
	err = codec__zstd_compress(rec->w.cctx, REC_ZSTD_LEVEL, raw->data, raw->len, &blob,
				   &blob_len);
	if (err)
		return pr_errno(err, "'%s': compressing %s", rec->path, what);
	err = rec_prepare(rec, sql, what, &st);
	if (!err) {
		sqlite3_bind_int64(st, 1, (int64_t)n);
		sqlite3_bind_int(st, 2, REC_ENCODING_ZSTD_V1);
		sqlite3_bind_blob(st, 3, blob, (int)blob_len, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc != SQLITE_DONE)
			err = rec_sql_error(rec, rc, what);
	}
	sqlite3_finalize(st);
	free(blob);
	return err;
}

int rec_read_chunk_row(struct recording *rec, sqlite3_stmt *st, const char *table, int64_t max,
		       int64_t *id, int64_t *n)
{
	*id = sqlite3_column_int64(st, 0);
	if (sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
	    sqlite3_column_type(st, 2) != SQLITE_INTEGER)
		return rec_damaged(rec, "%s row: bad header", table);
	*n = sqlite3_column_int64(st, 1);
	if (*n < 1 || *n > max)
		return rec_damaged(rec, "%s chunk %" PRId64 ": bad count", table, *id);
	return rec_unzstd_column(rec, st, 3, sqlite3_column_int64(st, 2), table, *id);
}

/*
 * One chunk of t's, its header already read (id, n records in rec->r.buf):
 * decoded into *rows whole and checked, so a damaged chunk hands none of
 * its records on, then handed to t->each one by one.
 */
static int read_chunk(struct recording *rec, const struct rec_chunk_table *t, int64_t id,
		      int64_t n, void **rows, size_t *cap, void *ctx)
{
	struct bytebuf *buf = &rec->r.buf;
	size_t i;
	int err;

	if ((uint64_t)n > buf->len / t->min_bytes)
		return rec_damaged(rec, "%s chunk %" PRId64 ": %" PRId64 " %s cannot fit in %zu "
				   "bytes", t->table, id, n, t->unit, buf->len);
	if (vec__grow(rows, cap, (size_t)n, t->row_size))
		return pr_errno(-ENOMEM, "'%s': %s", rec->path, t->reading);
	if (t->decode(buf->data, buf->len, *rows, (size_t)n))
		return rec_damaged(rec, "%s chunk %" PRId64 ": %s do not decode to the %" PRId64
				   " in its header", t->table, id, t->unit, n);
	err = t->check ? t->check(rec, id, *rows, (size_t)n, ctx) : 0;
	for (i = 0; i < (size_t)n && !err; i++)
		err = t->each(ctx, (const char *)*rows + i * t->row_size);
	return err;
}

int rec_read_chunks(struct recording *rec, const struct rec_chunk_table *t, void *ctx)
{
	sqlite3_stmt *st = NULL;
	void *rows = NULL;
	size_t cap = 0;
	int64_t id, n;
	int err, rc = SQLITE_DONE;

	err = rec_prepare(rec, t->sql, t->reading, &st);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		err = rec_read_chunk_row(rec, st, t->table, t->max_rows, &id, &n);
		if (!err)
			err = read_chunk(rec, t, id, n, &rows, &cap, ctx);
	}
	if (!err && st && rc != SQLITE_DONE)
		err = rec_sql_error(rec, rc, t->reading);
	sqlite3_finalize(st);
	free(rows);
	return err;
}
