// SPDX-License-Identifier: MIT
/*
 * format/sql.c - the SQL helpers every file of format/ uses, and nothing
 * else: preparing a statement, translating a SQLite failure into one line
 * and an errno, naming damage, checked columns, whether a table exists,
 * and a chunk's zstd BLOB decompressed into rec->r.buf. It calls no other
 * file of format/ but codec.c, so a table's file (mapping.c, comm.c, ...)
 * depends on it and on chunk.c, never on recording.c, reader.c or
 * writer.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "format/internal.h"
#include "util/log.h"

/*
 * A writer whose file, or its directory, was removed while recording gets
 * "attempt to write a readonly database" (SQLITE_READONLY_DBMOVED),
 * "unable to open" (the journal's directory is gone) or "disk I/O error"
 * from SQLite: say what happened instead. Returns true when it printed.
 */
static bool say_vanished(const struct recording *rec, int rc, const char *what)
{
	char dir[4200];
	const char *slash;
	struct stat st;

	if (!rec->writable || !rec->db)
		return false;
	if ((rc & 0xff) != SQLITE_CANTOPEN && (rc & 0xff) != SQLITE_READONLY &&
	    (rc & 0xff) != SQLITE_IOERR)
		return false;
	if (!stat(rec->path, &st) || errno != ENOENT) {
		if (rc != SQLITE_READONLY_DBMOVED)
			return false;
	}
	slash = strrchr(rec->path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - rec->path) : 1,
		 slash ? (slash == rec->path ? "/" : rec->path) : ".");
	if (stat(dir, &st) && errno == ENOENT)
		pr_err("'%s': %s: its directory '%s' was removed during the recording (what "
		       "was written is gone)", rec->path, what, dir);
	else
		pr_err("'%s': %s: the file was removed or renamed during the recording",
		       rec->path, what);
	return true;
}

int rec_sql_error(const struct recording *rec, int rc, const char *what)
{
	const char *msg = rec->db ? sqlite3_errmsg(rec->db) : sqlite3_errstr(rc);

	if (say_vanished(rec, rc, what))
		return -ENOENT;
	if (rec->sql_over) {
		pr_err("'%s' is damaged: %s: its SQL takes more work than a file of its size "
		       "can need (a hostile or broken file)", rec->path, what);
		return -EBADMSG;
	}

	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		pr_err("'%s': %s: %s", rec->path, what, msg);
		return -ENOMEM;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		pr_err("'%s' is damaged: %s: %s", rec->path, what, msg);
		return -EBADMSG;
	case SQLITE_FULL:
		pr_err("'%s': %s: no space left on device (free some space; what was "
		       "committed before stays readable)", rec->path, what);
		return -ENOSPC;
	default:
		pr_err("'%s': %s: %s", rec->path, what, msg);
		return -EIO;
	}
}

int rec_damaged(const struct recording *rec, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pr_err("'%s' is damaged: %s", rec->path, what);
	return -EBADMSG;
}

int rec_prepare(struct recording *rec, const char *sql, const char *what, sqlite3_stmt **out)
{
	int rc = sqlite3_prepare_v2(rec->db, sql, -1, out, NULL);

	if (rc != SQLITE_OK) {
		*out = NULL;
		return rec_sql_error(rec, rc, what);
	}
	return 0;
}

/* A non-negative INTEGER column. */
bool rec_col_count(sqlite3_stmt *st, int i, int64_t max, uint64_t *out)
{
	int64_t v;

	if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
		return false;
	v = sqlite3_column_int64(st, i);
	if (v < 0 || v > max)
		return false;
	*out = (uint64_t)v;
	return true;
}

int rec_has_table(struct recording *rec, const char *name, bool *out)
{
	sqlite3_stmt *st = NULL;
	int rc, err;

	err = rec_prepare(rec, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
			  "reading the schema", &st);
	if (err)
		return err;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW;
	err = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rec_sql_error(rec, rc, "reading the schema");
	sqlite3_finalize(st);
	return err;
}

int rec_prepare_table(struct recording *rec, const char *table, const char *sql,
		      const char *what, sqlite3_stmt **out)
{
	int rc = sqlite3_prepare_v2(rec->db, sql, -1, out, NULL);

	if (rc == SQLITE_OK)
		return 0;
	*out = NULL;
	if ((rc & 0xff) == SQLITE_ERROR)
		return rec_damaged(rec, "table %s: %s", table, sqlite3_errmsg(rec->db));
	return rec_sql_error(rec, rc, what);
}

int rec_prepare_later_table(struct recording *rec, const char *table, const char *sql,
			    const char *what, sqlite3_stmt **out)
{
	bool present;
	int err;

	*out = NULL;
	if (rec->version < 2)
		return 0;
	err = rec_has_table(rec, table, &present);
	if (err || !present)
		return err;
	return rec_prepare_table(rec, table, sql, what, out);
}

int rec_unzstd_column(struct recording *rec, sqlite3_stmt *st, int i, int64_t enc,
		      const char *table, int64_t id)
{
	if (enc != REC_ENCODING_ZSTD_V1)
		return rec_damaged(rec, "%s chunk %" PRId64 ": unknown encoding %" PRId64, table,
				   id, enc);
	return rec_unzstd_prefixed(rec, st, i, NULL, table, id);
}

int rec_unzstd_prefixed(struct recording *rec, sqlite3_stmt *st, int i,
			const struct bytebuf *prefix, const char *table, int64_t id)
{
	const void *blob;
	int n, err;

	if (sqlite3_column_type(st, i) != SQLITE_BLOB)
		return rec_damaged(rec, "%s chunk %" PRId64 ": data is not a BLOB", table, id);
	blob = sqlite3_column_blob(st, i);
	n = sqlite3_column_bytes(st, i);
	if (n == 0)	/* SQLite gives NULL for an empty BLOB: not an error of its own */
		return rec_damaged(rec, "%s chunk %" PRId64 ": data is empty", table, id);
	if (!blob)
		return rec_sql_error(rec, sqlite3_errcode(rec->db), "reading a BLOB");
	err = codec__zstd_decompress_prefixed(rec->r.dctx, prefix ? prefix->data : NULL,
					      prefix ? prefix->len : 0, blob, (size_t)n,
					      CODEC_MAX_DECOMPRESSED, &rec->r.buf);
	if (err == -ENOMEM || err == -EINVAL)
		return pr_errno(err, "'%s': reading %s chunk %" PRId64, rec->path, table, id);
	if (err)
		return rec_damaged(rec, "%s chunk %" PRId64 ": bad or oversized zstd frame", table,
				   id);
	return 0;
}
